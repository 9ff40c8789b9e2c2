// SPDX-License-Identifier: MIT
/*
 * qpu_sgemm() on the emulator (make bench): for a few shapes, the QPU
 * instructions issued, the issue efficiency (useful FLOP / (32 x
 * instructions): 32 is a dual-issued fadd and fmul on 16 lanes), the bytes
 * loaded per FLOP (uniforms + TMU + DMA) against a 16x64-blocked kernel's,
 * computed analytically, and the emulator's speed.
 *
 * The emulator device measures each job's instructions, traffic and
 * emulation CPU time (struct qpu_job_counters), so the bench goes through
 * the public API only. The results are checked against a CPU reference
 * (loosely: test-sgemm owns accuracy).
 * Times are the median of 3 runs on one host core, wall clock and CPU time
 * (the machine may be shared); instructions per second use the CPU time
 * of the emulation alone, "host" the rest of the wrapper's CPU time.
 * The emulator runs with the timing model of a Pi 1/Zero on, and the last
 * column is the modelled GFLOPS there (launches through qpu.ko included)
 * and its share of the board's 24 GFLOPS peak: a model's figure.
 *
 * The model's own tables follow for a Pi 1/Zero and for a Pi 3, each on a
 * device of its own whose buffers sit where that board's Linux puts them
 * (the Pi 3's bypass the L2, so sgemm skips its panel prefetch there).
 * A second table is the model's alone, one run a row: the modelled GFLOPS
 * of qpu_sgemm() and of qpu_sgemm_16x64() (PyVideoCore's schedule, the
 * held-out check of the frozen table: PyVideoCore's README reports 8
 * GFLOPS for its example, 96x363x3072 with beta 1, counting 2MNK + 3MN
 * FLOP as that example does), 1024x1024x1024 (issue #23's goal: 16), and
 * where the QPUs' cycles went: issuing, and the stalls of struct
 * qpu_job_timing, each as a share of 12 x the job's cycles. A third gives
 * both kernels' modelled time at 96x363x3072 on 1, 4, 8 and 12 QPUs, and
 * qpu_sgemm()'s at 1024x1024x1024.
 */

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/qpu.h>

#include "bench.h"
#include "qpu.h"
#include "qpu_kernels.h"

#define RUNS	3

/* This process's CPU time: the machine may be busy with other work. */
static double bench_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct bench_shape {
	size_t m, n, k;
	float beta;
};

static struct qpu_bo *bench_bo(struct qpu_dev *dev, size_t words)
{
	struct qpu_bo *bo = qpu_bo_new(dev, words * 4);
	float *p;
	size_t i;

	if (!bo) {
		perror("qpu_bo_new");
		exit(1);
	}
	p = qpu_bo_get_map(bo);
	for (i = 0; i < words; i++)
		p[i] = (float)((i * 2654435761u) % 2001) / 1000.0f - 1.0f;
	return bo;
}

/*
 * Bytes per FLOP of a 16x64-blocked kernel (PyVideoCore's sgemm: per k and
 * 16x64 tile a column of 16 A elements through the TMU and a row of 64 B
 * elements as uniforms; C stored, and loaded for beta != 0, by DMA), with
 * or without the uniforms; its setup words are not counted.
 */
static double bytes_16x64(const struct bench_shape *s, bool uniforms)
{
	double tiles = ceil(s->m / 16.0) * ceil(s->n / 64.0);
	double loads = tiles * s->k * (16 + (uniforms ? 64 : 0)) * 4.0;
	double c = (double)s->m * s->n * 4.0 * (s->beta != 0.0f ? 2 : 1);

	return (loads + c) / (2.0 * s->m * s->n * s->k);
}

/* The largest relative error against a double reference, on a sample. */
static double bench_error(const float *a, const float *b, const float *c,
			  const struct bench_shape *s)
{
	double worst = 0;
	size_t i, j, l;

	for (i = 0; i < s->m; i += 7) {
		for (j = 0; j < s->n; j += 13) {
			double sum = 0, mag = 1e-30;

			for (l = 0; l < s->k; l++) {
				sum += (double)a[i * s->k + l] * b[l * s->n + j];
				mag += fabs((double)a[i * s->k + l] * b[l * s->n + j]);
			}
			/* beta runs keep the first C (all ones) */
			sum += s->beta;
			worst = fmax(worst, fabs(c[i * s->n + j] - sum) / mag);
		}
	}
	return worst;
}

