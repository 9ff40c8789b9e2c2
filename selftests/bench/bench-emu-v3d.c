// SPDX-License-Identifier: MIT
/*
 * The V3D emulator's speed on this machine (make bench): instructions per
 * CPU second of the host, on a Pi 4 (2 x 4 QPUs) and a Pi 5 (3 x 4), for
 * three loops dispatched through the CSD: float compute (fadd and fmul
 * issued together), TMU streaming (a load and a store each iteration) and
 * an sgemm-shaped loop (a TMU load feeding four fmul/fadd pairs, the load
 * waited for across a thread switch, 4 threads a QPU). Each loop runs with
 * the fast paths and on the reference path (no predecode), alternated in
 * one run; the median of 5 runs is printed. The goal is 80 M/s.
 *
 * Options, to measure one row (e.g. under callgrind): -r RUNS, -n
 * ITERATIONS of each loop (20000), -l LOOP (0..2) and -b BOARD (pi4,
 * pi5) for one row, -f for the fast paths only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "qpu.h"
#include "qpu_asm.h"
#include "v3d/qpu_v3d_emu.h"
#include "test-v3d.h"

#define RUNS_MAX	15
#define DATA_BYTES	(1u << 20)

static const char *const end_seq = V3D_THREAD_END;

/* Common head: rf10 = data + 64 * batch-local lane offset, rf5 = count. */
static const char *const head =
	"nop ; nop ; ldunifrf.rf10\n"
	"nop ; nop ; ldunifrf.rf5\n"
	"eidx rf1 ; nop\n"
	"shl rf1, rf1, 2 ; nop\n"
	"add rf10, rf10, rf1 ; nop\n"
	"itof rf2, rf1 ; nop\n"
	"nop ; mov rf7, 0.5\n"
	"nop ; mov rf8, 1\n"
	"shl rf9, rf8, 6 ; nop\n";

static const struct loop {
	const char *name;
	const char *body;
	bool threading;
} loops[] = {
	{ "float compute (fadd + fmul)",
	  "loop:\n"
	  "fadd rf3, rf2, rf7 ; fmul rf4, rf2, rf7\n"
	  "fsub rf2, rf3, rf4 ; fmul rf6, rf3, rf4\n"
	  "fadd rf3, rf2, rf7 ; fmul rf4, rf2, rf7\n"
	  "fsub rf2, rf3, rf4 ; fmul rf6, rf3, rf4\n"
	  "sub.pushz rf5, rf5, 1 ; nop\n"
	  "b.anyna  loop\n"
	  "nop ; nop\nnop ; nop\nnop ; nop\n", false },
	{ "TMU streaming (load, store)",
	  "loop:\n"
	  "nop ; mov tmua, rf10\n"
	  "nop ; nop ; ldtmu.rf3\n"
	  "fadd rf3, rf3, rf7 ; nop\n"
	  "nop ; mov tmud, rf3\n"
	  "nop ; mov tmua, rf10\n"
	  "tmuwt - ; nop\n"
	  "sub.pushz rf5, rf5, 1 ; nop\n"
	  "b.anyna  loop\n"
	  "nop ; nop\nnop ; nop\nnop ; nop\n", false },
	{ "sgemm-shaped (TMU + thrsw + 4 fmul/fadd)",
	  "loop:\n"
	  "nop ; mov tmua, rf10 ; thrsw\n"
	  "nop ; nop\n"
	  "nop ; nop\n"
	  "nop ; nop ; ldtmu.rf3\n"
	  "fadd rf11, rf11, rf3 ; fmul rf12, rf11, rf3\n"
	  "fadd rf13, rf13, rf3 ; fmul rf14, rf13, rf3\n"
	  "fadd rf11, rf11, rf3 ; fmul rf12, rf11, rf3\n"
	  "fadd rf13, rf13, rf3 ; fmul rf14, rf13, rf3\n"
	  "sub.pushz rf5, rf5, 1 ; nop\n"
	  "b.anyna  loop\n"
	  "nop ; nop\nnop ; nop\nnop ; nop\n", true },
};

