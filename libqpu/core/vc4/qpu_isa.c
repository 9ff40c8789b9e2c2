// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * VideoCore IV instruction tables and the lossless word <-> struct codec.
 * Facts from the VideoCore IV 3D Architecture Reference Guide (Broadcom
 * 2013) and Linux's vc4_qpu_defines.h; assembler spellings follow vc4asm so
 * text written for it keeps working. Every word decodes; values without a
 * documented meaning are flagged in qpu_isa_instr.reserved, never rejected.
 */
#include "qpu_isa.h"

#define F_UN	QPU_ISA_OP_UNARY
#define F_FI	QPU_ISA_OP_FLOAT_IN
#define F_FO	QPU_ISA_OP_FLOAT_OUT

const struct qpu_isa_op qpu_isa_add_ops[QPU_ISA_NUM_ADD_OPS] = {
	[QPU_ISA_A_NOP]		= { "nop", 0 },
	[QPU_ISA_A_FADD]	= { "fadd", F_FI | F_FO },
	[QPU_ISA_A_FSUB]	= { "fsub", F_FI | F_FO },
	[QPU_ISA_A_FMIN]	= { "fmin", F_FI | F_FO },
	[QPU_ISA_A_FMAX]	= { "fmax", F_FI | F_FO },
	[QPU_ISA_A_FMINABS]	= { "fminabs", F_FI | F_FO },
	[QPU_ISA_A_FMAXABS]	= { "fmaxabs", F_FI | F_FO },
	[QPU_ISA_A_FTOI]	= { "ftoi", F_UN | F_FI },
	[QPU_ISA_A_ITOF]	= { "itof", F_UN | F_FO },
	[QPU_ISA_A_ADD]		= { "add", 0 },
	[QPU_ISA_A_SUB]		= { "sub", 0 },
	[QPU_ISA_A_SHR]		= { "shr", 0 },
	[QPU_ISA_A_ASR]		= { "asr", 0 },
	[QPU_ISA_A_ROR]		= { "ror", 0 },
	[QPU_ISA_A_SHL]		= { "shl", 0 },
	[QPU_ISA_A_MIN]		= { "min", 0 },
	[QPU_ISA_A_MAX]		= { "max", 0 },
	[QPU_ISA_A_AND]		= { "and", 0 },
	[QPU_ISA_A_OR]		= { "or", 0 },
	[QPU_ISA_A_XOR]		= { "xor", 0 },
	[QPU_ISA_A_NOT]		= { "not", F_UN },
	[QPU_ISA_A_CLZ]		= { "clz", F_UN },
	/* "av8" forces the add ALU; plain v8adds/v8subs name the mul ones. */
	[QPU_ISA_A_V8ADDS]	= { "av8adds", 0 },
	[QPU_ISA_A_V8SUBS]	= { "av8subs", 0 },
};

const struct qpu_isa_op qpu_isa_mul_ops[QPU_ISA_NUM_MUL_OPS] = {
	[QPU_ISA_M_NOP]		= { "mnop", 0 },
	[QPU_ISA_M_FMUL]	= { "fmul", F_FI | F_FO },
	[QPU_ISA_M_MUL24]	= { "mul24", 0 },
	[QPU_ISA_M_V8MULD]	= { "v8muld", 0 },
	[QPU_ISA_M_V8MIN]	= { "v8min", 0 },
	[QPU_ISA_M_V8MAX]	= { "v8max", 0 },
	[QPU_ISA_M_V8ADDS]	= { "v8adds", 0 },
	[QPU_ISA_M_V8SUBS]	= { "v8subs", 0 },
};

const char *const qpu_isa_sig_names[QPU_ISA_NUM_SIGS] = {
	"bkpt", "", "thrsw", "thrend", "sbwait", "sbdone", "lthrsw", "loadcv",
	"loadc", "ldcend", "ldtmu0", "ldtmu1", "loadam", NULL, NULL, NULL,
};

const char *const qpu_isa_cond_names[QPU_ISA_NUM_CONDS] = {
	"never", "", "ifz", "ifnz", "ifn", "ifnn", "ifc", "ifcc",
};

const char *const qpu_isa_br_cond_names[QPU_ISA_NUM_BR_CONDS] = {
	"allz", "allnz", "anyz", "anynz", "alln", "allnn", "anyn", "anynn",
	"allc", "allnc", "anyc", "anync", NULL, NULL, NULL, "",
};

const char *const qpu_isa_mux_names[QPU_ISA_NUM_MUXES] = {
	"r0", "r1", "r2", "r3", "r4", "r5", NULL, NULL,
};

