// SPDX-License-Identifier: MIT
/*
 * test-timing: the timing model (libqpu/core/timing) on the emulator's
 * hooks. Fixed programs take the same cycles on every run, and each
 * QPU's cycles are its instructions times 4 plus its stalls; each latency
 * parameter is measured by a micro-program as one would on hardware (the
 * stall of a read right after the write, which grows by exactly what the
 * parameter grows by), the uniforms cache's too, and a moved uniform
 * stream that comes back hits it; the emulator runs the QPUs in the
 * model's time order; more TMU traffic never costs fewer cycles; every
 * parameter of every board has a source; the emu device reports a job's
 * modelled time only when a board is set, refusing unknown boards; and
 * qpu_emulator_set_board() works before a start only; the sample kernels
 * hand their jobs' summed modelled time over once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "qpu.h"
#include "qpu_emit.h"
#include "qpu_emulator.h"
#include "qpu_kernels.h"
#include "qpu_timing.h"
#include "qpu_vpm.h"
#include "test-emu.h"

/* Round-robin instead of the model's clocks; a pick earlier than the last. */
static bool tm_round_robin, tm_out_of_order;
static uint64_t tm_last_clock;

static void tm_trace(void *ctx, unsigned int qpu, uint32_t pc, uint64_t word)
{
	uint64_t clock = qpu_timing_clock(ctx)[qpu];

	if (clock + QPU_EMU_CLOCK_SLACK < tm_last_clock)
		tm_out_of_order = true;
	tm_last_clock = clock;
	qpu_timing_issue(ctx, qpu, pc, word);
}

static void tm_event(void *ctx, const struct qpu_emu_event *ev)
{
	qpu_timing_event(ctx, ev);
}

/* The test's memory under any of the four bus aliases, as SDRAM is. */
static void *tm_translate(void *ctx, uint32_t addr, uint32_t len,
			  enum qpu_mem_access kind)
{
	return t_translate(ctx, addr & ~QPU_TIMING_ALIAS_MASK, len, kind);
}

static const struct qpu_emu_ops tm_ops = {
	.translate = tm_translate,
	.trace = tm_trace,
	.event = tm_event,
};

/* A param override for one run: id, value (id QPU_TIMING_NUM_PARAMS: none). */
struct tm_set {
	unsigned int id;
	uint32_t value;
};

/*
 * Run the programs at @code[0..n) (uniforms at UNIF_BASE) to their end on
 * a Pi 1 model with @sets[0..nsets) applied, and give its statistics.
 */
static void tm_run_sets(const uint32_t *code, unsigned int n,
			const struct tm_set *sets, unsigned int nsets,
			bool predecode, struct qpu_timing_stats *st)
{
	struct qpu_emu *emu = t_emu_new(0);
	struct qpu_timing *t = aligned_alloc(8, (qpu_timing_size() + 7) & ~7ul);
	unsigned int i;

	if (!t)
		exit(T_EXIT_FAIL);
	qpu_timing_init(t, qpu_timing_board_get(QPU_TIMING_PI1));
	for (i = 0; i < nsets; i++)
		qpu_timing_set_param(t, sets[i].id, sets[i].value);
	qpu_emu_init(emu, &tm_ops, t, 0);
	qpu_emu_set_predecode(emu, predecode);
	qpu_emu_set_clock(emu, tm_round_robin ? NULL : qpu_timing_clock(t));
	tm_out_of_order = false;
	tm_last_clock = 0;
	for (i = 0; i < n; i++) {
		int q = qpu_emu_start(emu, code[i], UNIF_BASE);

		T_EQ_U64(i, q);
		qpu_timing_start(t, i, code[i], UNIF_BASE);
	}
	T_EQ_U64(QPU_EMU_IDLE, qpu_emu_run(emu, 1000000));
	qpu_timing_get_stats(t, st);
	free(t);
	free(emu);
}

static void tm_run_mode(const uint32_t *code, unsigned int n,
			struct tm_set set, bool predecode,
			struct qpu_timing_stats *st)
{
	tm_run_sets(code, n, &set, 1, predecode, st);
}

static void tm_run(const uint32_t *code, unsigned int n, struct tm_set set,
		   struct qpu_timing_stats *st)
{
	tm_run_mode(code, n, set, true, st);
}

static const struct tm_set none = { QPU_TIMING_NUM_PARAMS, 0 };

static uint64_t stall_of(const struct qpu_timing_stats *st, unsigned int qpu,
			 enum qpu_timing_stall why)
{
	return st->qpu[qpu].stall[why];
}

/* A QPU's time is its instructions at 4 cycles each plus its stalls. */
static void expect_accounted(const struct qpu_timing_stats *st, unsigned int qpu)
{
	const struct qpu_timing_qpu_stats *q = &st->qpu[qpu];
	uint64_t sum = q->instructions * 4;
	unsigned int k;

	for (k = 0; k < QPU_TIMING_NUM_STALLS; k++)
		sum += q->stall[k];
	T_EQ_U64(q->end - q->start, sum);
}

/* 1. N nops: 4 cycles each, plus the cold instruction cache; deterministic. */
T_TEST(issue_rate)
{
	struct qpu_timing_stats a, b;
	struct prog p = prog_at(CODE_BASE);
	uint32_t code = CODE_BASE;
	unsigned int i;

	for (i = 0; i < 40; i++)
		emit(&p, i_nop());
	emit_end(&p);
	tm_run(&code, 1, none, &a);
	tm_run(&code, 1, none, &b);
	T_EQ_U64(43, a.qpu[0].instructions);
	T_EQ_U64(a.cycles, b.cycles);
	T_CHECK(stall_of(&a, 0, QPU_TIMING_STALL_FETCH) > 0);
	T_EQ_U64(a.cycles, 43 * 4 + stall_of(&a, 0, QPU_TIMING_STALL_FETCH));
	expect_accounted(&a, 0);
	/* the Pi 1's V3D runs at 250 MHz: 4 ns a cycle */
	T_EQ_U64(a.cycles * 4, a.ns);
	/* a slower issue is seen in full */
	tm_run(&code, 1, (struct tm_set){ QPU_TP_ISSUE_CYCLES, 8 }, &b);
	T_EQ_U64(a.cycles + 43 * 4, b.cycles);
}

