// SPDX-License-Identifier: MIT
/*
 * The V3D 4.2/7.1 instruction line of the assembler: Mesa's disassembly
 * syntax (dis_v3d.c) read back, over the front end that VideoCore IV uses
 * (labels, expressions, macros, includes, data directives all come from
 * there). The line becomes a struct qpu_v3d_instr, then takes the core's
 * canonical form (qpu_v3d_canonicalize()) and is encoded, so text and
 * disassembler agree on every field the text leaves open.
 *
 *   ADD_OP[.cond][.pf][.uf] [DST[.pack]][, SRC[.unpack]][, SRC[.unpack]]
 *     ; MUL_OP... [; SIGNAL[.DST]]...
 *   b[u][.cond][p|q]  TARGET[, UNIFORM_TARGET]
 *
 * A missing mul part is a nop. Sources are rfN, (4.2) r0..r5, or an
 * expression that is a small immediate; on 4.2 "rfN.a"/"rfN.b" name the
 * read address too (then every register-file read of the line does), for
 * the words whose read addresses are not the canonical ones. Branch targets: a label (relative),
 * a byte offset, "zero_addr+ADDR", "lri" or rfN; the uniform target
 * "a:unif", "r:unif", "lri" or rfN.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm/asm_internal.h"
#include "emit/instr_build_v3d.h"

struct v3d_line {
	struct lexer *lx;
	enum qpu_gen gen;
	struct qpu_v3d_build b;	/* the instruction (instr_build_v3d.c) */
};

/* An error at the current token. */
#define fail(l, ...)	asm_fail_at((l)->lx->as, (l)->lx->tok.col, __VA_ARGS__)

/* A builder call's refusal, at the current token. */
#define check(l, ok)	do { if (!(ok)) fail(l, "%s", (l)->b.msg); } while (0)

/* Index of @name in @names[@n] (names[0] "" is never matched), or -1. */
static int find_name(const char *const *names, unsigned int n, const char *name)
{
	unsigned int i;

	for (i = 1; i < n; i++) {
		if (!strcmp(names[i], name))
			return i;
	}
	return -1;
}

