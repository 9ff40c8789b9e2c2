// SPDX-License-Identifier: MIT
/*
 * test-timing-v3d: the V3D 4.2/7.1 timing model (libqpu/core/timing/
 * qpu_timing_v3d*) on the V3D emulator: fixed programs take a fixed number
 * of cycles, a micro-program per latency parameter moves by exactly that
 * parameter, and SDRAM traffic grows with the data a program streams.
 */
#include "testlib.h"

#include "qpu.h"
#include "qpu_asm.h"
#include "v3d/qpu_v3d_emu.h"
#include "qpu_timing_v3d.h"
#include "qpu_timeline.h"
#include "test-v3d.h"

#define MAP_BYTES	(256 * 1024)
#define END_INSTRS	7	/* V3D_THREAD_END's instructions */
#define END_THRSWS	3

static const enum qpu_v3d_emu_board boards[] = {
	QPU_V3D_EMU_BOARD_PI4, QPU_V3D_EMU_BOARD_PI5_3X4,
	QPU_V3D_EMU_BOARD_PI5_4X4,
};

/* One parameter override; id QPU_TV_NUM_PARAMS: none. */
struct override {
	unsigned int id;
	uint32_t value;
};

/*
 * Run @src (the thread end appended) on QPU 0 of @board, the first
 * uniform the data buffer's address: its modelled stats.
 */
static bool run(enum qpu_v3d_emu_board board, const char *src,
		const struct override *o, size_t no, struct qpu_tv_stats *st)
{
	const struct qpu_v3d_emu_board_info *b = qpu_v3d_emu_board(board);
	struct qpu_v3d_emu_ops ops = { .trace = qpu_tv_trace, .tmu = qpu_tv_tmu };
	struct qpu_asm *as = qpu_asm_new();
	struct qpu_v3d_emu *emu = calloc(1, qpu_v3d_emu_size());
	struct qpu_tv *tv = calloc(1, qpu_tv_size());
	uint8_t *code = calloc(1, MAP_BYTES), *unif = calloc(1, 4096);
	uint8_t *data = calloc(1, MAP_BYTES);
	char *full = malloc(strlen(src) + strlen(V3D_THREAD_END) + 2);
	struct qpu_v3d_mmu mmu;
	uint32_t code_va, unif_va, data_va;
	const uint64_t *words;
	bool ok = false;
	size_t i;

	if (!as || !emu || !tv || !code || !unif || !data || !full) {
		T_CHECK(!"out of memory");
		goto out;
	}
	sprintf(full, "%s\n%s", src, V3D_THREAD_END);
	qpu_asm_set_gen(as, b->gen);
	if (qpu_asm_string(as, "prog", full)) {
		T_CHECK(!"program assembles");
		goto out;
	}
	i = qpu_asm_words(as, &words);
	memcpy(code, words, i * 8);
	qpu_v3d_mmu_init(&mmu);
	T_EQ_U64(0, qpu_v3d_mmu_map(&mmu, code, MAP_BYTES, &code_va));
	T_EQ_U64(0, qpu_v3d_mmu_map(&mmu, unif, 4096, &unif_va));
	T_EQ_U64(0, qpu_v3d_mmu_map(&mmu, data, MAP_BYTES, &data_va));
	qpu_v3d_mmu_job_add(&mmu, code_va);
	qpu_v3d_mmu_job_add(&mmu, unif_va);
	qpu_v3d_mmu_job_add(&mmu, data_va);
	memcpy(unif, &data_va, 4);
	qpu_tv_init(tv, qpu_tv_board_get(board));
	for (i = 0; i < no; i++)
		qpu_tv_set_param(tv, o[i].id, o[i].value);
	T_EQ_U64(0, qpu_v3d_emu_init(emu, board, &mmu, &ops, tv));
	T_EQ_U64(0, qpu_v3d_emu_start(emu, 0, 0, 1, code_va, unif_va));
	T_EQ_U64(QPU_V3D_EMU_IDLE, qpu_v3d_emu_run(emu, 10000000));
	qpu_tv_get_stats(tv, st);
	ok = true;
out:
	free(full);
	free(data);
	free(unif);
	free(code);
	free(tv);
	free(emu);
	qpu_asm_free(as);
	return ok;
}

static uint64_t cycles(enum qpu_v3d_emu_board board, const char *src,
		       unsigned int id, uint32_t value)
{
	struct override o = { id, value };
	struct qpu_tv_stats st;

	return run(board, src, &o, 1, &st) ? st.cycles : 0;
}

static uint32_t param(enum qpu_v3d_emu_board board, unsigned int id)
{
	return qpu_tv_board_get(board)->p[id].value;
}

