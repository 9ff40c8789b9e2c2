// SPDX-License-Identifier: MIT
/*
 * The cases of kernel-cases.h: every sample kernel of libqpu on made-up
 * data, checked against the CPU in double precision.
 */

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <qpu.h>
#include <qpu_kernels.h>

#include "kernel-cases.h"

static uint64_t kcase_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

/* Uniform in [lo, hi), normal floats only. */
static float kcase_randf(uint64_t *s, float lo, float hi)
{
	return lo + (hi - lo) * (float)(kcase_rand(s) >> 40) / (float)(1 << 24);
}

static void kcase_fail(struct kcase_report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

bool kcase_time_cpu;

/* What the CPU versions computed, kept so the compiler keeps their work. */
static volatile double kcase_cpu_sink;

static uint64_t kcase_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A host buffer for a CPU version's result, its pages touched: no faults timed. */
static void *kcase_cpu_buf(size_t size)
{
	void *p = malloc(size);

	if (p)
		memset(p, 0, size);
	return p;
}

/* Start the CPU's version of a case: its start time, 0 when not timed. */
static uint64_t kcase_cpu_begin(void)
{
	return kcase_time_cpu ? kcase_now_ns() : 0;
}

/* End it: its time into @r, @check (a value of its result) into the sink. */
static void kcase_cpu_end(struct kcase_report *r, uint64_t t0, double check)
{
	r->cpu_ns = kcase_now_ns() - t0;
	kcase_cpu_sink = check;
}

static void kcase_fail(struct kcase_report *r, const char *fmt, ...)
{
	va_list ap;

	if (!r->ok)
		return;		/* keep the first */
	r->ok = false;
	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
}

/* One unit in the last place of a float of magnitude @x (at least FLT_MIN). */
static double kcase_ulp(double x)
{
	int e;

	x = fabs(x);
	if (x < FLT_MIN)
		return FLT_MIN;
	frexp(x, &e);
	return ldexp(1.0, e - 24);
}

/* Buffers of a case, freed together. */
struct kcase_bufs {
	struct qpu_bo *bo[4];
	unsigned int n;
};

static struct qpu_bo *kcase_bo(struct qpu_kernels *kernels, struct kcase_bufs *b,
			       size_t size, struct kcase_report *r)
{
	struct qpu_bo *bo = qpu_bo_new(qpu_kernels_get_dev(kernels), size ? size : 1);

	if (!bo)
		kcase_fail(r, "qpu_bo_new(%zu): %s", size, strerror(errno));
	else
		b->bo[b->n++] = bo;
	return bo;
}

static void kcase_free(struct kcase_bufs *b)
{
	while (b->n)
		qpu_bo_free(b->bo[--b->n]);
}

/* Run the wrapper's return value into the report. */
static int kcase_ran(struct qpu_kernels *kernels, struct kcase_report *r,
		     int ret)
{
	if (ret)
		kcase_fail(r, "%s", qpu_kernels_last_error(kernels));
	return ret;
}

/* --- vector add ----------------------------------------------------------- */

static int kcase_vector_add(struct qpu_kernels *kernels, unsigned int qpus,
			    size_t n, struct kcase_report *r)
{
	struct kcase_bufs b = { .n = 0 };
	struct qpu_vector va, vb, vc;
	uint64_t seed = 0x5eed0001 + n;
	float *a, *bv, *c;
	size_t i;
	int ret;

	n = n ? n : 1 << 16;
	snprintf(r->size, sizeof(r->size), "%zu", n);
	r->ok = true;
	va = (struct qpu_vector){ kcase_bo(kernels, &b, n * 4, r), 0, n };
	vb = (struct qpu_vector){ kcase_bo(kernels, &b, n * 4, r), 0, n };
	vc = (struct qpu_vector){ kcase_bo(kernels, &b, n * 4, r), 0, n };
	if (!r->ok) {
		kcase_free(&b);
		return -ENOMEM;
	}
	a = qpu_bo_get_map(va.bo);
	bv = qpu_bo_get_map(vb.bo);
	c = qpu_bo_get_map(vc.bo);
	for (i = 0; i < n; i++) {
		a[i] = kcase_randf(&seed, -1000.0f, 1000.0f);
		bv[i] = kcase_randf(&seed, -1.0f, 1.0f);
	}
	if (kcase_time_cpu) {
		float *cpu = kcase_cpu_buf(n * 4);
		uint64_t t0 = kcase_cpu_begin();

		for (i = 0; cpu && i < n; i++)
			cpu[i] = a[i] + bv[i];
		kcase_cpu_end(r, t0, cpu ? cpu[n / 2] : 0);
		free(cpu);
	}
	ret = kcase_ran(kernels, r, qpu_vector_add(kernels, qpus, &va, &vb, &vc, &r->stats));
	for (i = 0; !ret && i < n; i++) {
		double exact = (double)a[i] + bv[i];

		if (fabs(c[i] - exact) > kcase_ulp(exact)) {
			kcase_fail(r, "c[%zu] = %.9g, expected %.9g", i, c[i], exact);
			break;
		}
	}
	kcase_free(&b);
	return ret;
}

/* --- saxpy ---------------------------------------------------------------- */

static int kcase_saxpy(struct qpu_kernels *kernels, unsigned int qpus,
		       size_t n, struct kcase_report *r)
{
	struct kcase_bufs b = { .n = 0 };
	struct qpu_vector vx, vy;
	uint64_t seed = 0x5eed0002 + n;
	const float alpha = -2.7182817f;
	float *x, *y, *y0;
	size_t i;
	int ret;

	n = n ? n : 1 << 16;
	snprintf(r->size, sizeof(r->size), "%zu", n);
	r->ok = true;
	vx = (struct qpu_vector){ kcase_bo(kernels, &b, n * 4, r), 0, n };
	vy = (struct qpu_vector){ kcase_bo(kernels, &b, n * 4, r), 0, n };
	y0 = malloc(n * 4);
	if (!r->ok || !y0) {
		free(y0);
		kcase_free(&b);
		return -ENOMEM;
	}
	x = qpu_bo_get_map(vx.bo);
	y = qpu_bo_get_map(vy.bo);
	for (i = 0; i < n; i++) {
		x[i] = kcase_randf(&seed, -100.0f, 100.0f);
		y0[i] = y[i] = kcase_randf(&seed, -100.0f, 100.0f);
	}
	if (kcase_time_cpu) {
		float *cpu = kcase_cpu_buf(n * 4);
		uint64_t t0 = kcase_cpu_begin();

		for (i = 0; cpu && i < n; i++)
			cpu[i] = alpha * x[i] + y0[i];
		kcase_cpu_end(r, t0, cpu ? cpu[n / 2] : 0);
		free(cpu);
	}
	ret = kcase_ran(kernels, r, qpu_saxpy(kernels, qpus, alpha, &vx, &vy, &r->stats));
	for (i = 0; !ret && i < n; i++) {
		double p = (double)alpha * x[i], exact = p + y0[i];

		/* one rounding of the product, one of the sum */
		if (fabs(y[i] - exact) > kcase_ulp(p) + kcase_ulp(exact)) {
			kcase_fail(r, "y[%zu] = %.9g, expected %.9g", i, y[i], exact);
			break;
		}
	}
	free(y0);
	kcase_free(&b);
	return ret;
}

/* --- sum, min, max -------------------------------------------------------- */

static int kcase_reduce(struct qpu_kernels *kernels, unsigned int qpus,
			size_t n, struct kcase_report *r)
{
	struct kcase_bufs b = { .n = 0 };
	struct qpu_reduce_result res;
	struct qpu_vector vx;
	uint64_t seed = 0x5eed0003 + n;
	double sum = 0, mag = 0;
	size_t depth;
	float *x, mn = INFINITY, mx = -INFINITY;
	size_t i;
	int ret;

	n = n ? n : 1 << 16;
	snprintf(r->size, sizeof(r->size), "%zu", n);
	r->ok = true;
	vx = (struct qpu_vector){ kcase_bo(kernels, &b, n * 4, r), 0, n };
	if (!r->ok) {
		kcase_free(&b);
		return -ENOMEM;
	}
	x = qpu_bo_get_map(vx.bo);
	for (i = 0; i < n; i++) {
		x[i] = kcase_randf(&seed, -50.0f, 60.0f);
		sum += x[i];
		mag += fabs(x[i]);
		mn = x[i] < mn ? x[i] : mn;
		mx = x[i] > mx ? x[i] : mx;
	}
	if (kcase_time_cpu) {
		uint64_t t0 = kcase_cpu_begin();
		float s = 0, lo = INFINITY, hi = -INFINITY;

		for (i = 0; i < n; i++) {
			s += x[i];
			lo = x[i] < lo ? x[i] : lo;
			hi = x[i] > hi ? x[i] : hi;
		}
		kcase_cpu_end(r, t0, s + lo + hi);
	}
	ret = kcase_ran(kernels, r, qpu_reduce(kernels, qpus, &vx, &res, &r->stats));
	if (ret)
		goto out;
	/*
	 * Each lane of each QPU adds its share in a row, then the partials
	 * of all QPUs and the 16 lanes are folded: no element goes through
	 * more than depth additions, each off by at most one ulp of a
	 * partial sum, itself at most the sum of the magnitudes.
	 */
	depth = (n / 16 + qpus - 1) / qpus + qpus + 4;
	if (fabs(res.sum - sum) > (double)depth * kcase_ulp(mag))
		kcase_fail(r, "sum %.9g, expected %.9g", res.sum, sum);
	if (res.min != mn || res.max != mx)
		kcase_fail(r, "min/max %.9g/%.9g, expected %.9g/%.9g",
			   res.min, res.max, mn, mx);
out:
	kcase_free(&b);
	return ret;
}

/* --- images --------------------------------------------------------------- */

/* A w x h image of @bpp bytes a pixel in a new buffer. */
static struct qpu_image kcase_image(struct qpu_kernels *kernels,
				    struct kcase_bufs *b, unsigned int w,
				    unsigned int h, unsigned int bpp,
				    struct kcase_report *r)
{
	struct qpu_image img = {
		.bo = kcase_bo(kernels, b, (size_t)w * h * bpp, r),
		.width = w, .height = h, .stride = (size_t)w * bpp,
	};

	return img;
}

/* @scale pixels as w x h: 640x480 by default, else @scale / 64 by 64 */
static void kcase_shape(size_t scale, unsigned int *w, unsigned int *h)
{
	*w = scale ? (unsigned int)(scale / 64) : 640;
	*h = scale ? 64 : 480;
}

static int kcase_rgb_to_gray(struct qpu_kernels *kernels, unsigned int qpus,
			     size_t scale, struct kcase_report *r)
{
	struct kcase_bufs b = { .n = 0 };
	struct qpu_image rgb, gray;
	uint64_t seed = 0x5eed0004 + scale;
	unsigned int w, h;
	uint8_t *in, *out;
	size_t i, n;
	int ret;

	kcase_shape(scale, &w, &h);
	n = (size_t)w * h;
	snprintf(r->size, sizeof(r->size), "%ux%u", w, h);
	r->ok = true;
	rgb = kcase_image(kernels, &b, w, h, 3, r);
	gray = kcase_image(kernels, &b, w, h, 1, r);
	if (!r->ok) {
		kcase_free(&b);
		return -ENOMEM;
	}
	in = qpu_bo_get_map(rgb.bo);
	out = qpu_bo_get_map(gray.bo);
	for (i = 0; i < n * 3; i++)
		in[i] = (uint8_t)(kcase_rand(&seed) >> 56);
	in[0] = in[1] = in[2] = 255;	/* the extremes */
	in[3] = in[4] = in[5] = 0;
	if (kcase_time_cpu) {
		uint8_t *cpu = kcase_cpu_buf(n);
		uint64_t t0 = kcase_cpu_begin();

		for (i = 0; cpu && i < n; i++)
			cpu[i] = (uint8_t)((77 * in[3 * i] + 150 * in[3 * i + 1] +
					  29 * in[3 * i + 2] + 128) >> 8);
		kcase_cpu_end(r, t0, cpu ? cpu[n / 2] : 0);
		free(cpu);
	}
	ret = kcase_ran(kernels, r, qpu_rgb_to_gray(kernels, qpus, &rgb, &gray, &r->stats));
	for (i = 0; !ret && i < n; i++) {
		unsigned int g = (77 * in[3 * i] + 150 * in[3 * i + 1] +
				  29 * in[3 * i + 2] + 128) >> 8;

		if (out[i] != g) {
			kcase_fail(r, "pixel %zu: %u, expected %u", i, out[i], g);
			break;
		}
	}
	kcase_free(&b);
	return ret;
}

static int kcase_threshold(struct qpu_kernels *kernels, unsigned int qpus,
			   size_t scale, struct kcase_report *r)
{
	static const uint8_t ts[][2] = { { 127, 255 }, { 0, 200 }, { 254, 1 },
					 { 255, 255 } };
	struct kcase_bufs b = { .n = 0 };
	struct qpu_image in, out;
	uint64_t seed = 0x5eed0005 + scale;
	unsigned int w, h, k;
	uint8_t *x, *y;
	size_t i, n;
	int ret = 0;

	kcase_shape(scale, &w, &h);
	n = (size_t)w * h;
	snprintf(r->size, sizeof(r->size), "%ux%u", w, h);
	r->ok = true;
	in = kcase_image(kernels, &b, w, h, 1, r);
	out = kcase_image(kernels, &b, w, h, 1, r);
	if (!r->ok) {
		kcase_free(&b);
		return -ENOMEM;
	}
	x = qpu_bo_get_map(in.bo);
	y = qpu_bo_get_map(out.bo);
	for (i = 0; i < n; i++)
		x[i] = (uint8_t)(kcase_rand(&seed) >> 56);
	for (i = 0; i < 256 && i < n; i++)
		x[i] = (uint8_t)i;	/* every value */
	/*
	 * the first threshold is the one timed, run last; the others are edge
	 * cases, whose modelled time is dropped (summed in, they made the
	 * demo's threshold four jobs slow: 0.16 GB/s)
	 */
	for (k = sizeof(ts) / sizeof(ts[0]); !ret && k-- > 0;) {
		struct qpu_job_timing edge;

		if (k == 0 && kcase_time_cpu) {
			uint8_t *cpu = kcase_cpu_buf(n);
			uint64_t t0 = kcase_cpu_begin();

			for (i = 0; cpu && i < n; i++)
				cpu[i] = x[i] > ts[k][0] ? ts[k][1] : 0;
			kcase_cpu_end(r, t0, cpu ? cpu[n / 2] : 0);
			free(cpu);
		}
		if (k == 0)
			qpu_kernels_take_timing(kernels, &edge);
		ret = kcase_ran(kernels, r, qpu_threshold(kernels, qpus, &in, &out, ts[k][0],
						 ts[k][1], &r->stats));
		for (i = 0; !ret && i < n; i++) {
			unsigned int e = x[i] > ts[k][0] ? ts[k][1] : 0;

			if (y[i] != e) {
				kcase_fail(r, "t %u max %u: pixel %zu (%u): %u, expected %u",
					   ts[k][0], ts[k][1], i, x[i], y[i], e);
				break;
			}
		}
	}
	kcase_free(&b);
	return ret;
}

/* --- YUV 4:2:0 to normalised planar RGB ------------------------------------ */

static double kcase_clamp255(double v)
{
	return v < 0 ? 0 : v > 255 ? 255 : v;
}

/* The CPU's version of the conversion below, in float, timed into @r. */
static void kcase_yuv_cpu(const struct qpu_yuv420 *src, const uint8_t *yuv,
			  unsigned int dw, unsigned int dh, const float *mean,
			  const float *std, struct kcase_report *r)
{
	float *cpu = kcase_cpu_buf((size_t)dw * dh * 12), a[3], b[3];
	unsigned int x, y, c;
	uint64_t t0;

	if (!cpu)
		return;
	t0 = kcase_cpu_begin();
	for (c = 0; c < 3; c++) {
		a[c] = 1.0f / (255.0f * std[c]);
		b[c] = -mean[c] / std[c];
	}
	for (y = 0; y < dh; y++) {
		unsigned int sy = (unsigned int)((y * ((((uint64_t)src->height) << 16) / dh)) >> 16);

		for (x = 0; x < dw; x++) {
			unsigned int sx = (unsigned int)((x * ((((uint64_t)src->width) << 16) / dw)) >> 16);
			float Y = yuv[src->y_offset + sy * src->y_stride + sx];
			float U = yuv[src->u_offset + sy / 2 * src->uv_stride + sx / 2] - 128.0f;
			float V = yuv[src->v_offset + sy / 2 * src->uv_stride + sx / 2] - 128.0f;
			float rgb[3] = { Y + 1.402f * V, Y - 0.344136f * U - 0.714136f * V,
					 Y + 1.772f * U };

			for (c = 0; c < 3; c++) {
				float v = rgb[c] < 0 ? 0 : rgb[c] > 255 ? 255 : rgb[c];

				cpu[(size_t)c * dw * dh + (size_t)y * dw + x] = v * a[c] + b[c];
			}
		}
	}
	kcase_cpu_end(r, t0, cpu[(size_t)dw * dh / 2]);
	free(cpu);
}

/*
 * A 640x480 I420 frame with padded rows (or, at @scale, a
 * (scale / 16 + 6) x 34 one) to 224x224 (or scale / 16 x 20): both
 * shrinking and stretching paths of the nearest-neighbour steps.
 */
static int kcase_yuv420_to_rgb(struct qpu_kernels *kernels, unsigned int qpus,
			       size_t scale, struct kcase_report *r)
{
	static const float mean[3] = { 0.485f, 0.456f, 0.406f };
	static const float std[3] = { 0.229f, 0.224f, 0.225f };
	struct kcase_bufs b = { .n = 0 };
	struct qpu_yuv420 src;
	struct qpu_planar_rgb dst;
	uint64_t seed = 0x5eed0006 + scale;
	unsigned int sw = 640, sh = 480, dw = 224, dh = 224, x, y, c;
	uint8_t *yuv;
	float *out;
	size_t i, size;
	int ret;

	if (scale) {
		sw = (unsigned int)(scale / 16 + 6) & ~1u;
		sh = 34;
		dw = (unsigned int)(scale / 16) & ~15u;
		dh = 20;
	}
	snprintf(r->size, sizeof(r->size), "%ux%u>%ux%u", sw, sh, dw, dh);
	r->ok = true;
	src = (struct qpu_yuv420){
		.width = sw, .height = sh, .y_stride = sw + 3,
		.uv_stride = sw / 2 + 5, .y_offset = 1,
	};
	src.u_offset = src.y_offset + src.y_stride * sh + 2;
	src.v_offset = src.u_offset + src.uv_stride * (sh / 2) + 1;
	size = src.v_offset + src.uv_stride * (sh / 2);
	src.bo = kcase_bo(kernels, &b, size, r);
	dst = (struct qpu_planar_rgb){
		.bo = kcase_bo(kernels, &b, (size_t)dw * dh * 12 + 64, r),
		.offset = 64, .width = dw, .height = dh,
	};
	if (!r->ok) {
		kcase_free(&b);
		return -ENOMEM;
	}
	yuv = qpu_bo_get_map(src.bo);
	for (i = 0; i < size; i++)
		yuv[i] = (uint8_t)(kcase_rand(&seed) >> 56);
	if (kcase_time_cpu)
		kcase_yuv_cpu(&src, yuv, dw, dh, mean, std, r);
	ret = kcase_ran(kernels, r, qpu_yuv420_to_rgb(kernels, qpus, &src, &dst, mean, std,
					     &r->stats));
	out = (float *)((char *)qpu_bo_get_map(dst.bo) + dst.offset);
	for (y = 0; !ret && y < dh; y++) {
		unsigned int sy = (unsigned int)((y * ((((uint64_t)sh) << 16) / dh)) >> 16);

		for (x = 0; x < dw; x++) {
			unsigned int sx = (unsigned int)((x * ((((uint64_t)sw) << 16) / dw)) >> 16);
			double Y = yuv[src.y_offset + sy * src.y_stride + sx];
			double U = yuv[src.u_offset + sy / 2 * src.uv_stride + sx / 2] - 128.0;
			double V = yuv[src.v_offset + sy / 2 * src.uv_stride + sx / 2] - 128.0;
			double rgb[3] = {
				kcase_clamp255(Y + (double)1.402f * V),
				kcase_clamp255(Y - (double)0.344136f * U - (double)0.714136f * V),
				kcase_clamp255(Y + (double)1.772f * U),
			};

			for (c = 0; c < 3; c++) {
				float a = 1.0f / (255.0f * std[c]), bb = -mean[c] / std[c];
				double e = rgb[c] * a + bb;
				float q = out[(size_t)c * dw * dh + (size_t)y * dw + x];
				/*
				 * up to 4 roundings of values below 512 before
				 * the scale, then the multiply and the add
				 */
				double tol = fabs(a) * 4 * kcase_ulp(512) +
					kcase_ulp(255 * fabs(a)) + kcase_ulp(e);

				if (fabs(q - e) > tol) {
					kcase_fail(r, "channel %u at (%u, %u): %.9g, expected %.9g",
						   c, x, y, q, e);
					goto out;
				}
			}
		}
	}
out:
	kcase_free(&b);
	return ret;
}

/* --- sgemm ---------------------------------------------------------------- */

/* The CPU's sgemm (i, k, j loops, float), timed into @r. */
static void kcase_sgemm_cpu(const struct qpu_matrix *ma, const struct qpu_matrix *mb,
			    const struct qpu_matrix *mc, float alpha, float beta,
			    const float *pa, const float *pb, const float *c0,
			    struct kcase_report *r)
{
	size_t m = ma->rows, k = ma->cols, n = mb->cols, i, j, l;
	float *cpu = kcase_cpu_buf(m * n * 4);
	uint64_t t0;

	if (!cpu)
		return;
	t0 = kcase_cpu_begin();
	for (i = 0; i < m; i++) {
		float *row = cpu + i * n;

		for (j = 0; j < n; j++)
			row[j] = beta * c0[i * mc->stride + j];
		for (l = 0; l < k; l++) {
			float s = alpha * pa[i * ma->stride + l];

			for (j = 0; j < n; j++)
				row[j] += s * pb[l * mb->stride + j];
		}
	}
	kcase_cpu_end(r, t0, cpu[m * n / 2]);
	free(cpu);
}

/*
 * C = alpha A B + beta C, M x K by K x N: 96x363 by 363x256 by default (the
 * issue's first shape, fewer columns), else M = 20, K = 37, N = scale / 16,
 * with padded rows so the strides differ from the widths.
 */
static int kcase_sgemm(struct qpu_kernels *kernels, unsigned int qpus,
		       size_t scale, struct kcase_report *r)
{
	const float alpha = 0.75f, beta = -0.5f;
	struct kcase_bufs b = { .n = 0 };
	struct qpu_matrix ma, mb, mc;
	uint64_t seed = 0x5eed0007 + scale;
	size_t m = 96, k = 363, n = 256, i, j, l;
	float *pa, *pb, *pc, *c0;
	int ret;

	if (scale) {
		m = 20;
		k = 37;
		n = scale / 16;
	}
	snprintf(r->size, sizeof(r->size), "%zux%zux%zu", m, k, n);
	r->flop = 2.0 * m * n * k;
	r->ok = true;
	ma = (struct qpu_matrix){ kcase_bo(kernels, &b, m * (k + 3) * 4, r), 0, m, k, k + 3 };
	mb = (struct qpu_matrix){ kcase_bo(kernels, &b, k * (n + 5) * 4, r), 0, k, n, n + 5 };
	mc = (struct qpu_matrix){ kcase_bo(kernels, &b, m * (n + 16) * 4, r), 0, m, n, n + 16 };
	c0 = malloc(m * mc.stride * 4);
	if (!r->ok || !c0) {
		free(c0);
		kcase_free(&b);
		return -ENOMEM;
	}
	pa = qpu_bo_get_map(ma.bo);
	pb = qpu_bo_get_map(mb.bo);
	pc = qpu_bo_get_map(mc.bo);
	for (i = 0; i < m * ma.stride; i++)
		pa[i] = kcase_randf(&seed, -1.0f, 1.0f);
	for (i = 0; i < k * mb.stride; i++)
		pb[i] = kcase_randf(&seed, -1.0f, 1.0f);
	for (i = 0; i < m * mc.stride; i++)
		c0[i] = pc[i] = kcase_randf(&seed, -1.0f, 1.0f);
	if (kcase_time_cpu)
		kcase_sgemm_cpu(&ma, &mb, &mc, alpha, beta, pa, pb, c0, r);
	ret = kcase_ran(kernels, r, qpu_sgemm(kernels, qpus, alpha, &ma, &mb, beta, &mc,
				     &r->stats));
	for (i = 0; !ret && i < m; i++) {
		for (j = 0; j < mc.stride; j++) {
			double e = 0, mag = 0, got = pc[i * mc.stride + j];

			if (j >= n) {	/* the padding stays untouched */
				if (got != c0[i * mc.stride + j]) {
					kcase_fail(r, "padding C[%zu][%zu] changed", i, j);
					goto out;
				}
				continue;
			}
			for (l = 0; l < k; l++) {
				double p = (double)pa[i * ma.stride + l] *
					pb[l * mb.stride + j];

				e += p;
				mag += fabs(p);
			}
			e = alpha * e + beta * c0[i * mc.stride + j];
			mag = fabs(alpha) * mag + fabs(beta * c0[i * mc.stride + j]);
			/* K products and sums, the scalings: one ulp each */
			if (fabs(got - e) > (double)(k + 3) * kcase_ulp(mag)) {
				kcase_fail(r, "C[%zu][%zu] = %.9g, expected %.9g",
					   i, j, got, e);
				goto out;
			}
		}
	}
out:
	free(c0);
	kcase_free(&b);
	return ret;
}

const struct kcase kcases[] = {
	{ "vector_add", kcase_vector_add, 16 * 37, true, true },
	{ "saxpy", kcase_saxpy, 16 * 29, true, true },
	{ "reduce", kcase_reduce, 16 * 7, true, true },
	{ "rgb_to_gray", kcase_rgb_to_gray, 64 * 23, true, true },
	{ "threshold", kcase_threshold, 64 * 19, true, true },
	{ "yuv420_to_rgb", kcase_yuv420_to_rgb, 16 * 48, true, false },
	/* qpu_sgemm() submits its own job and does not report a count yet */
	{ "sgemm", kcase_sgemm, 16 * 53, false, false },
};


const size_t kcase_count = sizeof(kcases) / sizeof(kcases[0]);
