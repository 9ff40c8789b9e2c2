// SPDX-License-Identifier: MIT
/*
 * libqpu/nn: the portable reference of every operator, written from the
 * ONNX specification; the tests and the folding of constants run it, and
 * so does the CPU backend for what its fast path does not take.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "nn_check.h"

#define IN(i) (n->in[i] >= 0 ? nn_ptr(g, n->in[i]) : NULL)
#define TIN(i) (&g->t[n->in[i]])
#define OUT(i) (nn_ptr(g, n->out[i]))
#define TOUT(i) (&g->t[n->out[i]])

/* --- activations --------------------------------------------------------- */

static inline float act1(enum nn_act act, float a, float b, float x)
{
	switch (act) {
	case NN_ACT_RELU:
		return x > 0.0f ? x : 0.0f;
	case NN_ACT_CLIP:
		return x < a ? a : (x > b ? b : x);
	case NN_ACT_LEAKY:
		return x >= 0.0f ? x : a * x;
	case NN_ACT_SIGMOID:
		return 1.0f / (1.0f + expf(-x));
	case NN_ACT_HARDSWISH: {
		float t = x * (1.0f / 6.0f) + 0.5f;

		return x * (t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t));
	}
	default:
		return x;
	}
}

void nn_apply_act(const struct nn_node *n, float *y, size_t count)
{
	size_t i;

	switch (n->act) {
	case NN_ACT_NONE:
		return;
	case NN_ACT_RELU:
		for (i = 0; i < count; i++)
			y[i] = y[i] > 0.0f ? y[i] : 0.0f;
		return;
	default:
		for (i = 0; i < count; i++)
			y[i] = act1(n->act, n->act_a, n->act_b, y[i]);
	}
}

/* --- quantization: ONNX's rounding (half to even) and saturation ------------ */

static int32_t qmin(enum qpu_nn_dtype d) { return d == QPU_NN_INT8 ? -128 : 0; }
static int32_t qmax(enum qpu_nn_dtype d) { return d == QPU_NN_INT8 ? 127 : 255; }

int32_t nn_ld_q(const void *p, enum qpu_nn_dtype d, size_t i)
{
	switch (d) {
	case QPU_NN_INT8:
		return ((const int8_t *)p)[i];
	case QPU_NN_UINT8:
		return ((const uint8_t *)p)[i];
	case QPU_NN_INT32:
		return ((const int32_t *)p)[i];
	default:
		return 0;
	}
}

void nn_st_q(void *p, enum qpu_nn_dtype d, size_t i, int32_t v)
{
	if (d == QPU_NN_INT8)
		((int8_t *)p)[i] = (int8_t)v;
	else
		((uint8_t *)p)[i] = (uint8_t)v;
}

/* A quantization parameter: element @i of input @k, or @def when absent. */
float nn_qscale(const struct qpu_nn_graph *g, const struct nn_node *n, unsigned int k, size_t i)
{
	const struct nn_tensor *t = &g->t[n->in[k]];

	return ((const float *)t->cdata)[t->count > 1 ? i : 0];
}

int32_t nn_qzero(const struct qpu_nn_graph *g, const struct nn_node *n, unsigned int k, size_t i)
{
	const struct nn_tensor *t;

	if (k >= n->n_in || n->in[k] < 0)
		return 0;
	t = &g->t[n->in[k]];
	return nn_ld_q(t->cdata, t->dtype, t->count > 1 ? i : 0);
}

/* The saturated value of a real @r, rounded half to even (nearbyint). */
static int32_t sat_round(double r, enum qpu_nn_dtype d)
{
	if (!(r > (double)qmin(d)))	/* NaN too */
		return qmin(d);
	if (r > (double)qmax(d))
		return qmax(d);
	return (int32_t)nearbyint(r);
}

/*
 * The requantization of an integer accumulator: acc * (s_in * s_w / s_y)
 * + zp, as ONNX's reference does it (the multiplier a float, the product
 * in double), then rounded half to even and saturated.
 */
int32_t nn_requant(int64_t acc, float mult, int32_t zp, enum qpu_nn_dtype d)
{
	return sat_round((double)acc * (double)mult + (double)zp, d);
}

