/* SPDX-License-Identifier: GPL-2.0 */
/*
 * v3d_sim: a simulated Raspberry Pi 4/5 GPU behind upstream's v3d uapi.
 * This header owns the objects the module's files share and their rules:
 * the device, a client's file, a BO, a compute job and a perfmon.
 *
 * Lifetimes:
 * - struct v3d_sim_dev lives from probe to remove (drmm-managed memory).
 *   remove stops the emulator worker and the scheduler before the DRM
 *   device goes; open files keep the drm_device, not the hardware.
 * - A BO (struct v3d_sim_bo) is a shmem GEM object, vmapped and placed in
 *   the device's one GPU address space from creation to its last put; an
 *   import of another driver's dma-buf too, its mapping dma_buf_vmap()'s,
 *   the dma-buf attached, mapped and referenced until that put.
 * - A job (struct v3d_sim_job) holds a reference on each of its BOs and on
 *   its perfmon from submit to the scheduler's free_job, so closing a
 *   handle or the fd never frees what a queued or running job uses.
 * - A perfmon is refcounted: its file's idr holds one reference, each job
 *   that counts into it one more.
 * - A file's statistics (struct v3d_sim_stats) are refcounted: the file
 *   holds one reference, each job of it one more.
 *
 * Locks, outermost first:
 *   reset_lock   (mutex) one reset at a time; held across stop/restart
 *   emu_lock     (mutex) the emulator, its address space and active job;
 *                held for one slice of emulation at a time
 *   mm_lock      (spinlock) the GPU address-space allocator
 *   fence_lock   (spinlock) the hardware fences' lock
 * A file's perfmon.lock (mutex) and a perfmon's lock (mutex) are taken
 * with none of the above held, except a perfmon's lock under emu_lock
 * when a job's counts are added. A struct v3d_sim_stats's lock
 * (spinlock) is innermost: taken alone or under emu_lock.
 */
#ifndef V3D_SIM_H
#define V3D_SIM_H

#include <linux/dma-fence.h>
#include <linux/idr.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_mm.h>
#include <drm/gpu_scheduler.h>
#include <uapi/drm/v3d_drm.h>

#include "v3d/qpu_v3d_emu.h"

#define V3D_SIM_DRIVER_NAME	"v3d"

/*
 * GET_PARAM's resets done by the device: upstream's enum drm_v3d_param
 * value from Linux 6.16 on, past the end of 6.1's header.
 */
#define V3D_SIM_PARAM_GLOBAL_RESET_COUNTER	15

/* Upstream places BOs at this granularity (the GMP's) and never at 0. */
#define V3D_SIM_GRANULE		(128u << 10)

/* One generation's simulated board and its identification registers. */
struct v3d_sim_model {
	const char *pdev_name;		/* the Pi's platform device name */
	unsigned int gen;		/* 42 or 71 */
	enum qpu_v3d_emu_board board;
	u32 hub_ident[4];		/* HUB_IDENT0..3 */
	u32 core_ident[3];		/* CORE0_IDENT0..2 */
	u32 uifcfg;
};

/**
 * struct v3d_sim_stats - a queue's statistics, the device's or a file's
 * @lock: protects the three counts
 * @refcount: a file's: the file and each of its jobs (unused for the device's)
 * @start_ns: when the running job started (local_clock()), or 0
 * @enabled_ns: the runtime of the jobs completed
 * @jobs_completed: jobs that ended by themselves (done or faulted)
 */
struct v3d_sim_stats {
	spinlock_t lock;	/* protects start_ns, enabled_ns, jobs_completed */
	struct kref refcount;
	u64 start_ns;
	u64 enabled_ns;
	u64 jobs_completed;
};

