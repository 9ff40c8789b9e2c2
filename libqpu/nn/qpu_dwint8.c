// SPDX-License-Identifier: MIT
/*
 * libqpu/nn: the depthwise QLinearConv 3x3 (one channel a group; also a
 * fused QDQ depthwise Conv) on the QPUs' byte program,
 * qpu_dwconv3x3_u8() (kernels/dwconv_u8.qasm). Unlike qpu_int8.c's
 * product, nothing of the layer runs on the CPU: the program reads x's
 * bytes where they lie, requantizes exactly as nn_requant() (the
 * program's "DOC: requantization") and writes y's bytes, the fused Relu
 * or Clip too. The host's part is per channel: the weights less their
 * zero point, the bias, the multiplier (nn_qmult(), as the reference).
 * What the program cannot keep exact (kernels/nn_kernels.h's
 * qpu_dwconv_u8_unable()) keeps the node on the CPU with the reason.
 */
#include <stdlib.h>
#include <string.h>

#include "kernels/nn_kernels.h"
#include "nn_check.h"

#define ALIGN64(x)	(((x) + 63) & ~(size_t)63)

int nn_qdw8(const struct qpu_nn_graph *g, const struct nn_node *n)
{
	const struct nn_tensor *w;

	if (n->kind != NN_QLINEARCONV || n->win.group <= 1)
		return 0;
	w = &g->t[n->in[3]];
	return w->dims[0] == n->win.group && w->dims[1] == 1 &&
	       g->t[n->in[0]].dims[1] == n->win.group;
}

/* The per-channel constants in scratch: weights, biases, multipliers. */
struct qdw8 {
	int16_t *w;
	int32_t *bias;
	float *mult;
};

static size_t channels(const struct qpu_nn_graph *g, const struct nn_node *n)
{
	return (size_t)g->t[n->in[3]].dims[0];
}

/* The program's planes: every image's channels, planes after planes. */
static size_t planes(const struct qpu_nn_graph *g, const struct nn_node *n)
{
	return (size_t)g->t[n->in[0]].dims[0] * channels(g, n);
}

size_t nn_qdw8_scratch(const struct qpu_nn_graph *g, const struct nn_node *n)
{
	size_t c = planes(g, n);

	return ALIGN64(c * 9 * sizeof(int16_t)) + ALIGN64(c * sizeof(int32_t)) + c * sizeof(float);
}

static struct qdw8 qdw8_at(const struct qpu_nn_graph *g, const struct nn_node *n, void *scratch)
{
	size_t c = planes(g, n);
	uint8_t *b = scratch;
	struct qdw8 q;

	q.w = (int16_t *)b;
	q.bias = (int32_t *)(b + ALIGN64(c * 9 * sizeof(int16_t)));
	q.mult = (float *)((uint8_t *)q.bias + ALIGN64(c * sizeof(int32_t)));
	return q;
}

/* The unsigned domain's offset of input @k's bytes (int8: 128). */
static int32_t off8(const struct qpu_nn_graph *g, const struct nn_node *n, unsigned int k)
{
	return g->t[n->in[k]].dtype == QPU_NN_INT8 ? 128 : 0;
}

/* @n's call of the program, its constants in @q (filled), the image's offsets left 0. */
static void qdw8_call(const struct qpu_nn_graph *g, const struct nn_node *n, struct qdw8 *q,
		      struct qpu_dwconv_u8 *p)
{
	const struct nn_tensor *x = &g->t[n->in[0]], *w = &g->t[n->in[3]], *y = &g->t[n->out[0]];
	const int32_t *bias = n->n_in > 8 && n->in[8] >= 0 ? g->t[n->in[8]].cdata : NULL;
	int32_t yo = y->dtype == QPU_NN_INT8 ? 128 : 0;
	size_t c, j, C = channels(g, n), P = planes(g, n);

	for (c = 0; c < C; c++) {
		int32_t zw = nn_qzero(g, n, 5, c);

		for (j = 0; j < 9; j++)
			q->w[c * 9 + j] = (int16_t)(nn_ld_q(w->cdata, w->dtype, c * 9 + j) - zw);
		q->bias[c] = bias ? bias[c] : 0;
		q->mult[c] = nn_qmult(nn_qscale(g, n, 1, 0), nn_qscale(g, n, 4, c),
				      nn_qscale(g, n, 6, 0));
	}
	for (c = C; c < P; c++) {	/* the next images' planes: the same channels */
		memcpy(&q->w[c * 9], &q->w[(c - C) * 9], 9 * sizeof(*q->w));
		q->bias[c] = q->bias[c - C];
		q->mult[c] = q->mult[c - C];
	}
	*p = (struct qpu_dwconv_u8){
		.win = {
			.c = (unsigned int)P,
			.h = (unsigned int)x->dims[2], .w = (unsigned int)x->dims[3],
			.oh = (unsigned int)y->dims[2], .ow = (unsigned int)y->dims[3],
			.stride_h = (unsigned int)n->win.sh, .stride_w = (unsigned int)n->win.sw,
			.pad_top = (unsigned int)n->win.pt, .pad_left = (unsigned int)n->win.pl,
		},
		.w = q->w, .bias = q->bias, .mult = q->mult,
		.zx = (uint8_t)(nn_qzero(g, n, 2, 0) + off8(g, n, 0)),
		.zy = (uint8_t)(nn_qzero(g, n, 7, 0) + yo),
		.lo = (uint8_t)((n->qclamp ? n->qlo : -yo) + yo),
		.hi = (uint8_t)((n->qclamp ? n->qhi : 255 - yo) + yo),
		.x_int8 = x->dtype == QPU_NN_INT8, .y_int8 = y->dtype == QPU_NN_INT8,
	};
}

