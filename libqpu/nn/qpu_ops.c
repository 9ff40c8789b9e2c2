// SPDX-License-Identifier: MIT
/*
 * libqpu/nn: the QPU backend (convolutions and matrix products on the
 * sample kernels' sgemm) and the time model the plan places nodes by.
 *
 * A convolution of one group is a product: Y (M x OH*OW) = W (M x C*KH*KW)
 * times the image's columns (C*KH*KW x OH*OW), gathered on the CPU into the
 * arena's scratch (im2col; a 1x1 convolution of stride 1 without pads
 * reads the image itself). qpu_sgemm() runs the product on the QPUs, then
 * the CPU adds the bias and applies the fused activation in one pass.
 * A depthwise 3x3 convolution (one channel a group) runs whole on the
 * QPUs, bias and ReLU or ReLU6 included (qpu_dwconv3x3(): dwconv.qasm),
 * and so do MaxPool, AveragePool and GlobalAveragePool (qpu_pool2d():
 * pool.qasm).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/nn_kernels.h"
#include "nn_check.h"
#include "qpu_emulator.h"
#include "qpu_timing.h"
#include "qpu_timing_v3d.h"
#include "toolkit/toolkit.h"

/*
 * The model's assumptions, per board (enum qpu_board order; NONE models a
 * Pi 1): the share of the QPUs' peak qpu_sgemm() reaches on layer-sized
 * products (VideoCore IV: its modelled 11 to 16.8 GFLOPS of 24 on a Pi 1,
 * selftests/lib/test-sgemm.c; V3D: v3d/sgemm.qasm's modelled 86 % at
 * 1024^3, less on a layer's narrower products), and the single-precision
 * GFLOPS the CPU backend's fast path is assumed to reach on the board's
 * ARM cores (the Pi 1's ARM1176 has VFP without SIMD; the Pi 2's and 3's
 * four Cortex-A7 and A53 cores have NEON; the Pi 4's Cortex-A72 at
 * 1.5 GHz and the Pi 5's A76 at 2.4 GHz two 128-bit FMA pipes each, of
 * whose 24 and 38 GFLOPS a core one thread is assumed to reach a third
 * and a half). They are estimates, not measurements: the plan says the
 * figures it compares, and QPU_NN_BIND_QPU_ALL overrides.
 */
#define NN_SGEMM_PEAK_PCT 50
#define NN_SGEMM_V3D_PEAK_PCT 75
static const double cpu_gflops[] = { 0.3, 0.3, 2.0, 4.0, 4.5, 8.0, 19.0, 19.0 };

/* Flops one QPU does per V3D clock: a 4-wide float add and multiply. */
#define QPU_FLOPS_PER_CLOCK 8

/* The VideoCore IV board named by @dev's path or $QPU_EMU_BOARD, or NONE. */
static enum qpu_board vc4_board(struct qpu_dev *dev)
{
	const char *path = qpu_dev_get_path(dev), *b;
	char name[16];
	size_t len;

	b = path ? strstr(path, "board=") : NULL;
	if (!b)
		b = getenv("QPU_EMU_BOARD");
	else
		b += strlen("board=");
	if (!b)
		return QPU_BOARD_NONE;
	len = strcspn(b, ",");
	if (len >= sizeof(name))
		return QPU_BOARD_NONE;
	memcpy(name, b, len);
	name[len] = 0;
	return qpu_board_to_v3d(qpu_board_from_name(name)) >= 0 ? QPU_BOARD_NONE :
	       qpu_board_from_name(name);
}

enum qpu_board nn_dev_board(struct qpu_dev *dev)
{
	uint64_t gen, qpus;
	int v;

	if (qpu_dev_get_param(dev, QPU_DEV_PARAM_GEN, &gen) || !qpu_gen_is_v3d((int)gen))
		return vc4_board(dev);
	/* a V3D models its generation's board, the Pi 5 by its QPU count */
	if (gen == QPU_GEN_V3D42)
		return QPU_BOARD_PI4;
	for (v = 0; v < QPU_V3D_EMU_BOARD_COUNT; v++) {
		const struct qpu_v3d_emu_board_info *i = qpu_v3d_emu_board(v);

		if (i->gen == QPU_GEN_V3D71 && !qpu_dev_get_param(dev, QPU_DEV_PARAM_NUM_QPUS, &qpus) &&
		    qpus == (uint64_t)i->slices * i->qpus_per_slice)
			return qpu_board_from_v3d((unsigned int)v);
	}
	return QPU_BOARD_PI5;
}

