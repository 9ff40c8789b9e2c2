// SPDX-License-Identifier: MIT
/*
 * test-v3d-asm: the V3D 4.2 and 7.1 assembler. Every golden line of
 * data/v3d-dis.golden assembles to its word (disassembly -> assembly);
 * random words, and the canonical forms of random words (which must have
 * instruction text unless they write a magic address without a name),
 * survive disassembly and assembly on both generations
 * (fixed seed); 4.2 words with the read addresses a merging scheduler
 * picks print as text and assemble back; a program uses the front end's
 * labels, constants, macros,
 * .rep and data with V3D lines; and bad lines get their diagnostics.
 */
#include <errno.h>

#include "testlib.h"

#include "qpu_asm.h"
#include "qpu_dis.h"
#include "v3d/qpu_v3d_codec.h"

#define RANDOM_WORDS	50000

T_TEST(golden)
{
	char line[512], msg[256], path[4096];
	unsigned long long w;
	unsigned int lines = 0;
	int gen, n, ret;
	FILE *fp = fopen(t_data_file("v3d-dis.golden", path, sizeof(path)), "r");

	T_CHECK(fp != NULL);
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		uint64_t back = 0;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		line[strcspn(line, "\n")] = '\0';
		n = 0;
		if (sscanf(line, "v3d%d 0x%llx %n", &gen, &w, &n) != 2 || !n)
			continue;
		lines++;
		ret = qpu_asm_line_gen(gen, line + n, &back, msg, sizeof(msg));
		if (ret || back != w) {
			char m[1024];

			snprintf(m, sizeof(m), "'%s' assembles to 0x%016" PRIx64
				 " (%d: %s)", line, back, ret, msg);
			t_report(__FILE__, __LINE__, m);
		}
		t_checks++;
	}
	fclose(fp);
	T_CHECK(lines > 300);
}

static void test_random(int gen)
{
	uint64_t state = 0xa55e4b1eull + gen, w, back;
	char text[QPU_DIS_BUF_SIZE], msg[256];
	unsigned long i, as_data = 0;
	int ret;

	for (i = 0; i < RANDOM_WORDS; i++) {
		struct qpu_v3d_instr in;
		bool canonical = false;

		w = t_rand(&state);
		/* half of them in the canonical form of the word, as an
		 * assembler writes it: those must all have instruction text
		 */
		if ((i & 1) && qpu_v3d_decode(gen, w, &in) == QPU_V3D_VALID) {
			qpu_v3d_canonicalize(gen, &in);
			canonical = !qpu_v3d_encode(gen, &in, &w);
		}
		qpu_dis_word_gen(gen, w, 0, 0, text, sizeof(text));
		as_data += !strncmp(text, ".long", 5);
		/* ... but for fields without a name (magic writes to reserved
		 * addresses, 4.2's rot beside a raddr_b read)
		 */
		if (canonical && !strncmp(text, ".long", 5) &&
		    !strstr(text, "a field without a name")) {
			char m[256];

			snprintf(m, sizeof(m), "v3d%d canonical 0x%016" PRIx64
				 " as '%s'", gen, w, text);
			t_report(__FILE__, __LINE__, m);
		}
		back = ~w;
		ret = qpu_asm_line_gen(gen, text, &back, msg, sizeof(msg));
		if (ret || back != w) {
			char m[1024];

			snprintf(m, sizeof(m), "v3d%d 0x%016" PRIx64 " '%s' -> "
				 "0x%016" PRIx64 " (%d: %s)", gen, w, text, back,
				 ret, msg);
			t_report(__FILE__, __LINE__, m);
		}
		t_checks++;
	}
	printf("v3d%d: %lu random words round trip, %lu of them as data\n",
	       gen, i, as_data);
}

T_TEST(random_v3d42)
{
	test_random(QPU_GEN_V3D42);
}

T_TEST(random_v3d71)
{
	test_random(QPU_GEN_V3D71);
}

