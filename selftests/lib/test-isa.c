// SPDX-License-Identifier: MIT
/*
 * test-isa: the instruction codec of the freestanding core. Every field of
 * every layout is set to each of its values and the word is compared with
 * one built here from the bit positions of the Reference Guide (not from
 * the core's macros); out-of-range fields must be refused; the tables must
 * name what the guide names; and encode(decode(w)) == w must hold for a
 * seeded random sample of words.
 */
#include <stdbool.h>
#include <stdint.h>

#include "qpu_isa.h"
#include "testlib.h"

#define RANDOM_SEED	0x9e3779b97f4a7c15ull
#define RANDOM_WORDS	4000000

/* Reference layout (VideoCore IV 3D Architecture Reference Guide, fig. 4). */
#define B(v, pos)	((uint64_t)(v) << (pos))

/* A canonical ALU nop: signal "none", no writes, no reads. */
static const uint64_t nop_word = B(1, 60) | B(39, 38) | B(39, 32) |
	B(39, 18) | B(39, 12);

static struct qpu_isa_instr nop_instr(void)
{
	struct qpu_isa_instr in = {
		.kind = QPU_ISA_KIND_ALU,
		.sig = QPU_ISA_SIG_NONE,
		.waddr_add = 39, .waddr_mul = 39,
		.raddr_a = 39, .raddr_b = 39,
	};

	return in;
}

static bool instr_eq(const struct qpu_isa_instr *a,
		     const struct qpu_isa_instr *b)
{
	return a->kind == b->kind && a->sig == b->sig &&
		a->unpack == b->unpack && a->pm == b->pm &&
		a->pack == b->pack && a->cond_add == b->cond_add &&
		a->cond_mul == b->cond_mul && a->sf == b->sf &&
		a->ws == b->ws && a->waddr_add == b->waddr_add &&
		a->waddr_mul == b->waddr_mul && a->op_add == b->op_add &&
		a->op_mul == b->op_mul && a->raddr_a == b->raddr_a &&
		a->raddr_b == b->raddr_b && a->add_a == b->add_a &&
		a->add_b == b->add_b && a->mul_a == b->mul_a &&
		a->mul_b == b->mul_b && a->imm == b->imm &&
		a->sem == b->sem && a->sem_acquire == b->sem_acquire &&
		a->sem_pad == b->sem_pad && a->br_cond == b->br_cond &&
		a->br_rel == b->br_rel && a->br_reg == b->br_reg &&
		a->br_pad == b->br_pad && a->ldi_mode == b->ldi_mode &&
		a->raw == b->raw;
}

/* Encode @in, expect @word; decode @word, expect @in's fields back. */
static void check_both_ways(const struct qpu_isa_instr *in, uint64_t word,
			    const char *field, unsigned int value)
{
	struct qpu_isa_instr out;
	uint64_t got = 0;
	int ret = qpu_isa_encode(in, &got);

	t_checks++;
	if (ret || got != word) {
		fprintf(stderr, "%s=%u: encode ret %d word 0x%016" PRIx64
			", expected 0x%016" PRIx64 "\n", field, value, ret,
			got, word);
		t_failures++;
	}
	qpu_isa_decode(word, &out);
	out.reserved = 0;
	t_checks++;
	if (!instr_eq(&out, in)) {
		fprintf(stderr, "%s=%u: decode of 0x%016" PRIx64
			" differs from the encoded fields\n", field, value, word);
		t_failures++;
	}
}

#define ALU_FIELD(member, pos, max) do {				\
	for (unsigned int v = 0; v <= (max); v++) {			\
		struct qpu_isa_instr in = nop_instr();			\
		uint64_t w = (nop_word & ~B(max, pos)) | B(v, pos);	\
		in.member = v;						\
		check_both_ways(&in, w, #member, v);			\
	}								\
} while (0)

