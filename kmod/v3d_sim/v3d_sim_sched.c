// SPDX-License-Identifier: GPL-2.0
/*
 * v3d_sim's CSD queue: the GPU scheduler's backend. run_job hands a job to
 * the emulator worker, which runs it slice by slice (a bounded number of
 * instructions each, with a reschedule point between) with only the job's
 * BOs mapped, and signals the job's hardware fence at its end. As upstream:
 * every job gets 500 ms (module parameter timeout_ms), re-armed while the
 * CSD's batch count moves; a job that makes no progress resets the GPU,
 * its fence ending in -ECANCELED, and the queue goes on with the next.
 * The emulator is the GPU's clock here, far slower than a V3D's: a timer
 * that finds no new batch but instructions run since it last fired
 * re-arms too, until the job's QPUs have surely spent the board's
 * timeout since a batch last started (hang_instructions a QPU), so that
 * only a job a Pi resets is reset.
 * An MMU fault ends the job with -EFAULT and one line naming the QPU, the
 * PC and the address, as the MMU's fault interrupt reports them.
 */
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include <drm/drm_print.h>

#include "v3d_sim.h"

static unsigned int timeout_ms = 500;
module_param(timeout_ms, uint, 0444);
MODULE_PARM_DESC(timeout_ms, "a job's time without progress before a GPU reset (ms, upstream's 500)");

/*
 * A QPU's instructions in a timeout: a job is reset at a timeout once its
 * QPUs have surely run that many each since a batch last started. 0 (the
 * default) takes the board's: timeout_ms at its QPU clock, an instruction a
 * cycle (a Pi 4's 250 M), so that the node resets a job only where a Pi's
 * V3D would (py-videocore6's test_parallel_16 runs 4 M a QPU, 8 ms of a
 * Pi 4). Under TCG that is minutes of emulation for a loop that never
 * ends: a test rig sets less (check-vm: V3DSIM_MODULE_ARGS).
 */
static unsigned long hang_instructions;
module_param(hang_instructions, ulong, 0444);
MODULE_PARM_DESC(hang_instructions, "instructions a QPU may run without a batch starting before a timeout resets the job (0: the board's timeout_ms at its clock)");

/*
 * Instructions (all threads) per slice of emulation: each slice holds
 * emu_lock and is followed by cond_resched(); 4096 is a few ms of a VM's CPU.
 */
static unsigned int slice_instructions = 4096;
module_param(slice_instructions, uint, 0444);
MODULE_PARM_DESC(slice_instructions, "emulated instructions between reschedule points");

/* --- hardware fences ------------------------------------------------------ */

static const char *v3d_sim_fence_driver_name(struct dma_fence *fence)
{
	return V3D_SIM_DRIVER_NAME;
}

static const char *v3d_sim_fence_timeline_name(struct dma_fence *fence)
{
	return "v3d-csd";
}

static const struct dma_fence_ops v3d_sim_fence_ops = {
	.get_driver_name = v3d_sim_fence_driver_name,
	.get_timeline_name = v3d_sim_fence_timeline_name,
};

static struct dma_fence *v3d_sim_fence_create(struct v3d_sim_dev *v3d)
{
	struct dma_fence *fence;
	u64 seqno;

	fence = kzalloc(sizeof(*fence), GFP_KERNEL);
	if (!fence)
		return ERR_PTR(-ENOMEM);
	spin_lock(&v3d->fence_lock);
	seqno = ++v3d->fence_seqno;
	spin_unlock(&v3d->fence_lock);
	dma_fence_init(fence, &v3d_sim_fence_ops, &v3d->fence_lock,
		       v3d->fence_context, seqno);
	return fence;
}

/* Ends a hardware fence once, with @error (0 for success). */
static void v3d_sim_fence_end(struct dma_fence *fence, int error)
{
	if (dma_fence_is_signaled(fence))
		return;
	if (error)
		dma_fence_set_error(fence, error);
	dma_fence_signal(fence);
}

/*
 * Ends a job's hardware fence with @error. 6.1's scheduler does not pass
 * that error on: the finished fence (signalled only after this one) gets
 * it directly, so that the out-syncobjs' sync_files report it.
 */