static int bench_shape(struct qpu_kernels *kernels,
		       const struct bench_shape *s)
{
	struct qpu_dev *dev = qpu_kernels_get_dev(kernels);
	struct qpu_bo *abo = bench_bo(dev, s->m * s->k);
	struct qpu_bo *bbo = bench_bo(dev, s->k * s->n);
	struct qpu_bo *cbo = bench_bo(dev, s->m * s->n);
	struct qpu_matrix a = { abo, 0, s->m, s->k, s->k };
	struct qpu_matrix b = { bbo, 0, s->k, s->n, s->n };
	struct qpu_matrix c = { cbo, 0, s->m, s->n, s->n };
	double secs[RUNS], cpu[RUNS], host[RUNS], t0;
	double flop = 2.0 * s->m * s->n * s->k, eff;
	double loaded, err;
	double dma;
	struct qpu_kernel_stats st;
	const struct qpu_job_counters *jc = &st.counters;
	uint64_t instr;
	bool bytes_ok;
	float *cm = qpu_bo_get_map(cbo);
	size_t i;
	int r, ret = 0;

	struct qpu_job_timing tm;
	double gflops = 0;

	qpu_kernels_take_timing(kernels, &tm);	/* start the sum here */
	for (r = 0; r < RUNS; r++) {
		for (i = 0; i < s->m * s->n; i++)
			cm[i] = 1.0f;
		t0 = bench_cpu_s();
		ret = qpu_sgemm(kernels, 12, 1.0f, &a, &b, s->beta, &c, &st);
		if (ret) {
			fprintf(stderr, "qpu_sgemm: %s\n", qpu_kernels_last_error(kernels));
			goto out;
		}
		if (!st.counters_known || !st.instructions_known) {
			fprintf(stderr, "the device does not count\n");
			ret = -ENODEV;
			goto out;
		}
		cpu[r] = jc->run_ns / 1e9;
		host[r] = bench_cpu_s() - t0 - cpu[r];
		secs[r] = st.elapsed_ns / 1e9;
	}
	if (!qpu_kernels_take_timing(kernels, &tm) && tm.ns + tm.launch_ns)
		gflops = flop * RUNS / (double)(tm.ns + tm.launch_ns);
	instr = st.instructions;
	bytes_ok = st.tmu_bytes == jc->tmu_bytes &&
		   st.uniform_bytes == jc->uniform_bytes &&
		   st.dma_load_bytes == jc->dma_load_bytes &&
		   st.dma_store_bytes == jc->dma_store_bytes;
	err = bench_error(qpu_bo_get_map(abo), qpu_bo_get_map(bbo), cm, s);
	eff = flop / (32.0 * instr);
	dma = (double)(jc->tmu_bytes + jc->dma_load_bytes + jc->dma_store_bytes);
	loaded = dma + jc->uniform_bytes;
	printf("%4zux%4zux%4zu %-4g %9llu %6.4f %6.4f  %6.4f %6.4f  %6.4f %6.4f"
	       " %+5.2f%%  %-3s %6.2f %6.2f %6.2f %6.1f %7.1e %6.2f %4.0f%%\n",
	       s->m, s->k, s->n, s->beta, (unsigned long long)instr, eff,
	       (double)jc->dual_issued / instr, dma / flop,
	       bytes_16x64(s, false), loaded / flop, bytes_16x64(s, true),
	       100.0 * (loaded / flop / bytes_16x64(s, true) - 1.0),
	       bytes_ok ? "ok" : "BAD",
	       instr / bench_median(cpu, RUNS) / 1e6,
	       bench_median(secs, RUNS), bench_median(cpu, RUNS),
	       bench_median(host, RUNS) * 1e3, err, gflops, gflops / 24 * 100);
	if (err > 1e-4) {
		fprintf(stderr, "results wrong\n");
		ret = -EIO;
	}
	if (!bytes_ok) {
		fprintf(stderr, "the wrapper's byte counts are wrong\n");
		ret = -EIO;
	}
out:
	qpu_bo_free(abo);
	qpu_bo_free(bbo);
	qpu_bo_free(cbo);
	return ret;
}

/* PyVideoCore's published figure for its sgemm example (README.rst). */
#define PYVC_GFLOPS	8.0

struct model_shape {
	const char *kernel;	/* "sgemm" or "16x64" */
	size_t m, n, k;
	float beta;
};

/*
 * One modelled run of @s on @qpus QPUs into @t; @flop gets the FLOP it
 * counts (2MNK, + 3MN for the 16x64 schedule, as PyVideoCore counts).
 */
