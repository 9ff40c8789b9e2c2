/* SPDX-License-Identifier: MIT */
/*
 * libqpu: the C emitter API for V3D 4.2 (Raspberry Pi 4) and 7.1 (Pi 5),
 * in the spirit of qpu_emit.h for VideoCore IV:
 *
 *	struct qpu_v3d_emit *e = qpu_v3d_emit_new(QPU_GEN_V3D71);
 *
 *	qpu_v3d_emit_ldunif(e, QPU_V3D_RF(1));
 *	qpu_v3d_emit_label(e, "loop");
 *	qpu_v3d_emit_add(e, QPU_V3D_A_SUB, QPU_V3D_RF(1), QPU_V3D_RF(1),
 *			 qpu_v3d_imm(1));
 *	qpu_v3d_emit_flags(e, QPU_V3D_PF_PUSHZ, QPU_V3D_UF_NONE);
 *	qpu_v3d_emit_branch(e, QPU_V3D_BR_ANYNA, "loop");
 *	qpu_v3d_emit_nop(e); qpu_v3d_emit_nop(e); qpu_v3d_emit_nop(e);
 *	if (qpu_v3d_emit_finish(e))
 *		fprintf(stderr, "%s\n", qpu_v3d_emit_error(e, NULL));
 *
 * Each call that starts an instruction leaves it open, so that the other
 * ALU, a condition, flags or signals can still be added; the next one
 * closes it. Instructions go through the instruction builder the text
 * assembler uses (qpu_asm_set_gen()) and the core's encoder: a program
 * built here is word for word the one its disassembly assembles to, and
 * what the encoder refuses is refused here. Errors are sticky: the first
 * is kept as "instruction N: what is wrong" and later calls do nothing.
 *
 * The conventions of qpu.h hold. A struct qpu_v3d_emit is not thread-safe.
 */
#ifndef QPU_EMIT_V3D_H
#define QPU_EMIT_V3D_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "qpu.h"
#include "qpu_v3d_fields.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --- operands ------------------------------------------------------------ */

/* What a struct qpu_v3d_reg names. */
enum qpu_v3d_reg_kind {
	QPU_V3D_REG_NONE,	/* nothing: an operand the operation ignores */
	QPU_V3D_REG_RF,		/* register file rf0..rf63 */
	QPU_V3D_REG_ACC,	/* accumulator r0..r5 (4.2 only) */
	QPU_V3D_REG_IMM,	/* small immediate (sources only) */
	QPU_V3D_REG_MAGIC,	/* magic write address (destinations only) */
};

/* Small immediate index of a value that has none. */
#define QPU_V3D_IMM_INVALID	0xff

/**
 * struct qpu_v3d_reg - an operand
 * @kind: an enum qpu_v3d_reg_kind
 * @addr: register number, accumulator number, small-immediate index
 *	(0..47, QPU_V3D_IMM_INVALID for a value that has none) or magic
 *	write address (an enum qpu_v3d_waddr)
 * @pack: destinations: an enum qpu_v3d_pack
 * @unpack: sources: an enum qpu_v3d_unpack
 *
 * Make them with the macros and functions below.
 */
struct qpu_v3d_reg {
	uint8_t kind;
	uint8_t addr;
	uint8_t pack;
	uint8_t unpack;
};

static inline struct qpu_v3d_reg qpu_v3d_reg_make(unsigned int kind,
						  unsigned int addr)
{
	struct qpu_v3d_reg r = { (uint8_t)kind, (uint8_t)addr, 0, 0 };

	return r;
}

#ifdef __cplusplus
#define QPU_V3D_REG_CONST(kind, addr)	qpu_v3d_reg_make(kind, addr)
#else
#define QPU_V3D_REG_CONST(kind, addr)	((struct qpu_v3d_reg){ (kind), (addr), 0, 0 })
#endif