/*
 * 4.2 words as a compiler's scheduler makes them when it merges an add
 * and a mul instruction (Mesa's qpu_merge_raddrs()): of the two registers
 * read, the lower-numbered goes to raddr_a and the other to raddr_b,
 * whatever the text order; one register goes to raddr_a; a small
 * immediate takes raddr_b beside at most one register. Every such word
 * prints as instruction text and assembles back.
 */
T_TEST(scheduler_merged_reads_v3d42)
{
	enum { ACC, IMM, LOW, HIGH };
	uint64_t state = 0x5c4ed11eull, w, back;
	char text[QPU_DIS_BUF_SIZE], msg[256];
	unsigned long made = 0, ported = 0;
	int i, slot;

	for (i = 0; i < 20000; i++) {
		struct qpu_v3d_instr in;
		unsigned int add_op = t_rand(&state) % QPU_V3D_A_COUNT;
		unsigned int mul_op = t_rand(&state) % QPU_V3D_M_COUNT;
		unsigned int low = t_rand(&state) % 63, high, kinds = 0;
		bool imm = t_rand(&state) % 4 == 0;
		u8 *field[4] = { &in.add.a, &in.add.b, &in.mul.a, &in.mul.b };
		int kind[4];

		if (!qpu_v3d_add_op_valid(QPU_GEN_V3D42, add_op) ||
		    !qpu_v3d_mul_op_valid(QPU_GEN_V3D42, mul_op) ||
		    !(qpu_v3d_add_op_info[add_op].args & QPU_V3D_ARG_D) ||
		    !(qpu_v3d_mul_op_info[mul_op].args & QPU_V3D_ARG_D))
			continue;
		high = low + 1 + t_rand(&state) % (63 - low);
		qpu_v3d_nop(&in);
		in.add.op = add_op;
		in.mul.op = mul_op;
		in.add.waddr = t_rand(&state) % 64;
		in.mul.waddr = t_rand(&state) % 64;
		in.add.magic = in.mul.magic = false;
		for (slot = 0; slot < 4; slot++) {
			bool read = slot < 2 ? qpu_v3d_add_reads(&in, slot) :
					       qpu_v3d_mul_reads(&in, slot - 2);

			kind[slot] = -1;
			if (!read)
				continue;
			kind[slot] = t_rand(&state) % 4;
			if (kind[slot] == (imm ? HIGH : IMM))
				kind[slot] = LOW;
			kinds |= 1u << kind[slot];
		}
		/* the lower register read takes raddr_a, a second one raddr_b */
		if (!(kinds & 1u << LOW) && (kinds & 1u << HIGH)) {
			low = high;
			for (slot = 0; slot < 4; slot++)
				if (kind[slot] == HIGH)
					kind[slot] = LOW;
			kinds ^= 1u << LOW | 1u << HIGH;
		}
		for (slot = 0; slot < 4; slot++) {
			if (kind[slot] == ACC)
				*field[slot] = t_rand(&state) % 6;
			else if (kind[slot] >= 0)
				*field[slot] = kind[slot] == LOW ? QPU_V3D_MUX_A :
					       QPU_V3D_MUX_B;
		}
		in.raddr_a = kinds & 1u << LOW ? low : 0;
		in.raddr_b = kinds & 1u << HIGH ? high : 0;
		if (kinds & 1u << IMM) {
			in.raddr_b = t_rand(&state) % 48;
			in.sig = qpu_v3d_sig_code(QPU_GEN_V3D42,
						  QPU_V3D_SIG_SMIMM_B);
		}
		/* unused fields as the packer fills them; the reads as set */
		if (qpu_v3d_encode_ported(QPU_GEN_V3D42, &in, &w))
			continue;
		made++;
		T_EQ_U64(in.raddr_a, QPU_V3D_GET(w, QPU_V3D_RADDR_A));
		T_EQ_U64(in.raddr_b, QPU_V3D_GET(w, QPU_V3D_RADDR_B));
		qpu_dis_word_gen(QPU_GEN_V3D42, w, 0, 0, text, sizeof(text));
		ported += strstr(text, ".a") || strstr(text, ".b");
		back = ~w;
		if (!strncmp(text, ".long", 5) ||
		    qpu_asm_line_gen(QPU_GEN_V3D42, text, &back, msg, sizeof(msg)) ||
		    back != w) {
			char m[512];

			snprintf(m, sizeof(m), "0x%016" PRIx64 " '%s' -> 0x%016"
				 PRIx64 " (%s)", w, text, back, msg);
			t_report(__FILE__, __LINE__, m);
		}
		t_checks++;
	}
	printf("v3d42: %lu merged words round trip, %lu of them naming "
	       "read addresses\n", made, ported);
	T_CHECK(made > 5000 && ported > 500);
}

