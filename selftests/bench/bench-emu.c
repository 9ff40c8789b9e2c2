// SPDX-License-Identifier: MIT
/*
 * Emulator speed on this machine (make bench): instructions per second on
 * one host core, 12 QPUs running each of four loops: float compute (fadd
 * and fmul issued together, as an sgemm inner loop does), integer compute
 * (add and mul24 together, as address arithmetic does), an sgemm-like
 * loop (a TMU load feeding four fmul/fadd pairs), a memory loop (a TMU
 * load and a VPM row stored by VCD DMA each iteration), two loops shaped
 * like programs written elsewhere (an sgemm whose every fadd sets the
 * flags, and an FFT pass loop on 8 QPUs: VCD DMA in and out, VPM reads and
 * writes, TMU twiddles and a semaphore barrier between passes), and
 * libqpu's own sgemm kernel through the emulator device. The count comes
 * from the emulator's own statistics; the time is the process's CPU time
 * around qpu_emu_run() (the wall time is printed too: on a shared machine
 * it also counts other programs' turns); the median of 5 runs is printed.
 * With an argument, "nocache", the runs switch the predecoded-instruction
 * cache off (the reference path) for comparison. Each loop then runs again
 * with the timing model of a Pi 1/Zero on (its speed, and how much slower
 * that is: the goal is at most 3x) and once with a Pi 3's, and its
 * modelled cycles, time and share of the QPUs' peak issue rate on both
 * boards are printed, labelled as modelled.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "qpu_kernels.h"
#include "qpu_timing.h"
#include "qpu_vpm.h"
#include "test-emu.h"

#define RUNS		5
#define W_VPM		48
#define W_VPM_SETUP	49	/* B: vw_setup */
#define W_DMA_ADDR	50	/* B: vw_addr */
#define R_WAIT		50	/* B: vw_wait */
#define W_UNIF_ADDR	40	/* A: the uniform stream's address */
#define FLAG_UNIFS	(UNIF_BASE + 0x100)	/* build_flag_sgemm()'s B row */
#define TWIDDLES	(DATA_BASE + 0x8000)	/* build_fft()'s twiddles */

/* @add r3, r3, r1 and @mul r1, r1, r2 in one instruction. */
static struct qpu_isa_instr i_both(unsigned int add, unsigned int mul)
{
	struct qpu_isa_instr in = i_add(add, W_R3, QPU_ISA_MUX_R3,
					QPU_ISA_MUX_R1);

	in.op_mul = mul;
	in.cond_mul = QPU_ISA_COND_ALWAYS;
	in.waddr_mul = W_R1;
	in.mul_a = QPU_ISA_MUX_R1;
	in.mul_b = QPU_ISA_MUX_R2;
	return in;
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
	for (i = 0; i < 8; i++)
		emit(p, i_both(QPU_ISA_A_FADD, QPU_ISA_M_FMUL));
	emit_loop_end(p, loop);
	emit_end(p);
}

/* 8 instructions each issuing add r3, r3, r1 and mul24 r1, r1, r2. */
static void build_integer(struct prog *p, uint32_t iterations)
{
	uint32_t loop;
	int i;

	emit(p, i_ldi(W_R0, iterations));
	emit(p, i_ldi(W_R1, 3));
	emit(p, i_ldi(W_R2, 0x10001));
	emit(p, i_ldi(W_R3, 0));
	loop = p->addr + p->n * 8;
	for (i = 0; i < 8; i++)
		emit(p, i_both(QPU_ISA_A_ADD, QPU_ISA_M_MUL24));
	emit_loop_end(p, loop);
	emit_end(p);
}

/*
 * An sgemm-like inner loop: a TMU load of 16 floats (a column of A) and
 * four fmul/fadd pairs accumulating into r3.
 */
