/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * The VideoCore IV QPU instruction word: field layout, the tables that name
 * every field value, and a lossless decoder/encoder between the 64-bit word
 * and struct qpu_isa_instr. The tables are data so that the assembler, the
 * disassembler, the hazard checker and the emulator read one source of truth.
 * Decoding never fails: undocumented values are kept and flagged in
 * qpu_isa_instr.reserved, so qpu_isa_encode(qpu_isa_decode(w)) == w for all w.
 */
#ifndef QPU_ISA_H
#define QPU_ISA_H

#include "qpu_types.h"

/* Negative return values of the core; the numbers are the Linux errno ones. */
#define QPU_ISA_EINVAL		22	/* unknown instruction kind */
#define QPU_ISA_ERANGE		34	/* a field does not fit in its bits */

/* TMU requests one QPU may have outstanding per TMU (the reference guide). */
#define QPU_ISA_TMU_FIFO_DEPTH	4

/*
 * Instructions a program leaves between a write and the read of its
 * result (the reference guide, sections 3 and 7): a regfile A/B value is
 * not readable in the next instruction; the SFU's result in r4, the VPM
 * after vr_setup, the uniforms after unif_addr, ms_flags after tlbz and
 * a TMU write after tmu_noswap need two instructions in between. The
 * hazard checker enforces them, the timing model charges the first three.
 */
#define QPU_ISA_REGFILE_LATENCY		1
#define QPU_ISA_SFU_LATENCY		2
#define QPU_ISA_VPM_READ_LATENCY	2
#define QPU_ISA_UNIF_ADDR_LATENCY	2
#define QPU_ISA_TLBZ_LATENCY		2
#define QPU_ISA_TMU_NOSWAP_LATENCY	2

/* BIT() without kernel headers; flags below are built with it. */
#define QPU_ISA_BIT(n)		(1u << (n))

#define QPU_ISA_FIELD(word, shift, bits) \
	((u32)(((word) >> (shift)) & ((1ull << (bits)) - 1)))

/* Bit positions (shift) and widths of the fields of an ALU instruction. */
#define QPU_ISA_SIG_SHIFT	60
#define QPU_ISA_SIG_BITS	4
#define QPU_ISA_UNPACK_SHIFT	57
#define QPU_ISA_UNPACK_BITS	3
#define QPU_ISA_PM_SHIFT	56
#define QPU_ISA_PACK_SHIFT	52
#define QPU_ISA_PACK_BITS	4
#define QPU_ISA_COND_ADD_SHIFT	49
#define QPU_ISA_COND_MUL_SHIFT	46
#define QPU_ISA_COND_BITS	3
#define QPU_ISA_SF_SHIFT	45
#define QPU_ISA_WS_SHIFT	44
#define QPU_ISA_WADDR_ADD_SHIFT	38
#define QPU_ISA_WADDR_MUL_SHIFT	32
#define QPU_ISA_WADDR_BITS	6
#define QPU_ISA_OP_MUL_SHIFT	29
#define QPU_ISA_OP_MUL_BITS	3
#define QPU_ISA_OP_ADD_SHIFT	24
#define QPU_ISA_OP_ADD_BITS	5
#define QPU_ISA_RADDR_A_SHIFT	18
#define QPU_ISA_RADDR_B_SHIFT	12
#define QPU_ISA_RADDR_BITS	6
#define QPU_ISA_ADD_A_SHIFT	9
#define QPU_ISA_ADD_B_SHIFT	6
#define QPU_ISA_MUL_A_SHIFT	3
#define QPU_ISA_MUL_B_SHIFT	0
#define QPU_ISA_MUX_BITS	3

/* Load immediate and semaphore: bits 59:57 select the form, 31:0 the value. */
#define QPU_ISA_LDI_MODE_SHIFT	57
#define QPU_ISA_LDI_MODE_BITS	3
#define QPU_ISA_SEM_ACQUIRE_BIT	4	/* in the low word */
#define QPU_ISA_SEM_NUM_BITS	4
#define QPU_ISA_SEM_PAD_SHIFT	5	/* bits 31:5 have no documented use */
#define QPU_ISA_SEM_PAD_BITS	27

