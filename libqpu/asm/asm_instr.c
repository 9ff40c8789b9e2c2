// SPDX-License-Identifier: MIT
/*
 * The assembler's instructions: ALU pairs with signals, load immediates,
 * semaphores and branches. Names are looked up in the core's tables and the
 * parsed operands lowered into the instruction builder (instr_build.h) that
 * the C emitter shares, so the text is the one qpu_disasm() prints, plus
 * vc4asm's conveniences (mov of an immediate is a load).
 */
#include <inttypes.h>
#include <string.h>

#include "asm/asm_internal.h"
#include "emit/instr_build.h"

/* Where a name can be written: per file, the address or -1. */
struct wreg {
	int waddr[2];
};

static bool find_write(const char *name, struct wreg *w)
{
	unsigned int n, f, a;

	name = asm_canonical_reg(name, QPU_ISA_ALIAS_WRITE);
	w->waddr[0] = w->waddr[1] = -1;
	if (asm_parse_numbered(name, "ra", 63, &n)) {
		w->waddr[0] = n;
	} else if (asm_parse_numbered(name, "rb", 63, &n)) {
		w->waddr[1] = n;
	} else if (!strcmp(name, "-")) {
		w->waddr[0] = w->waddr[1] = QPU_ISA_WADDR_NOP;
	} else if (asm_parse_numbered(name, "r", 3, &n)) {
		w->waddr[0] = w->waddr[1] = QPU_ISA_WADDR_R0 + n;
	} else {
		for (f = 0; f < 2; f++)
			for (a = 32; a < 64; a++)
				if (!strcmp(qpu_isa_write_regs[f][a].name, name))
					w->waddr[f] = a;
	}
	return w->waddr[0] >= 0 || w->waddr[1] >= 0;
}

/* Where a name can be read: accumulator mux, or per file the address. */
struct rreg {
	int mux;		/* r0..r5, or -1 */
	int raddr[2];
};

static bool find_read(const char *name, struct rreg *r)
{
	unsigned int n, f, a;

	name = asm_canonical_reg(name, QPU_ISA_ALIAS_READ);
	r->mux = -1;
	r->raddr[0] = r->raddr[1] = -1;
	if (asm_parse_numbered(name, "ra", 63, &n)) {
		r->raddr[0] = n;
	} else if (asm_parse_numbered(name, "rb", 63, &n)) {
		r->raddr[1] = n;
	} else if (asm_parse_numbered(name, "r", 5, &n)) {
		r->mux = n;
	} else {
		for (f = 0; f < 2; f++)
			for (a = 32; a < 64; a++)
				if (!(qpu_isa_read_regs[f][a].flags &
				      (QPU_ISA_REG_RESERVED | QPU_ISA_REG_NOP)) &&
				    !strcmp(qpu_isa_read_regs[f][a].name, name))
					r->raddr[f] = a;
	}
	return r->mux >= 0 || r->raddr[0] >= 0 || r->raddr[1] >= 0;
}

static int find_name(const char *const *table, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (table[i] && *table[i] && !strcmp(table[i], name))
			return (int)i;
	return -1;
}


/* A refusal of the builder, at its operand's column. */
static void ib_check(struct lexer *lx, int ret, const struct qpu_ib_error *err)
{
	if (ret)
		asm_fail_at(lx->as, err->where, "%s", err->msg);
}

/*
 * vc4asm's pack and unpack names besides the core's: with an explicit "i"
 * (integer) or "f" (float), saturation spelled "s" or "clamp", "8888" for
 * "8abcd", and "32" for none. @a is the regfile-A pack, @mul the mul ALU
 * pack, @unpack the unpack; -1 where the name does not apply.
 */
