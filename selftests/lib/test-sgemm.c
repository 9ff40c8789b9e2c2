// SPDX-License-Identifier: MIT
/*
 * qpu_sgemm() on the in-process emulator against a CPU reference: shapes
 * from 1x1x1 to 96x363x3072 (every panel width, column and row edges, every
 * loop path of K), alpha and beta cases, strided submatrices inside larger
 * buffers (whose other elements must not change), 1 to 12 QPUs, both
 * orientations of the kernel (C or C^T tiles, whichever loads less), the
 * byte counts of the stats against the emulator's own counters, and every
 * input the wrapper must refuse before it submits anything.
 *
 * Tolerance: the QPU rounds every fmul and fadd toward zero (relative error
 * below 2^-23, not 2^-24) and flushes denormals. Element (i, j) is the sum
 * of K products accumulated in order (K - 1 additions), plus beta * C
 * (one multiply, one addition) and alpha folded into A by the host (one
 * round to nearest). The classic bound for recursive summation, first
 * order in u = 2^-23, gives
 *	|qpu - exact| <= (K + 3) * u * (|alpha| sum_k |a_ik b_kj| + |beta c_ij|)
 *			 + (K + 2) * 2^-126
 * (the last term for flushed denormals). Truncation always errs the same
 * way, so the bound is linear in K and is what the errors approach; it is
 * checked as is, against a reference computed in double.
 */

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/qpu.h>

#include "qpu.h"
#include "qpu_kernels.h"
#include "testlib.h"
#include "kernels-dev.h"

#define U_RTZ	(1.0 / 8388608.0)		/* 2^-23 */
#define TINY	1.1754943508222875e-38		/* 2^-126 */

static uint64_t seed = 0x5eed5eed12345ull;

static float rnd(void)
{
	/* [-1, 1) in steps of 2^-23 */
	return (float)((int64_t)(t_rand(&seed) >> 40) - (1 << 23)) / (1 << 23);
}

struct mat {
	struct qpu_bo *bo;
	struct qpu_matrix m;
	float *copy;		/* the whole buffer before the call */
	size_t words;
};

/*
 * A rows x cols matrix with @pad extra elements a row, @off elements into a
 * buffer with @tail more elements after it, every word random.
 */
static void mat_init(struct qpu_dev *dev, struct mat *x, size_t rows,
		     size_t cols, size_t pad, size_t off, size_t tail)
{
	float *p;
	size_t i;

	x->m.rows = rows;
	x->m.cols = cols;
	x->m.stride = cols + pad;
	x->m.offset = off * 4;
	x->words = off + (rows - 1) * x->m.stride + cols + tail;
	x->bo = t_bo_or_die(dev, x->words * 4);
	x->m.bo = x->bo;
	p = qpu_bo_get_map(x->bo);
	for (i = 0; i < x->words; i++)
		p[i] = rnd();
	x->copy = malloc(x->words * 4);
	if (!x->copy)
		exit(T_EXIT_FAIL);
	memcpy(x->copy, p, x->words * 4);
}

static void mat_fini(struct mat *x)
{
	qpu_bo_free(x->bo);
	free(x->copy);
}

static float at(const struct mat *x, const float *base, size_t r, size_t c)
{
	return base[x->m.offset / 4 + r * x->m.stride + c];
}