int32_t nn_quantize1(float v, float scale, int32_t zp, enum qpu_nn_dtype d)
{
	return sat_round((double)rintf(v / scale) + zp, d);
}

float nn_qmult(float s_in, float s_w, float s_y)
{
	float p = s_in * s_w;

	return p / s_y;
}

/* --- element-wise with numpy's broadcast ---------------------------------------- */

/* Strides (in elements) of @t broadcast to @out's shape (0 on broadcast axes). */
static void bstrides(const struct nn_tensor *t, const struct nn_tensor *out, size_t *st)
{
	unsigned int i, off = out->rank - t->rank;
	size_t s = 1;

	for (i = out->rank; i-- > 0;) {
		if (i < off || t->dims[i - off] == 1) {
			st[i] = 0;
		} else {
			st[i] = s;
			s *= (size_t)t->dims[i - off];
		}
	}
}

/* Walks @out's elements in order, giving the index into two broadcast inputs. */
struct bwalk {
	unsigned int rank;
	int64_t dims[QPU_NN_MAX_RANK], idx[QPU_NN_MAX_RANK];
	size_t sa[QPU_NN_MAX_RANK], sb[QPU_NN_MAX_RANK];
	size_t ia, ib;
};

static void bwalk_init(struct bwalk *w, const struct nn_tensor *a, const struct nn_tensor *b,
		       const struct nn_tensor *out)
{
	memset(w, 0, sizeof(*w));
	w->rank = out->rank;
	memcpy(w->dims, out->dims, sizeof(w->dims));
	bstrides(a, out, w->sa);
	bstrides(b, out, w->sb);
}

static void bwalk_next(struct bwalk *w)
{
	unsigned int i;

	for (i = w->rank; i-- > 0;) {
		w->ia += w->sa[i];
		w->ib += w->sb[i];
		if (++w->idx[i] < w->dims[i])
			return;
		w->ia -= w->sa[i] * (size_t)w->dims[i];
		w->ib -= w->sb[i] * (size_t)w->dims[i];
		w->idx[i] = 0;
	}
}

static void binary(struct qpu_nn_graph *g, struct nn_node *n)
{
	const struct nn_tensor *ta = TIN(0), *tb = TIN(1), *to = TOUT(0);
	const void *a = IN(0), *b = IN(1);
	void *y = OUT(0);
	int mul = n->kind == NN_MUL;
	struct bwalk w;
	size_t i;

	bwalk_init(&w, ta, tb, to);
	for (i = 0; i < to->count; i++, bwalk_next(&w)) {
		switch (to->dtype) {
		case QPU_NN_FLOAT32: {
			float x = ((const float *)a)[w.ia], z = ((const float *)b)[w.ib];

			((float *)y)[i] = mul ? x * z : x + z;
			break;
		}
		case QPU_NN_INT32: {
			uint32_t x = (uint32_t)((const int32_t *)a)[w.ia];
			uint32_t z = (uint32_t)((const int32_t *)b)[w.ib];

			((int32_t *)y)[i] = (int32_t)(mul ? x * z : x + z);
			break;
		}
		default: {
			uint64_t x = (uint64_t)((const int64_t *)a)[w.ia];
			uint64_t z = (uint64_t)((const int64_t *)b)[w.ib];

			((int64_t *)y)[i] = (int64_t)(mul ? x * z : x + z);
			break;
		}
		}
	}
	if (to->dtype == QPU_NN_FLOAT32)
		nn_apply_act(n, y, to->count);
}

static void qlinearadd(struct qpu_nn_graph *g, struct nn_node *n)
{
	const struct nn_tensor *ta = TIN(0), *tb = TIN(3), *to = TOUT(0);
	float sa = nn_qscale(g, n, 1, 0), sb = nn_qscale(g, n, 4, 0), sc = nn_qscale(g, n, 6, 0);
	int32_t za = nn_qzero(g, n, 2, 0), zb = nn_qzero(g, n, 5, 0), zc = nn_qzero(g, n, 7, 0);
	const void *a = IN(0), *b = IN(3);
	void *y = OUT(0);
	struct bwalk w;
	size_t i;

	bwalk_init(&w, ta, tb, to);
	for (i = 0; i < to->count; i++, bwalk_next(&w)) {
		float va = (float)(nn_ld_q(a, ta->dtype, w.ia) - za) * sa;
		float vb = (float)(nn_ld_q(b, tb->dtype, w.ib) - zb) * sb;
		float q = rintf((va + vb) / sc);

		nn_st_q(y, to->dtype, i, sat_round((double)q + zc, to->dtype));
	}
}

