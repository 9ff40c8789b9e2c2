/* SPDX-License-Identifier: MIT */
/*
 * Private declarations of libqpu's V3D 4.2/7.1 toolkit, over the core's
 * codec (v3d/qpu_v3dx_isa.h), one block per defining file.
 */
#ifndef LIBQPU_V3DX_H
#define LIBQPU_V3DX_H

#include <stddef.h>
#include <stdint.h>

#include "v3d/qpu_v3dx_isa.h"

/* v3dx_dis.c */

/* The longest text qpu_v3dx_disasm() writes, NUL excluded (QPU_DIS_BUF_SIZE). */
#define QPU_V3DX_DIS_LINE_MAX	191

/* Flags of qpu_v3dx_disasm(). */
#define QPU_V3DX_DIS_TARGET	(1u << 0)	/* "# 0xADDR" after branches */

/*
 * The text of @w in Mesa's disassembly syntax, or ".long 0x..." with a
 * comment for a word that is invalid (the reason) or whose text would
 * assemble to another word (that text). Returns the length of the whole
 * text (snprintf's count).
 */
int qpu_v3dx_disasm(enum qpu_v3dx_gen gen, uint64_t w, uint32_t addr,
		    unsigned int flags, char *buf, size_t size);

/*
 * The Mesa text of the decoded @in, nothing else: false if a field has no
 * name (a reserved magic address), and the text is then unusable.
 */
bool qpu_v3dx_format(enum qpu_v3dx_gen gen, const struct qpu_v3dx_instr *in,
		     char *buf, size_t size);

/* The target of a relative branch at @addr: past its 3 delay slots. */
static inline uint32_t qpu_v3dx_branch_target(uint32_t addr, uint32_t offset)
{
	return addr + 4 * 8 + offset;
}

#endif /* LIBQPU_V3DX_H */
