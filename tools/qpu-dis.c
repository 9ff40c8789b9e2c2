// SPDX-License-Identifier: MIT
/*
 * qpu-dis: disassemble VideoCore IV QPU code, one instruction per line.
 * Input is raw little-endian 64-bit words or GPU_FFT-style hex text
 * ("0xLOW, 0xHIGH," with // or # comments), told apart by content unless
 * --hex or --binary says. Reading and parsing live here; the decoding is
 * the core's qpu_disasm().
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qpu.h"
#include "qpu_disasm.h"

enum input_format { FMT_AUTO, FMT_HEX, FMT_BINARY };

struct config {
	enum input_format format;
	bool addresses;
	bool raw;
	const char *path;	/* NULL or "-": standard input */
};

struct words {
	uint64_t *v;
	size_t n;
	size_t cap;
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: qpu-dis [OPTION]... [FILE]\n"
		"Disassemble VideoCore IV QPU code from FILE (default: standard input).\n\n"
		"  -a, --addresses  prefix each line with its byte offset\n"
		"  -b, --binary     input is little-endian 64-bit words\n"
		"  -x, --hex        input is hex text: 0xLOW, 0xHIGH, per instruction\n"
		"  -r, --raw        show each instruction word in hex\n"
		"  -h, --help       this text\n"
		"  -V, --version    the libqpu version\n\n"
		"Without -b or -x, text made of hex numbers is read as hex, anything\n"
		"else as binary.\n");
}

static void __attribute__((noreturn, format(printf, 2, 3)))
die(const char *path, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "qpu-dis: ");
	if (path)
		fprintf(stderr, "%s: ", path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_FAILURE);
}

static void parse_config(int argc, char **argv, struct config *cfg)
{
	static const struct option longopts[] = {
		{ "addresses", no_argument, NULL, 'a' },
		{ "binary", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ "hex", no_argument, NULL, 'x' },
		{ "raw", no_argument, NULL, 'r' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	memset(cfg, 0, sizeof(*cfg));
	while ((opt = getopt_long(argc, argv, "abhrVx", longopts, NULL)) != -1) {
		switch (opt) {
		case 'a':
			cfg->addresses = true;
			break;
		case 'b':
			cfg->format = FMT_BINARY;
			break;
		case 'h':
			usage(stdout);
			exit(EXIT_SUCCESS);
		case 'r':
			cfg->raw = true;
			break;
		case 'V':
			printf("qpu-dis (libqpu) %s\n", qpu_version());
			exit(EXIT_SUCCESS);
		case 'x':
			cfg->format = FMT_HEX;
			break;
		default:
			usage(stderr);
			exit(EXIT_FAILURE);
		}
	}
	if (argc - optind > 1)
		die(NULL, "one input file at most (got %d)", argc - optind);
	if (optind < argc)
		cfg->path = argv[optind];
}

/* The whole input in memory, NUL-terminated for the hex parser. */
static char *read_all(const char *path, const char *name, size_t *len)
{
	bool is_stdin = !path || !strcmp(path, "-");
	FILE *f = is_stdin ? stdin : fopen(path, "rb");
	size_t cap = 65536, n = 0;
	char *buf;

	if (!f)
		die(name, "%s", strerror(errno));
	buf = malloc(cap);
	if (!buf)
		die(name, "out of memory");
	for (;;) {
		size_t got = fread(buf + n, 1, cap - n - 1, f);

		n += got;
		if (n + 1 < cap) {
			if (ferror(f))
				die(name, "%s", strerror(errno));
			if (feof(f))
				break;
			continue;
		}
		cap *= 2;
		buf = realloc(buf, cap);
		if (!buf)
			die(name, "out of memory");
	}
	if (!is_stdin)
		fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static void push(struct words *w, uint64_t v, const char *path)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 1024;
		w->v = realloc(w->v, w->cap * sizeof(*w->v));
		if (!w->v)
			die(path, "out of memory");
	}
	w->v[w->n++] = v;
}

/* Hex text if every byte is printable or white space and a "0x" occurs. */
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
static void parse_hex(const char *buf, size_t len, const char *path,
		      struct words *out)
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
				v = v << 4 | hex_digit(*p);
			if (!digits || digits > 8)
				die(path, "line %lu: %s hex number", line,
				    digits ? "more than 32 bits in a" : "empty");
			if (p < end && *p > ' ' && *p <= '~' && *p != ',' &&
			    *p != '#' && *p != '/')
				die(path, "line %lu: unexpected '%c' after a number",
				    line, *p);
			if (have_lo) {
				push(out, v << 32 | lo, path);
			} else {
				lo = (uint32_t)v;
				lo_line = line;
			}
			have_lo = !have_lo;
		} else if (*p > ' ' && *p <= '~') {
			die(path, "line %lu: unexpected '%c', expected 0x followed by hex digits",
			    line, *p);
		} else {
			die(path, "line %lu: unexpected byte 0x%02x", line,
			    (unsigned char)*p);
		}
	}
	if (have_lo)
		die(path, "line %lu: odd number of 32-bit words (no high word for 0x%08" PRIx32 ")",
		    lo_line, lo);
}

static void parse_binary(const unsigned char *buf, size_t len, const char *path,
			 struct words *out)
{
	if (len % 8)
		die(path, "size %zu is not a multiple of 8 bytes", len);
	for (size_t i = 0; i < len; i += 8) {
		uint64_t v = 0;

		for (int b = 7; b >= 0; b--)
			v = v << 8 | buf[i + b];
		push(out, v, path);
	}
}

int main(int argc, char **argv)
{
	struct words words = { 0 };
	struct config cfg;
	char text[QPU_DISASM_BUF_SIZE];
	const char *name;
	size_t len;
	char *buf;

	parse_config(argc, argv, &cfg);
	name = cfg.path && strcmp(cfg.path, "-") ? cfg.path : "<stdin>";
	buf = read_all(cfg.path, name, &len);
	if (cfg.format == FMT_HEX ||
	    (cfg.format == FMT_AUTO && looks_like_hex(buf, len)))
		parse_hex(buf, len, name, &words);
	else
		parse_binary((const unsigned char *)buf, len, name, &words);
	free(buf);

	for (size_t i = 0; i < words.n; i++) {
		uint32_t addr = (uint32_t)(i * 8);

		qpu_disasm(words.v[i], addr,
			   cfg.addresses ? QPU_DISASM_TARGET : 0, text, sizeof(text));
		if (cfg.addresses)
			printf("%08" PRIx32 ": ", addr);
		if (cfg.raw)
			printf("%016" PRIx64 "  ", words.v[i]);
		printf("%s\n", text);
	}
	free(words.v);
	if (fflush(stdout) || ferror(stdout))
		die(NULL, "write error: %s", strerror(errno));
	return EXIT_SUCCESS;
}
