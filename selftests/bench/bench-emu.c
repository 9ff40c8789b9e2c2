// SPDX-License-Identifier: MIT
/*
 * Emulator speed on this machine (make bench): instructions per second on
 * one host core, 12 QPUs running a compute loop (fadd and fmul issued
 * together, as an sgemm inner loop does) and a memory loop (a TMU load and
 * a VPM row stored by VCD DMA each iteration). The count comes from the
 * emulator's own statistics; the time from CLOCK_MONOTONIC around
 * qpu_emu_run(); the median of 5 runs is printed.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "test-emu.h"

#define RUNS		5
#define W_VPM		48
#define W_VPM_SETUP	49	/* B: vw_setup */
#define W_DMA_ADDR	50	/* B: vw_addr */
#define R_WAIT		50	/* B: vw_wait */

/* sub.setf r0, r0, 1; brr.anyzc -, @loop; three delay-slot nops */
static void emit_loop_end(struct prog *p, uint32_t loop)
{
	struct qpu_isa_instr in = i_smi(i_add(QPU_ISA_A_SUB, W_R0, QPU_ISA_MUX_R0,
					      QPU_ISA_MUX_B), 1);
	uint32_t here;

	in.sf = true;
	emit(p, in);
	here = p->addr + p->n * 8;
	emit(p, i_branch(QPU_ISA_BR_ANYZC, true, loop - (here + 32)));
	emit(p, i_nop());
	emit(p, i_nop());
	emit(p, i_nop());
	emit_end(p);
}

/* 8 instructions each issuing fadd r3, r3, r1 and fmul r1, r1, r2. */
static void build_compute(struct prog *p, uint32_t iterations)
{
	uint32_t loop;
	int i;

	emit(p, i_ldi(W_R0, iterations));
	emit(p, i_ldi(W_R1, 0x3f800347));	/* 1.0001 */
	emit(p, i_ldi(W_R2, 0x3f7ff972));	/* 0.9999 */
	emit(p, i_ldi(W_R3, 0));
	loop = p->addr + p->n * 8;
	for (i = 0; i < 8; i++) {
		struct qpu_isa_instr in = i_add(QPU_ISA_A_FADD, W_R3,
						QPU_ISA_MUX_R3, QPU_ISA_MUX_R1);

		in.op_mul = QPU_ISA_M_FMUL;
		in.cond_mul = QPU_ISA_COND_ALWAYS;
		in.waddr_mul = W_R1;
		in.mul_a = QPU_ISA_MUX_R1;
		in.mul_b = QPU_ISA_MUX_R2;
		emit(p, in);
	}
	emit_loop_end(p, loop);
}

/*
 * Each iteration: a TMU load of 16 words from DATA_BASE, written to VPM row
 * 0 and stored to OUT_BASE by VCD DMA (every QPU the same row: the bench
 * measures the emulator, not the data).
 */
static void build_memory(struct prog *p, uint32_t iterations)
{
	struct qpu_isa_instr in;
	uint32_t loop;

	in = i_smi(i_add(QPU_ISA_A_SHL, W_R1, QPU_ISA_MUX_A, QPU_ISA_MUX_B), 2);
	in.raddr_a = R_ELEM;			/* r1 = elem_num * 4 */
	emit(p, in);
	in = i_mov(1, QPU_ISA_MUX_A);		/* ra1 = DATA_BASE, a uniform */
	in.raddr_a = R_UNIF;
	emit(p, in);
	emit(p, i_ldi(3, 0x1a00));		/* ra3: VPM write, row 0 */
	emit(p, i_ldi(4, 0x80904000));		/* ra4: VDW, 1 row of 16 */
	emit(p, i_ldi(5, OUT_BASE));		/* ra5: where it goes */
	emit(p, i_ldi(W_R0, iterations));
	loop = p->addr + p->n * 8;
	in = i_add(QPU_ISA_A_ADD, W_TMU0_S, QPU_ISA_MUX_R1, QPU_ISA_MUX_A);
	in.raddr_a = 1;
	emit(p, in);
	emit(p, i_sig(QPU_ISA_SIG_LDTMU0));
	in = i_mov(W_VPM_SETUP, QPU_ISA_MUX_A);
	in.raddr_a = 3;
	in.ws = true;
	emit(p, in);
	emit(p, i_mov(W_VPM, QPU_ISA_MUX_R4));
	in = i_mov(W_VPM_SETUP, QPU_ISA_MUX_A);
	in.raddr_a = 4;
	in.ws = true;
	emit(p, in);
	in = i_mov(W_DMA_ADDR, QPU_ISA_MUX_A);
	in.raddr_a = 5;
	in.ws = true;
	emit(p, in);
	emit(p, i_read(R_NOP, R_WAIT));
	emit_loop_end(p, loop);
}

static double rate(const char *name, void (*build)(struct prog *, uint32_t),
		   uint32_t iterations)
{
	const struct qpu_emu_stats *st;
	struct prog p = prog_at(CODE_BASE);
	double r[RUNS], seconds;
	uint64_t total = 0;
	int run, k;

	build(&p, iterations);
	t_words(UNIF_BASE)[0] = DATA_BASE;
	for (run = 0; run < RUNS; run++) {
		struct qpu_emu *emu = t_emu_new(0);
		enum qpu_emu_status status;
		double start;

		for (k = 0; k < QPU_EMU_NUM_QPUS; k++)
			qpu_emu_start(emu, CODE_BASE, UNIF_BASE);
		start = bench_now_s();
		do {
			status = qpu_emu_run(emu, 1 << 20);
		} while (status == QPU_EMU_RUNNING);
		r[run] = bench_now_s() - start;
		if (status != QPU_EMU_IDLE) {
			fprintf(stderr, "bench-emu: %s: the program stopped (%d)\n",
				name, status);
			exit(1);
		}
		st = qpu_emu_get_stats(emu);
		for (total = 0, k = 0; k < QPU_EMU_NUM_QPUS; k++)
			total += st->instructions[k];
		free(emu);
	}
	seconds = bench_median(r, RUNS);
	printf("  %-44s %10llu instructions in %6.3f s: %6.2f M/s\n", name,
	       (unsigned long long)total, seconds, total / seconds / 1e6);
	return total / seconds;
}

int main(void)
{
	printf("qpu emulator on one core of this machine (12 QPUs, median of %d runs)\n",
	       RUNS);
	rate("compute loop (fadd + fmul each instruction)", build_compute, 20000);
	rate("memory loop (TMU load + VDW store)", build_memory, 5000);
	printf("  goal: 30 M/s on a 12-QPU sgemm (no sgemm kernel yet)\n");
	return 0;
}
