// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * The emulator's ALUs: operand reads (register files, accumulators,
 * uniforms, small immediates, unpack), the add and mul units over 16
 * lanes, rotation, and the two ways an ALU instruction runs: qpu_emu_exec_alu()
 * for every form, qpu_emu_exec_alu_fast() for the common shapes predecode() marks
 * (see "DOC: speed" in qpu_emu.c). Results go out through write_result().
 */
#include "qpu_emu_internal.h"
#include "qpu_emu_float.h"

static u32 unpack(u32 v, unsigned int mode, bool is_float)
{
	switch (mode) {
	case QPU_ISA_UNPACK_16A:
	case QPU_ISA_UNPACK_16B:
		v = mode == QPU_ISA_UNPACK_16A ? v & 0xffff : v >> 16;
		if (is_float)
			return qpu_emu_f16_to_f32(v);
		return (u32)(s32)(s16)v;
	case QPU_ISA_UNPACK_8D_REP:
		v >>= 24;
		if (is_float)
			return qpu_emu_unorm8_to_f32(v);
		return v * 0x01010101u;
	case QPU_ISA_UNPACK_8A:
	case QPU_ISA_UNPACK_8B:
	case QPU_ISA_UNPACK_8C:
	case QPU_ISA_UNPACK_8D:
		v = (v >> ((mode - QPU_ISA_UNPACK_8A) * 8)) & 0xff;
		return is_float ? qpu_emu_unorm8_to_f32(v) : v;
	default:
		return v;
	}
}

static u32 v8(u32 a, u32 b, unsigned int op)
{
	u32 r = 0;
	unsigned int i;

	for (i = 0; i < 32; i += 8) {
		s32 x = (a >> i) & 0xff, y = (b >> i) & 0xff, v;

		switch (op) {
		case QPU_ISA_M_V8MULD:
			v = x * y + 128;
			v = (v + (v >> 8)) >> 8;
			break;
		case QPU_ISA_M_V8MIN:
			v = x < y ? x : y;
			break;
		case QPU_ISA_M_V8MAX:
			v = x > y ? x : y;
			break;
		case QPU_ISA_M_V8ADDS:
			v = x + y > 255 ? 255 : x + y;
			break;
		default:	/* v8subs */
			v = x - y < 0 ? 0 : x - y;
			break;
		}
		r |= (u32)v << i;
	}
	return r;
}

static u32 clz32(u32 v)
{
	return v ? (u32)__builtin_clz(v) : 32;
}

#define LANE_LOOP(expr)				\
	do {					\
		for (i = 0; i < LANES; i++)	\
			v[i] = (expr);		\
	} while (0)

#define CARRY_LOOP(expr)				\
	do {						\
		for (i = 0; i < LANES && want_c; i++)	\
			c |= (u16)((expr) << i);	\
	} while (0)

/*
 * The add ALU over 16 lanes: @v gets the results; the return value, the
 * carry flags (bit per lane) when @want_c. One switch per instruction, a
 * plain loop per op, so the compiler can unroll or vectorise it. Inlined
 * into both qpu_emu_exec_alu() and qpu_emu_exec_alu_fast() (flattened): called, the
 * integer ops lose more than the fast path gains them.
 */
static u16 alu_add_lanes(unsigned int op, const u32 *a, const u32 *b,
			 u32 *__restrict v, bool want_c)
{
	unsigned int i;
	u16 c = 0;

	switch (op) {
	case QPU_ISA_A_FADD:
		qpu_emu_fadd16(a, b, 0, v);
		break;
	case QPU_ISA_A_FSUB:	/* fsub(a, b) is fadd(a, -b), NaNs included */
		qpu_emu_fadd16(a, b, 0x80000000u, v);
		break;
	case QPU_ISA_A_FMIN:	/* the carries come for free */
		c = qpu_emu_fmin16(a, b, v);
		break;
	case QPU_ISA_A_FMAX:
		c = qpu_emu_fmax16(a, b, v);
		break;
	case QPU_ISA_A_FMINABS:
		c = qpu_emu_fminabs16(a, b, v);
		break;
	case QPU_ISA_A_FMAXABS:
		c = qpu_emu_fmaxabs16(a, b, v);
		break;
	case QPU_ISA_A_FTOI:
		qpu_emu_ftoi16(a, v);
		break;
	case QPU_ISA_A_ITOF:
		qpu_emu_itof16(a, v);
		break;
	case QPU_ISA_A_ADD:
		LANE_LOOP(a[i] + b[i]);
		CARRY_LOOP(v[i] < a[i]);
		break;
	case QPU_ISA_A_SUB:
		LANE_LOOP(a[i] - b[i]);
		CARRY_LOOP(a[i] < b[i]);
		break;
	case QPU_ISA_A_SHR:
		LANE_LOOP(a[i] >> (b[i] & 31));
		break;
	case QPU_ISA_A_ASR:
		LANE_LOOP((u32)((s32)a[i] >> (b[i] & 31)));
		break;
	case QPU_ISA_A_ROR:
		LANE_LOOP((a[i] >> (b[i] & 31)) | (a[i] << ((32 - b[i]) & 31)));
		break;
	case QPU_ISA_A_SHL:
		LANE_LOOP(a[i] << (b[i] & 31));
		break;
	case QPU_ISA_A_MIN:
		LANE_LOOP((s32)a[i] < (s32)b[i] ? a[i] : b[i]);
		CARRY_LOOP((s32)a[i] > (s32)b[i]);
		break;
	case QPU_ISA_A_MAX:
		LANE_LOOP((s32)a[i] > (s32)b[i] ? a[i] : b[i]);
		CARRY_LOOP((s32)a[i] > (s32)b[i]);
		break;
	case QPU_ISA_A_AND:
		LANE_LOOP(a[i] & b[i]);
		break;
	case QPU_ISA_A_OR:
		LANE_LOOP(a[i] | b[i]);
		break;
	case QPU_ISA_A_XOR:
		LANE_LOOP(a[i] ^ b[i]);
		break;
	case QPU_ISA_A_NOT:
		LANE_LOOP(~a[i]);
		break;
	case QPU_ISA_A_CLZ:
		LANE_LOOP(clz32(a[i]));
		break;
	case QPU_ISA_A_V8ADDS:
		LANE_LOOP(v8(a[i], b[i], QPU_ISA_M_V8ADDS));
		break;
	case QPU_ISA_A_V8SUBS:
		LANE_LOOP(v8(a[i], b[i], QPU_ISA_M_V8SUBS));
		break;
	default:
		LANE_LOOP(0);
		break;
	}
	return c;
}

