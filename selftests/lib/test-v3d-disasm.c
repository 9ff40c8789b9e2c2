// SPDX-License-Identifier: MIT
/*
 * test-v3d-disasm: the V3D 4.2 and 7.1 disassembler. Each line of
 * data/v3d-dis.golden disassembles exactly; the golden words cover every
 * operation and every signal code of both generations; branch targets;
 * the public qpu_dis_word_gen() and qpu_gen_from_name(), with their errors.
 */
#include <errno.h>

#include "testlib.h"

#include "qpu_dis.h"
#include "v3d/qpu_v3d_codec.h"

struct coverage {
	bool add[QPU_V3D_A_COUNT], mul[QPU_V3D_M_COUNT], sig[32];
};

T_TEST(golden)
{
	struct coverage cov[2] = { 0 };
	char line[512], text[QPU_DIS_BUF_SIZE], path[4096];
	unsigned long long w;
	unsigned int lines = 0, k;
	int gen, n, c;
	FILE *fp = fopen(t_data_file("v3d-dis.golden", path, sizeof(path)), "r");

	T_CHECK(fp != NULL);
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		struct qpu_v3d_instr in;
		size_t len = strlen(line);

		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		n = 0;
		if (sscanf(line, "v3d%d 0x%llx %n", &gen, &w, &n) != 2 || !n) {
			T_CHECK(!"golden line parses");
			continue;
		}
		lines++;
		qpu_dis_word_gen(gen, w, 0, 0, text, sizeof(text));
		T_EQ_STR(line + n, text);
		c = gen == QPU_GEN_V3D71;
		if (qpu_v3d_decode(gen, w, &in) == QPU_V3D_VALID && !in.is_branch) {
			cov[c].add[in.add.op] = true;
			cov[c].mul[in.mul.op] = true;
			cov[c].sig[in.sig] = true;
		}
	}
	fclose(fp);
	T_CHECK(lines > 300);
	for (c = 0; c < 2; c++) {
		enum qpu_gen g = c ? QPU_GEN_V3D71 : QPU_GEN_V3D42;

		for (k = 0; k < QPU_V3D_A_COUNT; k++) {
			if (qpu_v3d_add_op_valid(g, k) && !cov[c].add[k])
				fprintf(stderr, "v3d%d: no golden %s\n", g,
					qpu_v3d_add_op_info[k].name);
			T_CHECK(!qpu_v3d_add_op_valid(g, k) || cov[c].add[k]);
		}
		for (k = 0; k < QPU_V3D_M_COUNT; k++)
			T_CHECK(!qpu_v3d_mul_op_valid(g, k) || cov[c].mul[k]);
		for (k = 0; k < 32; k++)
			T_CHECK(!qpu_v3d_sig_bits(g, k) || cov[c].sig[k]);
	}
}

T_TEST(target)
{
	char text[QPU_DIS_BUF_SIZE];

	/* b -64 at 0x100: the target counts from past the delay slots */
	qpu_dis_word_gen(QPU_GEN_V3D42, 0x02ffffc0ff001000ull, 0x100,
			 QPU_DIS_TARGET, text, sizeof(text));
	T_EQ_STR("b  -64  # 0xe0", text);
	qpu_dis_word_gen(QPU_GEN_V3D71, 0x02ffffc0ff001000ull, 0x100, 0, text,
			 sizeof(text));
	T_EQ_STR("b  -64", text);
	/* absolute branches get no comment */
	qpu_dis_word_gen(QPU_GEN_V3D71, 0x0200100200200000ull, 0x100,
			 QPU_DIS_TARGET, text, sizeof(text));
	T_EQ_STR("b.a0p  zero_addr+0x00001000", text);
}

T_TEST(api)
{
	char text[QPU_DIS_BUF_SIZE], vc4[QPU_DIS_BUF_SIZE];
	int len;

	T_EQ_U64(QPU_GEN_VC4, qpu_gen_from_name("vc4"));
	T_EQ_U64(QPU_GEN_V3D42, qpu_gen_from_name("v3d42"));
	T_EQ_U64(QPU_GEN_V3D71, qpu_gen_from_name("v3d71"));
	T_EQ_U64(-EINVAL, qpu_gen_from_name("v3d41"));
	T_EQ_U64(-EINVAL, qpu_gen_from_name(""));
	T_EQ_U64(-EINVAL, qpu_gen_from_name(NULL));
	T_EQ_U64(-EINVAL, qpu_dis_word_gen(5, 0, 0, 0, text, sizeof(text)));
	T_EQ_U64(-EINVAL, qpu_dis_word_gen(QPU_GEN_V3D42, 0, 0, 2, text,
					   sizeof(text)));
	/* vc4 is the VideoCore IV disassembler */
	qpu_dis_word(0x100009e7009e7000ull, 0, 0, vc4, sizeof(vc4));
	qpu_dis_word_gen(QPU_GEN_VC4, 0x100009e7009e7000ull, 0, 0, text,
			 sizeof(text));
	T_EQ_STR(vc4, text);
	/* snprintf's count with a short buffer, and no overflow */
	len = qpu_dis_word_gen(QPU_GEN_V3D42, 0x3c003186bb800000ull, 0, 0,
			       text, 4);
	T_EQ_U64(strlen("nop                           ; nop"), len);
	T_EQ_STR("nop", text);
}

T_MAIN()
