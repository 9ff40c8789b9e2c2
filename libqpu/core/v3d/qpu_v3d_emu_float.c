// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * V3D 4.2/7.1 float semantics on bit patterns, with integers only, and
 * the 16-lane fadd/fmul of the emulator's fast paths, which userspace runs
 * on the host's float unit (bit for bit the integer forms).
 *
 * DOC: choices and their sources
 * - Rounding: fadd, fsub, fmul, itof and utof round to nearest even. V3D
 *   is a Vulkan 1.2 device whose float32 add and multiply are correctly
 *   rounded (Mesa's v3dv passes the CTS with RTE float32 rounding);
 *   VideoCore IV's round-toward-zero ALU does not carry over.
 * - Denormals: flushed to a zero of the same sign on input and output
 *   (v3dv reports shaderDenormFlushToZeroFloat32).
 * - NaN: any NaN result is the quiet NaN 0x7fc00000; fmin/fmax of a NaN
 *   give the NaN. cfg[5]'s propagate-NaN bit is recorded, not modelled.
 * - fround/ftoin round half to even (numpy's round, which py-videocore6's
 *   test_alu compares with), ftoiz/ftrunc toward zero; ftouz gives 0 for
 *   negative inputs (its test's reference: x > -1 ? uint(x) : 0).
 * - SFU: Broadcom publishes no precision. recip, rsqrt, exp and log are
 *   VideoCore IV's (within 1 ulp, log and rsqrt of |x|); rsqrt2 is rsqrt.
 *   sin(x) is sin(pi x) for |x| <= 0.5, computed in Q30 fixed point
 *   (error below 2^-28), and +-1 beyond, as py-videocore6's test_sfu
 *   reference (sfu_sin) has it from a Pi 4. Its tests accept rtol 1e-4.
 *
 * DOC: the host's float unit
 * fadd, fsub and fmul are IEEE-754 single precision rounded to nearest
 * even once inputs are flushed, which the host's vector unit computes in
 * userspace on x86-64 (SSE2), on i386 built for SSE2 math, and on arm64
 * (AdvSIMD): inputs flushed before, denormal results flushed after (an fadd
 * whose result is below the normal range is exact, so the flush is all the
 * reference does), NaN results replaced by QPU_EMU_F_QNAN. The one case
 * that differs is an fmul whose exact product, just below the smallest
 * normal, rounds up to it on the host's denormal grid (ulp 2^-149) but not
 * at 24 bits (ulp 2^-150 there), as the reference rounds before it
 * flushes: a vector with a product of +-2^-126 is recomputed lane by lane
 * (e.g. 0x203504f3 * 0x1fb504f3: the host's 0x00800000, the reference's
 * 0). The host's mode must be
 * the default one (to nearest, no flush-to-zero or denormals-are-zero, no
 * trap enabled): qpu_v3d_host_float_enter() checks it where a run starts
 * and restores the caller's status flags where it ends. Elsewhere (the
 * kernel, armel's soft float, i386's x87) the integer forms below run.
 */
#include "v3d/qpu_v3d_emu_internal.h"
#include "qpu_emu_float.h"

#define F_SIGN	0x80000000u
#define F_INF	0x7f800000u
#define F_MANT	0x007fffffu
#define LANES16	16u

static bool is_nan(u32 a)
{
	return (a & ~F_SIGN) > F_INF;
}

static u32 fexp(u32 a)
{
	return (a >> 23) & 0xff;
}

static u64 fmant(u32 a)
{
	return (a & F_MANT) | 0x800000u;
}

u32 qpu_v3d_fadd(u32 a, u32 b)
{
	u32 ea, eb, t, sign;
	u64 ma, mb, m;
	int d;

	a = qpu_emu_fflush(a);
	b = qpu_emu_fflush(b);
	if (is_nan(a) || is_nan(b))
		return QPU_EMU_F_QNAN;
	if ((a & ~F_SIGN) == F_INF || (b & ~F_SIGN) == F_INF) {
		if ((a & ~F_SIGN) == F_INF && (b & ~F_SIGN) == F_INF &&
		    (a ^ b) & F_SIGN)
			return QPU_EMU_F_QNAN;
		return (a & ~F_SIGN) == F_INF ? a : b;
	}
	if (!(a & ~F_SIGN))
		return (b & ~F_SIGN) ? b : (a & b);
	if (!(b & ~F_SIGN))
		return a;
	if ((a & ~F_SIGN) < (b & ~F_SIGN)) {
		t = a;
		a = b;
		b = t;
	}
	ea = fexp(a);
	eb = fexp(b);
	d = (int)(ea - eb);
	ma = fmant(a) << 38;
	mb = fmant(b) << 38;
	if (d >= 62)
		mb = 1;
	else if (d)
		mb = (mb >> d) | ((mb & ((1ull << d) - 1)) != 0);
	sign = a & F_SIGN;
	m = ((a ^ b) & F_SIGN) ? ma - mb : ma + mb;
	if (!m)
		return 0;
	return qpu_emu_round_pack(sign, (int)ea - 150 - 38, m, false);
}

u32 qpu_v3d_fmul(u32 a, u32 b)
{
	u32 sign = (a ^ b) & F_SIGN;

	a = qpu_emu_fflush(a);
	b = qpu_emu_fflush(b);
	if (is_nan(a) || is_nan(b))
		return QPU_EMU_F_QNAN;
	if ((a & ~F_SIGN) == F_INF || (b & ~F_SIGN) == F_INF) {
		if (!(a & ~F_SIGN) || !(b & ~F_SIGN))
			return QPU_EMU_F_QNAN;
		return sign | F_INF;
	}
	if (!(a & ~F_SIGN) || !(b & ~F_SIGN))
		return sign;
	return qpu_emu_round_pack(sign, (int)fexp(a) + (int)fexp(b) - 300,
				  fmant(a) * fmant(b), false);
}

/* A key that orders floats as integers, -0 below +0. */
static s32 key(u32 a)
{
	return (a & F_SIGN) ? -(s32)(a & ~F_SIGN) - 1 : (s32)a;
}

u32 qpu_v3d_fmin(u32 a, u32 b)
{
	a = qpu_emu_fflush(a);
	b = qpu_emu_fflush(b);
	if (is_nan(a) || is_nan(b))
		return QPU_EMU_F_QNAN;
	return key(a) <= key(b) ? a : b;
}

u32 qpu_v3d_fmax(u32 a, u32 b)
{
	a = qpu_emu_fflush(a);
	b = qpu_emu_fflush(b);
	if (is_nan(a) || is_nan(b))
		return QPU_EMU_F_QNAN;
	return key(a) >= key(b) ? a : b;
}

/*
 * |a| split at the binary point: the integer part and whether the
 * fraction is zero, above, at or below one half (for rounding).
 */
static u32 round_int(u32 a, unsigned int mode, bool *overflow)
{
	u32 e = fexp(a), neg = a & F_SIGN;
	u64 m = fmant(a), ip, frac, half;
	int sh;

	*overflow = false;
	if (!(a & ~F_SIGN) || e == 0)
		return 0;
	sh = 150 - (int)e;
	if (sh <= 0) {
		if (-sh > 8) {
			*overflow = true;
			return 0;
		}
		return (u32)(m << -sh);
	}
	if (sh > 40) {
		ip = 0;
		frac = 1;
		half = 1ull << 40;
	} else {
		ip = m >> sh;
		frac = m & ((1ull << sh) - 1);
		half = 1ull << (sh - 1);
	}
	switch (mode) {
	case 0:
		if (frac > half || (frac == half && (ip & 1)))
			ip++;
		break;
	case 2:
		if (neg && frac)
			ip++;
		break;
	case 3:
		if (!neg && frac)
			ip++;
		break;
	}
	if (ip > 0xffffffffull) {
		*overflow = true;
		return 0;
	}
	return (u32)ip;
}

u32 qpu_v3d_fround(u32 a, unsigned int mode)
{
	bool ovf;
	u32 ip;

	a = qpu_emu_fflush(a);
	if (is_nan(a))
		return QPU_EMU_F_QNAN;
	if (fexp(a) >= 150)
		return a;	/* already integral, or Inf */
	ip = round_int(a, mode, &ovf);
	if (!ip)
		return a & F_SIGN;
	return qpu_emu_round_pack(a & F_SIGN, 0, ip, false);
}

u32 qpu_v3d_ftoi(u32 a, unsigned int mode)
{
	bool ovf;
	u32 ip;

	a = qpu_emu_fflush(a);
	if (is_nan(a))
		return 0;
	ip = round_int(a, mode, &ovf);
	if (a & F_SIGN) {
		if (ovf || ip > 0x80000000u)
			return 0x80000000u;
		return (u32)-(s32)ip;
	}
	if (ovf || ip > 0x7fffffffu)
		return 0x7fffffffu;
	return ip;
}

u32 qpu_v3d_ftouz(u32 a)
{
	bool ovf;
	u32 ip;

	a = qpu_emu_fflush(a);
	if (is_nan(a) || (a & F_SIGN))
		return 0;
	ip = round_int(a, 1, &ovf);
	return ovf ? 0xffffffffu : ip;
}

u32 qpu_v3d_itof(u32 a)
{
	if ((s32)a < 0)
		return qpu_emu_round_pack(F_SIGN, 0, (u64)(-(s64)(s32)a), false);
	return qpu_emu_round_pack(0, 0, a, false);
}

u32 qpu_v3d_utof(u32 a)
{
	return qpu_emu_round_pack(0, 0, a, false);
}

#define PI_Q30		3373259426ull	/* pi * 2^30, rounded */
#define F_PI		0x40490fdbu	/* pi as a float */
#define SIN_TERMS	6		/* Taylor terms past t */

/* sin(pi x) for |x| <= 0.5; +-1 beyond (see "SFU" above). */
static u32 sfu_sin(u32 a)
{
	u32 e, sign = a & F_SIGN;
	s64 t, t2, r;
	u64 x;
	static const s64 div[SIN_TERMS] = { 156, 110, 72, 42, 20, 6 };
	unsigned int i;

	a = qpu_emu_fflush(a);
	if (is_nan(a) || (a & ~F_SIGN) == F_INF)
		return QPU_EMU_F_QNAN;
	e = fexp(a);
	if ((a & ~F_SIGN) > 0x3f000000u)	/* |x| > 0.5 */
		return sign | 0x3f800000u;
	if (e < 117)			/* |x| < 2^-10: sin(t) = t within 1 ulp */
		return qpu_v3d_fmul(a, F_PI);
	/* |x| in Q30 */
	x = e >= 120 ? fmant(a) << (e - 120) : fmant(a) >> (120 - e);
	t = (s64)((x * PI_Q30) >> 30);	/* t = pi |x|, Q30 */
	t2 = (t * t) >> 30;
	r = 1ll << 30;
	for (i = 0; i < SIN_TERMS; i++)
		r = (1ll << 30) - ((t2 * r >> 30) / div[i]);
	r = (t * r) >> 30;
	return qpu_emu_round_pack(sign, -30, (u64)r, false);
}

u32 qpu_v3d_sfu(unsigned int which, u32 a)
{
	switch (which) {
	case QPU_V3D_SFU_RECIP:
		return qpu_emu_recip(a);
	case QPU_V3D_SFU_RSQRT:
	case QPU_V3D_SFU_RSQRT2:
		return qpu_emu_recipsqrt(a);
	case QPU_V3D_SFU_EXP:
		return qpu_emu_exp2(a);
	case QPU_V3D_SFU_LOG:
		return qpu_emu_log2(a);
	case QPU_V3D_SFU_SIN:
		return sfu_sin(a);
	}
	return 0;
}

/*
 * The fast paths' lane forms: fmul of two normal numbers to a normal
 * result, rounded to nearest even, and of a zero or denormal (flushed) by
 * a finite number; every other case by qpu_v3d_fmul().
 */
static inline u32 fmul_fast(u32 a, u32 b)
{
	u32 ea = (a >> 23) & 0xff, eb = (b >> 23) & 0xff, top, q, e;
	u64 m, rem, half;

	if (ea - 1 >= 254 || eb - 1 >= 254) {
		/* a zero (or flushed denormal) by a finite number: signed 0 */
		if ((!ea && eb != 0xff) || (!eb && ea != 0xff))
			return (a ^ b) & F_SIGN;
		return qpu_v3d_fmul(a, b);
	}
	m = (u64)((a & 0x7fffffu) | 0x800000u) * ((b & 0x7fffffu) | 0x800000u);
	top = (u32)(m >> 47);
	q = (u32)(m >> (23 + top));
	rem = m & ((1ull << (23 + top)) - 1);
	half = 1ull << (22 + top);
	if (rem > half || (rem == half && (q & 1)))
		q++;
	e = ea + eb - 127 + top;
	if (q == 1u << 24) {
		q >>= 1;
		e++;
	}
	if (e - 1 >= 254)
		return qpu_v3d_fmul(a, b);
	return ((a ^ b) & F_SIGN) | e << 23 | (q & 0x7fffffu);
}

/*
 * fadd of two normal numbers to a normal result, rounded to nearest
 * even, and of zeros or denormals (flushed) with normal numbers or each
 * other; every other case by qpu_v3d_fadd().
 */
static inline u32 fadd_fast(u32 a, u32 b)
{
	/* hi: the larger magnitude, whose sign the result takes */
	u32 hi = (a & ~F_SIGN) >= (b & ~F_SIGN) ? a : b, lo = a ^ b ^ hi;
	u32 eh = (hi >> 23) & 0xff, el = (lo >> 23) & 0xff, p, e, q, d;
	u64 mh, ml, m, rem, half;

	if (eh - 1 >= 254 || el - 1 >= 254) {
		/* x + 0 (or a flushed denormal) with x normal: x */
		if (!el && eh - 1 < 254)
			return hi;
		if (!eh)	/* 0 + 0: -0 only when both are */
			return a & b & F_SIGN;
		return qpu_v3d_fadd(a, b);
	}
	d = eh - el;
	mh = (u64)((hi & 0x7fffffu) | 0x800000u) << 32;
	ml = (u64)((lo & 0x7fffffu) | 0x800000u) << 32;
	/* the low one shifted down, its lost bits kept as a sticky bit */
	ml = d >= 60 ? 1 : d ? (ml >> d) | ((ml << (64 - d)) != 0) : ml;
	m = ((a ^ b) & F_SIGN) ? mh - ml : mh + ml;
	if (!m)
		return 0;
	p = 63 - (u32)__builtin_clzll(m);
	e = eh + p - 55;
	q = (u32)(m >> (p - 23));
	rem = m & ((1ull << (p - 23)) - 1);
	half = 1ull << (p - 24);
	if (rem > half || (rem == half && (q & 1)))
		q++;
	if (q == 1u << 24) {
		q >>= 1;
		e++;
	}
	if (e - 1 >= 254)
		return qpu_v3d_fadd(a, b);
	return (hi & F_SIGN) | e << 23 | (q & 0x7fffffu);
}

#if !defined(__KERNEL__) && (defined(__x86_64__) || defined(__aarch64__) || \
	(defined(__i386__) && defined(__SSE2_MATH__)))
