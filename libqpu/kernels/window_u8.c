// SPDX-License-Identifier: MIT
/*
 * qpu_dwconv3x3_u8(): dwconv_u8.qasm, the depthwise QLinearConv 3x3 of
 * bytes on VideoCore IV's QPUs, a window kernel (window.h) of 1-byte
 * elements, 4 outputs a lane. The host's part is the per-channel
 * constants: the zero points folded into K = bias - zx * sum(w), the
 * multiplier split into m * 2^-s for the exact requantization
 * (dwconv_u8.qasm, "DOC: requantization"), and the checks that keep
 * every step of it exact.
 */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "nn_kernels.h"
#include "window.h"
#include "dwconv_u8.qasm.h"

static const struct qpu_kernel_code dwconv_u8_prog = QPU_KERNEL_CODE("dwconv_u8", dwconv_u8_code);

#define DW8_TASK	14	/* dwconv_u8.qasm's uniforms a task: 9 weights, K, mult, m, sh1, sh2 */
#define DW8_HEADER	16
#define DW8_LANE_OUT	4	/* adjacent outputs a lane */
/* |acc| under 2^24: an exact itof and a 24-bit mul24 operand. */
#define DW8_ACC_LIMIT	(1 << 24)

/* The product's exponent range the exact path proves (D under 2^31). */
#define DW8_MIN_SHIFT	1
#define DW8_MAX_SHIFT	38

int qpu_dwconv_u8_split(float mult, uint32_t *m, unsigned int *s)
{
	uint32_t bits;
	int e;

	if (!isnormal(mult) || mult < 0)
		return -1;
	memcpy(&bits, &mult, sizeof(bits));
	e = (int)(bits >> 23 & 0xff);
	*m = (bits & 0x7fffff) | 0x800000;
	e = 150 - e;		/* mult = m * 2^-e */
	while (!(*m & 1) && e > DW8_MIN_SHIFT) {
		*m >>= 1;
		e--;
	}
	if (e < DW8_MIN_SHIFT || e > DW8_MAX_SHIFT)
		return -1;
	*s = (unsigned int)e;
	return 0;
}

struct dw8_ctx {
	const struct qpu_dwconv_u8 *p;
	uint32_t *task;		/* C x DW8_TASK words */
};

static void dw8_task(const void *arg, size_t c, uint32_t *u)
{
	const struct dw8_ctx *ctx = arg;

	memcpy(u, ctx->task + c * DW8_TASK, DW8_TASK * sizeof(*u));
}

const char *qpu_dwconv_u8_unable(const struct qpu_dwconv_u8 *p, size_t c)
{
	int64_t k = p->bias ? p->bias[c] : 0, lo = 0, hi = 0;
	unsigned int j, s;
	uint32_t m;

	for (j = 0; j < 9; j++) {
		int32_t w = p->w[c * 9 + j];

		if (w < -255 || w > 255)
			return "a weight less its zero point outside -255 to 255";
		k -= (int64_t)p->zx * w;
		if (w < 0)
			lo += 255 * (int64_t)w;
		else
			hi += 255 * (int64_t)w;
	}
	if (k + lo <= -DW8_ACC_LIMIT || k + hi >= DW8_ACC_LIMIT)
		return "sums that may reach 2^24 (a bias too large to requantize exactly)";
	if (qpu_dwconv_u8_split(p->mult[c], &m, &s))
		return "a multiplier outside about 2^-15 to 2^22 (not requantized exactly)";
	return NULL;
}

/* Channel @c's task uniforms into @u; 0 or -EINVAL with the message. */
static int dw8_channel(struct qpu_kernels *kernels, const struct qpu_dwconv_u8 *p, size_t c,
		       uint32_t *u)
{
	const char *no = qpu_dwconv_u8_unable(p, c);
	int64_t k = p->bias ? p->bias[c] : 0;
	unsigned int j, s;
	uint32_t m;

	if (no)
		return qpu_kernel_fail(kernels, EINVAL, dwconv_u8_prog.name,
				       "channel %zu (multiplier %g): %s", c, (double)p->mult[c], no);
	for (j = 0; j < 9; j++) {
		u[j] = (uint32_t)(int32_t)p->w[c * 9 + j];
		k -= (int64_t)p->zx * p->w[c * 9 + j];
	}
	qpu_dwconv_u8_split(p->mult[c], &m, &s);
	u[9] = (uint32_t)(int32_t)k;
	u[10] = qpu_unif_f(p->mult[c]);
	u[11] = m;
	u[12] = s - 1 > 31 ? 31 : s - 1;
	u[13] = s - 1 - u[12];
	return 0;
}