/* Move parameter @id by @delta: the cycles must move by @want. */
static void moves(enum qpu_v3d_emu_board board, const char *src,
		  unsigned int id, uint32_t delta, uint64_t want)
{
	uint32_t v = param(board, id);
	uint64_t a = cycles(board, src, id, v);
	uint64_t b = cycles(board, src, id, v + delta);

	T_CHECK(a > 0);
	T_EQ_U64(want, b - a);
}

/* One lookup of the data's first word, waited on at once. */
static const char *const one_lookup =
	"nop ; nop ; ldunifrf.rf10\n"
	"nop ; mov tmua, rf10\n"
	"nop ; nop ; ldtmu.rf1\n";

T_TEST(table_has_a_source_for_every_parameter)
{
	size_t b;
	unsigned int i;

	for (b = 0; b < T_ARRAY_SIZE(boards); b++) {
		const struct qpu_tv_board *tb = qpu_tv_board_get(boards[b]);

		T_CHECK(tb != NULL);
		for (i = 0; tb && i < QPU_TV_NUM_PARAMS; i++) {
			T_CHECK(tb->p[i].source && tb->p[i].source[0]);
			T_CHECK(qpu_tv_param_name(i) != NULL);
		}
	}
	T_CHECK(qpu_tv_board_get(QPU_V3D_EMU_BOARD_COUNT) == NULL);
	T_CHECK(qpu_tv_param_name(QPU_TV_NUM_PARAMS) == NULL);
	for (i = 0; i < QPU_TV_NUM_STALLS; i++)
		T_CHECK(qpu_tv_stall_name(i) != NULL);
	T_CHECK(qpu_tv_stall_name(QPU_TV_NUM_STALLS) == NULL);
}

/* n instructions with no stall: the batch start plus issue cycles each. */
T_TEST(fixed_program_fixed_cycles)
{
	size_t b;

	for (b = 0; b < T_ARRAY_SIZE(boards); b++) {
		struct qpu_tv_stats s1, s2;
		uint64_t want = param(boards[b], QPU_TV_BATCH_START_CYCLES) +
			(uint64_t)param(boards[b], QPU_TV_ISSUE_CYCLES) * (5 + END_INSTRS);
		const char *src = "nop ; nop\nnop ; nop\nnop ; nop\nnop ; nop\nnop ; nop\n";

		T_CHECK(run(boards[b], src, NULL, 0, &s1));
		T_CHECK(run(boards[b], src, NULL, 0, &s2));
		T_EQ_U64(want, s1.cycles);
		T_EQ_U64(s1.cycles, s2.cycles);
		T_EQ_U64(5 + END_INSTRS, s1.qpu[0].instructions);
		T_EQ_U64(0, s1.sdram_bytes);
	}
}

T_TEST(issue_cycles_per_instruction)
{
	size_t b;

	for (b = 0; b < T_ARRAY_SIZE(boards); b++)
		moves(boards[b], "nop ; nop\n", QPU_TV_ISSUE_CYCLES, 1, 1 + END_INSTRS);
}

T_TEST(batch_start_cycles)
{
	size_t b;

	for (b = 0; b < T_ARRAY_SIZE(boards); b++)
		moves(boards[b], "nop ; nop\n", QPU_TV_BATCH_START_CYCLES, 10, 10);
}

T_TEST(thrsw_cycles_per_switch)
{
	size_t b;

	for (b = 0; b < T_ARRAY_SIZE(boards); b++)
		moves(boards[b], "nop ; nop\n", QPU_TV_THRSW_CYCLES, 5, 5 * END_THRSWS);
}

T_TEST(tmu_hit_cycles)
{
	size_t b;

	for (b = 0; b < T_ARRAY_SIZE(boards); b++)
		moves(boards[b], one_lookup, QPU_TV_TMU_HIT_CYCLES, 10, 10);
}

T_TEST(sdram_latency_ns)
{
	size_t b;

	for (b = 0; b < T_ARRAY_SIZE(boards); b++)
		moves(boards[b], one_lookup, QPU_TV_SDRAM_LATENCY_NS, 1000,
		      qpu_v3d_emu_board(boards[b])->clock_mhz);
}

/* The second lookup of a line misses a zero-sized L1T and hits the L2T. */
T_TEST(l2t_hit_cycles)
{
	const char *src =
		"nop ; nop ; ldunifrf.rf10\n"
		"nop ; mov tmua, rf10\n"
		"nop ; nop ; ldtmu.rf1\n"
		"nop ; mov tmua, rf10\n"
		"nop ; nop ; ldtmu.rf1\n";
	size_t b;

	for (b = 0; b < T_ARRAY_SIZE(boards); b++) {
		struct override o[2] = {
			{ QPU_TV_L1T_BYTES, 0 },
			{ QPU_TV_L2T_HIT_CYCLES, param(boards[b], QPU_TV_L2T_HIT_CYCLES) },
		};
		struct qpu_tv_stats a, c;

		T_CHECK(run(boards[b], src, o, 2, &a));
		o[1].value += 10;
		T_CHECK(run(boards[b], src, o, 2, &c));
		T_EQ_U64(20, c.cycles - a.cycles);
		T_EQ_U64(2, a.l1t_misses);
		T_EQ_U64(1, a.l2t_misses);
	}
}

