// SPDX-License-Identifier: MIT
/*
 * test-emu-float: the emulator's integer float operations against the
 * host's floats on millions of random inputs (normal numbers, results
 * outside the denormal range; fadd/fsub/fmul with the host rounding toward
 * zero like the QPU, itof to nearest), then the documented rules where the QPU
 * differs by design: denormal flushing, NaN, Inf, ftoi saturation, the
 * pack/unpack conversions, and the SFU functions within 1 ulp of a double
 * reference (recip exactly rounded). First, the emulator's inline fadd and
 * fmul fast paths and its 16-lane forms (on every path the host has, every
 * lane, under several caller MXCSR settings) against the functions they
 * stand in for.
 */
#include "qpu_emu_float.h"
#include "test-emu.h"

#define RANDOM_SEED	0x13198a2e03707344ull
#define RANDOM_PAIRS	3000000
#define SFU_SAMPLES	300000

static uint64_t rng = RANDOM_SEED;

/* Every case starts the sequence afresh: alone, it draws as in a full run. */
static void reseed(void)
{
	rng = RANDOM_SEED;
}

static uint32_t rnd32(void)
{
	return (uint32_t)(t_rand(&rng) >> 16);
}

/* A random normal float; exponents biased toward a window around 1. */
static uint32_t rnd_normal(void)
{
	uint32_t r = rnd32(), e;

	if (r & 1)
		e = 1 + (r >> 1) % 254;
	else
		e = 127 - 30 + (r >> 1) % 61;
	return (rnd32() & 0x80000000u) | e << 23 | (rnd32() & 0x7fffff);
}

static bool is_denormal_or_zero(float f)
{
	return !(t_f2u(f) & 0x7f800000u);
}

static bool is_special(float f)
{
	return (t_f2u(f) & 0x7f800000u) == 0x7f800000u;
}

static void report(const char *op, uint32_t a, uint32_t b, uint32_t exp,
		   uint32_t got)
{
	char m[160];

	snprintf(m, sizeof(m), "%s(%08x, %08x): expected %08x got %08x", op,
		 a, b, exp, got);
	t_report(__FILE__, __LINE__, m);
}

static void check(const char *op, uint32_t a, uint32_t b, uint32_t exp,
		  uint32_t got)
{
	t_checks++;
	if (exp != got)
		report(op, a, b, exp, got);
}

T_TEST(random_binary)
{
	if (!t_host_rtz(true)) {
		printf("no round-toward-zero on this host: fadd/fmul skipped\n");
		return;
	}
	for (long k = 0; k < RANDOM_PAIRS; k++) {
		uint32_t a = rnd_normal(), b = rnd_normal();
		float x = t_u2f(a), y = t_u2f(b), r;

		if (k & 1)	/* close exponents: cancellation */
			b = (b & 0x807fffffu) | (a & 0x7f800000u);
		y = t_u2f(b);
		r = x + y;
		if (!is_denormal_or_zero(r) || r == 0.0f)
			if (!is_special(r) || r == r)
				check("fadd", a, b, t_f2u(r),
				      qpu_emu_fadd(a, b));
		r = x - y;
		if (!is_denormal_or_zero(r) || r == 0.0f)
			check("fsub", a, b, t_f2u(r), qpu_emu_fsub(a, b));
		r = x * y;
		if (!is_denormal_or_zero(r))
			check("fmul", a, b, t_f2u(r), qpu_emu_fmul(a, b));
		check("fmin", a, b, t_f2u(x < y ? x : y), qpu_emu_fmin(a, b));
		check("fmax", a, b, t_f2u(x > y ? x : y), qpu_emu_fmax(a, b));
		if ((k & 15) == 0) {
			int32_t i = (int32_t)rnd32();

			check("itof", (uint32_t)i, 0, t_host_itof(i),
			      qpu_emu_itof((uint32_t)i));
			if (x > -2147483648.0f && x < 2147483648.0f)
				check("ftoi", a, 0, (uint32_t)(int32_t)x,
				      qpu_emu_ftoi(a));
		}
	}
	t_host_rtz(false);
}

