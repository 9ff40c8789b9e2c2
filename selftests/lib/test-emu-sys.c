// SPDX-License-Identifier: MIT
/*
 * test-emu-sys: the emulator as a machine. Branches (every condition,
 * relative, absolute, register-added, link, delay slots), thread end,
 * uniforms and unif_addr, SFU results and latency, TMU FIFOs, VPM reads and
 * writes, VCD DMA loads and stores with pitches and strides, host
 * interrupts, semaphores and the mutex across QPUs, a 12-QPU vector add
 * under several interleavings, faults (memory, alignment, instruction,
 * VPM), deadlock reports, budgets and determinism.
 */
#include "test-emu.h"

#define W_HOST_INT	38
#define W_UNIF_ADDR	40
#define W_MUTEX		51
#define R_MUTEX		51

static void get(struct qpu_emu *emu, unsigned int qpu, enum qpu_emu_file f,
		unsigned int r, uint32_t *out)
{
	T_EQ_U64(0, qpu_emu_get_reg(emu, qpu, f, r, out));
}

/* Expect all 16 lanes of accumulator @r of QPU 0 to hold @v. */
static void expect_acc(struct qpu_emu *emu, unsigned int r, uint32_t v)
{
	uint32_t got[16];

	get(emu, 0, QPU_EMU_FILE_ACC, r, got);
	for (int i = 0; i < 16; i++)
		T_EQ_U64(v, got[i]);
}

T_TEST(branches)
{
	struct qpu_emu *emu = t_emu_new(0);
	struct prog p = prog_at(CODE_BASE);
	struct qpu_isa_instr in;
	uint32_t r[16];

	/* forward relative branch with link; delay slots run */
	emit(&p, i_ldi(W_R0, 1));
	in = i_branch(QPU_ISA_BR_ALWAYS, true, 4 * 8);
	in.waddr_add = 5;	/* ra5 = link */
	emit(&p, in);
	emit(&p, i_ldi(W_R1, 2));
	emit(&p, i_ldi(W_R2, 3));
	emit(&p, i_ldi(W_R3, 4));
	for (int k = 0; k < 4; k++)
		emit(&p, i_ldi(W_R0, 99));
	/* loop: r0 = 10; do r1 += 1 (in a delay slot) while --r0 */
	emit(&p, i_ldi(W_R0, 10));
	emit(&p, i_ldi(W_R1, 0));
	in = i_smi(i_add(QPU_ISA_A_SUB, W_R0, QPU_ISA_MUX_R0, QPU_ISA_MUX_B), 1);
	in.sf = true;
	emit(&p, in);
	emit(&p, i_branch(QPU_ISA_BR_ANYZC, true, (uint32_t)-40));
	emit(&p, i_smi(i_add(QPU_ISA_A_ADD, W_R1, QPU_ISA_MUX_R1,
			     QPU_ISA_MUX_B), 1));
	emit(&p, i_nop());
	emit(&p, i_nop());
	/* absolute branch plus ra1 lane 15 over two poisoned words */
	emit(&p, i_ldi(1, CODE_BASE));
	emit(&p, i_nop());
	in = i_branch(QPU_ISA_BR_ALWAYS, false, (p.n + 6) * 8);
	in.br_reg = true;
	in.raddr_a = 1;
	emit(&p, in);
	emit(&p, i_nop());
	emit(&p, i_nop());
	emit(&p, i_nop());
	emit(&p, i_ldi(W_R2, 99));
	emit(&p, i_ldi(W_R2, 99));
	emit_end(&p);
	T_EQ_U64(QPU_EMU_IDLE, t_run1(emu, CODE_BASE, UNIF_BASE));
	expect_acc(emu, 0, 0);
	expect_acc(emu, 1, 10);
	expect_acc(emu, 2, 3);
	expect_acc(emu, 3, 4);
	get(emu, 0, QPU_EMU_FILE_A, 5, r);
	T_EQ_U64(CODE_BASE + 8 + 32, r[0]);
	T_EQ_U64(CODE_BASE + 8 + 32, r[15]);
	T_EQ_U64(1, qpu_emu_completed(emu));
	free(emu);
}

/* thrend runs two more instructions, then the QPU is free again. */
T_TEST(thread_end)
{
	struct qpu_emu *emu = t_emu_new(0);
	struct prog p = prog_at(CODE_BASE);
	uint32_t pc;

	emit(&p, i_ldi(W_R3, 9));
	emit(&p, i_sig(QPU_ISA_SIG_THREND));
	emit(&p, i_ldi(W_R0, 1));
	emit(&p, i_ldi(W_R1, 2));
	emit(&p, i_ldi(W_R2, 3));
	T_EQ_U64(QPU_EMU_IDLE, t_run1(emu, CODE_BASE, UNIF_BASE));
	expect_acc(emu, 0, 1);
	expect_acc(emu, 1, 2);
	expect_acc(emu, 2, 0);
	T_EQ_U64(4, qpu_emu_get_stats(emu)->instructions[0]);
	T_EQ_U64(QPU_EMU_QPU_IDLE, qpu_emu_get_qpu_state(emu, 0, &pc));
	/* the next start takes QPU 0 again, with cleared registers */
	T_EQ_U64(0, qpu_emu_start(emu, CODE_BASE + 8, UNIF_BASE));
	T_EQ_U64(QPU_EMU_IDLE, qpu_emu_run(emu, 100));
	expect_acc(emu, 3, 0);
	T_EQ_U64(2, qpu_emu_completed(emu));
	free(emu);
}

/* Flag scenarios for the branch conditions. */
T_TEST(branch_conditions)
{
	for (unsigned int sc = 0; sc < 3; sc++) {
		for (unsigned int cond = 0; cond < 16; cond++) {
			struct qpu_emu *emu;
			struct prog p = prog_at(CODE_BASE);
			struct qpu_isa_instr in;
			uint16_t z = 0, n = 0, c = 0, f;
			bool taken;
			uint32_t r[16];

			if (cond >= 12 && cond < 15)
				continue;
			emu = t_emu_new(0);
			emit(&p, i_ldi(W_R0, 0));
			if (sc == 0) {
				in = i_ldi(W_NOP, 0);
				in.sf = true;
				z = 0xffff;
			} else if (sc == 1) {	/* elem_num - 8 */
				in = i_smi(i_add(QPU_ISA_A_SUB, W_NOP,
						 QPU_ISA_MUX_A, QPU_ISA_MUX_B),
					   8);
				in.raddr_a = R_ELEM;
				in.sf = true;
				z = 0x0100;
				n = 0x00ff;
				c = 0x00ff;
			} else {
				in = i_ldi(W_NOP, 1);
				in.sf = true;
			}
			emit(&p, in);
			emit(&p, i_branch(cond, true, 8));
			emit(&p, i_nop());
			emit(&p, i_nop());
			emit(&p, i_nop());
			emit(&p, i_ldi(W_R0, 1));	/* skipped if taken */
			emit_end(&p);
			T_EQ_U64(QPU_EMU_IDLE, t_run1(emu, CODE_BASE, UNIF_BASE));
			f = cond < 4 ? z : cond < 8 ? n : c;
			if (cond & 1)
				f = ~f;
			if (cond == 15)
				taken = true;
			else if (cond & 2)
				taken = f != 0;
			else
				taken = f == 0xffff;
			get(emu, 0, QPU_EMU_FILE_ACC, 0, r);
			t_checks++;
			if (r[0] != !taken) {
				fprintf(stderr,
					"branch cond %u scenario %u: taken %d, r0 %u\n",
					cond, sc, taken, r[0]);
				t_failures++;
			}
			free(emu);
		}
	}
}