/*
 * The saturating 8-bit regfile-A packs are spelt with an explicit "i" and
 * the mul packs with "f": vc4asm guesses between the two from the opcode when
 * the letter is missing, and a disassembler must not depend on a guess. The
 * mul 8888 pack (3) is "8888": vc4asm encodes "8abcdsf" as 11, a value the
 * Reference Guide and Linux's vc4_qpu_defines.h leave undefined.
 */
const char *const qpu_isa_pack_a_names[16] = {
	"", "16a", "16b", "8abcd", "8a", "8b", "8c", "8d",
	"32s", "16as", "16bs", "8abcdsi", "8asi", "8bsi", "8csi", "8dsi",
};

const char *const qpu_isa_pack_mul_names[16] = {
	"", NULL, NULL, "8888", "8asf", "8bsf", "8csf", "8dsf",
	NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
};

const char *const qpu_isa_unpack_names[8] = {
	"", "16a", "16b", "8dr", "8a", "8b", "8c", "8d",
};

#define R_FILE	QPU_ISA_REG_FILE
#define R_IO	QPU_ISA_REG_IO
#define R_SH	(QPU_ISA_REG_IO | QPU_ISA_REG_SHARED)
#define R_NOP	(QPU_ISA_REG_SHARED | QPU_ISA_REG_NOP)
#define R_RSV	QPU_ISA_REG_RESERVED

#define RSV(p, n)	{ p #n, NULL, R_RSV }
#define WSH(name, ref)	{ name, ref, R_SH }

/*
 * Read addresses 32..63. Regfile A and B differ at 38, 41, 42, 49 and 50;
 * the others read the same unit from either file.
 */
const struct qpu_isa_reg qpu_isa_read_regs[2][64] = {
	{
		{ "ra0", NULL, R_FILE }, { "ra1", NULL, R_FILE }, { "ra2", NULL, R_FILE },
		{ "ra3", NULL, R_FILE }, { "ra4", NULL, R_FILE }, { "ra5", NULL, R_FILE },
		{ "ra6", NULL, R_FILE }, { "ra7", NULL, R_FILE }, { "ra8", NULL, R_FILE },
		{ "ra9", NULL, R_FILE }, { "ra10", NULL, R_FILE }, { "ra11", NULL, R_FILE },
		{ "ra12", NULL, R_FILE }, { "ra13", NULL, R_FILE }, { "ra14", NULL, R_FILE },
		{ "ra15", NULL, R_FILE }, { "ra16", NULL, R_FILE }, { "ra17", NULL, R_FILE },
		{ "ra18", NULL, R_FILE }, { "ra19", NULL, R_FILE }, { "ra20", NULL, R_FILE },
		{ "ra21", NULL, R_FILE }, { "ra22", NULL, R_FILE }, { "ra23", NULL, R_FILE },
		{ "ra24", NULL, R_FILE }, { "ra25", NULL, R_FILE }, { "ra26", NULL, R_FILE },
		{ "ra27", NULL, R_FILE }, { "ra28", NULL, R_FILE }, { "ra29", NULL, R_FILE },
		{ "ra30", NULL, R_FILE }, { "ra31", NULL, R_FILE },
		{ "unif", "uniform_read", R_SH },
		RSV("ra", 33), RSV("ra", 34),
		{ "vary", "varying_read", R_SH },
		RSV("ra", 36), RSV("ra", 37),
		{ "elem_num", "element_number", R_IO },
		{ "nop", "nop", R_NOP },
		RSV("ra", 40),
		{ "x_coord", "x_pixel_coord", R_IO },
		{ "ms_mask", "ms_flags", R_IO },
		RSV("ra", 43), RSV("ra", 44), RSV("ra", 45), RSV("ra", 46),
		RSV("ra", 47),
		{ "vpm", "vpm_read", R_SH },
		{ "vr_busy", "vpm_ld_busy", R_IO },
		{ "vr_wait", "vpm_ld_wait", R_IO },
		{ "mutex", "mutex_acquire", R_SH },
		RSV("ra", 52), RSV("ra", 53), RSV("ra", 54), RSV("ra", 55),
		RSV("ra", 56), RSV("ra", 57), RSV("ra", 58), RSV("ra", 59),
		RSV("ra", 60), RSV("ra", 61), RSV("ra", 62), RSV("ra", 63),
	}, {
		{ "rb0", NULL, R_FILE }, { "rb1", NULL, R_FILE }, { "rb2", NULL, R_FILE },
		{ "rb3", NULL, R_FILE }, { "rb4", NULL, R_FILE }, { "rb5", NULL, R_FILE },
		{ "rb6", NULL, R_FILE }, { "rb7", NULL, R_FILE }, { "rb8", NULL, R_FILE },
		{ "rb9", NULL, R_FILE }, { "rb10", NULL, R_FILE }, { "rb11", NULL, R_FILE },
		{ "rb12", NULL, R_FILE }, { "rb13", NULL, R_FILE }, { "rb14", NULL, R_FILE },
		{ "rb15", NULL, R_FILE }, { "rb16", NULL, R_FILE }, { "rb17", NULL, R_FILE },
		{ "rb18", NULL, R_FILE }, { "rb19", NULL, R_FILE }, { "rb20", NULL, R_FILE },
		{ "rb21", NULL, R_FILE }, { "rb22", NULL, R_FILE }, { "rb23", NULL, R_FILE },
		{ "rb24", NULL, R_FILE }, { "rb25", NULL, R_FILE }, { "rb26", NULL, R_FILE },
		{ "rb27", NULL, R_FILE }, { "rb28", NULL, R_FILE }, { "rb29", NULL, R_FILE },
		{ "rb30", NULL, R_FILE }, { "rb31", NULL, R_FILE },
		{ "unif", "uniform_read", R_SH },
		RSV("rb", 33), RSV("rb", 34),
		{ "vary", "varying_read", R_SH },
		RSV("rb", 36), RSV("rb", 37),
		{ "qpu_num", "qpu_number", R_IO },
		{ "nop", "nop", R_NOP },
		RSV("rb", 40),
		{ "y_coord", "y_pixel_coord", R_IO },
		{ "rev_flag", "rev_flag", R_IO },
		RSV("rb", 43), RSV("rb", 44), RSV("rb", 45), RSV("rb", 46),
		RSV("rb", 47),
		{ "vpm", "vpm_read", R_SH },
		{ "vw_busy", "vpm_st_busy", R_IO },
		{ "vw_wait", "vpm_st_wait", R_IO },
		{ "mutex", "mutex_acquire", R_SH },
		RSV("rb", 52), RSV("rb", 53), RSV("rb", 54), RSV("rb", 55),
		RSV("rb", 56), RSV("rb", 57), RSV("rb", 58), RSV("rb", 59),
		RSV("rb", 60), RSV("rb", 61), RSV("rb", 62), RSV("rb", 63),
	},
};

