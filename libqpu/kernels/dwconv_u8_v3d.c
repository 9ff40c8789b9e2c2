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
#include "window.h"
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

const char *qpu_dwconv_u8_v3d_unable(const struct qpu_dwconv_u8 *p, size_t c)
{
	int64_t bound = p->bias ? llabs((long long)p->bias[c]) : 0, sum = 0;
	int zx_span = p->zx > 255 - p->zx ? p->zx : 255 - p->zx;
	float m = p->mult[c];
	unsigned int j;

	for (j = 0; j < 9; j++) {
		int v = p->w[c * 9 + j];

		if (v < -DWU8_MAX_WEIGHT || v > DWU8_MAX_WEIGHT)
			return "a weight less its zero point outside -255 to 255";
		sum += v < 0 ? -v : v;
	}
	if (bound + sum * zx_span >= DWU8_MAX_ACC)
		return "sums that may reach 2^24 (a bias too large to requantize exactly)";
	if (!(m >= DWU8_MULT_MIN && m < DWU8_MULT_MAX))
		return "a multiplier outside 2^-18 to 2^23 (not requantized exactly)";
	return NULL;
}

static int dwu8_check(struct qpu_kernels *kernels, unsigned int qpus,
		      const struct qpu_dwconv_u8 *p)
{
	const char *name = dwu8_prog.name;
	const struct qpu_window *w = &p->win;
	size_t c;
	int ret;

	if (!p->w || !p->mult)
		return qpu_kernel_fail(kernels, EINVAL, name, "no %s",
				       p->w ? "multipliers" : "weights");
	ret = qpu_window_check(kernels, name, w, 1, p->x, p->x_off, p->y, p->y_off);
	if (ret)
		return ret;
	if (w->stride_w > 2)
		return qpu_kernel_fail(kernels, EINVAL, name,
				       "horizontal stride %u: V3D's program takes 1 and 2",
				       w->stride_w);
	if (p->lo > p->hi)
		return qpu_kernel_fail(kernels, EINVAL, name, "clamp %u to %u is empty", p->lo,
				       p->hi);
	for (c = 0; c < w->c; c++) {
		const char *no = qpu_dwconv_u8_v3d_unable(p, c);

		if (no)
			return qpu_kernel_fail(kernels, EINVAL, name,
					       "channel %zu (multiplier %g): %s", c,
					       (double)p->mult[c], no);
	}
	return qpu_kernel_check_qpus(kernels, name, qpus);
}

/*
 * The program's issue per vector at horizontal stride 1 and 2 (4.2's
 * emulator counts; 7.1's are 1 to 2 % fewer): a vector of a row that is
 * one vector, with its group's setup; a vector of a row of several; a
 * group's setup then; a task's; a program's. v3d/README.md has the
 * figures, and the stall factors below that bring them to the timing
 * model's time on MobileNet's layers (within 3 % at stride 1).
 */
static const struct { double one, several; } dwu8_per_vector[2] = { { 241, 201 }, { 194, 153 } };
#define DWU8_PER_GROUP		56
#define DWU8_PER_TASK		31
#define DWU8_PER_PROGRAM	57
#define DWU8_STALLS_V3D42	1.08
#define DWU8_STALLS_V3D71	1.12

double qpu_dwconv_u8_v3d_cost(const struct qpu_window *w, unsigned int qpus, enum qpu_gen gen)
{
	unsigned int lg, nvec, k, s = w->stride_w > 1;
	double most = 0;

	dwu8_shape(w, &lg, &nvec);
	/* as dwu8_uniforms() deals the rows: runs of a channel's, one a task */
	for (k = 0; k < qpus; k++) {
		size_t start, count, r, rows, per = DWU8_LANES / lg;
		double cost = DWU8_PER_PROGRAM;

		qpu_kernel_split((size_t)w->c * w->oh, qpus, k, &start, &count);
		for (r = start; r < start + count; r += rows) {
			rows = w->oh - r % w->oh;
			if (rows > start + count - r)
				rows = start + count - r;
			cost += DWU8_PER_TASK;
			if (nvec > 1)
				cost += (double)rows * (nvec * dwu8_per_vector[s].several +
							DWU8_PER_GROUP);
			else
				cost += (double)((rows + per - 1) / per) * dwu8_per_vector[s].one;
		}
		if (cost > most)
			most = cost;
	}
	return most * (gen == QPU_GEN_V3D71 ? DWU8_STALLS_V3D71 : DWU8_STALLS_V3D42);
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
