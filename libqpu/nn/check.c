// SPDX-License-Identifier: MIT
/*
 * libqpu/nn: each operator's check at load (inputs, attributes, types) and
 * the shapes of its outputs, by ONNX's definitions. A refusal names the
 * node, its operator and what is missing.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nn_check.h"

#define REFUSE(g, n, ...) refuse(g, n, __VA_ARGS__)
/* The most elements a tensor has: products of its dimensions stay far from overflow. */
#define NN_MAX_ELEMENTS (UINT64_C(1) << 32)

static int __attribute__((format(printf, 3, 4)))
refuse(struct qpu_nn_graph *g, const struct nn_node *n, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	nn_err(g, "node '%s' (%s): %s", n->name, n->op, what);
	return -EINVAL;
}

/* --- attributes ------------------------------------------------------------ */

static struct nn_attr *attr(const struct nn_node *n, const char *name)
{
	unsigned int i;

	for (i = 0; i < n->n_attr; i++)
		if (!strcmp(n->attr[i].name, name)) {
			n->attr[i].used = 1;
			return &n->attr[i];
		}
	return NULL;
}

static int attr_int(struct qpu_nn_graph *g, const struct nn_node *n, const char *name,
		    int64_t def, int64_t *out)
{
	struct nn_attr *a = attr(n, name);

	*out = def;
	if (!a)
		return 0;
	if (a->type != NN_ATTR_INT)
		return REFUSE(g, n, "attribute %s must be an int", name);
	*out = a->i;
	return 0;
}

static int attr_float(struct qpu_nn_graph *g, const struct nn_node *n, const char *name,
		      float def, float *out)
{
	struct nn_attr *a = attr(n, name);

	*out = def;
	if (!a)
		return 0;
	if (a->type != NN_ATTR_FLOAT)
		return REFUSE(g, n, "attribute %s must be a float", name);
	*out = a->f;
	return 0;
}

/* @out gets the attribute's string, or @def. */
static int attr_str(struct qpu_nn_graph *g, const struct nn_node *n, const char *name,
		    const char *def, const char **out)
{
	struct nn_attr *a = attr(n, name);

	*out = def;
	if (!a)
		return 0;
	if (a->type != NN_ATTR_STRING)
		return REFUSE(g, n, "attribute %s must be a string", name);
	*out = a->s;
	return 0;
}

/* An ints attribute of exactly @count values (any count when 0), or NULL. */
static int attr_ints(struct qpu_nn_graph *g, const struct nn_node *n, const char *name,
		     uint32_t count, const int64_t **out)
{
	struct nn_attr *a = attr(n, name);

	*out = NULL;
	if (!a)
		return 0;
	if (a->type != NN_ATTR_INTS)
		return REFUSE(g, n, "attribute %s must be ints", name);
	if (count && a->n != count)
		return REFUSE(g, n, "attribute %s has %u values, not %u", name, a->n, count);
	*out = a->ints;
	return 0;
}

/* --- tensors ----------------------------------------------------------------- */

static struct nn_tensor *in_t(struct qpu_nn_graph *g, const struct nn_node *n, unsigned int i)
{
	return i < n->n_in && n->in[i] >= 0 ? &g->t[n->in[i]] : NULL;
}

static int set_out(struct qpu_nn_graph *g, struct nn_node *n, unsigned int i,
		   enum qpu_nn_dtype dtype, unsigned int rank, const int64_t *dims)
{
	struct nn_tensor *t = &g->t[n->out[i]];
	unsigned int d;

	t->dtype = dtype;
	t->rank = rank;
	t->count = 1;
	for (d = 0; d < rank; d++) {
		if (dims[d] < 0 || dims[d] > (INT64_C(1) << 31))
			return REFUSE(g, n, "output %u would have dimension %lld", i,
				      (long long)dims[d]);
		t->dims[d] = dims[d];
		if (dims[d] && t->count > NN_MAX_ELEMENTS / (uint64_t)dims[d])
			return REFUSE(g, n, "output %u would have more than 2^32 elements", i);
		t->count *= (size_t)dims[d];
	}
	if (!t->count)
		return REFUSE(g, n, "output %u would be empty (a dimension of 0)", i);
	t->bytes = t->count * nn_dtype_size(dtype);
	t->shaped = 1;
	return 0;
}

static int is_8bit(enum qpu_nn_dtype d)
{
	return d == QPU_NN_INT8 || d == QPU_NN_UINT8;
}

static int want_dtype(struct qpu_nn_graph *g, const struct nn_node *n, const struct nn_tensor *t,
		      const char *what, enum qpu_nn_dtype d)
{
	/* An input named "" (ONNX's omitted optional input) where one is due */
	if (!t)
		return REFUSE(g, n, "input %s is missing", what);
	if (t->dtype != d)
		return REFUSE(g, n, "%s is %s, not %s", what, nn_dtype_name(t->dtype),
			      nn_dtype_name(d));
	return 0;
}

/*
 * A quantization parameter input @i: a constant of @count elements (1 for
 * per-tensor; also 1 or @count when @count > 1: per-channel), of @dtype
 * (0: int8 or uint8). An absent zero point is allowed when @optional.
 */
