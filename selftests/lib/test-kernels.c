// SPDX-License-Identifier: MIT
/*
 * libqpu's sample kernels on the in-process emulator (or the device named
 * by the first argument): each against its CPU reference at several sizes
 * and QPU counts (tools/lib/kernel-cases.h), then every bad input a
 * wrapper must refuse before submitting anything, with its message, and
 * the struct qpu_kernels that holds their cache and last error.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qpu.h"
#include "qpu_kernels.h"
#include "qpu_vpm.h"
#include "testlib.h"
#include "qpu_asm.h"
#include "kernel-cases.h"
#include "kernels-dev.h"
#include "preproc-cases.h"

static struct qpu_dev *dev;
static struct qpu_kernels *kernels;
static bool counts_instructions;	/* the device times jobs by progress */
static bool emulated;		/* the device measures traffic too */
static bool v3d;		/* a V3D 4.2/7.1 device: stores go through the TMU */
static unsigned int dev_qpus;	/* the device's */
static unsigned int max_qpus;	/* the device's, at most 12 */

/* @q QPUs, or all of the device's when it has fewer. */
static unsigned int fit(unsigned int q)
{
	return q < max_qpus ? q : max_qpus;
}

/* Kernels with no V3D program: refused with -ENOTSUP there. */
static bool runs_here(const char *kernel)
{
	return !v3d || strcmp(kernel, "sgemm16x64");
}

/*
 * Run case @c; check it matched and that its byte counts are sane. The
 * report goes to @out too unless it is NULL.
 */
static void check_case(const struct kcase *c, unsigned int qpus, size_t scale,
		       struct kcase_report *out)
{
	struct kcase_report r = { .ok = false };
	int ret;

	memset(&r, 0, sizeof(r));
	ret = c->run(kernels, qpus, scale, &r);
	if (out)
		*out = r;
	t_checks++;
	if (ret || !r.ok) {
		char m[400];

		snprintf(m, sizeof(m), "%s, %u QPUs, size %s: %s", c->kernel,
			 qpus, r.size, r.msg);
		t_report(__FILE__, __LINE__, m);
		return;
	}
	/* a wrapper may use fewer programs than there are QPUs (sgemm) */
	T_CHECK(r.stats.qpus >= 1 && r.stats.qpus <= qpus);
	/* a device that times jobs by instructions reports their count */
	if (counts_instructions && c->counted)
		T_CHECK(r.stats.instructions_known && r.stats.instructions > 0);
	T_CHECK(r.stats.tmu_bytes + r.stats.dma_load_bytes > 0);
	T_CHECK(r.stats.dma_store_bytes > 0 || v3d);
	T_CHECK(r.stats.uniform_bytes > 0);
	/* the wrapper's byte counts are what the emulator measured */
	if (r.stats.counters_known) {
		const struct qpu_job_counters *m = &r.stats.counters;

		T_EQ_U64(m->tmu_bytes, r.stats.tmu_bytes);
		T_EQ_U64(m->uniform_bytes, r.stats.uniform_bytes);
		T_EQ_U64(m->dma_load_bytes, r.stats.dma_load_bytes);
		T_EQ_U64(m->dma_store_bytes, r.stats.dma_store_bytes);
	}
	T_CHECK(r.stats.counters_known == emulated);
}

T_TEST(cases)
{
	static const unsigned int qpus[] = { 1, 5, 12 };
	size_t i, q;

	for (i = 0; i < kcase_count; i++) {
		if (!runs_here(kcases[i].kernel))
			continue;
		for (q = 0; q < T_ARRAY_SIZE(qpus); q++)
			check_case(&kcases[i], fit(qpus[q]), kcases[i].small,
				   NULL);
		check_case(&kcases[i], fit(12), 0, NULL);
	}
}

static const struct kcase *find_case(const char *kernel)
{
	size_t i;

	for (i = 0; i < kcase_count; i++)
		if (!strcmp(kcases[i].kernel, kernel))
			return &kcases[i];
	return NULL;
}

/*
 * Every kernel on all of the device's QPUs, past the 12 the other cases
 * stop at: a Pi 5 of 16 QPUs (emu:v3d71,board=pi5-16, v3d_sim's pi5-16)
 * is where qpu-demo runs them.
 */
T_TEST(all_qpus)
{
	size_t i;

	for (i = 0; i < kcase_count; i++)
		if (runs_here(kcases[i].kernel))
			check_case(&kcases[i], dev_qpus, kcases[i].small, NULL);
}

/*
 * The streaming kernels store a batch of up to 8 pieces (64 bytes of
 * output each) per DMA, 5 when 12 QPUs share the VPM, and the last batch
 * holds what is left: piece counts below one batch, at a batch, just past
 * it and far from any multiple, on every QPU count, all checked against
 * the CPU, with the byte counts the wrappers report exact.
 */
