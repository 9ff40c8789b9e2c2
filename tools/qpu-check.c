// SPDX-License-Identifier: MIT
/*
 * qpu-check: run libqpu's hazard checker over assembled QPU code (raw
 * little-endian words or GPU_FFT-style hex, read like qpu-dis reads
 * them) and print each finding with the word it concerns: VideoCore IV's
 * rules by default, V3D 4.2's or 7.1's with -m (qpu_hazard_v3d.h). Exit 0 when the
 * code is clean, 1 on findings or any failure.
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

#define TOOL_NAME "qpu-check"

const char tool_name[] = TOOL_NAME;

#include <qpu.h>
#include <qpu_dis.h>
#include <qpu_hazard.h>
#include <qpu_hazard_v3d.h>

#include "cli.h"
#include "die.h"
#include "hazard-rules.h"
#include "wordfile.h"

struct config {
	enum qpu_wordfile_format format;
	unsigned int flags;
	uint64_t rules;
	bool quiet;
	int gen;		/* QPU_GEN_* */
	const char *path;	/* NULL or "-": standard input */
};

struct report_ctx {
	const char *name;
	const uint64_t *words;
	bool quiet;
	int gen;
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: qpu-check [OPTION]... [FILE]\n"
		"Check QPU code from FILE (default: standard input) for hazards:\n"
		"sequences the QPU does not run as written.\n\n"
		"  -b, --binary      input is little-endian 64-bit words\n"
		"  -m, --machine=GEN vc4 (VideoCore IV, the default), v3d42 (Pi 4) or\n"
		"                    v3d71 (Pi 5); each has its own rules\n"
		"  -x, --hex         input is hex text: 0xLOW, 0xHIGH, per instruction\n"
		"  -p, --partial     the code is part of a program: skip the rules\n"
		"                    about its start and end\n"
		"  -t, --threads=N   V3D: the program runs N threads per QPU (1, 2\n"
		"                    or 4; unknown by default), which share the TMU\n"
		"                    FIFO; 1 skips thrsw-too-close\n"
		"  -Wno-RULE         do not apply RULE\n"
		"  -WRULE            apply only the rules named with -W (repeatable)\n"
		"  -q, --quiet       print findings without the disassembly\n"
		"  -l, --list-rules  list the rules and exit\n"
		"  -h, --help        this text\n"
		"  -V, --version     the package version\n\n"
		"Exit status: 0 clean, 1 findings or an error.\n"
		"Options may follow FILE; they follow qpu-tools(7).\n");
}

static unsigned int rule_or_die(const struct qpu_rule_set *set, const char *name)
{
	int rule = set->find(name);

	if (rule < 0)
		die("unknown rule '%s' (see --list-rules)", name);
	return (unsigned int)rule;
}

static void list_rules(const struct qpu_rule_set *set)
{
	for (unsigned int r = 0; r < set->count; r++)
		printf("%-22s %s\n", set->name(r), set->summary(r));
}