/* Compare C with the reference; count the elements out of bound. */
static size_t check_result(const struct mat *a, const struct mat *b,
			   const struct mat *c, float alpha, float beta,
			   const char *what)
{
	const float *got = qpu_bo_get_map(c->bo);
	size_t m = a->m.rows, n = b->m.cols, k = a->m.cols;
	size_t i, j, l, bad = 0, w;
	bool *inside = calloc(c->words, sizeof(*inside));

	if (!inside)
		exit(T_EXIT_FAIL);
	for (i = 0; i < m; i++) {
		for (j = 0; j < n; j++) {
			double sum = 0, mag = 0, ref, tol, old;
			float q = at(c, got, i, j);

			for (l = 0; l < k; l++) {
				double p = (double)at(a, a->copy, i, l) *
					   at(b, b->copy, l, j);

				sum += p;
				mag += fabs(p);
			}
			old = at(c, c->copy, i, j);
			ref = alpha * sum + (beta != 0.0f ? beta * old : 0.0);
			tol = (k + 3) * U_RTZ * (fabs(alpha) * mag +
						 fabs(beta * old)) +
			      (k + 2) * TINY;
			inside[c->m.offset / 4 + i * c->m.stride + j] = true;
			if (!(fabs(q - ref) <= tol)) {
				if (bad < 5)
					fprintf(stderr,
						"%s: C(%zu, %zu) = %.9g, expected %.9g (tolerance %.3g)\n",
						what, i, j, q, ref, tol);
				bad++;
			}
		}
	}
	for (w = 0; w < c->words; w++) {
		if (!inside[w] && memcmp(&got[w], &c->copy[w], 4)) {
			if (bad < 5)
				fprintf(stderr, "%s: word %zu outside C changed\n",
					what, w);
			bad++;
		}
	}
	free(inside);
	return bad;
}

/* The device's QPUs and generation (open_kernels()). */
static unsigned int dev_qpus = 12;
static bool v3d;

/* @q QPUs, or all of the device's when it has fewer. */
static unsigned int fit(unsigned int q)
{
	return q < dev_qpus ? q : dev_qpus;
}

struct shape {
	size_t m, n, k;
	size_t pad, off;	/* stride padding and offset, in elements */
	float alpha, beta;
	unsigned int qpus;
};

/*
 * The byte counts of the stats are the wrapper's model of the kernel; the
 * emulator device measures the same traffic: they must agree exactly.
 */
static void check_counters(const struct qpu_kernel_stats *st)
{
	const struct qpu_job_counters *c = &st->counters;

	T_CHECK(st->counters_known);
	if (!st->counters_known)
		return;
	T_EQ_U64(c->tmu_bytes, st->tmu_bytes);
	T_EQ_U64(c->uniform_bytes, st->uniform_bytes);
	T_EQ_U64(c->dma_load_bytes, st->dma_load_bytes);
	T_EQ_U64(c->dma_store_bytes, st->dma_store_bytes);
	/* every shape has at least one k loop, which dual-issues (V3D: not counted) */
	if (!v3d)
		T_CHECK(c->dual_issued > 0 && c->dual_issued <= st->instructions);
	T_CHECK(c->run_ns > 0);
}

static void run_shape(struct qpu_kernels *kernels, const struct shape *s,
		      bool emulated)
{
	struct qpu_dev *dev = qpu_kernels_get_dev(kernels);
	struct mat a, b, c;
	struct qpu_kernel_stats st;
	char what[128];
	int ret;

	snprintf(what, sizeof(what), "%zux%zux%zu pad %zu off %zu alpha %g beta %g qpus %u",
		 s->m, s->n, s->k, s->pad, s->off, s->alpha, s->beta, s->qpus);
	mat_init(dev, &a, s->m, s->k, s->pad, s->off, s->pad);
	mat_init(dev, &b, s->k, s->n, s->pad + 1, s->off, 3);
	mat_init(dev, &c, s->m, s->n, s->pad * 2, s->off, 7);
	memset(&st, 0, sizeof(st));
	ret = qpu_sgemm(kernels, fit(s->qpus), s->alpha, &a.m, &b.m, s->beta, &c.m, &st);
	t_checks++;
	if (ret) {
		fprintf(stderr, "%s: qpu_sgemm: %s (%s)\n", what, strerror(-ret),
			qpu_kernels_last_error(kernels));
		t_failures++;
	} else {
		size_t bad = check_result(&a, &b, &c, s->alpha, s->beta, what);

		t_checks++;
		if (bad) {
			fprintf(stderr, "%s: %zu bad elements\n", what, bad);
			t_failures++;
		}
		if (emulated)
			check_counters(&st);
		T_EQ_U64(0, st.dma_load_bytes);
		T_CHECK(st.qpus >= 1 && st.qpus <= fit(s->qpus));
		T_EQ_STR("", qpu_kernels_last_error(kernels));
	}
	mat_fini(&a);
	mat_fini(&b);
	mat_fini(&c);
}