T_TEST(rules)
{
	const uint32_t dn = 0x00000123u, ndn = 0x80400000u;
	const uint32_t one = 0x3f800000u, inf = 0x7f800000u;

	/* denormal inputs are zeros; tiny results flush to a signed zero */
	check("fadd", dn, dn, 0, qpu_emu_fadd(dn, dn));
	check("fadd", one, dn, one, qpu_emu_fadd(one, dn));
	check("fmul", ndn, one, 0x80000000u, qpu_emu_fmul(ndn, one));
	check("fmul", 0x1f800000u, 0x1f800000u, 0,
	      qpu_emu_fmul(0x1f800000u, 0x1f800000u));	/* 2^-128 */
	check("fmul", 0x9f800000u, 0x1f800000u, 0x80000000u,
	      qpu_emu_fmul(0x9f800000u, 0x1f800000u));
	check("fsub", 0x00800001u, 0x00800000u, 0,
	      qpu_emu_fsub(0x00800001u, 0x00800000u));
	check("fmin", dn, 0x80000000u, 0x80000000u,
	      qpu_emu_fmin(dn, 0x80000000u));
	check("fmax", 0x80000000u, 0, 0, qpu_emu_fmax(0x80000000u, 0));
	/* NaN and Inf */
	check("fadd", inf, inf | 0x80000000u, QPU_EMU_F_QNAN,
	      qpu_emu_fadd(inf, inf | 0x80000000u));
	check("fmul", inf, 0, QPU_EMU_F_QNAN, qpu_emu_fmul(inf, 0));
	check("fadd", 0x7f800001u, one, QPU_EMU_F_QNAN,
	      qpu_emu_fadd(0x7f800001u, one));
	/* round toward zero: overflow gives the largest finite value */
	check("fmul", 0x7f000000u, 0x7f000000u, 0x7f7fffffu,
	      qpu_emu_fmul(0x7f000000u, 0x7f000000u));
	check("fadd", 0xff7fffffu, 0xff7fffffu, 0xff7fffffu,
	      qpu_emu_fadd(0xff7fffffu, 0xff7fffffu));
	check("fmul", inf, t_f2u(-2.0f), inf | 0x80000000u,
	      qpu_emu_fmul(inf, t_f2u(-2.0f)));
	/* and truncates where nearest would round up: 1 + 1.5 ulp / 2 */
	check("fadd", one, 0x33c00000u, one, qpu_emu_fadd(one, 0x33c00000u));
	check("fsub", t_f2u(-1.0f), 0x33c00000u, t_f2u(-1.0f),
	      qpu_emu_fsub(t_f2u(-1.0f), 0x33c00000u));
	check("fmul", 0x3fc00000u, 0x3f800001u, 0x3fc00001u,
	      qpu_emu_fmul(0x3fc00000u, 0x3f800001u));
	/* ftoi: truncation, saturation, NaN */
	check("ftoi", t_f2u(-2.75f), 0, (uint32_t)-2,
	      qpu_emu_ftoi(t_f2u(-2.75f)));
	check("ftoi", t_f2u(3e9f), 0, 0x7fffffffu, qpu_emu_ftoi(t_f2u(3e9f)));
	check("ftoi", t_f2u(-3e9f), 0, 0x80000000u,
	      qpu_emu_ftoi(t_f2u(-3e9f)));
	check("ftoi", t_f2u(-2147483648.0f), 0, 0x80000000u,
	      qpu_emu_ftoi(t_f2u(-2147483648.0f)));
	check("ftoi", QPU_EMU_F_QNAN, 0, 0, qpu_emu_ftoi(QPU_EMU_F_QNAN));
	/* itof rounds to nearest even */
	check("itof", 16777217, 0, t_f2u(16777216.0f), qpu_emu_itof(16777217));
	check("itof", 16777219, 0, t_f2u(16777220.0f), qpu_emu_itof(16777219));
	check("itof", 0x80000000u, 0, 0xcf000000u,
	      qpu_emu_itof(0x80000000u));
	/* half and unorm8 conversions */
	check("f16", one, 0, 0x3c00, qpu_emu_f32_to_f16(one));
	check("f16", t_f2u(65520.0f), 0, 0x7c00,
	      qpu_emu_f32_to_f16(t_f2u(65520.0f)));
	check("f16", t_f2u(-0.1f), 0, 0xae66, qpu_emu_f32_to_f16(t_f2u(-0.1f)));
	check("f16>f32", 0xc500, 0, t_f2u(-5.0f), qpu_emu_f16_to_f32(0xc500));
	for (uint32_t h = 0; h < 0x7c00; h++) {
		uint32_t f = qpu_emu_f16_to_f32(h);

		if (h >= 0x400)
			check("f16 round trip", h, f, h, qpu_emu_f32_to_f16(f));
	}
	for (uint32_t b = 0; b < 256; b++) {
		float f = (float)((double)b / 255.0);

		check("unorm8>f32", b, 0, t_f2u(f), qpu_emu_unorm8_to_f32(b));
		check("f32>unorm8", t_f2u(f), 0, b,
		      qpu_emu_f32_to_unorm8(t_f2u(f)));
	}
	check("f32>unorm8", t_f2u(-1.0f), 0, 0,
	      qpu_emu_f32_to_unorm8(t_f2u(-1.0f)));
	check("f32>unorm8", t_f2u(7.0f), 0, 255,
	      qpu_emu_f32_to_unorm8(t_f2u(7.0f)));
}