static void alu_mul_lanes(unsigned int op, const u32 *a, const u32 *b,
			  u32 *__restrict v)
{
	unsigned int i;

	switch (op) {
	case QPU_ISA_M_FMUL:
		qpu_emu_fmul16(a, b, v);
		break;
	case QPU_ISA_M_MUL24:
		LANE_LOOP((a[i] & 0xffffff) * (b[i] & 0xffffff));
		break;
	case QPU_ISA_M_NOP:
		LANE_LOOP(0);
		break;
	case QPU_ISA_M_V8MIN:
	case QPU_ISA_M_V8MAX:
		/* the mul unit's mov: v8min/v8max of a value with itself */
		if (a == b) {
			copy_lanes(v, a);
			break;
		}
		LANE_LOOP(v8(a[i], b[i], op));
		break;
	default:
		LANE_LOOP(v8(a[i], b[i], op));
		break;
	}
}

static const u32 zero_lanes[LANES];
static const u32 elem_lanes[LANES] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
};

/*
 * The 16 lanes register-file read @raddr gives: the register itself, a
 * constant, or @buf filled in.
 */
static const u32 *read_file(struct qpu_emu_exec *x, bool file_b,
			    unsigned int raddr, u32 unif, u32 *buf)
{
	struct qpu_emu_qpu *q = x->q;
	unsigned int i;
	u32 v = 0;

	if (raddr < 32)
		return file_b ? q->rb[raddr] : q->ra[raddr];
	switch (raddr) {
	case QPU_ISA_RADDR_UNIF:
		v = unif;
		break;
	case QPU_ISA_RADDR_ELEM_QPU:
		if (!file_b)
			return elem_lanes;
		v = x->qi;
		break;
	case QPU_ISA_RADDR_NOP:
	case QPU_ISA_RADDR_VPM_BUSY:
	case QPU_ISA_RADDR_VPM_WAIT:
	case QPU_ISA_RADDR_MUTEX:
		return zero_lanes;
	case QPU_ISA_RADDR_VPM:
		qpu_emu_vpm_read(x, buf);
		return buf;
	default:	/* varyings, coordinates, reserved */
		qpu_emu_bad_instr(x);
		return zero_lanes;
	}
	for (i = 0; i < LANES; i++)
		buf[i] = v;
	return buf;
}

/*
 * The 16 lanes an ALU input @mux selects: the source itself, or @buf with
 * the unpack applied (regfile A with pm clear, r4 with pm set).
 */
static const u32 *operand(struct qpu_emu_exec *x, unsigned int mux,
			  const u32 *ra, const u32 *rb, bool is_float,
			  u32 *buf)
{
	const struct qpu_isa_instr *in = x->in;
	const u32 *src;
	unsigned int i, mode = 0;

	if (mux == QPU_ISA_MUX_A) {
		src = ra;
		if (!in->pm)
			mode = in->unpack;
	} else if (mux == QPU_ISA_MUX_B) {
		src = rb;
	} else {
		src = x->q->acc[mux];
		if (mux == QPU_ISA_MUX_R4 && in->pm)
			mode = in->unpack;
	}
	if (!mode || !(x->op->flags & OP_UNPACK))
		return src;
	for (i = 0; i < LANES; i++)
		buf[i] = unpack(src[i], mode, is_float);
	return buf;
}

