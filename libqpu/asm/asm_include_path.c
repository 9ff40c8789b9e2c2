// SPDX-License-Identifier: MIT
/*
 * Where the assembler looks for .include files besides the directories
 * given with qpu_asm_add_include_dir(): the entries of $QPU_INCLUDE, then
 * the directory `make install` puts libqpu's include files in.
 */

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm_internal.h"
#include "qpu_asm.h"

/* Set by libqpu.mk from QASMDIR, the directory install-user fills. */
#ifndef QPU_QASMDIR
#define QPU_QASMDIR "/usr/local/share/qpu/qasm"
#endif

QPU_API int qpu_asm_default_include_dir(size_t i, char *buf, size_t size)
{
	const char *env = getenv("QPU_INCLUDE"), *p = env, *end;
	size_t len;

	/* the non-empty colon-separated entries of $QPU_INCLUDE */
	while (p && *p) {
		end = strchrnul(p, ':');
		len = (size_t)(end - p);
		if (len && !i--) {
			if (len >= size)
				return -ENAMETOOLONG;
			memcpy(buf, p, len);
			buf[len] = '\0';
			return (int)len;
		}
		p = *end ? end + 1 : end;
	}
	if (i)
		return -ENOENT;
	len = strlen(QPU_QASMDIR);
	if (len >= size)
		return -ENAMETOOLONG;
	memcpy(buf, QPU_QASMDIR, len + 1);
	return (int)len;
}

int asm_push_from_dirs(struct qpu_asm *as, const char *name, unsigned int col)
{
	char dir[PATH_MAX], path[2 * PATH_MAX + 2];
	int err = -ENOENT;
	size_t i;

	if (name[0] == '/')
		return -ENOENT;
	for (i = 0; err == -ENOENT && i < as->ninclude_dirs; i++) {
		snprintf(path, sizeof(path), "%s/%s", as->include_dirs[i], name);
		err = asm_push_file(as, path, col);
	}
	for (i = 0; err == -ENOENT && qpu_asm_default_include_dir(i, dir, sizeof(dir)) >= 0; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		err = asm_push_file(as, path, col);
	}
	return err;
}
