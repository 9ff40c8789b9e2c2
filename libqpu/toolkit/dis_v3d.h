/* SPDX-License-Identifier: MIT */
/*
 * The V3D 4.2/7.1 disassembler's private interface (dis_v3d.c), which the
 * public one (dis.c) wraps.
 */
#ifndef LIBQPU_DIS_V3D_H
#define LIBQPU_DIS_V3D_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "v3d/qpu_v3d_codec.h"

/* The longest text qpu_v3d_disasm() writes, NUL excluded (QPU_DIS_BUF_SIZE). */
#define QPU_V3D_DIS_LINE_MAX	191

/* Flags of qpu_v3d_disasm(). */
#define QPU_V3D_DIS_TARGET	(1u << 0)	/* "# 0xADDR" after branches */

/*
 * The text of @w in Mesa's disassembly syntax, or ".long 0x..." with a
 * comment for a word that is invalid (the reason) or whose text would
 * assemble to another word (that text). Returns the length of the whole
 * text (snprintf's count).
 */
int qpu_v3d_disasm(enum qpu_gen gen, uint64_t w, uint32_t addr,
		    unsigned int flags, char *buf, size_t size);

/*
 * The Mesa text of the decoded @in, nothing else: false if a field has no
 * name (a reserved magic address), and the text is then unusable.
 */
bool qpu_v3d_format(enum qpu_gen gen, const struct qpu_v3d_instr *in,
		     char *buf, size_t size);

#endif /* LIBQPU_DIS_V3D_H */