static int want_qparam(struct qpu_nn_graph *g, const struct nn_node *n, unsigned int i,
		       const char *what, enum qpu_nn_dtype dtype, size_t count, int optional)
{
	struct nn_tensor *t = in_t(g, n, i);

	if (!t) {
		if (optional)
			return 0;
		return REFUSE(g, n, "input %s is missing", what);
	}
	if (!t->is_const)
		return REFUSE(g, n, "%s must be a constant (an initializer)", what);
	if (dtype ? t->dtype != dtype : !is_8bit(t->dtype))
		return REFUSE(g, n, "%s is %s, not %s", what, nn_dtype_name(t->dtype),
			      dtype ? nn_dtype_name(dtype) : "int8 or uint8");
	if (t->count != 1 && t->count != count)
		return REFUSE(g, n, "%s has %zu values: per-tensor (1) or per-channel (%zu) only",
			      what, t->count, count);
	if (t->rank > 1)
		return REFUSE(g, n, "%s must be a scalar or 1-D", what);
	if (dtype == QPU_NN_FLOAT32) {	/* a scale: every value divides or multiplies */
		size_t k;

		for (k = 0; k < t->count; k++) {
			float v = ((const float *)t->cdata)[k];

			if (v == 0.0f || !isfinite(v))
				return REFUSE(g, n, "%s[%zu] is %g: a scale must be finite and not 0",
					      what, k, (double)v);
		}
	}
	return 0;
}

static int want_rank(struct qpu_nn_graph *g, const struct nn_node *n, const struct nn_tensor *t,
		     const char *what, unsigned int rank)
{
	if (t->rank != rank)
		return REFUSE(g, n, "%s has rank %u, only %u is supported", what, t->rank, rank);
	return 0;
}

/* numpy's broadcast of @a and @b into @out (rank in *@rank). */
static int broadcast(struct qpu_nn_graph *g, const struct nn_node *n, const struct nn_tensor *a,
		     const struct nn_tensor *b, int64_t *out, unsigned int *rank)
{
	unsigned int r = a->rank > b->rank ? a->rank : b->rank, i;

	for (i = 0; i < r; i++) {
		int64_t da = i < r - a->rank ? 1 : a->dims[i - (r - a->rank)];
		int64_t db = i < r - b->rank ? 1 : b->dims[i - (r - b->rank)];

		if (da != db && da != 1 && db != 1)
			return REFUSE(g, n, "shapes do not broadcast (dimension %u: %lld and %lld)",
				      i, (long long)da, (long long)db);
		out[i] = da == 1 ? db : da;
	}
	*rank = r;
	return 0;
}

/* --- windows: Conv and the pools ------------------------------------------------ */

int64_t nn_pool_out(int64_t in, int64_t k, int64_t s, int64_t pa, int64_t pb, int ceil_mode)
{
	int64_t span = in + pa + pb - k;

	if (span < 0)
		return 0;
	return (ceil_mode ? (span + s - 1) / s : span / s) + 1;
}

/* Strides, pads and auto_pad of a 2-D window of @kh x @kw over @x. */
static int window(struct qpu_nn_graph *g, struct nn_node *n, const struct nn_tensor *x,
		  int64_t kh, int64_t kw)
{
	const int64_t *strides, *pads, *dil;
	const char *auto_pad;
	struct nn_win *w = &n->win;
	int64_t i, hw[2], k[2], s[2], out;

	if (attr_ints(g, n, "strides", 2, &strides) || attr_ints(g, n, "pads", 4, &pads) ||
	    attr_ints(g, n, "dilations", 2, &dil) ||
	    attr_str(g, n, "auto_pad", "NOTSET", &auto_pad))
		return -EINVAL;
	if (dil && (dil[0] != 1 || dil[1] != 1))
		return REFUSE(g, n, "dilations %lld,%lld not supported (only 1)",
			      (long long)dil[0], (long long)dil[1]);
	w->kh = kh;
	w->kw = kw;
	w->dh = w->dw = 1;
	w->sh = strides ? strides[0] : 1;
	w->sw = strides ? strides[1] : 1;
	if (w->sh < 1 || w->sw < 1 || w->sh > 64 || w->sw > 64)
		return REFUSE(g, n, "strides must be 1 to 64");
	if (kh < 1 || kw < 1 || kh > 64 || kw > 64)
		return REFUSE(g, n, "kernel %lldx%lld not supported (1 to 64)", (long long)kh,
			      (long long)kw);
	if (pads) {
		for (i = 0; i < 4; i++)
			if (pads[i] < 0 || pads[i] >= (i & 1 ? kw : kh))
				return REFUSE(g, n, "pads must be 0 to the kernel's size less one");
		w->pt = pads[0];
		w->pl = pads[1];
		w->pb = pads[2];
		w->pr = pads[3];
	}
	if (!strcmp(auto_pad, "NOTSET"))
		return 0;
	if (pads)
		return REFUSE(g, n, "pads given with auto_pad %s", auto_pad);
	hw[0] = x->dims[2];
	hw[1] = x->dims[3];
	k[0] = kh;
	k[1] = kw;
	s[0] = w->sh;
	s[1] = w->sw;
	for (i = 0; i < 2; i++) {
		int64_t total = 0, lo;

		if (!strcmp(auto_pad, "VALID"))
			continue;
		if (strcmp(auto_pad, "SAME_UPPER") && strcmp(auto_pad, "SAME_LOWER"))
			return REFUSE(g, n, "auto_pad %s not supported", auto_pad);
		out = (hw[i] + s[i] - 1) / s[i];
		total = (out - 1) * s[i] + k[i] - hw[i];
		if (total < 0)
			total = 0;
		lo = !strcmp(auto_pad, "SAME_UPPER") ? total / 2 : total - total / 2;
		if (i == 0) {
			w->pt = lo;
			w->pb = total - lo;
		} else {
			w->pl = lo;
			w->pr = total - lo;
		}
	}
	return 0;
}

