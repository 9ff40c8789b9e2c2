// SPDX-License-Identifier: MIT
/*
 * test-emit: the C assembler API. Every builder's word is compared with the
 * text assembler's word for the same line (qpu_asm_line()), every register
 * constant with the core's name tables, the core's VPM and DMA setup words
 * (qpu_vpm.h) with the assembler's functions of the same names, whole
 * programs with labels (forward and backward) with qpu_asm_string(), every
 * error with its message and instruction index; then a generated program
 * runs on the emulator ("emu" device) and its stores are checked.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/qpu.h>

#include "qpu_asm.h"
#include "qpu.h"
#include "qpu_emit.h"
#include "qpu_isa.h"
#include "qpu_vpm.h"
#include "testlib.h"

/* The one word @e made, after finishing it; frees @e. */
static bool one_word(struct qpu_emit *e, uint64_t *word, int line)
{
	const uint64_t *w;
	size_t n;
	int ret = qpu_emit_finish(e);

	w = qpu_emit_words(e, &n);
	if (ret || n != 1) {
		char m[256];

		snprintf(m, sizeof(m), "emit: ret %d, %zu words, error: %s", ret, n,
			 qpu_emit_error(e, NULL) ? qpu_emit_error(e, NULL) : "none");
		t_report(__FILE__, line, m);
		qpu_emit_free(e);
		return false;
	}
	*word = w[0];
	qpu_emit_free(e);
	return true;
}

/* Compare the word of @e with the assembler's word for @text. */
static void check_line(struct qpu_emit *e, const char *text, int line)
{
	char msg[256];
	uint64_t want, got;

	t_checks++;
	if (qpu_asm_line(text, &want, msg, sizeof(msg))) {
		char m[400];

		snprintf(m, sizeof(m), "'%s' does not assemble: %s", text, msg);
		t_report(__FILE__, line, m);
		qpu_emit_free(e);
		return;
	}
	if (!one_word(e, &got, line))
		return;
	if (got != want) {
		char m[400];

		snprintf(m, sizeof(m), "'%s': asm 0x%016" PRIx64 ", emit 0x%016" PRIx64,
			 text, want, got);
		t_report(__FILE__, line, m);
	}
}

/* EQ("text", calls on e): the calls make the word the text makes. */
#define EQ(text, ...) do {						\
	struct qpu_emit *e = qpu_emit_new();				\
	__VA_ARGS__;							\
	check_line(e, text, __LINE__);					\
} while (0)

static void check_error(struct qpu_emit *e, size_t index, const char *want, int line)
{
	char m[400];
	const char *msg;
	size_t got_index = 12345, n = 1;
	int ret = qpu_emit_finish(e);

	t_checks++;
	msg = qpu_emit_error(e, &got_index);
	if (ret != -EINVAL || !msg || got_index != index || !strstr(msg, want) ||
	    qpu_emit_words(e, &n) || n) {
		snprintf(m, sizeof(m), "want -EINVAL at %zu with '%s'; got %d at %zu: '%s'",
			 index, want, ret, got_index, msg ? msg : "(none)");
		t_report(__FILE__, line, m);
	}
	qpu_emit_free(e);
}

/* ERR(index, "message", calls on e): the first error is that one. */
#define ERR(index, want, ...) do {					\
	struct qpu_emit *e = qpu_emit_new();				\
	__VA_ARGS__;							\
	check_error(e, index, want, __LINE__);				\
} while (0)