/**
 * struct v3d_sim_dev - one simulated V3D
 * @drm: the DRM device ("v3d")
 * @model: the board it simulates
 * @mm: the GPU address space (pages), one per device as upstream's MMU
 * @mm_lock: protects @mm
 * @sched: the CSD queue's scheduler
 * @fence_context: the hardware fences' context
 * @fence_seqno: the last hardware fence's seqno (under @fence_lock)
 * @fence_lock: the hardware fences' lock
 * @emu: the emulator (qpu_v3d_emu_size() bytes)
 * @mmu: the running job's BOs, as the emulator translates them
 * @emu_lock: protects @emu, @mmu, @active and @stopping
 * @active: the job the emulator runs, or NULL
 * @stopping: set by reset and remove: the worker stops at its next slice
 * @wq: the worker's queue (ordered, unbound)
 * @run_work: runs @active slice by slice
 * @batches: batches the running job has started (the CSD's progress)
 * @instructions: instructions the running job has run (the emulator's clock)
 * @reset_lock: one reset at a time
 * @resets: resets done (debugfs)
 * @jobs_done: jobs that ran to their end (debugfs)
 * @faults: jobs ended by an MMU fault (debugfs)
 * @stats: the CSD queue's statistics (sysfs gpu_stats)
 */
struct v3d_sim_dev {
	struct drm_device drm;
	const struct v3d_sim_model *model;

	struct drm_mm mm;
	spinlock_t mm_lock;		/* protects mm */

	struct drm_gpu_scheduler sched;
	u64 fence_context;
	u64 fence_seqno;
	spinlock_t fence_lock;		/* the hardware fences' lock */

	struct qpu_v3d_emu *emu;
	struct qpu_v3d_mmu mmu;
	struct mutex emu_lock;		/* emu, mmu, active, stopping */
	struct v3d_sim_job *active;
	bool stopping;
	struct workqueue_struct *wq;
	struct work_struct run_work;
	atomic64_t batches;
	atomic64_t instructions;

	struct mutex reset_lock;	/* one reset at a time */
	atomic_t resets;
	atomic64_t jobs_done;
	atomic64_t faults;
	struct v3d_sim_stats stats;
};

static inline struct v3d_sim_dev *to_v3d_sim(struct drm_device *drm)
{
	return container_of(drm, struct v3d_sim_dev, drm);
}

/* A client's file: its scheduler entity, perfmons and statistics (fdinfo). */
struct v3d_sim_file {
	struct v3d_sim_dev *v3d;
	struct drm_sched_entity entity;
	struct v3d_sim_stats *stats;	/* reference held */
	u64 client_id;
	struct {
		struct mutex lock;	/* protects idr */
		struct idr idr;
	} perfmon;
};

/**
 * struct v3d_sim_bo - a buffer object
 * @base: the shmem GEM object
 * @node: its place in the device's address space (pages)
 * @vaddr: the kernel mapping the emulator reads and writes
 */
struct v3d_sim_bo {
	struct drm_gem_shmem_object base;
	struct drm_mm_node node;
	void *vaddr;
};

static inline struct v3d_sim_bo *to_v3d_sim_bo(struct drm_gem_object *obj)
{
	return container_of(to_drm_gem_shmem_obj(obj), struct v3d_sim_bo, base);
}

static inline u32 v3d_sim_bo_va(const struct v3d_sim_bo *bo)
{
	return (u32)(bo->node.start << PAGE_SHIFT);
}

/**
 * struct v3d_sim_perfmon - counters a job adds into
 * @refcnt: the file's idr and each job holding it
 * @lock: protects @values
 * @ncounters: counters in @counters and @values
 * @counters: the V3D_PERFCNT_* of each
 * @values: their sums over the jobs counted
 */
struct v3d_sim_perfmon {
	refcount_t refcnt;
	struct mutex lock;	/* protects values */
	u8 ncounters;
	u8 counters[DRM_V3D_MAX_PERF_COUNTERS];
	u64 values[];
};

/**
 * struct v3d_sim_job - one SUBMIT_CSD
 * @base: the scheduler's job
 * @v3d: its device
 * @cfg: the CSD's cfg[0..6]
 * @bo: its BOs (references held), @bo_count of them
 * @bo_count: entries in @bo
 * @perfmon: the perfmon it counts into, or NULL (reference held)
 * @file_stats: its file's statistics (reference held)
 * @done_fence: the scheduler's finished fence (reference held)
 * @irq_fence: the hardware fence the worker signals (reference held)
 * @timedout_batches: progress at the last timeout, as upstream's CFG4
 * @timedout_instructions: instructions run at the last timeout
 * @batch_instructions: instructions run when @timedout_batches last moved
 */