/*
 * The stall of QPU 0 for @why in the program @emit_prog emits, with
 * @sets[0..n) applied.
 */
static uint64_t stall_sets(void (*emit_prog)(struct prog *p),
			   const struct tm_set *sets, unsigned int n,
			   enum qpu_timing_stall why)
{
	struct qpu_timing_stats st;
	struct prog p = prog_at(CODE_BASE);
	uint32_t code = CODE_BASE;

	emit_prog(&p);
	emit_end(&p);
	tm_run_sets(&code, 1, sets, n, true, &st);
	expect_accounted(&st, 0);
	return stall_of(&st, 0, why);
}

/* The same with parameter @id at @value. */
static uint64_t stall_with(void (*emit_prog)(struct prog *p), unsigned int id,
			   uint32_t value, enum qpu_timing_stall why)
{
	struct tm_set set = { id, value };

	return stall_sets(emit_prog, &set, 1, why);
}

/* ldi ra0, 5; mov r0, ra0 (the next instruction reads it) */
static void emit_regfile(struct prog *p)
{
	struct qpu_isa_instr in = i_mov(W_R0, QPU_ISA_MUX_A);

	emit(p, i_ldi(0, 5));
	in.raddr_a = 0;
	emit(p, in);
}

/* recip = r1; mov r0, r4 (at once) */
static void emit_sfu(struct prog *p)
{
	emit(p, i_mov(W_SFU_RECIP, QPU_ISA_MUX_R1));
	emit(p, i_mov(W_R0, QPU_ISA_MUX_R4));
}

/* vr_setup = 1 row; read vpm (at once) */
static void emit_vpm(struct prog *p)
{
	emit(p, i_ldi(W_VPM_SETUP, 0x00101a00));
	emit(p, i_read(R_VPM, R_NOP));
}

/* tmu0_s = DATA_BASE (lane i at + 4 i); ldtmu0 at once */
static void emit_tmu(struct prog *p)
{
	struct qpu_isa_instr in = i_add(QPU_ISA_A_SHL, W_R1, QPU_ISA_MUX_A,
					QPU_ISA_MUX_B);

	in = i_smi(in, 2);
	in.raddr_a = R_ELEM;
	emit(p, in);				/* r1 = elem_num << 2 */
	emit(p, i_ldi(W_R0, DATA_BASE));
	emit(p, i_add(QPU_ISA_A_ADD, W_TMU0_S, QPU_ISA_MUX_R0, QPU_ISA_MUX_R1));
	emit(p, i_sig(QPU_ISA_SIG_LDTMU0));
}

/* emit_tmu() twice: the second lookup hits the TMU cache */
static void emit_tmu_twice(struct prog *p)
{
	emit_tmu(p);
	emit(p, i_add(QPU_ISA_A_ADD, W_TMU0_S, QPU_ISA_MUX_R0, QPU_ISA_MUX_R1));
	emit(p, i_sig(QPU_ISA_SIG_LDTMU0));
}

static void emit_thrsw(struct prog *p)
{
	emit(p, i_sig(QPU_ISA_SIG_THRSW));
	emit(p, i_nop());
	emit(p, i_nop());
}

/* 2. Each latency parameter, as its micro-program measures it. */
T_TEST(latencies)
{
	/* regfile: 1 instruction, so the read waits one issue (4 cycles) */
	T_EQ_U64(4, stall_with(emit_regfile, QPU_TIMING_NUM_PARAMS, 0,
			       QPU_TIMING_STALL_REGFILE));
	T_EQ_U64(12, stall_with(emit_regfile, QPU_TP_REGFILE_LATENCY, 3,
				QPU_TIMING_STALL_REGFILE));
	/* SFU: r4 two instructions after the write */
	T_EQ_U64(8, stall_with(emit_sfu, QPU_TIMING_NUM_PARAMS, 0,
			       QPU_TIMING_STALL_SFU));
	T_EQ_U64(20, stall_with(emit_sfu, QPU_TP_SFU_LATENCY, 5,
				QPU_TIMING_STALL_SFU));
	/* VPM read: two instructions after vr_setup */
	T_EQ_U64(8, stall_with(emit_vpm, QPU_TIMING_NUM_PARAMS, 0,
			       QPU_TIMING_STALL_VPM));
	T_EQ_U64(0, stall_with(emit_vpm, QPU_TP_VPM_READ_LATENCY, 0,
			       QPU_TIMING_STALL_VPM));
	/* TMU: the hit time, the SDRAM latency, each seen in full */
	T_EQ_U64(stall_with(emit_tmu, QPU_TP_TMU_HIT_CYCLES, 10,
			    QPU_TIMING_STALL_TMU) + 50,
		 stall_with(emit_tmu, QPU_TP_TMU_HIT_CYCLES, 60,
			    QPU_TIMING_STALL_TMU));
	T_EQ_U64(stall_with(emit_tmu, QPU_TP_SDRAM_LATENCY, 100,
			    QPU_TIMING_STALL_TMU) + 100,
		 stall_with(emit_tmu, QPU_TP_SDRAM_LATENCY, 200,
			    QPU_TIMING_STALL_TMU));
	/* ... but only the first lookup of a line pays the SDRAM latency */
	T_EQ_U64(stall_with(emit_tmu_twice, QPU_TP_SDRAM_LATENCY, 100,
			    QPU_TIMING_STALL_TMU) + 100,
		 stall_with(emit_tmu_twice, QPU_TP_SDRAM_LATENCY, 200,
			    QPU_TIMING_STALL_TMU));
	/* a thread switch that finds no thread costs what the table says */
	T_EQ_U64(0, stall_with(emit_thrsw, QPU_TIMING_NUM_PARAMS, 0,
			       QPU_TIMING_STALL_THRSW));
	T_EQ_U64(7, stall_with(emit_thrsw, QPU_TP_THRSW_CYCLES, 7,
			       QPU_TIMING_STALL_THRSW));
}

