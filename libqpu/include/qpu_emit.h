/* SPDX-License-Identifier: MIT */
/*
 * libqpu: the C assembler API, for QPU programs built at run time.
 *
 * A program is built by calls on a struct qpu_emit, one call per
 * instruction, in the spirit of PyVideoCore's assembler:
 *
 *	struct qpu_emit *e = qpu_emit_new();
 *
 *	qpu_emit_mov(e, QPU_RA(1), QPU_UNIF);
 *	qpu_emit_label(e, "loop");
 *	qpu_emit_isub(e, QPU_RA(1), QPU_RA(1), qpu_imm(1));
 *	qpu_emit_setf(e);
 *	qpu_emit_brr(e, QPU_BR_ANY_ZC, "loop");
 *	qpu_emit_nop(e); qpu_emit_nop(e); qpu_emit_nop(e);
 *	qpu_emit_thrend(e);
 *	if (qpu_emit_finish(e))
 *		fprintf(stderr, "%s\n", qpu_emit_error(e, NULL));
 *
 * Errors are sticky: the first one is kept with the index of its
 * instruction, every later call does nothing, and qpu_emit_finish() reports
 * it, so a sequence of calls needs no checks in between. Instructions are
 * encoded by the core's encoder (the one the text assembler uses), and each
 * builder makes the word the text assembler makes for the line its
 * comment shows, with one exception: qpu_emit_mov() of a small immediate is
 * an ALU "or" (it can share its instruction with a mul op), where the text
 * "mov r0, 5" is a load immediate.
 *
 * The conventions of qpu.h hold. A struct qpu_emit is not thread-safe.
 */
#ifndef QPU_EMIT_H
#define QPU_EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --- operands -------------------------------------------------------------- */

/* What a struct qpu_reg names. */
enum qpu_reg_kind {
	QPU_REG_ACC,		/* accumulator r0..r5 */
	QPU_REG_A,		/* regfile A address 0..63 */
	QPU_REG_B,		/* regfile B address 0..63 */
	QPU_REG_AB,		/* an address both files give the same meaning */
	QPU_REG_IMM,		/* a small immediate (source only) */
};

/* struct qpu_reg.access: how the name can be used. */
#define QPU_REG_READ	1u
#define QPU_REG_WRITE	2u
#define QPU_REG_RW	(QPU_REG_READ | QPU_REG_WRITE)

/* Small immediate index of a value that has none. */
#define QPU_IMM_INVALID	0xff

/**
 * struct qpu_reg - an operand: a register, with its pack, unpack or
 *	rotation, or a small immediate
 * @kind: an enum qpu_reg_kind
 * @addr: accumulator number, register address, or small-immediate index
 *	(QPU_IMM_INVALID for a value that has none)
 * @access: QPU_REG_READ, QPU_REG_WRITE or both
 * @pack: destinations: an enum qpu_pack
 * @unpack: sources: an enum qpu_unpack
 * @rot: mul ALU sources: rotation 1..15, 16 for "by r5", 0 for none
 *
 * Make them with the macros and functions below, not by hand.
 */
struct qpu_reg {
	uint8_t kind;
	uint8_t addr;
	uint8_t access;
	uint8_t pack;
	uint8_t unpack;
	uint8_t rot;
};

static inline struct qpu_reg qpu_reg_make(unsigned int kind, unsigned int addr,
					  unsigned int access)
{
	struct qpu_reg r = { (uint8_t)kind, (uint8_t)addr, (uint8_t)access, 0, 0, 0 };

	return r;
}

/* The constants below: a compound literal in C, a call in C++. */
#ifdef __cplusplus
#define QPU_REG_CONST(kind, addr, access)	qpu_reg_make(kind, addr, access)
#else
#define QPU_REG_CONST(kind, addr, access) \
	((struct qpu_reg){ (kind), (addr), (access), 0, 0, 0 })
#endif