T_TEST(uniforms_sfu_irq)
{
	struct qpu_emu *emu = t_emu_new(0);
	struct prog p = prog_at(CODE_BASE);
	uint32_t *u = t_words(UNIF_BASE);
	struct qpu_isa_instr in;

	u[0] = 11;
	u[1] = 22;
	u[2] = 33;
	u[64] = 44;
	in = i_mov(W_R0, QPU_ISA_MUX_A);
	in.raddr_a = R_UNIF;
	emit(&p, in);
	in = i_add(QPU_ISA_A_ADD, W_R1, QPU_ISA_MUX_A, QPU_ISA_MUX_B);
	in.raddr_a = R_UNIF;
	in.raddr_b = R_UNIF;	/* one pop shared by both reads: 22 + 22 */
	emit(&p, in);
	emit(&p, i_ldi(W_UNIF_ADDR, UNIF_BASE + 256));
	in = i_mov(W_R2, QPU_ISA_MUX_B);
	in.raddr_b = R_UNIF;
	emit(&p, in);
	/* unif_addr_rel -1 steps back one uniform: ra14 re-reads 44 */
	in = i_ldi(W_UNIF_ADDR, (uint32_t)-1);
	in.ws = true;
	emit(&p, in);
	in = i_mov(14, QPU_ISA_MUX_B);
	in.raddr_b = R_UNIF;
	emit(&p, in);
	/* SFU: the third instruction after the write reads the result */
	emit(&p, i_ldi(W_SFU_RECIP, t_f2u(4.0f)));
	emit(&p, i_mov(W_R3, QPU_ISA_MUX_R4));		/* hazard: old r4 */
	emit(&p, i_mov(9, QPU_ISA_MUX_R4));		/* hazard: old r4 */
	emit(&p, i_mov(10, QPU_ISA_MUX_R4));		/* ra10 = 0.25 */
	emit(&p, i_ldi(W_SFU_RSQRT, t_f2u(16.0f)));
	emit(&p, i_nop());
	emit(&p, i_nop());
	emit(&p, i_mov(11, QPU_ISA_MUX_R4));
	emit(&p, i_ldi(W_SFU_EXP, t_f2u(3.0f)));
	emit(&p, i_nop());
	emit(&p, i_nop());
	emit(&p, i_mov(12, QPU_ISA_MUX_R4));
	emit(&p, i_ldi(W_SFU_LOG, t_f2u(0.125f)));
	emit(&p, i_nop());
	emit(&p, i_nop());
	emit(&p, i_mov(13, QPU_ISA_MUX_R4));
	/* host interrupts: only non-zero values interrupt */
	emit(&p, i_ldi(W_HOST_INT, 0));
	emit(&p, i_ldi(W_HOST_INT, 1));
	emit_end(&p);
	t_irqs = 0;
	T_EQ_U64(QPU_EMU_IDLE, t_run1(emu, CODE_BASE, UNIF_BASE));
	expect_acc(emu, 0, 11);
	expect_acc(emu, 1, 44);
	expect_acc(emu, 2, 44);
	expect_acc(emu, 3, 0);
	{
		uint32_t r[16];

		get(emu, 0, QPU_EMU_FILE_A, 10, r);
		T_EQ_U64(t_f2u(0.25f), r[9]);
		get(emu, 0, QPU_EMU_FILE_A, 11, r);
		T_EQ_U64(t_f2u(0.25f), r[0]);
		get(emu, 0, QPU_EMU_FILE_A, 12, r);
		T_EQ_U64(t_f2u(8.0f), r[3]);
		get(emu, 0, QPU_EMU_FILE_A, 13, r);
		T_EQ_U64(t_f2u(-3.0f), r[15]);
		get(emu, 0, QPU_EMU_FILE_A, 14, r);
		T_EQ_U64(44, r[4]);
	}
	T_EQ_U64(2, qpu_emu_get_stats(emu)->stall_sfu);
	{
		uint32_t r[16];

		get(emu, 0, QPU_EMU_FILE_A, 9, r);
		T_EQ_U64(0, r[0]);
	}
	T_EQ_U64(1, t_irqs);
	free(emu);
}

/* r1 = elem_num * 4 */
static void emit_lane_offsets(struct prog *p)
{
	struct qpu_isa_instr in = i_smi(i_add(QPU_ISA_A_SHL, W_R1,
					      QPU_ISA_MUX_A, QPU_ISA_MUX_B), 2);

	in.raddr_a = R_ELEM;
	emit(p, in);
}

/* tmuN_s = r1 + unif */
static void emit_tmu_req(struct prog *p, unsigned int waddr)
{
	struct qpu_isa_instr in = i_add(QPU_ISA_A_ADD, waddr, QPU_ISA_MUX_R1,
					QPU_ISA_MUX_A);

	in.raddr_a = R_UNIF;
	emit(p, in);
}