/*
 * Eight times: read 16 uniforms (a 64-byte line), then move the stream with
 * unif_addr, to the same line again (@same) or to the next line. The model
 * follows the move: the same line is in the slice's uniforms cache after
 * its first miss (without that cache, it comes from the L2 every time),
 * new lines from SDRAM; a model blind to the writes sees one linear stream
 * either way.
 */
static void emit_unif_moves(struct prog *p, bool same)
{
	unsigned int i, j;

	for (i = 0; i < 8; i++) {
		for (j = 0; j < 16; j++)
			emit(p, i_read(R_UNIF, R_NOP));
		emit(p, i_ldi(W_R1, UNIF_BASE + (same ? 0 : 64 * (i + 1))));
		emit(p, i_mov(QPU_ISA_WADDR_UNIF_ADDR, QPU_ISA_MUX_R1));
		emit(p, i_nop());
		emit(p, i_nop());
	}
}

static void emit_unif_same(struct prog *p)
{
	emit_unif_moves(p, true);
}

static void emit_unif_next(struct prog *p)
{
	emit_unif_moves(p, false);
}

/* 2b. A unif_addr write moves the stream the model fetches. */
T_TEST(uniform_moves)
{
	const struct tm_set no_cache[2] = {
		{ QPU_TP_UNIF_CACHE_BYTES, 0 }, { QPU_TP_L2_HIT_CYCLES, 50 },
	};
	const struct tm_set no_ahead = { QPU_TP_UNIF_PREFETCH, 0 };
	uint64_t same = stall_with(emit_unif_same, QPU_TIMING_NUM_PARAMS, 0,
				   QPU_TIMING_STALL_UNIFORM);
	uint64_t next = stall_sets(emit_unif_next, &no_ahead, 1,
				   QPU_TIMING_STALL_UNIFORM);
	uint64_t hit = stall_with(emit_unif_same, QPU_TP_L2_HIT_CYCLES, 50,
				  QPU_TIMING_STALL_UNIFORM);
	uint64_t uncached = stall_sets(emit_unif_same, no_cache, 1,
				       QPU_TIMING_STALL_UNIFORM);
	uint64_t uncached_slow = stall_sets(emit_unif_same, no_cache, 2,
					    QPU_TIMING_STALL_UNIFORM);

	/* the re-read line hits the uniforms cache: one trip through the L2 */
	T_EQ_U64(same + (50 - 20), hit);
	/* without that cache each move fetches it again, all 8 times */
	T_EQ_U64(uncached + 8 * (50 - 20), uncached_slow);
	T_CHECK(uncached > same);
	/* new lines come from SDRAM */
	T_CHECK(next > same + 7 * 20);
}

/*
 * Move the stream to line @line and read a uniform there, the five
 * instructions in one instruction cache line: its fetch comes before the
 * move, so no instruction fetch hides the uniform's wait.
 */
static void emit_unif_at(struct prog *p, uint32_t line)
{
	while (p->n % 8)
		emit(p, i_nop());
	emit(p, i_ldi(W_R1, UNIF_BASE + 64 * line));
	emit(p, i_mov(QPU_ISA_WADDR_UNIF_ADDR, QPU_ISA_MUX_R1));
	emit(p, i_nop());
	emit(p, i_nop());
	emit(p, i_read(R_UNIF, R_NOP));
}

/*
 * Read a uniform of line 0, wait 100 instructions, read one of line 1:
 * fetched ahead, line 1 is there by then, so only line 0 waits for SDRAM.
 */
static void emit_unif_pause(struct prog *p)
{
	unsigned int i;

	emit(p, i_read(R_UNIF, R_NOP));
	for (i = 0; i < 100; i++)
		emit(p, i_nop());
	emit_unif_at(p, 1);
}

/*
 * Read lines 0 and 5 (moving the stream), then line 0 again: in a 256-byte
 * uniforms cache of 4 ways the three fit, direct-mapped lines 0 and 5 share
 * a set (the model's set hash: 5 ^ 5 >> 2 ^ 5 >> 4 = 4, 0 mod 4 sets).
 */
static void emit_unif_conflict(struct prog *p)
{
	emit_unif_at(p, 0);
	emit_unif_at(p, 5);
	emit_unif_at(p, 0);
}

/*
 * 2c. The uniforms cache's parameters, each by its micro-program: the
 * stall moves by exactly one L2 trip, or one SDRAM latency.
 */
T_TEST(uniform_cache)
{
	struct tm_set s[4] = {
		{ QPU_TP_UNIF_PREFETCH, 0 }, { QPU_TP_UNIF_CACHE_BYTES, 256 },
		{ QPU_TP_UNIF_WAYS, 4 }, { QPU_TP_L2_HIT_CYCLES, 50 },
	};
	struct tm_set lat[2] = {
		{ QPU_TP_UNIF_PREFETCH, 0 }, { QPU_TP_SDRAM_LATENCY, 100 },
	};
	uint64_t a, b;

	/* prefetch: with none, both lines pay each SDRAM latency */
	a = stall_sets(emit_unif_pause, lat, 2, QPU_TIMING_STALL_UNIFORM);
	lat[1].value = 200;
	T_EQ_U64(a + 2 * 100, stall_sets(emit_unif_pause, lat, 2,
					 QPU_TIMING_STALL_UNIFORM));
	/* one line ahead: only the first does */
	lat[0].value = 1;
	a = stall_sets(emit_unif_pause, lat, 2, QPU_TIMING_STALL_UNIFORM);
	lat[1].value = 100;
	T_EQ_U64(a, 100 + stall_sets(emit_unif_pause, lat, 2,
				     QPU_TIMING_STALL_UNIFORM));
	/*
	 * ways: direct-mapped, line 0 is fetched again through the L2, from
	 * the move on: the read three instructions later waits the rest
	 */
	a = stall_sets(emit_unif_conflict, s, 4, QPU_TIMING_STALL_UNIFORM);
	s[2].value = 1;
	b = stall_sets(emit_unif_conflict, s, 4, QPU_TIMING_STALL_UNIFORM);
	T_EQ_U64(a + 50 - 3 * 4, b);
	/* size: a cache of one line holds only the last line */
	s[2].value = 4;
	s[1].value = 64;
	T_EQ_U64(b, stall_sets(emit_unif_conflict, s, 4,
			       QPU_TIMING_STALL_UNIFORM));
}

