// SPDX-License-Identifier: MIT
/*
 * libqpu/nn: QLinearConv and QLinearMatMul on the QPUs' integer product
 * (qpu_igemm_u8(): kernels/igemm.qasm, kernels/v3d/igemm.qasm).
 *
 * The QPUs have no 8-bit dot product: the kernel unpacks bytes and
 * multiplies them with mul24 (umul24), so INT8 runs no faster than float
 * per multiply-add; it moves a quarter of the bytes, which is what counts
 * on memory-bound layers (the planner's model, nn_qpu_model_ns()).
 *
 * A layer is one product S = A B of unsigned bytes: int8 operands are
 * turned into uint8 by adding 128, to the values and their zero points
 * alike, which changes no difference v - z. The kernel's B is the layer's
 * constant weights, packed at bind into the weight buffer (a convolution's
 * W, M rows of C*KH*KW; a MatMul's B transposed), so the per-channel
 * scales and zero points are per column j; its A is packed by the CPU
 * every run (a convolution's im2col transposed, pads holding x's zero
 * point; a MatMul's A). The CPU then takes the zero points out with the
 * rows' and columns' sums,
 *
 *   acc = S - zb[j] * rowsum(A)[i] - za * colsum(B)[j] + K * za * zb[j] + bias[j],
 *
 * exact in 64 bits (S is exact in 32: K is at most NN_QINT8_MAX_K), and
 * requantizes it with the reference's own nn_requant(): the multiplier a
 * float as ONNX's reference computes it, the product in double, rounded
 * half to even. That is done on the CPU because it needs a double product
 * (the QPUs' floats are single, VideoCore IV's not even rounded to
 * nearest); sharing the function makes the QPU path bit-exact with the
 * reference by construction, and the tests check it.
 */
#include <stdio.h>
#include <string.h>

#include "kernels/nn_kernels.h"
#include "nn_check.h"

/* The largest K whose sums of byte products cannot pass 2^32 (255 * 255 each). */
#define NN_QINT8_MAX_K	(UINT32_MAX / (255u * 255u))

#define ALIGN64(x)	(((x) + 63) & ~(size_t)63)

int nn_qint8(const struct nn_node *n)
{
	return n->kind == NN_QLINEARCONV || n->kind == NN_QLINEARMATMUL;
}

/* The layer as a product: rows (per image), columns, K. */
struct qgeo {
	size_t rows, cols, npad, k, k4, images;
	int conv;
};

static void geo(const struct qpu_nn_graph *g, const struct nn_node *n, struct qgeo *q)
{
	const struct nn_tensor *y = &g->t[n->out[0]], *w = &g->t[n->in[3]];

	q->conv = n->kind == NN_QLINEARCONV;
	if (q->conv) {
		q->images = (size_t)y->dims[0];
		q->rows = (size_t)(y->dims[2] * y->dims[3]);
		q->cols = (size_t)y->dims[1];
		q->k = w->count / q->cols;
	} else {
		q->images = 1;
		q->k = (size_t)w->dims[0];
		q->cols = (size_t)w->dims[1];
		q->rows = g->t[n->in[0]].count / q->k;
	}
	q->npad = (q->cols + 15) & ~(size_t)15;
	q->k4 = (q->k + 3) / 4;
}

const char *nn_qint8_unable(const struct qpu_nn_graph *g, const struct nn_node *n)
{
	struct qgeo q;

	if (!g->t[n->in[3]].is_const)
		return "weights computed at run time";
	if (nn_qdw8(g, n))	/* qpu_dwint8.c's */
		return nn_qdw8_unable(g, n);
	if (n->kind == NN_QLINEARCONV && n->win.group != 1)
		return "groups of more than one channel (a grouped QLinearConv)";
	if (n->kind == NN_QLINEARMATMUL && g->t[n->in[3]].rank != 2)
		return "a batched B";
	geo(g, n, &q);
	if (q.k > NN_QINT8_MAX_K)
		return "sums of over 66051 products (32-bit sums could wrap)";
	if (q.k4 > QPU_IGEMM_MAX_K4 || q.rows > QPU_IGEMM_MAX_SIDE || q.npad > QPU_IGEMM_MAX_SIDE)
		return "a product over the kernel's 24-bit offsets";
	return NULL;
}