static int conv_shape(struct qpu_nn_graph *g, struct nn_node *n, const struct nn_tensor *x,
		      const struct nn_tensor *w, enum qpu_nn_dtype out_dtype)
{
	const int64_t *ks;
	int64_t d[4];

	if (want_rank(g, n, x, "X", 4) || want_rank(g, n, w, "W", 4) ||
	    attr_int(g, n, "group", 1, &n->win.group) || attr_ints(g, n, "kernel_shape", 2, &ks))
		return -EINVAL;
	if (ks && (ks[0] != w->dims[2] || ks[1] != w->dims[3]))
		return REFUSE(g, n, "kernel_shape differs from W's shape");
	if (n->win.group < 1 || x->dims[1] % n->win.group || w->dims[0] % n->win.group ||
	    w->dims[1] * n->win.group != x->dims[1])
		return REFUSE(g, n, "group %lld does not divide X's %lld channels into W's %lld",
			      (long long)n->win.group, (long long)x->dims[1],
			      (long long)w->dims[1]);
	if (window(g, n, x, w->dims[2], w->dims[3]))
		return -EINVAL;
	d[0] = x->dims[0];
	d[1] = w->dims[0];
	d[2] = nn_pool_out(x->dims[2], n->win.kh, n->win.sh, n->win.pt, n->win.pb, 0);
	d[3] = nn_pool_out(x->dims[3], n->win.kw, n->win.sw, n->win.pl, n->win.pr, 0);
	if (!d[2] || !d[3])
		return REFUSE(g, n, "the kernel is larger than the padded image");
	if (set_out(g, n, 0, out_dtype, 4, d))
		return -EINVAL;
	n->macs = (uint64_t)g->t[n->out[0]].count * (uint64_t)(w->count / (size_t)w->dims[0]);
	return 0;
}

static int check_conv(struct qpu_nn_graph *g, struct nn_node *n)
{
	struct nn_tensor *x = in_t(g, n, 0), *w = in_t(g, n, 1), *b = in_t(g, n, 2);

	if (want_dtype(g, n, x, "X", QPU_NN_FLOAT32) || want_dtype(g, n, w, "W", QPU_NN_FLOAT32))
		return -EINVAL;
	if (b && (b->rank != 1 || b->dims[0] != w->dims[0] || b->dtype != QPU_NN_FLOAT32))
		return REFUSE(g, n, "B must be float of W's %lld output channels",
			      (long long)w->dims[0]);
	return conv_shape(g, n, x, w, QPU_NN_FLOAT32);
}

static int check_qlinearconv(struct qpu_nn_graph *g, struct nn_node *n)
{
	struct nn_tensor *x = in_t(g, n, 0), *w = in_t(g, n, 3), *b = in_t(g, n, 8);
	struct nn_tensor *yzp = in_t(g, n, 7);

	if (!w || !in_t(g, n, 1) || !in_t(g, n, 4) || !in_t(g, n, 6))
		return REFUSE(g, n, "x, x_scale, w, w_scale and y_scale are needed");
	if (!is_8bit(x->dtype) || !is_8bit(w->dtype))
		return REFUSE(g, n, "x and w must be int8 or uint8");
	if (want_rank(g, n, w, "w", 4))
		return -EINVAL;
	if (want_qparam(g, n, 1, "x_scale", QPU_NN_FLOAT32, 1, 0) ||
	    want_qparam(g, n, 2, "x_zero_point", 0, 1, 1) ||
	    want_qparam(g, n, 4, "w_scale", QPU_NN_FLOAT32, (size_t)w->dims[0], 0) ||
	    want_qparam(g, n, 5, "w_zero_point", 0, (size_t)w->dims[0], 1) ||
	    want_qparam(g, n, 6, "y_scale", QPU_NN_FLOAT32, 1, 0) ||
	    want_qparam(g, n, 7, "y_zero_point", 0, 1, 1))
		return -EINVAL;
	if (in_t(g, n, 2) && in_t(g, n, 2)->dtype != x->dtype)
		return REFUSE(g, n, "x_zero_point's type differs from x's");
	if (b && (b->rank != 1 || b->dims[0] != w->dims[0] || b->dtype != QPU_NN_INT32))
		return REFUSE(g, n, "B must be int32 of w's %lld output channels",
			      (long long)w->dims[0]);
	return conv_shape(g, n, x, w, yzp ? yzp->dtype : QPU_NN_UINT8);
}

static int check_gemm(struct qpu_nn_graph *g, struct nn_node *n)
{
	struct nn_tensor *a = in_t(g, n, 0), *b = in_t(g, n, 1), *c = in_t(g, n, 2);
	int64_t d[2], k, kb, cd[2];
	unsigned int r;

	if (attr_float(g, n, "alpha", 1.0f, &n->alpha) || attr_float(g, n, "beta", 1.0f, &n->beta) ||
	    attr_int(g, n, "transA", 0, &n->trans_a) || attr_int(g, n, "transB", 0, &n->trans_b) ||
	    want_dtype(g, n, a, "A", QPU_NN_FLOAT32) || want_dtype(g, n, b, "B", QPU_NN_FLOAT32) ||
	    want_rank(g, n, a, "A", 2) || want_rank(g, n, b, "B", 2))
		return -EINVAL;
	d[0] = a->dims[n->trans_a ? 1 : 0];
	k = a->dims[n->trans_a ? 0 : 1];
	kb = b->dims[n->trans_b ? 1 : 0];
	d[1] = b->dims[n->trans_b ? 0 : 1];
	if (k != kb)
		return REFUSE(g, n, "A has %lld columns, B %lld rows", (long long)k, (long long)kb);
	if (c) {
		struct nn_tensor tmp = { .rank = 2, .dims = { d[0], d[1] } };

		if (want_dtype(g, n, c, "C", QPU_NN_FLOAT32) || c->rank > 2 ||
		    broadcast(g, n, &tmp, c, cd, &r) || cd[0] != d[0] || cd[1] != d[1])
			return REFUSE(g, n, "C must broadcast to %lldx%lld", (long long)d[0],
				      (long long)d[1]);
	}
	if (set_out(g, n, 0, QPU_NN_FLOAT32, 2, d))
		return -EINVAL;
	n->macs = (uint64_t)g->t[n->out[0]].count * (uint64_t)k;
	return 0;
}