static const struct shape shapes[] = {
	/* m, n, k, pad, off, alpha, beta, qpus */
	{ 1, 1, 1, 0, 0, 1.0f, 0.0f, 12 },
	{ 1, 1, 1, 0, 0, 2.0f, 0.5f, 1 },
	{ 1, 1, 2, 0, 0, 1.0f, 0.0f, 12 },
	{ 2, 3, 4, 0, 0, 1.0f, 0.0f, 12 },
	{ 3, 5, 5, 1, 1, 1.0f, 1.0f, 12 },
	{ 15, 17, 6, 0, 0, 1.0f, 0.0f, 12 },
	{ 16, 16, 16, 0, 0, 1.0f, 0.0f, 12 },
	{ 17, 15, 7, 2, 3, 1.0f, 0.0f, 12 },
	{ 31, 33, 8, 0, 0, -1.5f, 0.0f, 7 },
	{ 32, 32, 9, 0, 0, 1.0f, -0.5f, 12 },
	{ 33, 47, 10, 0, 0, 1.0f, 0.0f, 12 },
	{ 40, 20, 3, 5, 2, 1.0f, 2.0f, 5 },
	{ 48, 64, 13, 0, 0, 1.0f, 0.0f, 12 },
	{ 49, 50, 11, 0, 0, 0.25f, 1.0f, 12 },
	{ 63, 65, 12, 0, 0, 1.0f, 0.0f, 3 },
	{ 64, 64, 64, 0, 0, 1.0f, 0.0f, 12 },
	{ 65, 31, 2, 0, 0, 1.0f, 0.0f, 12 },
	{ 100, 3, 100, 0, 0, 1.0f, 1.0f, 12 },
	{ 3, 100, 100, 4, 0, 1.0f, 0.0f, 12 },
	{ 129, 40, 5, 0, 0, 1.0f, 0.0f, 12 },
	{ 200, 37, 17, 3, 1, 0.5f, -1.0f, 12 },
	{ 16, 16, 1000, 0, 0, 1.0f, 0.0f, 2 },
	{ 64, 48, 33, 0, 0, 0.0f, 1.0f, 12 },	/* alpha 0: C = beta * C */
	{ 64, 48, 33, 0, 0, 0.0f, 0.0f, 12 },	/* C = 0 */
	{ 64, 48, 33, 0, 0, 3.0f, 0.0f, 1 },
	{ 24, 2048, 40, 0, 0, 1.0f, 0.0f, 12 },	/* C rows 8 KiB apart */
	/*
	 * 4 lane tiles left over (49 and 160 columns): through the L2 a
	 * slice's QPUs take a panel each; without it, 13 lane tiles (196
	 * columns): slices of one panel, the last lane tile dealt across
	 */
	{ 200, 49, 9, 0, 0, 1.0f, 0.0f, 12 },
	{ 130, 160, 5, 2, 1, 0.5f, -1.0f, 12 },
	{ 200, 196, 9, 0, 0, 1.0f, 0.0f, 12 },
	{ 200, 196, 9, 2, 1, -0.5f, 0.5f, 12 },
	{ 100, 196, 7, 0, 0, 1.0f, 0.0f, 8 },
	/* C rows over 64 KiB apart: past the VDW stride, a DMA per row */
	{ 100, 20, 9, 8200, 0, 1.0f, 0.0f, 12 },
	{ 100, 20, 9, 8200, 0, 1.0f, 0.5f, 12 },
};

/* The benchmark's shape; scaled down under the sanitizers (slower). */
#if defined(__SANITIZE_ADDRESS__)
#define BIG_N	768
#else
#define BIG_N	3072
#endif

