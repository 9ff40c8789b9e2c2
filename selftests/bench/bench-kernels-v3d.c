// SPDX-License-Identifier: MIT
/*
 * The sample kernels on V3D, modelled: each kernel that has a V3D program
 * run on the emulator devices of a Pi 4 (emu:v3d42, V3D 4.2, 8 QPUs at
 * 500 MHz) and a Pi 5 (emu:v3d71, V3D 7.1, 12 QPUs at 800 MHz) with the
 * V3D timing model on (the devices' "timing" option; the frozen table of
 * libqpu/core/timing/qpu_timing_v3d_board.c). One table per board: the
 * modelled time on 1, 2, 4 and all QPUs (the SUBMIT_CSD cost included),
 * and on all QPUs the SDRAM bytes the model moved over that time, as a
 * share of the model's SDRAM bandwidth (transfers x bus bytes x its
 * efficiency), and the TMU stall cycles per QPU. Every run is checked
 * against the CPU (tools/lib/kernel-cases.h); a wrong result fails the
 * bench. Then the streaming kernels at 1 Mi elements or pixels on all
 * QPUs, their SDRAM bytes over the time as a share of the model's
 * bandwidth with SUBMIT_CSD's cost and without it (the goal: 80 %),
 * and sgemm at 1024 x 1024 x 1024 on all QPUs (the goal:
 * 8 GFLOPS on a Pi 4, 32 on a Pi 5), its share of the board's peak (QPUs x
 * 16 lanes x 2 ALUs every 4 cycles) and its stalls. These are a model's
 * figures, not a measurement.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qpu.h"
#include "qpu_kernels.h"
#include "qpu_timing_v3d.h"
#include "kernel-cases.h"
#include "preproc-cases.h"

static const struct {
	const char *device;
	enum qpu_v3d_emu_board board;
} boards[] = {
	{ "emu:v3d42,timing", QPU_V3D_EMU_BOARD_PI4 },
	{ "emu:v3d71,timing", QPU_V3D_EMU_BOARD_PI5_3X4 },
};

/* The model's SDRAM bytes a second on @b. */
static double model_bandwidth(const struct qpu_tv_board *b)
{
	return (double)qpu_tv_sdram_bytes_per_s(b);
}

#define STREAM_SCALE	(1u << 20)

/* Case @i at @scale on @qpus QPUs: its modelled time in @t; -1 when it failed. */
static int model_run(struct qpu_kernels *kernels, size_t i, unsigned int qpus, size_t scale,
		     struct qpu_job_timing *t, struct kcase_report *rep)
{
	memset(rep, 0, sizeof(*rep));
	qpu_kernels_take_timing(kernels, t);	/* drop what came before */
	if (kcases[i].run(kernels, qpus, scale, rep) || !rep->ok ||
	    qpu_kernels_take_timing(kernels, t))
		return -1;
	return 0;
}

#define SGEMM_SIDE	1024

