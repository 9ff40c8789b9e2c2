// SPDX-License-Identifier: MIT
/*
 * The assembler's blocks: .macro, .func, .rep and .foreach. A block's lines
 * are collected first and replayed later: a macro or loop through a frame,
 * so its lines are substituted and assembled like any other source; a
 * function by asm_call_function() in the middle of an expression, where
 * its body may use only the .if family, constants and .assert and gives
 * one value. Parameters of functions and loop counters are symbols of a
 * scope that ends with the call or the loop; macro parameters are text.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm/asm_internal.h"

/* First word of a line, for block matching: ".rep", ".endr", ... */
void asm_first_word(const char *line, char *buf, size_t size)
{
	const char *p = asm_skip_space(line), *q;
	size_t n;

	if (*p == ':') {	/* skip a ":label" */
		p++;
		while (is_ident_char(*p))
			p++;
		p = asm_skip_space(p);
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

/* Block directives and their ends; a loop ends with either loop end. */
static const struct {
	const char *begin;
	const char *end[3];
} blocks[] = {
	{ ".macro", { ".endm" } },
	{ ".func", { ".endf", ".endfunc" } },
	{ ".rep", { ".endr", ".endrep", ".endfor" } },
	{ ".foreach", { ".endfor", ".endr", ".endrep" } },
};

/* The block @word begins, or the one it ends with @ends set; -1 if neither. */
static int block_of(const char *word, bool *ends)
{
	size_t i, j;

	for (i = 0; i < sizeof(blocks) / sizeof(blocks[0]); i++) {
		if (!strcmp(word, blocks[i].begin)) {
			*ends = false;
			return i == 3 ? 2 : (int)i;	/* loops nest as one kind */
		}
		for (j = 0; j < 3 && blocks[i].end[j]; j++)
			if (!strcmp(word, blocks[i].end[j])) {
				*ends = true;
				return i == 3 ? 2 : (int)i;
			}
	}
	return -1;
}

bool asm_is_block_end(const char *word)
{
	bool ends = false;

	return block_of(word, &ends) >= 0 && ends;
}

/*
 * Collect the lines after a @begin directive up to its matching end, nested
 * blocks of the same kind counted, into @b.
 */
void asm_collect_block(struct qpu_asm *as, struct body *b, const char *begin)
{
	const char *file = as->file, *end;
	const struct qpu_asm_loc *site = as->site;
	unsigned int lineno = as->lineno, col, depth = 1;
	bool ends;
	int kind, k;
	char w[NAME_LEN];

	as->opening = NULL;
	col = asm_line_col(as, as->line, asm_skip_space(as->line));
	kind = block_of(begin, &ends);
	end = blocks[!strcmp(begin, ".foreach") ? 3 : kind].end[0];
	for (;;) {
		if (!asm_next_line(as)) {
			as->file = file;
			as->lineno = lineno;
			as->site = site;
			asm_fail_at(as, col, "missing %s for this %s", end, begin);
		}
		asm_first_word(as->line, w, sizeof(w));
		k = block_of(w, &ends);
		if (k == kind && !ends)
			depth++;
		else if (k == kind && ends && !--depth)
			return;
		asm_body_add(as, b, as->line, as->file, as->lineno);
	}
}

static struct macro *find_macro(struct macro *list, const char *name)
{
	for (; list; list = list->next)
		if (!strcmp(list->name, name))
			return list;
	return NULL;
}

struct macro *asm_find_macro(struct qpu_asm *as, const char *name)
{
	return find_macro(as->macros, name);
}

/* Parameter names up to the end of the line or, with @paren, to ')'. */
static void read_params(struct lexer *lx, struct macro *m, bool paren)
{
	struct qpu_asm *as = lx->as;

	while (paren ? !asm_tok_is(lx, ")") : lx->tok.kind != T_EOL) {
		if (m->nparams == MAX_MACRO_ARGS)
			asm_fail_at(as, lx->tok.col, "more than %d parameters", MAX_MACRO_ARGS);
		if (lx->tok.kind != T_IDENT || memchr(lx->tok.start, '.', lx->tok.len))
			asm_fail_at(as, lx->tok.col, "expected a parameter name");
		asm_read_name(lx, m->params[m->nparams++]);
		if (asm_tok_is(lx, ","))
			asm_lex_next(lx);
		else if (paren && !asm_tok_is(lx, ")"))
			asm_fail_at(as, lx->tok.col, "expected ',' or ')'");
	}
	if (paren)
		asm_lex_next(lx);
}

/* A new macro or function @name; a later definition replaces an earlier one. */
static struct macro *new_macro(struct qpu_asm *as, struct macro **list, const char *name)
{
	struct macro *m = asm_xalloc(as, calloc(1, sizeof(*m)));

	copy_str(m->name, sizeof(m->name), name);
	m->next = *list;
	*list = m;
	return m;
}

void asm_directive_macro(struct lexer *lx)
{
	struct qpu_asm *as = lx->as;
	struct macro *m;
	char name[NAME_LEN];
	unsigned int col = lx->tok.col;

	as->opening = ".macro";
	asm_read_name(lx, name);
	m = find_macro(as->macros, name);
	if (m && m->active)
		asm_fail_at(as, col, "macro '%s' redefined while it is expanded", name);
	m = new_macro(as, &as->macros, name);
	if (asm_tok_is(lx, ","))
		asm_lex_next(lx);
	read_params(lx, m, false);
	asm_collect_block(as, &m->body, ".macro");
}

/* ".func name(params)": a function whose body is the block up to .endf. */
void asm_directive_func(struct lexer *lx)
{
	struct qpu_asm *as = lx->as;
	struct macro *m;
	char name[NAME_LEN];

	as->opening = ".func";
	asm_read_name(lx, name);
	m = new_macro(as, &as->funcs, name);
	asm_expect(lx, "(");
	read_params(lx, m, true);
	asm_expect_end(lx);
	asm_collect_block(as, &m->body, ".func");
}

/*
 * ".set name(params) expr": a one-line function, @lx at the '(' after
 * @name; the rest of the line is its body, evaluated at each call.
 */
void asm_define_function(struct lexer *lx, const char *name)
{
	struct qpu_asm *as = lx->as;
	struct macro *m = new_macro(as, &as->funcs, name);
	const char *body;

	asm_lex_next(lx);
	read_params(lx, m, true);
	body = lx->tok.start;
	if (*body == ',')
		body = asm_skip_space(body + 1);
	if (lx->tok.kind == T_EOL || !*body)
		asm_fail_at(as, lx->tok.col, "expected the function's expression");
	asm_body_add(as, &m->body, body, as->file, as->lineno);
}

static struct site *new_site(struct qpu_asm *as, unsigned int col, const char *name)
{
	struct site *site = asm_xalloc(as, calloc(1, sizeof(*site)));

	site->next = as->sites;
	as->sites = site;
	site->loc.file = as->file;
	site->loc.line = as->lineno;
	site->loc.col = col;
	site->loc.expanded_from = as->site;
	site->loc.macro = asm_intern(as, name);
	return site;
}

void asm_invoke_macro(struct lexer *lx, struct macro *m)
{
	struct qpu_asm *as = lx->as;
	unsigned int col = lx->tok.col, n = 0, depth;
	struct frame *f;
	struct site *site;
	const char *p, *start;
	char *args[MAX_MACRO_ARGS] = { NULL };

	if (m->active)
		asm_fail_at(as, col, "recursive call of macro '%s'", m->name);
	site = new_site(as, col, m->name);
	/* arguments: text between top-level commas */
	p = asm_skip_space(lx->tok.start + lx->tok.len);
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
			asm_fail_at(as, asm_line_col(as, lx->line, start),
				    "too many arguments for macro '%s'", m->name);
		}
		while (p > start && (p[-1] == ' ' || p[-1] == '\t'))
			p--;
		args[n] = strndup(start, p - start);
		if (!args[n]) {
			while (n)
				free(args[--n]);
			asm_xalloc(as, NULL);
		}
		n++;
		p = asm_skip_space(p);
		if (*p == ',')
			p = asm_skip_space(p + 1);
	}
	if (as->nframes > QPU_ASM_MAX_DEPTH) {
		while (n)
			free(args[--n]);
	}
	f = asm_push_frame(as, FRAME_MACRO, col);
	memcpy(f->args, args, sizeof(args));
	f->site = &site->loc;
	f->macro = m;
	f->body = &m->body;
	m->active = true;
}

