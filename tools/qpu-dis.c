// SPDX-License-Identifier: MIT
/*
 * qpu-dis: disassemble QPU code, one instruction per line: VideoCore IV by
 * default, V3D 4.2 or 7.1 (Mesa's syntax) with -m v3d42 or -m v3d71.
 * Input is raw little-endian 64-bit words or GPU_FFT-style hex text
 * ("0xLOW, 0xHIGH," with // or # comments), told apart by content unless
 * --hex or --binary says. The tools' wordfile.c reads the input; the
 * decoding is libqpu's qpu_dis_word().
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

#define TOOL_NAME "qpu-dis"

const char tool_name[] = TOOL_NAME;

#include <qpu.h>
#include <qpu_dis.h>

#include "cli.h"
#include "die.h"
#include "wordfile.h"

struct config {
	enum qpu_wordfile_format format;
	bool addresses;
	bool raw;
	int gen;		/* QPU_GEN_* */
	const char *path;	/* NULL or "-": standard input */
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: qpu-dis [OPTION]... [FILE]\n"
		"Disassemble QPU code from FILE (default: standard input).\n\n"
		"  -a, --addresses  prefix each line with its byte offset\n"
		"  -b, --binary     input is little-endian 64-bit words\n"
		"  -m, --machine=GEN  vc4 (VideoCore IV, the default), v3d42 (Pi 4)\n"
		"                   or v3d71 (Pi 5; V3D in Mesa's syntax)\n"
		"  -x, --hex        input is hex text: 0xLOW, 0xHIGH, per instruction\n"
		"  -r, --raw        show each instruction word in hex\n"
		"  -h, --help       this text\n"
		"  -V, --version    the package version\n\n"
		"Without -b or -x, text made of hex numbers is read as hex, anything\n"
		"else as binary.\n"
		"Options may follow FILE; they follow qpu-tools(7).\n");
}

static void parse_config(int argc, char **argv, struct config *cfg)
{
	static const struct option longopts[] = {
		{ "addresses", no_argument, NULL, 'a' },
		{ "binary", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ "hex", no_argument, NULL, 'x' },
		{ "machine", required_argument, NULL, 'm' },
		{ "raw", no_argument, NULL, 'r' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	memset(cfg, 0, sizeof(*cfg));
	cfg->gen = QPU_GEN_VC4;
	while ((opt = getopt_long(argc, argv, "abhm:rVx", longopts, NULL)) != -1) {
		switch (opt) {
		case 'a':
			cfg->addresses = true;
			break;
		case 'b':
			cfg->format = QPU_WORDFILE_BINARY;
			break;
		case 'h':
			usage(stdout);
			exit(EXIT_SUCCESS);
		case 'm':
			cfg->gen = qpu_gen_from_name(optarg);
			if (cfg->gen < 0)
				die("unknown machine '%s' (vc4, v3d42 or v3d71)",
				    optarg);
			break;
		case 'r':
			cfg->raw = true;
			break;
		case 'V':
			print_version();
			exit(EXIT_SUCCESS);
		case 'x':
			cfg->format = QPU_WORDFILE_HEX;
			break;
		default:
			try_help(EXIT_FAILURE);
		}
	}
	if (argc - optind > 1)
		usage_error(EXIT_FAILURE, "one input file at most (got %d)", argc - optind);
	if (optind < argc)
		cfg->path = argv[optind];
}

int main(int argc, char **argv)
{
	char text[QPU_DIS_BUF_SIZE], err[256];
	struct config cfg;
	uint64_t *words;
	const char *name;
	size_t n;

	parse_config(argc, argv, &cfg);
	name = cfg.path && strcmp(cfg.path, "-") ? cfg.path : "<stdin>";
	if (qpu_wordfile_read(cfg.path, cfg.format, &words, &n, err, sizeof(err)))
		die("%s: %s", name, err);

	for (size_t i = 0; i < n; i++) {
		uint32_t addr = (uint32_t)(i * 8);

		qpu_dis_word_gen(cfg.gen, words[i], addr,
				 cfg.addresses ? QPU_DIS_TARGET : 0, text,
				 sizeof(text));
		if (cfg.addresses)
			printf("%08" PRIx32 ": ", addr);
		if (cfg.raw)
			printf("%016" PRIx64 "  ", words[i]);
		printf("%s\n", text);
	}
	free(words);
	if (fflush(stdout) || ferror(stdout))
		die("write error: %s", strerror(errno));
	return EXIT_SUCCESS;
}
