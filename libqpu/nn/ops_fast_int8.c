// SPDX-License-Identifier: MIT
/*
 * libqpu/nn: the CPU backend's INT8 fast path: QLinearConv and
 * QLinearMatMul in exact int32 sums with SIMD, bit-exact with the
 * reference (ops_ref.c).
 *
 * Operands less their zero points fit int16 ([-255, 255]), so the
 * products are int16 pairs multiplied and added into int32 lanes
 * (pmaddwd on SSE2 and AVX2, AVX-512BW's vpmaddwd, AVX-512 VNNI's
 * vpdpwssd; shifts and multiplies in GCC's portable vectors elsewhere,
 * NEON on arm64). A convolution is a product of its weights, packed at
 * the first run in panels of 4 rows of K pairs, by its input (im2col
 * unless 1x1) packed per run as K/2 rows of position pairs; a depthwise
 * one runs directly on a zero-padded int32 copy of each plane, its rows
 * split by stride phase so every tap reads contiguous words. The sums
 * are requantized like nn_requant(): the same double operations, in
 * vectors where |acc| < 2^29 (the product of such an integer and a float
 * is exact in double, so no contraction can change it), rounded to
 * nearest even by the conversion as nearbyint() does.
 *
 * QPU_NN_QFAST (internal, for the tests and benchmarks) forces a kernel:
 * c, sse2, avx2, avx512 or avx512vnni on amd64, c or neon on arm64 (one
 * this CPU cannot run, or no such one: the best it runs).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nn_check.h"

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

#pragma GCC diagnostic ignored "-Wpsabi"

/*
 * The largest K whose sums of K products of operands less their zero
 * points (each at most 255 x 255) stay within half the int32 range, the
 * other half for the bias (at most 2^30 here, else the reference runs).
 */
#define QFAST_MAX_K	((size_t)(INT32_MAX / 2) / (255u * 255u))
#define QFAST_MAX_BIAS	(INT32_C(1) << 30)
/* |acc| below this: the double product acc * mult is exact (24 + 29 bits). */
#define QFAST_EXACT_ACC	(INT64_C(1) << 29)
#define QFAST_MAX_NR	32	/* the widest tile's positions */
#define QFAST_MAX_MR	8	/* its rows: weights are packed to a multiple */
#define QFAST_MAX_VL	16	/* int32 lanes of the widest vector */
#define QFAST_MAX_TAPS	64	/* depthwise windows larger: the reference */
/* Depthwise rows this short move as one fixed-size copy (overrunning; see qdw()). */
#define QFAST_SHORT	16

#define QK_STR2(s)	#s
#define QK_STR(s)	QK_STR2(s)

/*
 * A layer's output: its type, zero point, and the range it is clamped to
 * (the type's, or a fused Relu's or Clip's within it: qdq_fuse()).
 */
struct qout {
	enum qpu_nn_dtype d;
	int32_t zp, lo, hi;
};

typedef void (*qrq_fn)(const int32_t *acc, size_t n, int32_t add, float mult,
		       const struct qout *o, uint8_t *y);

struct qkern {
	const char *name;
	unsigned int vl, mr, nr;
	void (*cvt)(const uint8_t *src, uint8_t flip, int32_t z, size_t n, int32_t *dst);
	void (*pack2)(const uint8_t *r0, const uint8_t *r1, uint8_t flip, int32_t z, size_t n,
		      int32_t *dst);
	void (*gemm)(size_t kp, const int32_t *b, size_t ldb, const int32_t *w, size_t wstride,
		     int32_t *c);
	void (*gemv)(size_t kp, const int32_t *b, size_t ldb, const int32_t *a, int32_t *c);
	void (*dei)(const uint8_t *src, uint8_t flip, int32_t z, size_t n, int32_t *ev,
		    int32_t *od);
	void (*dw)(const int32_t *const *src, const int32_t *taps, unsigned int nt, size_t n,
		   int32_t *acc);
	qrq_fn rq;
};

static int32_t clamp_q(int32_t v, const struct qout *o)
{
	return v < o->lo ? o->lo : v > o->hi ? o->hi : v;
}

/* The requantization, element by element: nn_requant() itself, clamped. */
static void rq_scalar(const int32_t *acc, size_t n, int32_t add, float mult,
		      const struct qout *o, uint8_t *y)
{
	size_t i;

	for (i = 0; i < n; i++)
		y[i] = (uint8_t)clamp_q(nn_requant((int64_t)acc[i] + add, mult, o->zp, o->d), o);
}

