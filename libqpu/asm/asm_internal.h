/* SPDX-License-Identifier: MIT */
/*
 * Private declarations shared by the assembler's files: the run state
 * (struct qpu_asm), the lexer's tokens, expression values, and one block of
 * prototypes per defining file. asm.c drives a run; asm_lex.c splits lines
 * into tokens; asm_expr.c evaluates expressions and owns symbols and labels;
 * asm_directive.c handles line directives and asm_macro.c the blocks
 * (macros, functions, loops); asm_instr.c builds VideoCore IV instruction
 * words, asm/asm_v3d.c V3D 4.2/7.1 ones. Errors
 * longjmp out of the line being assembled (asm_fail_at()).
 */
#ifndef LIBQPU_ASM_INTERNAL_H
#define LIBQPU_ASM_INTERNAL_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "qpu_asm.h"
#include "qpu_isa.h"

#define MAX_SUFFIXES	4
#define NAME_LEN	64
#define MAX_OPERANDS	8
#define MAX_MACRO_ARGS	32
#define MAX_IF_DEPTH	64
#define MAX_BACK	10	/* instructions .back can go back */
/* asm_push_file()'s errors besides errno values (negated, as those) */
#define ASM_ENOTREG	4096	/* an included file is not a regular file */
#define ASM_ERECURSIVE	4097	/* it is being included already */
/* symbol scopes: 0 global, 1.. a frame's depth, then function calls */
#define SCOPE_FUNC	(QPU_ASM_MAX_DEPTH + 2)

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

/* A .macro, or a function from .func or ".set name(params) expr". */
struct macro {
	char name[NAME_LEN];
	char params[MAX_MACRO_ARGS][NAME_LEN];
	size_t nparams;
	struct body body;
	bool active;
	struct macro *next;
};

enum frame_kind { FRAME_FILE, FRAME_REP, FRAME_MACRO };

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

struct frame {
	enum frame_kind kind;
	struct body *body;	/* owned unless FRAME_MACRO */
	size_t pos;
	unsigned long rep_left;
	unsigned long rep_index;
	unsigned long rep_count;	/* iterations in all: rep_left at start */
	bool has_id;		/* FRAME_FILE read from a file: its identity */
	uint64_t dev, ino;
	char rep_var[NAME_LEN];	/* ".rep i, N": i counts 0..N-1 */
	struct value *values;	/* .foreach: rep_left values, owned */
	struct macro *macro;
	char *args[MAX_MACRO_ARGS];
	char *file_text;
	unsigned int if_depth;	/* .if nesting when the frame began */
	const struct qpu_asm_loc *site;	/* macro call its lines come from */
};

/* A macro call site, kept until the next run for locs and diagnostics. */
struct site {
	struct qpu_asm_loc loc;
	struct site *next;
};

/*
 * A constant, register alias or label. Constants of an inner scope come
 * first in the list and so shadow outer ones of the same name.
 */
struct symbol {
	char name[NAME_LEN];
	int kind;		/* enum value_kind */
	int64_t i;
	double f;
	char reg[NAME_LEN];
	unsigned int scope;	/* 0 global, else see SCOPE_FUNC */
	bool is_const;		/* from .const or .lconst: final */
	const char *file;	/* where it was defined */
	unsigned int lineno;
	struct symbol *next;
};

/* A numeric local label, referred to as "r:1f" (next) or "r:1b" (last). */
struct num_label {
	unsigned long num;
	int64_t addr;
};

/* num_labels[idx] in the order of (num, idx), for lookups in pass 2 */
struct num_order {
	unsigned long num;
	size_t idx;
};

struct if_state {
	bool parent_active;
	bool taken;		/* a branch of this .if was chosen */
	bool active;
	bool seen_else;
	const char *file;	/* where the .if is */
	unsigned int lineno;
	unsigned int col;
	const struct qpu_asm_loc *site;
};

/* An open ".back N": the last N words, taken out until .endb. */
struct back_state {
	bool active;
	unsigned int count;
	uint64_t words[MAX_BACK];
	struct qpu_asm_loc locs[MAX_BACK];
	const char *file;	/* where the .back is */
	unsigned int lineno;
	unsigned int col;
	const struct qpu_asm_loc *site;
};

struct qpu_asm {
	enum qpu_gen gen;	/* of the instruction lines; 0 is VC4 */
	char *include_dirs[QPU_ASM_MAX_INCLUDE_DIRS];
	size_t ninclude_dirs;
	char **names;		/* interned file names */
	size_t nnames;

	uint64_t *words;
	struct qpu_asm_loc *locs;	/* one per word */
	size_t nwords, cap_words;
	struct site *sites;
	struct qpu_asm_diag *diags;
	size_t ndiags;
	unsigned int nerrors;