static void build_sgemm(struct prog *p, uint32_t iterations)
{
	struct qpu_isa_instr in;
	uint32_t loop;
	int i;

	in = i_smi(i_add(QPU_ISA_A_SHL, 1, QPU_ISA_MUX_A, QPU_ISA_MUX_B), 2);
	in.raddr_a = R_ELEM;			/* ra1 = elem_num * 4 */
	emit(p, in);
	emit(p, i_ldi(W_R2, 0x3f7ff972));	/* 0.9999 */
	emit(p, i_ldi(W_R3, 0));
	emit(p, i_ldi(W_R0, iterations));
	loop = p->addr + p->n * 8;
	emit(p, i_ldi(W_R1, DATA_BASE));
	in = i_add(QPU_ISA_A_ADD, W_TMU0_S, QPU_ISA_MUX_R1, QPU_ISA_MUX_A);
	in.raddr_a = 1;
	emit(p, in);
	emit(p, i_sig(QPU_ISA_SIG_LDTMU0));
	emit(p, i_mov(W_R1, QPU_ISA_MUX_R4));
	for (i = 0; i < 4; i++)
		emit(p, i_both(QPU_ISA_A_FADD, QPU_ISA_M_FMUL));
	emit_loop_end(p, loop);
	emit_end(p);
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
	emit_end(p);
}

/* An ALU instruction whose raddr_a is @a and raddr_b is @b. */
static struct qpu_isa_instr with_raddr(struct qpu_isa_instr in, unsigned int a,
				       unsigned int b)
{
	in.raddr_a = a;
	in.raddr_b = b;
	return in;
}

/*
 * fmul @mul_dst, @mul_a, @mul_b and fadd/fsub @add_dst, @add_a, @add_b in
 * one instruction (@add 0: no add).
 */
static struct qpu_isa_instr i_fpair(unsigned int add, unsigned int add_dst,
				    unsigned int add_a, unsigned int add_b,
				    unsigned int mul_dst, unsigned int mul_a,
				    unsigned int mul_b)
{
	struct qpu_isa_instr in = i_mul(QPU_ISA_M_FMUL, mul_dst, mul_a, mul_b);

	if (add) {
		in.op_add = add;
		in.cond_add = QPU_ISA_COND_ALWAYS;
		in.waddr_add = add_dst;
		in.add_a = add_a;
		in.add_b = add_b;
	}
	return in;
}

/*
 * An sgemm in the style of programs written for the Pi elsewhere: each k
 * a TMU load of a column of A (the lane's element), then 16 instructions
 * each multiplying it (r4) by a uniform (B's row, re-read every k through
 * unif_addr) and accumulating the previous product into one of 16
 * registers with an fadd that sets the flags, which only the loop's own
 * sub.setf and branch read.
 */