#if defined(__x86_64__)
/* The last @n < @step sums through @rq's vectors, in buffers of a whole step. */
static void rq_tail(const int32_t *acc, size_t n, int32_t add, float mult,
		    const struct qout *o, uint8_t *y, size_t step, qrq_fn rq)
{
	int32_t a[16] = { 0 };
	uint8_t b[16];

	memcpy(a, acc, n * sizeof(*a));
	rq(a, step, add, mult, o, b);
	memcpy(y, b, n);
}

/*
 * nn_requant() in vectors: (double)acc * mult + zp, clamped (the
 * reference's saturation; no NaN: the caller checks mult is finite),
 * converted to nearest even (cvtpd2dq in the default rounding mode, as
 * nearbyint) and narrowed with saturating packs (values already in range).
 */
static __m128i rq4_sse2(__m128i v, __m128d m, __m128d z, __m128d lo, __m128d hi)
{
	__m128d d0 = _mm_cvtepi32_pd(v), d1 = _mm_cvtepi32_pd(_mm_shuffle_epi32(v, 0xee));

	d0 = _mm_min_pd(_mm_max_pd(_mm_add_pd(_mm_mul_pd(d0, m), z), lo), hi);
	d1 = _mm_min_pd(_mm_max_pd(_mm_add_pd(_mm_mul_pd(d1, m), z), lo), hi);
	return _mm_unpacklo_epi64(_mm_cvtpd_epi32(d0), _mm_cvtpd_epi32(d1));
}

static __m128i narrow8(__m128i a, __m128i b, enum qpu_nn_dtype d)
{
	__m128i w = _mm_packs_epi32(a, b);

	return d == QPU_NN_INT8 ? _mm_packs_epi16(w, w) : _mm_packus_epi16(w, w);
}

static void rq_sse2(const int32_t *acc, size_t n, int32_t add, float mult,
		    const struct qout *o, uint8_t *y)
{
	__m128d m = _mm_set1_pd((double)mult), z = _mm_set1_pd((double)o->zp);
	__m128d lo = _mm_set1_pd((double)o->lo), hi = _mm_set1_pd((double)o->hi);
	__m128i a = _mm_set1_epi32(add);
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		__m128i v0 = _mm_add_epi32(_mm_loadu_si128((const void *)(acc + i)), a);
		__m128i v1 = _mm_add_epi32(_mm_loadu_si128((const void *)(acc + i + 4)), a);

		_mm_storel_epi64((void *)(y + i), narrow8(rq4_sse2(v0, m, z, lo, hi),
							  rq4_sse2(v1, m, z, lo, hi), o->d));
	}
	if (i < n)
		rq_tail(acc + i, n - i, add, mult, o, y + i, 8, rq_sse2);
}

__attribute__((target("avx2")))
static __m128i rq4_avx2(__m128i v, __m256d m, __m256d z, __m256d lo, __m256d hi)
{
	__m256d r = _mm256_add_pd(_mm256_mul_pd(_mm256_cvtepi32_pd(v), m), z);

	return _mm256_cvtpd_epi32(_mm256_min_pd(_mm256_max_pd(r, lo), hi));
}

__attribute__((target("avx2")))
static void rq_avx2(const int32_t *acc, size_t n, int32_t add, float mult,
		    const struct qout *o, uint8_t *y)
{
	__m256d m = _mm256_set1_pd((double)mult), z = _mm256_set1_pd((double)o->zp);
	__m256d lo = _mm256_set1_pd((double)o->lo), hi = _mm256_set1_pd((double)o->hi);
	__m128i a = _mm_set1_epi32(add);
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		__m128i v0 = _mm_add_epi32(_mm_loadu_si128((const void *)(acc + i)), a);
		__m128i v1 = _mm_add_epi32(_mm_loadu_si128((const void *)(acc + i + 4)), a);

		_mm_storel_epi64((void *)(y + i), narrow8(rq4_avx2(v0, m, z, lo, hi),
							  rq4_avx2(v1, m, z, lo, hi), o->d));
	}
	if (i < n)
		rq_tail(acc + i, n - i, add, mult, o, y + i, 8, rq_avx2);
}

__attribute__((target("avx512f")))
static __m256i rq8_avx512(__m256i v, __m512d m, __m512d z, __m512d lo, __m512d hi)
{
	__m512d r = _mm512_add_pd(_mm512_mul_pd(_mm512_cvtepi32_pd(v), m), z);

	return _mm512_cvtpd_epi32(_mm512_min_pd(_mm512_max_pd(r, lo), hi));
}

