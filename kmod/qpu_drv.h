/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qpu.ko private interfaces: the device and file structures, and the
 * prototypes of each file, grouped by the file that defines them.
 */
#ifndef QPU_DRV_H
#define QPU_DRV_H

#include <linux/atomic.h>
#include <linux/dma-fence.h>
#include <linux/hrtimer.h>
#include <linux/iosys-map.h>
#include <linux/irqreturn.h>
#include <linux/kref.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/maple_tree.h>
#include <linux/mm_types.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/srcu.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <linux/qpu.h>

struct dma_buf;
struct dma_buf_attachment;
struct qpu_bo;
struct qpu_dev;
struct qpu_hw;
struct qpu_job;
struct qpu_sim;
struct qpu_telemetry_sample;
struct rpi_firmware;
struct sk_buff;
struct gen_pool;
struct pid;
struct file;
struct vm_area_struct;
struct vm_fault;

/**
 * struct qpu_backend_ops - what differs between the real and simulated V3D.
 * @reg_read: read the V3D register at offset @reg (qpu_v3d_regs.h).
 * @reg_write: write @val to the V3D register at offset @reg.
 * @bo_alloc: get zeroed memory for @bo->size bytes: set @bo->vaddr and
 *	@bo->bus_addr (and @bo->dma_addr if used); 0 or a negative errno.
 * @bo_free: give back what @bo_alloc got: the BO is no longer in use, or
 *	the device is going (qpu_bo_unplug()) and nothing maps it any more.
 * @bo_mmap: prepare @vma for @bo's pages (flags, page protection); nothing
 *	is mapped yet: @bo_fault inserts pages as they are touched.
 * @bo_fault: map page @pgoff of @bo (within the BO) at @vmf's address;
 *	called only while the device is present (qpu_dev_read_lock()).
 * @bo_import: make the imported @bo (@bo->sgt mapped for the device, see
 *	qpu_dmabuf.c) reachable by jobs: set @bo->bus_addr, and @bo->vaddr
 *	if the backend reads memory through the CPU; refuse (-EINVAL) what
 *	the V3D cannot reach. 0 or a negative errno, nothing to undo then.
 * @bo_unimport: undo @bo_import.
 * @job_begin: a job is about to be programmed into the queue (optional;
 *	the simulated V3D learns which BOs the job may touch, and unless it
 *	follows the hardware's policy, clears everything an earlier job left).
 * @job_run: the job's programs have just been queued: run them now, in
 *	the caller's context, as far as one slice of the backend's work goes
 *	(optional: a backend whose QPUs run by themselves has none). Returns
 *	true when a program ended or faulted or the job's time verdict changed,
 *	so the scheduler looks at the job at once instead of waiting for a
 *	kick. The simulated V3D runs here unless a knob (poll_only,
 *	latency_us) asks for the hardware's timing: an empty job then ends in
 *	the work that started it, without waking another thread.
 * @job_end: the job has ended, whatever its status (optional).
 * @job_fault: fill @fault when the queue's error flag is up (optional).
 * @job_check: the backend's verdict on the running job's time (optional;
 *	without it the wall clock decides): QPU_JOB_TIMEOUT when a program
 *	needs more instructions than the job's timeout allows, QPU_JOB_DEADLOCK
 *	(with @job's QPU states filled) when every running program waits
 *	forever, else 0 with *@progressing telling whether programs are
 *	issuing instructions now (the scheduler then holds off the wall-clock
 *	deadline).
 * @qpu_instructions: the instructions each of the first @n QPUs issued
 *	since the device appeared, into @counts (optional: a backend that
 *	cannot count per QPU leaves it NULL, and netlink leaves them out).
 * @telemetry_read: fill @s with what the firmware (or the model) says of
 *	the V3D's clock, the temperature and throttling, each field flagged in
 *	@s->have; 0, or a negative errno when nothing could be read (optional:
 *	without it the device has no telemetry).
 * @confines_jobs: whether every access of a job's programs is checked
 *	against its buffers now, so that any task may submit (optional:
 *	without it, the backend cannot, as the real V3D cannot, and submitting
 *	needs CAP_SYS_RAWIO). The simulated V3D confines jobs unless it
 *	follows the hardware's policy (sim_hw_policy), which tests the gate.
 * @reset: bring a wedged V3D back to its state after probe, discarding
 *	every program and everything programs left in the VPM, semaphores and
 *	mutex.
 * @release: free the backend's state at the device's last reference.
 *
 * Context and locks, op by op (no op may take a lock of qpu_drv.h's
 * structs, since callers below may hold them):
 *
 * - @reg_read: any context, hard interrupts included (the scheduler's poll
 *   timer and the V3D's interrupt read SRQCS and DBQITC), with no qpu lock
 *   held or with any of them; must not sleep. The simulated V3D takes its
 *   own register spinlock with interrupts off.
 * - @reg_write: the scheduler's work (job start, reset, isolation), probe,
 *   and the interrupt handler (DBQITC acknowledge), so also must not sleep;
 *   no qpu lock held. The scheduler's work is ordered, so writes of one
 *   job's programming never interleave with another's.
 * - @bo_alloc: process context (BO_CREATE), under &qpu_file.lock, inside
 *   qpu_dev_read_lock(); may sleep.
 * - @bo_free: process context, under &qpu_dev.bos_lock; may sleep.
 * - @bo_import: process context (BO_IMPORT), under &qpu_file.lock, inside
 *   qpu_dev_read_lock(); may sleep. @bo_unimport: as @bo_free.
 * - @bo_mmap: mmap(), under the caller's mmap_lock held for writing.
 * - @bo_fault: the page fault handler, under the mmap_lock held for
 *   reading and qpu_dev_read_lock().
 * - @job_begin, @job_run, @job_end, @job_fault, @job_check and @reset: the
 *   scheduler's work only, with no qpu lock held (so one at a time, never
 *   with the poll timer armed for @reset and @job_end); may sleep.
 * - @qpu_instructions: netlink requests, no qpu lock held; may sleep.
 * - @telemetry_read: the telemetry's sampling work, with no qpu lock held
 *   (qpu_telemetry.c takes its lock after the read); may sleep.
 * - @confines_jobs: process context (SUBMIT, GET_PARAM), any lock held;
 *   must not sleep.
 * - @release: the device's last reference put, no qpu lock held.
 */
