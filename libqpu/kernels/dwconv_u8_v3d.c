// SPDX-License-Identifier: MIT
/*
 * qpu_dwconv3x3_u8_v3d(): the depthwise 3x3 convolution of bytes on V3D
 * 4.2 and 7.1 (v3d/dwconv_u8.qasm, which says how), requantized on the
 * QPUs bit-exact with libqpu/nn's nn_requant(). The C x OH output rows
 * are dealt out evenly; each program's run is cut into tasks of one
 * channel, whose uniforms carry the channel's weights, its bias less
 * zx x the weights' sum (so a pad reading zx adds nothing) and its
 * multiplier. The zero area (pad rows) follows the uniforms, filled with zx.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "nn_kernels.h"
#include "v3d/dwconv_u8_v3d42.qasm.h"
#include "v3d/dwconv_u8_v3d71.qasm.h"

static const struct qpu_kernel_code dwu8_prog = {
	.name = "dwconv_u8",
	.v3d42 = &(const struct qpu_kernel_code)
		QPU_KERNEL_V3D_CODE("dwconv_u8", dwconv_u8_v3d42_code, 0),
	.v3d71 = &(const struct qpu_kernel_code)
		QPU_KERNEL_V3D_CODE("dwconv_u8", dwconv_u8_v3d71_code, 0),
};

#define DWU8_HEADER	21	/* the program's uniforms, then a task's */
#define DWU8_TASK	15
#define DWU8_LANES	16
#define DWU8_STEP	60	/* input columns a vector of 16 lanes advances */
#define DWU8_LINE	64
#define DWU8_MAX_ACC	(1 << 24)	/* exact in a float (itof) */
/* mult = m 2^-s, m of 24 bits: the exact path wants 1 <= s <= 41 */
#define DWU8_MULT_MIN	0x1p-18f
#define DWU8_MULT_MAX	0x1p23f
#define DWU8_MAX_WEIGHT	255
/* a lane is near a tie when (p - round(p))^2 exceeds (1/2 - 2^-12)^2 */
#define DWU8_TIE_SLACK	0x1p-12
/*
 * The byte stores' config: per pixel, regular, unsigned bytes, one byte a
 * store (4 a vector at stride 1, 2 at stride 2) and the default 0xff for
 * the lookups after them.
 */
#define DWU8_STORE_CFG(sw)	((sw) == 1 ? 0xfdfdfdfdu : 0xfffffdfdu)

/* The lanes a row takes (a power of two) and the vectors a row. */
static void dwu8_shape(const struct qpu_window *w, unsigned int *lg, unsigned int *nvec)
{
	unsigned int s = w->stride_w, l;

	for (l = 1; l < DWU8_LANES; l *= 2)
		if (w->ow <= (s == 1 ? 4 * l - 2 : 2 * l - 1))
			break;
	*lg = l;
	*nvec = 1;
	if (l == DWU8_LANES) {
		unsigned int step = DWU8_STEP / s, first = step + 2 / s;

		if (w->ow > first)
			*nvec += (w->ow - first + step - 1) / step;
	}
}

static unsigned int ilog2(unsigned int v)
{
	unsigned int n = 0;

	while (v >>= 1)
		n++;
	return n;
}

