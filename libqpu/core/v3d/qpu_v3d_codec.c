// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * V3D 4.2 and 7.1 instruction codec. An operation is found from
 * its opcode field and, for operations with fewer than two operands, the
 * operand fields that then select it (4.2: the muxes, 7.1: raddr_b or
 * raddr_d); pack and unpack codes sit in the opcode or in those fields,
 * per operation class. The encoder builds the word and decodes it again:
 * a struct that does not come back unchanged has no encoding, so the two
 * directions cannot drift apart.
 *
 * Where Mesa's decoder and its encoder disagree (Mesa 25.0,
 * src/broadcom/qpu/qpu_pack.c), the encoder is followed, since it is what
 * the compiler and py-videocore7 put on hardware: on 7.1 the unpack of
 * fround/ftrunc/ffloor/fceil/fdx/fdy is raddr_b bits 3:2 (Mesa reads the
 * opcode), the mul fmov unpack is raddr_d bits 4:2 (Mesa reads two bits),
 * and vfmin/vfmul keep the 4.2 layout (Mesa's 7.1 decoder stops there).
 * 7.1's vfmax (240..244, 4.2's layout) is missing from Mesa's tables;
 * py-videocore7 emits it and its test_binary_ops checks it on a Pi 5.
 */
#include "v3d/qpu_v3d_codec.h"

#define SIG(x)	QPU_V3D_SIG_##x

/* Signal codes 0..31 (0: none; 0 elsewhere: reserved). */
static const u32 sig_map_42[32] = {
	[1] = SIG(THRSW),
	[2] = SIG(LDUNIF),
	[3] = SIG(THRSW) | SIG(LDUNIF),
	[4] = SIG(LDTMU),
	[5] = SIG(THRSW) | SIG(LDTMU),
	[6] = SIG(LDTMU) | SIG(LDUNIF),
	[7] = SIG(THRSW) | SIG(LDTMU) | SIG(LDUNIF),
	[8] = SIG(LDVARY),
	[9] = SIG(THRSW) | SIG(LDVARY),
	[10] = SIG(LDVARY) | SIG(LDUNIF),
	[11] = SIG(THRSW) | SIG(LDVARY) | SIG(LDUNIF),
	[12] = SIG(LDUNIFRF),
	[13] = SIG(THRSW) | SIG(LDUNIFRF),
	[14] = SIG(SMIMM_B) | SIG(LDVARY),
	[15] = SIG(SMIMM_B),
	[16] = SIG(LDTLB),
	[17] = SIG(LDTLBU),
	[18] = SIG(WRTMUC),
	[19] = SIG(THRSW) | SIG(WRTMUC),
	[20] = SIG(LDVARY) | SIG(WRTMUC),
	[21] = SIG(THRSW) | SIG(LDVARY) | SIG(WRTMUC),
	[22] = SIG(UCB),
	[23] = SIG(ROT),
	[24] = SIG(LDUNIFA),
	[25] = SIG(LDUNIFARF),
	[31] = SIG(SMIMM_B) | SIG(LDTMU),
};

static const u32 sig_map_71[32] = {
	[1] = SIG(THRSW),
	[2] = SIG(LDUNIF),
	[3] = SIG(THRSW) | SIG(LDUNIF),
	[4] = SIG(LDTMU),
	[5] = SIG(THRSW) | SIG(LDTMU),
	[6] = SIG(LDTMU) | SIG(LDUNIF),
	[7] = SIG(THRSW) | SIG(LDTMU) | SIG(LDUNIF),
	[8] = SIG(LDVARY),
	[9] = SIG(THRSW) | SIG(LDVARY),
	[10] = SIG(LDVARY) | SIG(LDUNIF),
	[11] = SIG(THRSW) | SIG(LDVARY) | SIG(LDUNIF),
	[12] = SIG(LDUNIFRF),
	[13] = SIG(THRSW) | SIG(LDUNIFRF),
	[14] = SIG(SMIMM_A),
	[15] = SIG(SMIMM_B),
	[16] = SIG(LDTLB),
	[17] = SIG(LDTLBU),
	[18] = SIG(WRTMUC),
	[19] = SIG(THRSW) | SIG(WRTMUC),
	[20] = SIG(LDVARY) | SIG(WRTMUC),
	[21] = SIG(THRSW) | SIG(LDVARY) | SIG(WRTMUC),
	[22] = SIG(UCB),
	[24] = SIG(LDUNIFA),
	[25] = SIG(LDUNIFARF),
	[26] = SIG(LDTMU) | SIG(WRTMUC),
	[27] = SIG(THRSW) | SIG(LDTMU) | SIG(WRTMUC),
	[30] = SIG(SMIMM_C),
	[31] = SIG(SMIMM_D),
};

/*
 * Opcode tables. @sel is the set of values of the selecting operand
 * field(s): on 4.2 (b mux << 8 | a mux) as two 8-bit sets, on 7.1 the
 * 64-bit set of raddr_b (add) or raddr_d (mul) values. First match wins.
 */
struct opdesc {
	u8 first;
	u8 last;
	u8 op;
	u64 sel;
};

#define ANY42		0xffffull
#define M42(b, a)	((u64)(b) << 8 | (a))
#define ANY71		(~0ull)
#define BIT64(n)	(1ull << (n))
#define RANGE64(lo, hi)	((~0ull >> (63 - (hi))) & (~0ull << (lo)))
#define OPD(f, l, o, s)	{ f, l, QPU_V3D_A_##o, s }
#define MOPD(f, l, o, s) { f, l, QPU_V3D_M_##o, s }

