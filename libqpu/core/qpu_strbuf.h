/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * Text into caller memory without libc, for the core's reports (the V3D
 * emulator's deadlock description; VideoCore IV's emulator and
 * disassembler have their own older copies that can move here). Like
 * snprintf: the text is cut to the buffer, the length counts all of it.
 */
#ifndef QPU_STRBUF_H
#define QPU_STRBUF_H

#include "qpu_types.h"

struct qpu_strbuf {
	char *buf;
	size_t len;	/* bytes of @buf, NUL included */
	size_t pos;	/* the length of the whole text so far */
};

static inline void qpu_strbuf_c(struct qpu_strbuf *b, char c)
{
	if (b->pos + 1 < b->len)
		b->buf[b->pos] = c;
	b->pos++;
}

static inline void qpu_strbuf_s(struct qpu_strbuf *b, const char *s)
{
	while (*s)
		qpu_strbuf_c(b, *s++);
}

/* @v in decimal, or in hex with 0x when @hex. */
static inline void qpu_strbuf_u(struct qpu_strbuf *b, u32 v, bool hex)
{
	char d[11];
	int n = 0;

	if (hex)
		qpu_strbuf_s(b, "0x");
	do {
		d[n++] = "0123456789abcdef"[hex ? v & 15 : v % 10];
		v = hex ? v >> 4 : v / 10;
	} while (v);
	while (n)
		qpu_strbuf_c(b, d[--n]);
}

/* NUL-terminate (when there is room at all); returns the whole length. */
static inline size_t qpu_strbuf_end(struct qpu_strbuf *b)
{
	if (b->len)
		b->buf[b->pos < b->len ? b->pos : b->len - 1] = '\0';
	return b->pos;
}

#endif /* QPU_STRBUF_H */
