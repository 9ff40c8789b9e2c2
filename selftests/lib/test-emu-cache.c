// SPDX-License-Identifier: MIT
/*
 * test-emu-cache: the predecoded-instruction cache, the fetch window and
 * the fast path the cache enables.
 * Code rewritten while it runs (by the program's own VCD DMA store, and by
 * the host between two qpu_emu_run() calls) runs as rewritten; two
 * programs whose addresses share a cache slot both run right; a window is
 * translated once per run and block, falls back to single words where
 * translate() refuses a long window, and is forgotten between runs (a
 * buffer moved between calls is fetched from its new place); a fault on
 * the fast path stops every QPU; an fmul of a uniform is right whichever
 * input the uniform is. Each program also runs with the cache off and
 * must leave the same state.
 */
#include "test-emu.h"

#define W_R5		37
#define W_TLB_Z		44	/* not for user programs: a fault */

#define VDR(rowlen, nrows, base) \
	(0x80000000u | ((rowlen) & 15u) << 20 | ((nrows) & 15u) << 16 | \
	 1u << 12 | (uint32_t)(base))
#define VDW(units, depth, base) \
	(0x80000000u | ((units) & 127u) << 23 | ((depth) & 127u) << 16 | \
	 1u << 14 | (uint32_t)(base) << 3)

static uint64_t encode(struct qpu_isa_instr in)
{
	uint64_t w = 0;

	T_EQ_U64(0, qpu_isa_encode(&in, &w));
	return w;
}

/* add r1, r1, @n (a small immediate) */
static struct qpu_isa_instr i_add_r1(unsigned int n)
{
	return i_smi(i_add(QPU_ISA_A_ADD, W_R1, QPU_ISA_MUX_R1, QPU_ISA_MUX_B),
		     n);
}

static uint32_t r1_lane0(struct qpu_emu *emu, unsigned int qpu)
{
	uint32_t r[16];

	T_EQ_U64(0, qpu_emu_get_reg(emu, qpu, QPU_EMU_FILE_ACC, 1, r));
	return r[0];
}

/*
 * Three iterations of a loop whose first instruction adds 1 to r1; the
 * loop's body DMA-loads the two words of "add r1, r1, 8" from DATA_BASE
 * into the VPM and DMA-stores them over that first instruction. The first
 * iteration adds 1, the next two 8: r1 = 17. A stale decode would give 3.
 */
static void test_dma_rewrites_code(bool predecode)
{
	struct qpu_emu *emu = t_emu_new(0);
	struct prog p = prog_at(CODE_BASE);
	uint64_t patch = encode(i_add_r1(8));
	uint32_t loop;

	qpu_emu_set_predecode(emu, predecode);
	t_words(DATA_BASE)[0] = (uint32_t)patch;
	t_words(DATA_BASE)[1] = (uint32_t)(patch >> 32);
	emit(&p, i_ldi(W_R0, 3));
	emit(&p, i_ldi(W_R1, 0));
	loop = p.addr + p.n * 8;
	emit(&p, i_add_r1(1));
	emit(&p, i_ldi(W_VPM_SETUP, VDR(2, 1, 0)));
	emit(&p, i_ldi(W_DMA_ADDR, DATA_BASE));
	emit(&p, i_read(R_WAIT, R_NOP));
	emit(&p, i_ldi_b(W_VPM_SETUP, VDW(1, 2, 0)));
	emit(&p, i_ldi_b(W_DMA_ADDR, loop));
	emit(&p, i_read(R_NOP, R_WAIT));
	emit_loop_end(&p, loop);
	emit_end(&p);
	T_EQ_U64(QPU_EMU_IDLE, t_run1(emu, CODE_BASE, UNIF_BASE));
	T_EQ_U64(17, r1_lane0(emu, 0));
	T_EQ_U64(patch, (uint64_t)t_words(loop)[1] << 32 | t_words(loop)[0]);
	free(emu);
}

T_TEST(dma_rewrites_code_predecoded)
{
	test_dma_rewrites_code(true);
}

T_TEST(dma_rewrites_code)
{
	test_dma_rewrites_code(false);
}