/* Scratch: A packed, S, A's row sums, B's column sums, the multipliers. */
size_t nn_qint8_scratch(const struct qpu_nn_graph *g, const struct nn_node *n)
{
	struct qgeo q;

	geo(g, n, &q);
	return ALIGN64(q.rows * q.k4 * 4) + ALIGN64(q.rows * q.npad * 4) + ALIGN64(q.rows * 4) +
	       ALIGN64(q.npad * 4) + q.npad * 4;
}

size_t nn_qint8_wbo_bytes(const struct qpu_nn_graph *g, const struct nn_node *n)
{
	struct qgeo q;

	geo(g, n, &q);
	return q.npad * q.k4 * 4;
}

/* Input @k's values as unsigned bytes (int8 plus 128). */
static unsigned int bias8(const struct qpu_nn_graph *g, const struct nn_node *n, unsigned int k)
{
	return g->t[n->in[k]].dtype == QPU_NN_INT8 ? 128 : 0;
}

/* The kernel's B (nn_kernels.h: panels of 16 columns) into @dst, zero-padded. */
void nn_qint8_pack_weights(const struct qpu_nn_graph *g, const struct nn_node *n, uint8_t *dst)
{
	const struct nn_tensor *w = &g->t[n->in[3]];
	unsigned int off = bias8(g, n, 3);
	size_t j, k;
	struct qgeo q;

	geo(g, n, &q);
	memset(dst, 0, q.npad * q.k4 * 4);
	for (j = 0; j < q.cols; j++)
		for (k = 0; k < q.k; k++)
			dst[((j / 16 * q.k4 + k / 4) * 16 + j % 16) * 4 + k % 4] = (uint8_t)(nn_ld_q(w->cdata, w->dtype,
				q.conv ? j * q.k + k : k * q.cols + j) + (int32_t)off);
}

/* Image @b_'s rows of A (@q->rows of K bytes) into @dst; their sums into @rs. */
static void pack_a(const struct qpu_nn_graph *g, const struct nn_node *n, const struct qgeo *q,
		   size_t b_, uint8_t *dst, int32_t *rs)
{
	const struct nn_tensor *x = &g->t[n->in[0]];
	unsigned int off = bias8(g, n, 0);
	int32_t pad = nn_qzero(g, n, 2, 0) + (int32_t)off;
	size_t i, k;

	memset(dst, 0, q->rows * q->k4 * 4);
	if (!q->conv) {
		for (i = 0; i < q->rows; i++) {
			int32_t s = 0;

			for (k = 0; k < q->k; k++) {
				int32_t v = nn_ld_q(x->data, x->dtype, i * q->k + k) + (int32_t)off;

				dst[i * q->k4 * 4 + k] = (uint8_t)v;
				s += v;
			}
			rs[i] = s;
		}
		return;
	}
	{
		const struct nn_win *win = &n->win;
		int64_t C = x->dims[1], H = x->dims[2], W = x->dims[3];
		int64_t OW = g->t[n->out[0]].dims[3], c, kh, kw;

		for (i = 0; i < q->rows; i++) {
			int64_t oh = (int64_t)i / OW, ow = (int64_t)i % OW;
			uint8_t *row = dst + i * q->k4 * 4;
			int32_t s = 0;

			for (c = 0; c < C; c++)
				for (kh = 0; kh < win->kh; kh++)
					for (kw = 0; kw < win->kw; kw++) {
						int64_t ih = oh * win->sh - win->pt + kh;
						int64_t iw = ow * win->sw - win->pl + kw;
						int32_t v = pad;

						if (ih >= 0 && ih < H && iw >= 0 && iw < W)
							v = nn_ld_q(x->data, x->dtype,
								    (size_t)((((int64_t)b_ * C + c) * H + ih) * W + iw)) +
							    (int32_t)off;
						*row++ = (uint8_t)v;
						s += v;
					}
			rs[i] = s;
		}
	}
}