static const struct {
	const char *name;
	signed char a, mul, unpack;
} pack_aliases[] = {
	{ "32", 0, 0, 0 },
	{ "16ai", 1, -1, 1 }, { "16af", 1, -1, 1 }, { "16bi", 2, -1, 2 },
	{ "16bf", 2, -1, 2 }, { "8abcdi", 3, -1, -1 }, { "8888i", 3, -1, -1 },
	{ "8ddupe", 3, 3, 3 }, { "8ai", 4, -1, 4 }, { "8bi", 5, -1, 5 },
	{ "8ci", 6, -1, 6 }, { "8di", 7, -1, 7 }, { "8af", -1, -1, 4 },
	{ "8bf", -1, -1, 5 }, { "8cf", -1, -1, 6 }, { "8df", -1, -1, 7 },
	{ "32si", 8, -1, -1 }, { "32i", 8, -1, -1 }, { "32clamp", 8, -1, -1 },
	{ "16asi", 9, -1, -1 }, { "16aclamp", 9, -1, -1 }, { "16bsi", 10, -1, -1 },
	{ "16bclamp", 10, -1, -1 }, { "8abcds", 11, -1, -1 }, { "8888s", 11, -1, -1 },
	{ "8888si", 11, -1, -1 }, { "8ddupeclamp", 11, -1, -1 }, { "8as", 12, -1, -1 },
	{ "8aclamp", 12, -1, -1 }, { "8bs", 13, -1, -1 }, { "8bclamp", 13, -1, -1 },
	{ "8cs", 14, -1, -1 }, { "8cclamp", 14, -1, -1 }, { "8ds", 15, -1, -1 },
	{ "8dclamp", 15, -1, -1 }, { "8abcdsf", -1, 3, -1 }, { "8888sf", -1, 3, -1 },
};

static int find_pack_alias(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(pack_aliases) / sizeof(pack_aliases[0]); i++)
		if (!strcmp(pack_aliases[i].name, name))
			return (int)i;
	return -1;
}

static void parse_dest(struct lexer *lx, const struct value *v, struct qpu_ib_dest *d,
		       bool allow_cond)
{
	struct wreg w;
	unsigned int i;
	int k;

	qpu_ib_dest_init(d);
	d->present = true;
	d->where = v->col;
	if (v->kind != V_REG || !find_write(v->reg, &w))
		asm_fail_at(lx->as, v->col, "expected a destination register");
	d->waddr[0] = w.waddr[0];
	d->waddr[1] = w.waddr[1];
	for (i = 0; i < v->nsuffix; i++) {
		const char *s = v->suffix[i];

		if (allow_cond && (k = find_name(qpu_isa_cond_names, QPU_ISA_NUM_CONDS, s)) >= 0)
			d->cond = k;
		else if ((k = find_name(qpu_isa_pack_a_names, 16, s)) >= 0)
			d->pack_a = k, d->pack_generic = k == 3;
		else if ((k = find_name(qpu_isa_pack_mul_names, 16, s)) >= 0)
			d->pack_mul = k, d->pack_generic = k == 3;
		else if ((k = find_pack_alias(s)) > 0 &&
			 (pack_aliases[k].a >= 0 || pack_aliases[k].mul >= 0))
			d->pack_a = pack_aliases[k].a, d->pack_mul = pack_aliases[k].mul,
			d->pack_generic = d->pack_a >= 0 && d->pack_mul >= 0;
		else if (k)	/* k == 0: ".32", no pack */
			asm_fail_at(lx->as, v->col, "unknown destination suffix '.%s'", s);
	}
}

/* Mnemonic with ".setf" and ".cond" suffixes. */
struct mnemonic {
	char base[NAME_LEN];
	bool setf;
	int cond;
	unsigned int col;
};