/* The exact integer result of add and sub, for the 32-bit saturating pack. */
static void alu_wide(unsigned int op, const u32 *a, const u32 *b,
		     const u32 *v, s64 *wide)
{
	unsigned int i;

	for (i = 0; i < LANES; i++) {
		if (op == QPU_ISA_A_ADD)
			wide[i] = (s64)(s32)a[i] + (s32)b[i];
		else if (op == QPU_ISA_A_SUB)
			wide[i] = (s64)(s32)a[i] - (s32)b[i];
		else
			wide[i] = (s32)v[i];
	}
}

/* The vector ALU input @mux selects: an accumulator, regfile A or B. */
static inline const u32 *mux_src(struct qpu_emu_qpu *q, unsigned int mux,
				 const u32 *ra, const u32 *rb)
{
	if (mux == QPU_ISA_MUX_A)
		return ra;
	if (mux == QPU_ISA_MUX_B)
		return rb;
	return q->acc[mux];
}

void qpu_emu_exec_alu(struct qpu_emu_exec *x)
{
	const struct qpu_isa_instr *in = x->in;
	struct qpu_emu_qpu *q = x->q;
	struct qpu_emu *emu = x->emu;
	bool smi = in->kind == QPU_ISA_KIND_ALU_SMALL_IMM;
	const struct qpu_isa_smi *imm = &qpu_isa_small_imms[in->raddr_b];
	struct qpu_emu_alu_scratch *s = emu_alu(emu);
	const u32 *ra, *rb = s->rb;
	const u32 *opa, *opb, *opc, *opd;
	struct qpu_emu_result *add = emu_result(emu, false);
	struct qpu_emu_result *mul = emu_result(emu, true);
	u32 addf = qpu_isa_add_ops[in->op_add].flags;
	u32 mulf = qpu_isa_mul_ops[in->op_mul].flags;
	u32 unif = 0;
	u16 carry = 0;
	unsigned int i;

	if (in->sig == QPU_ISA_SIG_LOADCV || in->sig == QPU_ISA_SIG_LOADC ||
	    in->sig == QPU_ISA_SIG_LDCEND || in->sig == QPU_ISA_SIG_LOADAM) {
		qpu_emu_bad_instr(x);	/* TLB loads: not for user programs */
		return;
	}
	if (x->op->flags & OP_UNIF) {
		const u8 *p = win_mem(x, &q->uwin, q->unif,
				      QPU_MEM_UNIFORM);

		if (!p)
			return;
		unif = rd32(p);
		q->unif += 4;
		emu->stats.uniform_bytes += 4;
	}
	if (x->op->flags & OP_MUTEX)
		emu->mutex_owner = (int)x->qi;
	/* Reads without side effects are used in place, not copied. */
	if (in->raddr_a < 32)
		ra = q->ra[in->raddr_a];
	else if (in->raddr_a == QPU_ISA_RADDR_NOP)
		ra = zero_lanes;
	else if (in->raddr_a == QPU_ISA_RADDR_UNIF)
		ra = splat(s->ra, unif);
	else
		ra = read_file(x, false, in->raddr_a, unif, s->ra);
	if (smi) {
		u32 v = imm->kind == QPU_ISA_SMI_ROTATE ?
			(u32)(in->raddr_b - 64) : imm->value;

		for (i = 0; i < LANES; i++)
			s->rb[i] = v;
	} else if (in->raddr_b == QPU_ISA_RADDR_VPM && in->raddr_a == QPU_ISA_RADDR_VPM) {
		rb = ra;	/* one VPM read a cycle */
	} else if (in->raddr_b < 32) {
		rb = q->rb[in->raddr_b];
	} else if (in->raddr_b == QPU_ISA_RADDR_NOP) {
		rb = zero_lanes;
	} else if (in->raddr_b == QPU_ISA_RADDR_UNIF) {
		for (i = 0; i < LANES; i++)
			s->rb[i] = unif;
	} else {
		rb = read_file(x, true, in->raddr_b, unif, s->rb);
	}
	if (x->fault)
		return;
	x->uses_r4 = x->op->flags & OP_R4;

	/* Inputs; unpack applies per consumer (float or integer). */
	if (in->op_add) {
		bool f = addf & QPU_ISA_OP_FLOAT_IN;

		opa = mux_src(q, in->add_a, ra, rb);
		opb = mux_src(q, in->add_b, ra, rb);
		if (x->op->flags & OP_UNPACK) {
			opa = operand(x, in->add_a, ra, rb, f, s->aa);
			opb = operand(x, in->add_b, ra, rb, f, s->ab);
		}
		add->is_mul = false;
		add->is_float = addf & QPU_ISA_OP_FLOAT_OUT;
		add->mask = in->cond_add == QPU_ISA_COND_ALWAYS ? ALL_LANES :
			    qpu_emu_cond_mask(q, in->cond_add);
		carry = alu_add_lanes(in->op_add, opa, opb, add->v, in->sf);
		if (in->pack == QPU_ISA_PACK_A_32_SAT && !in->pm)
			alu_wide(in->op_add, opa, opb, add->v, add->wide);
	}
	if (in->op_mul) {
		bool f = mulf & QPU_ISA_OP_FLOAT_IN;

		opc = mux_src(q, in->mul_a, ra, rb);
		opd = mux_src(q, in->mul_b, ra, rb);
		if (x->op->flags & OP_UNPACK) {
			opc = operand(x, in->mul_a, ra, rb, f, s->ma);
			opd = operand(x, in->mul_b, ra, rb, f, s->mb);
		}
		mul->is_mul = true;
		mul->is_float = mulf & QPU_ISA_OP_FLOAT_OUT;
		mul->mask = in->cond_mul == QPU_ISA_COND_ALWAYS ? ALL_LANES :
			    qpu_emu_cond_mask(q, in->cond_mul);
		alu_mul_lanes(in->op_mul, opc, opd, mul->v);
		if (in->pack == QPU_ISA_PACK_A_32_SAT && !in->pm)
			alu_wide(QPU_ISA_M_NOP, opc, opd, mul->v, mul->wide);
	}
	if (smi && imm->kind == QPU_ISA_SMI_ROTATE && in->op_mul) {
		u32 n = imm->value ? imm->value : q->acc[5][0] & 15;
		bool full = in->mul_a < QPU_ISA_MUX_R4 &&
			    in->mul_b < QPU_ISA_MUX_R4;
		u32 t[LANES];

		for (i = 0; i < LANES; i++)
			t[i] = mul->v[i];
		for (i = 0; i < LANES; i++)
			mul->v[i] = full ? t[(i - n) & 15] :
				t[(i & ~3u) | ((i - n) & 3)];
	}
	if (in->sf) {
		if (in->op_add)
			set_flags(x, add->v, carry, add->mask, add->is_float);
		else if (in->op_mul)
			set_flags(x, mul->v, 0, mul->mask, mul->is_float);
	}
	if (in->op_add)
		write_result(x, in->waddr_add, in->ws, add);
	if (in->op_mul)
		write_result(x, in->waddr_mul, !in->ws, mul);
	if (in->op_add && in->op_mul)
		emu->stats.both_units++;
	if (x->fault)
		return;
	if (in->sig == QPU_ISA_SIG_LDTMU0)
		qpu_emu_tmu_pop(x, 0);
	else if (in->sig == QPU_ISA_SIG_LDTMU1)
		qpu_emu_tmu_pop(x, 1);
	else if (in->sig == QPU_ISA_SIG_THREND)
		q->end_left = 3;
}