/* --- double references without libm ------------------------------------- */

static double ref_log2(double y)
{
	int e = 0;
	double t, t2, s = 0, p;

	while (y >= 2) {
		y /= 2;
		e++;
	}
	while (y < 1) {
		y *= 2;
		e--;
	}
	t = (y - 1) / (y + 1);
	t2 = t * t;
	p = t;
	for (int k = 1; k < 60; k += 2) {
		s += p / k;
		p *= t2;
	}
	return e + 2 * s / 0.69314718055994530942;
}

static double ref_exp2(double x)
{
	double i = (double)(long)x, f, term = 1, s = 1;

	if (x < i)
		i -= 1;
	f = (x - i) * 0.69314718055994530942;
	for (int k = 1; k < 30; k++) {
		term *= f / k;
		s += term;
	}
	while (i > 0) {
		s *= 2;
		i--;
	}
	while (i < 0) {
		s /= 2;
		i++;
	}
	return s;
}

static double ref_rsqrt(double x)
{
	double y = 1;

	while (y * y * x > 2)
		y /= 2;
	while (y * y * x < 0.5)
		y *= 2;
	for (int k = 0; k < 60; k++)
		y = y * (1.5 - 0.5 * x * y * y);
	return y;
}

/* Error of @got against @exact in units of the last place of @got. */
static double ulps(uint32_t got, double exact)
{
	float g = t_u2f(got);
	uint32_t e = (got >> 23) & 0xff;
	double ulp = 1;
	double d = g - exact;

	for (int k = (int)e - 150; k > 0; k--)
		ulp *= 2;
	for (int k = (int)e - 150; k < 0; k++)
		ulp /= 2;
	return (d < 0 ? -d : d) / ulp;
}

static void check_ulp(const char *op, uint32_t a, uint32_t got, double exact,
		      double max)
{
	t_checks++;
	if (ulps(got, exact) > max) {
		char m[160];

		snprintf(m, sizeof(m), "%s(%08x) = %08x: %.3f ulp from %.9g",
			 op, a, got, ulps(got, exact), exact);
		t_report(__FILE__, __LINE__, m);
	}
}