__attribute__((target("avx512f")))
static void rq_avx512(const int32_t *acc, size_t n, int32_t add, float mult,
		      const struct qout *o, uint8_t *y)
{
	__m512d m = _mm512_set1_pd((double)mult), z = _mm512_set1_pd((double)o->zp);
	__m512d lo = _mm512_set1_pd((double)o->lo), hi = _mm512_set1_pd((double)o->hi);
	__m256i a = _mm256_set1_epi32(add);
	size_t i = 0;

	for (; i + 16 <= n; i += 16) {
		__m256i v0 = _mm256_add_epi32(_mm256_loadu_si256((const void *)(acc + i)), a);
		__m256i v1 = _mm256_add_epi32(_mm256_loadu_si256((const void *)(acc + i + 8)), a);
		__m512i r = _mm512_inserti64x4(_mm512_castsi256_si512(rq8_avx512(v0, m, z, lo, hi)),
					       rq8_avx512(v1, m, z, lo, hi), 1);

		/* in range already: truncating to bytes is the value, either sign */
		_mm_storeu_si128((void *)(y + i), _mm512_cvtepi32_epi8(r));
	}
	if (i < n)
		rq_tail(acc + i, n - i, add, mult, o, y + i, 16, rq_avx512);
}

#define QK_SUFFIX	sse2
#define QK_ATTR
#define QK_VL		4
#define QK_NV		2
#define QK_MP		1
#define QK_MADD(a, b, w) ((a) + (vi_sse2)_mm_madd_epi16((__m128i)(b), (__m128i)(w)))
#define QK_RQ		rq_sse2
#include "qfast_kern.h"

#define QK_SUFFIX	avx2
#define QK_ATTR		__attribute__((target("avx2")))
#define QK_VL		8
#define QK_NV		3
#define QK_MP		1
#define QK_MADD(a, b, w) ((a) + (vi_avx2)_mm256_madd_epi16((__m256i)(b), (__m256i)(w)))
#define QK_RQ		rq_avx2
#include "qfast_kern.h"

#define QK_SUFFIX	avx512
#define QK_ATTR		__attribute__((target("avx512f,avx512bw")))
#define QK_VL		16
#define QK_NV		2
#define QK_MP		2
#define QK_MADD(a, b, w) ((a) + (vi_avx512)_mm512_madd_epi16((__m512i)(b), (__m512i)(w)))
#define QK_RQ		rq_avx512
#include "qfast_kern.h"

#define QK_SUFFIX	avx512vnni
#define QK_ATTR		__attribute__((target("avx512f,avx512bw,avx512vnni")))
#define QK_VL		16
#define QK_NV		2
#define QK_MP		2
#define QK_MADD(a, b, w) ((vi_avx512vnni)_mm512_dpwssd_epi32((__m512i)(a), (__m512i)(b), \
							     (__m512i)(w)))
#define QK_RQ		rq_avx512
#include "qfast_kern.h"
#endif /* __x86_64__ */

#if defined(__aarch64__)
/*
 * NEON: the pairs' products widened (smull, smull2), each pair's two
 * added (addp): pmaddwd in three instructions.
 */
#define QK_SUFFIX	neon
#define QK_ATTR
#define QK_VL		4
#define QK_NV		2
#define QK_MP		2
#define QK_MADD(a, b, w) qk_madd_neon(a, b, w)
#define QK_RQ		rq_scalar
typedef int32_t vi_neon_ __attribute__((vector_size(16)));

static inline vi_neon_ qk_madd_neon(vi_neon_ a, vi_neon_ b, vi_neon_ w)
{
	int16x8_t b16 = vreinterpretq_s16_s32((int32x4_t)b), w16 = vreinterpretq_s16_s32((int32x4_t)w);

	return (vi_neon_)vaddq_s32((int32x4_t)a,
				   vpaddq_s32(vmull_s16(vget_low_s16(b16), vget_low_s16(w16)),
					      vmull_high_s16(b16, w16)));
}
#include "qfast_kern.h"
#endif /* __aarch64__ */

/* Portable vectors: each int32 lane's two int16 halves, sign-extended by shifts. */
#define QK_SUFFIX	c
#define QK_ATTR
#define QK_VL		4
#define QK_NV		2
#define QK_MP		1
#define QK_MADD(a, b, w) ((a) + (((vi_c)((vu_c)(b) << 16) >> 16) * ((vi_c)((vu_c)(w) << 16) >> 16)) \
			  + ((b) >> 16) * ((w) >> 16))
#define QK_RQ		rq_scalar
#include "qfast_kern.h"

