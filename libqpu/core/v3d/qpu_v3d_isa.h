/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * The QPU instruction word of V3D 4.2 (Raspberry Pi 4) and V3D 7.1 (Pi 5):
 * field layout, the tables that name every value (qpu_v3d_isa.c) and
 * struct qpu_v3d_instr, which the codec (qpu_v3d_codec.h) turns into the
 * 64-bit word and back losslessly. One decoder and one encoder serve both
 * generations, which differ in their operand fields (4.2: two shared read
 * addresses and six accumulators behind 3-bit muxes; 7.1: a 6-bit read
 * address per operand) and in their tables.
 *
 * The names of the fields' values (operations, conditions, signals...) are
 * libqpu's public ones (qpu_v3d_fields.h, freestanding), so that the C
 * emitter and the codec share one list; the generation is enum qpu_gen.
 */
#ifndef QPU_V3D_ISA_H
#define QPU_V3D_ISA_H

#include "qpu_types.h"
/* Freestanding public headers: the one list of each (see above). */
#include "../../include/qpu_gen.h"
#include "../../include/qpu_v3d_fields.h"

#define QPU_V3D_EINVAL		22	/* Linux's EINVAL */

/* Bits @h..@l of a word. */
#define QPU_V3D_MASK(h, l)	((~0ull >> (63 - (h))) & (~0ull << (l)))

/*
 * Fields of the word, each named by its mask. ALU words use all 64 bits;
 * the 4.2 mux fields and the 7.1 read addresses overlap (bits 23:12).
 */
#define QPU_V3D_OP_MUL		QPU_V3D_MASK(63, 58)
#define QPU_V3D_SIG		QPU_V3D_MASK(57, 53)
#define QPU_V3D_COND		QPU_V3D_MASK(52, 46)
#define QPU_V3D_MM		QPU_V3D_MASK(45, 45)
#define QPU_V3D_MA		QPU_V3D_MASK(44, 44)
#define QPU_V3D_WADDR_M	QPU_V3D_MASK(43, 38)
#define QPU_V3D_WADDR_A	QPU_V3D_MASK(37, 32)
#define QPU_V3D_OP_ADD		QPU_V3D_MASK(31, 24)
#define QPU_V3D_MUL_B		QPU_V3D_MASK(23, 21)	/* 4.2 */
#define QPU_V3D_MUL_A		QPU_V3D_MASK(20, 18)	/* 4.2 */
#define QPU_V3D_ADD_B		QPU_V3D_MASK(17, 15)	/* 4.2 */
#define QPU_V3D_ADD_A		QPU_V3D_MASK(14, 12)	/* 4.2 */
#define QPU_V3D_RADDR_C	QPU_V3D_MASK(23, 18)	/* 7.1: mul a */
#define QPU_V3D_RADDR_D	QPU_V3D_MASK(17, 12)	/* 7.1: mul b */
#define QPU_V3D_RADDR_A	QPU_V3D_MASK(11, 6)
#define QPU_V3D_RADDR_B	QPU_V3D_MASK(5, 0)
/* Branch words: mul op 0 and signal 16..23 (bits 57:56 = 2). */
#define QPU_V3D_BR_KIND	QPU_V3D_MASK(57, 56)
#define QPU_V3D_BR_ADDR_LOW	QPU_V3D_MASK(55, 35)	/* target bits 23:3 */
#define QPU_V3D_BR_COND	QPU_V3D_MASK(34, 32)
#define QPU_V3D_BR_ADDR_HIGH	QPU_V3D_MASK(31, 24)	/* target bits 31:24 */
/* py-videocore's set_link: the branch writes the link register */
#define QPU_V3D_BR_LINK	QPU_V3D_MASK(23, 23)
#define QPU_V3D_BR_MSFIGN	QPU_V3D_MASK(22, 21)
#define QPU_V3D_BR_PAD_18	QPU_V3D_MASK(20, 18)
#define QPU_V3D_BR_BDU		QPU_V3D_MASK(17, 15)
#define QPU_V3D_BR_UB		QPU_V3D_MASK(14, 14)
#define QPU_V3D_BR_BDI		QPU_V3D_MASK(13, 12)
/* no encoder sets these (Mesa 25.0's qpu_pack.c, py-videocore6/7) */
#define QPU_V3D_BR_PAD_0	QPU_V3D_MASK(5, 0)
#define QPU_V3D_BR_KIND_BRANCH	2

