// SPDX-License-Identifier: MIT
/*
 * The assembler's expressions and symbols: C-style integer and float
 * arithmetic over constants, labels and register aliases, vc4asm's VPM and
 * DMA setup functions, and the definitions of constants and labels. In the
 * first pass an unknown name is taken for a label defined further down.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm/asm_internal.h"
#include "qpu_vpm.h"

struct symbol *asm_find_symbol(struct symbol *list, const char *name)
{
	for (; list; list = list->next)
		if (list->name[0] == name[0] && !strcmp(list->name, name))
			return list;
	return NULL;
}

bool asm_parse_numbered(const char *name, const char *prefix, unsigned int max,
			unsigned int *num)
{
	size_t n = strlen(prefix);
	unsigned long v;
	char *end;

	if (strncmp(name, prefix, n) || !is_digit(name[n]) ||
	    (name[n] == '0' && name[n + 1]))
		return false;
	v = strtoul(name + n, &end, 10);
	if (*end || v > max)
		return false;
	*num = (unsigned int)v;
	return true;
}

/* strcmp(a, b) == 0, the first characters compared inline: most differ */
static inline bool same_name(const char *a, const char *b)
{
	return a[0] == b[0] && !strcmp(a, b);
}

/*
 * The core's name for @name, if @name is one of vc4asm's other spellings
 * valid where @flags (QPU_ISA_ALIAS_READ, _WRITE) says; else @name.
 */
const char *asm_canonical_reg(const char *name, u32 flags)
{
	size_t i;

	for (i = 0; i < QPU_ISA_NUM_REG_ALIASES; i++)
		if (same_name(name, qpu_isa_reg_aliases[i].name) &&
		    (qpu_isa_reg_aliases[i].flags & flags))
			return qpu_isa_reg_aliases[i].reg;
	return name;
}

/* True if @name is a register of either file (read or write) or r0..r5. */
bool asm_is_register_name(const char *name)
{
	unsigned int n, f, a;

	/*
	 * Every name of the core's and every vc4asm alias is lowercase or
	 * "-": spare the usual constant ("N", "SIZE") the search of them all.
	 */
	if (!(name[0] >= 'a' && name[0] <= 'z') && name[0] != '-')
		return false;
	name = asm_canonical_reg(name, QPU_ISA_ALIAS_READ | QPU_ISA_ALIAS_WRITE);
	if (asm_parse_numbered(name, "ra", 63, &n) || asm_parse_numbered(name, "rb", 63, &n) ||
	    asm_parse_numbered(name, "r", 5, &n) || !strcmp(name, "-"))
		return true;
	for (f = 0; f < 2; f++)
		for (a = 32; a < 64; a++)
			if ((qpu_isa_read_regs[f][a].name &&
			     !(qpu_isa_read_regs[f][a].flags & QPU_ISA_REG_NOP) &&
			     same_name(qpu_isa_read_regs[f][a].name, name)) ||
			    same_name(qpu_isa_write_regs[f][a].name, name))
				return true;
	return false;
}

/* Split "name.s1.s2" into @v's base (looked up) and suffixes. */
static void ident_value(struct lexer *lx, struct value *v)
{
	struct qpu_asm *as = lx->as;
	char text[NAME_LEN * 2], *dot, *s;
	struct symbol *sym;
	unsigned int col = lx->tok.col;

	asm_tok_text(lx, text, sizeof(text));
	asm_lex_next(lx);
	dot = strchr(text[0] == '-' ? text + 1 : text, '.');
	if (dot)
		*dot = '\0';
	memset(v, 0, sizeof(*v));
	v->col = col;
	if (asm_is_register_name(text)) {
		v->kind = V_REG;
		copy_str(v->reg, sizeof(v->reg), text);
	} else if ((sym = asm_find_symbol(as->symbols, text)) ||
		   (as->pass == 2 && (sym = asm_find_symbol(as->labels, text)))) {
		v->kind = sym->kind;
		v->i = sym->i;
		v->f = sym->f;
		copy_str(v->reg, sizeof(v->reg), sym->reg);
	} else if (as->pass == 1) {
		v->kind = V_LABEL;	/* maybe a label defined further down */
	} else {
		asm_fail_at(as, col, "undefined symbol '%s'", text);
	}
	for (s = dot; s; s = dot) {
		dot = strchr(s + 1, '.');
		if (dot)
			*dot = '\0';
		if (v->kind != V_REG)
			asm_fail_at(as, col, "suffix '.%s' on a value that is not a register",
				    s + 1);
		if (v->nsuffix == MAX_SUFFIXES || strlen(s + 1) >= 16)
			asm_fail_at(as, col, "too many suffixes");
		strcpy(v->suffix[v->nsuffix++], s + 1);
	}
}