T_TEST(alu_fields)
{
	for (unsigned int v = 0; v <= 12; v++) {
		struct qpu_isa_instr in = nop_instr();

		in.sig = v;
		check_both_ways(&in, (nop_word & ~B(15, 60)) | B(v, 60), "sig", v);
	}
	ALU_FIELD(unpack, 57, 7);
	ALU_FIELD(pm, 56, 1);
	ALU_FIELD(pack, 52, 15);
	ALU_FIELD(cond_add, 49, 7);
	ALU_FIELD(cond_mul, 46, 7);
	ALU_FIELD(sf, 45, 1);
	ALU_FIELD(ws, 44, 1);
	ALU_FIELD(waddr_add, 38, 63);
	ALU_FIELD(waddr_mul, 32, 63);
	ALU_FIELD(op_mul, 29, 7);
	ALU_FIELD(op_add, 24, 31);
	ALU_FIELD(raddr_a, 18, 63);
	ALU_FIELD(raddr_b, 12, 63);
	ALU_FIELD(add_a, 9, 7);
	ALU_FIELD(add_b, 6, 7);
	ALU_FIELD(mul_a, 3, 7);
	ALU_FIELD(mul_b, 0, 7);

	/* Small immediates: signal 13, the immediate in the raddr_b bits. */
	for (unsigned int v = 0; v < 64; v++) {
		struct qpu_isa_instr in = nop_instr();

		in.kind = QPU_ISA_KIND_ALU_SMALL_IMM;
		in.sig = QPU_ISA_SIG_SMALL_IMM;
		in.raddr_b = v;
		check_both_ways(&in, (nop_word & ~(B(15, 60) | B(63, 12))) |
				B(13, 60) | B(v, 12), "small_imm", v);
	}
}

static struct qpu_isa_instr ldi_instr(enum qpu_isa_kind kind)
{
	struct qpu_isa_instr in = {
		.kind = kind, .sig = QPU_ISA_SIG_LOAD_IMM,
		.waddr_add = 39, .waddr_mul = 39,
	};

	return in;
}

#define LDI_FIELD(kind, base, member, pos, max) do {			\
	for (unsigned int v = 0; v <= (max); v++) {			\
		struct qpu_isa_instr in = ldi_instr(kind);		\
		in.member = v;						\
		check_both_ways(&in, (base) | B(v, pos), #member, v);	\
	}								\
} while (0)

T_TEST(ldi_fields)
{
	static const struct {
		enum qpu_isa_kind kind;
		unsigned int mode;
	} forms[] = {
		{ QPU_ISA_KIND_LDI, 0 }, { QPU_ISA_KIND_LDI_PES, 1 },
		{ QPU_ISA_KIND_LDI_PEU, 3 }, { QPU_ISA_KIND_SEMA, 4 },
	};
	uint64_t rnd = RANDOM_SEED;

	for (size_t i = 0; i < T_ARRAY_SIZE(forms); i++) {
		enum qpu_isa_kind k = forms[i].kind;
		uint64_t base = B(14, 60) | B(forms[i].mode, 57) | B(39, 38) |
			B(39, 32);

		LDI_FIELD(k, base & ~B(1, 56), pm, 56, 1);
		LDI_FIELD(k, base, pack, 52, 15);
		LDI_FIELD(k, base, cond_add, 49, 7);
		LDI_FIELD(k, base, cond_mul, 46, 7);
		LDI_FIELD(k, base, sf, 45, 1);
		LDI_FIELD(k, base, ws, 44, 1);
		LDI_FIELD(k, base & ~B(63, 38), waddr_add, 38, 63);
		LDI_FIELD(k, base & ~B(63, 32), waddr_mul, 32, 63);
		if (k == QPU_ISA_KIND_SEMA) {
			LDI_FIELD(k, base, sem, 0, 15);
			LDI_FIELD(k, base, sem_acquire, 4, 1);
			for (unsigned int b = 0; b < 27; b++) {
				struct qpu_isa_instr in = ldi_instr(k);

				in.sem_pad = 1u << b;
				check_both_ways(&in, base | B(1, 5 + b), "sem_pad", b);
			}
			continue;
		}
		for (unsigned int n = 0; n < 1000; n++) {
			struct qpu_isa_instr in = ldi_instr(k);

			in.imm = (uint32_t)t_rand(&rnd);
			check_both_ways(&in, base | in.imm, "imm", in.imm);
		}
	}
}