static void v3d_sim_job_end(struct v3d_sim_job *job, int error)
{
	if (error)
		dma_fence_set_error(&job->base.s_fence->finished, error);
	v3d_sim_fence_end(job->irq_fence, error);
}

/* --- the emulator worker -------------------------------------------------- */

/* Maps the job's BOs alone into the emulator's MMU, sorted by address. */
static void v3d_sim_map_job(struct v3d_sim_dev *v3d, struct v3d_sim_job *job)
{
	struct qpu_v3d_mmu *mmu = &v3d->mmu;
	u32 i, j;

	qpu_v3d_mmu_init(mmu);
	for (i = 0; i < job->bo_count; i++) {
		struct v3d_sim_bo *bo = to_v3d_sim_bo(job->bo[i]);
		u32 va = v3d_sim_bo_va(bo);

		/* Insertion by address; a BO listed twice is mapped once. */
		for (j = mmu->count; j > 0 && mmu->bo[j - 1].va > va; j--)
			mmu->bo[j] = mmu->bo[j - 1];
		if (j > 0 && mmu->bo[j - 1].va == va) {
			memmove(&mmu->bo[j], &mmu->bo[j + 1],
				(mmu->count - j) * sizeof(mmu->bo[0]));
			continue;
		}
		mmu->bo[j].va = va;
		mmu->bo[j].size = bo->base.base.size;
		mmu->bo[j].host = bo->vaddr;
		mmu->bo[j].in_job = true;
		mmu->count++;
	}
}

static void v3d_sim_report_fault(struct v3d_sim_dev *v3d)
{
	const struct qpu_v3d_emu_fault *f = qpu_v3d_emu_get_fault(v3d->emu);
	static const char *const why[] = {
		[QPU_FAULT_REASON_MEMORY] = "unmapped address",
		[QPU_FAULT_REASON_MISALIGNED] = "misaligned address",
		[QPU_FAULT_REASON_INSTRUCTION] = "invalid instruction",
		[QPU_FAULT_REASON_VPM] = "VPM address",
	};

	dev_err(v3d->drm.dev,
		"MMU error from QPU %u thread %u at PC 0x%08x: %s 0x%08x; job ended\n",
		f->f.qpu, f->thread, f->f.pc,
		(unsigned int)f->f.reason < ARRAY_SIZE(why) ? why[f->f.reason] : "fault",
		f->f.addr);
}

/*
 * The worker: one slice at a time under emu_lock, until the job ends, is
 * stuck (left to the timeout, as a hung GPU is), or reset/remove stops it.
 */
static void v3d_sim_run_work(struct work_struct *work)
{
	struct v3d_sim_dev *v3d = container_of(work, struct v3d_sim_dev, run_work);
	enum qpu_v3d_emu_status status;
	struct v3d_sim_job *job;
	int error;

	for (;;) {
		mutex_lock(&v3d->emu_lock);
		job = v3d->active;
		if (!job || v3d->stopping) {
			mutex_unlock(&v3d->emu_lock);
			return;
		}
		status = qpu_v3d_emu_run(v3d->emu, slice_instructions);
		atomic64_set(&v3d->batches, qpu_v3d_emu_get_stats(v3d->emu)->batches);
		atomic64_set(&v3d->instructions,
			     qpu_v3d_emu_get_stats(v3d->emu)->instructions);
		if (status == QPU_V3D_EMU_RUNNING) {
			mutex_unlock(&v3d->emu_lock);
			cond_resched();
			continue;
		}
		if (status == QPU_V3D_EMU_DEADLOCK || status == QPU_V3D_EMU_LIMIT) {
			/* A hang: the fence stays, the timeout resets. */
			drm_dbg_driver(&v3d->drm, "job stuck (%s): left to the timeout\n",
				       status == QPU_V3D_EMU_LIMIT ? "limit" : "deadlock");
			mutex_unlock(&v3d->emu_lock);
			return;
		}
		error = 0;
		if (status == QPU_V3D_EMU_FAULT) {
			v3d_sim_report_fault(v3d);
			atomic64_inc(&v3d->faults);
			error = -EFAULT;
		} else {
			atomic64_inc(&v3d->jobs_done);
		}
		if (job->perfmon)
			v3d_sim_perfmon_add(job->perfmon,
					    qpu_v3d_emu_get_stats(v3d->emu));
		v3d->active = NULL;
		v3d_sim_stats_job_end(v3d, job, true);
		mutex_unlock(&v3d->emu_lock);
		v3d_sim_job_end(job, error);
		return;
	}
}

