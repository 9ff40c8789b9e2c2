// SPDX-License-Identifier: MIT
/*
 * The C assembler API (qpu_emit.h). Calls fill in the instruction being
 * built, which stays open so that dual-issue ops and modifiers can still
 * change it; the next instruction (or qpu_emit_finish()) closes it: its
 * operands are lowered into the instruction builder the text assembler
 * shares (instr_build.h), which places them and makes the word. Branches to labels are
 * encoded at once with a zero offset and patched at the end. The first
 * error is kept and turns every later call into a no-op (emit_prog.c,
 * shared with the V3D emitter, keeps words, labels and that error).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit/emit_prog.h"
#include "emit/instr_build.h"
#include "qpu_emit.h"
#include "qpu_isa.h"
#include "qpu_vpm.h"

/* The public enums are the hardware's values, as the core's are. */
#define SAME(a, b)	((int)(a) == (int)(b))
_Static_assert(SAME(QPU_ADD_V8SUBS, QPU_ISA_A_V8SUBS) && SAME(QPU_ADD_ADD, QPU_ISA_A_ADD) &&
	       SAME(QPU_ADD_CLZ, QPU_ISA_A_CLZ), "add opcodes");
_Static_assert(SAME(QPU_MUL_V8SUBS, QPU_ISA_M_V8SUBS), "mul opcodes");
_Static_assert(SAME(QPU_COND_CC, QPU_ISA_COND_CC), "conditions");
_Static_assert(SAME(QPU_BR_ANY_CC, QPU_ISA_BR_ANYCC) &&
	       SAME(QPU_BR_ALWAYS, QPU_ISA_BR_ALWAYS), "branch conditions");
_Static_assert(SAME(QPU_SIG_LOADAM, QPU_ISA_SIG_LOADAM) &&
	       SAME(QPU_SIG_NONE, QPU_ISA_SIG_NONE), "signals");
_Static_assert(SAME(QPU_PACK_8D_SAT, QPU_ISA_PACK_A_8D_SAT) &&
	       SAME(QPU_PACK_MUL_8D, 16 + QPU_ISA_PACK_MUL_8D), "packs");
_Static_assert(SAME(QPU_UNPACK_8D, QPU_ISA_UNPACK_8D), "unpacks");
_Static_assert(SAME(QPU_VPM_H32, 8 | QPU_VPM_SIZE_32) && SAME(QPU_VPM_V8L, 4 | QPU_VPM_SIZE_8),
	       "vpm modes: 8 horizontal, 4 laned, then the size");

#define NO_REG		(-1)

enum pend_kind { PEND_NONE, PEND_ALU, PEND_LDI, PEND_SEMA, PEND_BRANCH, PEND_RAW };
enum { ADD, MUL };

/* One ALU (ALU instructions) or one destination (ldi, semaphore, branch). */
struct side {
	bool active;		/* an op, or a destination other than "-" */
	u8 op;
	struct qpu_reg d, a, b;
	int cond;		/* -1: the default */
};

struct pending {
	enum pend_kind kind;
	struct side s[2];
	int last;		/* the side modifiers apply to */
	int setf;		/* the side that sets the flags, or -1 */
	int sig;
	struct qpu_reg reads[2];
	unsigned int nreads;
	struct qpu_isa_instr in;	/* ldi, semaphore and branch fields */
	long label;		/* branch: the label, or -1 */
	u64 raw;
};

struct qpu_emit {
	struct emit_prog prog;	/* words, labels, fixups, the first error */
	struct pending cur;
};

#define fail(e, index, ...)	emit_prog_fail(&(e)->prog, index, __VA_ARGS__)

/* ---- operands ------------------------------------------------------------ */

/* A name for messages: the text assembler's spelling. */
static const char *reg_name(const struct qpu_reg *r, char *buf, size_t size)
{
	const struct qpu_isa_reg (*table)[64];
	int file;

	switch (r->kind) {
	case QPU_REG_ACC:
		snprintf(buf, size, "r%u", r->addr);
		return buf;
	case QPU_REG_IMM:
		return "a small immediate";
	case QPU_REG_A:
	case QPU_REG_B:
	case QPU_REG_AB:
		if (r->addr >= 64)
			break;
		file = r->kind == QPU_REG_B;
		if (r->addr < 32) {
			snprintf(buf, size, "r%c%u", file ? 'b' : 'a', r->addr);
			return buf;
		}
		table = r->access & QPU_REG_READ ? qpu_isa_read_regs : qpu_isa_write_regs;
		return table[file][r->addr].name;
	}
	snprintf(buf, size, "register %u/%u", r->kind, r->addr);
	return buf;
}