static void need_number(struct lexer *lx, const struct value *v)
{
	if (v->kind == V_REG)
		asm_fail_at(lx->as, v->col, "register '%s' used in an arithmetic expression",
			    v->reg);
	if (v->kind == V_SEMA)
		asm_fail_at(lx->as, v->col, "a semaphore operation is not a number");
}

static void need_int(struct lexer *lx, const struct value *v, const char *op)
{
	need_number(lx, v);
	if (v->kind == V_FLOAT)
		asm_fail_at(lx->as, v->col, "operator '%s' needs integer operands", op);
}

static double as_double(const struct value *v)
{
	return v->kind == V_FLOAT ? v->f : (double)v->i;
}

/*
 * vc4asm's functions for VPM and VPM DMA setup words. The bit layouts are
 * those of the Reference Guide (section 7): generic block read/write setup,
 * VDW basic and stride setup, VDR basic and extended-stride setup; the
 * address helpers build the ADDR/VPMBASE/ADDRXY fields and mode bits.
 */
enum setup_func {
	F_VPM_SETUP, F_H32, F_H16, F_H16P, F_H16L, F_H8, F_H8P, F_H8L,
	F_V32, F_V16, F_V16P, F_V16L, F_V8, F_V8P, F_V8L,
	F_VDW_SETUP_0, F_VDW_SETUP_1, F_DMA_H32, F_DMA_H16P, F_DMA_H8P,
	F_DMA_V32, F_DMA_V16P, F_DMA_V8P,
	F_VDR_SETUP_0, F_VDR_SETUP_1, F_VDR_H32, F_VDR_H16P, F_VDR_H8P,
	F_VDR_V32, F_VDR_V16P, F_VDR_V8P,
	NUM_SETUP_FUNCS
};

static const struct { const char *name; unsigned int nargs; } setup_funcs[] = {
	[F_VPM_SETUP] = { "vpm_setup", 3 },
	[F_H32] = { "h32", 1 }, [F_H16] = { "h16", 2 }, [F_H16P] = { "h16p", 2 },
	[F_H16L] = { "h16l", 2 }, [F_H8] = { "h8", 2 }, [F_H8P] = { "h8p", 2 },
	[F_H8L] = { "h8l", 2 }, [F_V32] = { "v32", 2 }, [F_V16] = { "v16", 3 },
	[F_V16P] = { "v16p", 3 }, [F_V16L] = { "v16l", 3 }, [F_V8] = { "v8", 3 },
	[F_V8P] = { "v8p", 3 }, [F_V8L] = { "v8l", 3 },
	[F_VDW_SETUP_0] = { "vdw_setup_0", 3 }, [F_VDW_SETUP_1] = { "vdw_setup_1", 1 },
	[F_DMA_H32] = { "dma_h32", 2 }, [F_DMA_H16P] = { "dma_h16p", 3 },
	[F_DMA_H8P] = { "dma_h8p", 3 }, [F_DMA_V32] = { "dma_v32", 2 },
	[F_DMA_V16P] = { "dma_v16p", 3 }, [F_DMA_V8P] = { "dma_v8p", 3 },
	[F_VDR_SETUP_0] = { "vdr_setup_0", 4 }, [F_VDR_SETUP_1] = { "vdr_setup_1", 1 },
	[F_VDR_H32] = { "vdr_h32", 3 }, [F_VDR_H16P] = { "vdr_h16p", 4 },
	[F_VDR_H8P] = { "vdr_h8p", 4 }, [F_VDR_V32] = { "vdr_v32", 3 },
	[F_VDR_V16P] = { "vdr_v16p", 4 }, [F_VDR_V8P] = { "vdr_v8p", 4 },
};

