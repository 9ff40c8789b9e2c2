// SPDX-License-Identifier: MIT
/*
 * The text assembler's driver: vc4asm-compatible source (see qpu_asm.h for the
 * syntax) into instruction words. A run reads the source twice: the first
 * pass learns label addresses, the second uses them. Lines come from a
 * stack of frames (files, .rep bodies, macro expansions); each is split
 * into labels, then a directive (asm_directive.c, asm_macro.c) or an
 * instruction (asm_instr.c). An error longjmps back here with its
 * file:line:col; the line is given up, what it left half done undone, and
 * the run goes on with the next line, so one run reports many errors.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "asm/asm_internal.h"

void *asm_xalloc(struct qpu_asm *as, void *p)
{
	if (!p) {
		errno = ENOMEM;
		longjmp(as->fail, 2);
	}
	return p;
}

/* Whether two chains of macro calls are the same calls (each pass has its own). */
static bool same_site(const struct qpu_asm_loc *a, const struct qpu_asm_loc *b)
{
	for (; a && b; a = a->expanded_from, b = b->expanded_from)
		if (a->file != b->file || a->line != b->line || a->col != b->col ||
		    strcmp(a->macro ? a->macro : "", b->macro ? b->macro : ""))
			return false;
	return a == b;
}

/*
 * Whether the second pass, run after errors of the first, is to keep quiet
 * about this line: the first pass warned about it already, or gave up on it
 * (a second error there would follow from the first).
 */
static bool repeated_after_errors(const struct qpu_asm *as, const char *file, bool warning)
{
	size_t i;

	if (!as->after_errors)
		return false;
	if (warning)
		return true;
	for (i = 0; i < as->ndiags; i++)
		if (!as->diags[i].warning && as->diags[i].file == file &&
		    as->diags[i].line == as->lineno &&
		    same_site(as->diags[i].expanded_from, as->site))
			return true;
	return false;
}

/* Add a diagnostic at the current line; false if it is already there. */
static bool add_diag(struct qpu_asm *as, unsigned int col, bool warning,
		     const char *fmt, va_list ap)
{
	const char *file = as->file ? as->file : "<input>";
	struct qpu_asm_diag *d;
	char buf[512];
	size_t i;

	if (repeated_after_errors(as, file, warning))
		return false;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	/* a .rep body says it once */
	for (i = 0; i < as->ndiags; i++) {
		d = &as->diags[i];
		if (d->file == file && d->line == as->lineno && d->col == col &&
		    d->warning == warning && d->expanded_from == as->site &&
		    !strcmp(d->msg, buf))
			return false;
	}
	d = asm_xalloc(as, realloc(as->diags, (as->ndiags + 1) * sizeof(*d)));
	as->diags = d;
	d += as->ndiags;
	d->file = file;
	d->line = as->lineno;
	d->col = col;
	d->expanded_from = as->site;
	d->warning = warning;
	d->msg = asm_xalloc(as, strdup(buf));
	as->ndiags++;
	return true;
}

/* Whether @line is a directive (after an optional label): it may define names. */
static bool is_directive(const char *line)
{
	const char *p;

	if (!line)
		return false;
	line += strspn(line, " \t");
	for (p = line; isalnum((unsigned char)*p) || *p == '_'; p++)
		;
	if (p > line && *p == ':')
		line = p + 1 + strspn(p + 1, " \t");
	return *line == '.';
}

/*
 * Report an error at column @col (1-based) of the current line and give up
 * the line: run_pass() goes on with the next one. A directive given up in
 * the first pass may have lost definitions (an .include, a .set, a macro),
 * whose uses the second would report as errors of their own: then the run
 * ends with the first pass.
 */
void __attribute__((noreturn, format(printf, 3, 4)))
asm_fail_at(struct qpu_asm *as, unsigned int col, const char *fmt, ...)
{
	va_list ap;

	if (as->pass == 1 && is_directive(as->line))
		as->lost_definitions = true;
	va_start(ap, fmt);
	if (add_diag(as, col, false, fmt, ap))
		as->nerrors++;
	va_end(ap);
	longjmp(as->fail, 1);
}

/* Add a diagnostic at the current line, whatever the limits. */
static void __attribute__((format(printf, 4, 5)))
add_diag_fmt(struct qpu_asm *as, unsigned int col, bool warning, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_diag(as, col, warning, fmt, ap);
	va_end(ap);
}

