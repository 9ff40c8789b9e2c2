// SPDX-License-Identifier: MIT
/*
 * qpu-run: run a QPU program on libqpu's emulator (qpu_emulator.h). The program
 * is a file of raw little-endian 64-bit words; data files and zeroed areas
 * are mapped at chosen bus addresses, every access outside them stops the
 * run with a fault report; regions can be dumped afterwards, and --trace
 * shows each instruction of the chosen QPUs with the values it writes;
 * --timing[=BOARD] adds each QPU's modelled cycles on a Raspberry Pi, with
 * its stalls by cause (libqpu's timing model: a model, not a measurement;
 * on V3D the job's, from the V3D model on a Pi 4 or 5). The exit
 * status says how the run ended: 0 all programs ended, 2 fault, 3 deadlock,
 * 4 instruction budget spent, 1 usage or I/O error. With -m v3d42 or v3d71
 * the program is a Pi 4's or Pi 5's, dispatched on libqpu's emulated V3D
 * device (tools/lib/run_v3d.c).
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

#define TOOL_NAME "qpu-run"

const char tool_name[] = TOOL_NAME;

#include <qpu.h>
#include <qpu_dis.h>
#include <qpu_emulator.h>

#include "cli.h"
#include "die.h"
#include "parse_num.h"
#include "run_v3d.h"
#include "wordfile.h"

#define MAX_REGIONS	32
#define MAX_UNIFORMS	4096
#define MAX_DUMPS	16
#define DEFAULT_CODE	0x10000u
#define DEFAULT_UNIF	0x8000u
#define DEFAULT_BUDGET	100000000ull
/* V3D: code and uniforms in the first two granules of the GPU's space. */
#define DEFAULT_V3D_CODE	RUN_V3D_GRANULE
#define DEFAULT_V3D_UNIF	(2 * RUN_V3D_GRANULE)

enum exit_code {
	EXIT_DONE = 0,
	EXIT_USAGE = 1,
	EXIT_FAULT = 2,
	EXIT_DEADLOCK = 3,
	EXIT_BUDGET = 4,
};

struct region {
	uint32_t base;
	uint32_t size;
	uint8_t *mem;
	const char *name;
};