/* Two SFU operations in a row: the second waits for the SFU. */
T_TEST(sfu_cycles)
{
	const char *src = "recip rf4, rf1 ; nop\nrecip rf5, rf1 ; nop\n";
	size_t b;

	for (b = 0; b < T_ARRAY_SIZE(boards); b++)
		moves(boards[b], src, QPU_TV_SFU_CYCLES, 10, 10);
}

/* A write of a line the L2T misses reads the line first when it allocates. */
T_TEST(l2t_write_allocate)
{
	const char *src =
		"nop ; nop ; ldunifrf.rf10\n"
		"eidx rf12 ; nop\nshl rf12, rf12, 2 ; nop\n"
		"add rf10, rf10, rf12 ; nop\n"
		"nop ; mov tmud, 1\n"
		"nop ; mov tmua, rf10\n"
		"tmuwt - ; nop\n";
	size_t b;

	for (b = 0; b < T_ARRAY_SIZE(boards); b++) {
		struct override o = { QPU_TV_L2T_WRITE_ALLOCATE, 0 };
		uint32_t line = param(boards[b], QPU_TV_L2T_LINE_BYTES);
		struct qpu_tv_stats a, c;

		T_CHECK(run(boards[b], src, &o, 1, &a));
		o.value = 1;
		T_CHECK(run(boards[b], src, &o, 1, &c));
		T_EQ_U64(64, a.sdram_bytes);
		T_EQ_U64(64 + 64 / line * line, c.sdram_bytes);
	}
}

/* Streaming more lines moves more bytes and takes longer. */
T_TEST(traffic_monotonic)
{
	char src[4096];
	size_t b;

	for (b = 0; b < T_ARRAY_SIZE(boards); b++) {
		uint64_t last_bytes = 0, last_cycles = 0;
		unsigned int n, i;

		for (n = 1; n <= 8; n *= 2) {
			struct qpu_tv_stats st;
			size_t len;

			len = (size_t)sprintf(src, "nop ; nop ; ldunifrf.rf10\n"
					      "eidx rf12 ; nop\nshl rf12, rf12, 2 ; nop\n"
					      "add rf10, rf10, rf12 ; nop\n");
			for (i = 0; i < n; i++)
				len += (size_t)sprintf(src + len,
					"nop ; mov tmua, rf10\n"
					"nop ; nop ; ldtmu.rf1\n"
					"add rf10, rf10, 15 ; nop\n"
					"add rf10, rf10, 15 ; nop\n"
					"add rf10, rf10, 15 ; nop\n"
					"add rf10, rf10, 15 ; nop\n"
					"add rf10, rf10, 4 ; nop\n");
			T_CHECK(run(boards[b], src, NULL, 0, &st));
			T_CHECK(st.sdram_bytes > last_bytes);
			T_CHECK(st.cycles > last_cycles);
			T_EQ_U64(n * 64 / param(boards[b], QPU_TV_L2T_LINE_BYTES) *
				 param(boards[b], QPU_TV_L2T_LINE_BYTES), st.sdram_bytes);
			T_CHECK(st.qpu[0].stall[QPU_TV_STALL_TMU] > 0);
			last_bytes = st.sdram_bytes;
			last_cycles = st.cycles;
		}
	}
}

/*
 * The run loop follows the model's clocks: QPU 0 waits on a lookup from
 * SDRAM before it stores its id into a shared word, QPU 1 stores its id
 * after as many instructions without waiting. Round-robin (no clock) runs
 * QPU 0's store first in each round, so QPU 1's id stays; in modelled
 * time QPU 1 stores first and QPU 0's id stays.
 */