static const struct opdesc add_ops_42[] = {
	OPD(0, 47, FADD, ANY42),
	OPD(53, 55, VFPACK, ANY42),
	OPD(56, 56, ADD, ANY42),
	OPD(57, 59, VFPACK, ANY42),
	OPD(60, 60, SUB, ANY42),
	OPD(61, 63, VFPACK, ANY42),
	OPD(64, 111, FSUB, ANY42),
	OPD(120, 120, MIN, ANY42),
	OPD(121, 121, MAX, ANY42),
	OPD(122, 122, UMIN, ANY42),
	OPD(123, 123, UMAX, ANY42),
	OPD(124, 124, SHL, ANY42),
	OPD(125, 125, SHR, ANY42),
	OPD(126, 126, ASR, ANY42),
	OPD(127, 127, ROR, ANY42),
	OPD(128, 175, FMIN, ANY42),
	OPD(176, 180, VFMIN, ANY42),
	OPD(181, 181, AND, ANY42),
	OPD(182, 182, OR, ANY42),
	OPD(183, 183, XOR, ANY42),
	OPD(184, 184, VADD, ANY42),
	OPD(185, 185, VSUB, ANY42),
	OPD(186, 186, NOT, M42(0x01, 0xff)),
	OPD(186, 186, NEG, M42(0x02, 0xff)),
	OPD(186, 186, FLAPUSH, M42(0x04, 0xff)),
	OPD(186, 186, FLBPUSH, M42(0x08, 0xff)),
	OPD(186, 186, FLPOP, M42(0x10, 0xff)),
	OPD(186, 186, RECIP, M42(0x20, 0xff)),
	OPD(186, 186, SETMSF, M42(0x40, 0xff)),
	OPD(186, 186, SETREVF, M42(0x80, 0xff)),
	OPD(187, 187, NOP, M42(0x01, 0x01)),
	OPD(187, 187, TIDX, M42(0x01, 0x02)),
	OPD(187, 187, EIDX, M42(0x01, 0x04)),
	OPD(187, 187, LR, M42(0x01, 0x08)),
	OPD(187, 187, VFLA, M42(0x01, 0x10)),
	OPD(187, 187, VFLNA, M42(0x01, 0x20)),
	OPD(187, 187, VFLB, M42(0x01, 0x40)),
	OPD(187, 187, VFLNB, M42(0x01, 0x80)),
	OPD(187, 187, FXCD, M42(0x02, 0x07)),
	OPD(187, 187, XCD, M42(0x02, 0x08)),
	OPD(187, 187, FYCD, M42(0x02, 0x70)),
	OPD(187, 187, YCD, M42(0x02, 0x80)),
	OPD(187, 187, MSF, M42(0x04, 0x01)),
	OPD(187, 187, REVF, M42(0x04, 0x02)),
	OPD(187, 187, VDWWT, M42(0x04, 0x04)),
	OPD(187, 187, SAMPID, M42(0x04, 0x08)),
	OPD(187, 187, BARRIERID, M42(0x04, 0x10)),
	OPD(187, 187, TMUWT, M42(0x04, 0x20)),
	OPD(187, 187, VPMWT, M42(0x04, 0x40)),
	OPD(187, 187, FLAFIRST, M42(0x04, 0x80)),
	OPD(187, 187, FLNAFIRST, M42(0x08, 0x01)),
	OPD(187, 187, VPMSETUP, M42(0x08, 0xff)),
	OPD(188, 188, LDVPMV_IN, M42(0x01, 0xff)),
	OPD(188, 188, LDVPMD_IN, M42(0x02, 0xff)),
	OPD(188, 188, LDVPMP, M42(0x04, 0xff)),
	OPD(188, 188, RSQRT, M42(0x08, 0xff)),
	OPD(188, 188, EXP, M42(0x10, 0xff)),
	OPD(188, 188, LOG, M42(0x20, 0xff)),
	OPD(188, 188, SIN, M42(0x40, 0xff)),
	OPD(188, 188, RSQRT2, M42(0x80, 0xff)),
	OPD(189, 189, LDVPMG_IN, ANY42),
	OPD(192, 239, FCMP, ANY42),
	OPD(240, 244, VFMAX, ANY42),
	OPD(245, 245, FROUND, M42(0x07, 0xff)),
	OPD(245, 245, FTOIN, M42(0x08, 0xff)),
	OPD(245, 245, FTRUNC, M42(0x70, 0xff)),
	OPD(245, 245, FTOIZ, M42(0x80, 0xff)),
	OPD(246, 246, FFLOOR, M42(0x07, 0xff)),
	OPD(246, 246, FTOUZ, M42(0x08, 0xff)),
	OPD(246, 246, FCEIL, M42(0x70, 0xff)),
	OPD(246, 246, FTOC, M42(0x80, 0xff)),
	OPD(247, 247, FDX, M42(0x07, 0xff)),
	OPD(247, 247, FDY, M42(0x70, 0xff)),
	OPD(248, 248, STVPMV, ANY42),
	OPD(252, 252, ITOF, M42(0x07, 0xff)),
	OPD(252, 252, CLZ, M42(0x08, 0xff)),
	OPD(252, 252, UTOF, M42(0x70, 0xff)),
};

static const struct opdesc mul_ops_42[] = {
	MOPD(1, 1, ADD, ANY42),
	MOPD(2, 2, SUB, ANY42),
	MOPD(3, 3, UMUL24, ANY42),
	MOPD(4, 8, VFMUL, ANY42),
	MOPD(9, 9, SMUL24, ANY42),
	MOPD(10, 10, MULTOP, ANY42),
	MOPD(14, 14, FMOV, ANY42),
	MOPD(15, 15, FMOV, M42(0x0f, 0xff)),
	MOPD(15, 15, NOP, M42(0x10, 0x01)),
	MOPD(15, 15, MOV, M42(0x80, 0xff)),
	MOPD(16, 63, FMUL, ANY42),
};

/* 7.1's rounding group: raddr_b bits 5:4 op, 3:2 unpack, 1:0 pack (3: to int). */
#define ROUND71(n)	(0x7777ull << (16 * (n)))
#define TOINT71(n)	(0x8888ull << (16 * (n)))

static const struct opdesc add_ops_71[] = {
	OPD(0, 47, FADD, ANY71),
	OPD(53, 55, VFPACK, ANY71),
	OPD(56, 56, ADD, ANY71),
	OPD(57, 59, VFPACK, ANY71),
	OPD(60, 60, SUB, ANY71),
	OPD(61, 63, VFPACK, ANY71),
	OPD(64, 111, FSUB, ANY71),
	OPD(120, 120, MIN, ANY71),
	OPD(121, 121, MAX, ANY71),
	OPD(122, 122, UMIN, ANY71),
	OPD(123, 123, UMAX, ANY71),
	OPD(124, 124, SHL, ANY71),
	OPD(125, 125, SHR, ANY71),
	OPD(126, 126, ASR, ANY71),
	OPD(127, 127, ROR, ANY71),
	OPD(128, 175, FMIN, ANY71),
	OPD(176, 180, VFMIN, ANY71),
	OPD(181, 181, AND, ANY71),
	OPD(182, 182, OR, ANY71),
	OPD(183, 183, XOR, ANY71),
	OPD(184, 184, VADD, ANY71),
	OPD(185, 185, VSUB, ANY71),
	OPD(186, 186, NOT, BIT64(0)),
	OPD(186, 186, NEG, BIT64(1)),
	OPD(186, 186, FLAPUSH, BIT64(2)),
	OPD(186, 186, FLBPUSH, BIT64(3)),
	OPD(186, 186, FLPOP, BIT64(4)),
	OPD(186, 186, CLZ, BIT64(5)),
	OPD(186, 186, SETMSF, BIT64(6)),
	OPD(186, 186, SETREVF, BIT64(7)),
	OPD(187, 187, NOP, BIT64(0)),
	OPD(187, 187, TIDX, BIT64(1)),
	OPD(187, 187, EIDX, BIT64(2)),
	OPD(187, 187, LR, BIT64(3)),
	OPD(187, 187, VFLA, BIT64(4)),
	OPD(187, 187, VFLNA, BIT64(5)),
	OPD(187, 187, VFLB, BIT64(6)),
	OPD(187, 187, VFLNB, BIT64(7)),
	OPD(187, 187, XCD, BIT64(8)),
	OPD(187, 187, YCD, BIT64(9)),
	OPD(187, 187, MSF, BIT64(10)),
	OPD(187, 187, REVF, BIT64(11)),
	OPD(187, 187, IID, BIT64(12)),
	OPD(187, 187, SAMPID, BIT64(13)),
	OPD(187, 187, BARRIERID, BIT64(14)),
	OPD(187, 187, TMUWT, BIT64(15)),
	OPD(187, 187, VPMWT, BIT64(16)),
	OPD(187, 187, FLAFIRST, BIT64(17)),
	OPD(187, 187, FLNAFIRST, BIT64(18)),
	OPD(187, 187, FXCD, RANGE64(32, 34)),
	OPD(187, 187, FYCD, RANGE64(36, 38)),
	OPD(188, 188, LDVPMV_IN, BIT64(0)),
	OPD(188, 188, LDVPMD_IN, BIT64(1)),
	OPD(188, 188, LDVPMP, BIT64(2)),
	OPD(188, 188, RECIP, BIT64(32)),
	OPD(188, 188, RSQRT, BIT64(33)),
	OPD(188, 188, EXP, BIT64(34)),
	OPD(188, 188, LOG, BIT64(35)),
	OPD(188, 188, SIN, BIT64(36)),
	OPD(188, 188, RSQRT2, BIT64(37)),
	OPD(188, 188, BALLOT, BIT64(38)),
	OPD(188, 188, BCASTF, BIT64(39)),
	OPD(188, 188, ALLEQ, BIT64(40)),
	OPD(188, 188, ALLFEQ, BIT64(41)),
	OPD(189, 189, LDVPMG_IN, ANY71),
	OPD(190, 190, STVPMV, ANY71),
	OPD(192, 207, FCMP, ANY71),
	OPD(240, 244, VFMAX, ANY71),	/* not in Mesa: py-videocore7's */
	OPD(245, 245, FROUND, ROUND71(0)),
	OPD(245, 245, FTOIN, TOINT71(0)),
	OPD(245, 245, FTRUNC, ROUND71(1)),
	OPD(245, 245, FTOIZ, TOINT71(1)),
	OPD(245, 245, FFLOOR, ROUND71(2)),
	OPD(245, 245, FTOUZ, TOINT71(2)),
	OPD(245, 245, FCEIL, ROUND71(3)),
	OPD(245, 245, FTOC, TOINT71(3)),
	OPD(246, 246, FDX, ROUND71(0)),
	OPD(246, 246, FDY, ROUND71(1)),
	OPD(246, 246, ITOF, RANGE64(32, 34)),
	OPD(246, 246, UTOF, RANGE64(36, 38)),
	OPD(247, 247, VPACK, ANY71),
	OPD(248, 248, V8PACK, ANY71),
	OPD(249, 249, FMOV, 0x7777777ull),
	OPD(249, 249, MOV, 0x88888ull),
	OPD(250, 250, V10PACK, ANY71),
	OPD(251, 251, V11FPACK, ANY71),
	OPD(252, 252, ROTQ, ANY71),
	OPD(253, 253, ROT, ANY71),
	OPD(254, 254, SHUFFLE, ANY71),
};

