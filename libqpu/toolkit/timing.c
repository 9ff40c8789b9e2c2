// SPDX-License-Identifier: MIT
/*
 * The timing model of libqpu/core/timing in libqpu's terms: enum qpu_board
 * and its names, a job's modelled time as struct qpu_job_timing, the launch
 * cost of each launch path (qpu_board_launch_ns()). qpu_dev_set_board() is
 * the runtime's (device.c).
 */
#include <errno.h>
#include <string.h>

#include "toolkit/toolkit.h"
#include "qpu.h"
#include "qpu_timing.h"

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
	return QPU_BOARD_NONE;
}

QPU_API const char *qpu_board_name(enum qpu_board board)
{
	const struct qpu_timing_board *b = qpu_timing_board_of(board);

	if (board == QPU_BOARD_NONE)
		return "none";
	return b ? b->label : "unknown";
}

QPU_API uint64_t qpu_board_mem_bytes_per_s(enum qpu_board board)
{
	const struct qpu_timing_board *b = qpu_timing_board_of(board);

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