int qpu_dwconv3x3_u8(struct qpu_kernels *kernels, unsigned int qpus,
		     const struct qpu_dwconv_u8 *p, struct qpu_kernel_stats *stats)
{
	const char *name = dwconv_u8_prog.name;
	uint32_t header[DW8_HEADER], zx4, yoff;
	struct dw8_ctx ctx = { .p = p };
	struct win_call call = {
		.code = &dwconv_u8_prog, .header = header, .header_words = DW8_HEADER,
		.task_words = DW8_TASK, .task = dw8_task, .arg = &ctx,
	};
	struct qpu_bo *scratch;
	size_t per, unif_bytes, c;
	unsigned int groups;
	int ret;

	qpu_kernel_clear_error(kernels);
	if (!p)
		return qpu_kernel_fail(kernels, EINVAL, name, "no convolution");
	if (qpu_gen_is_v3d(kernels->gen))	/* V3D's program: dwconv_u8_v3d.c */
		return qpu_dwconv3x3_u8_v3d(kernels, qpus, p, stats);
	if (!p->w || !p->mult)
		return qpu_kernel_fail(kernels, EINVAL, name, "no weights or multipliers");
	ret = qpu_window_setup(kernels, qpus, &call, &p->win, 1, p->x, p->x_off, p->y, p->y_off);
	if (ret)
		return ret;
	if (p->win.stride_w > 2)
		return qpu_kernel_fail(kernels, EINVAL, name,
				       "horizontal stride %u: the program takes 1 and 2",
				       p->win.stride_w);
	if (p->lo > p->hi)
		return qpu_kernel_fail(kernels, EINVAL, name, "clamp %u to %u is empty", p->lo,
				       p->hi);
	/*
	 * x and y take any byte offset: the lookups read the whole words
	 * holding x's bytes (inside the buffer, whose size is whole pages),
	 * and the 8-bit stores write y's bytes only.
	 */
	ctx.task = malloc((size_t)p->win.c * DW8_TASK * sizeof(*ctx.task));
	if (!ctx.task)
		return qpu_kernel_fail(kernels, ENOMEM, name, "out of memory");
	for (c = 0; c < p->win.c && !ret; c++)
		ret = dw8_channel(kernels, p, c, ctx.task + c * DW8_TASK);
	if (ret)
		goto out;
	call.out = WIN_LANES * DW8_LANE_OUT;
	call.lane_out = DW8_LANE_OUT;
	/*
	 * Rows of G = OW / 4 lanes (rounded up): as many as 16 lanes hold
	 * when that is two or more (dwconv_u8.qasm, "DOC: rows and lanes").
	 */
	groups = (p->win.ow + DW8_LANE_OUT - 1) / DW8_LANE_OUT;
	if (groups <= WIN_LANES / 2) {
		call.rows = WIN_LANES / groups;
	} else {
		groups = WIN_LANES;
		call.rows = 1;
	}
	call.row_pitch = p->win.w;
	/* the pad rows' area: a row's words, each byte zx as the input holds it */
	call.extra_bytes = ((size_t)p->win.w + 4 + 63) & ~(size_t)63;
	scratch = qpu_window_scratch(kernels, &call, qpus, &per, &unif_bytes);
	if (!scratch) {
		ret = qpu_kernel_fail(kernels, errno, name, "scratch buffer: %s", strerror(errno));
		goto out;
	}
	memset((uint8_t *)qpu_bo_get_map(scratch) + unif_bytes, p->zx ^ (p->x_int8 ? 0x80 : 0),
	       call.extra_bytes);
	zx4 = p->zx * 0x01010101u;
	yoff = p->y_int8 ? 128 : 0;	/* the byte pack keeps y + 128's low 8 bits: y ^ 0x80 */
	header[0] = qpu_kernel_addr(scratch, unif_bytes);
	header[1] = zx4;
	header[2] = zx4 ^ (p->x_int8 ? 0x80808080u : 0);
	header[3] = p->zy + yoff;
	header[4] = qpu_unif_f((float)(p->zy + yoff));
	header[5] = qpu_unif_f((float)(p->lo + yoff) - 0.25f);
	header[6] = qpu_unif_f((float)(p->hi + yoff) + 0.25f);
	header[7] = call.rows;
	header[8] = qpu_unif_f(1.0f / (float)groups);
	header[9] = groups;
	header[10] = QPU_FIELD_PREP(QPU_VDW_X, groups);	/* the next row's lanes */
	header[11] = p->win.ow;
	header[12] = p->win.stride_h;
	header[13] = DW8_LANE_OUT * p->win.stride_w;
	header[14] = p->win.pad_left;
	header[15] = p->win.stride_w;
	ret = qpu_window_run(kernels, qpus, &call, per, stats);
out:
	free(ctx.task);
	return ret;
}