static struct qpu_isa_instr br_instr(void)
{
	struct qpu_isa_instr in = {
		.kind = QPU_ISA_KIND_BRANCH, .sig = QPU_ISA_SIG_BRANCH,
		.waddr_add = 39, .waddr_mul = 39,
	};

	return in;
}

#define BR_FIELD(member, pos, max) do {					\
	for (unsigned int v = 0; v <= (max); v++) {			\
		struct qpu_isa_instr in = br_instr();			\
		uint64_t base = B(15, 60) | B(39, 38) | B(39, 32);	\
		in.member = v;						\
		check_both_ways(&in, (base & ~B(max, pos)) | B(v, pos),	\
				#member, v);				\
	}								\
} while (0)

T_TEST(branch_fields)
{
	uint64_t rnd = RANDOM_SEED + 1;

	BR_FIELD(br_pad, 56, 15);
	BR_FIELD(br_cond, 52, 15);
	BR_FIELD(br_rel, 51, 1);
	BR_FIELD(br_reg, 50, 1);
	BR_FIELD(raddr_a, 45, 31);
	BR_FIELD(ws, 44, 1);
	BR_FIELD(waddr_add, 38, 63);
	BR_FIELD(waddr_mul, 32, 63);
	for (unsigned int n = 0; n < 1000; n++) {
		struct qpu_isa_instr in = br_instr();

		in.imm = (uint32_t)t_rand(&rnd);
		check_both_ways(&in, B(15, 60) | B(39, 38) | B(39, 32) | in.imm,
				"br imm", in.imm);
	}
}

/* Reserved encodings decode, carry their flag and survive a round trip. */
T_TEST(reserved)
{
	static const unsigned int bad_add_ops[] = { 9, 10, 11, 25, 26, 27, 28, 29 };
	struct qpu_isa_instr in;
	uint64_t w, got;

	for (unsigned int op = 0; op < 32; op++) {
		bool bad = false;

		for (size_t i = 0; i < T_ARRAY_SIZE(bad_add_ops); i++)
			bad |= bad_add_ops[i] == op;
		w = (nop_word & ~B(31, 24)) | B(op, 24);
		qpu_isa_decode(w, &in);
		T_EQ_U64(bad ? QPU_ISA_RSV_OP_ADD : 0, in.reserved);
	}
	for (unsigned int pack = 0; pack < 16; pack++) {
		bool bad = !(pack == 0 || (pack >= 3 && pack <= 7));

		qpu_isa_decode(nop_word | B(1, 56) | B(pack, 52), &in);
		T_EQ_U64(bad ? QPU_ISA_RSV_PACK : 0, in.reserved);
		/* Without pm every regfile-A pack mode is defined. */
		qpu_isa_decode(nop_word | B(pack, 52), &in);
		T_EQ_U64(0, in.reserved);
	}
	for (unsigned int cond = 0; cond < 16; cond++) {
		qpu_isa_decode(B(15, 60) | B(cond, 52), &in);
		T_EQ_U64(cond >= 12 && cond <= 14 ? QPU_ISA_RSV_BR_COND : 0,
			 in.reserved);
	}
	qpu_isa_decode(B(15, 60) | B(15, 52) | B(1, 56), &in);
	T_EQ_U64(QPU_ISA_RSV_BR_PAD, in.reserved);
	qpu_isa_decode(B(15, 60) | B(15, 52) | B(3, 45), &in);
	T_EQ_U64(QPU_ISA_RSV_BR_RADDR, in.reserved);
	qpu_isa_decode(B(15, 60) | B(15, 52) | B(1, 50) | B(3, 45), &in);
	T_EQ_U64(0, in.reserved);
	qpu_isa_decode(B(14, 60) | B(4, 57) | 0x20, &in);
	T_EQ_U64(QPU_ISA_RSV_SEM_PAD, in.reserved);
	T_EQ_U64(QPU_ISA_KIND_SEMA, in.kind);

	/* Load-immediate modes 2, 5, 6, 7 have no struct form: RAW. */
	for (unsigned int mode = 0; mode < 8; mode++) {
		bool raw = mode == 2 || mode >= 5;

		w = B(14, 60) | B(mode, 57) | B(0x2a, 38) | 0x12345678;
		qpu_isa_decode(w, &in);
		T_EQ_U64(raw, in.kind == QPU_ISA_KIND_RAW);
		T_EQ_U64(raw ? QPU_ISA_RSV_LDI_MODE : 0,
			 in.reserved & QPU_ISA_RSV_LDI_MODE);
		got = 0;
		T_EQ_U64(0, qpu_isa_encode(&in, &got));
		T_EQ_U64(w, got);
	}
}