static void parse_mnemonic(struct lexer *lx, struct mnemonic *m, bool allow_cond)
{
	char text[NAME_LEN * 2], *s, *dot;
	int k;

	asm_tok_text(lx, text, sizeof(text));
	m->col = lx->tok.col;
	m->setf = false;
	m->cond = -1;
	dot = strchr(text, '.');
	if (dot)
		*dot = '\0';
	copy_str(m->base, sizeof(m->base), text);
	for (s = dot; s; s = dot) {
		dot = strchr(s + 1, '.');
		if (dot)
			*dot = '\0';
		if (!strcmp(s + 1, "setf"))
			m->setf = true;
		else if (allow_cond &&
			 (k = find_name(qpu_isa_cond_names, QPU_ISA_NUM_CONDS, s + 1)) >= 0)
			m->cond = k;
		else
			asm_fail_at(lx->as, m->col, "unknown suffix '.%s' on '%s'", s + 1, m->base);
	}
	asm_lex_next(lx);
}

/* One operand: a value, or "[a, b, ...]" for per-element loads. */
struct operand {
	struct value v;
	bool is_list;
	int64_t list[16];
	unsigned int nlist;
	int rot;		/* mul rotation: -1 none, 0 = r5, 1..15 */
	bool rot_r5_right;	/* written ">> r5" */
	unsigned int rot_col;
};

static void parse_operand(struct lexer *lx, struct operand *op, bool allow_rot)
{
	memset(op, 0, sizeof(*op));
	op->rot = -1;
	if (asm_tok_is(lx, "[")) {
		op->is_list = true;
		op->v.col = lx->tok.col;
		asm_lex_next(lx);
		for (;;) {
			if (op->nlist == 16)
				asm_fail_at(lx->as, lx->tok.col, "more than 16 elements");
			op->list[op->nlist++] = asm_int_expr(lx, NULL);
			if (!asm_tok_is(lx, ","))
				break;
			asm_lex_next(lx);
		}
		asm_expect(lx, "]");
		return;
	}
	asm_expr(lx, &op->v, 0);
	if (op->v.kind == V_REG && allow_rot && (asm_tok_is(lx, "<<") || asm_tok_is(lx, ">>"))) {
		bool left = lx->tok.op[0] == '<';
		unsigned int col = lx->tok.col;

		asm_lex_next(lx);
		op->rot_col = col;
		if (asm_tok_word(lx, "r5")) {
			asm_lex_next(lx);
			op->rot_r5_right = !left;
			op->rot = 0;
		} else {
			int64_t n = asm_int_expr(lx, NULL);

			if (n < 0 || n > 15 || (!left && n == 0))
				asm_fail_at(lx->as, col, "rotation %" PRId64 " out of range", n);
			op->rot = left ? (int)((16 - n) & 15) : (int)n;
			if (op->rot == 0)
				op->rot = -1;	/* "<< 0" or "<< 16": none */
		}
	}
}

static unsigned int parse_operands(struct lexer *lx, struct operand *ops,
				   bool allow_rot)
{
	unsigned int n = 0;

	if (asm_at_end(lx))
		return 0;
	for (;;) {
		if (n == MAX_OPERANDS)
			asm_fail_at(lx->as, lx->tok.col, "too many operands");
		parse_operand(lx, &ops[n++], allow_rot);
		if (!asm_tok_is(lx, ","))
			break;
		asm_lex_next(lx);
	}
	if (!asm_at_end(lx))
		asm_fail_at(lx->as, lx->tok.col, "expected ',' or end of instruction");
	return n;
}


struct alu_side {
	bool used;		/* an op (not nop) */
	bool nop_dest;		/* anop/mnop with a destination */
	int op;
	struct mnemonic m;
	struct qpu_ib_dest d;
	bool mov;
	bool unary;
	struct operand rot_dest;	/* rotation written on the result */
};

struct alu_build {
	struct alu_side add, mul;
	int sig;
	unsigned int sig_col;
};

/* Small immediate index for an integer or float value, or -1. */
static int small_imm_index(const struct value *v)
{
	float f = (float)v->f;
	uint32_t bits;

	if (v->kind == V_INT || v->kind == V_LABEL)
		return qpu_ib_smi_int(v->i);
	if (v->kind != V_FLOAT)
		return -1;
	memcpy(&bits, &f, sizeof(bits));
	return qpu_ib_smi_float(bits);
}

