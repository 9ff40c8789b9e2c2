/* SPDX-License-Identifier: MIT */
/*
 * The part of a C emitter that does not depend on the instruction set:
 * the words so far, labels and the branches that wait for them, and the
 * sticky first error with its instruction index (emit_prog.c).
 */
#ifndef LIBQPU_EMIT_PROG_H
#define LIBQPU_EMIT_PROG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EMIT_PROG_MSG_SIZE	192

struct emit_label {
	char *name;
	long index;		/* instruction index, -1 until defined */
};

struct emit_fixup {
	size_t index;		/* the branch */
	size_t label;
};

struct emit_prog {
	uint64_t *words;
	size_t nwords, cap_words;
	struct emit_label *labels;
	size_t nlabels, cap_labels;
	struct emit_fixup *fixups;
	size_t nfixups, cap_fixups;
	bool finished;
	int err;		/* 0, -EINVAL or -ENOMEM */
	size_t err_index;
	char msg[EMIT_PROG_MSG_SIZE];
};

/*
 * An empty program, with room for words so that an empty finished program
 * still has a (non-NULL) array: false when out of memory.
 */
bool emit_prog_init(struct emit_prog *p);

/* The first error: "instruction @index: ..."; later ones are dropped. */
void emit_prog_fail(struct emit_prog *p, size_t index, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void emit_prog_fail_nomem(struct emit_prog *p);
/* Append @word; @label >= 0 makes it a branch to be patched. */
bool emit_prog_push(struct emit_prog *p, uint64_t word, long label);
/* The label called @name (made, undefined, if new), or -1 on error. */
long emit_prog_label_ref(struct emit_prog *p, const char *name, size_t index);
/* Define @name as instruction @index. */
void emit_prog_label_define(struct emit_prog *p, const char *name, size_t index);
/*
 * Patch each branch through @patch(@ctx, word, branch index, target
 * index), which returns false when the word cannot take that target; 0 or
 * the error.
 */
int emit_prog_resolve(struct emit_prog *p,
		      bool (*patch)(void *ctx, uint64_t *word, size_t index,
				    size_t target),
		      void *ctx);
void emit_prog_fini(struct emit_prog *p);

#endif /* LIBQPU_EMIT_PROG_H */
