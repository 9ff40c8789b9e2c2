// SPDX-License-Identifier: GPL-2.0
/*
 * v3d_sim's performance monitors: PERFMON_CREATE, _DESTROY and
 * _GET_VALUES as upstream defines them (ids per file from 1, at most
 * DRM_V3D_MAX_PERF_COUNTERS counters below V3D_PERFCNT_NUM, values that
 * sum over every job attached), fed from the emulator's statistics. The
 * counters the emulator has no figure for stay 0.
 */
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_print.h>

#include "v3d_sim.h"

void v3d_sim_perfmon_open_file(struct v3d_sim_file *vf)
{
	mutex_init(&vf->perfmon.lock);
	idr_init_base(&vf->perfmon.idr, 1);
}

void v3d_sim_perfmon_put(struct v3d_sim_perfmon *perfmon)
{
	if (perfmon && refcount_dec_and_test(&perfmon->refcnt)) {
		mutex_destroy(&perfmon->lock);
		kfree(perfmon);
	}
}

static int v3d_sim_perfmon_idr_put(int id, void *p, void *data)
{
	v3d_sim_perfmon_put(p);
	return 0;
}

void v3d_sim_perfmon_close_file(struct v3d_sim_file *vf)
{
	mutex_lock(&vf->perfmon.lock);
	idr_for_each(&vf->perfmon.idr, v3d_sim_perfmon_idr_put, NULL);
	idr_destroy(&vf->perfmon.idr);
	mutex_unlock(&vf->perfmon.lock);
	mutex_destroy(&vf->perfmon.lock);
}

/* The perfmon @id of the file with a reference for the caller, or NULL. */
struct v3d_sim_perfmon *v3d_sim_perfmon_find(struct v3d_sim_file *vf, u32 id)
{
	struct v3d_sim_perfmon *perfmon;

	mutex_lock(&vf->perfmon.lock);
	perfmon = idr_find(&vf->perfmon.idr, id);
	if (perfmon)
		refcount_inc(&perfmon->refcnt);
	mutex_unlock(&vf->perfmon.lock);
	return perfmon;
}

/* What a counter counted in the job whose statistics are @s. */
static u64 v3d_sim_counter(unsigned int counter,
			   const struct qpu_v3d_emu_stats *s)
{
	switch (counter) {
	case V3D_PERFCNT_QPU_CYCLES_VALID_INSTR:
		return s->instructions;
	case V3D_PERFCNT_L2T_TMU_READS:
	case V3D_PERFCNT_TMU_TCACHE_ACCESS:
		return s->tmu_lookups;
	case V3D_PERFCNT_L2T_TMU_WRITES:
		return s->tmu_writes;
	case V3D_PERFCNT_CORE_MEM_READS:
		return s->tmu_read_bytes;
	case V3D_PERFCNT_CORE_MEM_WRITES:
		return s->tmu_write_bytes;
	case V3D_PERFCNT_QPU_UC_HIT:
		return s->uniforms;
	default:
		return 0;
	}
}

/* Adds a finished job's counts. Called under the device's emu_lock. */
void v3d_sim_perfmon_add(struct v3d_sim_perfmon *perfmon,
			 const struct qpu_v3d_emu_stats *stats)
{
	unsigned int i;

	mutex_lock(&perfmon->lock);
	for (i = 0; i < perfmon->ncounters; i++)
		perfmon->values[i] += v3d_sim_counter(perfmon->counters[i], stats);
	mutex_unlock(&perfmon->lock);
}

int v3d_sim_perfmon_create_ioctl(struct drm_device *drm, void *data,
				 struct drm_file *file)
{
	struct v3d_sim_file *vf = file->driver_priv;
	struct drm_v3d_perfmon_create *req = data;
	struct v3d_sim_perfmon *perfmon;
	unsigned int i;
	int ret;

	if (!req->ncounters || req->ncounters > DRM_V3D_MAX_PERF_COUNTERS) {
		drm_dbg_driver(drm, "PERFMON_CREATE: %u counters\n", req->ncounters);
		return -EINVAL;
	}
	for (i = 0; i < req->ncounters; i++) {
		if (req->counters[i] >= V3D_PERFCNT_NUM) {
			drm_dbg_driver(drm, "PERFMON_CREATE: no counter %u\n",
				       req->counters[i]);
			return -EINVAL;
		}
	}

	perfmon = kzalloc(struct_size(perfmon, values, req->ncounters),
			  GFP_KERNEL);
	if (!perfmon)
		return -ENOMEM;
	refcount_set(&perfmon->refcnt, 1);
	mutex_init(&perfmon->lock);
	perfmon->ncounters = req->ncounters;
	memcpy(perfmon->counters, req->counters, req->ncounters);

	mutex_lock(&vf->perfmon.lock);
	ret = idr_alloc(&vf->perfmon.idr, perfmon, 1, U32_MAX, GFP_KERNEL);
	mutex_unlock(&vf->perfmon.lock);
	if (ret < 0) {
		v3d_sim_perfmon_put(perfmon);
		return ret;
	}
	req->id = ret;
	return 0;
}

int v3d_sim_perfmon_destroy_ioctl(struct drm_device *drm, void *data,
				  struct drm_file *file)
{
	struct v3d_sim_file *vf = file->driver_priv;
	struct drm_v3d_perfmon_destroy *req = data;
	struct v3d_sim_perfmon *perfmon;

	mutex_lock(&vf->perfmon.lock);
	perfmon = idr_remove(&vf->perfmon.idr, req->id);
	mutex_unlock(&vf->perfmon.lock);
	if (!perfmon) {
		drm_dbg_driver(drm, "PERFMON_DESTROY: no perfmon %u\n", req->id);
		return -EINVAL;
	}
	v3d_sim_perfmon_put(perfmon);
	return 0;
}

int v3d_sim_perfmon_get_values_ioctl(struct drm_device *drm, void *data,
				     struct drm_file *file)
{
	struct v3d_sim_file *vf = file->driver_priv;
	struct drm_v3d_perfmon_get_values *req = data;
	u64 values[DRM_V3D_MAX_PERF_COUNTERS];
	struct v3d_sim_perfmon *perfmon;
	unsigned int n;

	if (req->pad) {
		drm_dbg_driver(drm, "PERFMON_GET_VALUES: pad is not 0\n");
		return -EINVAL;
	}
	perfmon = v3d_sim_perfmon_find(vf, req->id);
	if (!perfmon) {
		drm_dbg_driver(drm, "PERFMON_GET_VALUES: no perfmon %u\n", req->id);
		return -EINVAL;
	}
	mutex_lock(&perfmon->lock);
	n = perfmon->ncounters;
	memcpy(values, perfmon->values, n * sizeof(values[0]));
	mutex_unlock(&perfmon->lock);
	v3d_sim_perfmon_put(perfmon);

	if (copy_to_user(u64_to_user_ptr(req->values_ptr), values,
			 n * sizeof(values[0])))
		return -EFAULT;
	return 0;
}