/* The words come from the core's qpu_vpm.h, as the C API's do. */
static u32 setup_word(enum setup_func fn, const int64_t *a)
{
	static const u8 sizes[] = { QPU_VPM_SIZE_32, QPU_VPM_SIZE_16, QPU_VPM_SIZE_8 };
	u32 x[4];
	unsigned int i;

	for (i = 0; i < 4; i++)
		x[i] = (u32)a[i];
	switch (fn) {
	case F_VPM_SETUP:	/* num, stride, address */
		return qpu_vpm_setup(x[0], x[1], x[2]);
	case F_H32:		/* y */
		return qpu_vpm_addr(true, false, QPU_VPM_SIZE_32, x[0], 0, 0);
	case F_H16:
	case F_H16P:
	case F_H16L:		/* y, half */
		return qpu_vpm_addr(true, fn == F_H16L, QPU_VPM_SIZE_16, x[0], 0, x[1]);
	case F_H8:
	case F_H8P:
	case F_H8L:		/* y, byte */
		return qpu_vpm_addr(true, fn == F_H8L, QPU_VPM_SIZE_8, x[0], 0, x[1]);
	case F_V32:		/* y, x */
		return qpu_vpm_addr(false, false, QPU_VPM_SIZE_32, x[0], x[1], 0);
	case F_V16:
	case F_V16P:
	case F_V16L:		/* y, x, half */
		return qpu_vpm_addr(false, fn == F_V16L, QPU_VPM_SIZE_16, x[0], x[1], x[2]);
	case F_V8:
	case F_V8P:
	case F_V8L:		/* y, x, byte */
		return qpu_vpm_addr(false, fn == F_V8L, QPU_VPM_SIZE_8, x[0], x[1], x[2]);
	case F_VDW_SETUP_0:	/* units, depth, dma */
		return qpu_vdw_setup0(x[0], x[1], x[2]);
	case F_VDW_SETUP_1:	/* stride */
		return qpu_vdw_setup1(x[0]);
	case F_DMA_H32:
	case F_DMA_H16P:
	case F_DMA_H8P:		/* y, x[, half or byte] */
		return qpu_vdw_dma(true, sizes[fn - F_DMA_H32], x[0], x[1], x[2]);
	case F_DMA_V32:
	case F_DMA_V16P:
	case F_DMA_V8P:
		return qpu_vdw_dma(false, sizes[fn - F_DMA_V32], x[0], x[1], x[2]);
	case F_VDR_SETUP_0:	/* mpitch, rowlen, nrows, address */
		return qpu_vdr_setup0(x[0], x[1], x[2], x[3]);
	case F_VDR_SETUP_1:	/* stride */
		return qpu_vdr_setup1(x[0]);
	case F_VDR_H32:
	case F_VDR_H16P:
	case F_VDR_H8P:		/* vpitch, y, x[, half or byte] */
		return qpu_vdr_dma(true, sizes[fn - F_VDR_H32], x[0], x[1], x[2], x[3]);
	case F_VDR_V32:
	case F_VDR_V16P:
	case F_VDR_V8P:
		return qpu_vdr_dma(false, sizes[fn - F_VDR_V32], x[0], x[1], x[2], x[3]);
	default:
		return 0;
	}
}