/*
 * Report a warning at column @col of the current line and go on. After
 * QPU_ASM_MAX_WARNINGS of them in a pass, one says so and the rest are
 * dropped: a loop could otherwise make millions, each compared with the
 * ones before.
 */
void __attribute__((format(printf, 3, 4)))
asm_warn_at(struct qpu_asm *as, unsigned int col, const char *fmt, ...)
{
	va_list ap;
	bool added;

	if (as->nwarnings > QPU_ASM_MAX_WARNINGS)
		return;
	if (as->nwarnings == QPU_ASM_MAX_WARNINGS) {
		add_diag_fmt(as, col, true, "more than %d warnings, the rest are not shown",
			     QPU_ASM_MAX_WARNINGS);
		as->nwarnings++;
		return;
	}
	va_start(ap, fmt);
	added = add_diag(as, col, true, fmt, ap);
	va_end(ap);
	as->nwarnings += added;
}

/*
 * Count a line of @len bytes read at column @col of the current line against
 * the pass's work limits; one over them ends the run (run_pass()), as the
 * lines still to come could be billions (loops nested in loops, functions
 * calling themselves twice).
 */
void asm_count_line(struct qpu_asm *as, size_t len, unsigned int col)
{
	as->nbytes += len + 1;
	if (++as->nlines > QPU_ASM_MAX_LINES) {
		as->stop = true;
		asm_fail_at(as, col, "more than %u lines in one pass (loops, macros, "
			    "functions or includes repeat too much)", QPU_ASM_MAX_LINES);
	}
	if (as->nbytes > QPU_ASM_MAX_BYTES) {
		as->stop = true;
		asm_fail_at(as, col, "more than %u bytes of lines in one pass (loops, "
			    "macros, functions or includes repeat too much)", QPU_ASM_MAX_BYTES);
	}
}

const char *asm_intern(struct qpu_asm *as, const char *name)
{
	size_t i;
	char **names;

	for (i = 0; i < as->nnames; i++)
		if (!strcmp(as->names[i], name))
			return as->names[i];
	names = asm_xalloc(as, realloc(as->names, (as->nnames + 1) * sizeof(*names)));
	as->names = names;
	names[as->nnames] = asm_xalloc(as, strdup(name));
	return names[as->nnames++];
}

void asm_body_add(struct qpu_asm *as, struct body *b, const char *text,
		  const char *file, unsigned int lineno)
{
	if (b->count == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 16;

		b->lines = asm_xalloc(as, realloc(b->lines, cap * sizeof(*b->lines)));
		b->cap = cap;
	}
	b->lines[b->count].text = asm_xalloc(as, strdup(text));
	b->lines[b->count].file = file;
	b->lines[b->count].lineno = lineno;
	b->count++;
}

void asm_body_free(struct body *b)
{
	size_t i;

	for (i = 0; i < b->count; i++)
		free(b->lines[i].text);
	free(b->lines);
	memset(b, 0, sizeof(*b));
}

void asm_pop_frame(struct qpu_asm *as)
{
	struct frame *f = &as->frames[--as->nframes];
	size_t i;

	asm_drop_scopes(as, (unsigned int)as->nframes + 1);
	if (f->kind != FRAME_MACRO) {
		asm_body_free(f->body);
		free(f->body);
		free(f->values);
	} else {
		f->macro->active = false;
		for (i = 0; i < MAX_MACRO_ARGS; i++)
			free(f->args[i]);
	}
	free(f->file_text);
	memset(f, 0, sizeof(*f));
}

struct frame *asm_push_frame(struct qpu_asm *as, enum frame_kind kind,
			     unsigned int col)
{
	struct frame *f;

	if (as->nframes > QPU_ASM_MAX_DEPTH)
		asm_fail_at(as, col, "nesting deeper than %d (recursive include or macro?)",
			    QPU_ASM_MAX_DEPTH);
	f = &as->frames[as->nframes++];
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->if_depth = as->nifs;
	f->site = as->site;
	return f;
}

/*
 * Read the whole of @fp, at most QPU_ASM_MAX_FILE_SIZE bytes, into *@text
 * (NUL-terminated); @size is its size if known, else 0. Returns 0, -EFBIG
 * if longer, -EIO or -ENOMEM.
 */