/* What qpu_emu_exec_alu_fast() puts in a QPU's splat vectors (qpu_emu_op.fast_splat). */
#define FAST_SPLAT_UNIF_A	BIT_U8(0)	/* the uniform, in splat[0] */
#define FAST_SPLAT_UNIF_B	BIT_U8(1)	/* the uniform, in splat[1] */
#define FAST_SPLAT_IMM_B	BIT_U8(2)	/* fast_imm, in splat[1] */
#define FAST_VPM_A		BIT_U8(3)	/* a VPM read, in splat[0] */
#define FAST_VPM_B		BIT_U8(4)	/* a VPM read, in splat[1] */

/* qpu_emu_op.fast_mul1: which input of an fmul is one value in every lane */
#define FAST_MUL1_A		1
#define FAST_MUL1_B		2

/* A 16-lane fmul, by one value where an input is one in every lane. */
static inline void fast_fmul(const struct qpu_emu_op *op, const u32 *a,
			     const u32 *b, u32 *dst)
{
	if (op->fast_mul1 == FAST_MUL1_B)
		qpu_emu_fmul16_1(a, b[0], dst);
	else if (op->fast_mul1 == FAST_MUL1_A)
		qpu_emu_fmul16_1(b, a[0], dst);
	else
		qpu_emu_fmul16(a, b, dst);
}

/* qpu_emu_op.fast_dst values that are no register's offset */
#define FAST_DST_NOP		0	/* nothing written */
#define FAST_DST_WRITE		1	/* a peripheral or r5: qpu_emu_write_reg() */

/*
 * qpu_emu_exec_alu_fast()'s reads that are no register (op->fast_splat): the
 * uniform, the VPM, a small immediate, into the QPU's splat vectors, in
 * qpu_emu_exec_alu()'s order. True when one faulted.
 */