static int cmp_num_order(const void *a, const void *b)
{
	const struct num_order *x = a, *y = b;

	if (x->num != y->num)
		return x->num < y->num ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * The index of the first definition of local label @num at or after the
 * current place (@forward), or of the last one before it; nnum_labels if
 * none. A binary search of the definitions sorted by number, then place: a
 * scan of them all for each reference took hours with a loop of labels.
 */
static size_t find_num_label(struct qpu_asm *as, unsigned long num, bool forward)
{
	size_t lo = 0, hi = as->nnum_labels, mid, i;
	const struct num_order *e;

	if (!as->num_order && as->nnum_labels) {
		as->num_order = asm_xalloc(as, malloc(as->nnum_labels * sizeof(*as->num_order)));
		for (i = 0; i < as->nnum_labels; i++) {
			as->num_order[i].num = as->num_labels[i].num;
			as->num_order[i].idx = i;
		}
		qsort(as->num_order, as->nnum_labels, sizeof(*as->num_order), cmp_num_order);
	}
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		e = &as->num_order[mid];
		if (e->num < num || (e->num == num && e->idx < as->num_labels_seen))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (forward)
		return lo < as->nnum_labels && as->num_order[lo].num == num ?
			as->num_order[lo].idx : as->nnum_labels;
	return lo && as->num_order[lo - 1].num == num ? as->num_order[lo - 1].idx :
		as->nnum_labels;
}

/* "r:1f" / "r:1b": the next or the last definition of local label 1. */
static void num_label_ref(struct lexer *lx, const char *p, unsigned int col,
			  struct value *v, bool plain_back)
{
	struct qpu_asm *as = lx->as;
	unsigned long num = 0;
	bool forward;
	size_t i;

	while (is_digit(*p))
		num = num * 10 + (unsigned long)(*p++ - '0');
	if (plain_back && !is_ident_char(*p))
		p--;	/* vc4asm's ":1": the last one */
	else if ((*p != 'f' && *p != 'b') || is_ident_char(p[1]))
		asm_fail_at(as, col, "a local label reference needs 'f' or 'b'");
	forward = *p == 'f';
	lx->p = p + 1;
	asm_lex_next(lx);
	memset(v, 0, sizeof(*v));
	v->kind = V_LABEL;
	v->col = col;
	if (as->pass == 1)
		return;
	i = find_num_label(as, num, forward);
	if (i >= as->nnum_labels)
		asm_fail_at(as, col, "no %s definition of local label %lu",
			    forward ? "following" : "preceding", num);
	v->i = as->num_labels[i].addr;
}

/* "name(args)" if @name is one of the setup functions; false otherwise. */
static bool setup_call(struct lexer *lx, struct value *v)
{
	int64_t args[4] = { 0 };
	unsigned int fn, n = 0, col = lx->tok.col;

	if (*asm_skip_space(lx->p) != '(')
		return false;
	for (fn = 0; fn < NUM_SETUP_FUNCS; fn++)
		if (lx->tok.len == strlen(setup_funcs[fn].name) &&
		    !strncmp(lx->tok.start, setup_funcs[fn].name, lx->tok.len))
			break;
	if (fn == NUM_SETUP_FUNCS) {
		bool acq = asm_tok_word(lx, "sacq");

		if (!acq && !asm_tok_word(lx, "srel"))
			return false;
		/* "mov -, sacq(n)": vc4asm's semaphore as a source */
		asm_lex_next(lx);
		asm_expect(lx, "(");
		args[0] = asm_int_expr(lx, NULL);
		asm_expect(lx, ")");
		memset(v, 0, sizeof(*v));
		v->kind = V_SEMA;
		v->sem_acquire = acq;
		v->i = args[0];
		v->col = col;
		return true;
	}
	asm_lex_next(lx);
	asm_expect(lx, "(");
	while (!asm_tok_is(lx, ")")) {
		if (n == setup_funcs[fn].nargs)
			asm_fail_at(lx->as, lx->tok.col, "too many arguments for %s()",
				    setup_funcs[fn].name);
		args[n++] = asm_int_expr(lx, NULL);
		if (!asm_tok_is(lx, ","))
			break;
		asm_lex_next(lx);
	}
	if (n != setup_funcs[fn].nargs)
		asm_fail_at(lx->as, lx->tok.col, "%s() takes %u arguments, not %u",
			    setup_funcs[fn].name, setup_funcs[fn].nargs, n);
	asm_expect(lx, ")");
	memset(v, 0, sizeof(*v));
	v->kind = V_INT;
	v->i = setup_word(fn, args);
	v->col = col;
	return true;
}

static void primary(struct lexer *lx, struct value *v);

static void primary_value(struct lexer *lx, struct value *v)
{
	struct token t = lx->tok;

	memset(v, 0, sizeof(*v));
	v->col = t.col;
	switch (t.kind) {
	case T_INT:
		v->kind = V_INT;
		v->i = t.i;
		asm_lex_next(lx);
		return;
	case T_FLOAT:
		v->kind = V_FLOAT;
		v->f = t.f;
		asm_lex_next(lx);
		return;
	case T_IDENT:
		if (asm_call_function(lx, v) || setup_call(lx, v))
			return;
		/* vc4asm's "r:label" and "r:1f" references to labels */
		if (t.len == 1 && t.start[0] == 'r' && t.start[1] == ':') {
			if (is_digit(t.start[2])) {
				num_label_ref(lx, t.start + 2, t.col, v, false);
				return;
			}
			lx->p = t.start + 2;
			asm_lex_next(lx);
			if (lx->tok.kind != T_IDENT)
				asm_fail_at(lx->as, lx->tok.col, "expected a label after 'r:'");
		}
		ident_value(lx, v);
		return;
	case T_PUNCT:
		/* vc4asm's ":label", ":1" (last), ":1f" and ":1b" */
		if (t.op[0] == ':' && is_digit(*asm_skip_space(t.start + 1))) {
			num_label_ref(lx, asm_skip_space(t.start + 1), t.col, v, true);
			return;
		}
		if (t.op[0] == ':') {
			asm_lex_next(lx);
			if (lx->tok.kind != T_IDENT)
				asm_fail_at(lx->as, lx->tok.col, "expected a label after ':'");
			ident_value(lx, v);
			v->col = t.col;
			return;
		}
		break;
	default:
		asm_fail_at(lx->as, t.col, "expected an expression");
	}
	if (asm_tok_is(lx, "(")) {
		asm_lex_next(lx);
		asm_expr(lx, v, 0);
		asm_expect(lx, ")");
		v->col = t.col;
		return;
	}
	if (asm_tok_is(lx, "-") || asm_tok_is(lx, "+") || asm_tok_is(lx, "~") ||
	    asm_tok_is(lx, "!")) {
		char op = t.op[0];

		asm_lex_next(lx);
		primary(lx, v);
		v->col = t.col;
		if (op == '+') {
			need_number(lx, v);
		} else if (op == '-') {
			need_number(lx, v);
			if (v->kind == V_FLOAT)
				v->f = -v->f;
			else
				v->i = (int64_t)(0 - (uint64_t)v->i);
			if (v->kind == V_LABEL)
				v->kind = V_INT;
		} else if (op == '~') {
			need_int(lx, v, "~");
			v->i = ~v->i;
			v->kind = V_INT;
		} else {
			need_number(lx, v);
			v->i = v->kind == V_FLOAT ? v->f == 0 : v->i == 0;
			v->kind = V_INT;
		}
		return;
	}
	asm_fail_at(lx->as, t.col, "expected an expression");
}

/*
 * A number, name, call, parenthesized expression or unary operation. Each
 * nesting of those recurses through here, so this is where the depth is
 * bounded: "((((...1...))))" 20000 deep would overflow the stack.
 */
static void primary(struct lexer *lx, struct value *v)
{
	struct qpu_asm *as = lx->as;

	if (as->expr_depth >= QPU_ASM_MAX_EXPR_DEPTH)
		asm_fail_at(as, lx->tok.col, "expression nested deeper than %d",
			    QPU_ASM_MAX_EXPR_DEPTH);
	as->expr_depth++;
	primary_value(lx, v);
	as->expr_depth--;
}

static int precedence(const struct lexer *lx)
{
	static const struct { const char *op; int prec; } ops[] = {
		{ "||", 1 }, { "&&", 2 }, { "|", 3 }, { "^", 4 }, { "&", 5 },
		{ "==", 6 }, { "!=", 6 }, { "<", 7 }, { "<=", 7 }, { ">", 7 },
		{ ">=", 7 }, { "<<", 8 }, { ">>", 8 }, { "+", 9 }, { "-", 9 },
		{ "*", 10 }, { "/", 10 }, { "%", 10 },
	};
	size_t i;

	if (lx->tok.kind != T_PUNCT)
		return 0;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(lx->tok.op, ops[i].op))
			return ops[i].prec;
	return 0;
}