/* The kernel QPU_NN_QFAST names if this CPU runs it, else the best it runs. */
static const struct qkern *qkern(void)
{
	const char *want = getenv("QPU_NN_QFAST");
	struct pick {
		const struct qkern *k;
		int ok;
	};
	const struct pick all[] = {	/* best first */
#if defined(__x86_64__)
		{ &kern_avx512vnni, __builtin_cpu_supports("avx512vnni") &&
				    __builtin_cpu_supports("avx512bw") },
		{ &kern_avx512, __builtin_cpu_supports("avx512bw") },
		{ &kern_avx2, __builtin_cpu_supports("avx2") },
		{ &kern_sse2, 1 },
#elif defined(__aarch64__)
		{ &kern_neon, 1 },
#endif
		{ &kern_c, 1 },
	};
	const struct pick *p, *end = all + sizeof(all) / sizeof(all[0]);

	for (p = all; want && p < end; p++)
		if (p->ok && !strcmp(want, p->k->name))
			return p->k;
	for (p = all; p < end; p++)
		if (p->ok)
			return p->k;
	return &kern_c;
}

/* What the first run packs, kept until the graph is freed (nn_fast_free()). */
struct qfast {
	size_t kp;		/* pairs of K */
	size_t mpad;		/* rows a group, padded to QFAST_MAX_MR (a product) */
	int32_t *w;		/* panels (products) or taps less wz (depthwise) */
	int32_t *bias;		/* per output channel (or column), 0 without */
	float *mult;		/* nn_qmult() per channel (or column) */
	int vec_rq;		/* every |acc| < QFAST_EXACT_ACC: vector requantization */
};

void nn_fast_free(struct nn_node *n)
{
	struct qfast *q = n->qfast;

	if (!q)
		return;
	free(q->w);
	free(q->bias);
	free(q->mult);
	free(q);
	n->qfast = NULL;
}

static int byte_type(enum qpu_nn_dtype d)
{
	return d == QPU_NN_UINT8 || d == QPU_NN_INT8;
}

static size_t round_up(size_t v, size_t to)
{
	return (v + to - 1) / to * to;
}

static int is_depthwise(const struct qpu_nn_graph *g, const struct nn_node *n)
{
	const struct nn_tensor *w = &g->t[n->in[3]];

	return w->dims[1] == 1 && w->dims[0] == n->win.group;
}

/* An int16 pair in an int32 word: @lo in the low half. */
static int32_t pair16(int32_t lo, int32_t hi)
{
	return (int32_t)(((uint32_t)lo & 0xffffu) | ((uint32_t)hi << 16));
}

/*
 * Pack the constants: a convolution's weights less their zero points
 * (panels: for each group, for each 4 rows, K/2 pairs of each row; or a
 * depthwise one's taps), a MatMul's B (K/2 rows of N column pairs, less
 * the columns' zero points), per channel the bias and multiplier.
 */
static struct qfast *qprepare(struct qpu_nn_graph *g, struct nn_node *n)
{
	const struct nn_tensor *wt = &g->t[n->in[3]];
	const int32_t *bias = n->n_in > 8 && n->in[8] >= 0 ? g->t[n->in[8]].cdata : NULL;
	int conv = n->kind == NN_QLINEARCONV;
	size_t M = conv ? (size_t)wt->dims[0] : (size_t)wt->dims[1];
	size_t K = conv ? wt->count / M : (size_t)wt->dims[0], groups, mg, m, k;
	int64_t maxb = 0;
	struct qfast *q;

	if (n->qfast)
		return n->qfast;
	q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	n->qfast = q;
	q->kp = (K + 1) / 2;
	groups = conv ? (size_t)n->win.group : 1;
	mg = M / groups;
	q->mpad = round_up(mg, QFAST_MAX_MR);
	q->bias = calloc(M, sizeof(*q->bias));
	q->mult = calloc(M, sizeof(*q->mult));
	if (conv && is_depthwise(g, n))
		q->w = calloc(M * K, sizeof(*q->w));
	else if (conv)
		q->w = calloc(groups * q->mpad * q->kp, sizeof(*q->w));
	else
		q->w = calloc(q->kp * (M + QFAST_MAX_NR), sizeof(*q->w));
	if (!q->bias || !q->mult || !q->w) {
		nn_fast_free(n);
		return NULL;
	}
	for (m = 0; m < M; m++) {
		int32_t wz = nn_qzero(g, n, 5, m);
		size_t gm = m % mg, panel = (m / mg) * q->mpad * q->kp + gm / 4 * q->kp * 4;

		q->bias[m] = bias ? bias[m] : 0;
		if (llabs((long long)q->bias[m]) > maxb)
			maxb = llabs((long long)q->bias[m]);
		q->mult[m] = nn_qmult(nn_qscale(g, n, 1, 0), nn_qscale(g, n, 4, m),
				      nn_qscale(g, n, 6, 0));
		for (k = 0; k < K; k++) {
			int32_t v = nn_ld_q(wt->cdata, wt->dtype, conv ? m * K + k : k * M + m) - wz;

			if (conv && is_depthwise(g, n))
				q->w[m * K + k] = v;
			else if (conv)	/* pair k / 2, half k % 2 */
				q->w[panel + k / 2 * 4 + gm % 4] |= pair16(k % 2 ? 0 : v, k % 2 ? v : 0);
			else
				q->w[k / 2 * (M + QFAST_MAX_NR) + m] |=
					pair16(k % 2 ? 0 : v, k % 2 ? v : 0);
		}
	}
	q->vec_rq = (int64_t)K * 255 * 255 + maxb < QFAST_EXACT_ACC;
	return q;
}

