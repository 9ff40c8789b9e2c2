// SPDX-License-Identifier: MIT
/*
 * test-v3d-emit: the typed V3D C emitter (qpu_emit_v3d.h). Programs built
 * with it are word for word the same programs assembled from text, on 4.2
 * and 7.1; every add and mul operation of each generation is reachable
 * and comes back from the disassembler under its name; the public enums
 * equal the core's; every refusal names its instruction and the reason.
 */
#include <errno.h>
#include <string.h>

#include "testlib.h"

#include "qpu_asm.h"
#include "qpu_dis.h"
#include "qpu_emit_v3d.h"
#include "v3d/qpu_v3d_codec.h"

#define ADD_OPS(X) \
	X(A_FADD) X(A_FADDNF) X(A_VFPACK) X(A_ADD) X(A_SUB) X(A_FSUB) \
	X(A_MIN) X(A_MAX) X(A_UMIN) X(A_UMAX) X(A_SHL) X(A_SHR) X(A_ASR) \
	X(A_ROR) X(A_FMIN) X(A_FMAX) X(A_VFMIN) X(A_AND) X(A_OR) X(A_XOR) \
	X(A_VADD) X(A_VSUB) X(A_NOT) X(A_NEG) X(A_FLAPUSH) X(A_FLBPUSH) \
	X(A_FLPOP) X(A_RECIP) X(A_SETMSF) X(A_SETREVF) X(A_NOP) X(A_TIDX) \
	X(A_EIDX) X(A_LR) X(A_VFLA) X(A_VFLNA) X(A_VFLB) X(A_VFLNB) X(A_FXCD) \
	X(A_XCD) X(A_FYCD) X(A_YCD) X(A_MSF) X(A_REVF) X(A_VDWWT) X(A_IID) \
	X(A_SAMPID) X(A_BARRIERID) X(A_TMUWT) X(A_VPMSETUP) X(A_VPMWT) \
	X(A_FLAFIRST) X(A_FLNAFIRST) X(A_LDVPMV_IN) X(A_LDVPMV_OUT) \
	X(A_LDVPMD_IN) X(A_LDVPMD_OUT) X(A_LDVPMP) X(A_RSQRT) X(A_EXP) \
	X(A_LOG) X(A_SIN) X(A_RSQRT2) X(A_LDVPMG_IN) X(A_LDVPMG_OUT) \
	X(A_FCMP) X(A_VFMAX) X(A_FROUND) X(A_FTOIN) X(A_FTRUNC) X(A_FTOIZ) \
	X(A_FFLOOR) X(A_FTOUZ) X(A_FCEIL) X(A_FTOC) X(A_FDX) X(A_FDY) \
	X(A_STVPMV) X(A_STVPMD) X(A_STVPMP) X(A_ITOF) X(A_CLZ) X(A_UTOF) \
	X(A_FMOV) X(A_MOV) X(A_VPACK) X(A_V8PACK) X(A_V10PACK) X(A_V11FPACK) \
	X(A_BALLOT) X(A_BCASTF) X(A_ALLEQ) X(A_ALLFEQ) X(A_ROTQ) X(A_ROT) \
	X(A_SHUFFLE)

#define MUL_OPS(X) \
	X(M_ADD) X(M_SUB) X(M_UMUL24) X(M_VFMUL) X(M_SMUL24) X(M_MULTOP) \
	X(M_FMOV) X(M_MOV) X(M_NOP) X(M_FMUL) X(M_FTOUNORM16) X(M_FTOSNORM16) \
	X(M_VFTOUNORM8) X(M_VFTOSNORM8) X(M_FUNPACKUNORMLO) \
	X(M_FUNPACKUNORMHI) X(M_FUNPACKSNORMLO) X(M_FUNPACKSNORMHI) \
	X(M_VFTOUNORM10LO) X(M_VFTOUNORM10HI)

/* Each public enumerator has the value of the core's. */
T_TEST(enums)
{
#define X(n) T_EQ_U64(QPU_V3D_##n, QPU_V3D_##n);
	ADD_OPS(X)
	MUL_OPS(X)
#undef X
	T_EQ_U64(QPU_V3D_A_COUNT, QPU_V3D_A_COUNT);
	T_EQ_U64(QPU_V3D_M_COUNT, QPU_V3D_M_COUNT);
	T_EQ_U64(QPU_V3D_SIG_LDTLBU, QPU_V3D_SIG_LDTLBU);
	T_EQ_U64(QPU_V3D_SIG_UCB, QPU_V3D_SIG_UCB);
	T_EQ_U64(QPU_V3D_UF_ANDNC, QPU_V3D_UF_ANDNC);
	T_EQ_U64(QPU_V3D_UNPACK_SWP, QPU_V3D_UNPACK_SWP);
	T_EQ_U64(QPU_V3D_BR_ANYA, QPU_V3D_BR_ANYA);
	T_EQ_U64(QPU_V3D_W_TMUA, QPU_V3D_W_TMUA);
	T_EQ_U64(QPU_V3D_W_TMUC, QPU_V3D_W_TMUC);
	/* small immediates: the core's table at the index the helpers give */
	T_EQ_U64(0xfffffff0u, qpu_v3d_small_imm[qpu_v3d_imm(-16).addr]);
	T_EQ_U64(15, qpu_v3d_small_imm[qpu_v3d_imm(15).addr]);
	T_EQ_U64(0x3b800000u, qpu_v3d_small_imm[qpu_v3d_immf(1.0f / 256).addr]);
	T_EQ_U64(0x43000000u, qpu_v3d_small_imm[qpu_v3d_immf(128.0f).addr]);
	T_EQ_U64(QPU_V3D_IMM_INVALID, qpu_v3d_imm(16).addr);
	T_EQ_U64(QPU_V3D_IMM_INVALID, qpu_v3d_immf(3.0f).addr);
	T_EQ_U64(QPU_V3D_IMM_INVALID, qpu_v3d_immf(-1.0f).addr);
	T_EQ_U64(QPU_V3D_IMM_INVALID, qpu_v3d_immf(256.0f).addr);
}