T_TEST(alu)
{
	char text[128];
	unsigned int op, i;

	EQ("nop", qpu_emit_nop(e));
	for (op = 1; op < 32; op++) {
		if (!qpu_isa_add_ops[op].name)
			continue;
		if (qpu_isa_add_ops[op].flags & QPU_ISA_OP_UNARY)
			snprintf(text, sizeof(text), "%s r0, ra2", qpu_isa_add_ops[op].name);
		else
			snprintf(text, sizeof(text), "%s r0, r1, ra2", qpu_isa_add_ops[op].name);
		EQ(text, qpu_emit_add(e, op, QPU_R0, qpu_isa_add_ops[op].flags &
				      QPU_ISA_OP_UNARY ? QPU_RA(2) : QPU_R1, QPU_RA(2)));
	}
	for (op = 1; op < 8; op++) {
		snprintf(text, sizeof(text), "%s r3, r1, rb4", qpu_isa_mul_ops[op].name);
		EQ(text, qpu_emit_mul(e, op, QPU_R3, QPU_R1, QPU_RB(4)));
	}

	/* the inline functions */
	EQ("fadd ra1, r1, r2", qpu_emit_fadd(e, QPU_RA(1), QPU_R1, QPU_R2));
	EQ("add rb1, ra2, rb3", qpu_emit_iadd(e, QPU_RB(1), QPU_RA(2), QPU_RB(3)));
	EQ("sub r0, r1, 1", qpu_emit_isub(e, QPU_R0, QPU_R1, qpu_imm(1)));
	EQ("itof r0, r1", qpu_emit_itof(e, QPU_R0, QPU_R1));
	EQ("ftoi r0, ra1", qpu_emit_ftoi(e, QPU_R0, QPU_RA(1)));
	EQ("not r0, r5", qpu_emit_bnot(e, QPU_R0, QPU_R5));
	EQ("clz r0, r4", qpu_emit_clz(e, QPU_R0, QPU_R4));
	EQ("shl r0, r1, 2", qpu_emit_shl(e, QPU_R0, QPU_R1, qpu_imm(2)));
	EQ("shr r0, r1, 15", qpu_emit_shr(e, QPU_R0, QPU_R1, qpu_imm(15)));
	EQ("asr r0, r1, -16", qpu_emit_asr(e, QPU_R0, QPU_R1, qpu_imm(-16)));
	EQ("ror r0, r1, r2", qpu_emit_ror(e, QPU_R0, QPU_R1, QPU_R2));
	EQ("min r0, r1, r2", qpu_emit_imin(e, QPU_R0, QPU_R1, QPU_R2));
	EQ("max r0, r1, r2", qpu_emit_imax(e, QPU_R0, QPU_R1, QPU_R2));
	EQ("and r0, r1, r2", qpu_emit_band(e, QPU_R0, QPU_R1, QPU_R2));
	EQ("or r0, r1, r2", qpu_emit_bor(e, QPU_R0, QPU_R1, QPU_R2));
	EQ("xor r0, r1, r2", qpu_emit_bxor(e, QPU_R0, QPU_R1, QPU_R2));
	EQ("fsub r0, r1, r2", qpu_emit_fsub(e, QPU_R0, QPU_R1, QPU_R2));
	EQ("fmin r0, r1, r2", qpu_emit_fmin(e, QPU_R0, QPU_R1, QPU_R2));
	EQ("fmax r0, r1, r2", qpu_emit_fmax(e, QPU_R0, QPU_R1, QPU_R2));
	EQ("fminabs r0, r1, r2", qpu_emit_fminabs(e, QPU_R0, QPU_R1, QPU_R2));
	EQ("fmaxabs r0, r1, r2", qpu_emit_fmaxabs(e, QPU_R0, QPU_R1, QPU_R2));
	EQ("av8adds r0, r1, r2", qpu_emit_av8adds(e, QPU_R0, QPU_R1, QPU_R2));
	EQ("av8subs r0, r1, r2", qpu_emit_av8subs(e, QPU_R0, QPU_R1, QPU_R2));
	EQ("fmul r0, r1, r2", qpu_emit_fmul(e, QPU_R0, QPU_R1, QPU_R2));
	EQ("mul24 r0, r1, 3", qpu_emit_mul24(e, QPU_R0, QPU_R1, qpu_imm(3)));
	EQ("v8muld r0, r1, r2", qpu_emit_v8muld(e, QPU_R0, QPU_R1, QPU_R2));
	EQ("v8min r0, r1, r2", qpu_emit_v8min(e, QPU_R0, QPU_R1, QPU_R2));
	EQ("v8max r0, r1, r2", qpu_emit_v8max(e, QPU_R0, QPU_R1, QPU_R2));
	EQ("v8adds r0, r1, r2", qpu_emit_v8adds(e, QPU_R0, QPU_R1, QPU_R2));
	EQ("v8subs r0, r1, r2", qpu_emit_v8subs(e, QPU_R0, QPU_R1, QPU_R2));

	/* dual issue, either order */
	EQ("fadd r0, r1, r2; fmul r3, r1, r2",
	   qpu_emit_fadd(e, QPU_R0, QPU_R1, QPU_R2);
	   qpu_emit_dual_mul(e, QPU_MUL_FMUL, QPU_R3, QPU_R1, QPU_R2));
	EQ("fadd r0, r1, r2; fmul r3, r1, r2",
	   qpu_emit_fmul(e, QPU_R3, QPU_R1, QPU_R2);
	   qpu_emit_dual_add(e, QPU_ADD_FADD, QPU_R0, QPU_R1, QPU_R2));
	EQ("add ra1, ra1, rb2; fmul rb3, ra1, rb2",
	   qpu_emit_iadd(e, QPU_RA(1), QPU_RA(1), QPU_RB(2));
	   qpu_emit_dual_mul(e, QPU_MUL_FMUL, QPU_RB(3), QPU_RA(1), QPU_RB(2)));
	EQ("add rb1, ra1, rb2; fmul ra3, ra1, rb2",
	   qpu_emit_iadd(e, QPU_RB(1), QPU_RA(1), QPU_RB(2));
	   qpu_emit_dual_mul(e, QPU_MUL_FMUL, QPU_RA(3), QPU_RA(1), QPU_RB(2)));

	/* names in both regfiles go where there is room */
	EQ("add r0, unif, ra1", qpu_emit_iadd(e, QPU_R0, QPU_UNIF, QPU_RA(1)));
	EQ("add r0, unif, unif", qpu_emit_iadd(e, QPU_R0, QPU_UNIF, QPU_UNIF));
	EQ("add r0, ra1, vpm", qpu_emit_iadd(e, QPU_R0, QPU_RA(1), QPU_VPM));
	EQ("fadd r0, unif, r1; fmul r1, vpm, r2",
	   qpu_emit_fadd(e, QPU_R0, QPU_UNIF, QPU_R1);
	   qpu_emit_dual_mul(e, QPU_MUL_FMUL, QPU_R1, QPU_VPM, QPU_R2));
	EQ("add r0, elem_num, qpu_num", qpu_emit_iadd(e, QPU_R0, QPU_ELEM_NUM, QPU_QPU_NUM));

	/* conditions and flags */
	for (i = 0; i < 8; i++) {
		unsigned int j = i == 7 ? 0 : i + 1;

		if (i == QPU_COND_ALWAYS || j == QPU_COND_ALWAYS)
			continue;
		snprintf(text, sizeof(text), "fadd.%s r0, r1, r2; fmul.%s r3, r1, r2",
			 qpu_isa_cond_names[i], qpu_isa_cond_names[j]);
		EQ(text, qpu_emit_fadd(e, QPU_R0, QPU_R1, QPU_R2); qpu_emit_cond(e, i);
		   qpu_emit_dual_mul(e, QPU_MUL_FMUL, QPU_R3, QPU_R1, QPU_R2);
		   qpu_emit_cond(e, j));
	}
	EQ("fadd.setf r0, r1, r2", qpu_emit_fadd(e, QPU_R0, QPU_R1, QPU_R2);
	   qpu_emit_setf(e));
	EQ("fadd.setf -, r1, r2", qpu_emit_fadd(e, QPU_NOP, QPU_R1, QPU_R2);
	   qpu_emit_setf(e));
	EQ("fadd -, r1, r2", qpu_emit_fadd(e, QPU_NOP, QPU_R1, QPU_R2));
	EQ("fmul.setf r0, r1, r2", qpu_emit_fmul(e, QPU_R0, QPU_R1, QPU_R2);
	   qpu_emit_setf(e));
	EQ("sub.setf.ifnz ra1, ra1, 1; fmul r0, r1, r2",
	   qpu_emit_isub(e, QPU_RA(1), QPU_RA(1), qpu_imm(1)); qpu_emit_setf(e);
	   qpu_emit_cond(e, QPU_COND_ZC);
	   qpu_emit_dual_mul(e, QPU_MUL_FMUL, QPU_R0, QPU_R1, QPU_R2));

	/* signals */
	for (i = 0; i < 13; i++) {
		if (i == QPU_SIG_NONE)
			continue;
		snprintf(text, sizeof(text), "nop; %s", qpu_isa_sig_names[i]);
		EQ(text, qpu_emit_nop(e); qpu_emit_sig(e, i));
		snprintf(text, sizeof(text), "fadd r0, r1, r2; %s", qpu_isa_sig_names[i]);
		EQ(text, qpu_emit_fadd(e, QPU_R0, QPU_R1, QPU_R2); qpu_emit_sig(e, i));
	}
	EQ("nop", qpu_emit_nop(e); qpu_emit_sig(e, QPU_SIG_NONE));
	EQ("mov r2, r4; ldtmu0", qpu_emit_mov(e, QPU_R2, QPU_R4);
	   qpu_emit_sig(e, QPU_SIG_LDTMU0));

	/* small immediates */
	for (i = 0; i < 32; i++) {
		int v = i < 16 ? (int)i : (int)i - 32;

		snprintf(text, sizeof(text), "add r0, r1, %d", v);
		EQ(text, qpu_emit_iadd(e, QPU_R0, QPU_R1, qpu_imm(v)));
	}
	for (i = 32; i < 48; i++) {
		float f;

		memcpy(&f, &qpu_isa_small_imms[i].value, sizeof(f));
		snprintf(text, sizeof(text), "fmul r0, r1, %s", qpu_isa_small_imms[i].text);
		EQ(text, qpu_emit_fmul(e, QPU_R0, QPU_R1, qpu_immf(f)));
	}
	EQ("fadd r0, r1, 2.0; fmul r3, r1, 2.0",
	   qpu_emit_fadd(e, QPU_R0, QPU_R1, qpu_immf(2.0f));
	   qpu_emit_dual_mul(e, QPU_MUL_FMUL, QPU_R3, QPU_R1, qpu_immf(2.0f)));
	EQ("add r0, ra1, 3", qpu_emit_iadd(e, QPU_R0, QPU_RA(1), qpu_imm(3)));
	EQ("add r0, unif, 3", qpu_emit_iadd(e, QPU_R0, QPU_UNIF, qpu_imm(3)));

	/* packs, unpacks, rotations */
	for (i = 1; i < 16; i++) {
		snprintf(text, sizeof(text), "add ra1.%s, r1, r2", qpu_isa_pack_a_names[i]);
		EQ(text, qpu_emit_iadd(e, qpu_pack(QPU_RA(1), i), QPU_R1, QPU_R2));
	}
	for (i = 3; i < 8; i++) {
		snprintf(text, sizeof(text), "fmul r0.%s, r1, r2", qpu_isa_pack_mul_names[i]);
		EQ(text, qpu_emit_fmul(e, qpu_pack(QPU_R0, 16 + i), QPU_R1, QPU_R2));
	}
	EQ("nop; mul24 ra3.16b, r1, r2",
	   qpu_emit_mul24(e, qpu_pack(QPU_RA(3), QPU_PACK_16B), QPU_R1, QPU_R2));
	for (i = 1; i < 8; i++) {
		snprintf(text, sizeof(text), "fadd r0, ra1.%s, r2", qpu_isa_unpack_names[i]);
		EQ(text, qpu_emit_fadd(e, QPU_R0, qpu_unpack(QPU_RA(1), i), QPU_R2));
		snprintf(text, sizeof(text), "fmul r0, r4.%s, r1", qpu_isa_unpack_names[i]);
		EQ(text, qpu_emit_fmul(e, QPU_R0, qpu_unpack(QPU_R4, i), QPU_R1));
	}
	EQ("fadd r0, ra1.16a, r2; fmul r3, ra1.16a, r1",
	   qpu_emit_fadd(e, QPU_R0, qpu_unpack(QPU_RA(1), QPU_UNPACK_16A), QPU_R2);
	   qpu_emit_dual_mul(e, QPU_MUL_FMUL, QPU_R3,
			     qpu_unpack(QPU_RA(1), QPU_UNPACK_16A), QPU_R1));
	for (i = 1; i < 16; i++) {
		snprintf(text, sizeof(text), "v8min r0, r1 >> %u, r1 >> %u", i, i);
		EQ(text, qpu_emit_rotate(e, QPU_R0, QPU_R1, i));
	}
	EQ("fmul r0, r1 << r5, r2", qpu_emit_fmul(e, QPU_R0, qpu_rot_r5(QPU_R1), QPU_R2));
	EQ("fmul r0, r1 << 4, r2 << 4", qpu_emit_fmul(e, QPU_R0, qpu_rot(QPU_R1, 12),
						       qpu_rot(QPU_R2, 12)));
	EQ("fadd r0, r1, r2; fmul r3, r1 >> 1, r2",
	   qpu_emit_fadd(e, QPU_R0, QPU_R1, QPU_R2);
	   qpu_emit_dual_mul(e, QPU_MUL_FMUL, QPU_R3, qpu_rot(QPU_R1, 1), QPU_R2));
	EQ("fmul r0, r1, r2", qpu_emit_fmul(e, QPU_R0, qpu_rot(QPU_R1, 0), QPU_R2));

	/* reads, moves */
	EQ("nop; read vw_wait", qpu_emit_nop(e); qpu_emit_read(e, QPU_VW_WAIT));
	EQ("nop; read vr_wait", qpu_emit_nop(e); qpu_emit_read(e, QPU_VR_WAIT));
	EQ("add r0, r1, r2; read ra3; read rb4", qpu_emit_iadd(e, QPU_R0, QPU_R1, QPU_R2);
	   qpu_emit_read(e, QPU_RA(3)); qpu_emit_read(e, QPU_RB(4)));
	EQ("mov r0, unif", qpu_emit_mov(e, QPU_R0, QPU_UNIF));
	EQ("mov ra1, r0; mov rb2, r1", qpu_emit_mov(e, QPU_RA(1), QPU_R0);
	   qpu_emit_dual_mov(e, QPU_RB(2), QPU_R1));
	EQ("or r0, 5, 5", qpu_emit_mov(e, QPU_R0, qpu_imm(5)));
	EQ("mov vw_addr, ra1", qpu_emit_mov(e, QPU_VW_ADDR, QPU_RA(1)));
	EQ("mov t0s, r1", qpu_emit_mov(e, QPU_TMU0_S, QPU_R1));
	EQ("anop ra1", qpu_emit_add(e, QPU_ADD_NOP, QPU_RA(1), QPU_R0, QPU_R0));
	EQ("anop.ifz ra1", qpu_emit_add(e, QPU_ADD_NOP, QPU_RA(1), QPU_R0, QPU_R0);
	   qpu_emit_cond(e, QPU_COND_ZS));
	EQ("nop; mnop rb1", qpu_emit_mul(e, QPU_MUL_NOP, QPU_RB(1), QPU_R0, QPU_R0));
}

