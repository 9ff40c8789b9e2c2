// SPDX-License-Identifier: MIT
/*
 * The V3D 4.2/7.1 instruction builder that the text assembler (asm/asm_v3d.c)
 * and the C emitter (emit_v3d.c) share: operands placed on the read
 * addresses (4.2: two shared ones, a small immediate in raddr_b; 7.1: one
 * per operand), signals collected, then the core's canonical form and
 * encoder, so both front ends refuse the same things with the same words.
 */
#include <stdarg.h>
#include <stdio.h>

#include "emit/instr_build_v3d.h"

static bool __attribute__((format(printf, 2, 3)))
refuse(struct qpu_v3d_build *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->msg, sizeof(b->msg), fmt, ap);
	va_end(ap);
	return false;
}

void qpu_v3d_build_init(struct qpu_v3d_build *b, enum qpu_gen gen)
{
	b->gen = gen;
	qpu_v3d_nop(&b->in);
	b->sig = 0;
	b->nregs = 0;
	b->ports = 0;
	b->msg[0] = '\0';
}

bool qpu_v3d_build_op(struct qpu_v3d_build *b, bool mul, unsigned int op)
{
	struct qpu_v3d_alu *alu = mul ? &b->in.mul : &b->in.add;
	unsigned int count = mul ? QPU_V3D_M_COUNT : QPU_V3D_A_COUNT;
	const struct qpu_v3d_op_info *info;

	if (op >= count)
		return refuse(b, "%s operation %u does not exist",
			      mul ? "mul" : "add", op);
	info = mul ? &qpu_v3d_mul_op_info[op] : &qpu_v3d_add_op_info[op];
	if (mul ? !qpu_v3d_mul_op_valid(b->gen, op) :
	    !qpu_v3d_add_op_valid(b->gen, op))
		return refuse(b, "%s is no %s operation of %s", info->name,
			      mul ? "mul" : "add", QPU_V3D_GEN_NAME(b->gen));
	alu->op = op;
	alu->waddr = QPU_V3D_W_NOP;
	alu->magic = true;
	return true;
}

static u8 *operand_field(struct qpu_v3d_instr *in, int slot)
{
	switch (slot) {
	case QPU_V3D_SLOT_ADD_A:
		return &in->add.a;
	case QPU_V3D_SLOT_ADD_B:
		return &in->add.b;
	case QPU_V3D_SLOT_MUL_A:
		return &in->mul.a;
	default:
		return &in->mul.b;
	}
}

/* 4.2: the mux that reads register @r, placing it in raddr_a or raddr_b. */
static bool place_reg(struct qpu_v3d_build *b, unsigned int r, u8 *mux)
{
	struct qpu_v3d_instr *in = &b->in;

	if (b->ports)
		return refuse(b, "rf%u: name the read address of every "
			      "register-file read (rfN.a, rfN.b) or of none", r);
	if (b->nregs >= 1 && in->raddr_a == r) {
		*mux = QPU_V3D_MUX_A;
	} else if (b->nregs >= 2 && in->raddr_b == r) {
		*mux = QPU_V3D_MUX_B;
	} else if (b->nregs == 0) {
		in->raddr_a = r;
		b->nregs = 1;
		*mux = QPU_V3D_MUX_A;
	} else if (b->nregs == 1 &&
		   !(b->sig & (QPU_V3D_SIG_SMIMM_B | QPU_V3D_SIG_ROT))) {
		in->raddr_b = r;
		b->nregs = 2;
		*mux = QPU_V3D_MUX_B;
	} else if (b->sig & QPU_V3D_SIG_ROT) {
		return refuse(b, "rf%u: with rot, V3D 4.2's raddr_b holds the "
			      "rotation and one register-file address is left", r);
	} else {
		return refuse(b, "rf%u: V3D 4.2 reads two register-file addresses "
			      "(or one and a small immediate) per instruction", r);
	}
	return true;
}

bool qpu_v3d_build_src_rf(struct qpu_v3d_build *b, int slot, unsigned int n)
{
	if (n >= 64)
		return refuse(b, "rf%u: the register file has rf0..rf63", n);
	if (b->gen == QPU_GEN_V3D71) {
		*operand_field(&b->in, slot) = n;
		return true;
	}
	return place_reg(b, n, operand_field(&b->in, slot));
}

bool qpu_v3d_build_src_rf_port(struct qpu_v3d_build *b, int slot,
			       unsigned int n, unsigned int port)
{
	struct qpu_v3d_instr *in = &b->in;
	u8 *raddr = port ? &in->raddr_b : &in->raddr_a;

	if (b->gen != QPU_GEN_V3D42)
		return refuse(b, "rf%u.%c: only V3D 4.2 has shared read "
			      "addresses", n, port ? 'b' : 'a');
	if (n >= 64 || port > 1)
		return refuse(b, "rf%u: the register file has rf0..rf63", n);
	if (b->nregs)
		return refuse(b, "rf%u.%c: name the read address of every "
			      "register-file read or of none", n, port ? 'b' : 'a');
	if (port && (b->sig & (QPU_V3D_SIG_SMIMM_B | QPU_V3D_SIG_ROT)))
		return refuse(b, "rf%u.b: raddr_b holds the small immediate "
			      "or the rotation", n);
	if ((b->ports >> port & 1) && *raddr != n)
		return refuse(b, "rf%u.%c: the read address holds rf%u already",
			      n, port ? 'b' : 'a', *raddr);
	*raddr = n;
	b->ports |= 1u << port;
	*operand_field(in, slot) = port ? QPU_V3D_MUX_B : QPU_V3D_MUX_A;
	return true;
}