/* @e's words equal those of @text assembled for @gen. */
static void same_words(int gen, struct qpu_v3d_emit *e, const char *text,
		       size_t want, int line)
{
	struct qpu_asm *as = qpu_asm_new();
	const uint64_t *ew, *aw = NULL;
	size_t en = 0, an = 0, i;
	char m[256];
	int ret;

	ret = qpu_v3d_emit_finish(e);
	ew = qpu_v3d_emit_words(e, &en);
	if (ret) {
		snprintf(m, sizeof(m), "line %d: finish: %s", line,
			 qpu_v3d_emit_error(e, NULL));
		t_report(__FILE__, __LINE__, m);
	}
	T_CHECK(as != NULL);
	if (as && !qpu_asm_set_gen(as, gen) && !qpu_asm_string(as, "text", text))
		an = qpu_asm_words(as, &aw);
	T_EQ_U64(want, en);
	T_EQ_U64(an, en);
	for (i = 0; i < en && i < an; i++) {
		if (aw[i] != ew[i]) {
			snprintf(m, sizeof(m), "line %d, instruction %zu: text "
				 "0x%016llx, emitter 0x%016llx", line, i,
				 (unsigned long long)aw[i],
				 (unsigned long long)ew[i]);
			t_report(__FILE__, __LINE__, m);
		}
		t_checks++;
	}
	qpu_asm_free(as);
}

static const char loop_text[] =
	"	nop ; nop ; ldunifrf.rf1\n"
	"	add rf1, rf2, 3 ; nop\n"
	"loop:\n"
	"	sub.pushz rf1, rf1, 1 ; nop\n"
	"	b.na0  loop\n"
	"	nop ; nop\n"
	"	nop ; nop\n"
	"	nop ; nop\n"
	"	b  out\n"
	"	fadd rf3, rf4, rf4 ; fmul rf6, rf4, 2.0\n"
	"	nop ; nop ; thrsw\n"
	"	nop ; nop\n"
	"out:\n"
	"	.long 0x0123456789abcdef\n"
	"	or tmua, rf7, rf7 ; nop ; thrsw\n"
	"	nop ; nop ; ldtmu.rf8\n"
	"	fadd.ifa rf9.l, rf10.abs, rf11.h ; nop\n"
	"	nop ; mov.ifb rf12, rf13 ; ldunif\n"
	"	shl tmud, rf14, -16 ; nop\n"
	"	nop ; nop ; ldunifa\n"
	"	nop ; nop ; ldunifarf.rf15\n"
	"	nop ; nop ; thrsw\n";

/* The loop above, from C. */
static void build_loop(struct qpu_v3d_emit *e)
{
	qpu_v3d_emit_ldunif(e, QPU_V3D_RF(1));
	qpu_v3d_emit_add(e, QPU_V3D_A_ADD, QPU_V3D_RF(1), QPU_V3D_RF(2),
			 qpu_v3d_imm(3));
	qpu_v3d_emit_label(e, "loop");
	qpu_v3d_emit_add(e, QPU_V3D_A_SUB, QPU_V3D_RF(1), QPU_V3D_RF(1),
			 qpu_v3d_imm(1));
	qpu_v3d_emit_flags(e, QPU_V3D_PF_PUSHZ, QPU_V3D_UF_NONE);
	qpu_v3d_emit_branch(e, QPU_V3D_BR_NA0, "loop");
	qpu_v3d_emit_nop(e);
	qpu_v3d_emit_nop(e);
	qpu_v3d_emit_nop(e);
	qpu_v3d_emit_branch(e, QPU_V3D_BR_ALWAYS, "out");	/* forward */
	qpu_v3d_emit_add(e, QPU_V3D_A_FADD, QPU_V3D_RF(3), QPU_V3D_RF(4),
			 QPU_V3D_RF(4));
	qpu_v3d_emit_dual_mul(e, QPU_V3D_M_FMUL, QPU_V3D_RF(6), QPU_V3D_RF(4),
			      qpu_v3d_immf(2.0f));
	qpu_v3d_emit_thrsw(e);
	qpu_v3d_emit_nop(e);
	qpu_v3d_emit_label(e, "out");
	qpu_v3d_emit_raw(e, 0x0123456789abcdefull);
	qpu_v3d_emit_add(e, QPU_V3D_A_OR, QPU_V3D_TMUA, QPU_V3D_RF(7),
			 QPU_V3D_RF(7));
	qpu_v3d_emit_sig(e, QPU_V3D_SIG_THRSW, QPU_V3D_NONE);
	qpu_v3d_emit_ldtmu(e, QPU_V3D_RF(8));
	qpu_v3d_emit_add(e, QPU_V3D_A_FADD,
			 qpu_v3d_pack(QPU_V3D_RF(9), QPU_V3D_PACK_L),
			 qpu_v3d_unpack(QPU_V3D_RF(10), QPU_V3D_UNPACK_ABS),
			 qpu_v3d_unpack(QPU_V3D_RF(11), QPU_V3D_UNPACK_H));
	qpu_v3d_emit_cond(e, QPU_V3D_COND_IFA);
	qpu_v3d_emit_mul(e, QPU_V3D_M_MOV, QPU_V3D_RF(12), QPU_V3D_RF(13),
			 QPU_V3D_NONE);
	qpu_v3d_emit_cond(e, QPU_V3D_COND_IFB);
	qpu_v3d_emit_sig(e, QPU_V3D_SIG_LDUNIF, QPU_V3D_NONE);
	qpu_v3d_emit_add(e, QPU_V3D_A_SHL, QPU_V3D_TMUD, QPU_V3D_RF(14),
			 qpu_v3d_imm(-16));
	qpu_v3d_emit_nop(e);
	qpu_v3d_emit_sig(e, QPU_V3D_SIG_LDUNIFA, QPU_V3D_NONE);
	qpu_v3d_emit_ldunifa(e, QPU_V3D_RF(15));
	qpu_v3d_emit_thrsw(e);
}

