/* SPDX-License-Identifier: MIT */
/*
 * libqpu: the text assembler (asm*.c). vc4asm-compatible source in, 64-bit
 * instruction words and file:line:col diagnostics out; qpu-as is a thin
 * command line over it. It needs no device.
 *
 * Conventions are those of qpu.h. A struct qpu_asm is not thread-safe; any
 * number of them may run in different threads at once.
 *
 * DOC: Syntax (vc4asm's, see its doc/directives.html; differences noted)
 *
 * One instruction per line: what qpu_disasm() prints ("add.setf ra1, r0,
 * 1; fmul r2, r3, r4; thrend"), plus "mov" of any immediate (a load) and
 * "mov -, sacq(n)". Comments: "#", "//", and C block comments that close on
 * their line. Labels "name:", ":name", "::name" (also global), numeric ":1"
 * used as "r:1f"/"r:1b"; "r:name" and "name" both refer to a label.
 * Expressions are C's operators on integers, floats, labels (byte
 * addresses) and registers ("ra0 + 2"), and vc4asm's VPM/VDW/VDR setup
 * functions (vpm_setup(), h32(), dma_h32(), vdr_setup_0() ...).
 * Registers: the core's names, "interrupt"/"host_int" (write),
 * "mutex_acq" (read), "mutex_rel" (write). Suffixes: conditions, pack and
 * unpack names with vc4asm's spellings ("16ai", "8888s", "8aclamp", "32");
 * a name that does not say the unit ("8a", "8888") packs in regfile A for
 * the add ALU or a mul ALU writing regfile A, else in the mul ALU.
 * Rotation: an input "r1 << n", "r1 >> n", "r1 << r5"; a mul result
 * "ra0 << n" (the same as the inputs ">> n") or "ra0 >> r5". An input
 * "r1 >> r5" is refused, as vc4asm's code (not its manual) does.
 *
 * Directives: .set/.equ/.define/.const and .lset/.lconst (scoped to the
 * file, macro call, loop or function call), .unset/.undef/.lunset;
 * ".set f(x) expr" and .func f(x) ... .endf functions (their bodies may use
 * .if, .set and friends, .assert and give one expression); .macro ... .endm
 * (parameters are substituted as text); .rep [i,] n ... .endr;
 * .foreach v, values... ... .endfor (or .endr); .if/.elif/.elseif/.else/
 * .endif, .ifset/.ifnset/.ifdef/.ifndef; .include "file" or <file>; data
 * .bit .int2 .int4 .byte .short/.word .int/.dword .long/.qword/.quad,
 * .half .float .double (packed from bit 0 of a word up; an instruction
 * after data starts a new word); .align bytes[, base]; .assert; .global
 * (checked, no effect: we write no ELF); .back n ... .endb; .code/.text/
 * .rodata (no effect); .error "text". Not supported: .local/.endloc,
 * .clone, and .org (vc4asm has none).
 *
 * Errors: each gives up its line only; a run reports up to
 * QPU_ASM_MAX_ERRORS of them, a line repeated by a loop once. Errors of
 * the first pass do not end the run: the second reports undefined symbols
 * and the other errors it finds with them (not again on a line the first
 * gave up), so one run lists every error of a file, as a compiler does. An .include of a file that is
 * already being included (recursion) or of a directory is an error; so is
 * one of a device, FIFO or socket, though the top file may be any of those.
 * Work has limits (below): nested loops whose counts multiply past
 * QPU_ASM_MAX_ITERATIONS, a pass reading more than QPU_ASM_MAX_LINES lines
 * or QPU_ASM_MAX_BYTES bytes of them (function bodies included) or running
 * more than QPU_ASM_MAX_INCLUDES includes, a file larger than
 * QPU_ASM_MAX_FILE_SIZE, expressions nested deeper than
 * QPU_ASM_MAX_EXPR_DEPTH and macro expansions longer than
 * QPU_ASM_MAX_LINE_LEN are errors at the line that exceeds them.
 */
