// SPDX-License-Identifier: MIT
/*
 * The assembler's line directives: constants (.set, .const, .lset and
 * .unset with their aliases), data (.byte up to .long, .float, .half,
 * .double), .align, .assert, .global, .back/.endb, .include, .error and
 * the .if family; the block directives live in asm_macro.c. Names,
 * arguments and messages follow vc4asm's directives.html; .global checks
 * its operand and has no other effect, as we write no ELF.
 */
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm/asm_internal.h"
#include "qpu_emu_float.h"

#define NOP_WORD	0x100009e7009e7000ull	/* vc4asm pads code with it */

/* ".set name, value" and its relatives; ".set name(params) expr" too. */
static void directive_set(struct lexer *lx, bool local, bool is_const)
{
	struct qpu_asm *as = lx->as;
	char name[NAME_LEN];
	unsigned int col = lx->tok.col;
	struct value v;

	asm_read_name(lx, name);
	if (asm_tok_is(lx, "(") && is_ident_char(lx->tok.start[-1])) {
		if (local || is_const)
			asm_fail_at(as, col, "a function is defined with .set or .func");
		asm_define_function(lx, name);
		return;
	}
	if (asm_tok_is(lx, ","))
		asm_lex_next(lx);
	asm_expr(lx, &v, 0);
	asm_expect_end(lx);
	if (v.kind == V_REG && v.nsuffix)
		asm_fail_at(as, v.col, "a register alias takes no suffix");
	if (v.kind == V_SEMA)
		asm_fail_at(as, v.col, "a semaphore operation is not a value");
	asm_set_symbol(as, name, local ? asm_local_scope(as) : 0, is_const, &v, col);
}

/* ".unset name" (global) or ".lunset name" (the current scope). */
static void directive_unset(struct lexer *lx, bool local)
{
	struct qpu_asm *as = lx->as;
	char name[NAME_LEN];
	unsigned int col = lx->tok.col;

	asm_read_name(lx, name);
	asm_expect_end(lx);
	if (!asm_unset_symbol(as, name, local ? asm_local_scope(as) : 0))
		asm_warn_at(as, col, "'%s' is not defined %s", name,
			    local ? "in this scope" : "globally");
}

/* The file name of .include: "name" or <name>; true for <name>. */
static bool include_name(struct lexer *lx, char *name, size_t size)
{
	const char *start = lx->tok.start + 1, *end;
	bool angle = asm_tok_is(lx, "<");

	if (angle)
		end = strchr(start, '>');
	else if (lx->tok.kind == T_STRING)
		end = lx->tok.start + lx->tok.len - 1;
	else
		end = NULL;
	if (!end || end == start || (size_t)(end - start) >= size)
		asm_fail_at(lx->as, lx->tok.col, "expected a file name in quotes");
	memcpy(name, start, end - start);
	name[end - start] = '\0';
	lx->p = end + 1;
	asm_lex_next(lx);
	return angle;
}

/*
 * ".include "name"" looks next to the including file, then in the include
 * directories; ".include <name>" the other way round.
 */
static void directive_include(struct lexer *lx)
{
	struct qpu_asm *as = lx->as;
	char name[PATH_MAX], path[2 * PATH_MAX + 2];
	unsigned int col = lx->tok.col;
	const char *slash;
	bool angle;
	int err = -ENOENT;

	angle = include_name(lx, name, sizeof(name));
	asm_expect_end(lx);
	/* an include in a loop reads its file each time */
	if (as->nincludes == QPU_ASM_MAX_INCLUDES)
		asm_fail_at(as, col, "more than %d includes in one pass", QPU_ASM_MAX_INCLUDES);
	as->nincludes++;
	if (angle)
		err = asm_push_from_dirs(as, name, col);
	if (err == -ENOENT) {
		slash = strrchr(as->file, '/');
		if (name[0] == '/' || !slash)
			copy_str(path, sizeof(path), name);
		else
			snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - as->file),
				 as->file, name);
		err = asm_push_file(as, path, col);
	}
	if (!angle && err == -ENOENT)
		err = asm_push_from_dirs(as, name, col);
	if (err == -ASM_ERECURSIVE)
		asm_fail_at(as, col, "cannot include '%s': it is being included already "
			    "(recursive include)", name);
	if (err == -ASM_ENOTREG)
		asm_fail_at(as, col, "cannot include '%s': not a regular file", name);
	if (err == -EFBIG)
		asm_fail_at(as, col, "cannot include '%s': larger than %u bytes", name,
			    QPU_ASM_MAX_FILE_SIZE);
	if (err)
		asm_fail_at(as, col, "cannot include '%s': %s", name, strerror(-err));
}