#define HOST_FLOAT 1
#include "qpu_emu_float_vec.h"
#ifdef __aarch64__
/* FPCR: FZ, the rounding mode and the trap enables */
#define FPCR_MODE	0x01c09f00u	/* bits 24, 23:22, 15 and 12:8 */

bool qpu_v3d_host_float_enter(u32 *saved)
{
	u64 fpcr, fpsr;

	__asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
	__asm__ volatile("mrs %0, fpsr" : "=r"(fpsr));
	*saved = (u32)fpsr;
	return !(fpcr & FPCR_MODE);
}

void qpu_v3d_host_float_leave(u32 saved)
{
	u64 fpsr = saved;

	__asm__ volatile("msr fpsr, %0" : : "r"(fpsr));
}
#else
#include <immintrin.h>

#define CSR_MODE	0xffc0u	/* DAZ, the trap masks, rounding, FTZ */
#define CSR_DEFAULT	0x1f80u	/* every trap masked, to nearest */

bool qpu_v3d_host_float_enter(u32 *saved)
{
	*saved = _mm_getcsr();
	return (*saved & CSR_MODE) == CSR_DEFAULT;
}

void qpu_v3d_host_float_leave(u32 saved)
{
	_mm_setcsr(saved);
}
#endif

#define F_ABS	0x7fffffffu

