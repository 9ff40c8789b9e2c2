// SPDX-License-Identifier: MIT
/*
 * The v3d backend of struct qpu_dev: a Pi 4's or Pi 5's V3D (4.2, 7.1)
 * through the upstream v3d DRM driver's compute uapi, <drm/v3d_drm.h> as
 * the system's kernel headers install it (libqpu.mk; never a copy of our
 * own). GET_PARAM's identification registers give the generation and the
 * QPUs; buffers are CREATE_BO/MMAP_BO BOs at their GPU addresses; a
 * QPU_JOB_V3D_DISPATCH job is one SUBMIT_CSD with an out-syncobj, waited
 * for with SYNCOBJ_WAIT.
 *
 * What the driver tells of a job is its fence's end, read from a sync_file
 * exported from the syncobj (SYNC_IOC_FILE_INFO): its error and when it
 * signalled. 0 is QPU_STATUS_DONE; -EFAULT a fault (a driver that ends a
 * job on an MMU error; upstream logs it and lets the job hang), with no
 * QPU, PC or address: the driver logs those in the kernel log alone; the
 * driver's reset after its 500 ms without progress QPU_STATUS_RESET: the
 * scheduler's -ECANCELED for the job it found guilty (Linux 6.1), or any
 * error once the driver's reset counter (GET_PARAM
 * GLOBAL_RESET_COUNTER, Linux 6.16 on) has moved since the submit; any
 * other error QPU_STATUS_TIMEOUT. The driver tells no job's progress
 * (QPU_JOB_RESULT_PROGRESS stays clear). The job's timeout is libqpu's own
 * on top, in wall time from qpu_submit(): a job that has not ended by it,
 * or ended after it, is QPU_STATUS_TIMEOUT. The driver cannot cancel a
 * job, so one past its timeout runs on until it ends or the driver's hang
 * check resets the GPU; the kernel holds its buffers until then.
 *
 * Where the driver has perfmons (GET_PARAM SUPPORTS_PERFMON) and numbers
 * their counters as V3D 4.2's (upstream's V3D_PERFCNT_*: a Pi 4; 7.1's
 * counters are numbered apart), each job counts into a perfmon of its own,
 * created at submit and read (PERFMON_GET_VALUES, which captures the
 * counts) and destroyed when the job has ended: QPU_CYCLES_VALID_INSTR is
 * the job's instructions (QPU_JOB_RESULT_INSTRUCTIONS). A job ended by a
 * reset counts nothing there (upstream drops the counts at a reset), and a
 * job libqpu gave up on (its timeout) is not counted.
 *
 * An in-fence that has already failed cancels the job without submitting
 * it (its out-fence is that fence again, so the failure passes on down a
 * chain); the driver itself (Linux 6.1's scheduler) runs a job whose
 * in-fence fails later, so libqpu cannot cancel that one.
 *
 * Without the header at build time the backend is left out and a v3d node
 * is refused with ENOTSUP, saying so.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"
#include "qpu.h"

#if __has_include(<drm/v3d_drm.h>) && __has_include(<linux/sync_file.h>)

#include <fcntl.h>
#include <limits.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <drm/v3d_drm.h>
#include <linux/sync_file.h>

#include "qpu_devmodel.h"

/* Results kept for qpu_wait(), as the emulated device keeps them. */
#define V3D_JOBS_KEPT		1024
/* BOs a job names at most: its shader, its uniforms and its buffers. */
#define V3D_JOB_EXTRA_BOS	2
/* The largest BO: CREATE_BO's size is 32 bits, the GPU's space 4 GiB. */
#define V3D_MAX_BO_SIZE		(UINT32_MAX & ~(uint32_t)4095)
/* A fence's end as SYNC_IOC_FILE_INFO gives it: signalled without error. */
#define V3D_FENCE_DONE		1