static int read_all(FILE *fp, size_t size, char **text)
{
	const size_t limit = (size_t)QPU_ASM_MAX_FILE_SIZE + 2;
	size_t len = 0, cap = size ? size + 2 : 65536, n;
	char *buf = malloc(cap), *t;

	/* grows by doubling: a stream as long as the limit costs no more */
	for (;;) {
		if (!buf)
			return -ENOMEM;
		if (len > QPU_ASM_MAX_FILE_SIZE) {
			free(buf);
			return -EFBIG;
		}
		if (cap - len < 2) {
			cap = 2 * cap < limit ? 2 * cap : limit;
			t = realloc(buf, cap);
			if (!t)
				free(buf);
			buf = t;
			continue;
		}
		n = fread(buf + len, 1, cap - len - 1, fp);
		if (!n)
			break;
		len += n;
	}
	if (ferror(fp)) {
		free(buf);
		return -EIO;
	}
	buf[len] = '\0';
	*text = buf;
	return 0;
}

/*
 * Read @path into a new FILE frame. Returns -errno if it cannot be read,
 * -EISDIR for a directory, -EFBIG if larger than QPU_ASM_MAX_FILE_SIZE;
 * for an included file (not the top one), -ASM_ENOTREG if it is not a
 * regular file (/dev/zero would never end) and -ASM_ERECURSIVE if it is
 * being included already (it would include itself again and again).
 */
int asm_push_file(struct qpu_asm *as, const char *path, unsigned int col)
{
	FILE *fp;
	struct frame *f;
	struct stat st;
	const char *name;
	char *text = NULL, *line, *next;
	unsigned int lineno = 1;
	size_t i;
	int err;

	/* an include is looked at before it is opened: a FIFO would block */
	if (as->nframes && stat(path, &st))
		return -errno;
	if (as->nframes && S_ISDIR(st.st_mode))
		return -EISDIR;
	if (as->nframes && !S_ISREG(st.st_mode))
		return -ASM_ENOTREG;
	fp = fopen(path, "rb");
	if (!fp)
		return -errno;
	if (fstat(fileno(fp), &st)) {
		err = -errno;
		fclose(fp);
		return err;
	}
	err = 0;
	if (S_ISDIR(st.st_mode))
		err = -EISDIR;
	else if (as->nframes && !S_ISREG(st.st_mode))
		err = -ASM_ENOTREG;
	else if (S_ISREG(st.st_mode) && (uintmax_t)st.st_size > QPU_ASM_MAX_FILE_SIZE)
		err = -EFBIG;
	for (i = 0; !err && i < as->nframes; i++)
		if (as->frames[i].kind == FRAME_FILE && as->frames[i].has_id &&
		    as->frames[i].dev == (uint64_t)st.st_dev &&
		    as->frames[i].ino == (uint64_t)st.st_ino)
			err = -ASM_ERECURSIVE;
	if (err) {
		fclose(fp);
		return err;
	}
	if (as->nframes > QPU_ASM_MAX_DEPTH) {
		fclose(fp);
		asm_push_frame(as, FRAME_FILE, col);	/* fails: too deep */
	}
	err = read_all(fp, S_ISREG(st.st_mode) ? (size_t)st.st_size : 0, &text);
	fclose(fp);
	if (err == -ENOMEM)
		asm_xalloc(as, NULL);
	if (err)
		return err;
	as->nbytes += strlen(text);	/* counted at the next line */
	name = asm_intern(as, path);
	f = asm_push_frame(as, FRAME_FILE, col);
	f->file_text = text;
	f->has_id = true;
	f->dev = (uint64_t)st.st_dev;
	f->ino = (uint64_t)st.st_ino;
	f->body = asm_xalloc(as, calloc(1, sizeof(*f->body)));
	for (line = text; line; line = next, lineno++) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!next && !*line)
			break;
		asm_body_add(as, f->body, line, name, lineno);
	}
	return 0;
}

/*
 * Make as->line from @text with whole-word macro parameters replaced by the
 * frame's arguments, and as->colmap say from which column of @text each of
 * its characters comes: a diagnostic names the column of the macro body.
 */
static void substitute(struct qpu_asm *as, const struct frame *f, const char *text)
{
	size_t cap = strlen(text) + 1, len = 0, i, k, n;
	const char *p = text;

	as->line = asm_xalloc(as, malloc(cap));
	as->colmap = asm_xalloc(as, malloc(cap * sizeof(*as->colmap)));
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
		if (rep != p && len + n > QPU_ASM_MAX_LINE_LEN) {
			/* arguments in arguments grow exponentially */
			as->line[len] = '\0';
			as->colmap_len = 0;
			asm_fail_at(as, 1 + (unsigned int)(p - text),
				    "macro expansion longer than %u bytes", QPU_ASM_MAX_LINE_LEN);
		}
		if (len + n + 1 > cap) {
			cap = 2 * (len + n + 1);
			as->line = asm_xalloc(as, realloc(as->line, cap));
			as->colmap = asm_xalloc(as, realloc(as->colmap,
							    cap * sizeof(*as->colmap)));
		}
		memcpy(as->line + len, rep, n);
		for (k = 0; k < n; k++)
			as->colmap[len + k] = 1 + (unsigned int)(p - text) + (rep == p ? k : 0);
		len += n;
		p = q;
	}
	as->line[len] = '\0';
	as->colmap[len] = 1 + (unsigned int)(p - text);
	as->colmap_len = len + 1;
}