#define QPU_V3D_COND_SIG_MAGIC	0x40	/* in COND when a signal writes */
#define QPU_V3D_SMALL_IMMS	48	/* entries of qpu_v3d_small_imm */

/* Field @mask of @w, and @v placed in field @mask (masked). */
#define QPU_V3D_GET(w, mask)	qpu_v3d_get(w, mask)
#define QPU_V3D_PUT(mask, v)	qpu_v3d_put(mask, v)

static inline u32 qpu_v3d_get(u64 w, u64 mask)
{
	return (u32)((w & mask) >> __builtin_ctzll(mask));
}

static inline u64 qpu_v3d_put(u64 mask, u32 v)
{
	return ((u64)v << __builtin_ctzll(mask)) & mask;
}

/* Why a word is not an instruction (qpu_v3d_decode()'s result). */
enum qpu_v3d_invalid {
	QPU_V3D_VALID,
	QPU_V3D_BAD_KIND,	/* mul op 0 without a branch signal */
	QPU_V3D_BAD_SIG,	/* a reserved signal code */
	QPU_V3D_BAD_FLAGS,	/* condition/flags code 0x10 */
	QPU_V3D_BAD_ADD_OP,	/* no add operation has this encoding */
	QPU_V3D_BAD_MUL_OP,	/* no mul operation has this encoding */
	QPU_V3D_BAD_UNPACK,	/* a reserved pack or unpack code */
	QPU_V3D_BAD_SMALL_IMM,	/* small immediate index past 47 */
	QPU_V3D_BAD_BRANCH,	/* reserved branch condition or msfign */
	QPU_V3D_INVALID_COUNT
};

/*
 * Signals: the bits of one signal code (qpu_v3d_sig_bits()) are enum
 * qpu_v3d_sig's, and these small-immediate bits past them, which operands
 * set rather than callers.
 */
enum qpu_v3d_sig_smimm {
	QPU_V3D_SIG_SMIMM_A	= 1 << 13,	/* 7.1: add a */
	QPU_V3D_SIG_SMIMM_B	= 1 << 14,	/* add b */
	QPU_V3D_SIG_SMIMM_C	= 1 << 15,	/* 7.1: mul a */
	QPU_V3D_SIG_SMIMM_D	= 1 << 16,	/* 7.1: mul b */
};

#define QPU_V3D_SIG_BITS	17

#define QPU_V3D_SIG_SMIMMS \
	(QPU_V3D_SIG_SMIMM_A | QPU_V3D_SIG_SMIMM_B | QPU_V3D_SIG_SMIMM_C | \
	 QPU_V3D_SIG_SMIMM_D)

/* The signals that write the address in COND instead of taking flags. */
#define QPU_V3D_SIG_WRITES_ADDR \
	(QPU_V3D_SIG_LDUNIFRF | QPU_V3D_SIG_LDUNIFARF | QPU_V3D_SIG_LDVARY | \
	 QPU_V3D_SIG_LDTMU | QPU_V3D_SIG_LDTLB | QPU_V3D_SIG_LDTLBU)

/* How many values each field of qpu_v3d_fields.h has. */
#define QPU_V3D_COND_COUNT	(QPU_V3D_COND_IFNB + 1)
#define QPU_V3D_PF_COUNT	(QPU_V3D_PF_PUSHC + 1)
#define QPU_V3D_UF_COUNT	(QPU_V3D_UF_NORC + 1)
#define QPU_V3D_PACK_COUNT	(QPU_V3D_PACK_H + 1)
#define QPU_V3D_UNPACK_COUNT	(QPU_V3D_UNPACK_IH + 1)
#define QPU_V3D_BR_COND_COUNT	(QPU_V3D_BR_ALLNA + 1)
#define QPU_V3D_MSFIGN_COUNT	(QPU_V3D_MSFIGN_Q + 1)

/* Write address 5: 4.2's accumulator r5, 7.1's quad. */
#define QPU_V3D_W_R5		QPU_V3D_W_QUAD

/* Operand muxes of 4.2 (0..5 are the accumulators r0..r5). */
#define QPU_V3D_MUX_A	6
#define QPU_V3D_MUX_B	7

/* Operand and destination use of an operation (qpu_v3d_*_op_info). */
#define QPU_V3D_ARG_D	1	/* writes waddr */
#define QPU_V3D_ARG_A	2
#define QPU_V3D_ARG_B	4

