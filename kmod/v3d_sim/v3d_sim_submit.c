// SPDX-License-Identifier: GPL-2.0
/*
 * v3d_sim's SUBMIT_CSD: checks the request as upstream does, takes the
 * job's BOs, its in-fences (in_sync, or the multisync extension's
 * in_syncs when its wait stage is the CSD) and the BOs' implicit fences,
 * and queues the job on the CSD scheduler; its finished fence goes into
 * every BO and every out-syncobj.
 */
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_gem.h>
#include <drm/drm_print.h>
#include <drm/drm_syncobj.h>

#include "v3d_sim.h"

/* What the extensions asked for; out_syncs hold syncobj references. */
struct v3d_sim_submit_ext {
	bool multisync;
	u32 in_sync_count;
	u64 in_syncs;
	u32 wait_stage;
	u32 out_sync_count;
	struct drm_syncobj **out_syncs;
};

static void v3d_sim_ext_put(struct v3d_sim_submit_ext *se)
{
	u32 i;

	for (i = 0; i < se->out_sync_count; i++)
		drm_syncobj_put(se->out_syncs[i]);
	kvfree(se->out_syncs);
	se->out_syncs = NULL;
	se->out_sync_count = 0;
}

static int v3d_sim_get_multisync(struct drm_device *drm, struct drm_file *file,
				 struct drm_v3d_extension __user *uext,
				 struct v3d_sim_submit_ext *se)
{
	struct drm_v3d_multi_sync ms;
	struct drm_v3d_sem __user *usem;
	u32 i;

	if (copy_from_user(&ms, uext, sizeof(ms)))
		return -EFAULT;
	if (ms.pad || ms.base.flags) {
		drm_dbg_driver(drm, "multisync: pad or flags not 0\n");
		return -EINVAL;
	}
	if (!ms.in_sync_count && !ms.out_sync_count) {
		drm_dbg_driver(drm, "multisync: no syncobj\n");
		return -EINVAL;
	}
	if (se->multisync) {
		drm_dbg_driver(drm, "multisync: given twice\n");
		return -EINVAL;
	}
	if (ms.out_sync_count) {
		se->out_syncs = kvmalloc_array(ms.out_sync_count,
					       sizeof(*se->out_syncs),
					       GFP_KERNEL);
		if (!se->out_syncs)
			return -ENOMEM;
	}
	usem = u64_to_user_ptr(ms.out_syncs);
	for (i = 0; i < ms.out_sync_count; i++) {
		struct drm_v3d_sem sem;

		if (copy_from_user(&sem, &usem[i], sizeof(sem)))
			return -EFAULT;
		se->out_syncs[i] = drm_syncobj_find(file, sem.handle);
		if (!se->out_syncs[i]) {
			drm_dbg_driver(drm, "multisync: no out-syncobj %u\n",
				       sem.handle);
			return -EINVAL;
		}
		se->out_sync_count = i + 1;
	}
	se->multisync = true;
	se->in_sync_count = ms.in_sync_count;
	se->in_syncs = ms.in_syncs;
	se->wait_stage = ms.wait_stage;
	return 0;
}

/* Walks the extension chain; on error the caller puts what was taken. */
static int v3d_sim_get_extensions(struct drm_device *drm, struct drm_file *file,
				  u64 uptr, struct v3d_sim_submit_ext *se)
{
	struct drm_v3d_extension __user *uext = u64_to_user_ptr(uptr);
	unsigned int n = 0;
	int ret;

	while (uext) {
		struct drm_v3d_extension ext;

		/* A chain that loops back on itself must still end. */
		if (++n > 16) {
			drm_dbg_driver(drm, "submit: more than 16 extensions\n");
			return -EINVAL;
		}
		if (copy_from_user(&ext, uext, sizeof(ext)))
			return -EFAULT;
		switch (ext.id) {
		case DRM_V3D_EXT_ID_MULTI_SYNC:
			ret = v3d_sim_get_multisync(drm, file, uext, se);
			if (ret)
				return ret;
			break;
		default:
			drm_dbg_driver(drm, "submit: unknown extension %u\n", ext.id);
			return -EINVAL;
		}
		uext = u64_to_user_ptr(ext.next);
	}
	return 0;
}

