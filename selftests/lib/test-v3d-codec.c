// SPDX-License-Identifier: MIT
/*
 * test-v3d-codec: the V3D 4.2 and 7.1 instruction codec (core/v3d). Every
 * word of each class (each add and mul opcode with each selecting operand
 * value, each signal with each condition code, each write address, each
 * branch field) and a million random words per generation (fixed seed)
 * either decode and encode back to themselves or are named invalid; every
 * operation of a generation is reached; canonical forms encode; golden
 * words decode to the fields the hardware documents.
 */
#include <stdarg.h>

#include "testlib.h"

#include "v3d/qpu_v3d_codec.h"

#define RANDOM_WORDS	1000000

struct tally {
	unsigned long valid, invalid, why[QPU_V3D_INVALID_COUNT];
	bool add_seen[QPU_V3D_A_COUNT], mul_seen[QPU_V3D_M_COUNT];
};

/* Decode @w; valid words must encode back, canonical forms must encode. */
/* One check of a word: counted, and reported at @line when not @ok. */
static void __attribute__((format(printf, 3, 4)))
word_check(bool ok, int line, const char *fmt, ...)
{
	char m[160];
	va_list ap;

	t_checks++;
	if (ok)
		return;
	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	t_report(__FILE__, line, m);
}

static void check_word(enum qpu_gen gen, uint64_t w, struct tally *t)
{
	struct qpu_v3d_instr in, canon, again;
	enum qpu_v3d_invalid why;
	u64 back = ~w, cw = 0, cw2 = 0;
	int ret;

	why = qpu_v3d_decode(gen, w, &in);
	t->why[why < QPU_V3D_INVALID_COUNT ? why : 0]++;
	if (why != QPU_V3D_VALID) {
		t->invalid++;
		T_CHECK(why < QPU_V3D_INVALID_COUNT);
		return;
	}
	t->valid++;
	if (!in.is_branch) {
		t->add_seen[in.add.op] = true;
		t->mul_seen[in.mul.op] = true;
	}
	ret = qpu_v3d_encode(gen, &in, &back);
	word_check(!ret && back == w, __LINE__, "v3d%d 0x%016" PRIx64 " encodes back as "
		   "0x%016" PRIx64 " (%d)", gen, w, back, ret);

	canon = in;
	qpu_v3d_canonicalize(gen, &canon);
	ret = qpu_v3d_encode(gen, &canon, &cw);
	again = canon;
	qpu_v3d_canonicalize(gen, &again);
	word_check(!ret && !qpu_v3d_encode(gen, &again, &cw2) && cw == cw2, __LINE__,
		   "v3d%d 0x%016" PRIx64 ": canonical form does not encode (%d) or is "
		   "not stable", gen, w, ret);

	/* the assembler's word: a fixed point of decode, canonicalize, encode */
	canon = in;
	ret = qpu_v3d_encode_canonical(gen, &canon, &cw);
	if (!ret && qpu_v3d_decode(gen, cw, &again) == QPU_V3D_VALID) {
		qpu_v3d_canonicalize(gen, &again);
		ret = qpu_v3d_encode(gen, &again, &cw2) ? -1 : 0;
	}
	word_check(!ret && cw == cw2, __LINE__, "v3d%d 0x%016" PRIx64 ": encode_canonical "
		   "gives 0x%016" PRIx64 ", not a fixed point (%d)", gen, w, cw, ret);
}

static uint64_t field(unsigned int shift, unsigned int bits, uint64_t v)
{
	return (v & ((1ull << bits) - 1)) << shift;
}

#define F(f, v)	qpu_v3d_put(f, v)

/* The mul and add nops of each generation, as fields. */
static uint64_t mul_nop(enum qpu_gen gen)
{
	return F(QPU_V3D_WADDR_M, 6) | F(QPU_V3D_MM, 1) |
	       (gen == QPU_GEN_V3D71 ?
		F(QPU_V3D_OP_MUL, 14) | F(QPU_V3D_RADDR_D, 63) :
		F(QPU_V3D_OP_MUL, 15) | F(QPU_V3D_MUL_B, 4));
}

static uint64_t add_nop(void)
{
	return F(QPU_V3D_OP_ADD, 187) | F(QPU_V3D_WADDR_A, 6) | F(QPU_V3D_MA, 1);
}

