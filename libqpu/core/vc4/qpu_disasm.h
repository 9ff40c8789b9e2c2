/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * One-word disassembler of the freestanding core: vc4asm syntax, written so
 * that the assembler can turn every line back into the same word.
 */
#ifndef QPU_DISASM_H
#define QPU_DISASM_H

#include "qpu_isa.h"

/**
 * DOC: text form
 *
 * The output is vc4asm syntax in which every encoded bit is visible, and
 * vc4asm (maazl/vc4asm, checked against its 2024 sources) assembles each
 * line back into the same word. Where vc4asm chooses a field itself, the
 * text leaves it no choice; where it cannot express a word, the word is
 * printed raw. The rules an assembler must follow:
 *
 * - ALU: "ADDOP; MULOP; read SRC; SIGNAL". The add operation comes first
 *   ("nop" when unused, so that a following op lands on the mul ALU); no
 *   mul part means mnop. An idle ALU that writes a register is "anop DEST"
 *   or "mnop DEST". "mov" is or (add) or v8min (mul) with equal inputs,
 *   never with an unpacked or immediate input.
 * - unif, vary, vpm and mutex read regfile A; the regfile-B reads of them
 *   are written rb32, rb35, rb48, rb51. Unused read addresses other than 39
 *   appear as "read SRC".
 * - ws is 0 unless a destination names one file (raN/rbN or a name that
 *   exists in one file only); when both names are shared and ws is 1, the
 *   first destination is written rbNN (raNN on the mul side alone).
 * - "-" (or ra39/rb39) is write address 39. Its condition is "never",
 *   except on the side that sets the flags (add, or mul when the add op is
 *   nop; the add side of ldi/sacq/srel), where it defaults to "always". A
 *   mul op with .setf and no add op carries "always" on the add side.
 * - Packs: regfile-A pack ("8asi" style for saturating bytes) on a regfile-A
 *   register; mul pack (pm=1) as "8888", "8asf".."8dsf". Unpack suffix on
 *   regfile-A registers 0..31 (pm=0) or on r4 (pm=1).
 * - Small immediates as "5", "-3", "2.0", "0.125"; rotations as "<< r5",
 *   ">> n" (1..7) or "<< n" (n = 16 - rotation, 1..8) on every mul source.
 * - "ldi|ldipes|ldipeu|sacq|srel[.setf] ADD_DEST[.cond][.pack]
 *   [, MUL_DEST[.cond][.pack]], VALUE"; the mul destination is present when
 *   it is not 39 or carries a pack.
 * - Branch: "bra|brr[.cond] DEST[, MUL_DEST, -|raN], [raN,] TARGET"; brr
 *   targets are signed byte offsets ("+32"), bra targets hex.
 * - Raw: ".long 0xHHHHHHHHLLLLLLLL" (vc4asm's .long is 64 bits) for reserved
 *   values, fields the text cannot show, and forms vc4asm changes (an op on
 *   two equal immediates, sub/xor/v8subs of equal inputs, a float shift
 *   count) or refuses (unpack beside "read", integer regfile-A unpack with a
 *   float op on the other ALU).
 */

#define QPU_DISASM_BUF_SIZE	192	/* enough for any instruction */

/* Flags of qpu_disasm(). */
#define QPU_DISASM_TARGET	QPU_ISA_BIT(0)	/* append "# 0xADDR" to branches */

int qpu_disasm(u64 word, u32 addr, unsigned int flags, char *buf, size_t size);

#endif /* QPU_DISASM_H */