/* Branch: bits 59:56 are unused, condition 55:52, rel 51, reg 50. */
#define QPU_ISA_BR_PAD_SHIFT	56
#define QPU_ISA_BR_PAD_BITS	4
#define QPU_ISA_BR_COND_SHIFT	52
#define QPU_ISA_BR_COND_BITS	4
#define QPU_ISA_BR_REL_SHIFT	51
#define QPU_ISA_BR_REG_SHIFT	50
#define QPU_ISA_BR_RADDR_SHIFT	45
#define QPU_ISA_BR_RADDR_BITS	5

/* Signals (bits 63:60); 13..15 change the layout of the rest of the word. */
enum qpu_isa_sig {
	QPU_ISA_SIG_BKPT,
	QPU_ISA_SIG_NONE,
	QPU_ISA_SIG_THRSW,
	QPU_ISA_SIG_THREND,
	QPU_ISA_SIG_SBWAIT,
	QPU_ISA_SIG_SBDONE,
	QPU_ISA_SIG_LTHRSW,
	QPU_ISA_SIG_LOADCV,
	QPU_ISA_SIG_LOADC,
	QPU_ISA_SIG_LDCEND,
	QPU_ISA_SIG_LDTMU0,
	QPU_ISA_SIG_LDTMU1,
	QPU_ISA_SIG_LOADAM,
	QPU_ISA_SIG_SMALL_IMM,
	QPU_ISA_SIG_LOAD_IMM,
	QPU_ISA_SIG_BRANCH,
	QPU_ISA_NUM_SIGS
};

enum qpu_isa_op_add {
	QPU_ISA_A_NOP, QPU_ISA_A_FADD, QPU_ISA_A_FSUB, QPU_ISA_A_FMIN,
	QPU_ISA_A_FMAX, QPU_ISA_A_FMINABS, QPU_ISA_A_FMAXABS, QPU_ISA_A_FTOI,
	QPU_ISA_A_ITOF,
	QPU_ISA_A_ADD = 12, QPU_ISA_A_SUB, QPU_ISA_A_SHR, QPU_ISA_A_ASR,
	QPU_ISA_A_ROR, QPU_ISA_A_SHL, QPU_ISA_A_MIN, QPU_ISA_A_MAX,
	QPU_ISA_A_AND, QPU_ISA_A_OR, QPU_ISA_A_XOR, QPU_ISA_A_NOT,
	QPU_ISA_A_CLZ,
	QPU_ISA_A_V8ADDS = 30, QPU_ISA_A_V8SUBS,
	QPU_ISA_NUM_ADD_OPS
};

enum qpu_isa_op_mul {
	QPU_ISA_M_NOP, QPU_ISA_M_FMUL, QPU_ISA_M_MUL24, QPU_ISA_M_V8MULD,
	QPU_ISA_M_V8MIN, QPU_ISA_M_V8MAX, QPU_ISA_M_V8ADDS, QPU_ISA_M_V8SUBS,
	QPU_ISA_NUM_MUL_OPS
};

/* ALU input multiplexer: accumulators r0..r5, regfile A, regfile B. */
enum qpu_isa_mux {
	QPU_ISA_MUX_R0, QPU_ISA_MUX_R1, QPU_ISA_MUX_R2, QPU_ISA_MUX_R3,
	QPU_ISA_MUX_R4, QPU_ISA_MUX_R5, QPU_ISA_MUX_A, QPU_ISA_MUX_B,
	QPU_ISA_NUM_MUXES
};

/* Write conditions of the add and mul results (3 bits each). */
enum qpu_isa_cond {
	QPU_ISA_COND_NEVER, QPU_ISA_COND_ALWAYS, QPU_ISA_COND_ZS,
	QPU_ISA_COND_ZC, QPU_ISA_COND_NS, QPU_ISA_COND_NC, QPU_ISA_COND_CS,
	QPU_ISA_COND_CC,
	QPU_ISA_NUM_CONDS
};