/* Flushed, and any NaN as QPU_EMU_F_QNAN. */
static inline v4u vresult(v4u r)
{
	v4u nan = (v4u)((v4s)(r & F_ABS) > (s32)F_INF);

	r = vflush(r);
	return (r & ~nan) | (QPU_EMU_F_QNAN & nan);
}

static void fadd16_host(const u32 *a, const u32 *b, u32 neg, u32 *r)
{
	unsigned int g;

	for (g = 0; g < LANES16; g += 4) {
		v4f x = (v4f)vflush(vload(a + g));
		v4f y = (v4f)vflush(vload(b + g) ^ neg);

		vstore(r + g, vresult((v4u)(x + y)));
	}
}

/*
 * Lanes of product @p that may have rounded up to the smallest normal
 * from below it (see "the host's float unit").
 */
static inline v4u vmin_normal(v4u p)
{
	return (v4u)((p & F_ABS) == 0x00800000u);
}

static bool fmul16_host(const u32 *a, const u32 *b, u32 *r)
{
	v4u edge = { 0, 0, 0, 0 };
	unsigned int g;

	for (g = 0; g < LANES16; g += 4) {
		v4f x = (v4f)vflush(vload(a + g));
		v4f y = (v4f)vflush(vload(b + g));
		v4u p = (v4u)(x * y);

		edge |= vmin_normal(p);
		vstore(r + g, vresult(p));
	}
	return !(edge[0] | edge[1] | edge[2] | edge[3]);
}
#else
bool qpu_v3d_host_float_enter(u32 *saved)
{
	*saved = 0;
	return false;
}