/* Each register constant: its name in the text, both ways it can go. */
T_TEST(registers)
{
	const struct {
		const char *name;
		struct qpu_reg r;
	} regs[] = {
		{ "r0", QPU_R0 }, { "r1", QPU_R1 }, { "r2", QPU_R2 }, { "r3", QPU_R3 },
		{ "r4", QPU_R4 }, { "r5", QPU_R5 }, { "ra0", QPU_RA(0) },
		{ "ra31", QPU_RA(31) }, { "rb0", QPU_RB(0) }, { "rb31", QPU_RB(31) },
		{ "unif", QPU_UNIF }, { "vary", QPU_VARY }, { "vpm", QPU_VPM },
		{ "mutex", QPU_MUTEX }, { "tmurs", QPU_TMURS }, { "irq", QPU_HOST_INT },
		{ "stencil", QPU_TLB_STENCIL }, { "tlbz", QPU_TLB_Z },
		{ "tlbm", QPU_TLB_COLOR_MS }, { "tlbc", QPU_TLB_COLOR_ALL },
		{ "tlbam", QPU_TLB_ALPHA_MASK }, { "recip", QPU_SFU_RECIP },
		{ "recipsqrt", QPU_SFU_RECIPSQRT }, { "exp", QPU_SFU_EXP },
		{ "log", QPU_SFU_LOG }, { "t0s", QPU_TMU0_S }, { "t0t", QPU_TMU0_T },
		{ "t0r", QPU_TMU0_R }, { "t0b", QPU_TMU0_B }, { "t1s", QPU_TMU1_S },
		{ "t1t", QPU_TMU1_T }, { "t1r", QPU_TMU1_R }, { "t1b", QPU_TMU1_B },
		{ "elem_num", QPU_ELEM_NUM }, { "x_coord", QPU_X_COORD },
		{ "ms_mask", QPU_MS_MASK }, { "vr_busy", QPU_VR_BUSY },
		{ "vr_wait", QPU_VR_WAIT }, { "r5quad", QPU_R5QUAD },
		{ "unif_addr", QPU_UNIF_ADDR }, { "vr_setup", QPU_VR_SETUP },
		{ "vr_addr", QPU_VR_ADDR }, { "qpu_num", QPU_QPU_NUM },
		{ "y_coord", QPU_Y_COORD }, { "rev_flag", QPU_REV_FLAG },
		{ "vw_busy", QPU_VW_BUSY }, { "vw_wait", QPU_VW_WAIT },
		{ "r5rep", QPU_R5REP }, { "unif_addr_rel", QPU_UNIF_ADDR_REL },
		{ "vw_setup", QPU_VW_SETUP }, { "vw_addr", QPU_VW_ADDR },
	};
	char text[128];
	unsigned int i, f, names;

	for (i = 0; i < T_ARRAY_SIZE(regs); i++) {
		struct qpu_reg r = regs[i].r;

		T_CHECK(r.access);
		if (r.addr >= 32 && r.kind != QPU_REG_ACC) {
			/* the core's tables give the same name at that address */
			names = 0;
			for (f = 0; f < 2; f++) {
				if ((r.kind == QPU_REG_A && f) || (r.kind == QPU_REG_B && !f))
					continue;
				if (r.access & QPU_REG_READ)
					names += !strcmp(qpu_isa_read_regs[f][r.addr].name,
							 regs[i].name);
				if (r.access & QPU_REG_WRITE)
					names += !strcmp(qpu_isa_write_regs[f][r.addr].name,
							 regs[i].name);
			}
			T_EQ_U64((r.kind == QPU_REG_AB ? 2 : 1) *
				 ((r.access & QPU_REG_READ ? 1 : 0) +
				  (r.access & QPU_REG_WRITE ? 1 : 0)), names);
		}
		if (r.access & QPU_REG_READ) {
			snprintf(text, sizeof(text), "add r0, %s, r1", regs[i].name);
			EQ(text, qpu_emit_iadd(e, QPU_R0, r, QPU_R1));
		}
		if (r.access & QPU_REG_WRITE) {
			snprintf(text, sizeof(text), "add %s, r0, r1", regs[i].name);
			EQ(text, qpu_emit_iadd(e, r, QPU_R0, QPU_R1));
		}
	}
	EQ("add -, r0, r1", qpu_emit_iadd(e, QPU_NOP, QPU_R0, QPU_R1));
}

T_TEST(ldi_sema)
{
	static const int pes[16] = { 0, 1, -2, -1, 0, 1, -2, -1, 1, 1, 1, 1, 0, 0, -2, -1 };
	static const int peu[16] = { 0, 1, 2, 3, 3, 2, 1, 0, 0, 0, 0, 3, 3, 3, 1, 2 };

	EQ("ldi r0, 0x12345678", qpu_emit_ldi(e, QPU_R0, 0x12345678));
	EQ("ldi ra1, 0xffffffff", qpu_emit_ldi(e, QPU_RA(1), 0xffffffff));
	EQ("ldi rb1, 1.5", qpu_emit_ldi_float(e, QPU_RB(1), 1.5f));
	EQ("ldi -, 0", qpu_emit_ldi(e, QPU_NOP, 0));
	EQ("ldi ra1, rb2, 0x10", qpu_emit_ldi(e, QPU_RA(1), 0x10);
	   qpu_emit_ldi_dest2(e, QPU_RB(2)));
	EQ("ldi rb1, ra2, 0x10", qpu_emit_ldi(e, QPU_RB(1), 0x10);
	   qpu_emit_ldi_dest2(e, QPU_RA(2)));
	EQ("ldi r0.ifz, r1.ifnn, 0x10", qpu_emit_ldi(e, QPU_R0, 0x10);
	   qpu_emit_cond(e, QPU_COND_ZS); qpu_emit_ldi_dest2(e, QPU_R1);
	   qpu_emit_cond(e, QPU_COND_NC));
	EQ("ldi.setf r0, 1", qpu_emit_ldi(e, QPU_R0, 1); qpu_emit_setf(e));
	EQ("ldi.setf -, 1", qpu_emit_ldi(e, QPU_NOP, 1); qpu_emit_setf(e));
	EQ("ldi ra1.16a, 7", qpu_emit_ldi(e, qpu_pack(QPU_RA(1), QPU_PACK_16A), 7));
	EQ("ldi r0, r1.8888, 7", qpu_emit_ldi(e, QPU_R0, 7);
	   qpu_emit_ldi_dest2(e, qpu_pack(QPU_R1, QPU_PACK_MUL_8888)));
	EQ("ldi vw_setup, 0x1a00", qpu_emit_ldi(e, QPU_VW_SETUP, 0x1a00));
	EQ("ldipes r0, [0, 1, -2, -1, 0, 1, -2, -1, 1, 1, 1, 1, 0, 0, -2, -1]",
	   qpu_emit_ldi_pes(e, QPU_R0, pes));
	EQ("ldipeu ra5, [0, 1, 2, 3, 3, 2, 1, 0, 0, 0, 0, 3, 3, 3, 1, 2]",
	   qpu_emit_ldi_peu(e, QPU_RA(5), peu));
	EQ("sacq -, 3", qpu_emit_sacq(e, 3));
	EQ("srel -, 15", qpu_emit_srel(e, 15));
	EQ("sacq -, 0", qpu_emit_sacq(e, 0));
	EQ("srel.setf -, 2", qpu_emit_srel(e, 2); qpu_emit_setf(e));
	EQ("sacq -, ra1, 4", qpu_emit_sacq(e, 4); qpu_emit_ldi_dest2(e, QPU_RA(1)));
}

T_TEST(branch)
{
	char text[128];
	unsigned int c;

	EQ("bra -, 0x1000", qpu_emit_bra(e, QPU_BR_ALWAYS, 0x1000));
	EQ("brr -, +32", qpu_emit_brr_offset(e, QPU_BR_ALWAYS, 32));
	EQ("brr -, -64", qpu_emit_brr_offset(e, QPU_BR_ALWAYS, -64));
	for (c = 0; c < 12; c++) {
		snprintf(text, sizeof(text), "brr.%s -, +8", qpu_isa_br_cond_names[c]);
		EQ(text, qpu_emit_brr_offset(e, c, 8));
	}
	EQ("bra.allnn -, ra1, 0x100", qpu_emit_bra(e, QPU_BR_ALL_NC, 0x100);
	   qpu_emit_branch_reg(e, QPU_RA(1)));
	EQ("bra -, ra31, 0", qpu_emit_bra(e, QPU_BR_ALWAYS, 0);
	   qpu_emit_branch_reg(e, QPU_RA(31)));
	EQ("bra ra0, 0x40", qpu_emit_bra(e, QPU_BR_ALWAYS, 0x40);
	   qpu_emit_branch_link(e, QPU_RA(0)));
	EQ("brr rb5, -64", qpu_emit_brr_offset(e, QPU_BR_ALWAYS, -64);
	   qpu_emit_branch_link(e, QPU_RB(5)));
	EQ("brr.anyz r1, ra2, +16", qpu_emit_brr_offset(e, QPU_BR_ANY_ZS, 16);
	   qpu_emit_branch_link(e, QPU_R1); qpu_emit_branch_reg(e, QPU_RA(2)));
}