/* Identification registers' fields (Mesa's v3d_get_device_info()). */
#define V3D_IDENT0_VER(r)	((r) >> 24 & 0xff)
#define V3D_IDENT1_REV(r)	((r) & 0xf)
#define V3D_IDENT1_NSLC(r)	((r) >> 4 & 0xf)
#define V3D_IDENT1_QPUS(r)	((r) >> 8 & 0xf)
#define V3D_HUB_IDENT3_REV(r)	((r) >> 8 & 0xff)
/*
 * Upstream's enum drm_v3d_param value for the resets the device has done
 * (Linux 6.16 on; 6.1's header stops before it): an older driver refuses it.
 */
#define V3D_PARAM_GLOBAL_RESET_COUNTER	15
/* From V3D 7.1.6 on, the CSD runs cfg[4] batches, not cfg[4] + 1. */
#define V3D_RAW_BATCHES_REV	6

/*
 * One submitted job: its out-syncobj until its result is known, its
 * deadline, its result once known.
 */
struct v3d_job {
	uint64_t seqno;			/* 0: a free slot */
	uint32_t syncobj;		/* 0 once @ended */
	uint32_t perfmon;		/* 0: none, or once @ended */
	uint64_t resets;		/* the reset counter at submit */
	int64_t deadline_ns;		/* CLOCK_MONOTONIC; INT64_MAX: none */
	bool ended;
	struct qpu_job_result result;
};

/* The device's state (dev->priv). */
struct v3ddev {
	enum qpu_gen gen;
	uint32_t ident[3];		/* CORE0_IDENT0..2 */
	bool raw_batches;
	bool perfmon;			/* jobs count their instructions */
	bool reset_counter;		/* GET_PARAM has the resets done */
	uint64_t next_seqno;
	struct v3d_job jobs[V3D_JOBS_KEPT];
	/*
	 * every live buffer, for QPU_JOB_ALL_BOS and qpu_dev_close(): a list
	 * through each one's priv
	 */
	struct qpu_bo *bos;
	size_t bo_count;
};

static int v3d_ioctl(int fd, unsigned long request, void *arg)
{
	int ret;

	do
		ret = ioctl(fd, request, arg);
	while (ret == -1 && (errno == EINTR || errno == EAGAIN));
	return ret ? -errno : 0;
}

static int64_t v3d_now_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec * 1000000000ll + now.tv_nsec;
}

static int64_t v3d_deadline(int64_t start, unsigned int timeout_ms)
{
	return timeout_ms > INT64_MAX / 1000000 - start / 1000000 ?
	       INT64_MAX : start + timeout_ms * 1000000ll;
}

static int v3d_get_param(int fd, enum drm_v3d_param param, uint64_t *value)
{
	struct drm_v3d_get_param p = { .param = param };
	int ret = v3d_ioctl(fd, DRM_IOCTL_V3D_GET_PARAM, &p);

	if (!ret)
		*value = p.value;
	return ret;
}

static const char *v3ddev_describe(const struct qpu_dev *dev)
{
	const struct v3ddev *vd = dev->priv;

	return vd->gen == QPU_GEN_V3D71 ? "v3d DRM driver, V3D 7.1 (Pi 5)" :
					  "v3d DRM driver, V3D 4.2 (Pi 4)";
}

static int v3ddev_get_param(struct qpu_dev *dev, enum qpu_dev_param param,
			    uint64_t *value)
{
	const struct v3ddev *vd = dev->priv;

	switch (param) {
	case QPU_DEV_PARAM_GEN:
		*value = vd->gen;
		return 0;
	case QPU_DEV_PARAM_NUM_QPUS:
		*value = V3D_IDENT1_NSLC(vd->ident[1]) * V3D_IDENT1_QPUS(vd->ident[1]);
		return 0;
	case QPU_DEV_PARAM_NUM_SLICES:
		*value = V3D_IDENT1_NSLC(vd->ident[1]);
		return 0;
	case QPU_DEV_PARAM_MAX_BO_SIZE:
		*value = V3D_MAX_BO_SIZE;
		return 0;
	case QPU_DEV_PARAM_DEFAULT_TIMEOUT_MS:
	case QPU_DEV_PARAM_MAX_TIMEOUT_MS:
		return qpu_job_timeout_param(param, value);
	case QPU_DEV_PARAM_FEATURES:
		*value = QPU_DEV_FEATURE_UNIFORMS_ANYWHERE | QPU_DEV_FEATURE_ALL_BOS;
		return 0;
	case QPU_DEV_PARAM_INSTRUCTIONS_PER_MS:
		*value = 0;	/* timeouts are wall time here */
		return 0;
	case QPU_DEV_PARAM_V3D_IDENT0:
	case QPU_DEV_PARAM_V3D_IDENT1:
	case QPU_DEV_PARAM_V3D_IDENT2:
		*value = vd->ident[param - QPU_DEV_PARAM_V3D_IDENT0];
		return 0;
	default:
		/* no semaphores, no VPM of a compute job's, no qpu.ko ABI */
		return -EINVAL;
	}
}

