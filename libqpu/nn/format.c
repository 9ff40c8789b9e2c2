// SPDX-License-Identifier: MIT
/*
 * libqpu/nn: the .qnn file format's reader (libqpu/nn/FORMAT.md), every
 * read bounded by the image's size.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nn_internal.h"

#define QNN_MAGIC "QPUNN\r\n\x1a"
#define QNN_MAJOR 1
#define QNN_END "QEND"
/* Limits that keep a corrupt count from asking for absurd memory. */
#define QNN_MAX_ITEMS (1u << 20)
#define QNN_MAX_EDGES 64
#define QNN_MAX_ATTRS 256
#define QNN_MAX_DIM (INT64_C(1) << 31)
#define QNN_MAX_ELEMENTS (UINT64_C(1) << 32)
/* The fewest bytes a tensor, a node and an input or output take. */
#define QNN_MIN_TENSOR 5
#define QNN_MIN_NODE 10
#define QNN_MIN_IO 4

struct reader {
	const uint8_t *p;
	size_t size, pos;
	int bad;
	const char *what;	/* what was being read, for the message */
};

static const void *take(struct reader *r, size_t n)
{
	const void *q;

	if (r->bad || n > r->size - r->pos) {
		r->bad = 1;
		return NULL;
	}
	q = r->p + r->pos;
	r->pos += n;
	return q;
}

static uint64_t rd_le(struct reader *r, unsigned int n)
{
	const uint8_t *q = take(r, n);
	uint64_t v = 0;

	if (!q)
		return 0;
	while (n--)
		v = v << 8 | q[n];
	return v;
}

static uint8_t rd8(struct reader *r) { return (uint8_t)rd_le(r, 1); }
static uint16_t rd16(struct reader *r) { return (uint16_t)rd_le(r, 2); }
static uint32_t rd32(struct reader *r) { return (uint32_t)rd_le(r, 4); }
static int64_t rd64(struct reader *r) { return (int64_t)rd_le(r, 8); }