/* Data directives: name and size in bits, negative for floats. */
static const struct {
	const char *name;
	int bits;
} data_kinds[] = {
	{ ".bit", 1 }, { ".int1", 1 }, { ".int2", 2 }, { ".int4", 4 },
	{ ".byte", 8 }, { ".int8", 8 }, { ".short", 16 }, { ".word", 16 },
	{ ".int16", 16 }, { ".int", 32 }, { ".dword", 32 }, { ".int32", 32 },
	{ ".long", 64 }, { ".qword", 64 }, { ".quad", 64 }, { ".int64", 64 },
	{ ".half", -16 }, { ".float16", -16 }, { ".float", -32 }, { ".float32", -32 },
	{ ".double", -64 }, { ".float64", -64 },
};

static int data_bits_of(const char *d)
{
	size_t i;

	for (i = 0; i < sizeof(data_kinds) / sizeof(data_kinds[0]); i++)
		if (!strcmp(d, data_kinds[i].name))
			return data_kinds[i].bits;
	return 0;
}

/* Append @bits bits of @v after the data so far, opening words as needed. */
static void emit_data(struct qpu_asm *as, uint64_t v, unsigned int bits, unsigned int col)
{
	unsigned int used = as->data_bits;

	if (!used)
		asm_emit_word(as, 0, col);
	as->words[as->nwords - 1] |= v << used;
	used += bits;
	if (used >= 64) {
		used -= 64;
		if (used)
			asm_emit_word(as, v >> (bits - used), col);
	}
	as->data_bits = used;
}

/* ".int 1, 2, ...": integers or floats of one size, packed from bit 0 up. */
static void directive_data(struct lexer *lx, const char *d, int bits, unsigned int col)
{
	struct qpu_asm *as = lx->as;
	unsigned int n = bits < 0 ? (unsigned int)-bits : (unsigned int)bits;
	bool warned = false;
	struct value v;
	uint64_t raw;

	for (;;) {
		asm_expr(lx, &v, 0);
		if (v.kind != V_INT && v.kind != V_LABEL && v.kind != V_FLOAT)
			asm_fail_at(as, v.col, "%s needs numbers", d);
		if (bits > 0 && v.kind == V_FLOAT)
			asm_fail_at(as, v.col, "%s needs integers; use .float", d);
		if (bits < 0 && v.kind != V_FLOAT)
			v.f = (double)v.i;
		if (bits == -64) {
			memcpy(&raw, &v.f, sizeof(raw));
		} else if (bits < 0) {
			float f = (float)v.f;
			uint32_t u;

			if (fabs(v.f) > (bits == -16 ? 65504.0 : FLT_MAX) && !isinf(v.f))
				asm_warn_at(as, v.col, "%g is out of the range of a %u-bit float",
					    v.f, n);
			memcpy(&u, &f, sizeof(u));
			raw = bits == -16 ? qpu_emu_f32_to_f16(u) : u;
		} else {
			raw = (uint64_t)v.i;
			if (n < 64 && n > 1 && (v.i < -(INT64_C(1) << (n - 1)) ||
						v.i > (int64_t)((UINT64_C(1) << n) - 1)))
				asm_warn_at(as, v.col, "%" PRId64 " does not fit in %u bits",
					    v.i, n);
			else if (n == 1 && (v.i & ~INT64_C(1)))
				asm_warn_at(as, v.col, "a bit is 0 or 1, not %" PRId64, v.i);
			if (n < 64)
				raw &= (UINT64_C(1) << n) - 1;
		}
		if (as->data_bits % n && !warned) {
			asm_warn_at(as, v.col,
				    "%s value not aligned: %u bits short of %u-bit alignment",
				    d, n - as->data_bits % n, n);
			warned = true;
		}
		emit_data(as, raw, n, col);
		if (!asm_tok_is(lx, ","))
			break;
		asm_lex_next(lx);
	}
	asm_expect_end(lx);
}

/*
 * Pad with zero bits up to the boundary of @bytes (a power of two up to
 * 64), counted from @offset; whole words of padding are nops.
 */
static void align_to(struct qpu_asm *as, unsigned int bytes, unsigned int offset,
		     unsigned int col)
{
	unsigned int rest;

	if (!bytes)
		return;
	rest = (as->data_bits + 8 * offset) & 63 & (8 * bytes - 1);
	if (rest && as->data_bits) {
		as->data_bits += 8 * bytes - rest;
		if (as->data_bits >= 64)
			as->data_bits = 0;
	}
	if (bytes < 8 || as->data_bits)
		return;
	while ((as->nwords + offset / 8) & (bytes / 8 - 1))
		asm_emit_word(as, NOP_WORD, col);
}