void qpu_v3d_host_float_leave(u32 saved)
{
}
#endif

#if defined(HOST_FLOAT) && defined(__x86_64__)
/*
 * AVX-512 where the host has it and qpu_emu_float_simd() chose it (as
 * VideoCore IV's 16-lane forms): all 16 lanes in one vector, rounded to
 * nearest by the instruction (no exception flags set), the same steps as
 * the 4-lane forms above.
 */
#define HOST_AVX512	1
#define AVX512		__attribute__((target("avx512f")))
#define SIMD_AVX512	2	/* qpu_emu_float_simd()'s level */
#define RN		(_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)

/* Denormals (exponent field 0) to a zero of the same sign. */
static inline AVX512 __m512i zflush(__m512i a)
{
	__mmask16 normal = _mm512_test_epi32_mask(a, _mm512_set1_epi32(F_INF));

	return _mm512_mask_mov_epi32(_mm512_and_si512(a,
			_mm512_set1_epi32((int)F_SIGN)), normal, a);
}

static inline AVX512 __m512 zload(const u32 *p, u32 neg)
{
	return _mm512_castsi512_ps(zflush(_mm512_xor_si512(_mm512_loadu_si512(p),
			_mm512_set1_epi32((int)neg))));
}

/* Flushed, and any NaN as QPU_EMU_F_QNAN. */
static inline AVX512 void zstore(u32 *r, __m512i v)
{
	__mmask16 nan = _mm512_cmpgt_epi32_mask(_mm512_and_si512(v,
			_mm512_set1_epi32(F_ABS)), _mm512_set1_epi32(F_INF));
	__m512i qnan = _mm512_set1_epi32(QPU_EMU_F_QNAN);

	_mm512_storeu_si512(r, _mm512_mask_mov_epi32(zflush(v), nan, qnan));
}