/*
 * Code rewritten under a QPU that waits on a semaphore: QPU 0 blocks on an
 * acquire of semaphore 2 at CODE_BASE; QPU 1 DMA-stores "ldi r1, 5" over
 * it and releases semaphore 3, which wakes every waiting QPU: QPU 0 fetches
 * again, runs the ldi and ends (r1 = 5). A wait re-checked against the old
 * word instead would deadlock.
 */
static void test_dma_rewrites_waiting(bool predecode)
{
	struct qpu_emu *emu = t_emu_new(0);
	struct prog w = prog_at(CODE_BASE), p = prog_at(CODE_BASE + 0x100);
	uint64_t patch = encode(i_ldi(W_R1, 5));

	qpu_emu_set_predecode(emu, predecode);
	t_words(DATA_BASE)[0] = (uint32_t)patch;
	t_words(DATA_BASE)[1] = (uint32_t)(patch >> 32);
	emit(&w, i_sema(2, true));
	emit_end(&w);
	emit(&p, i_ldi(W_VPM_SETUP, VDR(2, 1, 0)));
	emit(&p, i_ldi(W_DMA_ADDR, DATA_BASE));
	emit(&p, i_read(R_WAIT, R_NOP));
	emit(&p, i_ldi_b(W_VPM_SETUP, VDW(1, 2, 0)));
	emit(&p, i_ldi_b(W_DMA_ADDR, CODE_BASE));
	emit(&p, i_read(R_NOP, R_WAIT));
	emit(&p, i_sema(3, false));
	emit_end(&p);
	T_EQ_U64(0, qpu_emu_start(emu, CODE_BASE, UNIF_BASE));
	T_EQ_U64(1, qpu_emu_start(emu, CODE_BASE + 0x100, UNIF_BASE));
	T_EQ_U64(QPU_EMU_IDLE, qpu_emu_run(emu, 1000));
	T_EQ_U64(5, r1_lane0(emu, 0));
	T_EQ_U64(1, qpu_emu_get_semaphore(emu, 3));
	free(emu);
}

T_TEST(dma_rewrites_waiting_predecoded)
{
	test_dma_rewrites_waiting(true);
}

T_TEST(dma_rewrites_waiting)
{
	test_dma_rewrites_waiting(false);
}

/*
 * A 100-iteration loop adding 1; after 203 instructions (run in slices of
 * 7, so decodes outlive many calls) the host rewrites the add to add 2.
 */
static void test_host_rewrites_code(bool predecode)
{
	struct qpu_emu *emu = t_emu_new(0);
	struct prog p = prog_at(CODE_BASE);
	uint64_t patch = encode(i_add_r1(2));
	uint32_t loop, before;
	enum qpu_emu_status st;

	qpu_emu_set_predecode(emu, predecode);
	emit(&p, i_ldi(W_R0, 100));
	emit(&p, i_ldi(W_R1, 0));
	loop = p.addr + p.n * 8;
	emit(&p, i_add_r1(1));
	emit_loop_end(&p, loop);
	emit_end(&p);
	T_EQ_U64(0, qpu_emu_start(emu, CODE_BASE, UNIF_BASE));
	do {
		st = qpu_emu_run(emu, 7);
	} while (st == QPU_EMU_RUNNING &&
		 qpu_emu_get_stats(emu)->instructions[0] < 200);
	T_EQ_U64(QPU_EMU_RUNNING, st);
	/*
	 * 203 instructions: 2 set-up ones, 33 iterations of 6 and the add,
	 * sub and branch of the 34th. The other 66 iterations add 2.
	 */
	T_EQ_U64(203, qpu_emu_get_stats(emu)->instructions[0]);
	before = r1_lane0(emu, 0);
	T_EQ_U64(34, before);
	t_words(loop)[0] = (uint32_t)patch;
	t_words(loop)[1] = (uint32_t)(patch >> 32);
	T_EQ_U64(QPU_EMU_IDLE, qpu_emu_run(emu, 100000));
	T_EQ_U64(before + 2 * (100 - before), r1_lane0(emu, 0));
	free(emu);
}

T_TEST(host_rewrites_code_predecoded)
{
	test_host_rewrites_code(true);
}

T_TEST(host_rewrites_code)
{
	test_host_rewrites_code(false);
}

/*
 * Programs 8 KiB apart share every cache slot (1024 entries of 8 bytes):
 * run together, round-robin, each must still run its own code.
 */
