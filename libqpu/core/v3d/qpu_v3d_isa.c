// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * V3D 4.2 and 7.1 instruction tables: the names of every field's values,
 * what each operation reads and writes and on which generation it exists,
 * the small immediates and the magic write addresses. The encodings are
 * the codec's (qpu_v3d_codec.c), as Mesa keeps qpu_instr.c apart from
 * qpu_pack.c.
 */
#include "v3d/qpu_v3d_isa.h"

const char *const qpu_v3d_sig_names[QPU_V3D_SIG_BITS] = {
	"thrsw", "ldunif", "ldunifa", "ldunifrf", "ldunifarf", "ldtmu",
	"ldvary", "ldvpm", "ldtlb", "ldtlbu", "ucb", "rot", "wrtmuc",
	"smimm_a", "smimm_b", "smimm_c", "smimm_d",
};

/* 0..15, -16..-1, then the powers of two 2^-8..2^7 as floats. */
const u32 qpu_v3d_small_imm[QPU_V3D_SMALL_IMMS] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
	0xfffffff0, 0xfffffff1, 0xfffffff2, 0xfffffff3,
	0xfffffff4, 0xfffffff5, 0xfffffff6, 0xfffffff7,
	0xfffffff8, 0xfffffff9, 0xfffffffa, 0xfffffffb,
	0xfffffffc, 0xfffffffd, 0xfffffffe, 0xffffffff,
	0x3b800000, 0x3c000000, 0x3c800000, 0x3d000000,
	0x3d800000, 0x3e000000, 0x3e800000, 0x3f000000,
	0x3f800000, 0x40000000, 0x40800000, 0x41000000,
	0x41800000, 0x42000000, 0x42800000, 0x43000000,
};

const char *const qpu_v3d_cond_names[QPU_V3D_COND_COUNT] = {
	"", "ifa", "ifb", "ifna", "ifnb",
};

const char *const qpu_v3d_pf_names[QPU_V3D_PF_COUNT] = {
	"", "pushz", "pushn", "pushc",
};

const char *const qpu_v3d_uf_names[QPU_V3D_UF_COUNT] = {
	"", "andz", "andnz", "nornz", "norz", "andn", "andnn", "nornn",
	"norn", "andc", "andnc", "nornc", "norc",
};

const char *const qpu_v3d_pack_names[QPU_V3D_PACK_COUNT] = { "", "l", "h" };

const char *const qpu_v3d_unpack_names[QPU_V3D_UNPACK_COUNT] = {
	"", "abs", "l", "h", "sat", "nsat", "max0", "ff", "ll", "hh", "swp",
	"ul", "uh", "il", "ih",
};

const char *const qpu_v3d_branch_cond_names[QPU_V3D_BR_COND_COUNT] = {
	"", "a0", "na0", "alla", "anyna", "anya", "allna",
};

const char *const qpu_v3d_msfign_names[QPU_V3D_MSFIGN_COUNT] = {
	"", "p", "q",
};

#define D	QPU_V3D_ARG_D
#define A	QPU_V3D_ARG_A
#define B	QPU_V3D_ARG_B
#define G42	1
#define G71	2
#define GALL	(G42 | G71)