/*
 * The output's range: the type's, narrowed to a fused clamp's (n->qclamp,
 * which run_nodes() then skips) where the two meet (clamping to both,
 * one after the other, is then clamping to where they meet).
 */
static int clamp_folds(const struct qpu_nn_graph *g, const struct nn_node *n)
{
	int s8 = g->t[n->out[0]].dtype == QPU_NN_INT8;

	return n->qclamp && n->qlo <= n->qhi && n->qlo <= (s8 ? 127 : 255) &&
	       n->qhi >= (s8 ? -128 : 0);
}

static struct qout qout_of(const struct qpu_nn_graph *g, const struct nn_node *n)
{
	struct qout o = { .d = g->t[n->out[0]].dtype, .zp = nn_qzero(g, n, 7, 0) };

	o.lo = o.d == QPU_NN_INT8 ? -128 : 0;
	o.hi = o.d == QPU_NN_INT8 ? 127 : 255;
	if (clamp_folds(g, n)) {
		o.lo = n->qlo > o.lo ? n->qlo : o.lo;
		o.hi = n->qhi < o.hi ? n->qhi : o.hi;
	}
	return o;
}

/* The row's requantization: in vectors when exact, else nn_requant()'s own. */
static qrq_fn requant_fn(const struct qkern *kn, const struct qfast *q, float mult)
{
	return q->vec_rq && isfinite(mult) ? kn->rq : rq_scalar;
}

static int qbias_small(const struct qpu_nn_graph *g, const struct nn_node *n, size_t count)
{
	const int32_t *b = n->n_in > 8 && n->in[8] >= 0 ? g->t[n->in[8]].cdata : NULL;
	size_t i;

	for (i = 0; b && i < count; i++)
		if (b[i] > QFAST_MAX_BIAS || b[i] < -QFAST_MAX_BIAS)
			return 0;
	return 1;
}

/* What the path takes: bytes in and out, constant weights, bounded sums. */
static int qfast_able(const struct qpu_nn_graph *g, const struct nn_node *n)
{
	const struct nn_tensor *w = &g->t[n->in[3]];
	size_t K, cols;

	if (!byte_type(g->t[n->in[0]].dtype) || !byte_type(w->dtype) ||
	    !byte_type(g->t[n->out[0]].dtype) || !w->is_const)
		return 0;
	if (n->kind == NN_QLINEARCONV) {
		if (is_depthwise(g, n) && n->win.kh * n->win.kw > QFAST_MAX_TAPS)
			return 0;
		cols = (size_t)w->dims[0];
		K = w->count / cols;
	} else {
		if (w->rank != 2)
			return 0;
		K = (size_t)w->dims[0];
		cols = (size_t)w->dims[1];
	}
	return K <= QFAST_MAX_K && qbias_small(g, n, cols);
}

/*
 * A depthwise layer's padded input, split by stride phase: @sh x @sw
 * planes of @hq rows of @wq words, input row r and column c (padded) at
 * plane (r % sh, c % sw), row r / sh, column c / sw; then the outputs as
 * a flat run of OH rows of @wq, the columns past OW unused, so that each
 * tap reads one contiguous run. Returns the words of scratch.
 */
static size_t dw_geometry(const struct qpu_nn_graph *g, const struct nn_node *n, size_t *hq,
			  size_t *wq)
{
	const struct nn_win *win = &n->win;
	const struct nn_tensor *y = &g->t[n->out[0]];
	size_t OH = (size_t)y->dims[2], OW = (size_t)y->dims[3];

	*hq = OH + (size_t)(win->kh - 1) / (size_t)win->sh + 1;	/* a row for the run's end */
	*wq = OW + (size_t)(win->kw - 1) / (size_t)win->sw;
	/* the planes, a margin, the sums, the input plane as words, the outputs as bytes */
	return (size_t)(win->sh * win->sw) * *hq * *wq + QFAST_MAX_VL +
	       round_up(OH * *wq, QFAST_MAX_VL) +
	       (size_t)(g->t[n->in[0]].dims[2] * g->t[n->in[0]].dims[3]) + QFAST_SHORT +
	       round_up(OH * *wq, QFAST_MAX_VL) / 4 + QFAST_SHORT / 4;
}