T_TEST(aliasing)
{
	struct qpu_emu *emu = t_emu_new(0);
	struct prog a = prog_at(CODE_BASE), b = prog_at(CODE_BASE + 8192);
	uint32_t loop;

	emit(&a, i_ldi(W_R0, 50));
	emit(&a, i_ldi(W_R1, 0));
	loop = a.addr + a.n * 8;
	emit(&a, i_add_r1(1));
	emit_loop_end(&a, loop);
	emit_end(&a);
	emit(&b, i_ldi(W_R0, 50));
	emit(&b, i_ldi(W_R1, 0));
	loop = b.addr + b.n * 8;
	emit(&b, i_add_r1(3));
	emit_loop_end(&b, loop);
	emit_end(&b);
	T_EQ_U64(0, qpu_emu_start(emu, a.addr, UNIF_BASE));
	T_EQ_U64(1, qpu_emu_start(emu, b.addr, UNIF_BASE));
	T_EQ_U64(QPU_EMU_IDLE, qpu_emu_run(emu, 100000));
	T_EQ_U64(50, r1_lane0(emu, 0));
	T_EQ_U64(150, r1_lane0(emu, 1));
	free(emu);
}

/*
 * A translate() that counts fetch translations, refuses fetch windows
 * longer than @max_fetch bytes, and maps CODE_BASE to @code_host (to move
 * the code between runs).
 */
static unsigned int fetches;
static uint32_t max_fetch = ~0u;
static uint8_t *code_host;

static void *counting_translate(void *ctx, uint32_t addr, uint32_t len,
				enum qpu_mem_access kind)
{
	(void)ctx;
	if (kind == QPU_MEM_FETCH) {
		fetches++;
		if (len > max_fetch)
			return NULL;
		if (code_host && addr >= CODE_BASE &&
		    addr - CODE_BASE <= 4096 - len)
			return code_host + (addr - CODE_BASE);
	}
	return t_translate(NULL, addr, len, kind);
}

static const struct qpu_emu_ops counting_ops = {
	.translate = counting_translate,
};

/* A 100-iteration loop of 6 instructions at CODE_BASE: r1 = 100 * @n. */
static void emit_counting_loop(unsigned int n)
{
	struct prog p = prog_at(CODE_BASE);
	uint32_t loop;

	emit(&p, i_ldi(W_R0, 100));
	emit(&p, i_ldi(W_R1, 0));
	loop = p.addr + p.n * 8;
	emit(&p, i_add_r1(n));
	emit_loop_end(&p, loop);
	emit_end(&p);
}

T_TEST(fetch_window)
{
	struct qpu_emu *emu;
	static uint8_t moved[4096];
	uint64_t total;

#ifdef QPU_EMU_REFERENCE_PATH
	T_SKIP("counts the fetch window's translations, which the reference path has not");
#endif
	emu = t_emu_new(0);

	/* one run: one window translation for 605 instructions */
	emit_counting_loop(1);
	qpu_emu_init(emu, &counting_ops, NULL, 0);
	fetches = 0;
	T_EQ_U64(0, qpu_emu_start(emu, CODE_BASE, UNIF_BASE));
	T_EQ_U64(QPU_EMU_IDLE, qpu_emu_run(emu, 100000));
	total = qpu_emu_get_stats(emu)->instructions[0];
	T_EQ_U64(2 + 100 * 6 + 3, total);
	T_EQ_U64(1, fetches);
	T_EQ_U64(100, r1_lane0(emu, 0));

	/* windows refused: every instruction fetched by itself */
	qpu_emu_reset(emu);
	max_fetch = 8;
	fetches = 0;
	T_EQ_U64(0, qpu_emu_start(emu, CODE_BASE, UNIF_BASE));
	T_EQ_U64(QPU_EMU_IDLE, qpu_emu_run(emu, 100000));
	T_EQ_U64(100, r1_lane0(emu, 0));
	/* each fetch asks for a window first, then for the word */
	T_EQ_U64(2 * total, fetches);
	max_fetch = ~0u;

	/* cache off: translate() for every instruction */
	qpu_emu_reset(emu);
	qpu_emu_set_predecode(emu, false);
	fetches = 0;
	T_EQ_U64(0, qpu_emu_start(emu, CODE_BASE, UNIF_BASE));
	T_EQ_U64(QPU_EMU_IDLE, qpu_emu_run(emu, 100000));
	T_EQ_U64(total, fetches);
	T_EQ_U64(100, r1_lane0(emu, 0));
	qpu_emu_set_predecode(emu, true);

	/*
	 * The code moves between two runs (the caller remapped its buffer):
	 * the second run fetches from the new copy, which adds 5.
	 */
	qpu_emu_reset(emu);
	T_EQ_U64(0, qpu_emu_start(emu, CODE_BASE, UNIF_BASE));
	T_EQ_U64(QPU_EMU_RUNNING, qpu_emu_run(emu, 2 + 6 * 10));
	T_EQ_U64(10, r1_lane0(emu, 0));
	emit_counting_loop(5);
	memcpy(moved, t_words(CODE_BASE), sizeof(moved));
	emit_counting_loop(1);
	code_host = moved;
	T_EQ_U64(QPU_EMU_IDLE, qpu_emu_run(emu, 100000));
	code_host = NULL;
	T_EQ_U64(10 + 5 * 90, r1_lane0(emu, 0));
	free(emu);
}