static double cpu_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One dispatch of @l on @board, fast or reference: M instructions/s. */
static double run_once(enum qpu_v3d_emu_board board, const struct loop *l,
		       bool fast, unsigned int iters, unsigned long long *count)
{
	const struct qpu_v3d_emu_board_info *b = qpu_v3d_emu_board(board);
	static struct qpu_v3d_mmu mmu;
	struct qpu_asm *as = qpu_asm_new();
	unsigned int threads = l->threading ? 4 : 2;
	unsigned int batches = b->slices * b->qpus_per_slice * threads;
	struct qpu_v3d_emu *emu;
	uint32_t cva, uva, dva, cfg[7];
	char src[4096];
	const uint64_t *w;
	void *code, *unif, *data;
	double t0, t1;
	size_t n;

	snprintf(src, sizeof(src), "%s%s%s", head, l->body, end_seq);
	code = calloc(1, 65536);
	unif = calloc(1, 4096);
	data = calloc(1, DATA_BYTES);
	emu = aligned_alloc(8, (qpu_v3d_emu_size() + 7) & ~(size_t)7);
	if (!as || !code || !unif || !data || !emu ||
	    qpu_asm_set_gen(as, b->gen) || qpu_asm_string(as, "bench", src)) {
		fprintf(stderr, "bench-emu-v3d: %s does not assemble\n", l->name);
		exit(1);
	}
	n = qpu_asm_words(as, &w);
	memcpy(code, w, n * 8);
	qpu_asm_free(as);
	qpu_v3d_mmu_init(&mmu);
	mmu.allow_all = true;
	qpu_v3d_mmu_map(&mmu, code, 65536, &cva);
	qpu_v3d_mmu_map(&mmu, unif, 4096, &uva);
	qpu_v3d_mmu_map(&mmu, data, DATA_BYTES, &dva);
	((uint32_t *)unif)[0] = dva;
	((uint32_t *)unif)[1] = iters;
	qpu_v3d_emu_init(emu, board, &mmu, NULL, NULL);
	qpu_v3d_emu_set_predecode(emu, fast);
	cfg[0] = batches << 16;
	cfg[1] = cfg[2] = 1u << 16;
	cfg[3] = 16;		/* one workgroup of 16 a supergroup */
	cfg[4] = batches - !b->csd_raw_batches;
	cfg[5] = cva | l->threading;
	cfg[6] = uva;
	qpu_v3d_emu_dispatch(emu, cfg);
	t0 = cpu_now_s();
	if (qpu_v3d_emu_run(emu, ~0ull) != QPU_V3D_EMU_IDLE) {
		fprintf(stderr, "bench-emu-v3d: %s stopped\n", l->name);
		exit(1);
	}
	t1 = cpu_now_s();
	*count = qpu_v3d_emu_get_stats(emu)->instructions;
	free(emu);
	free(code);
	free(unif);
	free(data);
	return (double)*count / (t1 - t0) / 1e6;
}

int main(int argc, char **argv)
{
	static const enum qpu_v3d_emu_board boards[] = {
		QPU_V3D_EMU_BOARD_PI4, QPU_V3D_EMU_BOARD_PI5_3X4,
	};
	double fast[RUNS_MAX], ref[RUNS_MAX];
	unsigned long long count = 0;
	unsigned int runs = 5, iters = 20000;
	const char *only_board = NULL;
	bool fast_only = false;
	int only_loop = -1, r, c;
	size_t b, l;

	while ((c = getopt(argc, argv, "r:n:l:b:f")) != -1) {
		switch (c) {
		case 'r':
			runs = (unsigned int)atoi(optarg);
			break;
		case 'n':
			iters = (unsigned int)atoi(optarg);
			break;
		case 'l':
			only_loop = atoi(optarg);
			break;
		case 'b':
			only_board = optarg;
			break;
		case 'f':
			fast_only = true;
			break;
		default:
			fprintf(stderr, "usage: bench-emu-v3d [-r runs] [-n iterations] "
				"[-l loop] [-b pi4|pi5] [-f]\n");
			return 2;
		}
	}
	if (!runs || runs > RUNS_MAX || !iters) {
		fprintf(stderr, "bench-emu-v3d: 1..%d runs, iterations > 0\n", RUNS_MAX);
		return 2;
	}
	printf("V3D emulator speed (M instructions per CPU second, median of %u; "
	       "goal 80)\n", runs);
	for (b = 0; b < sizeof(boards) / sizeof(boards[0]); b++) {
		const char *name = qpu_v3d_emu_board(boards[b])->name;

		if (only_board && strcmp(only_board, name))
			continue;
		for (l = 0; l < sizeof(loops) / sizeof(loops[0]); l++) {
			if (only_loop >= 0 && (size_t)only_loop != l)
				continue;
			for (r = 0; r < (int)runs; r++) {
				fast[r] = run_once(boards[b], &loops[l], true, iters, &count);
				ref[r] = fast_only ? 0 :
					 run_once(boards[b], &loops[l], false, iters, &count);
			}
			qsort(fast, runs, sizeof(fast[0]), cmp_double);
			qsort(ref, runs, sizeof(ref[0]), cmp_double);
			printf("  %-4s %-42s %10llu instr: %7.2f M/s (reference %7.2f)\n",
			       name, loops[l].name, count, fast[runs / 2], ref[runs / 2]);
		}
	}
	return 0;
}
