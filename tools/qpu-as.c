// SPDX-License-Identifier: MIT
/*
 * qpu-as: assemble QPU source with libqpu's assembler: vc4asm syntax for
 * VideoCore IV (the default), Mesa's disassembly syntax for V3D 4.2 and
 * 7.1 (-m v3d42, -m v3d71), then the hazard checker of that generation
 * (qpu-check's rules, reported as warnings at their source). Writes
 * raw little-endian words, GPU_FFT-style hex ("0xLOW, 0xHIGH," per line) or
 * a C array. The output goes to a temporary file renamed over OUT only when
 * everything succeeded, so a failed run never leaves a partial file.
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
#include <unistd.h>
#include <sys/stat.h>

#define TOOL_NAME "qpu-as"

const char tool_name[] = TOOL_NAME;

#include <qpu.h>
#include <qpu_asm.h>
#include <qpu_dis.h>
#include <qpu_hazard.h>

#include "cli.h"
#include "die.h"
#include "hazard-rules.h"

enum output_format { OUT_BIN, OUT_HEX, OUT_C };

struct config {
	const char *include_dirs[QPU_ASM_MAX_INCLUDE_DIRS];
	size_t ninclude_dirs;
	const char *output;	/* NULL or "-": standard output */
	enum output_format format;
	const char *array_name;
	bool werror;
	uint64_t hazard_rules;	/* hazard checks to run, of gen's rule set */
	const char *no_rules[64];	/* -Wno-RULE, named before -m is known */
	unsigned int nno_rules;
	int gen;		/* QPU_GEN_* */
	const char *input;
};

static void usage(FILE *fp)
{
	fprintf(fp,
		"Usage: %s [OPTIONS] FILE\n"
		"Assemble QPU source: VideoCore IV (vc4asm syntax) or V3D (Mesa's).\n\n"
		"  -I, --include=DIR   search DIR for .include files (repeatable; then\n"
		"                      $QPU_INCLUDE's, then the installed qasm directory)\n"
		"  -m, --machine=GEN   vc4 (the default), v3d42 (Pi 4) or v3d71 (Pi 5)\n"
		"  -o, --output=OUT    write to OUT instead of standard output\n"
		"  -f, --format=FORMAT bin (raw little-endian words, the default; never\n"
		"                      to a terminal), hex (GPU_FFT layout) or c (a C array)\n"
		"  -n, --name=NAME     name of the C array (default: qpu_code)\n"
		"  -W                  show warnings (the default)\n"
		"  -Werror             treat warnings as errors\n"
		"  -Wno-RULE           skip the hazard check RULE (qpu-check [-m GEN] -l\n"
		"                      lists them)\n"
		"  -h, --help          show this help\n"
		"  -V, --version       the package version\n"
		"Options may follow FILE; they follow qpu-tools(7).\n", TOOL_NAME);
}

static uint64_t hazard_rule_bit(int gen, const char *name)
{
	int rule = qpu_rule_set_of(gen)->find(name);

	if (rule < 0)
		die("unknown warning '-Wno-%s' (qpu-check -m %s -l lists the rules)",
		    name, qpu_gen_name(gen));
	return QPU_HAZARD_RULE_BIT(rule);
}

