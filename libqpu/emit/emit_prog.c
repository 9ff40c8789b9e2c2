// SPDX-License-Identifier: MIT
/*
 * Words, labels, branch fixups and the sticky first error of a C emitter
 * (emit_prog.h): what emit.c and emit_v3d.c share beside their
 * instruction sets.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit/emit_prog.h"

bool emit_prog_init(struct emit_prog *p)
{
	memset(p, 0, sizeof(*p));
	p->cap_words = 64;
	p->words = malloc(p->cap_words * sizeof(*p->words));
	return p->words != NULL;
}

void emit_prog_fail(struct emit_prog *p, size_t index, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (p->err)
		return;
	p->err = -EINVAL;
	p->err_index = index;
	n = snprintf(p->msg, sizeof(p->msg), "instruction %zu: ", index);
	va_start(ap, fmt);
	vsnprintf(p->msg + n, sizeof(p->msg) - n, fmt, ap);
	va_end(ap);
}

void emit_prog_fail_nomem(struct emit_prog *p)
{
	if (p->err)
		return;
	p->err = -ENOMEM;
	p->err_index = p->nwords;
	snprintf(p->msg, sizeof(p->msg), "instruction %zu: out of memory",
		 p->nwords);
}

/* @*arr with room for element @n of @size bytes; false when out of memory. */
static bool grow(struct emit_prog *p, void **arr, size_t n, size_t *cap,
		 size_t size)
{
	size_t want = *cap ? *cap * 2 : 64;
	void *a;

	if (n < *cap)
		return true;
	a = realloc(*arr, want * size);
	if (!a) {
		emit_prog_fail_nomem(p);
		return false;
	}
	*arr = a;
	*cap = want;
	return true;
}

bool emit_prog_push(struct emit_prog *p, uint64_t word, long label)
{
	if (!grow(p, (void **)&p->words, p->nwords, &p->cap_words,
		  sizeof(*p->words)))
		return false;
	if (label >= 0) {
		if (!grow(p, (void **)&p->fixups, p->nfixups, &p->cap_fixups,
			  sizeof(*p->fixups)))
			return false;
		p->fixups[p->nfixups++] = (struct emit_fixup){ p->nwords,
							       (size_t)label };
	}
	p->words[p->nwords++] = word;
	return true;
}

long emit_prog_label_ref(struct emit_prog *p, const char *name, size_t index)
{
	struct emit_label *l;
	size_t i;

	if (!name || !*name) {
		emit_prog_fail(p, index, "a label needs a name");
		return -1;
	}
	for (i = 0; i < p->nlabels; i++) {
		if (!strcmp(p->labels[i].name, name))
			return (long)i;
	}
	if (!grow(p, (void **)&p->labels, p->nlabels, &p->cap_labels,
		  sizeof(*p->labels)))
		return -1;
	l = &p->labels[p->nlabels];
	l->name = strdup(name);
	if (!l->name) {
		emit_prog_fail_nomem(p);
		return -1;
	}
	l->index = -1;
	return (long)p->nlabels++;
}

void emit_prog_label_define(struct emit_prog *p, const char *name, size_t index)
{
	long l = emit_prog_label_ref(p, name, index);

	if (l < 0)
		return;
	if (p->labels[l].index >= 0) {
		emit_prog_fail(p, index, "label '%s' is already defined "
			       "(instruction %ld)", name, p->labels[l].index);
		return;
	}
	p->labels[l].index = (long)index;
}

int emit_prog_resolve(struct emit_prog *p,
		      bool (*patch)(void *ctx, uint64_t *word, size_t index,
				    size_t target),
		      void *ctx)
{
	size_t i;

	for (i = 0; i < p->nfixups && !p->err; i++) {
		const struct emit_fixup *f = &p->fixups[i];
		const struct emit_label *l = &p->labels[f->label];

		if (l->index < 0)
			emit_prog_fail(p, f->index, "label '%s' is not defined",
				       l->name);
		else if (!patch(ctx, &p->words[f->index], f->index,
				(size_t)l->index))
			emit_prog_fail(p, f->index, "branch to '%s' cannot be "
				       "encoded", l->name);
	}
	return p->err;
}

void emit_prog_fini(struct emit_prog *p)
{
	size_t i;

	for (i = 0; i < p->nlabels; i++)
		free(p->labels[i].name);
	free(p->labels);
	free(p->fixups);
	free(p->words);
}
