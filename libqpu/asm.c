// SPDX-License-Identifier: MIT
/*
 * The text assembler: vc4asm-compatible source (the syntax qpu_disasm()
 * prints, plus labels and ":1"/"r:1f" local labels, .set/.equ constants and
 * register aliases, C-style expressions, .rep, .if, .macro, .include and
 * vc4asm's VPM/VDW/VDR setup functions) into instruction words. Fields are
 * looked up in the core's tables and words built by qpu_isa_encode(). The
 * source is run twice: the first run learns label addresses, the second
 * uses them; the first error stops the run with its file:line:col.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm.h"
#include "qpu_isa.h"

#define MAX_SUFFIXES	4
#define NAME_LEN	64
#define MAX_OPERANDS	8
#define MAX_MACRO_ARGS	32
#define MAX_IF_DEPTH	64

/* ---- source lines and frames ------------------------------------------ */

struct src_line {
	char *text;
	const char *file;
	unsigned int lineno;
};

struct body {
	struct src_line *lines;
	size_t count;
	size_t cap;
};

struct macro {
	char name[NAME_LEN];
	char params[MAX_MACRO_ARGS][NAME_LEN];
	size_t nparams;
	struct body body;
	bool active;
	struct macro *next;
};

enum frame_kind { FRAME_FILE, FRAME_REP, FRAME_MACRO };

struct frame {
	enum frame_kind kind;
	struct body *body;	/* owned unless FRAME_MACRO */
	size_t pos;
	unsigned long rep_left;
	unsigned long rep_index;
	char rep_var[NAME_LEN];	/* ".rep i, N": i counts 0..N-1 */
	struct macro *macro;
	char *args[MAX_MACRO_ARGS];
	char *file_text;
	unsigned int if_depth;	/* .if nesting when the frame began */
};

struct symbol {
	char name[NAME_LEN];
	int kind;		/* enum value_kind */
	int64_t i;
	double f;
	char reg[NAME_LEN];
	bool is_label;
	struct symbol *next;
};

/* A numeric local label, referred to as "r:1f" (next) or "r:1b" (last). */
struct num_label {
	unsigned long num;
	int64_t addr;
};

struct if_state {
	bool parent_active;
	bool taken;		/* a branch of this .if was chosen */
	bool active;
	bool seen_else;
	const char *file;	/* where the .if is */
	unsigned int lineno;
	unsigned int col;
};

struct qpu_asm {
	char *include_dirs[QPU_ASM_MAX_INCLUDE_DIRS];
	size_t ninclude_dirs;
	char **names;		/* interned file names */
	size_t nnames;

	uint64_t *words;
	size_t nwords, cap_words;
	struct qpu_asm_diag *diags;
	size_t ndiags;

	/* state of one run */
	int pass;
	jmp_buf fail;
	struct frame frames[QPU_ASM_MAX_DEPTH + 1];
	size_t nframes;
	struct symbol *symbols;
	struct symbol *labels;	/* kept from pass 1 to pass 2 */
	struct num_label *num_labels;	/* ":1" definitions, in order (pass 1) */
	size_t nnum_labels;
	size_t num_labels_seen;		/* definitions passed in this pass */
	struct macro *macros;
	struct if_state ifs[MAX_IF_DEPTH];
	unsigned int nifs;
	char *line;		/* the current line after macro substitution */
	struct body *pending;	/* a .rep body being collected */
	const char *file;
	unsigned int lineno;
};

static void set_rep_var(struct qpu_asm *as, struct frame *f);

/* ---- errors ------------------------------------------------------------ */

static void *xalloc(struct qpu_asm *as, void *p)
{
	if (!p) {
		errno = ENOMEM;
		longjmp(as->fail, 2);
	}
	return p;
}

static void add_diag(struct qpu_asm *as, unsigned int col, bool warning,
		     const char *fmt, va_list ap)
{
	struct qpu_asm_diag *d;
	char buf[512];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	d = xalloc(as, realloc(as->diags, (as->ndiags + 1) * sizeof(*d)));
	as->diags = d;
	d += as->ndiags;
	d->file = as->file ? as->file : "<input>";
	d->line = as->lineno;
	d->col = col;
	d->warning = warning;
	d->msg = xalloc(as, strdup(buf));
	as->ndiags++;
}

/* Report an error at column @col (1-based) of the current line and stop. */
static void __attribute__((noreturn, format(printf, 3, 4)))
fail_at(struct qpu_asm *as, unsigned int col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_diag(as, col, false, fmt, ap);
	va_end(ap);
	longjmp(as->fail, 1);
}

/* ---- lexer ------------------------------------------------------------- */

enum tok_kind {
	T_EOL, T_IDENT, T_DIRECTIVE, T_INT, T_FLOAT, T_STRING, T_PUNCT,
};

struct token {
	enum tok_kind kind;
	const char *start;
	size_t len;
	unsigned int col;
	int64_t i;
	double f;
	char op[3];		/* T_PUNCT */
};

struct lexer {
	struct qpu_asm *as;
	const char *line;
	const char *p;
	struct token tok;	/* current token */
};

/* Copy @src into @dst of @size bytes, cut if longer. */
static void copy_str(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static bool is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_ident_char(char c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static const char *skip_space(const char *p)
{
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v')
			p++;
		if (p[0] == '/' && p[1] == '*') {
			const char *end = strstr(p + 2, "*/");

			p = end ? end + 2 : p + strlen(p);
			continue;
		}
		return p;
	}
}

/* Identifier with dotted suffixes: "add.setf.ifz", "ra1.16a", "-.ifz". */
static const char *scan_ident(const char *p)
{
	while (is_ident_char(*p))
		p++;
	while (p[0] == '.' && is_ident_char(p[1])) {
		p++;
		while (is_ident_char(*p))
			p++;
	}
	return p;
}

static void lex_number(struct lexer *lx, const char *p)
{
	struct token *t = &lx->tok;
	const char *q = p;
	bool is_float = false;
	unsigned long long v = 0;
	int base = 10, digit;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		q = p + 2;
	} else if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B') &&
		   (p[2] == '0' || p[2] == '1')) {
		base = 2;
		q = p + 2;
	} else {
		while (is_digit(*q))
			q++;
		if (*q == '.' && is_digit(q[1])) {
			is_float = true;
			q++;
			while (is_digit(*q))
				q++;
		}
		if ((*q == 'e' || *q == 'E') &&
		    (is_digit(q[1]) || ((q[1] == '-' || q[1] == '+') && is_digit(q[2])))) {
			is_float = true;
			q += 2;
			while (is_digit(*q))
				q++;
		}
		if (is_float) {
			t->kind = T_FLOAT;
			t->f = strtod(p, NULL);
			t->len = q - p;
			return;
		}
		q = p;
	}
	for (;; q++) {
		char c = *q;

		if (c >= '0' && c <= '9')
			digit = c - '0';
		else if (c >= 'a' && c <= 'f')
			digit = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			digit = c - 'A' + 10;
		else
			break;
		if (digit >= base)
			break;
		if (v > (ULLONG_MAX - digit) / base)
			fail_at(lx->as, t->col, "number too large");
		v = v * base + digit;
	}
	if (is_ident_char(*q))
		fail_at(lx->as, t->col, "malformed number");
	t->kind = T_INT;
	t->i = (int64_t)v;
	t->len = q - p;
}

static void lex_next(struct lexer *lx)
{
	static const char *const two[] = {
		"<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
	};
	struct token *t = &lx->tok;
	const char *p = skip_space(lx->p);
	size_t i;

	memset(t, 0, sizeof(*t));
	t->start = p;
	t->col = (unsigned int)(p - lx->line) + 1;
	if (!*p || *p == '\n' || *p == '#' || (p[0] == '/' && p[1] == '/')) {
		t->kind = T_EOL;
		lx->p = p;
		return;
	}
	if (is_ident_start(*p)) {
		t->kind = T_IDENT;
		t->len = scan_ident(p) - p;
	} else if (*p == '.' && is_ident_start(p[1])) {
		t->kind = T_DIRECTIVE;
		t->len = scan_ident(p + 1) - p;
	} else if (is_digit(*p)) {
		lex_number(lx, p);
	} else if (*p == '"') {
		const char *q = strchr(p + 1, '"');

		if (!q)
			fail_at(lx->as, t->col, "missing closing '\"'");
		t->kind = T_STRING;
		t->len = q + 1 - p;
	} else if (*p == '-' && (p[1] == '.' && is_ident_start(p[2]))) {
		/* write address 39 with suffixes: "-.ifz" */
		t->kind = T_IDENT;
		t->len = scan_ident(p + 2) - p;
	} else {
		const char *q = skip_space(p + 1);

		t->kind = T_PUNCT;
		t->len = 1;
		/* a lone "-" before a separator is the no-write destination */
		if (*p == '-' && (!*q || *q == ',' || *q == ';' || *q == '#')) {
			t->kind = T_IDENT;
		} else {
			for (i = 0; i < sizeof(two) / sizeof(two[0]); i++)
				if (p[0] == two[i][0] && p[1] == two[i][1])
					t->len = 2;
			if (!strchr(",;()[]:+-*/%<>=!&|^~", *p))
				fail_at(lx->as, t->col, "unexpected character '%c'", *p);
			memcpy(t->op, p, t->len);
		}
	}
	lx->p = p + t->len;
}

static void lex_init(struct lexer *lx, struct qpu_asm *as, const char *line)
{
	lx->as = as;
	lx->line = line;
	lx->p = line;
	lex_next(lx);
}

static bool tok_is(const struct lexer *lx, const char *op)
{
	return lx->tok.kind == T_PUNCT && !strcmp(lx->tok.op, op);
}

static bool tok_word(const struct lexer *lx, const char *word)
{
	return (lx->tok.kind == T_IDENT || lx->tok.kind == T_DIRECTIVE) &&
		lx->tok.len == strlen(word) && !strncmp(lx->tok.start, word, lx->tok.len);
}

static bool at_end(const struct lexer *lx)
{
	return lx->tok.kind == T_EOL || tok_is(lx, ";");
}

static void expect(struct lexer *lx, const char *op)
{
	if (!tok_is(lx, op))
		fail_at(lx->as, lx->tok.col, "expected '%s'", op);
	lex_next(lx);
}