static void test_same_as_text(int gen)
{
	struct qpu_v3d_emit *e = qpu_v3d_emit_new(gen);

	T_CHECK(e != NULL);
	if (!e)
		return;
	build_loop(e);
	T_EQ_U64(20, qpu_v3d_emit_count(e));
	same_words(gen, e, loop_text, 20, __LINE__);
	qpu_v3d_emit_free(e);
}

T_TEST(same_as_text_v3d42)
{
	test_same_as_text(QPU_GEN_V3D42);
}

T_TEST(same_as_text_v3d71)
{
	test_same_as_text(QPU_GEN_V3D71);
}

/* Every branch target, uniform-stream target and msfign variant. */
static const char branches_text[] =
	"	b  zero_addr+0x100\n"
	"	b.anya  lri\n"
	"	b.na0  rf5\n"
	"	bu  rf3, rf3\n"
	"	bu.a0  lri, a:unif\n"
	"	bup  -8, r:unif\n"
	"	bu.alla  zero_addr+0x40, lri\n"
	"	bu.anyna  lri, rf63\n"
	"	b.anyaq  rf7\n"
	"	bq  out\n"
	"	bu.allnap  16, rf9\n"
	"	bu.a0q  rf2, r:unif\n"
	"	bp  zero_addr+0xfffffff8\n"
	"out:\n"
	"	nop ; nop\n";

static void test_branches(int gen)
{
	struct qpu_v3d_emit *e = qpu_v3d_emit_new(gen);

	T_CHECK(e != NULL);
	if (!e)
		return;
	qpu_v3d_emit_branch_abs(e, QPU_V3D_BR_ALWAYS, 0x100);
	qpu_v3d_emit_branch_lri(e, QPU_V3D_BR_ANYA);
	qpu_v3d_emit_branch_reg(e, QPU_V3D_BR_NA0, QPU_V3D_RF(5));
	qpu_v3d_emit_branch_reg(e, QPU_V3D_BR_ALWAYS, QPU_V3D_RF(3));
	qpu_v3d_emit_branch_unif(e, QPU_V3D_BR_DEST_RF, QPU_V3D_RF(3));
	qpu_v3d_emit_branch_lri(e, QPU_V3D_BR_A0);
	qpu_v3d_emit_branch_unif(e, QPU_V3D_BR_DEST_ABS, QPU_V3D_NONE);
	qpu_v3d_emit_branch_offset(e, QPU_V3D_BR_ALWAYS, -8);
	qpu_v3d_emit_branch_unif(e, QPU_V3D_BR_DEST_REL, QPU_V3D_NONE);
	qpu_v3d_emit_branch_msfign(e, QPU_V3D_MSFIGN_P);
	qpu_v3d_emit_branch_abs(e, QPU_V3D_BR_ALLA, 0x40);
	qpu_v3d_emit_branch_unif(e, QPU_V3D_BR_DEST_LRI, QPU_V3D_NONE);
	qpu_v3d_emit_branch_lri(e, QPU_V3D_BR_ANYNA);
	qpu_v3d_emit_branch_unif(e, QPU_V3D_BR_DEST_RF, QPU_V3D_RF(63));
	qpu_v3d_emit_branch_reg(e, QPU_V3D_BR_ANYA, QPU_V3D_RF(7));
	qpu_v3d_emit_branch_msfign(e, QPU_V3D_MSFIGN_Q);
	qpu_v3d_emit_branch(e, QPU_V3D_BR_ALWAYS, "out");
	qpu_v3d_emit_branch_msfign(e, QPU_V3D_MSFIGN_Q);
	qpu_v3d_emit_branch_offset(e, QPU_V3D_BR_ALLNA, 16);
	qpu_v3d_emit_branch_msfign(e, QPU_V3D_MSFIGN_P);
	qpu_v3d_emit_branch_unif(e, QPU_V3D_BR_DEST_RF, QPU_V3D_RF(9));
	/* the modifiers in either order */
	qpu_v3d_emit_branch_reg(e, QPU_V3D_BR_A0, QPU_V3D_RF(2));
	qpu_v3d_emit_branch_unif(e, QPU_V3D_BR_DEST_REL, QPU_V3D_RF(60));
	qpu_v3d_emit_branch_msfign(e, QPU_V3D_MSFIGN_Q);
	qpu_v3d_emit_branch_abs(e, QPU_V3D_BR_ALWAYS, 0xfffffff8u);
	qpu_v3d_emit_branch_msfign(e, QPU_V3D_MSFIGN_P);
	qpu_v3d_emit_label(e, "out");
	qpu_v3d_emit_nop(e);
	same_words(gen, e, branches_text, 14, __LINE__);
	qpu_v3d_emit_free(e);
}

T_TEST(branches_v3d42)
{
	test_branches(QPU_GEN_V3D42);
}

T_TEST(branches_v3d71)
{
	test_branches(QPU_GEN_V3D71);
}

/* The disassembler spells the new branches as the text above. */
T_TEST(branches_disassemble)
{
	struct qpu_v3d_emit *e = qpu_v3d_emit_new(QPU_GEN_V3D71);
	const uint64_t *w;
	char buf[QPU_DIS_BUF_SIZE];
	size_t n = 0;

	T_CHECK(e != NULL);
	if (!e)
		return;
	qpu_v3d_emit_branch_lri(e, QPU_V3D_BR_A0);
	qpu_v3d_emit_branch_unif(e, QPU_V3D_BR_DEST_ABS, QPU_V3D_NONE);
	qpu_v3d_emit_branch_reg(e, QPU_V3D_BR_ANYA, QPU_V3D_RF(7));
	qpu_v3d_emit_branch_msfign(e, QPU_V3D_MSFIGN_Q);
	T_EQ_U64(0, qpu_v3d_emit_finish(e));
	w = qpu_v3d_emit_words(e, &n);
	T_EQ_U64(2, n);
	if (n == 2) {
		qpu_dis_word_gen(QPU_GEN_V3D71, w[0], 0, 0, buf, sizeof(buf));
		T_EQ_STR("bu.a0  lri, a:unif", buf);
		qpu_dis_word_gen(QPU_GEN_V3D71, w[1], 8, 0, buf, sizeof(buf));
		T_EQ_STR("b.anyaq  rf7", buf);
	}
	qpu_v3d_emit_free(e);
}