const struct qpu_v3d_op_info qpu_v3d_add_op_info[QPU_V3D_A_COUNT] = {
	[QPU_V3D_A_FADD] = { "fadd", D | A | B, GALL },
	[QPU_V3D_A_FADDNF] = { "faddnf", D | A | B, GALL },
	[QPU_V3D_A_VFPACK] = { "vfpack", D | A | B, GALL },
	[QPU_V3D_A_ADD] = { "add", D | A | B, GALL },
	[QPU_V3D_A_SUB] = { "sub", D | A | B, GALL },
	[QPU_V3D_A_FSUB] = { "fsub", D | A | B, GALL },
	[QPU_V3D_A_MIN] = { "min", D | A | B, GALL },
	[QPU_V3D_A_MAX] = { "max", D | A | B, GALL },
	[QPU_V3D_A_UMIN] = { "umin", D | A | B, GALL },
	[QPU_V3D_A_UMAX] = { "umax", D | A | B, GALL },
	[QPU_V3D_A_SHL] = { "shl", D | A | B, GALL },
	[QPU_V3D_A_SHR] = { "shr", D | A | B, GALL },
	[QPU_V3D_A_ASR] = { "asr", D | A | B, GALL },
	[QPU_V3D_A_ROR] = { "ror", D | A | B, GALL },
	[QPU_V3D_A_FMIN] = { "fmin", D | A | B, GALL },
	[QPU_V3D_A_FMAX] = { "fmax", D | A | B, GALL },
	[QPU_V3D_A_VFMIN] = { "vfmin", D | A | B, GALL },
	[QPU_V3D_A_AND] = { "and", D | A | B, GALL },
	[QPU_V3D_A_OR] = { "or", D | A | B, GALL },
	[QPU_V3D_A_XOR] = { "xor", D | A | B, GALL },
	[QPU_V3D_A_VADD] = { "vadd", D | A | B, GALL },
	[QPU_V3D_A_VSUB] = { "vsub", D | A | B, GALL },
	[QPU_V3D_A_NOT] = { "not", D | A, GALL },
	[QPU_V3D_A_NEG] = { "neg", D | A, GALL },
	[QPU_V3D_A_FLAPUSH] = { "flapush", D | A, GALL },
	[QPU_V3D_A_FLBPUSH] = { "flbpush", D | A, GALL },
	[QPU_V3D_A_FLPOP] = { "flpop", D | A, GALL },
	[QPU_V3D_A_RECIP] = { "recip", D | A, GALL },
	[QPU_V3D_A_SETMSF] = { "setmsf", D | A, GALL },
	[QPU_V3D_A_SETREVF] = { "setrevf", D | A, GALL },
	[QPU_V3D_A_NOP] = { "nop", 0, GALL },
	[QPU_V3D_A_TIDX] = { "tidx", D, GALL },
	[QPU_V3D_A_EIDX] = { "eidx", D, GALL },
	[QPU_V3D_A_LR] = { "lr", D, GALL },
	[QPU_V3D_A_VFLA] = { "vfla", D, GALL },
	[QPU_V3D_A_VFLNA] = { "vflna", D, GALL },
	[QPU_V3D_A_VFLB] = { "vflb", D, GALL },
	[QPU_V3D_A_VFLNB] = { "vflnb", D, GALL },
	[QPU_V3D_A_FXCD] = { "fxcd", D, GALL },
	[QPU_V3D_A_XCD] = { "xcd", D, GALL },
	[QPU_V3D_A_FYCD] = { "fycd", D, GALL },
	[QPU_V3D_A_YCD] = { "ycd", D, GALL },
	[QPU_V3D_A_MSF] = { "msf", D, GALL },
	[QPU_V3D_A_REVF] = { "revf", D, GALL },
	[QPU_V3D_A_VDWWT] = { "vdwwt", D, G42 },
	/* 4.2's table has iid on vdwwt's encoding, after it: never decoded */
	[QPU_V3D_A_IID] = { "iid", D, G71 },
	[QPU_V3D_A_SAMPID] = { "sampid", D, GALL },
	[QPU_V3D_A_BARRIERID] = { "barrierid", D, GALL },
	[QPU_V3D_A_TMUWT] = { "tmuwt", D, GALL },
	[QPU_V3D_A_VPMSETUP] = { "vpmsetup", D | A, G42 },
	[QPU_V3D_A_VPMWT] = { "vpmwt", D, GALL },
	[QPU_V3D_A_FLAFIRST] = { "flafirst", D, GALL },
	[QPU_V3D_A_FLNAFIRST] = { "flnafirst", D, GALL },
	[QPU_V3D_A_LDVPMV_IN] = { "ldvpmv_in", D | A, GALL },
	[QPU_V3D_A_LDVPMV_OUT] = { "ldvpmv_out", D | A, GALL },
	[QPU_V3D_A_LDVPMD_IN] = { "ldvpmd_in", D | A, GALL },
	[QPU_V3D_A_LDVPMD_OUT] = { "ldvpmd_out", D | A, GALL },
	[QPU_V3D_A_LDVPMP] = { "ldvpmp", D | A, GALL },
	[QPU_V3D_A_RSQRT] = { "rsqrt", D | A, GALL },
	[QPU_V3D_A_EXP] = { "exp", D | A, GALL },
	[QPU_V3D_A_LOG] = { "log", D | A, GALL },
	[QPU_V3D_A_SIN] = { "sin", D | A, GALL },
	[QPU_V3D_A_RSQRT2] = { "rsqrt2", D | A, GALL },
	[QPU_V3D_A_LDVPMG_IN] = { "ldvpmg_in", D | A | B, GALL },
	[QPU_V3D_A_LDVPMG_OUT] = { "ldvpmg_out", D | A | B, GALL },
	[QPU_V3D_A_FCMP] = { "fcmp", D | A | B, GALL },
	[QPU_V3D_A_VFMAX] = { "vfmax", D | A | B, GALL },
	[QPU_V3D_A_FROUND] = { "fround", D | A, GALL },
	[QPU_V3D_A_FTOIN] = { "ftoin", D | A, GALL },
	[QPU_V3D_A_FTRUNC] = { "ftrunc", D | A, GALL },
	[QPU_V3D_A_FTOIZ] = { "ftoiz", D | A, GALL },
	[QPU_V3D_A_FFLOOR] = { "ffloor", D | A, GALL },
	[QPU_V3D_A_FTOUZ] = { "ftouz", D | A, GALL },
	[QPU_V3D_A_FCEIL] = { "fceil", D | A, GALL },
	[QPU_V3D_A_FTOC] = { "ftoc", D | A, GALL },
	[QPU_V3D_A_FDX] = { "fdx", D | A, GALL },
	[QPU_V3D_A_FDY] = { "fdy", D | A, GALL },
	[QPU_V3D_A_STVPMV] = { "stvpmv", A | B, GALL },
	[QPU_V3D_A_STVPMD] = { "stvpmd", A | B, GALL },
	[QPU_V3D_A_STVPMP] = { "stvpmp", A | B, GALL },
	[QPU_V3D_A_ITOF] = { "itof", D | A, GALL },
	[QPU_V3D_A_CLZ] = { "clz", D | A, GALL },
	[QPU_V3D_A_UTOF] = { "utof", D | A, GALL },
	[QPU_V3D_A_FMOV] = { "fmov", D | A, G71 },
	[QPU_V3D_A_MOV] = { "mov", D | A, G71 },
	[QPU_V3D_A_VPACK] = { "vpack", D | A | B, G71 },
	[QPU_V3D_A_V8PACK] = { "v8pack", D | A | B, G71 },
	[QPU_V3D_A_V10PACK] = { "v10pack", D | A | B, G71 },
	[QPU_V3D_A_V11FPACK] = { "v11fpack", D | A | B, G71 },
	[QPU_V3D_A_BALLOT] = { "ballot", D | A, G71 },
	[QPU_V3D_A_BCASTF] = { "bcastf", D | A, G71 },
	[QPU_V3D_A_ALLEQ] = { "alleq", D | A, G71 },
	[QPU_V3D_A_ALLFEQ] = { "allfeq", D | A, G71 },
	[QPU_V3D_A_ROTQ] = { "rotq", D | A | B, G71 },
	[QPU_V3D_A_ROT] = { "rot", D | A | B, G71 },
	[QPU_V3D_A_SHUFFLE] = { "shuffle", D | A | B, G71 },
};