static void v3d_gem_close(int fd, uint32_t handle)
{
	struct drm_gem_close c = { .handle = handle };

	/* Cannot fail for a handle this file made and still holds. */
	v3d_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &c);
}

/* @bo, made or imported, joins the device's list with its GEM facts. */
static void v3ddev_bo_track(struct v3ddev *vd, struct qpu_bo *bo, uint32_t handle,
			    uint32_t bus_addr, uint64_t mmap_offset)
{
	bo->handle = handle;
	bo->bus_addr = bus_addr;
	bo->mmap_offset = mmap_offset;
	bo->priv = vd->bos;
	vd->bos = bo;
	vd->bo_count++;
}

static int v3ddev_bo_alloc(struct qpu_dev *dev, struct qpu_bo *bo)
{
	struct v3ddev *vd = dev->priv;
	struct drm_v3d_create_bo create = { 0 };
	struct drm_v3d_mmap_bo map = { 0 };
	int ret;

	if (bo->size > V3D_MAX_BO_SIZE)
		return -EINVAL;
	create.size = (uint32_t)bo->size;
	ret = v3d_ioctl(dev->fd, DRM_IOCTL_V3D_CREATE_BO, &create);
	if (ret)
		return ret;
	map.handle = create.handle;
	ret = v3d_ioctl(dev->fd, DRM_IOCTL_V3D_MMAP_BO, &map);
	if (!ret) {
		bo->map = mmap(NULL, bo->size, PROT_READ | PROT_WRITE, MAP_SHARED,
			       dev->fd, (off_t)map.offset);
		if (bo->map == MAP_FAILED)
			ret = -errno;
	}
	if (ret) {
		v3d_gem_close(dev->fd, create.handle);
		return ret;
	}
	v3ddev_bo_track(vd, bo, create.handle, create.offset, map.offset);
	return 0;
}

static void v3ddev_bo_release(struct qpu_dev *dev, struct qpu_bo *bo)
{
	munmap(bo->map, bo->size);
	/* A job still queued holds its own reference to the BO. */
	v3d_gem_close(dev->fd, bo->handle);
}

/* Whether another live buffer has @handle (PRIME gives one per object). */
static bool v3ddev_handle_shared(const struct v3ddev *vd, uint32_t handle)
{
	const struct qpu_bo *b;

	for (b = vd->bos; b; b = b->priv)
		if (b->handle == handle)
			return true;
	return false;
}

static void v3ddev_bo_free(struct qpu_dev *dev, struct qpu_bo *bo)
{
	struct v3ddev *vd = dev->priv;
	struct qpu_bo **link;

	for (link = &vd->bos; *link; link = (struct qpu_bo **)&(*link)->priv)
		if (*link == bo) {
			*link = bo->priv;
			vd->bo_count--;
			break;
		}
	if (v3ddev_handle_shared(vd, bo->handle))
		munmap(bo->map, bo->size);	/* the handle stays theirs */
	else
		v3ddev_bo_release(dev, bo);
}

/*
 * PRIME: the dma-buf becomes a GEM handle of this file, the same handle
 * each time for one object (an export of ours, or a dma-buf imported
 * before): buffers that share it close it with the last of them.
 */