/* The register file, rf0..rf63. */
#define QPU_V3D_RF(n)		QPU_V3D_REG_CONST(QPU_V3D_REG_RF, (n))
/* Accumulators, 4.2 only (r4: SFU results, r5: ldunif). */
#define QPU_V3D_R0		QPU_V3D_REG_CONST(QPU_V3D_REG_ACC, 0)
#define QPU_V3D_R1		QPU_V3D_REG_CONST(QPU_V3D_REG_ACC, 1)
#define QPU_V3D_R2		QPU_V3D_REG_CONST(QPU_V3D_REG_ACC, 2)
#define QPU_V3D_R3		QPU_V3D_REG_CONST(QPU_V3D_REG_ACC, 3)
#define QPU_V3D_R4		QPU_V3D_REG_CONST(QPU_V3D_REG_ACC, 4)
#define QPU_V3D_R5		QPU_V3D_REG_CONST(QPU_V3D_REG_ACC, 5)
/* No operand. */
#define QPU_V3D_NONE		QPU_V3D_REG_CONST(QPU_V3D_REG_NONE, 0)
/* A magic write address; QPU_V3D_NOP ("-") writes nothing. */
#define QPU_V3D_MAGIC(w)	QPU_V3D_REG_CONST(QPU_V3D_REG_MAGIC, (w))
#define QPU_V3D_NOP		QPU_V3D_MAGIC(QPU_V3D_W_NOP)
#define QPU_V3D_TMUD		QPU_V3D_MAGIC(QPU_V3D_W_TMUD)
#define QPU_V3D_TMUA		QPU_V3D_MAGIC(QPU_V3D_W_TMUA)
#define QPU_V3D_TMUAU		QPU_V3D_MAGIC(QPU_V3D_W_TMUAU)
#define QPU_V3D_TMUL		QPU_V3D_MAGIC(QPU_V3D_W_TMUL)
#define QPU_V3D_UNIFA		QPU_V3D_MAGIC(QPU_V3D_W_UNIFA)
#define QPU_V3D_TLB		QPU_V3D_MAGIC(QPU_V3D_W_TLB)
#define QPU_V3D_TLBU		QPU_V3D_MAGIC(QPU_V3D_W_TLBU)
#define QPU_V3D_VPM		QPU_V3D_MAGIC(QPU_V3D_W_VPM)
#define QPU_V3D_VPMU		QPU_V3D_MAGIC(QPU_V3D_W_VPMU)
#define QPU_V3D_SYNC		QPU_V3D_MAGIC(QPU_V3D_W_SYNC)
#define QPU_V3D_SYNCU		QPU_V3D_MAGIC(QPU_V3D_W_SYNCU)
#define QPU_V3D_SYNCB		QPU_V3D_MAGIC(QPU_V3D_W_SYNCB)
#define QPU_V3D_RECIP		QPU_V3D_MAGIC(QPU_V3D_W_RECIP)
#define QPU_V3D_RSQRT		QPU_V3D_MAGIC(QPU_V3D_W_RSQRT)
#define QPU_V3D_EXP		QPU_V3D_MAGIC(QPU_V3D_W_EXP)
#define QPU_V3D_LOG		QPU_V3D_MAGIC(QPU_V3D_W_LOG)
#define QPU_V3D_SIN		QPU_V3D_MAGIC(QPU_V3D_W_SIN)
#define QPU_V3D_RSQRT2		QPU_V3D_MAGIC(QPU_V3D_W_RSQRT2)

/**
 * qpu_v3d_imm() - an integer small immediate
 * @value: -16..15; anything else makes the instruction using it an error
 */
static inline struct qpu_v3d_reg qpu_v3d_imm(int value)
{
	return qpu_v3d_reg_make(QPU_V3D_REG_IMM, value >= -16 && value <= 15 ?
				(unsigned int)value & 31 : QPU_V3D_IMM_INVALID);
}

/**
 * qpu_v3d_immf() - a float small immediate
 * @value: a power of two from 2^-8 to 2^7; anything else makes the
 *	instruction using it an error
 */
static inline struct qpu_v3d_reg qpu_v3d_immf(float value)
{
	uint32_t bits;
	int exp;

	memcpy(&bits, &value, sizeof(bits));
	exp = (int)(bits >> 23) - 127;
	return qpu_v3d_reg_make(QPU_V3D_REG_IMM,
				!(bits & 0x807fffffu) && exp >= -8 && exp <= 7 ?
				(unsigned int)(40 + exp) : QPU_V3D_IMM_INVALID);
}

/* @r written through @pack ("rf1.l"). */
static inline struct qpu_v3d_reg qpu_v3d_pack(struct qpu_v3d_reg r,
					      enum qpu_v3d_pack pack)
{
	r.pack = (uint8_t)pack;
	return r;
}

/* @r read through @unpack ("rf1.abs"). */
static inline struct qpu_v3d_reg qpu_v3d_unpack(struct qpu_v3d_reg r,
						enum qpu_v3d_unpack unpack)
{
	r.unpack = (uint8_t)unpack;
	return r;
}