/*
 * Uniform and TMU reads go through windows like fetches. A translate()
 * that grants uniforms and TMU data only below a limit inside a 4 KiB
 * block (windows asked for the rest of the block are refused) must give
 * the same fault (QPU, PC, address, access), stats and registers with the
 * cache on as off, and with it on ask for far fewer uniform translations.
 */
static uint32_t limit_unif = ~0u, limit_tmu = ~0u;
static unsigned int unif_calls;

static void *limiting_translate(void *ctx, uint32_t addr, uint32_t len,
				enum qpu_mem_access kind)
{
	(void)ctx;
	if (kind == QPU_MEM_UNIFORM) {
		unif_calls++;
		if (addr + len > limit_unif)
			return NULL;
	}
	if (kind == QPU_MEM_TMU && addr + len > limit_tmu)
		return NULL;
	return t_translate(NULL, addr, len, kind);
}

static const struct qpu_emu_ops limiting_ops = {
	.translate = limiting_translate,
};

struct limited_run {
	enum qpu_emu_status status;
	struct qpu_fault fault;
	struct qpu_emu_stats stats;
	uint32_t r1[16];
	unsigned int unif_calls;
};

static void run_limited(struct qpu_emu *emu, bool cache, uint32_t code,
			struct limited_run *out)
{
	qpu_emu_init(emu, &limiting_ops, NULL, 0);
	qpu_emu_set_predecode(emu, cache);
	unif_calls = 0;
	T_EQ_U64(0, qpu_emu_start(emu, code, UNIF_BASE));
	/* several calls: the windows are forgotten between them */
	do
		out->status = qpu_emu_run(emu, 37);
	while (out->status == QPU_EMU_RUNNING);
	memset(&out->fault, 0, sizeof(out->fault));
	if (out->status == QPU_EMU_FAULT)
		out->fault = *qpu_emu_get_fault(emu);
	out->stats = *qpu_emu_get_stats(emu);
	T_EQ_U64(0, qpu_emu_get_reg(emu, 0, QPU_EMU_FILE_ACC, 1, out->r1));
	out->unif_calls = unif_calls;
}

static void check_limited(uint32_t code, enum qpu_emu_status want,
			  uint32_t fault_addr, enum qpu_mem_access access,
			  struct limited_run *on)
{
	struct qpu_emu *emu = t_emu_new(0);
	struct limited_run off;

	run_limited(emu, true, code, on);
	run_limited(emu, false, code, &off);
	T_EQ_U64(want, on->status);
	T_EQ_U64(off.status, on->status);
	T_EQ_U64(off.fault.reason, on->fault.reason);
	T_EQ_U64(off.fault.qpu, on->fault.qpu);
	T_EQ_U64(off.fault.pc, on->fault.pc);
	T_EQ_U64(off.fault.addr, on->fault.addr);
	T_EQ_U64(off.fault.access, on->fault.access);
	if (want == QPU_EMU_FAULT) {
		T_EQ_U64(fault_addr, on->fault.addr);
		T_EQ_U64(access, on->fault.access);
	}
	T_CHECK(!memcmp(&off.stats, &on->stats, sizeof(off.stats)));
	T_CHECK(!memcmp(off.r1, on->r1, sizeof(off.r1)));
	free(emu);
}

