// SPDX-License-Identifier: MIT
/*
 * The emulated device's VideoCore IV runner (emudev.h): a job's programs
 * on libqpu/core/vc4's emulator, freshly initialised for each job so that
 * its statistics afterwards are the job's own, with the timing model of
 * libqpu/core/timing beside it when a board is set.
 *
 * Its options after "emu:" (see qpu_dev_open()): "strict-vpm" turns on the
 * emulator's strict VPM check (qpu_emu_set_strict_vpm()); "board=NAME" (or
 * $QPU_EMU_BOARD, when no option names one) runs the timing model through
 * the emulator's trace and event hooks and gives each job its modelled
 * time on that board (QPU_JOB_RESULT_TIMING); qpu_dev_set_board() changes
 * it later.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/emudev.h"
#include "toolkit/toolkit.h"
#include "qpu_devmodel.h"
#include "qpu_emu.h"
#include "qpu_timing.h"

/* Instructions run between checks of the job's end. */
#define VC4_SLICE	(1u << 20)

/* A device's emulator, its options and, while a board is set, the model. */
struct vc4_runner {
	struct qpu_emu *emu;
	bool strict_vpm;		/* option "strict-vpm" */
	enum qpu_board board;		/* option "board=", $QPU_EMU_BOARD */
	struct qpu_timing *timing;	/* the model, while @board is set */
};

/* What the emulator's callbacks get: the job and, if on, the model. */
struct vc4_run {
	const struct qpu_emu_job *job;
	struct qpu_timing *timing;
};

static void *vc4_create(void)
{
	struct vc4_runner *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->emu = aligned_alloc(8, (qpu_emu_size() + 7) & ~(size_t)7);
	if (!r->emu) {
		free(r);
		return NULL;
	}
	return r;
}

static void vc4_destroy(void *state)
{
	struct vc4_runner *r = state;

	free(r->emu);
	free(r->timing);
	free(r);
}

static int vc4_set_board(void *state, enum qpu_board board)
{
	struct vc4_runner *r = state;
	struct qpu_timing *timing = NULL;

	if (board != QPU_BOARD_NONE && !qpu_timing_board_of(board))
		return -EINVAL;
	if (board != QPU_BOARD_NONE) {
		timing = aligned_alloc(8, (qpu_timing_size() + 7) & ~(size_t)7);
		if (!timing)
			return -ENOMEM;
	}
	free(r->timing);
	r->timing = timing;
	r->board = board;
	return 0;
}

static int vc4_option(void *state, const char *opt, size_t len)
{
	static const char strict_vpm[] = "strict-vpm", board[] = "board=";
	struct vc4_runner *r = state;

	if (len == sizeof(strict_vpm) - 1 && !strncmp(opt, strict_vpm, len)) {
		r->strict_vpm = true;
		return 0;
	}
	if (len > sizeof(board) - 1 && !strncmp(opt, board, sizeof(board) - 1)) {
		char name[16] = "";

		if (len - (sizeof(board) - 1) < sizeof(name))
			memcpy(name, opt + sizeof(board) - 1,
			       len - (sizeof(board) - 1));
		r->board = qpu_board_from_name(name);
		return r->board == QPU_BOARD_NONE ? -EINVAL : 0;
	}
	return -ENOENT;
}

/* $QPU_EMU_BOARD when no option chose: a name it does not know fails. */
static int vc4_ready(void *state)
{
	struct vc4_runner *r = state;
	const char *env = getenv("QPU_EMU_BOARD");

	if (r->board == QPU_BOARD_NONE && env && *env) {
		r->board = qpu_board_from_name(env);
		if (r->board == QPU_BOARD_NONE)
			return -EINVAL;
	}
	return r->board != QPU_BOARD_NONE ? vc4_set_board(r, r->board) : 0;
}

_Static_assert(QPU_DEVMODEL_BUS_START == QPU_TIMING_ALIAS_DIRECT,
	       "the emulator's default bus space is the L2-bypassing alias");