/* Branch conditions (4 bits); 12..14 are reserved. */
enum qpu_isa_br_cond {
	QPU_ISA_BR_ALLZS, QPU_ISA_BR_ALLZC, QPU_ISA_BR_ANYZS, QPU_ISA_BR_ANYZC,
	QPU_ISA_BR_ALLNS, QPU_ISA_BR_ALLNC, QPU_ISA_BR_ANYNS, QPU_ISA_BR_ANYNC,
	QPU_ISA_BR_ALLCS, QPU_ISA_BR_ALLCC, QPU_ISA_BR_ANYCS, QPU_ISA_BR_ANYCC,
	QPU_ISA_BR_ALWAYS = 15,
	QPU_ISA_NUM_BR_CONDS
};

/* Regfile-A pack (pm=0): the result written to a regfile-A register. */
enum qpu_isa_pack_a {
	QPU_ISA_PACK_A_NONE, QPU_ISA_PACK_A_16A, QPU_ISA_PACK_A_16B,
	QPU_ISA_PACK_A_8888, QPU_ISA_PACK_A_8A, QPU_ISA_PACK_A_8B,
	QPU_ISA_PACK_A_8C, QPU_ISA_PACK_A_8D, QPU_ISA_PACK_A_32_SAT,
	QPU_ISA_PACK_A_16A_SAT, QPU_ISA_PACK_A_16B_SAT, QPU_ISA_PACK_A_8888_SAT,
	QPU_ISA_PACK_A_8A_SAT, QPU_ISA_PACK_A_8B_SAT, QPU_ISA_PACK_A_8C_SAT,
	QPU_ISA_PACK_A_8D_SAT,
};

/* Mul pack (pm=1): float result to 8-bit colour; 1, 2 and 8..15 reserved. */
enum qpu_isa_pack_mul {
	QPU_ISA_PACK_MUL_NONE, QPU_ISA_PACK_MUL_8888 = 3, QPU_ISA_PACK_MUL_8A,
	QPU_ISA_PACK_MUL_8B, QPU_ISA_PACK_MUL_8C, QPU_ISA_PACK_MUL_8D,
};

/* Unpack of regfile-A reads (pm=0) or of r4 reads (pm=1). */
enum qpu_isa_unpack {
	QPU_ISA_UNPACK_NONE, QPU_ISA_UNPACK_16A, QPU_ISA_UNPACK_16B,
	QPU_ISA_UNPACK_8D_REP, QPU_ISA_UNPACK_8A, QPU_ISA_UNPACK_8B,
	QPU_ISA_UNPACK_8C, QPU_ISA_UNPACK_8D,
};

/* Forms selected by bits 59:57 of a load-immediate word (signal 14). */
enum qpu_isa_ldi_mode {
	QPU_ISA_LDI_32 = 0,	/* one 32-bit value for all elements */
	QPU_ISA_LDI_PES = 1,	/* per element, signed 2 bits */
	QPU_ISA_LDI_PEU = 3,	/* per element, unsigned 2 bits */
	QPU_ISA_LDI_SEMA = 4,	/* semaphore acquire/release */
};

/*
 * Register addresses 32..63 the emulator, the hazard checker and the
 * builders name; where the files differ, both names are given (A, B).
 */
#define QPU_ISA_RADDR_UNIF	32
#define QPU_ISA_RADDR_VARY	35
#define QPU_ISA_RADDR_ELEM_QPU	38	/* elem_num (A), qpu_num (B) */
#define QPU_ISA_RADDR_NOP	39
#define QPU_ISA_RADDR_MS_REV	42	/* ms_flags (A), rev_flag (B) */
#define QPU_ISA_RADDR_VPM	48
#define QPU_ISA_RADDR_VPM_BUSY	49	/* vr_busy (A), vw_busy (B) */
#define QPU_ISA_RADDR_VPM_WAIT	50	/* vr_wait (A), vw_wait (B) */
#define QPU_ISA_RADDR_MUTEX	51	/* mutex_acq */

