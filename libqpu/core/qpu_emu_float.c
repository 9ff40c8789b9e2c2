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
 *   rounding), so results are within 1 ulp of the exact value.
 * - Speed: fadd and fmul also have inline fast paths (qpu_emu_float.h) and
 *   16-lane forms (the end of this file); they compute normal numbers only
 *   and hand every other case to the functions here, so the rules above
 *   hold on every path (test-emu-float compares them bit for bit).
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

u32 qpu_emu_recipsqrt(u32 a)
{
	u32 rem;
	u64 m, y, r;
	int k;

	a = qpu_emu_fflush(a);
	if (f_is_nan(a))
		return QPU_EMU_F_QNAN;
	if (f_is_zero(a))
		return (a & F_SIGN) | F_INF;
	if (a & F_SIGN)
		return QPU_EMU_F_QNAN;
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

u32 qpu_emu_log2(u32 a)
{
	u64 y, frac = 0, mag;
	s64 v;
	int k;

	a = qpu_emu_fflush(a);
	if (f_is_nan(a))
		return QPU_EMU_F_QNAN;
	if (f_is_zero(a))
		return F_SIGN | F_INF;
	if (a & F_SIGN)
		return QPU_EMU_F_QNAN;
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
 * 16 lanes at once, for the emulator's lane loops, with AVX2 where libqpu
 * runs on an x86-64 host that has it (checked at run time; the kernel and
 * other hosts run qpu_emu_fadd_fast() and qpu_emu_fmul_fast() lane by
 * lane). Four lanes at a time in 64-bit elements, the same steps as those
 * two without branches, and zero or denormal inputs (flushed: fmul gives a
 * signed zero, fadd the other input) handled too: a lane they would hand
 * to the full function (an Inf or NaN input, a result out of range, fadd
 * of opposite signs with exponents less than 2 apart, whose result needs a
 * leading-zero count) is marked in the returned mask and computed by it
 * afterwards.
 * test-emu-float compares every path bit for bit.
 */
#if !defined(__KERNEL__) && defined(__x86_64__)
/*
 * The vectors are of u64 (AVX2 shifts them natively; every value stays
 * below 2^58). A comparison gives a mask of -1 or 0 per element.
 */
static __attribute__((target("avx2"))) u16
fadd_avx2(const u32 *pa, const u32 *pb, u32 *out, u32 neg)
{
	unsigned int g, k;
	u16 slow = 0;

	for (g = 0; g < 16; g += 4) {
		u32 __attribute__((vector_size(16))) a32, b32, r32;
		u64 __attribute__((vector_size(32))) a, b, hi, lo, eh, el, d, sub;
		u64 __attribute__((vector_size(32))) bad, mh, ml, big, sh, m, p;
		u64 __attribute__((vector_size(32))) swap, e, r, za, zb, inf;

		__builtin_memcpy(&a32, pa + g, sizeof(a32));
		__builtin_memcpy(&b32, pb + g, sizeof(b32));
		a = __builtin_convertvector(a32, __typeof__(a));
		b = __builtin_convertvector(b32, __typeof__(b)) ^ neg;
		swap = (__typeof__(a))((a & 0x7fffffff) < (b & 0x7fffffff));
		hi = (b & swap) | (a & ~swap);
		lo = (a & swap) | (b & ~swap);
		eh = (hi >> 23) & 0xff;
		el = (lo >> 23) & 0xff;
		d = eh - el;
		sub = (__typeof__(a))(((a ^ b) & 0x80000000u) != 0);
		bad = (__typeof__(a))(eh - 1 > 253);
		bad |= (__typeof__(a))(el - 1 > 253);
		bad |= sub & (__typeof__(a))(d <= 1);
		/* a zero or denormal input (flushed to zero): the other one */
		za = (__typeof__(a))((a & 0x7f800000) == 0);
		zb = (__typeof__(a))((b & 0x7f800000) == 0);
		inf = (__typeof__(a))((a & 0x7f800000) == 0x7f800000);
		inf |= (__typeof__(a))((b & 0x7f800000) == 0x7f800000);
		mh = ((hi & 0x7fffff) | 0x800000) << 32;
		ml = ((lo & 0x7fffff) | 0x800000) << 32;
		big = (__typeof__(a))(d > 63);
		d = (63 & big) | (d & ~big);
		sh = ml >> d;
		m = sh | ((__typeof__(a))((sh << d) != ml) & 1);	/* sticky */
		m = ((mh - m) & sub) | ((mh + m) & ~sub);
		p = 54 + (((m >> 55) & 1) | m >> 56) + (m >> 56);	/* msb */
		e = eh + p - 55;
		bad |= (__typeof__(a))(e - 1 > 253);
		r = (hi & 0x80000000u) | e << 23 | ((m >> (p - 23)) & 0x7fffff);
		r = (r & ~(za | zb)) | (b & za & ~zb) | (a & zb & ~za) |
			(a & b & 0x80000000u & za & zb);
		bad = (bad & ~(za | zb)) | inf;
		r32 = __builtin_convertvector(r, __typeof__(r32));
		__builtin_memcpy(out + g, &r32, sizeof(r32));
		for (k = 0; k < 4; k++)
			slow |= (u16)((bad[k] & 1) << (g + k));
	}
	return slow;
}

static __attribute__((target("avx2"))) u16
fmul_avx2(const u32 *pa, const u32 *pb, u32 *out)
{
	unsigned int g, k;
	u16 slow = 0;

	for (g = 0; g < 16; g += 4) {
		u32 __attribute__((vector_size(16))) a32, b32, r32;
		u64 __attribute__((vector_size(32))) a, b, ea, eb, m, top, e;
		u64 __attribute__((vector_size(32))) bad, r, z, inf;

		__builtin_memcpy(&a32, pa + g, sizeof(a32));
		__builtin_memcpy(&b32, pb + g, sizeof(b32));
		a = __builtin_convertvector(a32, __typeof__(a));
		b = __builtin_convertvector(b32, __typeof__(b));
		ea = (a >> 23) & 0xff;
		eb = (b >> 23) & 0xff;
		m = ((a & 0x7fffff) | 0x800000) * ((b & 0x7fffff) | 0x800000);
		top = m >> 47;
		e = ea + eb - 127 + top;
		bad = (__typeof__(a))(ea - 1 > 253);
		bad |= (__typeof__(a))(eb - 1 > 253);
		bad |= (__typeof__(a))(e - 1 > 253);
		r = ((a ^ b) & 0x80000000u) | e << 23 |
			((m >> (23 + top)) & 0x7fffff);
		/* a zero or denormal times a finite number: a signed zero */
		z = (__typeof__(a))(ea == 0) | (__typeof__(a))(eb == 0);
		inf = (__typeof__(a))(ea == 255) | (__typeof__(a))(eb == 255);
		r = (r & ~z) | ((a ^ b) & 0x80000000u & z);
		bad = (bad & ~z) | inf;
		r32 = __builtin_convertvector(r, __typeof__(r32));
		__builtin_memcpy(out + g, &r32, sizeof(r32));
		for (k = 0; k < 4; k++)
			slow |= (u16)((bad[k] & 1) << (g + k));
	}
	return slow;
}

static bool simd_ok(void)
{
	return __builtin_cpu_supports("avx2");
}
#else
static u16 fadd_avx2(const u32 *a, const u32 *b, u32 *out, u32 neg)
{
	return 0xffff;
}

static u16 fmul_avx2(const u32 *a, const u32 *b, u32 *out)
{
	return 0xffff;
}

static bool simd_ok(void)
{
	return false;
}
#endif

void qpu_emu_fadd16(const u32 *a, const u32 *b, u32 neg, u32 *out)
{
	unsigned int i;
	u16 slow;

	if (!simd_ok()) {
		for (i = 0; i < 16; i++)
			out[i] = qpu_emu_fadd_fast(a[i], b[i] ^ neg);
		return;
	}
	slow = fadd_avx2(a, b, out, neg);
	for (i = 0; slow && i < 16; i++)
		if (slow & (1u << i))
			out[i] = qpu_emu_fadd(a[i], b[i] ^ neg);
}

void qpu_emu_fmul16(const u32 *a, const u32 *b, u32 *out)
{
	unsigned int i;
	u16 slow;

	if (!simd_ok()) {
		for (i = 0; i < 16; i++)
			out[i] = qpu_emu_fmul_fast(a[i], b[i]);
		return;
	}
	slow = fmul_avx2(a, b, out);
	for (i = 0; slow && i < 16; i++)
		if (slow & (1u << i))
			out[i] = qpu_emu_fmul(a[i], b[i]);
}
