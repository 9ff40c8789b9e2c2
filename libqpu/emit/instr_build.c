// SPDX-License-Identifier: MIT
/*
 * The instruction builder (instr_build.h): typed operands to a word, with
 * the placement rules and refusals both assemblers share. Sources are
 * placed in two passes: first those with one possible place (accumulators,
 * one regfile, small immediates), then names both regfiles have, in
 * regfile A when it is free, so a fixed operand never loses its port to a
 * flexible one.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "emit/instr_build.h"

static int __attribute__((format(printf, 3, 4)))
fail(struct qpu_ib_error *err, unsigned int where, const char *fmt, ...)
{
	va_list ap;

	err->where = where;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

void qpu_ib_src_init(struct qpu_ib_src *s)
{
	memset(s, 0, sizeof(*s));
	s->mux = -1;
	s->raddr[0] = s->raddr[1] = -1;
	s->smi = QPU_IB_SMI_NONE;
}

void qpu_ib_dest_init(struct qpu_ib_dest *d)
{
	memset(d, 0, sizeof(*d));
	d->waddr[0] = d->waddr[1] = -1;
	d->cond = d->pack_a = d->pack_mul = -1;
}

void qpu_ib_alu_init(struct qpu_ib_alu *alu)
{
	memset(alu, 0, sizeof(*alu));
	qpu_ib_dest_init(&alu->add.d);
	qpu_ib_dest_init(&alu->mul.d);
	alu->sig = QPU_ISA_SIG_NONE;
}

int qpu_ib_smi_int(int64_t v)
{
	return v >= -16 && v <= 15 ? (int)(v & 31) : -1;
}

int qpu_ib_smi_float(uint32_t bits)
{
	unsigned int i;

	for (i = 32; i < QPU_ISA_SMALL_IMM_ROT; i++)
		if (qpu_isa_small_imms[i].value == bits)
			return (int)i;
	return -1;
}

/* --- destinations ---------------------------------------------------------- */

/* Choose ws and set the write addresses of both sides. */
static int place_dests(struct qpu_isa_instr *in, const struct qpu_ib_dest *add,
		       const struct qpu_ib_dest *mul, struct qpu_ib_error *err)
{
	int ws;

	for (ws = 0; ws < 2; ws++)
		if ((!add->present || add->waddr[ws] >= 0) &&
		    (!mul->present || mul->waddr[!ws] >= 0))
			break;
	if (ws == 2)
		return fail(err, mul->present ? mul->where : add->where,
			    "the two destinations need different register files");
	in->ws = ws;
	in->waddr_add = add->present ? add->waddr[ws] : QPU_ISA_WADDR_NOP;
	in->waddr_mul = mul->present ? mul->waddr[!ws] : QPU_ISA_WADDR_NOP;
	return 0;
}

/*
 * The 8888 pack replicates a byte in regfile A for the add ALU and for a
 * mul ALU writing regfile A, else in the mul ALU, as vc4asm chooses.
 */
static void resolve_pack(struct qpu_ib_dest *d, bool is_mul, bool rega)
{
	if (!d->pack_generic)
		return;
	if (is_mul && !rega) {
		d->pack_mul = QPU_ISA_PACK_MUL_8888;
		d->pack_a = -1;
	} else {
		d->pack_a = QPU_ISA_PACK_A_8888;
		d->pack_mul = -1;
	}
}

/* The packs of both destinations into @in->pack; *@pm the mode, or -1. */
static int place_packs(struct qpu_isa_instr *in, const struct qpu_ib_dest *add_dest,
		       const struct qpu_ib_dest *mul_dest, int *pm,
		       struct qpu_ib_error *err)
{
	struct qpu_ib_dest a = *add_dest, m = *mul_dest;

	*pm = -1;
	resolve_pack(&a, false, !in->ws && in->waddr_add < 32);
	resolve_pack(&m, true, in->ws && in->waddr_mul < 32);
	if (a.pack_mul >= 0)
		return fail(err, a.where, "the add ALU has no float pack");
	if (a.pack_a >= 0) {
		if (in->ws || in->waddr_add >= 32)
			return fail(err, a.where, "pack needs a regfile A register");
		in->pack = a.pack_a;
		*pm = 0;
	}
	if (m.pack_a < 0 && m.pack_mul < 0)
		return 0;
	if (a.pack_a >= 0)
		return fail(err, m.where, "only one pack per instruction");
	if (m.pack_mul >= 0) {
		in->pack = m.pack_mul;
		*pm = 1;
		return 0;
	}
	if (!in->ws || in->waddr_mul >= 32)
		return fail(err, m.where, "pack needs a regfile A register");
	in->pack = m.pack_a;
	*pm = 0;
	return 0;
}