static const struct qpu_timing_board *board_of(enum qpu_board board)
{
	const struct qpu_timing_board *b = NULL;

	if (board != QPU_BOARD_NONE && qpu_board_to_v3d(board) < 0)
		b = qpu_timing_board_get((unsigned int)board - 1);
	return b ? b : qpu_timing_board_get(QPU_TIMING_PI1);
}

/*
 * What the model takes of @board: its QPUs, their clock (Hz), the share
 * of their peak sgemm reaches (percent) and a launch's host cost (ns;
 * a V3D board's is SUBMIT_CSD's, which its jobs' modelled time includes).
 */
struct nn_board {
	unsigned int qpus, sgemm_pct;
	double hz, launch_ns;
	double issue;		/* clocks a QPU takes per instruction */
	enum qpu_board mem;	/* the board whose bandwidth the model takes */
	int v3d;		/* a V3D board: */
	enum qpu_gen gen;	/* its generation (VideoCore IV's otherwise) */
	unsigned int slices;	/* its slices, each with a TMU */
	double tmu_line;	/* clocks a slice's TMU takes a line a lookup */
};

static struct nn_board board_figures(enum qpu_board board)
{
	int v = qpu_board_to_v3d(board);
	struct nn_board f;

	if (v >= 0) {
		const struct qpu_v3d_emu_board_info *i = qpu_v3d_emu_board(v);

		f.qpus = (unsigned int)i->slices * i->qpus_per_slice;
		f.hz = i->clock_mhz * 1e6;
		f.sgemm_pct = NN_SGEMM_V3D_PEAK_PCT;
		f.launch_ns = qpu_tv_board_get(v)->p[QPU_TV_CSD_SUBMIT_NS].value;
		f.issue = qpu_tv_board_get(v)->p[QPU_TV_ISSUE_CYCLES].value;
		f.mem = board;
		f.v3d = 1;
		f.gen = i->gen;
		f.slices = i->slices;
		f.tmu_line = qpu_tv_board_get(v)->p[QPU_TV_TMU_LANE_CYCLES].value;
		return f;
	}
	f.v3d = 0;
	f.gen = QPU_GEN_VC4;
	f.slices = 1;
	f.tmu_line = 0;
	f.mem = board == QPU_BOARD_NONE ? QPU_BOARD_PI1 : board;
	f.qpus = QPU_EMULATOR_NUM_QPUS;
	f.hz = board_of(board)->p[QPU_TP_V3D_MHZ].value * 1e6;
	f.sgemm_pct = NN_SGEMM_PEAK_PCT;
	f.launch_ns = (double)qpu_board_launch_ns(f.mem, QPU_LAUNCH_IOCTL);
	f.issue = board_of(board)->p[QPU_TP_ISSUE_CYCLES].value;
	return f;
}

/*
 * Instructions dwconv.qasm issues per vector of 16 outputs and per output
 * row (its "DOC: per vector"), for the plan's estimate of a depthwise
 * convolution: issue-bound when its bytes come fast enough.
 */
#define DW_ISSUE_PER_VECTOR 57
#define DW_ISSUE_PER_ROW 26
/*
 * v3d/dwconv.qasm's, at horizontal stride 1 and 2 (index 0, 1): outputs
 * a vector, instructions a vector (V3D 4.2's rotations take two more each
 * than 7.1's, which the larger count covers) and a row, and the lines a
 * vector's lookups and store touch on the slice's TMU (16 neighbouring
 * words a lookup at stride 1, 32 words apart at 2; the model books each
 * line a lookup touches, cached or not).
 */
static const struct { unsigned int out, per_vector, per_row; double lines; } dw_v3d[2] = {
	{ 14, 49, 42, 8.0 }, { 15, 61, 53, 17.0 },
};
/*
 * pool.qasm's: per vector of 16 outputs, per window row and per tap (its
 * 7 instructions and the wait for its one lookup in flight, some 7 more).
 */