/* "ra_base + 2": a numbered register plus an offset is a register. */
static void register_offset(struct lexer *lx, struct value *l,
			    const struct value *r, const char *op, unsigned int col)
{
	unsigned int n;
	int64_t k;
	bool file_b = l->reg[1] == 'b';

	if (r->kind != V_INT || l->nsuffix ||
	    !(asm_parse_numbered(l->reg, "ra", 63, &n) || asm_parse_numbered(l->reg, "rb", 63, &n)))
		asm_fail_at(lx->as, col, "only raN/rbN registers take an integer offset");
	k = op[0] == '+' ? (int64_t)n + r->i : (int64_t)n - r->i;
	if (k < 0 || k > 31)
		asm_fail_at(lx->as, col, "register number %" PRId64 " out of range", k);
	snprintf(l->reg, sizeof(l->reg), "r%c%u", file_b ? 'b' : 'a', (unsigned int)k);
}

static void binary(struct lexer *lx, struct value *l, const struct value *r,
		   const char *op, unsigned int col)
{
	bool fl = l->kind == V_FLOAT || r->kind == V_FLOAT;
	bool label = false;
	int64_t a = l->i, b = r->i;
	uint64_t ua = (uint64_t)a, ub = (uint64_t)b;

	if (l->kind == V_REG) {
		register_offset(lx, l, r, op, col);
		return;
	}
	need_number(lx, l);
	need_number(lx, r);
	if (!strcmp(op, "+"))
		label = l->kind == V_LABEL || r->kind == V_LABEL;
	else if (!strcmp(op, "-"))
		label = l->kind == V_LABEL && r->kind != V_LABEL;
	if (fl && strchr("+-*/<>=!", op[0]) && strcmp(op, "<<") && strcmp(op, ">>")) {
		double x = as_double(l), y = as_double(r);
		bool cmp = true;
		int res = 0;

		if (!strcmp(op, "+"))
			l->f = x + y, cmp = false;
		else if (!strcmp(op, "-"))
			l->f = x - y, cmp = false;
		else if (!strcmp(op, "*"))
			l->f = x * y, cmp = false;
		else if (!strcmp(op, "/"))
			l->f = x / y, cmp = false;
		else if (!strcmp(op, "<"))
			res = x < y;
		else if (!strcmp(op, "<="))
			res = x <= y;
		else if (!strcmp(op, ">"))
			res = x > y;
		else if (!strcmp(op, ">="))
			res = x >= y;
		else if (!strcmp(op, "=="))
			res = x == y;
		else
			res = x != y;
		l->kind = cmp ? V_INT : V_FLOAT;
		l->i = res;
		return;
	}
	if (fl && strcmp(op, "&&") && strcmp(op, "||"))
		asm_fail_at(lx->as, col, "operator '%s' needs integer operands", op);
	if (!strcmp(op, "+"))
		a = (int64_t)(ua + ub);
	else if (!strcmp(op, "-"))
		a = (int64_t)(ua - ub);
	else if (!strcmp(op, "*"))
		a = (int64_t)(ua * ub);
	else if (!strcmp(op, "/") || !strcmp(op, "%")) {
		if (!b)
			asm_fail_at(lx->as, col, "division by zero");
		if (a == INT64_MIN && b == -1)
			a = op[0] == '/' ? INT64_MIN : 0;
		else
			a = op[0] == '/' ? a / b : a % b;
	} else if (!strcmp(op, "<<"))
		a = b < 0 || b > 63 ? 0 : (int64_t)(ua << b);
	else if (!strcmp(op, ">>"))
		a = b < 0 || b > 63 ? (a < 0 ? -1 : 0) : a >> b;
	else if (!strcmp(op, "&"))
		a &= b;
	else if (!strcmp(op, "|"))
		a |= b;
	else if (!strcmp(op, "^"))
		a ^= b;
	else if (!strcmp(op, "&&"))
		a = (fl ? as_double(l) != 0 : a != 0) && (fl ? as_double(r) != 0 : b != 0);
	else if (!strcmp(op, "||"))
		a = (fl ? as_double(l) != 0 : a != 0) || (fl ? as_double(r) != 0 : b != 0);
	else if (!strcmp(op, "=="))
		a = a == b;
	else if (!strcmp(op, "!="))
		a = a != b;
	else if (!strcmp(op, "<"))
		a = a < b;
	else if (!strcmp(op, "<="))
		a = a <= b;
	else if (!strcmp(op, ">"))
		a = a > b;
	else
		a = a >= b;
	l->kind = label ? V_LABEL : V_INT;
	l->i = a;
}