/* The 1-based source column of @p in @line (a macro body's, if substituted). */
unsigned int asm_line_col(const struct qpu_asm *as, const char *line, const char *p)
{
	size_t off = (size_t)(p - line);

	if (line == as->line && as->colmap && off < as->colmap_len)
		return as->colmap[off];
	return (unsigned int)off + 1;
}

/* Next line of source, or false at the end of everything. */
bool asm_next_line(struct qpu_asm *as)
{
	struct frame *f;
	const struct src_line *l;

	free(as->line);
	as->line = NULL;
	free(as->colmap);
	as->colmap = NULL;
	for (;;) {
		if (!as->nframes)
			return false;
		f = &as->frames[as->nframes - 1];
		if (f->pos == f->body->count) {
			if (as->nifs > f->if_depth) {
				const struct if_state *s = &as->ifs[as->nifs - 1];

				as->file = s->file;
				as->lineno = s->lineno;
				as->site = s->site;
				as->nifs = f->if_depth;
				asm_fail_at(as, s->col, ".if without .endif");
			}
			if (f->kind == FRAME_REP && f->rep_left > 1) {
				f->rep_left--;
				f->rep_index++;
				f->pos = 0;
				if (f->rep_var[0])
					asm_set_rep_var(as, f);
				continue;
			}
			asm_pop_frame(as);
			continue;
		}
		l = &f->body->lines[f->pos++];
		as->file = l->file;
		as->lineno = l->lineno;
		as->site = f->site;
		if (f->kind == FRAME_MACRO)
			substitute(as, f, l->text);
		else
			as->line = asm_xalloc(as, strdup(l->text));
		asm_count_line(as, strlen(as->line), 1);
		return true;
	}
}

/* Append a word that comes from @loc. */
void asm_emit_loc(struct qpu_asm *as, uint64_t w, const struct qpu_asm_loc *loc)
{
	if (as->nwords == QPU_ASM_MAX_WORDS)
		asm_fail_at(as, loc->col, "program longer than %u instructions",
			    QPU_ASM_MAX_WORDS);
	if (as->nwords == as->cap_words) {
		size_t cap = as->cap_words ? 2 * as->cap_words : 256;

		as->words = asm_xalloc(as, realloc(as->words, cap * sizeof(*as->words)));
		as->locs = asm_xalloc(as, realloc(as->locs, cap * sizeof(*as->locs)));
		as->cap_words = cap;
	}
	as->locs[as->nwords] = *loc;
	as->words[as->nwords++] = w;
}

/* Append a word from column @col of the current line. */
void asm_emit_word(struct qpu_asm *as, uint64_t w, unsigned int col)
{
	struct qpu_asm_loc loc = {
		.file = as->file, .line = as->lineno, .col = col,
		.expanded_from = as->site,
	};

	asm_emit_loc(as, w, &loc);
}