static const struct opdesc mul_ops_71[] = {
	MOPD(1, 1, ADD, ANY71),
	MOPD(2, 2, SUB, ANY71),
	MOPD(3, 3, UMUL24, ANY71),
	MOPD(4, 8, VFMUL, ANY71),
	MOPD(9, 9, SMUL24, ANY71),
	MOPD(10, 10, MULTOP, ANY71),
	MOPD(14, 14, FMOV, 0x77777777ull),
	MOPD(14, 14, MOV, 0x88888ull),
	MOPD(14, 14, FTOUNORM16, BIT64(32)),
	MOPD(14, 14, FTOSNORM16, BIT64(33)),
	MOPD(14, 14, VFTOUNORM8, BIT64(34)),
	MOPD(14, 14, VFTOSNORM8, BIT64(35)),
	MOPD(14, 14, FUNPACKUNORMLO, BIT64(36)),
	MOPD(14, 14, FUNPACKUNORMHI, BIT64(37)),
	MOPD(14, 14, FUNPACKSNORMLO, BIT64(38)),
	MOPD(14, 14, FUNPACKSNORMHI, BIT64(39)),
	MOPD(14, 14, VFTOUNORM10LO, BIT64(48)),
	MOPD(14, 14, VFTOUNORM10HI, BIT64(49)),
	MOPD(14, 14, NOP, BIT64(63)),
	MOPD(16, 63, FMUL, ANY71),
};

#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))

struct optable {
	const struct opdesc *ops;
	size_t n;
};

static struct optable optable(enum qpu_gen gen, bool mul)
{
	struct optable t;

	if (gen == QPU_GEN_V3D71) {
		t.ops = mul ? mul_ops_71 : add_ops_71;
		t.n = mul ? ARRAY_LEN(mul_ops_71) : ARRAY_LEN(add_ops_71);
	} else {
		t.ops = mul ? mul_ops_42 : add_ops_42;
		t.n = mul ? ARRAY_LEN(mul_ops_42) : ARRAY_LEN(add_ops_42);
	}
	return t;
}

/* Whether (a, b) selects @d: on 4.2 both muxes, on 7.1 @b alone. */
static bool sel_match(enum qpu_gen gen, const struct opdesc *d,
		      unsigned int a, unsigned int b)
{
	if (gen == QPU_GEN_V3D71)
		return d->sel & BIT64(b);
	return (d->sel >> 8 & BIT64(b)) && (d->sel & BIT64(a));
}

static const struct opdesc *lookup_code(enum qpu_gen gen, bool mul,
					unsigned int code, unsigned int a,
					unsigned int b)
{
	struct optable t = optable(gen, mul);
	size_t i;

	for (i = 0; i < t.n; i++) {
		if (code >= t.ops[i].first && code <= t.ops[i].last &&
		    sel_match(gen, &t.ops[i], a, b))
			return &t.ops[i];
	}
	return NULL;
}

/*
 * The first entry for @op. faddnf and fmax share fadd's and fmin's (the
 * operand order tells them apart), stvpmd/p stvpmv's, ldvpm*_out the _in's.
 */
static const struct opdesc *lookup_op(enum qpu_gen gen, bool mul,
				      unsigned int op)
{
	struct optable t = optable(gen, mul);
	size_t i;

	if (!mul) {
		switch (op) {
		case QPU_V3D_A_FADDNF:
		case QPU_V3D_A_FMAX:
			op--;
			break;
		case QPU_V3D_A_STVPMD:
		case QPU_V3D_A_STVPMP:
			op = QPU_V3D_A_STVPMV;
			break;
		case QPU_V3D_A_LDVPMV_OUT:
		case QPU_V3D_A_LDVPMD_OUT:
		case QPU_V3D_A_LDVPMG_OUT:
			op--;
			break;
		}
	}
	for (i = 0; i < t.n; i++) {
		if (t.ops[i].op == op)
			return &t.ops[i];
	}
	return NULL;
}

/* Lowest set bit of @s (nonzero). */
static unsigned int first_bit(u64 s)
{
	return __builtin_ctzll(s);
}

/* Float32 unpack codes 0..6 (4..6 on 7.1 only). */
static const u8 f32_unpack[] = {
	QPU_V3D_UNPACK_ABS, QPU_V3D_UNPACK_NONE, QPU_V3D_UNPACK_L,
	QPU_V3D_UNPACK_H, QPU_V3D_UNPACK_SAT, QPU_V3D_UNPACK_NSAT,
	QPU_V3D_UNPACK_MAX0,
};

static const u8 f16_unpack[] = {
	QPU_V3D_UNPACK_NONE, QPU_V3D_UNPACK_FF, QPU_V3D_UNPACK_LL,
	QPU_V3D_UNPACK_HH, QPU_V3D_UNPACK_SWP,
};

static const u8 int_unpack[] = {
	QPU_V3D_UNPACK_NONE, QPU_V3D_UNPACK_UL, QPU_V3D_UNPACK_UH,
	QPU_V3D_UNPACK_IL, QPU_V3D_UNPACK_IH,
};

static bool unpack_from(enum qpu_gen gen, const u8 *map, unsigned int n,
			unsigned int code, u8 *out)
{
	if (map == f32_unpack && gen != QPU_GEN_V3D71)
		n = 4;
	if (code >= n)
		return false;
	*out = map[code];
	return true;
}

/* The code of unpack @u in @map, or -1. */
static int unpack_code(enum qpu_gen gen, const u8 *map, unsigned int n,
		       unsigned int u)
{
	unsigned int i;

	if (map == f32_unpack && gen != QPU_GEN_V3D71)
		n = 4;
	for (i = 0; i < n; i++) {
		if (map[i] == u)
			return i;
	}
	return -1;
}

#define F32(gen, c, out)	unpack_from(gen, f32_unpack, 7, c, out)
#define F16(gen, c, out)	unpack_from(gen, f16_unpack, 5, c, out)
#define I32(gen, c, out)	unpack_from(gen, int_unpack, 5, c, out)
#define F32_CODE(gen, u)	unpack_code(gen, f32_unpack, 7, u)
#define F16_CODE(gen, u)	unpack_code(gen, f16_unpack, 5, u)
#define I32_CODE(gen, u)	unpack_code(gen, int_unpack, 5, u)

/* How an operation carries its pack and unpacks. */
enum opclass {
	CLS_PLAIN,	/* none */
	CLS_F2,		/* op 5:4 pack, 3:2 and 1:0 f32 unpacks */
	CLS_VFPACK,	/* op 3:2 and 1:0 f32 unpacks */
	CLS_ROUND,	/* 4.2: op 3:2 unpack, mux b 1:0 pack; 7.1: raddr_b */
	CLS_TOINT,	/* as CLS_ROUND without the pack */
	CLS_VF16,	/* f16 unpack of a in op 2:0 (mul: op - 4) */
	CLS_MOV71,	/* 7.1 mov: int unpack in raddr 4:2 */
	CLS_FMOV,	/* 4.2 mul: op 0 and mux b; 7.1: raddr 4:2 and 1:0 */
	CLS_FMUL,	/* op 5:4 pack + 1, 3:2 and 1:0 f32 unpacks */
};