static int dwu8_check(struct qpu_kernels *kernels, unsigned int qpus,
		      const struct qpu_dwconv_u8 *p)
{
	const char *name = dwu8_prog.name;
	const struct qpu_window *w = &p->win;
	size_t in, out, c;
	unsigned int j;
	int ret;

	if (!p->w || !p->mult)
		return qpu_kernel_fail(kernels, EINVAL, name, "no %s",
				       p->w ? "multipliers" : "weights");
	if (!w->c || !w->h || !w->w || !w->oh || !w->ow)
		return qpu_kernel_fail(kernels, EINVAL, name,
				       "a dimension is 0 (C %u, input %ux%u, output %ux%u)",
				       w->c, w->h, w->w, w->oh, w->ow);
	if (w->stride_w < 1 || w->stride_w > 2 || !w->stride_h ||
	    w->stride_h > QPU_WINDOW_MAX_STRIDE)
		return qpu_kernel_fail(kernels, EINVAL, name,
				       "strides %u, %u: V3D's program takes 1 to %u vertically, "
				       "1 or 2 across", w->stride_h, w->stride_w,
				       QPU_WINDOW_MAX_STRIDE);
	if ((size_t)w->h * w->w > QPU_WINDOW_MAX_PLANE ||
	    (size_t)w->oh * w->ow > QPU_WINDOW_MAX_PLANE)
		return qpu_kernel_fail(kernels, EINVAL, name,
				       "planes of %ux%u and %ux%u: at most %u pixels each",
				       w->h, w->w, w->oh, w->ow, QPU_WINDOW_MAX_PLANE);
	if (w->pad_top > w->h || w->pad_left > w->w)
		return qpu_kernel_fail(kernels, EINVAL, name,
				       "pads %u, %u are larger than the input", w->pad_top,
				       w->pad_left);
	if (p->lo > p->hi)
		return qpu_kernel_fail(kernels, EINVAL, name, "clamp %u..%u is empty", p->lo,
				       p->hi);
	for (c = 0; c < w->c; c++) {
		int64_t bound = p->bias ? llabs((long long)p->bias[c]) : 0, sum = 0;
		int zx_span = p->zx > 255 - p->zx ? p->zx : 255 - p->zx;
		float m = p->mult[c];

		for (j = 0; j < 9; j++) {
			int v = p->w[c * 9 + j];

			if (v < -DWU8_MAX_WEIGHT || v > DWU8_MAX_WEIGHT)
				return qpu_kernel_fail(kernels, EINVAL, name,
						       "weight %d of channel %zu: the program takes "
						       "-255 to 255", v, c);
			sum += v < 0 ? -v : v;
		}
		bound += sum * zx_span;
		if (bound >= DWU8_MAX_ACC)
			return qpu_kernel_fail(kernels, EINVAL, name,
					       "channel %zu's sums can reach %lld: the program's "
					       "are exact below 2^24", c, (long long)bound);
		if (!(m >= DWU8_MULT_MIN && m < DWU8_MULT_MAX))
			return qpu_kernel_fail(kernels, EINVAL, name,
					       "multiplier %g of channel %zu: the program rounds "
					       "2^-18 to 2^23 exactly", (double)m, c);
	}
	ret = qpu_kernel_check_qpus(kernels, name, qpus);
	in = (size_t)w->c * w->h * w->w;
	out = (size_t)w->c * w->oh * w->ow;
	if (!ret)
		ret = qpu_kernel_check_buf(kernels, name, "x", p->x, p->x_off, in, 1);
	if (!ret)
		ret = qpu_kernel_check_buf(kernels, name, "y", p->y, p->y_off, out, 1);
	if (!ret && p->x == p->y && p->x_off < p->y_off + out && p->y_off < p->x_off + in)
		ret = qpu_kernel_fail(kernels, EINVAL, name, "x and y overlap");
	return ret;
}

/* Channel @c's task uniforms after the four of window.qinc's layout. */
static void dwu8_task(const struct qpu_dwconv_u8 *p, size_t c, uint32_t *u)
{
	int32_t sum = 0, bias = p->bias ? p->bias[c] : 0;
	unsigned int j;

	for (j = 0; j < 9; j++) {
		u[j] = (uint32_t)(int32_t)p->w[c * 9 + j];
		sum += p->w[c * 9 + j];
	}
	u[9] = (uint32_t)(bias - (int32_t)p->zx * sum);
	u[10] = qpu_unif_f(p->mult[c]);
}

/* Program @k's uniforms into @u; @header holds the common ones. */
static void dwu8_uniforms(const struct qpu_dwconv_u8 *p, const uint32_t *header,
			  unsigned int qpus, unsigned int k, uint32_t *u)
{
	const struct qpu_window *w = &p->win;
	size_t start, count, r, rows;
	unsigned int n = DWU8_HEADER, tasks = 0;

	qpu_kernel_split((size_t)w->c * w->oh, qpus, k, &start, &count);
	memcpy(u, header, DWU8_HEADER * sizeof(*u));
	for (r = start; r < start + count; r += rows, tasks++) {
		size_t c = r / w->oh, oy = r % w->oh;

		rows = w->oh - oy;
		if (rows > start + count - r)
			rows = start + count - r;
		u[n++] = qpu_kernel_addr(p->x, p->x_off + c * w->h * w->w);
		u[n++] = qpu_kernel_addr(p->y, p->y_off + (c * w->oh + oy) * w->ow);
		u[n++] = (uint32_t)((int64_t)oy * w->stride_h - w->pad_top);
		u[n++] = (uint32_t)rows;
		dwu8_task(p, c, &u[n]);
		n += DWU8_TASK - 4;
	}
	u[0] = tasks;
}