#define WSH(name, ref)	{ name, ref, R_SH }
/*
 * Write addresses 32..63. Regfile A and B differ at 37 (r5 per quad or
 * replicated), 40, 41, 42, 49 and 50.
 */
const struct qpu_isa_reg qpu_isa_write_regs[2][64] = {
	{
		{ "ra0", NULL, R_FILE }, { "ra1", NULL, R_FILE }, { "ra2", NULL, R_FILE },
		{ "ra3", NULL, R_FILE }, { "ra4", NULL, R_FILE }, { "ra5", NULL, R_FILE },
		{ "ra6", NULL, R_FILE }, { "ra7", NULL, R_FILE }, { "ra8", NULL, R_FILE },
		{ "ra9", NULL, R_FILE }, { "ra10", NULL, R_FILE }, { "ra11", NULL, R_FILE },
		{ "ra12", NULL, R_FILE }, { "ra13", NULL, R_FILE }, { "ra14", NULL, R_FILE },
		{ "ra15", NULL, R_FILE }, { "ra16", NULL, R_FILE }, { "ra17", NULL, R_FILE },
		{ "ra18", NULL, R_FILE }, { "ra19", NULL, R_FILE }, { "ra20", NULL, R_FILE },
		{ "ra21", NULL, R_FILE }, { "ra22", NULL, R_FILE }, { "ra23", NULL, R_FILE },
		{ "ra24", NULL, R_FILE }, { "ra25", NULL, R_FILE }, { "ra26", NULL, R_FILE },
		{ "ra27", NULL, R_FILE }, { "ra28", NULL, R_FILE }, { "ra29", NULL, R_FILE },
		{ "ra30", NULL, R_FILE }, { "ra31", NULL, R_FILE },
		WSH("r0", "acc0"), WSH("r1", "acc1"), WSH("r2", "acc2"),
		WSH("r3", "acc3"), WSH("tmurs", "tmu_noswap"),
		{ "r5quad", "acc5_quad", R_IO },
		WSH("irq", "host_int"),
		{ "-", "nop", R_NOP },
		{ "unif_addr", "unif_addr", R_IO },
		{ "x_coord", "quad_x", R_IO },
		{ "ms_mask", "ms_flags", R_IO },
		WSH("stencil", "tlb_stencil_setup"), WSH("tlbz", "tlb_z"),
		WSH("tlbm", "tlb_color_ms"), WSH("tlbc", "tlb_color_all"),
		WSH("tlbam", "tlb_alpha_mask"), WSH("vpm", "vpm_write"),
		{ "vr_setup", "vpmvcd_rd_setup", R_IO },
		{ "vr_addr", "vpm_ld_addr", R_IO },
		WSH("mutex", "mutex_release"), WSH("recip", "sfu_recip"),
		WSH("recipsqrt", "sfu_recipsqrt"), WSH("exp", "sfu_exp"),
		WSH("log", "sfu_log"), WSH("t0s", "tmu0_s"), WSH("t0t", "tmu0_t"),
		WSH("t0r", "tmu0_r"), WSH("t0b", "tmu0_b"), WSH("t1s", "tmu1_s"),
		WSH("t1t", "tmu1_t"), WSH("t1r", "tmu1_r"), WSH("t1b", "tmu1_b"),
	}, {
		{ "rb0", NULL, R_FILE }, { "rb1", NULL, R_FILE }, { "rb2", NULL, R_FILE },
		{ "rb3", NULL, R_FILE }, { "rb4", NULL, R_FILE }, { "rb5", NULL, R_FILE },
		{ "rb6", NULL, R_FILE }, { "rb7", NULL, R_FILE }, { "rb8", NULL, R_FILE },
		{ "rb9", NULL, R_FILE }, { "rb10", NULL, R_FILE }, { "rb11", NULL, R_FILE },
		{ "rb12", NULL, R_FILE }, { "rb13", NULL, R_FILE }, { "rb14", NULL, R_FILE },
		{ "rb15", NULL, R_FILE }, { "rb16", NULL, R_FILE }, { "rb17", NULL, R_FILE },
		{ "rb18", NULL, R_FILE }, { "rb19", NULL, R_FILE }, { "rb20", NULL, R_FILE },
		{ "rb21", NULL, R_FILE }, { "rb22", NULL, R_FILE }, { "rb23", NULL, R_FILE },
		{ "rb24", NULL, R_FILE }, { "rb25", NULL, R_FILE }, { "rb26", NULL, R_FILE },
		{ "rb27", NULL, R_FILE }, { "rb28", NULL, R_FILE }, { "rb29", NULL, R_FILE },
		{ "rb30", NULL, R_FILE }, { "rb31", NULL, R_FILE },
		WSH("r0", "acc0"), WSH("r1", "acc1"), WSH("r2", "acc2"),
		WSH("r3", "acc3"), WSH("tmurs", "tmu_noswap"),
		{ "r5rep", "acc5_rep", R_IO },
		WSH("irq", "host_int"),
		{ "-", "nop", R_NOP },
		{ "unif_addr_rel", "unif_addr_rel", R_IO },
		{ "y_coord", "quad_y", R_IO },
		{ "rev_flag", "rev_flag", R_IO },
		WSH("stencil", "tlb_stencil_setup"), WSH("tlbz", "tlb_z"),
		WSH("tlbm", "tlb_color_ms"), WSH("tlbc", "tlb_color_all"),
		WSH("tlbam", "tlb_alpha_mask"), WSH("vpm", "vpm_write"),
		{ "vw_setup", "vpmvcd_wr_setup", R_IO },
		{ "vw_addr", "vpm_st_addr", R_IO },
		WSH("mutex", "mutex_release"), WSH("recip", "sfu_recip"),
		WSH("recipsqrt", "sfu_recipsqrt"), WSH("exp", "sfu_exp"),
		WSH("log", "sfu_log"), WSH("t0s", "tmu0_s"), WSH("t0t", "tmu0_t"),
		WSH("t0r", "tmu0_r"), WSH("t0b", "tmu0_b"), WSH("t1s", "tmu1_s"),
		WSH("t1t", "tmu1_t"), WSH("t1r", "tmu1_r"), WSH("t1b", "tmu1_b"),
	},
};