const char *nn_qdw8_unable(const struct qpu_nn_graph *g, const struct nn_node *n)
{
	const struct nn_tensor *x = &g->t[n->in[0]], *y = &g->t[n->out[0]];
	const struct nn_win *w = &n->win;
	size_t C = channels(g, n), c, bytes = nn_qdw8_scratch(g, n);
	const char *no = NULL;
	struct qpu_dwconv_u8 p;
	struct qdw8 q;
	void *tmp;

	if (w->kh != 3 || w->kw != 3)
		return "a depthwise kernel other than 3x3";
	if (w->sw > 2)
		return "a horizontal stride over the byte program's 2";
	no = nn_window_unable(x, y, w);
	if (no)
		return no;
	if (n->n_in > 8 && n->in[8] >= 0 && !g->t[n->in[8]].is_const)
		return "a bias computed at run time";
	tmp = malloc(bytes);
	if (!tmp)
		return "no memory to check its constants";
	q = qdw8_at(g, n, tmp);
	qdw8_call(g, n, &q, &p);
	for (c = 0; c < C && !no; c++)
		no = qpu_gen_is_v3d(g->gen) ? qpu_dwconv_u8_v3d_unable(&p, c) :
					      qpu_dwconv_u8_unable(&p, c);
	free(tmp);
	return no;
}

/*
 * The instructions dwconv_u8.qasm issues per vector of 64 outputs at
 * horizontal stride 1 and 2 (its "DOC: per vector": the exact path's 28
 * taken by about one output in eight), the masks' when a row has more
 * than one vector, per vector's rows (R of them, "DOC: rows and lanes")
 * and per row stored after the first; the timing model's figures for
 * MobileNet's layers are within a few percent of them (libqpu/nn/README.md,
 * "INT8 on the QPUs").
 */
static const struct { unsigned int per_vector, masks; } dw8_vc4[2] = { { 244, 34 }, { 256, 51 } };
#define DW8_VC4_PER_ROWS	38
#define DW8_VC4_PER_ROW_STORED	7
/* Outputs a vector of 16 lanes, 4 a lane (both generations' byte programs). */
#define DW8_OUT		64

/* Output rows a vector of the byte program takes, as window_u8.c deals them. */
static unsigned int dw8_rows(int64_t ow)
{
	int64_t groups = (ow + 3) / 4;

	return groups <= 8 ? (unsigned int)(16 / groups) : 1;
}

double nn_qdw8_issue(const struct qpu_nn_graph *g, const struct nn_node *n, enum qpu_gen gen,
		     unsigned int qpus)
{
	const struct nn_tensor *y = &g->t[n->out[0]];
	unsigned int s = n->win.sw > 1, r = dw8_rows(y->dims[3]);
	double groups = (double)(y->dims[0] * y->dims[1]) * (double)((y->dims[2] + r - 1) / r);
	int64_t nvec = (y->dims[3] + DW8_OUT - 1) / DW8_OUT;
	double per_vec = dw8_vc4[s].per_vector + (nvec > 1 ? dw8_vc4[s].masks : 0);
	double per_rows = DW8_VC4_PER_ROWS + (r - 1) * (double)DW8_VC4_PER_ROW_STORED;

	if (qpu_gen_is_v3d(gen)) {	/* its program's own cost, the busiest's */
		const struct nn_tensor *x = &g->t[n->in[0]];
		struct qpu_window w = {
			.c = (unsigned int)(y->dims[0] * y->dims[1]),
			.h = (unsigned int)x->dims[2], .w = (unsigned int)x->dims[3],
			.oh = (unsigned int)y->dims[2], .ow = (unsigned int)y->dims[3],
			.stride_h = (unsigned int)n->win.sh, .stride_w = (unsigned int)n->win.sw,
			.pad_top = (unsigned int)n->win.pt, .pad_left = (unsigned int)n->win.pl,
		};

		return qpu_dwconv_u8_v3d_cost(&w, qpus, gen);
	}
	return groups * (per_rows + (double)nvec * per_vec) / qpus;
}

double nn_qdw8_dma_cycles(const struct qpu_nn_graph *g, const struct nn_node *n, double setup,
			  double row, double bytes_per_cycle)
{
	const struct nn_tensor *y = &g->t[n->out[0]];
	double stores = (double)(y->dims[0] * y->dims[1] * y->dims[2]) *
			(double)((y->dims[3] + DW8_OUT - 1) / DW8_OUT);

	return stores * (setup + row) + (double)y->count / bytes_per_cycle;
}

int nn_qdw8_run(struct qpu_nn_graph *g, struct nn_node *n, void *scratch,
		int (*done)(struct qpu_nn_graph *, struct nn_node *, int))
{
	struct qdw8 q = qdw8_at(g, n, scratch);
	struct qpu_dwconv_u8 p;

	/* one call for the batch: its images' planes follow one another */
	qdw8_call(g, n, &q, &p);
	p.x = nn_qpu_bo_at(g, g->t[n->in[0]].data, &p.x_off);
	p.y = nn_qpu_bo_at(g, g->t[n->out[0]].data, &p.y_off);
	return done(g, n, qpu_dwconv3x3_u8(g->kernels, g->qpus, &p, NULL));
}