struct config {
	enum qpu_gen gen;	/* -m, the instruction set */
	bool code_set, unif_set;	/* -c, -U given */
	uint32_t code_addr;
	uint32_t unif_addr;
	uint32_t unif_stride;
	unsigned int qpus;
	unsigned int wg_size;	/* V3D: --wg-size, 0 if not given */
	unsigned int threads;	/* V3D: --threads, 0 if not given */
	uint32_t seed;
	uint64_t budget;
	uint16_t trace_qpus;	/* bit q: trace QPU q */
	bool stats;
	bool no_predecode;
	enum qpu_board board;	/* --timing, else QPU_BOARD_NONE */
	bool timing;		/* --timing given */
	const char *timing_board;	/* its BOARD, or NULL */
	enum qpu_wordfile_format format;	/* the program's: --hex, --binary */
	struct region regions[MAX_REGIONS];
	unsigned int nregions;
	uint32_t uniforms[MAX_UNIFORMS];
	unsigned int nuniforms;
	struct run_dump dumps[MAX_DUMPS];
	unsigned int ndumps;
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: qpu-run [OPTION]... PROGRAM\n"
		"Run PROGRAM (raw little-endian 64-bit words, or hex text as qpu-as -f hex\n"
		"writes) on the emulator.\n\n"
		"  -m, --machine=GEN        the instruction set: vc4 (default), or v3d42\n"
		"                           or v3d71 to dispatch a Pi 4's or Pi 5's program\n"
		"                           on the emulated V3D (-n: workgroups of\n"
		"                           --wg-size invocations; addresses are multiples\n"
		"                           of 0x20000, code and uniforms by default at\n"
		"                           0x20000 and 0x40000)\n"
		"  -x, --hex                PROGRAM is hex text: 0xLOW, 0xHIGH, per word\n"
		"      --binary             PROGRAM is little-endian 64-bit words\n"
		"                           (without either: hex if it looks like it)\n"
		"  -c, --code=ADDR          bus address of the program (default 0x%x)\n"
		"  -M, --map=FILE@ADDR      map FILE's bytes at ADDR (read and write)\n"
		"  -z, --zero=SIZE@ADDR     map SIZE zeroed bytes at ADDR\n"
		"  -u, --uniform=VALUE      append a 32-bit uniform (repeatable; floats\n"
		"                           as 1.5f); the stream is mapped at --unif-addr\n"
		"  -U, --unif-addr=ADDR     uniform stream address (default 0x%x)\n"
		"  -S, --unif-stride=BYTES  QPU k reads uniforms at ADDR + k * BYTES\n"
		"  -n, --qpus=N             start the program on N QPUs (default 1)\n"
		"      --wg-size=N          V3D: invocations per workgroup, 1 to 256\n"
		"                           (default 16: a workgroup a batch)\n"
		"      --threads=N          V3D: threads per QPU the program is written\n"
		"                           for, 1, 2 or 4 (default 1)\n"
		"  -s, --seed=N             interleave QPUs pseudo-randomly (0: in order)\n"
		"  -b, --budget=N           stop after N instructions (default %llu)\n"
		"  -d, --dump=SIZE@ADDR[=FILE]  after the run, write SIZE bytes at ADDR\n"
		"                           to FILE, or as hex words to standard output\n"
		"  -t, --trace[=QPUS]       print each instruction a QPU issues and the\n"
		"                           values it writes; QPUS: a list such as 0,3-5\n"
		"                           (default: every QPU)\n"
		"      --stats              print the emulator's counters\n"
		"      --timing[=BOARD]     print each QPU's modelled cycles and stalls\n"
		"                           by cause on BOARD: pi1 (default; also the\n"
		"                           Zero), pi2, pi3, pi3plus; with -m v3d42 the\n"
		"                           job's on pi4, with v3d71 on pi5 (default,\n"
		"                           12 QPUs) or pi5-16\n"
		"      --no-predecode       decode every instruction at each fetch\n"
		"                           (the emulator's slower reference path)\n"
		"  -h, --help               this text\n"
		"  -V, --version            the package version\n\n"
		"Options may follow PROGRAM; they follow qpu-tools(7).\n"
		"Exit status: 0 all programs ended, 2 fault, 3 deadlock, 4 budget\n"
		"spent, 1 usage or I/O error.\n",
		DEFAULT_CODE, DEFAULT_UNIF, DEFAULT_BUDGET);
}

/* The program, hex or binary (wordfile.h), as little-endian bytes. */
static uint8_t *read_code(const char *path, enum qpu_wordfile_format format,
			  uint32_t *size)
{
	uint64_t *words;
	uint8_t *bytes;
	char err[256];
	size_t n, i;
	int k, ret;

	ret = qpu_wordfile_read(path, format, &words, &n, err, sizeof(err));
	if (ret)
		die("%s: %s", path, err);
	if (!n)
		die("%s: no instructions", path);
	if (n > 0x40000000u / 8)
		die("%s: too large", path);
	bytes = malloc(n * 8);
	if (!bytes)
		die("out of memory");
	for (i = 0; i < n; i++)
		for (k = 0; k < 8; k++)
			bytes[8 * i + k] = (uint8_t)(words[i] >> (8 * k));
	free(words);
	*size = (uint32_t)(n * 8);
	return bytes;
}

static uint64_t parse_num(const char *s, const char *what, uint64_t max)
{
	uint64_t v;

	if (!parse_u64(s, 0, max, &v))
		die("bad %s '%s'", what, s);
	return v;
}

/* "A@B" into its two parts; @buf receives a copy that is split. */
static char *split_at(const char *arg, char sep, char *buf, size_t len,
		      const char *what)
{
	char *p;

	if (strlen(arg) >= len)
		die("%s too long: '%s'", what, arg);
	strcpy(buf, arg);
	p = strrchr(buf, sep);
	if (!p || p == buf || !p[1])
		die("bad %s '%s'", what, arg);
	*p = 0;
	return p + 1;
}

