/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * The QPU's float arithmetic on IEEE-754 single bit patterns, computed with
 * integers only (the kernel build has no FPU). Shared by the emulator and its
 * tests; the rules (denormal flushing, rounding, NaN/Inf handling, SFU
 * precision) are stated in qpu_emu_float.c.
 */
#ifndef QPU_EMU_FLOAT_H
#define QPU_EMU_FLOAT_H

#include "qpu_types.h"

#define QPU_EMU_F_QNAN	0x7fc00000u

u32 qpu_emu_fadd(u32 a, u32 b);
u32 qpu_emu_fsub(u32 a, u32 b);
u32 qpu_emu_fmul(u32 a, u32 b);
u32 qpu_emu_fmin(u32 a, u32 b);
u32 qpu_emu_fmax(u32 a, u32 b);
u32 qpu_emu_fminabs(u32 a, u32 b);
u32 qpu_emu_fmaxabs(u32 a, u32 b);
/* True when float @a orders after float @b (after flushing). */
bool qpu_emu_fgt(u32 a, u32 b);
u32 qpu_emu_ftoi(u32 a);
u32 qpu_emu_itof(u32 a);

/* SFU: 1/x, 1/sqrt(|x|), 2^x, log2(|x|). */
u32 qpu_emu_recip(u32 a);
u32 qpu_emu_recipsqrt(u32 a);
u32 qpu_emu_exp2(u32 a);
u32 qpu_emu_log2(u32 a);

/* Conversions used by pack and unpack. */
u32 qpu_emu_f32_to_f16(u32 a);
u32 qpu_emu_f16_to_f32(u32 h);
u32 qpu_emu_f32_to_unorm8(u32 a);
u32 qpu_emu_unorm8_to_f32(u32 b);

/*
 * sign * @m * 2^@lsb_exp as a float: ties to even (Inf on overflow), or
 * with @rtz toward zero (the largest finite value on overflow); below the
 * normal range a zero of that sign. The rounding step of every float op,
 * shared with V3D's emulator, whose ALU rounds to nearest.
 */
u32 qpu_emu_round_pack(u32 sign, int lsb_exp, u64 m, bool rtz);

/* Denormals become a zero of the same sign. */
u32 qpu_emu_fflush(u32 a);

/*
 * 16 lanes: @out[i] = fadd(@a[i], @b[i] ^ @neg) (@neg 0, or 0x80000000
 * for fsub), @out[i] = fmul(@a[i], @b[i]) and so on; @out must not overlap
 * the inputs. The min and max forms return the carries, bit i set when
 * lane i of @a orders after that of @b (after flushing, and for the abs
 * forms after clearing the signs). Bit for bit the functions above, faster.
 */
void qpu_emu_fadd16(const u32 *a, const u32 *b, u32 neg, u32 *out);
void qpu_emu_fmul16(const u32 *a, const u32 *b, u32 *out);
/*
 * qpu_emu_fadd16() into @out and @out2 (a setf's copy) from the host's
 * register, not copied from @out right after the wide store that wrote it.
 */
void qpu_emu_fadd16_2(const u32 *a, const u32 *b, u32 neg, u32 *out,
		      u32 *out2);
/*
 * qpu_emu_fmul16() of @a and @b in every lane (a uniform or small
 * immediate): the vector code broadcasts @b instead of loading a vector
 * just stored lane by lane, which the host cannot forward to a wide load.
 */
void qpu_emu_fmul16_1(const u32 *a, u32 b, u32 *out);
/*
 * An sgemm step in one call: qpu_emu_fadd16_2() (qpu_emu_fadd16() if
 * @flags is NULL) into @sum, then qpu_emu_fmul16_1() of @c and @d into
 * @prod, which may be @sum; @c must not be.
 */
void qpu_emu_fadd_fmul16_1(const u32 *a, const u32 *b, u32 neg, u32 *sum,
			   u32 *flags, const u32 *c, u32 d, u32 *prod);
u16 qpu_emu_fmin16(const u32 *a, const u32 *b, u32 *out);
u16 qpu_emu_fmax16(const u32 *a, const u32 *b, u32 *out);
u16 qpu_emu_fminabs16(const u32 *a, const u32 *b, u32 *out);
u16 qpu_emu_fmaxabs16(const u32 *a, const u32 *b, u32 *out);
void qpu_emu_ftoi16(const u32 *a, u32 *out);
void qpu_emu_itof16(const u32 *a, u32 *out);

#ifndef __KERNEL__
/*
 * For tests: which form of the 16-lane functions userspace runs. 0 is
 * the lane by lane code the kernel runs; on x86-64 hosts 1 is SSE2 and 2
 * AVX-512. The default, and what a level below 0 or above what the host
 * has selects, is the best the host has. Returns the level now in use.
 */
int qpu_emu_float_simd(int level);
/* The level in use (V3D's 16-lane fadd and fmul follow it too). */
int qpu_emu_float_simd_now(void);
#endif

/*
 * Inline fast paths of fadd and fmul for the emulator's lane loops: normal
 * finite inputs and a normal result are computed here, every other case
 * (zeros, denormals, Inf, NaN, overflow, underflow) by the functions above,
 * so the results are the same bit for bit (test-emu-float checks it).
 */
static inline u32 qpu_emu_fmul_fast(u32 a, u32 b)
{
	u32 ea = (a >> 23) & 0xff, eb = (b >> 23) & 0xff, top, e;
	u64 m;

	m = (u64)((a & 0x7fffffu) | 0x800000u) * ((b & 0x7fffffu) | 0x800000u);
	top = (u32)(m >> 47);
	e = ea + eb - 127 + top;
	if (ea - 1 >= 254 || eb - 1 >= 254 || e - 1 >= 254)
		return qpu_emu_fmul(a, b);
	return ((a ^ b) & 0x80000000u) | e << 23 |
		((u32)(m >> (23 + top)) & 0x7fffffu);
}

static inline u32 qpu_emu_fadd_fast(u32 a, u32 b)
{
	u32 ea = (a >> 23) & 0xff, eb = (b >> 23) & 0xff, d, p, e, t;
	u64 ma, mb, m;

	if (ea - 1 >= 254 || eb - 1 >= 254)
		return qpu_emu_fadd(a, b);
	if ((a & 0x7fffffffu) < (b & 0x7fffffffu)) {
		t = a;
		a = b;
		b = t;
		t = ea;
		ea = eb;
		eb = t;
	}
	d = ea - eb;
	ma = (u64)((a & 0x7fffffu) | 0x800000u) << 32;
	mb = (u64)((b & 0x7fffffu) | 0x800000u) << 32;
	if (d >= 60)
		mb = 1;
	else if (d)
		mb = (mb >> d) | ((mb & ((1ull << d) - 1)) != 0);
	m = ((a ^ b) & 0x80000000u) ? ma - mb : ma + mb;
	if (!m)
		return 0;
	p = 63 - (u32)__builtin_clzll(m);
	e = ea + p - 55;
	if (e - 1 >= 254)
		return qpu_emu_fadd(a, b);
	return (a & 0x80000000u) | e << 23 | ((u32)(m >> (p - 23)) & 0x7fffffu);
}

#endif /* QPU_EMU_FLOAT_H */