/* emit_tmu() at DATA_BASE under @alias, then the program's end */
static void emit_tmu_alias(struct prog *p, uint32_t alias)
{
	struct qpu_isa_instr in = i_add(QPU_ISA_A_SHL, W_R1, QPU_ISA_MUX_A,
					QPU_ISA_MUX_B);

	in = i_smi(in, 2);
	in.raddr_a = R_ELEM;
	emit(p, in);
	emit(p, i_ldi(W_R0, DATA_BASE | alias));
	emit(p, i_add(QPU_ISA_A_ADD, W_TMU0_S, QPU_ISA_MUX_R0, QPU_ISA_MUX_R1));
	emit(p, i_sig(QPU_ISA_SIG_LDTMU0));
	emit_end(p);
}

/* The alias of a new buffer of @dev (freed again). */
static uint32_t new_bo_alias(struct qpu_dev *dev)
{
	struct qpu_bo *bo = qpu_bo_new(dev, 4096);
	uint32_t alias;

	T_CHECK(bo);
	if (!bo)
		return 1;
	alias = qpu_bo_get_bus_addr(bo) & QPU_TIMING_ALIAS_MASK;
	qpu_bo_free(bo);
	return alias;
}

/*
 * QPU_DEV_PARAM_BO_L2_CACHED on the emulator: buffers sit where the
 * board's Linux puts them, and the parameter says whether that alias goes
 * through the L2; a board set while buffers live keeps their alias.
 */
T_TEST(bo_l2_cached_param)
{
	struct qpu_dev *dev = qpu_dev_open("emu");
	struct qpu_bo *keep;
	uint64_t v = 7;

	T_CHECK(dev);
	if (!dev)
		return;
	T_EQ_U64(0, qpu_dev_get_param(dev, QPU_DEV_PARAM_BO_L2_CACHED, &v));
	T_EQ_U64(0, v);
	T_EQ_U64(QPU_TIMING_ALIAS_DIRECT, new_bo_alias(dev));
	T_EQ_U64(0, qpu_dev_set_board(dev, QPU_BOARD_PI1));
	T_EQ_U64(0, qpu_dev_get_param(dev, QPU_DEV_PARAM_BO_L2_CACHED, &v));
	T_EQ_U64(1, v);
	T_EQ_U64(QPU_TIMING_ALIAS_L2, new_bo_alias(dev));
	/* a Pi 3 with a Pi 1's buffer alive: its buffers stay behind the L2 */
	keep = qpu_bo_new(dev, 4096);
	T_CHECK(keep);
	T_EQ_U64(0, qpu_dev_set_board(dev, QPU_BOARD_PI3));
	T_EQ_U64(0, qpu_dev_get_param(dev, QPU_DEV_PARAM_BO_L2_CACHED, &v));
	T_EQ_U64(1, v);
	T_EQ_U64(QPU_TIMING_ALIAS_L2, new_bo_alias(dev));
	qpu_bo_free(keep);
	T_EQ_U64(0, qpu_dev_get_param(dev, QPU_DEV_PARAM_BO_L2_CACHED, &v));
	T_EQ_U64(0, v);
	T_EQ_U64(QPU_TIMING_ALIAS_DIRECT, new_bo_alias(dev));
	qpu_dev_close(dev);

	dev = qpu_dev_open("emu:board=pi1");
	T_CHECK(dev);
	if (dev) {
		T_EQ_U64(0, qpu_dev_get_param(dev, QPU_DEV_PARAM_BO_L2_CACHED, &v));
		T_EQ_U64(1, v);
		qpu_dev_close(dev);
	}
	/* V3D has no VideoCore IV L2 to speak of */
	dev = qpu_dev_open("emu:v3d42");
	T_CHECK(dev);
	if (dev) {
		T_EQ_U64((uint64_t)-EINVAL,
			 (uint64_t)qpu_dev_get_param(dev, QPU_DEV_PARAM_BO_L2_CACHED, &v));
		qpu_dev_close(dev);
	}
}

/*
 * 2b. The L2 serves what the bus alias sends it, whatever the board: five
 * QPUs read the same 64 bytes, QPU 4 through slice 1's cold TMU cache.
 * Under an alias that caches (0x0, 0x4, 0x8) its lines come from the L2,
 * under 0xC from SDRAM a second time. The boards' Linux aliases: a Pi 1's
 * caches, the others' bypass the L2 they have.
 */