/* The builder's rotation of a parsed one (-1 none, 0 by r5, 1..15). */
static unsigned int ib_rot(int rot)
{
	return rot < 0 ? 0 : rot ? (unsigned int)rot : QPU_IB_ROT_R5;
}

/* One source as the builder takes it: where its name can be read. */
static void lower_src(struct lexer *lx, const struct operand *op, struct qpu_ib_src *s)
{
	const struct value *v = &op->v;
	struct rreg r;
	unsigned int i;
	int j, k;

	qpu_ib_src_init(s);
	s->where = v->col;
	s->rot = ib_rot(op->rot);
	s->rot_where = op->rot_col;
	if (op->is_list)
		asm_fail_at(lx->as, v->col, "a list is not an ALU source");
	if (v->kind != V_REG) {
		k = small_imm_index(v);
		s->smi = k < 0 ? QPU_IB_SMI_INVALID : k;
		return;
	}
	if (!find_read(v->reg, &r))
		asm_fail_at(lx->as, v->col, "'%s' cannot be read", v->reg);
	s->name = v->reg;
	s->mux = r.mux;
	s->raddr[0] = r.raddr[0];
	s->raddr[1] = r.raddr[1];
	for (i = 0; i < v->nsuffix; i++) {
		k = find_name(qpu_isa_unpack_names, 8, v->suffix[i]);
		if (k < 0 && (j = find_pack_alias(v->suffix[i])) >= 0)
			k = pack_aliases[j].unpack;
		if (!k)		/* ".32": no unpack */
			continue;
		if (k < 0)
			asm_fail_at(lx->as, v->col, "unknown source suffix '.%s'", v->suffix[i]);
		if (s->unpack && s->unpack != (unsigned int)k)
			asm_fail_at(lx->as, v->col, "only one unpack per instruction");
		s->unpack = k;
	}
}

static bool is_sig_name(const char *name, int *sig)
{
	int i;

	for (i = 0; i < QPU_ISA_SIG_SMALL_IMM; i++)
		if (qpu_isa_sig_names[i] && *qpu_isa_sig_names[i] &&
		    !strcmp(qpu_isa_sig_names[i], name)) {
			*sig = i;
			return true;
		}
	return false;
}

static int find_op(const struct qpu_isa_op *ops, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ops[i].name && !strcmp(ops[i].name, name))
			return (int)i;
	return -1;
}

struct alu_parse {
	struct operand ops[2][MAX_OPERANDS];
	unsigned int nops[2];
	struct operand reads[4];
	unsigned int nreads;
};