/* MatMul's shape (numpy's matmul of rank >= 2 operands, batch broadcast). */
static int matmul_shape(struct qpu_nn_graph *g, struct nn_node *n, const struct nn_tensor *a,
			const struct nn_tensor *b, enum qpu_nn_dtype dtype)
{
	struct nn_tensor ba = *a, bb = *b;
	int64_t d[QPU_NN_MAX_RANK];
	unsigned int r;

	if (a->rank < 2 || b->rank < 2)
		return REFUSE(g, n, "1-D operands not supported (rank 2 or more)");
	if (a->dims[a->rank - 1] != b->dims[b->rank - 2])
		return REFUSE(g, n, "A has %lld columns, B %lld rows",
			      (long long)a->dims[a->rank - 1], (long long)b->dims[b->rank - 2]);
	ba.rank -= 2;
	bb.rank -= 2;
	if (broadcast(g, n, &ba, &bb, d, &r))
		return -EINVAL;
	d[r] = a->dims[a->rank - 2];
	d[r + 1] = b->dims[b->rank - 1];
	if (set_out(g, n, 0, dtype, r + 2, d))
		return -EINVAL;
	n->macs = (uint64_t)g->t[n->out[0]].count * (uint64_t)a->dims[a->rank - 1];
	return 0;
}

static int check_matmul(struct qpu_nn_graph *g, struct nn_node *n)
{
	struct nn_tensor *a = in_t(g, n, 0), *b = in_t(g, n, 1);

	if (want_dtype(g, n, a, "A", QPU_NN_FLOAT32) || want_dtype(g, n, b, "B", QPU_NN_FLOAT32))
		return -EINVAL;
	return matmul_shape(g, n, a, b, QPU_NN_FLOAT32);
}

static int check_qlinearmatmul(struct qpu_nn_graph *g, struct nn_node *n)
{
	struct nn_tensor *a = in_t(g, n, 0), *b = in_t(g, n, 3), *yzp = in_t(g, n, 7);

	if (!b || !in_t(g, n, 1) || !in_t(g, n, 4) || !in_t(g, n, 6))
		return REFUSE(g, n, "a, a_scale, b, b_scale and y_scale are needed");
	if (!is_8bit(a->dtype) || !is_8bit(b->dtype))
		return REFUSE(g, n, "a and b must be int8 or uint8");
	if (want_qparam(g, n, 1, "a_scale", QPU_NN_FLOAT32, 1, 0) ||
	    want_qparam(g, n, 2, "a_zero_point", a->dtype, 1, 1) ||
	    want_qparam(g, n, 4, "b_scale", QPU_NN_FLOAT32, (size_t)b->dims[b->rank - 1], 0) ||
	    want_qparam(g, n, 5, "b_zero_point", b->dtype, (size_t)b->dims[b->rank - 1], 1) ||
	    want_qparam(g, n, 6, "y_scale", QPU_NN_FLOAT32, 1, 0) ||
	    want_qparam(g, n, 7, "y_zero_point", 0, 1, 1))
		return -EINVAL;
	if ((in_t(g, n, 4)->count > 1 || (in_t(g, n, 5) && in_t(g, n, 5)->count > 1)) &&
	    b->rank != 2)
		return REFUSE(g, n, "per-column b_scale needs a 2-D b");
	return matmul_shape(g, n, a, b, yzp ? yzp->dtype : QPU_NN_UINT8);
}

static int check_pool(struct qpu_nn_graph *g, struct nn_node *n)
{
	struct nn_tensor *x = in_t(g, n, 0);
	const int64_t *ks;
	int64_t d[4], ceil_mode, count_pad = 0, storage = 0;

	if (want_dtype(g, n, x, "X", QPU_NN_FLOAT32) || want_rank(g, n, x, "X", 4))
		return -EINVAL;
	if (n->n_out > 1 && n->out[1] >= 0)
		return REFUSE(g, n, "the Indices output is not supported");
	if (attr_ints(g, n, "kernel_shape", 2, &ks) || attr_int(g, n, "ceil_mode", 0, &ceil_mode))
		return -EINVAL;
	if (!ks)
		return REFUSE(g, n, "kernel_shape (2 values) is needed");
	if (n->kind == NN_AVGPOOL && attr_int(g, n, "count_include_pad", 0, &count_pad))
		return -EINVAL;
	if (n->kind == NN_MAXPOOL && attr_int(g, n, "storage_order", 0, &storage))
		return -EINVAL;
	if (storage)
		return REFUSE(g, n, "storage_order 1 not supported");
	if (window(g, n, x, ks[0], ks[1]))
		return -EINVAL;
	n->win.ceil_mode = !!ceil_mode;
	n->win.count_pad = !!count_pad;
	d[0] = x->dims[0];
	d[1] = x->dims[1];
	d[2] = nn_pool_out(x->dims[2], n->win.kh, n->win.sh, n->win.pt, n->win.pb, n->win.ceil_mode);
	d[3] = nn_pool_out(x->dims[3], n->win.kw, n->win.sw, n->win.pl, n->win.pr, n->win.ceil_mode);
	/* ONNX: with ceil_mode, a last window starting in the right padding is dropped. */
	if (n->win.ceil_mode && d[2] > 1 && (d[2] - 1) * n->win.sh >= x->dims[2] + n->win.pt)
		d[2]--;
	if (n->win.ceil_mode && d[3] > 1 && (d[3] - 1) * n->win.sw >= x->dims[3] + n->win.pl)
		d[3]--;
	if (!d[2] || !d[3])
		return REFUSE(g, n, "the kernel is larger than the padded image");
	return set_out(g, n, 0, QPU_NN_FLOAT32, 4, d);
}