static void build_flag_sgemm(struct prog *p, uint32_t iterations)
{
	struct qpu_isa_instr in;
	uint32_t loop;
	int j;

	for (j = 0; j < 16; j++)
		t_words(FLAG_UNIFS)[j] = 0x3f000000 + 0x1000 * j; /* 0.5 up */
	in = i_smi(i_add(QPU_ISA_A_SHL, 1, QPU_ISA_MUX_A, QPU_ISA_MUX_B), 2);
	in.raddr_a = R_ELEM;			/* ra1 = elem_num * 4 */
	emit(p, in);
	emit(p, i_ldi(2, DATA_BASE));		/* ra2: A's base */
	emit(p, i_ldi(3, FLAG_UNIFS));		/* ra3: B's row */
	emit(p, i_ldi(5, 64));			/* ra5: A's column stride */
	emit(p, i_ldi(6, 0xfff));		/* ra6: A's size - 1 */
	emit(p, i_ldi(W_R2, 0));		/* r2: the column's offset */
	emit(p, i_ldi(W_R0, iterations));
	loop = p->addr + p->n * 8;
	emit(p, with_raddr(i_add(QPU_ISA_A_ADD, W_R1, QPU_ISA_MUX_A,
				 QPU_ISA_MUX_R2), 1, R_NOP));
	emit(p, with_raddr(i_add(QPU_ISA_A_ADD, W_TMU0_S, QPU_ISA_MUX_R1,
				 QPU_ISA_MUX_A), 2, R_NOP));
	emit(p, with_raddr(i_mov(W_UNIF_ADDR, QPU_ISA_MUX_A), 3, R_NOP));
	emit(p, with_raddr(i_add(QPU_ISA_A_ADD, W_R2, QPU_ISA_MUX_R2,
				 QPU_ISA_MUX_A), 5, R_NOP));
	in = with_raddr(i_add(QPU_ISA_A_AND, W_R2, QPU_ISA_MUX_R2,
			      QPU_ISA_MUX_A), 6, R_NOP);
	in.sig = QPU_ISA_SIG_LDTMU0;
	emit(p, in);
	for (j = 0; j <= 16; j++) {
		/* fmul r1, r4, unif; fadd.setf ra(6 + j), ra(6 + j), r1 */
		in = i_fpair(j ? QPU_ISA_A_FADD : 0, 6 + j, QPU_ISA_MUX_A,
			     QPU_ISA_MUX_R1, W_R1, QPU_ISA_MUX_R4,
			     QPU_ISA_MUX_B);
		in = with_raddr(in, j ? 6 + j : R_NOP, R_UNIF);
		in.sf = j != 0;
		if (j == 16) {
			in.op_mul = QPU_ISA_M_NOP;
			in.waddr_mul = W_NOP;
			in.raddr_b = R_NOP;
		}
		emit(p, in);
	}
	emit_loop_end(p, loop);
	emit_end(p);
}

/* mov @waddr (file B if @ws), regfile-A register @ra. */
static struct qpu_isa_instr i_mov_ra(unsigned int waddr, bool ws,
				     unsigned int ra)
{
	struct qpu_isa_instr in = with_raddr(i_mov(waddr, QPU_ISA_MUX_A), ra,
					     R_NOP);

	in.ws = ws;
	return in;
}

/* add @waddr, r2, r3: a setup word (r2) for this QPU's rows (r3). */
static void emit_add_r2_r3(struct prog *p, unsigned int waddr)
{
	emit(p, i_add(QPU_ISA_A_ADD, waddr, QPU_ISA_MUX_R2, QPU_ISA_MUX_R3));
}

/* shl r3, ra0 (the QPU number), @n */
static void emit_qpu_shl(struct prog *p, unsigned int n)
{
	emit(p, with_raddr(i_smi(i_add(QPU_ISA_A_SHL, W_R3, QPU_ISA_MUX_A,
				       QPU_ISA_MUX_B), n), 0, n));
}

/*
 * The pass barrier: QPU 0 collects 7 releases of semaphore 0, then frees
 * the other 7 through semaphore 1.
 */
static void emit_barrier(struct prog *p)
{
	struct qpu_isa_instr in = i_mov_ra(W_NOP, false, 0);
	uint32_t here, slave;
	int i;

	in.sf = true;			/* Z: this is QPU 0 */
	emit(p, in);
	here = p->addr + p->n * 8;
	slave = here + 4 * 8 + 14 * 8 + 4 * 8;
	emit(p, i_branch(QPU_ISA_BR_ANYZC, true, slave - (here + 32)));
	for (i = 0; i < 3; i++)
		emit(p, i_nop());
	for (i = 0; i < 7; i++)
		emit(p, i_sema(0, true));
	for (i = 0; i < 7; i++)
		emit(p, i_sema(1, false));
	here = p->addr + p->n * 8;
	emit(p, i_branch(QPU_ISA_BR_ALWAYS, true, slave + 16 - (here + 32)));
	for (i = 0; i < 3; i++)
		emit(p, i_nop());
	emit(p, i_sema(0, false));
	emit(p, i_sema(1, true));
}