/* An unconditional write, or none when nothing is written or flagged. */
static unsigned int default_cond(const struct qpu_ib_dest *d, unsigned int waddr,
				 bool sets_flags)
{
	if (d->cond >= 0)
		return d->cond;
	return waddr == QPU_ISA_WADDR_NOP && !sets_flags ? QPU_ISA_COND_NEVER :
		QPU_ISA_COND_ALWAYS;
}

static int encode(const struct qpu_isa_instr *in, unsigned int where, uint64_t *word,
		  struct qpu_ib_error *err)
{
	if (qpu_isa_encode(in, word))
		return fail(err, where, "instruction cannot be encoded");
	return 0;
}

/* --- sources ---------------------------------------------------------------- */

/* The read ports while the sources of one word are placed. */
struct ports {
	int raddr_a, raddr_b;	/* -1 free */
	bool smi;
	int pm;			/* -1 free */
	unsigned int rot;	/* 0 none */
	unsigned int unpack;
};

static int set_pm(struct ports *p, int pm, unsigned int where, struct qpu_ib_error *err)
{
	if (p->pm >= 0 && p->pm != pm)
		return fail(err, where, "pack and unpack need different pm modes");
	p->pm = pm;
	return 0;
}

static int use_raddr(int *slot, int addr, const struct qpu_ib_src *s, char file,
		     struct qpu_ib_error *err)
{
	if (*slot >= 0 && *slot != addr)
		return fail(err, s->where, "regfile %c is already read at another address",
			    file);
	*slot = addr;
	return 0;
}

static int place_smi(struct ports *p, const struct qpu_ib_src *s, struct qpu_ib_error *err)
{
	if (s->smi >= QPU_ISA_SMALL_IMM_ROT)
		return fail(err, s->where, "value cannot be a small immediate");
	if (p->smi && p->raddr_b != s->smi)
		return fail(err, s->where, "only one small immediate per instruction");
	if (!p->smi && p->raddr_b >= 0)
		return fail(err, s->where, "regfile B is already read");
	p->smi = true;
	p->raddr_b = s->smi;
	return QPU_ISA_MUX_B;
}

/* The mux of @s, or a negative errno; -1 (nothing placed) if not in @pass. */
static int place_mux(struct ports *p, const struct qpu_ib_src *s, int pass,
		     struct qpu_ib_error *err)
{
	bool both = s->raddr[0] >= 0 && s->raddr[1] >= 0;
	int ret;

	if ((s->smi != QPU_IB_SMI_NONE || s->mux >= 0 || !both) != !pass)
		return -1;
	if (s->smi != QPU_IB_SMI_NONE)
		return place_smi(p, s, err);
	if (s->mux >= 0)
		return s->mux;
	if (both) {
		if (p->raddr_a < 0 || p->raddr_a == s->raddr[0]) {
			p->raddr_a = s->raddr[0];
			return QPU_ISA_MUX_A;
		}
		if (!p->smi && (p->raddr_b < 0 || p->raddr_b == s->raddr[1])) {
			p->raddr_b = s->raddr[1];
			return QPU_ISA_MUX_B;
		}
		return fail(err, s->where, "no free register file to read '%s'", s->name);
	}
	if (s->raddr[0] >= 0) {
		ret = use_raddr(&p->raddr_a, s->raddr[0], s, 'A', err);
		return ret ? ret : QPU_ISA_MUX_A;
	}
	if (p->smi)
		return fail(err, s->where, "regfile B is taken by a small immediate");
	ret = use_raddr(&p->raddr_b, s->raddr[1], s, 'B', err);
	return ret ? ret : QPU_ISA_MUX_B;
}

/* Place @s in @pass: its mux, -1 if it waits for the other pass, or an error. */
static int place_src(struct ports *p, const struct qpu_ib_src *s, int pass,
		     struct qpu_ib_error *err)
{
	int mux = place_mux(p, s, pass, err), ret;