T_TEST(tmu)
{
	struct qpu_emu *emu = t_emu_new(0);
	struct prog p = prog_at(CODE_BASE);
	uint32_t *u = t_words(UNIF_BASE), *d = t_words(DATA_BASE);
	struct qpu_isa_instr in;
	const struct qpu_fault *f;

	for (int i = 0; i < 64; i++)
		d[i] = 0x1000 + i;
	for (int k = 0; k < 4; k++)
		u[k] = DATA_BASE + 64 * k;
	u[4] = DATA_BASE + 2;	/* low bits ignored */
	emit_lane_offsets(&p);
	emit_tmu_req(&p, W_TMU0_S);
	emit_tmu_req(&p, W_TMU0_S);
	emit_tmu_req(&p, W_TMU1_S);
	emit_tmu_req(&p, W_TMU0_S);
	emit_tmu_req(&p, W_TMU0_S);
	emit(&p, i_sig(QPU_ISA_SIG_LDTMU1));
	in = i_mov(W_R0, QPU_ISA_MUX_R4);
	in.sig = QPU_ISA_SIG_LDTMU0;
	emit(&p, in);
	in = i_mov(W_R2, QPU_ISA_MUX_R4);
	in.sig = QPU_ISA_SIG_LDTMU0;
	emit(&p, in);
	in = i_mov(W_R3, QPU_ISA_MUX_R4);
	in.sig = QPU_ISA_SIG_LDTMU0;
	emit(&p, in);
	in = i_mov(5, QPU_ISA_MUX_R4);
	in.sig = QPU_ISA_SIG_LDTMU0;
	emit(&p, in);
	emit(&p, i_mov(6, QPU_ISA_MUX_R4));
	emit_end(&p);
	T_EQ_U64(QPU_EMU_IDLE, t_run1(emu, CODE_BASE, UNIF_BASE));
	{
		uint32_t r0[16], r2[16], r3[16], a5[16], a6[16];

		get(emu, 0, QPU_EMU_FILE_ACC, 0, r0);
		get(emu, 0, QPU_EMU_FILE_ACC, 2, r2);
		get(emu, 0, QPU_EMU_FILE_ACC, 3, r3);
		get(emu, 0, QPU_EMU_FILE_A, 5, a5);
		get(emu, 0, QPU_EMU_FILE_A, 6, a6);
		for (int i = 0; i < 16; i++) {
			T_EQ_U64(0x1000 + 32 + i, r0[i]);	/* TMU1 */
			T_EQ_U64(0x1000 + i, r2[i]);
			T_EQ_U64(0x1010 + i, r3[i]);
			T_EQ_U64(0x1030 + i, a5[i]);
			T_EQ_U64(0x1000 + i, a6[i]);
		}
	}
	T_EQ_U64(5 * 64, qpu_emu_get_stats(emu)->tmu_bytes);
	free(emu);

	/* a fifth request in one FIFO faults */
	emu = t_emu_new(0);
	p = prog_at(CODE_BASE);
	emit_lane_offsets(&p);
	for (int k = 0; k < 5; k++)
		emit_tmu_req(&p, W_TMU0_S);
	emit_end(&p);
	for (int k = 0; k < 5; k++)
		u[k] = DATA_BASE;
	T_EQ_U64(QPU_EMU_FAULT, t_run1(emu, CODE_BASE, UNIF_BASE));
	f = qpu_emu_get_fault(emu);
	T_EQ_U64(QPU_FAULT_REASON_INSTRUCTION, f->reason);
	T_EQ_U64(QPU_MEM_TMU, f->access);
	T_EQ_U64(CODE_BASE + 5 * 8, f->pc);
	free(emu);

	/* a lookup outside memory faults, naming lane 0's address */
	emu = t_emu_new(0);
	u[0] = 0x0badf000;
	p = prog_at(CODE_BASE);
	emit_lane_offsets(&p);
	emit_tmu_req(&p, W_TMU0_S);
	emit_end(&p);
	T_EQ_U64(QPU_EMU_FAULT, t_run1(emu, CODE_BASE, UNIF_BASE));
	f = qpu_emu_get_fault(emu);
	T_EQ_U64(QPU_FAULT_REASON_MEMORY, f->reason);
	T_EQ_U64(QPU_MEM_TMU, f->access);
	T_EQ_U64(0x0badf000, f->addr);
	T_EQ_U64(0, f->qpu);
	/* stopped: nothing runs until reset */
	T_EQ_U64(QPU_EMU_FAULT, qpu_emu_run(emu, 100));
	qpu_emu_reset(emu);
	T_EQ_U64(QPU_EMU_IDLE, qpu_emu_run(emu, 100));
	free(emu);

	/* ldtmu with nothing queued waits forever: a deadlock */
	emu = t_emu_new(0);
	p = prog_at(CODE_BASE);
	emit(&p, i_sig(QPU_ISA_SIG_LDTMU0));
	emit_end(&p);
	T_EQ_U64(QPU_EMU_DEADLOCK, t_run1(emu, CODE_BASE, UNIF_BASE));
	T_EQ_U64(QPU_EMU_QPU_WAIT_TMU, qpu_emu_get_qpu_state(emu, 0, NULL));
	free(emu);
}

#define VPM_SETUP(num, stride, horiz, addr) \
	((uint32_t)(num) << 20 | (uint32_t)(stride) << 12 | \
	 (uint32_t)(horiz) << 11 | 2u << 8 | (addr))

T_TEST(vpm)
{
	struct qpu_emu *emu = t_emu_new(0);
	struct prog p = prog_at(CODE_BASE);
	const uint32_t *vpm;
	struct qpu_isa_instr in;

	/* write elem_num + 100 and elem_num + 200 to rows 5 and 7 */
	emit(&p, i_ldi_b(W_VPM_SETUP, VPM_SETUP(0, 2, 1, 5)));
	in = i_smi(i_add(QPU_ISA_A_ADD, W_R0, QPU_ISA_MUX_A, QPU_ISA_MUX_B),
		   15);
	in.raddr_a = R_ELEM;
	emit(&p, in);
	emit(&p, i_mov(W_VPM, QPU_ISA_MUX_R0));
	emit(&p, i_smi(i_add(QPU_ISA_A_SUB, W_VPM, QPU_ISA_MUX_R0,
			     QPU_ISA_MUX_B), 1));
	/* vertical write down column 3 from row 16 (address 0x13) */
	emit(&p, i_ldi_b(W_VPM_SETUP, VPM_SETUP(0, 1, 0, 0x13)));
	emit(&p, i_mov(W_VPM, QPU_ISA_MUX_R0));
	/* read rows 5 and 7 back */
	emit(&p, i_ldi(W_VPM_SETUP, VPM_SETUP(2, 2, 1, 5)));
	emit(&p, i_nop());
	emit(&p, i_nop());
	in = i_mov(W_R2, QPU_ISA_MUX_A);
	in.raddr_a = R_VPM;
	emit(&p, in);
	in = i_mov(W_R3, QPU_ISA_MUX_B);
	in.raddr_b = R_VPM;
	emit(&p, in);
	emit_end(&p);
	T_EQ_U64(QPU_EMU_IDLE, t_run1(emu, CODE_BASE, UNIF_BASE));
	vpm = qpu_emu_get_vpm(emu);
	for (int i = 0; i < 16; i++) {
		T_EQ_U64(15 + i, vpm[5 * 16 + i]);
		T_EQ_U64(14 + i, vpm[7 * 16 + i]);
		T_EQ_U64(15 + i, vpm[(16 + i) * 16 + 3]);
	}
	{
		uint32_t r2[16], r3[16];

		get(emu, 0, QPU_EMU_FILE_ACC, 2, r2);
		get(emu, 0, QPU_EMU_FILE_ACC, 3, r3);
		for (int i = 0; i < 16; i++) {
			T_EQ_U64(15 + i, r2[i]);
			T_EQ_U64(14 + i, r3[i]);
		}
	}
	free(emu);
}

