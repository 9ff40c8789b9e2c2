// SPDX-License-Identifier: MIT
/*
 * libqpu/nn: a graph's life: loading (checks, folding of constants,
 * fusion of activations), binding (the plan and the arena) and running
 * (on its arena, or on a caller's input buffer behind a job's fence).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/kernel.h"
#include "nn_check.h"
#include "runtime/runtime.h"

#define ARENA_ALIGN 64
/* The largest node folded at load. */
#define NN_FOLD_MAX_BYTES (64u << 20)
#define NN_FOLD_MAX_MACS (UINT64_C(1) << 28)

void nn_err(struct qpu_nn_graph *g, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(g->err, sizeof(g->err), fmt, ap);
	va_end(ap);
}

size_t nn_dtype_size(enum qpu_nn_dtype dtype)
{
	switch (dtype) {
	case QPU_NN_FLOAT32:
	case QPU_NN_INT32:
		return 4;
	case QPU_NN_UINT8:
	case QPU_NN_INT8:
		return 1;
	case QPU_NN_INT64:
		return 8;
	}
	return 0;
}

const char *nn_dtype_name(enum qpu_nn_dtype dtype)
{
	switch (dtype) {
	case QPU_NN_FLOAT32:
		return "float";
	case QPU_NN_INT32:
		return "int32";
	case QPU_NN_UINT8:
		return "uint8";
	case QPU_NN_INT8:
		return "int8";
	case QPU_NN_INT64:
		return "int64";
	}
	return "an unsupported type";
}