	if (mux < 0 || !s->unpack)
		return mux;
	if (s->unpack > QPU_ISA_UNPACK_8D)
		return fail(err, s->where, "unknown unpack %u", s->unpack);
	if (mux != QPU_ISA_MUX_R4 && mux != QPU_ISA_MUX_A)
		return fail(err, s->where, "unpack needs r4 or a regfile A register");
	ret = set_pm(p, mux == QPU_ISA_MUX_R4, s->where, err);
	if (ret)
		return ret;
	if (p->unpack && p->unpack != s->unpack)
		return fail(err, s->where, "only one unpack per instruction");
	p->unpack = s->unpack;
	return mux;
}

static int place_rotation(struct ports *p, unsigned int rot, unsigned int where,
			  struct qpu_ib_error *err)
{
	if (!rot)
		return 0;
	if (rot > QPU_IB_ROT_R5)
		return fail(err, where, "rotation out of range");
	if (p->rot && p->rot != rot)
		return fail(err, where, "both mul inputs need the same rotation");
	p->rot = rot;
	return 0;
}

/* --- instructions ------------------------------------------------------------- */

static int alu_flags_dests(const struct qpu_ib_alu *alu, struct qpu_isa_instr *in,
			   struct ports *p, struct qpu_ib_error *err)
{
	const struct qpu_ib_side *add = &alu->add, *mul = &alu->mul;
	bool mul_used = mul->active && mul->op;
	struct qpu_ib_dest none;
	int pm, ret;

	if (add->setf && mul->setf)
		return fail(err, mul->where, "only one ALU can set the flags");
	if (mul->setf && add->active && add->op)
		return fail(err, mul->where,
			    "the mul ALU sets flags only when the add ALU is idle");
	in->sf = add->setf || mul->setf;
	qpu_ib_dest_init(&none);
	ret = place_dests(in, add->active ? &add->d : &none,
			  mul->active ? &mul->d : &none, err);
	if (!ret)
		ret = place_packs(in, add->active ? &add->d : &none,
				  mul->active ? &mul->d : &none, &pm, err);
	if (!ret && pm >= 0)
		ret = set_pm(p, pm, add->active && add->d.pack_a >= 0 ? add->d.where :
			     mul->d.where, err);
	if (ret)
		return ret;
	in->op_add = add->op;
	in->op_mul = mul->op;
	if (add->active)
		in->cond_add = default_cond(&add->d, in->waddr_add, add->setf);
	else
		in->cond_add = in->sf && mul_used ? QPU_ISA_COND_ALWAYS :
			QPU_ISA_COND_NEVER;
	in->cond_mul = mul->active ? default_cond(&mul->d, in->waddr_mul, mul->setf) :
		QPU_ISA_COND_NEVER;
	return 0;
}

