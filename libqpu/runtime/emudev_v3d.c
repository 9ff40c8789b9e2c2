// SPDX-License-Identifier: MIT
/*
 * The emulated device's V3D runners (emudev.h), "emu:v3d42" (Pi 4) and
 * "emu:v3d71" (Pi 5): a job's compute dispatch on libqpu/core/v3d's
 * emulator, as the CSD configuration words SUBMIT_CSD would carry, which
 * the core decodes.
 *
 * Buffers sit in the emulator's MMU space as upstream's v3d driver places
 * BOs: each at a 128 KiB granule (QPU_V3D_MMU_GRANULE), the first granule
 * never mapped, so a buffer's GPU address is its offset in that space.
 * Before each job the MMU gets the job's buffers (all the device's with
 * QPU_JOB_ALL_BOS), at most QPU_V3D_MMU_MAX_BOS of them.
 *
 * Its option after "emu:v3d71": "board=pi5" (3 slices x 4 QPUs, the
 * default) or "board=pi5-16" (4 x 4), the Pi 5's two published
 * configurations (qpu_v3d_emu.h); "emu:v3d42" is the Pi 4's 2 x 4. The
 * option "timing" (or qpu_dev_set_board() with the device's own board,
 * QPU_BOARD_PI4, _PI5 or _PI5_16) runs the V3D timing model
 * (core/timing/qpu_timing_v3d.h) on the device's board beside every job,
 * whose result then carries its modelled time (QPU_JOB_RESULT_TIMING,
 * with that board). A
 * job that deadlocks (every live thread waits, as on a barrier no other
 * thread reaches, or on ldtmu with nothing queued), which would hang the
 * hardware, ends at once QPU_STATUS_DEADLOCK with each QPU's wait
 * (QPU_DEV_FEATURE_DEADLOCK), as on the VideoCore IV devices.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/emudev.h"
#include "runtime/runtime.h"
#include "toolkit/toolkit.h"
#include "qpu_devmodel.h"
#include "v3d/qpu_v3d_emu.h"
#include "qpu_timing_v3d.h"

/* Instructions run between checks of the job's end. */
#define V3D_SLICE		(1u << 20)
/*
 * A thread's instructions per millisecond of a job's timeout: one per
 * cycle at the Pi 4's 500 MHz QPU clock, the slowest of the boards.
 */
#define V3D_INSTRUCTIONS_PER_MS	500000u

/* A device's emulator, its board and its MMU. */
struct v3d_runner {
	struct qpu_v3d_emu *emu;
	enum qpu_v3d_emu_board board;
	struct qpu_v3d_mmu mmu;
	struct qpu_tv *timing;	/* the model, with the option "timing" */
};

static void *v3d_create(enum qpu_v3d_emu_board board)
{
	struct v3d_runner *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->emu = aligned_alloc(8, (qpu_v3d_emu_size() + 7) & ~(size_t)7);
	if (!r->emu) {
		free(r);
		return NULL;
	}
	r->board = board;
	return r;
}

static void *v3d42_create(void)
{
	return v3d_create(QPU_V3D_EMU_BOARD_PI4);
}

static void *v3d71_create(void)
{
	return v3d_create(QPU_V3D_EMU_BOARD_PI5_3X4);
}

static void v3d_destroy(void *state)
{
	struct v3d_runner *r = state;

	free(r->timing);
	free(r->emu);
	free(r);
}

/*
 * qpu_dev_set_board(): the model on (the device's own board: the others'
 * QPU counts are not the device's) or off (QPU_BOARD_NONE).
 */
static int v3d_set_board(void *state, enum qpu_board board)
{
	struct v3d_runner *r = state;

	if (board == QPU_BOARD_NONE) {
		free(r->timing);
		r->timing = NULL;
		return 0;
	}
	if (qpu_board_to_v3d(board) != (int)r->board)
		return -EINVAL;
	if (!r->timing)
		r->timing = aligned_alloc(8, qpu_tv_size());
	return r->timing ? 0 : -ENOMEM;
}

/* "board=NAME": a board of the runner's generation, by its core name. */
static int v3d_option(void *state, const char *opt, size_t len)
{
	static const char board[] = "board=", timing[] = "timing";
	struct v3d_runner *r = state;
	enum qpu_gen gen = qpu_v3d_emu_board(r->board)->gen;
	unsigned int b;

	if (len == sizeof(timing) - 1 && !strncmp(opt, timing, len))
		return v3d_set_board(r, qpu_board_from_v3d(r->board));

	if (len <= sizeof(board) - 1 || strncmp(opt, board, sizeof(board) - 1))
		return -ENOENT;
	opt += sizeof(board) - 1;
	len -= sizeof(board) - 1;
	for (b = 0; b < QPU_V3D_EMU_BOARD_COUNT; b++) {
		const struct qpu_v3d_emu_board_info *info = qpu_v3d_emu_board(b);

		if (info->gen == gen && strlen(info->name) == len &&
		    !strncmp(info->name, opt, len)) {
			r->board = b;
			return 0;
		}
	}
	return -EINVAL;
}