T_TEST(stream_tails)
{
	static const size_t pieces[] = { 1, 2, 4, 5, 7, 8, 9, 11, 13, 17, 23,
					 61, 97 };
	static const struct {
		const char *kernel;
		size_t piece;		/* elements or pixels */
		unsigned int tmu, store;	/* bytes per element or pixel */
	} ks[] = {
		{ "vector_add", 16, 8, 4 },
		{ "saxpy", 16, 8, 4 },
		{ "rgb_to_gray", 64, 3, 1 },
		{ "threshold", 64, 1, 1 },
	};
	unsigned int q;
	size_t i, p;

	for (i = 0; i < T_ARRAY_SIZE(ks); i++) {
		const struct kcase *c = find_case(ks[i].kernel);

		T_CHECK(c != NULL);
		if (!c)
			continue;
		for (q = 1; q <= max_qpus; q++) {
			for (p = 0; p < T_ARRAY_SIZE(pieces); p++) {
				size_t n = pieces[p] * ks[i].piece;
				struct kcase_report r;

				check_case(c, q, n, &r);
				T_EQ_U64(0, r.stats.dma_load_bytes);
				if (v3d) {	/* and a few pieces read twice */
					T_CHECK(r.stats.tmu_bytes >=
						n * (ks[i].tmu + ks[i].store));
					continue;
				}
				T_EQ_U64(n * ks[i].tmu, r.stats.tmu_bytes);
				T_EQ_U64(n * ks[i].store, r.stats.dma_store_bytes);
			}
		}
	}
}

/*
 * A batch's store covers its own rows only: outputs in the middle of a
 * buffer, with guard bytes around them that must keep their values, on
 * every QPU count (so every program's last batch is a tail somewhere).
 */
T_TEST(stream_guard)
{
	const size_t n = 16 * 29, guard = 64;	/* floats; bytes */
	const size_t size = n * 4 + 2 * guard, pixels = 64 * 29;
	struct qpu_bo *x = qpu_bo_new(dev, size), *y = qpu_bo_new(dev, n * 4);
	struct qpu_vector a = { y, 0, n }, c = { x, guard, n };
	struct qpu_image in = { y, 0, 64, 29, 64 };
	struct qpu_image out = { x, guard, 64, 29, 64 };
	const float *fc, *fa;
	unsigned int q, bad;
	uint8_t *g;
	size_t i;

	T_CHECK(x && y);
	if (!x || !y)
		goto out;
	g = qpu_bo_get_map(x);
	fc = (const float *)(g + guard);
	fa = qpu_bo_get_map(y);
	memset(qpu_bo_get_map(y), 0x3c, n * 4);	/* floats 0.0115 */
	for (q = 1; q <= max_qpus; q++) {
		memset(g, 0xa5, size);
		T_EQ_U64(0, qpu_vector_add(kernels, q, &a, &a, &c, NULL));
		for (i = bad = 0; i < guard; i++)
			bad += g[i] != 0xa5 || g[guard + n * 4 + i] != 0xa5;
		for (i = 0; i < n; i++)
			bad += fc[i] != 2 * fa[i];
		T_EQ_U64(0, bad);

		memset(g, 0xa5, size);
		T_EQ_U64(0, qpu_threshold(kernels, q, &in, &out, 0x3b, 7, NULL));
		for (i = bad = 0; i < size; i++) {
			bool inside = i >= guard && i < guard + pixels;

			bad += g[i] != (inside ? 7 : 0xa5);
		}
		T_EQ_U64(0, bad);
	}
out:
	qpu_bo_free(x);
	qpu_bo_free(y);
}

/*
 * rgb_to_gray with its image at every offset within a 16-byte block (V3D
 * 4.2 reads whole blocks where it starts on one, three words a lane
 * elsewhere: v3d/gen42/gray.qasm), on 1, 3 and all QPUs and a few piece
 * counts: every pixel against the CPU, the bytes around the output kept,
 * the wrapper's byte counts what the emulator measured.
 */
T_TEST(gray_offsets)
{
	static const size_t offsets[] = { 0, 4, 8, 12, 20 }, pieces[] = { 1, 2, 5, 9 };
	static const unsigned int qpus[] = { 1, 3, 12 };
	const size_t most = 64 * 9, guard = 64;
	struct qpu_bo *x = qpu_bo_new(dev, most * 3 + guard);
	struct qpu_bo *y = qpu_bo_new(dev, most + 2 * guard);
	uint64_t seed = 0x5eed0036;
	size_t o, p, q, i, bad;
	uint8_t *in, *out;

	T_CHECK(x && y);
	if (!x || !y)
		goto out;
	in = qpu_bo_get_map(x);
	out = qpu_bo_get_map(y);
	for (i = 0; i < most * 3 + guard; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		in[i] = (uint8_t)(seed >> 56);
	}
	for (o = 0; o < T_ARRAY_SIZE(offsets); o++) {
		for (p = 0; p < T_ARRAY_SIZE(pieces); p++) {
			struct qpu_image rgb = { x, offsets[o], 64, (unsigned int)pieces[p], 192 };
			struct qpu_image gray = { y, guard, 64, (unsigned int)pieces[p], 64 };
			const uint8_t *px = in + offsets[o];
			size_t n = 64 * pieces[p];

			for (q = 0; q < T_ARRAY_SIZE(qpus); q++) {
				struct qpu_kernel_stats st = { 0 };

				memset(out, 0xa5, most + 2 * guard);
				T_EQ_U64(0, qpu_rgb_to_gray(kernels, fit(qpus[q]), &rgb, &gray, &st));
				for (i = bad = 0; i < n; i++)
					bad += out[guard + i] != (77 * px[3 * i] + 150 * px[3 * i + 1] +
								  29 * px[3 * i + 2] + 128) >> 8;
				for (i = 0; i < guard; i++)
					bad += out[i] != 0xa5 || out[guard + n + i] != 0xa5;
				T_EQ_U64(0, bad);
				if (st.counters_known)
					T_EQ_U64(st.counters.tmu_bytes, st.tmu_bytes);
			}
		}
	}
out:
	qpu_bo_free(x);
	qpu_bo_free(y);
}