T_TEST(kinds)
{
	static const enum qpu_isa_kind by_sig[16] = {
		[13] = QPU_ISA_KIND_ALU_SMALL_IMM, [14] = QPU_ISA_KIND_LDI,
		[15] = QPU_ISA_KIND_BRANCH,
	};
	struct qpu_isa_instr in;

	for (unsigned int sig = 0; sig < 16; sig++) {
		qpu_isa_decode(B(sig, 60), &in);
		T_EQ_U64(by_sig[sig], in.kind);
		T_EQ_U64(sig, in.sig);
	}
	qpu_isa_decode(B(14, 60) | B(1, 57), &in);
	T_EQ_U64(QPU_ISA_KIND_LDI_PES, in.kind);
	qpu_isa_decode(B(14, 60) | B(3, 57), &in);
	T_EQ_U64(QPU_ISA_KIND_LDI_PEU, in.kind);
	qpu_isa_decode(B(14, 60) | B(4, 57) | 0x1f, &in);
	T_EQ_U64(QPU_ISA_KIND_SEMA, in.kind);
	T_EQ_U64(15, in.sem);
	T_EQ_U64(1, in.sem_acquire);
}

/* Every field one past its range (and at 255) is refused, word untouched. */
T_TEST(encode_rejects)
{
	static const struct {
		const char *name;
		size_t offset;
		unsigned int first_bad;
		enum qpu_isa_kind kind;
	} fields[] = {
#define F(m, bad, k) { #m, offsetof(struct qpu_isa_instr, m), bad, k }
		F(sig, 13, QPU_ISA_KIND_ALU),
		F(unpack, 8, QPU_ISA_KIND_ALU),
		F(pack, 16, QPU_ISA_KIND_ALU),
		F(cond_add, 8, QPU_ISA_KIND_ALU),
		F(cond_mul, 8, QPU_ISA_KIND_ALU),
		F(waddr_add, 64, QPU_ISA_KIND_ALU),
		F(waddr_mul, 64, QPU_ISA_KIND_ALU),
		F(op_add, 32, QPU_ISA_KIND_ALU),
		F(op_mul, 8, QPU_ISA_KIND_ALU),
		F(raddr_a, 64, QPU_ISA_KIND_ALU),
		F(raddr_b, 64, QPU_ISA_KIND_ALU_SMALL_IMM),
		F(add_a, 8, QPU_ISA_KIND_ALU),
		F(add_b, 8, QPU_ISA_KIND_ALU),
		F(mul_a, 8, QPU_ISA_KIND_ALU),
		F(mul_b, 8, QPU_ISA_KIND_ALU_SMALL_IMM),
		F(pack, 16, QPU_ISA_KIND_LDI),
		F(cond_add, 8, QPU_ISA_KIND_LDI_PES),
		F(cond_mul, 8, QPU_ISA_KIND_LDI_PEU),
		F(waddr_add, 64, QPU_ISA_KIND_SEMA),
		F(waddr_mul, 64, QPU_ISA_KIND_LDI),
		F(sem, 16, QPU_ISA_KIND_SEMA),
		F(br_cond, 16, QPU_ISA_KIND_BRANCH),
		F(br_pad, 16, QPU_ISA_KIND_BRANCH),
		F(raddr_a, 32, QPU_ISA_KIND_BRANCH),
		F(waddr_add, 64, QPU_ISA_KIND_BRANCH),
		F(waddr_mul, 64, QPU_ISA_KIND_BRANCH),
#undef F
	};
	const uint64_t sentinel = 0x0123456789abcdefull;
	struct qpu_isa_instr in;
	uint64_t w;

	for (size_t i = 0; i < T_ARRAY_SIZE(fields); i++) {
		unsigned int bad[] = { fields[i].first_bad, 255 };

		for (size_t j = 0; j < 2; j++) {
			in = nop_instr();
			in.kind = fields[i].kind;
			if (in.kind == QPU_ISA_KIND_BRANCH)
				in.raddr_a = 0;
			((uint8_t *)&in)[fields[i].offset] = (uint8_t)bad[j];
			w = sentinel;
			t_checks++;
			if (qpu_isa_encode(&in, &w) != -QPU_ISA_ERANGE) {
				fprintf(stderr, "%s: field %s=%u not refused\n",
					__FILE__, fields[i].name, bad[j]);
				t_failures++;
			}
			T_EQ_U64(sentinel, w);
			/* One below the bad value is accepted. */
			((uint8_t *)&in)[fields[i].offset] =
				(uint8_t)(fields[i].first_bad - 1);
			T_EQ_U64(0, qpu_isa_encode(&in, &w));
		}
	}
	/* Wide fields. */
	in = ldi_instr(QPU_ISA_KIND_SEMA);
	in.sem_pad = 1u << 27;
	w = sentinel;
	T_EQ_U64(-QPU_ISA_ERANGE, qpu_isa_encode(&in, &w));
	T_EQ_U64(sentinel, w);
	in.sem_pad = (1u << 27) - 1;
	T_EQ_U64(0, qpu_isa_encode(&in, &w));
	T_EQ_U64(0xffffffe0u, (uint32_t)w);

	/* Unknown kinds, and RAW for a word that has a struct form. */
	in = nop_instr();
	in.kind = QPU_ISA_NUM_KINDS;
	T_EQ_U64(-QPU_ISA_EINVAL, qpu_isa_encode(&in, &w));
	in.kind = QPU_ISA_KIND_RAW;
	in.raw = nop_word;
	T_EQ_U64(-QPU_ISA_EINVAL, qpu_isa_encode(&in, &w));
	in.raw = B(14, 60) | B(4, 57);
	T_EQ_U64(-QPU_ISA_EINVAL, qpu_isa_encode(&in, &w));
	in.raw = B(14, 60) | B(2, 57);
	T_EQ_U64(0, qpu_isa_encode(&in, &w));
	T_EQ_U64(in.raw, w);
}

