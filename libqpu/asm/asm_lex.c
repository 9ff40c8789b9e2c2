// SPDX-License-Identifier: MIT
/*
 * The assembler's lexer: one source line into identifiers (with dotted
 * suffixes, "add.setf.ifz"), directives, numbers, strings and operators.
 * Comments run from "#" or "//" to the end of the line; a C block comment
 * ends at its close or at the end of its line.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "asm/asm_internal.h"

const char *asm_skip_space(const char *p)
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
			asm_fail_at(lx->as, t->col, "number too large");
		v = v * base + digit;
	}
	if (is_ident_char(*q))
		asm_fail_at(lx->as, t->col, "malformed number");
	t->kind = T_INT;
	t->i = (int64_t)v;
	t->len = q - p;
}

void asm_lex_next(struct lexer *lx)
{
	static const char *const two[] = {
		"<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
	};
	struct token *t = &lx->tok;
	const char *p = asm_skip_space(lx->p);
	size_t i;

	memset(t, 0, sizeof(*t));
	t->start = p;
	t->col = asm_line_col(lx->as, lx->line, p);
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
			asm_fail_at(lx->as, t->col, "missing closing '\"'");
		t->kind = T_STRING;
		t->len = q + 1 - p;
	} else if (*p == '-' && (p[1] == '.' && is_ident_start(p[2]))) {
		/* write address 39 with suffixes: "-.ifz" */
		t->kind = T_IDENT;
		t->len = scan_ident(p + 2) - p;
	} else {
		const char *q = asm_skip_space(p + 1);

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
				asm_fail_at(lx->as, t->col, "unexpected character '%c'", *p);
			memcpy(t->op, p, t->len);
		}
	}
	lx->p = p + t->len;
}

void asm_lex_init(struct lexer *lx, struct qpu_asm *as, const char *line)
{
	lx->as = as;
	lx->line = line;
	lx->p = line;
	asm_lex_next(lx);
}

bool asm_tok_is(const struct lexer *lx, const char *op)
{
	return lx->tok.kind == T_PUNCT && !strcmp(lx->tok.op, op);
}

bool asm_tok_word(const struct lexer *lx, const char *word)
{
	return (lx->tok.kind == T_IDENT || lx->tok.kind == T_DIRECTIVE) &&
		lx->tok.len == strlen(word) && !strncmp(lx->tok.start, word, lx->tok.len);
}

bool asm_at_end(const struct lexer *lx)
{
	return lx->tok.kind == T_EOL || asm_tok_is(lx, ";");
}

void asm_expect(struct lexer *lx, const char *op)
{
	if (!asm_tok_is(lx, op))
		asm_fail_at(lx->as, lx->tok.col, "expected '%s'", op);
	asm_lex_next(lx);
}

void asm_tok_text(const struct lexer *lx, char *buf, size_t size)
{
	size_t n = lx->tok.len < size - 1 ? lx->tok.len : size - 1;

	memcpy(buf, lx->tok.start, n);
	buf[n] = '\0';
}

void asm_expect_end(struct lexer *lx)
{
	if (lx->tok.kind != T_EOL)
		asm_fail_at(lx->as, lx->tok.col, "unexpected text after the directive");
}

void asm_read_name(struct lexer *lx, char *name)
{
	if (lx->tok.kind != T_IDENT || memchr(lx->tok.start, '.', lx->tok.len))
		asm_fail_at(lx->as, lx->tok.col, "expected a name");
	if (lx->tok.len >= NAME_LEN)
		asm_fail_at(lx->as, lx->tok.col, "name too long");
	asm_tok_text(lx, name, NAME_LEN);
	asm_lex_next(lx);
}