#define POOL_ISSUE_PER_VECTOR 25
#define POOL_ISSUE_PER_WINDOW_ROW 6
#define POOL_ISSUE_PER_TAP 14
/*
 * v3d/pool.qasm's, a maximum's and an average's (index 0, 1): per vector
 * and per tap (a lookup issued, the last one taken, the next tap's row
 * and column worked out each time).
 */
static const struct { unsigned int per_vector, per_tap; } pool_v3d[2] = {
	{ 29, 21 }, { 45, 24 },
};

/* The node is a depthwise convolution of one channel a group. */
static int depthwise(const struct qpu_nn_graph *g, const struct nn_node *n)
{
	return n->kind == NN_CONV && n->win.group > 1 &&
	       g->t[n->in[1]].dims[0] == n->win.group && g->t[n->in[1]].dims[1] == 1;
}

static int pooling(const struct nn_node *n)
{
	return n->kind == NN_MAXPOOL || n->kind == NN_AVGPOOL || n->kind == NN_GAVGPOOL;
}

/* The channels a global pooling lays across the lanes (pool.qasm). */
static unsigned int gap_across(const struct nn_tensor *x)
{
	return x->dims[1] % 16 ? (unsigned int)x->dims[1] : 16;
}

/* A pooling's window and planes as pool.qasm takes them. */
static void pool_of(const struct qpu_nn_graph *g, const struct nn_node *n, struct qpu_pool *p)
{
	const struct nn_tensor *x = &g->t[n->in[0]], *y = &g->t[n->out[0]];
	const struct nn_win *w = &n->win;
	int global = n->kind == NN_GAVGPOOL;
	unsigned int across;

	if (global) {	/* "DOC: global pooling" */
		across = gap_across(x);
		*p = (struct qpu_pool){
			.win = {
				.c = (unsigned int)x->dims[1] / across,
				.h = (unsigned int)(x->dims[2] * x->dims[3]), .w = across,
				.oh = 1, .ow = across, .stride_h = 1, .stride_w = 1,
			},
			.kh = (unsigned int)(x->dims[2] * x->dims[3]), .kw = 1,
			.average = 1, .channels_across = 1,
		};
		return;
	}
	*p = (struct qpu_pool){
		.win = {
			.c = (unsigned int)x->dims[1],
			.h = (unsigned int)x->dims[2], .w = (unsigned int)x->dims[3],
			.oh = (unsigned int)y->dims[2], .ow = (unsigned int)y->dims[3],
			.stride_h = (unsigned int)w->sh, .stride_w = (unsigned int)w->sw,
			.pad_top = (unsigned int)w->pt, .pad_left = (unsigned int)w->pl,
		},
		.kh = (unsigned int)w->kh, .kw = (unsigned int)w->kw,
		.pad_bottom = (unsigned int)w->pb, .pad_right = (unsigned int)w->pr,
		.average = n->kind != NN_MAXPOOL,
		.count_pad = w->count_pad,
	};
}

/* The taps of pooling node @n: window elements over all outputs. */
static double pool_taps(const struct qpu_nn_graph *g, const struct nn_node *n)
{
	struct qpu_pool p;

	pool_of(g, n, &p);
	return (double)g->t[n->out[0]].count * p.kh * p.kw;
}

/* The instructions a window kernel issues for node @n, all programs'. */
static double window_issue_instructions(const struct qpu_nn_graph *g, const struct nn_node *n,
					int v3d)
{
	const struct nn_tensor *y = &g->t[n->out[0]];
	double rows = (double)(y->dims[0] * y->dims[1] * y->dims[2]);
	double nvec = (double)((y->dims[3] + 15) / 16);
	struct qpu_pool p;
	int s;

	if (!pooling(n) && v3d) {
		s = n->win.sw > 1;
		nvec = (double)((y->dims[3] + dw_v3d[s].out - 1) / dw_v3d[s].out);
		return rows * (dw_v3d[s].per_row + nvec * dw_v3d[s].per_vector);
	}
	if (!pooling(n))
		return rows * (DW_ISSUE_PER_ROW + nvec * DW_ISSUE_PER_VECTOR);
	pool_of(g, n, &p);
	rows = (double)y->dims[0] * p.win.c * p.win.oh;
	nvec = (double)((p.win.ow + 15) / 16);
	if (v3d)
		return rows * nvec * (pool_v3d[p.average].per_vector +
				      (double)p.kh * p.kw * pool_v3d[p.average].per_tap);
	return rows * nvec * (POOL_ISSUE_PER_VECTOR +
			      p.kh * (POOL_ISSUE_PER_WINDOW_ROW + p.kw * (double)POOL_ISSUE_PER_TAP));
}