/*
 * Precedence climbing. A register stops the expression so that a mul
 * source's rotation ("r1 << 4") is left to the caller.
 */
int64_t asm_expr(struct lexer *lx, struct value *v, int min_prec)
{
	struct value r;
	int prec;

	primary(lx, v);
	while ((prec = precedence(lx)) > min_prec) {
		if (v->kind == V_REG && !asm_tok_is(lx, "+") && !asm_tok_is(lx, "-"))
			break;
		char op[3];
		unsigned int col = lx->tok.col;

		memcpy(op, lx->tok.op, sizeof(op));
		asm_lex_next(lx);
		asm_expr(lx, &r, prec);
		binary(lx, v, &r, op, col);
	}
	return v->i;
}

/* An integer expression (labels are integers here). */
int64_t asm_int_expr(struct lexer *lx, unsigned int *col)
{
	struct value v;

	asm_expr(lx, &v, 0);
	if (col)
		*col = v.col;
	need_int(lx, &v, "integer");
	return v.i;
}

/* The scope .lset defines in: the function being evaluated, or the frame. */
unsigned int asm_local_scope(const struct qpu_asm *as)
{
	return as->func_depth ? SCOPE_FUNC + as->func_depth : (unsigned int)as->nframes;
}

/*
 * Give @name the value @v in @scope, adding it if that scope does not have
 * it yet. The list stays sorted by scope, innermost first.
 */
