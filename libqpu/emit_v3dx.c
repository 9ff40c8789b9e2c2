// SPDX-License-Identifier: MIT
/*
 * The V3D C emitter (qpu_emit_v3d.h): the calls become the lines of one
 * source, one line per call, which qpu_asm assembles in V3D mode when the
 * program is finished; so the emitter shares the assembler's instruction
 * builder and labels, and a diagnostic's line number is the call's number.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qpu_asm.h"
#include "qpu_emit_v3d.h"

struct qpu_v3d_emit {
	int gen;
	char *src;		/* the lines so far */
	size_t len, cap;
	int err;		/* the first failure of an emit call */
	struct qpu_asm *as;	/* of the last finish, owns its words */
};

struct qpu_v3d_emit *qpu_v3d_emit_new(int gen)
{
	struct qpu_v3d_emit *e;

	if (gen != QPU_GEN_V3D42 && gen != QPU_GEN_V3D71) {
		errno = EINVAL;
		return NULL;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->gen = gen;
	return e;
}

void qpu_v3d_emit_free(struct qpu_v3d_emit *e)
{
	if (!e)
		return;
	qpu_asm_free(e->as);
	free(e->src);
	free(e);
}

/* Append @text and a newline; @text must hold no newline. */
static int add_line(struct qpu_v3d_emit *e, const char *text)
{
	size_t n = strlen(text);
	char *p;

	if (e->err)
		return e->err;
	if (strchr(text, '\n'))
		return -EINVAL;
	if (e->len + n + 2 > e->cap) {
		size_t cap = (e->cap ? e->cap * 2 : 256) + n + 2;

		p = realloc(e->src, cap);
		if (!p) {
			e->err = -ENOMEM;
			return e->err;
		}
		e->src = p;
		e->cap = cap;
	}
	memcpy(e->src + e->len, text, n);
	e->len += n;
	e->src[e->len++] = '\n';
	e->src[e->len] = '\0';
	return 0;
}

int qpu_v3d_emit(struct qpu_v3d_emit *e, const char *fmt, ...)
{
	char buf[512], *text = buf;
	va_list ap;
	int n, ret;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= sizeof(buf)) {
		text = malloc(n + 1);
		if (!text)
			return -ENOMEM;
		va_start(ap, fmt);
		vsnprintf(text, n + 1, fmt, ap);
		va_end(ap);
	}
	ret = add_line(e, text);
	if (text != buf)
		free(text);
	return ret;
}

int qpu_v3d_emit_label(struct qpu_v3d_emit *e, const char *name)
{
	char buf[128];

	if (!name || !*name || strlen(name) + 2 > sizeof(buf) ||
	    strpbrk(name, " \t:;#\n"))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s:", name);
	return add_line(e, buf);
}

int qpu_v3d_emit_word(struct qpu_v3d_emit *e, uint64_t word)
{
	char buf[32];

	snprintf(buf, sizeof(buf), ".long 0x%016llx", (unsigned long long)word);
	return add_line(e, buf);
}

int qpu_v3d_emit_finish(struct qpu_v3d_emit *e, const uint64_t **words,
			size_t *n, char *msg, size_t msg_size)
{
	const struct qpu_asm_diag *diags;
	int err;

	if (msg && msg_size)
		msg[0] = '\0';
	if (e->err)
		return e->err;
	qpu_asm_free(e->as);
	e->as = qpu_asm_new();
	if (!e->as)
		return -ENOMEM;
	err = qpu_asm_set_gen(e->as, e->gen);
	if (!err)
		err = qpu_asm_string(e->as, "emit", e->src ? e->src : "");
	if (err) {
		size_t i, nd = qpu_asm_diags(e->as, &diags);

		for (i = 0; i < nd && diags[i].warning; i++)
			;
		if (msg && msg_size && i < nd)
			snprintf(msg, msg_size, "call %u: %s", diags[i].line,
				 diags[i].msg);
		return err == -ENOMEM ? err : -EINVAL;
	}
	*n = qpu_asm_words(e->as, words);
	return 0;
}
