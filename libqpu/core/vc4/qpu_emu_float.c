// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * QPU float semantics on bit patterns, with integers only.
 *
 * DOC: choices and their sources
 * - Denormals: flushed to a zero of the same sign on every input and every
 *   output (Reference Guide, QPU float ALU notes; vc4asm's "Addendum to the
 *   Broadcom VideoCore IV documentation": "no support for denormal numbers,
 *   they are just truncated to 0").
 * - Rounding: fadd, fsub and fmul round toward zero (an overflow gives the
 *   largest finite value, as IEEE round-toward-zero does). The Reference
 *   Guide states no rounding mode; VC4CL (doe300/VC4CL, src/common.h,
 *   device_config::FLOATING_POINT_CONFIG) reports CL_FP_ROUND_TO_ZERO
 *   because "according to tests, values are always rounded to zero (i.e.
 *   for fmul, fadd and fsub operations)" on a Pi, the only measurement we
 *   found. itof, which nobody measured, rounds to nearest even (as
 *   Broadcom's simulator for the later V3D does), and so do the f16 pack
 *   and the unorm8 conversions.
 * - NaN and Inf: the addendum reports the hardware has no real NaN (0 + NaN
 *   gives +Inf). We do not model that quirk: NaN inputs give the quiet NaN
 *   0x7fc00000, Inf follows IEEE-754. Programs relying on either differ.
 * - ftoi truncates toward zero; NaN gives 0 and out-of-range values
 *   saturate to 0x7fffffff / 0x80000000 (not confirmed on hardware).
 * - fmin/fmax order -0 below +0; fminabs/fmaxabs return the absolute value.
 * - SFU: the hardware units are approximate and undocumented in precision.
 *   recip is correctly rounded; recipsqrt, exp2 and log2 are computed in
 *   64-bit fixed point (errors below 2^-30 relative before the final
 *   rounding), so results are within 1 ulp of the exact value. recipsqrt
 *   and log2 take the magnitude of their input (PyVideoCore's APPENDIX:
 *   RECIPSQRT(x) = 1/sqrt(abs(x)), LOG(x) = log2(abs(x)); its
 *   test_sqrt_of_negative and test_log_of_negative pass on a Pi), so -x
 *   gives what x gives: -0 and -Inf as +0 and +Inf. recip keeps the sign
 *   (1/-0 is -Inf, IEEE's rule: the errata only says RECIP(0) is Inf).
 * - Speed: fadd and fmul also have inline fast paths (qpu_emu_float.h),
 *   which compute normal numbers only and hand every other case to the
 *   functions here, and the ALU ops 16-lane forms (the end of this file),
 *   in userspace on x86-64 with the host's SSE2 or AVX-512 float unit set
 *   to round toward zero; the rules above hold on every path
 *   (test-emu-float compares them bit for bit).
 */
#include "qpu_emu_float.h"

#define F_SIGN		0x80000000u
#define F_EXP		0x7f800000u
#define F_MANT		0x007fffffu
#define F_INF		0x7f800000u

static bool f_is_nan(u32 a)
{
	return (a & ~F_SIGN) > F_INF;
}

static bool f_is_inf(u32 a)
{
	return (a & ~F_SIGN) == F_INF;
}

static bool f_is_zero(u32 a)
{
	return !(a & ~F_SIGN);
}

u32 qpu_emu_fflush(u32 a)
{
	if (!(a & F_EXP))
		return a & F_SIGN;
	return a;
}

/* Index of the highest set bit of @v (not 0); a compiler builtin, no libc. */
static int msb64(u64 v)
{
	return 63 - __builtin_clzll(v);
}

/*
 * sign * m * 2^lsb_exp as a float: the nearest one (ties to even) with Inf
 * on overflow, or with @rtz the one toward zero with the largest finite
 * value on overflow; a signed zero below the normal range either way.
 */
static u32 round_pack_mode(u32 sign, int lsb_exp, u64 m, bool rtz)
{
	int p, e;
	u64 q;

	if (!m)
		return sign;
	p = msb64(m);
	e = lsb_exp + p + 127;
	if (p > 23) {
		int s = p - 23;
		u64 rem = m & ((1ull << s) - 1);
		u64 half = 1ull << (s - 1);

		q = m >> s;
		if (!rtz && (rem > half || (rem == half && (q & 1))))
			q++;
		if (q == (1ull << 24)) {
			q >>= 1;
			e++;
		}
	} else {
		q = m << (23 - p);
	}
	if (e >= 255)
		return sign | (rtz ? F_INF - 1 : F_INF);
	if (e <= 0)
		return sign;
	return sign | ((u32)e << 23) | ((u32)q & F_MANT);
}

u32 qpu_emu_round_pack(u32 sign, int lsb_exp, u64 m, bool rtz)
{
	return round_pack_mode(sign, lsb_exp, m, rtz);
}

static u32 round_pack(u32 sign, int lsb_exp, u64 m)
{
	return round_pack_mode(sign, lsb_exp, m, false);
}

/* The rounding of the float ALU ops (fadd, fsub, fmul). */
static u32 round_pack_alu(u32 sign, int lsb_exp, u64 m)
{
	return round_pack_mode(sign, lsb_exp, m, true);
}

static u32 f_exp(u32 a)
{
	return (a >> 23) & 0xff;
}

static u32 f_mant(u32 a)
{
	return (a & F_MANT) | 0x800000u;
}

u32 qpu_emu_fadd(u32 a, u32 b)
{
	u32 sa, sb, ea, eb, d;
	u64 ma, mb, m;

	a = qpu_emu_fflush(a);
	b = qpu_emu_fflush(b);
	if (f_is_nan(a) || f_is_nan(b))
		return QPU_EMU_F_QNAN;
	sa = a & F_SIGN;
	sb = b & F_SIGN;
	if (f_is_inf(a)) {
		if (f_is_inf(b) && sa != sb)
			return QPU_EMU_F_QNAN;
		return a;
	}
	if (f_is_inf(b))
		return b;
	if (f_is_zero(a) && f_is_zero(b))
		return sa & sb;
	if (f_is_zero(a))
		return b;
	if (f_is_zero(b))
		return a;
	/* Make a the larger magnitude. */
	if ((a & ~F_SIGN) < (b & ~F_SIGN)) {
		u32 t = a;

		a = b;
		b = t;
		t = sa;
		sa = sb;
		sb = t;
	}
	ea = f_exp(a);
	eb = f_exp(b);
	ma = (u64)f_mant(a) << 32;
	mb = (u64)f_mant(b) << 32;
	d = ea - eb;
	if (d >= 60) {
		mb = 1;	/* only a sticky bit is left */
	} else if (d) {
		u64 lost = mb & ((1ull << d) - 1);

		mb = (mb >> d) | (lost != 0);
	}
	if (sa == sb)
		m = ma + mb;
	else
		m = ma - mb;
	if (!m)
		return 0;
	return round_pack_alu(sa, (int)ea - 150 - 32, m);
}

u32 qpu_emu_fsub(u32 a, u32 b)
{
	b = qpu_emu_fflush(b);
	if (f_is_nan(b))
		return QPU_EMU_F_QNAN;
	return qpu_emu_fadd(a, b ^ F_SIGN);
}

u32 qpu_emu_fmul(u32 a, u32 b)
{
	u32 sign;

	a = qpu_emu_fflush(a);
	b = qpu_emu_fflush(b);
	if (f_is_nan(a) || f_is_nan(b))
		return QPU_EMU_F_QNAN;
	sign = (a ^ b) & F_SIGN;
	if (f_is_inf(a) || f_is_inf(b)) {
		if (f_is_zero(a) || f_is_zero(b))
			return QPU_EMU_F_QNAN;
		return sign | F_INF;
	}
	if (f_is_zero(a) || f_is_zero(b))
		return sign;
	return round_pack_alu(sign, (int)f_exp(a) + (int)f_exp(b) - 300,
			      (u64)f_mant(a) * f_mant(b));
}

/* A key that orders floats like integers: -Inf < ... < -0 < +0 < ... */
static u32 f_key(u32 a)
{
	return (a & F_SIGN) ? ~a : a | F_SIGN;
}

bool qpu_emu_fgt(u32 a, u32 b)
{
	return f_key(qpu_emu_fflush(a)) > f_key(qpu_emu_fflush(b));
}

u32 qpu_emu_fmin(u32 a, u32 b)
{
	a = qpu_emu_fflush(a);
	b = qpu_emu_fflush(b);
	return f_key(a) > f_key(b) ? b : a;
}

u32 qpu_emu_fmax(u32 a, u32 b)
{
	a = qpu_emu_fflush(a);
	b = qpu_emu_fflush(b);
	return f_key(a) > f_key(b) ? a : b;
}

u32 qpu_emu_fminabs(u32 a, u32 b)
{
	return qpu_emu_fmin(a & ~F_SIGN, b & ~F_SIGN);
}

u32 qpu_emu_fmaxabs(u32 a, u32 b)
{
	return qpu_emu_fmax(a & ~F_SIGN, b & ~F_SIGN);
}

u32 qpu_emu_ftoi(u32 a)
{
	int e;
	u32 m, v;

	a = qpu_emu_fflush(a);
	if (f_is_nan(a))
		return 0;
	e = (int)f_exp(a) - 127;
	if (e < 0)
		return 0;
	if (e >= 31) {
		if ((a & F_SIGN) && e == 31 && !(a & F_MANT))
			return F_SIGN;
		return (a & F_SIGN) ? F_SIGN : 0x7fffffffu;
	}
	m = f_mant(a);
	v = e >= 23 ? m << (e - 23) : m >> (23 - e);
	return (a & F_SIGN) ? (u32)-v : v;
}

u32 qpu_emu_itof(u32 a)
{
	if (a & F_SIGN)
		return round_pack(F_SIGN, 0, (u64)(u32)-a);
	return round_pack(0, 0, a);
}

/* Unsigned 64 by 32 division by shift and subtract (no libgcc in kmod). */
static u64 udiv64_32(u64 n, u32 d, u32 *rem)
{
	u64 q = 0, r = 0;
	int i;

	for (i = 63; i >= 0; i--) {
		r = (r << 1) | ((n >> i) & 1);
		if (r >= d) {
			r -= d;
			q |= 1ull << i;
		}
	}
	*rem = (u32)r;
	return q;
}

static u64 isqrt64(u64 v)
{
	u64 res = 0, bit = 1ull << 62;

	while (bit > v)
		bit >>= 2;
	while (bit) {
		if (v >= res + bit) {
			v -= res + bit;
			res = (res >> 1) + bit;
		} else {
			res >>= 1;
		}
		bit >>= 2;
	}
	return res;
}

u32 qpu_emu_recip(u32 a)
{
	u32 sign, rem;
	u64 q;

	a = qpu_emu_fflush(a);
	sign = a & F_SIGN;
	if (f_is_nan(a))
		return QPU_EMU_F_QNAN;
	if (f_is_zero(a))
		return sign | F_INF;
	if (f_is_inf(a))
		return sign;
	/* 1/(m 2^(e-150)) = (2^50/m) 2^(100-e) */
	q = udiv64_32(1ull << 50, f_mant(a), &rem);
	return round_pack(sign, 99 - (int)f_exp(a), (q << 1) | (rem != 0));
}

/* 1/sqrt(|a|): the sign is ignored (see "SFU" above). */
u32 qpu_emu_recipsqrt(u32 a)
{
	u32 rem;
	u64 m, y, r;
	int k;

	a = qpu_emu_fflush(a) & ~F_SIGN;
	if (f_is_nan(a))
		return QPU_EMU_F_QNAN;
	if (f_is_zero(a))
		return F_INF;
	if (f_is_inf(a))
		return 0;
	m = f_mant(a);
	k = (int)f_exp(a) - 150;
	if (k & 1) {
		m <<= 1;
		k--;
	}
	/* y = sqrt(m) 2^19, r = 2^63 / y = 2^44 / sqrt(m) */
	y = isqrt64(m << 38);
	r = udiv64_32(1ull << 63, (u32)y, &rem);
	return round_pack(0, -44 - k / 2 - 1, (r << 1) | (rem != 0));
}

/* The high part of a 64x64 product, shifted right by @shift (< 64). */
static u64 mul_shr(u64 a, u64 b, unsigned int shift)
{
	u64 al = (u32)a, ah = a >> 32, bl = (u32)b, bh = b >> 32;
	u64 ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
	u64 mid = (ll >> 32) + (u32)lh + (u32)hl;
	u64 hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
	u64 lo = (mid << 32) | (u32)ll;

	return (hi << (64 - shift)) | (lo >> shift);
}

/* 2^(2^-k) for k = 1..32, Q62. */
static const u64 exp2_table[32] = {
	0x5a827999fcef3242ull, 0x4c1bf828c6dc54b7ull, 0x45cae0f1f545eb73ull,
	0x42d561b3e6243d8aull, 0x4166c34c5615d0ebull, 0x40b268f9de0183b9ull,
	0x4058f6a7ecccd5b6ull, 0x402c6be96af2fb58ull, 0x4016321b687027a8ull,
	0x400b18178ba33b14ull, 0x40058bce410147e8ull, 0x4002c5d7bff71daeull,
	0x400162e807ee7e5bull, 0x4000b1730df6a524ull, 0x400058b9497b8151ull,
	0x40002c5c955dd701ull, 0x4000162e46d6f26bull, 0x40000b1722757b1bull,
	0x4000058b90fd3e0cull, 0x400002c5c86f3f26ull, 0x40000162e433c79bull,
	0x400000b17218edcfull, 0x40000058b90c3968ull, 0x4000002c5c860d54ull,
	0x400000162e4302d2ull, 0x4000000b17218073ull, 0x400000058b90bffcull,
	0x40000002c5c85feeull, 0x4000000162e42ff3ull, 0x40000000b17217f8ull,
	0x4000000058b90bfcull, 0x400000002c5c85feull,
};

u32 qpu_emu_exp2(u32 a)
{
	s64 fixed;
	u64 r = 1ull << 62;
	u32 frac;
	int e, i, k;

	a = qpu_emu_fflush(a);
	if (f_is_nan(a))
		return QPU_EMU_F_QNAN;
	if (f_is_zero(a))
		return 0x3f800000u;
	e = (int)f_exp(a);
	if (e >= 127 + 7) {	/* |a| >= 128 */
		if (a & F_SIGN)
			return 0;
		return F_INF;
	}
	/* a in Q32 fixed point */
	if (e >= 118)
		fixed = (s64)((u64)f_mant(a) << (e - 118));
	else if (118 - e < 32)
		fixed = f_mant(a) >> (118 - e);
	else
		fixed = 0;
	if (a & F_SIGN)
		fixed = -fixed;
	i = (int)(fixed >> 32);
	frac = (u32)fixed;
	for (k = 0; k < 32; k++)
		if (frac & (1u << (31 - k)))
			r = mul_shr(r, exp2_table[k], 62);
	return round_pack(0, i - 62, r);
}

/* log2(|a|): the sign is ignored (see "SFU" above). */
u32 qpu_emu_log2(u32 a)
{
	u64 y, frac = 0, mag;
	s64 v;
	int k;

	a = qpu_emu_fflush(a) & ~F_SIGN;
	if (f_is_nan(a))
		return QPU_EMU_F_QNAN;
	if (f_is_zero(a))
		return F_SIGN | F_INF;
	if (f_is_inf(a))
		return F_INF;
	/* log2(1.f) bit by bit: square, and halve when >= 2 (Q61). */
	y = (u64)f_mant(a) << 38;
	for (k = 1; k <= 55; k++) {
		y = mul_shr(y, y, 61);
		frac <<= 1;
		if (y >= (2ull << 61)) {
			y >>= 1;
			frac |= 1;
		}
	}
	v = ((s64)((int)f_exp(a) - 127) * (s64)(1ull << 55)) + (s64)frac;
	if (!v)
		return 0;
	mag = v < 0 ? (u64)-v : (u64)v;
	return round_pack(v < 0 ? F_SIGN : 0, -55, mag);
}

u32 qpu_emu_f32_to_f16(u32 a)
{
	u32 sign = (a >> 16) & 0x8000, m, rem, half, q;
	int e;

	a = qpu_emu_fflush(a);
	if (f_is_nan(a))
		return 0x7e00;
	if (f_is_inf(a))
		return sign | 0x7c00;
	if (f_is_zero(a))
		return sign;
	e = (int)f_exp(a) - 127 + 15;
	m = f_mant(a);
	rem = m & 0x1fff;
	half = 0x1000;
	q = m >> 13;
	if (rem > half || (rem == half && (q & 1)))
		q++;
	if (q == 0x800) {
		q >>= 1;
		e++;
	}
	if (e >= 31)
		return sign | 0x7c00;
	if (e <= 0)
		return sign;	/* half denormals are flushed too */
	return sign | ((u32)e << 10) | (q & 0x3ff);
}

u32 qpu_emu_f16_to_f32(u32 h)
{
	u32 sign = (h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;

	if (e == 0x1f)
		return sign | F_INF | (m << 13) | (m ? 0x400000u : 0);
	if (!e)
		return sign;	/* zero, or a flushed half denormal */
	return sign | ((e - 15 + 127) << 23) | (m << 13);
}

u32 qpu_emu_f32_to_unorm8(u32 a)
{
	int e, shift;
	u64 v;

	a = qpu_emu_fflush(a);
	if (f_is_nan(a) || (a & F_SIGN) || f_is_zero(a))
		return 0;
	if (a >= 0x3f800000u)
		return 255;
	e = (int)f_exp(a);
	shift = 150 - e;
	if (shift >= 63)
		return 0;
	v = (u64)f_mant(a) * 255;
	return (u32)((v + (1ull << (shift - 1))) >> shift);
}

u32 qpu_emu_unorm8_to_f32(u32 b)
{
	u32 q1, r1, q2, r2, num;

	b &= 0xff;
	num = b << 24;
	q1 = num / 255;
	r1 = num % 255;
	q2 = (r1 << 24) / 255;
	r2 = (r1 << 24) % 255;
	return round_pack(0, -49, ((((u64)q1 << 24) | q2) << 1) | (r2 != 0));
}

/*
 * 16 lanes at once, for the emulator's lane loops. Userspace on an x86-64
 * host runs them on the host's vector unit, in IEEE-754 arithmetic rounding
 * toward zero, which is the rules above once denormal inputs are flushed to
 * signed zeros before, denormal results after and NaN results replaced by
 * QPU_EMU_F_QNAN: toward zero, the largest finite value on overflow, a
 * signed zero below the normal range (when rounding toward zero a result is
 * below it exactly when the exact value is), x - x = +0, Inf - Inf and
 * 0 * Inf a NaN. ftoi truncates and fixes the lanes the host saturates
 * differently (NaN, too large positive); itof rounds to nearest; min and
 * max are integer operations. Two forms:
 * - AVX-512 (checked at run time): 16 lanes in one register, the rounding
 *   mode and exception suppression in the instruction, so whatever the
 *   caller's MXCSR holds (a mode, FTZ, DAZ, unmasked exceptions) does not
 *   matter; flushing is done by hand either way.
 * - SSE2, which every x86-64 CPU has: MXCSR is set (toward zero, FTZ, all
 *   exceptions masked; not DAZ, which the first x86-64 CPUs lack) and
 *   restored around each call, with the operations pinned between.
 * Elsewhere (the kernel, which keeps its hands off the FPU, other hosts, or
 * qpu_emu_float_simd(0)) the same lane by lane with the functions above
 * and the inline fast paths. test-emu-float compares every path bit for
 * bit on every lane.
 */
#define F_ABS		0x7fffffffu

/* The min and max ops: bit 0 for max, bit 1 for the abs forms. */
#define F_MIN		0u
#define F_MAX		1u
#define F_MINABS	2u
#define F_MAXABS	3u

/* A key ordering floats as signed ints: -NaN < -Inf < -0 < +0 < ... */
static s32 f_skey(u32 a)
{
	return (s32)(a ^ ((u32)((s32)a >> 31) & F_ABS));
}

#if !defined(__KERNEL__) && defined(__x86_64__)
#include <immintrin.h>

#include "qpu_emu_float_vec.h"

enum { PATH_LANES, PATH_SSE2, PATH_AVX512, PATH_UNSET };

static int simd_path = PATH_UNSET;

int qpu_emu_float_simd(int level)
{
	int best = __builtin_cpu_supports("avx512f") ? PATH_AVX512 : PATH_SSE2;

	if (level < 0 || level > best)
		level = best;
	__atomic_store_n(&simd_path, level, __ATOMIC_RELAXED);
	return level;
}

/*
 * Inline, so that a 16-lane op whose path is known ends in a jump to it
 * without saving registers for the lane-by-lane loop first.
 */
static inline int simd_get(void)
{
	int path = __atomic_load_n(&simd_path, __ATOMIC_RELAXED);

	return path == PATH_UNSET ? qpu_emu_float_simd(-1) : path;
}

int qpu_emu_float_simd_now(void)
{
	return simd_get();
}

/* --- AVX-512 --- */

#define AVX512		__attribute__((target("avx512f")))
#define RZ		(_MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC)

/* Denormals to a zero of the same sign. */
static inline AVX512 __m512i zflush(__m512i a)
{
	__mmask16 normal = _mm512_test_epi32_mask(a, _mm512_set1_epi32(F_EXP));

	return _mm512_mask_mov_epi32(_mm512_and_si512(a,
			_mm512_set1_epi32((int)F_SIGN)), normal, a);
}

static inline AVX512 __mmask16 znan(__m512i a)
{
	return _mm512_cmpgt_epi32_mask(_mm512_and_si512(a,
			_mm512_set1_epi32(F_ABS)), _mm512_set1_epi32(F_INF));
}

/* Flush the result, and any NaN to QPU_EMU_F_QNAN. */
static inline AVX512 void zstore(u32 *out, __m512 v)
{
	__m512i r = zflush(_mm512_castps_si512(v));

	r = _mm512_mask_mov_epi32(r, znan(r),
				  _mm512_set1_epi32(QPU_EMU_F_QNAN));
	_mm512_storeu_si512(out, r);
}

static inline AVX512 __m512 zload(const u32 *p, u32 neg)
{
	__m512i v = _mm512_loadu_si512(p);

	return _mm512_castsi512_ps(zflush(_mm512_xor_si512(v,
			_mm512_set1_epi32((int)neg))));
}

static AVX512 void fadd_avx512(const u32 *a, const u32 *b, u32 neg,
			       u32 *out)
{
	zstore(out, _mm512_add_round_ps(zload(a, 0), zload(b, neg), RZ));
}

static AVX512 void fmul_avx512(const u32 *a, const u32 *b, u32 *out)
{
	zstore(out, _mm512_mul_round_ps(zload(a, 0), zload(b, 0), RZ));
}

static AVX512 void fadd2_avx512(const u32 *a, const u32 *b, u32 neg,
				u32 *out, u32 *out2)
{
	__m512 r = _mm512_add_round_ps(zload(a, 0), zload(b, neg), RZ);

	zstore(out, r);
	zstore(out2, r);
}

/* @b in every lane: broadcast, not loaded (see qpu_emu_fmul16_1()). */
static AVX512 void fmul1_avx512(const u32 *a, u32 b, u32 *out)
{
	__m512i vb = zflush(_mm512_set1_epi32((int)b));

	zstore(out, _mm512_mul_round_ps(zload(a, 0), _mm512_castsi512_ps(vb),
					RZ));
}

static AVX512 void fadd_fmul1_avx512(const u32 *a, const u32 *b, u32 neg,
				     u32 *sum, u32 *flags, const u32 *c,
				     u32 d, u32 *prod)
{
	__m512 r = _mm512_add_round_ps(zload(a, 0), zload(b, neg), RZ);

	zstore(sum, r);
	if (flags)
		zstore(flags, r);
	fmul1_avx512(c, d, prod);
}

static AVX512 void ftoi_avx512(const u32 *pa, u32 *out)
{
	__m512i a = _mm512_loadu_si512(pa);
	__m512i r = _mm512_cvtt_roundps_epi32(_mm512_castsi512_ps(a),
					      _MM_FROUND_NO_EXC);
	/* out of range or NaN gave 0x80000000 */
	__mmask16 big = _mm512_cmpeq_epi32_mask(r,
			_mm512_set1_epi32((int)F_SIGN));
	__mmask16 pos = _mm512_cmpgt_epi32_mask(a, _mm512_set1_epi32(-1));

	r = _mm512_mask_mov_epi32(r, big & pos, _mm512_set1_epi32(F_ABS));
	r = _mm512_mask_mov_epi32(r, znan(a), _mm512_setzero_si512());
	_mm512_storeu_si512(out, r);
}

static AVX512 void itof_avx512(const u32 *a, u32 *out)
{
	__m512 r = _mm512_cvt_roundepi32_ps(_mm512_loadu_si512(a),
			_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);

	_mm512_storeu_si512(out, _mm512_castps_si512(r));
}

static inline AVX512 __m512i zkey(__m512i a)
{
	return _mm512_xor_si512(a, _mm512_and_si512(_mm512_srai_epi32(a, 31),
			_mm512_set1_epi32(F_ABS)));
}

static inline AVX512 u16 fminmax_avx512(const u32 *pa, const u32 *pb,
					u32 *out, bool max, bool abs)
{
	__m512i a = _mm512_loadu_si512(pa), b = _mm512_loadu_si512(pb);
	__mmask16 gt;

	if (abs) {
		a = _mm512_and_si512(a, _mm512_set1_epi32(F_ABS));
		b = _mm512_and_si512(b, _mm512_set1_epi32(F_ABS));
	}
	a = zflush(a);
	b = zflush(b);
	gt = _mm512_cmpgt_epi32_mask(zkey(a), zkey(b));
	_mm512_storeu_si512(out, _mm512_mask_mov_epi32(max ? b : a, gt,
						       max ? a : b));
	return gt;
}

static AVX512 u16 fminmax_avx512_op(const u32 *a, const u32 *b, u32 *out,
				    unsigned int op)
{
	switch (op) {
	case F_MIN:
		return fminmax_avx512(a, b, out, false, false);
	case F_MAX:
		return fminmax_avx512(a, b, out, true, false);
	case F_MINABS:
		return fminmax_avx512(a, b, out, false, true);
	default:
		return fminmax_avx512(a, b, out, true, true);
	}
}

/* --- SSE2 --- */

#define CSR_RZ_FTZ	0xff80u	/* exceptions masked, toward zero, FTZ */
#define CSR_RN		0x1f80u	/* exceptions masked, to nearest (default) */

/*
 * The float operations must run between the two MXCSR writes: each input
 * and result passes through an empty volatile asm, which the compiler
 * moves neither across another one nor across ldmxcsr.
 */
static inline v4f fpin(v4f v)
{
	__asm__ volatile("" : "+x"(v));
	return v;
}

static inline u32 csr_enter(u32 mode)
{
	u32 old = _mm_getcsr();

	if (old != mode)
		_mm_setcsr(mode);
	return old;
}

/* Restored even when the mode was right: the exception flags may not be. */
static inline void csr_leave(u32 old)
{
	_mm_setcsr(old);
}

static inline v4u vnan(v4u a)
{
	return (v4u)((v4s)(a & F_ABS) > (s32)F_INF);
}

/* Any NaN to QPU_EMU_F_QNAN (FTZ flushed the denormals). */
static inline v4u vqnan(v4u r)
{
	v4u nan = vnan(r);

	return (r & ~nan) | (QPU_EMU_F_QNAN & nan);
}

static void fadd_sse2(const u32 *pa, const u32 *pb, u32 neg, u32 *out)
{
	u32 csr = csr_enter(CSR_RZ_FTZ);
	unsigned int g;

	for (g = 0; g < 16; g += 4) {
		v4f a = fpin((v4f)vflush(vload(pa + g)));
		v4f b = fpin((v4f)vflush(vload(pb + g) ^ neg));

		vstore(out + g, vqnan((v4u)fpin(a + b)));
	}
	csr_leave(csr);
}

static void fadd2_sse2(const u32 *pa, const u32 *pb, u32 neg, u32 *out,
		       u32 *out2)
{
	u32 csr = csr_enter(CSR_RZ_FTZ);
	unsigned int g;

	for (g = 0; g < 16; g += 4) {
		v4f a = fpin((v4f)vflush(vload(pa + g)));
		v4f b = fpin((v4f)vflush(vload(pb + g) ^ neg));
		v4u r = vqnan((v4u)fpin(a + b));

		vstore(out + g, r);
		vstore(out2 + g, r);
	}
	csr_leave(csr);
}

static void fmul_sse2(const u32 *pa, const u32 *pb, u32 *out)
{
	u32 csr = csr_enter(CSR_RZ_FTZ);
	unsigned int g;

	for (g = 0; g < 16; g += 4) {
		v4f a = fpin((v4f)vflush(vload(pa + g)));
		v4f b = fpin((v4f)vflush(vload(pb + g)));

		vstore(out + g, vqnan((v4u)fpin(a * b)));
	}
	csr_leave(csr);
}

static void fmul1_sse2(const u32 *pa, u32 b, u32 *out)
{
	v4u vb = vflush((v4u){ b, b, b, b });
	u32 csr = csr_enter(CSR_RZ_FTZ);
	unsigned int g;

	for (g = 0; g < 16; g += 4) {
		v4f a = fpin((v4f)vflush(vload(pa + g)));

		vstore(out + g, vqnan((v4u)fpin(a * fpin((v4f)vb))));
	}
	csr_leave(csr);
}

static void fadd_fmul1_sse2(const u32 *pa, const u32 *pb, u32 neg,
			    u32 *sum, u32 *flags, const u32 *pc, u32 d,
			    u32 *prod)
{
	v4u vd = vflush((v4u){ d, d, d, d });
	u32 csr = csr_enter(CSR_RZ_FTZ);
	unsigned int g;

	for (g = 0; g < 16; g += 4) {
		v4f a = fpin((v4f)vflush(vload(pa + g)));
		v4f b = fpin((v4f)vflush(vload(pb + g) ^ neg));
		v4u r = vqnan((v4u)fpin(a + b));

		vstore(sum + g, r);
		if (flags)
			vstore(flags + g, r);
	}
	for (g = 0; g < 16; g += 4) {
		v4f c = fpin((v4f)vflush(vload(pc + g)));

		vstore(prod + g, vqnan((v4u)fpin(c * fpin((v4f)vd))));
	}
	csr_leave(csr);
}

static void ftoi_sse2(const u32 *pa, u32 *out)
{
	u32 csr = csr_enter(CSR_RN);
	unsigned int g;

	for (g = 0; g < 16; g += 4) {
		v4u a = vload(pa + g);
		v4u r = (v4u)_mm_cvttps_epi32((__m128)fpin((v4f)a));
		v4u nan = vnan(a), pos;

		r = (v4u)fpin((v4f)r);
		/* out of range or NaN gave 0x80000000 */
		pos = (v4u)(r == F_SIGN) & (v4u)((v4s)a >= 0) & ~nan;
		vstore(out + g, (r & ~nan & ~pos) | (pos & F_ABS));
	}
	csr_leave(csr);
}

static void itof_sse2(const u32 *pa, u32 *out)
{
	u32 csr = csr_enter(CSR_RN);
	unsigned int g;

	for (g = 0; g < 16; g += 4) {
		v4s a = (v4s)fpin((v4f)vload(pa + g));

		vstore(out + g, (v4u)fpin((v4f)_mm_cvtepi32_ps((__m128i)a)));
	}
	csr_leave(csr);
}

/* fmin, fmax, fminabs, fmaxabs: integers only, no MXCSR. */
static inline u16 fminmax_sse2(const u32 *pa, const u32 *pb, u32 *out,
			       bool max, bool abs)
{
	unsigned int g;
	u16 c = 0;

	for (g = 0; g < 16; g += 4) {
		v4u a = vload(pa + g), b = vload(pb + g), gt;
		v4s ka, kb;

		if (abs) {
			a &= F_ABS;
			b &= F_ABS;
		}
		a = vflush(a);
		b = vflush(b);
		ka = (v4s)a ^ (v4s)((v4u)((v4s)a >> 31) & F_ABS);
		kb = (v4s)b ^ (v4s)((v4u)((v4s)b >> 31) & F_ABS);
		gt = (v4u)(ka > kb);
		if (max)
			vstore(out + g, (a & gt) | (b & ~gt));
		else
			vstore(out + g, (b & gt) | (a & ~gt));
		c |= (u16)(_mm_movemask_ps((__m128)gt) << g);
	}
	return c;
}

static u16 fminmax_sse2_op(const u32 *a, const u32 *b, u32 *out,
			   unsigned int op)
{
	switch (op) {
	case F_MIN:
		return fminmax_sse2(a, b, out, false, false);
	case F_MAX:
		return fminmax_sse2(a, b, out, true, false);
	case F_MINABS:
		return fminmax_sse2(a, b, out, false, true);
	default:
		return fminmax_sse2(a, b, out, true, true);
	}
}

/* Each computes on the host's vector unit and returns true, or false. */
static bool simd_fadd(const u32 *a, const u32 *b, u32 neg, u32 *out)
{
	switch (simd_get()) {
	case PATH_AVX512:
		fadd_avx512(a, b, neg, out);
		return true;
	case PATH_SSE2:
		fadd_sse2(a, b, neg, out);
		return true;
	}
	return false;
}

static bool simd_fmul(const u32 *a, const u32 *b, u32 *out)
{
	switch (simd_get()) {
	case PATH_AVX512:
		fmul_avx512(a, b, out);
		return true;
	case PATH_SSE2:
		fmul_sse2(a, b, out);
		return true;
	}
	return false;
}

static bool simd_fadd2(const u32 *a, const u32 *b, u32 neg, u32 *out,
		       u32 *out2)
{
	switch (simd_get()) {
	case PATH_AVX512:
		fadd2_avx512(a, b, neg, out, out2);
		return true;
	case PATH_SSE2:
		fadd2_sse2(a, b, neg, out, out2);
		return true;
	}
	return false;
}

static bool simd_fmul1(const u32 *a, u32 b, u32 *out)
{
	switch (simd_get()) {
	case PATH_AVX512:
		fmul1_avx512(a, b, out);
		return true;
	case PATH_SSE2:
		fmul1_sse2(a, b, out);
		return true;
	}
	return false;
}

static bool simd_fadd_fmul1(const u32 *a, const u32 *b, u32 neg, u32 *sum,
			    u32 *flags, const u32 *c, u32 d, u32 *prod)
{
	switch (simd_get()) {
	case PATH_AVX512:
		fadd_fmul1_avx512(a, b, neg, sum, flags, c, d, prod);
		return true;
	case PATH_SSE2:
		fadd_fmul1_sse2(a, b, neg, sum, flags, c, d, prod);
		return true;
	}
	return false;
}

static bool simd_ftoi(const u32 *a, u32 *out)
{
	switch (simd_get()) {
	case PATH_AVX512:
		ftoi_avx512(a, out);
		return true;
	case PATH_SSE2:
		ftoi_sse2(a, out);
		return true;
	}
	return false;
}

static bool simd_itof(const u32 *a, u32 *out)
{
	switch (simd_get()) {
	case PATH_AVX512:
		itof_avx512(a, out);
		return true;
	case PATH_SSE2:
		itof_sse2(a, out);
		return true;
	}
	return false;
}

static bool simd_fminmax(const u32 *a, const u32 *b, u32 *out,
			 unsigned int op, u16 *c)
{
	switch (simd_get()) {
	case PATH_AVX512:
		*c = fminmax_avx512_op(a, b, out, op);
		return true;
	case PATH_SSE2:
		*c = fminmax_sse2_op(a, b, out, op);
		return true;
	}
	return false;
}
#else
#ifndef __KERNEL__
int qpu_emu_float_simd(int level)
{
	return 0;
}

int qpu_emu_float_simd_now(void)
{
	return 0;
}
#endif

static bool simd_fadd(const u32 *a, const u32 *b, u32 neg, u32 *out)
{
	return false;
}

static bool simd_fmul(const u32 *a, const u32 *b, u32 *out)
{
	return false;
}

static bool simd_fadd2(const u32 *a, const u32 *b, u32 neg, u32 *out,
		       u32 *out2)
{
	return false;
}

static bool simd_fmul1(const u32 *a, u32 b, u32 *out)
{
	return false;
}

static bool simd_fadd_fmul1(const u32 *a, const u32 *b, u32 neg, u32 *sum,
			    u32 *flags, const u32 *c, u32 d, u32 *prod)
{
	return false;
}

static bool simd_ftoi(const u32 *a, u32 *out)
{
	return false;
}

static bool simd_itof(const u32 *a, u32 *out)
{
	return false;
}

static bool simd_fminmax(const u32 *a, const u32 *b, u32 *out,
			 unsigned int op, u16 *c)
{
	return false;
}
#endif

void qpu_emu_fadd16(const u32 *a, const u32 *b, u32 neg, u32 *out)
{
	unsigned int i;

	if (simd_fadd(a, b, neg, out))
		return;
	for (i = 0; i < 16; i++)
		out[i] = qpu_emu_fadd_fast(a[i], b[i] ^ neg);
}

void qpu_emu_fmul16(const u32 *a, const u32 *b, u32 *out)
{
	unsigned int i;

	if (simd_fmul(a, b, out))
		return;
	for (i = 0; i < 16; i++)
		out[i] = qpu_emu_fmul_fast(a[i], b[i]);
}

void qpu_emu_fadd16_2(const u32 *a, const u32 *b, u32 neg, u32 *out,
		      u32 *out2)
{
	unsigned int i;

	if (simd_fadd2(a, b, neg, out, out2))
		return;
	for (i = 0; i < 16; i++) {
		out[i] = qpu_emu_fadd_fast(a[i], b[i] ^ neg);
		out2[i] = out[i];
	}
}

void qpu_emu_fmul16_1(const u32 *a, u32 b, u32 *out)
{
	unsigned int i;

	if (simd_fmul1(a, b, out))
		return;
	for (i = 0; i < 16; i++)
		out[i] = qpu_emu_fmul_fast(a[i], b);
}

void qpu_emu_fadd_fmul16_1(const u32 *a, const u32 *b, u32 neg, u32 *sum,
			   u32 *flags, const u32 *c, u32 d, u32 *prod)
{
	if (simd_fadd_fmul1(a, b, neg, sum, flags, c, d, prod))
		return;
	if (flags)
		qpu_emu_fadd16_2(a, b, neg, sum, flags);
	else
		qpu_emu_fadd16(a, b, neg, sum);
	qpu_emu_fmul16_1(c, d, prod);
}

void qpu_emu_ftoi16(const u32 *a, u32 *out)
{
	unsigned int i;

	if (simd_ftoi(a, out))
		return;
	for (i = 0; i < 16; i++)
		out[i] = qpu_emu_ftoi(a[i]);
}

void qpu_emu_itof16(const u32 *a, u32 *out)
{
	unsigned int i;

	if (simd_itof(a, out))
		return;
	for (i = 0; i < 16; i++)
		out[i] = qpu_emu_itof(a[i]);
}

/* The four below, lane by lane: flushed keys compared, the carries. */
static u16 fminmax16(const u32 *a, const u32 *b, u32 *out, unsigned int op)
{
	bool max = op & F_MAX, abs = op & F_MINABS;
	unsigned int i;
	u16 c = 0;

	if (simd_fminmax(a, b, out, op, &c))
		return c;
	for (i = 0; i < 16; i++) {
		u32 x = qpu_emu_fflush(abs ? a[i] & F_ABS : a[i]);
		u32 y = qpu_emu_fflush(abs ? b[i] & F_ABS : b[i]);
		bool gt = f_skey(x) > f_skey(y);

		out[i] = gt == max ? x : y;
		c |= (u16)(gt << i);
	}
	return c;
}

u16 qpu_emu_fmin16(const u32 *a, const u32 *b, u32 *out)
{
	return fminmax16(a, b, out, F_MIN);
}

u16 qpu_emu_fmax16(const u32 *a, const u32 *b, u32 *out)
{
	return fminmax16(a, b, out, F_MAX);
}

u16 qpu_emu_fminabs16(const u32 *a, const u32 *b, u32 *out)
{
	return fminmax16(a, b, out, F_MINABS);
}

u16 qpu_emu_fmaxabs16(const u32 *a, const u32 *b, u32 *out)
{
	return fminmax16(a, b, out, F_MAXABS);
}
