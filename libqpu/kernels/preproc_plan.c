// SPDX-License-Identifier: MIT
/*
 * qpu_preprocess()'s checks and plan (preproc.h), shared by the QPU
 * wrapper and the CPU reference, and qpu_preprocess_placement().
 */

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "preproc.h"

/* The largest reduction a side may take: 16.16 steps go through mul24. */
#define PREPROC_MAX_STEP	((1 << 24) - 1)
/* Every 16.16 coordinate of a row stays below this (signed 32-bit). */
#define PREPROC_MAX_COORD	(1LL << 30)

/*
 * YUV to RGB: rows R, G, B over columns Y, U, V, and what is subtracted
 * from Y and from U and V first (the ITU-R BT.601 and BT.709 figures).
 */
static const struct {
	double m[3][3];
	double y0, c0;
} colours[] = {
	[QPU_COLOR_BT601_FULL] = { { { 1, 0, 1.402 }, { 1, -0.344136, -0.714136 },
				     { 1, 1.772, 0 } }, 0, 128 },
	[QPU_COLOR_BT601_LIMITED] = { { { 1.164383, 0, 1.596027 },
					{ 1.164383, -0.391762, -0.812968 },
					{ 1.164383, 2.017232, 0 } }, 16, 128 },
	[QPU_COLOR_BT709_LIMITED] = { { { 1.164383, 0, 1.792741 },
					{ 1.164383, -0.213249, -0.532909 },
					{ 1.164383, 2.112402, 0 } }, 16, 128 },
};

/*
 * Per format: planes, and for each component its plane, byte within the
 * pixel group, hs, vs and bytes per (x >> hs).
 */
struct fmt_comp {
	unsigned int plane, byte, hs, vs, bytes;
};

static const struct {
	const char *name;
	unsigned int planes;
	bool even_w, even_h, yuv;
	unsigned int row_bytes_num, row_bytes_den;	/* plane 0, per pixel */
	struct fmt_comp c[3];
} formats[] = {
	[QPU_PIX_NV12] = { "NV12", 2, true, true, true, 1, 1,
			   { { 0, 0, 0, 0, 1 }, { 1, 0, 1, 1, 2 }, { 1, 1, 1, 1, 2 } } },
	[QPU_PIX_I420] = { "I420", 3, true, true, true, 1, 1,
			   { { 0, 0, 0, 0, 1 }, { 1, 0, 1, 1, 1 }, { 2, 0, 1, 1, 1 } } },
	[QPU_PIX_YUYV] = { "YUYV", 1, true, false, true, 2, 1,
			   { { 0, 0, 0, 0, 2 }, { 0, 1, 1, 0, 4 }, { 0, 3, 1, 0, 4 } } },
	[QPU_PIX_RGB888] = { "RGB888", 1, false, false, false, 3, 1,
			     { { 0, 0, 0, 0, 3 }, { 0, 1, 0, 0, 3 }, { 0, 2, 0, 0, 3 } } },
};
#define FORMATS	(sizeof(formats) / sizeof(formats[0]))

static int fail(struct qpu_kernels *kernels, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct qpu_kernels *kernels, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return qpu_kernel_fail(kernels, EINVAL, PREPROC_NAME, "%s", msg);
}

/* The image area of the tensor (see qpu_preprocess_placement()). */
static void place(const struct qpu_preprocess *p, const struct qpu_rect *crop,
		  struct qpu_rect *area)
{
	uint64_t cw = crop->width, ch = crop->height, w = p->dst_width, h = p->dst_height;

	*area = (struct qpu_rect){ 0, 0, p->dst_width, p->dst_height };
	if (!(p->flags & QPU_PREPROCESS_LETTERBOX))
		return;
	if (cw * h >= ch * w) {		/* as wide as the tensor: bands above and below */
		area->height = (unsigned int)((2 * ch * w + cw) / (2 * cw));
		if (!area->height)
			area->height = 1;
	} else {
		area->width = (unsigned int)((2 * cw * h + ch) / (2 * ch));
		if (!area->width)
			area->width = 1;
	}
	area->x = (p->dst_width - area->width) / 2;
	area->y = (p->dst_height - area->height) / 2;
}

static int check_sizes(struct qpu_kernels *kernels, const struct qpu_preprocess *p,
		       struct qpu_rect *crop)
{
	const struct qpu_frame *f = &p->src;