static uint32_t parse_uniform(const char *s)
{
	size_t n = strlen(s);

	if (n > 1 && (s[n - 1] == 'f' || s[n - 1] == 'F') &&
	    strncmp(s, "0x", 2) && strncmp(s, "0X", 2)) {
		char *end;
		float f;
		uint32_t u;

		errno = 0;
		f = strtof(s, &end);
		if (errno || end != s + n - 1)
			die("bad uniform '%s'", s);
		memcpy(&u, &f, 4);
		return u;
	}
	if (*s == '-')
		return (uint32_t)-(int64_t)parse_num(s + 1, "uniform",
						     0x80000000ull);
	return (uint32_t)parse_num(s, "uniform", 0xffffffffull);
}

static void add_region(struct config *cfg, uint32_t base, uint32_t size,
		       uint8_t *mem, const char *name)
{
	struct region *r;
	unsigned int i;

	if (!size)
		die("%s: empty region", name);
	if ((uint64_t)base + size > 0x100000000ull)
		die("%s: 0x%" PRIx32 "+0x%" PRIx32 " is beyond 4 GiB", name,
		    base, size);
	for (i = 0; i < cfg->nregions; i++) {
		r = &cfg->regions[i];
		if (base < r->base + r->size && r->base < base + size)
			die("%s overlaps %s", name, r->name);
	}
	if (cfg->nregions == MAX_REGIONS)
		die("too many regions (at most %d)", MAX_REGIONS);
	r = &cfg->regions[cfg->nregions++];
	r->base = base;
	r->size = size;
	r->mem = mem;
	r->name = name;
}

static uint8_t *read_file(const char *path, uint32_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		die("%s: %s", path, strerror(errno));
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 65536;
			if (cap > 0x40000000u)
				die("%s: too large", path);
			buf = realloc(buf, cap);
			if (!buf)
				die("out of memory");
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f))
		die("%s: read error", path);
	fclose(f);
	*size = (uint32_t)len;
	return buf;
}

static void trace(void *ctx, unsigned int qpu, uint32_t pc, uint64_t word)
{
	const struct config *cfg = ctx;
	char text[QPU_DIS_BUF_SIZE];

	if (!(cfg->trace_qpus >> qpu & 1))
		return;
	if (qpu_dis_word(word, pc, QPU_DIS_TARGET, text, sizeof(text)) < 0)
		snprintf(text, sizeof(text), "(undecodable)");
	printf("qpu%-2u %08" PRIx32 ": %016" PRIx64 "  %s\n", qpu, pc, word,
	       text);
}

/*
 * One write of the instruction just traced, under it: the register (or
 * peripheral) and the 16 lanes as the ALU made them, "-" for lanes its
 * condition kept; one value when every lane got the same.
 */
static void trace_write(void *ctx, unsigned int qpu, unsigned int waddr,
			bool file_b, const uint32_t value[16], uint16_t lanes)
{
	const struct config *cfg = ctx;
	const char *name = qpu_dis_write_reg_name(waddr, file_b);
	bool same = lanes == 0xffff;
	unsigned int i;

	if (!(cfg->trace_qpus >> qpu & 1))
		return;
	for (i = 1; i < 16 && same; i++)
		same = value[i] == value[0];
	printf("%8s%s =", "", name);
	if (same) {
		printf(" %08" PRIx32 " (every lane)\n", value[0]);
		return;
	}
	for (i = 0; i < 16; i++) {
		if (lanes >> i & 1)
			printf(" %08" PRIx32, value[i]);
		else
			printf(" -");
	}
	putchar('\n');
}