static void process_line(struct qpu_asm *as)
{
	struct lexer lx;
	char d[NAME_LEN];
	bool active = !as->nifs || as->ifs[as->nifs - 1].active;
	struct macro *m;
	unsigned int col;
	uint64_t w;

	asm_lex_init(&lx, as, as->line);
	/* labels: "name:" or ":name" */
	for (;;) {
		if (asm_tok_is(&lx, ":") && is_digit(*asm_skip_space(lx.p))) {
			asm_lex_next(&lx);
			if (active)
				asm_define_num_label(as, &lx);
			asm_lex_next(&lx);
		} else if (asm_tok_is(&lx, ":")) {
			asm_lex_next(&lx);
			if (asm_tok_is(&lx, ":"))	/* "::name": also .global */
				asm_lex_next(&lx);
			if (lx.tok.kind != T_IDENT)
				asm_fail_at(as, lx.tok.col, "expected a label name after ':'");
			asm_tok_text(&lx, d, sizeof(d));
			if (active)
				asm_define_label(as, d, lx.tok.col);
			asm_lex_next(&lx);
		} else if (lx.tok.kind == T_IDENT && !memchr(lx.tok.start, '.', lx.tok.len) &&
			   *asm_skip_space(lx.p) == ':' &&
			   !(lx.tok.len == 1 && lx.tok.start[0] == 'r')) {
			asm_tok_text(&lx, d, sizeof(d));
			if (active)
				asm_define_label(as, d, lx.tok.col);
			asm_lex_next(&lx);
			asm_lex_next(&lx);
		} else {
			break;
		}
	}
	if (lx.tok.kind == T_EOL)
		return;
	if (lx.tok.kind == T_DIRECTIVE) {
		asm_tok_text(&lx, d, sizeof(d));
		if (asm_directive_cond(&lx, d, active) || !active)
			return;
		col = lx.tok.col;
		asm_lex_next(&lx);
		asm_directive(&lx, d, col);
		return;
	}
	if (!active)
		return;
	if (lx.tok.kind == T_IDENT) {
		asm_tok_text(&lx, d, sizeof(d));
		m = asm_find_macro(as, d);
		if (m) {
			asm_invoke_macro(&lx, m);
			return;
		}
	}
	w = 0;
	col = lx.tok.col;
	if (as->data_bits) {
		asm_warn_at(as, col, "instruction after %u bits of data: "
			    "the rest of the word is padded with zeros", as->data_bits);
		as->data_bits = 0;
	}
	if (qpu_gen_is_v3d(as->gen))
		asm_v3d_assemble_instr(&lx, as->gen, (uint64_t)as->nwords * 8, &w);
	else
		asm_assemble_instr(&lx, (uint64_t)as->nwords * 8, &w);
	asm_emit_word(as, w, col);
}

static void free_pending(struct qpu_asm *as)
{
	if (as->pending) {
		asm_body_free(as->pending);
		free(as->pending);
		as->pending = NULL;
	}
	free(as->pending_values);
	as->pending_values = NULL;
}

static void reset_run(struct qpu_asm *as)
{
	struct symbol *s;
	struct macro *m;

	while (as->nframes)
		asm_pop_frame(as);
	while ((s = as->symbols)) {
		as->symbols = s->next;
		free(s);
	}
	while ((m = as->macros)) {
		as->macros = m->next;
		asm_body_free(&m->body);
		free(m);
	}
	while ((m = as->funcs)) {
		as->funcs = m->next;
		asm_body_free(&m->body);
		free(m);
	}
	free(as->line);
	as->line = NULL;
	free(as->colmap);
	as->colmap = NULL;
	free_pending(as);
	as->opening = NULL;
	as->data_bits = 0;
	memset(&as->back, 0, sizeof(as->back));
	as->func_depth = 0;
	as->expr_depth = 0;
	as->nlines = 0;
	as->nbytes = 0;
	as->nwarnings = 0;
	as->nincludes = 0;
	as->stop = false;
	as->nifs = 0;
	as->num_labels_seen = 0;
	as->nwords = 0;
	as->file = NULL;
	as->lineno = 0;
	as->site = NULL;
}

static void free_labels(struct qpu_asm *as)
{
	struct symbol *s;

	free(as->num_labels);
	as->num_labels = NULL;
	as->nnum_labels = 0;
	free(as->num_order);
	as->num_order = NULL;
	while ((s = as->labels)) {
		as->labels = s->next;
		free(s);
	}
}

static void clear_diags(struct qpu_asm *as)
{
	size_t i;

	for (i = 0; i < as->ndiags; i++)
		free((char *)as->diags[i].msg);
	as->ndiags = 0;
	as->nerrors = 0;
}

static void free_diags(struct qpu_asm *as)
{
	struct site *site;
	size_t i;

	while ((site = as->sites)) {
		as->sites = site->next;
		free(site);
	}
	for (i = 0; i < as->ndiags; i++)
		free((char *)as->diags[i].msg);
	free(as->diags);
	as->diags = NULL;
	as->ndiags = 0;
}

/*
 * Undo what a line left half done when it failed, so the next line starts
 * clean: a block whose opening line failed is skipped to its end.
 */
static void recover(struct qpu_asm *as)
{
	const char *begin = as->opening;

	free_pending(as);
	as->expr_depth = 0;
	if (as->func_depth) {
		asm_drop_scopes(as, SCOPE_FUNC + 1);
		as->nifs = as->func_nifs;
		as->func_depth = 0;
	}
	if (begin) {
		as->pending = asm_xalloc(as, calloc(1, sizeof(*as->pending)));
		asm_collect_block(as, as->pending, begin);
		free_pending(as);
	}
}