/* Every refused input: -EINVAL, a message, nothing written. */
static void run_bad(struct qpu_kernels *kernels)
{
	struct qpu_dev *dev = qpu_kernels_get_dev(kernels);
	struct mat a, b, c;
	struct qpu_matrix ba, bb, bc;
	struct qpu_bo *small;
	const float *cm;
	int ret;

#define BAD(qpus, pa, pb, pc) do {					\
	ret = qpu_sgemm(kernels, (qpus), 1.0f, (pa), (pb), 1.0f, (pc), NULL);	\
	T_EQ_U64((uint64_t)-EINVAL, (uint64_t)ret);			\
	T_CHECK(qpu_kernels_last_error(kernels)[0] != '\0');			\
	T_CHECK(!memcmp(cm, c.copy, c.words * 4));			\
} while (0)

	mat_init(dev, &a, 20, 10, 0, 0, 0);
	mat_init(dev, &b, 10, 30, 0, 0, 0);
	mat_init(dev, &c, 20, 30, 0, 0, 0);
	cm = qpu_bo_get_map(c.bo);
	small = t_bo_or_die(dev, 64);

	BAD(12, NULL, &b.m, &c.m);
	BAD(12, &a.m, NULL, &c.m);
	BAD(12, &a.m, &b.m, NULL);
	BAD(0, &a.m, &b.m, &c.m);
	BAD(dev_qpus + 1, &a.m, &b.m, &c.m);
	BAD(1000, &a.m, &b.m, &c.m);

	/* shapes that disagree */
	bb = b.m;
	bb.rows = 9;
	BAD(12, &a.m, &bb, &c.m);
	bc = c.m;
	bc.rows = 19;
	BAD(12, &a.m, &b.m, &bc);
	bc = c.m;
	bc.cols = 29;
	BAD(12, &a.m, &b.m, &bc);
	/* empty */
	ba = a.m;
	ba.rows = 0;
	BAD(12, &ba, &b.m, &c.m);
	ba = a.m;
	ba.cols = 0;
	bb = b.m;
	bb.rows = 0;
	BAD(12, &ba, &bb, &c.m);
	/* strides below the columns */
	ba = a.m;
	ba.stride = 9;
	BAD(12, &ba, &b.m, &c.m);
	bb = b.m;
	bb.stride = 29;
	BAD(12, &a.m, &bb, &c.m);
	bc = c.m;
	bc.stride = 1;
	BAD(12, &a.m, &b.m, &bc);
	/* misaligned offsets */
	ba = a.m;
	ba.offset = 2;
	BAD(12, &ba, &b.m, &c.m);
	bb = b.m;
	bb.offset = 6;
	BAD(12, &a.m, &bb, &c.m);
	bc = c.m;
	bc.offset = 1;
	BAD(12, &a.m, &b.m, &bc);
	/* buffers too small, or no buffer */
	ba = a.m;
	ba.bo = small;		/* one page; A needs (19 * 300 + 10) * 4 bytes */
	ba.stride = 300;
	BAD(12, &ba, &b.m, &c.m);
	bb = b.m;
	bb.offset = qpu_bo_get_size(b.bo) - 4;
	BAD(12, &a.m, &bb, &c.m);
	bc = c.m;
	bc.stride = 1u << 12;
	BAD(12, &a.m, &b.m, &bc);
	bc = c.m;
	bc.offset = (size_t)-4;
	BAD(12, &a.m, &b.m, &bc);
	bc = c.m;
	bc.bo = NULL;
	BAD(12, &a.m, &b.m, &bc);
	/* too large for the kernel's 32-bit address arithmetic */
	bb = b.m;
	bb.stride = (size_t)1 << 40;
	BAD(12, &a.m, &bb, &c.m);

	/* and a good call on the same matrices still works */
	ret = qpu_sgemm(kernels, fit(12), 1.0f, &a.m, &b.m, 0.0f, &c.m, NULL);
	T_EQ_U64(0, ret);
	T_EQ_STR("", qpu_kernels_last_error(kernels));
	T_EQ_U64(0, check_result(&a, &b, &c, 1.0f, 0.0f, "after refusals"));

	qpu_bo_free(small);
	mat_fini(&a);
	mat_fini(&b);
	mat_fini(&c);
#undef BAD
}

static const char *device_path = "emu:strict-vpm";
static struct qpu_dev *dev;
static struct qpu_kernels *kernels;
static bool emulated;	/* only the in-process emulator measures traffic */

T_KERNELS_OPTIONS(device_path);