/* One ';'-separated part naming an operation of the add or mul ALU. */
static void parse_alu_op(struct lexer *lx, struct alu_build *b, struct alu_parse *p,
			 bool *first_op_seen)
{
	struct mnemonic m;
	struct alu_side *side;
	struct operand *ops;
	int add_op, mul_op;
	bool mul, nop_kind;
	unsigned int n, want;

	parse_mnemonic(lx, &m, true);
	add_op = find_op(qpu_isa_add_ops, QPU_ISA_NUM_ADD_OPS, m.base);
	mul_op = find_op(qpu_isa_mul_ops, QPU_ISA_NUM_MUL_OPS, m.base);
	if (!strcmp(m.base, "anop"))
		add_op = QPU_ISA_A_NOP, mul_op = -1;
	if (!strcmp(m.base, "mov"))
		add_op = QPU_ISA_A_OR, mul_op = QPU_ISA_M_V8MIN;
	if (!strcmp(m.base, "nop"))
		mul_op = QPU_ISA_M_NOP;
	if (add_op < 0 && mul_op < 0)
		asm_fail_at(lx->as, m.col, "unknown instruction '%s'", m.base);
	if (!*first_op_seen)
		mul = add_op < 0;
	else
		mul = true;
	if (mul && mul_op < 0)
		asm_fail_at(lx->as, m.col, "'%s' needs the add ALU, which is already used",
			    m.base);
	if (*first_op_seen && b->mul.m.base[0])
		asm_fail_at(lx->as, m.col, "more than two operations");
	*first_op_seen = true;
	side = mul ? &b->mul : &b->add;
	side->m = m;
	side->op = mul ? mul_op : add_op;
	side->mov = !strcmp(m.base, "mov");
	side->unary = !mul && (qpu_isa_add_ops[add_op].flags & QPU_ISA_OP_UNARY);
	nop_kind = side->op == 0;
	side->used = !nop_kind;
	ops = p->ops[mul];
	n = parse_operands(lx, ops, mul);
	p->nops[mul] = n;
	if (nop_kind) {
		if (!strcmp(m.base, "nop") && n)
			asm_fail_at(lx->as, m.col, "'nop' takes no operands; use anop or mnop");
		if (n > 1)
			asm_fail_at(lx->as, ops[1].v.col, "'%s' takes at most a destination",
				    m.base);
		if (m.setf)
			asm_fail_at(lx->as, m.col, "'%s' cannot set flags", m.base);
		if (n) {
			side->nop_dest = true;
			parse_dest(lx, &ops[0].v, &side->d, false);
		} else if (m.cond >= 0) {
			asm_fail_at(lx->as, m.col, "a condition needs a destination");
		}
		return;
	}
	want = side->mov || side->unary ? 2 : 3;
	if (n != want)
		asm_fail_at(lx->as, n ? ops[n - 1].v.col : m.col,
			    "'%s' takes %u operands, not %u", m.base, want, n);
	if (ops[0].rot >= 0) {
		/* vc4asm: "ra0 << n" rotates the result as "r1 >> n" the inputs */
		side->rot_dest = ops[0];
		if (!mul)
			asm_fail_at(lx->as, ops[0].rot_col, "only mul ALU results can be rotated");
		if (!ops[0].rot && !ops[0].rot_r5_right)
			asm_fail_at(lx->as, ops[0].rot_col,
				    "a result is rotated by r5 with '>> r5'");
		side->rot_dest.rot_r5_right = false;
		side->rot_dest.rot = (16 - ops[0].rot) & 15;
	}
	parse_dest(lx, &ops[0].v, &side->d, false);
	if (!mul && ops[1].rot >= 0)
		asm_fail_at(lx->as, ops[1].rot_col, "only mul ALU inputs can be rotated");
}

/* The rotation of a mul input, written "<< n", "<< r5" or ">> n". */
static void check_input_rot(struct lexer *lx, const struct operand *op)
{
	if (op->rot >= 0 && op->rot_r5_right)
		asm_fail_at(lx->as, op->rot_col, "an input is rotated by r5 with '<< r5'");
}

/*
 * A per-element load of 16 values; @base "ldipes"/"ldipeu" picks the form,
 * NULL picks signed if every value fits -2..1, else unsigned (0..3).
 */
static void per_element_imm(struct lexer *lx, const struct operand *val,
			    const char *base, struct qpu_isa_instr *in)
{
	struct qpu_ib_error err;

	if (!val->is_list || val->nlist != 16)
		asm_fail_at(lx->as, val->v.col, "'%s' takes a list of 16 values",
			    base ? base : "mov");
	ib_check(lx, qpu_ib_ldi_elems(in, val->list, base ? base[5] == 's' : -1,
				      val->v.col, &err), &err);
}

static u32 ldi_value(struct lexer *lx, const struct value *v);

/* The write side of one half: its destination with the mnemonic's condition. */
static void side_dest(const struct alu_side *side, struct qpu_ib_dest *d)
{
	*d = side->d;
	d->cond = side->m.cond;
}

/*
 * "mov DEST, VALUE" (optionally with a second "mov DEST2, VALUE" on the mul
 * ALU) whose value is no small immediate: a load immediate, as in vc4asm.
 */