struct qpu_backend_ops {
	u32 (*reg_read)(struct qpu_dev *qdev, u32 reg);
	void (*reg_write)(struct qpu_dev *qdev, u32 reg, u32 val);
	int (*bo_alloc)(struct qpu_dev *qdev, struct qpu_bo *bo);
	void (*bo_free)(struct qpu_dev *qdev, struct qpu_bo *bo);
	void (*bo_mmap)(struct qpu_dev *qdev, struct qpu_bo *bo,
			struct vm_area_struct *vma);
	vm_fault_t (*bo_fault)(struct qpu_dev *qdev, struct qpu_bo *bo,
			       struct vm_fault *vmf, unsigned long pgoff);
	int (*bo_import)(struct qpu_dev *qdev, struct qpu_bo *bo);
	void (*bo_unimport)(struct qpu_dev *qdev, struct qpu_bo *bo);
	void (*job_begin)(struct qpu_dev *qdev, struct qpu_job *job);
	bool (*job_run)(struct qpu_dev *qdev, struct qpu_job *job);
	void (*job_end)(struct qpu_dev *qdev, struct qpu_job *job);
	void (*job_fault)(struct qpu_dev *qdev, struct qpu_job *job);
	u32 (*job_check)(struct qpu_dev *qdev, struct qpu_job *job,
			 bool *progressing);
	void (*qpu_instructions)(struct qpu_dev *qdev, u64 *counts,
				 unsigned int n);
	int (*telemetry_read)(struct qpu_dev *qdev,
			      struct qpu_telemetry_sample *s);
	bool (*confines_jobs)(const struct qpu_dev *qdev);
	int (*reset)(struct qpu_dev *qdev);
	void (*release)(struct qpu_dev *qdev);
};

/**
 * struct qpu_hang - the device and its job when the last job timed out.
 * @valid: a job has timed out since the device appeared.
 * @time: when (CLOCK_MONOTONIC).
 * @seqno: the job's number in its file.
 * @pid: the submitting process, initial pid namespace.
 * @comm: its command name at submission.
 * @timeout_ms: the job's timeout.
 * @programs: its programs.
 * @code_addr: its first program's code.
 * @unif_addr: its first program's uniforms.
 * @srqcs: SRQCS before the reset.
 * @dbqite: DBQITE before the reset.
 * @dbqitc: DBQITC before the reset.
 */
struct qpu_hang {
	bool valid;
	ktime_t time;
	u64 seqno;
	pid_t pid;
	char comm[TASK_COMM_LEN];
	u32 timeout_ms;
	u32 programs;
	u32 code_addr;
	u32 unif_addr;
	u32 srqcs;
	u32 dbqite;
	u32 dbqitc;
};