static int v3ddev_bo_import(struct qpu_dev *dev, struct qpu_bo *bo, int fd)
{
	struct v3ddev *vd = dev->priv;
	struct drm_prime_handle prime = { .fd = fd };
	struct drm_v3d_get_bo_offset off = { 0 };
	struct drm_v3d_mmap_bo map = { 0 };
	off_t end = lseek(fd, 0, SEEK_END);
	void *p = MAP_FAILED;
	int ret;

	if (end <= 0 || (uint64_t)end > V3D_MAX_BO_SIZE)
		return qpu_fail(-EINVAL, "%s: fd %d is no dma-buf of 1 to %u bytes", dev->path,
				fd, (unsigned int)V3D_MAX_BO_SIZE);
	if (bo->size > (size_t)end)
		return qpu_fail(-EINVAL, "%s: dma-buf fd %d has %lld bytes, less than the %zu asked",
				dev->path, fd, (long long)end, bo->size);
	ret = v3d_ioctl(dev->fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &prime);
	if (ret)
		return qpu_fail(ret, "%s: PRIME cannot import fd %d: %s", dev->path, fd,
				strerror(-ret));
	off.handle = prime.handle;
	map.handle = prime.handle;
	ret = v3d_ioctl(dev->fd, DRM_IOCTL_V3D_GET_BO_OFFSET, &off);
	if (!ret)
		ret = v3d_ioctl(dev->fd, DRM_IOCTL_V3D_MMAP_BO, &map);
	if (!ret) {
		p = mmap(NULL, (size_t)end, PROT_READ | PROT_WRITE, MAP_SHARED, dev->fd,
			 (off_t)map.offset);
		if (p == MAP_FAILED)
			ret = -errno;
	}
	if (ret) {
		if (!v3ddev_handle_shared(vd, prime.handle))
			v3d_gem_close(dev->fd, prime.handle);
		return qpu_fail(ret, "%s: cannot place or map the dma-buf of fd %d: %s",
				dev->path, fd, strerror(-ret));
	}
	bo->map = p;
	bo->size = (size_t)end;
	v3ddev_bo_track(vd, bo, prime.handle, off.offset, map.offset);
	return 0;
}

static int v3ddev_bo_export(struct qpu_dev *dev, struct qpu_bo *bo, int *fd)
{
	struct drm_prime_handle prime = {
		.handle = bo->handle,
		.flags = DRM_CLOEXEC | DRM_RDWR,
	};
	int ret = v3d_ioctl(dev->fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &prime);

	if (ret)
		return qpu_fail(ret, "%s: PRIME cannot export a buffer: %s", dev->path,
				strerror(-ret));
	*fd = prime.fd;
	return 0;
}

static int v3d_syncobj_create(int fd, uint32_t *handle)
{
	struct drm_syncobj_create c = { 0 };
	int ret = v3d_ioctl(fd, DRM_IOCTL_SYNCOBJ_CREATE, &c);

	*handle = ret ? 0 : c.handle;
	return ret;
}

static void v3d_syncobj_destroy(int fd, uint32_t handle)
{
	struct drm_syncobj_destroy d = { .handle = handle };

	if (handle)
		v3d_ioctl(fd, DRM_IOCTL_SYNCOBJ_DESTROY, &d);
}

/* A perfmon counting instructions, or 0 when the driver cannot make one. */
static uint32_t v3d_perfmon_create(int fd)
{
	struct drm_v3d_perfmon_create c = {
		.ncounters = 1,
		.counters = { V3D_PERFCNT_QPU_CYCLES_VALID_INSTR },
	};

	return v3d_ioctl(fd, DRM_IOCTL_V3D_PERFMON_CREATE, &c) ? 0 : c.id;
}

static void v3d_perfmon_destroy(int fd, uint32_t id)
{
	struct drm_v3d_perfmon_destroy d = { .id = id };

	if (id)
		v3d_ioctl(fd, DRM_IOCTL_V3D_PERFMON_DESTROY, &d);
}

/*
 * Lets @job's perfmon go; a job that ended by itself (@status done or a
 * fault) first gets its count. A job still queued or running holds the
 * perfmon in the kernel until it ends.
 */
static void v3d_job_perfmon_end(int fd, struct v3d_job *job,
				 enum qpu_status status)
{
	uint64_t instructions = 0;
	struct drm_v3d_perfmon_get_values g = {
		.id = job->perfmon,
		.values_ptr = (uintptr_t)&instructions,
	};