struct qpu_v3d_op_info {
	const char *name;
	u8 args;		/* QPU_V3D_ARG_* */
	u8 gens;		/* bit 0: 4.2, bit 1: 7.1 */
};

/* How many operands (0, 1 or 2) an operation reads. */
static inline unsigned int qpu_v3d_op_sources(const struct qpu_v3d_op_info *info)
{
	return info->args & QPU_V3D_ARG_B ? 2 : info->args & QPU_V3D_ARG_A ? 1 : 0;
}

/*
 * One ALU. @a and @b are the operand fields: muxes 0..7 on 4.2, read
 * addresses (or small-immediate indices) on 7.1. An operation that takes
 * fewer operands keeps the unused fields, so that every word survives a
 * decode and an encode; qpu_v3d_canonicalize() resets them.
 */
struct qpu_v3d_alu {
	u8 op;			/* enum qpu_v3d_add_op or qpu_v3d_mul_op */
	u8 waddr;
	bool magic;
	u8 pack;		/* enum qpu_v3d_pack */
	u8 unpack_a;		/* enum qpu_v3d_unpack */
	u8 unpack_b;
	u8 a;
	u8 b;
};

struct qpu_v3d_branch {
	u8 cond;		/* enum qpu_v3d_br_cond */
	u8 msfign;		/* enum qpu_v3d_msfign */
	u8 bdi;			/* enum qpu_v3d_br_dest */
	u8 bdu;			/* kept even when !ub (py-videocore sets 1) */
	bool ub;		/* the uniform stream branches too */
	bool link;		/* bit 23: write the link register */
	u8 raddr_a;
	u32 offset;		/* target (abs) or byte offset (rel), 8-aligned */
	u16 pad;		/* bits 20:18 and 5:0, which have no use */
};

struct qpu_v3d_instr {
	bool is_branch;
	u8 sig;			/* the signal code, 0..31 */
	u8 sig_addr;		/* when the signal writes an address */
	bool sig_magic;
	u8 ac, mc;		/* enum qpu_v3d_cond */
	u8 apf, mpf;		/* enum qpu_v3d_pf */
	u8 auf, muf;		/* enum qpu_v3d_uf */
	u8 raddr_a, raddr_b;	/* 4.2: the two shared read addresses */
	struct qpu_v3d_alu add, mul;
	struct qpu_v3d_branch br;
};

extern const struct qpu_v3d_op_info qpu_v3d_add_op_info[QPU_V3D_A_COUNT];
extern const struct qpu_v3d_op_info qpu_v3d_mul_op_info[QPU_V3D_M_COUNT];
extern const u32 qpu_v3d_small_imm[QPU_V3D_SMALL_IMMS];
extern const char *const qpu_v3d_cond_names[QPU_V3D_COND_COUNT];
extern const char *const qpu_v3d_pf_names[QPU_V3D_PF_COUNT];
extern const char *const qpu_v3d_uf_names[QPU_V3D_UF_COUNT];
extern const char *const qpu_v3d_pack_names[QPU_V3D_PACK_COUNT];
extern const char *const qpu_v3d_unpack_names[QPU_V3D_UNPACK_COUNT];
extern const char *const qpu_v3d_branch_cond_names[QPU_V3D_BR_COND_COUNT];
extern const char *const qpu_v3d_msfign_names[QPU_V3D_MSFIGN_COUNT];
/* Signal names in the order of enum qpu_v3d_sig. */
extern const char *const qpu_v3d_sig_names[QPU_V3D_SIG_BITS];

/* The name of magic write address @waddr, or NULL for a reserved one. */
const char *qpu_v3d_waddr_name(enum qpu_gen gen, unsigned int waddr);
const char *qpu_v3d_invalid_name(enum qpu_v3d_invalid why);
/* Whether @op exists on @gen. */
bool qpu_v3d_add_op_valid(enum qpu_gen gen, unsigned int op);
bool qpu_v3d_mul_op_valid(enum qpu_gen gen, unsigned int op);

/* A nop: both ALUs idle, no signal, nop destinations (magic 6). */
void qpu_v3d_nop(struct qpu_v3d_instr *in);

/* Whether operand @a (0) or @b (1) of the add or mul ALU is read. */
bool qpu_v3d_add_reads(const struct qpu_v3d_instr *in, int operand);
bool qpu_v3d_mul_reads(const struct qpu_v3d_instr *in, int operand);

#endif /* QPU_V3D_ISA_H */