/* @ret must be -EINVAL with a message containing @needle. */
#define T_REFUSED(needle, ret) do {					\
	int t_r_ = (ret);						\
	T_EQ_U64((uint64_t)-EINVAL, (uint64_t)t_r_);			\
	if (!strstr(qpu_kernels_last_error(kernels), (needle))) {		\
		char t_m_[400];						\
		snprintf(t_m_, sizeof(t_m_),				\
			 "message \"%s\" lacks \"%s\"",			\
			 qpu_kernels_last_error(kernels), (needle));		\
		t_report(__FILE__, __LINE__, t_m_);			\
	}								\
	t_checks++;							\
} while (0)

/*
 * V3D runs every kernel but qpu_sgemm_16x64() (VideoCore IV's published
 * schedule, kept for the VC4 model's calibration): refused after its
 * checks, with nothing run.
 */
T_TEST(v3d_sgemm_16x64_refused)
{
	struct qpu_bo *x = qpu_bo_new(dev, 64 * 1024);
	struct qpu_matrix a = { x, 0, 16, 3, 3 }, b = { x, 4096, 3, 64, 64 };
	struct qpu_matrix c = { x, 8192, 16, 64, 64 };
	struct qpu_kernel_stats st = { 0 };

	if (!v3d) {
		qpu_bo_free(x);
		T_SKIP("not a V3D device");
	}
	T_CHECK(x != NULL);
	T_EQ_U64((uint64_t)-ENOTSUP, qpu_sgemm_16x64(kernels, 1, &a, &b, 0, &c, &st));
	T_CHECK(strstr(qpu_kernels_last_error(kernels), "no program") != NULL);
	T_EQ_U64(0, st.elapsed_ns);
	c.cols = 63;
	T_REFUSED("C has 63 columns", qpu_sgemm_16x64(kernels, 1, &a, &b, 0, &c, &st));
	qpu_bo_free(x);
}

T_TEST(bad_vector_add)
{
	struct qpu_bo *x = qpu_bo_new(dev, 4096), *y = qpu_bo_new(dev, 4096);
	struct qpu_vector a = { x, 0, 1024 }, b = { y, 0, 1024 }, c = a;

	T_CHECK(x && y);
	T_EQ_U64(0, qpu_vector_add(kernels, fit(12), &a, &b, &c, NULL));
	T_EQ_STR("", qpu_kernels_last_error(kernels));
	T_REFUSED("a: no vector", qpu_vector_add(kernels, fit(12), NULL, &b, &c, NULL));
	b.length = 1008;
	T_REFUSED("b: has 1008 elements, expected 1024",
		  qpu_vector_add(kernels, fit(12), &a, &b, &c, NULL));
	b.length = 1024;
	a.length = b.length = c.length = 1000;
	T_REFUSED("positive multiple of 16",
		  qpu_vector_add(kernels, fit(12), &a, &b, &c, NULL));
	a.length = b.length = c.length = 0;
	T_REFUSED("positive multiple of 16",
		  qpu_vector_add(kernels, fit(12), &a, &b, &c, NULL));
	a.length = b.length = c.length = 1024;
	b.offset = 2;
	T_REFUSED("b: offset 2 is not a multiple of 4",
		  qpu_vector_add(kernels, fit(12), &a, &b, &c, NULL));
	b.offset = 0;
	c.offset = 64;
	T_REFUSED("c: needs 4096 bytes from offset 64, the buffer has 4096",
		  qpu_vector_add(kernels, fit(12), &a, &b, &c, NULL));
	c.offset = 0;
	c.bo = NULL;
	T_REFUSED("c: no buffer", qpu_vector_add(kernels, fit(12), &a, &b, &c, NULL));
	c.bo = x;
	T_REFUSED("QPUs, the device has",
		  qpu_vector_add(kernels, dev_qpus + 1, &a, &b, &c, NULL));
	T_REFUSED("asked for 0 QPUs", qpu_vector_add(kernels, 0, &a, &b, &c, NULL));
	qpu_bo_free(x);
	qpu_bo_free(y);
}

T_TEST(bad_saxpy)
{
	struct qpu_bo *x = qpu_bo_new(dev, 4096), *y = qpu_bo_new(dev, 8192);
	struct qpu_vector vx = { x, 0, 1024 }, vy = { y, 4096, 1024 };

	T_CHECK(x && y);
	T_EQ_U64(0, qpu_saxpy(kernels, 3, 2.0f, &vx, &vy, NULL));
	T_REFUSED("x: no vector", qpu_saxpy(kernels, 3, 2.0f, NULL, &vy, NULL));
	T_REFUSED("y: no vector", qpu_saxpy(kernels, 3, 2.0f, &vx, NULL, NULL));
	vy.length = 512;
	T_REFUSED("y: has 512 elements, expected 1024",
		  qpu_saxpy(kernels, 3, 2.0f, &vx, &vy, NULL));
	vx.length = vy.length = 24;
	T_REFUSED("x: 24 elements; the kernel takes a positive multiple of 16",
		  qpu_saxpy(kernels, 3, 2.0f, &vx, &vy, NULL));
	vx.length = vy.length = 1024;
	vy.offset = 4097;
	T_REFUSED("y: offset 4097 is not a multiple of 4",
		  qpu_saxpy(kernels, 3, 2.0f, &vx, &vy, NULL));
	vy.offset = 4100;
	T_REFUSED("y: needs 4096 bytes from offset 4100, the buffer has 8192",
		  qpu_saxpy(kernels, 3, 2.0f, &vx, &vy, NULL));
	vy.offset = 0;
	T_REFUSED("asked for 40 QPUs", qpu_saxpy(kernels, 40, 2.0f, &vx, &vy, NULL));
	qpu_bo_free(x);
	qpu_bo_free(y);
}

