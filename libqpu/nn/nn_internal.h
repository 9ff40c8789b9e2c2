/* SPDX-License-Identifier: MIT */
/*
 * libqpu/nn: the graph's internal structures, shared by the loader, the
 * planner and the backends.
 */
#ifndef QPU_NN_INTERNAL_H
#define QPU_NN_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "qpu.h"
#include "qpu_kernels.h"
#include "qpu_nn.h"

/* ONNX AttributeProto.AttributeType numbers the format keeps. */
enum nn_attr_type {
	NN_ATTR_FLOAT = 1,
	NN_ATTR_INT = 2,
	NN_ATTR_STRING = 3,
	NN_ATTR_FLOATS = 6,
	NN_ATTR_INTS = 7,
};

struct nn_attr {
	char *name;
	uint32_t type;		/* enum nn_attr_type, or another ONNX type (refused) */
	int used;		/* read by the operator's check */
	int64_t i;
	float f;
	char *s;
	uint32_t n;		/* elements of ints / floats */
	int64_t *ints;
	float *floats;
};

struct nn_tensor {
	char *name;
	enum qpu_nn_dtype dtype;
	unsigned int rank;
	int64_t dims[QPU_NN_MAX_RANK];
	size_t count;		/* elements */
	size_t bytes;
	int is_const;		/* an initializer or a folded result */
	void *cdata;		/* its host copy when is_const */
	int producer;		/* node index, -1 for inputs and constants */
	int is_input, is_output;
	int shaped;		/* dims known */
	int alias;		/* tensor whose bytes these are (views), or -1 */
	int first, last;	/* node indexes of its life (for the arena) */
	int quantized;
	float scale;
	int32_t zero_point;
	enum qpu_nn_layout layout;	/* graph inputs and outputs only */
	size_t arena_off;
	void *data;		/* where it is when running */
	size_t wbo_off;		/* constants the QPUs read: offset in the weight buffer */
	int in_wbo;
};

enum nn_act {
	NN_ACT_NONE,
	NN_ACT_RELU,
	NN_ACT_CLIP,
	NN_ACT_LEAKY,
	NN_ACT_SIGMOID,
	NN_ACT_HARDSWISH,
};

/* The operators, in the order of graph.c's table. */
enum nn_op {
	NN_CONV, NN_QLINEARCONV, NN_GEMM, NN_MATMUL, NN_QLINEARMATMUL,
	NN_MAXPOOL, NN_AVGPOOL, NN_GAVGPOOL,
	NN_RELU, NN_CLIP, NN_SIGMOID, NN_LEAKYRELU, NN_HARDSWISH,
	NN_ADD, NN_MUL, NN_QLINEARADD,
	NN_CONCAT, NN_RESHAPE, NN_FLATTEN, NN_IDENTITY, NN_TRANSPOSE,
	NN_SOFTMAX, NN_RESIZE, NN_QUANTIZE, NN_DEQUANTIZE,
	NN_OP_COUNT
};

/* Convolution and pooling geometry, 2-D. */
struct nn_win {
	int64_t kh, kw, sh, sw, pt, pl, pb, pr, dh, dw;
	int64_t group;
	int ceil_mode, count_pad;
};

struct nn_node {
	char *name;
	char *op;
	char *domain;
	int kind;		/* enum nn_op (graph.c) */
	unsigned int n_in, n_out;
	int *in;		/* tensor indexes, -1 for an empty input */
	int *out;
	unsigned int n_attr;
	struct nn_attr *attr;
	/* what the checks found */
	struct nn_win win;
	int64_t axis;
	int64_t perm[QPU_NN_MAX_RANK];
	float alpha, beta;
	int64_t trans_a, trans_b;
	int mode_linear;	/* Resize */
	int coord_mode;		/* Resize: enum nn_coord (ops_ref.c) */
	int nearest_mode;
	int legacy_softmax;	/* opset < 13: coerced to 2-D at axis */
	enum nn_act act;
	float act_a, act_b;
	const char *fused;	/* the activation's op name, or "" */
	int fused_into;		/* node that does this one's work, or -1 */
	enum qpu_nn_where where;
	char why[320];
	char qdq[160];		/* what the QDQ rewrite did with it, or "" (graph.c) */
	int qclamp;		/* a fused Relu or Clip as an integer clamp of the output */
	int32_t qlo, qhi;
	uint64_t macs, bytes;
	uint64_t last_ns, model_ns;
	size_t scratch;		/* bytes of arena scratch it needs */
	int qpu_able;		/* a QPU kernel exists for its shape */
	void *xnn_op;		/* its XNNPACK operator (xnnpack.c), or NULL */
	void *qfast;		/* its INT8 fast path's packed constants (ops_fast_int8.c) */
	int xnn_mode;
};