/*
 * 4.2: an fadd whose operands the encoder swaps still gets its read
 * addresses in the text order of the swapped form, so its disassembly is
 * text, not a ".long" (found by fuzz-v3d-emit).
 */
T_TEST(v42_swapped_operands_canonical)
{
	static const char text[] = "	fadd r4, rf46, rf21.abs ; nop\n";
	struct qpu_v3d_emit *e = qpu_v3d_emit_new(QPU_GEN_V3D42);
	char buf[QPU_DIS_BUF_SIZE];
	const uint64_t *w;
	size_t n = 0;

	T_CHECK(e != NULL);
	if (!e)
		return;
	qpu_v3d_emit_add(e, QPU_V3D_A_FADD, QPU_V3D_R4, QPU_V3D_RF(46),
			 qpu_v3d_unpack(QPU_V3D_RF(21), QPU_V3D_UNPACK_ABS));
	same_words(QPU_GEN_V3D42, e, text, 1, __LINE__);
	w = qpu_v3d_emit_words(e, &n);
	T_EQ_U64(1, n);
	if (n == 1) {
		qpu_dis_word_gen(QPU_GEN_V3D42, w[0], 0, 0, buf, sizeof(buf));
		T_EQ_STR("fadd r4, rf21.abs, rf46       ; nop", buf);
	}
	qpu_v3d_emit_free(e);
}

/* 4.2 only: accumulators, shared read addresses, the SFU, rot. */
static const char v42_text[] =
	"	fadd r0, r1, rf2 ; fmul r3, rf2, r4\n"
	"	add rf1, rf5, rf6 ; add rf7, rf6, rf5\n"
	"	nop ; mov r1, r0 ; rot(-1)\n"
	"	nop ; fmul r1, r0, rf3 ; rot(5)\n"
	"	nop ; mov r2, r0 ; rot\n"
	"	or recip, rf9, rf9 ; nop ; ldtmu.r4\n"
	"	vfmax rf1, rf2.swp, rf2 ; nop\n";

T_TEST(v42)
{
	struct qpu_v3d_emit *e = qpu_v3d_emit_new(QPU_GEN_V3D42);

	T_CHECK(e != NULL);
	if (!e)
		return;
	qpu_v3d_emit_add(e, QPU_V3D_A_FADD, QPU_V3D_R0, QPU_V3D_R1, QPU_V3D_RF(2));
	qpu_v3d_emit_dual_mul(e, QPU_V3D_M_FMUL, QPU_V3D_R3, QPU_V3D_RF(2),
			      QPU_V3D_R4);
	qpu_v3d_emit_add(e, QPU_V3D_A_ADD, QPU_V3D_RF(1), QPU_V3D_RF(5), QPU_V3D_RF(6));
	qpu_v3d_emit_dual_mul(e, QPU_V3D_M_ADD, QPU_V3D_RF(7), QPU_V3D_RF(6),
			      QPU_V3D_RF(5));
	qpu_v3d_emit_mul(e, QPU_V3D_M_MOV, QPU_V3D_R1, QPU_V3D_R0, QPU_V3D_NONE);
	qpu_v3d_emit_rot(e, -1);
	qpu_v3d_emit_mul(e, QPU_V3D_M_FMUL, QPU_V3D_R1, QPU_V3D_R0, QPU_V3D_RF(3));
	qpu_v3d_emit_rot(e, 5);
	qpu_v3d_emit_mul(e, QPU_V3D_M_MOV, QPU_V3D_R2, QPU_V3D_R0, QPU_V3D_NONE);
	qpu_v3d_emit_sig(e, QPU_V3D_SIG_ROT, QPU_V3D_NONE);	/* by r5 */
	qpu_v3d_emit_ldtmu(e, QPU_V3D_R4);
	qpu_v3d_emit_dual_add(e, QPU_V3D_A_OR, QPU_V3D_RECIP, QPU_V3D_RF(9),
			      QPU_V3D_RF(9));
	qpu_v3d_emit_add(e, QPU_V3D_A_VFMAX, QPU_V3D_RF(1),
			 qpu_v3d_unpack(QPU_V3D_RF(2), QPU_V3D_UNPACK_SWP),
			 QPU_V3D_RF(2));
	same_words(QPU_GEN_V3D42, e, v42_text, 7, __LINE__);
	qpu_v3d_emit_free(e);
}

/*
 * Every operation of @gen, from C: it encodes, decodes to itself and
 * disassembles under its name to text that assembles to the same word;
 * an operation of the other generation only is refused.
 */