const struct qpu_v3d_op_info qpu_v3d_mul_op_info[QPU_V3D_M_COUNT] = {
	[QPU_V3D_M_ADD] = { "add", D | A | B, GALL },
	[QPU_V3D_M_SUB] = { "sub", D | A | B, GALL },
	[QPU_V3D_M_UMUL24] = { "umul24", D | A | B, GALL },
	[QPU_V3D_M_VFMUL] = { "vfmul", D | A | B, GALL },
	[QPU_V3D_M_SMUL24] = { "smul24", D | A | B, GALL },
	[QPU_V3D_M_MULTOP] = { "multop", D | A | B, GALL },
	[QPU_V3D_M_FMOV] = { "fmov", D | A, GALL },
	[QPU_V3D_M_MOV] = { "mov", D | A, GALL },
	[QPU_V3D_M_NOP] = { "nop", 0, GALL },
	[QPU_V3D_M_FMUL] = { "fmul", D | A | B, GALL },
	[QPU_V3D_M_FTOUNORM16] = { "ftounorm16", D | A, G71 },
	[QPU_V3D_M_FTOSNORM16] = { "ftosnorm16", D | A, G71 },
	[QPU_V3D_M_VFTOUNORM8] = { "vftounorm8", D | A, G71 },
	[QPU_V3D_M_VFTOSNORM8] = { "vftosnorm8", D | A, G71 },
	[QPU_V3D_M_FUNPACKUNORMLO] = { "funpackunormlo", D | A, G71 },
	[QPU_V3D_M_FUNPACKUNORMHI] = { "funpackunormhi", D | A, G71 },
	[QPU_V3D_M_FUNPACKSNORMLO] = { "funpacksnormlo", D | A, G71 },
	[QPU_V3D_M_FUNPACKSNORMHI] = { "funpacksnormhi", D | A, G71 },
	[QPU_V3D_M_VFTOUNORM10LO] = { "vftounorm10lo", D | A, G71 },
	[QPU_V3D_M_VFTOUNORM10HI] = { "vftounorm10hi", D | A, G71 },
};