int qpu_dwconv3x3_u8_v3d(struct qpu_kernels *kernels, unsigned int qpus,
			 const struct qpu_dwconv_u8 *p, struct qpu_kernel_stats *stats)
{
	const char *name = dwu8_prog.name;
	struct qpu_kernel_launch l = { .code = &dwu8_prog };
	const struct qpu_window *w;
	uint32_t header[DWU8_HEADER];
	unsigned int lg, nvec, k;
	size_t per, unif_bytes, zero_bytes;
	struct qpu_bo *scratch, *bos[3];
	double thr;
	uint32_t *u;
	int ret;

	qpu_kernel_clear_error(kernels);
	if (!p)
		return qpu_kernel_fail(kernels, EINVAL, name, "no convolution");
	if (!qpu_gen_is_v3d(kernels->gen))
		return qpu_kernel_fail(kernels, ENOTSUP, name,
				       "V3D's program, and the device is not a V3D");
	ret = dwu8_check(kernels, qpus, p);
	if (ret)
		return ret;
	w = &p->win;
	dwu8_shape(w, &lg, &nvec);
	/* a program's run of rows spans at most this many channels */
	per = DWU8_HEADER + DWU8_TASK * (((size_t)w->c * w->oh / qpus + 1) / w->oh + 2);
	/* the uniforms start two words in on V3D (launch_v3d.c): a line more */
	unif_bytes = (size_t)qpus * per * 4 + DWU8_LINE;
	zero_bytes = ((size_t)w->w + 4 + DWU8_LINE - 1) & ~(size_t)(DWU8_LINE - 1);
	scratch = qpu_kernel_scratch(kernels, unif_bytes + zero_bytes);
	if (!scratch)
		return qpu_kernel_fail(kernels, errno, name, "scratch buffer: %s",
				       strerror(errno));
	/* pad rows read zx, as the tensor stores it */
	memset((uint8_t *)qpu_bo_get_map(scratch) + unif_bytes, p->zx ^ (p->x_int8 ? 0x80 : 0),
	       zero_bytes);
	thr = 0.5 - DWU8_TIE_SLACK;
	header[0] = 0;
	header[1] = w->w;
	header[2] = w->h - 1;
	header[3] = w->ow;
	header[4] = w->pad_left;
	header[5] = w->stride_h;
	header[6] = w->w - 1;
	header[7] = qpu_kernel_addr(scratch, unif_bytes);
	header[8] = qpu_unif_f((float)p->lo - (float)p->zy);
	header[9] = qpu_unif_f((float)p->hi - (float)p->zy);
	/* a byte store keeps y + 128's low byte: y ^ 0x80 for int8 y */
	header[10] = p->zy + (p->y_int8 ? 0x80u : 0);
	header[11] = qpu_unif_f((float)(thr * thr));
	header[12] = p->zx * 0x01010101u;
	header[13] = DWU8_STORE_CFG(w->stride_w);
	header[14] = DWU8_STEP;
	header[15] = p->x_int8 ? 0x80808080u : 0;
	header[16] = nvec;
	header[17] = ilog2(lg);
	header[18] = w->stride_w;
	header[19] = DWU8_LANES / lg;
	header[20] = DWU8_LANES / lg * w->stride_h;
	u = calloc((size_t)qpus * per, sizeof(*u));
	if (!u)
		return qpu_kernel_fail(kernels, ENOMEM, name, "out of memory");
	for (k = 0; k < qpus; k++)
		dwu8_uniforms(p, header, qpus, k, u + k * per);
	bos[0] = p->x;
	bos[1] = p->y;
	bos[2] = scratch;
	l.qpus = qpus;
	l.uniforms = u;
	l.uniforms_per_qpu = (unsigned int)per;
	l.bos = bos;
	l.bo_count = 3;
	ret = qpu_kernel_run(kernels, &l, stats);
	free(u);
	if (!ret && stats) {	/* the input read once, the output written */
		stats->tmu_bytes = (uint64_t)w->c * w->h * w->w + (uint64_t)w->c * w->oh * w->ow;
		stats->dma_load_bytes = 0;
		stats->dma_store_bytes = 0;
	}
	return ret;
}