/* Where @r can be written: per file the write address, or -1. */
static bool write_addrs(struct qpu_emit *e, const struct qpu_reg *r, int waddr[2])
{
	char name[32];

	waddr[0] = waddr[1] = NO_REG;
	if (r->unpack || r->rot) {
		fail(e, e->prog.nwords, "a destination cannot be %s",
		     r->unpack ? "unpacked" : "rotated");
		return false;
	}
	if (r->kind == QPU_REG_IMM || !(r->access & QPU_REG_WRITE)) {
		fail(e, e->prog.nwords, "%s cannot be written", reg_name(r, name, sizeof(name)));
		return false;
	}
	switch (r->kind) {
	case QPU_REG_ACC:
		if (r->addr < 4)
			waddr[0] = waddr[1] = QPU_ISA_WADDR_R0 + r->addr;
		break;
	case QPU_REG_A:
	case QPU_REG_B:
		if (r->addr < 64)
			waddr[r->kind == QPU_REG_B] = r->addr;
		break;
	case QPU_REG_AB:
		if (r->addr >= 32 && r->addr < 64)
			waddr[0] = waddr[1] = r->addr;
		break;
	}
	if (waddr[0] == NO_REG && waddr[1] == NO_REG) {
		fail(e, e->prog.nwords, "%s is not a register", reg_name(r, name, sizeof(name)));
		return false;
	}
	return true;
}

/* A refusal of the builder as the open instruction's error. */
static bool ib_ok(struct qpu_emit *e, int ret, const struct qpu_ib_error *err)
{
	if (ret)
		fail(e, e->prog.nwords, "%s", err->msg);
	return !ret;
}

/* @r as the builder's source; false after an error. */
static bool lower_src(struct qpu_emit *e, const struct qpu_reg *r, struct qpu_ib_src *s)
{
	char name[32];

	qpu_ib_src_init(s);
	s->rot = r->rot;
	if (r->pack) {
		fail(e, e->prog.nwords, "a source cannot be packed");
		return false;
	}
	if (r->kind == QPU_REG_IMM) {
		s->smi = r->addr;
		return true;
	}
	if (!(r->access & QPU_REG_READ)) {
		fail(e, e->prog.nwords, "%s cannot be read", reg_name(r, name, sizeof(name)));
		return false;
	}
	if ((r->kind == QPU_REG_ACC && r->addr > 5) || r->addr >= 64 ||
	    (r->kind == QPU_REG_AB && r->addr < 32) || r->kind > QPU_REG_AB) {
		fail(e, e->prog.nwords, "%s is not a register", reg_name(r, name, sizeof(name)));
		return false;
	}
	s->unpack = r->unpack;
	switch (r->kind) {
	case QPU_REG_ACC:
		s->mux = r->addr;
		break;
	case QPU_REG_A:
	case QPU_REG_B:
		s->raddr[r->kind == QPU_REG_B] = r->addr;
		break;
	default:
		s->raddr[0] = s->raddr[1] = r->addr;
		s->name = qpu_isa_read_regs[0][r->addr].name;
		break;
	}
	return true;
}

/* The destination of @s (if active) as the builder's; false after an error. */
static bool lower_dest(struct qpu_emit *e, const struct side *s, bool is_mul,
		       struct qpu_ib_dest *d)
{
	unsigned int pack = s->d.pack;

	qpu_ib_dest_init(d);
	if (!s->active)
		return true;
	d->present = true;
	d->cond = s->cond;
	if (!write_addrs(e, &s->d, d->waddr))
		return false;
	if (is_mul && pack >= 16 &&
	    (pack == 16 || pack >= 32 || !qpu_isa_pack_mul_names[pack - 16])) {
		fail(e, e->prog.nwords, "unknown pack %u", pack);
		return false;
	}
	if (pack >= 16)
		d->pack_mul = pack - 16;
	else if (pack)
		d->pack_a = pack;
	return true;
}