/* Accumulators; r4 (SFU and TMU results) and r5 are read-only names. */
#define QPU_R0		QPU_REG_CONST(QPU_REG_ACC, 0, QPU_REG_RW)
#define QPU_R1		QPU_REG_CONST(QPU_REG_ACC, 1, QPU_REG_RW)
#define QPU_R2		QPU_REG_CONST(QPU_REG_ACC, 2, QPU_REG_RW)
#define QPU_R3		QPU_REG_CONST(QPU_REG_ACC, 3, QPU_REG_RW)
#define QPU_R4		QPU_REG_CONST(QPU_REG_ACC, 4, QPU_REG_READ)
#define QPU_R5		QPU_REG_CONST(QPU_REG_ACC, 5, QPU_REG_READ)

/* Physical registers: regfile A or B, 0..31. */
#define QPU_RA(n)	QPU_REG_CONST(QPU_REG_A, (n), QPU_REG_RW)
#define QPU_RB(n)	QPU_REG_CONST(QPU_REG_B, (n), QPU_REG_RW)

/* No register: "-" as a destination, nothing read as a source. */
#define QPU_NOP		QPU_REG_CONST(QPU_REG_AB, 39, QPU_REG_RW)

/* Read or written through either file (the text assembler's names). */
#define QPU_UNIF	QPU_REG_CONST(QPU_REG_AB, 32, QPU_REG_READ)	/* unif */
#define QPU_VARY	QPU_REG_CONST(QPU_REG_AB, 35, QPU_REG_READ)	/* vary */
#define QPU_VPM		QPU_REG_CONST(QPU_REG_AB, 48, QPU_REG_RW)	/* vpm */
#define QPU_MUTEX	QPU_REG_CONST(QPU_REG_AB, 51, QPU_REG_RW)	/* mutex */
#define QPU_TMURS	QPU_REG_CONST(QPU_REG_AB, 36, QPU_REG_WRITE)	/* tmurs */
#define QPU_HOST_INT	QPU_REG_CONST(QPU_REG_AB, 38, QPU_REG_WRITE)	/* irq */
#define QPU_TLB_STENCIL	QPU_REG_CONST(QPU_REG_AB, 43, QPU_REG_WRITE)	/* stencil */
#define QPU_TLB_Z	QPU_REG_CONST(QPU_REG_AB, 44, QPU_REG_WRITE)	/* tlbz */
#define QPU_TLB_COLOR_MS QPU_REG_CONST(QPU_REG_AB, 45, QPU_REG_WRITE)	/* tlbm */
#define QPU_TLB_COLOR_ALL QPU_REG_CONST(QPU_REG_AB, 46, QPU_REG_WRITE)	/* tlbc */
#define QPU_TLB_ALPHA_MASK QPU_REG_CONST(QPU_REG_AB, 47, QPU_REG_WRITE)	/* tlbam */
#define QPU_SFU_RECIP	QPU_REG_CONST(QPU_REG_AB, 52, QPU_REG_WRITE)	/* recip */
#define QPU_SFU_RECIPSQRT QPU_REG_CONST(QPU_REG_AB, 53, QPU_REG_WRITE)	/* recipsqrt */
#define QPU_SFU_EXP	QPU_REG_CONST(QPU_REG_AB, 54, QPU_REG_WRITE)	/* exp */
#define QPU_SFU_LOG	QPU_REG_CONST(QPU_REG_AB, 55, QPU_REG_WRITE)	/* log */
#define QPU_TMU0_S	QPU_REG_CONST(QPU_REG_AB, 56, QPU_REG_WRITE)	/* t0s */
#define QPU_TMU0_T	QPU_REG_CONST(QPU_REG_AB, 57, QPU_REG_WRITE)	/* t0t */
#define QPU_TMU0_R	QPU_REG_CONST(QPU_REG_AB, 58, QPU_REG_WRITE)	/* t0r */
#define QPU_TMU0_B	QPU_REG_CONST(QPU_REG_AB, 59, QPU_REG_WRITE)	/* t0b */
#define QPU_TMU1_S	QPU_REG_CONST(QPU_REG_AB, 60, QPU_REG_WRITE)	/* t1s */
#define QPU_TMU1_T	QPU_REG_CONST(QPU_REG_AB, 61, QPU_REG_WRITE)	/* t1t */
#define QPU_TMU1_R	QPU_REG_CONST(QPU_REG_AB, 62, QPU_REG_WRITE)	/* t1r */
#define QPU_TMU1_B	QPU_REG_CONST(QPU_REG_AB, 63, QPU_REG_WRITE)	/* t1b */