/*
 * A QPU's generic VPM accesses reach rows 0..63, and the hardware decodes
 * only the address bits of that (6 for 32-bit, 7 for 16-bit, 8 for 8-bit):
 * an address past them wraps onto row 0 and up, and stats.vpm_wrapped
 * counts each such access. A generated program sets up vertical 32-bit
 * writes once at 0x20 with stride 0 (64) and stores a vector per write:
 * every store lands in column 0 of rows 32..47. With strict VPM checks
 * (qpu_emu_set_strict_vpm()) the first wrapping access stops the job with
 * a VPM fault at the byte address it would have reached instead, and
 * nothing is written past row 63 either way.
 */
T_TEST(vpm_rows)
{
	static const struct {
		uint32_t setup;		/* vw_setup, or vr_setup if @read */
		unsigned int writes;
		bool read;
		unsigned int wraps;	/* accesses that wrap */
		uint32_t word;		/* the last written (wrapped) */
		uint32_t fault;		/* strict: the fault's word */
	} cases[] = {
		{ VPM_SETUP(0, 1, 1, 63), 1, false, 0, 63 * 16, 0 },
		{ VPM_SETUP(0, 1, 1, 64), 1, false, 1, 0, 64 * 16 },
		{ VPM_SETUP(0, 1, 1, 62), 3, false, 1, 0, 64 * 16 },
		{ VPM_SETUP(0, 1, 0, 0x33), 1, false, 0, 48 * 16 + 3, 0 },
		{ VPM_SETUP(0, 1, 0, 0x43), 1, false, 1, 3, 64 * 16 + 3 },
		{ VPM_SETUP(0, 0, 0, 0x20), 4, false, 3, 32 * 16, 96 * 16 },
		{ VPM_SETUP(1, 1, 1, 64), 0, true, 1, 0, 64 * 16 },
		/* 16-bit packed: {Y, H} = 0x80 is {0, 0}; 8-bit: 0x100 is 0 */
		{ VPM_SETUP(0, 1, 1, 0x7f) - (1u << 8), 2, false, 1, 0, 64 * 16 },
		{ VPM_SETUP(0, 1, 1, 0xff) - (2u << 8), 2, false, 1, 0, 64 * 16 },
	};
	size_t c;

	for (c = 0; c < 2 * T_ARRAY_SIZE(cases); c++) {
		size_t k = c / 2;
		bool strict = c % 2;
		bool fault = strict && cases[k].wraps;
		struct qpu_emu *emu = t_emu_new(0);
		struct prog p = prog_at(CODE_BASE);
		struct qpu_isa_instr in;
		const uint32_t *vpm;
		unsigned int i, nonzero = 0;

		qpu_emu_set_strict_vpm(emu, strict);
		if (cases[k].read) {
			emit(&p, i_ldi(W_VPM_SETUP, cases[k].setup));
			emit(&p, i_nop());
			emit(&p, i_nop());
			in = i_mov(W_R2, QPU_ISA_MUX_A);
			in.raddr_a = R_VPM;
			emit(&p, in);
		} else {
			emit(&p, i_ldi_b(W_VPM_SETUP, cases[k].setup));
			for (i = 0; i < cases[k].writes; i++)
				emit(&p, i_ldi(W_VPM, 0x70 + i + 1));
		}
		emit_end(&p);
		vpm = qpu_emu_get_vpm(emu);
		if (!fault) {
			T_EQ_U64(QPU_EMU_IDLE, t_run1(emu, CODE_BASE, UNIF_BASE));
			if (!cases[k].read)
				T_EQ_U64(0x70 + cases[k].writes,
					 vpm[cases[k].word] & 0xff);
			T_EQ_U64(cases[k].wraps,
				 qpu_emu_get_stats(emu)->vpm_wrapped);
		} else {
			T_EQ_U64(QPU_EMU_FAULT, t_run1(emu, CODE_BASE, UNIF_BASE));
			T_EQ_U64(QPU_FAULT_REASON_VPM, qpu_emu_get_fault(emu)->reason);
			T_EQ_U64(cases[k].fault * 4, qpu_emu_get_fault(emu)->addr);
			T_EQ_U64(0, qpu_emu_get_stats(emu)->vpm_wrapped);
		}
		/* nothing lands past row 63 */
		for (i = 64 * 16; i < QPU_EMU_VPM_WORDS; i++)
			nonzero += vpm[i] != 0;
		T_EQ_U64(0, nonzero);
		/* the mode survives a reset, not an init */
		qpu_emu_reset(emu);
		T_EQ_U64(0, qpu_emu_get_stats(emu)->vpm_wrapped);
		free(emu);
	}
}

T_TEST(vpm_read_back)
{
	struct qpu_emu *emu = t_emu_new(0);
	struct prog p = prog_at(CODE_BASE);
	struct qpu_isa_instr in;
	uint32_t r[16];

	emit(&p, i_ldi_b(W_VPM_SETUP, VPM_SETUP(0, 1, 1, 40)));
	in = i_mov(W_VPM, QPU_ISA_MUX_A);
	in.raddr_a = R_ELEM;
	emit(&p, in);
	emit(&p, i_ldi(W_VPM, 77));
	emit(&p, i_ldi(W_VPM, 78));
	/* three vectors; the A+B read takes one */
	emit(&p, i_ldi(W_VPM_SETUP, VPM_SETUP(3, 1, 1, 40)));
	in = i_add(QPU_ISA_A_ADD, W_R1, QPU_ISA_MUX_A, QPU_ISA_MUX_B);
	in.raddr_a = R_VPM;
	in.raddr_b = R_VPM;
	emit(&p, in);
	in = i_mov(W_R2, QPU_ISA_MUX_A);
	in.raddr_a = R_VPM;
	emit(&p, in);
	in = i_mov(W_R3, QPU_ISA_MUX_B);
	in.raddr_b = R_VPM;
	emit(&p, in);
	/* a third read has no vector set up: the QPU waits forever */
	in = i_mov(W_R0, QPU_ISA_MUX_B);
	in.raddr_b = R_VPM;
	emit(&p, in);
	emit_end(&p);
	T_EQ_U64(QPU_EMU_DEADLOCK, t_run1(emu, CODE_BASE, UNIF_BASE));
	T_EQ_U64(QPU_EMU_QPU_WAIT_VPM, qpu_emu_get_qpu_state(emu, 0, NULL));
	get(emu, 0, QPU_EMU_FILE_ACC, 1, r);
	for (int i = 0; i < 16; i++)
		T_EQ_U64(2 * i, r[i]);
	expect_acc(emu, 2, 77);
	expect_acc(emu, 3, 78);
	free(emu);
}