T_TEST(l2_follows_alias)
{
	static const uint32_t aliases[] = { 0x00000000u, 0x40000000u, 0x80000000u,
					    QPU_TIMING_ALIAS_DIRECT };
	uint32_t code[5] = { CODE_BASE, CODE_BASE, CODE_BASE, CODE_BASE, CODE_BASE };
	struct qpu_timing_stats st[4];
	unsigned int i;

	for (i = 0; i < 4; i++) {
		struct prog p = prog_at(CODE_BASE);

		emit_tmu_alias(&p, aliases[i]);
		tm_run(code, 5, none, &st[i]);
	}
	for (i = 1; i < 3; i++) {
		T_EQ_U64(st[0].sdram_bytes, st[i].sdram_bytes);
		T_EQ_U64(st[0].l2_misses, st[i].l2_misses);
	}
	T_EQ_U64(st[0].sdram_bytes + 64, st[3].sdram_bytes);
	T_EQ_U64(st[0].l2_misses - 2, st[3].l2_misses);
	T_EQ_U64(QPU_TIMING_ALIAS_L2,
		 qpu_timing_board_get(QPU_TIMING_PI1)->ram_alias);
	for (i = QPU_TIMING_PI2; i < QPU_TIMING_NUM_BOARDS; i++) {
		T_EQ_U64(QPU_TIMING_ALIAS_DIRECT, qpu_timing_board_get(i)->ram_alias);
		T_CHECK(qpu_timing_board_get(i)->p[QPU_TP_L2_BYTES].value > 0);
	}
}

/* 3. More TMU lookups never cost fewer cycles, nor less bandwidth. */
T_TEST(monotonic)
{
	uint64_t last = 0, last_slow = 0;
	unsigned int n, i;

	for (n = 1; n <= 4; n++) {
		struct qpu_timing_stats st, slow;
		struct prog p = prog_at(CODE_BASE);
		uint32_t code = CODE_BASE;

		emit(&p, i_ldi(W_R0, DATA_BASE));
		for (i = 0; i < n * 4; i++) {
			emit(&p, i_add(QPU_ISA_A_ADD, W_TMU0_S, QPU_ISA_MUX_R0,
				       QPU_ISA_MUX_R0));
			emit(&p, i_sig(QPU_ISA_SIG_LDTMU0));
			emit(&p, i_ldi(W_R0, DATA_BASE + (i + 1) * 1024));
		}
		emit_end(&p);
		tm_run(&code, 1, none, &st);
		tm_run(&code, 1, (struct tm_set){ QPU_TP_SDRAM_EFFICIENCY, 5 }, &slow);
		T_CHECK(st.cycles > last);
		T_CHECK(slow.cycles >= st.cycles);
		T_CHECK(slow.cycles > last_slow);
		last = st.cycles;
		last_slow = slow.cycles;
	}
}

/* 4. A semaphore acquire waits for the release's time on another QPU. */
T_TEST(semaphore)
{
	struct qpu_timing_stats st;
	struct prog a = prog_at(CODE_BASE), b = prog_at(CODE_BASE + 4096);
	uint32_t code[2] = { CODE_BASE, CODE_BASE + 4096 };
	unsigned int i;

	emit(&a, i_sema(2, true));
	emit_end(&a);
	for (i = 0; i < 100; i++)
		emit(&b, i_nop());
	emit(&b, i_sema(2, false));
	emit_end(&b);
	tm_run(code, 2, none, &st);
	expect_accounted(&st, 0);
	expect_accounted(&st, 1);
	/* QPU 0 issues its acquire once QPU 1's release (101st) has issued */
	T_CHECK(stall_of(&st, 0, QPU_TIMING_STALL_SEMAPHORE) >= 100 * 4);
	T_CHECK(st.qpu[0].end >= st.qpu[1].end - 2 * 4);
	T_EQ_U64(st.cycles, st.qpu[0].end > st.qpu[1].end ? st.qpu[0].end :
		 st.qpu[1].end);
}

/*
 * 4b. The emulator runs the QPUs in the model's time order: QPU 0 waits
 * for a TMU lookup from SDRAM while QPU 1 issues nops, and no instruction
 * issues more than QPU_EMU_CLOCK_SLACK cycles before the one the emulator
 * ran before it. Round-robin would run QPU 0's next instructions, modelled
 * after QPU 1's, first.
 */
T_TEST(time_order)
{
	struct qpu_timing_stats st;
	struct prog a = prog_at(CODE_BASE), b = prog_at(CODE_BASE + 4096);
	uint32_t code[2] = { CODE_BASE, CODE_BASE + 4096 };
	unsigned int i;

	emit_tmu(&a);
	for (i = 0; i < 40; i++) {
		emit(&a, i_nop());
		emit(&b, i_nop());
	}
	emit_end(&a);
	emit_end(&b);
	tm_run(code, 2, none, &st);
	T_CHECK(!tm_out_of_order);
	T_CHECK(stall_of(&st, 0, QPU_TIMING_STALL_TMU) > 40);
	expect_accounted(&st, 0);
	expect_accounted(&st, 1);
	tm_round_robin = true;
	tm_run(code, 2, none, &st);
	tm_round_robin = false;
	T_CHECK(tm_out_of_order);
}

/* 5. Every parameter of every board has a value's source; names work. */
T_TEST(tables)
{
	unsigned int b, i;

	for (b = 0; b < QPU_TIMING_NUM_BOARDS; b++) {
		const struct qpu_timing_board *board = qpu_timing_board_get(b);

		T_CHECK(board);
		T_CHECK(qpu_timing_board_find(board->name) == board);
		T_EQ_U64(b != QPU_TIMING_PI1, board->extrapolated);
		for (i = 0; i < QPU_TIMING_NUM_PARAMS; i++) {
			T_CHECK(board->p[i].source && *board->p[i].source);
			T_CHECK(qpu_timing_param_name(i));
		}
		T_CHECK(board->p[QPU_TP_V3D_MHZ].value >= 250);
	}
	T_CHECK(!qpu_timing_board_get(QPU_TIMING_NUM_BOARDS));
	T_CHECK(!qpu_timing_board_find("pi4"));
	T_CHECK(!qpu_timing_board_find(NULL));
	for (i = 0; i < QPU_TIMING_NUM_STALLS; i++)
		T_CHECK(qpu_timing_stall_name(i));
	T_CHECK(!qpu_timing_stall_name(QPU_TIMING_NUM_STALLS));
}