/* vc4asm's other spellings, each valid in one direction only. */
const struct qpu_isa_reg_alias qpu_isa_reg_aliases[QPU_ISA_NUM_REG_ALIASES] = {
	{ "interrupt", "irq", QPU_ISA_ALIAS_WRITE },
	{ "host_int", "irq", QPU_ISA_ALIAS_WRITE },
	{ "mutex_acq", "mutex", QPU_ISA_ALIAS_READ },
	{ "mutex_rel", "mutex", QPU_ISA_ALIAS_WRITE },
};

#define SMI_I(v, t)	{ QPU_ISA_SMI_INT, (u32)(v), t }
#define SMI_F(v, t)	{ QPU_ISA_SMI_FLOAT, v, t }
#define SMI_R(n)	{ QPU_ISA_SMI_ROTATE, n, "" }

/* Floats as IEEE-754 single patterns: 2^0..2^7 and 2^-8..2^-1. */
const struct qpu_isa_smi qpu_isa_small_imms[64] = {
	SMI_I(0, "0"), SMI_I(1, "1"), SMI_I(2, "2"), SMI_I(3, "3"),
	SMI_I(4, "4"), SMI_I(5, "5"), SMI_I(6, "6"), SMI_I(7, "7"),
	SMI_I(8, "8"), SMI_I(9, "9"), SMI_I(10, "10"), SMI_I(11, "11"),
	SMI_I(12, "12"), SMI_I(13, "13"), SMI_I(14, "14"), SMI_I(15, "15"),
	SMI_I(-16, "-16"), SMI_I(-15, "-15"), SMI_I(-14, "-14"),
	SMI_I(-13, "-13"), SMI_I(-12, "-12"), SMI_I(-11, "-11"),
	SMI_I(-10, "-10"), SMI_I(-9, "-9"), SMI_I(-8, "-8"), SMI_I(-7, "-7"),
	SMI_I(-6, "-6"), SMI_I(-5, "-5"), SMI_I(-4, "-4"), SMI_I(-3, "-3"),
	SMI_I(-2, "-2"), SMI_I(-1, "-1"),
	SMI_F(0x3f800000, "1.0"), SMI_F(0x40000000, "2.0"),
	SMI_F(0x40800000, "4.0"), SMI_F(0x41000000, "8.0"),
	SMI_F(0x41800000, "16.0"), SMI_F(0x42000000, "32.0"),
	SMI_F(0x42800000, "64.0"), SMI_F(0x43000000, "128.0"),
	SMI_F(0x3b800000, "0.00390625"), SMI_F(0x3c000000, "0.0078125"),
	SMI_F(0x3c800000, "0.015625"), SMI_F(0x3d000000, "0.03125"),
	SMI_F(0x3d800000, "0.0625"), SMI_F(0x3e000000, "0.125"),
	SMI_F(0x3e800000, "0.25"), SMI_F(0x3f000000, "0.5"),
	SMI_R(0), SMI_R(1), SMI_R(2), SMI_R(3), SMI_R(4), SMI_R(5), SMI_R(6),
	SMI_R(7), SMI_R(8), SMI_R(9), SMI_R(10), SMI_R(11), SMI_R(12),
	SMI_R(13), SMI_R(14), SMI_R(15),
};