#define QPU_ISA_WADDR_R0	32	/* r0..r3 at 32..35 */
#define QPU_ISA_WADDR_TMU_NOSWAP 36
#define QPU_ISA_WADDR_R5	37	/* r5quad (A), r5rep (B) */
#define QPU_ISA_WADDR_HOST_INT	38
#define QPU_ISA_WADDR_NOP	39
#define QPU_ISA_WADDR_UNIF_ADDR	40	/* unif_addr (A), unif_addr_rel (B) */
#define QPU_ISA_WADDR_XY_COORD	41	/* x_coord (A), y_coord (B) */
#define QPU_ISA_WADDR_MS_REV	42	/* ms_mask (A), rev_flag (B) */
#define QPU_ISA_WADDR_TLB_STENCIL 43	/* 43..47: stencil, tlbz, tlbm, tlbc, tlbam */
#define QPU_ISA_WADDR_TLBZ	44
#define QPU_ISA_WADDR_TLB_ALPHA	47
#define QPU_ISA_WADDR_VPM	48
#define QPU_ISA_WADDR_VPM_SETUP	49	/* vr_setup (A), vw_setup (B) */
#define QPU_ISA_WADDR_VPM_ADDR	50	/* vr_addr (A), vw_addr (B): start a DMA */
#define QPU_ISA_WADDR_MUTEX	51	/* mutex_rel */
#define QPU_ISA_WADDR_SFU_RECIP	52	/* 52..55: recip, recipsqrt, exp, log */
#define QPU_ISA_WADDR_SFU_LOG	55
#define QPU_ISA_WADDR_TMU0_S	56	/* 56..59: t0s, t0t, t0r, t0b */
#define QPU_ISA_WADDR_TMU1_S	60	/* 60..63: t1s, t1t, t1r, t1b */
#define QPU_ISA_WADDR_TMU1_B	63
#define QPU_ISA_SMALL_IMM_ROT	48	/* 48: rotate by r5, 49..63: by 1..15 */

enum qpu_isa_kind {
	QPU_ISA_KIND_ALU,		/* signal 0..12 */
	QPU_ISA_KIND_ALU_SMALL_IMM,	/* signal 13: raddr_b is an immediate */
	QPU_ISA_KIND_LDI,		/* 32-bit load immediate */
	QPU_ISA_KIND_LDI_PES,		/* per-element signed */
	QPU_ISA_KIND_LDI_PEU,		/* per-element unsigned */
	QPU_ISA_KIND_SEMA,		/* semaphore */
	QPU_ISA_KIND_BRANCH,		/* signal 15 */
	QPU_ISA_KIND_RAW,		/* signal 14 with a reserved mode */
	QPU_ISA_NUM_KINDS
};

/* qpu_isa_instr.reserved: fields holding values with no documented meaning. */
#define QPU_ISA_RSV_OP_ADD	QPU_ISA_BIT(0)	/* add opcode 9..11, 25..29 */
#define QPU_ISA_RSV_PACK	QPU_ISA_BIT(1)	/* pm=1 pack other than 0, 3..7 */
#define QPU_ISA_RSV_BR_COND	QPU_ISA_BIT(2)	/* branch condition 12..14 */
#define QPU_ISA_RSV_BR_PAD	QPU_ISA_BIT(3)	/* branch bits 59:56 set */
#define QPU_ISA_RSV_BR_RADDR	QPU_ISA_BIT(4)	/* raddr_a set, reg clear */
#define QPU_ISA_RSV_SEM_PAD	QPU_ISA_BIT(5)	/* semaphore bits 31:5 set */
#define QPU_ISA_RSV_LDI_MODE	QPU_ISA_BIT(6)	/* load-immediate mode 2, 5..7 */