/*
 * The instruction times igemm.qasm takes per step (a word of each
 * operand: 18 issued, the rest waiting for the two lookups) and per piece,
 * as the emulator's timing model measures all programs busy on a Pi 1
 * (qpu-nn bench of a QLinearMatMul of 4 x 1024 x 192: 0.54 ms); the same
 * of v3d/igemm.qasm on a Pi 4 (24 issued a step; 0.62 ms). The lookups are
 * not run ahead of the arithmetic: that would save up to half of a step.
 */
#define IGEMM_VC4_PER_WORD	32
#define IGEMM_VC4_PER_PIECE	24
#define IGEMM_V3D_PER_WORD	49
#define IGEMM_V3D_PER_PIECE	20

double nn_qint8_issue(const struct qpu_nn_graph *g, const struct nn_node *n, int v3d,
		      unsigned int qpus)
{
	struct qgeo q;
	size_t pieces;

	geo(g, n, &q);
	pieces = q.images * q.rows * q.npad / 16;
	return (double)((pieces + qpus - 1) / qpus) *
	       ((double)q.k4 * (v3d ? IGEMM_V3D_PER_WORD : IGEMM_VC4_PER_WORD) +
		(v3d ? IGEMM_V3D_PER_PIECE : IGEMM_VC4_PER_PIECE));
}

int nn_qint8_run(struct qpu_nn_graph *g, struct nn_node *n, void *scratch,
		 int (*done)(struct qpu_nn_graph *, struct nn_node *, int))
{
	const struct nn_tensor *w = &g->t[n->in[3]], *y = &g->t[n->out[0]];
	/* QLinearConv's B, or the bias of a QDQ Gemm fused into a QLinearMatMul */
	const int32_t *bias = n->n_in > 8 && n->in[8] >= 0 ? g->t[n->in[8]].cdata : NULL;
	int64_t za = nn_qzero(g, n, 2, 0) + (int64_t)bias8(g, n, 0);
	int32_t yz = nn_qzero(g, n, 7, 0);
	uint8_t *a, *base = scratch;
	uint32_t *s;
	int32_t *rsa, *csb;
	float *mult;
	size_t b_, i, j, k;
	struct qgeo q;
	int ret;

	geo(g, n, &q);
	a = base;
	s = (uint32_t *)(base + ALIGN64(q.rows * q.k4 * 4));
	rsa = (int32_t *)((uint8_t *)s + ALIGN64(q.rows * q.npad * 4));
	csb = (int32_t *)((uint8_t *)rsa + ALIGN64(q.rows * 4));
	mult = (float *)((uint8_t *)csb + ALIGN64(q.npad * 4));
	for (j = 0; j < q.cols; j++) {
		int32_t sum = 0;

		for (k = 0; k < q.k; k++)
			sum += nn_ld_q(w->cdata, w->dtype, q.conv ? j * q.k + k : k * q.cols + j) +
			       (int32_t)bias8(g, n, 3);
		csb[j] = sum;
		mult[j] = nn_qmult(nn_qscale(g, n, 1, 0), nn_qscale(g, n, 4, j),
				   nn_qscale(g, n, 6, 0));
	}
	for (b_ = 0; b_ < q.images; b_++) {
		struct qpu_igemm p = {
			.a = g->arena_bo, .a_off = (size_t)(a - g->arena),
			.b = g->wbo, .b_off = w->wbo_off,
			.c = g->arena_bo, .c_off = (size_t)((uint8_t *)s - g->arena),
			.m = (unsigned int)q.rows, .n = (unsigned int)q.npad,
			.k4 = (unsigned int)q.k4,
		};

		pack_a(g, n, &q, b_, a, rsa);
		ret = done(g, n, qpu_igemm_u8(g->kernels, g->qpus, &p, NULL));
		if (ret)
			return ret;
		for (i = 0; i < q.rows; i++)
			for (j = 0; j < q.cols; j++) {
				int64_t zb = nn_qzero(g, n, 5, j) + (int64_t)bias8(g, n, 3);
				int64_t acc = (int64_t)s[i * q.npad + j] - zb * rsa[i] - za * csb[j] +
					      (int64_t)q.k * za * zb + (bias ? bias[j] : 0);
				size_t yi = q.conv ? (b_ * q.cols + j) * q.rows + i : i * q.cols + j;

				nn_st_q(y->data, y->dtype, yi, nn_requant(acc, mult[j], yz, y->dtype));
			}
	}
	return 0;
}