#ifndef QPU_ASM_H
#define QPU_ASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Limits; exceeding one is an error at the line that did. */
#define QPU_ASM_MAX_DEPTH	64		/* nested includes, macros, .rep */
#define QPU_ASM_MAX_REPEAT	65536		/* count of one .rep */
#define QPU_ASM_MAX_WORDS	(1u << 20)	/* words of one program */
#define QPU_ASM_MAX_INCLUDE_DIRS 32
#define QPU_ASM_MAX_ERRORS	20		/* then the run stops */
#define QPU_ASM_MAX_WARNINGS	100		/* then they are dropped */
/*
 * Limits on the work of one pass, so that no source (fuzzed, or an include
 * or loop gone wrong) runs for hours or exhausts memory. Exceeding
 * QPU_ASM_MAX_LINES or QPU_ASM_MAX_BYTES (which counts the bytes of the
 * files read too) stops the run.
 */
#define QPU_ASM_MAX_EXPR_DEPTH	256		/* nested (), unary ops, calls */
#define QPU_ASM_MAX_FILE_SIZE	(16u << 20)	/* bytes of one source file */
#define QPU_ASM_MAX_LINE_LEN	(64u << 10)	/* a line after macro arguments */
#define QPU_ASM_MAX_ITERATIONS	(1u << 21)	/* product of nested loop counts */
#define QPU_ASM_MAX_INCLUDES	4096		/* .include run in one pass */
#define QPU_ASM_MAX_LINES	(1u << 21)	/* lines read in one pass */
#define QPU_ASM_MAX_BYTES	(256u << 20)	/* bytes of those lines */

/**
 * struct qpu_asm_loc - where a word (or a macro call) was written
 * @file: source file name, as in diagnostics
 * @line: 1-based line; inside a macro, the line of the macro's body
 * @col: 1-based column of the instruction's first token (its mnemonic,
 *	or the directive that emitted the word)
 * @expanded_from: the macro call this line was expanded from, or NULL
 *	outside macros; follow it for nested calls
 * @macro: on a call site (a loc reached through @expanded_from), the name
 *	of the macro called there; NULL on a word's own loc
 *
 * Locs and the strings they point to belong to the assembler and live
 * until the next run or qpu_asm_free().
 */
struct qpu_asm_loc {
	const char *file;
	unsigned int line;
	unsigned int col;
	const struct qpu_asm_loc *expanded_from;
	const char *macro;
};

/**
 * struct qpu_asm_diag - one diagnostic
 * @file: source file name as given (or as found on the search path)
 * @line: 1-based line
 * @col: 1-based column of the offending token (in a macro body: of the
 *	body as written, not as substituted)
 * @warning: a warning, not an error
 * @msg: text without location or "error:" prefix
 * @expanded_from: for an error inside a macro body, the macro call (see
 *	struct qpu_asm_loc), else NULL
 *
 * The strings belong to the assembler and live until the next run or
 * qpu_asm_free().
 */
struct qpu_asm_diag {
	const char *file;
	unsigned int line;
	unsigned int col;
	bool warning;
	const char *msg;
	const struct qpu_asm_loc *expanded_from;
};

/**
 * struct qpu_asm - an assembler (opaque): include directories, and the
 * words, locations and diagnostics of its last run.
 */
struct qpu_asm;

/**
 * qpu_asm_new() - make an assembler
 *
 * Return: an assembler the caller frees with qpu_asm_free(), or NULL with
 * errno set (ENOMEM).
 */
QPU_API struct qpu_asm *qpu_asm_new(void);

/**
 * qpu_asm_free() - free an assembler and everything its runs returned
 * @as: the assembler, or NULL
 */
QPU_API void qpu_asm_free(struct qpu_asm *as);

/**
 * qpu_asm_add_include_dir() - search @dir for .include files
 * @as: the assembler
 * @dir: a directory, searched after the including file's own, in the order
 *	added; copied
 *
 * Return: 0, -E2BIG past QPU_ASM_MAX_INCLUDE_DIRS, -ENOMEM.
 */
QPU_API int qpu_asm_add_include_dir(struct qpu_asm *as, const char *dir);

/**
 * qpu_asm_default_include_dir() - where .include looks after the -I dirs
 * @i: which directory, from 0
 * @buf: where its name goes
 * @size: @buf's size
 *
 * After the directories of qpu_asm_add_include_dir(), every assembler
 * searches the entries of $QPU_INCLUDE (colon-separated), then the
 * directory libqpu's include files are installed in (vpm.qinc, dma.qinc,
 * exit.qinc...: /usr/local/share/qpu/qasm for PREFIX=/usr/local). New in
 * 0.4.
 *
 * Return: the length of the name written to @buf, -ENOENT past the last
 * directory, -ENAMETOOLONG when @buf is too small.
 */