/*
 * The TMU lines a V3D window kernel's lookups and stores touch for node
 * @n: a depthwise vector's (dw_v3d); a pooling tap's 16 lanes, sw words
 * apart, sw + 1 lines (a global pooling's lanes a plane apart: one line
 * each), and a store's 2.
 */
static double window_v3d_lines(const struct qpu_nn_graph *g, const struct nn_node *n)
{
	const struct nn_tensor *y = &g->t[n->out[0]];
	struct qpu_pool p;
	int s = n->win.sw > 1;

	if (!pooling(n))
		return (double)(y->dims[0] * y->dims[1] * y->dims[2]) *
		       (double)((y->dims[3] + dw_v3d[s].out - 1) / dw_v3d[s].out) * dw_v3d[s].lines;
	pool_of(g, n, &p);
	return (double)y->dims[0] * p.win.c * p.win.oh * ((p.win.ow + 15) / 16) *
	       ((double)p.kh * p.kw * (p.channels_across ? p.win.w : p.win.stride_w + 1.0) + 2);
}

uint64_t nn_qpu_model_ns(enum qpu_board board, const struct qpu_nn_graph *g,
			 const struct nn_node *n)
{
	struct nn_board f = board_figures(board);
	double peak = f.qpus * QPU_FLOPS_PER_CLOCK * f.hz;
	double ns = 2.0 * (double)n->macs / (peak * f.sgemm_pct / 100.0) * 1e9;
	double bw = (double)qpu_board_mem_bytes_per_s(f.mem);
	double mem = bw > 0 ? (double)n->bytes / bw * 1e9 : 0.0;

	if (depthwise(g, n) || pooling(n))
		ns = window_issue_instructions(g, n, f.v3d) * f.issue / f.qpus / f.hz * 1e9;
	if ((depthwise(g, n) || pooling(n)) && f.v3d) {	/* or its slices' TMUs */
		double tmu = window_v3d_lines(g, n) * f.tmu_line / f.slices / f.hz * 1e9;

		if (tmu > ns)
			ns = tmu;
	}
	else if (nn_qdw8(g, n))
		ns = nn_qdw8_issue(g, n, f.gen, f.qpus) * f.issue / f.hz * 1e9;
	if (nn_qdw8(g, n) && !f.v3d) {	/* or the one VCD DMA engine's stores */
		const struct qpu_timing_board *t = board_of(board);
		double dma = nn_qdw8_dma_cycles(g, n, t->p[QPU_TP_DMA_SETUP_CYCLES].value,
						t->p[QPU_TP_DMA_ROW_CYCLES].value,
						t->p[QPU_TP_DMA_BYTES_PER_CYCLE].value) / f.hz * 1e9;

		if (dma > ns)
			ns = dma;
	}
	else if (nn_qint8(n))
		ns = nn_qint8_issue(g, n, qpu_board_to_v3d(board) >= 0, f.qpus) * f.issue / f.hz * 1e9;
	return (uint64_t)((ns > mem ? ns : mem) + f.launch_ns);
}

uint64_t nn_cpu_model_ns(enum qpu_board board, const struct qpu_nn_graph *g,
			 const struct nn_node *n)
{
	unsigned int i = (unsigned int)board < sizeof(cpu_gflops) / sizeof(cpu_gflops[0]) ?
			 (unsigned int)board : 0;
	enum qpu_board kb = board == QPU_BOARD_NONE ? QPU_BOARD_PI1 : board;
	double flops = 2.0 * (double)n->macs / cpu_gflops[i];

	if (pooling(n))		/* one operation (a max or an add) a tap */
		flops = (double)pool_taps(g, n) / cpu_gflops[i];
	double mem = (double)n->bytes / (double)qpu_board_mem_bytes_per_s(kb) * 1e9;

	return (uint64_t)(flops > mem ? flops : mem);
}