T_TEST(data_windows)
{
	struct prog p = prog_at(CODE_BASE);
	struct limited_run on;
	uint32_t *u = t_words(UNIF_BASE), *d = t_words(DATA_BASE);
	struct qpu_isa_instr in;
	unsigned int i;

	for (i = 0; i < 80; i++)
		u[i] = i + 1;
	for (i = 0; i < 256; i++)
		d[i] = 1000 * i;

	/* 80 uniforms added to r1 */
	emit(&p, i_ldi(W_R1, 0));
	for (i = 0; i < 80; i++) {
		in = i_add(QPU_ISA_A_ADD, W_R1, QPU_ISA_MUX_R1, QPU_ISA_MUX_A);
		in.raddr_a = R_UNIF;
		emit(&p, in);
	}
	emit_end(&p);

	/* all granted: 80 * 81 / 2, a few window translations */
	check_limited(CODE_BASE, QPU_EMU_IDLE, 0, 0, &on);
	T_EQ_U64(80 * 81 / 2, on.r1[0]);
	T_CHECK(on.unif_calls < 10);
	/* counted per uniform read, not per window granted */
	T_EQ_U64(80 * 4, on.stats.uniform_bytes);

	/* granted up to UNIF_BASE + 0x104: the 66th uniform faults */
	limit_unif = UNIF_BASE + 0x104;
	check_limited(CODE_BASE, QPU_EMU_FAULT, UNIF_BASE + 0x104,
		      QPU_MEM_UNIFORM, &on);
	T_EQ_U64(65 * 66 / 2, on.r1[0]);
	limit_unif = ~0u;

	/*
	 * TMU: ra1 = elem_num * 4, r2 = 64; 8 times: request r1 + ra1,
	 * ldtmu0, r1 += r4 lane sum stand-in (r3 += r4), r1 moves on.
	 */
	p = prog_at(CODE_BASE + 0x2000);
	in = i_smi(i_add(QPU_ISA_A_SHL, 1, QPU_ISA_MUX_A, QPU_ISA_MUX_B), 2);
	in.raddr_a = R_ELEM;
	emit(&p, in);
	emit(&p, i_ldi(W_R2, 64));
	emit(&p, i_ldi(W_R0, DATA_BASE));
	emit(&p, i_ldi(W_R1, 0));
	for (i = 0; i < 8; i++) {
		in = i_add(QPU_ISA_A_ADD, W_TMU0_S, QPU_ISA_MUX_R0,
			   QPU_ISA_MUX_A);
		in.raddr_a = 1;
		emit(&p, in);
		emit(&p, i_sig(QPU_ISA_SIG_LDTMU0));
		emit(&p, i_add(QPU_ISA_A_ADD, W_R1, QPU_ISA_MUX_R1,
			       QPU_ISA_MUX_R4));
		emit(&p, i_add(QPU_ISA_A_ADD, W_R0, QPU_ISA_MUX_R0,
			       QPU_ISA_MUX_R2));
	}
	emit_end(&p);

	check_limited(CODE_BASE + 0x2000, QPU_EMU_IDLE, 0, 0, &on);
	/* lane 0 reads d[16 k] for k = 0..7 */
	T_EQ_U64(1000 * 16 * 28, on.r1[0]);

	/* granted up to DATA_BASE + 0x108: lane 2 of request 4 faults */
	limit_tmu = DATA_BASE + 0x108;
	check_limited(CODE_BASE + 0x2000, QPU_EMU_FAULT, DATA_BASE + 0x108,
		      QPU_MEM_TMU, &on);
	T_EQ_U64(1000 * 16 * 6, on.r1[0]);
	T_EQ_U64(4 * 16 * 4 + 2 * 4, on.stats.tmu_bytes);
	limit_tmu = ~0u;
}

/* Run the program at CODE_BASE; its status, r1, r4 and r5 lanes 0. */
static void run_regs(bool predecode, uint32_t *out)
{
	struct qpu_emu *emu = t_emu_new(0);
	uint32_t r[16];

	qpu_emu_set_predecode(emu, predecode);
	out[0] = t_run1(emu, CODE_BASE, UNIF_BASE);
	for (unsigned int i = 0; i < 3; i++) {
		T_EQ_U64(0, qpu_emu_get_reg(emu, 0, QPU_EMU_FILE_ACC,
					    i ? 3 + i : 1, r));
		out[1 + i] = r[0];
	}
	free(emu);
}