QPU_API int qpu_asm_default_include_dir(size_t i, char *buf, size_t size);

/**
 * qpu_asm_file() - assemble a file
 * @as: the assembler
 * @path: the top source file
 *
 * The words, locations and diagnostics of an earlier run are freed.
 *
 * Return: 0; -EINVAL if the source has an error (see qpu_asm_diags());
 * -ENOENT and friends if the top file cannot be read; -ENOMEM. The words
 * of a failed run are discarded.
 */
QPU_API int qpu_asm_file(struct qpu_asm *as, const char *path);

/**
 * qpu_asm_string() - assemble source held in memory
 * @as: the assembler
 * @name: the file name diagnostics give it
 * @text: the source, NUL-terminated
 *
 * Return: as qpu_asm_file().
 */
QPU_API int qpu_asm_string(struct qpu_asm *as, const char *name,
			   const char *text);

/**
 * qpu_asm_words() - the words of the last successful run
 * @as: the assembler
 * @words: where the array's address goes; owned by @as, valid until its
 *	next run or qpu_asm_free()
 *
 * Return: the number of words (0 after a failed run).
 */
QPU_API size_t qpu_asm_words(const struct qpu_asm *as, const uint64_t **words);

/**
 * qpu_asm_locs() - where each word of the last successful run came from
 * @as: the assembler
 * @locs: where the array's address goes: one per word, in the order of
 *	qpu_asm_words(); owned by @as, valid until its next run or
 *	qpu_asm_free()
 *
 * Return: the number of locations, that of the words.
 */
QPU_API size_t qpu_asm_locs(const struct qpu_asm *as,
			    const struct qpu_asm_loc **locs);

/**
 * qpu_asm_diags() - the errors and warnings of the last run, in order
 * @as: the assembler
 * @diags: where the array's address goes; owned by @as, valid until its
 *	next run or qpu_asm_free()
 *
 * Return: the number of diagnostics.
 */
QPU_API size_t qpu_asm_diags(const struct qpu_asm *as,
			     const struct qpu_asm_diag **diags);

/**
 * qpu_asm_set_gen() - the instruction set of the lines that follow
 * @as: the assembler
 * @gen: QPU_GEN_VC4 (the default), QPU_GEN_V3D42 or QPU_GEN_V3D71
 *
 * V3D lines are in Mesa's disassembly syntax, as qpu_dis_word_gen() prints
 * them; labels, expressions, macros, includes and data directives are the
 * same for every generation. Applies to the next qpu_asm_file() or
 * qpu_asm_string().
 *
 * Return: 0, or -EINVAL for an unknown generation.
 */
QPU_API int qpu_asm_set_gen(struct qpu_asm *as, enum qpu_gen gen);

/**
 * qpu_asm_line_gen() - assemble one instruction line of a generation
 * @gen: QPU_GEN_VC4, QPU_GEN_V3D42 or QPU_GEN_V3D71
 * @text: the line
 * @word: where the word goes
 * @msg: where an error goes, as "line:col: message"
 * @msg_size: bytes at @msg
 *
 * As qpu_asm_line(), for any generation.
 *
 * Return: 0, or -EINVAL (unknown generation, or an error in @msg).
 */
QPU_API int qpu_asm_line_gen(enum qpu_gen gen, const char *text,
			     uint64_t *word, char *msg, size_t msg_size);

/**
 * qpu_asm_line() - assemble one instruction line, no labels defined
 * @text: the line
 * @word: where the word goes
 * @msg: where an error goes, as "line:col: message"
 * @msg_size: bytes at @msg
 *
 * Needs no assembler object; may be called from several threads at once.
 *
 * Return: 0, or -EINVAL with the message in @msg.
 */
QPU_API int qpu_asm_line(const char *text, uint64_t *word, char *msg,
			 size_t msg_size);

#ifdef __cplusplus
}
#endif

#endif /* QPU_ASM_H */