/**
 * struct qpu_sched - runs jobs on one V3D, one at a time.
 * @lock: protects @clients, every client's queue, each queued job's
 *	@ready, @busy_ns and @busy_since; taken from fence callbacks, so with
 *	interrupts off.
 * @clients: clients with queued jobs, in turn order; struct qpu_client.node.
 * @wq: ordered workqueue running @work, the only context that starts, polls
 *	and ends jobs, so @running needs no lock.
 * @work: starts the next job, polls the running one, handles its timeout.
 * @running: the job on the V3D, or NULL.
 * @running_client: its file's &qpu_client.id, or 0 (under @lock).
 * @after_running: queued jobs of @running's file, closed while it ran:
 *	canceled once it ends, as fences of one context signal in order
 *	(under @lock).
 * @stopped: set at device removal; queued jobs are canceled, none starts.
 * @jobs_submitted: counters of the device's life, read without a lock.
 * @jobs_done: jobs that ended with QPU_JOB_DONE.
 * @jobs_failed: jobs that ended with a fault.
 * @jobs_timeout: jobs that ran past their timeout.
 * @jobs_canceled: jobs that never started.
 * @resets: V3D resets after a timeout, a fault, or an administrator's or
 *	the device's removal request.
 * @isolation_resets: V3D resets before a file's job that followed another
 *	file's (see qpu_sched_isolate()).
 * @isolation_reset_ns: the time those took.
 * @host_irqs: host interrupts taken (module parameter host_irq).
 * @polls: completion polls of the running job by @poll.
 * @poll: reads SRQCS while a job runs, from 10 us after its start,
 *	doubling up to 1 ms, and kicks @work when the job's programs have all
 *	ended or one faulted. Armed only by @work, after it started a job,
 *	and cancelled by @work before that job ends, so it never reads the
 *	registers of a V3D being reset or gone.
 * @poll_programs: the running job's programs, for @poll; written by @work
 *	while @poll is not armed.
 * @poll_ns: @poll's next interval; written by @work before arming it,
 *	then only by @poll.
 * @poll_deferred: the backend ran the running job at its start (@job_run)
 *	and @poll is not armed yet: @work arms it if the job has not ended
 *	when it first looks. Only @work reads and writes it.
 * @reset_failures: resets that failed, or that the V3D did not do.
 * @kept: the BOs of jobs that ended with a reset that failed, held because
 *	their programs may still write them; struct qpu_sched_kept, only
 *	@work and removal touch it. Freed by the next reset that succeeds,
 *	or when the device goes.
 * @kept_bos: BOs on @kept, for debugfs stats.
 * @resets_requested: administrator resets asked for (under @lock).
 * @resets_handled: of those, resets done by @work (under @lock).
 * @reset_wait: where qpu_sched_reset_request() waits for @resets_handled.
 * @hang_lock: @hang, written by @work and read by netlink.
 * @hang: the last timeout's snapshot.
 * @busy_ns: time the ended jobs ran, from start to end (under @lock).
 * @busy_since: when the running job started, or 0 (under @lock); written
 *	by @work with @running, read by netlink for the time so far.
 * @owner: the client id of the file whose jobs ran on the V3D since its
 *	last reset, or 0 when none did; only @work reads and writes it.
 */
struct qpu_sched {
	spinlock_t lock;		/* @clients, client queues, job readiness */
	struct list_head clients;
	struct workqueue_struct *wq;
	struct delayed_work work;
	struct qpu_job *running;
	u32 running_client;
	struct list_head after_running;
	bool stopped;
	atomic64_t jobs_submitted;
	atomic64_t jobs_done;
	atomic64_t jobs_failed;
	atomic64_t jobs_timeout;
	atomic64_t jobs_canceled;
	atomic64_t resets;
	atomic64_t isolation_resets;
	atomic64_t isolation_reset_ns;
	atomic64_t host_irqs;
	atomic64_t polls;
	struct hrtimer poll;
	u32 poll_programs;
	u64 poll_ns;
	bool poll_deferred;
	atomic64_t reset_failures;
	struct list_head kept;
	atomic_t kept_bos;
	u64 resets_requested;
	u64 resets_handled;
	wait_queue_head_t reset_wait;
	struct mutex hang_lock;		/* @hang */
	struct qpu_hang hang;
	u64 busy_ns;
	ktime_t busy_since;
	u32 owner;
};

/**
 * struct qpu_sched_snapshot - a scheduler's state, read at one moment.
 * @state: an enum qpu_dev_state: stopped, busy (a job runs) or idle.
 * @jobs_submitted: &qpu_sched.jobs_submitted.
 * @jobs_done: &qpu_sched.jobs_done.
 * @jobs_failed: &qpu_sched.jobs_failed.
 * @jobs_timeout: &qpu_sched.jobs_timeout.
 * @jobs_canceled: &qpu_sched.jobs_canceled.
 * @resets: &qpu_sched.resets.
 * @busy_ns: time the V3D ran jobs, the running one's so far included.
 *
 * Filled by qpu_sched_snapshot() under the scheduler's lock, for readers
 * outside the scheduler (netlink), which never reach into its structs.
 */
struct qpu_sched_snapshot {
	u32 state;
	u64 jobs_submitted;
	u64 jobs_done;
	u64 jobs_failed;
	u64 jobs_timeout;
	u64 jobs_canceled;
	u64 resets;
	u64 busy_ns;
};

/**
 * struct qpu_client - one file's view of the scheduler.
 * @queue: its jobs that have not started, oldest first; under the
 *	scheduler's lock. Only the oldest can start, so a file's jobs run in
 *	submission order and its fences signal in order.
 * @node: on &qpu_sched.clients while @queue holds a job.
 * @fence_context: the dma_fence context of this file's jobs.
 * @next_seqno: the next job's number (under the file's lock).
 * @jobs: seqno -> struct qpu_job, the file's last jobs for QPU_IOCTL_WAIT;
 *	each entry holds a job reference (under the file's lock).
 * @id: the file's number for netlink (QPU_A_CLIENT_ID), set at open and
 *	never changed; unique since the module was loaded, never 0.
 * @queued: jobs on @queue plus submissions under way, bounded by
 *	max_queued_jobs: SUBMIT takes a place before it allocates, and gives
 *	it back on failure; the scheduler gives it back when the job leaves
 *	@queue (started or canceled) or is canceled before reaching it.
 */
struct qpu_client {
	u32 id;
	atomic_t queued;
	struct list_head queue;
	struct list_head node;
	u64 fence_context;
	u64 next_seqno;
	struct xarray jobs;
};

/* Which fields of a struct qpu_telemetry_sample were read. */
#define QPU_TELEMETRY_HAVE_CLOCK_SET		BIT(0)
#define QPU_TELEMETRY_HAVE_CLOCK_MEASURED	BIT(1)
#define QPU_TELEMETRY_HAVE_TEMP			BIT(2)
#define QPU_TELEMETRY_HAVE_THROTTLED		BIT(3)