/* ".align bytes[, base]" */
static void directive_align(struct lexer *lx, unsigned int col)
{
	struct qpu_asm *as = lx->as;
	unsigned int vcol;
	int64_t bytes, base = 0;

	bytes = asm_int_expr(lx, &vcol);
	if (bytes < 0 || bytes > 64 || (bytes & (bytes - 1)))
		asm_fail_at(as, vcol, "alignment %" PRId64 " is not a power of 2 up to 64",
			    bytes);
	if (asm_tok_is(lx, ",")) {
		asm_lex_next(lx);
		base = asm_int_expr(lx, NULL);
	}
	asm_expect_end(lx);
	align_to(as, (unsigned int)bytes, (unsigned int)(-base & 63), col);
}

/* ".assert cond": an error if the condition is zero (second pass only). */
static void directive_assert(struct lexer *lx, unsigned int col)
{
	int64_t v = asm_int_expr(lx, NULL);

	asm_expect_end(lx);
	if (lx->as->pass == 2 && !v)
		asm_fail_at(lx->as, col, "assertion failed");
}

/* ".global :label" or ".global name, value": checked, nothing emitted. */
static void directive_global(struct lexer *lx)
{
	struct qpu_asm *as = lx->as;
	struct value v;

	if (asm_tok_is(lx, ":")) {
		asm_lex_next(lx);
		if (asm_tok_is(lx, ":"))
			asm_lex_next(lx);
		if (lx->tok.kind != T_IDENT)
			asm_fail_at(as, lx->tok.col, "expected a label name after ':'");
		asm_expr(lx, &v, 0);
		if (as->pass == 2 && v.kind != V_LABEL)
			asm_fail_at(as, v.col, "'.global :name' needs a label");
	} else {
		char name[NAME_LEN];

		asm_read_name(lx, name);
		asm_expect(lx, ",");
		asm_expr(lx, &v, 0);
		if (v.kind != V_LABEL && v.kind != V_INT)
			asm_fail_at(as, v.col, "a global symbol is a label or an integer");
		if (v.i < INT32_MIN || v.i > (int64_t)UINT32_MAX)
			asm_fail_at(as, v.col, "a global symbol's value has 32 bits");
	}
	asm_expect_end(lx);
}

/* ".back n": what follows, up to .endb, goes before the last n words. */
static void directive_back(struct lexer *lx, unsigned int col)
{
	struct qpu_asm *as = lx->as;
	struct back_state *b = &as->back;
	const struct symbol *l;
	unsigned int vcol;
	int64_t n, start, end;

	n = asm_int_expr(lx, &vcol);
	asm_expect_end(lx);
	if (b->active)
		asm_fail_at(as, col, ".back inside .back (at line %u)", b->lineno);
	if (n < 0 || n > MAX_BACK)
		asm_fail_at(as, vcol, ".back count %" PRId64 " out of range 0..%d", n, MAX_BACK);
	if (as->data_bits)
		asm_fail_at(as, col, ".back after unaligned data");
	if ((uint64_t)n > as->nwords)
		asm_fail_at(as, vcol, ".back %" PRId64 " goes before the start of the program",
			    n);
	start = (int64_t)(as->nwords - n) * 8;
	end = (int64_t)as->nwords * 8;
	for (l = as->labels; as->pass == 2 && l; l = l->next)
		if (l->i > start && l->i < end)
			asm_warn_at(as, col, ".back moves code across label '%s'", l->name);
	b->active = true;
	b->count = (unsigned int)n;
	as->nwords -= n;
	/* before the first word the arrays are NULL: no pointer arithmetic on them */
	if (n) {
		memcpy(b->words, as->words + as->nwords, n * sizeof(*b->words));
		memcpy(b->locs, as->locs + as->nwords, n * sizeof(*b->locs));
	}
	b->file = as->file;
	b->lineno = as->lineno;
	b->col = col;
	b->site = as->site;
}

static void directive_endb(struct lexer *lx, unsigned int col)
{
	struct qpu_asm *as = lx->as;
	struct back_state *b = &as->back;
	unsigned int i;

	asm_expect_end(lx);
	if (!b->active)
		asm_fail_at(as, col, ".endb without .back");
	align_to(as, 8, 0, col);
	b->active = false;
	for (i = 0; i < b->count; i++)
		asm_emit_loc(as, b->words[i], &b->locs[i]);
}

/* At the end of a pass: a .back still open is an error. */
void asm_directives_finish(struct qpu_asm *as)
{
	struct back_state *b = &as->back;

	if (!b->active)
		return;
	b->active = false;
	as->file = b->file;
	as->lineno = b->lineno;
	as->site = b->site;
	asm_fail_at(as, b->col, "missing .endb for this .back");
}