static bool mov_as_ldi(struct lexer *lx, struct alu_build *b, struct alu_parse *p,
		       uint64_t *word)
{
	const struct value *v = &p->ops[0][1].v;
	struct qpu_isa_instr in;
	struct qpu_ib_dest add, mul;
	struct qpu_ib_error err;

	/* even a small immediate: GPU_FFT's shipped words say so */
	if (!b->add.mov || p->nreads || b->sig != QPU_ISA_SIG_NONE || v->kind == V_REG)
		return false;
	if (b->mul.m.base[0]) {
		const struct value *w = &p->ops[1][1].v;

		if (!b->mul.mov || w->kind != v->kind || w->i != v->i || w->f != v->f)
			return false;
	}
	if (b->mul.m.setf)
		asm_fail_at(lx->as, b->mul.m.col, "only the first mov can set the flags");
	memset(&in, 0, sizeof(in));
	in.kind = QPU_ISA_KIND_LDI;
	if (p->ops[0][1].is_list) {
		per_element_imm(lx, &p->ops[0][1], NULL, &in);
	} else if (v->kind == V_SEMA) {
		if (v->i < 0 || v->i > 15)
			asm_fail_at(lx->as, v->col, "semaphore number out of range");
		in.kind = QPU_ISA_KIND_SEMA;
		in.sem = (u8)v->i;
		in.sem_acquire = v->sem_acquire;
	} else {
		in.imm = ldi_value(lx, v);
	}
	side_dest(&b->add, &add);
	qpu_ib_dest_init(&mul);
	if (b->mul.m.base[0])
		side_dest(&b->mul, &mul);
	ib_check(lx, qpu_ib_ldi(&in, &add, &mul, b->add.m.setf, b->add.m.col, word, &err),
		 &err);
	return true;
}

/* The builder's half of @side, its inputs lowered into @srcs. */
static void lower_side(struct lexer *lx, const struct alu_side *side,
		       const struct operand *ops, bool is_mul, struct qpu_ib_src *srcs,
		       struct qpu_ib_side *s)
{
	s->active = side->used || side->nop_dest;
	s->op = side->op;
	s->setf = side->m.setf;
	s->where = side->m.col;
	if (s->active)
		side_dest(side, &s->d);
	if (!side->used)
		return;
	if (is_mul) {
		check_input_rot(lx, &ops[1]);
		if (!side->mov)
			check_input_rot(lx, &ops[2]);
	}
	lower_src(lx, &ops[1], &srcs[0]);
	s->a = s->b = &srcs[0];
	if (!side->mov && !side->unary) {
		lower_src(lx, &ops[2], &srcs[1]);
		s->b = &srcs[1];
	}
}

static void assemble_alu(struct lexer *lx, uint64_t *word)
{
	struct alu_build b;
	struct alu_parse p;
	struct qpu_ib_alu alu;
	struct qpu_ib_src srcs[2][2], reads[2];
	struct qpu_ib_error err;
	bool first_op_seen = false;
	unsigned int i;

	memset(&b, 0, sizeof(b));
	memset(&p, 0, sizeof(p));
	b.sig = QPU_ISA_SIG_NONE;
	qpu_ib_dest_init(&b.add.d);
	qpu_ib_dest_init(&b.mul.d);
	b.add.m.cond = b.mul.m.cond = -1;
	b.add.rot_dest.rot = b.mul.rot_dest.rot = -1;
	for (;;) {
		int sig;
		char word_text[NAME_LEN];

		if (lx->tok.kind != T_IDENT)
			asm_fail_at(lx->as, lx->tok.col, "expected an instruction");
		asm_tok_text(lx, word_text, sizeof(word_text));
		if (!strcmp(word_text, "read")) {
			asm_lex_next(lx);
			if (p.nreads == 2)
				asm_fail_at(lx->as, lx->tok.col, "too many 'read' parts");
			parse_operand(lx, &p.reads[p.nreads++], false);
		} else if (is_sig_name(word_text, &sig)) {
			if (b.sig != QPU_ISA_SIG_NONE)
				asm_fail_at(lx->as, lx->tok.col, "only one signal per instruction");
			b.sig = sig;
			b.sig_col = lx->tok.col;
			asm_lex_next(lx);
		} else {
			parse_alu_op(lx, &b, &p, &first_op_seen);
		}
		if (lx->tok.kind == T_EOL)
			break;
		if (!asm_tok_is(lx, ";"))
			asm_fail_at(lx->as, lx->tok.col, "expected ';' or end of line");
		asm_lex_next(lx);
	}
	if (mov_as_ldi(lx, &b, &p, word))
		return;

	qpu_ib_alu_init(&alu);
	lower_side(lx, &b.add, p.ops[0], false, srcs[0], &alu.add);
	lower_side(lx, &b.mul, p.ops[1], true, srcs[1], &alu.mul);
	alu.result_rot = ib_rot(b.mul.rot_dest.rot);
	alu.result_rot_where = b.mul.rot_dest.rot_col;
	for (i = 0; i < p.nreads; i++) {
		if (p.reads[i].v.kind == V_REG && p.reads[i].v.nsuffix)
			asm_fail_at(lx->as, p.reads[i].v.col, "'read' takes no suffix");
		lower_src(lx, &p.reads[i], &reads[i]);
	}
	alu.reads = reads;
	alu.nreads = p.nreads;
	alu.sig = b.sig;
	alu.sig_where = b.sig_col;
	alu.where = 1;
	ib_check(lx, qpu_ib_alu(&alu, word, &err), &err);
}


