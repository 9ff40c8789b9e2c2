/* SPDX-License-Identifier: MIT */
/*
 * libqpu: build V3D 4.2 (Pi 4) and 7.1 (Pi 5) code from C. Each call adds
 * one instruction, label or word; qpu_v3d_emit_finish() resolves labels
 * and gives the words. Instructions are written as the disassembler
 * prints them (Mesa's syntax, printf-style arguments), and go through the
 * same instruction builder as qpu_asm's V3D lines, so C-built and text
 * code cannot disagree. Conventions are those of qpu.h. An emitter is not
 * thread-safe; distinct emitters may be used from several threads.
 */
#ifndef QPU_EMIT_V3D_H
#define QPU_EMIT_V3D_H

#include <stddef.h>
#include <stdint.h>

#include "qpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/** struct qpu_v3d_emit - a V3D program being built (opaque) */
struct qpu_v3d_emit;

/**
 * qpu_v3d_emit_new() - start a program
 * @gen: QPU_GEN_V3D42 or QPU_GEN_V3D71
 *
 * Return: an emitter the caller frees with qpu_v3d_emit_free(), or NULL
 * with errno set (EINVAL for another generation, ENOMEM).
 */
QPU_API struct qpu_v3d_emit *qpu_v3d_emit_new(int gen);

/** qpu_v3d_emit_free() - free @e and its words (NULL is accepted) */
QPU_API void qpu_v3d_emit_free(struct qpu_v3d_emit *e);

/**
 * qpu_v3d_emit() - add one instruction
 * @e: the emitter
 * @fmt: the instruction, printf-style, one line such as
 *	"fadd rf%d, rf%d, rf%d ; nop" or "b.anya  loop"
 *
 * The line is checked when the program is finished, with labels known.
 *
 * Return: 0, or -EINVAL (a newline in the text, or @e failed before),
 * -ENOMEM.
 */
QPU_API int qpu_v3d_emit(struct qpu_v3d_emit *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/** qpu_v3d_emit_label() - a label for the next instruction; 0 or -errno */
QPU_API int qpu_v3d_emit_label(struct qpu_v3d_emit *e, const char *name);

/** qpu_v3d_emit_word() - add a raw 64-bit word; 0 or -errno */
QPU_API int qpu_v3d_emit_word(struct qpu_v3d_emit *e, uint64_t word);

/**
 * qpu_v3d_emit_finish() - resolve labels and give the words
 * @e: the emitter
 * @words: receives the words, valid until qpu_v3d_emit_free(@e); do not
 *	free them
 * @n: receives their number
 * @msg: receives the first error, as "call N: message" (N counts
 *	qpu_v3d_emit*() calls from 1), when not NULL
 * @msg_size: bytes at @msg
 *
 * Return: 0, or -EINVAL for an instruction that does not assemble.
 */
QPU_API int qpu_v3d_emit_finish(struct qpu_v3d_emit *e, const uint64_t **words,
				size_t *n, char *msg, size_t msg_size);

#ifdef __cplusplus
}
#endif

#endif /* QPU_EMIT_V3D_H */