static u32 field(u64 word, unsigned int shift, unsigned int bits)
{
	return QPU_ISA_FIELD(word, shift, bits);
}

static bool bit(u64 word, unsigned int shift)
{
	return (word >> shift) & 1;
}

/* Fields shared by ALU, load-immediate and semaphore words (bits 56:32). */
static void decode_write_side(u64 w, struct qpu_isa_instr *in)
{
	in->pm = bit(w, QPU_ISA_PM_SHIFT);
	in->pack = field(w, QPU_ISA_PACK_SHIFT, QPU_ISA_PACK_BITS);
	in->cond_add = field(w, QPU_ISA_COND_ADD_SHIFT, QPU_ISA_COND_BITS);
	in->cond_mul = field(w, QPU_ISA_COND_MUL_SHIFT, QPU_ISA_COND_BITS);
	in->sf = bit(w, QPU_ISA_SF_SHIFT);
	in->ws = bit(w, QPU_ISA_WS_SHIFT);
	in->waddr_add = field(w, QPU_ISA_WADDR_ADD_SHIFT, QPU_ISA_WADDR_BITS);
	in->waddr_mul = field(w, QPU_ISA_WADDR_MUL_SHIFT, QPU_ISA_WADDR_BITS);
	if (in->pm && !qpu_isa_pack_mul_names[in->pack])
		in->reserved |= QPU_ISA_RSV_PACK;
}

static void decode_alu(u64 w, struct qpu_isa_instr *in)
{
	in->kind = in->sig == QPU_ISA_SIG_SMALL_IMM ?
		QPU_ISA_KIND_ALU_SMALL_IMM : QPU_ISA_KIND_ALU;
	in->unpack = field(w, QPU_ISA_UNPACK_SHIFT, QPU_ISA_UNPACK_BITS);
	decode_write_side(w, in);
	in->op_mul = field(w, QPU_ISA_OP_MUL_SHIFT, QPU_ISA_OP_MUL_BITS);
	in->op_add = field(w, QPU_ISA_OP_ADD_SHIFT, QPU_ISA_OP_ADD_BITS);
	in->raddr_a = field(w, QPU_ISA_RADDR_A_SHIFT, QPU_ISA_RADDR_BITS);
	in->raddr_b = field(w, QPU_ISA_RADDR_B_SHIFT, QPU_ISA_RADDR_BITS);
	in->add_a = field(w, QPU_ISA_ADD_A_SHIFT, QPU_ISA_MUX_BITS);
	in->add_b = field(w, QPU_ISA_ADD_B_SHIFT, QPU_ISA_MUX_BITS);
	in->mul_a = field(w, QPU_ISA_MUL_A_SHIFT, QPU_ISA_MUX_BITS);
	in->mul_b = field(w, QPU_ISA_MUL_B_SHIFT, QPU_ISA_MUX_BITS);
	if (!qpu_isa_add_ops[in->op_add].name)
		in->reserved |= QPU_ISA_RSV_OP_ADD;
}

