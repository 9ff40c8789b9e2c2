/* SPDX-License-Identifier: MIT */
/*
 * Private interface of the text assembler (asm.c): vc4asm-compatible source
 * in, 64-bit instruction words and file:line:col diagnostics out. Used by
 * tools/qpu-as.c and the tests until libqpu's public header exports it.
 */
#ifndef LIBQPU_ASM_H
#define LIBQPU_ASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Limits; exceeding one is an error at the line that did. */
#define QPU_ASM_MAX_DEPTH	64		/* nested includes, macros, .rep */
#define QPU_ASM_MAX_REPEAT	65536		/* count of one .rep */
#define QPU_ASM_MAX_WORDS	(1u << 20)	/* words of one program */
#define QPU_ASM_MAX_INCLUDE_DIRS 32

/**
 * struct qpu_asm_diag - one diagnostic
 * @file: source file name as given (or as found on the search path)
 * @line: 1-based line
 * @col: 1-based column of the offending token
 * @warning: a warning, not an error
 * @msg: text without location or "error:" prefix
 *
 * The strings belong to the assembler and live until qpu_asm_free().
 */
struct qpu_asm_diag {
	const char *file;
	unsigned int line;
	unsigned int col;
	bool warning;
	const char *msg;
};

struct qpu_asm;

/* Returns NULL with errno set on failure; free with qpu_asm_free(). */
struct qpu_asm *qpu_asm_new(void);
void qpu_asm_free(struct qpu_asm *as);

/* Directories searched by .include after the including file's own. */
int qpu_asm_add_include_dir(struct qpu_asm *as, const char *dir);

/*
 * Assemble a file or a string (named @name in diagnostics). Return 0, or
 * -EINVAL if the source has an error (see qpu_asm_diags()), -ENOENT and
 * friends if the top file cannot be read, -ENOMEM. Words of a failed run are
 * discarded.
 */
int qpu_asm_file(struct qpu_asm *as, const char *path);
int qpu_asm_string(struct qpu_asm *as, const char *name, const char *text);

/* The words of the last successful run; valid until the next run or free. */
size_t qpu_asm_words(const struct qpu_asm *as, const uint64_t **words);
/* Diagnostics of the last run, in order. */
size_t qpu_asm_diags(const struct qpu_asm *as, const struct qpu_asm_diag **diags);

/*
 * Assemble a single instruction line (no labels defined) into @word. Returns
 * 0, or -EINVAL with "line:col: message" in @msg.
 */
int qpu_asm_line(const char *text, uint64_t *word, char *msg, size_t msg_size);

#endif /* LIBQPU_ASM_H */