	if (!job->perfmon)
		return;
	if ((status == QPU_STATUS_DONE || status == QPU_STATUS_FAULT) &&
	    !v3d_ioctl(fd, DRM_IOCTL_V3D_PERFMON_GET_VALUES, &g)) {
		job->result.instructions = instructions;
		job->result.flags |= QPU_JOB_RESULT_INSTRUCTIONS;
	}
	v3d_perfmon_destroy(fd, job->perfmon);
	job->perfmon = 0;
}

/* The syncobj's fence as a new sync_file fd, or -errno. */
static int v3d_syncobj_export(int fd, uint32_t handle)
{
	struct drm_syncobj_handle h = {
		.handle = handle,
		.flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE,
		.fd = -1,
	};
	int ret = v3d_ioctl(fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &h);

	return ret ? ret : h.fd;
}

/*
 * How the sync_file @fence ended: V3D_FENCE_DONE, 0 (not yet) or its
 * -errno; @when gets the time it signalled (0 when the kernel does not
 * say).
 */
static int v3d_fence_status(int fence, int64_t *when)
{
	struct sync_fence_info fences[8];
	struct sync_file_info info;
	uint32_t i;

	*when = 0;
	memset(&info, 0, sizeof(info));
	if (v3d_ioctl(fence, SYNC_IOC_FILE_INFO, &info))
		return -EINVAL;
	if (info.status <= 0 || !info.num_fences ||
	    info.num_fences > sizeof(fences) / sizeof(fences[0]))
		return info.status;
	memset(fences, 0, sizeof(fences));
	info.sync_fence_info = (uintptr_t)fences;
	if (v3d_ioctl(fence, SYNC_IOC_FILE_INFO, &info))
		return info.status;
	for (i = 0; i < info.num_fences; i++)
		if ((int64_t)fences[i].timestamp_ns > *when)
			*when = (int64_t)fences[i].timestamp_ns;
	return info.status;
}

static struct v3d_job *v3d_job_find(struct v3ddev *vd, uint64_t seqno)
{
	struct v3d_job *job = &vd->jobs[seqno % V3D_JOBS_KEPT];

	return seqno && job->seqno == seqno ? job : NULL;
}

/* The slot of the next job, its predecessor there forgotten. */
static struct v3d_job *v3d_job_slot(struct qpu_dev *dev)
{
	struct v3ddev *vd = dev->priv;
	struct v3d_job *job = &vd->jobs[vd->next_seqno % V3D_JOBS_KEPT];

	v3d_syncobj_destroy(dev->fd, job->syncobj);
	v3d_perfmon_destroy(dev->fd, job->perfmon);
	memset(job, 0, sizeof(*job));
	job->seqno = vd->next_seqno++;
	return job;
}

/* @job's result is @status: keep it, let the syncobj go. */
static void v3d_job_end(struct qpu_dev *dev, struct v3d_job *job,
			enum qpu_status status)
{
	v3d_syncobj_destroy(dev->fd, job->syncobj);
	job->syncobj = 0;
	job->ended = true;
	job->result.status = status;
	v3d_job_perfmon_end(dev->fd, job, status);
}

/* The device's resets so far, or 0 where the driver does not say. */
static uint64_t v3d_resets(const struct qpu_dev *dev)
{
	const struct v3ddev *vd = dev->priv;
	uint64_t n = 0;

	if (vd->reset_counter)
		v3d_get_param(dev->fd, V3D_PARAM_GLOBAL_RESET_COUNTER, &n);
	return n;
}

/* A job's end as the driver gave it, against its deadline. */
static enum qpu_status v3d_job_status(const struct qpu_dev *dev,
				      const struct v3d_job *job, int status,
				      int64_t when)
{
	if (status == V3D_FENCE_DONE)
		return when && when > job->deadline_ns ? QPU_STATUS_TIMEOUT :
							 QPU_STATUS_DONE;
	if (status == -EFAULT)
		return QPU_STATUS_FAULT;
	if (status == -ECANCELED || v3d_resets(dev) > job->resets)
		return QPU_STATUS_RESET;
	return QPU_STATUS_TIMEOUT;
}