T_TEST(program)
{
	static const char prog[] =
		".set n, 3\n"
		".macro pair op\n"
		"	op rf1, rf2, n ; nop\n"
		"	nop ; nop\n"
		".endm\n"
		"start:\n"
		"	pair add\n"		/* 0x00, 0x08 */
		"	.rep i, 2\n"
		"	shl rf3, rf3, i + 1 ; nop\n"	/* 0x10, 0x18 */
		"	.endr\n"
		"	b.anya  start\n"		/* 0x20: start - 0x40 */
		"	nop ; nop ; thrsw\n"
		"	b  end\n"			/* 0x30: end (0x48) - 0x50 */
		"	nop ; nop ; ldunif\n"
		"	.long 0x0123456789abcdef\n"
		"end:\n"
		"	nop ; nop\n";
	uint64_t want[9];
	const uint64_t *words;
	struct qpu_asm *as = qpu_asm_new();
	char msg[256];
	size_t n, i;

	T_CHECK(as != NULL);
	if (!as)
		return;
	T_EQ_U64(0, qpu_asm_line_gen(QPU_GEN_V3D71, "add rf1, rf2, 3 ; nop",
				     &want[0], msg, sizeof(msg)));
	T_EQ_U64(0, qpu_asm_line_gen(QPU_GEN_V3D71, "nop ; nop", &want[1], msg,
				     sizeof(msg)));
	T_EQ_U64(0, qpu_asm_line_gen(QPU_GEN_V3D71, "shl rf3, rf3, 1 ; nop",
				     &want[2], msg, sizeof(msg)));
	T_EQ_U64(0, qpu_asm_line_gen(QPU_GEN_V3D71, "shl rf3, rf3, 2 ; nop",
				     &want[3], msg, sizeof(msg)));
	T_EQ_U64(0, qpu_asm_line_gen(QPU_GEN_V3D71, "b.anya  -64", &want[4],
				     msg, sizeof(msg)));
	T_EQ_U64(0, qpu_asm_line_gen(QPU_GEN_V3D71, "nop ; nop ; thrsw",
				     &want[5], msg, sizeof(msg)));
	T_EQ_U64(0, qpu_asm_line_gen(QPU_GEN_V3D71, "b  -8", &want[6], msg,
				     sizeof(msg)));
	T_EQ_U64(0, qpu_asm_line_gen(QPU_GEN_V3D71, "nop ; nop ; ldunif",
				     &want[7], msg, sizeof(msg)));
	want[8] = 0x0123456789abcdefull;

	T_EQ_U64(0, qpu_asm_set_gen(as, QPU_GEN_V3D71));
	T_EQ_U64(-EINVAL, qpu_asm_set_gen(as, 5));
	T_EQ_U64(0, qpu_asm_string(as, "prog", prog));
	n = qpu_asm_words(as, &words);
	T_EQ_U64(10, n);
	for (i = 0; i < n && i < T_ARRAY_SIZE(want); i++)
		T_EQ_U64(want[i], words[i]);
	qpu_asm_free(as);
}

