// SPDX-License-Identifier: MIT
/* qpu_preprocess() against qpu_preprocess_cpu() (preproc-cases.h). */

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "qpu.h"
#include "preproc-cases.h"

static const char *const format_names[] = {
	[QPU_PIX_NV12] = "NV12", [QPU_PIX_I420] = "I420",
	[QPU_PIX_YUYV] = "YUYV", [QPU_PIX_RGB888] = "RGB888",
};

const struct pcase pcase_bench[PCASE_BENCH_COUNT] = {
	{ .format = QPU_PIX_NV12, .width = 1920, .height = 1080, .dst_width = 320,
	  .dst_height = 320 },
	{ .format = QPU_PIX_NV12, .width = 1920, .height = 1080, .dst_width = 320,
	  .dst_height = 320, .layout = QPU_TENSOR_NHWC, .type = QPU_TENSOR_I8,
	  .flags = QPU_PREPROCESS_LETTERBOX },
};

void pcase_name(const struct pcase *c, char *buf, size_t size)
{
	static const char *const types[] = { "f32", "u8", "i8" };

	snprintf(buf, size, "%s %ux%u>%ux%u %s %s%s%s",
		 format_names[c->format], c->width, c->height, c->dst_width, c->dst_height,
		 c->layout == QPU_TENSOR_NHWC ? "NHWC" : "NCHW", types[c->type],
		 c->crop.width ? " crop" : "",
		 c->flags & QPU_PREPROCESS_LETTERBOX ? " letterbox" : "");
}