/*
 * An FFT-shaped pass loop on 8 QPUs, as GPU_FFT-style programs are built:
 * each pass a VCD DMA load of the QPU's 4 rows (a, b as real and
 * imaginary rows) into the VPM, generic VPM reads of them, two TMU reads
 * of twiddles (w), the butterfly a + b * w, a - b * w written back to the
 * VPM, a VCD DMA store of the rows and a semaphore barrier with the other
 * QPUs before the next pass.
 */
static void build_fft(struct prog *p, uint32_t passes)
{
	const u32 horiz32 = qpu_vpm_addr(true, false, QPU_VPM_SIZE_32, 0, 0, 0);
	struct qpu_isa_instr in;
	uint32_t loop;
	int k;

	for (k = 0; k < 32; k++)	/* w: cos and sin-ish, below 1 */
		t_words(TWIDDLES)[k] = 0x3f000000 + 0x20000 * k;
	/* ra0 = qpu_num, ra1 = elem_num * 4 */
	emit(p, with_raddr(i_add(QPU_ISA_A_OR, 0, QPU_ISA_MUX_B, QPU_ISA_MUX_B),
			   R_NOP, R_ELEM));
	in = i_smi(i_add(QPU_ISA_A_SHL, 1, QPU_ISA_MUX_A, QPU_ISA_MUX_B), 2);
	in.raddr_a = R_ELEM;
	emit(p, in);
	emit_qpu_shl(p, 2);		/* r3 = 4 rows a QPU */
	emit(p, i_ldi(W_R2, qpu_vpm_setup(0, 1, horiz32)));
	emit_add_r2_r3(p, 2);		/* ra2: vw_setup */
	emit(p, i_ldi(W_R2, qpu_vpm_setup(4, 1, horiz32)));
	emit_add_r2_r3(p, 3);		/* ra3: vr_setup, 4 rows */
	emit_qpu_shl(p, 6);		/* r3 = row << QPU_VDR_Y_SHIFT */
	emit(p, i_ldi(W_R2, qpu_vdr_setup0(3, 0, 4,
					   qpu_vdr_dma(true, QPU_VPM_SIZE_32,
						       1, 0, 0, 0))));
	emit_add_r2_r3(p, 4);		/* ra4: VDR setup */
	emit_qpu_shl(p, 9);		/* r3 = row << QPU_VDW_Y_SHIFT */
	emit(p, i_ldi(W_R2, qpu_vdw_setup0(4, 16,
					   qpu_vdw_dma(true, QPU_VPM_SIZE_32,
						       0, 0, 0))));
	emit_add_r2_r3(p, 5);		/* ra5: VDW setup */
	emit_qpu_shl(p, 8);		/* r3 = 256 bytes a QPU */
	emit(p, i_ldi(W_R2, DATA_BASE));
	emit_add_r2_r3(p, 6);		/* ra6: where its rows come from */
	emit(p, i_ldi(W_R2, OUT_BASE));
	emit_add_r2_r3(p, 7);		/* ra7: where they go */
	emit(p, i_ldi(W_R2, TWIDDLES));
	emit(p, with_raddr(i_add(QPU_ISA_A_ADD, 8, QPU_ISA_MUX_R2,
				 QPU_ISA_MUX_A), 1, R_NOP)); /* ra8: w.re */
	emit(p, i_ldi(W_R2, TWIDDLES + 64));
	emit(p, with_raddr(i_add(QPU_ISA_A_ADD, 9, QPU_ISA_MUX_R2,
				 QPU_ISA_MUX_A), 1, R_NOP)); /* ra9: w.im */
	emit(p, i_ldi_b(W_VPM_SETUP, qpu_vdw_setup1(0)));
	emit(p, i_ldi(W_R0, passes));
	loop = p->addr + p->n * 8;
	emit(p, i_mov_ra(W_VPM_SETUP, false, 4));	/* DMA in */
	emit(p, i_mov_ra(W_DMA_ADDR, false, 6));
	emit(p, i_mov_ra(W_TMU0_S, false, 8));		/* the twiddles */
	emit(p, i_mov_ra(W_TMU0_S, false, 9));
	emit(p, i_read(R_WAIT, R_NOP));
	emit(p, i_mov_ra(W_VPM_SETUP, false, 3));
	emit(p, i_mov_ra(20, false, R_VPM));		/* ra20 = a.re */
	emit(p, i_mov_ra(21, false, R_VPM));		/* ra21 = a.im */
	emit(p, i_mov_ra(20, true, R_VPM));		/* rb20 = b.re */
	in = i_mov_ra(21, true, R_VPM);			/* rb21 = b.im */
	in.sig = QPU_ISA_SIG_LDTMU0;
	emit(p, in);
	in = i_mov(24, QPU_ISA_MUX_R4);			/* ra24 = w.re */
	in.sig = QPU_ISA_SIG_LDTMU0;			/* r4 = w.im */
	emit(p, in);
	/* t = b * w: r1 = re, r2 = im */
	emit(p, with_raddr(i_fpair(0, 0, 0, 0, W_R1, QPU_ISA_MUX_B,
				   QPU_ISA_MUX_A), 24, 20));
	emit(p, with_raddr(i_fpair(0, 0, 0, 0, W_R2, QPU_ISA_MUX_B,
				   QPU_ISA_MUX_R4), R_NOP, 21));
	emit(p, with_raddr(i_fpair(QPU_ISA_A_FSUB, W_R1, QPU_ISA_MUX_R1,
				   QPU_ISA_MUX_R2, W_R3, QPU_ISA_MUX_B,
				   QPU_ISA_MUX_R4), R_NOP, 20));
	emit(p, with_raddr(i_fpair(0, 0, 0, 0, W_R2, QPU_ISA_MUX_B,
				   QPU_ISA_MUX_A), 24, 21));
	emit(p, i_add(QPU_ISA_A_FADD, W_R2, QPU_ISA_MUX_R3, QPU_ISA_MUX_R2));
	in = i_mov_ra(W_VPM_SETUP, true, 2);
	emit(p, in);
	emit(p, with_raddr(i_add(QPU_ISA_A_FADD, W_VPM, QPU_ISA_MUX_A,
				 QPU_ISA_MUX_R1), 20, R_NOP));
	emit(p, with_raddr(i_add(QPU_ISA_A_FADD, W_VPM, QPU_ISA_MUX_A,
				 QPU_ISA_MUX_R2), 21, R_NOP));
	emit(p, with_raddr(i_add(QPU_ISA_A_FSUB, W_VPM, QPU_ISA_MUX_A,
				 QPU_ISA_MUX_R1), 20, R_NOP));
	emit(p, with_raddr(i_add(QPU_ISA_A_FSUB, W_VPM, QPU_ISA_MUX_A,
				 QPU_ISA_MUX_R2), 21, R_NOP));
	emit(p, i_mov_ra(W_VPM_SETUP, true, 5));	/* DMA out */
	emit(p, i_mov_ra(W_DMA_ADDR, true, 7));
	emit(p, i_read(R_NOP, R_WAIT));
	emit_barrier(p);
	emit_loop_end(p, loop);
	emit_end(p);
}