void nn_model_shares(enum qpu_board board, const struct nn_node *n, double *flops_pct,
		     double *bw_pct)
{
	struct nn_board f = board_figures(board);
	double peak = f.qpus * QPU_FLOPS_PER_CLOCK * f.hz;
	double s = (double)n->model_ns / 1e9;

	*flops_pct = *bw_pct = 0.0;
	if (!n->model_ns)
		return;
	if (n->where == QPU_NN_WHERE_QPU)
		*flops_pct = 100.0 * 2.0 * (double)n->macs / s / peak;
	*bw_pct = 100.0 * (double)n->bytes / s / (double)qpu_board_mem_bytes_per_s(f.mem);
}

/* The constant B of a product, as K x N (row-major) in the weight buffer. */
static int const_b(const struct qpu_nn_graph *g, const struct nn_node *n)
{
	return g->t[n->in[1]].is_const;
}

const char *nn_window_unable(const struct nn_tensor *x, const struct nn_tensor *y,
				 const struct nn_win *w)
{
	if (w->sh > QPU_WINDOW_MAX_STRIDE || w->sw > QPU_WINDOW_MAX_STRIDE)
		return "strides over 15";
	if (x->dims[2] * x->dims[3] > QPU_WINDOW_MAX_PLANE ||
	    y->dims[2] * y->dims[3] > QPU_WINDOW_MAX_PLANE)
		return "planes over the kernel's 4 M elements";
	if (w->pt > x->dims[2] || w->pl > x->dims[3])
		return "pads larger than the input";
	return NULL;
}

/* Why dwconv.qasm cannot run depthwise node @n, or NULL if it can. */
static const char *dw_unable(const struct qpu_nn_graph *g, const struct nn_node *n)
{
	const struct nn_win *w = &n->win;
	const struct nn_tensor *x = &g->t[n->in[0]], *y = &g->t[n->out[0]];

	if (!depthwise(g, n))
		return "groups of more than one channel";
	if (w->kh != 3 || w->kw != 3)
		return "a depthwise kernel other than 3x3";
	if (!const_b(g, n) || (n->n_in > 2 && n->in[2] >= 0 && !g->t[n->in[2]].is_const))
		return "weights or bias computed at run time";
	if (qpu_gen_is_v3d(g->gen) && w->sw > QPU_DWCONV_V3D_MAX_STRIDE_W)
		return "a horizontal stride over V3D's 2";
	return nn_window_unable(x, y, w);
}

int nn_qpu_able(const struct qpu_nn_graph *g, const struct nn_node *n, char *why, size_t len)
{
	const char *no;

	snprintf(why, len, "no QPU kernel for %s", n->op);
	if (g->t[n->in[0]].is_const)	/* the QPUs read it from the arena */
		return 0;
	if (pooling(n)) {
		no = n->kind == NN_GAVGPOOL ? NULL :
		     nn_window_unable(&g->t[n->in[0]], &g->t[n->out[0]], &n->win);
		if (no)
			snprintf(why, len, "no QPU kernel for %s with %s", n->op, no);
		return !no;
	}
	if (nn_qint8(n)) {
		no = nn_qint8_unable(g, n);
		if (no)
			snprintf(why, len, "no QPU kernel for %s with %s", n->op, no);
		return !no;
	}
	if (!n->macs)
		return 0;
	switch (n->kind) {
	case NN_CONV:
		if (n->win.group == 1)
			return const_b(g, n);
		no = dw_unable(g, n);
		if (no)
			snprintf(why, len, "no QPU kernel for %s with %s", n->op, no);
		return !no;
	case NN_GEMM:
		return const_b(g, n);
	case NN_MATMUL:
		return const_b(g, n) && g->t[n->in[0]].rank == 2 && g->t[n->in[1]].rank == 2;
	default:
		return 0;
	}
}

static int direct_1x1(const struct qpu_nn_graph *g, const struct nn_node *n)
{
	const struct nn_win *w = &n->win;

	(void)g;
	return w->kh == 1 && w->kw == 1 && w->sh == 1 && w->sw == 1 && !w->pt && !w->pl &&
	       !w->pb && !w->pr;
}