static void decode_ldi(u64 w, struct qpu_isa_instr *in)
{
	u32 mode = field(w, QPU_ISA_LDI_MODE_SHIFT, QPU_ISA_LDI_MODE_BITS);

	in->imm = (u32)w;
	switch (mode) {
	case QPU_ISA_LDI_32:
		in->kind = QPU_ISA_KIND_LDI;
		break;
	case QPU_ISA_LDI_PES:
		in->kind = QPU_ISA_KIND_LDI_PES;
		break;
	case QPU_ISA_LDI_PEU:
		in->kind = QPU_ISA_KIND_LDI_PEU;
		break;
	case QPU_ISA_LDI_SEMA:
		in->kind = QPU_ISA_KIND_SEMA;
		in->sem = in->imm & ((1u << QPU_ISA_SEM_NUM_BITS) - 1);
		in->sem_acquire = bit(w, QPU_ISA_SEM_ACQUIRE_BIT);
		in->sem_pad = in->imm >> QPU_ISA_SEM_PAD_SHIFT;
		in->imm = 0;
		if (in->sem_pad)
			in->reserved |= QPU_ISA_RSV_SEM_PAD;
		break;
	default:
		in->kind = QPU_ISA_KIND_RAW;
		in->ldi_mode = mode;
		in->raw = w;
		in->reserved |= QPU_ISA_RSV_LDI_MODE;
		return;
	}
	decode_write_side(w, in);
}

static void decode_branch(u64 w, struct qpu_isa_instr *in)
{
	in->kind = QPU_ISA_KIND_BRANCH;
	in->br_pad = field(w, QPU_ISA_BR_PAD_SHIFT, QPU_ISA_BR_PAD_BITS);
	in->br_cond = field(w, QPU_ISA_BR_COND_SHIFT, QPU_ISA_BR_COND_BITS);
	in->br_rel = bit(w, QPU_ISA_BR_REL_SHIFT);
	in->br_reg = bit(w, QPU_ISA_BR_REG_SHIFT);
	in->raddr_a = field(w, QPU_ISA_BR_RADDR_SHIFT, QPU_ISA_BR_RADDR_BITS);
	in->ws = bit(w, QPU_ISA_WS_SHIFT);
	in->waddr_add = field(w, QPU_ISA_WADDR_ADD_SHIFT, QPU_ISA_WADDR_BITS);
	in->waddr_mul = field(w, QPU_ISA_WADDR_MUL_SHIFT, QPU_ISA_WADDR_BITS);
	in->imm = (u32)w;
	if (in->br_pad)
		in->reserved |= QPU_ISA_RSV_BR_PAD;
	if (!qpu_isa_br_cond_names[in->br_cond])
		in->reserved |= QPU_ISA_RSV_BR_COND;
	if (!in->br_reg && in->raddr_a)
		in->reserved |= QPU_ISA_RSV_BR_RADDR;
}

/**
 * qpu_isa_decode() - split an instruction word into its fields
 * @word: the instruction
 * @instr: filled in completely; members the kind does not use are zero
 */
void qpu_isa_decode(u64 word, struct qpu_isa_instr *instr)
{
	*instr = (struct qpu_isa_instr){ 0 };
	instr->sig = field(word, QPU_ISA_SIG_SHIFT, QPU_ISA_SIG_BITS);
	switch (instr->sig) {
	case QPU_ISA_SIG_LOAD_IMM:
		decode_ldi(word, instr);
		break;
	case QPU_ISA_SIG_BRANCH:
		decode_branch(word, instr);
		break;
	default:
		decode_alu(word, instr);
		break;
	}
}

/* Place @val in @bits bits at @shift; false if it does not fit. */
static bool put(u64 *w, u32 val, unsigned int shift, unsigned int bits)
{
	if (bits < 32 && val >> bits)
		return false;
	*w |= (u64)val << shift;
	return true;
}

