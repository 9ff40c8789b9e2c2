/* SPDX-License-Identifier: MIT */
/*
 * The emulated device's runners: what one generation adds to the generic
 * emulated device of emudev.c, behind a small ops table.
 *
 * emudev.c owns everything a device of any generation has: buffers placed
 * in the devmodel's bus space (qpu_devmodel.h), the queue, the worker
 * thread, in- and out-fences (which carry a failed job's error to the jobs
 * after it), the kept results, the options and the limits. A runner runs
 * one job at a time on its generation's emulator, through the job's view
 * of memory (qpu_emudev_translate()), and fills in its result.
 *
 * Adding a generation (the V3D emulator of libqpu/core/v3d, issue 34):
 * write a struct qpu_emu_runner in a new file beside emudev_vc4.c, list it
 * in emudev.c's table of runners and the file in libqpu.mk; nothing else
 * changes. "emu:NAME" (NAME: the runner's qpu_gen_name()) opens a device
 * with it; "emu" and "emu:OPTIONS" open VideoCore IV's. Until a runner
 * exists for a generation, "emu:NAME" fails with ENOTSUP.
 * Tests register a runner of their own with qpu_emudev_register_runner().
 */
#ifndef LIBQPU_EMUDEV_H
#define LIBQPU_EMUDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qpu.h"

/* The bus-space view of one job: where its code, uniforms, buffers are. */
struct qpu_emu_job;

/**
 * struct qpu_emu_job_view - what a runner reads of a job
 * @kind: QPU_JOB_VC4_PROGRAMS or QPU_JOB_V3D_DISPATCH (the runner's)
 * @program_count: VideoCore IV: the programs, 1 to QPU_JOB_MAX_QPUS
 * @code_addr: VideoCore IV: each program's first instruction (bus address)
 * @unif_addr: VideoCore IV: each program's first uniform (bus address)
 * @dispatch: V3D: the dispatch (its batches counted when it gave none),
 *	its shader and uniforms as bus addresses in @code_addr[0] and
 *	@unif_addr[0]
 * @limit: instructions each program may issue before the job times out
 *	(QPU_DEV_PARAM_INSTRUCTIONS_PER_MS per millisecond of its timeout);
 *	0: no bound (QPU_JOB_TIMEOUT_NONE)
 * @job: for qpu_emudev_translate()
 */
struct qpu_emu_job_view {
	enum qpu_job_kind kind;
	unsigned int program_count;
	uint32_t code_addr[QPU_JOB_MAX_QPUS];
	uint32_t unif_addr[QPU_JOB_MAX_QPUS];
	struct qpu_v3d_dispatch dispatch;
	uint64_t limit;
	const struct qpu_emu_job *job;
};

/*
 * Host memory of @len bytes at bus address @addr, when they lie inside one
 * buffer of @job; NULL otherwise (the program faults). Any thread may call
 * it while the job runs.
 */
void *qpu_emudev_translate(const struct qpu_emu_job *job, uint32_t addr,
			   uint32_t len);

/*
 * The host memory of @job's buffer @i (by bus address, from 0) with its
 * bus address and size, or NULL past the last: for runners whose emulator
 * keeps its own map of them (V3D's MMU).
 */
void *qpu_emudev_job_buffer(const struct qpu_emu_job *job, unsigned int i,
			    uint32_t *addr, uint32_t *size);

/* The calling thread's CPU time: a runner runs its job in that thread. */
uint64_t qpu_emudev_thread_cpu_ns(void);

/**
 * struct qpu_emu_runner - one generation's part of the emulated device
 * @gen: the generation it runs; "emu:" followed by its qpu_gen_name()
 *	opens a device with it
 * @instructions_per_ms: how a job's timeout becomes its instruction limit
 *	(QPU_DEV_PARAM_INSTRUCTIONS_PER_MS)
 * @create: its per-device state, or NULL (out of memory)
 * @destroy: free @create's state; no job runs then
 * @option: one "emu:" option of its own (@opt, @len bytes, no comma), such
 *	as VideoCore IV's "strict-vpm": 0, -ENOENT when it is not one of
 *	its options, -EINVAL for a bad value. NULL: it has none
 * @ready: called once after the options, before any job: 0 or -errno
 *	(VideoCore IV reads $QPU_EMU_BOARD here). NULL: nothing to do
 * @get_param: what the generation decides (QPU_DEV_PARAM_NUM_QPUS,
 *	_NUM_SLICES, _NUM_SEMAPHORES, _VPM_SIZE, _FEATURES): 0 or -EINVAL.
 *	The device answers the others (the generation, buffers, timeouts)
 * @set_board: model @board's timing (qpu_dev_set_board()); no job runs
 *	then. NULL: -ENOTTY, as on devices without a timing model
 * @run: run @view to its end and fill @result (zeroed before the call)
 *	with its status, fault, counters. Called from one thread at a time,
 *	the submitting one or the device's worker
 * @bus_start: where its buffers' bus space starts; 0: at
 *	QPU_DEVMODEL_BUS_START (qpu_devmodel.h)
 * @bus_alias: where the bus space of a device without buffers starts now,
 *	a QPU_DEVMODEL_BUS_SIZE window (VideoCore IV: its board's RAM alias,
 *	so the model's L2 sees what the board's would); buffers made later
 *	join the first ones' window. NULL: @bus_start, up to the top
 * @bus_align: each buffer's bus address a multiple of it (a power of
 *	two); 0: of a page
 *
 * Every function gets the state @create returned.
 */
struct qpu_emu_runner {
	enum qpu_gen gen;
	uint64_t instructions_per_ms;
	void *(*create)(void);
	void (*destroy)(void *state);
	int (*option)(void *state, const char *opt, size_t len);
	int (*ready)(void *state);
	int (*get_param)(void *state, enum qpu_dev_param param,
			 uint64_t *value);
	int (*set_board)(void *state, enum qpu_board board);
	void (*run)(void *state, const struct qpu_emu_job_view *view,
		    struct qpu_job_result *result);
	uint32_t bus_start;
	uint32_t bus_align;
	uint32_t (*bus_alias)(void *state);
};

/* emudev_vc4.c: VideoCore IV on libqpu/core/vc4's emulator. */
extern const struct qpu_emu_runner qpu_emu_runner_vc4;
/* emudev_v3d.c: V3D 4.2 and 7.1 on libqpu/core/v3d's emulator. */
extern const struct qpu_emu_runner qpu_emu_runner_v3d42;
extern const struct qpu_emu_runner qpu_emu_runner_v3d71;

/*
 * Adds @runner for its generation, replacing the one there (NULL: the
 * built-in one again), for devices opened afterwards. For tests: libqpu
 * does not export it, so a test links libqpu.a. Not thread-safe against
 * qpu_dev_open().
 */
void qpu_emudev_register_runner(enum qpu_gen gen,
				const struct qpu_emu_runner *runner);

#endif /* LIBQPU_EMUDEV_H */