static enum opclass add_class(enum qpu_gen gen, unsigned int op)
{
	switch (op) {
	case QPU_V3D_A_FADD:
	case QPU_V3D_A_FADDNF:
	case QPU_V3D_A_FSUB:
	case QPU_V3D_A_FMIN:
	case QPU_V3D_A_FMAX:
	case QPU_V3D_A_FCMP:
		return CLS_F2;
	case QPU_V3D_A_VFPACK:
		return CLS_VFPACK;
	case QPU_V3D_A_FROUND:
	case QPU_V3D_A_FTRUNC:
	case QPU_V3D_A_FFLOOR:
	case QPU_V3D_A_FCEIL:
	case QPU_V3D_A_FDX:
	case QPU_V3D_A_FDY:
		return CLS_ROUND;
	case QPU_V3D_A_FTOIN:
	case QPU_V3D_A_FTOIZ:
	case QPU_V3D_A_FTOUZ:
	case QPU_V3D_A_FTOC:
		return CLS_TOINT;
	case QPU_V3D_A_VFMIN:
	case QPU_V3D_A_VFMAX:
		return CLS_VF16;
	case QPU_V3D_A_MOV:
		return CLS_MOV71;
	case QPU_V3D_A_FMOV:
		return CLS_FMOV;
	}
	return CLS_PLAIN;
}

static enum opclass mul_class(enum qpu_gen gen, unsigned int op)
{
	switch (op) {
	case QPU_V3D_M_FMUL:
		return CLS_FMUL;
	case QPU_V3D_M_FMOV:
		return CLS_FMOV;
	case QPU_V3D_M_VFMUL:
		return CLS_VF16;
	case QPU_V3D_M_MOV:
		return gen == QPU_GEN_V3D71 ? CLS_MOV71 : CLS_PLAIN;
	}
	return CLS_PLAIN;
}

/* Pack and unpacks of @alu from opcode @code and selector @sel. */
static bool decode_modifiers(enum qpu_gen gen, enum opclass cls,
			     unsigned int code, unsigned int sel, bool mul,
			     struct qpu_v3d_alu *alu)
{
	bool v71 = gen == QPU_GEN_V3D71;
	unsigned int pack;

	switch (cls) {
	case CLS_PLAIN:
		return true;
	case CLS_F2:
		alu->pack = (code >> 4) & 3;
		if (v71 && alu->op == QPU_V3D_A_FCMP)
			alu->pack = QPU_V3D_PACK_NONE;
		return F32(gen, (code >> 2) & 3, &alu->unpack_a) &&
		       F32(gen, code & 3, &alu->unpack_b);
	case CLS_FMUL:
		alu->pack = ((code >> 4) & 3) - 1;
		return F32(gen, (code >> 2) & 3, &alu->unpack_a) &&
		       F32(gen, code & 3, &alu->unpack_b);
	case CLS_VFPACK:
		return F32(gen, (code >> 2) & 3, &alu->unpack_a) &&
		       F32(gen, code & 3, &alu->unpack_b);
	case CLS_ROUND:
		alu->pack = sel & 3;
		return F32(gen, v71 ? (sel >> 2) & 3 : (code >> 2) & 3,
			   &alu->unpack_a);
	case CLS_TOINT:
		return F32(gen, v71 ? (sel >> 2) & 3 : (code >> 2) & 3,
			   &alu->unpack_a);
	case CLS_VF16:
		return F16(gen, mul ? ((code & 7) - 4) & 7 : code & 7,
			   &alu->unpack_a);
	case CLS_MOV71:
		return I32(gen, (sel >> 2) & 7, &alu->unpack_a);
	case CLS_FMOV:
		if (!v71) {
			/* 4.2 mul only: pack h is opcode 15, l is mux b bit 2 */
			pack = ((code & 1) << 1) + ((sel >> 2) & 1);
			if (pack >= QPU_V3D_PACK_COUNT)
				return false;
			alu->pack = pack;
			return F32(gen, sel & 3, &alu->unpack_a);
		}
		alu->pack = sel & 3;
		if (alu->pack >= QPU_V3D_PACK_COUNT)
			return false;
		return F32(gen, (sel >> 2) & 7, &alu->unpack_a);
	}
	return false;
}

u32 qpu_v3d_sig_bits(enum qpu_gen gen, unsigned int code)
{
	if (code >= 32)
		return 0;
	return gen == QPU_GEN_V3D71 ? sig_map_71[code] : sig_map_42[code];
}

int qpu_v3d_sig_code(enum qpu_gen gen, u32 bits)
{
	unsigned int i;

	if (!bits)
		return 0;
	for (i = 1; i < 32; i++) {
		if (qpu_v3d_sig_bits(gen, i) == bits)
			return i;
	}
	return -QPU_V3D_EINVAL;
}

/* The COND field: condition codes and flag updates of both ALUs. */
static bool flags_decode(unsigned int c, struct qpu_v3d_instr *in)
{
	if (!c)
		return true;
	if (c < 4) {
		in->apf = c;
	} else if (c < 16) {
		in->auf = c - 4 + QPU_V3D_UF_ANDZ;
	} else if (c == 16) {
		return false;
	} else if (c < 20) {
		in->mpf = c & 3;
	} else if (c < 32) {
		in->muf = (c & 15) - 4 + QPU_V3D_UF_ANDZ;
	} else if (c < 48) {
		in->ac = ((c >> 2) & 3) + QPU_V3D_COND_IFA;
		in->mpf = c & 3;
	} else if (c < 64) {
		in->mc = ((c >> 2) & 3) + QPU_V3D_COND_IFA;
		in->apf = c & 3;
	} else {
		in->mc = ((c >> 4) & 3) + QPU_V3D_COND_IFA;
		if ((c & 0xc) == 0)
			in->ac = (c & 3) + QPU_V3D_COND_IFA;
		else
			in->auf = (c & 15) - 4 + QPU_V3D_UF_ANDZ;
	}
	return true;
}

static int flags_encode(const struct qpu_v3d_instr *in, u32 *code)
{
	unsigned int ac = in->ac, mc = in->mc, apf = in->apf, mpf = in->mpf;
	unsigned int auf = in->auf, muf = in->muf;

	if (ac >= QPU_V3D_COND_COUNT || mc >= QPU_V3D_COND_COUNT ||
	    apf >= QPU_V3D_PF_COUNT || mpf >= QPU_V3D_PF_COUNT ||
	    auf >= QPU_V3D_UF_COUNT || muf >= QPU_V3D_UF_COUNT)
		return -QPU_V3D_EINVAL;
	if (!ac && !mc && !mpf && !muf && !(apf && auf))
		*code = apf ? apf : auf ? auf - QPU_V3D_UF_ANDZ + 4 : 0;
	else if (!ac && !mc && !apf && !auf && !(mpf && muf))
		*code = 16 | (mpf ? mpf : muf - QPU_V3D_UF_ANDZ + 4);
	else if (ac && !mc && !apf && !auf && !muf)
		*code = 32 | (ac - 1) << 2 | mpf;
	else if (mc && !ac && !mpf && !auf && !muf)
		*code = 48 | (mc - 1) << 2 | apf;
	else if (mc && !apf && !mpf && !muf && !(ac && auf))
		*code = 64 | (mc - 1) << 4 |
			(ac ? ac - 1 : auf - QPU_V3D_UF_ANDZ + 4);
	else
		return -QPU_V3D_EINVAL;
	return 0;
}