static int model_run(struct qpu_kernels *kernels, const struct model_shape *s,
		     unsigned int qpus, struct qpu_job_timing *t, double *flop,
		     uint64_t *instr)
{
	struct qpu_dev *dev = qpu_kernels_get_dev(kernels);
	struct qpu_bo *abo = bench_bo(dev, s->m * s->k);
	struct qpu_bo *bbo = bench_bo(dev, s->k * s->n);
	struct qpu_bo *cbo = bench_bo(dev, s->m * s->n);
	struct qpu_matrix a = { abo, 0, s->m, s->k, s->k };
	struct qpu_matrix b = { bbo, 0, s->k, s->n, s->n };
	struct qpu_matrix c = { cbo, 0, s->m, s->n, s->n };
	bool pyvc = !strcmp(s->kernel, "16x64");
	struct qpu_kernel_stats st;
	int ret;

	qpu_kernels_take_timing(kernels, t);	/* drop what came before */
	ret = pyvc ? qpu_sgemm_16x64(kernels, qpus, &a, &b, s->beta, &c, &st) :
		     qpu_sgemm(kernels, qpus, 1.0f, &a, &b, s->beta, &c, &st);
	if (!ret && qpu_kernels_take_timing(kernels, t))
		ret = -ENODATA;
	if (ret)
		fprintf(stderr, "%s %zux%zux%zu: %s\n", s->kernel, s->m, s->k, s->n,
			ret == -ENODATA ? "no modelled time" :
			qpu_kernels_last_error(kernels));
	*flop = 2.0 * s->m * s->n * s->k + (pyvc ? 3.0 * s->m * s->n : 0);
	*instr = st.instructions;
	qpu_bo_free(abo);
	qpu_bo_free(bbo);
	qpu_bo_free(cbo);
	return ret;
}

static int model_board_tables(struct qpu_kernels *kernels, enum qpu_board board)
{
	static const struct model_shape shapes[] = {
		{ "sgemm", 96, 3072, 363, 0.0f },
		{ "sgemm", 96, 3072, 363, 1.0f },
		{ "16x64", 96, 3072, 363, 1.0f },
		{ "sgemm", 1024, 1024, 1024, 0.0f },
		{ "16x64", 1024, 1024, 1024, 0.0f },
	};
	static const unsigned int counts[] = { 1, 4, 8, 12 };
	struct qpu_job_timing t;
	double flop;
	uint64_t instr;
	size_t i, q;

	uint64_t l2 = 0;

	qpu_dev_get_param(qpu_kernels_get_dev(kernels), QPU_DEV_PARAM_BO_L2_CACHED, &l2);
	printf("\nmodelled on a %s, 12 QPUs (the timing model, not a measurement; one run a row),\n"
	       "buffers %s the VideoCore L2 (QPU_DEV_PARAM_BO_L2_CACHED %u: sgemm's panel prefetch %s)\n"
	       "16x64: qpu_sgemm_16x64(), PyVideoCore's schedule, FLOP counted as PyVideoCore does\n"
	       "(2MNK + 3MN); pub: the %.0f GFLOPS its README reports for 96x363x3072 beta 1 (on a Pi 1);\n"
	       "then each share of 12 x the job's cycles: issuing, waiting for the TMU, DMA,\n"
	       "the mutex and semaphores (sync: the 16x64 schedule's mutex, sgemm's round\n"
	       "barriers), anything else (uniform and instruction fetch, register file, SFU,\n"
	       "VPM); SDRAM: MB the model moved\n"
	       "  kernel      MxKxN       beta    ms GFLOPS  peak    pub  issue   tmu   dma  sync other  SDRAM\n",
	       qpu_board_name(board), l2 ? "through" : "bypassing", (unsigned int)l2,
	       l2 ? "on" : "off", PYVC_GFLOPS);
	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		const struct model_shape *s = &shapes[i];
		double ns, qc, gf;
		char pub[16] = "";

		if (model_run(kernels, s, 12, &t, &flop, &instr))
			return -EIO;
		ns = (double)(t.ns + t.launch_ns);
		qc = 12.0 * t.cycles;
		gf = flop / ns;
		if (!strcmp(s->kernel, "16x64") && s->m == 96 && s->beta != 0.0f &&
		    board == QPU_BOARD_PI1)
			snprintf(pub, sizeof(pub), "%+.0f%%", 100.0 * (gf / PYVC_GFLOPS - 1));
		printf("  %-6s %4zux%4zux%4zu %-4g %7.2f %6.2f %4.0f%% %6s %5.1f%% %4.1f%% %4.1f%% %4.1f%% %4.1f%% %6.1f\n",
		       s->kernel, s->m, s->k, s->n, s->beta, ns / 1e6, gf,
		       100.0 * gf / (PEAK_FLOP_PER_CYCLE * (double)t.cycles / (double)t.ns),
		       pub, 100.0 * 4.0 * instr / qc,
		       100.0 * t.stall_tmu / qc, 100.0 * t.stall_dma / qc,
		       100.0 * t.stall_sync / qc, 100.0 * t.stall_other / qc,
		       t.sdram_bytes / 1e6);
	}
	printf("\nmodelled ms on a %s by QPU count (launch included)\n"
	       "  kernel      MxKxN       beta   1 QPU    4 QPUs    8 QPUs   12 QPUs\n",
	       qpu_board_name(board));
	for (i = 1; i < 4; i++) {
		printf("  %-6s %4zux%4zux%4zu %-4g", shapes[i].kernel, shapes[i].m,
		       shapes[i].k, shapes[i].n, shapes[i].beta);
		for (q = 0; q < sizeof(counts) / sizeof(counts[0]); q++) {
			if (model_run(kernels, &shapes[i], counts[q], &t, &flop, &instr))
				return -EIO;
			printf(" %9.2f", (t.ns + t.launch_ns) / 1e6);
		}
		printf("\n");
	}
	return 0;
}