T_TEST(bad_reduce)
{
	struct qpu_bo *x = qpu_bo_new(dev, 4096);
	struct qpu_vector vx = { x, 0, 1024 };
	struct qpu_reduce_result res;

	T_CHECK(x != NULL);
	T_EQ_U64(0, qpu_reduce(kernels, fit(12), &vx, &res, NULL));
	T_CHECK(res.sum == 0 && res.min == 0 && res.max == 0);
	T_REFUSED("x: no vector", qpu_reduce(kernels, fit(12), NULL, &res, NULL));
	T_REFUSED("no place for the result", qpu_reduce(kernels, fit(12), &vx, NULL, NULL));
	vx.length = 1025;
	T_REFUSED("x: 1025 elements; the kernel takes a positive multiple of 16",
		  qpu_reduce(kernels, fit(12), &vx, &res, NULL));
	vx.length = 1040;
	T_REFUSED("x: needs 4160 bytes from offset 0, the buffer has 4096",
		  qpu_reduce(kernels, fit(12), &vx, &res, NULL));
	vx.length = 1024;
	vx.offset = 16;
	T_REFUSED("x: needs 4096 bytes from offset 16, the buffer has 4096",
		  qpu_reduce(kernels, fit(12), &vx, &res, NULL));
	vx.offset = 0;
	T_REFUSED("QPUs, the device has", qpu_reduce(kernels, dev_qpus + 1, &vx, &res, NULL));
	qpu_bo_free(x);
}

T_TEST(bad_pixels)
{
	struct qpu_bo *x = qpu_bo_new(dev, 3 * 4096), *y = qpu_bo_new(dev, 4096);
	struct qpu_image rgb = { x, 0, 64, 64, 192 }, g = { y, 0, 64, 64, 64 };
	struct qpu_image t = g;

	T_CHECK(x && y);
	T_EQ_U64(0, qpu_rgb_to_gray(kernels, fit(12), &rgb, &g, NULL));
	T_REFUSED("rgb: no image", qpu_rgb_to_gray(kernels, fit(12), NULL, &g, NULL));
	T_REFUSED("gray: no image", qpu_rgb_to_gray(kernels, fit(12), &rgb, NULL, NULL));
	rgb.width = rgb.height = 63;
	T_REFUSED("rgb: 63x63 is 3969 pixels; the kernel takes a positive multiple of 64",
		  qpu_rgb_to_gray(kernels, fit(12), &rgb, &g, NULL));
	rgb.width = rgb.height = 64;
	rgb.stride = 256;
	T_REFUSED("rgb: rows must be packed: stride 256, expected 192",
		  qpu_rgb_to_gray(kernels, fit(12), &rgb, &g, NULL));
	rgb.stride = 192;
	g.width = 32;
	g.stride = 32;
	T_REFUSED("gray is 32x64, rgb is 64x64",
		  qpu_rgb_to_gray(kernels, fit(12), &rgb, &g, NULL));
	g.width = 64;
	g.stride = 64;
	rgb.offset = 6;
	T_REFUSED("rgb: offset 6 is not a multiple of 4",
		  qpu_rgb_to_gray(kernels, fit(12), &rgb, &g, NULL));
	rgb.offset = 8;
	T_REFUSED("rgb: needs 12288 bytes from offset 8, the buffer has 12288",
		  qpu_rgb_to_gray(kernels, fit(12), &rgb, &g, NULL));
	rgb.offset = 0;
	rgb.height = g.height = 0;
	T_REFUSED("rgb: 64x0 is 0 pixels",
		  qpu_rgb_to_gray(kernels, fit(12), &rgb, &g, NULL));
	rgb.height = g.height = 64;
	T_REFUSED("asked for 99 QPUs", qpu_rgb_to_gray(kernels, 99, &rgb, &g, NULL));

	T_EQ_U64(0, qpu_threshold(kernels, fit(12), &t, &t, 10, 255, NULL));
	T_REFUSED("in: no image", qpu_threshold(kernels, fit(12), NULL, &t, 10, 255, NULL));
	T_REFUSED("out: rows must be packed: stride 192, expected 64",
		  qpu_threshold(kernels, fit(12), &t, &rgb, 10, 255, NULL));
	t.height = 65;
	T_REFUSED("in: needs 4160 bytes from offset 0, the buffer has 4096",
		  qpu_threshold(kernels, fit(12), &t, &g, 10, 255, NULL));
	t.height = 64;
	t.width = t.stride = 16;
	T_REFUSED("out is 64x64, in is 16x64",
		  qpu_threshold(kernels, fit(12), &t, &g, 10, 255, NULL));
	t.width = t.stride = 64;
	T_REFUSED("QPUs, the device has",
		  qpu_threshold(kernels, dev_qpus + 1, &t, &g, 10, 255, NULL));
	qpu_bo_free(x);
	qpu_bo_free(y);
}