/**
 * struct qpu_isa_instr - one decoded instruction word
 * @kind: which layout the word uses; selects the valid members below
 * @reserved: QPU_ISA_RSV_* bits set by qpu_isa_decode(); ignored by encode
 * @sig: signal; set by decode for every kind, read by encode for ALU only
 * @unpack: unpack mode (ALU kinds), for regfile A reads or r4 if @pm
 * @pm: pack/unpack selector: mul pack and r4 unpack instead of regfile A
 * @pack: pack mode (ALU, LDI, SEMA kinds)
 * @cond_add: write condition of the add side (ALU, LDI, SEMA)
 * @cond_mul: write condition of the mul side (ALU, LDI, SEMA)
 * @sf: set flags (ALU, LDI, SEMA)
 * @ws: write swap: add writes regfile B and mul regfile A (all but RAW)
 * @waddr_add: add-side write address (all but RAW)
 * @waddr_mul: mul-side write address (all but RAW)
 * @op_add: add opcode (ALU kinds)
 * @op_mul: mul opcode (ALU kinds)
 * @raddr_a: regfile A read address (ALU kinds, 6 bits; BRANCH, 5 bits)
 * @raddr_b: regfile B read address, or the small immediate (ALU kinds)
 * @add_a: add ALU first input mux
 * @add_b: add ALU second input mux
 * @mul_a: mul ALU first input mux
 * @mul_b: mul ALU second input mux
 * @imm: LDI value, per-element bits (LDI_PES/PEU) or branch target
 * @sem: semaphore number 0..15 (SEMA)
 * @sem_acquire: acquire (decrement) instead of release (SEMA)
 * @sem_pad: SEMA bits 31:5, no documented use
 * @br_cond: branch condition (BRANCH)
 * @br_rel: target relative to the PC of the fourth next instruction
 * @br_reg: add regfile A entry @raddr_a to the target
 * @br_pad: BRANCH bits 59:56, no documented use
 * @ldi_mode: bits 59:57 of a RAW word (a reserved load-immediate mode)
 * @raw: the whole word (RAW only)
 */
struct qpu_isa_instr {
	enum qpu_isa_kind kind;
	u32 reserved;
	u8 sig;
	u8 unpack;
	bool pm;
	u8 pack;
	u8 cond_add;
	u8 cond_mul;
	bool sf;
	bool ws;
	u8 waddr_add;
	u8 waddr_mul;
	u8 op_add;
	u8 op_mul;
	u8 raddr_a;
	u8 raddr_b;
	u8 add_a;
	u8 add_b;
	u8 mul_a;
	u8 mul_b;
	u32 imm;
	u8 sem;
	bool sem_acquire;
	u32 sem_pad;
	u8 br_cond;
	bool br_rel;
	bool br_reg;
	u8 br_pad;
	u8 ldi_mode;
	u64 raw;
};

/* --- tables ------------------------------------------------------------- */

/* Flags of an opcode table entry. */
#define QPU_ISA_OP_UNARY	QPU_ISA_BIT(0)	/* reads only its first input */
#define QPU_ISA_OP_FLOAT_IN	QPU_ISA_BIT(1)	/* inputs are floats */
#define QPU_ISA_OP_FLOAT_OUT	QPU_ISA_BIT(2)	/* result is a float */

/**
 * struct qpu_isa_op - an add or mul opcode
 * @name: assembler mnemonic that selects this ALU, NULL if reserved
 * @flags: QPU_ISA_OP_*
 */
struct qpu_isa_op {
	const char *name;
	u32 flags;
};

extern const struct qpu_isa_op qpu_isa_add_ops[QPU_ISA_NUM_ADD_OPS];
extern const struct qpu_isa_op qpu_isa_mul_ops[QPU_ISA_NUM_MUL_OPS];

/* Signal mnemonics; "" for none, NULL for 13..15 (not written as signals). */
extern const char *const qpu_isa_sig_names[QPU_ISA_NUM_SIGS];
/* Condition suffixes without the dot; "" for always. */
extern const char *const qpu_isa_cond_names[QPU_ISA_NUM_CONDS];
/* Branch condition suffixes; "" for always, NULL if reserved. */
extern const char *const qpu_isa_br_cond_names[QPU_ISA_NUM_BR_CONDS];
/* Mux names of r0..r5 as sources; NULL for the two regfile muxes. */
extern const char *const qpu_isa_mux_names[QPU_ISA_NUM_MUXES];