static int open_kernels(void)
{
	uint64_t v;
	int ret = t_open_kernels(device_path, T_EXIT_SKIP, &dev, &kernels);

	if (ret != T_EXIT_PASS)
		return ret;
	emulated = strstr(qpu_dev_describe(dev), "emulator") != NULL;
	if (!qpu_dev_get_param(dev, QPU_DEV_PARAM_NUM_QPUS, &v))
		dev_qpus = (unsigned int)v;
	if (!qpu_dev_get_param(dev, QPU_DEV_PARAM_GEN, &v))
		v3d = qpu_gen_is_v3d((int)v);
	return T_EXIT_PASS;
}

static void close_kernels(void)
{
	t_close_kernels(dev, kernels);
}

T_TEST(shapes)
{
	size_t i;

	for (i = 0; i < T_ARRAY_SIZE(shapes); i++)
		run_shape(kernels, &shapes[i], emulated);
}

/*
 * The shapes again on an emulated Pi 1, whose buffers go through the L2
 * (QPU_DEV_PARAM_BO_L2_CACHED 1): the panel prefetch and the rounds dealt
 * across the slices, where the default device (no board, the 0xC alias)
 * takes the slice-by-slice dealing without the prefetch.
 */
T_TEST(shapes_through_l2)
{
	struct qpu_dev *d;
	struct qpu_kernels *k;
	uint64_t l2 = 0;
	size_t i;

	if (v3d || !emulated)
		T_SKIP("the VideoCore IV emulator's Pi 1 board");
	if (t_open_kernels("emu:board=pi1", T_EXIT_FAIL, &d, &k) != T_EXIT_PASS) {
		T_CHECK(!"emu:board=pi1 opens");
		return;
	}
	T_EQ_U64(0, qpu_dev_get_param(d, QPU_DEV_PARAM_BO_L2_CACHED, &l2));
	T_EQ_U64(1, l2);
	for (i = 0; i < T_ARRAY_SIZE(shapes); i++)
		run_shape(k, &shapes[i], true);
	t_close_kernels(d, k);
}

T_TEST(big)
{
	struct shape big = { 96, BIG_N, 363, 0, 0, 1.0f, 0.0f, 12 };

	run_shape(kernels, &big, emulated);
}

T_TEST(big_alpha_beta)
{
	struct shape big = { 96, BIG_N, 363, 0, 0, -1.25f, 0.75f, 12 };

	run_shape(kernels, &big, emulated);
}

T_TEST(bad)
{
	run_bad(kernels);
}

/*
 * qpu_sgemm_16x64(), PyVideoCore's schedule: within the reference's bound
 * and, for alpha 1, qpu_sgemm()'s result to the bit (the same products,
 * summed in the same order); the untouched words around C too.
 */
static void run_16x64(const struct shape *s)
{
	struct qpu_dev *d = qpu_kernels_get_dev(kernels);
	struct mat a, b, c;
	struct qpu_kernel_stats st;
	float *first;
	char what[128];
	int ret;

	snprintf(what, sizeof(what), "16x64 %zux%zux%zu pad %zu off %zu beta %g qpus %u",
		 s->m, s->n, s->k, s->pad, s->off, s->beta, s->qpus);
	mat_init(d, &a, s->m, s->k, s->pad, s->off, s->pad);
	mat_init(d, &b, s->k, s->n, s->pad + 1, s->off, 3);
	mat_init(d, &c, s->m, s->n, s->pad * 2, s->off, 7);
	memset(&st, 0, sizeof(st));
	ret = qpu_sgemm(kernels, s->qpus, 1.0f, &a.m, &b.m, s->beta, &c.m, NULL);
	T_EQ_U64(0, (uint64_t)ret);
	first = malloc(c.words * 4);
	if (!first)
		exit(T_EXIT_FAIL);
	memcpy(first, qpu_bo_get_map(c.bo), c.words * 4);
	memcpy(qpu_bo_get_map(c.bo), c.copy, c.words * 4);
	ret = qpu_sgemm_16x64(kernels, s->qpus, &a.m, &b.m, s->beta, &c.m, &st);
	T_EQ_U64(0, (uint64_t)ret);
	if (!ret) {
		T_EQ_U64(0, check_result(&a, &b, &c, 1.0f, s->beta, what));
		T_CHECK(!memcmp(first, qpu_bo_get_map(c.bo), c.words * 4));
		if (emulated)
			check_counters(&st);
		T_EQ_STR("", qpu_kernels_last_error(kernels));
	} else {
		fprintf(stderr, "%s: %s\n", what, qpu_kernels_last_error(kernels));
	}
	free(first);
	mat_fini(&a);
	mat_fini(&b);
	mat_fini(&c);
}