static int check_gavgpool(struct qpu_nn_graph *g, struct nn_node *n)
{
	struct nn_tensor *x = in_t(g, n, 0);
	int64_t d[4];

	if (want_dtype(g, n, x, "X", QPU_NN_FLOAT32) || want_rank(g, n, x, "X", 4))
		return -EINVAL;
	d[0] = x->dims[0];
	d[1] = x->dims[1];
	d[2] = d[3] = 1;
	return set_out(g, n, 0, QPU_NN_FLOAT32, 4, d);
}

static int scalar_const(struct qpu_nn_graph *g, struct nn_node *n, unsigned int i,
			const char *what, float *out)
{
	struct nn_tensor *t = in_t(g, n, i);

	if (!t)
		return 0;
	if (!t->is_const || t->count != 1 || t->dtype != QPU_NN_FLOAT32)
		return REFUSE(g, n, "%s must be a float constant scalar", what);
	*out = *(const float *)t->cdata;
	return 0;
}

static int check_unary(struct qpu_nn_graph *g, struct nn_node *n)
{
	struct nn_tensor *x = in_t(g, n, 0);

	if (want_dtype(g, n, x, "X", QPU_NN_FLOAT32))
		return -EINVAL;
	switch (n->kind) {
	case NN_RELU:
		n->act = NN_ACT_RELU;
		break;
	case NN_SIGMOID:
		n->act = NN_ACT_SIGMOID;
		break;
	case NN_HARDSWISH:
		n->act = NN_ACT_HARDSWISH;
		break;
	case NN_LEAKYRELU:
		n->act = NN_ACT_LEAKY;
		if (attr_float(g, n, "alpha", 0.01f, &n->act_a))
			return -EINVAL;
		break;
	case NN_CLIP:
		n->act = NN_ACT_CLIP;
		n->act_a = -INFINITY;
		n->act_b = INFINITY;
		if (g->opset < 11 && (attr_float(g, n, "min", -INFINITY, &n->act_a) ||
				      attr_float(g, n, "max", INFINITY, &n->act_b)))
			return -EINVAL;
		if (scalar_const(g, n, 1, "min", &n->act_a) ||
		    scalar_const(g, n, 2, "max", &n->act_b))
			return -EINVAL;
		break;
	default:
		break;
	}
	return set_out(g, n, 0, QPU_NN_FLOAT32, x->rank, x->dims);
}

static int check_binary(struct qpu_nn_graph *g, struct nn_node *n)
{
	struct nn_tensor *a = in_t(g, n, 0), *b = in_t(g, n, 1);
	int64_t d[QPU_NN_MAX_RANK];
	unsigned int r;

	if (!b)
		return REFUSE(g, n, "input B is missing");
	if (a->dtype != b->dtype)
		return REFUSE(g, n, "A is %s, B %s", nn_dtype_name(a->dtype),
			      nn_dtype_name(b->dtype));
	if (a->dtype != QPU_NN_FLOAT32 && a->dtype != QPU_NN_INT32 && a->dtype != QPU_NN_INT64)
		return REFUSE(g, n, "%s operands not supported (float, int32, int64)",
			      nn_dtype_name(a->dtype));
	if (broadcast(g, n, a, b, d, &r))
		return -EINVAL;
	return set_out(g, n, 0, a->dtype, r, d);
}

static int check_qlinearadd(struct qpu_nn_graph *g, struct nn_node *n)
{
	struct nn_tensor *a = in_t(g, n, 0), *b = in_t(g, n, 3), *czp = in_t(g, n, 7);
	int64_t d[QPU_NN_MAX_RANK];
	unsigned int r;

	if (!b || !in_t(g, n, 1) || !in_t(g, n, 4) || !in_t(g, n, 6))
		return REFUSE(g, n, "A, A_scale, B, B_scale and C_scale are needed");
	if (!is_8bit(a->dtype) || a->dtype != b->dtype)
		return REFUSE(g, n, "A and B must both be int8 or both uint8");
	if (want_qparam(g, n, 1, "A_scale", QPU_NN_FLOAT32, 1, 0) ||
	    want_qparam(g, n, 2, "A_zero_point", a->dtype, 1, 1) ||
	    want_qparam(g, n, 4, "B_scale", QPU_NN_FLOAT32, 1, 0) ||
	    want_qparam(g, n, 5, "B_zero_point", a->dtype, 1, 1) ||
	    want_qparam(g, n, 6, "C_scale", QPU_NN_FLOAT32, 1, 0) ||
	    want_qparam(g, n, 7, "C_zero_point", a->dtype, 1, 1) ||
	    broadcast(g, n, a, b, d, &r))
		return -EINVAL;
	return set_out(g, n, 0, czp ? czp->dtype : a->dtype, r, d);
}

static int norm_axis(struct qpu_nn_graph *g, struct nn_node *n, int64_t axis, unsigned int rank,
		     int inclusive)
{
	int64_t r = (int64_t)rank + inclusive;

	if (axis < -r || axis >= r)
		return REFUSE(g, n, "axis %lld out of range for rank %u", (long long)axis, rank);
	n->axis = axis < 0 ? axis + r : axis;
	return 0;
}