/* The 32 bits a load immediate writes for an integer or float value. */
static u32 ldi_value(struct lexer *lx, const struct value *v)
{
	u32 bits;

	if (v->kind == V_REG)
		asm_fail_at(lx->as, v->col, "expected a value, not a register");
	if (v->kind == V_FLOAT) {
		float f = (float)v->f;

		memcpy(&bits, &f, sizeof(bits));
		return bits;
	}
	if (v->i < INT32_MIN || v->i > (int64_t)UINT32_MAX)
		asm_fail_at(lx->as, v->col, "value does not fit in 32 bits");
	return (u32)v->i;
}

static void assemble_ldi(struct lexer *lx, const char *base, uint64_t *word)
{
	struct qpu_isa_instr in;
	struct mnemonic m;
	struct operand ops[MAX_OPERANDS];
	struct qpu_ib_dest add, mul;
	struct qpu_ib_error err;
	const struct operand *val;
	unsigned int n;

	memset(&in, 0, sizeof(in));
	qpu_ib_dest_init(&mul);
	parse_mnemonic(lx, &m, false);
	n = parse_operands(lx, ops, false);
	if (n < 2 || n > 3)
		asm_fail_at(lx->as, m.col, "'%s' takes a destination, an optional second "
			    "destination and a value", base);
	parse_dest(lx, &ops[0].v, &add, true);
	if (n == 3)
		parse_dest(lx, &ops[1].v, &mul, true);
	val = &ops[n - 1];
	if (!strcmp(base, "ldipes") || !strcmp(base, "ldipeu")) {
		per_element_imm(lx, val, base, &in);
	} else if (val->is_list) {
		asm_fail_at(lx->as, val->v.col, "a list needs ldipes or ldipeu");
	} else if (!strcmp(base, "ldi")) {
		in.kind = QPU_ISA_KIND_LDI;
		in.imm = ldi_value(lx, &val->v);
	} else {
		int64_t v = val->v.i;

		in.kind = QPU_ISA_KIND_SEMA;
		in.sem_acquire = !strcmp(base, "sacq");
		if (val->v.kind != V_INT && val->v.kind != V_LABEL)
			asm_fail_at(lx->as, val->v.col, "expected a semaphore number");
		if (v < 0 || v > (int64_t)UINT32_MAX || (v & 16))
			asm_fail_at(lx->as, val->v.col, "semaphore number out of range");
		in.sem = v & 15;
		in.sem_pad = (u32)(v >> QPU_ISA_SEM_PAD_SHIFT);
	}
	ib_check(lx, qpu_ib_ldi(&in, &add, &mul, m.setf, m.col, word, &err), &err);
}


