// SPDX-License-Identifier: MIT
/*
 * qpu_preprocess_cpu(): the pre-processing on the CPU, operation for
 * operation what the QPU programs do (preproc.qasm, v3d/preproc.qasm), in
 * single precision; built with -ffp-contract=off so no multiply-add is
 * fused where the QPUs round twice.
 */

#include <errno.h>
#include <string.h>

#include "preproc.h"

static inline float fclamp(float v, float lo, float hi)
{
	v = v > lo ? v : lo;	/* fmax, then fmin, as the programs */
	return v < hi ? v : hi;
}

/* Component @c of @plan at the 2x2 taps (xa, xb) x (ya, yb), interpolated. */
static float sample(const uint8_t *mem, const struct preproc_comp *c, int32_t xa,
		    int32_t xb, int32_t ya, int32_t yb, float wx, float wy)
{
	const uint8_t *ra = mem + c->offset + (size_t)(ya >> c->vs) * c->stride;
	const uint8_t *rb = mem + c->offset + (size_t)(yb >> c->vs) * c->stride;
	size_t ca = (size_t)(xa >> c->hs) * c->bytes, cb = (size_t)(xb >> c->hs) * c->bytes;
	float p00 = ra[ca], p01 = ra[cb], p10 = rb[ca], p11 = rb[cb];
	float top, bot, t;

	t = p01 - p00;
	t = t * wx;
	top = p00 + t;
	t = p11 - p10;
	t = t * wx;
	bot = p10 + t;
	t = bot - top;
	t = t * wy;
	return top + t;
}

static void store(const struct preproc_plan *plan, uint8_t *out, unsigned int c, float v)
{
	uint8_t *at = out + c * plan->chan_bytes;

	if (!plan->quant) {
		memcpy(at, &v, sizeof(v));
		return;
	}
	v = fclamp(v, 0.0f, plan->qrange);
	*at = (uint8_t)((int32_t)v + plan->qmin);	/* truncated: v >= 0 */
}

static void pixel(const struct preproc_plan *plan, const uint8_t *mem, uint8_t *out,
		  int32_t fx, int32_t ya, int32_t yb, float wy, bool inside)
{
	int32_t xa, xb, wxi;
	float comp[3], wx, v, t;
	unsigned int c;

	preproc_taps(fx, plan->xlo, plan->xhi, &xa, &xb, &wxi);
	wx = (float)wxi * (1.0f / 65536.0f);
	for (c = 0; c < 3; c++)
		comp[c] = sample(mem, &plan->comp[c], xa, xb, ya, yb, wx, wy);
	for (c = 0; c < 3; c++) {
		v = comp[0] * plan->m[c][0];
		t = comp[1] * plan->m[c][1];
		v = v + t;
		t = comp[2] * plan->m[c][2];
		v = v + t;
		v = v + plan->k[c];
		v = fclamp(v, 0.0f, 255.0f);
		if (!inside)
			v = plan->pad;
		v = v * plan->a[c];
		v = v + plan->b[c];
		store(plan, out, c, v);
	}
}

int qpu_preprocess_cpu(struct qpu_kernels *kernels, const struct qpu_preprocess *p)
{
	struct preproc_plan plan;
	const struct qpu_rect *ar = &plan.area;
	const uint8_t *mem;
	uint8_t *out;
	unsigned int x, y;
	int ret;

	if (kernels)
		qpu_kernel_clear_error(kernels);
	ret = preproc_plan_make(kernels, p, &plan);
	if (ret)
		return ret;
	mem = qpu_bo_get_map(p->src.bo);
	out = (uint8_t *)qpu_bo_get_map(p->dst_bo) + p->dst_offset;
	if (!mem || !out)
		return qpu_kernel_fail(kernels, EINVAL, PREPROC_NAME, "a buffer has no CPU mapping");
	for (y = 0; y < plan.height; y++) {
		int32_t fy = (int32_t)(plan.fy0 + (int64_t)y * plan.stepy), ya, yb, wyi;
		bool row_in = y - ar->y < ar->height;	/* unsigned: below wraps */
		float wy;

		preproc_taps(fy, plan.ylo, plan.yhi, &ya, &yb, &wyi);
		wy = (float)wyi * (1.0f / 65536.0f);
		for (x = 0; x < plan.width; x++)
			pixel(&plan, mem, out + y * plan.row_bytes + x * plan.pix_bytes,
			      (int32_t)(plan.fx0 + (int64_t)x * plan.stepx), ya, yb, wy,
			      row_in && x - ar->x < ar->width);
	}
	return 0;
}