static const struct {
	int gen;
	const char *line;
	const char *msg;
} bad_lines[] = {
	{ QPU_GEN_V3D42, "fmov rf1, rf2 ; nop", "fmov is no add operation of V3D 4.2" },
	{ QPU_GEN_V3D71, "vpmsetup rf1, rf2", "vpmsetup is no add operation of V3D 7.1" },
	{ QPU_GEN_V3D71, "add rf1, rf2, rf3, rf4", "unexpected text" },
	{ QPU_GEN_V3D71, "add rf1, rf2, 17 ; nop", "not a register or a small immediate" },
	{ QPU_GEN_V3D42, "add rf1, rf2, rf3 ; add rf4, rf5, r0", "two register-file" },
	{ QPU_GEN_V3D42, "add rf1, 1, 2 ; nop", "one small immediate per instruction" },
	/* 4.2 read addresses named: all or none, one register each, not 7.1 */
	{ QPU_GEN_V3D42, "and r2, r3, rf11.b ; add r4, r0, rf10", "or of none" },
	{ QPU_GEN_V3D42, "and r2, r3, rf11 ; add r4, r0, rf10.a", "or of none" },
	{ QPU_GEN_V3D42, "and r2, rf3.a, rf11.a ; nop", "holds rf3 already" },
	{ QPU_GEN_V3D42, "and r2, rf3.b, 1 ; nop", "small immediate besides" },
	{ QPU_GEN_V3D42, "and r2, r1, 1 ; add r0, r0, rf3.b", "raddr_b holds" },
	{ QPU_GEN_V3D42, "nop ; mov r1, rf2.b ; rot(3)", "rot besides two register-file reads" },
	{ QPU_GEN_V3D71, "and rf2, rf3.a, rf11 ; nop", "only V3D 4.2" },
	{ QPU_GEN_V3D42, "and rf2.a, r3, rf11.b ; nop", "unknown output pack '.a'" },
	{ QPU_GEN_V3D42, "and r2, r3, rf11.c ; nop", "unknown input unpack '.c'" },
	{ QPU_GEN_V3D71, "nop ; nop ; ldtmu", "ldtmu needs its destination" },
	{ QPU_GEN_V3D71, "nop ; nop ; thrsw.rf1", "thrsw writes no register" },
	{ QPU_GEN_V3D71, "nop ; nop ; thrsw ; thrsw", "signal thrsw given twice" },
	{ QPU_GEN_V3D71, "nop ; bogus", "unknown mul operation 'bogus'" },
	{ QPU_GEN_V3D71, "fmul rf1, rf2, rf3", "fmul is a mul operation" },
	{ QPU_GEN_V3D71, "add.ifz rf1, rf2, rf3", "unknown suffix '.ifz' of add" },
	{ QPU_GEN_V3D71, "add rf1.q, rf2, rf3", "unknown output pack '.q'" },
	{ QPU_GEN_V3D71, "add rf64, rf1, rf2", "unknown destination 'rf64'" },
	{ QPU_GEN_V3D71, "add rf1, rf2.zz, rf3", "unknown input unpack '.zz'" },
	{ QPU_GEN_V3D71, "add rf1, r0, rf3", "not a register or a small immediate" },
	{ QPU_GEN_V3D71, "b  12", "not a multiple of 8" },
	{ QPU_GEN_V3D71, "b  zero_addr+0x104",
	  "branch address 0x104 is not a multiple of 8" },
	{ QPU_GEN_V3D42, "bu  rf3, rf4", "both targets read raddr_a: rf3 and rf4 differ" },
	{ QPU_GEN_V3D71, "bu  lri", "expected ','" },
	{ QPU_GEN_V3D42, "b  0, bdu=8", "bdu 8: the field holds 0..7" },
	{ QPU_GEN_V3D42, "b  0, lri", "a branch without ub takes only bdu=N" },
	{ QPU_GEN_V3D71, "b.link.link  0", "unknown instruction" },
	{ QPU_GEN_V3D71, "bu  lri, x:unif", "the uniform target is" },
	{ QPU_GEN_V3D71, "faddnf rf1, rf2, rf2 ; nop", "no V3D 7.1 encoding" },
	{ QPU_GEN_V3D71, "add.pushz rf1, rf2, rf3 ; add.pushn.andz rf4, rf5, rf6",
	  "no V3D 7.1 encoding" },
	{ QPU_GEN_V3D42, "nop ; nop ; ldtmu.rf1 ; ldunifrf.rf2", "no signal code" },
	{ QPU_GEN_V3D71, "frob rf1", "unknown instruction 'frob'" },
	{ QPU_GEN_V3D42, "nop ; mov r1, r0 ; rot(0)", "rot(0) is a rotation by r5" },
	{ QPU_GEN_V3D42, "nop ; mov r1, r0 ; rot(16)", "the rotation is -16..15" },
	{ QPU_GEN_V3D42, "nop ; mov r1, r0 ; rot(r4)", "register 'r4' used in" },
	{ QPU_GEN_V3D42, "nop ; mov r1, r0 ; rot(1) ; rot", "signal rot given twice" },
	{ QPU_GEN_V3D42, "add rf1, rf2, 3 ; mov r1, r0 ; rot(1)",
	  "rot besides a small immediate" },
	{ QPU_GEN_V3D42, "add rf1, rf2, rf3 ; mov r1, r0 ; rot(1)",
	  "rot besides two register-file reads" },
	{ QPU_GEN_V3D71, "nop ; mov rf1, rf0 ; rot(1)", "rot is no signal of V3D 7.1" },
};

