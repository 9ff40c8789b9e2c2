/* SPDX-License-Identifier: MIT */
/*
 * libqpu: the fields of a V3D 4.2/7.1 instruction, by Mesa's names: magic
 * write addresses, packs and unpacks, add and mul operations, conditions
 * and flags, signals, branch fields. The C emitter (qpu_emit_v3d.h) takes
 * them and libqpu's core codec decodes into them, so this header is
 * freestanding: enums only, no includes, no functions.
 */
#ifndef QPU_V3D_FIELDS_H
#define QPU_V3D_FIELDS_H

/* Magic write addresses (Mesa's names); 0..5 are the accumulators on 4.2. */
enum qpu_v3d_waddr {
	QPU_V3D_W_QUAD = 5,	/* 7.1 */
	QPU_V3D_W_NOP = 6, QPU_V3D_W_TLB, QPU_V3D_W_TLBU, QPU_V3D_W_UNIFA,
	QPU_V3D_W_TMUL, QPU_V3D_W_TMUD, QPU_V3D_W_TMUA, QPU_V3D_W_TMUAU,
	QPU_V3D_W_VPM, QPU_V3D_W_VPMU, QPU_V3D_W_SYNC, QPU_V3D_W_SYNCU,
	QPU_V3D_W_SYNCB,
	/* the SFU, 4.2 (7.1 has add operations for it) */
	QPU_V3D_W_RECIP, QPU_V3D_W_RSQRT, QPU_V3D_W_EXP, QPU_V3D_W_LOG,
	QPU_V3D_W_SIN, QPU_V3D_W_RSQRT2,
	/* TMU configuration */
	QPU_V3D_W_TMUC = 32, QPU_V3D_W_TMUS, QPU_V3D_W_TMUT, QPU_V3D_W_TMUR,
	QPU_V3D_W_TMUI, QPU_V3D_W_TMUB, QPU_V3D_W_TMUDREF, QPU_V3D_W_TMUOFF,
	QPU_V3D_W_TMUSCM, QPU_V3D_W_TMUSF, QPU_V3D_W_TMUSLOD, QPU_V3D_W_TMUHS,
	QPU_V3D_W_TMUHSCM, QPU_V3D_W_TMUHSF, QPU_V3D_W_TMUHSLOD,
	QPU_V3D_W_R5REP = 55,	/* "rep" on 7.1 */
};

/* Output packs (float results to one 16-bit half). */
enum qpu_v3d_pack { QPU_V3D_PACK_NONE, QPU_V3D_PACK_L, QPU_V3D_PACK_H };

/* Input unpacks; which apply depends on the operation. */
enum qpu_v3d_unpack {
	QPU_V3D_UNPACK_NONE, QPU_V3D_UNPACK_ABS, QPU_V3D_UNPACK_L,
	QPU_V3D_UNPACK_H,
	QPU_V3D_UNPACK_SAT, QPU_V3D_UNPACK_NSAT, QPU_V3D_UNPACK_MAX0, /* 7.1 */
	QPU_V3D_UNPACK_FF, QPU_V3D_UNPACK_LL, QPU_V3D_UNPACK_HH,
	QPU_V3D_UNPACK_SWP,
	QPU_V3D_UNPACK_UL, QPU_V3D_UNPACK_UH, QPU_V3D_UNPACK_IL,
	QPU_V3D_UNPACK_IH,	/* integer unpacks of 7.1's mov */
};

/*
 * Add ALU operations, by Mesa's names. vdwwt and vpmsetup are 4.2 only
 * (vfmax is on both: Mesa's 7.1 tables lack it, py-videocore7 runs it),
 * iid is 7.1 only; the others from fmov on are 7.1 only.
 */