/* One half of an ALU instruction as the builder's, inputs in @srcs[2]. */
static bool lower_side(struct qpu_emit *e, const struct side *s, bool is_mul, bool setf,
		       struct qpu_ib_src *srcs, struct qpu_ib_side *out)
{
	out->active = s->active;
	out->op = s->op;
	out->setf = setf;
	if (!lower_dest(e, s, is_mul, &out->d))
		return false;
	if (!s->active || !s->op)
		return true;
	if (!lower_src(e, &s->a, &srcs[0]))
		return false;
	out->a = out->b = &srcs[0];
	if (is_mul || !(qpu_isa_add_ops[s->op].flags & QPU_ISA_OP_UNARY)) {
		if (!lower_src(e, &s->b, &srcs[1]))
			return false;
		out->b = &srcs[1];
	}
	return true;
}

static bool close_alu(struct qpu_emit *e, u64 *word)
{
	struct pending *c = &e->cur;
	struct qpu_ib_src srcs[4], reads[2];
	struct qpu_ib_error err;
	struct qpu_ib_alu alu;
	unsigned int i;

	qpu_ib_alu_init(&alu);
	if (!lower_side(e, &c->s[ADD], false, c->setf == ADD, &srcs[0], &alu.add) ||
	    !lower_side(e, &c->s[MUL], true, c->setf == MUL, &srcs[2], &alu.mul))
		return false;
	for (i = 0; i < c->nreads; i++)
		if (!lower_src(e, &c->reads[i], &reads[i]))
			return false;
	alu.reads = reads;
	alu.nreads = c->nreads;
	alu.sig = c->sig;
	return ib_ok(e, qpu_ib_alu(&alu, word, &err), &err);
}

/* Load immediate, semaphore and branch: destinations and conditions. */
static bool close_ldi(struct qpu_emit *e, u64 *word)
{
	struct pending *c = &e->cur;
	struct qpu_isa_instr in = c->in;
	struct qpu_ib_dest ad, md;
	struct qpu_ib_error err;

	if (c->kind == PEND_BRANCH && c->s[ADD].d.pack) {
		fail(e, e->prog.nwords, "branch destinations take no pack");
		return false;
	}
	if (!lower_dest(e, &c->s[ADD], false, &ad) || !lower_dest(e, &c->s[MUL], true, &md))
		return false;
	if (c->kind == PEND_BRANCH)
		return ib_ok(e, qpu_ib_branch(&in, &ad, &md, 0, word, &err), &err);
	return ib_ok(e, qpu_ib_ldi(&in, &ad, &md, c->setf >= 0, 0, word, &err), &err);
}


/* Encode the open instruction and append it; false after an error. */
static bool close_instr(struct qpu_emit *e)
{
	struct pending *c = &e->cur;
	u64 word = 0;
	bool ok;

	if (c->kind == PEND_NONE)
		return true;
	switch (c->kind) {
	case PEND_ALU:
		ok = close_alu(e, &word);
		break;
	case PEND_RAW:
		word = c->raw;
		ok = true;
		break;
	default:
		ok = close_ldi(e, &word);
		break;
	}
	if (!ok || !emit_prog_push(&e->prog, word, c->label))
		return false;
	c->kind = PEND_NONE;
	return true;
}

/* Close the open instruction and open one of @kind; false after an error. */
static bool begin(struct qpu_emit *e, enum pend_kind kind)
{
	struct pending *c = &e->cur;

	if (e->prog.err)
		return false;
	if (e->prog.finished) {
		fail(e, e->prog.nwords, "the program is finished");
		return false;
	}
	if (!close_instr(e))
		return false;
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->s[ADD].cond = c->s[MUL].cond = -1;
	c->setf = -1;
	c->sig = QPU_ISA_SIG_NONE;
	c->label = -1;
	return true;
}

/* The open instruction, for a modifier; NULL (and an error) if none. */
static struct pending *last(struct qpu_emit *e, const char *what)
{
	if (e->prog.err)
		return NULL;
	if (e->prog.finished) {
		fail(e, e->prog.nwords, "the program is finished");
		return NULL;
	}
	if (e->cur.kind == PEND_NONE) {
		fail(e, e->prog.nwords, "%s: there is no instruction to change", what);
		return NULL;
	}
	return &e->cur;
}