static bool encode_write_side(const struct qpu_isa_instr *in, u64 *w)
{
	bool ok = true;

	ok &= put(w, in->pm, QPU_ISA_PM_SHIFT, 1);
	ok &= put(w, in->pack, QPU_ISA_PACK_SHIFT, QPU_ISA_PACK_BITS);
	ok &= put(w, in->cond_add, QPU_ISA_COND_ADD_SHIFT, QPU_ISA_COND_BITS);
	ok &= put(w, in->cond_mul, QPU_ISA_COND_MUL_SHIFT, QPU_ISA_COND_BITS);
	ok &= put(w, in->sf, QPU_ISA_SF_SHIFT, 1);
	ok &= put(w, in->ws, QPU_ISA_WS_SHIFT, 1);
	ok &= put(w, in->waddr_add, QPU_ISA_WADDR_ADD_SHIFT, QPU_ISA_WADDR_BITS);
	ok &= put(w, in->waddr_mul, QPU_ISA_WADDR_MUL_SHIFT, QPU_ISA_WADDR_BITS);
	return ok;
}

static bool encode_alu(const struct qpu_isa_instr *in, u64 *w)
{
	bool ok = true;

	if (in->kind == QPU_ISA_KIND_ALU && in->sig >= QPU_ISA_SIG_SMALL_IMM)
		return false;
	ok &= put(w, in->kind == QPU_ISA_KIND_ALU ? in->sig : QPU_ISA_SIG_SMALL_IMM,
		  QPU_ISA_SIG_SHIFT, QPU_ISA_SIG_BITS);
	ok &= put(w, in->unpack, QPU_ISA_UNPACK_SHIFT, QPU_ISA_UNPACK_BITS);
	ok &= encode_write_side(in, w);
	ok &= put(w, in->op_mul, QPU_ISA_OP_MUL_SHIFT, QPU_ISA_OP_MUL_BITS);
	ok &= put(w, in->op_add, QPU_ISA_OP_ADD_SHIFT, QPU_ISA_OP_ADD_BITS);
	ok &= put(w, in->raddr_a, QPU_ISA_RADDR_A_SHIFT, QPU_ISA_RADDR_BITS);
	ok &= put(w, in->raddr_b, QPU_ISA_RADDR_B_SHIFT, QPU_ISA_RADDR_BITS);
	ok &= put(w, in->add_a, QPU_ISA_ADD_A_SHIFT, QPU_ISA_MUX_BITS);
	ok &= put(w, in->add_b, QPU_ISA_ADD_B_SHIFT, QPU_ISA_MUX_BITS);
	ok &= put(w, in->mul_a, QPU_ISA_MUL_A_SHIFT, QPU_ISA_MUX_BITS);
	ok &= put(w, in->mul_b, QPU_ISA_MUL_B_SHIFT, QPU_ISA_MUX_BITS);
	return ok;
}

static bool encode_ldi(const struct qpu_isa_instr *in, u64 *w)
{
	static const u8 modes[QPU_ISA_NUM_KINDS] = {
		[QPU_ISA_KIND_LDI] = QPU_ISA_LDI_32,
		[QPU_ISA_KIND_LDI_PES] = QPU_ISA_LDI_PES,
		[QPU_ISA_KIND_LDI_PEU] = QPU_ISA_LDI_PEU,
		[QPU_ISA_KIND_SEMA] = QPU_ISA_LDI_SEMA,
	};
	bool ok = true;

	put(w, QPU_ISA_SIG_LOAD_IMM, QPU_ISA_SIG_SHIFT, QPU_ISA_SIG_BITS);
	put(w, modes[in->kind], QPU_ISA_LDI_MODE_SHIFT, QPU_ISA_LDI_MODE_BITS);
	ok &= encode_write_side(in, w);
	if (in->kind != QPU_ISA_KIND_SEMA)
		return ok && put(w, in->imm, 0, 32);
	ok &= put(w, in->sem, 0, QPU_ISA_SEM_NUM_BITS);
	ok &= put(w, in->sem_acquire, QPU_ISA_SEM_ACQUIRE_BIT, 1);
	ok &= put(w, in->sem_pad, QPU_ISA_SEM_PAD_SHIFT, QPU_ISA_SEM_PAD_BITS);
	return ok;
}