static int v3d_handle_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The job's BO handles: its shader's, its uniforms', its buffers' (every
 * live buffer of the device with QPU_JOB_ALL_BOS), for the driver to hold
 * until the job ends (and, on a driver that confines jobs, to map); each
 * once, as the driver locks them all and refuses one twice (-EALREADY).
 */
static uint32_t *v3d_job_handles(const struct v3ddev *vd,
				 const struct qpu_job_desc *desc, uint32_t *count)
{
	bool all = desc->flags & QPU_JOB_ALL_BOS;
	size_t n = all ? vd->bo_count : desc->bo_count;
	uint32_t *h = calloc(n + V3D_JOB_EXTRA_BOS, sizeof(*h));
	const struct qpu_bo *bo = vd->bos;
	size_t i;

	if (!h)
		return NULL;
	h[0] = desc->dispatch->code->handle;
	h[1] = desc->dispatch->uniforms->handle;
	for (i = 0; i < n; i++, bo = all ? bo->priv : NULL)
		h[V3D_JOB_EXTRA_BOS + i] = all ? bo->handle : desc->bos[i]->handle;
	n += V3D_JOB_EXTRA_BOS;
	qsort(h, n, sizeof(*h), v3d_handle_cmp);
	*count = 0;
	for (i = 0; i < n; i++)
		if (!*count || h[*count - 1] != h[i])
			h[(*count)++] = h[i];
	return h;
}

/*
 * @fence as an in-syncobj into *@in; 1 when it has already failed (the job
 * is then canceled), 0, or -errno (-EINVAL: not a sync_file).
 */
static int v3d_in_fence(int fd, int fence, uint32_t *in)
{
	struct drm_syncobj_handle h = {
		.flags = DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE,
		.fd = fence,
	};
	int64_t when;
	int ret;

	*in = 0;
	if (fence < 0)
		return 0;
	ret = v3d_fence_status(fence, &when);
	if (ret < 0 && ret != -EINVAL)
		return 1;
	ret = v3d_syncobj_create(fd, &h.handle);
	if (ret)
		return ret;
	ret = v3d_ioctl(fd, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &h);
	if (ret) {
		v3d_syncobj_destroy(fd, h.handle);
		return ret == -ENOENT || ret == -EBADF ? -EINVAL : ret;
	}
	*in = h.handle;
	return 0;
}

/* A job canceled by its failed in-fence, which is its out-fence too. */
static int v3ddev_cancel(struct qpu_dev *dev, const struct qpu_job_desc *desc,
			 uint64_t *seqno)
{
	struct v3d_job *job;
	int out = -1;

	if (desc->out_fence_fd) {
		out = fcntl(desc->in_fence_fd, F_DUPFD_CLOEXEC, 0);
		if (out < 0)
			return -errno;
	}
	job = v3d_job_slot(dev);
	v3d_job_end(dev, job, QPU_STATUS_CANCELED);
	if (desc->out_fence_fd)
		*desc->out_fence_fd = out;
	*seqno = job->seqno;
	return 0;
}

/* libqpu's bound on a job, from now: @timeout_ms as the emulator takes it. */
static int64_t v3d_job_deadline(unsigned int timeout_ms)
{
	timeout_ms = qpu_job_timeout_ms(timeout_ms);
	if (timeout_ms == QPU_JOB_TIMEOUT_NONE)
		return INT64_MAX;
	return v3d_deadline(v3d_now_ns(), timeout_ms);
}

/* What SUBMIT_CSD's refusal means, in words. */
static int v3d_submit_failed(const struct qpu_dev *dev, int ret)
{
	if (ret == -EACCES)
		return qpu_fail(-EPERM, "%s: the v3d driver lets only the DRM master or an authenticated client submit on a card node: open its render node (/dev/dri/renderD*)",
				dev->path);
	return qpu_fail(ret, "%s: SUBMIT_CSD: %s", dev->path, strerror(-ret));
}