/* --- convolution ----------------------------------------------------------------- */

/*
 * Conv and QLinearConv: the same windows; a float sum, or an integer one
 * of the operands less their zero points, requantized.
 */
static void conv(struct qpu_nn_graph *g, struct nn_node *n)
{
	int q = n->kind == NN_QLINEARCONV;
	unsigned int xi = 0, wi = q ? 3 : 1, bi = q ? 8 : 2;
	const struct nn_tensor *tx = TIN(xi), *tw = TIN(wi), *ty = TOUT(0);
	const void *x = IN(xi), *w = IN(wi), *b = n->n_in > bi ? IN(bi) : NULL;
	const struct nn_win *win = &n->win;
	int64_t N = tx->dims[0], C = tx->dims[1], H = tx->dims[2], W = tx->dims[3];
	int64_t M = ty->dims[1], OH = ty->dims[2], OW = ty->dims[3];
	int64_t cg = tw->dims[1], mg = M / win->group;
	int32_t xz = q ? nn_qzero(g, n, 2, 0) : 0, yz = q ? nn_qzero(g, n, 7, 0) : 0;
	int64_t b_, m, oh, ow, c, kh, kw;
	void *y = OUT(0);

	for (m = 0; m < M; m++) {
		int32_t wz = q ? nn_qzero(g, n, 5, (size_t)m) : 0;
		float mult = q ? nn_qmult(nn_qscale(g, n, 1, 0), nn_qscale(g, n, 4, (size_t)m),
				       nn_qscale(g, n, 6, 0)) : 0.0f;
		int64_t c0 = (m / mg) * cg;

		for (b_ = 0; b_ < N; b_++)
			for (oh = 0; oh < OH; oh++)
				for (ow = 0; ow < OW; ow++) {
					size_t yi = (size_t)(((b_ * M + m) * OH + oh) * OW + ow);
					float facc = b && !q ? ((const float *)b)[m] : 0.0f;
					int64_t iacc = b && q ? ((const int32_t *)b)[m] : 0;

					for (c = 0; c < cg; c++)
						for (kh = 0; kh < win->kh; kh++) {
							int64_t ih = oh * win->sh - win->pt + kh;

							if (ih < 0 || ih >= H)
								continue;
							for (kw = 0; kw < win->kw; kw++) {
								int64_t iw = ow * win->sw - win->pl + kw;
								size_t xo = (size_t)(((b_ * C + c0 + c) * H + ih) * W + iw);
								size_t wo = (size_t)(((m * cg + c) * win->kh + kh) * win->kw + kw);

								if (iw < 0 || iw >= W)
									continue;
								if (q)
									iacc += (int64_t)(nn_ld_q(x, tx->dtype, xo) - xz) *
										(nn_ld_q(w, tw->dtype, wo) - wz);
								else
									facc += ((const float *)x)[xo] *
										((const float *)w)[wo];
							}
						}
					if (q)
						nn_st_q(y, ty->dtype, yi, nn_requant(iacc, mult, yz, ty->dtype));
					else
						((float *)y)[yi] = act1(n->act, n->act_a, n->act_b, facc);
				}
	}
}

/* --- matrix products --------------------------------------------------------------- */

static void gemm(struct qpu_nn_graph *g, struct nn_node *n)
{
	const struct nn_tensor *ta = TIN(0), *ty = TOUT(0);
	const float *a = IN(0), *b = IN(1), *c = n->n_in > 2 ? IN(2) : NULL;
	int64_t M = ty->dims[0], N = ty->dims[1], K = ta->dims[n->trans_a ? 0 : 1];
	struct nn_tensor tc = { .rank = 0 };
	size_t st[QPU_NN_MAX_RANK] = { 0 };
	int64_t i, j, k;
	float *y = OUT(0);

	if (c) {
		tc = *TIN(2);
		bstrides(&tc, ty, st);
	}
	for (i = 0; i < M; i++)
		for (j = 0; j < N; j++) {
			float acc = 0.0f;

			for (k = 0; k < K; k++)
				acc += a[n->trans_a ? k * M + i : i * K + k] *
				       b[n->trans_b ? j * K + k : k * N + j];
			acc *= n->alpha;
			if (c)
				acc += n->beta * c[(size_t)i * st[0] + (size_t)j * st[1]];
			y[i * N + j] = act1(n->act, n->act_a, n->act_b, acc);
		}
}