/* ---- the builder ------------------------------------------------------------ */

QPU_API struct qpu_emit *qpu_emit_new(void)
{
	struct qpu_emit *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	if (!emit_prog_init(&e->prog)) {
		free(e);
		errno = ENOMEM;
		return NULL;
	}
	return e;
}

QPU_API void qpu_emit_free(struct qpu_emit *e)
{
	if (!e)
		return;
	emit_prog_fini(&e->prog);
	free(e);
}

/* A branch at @index to instruction @target: its offset, re-encoded. */
static bool patch_branch(void *ctx, uint64_t *word, size_t index, size_t target)
{
	struct qpu_isa_instr in;

	(void)ctx;
	qpu_isa_decode(*word, &in);
	in.imm = (u32)(((long)target - (long)index - 4) * 8);
	return !qpu_isa_encode(&in, word);
}

QPU_API int qpu_emit_finish(struct qpu_emit *e)
{
	if (e->prog.finished || e->prog.err)
		return e->prog.err;
	if (!close_instr(e))
		return e->prog.err;
	if (emit_prog_resolve(&e->prog, patch_branch, NULL))
		return e->prog.err;
	e->prog.finished = true;
	return 0;
}

QPU_API const uint64_t *qpu_emit_words(const struct qpu_emit *e, size_t *count)
{
	if (!e->prog.finished || e->prog.err) {
		*count = 0;
		return NULL;
	}
	*count = e->prog.nwords;
	return e->prog.words;
}

QPU_API const char *qpu_emit_error(const struct qpu_emit *e, size_t *index)
{
	if (!e->prog.err)
		return NULL;
	if (index)
		*index = e->prog.err_index;
	return e->prog.msg;
}

QPU_API size_t qpu_emit_count(const struct qpu_emit *e)
{
	return e->prog.nwords + (e->cur.kind != PEND_NONE);
}

QPU_API struct qpu_reg qpu_immf(float value)
{
	u32 bits;
	int i;

	memcpy(&bits, &value, sizeof(bits));
	i = qpu_ib_smi_float(bits);
	return qpu_reg_make(QPU_REG_IMM, i < 0 ? QPU_IMM_INVALID : (unsigned int)i,
			    QPU_REG_READ);
}

/* ---- ALU ---------------------------------------------------------------------- */

static bool is_default_dest(const struct qpu_reg *d)
{
	return d->kind == QPU_REG_AB && d->addr == QPU_ISA_WADDR_NOP && !d->pack &&
		!d->unpack && !d->rot;
}

static void put_op(struct qpu_emit *e, int side, unsigned int op,
		   struct qpu_reg d, struct qpu_reg a, struct qpu_reg b)
{
	struct side *s = &e->cur.s[side];

	if (side == ADD ? op >= QPU_ISA_NUM_ADD_OPS || !qpu_isa_add_ops[op].name :
	    op >= QPU_ISA_NUM_MUL_OPS) {
		fail(e, e->prog.nwords, "unknown %s operation %u", side == ADD ? "add" : "mul", op);
		return;
	}
	s->op = op;
	s->d = d;
	s->a = a;
	s->b = b;
	s->active = op || !is_default_dest(&d);
	e->cur.last = side;
}

QPU_API void qpu_emit_add(struct qpu_emit *e, enum qpu_add_op op,
			  struct qpu_reg d, struct qpu_reg a, struct qpu_reg b)
{
	if (begin(e, PEND_ALU))
		put_op(e, ADD, op, d, a, b);
}

QPU_API void qpu_emit_mul(struct qpu_emit *e, enum qpu_mul_op op,
			  struct qpu_reg d, struct qpu_reg a, struct qpu_reg b)
{
	if (begin(e, PEND_ALU))
		put_op(e, MUL, op, d, a, b);
}

static void dual(struct qpu_emit *e, int side, unsigned int op,
		 struct qpu_reg d, struct qpu_reg a, struct qpu_reg b)
{
	struct pending *c = last(e, side == ADD ? "dual add" : "dual mul");