T_TEST(bad_yuv)
{
	static const float mean[3] = { 0.5f, 0.5f, 0.5f };
	float std[3] = { 0.25f, 0.25f, 0.25f };
	struct qpu_bo *x = qpu_bo_new(dev, 4096), *y = qpu_bo_new(dev, 8192);
	/* 64x32: Y 2048 bytes, U and V 512 each */
	struct qpu_yuv420 s = {
		.bo = x, .y_offset = 0, .u_offset = 2048, .v_offset = 2560,
		.width = 64, .height = 32, .y_stride = 64, .uv_stride = 32,
	};
	struct qpu_planar_rgb d = { .bo = y, .offset = 0, .width = 32,
				    .height = 16 };

	T_CHECK(x && y);
	T_EQ_U64(runs_here("yuv420_to_rgb") ? 0 : (uint64_t)-ENOTSUP,
		 qpu_yuv420_to_rgb(kernels, fit(12), &s, &d, mean, std, NULL));
	T_REFUSED("src: no image", qpu_yuv420_to_rgb(kernels, fit(12), NULL, &d, mean, std, NULL));
	T_REFUSED("dst: no image", qpu_yuv420_to_rgb(kernels, fit(12), &s, NULL, mean, std, NULL));
	T_REFUSED("no mean or std", qpu_yuv420_to_rgb(kernels, fit(12), &s, &d, NULL, std, NULL));
	s.width = 63;
	T_REFUSED("src: 63x32; needs even sides",
		  qpu_yuv420_to_rgb(kernels, fit(12), &s, &d, mean, std, NULL));
	s.width = 64;
	d.width = 40;
	T_REFUSED("dst: 40x16; needs a width that is a multiple of 16",
		  qpu_yuv420_to_rgb(kernels, fit(12), &s, &d, mean, std, NULL));
	d.width = 32;
	d.height = 0;
	T_REFUSED("dst: 32x0", qpu_yuv420_to_rgb(kernels, fit(12), &s, &d, mean, std, NULL));
	d.height = 16;
	std[1] = 0;
	T_REFUSED("channel 1: mean 0.5, std 0",
		  qpu_yuv420_to_rgb(kernels, fit(12), &s, &d, mean, std, NULL));
	std[1] = 0.25f;
	s.y_stride = 60;
	T_REFUSED("src Y: stride 60, needs 64",
		  qpu_yuv420_to_rgb(kernels, fit(12), &s, &d, mean, std, NULL));
	s.y_stride = 64;
	s.v_offset = 3600;
	T_REFUSED("src V: needs 512 bytes from offset 3600, the buffer has 4096",
		  qpu_yuv420_to_rgb(kernels, fit(12), &s, &d, mean, std, NULL));
	s.v_offset = 2560;
	d.offset = 2;
	T_REFUSED("dst: offset 2 is not a multiple of 4",
		  qpu_yuv420_to_rgb(kernels, fit(12), &s, &d, mean, std, NULL));
	d.offset = 2048 + 4;
	T_REFUSED("dst: needs 6144 bytes from offset 2052, the buffer has 8192",
		  qpu_yuv420_to_rgb(kernels, fit(12), &s, &d, mean, std, NULL));
	d.offset = 0;
	d.width = 16;
	d.height = 16;
	s.width = 4096;
	T_REFUSED("4096x32 to 16x16: shrinks by 256 or more",
		  qpu_yuv420_to_rgb(kernels, fit(12), &s, &d, mean, std, NULL));
	s.width = 4094;
	T_REFUSED("src Y: stride 64, needs 4094",
		  qpu_yuv420_to_rgb(kernels, fit(12), &s, &d, mean, std, NULL));
	s.width = 64;
	T_REFUSED("QPUs, the device has",
		  qpu_yuv420_to_rgb(kernels, dev_qpus + 2, &s, &d, mean, std, NULL));
	qpu_bo_free(x);
	qpu_bo_free(y);
}

/*
 * The helpers' two sides agree: the words the include files of libqpu/qasm
 * make (through the assembler's functions) are those qpu_vpm.h makes in C.
 */