/* The offsets of each matrix of a batched product (numpy's matmul broadcast). */
static void batch_offsets(const struct nn_tensor *ta, const struct nn_tensor *tb,
			  const struct nn_tensor *ty, size_t bi, size_t *oa, size_t *ob)
{
	struct nn_tensor ba = *ta, bb = *tb, by = *ty;
	size_t sa[QPU_NN_MAX_RANK], sb[QPU_NN_MAX_RANK];
	unsigned int i;

	ba.rank -= 2;
	bb.rank -= 2;
	by.rank -= 2;
	bstrides(&ba, &by, sa);
	bstrides(&bb, &by, sb);
	*oa = *ob = 0;
	for (i = by.rank; i-- > 0;) {
		size_t d = bi % (size_t)by.dims[i];

		bi /= (size_t)by.dims[i];
		*oa += d * sa[i];
		*ob += d * sb[i];
	}
	*oa *= (size_t)(ta->dims[ta->rank - 1] * ta->dims[ta->rank - 2]);
	*ob *= (size_t)(tb->dims[tb->rank - 1] * tb->dims[tb->rank - 2]);
}

static void matmul(struct qpu_nn_graph *g, struct nn_node *n)
{
	const struct nn_tensor *ta = TIN(0), *tb = n->kind == NN_MATMUL ? TIN(1) : TIN(3);
	const struct nn_tensor *ty = TOUT(0);
	int64_t M = ty->dims[ty->rank - 2], N = ty->dims[ty->rank - 1];
	int64_t K = ta->dims[ta->rank - 1];
	size_t batches = ty->count / (size_t)(M * N), bi, oa, ob;
	int q = n->kind == NN_QLINEARMATMUL;
	const void *a = IN(0), *b = q ? IN(3) : IN(1);
	/* a bias only a fused QDQ Gemm gives (graph.c): int32, per column */
	const int32_t *bias = q && n->n_in > 8 && n->in[8] >= 0 ? IN(8) : NULL;
	void *y = OUT(0);
	int64_t i, j, k;

	for (bi = 0; bi < batches; bi++) {
		batch_offsets(ta, tb, ty, bi, &oa, &ob);
		for (i = 0; i < M; i++)
			for (j = 0; j < N; j++) {
				size_t yi = bi * (size_t)(M * N) + (size_t)(i * N + j);

				if (!q) {
					const float *fa = (const float *)a + oa, *fb = (const float *)b + ob;
					float acc = 0.0f;

					for (k = 0; k < K; k++)
						acc += fa[i * K + k] * fb[k * N + j];
					((float *)y)[yi] = acc;
				} else {
					int32_t za = nn_qzero(g, n, 2, 0), zb = nn_qzero(g, n, 5, (size_t)j);
					float mult = nn_qmult(nn_qscale(g, n, 1, 0), nn_qscale(g, n, 4, (size_t)j),
							   nn_qscale(g, n, 6, 0));
					int64_t acc = bias ? bias[j] : 0;

					for (k = 0; k < K; k++)
						acc += (int64_t)(nn_ld_q(a, ta->dtype, oa + (size_t)(i * K + k)) - za) *
						       (nn_ld_q(b, tb->dtype, ob + (size_t)(k * N + j)) - zb);
					nn_st_q(y, ty->dtype, yi, nn_requant(acc, mult, nn_qzero(g, n, 7, 0), ty->dtype));
				}
			}
	}
}

/* --- pooling --------------------------------------------------------------------- */