T_TEST(pyvc_schedule)
{
	static const struct shape s16[] = {
		/* m, n, k, pad, off, alpha (unused), beta, qpus */
		{ 16, 64, 3, 0, 0, 1.0f, 0.0f, 1 },
		{ 16, 64, 4, 0, 0, 1.0f, 1.0f, 12 },
		{ 32, 128, 17, 3, 1, 1.0f, -0.5f, 12 },
		{ 48, 192, 33, 0, 0, 1.0f, 0.0f, 5 },
		{ 64, 256, 64, 1, 2, 1.0f, 2.0f, 12 },
		{ 96, 384, 363, 0, 0, 1.0f, 1.0f, 12 },
	};
	size_t i;

	if (v3d)
		T_SKIP("qpu_sgemm_16x64() is VideoCore IV's schedule");

	for (i = 0; i < T_ARRAY_SIZE(s16); i++)
		run_16x64(&s16[i]);
}

/*
 * The 16x64 schedule deals 12 QPUs' tiles 2 x 6, as PyVideoCore does, not
 * 1 x 12 (which ties with it on the busiest program's tiles): at 2 x 11
 * tiles of 16x64, 2 x 6 gives all 12 programs tiles, 1 x 12 only 11.
 */
T_TEST(pyvc_grid_2x6)
{
	static const struct shape s = { 32, 704, 5, 0, 0, 1.0f, 0.0f, 12 };
	struct qpu_dev *d = qpu_kernels_get_dev(kernels);
	struct qpu_kernel_stats st;
	struct mat a, b, c;
	int ret;

	if (v3d)
		T_SKIP("qpu_sgemm_16x64() is VideoCore IV's schedule");

	mat_init(d, &a, s.m, s.k, 0, 0, 0);
	mat_init(d, &b, s.k, s.n, 0, 0, 0);
	mat_init(d, &c, s.m, s.n, 0, 0, 0);
	memset(&st, 0, sizeof(st));
	ret = qpu_sgemm_16x64(kernels, s.qpus, &a.m, &b.m, s.beta, &c.m, &st);
	T_EQ_U64(0, (uint64_t)ret);
	if (!ret) {
		T_EQ_U64(12, st.qpus);
		T_EQ_U64(0, check_result(&a, &b, &c, 1.0f, s.beta, "16x64 32x704x5 qpus 12"));
	}
	mat_fini(&a);
	mat_fini(&b);
	mat_fini(&c);
}

/* The shapes the 16x64 schedule does not take, refused before any job. */
T_TEST(pyvc_schedule_bad)
{
	struct qpu_dev *d = qpu_kernels_get_dev(kernels);
	static const size_t bad[][3] = {
		{ 17, 64, 8 }, { 16, 63, 8 }, { 16, 64, 2 }, { 8, 128, 8 },
	};
	size_t i;

	if (v3d)
		T_SKIP("qpu_sgemm_16x64() is VideoCore IV's schedule");

	for (i = 0; i < T_ARRAY_SIZE(bad); i++) {
		struct mat a, b, c;
		int ret;

		mat_init(d, &a, bad[i][0], bad[i][2], 0, 0, 0);
		mat_init(d, &b, bad[i][2], bad[i][1], 0, 0, 0);
		mat_init(d, &c, bad[i][0], bad[i][1], 0, 0, 0);
		ret = qpu_sgemm_16x64(kernels, 12, &a.m, &b.m, 0.0f, &c.m, NULL);
		T_EQ_U64((uint64_t)-EINVAL, (uint64_t)ret);
		T_CHECK(strstr(qpu_kernels_last_error(kernels), "multiple of 16") != NULL);
		T_CHECK(!memcmp(qpu_bo_get_map(c.bo), c.copy, c.words * 4));
		mat_fini(&a);
		mat_fini(&b);
		mat_fini(&c);
	}
}

