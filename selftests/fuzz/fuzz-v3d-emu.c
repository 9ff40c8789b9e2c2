// SPDX-License-Identifier: MIT
/*
 * fuzz-v3d-emu: the V3D 4.2/7.1 emulator on any words. The input's first
 * 4 bytes choose the board (bit 0: Pi 4 or Pi 5), the job (bit 1: one
 * thread started directly, else a CSD dispatch whose cfg[3] and cfg[4]
 * bytes 1 and 2 give, threading bit 2), whether every mapped BO is
 * reachable (bit 3), whether the fast paths' floats are the integer ones
 * the kernel runs rather than the host's float unit (bit 4) and where the
 * uniforms start; the rest is copied to
 * the start of a 64 KiB BO holding code, uniforms and data, beside a
 * second, unmapped-for-the-job BO. Each run gets an instruction budget; it
 * must end in a defined status without touching memory outside the MMU's
 * BOs (ASan watches), a fault must name a QPU and slot of the board, and
 * running the same input again on the reference path (no predecoding, no
 * fast paths) must leave the same status, statistics and memory.
 */
#include <string.h>

#include "fuzz.h"
#include "v3d/qpu_v3d_emu.h"

#define REGION		(64u * 1024)
#define BUDGET		4000

static uint8_t *mem, *mem2, *other;
static struct qpu_v3d_emu *emu, *emu2;
static struct qpu_v3d_mmu mmu, mmu2;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	mem = malloc(REGION);
	mem2 = malloc(REGION);
	other = calloc(1, REGION);
	emu = aligned_alloc(8, (qpu_v3d_emu_size() + 7) & ~(size_t)7);
	emu2 = aligned_alloc(8, (qpu_v3d_emu_size() + 7) & ~(size_t)7);
	FUZZ_CHECK(mem && mem2 && other && emu && emu2, "out of memory");
	return 0;
}

static enum qpu_v3d_emu_status run(struct qpu_v3d_emu *e, struct qpu_v3d_mmu *m,
				   uint8_t *region, const uint8_t *data,
				   size_t size, bool fast)
{
	enum qpu_v3d_emu_board board = data[0] & 1 ? QPU_V3D_EMU_BOARD_PI5_3X4 :
				      QPU_V3D_EMU_BOARD_PI4;
	uint32_t va, va2, cfg[7];
	enum qpu_v3d_emu_status st;

	memset(region, 0, REGION);
	memcpy(region, data + 4, size - 4 < REGION ? size - 4 : REGION);
	qpu_v3d_mmu_init(m);
	FUZZ_CHECK(!qpu_v3d_mmu_map(m, region, REGION, &va), "map");
	FUZZ_CHECK(!qpu_v3d_mmu_map(m, other, REGION, &va2), "map");
	FUZZ_CHECK(!qpu_v3d_mmu_job_add(m, va), "job");
	m->allow_all = data[0] & 8;
	FUZZ_CHECK(!qpu_v3d_emu_init(e, board, m, NULL, NULL), "init");
	qpu_v3d_emu_set_predecode(e, fast);
	qpu_v3d_emu_set_host_float(e, !(data[0] & 16));
	if (data[0] & 2) {
		FUZZ_CHECK(!qpu_v3d_emu_start(e, 0, 0, 1, va,
					      va + (data[3] & 0xfc) * 4), "start");
	} else {
		cfg[0] = cfg[1] = cfg[2] = 1u << 16;
		cfg[3] = (uint32_t)data[1] << 12 | data[1];
		cfg[4] = data[2] & 31;
		cfg[5] = va | ((data[0] >> 2) & 1);
		cfg[6] = va + (data[3] & 0xfc) * 4;
		FUZZ_CHECK(!qpu_v3d_emu_dispatch(e, cfg), "dispatch");
	}
	st = qpu_v3d_emu_run(e, BUDGET);
	FUZZ_CHECK(st <= QPU_V3D_EMU_LIMIT, "status %d", (int)st);
	if (st == QPU_V3D_EMU_FAULT) {
		const struct qpu_v3d_emu_fault *f = qpu_v3d_emu_get_fault(e);
		const struct qpu_v3d_emu_board_info *b = qpu_v3d_emu_board(board);

		FUZZ_CHECK(f->f.qpu < (u32)b->slices * b->qpus_per_slice &&
			   f->thread < QPU_V3D_EMU_THREADS, "fault on %u/%u",
			   f->f.qpu, f->thread);
	}
	return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum qpu_v3d_emu_status a, b;
	char text[1024];

	if (size < 4)
		return 0;
	a = run(emu, &mmu, mem, data, size, true);
	b = run(emu2, &mmu2, mem2, data, size, false);
	FUZZ_CHECK(a == b, "statuses %d and %d", (int)a, (int)b);
	FUZZ_CHECK(!memcmp(mem, mem2, REGION), "memory differs between runs");
	FUZZ_CHECK(!memcmp(qpu_v3d_emu_get_stats(emu), qpu_v3d_emu_get_stats(emu2),
			   sizeof(struct qpu_v3d_emu_stats)), "stats differ");
	FUZZ_CHECK(qpu_v3d_emu_describe(emu, text, sizeof(text)) ==
		   qpu_v3d_emu_describe(emu2, NULL, 0), "describe lengths");
	return 0;
}