	if (!c)
		return;
	if (c->kind != PEND_ALU) {
		fail(e, e->prog.nwords, "the last instruction is no ALU instruction");
		return;
	}
	if (c->s[side].active) {
		fail(e, e->prog.nwords, "the %s ALU of the last instruction is already used",
		     side == ADD ? "add" : "mul");
		return;
	}
	put_op(e, side, op, d, a, b);
}

QPU_API void qpu_emit_dual_add(struct qpu_emit *e, enum qpu_add_op op,
			       struct qpu_reg d, struct qpu_reg a, struct qpu_reg b)
{
	dual(e, ADD, op, d, a, b);
}

QPU_API void qpu_emit_dual_mul(struct qpu_emit *e, enum qpu_mul_op op,
			       struct qpu_reg d, struct qpu_reg a, struct qpu_reg b)
{
	dual(e, MUL, op, d, a, b);
}

QPU_API void qpu_emit_cond(struct qpu_emit *e, enum qpu_cond cond)
{
	struct pending *c = last(e, "cond");

	if (!c)
		return;
	if ((unsigned int)cond >= QPU_ISA_NUM_CONDS) {
		fail(e, e->prog.nwords, "unknown condition %d", (int)cond);
		return;
	}
	if (c->kind == PEND_BRANCH || c->kind == PEND_RAW) {
		fail(e, e->prog.nwords, "a %s has no write condition",
		     c->kind == PEND_RAW ? "raw word" : "branch");
		return;
	}
	if (!c->s[c->last].active) {
		fail(e, e->prog.nwords, "a condition needs a destination");
		return;
	}
	c->s[c->last].cond = cond;
}

QPU_API void qpu_emit_setf(struct qpu_emit *e)
{
	struct pending *c = last(e, "setf");

	if (!c)
		return;
	switch (c->kind) {
	case PEND_ALU:
		if (!c->s[c->last].active || !c->s[c->last].op) {
			fail(e, e->prog.nwords, "a nop cannot set flags");
			return;
		}
		if (c->setf >= 0 && c->setf != c->last) {
			fail(e, e->prog.nwords, "only one ALU can set the flags");
			return;
		}
		c->setf = c->last;
		break;
	case PEND_LDI:
	case PEND_SEMA:
		c->setf = ADD;
		break;
	default:
		fail(e, e->prog.nwords, "a %s cannot set flags",
		     c->kind == PEND_RAW ? "raw word" : "branch");
		break;
	}
}

QPU_API void qpu_emit_sig(struct qpu_emit *e, enum qpu_sig sig)
{
	struct pending *c = last(e, "sig");

	if (!c)
		return;
	if (c->kind != PEND_ALU) {
		fail(e, e->prog.nwords, "only an ALU instruction carries a signal");
		return;
	}
	if ((unsigned int)sig >= QPU_ISA_SIG_SMALL_IMM) {
		fail(e, e->prog.nwords, "unknown signal %d", (int)sig);
		return;
	}
	if (sig == QPU_SIG_NONE)
		return;
	if (c->sig != QPU_ISA_SIG_NONE) {
		fail(e, e->prog.nwords, "only one signal per instruction");
		return;
	}
	c->sig = sig;
}

QPU_API void qpu_emit_read(struct qpu_emit *e, struct qpu_reg src)
{
	struct pending *c = last(e, "read");

	if (!c)
		return;
	if (c->kind != PEND_ALU) {
		fail(e, e->prog.nwords, "only an ALU instruction can read");
		return;
	}
	if (c->nreads == 2) {
		fail(e, e->prog.nwords, "too many reads");
		return;
	}
	if (src.pack || src.unpack || src.rot) {
		fail(e, e->prog.nwords, "a read takes no pack, unpack or rotation");
		return;
	}
	c->reads[c->nreads++] = src;
}

QPU_API void qpu_emit_nop(struct qpu_emit *e)
{
	begin(e, PEND_ALU);
}

QPU_API void qpu_emit_mov(struct qpu_emit *e, struct qpu_reg d, struct qpu_reg s)
{
	qpu_emit_add(e, QPU_ADD_OR, d, s, s);
}