struct nn_graph_io {
	unsigned int n;
	int *t;			/* tensor indexes */
};

struct qpu_nn_graph {
	uint32_t opset;
	unsigned int n_tensors, n_nodes;
	struct nn_tensor *t;
	struct nn_node *node;
	struct nn_graph_io in, out;
	char err[256];
	int bound;
	unsigned int flags;
	struct qpu_dev *dev;
	struct qpu_kernels *kernels;
	struct qpu_bo *arena_bo;	/* the arena on a device */
	void *arena_host;		/* or on the host */
	uint8_t *arena;
	size_t arena_bytes, scratch_off, scratch_bytes;
	size_t staging_off;		/* NCHW copies of NHWC inputs/outputs */
	struct qpu_bo *wbo;		/* constants the QPUs read */
	enum qpu_board board;
	unsigned int qpus;		/* the device's QPU_DEV_PARAM_NUM_QPUS */
	int gen;			/* its enum qpu_gen (QPU_DEV_PARAM_GEN) */
	/* qpu_nn_run_input()'s buffer holding input 0 during the run, or NULL */
	struct qpu_bo *ext_bo;
	uint8_t *ext_map;
	size_t ext_bytes;
};

/* format.c: a .qnn image into @g (tensors, nodes, attributes). */
int nn_format_parse(struct qpu_nn_graph *g, const uint8_t *p, size_t size);