/* sgemm at SGEMM_SIDE^3 on all of @all QPUs, checked on a sample of C. */
static int sgemm_row(struct qpu_dev *dev, struct qpu_kernels *kernels, unsigned int all,
		     unsigned int clock_mhz)
{
	const size_t n = SGEMM_SIDE, bytes = n * n * 4;
	struct qpu_bo *bo = qpu_bo_new(dev, 3 * bytes);
	struct qpu_matrix a = { bo, 0, n, n, n }, b = { bo, bytes, n, n, n };
	struct qpu_matrix c = { bo, 2 * bytes, n, n, n };
	struct qpu_job_timing t;
	double flop = 2.0 * n * n * n, gflops, peak;
	float *f;
	size_t i, j, k;
	int bad = 0;

	if (!bo)
		return 1;
	f = qpu_bo_get_map(bo);
	for (i = 0; i < 2 * n * n; i++)		/* small integers: exact sums */
		f[i] = (float)((i * 7 + 3) % 5) - 2.0f;
	qpu_kernels_take_timing(kernels, &t);
	if (qpu_sgemm(kernels, all, 1.0f, &a, &b, 0.0f, &c, NULL) ||
	    qpu_kernels_take_timing(kernels, &t)) {
		fprintf(stderr, "bench-kernels-v3d: sgemm %zu^3: %s\n", n,
			qpu_kernels_last_error(kernels));
		qpu_bo_free(bo);
		return 1;
	}
	for (i = 0; i < n; i += 97)
		for (j = 0; j < n; j += 89) {
			float want = 0;

			for (k = 0; k < n; k++)
				want += f[i * n + k] * f[n * n + k * n + j];
			bad += f[2 * n * n + i * n + j] != want;
		}
	gflops = flop / (double)t.ns;
	peak = all * 16.0 * 2 / 4 * clock_mhz / 1e3;
	printf("  sgemm %zux%zux%zu on %u QPUs: %.1f ms, %.2f GFLOPS, %.1f%% of the %.1f GFLOPS peak,\n"
	       "    SDRAM %.1f MB; stall cycles a QPU: TMU %.0f, other %.0f, of %.0f%s\n",
	       n, n, n, all, t.ns / 1e6, gflops, 100 * gflops / peak, peak,
	       t.sdram_bytes / 1e6, (double)t.stall_tmu / all, (double)t.stall_other / all,
	       (double)t.cycles, bad ? " WRONG RESULT" : "");
	qpu_bo_free(bo);
	return bad != 0;
}

static int board_table(const char *path, enum qpu_v3d_emu_board board)
{
	const struct qpu_tv_board *tb = qpu_tv_board_get(board);
	const struct qpu_v3d_emu_board_info *eb = qpu_v3d_emu_board(board);
	struct qpu_dev *dev = qpu_dev_open(path);
	struct qpu_kernels *kernels = dev ? qpu_kernels_new(dev) : NULL;
	unsigned int all = eb->slices * eb->qpus_per_slice;
	const unsigned int counts[] = { 1, 2, 4, all };
	double bw = model_bandwidth(tb);
	int failed = 0;
	size_t i, q;

	if (!kernels) {
		fprintf(stderr, "bench-kernels-v3d: qpu_dev_open(%s): %s\n", path,
			strerror(errno));
		qpu_dev_close(dev);
		return 1;
	}
	printf("modelled on a %s (the V3D timing model, not a measurement):\n"
	       "us on 1, 2, 4 and %u QPUs, SUBMIT_CSD included; on %u QPUs the SDRAM bytes\n"
	       "over the time, their share of the model's %.0f MB/s, TMU stall cycles a QPU\n",
	       tb->label, all, all, bw / 1e6);
	printf("  %-14s %-16s %10s %10s %10s %10s %12s %6s %10s\n", "kernel", "size",
	       "1 QPU", "2 QPUs", "4 QPUs", "all", "throughput", "share", "TMU stall");
	for (i = 0; i < kcase_count; i++) {
		struct kcase_report rep;
		struct qpu_job_timing t;
		double us[4], ns = 0;
		int ret = 0;

		for (q = 0; q < 4 && !ret; q++) {
			ret = model_run(kernels, i, counts[q], 0, &t, &rep);
			ns = (double)t.ns;
			us[q] = ns / 1e3;
		}
		if (ret && strstr(qpu_kernels_last_error(kernels), "no program")) {
			printf("  %-14s %s\n", kcases[i].kernel, "no V3D program yet");
			continue;
		}
		if (ret) {
			fprintf(stderr, "bench-kernels-v3d: %s: %s %s\n", kcases[i].kernel,
				rep.msg, qpu_kernels_last_error(kernels));
			failed = 1;
			continue;
		}
		printf("  %-14s %-16s %10.1f %10.1f %10.1f %10.1f %7.1f MB/s %5.1f%% %10.0f\n",
		       kcases[i].kernel, rep.size, us[0], us[1], us[2], us[3],
		       t.sdram_bytes * 1e3 / ns, 100.0 * t.sdram_bytes * 1e9 / ns / bw,
		       (double)t.stall_tmu / all);
	}
	printf("  streaming kernels at %u elements or pixels on %u QPUs: share of the bandwidth\n"
	       "  with SUBMIT_CSD's %u us and without it\n", STREAM_SCALE, all,
	       tb->p[QPU_TV_CSD_SUBMIT_NS].value / 1000);
	for (i = 0; i < kcase_count; i++) {
		struct kcase_report rep;
		struct qpu_job_timing t;
		double ns, run_ns;

		if (!kcases[i].stream)
			continue;
		if (model_run(kernels, i, all, STREAM_SCALE, &t, &rep)) {
			fprintf(stderr, "bench-kernels-v3d: %s: %s\n", kcases[i].kernel, rep.msg);
			failed = 1;
			continue;
		}
		ns = (double)t.ns;
		run_ns = ns - tb->p[QPU_TV_CSD_SUBMIT_NS].value;
		printf("  %-14s %-16s %10.1f us %7.1f MB/s %5.1f%% %5.1f%%\n", kcases[i].kernel,
		       rep.size, ns / 1e3, t.sdram_bytes * 1e3 / ns,
		       100.0 * t.sdram_bytes * 1e9 / ns / bw,
		       100.0 * t.sdram_bytes * 1e9 / run_ns / bw);
	}
	failed |= sgemm_row(dev, kernels, all, eb->clock_mhz);
	qpu_kernels_free(kernels);
	qpu_dev_close(dev);
	return failed;
}

