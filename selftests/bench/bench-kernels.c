// SPDX-License-Identifier: MIT
/*
 * The sample kernels on the in-process emulator (or the device named by the
 * first argument), one line each: QPU instructions issued, bytes fetched by
 * the TMUs, read as uniforms and moved by VCD DMA, and the median wall time
 * of a few runs. The byte counts are the wrapper's; where the device
 * measures them too (the emulator) the "measured" column says whether they
 * agree, and a disagreement fails the bench.
 * Every run is checked against the CPU (tools/lib/kernel-cases.h); a wrong
 * result fails the bench. On the emulator the time is the emulator's, not a
 * QPU's: compare instruction counts across changes, times across machines.
 *
 * Then two tables of the timing model's (a model's figures, not a
 * measurement), a Pi 1/Zero's and a Pi 3's: each kernel's modelled time
 * on 1, 4, 8 and 12 QPUs, launch included, and on 12 QPUs its throughput:
 * GFLOPS for sgemm (and the share of the board's peak, 12 QPUs x 16 lanes
 * x 2 ALUs every 4 cycles of its V3D clock: 24 GFLOPS at 250 MHz), for
 * the streaming kernels the SDRAM bytes the model moved over the modelled
 * time as a share of the model's memory bandwidth
 * (qpu_board_mem_bytes_per_s()).
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "qpu.h"
#include "qpu_kernels.h"
#include "bench.h"
#include "kernel-cases.h"
#include "preproc-cases.h"

#define RUNS	3

static const unsigned int model_qpus[] = { 1, 4, 8, 12 };
#define MODEL_COUNTS	(sizeof(model_qpus) / sizeof(model_qpus[0]))
static const enum qpu_board model_boards[] = { QPU_BOARD_PI1, QPU_BOARD_PI3 };

/* Case @i on @qpus QPUs of @kernels' modelled board; 0 when it failed. */
static int model_run(struct qpu_kernels *kernels, size_t i, unsigned int qpus,
		     struct qpu_job_timing *t, struct kcase_report *rep)
{
	memset(rep, 0, sizeof(*rep));
	qpu_kernels_take_timing(kernels, t);	/* drop what came before */
	if (kcases[i].run(kernels, qpus, 0, rep) || !rep->ok ||
	    qpu_kernels_take_timing(kernels, t)) {
		fprintf(stderr, "bench-kernels: modelled %s on %u QPUs: %s\n",
			kcases[i].kernel, qpus, rep->msg);
		return -1;
	}
	return 0;
}

/* The timing model's table for @board (see the top of this file). */
static int model_table(enum qpu_board board)
{
	struct qpu_dev *dev = qpu_dev_open("emu");
	struct qpu_kernels *kernels = NULL;
	double bw = (double)qpu_board_mem_bytes_per_s(board);
	size_t i, q;
	int failed = 0;

	if (dev && !qpu_dev_set_board(dev, board))
		kernels = qpu_kernels_new(dev);
	if (!kernels) {
		fprintf(stderr, "bench-kernels: no emulator for the model\n");
		qpu_dev_close(dev);
		return 1;
	}
	printf("modelled on a %s (the timing model, not a measurement): us on 1, 4, 8, 12 QPUs,\n"
	       "launch included; on 12 QPUs GFLOPS and share of the board's peak (sgemm),\n"
	       "or SDRAM bytes over the time and share of the model's %.0f MB/s (streaming kernels)\n",
	       qpu_board_name(board), bw / 1e6);
	printf("  %-14s %-16s %10s %10s %10s %10s %12s %6s\n", "kernel", "size",
	       "1 QPU", "4 QPUs", "8 QPUs", "12 QPUs", "throughput", "share");
	for (i = 0; i < kcase_count; i++) {
		struct kcase_report rep;
		struct qpu_job_timing t;
		double us[MODEL_COUNTS], ns = 0;

		for (q = 0; q < MODEL_COUNTS; q++) {
			if (model_run(kernels, i, model_qpus[q], &t, &rep)) {
				failed = 1;
				break;
			}
			ns = (double)(t.ns + t.launch_ns);
			us[q] = ns / 1e3;
		}
		if (q < MODEL_COUNTS)
			continue;
		printf("  %-14s %-16s %10.1f %10.1f %10.1f %10.1f", kcases[i].kernel,
		       rep.size, us[0], us[1], us[2], us[3]);
		if (rep.flop)	/* the peak at the clock the model ran: cycles / ns */
			printf(" %6.2f GF/s %5.1f%%\n", rep.flop / ns,
			       100.0 * rep.flop / t.cycles / PEAK_FLOP_PER_CYCLE *
			       (double)t.ns / ns);
		else if (kcases[i].stream)
			printf(" %6.1f MB/s %5.1f%%\n", t.sdram_bytes * 1e3 / ns,
			       100.0 * t.sdram_bytes * 1e9 / ns / bw);
		else
			printf(" %6.1f MB/s\n", t.sdram_bytes * 1e3 / ns);
	}
	qpu_kernels_free(kernels);
	qpu_dev_close(dev);
	return failed;
}

