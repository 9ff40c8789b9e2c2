// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * The V3D emulator's add and mul ALUs: every operation of both
 * generations on 16 lanes, their input unpacks and output packs, and the
 * flags they push or update.
 *
 * DOC: flags
 * Each lane has a two-deep stack, a over b. A push (pushz, pushn, pushc)
 * moves a to b and sets a from the ALU's result: Z for a zero result (a
 * float +-0 for float ops), N for bit 31, C for the carry of add, the
 * borrow of sub (a < b unsigned), a > b for min/max/fmin/fmax/fcmp
 * (unconfirmed on hardware) and 0 for the rest. An update changes a alone:
 * and<x> a = a & x, andn<x> a = a & !x, nor<x>/norn<x> a = !(a | x) with x
 * the flag or its negation, as Mesa's v3d_qpu_uf names read. flapush and
 * flbpush keep a flag stack in a register: x << 2 with flag a (or b) in
 * both low bits; flpop gives x >> 2 (py-videocore6's test_cond_flx).
 * vfla/vflna/vflb/vflnb give the flag (or its negation) in both 16-bit
 * halves (its test_cond_vflx).
 *
 * DOC: 7.1 lane moves
 * rot gives lane i lane (i + b[0]) mod 16, rotq lane 4q + (i + b[4q]) mod 4
 * of its quad, shuffle lane b[i] mod 16 (py-videocore7's test_alu
 * references: np.roll(a, -b[0]) and per quad); bcastf gives
 * every lane the first lane with flag a (lane 0 if none); ballot the mask
 * of lanes where a is nonzero; alleq/allfeq 1 when every lane is equal.
 * The 7.1 norm conversions (ftounorm16 ... vftounorm10hi) follow their
 * names with round-to-nearest, and vpack, v8pack, v10pack and v11fpack
 * take their first two fields from a's halves and the rest from b's (f16
 * halves for v11fpack), as their formats' names read: unconfirmed on
 * hardware, and no py-videocore test runs them.
 */
#include "v3d/qpu_v3d_emu_internal.h"
#include "qpu_emu_float.h"

#define F_SIGN	0x80000000u
#define F_ONE	0x3f800000u

static u32 f16_lo(u32 v)
{
	return qpu_emu_f16_to_f32(v & 0xffff);
}

static u32 f16_hi(u32 v)
{
	return qpu_emu_f16_to_f32(v >> 16);
}

static u32 f32_unpack(u32 v, unsigned int u)
{
	switch (u) {
	case QPU_V3D_UNPACK_ABS:
		return v & ~F_SIGN;
	case QPU_V3D_UNPACK_L:
		return f16_lo(v);
	case QPU_V3D_UNPACK_H:
		return f16_hi(v);
	case QPU_V3D_UNPACK_SAT:
		return qpu_v3d_fmin(qpu_v3d_fmax(v, 0), F_ONE);
	case QPU_V3D_UNPACK_NSAT:
		return qpu_v3d_fmin(qpu_v3d_fmax(v, F_SIGN | F_ONE), F_ONE);
	case QPU_V3D_UNPACK_MAX0:
		return qpu_v3d_fmax(v, 0);
	}
	return v;
}

static u32 f16_unpack(u32 v, unsigned int u)
{
	u32 h;

	switch (u) {
	case QPU_V3D_UNPACK_FF:
		h = qpu_emu_f32_to_f16(v);
		return h | h << 16;
	case QPU_V3D_UNPACK_LL:
		return (v & 0xffff) | v << 16;
	case QPU_V3D_UNPACK_HH:
		return (v >> 16) | (v & 0xffff0000u);
	case QPU_V3D_UNPACK_SWP:
		return v >> 16 | v << 16;
	}
	return v;
}

static u32 int_unpack(u32 v, unsigned int u)
{
	switch (u) {
	case QPU_V3D_UNPACK_UL:
		return v & 0xffff;
	case QPU_V3D_UNPACK_UH:
		return v >> 16;
	case QPU_V3D_UNPACK_IL:
		return (u32)(s32)(s16)(v & 0xffff);
	case QPU_V3D_UNPACK_IH:
		return (u32)(s32)(s16)(v >> 16);
	}
	return v;
}

static u32 f32_pack(u32 v, unsigned int p)
{
	switch (p) {
	case QPU_V3D_PACK_L:
		return qpu_emu_f32_to_f16(v);
	case QPU_V3D_PACK_H:
		return qpu_emu_f32_to_f16(v) << 16;
	}
	return v;
}

/* Two f16 halves through a float op. */
static u32 f16x2(u32 a, u32 b, u32 (*op)(u32, u32))
{
	u32 lo = qpu_emu_f32_to_f16(op(f16_lo(a), f16_lo(b)));
	u32 hi = qpu_emu_f32_to_f16(op(f16_hi(a), f16_hi(b)));

	return lo | hi << 16;
}

static u32 fsub(u32 a, u32 b)
{
	return qpu_v3d_fadd(a, b ^ F_SIGN);
}

static bool fzero(u32 v)
{
	return !(v & ~F_SIGN);
}

static u32 clz32(u32 v)
{
	return v ? (u32)__builtin_clz(v) : 32;
}

/* x in [lo, hi] scaled by @scale, to the nearest integer. */
static u32 to_norm(u32 x, u32 lo, u32 hi, u32 scale)
{
	x = qpu_v3d_fmin(qpu_v3d_fmax(x, lo), hi);
	return qpu_v3d_ftoi(qpu_v3d_fmul(x, qpu_v3d_utof(scale)), 0);
}

static u32 from_unorm(u32 v, u32 max)
{
	return qpu_v3d_fmul(qpu_v3d_utof(v), qpu_emu_recip(qpu_v3d_utof(max)));
}

static u32 from_snorm(u32 v, u32 max)
{
	u32 f = qpu_v3d_fmul(qpu_v3d_itof(v), qpu_emu_recip(qpu_v3d_utof(max)));

	return qpu_v3d_fmax(f, F_SIGN | F_ONE);
}

/* The SFU function of add op @op (both generations), or -1. */
static int sfu_of(unsigned int op)
{
	static const u8 ops[] = {
		[QPU_V3D_SFU_RECIP] = QPU_V3D_A_RECIP,
		[QPU_V3D_SFU_RSQRT] = QPU_V3D_A_RSQRT,
		[QPU_V3D_SFU_EXP] = QPU_V3D_A_EXP,
		[QPU_V3D_SFU_LOG] = QPU_V3D_A_LOG,
		[QPU_V3D_SFU_SIN] = QPU_V3D_A_SIN,
		[QPU_V3D_SFU_RSQRT2] = QPU_V3D_A_RSQRT2,
	};
	unsigned int i;

	for (i = 0; i < sizeof(ops); i++)
		if (ops[i] == op)
			return (int)i;
	return -1;
}

/*
 * An f16 as an unsigned small float (R11G11B10F): sign dropped (negative
 * is 0), the mantissa cut by @drop bits.
 */
static u32 f16_to_uf(u32 h, unsigned int drop)
{
	if (h & 0x8000)
		return 0;
	return (h & 0x7fff) >> drop;
}

u16 v3d_cond_lanes(const struct v3d_thread *t, unsigned int cond)
{
	switch (cond) {
	case QPU_V3D_COND_IFA:
		return t->fa;
	case QPU_V3D_COND_IFB:
		return t->fb;
	case QPU_V3D_COND_IFNA:
		return ~t->fa;
	case QPU_V3D_COND_IFNB:
		return ~t->fb;
	}
	return ALL_LANES;
}

void v3d_flags_apply(struct v3d_thread *t, unsigned int pf, unsigned int uf,
		     const struct v3d_alu_out *o)
{
	u16 x;

	if (pf) {
		t->fb = t->fa;
		t->fa = pf == QPU_V3D_PF_PUSHZ ? o->z :
			pf == QPU_V3D_PF_PUSHN ? o->n : o->c;
	}
	if (!uf)
		return;
	uf -= QPU_V3D_UF_ANDZ;		/* 0..11: (z, n, c) x (and, andn, nor-n, nor) */
	x = uf < 4 ? o->z : uf < 8 ? o->n : o->c;
	switch (uf & 3) {
	case 0:		/* and<x> */
		t->fa &= x;
		break;
	case 1:		/* andn<x> */
		t->fa &= ~x;
		break;
	case 2:		/* norn<x>: !(a | !x) */
		t->fa = ~t->fa & x;
		break;
	case 3:		/* nor<x> */
		t->fa = ~(t->fa | x);
		break;
	}
}

static void set_zn(struct v3d_alu_out *o, unsigned int i, bool fl)
{
	u32 v = o->v[i];

	if (fl ? fzero(v) : !v)
		o->z |= 1u << i;
	if (v & F_SIGN)
		o->n |= 1u << i;
}

static unsigned int first_lane(u16 m)
{
	return m ? (unsigned int)__builtin_ctz(m) : 0;
}

/* Whole-vector operations of the add ALU (lane moves and reductions). */
static bool add_vector(struct v3d_thread *t, unsigned int op, const u32 *a,
		       const u32 *b, u32 *r)
{
	unsigned int i, n;
	u32 m = 0;
	bool eq = true;

	switch (op) {
	case QPU_V3D_A_ROT:
		n = b[0];
		for (i = 0; i < LANES; i++)
			r[i] = a[(i + n) & 15];
		return true;
	case QPU_V3D_A_ROTQ:
		for (i = 0; i < LANES; i++)
			r[i] = a[(i & ~3u) | ((i + b[i & ~3u]) & 3)];
		return true;
	case QPU_V3D_A_SHUFFLE:
		for (i = 0; i < LANES; i++)
			r[i] = a[b[i] & 15];
		return true;
	case QPU_V3D_A_BCASTF:
		n = first_lane(t->fa);
		for (i = 0; i < LANES; i++)
			r[i] = a[n];
		return true;
	case QPU_V3D_A_BALLOT:
		for (i = 0; i < LANES; i++)
			m |= (u32)(a[i] != 0) << i;
		for (i = 0; i < LANES; i++)
			r[i] = m;
		return true;
	case QPU_V3D_A_ALLEQ:
	case QPU_V3D_A_ALLFEQ:
		for (i = 1; i < LANES; i++) {
			if (op == QPU_V3D_A_ALLEQ)
				eq &= a[i] == a[0];
			else
				eq &= qpu_v3d_fadd(a[i], a[0] ^ F_SIGN) == 0 ||
				      (fzero(a[i]) && fzero(a[0]));
		}
		for (i = 0; i < LANES; i++)
			r[i] = eq;
		return true;
	case QPU_V3D_A_FDX:
	case QPU_V3D_A_FDY:
		for (i = 0; i < LANES; i++) {
			unsigned int base = op == QPU_V3D_A_FDX ? i & ~1u :
					    (i & ~3u) | (i & 1);
			unsigned int step = op == QPU_V3D_A_FDX ? 1 : 2;

			r[i] = fsub(a[base + step], a[base]);
		}
		return true;
	case QPU_V3D_A_FLAFIRST:
	case QPU_V3D_A_FLNAFIRST:
		m = op == QPU_V3D_A_FLAFIRST ? t->fa : (u16)~t->fa;
		n = first_lane((u16)m);
		for (i = 0; i < LANES; i++)
			r[i] = i == n && m;
		return true;
	}
	return false;
}

/*
 * The fast paths (predecode on): the common operations without unpack,
 * pack or flags, one handler each on all 16 lanes, chosen when an
 * instruction is predecoded; the same results as the lane-by-lane switch
 * below, which fuzz-v3d-emu and check-reference compare.
 */
#define FAST_OP(name, expr)						\
static void name(const struct qpu_v3d_emu *emu, const u32 *__restrict a,	\
		 const u32 *__restrict b, u32 *__restrict r)		\
{									\
	unsigned int i;							\
									\
	for (i = 0; i < LANES; i++) {					\
		u32 x = a[i], y = b[i];					\
									\
		r[i] = (expr);						\
		(void)x;						\
		(void)y;						\
	}								\
}

FAST_OP(op_add, x + y)
FAST_OP(op_sub, x - y)
FAST_OP(op_and, x & y)
FAST_OP(op_or, x | y)
FAST_OP(op_xor, x ^ y)
FAST_OP(op_shl, x << (y & 31))
FAST_OP(op_shr, x >> (y & 31))
FAST_OP(op_asr, (u32)((s32)x >> (y & 31)))
FAST_OP(op_fmax, qpu_v3d_fmax(x, y))
FAST_OP(op_fmin, qpu_v3d_fmin(x, y))
FAST_OP(op_eidx, i)
FAST_OP(op_mov, x)
FAST_OP(op_fmov, x)	/* its flags are a float's: not fast */
FAST_OP(op_zero, 0)

static void op_nop(const struct qpu_v3d_emu *emu, const u32 *__restrict a,
		   const u32 *__restrict b, u32 *__restrict r)
{
}

static void op_fadd(const struct qpu_v3d_emu *emu, const u32 *__restrict a,
		    const u32 *__restrict b, u32 *__restrict r)
{
	qpu_v3d_fadd16_form(a, b, 0, r, emu->float_form);
}

static void op_fsub(const struct qpu_v3d_emu *emu, const u32 *__restrict a,
		    const u32 *__restrict b, u32 *__restrict r)
{
	qpu_v3d_fadd16_form(a, b, F_SIGN, r, emu->float_form);
}

static void op_fmul(const struct qpu_v3d_emu *emu, const u32 *__restrict a,
		    const u32 *__restrict b, u32 *__restrict r)
{
	qpu_v3d_fmul16_form(a, b, r, emu->float_form);
}

/* The add ops with a fast handler (the rest NULL): see add_fast(). */
static const v3d_fast_fn add_fast_fn[QPU_V3D_A_COUNT] = {
	[QPU_V3D_A_ADD] = op_add,
	[QPU_V3D_A_SUB] = op_sub,
	[QPU_V3D_A_AND] = op_and,
	[QPU_V3D_A_OR] = op_or,
	[QPU_V3D_A_XOR] = op_xor,
	[QPU_V3D_A_SHL] = op_shl,
	[QPU_V3D_A_SHR] = op_shr,
	[QPU_V3D_A_ASR] = op_asr,
	[QPU_V3D_A_FADD] = op_fadd,
	[QPU_V3D_A_FADDNF] = op_fadd,
	[QPU_V3D_A_FSUB] = op_fsub,
	[QPU_V3D_A_FMAX] = op_fmax,
	[QPU_V3D_A_FMIN] = op_fmin,
	[QPU_V3D_A_EIDX] = op_eidx,
	[QPU_V3D_A_MOV] = op_mov,
	[QPU_V3D_A_TMUWT] = op_zero,	/* every TMU write is done at once */
	[QPU_V3D_A_NOP] = op_nop,
};

static const v3d_fast_fn mul_fast_fn[QPU_V3D_M_COUNT] = {
	[QPU_V3D_M_FMUL] = op_fmul,
	[QPU_V3D_M_ADD] = op_add,
	[QPU_V3D_M_SUB] = op_sub,
	[QPU_V3D_M_MOV] = op_mov,
	[QPU_V3D_M_FMOV] = op_fmov,
	[QPU_V3D_M_NOP] = op_nop,
};

static bool add_fast(const struct qpu_v3d_emu *emu, unsigned int op,
		     const u32 *a, const u32 *b, u32 *r)
{
	if (!add_fast_fn[op])
		return false;
	add_fast_fn[op](emu, a, b, r);
	return true;
}

static bool mul_fast(const struct qpu_v3d_emu *emu, unsigned int op,
		     const u32 *a, const u32 *b, u32 *r)
{
	if (!mul_fast_fn[op])
		return false;
	mul_fast_fn[op](emu, a, b, r);
	return true;
}

/* Whether @alu takes the fast path: no modifiers and no flags. */
static bool plain(const struct qpu_v3d_emu *emu, const struct qpu_v3d_alu *alu,
		  const struct v3d_alu_out *o)
{
	return emu->predecode && !o->flags && !alu->pack && !alu->unpack_a &&
	       !alu->unpack_b;
}

/*
 * The integer ops whose flags v3d_fast_flags() computes: C is the carry of
 * add, the borrow of sub, 0 for the rest (as the switch below has it).
 */
static bool flags_fast_op(v3d_fast_fn fn)
{
	return fn == op_add || fn == op_sub || fn == op_and || fn == op_or ||
	       fn == op_xor || fn == op_shl || fn == op_shr || fn == op_asr ||
	       fn == op_mov;
}

#if defined(__SSE2__) && !defined(__KERNEL__)
#include <emmintrin.h>

/* Bit i for lane i of @m (each 0 or all ones): their signs packed to bytes. */
static u16 lane_mask(const u32 *m)
{
	const __m128i *v = (const __m128i *)m;
	__m128i lo = _mm_packs_epi32(_mm_loadu_si128(v), _mm_loadu_si128(v + 1));
	__m128i hi = _mm_packs_epi32(_mm_loadu_si128(v + 2),
				     _mm_loadu_si128(v + 3));

	return (u16)_mm_movemask_epi8(_mm_packs_epi16(lo, hi));
}
#else
/* The lanes of @m set (nonzero) as a mask, in loops the compiler vectorizes. */
static u16 lane_mask(const u32 *m)
{
	static const u32 bit[LANES] = {
		1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192,
		16384, 32768,
	};
	unsigned int i;
	u32 r = 0;

	for (i = 0; i < LANES; i++)
		r |= m[i] & bit[i];
	return (u16)r;
}
#endif

void v3d_fast_flags(v3d_fast_fn fn, unsigned int need, const u32 *a,
		    const u32 *b, const u32 *r, struct v3d_alu_out *o)
{
	unsigned int i;
	u32 m[LANES];

	o->z = 0;
	o->n = 0;
	o->c = 0;
	if (need & 1) {
		for (i = 0; i < LANES; i++)
			m[i] = -(u32)!r[i];
		o->z = lane_mask(m);
	}
	if (need & 2) {
		for (i = 0; i < LANES; i++)
			m[i] = (u32)((s32)r[i] >> 31);
		o->n = lane_mask(m);
	}
	if ((need & 4) && (fn == op_add || fn == op_sub)) {
		for (i = 0; i < LANES; i++)
			m[i] = -(u32)(fn == op_add ? r[i] < a[i] : a[i] < b[i]);
		o->c = lane_mask(m);
	}
}

bool v3d_alu_fast_pick(const struct qpu_v3d_instr *in, v3d_fast_fn *add,
		       v3d_fast_fn *mul)
{
	if (in->ac || in->mc || in->add.pack || in->add.unpack_a ||
	    in->add.unpack_b || in->mul.pack || in->mul.unpack_a ||
	    in->mul.unpack_b)
		return false;
	*add = add_fast_fn[in->add.op];
	*mul = mul_fast_fn[in->mul.op];
	if (!*add || !*mul)
		return false;
	if ((in->apf || in->auf) && !flags_fast_op(*add))
		return false;
	if ((in->mpf || in->muf) && !flags_fast_op(*mul))
		return false;
	return true;
}

v3d_fast_fn v3d_fast_form(v3d_fast_fn fn, unsigned int form)
{
	if (fn == op_fadd)
		return v3d_float_fast(V3D_FADD, form);
	if (fn == op_fsub)
		return v3d_float_fast(V3D_FSUB, form);
	if (fn == op_fmul)
		return v3d_float_fast(V3D_FMUL, form);
	return fn;
}

void v3d_alu_add(struct qpu_v3d_emu *emu, struct v3d_thread *t,
		 const struct qpu_v3d_instr *in, const u32 *a, const u32 *b,
		 struct v3d_alu_out *o, bool *bad)
{
	const struct qpu_v3d_alu *alu = &in->add;
	unsigned int op = alu->op, i, ua = alu->unpack_a, ub = alu->unpack_b;
	int sfu;
	u32 ta[LANES];
	bool fl = false;

	o->writes = (qpu_v3d_add_op_info[op].args & QPU_V3D_ARG_D) != 0;
	o->lanes = v3d_cond_lanes(t, in->ac);
	o->z = 0;
	o->n = 0;
	o->c = 0;
	if (plain(emu, alu, o) && add_fast(emu, op, a, b, o->v))
		return;
	sfu = sfu_of(op);
	if (op == QPU_V3D_A_FDX || op == QPU_V3D_A_FDY ||
	    op == QPU_V3D_A_FLAFIRST || op == QPU_V3D_A_FLNAFIRST ||
	    op == QPU_V3D_A_ALLFEQ) {
		for (i = 0; i < LANES; i++)
			ta[i] = f32_unpack(a[i], ua);
		a = ta;
	}
	if (add_vector(t, op, a, b, o->v)) {
		if (op == QPU_V3D_A_FDX || op == QPU_V3D_A_FDY) {
			for (i = 0; i < LANES; i++)
				o->v[i] = f32_pack(o->v[i], alu->pack);
			fl = true;
		}
		for (i = 0; i < LANES; i++)
			set_zn(o, i, fl);
		return;
	}
	if (sfu >= 0) {
		for (i = 0; i < LANES; i++) {
			o->v[i] = qpu_v3d_sfu(sfu, a[i]);
			set_zn(o, i, true);
		}
		return;
	}
	for (i = 0; i < LANES; i++) {
		u32 x = a[i], y = b[i], r = 0, c = 0;

		switch (op) {
		case QPU_V3D_A_FADD:
		case QPU_V3D_A_FADDNF:
		case QPU_V3D_A_FSUB:
		case QPU_V3D_A_FMIN:
		case QPU_V3D_A_FMAX:
		case QPU_V3D_A_FCMP:
			x = f32_unpack(x, ua);
			y = f32_unpack(y, ub);
			fl = true;
			if (op == QPU_V3D_A_FMIN)
				r = qpu_v3d_fmin(x, y);
			else if (op == QPU_V3D_A_FMAX)
				r = qpu_v3d_fmax(x, y);
			else if (op == QPU_V3D_A_FSUB || op == QPU_V3D_A_FCMP)
				r = fsub(x, y);
			else
				r = qpu_v3d_fadd(x, y);
			c = op != QPU_V3D_A_FADD && op != QPU_V3D_A_FADDNF &&
			    op != QPU_V3D_A_FSUB &&
			    qpu_v3d_fmax(x, y) == x && x != y;
			r = f32_pack(r, alu->pack);
			break;
		case QPU_V3D_A_VFPACK:
			r = qpu_emu_f32_to_f16(f32_unpack(x, ua)) |
			    qpu_emu_f32_to_f16(f32_unpack(y, ub)) << 16;
			break;
		case QPU_V3D_A_VFMIN:
			r = f16x2(f16_unpack(x, ua), y, qpu_v3d_fmin);
			break;
		case QPU_V3D_A_VFMAX:
			r = f16x2(f16_unpack(x, ua), y, qpu_v3d_fmax);
			break;
		case QPU_V3D_A_ADD:
			r = x + y;
			c = r < x;
			break;
		case QPU_V3D_A_SUB:
			r = x - y;
			c = x < y;
			break;
		case QPU_V3D_A_MIN:
			r = (s32)x < (s32)y ? x : y;
			c = (s32)x > (s32)y;
			break;
		case QPU_V3D_A_MAX:
			r = (s32)x > (s32)y ? x : y;
			c = (s32)x > (s32)y;
			break;
		case QPU_V3D_A_UMIN:
			r = x < y ? x : y;
			c = x > y;
			break;
		case QPU_V3D_A_UMAX:
			r = x > y ? x : y;
			c = x > y;
			break;
		case QPU_V3D_A_SHL:
			r = x << (y & 31);
			break;
		case QPU_V3D_A_SHR:
			r = x >> (y & 31);
			break;
		case QPU_V3D_A_ASR:
			r = (u32)((s32)x >> (y & 31));
			break;
		case QPU_V3D_A_ROR:
			r = (y & 31) ? (x >> (y & 31)) | (x << (32 - (y & 31))) : x;
			break;
		case QPU_V3D_A_AND:
			r = x & y;
			break;
		case QPU_V3D_A_OR:
			r = x | y;
			break;
		case QPU_V3D_A_XOR:
			r = x ^ y;
			break;
		case QPU_V3D_A_VADD:
			r = ((x + y) & 0xffff) | ((x >> 16) + (y >> 16)) << 16;
			break;
		case QPU_V3D_A_VSUB:
			r = ((x - y) & 0xffff) | ((x >> 16) - (y >> 16)) << 16;
			break;
		case QPU_V3D_A_NOT:
			r = ~x;
			break;
		case QPU_V3D_A_NEG:
			r = -x;
			break;
		case QPU_V3D_A_CLZ:
			r = clz32(x);
			break;
		case QPU_V3D_A_ITOF:
			r = qpu_v3d_itof(x);
			fl = true;
			break;
		case QPU_V3D_A_UTOF:
			r = qpu_v3d_utof(x);
			fl = true;
			break;
		case QPU_V3D_A_FROUND:
		case QPU_V3D_A_FTRUNC:
		case QPU_V3D_A_FFLOOR:
		case QPU_V3D_A_FCEIL:
			r = qpu_v3d_fround(f32_unpack(x, ua),
					   op == QPU_V3D_A_FROUND ? 0 :
					   op == QPU_V3D_A_FTRUNC ? 1 :
					   op == QPU_V3D_A_FFLOOR ? 2 : 3);
			r = f32_pack(r, alu->pack);
			fl = true;
			break;
		case QPU_V3D_A_FTOIN:
		case QPU_V3D_A_FTOC:
			r = qpu_v3d_ftoi(f32_unpack(x, ua), 0);
			break;
		case QPU_V3D_A_FTOIZ:
			r = qpu_v3d_ftoi(f32_unpack(x, ua), 1);
			break;
		case QPU_V3D_A_FTOUZ:
			r = qpu_v3d_ftouz(f32_unpack(x, ua));
			break;
		case QPU_V3D_A_FMOV:
			r = f32_pack(f32_unpack(x, ua), alu->pack);
			fl = true;
			break;
		case QPU_V3D_A_MOV:
			r = int_unpack(x, ua);
			break;
		case QPU_V3D_A_VPACK:
			r = (x & 0xffff) | y << 16;
			break;
		case QPU_V3D_A_V8PACK:
			r = (x & 0xff) | (x >> 16 & 0xff) << 8 |
			    (y & 0xff) << 16 | (y >> 16 & 0xff) << 24;
			break;
		case QPU_V3D_A_V10PACK:
			r = (x & 0x3ff) | (x >> 16 & 0x3ff) << 10 |
			    (y & 0x3ff) << 20 | (y >> 16 & 0x3) << 30;
			break;
		case QPU_V3D_A_V11FPACK:
			r = f16_to_uf(x & 0xffff, 4) |
			    f16_to_uf(x >> 16, 4) << 11 |
			    f16_to_uf(y & 0xffff, 5) << 22;
			break;
		case QPU_V3D_A_EIDX:
			r = i;
			break;
		case QPU_V3D_A_TIDX:
			r = t->tidx;
			break;
		case QPU_V3D_A_LR:
			r = t->link;
			break;
		case QPU_V3D_A_VFLA:
		case QPU_V3D_A_VFLNA:
		case QPU_V3D_A_VFLB:
		case QPU_V3D_A_VFLNB:
			r = (op == QPU_V3D_A_VFLA || op == QPU_V3D_A_VFLNA ?
			     t->fa : t->fb) >> i & 1;
			r ^= op == QPU_V3D_A_VFLNA || op == QPU_V3D_A_VFLNB;
			r |= r << 16;	/* both 16-bit halves */
			break;
		case QPU_V3D_A_FLAPUSH:
		case QPU_V3D_A_FLBPUSH:
			r = x << 2 | 3 * ((op == QPU_V3D_A_FLAPUSH ? t->fa : t->fb) >> i & 1);
			break;
		case QPU_V3D_A_FLPOP:
			r = x >> 2;
			break;
		case QPU_V3D_A_SETMSF:
		case QPU_V3D_A_SETREVF:
			r = x;
			break;
		case QPU_V3D_A_NOP:
		case QPU_V3D_A_MSF:
		case QPU_V3D_A_REVF:
		case QPU_V3D_A_XCD:
		case QPU_V3D_A_YCD:
		case QPU_V3D_A_FXCD:
		case QPU_V3D_A_FYCD:
		case QPU_V3D_A_IID:
		case QPU_V3D_A_SAMPID:
		case QPU_V3D_A_BARRIERID:
		case QPU_V3D_A_TMUWT:
		case QPU_V3D_A_VPMWT:
		case QPU_V3D_A_VDWWT:
			r = 0;	/* every TMU write is done when it issues */
			break;
		default:	/* the VPM and tile buffer: no compute use */
			*bad = true;
			return;
		}
		o->v[i] = r;
		if (o->flags) {
			o->c |= (u16)(c << i);
			set_zn(o, i, fl);
		}
	}
}

void v3d_alu_mul(struct qpu_v3d_emu *emu, struct v3d_thread *t,
		 const struct qpu_v3d_instr *in, const u32 *a, const u32 *b,
		 struct v3d_alu_out *o, bool *bad)
{
	const struct qpu_v3d_alu *alu = &in->mul;
	unsigned int op = alu->op, i;
	bool fl = false;

	o->writes = (qpu_v3d_mul_op_info[op].args & QPU_V3D_ARG_D) != 0;
	o->lanes = v3d_cond_lanes(t, in->mc);
	o->z = 0;
	o->n = 0;
	o->c = 0;
	if (plain(emu, alu, o) && mul_fast(emu, op, a, b, o->v))
		return;
	for (i = 0; i < LANES; i++) {
		u32 x = a[i], y = b[i], r = 0, c = 0;
		u64 p;

		switch (op) {
		case QPU_V3D_M_ADD:
			r = x + y;
			c = r < x;
			break;
		case QPU_V3D_M_SUB:
			r = x - y;
			c = x < y;
			break;
		case QPU_V3D_M_UMUL24:
			/* a multop before adds its top part (Mesa's imul) */
			r = (x & 0xffffff) * (y & 0xffffff) + t->rtop[i];
			t->rtop[i] = 0;
			break;
		case QPU_V3D_M_SMUL24:
			r = (u32)((s32)(x << 8) >> 8) * (u32)((s32)(y << 8) >> 8);
			break;
		case QPU_V3D_M_MULTOP:
			p = (u64)x * y - (u64)(x & 0xffffff) * (y & 0xffffff);
			t->rtop[i] = (u32)p;
			r = t->rtop[i];
			break;
		case QPU_V3D_M_VFMUL:
			r = f16x2(f16_unpack(x, alu->unpack_a), y, qpu_v3d_fmul);
			break;
		case QPU_V3D_M_FMUL:
			r = qpu_v3d_fmul(f32_unpack(x, alu->unpack_a),
					 f32_unpack(y, alu->unpack_b));
			r = f32_pack(r, alu->pack);
			fl = true;
			break;
		case QPU_V3D_M_FMOV:
			r = f32_pack(f32_unpack(x, alu->unpack_a), alu->pack);
			fl = true;
			break;
		case QPU_V3D_M_MOV:
			r = int_unpack(x, alu->unpack_a);
			break;
		case QPU_V3D_M_NOP:
			break;
		case QPU_V3D_M_FTOUNORM16:
			r = to_norm(x, 0, F_ONE, 65535);
			break;
		case QPU_V3D_M_FTOSNORM16:
			r = to_norm(x, F_SIGN | F_ONE, F_ONE, 32767) & 0xffff;
			break;
		case QPU_V3D_M_VFTOUNORM8:
			r = to_norm(f16_lo(x), 0, F_ONE, 255) |
			    to_norm(f16_hi(x), 0, F_ONE, 255) << 16;
			break;
		case QPU_V3D_M_VFTOSNORM8:
			r = (to_norm(f16_lo(x), F_SIGN | F_ONE, F_ONE, 127) & 0xff) |
			    (to_norm(f16_hi(x), F_SIGN | F_ONE, F_ONE, 127) & 0xff) << 16;
			break;
		case QPU_V3D_M_FUNPACKUNORMLO:
			r = from_unorm(x & 0xffff, 65535);
			break;
		case QPU_V3D_M_FUNPACKUNORMHI:
			r = from_unorm(x >> 16, 65535);
			break;
		case QPU_V3D_M_FUNPACKSNORMLO:
			r = from_snorm((u32)(s32)(s16)(x & 0xffff), 32767);
			break;
		case QPU_V3D_M_FUNPACKSNORMHI:
			r = from_snorm((u32)(s32)(s16)(x >> 16), 32767);
			break;
		case QPU_V3D_M_VFTOUNORM10LO:
			r = to_norm(f16_lo(x), 0, F_ONE, 1023);
			break;
		case QPU_V3D_M_VFTOUNORM10HI:
			r = to_norm(f16_hi(x), 0, F_ONE, 1023) << 16;
			break;
		default:
			*bad = true;
			return;
		}
		o->v[i] = r;
		if (o->flags) {
			o->c |= (u16)(c << i);
			set_zn(o, i, fl);
		}
	}
}