/*
 * The model's tables for @board, on a device of its own made for it, so
 * that its buffers sit where the board's Linux puts them (a Pi 1's behind
 * the L2, a Pi 3's at the alias that bypasses it) and sgemm decides on its
 * panel prefetch as it would there (QPU_DEV_PARAM_BO_L2_CACHED).
 */
static int model_tables(enum qpu_board board)
{
	struct qpu_dev *dev = qpu_dev_open("emu");
	struct qpu_kernels *kernels = NULL;
	int ret;

	if (dev && !qpu_dev_set_board(dev, board))
		kernels = qpu_kernels_new(dev);
	if (!kernels) {
		fprintf(stderr, "bench-sgemm: no emulator for the %s model\n",
			qpu_board_name(board));
		qpu_dev_close(dev);
		return -EIO;
	}
	ret = model_board_tables(kernels, board);
	qpu_kernels_free(kernels);
	qpu_dev_close(dev);
	return ret;
}

int main(void)
{
	static const struct bench_shape shapes[] = {
		{ 96, 3072, 363, 0.0f },
		{ 96, 3072, 363, 1.0f },
		{ 256, 256, 256, 0.0f },
		{ 64, 1024, 1024, 0.0f },
		{ 100, 100, 100, 1.0f },
	};
	struct qpu_dev *dev = qpu_dev_open("emu:board=pi1");
	struct qpu_kernels *kernels = dev ? qpu_kernels_new(dev) : NULL;
	unsigned int i;
	int ret = 0;

	if (!kernels) {
		perror("qpu_dev_open(emu)");
		qpu_dev_close(dev);
		return 1;
	}
	printf("sgemm on the emulator, 12 QPUs, alpha 1\n"
	       "issue: 2MNK / (32 x instructions); dual: instructions using both "
	       "ALUs;\nB/F: bytes per FLOP through TMU + DMA, then also "
	       "counting uniforms; 16x64: the same for a 16x64-blocked kernel\n"
	       "(its blocking alone: no setup or list word counted); over: "
	       "B/F+u against that;\n"
	       "bytes: the stats' byte counts against the device's; "
	       "Mi/s: emulated instructions per CPU second;\n"
	       "wall, cpu: seconds of emulation (median of %d); host: CPU ms "
	       "of the wrapper's own work (packing, lists; the first call\n"
	       "also allocates the scratch buffer the others reuse); err: largest "
	       "error / sum |a b| on a sample; Pi1 GF: modelled GFLOPS on a Pi 1/Zero\n"
	       "and its share of the 24 GFLOPS peak (a model's figure)\n"
	       "    MxKxN       beta    instr  issue   dual   B/F   16x64   "
	       "B/F+u  16x64   over  bytes  Mi/s   wall    cpu  host     err Pi1 GF peak\n", RUNS);
	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]) && !ret; i++)
		ret = bench_shape(kernels, &shapes[i]);
	if (!ret)
		ret = model_tables(QPU_BOARD_PI1);
	if (!ret)
		ret = model_tables(QPU_BOARD_PI3);
	qpu_kernels_free(kernels);
	qpu_dev_close(dev);
	return ret ? 1 : 0;
}