/* Operands (a, b) of @alu as they count for fadd/faddnf, fmin/fmax. */
static unsigned int order_key(enum qpu_gen gen, unsigned int unpack,
			      unsigned int field, bool smimm)
{
	if (gen == QPU_GEN_V3D71)
		return smimm * 256 + unpack * 64 + field;
	return unpack * 8 + field;
}

static bool small_imm_ok(u32 sig, u32 bit, unsigned int idx)
{
	return !(sig & bit) || idx < QPU_V3D_SMALL_IMMS;
}

static enum qpu_v3d_invalid decode_add(enum qpu_gen gen, u64 w,
				       struct qpu_v3d_instr *in, u32 sig)
{
	bool v71 = gen == QPU_GEN_V3D71;
	unsigned int code = QPU_V3D_GET(w, QPU_V3D_OP_ADD);
	unsigned int map = code, a, b, sel;
	const struct opdesc *d;
	struct qpu_v3d_alu *alu = &in->add;

	if (v71) {
		a = QPU_V3D_GET(w, QPU_V3D_RADDR_A);
		b = QPU_V3D_GET(w, QPU_V3D_RADDR_B);
	} else {
		a = QPU_V3D_GET(w, QPU_V3D_ADD_A);
		b = QPU_V3D_GET(w, QPU_V3D_ADD_B);
		/* 249..251 and 253..255: 245..247 with unpack l and h */
		if ((code >= 249 && code <= 251) || code >= 253)
			map = 245 + (code & 3) - 1;
	}
	d = lookup_code(gen, false, map, a, b);
	if (!d)
		return QPU_V3D_BAD_ADD_OP;
	alu->op = d->op;
	alu->a = a;
	alu->b = b;
	alu->waddr = QPU_V3D_GET(w, QPU_V3D_WADDR_A);
	sel = b;

	if (alu->op == QPU_V3D_A_FADD || alu->op == QPU_V3D_A_FMIN) {
		if (order_key(gen, (code >> 2) & 3, a, sig & SIG(SMIMM_A)) >
		    order_key(gen, code & 3, b, sig & SIG(SMIMM_B)))
			alu->op++;	/* faddnf, fmax */
	}
	if (alu->op == QPU_V3D_A_STVPMV) {
		if (alu->waddr > 2)
			return QPU_V3D_BAD_ADD_OP;
		alu->op += alu->waddr;
	}
	if (!decode_modifiers(gen, add_class(gen, alu->op), code, sel, false,
			      alu))
		return QPU_V3D_BAD_UNPACK;

	alu->magic = QPU_V3D_GET(w, QPU_V3D_MA);
	if (alu->magic && (alu->op == QPU_V3D_A_LDVPMV_IN ||
			   alu->op == QPU_V3D_A_LDVPMD_IN ||
			   alu->op == QPU_V3D_A_LDVPMG_IN)) {
		alu->op++;	/* the _out forms */
		alu->magic = false;
	}
	return QPU_V3D_VALID;
}

static enum qpu_v3d_invalid decode_mul(enum qpu_gen gen, u64 w,
				       struct qpu_v3d_instr *in)
{
	bool v71 = gen == QPU_GEN_V3D71;
	unsigned int code = QPU_V3D_GET(w, QPU_V3D_OP_MUL);
	const struct opdesc *d;
	struct qpu_v3d_alu *alu = &in->mul;
	unsigned int a, b;

	if (v71) {
		a = QPU_V3D_GET(w, QPU_V3D_RADDR_C);
		b = QPU_V3D_GET(w, QPU_V3D_RADDR_D);
	} else {
		a = QPU_V3D_GET(w, QPU_V3D_MUL_A);
		b = QPU_V3D_GET(w, QPU_V3D_MUL_B);
	}
	d = lookup_code(gen, true, code, a, b);
	if (!d)
		return QPU_V3D_BAD_MUL_OP;
	alu->op = d->op;
	alu->a = a;
	alu->b = b;
	alu->waddr = QPU_V3D_GET(w, QPU_V3D_WADDR_M);
	alu->magic = QPU_V3D_GET(w, QPU_V3D_MM);
	if (!decode_modifiers(gen, mul_class(gen, alu->op), code, b, true, alu))
		return QPU_V3D_BAD_UNPACK;
	return QPU_V3D_VALID;
}

static enum qpu_v3d_invalid decode_branch(u64 w, struct qpu_v3d_instr *in)
{
	struct qpu_v3d_branch *br = &in->br;
	unsigned int cond = QPU_V3D_GET(w, QPU_V3D_BR_COND);

	in->is_branch = true;
	if (cond == 1)
		return QPU_V3D_BAD_BRANCH;
	br->cond = cond ? cond - 1 : QPU_V3D_BR_ALWAYS;
	br->msfign = QPU_V3D_GET(w, QPU_V3D_BR_MSFIGN);
	if (br->msfign >= QPU_V3D_MSFIGN_COUNT)
		return QPU_V3D_BAD_BRANCH;
	br->bdi = QPU_V3D_GET(w, QPU_V3D_BR_BDI);
	br->bdu = QPU_V3D_GET(w, QPU_V3D_BR_BDU);
	br->ub = QPU_V3D_GET(w, QPU_V3D_BR_UB);
	br->raddr_a = QPU_V3D_GET(w, QPU_V3D_RADDR_A);
	br->offset = QPU_V3D_GET(w, QPU_V3D_BR_ADDR_LOW) << 3 |
		     QPU_V3D_GET(w, QPU_V3D_BR_ADDR_HIGH) << 24;
	br->link = QPU_V3D_GET(w, QPU_V3D_BR_LINK);
	br->pad = QPU_V3D_GET(w, QPU_V3D_BR_PAD_0) |
		  QPU_V3D_GET(w, QPU_V3D_BR_PAD_18) << 6;
	return QPU_V3D_VALID;
}

enum qpu_v3d_invalid qpu_v3d_decode(enum qpu_gen gen, u64 w,
				    struct qpu_v3d_instr *in)
{
	bool v71 = gen == QPU_GEN_V3D71;
	enum qpu_v3d_invalid why;
	unsigned int cond;
	u32 sig;

	*in = (struct qpu_v3d_instr){ 0 };
	if (!QPU_V3D_GET(w, QPU_V3D_OP_MUL)) {
		if (QPU_V3D_GET(w, QPU_V3D_BR_KIND) != QPU_V3D_BR_KIND_BRANCH)
			return QPU_V3D_BAD_KIND;
		return decode_branch(w, in);
	}

	in->sig = QPU_V3D_GET(w, QPU_V3D_SIG);
	sig = qpu_v3d_sig_bits(gen, in->sig);
	if (in->sig && !sig)
		return QPU_V3D_BAD_SIG;
	cond = QPU_V3D_GET(w, QPU_V3D_COND);
	if (sig & QPU_V3D_SIG_WRITES_ADDR) {
		in->sig_addr = cond & ~QPU_V3D_COND_SIG_MAGIC;
		in->sig_magic = cond & QPU_V3D_COND_SIG_MAGIC;
	} else if (!flags_decode(cond, in)) {
		return QPU_V3D_BAD_FLAGS;
	}
	if (!v71) {
		in->raddr_a = QPU_V3D_GET(w, QPU_V3D_RADDR_A);
		in->raddr_b = QPU_V3D_GET(w, QPU_V3D_RADDR_B);
	}
	why = decode_add(gen, w, in, sig);
	if (why)
		return why;
	why = decode_mul(gen, w, in);
	if (why)
		return why;
	if (!v71 && !small_imm_ok(sig, SIG(SMIMM_B), in->raddr_b))
		return QPU_V3D_BAD_SMALL_IMM;
	if (v71 && (!small_imm_ok(sig, SIG(SMIMM_A), in->add.a) ||
		    !small_imm_ok(sig, SIG(SMIMM_B), in->add.b) ||
		    !small_imm_ok(sig, SIG(SMIMM_C), in->mul.a) ||
		    !small_imm_ok(sig, SIG(SMIMM_D), in->mul.b)))
		return QPU_V3D_BAD_SMALL_IMM;
	return QPU_V3D_VALID;
}