T_TEST(vpm)
{
	EQ("ldi vr_setup, vpm_setup(4, 1, h32(3))",
	   qpu_emit_vpm_read_setup(e, 4, 1, QPU_VPM_H32, 3, 0, 0));
	EQ("ldi vr_setup, vpm_setup(16, 64, h32(63))",
	   qpu_emit_vpm_read_setup(e, 16, 64, QPU_VPM_H32, 63, 0, 0));
	EQ("ldi vw_setup, vpm_setup(0, 1, h32(0))",
	   qpu_emit_vpm_write_setup(e, 1, QPU_VPM_H32, 0, 0, 0));
	EQ("ldi vw_setup, vpm_setup(0, 2, h16p(5, 1))",
	   qpu_emit_vpm_write_setup(e, 2, QPU_VPM_H16, 5, 0, 1));
	EQ("ldi vw_setup, vpm_setup(0, 2, h16l(5, 1))",
	   qpu_emit_vpm_write_setup(e, 2, QPU_VPM_H16L, 5, 0, 1));
	EQ("ldi vw_setup, vpm_setup(0, 1, h8p(7, 3))",
	   qpu_emit_vpm_write_setup(e, 1, QPU_VPM_H8, 7, 0, 3));
	EQ("ldi vw_setup, vpm_setup(0, 1, h8l(7, 2))",
	   qpu_emit_vpm_write_setup(e, 1, QPU_VPM_H8L, 7, 0, 2));
	EQ("ldi vr_setup, vpm_setup(2, 1, v32(16, 5))",
	   qpu_emit_vpm_read_setup(e, 2, 1, QPU_VPM_V32, 16, 5, 0));
	EQ("ldi vr_setup, vpm_setup(2, 1, v16p(32, 5, 1))",
	   qpu_emit_vpm_read_setup(e, 2, 1, QPU_VPM_V16, 32, 5, 1));
	EQ("ldi vr_setup, vpm_setup(2, 1, v16l(32, 5, 1))",
	   qpu_emit_vpm_read_setup(e, 2, 1, QPU_VPM_V16L, 32, 5, 1));
	EQ("ldi vr_setup, vpm_setup(2, 1, v8p(48, 15, 3))",
	   qpu_emit_vpm_read_setup(e, 2, 1, QPU_VPM_V8, 48, 15, 3));
	EQ("ldi vr_setup, vpm_setup(2, 1, v8l(48, 15, 2))",
	   qpu_emit_vpm_read_setup(e, 2, 1, QPU_VPM_V8L, 48, 15, 2));
	EQ("ldi vw_setup, vdw_setup_0(1, 16, dma_h32(0, 0))",
	   qpu_emit_vdw_setup(e, 1, 16, QPU_VPM_H32, 0, 0, 0));
	EQ("ldi vw_setup, vdw_setup_0(128, 128, dma_h32(127, 15))",
	   qpu_emit_vdw_setup(e, 128, 128, QPU_VPM_H32, 127, 15, 0));
	EQ("ldi vw_setup, vdw_setup_0(4, 8, dma_h16p(3, 2, 1))",
	   qpu_emit_vdw_setup(e, 4, 8, QPU_VPM_H16, 3, 2, 1));
	EQ("ldi vw_setup, vdw_setup_0(4, 8, dma_h8p(3, 2, 3))",
	   qpu_emit_vdw_setup(e, 4, 8, QPU_VPM_H8, 3, 2, 3));
	EQ("ldi vw_setup, vdw_setup_0(16, 4, dma_v32(16, 1))",
	   qpu_emit_vdw_setup(e, 16, 4, QPU_VPM_V32, 16, 1, 0));
	EQ("ldi vw_setup, vdw_setup_0(16, 4, dma_v16p(16, 1, 1))",
	   qpu_emit_vdw_setup(e, 16, 4, QPU_VPM_V16, 16, 1, 1));
	EQ("ldi vw_setup, vdw_setup_0(16, 4, dma_v8p(16, 1, 2))",
	   qpu_emit_vdw_setup(e, 16, 4, QPU_VPM_V8, 16, 1, 2));
	/* 16-bit strides both ways: PyVideoCore's sgemm needs 12224, 12288 */
	EQ("ldi vw_setup, vdw_setup_1(12224)", qpu_emit_vdw_stride(e, 12224));
	EQ("ldi vw_setup, vdw_setup_1(65535)", qpu_emit_vdw_stride(e, 65535));
	EQ("ldi vw_setup, vdw_setup_1(0)", qpu_emit_vdw_stride(e, 0));
	EQ("ldi vr_setup, vdr_setup_0(3, 16, 16, vdr_h32(1, 0, 0))",
	   qpu_emit_vdr_setup(e, 3, 16, 16, 1, QPU_VPM_H32, 0, 0, 0));
	EQ("ldi vr_setup, vdr_setup_0(15, 4, 2, vdr_h32(16, 127, 15))",
	   qpu_emit_vdr_setup(e, 15, 4, 2, 16, QPU_VPM_H32, 127, 15, 0));
	EQ("ldi vr_setup, vdr_setup_0(0, 1, 1, vdr_h16p(2, 3, 4, 1))",
	   qpu_emit_vdr_setup(e, 0, 1, 1, 2, QPU_VPM_H16, 3, 4, 1));
	EQ("ldi vr_setup, vdr_setup_0(0, 1, 1, vdr_h8p(2, 3, 4, 3))",
	   qpu_emit_vdr_setup(e, 0, 1, 1, 2, QPU_VPM_H8, 3, 4, 3));
	EQ("ldi vr_setup, vdr_setup_0(0, 1, 1, vdr_v32(2, 3, 4))",
	   qpu_emit_vdr_setup(e, 0, 1, 1, 2, QPU_VPM_V32, 3, 4, 0));
	EQ("ldi vr_setup, vdr_setup_0(0, 1, 1, vdr_v16p(2, 3, 4, 1))",
	   qpu_emit_vdr_setup(e, 0, 1, 1, 2, QPU_VPM_V16, 3, 4, 1));
	EQ("ldi vr_setup, vdr_setup_0(0, 1, 1, vdr_v8p(2, 3, 4, 2))",
	   qpu_emit_vdr_setup(e, 0, 1, 1, 2, QPU_VPM_V8, 3, 4, 2));
	EQ("ldi vr_setup, vdr_setup_1(64)", qpu_emit_vdr_stride(e, 64));
	EQ("ldi vr_setup, vdr_setup_1(12288)", qpu_emit_vdr_stride(e, 12288));
	EQ("ldi vr_setup, vdr_setup_1(65535)", qpu_emit_vdr_stride(e, 65535));
}

/*
 * The core's setup-word functions against the text assembler's functions of
 * the same names, on random arguments, out-of-range ones included: both
 * mask each argument to its field.
 */
static uint32_t vpm_word(const char *fn, const uint32_t *x)
{
	static const struct {
		const char *name;
		bool horiz, laned;
		enum qpu_vpm_size size;
	} addr[] = {
		{ "h32", 1, 0, QPU_VPM_SIZE_32 }, { "h16", 1, 0, QPU_VPM_SIZE_16 },
		{ "h16p", 1, 0, QPU_VPM_SIZE_16 }, { "h16l", 1, 1, QPU_VPM_SIZE_16 },
		{ "h8", 1, 0, QPU_VPM_SIZE_8 }, { "h8p", 1, 0, QPU_VPM_SIZE_8 },
		{ "h8l", 1, 1, QPU_VPM_SIZE_8 }, { "v32", 0, 0, QPU_VPM_SIZE_32 },
		{ "v16", 0, 0, QPU_VPM_SIZE_16 }, { "v16p", 0, 0, QPU_VPM_SIZE_16 },
		{ "v16l", 0, 1, QPU_VPM_SIZE_16 }, { "v8", 0, 0, QPU_VPM_SIZE_8 },
		{ "v8p", 0, 0, QPU_VPM_SIZE_8 }, { "v8l", 0, 1, QPU_VPM_SIZE_8 },
		{ "dma_h32", 1, 0, QPU_VPM_SIZE_32 }, { "dma_h16p", 1, 0, QPU_VPM_SIZE_16 },
		{ "dma_h8p", 1, 0, QPU_VPM_SIZE_8 }, { "dma_v32", 0, 0, QPU_VPM_SIZE_32 },
		{ "dma_v16p", 0, 0, QPU_VPM_SIZE_16 }, { "dma_v8p", 0, 0, QPU_VPM_SIZE_8 },
		{ "vdr_h32", 1, 0, QPU_VPM_SIZE_32 }, { "vdr_h16p", 1, 0, QPU_VPM_SIZE_16 },
		{ "vdr_h8p", 1, 0, QPU_VPM_SIZE_8 }, { "vdr_v32", 0, 0, QPU_VPM_SIZE_32 },
		{ "vdr_v16p", 0, 0, QPU_VPM_SIZE_16 }, { "vdr_v8p", 0, 0, QPU_VPM_SIZE_8 },
	};
	unsigned int i;

	if (!strcmp(fn, "vpm_setup"))
		return qpu_vpm_setup(x[0], x[1], x[2]);
	if (!strcmp(fn, "vdw_setup_0"))
		return qpu_vdw_setup0(x[0], x[1], x[2]);
	if (!strcmp(fn, "vdw_setup_1"))
		return qpu_vdw_setup1(x[0]);
	if (!strcmp(fn, "vdr_setup_0"))
		return qpu_vdr_setup0(x[0], x[1], x[2], x[3]);
	if (!strcmp(fn, "vdr_setup_1"))
		return qpu_vdr_setup1(x[0]);
	for (i = 0; i < T_ARRAY_SIZE(addr); i++) {
		bool part = addr[i].size != QPU_VPM_SIZE_32;

		if (strcmp(fn, addr[i].name))
			continue;
		if (!strncmp(fn, "vdr_", 4))	/* vpitch, y, x[, part] */
			return qpu_vdr_dma(addr[i].horiz, addr[i].size, x[0], x[1], x[2],
					   part ? x[3] : 0);
		if (!strncmp(fn, "dma_", 4))	/* y, x[, part] */
			return qpu_vdw_dma(addr[i].horiz, addr[i].size, x[0], x[1],
					   part ? x[2] : 0);
		if (addr[i].horiz)		/* y[, part] */
			return qpu_vpm_addr(1, addr[i].laned, addr[i].size, x[0], 0,
					    part ? x[1] : 0);
		/* y, x[, part] */
		return qpu_vpm_addr(0, addr[i].laned, addr[i].size, x[0], x[1],
				    part ? x[2] : 0);
	}
	return 0xdeadbeef;
}