/*
 * qpu_preprocess() at the size, 1920x1080 NV12 to a 320x320
 * normalised tensor, on all of @path's QPUs: the modelled time (goal: 4 ms
 * on a Pi 4), checked against qpu_preprocess_cpu().
 */
static int preproc_rows(const char *path, enum qpu_v3d_emu_board board)
{
	const struct qpu_v3d_emu_board_info *eb = qpu_v3d_emu_board(board);
	struct qpu_dev *dev = qpu_dev_open(path);
	struct qpu_kernels *kernels = dev ? qpu_kernels_new(dev) : NULL;
	unsigned int all = eb->slices * eb->qpus_per_slice;
	struct pcase_report rep;
	struct qpu_job_timing t;
	char name[96];
	int failed = 0;
	size_t i;

	if (!kernels) {
		qpu_dev_close(dev);
		return 1;
	}
	printf("  preprocess on %u QPUs of a %s (modelled, SUBMIT_CSD included; the goal: 4 ms on a Pi 4):\n",
	       all, qpu_tv_board_get(board)->label);
	for (i = 0; i < PCASE_BENCH_COUNT; i++) {
		pcase_name(&pcase_bench[i], name, sizeof(name));
		qpu_kernels_take_timing(kernels, &t);	/* drop what came before */
		if (pcase_run(kernels, all, &pcase_bench[i], 1, &rep) || !rep.ok ||
		    qpu_kernels_take_timing(kernels, &t)) {
			fprintf(stderr, "bench-kernels-v3d: preprocess %s: %s\n", name, rep.msg);
			failed = 1;
			continue;
		}
		printf("    %-44s %7.2f ms, SDRAM %.1f MB, TMU stall cycles a QPU %.0f of %.0f\n",
		       name, t.ns / 1e6, t.sdram_bytes / 1e6, (double)t.stall_tmu / all,
		       (double)t.cycles);
	}
	qpu_kernels_free(kernels);
	qpu_dev_close(dev);
	return failed;
}

int main(void)
{
	size_t i;
	int failed = 0;

	for (i = 0; i < sizeof(boards) / sizeof(boards[0]); i++) {
		failed |= board_table(boards[i].device, boards[i].board);
		failed |= preproc_rows(boards[i].device, boards[i].board);
	}
	return failed;
}