T_TEST(sfu)
{
	double worst[4] = { 0 };

	for (long k = 0; k < SFU_SAMPLES; k++) {
		uint32_t a = rnd_normal();
		float x = t_u2f(a);
		uint32_t pos = a & 0x7fffffffu;
		float px = t_u2f(pos);
		uint32_t r;
		float e;

		/* recip: correctly rounded, unless the result is denormal */
		e = 1.0f / x;
		if (!is_denormal_or_zero(e))
			check("recip", a, 0, t_f2u(e), qpu_emu_recip(a));
		r = qpu_emu_recipsqrt(pos);
		check_ulp("recipsqrt", pos, r, ref_rsqrt(px), 1.0);
		if (ulps(r, ref_rsqrt(px)) > worst[0])
			worst[0] = ulps(r, ref_rsqrt(px));
		/* recipsqrt and log2 ignore the sign (PyVideoCore's errata) */
		check("recipsqrt", a, 0, r, qpu_emu_recipsqrt(a));
		r = qpu_emu_log2(pos);
		check("log2", a, 0, r, qpu_emu_log2(a));
		if (px != 1.0f) {
			check_ulp("log2", pos, r, ref_log2(px), 1.0);
			if (ulps(r, ref_log2(px)) > worst[1])
				worst[1] = ulps(r, ref_log2(px));
		}
		/* exp2 over its useful range, -126 < x < 128 */
		a = (rnd32() & 0x80000000u) | ((117 + rnd32() % 13) << 23) |
			(rnd32() & 0x7fffff);
		x = t_u2f(a);
		if (x > -126.0f && x < 128.0f) {
			r = qpu_emu_exp2(a);
			check_ulp("exp2", a, r, ref_exp2(x), 1.0);
			if (ulps(r, ref_exp2(x)) > worst[2])
				worst[2] = ulps(r, ref_exp2(x));
		}
	}
	printf("sfu worst errors (ulp): recipsqrt %.3f log2 %.3f exp2 %.3f\n",
	       worst[0], worst[1], worst[2]);
	/* exact points and special values */
	check("recip", t_f2u(4.0f), 0, t_f2u(0.25f), qpu_emu_recip(t_f2u(4.0f)));
	check("recip", 0x80000000u, 0, 0xff800000u, qpu_emu_recip(0x80000000u));
	check("recip", 0x7f800000u, 0, 0, qpu_emu_recip(0x7f800000u));
	check("recipsqrt", t_f2u(16.0f), 0, t_f2u(0.25f),
	      qpu_emu_recipsqrt(t_f2u(16.0f)));
	check("recipsqrt", t_f2u(-16.0f), 0, t_f2u(0.25f),
	      qpu_emu_recipsqrt(t_f2u(-16.0f)));
	check("recipsqrt", 0, 0, 0x7f800000u, qpu_emu_recipsqrt(0));
	check("exp2", t_f2u(10.0f), 0, t_f2u(1024.0f),
	      qpu_emu_exp2(t_f2u(10.0f)));
	check("exp2", t_f2u(-3.0f), 0, t_f2u(0.125f),
	      qpu_emu_exp2(t_f2u(-3.0f)));
	check("exp2", t_f2u(0.5f), 0, 0x3fb504f3u, qpu_emu_exp2(t_f2u(0.5f)));
	check("exp2", t_f2u(200.0f), 0, 0x7f800000u,
	      qpu_emu_exp2(t_f2u(200.0f)));
	check("exp2", t_f2u(-200.0f), 0, 0, qpu_emu_exp2(t_f2u(-200.0f)));
	check("log2", t_f2u(1.0f), 0, 0, qpu_emu_log2(t_f2u(1.0f)));
	check("log2", t_f2u(0.25f), 0, t_f2u(-2.0f),
	      qpu_emu_log2(t_f2u(0.25f)));
	check("log2", t_f2u(1024.0f), 0, t_f2u(10.0f),
	      qpu_emu_log2(t_f2u(1024.0f)));
	check("log2", 0, 0, 0xff800000u, qpu_emu_log2(0));
	check("log2", t_f2u(-1024.0f), 0, t_f2u(10.0f),
	      qpu_emu_log2(t_f2u(-1024.0f)));
}