/* QPUs to trace: "0,3-5" -> bits 0, 3, 4, 5. */
static uint16_t parse_qpu_list(const char *list)
{
	char buf[64], *item, *save = NULL;
	uint16_t mask = 0;

	if (strlen(list) >= sizeof(buf))
		die("bad QPU list '%s'", list);
	strcpy(buf, list);
	for (item = strtok_r(buf, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(item, '-');
		uint64_t lo, hi;

		if (dash)
			*dash = '\0';
		lo = parse_num(item, "QPU", QPU_EMULATOR_NUM_QPUS - 1);
		hi = dash ? parse_num(dash + 1, "QPU", QPU_EMULATOR_NUM_QPUS - 1) : lo;
		if (lo > hi)
			die("bad QPU range '%s-%s'", item, dash + 1);
		for (; lo <= hi; lo++)
			mask |= 1u << lo;
	}
	if (!mask)
		die("bad QPU list '%s'", list);
	return mask;
}

static void host_interrupt(void *ctx, unsigned int qpu)
{
	(void)ctx;
	printf("qpu%u: host interrupt\n", qpu);
}

static void parse_args(struct config *cfg, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "code", required_argument, NULL, 'c' },
		{ "map", required_argument, NULL, 'M' },
		{ "machine", required_argument, NULL, 'm' },
		{ "hex", no_argument, NULL, 'x' },
		{ "binary", no_argument, NULL, 4 },
		{ "zero", required_argument, NULL, 'z' },
		{ "uniform", required_argument, NULL, 'u' },
		{ "unif-addr", required_argument, NULL, 'U' },
		{ "unif-stride", required_argument, NULL, 'S' },
		{ "qpus", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 's' },
		{ "budget", required_argument, NULL, 'b' },
		{ "dump", required_argument, NULL, 'd' },
		{ "trace", optional_argument, NULL, 't' },
		{ "stats", no_argument, NULL, 1 },
		{ "no-predecode", no_argument, NULL, 2 },
		{ "timing", optional_argument, NULL, 3 },
		{ "wg-size", required_argument, NULL, 5 },
		{ "threads", required_argument, NULL, 6 },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	char buf[4096];
	const char *rest;
	int opt;

	while ((opt = getopt_long(argc, argv, "c:m:M:xz:u:U:S:n:s:b:d:t::hV",
				  longopts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			cfg->code_addr = parse_num(optarg, "address",
						   0xffffffffull);
			cfg->code_set = true;
			break;
		case 'm': {
			int gen = qpu_gen_from_name(optarg);

			if (gen < 0)
				usage_error(EXIT_USAGE, "unknown machine '%s' (vc4, v3d42, v3d71)",
					    optarg);
			cfg->gen = (enum qpu_gen)gen;
			break;
		}
		case 'x':
			cfg->format = QPU_WORDFILE_HEX;
			break;
		case 4:
			cfg->format = QPU_WORDFILE_BINARY;
			break;
		case 'M': {
			uint32_t size, base;
			uint8_t *mem;
			char *path;

			rest = split_at(optarg, '@', buf, sizeof(buf), "map");
			base = parse_num(rest, "address", 0xffffffffull);
			path = strdup(buf);
			if (!path)
				die("out of memory");
			mem = read_file(path, &size);
			add_region(cfg, base, size, mem, path);
			break;
		}
		case 'z': {
			uint32_t size, base;
			uint8_t *mem;

			rest = split_at(optarg, '@', buf, sizeof(buf), "zero");
			base = parse_num(rest, "address", 0xffffffffull);
			size = parse_num(buf, "size", 0x40000000ull);
			mem = calloc(1, size ? size : 1);
			if (!mem)
				die("out of memory");
			add_region(cfg, base, size, mem, "--zero area");
			break;
		}
		case 'u':
			if (cfg->nuniforms == MAX_UNIFORMS)
				die("too many uniforms");
			cfg->uniforms[cfg->nuniforms++] = parse_uniform(optarg);
			break;
		case 'U':
			cfg->unif_addr = parse_num(optarg, "address",
						   0xffffffffull);
			cfg->unif_set = true;
			break;
		case 'S':
			cfg->unif_stride = parse_num(optarg, "stride",
						     0x10000000ull);
			break;
		case 'n':
			cfg->qpus = parse_num(optarg, "QPU count", 0xffff);
			if (!cfg->qpus)
				die("at least one QPU");
			break;
		case 's':
			cfg->seed = parse_num(optarg, "seed", 0xffffffffull);
			break;
		case 5:
			cfg->wg_size = parse_num(optarg, "workgroup size", 256);
			if (!cfg->wg_size)
				die("bad workgroup size '%s' (1 to 256)", optarg);
			break;
		case 6:
			cfg->threads = parse_num(optarg, "thread count", 4);
			if (cfg->threads != 1 && cfg->threads != 2 && cfg->threads != 4)
				die("bad thread count '%s' (1, 2 or 4)", optarg);
			break;
		case 'b':
			cfg->budget = parse_num(optarg, "budget", ~0ull);
			break;
		case 'd': {
			struct run_dump *d;
			char *eq, *at;

			if (cfg->ndumps == MAX_DUMPS)
				die("too many dumps");
			d = &cfg->dumps[cfg->ndumps++];
			if (strlen(optarg) >= sizeof(buf))
				die("dump too long");
			strcpy(buf, optarg);
			eq = strchr(buf, '=');
			if (eq) {
				*eq = 0;
				d->path = strdup(eq + 1);
				if (!d->path || !*d->path)
					die("bad dump '%s'", optarg);
			}
			at = strchr(buf, '@');
			if (!at)
				die("bad dump '%s'", optarg);
			*at = 0;
			d->size = parse_num(buf, "size", 0x40000000ull);
			d->addr = parse_num(at + 1, "address", 0xffffffffull);
			break;
		}
		case 't':
			cfg->trace_qpus = optarg ? parse_qpu_list(optarg) :
				(1u << QPU_EMULATOR_NUM_QPUS) - 1;
			break;
		case 1:
			cfg->stats = true;
			break;
		case 2:
			cfg->no_predecode = true;
			break;
		case 3:
			cfg->timing = true;
			cfg->timing_board = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(EXIT_DONE);
		case 'V':
			print_version();
			exit(EXIT_DONE);
		default:
			try_help(EXIT_USAGE);
		}
	}
	if (optind == argc)
		usage_error(EXIT_USAGE, "no PROGRAM to run");
	if (optind != argc - 1)
		usage_error(EXIT_USAGE, "one PROGRAM at most (got %d)", argc - optind);
	if (cfg->gen == QPU_GEN_VC4 && cfg->qpus > QPU_EMULATOR_NUM_QPUS)
		die("bad QPU count '%u'", cfg->qpus);
	if (cfg->gen != QPU_GEN_VC4 && (cfg->trace_qpus || cfg->seed ||
					cfg->unif_stride || cfg->no_predecode))
		die("--trace, --seed, --unif-stride and --no-predecode are "
		    "VideoCore IV's");
	/* V3D boards are the emulated device's (run_v3d.c) */
	if (cfg->timing && cfg->gen == QPU_GEN_VC4) {
		cfg->board = qpu_board_from_name(cfg->timing_board ?
						 cfg->timing_board : "pi1");
		/* the V3D boards (pi4 on) are -m v3d42's and v3d71's */
		if (cfg->board == QPU_BOARD_NONE || cfg->board >= QPU_BOARD_PI4)
			die("unknown board '%s' (pi1, pi2, pi3, pi3plus)",
			    cfg->timing_board);
	}
	if (cfg->gen == QPU_GEN_VC4 && (cfg->wg_size || cfg->threads))
		die("--wg-size and --threads are V3D's (-m v3d42 or v3d71)");
}

/* -m v3d42/v3d71: the regions, code and uniforms first, as one dispatch. */
static int main_v3d(struct config *cfg, uint8_t *code, uint32_t size)
{
	static struct run_v3d_region regions[MAX_REGIONS + 2];
	struct run_v3d run = {
		.gen = cfg->gen, .regions = regions, .dumps = cfg->dumps,
		.ndumps = cfg->ndumps, .workgroups = cfg->qpus,
		.wg_size = cfg->wg_size ? cfg->wg_size : 16,
		.threads = cfg->threads ? cfg->threads : 1,
		.budget = cfg->budget, .stats = cfg->stats,
		.timing = cfg->timing, .board = cfg->timing_board,
	};
	static uint32_t no_uniform;
	unsigned int i;

	regions[0] = (struct run_v3d_region){
		cfg->code_set ? cfg->code_addr : DEFAULT_V3D_CODE, size, code,
		"the program",
	};
	regions[1] = (struct run_v3d_region){
		cfg->unif_set ? cfg->unif_addr : DEFAULT_V3D_UNIF,
		cfg->nuniforms ? cfg->nuniforms * 4 : 4,
		cfg->nuniforms ? (uint8_t *)cfg->uniforms : (uint8_t *)&no_uniform,
		"the uniforms",
	};
	for (i = 0; i < cfg->nregions; i++)
		regions[i + 2] = (struct run_v3d_region){
			cfg->regions[i].base, cfg->regions[i].size,
			cfg->regions[i].mem, cfg->regions[i].name,
		};
	run.nregions = cfg->nregions + 2;
	return run_v3d(&run);
}

static void report_fault(const struct qpu_emulator *emu)
{
	struct qpu_emulator_fault f;
	uint8_t *p;

	if (qpu_emulator_get_fault(emu, &f))
		return;
	p = qpu_emulator_lookup(emu, f.pc & ~7u, 8);
	fprintf(stderr, "qpu-run: fault on qpu %u at pc 0x%08" PRIx32
		": %s, %s of 0x%08" PRIx32 "\n", f.qpu, f.pc,
		qpu_emulator_fault_reason_str(f.reason),
		qpu_access_str(f.access), f.addr);
	if (p) {
		char text[QPU_DIS_BUF_SIZE];
		uint64_t w;

		memcpy(&w, p, 8);
		if (qpu_dis_word(w, f.pc, QPU_DIS_TARGET, text,
				 sizeof(text)) >= 0)
			fprintf(stderr, "qpu-run:   %016" PRIx64 "  %s\n", w,
				text);
	}
}

static int write_dumps(struct config *cfg, const struct qpu_emulator *emu)
{
	unsigned int i;

	for (i = 0; i < cfg->ndumps; i++) {
		struct run_dump *d = &cfg->dumps[i];
		uint8_t *p = qpu_emulator_lookup(emu, d->addr, d->size);

		if (!p) {
			fprintf(stderr, "qpu-run: dump 0x%" PRIx32 "@0x%" PRIx32
				" is not inside one region\n", d->size,
				d->addr);
			return EXIT_USAGE;
		}
		if (run_write_dump(d->path, p, d->size))
			return EXIT_USAGE;
	}
	return EXIT_DONE;
}

static uint64_t stat(const struct qpu_emulator *emu, enum qpu_emulator_stat which)
{
	uint64_t v = 0;

	qpu_emulator_get_stat(emu, which, &v);
	return v;
}

static void print_stats(const struct qpu_emulator *emu)
{
	unsigned int i;

	printf("instructions:");
	for (i = 0; i < QPU_EMULATOR_NUM_QPUS; i++) {
		uint64_t n = 0;

		qpu_emulator_get_qpu_instructions(emu, i, &n);
		printf(" %" PRIu64, n);
	}
	printf("\nboth units %" PRIu64 ", stalls: tmu %" PRIu64 " sfu %"
	       PRIu64 " vpm %" PRIu64 " sync %" PRIu64 "\n",
	       stat(emu, QPU_EMULATOR_STAT_DUAL_ISSUED),
	       stat(emu, QPU_EMULATOR_STAT_STALL_TMU),
	       stat(emu, QPU_EMULATOR_STAT_STALL_SFU),
	       stat(emu, QPU_EMULATOR_STAT_STALL_VPM),
	       stat(emu, QPU_EMULATOR_STAT_STALL_SYNC));
	printf("bytes: tmu %" PRIu64 ", dma load %" PRIu64 ", dma store %"
	       PRIu64 "; programs done %" PRIu64 "\n",
	       stat(emu, QPU_EMULATOR_STAT_TMU_BYTES),
	       stat(emu, QPU_EMULATOR_STAT_DMA_LOAD_BYTES),
	       stat(emu, QPU_EMULATOR_STAT_DMA_STORE_BYTES),
	       stat(emu, QPU_EMULATOR_STAT_PROGRAMS_DONE));
}

/* --timing: each QPU's modelled cycles, issue share and stalls by cause. */
static void print_timing(const struct qpu_emulator *emu, enum qpu_board board)
{
	struct qpu_emulator_timing t;
	uint64_t end = 0, end_ns = 0;
	unsigned int i, k;

	printf("timing (modelled on %s):\nqpu %10s %8s", qpu_board_name(board),
	       "cycles", "issue%");
	for (k = 0; k < QPU_EMULATOR_NUM_STALLS; k++)
		printf(" %9s", qpu_emulator_stall_name(k));
	printf("\n");
	for (i = 0; i < QPU_EMULATOR_NUM_QPUS; i++) {
		uint64_t cycles;

		if (qpu_emulator_get_timing(emu, i, &t) || !t.instructions)
			continue;
		cycles = t.end - t.start;
		printf("%3u %10" PRIu64 " %7.1f%%", i, cycles,
		       cycles ? 400.0 * t.instructions / cycles : 0.0);
		for (k = 0; k < QPU_EMULATOR_NUM_STALLS; k++)
			printf(" %9" PRIu64, t.stall[k]);
		printf("\n");
		if (t.end > end) {
			end = t.end;
			end_ns = t.end_ns;
		}
	}
	printf("job: %" PRIu64 " cycles, %.3f us\n", end, end_ns / 1000.0);
}

int main(int argc, char **argv)
{
	static struct config cfg = {
		.code_addr = DEFAULT_CODE, .unif_addr = DEFAULT_UNIF,
		.qpus = 1, .budget = DEFAULT_BUDGET, .gen = QPU_GEN_VC4,
	};
	enum qpu_emulator_status st;
	struct qpu_emulator *emu;
	uint32_t size;
	uint8_t *code;
	unsigned int i;
	int ret = EXIT_DONE;

	parse_args(&cfg, argc, argv);
	code = read_code(argv[optind], cfg.format, &size);
	if (cfg.gen != QPU_GEN_VC4)
		return main_v3d(&cfg, code, size);
	add_region(&cfg, cfg.code_addr, size, code, argv[optind]);
	if (cfg.nuniforms) {
		uint8_t *u = malloc(cfg.nuniforms * 4);

		if (!u)
			die("out of memory");
		memcpy(u, cfg.uniforms, cfg.nuniforms * 4);
		add_region(&cfg, cfg.unif_addr, cfg.nuniforms * 4, u,
			   "the uniforms");
	}
	emu = qpu_emulator_new(cfg.seed);
	if (!emu)
		die("out of memory");
	for (i = 0; i < cfg.nregions; i++) {
		const struct region *r = &cfg.regions[i];

		if (qpu_emulator_map(emu, r->base, r->mem, r->size))
			die("%s: cannot map it", r->name);
	}
	if (cfg.trace_qpus)
		qpu_emulator_set_trace(emu, trace, trace_write, &cfg);
	qpu_emulator_set_host_interrupt(emu, host_interrupt, NULL);
	qpu_emulator_set_predecode(emu, !cfg.no_predecode);
	if (cfg.board != QPU_BOARD_NONE && qpu_emulator_set_board(emu, cfg.board))
		die("cannot model %s", qpu_board_name(cfg.board));
	for (i = 0; i < cfg.qpus; i++) {
		int q = qpu_emulator_start(emu, cfg.code_addr,
					   cfg.unif_addr + i * cfg.unif_stride);

		if (q < 0)
			die("cannot start at code 0x%" PRIx32 ", uniforms 0x%"
			    PRIx32 " (misaligned?)", cfg.code_addr,
			    cfg.unif_addr + i * cfg.unif_stride);
	}
	st = qpu_emulator_run(emu, cfg.budget);
	switch (st) {
	case QPU_EMULATOR_IDLE:
		break;
	case QPU_EMULATOR_FAULT:
		report_fault(emu);
		ret = EXIT_FAULT;
		break;
	case QPU_EMULATOR_DEADLOCK:
	case QPU_EMULATOR_RUNNING: {
		size_t need = qpu_emulator_describe(emu, NULL, 0);
		char *text = malloc(need + 1);

		fprintf(stderr, "qpu-run: %s\n", st == QPU_EMULATOR_DEADLOCK ?
			"deadlock: every running QPU waits forever" :
			"instruction budget spent");
		if (text) {
			qpu_emulator_describe(emu, text, need + 1);
			fputs(text, stderr);
			free(text);
		}
		ret = st == QPU_EMULATOR_DEADLOCK ? EXIT_DEADLOCK : EXIT_BUDGET;
		break;
	}
	}
	if (cfg.stats)
		print_stats(emu);
	if (cfg.board != QPU_BOARD_NONE)
		print_timing(emu, cfg.board);
	if (ret == EXIT_DONE)
		ret = write_dumps(&cfg, emu);
	qpu_emulator_free(emu);
	return ret;
}