/* --- the emitter --------------------------------------------------------- */

/** struct qpu_v3d_emit - a V3D program being built (opaque) */
struct qpu_v3d_emit;

/**
 * qpu_v3d_emit_new() - start a program
 * @gen: QPU_GEN_V3D42 or QPU_GEN_V3D71
 * Return: an emitter the caller frees with qpu_v3d_emit_free(), or NULL
 * with errno set (EINVAL for another generation, ENOMEM).
 */
QPU_API struct qpu_v3d_emit *qpu_v3d_emit_new(enum qpu_gen gen);

/** qpu_v3d_emit_free() - free @e and its words; NULL is allowed */
QPU_API void qpu_v3d_emit_free(struct qpu_v3d_emit *e);

/**
 * qpu_v3d_emit_finish() - end the program: close the last instruction,
 *	resolve labels
 * @e: the emitter; nothing can be added afterwards
 * Return: 0; -EINVAL if a call failed or a label is undefined (see
 * qpu_v3d_emit_error()); -ENOMEM.
 */
QPU_API int qpu_v3d_emit_finish(struct qpu_v3d_emit *e);

/**
 * qpu_v3d_emit_words() - the program
 * @e: the emitter
 * @count: where the number of 64-bit words goes
 * Return: the words, owned by @e and valid until qpu_v3d_emit_free(); NULL
 * (and a count of 0) unless qpu_v3d_emit_finish() succeeded.
 */
QPU_API const uint64_t *qpu_v3d_emit_words(const struct qpu_v3d_emit *e,
					   size_t *count);

/**
 * qpu_v3d_emit_error() - the first error
 * @e: the emitter
 * @index: NULL, or where the index of the instruction it concerns goes
 * Return: "instruction N: what is wrong", owned by @e and valid until
 * qpu_v3d_emit_free(), or NULL if there was no error.
 */
QPU_API const char *qpu_v3d_emit_error(const struct qpu_v3d_emit *e,
				       size_t *index);

/** qpu_v3d_emit_count() - instructions so far: the index of the next one */
QPU_API size_t qpu_v3d_emit_count(const struct qpu_v3d_emit *e);

/*
 * ALU operations. qpu_v3d_emit_add() and qpu_v3d_emit_mul() start an
 * instruction whose other ALU is a nop ("fadd rf1, rf2, rf3 ; nop");
 * qpu_v3d_emit_dual_add() and qpu_v3d_emit_dual_mul() put the operation on
 * the idle ALU of the open instruction ("... ; fmul rf4, rf2, 2.0").
 * Operands an operation does not take are ignored. On 4.2 the sources of
 * both ALUs share two register-file read addresses, or one and a small
 * immediate; on 7.1 each source has its own, and there are no
 * accumulators.
 */
QPU_API void qpu_v3d_emit_add(struct qpu_v3d_emit *e, enum qpu_v3d_add_op op,
			      struct qpu_v3d_reg d, struct qpu_v3d_reg a,
			      struct qpu_v3d_reg b);
QPU_API void qpu_v3d_emit_mul(struct qpu_v3d_emit *e, enum qpu_v3d_mul_op op,
			      struct qpu_v3d_reg d, struct qpu_v3d_reg a,
			      struct qpu_v3d_reg b);
QPU_API void qpu_v3d_emit_dual_add(struct qpu_v3d_emit *e,
				   enum qpu_v3d_add_op op, struct qpu_v3d_reg d,
				   struct qpu_v3d_reg a, struct qpu_v3d_reg b);
QPU_API void qpu_v3d_emit_dual_mul(struct qpu_v3d_emit *e,
				   enum qpu_v3d_mul_op op, struct qpu_v3d_reg d,
				   struct qpu_v3d_reg a, struct qpu_v3d_reg b);

/*
 * Modifiers of the operation placed last: its write condition ("fadd.ifa"),
 * and the flags it pushes or updates ("fadd.pushz", "fadd.andz"). Which
 * combinations of both ALUs exist is the encoder's rule.
 */
QPU_API void qpu_v3d_emit_cond(struct qpu_v3d_emit *e, enum qpu_v3d_cond cond);
QPU_API void qpu_v3d_emit_flags(struct qpu_v3d_emit *e, enum qpu_v3d_pf pf,
				enum qpu_v3d_uf uf);