/*
 * The emulator's fast paths (qpu_emu_fadd_fast, qpu_emu_fmul_fast and the
 * 16-lane qpu_emu_fadd16, qpu_emu_fmul16, with AVX2 on hosts that have it)
 * must agree bit for bit with the functions they fall back to: random
 * words (every class: zeros, denormals, Inf, NaN), random normals, close
 * exponents (cancellation), exponents near both ends of the range, and
 * fsub as fadd of the negated operand, as the lane loops compute it.
 */
T_TEST(fast_paths)
{
	uint32_t va[16], vb[16], vs[16], vm[16];

	for (long k = 0; k < RANDOM_PAIRS; k++) {
		uint32_t a = k & 1 ? rnd32() : rnd_normal();
		uint32_t b = k & 2 ? rnd32() : rnd_normal();

		switch (k & 12) {
		case 12:	/* zeros and denormals */
			if (k & 16)
				a &= 0x807fffffu;
			if (k & 32)
				b &= k & 64 ? 0x80000000u : 0x807fffffu;
			break;
		case 4:		/* same exponent */
			b = (b & 0x807fffffu) | (a & 0x7f800000u);
			break;
		case 8:		/* near overflow or underflow */
			a = (a & 0x807fffffu) | (k & 16 ? 0x7e800000u :
						   0x00800000u);
			b = (b & 0x807fffffu) | (rnd32() % 3 + 126) << 23;
			break;
		default:
			break;
		}
		check("fadd fast", a, b, qpu_emu_fadd(a, b),
		      qpu_emu_fadd_fast(a, b));
		check("fsub fast", a, b, qpu_emu_fsub(a, b),
		      qpu_emu_fadd_fast(a, b ^ 0x80000000u));
		check("fmul fast", a, b, qpu_emu_fmul(a, b),
		      qpu_emu_fmul_fast(a, b));
		/* every 16 pairs, the 16-lane forms (SIMD where the host has it) */
		va[k & 15] = a;
		vb[k & 15] = b;
		if ((k & 15) != 15)
			continue;
		qpu_emu_fadd16(va, vb, k & 16 ? 0x80000000u : 0, vs);
		qpu_emu_fmul16(va, vb, vm);
		for (int i = 0; i < 16; i++) {
			if (k & 16)
				check("fsub16", va[i], vb[i],
				      qpu_emu_fsub(va[i], vb[i]), vs[i]);
			else
				check("fadd16", va[i], vb[i],
				      qpu_emu_fadd(va[i], vb[i]), vs[i]);
			check("fmul16", va[i], vb[i],
			      qpu_emu_fmul(va[i], vb[i]), vm[i]);
		}
	}
}

/* Words of every class, for the 16-lane forms below. */
static const uint32_t specials[] = {
	0x00000000u, 0x80000000u, 0x00000001u, 0x807fffffu, 0x00400000u,
	0x00800000u, 0x80800000u, 0x00800001u, 0x01000000u, 0x3f800000u,
	0xbf800000u, 0x3f7fffffu, 0x3f800001u, 0x33c00000u, 0x4effffffu,
	0x4f000000u, 0xcf000000u, 0xcf000001u, 0x4f800000u, 0x7f7fffffu,
	0xff7fffffu, 0x7f000000u, 0x7f800000u, 0xff800000u, 0x7f800001u,
	0x7fc00000u, 0xffc00000u, 0x7fffffffu, 0xffffffffu, 0xff800001u,
	0x1f800000u, 0x9f800000u, 0x00000123u, 0x80400000u, 0x7fffff80u,
	0x80000001u,
};

#define NSPECIALS	(sizeof(specials) / sizeof(specials[0]))