/*
 * New buffers sit where Linux puts RAM on the board (a Pi 1's at the L2
 * alias), so the model's L2 sees them as that board's would; without a
 * board, at 0xC as on a Pi 2 or 3.
 */
static uint32_t vc4_bus_alias(void *state)
{
	const struct vc4_runner *r = state;
	const struct qpu_timing_board *b = qpu_timing_board_of(r->board);

	return b ? b->ram_alias : QPU_TIMING_ALIAS_DIRECT;
}

static int vc4_get_param(void *state, enum qpu_dev_param param,
			 uint64_t *value)
{
	switch (param) {
	case QPU_DEV_PARAM_NUM_QPUS:
		*value = QPU_EMU_NUM_QPUS;
		return 0;
	case QPU_DEV_PARAM_NUM_SLICES:
		*value = QPU_EMU_NUM_QPUS / 4;
		return 0;
	case QPU_DEV_PARAM_NUM_SEMAPHORES:
		*value = QPU_EMU_NUM_SEMAPHORES;
		return 0;
	case QPU_DEV_PARAM_VPM_SIZE:
		*value = QPU_EMU_VPM_WORDS * 4;
		return 0;
	case QPU_DEV_PARAM_FEATURES:
		*value = QPU_DEV_FEATURE_UNIFORMS_ANYWHERE | QPU_DEV_FEATURE_DEADLOCK |
			 QPU_DEV_FEATURE_ALL_BOS;
		return 0;
	default:
		/* No V3D registers here: no backend kind, no ident words. */
		return -EINVAL;
	}
}

/* Every access of a program: inside one of its job's buffers. */
static void *vc4_translate(void *ctx, uint32_t addr, uint32_t len,
			   enum qpu_mem_access access)
{
	(void)access;		/* every kind may reach every buffer of the job */
	return qpu_emudev_translate(((const struct vc4_run *)ctx)->job, addr, len);
}

static void vc4_timing_issue(void *ctx, unsigned int qpu, uint32_t pc,
			     uint64_t word)
{
	qpu_timing_issue(((struct vc4_run *)ctx)->timing, qpu, pc, word);
}

static void vc4_timing_event(void *ctx, const struct qpu_emu_event *ev)
{
	qpu_timing_event(((struct vc4_run *)ctx)->timing, ev);
}

static const struct qpu_emu_ops vc4_emu_ops = {
	.translate = vc4_translate,
};

/* The same with the timing model on. */
static const struct qpu_emu_ops vc4_timed_ops = {
	.translate = vc4_translate,
	.trace = vc4_timing_issue,
	.event = vc4_timing_event,
};

static enum qpu_access vc4_fault_access(const struct qpu_fault *f)
{
	enum qpu_mem_access access;

	if (qpu_devmodel_fault_access(f, &access))
		return qpu_access_from_emu(access);
	return QPU_ACCESS_OTHER;
}

/* Where each QPU stopped. */
static void vc4_report_qpus(const struct qpu_emu *emu,
			    struct qpu_job_result *result)
{
	unsigned int i;

	result->flags |= QPU_JOB_RESULT_QPUS;
	result->qpu_count = QPU_EMU_NUM_QPUS;
	for (i = 0; i < QPU_EMU_NUM_QPUS; i++) {
		struct qpu_job_qpu *q = &result->qpus[i];
		int sem = qpu_emu_get_wait_semaphore(emu, i, NULL);

		q->activity = qpu_activity_from_emu(qpu_emu_get_qpu_state(emu, i, &q->pc));
		q->semaphore = sem < 0 ? 0 : sem;
	}
}

/*
 * The job ran on a fresh emulator, started at @cpu0 of this thread's CPU
 * time: its statistics are the job's.
 */
static void vc4_count(struct vc4_runner *r, uint64_t cpu0,
		      struct qpu_job_result *result)
{
	const struct qpu_emu_stats *stats = qpu_emu_get_stats(r->emu);
	struct qpu_job_counters *c = &result->counters;
	unsigned int i;

