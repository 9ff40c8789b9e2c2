// SPDX-License-Identifier: MIT
/*
 * test-emu-stats: thread switches and the statistics. A program with a TMU
 * lookup hidden behind thrsw (and one with lthrsw) runs as a single thread
 * (registers, accumulators and the TMU FIFO survive the switch, the delay
 * slots run once); its instruction count, both-unit issues, TMU bytes and
 * the modelled TMU latency in stall_tmu are exact, and so are the stall
 * counts of two QPUs waiting beside it on a VPM read and a semaphore.
 * The same run with the predecoded-instruction cache off counts the same.
 */
#include "test-emu.h"

/*
 * QPU 0, 10 instructions:
 *  1 ldi r1, DATA_BASE + 8
 *  2 ldi r0, 7
 *  3 mov tmu0_s, r1		(request at instruction 3: ready at 13)
 *  4 nop; thrsw (@sig)
 *  5 ldi r2, 5		(delay slot)
 *  6 ldi r3, 6		(delay slot)
 *  7 nop; ldtmu0		(6 instructions early: stall_tmu 6)
 *  8 add r2, r2, r3; mul24 r3, r2, r3	(both units)
 *  9 thrend, 10..11 nops	(the program ends after 11)
 */
static void emit_switching(struct prog *p, unsigned int sig)
{
	struct qpu_isa_instr in;

	emit(p, i_ldi(W_R1, DATA_BASE + 8));
	emit(p, i_ldi(W_R0, 7));
	emit(p, i_mov(W_TMU0_S, QPU_ISA_MUX_R1));
	emit(p, i_sig(sig));
	emit(p, i_ldi(W_R2, 5));
	emit(p, i_ldi(W_R3, 6));
	emit(p, i_sig(QPU_ISA_SIG_LDTMU0));
	in = i_add(QPU_ISA_A_ADD, W_R2, QPU_ISA_MUX_R2, QPU_ISA_MUX_R3);
	in.op_mul = QPU_ISA_M_MUL24;
	in.cond_mul = QPU_ISA_COND_ALWAYS;
	in.waddr_mul = W_R3;
	in.mul_a = QPU_ISA_MUX_R2;
	in.mul_b = QPU_ISA_MUX_R3;
	emit(p, in);
	emit_end(p);
}

static void expect_acc(struct qpu_emu *emu, unsigned int r, uint32_t v)
{
	uint32_t got[16];

	T_EQ_U64(0, qpu_emu_get_reg(emu, 0, QPU_EMU_FILE_ACC, r, got));
	for (int i = 0; i < 16; i++)
		T_EQ_U64(v, got[i]);
}

static void test_thread_switch(unsigned int sig, bool predecode)
{
	struct qpu_emu *emu = t_emu_new(0);
	struct prog p = prog_at(CODE_BASE), b = prog_at(CODE_BASE + 4096);
	struct prog c = prog_at(CODE_BASE + 8192);
	const struct qpu_emu_stats *st;

	qpu_emu_set_predecode(emu, predecode);
	t_words(DATA_BASE)[2] = 0xfeedf00d;
	emit_switching(&p, sig);
	/* QPU 1 reads the VPM with no read set up; QPU 2 waits on sem 3 */
	emit(&b, i_read(R_VPM, R_NOP));
	emit_end(&b);
	emit(&c, i_sema(3, true));
	emit_end(&c);
	T_EQ_U64(0, qpu_emu_start(emu, p.addr, UNIF_BASE));
	T_EQ_U64(1, qpu_emu_start(emu, b.addr, UNIF_BASE));
	T_EQ_U64(2, qpu_emu_start(emu, c.addr, UNIF_BASE));
	T_EQ_U64(QPU_EMU_DEADLOCK, qpu_emu_run(emu, 1000));
	T_EQ_U64(QPU_EMU_QPU_IDLE, qpu_emu_get_qpu_state(emu, 0, NULL));
	T_EQ_U64(QPU_EMU_QPU_WAIT_VPM, qpu_emu_get_qpu_state(emu, 1, NULL));
	T_EQ_U64(QPU_EMU_QPU_WAIT_SEM, qpu_emu_get_qpu_state(emu, 2, NULL));
	expect_acc(emu, 0, 7);
	expect_acc(emu, 1, DATA_BASE + 8);
	expect_acc(emu, 2, 11);
	expect_acc(emu, 3, 30);
	expect_acc(emu, 4, 0xfeedf00d);

	st = qpu_emu_get_stats(emu);
	T_EQ_U64(11, st->instructions[0]);
	T_EQ_U64(0, st->instructions[1]);
	T_EQ_U64(0, st->instructions[2]);
	T_EQ_U64(1, st->both_units);
	T_EQ_U64(64, st->tmu_bytes);
	T_EQ_U64(0, st->uniform_bytes);
	T_EQ_U64(13 - 7, st->stall_tmu);
	T_EQ_U64(0, st->stall_sfu);
	/*
	 * Round-robin: QPU 0 issues, QPUs 1 and 2 try and start waiting,
	 * then every round visits both before each of QPU 0's other 10
	 * instructions but the second.
	 */
	T_EQ_U64(9, st->stall_vpm);
	T_EQ_U64(9, st->stall_sync);
	T_EQ_U64(1, st->programs_done);
	T_EQ_U64(1, qpu_emu_completed(emu));
	T_EQ_U64(0, st->dma_load_bytes);
	T_EQ_U64(0, st->dma_store_bytes);
	free(emu);
}

T_TEST(thrsw_predecoded)
{
	test_thread_switch(QPU_ISA_SIG_THRSW, true);
}

T_TEST(thrsw)
{
	test_thread_switch(QPU_ISA_SIG_THRSW, false);
}

T_TEST(lthrsw_predecoded)
{
	test_thread_switch(QPU_ISA_SIG_LTHRSW, true);
}

/* 9 instructions between request and ldtmu hide the latency; none not. */
T_TEST(tmu_latency_hidden)
{
	struct qpu_emu *emu = t_emu_new(0);
	struct prog p = prog_at(CODE_BASE);

	emit(&p, i_ldi(W_R1, DATA_BASE));
	emit(&p, i_mov(W_TMU0_S, QPU_ISA_MUX_R1));
	emit(&p, i_mov(W_TMU1_S, QPU_ISA_MUX_R1));
	for (int i = 0; i < 8; i++)
		emit(&p, i_nop());
	emit(&p, i_sig(QPU_ISA_SIG_LDTMU0));	/* 10 after its request */
	emit(&p, i_sig(QPU_ISA_SIG_LDTMU1));	/* 10 after, too */
	emit(&p, i_mov(W_TMU0_S, QPU_ISA_MUX_R1));
	emit(&p, i_sig(QPU_ISA_SIG_LDTMU0));	/* 9 too early */
	emit_end(&p);
	T_EQ_U64(QPU_EMU_IDLE, t_run1(emu, CODE_BASE, UNIF_BASE));
	T_EQ_U64(9, qpu_emu_get_stats(emu)->stall_tmu);
	T_EQ_U64(192, qpu_emu_get_stats(emu)->tmu_bytes);
	T_EQ_U64(18, qpu_emu_get_stats(emu)->instructions[0]);
	free(emu);
}

T_MAIN()