/* A word of a random class: a special, a normal, any bits, or near one. */
static uint32_t rnd_any(uint32_t near)
{
	switch (rnd32() % 8) {
	case 0:
		return specials[rnd32() % NSPECIALS];
	case 1:
		return rnd32();
	case 2:		/* zeros and denormals */
		return rnd32() & 0x807fffffu;
	case 3:		/* the exponent of @near: cancellation */
		return (rnd32() & 0x807fffffu) | (near & 0x7f800000u);
	case 4:		/* near the top or the bottom of the range */
		return (rnd32() & 0x807fffffu) |
			(rnd32() % 4 + (rnd32() & 1 ? 0 : 250)) << 23;
	case 5:		/* one ulp away, either sign */
		return ((near + (rnd32() % 3) - 1) ^ (rnd32() & 0x80000000u));
	case 6:		/* ftoi and itof edges */
		return (rnd32() & 0x80000000u) | (156 + rnd32() % 3) << 23 |
			(rnd32() & 0x7fffffu);
	default:
		return rnd_normal();
	}
}

#if defined(__x86_64__)
static unsigned int csr_get(void)
{
	return __builtin_ia32_stmxcsr();
}

static void csr_set(unsigned int v)
{
	__builtin_ia32_ldmxcsr(v);
}
#else
static unsigned int csr_get(void)
{
	return 0;
}

static void csr_set(unsigned int v)
{
	(void)v;
}
#endif

static void check_lane(const char *path, const char *op, int lane,
		       uint32_t a, uint32_t b, uint32_t exp, uint32_t got)
{
	char m[64];

	t_checks++;
	if (exp == got)
		return;
	snprintf(m, sizeof(m), "%s %s lane %d", op, path, lane);
	report(m, a, b, exp, got);
}

/*
 * All the 16-lane forms on @va, @vb against the scalar functions; the
 * one-value fmul with a lane of @vb picked by the inputs, so over many
 * calls every class is the value; the fused fadd and fmul with the
 * product into another vector and into the sum's own.
 */
static void check16(const char *path, const uint32_t *va, const uint32_t *vb)
{
	uint32_t s[16], d[16], m[16], t[16], f[16], mm[4][16];
	uint32_t s2[2][16], d2[2][16], m1[16], one = vb[(va[1] ^ vb[2]) & 15];
	uint32_t sp[4][16];
	uint16_t c[4];

	qpu_emu_fadd16_2(va, vb, 0, s2[0], s2[1]);
	qpu_emu_fadd16_2(va, vb, 0x80000000u, d2[0], d2[1]);
	qpu_emu_fmul16_1(va, one, m1);
	/* an sgemm step: the sum and its flag copy, then the product */
	qpu_emu_fadd_fmul16_1(va, vb, 0, sp[0], sp[1], vb, va[3], sp[2]);
	qpu_emu_fadd_fmul16_1(va, vb, 0x80000000u, sp[3], NULL, va, one,
			      sp[3]);
	qpu_emu_fadd16(va, vb, 0, s);
	qpu_emu_fadd16(va, vb, 0x80000000u, d);
	qpu_emu_fmul16(va, vb, m);
	qpu_emu_ftoi16(va, t);
	qpu_emu_itof16(va, f);
	c[0] = qpu_emu_fmin16(va, vb, mm[0]);
	c[1] = qpu_emu_fmax16(va, vb, mm[1]);
	c[2] = qpu_emu_fminabs16(va, vb, mm[2]);
	c[3] = qpu_emu_fmaxabs16(va, vb, mm[3]);
	for (int i = 0; i < 16; i++) {
		uint32_t a = va[i], b = vb[i];
		uint32_t gt = qpu_emu_fgt(a, b);
		uint32_t gtabs = qpu_emu_fgt(a & 0x7fffffffu, b & 0x7fffffffu);

		check_lane(path, "fadd16", i, a, b, qpu_emu_fadd(a, b), s[i]);
		check_lane(path, "fsub16", i, a, b, qpu_emu_fsub(a, b), d[i]);
		check_lane(path, "fmul16", i, a, b, qpu_emu_fmul(a, b), m[i]);
		for (int k = 0; k < 2; k++) {
			check_lane(path, "fadd16_2", i, a, b,
				   qpu_emu_fadd(a, b), s2[k][i]);
			check_lane(path, "fsub16_2", i, a, b,
				   qpu_emu_fsub(a, b), d2[k][i]);
		}
		check_lane(path, "fmul16_1", i, a, one, qpu_emu_fmul(a, one),
			   m1[i]);
		check_lane(path, "fadd_fmul16_1 sum", i, a, b,
			   qpu_emu_fadd(a, b), sp[0][i]);
		check_lane(path, "fadd_fmul16_1 flags", i, a, b,
			   qpu_emu_fadd(a, b), sp[1][i]);
		check_lane(path, "fadd_fmul16_1 prod", i, b, va[3],
			   qpu_emu_fmul(b, va[3]), sp[2][i]);
		check_lane(path, "fsub_fmul16_1 prod", i, a, one,
			   qpu_emu_fmul(a, one), sp[3][i]);
		check_lane(path, "ftoi16", i, a, 0, qpu_emu_ftoi(a), t[i]);
		check_lane(path, "itof16", i, a, 0, qpu_emu_itof(a), f[i]);
		check_lane(path, "fmin16", i, a, b, qpu_emu_fmin(a, b),
			   mm[0][i]);
		check_lane(path, "fmax16", i, a, b, qpu_emu_fmax(a, b),
			   mm[1][i]);
		check_lane(path, "fminabs16", i, a, b, qpu_emu_fminabs(a, b),
			   mm[2][i]);
		check_lane(path, "fmaxabs16", i, a, b, qpu_emu_fmaxabs(a, b),
			   mm[3][i]);
		check_lane(path, "fmin16 carry", i, a, b, gt, c[0] >> i & 1);
		check_lane(path, "fmax16 carry", i, a, b, gt, c[1] >> i & 1);
		check_lane(path, "fminabs16 carry", i, a, b, gtabs,
			   c[2] >> i & 1);
		check_lane(path, "fmaxabs16 carry", i, a, b, gtabs,
			   c[3] >> i & 1);
	}
}

