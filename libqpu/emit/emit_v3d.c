// SPDX-License-Identifier: MIT
/*
 * The V3D 4.2/7.1 C emitter (qpu_emit_v3d.h). Calls fill the open
 * instruction, a struct qpu_v3d_build from the builder the text assembler
 * uses (instr_build_v3d.c), so that the other ALU, modifiers and signals can
 * still join it; the next instruction (or the finish) closes it through
 * that builder's encode, i.e. the core's canonical form and encoder.
 * Branches to labels are encoded with offset 0 and patched at the finish.
 * The public enums are the core's values, asserted below.
 */
#include <errno.h>
#include <stdlib.h>

#include "emit/emit_prog.h"
#include "emit/instr_build_v3d.h"
#include "qpu_emit_v3d.h"

_Static_assert(QPU_V3D_IMM_INVALID >= QPU_V3D_SMALL_IMMS, "imm index");

/* The signals the public enum has; the small-immediate ones follow. */
#define PUBLIC_SIGS	(QPU_V3D_SIG_SMIMM_A - 1)

enum open_kind { OPEN_NONE, OPEN_ALU, OPEN_BRANCH, OPEN_RAW };

struct qpu_v3d_emit {
	enum qpu_gen gen;
	struct emit_prog prog;
	struct {
		enum open_kind kind;
		struct qpu_v3d_build b;
		bool side_set[2];	/* add, mul: an operation was placed */
		int last;		/* the side modifiers apply to, or -1 */
		long label;		/* branch: the label, or -1 */
		u64 raw;
	} cur;
};

/* An error at the open instruction, or the next one if none is open. */
#define fail(e, ...)	emit_prog_fail(&(e)->prog, (e)->prog.nwords, __VA_ARGS__)

