/* SPDX-License-Identifier: MIT */
/*
 * libqpu/nn: the INT8 fast path's kernels (ops_fast_int8.c), written once
 * and included once per instruction set with:
 *
 *   QK_SUFFIX  the name suffix (sse2, avx2, ...);
 *   QK_ATTR    the function attributes (a GCC target, or nothing);
 *   QK_VL      int32 lanes a vector;
 *   QK_NV      vectors of positions a tile (its NR = QK_NV * QK_VL);
 *   QK_MP      4-row weight panels a tile (its MR = 4 * QK_MP);
 *   QK_MADD(acc, b, w)  acc plus, per int32 lane, the sum of the products
 *              of b's and w's two int16 halves (pmaddwd, vpdpwssd);
 *   QK_RQ      its requantization of a row (struct qkern's rq).
 *
 * The sums are exact: operands less their zero points are within
 * [-255, 255], a pair's sum within 2 * 255 * 255, and the caller bounds K
 * so that no sum leaves the int32 range (QFAST_MAX_K).
 */

#define QK_CAT2(a, b)	a##_##b
#define QK_CAT(a, b)	QK_CAT2(a, b)
#define QK(name)	QK_CAT(name, QK_SUFFIX)

typedef int32_t QK(vi) __attribute__((vector_size(QK_VL * 4)));
typedef uint32_t QK(vu) __attribute__((vector_size(QK_VL * 4)));
typedef uint8_t QK(vb) __attribute__((vector_size(QK_VL)));

static inline QK_ATTR QK(vi) QK(ld)(const void *p)
{
	QK(vi) v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline QK_ATTR void QK(st)(void *p, QK(vi) v)
{
	memcpy(p, &v, sizeof(v));
}

/* @n bytes (xor @flip, less @z) as int32 into @dst. */
static QK_ATTR void QK(cvt)(const uint8_t *src, uint8_t flip, int32_t z, size_t n, int32_t *dst)
{
	QK(vb) f = { 0 }, b;
	size_t i = 0;

	f += flip;
	for (; i + QK_VL <= n; i += QK_VL) {
		memcpy(&b, src + i, sizeof(b));
		QK(st)(dst + i, __builtin_convertvector(b ^ f, QK(vi)) - z);
	}
	for (; i < n; i++)
		dst[i] = (int32_t)(uint8_t)(src[i] ^ flip) - z;
}

/*
 * Two rows of @n bytes (xor @flip, less @z) as int16 pairs: dst[p] holds
 * @r0's in its low half, @r1's (or 0 when @r1 is NULL) in its high half.
 */
static QK_ATTR void QK(pack2)(const uint8_t *r0, const uint8_t *r1, uint8_t flip, int32_t z,
			      size_t n, int32_t *dst)
{
	QK(vb) f = { 0 }, b0, b1;
	QK(vu) lo, hi;
	size_t i = 0;

	f += flip;
	for (; i + QK_VL <= n; i += QK_VL) {
		memcpy(&b0, r0 + i, sizeof(b0));
		lo = (QK(vu))(__builtin_convertvector(b0 ^ f, QK(vi)) - z) & 0xffffu;
		hi = lo ^ lo;
		if (r1) {
			memcpy(&b1, r1 + i, sizeof(b1));
			hi = (QK(vu))(__builtin_convertvector(b1 ^ f, QK(vi)) - z) << 16;
		}
		QK(st)(dst + i, (QK(vi))(lo | hi));
	}
	for (; i < n; i++) {
		uint32_t l = (uint32_t)((int32_t)(uint8_t)(r0[i] ^ flip) - z) & 0xffffu;
		uint32_t h = r1 ? (uint32_t)((int32_t)(uint8_t)(r1[i] ^ flip) - z) << 16 : 0;

		dst[i] = (int32_t)(l | h);
	}
}

/*
 * One tile: c[r * NR + j] = sum over @kp pairs of b[k * ldb + j] against
 * the weight pair w[k * 4 + r] (r < 4; the next panel @wstride further for
 * r >= 4), r < MR, j < NR.
 */
static QK_ATTR void QK(gemm)(size_t kp, const int32_t *b, size_t ldb, const int32_t *w,
			     size_t wstride, int32_t *c)
{
	QK(vi) acc[4 * QK_MP][QK_NV], bv[QK_NV], wv;
	size_t k;
	int r, v;

#pragma GCC unroll 16
	for (r = 0; r < 4 * QK_MP; r++)
#pragma GCC unroll 4
		for (v = 0; v < QK_NV; v++)
			acc[r][v] = acc[r][v] ^ acc[r][v];
	for (k = 0; k < kp; k++) {
#pragma GCC unroll 4
		for (v = 0; v < QK_NV; v++)
			bv[v] = QK(ld)(b + k * ldb + v * QK_VL);
#pragma GCC unroll 16
		for (r = 0; r < 4 * QK_MP; r++) {
			wv = bv[0] ^ bv[0];
			wv += w[(size_t)(r / 4) * wstride + k * 4 + (size_t)(r % 4)];
#pragma GCC unroll 4
			for (v = 0; v < QK_NV; v++)
				acc[r][v] = QK_MADD(acc[r][v], bv[v], wv);
		}
	}
#pragma GCC unroll 16
	for (r = 0; r < 4 * QK_MP; r++)
#pragma GCC unroll 4
		for (v = 0; v < QK_NV; v++)
			QK(st)(c + (size_t)r * QK_NV * QK_VL + (size_t)v * QK_VL, acc[r][v]);
}

/* One row's NR sums: c[j] = sum over @kp pairs of b[k * ldb + j] against a[k]. */
static QK_ATTR void QK(gemv)(size_t kp, const int32_t *b, size_t ldb, const int32_t *a,
			     int32_t *c)
{
	QK(vi) acc[QK_NV], wv;
	size_t k;
	int v;

#pragma GCC unroll 4
	for (v = 0; v < QK_NV; v++)
		acc[v] = acc[v] ^ acc[v];
	for (k = 0; k < kp; k++) {
		wv = acc[0] ^ acc[0];
		wv += a[k];
#pragma GCC unroll 4
		for (v = 0; v < QK_NV; v++)
			acc[v] = QK_MADD(acc[v], QK(ld)(b + k * ldb + v * QK_VL), wv);
	}
#pragma GCC unroll 4
	for (v = 0; v < QK_NV; v++)
		QK(st)(c + (size_t)v * QK_VL, acc[v]);
}

/*
 * The even and the odd lanes of @a then @b: __builtin_shufflevector (GCC 12
 * and clang; GCC's __builtin_shuffle is GCC's alone) wants its indices as
 * constants, one list a vector length.
 */
#if QK_VL == 4
#define QK_EVEN(a, b)	__builtin_shufflevector(a, b, 0, 2, 4, 6)
#define QK_ODD(a, b)	__builtin_shufflevector(a, b, 1, 3, 5, 7)
#elif QK_VL == 8
#define QK_EVEN(a, b)	__builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14)
#define QK_ODD(a, b)	__builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15)
#elif QK_VL == 16
#define QK_EVEN(a, b)	__builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, \
						20, 22, 24, 26, 28, 30)