/*
 * Signals of the open ALU instruction ("; thrsw ; ldtmu.rf3"): @sigs, one
 * or more enum qpu_v3d_sig bits; @d is the destination of the one that
 * writes a register, QPU_V3D_NONE if none does. qpu_v3d_emit_rot() adds
 * 4.2's rot signal, which rotates the mul result across the elements by
 * @amount (-16..15; 0 rotates by r5), "rot(N)" in the text.
 */
QPU_API void qpu_v3d_emit_sig(struct qpu_v3d_emit *e, unsigned int sigs,
			      struct qpu_v3d_reg d);
QPU_API void qpu_v3d_emit_rot(struct qpu_v3d_emit *e, int amount);

/*
 * Instructions of their own, both ALUs idle: "nop ; nop", "nop ; nop ;
 * thrsw", and the uniform loads "nop ; nop ; ldunif" (@d QPU_V3D_NONE:
 * to r5 on 4.2, rf0 on 7.1) or "ldunifrf.D", "ldunifa"/"ldunifarf.D" (from
 * the stream unifa points at) and "ldtmu.D" (a TMU result; @d required).
 * Each stays open for more.
 */
QPU_API void qpu_v3d_emit_nop(struct qpu_v3d_emit *e);
QPU_API void qpu_v3d_emit_thrsw(struct qpu_v3d_emit *e);
QPU_API void qpu_v3d_emit_ldunif(struct qpu_v3d_emit *e, struct qpu_v3d_reg d);
QPU_API void qpu_v3d_emit_ldunifa(struct qpu_v3d_emit *e, struct qpu_v3d_reg d);
QPU_API void qpu_v3d_emit_ldtmu(struct qpu_v3d_emit *e, struct qpu_v3d_reg d);

/*
 * Branches take effect after three more instructions (delay slots), which
 * run whether or not the branch is taken; the caller emits them, and the
 * offset counts from the end of them.
 * - qpu_v3d_emit_branch(): to @label, defined before or after ("b.anya
 *   loop");
 * - qpu_v3d_emit_branch_offset(): by @offset bytes, a multiple of 8;
 * - qpu_v3d_emit_branch_abs(): to address @addr, a multiple of 8
 *   ("b  zero_addr+0x100");
 * - qpu_v3d_emit_branch_lri(): to the link register ("b  lri");
 * - qpu_v3d_emit_branch_reg(): to the address in register @r, an rfN
 *   ("b  rf5").
 * Each stays open for the modifiers that follow:
 * - qpu_v3d_emit_branch_msfign(): the multisample-flag variant ("bp",
 *   "b.anyaq"), once;
 * - qpu_v3d_emit_branch_unif(): the uniform stream branches too ("bu"),
 *   to @dest: "a:unif" and "r:unif" take the new address, absolute or
 *   relative, from the next uniform; "lri"; or register @r ("rf5"), which
 *   must be the branch target's register if that is one too (both use one
 *   read address). @r is ignored for the other targets. Once.
 */
QPU_API void qpu_v3d_emit_branch(struct qpu_v3d_emit *e,
				 enum qpu_v3d_br_cond cond, const char *label);
QPU_API void qpu_v3d_emit_branch_offset(struct qpu_v3d_emit *e,
					enum qpu_v3d_br_cond cond,
					int32_t offset);
QPU_API void qpu_v3d_emit_branch_abs(struct qpu_v3d_emit *e,
				     enum qpu_v3d_br_cond cond, uint32_t addr);
QPU_API void qpu_v3d_emit_branch_lri(struct qpu_v3d_emit *e,
				     enum qpu_v3d_br_cond cond);
QPU_API void qpu_v3d_emit_branch_reg(struct qpu_v3d_emit *e,
				     enum qpu_v3d_br_cond cond,
				     struct qpu_v3d_reg r);
QPU_API void qpu_v3d_emit_branch_msfign(struct qpu_v3d_emit *e,
					enum qpu_v3d_msfign msfign);
QPU_API void qpu_v3d_emit_branch_unif(struct qpu_v3d_emit *e,
				      enum qpu_v3d_br_dest dest,
				      struct qpu_v3d_reg r);

/* A label for the next instruction: any name but "" (and NULL). */
QPU_API void qpu_v3d_emit_label(struct qpu_v3d_emit *e, const char *name);

/* A raw 64-bit word, as ".long" gives it. */
QPU_API void qpu_v3d_emit_raw(struct qpu_v3d_emit *e, uint64_t word);

#ifdef __cplusplus
}
#endif

#endif /* QPU_EMIT_V3D_H */