QPU_API void qpu_emit_dual_mov(struct qpu_emit *e, struct qpu_reg d, struct qpu_reg s)
{
	qpu_emit_dual_mul(e, QPU_MUL_V8MIN, d, s, s);
}

QPU_API void qpu_emit_rotate(struct qpu_emit *e, struct qpu_reg d,
			     struct qpu_reg s, unsigned int n)
{
	if (!e->prog.err && (n < 1 || n > 15)) {
		fail(e, e->prog.nwords + (e->cur.kind != PEND_NONE), "rotation out of range");
		return;
	}
	s = qpu_rot(s, n);
	qpu_emit_mul(e, QPU_MUL_V8MIN, d, s, s);
}

QPU_API void qpu_emit_thrend(struct qpu_emit *e)
{
	qpu_emit_nop(e);
	qpu_emit_sig(e, QPU_SIG_THREND);
	qpu_emit_nop(e);
	qpu_emit_nop(e);
}

QPU_API void qpu_emit_raw(struct qpu_emit *e, uint64_t word)
{
	if (begin(e, PEND_RAW))
		e->cur.raw = word;
}

/* ---- load immediate and semaphores --------------------------------------------- */

static void put_dest(struct pending *c, int side, struct qpu_reg d)
{
	c->s[side].active = true;
	c->s[side].d = d;
	c->last = side;
}

static void ldi(struct qpu_emit *e, enum qpu_isa_kind kind, struct qpu_reg d, u32 imm)
{
	if (!begin(e, PEND_LDI))
		return;
	e->cur.in.kind = kind;
	e->cur.in.imm = imm;
	put_dest(&e->cur, ADD, d);
}

QPU_API void qpu_emit_ldi(struct qpu_emit *e, struct qpu_reg d, uint32_t value)
{
	ldi(e, QPU_ISA_KIND_LDI, d, value);
}

QPU_API void qpu_emit_ldi_float(struct qpu_emit *e, struct qpu_reg d, float value)
{
	u32 bits;

	memcpy(&bits, &value, sizeof(bits));
	ldi(e, QPU_ISA_KIND_LDI, d, bits);
}

static void ldi_elems(struct qpu_emit *e, struct qpu_reg d, const int *values,
		      bool is_signed)
{
	struct qpu_ib_error err;
	int64_t elems[16];
	unsigned int i;

	if (!begin(e, PEND_LDI))
		return;
	for (i = 0; i < 16; i++)
		elems[i] = values[i];
	if (!ib_ok(e, qpu_ib_ldi_elems(&e->cur.in, elems, is_signed, 0, &err), &err))
		return;
	put_dest(&e->cur, ADD, d);
}

QPU_API void qpu_emit_ldi_pes(struct qpu_emit *e, struct qpu_reg d,
			      const int values[16])
{
	ldi_elems(e, d, values, true);
}

QPU_API void qpu_emit_ldi_peu(struct qpu_emit *e, struct qpu_reg d,
			      const int values[16])
{
	ldi_elems(e, d, values, false);
}

QPU_API void qpu_emit_ldi_dest2(struct qpu_emit *e, struct qpu_reg d)
{
	struct pending *c = last(e, "second destination");

	if (!c)
		return;
	if (c->kind != PEND_LDI && c->kind != PEND_SEMA) {
		fail(e, e->prog.nwords, "the last instruction is no load immediate or semaphore");
		return;
	}
	if (c->s[MUL].active) {
		fail(e, e->prog.nwords, "the second destination is already set");
		return;
	}
	put_dest(c, MUL, d);
}

static void sema(struct qpu_emit *e, unsigned int n, bool acquire)
{
	if (!begin(e, PEND_SEMA))
		return;
	if (n > 15) {
		fail(e, e->prog.nwords, "semaphore number out of range: %u", n);
		return;
	}
	e->cur.in.kind = QPU_ISA_KIND_SEMA;
	e->cur.in.sem = n;
	e->cur.in.sem_acquire = acquire;
	put_dest(&e->cur, ADD, QPU_NOP);
}

QPU_API void qpu_emit_sacq(struct qpu_emit *e, unsigned int n)
{
	sema(e, n, true);
}

QPU_API void qpu_emit_srel(struct qpu_emit *e, unsigned int n)
{
	sema(e, n, false);
}