static void test_every_op(int gen)
{
	enum qpu_gen cg = gen == QPU_GEN_V3D42 ? QPU_GEN_V3D42 :
						      QPU_GEN_V3D71;
	unsigned int op, mul, count, reached = 0, refused = 0;
	char text[QPU_DIS_BUF_SIZE], m[512], name[32], *p;
	const struct qpu_v3d_op_info *info;

	for (mul = 0; mul < 2; mul++) {
		count = mul ? QPU_V3D_M_COUNT : QPU_V3D_A_COUNT;
		for (op = 0; op < count; op++) {
			struct qpu_v3d_emit *e = qpu_v3d_emit_new(gen);
			struct qpu_v3d_instr in;
			const uint64_t *w;
			bool valid;
			uint64_t back = 0;
			size_t n = 0;

			info = mul ? &qpu_v3d_mul_op_info[op] :
				     &qpu_v3d_add_op_info[op];
			valid = mul ? qpu_v3d_mul_op_valid(cg, op) :
				      qpu_v3d_add_op_valid(cg, op);
			if (!e)
				continue;
			if (mul)
				qpu_v3d_emit_mul(e, (enum qpu_v3d_mul_op)op,
						 QPU_V3D_RF(1), QPU_V3D_RF(2),
						 QPU_V3D_RF(3));
			else
				qpu_v3d_emit_add(e, (enum qpu_v3d_add_op)op,
						 QPU_V3D_RF(1), QPU_V3D_RF(2),
						 QPU_V3D_RF(3));
			if (!valid) {
				snprintf(m, sizeof(m), "%s is no %s operation",
					 info->name, mul ? "mul" : "add");
				T_EQ_U64(-EINVAL, qpu_v3d_emit_finish(e));
				T_CHECK(qpu_v3d_emit_error(e, NULL) &&
					strstr(qpu_v3d_emit_error(e, NULL), m));
				refused++;
				qpu_v3d_emit_free(e);
				continue;
			}
			if (qpu_v3d_emit_finish(e)) {
				snprintf(m, sizeof(m), "v3d%d %s: %s", gen,
					 info->name, qpu_v3d_emit_error(e, NULL));
				t_report(__FILE__, __LINE__, m);
				qpu_v3d_emit_free(e);
				continue;
			}
			w = qpu_v3d_emit_words(e, &n);
			T_EQ_U64(1, n);
			T_EQ_U64(QPU_V3D_VALID, qpu_v3d_decode(cg, w[0], &in));
			T_EQ_U64(op, mul ? in.mul.op : in.add.op);
			qpu_dis_word_gen(gen, w[0], 0, 0, text, sizeof(text));
			/* the op's name opens its half of the text */
			snprintf(name, sizeof(name), "%s%s", mul ? "; " : "",
				 info->name);
			p = mul ? strstr(text, name) : text;
			if (!p || strncmp(p, name, strlen(name)) ||
			    (p[strlen(name)] != ' ' && p[strlen(name)]) ||
			    qpu_asm_line_gen(gen, text, &back, m, sizeof(m)) ||
			    back != w[0]) {
				snprintf(m, sizeof(m), "v3d%d %s: '%s'", gen,
					 info->name, text);
				t_report(__FILE__, __LINE__, m);
			}
			t_checks++;
			reached++;
			qpu_v3d_emit_free(e);
		}
	}
	/* every operation is on one generation or the other */
	T_EQ_U64(QPU_V3D_A_COUNT + QPU_V3D_M_COUNT, reached + refused);
	printf("v3d%d: %u operations reached, %u refused\n", gen, reached, refused);
}

T_TEST(every_op_v3d42)
{
	test_every_op(QPU_GEN_V3D42);
}

T_TEST(every_op_v3d71)
{
	test_every_op(QPU_GEN_V3D71);
}

/* @e's first error is at @index and says @what; the program has no words. */
static void expect_error(struct qpu_v3d_emit *e, size_t index, const char *what,
			 int line)
{
	const char *msg;
	char want[32], m[512];
	size_t at = ~(size_t)0, n = 1;

	T_EQ_U64(-EINVAL, qpu_v3d_emit_finish(e));
	msg = qpu_v3d_emit_error(e, &at);
	snprintf(want, sizeof(want), "instruction %zu: ", index);
	if (!msg || at != index || strncmp(msg, want, strlen(want)) ||
	    !strstr(msg, what)) {
		snprintf(m, sizeof(m), "line %d: error '%s' at %zu, expected "
			 "'%s%s'", line, msg ? msg : "(none)", at, want, what);
		t_report(__FILE__, __LINE__, m);
	}
	t_checks++;
	T_CHECK(qpu_v3d_emit_words(e, &n) == NULL && n == 0);
}

/* A fresh emitter for @gen, the calls, then the error expected. */
#define BAD(gen, index, what, ...) do {					\
	struct qpu_v3d_emit *e = qpu_v3d_emit_new(gen);		\
	T_CHECK(e != NULL);						\
	if (e) {							\
		(void)(__VA_ARGS__);					\
		expect_error(e, index, what, __LINE__);			\
		qpu_v3d_emit_free(e);					\
	}								\
} while (0)

#define V42	QPU_GEN_V3D42
#define V71	QPU_GEN_V3D71
#define RF	QPU_V3D_RF