/*
 * qpu_preprocess() at the size, 1920x1080 NV12 to a 320x320
 * normalised tensor, on 12 QPUs of @board's model (goal: 8 ms on a Pi 3),
 * launch included, checked against qpu_preprocess_cpu().
 */
static int preproc_rows(enum qpu_board board)
{
	struct qpu_dev *dev = qpu_dev_open("emu");
	struct qpu_kernels *kernels = NULL;
	struct pcase_report rep;
	struct qpu_job_timing t;
	char name[96];
	int failed = 0;
	size_t i;

	if (dev && !qpu_dev_set_board(dev, board))
		kernels = qpu_kernels_new(dev);
	if (!kernels) {
		qpu_dev_close(dev);
		return 1;
	}
	printf("  preprocess on 12 QPUs of a %s (modelled, launch included; the goal: 8 ms on a Pi 3):\n",
	       qpu_board_name(board));
	for (i = 0; i < PCASE_BENCH_COUNT; i++) {
		pcase_name(&pcase_bench[i], name, sizeof(name));
		qpu_kernels_take_timing(kernels, &t);	/* drop what came before */
		if (pcase_run(kernels, 12, &pcase_bench[i], 1, &rep) || !rep.ok ||
		    qpu_kernels_take_timing(kernels, &t)) {
			fprintf(stderr, "bench-kernels: preprocess %s: %s\n", name, rep.msg);
			failed = 1;
			continue;
		}
		printf("    %-44s %7.2f ms, SDRAM %.1f MB\n", name, (t.ns + t.launch_ns) / 1e6,
		       t.sdram_bytes / 1e6);
	}
	qpu_kernels_free(kernels);
	qpu_dev_close(dev);
	return failed;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "emu";
	struct qpu_dev *dev = qpu_dev_open(path);
	struct qpu_kernels *kernels = dev ? qpu_kernels_new(dev) : NULL;
	size_t i;
	int r, failed = 0;

	if (!kernels) {
		fprintf(stderr, "bench-kernels: qpu_dev_open(%s): %s\n", path,
			strerror(errno));
		qpu_dev_close(dev);
		return 1;
	}
	printf("sample kernels on %s (12 QPUs, median of %d runs)\n",
	       qpu_dev_describe(dev), RUNS);
	printf("  %-14s %-16s %14s %12s %10s %10s %12s %9s %10s\n", "kernel",
	       "size", "instructions", "TMU bytes", "uniforms", "DMA load",
	       "DMA store", "measured", "time ms");
	for (i = 0; i < kcase_count; i++) {
		struct kcase_report rep;
		double t[RUNS];
		const char *measured;
		char instr[24];

		for (r = 0; r < RUNS; r++) {
			memset(&rep, 0, sizeof(rep));
			if (kcases[i].run(kernels, 12, 0, &rep) || !rep.ok) {
				fprintf(stderr, "bench-kernels: %s: %s\n",
					kcases[i].kernel, rep.msg);
				failed = 1;
				break;
			}
			t[r] = rep.stats.elapsed_ns / 1e6;
		}
		if (r < RUNS)
			continue;
		if (rep.stats.instructions_known)
			snprintf(instr, sizeof(instr), "%llu",
				 (unsigned long long)rep.stats.instructions);
		else
			snprintf(instr, sizeof(instr), "n/a");
		measured = "n/a";
		if (rep.stats.counters_known) {
			const struct qpu_job_counters *m = &rep.stats.counters;
			bool same = m->tmu_bytes == rep.stats.tmu_bytes &&
				    m->uniform_bytes == rep.stats.uniform_bytes &&
				    m->dma_load_bytes == rep.stats.dma_load_bytes &&
				    m->dma_store_bytes == rep.stats.dma_store_bytes;

			measured = same ? "same" : "DIFFERENT";
			failed |= !same;
		}
		printf("  %-14s %-16s %14s %12llu %10llu %10llu %12llu %9s %10.3f\n",
		       kcases[i].kernel, rep.size, instr,
		       (unsigned long long)rep.stats.tmu_bytes,
		       (unsigned long long)rep.stats.uniform_bytes,
		       (unsigned long long)rep.stats.dma_load_bytes,
		       (unsigned long long)rep.stats.dma_store_bytes,
		       measured, bench_median(t, RUNS));
	}
	qpu_kernels_free(kernels);
	qpu_dev_close(dev);
	for (i = 0; i < sizeof(model_boards) / sizeof(model_boards[0]); i++)
		failed |= model_table(model_boards[i]);
	failed |= preproc_rows(QPU_BOARD_PI3);
	return failed;
}