/* Regfile A only. */
#define QPU_ELEM_NUM	QPU_REG_CONST(QPU_REG_A, 38, QPU_REG_READ)	/* elem_num */
#define QPU_X_COORD	QPU_REG_CONST(QPU_REG_A, 41, QPU_REG_RW)		/* x_coord */
#define QPU_MS_MASK	QPU_REG_CONST(QPU_REG_A, 42, QPU_REG_RW)		/* ms_mask */
#define QPU_VR_BUSY	QPU_REG_CONST(QPU_REG_A, 49, QPU_REG_READ)	/* vr_busy */
#define QPU_VR_WAIT	QPU_REG_CONST(QPU_REG_A, 50, QPU_REG_READ)	/* vr_wait */
#define QPU_R5QUAD	QPU_REG_CONST(QPU_REG_A, 37, QPU_REG_WRITE)	/* r5quad */
#define QPU_UNIF_ADDR	QPU_REG_CONST(QPU_REG_A, 40, QPU_REG_WRITE)	/* unif_addr */
#define QPU_VR_SETUP	QPU_REG_CONST(QPU_REG_A, 49, QPU_REG_WRITE)	/* vr_setup */
#define QPU_VR_ADDR	QPU_REG_CONST(QPU_REG_A, 50, QPU_REG_WRITE)	/* vr_addr */

/* Regfile B only. */
#define QPU_QPU_NUM	QPU_REG_CONST(QPU_REG_B, 38, QPU_REG_READ)	/* qpu_num */
#define QPU_Y_COORD	QPU_REG_CONST(QPU_REG_B, 41, QPU_REG_RW)		/* y_coord */
#define QPU_REV_FLAG	QPU_REG_CONST(QPU_REG_B, 42, QPU_REG_RW)		/* rev_flag */
#define QPU_VW_BUSY	QPU_REG_CONST(QPU_REG_B, 49, QPU_REG_READ)	/* vw_busy */
#define QPU_VW_WAIT	QPU_REG_CONST(QPU_REG_B, 50, QPU_REG_READ)	/* vw_wait */
#define QPU_R5REP	QPU_REG_CONST(QPU_REG_B, 37, QPU_REG_WRITE)	/* r5rep */
#define QPU_UNIF_ADDR_REL QPU_REG_CONST(QPU_REG_B, 40, QPU_REG_WRITE)	/* unif_addr_rel */
#define QPU_VW_SETUP	QPU_REG_CONST(QPU_REG_B, 49, QPU_REG_WRITE)	/* vw_setup */
#define QPU_VW_ADDR	QPU_REG_CONST(QPU_REG_B, 50, QPU_REG_WRITE)	/* vw_addr */

/**
 * qpu_imm() - an integer small immediate
 * @value: -16..15; anything else makes the instruction using it an error
 */
static inline struct qpu_reg qpu_imm(int value)
{
	return qpu_reg_make(QPU_REG_IMM, value >= -16 && value <= 15 ?
			    (unsigned int)value & 31 : QPU_IMM_INVALID, QPU_REG_READ);
}

/**
 * qpu_immf() - a float small immediate
 * @value: a power of two from 1/256 to 128; anything else makes the
 *	instruction using it an error
 */
QPU_API struct qpu_reg qpu_immf(float value);