static const char *const waddr_names[64] = {
	"r0", "r1", "r2", "r3", "r4", "r5", "-", "tlb", "tlbu", "unifa",
	"tmul", "tmud", "tmua", "tmuau", "vpm", "vpmu", "sync", "syncu",
	"syncb", "recip", "rsqrt", "exp", "log", "sin", "rsqrt2",
	[32] = "tmuc", "tmus", "tmut", "tmur", "tmui", "tmub", "tmudref",
	"tmuoff", "tmuscm", "tmusf", "tmuslod", "tmuhs",
	/* Mesa prints 44 as "tmuscm" too; a distinct name keeps 40 and 44 apart */
	"tmuhscm", "tmuhsf", "tmuhslod",
	[55] = "r5rep",
};

const char *qpu_v3d_waddr_name(enum qpu_gen gen, unsigned int waddr)
{
	if (waddr >= 64)
		return NULL;
	if (gen == QPU_GEN_V3D71 && waddr == QPU_V3D_W_R5)
		return "quad";
	if (gen == QPU_GEN_V3D71 && waddr == QPU_V3D_W_R5REP)
		return "rep";
	return waddr_names[waddr];
}

const char *qpu_v3d_invalid_name(enum qpu_v3d_invalid why)
{
	static const char *const names[QPU_V3D_INVALID_COUNT] = {
		[QPU_V3D_VALID] = "valid",
		[QPU_V3D_BAD_KIND] = "no instruction kind (mul op 0, no branch)",
		[QPU_V3D_BAD_SIG] = "reserved signal",
		[QPU_V3D_BAD_FLAGS] = "reserved condition code",
		[QPU_V3D_BAD_ADD_OP] = "reserved add opcode",
		[QPU_V3D_BAD_MUL_OP] = "reserved mul opcode",
		[QPU_V3D_BAD_UNPACK] = "reserved pack or unpack",
		[QPU_V3D_BAD_SMALL_IMM] = "small immediate past 47",
		[QPU_V3D_BAD_BRANCH] = "reserved branch condition or msfign",
	};

	if ((unsigned int)why >= QPU_V3D_INVALID_COUNT)
		return "?";
	return names[why];
}

bool qpu_v3d_add_op_valid(enum qpu_gen gen, unsigned int op)
{
	return op < QPU_V3D_A_COUNT &&
	       (qpu_v3d_add_op_info[op].gens & (gen == QPU_GEN_V3D71 ? G71 : G42));
}

bool qpu_v3d_mul_op_valid(enum qpu_gen gen, unsigned int op)
{
	return op < QPU_V3D_M_COUNT &&
	       (qpu_v3d_mul_op_info[op].gens & (gen == QPU_GEN_V3D71 ? G71 : G42));
}

bool qpu_v3d_add_reads(const struct qpu_v3d_instr *in, int operand)
{
	return !in->is_branch && in->add.op < QPU_V3D_A_COUNT &&
	       (int)qpu_v3d_op_sources(&qpu_v3d_add_op_info[in->add.op]) > operand;
}

bool qpu_v3d_mul_reads(const struct qpu_v3d_instr *in, int operand)
{
	return !in->is_branch && in->mul.op < QPU_V3D_M_COUNT &&
	       (int)qpu_v3d_op_sources(&qpu_v3d_mul_op_info[in->mul.op]) > operand;
}

void qpu_v3d_nop(struct qpu_v3d_instr *in)
{
	*in = (struct qpu_v3d_instr){ 0 };
	in->add.op = QPU_V3D_A_NOP;
	in->mul.op = QPU_V3D_M_NOP;
	in->add.waddr = QPU_V3D_W_NOP;
	in->mul.waddr = QPU_V3D_W_NOP;
	in->add.magic = true;
	in->mul.magic = true;
}