static void tok_text(const struct lexer *lx, char *buf, size_t size)
{
	size_t n = lx->tok.len < size - 1 ? lx->tok.len : size - 1;

	memcpy(buf, lx->tok.start, n);
	buf[n] = '\0';
}

/* ---- values and expressions ------------------------------------------- */

enum value_kind { V_INT, V_FLOAT, V_LABEL, V_REG, V_SEMA };

struct value {
	enum value_kind kind;
	int64_t i;
	double f;
	char reg[NAME_LEN];		/* V_REG: base name */
	char suffix[MAX_SUFFIXES][16];	/* V_REG: ".16a", ".ifz", ... */
	unsigned int nsuffix;
	unsigned int col;
	bool sem_acquire;		/* V_SEMA: sacq(n), else srel(n) */
};

static struct symbol *find_symbol(struct symbol *list, const char *name)
{
	for (; list; list = list->next)
		if (!strcmp(list->name, name))
			return list;
	return NULL;
}

static bool parse_numbered(const char *name, const char *prefix, unsigned int max,
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

/*
 * Other spellings vc4asm accepts for a few registers, mapped to the core
 * table's names.
 */
static const char *canonical_reg(const char *name)
{
	static const char *const other[][2] = {
		{ "interrupt", "irq" }, { "host_int", "irq" },
		{ "mutex_acq", "mutex" }, { "mutex_rel", "mutex" },
	};
	size_t i;

	for (i = 0; i < sizeof(other) / sizeof(other[0]); i++)
		if (!strcmp(name, other[i][0]))
			return other[i][1];
	return name;
}

/* True if @name is a register of either file (read or write) or r0..r5. */
static bool is_register_name(const char *name)
{
	unsigned int n, f, a;

	name = canonical_reg(name);
	if (parse_numbered(name, "ra", 63, &n) || parse_numbered(name, "rb", 63, &n) ||
	    parse_numbered(name, "r", 5, &n) || !strcmp(name, "-"))
		return true;
	for (f = 0; f < 2; f++)
		for (a = 32; a < 64; a++)
			if ((qpu_isa_read_regs[f][a].name &&
			     !(qpu_isa_read_regs[f][a].flags & QPU_ISA_REG_NOP) &&
			     !strcmp(qpu_isa_read_regs[f][a].name, name)) ||
			    !strcmp(qpu_isa_write_regs[f][a].name, name))
				return true;
	return false;
}

static int64_t expr(struct lexer *lx, struct value *v, int min_prec);
static int64_t int_expr(struct lexer *lx, unsigned int *col);

/* Split "name.s1.s2" into @v's base (looked up) and suffixes. */
static void ident_value(struct lexer *lx, struct value *v)
{
	struct qpu_asm *as = lx->as;
	char text[NAME_LEN * 2], *dot, *s;
	struct symbol *sym;
	unsigned int col = lx->tok.col;

	tok_text(lx, text, sizeof(text));
	lex_next(lx);
	dot = strchr(text[0] == '-' ? text + 1 : text, '.');
	if (dot)
		*dot = '\0';
	memset(v, 0, sizeof(*v));
	v->col = col;
	if (is_register_name(text)) {
		v->kind = V_REG;
		copy_str(v->reg, sizeof(v->reg), text);
	} else if ((sym = find_symbol(as->symbols, text)) ||
		   (as->pass == 2 && (sym = find_symbol(as->labels, text)))) {
		v->kind = sym->kind;
		v->i = sym->i;
		v->f = sym->f;
		copy_str(v->reg, sizeof(v->reg), sym->reg);
	} else if (as->pass == 1) {
		v->kind = V_LABEL;	/* maybe a label defined further down */
	} else {
		fail_at(as, col, "undefined symbol '%s'", text);
	}
	for (s = dot; s; s = dot) {
		dot = strchr(s + 1, '.');
		if (dot)
			*dot = '\0';
		if (v->kind != V_REG)
			fail_at(as, col, "suffix '.%s' on a value that is not a register",
				s + 1);
		if (v->nsuffix == MAX_SUFFIXES || strlen(s + 1) >= 16)
			fail_at(as, col, "too many suffixes");
		strcpy(v->suffix[v->nsuffix++], s + 1);
	}
}

static void need_number(struct lexer *lx, const struct value *v)
{
	if (v->kind == V_REG)
		fail_at(lx->as, v->col, "register '%s' used in an arithmetic expression",
			v->reg);
	if (v->kind == V_SEMA)
		fail_at(lx->as, v->col, "a semaphore operation is not a number");
}

static void need_int(struct lexer *lx, const struct value *v, const char *op)
{
	need_number(lx, v);
	if (v->kind == V_FLOAT)
		fail_at(lx->as, v->col, "operator '%s' needs integer operands", op);
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

#define VPM_HORIZ	(1u << 11)
#define VPM_LANED	(1u << 10)
#define VPM_SIZE(s)	((u32)(s) << 8)		/* 0: 8, 1: 16, 2: 32 bit */
#define VDW_ID		(2u << 30)
#define VDW_STRIDE_ID	(3u << 30)
#define VDW_HORIZ	(1u << 14)
#define VDR_ID		(1u << 31)
#define VDR_STRIDE_ID	(9u << 28)
#define VDR_VERT	(1u << 11)

static u32 setup_word(enum setup_func fn, const int64_t *a)
{
	u32 x[4];
	unsigned int i;

	for (i = 0; i < 4; i++)
		x[i] = (u32)a[i];
	switch (fn) {
	case F_VPM_SETUP:	/* num, stride, address */
		return (x[0] & 15) << 20 | (x[1] & 63) << 12 | x[2];
	case F_H32:		/* y */
		return VPM_HORIZ | VPM_SIZE(2) | (x[0] & 63);
	case F_H16:
	case F_H16P:		/* y, half */
		return VPM_HORIZ | VPM_SIZE(1) | (x[0] & 63) << 1 | (x[1] & 1);
	case F_H16L:
		return VPM_HORIZ | VPM_LANED | VPM_SIZE(1) | (x[0] & 63) << 1 | (x[1] & 1);
	case F_H8:
	case F_H8P:		/* y, byte */
		return VPM_HORIZ | (x[0] & 63) << 2 | (x[1] & 3);
	case F_H8L:
		return VPM_HORIZ | VPM_LANED | (x[0] & 63) << 2 | (x[1] & 3);
	case F_V32:		/* y, x */
		return VPM_SIZE(2) | (x[0] & 0x30) | (x[1] & 15);
	case F_V16:
	case F_V16P:		/* y, x, half */
		return VPM_SIZE(1) | (x[2] & 1) << 6 | (x[0] & 0x30) | (x[1] & 15);
	case F_V16L:
		return VPM_LANED | VPM_SIZE(1) | (x[2] & 1) << 6 | (x[0] & 0x30) |
			(x[1] & 15);
	case F_V8:
	case F_V8P:		/* y, x, byte */
		return (x[2] & 3) << 6 | (x[0] & 0x30) | (x[1] & 15);
	case F_V8L:
		return VPM_LANED | (x[2] & 3) << 6 | (x[0] & 0x30) | (x[1] & 15);
	case F_VDW_SETUP_0:	/* units, depth, dma */
		return VDW_ID | (x[0] & 127) << 23 | (x[1] & 127) << 16 | x[2];
	case F_VDW_SETUP_1:	/* stride */
		return VDW_STRIDE_ID | (x[0] & 0x1fff);
	case F_DMA_H32:		/* y, x */
		return VDW_HORIZ | (x[0] & 127) << 7 | (x[1] & 15) << 3;
	case F_DMA_H16P:	/* y, x, half */
		return VDW_HORIZ | (x[0] & 127) << 7 | (x[1] & 15) << 3 | 2 | (x[2] & 1);
	case F_DMA_H8P:		/* y, x, byte */
		return VDW_HORIZ | (x[0] & 127) << 7 | (x[1] & 15) << 3 | 4 | (x[2] & 3);
	case F_DMA_V32:
		return (x[0] & 127) << 7 | (x[1] & 15) << 3;
	case F_DMA_V16P:
		return (x[0] & 127) << 7 | (x[1] & 15) << 3 | 2 | (x[2] & 1);
	case F_DMA_V8P:
		return (x[0] & 127) << 7 | (x[1] & 15) << 3 | 4 | (x[2] & 3);
	case F_VDR_SETUP_0:	/* mpitch, rowlen, nrows, address */
		return VDR_ID | (x[0] & 15) << 24 | (x[1] & 15) << 20 |
			(x[2] & 15) << 16 | x[3];
	case F_VDR_SETUP_1:	/* stride */
		return VDR_STRIDE_ID | (x[0] & 0x1fff);
	case F_VDR_H32:		/* vpitch, y, x */
		return (x[0] & 15) << 12 | (x[1] & 127) << 4 | (x[2] & 15);
	case F_VDR_H16P:	/* vpitch, y, x, half */
		return (2 | (x[3] & 1)) << 28 | (x[0] & 15) << 12 | (x[1] & 127) << 4 |
			(x[2] & 15);
	case F_VDR_H8P:		/* vpitch, y, x, byte */
		return (4 | (x[3] & 3)) << 28 | (x[0] & 15) << 12 | (x[1] & 127) << 4 |
			(x[2] & 15);
	case F_VDR_V32:
		return VDR_VERT | (x[0] & 15) << 12 | (x[1] & 127) << 4 | (x[2] & 15);
	case F_VDR_V16P:
		return VDR_VERT | (2 | (x[3] & 1)) << 28 | (x[0] & 15) << 12 |
			(x[1] & 127) << 4 | (x[2] & 15);
	case F_VDR_V8P:
		return VDR_VERT | (4 | (x[3] & 3)) << 28 | (x[0] & 15) << 12 |
			(x[1] & 127) << 4 | (x[2] & 15);
	default:
		return 0;
	}
}

/* "r:1f" / "r:1b": the next or the last definition of local label 1. */
static void num_label_ref(struct lexer *lx, const char *p, unsigned int col,
			  struct value *v)
{
	struct qpu_asm *as = lx->as;
	unsigned long num = 0;
	bool forward;
	size_t i;

	while (is_digit(*p))
		num = num * 10 + (unsigned long)(*p++ - '0');
	if ((*p != 'f' && *p != 'b') || is_ident_char(p[1]))
		fail_at(as, col, "a local label reference needs 'f' or 'b'");
	forward = *p == 'f';
	lx->p = p + 1;
	lex_next(lx);
	memset(v, 0, sizeof(*v));
	v->kind = V_LABEL;
	v->col = col;
	if (as->pass == 1)
		return;
	if (forward) {
		for (i = as->num_labels_seen; i < as->nnum_labels; i++)
			if (as->num_labels[i].num == num)
				break;
	} else {
		for (i = as->num_labels_seen; i-- > 0;)
			if (as->num_labels[i].num == num)
				break;
	}
	if (i >= as->nnum_labels)
		fail_at(as, col, "no %s definition of local label %lu",
			forward ? "following" : "preceding", num);
	v->i = as->num_labels[i].addr;
}

/* "name(args)" if @name is one of the setup functions; false otherwise. */
static bool setup_call(struct lexer *lx, struct value *v)
{
	int64_t args[4] = { 0 };
	unsigned int fn, n = 0, col = lx->tok.col;

	if (*skip_space(lx->p) != '(')
		return false;
	for (fn = 0; fn < NUM_SETUP_FUNCS; fn++)
		if (lx->tok.len == strlen(setup_funcs[fn].name) &&
		    !strncmp(lx->tok.start, setup_funcs[fn].name, lx->tok.len))
			break;
	if (fn == NUM_SETUP_FUNCS) {
		bool acq = tok_word(lx, "sacq");

		if (!acq && !tok_word(lx, "srel"))
			return false;
		/* "mov -, sacq(n)": vc4asm's semaphore as a source */
		lex_next(lx);
		expect(lx, "(");
		args[0] = int_expr(lx, NULL);
		expect(lx, ")");
		memset(v, 0, sizeof(*v));
		v->kind = V_SEMA;
		v->sem_acquire = acq;
		v->i = args[0];
		v->col = col;
		return true;
	}
	lex_next(lx);
	expect(lx, "(");
	while (!tok_is(lx, ")")) {
		if (n == setup_funcs[fn].nargs)
			fail_at(lx->as, lx->tok.col, "too many arguments for %s()",
				setup_funcs[fn].name);
		args[n++] = int_expr(lx, NULL);
		if (!tok_is(lx, ","))
			break;
		lex_next(lx);
	}
	if (n != setup_funcs[fn].nargs)
		fail_at(lx->as, lx->tok.col, "%s() takes %u arguments, not %u",
			setup_funcs[fn].name, setup_funcs[fn].nargs, n);
	expect(lx, ")");
	memset(v, 0, sizeof(*v));
	v->kind = V_INT;
	v->i = setup_word(fn, args);
	v->col = col;
	return true;
}

static void primary(struct lexer *lx, struct value *v)
{
	struct token t = lx->tok;

	memset(v, 0, sizeof(*v));
	v->col = t.col;
	switch (t.kind) {
	case T_INT:
		v->kind = V_INT;
		v->i = t.i;
		lex_next(lx);
		return;
	case T_FLOAT:
		v->kind = V_FLOAT;
		v->f = t.f;
		lex_next(lx);
		return;
	case T_IDENT:
		if (setup_call(lx, v))
			return;
		/* vc4asm's "r:label" and "r:1f" references to labels */
		if (t.len == 1 && t.start[0] == 'r' && t.start[1] == ':') {
			if (is_digit(t.start[2])) {
				num_label_ref(lx, t.start + 2, t.col, v);
				return;
			}
			lx->p = t.start + 2;
			lex_next(lx);
			if (lx->tok.kind != T_IDENT)
				fail_at(lx->as, lx->tok.col, "expected a label after 'r:'");
		}
		ident_value(lx, v);
		return;
	case T_PUNCT:
		break;
	default:
		fail_at(lx->as, t.col, "expected an expression");
	}
	if (tok_is(lx, "(")) {
		lex_next(lx);
		expr(lx, v, 0);
		expect(lx, ")");
		v->col = t.col;
		return;
	}
	if (tok_is(lx, "-") || tok_is(lx, "+") || tok_is(lx, "~") || tok_is(lx, "!")) {
		char op = t.op[0];

		lex_next(lx);
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
	fail_at(lx->as, t.col, "expected an expression");
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
	    !(parse_numbered(l->reg, "ra", 63, &n) || parse_numbered(l->reg, "rb", 63, &n)))
		fail_at(lx->as, col, "only raN/rbN registers take an integer offset");
	k = op[0] == '+' ? (int64_t)n + r->i : (int64_t)n - r->i;
	if (k < 0 || k > 31)
		fail_at(lx->as, col, "register number %" PRId64 " out of range", k);
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
		fail_at(lx->as, col, "operator '%s' needs integer operands", op);
	if (!strcmp(op, "+"))
		a = (int64_t)(ua + ub);
	else if (!strcmp(op, "-"))
		a = (int64_t)(ua - ub);
	else if (!strcmp(op, "*"))
		a = (int64_t)(ua * ub);
	else if (!strcmp(op, "/") || !strcmp(op, "%")) {
		if (!b)
			fail_at(lx->as, col, "division by zero");
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
static int64_t expr(struct lexer *lx, struct value *v, int min_prec)
{
	struct value r;
	int prec;

	primary(lx, v);
	while ((prec = precedence(lx)) > min_prec) {
		if (v->kind == V_REG && !tok_is(lx, "+") && !tok_is(lx, "-"))
			break;
		char op[3];
		unsigned int col = lx->tok.col;

		memcpy(op, lx->tok.op, sizeof(op));
		lex_next(lx);
		expr(lx, &r, prec);
		binary(lx, v, &r, op, col);
	}
	return v->i;
}

/* An integer expression (labels are integers here). */
static int64_t int_expr(struct lexer *lx, unsigned int *col)
{
	struct value v;

	expr(lx, &v, 0);
	if (col)
		*col = v.col;
	need_int(lx, &v, "integer");
	return v.i;
}

/* ---- registers ---------------------------------------------------------- */

/* Where a name can be written: per file, the address or -1. */
struct wreg {
	int waddr[2];
};

static bool find_write(const char *name, struct wreg *w)
{
	unsigned int n, f, a;

	name = canonical_reg(name);
	w->waddr[0] = w->waddr[1] = -1;
	if (parse_numbered(name, "ra", 63, &n)) {
		w->waddr[0] = n;
	} else if (parse_numbered(name, "rb", 63, &n)) {
		w->waddr[1] = n;
	} else if (!strcmp(name, "-")) {
		w->waddr[0] = w->waddr[1] = QPU_ISA_WADDR_NOP;
	} else if (parse_numbered(name, "r", 3, &n)) {
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

	name = canonical_reg(name);
	r->mux = -1;
	r->raddr[0] = r->raddr[1] = -1;
	if (parse_numbered(name, "ra", 63, &n)) {
		r->raddr[0] = n;
	} else if (parse_numbered(name, "rb", 63, &n)) {
		r->raddr[1] = n;
	} else if (parse_numbered(name, "r", 5, &n)) {
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

/* ---- instruction building --------------------------------------------- */

/* The write side of an ALU, ldi or branch: what the text said. */
struct dest {
	bool present;
	struct wreg w;
	int cond;		/* -1: default */
	int pack_a;		/* regfile-A pack, -1 none */
	int pack_mul;		/* mul pack, -1 none */
	unsigned int col;
};

static void no_dest(struct dest *d)
{
	memset(d, 0, sizeof(*d));
	d->cond = d->pack_a = d->pack_mul = -1;
}

static void parse_dest(struct lexer *lx, const struct value *v, struct dest *d,
		       bool allow_cond)
{
	unsigned int i;
	int k;

	memset(d, 0, sizeof(*d));
	d->present = true;
	d->cond = -1;
	d->pack_a = d->pack_mul = -1;
	d->col = v->col;
	if (v->kind != V_REG || !find_write(v->reg, &d->w))
		fail_at(lx->as, v->col, "expected a destination register");
	for (i = 0; i < v->nsuffix; i++) {
		const char *s = v->suffix[i];

		if (allow_cond && (k = find_name(qpu_isa_cond_names, QPU_ISA_NUM_CONDS, s)) >= 0)
			d->cond = k;
		else if ((k = find_name(qpu_isa_pack_a_names, 16, s)) >= 0)
			d->pack_a = k;
		else if ((k = find_name(qpu_isa_pack_mul_names, 16, s)) >= 0)
			d->pack_mul = k;
		else
			fail_at(lx->as, v->col, "unknown destination suffix '.%s'", s);
	}
}

/* Choose ws and set the write addresses of both sides. */
static void place_dests(struct lexer *lx, struct qpu_isa_instr *in,
			const struct dest *add, const struct dest *mul)
{
	int ws;

	for (ws = 0; ws < 2; ws++)
		if ((!add->present || add->w.waddr[ws] >= 0) &&
		    (!mul->present || mul->w.waddr[!ws] >= 0))
			break;
	if (ws == 2)
		fail_at(lx->as, mul->present ? mul->col : add->col,
			"the destinations cannot be in different register files");
	in->ws = ws;
	in->waddr_add = add->present ? add->w.waddr[ws] : QPU_ISA_WADDR_NOP;
	in->waddr_mul = mul->present ? mul->w.waddr[!ws] : QPU_ISA_WADDR_NOP;
}

/* Pack suffixes of both destinations into pm/pack. */
static void place_packs(struct lexer *lx, struct qpu_isa_instr *in,
			const struct dest *add, const struct dest *mul, int *pm)
{
	if (add->pack_mul >= 0)
		fail_at(lx->as, add->col, "the add ALU has no float pack");
	if (add->pack_a >= 0) {
		if (in->ws || in->waddr_add >= 32)
			fail_at(lx->as, add->col, "pack needs a regfile A register");
		in->pack = add->pack_a;
		*pm = 0;
	}
	if (mul->pack_a >= 0 || mul->pack_mul >= 0) {
		if (add->pack_a >= 0)
			fail_at(lx->as, mul->col, "only one pack per instruction");
		if (mul->pack_mul >= 0) {
			in->pack = mul->pack_mul;
			*pm = 1;
		} else {
			if (!in->ws || in->waddr_mul >= 32)
				fail_at(lx->as, mul->col, "pack needs a regfile A register");
			in->pack = mul->pack_a;
			*pm = 0;
		}
	}
}

static int default_cond(const struct dest *d, unsigned int waddr, bool sets_flags)
{
	if (d->cond >= 0)
		return d->cond;
	return waddr == QPU_ISA_WADDR_NOP && !sets_flags ? QPU_ISA_COND_NEVER :
		QPU_ISA_COND_ALWAYS;
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

	tok_text(lx, text, sizeof(text));
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
			fail_at(lx->as, m->col, "unknown suffix '.%s' on '%s'", s + 1, m->base);
	}
	lex_next(lx);
}

/* One operand: a value, or "[a, b, ...]" for per-element loads. */
struct operand {
	struct value v;
	bool is_list;
	int64_t list[16];
	unsigned int nlist;
	int rot;		/* mul rotation: -1 none, 0 = r5, 1..15 */
	unsigned int rot_col;
};

static void parse_operand(struct lexer *lx, struct operand *op, bool allow_rot)
{
	memset(op, 0, sizeof(*op));
	op->rot = -1;
	if (tok_is(lx, "[")) {
		op->is_list = true;
		op->v.col = lx->tok.col;
		lex_next(lx);
		for (;;) {
			if (op->nlist == 16)
				fail_at(lx->as, lx->tok.col, "more than 16 elements");
			op->list[op->nlist++] = int_expr(lx, NULL);
			if (!tok_is(lx, ","))
				break;
			lex_next(lx);
		}
		expect(lx, "]");
		return;
	}
	expr(lx, &op->v, 0);
	if (op->v.kind == V_REG && allow_rot && (tok_is(lx, "<<") || tok_is(lx, ">>"))) {
		bool left = lx->tok.op[0] == '<';
		unsigned int col = lx->tok.col;

		lex_next(lx);
		op->rot_col = col;
		if (tok_word(lx, "r5")) {
			lex_next(lx);
			if (!left)
				fail_at(lx->as, col, "rotation by r5 is written '<< r5'");
			op->rot = 0;
		} else {
			int64_t n = int_expr(lx, NULL);

			if (n < 0 || n > 15 || (!left && n == 0))
				fail_at(lx->as, col, "rotation %" PRId64 " out of range", n);
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

	if (at_end(lx))
		return 0;
	for (;;) {
		if (n == MAX_OPERANDS)
			fail_at(lx->as, lx->tok.col, "too many operands");
		parse_operand(lx, &ops[n++], allow_rot);
		if (!tok_is(lx, ","))
			break;
		lex_next(lx);
	}
	if (!at_end(lx))
		fail_at(lx->as, lx->tok.col, "expected ',' or end of instruction");
	return n;
}

/* --- ALU --- */

struct alu_src {
	struct operand op;
	bool read_only;		/* from "read", feeds no mux */
	int *mux;		/* where the mux goes */
	bool is_mul;
};

struct alu_side {
	bool used;		/* an op (not nop) */
	bool nop_dest;		/* anop/mnop with a destination */
	int op;
	struct mnemonic m;
	struct dest d;
	bool mov;
	bool unary;
};

struct alu_build {
	struct qpu_isa_instr in;
	struct alu_side add, mul;
	int raddr_a, raddr_b;	/* -1 free */
	bool smi;
	int pm;			/* -1 free */
	int rot;		/* -1 none */
	unsigned int nparts;
	int sig;
	unsigned int sig_col;
	int muxes[4];		/* add_a, add_b, mul_a, mul_b */
};

static void set_pm(struct lexer *lx, struct alu_build *b, int pm, unsigned int col)
{
	if (b->pm >= 0 && b->pm != pm)
		fail_at(lx->as, col, "pack and unpack need different pm modes");
	b->pm = pm;
}

/* Small immediate index for an integer or float value, or -1. */
static int small_imm_index(const struct value *v)
{
	unsigned int i;

	if (v->kind == V_INT || v->kind == V_LABEL) {
		if (v->i >= -16 && v->i <= 15)
			return (int)(v->i & 31);
		return -1;
	}
	if (v->kind != V_FLOAT)
		return -1;
	for (i = 32; i < QPU_ISA_SMALL_IMM_ROT; i++) {
		float f = (float)v->f;
		uint32_t bits;

		memcpy(&bits, &f, sizeof(bits));
		if (qpu_isa_small_imms[i].value == bits)
			return (int)i;
	}
	return -1;
}

static void use_raddr(struct lexer *lx, int *slot, int addr, unsigned int col,
		      const char *file)
{
	if (*slot >= 0 && *slot != addr)
		fail_at(lx->as, col, "regfile %s is already read at another address",
			file);
	*slot = addr;
}

/* Place one source: a mux value (or -1 for "read"). */
static int place_src(struct lexer *lx, struct alu_build *b, const struct operand *op,
		     bool flexible_pass, bool *done)
{
	const struct value *v = &op->v;
	struct rreg r;
	unsigned int i;
	int k, mux = -1;

	if (op->is_list)
		fail_at(lx->as, v->col, "a list is not an ALU source");
	if (v->kind != V_REG) {
		if (flexible_pass)
			return -1;
		k = small_imm_index(v);
		if (k < 0)
			fail_at(lx->as, v->col, "value cannot be a small immediate");
		if (b->smi && b->raddr_b != k)
			fail_at(lx->as, v->col, "only one small immediate per instruction");
		if (!b->smi && b->raddr_b >= 0)
			fail_at(lx->as, v->col, "regfile B is already read");
		b->smi = true;
		b->raddr_b = k;
		*done = true;
		return QPU_ISA_MUX_B;
	}
	if (!find_read(v->reg, &r))
		fail_at(lx->as, v->col, "'%s' cannot be read", v->reg);
	if (r.mux >= 0) {
		if (flexible_pass)
			return -1;
		mux = r.mux;
	} else if (r.raddr[0] >= 0 && r.raddr[1] >= 0) {
		if (!flexible_pass)
			return -1;
		if (b->raddr_a < 0 || b->raddr_a == r.raddr[0]) {
			b->raddr_a = r.raddr[0];
			mux = QPU_ISA_MUX_A;
		} else if (!b->smi && (b->raddr_b < 0 || b->raddr_b == r.raddr[1])) {
			b->raddr_b = r.raddr[1];
			mux = QPU_ISA_MUX_B;
		} else {
			fail_at(lx->as, v->col, "no free register file to read '%s'", v->reg);
		}
	} else {
		if (flexible_pass)
			return -1;
		if (r.raddr[0] >= 0) {
			use_raddr(lx, &b->raddr_a, r.raddr[0], v->col, "A");
			mux = QPU_ISA_MUX_A;
		} else {
			if (b->smi)
				fail_at(lx->as, v->col, "regfile B is taken by a small immediate");
			use_raddr(lx, &b->raddr_b, r.raddr[1], v->col, "B");
			mux = QPU_ISA_MUX_B;
		}
	}
	*done = true;
	for (i = 0; i < v->nsuffix; i++) {
		k = find_name(qpu_isa_unpack_names, 8, v->suffix[i]);
		if (k < 0)
			fail_at(lx->as, v->col, "unknown source suffix '.%s'", v->suffix[i]);
		if (mux == QPU_ISA_MUX_R4)
			set_pm(lx, b, 1, v->col);
		else if (mux == QPU_ISA_MUX_A)
			set_pm(lx, b, 0, v->col);
		else
			fail_at(lx->as, v->col, "unpack needs r4 or a regfile A register");
		if (b->in.unpack && b->in.unpack != k)
			fail_at(lx->as, v->col, "only one unpack per instruction");
		b->in.unpack = k;
	}
	return mux;
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
		fail_at(lx->as, m.col, "unknown instruction '%s'", m.base);
	if (!*first_op_seen)
		mul = add_op < 0;
	else
		mul = true;
	if (mul && mul_op < 0)
		fail_at(lx->as, m.col, "'%s' needs the add ALU, which is already used",
			m.base);
	if (*first_op_seen && b->mul.m.base[0])
		fail_at(lx->as, m.col, "more than two operations");
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
			fail_at(lx->as, m.col, "'nop' takes no operands; use anop or mnop");
		if (n > 1)
			fail_at(lx->as, ops[1].v.col, "'%s' takes at most a destination",
				m.base);
		if (m.setf)
			fail_at(lx->as, m.col, "'%s' cannot set flags", m.base);
		if (n) {
			side->nop_dest = true;
			parse_dest(lx, &ops[0].v, &side->d, false);
		} else if (m.cond >= 0) {
			fail_at(lx->as, m.col, "a condition needs a destination");
		}
		return;
	}
	want = side->mov || side->unary ? 2 : 3;
	if (n != want)
		fail_at(lx->as, n ? ops[n - 1].v.col : m.col,
			"'%s' takes %u operands, not %u", m.base, want, n);
	if (ops[0].rot >= 0)
		fail_at(lx->as, ops[0].rot_col, "a destination cannot be rotated");
	parse_dest(lx, &ops[0].v, &side->d, false);
	if (!mul && ops[1].rot >= 0)
		fail_at(lx->as, ops[1].rot_col, "only mul ALU inputs can be rotated");
}

static void place_rotation(struct lexer *lx, struct alu_build *b,
			   const struct operand *op)
{
	if (op->rot < 0)
		return;
	if (b->rot >= 0 && b->rot != op->rot)
		fail_at(lx->as, op->rot_col, "both mul inputs need the same rotation");
	b->rot = op->rot;
}

static u32 ldi_value(struct lexer *lx, const struct value *v);
static void per_element_imm(struct lexer *lx, const struct operand *val,
			    const char *base, struct qpu_isa_instr *in);

/*
 * "mov DEST, VALUE" (optionally with a second "mov DEST2, VALUE" on the mul
 * ALU) whose value is no small immediate: a load immediate, as in vc4asm.
 */
static bool mov_as_ldi(struct lexer *lx, struct alu_build *b, struct alu_parse *p,
		       uint64_t *word)
{
	const struct value *v = &p->ops[0][1].v;
	struct qpu_isa_instr *in = &b->in;
	struct dest none;
	int pm = -1;

	/* even a small immediate: GPU_FFT's shipped words say so */
	if (!b->add.mov || p->nreads || b->sig != QPU_ISA_SIG_NONE || v->kind == V_REG)
		return false;
	if (b->mul.m.base[0]) {
		const struct value *w = &p->ops[1][1].v;

		if (!b->mul.mov || w->kind != v->kind || w->i != v->i || w->f != v->f)
			return false;
	}
	no_dest(&none);
	memset(in, 0, sizeof(*in));
	in->kind = QPU_ISA_KIND_LDI;
	place_dests(lx, in, &b->add.d, b->mul.m.base[0] ? &b->mul.d : &none);
	place_packs(lx, in, &b->add.d, b->mul.m.base[0] ? &b->mul.d : &none, &pm);
	in->pm = pm > 0;
	if (b->mul.m.setf)
		fail_at(lx->as, b->mul.m.col, "only the first mov can set the flags");
	in->sf = b->add.m.setf;
	in->cond_add = b->add.m.cond >= 0 ? b->add.m.cond :
		default_cond(&b->add.d, in->waddr_add, in->sf);
	in->cond_mul = QPU_ISA_COND_NEVER;
	if (b->mul.m.base[0])
		in->cond_mul = b->mul.m.cond >= 0 ? b->mul.m.cond :
			default_cond(&b->mul.d, in->waddr_mul, false);
	if (p->ops[0][1].is_list) {
		per_element_imm(lx, &p->ops[0][1], NULL, in);
	} else if (v->kind == V_SEMA) {
		if (v->i < 0 || v->i > 15)
			fail_at(lx->as, v->col, "semaphore number out of range");
		in->kind = QPU_ISA_KIND_SEMA;
		in->sem = (u8)v->i;
		in->sem_acquire = v->sem_acquire;
	} else {
		in->imm = ldi_value(lx, v);
	}
	if (qpu_isa_encode(in, word))
		fail_at(lx->as, b->add.m.col, "instruction cannot be encoded");
	return true;
}

static void assemble_alu(struct lexer *lx, uint64_t *word)
{
	struct alu_build b;
	struct alu_parse p;
	struct qpu_isa_instr *in = &b.in;
	bool first_op_seen = false, sets_add, sets_mul, done;
	struct operand *srcs[4] = { NULL };
	struct dest none;
	unsigned int i, pass;
	int pm_pack = -1;

	memset(&b, 0, sizeof(b));
	memset(&p, 0, sizeof(p));
	b.raddr_a = b.raddr_b = -1;
	b.pm = -1;
	b.rot = -1;
	b.sig = QPU_ISA_SIG_NONE;
	no_dest(&none);
	no_dest(&b.add.d);
	no_dest(&b.mul.d);
	for (;;) {
		int sig;
		char word_text[NAME_LEN];

		if (lx->tok.kind != T_IDENT)
			fail_at(lx->as, lx->tok.col, "expected an instruction");
		tok_text(lx, word_text, sizeof(word_text));
		if (!strcmp(word_text, "read")) {
			lex_next(lx);
			if (p.nreads == 2)
				fail_at(lx->as, lx->tok.col, "too many 'read' parts");
			parse_operand(lx, &p.reads[p.nreads++], false);
		} else if (is_sig_name(word_text, &sig)) {
			if (b.sig != QPU_ISA_SIG_NONE)
				fail_at(lx->as, lx->tok.col, "only one signal per instruction");
			b.sig = sig;
			b.sig_col = lx->tok.col;
			lex_next(lx);
		} else {
			parse_alu_op(lx, &b, &p, &first_op_seen);
		}
		if (lx->tok.kind == T_EOL)
			break;
		if (!tok_is(lx, ";"))
			fail_at(lx->as, lx->tok.col, "expected ';' or end of line");
		lex_next(lx);
	}
	if (mov_as_ldi(lx, &b, &p, word))
		return;

	/* flags */
	sets_add = b.add.m.setf;
	sets_mul = b.mul.m.setf;
	if (sets_add && sets_mul)
		fail_at(lx->as, b.mul.m.col, "only one ALU can set the flags");
	if (sets_mul && b.add.used)
		fail_at(lx->as, b.mul.m.col, "the mul ALU sets flags only when the add ALU is idle");
	in->sf = sets_add || sets_mul;

	/* destinations */
	place_dests(lx, in, b.add.d.present ? &b.add.d : &none,
		    b.mul.d.present ? &b.mul.d : &none);
	place_packs(lx, in, &b.add.d, &b.mul.d, &pm_pack);
	if (pm_pack >= 0)
		set_pm(lx, &b, pm_pack, b.add.d.pack_a >= 0 ? b.add.d.col : b.mul.d.col);
	in->op_add = b.add.op;
	in->op_mul = b.mul.op;
	if (b.add.used || b.add.nop_dest)
		in->cond_add = b.add.m.cond >= 0 ? b.add.m.cond :
			default_cond(&b.add.d, in->waddr_add, sets_add);
	else
		in->cond_add = in->sf && b.mul.used ? QPU_ISA_COND_ALWAYS :
			QPU_ISA_COND_NEVER;
	if (b.mul.used || b.mul.nop_dest)
		in->cond_mul = b.mul.m.cond >= 0 ? b.mul.m.cond :
			default_cond(&b.mul.d, in->waddr_mul, sets_mul);
	else
		in->cond_mul = QPU_ISA_COND_NEVER;

	/* sources: fixed ones first, then names both files have */
	if (b.add.used) {
		srcs[0] = &p.ops[0][1];
		srcs[1] = b.add.mov || b.add.unary ? &p.ops[0][1] : &p.ops[0][2];
	}
	if (b.mul.used) {
		srcs[2] = &p.ops[1][1];
		srcs[3] = b.mul.mov ? &p.ops[1][1] : &p.ops[1][2];
		place_rotation(lx, &b, srcs[2]);
		place_rotation(lx, &b, srcs[3]);
	}
	for (i = 0; i < 4; i++)
		b.muxes[i] = -1;
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < 4; i++) {
			if (!srcs[i] || b.muxes[i] >= 0)
				continue;
			if (i == 1 && srcs[1] == srcs[0]) {
				b.muxes[1] = b.muxes[0];
				continue;
			}
			if (i == 3 && srcs[3] == srcs[2]) {
				b.muxes[3] = b.muxes[2];
				continue;
			}
			done = false;
			b.muxes[i] = place_src(lx, &b, srcs[i], pass, &done);
		}
		for (i = 0; i < p.nreads; i++) {
			done = false;
			if (p.reads[i].v.kind == V_REG && p.reads[i].v.nsuffix)
				fail_at(lx->as, p.reads[i].v.col, "'read' takes no suffix");
			place_src(lx, &b, &p.reads[i], pass, &done);
		}
	}
	if (b.rot >= 0) {
		if (b.smi || b.raddr_b >= 0)
			fail_at(lx->as, b.mul.d.col, "a rotation needs regfile B unused");
		b.smi = true;
		b.raddr_b = QPU_ISA_SMALL_IMM_ROT + b.rot;
	}
	if (b.smi && b.sig != QPU_ISA_SIG_NONE)
		fail_at(lx->as, b.sig_col,
			"a signal cannot be used with a small immediate or rotation");
	in->kind = b.smi ? QPU_ISA_KIND_ALU_SMALL_IMM : QPU_ISA_KIND_ALU;
	in->sig = b.smi ? QPU_ISA_SIG_SMALL_IMM : b.sig;
	in->raddr_a = b.raddr_a >= 0 ? b.raddr_a : QPU_ISA_RADDR_NOP;
	in->raddr_b = b.raddr_b >= 0 ? b.raddr_b : QPU_ISA_RADDR_NOP;
	in->pm = b.pm > 0;
	in->add_a = b.muxes[0] > 0 ? b.muxes[0] : 0;
	in->add_b = b.muxes[1] > 0 ? b.muxes[1] : 0;
	in->mul_a = b.muxes[2] > 0 ? b.muxes[2] : 0;
	in->mul_b = b.muxes[3] > 0 ? b.muxes[3] : 0;
	if (qpu_isa_encode(in, word))
		fail_at(lx->as, 1, "instruction cannot be encoded");
}

/* --- load immediate, semaphore --- */

/*
 * A per-element load of 16 values; @base "ldipes"/"ldipeu" picks the form,
 * NULL picks signed if every value fits -2..1, else unsigned (0..3).
 */
static void per_element_imm(struct lexer *lx, const struct operand *val,
			    const char *base, struct qpu_isa_instr *in)
{
	s32 elems[16];
	unsigned int i;
	bool is_signed = true;

	if (!val->is_list || val->nlist != 16)
		fail_at(lx->as, val->v.col, "'%s' takes a list of 16 values",
			base ? base : "mov");
	if (base)
		is_signed = base[5] == 's';
	else
		for (i = 0; i < 16; i++)
			if (val->list[i] > 1)
				is_signed = false;
	for (i = 0; i < 16; i++) {
		if (val->list[i] < (is_signed ? -2 : 0) || val->list[i] > (is_signed ? 1 : 3))
			fail_at(lx->as, val->v.col, "element %u out of range", i);
		elems[i] = (s32)val->list[i];
	}
	in->kind = is_signed ? QPU_ISA_KIND_LDI_PES : QPU_ISA_KIND_LDI_PEU;
	if (qpu_isa_ldi_pack_elems(elems, is_signed, &in->imm))
		fail_at(lx->as, val->v.col, "elements out of range");
}

/* The 32 bits a load immediate writes for an integer or float value. */
static u32 ldi_value(struct lexer *lx, const struct value *v)
{
	u32 bits;

	if (v->kind == V_REG)
		fail_at(lx->as, v->col, "expected a value, not a register");
	if (v->kind == V_FLOAT) {
		float f = (float)v->f;

		memcpy(&bits, &f, sizeof(bits));
		return bits;
	}
	if (v->i < INT32_MIN || v->i > (int64_t)UINT32_MAX)
		fail_at(lx->as, v->col, "value does not fit in 32 bits");
	return (u32)v->i;
}

static void assemble_ldi(struct lexer *lx, const char *base, uint64_t *word)
{
	struct qpu_isa_instr in;
	struct mnemonic m;
	struct operand ops[MAX_OPERANDS];
	struct dest add, mul;
	const struct operand *val;
	unsigned int n;
	int pm = -1;

	memset(&in, 0, sizeof(in));
	no_dest(&mul);
	parse_mnemonic(lx, &m, false);
	n = parse_operands(lx, ops, false);
	if (n < 2 || n > 3)
		fail_at(lx->as, m.col, "'%s' takes a destination, an optional second "
			"destination and a value", base);
	parse_dest(lx, &ops[0].v, &add, true);
	if (n == 3)
		parse_dest(lx, &ops[1].v, &mul, true);
	val = &ops[n - 1];
	place_dests(lx, &in, &add, &mul);
	place_packs(lx, &in, &add, &mul, &pm);
	in.pm = pm > 0;
	in.sf = m.setf;
	in.cond_add = default_cond(&add, in.waddr_add, in.sf);
	in.cond_mul = mul.present ? default_cond(&mul, in.waddr_mul, false) :
		QPU_ISA_COND_NEVER;
	if (!strcmp(base, "ldipes") || !strcmp(base, "ldipeu")) {
		per_element_imm(lx, val, base, &in);
	} else if (val->is_list) {
		fail_at(lx->as, val->v.col, "a list needs ldipes or ldipeu");
	} else if (!strcmp(base, "ldi")) {
		in.kind = QPU_ISA_KIND_LDI;
		in.imm = ldi_value(lx, &val->v);
	} else {
		int64_t v = val->v.i;

		in.kind = QPU_ISA_KIND_SEMA;
		in.sem_acquire = !strcmp(base, "sacq");
		if (val->v.kind != V_INT && val->v.kind != V_LABEL)
			fail_at(lx->as, val->v.col, "expected a semaphore number");
		if (v < 0 || v > (int64_t)UINT32_MAX || (v & 16))
			fail_at(lx->as, val->v.col, "semaphore number out of range");
		in.sem = v & 15;
		in.sem_pad = (u32)(v >> QPU_ISA_SEM_PAD_SHIFT);
	}
	if (qpu_isa_encode(&in, word))
		fail_at(lx->as, m.col, "instruction cannot be encoded");
}

/* --- branch --- */

static void assemble_branch(struct lexer *lx, uint64_t pc, uint64_t *word)
{
	struct qpu_isa_instr in;
	struct mnemonic m;
	struct operand ops[MAX_OPERANDS];
	struct dest add, mul;
	const struct operand *reg = NULL, *target = NULL;
	char text[NAME_LEN], *dot;
	unsigned int n, num;
	int k;
	int64_t t;

	memset(&in, 0, sizeof(in));
	no_dest(&mul);
	in.kind = QPU_ISA_KIND_BRANCH;
	tok_text(lx, text, sizeof(text));
	m.col = lx->tok.col;
	lex_next(lx);
	dot = strchr(text, '.');
	in.br_rel = text[2] == 'r';
	in.br_cond = QPU_ISA_BR_ALWAYS;
	if (dot) {
		k = find_name(qpu_isa_br_cond_names, QPU_ISA_NUM_BR_CONDS, dot + 1);
		if (k < 0)
			fail_at(lx->as, m.col, "unknown branch condition '.%s'", dot + 1);
		in.br_cond = k;
	}
	n = parse_operands(lx, ops, false);
	if (n < 2 || n > 4)
		fail_at(lx->as, m.col, "branch takes 2 to 4 operands");
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
		fail_at(lx->as, add.col, "branch destinations take no suffix");
	place_dests(lx, &in, &add, &mul);
	if (reg) {
		if (reg->v.kind != V_REG || !parse_numbered(reg->v.reg, "ra", 31, &num) ||
		    reg->v.nsuffix)
			fail_at(lx->as, reg->v.col, "expected a regfile A register ra0..ra31");
		in.br_reg = true;
		in.raddr_a = num;
	}
	if (target) {
		const struct value *v = &target->v;

		if (v->kind != V_INT && v->kind != V_LABEL)
			fail_at(lx->as, v->col, "expected a branch target");
		t = v->i;
		if (in.br_rel && v->kind == V_LABEL)
			t -= (int64_t)pc + 4 * 8;
		if (t < INT32_MIN || t > (int64_t)UINT32_MAX)
			fail_at(lx->as, v->col, "branch target out of range");
		in.imm = (u32)t;
	}
	if (qpu_isa_encode(&in, word))
		fail_at(lx->as, m.col, "instruction cannot be encoded");
}

/* Assemble one instruction starting at the lexer's token. */
static void assemble_instr(struct lexer *lx, uint64_t pc, uint64_t *word)
{
	char base[NAME_LEN], *dot;

	tok_text(lx, base, sizeof(base));
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

/* ---- the source driver ------------------------------------------------ */

static const char *intern(struct qpu_asm *as, const char *name)
{
	size_t i;
	char **names;

	for (i = 0; i < as->nnames; i++)
		if (!strcmp(as->names[i], name))
			return as->names[i];
	names = xalloc(as, realloc(as->names, (as->nnames + 1) * sizeof(*names)));
	as->names = names;
	names[as->nnames] = xalloc(as, strdup(name));
	return names[as->nnames++];
}

static void body_add(struct qpu_asm *as, struct body *b, const char *text,
		     const char *file, unsigned int lineno)
{
	if (b->count == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 16;

		b->lines = xalloc(as, realloc(b->lines, cap * sizeof(*b->lines)));
		b->cap = cap;
	}
	b->lines[b->count].text = xalloc(as, strdup(text));
	b->lines[b->count].file = file;
	b->lines[b->count].lineno = lineno;
	b->count++;
}

static void body_free(struct body *b)
{
	size_t i;

	for (i = 0; i < b->count; i++)
		free(b->lines[i].text);
	free(b->lines);
	memset(b, 0, sizeof(*b));
}

static void pop_frame(struct qpu_asm *as)
{
	struct frame *f = &as->frames[--as->nframes];
	size_t i;

	if (f->kind != FRAME_MACRO) {
		body_free(f->body);
		free(f->body);
	} else {
		f->macro->active = false;
		for (i = 0; i < MAX_MACRO_ARGS; i++)
			free(f->args[i]);
	}
	free(f->file_text);
	memset(f, 0, sizeof(*f));
}

static struct frame *push_frame(struct qpu_asm *as, enum frame_kind kind,
				unsigned int col)
{
	struct frame *f;

	if (as->nframes > QPU_ASM_MAX_DEPTH)
		fail_at(as, col, "nesting deeper than %d (recursive include or macro?)",
			QPU_ASM_MAX_DEPTH);
	f = &as->frames[as->nframes++];
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->if_depth = as->nifs;
	return f;
}

/* Read @path into a new FILE frame; returns -errno if it cannot be read. */
static int push_file(struct qpu_asm *as, const char *path, unsigned int col)
{
	FILE *fp = fopen(path, "rb");
	struct frame *f;
	const char *name;
	char *text = NULL, *line, *next;
	size_t len = 0, cap = 0, n;
	unsigned int lineno = 1;

	if (!fp)
		return -errno;
	if (as->nframes > QPU_ASM_MAX_DEPTH) {
		fclose(fp);
		push_frame(as, FRAME_FILE, col);	/* fails: too deep */
	}
	for (;;) {
		if (cap - len < 4096) {
			char *t = realloc(text, cap + 65536);

			if (!t) {
				free(text);
				fclose(fp);
				xalloc(as, NULL);
			}
			text = t;
			cap += 65536;
		}
		n = fread(text + len, 1, cap - len - 1, fp);
		len += n;
		if (!n)
			break;
	}
	fclose(fp);
	text[len] = '\0';
	name = intern(as, path);
	f = push_frame(as, FRAME_FILE, col);
	f->file_text = text;
	f->body = xalloc(as, calloc(1, sizeof(*f->body)));
	for (line = text; line; line = next, lineno++) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!next && !*line)
			break;
		body_add(as, f->body, line, name, lineno);
	}
	return 0;
}

/* Replace whole-word macro parameters of @text by the frame's arguments. */
static char *substitute(struct qpu_asm *as, const struct frame *f, const char *text)
{
	size_t cap = strlen(text) + 1, len = 0, i, n;
	char *out = xalloc(as, malloc(cap));
	const char *p = text;

	while (*p) {
		const char *rep = NULL, *q = p;

		if (is_ident_char(*p)) {
			while (is_ident_char(*q))
				q++;
		}
		if (is_ident_start(*p) && (p == text || !is_ident_char(p[-1]))) {
			for (i = 0; i < f->macro->nparams; i++)
				if (strlen(f->macro->params[i]) == (size_t)(q - p) &&
				    !strncmp(f->macro->params[i], p, q - p))
					rep = f->args[i] ? f->args[i] : "";
		}
		if (!rep) {
			rep = p;
			if (q == p)
				q = p + 1;
		}
		n = rep == p ? (size_t)(q - p) : strlen(rep);
		if (len + n + 1 > cap) {
			cap = 2 * (len + n + 1);
			out = xalloc(as, realloc(out, cap));
		}
		memcpy(out + len, rep, n);
		len += n;
		p = q;
	}
	out[len] = '\0';
	return out;
}

/* Next line of source, or false at the end of everything. */
static bool next_line(struct qpu_asm *as)
{
	struct frame *f;
	const struct src_line *l;

	free(as->line);
	as->line = NULL;
	for (;;) {
		if (!as->nframes)
			return false;
		f = &as->frames[as->nframes - 1];
		if (f->pos == f->body->count) {
			if (as->nifs > f->if_depth) {
				const struct if_state *s = &as->ifs[as->nifs - 1];

				as->file = s->file;
				as->lineno = s->lineno;
				fail_at(as, s->col, ".if without .endif");
			}
			if (f->kind == FRAME_REP && f->rep_left > 1) {
				f->rep_left--;
				f->rep_index++;
				f->pos = 0;
				if (f->rep_var[0])
					set_rep_var(as, f);
				continue;
			}
			pop_frame(as);
			continue;
		}
		l = &f->body->lines[f->pos++];
		as->file = l->file;
		as->lineno = l->lineno;
		if (f->kind == FRAME_MACRO)
			as->line = substitute(as, f, l->text);
		else
			as->line = xalloc(as, strdup(l->text));
		return true;
	}
}

/* First word of a line, for block matching: ".rep", ".endr", ... */
static void first_word(const char *line, char *buf, size_t size)
{
	const char *p = skip_space(line), *q;
	size_t n;

	if (*p == ':' ) {	/* skip a ":label" */
		p++;
		while (is_ident_char(*p))
			p++;
		p = skip_space(p);
	}
	q = p;
	if (*q == '.')
		q++;
	while (is_ident_char(*q))
		q++;
	n = (size_t)(q - p) < size - 1 ? (size_t)(q - p) : size - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
}

/* Collect lines up to the matching @end (nested @begin counted). */
static void collect_block(struct qpu_asm *as, struct body *b, const char *begin,
			  const char *end, const char *alt_begin)
{
	const char *file = as->file;
	unsigned int lineno = as->lineno, depth = 1;
	char w[NAME_LEN];

	for (;;) {
		if (!next_line(as)) {
			as->file = file;
			as->lineno = lineno;
			fail_at(as, 1, "missing %s for this %s", end, begin);
		}
		first_word(as->line, w, sizeof(w));
		if (!strcmp(w, begin) || (alt_begin && !strcmp(w, alt_begin)))
			depth++;
		else if (!strcmp(w, end) && !--depth)
			return;
		body_add(as, b, as->line, as->file, as->lineno);
	}
}

static struct symbol *define(struct qpu_asm *as, struct symbol **list,
			     const char *name, unsigned int col)
{
	struct symbol *s = find_symbol(*list, name);

	if (is_register_name(name))
		fail_at(as, col, "'%s' is a register name", name);
	if (!s) {
		s = xalloc(as, calloc(1, sizeof(*s)));
		copy_str(s->name, sizeof(s->name), name);
		s->next = *list;
		*list = s;
	}
	return s;
}

static void define_label(struct qpu_asm *as, const char *name, unsigned int col)
{
	struct symbol *s;

	if (strlen(name) >= NAME_LEN)
		fail_at(as, col, "name too long");
	if (as->pass == 1) {
		if (find_symbol(as->labels, name))
			fail_at(as, col, "label '%s' defined twice", name);
		s = define(as, &as->labels, name, col);
		s->kind = V_LABEL;
		s->i = (int64_t)as->nwords * 8;
	} else if (find_symbol(as->labels, name)->i != (int64_t)as->nwords * 8) {
		fail_at(as, col, "label '%s' moved between passes (a forward label "
			"in .if or .rep?)", name);
	}
	if (find_symbol(as->symbols, name))
		fail_at(as, col, "'%s' is already a constant", name);
}

static void define_num_label(struct qpu_asm *as, struct lexer *lx)
{
	struct num_label *nl;

	if (lx->tok.kind != T_INT)
		fail_at(as, lx->tok.col, "expected a label name after ':'");
	if (as->pass == 1) {
		nl = xalloc(as, realloc(as->num_labels,
					(as->nnum_labels + 1) * sizeof(*nl)));
		as->num_labels = nl;
		nl[as->nnum_labels].num = (unsigned long)lx->tok.i;
		nl[as->nnum_labels].addr = (int64_t)as->nwords * 8;
		as->nnum_labels++;
	}
	as->num_labels_seen++;
}

static void emit_word(struct qpu_asm *as, uint64_t w, unsigned int col)
{
	if (as->nwords == QPU_ASM_MAX_WORDS)
		fail_at(as, col, "program longer than %u instructions", QPU_ASM_MAX_WORDS);
	if (as->nwords == as->cap_words) {
		size_t cap = as->cap_words ? 2 * as->cap_words : 256;

		as->words = xalloc(as, realloc(as->words, cap * sizeof(*as->words)));
		as->cap_words = cap;
	}
	as->words[as->nwords++] = w;
}

static void expect_end(struct lexer *lx)
{
	if (lx->tok.kind != T_EOL)
		fail_at(lx->as, lx->tok.col, "unexpected text after the directive");
}

static void read_name(struct lexer *lx, char *name)
{
	if (lx->tok.kind != T_IDENT || memchr(lx->tok.start, '.', lx->tok.len))
		fail_at(lx->as, lx->tok.col, "expected a name");
	if (lx->tok.len >= NAME_LEN)
		fail_at(lx->as, lx->tok.col, "name too long");
	tok_text(lx, name, NAME_LEN);
	lex_next(lx);
}

static void directive_set(struct lexer *lx)
{
	struct qpu_asm *as = lx->as;
	char name[NAME_LEN];
	unsigned int col = lx->tok.col;
	struct symbol *s;
	struct value v;

	read_name(lx, name);
	if (tok_is(lx, ","))
		lex_next(lx);
	expr(lx, &v, 0);
	expect_end(lx);
	if (find_symbol(as->labels, name))
		fail_at(as, col, "'%s' is already a label", name);
	if (v.kind == V_REG && v.nsuffix)
		fail_at(as, v.col, "a register alias takes no suffix");
	s = define(as, &as->symbols, name, col);
	s->kind = v.kind;
	s->i = v.i;
	s->f = v.f;
	copy_str(s->reg, sizeof(s->reg), v.reg);
}

static void directive_include(struct lexer *lx)
{
	struct qpu_asm *as = lx->as;
	char name[PATH_MAX], path[2 * PATH_MAX + 2];
	unsigned int col = lx->tok.col;
	const char *slash;
	size_t i;
	int err;

	if (lx->tok.kind != T_STRING || lx->tok.len - 2 >= sizeof(name))
		fail_at(as, col, "expected a file name in quotes");
	memcpy(name, lx->tok.start + 1, lx->tok.len - 2);
	name[lx->tok.len - 2] = '\0';
	lex_next(lx);
	expect_end(lx);
	slash = strrchr(as->file, '/');
	if (name[0] == '/' || !slash)
		copy_str(path, sizeof(path), name);
	else
		snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - as->file), as->file, name);
	err = push_file(as, path, col);
	for (i = 0; err == -ENOENT && name[0] != '/' && i < as->ninclude_dirs; i++) {
		snprintf(path, sizeof(path), "%s/%s", as->include_dirs[i], name);
		err = push_file(as, path, col);
	}
	if (err)
		fail_at(as, col, "cannot include '%s': %s", name, strerror(-err));
}

static void directive_macro(struct lexer *lx)
{
	struct qpu_asm *as = lx->as;
	struct macro *m;
	char name[NAME_LEN];
	unsigned int col = lx->tok.col;

	read_name(lx, name);
	/* a later definition replaces an earlier one, as in vc4asm */
	for (m = as->macros; m; m = m->next)
		if (!strcmp(m->name, name) && m->active)
			fail_at(as, col, "macro '%s' redefined while it is expanded", name);
	m = xalloc(as, calloc(1, sizeof(*m)));
	copy_str(m->name, sizeof(m->name), name);
	m->next = as->macros;
	as->macros = m;
	if (tok_is(lx, ","))
		lex_next(lx);
	while (lx->tok.kind != T_EOL) {
		if (m->nparams == MAX_MACRO_ARGS)
			fail_at(as, lx->tok.col, "too many macro parameters");
		read_name(lx, m->params[m->nparams++]);
		if (tok_is(lx, ","))
			lex_next(lx);
	}
	collect_block(as, &m->body, ".macro", ".endm", NULL);
}

static void invoke_macro(struct lexer *lx, struct macro *m)
{
	struct qpu_asm *as = lx->as;
	unsigned int col = lx->tok.col, n = 0, depth;
	struct frame *f;
	const char *p, *start;
	char *args[MAX_MACRO_ARGS] = { NULL };

	if (m->active)
		fail_at(as, col, "recursive call of macro '%s'", m->name);
	/* arguments: text between top-level commas */
	p = skip_space(lx->tok.start + lx->tok.len);
	while (*p && *p != '#' && !(p[0] == '/' && p[1] == '/')) {
		start = p;
		depth = 0;
		while (*p && (depth || *p != ',') && *p != '#' &&
		       !(p[0] == '/' && p[1] == '/')) {
			if (*p == '(' || *p == '[')
				depth++;
			else if ((*p == ')' || *p == ']') && depth)
				depth--;
			p++;
		}
		if (n == MAX_MACRO_ARGS || n == m->nparams) {
			while (n)
				free(args[--n]);
			fail_at(as, (unsigned int)(start - lx->line) + 1,
				"too many arguments for macro '%s'", m->name);
		}
		while (p > start && (p[-1] == ' ' || p[-1] == '\t'))
			p--;
		args[n] = strndup(start, p - start);
		if (!args[n]) {
			while (n)
				free(args[--n]);
			xalloc(as, NULL);
		}
		n++;
		p = skip_space(p);
		if (*p == ',')
			p = skip_space(p + 1);
	}
	if (as->nframes > QPU_ASM_MAX_DEPTH) {
		while (n)
			free(args[--n]);
	}
	f = push_frame(as, FRAME_MACRO, col);
	memcpy(f->args, args, sizeof(args));
	f->macro = m;
	f->body = &m->body;
	m->active = true;
}

static struct symbol *define(struct qpu_asm *as, struct symbol **list,
			     const char *name, unsigned int col);

/* Give a ".rep i, N" counter its value for the current iteration. */
static void set_rep_var(struct qpu_asm *as, struct frame *f)
{
	struct symbol *sym = define(as, &as->symbols, f->rep_var, 1);

	sym->kind = V_INT;
	sym->i = (int64_t)f->rep_index;
}

static void directive_rep(struct lexer *lx)
{
	struct qpu_asm *as = lx->as;
	unsigned int col = lx->tok.col;
	char var[NAME_LEN] = "";
	int64_t count;
	struct body *b;
	struct frame *f;

	if (lx->tok.kind == T_IDENT && *skip_space(lx->p) == ',') {
		read_name(lx, var);
		lex_next(lx);
		col = lx->tok.col;
	}
	count = int_expr(lx, NULL);
	expect_end(lx);
	if (count < 0 || count > QPU_ASM_MAX_REPEAT)
		fail_at(as, col, "repeat count %" PRId64 " out of range 0..%d", count,
			QPU_ASM_MAX_REPEAT);
	if (as->nframes > QPU_ASM_MAX_DEPTH)
		push_frame(as, FRAME_REP, col);	/* fails: too deep */
	/* the body is freed by reset_run() if collecting it fails */
	b = as->pending = xalloc(as, calloc(1, sizeof(*b)));
	collect_block(as, b, ".rep", ".endr", NULL);
	as->pending = NULL;
	f = push_frame(as, FRAME_REP, col);
	f->body = b;
	f->pos = count ? 0 : b->count;
	f->rep_left = (unsigned long)count;
	copy_str(f->rep_var, sizeof(f->rep_var), var);
	if (var[0])
		set_rep_var(as, f);
}

/* .if family; returns true if the line was one of them. */
static bool directive_cond(struct lexer *lx, const char *d, bool active)
{
	struct qpu_asm *as = lx->as;
	unsigned int col = lx->tok.col;
	struct if_state *s;
	struct frame *f = as->nframes ? &as->frames[as->nframes - 1] : NULL;

	if (!strcmp(d, ".if") || !strcmp(d, ".ifdef") || !strcmp(d, ".ifndef") ||
	    !strcmp(d, ".ifset") || !strcmp(d, ".ifnset")) {
		bool v = false;

		if (as->nifs == MAX_IF_DEPTH)
			fail_at(as, col, ".if nested deeper than %d", MAX_IF_DEPTH);
		lex_next(lx);
		if (active) {
			if (d[3]) {	/* .ifdef/.ifset and negations */
				char name[NAME_LEN];

				read_name(lx, name);
				v = find_symbol(as->symbols, name) ||
					find_symbol(as->labels, name);
				if (d[3] == 'n')
					v = !v;
			} else {
				v = int_expr(lx, NULL) != 0;
			}
			expect_end(lx);
		}
		s = &as->ifs[as->nifs++];
		s->parent_active = active;
		s->taken = v;
		s->active = active && v;
		s->seen_else = false;
		s->file = as->file;
		s->lineno = as->lineno;
		s->col = col;
		return true;
	}
	if (strcmp(d, ".elif") && strcmp(d, ".else") && strcmp(d, ".endif"))
		return false;
	if (as->nifs == 0 || (f && as->nifs <= f->if_depth))
		fail_at(as, col, "%s without .if", d);
	s = &as->ifs[as->nifs - 1];
	lex_next(lx);
	if (!strcmp(d, ".endif")) {
		expect_end(lx);
		as->nifs--;
	} else if (!strcmp(d, ".else")) {
		expect_end(lx);
		if (s->seen_else)
			fail_at(as, col, ".else after .else");
		s->seen_else = true;
		s->active = s->parent_active && !s->taken;
		s->taken = true;
	} else {
		if (s->seen_else)
			fail_at(as, col, ".elif after .else");
		s->active = false;
		if (s->parent_active && !s->taken) {
			s->active = int_expr(lx, NULL) != 0;
			expect_end(lx);
			s->taken = s->active;
		}
	}
	return true;
}

static void process_line(struct qpu_asm *as)
{
	struct lexer lx;
	char d[NAME_LEN];
	bool active = !as->nifs || as->ifs[as->nifs - 1].active;
	struct macro *m;
	uint64_t w;

	lex_init(&lx, as, as->line);
	/* labels: "name:" or ":name" */
	for (;;) {
		if (tok_is(&lx, ":") && *skip_space(lx.p) >= '0' && *skip_space(lx.p) <= '9') {
			lex_next(&lx);
			if (active)
				define_num_label(as, &lx);
			lex_next(&lx);
		} else if (tok_is(&lx, ":")) {
			lex_next(&lx);
			if (lx.tok.kind != T_IDENT)
				fail_at(as, lx.tok.col, "expected a label name after ':'");
			tok_text(&lx, d, sizeof(d));
			if (active)
				define_label(as, d, lx.tok.col);
			lex_next(&lx);
		} else if (lx.tok.kind == T_IDENT && !memchr(lx.tok.start, '.', lx.tok.len) &&
			   *skip_space(lx.p) == ':' && !(lx.tok.len == 1 && lx.tok.start[0] == 'r')) {
			tok_text(&lx, d, sizeof(d));
			if (active)
				define_label(as, d, lx.tok.col);
			lex_next(&lx);
			lex_next(&lx);
		} else {
			break;
		}
	}
	if (lx.tok.kind == T_EOL)
		return;
	if (lx.tok.kind == T_DIRECTIVE) {
		tok_text(&lx, d, sizeof(d));
		if (directive_cond(&lx, d, active) || !active)
			return;
		lex_next(&lx);
		if (!strcmp(d, ".set") || !strcmp(d, ".equ") || !strcmp(d, ".equiv")) {
			directive_set(&lx);
		} else if (!strcmp(d, ".long") || !strcmp(d, ".quad")) {
			unsigned int col = lx.tok.col;
			int64_t v = int_expr(&lx, &col);

			expect_end(&lx);
			emit_word(as, (uint64_t)v, col);
		} else if (!strcmp(d, ".include")) {
			directive_include(&lx);
		} else if (!strcmp(d, ".macro")) {
			directive_macro(&lx);
		} else if (!strcmp(d, ".rep")) {
			directive_rep(&lx);
		} else if (!strcmp(d, ".endm") || !strcmp(d, ".endr")) {
			fail_at(as, 1 + (unsigned int)(skip_space(as->line) - as->line),
				"%s without its opening directive", d);
		} else if (!strcmp(d, ".error")) {
			if (lx.tok.kind == T_STRING)
				fail_at(as, lx.tok.col, "%.*s", (int)lx.tok.len - 2,
					lx.tok.start + 1);
			fail_at(as, lx.tok.col, ".error");
		} else {
			fail_at(as, 1 + (unsigned int)(skip_space(as->line) - as->line),
				"unknown directive '%s'", d);
		}
		return;
	}
	if (!active)
		return;
	if (lx.tok.kind == T_IDENT) {
		tok_text(&lx, d, sizeof(d));
		for (m = as->macros; m; m = m->next)
			if (!strcmp(m->name, d)) {
				invoke_macro(&lx, m);
				return;
			}
	}
	w = 0;
	assemble_instr(&lx, (uint64_t)as->nwords * 8, &w);
	emit_word(as, w, 1);
}

static void reset_run(struct qpu_asm *as)
{
	struct symbol *s;
	struct macro *m;

	while (as->nframes)
		pop_frame(as);
	while ((s = as->symbols)) {
		as->symbols = s->next;
		free(s);
	}
	while ((m = as->macros)) {
		as->macros = m->next;
		body_free(&m->body);
		free(m);
	}
	free(as->line);
	as->line = NULL;
	if (as->pending) {
		body_free(as->pending);
		free(as->pending);
		as->pending = NULL;
	}
	as->nifs = 0;
	as->num_labels_seen = 0;
	as->nwords = 0;
	as->file = NULL;
	as->lineno = 0;
}

static void free_labels(struct qpu_asm *as)
{
	struct symbol *s;

	free(as->num_labels);
	as->num_labels = NULL;
	as->nnum_labels = 0;
	while ((s = as->labels)) {
		as->labels = s->next;
		free(s);
	}
}

static void free_diags(struct qpu_asm *as)
{
	size_t i;

	for (i = 0; i < as->ndiags; i++)
		free((char *)as->diags[i].msg);
	free(as->diags);
	as->diags = NULL;
	as->ndiags = 0;
}

/* Run both passes over the source @path or @text. */
static int run(struct qpu_asm *as, const char *path, const char *text)
{
	volatile int pass;
	int err, r;

	free_diags(as);
	free_labels(as);
	for (pass = 1; pass <= 2; pass++) {
		reset_run(as);
		as->pass = pass;
		r = setjmp(as->fail);
		if (r) {
			err = r == 2 ? -ENOMEM : -EINVAL;
			reset_run(as);
			free_labels(as);
			return err;
		}
		if (text) {
			struct frame *f = push_frame(as, FRAME_FILE, 1);
			const char *name = intern(as, path);
			char *copy = xalloc(as, strdup(text)), *line, *next;
			unsigned int lineno = 1;

			f->file_text = copy;
			f->body = xalloc(as, calloc(1, sizeof(*f->body)));
			for (line = copy; line; line = next, lineno++) {
				next = strchr(line, '\n');
				if (next)
					*next++ = '\0';
				if (!next && !*line)
					break;
				body_add(as, f->body, line, name, lineno);
			}
		} else {
			err = push_file(as, path, 0);
			if (err) {
				reset_run(as);
				return err;
			}
		}
		while (next_line(as))
			process_line(as);
	}
	free(as->line);
	as->line = NULL;
	return 0;
}

struct qpu_asm *qpu_asm_new(void)
{
	return calloc(1, sizeof(struct qpu_asm));
}

void qpu_asm_free(struct qpu_asm *as)
{
	size_t i;

	if (!as)
		return;
	reset_run(as);
	free_labels(as);
	free_diags(as);
	for (i = 0; i < as->ninclude_dirs; i++)
		free(as->include_dirs[i]);
	for (i = 0; i < as->nnames; i++)
		free(as->names[i]);
	free(as->names);
	free(as->words);
	free(as);
}

int qpu_asm_add_include_dir(struct qpu_asm *as, const char *dir)
{
	if (as->ninclude_dirs == QPU_ASM_MAX_INCLUDE_DIRS)
		return -E2BIG;
	as->include_dirs[as->ninclude_dirs] = strdup(dir);
	if (!as->include_dirs[as->ninclude_dirs])
		return -ENOMEM;
	as->ninclude_dirs++;
	return 0;
}

int qpu_asm_file(struct qpu_asm *as, const char *path)
{
	return run(as, path, NULL);
}

int qpu_asm_string(struct qpu_asm *as, const char *name, const char *text)
{
	return run(as, name, text);
}

size_t qpu_asm_words(const struct qpu_asm *as, const uint64_t **words)
{
	*words = as->words;
	return as->nwords;
}

size_t qpu_asm_diags(const struct qpu_asm *as, const struct qpu_asm_diag **diags)
{
	*diags = as->diags;
	return as->ndiags;
}

int qpu_asm_line(const char *text, uint64_t *word, char *msg, size_t msg_size)
{
	struct qpu_asm *as = qpu_asm_new();
	const uint64_t *words;
	int err;

	if (!as)
		return -ENOMEM;
	if (strchr(text, '\n')) {
		qpu_asm_free(as);
		return -EINVAL;
	}
	err = qpu_asm_string(as, "<line>", text);
	if (!err && qpu_asm_words(as, &words) != 1)
		err = -EINVAL;
	if (!err)
		*word = words[0];
	if (msg && msg_size) {
		msg[0] = '\0';
		if (as->ndiags)
			snprintf(msg, msg_size, "%u:%u: %s", as->diags[0].line,
				 as->diags[0].col, as->diags[0].msg);
	}
	qpu_asm_free(as);
	return err;
}