/* Regfile-A packs (on a regfile-A destination 0..31) and mul packs. */
enum qpu_pack {
	QPU_PACK_NONE,
	QPU_PACK_16A, QPU_PACK_16B, QPU_PACK_8888, QPU_PACK_8A, QPU_PACK_8B,
	QPU_PACK_8C, QPU_PACK_8D, QPU_PACK_32_SAT, QPU_PACK_16A_SAT,
	QPU_PACK_16B_SAT, QPU_PACK_8888_SAT, QPU_PACK_8A_SAT, QPU_PACK_8B_SAT,
	QPU_PACK_8C_SAT, QPU_PACK_8D_SAT,
	/* mul ALU float result to 8-bit colour, any destination */
	QPU_PACK_MUL_8888 = 16 + 3, QPU_PACK_MUL_8A, QPU_PACK_MUL_8B,
	QPU_PACK_MUL_8C, QPU_PACK_MUL_8D,
};

/* Unpack of a regfile-A source 0..31, or of r4. */
enum qpu_unpack {
	QPU_UNPACK_NONE, QPU_UNPACK_16A, QPU_UNPACK_16B, QPU_UNPACK_8D_REP,
	QPU_UNPACK_8A, QPU_UNPACK_8B, QPU_UNPACK_8C, QPU_UNPACK_8D,
};

/* @r written through @pack ("ra1.16a"). */
static inline struct qpu_reg qpu_pack(struct qpu_reg r, enum qpu_pack pack)
{
	r.pack = (uint8_t)pack;
	return r;
}

/* @r read through @unpack ("ra1.16a", "r4.8a"). */
static inline struct qpu_reg qpu_unpack(struct qpu_reg r, enum qpu_unpack unpack)
{
	r.unpack = (uint8_t)unpack;
	return r;
}

/*
 * A mul ALU source rotated by @n elements: element i reads element
 * (i - n) mod 16 ("r0 >> n"); @n is 1..15, and 0 means no rotation.
 */
static inline struct qpu_reg qpu_rot(struct qpu_reg r, unsigned int n)
{
	r.rot = (uint8_t)(n <= 15 ? n : 17);
	return r;
}

/* A mul ALU source rotated by r5's element 0 ("r0 << r5"). */
static inline struct qpu_reg qpu_rot_r5(struct qpu_reg r)
{
	r.rot = 16;
	return r;
}

/* --- instruction fields ------------------------------------------------------ */

/* Add ALU operations (the opcode values); 9..11 and 25..29 are reserved. */
enum qpu_add_op {
	QPU_ADD_NOP, QPU_ADD_FADD, QPU_ADD_FSUB, QPU_ADD_FMIN, QPU_ADD_FMAX,
	QPU_ADD_FMINABS, QPU_ADD_FMAXABS, QPU_ADD_FTOI, QPU_ADD_ITOF,
	QPU_ADD_ADD = 12, QPU_ADD_SUB, QPU_ADD_SHR, QPU_ADD_ASR, QPU_ADD_ROR,
	QPU_ADD_SHL, QPU_ADD_MIN, QPU_ADD_MAX, QPU_ADD_AND, QPU_ADD_OR,
	QPU_ADD_XOR, QPU_ADD_NOT, QPU_ADD_CLZ,
	QPU_ADD_V8ADDS = 30, QPU_ADD_V8SUBS,
};

/* Mul ALU operations. */
enum qpu_mul_op {
	QPU_MUL_NOP, QPU_MUL_FMUL, QPU_MUL_MUL24, QPU_MUL_V8MULD,
	QPU_MUL_V8MIN, QPU_MUL_V8MAX, QPU_MUL_V8ADDS, QPU_MUL_V8SUBS,
};

/* Write conditions (".ifz" and so on). */
enum qpu_cond {
	QPU_COND_NEVER, QPU_COND_ALWAYS, QPU_COND_ZS, QPU_COND_ZC,
	QPU_COND_NS, QPU_COND_NC, QPU_COND_CS, QPU_COND_CC,
};

/* Branch conditions over the 16 elements' flags (".allz" and so on). */
enum qpu_br_cond {
	QPU_BR_ALL_ZS, QPU_BR_ALL_ZC, QPU_BR_ANY_ZS, QPU_BR_ANY_ZC,
	QPU_BR_ALL_NS, QPU_BR_ALL_NC, QPU_BR_ANY_NS, QPU_BR_ANY_NC,
	QPU_BR_ALL_CS, QPU_BR_ALL_CC, QPU_BR_ANY_CS, QPU_BR_ANY_CC,
	QPU_BR_ALWAYS = 15,
};