static bool no_cache;

static double cpu_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void tm_trace(void *ctx, unsigned int qpu, uint32_t pc, uint64_t word)
{
	qpu_timing_issue(ctx, qpu, pc, word);
}

static void tm_event(void *ctx, const struct qpu_emu_event *ev)
{
	qpu_timing_event(ctx, ev);
}

static const struct qpu_emu_ops tm_ops = {
	.translate = t_translate,
	.trace = tm_trace,
	.event = tm_event,
};

/*
 * Emulated instructions per CPU second of @build's loop on @qpus QPUs,
 * with @board's timing model on (NULL: off), printed; *@model gets the
 * model's figures of the last run.
 */
static double rate_on(const char *name, void (*build)(struct prog *, uint32_t),
		      uint32_t iterations, unsigned int qpus,
		      const struct qpu_timing_board *board,
		      struct qpu_timing_stats *model)
{
	const struct qpu_emu_stats *st;
	struct prog p = prog_at(CODE_BASE);
	double r[RUNS], wall[RUNS], seconds;
	struct qpu_timing *t = NULL;
	uint64_t total = 0;
	int run, k;

	build(&p, iterations);
	t_words(UNIF_BASE)[0] = DATA_BASE;
	for (k = 0; k < 4096; k++)
		t_words(DATA_BASE)[k] = 0x3f800000 + k;	/* 1.0 and up */
	if (board) {
		t = aligned_alloc(8, (qpu_timing_size() + 7) & ~7ul);
		if (!t)
			exit(1);
	}
	for (run = 0; run < RUNS; run++) {
		struct qpu_emu *emu = t_emu_new(0);
		enum qpu_emu_status status;
		double start, wstart;

		if (t) {
			qpu_timing_init(t, board);
			qpu_emu_init(emu, &tm_ops, t, 0);
		}
#ifndef BENCH_EMU_OLD_API	/* to time an emulator older than the cache */
		qpu_emu_set_predecode(emu, !no_cache);
		/* as libqpu runs it: the QPUs in the model's time order */
		if (t)
			qpu_emu_set_clock(emu, qpu_timing_clock(t));
#endif
		for (k = 0; k < (int)qpus; k++) {
			int q = qpu_emu_start(emu, CODE_BASE, UNIF_BASE);

			if (t && q >= 0)
				qpu_timing_start(t, q, CODE_BASE, UNIF_BASE);
		}
		wstart = bench_now_s();
		start = cpu_now_s();
		do {
			status = qpu_emu_run(emu, 1 << 20);
		} while (status == QPU_EMU_RUNNING);
		r[run] = cpu_now_s() - start;
		wall[run] = bench_now_s() - wstart;
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
	if (t)
		qpu_timing_get_stats(t, model);
	free(t);
	seconds = bench_median(r, RUNS);
	printf("  %-40s %9llu instructions in %6.3f s CPU (%6.3f s wall): %6.2f M/s\n",
	       board ? "  ... timing model on" : name, (unsigned long long)total,
	       seconds, bench_median(wall, RUNS), total / seconds / 1e6);
	return total / seconds;
}

/* The model's figures of a loop on @board, labelled as modelled. */
static void print_model(const struct qpu_timing_board *board,
			const struct qpu_timing_stats *m, unsigned int qpus)
{
	uint64_t n = 0;
	int k;

	for (k = 0; k < QPU_EMU_NUM_QPUS; k++)
		n += m->qpu[k].instructions;
	/* peak: every QPU issuing one instruction every 4 cycles */
	printf("    modelled on %-22s %10llu cycles = %9.1f us, issue %5.1f %% of peak\n",
	       board->label, (unsigned long long)m->cycles, m->ns / 1e3,
	       m->cycles ? 100.0 * n * 4 / ((double)m->cycles * qpus) : 0.0);
}

static double rate(const char *name, void (*build)(struct prog *, uint32_t),
		   uint32_t iterations, unsigned int qpus)
{
	const struct qpu_timing_board *pi1 = qpu_timing_board_get(QPU_TIMING_PI1);
	const struct qpu_timing_board *pi3 = qpu_timing_board_get(QPU_TIMING_PI3);
	struct qpu_timing_stats m1, m3;
	double off, on;

	off = rate_on(name, build, iterations, qpus, NULL, NULL);
	if (no_cache)
		return off;
	on = rate_on(name, build, iterations, qpus, pi1, &m1);
	printf("    timing model costs %.2fx (goal: at most 3x)\n", off / on);
	rate_on(name, build, iterations, qpus, pi3, &m3);
	print_model(pi1, &m1, qpus);
	print_model(pi3, &m3, qpus);
	return off;
}

/*
 * libqpu's sgemm kernel (qpu_sgemm()) on 12 QPUs of the in-process
 * emulator: C (96 x 96) = A (96 x 256) * B (256 x 96). The count is the
 * job's when the wrapper reports it (else the rate is in MFLOP/s); the CPU
 * time includes the wrapper's packing of A on the host.
 */
static void sgemm_rate(void)
{
	const size_t m = 96, n = 96, k = 256;
	struct qpu_kernel_stats st;
	struct qpu_matrix a, b, c;
	double r[RUNS], wall[RUNS], seconds;
	struct qpu_kernels *kernels;
	struct qpu_dev *dev;
	struct qpu_bo *bo;
	float *f;
	int run;

	dev = qpu_dev_open("emu");
	kernels = dev ? qpu_kernels_new(dev) : NULL;
	bo = kernels ? qpu_bo_new(dev, (m * k + k * n + m * n) * 4) : NULL;
	if (!bo) {
		fprintf(stderr, "bench-emu: no emulator device or buffer\n");
		exit(1);
	}
	f = qpu_bo_get_map(bo);
	for (size_t i = 0; i < m * k + k * n; i++)
		f[i] = (float)(i % 7) * 0.25f;
	a = (struct qpu_matrix){ bo, 0, m, k, k };
	b = (struct qpu_matrix){ bo, m * k * 4, k, n, n };
	c = (struct qpu_matrix){ bo, (m * k + k * n) * 4, m, n, n };
	for (run = 0; run < RUNS; run++) {
		double start = cpu_now_s(), wstart = bench_now_s();

		if (qpu_sgemm(kernels, 12, 1.0f, &a, &b, 0.0f, &c, &st)) {
			fprintf(stderr, "bench-emu: sgemm failed: %s\n",
				qpu_kernels_last_error(kernels));
			exit(1);
		}
		r[run] = cpu_now_s() - start;
		wall[run] = bench_now_s() - wstart;
	}
	seconds = bench_median(r, RUNS);
	if (st.instructions_known)
		printf("  %-40s %9llu instructions in %6.3f s CPU (%6.3f s wall): %6.2f M/s\n",
		       "qpu_sgemm 96x256 * 256x96, 12 QPUs",
		       (unsigned long long)st.instructions, seconds,
		       bench_median(wall, RUNS), st.instructions / seconds / 1e6);
	else	/* the wrapper does not report its job's count */
		printf("  %-40s %9s instructions in %6.3f s CPU (%6.3f s wall): %6.1f MFLOP/s\n",
		       "qpu_sgemm 96x256 * 256x96, 12 QPUs", "(unknown)",
		       seconds, bench_median(wall, RUNS),
		       2.0 * m * n * k / seconds / 1e6);
	qpu_bo_free(bo);
	qpu_kernels_free(kernels);
	qpu_dev_close(dev);
}

int main(int argc, char **argv)
{
	no_cache = argc > 1 && !strcmp(argv[1], "nocache");
	printf("qpu emulator on one core of this machine (12 QPUs, median of %d runs%s)\n",
	       RUNS, no_cache ? ", predecoding off" : "");
	rate("float compute (fadd + fmul each instr.)", build_compute, 20000,
	     12);
	rate("integer compute (add + mul24 each instr.)", build_integer,
	     20000, 12);
	rate("sgemm-like (TMU load + 4 fmul/fadd)", build_sgemm, 10000, 12);
	rate("memory loop (TMU load + VDW store)", build_memory, 5000, 12);
	rate("sgemm, every fadd.setf (12 QPUs)", build_flag_sgemm, 20000, 12);
	rate("FFT passes: DMA, VPM, TMU, barrier (8)", build_fft, 12000, 8);
	if (!no_cache)
		sgemm_rate();
	printf("  goal: 30 M/s on compute-heavy code\n");
	return 0;
}