/* Directives a function body may use besides the .if family. */
static bool allowed_in_function(const char *d)
{
	static const char *const ok[] = {
		".set", ".equ", ".define", ".const", ".lset", ".lconst", ".unset",
		".undef", ".lunset", ".assert", ".error",
	};
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (!strcmp(d, ok[i]))
			return true;
	return false;
}

/* Evaluate @fn's body into @v; the parameters are already set. */
static void eval_body(struct qpu_asm *as, const struct macro *fn, struct value *v,
		      unsigned int nifs0)
{
	struct lexer lx;
	const struct src_line *l;
	bool have = false, active;
	char d[NAME_LEN];
	unsigned int col;
	size_t i;

	for (i = 0; i < fn->body.count; i++) {
		l = &fn->body.lines[i];
		as->file = l->file;
		as->lineno = l->lineno;
		/* f(n) calling f(n - 1) twice: 2^64 calls */
		asm_count_line(as, strlen(l->text), 1);
		asm_lex_init(&lx, as, l->text);
		active = as->nifs == nifs0 || as->ifs[as->nifs - 1].active;
		if (lx.tok.kind == T_EOL)
			continue;
		if (lx.tok.kind == T_DIRECTIVE) {
			asm_tok_text(&lx, d, sizeof(d));
			if (as->nifs == nifs0 && (!strcmp(d, ".else") || !strcmp(d, ".elif") ||
						  !strcmp(d, ".elseif") || !strcmp(d, ".endif")))
				asm_fail_at(as, lx.tok.col, "%s without .if", d);
			if (asm_directive_cond(&lx, d, active) || !active)
				continue;
			if (!allowed_in_function(d))
				asm_fail_at(as, lx.tok.col, "%s cannot be used in a function", d);
			col = lx.tok.col;
			asm_lex_next(&lx);
			asm_directive(&lx, d, col);
			continue;
		}
		if (!active)
			continue;
		if (have)
			asm_fail_at(as, lx.tok.col, "a function has one result expression");
		asm_expr(&lx, v, 0);
		asm_expect_end(&lx);
		have = true;
	}
	if (as->nifs != nifs0) {
		as->file = as->ifs[as->nifs - 1].file;
		as->lineno = as->ifs[as->nifs - 1].lineno;
		asm_fail_at(as, as->ifs[as->nifs - 1].col, ".if without .endif");
	}
	if (!have) {
		as->file = fn->body.count ? fn->body.lines[fn->body.count - 1].file : as->file;
		asm_fail_at(as, 1, "function '%s' gives no result", fn->name);
	}
}