#define VDR(rowlen, nrows, vpitch, vert, base) \
	(0x80000000u | ((rowlen) & 15u) << 20 | ((nrows) & 15u) << 16 | \
	 ((vpitch) & 15u) << 12 | (uint32_t)(vert) << 11 | (base))
#define VDR_PITCH(bytes)	(0x90000000u | (bytes))
#define VDW(units, depth, horiz, base) \
	(0x80000000u | ((units) & 127u) << 23 | ((depth) & 127u) << 16 | \
	 (uint32_t)(horiz) << 14 | (uint32_t)(base) << 3)
#define VDW_STRIDE(bytes)	(0xc0000000u | (bytes))

T_TEST(dma)
{
	struct qpu_emu *emu = t_emu_new(0);
	struct prog p = prog_at(CODE_BASE);
	uint32_t *d = t_words(DATA_BASE), *o = t_words(OUT_BASE);
	const uint32_t *vpm;
	const struct qpu_emu_stats *st;
	const struct qpu_fault *f;

	for (int i = 0; i < 2048; i++)
		d[i] = 0xd0000 + i;
	memset(o, 0, 4096);
	/* load 4 rows of 16 words, 128 bytes apart, to VPM rows 10.. */
	emit(&p, i_ldi(W_VPM_SETUP, VDR_PITCH(128)));
	emit(&p, i_ldi(W_VPM_SETUP, VDR(16, 4, 1, 0, 10 * 16)));
	emit(&p, i_ldi(W_DMA_ADDR, DATA_BASE));
	emit(&p, i_read(R_WAIT, R_NOP));
	/*
	 * vertical: 2 rows of 16 words, 64 bytes apart, down column 5 from
	 * rows 32 and 48: VPITCH 16 steps the row (see test-emu-vpm)
	 */
	emit(&p, i_ldi(W_VPM_SETUP, VDR_PITCH(64)));
	emit(&p, i_ldi(W_VPM_SETUP, VDR(16, 2, 16, 1, 32 * 16 + 5)));
	emit(&p, i_ldi(W_DMA_ADDR, DATA_BASE + 4096));
	emit(&p, i_read(R_WAIT, R_NOP));
	/* store rows 10..13 as 4 rows of 16 words with a 64-byte gap */
	emit(&p, i_ldi_b(W_VPM_SETUP, VDW_STRIDE(64)));
	emit(&p, i_ldi_b(W_VPM_SETUP, VDW(4, 16, 1, 10 * 16)));
	emit(&p, i_ldi_b(W_DMA_ADDR, OUT_BASE));
	emit(&p, i_read(R_NOP, R_WAIT));
	/* store columns 5, 6 rows 32..47 (vertical) as two rows */
	emit(&p, i_ldi_b(W_VPM_SETUP, VDW_STRIDE(0)));
	emit(&p, i_ldi_b(W_VPM_SETUP, VDW(2, 16, 0, 32 * 16 + 5)));
	emit(&p, i_ldi_b(W_DMA_ADDR, OUT_BASE + 2048));
	emit(&p, i_read(R_NOP, R_WAIT));
	/* and column 5 rows 48..63 after them */
	emit(&p, i_ldi_b(W_VPM_SETUP, VDW(1, 16, 0, 48 * 16 + 5)));
	emit(&p, i_ldi_b(W_DMA_ADDR, OUT_BASE + 2048 + 128));
	emit(&p, i_read(R_NOP, R_WAIT));
	emit_end(&p);
	T_EQ_U64(QPU_EMU_IDLE, t_run1(emu, CODE_BASE, UNIF_BASE));
	vpm = qpu_emu_get_vpm(emu);
	for (int r = 0; r < 4; r++)
		for (int i = 0; i < 16; i++) {
			T_EQ_U64(0xd0000 + r * 32 + i, vpm[(10 + r) * 16 + i]);
			T_EQ_U64(0xd0000 + r * 32 + i, o[r * 32 + i]);
			T_EQ_U64(0, o[r * 32 + 16 + i]);
		}
	for (int r = 0; r < 2; r++)
		for (int i = 0; i < 16; i++) {
			uint32_t e = 0xd0000 + 1024 + r * 16 + i;

			T_EQ_U64(e, vpm[(32 + 16 * r + i) * 16 + 5]);
			T_EQ_U64(0, vpm[(32 + i) * 16 + 6]);
			/* column 5, the untouched column 6, column 5 from 48 */
			T_EQ_U64(e, o[512 + 32 * r + i]);
			T_EQ_U64(0, o[512 + 16 + i]);
		}
	st = qpu_emu_get_stats(emu);
	T_EQ_U64(4 * 64 + 128, st->dma_load_bytes);
	T_EQ_U64(4 * 64 + 128 + 64, st->dma_store_bytes);
	free(emu);

	/* a store whose last row leaves memory writes nothing at all */
	emu = t_emu_new(0);
	p = prog_at(CODE_BASE);
	memset(t_words(OUT_BASE + REGION_BYTES - 64), 0x5a, 64);
	emit(&p, i_ldi_b(W_VPM_SETUP, VDW_STRIDE(0)));
	emit(&p, i_ldi_b(W_VPM_SETUP, VDW(2, 16, 1, 0)));
	emit(&p, i_ldi_b(W_DMA_ADDR, OUT_BASE + REGION_BYTES - 64));
	emit_end(&p);
	T_EQ_U64(QPU_EMU_FAULT, t_run1(emu, CODE_BASE, UNIF_BASE));
	f = qpu_emu_get_fault(emu);
	T_EQ_U64(QPU_FAULT_REASON_MEMORY, f->reason);
	T_EQ_U64(QPU_MEM_STORE, f->access);
	T_EQ_U64(OUT_BASE + REGION_BYTES, f->addr);
	T_EQ_U64(CODE_BASE + 16, f->pc);
	T_EQ_U64(0x5a5a5a5au, t_words(OUT_BASE + REGION_BYTES - 64)[0]);
	free(emu);

	/* misaligned DMA load; DMA rows beyond the VPM */
	emu = t_emu_new(0);
	p = prog_at(CODE_BASE);
	emit(&p, i_ldi(W_VPM_SETUP, VDR(16, 1, 1, 0, 0)));
	emit(&p, i_ldi(W_DMA_ADDR, DATA_BASE + 2));
	emit_end(&p);
	T_EQ_U64(QPU_EMU_FAULT, t_run1(emu, CODE_BASE, UNIF_BASE));
	T_EQ_U64(QPU_FAULT_REASON_MISALIGNED, qpu_emu_get_fault(emu)->reason);
	T_EQ_U64(QPU_MEM_LOAD, qpu_emu_get_fault(emu)->access);
	free(emu);
	emu = t_emu_new(0);
	p = prog_at(CODE_BASE);
	emit(&p, i_ldi_b(W_VPM_SETUP, VDW(80, 16, 1, 127 * 16)));
	emit(&p, i_ldi_b(W_DMA_ADDR, OUT_BASE));
	emit_end(&p);
	T_EQ_U64(QPU_EMU_FAULT, t_run1(emu, CODE_BASE, UNIF_BASE));
	T_EQ_U64(QPU_FAULT_REASON_VPM, qpu_emu_get_fault(emu)->reason);
	T_EQ_U64(192 * 64, qpu_emu_get_fault(emu)->addr);
	free(emu);
}