static bool fast_inputs(struct qpu_emu_exec *x)
{
	const struct qpu_emu_op *op = x->op;
	struct qpu_emu_qpu *q = x->q;

	if (op->flags & OP_UNIF) {
		const u8 *p = win_mem(x, &q->uwin, q->unif,
				      QPU_MEM_UNIFORM);
		u32 unif;

		if (!p)
			return true;
		unif = rd32(p);
		q->unif += 4;
		x->emu->stats.uniform_bytes += 4;
		if (op->fast_splat & FAST_SPLAT_UNIF_A)
			splat(q->splat[0], unif);
		if (op->fast_splat & FAST_SPLAT_UNIF_B)
			splat(q->splat[1], unif);
	}
	if (op->fast_splat & FAST_VPM_A)
		qpu_emu_vpm_read(x, q->splat[0]);
	if (op->fast_splat & FAST_VPM_B)
		qpu_emu_vpm_read(x, q->splat[1]);
	if (op->fast_splat & FAST_SPLAT_IMM_B)
		splat(q->splat[1], op->fast_imm);
	return x->fault;
}

/*
 * A unit of qpu_emu_exec_alu_fast() whose destination is no register: @op (an add
 * op unless @mul) of @a and @b to peripheral @waddr (file B if @file_b)
 * through qpu_emu_write_reg(), or nowhere (FAST_DST_NOP), and the flags if @flags.
 */
static void fast_unit_write(struct qpu_emu_exec *x, bool mul, unsigned int op,
			    const u32 *a, const u32 *b, unsigned int waddr,
			    bool file_b, u16 dst_off, bool flags)
{
	struct qpu_emu_result *r = emu_result(x->emu, mul);
	u32 opf = mul ? qpu_isa_mul_ops[op].flags : qpu_isa_add_ops[op].flags;
	u16 carry = 0;

	if (mul)
		alu_mul_lanes(op, a, b, r->v);
	else
		carry = alu_add_lanes(op, a, b, r->v, flags);
	if (flags)
		set_flags(x, r->v, carry, ALL_LANES,
			  opf & QPU_ISA_OP_FLOAT_OUT);
	if (dst_off == FAST_DST_WRITE) {
		r->mask = ALL_LANES;
		r->is_mul = mul;
		r->is_float = opf & QPU_ISA_OP_FLOAT_OUT;
		qpu_emu_write_reg(x, waddr, file_b, r);
	}
}

/*
 * qpu_emu_exec_alu() for the instructions predecode() marks EX_ALU_FAST: register
 * files read only as registers, uniforms, the VPM, nop or a small
 * immediate (not a rotation), no unpack or pack, each unit absent or
 * unconditional (the flags from the add, else the mul, as qpu_emu_exec_alu() sets
 * them), no signal but ldtmu, thread end or the ones that do nothing: see
 * fast_ok(). Most of a loop looks like that; every test qpu_emu_exec_alu() makes
 * for the rest is left out. Its inputs and outputs are found with no test
 * at all: predecode() turned each into its offset in struct qpu_emu_qpu
 * (registers, accumulators, the QPU's zero vector, or a splat vector
 * filled here); fadd and fmul write their registers straight, the others
 * go through the result buffers, and qpu_emu_write_reg() for peripherals.
 */
__attribute__((flatten)) void qpu_emu_exec_alu_fast(struct qpu_emu_exec *x)
{
	const struct qpu_emu_op *op = x->op;
	const struct qpu_isa_instr *in = x->in;
	struct qpu_emu_qpu *q = x->q;
	struct qpu_emu *emu = x->emu;
	u8 *base = (u8 *)q;
	u32 *dst;

	if (op->fast_splat && fast_inputs(x))
		return;
	x->uses_r4 = op->flags & OP_R4;
	if (in->op_add) {
		const u32 *a = (const u32 *)(base + op->fast_src[0]);
		const u32 *b = (const u32 *)(base + op->fast_src[1]);
		struct qpu_emu_result *r = emu_result(emu, false);
		u16 carry;

		dst = (u32 *)(base + op->fast_dst[0]);
		if (op->fast_dst[0] <= FAST_DST_WRITE) {
			if (!(op->flags & OP_MOV_ADD)) {
				fast_unit_write(x, false, in->op_add, a, b,
						in->waddr_add, in->ws,
						op->fast_dst[0], in->sf);
			} else if (op->fast_dst[0] == FAST_DST_WRITE) {
				/* a mov to a peripheral: a copy into r */
				copy_lanes(r->v, a);
				r->mask = ALL_LANES;
				r->is_mul = false;
				r->is_float = false;
				qpu_emu_write_reg(x, in->waddr_add, in->ws, r);
			}
		} else if (in->op_add == QPU_ISA_A_FADD) {
			/* the flags before the mul may write the same register */
			if (in->sf) {
				qpu_emu_fadd16_2(a, b, 0, dst, q->flag_v);
				flags_pending(q, ALL_LANES, 0, true);
			} else {
				qpu_emu_fadd16(a, b, 0, dst);
			}
		} else if (op->flags & OP_MOV_ADD) {
			if (dst != a)	/* a mov to a register: a copy */
				copy_lanes(dst, a);
		} else {
			carry = alu_add_lanes(in->op_add, a, b, r->v, in->sf);
			if (in->sf)
				set_flags(x, r->v, carry, ALL_LANES,
					  qpu_isa_add_ops[in->op_add].flags &
					  QPU_ISA_OP_FLOAT_OUT);
			copy_lanes(dst, r->v);
		}
	}
	if (in->op_mul) {
		const u32 *a = (const u32 *)(base + op->fast_src[2]);
		const u32 *b = (const u32 *)(base + op->fast_src[3]);
		struct qpu_emu_result *r = emu_result(emu, true);
		bool flags = in->sf && !in->op_add;

		dst = (u32 *)(base + op->fast_dst[1]);
		if (op->fast_dst[1] <= FAST_DST_WRITE) {
			fast_unit_write(x, true, in->op_mul, a, b,
					in->waddr_mul, !in->ws,
					op->fast_dst[1], flags);
		} else if (in->op_mul == QPU_ISA_M_FMUL) {
			fast_fmul(op, a, b, dst);
			if (flags)
				set_flags(x, dst, 0, ALL_LANES, true);
		} else {
			alu_mul_lanes(in->op_mul, a, b, r->v);
			if (flags)
				set_flags(x, r->v, 0, ALL_LANES,
					  qpu_isa_mul_ops[in->op_mul].flags &
					  QPU_ISA_OP_FLOAT_OUT);
			copy_lanes(dst, r->v);
		}
		if (in->op_add)
			emu->stats.both_units++;
	}
	/* not after a fault of a peripheral write; tests, not a jump table */
	if (in->sig == QPU_ISA_SIG_LDTMU0 || in->sig == QPU_ISA_SIG_LDTMU1) {
		if (!x->fault)
			qpu_emu_tmu_pop(x, in->sig == QPU_ISA_SIG_LDTMU1);
	} else if (in->sig == QPU_ISA_SIG_THREND) {
		if (!x->fault)
			q->end_left = 3;
	}
}