static int check_concat(struct qpu_nn_graph *g, struct nn_node *n)
{
	struct nn_tensor *a = in_t(g, n, 0), *t;
	int64_t d[QPU_NN_MAX_RANK], axis;
	unsigned int i, k;

	if (!n->n_in || !a)
		return REFUSE(g, n, "no inputs");
	if (!attr(n, "axis"))
		return REFUSE(g, n, "attribute axis is needed");
	if (attr_int(g, n, "axis", 0, &axis) || norm_axis(g, n, axis, a->rank, 0))
		return -EINVAL;
	memcpy(d, a->dims, sizeof(d));
	for (i = 1; i < n->n_in; i++) {
		t = in_t(g, n, i);
		if (!t || t->rank != a->rank || t->dtype != a->dtype)
			return REFUSE(g, n, "input %u's type or rank differs from input 0's", i);
		for (k = 0; k < a->rank; k++)
			if (k != n->axis && t->dims[k] != a->dims[k])
				return REFUSE(g, n, "input %u's dimension %u differs", i, k);
		d[n->axis] += t->dims[n->axis];
	}
	return set_out(g, n, 0, a->dtype, a->rank, d);
}

static int check_reshape(struct qpu_nn_graph *g, struct nn_node *n)
{
	struct nn_tensor *x = in_t(g, n, 0), *s = in_t(g, n, 1);
	int64_t d[QPU_NN_MAX_RANK], allowzero, known = 1;
	const int64_t *sv;
	int infer = -1;
	unsigned int i;

	if (attr_int(g, n, "allowzero", 0, &allowzero))
		return -EINVAL;
	if (!s || !s->is_const || s->dtype != QPU_NN_INT64 || s->rank != 1)
		return REFUSE(g, n, "shape must be a constant 1-D int64 tensor");
	if (s->count > QPU_NN_MAX_RANK)
		return REFUSE(g, n, "shape has %zu dimensions (at most 6)", s->count);
	sv = s->cdata;
	for (i = 0; i < s->count; i++) {
		d[i] = sv[i];
		if (d[i] == 0 && !allowzero) {
			if (i >= x->rank)
				return REFUSE(g, n, "shape copies dimension %u X does not have", i);
			d[i] = x->dims[i];
		}
		if (d[i] == -1) {
			if (infer >= 0)
				return REFUSE(g, n, "shape has two -1");
			infer = (int)i;
			continue;
		}
		if (d[i] < 0 || d[i] > (INT64_C(1) << 32))
			return REFUSE(g, n, "shape has %lld", (long long)d[i]);
		if (d[i] && known > (INT64_C(1) << 32) / d[i])
			return REFUSE(g, n, "shape has more than 2^32 elements");
		known *= d[i];
	}
	if (infer >= 0) {
		if (!known || x->count % (size_t)known)
			return REFUSE(g, n, "%zu elements do not reshape", x->count);
		d[infer] = (int64_t)x->count / known;
		known *= d[infer];
	}
	if ((size_t)known != x->count)
		return REFUSE(g, n, "%zu elements cannot take a shape of %lld", x->count,
			      (long long)known);
	return set_out(g, n, 0, x->dtype, (unsigned int)s->count, d);
}

static int check_flatten(struct qpu_nn_graph *g, struct nn_node *n)
{
	struct nn_tensor *x = in_t(g, n, 0);
	int64_t d[2] = { 1, 1 }, axis;
	unsigned int i;

	if (attr_int(g, n, "axis", 1, &axis) || norm_axis(g, n, axis, x->rank, 1))
		return -EINVAL;
	for (i = 0; i < x->rank; i++)
		d[i >= n->axis] *= x->dims[i];
	return set_out(g, n, 0, x->dtype, 2, d);
}

static int check_identity(struct qpu_nn_graph *g, struct nn_node *n)
{
	struct nn_tensor *x = in_t(g, n, 0);

	return set_out(g, n, 0, x->dtype, x->rank, x->dims);
}

static int check_transpose(struct qpu_nn_graph *g, struct nn_node *n)
{
	struct nn_tensor *x = in_t(g, n, 0);
	const int64_t *perm;
	int64_t d[QPU_NN_MAX_RANK];
	unsigned int i, seen = 0;

	if (attr_ints(g, n, "perm", x->rank, &perm))
		return -EINVAL;
	for (i = 0; i < x->rank; i++) {
		n->perm[i] = perm ? perm[i] : (int64_t)(x->rank - 1 - i);
		if (n->perm[i] < 0 || n->perm[i] >= (int64_t)x->rank || seen & (1u << n->perm[i]))
			return REFUSE(g, n, "perm is not a permutation of %u axes", x->rank);
		seen |= 1u << n->perm[i];
		d[i] = x->dims[n->perm[i]];
	}
	return set_out(g, n, 0, x->dtype, x->rank, d);
}

static int check_softmax(struct qpu_nn_graph *g, struct nn_node *n)
{
	struct nn_tensor *x = in_t(g, n, 0);
	int64_t axis;

	n->legacy_softmax = g->opset < 13;
	if (want_dtype(g, n, x, "input", QPU_NN_FLOAT32) ||
	    attr_int(g, n, "axis", n->legacy_softmax ? 1 : -1, &axis) ||
	    norm_axis(g, n, axis, x->rank, 0))
		return -EINVAL;
	return set_out(g, n, 0, QPU_NN_FLOAT32, x->rank, x->dims);
}

