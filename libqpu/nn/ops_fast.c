// SPDX-License-Identifier: MIT
/*
 * libqpu/nn: the CPU backend's fast path: a packed, register-blocked sgemm
 * in GCC's portable vector types (SSE on amd64, NEON on arm64 and armhf
 * with NEON), convolutions as im2col and that product, depthwise 3x3 and
 * the like directly, matrix products; INT8 in ops_fast_int8.c. What it
 * does not take, the reference (ops_ref.c) runs.
 */
#include <stdint.h>
#include <string.h>

#include "nn_check.h"

/*
 * Every function taking or returning a vector is static: no ABI crosses
 * this file, so GCC's note that a vector's ABI differs without SSE (32-bit
 * x86, check-m32) or NEON (armhf without it) does not apply.
 */
#pragma GCC diagnostic ignored "-Wpsabi"

typedef float v4f __attribute__((vector_size(16)));

#define MR 4		/* rows of C a micro-kernel keeps in registers */
#define NR 8		/* columns: two vectors */

static inline v4f ld4(const float *p)
{
	v4f v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void st4(float *p, v4f v)
{
	memcpy(p, &v, sizeof(v));
}

/* C[rows x NR] = A[rows x k] * Bp (k x NR packed), @rows <= MR, @cols valid columns. */
static void micro(size_t rows, size_t cols, size_t k, const float *a, size_t lda,
		  const float *bp, float *c, size_t ldc)
{
	v4f acc[MR][2] = { { { 0 } } };
	float tmp[NR];
	size_t p, r;

	if (rows == MR) {
		const float *a0 = a, *a1 = a + lda, *a2 = a + 2 * lda, *a3 = a + 3 * lda;

		for (p = 0; p < k; p++) {
			v4f b0 = ld4(bp + p * NR), b1 = ld4(bp + p * NR + 4);
			v4f x0 = { a0[p], a0[p], a0[p], a0[p] }, x1 = { a1[p], a1[p], a1[p], a1[p] };
			v4f x2 = { a2[p], a2[p], a2[p], a2[p] }, x3 = { a3[p], a3[p], a3[p], a3[p] };

			acc[0][0] += x0 * b0;
			acc[0][1] += x0 * b1;
			acc[1][0] += x1 * b0;
			acc[1][1] += x1 * b1;
			acc[2][0] += x2 * b0;
			acc[2][1] += x2 * b1;
			acc[3][0] += x3 * b0;
			acc[3][1] += x3 * b1;
		}
	} else {
		for (p = 0; p < k; p++) {
			v4f b0 = ld4(bp + p * NR), b1 = ld4(bp + p * NR + 4);

			for (r = 0; r < rows; r++) {
				float s = a[r * lda + p];
				v4f x = { s, s, s, s };

				acc[r][0] += x * b0;
				acc[r][1] += x * b1;
			}
		}
	}
	for (r = 0; r < rows; r++) {
		if (cols == NR) {
			st4(c + r * ldc, acc[r][0]);
			st4(c + r * ldc + 4, acc[r][1]);
		} else {
			st4(tmp, acc[r][0]);
			st4(tmp + 4, acc[r][1]);
			memcpy(c + r * ldc, tmp, cols * sizeof(float));
		}
	}
}

/* Bytes of packing buffer nn_sgemm_cpu() needs for depth @k. */
static size_t pack_bytes(size_t k)
{
	return k * NR * sizeof(float);
}

/*
 * C (m x n) = A (m x k) * B (k x n), row-major with leading dimensions;
 * @pack holds pack_bytes(k). Each NR-column strip of B is packed once and
 * streamed against every MR-row block of A.
 */
static void sgemm_packed(size_t m, size_t n, size_t k, const float *a, size_t lda,
			 const float *b, size_t ldb, float *c, size_t ldc, float *pack)
{
	size_t j, i, p, cols;

	for (j = 0; j < n; j += NR) {
		cols = n - j < NR ? n - j : NR;
		for (p = 0; p < k; p++) {
			memcpy(pack + p * NR, b + p * ldb + j, cols * sizeof(float));
			if (cols < NR)
				memset(pack + p * NR + cols, 0, (NR - cols) * sizeof(float));
		}
		for (i = 0; i < m; i += MR)
			micro(m - i < MR ? m - i : MR, cols, k, a + i * lda, lda, pack,
			      c + i * ldc + j, ldc);
	}
}

void nn_im2col(const float *x, int64_t c, int64_t h, int64_t w, const struct nn_win *win,
	       int64_t oh, int64_t ow, float *col)
{
	int64_t ci, kh, kw, y, xo;

	for (ci = 0; ci < c; ci++)
		for (kh = 0; kh < win->kh; kh++)
			for (kw = 0; kw < win->kw; kw++) {
				float *row = col + ((ci * win->kh + kh) * win->kw + kw) * oh * ow;

				for (y = 0; y < oh; y++) {
					int64_t ih = y * win->sh - win->pt + kh;
					float *dst = row + y * ow;

					if (ih < 0 || ih >= h) {
						memset(dst, 0, (size_t)ow * sizeof(float));
						continue;
					}
					for (xo = 0; xo < ow; xo++) {
						int64_t iw = xo * win->sw - win->pl + kw;

						dst[xo] = iw < 0 || iw >= w ? 0.0f :
							  x[(ci * h + ih) * w + iw];
					}
				}
			}
}

static int is_direct(const struct nn_node *n)
{
	const struct nn_win *w = &n->win;

	return w->kh == 1 && w->kw == 1 && w->sh == 1 && w->sw == 1 && !w->pt && !w->pl &&
	       !w->pb && !w->pr;
}

size_t nn_fast_scratch(const struct qpu_nn_graph *g, const struct nn_node *n)
{
	const struct nn_tensor *w, *y;
	size_t k;

	switch (n->kind) {
	case NN_CONV:
		w = &g->t[n->in[1]];
		y = &g->t[n->out[0]];
		k = w->count / (size_t)w->dims[0];
		if (w->dims[1] == 1 && w->dims[0] == n->win.group)
			return 0;	/* one channel a group and a filter each: direct */
		return pack_bytes(k) + (is_direct(n) ? 0 : k * (size_t)(y->dims[2] * y->dims[3]) *
							   sizeof(float));
	case NN_GEMM:
	case NN_MATMUL:
		if (n->kind == NN_GEMM && (n->trans_a || n->trans_b))
			return 0;	/* the reference, or dot products: no panel */
		return pack_bytes((size_t)g->t[n->in[0]].dims[g->t[n->in[0]].rank - 1]);
	case NN_QLINEARCONV:
	case NN_QLINEARMATMUL:
		return nn_qfast_scratch(g, n);
	default:
		return 0;
	}
}

/* y[i] += s * x[i * stride], i < count. */
static void axpy_strided(float *y, float s, const float *x, size_t stride, size_t count)
{
	v4f sv = { s, s, s, s };
	size_t i = 0;

	if (stride == 1)
		for (; i + 4 <= count; i += 4)
			st4(y + i, ld4(y + i) + sv * ld4(x + i));
	for (; i < count; i++)
		y[i] += s * x[i * stride];
}

/* One channel of a depthwise convolution (one input plane, one filter). */
static void dw_plane(const float *x, int64_t h, int64_t w, const float *k, const struct nn_win *win,
		     float bias, float *y, int64_t oh, int64_t ow)
{
	int64_t o, kh, kw, ih, lo, hi;

	for (o = 0; o < oh; o++) {
		float *row = y + o * ow;

		for (lo = 0; lo < ow; lo++)
			row[lo] = bias;
		for (kh = 0; kh < win->kh; kh++) {
			ih = o * win->sh - win->pt + kh;
			if (ih < 0 || ih >= h)
				continue;
			for (kw = 0; kw < win->kw; kw++) {
				/* columns whose input iw = ow * sw - pl + kw is inside */
				int64_t off = win->pl - kw;

				lo = off > 0 ? (off + win->sw - 1) / win->sw : 0;
				hi = (w - 1 + off) / win->sw;	/* last valid, w - 1 + off >= 0 */
				if (w - 1 + off < 0)
					continue;
				if (hi >= ow)
					hi = ow - 1;
				if (lo > hi)
					continue;
				axpy_strided(row + lo, k[kh * win->kw + kw],
					     x + ih * w + lo * win->sw - off, (size_t)win->sw,
					     (size_t)(hi - lo + 1));
			}
		}
	}
}

static void conv_fast(struct qpu_nn_graph *g, struct nn_node *n, void *scratch)
{
	const struct nn_tensor *x = &g->t[n->in[0]], *wt = &g->t[n->in[1]], *y = &g->t[n->out[0]];
	const float *xp = nn_ptr(g, n->in[0]), *wp = nn_ptr(g, n->in[1]);
	const float *bias = n->n_in > 2 && n->in[2] >= 0 ? nn_ptr(g, n->in[2]) : NULL;
	int64_t C = x->dims[1], H = x->dims[2], W = x->dims[3];
	int64_t M = y->dims[1], OH = y->dims[2], OW = y->dims[3], G = n->win.group;
	size_t P = (size_t)(OH * OW), cg = (size_t)wt->dims[1], mg = (size_t)(M / G);
	size_t K = wt->count / (size_t)M, m, p;
	float *yp = nn_ptr(g, n->out[0]);
	int64_t b, gi;

	for (b = 0; b < x->dims[0]; b++) {
		const float *xb = xp + (size_t)b * (size_t)(C * H * W);
		float *yb = yp + (size_t)b * (size_t)M * P;

		if (cg == 1 && mg == 1) {	/* depthwise */
			for (m = 0; m < (size_t)M; m++)
				dw_plane(xb + m * (size_t)(H * W), H, W, wp + m * K, &n->win,
					 bias ? bias[m] : 0.0f, yb + m * P, OH, OW);
			nn_apply_act(n, yb, (size_t)M * P);
			continue;
		}
		for (gi = 0; gi < G; gi++) {
			const float *xg = xb + (size_t)gi * cg * (size_t)(H * W), *colp = xg;
			float *pack = scratch, *col = (float *)((char *)scratch + pack_bytes(K));

			if (!is_direct(n)) {
				nn_im2col(xg, (int64_t)cg, H, W, &n->win, OH, OW, col);
				colp = col;
			}
			sgemm_packed(mg, P, K, wp + (size_t)gi * mg * K, K, colp, P,
				     yb + (size_t)gi * mg * P, P, pack);
		}
		for (m = 0; m < (size_t)M; m++) {
			float *row = yb + m * P;

			if (bias)
				for (p = 0; p < P; p++)
					row[p] += bias[m];
			nn_apply_act(n, row, P);
		}
	}
}

/* A row of @a against every row of @b (B stored N x K): y = a . b_j. */
static void gemv_t(size_t n, size_t k, const float *a, const float *b, float *y)
{
	size_t j, p;

	for (j = 0; j < n; j++) {
		const float *bj = b + j * k;
		v4f acc = { 0 };
		float s;

		for (p = 0; p + 4 <= k; p += 4)
			acc += ld4(a + p) * ld4(bj + p);
		s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
		for (; p < k; p++)
			s += a[p] * bj[p];
		y[j] = s;
	}
}

static int product_fast(struct qpu_nn_graph *g, struct nn_node *n, void *scratch)
{
	const struct nn_tensor *a = &g->t[n->in[0]], *b = &g->t[n->in[1]], *y = &g->t[n->out[0]];
	const float *ap = nn_ptr(g, n->in[0]), *bp = nn_ptr(g, n->in[1]);
	size_t M, N, K, i, j;
	float *yp = nn_ptr(g, n->out[0]);

	if (a->rank != 2 || b->rank != 2 || (n->kind == NN_GEMM && n->trans_a))
		return 0;
	M = (size_t)y->dims[0];
	N = (size_t)y->dims[1];
	K = (size_t)a->dims[1];
	if (n->kind == NN_GEMM && n->trans_b)
		for (i = 0; i < M; i++)
			gemv_t(N, K, ap + i * K, bp, yp + i * N);
	else
		sgemm_packed(M, N, K, ap, K, bp, N, yp, N, scratch);
	if (n->kind == NN_GEMM) {
		const struct nn_tensor *c = n->n_in > 2 && n->in[2] >= 0 ? &g->t[n->in[2]] : NULL;
		const float *cp = c ? nn_ptr(g, n->in[2]) : NULL;
		size_t si = c && c->rank == 2 && c->dims[0] > 1 ? (size_t)c->dims[1] : 0;
		size_t sj = c && c->rank >= 1 && c->dims[c->rank - 1] > 1 ? 1 : 0;

		for (i = 0; i < M; i++)
			for (j = 0; j < N; j++) {
				float v = yp[i * N + j] * n->alpha;

				yp[i * N + j] = cp ? v + n->beta * cp[i * si + j * sj] : v;
			}
	}
	nn_apply_act(n, yp, y->count);
	return 1;
}

void nn_sgemm_cpu(size_t m, size_t n, size_t k, const float *a, size_t lda, const float *b,
		  size_t ldb, float *c, size_t ldc, float *pack)
{
	sgemm_packed(m, n, k, a, lda, b, ldb, c, ldc, pack);
}

int nn_fast_run(struct qpu_nn_graph *g, struct nn_node *n, void *scratch)
{
	switch (n->kind) {
	case NN_CONV:
		conv_fast(g, n, scratch);
		return 1;
	case NN_GEMM:
	case NN_MATMUL:
		return product_fast(g, n, scratch);
	case NN_QLINEARCONV:
	case NN_QLINEARMATMUL:
		return nn_qfast_run(g, n, scratch);
	default:
		return 0;
	}
}