size_t nn_qfast_scratch(const struct qpu_nn_graph *g, const struct nn_node *n)
{
	const struct nn_tensor *w = &g->t[n->in[3]];
	size_t hq, wq;

	if (!qfast_able(g, n))
		return 0;
	if (n->kind == NN_QLINEARCONV && is_depthwise(g, n))
		return dw_geometry(g, n, &hq, &wq) * sizeof(int32_t);
	if (n->kind == NN_QLINEARCONV)	/* a strip of positions packed */
		return (w->count / (size_t)w->dims[0] + 1) / 2 * QFAST_MAX_NR * sizeof(int32_t);
	return (size_t)(w->dims[0] + 1) / 2 * sizeof(int32_t);	/* a row of A's pairs */
}

/*
 * One image's depthwise convolution, plane by plane: the plane's padded
 * phases (dw_geometry(); the pads zero, written once: every plane fills
 * the same words), its sums and their requantization as one flat run
 * each (calls per row cost more than the rows on small planes).
 */
static void qdw(struct qpu_nn_graph *g, struct nn_node *n, const struct qkern *kn,
		const struct qfast *q, const uint8_t *x, uint8_t *y, int32_t *scratch)
{
	const struct nn_win *win = &n->win;
	const struct nn_tensor *tx = &g->t[n->in[0]], *ty = &g->t[n->out[0]];
	size_t C = (size_t)tx->dims[1], H = (size_t)tx->dims[2], W = (size_t)tx->dims[3];
	size_t OH = (size_t)ty->dims[2], OW = (size_t)ty->dims[3];
	size_t sh = (size_t)win->sh, sw = (size_t)win->sw, pl = (size_t)win->pl;
	size_t kh = (size_t)win->kh, kw = (size_t)win->kw, nt = kh * kw, hq, wq, plane, m, o, r, c;
	uint8_t flip = tx->dtype == QPU_NN_INT8 ? 0x80 : 0;
	int32_t xz = nn_qzero(g, n, 2, 0) + (flip ? 128 : 0);
	struct qout out = qout_of(g, n);
	int32_t *buf = scratch, *acc, *xw;
	const int32_t *src[QFAST_MAX_TAPS];
	size_t w_in, h_in;
	uint8_t *yb;

	dw_geometry(g, n, &hq, &wq);
	plane = hq * wq;
	acc = buf + sh * sw * plane + QFAST_MAX_VL;
	xw = acc + round_up(OH * wq, QFAST_MAX_VL);
	yb = (uint8_t *)(xw + H * W);
	/* the input's columns and rows that land inside the planes */
	w_in = wq * sw > pl ? wq * sw - pl : 0;
	w_in = W < w_in ? W : w_in;
	h_in = hq * sh > (size_t)win->pt ? hq * sh - (size_t)win->pt : 0;
	h_in = H < h_in ? H : h_in;
	memset(buf, 0, (sh * sw * plane + QFAST_MAX_VL) * sizeof(*buf));
	for (r = 0; r < kh; r++)
		for (c = 0; c < kw; c++)
			src[r * kw + c] = buf + (r % sh * sw + c % sw) * plane + r / sh * wq + c / sw;
	for (m = 0; m < C; m++) {
		const uint8_t *xm = x + m * H * W;

		if (sw == 1)
			kn->cvt(xm, flip, xz, h_in * W, xw);
		else if (sw == 2 && W % 2 == 0)	/* each row's columns split in one run */
			kn->dei(xm, flip, xz, h_in * W, xw, xw + h_in * W / 2);
		for (r = 0; r < h_in && w_in; r++) {
			size_t pr = r + (size_t)win->pt;	/* the padded row */
			int32_t *dst = buf + pr % sh * sw * plane + pr / sh * wq;

			if (sw == 1 && sh == 1 && w_in <= QFAST_SHORT) {
				/*
				 * A short row in one move, then zeros over what it
				 * overran and a short row more (its right pad, the
				 * next rows', written after: one plane, rows in
				 * order), so the pads stay zero; dw_geometry()'s
				 * margin holds the last row's.
				 */
				memcpy(dst + pl, xw + r * W, QFAST_SHORT * sizeof(*dst));
				memset(dst + pl + w_in, 0, QFAST_SHORT * sizeof(*dst));
			} else if (sw == 1) {
				memcpy(dst + pl, xw + r * W, w_in * sizeof(*dst));
			} else if (sw == 2 && W % 2 == 0) {	/* input column i at padded pl + i */
				memcpy(dst + pl % 2 * plane + pl / 2, xw + r * W / 2,
				       (w_in + 1) / 2 * sizeof(*dst));
				memcpy(dst + (pl + 1) % 2 * plane + (pl + 1) / 2, xw + (h_in + r) * W / 2,
				       w_in / 2 * sizeof(*dst));
			} else if (sw == 2) {
				kn->dei(xm + r * W, flip, xz, w_in, dst + pl % 2 * plane + pl / 2,
					dst + (pl + 1) % 2 * plane + (pl + 1) / 2);
			} else {
				for (c = 0; c < w_in; c++)
					dst[(pl + c) % sw * plane + (pl + c) / sw] =
						(int32_t)(uint8_t)(xm[r * W + c] ^ flip) - xz;
			}
		}
		kn->dw(src, q->w + m * nt, (unsigned int)nt, OH * wq, acc);
		requant_fn(kn, q, q->mult[m])(acc, OH * wq, q->bias[m], q->mult[m], &out, yb);
		/* short rows in one move each, overrunning into rows written after */
		for (o = 0; o < OH; o++)
			if (OW <= QFAST_SHORT && (m + 1 < C || o + 1 < OH))
				memcpy(y + (m * OH + o) * OW, yb + o * wq, QFAST_SHORT);
			else
				memcpy(y + (m * OH + o) * OW, yb + o * wq, OW);
	}
}