/*
 * qpu_emu_exec_alu_fast() for the float compute of sgemm-like loops
 * (op->fast_float): an fadd or fsub, an fmul or both, into registers, no
 * signal that acts. The same steps in the same order, with none of its
 * tests for other shapes.
 */
void qpu_emu_exec_float(struct qpu_emu_exec *x)
{
	const struct qpu_emu_op *op = x->op;
	const struct qpu_isa_instr *in = x->in;
	struct qpu_emu_qpu *q = x->q;
	u8 *base = (u8 *)q;

	if (op->fast_splat && fast_inputs(x))
		return;
	x->uses_r4 = op->flags & OP_R4;
	if (in->op_add && op->fast_mul1) {	/* sgemm's step: one call */
		const u32 *c = (const u32 *)(base + op->fast_src[2]);
		const u32 *d = (const u32 *)(base + op->fast_src[3]);

		if (op->fast_mul1 == FAST_MUL1_A) {
			d = c;
			c = (const u32 *)(base + op->fast_src[3]);
		}
		qpu_emu_fadd_fmul16_1((const u32 *)(base + op->fast_src[0]),
				      (const u32 *)(base + op->fast_src[1]),
				      in->op_add == QPU_ISA_A_FSUB ?
				      0x80000000u : 0,
				      (u32 *)(base + op->fast_dst[0]),
				      in->sf ? q->flag_v : NULL, c, d[0],
				      (u32 *)(base + op->fast_dst[1]));
		if (in->sf)
			flags_pending(q, ALL_LANES, 0, true);
		x->emu->stats.both_units++;
		return;
	}
	if (in->op_add) {
		const u32 *a = (const u32 *)(base + op->fast_src[0]);
		const u32 *b = (const u32 *)(base + op->fast_src[1]);
		u32 *dst = (u32 *)(base + op->fast_dst[0]);
		u32 neg = in->op_add == QPU_ISA_A_FSUB ? 0x80000000u : 0;

		/* the flags before the mul may write the same register */
		if (in->sf) {
			qpu_emu_fadd16_2(a, b, neg, dst, q->flag_v);
			flags_pending(q, ALL_LANES, 0, true);
		} else {
			qpu_emu_fadd16(a, b, neg, dst);
		}
	}
	if (in->op_mul) {
		const u32 *a = (const u32 *)(base + op->fast_src[2]);
		const u32 *b = (const u32 *)(base + op->fast_src[3]);
		u32 *dst = (u32 *)(base + op->fast_dst[1]);

		fast_fmul(op, a, b, dst);
		if (in->sf && !in->op_add) {
			copy_lanes(q->flag_v, dst);
			flags_pending(q, ALL_LANES, 0, true);
		}
		if (in->op_add)
			x->emu->stats.both_units++;
	}
}

/*
 * Can qpu_emu_exec_float() run @op (whose vectors fast_operands() found)?
 * Signals that act (ldtmu, thread end) are left to qpu_emu_exec_alu_fast().
 */