static void test_classes(enum qpu_gen gen)
{
	struct tally t = { 0 };
	uint64_t state = 0x5eed0000u + gen, w;
	unsigned int code, sel, sig, cond, wa, wm, k;

	/* Every add opcode with every selecting value; random others. */
	for (code = 0; code < 256; code++) {
		for (sel = 0; sel < 64; sel++) {
			for (k = 0; k < 4; k++) {
				w = mul_nop(gen) | F(QPU_V3D_OP_ADD, code) |
				    field(32, 6, t_rand(&state)) |
				    field(44, 1, t_rand(&state));
				if (gen == QPU_GEN_V3D71)
					w |= F(QPU_V3D_RADDR_B, sel) |
					     field(6, 6, t_rand(&state));
				else
					w |= F(QPU_V3D_ADD_A, sel & 7) |
					     F(QPU_V3D_ADD_B, sel >> 3) |
					     field(0, 12, t_rand(&state));
				check_word(gen, w, &t);
			}
		}
	}
	/* Every mul opcode with every selecting value. */
	for (code = 1; code < 64; code++) {
		for (sel = 0; sel < 64; sel++) {
			w = add_nop() | F(QPU_V3D_OP_MUL, code) |
			    field(38, 6, t_rand(&state)) |
			    field(45, 1, t_rand(&state));
			if (gen == QPU_GEN_V3D71)
				w |= F(QPU_V3D_RADDR_D, sel) |
				     field(18, 6, t_rand(&state));
			else
				w |= F(QPU_V3D_MUL_A, sel & 7) |
				     F(QPU_V3D_MUL_B, sel >> 3) |
				     field(0, 12, t_rand(&state));
			check_word(gen, w, &t);
		}
	}
	/* Every signal with every condition code, on a two-operand pair. */
	for (sig = 0; sig < 32; sig++) {
		for (cond = 0; cond < 128; cond++) {
			w = F(QPU_V3D_SIG, sig) | F(QPU_V3D_COND, cond) |
			    F(QPU_V3D_OP_ADD, 56) | F(QPU_V3D_OP_MUL, 16) |
			    field(0, 44, t_rand(&state));
			check_word(gen, w, &t);
		}
	}
	/* Every pair of write addresses, magic or not. */
	for (wa = 0; wa < 128; wa++) {
		for (wm = 0; wm < 128; wm++) {
			w = F(QPU_V3D_OP_ADD, 182) | F(QPU_V3D_OP_MUL, 1) |
			    F(QPU_V3D_WADDR_A, wa) | F(QPU_V3D_MA, wa >> 6) |
			    F(QPU_V3D_WADDR_M, wm) | F(QPU_V3D_MM, wm >> 6) |
			    field(0, 24, t_rand(&state));
			check_word(gen, w, &t);
		}
	}
	/* Branches: every cond, msfign, bdi, ub, bdu; random rest. */
	for (k = 0; k < 8 * 4 * 4 * 2 * 8; k++) {
		w = F(QPU_V3D_BR_KIND, 2) | F(QPU_V3D_BR_COND, k & 7) |
		    F(QPU_V3D_BR_MSFIGN, k >> 3 & 3) | F(QPU_V3D_BR_BDI, k >> 5 & 3) |
		    F(QPU_V3D_BR_UB, k >> 7 & 1) | F(QPU_V3D_BR_BDU, k >> 8 & 7) |
		    (t_rand(&state) & 0x00ffffffff3f3fc0ull & ~field(12, 11, ~0ull));
		check_word(gen, w, &t);
		/* and with the unused bits set */
		check_word(gen, w | field(0, 6, 0x2a) | field(18, 3, 5) |
			   field(23, 1, 1), &t);
	}

	/* Every operation of the generation decodes from some word. */
	for (k = 0; k < QPU_V3D_A_COUNT; k++) {
		if (qpu_v3d_add_op_valid(gen, k) != t.add_seen[k]) {
			char m[96];

			snprintf(m, sizeof(m), "v3d%d add %s: valid %d, seen %d",
				 gen, qpu_v3d_add_op_info[k].name,
				 qpu_v3d_add_op_valid(gen, k), t.add_seen[k]);
			t_report(__FILE__, __LINE__, m);
		}
		t_checks++;
	}
	for (k = 0; k < QPU_V3D_M_COUNT; k++) {
		if (qpu_v3d_mul_op_valid(gen, k) != t.mul_seen[k]) {
			char m[96];

			snprintf(m, sizeof(m), "v3d%d mul %s: valid %d, seen %d",
				 gen, qpu_v3d_mul_op_info[k].name,
				 qpu_v3d_mul_op_valid(gen, k), t.mul_seen[k]);
			t_report(__FILE__, __LINE__, m);
		}
		t_checks++;
	}
	/* mul op 0 is a branch or nothing */
	check_word(gen, add_nop(), &t);
	/* Each kind of invalid word occurs among the classes (4.2 has no
	 * reserved unpack code: its fields are exactly as wide as needed).
	 */
	for (k = 1; k < QPU_V3D_INVALID_COUNT; k++) {
		if (gen == QPU_GEN_V3D42 && k == QPU_V3D_BAD_UNPACK)
			continue;
		if (!t.why[k])
			fprintf(stderr, "v3d%d: no word is '%s'\n", gen,
				qpu_v3d_invalid_name(k));
		T_CHECK(t.why[k] > 0);
	}
	printf("v3d%d classes: %lu valid, %lu invalid\n", gen, t.valid, t.invalid);
}