T_TEST(faults)
{
	struct qpu_emu *emu = t_emu_new(0);
	struct prog p;
	const struct qpu_fault *f;
	uint32_t *w;

	/* fetch outside memory */
	T_EQ_U64(QPU_EMU_FAULT, t_run1(emu, 0x7000000, UNIF_BASE));
	f = qpu_emu_get_fault(emu);
	T_EQ_U64(QPU_FAULT_REASON_MEMORY, f->reason);
	T_EQ_U64(QPU_MEM_FETCH, f->access);
	T_EQ_U64(0x7000000, f->pc);
	T_EQ_U64(0x7000000, f->addr);
	/*
	 * running off the end of the code region into the uniforms that
	 * follow it here, whose first word (a reserved load-immediate mode)
	 * the QPU cannot run: set here, not left by the tmu case
	 */
	qpu_emu_reset(emu);
	w = t_words(CODE_BASE + REGION_BYTES);
	w[0] = 0;
	w[1] = 0xe4000000u;
	p = prog_at(CODE_BASE + REGION_BYTES - 16);
	emit(&p, i_nop());
	emit(&p, i_nop());
	T_EQ_U64(QPU_EMU_FAULT, t_run1(emu, p.addr, UNIF_BASE));
	T_EQ_U64(CODE_BASE + REGION_BYTES, qpu_emu_get_fault(emu)->addr);
	T_EQ_U64(2, qpu_emu_get_stats(emu)->instructions[0]);
	/* misaligned uniform stream */
	qpu_emu_reset(emu);
	p = prog_at(CODE_BASE);
	emit(&p, i_ldi(W_UNIF_ADDR, UNIF_BASE + 2));
	emit(&p, i_read(R_UNIF, R_NOP));
	emit_end(&p);
	T_EQ_U64(QPU_EMU_FAULT, t_run1(emu, CODE_BASE, UNIF_BASE));
	f = qpu_emu_get_fault(emu);
	T_EQ_U64(QPU_FAULT_REASON_MISALIGNED, f->reason);
	T_EQ_U64(QPU_MEM_UNIFORM, f->access);
	T_EQ_U64(UNIF_BASE + 2, f->addr);
	T_EQ_U64(CODE_BASE + 8, f->pc);
	/* misaligned branch target */
	qpu_emu_reset(emu);
	p = prog_at(CODE_BASE);
	emit(&p, i_branch(QPU_ISA_BR_ALWAYS, true, 4));
	emit(&p, i_nop());
	emit(&p, i_nop());
	emit(&p, i_nop());
	T_EQ_U64(QPU_EMU_FAULT, t_run1(emu, CODE_BASE, UNIF_BASE));
	T_EQ_U64(QPU_FAULT_REASON_MISALIGNED, qpu_emu_get_fault(emu)->reason);
	T_EQ_U64(CODE_BASE + 36, qpu_emu_get_fault(emu)->pc);
	/*
	 * Reserved encodings: load-immediate mode 2, add opcode 9, and a
	 * write to a texture parameter register.
	 */
	for (int k = 0; k < 3; k++) {
		struct qpu_isa_instr in = i_nop();

		qpu_emu_reset(emu);
		p = prog_at(CODE_BASE);
		emit(&p, i_ldi(W_R0, 5));
		if (k == 1)
			in.op_add = 9;
		if (k == 2)
			in = i_ldi(57, 0);	/* t0t */
		emit(&p, in);
		w = t_words(CODE_BASE + 8);
		if (k == 0) {
			w[0] = 0;
			w[1] = 0xe4000000u;	/* signal 14, mode 2 */
		}
		emit_end(&p);
		T_EQ_U64(QPU_EMU_FAULT, t_run1(emu, CODE_BASE, UNIF_BASE));
		f = qpu_emu_get_fault(emu);
		T_EQ_U64(QPU_FAULT_REASON_INSTRUCTION, f->reason);
		T_EQ_U64(CODE_BASE + 8, f->pc);
	}
	/*
	 * Every write address with no function for user programs (x/y
	 * coordinates, ms/rev flags, TLB, texture parameters) faults when a
	 * lane writes it, and does nothing under condition never.
	 */
	for (unsigned int waddr = 41; waddr < 64; waddr++) {
		bool user = (waddr >= 48 && waddr <= 56) || waddr == 60;

		for (int never = 0; never < 2; never++) {
			struct qpu_isa_instr in = i_ldi(waddr, 0);

			if (never)
				in.cond_add = QPU_ISA_COND_NEVER;
			else if (user)
				continue;
			qpu_emu_reset(emu);
			p = prog_at(CODE_BASE);
			emit(&p, in);
			emit_end(&p);
			T_EQ_U64(never ? QPU_EMU_IDLE : QPU_EMU_FAULT,
				 t_run1(emu, CODE_BASE, UNIF_BASE));
			if (never)
				continue;
			f = qpu_emu_get_fault(emu);
			T_EQ_U64(QPU_FAULT_REASON_INSTRUCTION, f->reason);
			T_EQ_U64(CODE_BASE, f->pc);
		}
	}
	/* start arguments */
	qpu_emu_reset(emu);
	T_EQ_U64(-QPU_EMU_EINVAL, qpu_emu_start(emu, CODE_BASE + 4, UNIF_BASE));
	T_EQ_U64(-QPU_EMU_EINVAL, qpu_emu_start(emu, CODE_BASE, UNIF_BASE + 1));
	for (int k = 0; k < QPU_EMU_NUM_QPUS; k++)
		T_EQ_U64(k, qpu_emu_start(emu, CODE_BASE, UNIF_BASE));
	T_EQ_U64(-QPU_EMU_EBUSY, qpu_emu_start(emu, CODE_BASE, UNIF_BASE));
	free(emu);
}