/*
 * Modelled GFLOPS of one call at @m x @k x @n, alpha 1 on @qpus QPUs of
 * @board's model, counting 2MNK + 3MN FLOP as PyVideoCore's example does;
 * 0 if the model did not run. On an emulator of its own made for the
 * board, so that its buffers sit where the board's Linux puts them (the
 * model's L2 follows their alias: a Pi 1's go through it, a Pi 3's not).
 */
static double model_gflops_on(enum qpu_board board, unsigned int qpus,
			      bool pyvc_schedule, size_t m, size_t k, size_t n,
			      float beta)
{
	struct qpu_dev *d = qpu_dev_open("emu");
	struct qpu_kernels *kr = NULL;
	struct mat a, b, c;
	struct qpu_job_timing t;
	double flop = 2.0 * m * n * k + 3.0 * m * n, gf = 0;
	int ret;

	T_CHECK(d);
	if (d && !qpu_dev_set_board(d, board))
		kr = qpu_kernels_new(d);
	T_CHECK(kr);
	if (!kr) {
		qpu_dev_close(d);
		return 0;
	}
	mat_init(d, &a, m, k, 0, 0, 0);
	mat_init(d, &b, k, n, 0, 0, 0);
	mat_init(d, &c, m, n, 0, 0, 0);
	ret = pyvc_schedule ?
		qpu_sgemm_16x64(kr, qpus, &a.m, &b.m, beta, &c.m, NULL) :
		qpu_sgemm(kr, qpus, 1.0f, &a.m, &b.m, beta, &c.m, NULL);
	T_EQ_U64(0, (uint64_t)ret);
	if (!ret && !qpu_kernels_take_timing(kr, &t) && t.ns + t.launch_ns)
		gf = flop / (double)(t.ns + t.launch_ns);
	mat_fini(&a);
	mat_fini(&b);
	mat_fini(&c);
	qpu_kernels_free(kr);
	qpu_dev_close(d);
	return gf;
}

/* The same on 12 QPUs of a Pi 1 (the frozen timing table). */
static double model_gflops(bool pyvc_schedule, size_t m, size_t k, size_t n,
			   float beta)
{
	return model_gflops_on(QPU_BOARD_PI1, 12, pyvc_schedule, m, k, n, beta);
}

/*
 * The held-out check of issue #23: PyVideoCore's README reports 8 GFLOPS
 * for its sgemm example (96x363x3072, beta 1) on a Pi; the goal was the
 * table predicting the same schedule within 25 % (6 to 10). With the
 * per-slice uniforms cache and its one line fetched ahead it predicts
 * 6.56 (-18 %) with the tiles dealt 2 x 6 as PyVideoCore deals them
 * (3.90 when a tie dealt them 1 x 12 and every program streamed its own
 * columns of B through the uniforms, 26.8 MB at the model's 0.67 GB/s).
 * The model is deterministic, but where the buffers land moves the
 * figure (the L2's sets and random replacement): 6.56 in the full run,
 * 6.61 alone, 6.50 under the sanitizers, 6.13 after pyvc_schedule alone.
 * It is pinned between the goal's floor and a little over those, so that
 * a change of the model that moves it is seen.
 */
T_TEST(model_pyvc_prediction)
{
	double gf;

	if (v3d)
		T_SKIP("the VideoCore IV model (this device is a V3D)");
	gf = model_gflops(true, 96, 363, 3072, 1.0f);
	fprintf(stderr, "16x64 schedule, 96x363x3072 beta 1: %.2f GFLOPS modelled on a Pi 1 (published: 8)\n", gf);
	T_CHECK(gf >= 6.0 && gf <= 6.8);
}

/*
 * qpu_sgemm() at the same shape, beta 0: a floor under its modelled speed
 * (5.90 GFLOPS when its main loop overflowed the 4 KiB instruction cache,
 * 7.03 with the loop fitting and stores under the mutex, 8.03 with each
 * program storing from its own VPM rows, 11.07 with the panel prefetched
 * into the L2 and the lane operand asked for 3 k ahead; in the model's
 * time order 5.81 with the rounds out of step, 11.31 with their barriers).
 */