T_TEST(vpm_words)
{
	static const struct {
		const char *name;
		unsigned int nargs;
	} fns[] = {
		{ "vpm_setup", 3 }, { "h32", 1 }, { "h16", 2 }, { "h16p", 2 },
		{ "h16l", 2 }, { "h8", 2 }, { "h8p", 2 }, { "h8l", 2 }, { "v32", 2 },
		{ "v16", 3 }, { "v16p", 3 }, { "v16l", 3 }, { "v8", 3 }, { "v8p", 3 },
		{ "v8l", 3 }, { "vdw_setup_0", 3 }, { "vdw_setup_1", 1 },
		{ "dma_h32", 2 }, { "dma_h16p", 3 }, { "dma_h8p", 3 }, { "dma_v32", 2 },
		{ "dma_v16p", 3 }, { "dma_v8p", 3 }, { "vdr_setup_0", 4 },
		{ "vdr_setup_1", 1 }, { "vdr_h32", 3 }, { "vdr_h16p", 4 },
		{ "vdr_h8p", 4 }, { "vdr_v32", 3 }, { "vdr_v16p", 4 }, { "vdr_v8p", 4 },
	};
	uint64_t rng = 0x5e7ab0de5eed0003ull;
	unsigned int f, k, a;

	for (f = 0; f < T_ARRAY_SIZE(fns); f++) {
		for (k = 0; k < 40; k++) {
			uint32_t x[4];
			char text[160], msg[128];
			int len;
			uint64_t w;

			len = snprintf(text, sizeof(text), "ldi r0, %s(", fns[f].name);
			for (a = 0; a < fns[f].nargs; a++) {
				/* small values mostly, any 16-bit value now and then */
				x[a] = (uint32_t)(t_rand(&rng) >> 40) & (k % 4 ? 0xff : 0xffff);
				len += snprintf(text + len, sizeof(text) - len, "%s%u",
						a ? ", " : "", x[a]);
			}
			snprintf(text + len, sizeof(text) - len, ")");
			t_checks++;
			if (qpu_asm_line(text, &w, msg, sizeof(msg))) {
				t_report(__FILE__, __LINE__, text);
				continue;
			}
			if ((uint32_t)w != vpm_word(fns[f].name, x)) {
				char m[300];

				snprintf(m, sizeof(m), "%s: asm 0x%08x, core 0x%08x", text,
					 (uint32_t)w, vpm_word(fns[f].name, x));
				t_report(__FILE__, __LINE__, m);
			}
		}
	}
}

/* A whole program with labels against the text assembler's. */
T_TEST(labels)
{
	static const char text[] =
		"	mov ra1, unif\n"
		"	brr -, start\n"
		"	nop\n	nop\n	nop\n"
		"back:\n"
		"	nop; thrend\n	nop\n	nop\n"
		"start:\n"
		"loop:\n"
		"	sub.setf ra1, ra1, 1\n"
		"	brr.anynz -, loop\n"
		"	nop\n	nop\n	nop\n"
		"	brr ra0, back\n"
		"	brr.allz -, start\n"
		"	nop\n	nop\n";
	struct qpu_emit *e = qpu_emit_new();
	struct qpu_asm *as = qpu_asm_new();
	const uint64_t *want, *got;
	size_t nwant = 0, ngot = 0, i;

	T_CHECK(e && as);
	if (!e || !as)
		return;
	qpu_emit_mov(e, QPU_RA(1), QPU_UNIF);
	qpu_emit_brr(e, QPU_BR_ALWAYS, "start");	/* forward */
	qpu_emit_nop(e);
	qpu_emit_nop(e);
	qpu_emit_nop(e);
	qpu_emit_label(e, "back");
	T_EQ_U64(5, qpu_emit_count(e));
	qpu_emit_thrend(e);
	qpu_emit_label(e, "start");
	qpu_emit_label(e, "loop");			/* two names, one place */
	qpu_emit_isub(e, QPU_RA(1), QPU_RA(1), qpu_imm(1));
	qpu_emit_setf(e);
	qpu_emit_brr(e, QPU_BR_ANY_ZC, "loop");	/* backward */
	qpu_emit_nop(e);
	qpu_emit_nop(e);
	qpu_emit_nop(e);
	qpu_emit_brr(e, QPU_BR_ALWAYS, "back");
	qpu_emit_branch_link(e, QPU_RA(0));
	qpu_emit_brr(e, QPU_BR_ALL_ZS, "start");
	qpu_emit_nop(e);
	qpu_emit_nop(e);
	T_EQ_U64(17, qpu_emit_count(e));
	T_CHECK(!qpu_emit_words(e, &ngot));
	T_EQ_U64(0, ngot);
	T_EQ_U64(0, qpu_emit_finish(e));
	T_EQ_U64(0, qpu_emit_finish(e));	/* again: the same answer */
	T_CHECK(!qpu_emit_error(e, NULL));
	got = qpu_emit_words(e, &ngot);
	T_EQ_U64(0, qpu_asm_string(as, "labels", text));
	nwant = qpu_asm_words(as, &want);
	T_EQ_U64(nwant, ngot);
	for (i = 0; got && i < nwant && i < ngot; i++)
		T_EQ_U64(want[i], got[i]);
	qpu_asm_free(as);
	qpu_emit_free(e);

	/* an empty program is a program */
	e = qpu_emit_new();
	T_EQ_U64(0, qpu_emit_finish(e));
	T_CHECK(qpu_emit_words(e, &ngot) != NULL);
	T_EQ_U64(0, ngot);
	qpu_emit_free(e);
	qpu_emit_free(NULL);
}

/* Many words: the storage grows and keeps them in order. */
T_TEST(long)
{
	struct qpu_emit *e = qpu_emit_new();
	const uint64_t *w;
	uint64_t want;
	size_t n, i;
	char name[64], msg[64];

	for (i = 0; i < 5000; i++) {
		qpu_emit_ldi(e, QPU_R0, (uint32_t)i);
		if (i == 100 || i == 300)
			qpu_emit_label(e, "x");
	}
	T_EQ_U64(-EINVAL, qpu_emit_finish(e));
	T_CHECK(qpu_emit_error(e, &n) && strstr(qpu_emit_error(e, NULL),
		"instruction 301: label 'x' is already defined (instruction 101)"));
	T_EQ_U64(301, n);
	qpu_emit_free(e);

	e = qpu_emit_new();
	for (i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "l%zu", i);
		qpu_emit_label(e, name);
		qpu_emit_ldi(e, QPU_R0, (uint32_t)i);
		qpu_emit_brr(e, QPU_BR_ALWAYS, name);
	}
	T_EQ_U64(0, qpu_emit_finish(e));
	w = qpu_emit_words(e, &n);
	T_EQ_U64(10000, n);
	for (i = 0; w && i < 5000; i++) {
		snprintf(name, sizeof(name), "ldi r0, %zu", i);
		T_CHECK(!qpu_asm_line(name, &want, msg, sizeof(msg)));
		T_EQ_U64(want, w[2 * i]);
		T_CHECK(!qpu_asm_line("brr -, -40", &want, msg, sizeof(msg)));
		T_EQ_U64(want, w[2 * i + 1]);
	}
	qpu_emit_free(e);
}

