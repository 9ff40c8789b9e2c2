/* SPDX-License-Identifier: MIT */
/*
 * A .qnn image builder for the tests (libqpu/nn/FORMAT.md): graphs made in
 * C, without Python, for test-nn and the loader's fuzzer.
 */
#ifndef QPU_NN_BUILD_H
#define QPU_NN_BUILD_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct nb_buf {
	uint8_t *p;
	size_t len, cap;
};

struct nb {
	struct nb_buf tensors, nodes, attrs;
	uint32_t nt, nn, n_attrs;
};

static inline void nb_put(struct nb_buf *b, const void *data, size_t n)
{
	if (!n)
		return;
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 256;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

static inline void nb_le(struct nb_buf *b, uint64_t v, unsigned int n)
{
	uint8_t x[8];
	unsigned int i;

	for (i = 0; i < n; i++)
		x[i] = (uint8_t)(v >> (8 * i));
	nb_put(b, x, n);
}

static inline void nb_str(struct nb_buf *b, const char *s)
{
	nb_le(b, strlen(s), 2);
	nb_put(b, s, strlen(s));
}

/* A tensor; @data (count x element size bytes) makes it a constant. */
static inline uint32_t nb_tensor(struct nb *q, const char *name, int dtype, unsigned int rank,
				 const int64_t *dims, const void *data, size_t bytes)
{
	unsigned int i;

	nb_str(&q->tensors, name);
	nb_le(&q->tensors, (uint64_t)dtype, 1);
	nb_le(&q->tensors, rank, 1);
	for (i = 0; i < rank; i++)
		nb_le(&q->tensors, (uint64_t)dims[i], 8);
	nb_le(&q->tensors, data != NULL, 1);
	if (data) {
		nb_le(&q->tensors, bytes, 8);
		nb_put(&q->tensors, data, bytes);
	}
	return q->nt++;
}

/* A tensor a node makes (typed and shaped at load). */
static inline uint32_t nb_value(struct nb *q, const char *name)
{
	return nb_tensor(q, name, 0, 0, NULL, NULL, 0);
}

static inline void nb_attr_int(struct nb *q, const char *name, int64_t v)
{
	nb_str(&q->attrs, name);
	nb_le(&q->attrs, 2, 1);
	nb_le(&q->attrs, (uint64_t)v, 8);
	q->n_attrs++;
}

static inline void nb_attr_float(struct nb *q, const char *name, float v)
{
	uint32_t u;

	memcpy(&u, &v, 4);
	nb_str(&q->attrs, name);
	nb_le(&q->attrs, 1, 1);
	nb_le(&q->attrs, u, 4);
	q->n_attrs++;
}

static inline void nb_attr_str(struct nb *q, const char *name, const char *v)
{
	nb_str(&q->attrs, name);
	nb_le(&q->attrs, 3, 1);
	nb_str(&q->attrs, v);
	q->n_attrs++;
}

static inline void nb_attr_ints(struct nb *q, const char *name, unsigned int n, const int64_t *v)
{
	unsigned int i;

	nb_str(&q->attrs, name);
	nb_le(&q->attrs, 7, 1);
	nb_le(&q->attrs, n, 4);
	for (i = 0; i < n; i++)
		nb_le(&q->attrs, (uint64_t)v[i], 8);
	q->n_attrs++;
}

/* A node taking the attributes given since the last node. */
static inline void nb_node(struct nb *q, const char *name, const char *op, const char *domain,
			   unsigned int nin, const uint32_t *in, unsigned int nout,
			   const uint32_t *out)
{
	unsigned int i;

	nb_str(&q->nodes, name);
	nb_str(&q->nodes, op);
	nb_str(&q->nodes, domain);
	nb_le(&q->nodes, nin, 1);
	for (i = 0; i < nin; i++)
		nb_le(&q->nodes, in[i], 4);
	nb_le(&q->nodes, nout, 1);
	for (i = 0; i < nout; i++)
		nb_le(&q->nodes, out[i], 4);
	nb_le(&q->nodes, q->n_attrs, 2);
	nb_put(&q->nodes, q->attrs.p, q->attrs.len);
	q->attrs.len = 0;
	q->n_attrs = 0;
	q->nn++;
}

/* The image, to free(); its size in *@size. Frees the builder's parts. */
static inline uint8_t *nb_finish(struct nb *q, uint32_t opset, unsigned int nin,
				 const uint32_t *in, unsigned int nout, const uint32_t *out,
				 size_t *size)
{
	struct nb_buf b = { 0 };
	unsigned int i;

	nb_put(&b, "QPUNN\r\n\x1a", 8);
	nb_le(&b, 1, 2);
	nb_le(&b, 0, 2);
	nb_le(&b, opset, 4);
	nb_le(&b, q->nt, 4);
	nb_le(&b, q->nn, 4);
	nb_le(&b, nin, 4);
	nb_le(&b, nout, 4);
	nb_put(&b, q->tensors.p, q->tensors.len);
	for (i = 0; i < nin; i++)
		nb_le(&b, in[i], 4);
	for (i = 0; i < nout; i++)
		nb_le(&b, out[i], 4);
	nb_put(&b, q->nodes.p, q->nodes.len);
	nb_put(&b, "QEND", 4);
	free(q->tensors.p);
	free(q->nodes.p);
	free(q->attrs.p);
	memset(q, 0, sizeof(*q));
	*size = b.len;
	return b.p;
}

/* The image of one input and one output written to @path: 0, or -1. */
static inline int nb_save(struct nb *q, uint32_t opset, uint32_t in, uint32_t out,
			  const char *path)
{
	size_t size;
	uint8_t *img = nb_finish(q, opset, 1, &in, 1, &out, &size);
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(img, 1, size, f) == size;

	if (f)
		ok = !fclose(f) && ok;
	free(img);
	return ok ? 0 : -1;
}

#endif /* QPU_NN_BUILD_H */