/* Signals of an ALU instruction. */
enum qpu_sig {
	QPU_SIG_BKPT, QPU_SIG_NONE, QPU_SIG_THRSW, QPU_SIG_THREND,
	QPU_SIG_SBWAIT, QPU_SIG_SBDONE, QPU_SIG_LTHRSW, QPU_SIG_LOADCV,
	QPU_SIG_LOADC, QPU_SIG_LDCEND, QPU_SIG_LDTMU0, QPU_SIG_LDTMU1,
	QPU_SIG_LOADAM,
};

/* --- the builder ------------------------------------------------------------- */

/**
 * struct qpu_emit - a program being built (opaque).
 */
struct qpu_emit;

/**
 * qpu_emit_new() - start a program
 *
 * Return: a builder the caller frees with qpu_emit_free(), or NULL with
 * errno set (ENOMEM).
 */
QPU_API struct qpu_emit *qpu_emit_new(void);

/** qpu_emit_free() - free a builder and its words; NULL is allowed */
QPU_API void qpu_emit_free(struct qpu_emit *e);

/**
 * qpu_emit_finish() - end the program: resolve labels, encode the words
 * @e: the builder; nothing can be added afterwards
 *
 * Return: 0; -EINVAL if a call failed or a label is undefined (see
 * qpu_emit_error()); -ENOMEM.
 */
QPU_API int qpu_emit_finish(struct qpu_emit *e);

/**
 * qpu_emit_words() - the program
 * @e: the builder
 * @count: where the number of 64-bit words goes
 *
 * Return: the words, owned by @e and valid until qpu_emit_free(); NULL (and
 * a count of 0) unless qpu_emit_finish() succeeded and no call failed since.
 */
QPU_API const uint64_t *qpu_emit_words(const struct qpu_emit *e, size_t *count);

/**
 * qpu_emit_error() - the first error
 * @e: the builder
 * @index: NULL, or where the index of the instruction it concerns goes
 *
 * Return: "instruction N: what went wrong", owned by @e and valid until
 * qpu_emit_free(), or NULL if there was no error.
 */
QPU_API const char *qpu_emit_error(const struct qpu_emit *e, size_t *index);

/** qpu_emit_count() - instructions so far: the index of the next one */
QPU_API size_t qpu_emit_count(const struct qpu_emit *e);

/* --- ALU instructions ---------------------------------------------------------- */

/*
 * One add (or mul) operation, starting a new instruction: "fadd d, a, b".
 * Unary operations (ftoi, itof, not, clz) read only @a and ignore @b.
 * Sources are placed on the input muxes and regfile read ports; names that
 * both regfiles have go where there is room.
 */
QPU_API void qpu_emit_add(struct qpu_emit *e, enum qpu_add_op op,
			  struct qpu_reg d, struct qpu_reg a, struct qpu_reg b);
QPU_API void qpu_emit_mul(struct qpu_emit *e, enum qpu_mul_op op,
			  struct qpu_reg d, struct qpu_reg a, struct qpu_reg b);

/*
 * Dual issue: put an operation on the idle ALU of the last instruction
 * ("fadd r0, r1, r2; fmul r3, r1, r2"). The last instruction must be an ALU
 * instruction whose other ALU is unused.
 */
QPU_API void qpu_emit_dual_add(struct qpu_emit *e, enum qpu_add_op op,
			       struct qpu_reg d, struct qpu_reg a, struct qpu_reg b);
QPU_API void qpu_emit_dual_mul(struct qpu_emit *e, enum qpu_mul_op op,
			       struct qpu_reg d, struct qpu_reg a, struct qpu_reg b);

/*
 * Modifiers of the last instruction:
 * - qpu_emit_cond(): the write condition of the operation (or load-
 *   immediate destination) placed last; without it a write to QPU_NOP is
 *   "never" unless that side sets the flags, any other write "always";
 * - qpu_emit_setf(): set the flags from the operation placed last (the mul
 *   ALU can set them only when the add ALU is idle), or from a load
 *   immediate's value;
 * - qpu_emit_sig(): the signal of an ALU instruction (none with a small
 *   immediate or a rotation);
 * - qpu_emit_read(): read @src without using it ("read vw_wait"), an ALU
 *   instruction's way to wait for the VPM or DMA.
 */