/* One job of one program (40 nops) on @dev; its result in @r. */
static void run_job(struct qpu_dev *dev, struct qpu_job_result *r)
{
	struct qpu_emit *e = qpu_emit_new();
	struct qpu_bo *code = t_bo_or_die(dev, 4096), *unif = t_bo_or_die(dev, 4096);
	struct qpu_program_ref prog = { .code = code, .uniforms = unif };
	struct qpu_job_desc job = { .programs = &prog, .program_count = 1,
				    .in_fence_fd = -1 };
	const uint64_t *w;
	size_t n;
	uint64_t seqno;
	unsigned int i;

	T_CHECK(e);
	for (i = 0; i < 40; i++)
		qpu_emit_nop(e);
	qpu_emit_thrend(e);
	T_EQ_U64(0, qpu_emit_finish(e));
	w = qpu_emit_words(e, &n);
	memcpy(qpu_bo_get_map(code), w, n * 8);
	qpu_emit_free(e);
	memset(r, 0xa5, sizeof(*r));
	T_EQ_U64(0, qpu_submit(dev, &job, &seqno));
	T_EQ_U64(0, qpu_wait(dev, seqno, -1, r));
	T_EQ_U64(QPU_STATUS_DONE, r->status);
	qpu_bo_free(code);
	qpu_bo_free(unif);
}

/* 6. The emu device: modelled time only with a board, refusals. */
T_TEST(device)
{
	struct qpu_dev *dev = qpu_dev_open("emu");
	struct qpu_job_result r;
	uint64_t pi1_cycles;

	T_CHECK(dev);
	if (!dev)
		return;
	run_job(dev, &r);
	T_EQ_U64(0, r.flags & QPU_JOB_RESULT_TIMING);
	T_EQ_U64(0, r.timing.cycles + r.timing.ns + r.timing.board);

	T_EQ_U64(0, qpu_dev_set_board(dev, QPU_BOARD_PI1));
	run_job(dev, &r);
	T_CHECK(r.flags & QPU_JOB_RESULT_TIMING);
	T_EQ_U64(QPU_BOARD_PI1, r.timing.board);
	T_CHECK(r.timing.cycles >= 43 * 4);
	T_EQ_U64(r.timing.cycles * 4, r.timing.ns);
	T_EQ_U64(qpu_board_launch_ns(QPU_BOARD_PI1, QPU_LAUNCH_IOCTL),
		 r.timing.launch_ns);
	pi1_cycles = r.timing.cycles;

	T_EQ_U64(0, qpu_dev_set_board(dev, QPU_BOARD_PI3));
	run_job(dev, &r);
	T_EQ_U64(QPU_BOARD_PI3, r.timing.board);
	T_EQ_U64(r.timing.cycles * 1000 / 300, r.timing.ns);
	T_CHECK(r.timing.cycles >= 43 * 4);

	T_EQ_U64(0, qpu_dev_set_board(dev, QPU_BOARD_NONE));
	run_job(dev, &r);
	T_EQ_U64(0, r.flags & QPU_JOB_RESULT_TIMING);
	T_EQ_U64((uint64_t)-EINVAL, (uint64_t)qpu_dev_set_board(dev, (enum qpu_board)99));
	qpu_dev_close(dev);

	/* the option and the environment choose the same */
	dev = qpu_dev_open("emu:board=pi1");
	T_CHECK(dev);
	if (dev) {
		run_job(dev, &r);
		T_EQ_U64(pi1_cycles, r.timing.cycles);
		qpu_dev_close(dev);
	}
	setenv("QPU_EMU_BOARD", "pi1", 1);
	dev = qpu_dev_open("emu");
	T_CHECK(dev);
	if (dev) {
		run_job(dev, &r);
		T_EQ_U64(pi1_cycles, r.timing.cycles);
		qpu_dev_close(dev);
	}
	setenv("QPU_EMU_BOARD", "pi9", 1);
	errno = 0;
	T_CHECK(!qpu_dev_open("emu"));
	T_EQ_U64(EINVAL, errno);
	unsetenv("QPU_EMU_BOARD");
	errno = 0;
	T_CHECK(!qpu_dev_open("emu:board=pi4"));
	T_EQ_U64(EINVAL, errno);

	T_EQ_U64(QPU_BOARD_PI3PLUS, qpu_board_from_name("pi3plus"));
	T_EQ_U64(QPU_BOARD_NONE, qpu_board_from_name("pi6"));
	T_EQ_U64(QPU_BOARD_NONE, qpu_board_from_name(NULL));
	T_EQ_STR("Pi 1/Zero", qpu_board_name(QPU_BOARD_PI1));
	T_EQ_STR("none", qpu_board_name(QPU_BOARD_NONE));
	T_EQ_STR("unknown", qpu_board_name((enum qpu_board)99));
	T_EQ_U64(100000, qpu_board_launch_ns(QPU_BOARD_PI1, QPU_LAUNCH_MAILBOX));
	T_EQ_U64(0, qpu_board_launch_ns(QPU_BOARD_NONE, QPU_LAUNCH_MAILBOX));
}

/* vector_add of 1024 floats on @k: its modelled time in @t, or -1. */
static int v3d_vector_add(struct qpu_dev *dev, struct qpu_kernels *k,
			  struct qpu_job_timing *t)
{
	struct qpu_bo *bo = t_bo_or_die(dev, 3 * 4096);
	struct qpu_vector a = { bo, 0, 1024 }, b = { bo, 4096, 1024 },
			  c = { bo, 8192, 1024 };
	int ret = qpu_vector_add(k, 4, &a, &b, &c, NULL);

	qpu_bo_free(bo);
	return ret ? -1 : qpu_kernels_take_timing(k, t);
}

/*
 * 6b. The V3D boards (new in 0.5): their names, labels and bandwidth; on
 * the emulated V3D devices qpu_dev_set_board() turns the V3D model on for
 * the device's own board alone, the job's time then names it; the others'
 * and VideoCore IV's are refused, QPU_BOARD_NONE turns it off. The 16-QPU
 * Pi 5 at 960 MHz takes less time than the 12-QPU one at 800 for the
 * same work; VideoCore IV's emulator refuses the V3D boards.
 */