/* .if family; returns true if the line was one of them. */
bool asm_directive_cond(struct lexer *lx, const char *d, bool active)
{
	struct qpu_asm *as = lx->as;
	unsigned int col = lx->tok.col;
	struct if_state *s;
	struct frame *f = as->nframes ? &as->frames[as->nframes - 1] : NULL;

	if (!strcmp(d, ".if") || !strcmp(d, ".ifdef") || !strcmp(d, ".ifndef") ||
	    !strcmp(d, ".ifset") || !strcmp(d, ".ifnset")) {
		if (as->nifs == MAX_IF_DEPTH)
			asm_fail_at(as, col, ".if nested deeper than %d", MAX_IF_DEPTH);
		/* pushed first: if the condition fails, no branch is taken */
		s = &as->ifs[as->nifs++];
		s->parent_active = active;
		s->taken = true;
		s->active = false;
		s->seen_else = false;
		s->file = as->file;
		s->lineno = as->lineno;
		s->col = col;
		s->site = as->site;
		asm_lex_next(lx);
		if (active) {
			bool v;

			if (d[3]) {	/* .ifdef/.ifset and negations */
				char name[NAME_LEN];

				asm_read_name(lx, name);
				v = asm_find_symbol(as->symbols, name) ||
					asm_find_symbol(as->labels, name);
				if (d[3] == 'n')
					v = !v;
			} else {
				v = asm_int_expr(lx, NULL) != 0;
			}
			asm_expect_end(lx);
			s->taken = v;
			s->active = v;
		}
		return true;
	}
	if (strcmp(d, ".elif") && strcmp(d, ".elseif") && strcmp(d, ".else") &&
	    strcmp(d, ".endif"))
		return false;
	if (as->nifs == 0 || (!as->func_depth && f && as->nifs <= f->if_depth))
		asm_fail_at(as, col, "%s without .if", d);
	s = &as->ifs[as->nifs - 1];
	asm_lex_next(lx);
	if (!strcmp(d, ".endif")) {
		as->nifs--;
		asm_expect_end(lx);
	} else if (!strcmp(d, ".else")) {
		if (s->seen_else)
			asm_fail_at(as, col, ".else after .else");
		s->seen_else = true;
		s->active = s->parent_active && !s->taken;
		s->taken = true;
		asm_expect_end(lx);
	} else {
		if (s->seen_else)
			asm_fail_at(as, col, "%s after .else", d);
		s->active = false;
		if (s->parent_active && !s->taken) {
			s->taken = true;
			s->active = asm_int_expr(lx, NULL) != 0;
			asm_expect_end(lx);
			s->taken = s->active;
		}
	}
	return true;
}

/* A directive other than the .if family; @lx is past its name @d at @col. */
void asm_directive(struct lexer *lx, const char *d, unsigned int col)
{
	struct qpu_asm *as = lx->as;
	int bits = data_bits_of(d);

	if (bits) {
		directive_data(lx, d, bits, col);
	} else if (!strcmp(d, ".set") || !strcmp(d, ".equ") || !strcmp(d, ".equiv") ||
		   !strcmp(d, ".define")) {
		directive_set(lx, false, false);
	} else if (!strcmp(d, ".const")) {
		directive_set(lx, false, true);
	} else if (!strcmp(d, ".lset")) {
		directive_set(lx, true, false);
	} else if (!strcmp(d, ".lconst")) {
		directive_set(lx, true, true);
	} else if (!strcmp(d, ".unset") || !strcmp(d, ".undef")) {
		directive_unset(lx, false);
	} else if (!strcmp(d, ".lunset")) {
		directive_unset(lx, true);
	} else if (!strcmp(d, ".include")) {
		directive_include(lx);
	} else if (!strcmp(d, ".macro")) {
		asm_directive_macro(lx);
	} else if (!strcmp(d, ".func")) {
		asm_directive_func(lx);
	} else if (!strcmp(d, ".rep")) {
		asm_directive_rep(lx);
	} else if (!strcmp(d, ".foreach")) {
		asm_directive_foreach(lx);
	} else if (!strcmp(d, ".align")) {
		directive_align(lx, col);
	} else if (!strcmp(d, ".assert")) {
		directive_assert(lx, col);
	} else if (!strcmp(d, ".global")) {
		directive_global(lx);
	} else if (!strcmp(d, ".back")) {
		directive_back(lx, col);
	} else if (!strcmp(d, ".endb") || !strcmp(d, ".endback")) {
		directive_endb(lx, col);
	} else if (!strcmp(d, ".code") || !strcmp(d, ".text") || !strcmp(d, ".rodata")) {
		asm_expect_end(lx);	/* vc4asm's validator hints */
	} else if (asm_is_block_end(d)) {
		asm_fail_at(as, col, "%s without its opening directive", d);
	} else if (!strcmp(d, ".error")) {
		if (lx->tok.kind == T_STRING)
			asm_fail_at(as, lx->tok.col, "%.*s", (int)lx->tok.len - 2,
				    lx->tok.start + 1);
		asm_fail_at(as, lx->tok.col, ".error");
	} else {
		asm_fail_at(as, col, "unknown directive '%s'", d);
	}
}