/*
 * The 16-lane forms on every path this host has (lane by lane as the
 * kernel runs them, SSE2, AVX-512), every class of input on every lane,
 * and the caller's MXCSR (rounding mode, FTZ, DAZ, unmasked exceptions)
 * neither changing a result nor changed.
 */
T_TEST(simd_paths)
{
	static const unsigned int csrs[] = {
		0x1f80, 0x9fc0, 0x3f80, 0x5f80, 0x7f80, 0x0000,
	};
	int top = qpu_emu_float_simd(-1);

	for (int level = 0; level <= top; level++) {
		char path[16];
		uint32_t va[16], vb[16];
		unsigned int saved = csr_get();

		snprintf(path, sizeof(path), "path %d", qpu_emu_float_simd(level));
		/* every pair of specials in every lane, the others random */
		for (unsigned int s = 0; s < NSPECIALS * NSPECIALS; s++) {
			for (int i = 0; i < 16; i++) {
				va[i] = rnd_any(0);
				vb[i] = rnd_any(va[i]);
			}
			va[s % 16] = specials[s / NSPECIALS];
			vb[s % 16] = specials[s % NSPECIALS];
			va[(s + 5) % 16] = specials[s % NSPECIALS];
			vb[(s + 5) % 16] = specials[(s / NSPECIALS + s) %
						    NSPECIALS];
			check16(path, va, vb);
		}
		/* random classes on every lane, under each MXCSR */
		for (long k = 0; k < RANDOM_PAIRS / 16; k++) {
			unsigned int csr = csrs[k % 6];

			for (int i = 0; i < 16; i++) {
				va[i] = rnd_any(0);
				vb[i] = rnd_any(va[i]);
			}
			csr_set(csr);
			check16(path, va, vb);
			t_checks++;
			if (csr_get() != csr)
				report("mxcsr", csr, 0, csr, csr_get());
			csr_set(saved);
		}
	}
	qpu_emu_float_simd(-1);
	printf("16-lane forms: paths 0..%d checked\n", top);
}

T_MAIN(.before = reseed)