/* graph.c */
void nn_err(struct qpu_nn_graph *g, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
size_t nn_dtype_size(enum qpu_nn_dtype dtype);
const char *nn_dtype_name(enum qpu_nn_dtype dtype);
static inline void *nn_ptr(const struct qpu_nn_graph *g, int t)
{
	return g->t[t].is_const ? g->t[t].cdata : g->t[t].data;
}

/* ops_ref.c: the portable reference of every operator; @scratch is
 * node->scratch bytes. Return 0 or -EINVAL (a value the operator cannot
 * take, said in g->err). */
int nn_ref_run(struct qpu_nn_graph *g, struct nn_node *n, void *scratch);
void nn_apply_act(const struct nn_node *n, float *y, size_t count);
size_t nn_ref_scratch(const struct qpu_nn_graph *g, const struct nn_node *n);
int64_t nn_pool_out(int64_t in, int64_t k, int64_t s, int64_t pa, int64_t pb, int ceil_mode);
/*
 * The quantized operators' arithmetic, one copy for the reference and the
 * QPU backend (so the two agree bit for bit): element @i of @d's values
 * at @p; quantization parameter @k of @n for element @i (per tensor or
 * per axis; a missing zero point is 0); ONNX's multiplier s_in * s_w /
 * s_y in float; an integer accumulator requantized (the product in
 * double, rounded half to even, plus the zero point, saturated).
 */
int32_t nn_ld_q(const void *p, enum qpu_nn_dtype d, size_t i);
void nn_st_q(void *p, enum qpu_nn_dtype d, size_t i, int32_t v);
float nn_qscale(const struct qpu_nn_graph *g, const struct nn_node *n, unsigned int k, size_t i);
int32_t nn_qzero(const struct qpu_nn_graph *g, const struct nn_node *n, unsigned int k, size_t i);
float nn_qmult(float s_in, float s_w, float s_y);
/* QuantizeLinear of one value: @v / @scale rounded half to even, plus @zp, saturated. */
int32_t nn_quantize1(float v, float scale, int32_t zp, enum qpu_nn_dtype d);
int32_t nn_requant(int64_t acc, float mult, int32_t zp, enum qpu_nn_dtype d);

/* ops_fast.c: the CPU's fast path; returns 1 when it ran the node, 0 when
 * the reference must. */
/* 0: not taken (the reference runs); 1: done; 2: done, a fused clamp (qclamp) too */
int nn_fast_run(struct qpu_nn_graph *g, struct nn_node *n, void *scratch);
size_t nn_fast_scratch(const struct qpu_nn_graph *g, const struct nn_node *n);
int nn_qfast_run(struct qpu_nn_graph *g, struct nn_node *n, void *scratch);
size_t nn_qfast_scratch(const struct qpu_nn_graph *g, const struct nn_node *n);
void nn_fast_free(struct nn_node *n);
void nn_sgemm_cpu(size_t m, size_t n, size_t k, const float *a, size_t lda,
		  const float *b, size_t ldb, float *c, size_t ldc, float *pack);
void nn_im2col(const float *x, int64_t c, int64_t h, int64_t w, const struct nn_win *win,
	       int64_t oh, int64_t ow, float *col);

/* xnnpack.c: convolutions through XNNPACK where the machine has it. */
int nn_xnn_available(void);
int nn_xnn_create(struct qpu_nn_graph *g, struct nn_node *n);
size_t nn_xnn_scratch(const struct qpu_nn_graph *g, const struct nn_node *n);
int nn_xnn_setup(struct qpu_nn_graph *g, struct nn_node *n, void *scratch);
int nn_xnn_run(struct qpu_nn_graph *g, struct nn_node *n, void *scratch);
void nn_xnn_free(struct nn_node *n);

/* qpu_ops.c: the QPU backend. */
/* The board the plan models @dev as (its generation's for a V3D). */
enum qpu_board nn_dev_board(struct qpu_dev *dev);
/* 1 if a QPU kernel takes @n; else 0 and @why says what it lacks. */
int nn_qpu_able(const struct qpu_nn_graph *g, const struct nn_node *n, char *why, size_t len);
size_t nn_qpu_scratch(const struct qpu_nn_graph *g, const struct nn_node *n);
int nn_qpu_prepare(struct qpu_nn_graph *g);
int nn_qpu_run(struct qpu_nn_graph *g, struct nn_node *n, void *scratch);
/* 1 if @n's first QPU job reads its input 0 with no CPU work before it. */
int nn_qpu_reads_input(const struct qpu_nn_graph *g, const struct nn_node *n);
uint64_t nn_qpu_model_ns(enum qpu_board board, const struct qpu_nn_graph *g,
			 const struct nn_node *n);
uint64_t nn_cpu_model_ns(enum qpu_board board, const struct qpu_nn_graph *g,
			 const struct nn_node *n);
void nn_model_shares(enum qpu_board board, const struct nn_node *n, double *flops_pct,
		     double *bw_pct);

/* qpu_int8.c: QLinearConv and QLinearMatMul on the QPUs' integer product. */
int nn_qint8(const struct nn_node *n);
/* Why the integer product cannot take @n, or NULL if it can. */
const char *nn_qint8_unable(const struct qpu_nn_graph *g, const struct nn_node *n);
size_t nn_qint8_scratch(const struct qpu_nn_graph *g, const struct nn_node *n);
/* The weight buffer's bytes for @n's packed weights, and their packing. */
size_t nn_qint8_wbo_bytes(const struct qpu_nn_graph *g, const struct nn_node *n);
void nn_qint8_pack_weights(const struct qpu_nn_graph *g, const struct nn_node *n, uint8_t *dst);
/* Run @n; @done takes each kernel call's return (its error or timing). */
int nn_qint8_run(struct qpu_nn_graph *g, struct nn_node *n, void *scratch,
		 int (*done)(struct qpu_nn_graph *, struct nn_node *, int));
/* The instruction times the busiest of @qpus programs of the integer
 * product takes for @n, on VideoCore IV or (@v3d) V3D. */
double nn_qint8_issue(const struct qpu_nn_graph *g, const struct nn_node *n, int v3d,
		      unsigned int qpus);

/*
 * qpu_dwint8.c: the depthwise QLinearConv 3x3 on the byte program
 * (qpu_dwconv3x3_u8()). nn_qdw8(): @n is one (one channel a group);
 * nn_qdw8_unable(): why the program cannot take it, or NULL; the rest as
 * qpu_int8.c's.
 */
int nn_qdw8(const struct qpu_nn_graph *g, const struct nn_node *n);
const char *nn_qdw8_unable(const struct qpu_nn_graph *g, const struct nn_node *n);
size_t nn_qdw8_scratch(const struct qpu_nn_graph *g, const struct nn_node *n);
int nn_qdw8_run(struct qpu_nn_graph *g, struct nn_node *n, void *scratch,
		int (*done)(struct qpu_nn_graph *, struct nn_node *, int));
double nn_qdw8_issue(const struct qpu_nn_graph *g, const struct nn_node *n, enum qpu_gen gen,
		     unsigned int qpus);
/*
 * The VCD DMA engine's cycles for @n's stores (one a row's vector, of its
 * bytes): the engine all programs share, which bounds narrow planes.
 */
double nn_qdw8_dma_cycles(const struct qpu_nn_graph *g, const struct nn_node *n, double setup,
			  double row, double bytes_per_cycle);
/* Why the window kernels cannot take these planes, or NULL if they can. */
const char *nn_window_unable(const struct nn_tensor *x, const struct nn_tensor *y,
			     const struct nn_win *w);
/* The buffer holding @p: the arena, or qpu_nn_run_input()'s; *@off in it. */
struct qpu_bo *nn_qpu_bo_at(const struct qpu_nn_graph *g, const void *p, size_t *off);

#endif /* QPU_NN_INTERNAL_H */