T_TEST(v3d_boards)
{
	static const struct {
		const char *path, *name;
		enum qpu_board own, other;
	} devs[] = {
		{ "emu:v3d42", "pi4", QPU_BOARD_PI4, QPU_BOARD_PI5 },
		{ "emu:v3d71", "pi5", QPU_BOARD_PI5, QPU_BOARD_PI5_16 },
		{ "emu:v3d71,board=pi5-16", "pi5-16", QPU_BOARD_PI5_16, QPU_BOARD_PI4 },
	};
	struct qpu_emulator *emu;
	uint64_t ns[3] = { 0 };
	size_t i;

	for (i = 0; i < T_ARRAY_SIZE(devs); i++) {
		struct qpu_dev *dev = qpu_dev_open(devs[i].path);
		struct qpu_kernels *k = dev ? qpu_kernels_new(dev) : NULL;
		struct qpu_job_timing t;

		T_CHECK(k);
		if (!k) {
			qpu_dev_close(dev);
			continue;
		}
		T_EQ_U64(devs[i].own, qpu_board_from_name(devs[i].name));
		T_CHECK(strstr(qpu_board_name(devs[i].own), "Pi "));
		T_CHECK(qpu_board_mem_bytes_per_s(devs[i].own) > 1000000000ull);
		T_EQ_U64(0, qpu_board_launch_ns(devs[i].own, QPU_LAUNCH_IOCTL));
		T_EQ_U64((uint64_t)-ENODATA, (uint64_t)v3d_vector_add(dev, k, &t));
		T_EQ_U64((uint64_t)-EINVAL, (uint64_t)qpu_dev_set_board(dev, devs[i].other));
		T_EQ_U64((uint64_t)-EINVAL, (uint64_t)qpu_dev_set_board(dev, QPU_BOARD_PI1));
		T_EQ_U64((uint64_t)-EINVAL, (uint64_t)qpu_dev_set_board(dev, (enum qpu_board)99));
		T_EQ_U64((uint64_t)-ENODATA, (uint64_t)v3d_vector_add(dev, k, &t));
		T_EQ_U64(0, qpu_dev_set_board(dev, devs[i].own));
		T_EQ_U64(0, v3d_vector_add(dev, k, &t));
		T_EQ_U64(devs[i].own, t.board);
		T_CHECK(t.cycles > 0 && t.ns > 0);
		T_CHECK(t.sdram_bytes >= 3 * 4096);
		ns[i] = t.ns;
		T_EQ_U64(0, qpu_dev_set_board(dev, QPU_BOARD_NONE));
		T_EQ_U64((uint64_t)-ENODATA, (uint64_t)v3d_vector_add(dev, k, &t));
		qpu_kernels_free(k);
		qpu_dev_close(dev);
	}
	T_CHECK(ns[2] < ns[1]);
	T_EQ_U64(7680000000ull, qpu_board_mem_bytes_per_s(QPU_BOARD_PI4));

	/* the option "timing" is the same model: the same time */
	{
		struct qpu_dev *dev = qpu_dev_open("emu:v3d42,timing");
		struct qpu_kernels *k = dev ? qpu_kernels_new(dev) : NULL;
		struct qpu_job_timing t;

		T_CHECK(k);
		if (k) {
			T_EQ_U64(0, v3d_vector_add(dev, k, &t));
			T_EQ_U64(QPU_BOARD_PI4, t.board);
			T_EQ_U64(ns[0], t.ns);
			qpu_kernels_free(k);
		}
		qpu_dev_close(dev);
	}

	/* VideoCore IV's emulator and device: no V3D board */
	emu = qpu_emulator_new(0);
	T_CHECK(emu);
	if (emu) {
		T_CHECK(qpu_emulator_set_board(emu, QPU_BOARD_PI4) != 0);
		qpu_emulator_free(emu);
	}
	{
		struct qpu_dev *dev = qpu_dev_open("emu");

		T_CHECK(dev);
		if (dev)
			T_EQ_U64((uint64_t)-EINVAL, (uint64_t)qpu_dev_set_board(dev, QPU_BOARD_PI5));
		qpu_dev_close(dev);
	}
}

/*
 * 7. VCD DMA costs the same whichever way the emulator moves the rows:
 * 32-bit horizontal rows inside the VPM take the predecoded shortcut, the
 * reference path without predecoding; the model must see both (a DMA it
 * missed would cost nothing).
 */
T_TEST(dma_on_every_path)
{
	struct prog p = prog_at(CODE_BASE);
	uint32_t code = CODE_BASE;
	struct qpu_timing_stats fast, ref;
	unsigned int i;

	/*
	 * Twice: the first transfer of each kind opens the QPU's DMA window
	 * on the reference path, the second may take the shortcut. Rows of
	 * 16 words, 64 bytes apart (8 << 3).
	 */
	for (i = 0; i < 2; i++) {
		emit(&p, i_ldi(W_VPM_SETUP, qpu_vdr_setup0(3, 0, 4,
			qpu_vdr_dma(true, QPU_VPM_SIZE_32, 1, 0, 0, 0))));
		emit(&p, i_ldi(W_DMA_ADDR, DATA_BASE + i * 0x400));
		emit(&p, i_read(R_WAIT, R_NOP));
		emit(&p, i_ldi_b(W_VPM_SETUP, qpu_vdw_setup0(4, 16,
			qpu_vdw_dma(true, QPU_VPM_SIZE_32, 0, 0, 0))));
		emit(&p, i_ldi_b(W_DMA_ADDR, DATA_BASE + 0x1000 + i * 0x400));
		emit(&p, i_read(R_NOP, R_WAIT));
	}
	emit_end(&p);
	tm_run_mode(&code, 1, none, true, &fast);
	tm_run_mode(&code, 1, none, false, &ref);
	/* 2 x 4 rows of 64 bytes each way */
	T_CHECK(ref.sdram_bytes >= 2 * 2 * 4 * 64);
	T_EQ_U64(ref.sdram_bytes, fast.sdram_bytes);
	T_EQ_U64(ref.cycles, fast.cycles);
	T_CHECK(stall_of(&ref, 0, QPU_TIMING_STALL_DMA) > 0);
	T_EQ_U64(stall_of(&ref, 0, QPU_TIMING_STALL_DMA),
		 stall_of(&fast, 0, QPU_TIMING_STALL_DMA));
}

