/* SPDX-License-Identifier: MIT */
/*
 * The V3D 4.2/7.1 instruction builder (instr_build_v3d.c) that the text
 * assembler and the C emitter lower into, over the core's codec.
 */
#ifndef LIBQPU_INSTR_BUILD_V3D_H
#define LIBQPU_INSTR_BUILD_V3D_H

#include <stddef.h>
#include <stdint.h>

#include "v3d/qpu_v3d_codec.h"

/* The target of a relative branch at @addr: past its 3 delay slots. */
static inline uint32_t qpu_v3d_branch_target(uint32_t addr, uint32_t offset)
{
	return addr + 4 * 8 + offset;
}

#define QPU_V3D_GEN_NAME(gen)	((gen) == QPU_GEN_V3D71 ? "V3D 7.1" : "V3D 4.2")

/* Operand slots in text order. */
enum {
	QPU_V3D_SLOT_ADD_A, QPU_V3D_SLOT_ADD_B, QPU_V3D_SLOT_MUL_A,
	QPU_V3D_SLOT_MUL_B,
};

/*
 * One instruction being built. Each call returns false with the reason in
 * @msg (the instruction is then unusable); encode gives the word.
 */
struct qpu_v3d_build {
	enum qpu_gen gen;
	struct qpu_v3d_instr in;	/* a nop until the calls fill it */
	u32 sig;			/* signal bits, small immediates included */
	unsigned int nregs;		/* 4.2: register-file reads placed so far */
	unsigned int ports;		/* 4.2: bit 0/1, raddr_a/b named by a read */
	char msg[160];
};

void qpu_v3d_build_init(struct qpu_v3d_build *b, enum qpu_gen gen);
/* The add (or mul) operation @op, with a nop destination. */
bool qpu_v3d_build_op(struct qpu_v3d_build *b, bool mul, unsigned int op);
/* Source @slot: register rf@n, accumulator r@n, small immediate @idx. */
bool qpu_v3d_build_src_rf(struct qpu_v3d_build *b, int slot, unsigned int n);
/*
 * 4.2: register rf@n read through read address a (@port 0) or b (1), as
 * "rfN.a"/"rfN.b" say; then every register-file read of the instruction
 * names its port and the word keeps them (qpu_v3d_encode_ported()).
 */
bool qpu_v3d_build_src_rf_port(struct qpu_v3d_build *b, int slot,
			       unsigned int n, unsigned int port);
bool qpu_v3d_build_src_acc(struct qpu_v3d_build *b, int slot, unsigned int n);
bool qpu_v3d_build_src_imm(struct qpu_v3d_build *b, int slot, unsigned int idx);
/* Whether accumulator r@n exists on this generation. */
bool qpu_v3d_build_acc_ok(struct qpu_v3d_build *b, unsigned int n);
bool qpu_v3d_build_dst(struct qpu_v3d_build *b, bool mul, unsigned int waddr,
		       bool magic);
/* Signal @bit (one QPU_V3D_SIG_*), writing @addr (-1: none); rot is by r5. */
bool qpu_v3d_build_sig(struct qpu_v3d_build *b, u32 bit, int addr, bool magic);
/* 4.2's rot signal by @amount, -16..15 without 0 (0 means by r5). */
bool qpu_v3d_build_rot(struct qpu_v3d_build *b, int amount);
/*
 * A branch on @cond to @bdi (an enum qpu_v3d_br_dest): @offset for an
 * absolute or relative one (a multiple of 8), rf@rf for the register file
 * (raddr_a). The uniform stream stays unless qpu_v3d_build_branch_unif()
 * moves it to @bdu as well (rf@rf for the register file, which shares
 * raddr_a with the instruction target).
 */
bool qpu_v3d_build_branch(struct qpu_v3d_build *b, unsigned int cond,
			  unsigned int bdi, u32 offset, unsigned int rf);
bool qpu_v3d_build_branch_msfign(struct qpu_v3d_build *b,
				 unsigned int msfign);
bool qpu_v3d_build_branch_unif(struct qpu_v3d_build *b, unsigned int bdu,
			       unsigned int rf);
/* Bit 23: the branch writes the link register (py-videocore's set_link). */
bool qpu_v3d_build_branch_link(struct qpu_v3d_build *b);
/* bdu @bdu without ub (the hardware ignores it; py-videocore sets 1). */
bool qpu_v3d_build_branch_bdu(struct qpu_v3d_build *b, unsigned int bdu);
/* Signal code, canonical form and the core's encoder. */
bool qpu_v3d_build_encode(struct qpu_v3d_build *b, u64 *word);

/* 4.2's rot: the rotation in raddr_b, as "rot" (by r5, 0) or "rot(N)". */
static inline int qpu_v3d_rot_amount(unsigned int raddr_b)
{
	return raddr_b < 16 ? (int)raddr_b : (int)raddr_b - 32;
}

#endif /* LIBQPU_INSTR_BUILD_V3D_H */