/*
 * "name(args)" when @name is a function of .func or ".set name(params)":
 * evaluate it into @v and return true; false if @lx is at no such call.
 */
bool asm_call_function(struct lexer *lx, struct value *v)
{
	struct qpu_asm *as = lx->as;
	struct value args[MAX_MACRO_ARGS];
	const char *file = as->file;
	unsigned int lineno = as->lineno, col = lx->tok.col, n = 0, i, nifs0;
	const struct qpu_asm_loc *site = as->site;
	char name[NAME_LEN];
	struct macro *fn;

	if (*asm_skip_space(lx->p) != '(' || lx->tok.len >= NAME_LEN)
		return false;
	asm_tok_text(lx, name, sizeof(name));
	fn = find_macro(as->funcs, name);
	if (!fn)
		return false;
	asm_lex_next(lx);
	asm_expect(lx, "(");
	while (!asm_tok_is(lx, ")")) {
		if (n == fn->nparams)
			asm_fail_at(as, lx->tok.col, "too many arguments for function '%s'",
				    name);
		asm_expr(lx, &args[n], 0);
		if (args[n].kind == V_REG && args[n].nsuffix)
			asm_fail_at(as, args[n].col, "a register argument takes no suffix");
		if (args[n].kind == V_SEMA)
			asm_fail_at(as, args[n].col, "a semaphore operation is not a value");
		n++;
		if (!asm_tok_is(lx, ","))
			break;
		asm_lex_next(lx);
	}
	if (n != fn->nparams)
		asm_fail_at(as, lx->tok.col, "function '%s' takes %zu arguments, not %u",
			    name, fn->nparams, n);
	asm_expect(lx, ")");
	if (as->func_depth == QPU_ASM_MAX_DEPTH)
		asm_fail_at(as, col, "function calls nested deeper than %d",
			    QPU_ASM_MAX_DEPTH);
	if (!as->func_depth)
		as->func_nifs = as->nifs;
	nifs0 = as->nifs;
	as->func_depth++;
	for (i = 0; i < n; i++)
		asm_set_symbol(as, fn->params[i], SCOPE_FUNC + as->func_depth, false,
			       &args[i], col);
	as->site = &new_site(as, col, name)->loc;
	eval_body(as, fn, v, nifs0);
	asm_drop_scopes(as, SCOPE_FUNC + as->func_depth);
	as->func_depth--;
	as->file = file;
	as->lineno = lineno;
	as->site = site;
	v->col = col;
	return true;
}