static void test_random(enum qpu_gen gen)
{
	struct tally t = { 0 };
	uint64_t state = 0x7a11ull * gen + 1;
	unsigned long i;

	for (i = 0; i < RANDOM_WORDS; i++)
		check_word(gen, t_rand(&state), &t);
	T_CHECK(t.valid > RANDOM_WORDS / 10);
	T_CHECK(t.invalid > 0);
	printf("v3d%d random: %lu valid, %lu invalid\n", gen, t.valid, t.invalid);
}

T_TEST(classes_v3d42)
{
	test_classes(QPU_GEN_V3D42);
}

T_TEST(random_v3d42)
{
	test_random(QPU_GEN_V3D42);
}

T_TEST(classes_v3d71)
{
	test_classes(QPU_GEN_V3D71);
}

T_TEST(random_v3d71)
{
	test_random(QPU_GEN_V3D71);
}

T_TEST(golden)
{
	struct qpu_v3d_instr in;

	/* The nop Mesa's compiler emits on 4.2 and 7.1 (qpu-dis of a dump). */
	T_EQ_U64(QPU_V3D_VALID, qpu_v3d_decode(QPU_GEN_V3D42,
					       0x3c003186bb800000ull, &in));
	T_EQ_U64(QPU_V3D_A_NOP, in.add.op);
	T_EQ_U64(QPU_V3D_M_NOP, in.mul.op);
	T_EQ_U64(6, in.add.waddr);
	T_CHECK(in.add.magic && in.mul.magic);
	T_EQ_U64(QPU_V3D_VALID, qpu_v3d_decode(QPU_GEN_V3D71,
					       0x38003186bb03f000ull, &in));
	T_EQ_U64(QPU_V3D_A_NOP, in.add.op);
	T_EQ_U64(QPU_V3D_M_NOP, in.mul.op);
	/*
	 * The 4.2 nop is no instruction on 7.1 (mul op 15), nor the 7.1 nop
	 * on 4.2 (raddr_d 63 is add mux a = b = 7, no 187 op).
	 */
	T_EQ_U64(QPU_V3D_BAD_MUL_OP, qpu_v3d_decode(QPU_GEN_V3D71,
						    0x3c003186bb800000ull, &in));
	T_EQ_U64(QPU_V3D_BAD_ADD_OP, qpu_v3d_decode(QPU_GEN_V3D42,
						    0x38003186bb03f000ull, &in));
	/* nop; thrsw (signal 1) */
	T_EQ_U64(QPU_V3D_VALID, qpu_v3d_decode(QPU_GEN_V3D42,
					       0x3c203186bb800000ull, &in));
	T_EQ_U64(1, in.sig);
	T_EQ_U64(QPU_V3D_SIG_THRSW, qpu_v3d_sig_bits(QPU_GEN_V3D42, in.sig));
	/* 4.2 add rf1, r0, r1 ; nop */
	T_EQ_U64(QPU_V3D_VALID, qpu_v3d_decode(QPU_GEN_V3D42,
					       0x3c00218138808000ull, &in));
	T_EQ_U64(QPU_V3D_A_ADD, in.add.op);
	T_EQ_U64(0, in.add.a);
	T_EQ_U64(1, in.add.b);
	T_EQ_U64(1, in.add.waddr);
	T_CHECK(!in.add.magic);
	/* 7.1 add rf1, rf2, rf3 ; nop */
	T_EQ_U64(QPU_V3D_VALID, qpu_v3d_decode(QPU_GEN_V3D71,
					       0x380021813803f083ull, &in));
	T_EQ_U64(QPU_V3D_A_ADD, in.add.op);
	T_EQ_U64(2, in.add.a);
	T_EQ_U64(3, in.add.b);
	/* Invalid words name their reason. */
	T_EQ_U64(QPU_V3D_BAD_KIND, qpu_v3d_decode(QPU_GEN_V3D42, 0, &in));
	T_EQ_U64(QPU_V3D_BAD_SIG, qpu_v3d_decode(QPU_GEN_V3D42,
		 0x3c003186bb800000ull | F(QPU_V3D_SIG, 26), &in));
	T_EQ_U64(QPU_V3D_BAD_SIG, qpu_v3d_decode(QPU_GEN_V3D71,
		 0x38003186bb03f000ull | F(QPU_V3D_SIG, 23), &in));
	T_EQ_U64(QPU_V3D_BAD_FLAGS, qpu_v3d_decode(QPU_GEN_V3D42,
		 0x3c003186bb800000ull | F(QPU_V3D_COND, 0x10), &in));
	T_EQ_U64(QPU_V3D_BAD_BRANCH, qpu_v3d_decode(QPU_GEN_V3D71,
		 F(QPU_V3D_BR_KIND, 2) | F(QPU_V3D_BR_COND, 1), &in));
	T_CHECK(strcmp(qpu_v3d_invalid_name(QPU_V3D_BAD_SIG), "reserved signal") == 0);
}

