// SPDX-License-Identifier: MIT
/* open_dev() of open_dev.h: one device rule and one error for every tool. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qpu.h>

#include "die.h"
#include "open_dev.h"

const char *default_dev_path(void)
{
	const char *env = getenv("QPU_DEVICE");

	return env && *env ? env : "/dev/qpu";
}

struct qpu_dev *open_dev(const char *path)
{
	struct qpu_dev *dev = qpu_dev_open(path);
	const char *hint;
	int err = errno;

	if (dev)
		return dev;
	hint = qpu_dev_open_hint(err);
	fprintf(stderr, "%s: %s: %s\n", tool_name, path ? path : default_dev_path(),
		strerror(err));
	if (hint)
		fprintf(stderr, "%s\n", hint);
	exit(EXIT_FAILURE);
}
