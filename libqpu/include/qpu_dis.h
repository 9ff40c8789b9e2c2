/* SPDX-License-Identifier: MIT */
/*
 * libqpu: the disassembler. One 64-bit VideoCore IV QPU word in, one line
 * of assembler text out, in the syntax qpu_asm.h reads (and vc4asm's), so
 * that every line assembles back into the same word. qpu-dis, qpu-check and
 * qpu-run print with it. It needs no device.
 *
 * Conventions are those of qpu.h. The functions keep no state and may be
 * called from several threads at once.
 */
#ifndef QPU_DIS_H
#define QPU_DIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/** QPU_DIS_BUF_SIZE - bytes that hold the text of any instruction */
#define QPU_DIS_BUF_SIZE	192

/**
 * QPU_DIS_TARGET - flag of qpu_dis_word(): append "# 0xADDR", the
 * absolute target, to relative branches
 */
#define QPU_DIS_TARGET		(1u << 0)

/**
 * qpu_dis_word() - one instruction word as assembler text
 * @word: the instruction
 * @addr: its byte address, for QPU_DIS_TARGET
 * @flags: 0 or QPU_DIS_TARGET
 * @buf: the caller's buffer, receiving the text NUL-terminated (when
 *	@size is not 0)
 * @size: bytes at @buf; QPU_DIS_BUF_SIZE is always enough
 *
 * Every word has a text: reserved encodings are written raw (".long").
 *
 * Return: the length of the whole text, as snprintf() counts it, or
 * -EINVAL for an unknown flag.
 */
QPU_API int qpu_dis_word(uint64_t word, uint32_t addr, unsigned int flags,
			 char *buf, size_t size);

/**
 * qpu_dis_word_gen() - one instruction word of a generation as text
 * @gen: QPU_GEN_VC4 (then as qpu_dis_word()), QPU_GEN_V3D42 or QPU_GEN_V3D71
 * @word: the instruction
 * @addr: its byte address, for QPU_DIS_TARGET
 * @flags: 0 or QPU_DIS_TARGET
 * @buf: the caller's buffer, receiving the text NUL-terminated (when
 *	@size is not 0)
 * @size: bytes at @buf; QPU_DIS_BUF_SIZE is always enough
 * V3D words that are invalid, or whose Mesa text would assemble to another
 * word, are written ".long 0x...  # why".
 * Return: the length of the whole text, as snprintf() counts it, or
 * -EINVAL for an unknown generation or flag.
 */
QPU_API int qpu_dis_word_gen(enum qpu_gen gen, uint64_t word,
			     uint32_t addr, unsigned int flags, char *buf,
			     size_t size);

/**
 * qpu_dis_write_reg_name() - the assembler's name of a write address
 * @waddr: the write address, 0 to 63
 * @file_b: of regfile B (else A)
 *
 * For printing the writes a program makes (qpu_emulator_set_trace()).
 *
 * Return: a static string such as "ra3", "r1", "tmu0_s" or "vpm"; NULL for
 * @waddr past 63.
 */
QPU_API const char *qpu_dis_write_reg_name(unsigned int waddr, bool file_b);

#ifdef __cplusplus
}
#endif

#endif /* QPU_DIS_H */