static int v3d_get_param(void *state, enum qpu_dev_param param,
			 uint64_t *value)
{
	const struct v3d_runner *r = state;
	const struct qpu_v3d_emu_board_info *b = qpu_v3d_emu_board(r->board);

	switch (param) {
	case QPU_DEV_PARAM_NUM_QPUS:
		*value = b->slices * b->qpus_per_slice;
		return 0;
	case QPU_DEV_PARAM_NUM_SLICES:
		*value = b->slices;
		return 0;
	case QPU_DEV_PARAM_FEATURES:
		*value = QPU_DEV_FEATURE_UNIFORMS_ANYWHERE | QPU_DEV_FEATURE_ALL_BOS |
			 QPU_DEV_FEATURE_DEADLOCK;
		return 0;
	default:
		/* no semaphores; the VPM is no compute job's; no ident registers */
		return -EINVAL;
	}
}

/* The job's buffers into the MMU, each touchable; false: too many. */
static bool v3d_map_job(struct v3d_runner *r, const struct qpu_emu_job *job)
{
	uint32_t addr, size;
	void *host;
	unsigned int i;

	qpu_v3d_mmu_init(&r->mmu);
	for (i = 0; (host = qpu_emudev_job_buffer(job, i, &addr, &size)); i++) {
		if (i == QPU_V3D_MMU_MAX_BOS)
			return false;
		r->mmu.bo[i] = (struct qpu_v3d_mmu_bo){
			.va = addr, .size = size, .host = host, .in_job = true,
		};
		r->mmu.count++;
	}
	return true;
}

/* The job ran on a freshly initialised emulator: its statistics are the job's. */
static void v3d_count(const struct v3d_runner *r, uint64_t cpu0,
		      struct qpu_job_result *result)
{
	const struct qpu_v3d_emu_stats *s = qpu_v3d_emu_get_stats(r->emu);
	struct qpu_job_counters *c = &result->counters;

	result->flags |= QPU_JOB_RESULT_INSTRUCTIONS | QPU_JOB_RESULT_COUNTERS;
	result->instructions = s->instructions;
	c->tmu_bytes = s->tmu_read_bytes + s->tmu_write_bytes;
	c->uniform_bytes = 4 * (s->uniforms + s->unifa_reads);
	c->run_ns = qpu_emudev_thread_cpu_ns() - cpu0;
}

/*
 * How far the dispatch of @cfg got: its batches, and those ended (started,
 * less those a thread slot still holds).
 */
static void v3d_progress(const struct v3d_runner *r, const uint32_t cfg[7],
			 struct qpu_job_result *result)
{
	const struct qpu_v3d_emu_board_info *b = qpu_v3d_emu_board(r->board);
	uint64_t held = 0;
	struct qpu_v3d_csd csd;
	unsigned int q, s;

	for (q = 0; q < b->slices * b->qpus_per_slice; q++) {
		for (s = 0; s < QPU_V3D_EMU_THREADS; s++) {
			enum qpu_v3d_emu_thread_state st;
			uint32_t pc;

			if (!qpu_v3d_emu_get_thread(r->emu, q, s, &st, &pc) &&
			    st != QPU_V3D_EMU_THREAD_FREE)
				held++;
		}
	}
	qpu_v3d_csd_decode(cfg, b->csd_raw_batches, &csd);
	result->batches = csd.batches;
	result->batches_done = qpu_v3d_emu_get_stats(r->emu)->batches - held;
	result->flags |= QPU_JOB_RESULT_PROGRESS;
}

/* The model's figures for the job that ran. */
static void v3d_timing(const struct v3d_runner *r, struct qpu_job_result *result)
{
	struct qpu_job_timing *t = &result->timing;
	struct qpu_tv_stats *s = malloc(sizeof(*s));
	unsigned int q;

	if (!s)
		return;
	qpu_tv_get_stats(r->timing, s);
	memset(t, 0, sizeof(*t));
	t->board = qpu_board_from_v3d(r->board);
	t->cycles = s->cycles;
	t->ns = s->ns;
	t->sdram_bytes = s->sdram_bytes;
	for (q = 0; q < QPU_V3D_EMU_MAX_QPUS; q++) {
		t->stall_tmu += s->qpu[q].stall[QPU_TV_STALL_TMU] +
				s->qpu[q].stall[QPU_TV_STALL_TMU_FIFO];
		t->stall_other += s->qpu[q].stall[QPU_TV_STALL_SFU] +
				  s->qpu[q].stall[QPU_TV_STALL_THRSW];
	}
	result->flags |= QPU_JOB_RESULT_TIMING;
	free(s);
}

static void v3d_fault(const struct qpu_v3d_emu_fault *vf,
		      struct qpu_job_result *result)
{
	enum qpu_mem_access access;

	result->status = QPU_STATUS_FAULT;
	result->fault_qpu = vf->f.qpu;
	result->fault_thread = vf->thread;
	result->fault_pc = vf->f.pc;
	result->fault_addr = vf->f.addr;
	result->fault_access = qpu_devmodel_fault_access(&vf->f, &access) ?
			       qpu_access_from_emu(access) : QPU_ACCESS_OTHER;
}