static int v3d_sim_add_in_sync(struct drm_file *file, struct v3d_sim_job *job,
			       u32 handle)
{
	struct dma_fence *fence = NULL;
	int ret;

	/* As upstream: handle 0 or a syncobj without a fence is no wait. */
	ret = drm_syncobj_find_fence(file, handle, 0, 0, &fence);
	if (ret == -EINVAL) {
		drm_dbg_driver(file->minor->dev, "submit: no in-syncobj %u\n", handle);
		return ret;
	}
	return drm_sched_job_add_dependency(&job->base, fence);
}

static int v3d_sim_add_in_syncs(struct drm_file *file, struct v3d_sim_job *job,
				u32 in_sync, const struct v3d_sim_submit_ext *se)
{
	struct drm_v3d_sem __user *usem;
	u32 i;
	int ret;

	if (!se->multisync)
		return v3d_sim_add_in_sync(file, job, in_sync);
	if (se->wait_stage != V3D_CSD)
		return 0;
	usem = u64_to_user_ptr(se->in_syncs);
	for (i = 0; i < se->in_sync_count; i++) {
		struct drm_v3d_sem sem;

		if (copy_from_user(&sem, &usem[i], sizeof(sem)))
			return -EFAULT;
		ret = v3d_sim_add_in_sync(file, job, sem.handle);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * References on the job's BOs: at least one, all existing (as upstream),
 * and no more than the emulator's MMU holds for one job.
 */
static int v3d_sim_lookup_bos(struct drm_file *file, struct v3d_sim_job *job,
			      u64 uhandles, u32 count)
{
	struct drm_device *drm = file->minor->dev;
	int ret;

	if (!count || count > QPU_V3D_MMU_MAX_BOS) {
		drm_dbg_driver(drm, "submit: %u BOs (1 to %u)\n", count,
			       QPU_V3D_MMU_MAX_BOS);
		return -EINVAL;
	}
	/* On failure the array holds the BOs found so far, NULL after. */
	ret = drm_gem_objects_lookup(file, u64_to_user_ptr(uhandles), count,
				     &job->bo);
	if (job->bo)
		job->bo_count = count;
	if (ret)
		drm_dbg_driver(drm, "submit: BO handles refused: %d\n", ret);
	return ret;
}

/* Frees a job in any state after drm_sched_job_init() succeeded. */
void v3d_sim_job_free(struct v3d_sim_job *job)
{
	u32 i;

	drm_sched_job_cleanup(&job->base);
	for (i = 0; i < job->bo_count; i++) {
		if (job->bo[i])
			drm_gem_object_put(job->bo[i]);
	}
	kvfree(job->bo);
	v3d_sim_perfmon_put(job->perfmon);
	v3d_sim_stats_put(job->file_stats);
	dma_fence_put(job->irq_fence);
	dma_fence_put(job->done_fence);
	kfree(job);
}

static int v3d_sim_lock_bos(struct v3d_sim_job *job,
			    struct ww_acquire_ctx *ctx)
{
	u32 i;
	int ret;

	ret = drm_gem_lock_reservations(job->bo, job->bo_count, ctx);
	if (ret)
		return ret;
	for (i = 0; i < job->bo_count; i++) {
		ret = dma_resv_reserve_fences(job->bo[i]->resv, 1);
		if (!ret)
			ret = drm_sched_job_add_implicit_dependencies(&job->base,
								      job->bo[i],
								      true);
		if (ret) {
			drm_gem_unlock_reservations(job->bo, job->bo_count, ctx);
			return ret;
		}
	}
	return 0;
}

/* The finished fence into every out-syncobj; consumes se's references. */
static void v3d_sim_signal_out(struct drm_file *file, u32 out_sync,
			       struct v3d_sim_submit_ext *se,
			       struct dma_fence *fence)
{
	struct drm_syncobj *sync;
	u32 i;

	if (se->multisync) {
		for (i = 0; i < se->out_sync_count; i++)
			drm_syncobj_replace_fence(se->out_syncs[i], fence);
		v3d_sim_ext_put(se);
		return;
	}
	sync = drm_syncobj_find(file, out_sync);
	if (sync) {
		drm_syncobj_replace_fence(sync, fence);
		drm_syncobj_put(sync);
	}
}

static int v3d_sim_check_args(struct drm_device *drm,
			      const struct drm_v3d_submit_csd *args)
{
	if (args->pad) {
		drm_dbg_driver(drm, "SUBMIT_CSD: pad is not 0\n");
		return -EINVAL;
	}
	if (args->flags & ~DRM_V3D_SUBMIT_EXTENSION) {
		drm_dbg_driver(drm, "SUBMIT_CSD: unknown flags %#x\n", args->flags);
		return -EINVAL;
	}
	return 0;
}

int v3d_sim_submit_csd_ioctl(struct drm_device *drm, void *data,
			     struct drm_file *file)
{
	struct v3d_sim_file *vf = file->driver_priv;
	struct drm_v3d_submit_csd *args = data;
	struct v3d_sim_submit_ext se = {};
	struct ww_acquire_ctx ctx;
	struct v3d_sim_job *job;
	struct dma_fence *done;
	u32 i;
	int ret;

	ret = v3d_sim_check_args(drm, args);
	if (ret)
		return ret;
	if (args->flags & DRM_V3D_SUBMIT_EXTENSION) {
		ret = v3d_sim_get_extensions(drm, file, args->extensions, &se);
		if (ret)
			goto put_ext;
	}

	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job) {
		ret = -ENOMEM;
		goto put_ext;
	}
	job->v3d = vf->v3d;
	job->file_stats = v3d_sim_stats_get(vf->stats);
	memcpy(job->cfg, args->cfg, sizeof(job->cfg));
	ret = drm_sched_job_init(&job->base, &vf->entity, vf);
	if (ret) {
		v3d_sim_stats_put(job->file_stats);
		kfree(job);
		goto put_ext;
	}

	ret = v3d_sim_add_in_syncs(file, job, args->in_sync, &se);
	if (ret)
		goto free_job;
	ret = v3d_sim_lookup_bos(file, job, args->bo_handles,
				 args->bo_handle_count);
	if (ret)
		goto free_job;
	if (args->perfmon_id) {
		job->perfmon = v3d_sim_perfmon_find(vf, args->perfmon_id);
		if (!job->perfmon) {
			drm_dbg_driver(drm, "SUBMIT_CSD: no perfmon %u\n",
				       args->perfmon_id);
			ret = -ENOENT;
			goto free_job;
		}
	}
	ret = v3d_sim_lock_bos(job, &ctx);
	if (ret)
		goto free_job;

	drm_sched_job_arm(&job->base);
	job->done_fence = dma_fence_get(&job->base.s_fence->finished);
	for (i = 0; i < job->bo_count; i++)
		dma_resv_add_fence(job->bo[i]->resv, job->done_fence,
				   DMA_RESV_USAGE_WRITE);
	drm_gem_unlock_reservations(job->bo, job->bo_count, &ctx);
	/* The job may be freed once pushed: keep the fence for the out-syncs. */
	done = dma_fence_get(job->done_fence);
	drm_sched_entity_push_job(&job->base);
	v3d_sim_signal_out(file, args->out_sync, &se, done);
	dma_fence_put(done);
	return 0;

free_job:
	v3d_sim_job_free(job);
put_ext:
	v3d_sim_ext_put(&se);
	return ret;
}