static void pool(struct qpu_nn_graph *g, struct nn_node *n)
{
	const struct nn_tensor *tx = TIN(0), *ty = TOUT(0);
	const struct nn_win *w = &n->win;
	int64_t H = tx->dims[2], W = tx->dims[3], OH = ty->dims[2], OW = ty->dims[3];
	int64_t planes = tx->dims[0] * tx->dims[1], p, oh, ow, ih, iw;
	const float *x = IN(0);
	float *y = OUT(0);

	for (p = 0; p < planes; p++)
		for (oh = 0; oh < OH; oh++)
			for (ow = 0; ow < OW; ow++) {
				int64_t h0 = oh * w->sh - w->pt, w0 = ow * w->sw - w->pl;
				int64_t h1 = h0 + w->kh, w1 = w0 + w->kw, cnt;
				float acc = n->kind == NN_MAXPOOL ? -INFINITY : 0.0f;

				if (h1 > H + w->pb)
					h1 = H + w->pb;
				if (w1 > W + w->pr)
					w1 = W + w->pr;
				cnt = (h1 - h0) * (w1 - w0);
				if (h0 < 0)
					h0 = 0;
				if (w0 < 0)
					w0 = 0;
				if (h1 > H)
					h1 = H;
				if (w1 > W)
					w1 = W;
				if (!w->count_pad)
					cnt = (h1 - h0) * (w1 - w0);
				for (ih = h0; ih < h1; ih++)
					for (iw = w0; iw < w1; iw++) {
						float v = x[(p * H + ih) * W + iw];

						if (n->kind == NN_MAXPOOL)
							acc = v > acc ? v : acc;
						else
							acc += v;
					}
				if (n->kind == NN_AVGPOOL)
					acc = cnt > 0 ? acc / (float)cnt : 0.0f;
				y[(p * OH + oh) * OW + ow] = acc;
			}
}

static void gavgpool(struct qpu_nn_graph *g, struct nn_node *n)
{
	const struct nn_tensor *tx = TIN(0);
	size_t hw = (size_t)(tx->dims[2] * tx->dims[3]), planes = tx->count / (hw ? hw : 1), p, i;
	const float *x = IN(0);
	float *y = OUT(0);

	for (p = 0; p < planes; p++) {
		float acc = 0.0f;

		for (i = 0; i < hw; i++)
			acc += x[p * hw + i];
		y[p] = acc / (float)hw;
	}
}

/* --- data movement ----------------------------------------------------------------- */

static void concat(struct qpu_nn_graph *g, struct nn_node *n)
{
	const struct nn_tensor *ty = TOUT(0);
	size_t es = nn_dtype_size(ty->dtype), outer = 1, inner = es, off = 0, o;
	uint8_t *y = OUT(0);
	unsigned int i, d;

	for (d = 0; d < ty->rank; d++) {
		if (d < n->axis)
			outer *= (size_t)ty->dims[d];
		else if (d > n->axis)
			inner *= (size_t)ty->dims[d];
	}
	for (i = 0; i < n->n_in; i++) {
		size_t chunk = inner * (size_t)TIN(i)->dims[n->axis];
		const uint8_t *x = IN(i);

		for (o = 0; o < outer; o++)
			memcpy(y + o * inner * (size_t)ty->dims[n->axis] + off, x + o * chunk, chunk);
		off += chunk;
	}
}

static void transpose(struct qpu_nn_graph *g, struct nn_node *n)
{
	const struct nn_tensor *tx = TIN(0), *ty = TOUT(0);
	size_t es = nn_dtype_size(tx->dtype), xs[QPU_NN_MAX_RANK], st[QPU_NN_MAX_RANK], s = 1, i;
	int64_t idx[QPU_NN_MAX_RANK] = { 0 };
	const uint8_t *x = IN(0);
	uint8_t *y = OUT(0);
	size_t src = 0;
	unsigned int d;

	for (d = tx->rank; d-- > 0;) {
		xs[d] = s;
		s *= (size_t)tx->dims[d];
	}
	for (d = 0; d < ty->rank; d++)
		st[d] = xs[n->perm[d]];
	for (i = 0; i < ty->count; i++) {
		memcpy(y + i * es, x + src * es, es);
		for (d = ty->rank; d-- > 0;) {
			src += st[d];
			if (++idx[d] < ty->dims[d])
				break;
			src -= st[d] * (size_t)ty->dims[d];
			idx[d] = 0;
		}
	}
}