/**
 * struct qpu_telemetry_sample - one reading of the firmware's telemetry.
 * @have: QPU_TELEMETRY_HAVE_* bits of the fields below that were read.
 * @clock_set_hz: the V3D's clock rate as set (GET_CLOCK_RATE).
 * @clock_measured_hz: the V3D's clock as measured (GET_CLOCK_MEASURED).
 * @temp_mc: the SoC's temperature, millidegrees Celsius.
 * @throttled: the firmware's get-throttled word (enum qpu_throttled_flags).
 */
struct qpu_telemetry_sample {
	u32 have;
	u32 clock_set_hz;
	u32 clock_measured_hz;
	s32 temp_mc;
	u32 throttled;
};

/**
 * struct qpu_telemetry - a device's telemetry sampling (qpu_telemetry.c).
 * @lock: protects everything below but the counters; taken by the
 *	sampling work, by open and close (process context) and by netlink.
 * @work: takes a sample every telemetry_period_ms while @users is not 0;
 *	on system_wq.
 * @users: open files of the device.
 * @stopped: set at removal, before @work is cancelled for good.
 * @sample: the last sample; valid when @when is not 0.
 * @when: when it was taken (CLOCK_MONOTONIC), or 0 before the first.
 * @tried: when the last sample was asked for, answered or not; 0 before
 *	the first. A first file's sample waits for a period after it...
 * @tried_gen: ...unless the period was written since (its generation then).
 * @clock_low: the clock-low state (see uapi's "DOC: telemetry").
 * @throttling: the throttling state.
 * @clear_samples: samples in a row without a throttled "now" bit.
 * @samples: samples taken, read without @lock.
 * @clock_low_events: entries into @clock_low.
 * @throttle_events: entries into @throttling.
 * @model: the simulated V3D's knobs (qpu_sim_telemetry.c), or NULL.
 */
struct qpu_telemetry {
	struct mutex lock;		/* sample, states, users */
	struct delayed_work work;
	unsigned int users;
	bool stopped;
	struct qpu_telemetry_sample sample;
	ktime_t when;
	ktime_t tried;
	int tried_gen;
	bool clock_low;
	bool throttling;
	unsigned int clear_samples;
	atomic64_t samples;
	atomic64_t clock_low_events;
	atomic64_t throttle_events;
	void *model;
};

/**
 * struct qpu_v3d_ident - what a V3D says about itself, read once at probe.
 * @raw: the IDENT0, IDENT1 and IDENT2 registers as read.
 * @revision: V3D revision.
 * @num_slices: number of slices.
 * @qpus_per_slice: QPUs in each slice.
 * @tmus_per_slice: texture units in each slice.
 * @num_semaphores: hardware semaphores shared by the QPUs.
 * @vpm_size: VPM size in bytes.
 */
struct qpu_v3d_ident {
	u32 raw[3];
	u32 revision;
	u32 num_slices;
	u32 qpus_per_slice;
	u32 tmus_per_slice;
	u32 num_semaphores;
	u32 vpm_size;
};

/**
 * struct qpu_dev - one V3D, real or simulated, and its character device.
 * @ref: lifetime. The backend's probe holds one reference, dropped at remove
 *	after the misc device is gone; each open file holds one, dropped at
 *	release. misc_open() calls our open under the misc core's lock, which
 *	misc_deregister() also takes, so a file cannot be opened after remove.
 * @dev: the platform device; a reference is held until the last put.
 * @misc: the character device, /dev/qpu or /dev/qpuN.
 * @index: N in /dev/qpuN (0 for /dev/qpu).
 * @name: the node's name.
 * @backend: what stands behind the registers.
 * @ops: the backend's operations.
 * @regs: the real V3D's registers; NULL for the simulated one. Valid only
 *	while the device is bound.
 * @irq: the real V3D's interrupt while requested, else 0.
 * @hw: the real V3D's backend state (qpu_hw.c); NULL for the simulated one.
 *	Device-managed: valid only while the device is bound.
 * @sim: the simulated V3D's state; NULL for the real one. Freed by
 *	@ops->release at the last reference, so BOs can outlive an unbind.
 * @ident: identification, read at probe and kept for the device's life.
 * @clock_hz: the V3D's clock rate read at probe, or 0 when unknown.
 * @debugfs: the device's debugfs directory, qpu/<name>/.
 * @gone: set when the device's removal begins, before its memory is
 *	freed; read by qpu_dev_present() inside qpu_dev_read_lock(). From then
 *	on ioctls and mmap fail with -ENODEV and touching a mapping raises
 *	SIGBUS.
 * @bos_lock: protects @bos; taken after &qpu_file.lock and after
 *	@files_lock, never with a spinlock held (freeing DMA memory sleeps).
 * @bos: every BO of the device, whoever holds it (a handle, a mapping, a
 *	job); struct qpu_bo.node. The removal frees their memory through it.
 * @bo_count: BOs alive on this device, whoever holds them.
 * @bo_bytes: bytes of those BOs, checked against the device limit.
 * @dma_memory: BO memory comes from the DMA API (CMA on a Pi): a real V3D,
 *	or a simulated one probed with sim_dma. Set before registering; such
 *	devices share one limit (qpu_bo_create()).
 * @bo_l2_cached: the V3D reaches BOs through the VideoCore L2 (their bus
 *	alias is not 0xC), &QPU_PARAM_BO_L2_CACHED. Set by the backend before
 *	registering, constant after.
 * @unplug_srcu: readers are the device's ioctls and page faults; its
 *	removal waits for them (qpu_dev_read_lock()).
 * @sched: the job scheduler.
 * @files_lock: protects @files. Taken by open and release, and by netlink
 *	dumps, which take each file's &qpu_file.lock and then the scheduler's
 *	lock under it: files_lock, then qpu_file.lock, then qpu_sched.lock.
 * @files: the open files; struct qpu_file.node.
 * @telemetry: clock, temperature and throttling samples.
 */