struct symbol *asm_set_symbol(struct qpu_asm *as, const char *name, unsigned int scope,
			      bool is_const, const struct value *v, unsigned int col)
{
	struct symbol *s, **pos;

	if (asm_is_register_name(name))
		asm_fail_at(as, col, "'%s' is a register name", name);
	if (asm_find_symbol(as->labels, name))
		asm_fail_at(as, col, "'%s' is already a label", name);
	for (pos = &as->symbols; *pos && (*pos)->scope > scope; pos = &(*pos)->next)
		;
	for (s = *pos; s && s->scope == scope && strcmp(s->name, name); s = s->next)
		;
	if (s && s->scope == scope) {
		if (s->is_const)
			asm_fail_at(as, col, "constant '%s' redefined (defined at %s:%u)",
				    name, s->file, s->lineno);
	} else {
		s = asm_xalloc(as, calloc(1, sizeof(*s)));
		copy_str(s->name, sizeof(s->name), name);
		s->scope = scope;
		s->next = *pos;
		*pos = s;
	}
	s->is_const = is_const;
	s->file = as->file;
	s->lineno = as->lineno;
	s->kind = v->kind;
	s->i = v->i;
	s->f = v->f;
	copy_str(s->reg, sizeof(s->reg), v->kind == V_REG ? v->reg : "");
	return s;
}

