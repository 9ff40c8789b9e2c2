/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * The QPU instruction word of V3D 4.2 (Raspberry Pi 4) and V3D 7.1 (Pi 5):
 * field layout, the tables that name every value, and a lossless codec
 * between the 64-bit word and struct qpu_v3dx_instr. One decoder and one
 * encoder serve both generations, which differ in their operand fields
 * (4.2: two shared read addresses and six accumulators behind 3-bit
 * muxes; 7.1: a 6-bit read address per operand) and in their tables.
 *
 * The prefix is qpu_v3dx_ ("V3D 4.x/7.x", Mesa's "v3d"): qpu.ko already
 * exports qpu_v3d_ for the VideoCore IV V3D block driver.
 */
#ifndef QPU_V3DX_ISA_H
#define QPU_V3DX_ISA_H

#include "qpu_types.h"

#define QPU_V3DX_EINVAL		22	/* Linux's EINVAL */

enum qpu_v3dx_gen {
	QPU_V3DX_GEN_42 = 42,
	QPU_V3DX_GEN_71 = 71,
};

/* Bits @h..@l of a word. */
#define QPU_V3DX_MASK(h, l)	((~0ull >> (63 - (h))) & (~0ull << (l)))

/*
 * Fields of the word, each named by its mask. ALU words use all 64 bits;
 * the 4.2 mux fields and the 7.1 read addresses overlap (bits 23:12).
 */
#define QPU_V3DX_OP_MUL		QPU_V3DX_MASK(63, 58)
#define QPU_V3DX_SIG		QPU_V3DX_MASK(57, 53)
#define QPU_V3DX_COND		QPU_V3DX_MASK(52, 46)
#define QPU_V3DX_MM		QPU_V3DX_MASK(45, 45)
#define QPU_V3DX_MA		QPU_V3DX_MASK(44, 44)
#define QPU_V3DX_WADDR_M	QPU_V3DX_MASK(43, 38)
#define QPU_V3DX_WADDR_A	QPU_V3DX_MASK(37, 32)
#define QPU_V3DX_OP_ADD		QPU_V3DX_MASK(31, 24)
#define QPU_V3DX_MUL_B		QPU_V3DX_MASK(23, 21)	/* 4.2 */
#define QPU_V3DX_MUL_A		QPU_V3DX_MASK(20, 18)	/* 4.2 */
#define QPU_V3DX_ADD_B		QPU_V3DX_MASK(17, 15)	/* 4.2 */
#define QPU_V3DX_ADD_A		QPU_V3DX_MASK(14, 12)	/* 4.2 */
#define QPU_V3DX_RADDR_C	QPU_V3DX_MASK(23, 18)	/* 7.1: mul a */
#define QPU_V3DX_RADDR_D	QPU_V3DX_MASK(17, 12)	/* 7.1: mul b */
#define QPU_V3DX_RADDR_A	QPU_V3DX_MASK(11, 6)
#define QPU_V3DX_RADDR_B	QPU_V3DX_MASK(5, 0)
/* Branch words: mul op 0 and signal 16..23 (bits 57:56 = 2). */
#define QPU_V3DX_BR_KIND	QPU_V3DX_MASK(57, 56)
#define QPU_V3DX_BR_ADDR_LOW	QPU_V3DX_MASK(55, 35)	/* target bits 23:3 */
#define QPU_V3DX_BR_COND	QPU_V3DX_MASK(34, 32)
#define QPU_V3DX_BR_ADDR_HIGH	QPU_V3DX_MASK(31, 24)	/* target bits 31:24 */
#define QPU_V3DX_BR_PAD_23	QPU_V3DX_MASK(23, 23)
#define QPU_V3DX_BR_MSFIGN	QPU_V3DX_MASK(22, 21)
#define QPU_V3DX_BR_PAD_18	QPU_V3DX_MASK(20, 18)
#define QPU_V3DX_BR_BDU		QPU_V3DX_MASK(17, 15)
#define QPU_V3DX_BR_UB		QPU_V3DX_MASK(14, 14)
#define QPU_V3DX_BR_BDI		QPU_V3DX_MASK(13, 12)
#define QPU_V3DX_BR_PAD_0	QPU_V3DX_MASK(5, 0)
#define QPU_V3DX_BR_KIND_BRANCH	2

#define QPU_V3DX_COND_SIG_MAGIC	0x40	/* in COND when a signal writes */
#define QPU_V3DX_SMALL_IMMS	48	/* entries of qpu_v3dx_small_imm */

/* Field @mask of @w, and @v placed in field @mask (masked). */
#define QPU_V3DX_GET(w, mask)	qpu_v3dx_get(w, mask)
#define QPU_V3DX_PUT(mask, v)	qpu_v3dx_put(mask, v)

static inline u32 qpu_v3dx_get(u64 w, u64 mask)
{
	return (u32)((w & mask) >> __builtin_ctzll(mask));
}

static inline u64 qpu_v3dx_put(u64 mask, u32 v)
{
	return ((u64)v << __builtin_ctzll(mask)) & mask;
}

/* Why a word is not an instruction (qpu_v3dx_decode()'s result). */
enum qpu_v3dx_invalid {
	QPU_V3DX_VALID,
	QPU_V3DX_BAD_KIND,	/* mul op 0 without a branch signal */
	QPU_V3DX_BAD_SIG,	/* a reserved signal code */
	QPU_V3DX_BAD_FLAGS,	/* condition/flags code 0x10 */
	QPU_V3DX_BAD_ADD_OP,	/* no add operation has this encoding */
	QPU_V3DX_BAD_MUL_OP,	/* no mul operation has this encoding */
	QPU_V3DX_BAD_UNPACK,	/* a reserved pack or unpack code */
	QPU_V3DX_BAD_SMALL_IMM,	/* small immediate index past 47 */
	QPU_V3DX_BAD_BRANCH,	/* reserved branch condition or msfign */
	QPU_V3DX_INVALID_COUNT
};

/* Signals: the bits of one signal code (qpu_v3dx_sig_bits()). */
enum qpu_v3dx_sig_bit {
	QPU_V3DX_SIG_THRSW	= 1 << 0,
	QPU_V3DX_SIG_LDUNIF	= 1 << 1,
	QPU_V3DX_SIG_LDUNIFA	= 1 << 2,
	QPU_V3DX_SIG_LDUNIFRF	= 1 << 3,
	QPU_V3DX_SIG_LDUNIFARF	= 1 << 4,
	QPU_V3DX_SIG_LDTMU	= 1 << 5,
	QPU_V3DX_SIG_LDVARY	= 1 << 6,
	QPU_V3DX_SIG_LDVPM	= 1 << 7,
	QPU_V3DX_SIG_LDTLB	= 1 << 8,
	QPU_V3DX_SIG_LDTLBU	= 1 << 9,
	QPU_V3DX_SIG_UCB	= 1 << 10,
	QPU_V3DX_SIG_ROT	= 1 << 11,
	QPU_V3DX_SIG_WRTMUC	= 1 << 12,
	QPU_V3DX_SIG_SMIMM_A	= 1 << 13,	/* 7.1: add a */
	QPU_V3DX_SIG_SMIMM_B	= 1 << 14,	/* add b */
	QPU_V3DX_SIG_SMIMM_C	= 1 << 15,	/* 7.1: mul a */
	QPU_V3DX_SIG_SMIMM_D	= 1 << 16,	/* 7.1: mul b */
	QPU_V3DX_SIG_BITS	= 17
};

#define QPU_V3DX_SIG_SMIMMS \
	(QPU_V3DX_SIG_SMIMM_A | QPU_V3DX_SIG_SMIMM_B | QPU_V3DX_SIG_SMIMM_C | \
	 QPU_V3DX_SIG_SMIMM_D)

/* The signals that write the address in COND instead of taking flags. */
#define QPU_V3DX_SIG_WRITES_ADDR \
	(QPU_V3DX_SIG_LDUNIFRF | QPU_V3DX_SIG_LDUNIFARF | QPU_V3DX_SIG_LDVARY | \
	 QPU_V3DX_SIG_LDTMU | QPU_V3DX_SIG_LDTLB | QPU_V3DX_SIG_LDTLBU)

enum qpu_v3dx_cond {
	QPU_V3DX_COND_NONE, QPU_V3DX_COND_IFA, QPU_V3DX_COND_IFB,
	QPU_V3DX_COND_IFNA, QPU_V3DX_COND_IFNB, QPU_V3DX_COND_COUNT
};

enum qpu_v3dx_pf {
	QPU_V3DX_PF_NONE, QPU_V3DX_PF_PUSHZ, QPU_V3DX_PF_PUSHN,
	QPU_V3DX_PF_PUSHC, QPU_V3DX_PF_COUNT
};

/* Update flags, in the order of their codes 4..15 in COND. */
enum qpu_v3dx_uf {
	QPU_V3DX_UF_NONE, QPU_V3DX_UF_ANDZ, QPU_V3DX_UF_ANDNZ,
	QPU_V3DX_UF_NORNZ, QPU_V3DX_UF_NORZ, QPU_V3DX_UF_ANDN,
	QPU_V3DX_UF_ANDNN, QPU_V3DX_UF_NORNN, QPU_V3DX_UF_NORN,
	QPU_V3DX_UF_ANDC, QPU_V3DX_UF_ANDNC, QPU_V3DX_UF_NORNC,
	QPU_V3DX_UF_NORC, QPU_V3DX_UF_COUNT
};

/* Magic write addresses that the checker and the emitter name. */
enum qpu_v3dx_waddr {
	QPU_V3DX_W_R5 = 5,		/* 4.2; quad on 7.1 */
	QPU_V3DX_W_NOP = 6,
	QPU_V3DX_W_TLB = 7,
	QPU_V3DX_W_TLBU = 8,
	QPU_V3DX_W_UNIFA = 9,
	QPU_V3DX_W_TMUL = 10,
	QPU_V3DX_W_TMUD = 11,
	QPU_V3DX_W_TMUA = 12,
	QPU_V3DX_W_TMUAU = 13,
	QPU_V3DX_W_VPM = 14,
	QPU_V3DX_W_VPMU = 15,
	QPU_V3DX_W_SYNC = 16,
	QPU_V3DX_W_SYNCU = 17,
	QPU_V3DX_W_SYNCB = 18,
	QPU_V3DX_W_RECIP = 19,		/* 19..24: the SFU, 4.2 */
	QPU_V3DX_W_RSQRT2 = 24,
	QPU_V3DX_W_TMUC = 32,		/* 32..46: TMU config writes */
	QPU_V3DX_W_TMUHSLOD = 46,
	QPU_V3DX_W_REP = 55,		/* r5rep on 4.2 */
};

enum qpu_v3dx_pack {
	QPU_V3DX_PACK_NONE, QPU_V3DX_PACK_L, QPU_V3DX_PACK_H, QPU_V3DX_PACK_COUNT
};

/* Input unpacks of all kinds (which apply depends on the operation). */
enum qpu_v3dx_unpack {
	QPU_V3DX_UNPACK_NONE,
	QPU_V3DX_UNPACK_ABS,
	QPU_V3DX_UNPACK_L,
	QPU_V3DX_UNPACK_H,
	QPU_V3DX_UNPACK_SAT,		/* 7.1 */
	QPU_V3DX_UNPACK_NSAT,		/* 7.1 */
	QPU_V3DX_UNPACK_MAX0,		/* 7.1 */
	QPU_V3DX_UNPACK_FF,		/* f16 lanes: f32 to both halves */
	QPU_V3DX_UNPACK_LL,
	QPU_V3DX_UNPACK_HH,
	QPU_V3DX_UNPACK_SWP,
	QPU_V3DX_UNPACK_UL,		/* int: 7.1 mov */
	QPU_V3DX_UNPACK_UH,
	QPU_V3DX_UNPACK_IL,
	QPU_V3DX_UNPACK_IH,
	QPU_V3DX_UNPACK_COUNT
};

/* Operand muxes of 4.2 (0..5 are the accumulators r0..r5). */
#define QPU_V3DX_MUX_A	6
#define QPU_V3DX_MUX_B	7

enum qpu_v3dx_add_op {
	QPU_V3DX_A_FADD, QPU_V3DX_A_FADDNF, QPU_V3DX_A_VFPACK, QPU_V3DX_A_ADD,
	QPU_V3DX_A_SUB, QPU_V3DX_A_FSUB, QPU_V3DX_A_MIN, QPU_V3DX_A_MAX,
	QPU_V3DX_A_UMIN, QPU_V3DX_A_UMAX, QPU_V3DX_A_SHL, QPU_V3DX_A_SHR,
	QPU_V3DX_A_ASR, QPU_V3DX_A_ROR, QPU_V3DX_A_FMIN, QPU_V3DX_A_FMAX,
	QPU_V3DX_A_VFMIN, QPU_V3DX_A_AND, QPU_V3DX_A_OR, QPU_V3DX_A_XOR,
	QPU_V3DX_A_VADD, QPU_V3DX_A_VSUB, QPU_V3DX_A_NOT, QPU_V3DX_A_NEG,
	QPU_V3DX_A_FLAPUSH, QPU_V3DX_A_FLBPUSH, QPU_V3DX_A_FLPOP,
	QPU_V3DX_A_RECIP, QPU_V3DX_A_SETMSF, QPU_V3DX_A_SETREVF,
	QPU_V3DX_A_NOP, QPU_V3DX_A_TIDX, QPU_V3DX_A_EIDX, QPU_V3DX_A_LR,
	QPU_V3DX_A_VFLA, QPU_V3DX_A_VFLNA, QPU_V3DX_A_VFLB, QPU_V3DX_A_VFLNB,
	QPU_V3DX_A_FXCD, QPU_V3DX_A_XCD, QPU_V3DX_A_FYCD, QPU_V3DX_A_YCD,
	QPU_V3DX_A_MSF, QPU_V3DX_A_REVF, QPU_V3DX_A_VDWWT, QPU_V3DX_A_IID,
	QPU_V3DX_A_SAMPID, QPU_V3DX_A_BARRIERID, QPU_V3DX_A_TMUWT,
	QPU_V3DX_A_VPMSETUP, QPU_V3DX_A_VPMWT, QPU_V3DX_A_FLAFIRST,
	QPU_V3DX_A_FLNAFIRST, QPU_V3DX_A_LDVPMV_IN, QPU_V3DX_A_LDVPMV_OUT,
	QPU_V3DX_A_LDVPMD_IN, QPU_V3DX_A_LDVPMD_OUT, QPU_V3DX_A_LDVPMP,
	QPU_V3DX_A_RSQRT, QPU_V3DX_A_EXP, QPU_V3DX_A_LOG, QPU_V3DX_A_SIN,
	QPU_V3DX_A_RSQRT2, QPU_V3DX_A_LDVPMG_IN, QPU_V3DX_A_LDVPMG_OUT,
	QPU_V3DX_A_FCMP, QPU_V3DX_A_VFMAX, QPU_V3DX_A_FROUND,
	QPU_V3DX_A_FTOIN, QPU_V3DX_A_FTRUNC, QPU_V3DX_A_FTOIZ,
	QPU_V3DX_A_FFLOOR, QPU_V3DX_A_FTOUZ, QPU_V3DX_A_FCEIL,
	QPU_V3DX_A_FTOC, QPU_V3DX_A_FDX, QPU_V3DX_A_FDY, QPU_V3DX_A_STVPMV,
	QPU_V3DX_A_STVPMD, QPU_V3DX_A_STVPMP, QPU_V3DX_A_ITOF, QPU_V3DX_A_CLZ,
	QPU_V3DX_A_UTOF,
	/* 7.1 only */
	QPU_V3DX_A_FMOV, QPU_V3DX_A_MOV, QPU_V3DX_A_VPACK, QPU_V3DX_A_V8PACK,
	QPU_V3DX_A_V10PACK, QPU_V3DX_A_V11FPACK, QPU_V3DX_A_BALLOT,
	QPU_V3DX_A_BCASTF, QPU_V3DX_A_ALLEQ, QPU_V3DX_A_ALLFEQ,
	QPU_V3DX_A_ROTQ, QPU_V3DX_A_ROT, QPU_V3DX_A_SHUFFLE,
	QPU_V3DX_A_COUNT
};

enum qpu_v3dx_mul_op {
	QPU_V3DX_M_ADD, QPU_V3DX_M_SUB, QPU_V3DX_M_UMUL24, QPU_V3DX_M_VFMUL,
	QPU_V3DX_M_SMUL24, QPU_V3DX_M_MULTOP, QPU_V3DX_M_FMOV, QPU_V3DX_M_MOV,
	QPU_V3DX_M_NOP, QPU_V3DX_M_FMUL,
	/* 7.1 only */
	QPU_V3DX_M_FTOUNORM16, QPU_V3DX_M_FTOSNORM16, QPU_V3DX_M_VFTOUNORM8,
	QPU_V3DX_M_VFTOSNORM8, QPU_V3DX_M_FUNPACKUNORMLO,
	QPU_V3DX_M_FUNPACKUNORMHI, QPU_V3DX_M_FUNPACKSNORMLO,
	QPU_V3DX_M_FUNPACKSNORMHI, QPU_V3DX_M_VFTOUNORM10LO,
	QPU_V3DX_M_VFTOUNORM10HI,
	QPU_V3DX_M_COUNT
};

enum qpu_v3dx_branch_cond {
	QPU_V3DX_BR_ALWAYS, QPU_V3DX_BR_A0, QPU_V3DX_BR_NA0,
	QPU_V3DX_BR_ALLA, QPU_V3DX_BR_ANYNA, QPU_V3DX_BR_ANYA,
	QPU_V3DX_BR_ALLNA, QPU_V3DX_BR_COND_COUNT
};

enum qpu_v3dx_msfign {
	QPU_V3DX_MSFIGN_NONE, QPU_V3DX_MSFIGN_P, QPU_V3DX_MSFIGN_Q,
	QPU_V3DX_MSFIGN_COUNT
};

/* Where a branch goes (bdi) or where the uniform stream goes (bdu). */
enum qpu_v3dx_branch_dest {
	QPU_V3DX_DEST_ABS, QPU_V3DX_DEST_REL, QPU_V3DX_DEST_LINK_REG,
	QPU_V3DX_DEST_REGFILE
};

/* Operand and destination use of an operation (qpu_v3dx_*_op_info). */
#define QPU_V3DX_ARG_D	1	/* writes waddr */
#define QPU_V3DX_ARG_A	2
#define QPU_V3DX_ARG_B	4

struct qpu_v3dx_op_info {
	const char *name;
	u8 args;		/* QPU_V3DX_ARG_* */
	u8 gens;		/* bit 0: 4.2, bit 1: 7.1 */
};

/*
 * One ALU. @a and @b are the operand fields: muxes 0..7 on 4.2, read
 * addresses (or small-immediate indices) on 7.1. An operation that takes
 * fewer operands keeps the unused fields, so that every word survives a
 * decode and an encode; qpu_v3dx_canonicalize() resets them.
 */
struct qpu_v3dx_alu {
	u8 op;			/* enum qpu_v3dx_add_op or qpu_v3dx_mul_op */
	u8 waddr;
	bool magic;
	u8 pack;		/* enum qpu_v3dx_pack */
	u8 unpack_a;		/* enum qpu_v3dx_unpack */
	u8 unpack_b;
	u8 a;
	u8 b;
};

struct qpu_v3dx_branch {
	u8 cond;		/* enum qpu_v3dx_branch_cond */
	u8 msfign;		/* enum qpu_v3dx_msfign */
	u8 bdi;			/* enum qpu_v3dx_branch_dest */
	u8 bdu;			/* kept even when !ub */
	bool ub;		/* the uniform stream branches too */
	u8 raddr_a;
	u32 offset;		/* target (abs) or byte offset (rel), 8-aligned */
	u16 pad;		/* bits 23, 20:18 and 5:0, which have no use */
};

struct qpu_v3dx_instr {
	bool is_branch;
	u8 sig;			/* the signal code, 0..31 */
	u8 sig_addr;		/* when the signal writes an address */
	bool sig_magic;
	u8 ac, mc;		/* enum qpu_v3dx_cond */
	u8 apf, mpf;		/* enum qpu_v3dx_pf */
	u8 auf, muf;		/* enum qpu_v3dx_uf */
	u8 raddr_a, raddr_b;	/* 4.2: the two shared read addresses */
	struct qpu_v3dx_alu add, mul;
	struct qpu_v3dx_branch br;
};

extern const struct qpu_v3dx_op_info qpu_v3dx_add_op_info[QPU_V3DX_A_COUNT];
extern const struct qpu_v3dx_op_info qpu_v3dx_mul_op_info[QPU_V3DX_M_COUNT];
extern const u32 qpu_v3dx_small_imm[QPU_V3DX_SMALL_IMMS];
extern const char *const qpu_v3dx_cond_names[QPU_V3DX_COND_COUNT];
extern const char *const qpu_v3dx_pf_names[QPU_V3DX_PF_COUNT];
extern const char *const qpu_v3dx_uf_names[QPU_V3DX_UF_COUNT];
extern const char *const qpu_v3dx_pack_names[QPU_V3DX_PACK_COUNT];
extern const char *const qpu_v3dx_unpack_names[QPU_V3DX_UNPACK_COUNT];
extern const char *const qpu_v3dx_branch_cond_names[QPU_V3DX_BR_COND_COUNT];
extern const char *const qpu_v3dx_msfign_names[QPU_V3DX_MSFIGN_COUNT];
/* Signal names in the order of enum qpu_v3dx_sig_bit. */
extern const char *const qpu_v3dx_sig_names[QPU_V3DX_SIG_BITS];

/* The signal bits of @code, or 0 for a reserved code (0 is also none). */
u32 qpu_v3dx_sig_bits(enum qpu_v3dx_gen gen, unsigned int code);
/* The code of the signal set @bits, or -QPU_V3DX_EINVAL. */
int qpu_v3dx_sig_code(enum qpu_v3dx_gen gen, u32 bits);
/* The name of magic write address @waddr, or NULL for a reserved one. */
const char *qpu_v3dx_waddr_name(enum qpu_v3dx_gen gen, unsigned int waddr);
const char *qpu_v3dx_invalid_name(enum qpu_v3dx_invalid why);
/* Whether @op exists on @gen. */
bool qpu_v3dx_add_op_valid(enum qpu_v3dx_gen gen, unsigned int op);
bool qpu_v3dx_mul_op_valid(enum qpu_v3dx_gen gen, unsigned int op);

/*
 * qpu_v3dx_decode() - split @w into @in; returns QPU_V3DX_VALID or why
 * the word is no instruction (@in is then partly filled).
 * qpu_v3dx_encode() - the word of @in; 0 or -QPU_V3DX_EINVAL when a field
 * has no encoding. Operand order is normalised first for the operations
 * whose order selects the opcode (fadd/faddnf, fmin/fmax): for every
 * valid w, decode then encode gives w back.
 */
enum qpu_v3dx_invalid qpu_v3dx_decode(enum qpu_v3dx_gen gen, u64 w,
				      struct qpu_v3dx_instr *in);
int qpu_v3dx_encode(enum qpu_v3dx_gen gen, const struct qpu_v3dx_instr *in,
		    u64 *w);

/*
 * qpu_v3dx_canonicalize() - reset the fields that the disassembly text does
 * not show (read addresses nothing reads, but for 4.2's raddr_b under the
 * rot signal, which holds the rotation; unused operand fields, the
 * destination of an operation without one, small-immediate signals of
 * unused operands, a branch's unused fields, and on 4.2 which read address
 * carries which register) to the values an assembler gives them. A word
 * whose text assembles back to it is one for which this changes nothing.
 */
void qpu_v3dx_canonicalize(enum qpu_v3dx_gen gen, struct qpu_v3dx_instr *in);

/*
 * qpu_v3dx_encode_canonical() - the word an assembler gives @in: its
 * canonical form encoded, then canonicalized and encoded again until the
 * word stays (the encoder's operand swap for fadd/faddnf and fmin/fmax can
 * move 4.2's read addresses after the canonical form placed them). 0 or
 * -QPU_V3DX_EINVAL as qpu_v3dx_encode(); @in is canonicalized.
 */
int qpu_v3dx_encode_canonical(enum qpu_v3dx_gen gen, struct qpu_v3dx_instr *in,
			      u64 *w);

/* A nop: both ALUs idle, no signal, nop destinations (magic 6). */
void qpu_v3dx_nop(struct qpu_v3dx_instr *in);

/* Whether operand @a (0) or @b (1) of the add or mul ALU is read. */
bool qpu_v3dx_add_reads(const struct qpu_v3dx_instr *in, int operand);
bool qpu_v3dx_mul_reads(const struct qpu_v3dx_instr *in, int operand);

#endif /* QPU_V3DX_ISA_H */