/*
 * Assemble every line of the frames pushed. An error gives up its line
 * only; after QPU_ASM_MAX_ERRORS of them the pass stops. Returns 0,
 * -EINVAL after errors or -ENOMEM.
 */
static int run_pass(struct qpu_asm *as)
{
	for (;;) {
		switch (setjmp(as->fail)) {
		case 0:
			break;
		case 1:
			if (as->stop)
				return -EINVAL;
			if (as->nerrors == QPU_ASM_MAX_ERRORS) {
				add_diag_fmt(as, as->diags[as->ndiags - 1].col, false,
					     "too many errors, stopping");
				return -EINVAL;
			}
			recover(as);
			continue;
		default:
			return -ENOMEM;
		}
		if (!asm_next_line(as)) {
			asm_directives_finish(as);
			break;
		}
		process_line(as);
	}
	return as->nerrors ? -EINVAL : 0;
}

/*
 * Run both passes over the source @path or @text. Errors of the first pass
 * do not stop the second, which reports the rest (undefined symbols, bad
 * branch targets) with them, as a compiler reports every error of a file;
 * the first pass's diagnostics stay, and the second's repeats of them are
 * dropped. Only the limits (QPU_ASM_MAX_ERRORS, the work limits) end a run
 * early.
 */
static int run(struct qpu_asm *as, const char *path, const char *text)
{
	volatile bool failed = false;	/* kept across setjmp() */
	int pass, err;

	free_diags(as);
	free_labels(as);
	as->after_errors = false;
	as->lost_definitions = false;
	for (pass = 1; pass <= 2; pass++) {
		reset_run(as);
		as->pass = pass;
		/* pass 1's warnings come again */
		if (pass == 2 && !failed)
			clear_diags(as);
		if (setjmp(as->fail)) {
			reset_run(as);
			free_labels(as);
			return -ENOMEM;
		}
		if (text) {
			struct frame *f = asm_push_frame(as, FRAME_FILE, 1);
			const char *name = asm_intern(as, path);
			char *copy = asm_xalloc(as, strdup(text)), *line, *next;
			unsigned int lineno = 1;

			f->file_text = copy;
			f->body = asm_xalloc(as, calloc(1, sizeof(*f->body)));
			for (line = copy; line; line = next, lineno++) {
				next = strchr(line, '\n');
				if (next)
					*next++ = '\0';
				if (!next && !*line)
					break;
				asm_body_add(as, f->body, line, name, lineno);
			}
		} else {
			err = asm_push_file(as, path, 0);
			if (err) {
				reset_run(as);
				return err;
			}
		}
		err = run_pass(as);
		if (err == -EINVAL && pass == 1 && !as->stop && !as->lost_definitions &&
		    as->nerrors < QPU_ASM_MAX_ERRORS) {
			failed = true;
			as->after_errors = true;
			continue;
		}
		as->after_errors = false;
		if (err || failed) {
			reset_run(as);
			free_labels(as);
			return err ? err : -EINVAL;
		}
	}
	free(as->line);
	as->line = NULL;
	free(as->colmap);
	as->colmap = NULL;
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
	free(as->locs);
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

size_t qpu_asm_locs(const struct qpu_asm *as, const struct qpu_asm_loc **locs)
{
	*locs = as->locs;
	return as->nwords;
}

size_t qpu_asm_diags(const struct qpu_asm *as, const struct qpu_asm_diag **diags)
{
	*diags = as->diags;
	return as->ndiags;
}

int qpu_asm_set_gen(struct qpu_asm *as, enum qpu_gen gen)
{
	if (!qpu_gen_valid(gen))
		return -EINVAL;
	as->gen = gen;
	return 0;
}

int qpu_asm_line(const char *text, uint64_t *word, char *msg, size_t msg_size)
{
	return qpu_asm_line_gen(QPU_GEN_VC4, text, word, msg, msg_size);
}

int qpu_asm_line_gen(enum qpu_gen gen, const char *text, uint64_t *word,
		     char *msg, size_t msg_size)
{
	struct qpu_asm *as;
	const uint64_t *words;
	int err;

	if (!qpu_gen_valid(gen))
		return -EINVAL;
	as = qpu_asm_new();
	if (!as)
		return -ENOMEM;
	as->gen = gen;
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