T_TEST(errors)
{
	static const int bad_pes[16] = { [7] = 2 };
	static const int bad_peu[16] = { [15] = -1 };

	/* operations and modifiers */
	ERR(0, "unknown add operation 9", qpu_emit_add(e, 9, QPU_R0, QPU_R1, QPU_R2));
	ERR(0, "unknown add operation 40", qpu_emit_add(e, 40, QPU_R0, QPU_R1, QPU_R2));
	ERR(1, "unknown mul operation 8", qpu_emit_nop(e);
	    qpu_emit_mul(e, 8, QPU_R0, QPU_R1, QPU_R2));
	ERR(0, "dual add: there is no instruction to change",
	    qpu_emit_dual_add(e, QPU_ADD_FADD, QPU_R0, QPU_R1, QPU_R2));
	ERR(0, "cond: there is no instruction to change", qpu_emit_cond(e, QPU_COND_ZS));
	ERR(0, "setf: there is no instruction to change", qpu_emit_setf(e));
	ERR(0, "sig: there is no instruction to change", qpu_emit_sig(e, QPU_SIG_THREND));
	ERR(0, "read: there is no instruction to change", qpu_emit_read(e, QPU_R0));
	ERR(0, "second destination: there is no", qpu_emit_ldi_dest2(e, QPU_R0));
	ERR(0, "branch register: there is no", qpu_emit_branch_reg(e, QPU_RA(0)));
	ERR(0, "branch link: there is no", qpu_emit_branch_link(e, QPU_RA(0)));
	ERR(0, "the last instruction is no ALU instruction", qpu_emit_ldi(e, QPU_R0, 1);
	    qpu_emit_dual_mul(e, QPU_MUL_FMUL, QPU_R0, QPU_R1, QPU_R2));
	ERR(0, "the mul ALU of the last instruction is already used",
	    qpu_emit_fmul(e, QPU_R0, QPU_R1, QPU_R2);
	    qpu_emit_dual_mul(e, QPU_MUL_FMUL, QPU_R0, QPU_R1, QPU_R2));
	ERR(0, "the add ALU of the last instruction is already used",
	    qpu_emit_fadd(e, QPU_R0, QPU_R1, QPU_R2);
	    qpu_emit_dual_add(e, QPU_ADD_FADD, QPU_R0, QPU_R1, QPU_R2));
	ERR(0, "unknown condition 8", qpu_emit_fadd(e, QPU_R0, QPU_R1, QPU_R2);
	    qpu_emit_cond(e, 8));
	ERR(0, "a branch has no write condition", qpu_emit_bra(e, QPU_BR_ALWAYS, 0);
	    qpu_emit_cond(e, QPU_COND_ZS));
	ERR(0, "a raw word has no write condition", qpu_emit_raw(e, 0);
	    qpu_emit_cond(e, QPU_COND_ZS));
	ERR(0, "a condition needs a destination", qpu_emit_nop(e);
	    qpu_emit_cond(e, QPU_COND_ZS));
	ERR(0, "a nop cannot set flags", qpu_emit_nop(e); qpu_emit_setf(e));
	ERR(0, "only one ALU can set the flags", qpu_emit_fadd(e, QPU_R0, QPU_R1, QPU_R2);
	    qpu_emit_setf(e); qpu_emit_dual_mul(e, QPU_MUL_FMUL, QPU_R0, QPU_R1, QPU_R2);
	    qpu_emit_setf(e));
	ERR(0, "the mul ALU sets flags only when the add ALU is idle",
	    qpu_emit_fmul(e, QPU_R0, QPU_R1, QPU_R2); qpu_emit_setf(e);
	    qpu_emit_dual_add(e, QPU_ADD_FADD, QPU_R3, QPU_R1, QPU_R2));
	ERR(0, "a branch cannot set flags", qpu_emit_bra(e, QPU_BR_ALWAYS, 0);
	    qpu_emit_setf(e));
	ERR(0, "a raw word cannot set flags", qpu_emit_raw(e, 0); qpu_emit_setf(e));
	ERR(0, "only an ALU instruction carries a signal", qpu_emit_ldi(e, QPU_R0, 1);
	    qpu_emit_sig(e, QPU_SIG_THREND));
	ERR(0, "unknown signal 13", qpu_emit_nop(e); qpu_emit_sig(e, 13));
	ERR(0, "only one signal per instruction", qpu_emit_nop(e);
	    qpu_emit_sig(e, QPU_SIG_THREND); qpu_emit_sig(e, QPU_SIG_LDTMU0));
	ERR(0, "a signal cannot be used with a small immediate or rotation",
	    qpu_emit_iadd(e, QPU_R0, QPU_R1, qpu_imm(1)); qpu_emit_sig(e, QPU_SIG_THREND));
	ERR(0, "a signal cannot be used with a small immediate or rotation",
	    qpu_emit_rotate(e, QPU_R0, QPU_R1, 1); qpu_emit_sig(e, QPU_SIG_THREND));
	ERR(0, "only an ALU instruction can read", qpu_emit_bra(e, QPU_BR_ALWAYS, 0);
	    qpu_emit_read(e, QPU_R0));
	ERR(0, "too many reads", qpu_emit_nop(e); qpu_emit_read(e, QPU_RA(1));
	    qpu_emit_read(e, QPU_RB(1)); qpu_emit_read(e, QPU_R0));
	ERR(0, "a read takes no pack, unpack or rotation", qpu_emit_nop(e);
	    qpu_emit_read(e, qpu_unpack(QPU_RA(1), QPU_UNPACK_16A)));

	/* operands */
	ERR(0, "r4 cannot be written", qpu_emit_mov(e, QPU_R4, QPU_R0));
	ERR(0, "unif cannot be written", qpu_emit_mov(e, QPU_UNIF, QPU_R0));
	ERR(0, "elem_num cannot be written", qpu_emit_mov(e, QPU_ELEM_NUM, QPU_R0));
	ERR(0, "a small immediate cannot be written", qpu_emit_mov(e, qpu_imm(1), QPU_R0));
	ERR(0, "vw_setup cannot be read", qpu_emit_mov(e, QPU_R0, QPU_VW_SETUP));
	ERR(0, "t0s cannot be read", qpu_emit_mov(e, QPU_R0, QPU_TMU0_S));
	ERR(0, "is not a register", qpu_emit_mov(e, QPU_RA(64), QPU_R0));
	ERR(0, "is not a register", qpu_emit_mov(e, QPU_R0, QPU_RB(70)));
	ERR(0, "is not a register",
	    qpu_emit_mov(e, QPU_R0, qpu_reg_make(QPU_REG_ACC, 6, QPU_REG_RW)));
	ERR(0, "is not a register",
	    qpu_emit_mov(e, qpu_reg_make(QPU_REG_AB, 3, QPU_REG_RW), QPU_R0));
	ERR(0, "is not a register",
	    qpu_emit_mov(e, QPU_R0, qpu_reg_make(9, 3, QPU_REG_RW)));
	ERR(0, "value cannot be a small immediate",
	    qpu_emit_iadd(e, QPU_R0, QPU_R1, qpu_imm(16)));
	ERR(0, "value cannot be a small immediate",
	    qpu_emit_fmul(e, QPU_R0, QPU_R1, qpu_immf(3.0f)));
	ERR(0, "only one small immediate per instruction",
	    qpu_emit_iadd(e, QPU_R0, qpu_imm(2), qpu_imm(1)));
	ERR(0, "regfile B is already read", qpu_emit_iadd(e, QPU_R0, QPU_RB(2), qpu_imm(1)));
	ERR(0, "regfile B is taken by a small immediate",
	    qpu_emit_iadd(e, QPU_R0, qpu_imm(1), QPU_RB(2)));
	ERR(0, "regfile A is already read at another address",
	    qpu_emit_iadd(e, QPU_R0, QPU_RA(1), QPU_RA(2)));
	ERR(0, "regfile B is already read at another address",
	    qpu_emit_iadd(e, QPU_R0, QPU_RB(1), QPU_RB(2)));
	ERR(0, "no free register file to read 'vpm'",
	    qpu_emit_iadd(e, QPU_R0, QPU_RA(1), QPU_RB(2)); qpu_emit_read(e, QPU_VPM));
	ERR(0, "a destination cannot be unpacked",
	    qpu_emit_mov(e, qpu_unpack(QPU_RA(1), QPU_UNPACK_16A), QPU_R0));
	ERR(0, "a destination cannot be rotated", qpu_emit_mov(e, qpu_rot(QPU_R0, 1), QPU_R0));
	ERR(0, "a source cannot be packed",
	    qpu_emit_mov(e, QPU_R0, qpu_pack(QPU_RA(1), QPU_PACK_16A)));
	ERR(0, "unknown unpack 8", qpu_emit_mov(e, QPU_R0, qpu_unpack(QPU_RA(1), 8)));
	ERR(0, "unpack needs r4 or a regfile A register",
	    qpu_emit_mov(e, QPU_R0, qpu_unpack(QPU_R1, QPU_UNPACK_16A)));
	ERR(0, "only one unpack per instruction",
	    qpu_emit_iadd(e, QPU_R0, qpu_unpack(QPU_RA(1), QPU_UNPACK_16A),
			  qpu_unpack(QPU_RA(1), QPU_UNPACK_16B)));
	ERR(0, "pack and unpack need different pm modes",
	    qpu_emit_iadd(e, qpu_pack(QPU_RA(2), QPU_PACK_16A),
			  qpu_unpack(QPU_R4, QPU_UNPACK_8A), QPU_R1));
	ERR(0, "pack and unpack need different pm modes",
	    qpu_emit_fmul(e, qpu_pack(QPU_R0, QPU_PACK_MUL_8888),
			  qpu_unpack(QPU_RA(1), QPU_UNPACK_16A), QPU_R1));
	ERR(0, "the add ALU has no float pack",
	    qpu_emit_fadd(e, qpu_pack(QPU_R0, QPU_PACK_MUL_8888), QPU_R1, QPU_R2));
	ERR(0, "pack needs a regfile A register",
	    qpu_emit_fadd(e, qpu_pack(QPU_RB(1), QPU_PACK_16A), QPU_R1, QPU_R2));
	ERR(0, "pack needs a regfile A register",
	    qpu_emit_fadd(e, qpu_pack(QPU_R0, QPU_PACK_16A), QPU_R1, QPU_R2));
	ERR(0, "pack needs a regfile A register",
	    qpu_emit_fmul(e, qpu_pack(QPU_RB(1), QPU_PACK_16A), QPU_R1, QPU_R2));
	ERR(0, "only one pack per instruction",
	    qpu_emit_fadd(e, qpu_pack(QPU_RA(1), QPU_PACK_16A), QPU_R1, QPU_R2);
	    qpu_emit_dual_mul(e, QPU_MUL_FMUL, qpu_pack(QPU_R0, QPU_PACK_MUL_8888),
			      QPU_R1, QPU_R2));
	ERR(0, "unknown pack 17", qpu_emit_fmul(e, qpu_pack(QPU_R0, 17), QPU_R1, QPU_R2));
	ERR(0, "unknown pack 40", qpu_emit_fmul(e, qpu_pack(QPU_R0, 40), QPU_R1, QPU_R2));
	ERR(0, "the two destinations need different register files",
	    qpu_emit_fadd(e, QPU_RA(1), QPU_R1, QPU_R2);
	    qpu_emit_dual_mul(e, QPU_MUL_FMUL, QPU_RA(2), QPU_R1, QPU_R2));
	ERR(0, "only mul ALU inputs can be rotated",
	    qpu_emit_fadd(e, QPU_R0, qpu_rot(QPU_R1, 2), QPU_R2));
	ERR(0, "only mul ALU inputs can be rotated",
	    qpu_emit_fadd(e, QPU_R0, QPU_R1, qpu_rot(QPU_R2, 2)));
	ERR(0, "rotation out of range", qpu_emit_fmul(e, QPU_R0, qpu_rot(QPU_R1, 16), QPU_R2));
	ERR(0, "rotation out of range", qpu_emit_rotate(e, QPU_R0, QPU_R1, 0));
	ERR(2, "rotation out of range", qpu_emit_nop(e); qpu_emit_nop(e);
	    qpu_emit_rotate(e, QPU_R0, QPU_R1, 16));
	ERR(0, "both mul inputs need the same rotation",
	    qpu_emit_fmul(e, QPU_R0, qpu_rot(QPU_R1, 1), qpu_rot(QPU_R2, 2)));
	ERR(0, "a rotation needs regfile B unused",
	    qpu_emit_fmul(e, QPU_R0, qpu_rot(QPU_R1, 1), QPU_RB(2)));
	ERR(0, "a rotation needs regfile B unused",
	    qpu_emit_fadd(e, QPU_R0, QPU_R1, qpu_imm(2));
	    qpu_emit_dual_mul(e, QPU_MUL_FMUL, QPU_R0, qpu_rot(QPU_R1, 1), QPU_R2));

	/* load immediates and semaphores */
	ERR(0, "element 7 out of range: 2", qpu_emit_ldi_pes(e, QPU_R0, bad_pes));
	ERR(0, "element 15 out of range: -1", qpu_emit_ldi_peu(e, QPU_R0, bad_peu));
	ERR(0, "the last instruction is no load immediate or semaphore",
	    qpu_emit_nop(e); qpu_emit_ldi_dest2(e, QPU_R0));
	ERR(0, "the second destination is already set", qpu_emit_ldi(e, QPU_RA(0), 1);
	    qpu_emit_ldi_dest2(e, QPU_RB(0)); qpu_emit_ldi_dest2(e, QPU_RB(1)));
	ERR(0, "the add ALU has no float pack",
	    qpu_emit_ldi(e, qpu_pack(QPU_R0, QPU_PACK_MUL_8A), 1));
	ERR(1, "semaphore number out of range: 16", qpu_emit_nop(e); qpu_emit_sacq(e, 16));
	ERR(0, "semaphore number out of range: 99", qpu_emit_srel(e, 99));

	/* branches and labels */
	ERR(0, "unknown branch condition 12", qpu_emit_bra(e, 12, 0));
	ERR(0, "unknown branch condition 16", qpu_emit_brr_offset(e, 16, 0));
	ERR(0, "a label needs a name", qpu_emit_brr(e, QPU_BR_ALWAYS, NULL));
	ERR(0, "a label needs a name", qpu_emit_brr(e, QPU_BR_ALWAYS, ""));
	ERR(1, "a label needs a name", qpu_emit_nop(e); qpu_emit_label(e, NULL));
	ERR(0, "the last instruction is no branch", qpu_emit_nop(e);
	    qpu_emit_branch_reg(e, QPU_RA(1)));
	ERR(0, "the last instruction is no branch", qpu_emit_nop(e);
	    qpu_emit_branch_link(e, QPU_RA(1)));
	ERR(0, "expected a regfile A register ra0..ra31", qpu_emit_bra(e, QPU_BR_ALWAYS, 0);
	    qpu_emit_branch_reg(e, QPU_RB(1)));
	ERR(0, "expected a regfile A register ra0..ra31", qpu_emit_bra(e, QPU_BR_ALWAYS, 0);
	    qpu_emit_branch_reg(e, QPU_RA(32)));
	ERR(0, "branch destinations take no pack", qpu_emit_bra(e, QPU_BR_ALWAYS, 0);
	    qpu_emit_branch_link(e, qpu_pack(QPU_RA(1), QPU_PACK_16A)));
	ERR(0, "r5 cannot be written", qpu_emit_bra(e, QPU_BR_ALWAYS, 0);
	    qpu_emit_branch_link(e, QPU_R5));
	ERR(2, "label 'a' is already defined (instruction 1)", qpu_emit_nop(e);
	    qpu_emit_label(e, "a"); qpu_emit_nop(e); qpu_emit_label(e, "a"));
	ERR(3, "label 'nowhere' is not defined", qpu_emit_nop(e); qpu_emit_label(e, "x");
	    qpu_emit_nop(e); qpu_emit_nop(e); qpu_emit_brr(e, QPU_BR_ALWAYS, "nowhere");
	    qpu_emit_brr(e, QPU_BR_ALWAYS, "x"); qpu_emit_brr(e, QPU_BR_ALWAYS, "other"));

	/* VPM and DMA setup arguments */
	ERR(0, "num 0 out of range 1..16",
	    qpu_emit_vpm_read_setup(e, 0, 1, QPU_VPM_H32, 0, 0, 0));
	ERR(1, "stride 65 out of range 1..64", qpu_emit_nop(e);
	    qpu_emit_vpm_read_setup(e, 1, 65, QPU_VPM_H32, 0, 0, 0));
	ERR(0, "stride 0 out of range 1..64",
	    qpu_emit_vpm_write_setup(e, 0, QPU_VPM_H32, 0, 0, 0));
	ERR(0, "VPM mode 3 is not valid here", qpu_emit_vpm_write_setup(e, 1, 3, 0, 0, 0));
	ERR(0, "VPM mode 6 is not valid here", qpu_emit_vpm_write_setup(e, 1, 6, 0, 0, 0));
	ERR(0, "VPM mode 14 is not valid here", qpu_emit_vpm_write_setup(e, 1, 14, 0, 0, 0));
	ERR(0, "VPM mode 12 is not valid for DMA",
	    qpu_emit_vdw_setup(e, 1, 16, QPU_VPM_H8L, 0, 0, 0));
	ERR(0, "part 1 out of range 0..0",
	    qpu_emit_vpm_write_setup(e, 1, QPU_VPM_H32, 0, 0, 1));
	ERR(0, "part 2 out of range 0..1",
	    qpu_emit_vpm_write_setup(e, 1, QPU_VPM_H16, 0, 0, 2));
	ERR(0, "part 4 out of range 0..3",
	    qpu_emit_vpm_write_setup(e, 1, QPU_VPM_V8, 0, 0, 4));
	ERR(0, "y 64 out of range 0..63",
	    qpu_emit_vpm_write_setup(e, 1, QPU_VPM_H32, 64, 0, 0));
	ERR(0, "x 1 out of range 0..0",
	    qpu_emit_vpm_write_setup(e, 1, QPU_VPM_H32, 0, 1, 0));
	ERR(0, "x 16 out of range 0..15",
	    qpu_emit_vpm_write_setup(e, 1, QPU_VPM_V32, 0, 16, 0));
	ERR(0, "y 64 out of range 0..48",
	    qpu_emit_vpm_write_setup(e, 1, QPU_VPM_V32, 64, 0, 0));
	ERR(0, "y 8 of a vertical access is no multiple of 16",
	    qpu_emit_vpm_write_setup(e, 1, QPU_VPM_V32, 8, 0, 0));
	ERR(0, "units 0 out of range 1..128",
	    qpu_emit_vdw_setup(e, 0, 16, QPU_VPM_H32, 0, 0, 0));
	ERR(0, "depth 129 out of range 1..128",
	    qpu_emit_vdw_setup(e, 1, 129, QPU_VPM_H32, 0, 0, 0));
	ERR(0, "y 128 out of range 0..127",
	    qpu_emit_vdw_setup(e, 1, 16, QPU_VPM_H32, 128, 0, 0));
	ERR(0, "x 16 out of range 0..15",
	    qpu_emit_vdw_setup(e, 1, 16, QPU_VPM_H32, 0, 16, 0));
	ERR(0, "stride 65536 out of range 0..65535", qpu_emit_vdw_stride(e, 65536));
	ERR(0, "stride 70000 out of range 0..65535", qpu_emit_vdr_stride(e, 70000));
	ERR(0, "mpitch 16 out of range 0..15",
	    qpu_emit_vdr_setup(e, 16, 16, 1, 1, QPU_VPM_H32, 0, 0, 0));
	ERR(0, "rowlen 0 out of range 1..16",
	    qpu_emit_vdr_setup(e, 0, 0, 1, 1, QPU_VPM_H32, 0, 0, 0));
	ERR(0, "nrows 17 out of range 1..16",
	    qpu_emit_vdr_setup(e, 0, 16, 17, 1, QPU_VPM_H32, 0, 0, 0));
	ERR(0, "vpitch 0 out of range 1..16",
	    qpu_emit_vdr_setup(e, 0, 16, 1, 0, QPU_VPM_H32, 0, 0, 0));
	ERR(0, "VPM mode 13 is not valid for DMA",
	    qpu_emit_vdr_setup(e, 0, 16, 1, 1, QPU_VPM_H16L, 0, 0, 0));

	/* after the first error nothing changes, after finish nothing is added */
	ERR(1, "unif cannot be written", qpu_emit_nop(e); qpu_emit_mov(e, QPU_UNIF, QPU_R0);
	    qpu_emit_nop(e); qpu_emit_mov(e, QPU_R4, QPU_R0); qpu_emit_label(e, "");
	    qpu_emit_brr(e, QPU_BR_ALWAYS, "nowhere"); qpu_emit_setf(e));
	{
		struct qpu_emit *e = qpu_emit_new();
		const uint64_t *w;
		size_t n, index;

		qpu_emit_nop(e);
		T_EQ_U64(0, qpu_emit_finish(e));
		qpu_emit_nop(e);
		qpu_emit_label(e, "late");
		T_EQ_U64(-EINVAL, qpu_emit_finish(e));
		T_CHECK(qpu_emit_error(e, &index) &&
			strstr(qpu_emit_error(e, NULL), "the program is finished"));
		T_EQ_U64(1, index);
		w = qpu_emit_words(e, &n);
		T_CHECK(!w);
		T_EQ_U64(0, n);
		qpu_emit_free(e);

		e = qpu_emit_new();
		qpu_emit_nop(e);
		T_EQ_U64(0, qpu_emit_finish(e));
		qpu_emit_setf(e);
		T_CHECK(qpu_emit_error(e, NULL) &&
			strstr(qpu_emit_error(e, NULL), "instruction 1: the program is finished"));
		qpu_emit_free(e);
	}
}