/* --- the scheduler's backend ---------------------------------------------- */

static struct dma_fence *v3d_sim_run_job(struct drm_sched_job *sched_job)
{
	struct v3d_sim_job *job = to_v3d_sim_job(sched_job);
	struct v3d_sim_dev *v3d = job->v3d;
	struct dma_fence *fence;
	struct qpu_v3d_csd csd;
	int ret;

	/* A job cancelled by a reset runs no more (its fence has the error). */
	if (unlikely(sched_job->s_fence->finished.error))
		return NULL;
	/* As upstream: no workgroups in a dimension is no dispatch at all. */
	qpu_v3d_csd_decode(job->cfg,
			   qpu_v3d_emu_board(v3d->model->board)->csd_raw_batches, &csd);
	if (!csd.wg_count[0] || !csd.wg_count[1] || !csd.wg_count[2])
		return NULL;

	fence = v3d_sim_fence_create(v3d);
	if (IS_ERR(fence))
		return fence;
	dma_fence_put(job->irq_fence);
	job->irq_fence = dma_fence_get(fence);

	mutex_lock(&v3d->emu_lock);
	qpu_v3d_emu_init(v3d->emu, v3d->model->board, &v3d->mmu, NULL, NULL);
	v3d_sim_map_job(v3d, job);
	ret = qpu_v3d_emu_dispatch(v3d->emu, job->cfg);
	if (ret) {
		mutex_unlock(&v3d->emu_lock);
		drm_dbg_driver(&v3d->drm, "CSD refused cfg[5] 0x%08x: %d\n",
			       job->cfg[5], ret);
		v3d_sim_job_end(job, -EINVAL);
		return fence;
	}
	atomic64_set(&v3d->batches, 0);
	atomic64_set(&v3d->instructions, 0);
	job->timedout_batches = 0;
	job->timedout_instructions = 0;
	job->batch_instructions = 0;
	v3d->active = job;
	v3d_sim_stats_job_start(v3d, job);
	mutex_unlock(&v3d->emu_lock);
	queue_work(v3d->wq, &v3d->run_work);
	return fence;
}

/*
 * Stops the worker and forgets the running job; its hardware fence ends
 * with @error. The caller holds reset_lock or is remove.
 */
static void v3d_sim_stop_emu(struct v3d_sim_dev *v3d, int error)
{
	struct v3d_sim_job *job;

	mutex_lock(&v3d->emu_lock);
	v3d->stopping = true;
	job = v3d->active;
	v3d->active = NULL;
	if (job)
		v3d_sim_stats_job_end(v3d, job, false);
	mutex_unlock(&v3d->emu_lock);
	cancel_work_sync(&v3d->run_work);
	if (job)
		v3d_sim_fence_end(job->irq_fence, error);
	mutex_lock(&v3d->emu_lock);
	v3d->stopping = false;
	mutex_unlock(&v3d->emu_lock);
}

static enum drm_gpu_sched_stat v3d_sim_reset(struct v3d_sim_dev *v3d,
					     struct drm_sched_job *bad)
{
	mutex_lock(&v3d->reset_lock);
	dev_err(v3d->drm.dev, "Resetting GPU for hang: batches started %llu\n",
		(unsigned long long)atomic64_read(&v3d->batches));
	drm_sched_stop(&v3d->sched, bad);
	drm_sched_increase_karma(bad);
	v3d_sim_stop_emu(v3d, -ETIMEDOUT);
	atomic_inc(&v3d->resets);
	drm_sched_resubmit_jobs(&v3d->sched);
	drm_sched_start(&v3d->sched, true);
	mutex_unlock(&v3d->reset_lock);
	return DRM_GPU_SCHED_STAT_NOMINAL;
}