QPU_API void qpu_emit_cond(struct qpu_emit *e, enum qpu_cond cond);
QPU_API void qpu_emit_setf(struct qpu_emit *e);
QPU_API void qpu_emit_sig(struct qpu_emit *e, enum qpu_sig sig);
QPU_API void qpu_emit_read(struct qpu_emit *e, struct qpu_reg src);

/* --- load immediate and semaphores ----------------------------------------------- */

/* "ldi d, value": the same 32 bits in every element. */
QPU_API void qpu_emit_ldi(struct qpu_emit *e, struct qpu_reg d, uint32_t value);
/* "ldi d, 1.5": a float's bits. */
QPU_API void qpu_emit_ldi_float(struct qpu_emit *e, struct qpu_reg d, float value);
/* "ldipes d, [v0, ..., v15]": element i gets values[i], -2..1. */
QPU_API void qpu_emit_ldi_pes(struct qpu_emit *e, struct qpu_reg d,
			      const int values[16]);
/* "ldipeu d, [v0, ..., v15]": element i gets values[i], 0..3. */
QPU_API void qpu_emit_ldi_peu(struct qpu_emit *e, struct qpu_reg d,
			      const int values[16]);
/*
 * The second destination of the last load immediate or semaphore
 * instruction, written by the mul side ("ldi ra1, rb2, value"); a following
 * qpu_emit_cond() applies to it.
 */
QPU_API void qpu_emit_ldi_dest2(struct qpu_emit *e, struct qpu_reg d);

/* "sacq -, n" and "srel -, n": acquire (wait for, decrement) or release
 * (increment) semaphore @n, 0..15. */
QPU_API void qpu_emit_sacq(struct qpu_emit *e, unsigned int n);
QPU_API void qpu_emit_srel(struct qpu_emit *e, unsigned int n);

/* --- branches ---------------------------------------------------------------- */

/*
 * Branches take effect after three more instructions (delay slots), which
 * run whether or not the branch is taken; the caller emits them.
 * - qpu_emit_brr(): to a label, defined before or after ("brr -, label");
 * - qpu_emit_brr_offset(): by @offset bytes from the fourth instruction
 *   after the branch ("brr -, +32");
 * - qpu_emit_bra(): to the absolute bus address @target ("bra -, 0x1000").
 * Modifiers of the last branch:
 * - qpu_emit_branch_reg(): add regfile-A register @ra (QPU_RA(0..31))
 *   to the target ("bra -, ra1, 0");
 * - qpu_emit_branch_link(): write the return address (of the fourth
 *   instruction after the branch) to @d ("brr ra0, label").
 */
QPU_API void qpu_emit_brr(struct qpu_emit *e, enum qpu_br_cond cond,
			  const char *label);
QPU_API void qpu_emit_brr_offset(struct qpu_emit *e, enum qpu_br_cond cond,
				 int32_t offset);
QPU_API void qpu_emit_bra(struct qpu_emit *e, enum qpu_br_cond cond,
			  uint32_t target);
QPU_API void qpu_emit_branch_reg(struct qpu_emit *e, struct qpu_reg ra);
QPU_API void qpu_emit_branch_link(struct qpu_emit *e, struct qpu_reg d);

/*
 * qpu_emit_label() - name the next instruction
 * @name: a non-empty string, copied; each name is defined once
 */
QPU_API void qpu_emit_label(struct qpu_emit *e, const char *name);

/* --- other words and sequences ----------------------------------------------------- */

/* A word as given (".long 0x..."), for what the builders do not make. */
QPU_API void qpu_emit_raw(struct qpu_emit *e, uint64_t word);

/* "nop": an instruction that does nothing. */
QPU_API void qpu_emit_nop(struct qpu_emit *e);