static uint32_t last_writer(enum qpu_v3d_emu_board board, bool by_clock,
			    uint64_t end[2])
{
	static const char *const src[2] = {
		"nop ; nop ; ldunifrf.rf10\n"	/* the data */
		"nop ; nop ; ldunifrf.rf11\n"	/* the shared word */
		"nop ; nop ; ldunifrf.rf12\n"	/* the QPU's id */
		"nop ; mov tmua, rf10\n"
		"nop ; nop ; ldtmu.rf1\n"
		"nop ; mov tmud, rf12\n"
		"nop ; mov tmua, rf11\n"
		"tmuwt - ; nop\n" V3D_THREAD_END,
		"nop ; nop ; ldunifrf.rf10\n"
		"nop ; nop ; ldunifrf.rf11\n"
		"nop ; nop ; ldunifrf.rf12\n"
		"nop ; nop\n"
		"nop ; nop\n"
		"nop ; mov tmud, rf12\n"
		"nop ; mov tmua, rf11\n"
		"tmuwt - ; nop\n" V3D_THREAD_END,
	};
	const struct qpu_v3d_emu_board_info *b = qpu_v3d_emu_board(board);
	struct qpu_v3d_emu_ops ops = { .trace = qpu_tv_trace, .tmu = qpu_tv_tmu };
	struct qpu_v3d_emu *emu = calloc(1, qpu_v3d_emu_size());
	struct qpu_tv *tv = calloc(1, qpu_tv_size());
	uint8_t *code = calloc(1, MAP_BYTES), *data = calloc(1, MAP_BYTES);
	uint32_t *unif = calloc(1, 4096), code_va, unif_va, data_va, got = ~0u;
	struct qpu_v3d_mmu mmu;
	struct qpu_tv_stats st;
	unsigned int q;

	if (!emu || !tv || !code || !data || !unif) {
		T_CHECK(!"out of memory");
		goto out;
	}
	for (q = 0; q < 2; q++) {
		struct qpu_asm *as = qpu_asm_new();
		const uint64_t *words;
		size_t n;

		qpu_asm_set_gen(as, b->gen);
		T_EQ_U64(0, qpu_asm_string(as, "prog", src[q]));
		n = qpu_asm_words(as, &words);
		memcpy(code + q * 4096, words, n * 8);
		qpu_asm_free(as);
	}
	qpu_v3d_mmu_init(&mmu);
	T_EQ_U64(0, qpu_v3d_mmu_map(&mmu, code, MAP_BYTES, &code_va));
	T_EQ_U64(0, qpu_v3d_mmu_map(&mmu, unif, 4096, &unif_va));
	T_EQ_U64(0, qpu_v3d_mmu_map(&mmu, data, MAP_BYTES, &data_va));
	mmu.allow_all = true;
	for (q = 0; q < 2; q++) {
		unif[q * 4] = data_va;
		unif[q * 4 + 1] = data_va + 4096;
		unif[q * 4 + 2] = q + 1;
	}
	qpu_tv_init(tv, qpu_tv_board_get(board));
	T_EQ_U64(0, qpu_v3d_emu_init(emu, board, &mmu, &ops, tv));
	if (by_clock)
		qpu_v3d_emu_set_clock(emu, qpu_tv_clock(tv));
	for (q = 0; q < 2; q++)
		T_EQ_U64(0, qpu_v3d_emu_start(emu, q, 0, 1, code_va + q * 4096,
					      unif_va + q * 16));
	T_EQ_U64(QPU_V3D_EMU_IDLE, qpu_v3d_emu_run(emu, 10000));
	qpu_tv_get_stats(tv, &st);
	end[0] = st.qpu[0].end;
	end[1] = st.qpu[1].end;
	memcpy(&got, data + 4096, 4);
out:
	free(unif);
	free(data);
	free(code);
	free(tv);
	free(emu);
	return got;
}

T_TEST(run_loop_follows_model_clocks)
{
	size_t b;

	for (b = 0; b < T_ARRAY_SIZE(boards); b++) {
		uint64_t rr[2], ck[2];

		T_EQ_U64(2, last_writer(boards[b], false, rr));
		T_EQ_U64(1, last_writer(boards[b], true, ck));
		/* QPU 0 waited on SDRAM: it ends later in modelled time */
		T_CHECK(ck[0] > ck[1]);
	}
}

/* A request made later but for an earlier cycle gets the earlier room. */
T_TEST(timeline_books_in_modelled_time)
{
	static struct qpu_timeline tl;
	const uint64_t bucket = 1u << QPU_TIMELINE_SHIFT;
	uint64_t late, early;

	qpu_timeline_init(&tl, bucket);
	late = qpu_timeline_book(&tl, 10000, 64);
	early = qpu_timeline_book(&tl, 100, 64);
	T_EQ_U64(10000 + 64, late);
	T_CHECK(early <= 100 + 2 * bucket);
	/* a full bucket sends the next request on */
	qpu_timeline_init(&tl, 4);
	T_EQ_U64(bucket, qpu_timeline_book(&tl, 0, 4));
	T_EQ_U64(2 * bucket, qpu_timeline_book(&tl, 0, 4));
	/* room 0 counts as 1 */
	qpu_timeline_init(&tl, 0);
	T_EQ_U64(bucket, qpu_timeline_book(&tl, 0, 1));
}

T_MAIN();