struct v3d_sim_job {
	struct drm_sched_job base;
	struct v3d_sim_dev *v3d;
	u32 cfg[7];
	struct drm_gem_object **bo;
	u32 bo_count;
	struct v3d_sim_perfmon *perfmon;
	struct v3d_sim_stats *file_stats;
	struct dma_fence *done_fence;
	struct dma_fence *irq_fence;
	u64 timedout_batches;
	u64 timedout_instructions;
	u64 batch_instructions;
};

static inline struct v3d_sim_job *to_v3d_sim_job(struct drm_sched_job *job)
{
	return container_of(job, struct v3d_sim_job, base);
}

/* v3d_sim_bo.c */
struct drm_gem_object *v3d_sim_create_object(struct drm_device *drm,
					     size_t size);
struct drm_gem_object *v3d_sim_gem_prime_import(struct drm_device *drm,
						struct dma_buf *dma_buf);
int v3d_sim_create_bo_ioctl(struct drm_device *drm, void *data,
			    struct drm_file *file);
int v3d_sim_mmap_bo_ioctl(struct drm_device *drm, void *data,
			  struct drm_file *file);
int v3d_sim_get_bo_offset_ioctl(struct drm_device *drm, void *data,
				struct drm_file *file);
int v3d_sim_wait_bo_ioctl(struct drm_device *drm, void *data,
			  struct drm_file *file);

/* v3d_sim_submit.c */
int v3d_sim_submit_csd_ioctl(struct drm_device *drm, void *data,
			     struct drm_file *file);
void v3d_sim_job_free(struct v3d_sim_job *job);

/* v3d_sim_sched.c */
int v3d_sim_sched_init(struct v3d_sim_dev *v3d);
void v3d_sim_sched_fini(struct v3d_sim_dev *v3d);

/* v3d_sim_perfmon.c */
void v3d_sim_perfmon_open_file(struct v3d_sim_file *vf);
void v3d_sim_perfmon_close_file(struct v3d_sim_file *vf);
struct v3d_sim_perfmon *v3d_sim_perfmon_find(struct v3d_sim_file *vf, u32 id);
void v3d_sim_perfmon_put(struct v3d_sim_perfmon *perfmon);
void v3d_sim_perfmon_add(struct v3d_sim_perfmon *perfmon,
			 const struct qpu_v3d_emu_stats *stats);
int v3d_sim_perfmon_create_ioctl(struct drm_device *drm, void *data,
				 struct drm_file *file);
int v3d_sim_perfmon_destroy_ioctl(struct drm_device *drm, void *data,
				  struct drm_file *file);
int v3d_sim_perfmon_get_values_ioctl(struct drm_device *drm, void *data,
				     struct drm_file *file);

/* v3d_sim_stats.c */
struct attribute_group;
struct seq_file;
extern const struct attribute_group *v3d_sim_groups[];
void v3d_sim_stats_init(struct v3d_sim_stats *s);
struct v3d_sim_stats *v3d_sim_stats_new(void);
struct v3d_sim_stats *v3d_sim_stats_get(struct v3d_sim_stats *s);
void v3d_sim_stats_put(struct v3d_sim_stats *s);
void v3d_sim_stats_job_start(struct v3d_sim_dev *v3d, struct v3d_sim_job *job);
/* @count: the job ended by itself; false: a reset ended it */
void v3d_sim_stats_job_end(struct v3d_sim_dev *v3d, struct v3d_sim_job *job,
			   bool count);
void v3d_sim_show_fdinfo(struct seq_file *m, struct file *f);

/* v3d_sim_vcio.c: the simulated firmware's /dev/vcio, with vcio=1 */
int v3d_sim_vcio_init(void);
void v3d_sim_vcio_fini(void);

#endif /* V3D_SIM_H */