T_TEST(helpers_agree)
{
	static const char prog[] =
		".include \"vpm.qinc\"\n"
		".include \"dma.qinc\"\n"
		"vpm_wr_setup h32(5), 1\n"
		"vpm_rd_setup 4, v32(16, 3), 2\n"
		"vpm_wr_setup h16p(7, 1), 1\n"
		"vpm_rd_setup 16, h8l(9, 2), 1\n"
		"vpm_wr_setup v8p(32, 4, 3), 16\n"
		"dma_st_setup 16, 16, dma_h32(16, 0)\n"
		"dma_st_setup 4, 8, dma_v16p(40, 2, 1)\n"
		"dma_st_stride 64\n"
		"dma_ld_setup 0, 16, 16, vdr_h32(1, 0, 0)\n"
		"dma_ld_setup 3, 8, 4, vdr_v8p(2, 20, 5, 3)\n"
		"dma_ld_stride 128\n";
	const uint32_t want[] = {
		qpu_vpm_setup(0, 1, qpu_vpm_addr(true, false, QPU_VPM_SIZE_32, 5, 0, 0)),
		qpu_vpm_setup(4, 2, qpu_vpm_addr(false, false, QPU_VPM_SIZE_32, 16, 3, 0)),
		qpu_vpm_setup(0, 1, qpu_vpm_addr(true, false, QPU_VPM_SIZE_16, 7, 0, 1)),
		qpu_vpm_setup(16, 1, qpu_vpm_addr(true, true, QPU_VPM_SIZE_8, 9, 0, 2)),
		qpu_vpm_setup(0, 16, qpu_vpm_addr(false, false, QPU_VPM_SIZE_8, 32, 4, 3)),
		qpu_vdw_setup0(16, 16, qpu_vdw_dma(true, QPU_VPM_SIZE_32, 16, 0, 0)),
		qpu_vdw_setup0(4, 8, qpu_vdw_dma(false, QPU_VPM_SIZE_16, 40, 2, 1)),
		qpu_vdw_setup1(64),
		qpu_vdr_setup0(0, 16, 16, qpu_vdr_dma(true, QPU_VPM_SIZE_32, 1, 0, 0, 0)),
		qpu_vdr_setup0(3, 8, 4, qpu_vdr_dma(false, QPU_VPM_SIZE_8, 2, 20, 5, 3)),
		qpu_vdr_setup1(128),
	};
	const char *data = getenv("QPU_TEST_DATA");
	const uint64_t *words;
	struct qpu_asm *as;
	char dir[4096];
	size_t i, n;

	if (!data)
		T_SKIP("QPU_TEST_DATA unset: no source tree (the VM)");
	snprintf(dir, sizeof(dir), "%s/../../../libqpu/qasm", data);
	as = qpu_asm_new();
	T_CHECK(as != NULL);
	if (!as)
		return;
	T_EQ_U64(0, qpu_asm_add_include_dir(as, dir));
	T_EQ_U64(0, qpu_asm_string(as, "helpers", prog));
	n = qpu_asm_words(as, &words);
	T_EQ_U64(T_ARRAY_SIZE(want), n);
	for (i = 0; i < n && i < T_ARRAY_SIZE(want); i++)
		T_EQ_U64(want[i], (uint32_t)words[i]);
	qpu_asm_free(as);
}

/*
 * The device keeps code and a scratch buffer between calls: dropping them
 * at any point (twice, on no device) leaves every kernel working, and a
 * scratch left dirty by a large call does not leak into a smaller one.
 */
/*
 * Live buffers of qpu.ko's device node "qpu" (its debugfs stats, as in the
 * VM), or -1 on another device or without debugfs.
 */
static long long live_bos(void)
{
	long long n = -1, v;
	char key[64];
	FILE *f;

	if (strcmp(qpu_dev_get_path(dev), "/dev/qpu"))
		return -1;
	f = fopen("/sys/kernel/debug/qpu/qpu/stats", "r");
	if (!f)
		return -1;
	while (fscanf(f, "%63[^:]: %lld\n", key, &v) == 2)
		if (!strcmp(key, "bo_count"))
			n = v;
	fclose(f);
	return n;
}

T_TEST(cache)
{
	long long base;
	size_t i;

	/*
	 * Where the device's buffers can be counted: a call leaves its code
	 * and the scratch buffer, a second call adds none, a drop frees both.
	 */
	qpu_kernels_drop_cache(kernels);
	base = live_bos();
	if (base >= 0) {
		check_case(&kcases[0], fit(12), kcases[0].small, NULL);
		T_EQ_U64(base + 2, live_bos());
		check_case(&kcases[0], fit(12), kcases[0].small, NULL);
		T_EQ_U64(base + 2, live_bos());
		qpu_kernels_drop_cache(kernels);
		T_EQ_U64(base, live_bos());
	}

	qpu_kernels_drop_cache(NULL);
	for (i = 0; i < kcase_count; i++) {
		if (!runs_here(kcases[i].kernel))
			continue;
		check_case(&kcases[i], fit(12), 0, NULL);
		qpu_kernels_drop_cache(kernels);
		qpu_kernels_drop_cache(kernels);
		check_case(&kcases[i], fit(12), kcases[i].small, NULL);
	}
	/* leave a filled cache for qpu_kernels_free() to free */
	for (i = kcase_count; i-- > 0;)
		if (runs_here(kcases[i].kernel))
			check_case(&kcases[i], 3, kcases[i].small, NULL);
}

/*
 * Each struct qpu_kernels has its own last error and cache: a call on one
 * leaves the other's message alone (the thread's message of 0.1 did not),
 * and freeing one gives back its buffers only.
 */
T_TEST(objects)
{
	struct qpu_bo *x = qpu_bo_new(dev, 4096);
	struct qpu_vector a = { x, 0, 16 }, bad = { x, 0, 17 };
	struct qpu_kernels *other = qpu_kernels_new(dev);
	long long base;

	T_CHECK(other != NULL);
	if (!other || !x) {
		qpu_bo_free(x);
		return;
	}
	T_CHECK(qpu_kernels_get_dev(other) == dev);
	T_EQ_STR("", qpu_kernels_last_error(other));
	T_EQ_U64(-EINVAL, qpu_vector_add(other, 1, &bad, &bad, &bad, NULL));
	T_CHECK(strstr(qpu_kernels_last_error(other), "17 elements") != NULL);
	T_EQ_U64(0, qpu_vector_add(kernels, 1, &a, &a, &a, NULL));
	T_EQ_STR("", qpu_kernels_last_error(kernels));
	T_CHECK(strstr(qpu_kernels_last_error(other), "17 elements") != NULL);
	T_EQ_U64(0, qpu_vector_add(other, 1, &a, &a, &a, NULL));
	T_EQ_STR("", qpu_kernels_last_error(other));

	base = live_bos();
	qpu_kernels_free(other);	/* its code and scratch buffer */
	if (base >= 0)
		T_EQ_U64(base - 2, live_bos());
	qpu_kernels_free(NULL);
	qpu_bo_free(x);

	errno = 0;
	T_CHECK(qpu_kernels_new(NULL) == NULL);
	T_EQ_U64(EINVAL, errno);
}