/*
 * Every QPU increments a counter in memory under the mutex: TMU read,
 * add, VPM write, VDW store to the same address, wait, release.
 */
static void build_mutex_counter(struct prog *p)
{
	struct qpu_isa_instr in;

	in = i_mov(0, QPU_ISA_MUX_A);		/* ra0 = counter address */
	in.raddr_a = R_UNIF;
	emit(p, in);
	emit(p, i_read(R_MUTEX, R_NOP));	/* acquire */
	in = i_mov(W_TMU0_S, QPU_ISA_MUX_A);
	in.raddr_a = 0;
	emit(p, in);
	emit(p, i_sig(QPU_ISA_SIG_LDTMU0));
	emit(p, i_smi(i_add(QPU_ISA_A_ADD, W_R0, QPU_ISA_MUX_R4,
			    QPU_ISA_MUX_B), 1));
	in = i_mov(W_R3, QPU_ISA_MUX_B);	/* r3 = qpu_num */
	in.raddr_b = R_ELEM;
	emit(p, in);
	emit(p, i_ldi(W_R2, VPM_SETUP(0, 1, 1, 0)));
	in = i_add(QPU_ISA_A_ADD, W_VPM_SETUP, QPU_ISA_MUX_R2, QPU_ISA_MUX_R3);
	in.ws = true;				/* vw_setup, row qpu_num */
	emit(p, in);
	emit(p, i_mov(W_VPM, QPU_ISA_MUX_R0));
	emit(p, i_smi(i_add(QPU_ISA_A_SHL, W_R3, QPU_ISA_MUX_R3,
			    QPU_ISA_MUX_B), 7));
	emit(p, i_ldi(W_R2, VDW(1, 1, 1, 0)));
	in = i_add(QPU_ISA_A_ADD, W_VPM_SETUP, QPU_ISA_MUX_R2, QPU_ISA_MUX_R3);
	in.ws = true;
	emit(p, in);
	in = i_mov(W_DMA_ADDR, QPU_ISA_MUX_A);
	in.raddr_a = 0;
	in.ws = true;				/* vw_addr = ra0 */
	emit(p, in);
	emit(p, i_read(R_NOP, R_WAIT));
	emit(p, i_mov(W_MUTEX, QPU_ISA_MUX_R0));	/* release */
	emit_end(p);
}

T_TEST(mutex_and_semaphores)
{
	struct prog p = prog_at(CODE_BASE);
	uint32_t *u = t_words(UNIF_BASE);
	char text[512];

	build_mutex_counter(&p);
	u[0] = OUT_BASE;
	for (uint32_t seed = 0; seed < 6; seed++) {
		struct qpu_emu *emu = t_emu_new(seed * 7919);

		t_words(OUT_BASE)[0] = 100;
		for (int k = 0; k < QPU_EMU_NUM_QPUS; k++)
			T_EQ_U64(k, qpu_emu_start(emu, CODE_BASE, UNIF_BASE));
		T_EQ_U64(QPU_EMU_IDLE, qpu_emu_run(emu, 100000));
		if (qpu_emu_get_fault(emu)->pc)
			fprintf(stderr, "fault %d pc %x addr %x acc %d\n",
				qpu_emu_get_fault(emu)->reason,
				qpu_emu_get_fault(emu)->pc,
				qpu_emu_get_fault(emu)->addr,
				qpu_emu_get_fault(emu)->access);
		T_EQ_U64(112, t_words(OUT_BASE)[0]);
		T_EQ_U64(12, qpu_emu_completed(emu));
		T_CHECK(qpu_emu_get_stats(emu)->stall_sync > 0);
		free(emu);
	}

	/* semaphores: QPU 0 acquires 3 twice, QPU 1 releases it twice */
	{
		struct qpu_emu *emu = t_emu_new(0);
		struct prog a = prog_at(CODE_BASE), b = prog_at(CODE_BASE + 4096);

		emit(&a, i_sema(3, true));
		emit(&a, i_sema(3, true));
		emit(&a, i_ldi(W_R0, 1));
		emit_end(&a);
		for (int k = 0; k < 20; k++)
			emit(&b, i_nop());
		emit(&b, i_sema(3, false));
		emit(&b, i_sema(3, false));
		emit_end(&b);
		T_EQ_U64(0, qpu_emu_start(emu, a.addr, UNIF_BASE));
		T_EQ_U64(1, qpu_emu_start(emu, b.addr, UNIF_BASE));
		T_EQ_U64(QPU_EMU_RUNNING, qpu_emu_run(emu, 4));
		T_EQ_U64(QPU_EMU_QPU_WAIT_SEM,
			 qpu_emu_get_qpu_state(emu, 0, NULL));
		T_EQ_U64(QPU_EMU_IDLE, qpu_emu_run(emu, 1000));
		expect_acc(emu, 0, 1);
		T_EQ_U64(0, qpu_emu_get_semaphore(emu, 3));
		T_EQ_U64(20, qpu_emu_get_stats(emu)->stall_sync);
		free(emu);
	}

	/* counters stop at 15: a 16th release waits */
	{
		struct qpu_emu *emu = t_emu_new(0);
		struct prog a = prog_at(CODE_BASE);

		for (int k = 0; k < 16; k++)
			emit(&a, i_sema(9, false));
		emit_end(&a);
		T_EQ_U64(QPU_EMU_DEADLOCK, t_run1(emu, CODE_BASE, UNIF_BASE));
		T_EQ_U64(15, qpu_emu_get_semaphore(emu, 9));
		T_CHECK(qpu_emu_describe(emu, text, sizeof(text)) > 0);
		T_CHECK(strstr(text, "qpu 0: pc 0x10078, waits on a semaphore (release 9)\n"));
		T_CHECK(strstr(text, "semaphores: 0 0 0 0 0 0 0 0 0 15"));
		free(emu);
	}

	/* a QPU that ends holding the mutex starves the next one */
	{
		struct qpu_emu *emu = t_emu_new(0);
		struct prog a = prog_at(CODE_BASE);
		size_t need;

		emit(&a, i_read(R_MUTEX, R_NOP));
		emit_end(&a);
		T_EQ_U64(0, qpu_emu_start(emu, CODE_BASE, UNIF_BASE));
		T_EQ_U64(1, qpu_emu_start(emu, CODE_BASE, UNIF_BASE));
		T_EQ_U64(QPU_EMU_DEADLOCK, qpu_emu_run(emu, 1000));
		T_EQ_U64(1, qpu_emu_completed(emu));
		need = qpu_emu_describe(emu, text, sizeof(text));
		T_CHECK(strstr(text, "qpu 1: pc 0x10000, waits on the mutex"));
		T_CHECK(strstr(text, "mutex: held by qpu 0"));
		T_EQ_U64(need, strlen(text));
		T_EQ_U64(need, qpu_emu_describe(emu, text, 10));
		T_EQ_U64(9, strlen(text));
		free(emu);
	}
}