/* Whether @s up to @end is "rf" and digits. */
static bool regfile_num_len(const char *s, const char *end)
{
	if (end - s < 3 || s[0] != 'r' || s[1] != 'f')
		return false;
	for (s += 2; s < end; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* "rfN" with N 0..63, or -1. */
static int regfile_num(const char *s)
{
	unsigned int n;

	if (!asm_parse_numbered(s, "rf", 63, &n))
		return -1;
	return n;
}

static int magic_waddr(enum qpu_gen gen, const char *s)
{
	const char *name;
	unsigned int i;

	for (i = 0; i < 64; i++) {
		name = qpu_v3d_waddr_name(gen, i);
		if (name && !strcmp(name, s))
			return i;
	}
	return -1;
}

/*
 * Split the current identifier into @base and at most one @suffix; with
 * @port, a 4.2 read address first ("rf11.b.abs": 1, else 0, or -1 if
 * none).
 */
static void split_ident(struct v3d_line *l, char *base, char *suffix,
			int *port)
{
	char *dot;

	asm_tok_text(l->lx, base, NAME_LEN);
	suffix[0] = '\0';
	dot = strchr(base, '.');
	if (port) {
		*port = -1;
		if (dot && (dot[1] == 'a' || dot[1] == 'b') &&
		    (dot[2] == '\0' || dot[2] == '.') && regfile_num_len(base, dot)) {
			*port = dot[1] == 'b';
			memmove(dot, dot + 2, strlen(dot + 2) + 1);
		}
	}
	dot = strchr(base, '.');
	if (!dot)
		return;
	*dot = '\0';
	if (strchr(dot + 1, '.'))
		fail(l, "'%s' takes one suffix at most", base);
	copy_str(suffix, NAME_LEN, dot + 1);
}

static void parse_dst(struct v3d_line *l, bool mul)
{
	struct qpu_v3d_alu *alu = mul ? &l->b.in.mul : &l->b.in.add;
	char base[NAME_LEN], suffix[NAME_LEN];
	int n;

	if (l->lx->tok.kind != T_IDENT)
		fail(l, "expected a destination");
	split_ident(l, base, suffix, NULL);
	n = regfile_num(base);
	if (n >= 0) {
		check(l, qpu_v3d_build_dst(&l->b, mul, n, false));
	} else {
		n = magic_waddr(l->gen, base);
		if (n < 0)
			fail(l, "unknown destination '%s'", base);
		check(l, qpu_v3d_build_dst(&l->b, mul, n, true));
	}
	if (suffix[0]) {
		n = find_name(qpu_v3d_pack_names, QPU_V3D_PACK_COUNT, suffix);
		if (n < 0)
			fail(l, "unknown output pack '.%s' (l or h)", suffix);
		alu->pack = n;
	}
	asm_lex_next(l->lx);
}

/* Small-immediate index of value @v, or -1. */
static int small_imm(const struct value *v)
{
	union {
		float f;
		u32 u;
	} bits;
	unsigned int i;

	if (v->kind == V_FLOAT) {
		bits.f = (float)v->f;
		if ((double)bits.f != v->f)
			return -1;
	} else if (v->kind == V_INT) {
		if (v->i < -2147483648LL || v->i > 0xffffffffLL)
			return -1;
		bits.u = (u32)v->i;
	} else {
		return -1;
	}
	for (i = 0; i < QPU_V3D_SMALL_IMMS; i++) {
		if (qpu_v3d_small_imm[i] == bits.u)
			return i;
	}
	return -1;
}

/* Source @slot (QPU_V3D_SLOT_*), read through @unpack. */
static void parse_src(struct v3d_line *l, int slot, u8 *unpack)
{
	char base[NAME_LEN], suffix[NAME_LEN] = "";
	struct lexer *lx = l->lx;
	struct value v;
	unsigned int acc;
	int n, port;

	if (lx->tok.kind == T_IDENT) {
		split_ident(l, base, suffix, &port);
		n = regfile_num(base);
		if (n >= 0) {
			check(l, port < 0 ? qpu_v3d_build_src_rf(&l->b, slot, n) :
			      qpu_v3d_build_src_rf_port(&l->b, slot, n,
							(unsigned int)port));
			asm_lex_next(lx);
			goto unpack;
		}
		if (l->gen == QPU_GEN_V3D42 &&
		    asm_parse_numbered(base, "r", 5, &acc)) {
			check(l, qpu_v3d_build_src_acc(&l->b, slot, acc));
			asm_lex_next(lx);
			goto unpack;
		}
		if (suffix[0])
			fail(l, "unknown source '%s'", base);
	}
	asm_expr(lx, &v, 0);
	n = small_imm(&v);
	if (n < 0)
		asm_fail_at(lx->as, v.col, "not a register or a small immediate "
			    "(0..15, -16..-1, or 2^-8..2^7 as floats)");
	if (!qpu_v3d_build_src_imm(&l->b, slot, n))
		asm_fail_at(lx->as, v.col, "%s", l->b.msg);
	if (lx->tok.kind == T_DIRECTIVE) {	/* "15.abs" lexes as 15, .abs */
		asm_tok_text(lx, suffix, NAME_LEN);
		memmove(suffix, suffix + 1, strlen(suffix));
		asm_lex_next(lx);
	}
unpack:
	if (suffix[0]) {
		n = find_name(qpu_v3d_unpack_names, QPU_V3D_UNPACK_COUNT, suffix);
		if (n < 0)
			fail(l, "unknown input unpack '.%s'", suffix);
		*unpack = n;
	}
}

/* One ALU's operation and operands; false if the token is no op of it. */
static bool parse_alu(struct v3d_line *l, bool mul)
{
	struct lexer *lx = l->lx;
	struct qpu_v3d_instr *in = &l->b.in;
	struct qpu_v3d_alu *alu = mul ? &in->mul : &in->add;
	const struct qpu_v3d_op_info *info = NULL;
	char text[NAME_LEN], *s, *dot;
	unsigned int op, count = mul ? QPU_V3D_M_COUNT : QPU_V3D_A_COUNT;
	int n;

	if (lx->tok.kind != T_IDENT)
		return false;
	asm_tok_text(lx, text, sizeof(text));
	dot = strchr(text, '.');
	if (dot)
		*dot = '\0';
	for (op = 0; op < count; op++) {
		info = mul ? &qpu_v3d_mul_op_info[op] : &qpu_v3d_add_op_info[op];
		if (!strcmp(info->name, text))
			break;
	}
	if (op == count)
		return false;
	check(l, qpu_v3d_build_op(&l->b, mul, op));
	for (s = dot; s; s = dot) {
		dot = strchr(s + 1, '.');
		if (dot)
			*dot = '\0';
		if ((n = find_name(qpu_v3d_cond_names, QPU_V3D_COND_COUNT, s + 1)) > 0)
			*(mul ? &in->mc : &in->ac) = n;
		else if ((n = find_name(qpu_v3d_pf_names, QPU_V3D_PF_COUNT, s + 1)) > 0)
			*(mul ? &in->mpf : &in->apf) = n;
		else if ((n = find_name(qpu_v3d_uf_names, QPU_V3D_UF_COUNT, s + 1)) > 0)
			*(mul ? &in->muf : &in->auf) = n;
		else
			asm_fail_at(lx->as, lx->tok.col, "unknown suffix '.%s' of %s",
				    s + 1, info->name);
	}
	asm_lex_next(lx);
	if (info->args & QPU_V3D_ARG_D)
		parse_dst(l, mul);
	if (info->args & QPU_V3D_ARG_A) {
		if (info->args & QPU_V3D_ARG_D)
			asm_expect(lx, ",");
		parse_src(l, mul ? QPU_V3D_SLOT_MUL_A : QPU_V3D_SLOT_ADD_A,
			  &alu->unpack_a);
	}
	if (info->args & QPU_V3D_ARG_B) {
		asm_expect(lx, ",");
		parse_src(l, mul ? QPU_V3D_SLOT_MUL_B : QPU_V3D_SLOT_ADD_B,
			  &alu->unpack_b);
	}
	return true;
}

/* 4.2's "rot", "rot(r5)" (both by r5) or "rot(N)", py-videocore6's spelling. */
static void parse_rot(struct v3d_line *l)
{
	struct lexer *lx = l->lx;
	int64_t amount = 0;
	unsigned int col;

	asm_lex_next(lx);
	if (asm_tok_is(lx, "(")) {
		asm_lex_next(lx);
		col = lx->tok.col;
		if (asm_tok_word(lx, "r5")) {
			asm_lex_next(lx);
		} else {
			amount = asm_int_expr(lx, NULL);
			if (!amount)
				asm_fail_at(lx->as, col, "rot(0) is a rotation by "
					    "r5: write rot or rot(r5)");
			if (amount < -16 || amount > 15)
				asm_fail_at(lx->as, col, "rot(%lld): the rotation "
					    "is -16..15", (long long)amount);
		}
		asm_expect(lx, ")");
	}
	check(l, qpu_v3d_build_rot(&l->b, (int)amount));
}

static void parse_sig(struct v3d_line *l)
{
	struct lexer *lx = l->lx;
	char base[NAME_LEN], suffix[NAME_LEN];
	unsigned int i;
	bool magic = false;
	int n = -1;

	if (lx->tok.kind != T_IDENT)
		fail(l, "expected a signal");
	split_ident(l, base, suffix, NULL);
	for (i = 0; i < QPU_V3D_SIG_BITS; i++) {
		if (!strcmp(qpu_v3d_sig_names[i], base) &&
		    strncmp(base, "smimm", 5))
			break;
	}
	if (i == QPU_V3D_SIG_BITS)
		fail(l, "unknown signal '%s'", base);
	if (1u << i == QPU_V3D_SIG_ROT && !suffix[0]) {
		parse_rot(l);
		return;
	}
	if (!suffix[0] && lx->p[0] == '.' && lx->p[1] == '-') {
		/* ".-", the nop address: no identifier character */
		copy_str(suffix, NAME_LEN, "-");
		lx->p += 2;
	}
	if (suffix[0]) {
		n = regfile_num(suffix);
		magic = n < 0;
		if (n < 0)
			n = magic_waddr(l->gen, suffix);
		if (n < 0 && ((1u << i) & QPU_V3D_SIG_WRITES_ADDR))
			fail(l, "unknown destination '%s'", suffix);
		if (n < 0)
			n = 0;	/* a suffix on a signal that writes nothing */
	}
	check(l, qpu_v3d_build_sig(&l->b, 1u << i, n, magic));
	asm_lex_next(lx);
}

/* "b[u][.cond][p|q][.link]": false if @text is not a branch mnemonic. */
static bool branch_mnemonic(const char *text, struct qpu_v3d_branch *br)
{
	static const char link[] = ".link";
	char cond[NAME_LEN], name[NAME_LEN];
	const char *p = name + 1;
	size_t len;
	int n;

	copy_str(name, sizeof(name), text);
	len = strlen(name);
	if (len > sizeof(link) - 1 &&
	    !strcmp(name + len - (sizeof(link) - 1), link)) {
		br->link = true;
		name[len - (sizeof(link) - 1)] = '\0';
	}
	if (name[0] != 'b')
		return false;
	if (*p == 'u') {
		br->ub = true;
		p++;
	}
	if (*p == 'p' || *p == 'q') {
		br->msfign = *p == 'p' ? QPU_V3D_MSFIGN_P : QPU_V3D_MSFIGN_Q;
		return !p[1];
	}
	if (!*p)
		return true;
	if (*p != '.')
		return false;
	copy_str(cond, sizeof(cond), p + 1);
	n = find_name(qpu_v3d_branch_cond_names, QPU_V3D_BR_COND_COUNT, cond);
	len = strlen(cond);
	if (n < 0 && len > 1 && (cond[len - 1] == 'p' || cond[len - 1] == 'q')) {
		br->msfign = cond[len - 1] == 'p' ? QPU_V3D_MSFIGN_P :
						    QPU_V3D_MSFIGN_Q;
		cond[len - 1] = '\0';
		n = find_name(qpu_v3d_branch_cond_names, QPU_V3D_BR_COND_COUNT,
			      cond);
	}
	if (n < 0)
		return false;
	br->cond = n;
	return true;
}

/* The rest of a branch whose mnemonic gave @m: its targets, to the builder. */
static void parse_branch(struct v3d_line *l, uint64_t pc,
			 const struct qpu_v3d_branch *m)
{
	struct lexer *lx = l->lx;
	unsigned int bdi, bdu, rf = 0, col;
	char text[NAME_LEN];
	u32 offset = 0;
	struct value v;
	int n;

	asm_lex_next(lx);
	col = lx->tok.col;
	if (asm_tok_word(lx, "zero_addr")) {
		asm_lex_next(lx);
		asm_expect(lx, "+");
		bdi = QPU_V3D_BR_DEST_ABS;
		offset = (u32)asm_int_expr(lx, NULL);
	} else if (asm_tok_word(lx, "lri")) {
		bdi = QPU_V3D_BR_DEST_LRI;
		asm_lex_next(lx);
	} else if (lx->tok.kind == T_IDENT &&
		   (asm_tok_text(lx, text, sizeof(text)), regfile_num(text) >= 0)) {
		bdi = QPU_V3D_BR_DEST_RF;
		rf = regfile_num(text);
		asm_lex_next(lx);
	} else {
		bdi = QPU_V3D_BR_DEST_REL;
		asm_expr(lx, &v, 0);
		col = v.col;
		if (v.kind == V_LABEL)
			offset = (u32)(v.i - (int64_t)qpu_v3d_branch_target(pc, 0));
		else if (v.kind == V_INT)
			offset = (u32)v.i;
		else
			asm_fail_at(lx->as, v.col, "a branch target is a label, "
				    "a byte offset, zero_addr+ADDR, lri or rfN");
	}
	if (!qpu_v3d_build_branch(&l->b, m->cond, bdi, offset, rf))
		asm_fail_at(lx->as, col, "%s", l->b.msg);
	else if (m->msfign)
		check(l, qpu_v3d_build_branch_msfign(&l->b, m->msfign));
	if (m->link && l->b.in.is_branch)
		check(l, qpu_v3d_build_branch_link(&l->b));
	if (!m->ub) {
		if (asm_tok_is(lx, ",")) {
			asm_lex_next(lx);
			if (!asm_tok_word(lx, "bdu"))
				fail(l, "a branch without ub takes only bdu=N "
				     "after its target (\"bu\" for a uniform "
				     "target)");
			asm_lex_next(lx);
			asm_expect(lx, "=");
			bdu = (unsigned int)asm_int_expr(lx, NULL);
			if (l->b.in.is_branch)
				check(l, qpu_v3d_build_branch_bdu(&l->b, bdu));
		}
		asm_expect_end(lx);
		return;
	}
	asm_expect(lx, ",");
	if (asm_tok_word(lx, "a") || asm_tok_word(lx, "r")) {
		bdu = asm_tok_word(lx, "a") ? QPU_V3D_BR_DEST_ABS : QPU_V3D_BR_DEST_REL;
		asm_lex_next(lx);
		asm_expect(lx, ":");
		if (!asm_tok_word(lx, "unif"))
			fail(l, "expected 'unif' after '%s:'", bdu ? "r" : "a");
		asm_lex_next(lx);
	} else if (asm_tok_word(lx, "lri")) {
		bdu = QPU_V3D_BR_DEST_LRI;
		asm_lex_next(lx);
	} else {
		asm_tok_text(lx, text, sizeof(text));
		n = lx->tok.kind == T_IDENT ? regfile_num(text) : -1;
		if (n < 0)
			fail(l, "the uniform target is a:unif, r:unif, lri or rfN");
		bdu = QPU_V3D_BR_DEST_RF;
		rf = n < 0 ? 0 : n;
	}
	if (l->b.in.is_branch)
		check(l, qpu_v3d_build_branch_unif(&l->b, bdu, rf));
	if (bdu == QPU_V3D_BR_DEST_RF)
		asm_lex_next(lx);
	asm_expect_end(lx);
}

static bool is_sig_name(const struct lexer *lx)
{
	char text[NAME_LEN], *dot;
	unsigned int i;

	if (lx->tok.kind != T_IDENT)
		return false;
	asm_tok_text(lx, text, sizeof(text));
	dot = strchr(text, '.');
	if (dot)
		*dot = '\0';
	for (i = 0; i < QPU_V3D_SIG_BITS; i++) {
		if (!strcmp(qpu_v3d_sig_names[i], text))
			return true;
	}
	return false;
}

void asm_v3d_assemble_instr(struct lexer *lx, enum qpu_gen gen, uint64_t pc,
			    uint64_t *word)
{
	struct v3d_line l = { .lx = lx, .gen = gen };
	struct qpu_v3d_branch mnemonic = { 0 };
	char text[NAME_LEN];
	unsigned int col = lx->tok.col;

	qpu_v3d_build_init(&l.b, l.gen);
	asm_tok_text(lx, text, sizeof(text));
	if (!parse_alu(&l, false)) {
		if (lx->tok.kind == T_IDENT &&
		    branch_mnemonic(text, &mnemonic)) {
			parse_branch(&l, pc, &mnemonic);
			goto encode;
		}
		if (lx->tok.kind == T_IDENT && parse_alu(&l, true))
			asm_fail_at(lx->as, col, "%s is a mul operation: write "
				    "the add one first (\"nop ; %s ...\")",
				    text, text);
		fail(&l, "unknown instruction '%s'", text);
	}
	if (asm_tok_is(lx, ";")) {
		asm_lex_next(lx);
		if (!is_sig_name(lx)) {
			asm_tok_text(lx, text, sizeof(text));
			if (!parse_alu(&l, true))
				fail(&l, "unknown mul operation '%s'", text);
			if (asm_tok_is(lx, ";"))
				asm_lex_next(lx);
			else
				goto sigs_done;
		}
		for (;;) {
			parse_sig(&l);
			if (!asm_tok_is(lx, ";"))
				break;
			asm_lex_next(lx);
		}
	}
sigs_done:
	asm_expect_end(lx);
encode:
	if (!qpu_v3d_build_encode(&l.b, word))
		asm_fail_at(lx->as, col, "%s", l.b.msg);
}