/* --- qpu_preprocess() ----------------------------------------------------- */

#define PC(fmt, w, h, dw, dh, lay, ty, fl) \
	{ .format = QPU_PIX_##fmt, .width = (w), .height = (h), .dst_width = (dw), \
	  .dst_height = (dh), .layout = QPU_TENSOR_##lay, .type = QPU_TENSOR_##ty, \
	  .flags = (fl) }
#define LB	QPU_PREPROCESS_LETTERBOX
#define BGR	QPU_PREPROCESS_BGR

/*
 * Every format, both layouts, every type, shrinking and growing, odd
 * tensor sizes (the tail of a 16-pixel vector), letterbox bands on either
 * side, BGR, the limited-range conversions; small, so the default run
 * stays short (the 1080p row is make bench's).
 */
static const struct pcase pcases[] = {
	PC(NV12, 38, 22, 20, 14, NCHW, F32, 0),
	PC(NV12, 38, 22, 17, 9, NHWC, F32, 0),
	PC(NV12, 20, 12, 33, 19, NCHW, F32, LB),
	PC(NV12, 40, 10, 16, 16, NHWC, U8, LB | BGR),
	PC(NV12, 12, 30, 21, 16, NCHW, I8, LB),
	PC(I420, 38, 22, 20, 14, NCHW, F32, 0),
	PC(I420, 26, 18, 18, 7, NHWC, I8, BGR),
	PC(I420, 18, 26, 24, 24, NCHW, U8, LB),
	PC(YUYV, 38, 22, 20, 14, NCHW, F32, 0),
	PC(YUYV, 30, 15, 31, 3, NHWC, F32, LB),
	PC(YUYV, 22, 9, 16, 16, NCHW, U8, 0),
	PC(RGB888, 37, 21, 20, 14, NCHW, F32, 0),
	PC(RGB888, 23, 13, 16, 1, NHWC, U8, BGR),
	PC(RGB888, 9, 31, 1, 17, NHWC, I8, LB),
	PC(NV12, 24, 8, 40, 2, NHWC, F32, 0),		/* 12 QPUs, 2 rows */
	PC(I420, 64, 36, 37, 21, NCHW, U8, LB),
	PC(RGB888, 40, 30, 35, 5, NCHW, I8, BGR),
};

T_TEST(preprocess)
{
	static const unsigned int qpus[] = { 1, 3, 12 };
	struct pcase c;
	struct pcase_report r;
	char name[96], m[420];
	size_t i;
	int ret;

	for (i = 0; i < sizeof(pcases) / sizeof(pcases[0]); i++) {
		c = pcases[i];
		c.colorspace = (enum qpu_colorspace)(i % 3);
		if (i % 4 == 1)		/* an odd crop off the middle */
			c.crop = (struct qpu_rect){ 3, 1, c.width - 5, c.height - 4 };
		pcase_name(&c, name, sizeof(name));
		ret = pcase_run(kernels, fit(qpus[i % 3]), &c, (unsigned int)i, &r);
		t_checks++;
		if (ret || !r.ok) {
			snprintf(m, sizeof(m), "%s: %s", name, r.msg);
			t_report(__FILE__, __LINE__, m);
		}
	}
}