	result->flags |= QPU_JOB_RESULT_INSTRUCTIONS | QPU_JOB_RESULT_COUNTERS;
	result->instructions = 0;
	for (i = 0; i < QPU_EMU_NUM_QPUS; i++)
		result->instructions += stats->instructions[i];
	c->dual_issued = stats->both_units;
	c->tmu_bytes = stats->tmu_bytes;
	c->uniform_bytes = stats->uniform_bytes;
	c->dma_load_bytes = stats->dma_load_bytes;
	c->dma_store_bytes = stats->dma_store_bytes;
	c->run_ns = qpu_emudev_thread_cpu_ns() - cpu0;
	c->vpm_wrapped = stats->vpm_wrapped;
	if (r->timing) {
		qpu_timing_to_job(r->timing, r->board, &result->timing);
		result->flags |= QPU_JOB_RESULT_TIMING;
	}
}

/* Runs the job's programs to their end on a freshly reset emulator. */
static void vc4_run(void *state, const struct qpu_emu_job_view *view,
		    struct qpu_job_result *result)
{
	struct vc4_runner *r = state;
	enum qpu_emu_status status = QPU_EMU_IDLE;
	uint64_t cpu0 = qpu_emudev_thread_cpu_ns();
	struct vc4_run run = { .job = view->job, .timing = r->timing };
	unsigned int i;
	int qpu;

	if (r->timing)
		qpu_timing_init(r->timing, qpu_timing_board_of(r->board));
	qpu_emu_init(r->emu, r->timing ? &vc4_timed_ops : &vc4_emu_ops, &run, 0);
	if (r->timing)
		qpu_emu_set_clock(r->emu, qpu_timing_clock(r->timing));
	qpu_emu_set_strict_vpm(r->emu, r->strict_vpm);
	qpu_emu_set_limit(r->emu, view->limit);
	for (i = 0; i < view->program_count; i++) {
		qpu = qpu_emu_start(r->emu, view->code_addr[i], view->unif_addr[i]);
		if (qpu >= 0 && r->timing)
			qpu_timing_start(r->timing, qpu, view->code_addr[i],
					 view->unif_addr[i]);
		if (qpu < 0) {
			result->status = QPU_STATUS_FAULT;
			result->fault_qpu = i;
			result->fault_pc = view->code_addr[i];
			result->fault_addr = result->fault_pc;
			result->fault_access = QPU_ACCESS_FETCH;
			vc4_count(r, cpu0, result);
			return;
		}
	}
	do {
		status = qpu_emu_run(r->emu, VC4_SLICE);
	} while (status == QPU_EMU_RUNNING);

	switch (status) {
	case QPU_EMU_IDLE:
		result->status = QPU_STATUS_DONE;
		break;
	case QPU_EMU_FAULT: {
		const struct qpu_fault *f = qpu_emu_get_fault(r->emu);

		result->status = QPU_STATUS_FAULT;
		result->fault_qpu = f->qpu;
		result->fault_pc = f->pc;
		result->fault_addr = f->addr;
		result->fault_access = vc4_fault_access(f);
		break;
	}
	case QPU_EMU_DEADLOCK:
		result->status = QPU_STATUS_DEADLOCK;
		vc4_report_qpus(r->emu, result);
		break;
	default:		/* a program needed more than its time */
		result->status = QPU_STATUS_TIMEOUT;
		break;
	}
	vc4_count(r, cpu0, result);
}

const struct qpu_emu_runner qpu_emu_runner_vc4 = {
	.gen = QPU_GEN_VC4,
	.instructions_per_ms = QPU_EMU_INSTRUCTIONS_PER_MS,
	.create = vc4_create,
	.destroy = vc4_destroy,
	.option = vc4_option,
	.ready = vc4_ready,
	.get_param = vc4_get_param,
	.set_board = vc4_set_board,
	.run = vc4_run,
	.bus_alias = vc4_bus_alias,
};