struct qpu_dev {
	struct kref ref;
	struct device *dev;
	struct miscdevice misc;
	int index;
	char name[16];
	enum qpu_backend backend;
	const struct qpu_backend_ops *ops;
	void __iomem *regs;
	int irq;
	struct qpu_hw *hw;
	struct qpu_sim *sim;
	struct qpu_v3d_ident ident;
	u32 clock_hz;
	struct dentry *debugfs;
	bool gone;
	struct mutex bos_lock;		/* @bos */
	struct list_head bos;
	atomic_t bo_count;
	atomic64_t bo_bytes;
	bool dma_memory;
	bool bo_l2_cached;
	struct srcu_struct unplug_srcu;
	struct qpu_sched sched;
	struct mutex files_lock;	/* @files */
	struct list_head files;
	struct qpu_telemetry telemetry;
};

/**
 * struct qpu_quota - the bytes of one file's BOs, counted until each is
 *	freed: a BO kept alive by a mapping or a job after its handle went
 *	still holds its memory, so it still counts against the file's limit.
 * @ref: held by the file and by each of its BOs.
 * @bytes: bytes of the BOs that hold a reference.
 */
struct qpu_quota {
	refcount_t ref;
	atomic64_t bytes;
};

/**
 * struct qpu_file - state of one open file of a qpu device.
 * @qdev: the device, referenced for the life of the file.
 * @lock: serialises changes to @handles, @mmap_used and @mmap_offsets
 *	together, so a BO's handle and its mmap range appear and vanish as one.
 * @handles: handle -> struct qpu_bo; each entry holds a BO reference.
 * @handle_pgoffs: handle -> the first page of its range in the file's mmap
 *	space (xa_mk_value()): a BO imported into several files (its own
 *	export, see qpu_dmabuf.c) has a range in each.
 * @mmap_used: bitmap of the pages of the file's mmap space in use, from
 *	its first page; NULL until the first BO (see qpu_bo.c).
 * @mmap_pages: pages @mmap_used covers; it grows, never shrinks.
 * @mmap_offsets: page offset range -> struct qpu_bo, without a reference:
 *	an entry lives exactly as long as the BO's handle.
 * @quota: bytes of the BOs this file created and that are not yet freed,
 *	checked against the per-file limit.
 * @client: the file's jobs.
 * @node: on &qpu_dev.files, under &qpu_dev.files_lock.
 * @mapping: the address space the file's mappings live in (the device
 *	node's inode's), which the device's removal zaps.
 * @pid: the opening process (thread group), referenced until release.
 * @comm: its command name at open.
 * @uid: the opener's effective uid: netlink shows the file to that user
 *	and to administrators only.
 */
struct qpu_file {
	struct qpu_dev *qdev;
	struct mutex lock;		/* @handles with the mmap space */
	struct xarray handles;
	struct xarray handle_pgoffs;
	unsigned long *mmap_used;
	unsigned long mmap_pages;
	struct maple_tree mmap_offsets;
	struct qpu_quota *quota;
	struct qpu_client client;
	struct list_head node;
	struct address_space *mapping;
	struct pid *pid;
	char comm[TASK_COMM_LEN];
	kuid_t uid;
};

/**
 * struct qpu_bo - a buffer object.
 * @ref: lifetime; held by the handle, each CPU mapping and each job.
 * @qdev: the device, referenced until the BO is freed.
 * @node: on &qpu_dev.bos, under &qpu_dev.bos_lock.
 * @size: bytes, a whole number of pages.
 * @vaddr: the kernel's mapping of the memory; NULL once the memory is
 *	freed, at the BO's release or at the device's removal, whichever
 *	comes first (under &qpu_dev.bos_lock once the BO is on &qpu_dev.bos).
 * @dma_addr: the DMA address, for BOs from the DMA API.
 * @pfn: the first page frame of DMA API memory, which is contiguous.
 * @bus_addr: where QPU programs see the first byte.
 * @quota: the creating file's count, charged @size until the BO is freed;
 *	NULL for an imported BO, whose memory is the exporter's.
 * @imported: the BO came from QPU_IOCTL_BO_IMPORT (set at creation).
 * @exports: dma-bufs exported from the BO and not yet released, each
 *	holding a BO reference (qpu_dmabuf.c).
 * @import: for an imported BO, its dma-buf (a reference) and the
 *	attachment to the device with its mapping @sgt; NULL once let go (at
 *	the BO's release or the device's removal, under &qpu_dev.bos_lock).
 * @attach: the attachment of @import.
 * @sgt: @attach mapped for the device: the pages, pinned.
 * @import_map: the kernel's mapping of @import, for backends that set
 *	@vaddr from it (the simulated V3D).
 * @last_job: the last job submitted on the BO's file that uses it, for
 *	QPU_IOCTL_WAIT by BO; a job reference, under that file's lock.
 */