static const char *const coord_names[] = {
	[NN_COORD_HALF_PIXEL] = "half_pixel",
	[NN_COORD_ASYMMETRIC] = "asymmetric",
	[NN_COORD_ALIGN_CORNERS] = "align_corners",
	[NN_COORD_PYTORCH_HALF_PIXEL] = "pytorch_half_pixel",
};

static const char *const nearest_names[] = {
	[NN_NEAREST_ROUND_PREFER_FLOOR] = "round_prefer_floor",
	[NN_NEAREST_ROUND_PREFER_CEIL] = "round_prefer_ceil",
	[NN_NEAREST_FLOOR] = "floor",
	[NN_NEAREST_CEIL] = "ceil",
};

static int pick(const char *const *names, unsigned int count, const char *s)
{
	unsigned int i;

	for (i = 0; i < count; i++)
		if (!strcmp(names[i], s))
			return (int)i;
	return -1;
}

static int check_resize(struct qpu_nn_graph *g, struct nn_node *n)
{
	struct nn_tensor *x = in_t(g, n, 0), *scales, *sizes;
	const char *mode, *coord, *nearest;
	int64_t d[4], excl;
	unsigned int i;
	float cubic, extrap;

	if (want_dtype(g, n, x, "X", QPU_NN_FLOAT32) || want_rank(g, n, x, "X", 4) ||
	    attr_str(g, n, "mode", "nearest", &mode) ||
	    attr_str(g, n, "coordinate_transformation_mode",
		     g->opset < 11 ? "asymmetric" : "half_pixel", &coord) ||
	    attr_str(g, n, "nearest_mode", g->opset < 11 ? "floor" : "round_prefer_floor",
		     &nearest) ||
	    attr_int(g, n, "exclude_outside", 0, &excl) ||
	    attr_float(g, n, "cubic_coeff_a", -0.75f, &cubic) ||
	    attr_float(g, n, "extrapolation_value", 0.0f, &extrap))
		return -EINVAL;
	if (attr(n, "antialias") || attr(n, "axes") || attr(n, "keep_aspect_ratio_policy"))
		return REFUSE(g, n, "antialias, axes and keep_aspect_ratio_policy not supported");
	if (strcmp(mode, "nearest") && strcmp(mode, "linear"))
		return REFUSE(g, n, "mode %s not supported (nearest, linear)", mode);
	n->mode_linear = !strcmp(mode, "linear");
	n->coord_mode = pick(coord_names, NN_COORD_COUNT, coord);
	if (n->coord_mode < 0)
		return REFUSE(g, n, "coordinate_transformation_mode %s not supported", coord);
	n->nearest_mode = pick(nearest_names, NN_NEAREST_COUNT, nearest);
	if (n->nearest_mode < 0)
		return REFUSE(g, n, "nearest_mode %s not supported", nearest);
	if (excl)
		return REFUSE(g, n, "exclude_outside 1 not supported");
	scales = in_t(g, n, g->opset < 11 ? 1 : 2);
	sizes = g->opset < 11 ? NULL : in_t(g, n, 3);
	if (sizes && sizes->count) {
		if (!sizes->is_const || sizes->dtype != QPU_NN_INT64 || sizes->count != 4)
			return REFUSE(g, n, "sizes must be a constant of 4 int64");
		memcpy(d, sizes->cdata, sizeof(d));
		for (i = 0; i < 4; i++)
			n->perm[i] = 0;	/* scales taken from the sizes */
	} else if (scales && scales->count) {
		const float *s = scales->cdata;

		if (!scales->is_const || scales->dtype != QPU_NN_FLOAT32 || scales->count != 4)
			return REFUSE(g, n, "scales must be a constant of 4 floats");
		for (i = 0; i < 4; i++) {
			if (!(s[i] > 0.0f) || s[i] > 1024.0f)
				return REFUSE(g, n, "scale %g out of range", (double)s[i]);
			d[i] = (int64_t)floor((double)x->dims[i] * (double)s[i]);
		}
	} else {
		return REFUSE(g, n, "scales or sizes is needed");
	}
	if (d[0] != x->dims[0] || d[1] != x->dims[1])
		return REFUSE(g, n, "only H and W may be resized");
	return set_out(g, n, 0, QPU_NN_FLOAT32, 4, d);
}

static int check_quantize(struct qpu_nn_graph *g, struct nn_node *n)
{
	struct nn_tensor *x = in_t(g, n, 0), *zp = in_t(g, n, 2), *s = in_t(g, n, 1);
	int64_t axis;
	size_t ch = 1;

	if (!s)
		return REFUSE(g, n, "the scale input is needed");
	if (attr_int(g, n, "axis", 1, &axis))
		return -EINVAL;
	if (s->count > 1) {
		if (norm_axis(g, n, axis, x->rank, 0))
			return -EINVAL;
		ch = (size_t)x->dims[n->axis];
	}
	if (n->kind == NN_QUANTIZE) {
		if (x->dtype != QPU_NN_FLOAT32 && x->dtype != QPU_NN_INT32)
			return REFUSE(g, n, "x must be float or int32");
		if (want_qparam(g, n, 1, "y_scale", QPU_NN_FLOAT32, ch, 0) ||
		    want_qparam(g, n, 2, "y_zero_point", 0, ch, 1))
			return -EINVAL;
		return set_out(g, n, 0, zp ? zp->dtype : QPU_NN_UINT8, x->rank, x->dims);
	}
	if (!is_8bit(x->dtype) && x->dtype != QPU_NN_INT32)
		return REFUSE(g, n, "x must be int8, uint8 or int32");
	if (want_qparam(g, n, 1, "x_scale", QPU_NN_FLOAT32, ch, 0) ||
	    want_qparam(g, n, 2, "x_zero_point", x->dtype == QPU_NN_INT32 ? QPU_NN_INT32 : x->dtype,
			ch, 1))
		return -EINVAL;
	return set_out(g, n, 0, QPU_NN_FLOAT32, x->rank, x->dims);
}