/* "mov d, s": or on the add ALU (qpu_emit_dual_mov(): v8min on the mul ALU,
 * in the last instruction). For a 32-bit value, see qpu_emit_ldi(). */
QPU_API void qpu_emit_mov(struct qpu_emit *e, struct qpu_reg d, struct qpu_reg s);
QPU_API void qpu_emit_dual_mov(struct qpu_emit *e, struct qpu_reg d, struct qpu_reg s);

/* "v8min d, s >> n, s >> n": @s rotated by @n elements (1..15) to @d. */
QPU_API void qpu_emit_rotate(struct qpu_emit *e, struct qpu_reg d,
			     struct qpu_reg s, unsigned int n);

/* "nop; thrend", "nop", "nop": end the thread, with its two delay slots. */
QPU_API void qpu_emit_thrend(struct qpu_emit *e);

/*
 * VPM access modes: horizontal (rows of 16 elements) or vertical
 * (columns), 32, 16 or 8 bits, and for 16 and 8 bits packed (the default)
 * or laned. The DMA transfers take the modes without L.
 */
enum qpu_vpm_mode {
	QPU_VPM_V8 = 0, QPU_VPM_V16 = 1, QPU_VPM_V32 = 2,
	QPU_VPM_V8L = 4, QPU_VPM_V16L = 5,
	QPU_VPM_H8 = 8, QPU_VPM_H16 = 9, QPU_VPM_H32 = 10,
	QPU_VPM_H8L = 12, QPU_VPM_H16L = 13,
};

/*
 * Load immediates of VPM and DMA setup words, with the bits of the text
 * assembler's functions (named in quotes); @part is the 16-bit half or
 * the 8-bit byte, 0 for 32 bits. Each argument must fit its field:
 * - qpu_emit_vpm_read_setup(): "ldi vr_setup, vpm_setup(num, stride,
 *   h32(y))": read @num vectors (1..16) from row @y (column @x when
 *   vertical), @stride (1..64) apart;
 * - qpu_emit_vpm_write_setup(): the same for writes to vw_setup;
 * - qpu_emit_vdw_setup(): "ldi vw_setup, vdw_setup_0(units, depth,
 *   dma_h32(y, x))": store @units rows (1..128) of @depth elements (1..128)
 *   from VPM row @y, column @x;
 * - qpu_emit_vdw_stride(): "ldi vw_setup, vdw_setup_1(stride)": bytes
 *   between the end of one stored row and the next (0..65535);
 * - qpu_emit_vdr_setup(): "ldi vr_setup, vdr_setup_0(mpitch, rowlen,
 *   nrows, vdr_h32(vpitch, y, x))": load @nrows rows (1..16) of @rowlen
 *   elements (1..16), 8 << @mpitch bytes apart in memory (0..15), @vpitch
 *   VPM rows apart (1..16), to VPM row @y, column @x;
 * - qpu_emit_vdr_stride(): "ldi vr_setup, vdr_setup_1(stride)".
 * Then write the memory address to vw_addr (vr_addr) to start the DMA,
 * and wait for it with qpu_emit_read(e, QPU_VW_WAIT) (QPU_VR_WAIT).
 */
QPU_API void qpu_emit_vpm_read_setup(struct qpu_emit *e, unsigned int num,
				     unsigned int stride, enum qpu_vpm_mode mode,
				     unsigned int y, unsigned int x,
				     unsigned int part);
QPU_API void qpu_emit_vpm_write_setup(struct qpu_emit *e, unsigned int stride,
				      enum qpu_vpm_mode mode, unsigned int y,
				      unsigned int x, unsigned int part);
QPU_API void qpu_emit_vdw_setup(struct qpu_emit *e, unsigned int units,
				unsigned int depth, enum qpu_vpm_mode mode,
				unsigned int y, unsigned int x, unsigned int part);
QPU_API void qpu_emit_vdw_stride(struct qpu_emit *e, unsigned int stride);
QPU_API void qpu_emit_vdr_setup(struct qpu_emit *e, unsigned int mpitch,
				unsigned int rowlen, unsigned int nrows,
				unsigned int vpitch, enum qpu_vpm_mode mode,
				unsigned int y, unsigned int x, unsigned int part);