QPU_API struct qpu_v3d_emit *qpu_v3d_emit_new(enum qpu_gen gen)
{
	struct qpu_v3d_emit *e;

	if (!qpu_gen_is_v3d(gen)) {
		errno = EINVAL;
		return NULL;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	if (!emit_prog_init(&e->prog)) {
		free(e);
		errno = ENOMEM;
		return NULL;
	}
	e->gen = gen == QPU_GEN_V3D42 ? QPU_GEN_V3D42 : QPU_GEN_V3D71;
	return e;
}

QPU_API void qpu_v3d_emit_free(struct qpu_v3d_emit *e)
{
	if (!e)
		return;
	emit_prog_fini(&e->prog);
	free(e);
}

QPU_API size_t qpu_v3d_emit_count(const struct qpu_v3d_emit *e)
{
	return e->prog.nwords + (e->cur.kind != OPEN_NONE);
}

QPU_API const char *qpu_v3d_emit_error(const struct qpu_v3d_emit *e,
				       size_t *index)
{
	if (!e->prog.err)
		return NULL;
	if (index)
		*index = e->prog.err_index;
	return e->prog.msg;
}

QPU_API const uint64_t *qpu_v3d_emit_words(const struct qpu_v3d_emit *e,
					   size_t *count)
{
	if (!e->prog.finished || e->prog.err) {
		*count = 0;
		return NULL;
	}
	*count = e->prog.nwords;
	return e->prog.words;
}

/* Encode the open instruction and append it; false after an error. */
static bool close_instr(struct qpu_v3d_emit *e)
{
	u64 word = e->cur.raw;

	if (e->cur.kind == OPEN_NONE)
		return true;
	if (e->cur.kind != OPEN_RAW && !qpu_v3d_build_encode(&e->cur.b, &word)) {
		fail(e, "%s", e->cur.b.msg);
		return false;
	}
	if (!emit_prog_push(&e->prog, word, e->cur.label))
		return false;
	e->cur.kind = OPEN_NONE;
	return true;
}

/* Close the open instruction and open one of @kind; false after an error. */
static bool begin(struct qpu_v3d_emit *e, enum open_kind kind)
{
	if (e->prog.err)
		return false;
	if (e->prog.finished) {
		fail(e, "the program is finished");
		return false;
	}
	if (!close_instr(e))
		return false;
	e->cur.kind = kind;
	qpu_v3d_build_init(&e->cur.b, e->gen);
	e->cur.side_set[0] = e->cur.side_set[1] = false;
	e->cur.last = -1;
	e->cur.label = -1;
	e->cur.raw = 0;
	return true;
}

/* The open ALU instruction, for @what; NULL (and an error) if none. */
static struct qpu_v3d_build *open_alu(struct qpu_v3d_emit *e, const char *what)
{
	if (e->prog.err)
		return NULL;
	if (e->prog.finished) {
		fail(e, "the program is finished");
		return NULL;
	}
	if (e->cur.kind != OPEN_ALU) {
		fail(e, "%s: there is no open ALU instruction to add it to", what);
		return NULL;
	}
	return &e->cur.b;
}

/* ---- operands ------------------------------------------------------------ */

static const char *const kind_names[] = {
	"nothing", "a register-file register", "an accumulator",
	"a small immediate", "a magic address",
};

static const char *kind_name(const struct qpu_v3d_reg *r)
{
	return r->kind <= QPU_V3D_REG_MAGIC ? kind_names[r->kind] : "no operand";
}

static bool put_src(struct qpu_v3d_emit *e, int slot, const struct qpu_v3d_reg *r,
		    u8 *unpack)
{
	struct qpu_v3d_build *b = &e->cur.b;
	bool ok;

	if (r->pack) {
		fail(e, "a pack on a source (unpack it instead)");
		return false;
	}
	switch (r->kind) {
	case QPU_V3D_REG_RF:
		ok = qpu_v3d_build_src_rf(b, slot, r->addr);
		break;
	case QPU_V3D_REG_ACC:
		ok = qpu_v3d_build_src_acc(b, slot, r->addr);
		break;
	case QPU_V3D_REG_IMM:
		ok = qpu_v3d_build_src_imm(b, slot, r->addr);
		break;
	default:
		fail(e, "source %c of the %s ALU is %s: a source is rfN, rN or "
		     "a small immediate", slot & 1 ? 'b' : 'a',
		     slot < QPU_V3D_SLOT_MUL_A ? "add" : "mul", kind_name(r));
		return false;
	}
	if (!ok) {
		fail(e, "%s", b->msg);
		return false;
	}
	*unpack = r->unpack;
	return true;
}

/* @r as a write address: @addr and @magic; false (and an error) if none. */
static bool write_addr(struct qpu_v3d_emit *e, const struct qpu_v3d_reg *r,
		       const char *what, int *addr, bool *magic)
{
	if (r->unpack) {
		fail(e, "an unpack on %s (pack it instead)", what);
		return false;
	}
	switch (r->kind) {
	case QPU_V3D_REG_RF:
		*magic = false;
		break;
	case QPU_V3D_REG_ACC:
		if (!qpu_v3d_build_acc_ok(&e->cur.b, r->addr)) {
			fail(e, "%s", e->cur.b.msg);
			return false;
		}
		*magic = true;	/* r0..r5 are magic addresses 0..5 */
		break;
	case QPU_V3D_REG_MAGIC:
		*magic = true;
		break;
	default:
		fail(e, "%s is %s: it is rfN, rN or a magic address", what,
		     kind_name(r));
		return false;
	}
	*addr = r->addr;
	return true;
}

static void put_op(struct qpu_v3d_emit *e, bool mul, unsigned int op,
		   const struct qpu_v3d_reg *d, const struct qpu_v3d_reg *a,
		   const struct qpu_v3d_reg *bsrc)
{
	struct qpu_v3d_build *b = &e->cur.b;
	struct qpu_v3d_alu *alu = mul ? &b->in.mul : &b->in.add;
	unsigned int args;
	bool magic;
	int addr;

	if (!qpu_v3d_build_op(b, mul, op)) {
		fail(e, "%s", b->msg);
		return;
	}
	e->cur.side_set[mul] = true;
	e->cur.last = mul;
	args = mul ? qpu_v3d_mul_op_info[op].args : qpu_v3d_add_op_info[op].args;
	if (args & QPU_V3D_ARG_D) {
		if (!write_addr(e, d, "the destination", &addr, &magic))
			return;
		if (!qpu_v3d_build_dst(b, mul, addr, magic)) {
			fail(e, "%s", b->msg);
			return;
		}
		alu->pack = d->pack;
	}
	if ((args & QPU_V3D_ARG_A) &&
	    !put_src(e, mul ? QPU_V3D_SLOT_MUL_A : QPU_V3D_SLOT_ADD_A, a,
		     &alu->unpack_a))
		return;
	if (args & QPU_V3D_ARG_B)
		put_src(e, mul ? QPU_V3D_SLOT_MUL_B : QPU_V3D_SLOT_ADD_B, bsrc,
			&alu->unpack_b);
}

/* ---- ALU instructions ---------------------------------------------------- */

QPU_API void qpu_v3d_emit_add(struct qpu_v3d_emit *e, enum qpu_v3d_add_op op,
			      struct qpu_v3d_reg d, struct qpu_v3d_reg a,
			      struct qpu_v3d_reg b)
{
	if (begin(e, OPEN_ALU))
		put_op(e, false, op, &d, &a, &b);
}

QPU_API void qpu_v3d_emit_mul(struct qpu_v3d_emit *e, enum qpu_v3d_mul_op op,
			      struct qpu_v3d_reg d, struct qpu_v3d_reg a,
			      struct qpu_v3d_reg b)
{
	if (begin(e, OPEN_ALU))
		put_op(e, true, op, &d, &a, &b);
}

static void dual(struct qpu_v3d_emit *e, bool mul, unsigned int op,
		 const struct qpu_v3d_reg *d, const struct qpu_v3d_reg *a,
		 const struct qpu_v3d_reg *b)
{
	if (!open_alu(e, mul ? "dual mul" : "dual add"))
		return;
	if (e->cur.side_set[mul]) {
		fail(e, "the %s ALU of this instruction is in use", mul ? "mul" : "add");
		return;
	}
	put_op(e, mul, op, d, a, b);
}

QPU_API void qpu_v3d_emit_dual_add(struct qpu_v3d_emit *e,
				   enum qpu_v3d_add_op op, struct qpu_v3d_reg d,
				   struct qpu_v3d_reg a, struct qpu_v3d_reg b)
{
	dual(e, false, op, &d, &a, &b);
}

QPU_API void qpu_v3d_emit_dual_mul(struct qpu_v3d_emit *e,
				   enum qpu_v3d_mul_op op, struct qpu_v3d_reg d,
				   struct qpu_v3d_reg a, struct qpu_v3d_reg b)
{
	dual(e, true, op, &d, &a, &b);
}

/* The side modifiers apply to; -1 (and an error) if no operation. */
static int modified_side(struct qpu_v3d_emit *e, const char *what)
{
	if (!open_alu(e, what))
		return -1;
	if (e->cur.last < 0) {
		fail(e, "%s: the instruction has no operation", what);
		return -1;
	}
	return e->cur.last;
}

QPU_API void qpu_v3d_emit_cond(struct qpu_v3d_emit *e, enum qpu_v3d_cond cond)
{
	int side = modified_side(e, "a condition");

	if (side < 0)
		return;
	if ((unsigned int)cond >= QPU_V3D_COND_COUNT) {
		fail(e, "condition %d does not exist", (int)cond);
		return;
	}
	*(side ? &e->cur.b.in.mc : &e->cur.b.in.ac) = cond;
}

QPU_API void qpu_v3d_emit_flags(struct qpu_v3d_emit *e, enum qpu_v3d_pf pf,
				enum qpu_v3d_uf uf)
{
	struct qpu_v3d_instr *in = &e->cur.b.in;
	int side = modified_side(e, "flags");

	if (side < 0)
		return;
	if ((unsigned int)pf >= QPU_V3D_PF_COUNT ||
	    (unsigned int)uf >= QPU_V3D_UF_COUNT) {
		fail(e, "flag push %d or update %d does not exist", (int)pf,
		     (int)uf);
		return;
	}
	*(side ? &in->mpf : &in->apf) = pf;
	*(side ? &in->muf : &in->auf) = uf;
}

/* ---- signals ------------------------------------------------------------- */

static void put_sigs(struct qpu_v3d_emit *e, unsigned int sigs,
		     const struct qpu_v3d_reg *d)
{
	struct qpu_v3d_build *b = &e->cur.b;
	bool magic = false, writes = sigs & QPU_V3D_SIG_WRITES_ADDR;
	int addr = -1;
	unsigned int bit;

	if (!sigs || (sigs & ~PUBLIC_SIGS)) {
		fail(e, "signals 0x%x: not a set of enum qpu_v3d_sig bits", sigs);
		return;
	}
	if (d->kind != QPU_V3D_REG_NONE || writes) {
		if (!writes) {
			fail(e, "these signals write no register: the "
			     "destination is QPU_V3D_NONE");
			return;
		}
		if (d->kind != QPU_V3D_REG_NONE &&
		    !write_addr(e, d, "the signal's destination", &addr, &magic))
			return;
	}
	for (bit = 1; bit <= sigs; bit <<= 1) {
		if (!(sigs & bit))
			continue;
		if (!qpu_v3d_build_sig(b, bit, bit & QPU_V3D_SIG_WRITES_ADDR ?
				       addr : -1, magic)) {
			fail(e, "%s", b->msg);
			return;
		}
	}
}

QPU_API void qpu_v3d_emit_sig(struct qpu_v3d_emit *e, unsigned int sigs,
			      struct qpu_v3d_reg d)
{
	if (open_alu(e, "a signal"))
		put_sigs(e, sigs, &d);
}

QPU_API void qpu_v3d_emit_rot(struct qpu_v3d_emit *e, int amount)
{
	struct qpu_v3d_build *b = open_alu(e, "rot");

	if (b && !qpu_v3d_build_rot(b, amount))
		fail(e, "%s", b->msg);
}

QPU_API void qpu_v3d_emit_nop(struct qpu_v3d_emit *e)
{
	begin(e, OPEN_ALU);
}

/* A nop instruction with @sigs, writing @d. */
static void sig_instr(struct qpu_v3d_emit *e, unsigned int sigs,
		      const struct qpu_v3d_reg *d)
{
	if (begin(e, OPEN_ALU))
		put_sigs(e, sigs, d);
}

QPU_API void qpu_v3d_emit_thrsw(struct qpu_v3d_emit *e)
{
	sig_instr(e, QPU_V3D_SIG_THRSW, &QPU_V3D_NONE);
}

QPU_API void qpu_v3d_emit_ldunif(struct qpu_v3d_emit *e, struct qpu_v3d_reg d)
{
	sig_instr(e, d.kind == QPU_V3D_REG_NONE ? QPU_V3D_SIG_LDUNIF :
		  QPU_V3D_SIG_LDUNIFRF, &d);
}

QPU_API void qpu_v3d_emit_ldunifa(struct qpu_v3d_emit *e, struct qpu_v3d_reg d)
{
	sig_instr(e, d.kind == QPU_V3D_REG_NONE ? QPU_V3D_SIG_LDUNIFA :
		  QPU_V3D_SIG_LDUNIFARF, &d);
}

QPU_API void qpu_v3d_emit_ldtmu(struct qpu_v3d_emit *e, struct qpu_v3d_reg d)
{
	sig_instr(e, QPU_V3D_SIG_LDTMU, &d);
}

/* ---- branches, labels, words --------------------------------------------- */

/* Open a branch on @cond to @dest (@offset or rf@rf), patched to @label. */
static void branch(struct qpu_v3d_emit *e, enum qpu_v3d_br_cond cond,
		   enum qpu_v3d_br_dest dest, long label, int32_t offset,
		   unsigned int rf)
{
	if (!qpu_v3d_build_branch(&e->cur.b, cond, dest, (u32)offset, rf)) {
		fail(e, "%s", e->cur.b.msg);
		return;
	}
	e->cur.label = label;
}

QPU_API void qpu_v3d_emit_branch(struct qpu_v3d_emit *e,
				 enum qpu_v3d_br_cond cond, const char *label)
{
	long l;

	if (!begin(e, OPEN_BRANCH))
		return;
	l = emit_prog_label_ref(&e->prog, label, e->prog.nwords);
	if (l >= 0)
		branch(e, cond, QPU_V3D_BR_DEST_REL, l, 0, 0);
}

QPU_API void qpu_v3d_emit_branch_offset(struct qpu_v3d_emit *e,
					enum qpu_v3d_br_cond cond,
					int32_t offset)
{
	if (begin(e, OPEN_BRANCH))
		branch(e, cond, QPU_V3D_BR_DEST_REL, -1, offset, 0);
}

QPU_API void qpu_v3d_emit_branch_abs(struct qpu_v3d_emit *e,
				     enum qpu_v3d_br_cond cond, uint32_t addr)
{
	if (begin(e, OPEN_BRANCH))
		branch(e, cond, QPU_V3D_BR_DEST_ABS, -1, (int32_t)addr, 0);
}

QPU_API void qpu_v3d_emit_branch_lri(struct qpu_v3d_emit *e,
				     enum qpu_v3d_br_cond cond)
{
	if (begin(e, OPEN_BRANCH))
		branch(e, cond, QPU_V3D_BR_DEST_LRI, -1, 0, 0);
}

/* @r as the register a branch reads; false (and an error) if it is none. */
static bool branch_rf(struct qpu_v3d_emit *e, const struct qpu_v3d_reg *r,
		      const char *what, unsigned int *rf)
{
	if (r->kind != QPU_V3D_REG_RF || r->pack || r->unpack) {
		fail(e, "%s is %s%s: it is rfN", what, kind_name(r),
		     r->kind == QPU_V3D_REG_RF ? " with a pack or unpack" : "");
		return false;
	}
	*rf = r->addr;
	return true;
}

QPU_API void qpu_v3d_emit_branch_reg(struct qpu_v3d_emit *e,
				     enum qpu_v3d_br_cond cond,
				     struct qpu_v3d_reg r)
{
	unsigned int rf;

	if (begin(e, OPEN_BRANCH) && branch_rf(e, &r, "the branch target", &rf))
		branch(e, cond, QPU_V3D_BR_DEST_RF, -1, 0, rf);
}

/* The open branch, for @what; false (and an error) if none. */
static bool open_branch(struct qpu_v3d_emit *e, const char *what)
{
	if (e->prog.err)
		return false;
	if (e->prog.finished) {
		fail(e, "the program is finished");
		return false;
	}
	if (e->cur.kind != OPEN_BRANCH) {
		fail(e, "%s: there is no open branch to add it to", what);
		return false;
	}
	return true;
}

QPU_API void qpu_v3d_emit_branch_msfign(struct qpu_v3d_emit *e,
					enum qpu_v3d_msfign msfign)
{
	if (open_branch(e, "msfign") &&
	    !qpu_v3d_build_branch_msfign(&e->cur.b, msfign))
		fail(e, "%s", e->cur.b.msg);
}

QPU_API void qpu_v3d_emit_branch_unif(struct qpu_v3d_emit *e,
				      enum qpu_v3d_br_dest dest,
				      struct qpu_v3d_reg r)
{
	unsigned int rf = 0;

	if (!open_branch(e, "the uniform target"))
		return;
	if (dest == QPU_V3D_BR_DEST_RF &&
	    !branch_rf(e, &r, "the uniform target", &rf))
		return;
	if (!qpu_v3d_build_branch_unif(&e->cur.b, dest, rf))
		fail(e, "%s", e->cur.b.msg);
}

QPU_API void qpu_v3d_emit_label(struct qpu_v3d_emit *e, const char *name)
{
	if (e->prog.err)
		return;
	if (e->prog.finished) {
		fail(e, "the program is finished");
		return;
	}
	/* the label names the next instruction: close the open one */
	if (close_instr(e))
		emit_prog_label_define(&e->prog, name, e->prog.nwords);
}

QPU_API void qpu_v3d_emit_raw(struct qpu_v3d_emit *e, uint64_t word)
{
	if (begin(e, OPEN_RAW))
		e->cur.raw = word;
}

/* A branch at @index to instruction @target: its offset, re-encoded. */
static bool patch_branch(void *ctx, uint64_t *word, size_t index, size_t target)
{
	struct qpu_v3d_emit *e = ctx;
	struct qpu_v3d_instr in;

	if (qpu_v3d_decode(e->gen, *word, &in) != QPU_V3D_VALID || !in.is_branch)
		return false;
	in.br.offset = (u32)(target * 8 - qpu_v3d_branch_target(index * 8, 0));
	return !qpu_v3d_encode(e->gen, &in, word);
}

QPU_API int qpu_v3d_emit_finish(struct qpu_v3d_emit *e)
{
	if (e->prog.finished || e->prog.err)
		return e->prog.err;
	if (!close_instr(e))
		return e->prog.err;
	if (emit_prog_resolve(&e->prog, patch_branch, e))
		return e->prog.err;
	e->prog.finished = true;
	return 0;
}