struct qpu_bo {
	struct kref ref;
	struct qpu_dev *qdev;
	struct list_head node;
	size_t size;
	void *vaddr;
	dma_addr_t dma_addr;
	unsigned long pfn;
	u32 bus_addr;
	struct qpu_quota *quota;
	bool imported;
	atomic_t exports;
	struct dma_buf *import;
	struct dma_buf_attachment *attach;
	struct sg_table *sgt;
	struct iosys_map import_map;
	struct qpu_job *last_job;
};

/**
 * struct qpu_job - one submission: up to one program per QPU.
 * @ref: held by the file's job table, by the scheduler from submit to the
 *	job's end, by a pending in-fence callback (with a device reference),
 *	and by BOs' @last_job.
 * @qdev: the device; no reference: the device's removal ends every job it
 *	scheduled, and an ended job no longer uses it.
 * @client: the submitting file's client while the job is queued; NULL once
 *	it started or was canceled, as the file may go away.
 * @node: on @client->queue.
 * @seqno: the job's number in its file.
 * @client_id: the submitting file's &qpu_client.id, kept after @client is
 *	cleared: the scheduler resets the V3D between files' jobs by it.
 * @done: the fence signalled when the job ends.
 * @in_fence: the fence to wait for first, or NULL.
 * @in_cb: callback on @in_fence.
 * @ready_work: the callback's work, run on qpu_wq.
 * @ready: @in_fence signalled (or none); under the scheduler's lock.
 * @program_count: programs in @code_addr and @unif_addr.
 * @code_addr: bus address of each program's first instruction.
 * @unif_addr: bus address of each program's uniforms.
 * @bos: the BOs the job may touch, sorted by bus address; references held
 *	until the job ends.
 * @bo_count: entries in @bos.
 * @timeout: how long the job may run once started.
 * @start: when it started (written by the scheduler's work).
 * @deadline: @start plus @timeout.
 * @status: an enum qpu_job_status once the job ended, else 0; written once
 *	before @done signals.
 * @fault: where a QPU_JOB_FAULT happened.
 * @qpu_count: for a QPU_JOB_DEADLOCK, the entries of @qpus the backend
 *	filled (0 otherwise); written before @done signals.
 * @qpus: each QPU's state when the job deadlocked.
 * @instructions: instructions the job's programs issued, when
 *	@instructions_known; both written by the backend's @job_end, before
 *	@done signals.
 * @instructions_known: the backend counted @instructions.
 * @pid: the submitting process in the initial pid namespace, for events.
 * @comm: its command name at submission.
 */
struct qpu_job {
	struct kref ref;
	struct qpu_dev *qdev;
	struct qpu_client *client;
	struct list_head node;
	u64 seqno;
	u32 client_id;
	struct dma_fence *done;
	struct dma_fence *in_fence;
	struct dma_fence_cb in_cb;
	struct work_struct ready_work;
	bool ready;
	unsigned int program_count;
	u32 code_addr[QPU_MAX_QPUS];
	u32 unif_addr[QPU_MAX_QPUS];
	struct qpu_bo **bos;
	unsigned int bo_count;
	ktime_t timeout;
	ktime_t start;
	ktime_t deadline;
	u32 status;
	struct {
		u32 qpu;
		u32 pc;
		u32 addr;
		u32 access;
	} fault;
	u32 qpu_count;
	struct qpu_wait_qpu qpus[QPU_MAX_QPUS];
	u64 instructions;
	bool instructions_known;
	pid_t pid;
	char comm[TASK_COMM_LEN];
};

/*
 * A refusal's debug line (dynamic debug): rate-limited per call site, as a
 * caller can repeat the refusal at will and flood the log.
 */
#define qpu_dbg(dev, fmt, ...) dev_dbg_ratelimited(dev, fmt, ##__VA_ARGS__)

/* qpu_drv.c */
/**
 * struct qpu_ioctl_fd - a file an ioctl handler hands back as a new fd.
 * @fd: the fd reserved with get_unused_fd_flags(), or -1 for none.
 * @file: the file it is to name; the handler's reference passes on.
 *
 * The dispatcher installs it only once the answer (which holds @fd) was
 * copied back; when that fails it puts both back, so no fd appears that
 * the caller cannot know of.
 */
struct qpu_ioctl_fd {
	int fd;
	struct file *file;
};

/**
 * struct qpu_ioctl_in - the user memory an ioctl reads beyond its struct.
 * @programs: SUBMIT's programs, each as the kernel's struct.
 * @handles: SUBMIT's BO handles (memdup_user()), or NULL.
 *
 * Copied by the ioctl's copy_in before the device's SRCU section
 * (qpu_dev_read_lock()), so a user page that never arrives (a FUSE or
 * userfaultfd mapping) holds no removal up; freed by the dispatcher.
 */
struct qpu_ioctl_in {
	struct qpu_program programs[QPU_MAX_QPUS];
	u32 *handles;
};