/* ---- branches and labels ------------------------------------------------------ */

static bool branch(struct qpu_emit *e, enum qpu_br_cond cond, bool rel, u32 target)
{
	struct pending *c = &e->cur;

	if (!begin(e, PEND_BRANCH))
		return false;
	if ((unsigned int)cond >= QPU_ISA_NUM_BR_CONDS || !qpu_isa_br_cond_names[cond]) {
		fail(e, e->prog.nwords, "unknown branch condition %d", (int)cond);
		return false;
	}
	c->in.kind = QPU_ISA_KIND_BRANCH;
	c->in.br_cond = cond;
	c->in.br_rel = rel;
	c->in.imm = target;
	put_dest(c, ADD, QPU_NOP);
	return true;
}

QPU_API void qpu_emit_brr(struct qpu_emit *e, enum qpu_br_cond cond, const char *label)
{
	if (branch(e, cond, true, 0))
		e->cur.label = emit_prog_label_ref(&e->prog, label, e->prog.nwords);
}

QPU_API void qpu_emit_brr_offset(struct qpu_emit *e, enum qpu_br_cond cond,
				 int32_t offset)
{
	branch(e, cond, true, (u32)offset);
}

QPU_API void qpu_emit_bra(struct qpu_emit *e, enum qpu_br_cond cond, uint32_t target)
{
	branch(e, cond, false, target);
}

QPU_API void qpu_emit_branch_reg(struct qpu_emit *e, struct qpu_reg ra)
{
	struct pending *c = last(e, "branch register");
	struct qpu_ib_error err;
	struct qpu_ib_src reg;

	if (!c)
		return;
	if (c->kind != PEND_BRANCH) {
		fail(e, e->prog.nwords, "the last instruction is no branch");
		return;
	}
	qpu_ib_src_init(&reg);
	if (ra.kind == QPU_REG_A && !ra.pack)
		reg.raddr[0] = ra.addr;
	reg.unpack = ra.unpack;
	reg.rot = ra.rot;
	ib_ok(e, qpu_ib_branch_reg(&c->in, &reg, &err), &err);
}

QPU_API void qpu_emit_branch_link(struct qpu_emit *e, struct qpu_reg d)
{
	struct pending *c = last(e, "branch link");

	if (!c)
		return;
	if (c->kind != PEND_BRANCH) {
		fail(e, e->prog.nwords, "the last instruction is no branch");
		return;
	}
	put_dest(c, ADD, d);
}

QPU_API void qpu_emit_label(struct qpu_emit *e, const char *name)
{
	size_t index;

	if (e->prog.err)
		return;
	index = qpu_emit_count(e);
	if (e->prog.finished) {
		fail(e, index, "the program is finished");
		return;
	}
	emit_prog_label_define(&e->prog, name, index);
}

/* ---- VPM and DMA setup ------------------------------------------------------------ */

static bool check(struct qpu_emit *e, const char *what, unsigned int v,
		  unsigned int min, unsigned int max)
{
	if (v >= min && v <= max)
		return true;
	fail(e, qpu_emit_count(e), "%s %u out of range %u..%u", what, v, min, max);
	return false;
}

static bool check_mode(struct qpu_emit *e, enum qpu_vpm_mode mode, bool dma)
{
	unsigned int m = mode;

	if (m > QPU_VPM_H16L || (m & 3) == 3 ||
	    ((m & 4) && ((m & 3) == QPU_VPM_SIZE_32 || dma))) {
		fail(e, qpu_emit_count(e), "VPM mode %u is not valid %s", m,
		     dma ? "for DMA" : "here");
		return false;
	}
	return true;
}

static bool check_part(struct qpu_emit *e, enum qpu_vpm_mode mode, unsigned int part)
{
	static const unsigned int max[] = {
		[QPU_VPM_SIZE_8] = 3, [QPU_VPM_SIZE_16] = 1, [QPU_VPM_SIZE_32] = 0,
	};

	return check(e, "part", part, 0, max[mode & 3]);
}