static AVX512 void fadd16_avx512(const u32 *a, const u32 *b, u32 neg, u32 *r)
{
	zstore(r, _mm512_castps_si512(_mm512_add_round_ps(zload(a, 0),
							  zload(b, neg), RN)));
}

static AVX512 bool fmul16_avx512(const u32 *a, const u32 *b, u32 *r)
{
	__m512i p = _mm512_castps_si512(_mm512_mul_round_ps(zload(a, 0),
							    zload(b, 0), RN));
	__mmask16 edge = _mm512_cmpeq_epi32_mask(_mm512_and_si512(p,
			_mm512_set1_epi32(F_ABS)), _mm512_set1_epi32(0x00800000));

	zstore(r, p);
	return !edge;
}

static bool avx512(void)
{
	return qpu_emu_float_simd_now() == SIMD_AVX512;
}
#endif

unsigned int qpu_v3d_float_form(bool host)
{
	if (!host)
		return QPU_V3D_FLOAT_INT;
#ifdef HOST_AVX512
	if (avx512())
		return QPU_V3D_FLOAT_AVX512;
#endif
	return QPU_V3D_FLOAT_HOST;
}

void qpu_v3d_fadd16_form(const u32 *a, const u32 *b, u32 neg, u32 *r,
			 unsigned int form)
{
	unsigned int i;

#ifdef HOST_AVX512
	if (form == QPU_V3D_FLOAT_AVX512) {
		fadd16_avx512(a, b, neg, r);
		return;
	}
#endif
#ifdef HOST_FLOAT
	if (form) {
		fadd16_host(a, b, neg, r);
		return;
	}
#endif
	for (i = 0; i < LANES16; i++)
		r[i] = fadd_fast(a[i], b[i] ^ neg);
}