/*
 * Row @k of a group's im2col at positions p0 .. p0 + @np - 1, as bytes:
 * pads hold x's zero point, which packing takes out like any value. A run
 * of positions on one output row reads its input row at stride sw
 * between the pads either side.
 */
static void im2col_u8(const struct nn_win *win, const uint8_t *x, size_t H, size_t W, size_t OW,
		      size_t k, size_t p0, size_t np, uint8_t pad, uint8_t *dst)
{
	size_t kw = k % (size_t)win->kw, kh = k / (size_t)win->kw % (size_t)win->kh;
	size_t c = k / (size_t)(win->kw * win->kh), sw = (size_t)win->sw, p = p0, end = p0 + np;
	/* output columns j whose input column j * sw + kw - pl is inside: lo .. hi - 1 */
	int64_t off = win->pl - (int64_t)kw;
	size_t lo = off > 0 ? (size_t)((off + (int64_t)sw - 1) / (int64_t)sw) : 0;
	size_t hi = (int64_t)W + off > 0 ? (size_t)(((int64_t)W + off - 1) / (int64_t)sw + 1) : 0;

	hi = hi < OW ? hi : OW;
	lo = lo < hi ? lo : hi;
	while (p < end) {
		size_t o = p / OW, j = p % OW, stop = end - p < OW - j ? end : p + (OW - j);
		int64_t ih = (int64_t)(o * (size_t)win->sh + kh) - win->pt;
		const uint8_t *row;

		if (ih < 0 || ih >= (int64_t)H) {
			memset(dst, pad, stop - p);
			dst += stop - p;
			p = stop;
			continue;
		}
		row = x + (c * H + (size_t)ih) * W;	/* only inside: no pointer outside x */
		for (; p < stop && j < lo; p++, j++)
			*dst++ = pad;
		for (; p < stop && j < hi; p++, j++)	/* j >= lo: j * sw >= off */
			*dst++ = row[(size_t)((int64_t)(j * sw) - off)];
		for (; p < stop; p++, j++)
			*dst++ = pad;
	}
}

/*
 * One image's convolution, per group, a strip of NR positions at a time:
 * the strip's K/2 rows of input pairs packed once, then every panel of
 * weights against it.
 */