/* ---- on the emulator ------------------------------------------------------ */

#define ROWS	5

/*
 * Each element of row 0: elem * 10 + 7 through a counted loop and a linked
 * subroutine call; row 1: a per-element signed load; row 2: elem_num
 * rotated by 3; row 3: a 16-bit unpack, a float product and conversions;
 * row 4: after two releases and two acquires of a semaphore, 1.
 */
static struct qpu_emit *program(void)
{
	static const int pes[16] = { 1, 0, -1, -2, 1, 1, 0, 0, -2, -2, -1, 1, 0, 1, -1, 0 };
	struct qpu_emit *e = qpu_emit_new();

	qpu_emit_mov(e, QPU_RA(2), QPU_UNIF);			/* output address */
	qpu_emit_mov(e, QPU_R0, QPU_ELEM_NUM);
	qpu_emit_ldi(e, QPU_RA(1), 10);
	qpu_emit_mov(e, QPU_R1, qpu_imm(0));
	qpu_emit_label(e, "loop");
	qpu_emit_iadd(e, QPU_R1, QPU_R1, QPU_R0);
	qpu_emit_isub(e, QPU_RA(1), QPU_RA(1), qpu_imm(1));
	qpu_emit_setf(e);
	qpu_emit_brr(e, QPU_BR_ANY_ZC, "loop");
	qpu_emit_nop(e);
	qpu_emit_nop(e);
	qpu_emit_nop(e);
	qpu_emit_brr(e, QPU_BR_ALWAYS, "add7");			/* call */
	qpu_emit_branch_link(e, QPU_RA(0));
	qpu_emit_nop(e);
	qpu_emit_nop(e);
	qpu_emit_nop(e);