/*
 * The operand-field values (@a, @b) that select @d for an operation of
 * class @cls with @alu's modifiers. Fields that are operands keep their
 * value; a selecting field keeps it when @d allows it and @keep is set,
 * else takes @d's first value. False when the modifiers do not fit.
 */
static bool selectors(enum qpu_gen gen, const struct opdesc *d,
		      enum opclass cls, unsigned int n, bool keep,
		      const struct qpu_v3d_alu *alu, u8 *a, u8 *b)
{
	bool v71 = gen == QPU_GEN_V3D71;
	u64 bset = v71 ? d->sel : d->sel >> 8 & 0xff;
	u64 aset = v71 ? ~0ull : d->sel & 0xff;
	unsigned int base = first_bit(bset);
	int u;

	if (n < 1 && !(keep && (aset & BIT64(*a))))
		*a = v71 ? 0 : first_bit(aset);
	if (n >= 2)
		return true;

	switch (cls) {
	case CLS_ROUND:
		if (alu->pack >= QPU_V3D_PACK_COUNT)
			return false;
		*b = base | alu->pack;
		if (v71) {
			u = F32_CODE(gen, alu->unpack_a);
			if (u < 0 || u > 3)
				return false;
			*b = (base & ~0xcu) | u << 2 | alu->pack;
		}
		return true;
	case CLS_TOINT:
		*b = base;
		if (v71) {
			u = F32_CODE(gen, alu->unpack_a);
			if (u < 0 || u > 3)
				return false;
			*b = (base & ~0xcu) | u << 2;
		}
		return true;
	case CLS_MOV71:
		u = I32_CODE(gen, alu->unpack_a);
		if (u < 0)
			return false;
		*b = 3 | u << 2;
		return true;
	case CLS_FMOV:
		u = F32_CODE(gen, alu->unpack_a);
		if (u < 0 || alu->pack >= QPU_V3D_PACK_COUNT)
			return false;
		if (v71)
			*b = u << 2 | alu->pack;
		else
			*b = (alu->pack & 1) << 2 | u;
		return true;
	default:
		if (!(keep && (bset & BIT64(*b))))
			*b = base;
		return true;
	}
}

/* The opcode field of @alu on entry @d (class @cls), or -1. */
static int opcode(enum qpu_gen gen, const struct opdesc *d,
		  enum opclass cls, const struct qpu_v3d_alu *alu)
{
	int ua, ub;

	switch (cls) {
	case CLS_F2:
	case CLS_FMUL:
	case CLS_VFPACK:
		ua = F32_CODE(gen, alu->unpack_a);
		ub = F32_CODE(gen, alu->unpack_b);
		if (ua < 0 || ub < 0 || ua > 3 || ub > 3 ||
		    alu->pack >= QPU_V3D_PACK_COUNT)
			return -1;
		if (cls == CLS_VFPACK)
			return (d->first & ~0xf) | ua << 2 | ub;
		if (cls == CLS_FMUL)
			return 16 + (alu->pack << 4) + (ua << 2 | ub);
		return d->first | alu->pack << 4 | ua << 2 | ub;
	case CLS_ROUND:
	case CLS_TOINT:
		if (gen == QPU_GEN_V3D71)
			return d->first;
		ua = F32_CODE(gen, alu->unpack_a);
		if (ua < 0)
			return -1;
		return (d->first & ~0xc) | ua << 2;
	case CLS_VF16:
		ua = F16_CODE(gen, alu->unpack_a);
		if (ua < 0)
			return -1;
		return d->first + ua;
	case CLS_FMOV:
		if (gen == QPU_GEN_V3D71)
			return d->first;
		return 14 | (alu->pack >> 1);
	default:
		return d->first;
	}
}

static bool alu_equal(const struct qpu_v3d_alu *x, const struct qpu_v3d_alu *y)
{
	return x->op == y->op && x->waddr == y->waddr &&
	       x->magic == y->magic && x->pack == y->pack &&
	       x->unpack_a == y->unpack_a && x->unpack_b == y->unpack_b &&
	       x->a == y->a && x->b == y->b;
}

static bool instr_equal(const struct qpu_v3d_instr *x,
			const struct qpu_v3d_instr *y)
{
	if (x->is_branch != y->is_branch)
		return false;
	if (x->is_branch)
		return x->br.cond == y->br.cond && x->br.msfign == y->br.msfign &&
		       x->br.bdi == y->br.bdi && x->br.bdu == y->br.bdu &&
		       x->br.ub == y->br.ub && x->br.raddr_a == y->br.raddr_a &&
		       x->br.offset == y->br.offset && x->br.pad == y->br.pad &&
		       x->br.link == y->br.link;
	return x->sig == y->sig && x->sig_addr == y->sig_addr &&
	       x->sig_magic == y->sig_magic && x->ac == y->ac &&
	       x->mc == y->mc && x->apf == y->apf && x->mpf == y->mpf &&
	       x->auf == y->auf && x->muf == y->muf &&
	       x->raddr_a == y->raddr_a && x->raddr_b == y->raddr_b &&
	       alu_equal(&x->add, &y->add) && alu_equal(&x->mul, &y->mul);
}

/* fadd/fmin want operand a before b, faddnf/fmax after: swap to fit. */
static void order_operands(enum qpu_gen gen, struct qpu_v3d_instr *c)
{
	struct qpu_v3d_alu *alu = &c->add;
	u32 sig = qpu_v3d_sig_bits(gen, c->sig);
	bool sa = sig & SIG(SMIMM_A), sb = sig & SIG(SMIMM_B);
	int ua = F32_CODE(gen, alu->unpack_a), ub = F32_CODE(gen, alu->unpack_b);
	bool after, want_after;
	int code;
	u8 t;

	if (alu->op != QPU_V3D_A_FADD && alu->op != QPU_V3D_A_FADDNF &&
	    alu->op != QPU_V3D_A_FMIN && alu->op != QPU_V3D_A_FMAX)
		return;
	if (ua < 0 || ub < 0)
		return;
	after = order_key(gen, ua, alu->a, sa) > order_key(gen, ub, alu->b, sb);
	want_after = alu->op == QPU_V3D_A_FADDNF || alu->op == QPU_V3D_A_FMAX;
	if (after == want_after)
		return;
	t = alu->a;
	alu->a = alu->b;
	alu->b = t;
	t = alu->unpack_a;
	alu->unpack_a = alu->unpack_b;
	alu->unpack_b = t;
	if (gen == QPU_GEN_V3D71 && sa != sb) {
		sig ^= SIG(SMIMM_A) | SIG(SMIMM_B);
		code = qpu_v3d_sig_code(gen, sig);
		if (code >= 0)
			c->sig = code;
	}
}