/*
 * Each QPU's wait in a deadlock: a thread waiting on ldtmu names it (and
 * its PC) before one at a barrier; a QPU with no live thread is idle.
 */
static void v3d_report_qpus(const struct v3d_runner *r,
			    struct qpu_job_result *result)
{
	const struct qpu_v3d_emu_board_info *b = qpu_v3d_emu_board(r->board);
	unsigned int n = b->slices * b->qpus_per_slice, q, s;

	for (q = 0; q < n && q < QPU_JOB_MAX_QPUS; q++) {
		struct qpu_job_qpu *o = &result->qpus[q];

		o->activity = QPU_ACTIVITY_IDLE;
		for (s = 0; s < QPU_V3D_EMU_THREADS; s++) {
			enum qpu_v3d_emu_thread_state st;
			uint32_t pc;

			if (qpu_v3d_emu_get_thread(r->emu, q, s, &st, &pc))
				continue;
			if (st == QPU_V3D_EMU_THREAD_WAIT_TMU ||
			    (st == QPU_V3D_EMU_THREAD_WAIT_BARRIER &&
			     o->activity == QPU_ACTIVITY_IDLE)) {
				o->activity = st == QPU_V3D_EMU_THREAD_WAIT_TMU ?
					      QPU_ACTIVITY_WAIT_TMU :
					      QPU_ACTIVITY_WAIT_BARRIER;
				o->pc = pc;
			}
		}
	}
}

/* Runs the job's dispatch to its end on a freshly initialised emulator. */
static void v3d_run(void *state, const struct qpu_emu_job_view *view,
		    struct qpu_job_result *result)
{
	struct v3d_runner *r = state;
	const struct qpu_v3d_emu_board_info *b = qpu_v3d_emu_board(r->board);
	enum qpu_v3d_emu_status status;
	uint64_t cpu0 = qpu_emudev_thread_cpu_ns();
	uint32_t cfg[7];

	result->status = QPU_STATUS_FAULT;
	result->fault_pc = view->code_addr[0];
	result->fault_addr = view->code_addr[0];
	result->fault_access = QPU_ACCESS_OTHER;
	static const struct qpu_v3d_emu_ops timed = {
		.trace = qpu_tv_trace, .tmu = qpu_tv_tmu,
	};

	if (r->timing)
		qpu_tv_init(r->timing, qpu_tv_board_get(r->board));
	if (view->kind != QPU_JOB_V3D_DISPATCH || !v3d_map_job(r, view->job) ||
	    qpu_v3d_emu_init(r->emu, r->board, &r->mmu, r->timing ? &timed : NULL,
			     r->timing))
		return;
	qpu_v3d_emu_set_limit(r->emu, view->limit);
	qpu_v3d_dispatch_cfg(&view->dispatch, view->code_addr[0],
			     view->unif_addr[0], b->csd_raw_batches, cfg);
	if (qpu_v3d_emu_dispatch(r->emu, cfg))
		return;
	do {
		status = qpu_v3d_emu_run(r->emu, V3D_SLICE);
	} while (status == QPU_V3D_EMU_RUNNING);

	switch (status) {
	case QPU_V3D_EMU_IDLE:
		result->status = QPU_STATUS_DONE;
		result->fault_pc = 0;
		result->fault_addr = 0;
		result->fault_access = 0;
		break;
	case QPU_V3D_EMU_FAULT:
		v3d_fault(qpu_v3d_emu_get_fault(r->emu), result);
		break;
	case QPU_V3D_EMU_DEADLOCK:
		result->status = QPU_STATUS_DEADLOCK;
		result->fault_pc = 0;
		result->fault_addr = 0;
		result->fault_access = 0;
		v3d_report_qpus(r, result);
		break;
	default:	/* past its time */
		result->status = QPU_STATUS_TIMEOUT;
		result->fault_pc = 0;
		result->fault_addr = 0;
		result->fault_access = 0;
		break;
	}
	v3d_count(r, cpu0, result);
	v3d_progress(r, cfg, result);
	if (r->timing)
		v3d_timing(r, result);
}

/* The two differ in their generation and default board alone. */
#define V3D_RUNNER(g, create_fn) {				\
	.gen = (g),						\
	.instructions_per_ms = V3D_INSTRUCTIONS_PER_MS,		\
	.create = (create_fn),					\
	.destroy = v3d_destroy,					\
	.option = v3d_option,					\
	.get_param = v3d_get_param,				\
	.set_board = v3d_set_board,				\
	.run = v3d_run,						\
	.bus_start = QPU_V3D_MMU_GRANULE,			\
	.bus_align = QPU_V3D_MMU_GRANULE,			\
}

const struct qpu_emu_runner qpu_emu_runner_v3d42 =
	V3D_RUNNER(QPU_GEN_V3D42, v3d42_create);
const struct qpu_emu_runner qpu_emu_runner_v3d71 =
	V3D_RUNNER(QPU_GEN_V3D71, v3d71_create);