/* 8. The emulator API: a board before the start, timing only with one. */
T_TEST(emulator_api)
{
	struct qpu_emulator *emu = qpu_emulator_new(0);
	struct qpu_emulator_timing t;
	static uint64_t code[3];
	struct prog p = prog_at(CODE_BASE);

	T_CHECK(emu);
	if (!emu)
		return;
	emit_end(&p);
	memcpy(code, t_words(CODE_BASE), sizeof(code));
	T_EQ_U64(0, qpu_emulator_map(emu, CODE_BASE, code, sizeof(code)));
	T_EQ_U64((uint64_t)-ENODATA, (uint64_t)qpu_emulator_get_timing(emu, 0, &t));
	T_EQ_U64((uint64_t)-EINVAL, (uint64_t)qpu_emulator_set_board(emu, 99));
	T_EQ_U64(0, qpu_emulator_set_board(emu, QPU_BOARD_PI1));
	T_EQ_U64(0, qpu_emulator_start(emu, CODE_BASE, CODE_BASE));
	T_EQ_U64((uint64_t)-EBUSY, (uint64_t)qpu_emulator_set_board(emu, QPU_BOARD_PI3));
	T_EQ_U64(QPU_EMULATOR_IDLE, qpu_emulator_run(emu, 100));
	T_EQ_U64(0, qpu_emulator_get_timing(emu, 0, &t));
	T_EQ_U64(3, t.instructions);
	T_EQ_U64(t.end * 4, t.end_ns);
	T_CHECK(t.end >= 12);
	T_EQ_U64((uint64_t)-EINVAL, (uint64_t)qpu_emulator_get_timing(emu, 12, &t));
	T_EQ_STR("tmu", qpu_emulator_stall_name(QPU_EMULATOR_STALL_TMU));
	T_CHECK(!qpu_emulator_stall_name(QPU_EMULATOR_NUM_STALLS));
	qpu_emulator_free(emu);
}

/* 9. The sample kernels sum their jobs' modelled time, once. */
T_TEST(kernels_timing)
{
	struct qpu_dev *dev = qpu_dev_open("emu:board=pi1");
	struct qpu_kernels *k = dev ? qpu_kernels_new(dev) : NULL;
	struct qpu_bo *bo = dev ? t_bo_or_die(dev, 3 * 4096) : NULL;
	struct qpu_job_timing t;
	struct qpu_vector a, b, c;

	T_CHECK(k);
	if (!k)
		return;
	a = (struct qpu_vector){ bo, 0, 1024 };
	b = (struct qpu_vector){ bo, 4096, 1024 };
	c = (struct qpu_vector){ bo, 8192, 1024 };
	T_EQ_U64((uint64_t)-ENODATA, (uint64_t)qpu_kernels_take_timing(k, &t));
	T_EQ_U64(0, qpu_vector_add(k, 4, &a, &b, &c, NULL));
	T_EQ_U64(0, qpu_kernels_take_timing(k, &t));
	T_EQ_U64(QPU_BOARD_PI1, t.board);
	T_CHECK(t.cycles > 0);
	T_EQ_U64(t.cycles * 4, t.ns);
	T_EQ_U64((uint64_t)-ENODATA, (uint64_t)qpu_kernels_take_timing(k, &t));
	qpu_bo_free(bo);
	qpu_kernels_free(k);
	qpu_dev_close(dev);
}

/*
 * 10. The memory bandwidth the model gives a board, from its table (Pi 1:
 * 400 MHz DDR x 4 bytes x 21 %), bounds what a stream moves: a long
 * vector add on 12 QPUs reaches part of it, never more.
 */
T_TEST(mem_bandwidth)
{
	const size_t n = 1 << 18;
	struct qpu_dev *dev = qpu_dev_open("emu:board=pi1");
	struct qpu_kernels *k = dev ? qpu_kernels_new(dev) : NULL;
	struct qpu_bo *bo = dev ? t_bo_or_die(dev, 3 * n * 4) : NULL;
	uint64_t bw = qpu_board_mem_bytes_per_s(QPU_BOARD_PI1);
	struct qpu_job_timing t;
	struct qpu_vector a, b, c;
	double got;

	T_EQ_U64(672000000, bw);
	T_EQ_U64(756000000, qpu_board_mem_bytes_per_s(QPU_BOARD_PI3));
	T_EQ_U64(0, qpu_board_mem_bytes_per_s(QPU_BOARD_NONE));
	T_EQ_U64(0, qpu_board_mem_bytes_per_s((enum qpu_board)99));
	T_CHECK(k);
	if (!k)
		return;
	a = (struct qpu_vector){ bo, 0, n };
	b = (struct qpu_vector){ bo, n * 4, n };
	c = (struct qpu_vector){ bo, 2 * n * 4, n };
	T_EQ_U64(0, qpu_vector_add(k, 12, &a, &b, &c, NULL));
	T_EQ_U64(0, qpu_kernels_take_timing(k, &t));
	T_CHECK(t.sdram_bytes >= 3 * n * 4);
	got = (double)t.sdram_bytes * 1e9 / (double)t.ns;
	T_CHECK(got <= (double)bw * 1.001);
	T_CHECK(got >= (double)bw * 0.5);
	qpu_bo_free(bo);
	qpu_kernels_free(k);
	qpu_dev_close(dev);
}

T_MAIN()