	qpu_emit_vdw_stride(e, 0);
	qpu_emit_vpm_write_setup(e, 1, QPU_VPM_H32, 0, 0, 0);
	qpu_emit_mov(e, QPU_VPM, QPU_R1);
	qpu_emit_ldi_pes(e, QPU_VPM, pes);
	qpu_emit_rotate(e, QPU_VPM, QPU_R0, 3);
	/* elem to the top half of ra3, unpacked, doubled as a float: 2 * elem */
	qpu_emit_shl(e, QPU_R2, QPU_R0, qpu_imm(-16));	/* shifts by 16 */
	qpu_emit_bor(e, QPU_RA(3), QPU_R2, qpu_imm(3));
	qpu_emit_ldi(e, QPU_RA(3), 99);
	qpu_emit_cond(e, QPU_COND_NEVER);			/* writes nothing */
	qpu_emit_nop(e);
	qpu_emit_mov(e, QPU_R3, qpu_unpack(QPU_RA(3), QPU_UNPACK_16B));
	qpu_emit_itof(e, QPU_R2, QPU_R3);
	qpu_emit_fmul(e, QPU_R2, QPU_R2, qpu_immf(2.0f));
	qpu_emit_ftoi(e, QPU_VPM, QPU_R2);
	/* semaphore 5 up twice and down twice: no wait, 1 */
	qpu_emit_srel(e, 5);
	qpu_emit_srel(e, 5);
	qpu_emit_sacq(e, 5);
	qpu_emit_mov(e, QPU_R3, qpu_imm(0));
	qpu_emit_sacq(e, 5);
	qpu_emit_iadd(e, QPU_VPM, QPU_R3, qpu_imm(1));

	qpu_emit_vdw_setup(e, ROWS, 16, QPU_VPM_H32, 0, 0, 0);
	qpu_emit_mov(e, QPU_VW_ADDR, QPU_RA(2));
	qpu_emit_nop(e);
	qpu_emit_read(e, QPU_VW_WAIT);
	qpu_emit_thrend(e);

	qpu_emit_label(e, "add7");
	qpu_emit_iadd(e, QPU_R1, QPU_R1, qpu_imm(7));
	qpu_emit_bra(e, QPU_BR_ALWAYS, 0);			/* return */
	qpu_emit_branch_reg(e, QPU_RA(0));
	qpu_emit_nop(e);
	qpu_emit_nop(e);
	qpu_emit_nop(e);
	return e;
}

T_TEST(run)
{
	static const int pes[16] = { 1, 0, -1, -2, 1, 1, 0, 0, -2, -2, -1, 1, 0, 1, -1, 0 };
	struct qpu_dev *dev = qpu_dev_open("emu");
	struct qpu_emit *e = program();
	struct qpu_bo *code, *unif, *out;
	struct qpu_program_ref prog;
	struct qpu_job_desc job = { .program_count = 1, .in_fence_fd = -1 };
	struct qpu_job_result r;
	const uint64_t *w;
	const int32_t *o;
	uint64_t seqno;
	size_t n;
	int i;

	T_CHECK(dev != NULL);
	T_EQ_U64(0, qpu_emit_finish(e));
	w = qpu_emit_words(e, &n);
	if (!dev || !w) {
		fprintf(stderr, "%s\n", qpu_emit_error(e, NULL) ? qpu_emit_error(e, NULL) : "");
		qpu_emit_free(e);
		qpu_dev_close(dev);
		return;
	}
	code = qpu_bo_new(dev, n * 8);
	unif = qpu_bo_new(dev, 4096);
	out = qpu_bo_new(dev, 4096);
	T_CHECK(code && unif && out);
	if (!code || !unif || !out)
		goto out;
	memcpy(qpu_bo_get_map(code), w, n * 8);
	*(uint32_t *)qpu_bo_get_map(unif) = qpu_bo_get_bus_addr(out);
	prog = (struct qpu_program_ref){ .code = code, .uniforms = unif };
	job.programs = &prog;
	job.bos = &out;
	job.bo_count = 1;
	T_EQ_U64(0, qpu_submit(dev, &job, &seqno));
	T_EQ_U64(0, qpu_wait(dev, seqno, 10000, &r));
	T_EQ_U64(QPU_STATUS_DONE, r.status);
	o = qpu_bo_get_map(out);
	for (i = 0; i < 16; i++) {
		T_EQ_U64(i * 10 + 7, o[i]);
		T_EQ_U64((uint32_t)pes[i], (uint32_t)o[16 + i]);
		T_EQ_U64((i + 13) % 16, o[32 + i]);	/* element i reads i - 3 */
		T_EQ_U64(2 * i, o[48 + i]);
		T_EQ_U64(1, o[64 + i]);
	}
	T_EQ_U64(0, o[16 * ROWS]);
out:
	qpu_bo_free(code);
	qpu_bo_free(unif);
	qpu_bo_free(out);
	qpu_emit_free(e);
	qpu_dev_close(dev);
}

T_MAIN()