enum qpu_v3d_add_op {
	QPU_V3D_A_FADD, QPU_V3D_A_FADDNF, QPU_V3D_A_VFPACK, QPU_V3D_A_ADD,
	QPU_V3D_A_SUB, QPU_V3D_A_FSUB, QPU_V3D_A_MIN, QPU_V3D_A_MAX,
	QPU_V3D_A_UMIN, QPU_V3D_A_UMAX, QPU_V3D_A_SHL, QPU_V3D_A_SHR,
	QPU_V3D_A_ASR, QPU_V3D_A_ROR, QPU_V3D_A_FMIN, QPU_V3D_A_FMAX,
	QPU_V3D_A_VFMIN, QPU_V3D_A_AND, QPU_V3D_A_OR, QPU_V3D_A_XOR,
	QPU_V3D_A_VADD, QPU_V3D_A_VSUB, QPU_V3D_A_NOT, QPU_V3D_A_NEG,
	QPU_V3D_A_FLAPUSH, QPU_V3D_A_FLBPUSH, QPU_V3D_A_FLPOP, QPU_V3D_A_RECIP,
	QPU_V3D_A_SETMSF, QPU_V3D_A_SETREVF, QPU_V3D_A_NOP, QPU_V3D_A_TIDX,
	QPU_V3D_A_EIDX, QPU_V3D_A_LR, QPU_V3D_A_VFLA, QPU_V3D_A_VFLNA,
	QPU_V3D_A_VFLB, QPU_V3D_A_VFLNB, QPU_V3D_A_FXCD, QPU_V3D_A_XCD,
	QPU_V3D_A_FYCD, QPU_V3D_A_YCD, QPU_V3D_A_MSF, QPU_V3D_A_REVF,
	QPU_V3D_A_VDWWT, QPU_V3D_A_IID, QPU_V3D_A_SAMPID, QPU_V3D_A_BARRIERID,
	QPU_V3D_A_TMUWT, QPU_V3D_A_VPMSETUP, QPU_V3D_A_VPMWT,
	QPU_V3D_A_FLAFIRST, QPU_V3D_A_FLNAFIRST, QPU_V3D_A_LDVPMV_IN,
	QPU_V3D_A_LDVPMV_OUT, QPU_V3D_A_LDVPMD_IN, QPU_V3D_A_LDVPMD_OUT,
	QPU_V3D_A_LDVPMP, QPU_V3D_A_RSQRT, QPU_V3D_A_EXP, QPU_V3D_A_LOG,
	QPU_V3D_A_SIN, QPU_V3D_A_RSQRT2, QPU_V3D_A_LDVPMG_IN,
	QPU_V3D_A_LDVPMG_OUT, QPU_V3D_A_FCMP, QPU_V3D_A_VFMAX,
	QPU_V3D_A_FROUND, QPU_V3D_A_FTOIN, QPU_V3D_A_FTRUNC, QPU_V3D_A_FTOIZ,
	QPU_V3D_A_FFLOOR, QPU_V3D_A_FTOUZ, QPU_V3D_A_FCEIL, QPU_V3D_A_FTOC,
	QPU_V3D_A_FDX, QPU_V3D_A_FDY, QPU_V3D_A_STVPMV, QPU_V3D_A_STVPMD,
	QPU_V3D_A_STVPMP, QPU_V3D_A_ITOF, QPU_V3D_A_CLZ, QPU_V3D_A_UTOF,
	/* 7.1 only */
	QPU_V3D_A_FMOV, QPU_V3D_A_MOV, QPU_V3D_A_VPACK, QPU_V3D_A_V8PACK,
	QPU_V3D_A_V10PACK, QPU_V3D_A_V11FPACK, QPU_V3D_A_BALLOT,
	QPU_V3D_A_BCASTF, QPU_V3D_A_ALLEQ, QPU_V3D_A_ALLFEQ, QPU_V3D_A_ROTQ,
	QPU_V3D_A_ROT, QPU_V3D_A_SHUFFLE,
	QPU_V3D_A_COUNT
};

/* Mul ALU operations. */
enum qpu_v3d_mul_op {
	QPU_V3D_M_ADD, QPU_V3D_M_SUB, QPU_V3D_M_UMUL24, QPU_V3D_M_VFMUL,
	QPU_V3D_M_SMUL24, QPU_V3D_M_MULTOP, QPU_V3D_M_FMOV, QPU_V3D_M_MOV,
	QPU_V3D_M_NOP, QPU_V3D_M_FMUL,
	/* 7.1 only */
	QPU_V3D_M_FTOUNORM16, QPU_V3D_M_FTOSNORM16, QPU_V3D_M_VFTOUNORM8,
	QPU_V3D_M_VFTOSNORM8, QPU_V3D_M_FUNPACKUNORMLO,
	QPU_V3D_M_FUNPACKUNORMHI, QPU_V3D_M_FUNPACKSNORMLO,
	QPU_V3D_M_FUNPACKSNORMHI, QPU_V3D_M_VFTOUNORM10LO,
	QPU_V3D_M_VFTOUNORM10HI,
	QPU_V3D_M_COUNT
};