/* The address of a generic block access; false after an error. */
static bool block_addr(struct qpu_emit *e, enum qpu_vpm_mode mode, unsigned int y,
		       unsigned int x, unsigned int part, u32 *addr)
{
	bool horiz = mode & 8;

	if (!check_mode(e, mode, false) || !check_part(e, mode, part))
		return false;
	if (horiz ? !check(e, "y", y, 0, QPU_VPM_ROWS - 1) ||
		    !check(e, "x", x, 0, 0) :
	    !check(e, "x", x, 0, 15) || !check(e, "y", y, 0, QPU_VPM_ROWS - 16))
		return false;
	if (!horiz && y % 16) {
		fail(e, qpu_emit_count(e), "y %u of a vertical access is no multiple of 16", y);
		return false;
	}
	*addr = qpu_vpm_addr(horiz, mode & 4, mode & 3, y, x, part);
	return true;
}

QPU_API void qpu_emit_vpm_read_setup(struct qpu_emit *e, unsigned int num,
				     unsigned int stride, enum qpu_vpm_mode mode,
				     unsigned int y, unsigned int x,
				     unsigned int part)
{
	u32 addr;

	if (e->prog.err || !check(e, "num", num, 1, 16) || !check(e, "stride", stride, 1, 64) ||
	    !block_addr(e, mode, y, x, part, &addr))
		return;
	qpu_emit_ldi(e, QPU_VR_SETUP, qpu_vpm_setup(num, stride, addr));
}

QPU_API void qpu_emit_vpm_write_setup(struct qpu_emit *e, unsigned int stride,
				      enum qpu_vpm_mode mode, unsigned int y,
				      unsigned int x, unsigned int part)
{
	u32 addr;

	if (e->prog.err || !check(e, "stride", stride, 1, 64) ||
	    !block_addr(e, mode, y, x, part, &addr))
		return;
	qpu_emit_ldi(e, QPU_VW_SETUP, qpu_vpm_setup(0, stride, addr));
}

static bool dma_args(struct qpu_emit *e, enum qpu_vpm_mode mode, unsigned int y,
		     unsigned int x, unsigned int part)
{
	return !e->prog.err && check_mode(e, mode, true) && check_part(e, mode, part) &&
		check(e, "y", y, 0, 127) && check(e, "x", x, 0, 15);
}

QPU_API void qpu_emit_vdw_setup(struct qpu_emit *e, unsigned int units,
				unsigned int depth, enum qpu_vpm_mode mode,
				unsigned int y, unsigned int x, unsigned int part)
{
	if (!dma_args(e, mode, y, x, part) || !check(e, "units", units, 1, 128) ||
	    !check(e, "depth", depth, 1, 128))
		return;
	qpu_emit_ldi(e, QPU_VW_SETUP, qpu_vdw_setup0(units, depth,
			qpu_vdw_dma(mode & 8, mode & 3, y, x, part)));
}

QPU_API void qpu_emit_vdw_stride(struct qpu_emit *e, unsigned int stride)
{
	if (!e->prog.err && check(e, "stride", stride, 0, QPU_VPM_DMA_STRIDE_MASK))
		qpu_emit_ldi(e, QPU_VW_SETUP, qpu_vdw_setup1(stride));
}

QPU_API void qpu_emit_vdr_setup(struct qpu_emit *e, unsigned int mpitch,
				unsigned int rowlen, unsigned int nrows,
				unsigned int vpitch, enum qpu_vpm_mode mode,
				unsigned int y, unsigned int x, unsigned int part)
{
	if (!dma_args(e, mode, y, x, part) || !check(e, "mpitch", mpitch, 0, 15) ||
	    !check(e, "rowlen", rowlen, 1, 16) || !check(e, "nrows", nrows, 1, 16) ||
	    !check(e, "vpitch", vpitch, 1, 16))
		return;
	qpu_emit_ldi(e, QPU_VR_SETUP, qpu_vdr_setup0(mpitch, rowlen, nrows,
			qpu_vdr_dma(mode & 8, mode & 3, vpitch, y, x, part)));
}

QPU_API void qpu_emit_vdr_stride(struct qpu_emit *e, unsigned int stride)
{
	if (!e->prog.err && check(e, "stride", stride, 0, QPU_VPM_DMA_STRIDE_MASK))
		qpu_emit_ldi(e, QPU_VR_SETUP, qpu_vdr_setup1(stride));
}