extern const struct file_operations qpu_fops;
extern struct dentry *qpu_debugfs_root;
extern struct workqueue_struct *qpu_wq;

/* qpu_bo.c */
#define QPU_BO_LIMIT_MIN	PAGE_SIZE	/* bounds of the three limits */
#define QPU_BO_LIMIT_MAX	SZ_1G
void qpu_bo_limits_init(void);
u64 qpu_bo_max_size(void);
u64 qpu_bo_client_mem_limit(void);
u64 qpu_bo_dev_mem_limit(void);
int qpu_bo_set_max_size(u64 bytes);
int qpu_bo_set_client_mem_limit(u64 bytes);
int qpu_bo_set_dev_mem_limit(u64 bytes);
int qpu_bo_file_init(struct qpu_file *qf);
void qpu_bo_file_fini(struct qpu_file *qf);
int qpu_ioctl_bo_create(struct qpu_file *qf, void *data, size_t usize,
			struct qpu_ioctl_fd *install,
			const struct qpu_ioctl_in *in);
int qpu_ioctl_bo_destroy(struct qpu_file *qf, void *data, size_t usize,
			 struct qpu_ioctl_fd *install,
			 const struct qpu_ioctl_in *in);
int qpu_bo_mmap(struct file *file, struct vm_area_struct *vma);
void qpu_bo_mmap_setup(struct qpu_bo *bo, struct vm_area_struct *vma);
void qpu_bo_get(struct qpu_bo *bo);
void qpu_bo_put(struct qpu_bo *bo);
struct qpu_bo *qpu_bo_new(struct qpu_dev *qdev, size_t size,
			  struct dma_buf *import);
int qpu_bo_publish_locked(struct qpu_file *qf, struct qpu_bo *bo, u32 *handle,
			  u64 *mmap_offset);
struct page *qpu_bo_page(struct qpu_bo *bo, unsigned long pgoff);
void qpu_bo_leak_memory(struct qpu_bo *bo);
void qpu_bo_unplug(struct qpu_dev *qdev);
void qpu_bo_objects(int *count, s64 *bytes);
int qpu_bo_dma_alloc(struct qpu_dev *qdev, struct qpu_bo *bo);
void qpu_bo_dma_free(struct qpu_dev *qdev, struct qpu_bo *bo);
void qpu_bo_dma_mmap(struct qpu_dev *qdev, struct qpu_bo *bo,
		     struct vm_area_struct *vma);
vm_fault_t qpu_bo_dma_fault(struct qpu_dev *qdev, struct qpu_bo *bo,
			    struct vm_fault *vmf, unsigned long pgoff);

/* qpu_dmabuf.c */
int qpu_ioctl_bo_export(struct qpu_file *qf, void *data, size_t usize,
			struct qpu_ioctl_fd *install,
			const struct qpu_ioctl_in *in);
int qpu_ioctl_bo_import(struct qpu_file *qf, void *data, size_t usize,
			struct qpu_ioctl_fd *install,
			const struct qpu_ioctl_in *in);
int qpu_dmabuf_attach(struct qpu_dev *qdev, struct qpu_bo *bo);
void qpu_dmabuf_unimport(struct qpu_dev *qdev, struct qpu_bo *bo);
bool qpu_dmabuf_contiguous(struct qpu_dev *qdev, struct qpu_bo *bo,
			   dma_addr_t *start);

/* qpu_job.c */
int qpu_job_file_init(struct qpu_file *qf);
void qpu_job_file_fini(struct qpu_file *qf);
int qpu_ioctl_submit(struct qpu_file *qf, void *data, size_t usize,
		     struct qpu_ioctl_fd *install,
		     const struct qpu_ioctl_in *in);
int qpu_ioctl_wait(struct qpu_file *qf, void *data, size_t usize,
		   struct qpu_ioctl_fd *install,
		   const struct qpu_ioctl_in *in);
int qpu_ioctl_submit_copy_in(struct qpu_file *qf, void *data,
			     struct qpu_ioctl_in *in);
bool qpu_job_submit_allowed(const struct qpu_dev *qdev);
void qpu_job_put(struct qpu_job *job);
void qpu_job_end(struct qpu_job *job, u32 status);
bool qpu_job_wait_in_fence(struct qpu_job *job);
void qpu_job_forget_in_fence(struct qpu_job *job);
struct qpu_bo *qpu_job_find_bo(const struct qpu_job *job, u32 addr, u32 len);
#define QPU_JOB_TIMEOUT_MAX_MS	(3600 * 1000)	/* bound of both timeouts */
/* A file keeps this many of its last jobs for QPU_IOCTL_WAIT by seqno. */
#define QPU_JOBS_KEPT		1024
/* Bound of max_queued_jobs: a queued job can always be waited for. */
#define QPU_JOBS_QUEUED_MAX	QPU_JOBS_KEPT
u32 qpu_job_default_timeout_ms(void);
u32 qpu_job_max_timeout_ms(void);
u32 qpu_job_max_queued(void);
int qpu_job_set_default_timeout_ms(u32 ms);
int qpu_job_set_max_timeout_ms(u32 ms);
int qpu_job_set_max_queued(u32 jobs);
void qpu_job_unqueued(struct qpu_client *client);