/* Each of 12 QPUs adds a 16-float slice of A and B into C. */
static void build_vector_add(struct prog *p)
{
	struct qpu_isa_instr in;

	emit_lane_offsets(p);
	emit_tmu_req(p, W_TMU0_S);
	emit_tmu_req(p, W_TMU0_S);
	emit(p, i_sig(QPU_ISA_SIG_LDTMU0));
	in = i_mov(W_R2, QPU_ISA_MUX_R4);
	in.sig = QPU_ISA_SIG_LDTMU0;
	emit(p, in);
	emit(p, i_add(QPU_ISA_A_FADD, W_R3, QPU_ISA_MUX_R2, QPU_ISA_MUX_R4));
	in = i_mov(1, QPU_ISA_MUX_A);		/* ra1 = C slice */
	in.raddr_a = R_UNIF;
	emit(p, in);
	in = i_mov(2, QPU_ISA_MUX_A);		/* ra2 = VPM row */
	in.raddr_a = R_UNIF;
	emit(p, in);
	emit(p, i_ldi(W_R2, VPM_SETUP(0, 1, 1, 0)));
	in = i_add(QPU_ISA_A_ADD, W_VPM_SETUP, QPU_ISA_MUX_R2, QPU_ISA_MUX_A);
	in.raddr_a = 2;
	in.ws = true;
	emit(p, in);
	emit(p, i_mov(W_VPM, QPU_ISA_MUX_R3));
	in = i_smi(i_add(QPU_ISA_A_SHL, W_R0, QPU_ISA_MUX_A, QPU_ISA_MUX_B), 7);
	in.raddr_a = 2;
	emit(p, in);
	emit(p, i_ldi(W_R2, VDW(1, 16, 1, 0)));
	in = i_add(QPU_ISA_A_ADD, W_VPM_SETUP, QPU_ISA_MUX_R2, QPU_ISA_MUX_R0);
	in.ws = true;
	emit(p, in);
	in = i_mov(W_DMA_ADDR, QPU_ISA_MUX_A);
	in.raddr_a = 1;
	in.ws = true;
	emit(p, in);
	emit(p, i_read(R_NOP, R_WAIT));
	emit_end(p);
}

T_TEST(twelve_qpus)
{
	struct prog p = prog_at(CODE_BASE);
	uint32_t *u = t_words(UNIF_BASE), *a = t_words(DATA_BASE);
	uint32_t *b = t_words(DATA_BASE + 1024), *c = t_words(OUT_BASE);
	struct qpu_emu_stats first[3];
	uint64_t rng = 0x452821e638d01377ull;

	build_vector_add(&p);
	for (int i = 0; i < 192; i++) {
		a[i] = t_f2u((float)(int32_t)(t_rand(&rng) % 20000) / 16.0f);
		b[i] = t_f2u((float)i * 0.5f);
	}
	for (int k = 0; k < 12; k++) {
		u[k * 4 + 0] = DATA_BASE + k * 64;
		u[k * 4 + 1] = DATA_BASE + 1024 + k * 64;
		u[k * 4 + 2] = OUT_BASE + k * 64;
		u[k * 4 + 3] = k;
	}
	for (int run = 0; run < 6; run++) {
		uint32_t seed = run < 2 ? 0 : run < 4 ? 0xc0ffee : run;
		struct qpu_emu *emu = t_emu_new(seed);
		enum qpu_emu_status st;
		uint64_t total = 0;

		memset(c, 0, 768);
		for (int k = 0; k < 12; k++)
			T_EQ_U64(k, qpu_emu_start(emu, CODE_BASE,
						  UNIF_BASE + k * 16));
		/* small budgets: the result must not depend on slicing */
		do {
			st = qpu_emu_run(emu, 1 + run);
		} while (st == QPU_EMU_RUNNING);
		T_EQ_U64(QPU_EMU_IDLE, st);
		for (int i = 0; i < 192; i++)
			T_EQ_U64(t_f2u(t_u2f(a[i]) + t_u2f(b[i])), c[i]);
		for (int k = 0; k < 12; k++)
			total += qpu_emu_get_stats(emu)->instructions[k];
		T_EQ_U64(12 * p.n, total);
		T_EQ_U64(12, qpu_emu_get_stats(emu)->programs_done);
		if (!(run & 1) && run < 4) {
			first[run / 2] = *qpu_emu_get_stats(emu);
		} else if (run < 4) {
			T_CHECK(!memcmp(&first[run / 2],
					qpu_emu_get_stats(emu),
					sizeof(first[0])));
		}
		free(emu);
	}
}

/* The same seed interleaves the same way: a racy counter shows it. */
T_TEST(determinism)
{
	struct prog p = prog_at(CODE_BASE);
	uint32_t *u = t_words(UNIF_BASE);
	uint32_t results[3][2];

	/* the mutex counter without the mutex: lost updates depend on order */
	build_mutex_counter(&p);
	{
		uint32_t *w = t_words(CODE_BASE + 8);	/* acquire -> nop */
		struct qpu_isa_instr in = i_nop();
		uint64_t word;

		T_EQ_U64(0, qpu_isa_encode(&in, &word));
		w[0] = (uint32_t)word;
		w[1] = (uint32_t)(word >> 32);
		w = t_words(CODE_BASE + (p.n - 4) * 8);	/* release -> nop */
		w[0] = (uint32_t)word;
		w[1] = (uint32_t)(word >> 32);
	}
	u[0] = OUT_BASE;
	for (int s = 0; s < 3; s++) {
		for (int rep = 0; rep < 2; rep++) {
			struct qpu_emu *emu = t_emu_new(s ? 1000 + s : 0);

			t_words(OUT_BASE)[0] = 0;
			for (int k = 0; k < 12; k++)
				qpu_emu_start(emu, CODE_BASE, UNIF_BASE);
			T_EQ_U64(QPU_EMU_IDLE, qpu_emu_run(emu, 100000));
			results[s][rep] = t_words(OUT_BASE)[0];
			free(emu);
		}
		T_EQ_U64(results[s][0], results[s][1]);
	}
	/* round-robin lockstep: every QPU reads 0 before anyone stores */
	T_EQ_U64(1, results[0][0]);
}

T_MAIN()