static bool fast_float_ok(const struct qpu_emu_op *op)
{
	const struct qpu_isa_instr *in = &op->in;

	if (in->op_add != QPU_ISA_A_NOP && in->op_add != QPU_ISA_A_FADD &&
	    in->op_add != QPU_ISA_A_FSUB)
		return false;
	if (in->op_mul != QPU_ISA_M_NOP && in->op_mul != QPU_ISA_M_FMUL)
		return false;
	if (!in->op_add && !in->op_mul)
		return false;
	if (in->op_add && op->fast_dst[0] <= FAST_DST_WRITE)
		return false;
	if (in->op_mul && op->fast_dst[1] <= FAST_DST_WRITE)
		return false;
	return in->sig != QPU_ISA_SIG_LDTMU0 && in->sig != QPU_ISA_SIG_LDTMU1 &&
		in->sig != QPU_ISA_SIG_THREND;
}

/*
 * The register a unit writing @waddr in file B (@file_b) or A changes,
 * numbered 0..31 for A, 32..63 for B and 64 + n for rn; -1 for anything
 * else (peripherals, r5, nop).
 */
static int dst_reg(unsigned int waddr, bool file_b)
{
	if (waddr < 32)
		return file_b ? 32 + (int)waddr : (int)waddr;
	if (waddr < QPU_ISA_WADDR_TMU_NOSWAP)
		return 64 + (int)(waddr - QPU_ISA_WADDR_R0);
	return -1;
}

/* Does ALU input @mux of @in read register @reg (dst_reg()'s numbers)? */
static bool mux_reads(const struct qpu_isa_instr *in, unsigned int mux,
		      int reg)
{
	if (mux == QPU_ISA_MUX_A)
		return in->raddr_a < 32 && reg == in->raddr_a;
	if (mux == QPU_ISA_MUX_B)
		return in->kind == QPU_ISA_KIND_ALU && in->raddr_b < 32 &&
			reg == 32 + in->raddr_b;
	return reg == 64 + (int)mux;
}

/* Can qpu_emu_exec_alu_fast() read register file address @raddr? */
static bool fast_raddr(unsigned int raddr)
{
	return raddr < 32 || raddr == QPU_ISA_RADDR_UNIF ||
		raddr == QPU_ISA_RADDR_NOP || raddr == QPU_ISA_RADDR_VPM ||
		raddr == QPU_ISA_RADDR_VPM_BUSY || raddr == QPU_ISA_RADDR_VPM_WAIT;
}

/*
 * Can qpu_emu_exec_alu_fast() run @in? Its units are absent or have condition
 * always (setting the flags or not), nothing is packed or unpacked, the
 * mul does not read what the add wrote (the add writes first; an fadd or
 * fmul may read its own destination, their 16-lane forms read every lane
 * before writing, and the other ops compute into the result buffers
 * first; r5 counts, the only peripheral write a mul can read), the
 * register files read registers, uniforms, the VPM, nop, the wait
 * registers or a small immediate that is no rotation, and the signal is
 * ldtmu, thread end or one that does nothing.
 */
static bool fast_ok(const struct qpu_isa_instr *in)
{
	int add = -1;

	if (in->op_add)
		add = in->waddr_add == QPU_ISA_WADDR_R5 ? 64 + QPU_ISA_MUX_R5 :
			dst_reg(in->waddr_add, in->ws);
	if (in->unpack || in->pack)
		return false;
	if (in->op_add && in->cond_add != QPU_ISA_COND_ALWAYS)
		return false;
	if (in->op_mul && in->cond_mul != QPU_ISA_COND_ALWAYS)
		return false;
	if (in->op_mul && (mux_reads(in, in->mul_a, add) ||
			   mux_reads(in, in->mul_b, add)))
		return false;
	if (!fast_raddr(in->raddr_a))
		return false;
	if (in->kind == QPU_ISA_KIND_ALU_SMALL_IMM ?
	    qpu_isa_small_imms[in->raddr_b].kind == QPU_ISA_SMI_ROTATE :
	    !fast_raddr(in->raddr_b))
		return false;
	switch (in->sig) {
	case QPU_ISA_SIG_LOADCV:
	case QPU_ISA_SIG_LOADC:
	case QPU_ISA_SIG_LDCEND:
	case QPU_ISA_SIG_LOADAM:
		return false;
	default:
		return true;
	}
}

/* Offset in struct qpu_emu_qpu of what register file A (@file_b: B) reads. */
static u16 fast_file_off(const struct qpu_isa_instr *in, bool file_b)
{
	unsigned int raddr = file_b ? in->raddr_b : in->raddr_a;

	if (file_b && in->kind == QPU_ISA_KIND_ALU_SMALL_IMM)
		return offsetof(struct qpu_emu_qpu, splat[1]);
	if (raddr < 32)
		return file_b ? offsetof(struct qpu_emu_qpu, rb[raddr]) :
			offsetof(struct qpu_emu_qpu, ra[raddr]);
	if (raddr != QPU_ISA_RADDR_UNIF && raddr != QPU_ISA_RADDR_VPM)
		return offsetof(struct qpu_emu_qpu, zero);	/* nop, waits */
	if (file_b && in->raddr_a == raddr)
		return offsetof(struct qpu_emu_qpu, splat[0]);	/* one read */
	return file_b ? offsetof(struct qpu_emu_qpu, splat[1]) :
		offsetof(struct qpu_emu_qpu, splat[0]);
}