int qpu_ib_alu(const struct qpu_ib_alu *alu, uint64_t *word, struct qpu_ib_error *err)
{
	const struct qpu_ib_side *add = &alu->add, *mul = &alu->mul;
	struct qpu_isa_instr in = { .kind = QPU_ISA_KIND_ALU };
	struct ports p = { .raddr_a = -1, .raddr_b = -1, .pm = -1 };
	const struct qpu_ib_src *srcs[4] = { NULL };
	int muxes[4] = { -1, -1, -1, -1 }, pass, ret;
	unsigned int i;

	ret = alu_flags_dests(alu, &in, &p, err);
	if (ret)
		return ret;
	if (add->active && add->op) {
		srcs[0] = add->a;
		srcs[1] = add->b;
		for (i = 0; i < 2; i++)
			if (srcs[i]->rot)
				return fail(err, srcs[i]->rot_where,
					    "only mul ALU inputs can be rotated");
	}
	if (mul->active && mul->op) {
		srcs[2] = mul->a;
		srcs[3] = mul->b;
		ret = place_rotation(&p, alu->result_rot, alu->result_rot_where, err);
		for (i = 2; i < 4 && !ret; i++)
			ret = place_rotation(&p, srcs[i]->rot, srcs[i]->rot_where, err);
		if (ret)
			return ret;
	}
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < 4; i++) {
			if (!srcs[i] || muxes[i] >= 0)
				continue;
			if (i % 2 && srcs[i] == srcs[i - 1]) {
				muxes[i] = muxes[i - 1];
				continue;
			}
			muxes[i] = place_src(&p, srcs[i], pass, err);
			if (muxes[i] < -1)
				return muxes[i];
		}
		for (i = 0; i < alu->nreads; i++) {
			ret = place_src(&p, &alu->reads[i], pass, err);
			if (ret < -1)
				return ret;
		}
	}
	if (p.rot) {
		if (p.smi || p.raddr_b >= 0)
			return fail(err, mul->d.where, "a rotation needs regfile B unused");
		p.smi = true;
		p.raddr_b = QPU_ISA_SMALL_IMM_ROT + (p.rot == QPU_IB_ROT_R5 ? 0 : p.rot);
	}
	if (p.smi && alu->sig != QPU_ISA_SIG_NONE)
		return fail(err, alu->sig_where,
			    "a signal cannot be used with a small immediate or rotation");
	in.kind = p.smi ? QPU_ISA_KIND_ALU_SMALL_IMM : QPU_ISA_KIND_ALU;
	in.sig = p.smi ? QPU_ISA_SIG_SMALL_IMM : alu->sig;
	in.raddr_a = p.raddr_a >= 0 ? p.raddr_a : QPU_ISA_RADDR_NOP;
	in.raddr_b = p.raddr_b >= 0 ? p.raddr_b : QPU_ISA_RADDR_NOP;
	in.pm = p.pm > 0;
	in.unpack = p.unpack;
	in.add_a = muxes[0] > 0 ? muxes[0] : 0;
	in.add_b = muxes[1] > 0 ? muxes[1] : 0;
	in.mul_a = muxes[2] > 0 ? muxes[2] : 0;
	in.mul_b = muxes[3] > 0 ? muxes[3] : 0;
	return encode(&in, alu->where, word, err);
}

int qpu_ib_ldi(struct qpu_isa_instr *in, const struct qpu_ib_dest *add,
	       const struct qpu_ib_dest *mul, bool setf, unsigned int where,
	       uint64_t *word, struct qpu_ib_error *err)
{
	int pm, ret;

	ret = place_dests(in, add, mul, err);
	if (!ret)
		ret = place_packs(in, add, mul, &pm, err);
	if (ret)
		return ret;
	in->pm = pm > 0;
	in->sf = setf;
	in->cond_add = default_cond(add, in->waddr_add, setf);
	in->cond_mul = mul->present ? default_cond(mul, in->waddr_mul, false) :
		QPU_ISA_COND_NEVER;
	return encode(in, where, word, err);
}

int qpu_ib_branch(struct qpu_isa_instr *in, const struct qpu_ib_dest *add,
		  const struct qpu_ib_dest *mul, unsigned int where,
		  uint64_t *word, struct qpu_ib_error *err)
{
	int ret = place_dests(in, add, mul, err);

	return ret ? ret : encode(in, where, word, err);
}

int qpu_ib_branch_reg(struct qpu_isa_instr *in, const struct qpu_ib_src *reg,
		      struct qpu_ib_error *err)
{
	if (reg->mux >= 0 || reg->smi != QPU_IB_SMI_NONE || reg->raddr[1] >= 0 ||
	    reg->raddr[0] < 0 || reg->raddr[0] > 31 || reg->unpack || reg->rot)
		return fail(err, reg->where, "expected a regfile A register ra0..ra31");
	in->br_reg = true;
	in->raddr_a = reg->raddr[0];
	return 0;
}

int qpu_ib_ldi_elems(struct qpu_isa_instr *in, const int64_t *values,
		     int is_signed, unsigned int where, struct qpu_ib_error *err)
{
	s32 elems[16];
	unsigned int i;

	if (is_signed < 0)
		for (i = 0, is_signed = 1; i < 16; i++)
			if (values[i] > 1)
				is_signed = 0;
	for (i = 0; i < 16; i++) {
		if (values[i] < (is_signed ? -2 : 0) || values[i] > (is_signed ? 1 : 3))
			return fail(err, where, "element %u out of range: %lld", i,
				    (long long)values[i]);
		elems[i] = (s32)values[i];
	}
	in->kind = is_signed ? QPU_ISA_KIND_LDI_PES : QPU_ISA_KIND_LDI_PEU;
	if (qpu_isa_ldi_pack_elems(elems, is_signed, &in->imm))
		return fail(err, where, "elements out of range");
	return 0;
}