static int encode_alu(enum qpu_gen gen, struct qpu_v3d_instr *c,
		      bool mul, u64 *w)
{
	struct qpu_v3d_alu *alu = mul ? &c->mul : &c->add;
	const struct qpu_v3d_op_info *info;
	const struct opdesc *d;
	enum opclass cls;
	bool magic = alu->magic;
	int code;

	if (mul ? !qpu_v3d_mul_op_valid(gen, alu->op) :
	    !qpu_v3d_add_op_valid(gen, alu->op))
		return -QPU_V3D_EINVAL;
	info = mul ? &qpu_v3d_mul_op_info[alu->op] :
		     &qpu_v3d_add_op_info[alu->op];
	cls = mul ? mul_class(gen, alu->op) : add_class(gen, alu->op);
	d = lookup_op(gen, mul, alu->op);
	if (!d)
		return -QPU_V3D_EINVAL;
	if (!selectors(gen, d, cls, qpu_v3d_op_sources(info), true, alu, &alu->a,
		       &alu->b))
		return -QPU_V3D_EINVAL;
	code = opcode(gen, d, cls, alu);
	if (code < 0 || code > (mul ? 63 : 255))
		return -QPU_V3D_EINVAL;
	if (!mul && alu->op >= QPU_V3D_A_STVPMV && alu->op <= QPU_V3D_A_STVPMP)
		alu->waddr = alu->op - QPU_V3D_A_STVPMV;
	if (!mul && (alu->op == QPU_V3D_A_LDVPMV_OUT ||
		     alu->op == QPU_V3D_A_LDVPMD_OUT ||
		     alu->op == QPU_V3D_A_LDVPMG_OUT)) {
		if (magic)
			return -QPU_V3D_EINVAL;
		magic = true;
	}
	if (alu->waddr >= 64)
		return -QPU_V3D_EINVAL;

	if (mul) {
		*w |= QPU_V3D_PUT(QPU_V3D_OP_MUL, code) |
		      QPU_V3D_PUT(QPU_V3D_WADDR_M, alu->waddr) |
		      QPU_V3D_PUT(QPU_V3D_MM, magic);
		if (gen == QPU_GEN_V3D71)
			*w |= QPU_V3D_PUT(QPU_V3D_RADDR_C, alu->a) |
			      QPU_V3D_PUT(QPU_V3D_RADDR_D, alu->b);
		else
			*w |= QPU_V3D_PUT(QPU_V3D_MUL_A, alu->a) |
			      QPU_V3D_PUT(QPU_V3D_MUL_B, alu->b);
	} else {
		*w |= QPU_V3D_PUT(QPU_V3D_OP_ADD, code) |
		      QPU_V3D_PUT(QPU_V3D_WADDR_A, alu->waddr) |
		      QPU_V3D_PUT(QPU_V3D_MA, magic);
		if (gen == QPU_GEN_V3D71)
			*w |= QPU_V3D_PUT(QPU_V3D_RADDR_A, alu->a) |
			      QPU_V3D_PUT(QPU_V3D_RADDR_B, alu->b);
		else
			*w |= QPU_V3D_PUT(QPU_V3D_ADD_A, alu->a) |
			      QPU_V3D_PUT(QPU_V3D_ADD_B, alu->b);
	}
	return 0;
}

static int encode_branch(const struct qpu_v3d_instr *c, u64 *w)
{
	const struct qpu_v3d_branch *br = &c->br;

	if (br->cond >= QPU_V3D_BR_COND_COUNT ||
	    br->msfign >= QPU_V3D_MSFIGN_COUNT || br->bdi > 3 ||
	    br->bdu > 7 || br->raddr_a >= 64 || (br->offset & 7) ||
	    br->pad >= 1 << 9)
		return -QPU_V3D_EINVAL;
	*w = QPU_V3D_PUT(QPU_V3D_BR_KIND, QPU_V3D_BR_KIND_BRANCH) |
	     QPU_V3D_PUT(QPU_V3D_BR_COND, br->cond ? br->cond + 1 : 0) |
	     QPU_V3D_PUT(QPU_V3D_BR_MSFIGN, br->msfign) |
	     QPU_V3D_PUT(QPU_V3D_BR_BDI, br->bdi) |
	     QPU_V3D_PUT(QPU_V3D_BR_BDU, br->bdu) |
	     QPU_V3D_PUT(QPU_V3D_BR_UB, br->ub) |
	     QPU_V3D_PUT(QPU_V3D_BR_LINK, br->link) |
	     QPU_V3D_PUT(QPU_V3D_RADDR_A, br->raddr_a) |
	     QPU_V3D_PUT(QPU_V3D_BR_ADDR_LOW, (br->offset & 0xffffff) >> 3) |
	     QPU_V3D_PUT(QPU_V3D_BR_ADDR_HIGH, br->offset >> 24) |
	     QPU_V3D_PUT(QPU_V3D_BR_PAD_0, br->pad) |
	     QPU_V3D_PUT(QPU_V3D_BR_PAD_18, br->pad >> 6);
	return 0;
}

int qpu_v3d_encode(enum qpu_gen gen, const struct qpu_v3d_instr *in,
		   u64 *w)
{
	struct qpu_v3d_instr c = *in, back;
	u32 sig, cond;
	int ret;

	*w = 0;
	if (gen != QPU_GEN_V3D42 && gen != QPU_GEN_V3D71)
		return -QPU_V3D_EINVAL;
	if (c.is_branch) {
		ret = encode_branch(&c, w);
	} else {
		if (c.sig >= 32 || (c.sig && !qpu_v3d_sig_bits(gen, c.sig)))
			return -QPU_V3D_EINVAL;
		sig = qpu_v3d_sig_bits(gen, c.sig);
		if (sig & QPU_V3D_SIG_WRITES_ADDR) {
			if (c.ac || c.mc || c.apf || c.mpf || c.auf || c.muf ||
			    c.sig_addr >= 64)
				return -QPU_V3D_EINVAL;
			cond = c.sig_addr | (c.sig_magic ? QPU_V3D_COND_SIG_MAGIC : 0);
		} else {
			if (c.sig_addr || c.sig_magic)
				return -QPU_V3D_EINVAL;
			ret = flags_encode(&c, &cond);
			if (ret)
				return ret;
		}
		order_operands(gen, &c);
		if (gen == QPU_GEN_V3D71 && (c.raddr_a || c.raddr_b))
			return -QPU_V3D_EINVAL;
		if (c.raddr_a >= 64 || c.raddr_b >= 64)
			return -QPU_V3D_EINVAL;
		*w = QPU_V3D_PUT(QPU_V3D_SIG, c.sig) |
		     QPU_V3D_PUT(QPU_V3D_COND, cond);
		if (gen == QPU_GEN_V3D42)
			*w |= QPU_V3D_PUT(QPU_V3D_RADDR_A, c.raddr_a) |
			      QPU_V3D_PUT(QPU_V3D_RADDR_B, c.raddr_b);
		ret = encode_alu(gen, &c, false, w);
		if (!ret)
			ret = encode_alu(gen, &c, true, w);
	}
	/* What does not decode to the same struct has no encoding. */
	if (!ret && (qpu_v3d_decode(gen, *w, &back) || !instr_equal(&back, &c)))
		ret = -QPU_V3D_EINVAL;
	if (ret)
		*w = 0;
	return ret;
}

static void canon_alu(enum qpu_gen gen, bool mul, struct qpu_v3d_alu *alu,
		      u32 *sig)
{
	const struct qpu_v3d_op_info *info;
	const struct opdesc *d;
	unsigned int n;

	info = mul ? &qpu_v3d_mul_op_info[alu->op] :
		     &qpu_v3d_add_op_info[alu->op];
	n = qpu_v3d_op_sources(info);
	d = lookup_op(gen, mul, alu->op);
	if (d)
		selectors(gen, d, mul ? mul_class(gen, alu->op) :
			  add_class(gen, alu->op), n, false, alu, &alu->a,
			  &alu->b);
	if (gen == QPU_GEN_V3D71) {
		if (n < 1)
			*sig &= ~(mul ? SIG(SMIMM_C) : SIG(SMIMM_A));
		if (n < 2)
			*sig &= ~(mul ? SIG(SMIMM_D) : SIG(SMIMM_B));
	}
	if (!(info->args & QPU_V3D_ARG_D)) {
		alu->waddr = QPU_V3D_W_NOP;
		alu->magic = true;
		if (!mul && alu->op != QPU_V3D_A_NOP) {
			alu->waddr = alu->op - QPU_V3D_A_STVPMV;
			alu->magic = false;
		}
	}
}

/* Whether a used operand of either ALU reads mux @mux (4.2). */
static bool reads_mux(const struct qpu_v3d_instr *in, unsigned int mux)
{
	return (qpu_v3d_add_reads(in, 0) && in->add.a == mux) ||
	       (qpu_v3d_add_reads(in, 1) && in->add.b == mux) ||
	       (qpu_v3d_mul_reads(in, 0) && in->mul.a == mux) ||
	       (qpu_v3d_mul_reads(in, 1) && in->mul.b == mux);
}

