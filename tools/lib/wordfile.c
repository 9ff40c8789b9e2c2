// SPDX-License-Identifier: MIT
/*
 * Reading QPU code files for the tools (wordfile.h): the whole input is
 * loaded, then parsed as GPU_FFT-style hex text (pairs of 32-bit numbers,
 * low word first) or as raw little-endian words. Text counts as hex when
 * it is printable and contains "0x", so a binary file is never misread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wordfile.h"

struct word_vec {
	uint64_t *v;
	size_t n;
	size_t cap;
};

static int __attribute__((format(printf, 3, 4)))
fail(char *err, size_t err_size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, err_size, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* The whole input in memory, NUL-terminated for the hex parser. */
static int load(const char *path, char **out, size_t *len)
{
	bool is_stdin = !path || !strcmp(path, "-");
	FILE *f = is_stdin ? stdin : fopen(path, "rb");
	size_t cap = 65536, n = 0;
	char *buf, *grown;
	int ret = 0;

	if (!f)
		return errno ? -errno : -EIO;
	buf = malloc(cap);
	if (!buf) {
		ret = -ENOMEM;
		goto out_close;
	}
	for (;;) {
		n += fread(buf + n, 1, cap - n - 1, f);
		if (n + 1 < cap) {
			if (ferror(f)) {
				ret = errno ? -errno : -EIO;
				break;
			}
			if (feof(f))
				break;
			continue;
		}
		grown = realloc(buf, cap * 2);
		if (!grown) {
			ret = -ENOMEM;
			break;
		}
		buf = grown;
		cap *= 2;
	}
	if (ret) {
		free(buf);
		goto out_close;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
out_close:
	if (!is_stdin)
		fclose(f);
	return ret;
}

static int push(struct word_vec *w, uint64_t v)
{
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 1024;
		uint64_t *grown = realloc(w->v, cap * sizeof(*w->v));

		if (!grown)
			return -ENOMEM;
		w->v = grown;
		w->cap = cap;
	}
	w->v[w->n++] = v;
	return 0;
}

static bool looks_like_hex(const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = buf[i];

		if (c != '\n' && c != '\r' && c != '\t' && (c < ' ' || c > '~'))
			return false;
	}
	return strstr(buf, "0x") || strstr(buf, "0X");
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Numbers "0x..." of up to 32 bits, separated by commas and white space. */
static int parse_hex(const char *buf, size_t len, struct word_vec *out,
		     char *err, size_t err_size)
{
	const char *p = buf, *end = buf + len;
	unsigned long line = 1, lo_line = 0;
	bool have_lo = false;
	uint32_t lo = 0;

	while (p < end) {
		uint64_t v = 0;
		int digits = 0;

		if (*p == '\n') {
			line++;
			p++;
		} else if (*p == ' ' || *p == '\t' || *p == '\r' || *p == ',') {
			p++;
		} else if (*p == '#' || (p[0] == '/' && p[1] == '/')) {
			while (p < end && *p != '\n')
				p++;
		} else if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
			for (p += 2; p < end && hex_digit(*p) >= 0; p++, digits++)
				v = v << 4 | (uint64_t)hex_digit(*p);
			if (!digits || digits > 8)
				return fail(err, err_size, "line %lu: %s hex number", line,
					    digits ? "more than 32 bits in a" : "empty");
			if (p < end && *p > ' ' && *p <= '~' && *p != ',' &&
			    *p != '#' && *p != '/')
				return fail(err, err_size,
					    "line %lu: unexpected '%c' after a number", line, *p);
			if (have_lo) {
				if (push(out, v << 32 | lo))
					return -ENOMEM;
			} else {
				lo = (uint32_t)v;
				lo_line = line;
			}
			have_lo = !have_lo;
		} else if (*p > ' ' && *p <= '~') {
			return fail(err, err_size,
				    "line %lu: unexpected '%c', expected 0x followed by hex digits",
				    line, *p);
		} else {
			return fail(err, err_size, "line %lu: unexpected byte 0x%02x", line,
				    (unsigned char)*p);
		}
	}
	if (have_lo)
		return fail(err, err_size,
			    "line %lu: odd number of 32-bit words (no high word for 0x%08" PRIx32 ")",
			    lo_line, lo);
	return 0;
}

static int parse_binary(const unsigned char *buf, size_t len, struct word_vec *out,
			char *err, size_t err_size)
{
	if (len % 8)
		return fail(err, err_size, "size %zu is not a multiple of 8 bytes", len);
	for (size_t i = 0; i < len; i += 8) {
		uint64_t v = 0;

		for (int b = 7; b >= 0; b--)
			v = v << 8 | buf[i + b];
		if (push(out, v))
			return -ENOMEM;
	}
	return 0;
}

int qpu_wordfile_read(const char *path, enum qpu_wordfile_format format,
		      uint64_t **words, size_t *n, char *err, size_t err_size)
{
	struct word_vec out = { 0 };
	char *buf = NULL;
	size_t len = 0;
	int ret;

	ret = load(path, &buf, &len);
	if (ret) {
		snprintf(err, err_size, "%s", strerror(-ret));
		return ret;
	}
	if (format == QPU_WORDFILE_HEX ||
	    (format == QPU_WORDFILE_AUTO && looks_like_hex(buf, len)))
		ret = parse_hex(buf, len, &out, err, err_size);
	else
		ret = parse_binary((const unsigned char *)buf, len, &out, err, err_size);
	free(buf);
	if (ret == -ENOMEM)
		snprintf(err, err_size, "%s", strerror(ENOMEM));
	if (ret) {
		free(out.v);
		return ret;
	}
	*words = out.v;
	*n = out.n;
	return 0;
}