static void qconv_gemm(struct qpu_nn_graph *g, struct nn_node *n, const struct qkern *kn,
		       const struct qfast *q, const uint8_t *x, uint8_t *y, int32_t *scratch)
{
	const struct nn_win *win = &n->win;
	const struct nn_tensor *tx = &g->t[n->in[0]], *ty = &g->t[n->out[0]], *wt = &g->t[n->in[3]];
	size_t H = (size_t)tx->dims[2], W = (size_t)tx->dims[3], M = (size_t)ty->dims[1];
	size_t OW = (size_t)ty->dims[3], P = (size_t)ty->dims[2] * OW, nr = kn->nr;
	size_t cg = (size_t)wt->dims[1], mg = M / (size_t)win->group, K = wt->count / M;
	size_t gi, k, p0, np, m0, r;
	uint8_t flip = tx->dtype == QPU_NN_INT8 ? 0x80 : 0;
	int32_t xz = nn_qzero(g, n, 2, 0);
	struct qout out = qout_of(g, n);
	int32_t *bp = scratch, tile[QFAST_MAX_MR * QFAST_MAX_NR];
	uint8_t col[2 * QFAST_MAX_NR];
	int direct = win->kh == 1 && win->kw == 1 && win->sh == 1 && win->sw == 1 && !win->pt &&
		     !win->pl && !win->pb && !win->pr;

	for (gi = 0; gi < (size_t)win->group; gi++) {
		const uint8_t *xg = x + gi * cg * H * W;
		const int32_t *wg = q->w + gi * q->mpad * q->kp;

		for (p0 = 0; p0 < P; p0 += nr) {
			np = P - p0 < nr ? P - p0 : nr;
			for (k = 0; k < K; k += 2) {
				const uint8_t *r0 = xg + k * P + p0, *r1 = k + 1 < K ? r0 + P : NULL;
				int32_t *d = bp + k / 2 * nr;

				if (!direct) {
					im2col_u8(win, xg, H, W, OW, k, p0, np, (uint8_t)xz, col);
					if (k + 1 < K)
						im2col_u8(win, xg, H, W, OW, k + 1, p0, np, (uint8_t)xz,
							  col + nr);
					r0 = col;
					r1 = k + 1 < K ? col + nr : NULL;
				}
				kn->pack2(r0, r1, flip, xz + (flip ? 128 : 0), np, d);
				memset(d + np, 0, (nr - np) * sizeof(*d));
			}
			for (m0 = 0; m0 < mg; m0 += kn->mr) {
				kn->gemm(q->kp, bp, nr, wg + m0 * q->kp, 4 * q->kp, tile);
				for (r = 0; r < kn->mr && m0 + r < mg; r++) {
					size_t m = gi * mg + m0 + r;

					requant_fn(kn, q, q->mult[m])(tile + r * nr, np, q->bias[m],
								      q->mult[m], &out, y + m * P + p0);
				}
			}
		}
	}
}

/*
 * QLinearMatMul with a constant 2-D B (packed at the first run): each of
 * A's rows (less a's zero point) as K/2 pairs against B's columns, a strip
 * of NR at a time, requantized per column. Row by row: MobileNet's
 * classifier has one.
 */
static void qmatmul(struct qpu_nn_graph *g, struct nn_node *n, const struct qkern *kn,
		    const struct qfast *q, int32_t *scratch)
{
	const struct nn_tensor *a = &g->t[n->in[0]], *bt = &g->t[n->in[3]];
	size_t K = (size_t)bt->dims[0], N = (size_t)bt->dims[1], rows = a->count / K, i, k, j0, j;
	int32_t za = nn_qzero(g, n, 2, 0);
	struct qout out = qout_of(g, n);
	int32_t *ap = scratch, tile[QFAST_MAX_NR];
	const void *av = nn_ptr(g, n->in[0]);
	uint8_t *y = nn_ptr(g, n->out[0]);

	for (i = 0; i < rows; i++) {
		memset(ap, 0, q->kp * sizeof(*ap));
		for (k = 0; k < K; k++) {
			int32_t v = nn_ld_q(av, a->dtype, i * K + k) - za;

			ap[k / 2] |= pair16(k % 2 ? 0 : v, k % 2 ? v : 0);
		}
		for (j0 = 0; j0 < N; j0 += kn->nr) {
			kn->gemv(q->kp, q->w + j0, N + QFAST_MAX_NR, ap, tile);
			for (j = j0; j < N && j < j0 + kn->nr; j++)
				y[i * N + j] = (uint8_t)clamp_q(nn_requant((int64_t)tile[j - j0] +
									   q->bias[j], q->mult[j],
									   out.zp, out.d), &out);
		}
	}
}

int nn_qfast_run(struct qpu_nn_graph *g, struct nn_node *n, void *scratch)
{
	const struct nn_tensor *x = &g->t[n->in[0]], *y = &g->t[n->out[0]];
	const struct qkern *kn = qkern();
	const struct qfast *q;
	size_t b, xs, ys;

	if (!qfast_able(g, n))
		return 0;
	q = qprepare(g, n);
	if (!q)
		return 0;	/* no memory for the panels: the reference */
	if (n->kind == NN_QLINEARMATMUL) {
		qmatmul(g, n, kn, q, scratch);
		return clamp_folds(g, n) ? 2 : 1;
	}
	if (!x->dims[0])	/* no images: nothing to compute */
		return clamp_folds(g, n) ? 2 : 1;
	xs = x->count / (size_t)x->dims[0];
	ys = y->count / (size_t)y->dims[0];
	for (b = 0; b < (size_t)x->dims[0]; b++) {
		const uint8_t *xb = (const uint8_t *)nn_ptr(g, n->in[0]) + b * xs;
		uint8_t *yb = (uint8_t *)nn_ptr(g, n->out[0]) + b * ys;

		if (is_depthwise(g, n))
			qdw(g, n, kn, q, xb, yb, scratch);
		else
			qconv_gemm(g, n, kn, q, xb, yb, scratch);
	}
	return clamp_folds(g, n) ? 2 : 1;
}