T_TEST(model_sgemm_floor)
{
	double gf;

	if (v3d)
		T_SKIP("the VideoCore IV model (this device is a V3D)");
	gf = model_gflops(false, 96, 363, 3072, 0.0f);
	fprintf(stderr, "qpu_sgemm, 96x363x3072 beta 0: %.2f GFLOPS modelled on a Pi 1\n", gf);
	T_CHECK(gf >= 11.0);
}

/*
 * Issue #23's goal: 1024x1024x1024 at 16 GFLOPS or more modelled on a Pi 1
 * (8.48 before the prefetch, the rounds and a DMA per batch, 16.12 with
 * them while the emulator ran the QPUs in its own order; in the model's
 * time order 5.87 until the rounds' barriers kept the programs in step,
 * then 16.35, 16.77 when this case runs alone: where the buffers land
 * moves it). Some 70 M instructions: skipped under the sanitizers, which
 * make it minutes.
 */
T_TEST(model_sgemm_1024)
{
	double gf;

	if (v3d)
		T_SKIP("the VideoCore IV model (this device is a V3D)");
#if defined(__SANITIZE_ADDRESS__)
	T_SKIP("70 M emulated instructions under the sanitizers");
#endif
	gf = model_gflops(false, 1024, 1024, 1024, 0.0f);
	fprintf(stderr, "qpu_sgemm, 1024x1024x1024 beta 0: %.2f GFLOPS modelled on a Pi 1\n", gf);
	T_CHECK(gf >= 16.2);
}

/*
 * Issue #36: on a Pi 3 the buffers bypass the L2, so the panel prefetch only
 * loaded the panels twice and the rounds dealt across slices shared
 * nothing: 12 QPUs were slower than 8 (256x256x256: 7,449 us against
 * 5,070 modelled; 1024x1024x1024: 5.04 GFLOPS). Without the prefetch and
 * with each slice on one panel: 3,541 against 3,608 us.
 */
T_TEST(model_pi3_twelve_not_slower)
{
	double gf8, gf12;

	if (v3d)
		T_SKIP("the VideoCore IV model (this device is a V3D)");
	gf8 = model_gflops_on(QPU_BOARD_PI3, 8, false, 256, 256, 256, 0.0f);
	gf12 = model_gflops_on(QPU_BOARD_PI3, 12, false, 256, 256, 256, 0.0f);
	fprintf(stderr, "qpu_sgemm, 256x256x256 on a Pi 3: %.2f GFLOPS on 8 QPUs, %.2f on 12\n",
		gf8, gf12);
	T_CHECK(gf8 > 0 && gf12 >= gf8);
}

/*
 * The layers of 7x7 (49 columns: 4 lane tiles, rounds of 3 panels by 4)
 * and 14x14 (13 lane tiles) of MobileNet v1 (#37): a slice's QPUs on one
 * panel. A Pi 1, 1024x512x49: 9.27 GFLOPS with each round's tiles dealt
 * across the slices, 10.41 a panel a slice; a Pi 3, 512x256x196: 7.32
 * dealt 2 x 6 (13 lane tiles do not fill rounds of 3 x 4), 8.63 with 12
 * of them a panel a slice and the 13th dealt across the slices.
 */
T_TEST(model_layers_a_panel_a_slice)
{
	double pi1, pi3;

	if (v3d)
		T_SKIP("the VideoCore IV model (this device is a V3D)");
	pi1 = model_gflops_on(QPU_BOARD_PI1, 12, false, 1024, 512, 49, 0.0f);
	pi3 = model_gflops_on(QPU_BOARD_PI3, 12, false, 512, 256, 196, 0.0f);
	fprintf(stderr, "qpu_sgemm: 1024x512x49 %.2f GFLOPS on a Pi 1, 512x256x196 %.2f on a Pi 3\n",
		pi1, pi3);
	T_CHECK(pi1 >= 10.0);
	T_CHECK(pi3 >= 8.2);
}

T_MAIN(.setup = open_kernels, .teardown = close_kernels, .options = options)