bool qpu_v3d_build_acc_ok(struct qpu_v3d_build *b, unsigned int n)
{
	if (b->gen == QPU_GEN_V3D71)
		return refuse(b, "r%u: V3D 7.1 has no accumulators (use rfN)", n);
	if (n > 5)
		return refuse(b, "r%u: the accumulators are r0..r5", n);
	return true;
}

bool qpu_v3d_build_src_acc(struct qpu_v3d_build *b, int slot, unsigned int n)
{
	if (!qpu_v3d_build_acc_ok(b, n))
		return false;
	*operand_field(&b->in, slot) = n;
	return true;
}

bool qpu_v3d_build_src_imm(struct qpu_v3d_build *b, int slot, unsigned int idx)
{
	static const u32 imm71[] = {
		QPU_V3D_SIG_SMIMM_A, QPU_V3D_SIG_SMIMM_B,
		QPU_V3D_SIG_SMIMM_C, QPU_V3D_SIG_SMIMM_D,
	};
	struct qpu_v3d_instr *in = &b->in;

	if (idx >= QPU_V3D_SMALL_IMMS)
		return refuse(b, "not a small immediate (0..15, -16..-1, or "
			      "2^-8..2^7 as floats)");
	if (b->gen == QPU_GEN_V3D71) {
		*operand_field(in, slot) = idx;
		b->sig |= imm71[slot];
		return true;
	}
	if (b->sig & QPU_V3D_SIG_ROT)
		return refuse(b, "a small immediate besides rot: V3D 4.2 keeps "
			      "both in raddr_b");
	if (b->sig & QPU_V3D_SIG_SMIMM_B) {
		if (in->raddr_b != idx)
			return refuse(b, "one small immediate per instruction "
				      "on V3D 4.2");
	} else if (b->nregs >= 2 || (b->ports & 2)) {
		return refuse(b, "a small immediate besides two register-file "
			      "reads");
	}
	in->raddr_b = idx;
	b->sig |= QPU_V3D_SIG_SMIMM_B;
	*operand_field(in, slot) = QPU_V3D_MUX_B;
	return true;
}

bool qpu_v3d_build_dst(struct qpu_v3d_build *b, bool mul, unsigned int waddr,
		       bool magic)
{
	struct qpu_v3d_alu *alu = mul ? &b->in.mul : &b->in.add;

	if (waddr >= 64)
		return refuse(b, "write address %u: there are 0..63", waddr);
	if (magic && !qpu_v3d_waddr_name(b->gen, waddr))
		return refuse(b, "magic write address %u does not exist on %s",
			      waddr, QPU_V3D_GEN_NAME(b->gen));
	alu->waddr = waddr;
	alu->magic = magic;
	return true;
}

bool qpu_v3d_build_rot(struct qpu_v3d_build *b, int amount)
{
	if (b->gen == QPU_GEN_V3D71)
		return refuse(b, "rot is no signal of V3D 7.1 (its add ALU has "
			      "the rot and rotq operations)");
	if (b->sig & QPU_V3D_SIG_ROT)
		return refuse(b, "signal rot given twice");
	if (amount < -16 || amount > 15)
		return refuse(b, "rot(%d): the rotation is -16..15", amount);
	if (b->sig & QPU_V3D_SIG_SMIMM_B)
		return refuse(b, "rot besides a small immediate: V3D 4.2 keeps "
			      "both in raddr_b");
	if (b->nregs >= 2 || (b->ports & 2))
		return refuse(b, "rot besides two register-file reads: V3D 4.2 "
			      "keeps the rotation in raddr_b");
	b->in.raddr_b = (unsigned int)amount & 31;
	b->sig |= QPU_V3D_SIG_ROT;
	return true;
}

bool qpu_v3d_build_sig(struct qpu_v3d_build *b, u32 bit, int addr, bool magic)
{
	const char *name;

	if (bit == QPU_V3D_SIG_ROT && addr < 0)
		return qpu_v3d_build_rot(b, 0);

	if (!bit || (bit & (bit - 1)) || bit >= 1u << QPU_V3D_SIG_BITS ||
	    (bit & QPU_V3D_SIG_SMIMMS))
		return refuse(b, "signal 0x%x is not one signal", bit);
	name = qpu_v3d_sig_names[__builtin_ctz(bit)];
	if (b->sig & bit)
		return refuse(b, "signal %s given twice", name);
	if (!(bit & QPU_V3D_SIG_WRITES_ADDR)) {
		if (addr >= 0)
			return refuse(b, "signal %s writes no register", name);
	} else {
		if (addr < 0)
			return refuse(b, "signal %s needs its destination "
				      "(.rfN or .NAME)", name);
		if (addr >= 64)
			return refuse(b, "write address %d: there are 0..63", addr);
		if (magic && !qpu_v3d_waddr_name(b->gen, addr))
			return refuse(b, "magic write address %d does not exist "
				      "on %s", addr, QPU_V3D_GEN_NAME(b->gen));
		b->in.sig_addr = addr;
		b->in.sig_magic = magic;
	}
	b->sig |= bit;
	return true;
}