#define QK_ODD(a, b)	__builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, \
						21, 23, 25, 27, 29, 31)
#else
#error "qfast_kern.h: QK_VL must be 4, 8 or 16"
#endif

/*
 * Bytes (xor @flip, less @z) as int32, deinterleaved: src[2i] to ev[i],
 * src[2i + 1] to od[i], i < @n / 2 (and ev[n / 2] when @n is odd).
 */
static QK_ATTR void QK(dei)(const uint8_t *src, uint8_t flip, int32_t z, size_t n, int32_t *ev,
			    int32_t *od)
{
	QK(vb) f = { 0 }, b0, b1;
	QK(vi) lo, hi;
	size_t i = 0;

	f += flip;
	for (; i + 2 * QK_VL <= n; i += 2 * QK_VL) {
		memcpy(&b0, src + i, sizeof(b0));
		memcpy(&b1, src + i + QK_VL, sizeof(b1));
		lo = __builtin_convertvector(b0 ^ f, QK(vi)) - z;
		hi = __builtin_convertvector(b1 ^ f, QK(vi)) - z;
		QK(st)(ev + i / 2, QK_EVEN(lo, hi));
		QK(st)(od + i / 2, QK_ODD(lo, hi));
	}
	for (; i < n; i++)
		(i % 2 ? od : ev)[i / 2] = (int32_t)(uint8_t)(src[i] ^ flip) - z;
}

/*
 * A depthwise window's sums over a flat run of outputs: acc[q] = sum over
 * taps t < @nt of src[t][q] * taps[t], q < @n (the sources readable to
 * @n rounded up to QK_VL).
 */
static inline __attribute__((always_inline)) QK_ATTR void
QK(dw_body)(const int32_t *const *src, const int32_t *taps, unsigned int nt, size_t n,
	    int32_t *acc)
{
	size_t q;
	unsigned int t;

	for (q = 0; q < n; q += QK_VL) {
		QK(vi) a = { 0 };

#pragma GCC unroll 9
		for (t = 0; t < nt; t++)
			a += QK(ld)(src[t] + q) * taps[t];
		QK(st)(acc + q, a);
	}
}

static QK_ATTR void QK(dw)(const int32_t *const *src, const int32_t *taps, unsigned int nt,
			   size_t n, int32_t *acc)
{
	if (nt == 9)
		QK(dw_body)(src, taps, 9, n, acc);
	else
		QK(dw_body)(src, taps, nt, n, acc);
}

static const struct qkern QK(kern) = {
	.name = QK_STR(QK_SUFFIX), .vl = QK_VL, .mr = 4 * QK_MP, .nr = QK_NV * QK_VL,
	.cvt = QK(cvt), .pack2 = QK(pack2), .gemm = QK(gemm), .gemv = QK(gemv), .dei = QK(dei), .dw = QK(dw), .rq = QK_RQ,
};

#undef QK
#undef QK_CAT
#undef QK_CAT2
#undef QK_SUFFIX
#undef QK_ATTR
#undef QK_VL
#undef QK_EVEN
#undef QK_ODD
#undef QK_NV
#undef QK_MP
#undef QK_MADD
#undef QK_RQ