size_t nn_qpu_scratch(const struct qpu_nn_graph *g, const struct nn_node *n)
{
	const struct nn_tensor *y = &g->t[n->out[0]];

	if (nn_qdw8(g, n))
		return nn_qdw8_scratch(g, n);
	if (nn_qint8(n))
		return nn_qint8_scratch(g, n);
	switch (n->kind) {
	case NN_CONV:
		if (n->win.group > 1 || direct_1x1(g, n))
			return 0;
		return (size_t)(g->t[n->in[1]].count / (size_t)y->dims[1]) *
		       (size_t)(y->dims[2] * y->dims[3]) * sizeof(float);
	case NN_GEMM:
		return n->trans_a ? g->t[n->in[0]].bytes : 0;
	default:
		return 0;
	}
}

/* The K x N matrix a product's constant B gives the QPUs. */
static void b_matrix(const struct qpu_nn_graph *g, const struct nn_node *n, size_t *k, size_t *cols)
{
	const struct nn_tensor *b = &g->t[n->in[1]];

	if (n->kind == NN_CONV) {	/* W is the A operand: M x C*KH*KW */
		*k = (size_t)b->dims[0];
		*cols = b->count / *k;
	} else if (n->kind == NN_GEMM && n->trans_b) {
		*k = (size_t)b->dims[1];
		*cols = (size_t)b->dims[0];
	} else {
		*k = (size_t)b->dims[0];
		*cols = (size_t)b->dims[1];
	}
}

/* The constant operand a product's kernel reads from the weight buffer. */
static int weights_of(const struct nn_node *n)
{
	return nn_qint8(n) ? n->in[3] : n->in[1];
}

int nn_qpu_prepare(struct qpu_nn_graph *g)
{
	size_t total = 0, k, cols, i, j;
	unsigned int ni;
	uint8_t *map;

	for (ni = 0; ni < g->n_nodes; ni++) {
		struct nn_node *n = &g->node[ni];
		struct nn_tensor *b;

		if (n->where != QPU_NN_WHERE_QPU || pooling(n) || depthwise(g, n) ||
		    nn_qdw8(g, n))	/* uniforms */
			continue;
		b = &g->t[weights_of(n)];
		if (b->in_wbo)
			continue;
		b->in_wbo = 1;
		b->wbo_off = total;
		total += ((nn_qint8(n) ? nn_qint8_wbo_bytes(g, n) : b->bytes) + 63) & ~(size_t)63;
	}
	if (!total)
		return 0;
	g->wbo = qpu_bo_new(g->dev, total);
	if (!g->wbo) {
		nn_err(g, "no device buffer of %zu bytes for the QPUs' weights", total);
		return -ENOMEM;
	}
	map = qpu_bo_get_map(g->wbo);
	for (ni = 0; ni < g->n_nodes; ni++) {
		struct nn_node *n = &g->node[ni];
		const struct nn_tensor *b;
		float *dst;
		const float *src;

		if (n->where != QPU_NN_WHERE_QPU || pooling(n) || depthwise(g, n) ||
		    nn_qdw8(g, n))
			continue;
		b = &g->t[weights_of(n)];
		if (nn_qint8(n)) {
			nn_qint8_pack_weights(g, n, map + b->wbo_off);
			continue;
		}
		dst = (float *)(map + b->wbo_off);
		src = b->cdata;
		b_matrix(g, n, &k, &cols);
		if (n->kind == NN_GEMM && n->trans_b) {	/* stored N x K: transposed */
			for (i = 0; i < k; i++)
				for (j = 0; j < cols; j++)
					dst[i * cols + j] = src[j * k + i];
		} else {
			memcpy(dst, src, b->bytes);
		}
	}
	return 0;
}

static size_t arena_off(const struct qpu_nn_graph *g, const void *p)
{
	return (size_t)((const uint8_t *)p - g->arena);
}

struct qpu_bo *nn_qpu_bo_at(const struct qpu_nn_graph *g, const void *p, size_t *off)
{
	const uint8_t *b = p;

	if (g->ext_bo && b >= g->ext_map && b < g->ext_map + g->ext_bytes) {
		*off = (size_t)(b - g->ext_map);
		return g->ext_bo;
	}
	*off = arena_off(g, p);
	return g->arena_bo;
}

int nn_qpu_reads_input(const struct qpu_nn_graph *g, const struct nn_node *n)
{
	if (depthwise(g, n) || pooling(n) || nn_qdw8(g, n))
		return 1;
	if (n->kind == NN_CONV)
		return direct_1x1(g, n);
	return !(n->kind == NN_GEMM && n->trans_a);
}