static float rdf(struct reader *r)
{
	uint32_t u = rd32(r);
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/* A length-prefixed string, NUL-terminated in a new allocation. */
static char *rd_str(struct reader *r)
{
	uint16_t len = rd16(r);
	const char *q = take(r, len);
	char *s;

	if (!q)
		return NULL;
	s = malloc((size_t)len + 1);
	if (!s) {
		r->bad = 2;
		return NULL;
	}
	memcpy(s, q, len);
	s[len] = 0;
	if (strlen(s) != len) {	/* an embedded NUL */
		free(s);
		r->bad = 1;
		return NULL;
	}
	return s;
}

static int rd_count(struct reader *r, uint32_t max, uint32_t *out)
{
	*out = rd32(r);
	if (!r->bad && *out > max)
		r->bad = 1;
	return r->bad ? -1 : 0;
}

static int rd_tensor(struct reader *r, struct nn_tensor *t)
{
	size_t esize;
	uint64_t nbytes;
	unsigned int i;

	r->what = "a tensor";
	t->producer = -1;
	t->alias = -1;
	t->name = rd_str(r);
	t->dtype = rd8(r);
	t->rank = rd8(r);
	if (r->bad)
		return -1;
	if (t->rank > QPU_NN_MAX_RANK) {
		r->what = "a tensor's rank (at most 6)";
		r->bad = 1;
		return -1;
	}
	t->shaped = 1;
	t->count = 1;
	for (i = 0; i < t->rank; i++) {
		t->dims[i] = rd64(r);
		if (t->dims[i] < 0 || t->dims[i] > QNN_MAX_DIM) {
			t->shaped = 0;
		} else if (t->shaped) {
			if (t->dims[i] && t->count > QNN_MAX_ELEMENTS / (uint64_t)t->dims[i]) {
				r->what = "a tensor's shape (at most 2^32 elements)";
				r->bad = 1;
				return -1;
			}
			t->count = t->count * (size_t)t->dims[i];
		}
	}
	if (rd8(r)) {	/* data follows */
		nbytes = (uint64_t)rd64(r);
		esize = nn_dtype_size(t->dtype);
		if (!r->bad && !esize && nbytes <= r->size - r->pos) {
			/* a type no operator takes: kept, without its data, to be
			 * refused by the node that reads it */
			take(r, (size_t)nbytes);
			t->cdata = calloc(1, 1);
			t->is_const = 1;
			return t->cdata ? 0 : (r->bad = 2, -1);
		}
		if (r->bad || !t->shaped || nbytes != t->count * esize ||
		    nbytes > r->size - r->pos) {
			r->what = "a constant's data (its size against its shape and type)";
			r->bad = 1;
			return -1;
		}
		t->bytes = (size_t)nbytes;
		t->cdata = malloc(t->bytes ? t->bytes : 1);
		if (!t->cdata) {
			r->bad = 2;
			return -1;
		}
		memcpy(t->cdata, take(r, t->bytes), t->bytes);
		t->is_const = 1;
	}
	return r->bad ? -1 : 0;
}

static int rd_edges(struct reader *r, unsigned int n_tensors, unsigned int *n, int **edges)
{
	unsigned int i;
	uint32_t v;

	*n = rd8(r);
	if (r->bad || *n > QNN_MAX_EDGES)
		return -1;
	*edges = calloc(*n ? *n : 1, sizeof(**edges));
	if (!*edges) {
		r->bad = 2;
		return -1;
	}
	for (i = 0; i < *n; i++) {
		v = rd32(r);
		if (v == UINT32_MAX) {
			(*edges)[i] = -1;
		} else if (v >= n_tensors) {
			r->what = "a node's tensor index";
			r->bad = 1;
			return -1;
		} else {
			(*edges)[i] = (int)v;
		}
	}
	return r->bad ? -1 : 0;
}

static int rd_attr(struct reader *r, struct nn_attr *a)
{
	uint32_t i, skip;

	a->name = rd_str(r);
	a->type = rd8(r);
	switch (a->type) {
	case NN_ATTR_FLOAT:
		a->f = rdf(r);
		break;
	case NN_ATTR_INT:
		a->i = rd64(r);
		break;
	case NN_ATTR_STRING:
		a->s = rd_str(r);
		break;
	case NN_ATTR_FLOATS:
	case NN_ATTR_INTS:
		if (rd_count(r, QNN_MAX_ITEMS, &a->n) < 0 ||
		    (size_t)a->n * (a->type == NN_ATTR_INTS ? 8 : 4) > r->size - r->pos) {
			r->bad = 1;
			return -1;
		}
		if (a->type == NN_ATTR_INTS)
			a->ints = calloc(a->n + 1, sizeof(*a->ints));
		else
			a->floats = calloc(a->n + 1, sizeof(*a->floats));
		if (!a->ints && !a->floats) {
			r->bad = 2;
			return -1;
		}
		for (i = 0; i < a->n; i++) {
			if (a->ints)
				a->ints[i] = rd64(r);
			else
				a->floats[i] = rdf(r);
		}
		break;
	default:	/* a kind the format does not carry: its bytes are skipped */
		skip = rd32(r);
		take(r, skip);
		break;
	}
	return r->bad ? -1 : 0;
}

static int rd_node(struct reader *r, struct nn_node *n, unsigned int n_tensors)
{
	unsigned int i;
	uint16_t n_attr;

	r->what = "a node";
	n->fused = "";
	n->fused_into = -1;
	n->name = rd_str(r);
	n->op = rd_str(r);
	n->domain = rd_str(r);
	if (r->bad)
		return -1;
	if (rd_edges(r, n_tensors, &n->n_in, &n->in) < 0 ||
	    rd_edges(r, n_tensors, &n->n_out, &n->out) < 0)
		return -1;
	n_attr = rd16(r);
	if (r->bad || n_attr > QNN_MAX_ATTRS)
		return -1;
	n->attr = calloc(n_attr ? n_attr : 1, sizeof(*n->attr));
	if (!n->attr) {
		r->bad = 2;
		return -1;
	}
	n->n_attr = n_attr;
	r->what = "a node's attribute";
	for (i = 0; i < n_attr; i++)
		if (rd_attr(r, &n->attr[i]) < 0)
			return -1;
	return 0;
}

static int rd_io(struct reader *r, struct nn_graph_io *io, uint32_t n, unsigned int n_tensors)
{
	uint32_t i, v;

	io->n = n;
	io->t = calloc(n ? n : 1, sizeof(*io->t));
	if (!io->t) {
		r->bad = 2;
		return -1;
	}
	for (i = 0; i < n; i++) {
		v = rd32(r);
		if (r->bad || v >= n_tensors) {
			r->bad = 1;
			return -1;
		}
		io->t[i] = (int)v;
	}
	return 0;
}

int nn_format_parse(struct qpu_nn_graph *g, const uint8_t *p, size_t size)
{
	struct reader r = { .p = p, .size = size, .what = "the header" };
	uint32_t n_in, n_out, nt, nn, i;
	const void *magic = take(&r, 8);
	uint16_t major;

	if (!magic || memcmp(magic, QNN_MAGIC, 8)) {
		nn_err(g, "not a .qnn file (no magic)");
		return -EINVAL;
	}
	major = rd16(&r);
	rd16(&r);	/* minor: additions a reader of this major may skip */
	g->opset = rd32(&r);
	if (!r.bad && major != QNN_MAJOR) {
		nn_err(g, ".qnn format %u, this library reads %u", major, QNN_MAJOR);
		return -EINVAL;
	}
	if (rd_count(&r, QNN_MAX_ITEMS, &nt) || rd_count(&r, QNN_MAX_ITEMS, &nn) ||
	    rd_count(&r, QNN_MAX_ITEMS, &n_in) || rd_count(&r, QNN_MAX_ITEMS, &n_out))
		goto bad;
	/* counts the remaining bytes cannot hold are refused before any allocation */
	if ((uint64_t)nt * QNN_MIN_TENSOR + (uint64_t)nn * QNN_MIN_NODE +
	    ((uint64_t)n_in + n_out) * QNN_MIN_IO > size - r.pos)
		goto bad;
	g->t = calloc(nt ? nt : 1, sizeof(*g->t));
	g->node = calloc(nn ? nn : 1, sizeof(*g->node));
	if (!g->t || !g->node)
		return -ENOMEM;
	for (i = 0; i < nt; i++) {
		g->n_tensors = i + 1;
		if (rd_tensor(&r, &g->t[i]) < 0)
			goto bad;
	}
	r.what = "the inputs and outputs";
	if (rd_io(&r, &g->in, n_in, nt) < 0 || rd_io(&r, &g->out, n_out, nt) < 0)
		goto bad;
	for (i = 0; i < nn; i++) {
		g->n_nodes = i + 1;
		if (rd_node(&r, &g->node[i], nt) < 0)
			goto bad;
	}
	r.what = "the end mark";
	magic = take(&r, 4);
	if (!magic || memcmp(magic, QNN_END, 4) || r.pos != size)
		goto bad;
	return 0;
bad:
	if (r.bad == 2)
		return -ENOMEM;
	nn_err(g, "malformed or truncated .qnn file: bad %s at byte %zu", r.what, r.pos);
	return -EINVAL;
}