/* What qpu_preprocess() and qpu_preprocess_cpu() refuse, with the message. */
T_TEST(bad_preprocess)
{
	struct qpu_bo *x = qpu_bo_new(dev, 4096), *y = qpu_bo_new(dev, 8192);
	/* NV12 64x32: Y 2048 bytes, UV 1024 */
	struct qpu_preprocess p = {
		.src = { .bo = x, .format = QPU_PIX_NV12, .width = 64, .height = 32,
			 .offset = { 0, 2048 }, .stride = { 64, 64 } },
		.dst_bo = y, .dst_width = 16, .dst_height = 8,
		.mean = { 0.5f, 0.5f, 0.5f }, .std = { 0.25f, 0.25f, 0.25f },
	};
	struct qpu_preprocess q;
	struct qpu_rect area;

	T_CHECK(x && y);
	T_EQ_U64(0, (uint64_t)qpu_preprocess(kernels, fit(12), &p, NULL));
	T_EQ_U64(0, (uint64_t)qpu_preprocess_cpu(kernels, &p));

#define BAD(needle, field, value) do {						\
	q = p;									\
	q.field = value;							\
	T_REFUSED(needle, qpu_preprocess(kernels, fit(12), &q, NULL));		\
	T_REFUSED(needle, qpu_preprocess_cpu(kernels, &q));			\
} while (0)
	T_REFUSED("no call description", qpu_preprocess(kernels, 1, NULL, NULL));
	T_EQ_U64((uint64_t)-EINVAL, (uint64_t)qpu_preprocess_cpu(NULL, NULL));
	BAD("pixel format 9: not NV12, I420, YUYV or RGB888", src.format, 9);
	BAD("pixel format 0", src.format, 0);
	BAD("src: 63x32: NV12 needs an even width and height", src.width, 63);
	BAD("src: 64x31: NV12 needs an even width and height", src.height, 31);
	BAD("src: 0x32; sides of 1 to 4096", src.width, 0);
	BAD("src: no buffer", src.bo, NULL);
	BAD("crop 65x32 at (0, 0) is outside the 64x32 frame", crop,
	    ((struct qpu_rect){ 0, 0, 65, 32 }));
	BAD("crop 2x2 at (63, 0) is outside", crop, ((struct qpu_rect){ 63, 0, 2, 2 }));
	BAD("crop 2x2 at (0, 32) is outside", crop, ((struct qpu_rect){ 0, 32, 2, 2 }));
	BAD("dst: 0x8; sides of 1 to 4096", dst_width, 0);
	BAD("dst: 16x4097", dst_height, 4097);
	BAD("dst: no buffer", dst_bo, NULL);
	BAD("dst: needs 1536 bytes from offset 7000", dst_offset, 7000);
	BAD("dst: offset 2 is not a multiple of 4", dst_offset, 2);
	BAD("layout 2: not NCHW or NHWC", layout, 2);
	BAD("type 3: not F32, U8 or I8", type, 3);
	BAD("colorspace 3: unknown", colorspace, 3);
	BAD("flags 0x4: unknown bits", flags, 4);
	BAD("channel 2: mean 0.5, std 0", std[2], 0);
	BAD("channel 0: mean inf", mean[0], 1.0f / 0.0f);
	BAD("src plane 0: stride 63, needs 64", src.stride[0], 63);
	BAD("src plane 1: stride 16777216", src.stride[1], 1 << 24);
	BAD("src plane 1: needs 1024 bytes from offset 3600, the buffer has 4096",
	    src.offset[1], 3600);
	q = p;
	q.flags = QPU_PREPROCESS_LETTERBOX;
	q.pad = 256;
	T_REFUSED("pad 256: needs 0 to 255", qpu_preprocess(kernels, fit(12), &q, NULL));
	q = p;
	q.type = QPU_TENSOR_U8;
	q.scale = 0;
	T_REFUSED("scale 0: needs a finite value above 0", qpu_preprocess_cpu(kernels, &q));
	q.scale = 0.02f;
	q.zero_point = 256;
	T_REFUSED("zero point 256: needs 0 to 255", qpu_preprocess(kernels, fit(12), &q, NULL));
	q.type = QPU_TENSOR_I8;
	q.zero_point = -129;
	T_REFUSED("zero point -129: needs -128 to 127", qpu_preprocess(kernels, fit(12), &q, NULL));
	q = p;
	q.src.format = QPU_PIX_YUYV;
	q.src.width = 31;
	q.src.height = 15;
	q.src.stride[0] = 62;
	T_REFUSED("src: 31x15: YUYV needs an even width", qpu_preprocess(kernels, fit(12), &q, NULL));
	q.src.format = QPU_PIX_RGB888;
	q.src.stride[0] = 92;
	T_REFUSED("src plane 0: stride 92, needs 93", qpu_preprocess(kernels, fit(12), &q, NULL));
	q = p;
	q.src.width = 4096;
	q.src.stride[0] = q.src.stride[1] = 4096;
	q.dst_width = 16;
	T_REFUSED("width: 4096 to 16 shrinks by 256 or more",
		  qpu_preprocess(kernels, fit(12), &q, NULL));
	T_REFUSED("QPUs, the device has", qpu_preprocess(kernels, dev_qpus + 2, &p, NULL));
	/* the letterbox area: a 2:1 crop in a square tensor: bands above and below */
	q = p;
	q.flags = QPU_PREPROCESS_LETTERBOX;
	q.dst_width = q.dst_height = 20;
	T_EQ_U64(0, (uint64_t)qpu_preprocess_placement(&q, &area));
	T_EQ_U64(0, area.x);
	T_EQ_U64(5, area.y);
	T_EQ_U64(20, area.width);
	T_EQ_U64(10, area.height);
	q.flags = 0;
	T_EQ_U64(0, (uint64_t)qpu_preprocess_placement(&q, &area));
	T_EQ_U64(20, area.height);
	q.src.width = 3;
	T_EQ_U64((uint64_t)-EINVAL, (uint64_t)qpu_preprocess_placement(&q, &area));
	T_EQ_U64((uint64_t)-EINVAL, (uint64_t)qpu_preprocess_placement(NULL, &area));
#undef BAD
	qpu_bo_free(x);
	qpu_bo_free(y);
}

static const char *device_path = "emu:strict-vpm";

T_KERNELS_OPTIONS(device_path);

static int open_kernels(void)
{
	uint64_t v;
	int ret = t_open_kernels(device_path, T_EXIT_FAIL, &dev, &kernels);

	if (ret != T_EXIT_PASS)
		return ret;
	/*
	 * The emulator and qpu.ko's simulated V3D measure a timeout in
	 * instructions and report their count; hardware and the v3d uapi
	 * (its simulated node too) give neither.
	 */
	counts_instructions =
		qpu_dev_get_param(dev, QPU_DEV_PARAM_INSTRUCTIONS_PER_MS, &v) == 0 &&
		v > 0;
	if (qpu_dev_get_param(dev, QPU_DEV_PARAM_GEN, &v) == 0)
		v3d = qpu_gen_is_v3d((int)v);
	dev_qpus = qpu_dev_get_param(dev, QPU_DEV_PARAM_NUM_QPUS, &v) == 0 ?
		   (unsigned int)v : 12;
	max_qpus = dev_qpus < 12 ? dev_qpus : 12;
	emulated = strstr(qpu_dev_describe(dev), "emulator") != NULL;
	return T_EXIT_PASS;
}

static void close_kernels(void)
{
	t_close_kernels(dev, kernels);
}

T_MAIN(.setup = open_kernels, .teardown = close_kernels, .options = options)