	if (f->format <= 0 || (size_t)f->format >= FORMATS || !formats[f->format].name)
		return fail(kernels, "src: pixel format %d: not NV12, I420, YUYV or RGB888",
			    (int)f->format);
	if (!f->width || !f->height || f->width > PREPROC_MAX_SIDE ||
	    f->height > PREPROC_MAX_SIDE)
		return fail(kernels, "src: %ux%u; sides of 1 to %u", f->width, f->height,
			    PREPROC_MAX_SIDE);
	if ((formats[f->format].even_w && f->width % 2) ||
	    (formats[f->format].even_h && f->height % 2))
		return fail(kernels, "src: %ux%u: %s needs an even %s", f->width, f->height,
			    formats[f->format].name,
			    formats[f->format].even_h ? "width and height" : "width");
	*crop = p->crop;
	if (!crop->width || !crop->height)
		*crop = (struct qpu_rect){ 0, 0, f->width, f->height };
	if (crop->x >= f->width || crop->y >= f->height ||
	    crop->width > f->width - crop->x || crop->height > f->height - crop->y)
		return fail(kernels, "crop %ux%u at (%u, %u) is outside the %ux%u frame",
			    crop->width, crop->height, crop->x, crop->y, f->width, f->height);
	if (!p->dst_width || !p->dst_height || p->dst_width > PREPROC_MAX_SIDE ||
	    p->dst_height > PREPROC_MAX_SIDE)
		return fail(kernels, "dst: %ux%u; sides of 1 to %u", p->dst_width,
			    p->dst_height, PREPROC_MAX_SIDE);
	return 0;
}

static int check_values(struct qpu_kernels *kernels, const struct qpu_preprocess *p)
{
	unsigned int c;

	if ((unsigned int)p->layout > QPU_TENSOR_NHWC)
		return fail(kernels, "layout %d: not NCHW or NHWC", (int)p->layout);
	if ((unsigned int)p->type > QPU_TENSOR_I8)
		return fail(kernels, "type %d: not F32, U8 or I8", (int)p->type);
	if ((unsigned int)p->colorspace > QPU_COLOR_BT709_LIMITED)
		return fail(kernels, "colorspace %d: unknown", (int)p->colorspace);
	if (p->flags & ~(QPU_PREPROCESS_LETTERBOX | QPU_PREPROCESS_BGR))
		return fail(kernels, "flags 0x%x: unknown bits", p->flags);
	if ((p->flags & QPU_PREPROCESS_LETTERBOX) &&
	    !(p->pad >= 0 && p->pad <= 255))
		return fail(kernels, "pad %g: needs 0 to 255", p->pad);
	for (c = 0; c < 3; c++)
		if (!isfinite(p->mean[c]) || !isfinite(p->std[c]) || p->std[c] == 0 ||
		    !isfinite(1.0f / (255.0f * p->std[c])) || !isfinite(p->mean[c] / p->std[c]))
			return fail(kernels, "channel %u: mean %g, std %g; needs finite values and std not 0",
				    c, p->mean[c], p->std[c]);
	if (p->type != QPU_TENSOR_F32) {
		int lo = p->type == QPU_TENSOR_U8 ? 0 : -128;

		if (!isfinite(p->scale) || !(p->scale > 0) ||
		    !isfinite(1.0 / (255.0 * p->scale)))
			return fail(kernels, "scale %g: needs a finite value above 0", p->scale);
		if (p->zero_point < lo || p->zero_point > lo + 255)
			return fail(kernels, "zero point %d: needs %d to %d", p->zero_point, lo,
				    lo + 255);
	}
	return 0;
}

/* 0 if plane @i of @rows rows of @cols bytes is inside the frame's buffer. */
static int check_plane(struct qpu_kernels *kernels, const struct qpu_frame *f, unsigned int i,
		       size_t cols, size_t rows)
{
	static const char *const what[] = { "src plane 0", "src plane 1", "src plane 2" };

	if (f->stride[i] < cols || f->stride[i] > PREPROC_MAX_STEP)
		return fail(kernels, "src plane %u: stride %zu, needs %zu to %d", i,
			    f->stride[i], cols, PREPROC_MAX_STEP);
	return qpu_kernel_check_buf(kernels, PREPROC_NAME, what[i], f->bo, f->offset[i],
				    (rows - 1) * f->stride[i] + cols, 1);
}

static int check_buffers(struct qpu_kernels *kernels, const struct qpu_preprocess *p,
			 struct preproc_plan *plan)
{
	const struct qpu_frame *f = &p->src;
	unsigned int i;
	int ret;

	if (!f->bo)
		return fail(kernels, "src: no buffer");
	ret = check_plane(kernels, f, 0, (size_t)f->width * formats[f->format].row_bytes_num,
			  f->height);
	for (i = 1; !ret && i < formats[f->format].planes; i++)	/* 4:2:0 chroma */
		ret = check_plane(kernels, f, i, (size_t)f->width / (f->format == QPU_PIX_I420 ? 2 : 1),
				  f->height / 2);
	if (!ret)
		ret = qpu_kernel_check_buf(kernels, PREPROC_NAME, "dst", p->dst_bo, p->dst_offset,
					   plan->bytes, plan->esize);
	return ret;
}