/*
 * Instructions the job's QPUs may run without a batch starting: the budget
 * of each QPU that may be issuing, one per batch started up to the board's
 * QPUs (a QPU issues one instruction a cycle, whichever thread it runs).
 */
static u64 v3d_sim_hang_budget(struct v3d_sim_dev *v3d, u64 batches)
{
	const struct qpu_v3d_emu_board_info *b =
		qpu_v3d_emu_board(v3d->model->board);
	u64 qpus = (u64)b->slices * b->qpus_per_slice;
	u64 per_qpu = hang_instructions;

	if (!per_qpu)
		per_qpu = (u64)timeout_ms * b->clock_mhz * 1000;
	return per_qpu * min(batches, qpus);
}

static enum drm_gpu_sched_stat v3d_sim_timedout_job(struct drm_sched_job *sched_job)
{
	struct v3d_sim_job *job = to_v3d_sim_job(sched_job);
	struct drm_gpu_scheduler *sched = sched_job->sched;
	u64 batches = atomic64_read(&job->v3d->batches);
	u64 instructions = atomic64_read(&job->v3d->instructions);
	bool progress;

	/*
	 * Progress since the last timeout: a batch started, as upstream's
	 * CFG4 moves; or, the emulator being the clock, instructions ran
	 * since the last timeout and not the hang budget since the last
	 * batch started.
	 */
	if (batches != job->timedout_batches) {
		job->timedout_batches = batches;
		job->batch_instructions = instructions;
		progress = true;
	} else {
		progress = instructions != job->timedout_instructions &&
			   instructions - job->batch_instructions <
			   v3d_sim_hang_budget(job->v3d, batches);
	}
	job->timedout_instructions = instructions;
	if (!progress)
		return v3d_sim_reset(job->v3d, sched_job);
	/* Back on the pending list, from which the scheduler took it: re-armed. */
	spin_lock(&sched->job_list_lock);
	list_add(&sched_job->list, &sched->pending_list);
	spin_unlock(&sched->job_list_lock);
	return DRM_GPU_SCHED_STAT_NOMINAL;
}

static void v3d_sim_free_job(struct drm_sched_job *sched_job)
{
	v3d_sim_job_free(to_v3d_sim_job(sched_job));
}

static const struct drm_sched_backend_ops v3d_sim_sched_ops = {
	.run_job = v3d_sim_run_job,
	.timedout_job = v3d_sim_timedout_job,
	.free_job = v3d_sim_free_job,
};

int v3d_sim_sched_init(struct v3d_sim_dev *v3d)
{
	struct drm_sched_init_args args = {
		.ops = &v3d_sim_sched_ops,
		.credit_limit = 1,
		.hang_limit = 0,
		.timeout = msecs_to_jiffies(timeout_ms),
		.name = "v3d_csd",
		.dev = v3d->drm.dev,
	};
	int ret;

	v3d->emu = kvzalloc(qpu_v3d_emu_size(), GFP_KERNEL);
	if (!v3d->emu)
		return -ENOMEM;
	v3d->wq = alloc_ordered_workqueue("v3d_sim-%s", 0, v3d->model->pdev_name);
	if (!v3d->wq) {
		ret = -ENOMEM;
		goto free_emu;
	}
	INIT_WORK(&v3d->run_work, v3d_sim_run_work);
	v3d->fence_context = dma_fence_context_alloc(1);
	ret = drm_sched_init(&v3d->sched, &args);
	if (ret)
		goto free_wq;
	return 0;

free_wq:
	destroy_workqueue(v3d->wq);
free_emu:
	kvfree(v3d->emu);
	return ret;
}

/* Remove: the running job ends with -ENODEV, then the scheduler goes. */
void v3d_sim_sched_fini(struct v3d_sim_dev *v3d)
{
	v3d_sim_stop_emu(v3d, -ENODEV);
	drm_sched_fini(&v3d->sched);
	destroy_workqueue(v3d->wq);
	kvfree(v3d->emu);
}