T_TEST(refusals)
{
	/* operands */
	BAD(V71, 1, "r0: V3D 7.1 has no accumulators",
	    qpu_v3d_emit_nop(e),
	    qpu_v3d_emit_add(e, QPU_V3D_A_ADD, RF(1), QPU_V3D_R0, RF(2)));
	BAD(V71, 0, "r3: V3D 7.1 has no accumulators",
	    qpu_v3d_emit_add(e, QPU_V3D_A_ADD, QPU_V3D_R3, RF(1), RF(2)));
	BAD(V71, 0, "r4: V3D 7.1 has no accumulators",
	    qpu_v3d_emit_ldtmu(e, QPU_V3D_R4));
	BAD(V42, 0, "rf7: V3D 4.2 reads two register-file addresses",
	    qpu_v3d_emit_add(e, QPU_V3D_A_ADD, RF(1), RF(5), RF(6)),
	    qpu_v3d_emit_dual_mul(e, QPU_V3D_M_ADD, RF(2), RF(5), RF(7)));
	BAD(V42, 0, "a small immediate besides two register-file reads",
	    qpu_v3d_emit_add(e, QPU_V3D_A_ADD, RF(1), RF(5), RF(6)),
	    qpu_v3d_emit_dual_mul(e, QPU_V3D_M_ADD, RF(2), RF(5), qpu_v3d_imm(1)));
	BAD(V42, 0, "one small immediate per instruction on V3D 4.2",
	    qpu_v3d_emit_add(e, QPU_V3D_A_ADD, RF(1), qpu_v3d_imm(1),
			     qpu_v3d_imm(2)));
	BAD(V71, 0, "not a small immediate",
	    qpu_v3d_emit_add(e, QPU_V3D_A_ADD, RF(1), RF(2), qpu_v3d_imm(16)));
	BAD(V71, 0, "not a small immediate",
	    qpu_v3d_emit_mul(e, QPU_V3D_M_FMUL, RF(1), RF(2), qpu_v3d_immf(3.0f)));
	BAD(V71, 0, "rf64: the register file has rf0..rf63",
	    qpu_v3d_emit_add(e, QPU_V3D_A_ADD, RF(1), RF(64), RF(2)));
	BAD(V71, 0, "write address 64: there are 0..63",
	    qpu_v3d_emit_add(e, QPU_V3D_A_ADD, RF(64), RF(1), RF(2)));
	BAD(V71, 0, "the destination is a small immediate",
	    qpu_v3d_emit_add(e, QPU_V3D_A_ADD, qpu_v3d_imm(1), RF(1), RF(2)));
	BAD(V71, 0, "the destination is nothing",
	    qpu_v3d_emit_add(e, QPU_V3D_A_ADD, QPU_V3D_NONE, RF(1), RF(2)));
	BAD(V71, 0, "source a of the add ALU is a magic address",
	    qpu_v3d_emit_add(e, QPU_V3D_A_ADD, RF(1), QPU_V3D_TMUA, RF(2)));
	BAD(V71, 0, "source b of the mul ALU is nothing",
	    qpu_v3d_emit_mul(e, QPU_V3D_M_FMUL, RF(1), RF(2), QPU_V3D_NONE));
	BAD(V71, 0, "a pack on a source",
	    qpu_v3d_emit_add(e, QPU_V3D_A_FADD, RF(1),
			     qpu_v3d_pack(RF(2), QPU_V3D_PACK_L), RF(3)));
	BAD(V71, 0, "an unpack on the destination",
	    qpu_v3d_emit_add(e, QPU_V3D_A_FADD,
			     qpu_v3d_unpack(RF(1), QPU_V3D_UNPACK_ABS), RF(2),
			     RF(3)));
	BAD(V71, 0, "magic write address 30 does not exist on V3D 7.1",
	    qpu_v3d_emit_add(e, QPU_V3D_A_ADD, QPU_V3D_MAGIC(30), RF(1), RF(2)));
	/* an unpack the operation has no encoding for: the encoder's refusal */
	BAD(V71, 0, "no V3D 7.1 encoding has these operands",
	    qpu_v3d_emit_add(e, QPU_V3D_A_ADD, RF(1),
			     qpu_v3d_unpack(RF(2), QPU_V3D_UNPACK_ABS), RF(3)));

	/* operations */
	BAD(V42, 0, "fmov is no add operation of V3D 4.2",
	    qpu_v3d_emit_add(e, QPU_V3D_A_FMOV, RF(1), RF(2), QPU_V3D_NONE));
	BAD(V42, 0, "ftounorm16 is no mul operation of V3D 4.2",
	    qpu_v3d_emit_mul(e, QPU_V3D_M_FTOUNORM16, RF(1), RF(2), QPU_V3D_NONE));
	BAD(V71, 0, "vpmsetup is no add operation of V3D 7.1",
	    qpu_v3d_emit_add(e, QPU_V3D_A_VPMSETUP, RF(1), RF(2), QPU_V3D_NONE));
	BAD(V71, 0, "add operation 200 does not exist",
	    qpu_v3d_emit_add(e, (enum qpu_v3d_add_op)200, RF(1), RF(2), RF(3)));
	BAD(V71, 0, "the mul ALU of this instruction is in use",
	    qpu_v3d_emit_mul(e, QPU_V3D_M_FMUL, RF(1), RF(2), RF(3)),
	    qpu_v3d_emit_dual_mul(e, QPU_V3D_M_FMUL, RF(1), RF(2), RF(3)));
	BAD(V71, 0, "the add ALU of this instruction is in use",
	    qpu_v3d_emit_add(e, QPU_V3D_A_ADD, RF(1), RF(2), RF(3)),
	    qpu_v3d_emit_dual_add(e, QPU_V3D_A_ADD, RF(1), RF(2), RF(3)));
	BAD(V71, 0, "dual mul: there is no open ALU instruction",
	    qpu_v3d_emit_dual_mul(e, QPU_V3D_M_FMUL, RF(1), RF(2), RF(3)));
	BAD(V71, 0, "dual add: there is no open ALU instruction",
	    qpu_v3d_emit_raw(e, 0),
	    qpu_v3d_emit_dual_add(e, QPU_V3D_A_ADD, RF(1), RF(2), RF(3)));
	BAD(V71, 0, "dual add: there is no open ALU instruction",
	    qpu_v3d_emit_branch_offset(e, QPU_V3D_BR_ALWAYS, 0),
	    qpu_v3d_emit_dual_add(e, QPU_V3D_A_ADD, RF(1), RF(2), RF(3)));
	/* a label closes the instruction before it */
	BAD(V71, 1, "a signal: there is no open ALU instruction",
	    qpu_v3d_emit_nop(e), qpu_v3d_emit_label(e, "x"),
	    qpu_v3d_emit_sig(e, QPU_V3D_SIG_THRSW, QPU_V3D_NONE));

	/* conditions and flags */
	BAD(V71, 0, "a condition: the instruction has no operation",
	    qpu_v3d_emit_nop(e), qpu_v3d_emit_cond(e, QPU_V3D_COND_IFA));
	BAD(V71, 0, "condition 9 does not exist",
	    qpu_v3d_emit_add(e, QPU_V3D_A_ADD, RF(1), RF(2), RF(3)),
	    qpu_v3d_emit_cond(e, (enum qpu_v3d_cond)9));
	BAD(V71, 0, "flag push 4 or update 0 does not exist",
	    qpu_v3d_emit_add(e, QPU_V3D_A_ADD, RF(1), RF(2), RF(3)),
	    qpu_v3d_emit_flags(e, (enum qpu_v3d_pf)4, QPU_V3D_UF_NONE));
	BAD(V71, 0, "no V3D 7.1 encoding has these operands, flags",
	    qpu_v3d_emit_add(e, QPU_V3D_A_ADD, RF(1), RF(2), RF(3)),
	    qpu_v3d_emit_flags(e, QPU_V3D_PF_PUSHZ, QPU_V3D_UF_NONE),
	    qpu_v3d_emit_dual_mul(e, QPU_V3D_M_ADD, RF(4), RF(5), RF(6)),
	    qpu_v3d_emit_flags(e, QPU_V3D_PF_PUSHN, QPU_V3D_UF_ANDZ));
	/* a signal that writes a register takes the flags' field */
	BAD(V42, 0, "no V3D 4.2 encoding",
	    qpu_v3d_emit_add(e, QPU_V3D_A_ADD, RF(1), RF(2), RF(3)),
	    qpu_v3d_emit_cond(e, QPU_V3D_COND_IFA),
	    qpu_v3d_emit_sig(e, QPU_V3D_SIG_LDTMU, RF(4)));

	/* signals */
	BAD(V71, 0, "not a set of enum qpu_v3d_sig bits",
	    qpu_v3d_emit_nop(e), qpu_v3d_emit_sig(e, 1u << 13, QPU_V3D_NONE));
	BAD(V71, 0, "not a set of enum qpu_v3d_sig bits",
	    qpu_v3d_emit_nop(e), qpu_v3d_emit_sig(e, 0, QPU_V3D_NONE));
	BAD(V71, 0, "signal thrsw given twice",
	    qpu_v3d_emit_thrsw(e),
	    qpu_v3d_emit_sig(e, QPU_V3D_SIG_THRSW, QPU_V3D_NONE));
	BAD(V71, 0, "these signals write no register",
	    qpu_v3d_emit_nop(e), qpu_v3d_emit_sig(e, QPU_V3D_SIG_THRSW, RF(1)));
	BAD(V71, 0, "signal ldtmu needs its destination",
	    qpu_v3d_emit_ldtmu(e, QPU_V3D_NONE));
	BAD(V71, 0, "the signal's destination is a small immediate",
	    qpu_v3d_emit_ldtmu(e, qpu_v3d_imm(1)));
	BAD(V71, 0, "magic write address 25 does not exist",
	    qpu_v3d_emit_ldtmu(e, QPU_V3D_MAGIC(25)));
	BAD(V42, 0, "V3D 4.2 has no signal code for this combination",
	    qpu_v3d_emit_ldtmu(e, RF(1)),
	    qpu_v3d_emit_sig(e, QPU_V3D_SIG_LDUNIFRF, RF(2)));
	BAD(V71, 0, "V3D 7.1 has no signal code for this combination",
	    qpu_v3d_emit_ldunif(e, QPU_V3D_NONE),
	    qpu_v3d_emit_sig(e, QPU_V3D_SIG_LDUNIFA, QPU_V3D_NONE));
	BAD(V71, 0, "rot is no signal of V3D 7.1",
	    qpu_v3d_emit_mul(e, QPU_V3D_M_MOV, RF(1), RF(2), QPU_V3D_NONE),
	    qpu_v3d_emit_rot(e, 1));
	BAD(V42, 0, "rot(16): the rotation is -16..15",
	    qpu_v3d_emit_mul(e, QPU_V3D_M_MOV, QPU_V3D_R1, QPU_V3D_R0,
			     QPU_V3D_NONE),
	    qpu_v3d_emit_rot(e, 16));
	BAD(V42, 0, "rot besides a small immediate",
	    qpu_v3d_emit_add(e, QPU_V3D_A_ADD, RF(1), RF(2), qpu_v3d_imm(3)),
	    qpu_v3d_emit_rot(e, 1));
	BAD(V42, 0, "rot besides two register-file reads",
	    qpu_v3d_emit_add(e, QPU_V3D_A_ADD, RF(1), RF(2), RF(3)),
	    qpu_v3d_emit_rot(e, 1));
	BAD(V42, 0, "with rot, V3D 4.2's raddr_b holds the rotation",
	    qpu_v3d_emit_add(e, QPU_V3D_A_ADD, RF(1), RF(2), RF(2)),
	    qpu_v3d_emit_rot(e, 1),
	    qpu_v3d_emit_dual_mul(e, QPU_V3D_M_ADD, RF(4), RF(2), RF(3)));
	BAD(V42, 0, "signal rot given twice",
	    qpu_v3d_emit_nop(e), qpu_v3d_emit_rot(e, 1), qpu_v3d_emit_rot(e, 2));

	/* branches and labels */
	BAD(V71, 0, "branch offset 12 is not a multiple of 8",
	    qpu_v3d_emit_branch_offset(e, QPU_V3D_BR_ALWAYS, 12));
	BAD(V71, 0, "branch condition 7 does not exist",
	    qpu_v3d_emit_branch(e, (enum qpu_v3d_br_cond)7, "x"),
	    qpu_v3d_emit_label(e, "x"));
	BAD(V71, 1, "label 'nowhere' is not defined",
	    qpu_v3d_emit_nop(e),
	    qpu_v3d_emit_branch(e, QPU_V3D_BR_ALWAYS, "nowhere"),
	    qpu_v3d_emit_nop(e));
	BAD(V71, 3, "label 'x' is already defined (instruction 1)",
	    qpu_v3d_emit_nop(e), qpu_v3d_emit_label(e, "x"),
	    qpu_v3d_emit_nop(e), qpu_v3d_emit_nop(e),
	    qpu_v3d_emit_label(e, "x"));
	BAD(V71, 0, "a label needs a name", qpu_v3d_emit_label(e, ""));
	BAD(V71, 1, "a label needs a name",
	    qpu_v3d_emit_nop(e), qpu_v3d_emit_label(e, NULL));
	BAD(V71, 0, "a label needs a name",
	    qpu_v3d_emit_branch(e, QPU_V3D_BR_ALWAYS, NULL));

	/* absolute, register and uniform-stream branches, msfign */
	BAD(V71, 0, "branch address 0x104 is not a multiple of 8",
	    qpu_v3d_emit_branch_abs(e, QPU_V3D_BR_ALWAYS, 0x104));
	BAD(V42, 0, "branch condition 9 does not exist",
	    qpu_v3d_emit_branch_lri(e, (enum qpu_v3d_br_cond)9));
	BAD(V71, 0, "the branch target is a small immediate: it is rfN",
	    qpu_v3d_emit_branch_reg(e, QPU_V3D_BR_ALWAYS, qpu_v3d_imm(1)));
	BAD(V42, 0, "the branch target is an accumulator: it is rfN",
	    qpu_v3d_emit_branch_reg(e, QPU_V3D_BR_ALWAYS, QPU_V3D_R0));
	BAD(V71, 0, "the branch target is a magic address: it is rfN",
	    qpu_v3d_emit_branch_reg(e, QPU_V3D_BR_ALWAYS, QPU_V3D_TMUA));
	BAD(V71, 0, "the branch target is a register-file register with a "
	    "pack or unpack",
	    qpu_v3d_emit_branch_reg(e, QPU_V3D_BR_ALWAYS,
				    qpu_v3d_unpack(RF(1), QPU_V3D_UNPACK_ABS)));
	BAD(V71, 0, "rf64: the register file has rf0..rf63",
	    qpu_v3d_emit_branch_reg(e, QPU_V3D_BR_ALWAYS, RF(64)));
	BAD(V71, 0, "msfign: there is no open branch",
	    qpu_v3d_emit_nop(e), qpu_v3d_emit_branch_msfign(e, QPU_V3D_MSFIGN_P));
	BAD(V71, 1, "msfign: there is no open branch",
	    qpu_v3d_emit_branch_lri(e, QPU_V3D_BR_ALWAYS),
	    qpu_v3d_emit_label(e, "x"),
	    qpu_v3d_emit_branch_msfign(e, QPU_V3D_MSFIGN_P));
	BAD(V71, 0, "msfign 3 does not exist",
	    qpu_v3d_emit_branch_lri(e, QPU_V3D_BR_ALWAYS),
	    qpu_v3d_emit_branch_msfign(e, (enum qpu_v3d_msfign)3));
	BAD(V71, 0, "msfign given twice",
	    qpu_v3d_emit_branch_lri(e, QPU_V3D_BR_ALWAYS),
	    qpu_v3d_emit_branch_msfign(e, QPU_V3D_MSFIGN_P),
	    qpu_v3d_emit_branch_msfign(e, QPU_V3D_MSFIGN_Q));
	BAD(V71, 0, "the uniform target: there is no open branch",
	    qpu_v3d_emit_raw(e, 0),
	    qpu_v3d_emit_branch_unif(e, QPU_V3D_BR_DEST_LRI, QPU_V3D_NONE));
	BAD(V42, 0, "the uniform target is given twice",
	    qpu_v3d_emit_branch_lri(e, QPU_V3D_BR_ALWAYS),
	    qpu_v3d_emit_branch_unif(e, QPU_V3D_BR_DEST_LRI, QPU_V3D_NONE),
	    qpu_v3d_emit_branch_unif(e, QPU_V3D_BR_DEST_ABS, QPU_V3D_NONE));
	BAD(V71, 0, "uniform destination 4 does not exist",
	    qpu_v3d_emit_branch_lri(e, QPU_V3D_BR_ALWAYS),
	    qpu_v3d_emit_branch_unif(e, (enum qpu_v3d_br_dest)4, QPU_V3D_NONE));
	BAD(V71, 0, "both targets read raddr_a: rf3 and rf4 differ",
	    qpu_v3d_emit_branch_reg(e, QPU_V3D_BR_ALWAYS, RF(3)),
	    qpu_v3d_emit_branch_unif(e, QPU_V3D_BR_DEST_RF, RF(4)));
	BAD(V71, 0, "the uniform target is nothing: it is rfN",
	    qpu_v3d_emit_branch_lri(e, QPU_V3D_BR_ALWAYS),
	    qpu_v3d_emit_branch_unif(e, QPU_V3D_BR_DEST_RF, QPU_V3D_NONE));
	BAD(V71, 0, "a condition: there is no open ALU instruction",
	    qpu_v3d_emit_branch_lri(e, QPU_V3D_BR_ALWAYS),
	    qpu_v3d_emit_cond(e, QPU_V3D_COND_IFA));

}