/*
 * Orders the fast path (exec_alu_fast(), predecoding on) must keep, each
 * against predecoding off and the expected values: a mul reading r5 in
 * the instruction whose add writes it reads the old r5; an ldtmu in an
 * instruction whose add write faults (a TLB register) does not pop; VPM
 * reads as both ALU inputs read one vector.
 */
T_TEST(fast_path_order)
{
	static const struct {
		uint32_t status, r1, r4, r5;
	} want[] = {
		{ QPU_EMU_IDLE, 14, 0, 7 },	/* r1 = old r5 * 2 */
		{ QPU_EMU_FAULT, 0, 0, 0 },	/* r4 not popped */
		{ QPU_EMU_IDLE, 10, 0, 0 },	/* r1 = vpm + vpm, once */
	};

	for (unsigned int t = 0; t < 3; t++) {
		struct prog p = prog_at(CODE_BASE);
		struct qpu_isa_instr in;
		uint32_t on[4], off[4];

		if (t == 0) {
			emit(&p, i_ldi(W_R5, 7));
			emit(&p, i_ldi(W_R2, 2));
			/* add r5, r5, r5; mul24 r1, r5, r2 */
			in = i_add(QPU_ISA_A_ADD, W_R5, QPU_ISA_MUX_R5,
				   QPU_ISA_MUX_R5);
			in.op_mul = QPU_ISA_M_MUL24;
			in.cond_mul = QPU_ISA_COND_ALWAYS;
			in.waddr_mul = W_R1;
			in.mul_a = QPU_ISA_MUX_R5;
			in.mul_b = QPU_ISA_MUX_R2;
			emit(&p, in);
			emit(&p, i_ldi(W_R5, 7));	/* r5 back */
		} else if (t == 1) {
			t_words(DATA_BASE)[0] = 99;
			emit(&p, i_ldi(W_R0, DATA_BASE));
			emit(&p, i_mov(W_TMU0_S, QPU_ISA_MUX_R0));
			/* mov tlb_z, r0 (faults); ldtmu0 */
			in = i_mov(W_TLB_Z, QPU_ISA_MUX_R0);
			in.sig = QPU_ISA_SIG_LDTMU0;
			emit(&p, in);
		} else {
			emit(&p, i_ldi(W_R0, 5));
			emit(&p, i_ldi_b(W_VPM_SETUP, 0x1a00));	/* row 0 */
			emit(&p, i_mov(W_VPM, QPU_ISA_MUX_R0));
			emit(&p, i_ldi(W_VPM_SETUP, 0x101a00));	/* read 1 */
			in = i_add(QPU_ISA_A_ADD, W_R1, QPU_ISA_MUX_A,
				   QPU_ISA_MUX_B);
			in.raddr_a = R_VPM;
			in.raddr_b = R_VPM;
			emit(&p, in);
		}
		emit_end(&p);
		run_regs(true, on);
		run_regs(false, off);
		T_CHECK(!memcmp(on, off, sizeof(on)));
		T_EQ_U64(want[t].status, on[0]);
		T_EQ_U64(want[t].r1, on[1]);
		T_EQ_U64(want[t].r4, on[2]);
		T_EQ_U64(want[t].r5, on[3]);
	}
}

/* A loop of @in and a relative branch back to it, forever. */
static void emit_forever(uint32_t addr, struct qpu_isa_instr in)
{
	struct prog p = prog_at(addr);

	emit(&p, in);
	emit(&p, i_branch(QPU_ISA_BR_ALWAYS, true, addr - (addr + 8 + 32)));
	for (int i = 0; i < 3; i++)
		emit(&p, i_nop());
}

/*
 * QPU 1 loops over "mov r0, unif" with its uniform stream at the last word
 * of the region, QPUs 0 and 2 over "add r1, r1, 1": its second uniform
 * read faults in round 6, when the instruction is predecoded and runs on
 * the fast path, and the fault ends the run there, for every QPU. The
 * counts of issued instructions and r1 show that the QPU after it ran no
 * further, as with predecoding off.
 */