static void softmax(struct qpu_nn_graph *g, struct nn_node *n)
{
	const struct nn_tensor *tx = TIN(0);
	size_t outer = 1, len = 1, inner = 1, o, i, k;
	const float *x = IN(0);
	float *y = OUT(0);
	unsigned int d;

	for (d = 0; d < tx->rank; d++) {
		if (d < n->axis)
			outer *= (size_t)tx->dims[d];
		else if (d == n->axis || n->legacy_softmax)
			len *= (size_t)tx->dims[d];
		else
			inner *= (size_t)tx->dims[d];
	}
	for (o = 0; o < outer; o++)
		for (i = 0; i < inner; i++) {
			const float *xp = x + o * len * inner + i;
			float *yp = y + o * len * inner + i, mx = -INFINITY, sum = 0.0f;

			for (k = 0; k < len; k++)
				mx = xp[k * inner] > mx ? xp[k * inner] : mx;
			for (k = 0; k < len; k++) {
				yp[k * inner] = expf(xp[k * inner] - mx);
				sum += yp[k * inner];
			}
			for (k = 0; k < len; k++)
				yp[k * inner] /= sum;
		}
}

/* The input coordinate of output coordinate @o (Resize). */
static double resize_coord(int mode, int64_t o, double scale, int64_t in, int64_t out)
{
	switch (mode) {
	case NN_COORD_ASYMMETRIC:
		return (double)o / scale;
	case NN_COORD_ALIGN_CORNERS:
		return out == 1 ? 0.0 : (double)o * (double)(in - 1) / (double)(out - 1);
	case NN_COORD_PYTORCH_HALF_PIXEL:
		return out > 1 ? ((double)o + 0.5) / scale - 0.5 : 0.0;
	default:
		return ((double)o + 0.5) / scale - 0.5;
	}
}

static int64_t resize_nearest(int mode, double c, int64_t in)
{
	int64_t i;

	switch (mode) {
	case NN_NEAREST_FLOOR:
		i = (int64_t)floor(c);
		break;
	case NN_NEAREST_CEIL:
		i = (int64_t)ceil(c);
		break;
	case NN_NEAREST_ROUND_PREFER_CEIL:
		i = (int64_t)floor(c + 0.5);
		break;
	default:	/* round_prefer_floor */
		i = c == floor(c) + 0.5 ? (int64_t)floor(c) : (int64_t)floor(c + 0.5);
		break;
	}
	return i < 0 ? 0 : (i >= in ? in - 1 : i);
}

static void resize(struct qpu_nn_graph *g, struct nn_node *n)
{
	const struct nn_tensor *tx = TIN(0), *ty = TOUT(0), *ts;
	int64_t H = tx->dims[2], W = tx->dims[3], OH = ty->dims[2], OW = ty->dims[3];
	int64_t planes = tx->dims[0] * tx->dims[1], p, oh, ow;
	double sh = (double)OH / (double)H, sw = (double)OW / (double)W;
	unsigned int si = g->opset < 11 ? 1 : 2;
	const float *x = IN(0);
	float *y = OUT(0);

	if (si < n->n_in && n->in[si] >= 0 && (ts = TIN(si))->count == 4) {
		sh = ((const float *)ts->cdata)[2];
		sw = ((const float *)ts->cdata)[3];
	}
	for (p = 0; p < planes; p++)
		for (oh = 0; oh < OH; oh++) {
			double ch = resize_coord(n->coord_mode, oh, sh, H, OH);

			for (ow = 0; ow < OW; ow++) {
				double cw = resize_coord(n->coord_mode, ow, sw, W, OW);
				const float *xp = x + p * H * W;
				float v;

				if (!n->mode_linear) {
					v = xp[resize_nearest(n->nearest_mode, ch, H) * W +
					       resize_nearest(n->nearest_mode, cw, W)];
				} else {
					double hc = ch < 0 ? 0 : (ch > (double)(H - 1) ? (double)(H - 1) : ch);
					double wc = cw < 0 ? 0 : (cw > (double)(W - 1) ? (double)(W - 1) : cw);
					int64_t h0 = (int64_t)hc, w0 = (int64_t)wc;
					int64_t h1 = h0 + 1 < H ? h0 + 1 : H - 1;
					int64_t w1 = w0 + 1 < W ? w0 + 1 : W - 1;
					double fh = hc - (double)h0, fw = wc - (double)w0;

					v = (float)((1 - fh) * ((1 - fw) * xp[h0 * W + w0] + fw * xp[h0 * W + w1]) +
						    fh * ((1 - fw) * xp[h1 * W + w0] + fw * xp[h1 * W + w1]));
				}
				y[(p * OH + oh) * OW + ow] = v;
			}
		}
}