/* Give a loop's counter its value for the current iteration. */
void asm_set_rep_var(struct qpu_asm *as, struct frame *f)
{
	struct value v = { .kind = V_INT, .i = (int64_t)f->rep_index };

	asm_set_symbol(as, f->rep_var, (unsigned int)(f - as->frames) + 1, false,
		       f->values ? &f->values[f->rep_index] : &v, 1);
}

/* Collect a loop's body and start it with @count iterations. */
static void start_loop(struct qpu_asm *as, const char *begin, unsigned int col,
		       const char *var, unsigned long count, struct value *values)
{
	struct body *b;
	struct frame *f;
	unsigned long long total = count;
	size_t i;

	/* the body and the values are freed by recover() if this fails */
	as->pending_values = values;
	if (as->nframes > QPU_ASM_MAX_DEPTH)
		asm_push_frame(as, FRAME_REP, col);	/* fails: too deep */
	/*
	 * The body runs as many times as the counts of the loops around it
	 * multiply to: bound that, not just each count (.rep 65536 in .rep
	 * 65536 is 2^32 runs of the body).
	 */
	for (i = 0; i < as->nframes && total; i++) {
		if (as->frames[i].kind != FRAME_REP)
			continue;
		total *= as->frames[i].rep_count;
		if (total > QPU_ASM_MAX_ITERATIONS)
			break;
	}
	if (total > QPU_ASM_MAX_ITERATIONS)
		asm_fail_at(as, col, "loops nested here repeat their body more than %u times",
			    QPU_ASM_MAX_ITERATIONS);
	b = as->pending = asm_xalloc(as, calloc(1, sizeof(*b)));
	asm_collect_block(as, b, begin);
	as->pending = NULL;
	as->pending_values = NULL;
	f = asm_push_frame(as, FRAME_REP, col);
	f->body = b;
	f->values = values;
	f->pos = count ? 0 : b->count;
	f->rep_left = count;
	f->rep_count = count;
	copy_str(f->rep_var, sizeof(f->rep_var), var);
	if (var[0] && count)
		asm_set_rep_var(as, f);
}

/* ".rep [var,] count" */
void asm_directive_rep(struct lexer *lx)
{
	struct qpu_asm *as = lx->as;
	unsigned int col = lx->tok.col;
	char var[NAME_LEN] = "";
	int64_t count;

	as->opening = ".rep";
	if (lx->tok.kind == T_IDENT && *asm_skip_space(lx->p) == ',') {
		asm_read_name(lx, var);
		asm_lex_next(lx);
		col = lx->tok.col;
	}
	count = asm_int_expr(lx, NULL);
	asm_expect_end(lx);
	if (count < 0 || count > QPU_ASM_MAX_REPEAT)
		asm_fail_at(as, col, "repeat count %" PRId64 " out of range 0..%d", count,
			    QPU_ASM_MAX_REPEAT);
	start_loop(as, ".rep", col, var, (unsigned long)count, NULL);
}

/* ".foreach var, value, ...": the body once for each value, in order. */
void asm_directive_foreach(struct lexer *lx)
{
	struct qpu_asm *as = lx->as;
	unsigned int col = lx->tok.col;
	char var[NAME_LEN];
	struct value *values = NULL, *nv;
	size_t n = 0;

	as->opening = ".foreach";
	asm_read_name(lx, var);
	asm_expect(lx, ",");
	/* recover() frees the values if an expression fails */
	for (;;) {
		if (n == QPU_ASM_MAX_REPEAT)
			asm_fail_at(as, lx->tok.col, "more than %d values", QPU_ASM_MAX_REPEAT);
		if (!(n & (n - 1))) {	/* doubling: 65536 values cost no 2^31 copies */
			nv = asm_xalloc(as, realloc(values, (n ? 2 * n : 1) * sizeof(*values)));
			values = as->pending_values = nv;
		}
		asm_expr(lx, &values[n], 0);
		if (values[n].kind == V_REG && values[n].nsuffix)
			asm_fail_at(as, values[n].col, "a register value takes no suffix");
		if (values[n].kind == V_SEMA)
			asm_fail_at(as, values[n].col, "a semaphore operation is not a value");
		n++;
		if (!asm_tok_is(lx, ","))
			break;
		asm_lex_next(lx);
	}
	asm_expect_end(lx);
	start_loop(as, ".foreach", col, var, n, values);
}
