// SPDX-License-Identifier: MIT
/*
 * qpu_sgemm() on the emulator (make bench): for a few shapes, the QPU
 * instructions issued, the issue efficiency (useful FLOP / (32 x
 * instructions): 32 is a dual-issued fadd and fmul on 16 lanes), the bytes
 * loaded per FLOP (uniforms + TMU + DMA) against a 16x64-blocked kernel's,
 * computed analytically, and the emulator's speed.
 *
 * The device API does not report instruction counts yet, so the bench
 * sets qpu_sgemm_run_hook and runs the wrapper's job on its own emulator
 * (libqpu/core/qpu_emu.h), reading the emulator's counters; the buffers
 * are the "emu" device's, reached through their bus addresses. The results
 * are checked against a CPU reference (loosely: test-sgemm owns accuracy).
 * Times are the median of 3 runs on one host core, wall clock and CPU time
 * (the machine may be shared); instructions per second use the CPU time.
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
#include "qpu_emu.h"
#include "qpu_kernels.h"

#define RUNS	3

/* libqpu/kernels/sgemm.c: runs a job instead of submitting it. */
extern int (*qpu_sgemm_run_hook)(struct qpu_dev *dev,
				 const struct qpu_job_desc *job);

struct bench_run {
	struct qpu_emu_stats stats;
	double seconds, cpu_seconds;
};

static struct bench_run cur;

static void *bench_translate_bo(const struct qpu_bo *bo, uint32_t addr,
				uint32_t len)
{
	uint32_t bus = qpu_bo_get_bus_addr(bo);
	size_t size = qpu_bo_get_size(bo);

	if (addr < bus || len > size || addr - bus > size - len)
		return NULL;
	return (char *)qpu_bo_get_map(bo) + (addr - bus);
}

static void *bench_translate(void *ctx, uint32_t addr, uint32_t len,
			     enum qpu_emu_access kind)
{
	const struct qpu_job_desc *job = ctx;
	unsigned int i;
	void *p;

	for (i = 0; i < job->program_count; i++) {
		p = bench_translate_bo(job->programs[i].code, addr, len);
		if (!p)
			p = bench_translate_bo(job->programs[i].uniforms, addr,
					       len);
		if (p)
			return p;
	}
	for (i = 0; i < job->bo_count; i++) {
		p = bench_translate_bo(job->bos[i], addr, len);
		if (p)
			return p;
	}
	return NULL;
}

/* This process's CPU time: the machine may be busy with other work. */
static double bench_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static const struct qpu_emu_ops bench_ops = {
	.translate = bench_translate,
};

static int bench_hook(struct qpu_dev *dev, const struct qpu_job_desc *job)
{
	struct qpu_emu *emu = aligned_alloc(8, (qpu_emu_size() + 7) & ~(size_t)7);
	enum qpu_emu_status st;
	unsigned int i;
	double t0, c0;

	if (!emu)
		return -ENOMEM;
	qpu_emu_init(emu, &bench_ops, (void *)job, 0);
	for (i = 0; i < job->program_count; i++) {
		const struct qpu_program_ref *p = &job->programs[i];

		if (qpu_emu_start(emu, qpu_bo_get_bus_addr(p->code) + p->code_offset,
				  qpu_bo_get_bus_addr(p->uniforms) +
				  p->uniforms_offset) < 0) {
			free(emu);
			return -EINVAL;
		}
	}
	t0 = bench_now_s();
	c0 = bench_cpu_s();
	do
		st = qpu_emu_run(emu, 1u << 24);
	while (st == QPU_EMU_RUNNING);
	cur.seconds = bench_now_s() - t0;
	cur.cpu_seconds = bench_cpu_s() - c0;
	cur.stats = *qpu_emu_get_stats(emu);
	if (st != QPU_EMU_IDLE) {
		char buf[512];

		qpu_emu_describe(emu, buf, sizeof(buf));
		fprintf(stderr, "emulator stopped (%d):\n%s", st, buf);
	}
	free(emu);
	return st == QPU_EMU_IDLE ? 0 : -EIO;
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

static int bench_shape(struct qpu_dev *dev, const struct bench_shape *s)
{
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
	uint64_t instr = 0;
	float *cm = qpu_bo_get_map(cbo);
	size_t i;
	int r, ret = 0;

	for (r = 0; r < RUNS; r++) {
		for (i = 0; i < s->m * s->n; i++)
			cm[i] = 1.0f;
		t0 = bench_cpu_s();
		ret = qpu_sgemm(dev, 12, 1.0f, &a, &b, s->beta, &c, &st);
		host[r] = bench_cpu_s() - t0 - cur.cpu_seconds;
		if (ret) {
			fprintf(stderr, "qpu_sgemm: %s\n", qpu_kernel_last_error());
			goto out;
		}
		secs[r] = cur.seconds;
		cpu[r] = cur.cpu_seconds;
	}
	for (i = 0; i < QPU_EMU_NUM_QPUS; i++)
		instr += cur.stats.instructions[i];
	err = bench_error(qpu_bo_get_map(abo), qpu_bo_get_map(bbo), cm, s);
	eff = flop / (32.0 * instr);
	dma = (double)(cur.stats.tmu_bytes + cur.stats.dma_load_bytes +
		       cur.stats.dma_store_bytes);
	loaded = dma + cur.stats.uniform_bytes;
	printf("%4zux%4zux%4zu %-4g %9llu %6.4f %6.4f  %6.4f %6.4f  %6.4f %6.4f"
	       "  %-3s %6.2f %6.2f %6.2f %6.1f %7.1e\n",
	       s->m, s->k, s->n, s->beta, (unsigned long long)instr, eff,
	       (double)cur.stats.both_units / instr, dma / flop,
	       bytes_16x64(s, false), loaded / flop, bytes_16x64(s, true),
	       st.tmu_bytes == cur.stats.tmu_bytes &&
	       st.dma_store_bytes == cur.stats.dma_store_bytes ? "ok" : "BAD",
	       instr / bench_median(cpu, RUNS) / 1e6,
	       bench_median(secs, RUNS), bench_median(cpu, RUNS),
	       bench_median(host, RUNS) * 1e3, err);
	if (err > 1e-4) {
		fprintf(stderr, "results wrong\n");
		ret = -EIO;
	}
out:
	qpu_bo_free(abo);
	qpu_bo_free(bbo);
	qpu_bo_free(cbo);
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
	struct qpu_dev *dev = qpu_dev_open("emu");
	unsigned int i;
	int ret = 0;

	if (!dev) {
		perror("qpu_dev_open(emu)");
		return 1;
	}
	qpu_sgemm_run_hook = bench_hook;
	printf("sgemm on the emulator, 12 QPUs, alpha 1\n"
	       "issue: 2MNK / (32 x instructions); dual: instructions using both "
	       "ALUs;\nB/F: bytes per FLOP through TMU + DMA, then also "
	       "counting uniforms; 16x64: the same for a 16x64-blocked kernel;\n"
	       "bytes: the stats' TMU and DMA counts against the emulator's; "
	       "Mi/s: emulated instructions per CPU second;\n"
	       "wall, cpu: seconds of emulation (median of %d); host: CPU ms "
	       "of the wrapper's own work (packing, lists);\nerr: largest "
	       "error / sum |a b| on a sample\n"
	       "    MxKxN       beta    instr  issue   dual   B/F   16x64   "
	       "B/F+u  16x64 bytes  Mi/s   wall    cpu  host     err\n", RUNS);
	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]) && !ret; i++)
		ret = bench_shape(dev, &shapes[i]);
	qpu_dev_close(dev);
	return ret ? 1 : 0;
}