/* qpu_sched.c */
int qpu_sched_init(struct qpu_dev *qdev);
void qpu_sched_fini(struct qpu_dev *qdev);
void qpu_sched_push(struct qpu_dev *qdev, struct qpu_client *client,
		    struct qpu_job *job);
void qpu_sched_job_ready(struct qpu_dev *qdev, struct qpu_job *job);
void qpu_sched_client_fini(struct qpu_dev *qdev, struct qpu_client *client);
void qpu_sched_kick(struct qpu_dev *qdev);
int qpu_sched_reset_request(struct qpu_dev *qdev);
bool qpu_sched_get_hang(struct qpu_dev *qdev, struct qpu_hang *hang);
void qpu_sched_snapshot(struct qpu_dev *qdev, struct qpu_sched_snapshot *snap);
u32 qpu_sched_client_queued(struct qpu_dev *qdev,
			    const struct qpu_client *client);

/* qpu_dev.c */
struct qpu_dev *qpu_dev_alloc(struct device *dev, enum qpu_backend backend,
			      const struct qpu_backend_ops *ops);
int qpu_dev_register(struct qpu_dev *qdev);
void qpu_dev_unregister(struct qpu_dev *qdev);
void qpu_dev_get(struct qpu_dev *qdev);
void qpu_dev_put(struct qpu_dev *qdev);
int qpu_dev_read_lock(struct qpu_dev *qdev);
void qpu_dev_read_unlock(struct qpu_dev *qdev, int idx);
bool qpu_dev_present(const struct qpu_dev *qdev);
void qpu_dev_debugfs_init(struct dentry *root);
struct qpu_dev *qpu_dev_lookup(u32 index);
struct qpu_dev *qpu_dev_next(unsigned long *index);
u32 qpu_dev_files_generation(void);
void qpu_dev_file_open(struct qpu_dev *qdev, struct qpu_file *qf,
		       struct file *file);
void qpu_dev_file_close(struct qpu_dev *qdev, struct qpu_file *qf);

/* qpu_v3d.c */
u32 qpu_v3d_read(struct qpu_dev *qdev, u32 reg);
void qpu_v3d_write(struct qpu_dev *qdev, u32 reg, u32 val);
int qpu_v3d_ident_read(struct qpu_dev *qdev);
u32 qpu_v3d_user_setup(struct qpu_dev *qdev);
void qpu_v3d_job_start(struct qpu_dev *qdev, const struct qpu_job *job);
void qpu_v3d_save_hang(struct qpu_dev *qdev, struct qpu_hang *hang);
u32 qpu_v3d_job_poll(struct qpu_dev *qdev, struct qpu_job *job);
bool qpu_v3d_job_ended(struct qpu_dev *qdev, unsigned int programs);
int qpu_v3d_reset(struct qpu_dev *qdev);
int qpu_v3d_power_get(struct device *dev, bool *powered);
void qpu_v3d_power_put(struct device *dev, bool *powered);
int qpu_v3d_power_cycle(struct device *dev, bool *powered);
bool qpu_v3d_host_irq_enabled(void);
irqreturn_t qpu_v3d_irq(struct qpu_dev *qdev);

/* qpu_sim.c */
#define QPU_SIM_MAX_DEVICES 4
int qpu_sim_init(unsigned int num_devices);
void qpu_sim_exit(void);

/* qpu_nl.c */
int qpu_nl_init(void);
void qpu_nl_exit(void);
void qpu_nl_job_event(struct qpu_dev *qdev, const struct qpu_job *job,
		      u32 status);
void qpu_nl_reset_event(struct qpu_dev *qdev, u32 reason);

void qpu_nl_telemetry_event(struct qpu_dev *qdev, u32 event,
			    const struct qpu_telemetry_sample *s);

/* qpu_telemetry.c */
void qpu_telemetry_init(struct qpu_dev *qdev);
void qpu_telemetry_stop(struct qpu_dev *qdev);
void qpu_telemetry_file_open(struct qpu_dev *qdev);
void qpu_telemetry_file_close(struct qpu_dev *qdev);
int qpu_telemetry_put_dev(struct sk_buff *skb, struct qpu_dev *qdev);
int qpu_telemetry_put_stats(struct sk_buff *skb, struct qpu_dev *qdev);
int qpu_telemetry_put_sample(struct sk_buff *skb,
			     const struct qpu_telemetry_sample *s);
struct rpi_firmware *qpu_telemetry_fw_get(struct device *dev);
int qpu_telemetry_fw_read(struct rpi_firmware *fw,
			  struct qpu_telemetry_sample *s);

/* qpu_sim_telemetry.c */
int qpu_sim_telemetry_init(struct qpu_dev *qdev);
void qpu_sim_telemetry_debugfs(struct qpu_dev *qdev);
int qpu_sim_telemetry_read(struct qpu_dev *qdev,
			   struct qpu_telemetry_sample *s);

/* qpu_float_check.c */
void qpu_float_check_init(struct dentry *dir);

/* qpu_hw.c */
/* The firmware's clock id of the V3D, in its mailbox property interface. */
#define QPU_FW_CLK_V3D	5
int qpu_hw_init(void);
void qpu_hw_exit(void);

/* qpu_cma.c */
#ifdef CONFIG_OF
u64 qpu_cma_size(const char **from);
#else
static inline u64 qpu_cma_size(const char **from)
{
	return 0;
}
#endif

#endif /* QPU_DRV_H */