/*
 * Pack and unpack suffixes without the dot, "" for none, NULL if reserved.
 * Regfile-A pack (pm=0) applies to the result written to regfile A; mul pack
 * (pm=1) to the mul result. Unpack applies to regfile A reads (pm=0) or r4
 * reads (pm=1); both tables use the same bit values.
 */
extern const char *const qpu_isa_pack_a_names[16];
extern const char *const qpu_isa_pack_mul_names[16];
extern const char *const qpu_isa_unpack_names[8];

/* Register table entry flags. */
#define QPU_ISA_REG_FILE	QPU_ISA_BIT(0)	/* physical register 0..31 */
#define QPU_ISA_REG_IO		QPU_ISA_BIT(1)	/* peripheral or accumulator */
#define QPU_ISA_REG_SHARED	QPU_ISA_BIT(2)	/* same name in both files */
#define QPU_ISA_REG_RESERVED	QPU_ISA_BIT(3)	/* no documented function */
#define QPU_ISA_REG_NOP		QPU_ISA_BIT(4)	/* the no-access address 39 */

/**
 * struct qpu_isa_reg - one read or write address of regfile A or B
 * @name: assembler name (vc4asm spelling); numeric form "ra40" if reserved
 * @ref: name in the Broadcom reference guide (lower case), NULL for 0..31
 * @flags: QPU_ISA_REG_*
 */
struct qpu_isa_reg {
	const char *name;
	const char *ref;
	u32 flags;
};

/* Indexed [file][address], file 0 = A, 1 = B. */
extern const struct qpu_isa_reg qpu_isa_read_regs[2][64];
extern const struct qpu_isa_reg qpu_isa_write_regs[2][64];

#define QPU_ISA_ALIAS_READ	QPU_ISA_BIT(0)
#define QPU_ISA_ALIAS_WRITE	QPU_ISA_BIT(1)

/**
 * struct qpu_isa_reg_alias - another name vc4asm accepts for a register
 * @name: the other name, never printed by the disassembler
 * @reg: the register's @name in qpu_isa_read_regs or qpu_isa_write_regs
 * @flags: QPU_ISA_ALIAS_READ and/or QPU_ISA_ALIAS_WRITE: where it may stand
 */
struct qpu_isa_reg_alias {
	const char *name;
	const char *reg;
	u32 flags;
};

#define QPU_ISA_NUM_REG_ALIASES	4
extern const struct qpu_isa_reg_alias qpu_isa_reg_aliases[QPU_ISA_NUM_REG_ALIASES];

/* Small immediate kinds. */
enum qpu_isa_smi_kind {
	QPU_ISA_SMI_INT,	/* 0..15, -16..-1 */
	QPU_ISA_SMI_FLOAT,	/* 1.0 .. 128.0, 1/256 .. 1/2 */
	QPU_ISA_SMI_ROTATE,	/* mul input vector rotation */
};

/**
 * struct qpu_isa_smi - meaning of one small-immediate encoding
 * @kind: integer, float or vector rotation
 * @value: the 32-bit pattern read, or the rotation (0 = by r5, 1..15)
 * @text: exact assembler spelling of the value ("" for rotations)
 */
struct qpu_isa_smi {
	enum qpu_isa_smi_kind kind;
	u32 value;
	const char *text;
};

extern const struct qpu_isa_smi qpu_isa_small_imms[64];

/* --- functions ---------------------------------------------------------- */

void qpu_isa_decode(u64 word, struct qpu_isa_instr *instr);
int qpu_isa_encode(const struct qpu_isa_instr *instr, u64 *word);

s32 qpu_isa_ldi_elem(u32 imm, bool is_signed, unsigned int elem);
int qpu_isa_ldi_pack_elems(const s32 *values, bool is_signed, u32 *imm);

#endif /* QPU_ISA_H */
