/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * The V3D 4.2/7.1 codec (qpu_v3d_codec.c): signal codes, and a lossless
 * decoder and encoder between the 64-bit word and struct qpu_v3d_instr,
 * with the canonical form an assembler gives.
 */
#ifndef QPU_V3D_CODEC_H
#define QPU_V3D_CODEC_H

#include "v3d/qpu_v3d_isa.h"

/* The signal bits of @code, or 0 for a reserved code (0 is also none). */
u32 qpu_v3d_sig_bits(enum qpu_gen gen, unsigned int code);
/* The code of the signal set @bits, or -QPU_V3D_EINVAL. */
int qpu_v3d_sig_code(enum qpu_gen gen, u32 bits);

/*
 * qpu_v3d_decode() - split @w into @in; returns QPU_V3D_VALID or why
 * the word is no instruction (@in is then partly filled).
 * qpu_v3d_encode() - the word of @in; 0 or -QPU_V3D_EINVAL when a field
 * has no encoding. Operand order is normalised first for the operations
 * whose order selects the opcode (fadd/faddnf, fmin/fmax): for every
 * valid w, decode then encode gives w back.
 */
enum qpu_v3d_invalid qpu_v3d_decode(enum qpu_gen gen, u64 w,
				    struct qpu_v3d_instr *in);
int qpu_v3d_encode(enum qpu_gen gen, const struct qpu_v3d_instr *in,
		   u64 *w);

/*
 * qpu_v3d_canonicalize() - reset the fields that the disassembly text does
 * not show (read addresses nothing reads, but for 4.2's raddr_b under the
 * rot signal, which holds the rotation; unused operand fields, the
 * destination of an operation without one, small-immediate signals of
 * unused operands, a branch's unused fields, and on 4.2 which read address
 * carries which register) to the values an assembler gives them. A word
 * whose text assembles back to it is one for which this changes nothing.
 */
void qpu_v3d_canonicalize(enum qpu_gen gen, struct qpu_v3d_instr *in);

/*
 * qpu_v3d_encode_canonical() - the word an assembler gives @in: its
 * canonical form encoded, then canonicalized and encoded again until the
 * word stays (the encoder's operand swap for fadd/faddnf and fmin/fmax can
 * move 4.2's read addresses after the canonical form placed them). 0 or
 * -QPU_V3D_EINVAL as qpu_v3d_encode(); @in is canonicalized.
 */
int qpu_v3d_encode_canonical(enum qpu_gen gen, struct qpu_v3d_instr *in,
			     u64 *w);

/*
 * qpu_v3d_encode_ported() - 4.2: the canonical form of @in encoded, but
 * with the read addresses and muxes of its register-file operands as @in
 * has them: the word of a text whose "rfN.a"/"rfN.b" operands name the
 * read address (a compiler's choice that differs from the canonical one:
 * Mesa's scheduler merges instructions with their raddrs already set). 0,
 * or -QPU_V3D_EINVAL on 7.1, for a branch or a field without encoding.
 */
int qpu_v3d_encode_ported(enum qpu_gen gen, const struct qpu_v3d_instr *in,
			  u64 *w);

#endif /* QPU_V3D_CODEC_H */