static int v3ddev_submit(struct qpu_dev *dev, const struct qpu_job_desc *desc,
			 uint64_t *seqno)
{
	struct v3ddev *vd = dev->priv;
	const struct qpu_v3d_dispatch *d = desc->dispatch;
	struct drm_v3d_submit_csd csd;
	struct v3d_job *job;
	uint32_t *handles, in = 0, out = 0, perfmon = 0;
	uint64_t resets;
	int ret, fence = -1;

	if (!qpu_devmodel_program_fits(d->code->size, d->code_offset,
				       d->uniforms->size, d->uniforms_offset, 0))
		return qpu_fail(-EINVAL, "%s: the shader or its uniforms start outside their buffer",
				dev->path);
	ret = v3d_in_fence(dev->fd, desc->in_fence_fd, &in);
	if (ret == 1)
		return v3ddev_cancel(dev, desc, seqno);
	if (ret)
		return qpu_fail(ret, "%s: the in-fence is no sync_file", dev->path);
	memset(&csd, 0, sizeof(csd));
	handles = v3d_job_handles(vd, desc, &csd.bo_handle_count);
	ret = handles ? v3d_syncobj_create(dev->fd, &out) : -ENOMEM;
	if (ret)
		goto out;
	qpu_v3d_dispatch_cfg(d, d->code->bus_addr + d->code_offset,
			     d->uniforms->bus_addr + d->uniforms_offset,
			     vd->raw_batches, csd.cfg);
	csd.bo_handles = (uintptr_t)handles;
	csd.in_sync = in;
	csd.out_sync = out;
	resets = v3d_resets(dev);
	/* A perfmon the driver will not make costs the job its count alone. */
	perfmon = vd->perfmon ? v3d_perfmon_create(dev->fd) : 0;
	csd.perfmon_id = perfmon;
	ret = v3d_ioctl(dev->fd, DRM_IOCTL_V3D_SUBMIT_CSD, &csd);
	if (ret) {
		ret = v3d_submit_failed(dev, ret);
		goto out;
	}
	if (desc->out_fence_fd) {
		/* The job is in: a failed export leaves no fence, not no job. */
		fence = v3d_syncobj_export(dev->fd, out);
		*desc->out_fence_fd = fence;
	}
	job = v3d_job_slot(dev);
	/* read before the submit: a reset counted since may be this job's */
	job->resets = resets;
	job->syncobj = out;
	out = 0;
	job->perfmon = perfmon;
	perfmon = 0;
	job->deadline_ns = v3d_job_deadline(desc->timeout_ms);
	*seqno = job->seqno;
	if (fence < 0 && desc->out_fence_fd)
		ret = fence;
out:
	v3d_syncobj_destroy(dev->fd, in);
	v3d_syncobj_destroy(dev->fd, out);
	v3d_perfmon_destroy(dev->fd, perfmon);
	free(handles);
	return ret;
}

/* Waits for @job's syncobj until @deadline: 0, -ETIME, or -errno. */
static int v3d_syncobj_wait(int fd, uint32_t handle, int64_t deadline)
{
	struct drm_syncobj_wait w = {
		.handles = (uintptr_t)&handle,
		.timeout_nsec = deadline,
		.count_handles = 1,
	};

	return v3d_ioctl(fd, DRM_IOCTL_SYNCOBJ_WAIT, &w);
}

static int v3ddev_wait(struct qpu_dev *dev, uint64_t seqno, int timeout_ms,
		       struct qpu_job_result *result)
{
	struct v3ddev *vd = dev->priv;
	struct v3d_job *job = v3d_job_find(vd, seqno);
	int64_t until, when;
	int ret, fence;

	if (!job)
		return -ENOENT;
	if (!job->ended) {
		until = timeout_ms < 0 ? INT64_MAX : v3d_deadline(v3d_now_ns(), timeout_ms);
		ret = v3d_syncobj_wait(dev->fd, job->syncobj,
				       until < job->deadline_ns ? until : job->deadline_ns);
		if (ret == -ETIME && v3d_now_ns() >= job->deadline_ns)
			v3d_job_end(dev, job, QPU_STATUS_TIMEOUT);
		else if (ret)
			return ret;
	}
	if (!job->ended) {
		fence = v3d_syncobj_export(dev->fd, job->syncobj);
		if (fence < 0)
			return fence;
		ret = v3d_fence_status(fence, &when);
		close(fence);
		v3d_job_end(dev, job, v3d_job_status(dev, job, ret, when));
	}
	*result = job->result;
	return 0;
}