/* 16.16 steps and the coordinate of output 0 along one side. */
static int axis(struct qpu_kernels *kernels, const char *side, unsigned int crop_at,
		unsigned int crop_len, unsigned int area_at, unsigned int area_len,
		unsigned int out_len, int32_t *f0, int32_t *step)
{
	int64_t s = ((int64_t)crop_len << 16) / area_len, f;

	if (s > PREPROC_MAX_STEP)
		return fail(kernels, "%s: %u to %u shrinks by 256 or more", side, crop_len,
			    area_len);
	f = ((int64_t)crop_at << 16) + s / 2 - (1 << 15) - (int64_t)area_at * s;
	if (f + s * out_len >= PREPROC_MAX_COORD || f - s * out_len <= -PREPROC_MAX_COORD)
		return fail(kernels, "%s: %u to %u of %u: padding too wide", side, crop_len,
			    area_len, out_len);
	*f0 = (int32_t)f;
	*step = (int32_t)s;
	return 0;
}

static void colour(const struct qpu_preprocess *p, struct preproc_plan *plan)
{
	unsigned int c, j, row;

	for (c = 0; c < 3; c++) {
		row = (p->flags & QPU_PREPROCESS_BGR) ? 2 - c : c;
		if (!formats[p->src.format].yuv) {
			for (j = 0; j < 3; j++)
				plan->m[c][j] = j == row;
			plan->k[c] = 0;
			continue;
		}
		for (j = 0; j < 3; j++)
			plan->m[c][j] = (float)colours[p->colorspace].m[row][j];
		plan->k[c] = (float)-(colours[p->colorspace].m[row][0] * colours[p->colorspace].y0 +
				      (colours[p->colorspace].m[row][1] +
				       colours[p->colorspace].m[row][2]) * colours[p->colorspace].c0);
	}
}

int preproc_plan_make(struct qpu_kernels *kernels, const struct qpu_preprocess *p,
		      struct preproc_plan *plan)
{
	struct qpu_rect crop;
	unsigned int c;
	int ret;

	memset(plan, 0, sizeof(*plan));
	if (!p)
		return fail(kernels, "no call description");
	ret = check_sizes(kernels, p, &crop);
	if (!ret)
		ret = check_values(kernels, p);
	if (ret)
		return ret;
	place(p, &crop, &plan->area);
	plan->width = p->dst_width;
	plan->height = p->dst_height;
	ret = axis(kernels, "width", crop.x, crop.width, plan->area.x, plan->area.width,
		   p->dst_width, &plan->fx0, &plan->stepx);
	if (!ret)
		ret = axis(kernels, "height", crop.y, crop.height, plan->area.y,
			   plan->area.height, p->dst_height, &plan->fy0, &plan->stepy);
	if (ret)
		return ret;
	plan->xlo = (int32_t)crop.x;
	plan->xhi = (int32_t)(crop.x + crop.width - 1);
	plan->ylo = (int32_t)crop.y;
	plan->yhi = (int32_t)(crop.y + crop.height - 1);
	plan->esize = p->type == QPU_TENSOR_F32 ? 4 : 1;
	plan->row_bytes = plan->esize * p->dst_width * (p->layout == QPU_TENSOR_NHWC ? 3 : 1);
	plan->pix_bytes = plan->esize * (p->layout == QPU_TENSOR_NHWC ? 3 : 1);
	plan->chan_bytes = p->layout == QPU_TENSOR_NHWC ? plan->esize :
			   plan->row_bytes * p->dst_height;
	plan->bytes = plan->esize * 3 * p->dst_width * p->dst_height;
	ret = check_buffers(kernels, p, plan);
	if (ret)
		return ret;
	for (c = 0; c < 3; c++) {
		const struct fmt_comp *fc = &formats[p->src.format].c[c];

		plan->comp[c] = (struct preproc_comp){
			.offset = p->src.offset[fc->plane] + fc->byte,
			.stride = p->src.stride[fc->plane],
			.hs = fc->hs, .vs = fc->vs, .bytes = fc->bytes,
		};
	}
	colour(p, plan);
	plan->pad = p->pad;
	plan->quant = p->type != QPU_TENSOR_F32;
	plan->qmin = p->type == QPU_TENSOR_I8 ? -128 : 0;
	plan->qrange = 255.0f;
	for (c = 0; c < 3; c++) {
		double a = 1.0 / (255.0 * p->std[c]), b = -(double)p->mean[c] / p->std[c];

		if (plan->quant) {
			a /= p->scale;
			b = b / p->scale + p->zero_point - plan->qmin + 0.5;
		}
		plan->a[c] = (float)a;
		plan->b[c] = (float)b;
	}
	return 0;
}

int qpu_preprocess_placement(const struct qpu_preprocess *p, struct qpu_rect *area)
{
	struct qpu_rect crop;
	int ret;

	if (!p || !area)
		return -EINVAL;
	ret = check_sizes(NULL, p, &crop);
	if (!ret)
		place(p, &crop, area);
	return ret;
}