void qpu_v3d_fmul16_form(const u32 *a, const u32 *b, u32 *r,
			 unsigned int form)
{
	unsigned int i;

#ifdef HOST_AVX512
	if (form == QPU_V3D_FLOAT_AVX512) {
		if (fmul16_avx512(a, b, r))
			return;
		form = QPU_V3D_FLOAT_INT;	/* a product of +-2^-126 */
	}
#endif
#ifdef HOST_FLOAT
	if (form && fmul16_host(a, b, r))
		return;
#endif
	for (i = 0; i < LANES16; i++)
		r[i] = fmul_fast(a[i], b[i]);
}

void qpu_v3d_fadd16(const u32 *a, const u32 *b, u32 neg, u32 *r, bool host)
{
	qpu_v3d_fadd16_form(a, b, neg, r, qpu_v3d_float_form(host));
}

void qpu_v3d_fmul16(const u32 *a, const u32 *b, u32 *r, bool host)
{
	qpu_v3d_fmul16_form(a, b, r, qpu_v3d_float_form(host));
}

/*
 * The fast paths' fadd, fsub and fmul in each form, as predecoded entries
 * call them (v3d_float_fast()): the forms above without a choice a call.
 */
#define FLOAT_FAST(name)						\
void name(const struct qpu_v3d_emu *emu, const u32 *__restrict a,		\
	  const u32 *__restrict b, u32 *__restrict r)

static FLOAT_FAST(fadd_int)
{
	unsigned int i;

	for (i = 0; i < LANES16; i++)
		r[i] = fadd_fast(a[i], b[i]);
}

static FLOAT_FAST(fsub_int)
{
	unsigned int i;

	for (i = 0; i < LANES16; i++)
		r[i] = fadd_fast(a[i], b[i] ^ F_SIGN);
}

static FLOAT_FAST(fmul_int)
{
	unsigned int i;

	for (i = 0; i < LANES16; i++)
		r[i] = fmul_fast(a[i], b[i]);
}

#ifdef HOST_FLOAT
static FLOAT_FAST(fadd_host)
{
	fadd16_host(a, b, 0, r);
}

static FLOAT_FAST(fsub_host)
{
	fadd16_host(a, b, F_SIGN, r);
}

static FLOAT_FAST(fmul_host)
{
	if (!fmul16_host(a, b, r))
		fmul_int(emu, a, b, r);
}
#endif

#ifdef HOST_AVX512
static AVX512 FLOAT_FAST(fadd_avx512)
{
	fadd16_avx512(a, b, 0, r);
}

static AVX512 FLOAT_FAST(fsub_avx512)
{
	fadd16_avx512(a, b, F_SIGN, r);
}

static AVX512 FLOAT_FAST(fmul_avx512)
{
	if (!fmul16_avx512(a, b, r))
		fmul_int(emu, a, b, r);	/* a product of +-2^-126 */
}
#endif

v3d_fast_fn v3d_float_fast(enum v3d_float_op op, unsigned int form)
{
	static const v3d_fast_fn by_form[QPU_V3D_FLOAT_AVX512 + 1][3] = {
		[QPU_V3D_FLOAT_INT] = { fadd_int, fsub_int, fmul_int },
#ifdef HOST_FLOAT
		[QPU_V3D_FLOAT_HOST] = { fadd_host, fsub_host, fmul_host },
#endif
#ifdef HOST_AVX512
		[QPU_V3D_FLOAT_AVX512] = { fadd_avx512, fsub_avx512, fmul_avx512 },
#endif
	};

	if (form > QPU_V3D_FLOAT_AVX512 || !by_form[form][op])
		form = QPU_V3D_FLOAT_INT;
	return by_form[form][op];
}