T_TEST(diagnostics)
{
	char msg[256];
	uint64_t w;
	size_t i;
	int ret;

	for (i = 0; i < T_ARRAY_SIZE(bad_lines); i++) {
		msg[0] = '\0';
		ret = qpu_asm_line_gen(bad_lines[i].gen, bad_lines[i].line, &w,
				       msg, sizeof(msg));
		if (ret != -EINVAL || !strstr(msg, bad_lines[i].msg)) {
			char m[640];

			snprintf(m, sizeof(m), "'%s': %d '%s', expected '%s'",
				 bad_lines[i].line, ret, msg, bad_lines[i].msg);
			t_report(__FILE__, __LINE__, m);
		}
		t_checks++;
	}
	T_EQ_U64(-EINVAL, qpu_asm_line_gen(5, "nop ; nop", &w, msg, sizeof(msg)));
	/* the same line is a different instruction (or none) per generation */
	T_EQ_U64(0, qpu_asm_line_gen(QPU_GEN_V3D42, "nop ; nop", &w, msg,
				     sizeof(msg)));
	T_EQ_U64(0x3c003186bb800000ull, w);
	T_EQ_U64(0, qpu_asm_line_gen(QPU_GEN_V3D71, "nop ; nop", &w, msg,
				     sizeof(msg)));
	T_EQ_U64(0x38003186bb03f000ull, w);
	/* 4.2's rot: "rot(r5)" is plain "rot", raddr_b 0 */
	T_EQ_U64(0, qpu_asm_line_gen(QPU_GEN_V3D42, "nop ; mov r1, r0 ; rot(r5)",
				     &w, msg, sizeof(msg)));
	T_EQ_U64(0x3ee03046bbe00000ull, w);
	/*
	 * Mesa's encoding of "and r2, r3, rf11 ; add r4, r0, rf10": rf10 in
	 * raddr_a, rf11 in raddr_b, the other way round from ours; the
	 * ports name it, and without them the line gives our word
	 */
	T_EQ_U64(0, qpu_asm_line_gen(QPU_GEN_V3D42, "and r2, r3, rf11.b ; "
				     "add r4, r0, rf10.a", &w, msg, sizeof(msg)));
	T_EQ_U64(0x04003102b5c3b28bull, w);
	T_EQ_U64(0, qpu_asm_line_gen(QPU_GEN_V3D42, "and r2, r3, rf11 ; "
				     "add r4, r0, rf10", &w, msg, sizeof(msg)));
	T_EQ_U64(0x04003102b5e332caull, w);
	/* the canonical choice named gives the canonical word */
	T_EQ_U64(0, qpu_asm_line_gen(QPU_GEN_V3D42, "and r2, r3, rf11.a ; "
				     "add r4, r0, rf10.b", &w, msg, sizeof(msg)));
	T_EQ_U64(0x04003102b5e332caull, w);
}

T_MAIN()