	/* state of one run */
	int pass;
	bool after_errors;	/* pass 2 after pass 1's errors: report only new ones */
	bool lost_definitions;	/* pass 1 gave up a directive: no pass 2 */
	jmp_buf fail;
	struct frame frames[QPU_ASM_MAX_DEPTH + 1];
	size_t nframes;
	struct symbol *symbols;
	struct symbol *labels;	/* kept from pass 1 to pass 2 */
	struct num_label *num_labels;	/* ":1" definitions, in order (pass 1) */
	size_t nnum_labels;
	size_t num_labels_seen;		/* definitions passed in this pass */
	struct num_order *num_order;	/* made by the first lookup of pass 2 */
	struct macro *macros;
	struct macro *funcs;
	struct if_state ifs[MAX_IF_DEPTH];
	unsigned int nifs;
	char *line;		/* the current line after macro substitution */
	unsigned int *colmap;	/* per char of a substituted line: source column */
	size_t colmap_len;
	struct body *pending;	/* a block body being collected */
	struct value *pending_values;	/* .foreach values being collected */
	const char *opening;	/* a block directive parsing its first line */
	const char *file;
	unsigned int lineno;
	const struct qpu_asm_loc *site;	/* of the current line */
	unsigned int data_bits;	/* bits of data in the last word, 0: closed */
	struct back_state back;
	unsigned int func_depth;	/* function calls being evaluated */
	unsigned int func_nifs;		/* .if nesting before the outermost */
	unsigned int expr_depth;	/* primary() calls being evaluated */
	unsigned long nlines;		/* lines read in this pass */
	unsigned long long nbytes;	/* and their bytes */
	unsigned int nwarnings;		/* warnings recorded in this pass */
	unsigned int nincludes;		/* .include run in this pass */
	bool stop;			/* a work limit was hit: end the run */
};

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
static inline void copy_str(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static inline bool is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static inline bool is_ident_char(char c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* asm.c: the run, its sources and its output */
void *asm_xalloc(struct qpu_asm *as, void *p);
void __attribute__((noreturn, format(printf, 3, 4)))
asm_fail_at(struct qpu_asm *as, unsigned int col, const char *fmt, ...);
void __attribute__((format(printf, 3, 4)))
asm_warn_at(struct qpu_asm *as, unsigned int col, const char *fmt, ...);
void asm_count_line(struct qpu_asm *as, size_t len, unsigned int col);
const char *asm_intern(struct qpu_asm *as, const char *name);
void asm_body_add(struct qpu_asm *as, struct body *b, const char *text,
		  const char *file, unsigned int lineno);
void asm_body_free(struct body *b);
struct frame *asm_push_frame(struct qpu_asm *as, enum frame_kind kind,
			     unsigned int col);
void asm_pop_frame(struct qpu_asm *as);
int asm_push_file(struct qpu_asm *as, const char *path, unsigned int col);
/* @name pushed from the -I directories, then the defaults (asm_include_path.c) */
int asm_push_from_dirs(struct qpu_asm *as, const char *name, unsigned int col);
bool asm_next_line(struct qpu_asm *as);
unsigned int asm_line_col(const struct qpu_asm *as, const char *line, const char *p);
void asm_emit_word(struct qpu_asm *as, uint64_t w, unsigned int col);
void asm_emit_loc(struct qpu_asm *as, uint64_t w, const struct qpu_asm_loc *loc);

/* asm_lex.c */
const char *asm_skip_space(const char *p);
void asm_lex_init(struct lexer *lx, struct qpu_asm *as, const char *line);
void asm_lex_next(struct lexer *lx);
bool asm_tok_is(const struct lexer *lx, const char *op);
bool asm_tok_word(const struct lexer *lx, const char *word);
void asm_tok_text(const struct lexer *lx, char *buf, size_t size);
bool asm_at_end(const struct lexer *lx);
void asm_expect(struct lexer *lx, const char *op);
void asm_expect_end(struct lexer *lx);
void asm_read_name(struct lexer *lx, char *name);

/* asm_expr.c */
bool asm_parse_numbered(const char *name, const char *prefix, unsigned int max,
			unsigned int *num);
const char *asm_canonical_reg(const char *name, u32 flags);
bool asm_is_register_name(const char *name);
struct symbol *asm_find_symbol(struct symbol *list, const char *name);
unsigned int asm_local_scope(const struct qpu_asm *as);
struct symbol *asm_set_symbol(struct qpu_asm *as, const char *name, unsigned int scope,
			      bool is_const, const struct value *v, unsigned int col);
bool asm_unset_symbol(struct qpu_asm *as, const char *name, unsigned int scope);
void asm_drop_scopes(struct qpu_asm *as, unsigned int scope);
int64_t asm_here(const struct qpu_asm *as);
void asm_define_label(struct qpu_asm *as, const char *name, unsigned int col);
void asm_define_num_label(struct qpu_asm *as, struct lexer *lx);
int64_t asm_expr(struct lexer *lx, struct value *v, int min_prec);
int64_t asm_int_expr(struct lexer *lx, unsigned int *col);

/* asm_directive.c */
bool asm_directive_cond(struct lexer *lx, const char *d, bool active);
void asm_directive(struct lexer *lx, const char *d, unsigned int col);
void asm_directives_finish(struct qpu_asm *as);

/* asm_macro.c */
void asm_first_word(const char *line, char *buf, size_t size);
bool asm_is_block_end(const char *word);
void asm_collect_block(struct qpu_asm *as, struct body *b, const char *begin);
struct macro *asm_find_macro(struct qpu_asm *as, const char *name);
void asm_directive_macro(struct lexer *lx);
void asm_directive_func(struct lexer *lx);
void asm_define_function(struct lexer *lx, const char *name);
void asm_invoke_macro(struct lexer *lx, struct macro *m);
bool asm_call_function(struct lexer *lx, struct value *v);
void asm_set_rep_var(struct qpu_asm *as, struct frame *f);
void asm_directive_rep(struct lexer *lx);
void asm_directive_foreach(struct lexer *lx);

/* asm_instr.c */
void asm_assemble_instr(struct lexer *lx, uint64_t pc, uint64_t *word);

/* asm_v3d.c: a V3D 4.2 or 7.1 instruction line */
void asm_v3d_assemble_instr(struct lexer *lx, enum qpu_gen gen, uint64_t pc,
			    uint64_t *word);

#endif /* LIBQPU_ASM_INTERNAL_H */