const char *qpu_nn_where_name(enum qpu_nn_where where)
{
	static const char *const names[] = {
		[QPU_NN_WHERE_CPU] = "cpu", [QPU_NN_WHERE_CPU_REF] = "cpu-ref",
		[QPU_NN_WHERE_QPU] = "qpu", [QPU_NN_WHERE_FOLDED] = "folded",
		[QPU_NN_WHERE_FUSED] = "fused", [QPU_NN_WHERE_VIEW] = "view",
	};

	if ((unsigned int)where < sizeof(names) / sizeof(names[0]) && names[where])
		return names[where];
	return "none";
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* --- loading ------------------------------------------------------------------ */

/* Runs node @i now, on constants, and makes its outputs constants. */
static int fold(struct qpu_nn_graph *g, struct nn_node *n)
{
	void *scratch = NULL;
	size_t ss = nn_ref_scratch(g, n);
	unsigned int o;
	int ret;

	for (o = 0; o < n->n_out; o++) {
		struct nn_tensor *t = n->out[o] >= 0 ? &g->t[n->out[o]] : NULL;

		if (!t)
			continue;
		t->cdata = calloc(1, t->bytes ? t->bytes : 1);
		if (!t->cdata)
			return -ENOMEM;
		t->is_const = 1;
	}
	if (ss && !(scratch = malloc(ss)))
		return -ENOMEM;
	ret = nn_ref_run(g, n, scratch);
	free(scratch);
	n->where = QPU_NN_WHERE_FOLDED;
	snprintf(n->why, sizeof(n->why), "all its inputs are constants: computed at load");
	return ret;
}

/*
 * Whether node @n is small enough to compute at load: a larger one (a file
 * can ask for any amount of work) runs with the others instead.
 */
static int fold_small(const struct qpu_nn_graph *g, const struct nn_node *n)
{
	size_t bytes = 0;
	unsigned int o;

	for (o = 0; o < n->n_out; o++)
		if (n->out[o] >= 0)
			bytes += g->t[n->out[o]].bytes;
	return bytes <= NN_FOLD_MAX_BYTES && n->macs <= NN_FOLD_MAX_MACS;
}

/* The quantization a tensor made by node @n carries (one scale, one zero point). */
static void note_quant(struct qpu_nn_graph *g, struct nn_node *n)
{
	static const signed char yparams[NN_OP_COUNT][2] = {
		[NN_QUANTIZE] = { 1, 2 }, [NN_QLINEARCONV] = { 6, 7 },
		[NN_QLINEARMATMUL] = { 6, 7 }, [NN_QLINEARADD] = { 6, 7 },
	};
	struct nn_tensor *y = &g->t[n->out[0]], *s, *z;
	int si = yparams[n->kind][0], zi = yparams[n->kind][1];

	if (!si || (unsigned int)si >= n->n_in || n->in[si] < 0)
		return;
	s = &g->t[n->in[si]];
	z = (unsigned int)zi < n->n_in && n->in[zi] >= 0 ? &g->t[n->in[zi]] : NULL;
	if (s->count != 1 || (z && z->count != 1))
		return;
	y->quantized = 1;
	y->scale = *(const float *)s->cdata;
	y->zero_point = !z ? 0 : (z->dtype == QPU_NN_INT8 ? *(const int8_t *)z->cdata :
						     *(const uint8_t *)z->cdata);
}

static int is_act(int kind)
{
	return kind == NN_RELU || kind == NN_CLIP || kind == NN_LEAKYRELU ||
	       kind == NN_SIGMOID || kind == NN_HARDSWISH;
}

/* Consumers of tensor @t among live nodes: their count, the last in *@who. */
static unsigned int consumers(const struct qpu_nn_graph *g, int t, int *who)
{
	unsigned int i, k, count = 0;

	for (i = 0; i < g->n_nodes; i++) {
		const struct nn_node *n = &g->node[i];

		if (n->where == QPU_NN_WHERE_FOLDED || n->where == QPU_NN_WHERE_FUSED)
			continue;
		for (k = 0; k < n->n_in; k++)
			if (n->in[k] == t) {
				count++;
				*who = (int)i;
			}
	}
	return count;
}

/* Conv, Gemm (and Add) followed by an activation that only they feed: one node. */
static void fuse(struct qpu_nn_graph *g)
{
	unsigned int i;
	int who = -1;

	for (i = 0; i < g->n_nodes; i++) {
		struct nn_node *n = &g->node[i], *a;
		int t = n->out[0];

		if (n->where == QPU_NN_WHERE_FOLDED || n->act != NN_ACT_NONE ||
		    (n->kind != NN_CONV && n->kind != NN_GEMM && n->kind != NN_ADD) ||
		    g->t[t].is_output || g->t[t].dtype != QPU_NN_FLOAT32 ||
		    consumers(g, t, &who) != 1)
			continue;
		a = &g->node[who];
		if (!is_act(a->kind) || a->in[0] != t)
			continue;
		n->act = a->act;
		n->act_a = a->act_a;
		n->act_b = a->act_b;
		n->fused = a->op;
		n->out[0] = a->out[0];
		g->t[a->out[0]].producer = (int)i;
		g->t[t].producer = -2;	/* no longer made */
		a->where = QPU_NN_WHERE_FUSED;
		a->fused_into = (int)i;
		snprintf(a->why, sizeof(a->why), "done by node '%s' (%s) on its output", n->name,
			 n->op);
	}
}

static uint64_t node_bytes(const struct qpu_nn_graph *g, const struct nn_node *n)
{
	uint64_t bytes = 0;
	unsigned int k;

	for (k = 0; k < n->n_in; k++)
		if (n->in[k] >= 0)
			bytes += g->t[n->in[k]].bytes;
	return bytes + g->t[n->out[0]].bytes;
}

static int load_graph(struct qpu_nn_graph *g)
{
	unsigned int i, k;
	int ret;

	for (i = 0; i < g->in.n; i++) {
		struct nn_tensor *t = &g->t[g->in.t[i]];

		if (t->is_const || t->is_input) {
			nn_err(g, "input '%s' is listed twice or is a constant", t->name);
			return -EINVAL;
		}
		if (!t->shaped || !nn_dtype_size(t->dtype)) {
			nn_err(g, "input '%s': %s", t->name, !t->shaped ?
			       "a dimension not known at load (give its shape to the converter)" :
			       "element type not supported");
			return -EINVAL;
		}
		t->is_input = 1;
		t->bytes = t->count * nn_dtype_size(t->dtype);
	}
	for (i = 0; i < g->n_tensors; i++)
		if (g->t[i].is_const && !g->t[i].shaped) {
			nn_err(g, "constant '%s' has no shape", g->t[i].name);
			return -EINVAL;
		}
	for (i = 0; i < g->n_nodes; i++) {
		struct nn_node *n = &g->node[i];
		int all_const = 1;

		n->fused = "";
		for (k = 0; k < n->n_in; k++) {
			struct nn_tensor *t = n->in[k] >= 0 ? &g->t[n->in[k]] : NULL;

			if (t && !t->is_const && !t->is_input && t->producer < 0) {
				nn_err(g, "node '%s' (%s): input '%s' is made by no node before it "
				       "(the graph must be in topological order)", n->name, n->op,
				       t->name);
				return -EINVAL;
			}
			if (t && !t->is_const)
				all_const = 0;
		}
		ret = nn_check_node(g, n);
		if (ret)
			return ret;
		for (k = 0; k < n->n_out; k++)
			if (n->out[k] >= 0)
				g->t[n->out[k]].producer = (int)i;
		note_quant(g, n);
		if (all_const && fold_small(g, n)) {
			ret = fold(g, n);
			if (ret)
				return ret;
		}
	}
	for (i = 0; i < g->out.n; i++) {
		struct nn_tensor *t = &g->t[g->out.t[i]];

		if (!t->is_input && !t->is_const && t->producer < 0) {
			nn_err(g, "output '%s' is made by no node", t->name);
			return -EINVAL;
		}
		t->is_output = 1;
	}
	fuse(g);
	for (i = 0; i < g->n_nodes; i++)
		g->node[i].bytes = node_bytes(g, &g->node[i]);
	return 0;
}

static struct qpu_nn_graph *load(const uint8_t *p, size_t size, char *err, size_t err_size)
{
	struct qpu_nn_graph *g = calloc(1, sizeof(*g));
	int ret;

	if (!g) {
		errno = ENOMEM;
		return NULL;
	}
	ret = nn_format_parse(g, p, size);
	if (!ret)
		ret = load_graph(g);
	if (ret) {
		if (err && err_size)
			snprintf(err, err_size, "%s", ret == -ENOMEM ? "out of memory" : g->err);
		qpu_nn_free(g);
		errno = -ret;
		return NULL;
	}
	if (err && err_size)
		err[0] = 0;
	return g;
}

struct qpu_nn_graph *qpu_nn_load_mem(const void *data, size_t size, char *err, size_t err_size)
{
	if (!data && size) {
		errno = EINVAL;
		return NULL;
	}
	return load(data, size, err, err_size);
}

struct qpu_nn_graph *qpu_nn_load(const char *path, char *err, size_t err_size)
{
	struct qpu_nn_graph *g;
	uint8_t *buf = NULL;
	size_t size = 0, cap = 0, got;
	FILE *f;
	int e;

	if (!path) {
		errno = EINVAL;
		return NULL;
	}
	f = fopen(path, "rb");
	if (!f) {
		e = errno;
		if (err && err_size)
			snprintf(err, err_size, "%s: %s", path, strerror(e));
		errno = e;
		return NULL;
	}
	do {
		if (size == cap) {
			uint8_t *nb = realloc(buf, cap = cap ? cap * 2 : 65536);

			if (!nb) {
				free(buf);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
		}
		got = fread(buf + size, 1, cap - size, f);
		size += got;
	} while (got);
	e = ferror(f);
	fclose(f);
	if (e) {
		free(buf);
		if (err && err_size)
			snprintf(err, err_size, "%s: read error", path);
		errno = EIO;
		return NULL;
	}
	g = load(buf, size, err, err_size);
	e = errno;
	free(buf);
	errno = e;
	return g;
}

void qpu_nn_free(struct qpu_nn_graph *g)
{
	unsigned int i, k;

	if (!g)
		return;
	for (i = 0; i < g->n_tensors; i++) {
		free(g->t[i].name);
		free(g->t[i].cdata);
	}
	for (i = 0; i < g->n_nodes; i++) {
		struct nn_node *n = &g->node[i];

		nn_xnn_free(n);
		nn_fast_free(n);
		free(n->name);
		free(n->op);
		free(n->domain);
		free(n->in);
		free(n->out);
		for (k = 0; n->attr && k < n->n_attr; k++) {
			free(n->attr[k].name);
			free(n->attr[k].s);
			free(n->attr[k].ints);
			free(n->attr[k].floats);
		}
		free(n->attr);
	}
	free(g->t);
	free(g->node);
	free(g->in.t);
	free(g->out.t);
	qpu_bo_free(g->wbo);
	qpu_bo_free(g->arena_bo);
	qpu_kernels_free(g->kernels);
	free(g->arena_host);
	free(g);
}

/* --- QDQ: the integer operator a DequantizeLinear/QuantizeLinear pattern stands for --- */

/*
 * ONNX Runtime's quantize_static writes an INT8 model as float operators
 * between DequantizeLinear and QuantizeLinear: DQ(x), DQ(w), DQ(bias) ->
 * Conv -> [Relu] -> Q(y). Run literally, the convolution is float and
 * reads float weights; run as ONNX Runtime does, it is the QLinearConv of
 * the same integers, which the QPUs' integer product takes. qdq_rewrite()
 * makes that change where it is exact in ONNX's integer semantics (the
 * QLinearConv of the operands' integers, scales and zero points) and
 * leaves every other pattern float, saying why in the plan. The float
 * graph's result may differ by one step where its rounding does.
 */

struct qparam {
	int q, s, z;		/* tensors: the integers, the scale, the zero point (or -1) */
	struct nn_node *dq;
};

struct qdq_match {
	struct qparam a, b;	/* x and w (Conv, Gemm, MatMul), A and B (Add) */
	int bias;		/* int32 tensor, or -1 */
	struct nn_node *q;	/* the QuantizeLinear of the output */
};

#define QDQ_FLOAT(n, ...) (snprintf((n)->qdq, sizeof((n)->qdq), __VA_ARGS__), 0)

static int is_live(const struct nn_node *n)
{
	return n->where != QPU_NN_WHERE_FOLDED && n->where != QPU_NN_WHERE_FUSED;
}

/* The DequantizeLinear (live or folded) that makes tensor @t, or NULL. */
static struct nn_node *dq_of(struct qpu_nn_graph *g, int t)
{
	int p = t >= 0 ? g->t[t].producer : -1;

	if (p < 0 || g->node[p].kind != NN_DEQUANTIZE || g->node[p].where == QPU_NN_WHERE_FUSED)
		return NULL;
	return &g->node[p];
}

static int per_tensor(const struct qpu_nn_graph *g, const struct nn_node *n)
{
	return g->t[n->in[1]].count == 1;
}

/*
 * Operand @what of node @n from DequantizeLinear @dq: 8-bit integers, per
 * tensor or (@axis >= 0) per channel along @axis. 1 and *@p, or 0 with
 * the reason in n->qdq.
 */
static int qdq_operand(struct qpu_nn_graph *g, struct nn_node *n, struct nn_node *dq,
		       const char *what, int axis, struct qparam *p)
{
	enum qpu_nn_dtype d;

	if (!dq)
		return QDQ_FLOAT(n, "its %s is float, not a DequantizeLinear of 8-bit integers",
				 what);
	d = g->t[dq->in[0]].dtype;
	if (d != QPU_NN_INT8 && d != QPU_NN_UINT8)
		return QDQ_FLOAT(n, "%s's DequantizeLinear '%s' reads %s, not 8-bit integers", what,
				 dq->name, nn_dtype_name(d));
	if (!per_tensor(g, dq) && (axis < 0 || dq->axis != axis))
		return QDQ_FLOAT(n, "%s's DequantizeLinear '%s' is per-axis on axis %lld%s", what,
				 dq->name, (long long)dq->axis,
				 axis < 0 ? ", not per-tensor" : ", not the output channels'");
	p->q = dq->in[0];
	p->s = dq->in[1];
	p->z = dq->n_in > 2 ? dq->in[2] : -1;
	p->dq = dq;
	return 1;
}

/* The bias: int32 from a DequantizeLinear of zero point 0 and scale x_scale * w_scale. */
static int qdq_bias(struct qpu_nn_graph *g, struct nn_node *n, int t, size_t channels,
		    struct qdq_match *m)
{
	struct nn_node *dq = dq_of(g, t);
	const struct nn_tensor *bs, *bz, *xs = &g->t[m->a.s], *ws = &g->t[m->b.s];
	size_t j;

	m->bias = -1;
	if (t < 0)
		return 1;
	if (!dq || g->t[dq->in[0]].dtype != QPU_NN_INT32 || !g->t[dq->in[0]].is_const)
		return QDQ_FLOAT(n, "its bias is not a DequantizeLinear of int32 constants");
	if (g->t[dq->in[0]].count != channels || g->t[dq->in[0]].rank != 1)
		return QDQ_FLOAT(n, "its bias is not 1-D of its %zu output channels", channels);
	bs = &g->t[dq->in[1]];
	bz = dq->n_in > 2 && dq->in[2] >= 0 ? &g->t[dq->in[2]] : NULL;
	for (j = 0; j < channels; j++) {
		float want = ((const float *)xs->cdata)[0] *
			     ((const float *)ws->cdata)[ws->count > 1 ? j : 0];
		float have = ((const float *)bs->cdata)[bs->count > 1 ? j : 0];

		if (bz && nn_ld_q(bz->cdata, bz->dtype, bz->count > 1 ? j : 0))
			return QDQ_FLOAT(n, "bias's DequantizeLinear '%s' has a zero point other "
					 "than 0", dq->name);
		if (have != want)
			return QDQ_FLOAT(n, "bias scale %g (channel %zu) is not x_scale * w_scale "
					 "= %g", (double)have, j, (double)want);
	}
	m->bias = dq->in[0];
	return 1;
}

/* Whether node @n is a QDQ pattern the integer operators run exactly; *@m its parts. */
static int qdq_match(struct qpu_nn_graph *g, struct nn_node *n, struct qdq_match *m)
{
	struct nn_node *da = dq_of(g, n->in[0]), *db = n->n_in > 1 ? dq_of(g, n->in[1]) : NULL;
	int y = n->out[0], who = -1, waxis = -1;
	const struct nn_tensor *w;
	unsigned int readers;

	m->q = NULL;
	m->bias = -1;
	if (!da && !(n->kind == NN_ADD && db))
		return 0;	/* no QDQ in sight: a float node */
	if (g->t[y].is_output)
		return QDQ_FLOAT(n, "its float output is a graph output");
	readers = consumers(g, y, &who);
	if (readers != 1)
		return QDQ_FLOAT(n, "its float output has %u readers (a QuantizeLinear alone "
				 "must read it)", readers);
	if (g->node[who].kind != NN_QUANTIZE)
		return QDQ_FLOAT(n, "its float output is read by '%s' (%s), not a QuantizeLinear",
				 g->node[who].name, g->node[who].op);
	m->q = &g->node[who];
	if (!per_tensor(g, m->q))
		return QDQ_FLOAT(n, "QuantizeLinear '%s' is per-axis", m->q->name);
	if (n->act != NN_ACT_NONE && n->act != NN_ACT_RELU && n->act != NN_ACT_CLIP)
		return QDQ_FLOAT(n, "its fused %s is not exact on integers (Relu and Clip are)",
				 n->fused);
	if (n->kind == NN_ADD)
		return qdq_operand(g, n, da, "A", -1, &m->a) &&
		       qdq_operand(g, n, db, "B", -1, &m->b);
	if (n->kind == NN_GEMM && (n->trans_a || n->alpha != 1.0f ||
				   (n->n_in > 2 && n->in[2] >= 0 && n->beta != 1.0f)))
		return QDQ_FLOAT(n, "Gemm with transA, or alpha or beta other than 1");
	w = &g->t[n->in[1]];
	if (n->kind == NN_CONV)
		waxis = 0;
	else if (n->kind == NN_GEMM)
		waxis = n->trans_b ? 0 : 1;
	else if (w->rank == 2)
		waxis = 1;	/* MatMul's per-column B */
	if (!qdq_operand(g, n, da, "x", -1, &m->a) || !qdq_operand(g, n, db, "w", waxis, &m->b))
		return 0;
	if (n->kind == NN_MATMUL)
		return 1;
	if (n->kind == NN_GEMM && n->trans_b && !g->t[m->b.q].is_const)
		return QDQ_FLOAT(n, "its transposed weights are computed at run time");
	return qdq_bias(g, n, n->n_in > 2 ? n->in[2] : -1,
			(size_t)(n->kind == NN_CONV ? w->dims[0] : w->dims[n->trans_b ? 0 : 1]), m);
}

/* A new constant: @src's integers transposed (K x N of N x K), or -1 (no memory). */
static int transposed(struct qpu_nn_graph *g, int src)
{
	struct nn_tensor *t = realloc(g->t, (g->n_tensors + 1) * sizeof(*t)), *s;
	size_t r, c, rows, cols, es;
	int i;

	if (!t)
		return -1;
	g->t = t;
	s = &g->t[src];
	t = &g->t[g->n_tensors];
	memset(t, 0, sizeof(*t));
	rows = (size_t)s->dims[0];
	cols = (size_t)s->dims[1];
	es = nn_dtype_size(s->dtype);
	t->name = malloc(strlen(s->name) + sizeof("/transposed"));
	t->cdata = malloc(s->bytes ? s->bytes : 1);
	if (!t->name || !t->cdata) {
		free(t->name);
		free(t->cdata);
		return -1;
	}
	sprintf(t->name, "%s/transposed", s->name);
	for (r = 0; r < rows; r++)
		for (c = 0; c < cols; c++)
			memcpy((uint8_t *)t->cdata + (c * rows + r) * es,
			       (const uint8_t *)s->cdata + (r * cols + c) * es, es);
	t->dtype = s->dtype;
	t->rank = 2;
	t->dims[0] = (int64_t)cols;
	t->dims[1] = (int64_t)rows;
	t->count = s->count;
	t->bytes = s->bytes;
	t->is_const = 1;
	t->shaped = 1;
	t->producer = -1;
	t->alias = -1;
	i = (int)g->n_tensors++;
	return i;
}

/* Node @i becomes the integer operator of match @m. */
static int qdq_fuse(struct qpu_nn_graph *g, unsigned int i, const struct qdq_match *m)
{
	static const struct {
		enum nn_op kind;
		const char *op;
	} to[NN_OP_COUNT] = {
		[NN_CONV] = { NN_QLINEARCONV, "QLinearConv" },
		[NN_GEMM] = { NN_QLINEARMATMUL, "QLinearMatMul" },
		[NN_MATMUL] = { NN_QLINEARMATMUL, "QLinearMatMul" },
		[NN_ADD] = { NN_QLINEARADD, "QLinearAdd" },
	};
	struct nn_node *n = &g->node[i], *q = m->q;
	struct nn_node *dqs[2] = { m->a.dq, m->b.dq };
	int *in = calloc(9, sizeof(*in)), wq = m->b.q, y = n->out[0], k;
	char *op = strdup(to[n->kind].op);
	float ys = *(const float *)g->t[q->in[1]].cdata;
	int yz = q->n_in > 2 && q->in[2] >= 0 ? q->in[2] : -1;
	enum qpu_nn_dtype yd = g->t[q->out[0]].dtype;
	int32_t zp = yz >= 0 ? nn_ld_q(g->t[yz].cdata, g->t[yz].dtype, 0) : 0;

	if (n->kind == NN_GEMM && n->trans_b)
		wq = transposed(g, m->b.q);
	if (!in || !op || wq < 0) {
		free(in);
		free(op);
		return -ENOMEM;
	}
	in[0] = m->a.q;
	in[1] = m->a.s;
	in[2] = m->a.z;
	in[3] = wq;
	in[4] = m->b.s;
	in[5] = m->b.z;
	in[6] = q->in[1];
	in[7] = yz;
	in[8] = m->bias;
	free(n->in);
	free(n->op);
	n->in = in;
	n->n_in = m->bias >= 0 ? 9 : 8;
	n->op = op;
	n->kind = to[n->kind].kind;
	if (n->kind == NN_QLINEARADD) {
		free(n->domain);
		n->domain = strdup("com.microsoft");
		if (!n->domain)
			return -ENOMEM;
	}
	/* Q is monotonic: Q(max(v, 0)) = max(Q(v), Q(0)), and Clip's bounds alike */
	n->qlo = yd == QPU_NN_INT8 ? -128 : 0;
	n->qhi = yd == QPU_NN_INT8 ? 127 : 255;
	if (n->act == NN_ACT_RELU)
		n->qlo = zp;
	if (n->act == NN_ACT_CLIP) {
		n->qlo = nn_quantize1(n->act_a, ys, zp, yd);
		n->qhi = nn_quantize1(n->act_b, ys, zp, yd);
	}
	n->qclamp = n->act != NN_ACT_NONE;
	n->fused = n->act == NN_ACT_RELU ? "Relu, QuantizeLinear" :
		   n->act == NN_ACT_CLIP ? "Clip, QuantizeLinear" : "QuantizeLinear";
	n->act = NN_ACT_NONE;
	n->out[0] = q->out[0];
	g->t[q->out[0]].producer = (int)i;
	g->t[y].producer = -2;	/* no longer made */
	q->where = QPU_NN_WHERE_FUSED;
	q->fused_into = (int)i;
	snprintf(q->why, sizeof(q->why), "done by node '%s' (%s, from QDQ)", n->name, n->op);
	for (k = 0; k < 2; k++) {	/* the bias's DequantizeLinear is folded */
		struct nn_node *dq = dqs[k];
		int who;

		if (!dq || !is_live(dq) || consumers(g, dq->out[0], &who))
			continue;
		dq->where = QPU_NN_WHERE_FUSED;
		dq->fused_into = (int)i;
		g->t[dq->out[0]].producer = -2;	/* no longer made: no arena space */
		snprintf(dq->why, sizeof(dq->why), "node '%s' (%s, from QDQ) reads its integers",
			 n->name, n->op);
	}
	for (k = 0; k < (int)g->n_nodes; k++)	/* its activation: say what does it now */
		if (g->node[k].where == QPU_NN_WHERE_FUSED && g->node[k].fused_into == (int)i &&
		    &g->node[k] != q && is_act(g->node[k].kind))
			snprintf(g->node[k].why, sizeof(g->node[k].why), "done by node '%s' (%s, "
				 "from QDQ) as a clamp of its integers", n->name, n->op);
	n->bytes = node_bytes(g, n);
	return 0;
}

/*
 * Every QDQ pattern the integer operators run exactly, fused; the others
 * keep their float operators and say why (n->qdq).
 */
static int qdq_rewrite(struct qpu_nn_graph *g)
{
	unsigned int i;
	int ret;

	for (i = 0; i < g->n_nodes; i++) {
		struct nn_node *n = &g->node[i];
		struct qdq_match m;

		if (!is_live(n) || (n->kind != NN_CONV && n->kind != NN_GEMM &&
				    n->kind != NN_MATMUL && n->kind != NN_ADD) ||
		    g->t[n->out[0]].dtype != QPU_NN_FLOAT32)
			continue;
		if (!qdq_match(g, n, &m)) {
			if (n->qdq[0]) {
				char reason[sizeof(n->qdq)];

				memcpy(reason, n->qdq, sizeof(reason));
				snprintf(n->qdq, sizeof(n->qdq), "QDQ kept float: %.143s", reason);
			}
			continue;
		}
		snprintf(n->qdq, sizeof(n->qdq), "QDQ: int8 in place of DequantizeLinear -> %s -> "
			 "QuantizeLinear", n->op);
		ret = qdq_fuse(g, i, &m);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Whether the QDQ patterns run literally, in float (the default), or as the
 * integer operators (QPU_NN_BIND_QDQ_INT8, $QPU_NN_QDQ=int8): fused is
 * modelled slower on every board until depthwise QLinearConv has a QPU
 * kernel and the CPU an int8 convolution of XNNPACK's speed.
 */
static int qdq_literal(unsigned int flags)
{
	const char *env = getenv("QPU_NN_QDQ");

	return !(flags & QPU_NN_BIND_QDQ_INT8) && !(env && !strcmp(env, "int8"));
}

/* --- binding: the plan and the arena ------------------------------------------------ */

static int root(const struct qpu_nn_graph *g, int t)
{
	while (g->t[t].alias >= 0)
		t = g->t[t].alias;
	return t;
}

/* A convolution on the CPU's fast path goes through XNNPACK where it can. */
static void cpu_conv(struct qpu_nn_graph *g, struct nn_node *n)
{
	size_t len = strlen(n->why);

	if (n->where != QPU_NN_WHERE_CPU || (g->flags & QPU_NN_BIND_NO_XNNPACK) ||
	    !nn_xnn_create(g, n))
		return;
	snprintf(n->why + len, sizeof(n->why) - len, "; XNNPACK's convolution");
}

static void plan_node(struct qpu_nn_graph *g, struct nn_node *n, int i)
{
	int ref = !!(g->flags & QPU_NN_BIND_REFERENCE);
	enum qpu_nn_where cpu = ref ? QPU_NN_WHERE_CPU_REF : QPU_NN_WHERE_CPU;
	uint64_t qns, cns;

	if (n->where == QPU_NN_WHERE_FOLDED || n->where == QPU_NN_WHERE_FUSED)
		return;
	if (n->kind == NN_RESHAPE || n->kind == NN_FLATTEN || n->kind == NN_IDENTITY) {
		struct nn_tensor *y = &g->t[n->out[0]];

		if (!g->t[n->in[0]].is_const) {
			y->alias = root(g, n->in[0]);
			n->where = QPU_NN_WHERE_VIEW;
			snprintf(n->why, sizeof(n->why), "its output is its input's bytes");
			return;
		}
	}
	(void)i;
	n->where = cpu;
	if (!g->dev || (g->flags & QPU_NN_BIND_CPU_ONLY)) {
		snprintf(n->why, sizeof(n->why), g->dev ? "every node on the CPU (asked)" :
			 "no device: the CPU backend");
		cpu_conv(g, n);
		return;
	}
	n->qpu_able = nn_qpu_able(g, n, n->why, sizeof(n->why));
	if (!n->qpu_able) {
		cpu_conv(g, n);
		return;
	}
	qns = nn_qpu_model_ns(g->board, g, n);
	cns = nn_cpu_model_ns(g->board, g, n);
	if ((g->flags & QPU_NN_BIND_QPU_ALL) || qns < cns) {
		n->where = QPU_NN_WHERE_QPU;
		snprintf(n->why, sizeof(n->why), "%s: QPUs %.3f ms against the CPU's %.3f ms on %s",
			 g->flags & QPU_NN_BIND_QPU_ALL ? "QPUs asked" : "faster on the QPUs",
			 qns / 1e6, cns / 1e6, qpu_board_name(g->board));
	} else {
		snprintf(n->why, sizeof(n->why), "faster on the CPU: %.3f ms against the QPUs' "
			 "%.3f ms on %s", cns / 1e6, qns / 1e6, qpu_board_name(g->board));
		cpu_conv(g, n);
	}
}

struct span {
	size_t off, bytes;
	int first, last;
};

/* First fit of the tensors by decreasing size, apart from those alive with them. */
static size_t place(struct qpu_nn_graph *g)
{
	unsigned int i, j, k, count = 0;
	size_t top = 0;
	int *order = calloc(g->n_tensors + 1, sizeof(*order));
	struct span *sp = calloc(g->n_tensors + 1, sizeof(*sp));

	if (!order || !sp) {
		free(order);
		free(sp);
		return SIZE_MAX;
	}
	for (i = 0; i < g->n_tensors; i++) {
		struct nn_tensor *t = &g->t[i];

		if (!t->is_const && t->alias < 0 && (t->is_input || t->producer >= 0))
			order[count++] = (int)i;
	}
	for (i = 1; i < count; i++)	/* insertion sort, largest first */
		for (j = i; j > 0 && g->t[order[j]].bytes > g->t[order[j - 1]].bytes; j--) {
			int x = order[j];

			order[j] = order[j - 1];
			order[j - 1] = x;
		}
	for (i = 0; i < count; i++) {
		struct nn_tensor *t = &g->t[order[i]];
		size_t off = 0, need = (t->bytes + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
		int moved = 1;

		while (moved) {
			moved = 0;
			for (k = 0; k < i; k++)
				if (sp[k].first <= t->last && t->first <= sp[k].last &&
				    off < sp[k].off + sp[k].bytes && sp[k].off < off + need) {
					off = sp[k].off + sp[k].bytes;
					moved = 1;
				}
		}
		sp[i] = (struct span){ off, need, t->first, t->last };
		t->arena_off = off;
		if (off + need > top)
			top = off + need;
	}
	free(order);
	free(sp);
	return top;
}

static void lifetimes(struct qpu_nn_graph *g)
{
	unsigned int i, k;

	for (i = 0; i < g->n_tensors; i++) {
		struct nn_tensor *t = &g->t[i];

		t->first = t->is_input ? -1 : t->producer;
		t->last = t->is_output ? (int)g->n_nodes : t->first;
	}
	for (i = 0; i < g->n_nodes; i++) {
		struct nn_node *n = &g->node[i];

		if (n->where == QPU_NN_WHERE_FOLDED || n->where == QPU_NN_WHERE_FUSED)
			continue;
		for (k = 0; k < n->n_in; k++)
			if (n->in[k] >= 0 && g->t[n->in[k]].last < (int)i)
				g->t[n->in[k]].last = (int)i;
	}
	/* A view keeps its root alive as long as itself. */
	for (i = 0; i < g->n_tensors; i++) {
		struct nn_tensor *t = &g->t[i];

		if (t->alias >= 0 && g->t[root(g, (int)i)].last < t->last)
			g->t[root(g, (int)i)].last = t->last;
	}
}

static size_t node_scratch(const struct qpu_nn_graph *g, const struct nn_node *n)
{
	switch (n->where) {
	case QPU_NN_WHERE_QPU:
		return nn_qpu_scratch(g, n);
	case QPU_NN_WHERE_CPU:
		return n->xnn_op ? nn_xnn_scratch(g, n) : nn_fast_scratch(g, n);
	case QPU_NN_WHERE_CPU_REF:
		return nn_ref_scratch(g, n);
	default:
		return 0;
	}
}

static size_t io_layout_bytes(const struct nn_graph_io *io, const struct qpu_nn_graph *g)
{
	size_t sum = 0;
	unsigned int i;

	for (i = 0; i < io->n; i++)
		if (g->t[io->t[i]].layout == QPU_NN_NHWC)
			sum += (g->t[io->t[i]].bytes + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
	return sum;
}

int qpu_nn_bind(struct qpu_nn_graph *g, struct qpu_dev *dev, unsigned int flags)
{
	unsigned int i;
	size_t top, scratch = 0;
	int ret;

	if (!g)
		return -EINVAL;
	if (g->bound || (flags & ~(QPU_NN_BIND_CPU_ONLY | QPU_NN_BIND_REFERENCE |
				   QPU_NN_BIND_QPU_ALL | QPU_NN_BIND_NO_XNNPACK |
				   QPU_NN_BIND_QDQ_INT8))) {
		nn_err(g, g->bound ? "bound already" : "unknown bind flags 0x%x", flags);
		return -EINVAL;
	}
	g->err[0] = 0;
	g->dev = dev;
	g->flags = flags;
	g->board = QPU_BOARD_NONE;
	if (dev && !(flags & QPU_NN_BIND_CPU_ONLY)) {
		uint64_t v;

		g->kernels = qpu_kernels_new(dev);
		if (!g->kernels)
			return -ENOMEM;
		g->board = nn_dev_board(dev);
		ret = qpu_dev_get_param(dev, QPU_DEV_PARAM_NUM_QPUS, &v);
		if (!ret && (!v || v > QPU_JOB_MAX_QPUS))
			ret = -EINVAL;
		if (ret) {
			nn_err(g, "cannot read the device's QPU count");
			return ret;
		}
		g->qpus = (unsigned int)v;
		g->gen = qpu_dev_get_param(dev, QPU_DEV_PARAM_GEN, &v) ? QPU_GEN_VC4 : (int)v;
	}
	if (!qdq_literal(flags)) {
		ret = qdq_rewrite(g);
		if (ret)
			return ret;
	}
	for (i = 0; i < g->n_nodes; i++) {
		struct nn_node *n = &g->node[i];
		size_t len;

		plan_node(g, n, (int)i);
		len = strlen(n->why);
		if (n->qdq[0] && is_live(n))
			snprintf(n->why + len, sizeof(n->why) - len, "; %s", n->qdq);
	}
	lifetimes(g);
	top = place(g);
	if (top == SIZE_MAX)
		return -ENOMEM;
	for (i = 0; i < g->n_nodes; i++) {
		size_t s = node_scratch(g, &g->node[i]);

		scratch = s > scratch ? s : scratch;
	}
	g->staging_off = top;
	top += io_layout_bytes(&g->in, g) + io_layout_bytes(&g->out, g);
	g->scratch_off = top;
	g->scratch_bytes = scratch;
	g->arena_bytes = top + scratch;
	if (dev && g->kernels) {
		g->arena_bo = qpu_bo_new(dev, g->arena_bytes ? g->arena_bytes : 4096);
		if (!g->arena_bo) {
			nn_err(g, "no device buffer of %zu bytes for the arena", g->arena_bytes);
			return -ENOMEM;
		}
		g->arena = qpu_bo_get_map(g->arena_bo);
	} else {
		g->arena_host = aligned_alloc(ARENA_ALIGN, (g->arena_bytes + ARENA_ALIGN) &
					      ~(size_t)(ARENA_ALIGN - 1));
		if (!g->arena_host)
			return -ENOMEM;
		g->arena = g->arena_host;
	}
	for (i = 0; i < g->n_tensors; i++) {
		struct nn_tensor *t = &g->t[i];

		if (!t->is_const)
			t->data = g->arena + g->t[root(g, (int)i)].arena_off;
	}
	for (i = 0; i < g->n_nodes; i++) {
		if (!g->node[i].xnn_op)
			continue;
		ret = nn_xnn_setup(g, &g->node[i], g->arena + g->scratch_off);
		if (ret)
			return ret;
	}
	if (g->kernels) {
		ret = nn_qpu_prepare(g);
		if (ret)
			return ret;
	}
	g->bound = 1;
	return 0;
}

/* --- running ------------------------------------------------------------------------ */

/* NCHW <-> NHWC of a 4-D tensor @t (elements of @es bytes). */
static void relayout(const struct nn_tensor *t, const uint8_t *src, uint8_t *dst, int to_nhwc)
{
	size_t es = nn_dtype_size(t->dtype), N = (size_t)t->dims[0], C = (size_t)t->dims[1];
	size_t HW = (size_t)(t->dims[2] * t->dims[3]), b, c, p;

	for (b = 0; b < N; b++)
		for (c = 0; c < C; c++)
			for (p = 0; p < HW; p++) {
				size_t nchw = (b * C + c) * HW + p, nhwc = (b * HW + p) * C + c;

				if (to_nhwc)
					memcpy(dst + nhwc * es, src + nchw * es, es);
				else
					memcpy(dst + nchw * es, src + nhwc * es, es);
			}
}

/* Where the caller sees I/O tensor @t: its staging copy when NHWC. */
static uint8_t *io_data(const struct qpu_nn_graph *g, const struct nn_graph_io *io, unsigned int idx)
{
	size_t off = g->staging_off;
	unsigned int i;

	if (io == &g->out)
		off += io_layout_bytes(&g->in, g);
	for (i = 0; i < io->n; i++) {
		const struct nn_tensor *t = &g->t[io->t[i]];

		if (i == idx)
			return t->layout == QPU_NN_NHWC ? g->arena + off :
			       (t->is_const ? t->cdata : t->data);
		if (t->layout == QPU_NN_NHWC)
			off += (t->bytes + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
	}
	return NULL;
}

/* A QDQ node's fused Relu or Clip: its integers clamped (qdq_fuse()). */
static void qclamp(struct qpu_nn_graph *g, const struct nn_node *n)
{
	const struct nn_tensor *y = &g->t[n->out[0]];
	size_t i;

	for (i = 0; i < y->count; i++) {
		int32_t v = nn_ld_q(y->data, y->dtype, i);

		nn_st_q(y->data, y->dtype, i, v < n->qlo ? n->qlo : v > n->qhi ? n->qhi : v);
	}
}

/* Every node in order, on the inputs where the tensors' data say. */
static int run_nodes(struct qpu_nn_graph *g)
{
	void *scratch;
	unsigned int i;
	int ret = 0;

	scratch = g->arena + g->scratch_off;
	for (i = 0; i < g->in.n; i++)
		if (g->t[g->in.t[i]].layout == QPU_NN_NHWC)
			relayout(&g->t[g->in.t[i]], io_data(g, &g->in, i), g->t[g->in.t[i]].data, 0);
	for (i = 0; i < g->n_nodes && !ret; i++) {
		struct nn_node *n = &g->node[i];
		uint64_t t0 = now_ns();
		int fast = 0;

		n->model_ns = 0;
		switch (n->where) {
		case QPU_NN_WHERE_QPU:
			ret = nn_qpu_run(g, n, scratch);
			break;
		case QPU_NN_WHERE_CPU:
			if (n->xnn_op) {
				ret = nn_xnn_run(g, n, scratch);
				break;
			}
			fast = nn_fast_run(g, n, scratch);
			if (fast)
				break;
			/* fall through */
		case QPU_NN_WHERE_CPU_REF:
			ret = nn_ref_run(g, n, scratch);
			break;
		default:
			break;
		}
		/* the byte program (qpu_dwint8.c) and the fast path (2) clamp themselves */
		if (!ret && n->qclamp && fast != 2 &&
		    !(n->where == QPU_NN_WHERE_QPU && nn_qdw8(g, n)))
			qclamp(g, n);
		n->last_ns = now_ns() - t0;
		if (g->board != QPU_BOARD_NONE && (n->where == QPU_NN_WHERE_CPU ||
						   n->where == QPU_NN_WHERE_CPU_REF))
			n->model_ns = nn_cpu_model_ns(g->board, g, n);
	}
	for (i = 0; i < g->out.n && !ret; i++) {
		const struct nn_tensor *t = &g->t[g->out.t[i]];

		if (t->layout == QPU_NN_NHWC)
			relayout(t, t->is_const ? t->cdata : t->data, io_data(g, &g->out, i), 1);
	}
	return ret;
}

/* 0 if @g may run (its message cleared), else -EINVAL. */
static int runnable(struct qpu_nn_graph *g)
{
	if (!g)
		return -EINVAL;
	if (!g->bound) {
		nn_err(g, "not bound (qpu_nn_bind())");
		return -EINVAL;
	}
	g->err[0] = 0;
	return 0;
}

int qpu_nn_run(struct qpu_nn_graph *g)
{
	return runnable(g) ? -EINVAL : run_nodes(g);
}

/* The first node that does work (no view, folded or fused one), or NULL. */
static const struct nn_node *first_working(const struct qpu_nn_graph *g)
{
	unsigned int i;

	for (i = 0; i < g->n_nodes; i++)
		if (g->node[i].where == QPU_NN_WHERE_QPU || g->node[i].where == QPU_NN_WHERE_CPU ||
		    g->node[i].where == QPU_NN_WHERE_CPU_REF)
			return &g->node[i];
	return NULL;
}

/*
 * Whether the nodes may read input 0 (tensor @in) where the caller's buffer
 * holds it: not when the caller sees it in the NHWC staging copy, when a
 * view of it is an output (read after the run), or when an XNNPACK
 * operator took its address at bind.
 */
static int input_in_place(const struct qpu_nn_graph *g, int in)
{
	unsigned int i, k;

	if (g->t[in].layout == QPU_NN_NHWC)
		return 0;
	for (i = 0; i < g->n_tensors; i++)
		if (!g->t[i].is_const && root(g, (int)i) == in && g->t[i].is_output)
			return 0;
	for (i = 0; i < g->n_nodes; i++)
		for (k = 0; g->node[i].xnn_op && k < g->node[i].n_in; k++)
			if (g->node[i].in[k] >= 0 && !g->t[g->node[i].in[k]].is_const &&
			    root(g, g->node[i].in[k]) == in)
				return 0;
	return 1;
}

/* Points input 0 (tensor @in) and its views at @data (NULL: back at the arena). */
static void point_input(struct qpu_nn_graph *g, int in, uint8_t *data)
{
	unsigned int i;

	for (i = 0; i < g->n_tensors; i++)
		if (!g->t[i].is_const && root(g, (int)i) == in)
			g->t[i].data = data ? data : g->arena + g->t[in].arena_off;
}

QPU_API int qpu_nn_run_input(struct qpu_nn_graph *g, struct qpu_bo *bo, size_t offset,
			     int in_fence_fd)
{
	const struct nn_node *first;
	int in, direct, on_device, ret;
	size_t have;

	if (runnable(g))
		return -EINVAL;
	if (g->in.n != 1) {
		nn_err(g, "%u inputs; qpu_nn_run_input() takes a graph of one", g->in.n);
		return -EINVAL;
	}
	in = g->in.t[0];
	if (bo) {
		have = qpu_bo_get_size(bo);
		if (offset > have || g->t[in].bytes > have - offset || offset % 4) {
			nn_err(g, "input '%s': %zu bytes at offset %zu do not fit the %zu-byte buffer%s",
			       g->t[in].name, g->t[in].bytes, offset, have,
			       offset % 4 ? " (or the offset is not a multiple of 4)" : "");
			return -EINVAL;
		}
		if (g->arena_bo && bo->dev != g->dev) {
			nn_err(g, "input '%s': the buffer is of another device", g->t[in].name);
			return -EINVAL;
		}
	}
	if (in_fence_fd != -1 && qpu_fence_wait(in_fence_fd, 0) == -EINVAL) {
		nn_err(g, "in-fence %d is no job fence", in_fence_fd);
		return -EINVAL;
	}
	first = first_working(g);
	direct = bo && input_in_place(g, in);
	on_device = in_fence_fd != -1 && direct && g->kernels && first &&
		    first->where == QPU_NN_WHERE_QPU && nn_qpu_reads_input(g, first);
	if (in_fence_fd != -1 && !on_device) {	/* the CPU reads it first: wait here */
		ret = qpu_fence_wait(in_fence_fd, -1);
		if (ret) {
			nn_err(g, "the input's fence: %s", ret == -EIO ?
			       "the job writing the input did not end well" : strerror(-ret));
			return ret == -EIO ? -ECANCELED : ret;
		}
	}
	if (bo && !direct)
		memcpy(io_data(g, &g->in, 0), (uint8_t *)qpu_bo_get_map(bo) + offset,
		       g->t[in].bytes);
	if (direct) {
		g->ext_bo = bo;
		g->ext_map = qpu_bo_get_map(bo);
		g->ext_bytes = qpu_bo_get_size(bo);
		point_input(g, in, g->ext_map + offset);
	}
	if (on_device) {	/* a kernel packing the input on the host waits there */
		g->kernels->has_in_fence = true;
		g->kernels->in_fence = in_fence_fd;
		g->kernels->in_fence_bo = bo;
	}
	ret = run_nodes(g);
	if (on_device) {
		g->kernels->has_in_fence = false;
		g->kernels->in_fence_bo = NULL;
		if ((ret == -EIO || ret == -ECANCELED) && qpu_fence_wait(in_fence_fd, 0) == -EIO) {
			nn_err(g, "the input's fence: the job writing the input did not end well");
			ret = -ECANCELED;
		}
	}
	if (direct) {
		point_input(g, in, NULL);
		g->ext_bo = NULL;
		g->ext_map = NULL;
		g->ext_bytes = 0;
	}
	return ret;
}

/* --- what the graph tells ---------------------------------------------------------- */

const char *qpu_nn_last_error(const struct qpu_nn_graph *g)
{
	return g ? g->err : "";
}

unsigned int qpu_nn_input_count(const struct qpu_nn_graph *g)
{
	return g ? g->in.n : 0;
}

unsigned int qpu_nn_output_count(const struct qpu_nn_graph *g)
{
	return g ? g->out.n : 0;
}

unsigned int qpu_nn_node_count(const struct qpu_nn_graph *g)
{
	return g ? g->n_nodes : 0;
}

size_t qpu_nn_arena_bytes(const struct qpu_nn_graph *g)
{
	return g && g->bound ? g->arena_bytes : 0;
}

static int io_info(const struct qpu_nn_graph *g, const struct nn_graph_io *io, unsigned int idx,
		   struct qpu_nn_tensor_info *info)
{
	const struct nn_tensor *t;

	if (!g || !info || idx >= io->n)
		return -EINVAL;
	t = &g->t[io->t[idx]];
	memset(info, 0, sizeof(*info));
	info->name = t->name;
	info->dtype = t->dtype;
	info->layout = t->layout;
	info->rank = t->rank;
	memcpy(info->dims, t->dims, sizeof(info->dims));
	info->quantized = t->quantized;
	info->scale = t->scale;
	info->zero_point = t->zero_point;
	info->bytes = t->bytes;
	if (g->bound) {
		info->data = io_data(g, io, idx);
		if (g->arena_bo && (uint8_t *)info->data >= g->arena &&
		    (uint8_t *)info->data < g->arena + g->arena_bytes) {
			info->bo = g->arena_bo;
			info->offset = (size_t)((uint8_t *)info->data - g->arena);
		}
	}
	return 0;
}

int qpu_nn_input(const struct qpu_nn_graph *g, unsigned int index, struct qpu_nn_tensor_info *info)
{
	return g ? io_info(g, &g->in, index, info) : -EINVAL;
}

int qpu_nn_output(const struct qpu_nn_graph *g, unsigned int index, struct qpu_nn_tensor_info *info)
{
	return g ? io_info(g, &g->out, index, info) : -EINVAL;
}

static int set_layout(struct qpu_nn_graph *g, struct nn_graph_io *io, unsigned int idx,
		      enum qpu_nn_layout layout)
{
	struct nn_tensor *t;

	if (!g || idx >= io->n || g->bound || (layout != QPU_NN_NCHW && layout != QPU_NN_NHWC))
		return -EINVAL;
	t = &g->t[io->t[idx]];
	if (layout == QPU_NN_NHWC && (t->rank != 4 || t->is_const))
		return -EINVAL;
	t->layout = layout;
	return 0;
}

int qpu_nn_set_input_layout(struct qpu_nn_graph *g, unsigned int index, enum qpu_nn_layout layout)
{
	return g ? set_layout(g, &g->in, index, layout) : -EINVAL;
}

int qpu_nn_set_output_layout(struct qpu_nn_graph *g, unsigned int index, enum qpu_nn_layout layout)
{
	return g ? set_layout(g, &g->out, index, layout) : -EINVAL;
}

int qpu_nn_node(const struct qpu_nn_graph *g, unsigned int index, struct qpu_nn_node_info *info)
{
	const struct nn_node *n;

	if (!g || !info || index >= g->n_nodes)
		return -EINVAL;
	n = &g->node[index];
	memset(info, 0, sizeof(*info));
	info->name = n->name;
	info->op = n->op;
	info->where = n->where == QPU_NN_WHERE_FOLDED || n->where == QPU_NN_WHERE_FUSED ||
		      g->bound ? n->where : QPU_NN_WHERE_NONE;
	info->why = n->why;
	info->fused = n->fused;
	info->macs = n->macs;
	info->bytes = n->bytes;
	info->last_ns = n->last_ns;
	info->model_ns = n->model_ns;
	if (g->bound)
		nn_model_shares(g->board, n, &info->model_flops_pct, &info->model_bw_pct);
	return 0;
}

QPU_API int qpu_nn_set_timeout(struct qpu_nn_graph *g, unsigned int timeout_ms)
{
	if (!g || !g->bound)
		return -EINVAL;
	return g->kernels ? qpu_kernels_set_timeout(g->kernels, timeout_ms) : 0;
}