QPU_API void qpu_emit_vdr_stride(struct qpu_emit *e, unsigned int stride);

/* --- one function per operation ------------------------------------------------------ */

#define QPU_EMIT_ADD_OP(name, op)					\
static inline void qpu_emit_##name(struct qpu_emit *e, struct qpu_reg d,	\
				   struct qpu_reg a, struct qpu_reg b)		\
{									\
	qpu_emit_add(e, op, d, a, b);					\
}
#define QPU_EMIT_ADD_UNARY(name, op)					\
static inline void qpu_emit_##name(struct qpu_emit *e, struct qpu_reg d,	\
				   struct qpu_reg a)				\
{									\
	qpu_emit_add(e, op, d, a, a);					\
}
#define QPU_EMIT_MUL_OP(name, op)					\
static inline void qpu_emit_##name(struct qpu_emit *e, struct qpu_reg d,	\
				   struct qpu_reg a, struct qpu_reg b)		\
{									\
	qpu_emit_mul(e, op, d, a, b);					\
}

/* qpu_emit_fadd(e, d, a, b) and so on: "fadd d, a, b"; integer add is iadd. */
QPU_EMIT_ADD_OP(fadd, QPU_ADD_FADD)
QPU_EMIT_ADD_OP(fsub, QPU_ADD_FSUB)
QPU_EMIT_ADD_OP(fmin, QPU_ADD_FMIN)
QPU_EMIT_ADD_OP(fmax, QPU_ADD_FMAX)
QPU_EMIT_ADD_OP(fminabs, QPU_ADD_FMINABS)
QPU_EMIT_ADD_OP(fmaxabs, QPU_ADD_FMAXABS)
QPU_EMIT_ADD_UNARY(ftoi, QPU_ADD_FTOI)
QPU_EMIT_ADD_UNARY(itof, QPU_ADD_ITOF)
QPU_EMIT_ADD_OP(iadd, QPU_ADD_ADD)
QPU_EMIT_ADD_OP(isub, QPU_ADD_SUB)
QPU_EMIT_ADD_OP(shr, QPU_ADD_SHR)
QPU_EMIT_ADD_OP(asr, QPU_ADD_ASR)
QPU_EMIT_ADD_OP(ror, QPU_ADD_ROR)
QPU_EMIT_ADD_OP(shl, QPU_ADD_SHL)
QPU_EMIT_ADD_OP(imin, QPU_ADD_MIN)
QPU_EMIT_ADD_OP(imax, QPU_ADD_MAX)
QPU_EMIT_ADD_OP(band, QPU_ADD_AND)
QPU_EMIT_ADD_OP(bor, QPU_ADD_OR)
QPU_EMIT_ADD_OP(bxor, QPU_ADD_XOR)
QPU_EMIT_ADD_UNARY(bnot, QPU_ADD_NOT)
QPU_EMIT_ADD_UNARY(clz, QPU_ADD_CLZ)
QPU_EMIT_ADD_OP(av8adds, QPU_ADD_V8ADDS)
QPU_EMIT_ADD_OP(av8subs, QPU_ADD_V8SUBS)
QPU_EMIT_MUL_OP(fmul, QPU_MUL_FMUL)
QPU_EMIT_MUL_OP(mul24, QPU_MUL_MUL24)
QPU_EMIT_MUL_OP(v8muld, QPU_MUL_V8MULD)
QPU_EMIT_MUL_OP(v8min, QPU_MUL_V8MIN)
QPU_EMIT_MUL_OP(v8max, QPU_MUL_V8MAX)
QPU_EMIT_MUL_OP(v8adds, QPU_MUL_V8ADDS)
QPU_EMIT_MUL_OP(v8subs, QPU_MUL_V8SUBS)

#undef QPU_EMIT_ADD_OP
#undef QPU_EMIT_ADD_UNARY
#undef QPU_EMIT_MUL_OP

#ifdef __cplusplus
}
#endif

#endif /* QPU_EMIT_H */