static void assemble_branch(struct lexer *lx, uint64_t pc, uint64_t *word)
{
	struct qpu_isa_instr in;
	struct mnemonic m;
	struct operand ops[MAX_OPERANDS];
	struct qpu_ib_dest add, mul;
	struct qpu_ib_error err;
	const struct operand *reg = NULL, *target = NULL;
	char text[NAME_LEN], *dot;
	unsigned int n, num;
	int k;
	int64_t t;

	memset(&in, 0, sizeof(in));
	qpu_ib_dest_init(&mul);
	in.kind = QPU_ISA_KIND_BRANCH;
	asm_tok_text(lx, text, sizeof(text));
	m.col = lx->tok.col;
	asm_lex_next(lx);
	dot = strchr(text, '.');
	in.br_rel = text[2] == 'r';
	in.br_cond = QPU_ISA_BR_ALWAYS;
	if (dot) {
		k = find_name(qpu_isa_br_cond_names, QPU_ISA_NUM_BR_CONDS, dot + 1);
		if (k < 0)
			asm_fail_at(lx->as, m.col, "unknown branch condition '.%s'", dot + 1);
		in.br_cond = k;
	}
	n = parse_operands(lx, ops, false);
	if (n < 2 || n > 4)
		asm_fail_at(lx->as, m.col, "branch takes 2 to 4 operands");
	parse_dest(lx, &ops[0].v, &add, false);
	if (n == 4) {
		parse_dest(lx, &ops[1].v, &mul, false);
		if (!(ops[2].v.kind == V_REG && !strcmp(ops[2].v.reg, "-")))
			reg = &ops[2];
		target = &ops[3];
	} else if (n == 3) {
		reg = &ops[1];
		target = &ops[2];
	} else if (ops[1].v.kind == V_REG) {
		reg = &ops[1];
	} else {
		target = &ops[1];
	}
	if (add.cond >= 0 || add.pack_a >= 0 || add.pack_mul >= 0 ||
	    mul.pack_a >= 0 || mul.pack_mul >= 0)
		asm_fail_at(lx->as, add.where, "branch destinations take no suffix");
	if (reg) {
		struct qpu_ib_src r;

		qpu_ib_src_init(&r);
		r.where = reg->v.col;
		if (reg->v.kind == V_REG && !reg->v.nsuffix &&
		    asm_parse_numbered(reg->v.reg, "ra", 63, &num))
			r.raddr[0] = num;
		ib_check(lx, qpu_ib_branch_reg(&in, &r, &err), &err);
	}
	if (target) {
		const struct value *v = &target->v;

		if (v->kind != V_INT && v->kind != V_LABEL)
			asm_fail_at(lx->as, v->col, "expected a branch target");
		t = v->i;
		if (in.br_rel && v->kind == V_LABEL)
			t -= (int64_t)pc + 4 * 8;
		if (t < INT32_MIN || t > (int64_t)UINT32_MAX)
			asm_fail_at(lx->as, v->col, "branch target out of range");
		in.imm = (u32)t;
	}
	ib_check(lx, qpu_ib_branch(&in, &add, &mul, m.col, word, &err), &err);
}

/* Assemble one instruction starting at the lexer's token. */
void asm_assemble_instr(struct lexer *lx, uint64_t pc, uint64_t *word)
{
	char base[NAME_LEN], *dot;

	asm_tok_text(lx, base, sizeof(base));
	dot = strchr(base, '.');
	if (dot)
		*dot = '\0';
	if (!strcmp(base, "ldi") || !strcmp(base, "ldipes") || !strcmp(base, "ldipeu") ||
	    !strcmp(base, "sacq") || !strcmp(base, "srel"))
		assemble_ldi(lx, base, word);
	else if (!strcmp(base, "bra") || !strcmp(base, "brr"))
		assemble_branch(lx, pc, word);
	else
		assemble_alu(lx, word);
}