/* The operand fields of @in in text order (add a, add b, mul a, mul b). */
static u8 *operand_field(struct qpu_v3d_instr *in, int slot)
{
	switch (slot) {
	case 0:
		return &in->add.a;
	case 1:
		return &in->add.b;
	case 2:
		return &in->mul.a;
	default:
		return &in->mul.b;
	}
}

static bool operand_read(const struct qpu_v3d_instr *in, int slot)
{
	return slot < 2 ? qpu_v3d_add_reads(in, slot) :
			  qpu_v3d_mul_reads(in, slot - 2);
}

/* Whether fadd/faddnf, fmin/fmax of @in have their operands in order. */
static bool in_order(enum qpu_gen gen, const struct qpu_v3d_instr *in)
{
	const struct qpu_v3d_alu *alu = &in->add;
	u32 sig = qpu_v3d_sig_bits(gen, in->sig);
	int ua = F32_CODE(gen, alu->unpack_a), ub = F32_CODE(gen, alu->unpack_b);
	bool after;

	if (alu->op != QPU_V3D_A_FADD && alu->op != QPU_V3D_A_FADDNF &&
	    alu->op != QPU_V3D_A_FMIN && alu->op != QPU_V3D_A_FMAX)
		return true;
	if (ua < 0 || ub < 0)
		return true;
	after = order_key(gen, ua, alu->a, sig & SIG(SMIMM_A)) >
		order_key(gen, ub, alu->b, sig & SIG(SMIMM_B));
	return after == (alu->op == QPU_V3D_A_FADDNF ||
			 alu->op == QPU_V3D_A_FMAX);
}

/*
 * 4.2's text names register-file reads ("rf5") but not which of the two
 * read addresses carries them: the first register read in text order
 * takes raddr_a, a second one raddr_b (a small immediate has raddr_b),
 * unless only the other way round keeps fadd/faddnf or fmin/fmax in the
 * order the text gives.
 */
static void allocate_raddrs(enum qpu_gen gen, struct qpu_v3d_instr *in)
{
	/* rot keeps its rotation in raddr_b as a small immediate does */
	bool imm = qpu_v3d_sig_bits(gen, in->sig) & (SIG(SMIMM_B) | SIG(ROT));
	struct qpu_v3d_instr x = *in, y;
	unsigned int reg[2], nreg = 0, i;
	int slot;

	for (slot = 0; slot < 4; slot++) {
		u8 *f = operand_field(in, slot);
		unsigned int r;

		if (!operand_read(in, slot) || *f < QPU_V3D_MUX_A ||
		    (*f == QPU_V3D_MUX_B && imm))
			continue;
		r = *f == QPU_V3D_MUX_A ? in->raddr_a : in->raddr_b;
		for (i = 0; i < nreg && reg[i] != r; i++)
			;
		if (i == nreg && nreg < 2)
			reg[nreg++] = r;
	}
	if (!nreg)
		return;
	x.raddr_a = reg[0];
	if (!imm)
		x.raddr_b = nreg > 1 ? reg[1] : 0;
	y = x;
	if (!imm) {
		y.raddr_a = nreg > 1 ? reg[1] : 0;
		y.raddr_b = reg[0];
	}
	for (slot = 0; slot < 4; slot++) {
		u8 *f = operand_field(in, slot);
		unsigned int r;

		if (!operand_read(in, slot) || *f < QPU_V3D_MUX_A ||
		    (*f == QPU_V3D_MUX_B && imm))
			continue;
		r = *f == QPU_V3D_MUX_A ? in->raddr_a : in->raddr_b;
		*operand_field(&x, slot) = r == reg[0] ? QPU_V3D_MUX_A :
					   QPU_V3D_MUX_B;
		*operand_field(&y, slot) = r == reg[0] ? QPU_V3D_MUX_B :
					   QPU_V3D_MUX_A;
	}
	if (!imm && nreg == 1) {
		/* one register: in raddr_a, or in both when fmax rf5, rf5 asks */
		y = x;
		y.raddr_b = reg[0];
		if (*operand_field(&y, 0) == QPU_V3D_MUX_A &&
		    *operand_field(&y, 1) == QPU_V3D_MUX_A) {
			y.add.a = QPU_V3D_MUX_B;
			if (!in_order(gen, &y)) {
				y.add.a = QPU_V3D_MUX_A;
				y.add.b = QPU_V3D_MUX_B;
			}
		}
	}
	*in = !in_order(gen, &x) && in_order(gen, &y) ? y : x;
}

void qpu_v3d_canonicalize(enum qpu_gen gen, struct qpu_v3d_instr *in)
{
	struct qpu_v3d_branch *br = &in->br;
	u32 sig;
	int code;

	if (in->is_branch) {
		/* bdu stays without ub: py-videocore sets it, the text shows it */
		br->pad = 0;
		if (br->bdi != QPU_V3D_BR_DEST_ABS && br->bdi != QPU_V3D_BR_DEST_REL)
			br->offset = 0;
		if (br->bdi != QPU_V3D_BR_DEST_RF &&
		    !(br->ub && br->bdu == QPU_V3D_BR_DEST_RF))
			br->raddr_a = 0;
		return;
	}
	if (in->add.op >= QPU_V3D_A_COUNT || in->mul.op >= QPU_V3D_M_COUNT)
		return;
	sig = qpu_v3d_sig_bits(gen, in->sig);
	canon_alu(gen, false, &in->add, &sig);
	canon_alu(gen, true, &in->mul, &sig);
	if (gen == QPU_GEN_V3D42) {
		allocate_raddrs(gen, in);
		if (!reads_mux(in, QPU_V3D_MUX_A))
			in->raddr_a = 0;
		if (!reads_mux(in, QPU_V3D_MUX_B)) {
			if (!(sig & SIG(ROT)))
				in->raddr_b = 0;
			sig &= ~SIG(SMIMM_B);
		}
	}
	code = qpu_v3d_sig_code(gen, sig);
	if (code >= 0)
		in->sig = code;
}

int qpu_v3d_encode_canonical(enum qpu_gen gen, struct qpu_v3d_instr *in,
			     u64 *w)
{
	struct qpu_v3d_instr again;
	u64 next;
	int pass;

	qpu_v3d_canonicalize(gen, in);
	if (qpu_v3d_encode(gen, in, w))
		return -QPU_V3D_EINVAL;
	/* one more pass has always been enough; three bound a surprise */
	for (pass = 0; pass < 3; pass++) {
		if (qpu_v3d_decode(gen, *w, &again) != QPU_V3D_VALID)
			break;
		qpu_v3d_canonicalize(gen, &again);
		if (qpu_v3d_encode(gen, &again, &next) || next == *w)
			break;
		*w = next;
	}
	return 0;
}

int qpu_v3d_encode_ported(enum qpu_gen gen, const struct qpu_v3d_instr *in,
			  u64 *w)
{
	struct qpu_v3d_instr c = *in, x = *in;
	bool used_a = false, used_b = false;
	u32 sig;
	int slot;

	if (gen != QPU_GEN_V3D42 || in->is_branch)
		return -QPU_V3D_EINVAL;
	sig = qpu_v3d_sig_bits(gen, in->sig);
	qpu_v3d_canonicalize(gen, &c);
	for (slot = 0; slot < 4; slot++) {
		u8 f = *operand_field(&x, slot);

		if (!operand_read(in, slot) || f < QPU_V3D_MUX_A ||
		    (f == QPU_V3D_MUX_B && (sig & (SIG(SMIMM_B) | SIG(ROT)))))
			continue;
		*operand_field(&c, slot) = f;
		used_a |= f == QPU_V3D_MUX_A;
		used_b |= f == QPU_V3D_MUX_B;
	}
	if (used_a)
		c.raddr_a = in->raddr_a;
	if (used_b)
		c.raddr_b = in->raddr_b;
	return qpu_v3d_encode(gen, &c, w) ? -QPU_V3D_EINVAL : 0;
}