/* Remove @name from @scope; false if that scope does not have it. */
bool asm_unset_symbol(struct qpu_asm *as, const char *name, unsigned int scope)
{
	struct symbol **pos, *s;

	for (pos = &as->symbols; (s = *pos); pos = &s->next)
		if (s->scope == scope && !strcmp(s->name, name)) {
			*pos = s->next;
			free(s);
			return true;
		}
	return false;
}

/* Forget the symbols of @scope and of every scope inside it. */
void asm_drop_scopes(struct qpu_asm *as, unsigned int scope)
{
	struct symbol *s;

	while ((s = as->symbols) && s->scope >= scope) {
		as->symbols = s->next;
		free(s);
	}
}

/* The address of the next byte of output (data may leave a word open). */
int64_t asm_here(const struct qpu_asm *as)
{
	if (as->data_bits)
		return (int64_t)(as->nwords - 1) * 8 + as->data_bits / 8;
	return (int64_t)as->nwords * 8;
}

void asm_define_label(struct qpu_asm *as, const char *name, unsigned int col)
{
	struct symbol *s;

	if (strlen(name) >= NAME_LEN)
		asm_fail_at(as, col, "name too long");
	if (as->data_bits % 8)
		asm_fail_at(as, col, "a label needs a byte boundary, not bit %u of data",
			    as->data_bits);
	if (asm_find_symbol(as->symbols, name))
		asm_fail_at(as, col, "'%s' is already a constant", name);
	if (asm_is_register_name(name))
		asm_fail_at(as, col, "'%s' is a register name", name);
	s = asm_find_symbol(as->labels, name);
	if (as->pass == 1) {
		if (s)
			asm_fail_at(as, col, "label '%s' defined twice", name);
		s = asm_xalloc(as, calloc(1, sizeof(*s)));
		copy_str(s->name, sizeof(s->name), name);
		s->next = as->labels;
		as->labels = s;
		s->kind = V_LABEL;
		s->i = asm_here(as);
		s->file = as->file;
		s->lineno = as->lineno;
	} else if (!s || s->i != asm_here(as)) {
		asm_fail_at(as, col, "label '%s' moved between passes (a forward label "
			    "in .if or .rep?)", name);
	}
}

void asm_define_num_label(struct qpu_asm *as, struct lexer *lx)
{
	struct num_label *nl;

	if (lx->tok.kind != T_INT)
		asm_fail_at(as, lx->tok.col, "expected a label name after ':'");
	if (as->data_bits % 8)
		asm_fail_at(as, lx->tok.col, "a label needs a byte boundary, not bit %u of data",
			    as->data_bits);
	if (as->pass == 1) {
		size_t n = as->nnum_labels;

		if (!(n & (n - 1))) {	/* at 0, 1, 2, 4...: doubling */
			nl = asm_xalloc(as, realloc(as->num_labels,
						    (n ? 2 * n : 1) * sizeof(*nl)));
			as->num_labels = nl;
		}
		nl = as->num_labels;
		nl[as->nnum_labels].num = (unsigned long)lx->tok.i;
		nl[as->nnum_labels].addr = asm_here(as);
		as->nnum_labels++;
	}
	as->num_labels_seen++;
}