/* After a kernel's call that returned @ret: its error, or its modelled time. */
static int kernel_done(struct qpu_nn_graph *g, struct nn_node *n, int ret)
{
	struct qpu_job_timing timing;

	if (ret) {
		nn_err(g, "node '%s' (%s): %s", n->name, n->op, qpu_kernels_last_error(g->kernels));
		return ret;
	}
	if (!qpu_kernels_take_timing(g->kernels, &timing))
		n->model_ns += timing.ns + timing.launch_ns;
	return 0;
}

static int sgemm(struct qpu_nn_graph *g, struct nn_node *n, float alpha,
		 const struct qpu_matrix *a, const struct qpu_matrix *b, const struct qpu_matrix *c)
{
	return kernel_done(g, n, qpu_sgemm(g->kernels, g->qpus, alpha, a, b, 0.0f, c, NULL));
}

static int run_conv(struct qpu_nn_graph *g, struct nn_node *n, void *scratch)
{
	const struct nn_tensor *x = &g->t[n->in[0]], *w = &g->t[n->in[1]], *y = &g->t[n->out[0]];
	size_t M = (size_t)y->dims[1], P = (size_t)(y->dims[2] * y->dims[3]);
	size_t K = w->count / M, C = (size_t)x->dims[1], HW = (size_t)(x->dims[2] * x->dims[3]);
	const float *bias = n->n_in > 2 && n->in[2] >= 0 ? g->t[n->in[2]].cdata : NULL;
	struct qpu_matrix ma = { g->wbo, w->wbo_off, M, K, K }, mb, mc;
	int64_t b_;
	size_t m, p;
	int ret;

	for (b_ = 0; b_ < x->dims[0]; b_++) {
		const float *xb = (const float *)x->data + (size_t)b_ * C * HW;
		float *yb = (float *)y->data + (size_t)b_ * M * P;

		if (direct_1x1(g, n)) {
			size_t off;
			struct qpu_bo *bo = nn_qpu_bo_at(g, xb, &off);

			mb = (struct qpu_matrix){ bo, off, K, P, P };
		} else {
			nn_im2col(xb, (int64_t)C, x->dims[2], x->dims[3], &n->win, y->dims[2],
				  y->dims[3], scratch);
			mb = (struct qpu_matrix){ g->arena_bo, arena_off(g, scratch), K, P, P };
		}
		mc = (struct qpu_matrix){ g->arena_bo, arena_off(g, yb), M, P, P };
		ret = sgemm(g, n, 1.0f, &ma, &mb, &mc);
		if (ret)
			return ret;
		for (m = 0; m < M; m++) {
			float *row = yb + m * P;

			if (bias)
				for (p = 0; p < P; p++)
					row[p] += bias[m];
			nn_apply_act(n, row, P);
		}
	}
	return 0;
}

static int run_product(struct qpu_nn_graph *g, struct nn_node *n, void *scratch)
{
	const struct nn_tensor *a = &g->t[n->in[0]], *b = &g->t[n->in[1]], *y = &g->t[n->out[0]];
	size_t M = (size_t)y->dims[0], N = (size_t)y->dims[1], K, cols, i, j;
	const float *ap = a->data;
	struct qpu_matrix ma, mb, mc;
	int ret;

	b_matrix(g, n, &K, &cols);
	if (n->kind == NN_GEMM && n->trans_a) {
		float *t = scratch;

		for (i = 0; i < M; i++)
			for (j = 0; j < K; j++)
				t[i * K + j] = ap[j * M + i];
		ap = t;
	}
	ma = (struct qpu_matrix){ NULL, 0, M, K, K };
	ma.bo = nn_qpu_bo_at(g, ap, &ma.offset);
	mb = (struct qpu_matrix){ g->wbo, b->wbo_off, K, N, N };
	mc = (struct qpu_matrix){ g->arena_bo, arena_off(g, y->data), M, N, N };
	ret = sgemm(g, n, n->kind == NN_GEMM ? n->alpha : 1.0f, &ma, &mb, &mc);
	if (ret)
		return ret;
	if (n->kind == NN_GEMM && n->n_in > 2 && n->in[2] >= 0) {
		const struct nn_tensor *c = &g->t[n->in[2]];
		const float *cp = nn_ptr(g, n->in[2]);
		size_t si = c->rank == 2 && c->dims[0] > 1 ? (size_t)c->dims[1] : 0;
		size_t sj = c->rank >= 1 && c->dims[c->rank - 1] > 1 ? 1 : 0;
		float *yp = y->data;

		for (i = 0; i < M; i++)
			for (j = 0; j < N; j++)
				yp[i * N + j] += n->beta * cp[i * si + j * sj];
	}
	nn_apply_act(n, y->data, y->count);
	return 0;
}

