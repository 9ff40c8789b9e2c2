// SPDX-License-Identifier: MIT
/*
 * The timing model of libqpu/core/timing in libqpu's terms: enum qpu_board
 * and its names, a job's modelled time as struct qpu_job_timing, the launch
 * cost of each launch path (qpu_board_launch_ns()). qpu_dev_set_board() is
 * the runtime's (device.c). enum qpu_board's V3D boards are the V3D
 * emulator's (qpu_v3d_emu.h), in its order from QPU_BOARD_PI4, and their
 * tables the V3D model's (qpu_timing_v3d.h).
 */
#include <errno.h>
#include <string.h>

#include "toolkit/toolkit.h"
#include "qpu.h"
#include "qpu_timing.h"
#include "qpu_timing_v3d.h"

_Static_assert(QPU_BOARD_PI5_16 - QPU_BOARD_PI4 + 1 == QPU_V3D_EMU_BOARD_COUNT,
	       "enum qpu_board names every V3D board of the emulator");

int qpu_board_to_v3d(enum qpu_board board)
{
	if (board < QPU_BOARD_PI4 || board > QPU_BOARD_PI5_16)
		return -1;
	return (int)(board - QPU_BOARD_PI4);
}

enum qpu_board qpu_board_from_v3d(unsigned int v3d_board)
{
	return v3d_board < QPU_V3D_EMU_BOARD_COUNT ?
	       (enum qpu_board)(QPU_BOARD_PI4 + v3d_board) : QPU_BOARD_NONE;
}

/* enum qpu_board counts from 1 where the core's boards count from 0. */
const struct qpu_timing_board *qpu_timing_board_of(enum qpu_board board)
{
	if (board == QPU_BOARD_NONE)
		return NULL;
	return qpu_timing_board_get((unsigned int)board - 1);
}

QPU_API enum qpu_board qpu_board_from_name(const char *name)
{
	unsigned int i;

	for (i = 0; name && i < QPU_TIMING_NUM_BOARDS; i++)
		if (!strcmp(qpu_timing_board_get(i)->name, name))
			return (enum qpu_board)(i + 1);
	for (i = 0; name && i < QPU_V3D_EMU_BOARD_COUNT; i++)
		if (!strcmp(qpu_v3d_emu_board(i)->name, name))
			return qpu_board_from_v3d(i);
	return QPU_BOARD_NONE;
}

QPU_API const char *qpu_board_name(enum qpu_board board)
{
	const struct qpu_timing_board *b = qpu_timing_board_of(board);

	int v3d = qpu_board_to_v3d(board);

	if (board == QPU_BOARD_NONE)
		return "none";
	if (v3d >= 0)
		return qpu_tv_board_get((enum qpu_v3d_emu_board)v3d)->label;
	return b ? b->label : "unknown";
}

QPU_API uint64_t qpu_board_mem_bytes_per_s(enum qpu_board board)
{
	const struct qpu_timing_board *b = qpu_timing_board_of(board);
	int v3d = qpu_board_to_v3d(board);

	if (v3d >= 0)
		return qpu_tv_sdram_bytes_per_s(
			qpu_tv_board_get((enum qpu_v3d_emu_board)v3d));
	if (!b)
		return 0;
	/* bytes per microsecond x 100, so x 10^6 / 100 a second */
	return qpu_timing_sdram_rate_x100(b->p[QPU_TP_SDRAM_MHZ].value,
					  b->p[QPU_TP_SDRAM_EFFICIENCY].value) * 10000;
}

QPU_API uint64_t qpu_board_launch_ns(enum qpu_board board, enum qpu_launch path)
{
	const struct qpu_timing_board *b = qpu_timing_board_of(board);

	if (!b)
		return 0;
	switch (path) {
	case QPU_LAUNCH_IOCTL:
		return b->p[QPU_TP_LAUNCH_IOCTL_NS].value;
	case QPU_LAUNCH_DIRECT:
		return b->p[QPU_TP_LAUNCH_DIRECT_NS].value;
	case QPU_LAUNCH_MAILBOX:
		return b->p[QPU_TP_LAUNCH_MAILBOX_NS].value;
	}
	return 0;
}

void qpu_timing_to_job(const struct qpu_timing *t, enum qpu_board board,
		       struct qpu_job_timing *out)
{
	struct qpu_timing_stats s;
	unsigned int i;

	qpu_timing_get_stats(t, &s);
	memset(out, 0, sizeof(*out));
	out->board = board;
	out->cycles = s.cycles;
	out->ns = s.ns;
	out->launch_ns = qpu_board_launch_ns(board, QPU_LAUNCH_IOCTL);
	out->sdram_bytes = s.sdram_bytes;
	for (i = 0; i < QPU_EMU_NUM_QPUS; i++) {
		const uint64_t *st = s.qpu[i].stall;

		out->stall_tmu += st[QPU_TIMING_STALL_TMU] + st[QPU_TIMING_STALL_TMU_FIFO];
		out->stall_dma += st[QPU_TIMING_STALL_DMA];
		out->stall_sync += st[QPU_TIMING_STALL_SEMAPHORE] +
			st[QPU_TIMING_STALL_MUTEX];
		out->stall_other += st[QPU_TIMING_STALL_REGFILE] +
			st[QPU_TIMING_STALL_SFU] + st[QPU_TIMING_STALL_VPM] +
			st[QPU_TIMING_STALL_FETCH] + st[QPU_TIMING_STALL_UNIFORM] +
			st[QPU_TIMING_STALL_THRSW];
	}
}