T_TEST(lifecycle)
{
	struct qpu_v3d_emit *e;
	size_t n;

	errno = 0;
	T_CHECK(qpu_v3d_emit_new(QPU_GEN_VC4) == NULL && errno == EINVAL);
	qpu_v3d_emit_free(NULL);

	/* the first error stays, with its index; later calls do nothing */
	e = qpu_v3d_emit_new(V71);
	T_CHECK(e != NULL);
	if (!e)
		return;
	qpu_v3d_emit_nop(e);
	qpu_v3d_emit_mul(e, QPU_V3D_M_MOV, RF(1), QPU_V3D_R0, QPU_V3D_NONE);
	qpu_v3d_emit_add(e, QPU_V3D_A_FMOV, QPU_V3D_R1, RF(1), QPU_V3D_NONE);
	qpu_v3d_emit_nop(e);
	T_EQ_U64(2, qpu_v3d_emit_count(e));
	expect_error(e, 1, "r0: V3D 7.1 has no accumulators", __LINE__);
	qpu_v3d_emit_free(e);

	/* finished: nothing more; words before the finish: none */
	e = qpu_v3d_emit_new(V71);
	T_CHECK(e != NULL);
	if (!e)
		return;
	qpu_v3d_emit_nop(e);
	n = 1;
	T_CHECK(qpu_v3d_emit_words(e, &n) == NULL && n == 0);
	T_CHECK(qpu_v3d_emit_error(e, NULL) == NULL);
	T_EQ_U64(0, qpu_v3d_emit_finish(e));
	T_EQ_U64(0, qpu_v3d_emit_finish(e));
	T_CHECK(qpu_v3d_emit_words(e, &n) != NULL && n == 1);
	qpu_v3d_emit_nop(e);
	T_EQ_STR("instruction 1: the program is finished",
		 qpu_v3d_emit_error(e, NULL));
	T_CHECK(qpu_v3d_emit_words(e, &n) == NULL && n == 0);
	qpu_v3d_emit_free(e);

	/* an empty program has no words */
	e = qpu_v3d_emit_new(V42);
	T_CHECK(e != NULL);
	if (!e)
		return;
	T_EQ_U64(0, qpu_v3d_emit_finish(e));
	n = 1;
	T_CHECK(qpu_v3d_emit_words(e, &n) != NULL);
	T_EQ_U64(0, n);
	qpu_v3d_emit_free(e);
}

T_MAIN()