static void fail(struct pcase_report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fail(struct pcase_report *r, const char *fmt, ...)
{
	va_list ap;

	r->ok = false;
	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
}

/* Plane sizes and offsets of @c's frame, padded; returns the bytes. */
static size_t layout_frame(const struct pcase *c, struct qpu_frame *f)
{
	size_t w = c->width, h = c->height, at = 3;

	*f = (struct qpu_frame){ .format = c->format, .width = c->width, .height = c->height };
	switch (c->format) {
	case QPU_PIX_NV12:
		f->stride[0] = w + 5;
		f->stride[1] = w + 7;
		f->offset[0] = at;
		f->offset[1] = at + f->stride[0] * h + 1;
		return f->offset[1] + f->stride[1] * (h / 2);
	case QPU_PIX_I420:
		f->stride[0] = w + 3;
		f->stride[1] = f->stride[2] = w / 2 + 2;
		f->offset[0] = at;
		f->offset[1] = at + f->stride[0] * h + 2;
		f->offset[2] = f->offset[1] + f->stride[1] * (h / 2) + 1;
		return f->offset[2] + f->stride[2] * (h / 2);
	case QPU_PIX_YUYV:
		f->stride[0] = 2 * w + 6;
		break;
	default:
		f->stride[0] = 3 * w + 1;
		break;
	}
	f->offset[0] = at;
	return at + f->stride[0] * h;
}

/* Largest error each element may show against the CPU's (see the header). */
static double tolerance(const struct qpu_preprocess *p, unsigned int ch, double want)
{
	double a = 1.0 / (255.0 * fabs(p->std[ch])), b = fabs(p->mean[ch] / p->std[ch]);

	/* ~12 roundings of values below 1024 before the scale, then two */
	return a * 12 * 1024 * FLT_EPSILON + 4 * (b + fabs(want)) * FLT_EPSILON;
}

static void compare(const struct qpu_preprocess *p, const uint8_t *got, const uint8_t *want,
		    struct pcase_report *r)
{
	size_t n = (size_t)p->dst_width * p->dst_height, plane = n, i;
	unsigned int ch;

	for (i = 0; i < 3 * n && r->ok; i++) {
		size_t pix = p->layout == QPU_TENSOR_NHWC ? i / 3 : i % plane;

		ch = (unsigned int)(p->layout == QPU_TENSOR_NHWC ? i % 3 : i / plane);
		if (p->type == QPU_TENSOR_F32) {
			float g, w;

			memcpy(&g, got + 4 * i, 4);
			memcpy(&w, want + 4 * i, 4);
			if (!(fabs((double)g - w) <= tolerance(p, ch, w)))
				fail(r, "pixel (%zu, %zu) channel %u: %.9g, the CPU's %.9g",
				     pix % p->dst_width, pix / p->dst_width, ch, g, w);
		} else {
			int g = p->type == QPU_TENSOR_I8 ? (int8_t)got[i] : got[i];
			int w = p->type == QPU_TENSOR_I8 ? (int8_t)want[i] : want[i];

			if (g - w > 1 || w - g > 1)
				fail(r, "pixel (%zu, %zu) channel %u: %d, the CPU's %d",
				     pix % p->dst_width, pix / p->dst_width, ch, g, w);
		}
	}
}

int pcase_run(struct qpu_kernels *kernels, unsigned int qpus, const struct pcase *c,
	      unsigned int seed, struct pcase_report *r)
{
	struct qpu_dev *dev = qpu_kernels_get_dev(kernels);
	struct qpu_preprocess p = {
		.crop = c->crop, .dst_width = c->dst_width, .dst_height = c->dst_height,
		.layout = c->layout, .type = c->type, .colorspace = c->colorspace,
		.flags = c->flags, .pad = 114,
		.mean = { 0.485f, 0.456f, 0.406f }, .std = { 0.229f, 0.224f, 0.225f },
		.scale = 0.0186f, .zero_point = c->type == QPU_TENSOR_U8 ? 114 : -14,
	};
	size_t bytes = layout_frame(c, &p.src), out, i;
	struct qpu_bo *src = NULL, *dst = NULL;
	uint8_t *s, *d;
	uint32_t x = seed * 2654435761u + 1;
	int ret;

	memset(r, 0, sizeof(*r));
	r->ok = true;
	out = (size_t)3 * c->dst_width * c->dst_height * (c->type == QPU_TENSOR_F32 ? 4 : 1);
	src = qpu_bo_new(dev, bytes);
	dst = qpu_bo_new(dev, 2 * out + 128);
	if (!src || !dst) {
		fail(r, "buffers: %s", strerror(errno));
		ret = -ENOMEM;
		goto out;
	}
	s = qpu_bo_get_map(src);
	for (i = 0; i < bytes; i++) {	/* a xorshift: every byte value */
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		s[i] = (uint8_t)(x >> 11);
	}
	d = qpu_bo_get_map(dst);
	memset(d, 0xa5, 2 * out + 128);
	p.src.bo = src;
	p.dst_bo = dst;
	p.dst_offset = 64 + out;	/* the CPU's tensor at 0 */
	ret = qpu_preprocess(kernels, qpus, &p, &r->stats);
	if (ret) {
		fail(r, "qpu_preprocess: %s", qpu_kernels_last_error(kernels));
		goto out;
	}
	if (r->stats.counters_known) {	/* the device measured what the wrapper says */
		const struct qpu_job_counters *m = &r->stats.counters;

		if (m->tmu_bytes != r->stats.tmu_bytes ||
		    m->uniform_bytes != r->stats.uniform_bytes ||
		    m->dma_store_bytes != r->stats.dma_store_bytes)
			fail(r, "byte counts: TMU %llu, uniforms %llu, DMA stores %llu; measured %llu, %llu, %llu",
			     (unsigned long long)r->stats.tmu_bytes,
			     (unsigned long long)r->stats.uniform_bytes,
			     (unsigned long long)r->stats.dma_store_bytes,
			     (unsigned long long)m->tmu_bytes, (unsigned long long)m->uniform_bytes,
			     (unsigned long long)m->dma_store_bytes);
	}
	p.dst_offset = 0;
	if (qpu_preprocess_cpu(kernels, &p)) {
		fail(r, "qpu_preprocess_cpu: %s", qpu_kernels_last_error(kernels));
		ret = -EINVAL;
		goto out;
	}
	compare(&p, d + 64 + out, d, r);
	for (i = 0; i < 64 && r->ok; i++)	/* nothing written around them */
		if (d[out + i] != 0xa5 || d[2 * out + 64 + i] != 0xa5)
			fail(r, "byte %zu past a tensor written", i);
out:
	qpu_bo_free(dst);
	qpu_bo_free(src);
	return ret;
}