static void parse_config(int argc, char **argv, struct config *cfg)
{
	static const struct option longopts[] = {
		{ "binary", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ "hex", no_argument, NULL, 'x' },
		{ "list-rules", no_argument, NULL, 'l' },
		{ "machine", required_argument, NULL, 'm' },
		{ "partial", no_argument, NULL, 'p' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "threads", required_argument, NULL, 't' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const struct qpu_rule_set *set;
	uint64_t only = 0, off = 0;
	bool list = false;
	int i, j, opt, nw = 0, threads = 0;	/* 0: unknown */
	char **wargs;

	memset(cfg, 0, sizeof(*cfg));
	cfg->gen = QPU_GEN_VC4;
	/*
	 * -Wno-RULE and -WRULE are not getopt-shaped: take them out first,
	 * and name their rules once -m has said whose they are.
	 */
	wargs = calloc(argc + 1, sizeof(*wargs));
	if (!wargs)
		die("%s", strerror(errno));
	for (i = j = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strncmp(argv[i], "-W", 2) && argv[i][2])
			wargs[nw++] = argv[i];
		else
			argv[j++] = argv[i];
	}
	while (i < argc)
		argv[j++] = argv[i++];
	argc = j;
	argv[argc] = NULL;

	while ((opt = getopt_long(argc, argv, "bhlm:pqt:Vx", longopts, NULL)) != -1) {
		switch (opt) {
		case 'b':
			cfg->format = QPU_WORDFILE_BINARY;
			break;
		case 'h':
			usage(stdout);
			exit(EXIT_SUCCESS);
		case 'l':
			list = true;
			break;
		case 'm':
			cfg->gen = qpu_gen_from_name(optarg);
			if (cfg->gen < 0)
				die("unknown machine '%s' (vc4, v3d42 or v3d71)",
				    optarg);
			break;
		case 'p':
			cfg->flags |= QPU_HAZARD_PARTIAL;
			break;
		case 'q':
			cfg->quiet = true;
			break;
		case 't':
			if (strcmp(optarg, "1") && strcmp(optarg, "2") &&
			    strcmp(optarg, "4"))
				die("threads '%s': 1, 2 or 4", optarg);
			threads = atoi(optarg);
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
	if (threads && cfg->gen == QPU_GEN_VC4)
		die("--threads is for V3D code (-m v3d42 or v3d71)");
	if (threads)
		cfg->flags |= threads == 1 ? QPU_HAZARD_V3D_THREADS_1 :
			      threads == 2 ? QPU_HAZARD_V3D_THREADS_2 :
					     QPU_HAZARD_V3D_THREADS_4;
	set = qpu_rule_set_of(cfg->gen);
	if (list) {
		list_rules(set);
		exit(EXIT_SUCCESS);
	}
	for (i = 0; i < nw; i++) {
		if (!strncmp(wargs[i], "-Wno-", 5))
			off |= QPU_HAZARD_RULE_BIT(rule_or_die(set, wargs[i] + 5));
		else
			only |= QPU_HAZARD_RULE_BIT(rule_or_die(set, wargs[i] + 2));
	}
	free(wargs);
	cfg->rules = (only ? only : set->all) & ~off;
	if (argc - optind > 1)
		usage_error(EXIT_FAILURE, "one input file at most (got %d)", argc - optind);
	if (optind < argc)
		cfg->path = argv[optind];
}

static int print_finding(const struct qpu_hazard *h, void *ctx)
{
	const struct report_ctx *r = ctx;
	char text[QPU_DIS_BUF_SIZE];

	printf("%s: word %zu (0x%04zx): warning: %s [%s]\n", r->name, h->word,
	       h->word * 8, h->message, h->name);
	if (!r->quiet) {
		qpu_dis_word_gen(r->gen, r->words[h->word], (uint32_t)(h->word * 8),
				 QPU_DIS_TARGET, text, sizeof(text));
		printf("    %s\n", text);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct report_ctx rctx;
	struct config cfg;
	uint64_t *words;
	char err[256];
	size_t n;
	int found;

	parse_config(argc, argv, &cfg);
	rctx.name = cfg.path && strcmp(cfg.path, "-") ? cfg.path : "<stdin>";
	rctx.quiet = cfg.quiet;
	rctx.gen = cfg.gen;
	if (qpu_wordfile_read(cfg.path, cfg.format, &words, &n, err, sizeof(err)))
		die("%s: %s", rctx.name, err);
	if (!n)
		die("%s: no instruction words", rctx.name);
	rctx.words = words;
	found = qpu_rule_set_check(cfg.gen, words, n, cfg.rules, cfg.flags,
				   print_finding, &rctx);
	free(words);
	if (found < 0)
		die("%s: %s", rctx.name, strerror(-found));
	if (fflush(stdout) || ferror(stdout))
		die("write error: %s", strerror(errno));
	if (found)
		fprintf(stderr, "qpu-check: %s: %d finding%s in %zu words\n", rctx.name,
			found, found == 1 ? "" : "s", n);
	return found ? EXIT_FAILURE : EXIT_SUCCESS;
}