/* Write conditions on the flags (".ifa" and so on). */
enum qpu_v3d_cond {
	QPU_V3D_COND_NONE, QPU_V3D_COND_IFA, QPU_V3D_COND_IFB,
	QPU_V3D_COND_IFNA, QPU_V3D_COND_IFNB,
};

/* Flags pushed from the result (".pushz"). */
enum qpu_v3d_pf {
	QPU_V3D_PF_NONE, QPU_V3D_PF_PUSHZ, QPU_V3D_PF_PUSHN, QPU_V3D_PF_PUSHC,
};

/* Flags updated from the result and the old flags (".andz"). */
enum qpu_v3d_uf {
	QPU_V3D_UF_NONE, QPU_V3D_UF_ANDZ, QPU_V3D_UF_ANDNZ, QPU_V3D_UF_NORNZ,
	QPU_V3D_UF_NORZ, QPU_V3D_UF_ANDN, QPU_V3D_UF_ANDNN, QPU_V3D_UF_NORNN,
	QPU_V3D_UF_NORN, QPU_V3D_UF_ANDC, QPU_V3D_UF_ANDNC, QPU_V3D_UF_NORNC,
	QPU_V3D_UF_NORC,
};

/*
 * Signals, as bits to combine; which combinations exist depends on the
 * generation. Those that write a register (ldunifrf, ldunifarf, ldtmu,
 * ldvary, ldtlb, ldtlbu) take a destination; ldunif and ldunifa write r5
 * on 4.2 and rf0 on 7.1. rot is 4.2 only (qpu_v3d_emit_rot()).
 */
enum qpu_v3d_sig {
	QPU_V3D_SIG_THRSW = 1 << 0,
	QPU_V3D_SIG_LDUNIF = 1 << 1,
	QPU_V3D_SIG_LDUNIFA = 1 << 2,
	QPU_V3D_SIG_LDUNIFRF = 1 << 3,
	QPU_V3D_SIG_LDUNIFARF = 1 << 4,
	QPU_V3D_SIG_LDTMU = 1 << 5,
	QPU_V3D_SIG_LDVARY = 1 << 6,
	QPU_V3D_SIG_LDVPM = 1 << 7,
	QPU_V3D_SIG_LDTLB = 1 << 8,
	QPU_V3D_SIG_LDTLBU = 1 << 9,
	QPU_V3D_SIG_UCB = 1 << 10,
	QPU_V3D_SIG_ROT = 1 << 11,
	QPU_V3D_SIG_WRTMUC = 1 << 12,
};

/* Branch conditions over the flags of all 16 elements. */
enum qpu_v3d_br_cond {
	QPU_V3D_BR_ALWAYS, QPU_V3D_BR_A0, QPU_V3D_BR_NA0, QPU_V3D_BR_ALLA,
	QPU_V3D_BR_ANYNA, QPU_V3D_BR_ANYA, QPU_V3D_BR_ALLNA,
};

/*
 * Where a branch goes, and where qpu_v3d_emit_branch_unif() moves the
 * uniform stream (Mesa's bdi and bdu).
 */
enum qpu_v3d_br_dest {
	/*
	 * an address ("zero_addr+0x..."); for the stream, one read from it
	 * ("a:unif")
	 */
	QPU_V3D_BR_DEST_ABS,
	QPU_V3D_BR_DEST_REL,	/* relative ("-64"; for the stream "r:unif") */
	QPU_V3D_BR_DEST_LRI,	/* the link register ("lri") */
	QPU_V3D_BR_DEST_RF,	/* a register-file register ("rf5") */
};

/*
 * Which elements' conditions a branch ignores when no multisample flag is
 * set: none, the element's ("p"), its 2x2 quad's ("q", fragment shaders).
 */
enum qpu_v3d_msfign {
	QPU_V3D_MSFIGN_NONE, QPU_V3D_MSFIGN_P, QPU_V3D_MSFIGN_Q,
};

#endif /* QPU_V3D_FIELDS_H */