static void parse_config(int argc, char **argv, struct config *cfg)
{
	static const struct option long_opts[] = {
		{ "include", required_argument, NULL, 'I' },
		{ "machine", required_argument, NULL, 'm' },
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },
		{ "name", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int i, j, opt;

	/* -W, -Werror and -Wno-RULE are not getopt-shaped: take them out first. */
	cfg->gen = QPU_GEN_VC4;
	for (i = j = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-Werror"))
			cfg->werror = true;
		else if (!strncmp(argv[i], "-Wno-", 5) &&
			 cfg->nno_rules < sizeof(cfg->no_rules) / sizeof(cfg->no_rules[0]))
			cfg->no_rules[cfg->nno_rules++] = argv[i] + 5;
		else if (!strncmp(argv[i], "-Wno-", 5))
			die("too many -Wno- options");
		else if (strcmp(argv[i], "-W"))
			argv[j++] = argv[i];
	}
	while (i < argc)
		argv[j++] = argv[i++];
	argc = j;
	argv[argc] = NULL;

	while ((opt = getopt_long(argc, argv, "I:m:o:f:n:hV", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'm':
			cfg->gen = qpu_gen_from_name(optarg);
			if (cfg->gen < 0)
				die("unknown machine '%s' (vc4, v3d42 or v3d71)",
				    optarg);
			break;
		case 'I':
			if (cfg->ninclude_dirs == QPU_ASM_MAX_INCLUDE_DIRS)
				die("too many -I directories");
			cfg->include_dirs[cfg->ninclude_dirs++] = optarg;
			break;
		case 'o':
			cfg->output = optarg;
			break;
		case 'f':
			if (!strcmp(optarg, "bin"))
				cfg->format = OUT_BIN;
			else if (!strcmp(optarg, "hex"))
				cfg->format = OUT_HEX;
			else if (!strcmp(optarg, "c"))
				cfg->format = OUT_C;
			else
				die("unknown output format '%s' (bin, hex or c)", optarg);
			break;
		case 'n':
			cfg->array_name = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			print_version();
			exit(0);
		default:
			try_help(1);
		}
	}
	if (optind == argc)
		usage_error(1, "no input file");
	if (optind != argc - 1)
		usage_error(1, "one input file at most (got %d)", argc - optind);
	cfg->input = argv[optind];
	/* the rules, known now that the generation is */
	cfg->hazard_rules = qpu_rule_set_of(cfg->gen)->all;
	for (i = 0; i < (int)cfg->nno_rules; i++)
		cfg->hazard_rules &= ~hazard_rule_bit(cfg->gen, cfg->no_rules[i]);
}

static int write_words(FILE *fp, const struct config *cfg, const uint64_t *words,
		       size_t n)
{
	size_t i;

	switch (cfg->format) {
	case OUT_BIN:
		for (i = 0; i < n; i++) {
			unsigned char b[8];
			int k;

			for (k = 0; k < 8; k++)
				b[k] = (unsigned char)(words[i] >> (8 * k));
			if (fwrite(b, 1, 8, fp) != 8)
				return -1;
		}
		break;
	case OUT_HEX:
		for (i = 0; i < n; i++)
			fprintf(fp, "0x%08" PRIx32 ", 0x%08" PRIx32 ",\n",
				(uint32_t)words[i], (uint32_t)(words[i] >> 32));
		break;
	case OUT_C:
		/* sizeof() of the array is the bytes to copy into a code buffer. */
		fprintf(fp, "/* Generated by qpu-as from %s: %zu instructions, two\n"
			" * 32-bit words each; sizeof(%s) bytes to copy to a code buffer. */\n"
			"#include <stdint.h>\n\n"
			"static const uint32_t %s[] = {\n", cfg->input, n,
			cfg->array_name ? cfg->array_name : "qpu_code",
			cfg->array_name ? cfg->array_name : "qpu_code");
		for (i = 0; i < n; i++)
			fprintf(fp, "\t0x%08" PRIx32 ", 0x%08" PRIx32 ",\n",
				(uint32_t)words[i], (uint32_t)(words[i] >> 32));
		fprintf(fp, "};\n");
		break;
	}
	return ferror(fp) ? -1 : 0;
}

struct hazard_ctx {
	const struct qpu_asm_loc *locs;
	size_t nlocs;
	bool werror;
};

static void print_expansion(const struct qpu_asm_loc *loc)
{
	for (loc = loc->expanded_from; loc; loc = loc->expanded_from)
		fprintf(stderr, "%s:%u:%u: note: in expansion of macro '%s'\n",
			loc->file, loc->line, loc->col, loc->macro);
}

/* A hazard finding as a diagnostic at the source of the word. */
static int print_hazard(const struct qpu_hazard *h, void *data)
{
	const struct hazard_ctx *ctx = data;
	const struct qpu_asm_loc *loc;

	if (h->word >= ctx->nlocs) {
		fprintf(stderr, "%s: word %zu: %s: %s [%s]\n", TOOL_NAME, h->word,
			ctx->werror ? "error" : "warning", h->message, h->name);
		return 0;
	}
	loc = &ctx->locs[h->word];
	fprintf(stderr, "%s:%u:%u: %s: %s [%s]\n", loc->file, loc->line, loc->col,
		ctx->werror ? "error" : "warning", h->message, h->name);
	print_expansion(loc);
	if (h->ref < ctx->nlocs) {
		loc = &ctx->locs[h->ref];
		fprintf(stderr, "%s:%u:%u: note: word %zu is here\n", loc->file,
			loc->line, loc->col, h->ref);
		print_expansion(loc);
	}
	return 0;
}

/* Write through OUT.XXXXXX and rename it over OUT. */
static void write_output(const struct config *cfg, const uint64_t *words, size_t n)
{
	struct stat st;
	size_t len;
	char *tmp;
	FILE *fp;
	int fd;

	if (!cfg->output || !strcmp(cfg->output, "-")) {
		if (cfg->format == OUT_BIN)
			refuse_binary_to_terminal(stdout, "give -o FILE, or -f hex or -f c");
		if (write_words(stdout, cfg, words, n) || fflush(stdout))
			die("standard output: %s", strerror(errno));
		return;
	}
	/*
	 * Renaming over a device or a FIFO would replace it (as root, even
	 * /dev/null) with a regular file: write into those directly.
	 */
	if (!stat(cfg->output, &st) && !S_ISREG(st.st_mode)) {
		fp = fopen(cfg->output, "wb");
		if (!fp || write_words(fp, cfg, words, n) || fclose(fp))
			die("%s: %s", cfg->output, strerror(errno));
		return;
	}
	len = strlen(cfg->output) + sizeof(".XXXXXX");
	tmp = malloc(len);
	if (!tmp)
		die("%s", strerror(ENOMEM));
	snprintf(tmp, len, "%s.XXXXXX", cfg->output);
	fd = mkstemp(tmp);
	if (fd < 0)
		die("%s: %s", tmp, strerror(errno));
	fp = fdopen(fd, "wb");
	if (!fp || write_words(fp, cfg, words, n) || fclose(fp)) {
		int err = errno;

		unlink(tmp);
		die("%s: %s", cfg->output, strerror(err));
	}
	if (rename(tmp, cfg->output)) {
		int err = errno;

		unlink(tmp);
		die("%s: %s", cfg->output, strerror(err));
	}
	free(tmp);
}

int main(int argc, char **argv)
{
	struct config cfg = { .format = OUT_BIN };
	const struct qpu_asm_diag *diags;
	const uint64_t *words;
	struct qpu_asm *as;
	size_t i, ndiags, nwords;
	bool failed;
	int err;

	parse_config(argc, argv, &cfg);
	as = qpu_asm_new();
	if (!as)
		die("%s", strerror(errno));
	for (i = 0; i < cfg.ninclude_dirs; i++)
		if (qpu_asm_add_include_dir(as, cfg.include_dirs[i]))
			die("%s", strerror(ENOMEM));
	if (qpu_asm_set_gen(as, cfg.gen))
		die("%s", strerror(EINVAL));
	err = qpu_asm_file(as, cfg.input);
	ndiags = qpu_asm_diags(as, &diags);
	failed = err != 0;
	for (i = 0; i < ndiags; i++) {
		const struct qpu_asm_loc *loc;

		fprintf(stderr, "%s:%u:%u: %s: %s\n", diags[i].file, diags[i].line,
			diags[i].col, diags[i].warning ? "warning" : "error", diags[i].msg);
		for (loc = diags[i].expanded_from; loc; loc = loc->expanded_from)
			fprintf(stderr, "%s:%u:%u: note: in expansion of macro '%s'\n",
				loc->file, loc->line, loc->col, loc->macro);
		if (diags[i].warning && cfg.werror)
			failed = true;
	}
	if (err && !ndiags) {
		qpu_asm_free(as);
		die("%s: %s", cfg.input, strerror(-err));
	}
	nwords = qpu_asm_words(as, &words);
	if (!err && cfg.hazard_rules) {
		struct hazard_ctx hctx = { .werror = cfg.werror };
		int found;

		hctx.nlocs = qpu_asm_locs(as, &hctx.locs);
		found = qpu_rule_set_check(cfg.gen, words, nwords,
					   cfg.hazard_rules, 0, print_hazard, &hctx);
		if (found < 0)
			die("hazard check: %s", strerror(-found));
		if (found && cfg.werror)
			failed = true;
	}
	if (failed) {
		qpu_asm_free(as);
		return 1;
	}
	write_output(&cfg, words, nwords);
	qpu_asm_free(as);
	return 0;
}