T_TEST(tables)
{
	/* Opcodes, Reference Guide table 3 and 4. */
	static const char *const add[32] = {
		"nop", "fadd", "fsub", "fmin", "fmax", "fminabs", "fmaxabs",
		"ftoi", "itof", NULL, NULL, NULL, "add", "sub", "shr", "asr",
		"ror", "shl", "min", "max", "and", "or", "xor", "not", "clz",
		NULL, NULL, NULL, NULL, NULL, "av8adds", "av8subs",
	};
	static const char *const mul[8] = {
		"mnop", "fmul", "mul24", "v8muld", "v8min", "v8max", "v8adds",
		"v8subs",
	};
	static const char *const sigs[13] = {
		"bkpt", "", "thrsw", "thrend", "sbwait", "sbdone", "lthrsw",
		"loadcv", "loadc", "ldcend", "ldtmu0", "ldtmu1", "loadam",
	};
	static const struct {
		unsigned int file, addr;
		const char *name, *ref;
	} rd[] = {
		{ 0, 32, "unif", "uniform_read" }, { 1, 32, "unif", "uniform_read" },
		{ 0, 35, "vary", "varying_read" }, { 1, 35, "vary", "varying_read" },
		{ 0, 38, "elem_num", "element_number" },
		{ 1, 38, "qpu_num", "qpu_number" },
		{ 0, 39, "nop", "nop" }, { 1, 39, "nop", "nop" },
		{ 0, 41, "x_coord", "x_pixel_coord" },
		{ 1, 41, "y_coord", "y_pixel_coord" },
		{ 0, 42, "ms_mask", "ms_flags" }, { 1, 42, "rev_flag", "rev_flag" },
		{ 0, 48, "vpm", "vpm_read" }, { 1, 48, "vpm", "vpm_read" },
		{ 0, 49, "vr_busy", "vpm_ld_busy" }, { 1, 49, "vw_busy", "vpm_st_busy" },
		{ 0, 50, "vr_wait", "vpm_ld_wait" }, { 1, 50, "vw_wait", "vpm_st_wait" },
		{ 0, 51, "mutex", "mutex_acquire" }, { 1, 51, "mutex", "mutex_acquire" },
	};
	static const char *const wr_common[32] = {
		"r0", "r1", "r2", "r3", "tmurs", NULL, "irq", "-",
		NULL, NULL, NULL, "stencil", "tlbz", "tlbm", "tlbc", "tlbam",
		"vpm", NULL, NULL, "mutex", "recip", "recipsqrt", "exp", "log",
		"t0s", "t0t", "t0r", "t0b", "t1s", "t1t", "t1r", "t1b",
	};
	static const char *const wr_a[32] = {
		[5] = "r5quad", [8] = "unif_addr", [9] = "x_coord",
		[10] = "ms_mask", [17] = "vr_setup", [18] = "vr_addr",
	};
	static const char *const wr_b[32] = {
		[5] = "r5rep", [8] = "unif_addr_rel", [9] = "y_coord",
		[10] = "rev_flag", [17] = "vw_setup", [18] = "vw_addr",
	};
	static const char *const wr_ref[32] = {
		"acc0", "acc1", "acc2", "acc3", "tmu_noswap", NULL, "host_int",
		"nop", NULL, NULL, NULL, "tlb_stencil_setup", "tlb_z",
		"tlb_color_ms", "tlb_color_all", "tlb_alpha_mask", "vpm_write",
		NULL, NULL, "mutex_release", "sfu_recip", "sfu_recipsqrt",
		"sfu_exp", "sfu_log", "tmu0_s", "tmu0_t", "tmu0_r", "tmu0_b",
		"tmu1_s", "tmu1_t", "tmu1_r", "tmu1_b",
	};
	char name[8];

	for (unsigned int i = 0; i < 32; i++) {
		if (add[i])
			T_EQ_STR(add[i], qpu_isa_add_ops[i].name);
		else
			T_CHECK(!qpu_isa_add_ops[i].name);
	}
	for (unsigned int i = 0; i < 8; i++)
		T_EQ_STR(mul[i], qpu_isa_mul_ops[i].name);
	T_CHECK(qpu_isa_add_ops[QPU_ISA_A_NOT].flags & QPU_ISA_OP_UNARY);
	T_CHECK(qpu_isa_add_ops[QPU_ISA_A_CLZ].flags & QPU_ISA_OP_UNARY);
	T_CHECK(qpu_isa_add_ops[QPU_ISA_A_FTOI].flags & QPU_ISA_OP_UNARY);
	T_CHECK(qpu_isa_add_ops[QPU_ISA_A_ITOF].flags & QPU_ISA_OP_UNARY);
	T_CHECK(!(qpu_isa_add_ops[QPU_ISA_A_OR].flags & QPU_ISA_OP_UNARY));
	for (unsigned int i = 0; i < 13; i++)
		T_EQ_STR(sigs[i], qpu_isa_sig_names[i]);
	for (unsigned int i = 13; i < 16; i++)
		T_CHECK(!qpu_isa_sig_names[i]);

	T_EQ_STR("never", qpu_isa_cond_names[0]);
	T_EQ_STR("", qpu_isa_cond_names[1]);
	T_EQ_STR("ifz", qpu_isa_cond_names[2]);
	T_EQ_STR("ifnz", qpu_isa_cond_names[3]);
	T_EQ_STR("ifn", qpu_isa_cond_names[4]);
	T_EQ_STR("ifnn", qpu_isa_cond_names[5]);
	T_EQ_STR("ifc", qpu_isa_cond_names[6]);
	T_EQ_STR("ifcc", qpu_isa_cond_names[7]);
	T_EQ_STR("allz", qpu_isa_br_cond_names[0]);
	T_EQ_STR("anynn", qpu_isa_br_cond_names[7]);
	T_EQ_STR("allnc", qpu_isa_br_cond_names[9]);
	T_EQ_STR("anync", qpu_isa_br_cond_names[11]);
	T_EQ_STR("", qpu_isa_br_cond_names[15]);
	for (unsigned int i = 12; i < 15; i++)
		T_CHECK(!qpu_isa_br_cond_names[i]);

	T_EQ_STR("16a", qpu_isa_pack_a_names[1]);
	T_EQ_STR("8abcd", qpu_isa_pack_a_names[3]);
	T_EQ_STR("32s", qpu_isa_pack_a_names[8]);
	T_EQ_STR("8dsi", qpu_isa_pack_a_names[15]);
	T_EQ_STR("8888", qpu_isa_pack_mul_names[3]);
	T_EQ_STR("8dsf", qpu_isa_pack_mul_names[7]);
	T_EQ_STR("8dr", qpu_isa_unpack_names[3]);
	T_EQ_STR("8d", qpu_isa_unpack_names[7]);

	for (unsigned int f = 0; f < 2; f++) {
		for (unsigned int i = 0; i < 32; i++) {
			snprintf(name, sizeof(name), "r%c%u", f ? 'b' : 'a', i);
			T_EQ_STR(name, qpu_isa_read_regs[f][i].name);
			T_EQ_STR(name, qpu_isa_write_regs[f][i].name);
			T_CHECK(qpu_isa_read_regs[f][i].flags & QPU_ISA_REG_FILE);
		}
		for (unsigned int i = 0; i < 32; i++) {
			const char *want = wr_common[i] ? wr_common[i] :
				(f ? wr_b[i] : wr_a[i]);
			const struct qpu_isa_reg *r = &qpu_isa_write_regs[f][32 + i];

			T_EQ_STR(want, r->name);
			T_CHECK(!!wr_common[i] == !!(r->flags & QPU_ISA_REG_SHARED));
			if (wr_ref[i])
				T_EQ_STR(wr_ref[i], r->ref);
		}
		/* Names are unique inside one file, so lookups cannot tie. */
		for (unsigned int i = 0; i < 64; i++) {
			for (unsigned int j = i + 1; j < 64; j++) {
				T_CHECK(strcmp(qpu_isa_read_regs[f][i].name,
					       qpu_isa_read_regs[f][j].name));
				T_CHECK(strcmp(qpu_isa_write_regs[f][i].name,
					       qpu_isa_write_regs[f][j].name));
			}
		}
	}
	for (size_t i = 0; i < T_ARRAY_SIZE(rd); i++) {
		T_EQ_STR(rd[i].name, qpu_isa_read_regs[rd[i].file][rd[i].addr].name);
		T_EQ_STR(rd[i].ref, qpu_isa_read_regs[rd[i].file][rd[i].addr].ref);
	}
	T_EQ_STR("ra33", qpu_isa_read_regs[0][33].name);
	T_CHECK(qpu_isa_read_regs[0][33].flags & QPU_ISA_REG_RESERVED);
	T_EQ_STR("rb63", qpu_isa_read_regs[1][63].name);
}