T_TEST(encode_errors)
{
	struct qpu_v3d_instr in;
	u64 w;

	/* a 7.1 operation on 4.2 */
	qpu_v3d_nop(&in);
	in.add.op = QPU_V3D_A_MOV;
	in.add.waddr = 1;
	in.add.magic = false;
	T_EQ_U64(-QPU_V3D_EINVAL, qpu_v3d_encode(QPU_GEN_V3D42, &in, &w));
	T_EQ_U64(0, qpu_v3d_encode(QPU_GEN_V3D71, &in, &w));
	/* faddnf of one operand twice has no encoding (it is fadd's) */
	qpu_v3d_nop(&in);
	in.add.op = QPU_V3D_A_FADDNF;
	in.add.waddr = 1;
	in.add.magic = false;
	in.add.a = 1;
	in.add.b = 1;
	T_EQ_U64(-QPU_V3D_EINVAL, qpu_v3d_encode(QPU_GEN_V3D42, &in, &w));
	/* fadd r1, r0 is stored with its operands swapped */
	in.add.op = QPU_V3D_A_FADD;
	in.add.a = 1;
	in.add.b = 0;
	T_EQ_U64(0, qpu_v3d_encode(QPU_GEN_V3D42, &in, &w));
	T_EQ_U64(QPU_V3D_VALID, qpu_v3d_decode(QPU_GEN_V3D42, w, &in));
	T_EQ_U64(QPU_V3D_A_FADD, in.add.op);
	T_EQ_U64(0, in.add.a);
	T_EQ_U64(1, in.add.b);
	/* three flag parts the COND field cannot hold together */
	qpu_v3d_nop(&in);
	in.ac = QPU_V3D_COND_IFA;
	in.mpf = QPU_V3D_PF_PUSHZ;
	in.apf = QPU_V3D_PF_PUSHN;
	T_EQ_U64(-QPU_V3D_EINVAL, qpu_v3d_encode(QPU_GEN_V3D71, &in, &w));
	/* an unpack the operation does not take */
	qpu_v3d_nop(&in);
	in.add.op = QPU_V3D_A_ADD;
	in.add.unpack_a = QPU_V3D_UNPACK_ABS;
	T_EQ_U64(-QPU_V3D_EINVAL, qpu_v3d_encode(QPU_GEN_V3D71, &in, &w));
	/* a misaligned branch offset */
	in = (struct qpu_v3d_instr){ .is_branch = true, .br.offset = 4 };
	T_EQ_U64(-QPU_V3D_EINVAL, qpu_v3d_encode(QPU_GEN_V3D42, &in, &w));
}

T_MAIN()