static void v3ddev_close(struct qpu_dev *dev)
{
	struct v3ddev *vd = dev->priv;

	/*
	 * Jobs the driver holds run to their end with their BOs; closing the
	 * file lets go of the syncobjs and handles.
	 */
	if (vd) {
		while (vd->bos) {
			struct qpu_bo *bo = vd->bos;

			vd->bos = bo->priv;
			v3ddev_bo_release(dev, bo);
			free(bo);
		}
		free(vd);
	}
	if (dev->fd >= 0)
		close(dev->fd);
}

static const struct qpu_dev_ops qpu_v3ddev_ops = {
	.describe = v3ddev_describe,
	.get_param = v3ddev_get_param,
	.bo_alloc = v3ddev_bo_alloc,
	.bo_free = v3ddev_bo_free,
	.bo_import = v3ddev_bo_import,
	.bo_export = v3ddev_bo_export,
	.submit = v3ddev_submit,
	.wait = v3ddev_wait,
	.close = v3ddev_close,
	.telemetry = qpu_v3d_telemetry,
};

int qpu_v3ddev_open(struct qpu_dev *dev)
{
	struct v3ddev *vd;
	uint64_t v[3], hub3 = 0, csd = 0, perfmon = 0, resets;
	unsigned int i, ver, rev;
	int ret = 0;

	for (i = 0; i < 3 && !ret; i++)
		ret = v3d_get_param(dev->fd, DRM_V3D_PARAM_V3D_CORE0_IDENT0 + i, &v[i]);
	if (!ret)
		ret = v3d_get_param(dev->fd, DRM_V3D_PARAM_V3D_HUB_IDENT3, &hub3);
	if (ret)
		return qpu_fail(ret, "%s: the v3d driver's GET_PARAM: %s", dev->path,
				strerror(-ret));
	if (v3d_get_param(dev->fd, DRM_V3D_PARAM_SUPPORTS_CSD, &csd) || !csd)
		return qpu_fail(-ENOTSUP, "%s: this v3d driver runs no compute jobs (no CSD: Linux 5.6 or later has it)",
				dev->path);
	ver = V3D_IDENT0_VER(v[0]);
	rev = V3D_IDENT1_REV(v[1]);
	if (!(ver == 4 && rev == 2) && !(ver == 7 && rev == 1))
		return qpu_fail(-ENOTSUP, "%s: a V3D %u.%u: libqpu runs V3D 4.2 (Pi 4) and 7.1 (Pi 5)",
				dev->path, ver, rev);
	vd = calloc(1, sizeof(*vd));
	if (!vd)
		return -ENOMEM;
	vd->gen = ver == 7 ? QPU_GEN_V3D71 : QPU_GEN_V3D42;
	for (i = 0; i < 3; i++)
		vd->ident[i] = (uint32_t)v[i];
	vd->raw_batches = ver == 7 && V3D_HUB_IDENT3_REV(hub3) >= V3D_RAW_BATCHES_REV;
	vd->perfmon = ver == 4 &&
		      !v3d_get_param(dev->fd, DRM_V3D_PARAM_SUPPORTS_PERFMON, &perfmon) &&
		      perfmon;
	vd->reset_counter = !v3d_get_param(dev->fd, V3D_PARAM_GLOBAL_RESET_COUNTER, &resets);
	vd->next_seqno = 1;
	dev->priv = vd;
	dev->ops = &qpu_v3ddev_ops;
	return 0;
}

#else /* no <drm/v3d_drm.h> at build time */

int qpu_v3ddev_open(struct qpu_dev *dev)
{
	return qpu_fail(-ENOTSUP, "%s is the v3d DRM driver's node, but this libqpu was built without the kernel's <drm/v3d_drm.h>",
			dev->path);
}

#endif