static bool encode_branch(const struct qpu_isa_instr *in, u64 *w)
{
	bool ok = true;

	put(w, QPU_ISA_SIG_BRANCH, QPU_ISA_SIG_SHIFT, QPU_ISA_SIG_BITS);
	ok &= put(w, in->br_pad, QPU_ISA_BR_PAD_SHIFT, QPU_ISA_BR_PAD_BITS);
	ok &= put(w, in->br_cond, QPU_ISA_BR_COND_SHIFT, QPU_ISA_BR_COND_BITS);
	ok &= put(w, in->br_rel, QPU_ISA_BR_REL_SHIFT, 1);
	ok &= put(w, in->br_reg, QPU_ISA_BR_REG_SHIFT, 1);
	ok &= put(w, in->raddr_a, QPU_ISA_BR_RADDR_SHIFT, QPU_ISA_BR_RADDR_BITS);
	ok &= put(w, in->ws, QPU_ISA_WS_SHIFT, 1);
	ok &= put(w, in->waddr_add, QPU_ISA_WADDR_ADD_SHIFT, QPU_ISA_WADDR_BITS);
	ok &= put(w, in->waddr_mul, QPU_ISA_WADDR_MUL_SHIFT, QPU_ISA_WADDR_BITS);
	ok &= put(w, in->imm, 0, 32);
	return ok;
}

static bool encode_raw(const struct qpu_isa_instr *in, u64 *w)
{
	u32 mode = QPU_ISA_FIELD(in->raw, QPU_ISA_LDI_MODE_SHIFT,
				 QPU_ISA_LDI_MODE_BITS);

	/* Only the reserved load-immediate modes have no struct form. */
	if (QPU_ISA_FIELD(in->raw, QPU_ISA_SIG_SHIFT, QPU_ISA_SIG_BITS) !=
	    QPU_ISA_SIG_LOAD_IMM || mode == QPU_ISA_LDI_32 ||
	    mode == QPU_ISA_LDI_PES || mode == QPU_ISA_LDI_PEU ||
	    mode == QPU_ISA_LDI_SEMA)
		return false;
	*w = in->raw;
	return true;
}

/**
 * qpu_isa_encode() - build an instruction word from its fields
 * @instr: the instruction; reserved values are encoded as given
 * @word: receives the word on success, untouched on failure
 *
 * Return: 0, -QPU_ISA_EINVAL for an unknown kind or a RAW word that has a
 * struct form, -QPU_ISA_ERANGE if a field does not fit in its bits (or an
 * ALU kind carries signal 13..15).
 */
int qpu_isa_encode(const struct qpu_isa_instr *instr, u64 *word)
{
	u64 w = 0;
	bool ok;

	switch (instr->kind) {
	case QPU_ISA_KIND_ALU:
	case QPU_ISA_KIND_ALU_SMALL_IMM:
		ok = encode_alu(instr, &w);
		break;
	case QPU_ISA_KIND_LDI:
	case QPU_ISA_KIND_LDI_PES:
	case QPU_ISA_KIND_LDI_PEU:
	case QPU_ISA_KIND_SEMA:
		ok = encode_ldi(instr, &w);
		break;
	case QPU_ISA_KIND_BRANCH:
		ok = encode_branch(instr, &w);
		break;
	case QPU_ISA_KIND_RAW:
		if (!encode_raw(instr, &w))
			return -QPU_ISA_EINVAL;
		ok = true;
		break;
	default:
		return -QPU_ISA_EINVAL;
	}
	if (!ok)
		return -QPU_ISA_ERANGE;
	*word = w;
	return 0;
}

/**
 * qpu_isa_ldi_elem() - one element of a per-element load immediate
 * @imm: the 32-bit immediate of an ldipes/ldipeu word
 * @is_signed: ldipes (-2..1) instead of ldipeu (0..3)
 * @elem: element number, 0..15 (taken modulo 16)
 *
 * Element i takes bit i of the low half as its low bit and bit 16 + i as
 * its high bit, two's complement when signed.
 *
 * Return: the element's value.
 */
s32 qpu_isa_ldi_elem(u32 imm, bool is_signed, unsigned int elem)
{
	u32 lo = (imm >> (elem & 15)) & 1;
	u32 hi = (imm >> (16 + (elem & 15))) & 1;

	if (is_signed && hi)
		return (s32)lo - 2;
	return (s32)(hi << 1 | lo);
}

/**
 * qpu_isa_ldi_pack_elems() - the immediate of a per-element load immediate
 * @values: 16 element values, -2..1 if @is_signed, else 0..3
 * @is_signed: for ldipes instead of ldipeu
 * @imm: receives the immediate on success, untouched on failure
 *
 * Return: 0, or -QPU_ISA_ERANGE if a value is out of range.
 */
int qpu_isa_ldi_pack_elems(const s32 *values, bool is_signed, u32 *imm)
{
	s32 min = is_signed ? -2 : 0;
	s32 max = is_signed ? 1 : 3;
	u32 out = 0;
	unsigned int i;

	for (i = 0; i < 16; i++) {
		u32 v;

		if (values[i] < min || values[i] > max)
			return -QPU_ISA_ERANGE;
		v = (u32)values[i] & 3;
		out |= (v & 1) << i;
		out |= (v >> 1) << (16 + i);
	}
	*imm = out;
	return 0;
}