/* The fused activation as the kernel's clamp; 0 if the CPU must apply it. */
static int act_clamp(const struct nn_node *n, float *lo, float *hi)
{
	*lo = -INFINITY;
	*hi = INFINITY;
	switch (n->act) {
	case NN_ACT_NONE:
		return 1;
	case NN_ACT_RELU:
		*lo = 0.0f;
		return 1;
	case NN_ACT_CLIP:
		*lo = n->act_a;
		*hi = n->act_b;
		return 1;
	default:
		return 0;
	}
}

/* A window kernel, @dw or @pool, on each image of the batch. */
static int run_window(struct qpu_nn_graph *g, struct nn_node *n, struct qpu_dwconv *dw,
		      struct qpu_pool *pool)
{
	const struct nn_tensor *x = &g->t[n->in[0]], *y = &g->t[n->out[0]];
	size_t xb = x->bytes / (size_t)x->dims[0], yb = y->bytes / (size_t)y->dims[0];
	size_t x_off, y_off = arena_off(g, y->data);
	struct qpu_bo *xbo = nn_qpu_bo_at(g, x->data, &x_off);
	int64_t b_;
	int ret;

	if (dw)
		dw->x = xbo;
	else
		pool->x = xbo;

	for (b_ = 0; b_ < x->dims[0]; b_++, x_off += xb, y_off += yb) {
		if (dw) {
			dw->x_off = x_off;
			dw->y_off = y_off;
			ret = qpu_dwconv3x3(g->kernels, g->qpus, dw, NULL);
		} else {
			pool->x_off = x_off;
			pool->y_off = y_off;
			ret = qpu_pool2d(g->kernels, g->qpus, pool, NULL);
		}
		ret = kernel_done(g, n, ret);
		if (ret)
			return ret;
	}
	return 0;
}

static int run_dwconv(struct qpu_nn_graph *g, struct nn_node *n)
{
	const struct nn_tensor *x = &g->t[n->in[0]], *w = &g->t[n->in[1]], *y = &g->t[n->out[0]];
	struct qpu_dwconv p = {
		.x = g->arena_bo, .y = g->arena_bo,
		.win = {
			.c = (unsigned int)y->dims[1],
			.h = (unsigned int)x->dims[2], .w = (unsigned int)x->dims[3],
			.oh = (unsigned int)y->dims[2], .ow = (unsigned int)y->dims[3],
			.stride_h = (unsigned int)n->win.sh, .stride_w = (unsigned int)n->win.sw,
			.pad_top = (unsigned int)n->win.pt, .pad_left = (unsigned int)n->win.pl,
		},
		.weights = w->cdata,
		.bias = n->n_in > 2 && n->in[2] >= 0 ? g->t[n->in[2]].cdata : NULL,
	};
	int on_qpus = act_clamp(n, &p.lo, &p.hi), ret;

	ret = run_window(g, n, &p, NULL);
	if (!ret && !on_qpus)
		nn_apply_act(n, y->data, y->count);
	return ret;
}

static int run_pool(struct qpu_nn_graph *g, struct nn_node *n)
{
	struct qpu_pool p;

	pool_of(g, n, &p);
	p.x = p.y = g->arena_bo;
	return run_window(g, n, NULL, &p);
}

int nn_qpu_run(struct qpu_nn_graph *g, struct nn_node *n, void *scratch)
{
	if (nn_qdw8(g, n))
		return nn_qdw8_run(g, n, scratch, kernel_done);
	if (nn_qint8(n))
		return nn_qint8_run(g, n, scratch, kernel_done);
	if (depthwise(g, n))
		return run_dwconv(g, n);
	if (pooling(n))
		return run_pool(g, n);
	if (n->kind == NN_CONV)
		return run_conv(g, n, scratch);
	return run_product(g, n, scratch);
}