bool qpu_v3d_build_branch(struct qpu_v3d_build *b, unsigned int cond,
			  unsigned int bdi, u32 offset, unsigned int rf)
{
	struct qpu_v3d_branch *br = &b->in.br;

	if (cond >= QPU_V3D_BR_COND_COUNT)
		return refuse(b, "branch condition %u does not exist", cond);
	if (bdi > QPU_V3D_BR_DEST_RF)
		return refuse(b, "branch destination %u does not exist", bdi);
	if (bdi == QPU_V3D_BR_DEST_REL && (offset & 7))
		return refuse(b, "branch offset %d is not a multiple of 8",
			      (int)offset);
	if (bdi == QPU_V3D_BR_DEST_ABS && (offset & 7))
		return refuse(b, "branch address 0x%x is not a multiple of 8",
			      offset);
	if (bdi == QPU_V3D_BR_DEST_RF && rf >= 64)
		return refuse(b, "rf%u: the register file has rf0..rf63", rf);
	b->in.is_branch = true;
	br->cond = cond;
	br->bdi = bdi;
	br->offset = bdi <= QPU_V3D_BR_DEST_REL ? offset : 0;
	if (bdi == QPU_V3D_BR_DEST_RF)
		br->raddr_a = rf;
	return true;
}

bool qpu_v3d_build_branch_msfign(struct qpu_v3d_build *b,
				 unsigned int msfign)
{
	if (!b->in.is_branch)
		return refuse(b, "msfign: the instruction is no branch");
	if (msfign >= QPU_V3D_MSFIGN_COUNT)
		return refuse(b, "msfign %u does not exist", msfign);
	if (b->in.br.msfign)
		return refuse(b, "msfign given twice");
	b->in.br.msfign = msfign;
	return true;
}

bool qpu_v3d_build_branch_unif(struct qpu_v3d_build *b, unsigned int bdu,
			       unsigned int rf)
{
	struct qpu_v3d_branch *br = &b->in.br;

	if (!b->in.is_branch)
		return refuse(b, "the uniform target: the instruction is no branch");
	if (br->ub)
		return refuse(b, "the uniform target is given twice");
	if (bdu > QPU_V3D_BR_DEST_RF)
		return refuse(b, "uniform destination %u does not exist", bdu);
	if (bdu == QPU_V3D_BR_DEST_RF) {
		if (rf >= 64)
			return refuse(b, "rf%u: the register file has rf0..rf63", rf);
		if (br->bdi == QPU_V3D_BR_DEST_RF && rf != br->raddr_a)
			return refuse(b, "both targets read raddr_a: rf%u and "
				      "rf%u differ", br->raddr_a, rf);
		br->raddr_a = rf;
	}
	br->ub = true;
	br->bdu = bdu;
	return true;
}

bool qpu_v3d_build_branch_link(struct qpu_v3d_build *b)
{
	if (!b->in.is_branch)
		return refuse(b, "link: the instruction is no branch");
	if (b->in.br.link)
		return refuse(b, "link given twice");
	b->in.br.link = true;
	return true;
}

bool qpu_v3d_build_branch_bdu(struct qpu_v3d_build *b, unsigned int bdu)
{
	if (!b->in.is_branch)
		return refuse(b, "bdu: the instruction is no branch");
	if (b->in.br.ub)
		return refuse(b, "bdu=N is for a branch without ub (\"b\", not "
			      "\"bu\"): \"bu\" names its uniform target");
	if (bdu > 7)
		return refuse(b, "bdu %u: the field holds 0..7", bdu);
	b->in.br.bdu = bdu;
	return true;
}

bool qpu_v3d_build_encode(struct qpu_v3d_build *b, u64 *word)
{
	int code;

	if (!b->in.is_branch) {
		code = qpu_v3d_sig_code(b->gen, b->sig);
		if (code < 0)
			return refuse(b, "%s has no signal code for this "
				      "combination of signals and small "
				      "immediates", QPU_V3D_GEN_NAME(b->gen));
		b->in.sig = code;
	}
	if (b->ports ? qpu_v3d_encode_ported(b->gen, &b->in, word) :
	    qpu_v3d_encode_canonical(b->gen, &b->in, word))
		return refuse(b, "no %s encoding has these operands, flags and "
			      "modifiers together", QPU_V3D_GEN_NAME(b->gen));
	return true;
}