static void run_fault_stops(bool predecode, uint64_t *out)
{
	struct qpu_emu *emu = t_emu_new(0);
	struct qpu_isa_instr in = i_mov(W_R0, QPU_ISA_MUX_A);
	const struct qpu_emu_stats *st;

	in.raddr_a = R_UNIF;
	qpu_emu_set_predecode(emu, predecode);
	emit_forever(CODE_BASE, i_add_r1(1));
	emit_forever(CODE_BASE + 0x100, in);
	T_EQ_U64(0, qpu_emu_start(emu, CODE_BASE, UNIF_BASE));
	T_EQ_U64(1, qpu_emu_start(emu, CODE_BASE + 0x100,
				  UNIF_BASE + REGION_BYTES - 4));
	T_EQ_U64(2, qpu_emu_start(emu, CODE_BASE, UNIF_BASE));
	out[0] = qpu_emu_run(emu, 1000);
	out[1] = qpu_emu_get_fault(emu)->qpu;
	out[2] = qpu_emu_get_fault(emu)->pc;
	st = qpu_emu_get_stats(emu);
	for (unsigned int k = 0; k < 3; k++)
		out[3 + k] = st->instructions[k];
	out[6] = r1_lane0(emu, 0);
	out[7] = r1_lane0(emu, 2);
	free(emu);
}

T_TEST(fast_path_fault_stops_all)
{
	const uint64_t want[] = {
		QPU_EMU_FAULT, 1, CODE_BASE + 0x100, 6, 6, 5, 2, 1,
	};
	uint64_t on[8], off[8];

	run_fault_stops(true, on);
	run_fault_stops(false, off);
	for (unsigned int i = 0; i < 8; i++) {
		T_EQ_U64(want[i], on[i]);
		T_EQ_U64(want[i], off[i]);
	}
}

/*
 * fadd r3, r2, r2 with fmul of a uniform (2.0) and r2 = 0.0, 1.0, ...,
 * 15.0 in one instruction, the uniform the fmul's first input (mul_a) and
 * then its second: each lane of r1 must be 2 * lane, with predecoding on
 * (qpu_emu_exec_float()'s fused step, which puts the uniform second) and
 * off.
 */
T_TEST(fast_fmul_of_uniform)
{
	for (unsigned int t = 0; t < 4; t++) {
		struct qpu_emu *emu = t_emu_new(0);
		struct prog p = prog_at(CODE_BASE);
		struct qpu_isa_instr in;
		uint32_t r[16];

		qpu_emu_set_predecode(emu, t < 2);
		t_words(UNIF_BASE)[0] = t_f2u(2.0f);
		in = i_add(QPU_ISA_A_ITOF, W_R2, QPU_ISA_MUX_A, QPU_ISA_MUX_A);
		in.raddr_a = R_ELEM;
		emit(&p, in);
		in = i_add(QPU_ISA_A_FADD, W_R3, QPU_ISA_MUX_R2,
			   QPU_ISA_MUX_R2);
		in.op_mul = QPU_ISA_M_FMUL;
		in.cond_mul = QPU_ISA_COND_ALWAYS;
		in.waddr_mul = W_R1;
		in.mul_a = t & 1 ? QPU_ISA_MUX_R2 : QPU_ISA_MUX_A;
		in.mul_b = t & 1 ? QPU_ISA_MUX_A : QPU_ISA_MUX_R2;
		in.raddr_a = R_UNIF;
		emit(&p, in);
		emit_end(&p);
		T_EQ_U64(QPU_EMU_IDLE, t_run1(emu, CODE_BASE, UNIF_BASE));
		T_EQ_U64(0, qpu_emu_get_reg(emu, 0, QPU_EMU_FILE_ACC, 1, r));
		for (unsigned int i = 0; i < 16; i++)
			T_EQ_U64(t_f2u(2.0f * i), r[i]);
		T_EQ_U64(0, qpu_emu_get_reg(emu, 0, QPU_EMU_FILE_ACC, 3, r));
		for (unsigned int i = 0; i < 16; i++)
			T_EQ_U64(t_f2u(2.0f * i), r[i]);
		free(emu);
	}
}

T_MAIN()