static u16 fast_mux_off(const struct qpu_isa_instr *in, unsigned int mux)
{
	if (mux == QPU_ISA_MUX_A || mux == QPU_ISA_MUX_B)
		return fast_file_off(in, mux == QPU_ISA_MUX_B);
	return offsetof(struct qpu_emu_qpu, acc[mux]);
}

/*
 * Offset of register @waddr (dst_reg()'s 0..35) of A or B, or
 * FAST_DST_NOP or FAST_DST_WRITE.
 */
static u16 fast_dst_off(unsigned int waddr, bool file_b)
{
	if (waddr < 32)
		return file_b ? offsetof(struct qpu_emu_qpu, rb[waddr]) :
			offsetof(struct qpu_emu_qpu, ra[waddr]);
	if (waddr < QPU_ISA_WADDR_TMU_NOSWAP)
		return offsetof(struct qpu_emu_qpu, acc[waddr - QPU_ISA_WADDR_R0]);
	return waddr == QPU_ISA_WADDR_NOP ? FAST_DST_NOP : FAST_DST_WRITE;
}

/* Does the vector at offset @off hold one value in every lane? */
static bool fast_is_splat(const struct qpu_emu_op *op, u16 off)
{
	if (off == offsetof(struct qpu_emu_qpu, splat[0]))
		return op->fast_splat & FAST_SPLAT_UNIF_A;
	if (off == offsetof(struct qpu_emu_qpu, splat[1]))
		return op->fast_splat & (FAST_SPLAT_UNIF_B | FAST_SPLAT_IMM_B);
	return false;
}

/* Where qpu_emu_exec_alu_fast() finds the vectors of @op's instruction. */
static void fast_operands(struct qpu_emu_op *op)
{
	const struct qpu_isa_instr *in = &op->in;
	bool smi = in->kind == QPU_ISA_KIND_ALU_SMALL_IMM;

	op->fast_splat = 0;
	if (in->raddr_a == QPU_ISA_RADDR_UNIF)
		op->fast_splat |= FAST_SPLAT_UNIF_A;
	if (!smi && in->raddr_b == QPU_ISA_RADDR_UNIF && in->raddr_a != QPU_ISA_RADDR_UNIF)
		op->fast_splat |= FAST_SPLAT_UNIF_B;
	if (in->raddr_a == QPU_ISA_RADDR_VPM)
		op->fast_splat |= FAST_VPM_A;
	if (!smi && in->raddr_b == QPU_ISA_RADDR_VPM && in->raddr_a != QPU_ISA_RADDR_VPM)
		op->fast_splat |= FAST_VPM_B;
	if (smi) {
		op->fast_splat |= FAST_SPLAT_IMM_B;
		op->fast_imm = qpu_isa_small_imms[in->raddr_b].value;
	}
	op->fast_src[0] = fast_mux_off(in, in->add_a);
	op->fast_src[1] = fast_mux_off(in, in->add_b);
	op->fast_src[2] = fast_mux_off(in, in->mul_a);
	op->fast_src[3] = fast_mux_off(in, in->mul_b);
	op->fast_mul1 = 0;
	if (in->op_mul == QPU_ISA_M_FMUL && fast_is_splat(op, op->fast_src[3]))
		op->fast_mul1 = FAST_MUL1_B;
	else if (in->op_mul == QPU_ISA_M_FMUL &&
		 fast_is_splat(op, op->fast_src[2]))
		op->fast_mul1 = FAST_MUL1_A;	/* fmul commutes, NaNs too */
	op->fast_dst[0] = fast_dst_off(in->waddr_add, in->ws);
	op->fast_dst[1] = fast_dst_off(in->waddr_mul, !in->ws);
	if (in->op_add == QPU_ISA_A_OR && !in->sf &&
	    op->fast_src[0] == op->fast_src[1])
		op->flags |= OP_MOV_ADD;
	/* no read that changes anything, no unit, no signal that acts */
	if (!op->fast_splat && !in->op_add && !in->op_mul &&
	    in->sig != QPU_ISA_SIG_LDTMU0 && in->sig != QPU_ISA_SIG_LDTMU1 &&
	    in->sig != QPU_ISA_SIG_THREND)
		op->flags |= OP_NOP;
	op->fast_float = fast_float_ok(op);
}

bool qpu_emu_fast_prepare(struct qpu_emu_op *op)
{
	if (!fast_ok(&op->in))
		return false;
	fast_operands(op);
	return true;
}