/* The channel of element @i along axis n->axis (per-axis parameters). */
static size_t axis_index(const struct nn_tensor *t, unsigned int axis, size_t i)
{
	size_t inner = 1;
	unsigned int d;

	for (d = axis + 1; d < t->rank; d++)
		inner *= (size_t)t->dims[d];
	return (i / inner) % (size_t)t->dims[axis];
}

static void quantize(struct qpu_nn_graph *g, struct nn_node *n)
{
	const struct nn_tensor *tx = TIN(0), *ty = TOUT(0);
	int per_axis = TIN(1)->count > 1;
	const void *x = IN(0);
	void *y = OUT(0);
	size_t i, ch;

	for (i = 0; i < tx->count; i++) {
		ch = per_axis ? axis_index(tx, (unsigned int)n->axis, i) : 0;
		if (n->kind == NN_QUANTIZE) {
			float v = tx->dtype == QPU_NN_FLOAT32 ? ((const float *)x)[i] :
				  (float)((const int32_t *)x)[i];

			nn_st_q(y, ty->dtype, i, nn_quantize1(v, nn_qscale(g, n, 1, ch),
							      nn_qzero(g, n, 2, ch), ty->dtype));
		} else {
			int32_t q = nn_ld_q(x, tx->dtype, i);

			((float *)y)[i] = ((float)q - (float)nn_qzero(g, n, 2, ch)) * nn_qscale(g, n, 1, ch);
		}
	}
}

size_t nn_ref_scratch(const struct qpu_nn_graph *g, const struct nn_node *n)
{
	(void)g;
	(void)n;
	return 0;
}

int nn_ref_run(struct qpu_nn_graph *g, struct nn_node *n, void *scratch)
{
	(void)scratch;
	switch (n->kind) {
	case NN_CONV:
	case NN_QLINEARCONV:
		conv(g, n);
		break;
	case NN_GEMM:
		gemm(g, n);
		break;
	case NN_MATMUL:
	case NN_QLINEARMATMUL:
		matmul(g, n);
		break;
	case NN_MAXPOOL:
	case NN_AVGPOOL:
		pool(g, n);
		break;
	case NN_GAVGPOOL:
		gavgpool(g, n);
		break;
	case NN_RELU:
	case NN_CLIP:
	case NN_SIGMOID:
	case NN_LEAKYRELU:
	case NN_HARDSWISH: {
		const float *x = IN(0);
		float *y = OUT(0);
		size_t i, cnt = TOUT(0)->count;

		for (i = 0; i < cnt; i++)
			y[i] = act1(n->act, n->act_a, n->act_b, x[i]);
		break;
	}
	case NN_ADD:
	case NN_MUL:
		binary(g, n);
		break;
	case NN_QLINEARADD:
		qlinearadd(g, n);
		break;
	case NN_CONCAT:
		concat(g, n);
		break;
	case NN_RESHAPE:
	case NN_FLATTEN:
	case NN_IDENTITY:
		if (OUT(0) != nn_ptr(g, n->in[0]))
			memmove(OUT(0), nn_ptr(g, n->in[0]), TOUT(0)->bytes);
		break;
	case NN_TRANSPOSE:
		transpose(g, n);
		break;
	case NN_SOFTMAX:
		softmax(g, n);
		break;
	case NN_RESIZE:
		resize(g, n);
		break;
	case NN_QUANTIZE:
	case NN_DEQUANTIZE:
		quantize(g, n);
		break;
	default:
		nn_err(g, "node '%s': no reference for %s", n->name, n->op);
		return -EINVAL;
	}
	return 0;
}
