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

/* v3dx_build.c */

#define QPU_V3DX_GEN_NAME(gen)	((gen) == QPU_V3DX_GEN_71 ? "V3D 7.1" : "V3D 4.2")

/* Operand slots in text order. */
enum {
	QPU_V3DX_SLOT_ADD_A, QPU_V3DX_SLOT_ADD_B, QPU_V3DX_SLOT_MUL_A,
	QPU_V3DX_SLOT_MUL_B,
};

/*
 * One instruction being built. Each call returns false with the reason in
 * @msg (the instruction is then unusable); encode gives the word.
 */
struct qpu_v3dx_build {
	enum qpu_v3dx_gen gen;
	struct qpu_v3dx_instr in;	/* a nop until the calls fill it */
	u32 sig;			/* signal bits, small immediates included */
	unsigned int nregs;		/* 4.2: register-file reads placed so far */
	char msg[160];
};

void qpu_v3dx_build_init(struct qpu_v3dx_build *b, enum qpu_v3dx_gen gen);
/* The add (or mul) operation @op, with a nop destination. */
bool qpu_v3dx_build_op(struct qpu_v3dx_build *b, bool mul, unsigned int op);
/* Source @slot: register rf@n, accumulator r@n, small immediate @idx. */
bool qpu_v3dx_build_src_rf(struct qpu_v3dx_build *b, int slot, unsigned int n);
bool qpu_v3dx_build_src_acc(struct qpu_v3dx_build *b, int slot, unsigned int n);
bool qpu_v3dx_build_src_imm(struct qpu_v3dx_build *b, int slot, unsigned int idx);
/* Whether accumulator r@n exists on this generation. */
bool qpu_v3dx_build_acc_ok(struct qpu_v3dx_build *b, unsigned int n);
bool qpu_v3dx_build_dst(struct qpu_v3dx_build *b, bool mul, unsigned int waddr,
			bool magic);
/* Signal @bit (one QPU_V3DX_SIG_*), writing @addr (-1: none); rot is by r5. */
bool qpu_v3dx_build_sig(struct qpu_v3dx_build *b, u32 bit, int addr, bool magic);
/* 4.2's rot signal by @amount, -16..15 without 0 (0 means by r5). */
bool qpu_v3dx_build_rot(struct qpu_v3dx_build *b, int amount);
/*
 * A branch on @cond to @bdi (an enum qpu_v3dx_branch_dest): @offset for an
 * absolute or relative one (a multiple of 8), rf@rf for the register file
 * (raddr_a). The uniform stream stays unless qpu_v3dx_build_branch_unif()
 * moves it to @bdu as well (rf@rf for the register file, which shares
 * raddr_a with the instruction target).
 */
bool qpu_v3dx_build_branch(struct qpu_v3dx_build *b, unsigned int cond,
			   unsigned int bdi, u32 offset, unsigned int rf);
bool qpu_v3dx_build_branch_msfign(struct qpu_v3dx_build *b,
				  unsigned int msfign);
bool qpu_v3dx_build_branch_unif(struct qpu_v3dx_build *b, unsigned int bdu,
				unsigned int rf);
/* Signal code, canonical form and the core's encoder. */
bool qpu_v3dx_build_encode(struct qpu_v3dx_build *b, u64 *word);

/* 4.2's rot: the rotation in raddr_b, as "rot" (by r5, 0) or "rot(N)". */
static inline int qpu_v3dx_rot_amount(unsigned int raddr_b)
{
	return raddr_b < 16 ? (int)raddr_b : (int)raddr_b - 32;
}

#endif /* LIBQPU_V3DX_H */