/*
 * The operator table: name, domain, inputs (least, most), outputs (most),
 * check. The check reads the attributes it knows; any other is refused.
 */
static const struct nn_op_def {
	const char *name;
	const char *domain;
	unsigned int min_in, max_in, max_out;
	int (*check)(struct qpu_nn_graph *g, struct nn_node *n);
} ops[NN_OP_COUNT] = {
	[NN_CONV] = { "Conv", "", 2, 3, 1, check_conv },
	[NN_QLINEARCONV] = { "QLinearConv", "", 8, 9, 1, check_qlinearconv },
	[NN_GEMM] = { "Gemm", "", 2, 3, 1, check_gemm },
	[NN_MATMUL] = { "MatMul", "", 2, 2, 1, check_matmul },
	[NN_QLINEARMATMUL] = { "QLinearMatMul", "", 8, 8, 1, check_qlinearmatmul },
	[NN_MAXPOOL] = { "MaxPool", "", 1, 1, 2, check_pool },
	[NN_AVGPOOL] = { "AveragePool", "", 1, 1, 1, check_pool },
	[NN_GAVGPOOL] = { "GlobalAveragePool", "", 1, 1, 1, check_gavgpool },
	[NN_RELU] = { "Relu", "", 1, 1, 1, check_unary },
	[NN_CLIP] = { "Clip", "", 1, 3, 1, check_unary },
	[NN_SIGMOID] = { "Sigmoid", "", 1, 1, 1, check_unary },
	[NN_LEAKYRELU] = { "LeakyRelu", "", 1, 1, 1, check_unary },
	[NN_HARDSWISH] = { "HardSwish", "", 1, 1, 1, check_unary },
	[NN_ADD] = { "Add", "", 2, 2, 1, check_binary },
	[NN_MUL] = { "Mul", "", 2, 2, 1, check_binary },
	[NN_QLINEARADD] = { "QLinearAdd", "com.microsoft", 7, 8, 1, check_qlinearadd },
	[NN_CONCAT] = { "Concat", "", 1, 64, 1, check_concat },
	[NN_RESHAPE] = { "Reshape", "", 2, 2, 1, check_reshape },
	[NN_FLATTEN] = { "Flatten", "", 1, 1, 1, check_flatten },
	[NN_IDENTITY] = { "Identity", "", 1, 1, 1, check_identity },
	[NN_TRANSPOSE] = { "Transpose", "", 1, 1, 1, check_transpose },
	[NN_SOFTMAX] = { "Softmax", "", 1, 1, 1, check_softmax },
	[NN_RESIZE] = { "Resize", "", 2, 4, 1, check_resize },
	[NN_QUANTIZE] = { "QuantizeLinear", "", 2, 3, 1, check_quantize },
	[NN_DEQUANTIZE] = { "DequantizeLinear", "", 2, 3, 1, check_quantize },
};

const char *nn_op_name(int kind)
{
	return kind >= 0 && kind < NN_OP_COUNT ? ops[kind].name : "?";
}

int nn_check_node(struct qpu_nn_graph *g, struct nn_node *n)
{
	const struct nn_op_def *def = NULL;
	unsigned int i;
	int kind;

	for (kind = 0; kind < NN_OP_COUNT; kind++)
		if (!strcmp(ops[kind].name, n->op)) {
			def = &ops[kind];
			break;
		}
	if (!def)
		return REFUSE(g, n, "operator not supported");
	if (strcmp(n->domain, def->domain) && !(!*def->domain && !strcmp(n->domain, "ai.onnx")))
		return REFUSE(g, n, "domain '%s' not supported ('%s')", n->domain, def->domain);
	n->kind = kind;
	if (n->n_in < def->min_in || n->n_in > def->max_in)
		return REFUSE(g, n, "%u inputs, it takes %u to %u", n->n_in, def->min_in,
			      def->max_in);
	if (n->n_out < 1 || n->n_out > def->max_out || n->out[0] < 0)
		return REFUSE(g, n, "%u outputs, it gives 1", n->n_out);
	for (i = 0; i < n->n_in; i++) {
		struct nn_tensor *t = in_t(g, n, i);

		if (!t)
			continue;
		if (!t->shaped)
			return REFUSE(g, n, "input '%s' has a dimension not known at load", t->name);
		if (!nn_dtype_size(t->dtype))
			return REFUSE(g, n, "input '%s' is of element type %d, not supported",
				      t->name, (int)t->dtype);
	}
	if (!in_t(g, n, 0))
		return REFUSE(g, n, "its first input is missing");
	/* nothing computes on no elements (the kernels divide by the batch) */
	if (!in_t(g, n, 0)->count)
		return REFUSE(g, n, "input '%s' is empty (a dimension of 0)", in_t(g, n, 0)->name);
	for (i = 0; i < n->n_out; i++) {
		struct nn_tensor *t = n->out[i] >= 0 ? &g->t[n->out[i]] : NULL;

		if (t && (t->producer >= 0 || t->is_const || t->is_input))
			return REFUSE(g, n, "output '%s' is produced twice", t->name);
	}
	if (def->check(g, n))
		return -EINVAL;
	for (i = 0; i < n->n_attr; i++)
		if (!n->attr[i].used)
			return REFUSE(g, n, "attribute %s not supported", n->attr[i].name);
	return 0;
}