static uint32_t float_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

T_TEST(small_imms)
{
	char text[16];

	for (int i = 0; i < 64; i++) {
		const struct qpu_isa_smi *s = &qpu_isa_small_imms[i];

		if (i < 32) {
			int v = i < 16 ? i : i - 32;

			T_EQ_U64(QPU_ISA_SMI_INT, s->kind);
			T_EQ_U64((uint32_t)v, s->value);
			snprintf(text, sizeof(text), "%d", v);
			T_EQ_STR(text, s->text);
		} else if (i < 48) {
			float f = i < 40 ? (float)(1 << (i - 32)) :
				1.0f / (float)(1 << (48 - i));

			T_EQ_U64(QPU_ISA_SMI_FLOAT, s->kind);
			T_EQ_U64(float_bits(f), s->value);
			/* The text reads back as exactly this float. */
			T_EQ_U64(float_bits(f), float_bits(strtof(s->text, NULL)));
			T_CHECK(strchr(s->text, '.'));
		} else {
			T_EQ_U64(QPU_ISA_SMI_ROTATE, s->kind);
			T_EQ_U64((uint32_t)(i - 48), s->value);
		}
	}
}

T_TEST(ldi_elems)
{
	int32_t vals[16];
	uint32_t imm;

	/* Element i: low bit at i, high bit at 16 + i. */
	for (int sgn = 0; sgn < 2; sgn++) {
		int lo = sgn ? -2 : 0;

		for (int elem = 0; elem < 16; elem++) {
			for (int v = lo; v < lo + 4; v++) {
				uint32_t bits = (uint32_t)v & 3;
				uint32_t want = (bits & 1) << elem |
					(bits >> 1) << (16 + elem);

				for (int k = 0; k < 16; k++)
					vals[k] = 0;
				vals[elem] = v;
				imm = 0xdeadbeef;
				T_EQ_U64(0, qpu_isa_ldi_pack_elems(vals, sgn, &imm));
				T_EQ_U64(want, imm);
				T_EQ_U64((uint32_t)v,
					 (uint32_t)qpu_isa_ldi_elem(want, sgn, elem));
			}
			for (int k = 0; k < 16; k++)
				vals[k] = 0;
			vals[elem] = lo - 1;
			imm = 0xdeadbeef;
			T_EQ_U64(-QPU_ISA_ERANGE,
				 qpu_isa_ldi_pack_elems(vals, sgn, &imm));
			T_EQ_U64(0xdeadbeef, imm);
			vals[elem] = lo + 4;
			T_EQ_U64(-QPU_ISA_ERANGE,
				 qpu_isa_ldi_pack_elems(vals, sgn, &imm));
		}
	}
}

T_TEST(random_round_trip)
{
	uint64_t rnd = RANDOM_SEED;
	unsigned long bad = 0, kinds[QPU_ISA_NUM_KINDS] = { 0 };
	struct qpu_isa_instr in;

	for (unsigned long n = 0; n < RANDOM_WORDS; n++) {
		uint64_t w = t_rand(&rnd), got = ~w;
		int ret;

		qpu_isa_decode(w, &in);
		kinds[in.kind]++;
		ret = qpu_isa_encode(&in, &got);
		if (ret || got != w) {
			if (++bad <= 10)
				fprintf(stderr, "round trip of 0x%016" PRIx64
					": ret %d, got 0x%016" PRIx64 "\n",
					w, ret, got);
		}
	}
	t_checks++;
	if (bad) {
		fprintf(stderr, "%lu of %d random words did not round-trip (seed 0x%llx)\n",
			bad, RANDOM_WORDS, (unsigned long long)RANDOM_SEED);
		t_failures++;
	}
	/* The sample reaches every kind, or the test proves little. */
	for (unsigned int k = 0; k < QPU_ISA_NUM_KINDS; k++)
		T_CHECK(kinds[k] > 1000);
}

T_MAIN()
