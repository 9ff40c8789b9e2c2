// SPDX-License-Identifier: GPL-2.0
/*
 * Jobs: the SUBMIT and WAIT ioctls, job lifetime and fences.
 *
 * SUBMIT validates everything and takes a reference on every BO the job may
 * touch before the job is queued, so nothing a client does later can pull
 * memory from under it. Each file is one dma_fence context: its jobs run in
 * submission order (struct qpu_client), so its fences signal in order.
 * The in-fence callback only queues work: the job's references are dropped
 * in process context, never from the signalling path.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/sync_file.h>
#include <linux/uaccess.h>

#include "qpu_devmodel.h"
#include "qpu_drv.h"
#include "qpu_trace.h"

/* The simulated devices' defaults, which the real V3D shares. */
static unsigned int qpu_default_timeout_ms = QPU_DEVMODEL_DEFAULT_TIMEOUT_MS;
static unsigned int qpu_max_timeout_ms = QPU_DEVMODEL_MAX_TIMEOUT_MS;
static bool qpu_allow_unprivileged_hw;

static int qpu_param_set_ms(const char *val, const struct kernel_param *kp)
{
	unsigned int ms;

	if (kstrtouint(val, 0, &ms) || !ms || ms > QPU_JOB_TIMEOUT_MAX_MS) {
		pr_err("%s=%s: expected milliseconds from 1 to %u\n",
		       kp->name, val, QPU_JOB_TIMEOUT_MAX_MS);
		return -EINVAL;
	}
	WRITE_ONCE(*(unsigned int *)kp->arg, ms);
	return 0;
}

static const struct kernel_param_ops qpu_param_ops_ms = {
	.set = qpu_param_set_ms,
	.get = param_get_uint,
};

module_param_cb(default_timeout_ms, &qpu_param_ops_ms, &qpu_default_timeout_ms, 0644);
MODULE_PARM_DESC(default_timeout_ms, "Timeout of a job that asks for none (default 2000)");
module_param_cb(max_timeout_ms, &qpu_param_ops_ms, &qpu_max_timeout_ms, 0644);
MODULE_PARM_DESC(max_timeout_ms, "Longest timeout a job may ask for (default 60000)");

static int qpu_param_set_unprivileged(const char *val, const struct kernel_param *kp)
{
	int ret = param_set_bool(val, kp);

	if (!ret && qpu_allow_unprivileged_hw)
		pr_warn("allow_unprivileged_hw: any user who can open a real V3D's node can now read and write all memory\n");
	return ret;
}

static const struct kernel_param_ops qpu_param_ops_unprivileged = {
	.set = qpu_param_set_unprivileged,
	.get = param_get_bool,
};

module_param_cb(allow_unprivileged_hw, &qpu_param_ops_unprivileged,
		&qpu_allow_unprivileged_hw, 0644);
MODULE_PARM_DESC(allow_unprivileged_hw,
		 "Let users without CAP_SYS_RAWIO run programs on a real V3D (root-equivalent; default N)");

#define QPU_MAX_JOB_BOS		4096

/*
 * Jobs one file may have queued. A queued job pins its struct qpu_job (552
 * bytes on x86-64, from qpu_job_cache, its BO array inline up to
 * QPU_JOB_INLINE_BOS), its fence (kmalloc-96), an xarray slot, and a
 * larger job its own BO array, 8 bytes per distinct BO: up to 4096 + 2 *
 * 16 entries, which kvmalloc takes as an order-4 allocation, 64 KiB. So
 * the worst job pins some 65 KiB and 128 of them 8.2 MiB, under the 16 MiB
 * a file must not reach by queueing alone, while a pipeline of 128 jobs is
 * deeper than any client needs to keep the V3D busy; a job with a handful
 * of BOs pins about 0.7 KiB. The 1024 ended jobs a file keeps for WAIT
 * have no BO array of their own left: about 0.6 MiB.
 */
static unsigned int qpu_max_queued_jobs = 128;

static int qpu_param_set_jobs(const char *val, const struct kernel_param *kp)
{
	unsigned int n;

	if (kstrtouint(val, 0, &n) || !n || n > QPU_JOBS_QUEUED_MAX) {
		pr_err("%s=%s: expected jobs from 1 to %u\n", kp->name, val,
		       QPU_JOBS_QUEUED_MAX);
		return -EINVAL;
	}
	WRITE_ONCE(*(unsigned int *)kp->arg, n);
	return 0;
}

static const struct kernel_param_ops qpu_param_ops_jobs = {
	.set = qpu_param_set_jobs,
	.get = param_get_uint,
};

module_param_cb(max_queued_jobs, &qpu_param_ops_jobs, &qpu_max_queued_jobs, 0644);
MODULE_PARM_DESC(max_queued_jobs,
		 "Jobs one open file may have queued; SUBMIT past it fails with EAGAIN (1-1024, default 128)");

u32 qpu_job_default_timeout_ms(void)
{
	return READ_ONCE(qpu_default_timeout_ms);
}

u32 qpu_job_max_timeout_ms(void)
{
	return READ_ONCE(qpu_max_timeout_ms);
}

/* Netlink's setters; like the module parameters, from 1 ms to an hour. */
int qpu_job_set_default_timeout_ms(u32 ms)
{
	if (!ms || ms > QPU_JOB_TIMEOUT_MAX_MS)
		return -ERANGE;
	WRITE_ONCE(qpu_default_timeout_ms, ms);
	return 0;
}

int qpu_job_set_max_timeout_ms(u32 ms)
{
	if (!ms || ms > QPU_JOB_TIMEOUT_MAX_MS)
		return -ERANGE;
	WRITE_ONCE(qpu_max_timeout_ms, ms);
	return 0;
}

u32 qpu_job_max_queued(void)
{
	return READ_ONCE(qpu_max_queued_jobs);
}

int qpu_job_set_max_queued(u32 jobs)
{
	if (!jobs || jobs > QPU_JOBS_QUEUED_MAX)
		return -ERANGE;
	WRITE_ONCE(qpu_max_queued_jobs, jobs);
	return 0;
}

/* Takes a queue place for a submission; false when the queue is full. */
static bool qpu_job_queue_reserve(struct qpu_client *client)
{
	if (atomic_inc_return(&client->queued) <= qpu_job_max_queued())
		return true;
	atomic_dec(&client->queued);
	return false;
}

/**
 * qpu_job_unqueued() - give back a job's queue place
 * @client: the file's client the job was queued on, still alive
 *
 * Called by SUBMIT when it fails, and by the scheduler when a job leaves
 * the queue or is canceled before reaching it.
 */
void qpu_job_unqueued(struct qpu_client *client)
{
	atomic_dec(&client->queued);
}

/* --- fences -------------------------------------------------------------- */

/*
 * Fences can outlive the file and the device (a sync_file fd held by anyone),
 * so each carries its own lock and pins the module until it is released.
 */
struct qpu_fence {
	struct dma_fence base;
	spinlock_t lock;		/* the fence's own */
};

static const char *qpu_fence_get_driver_name(struct dma_fence *fence)
{
	return KBUILD_MODNAME;
}

static const char *qpu_fence_get_timeline_name(struct dma_fence *fence)
{
	return "qpu-job";
}

static void qpu_fence_release(struct dma_fence *fence)
{
	dma_fence_free(fence);
	module_put(THIS_MODULE);
}

static const struct dma_fence_ops qpu_fence_ops = {
	.get_driver_name = qpu_fence_get_driver_name,
	.get_timeline_name = qpu_fence_get_timeline_name,
	.release = qpu_fence_release,
};

static struct dma_fence *qpu_fence_create(u64 context, u64 seqno)
{
	struct qpu_fence *fence;

	if (!try_module_get(THIS_MODULE))
		return NULL;
	fence = kzalloc(sizeof(*fence), GFP_KERNEL_ACCOUNT);
	if (!fence) {
		module_put(THIS_MODULE);
		return NULL;
	}
	spin_lock_init(&fence->lock);
	dma_fence_init(&fence->base, &qpu_fence_ops, &fence->lock, context, seqno);
	return &fence->base;
}

/* --- job lifetime -------------------------------------------------------- */

/*
 * Jobs come from their own cache: every SUBMIT takes one, and its exact
 * size leaves room for the inline BO array that kmalloc's 512-byte class
 * would not. Charged to the submitter's memory cgroup, as before.
 */
static struct kmem_cache *qpu_job_cache;

int qpu_job_cache_init(void)
{
	qpu_job_cache = KMEM_CACHE(qpu_job, SLAB_ACCOUNT);
	return qpu_job_cache ? 0 : -ENOMEM;
}

/* Module exit: every job is gone, as every file and BO that held one. */
void qpu_job_cache_exit(void)
{
	kmem_cache_destroy(qpu_job_cache);
}

static void qpu_job_release(struct kref *ref)
{
	struct qpu_job *job = container_of(ref, struct qpu_job, ref);

	/* The BOs went at the job's end, or at the failed submit. */
	WARN_ON(job->bos);
	if (job->in_fence)
		dma_fence_put(job->in_fence);
	if (job->done)
		dma_fence_put(job->done);
	kmem_cache_free(qpu_job_cache, job);
}

void qpu_job_put(struct qpu_job *job)
{
	kref_put(&job->ref, qpu_job_release);
}

static void qpu_job_put_bos(struct qpu_job *job)
{
	unsigned int i;

	for (i = 0; i < job->bo_count; i++)
		qpu_bo_put(job->bos[i]);
	if (job->bos != job->bos_inline)
		kvfree(job->bos);
	job->bos = NULL;
	job->bo_count = 0;
}

/**
 * qpu_job_end() - record how a job ended and let everything go
 * @job: a job the scheduler held, now off the V3D or never started
 * @status: an enum qpu_job_status
 *
 * Drops the job's BOs, signals its fence and drops the scheduler's
 * reference. Process context.
 */
void qpu_job_end(struct qpu_job *job, u32 status)
{
	static const int fence_errors[] = {
		[QPU_JOB_TIMEOUT] = -ETIMEDOUT,
		[QPU_JOB_FAULT] = -EFAULT,
		[QPU_JOB_CANCELED] = -ECANCELED,
		[QPU_JOB_DEADLOCK] = -EDEADLK,
	};

	/* BOs first: whoever the fence wakes sees the memory accounted back. */
	qpu_job_put_bos(job);
	job->status = status;
	if (status < ARRAY_SIZE(fence_errors) && fence_errors[status])
		dma_fence_set_error(job->done, fence_errors[status]);
	dma_fence_signal(job->done);
	qpu_job_put(job);
}

/* The in-fence signalled: tell the scheduler from process context. */
static void qpu_job_ready_work(struct work_struct *work)
{
	struct qpu_job *job = container_of(work, struct qpu_job, ready_work);
	struct qpu_dev *qdev = job->qdev;

	qpu_sched_job_ready(qdev, job);
	qpu_dev_put(qdev);
	qpu_job_put(job);
}

static void qpu_job_in_fence_cb(struct dma_fence *fence, struct dma_fence_cb *cb)
{
	struct qpu_job *job = container_of(cb, struct qpu_job, in_cb);

	queue_work(qpu_wq, &job->ready_work);
}

/**
 * qpu_job_wait_in_fence() - arrange for the job to become ready
 * @job: a job being pushed, with its in-fence (or none)
 *
 * Return: true when the job is ready already (no in-fence, or signalled).
 */
bool qpu_job_wait_in_fence(struct qpu_job *job)
{
	if (!job->in_fence)
		return true;

	/* The callback's references, dropped by qpu_job_ready_work(). */
	kref_get(&job->ref);
	qpu_dev_get(job->qdev);
	INIT_WORK(&job->ready_work, qpu_job_ready_work);
	if (!dma_fence_add_callback(job->in_fence, &job->in_cb,
				    qpu_job_in_fence_cb))
		return false;

	qpu_dev_put(job->qdev);
	qpu_job_put(job);
	return true;
}

/* A queued job is canceled: take its callback back if it has not run. */
void qpu_job_forget_in_fence(struct qpu_job *job)
{
	if (job->in_fence &&
	    dma_fence_remove_callback(job->in_fence, &job->in_cb)) {
		qpu_dev_put(job->qdev);
		qpu_job_put(job);
	}
}

/* --- submit -------------------------------------------------------------- */

static int qpu_job_cmp_bo(const void *a, const void *b)
{
	const struct qpu_bo *x = *(const struct qpu_bo * const *)a;
	const struct qpu_bo *y = *(const struct qpu_bo * const *)b;

	if (x->bus_addr != y->bus_addr)
		return x->bus_addr < y->bus_addr ? -1 : 1;
	return 0;
}

/* The window accessor of qpu_devmodel_find_window() for the job's BOs. */
static void qpu_job_bo_window(const void *buf, u32 *start, u64 *size)
{
	const struct qpu_bo *bo = buf;

	*start = bo->bus_addr;
	*size = bo->size;
}

/**
 * qpu_job_find_bo() - the job's BO holding [@addr, @addr + @len)
 * @job: the job
 * @addr: bus address
 * @len: bytes, at least one
 *
 * Return: the BO, or NULL when the range is not all inside one of the job's
 * BOs. The simulated V3D checks every access of a program with this.
 */
struct qpu_bo *qpu_job_find_bo(const struct qpu_job *job, u32 addr, u32 len)
{
	int i = qpu_devmodel_find_window((const void *const *)job->bos,
					 job->bo_count, qpu_job_bo_window,
					 addr, len);

	return i < 0 ? NULL : job->bos[i];
}

/* Adds a referenced BO of this file to the job; caller holds qf->lock. */
static int qpu_job_add_bo_locked(struct qpu_file *qf, struct qpu_job *job,
				 u32 handle, struct qpu_bo **bop)
{
	struct qpu_bo *bo;

	lockdep_assert_held(&qf->lock);
	bo = xa_load(&qf->handles, handle);
	if (!bo) {
		qpu_dbg(qf->qdev->dev, "submit refused: no BO handle %u\n", handle);
		return -ENOENT;
	}
	kref_get(&bo->ref);
	job->bos[job->bo_count++] = bo;
	if (bop)
		*bop = bo;
	return 0;
}

/*
 * The job's BO array, for @n entries: inline when they fit (nothing to
 * allocate), else its own. NULL when that allocation fails.
 */
static struct qpu_bo **qpu_job_alloc_bos(struct qpu_job *job, size_t n)
{
	if (n <= ARRAY_SIZE(job->bos_inline))
		return job->bos_inline;
	return kvmalloc_array(n, sizeof(*job->bos), GFP_KERNEL_ACCOUNT);
}

/*
 * The array was sized for every handle the caller named, duplicates
 * included; a queued job keeps only what its distinct BOs need (inline
 * when they fit there now).
 */
static int qpu_job_shrink_bos(struct qpu_job *job)
{
	struct qpu_bo **bos;

	if (job->bos == job->bos_inline)
		return 0;
	bos = qpu_job_alloc_bos(job, job->bo_count);
	if (!bos)
		return -ENOMEM;
	memcpy(bos, job->bos, job->bo_count * sizeof(*bos));
	kvfree(job->bos);
	job->bos = bos;
	return 0;
}

/* Checks program @i against its BOs and records its addresses. */
static int qpu_job_set_program(struct qpu_job *job, unsigned int i,
			       const struct qpu_program *p,
			       const struct qpu_bo *code,
			       const struct qpu_bo *unif)
{
	if (p->pad ||
	    !qpu_devmodel_program_fits(code->size, p->code_offset,
				       unif->size, p->unif_offset,
				       p->unif_length)) {
		qpu_dbg(job->qdev->dev, "submit refused: program %u has a nonzero pad or does not fit its BOs\n",
			i);
		return -EINVAL;
	}
	job->code_addr[i] = code->bus_addr + p->code_offset;
	/* unif_length is checked above, then ignored (uapi). */
	job->unif_addr[i] = unif->bus_addr + p->unif_offset;
	return 0;
}

/* Sorts the job's BOs by bus address and drops duplicates. */
static int qpu_job_sort_bos(struct qpu_job *job)
{
	unsigned int i, j;

	/* Sorted and unique, for qpu_job_find_bo(). */
	sort(job->bos, job->bo_count, sizeof(*job->bos), qpu_job_cmp_bo, NULL);
	for (i = 1, j = 1; i < job->bo_count; i++) {
		if (job->bos[i] == job->bos[j - 1])
			qpu_bo_put(job->bos[i]);
		else
			job->bos[j++] = job->bos[i];
	}
	job->bo_count = j;
	return qpu_job_shrink_bos(job);
}

static int qpu_job_lookup_bos(struct qpu_file *qf, struct qpu_job *job,
			      const struct qpu_program *programs,
			      const u32 *handles, unsigned int handle_count)
{
	unsigned int i;
	struct qpu_bo *code, *unif;
	int ret = 0;

	job->bos = qpu_job_alloc_bos(job, (size_t)handle_count +
				     2 * job->program_count);
	if (!job->bos)
		return -ENOMEM;
	mutex_lock(&qf->lock);
	for (i = 0; i < job->program_count && !ret; i++) {
		const struct qpu_program *p = &programs[i];

		ret = qpu_job_add_bo_locked(qf, job, p->code_handle, &code);
		if (!ret)
			ret = qpu_job_add_bo_locked(qf, job, p->unif_handle, &unif);
		if (!ret)
			ret = qpu_job_set_program(job, i, p, code, unif);
	}
	for (i = 0; i < handle_count && !ret; i++)
		ret = qpu_job_add_bo_locked(qf, job, handles[i], NULL);
	mutex_unlock(&qf->lock);
	if (ret)
		return ret;
	return qpu_job_sort_bos(job);
}

/*
 * QPU_SUBMIT_ALL_BOS: every BO the file holds now, each referenced, so the
 * set is the one of this moment (uapi "jobs"). The array is bounded as an
 * explicit list is, so a queued job pins no more memory than one.
 */
static int qpu_job_lookup_all_bos(struct qpu_file *qf, struct qpu_job *job,
				  const struct qpu_program *programs)
{
	unsigned long handle, count = 0;
	struct qpu_bo *bo, *code, *unif;
	unsigned int i;
	int ret = 0;

	mutex_lock(&qf->lock);
	xa_for_each(&qf->handles, handle, bo)
		count++;
	if (count > QPU_MAX_JOB_BOS) {
		qpu_dbg(qf->qdev->dev, "submit refused: all %lu BOs of the file, more than %u\n",
			count, QPU_MAX_JOB_BOS);
		ret = -EINVAL;
		goto out_unlock;
	}
	for (i = 0; i < job->program_count && !ret; i++) {
		const struct qpu_program *p = &programs[i];

		code = xa_load(&qf->handles, p->code_handle);
		unif = xa_load(&qf->handles, p->unif_handle);
		if (!code || !unif) {
			qpu_dbg(qf->qdev->dev, "submit refused: program %u names no BO handle %u\n",
				i, code ? p->unif_handle : p->code_handle);
			ret = -ENOENT;
		} else {
			ret = qpu_job_set_program(job, i, p, code, unif);
		}
	}
	if (ret)
		goto out_unlock;
	job->bos = qpu_job_alloc_bos(job, count);
	if (!job->bos) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	xa_for_each(&qf->handles, handle, bo) {
		kref_get(&bo->ref);
		job->bos[job->bo_count++] = bo;
	}
out_unlock:
	mutex_unlock(&qf->lock);
	if (ret)
		return ret;
	return qpu_job_sort_bos(job);
}

static int qpu_job_copy_programs(const struct qpu_submit *args,
				 struct qpu_program *programs)
{
	const u8 __user *src = u64_to_user_ptr(args->programs);
	unsigned int i;
	int ret;

	for (i = 0; i < args->program_count; i++) {
		ret = copy_struct_from_user(&programs[i], sizeof(programs[i]),
					    src + (size_t)i * args->program_size,
					    args->program_size);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * qpu_job_submit_allowed() - may the current task run programs on @qdev?
 * @qdev: the device
 *
 * A backend that confines jobs to their buffers (the simulated V3D, unless
 * sim_hw_policy gates it as the real one is, so that the gate itself is
 * tested) takes them from anyone; the real V3D cannot confine them.
 *
 * Return: true when SUBMIT would not be refused with -EPERM.
 */
bool qpu_job_submit_allowed(const struct qpu_dev *qdev)
{
	if (qdev->ops->confines_jobs && qdev->ops->confines_jobs(qdev))
		return true;
	return capable(CAP_SYS_RAWIO) || READ_ONCE(qpu_allow_unprivileged_hw);
}

static bool qpu_job_may_submit(const struct qpu_dev *qdev)
{
	if (qpu_job_submit_allowed(qdev))
		return true;
	qpu_dbg(qdev->dev, "submit refused: no CAP_SYS_RAWIO and allow_unprivileged_hw is off\n");
	return false;
}

/* Records the job in its file; the caller holds qf->lock. */
static void qpu_job_publish_locked(struct qpu_file *qf, struct qpu_job *job)
{
	struct qpu_job *old;
	unsigned int i;

	lockdep_assert_held(&qf->lock);

	/* The table's reference; the slot was reserved, so this cannot fail. */
	kref_get(&job->ref);
	xa_store(&qf->client.jobs, job->seqno, job, GFP_NOWAIT);
	if (job->seqno > QPU_JOBS_KEPT) {
		old = xa_erase(&qf->client.jobs, job->seqno - QPU_JOBS_KEPT);
		if (old)
			qpu_job_put(old);
	}

	for (i = 0; i < job->bo_count; i++) {
		struct qpu_bo *bo = job->bos[i];

		kref_get(&job->ref);
		if (bo->last_job)
			qpu_job_put(bo->last_job);
		bo->last_job = job;
	}
}

/*
 * SUBMIT in three steps, as upstream DRM drivers split theirs: validate
 * what the caller asked for (nothing allocated), build the job (its BOs
 * referenced, its in-fence taken: nothing visible yet), and publish it (a
 * seqno, the file's tables, the out-fence, the queue). Each step undoes
 * its own work when it fails; the ioctl undoes the earlier steps.
 */

/* The arguments and the programs, checked; nothing is allocated. */
static int qpu_job_submit_validate(struct qpu_file *qf,
				   const struct qpu_submit *args,
				   struct qpu_program *programs)
{
	const u32 known_flags = QPU_SUBMIT_IN_FENCE | QPU_SUBMIT_OUT_FENCE |
				QPU_SUBMIT_ALL_BOS;
	struct qpu_dev *qdev = qf->qdev;
	u32 num_qpus = qdev->ident.num_slices * qdev->ident.qpus_per_slice;
	int ret;

	if (args->pad || args->flags & ~known_flags) {
		qpu_dbg(qdev->dev, "submit refused: nonzero pad or unknown flags %#x\n",
			args->flags & ~known_flags);
		return -EINVAL;
	}
	if (!args->program_count || args->program_count > num_qpus ||
	    args->program_count > QPU_MAX_QPUS) {
		qpu_dbg(qdev->dev, "submit refused: %u programs, not 1 to %u\n",
			args->program_count, min_t(u32, num_qpus, QPU_MAX_QPUS));
		return -EINVAL;
	}
	if (args->program_size < offsetofend(struct qpu_program, unif_offset) ||
	    args->program_size > PAGE_SIZE) {
		qpu_dbg(qdev->dev, "submit refused: program_size %u, not %zu to %lu\n",
			args->program_size,
			offsetofend(struct qpu_program, unif_offset), PAGE_SIZE);
		return -EINVAL;
	}
	if (args->bo_count > QPU_MAX_JOB_BOS) {
		qpu_dbg(qdev->dev, "submit refused: %u BOs, more than %u\n",
			args->bo_count, QPU_MAX_JOB_BOS);
		return -EINVAL;
	}
	if (!(args->flags & QPU_SUBMIT_IN_FENCE) && args->in_fence_fd) {
		qpu_dbg(qdev->dev, "submit refused: in_fence_fd without QPU_SUBMIT_IN_FENCE\n");
		return -EINVAL;
	}
	/* The file's whole set, or a list: never both. */
	if (args->flags & QPU_SUBMIT_ALL_BOS && (args->bo_count || args->bo_handles)) {
		qpu_dbg(qdev->dev, "submit refused: QPU_SUBMIT_ALL_BOS with a BO list\n");
		return -EINVAL;
	}
	if (!qpu_job_may_submit(qdev))
		return -EPERM;

	ret = qpu_job_copy_programs(args, programs);
	if (ret)
		qpu_dbg(qdev->dev, "submit refused: programs unreadable or with a nonzero tail (%d)\n",
			ret);
	return ret;
}

/* Undoes qpu_job_submit_build(): the job was never published. */
static void qpu_job_submit_unbuild(struct qpu_job *job)
{
	qpu_job_put_bos(job);
	qpu_job_put(job);
}

/*
 * The job, with a reference on every BO it may touch and on its in-fence;
 * the caller's reference, or an ERR_PTR. Nobody else sees it yet.
 */
static struct qpu_job *qpu_job_submit_build(struct qpu_file *qf,
					    const struct qpu_submit *args,
					    const struct qpu_ioctl_in *in)
{
	struct qpu_dev *qdev = qf->qdev;
	unsigned int timeout_ms;
	struct qpu_job *job;
	int ret;

	job = kmem_cache_zalloc(qpu_job_cache, GFP_KERNEL);
	if (!job)
		return ERR_PTR(-ENOMEM);
	kref_init(&job->ref);
	job->qdev = qdev;
	job->client_id = qf->client.id;
	job->pid = task_tgid_nr(current);
	get_task_comm(job->comm, current);
	job->program_count = args->program_count;
	timeout_ms = args->timeout_ms ? args->timeout_ms : qpu_job_default_timeout_ms();
	job->timeout = ms_to_ktime(min(timeout_ms, qpu_job_max_timeout_ms()));

	if (args->flags & QPU_SUBMIT_ALL_BOS)
		ret = qpu_job_lookup_all_bos(qf, job, in->programs);
	else
		ret = qpu_job_lookup_bos(qf, job, in->programs, in->handles,
					 args->bo_count);
	if (ret)
		goto err_unbuild;

	if (args->flags & QPU_SUBMIT_IN_FENCE) {
		job->in_fence = sync_file_get_fence(args->in_fence_fd);
		if (!job->in_fence) {
			qpu_dbg(qdev->dev, "submit refused: in_fence_fd %d is no sync_file\n",
				args->in_fence_fd);
			ret = -EINVAL;
			goto err_unbuild;
		}
	}
	return job;

err_unbuild:
	qpu_job_submit_unbuild(job);
	return ERR_PTR(ret);
}

/*
 * Gives @job its seqno and fence, records it in its file and, when asked,
 * makes its out-fence; the answer goes to @args and @install. On success
 * the caller's reference passes to the scheduler, which may end the job at
 * once; on failure nothing was published and the reference is the
 * caller's still.
 */
static int qpu_job_submit_publish(struct qpu_file *qf, struct qpu_job *job,
				  struct qpu_submit *args,
				  struct qpu_ioctl_fd *install)
{
	struct qpu_dev *qdev = qf->qdev;
	struct sync_file *sync_file = NULL;
	int out_fd = -1;
	int ret;

	if (args->flags & QPU_SUBMIT_OUT_FENCE) {
		out_fd = get_unused_fd_flags(O_CLOEXEC);
		if (out_fd < 0) {
			qpu_dbg(qdev->dev, "submit refused: no fd for the out-fence (%d)\n",
				out_fd);
			return out_fd;
		}
	}

	mutex_lock(&qf->lock);
	/* Reserve the table slot first: nothing may fail after the seqno. */
	ret = xa_reserve(&qf->client.jobs, qf->client.next_seqno, GFP_KERNEL_ACCOUNT);
	if (ret)
		goto err_unlock;
	job->seqno = qf->client.next_seqno;
	job->done = qpu_fence_create(qf->client.fence_context, job->seqno);
	if (!job->done) {
		ret = -ENOMEM;
		goto err_release_slot;
	}
	if (out_fd >= 0) {
		sync_file = sync_file_create(job->done);
		if (!sync_file) {
			ret = -ENOMEM;
			goto err_release_slot;
		}
	}
	qf->client.next_seqno++;
	qpu_job_publish_locked(qf, job);
	mutex_unlock(&qf->lock);

	args->seqno = job->seqno;
	args->out_fence_fd = out_fd;
	if (sync_file) {
		install->fd = out_fd;
		install->file = sync_file->file;
	}

	atomic64_inc(&qdev->sched.jobs_submitted);
	trace_qpu_job_submit(qdev, job);
	qpu_sched_push(qdev, &qf->client, job);	/* takes our reference */
	return 0;

err_release_slot:
	xa_release(&qf->client.jobs, qf->client.next_seqno);
err_unlock:
	mutex_unlock(&qf->lock);
	if (out_fd >= 0)
		put_unused_fd(out_fd);
	return ret;
}

/**
 * qpu_ioctl_submit_copy_in() - SUBMIT's checks, and its user memory read
 * @qf: the caller's file
 * @data: the struct qpu_submit read
 * @in: gets the programs and the BO handles
 *
 * Runs before the device's SRCU section, as the copies may wait for pages
 * indefinitely (qpu_ioctl()); nothing else is allocated.
 *
 * Return: 0, or the refusal's error, with nothing to free.
 */
int qpu_ioctl_submit_copy_in(struct qpu_file *qf, void *data,
			     struct qpu_ioctl_in *in)
{
	const struct qpu_submit *args = data;
	int ret;

	ret = qpu_job_submit_validate(qf, args, in->programs);
	if (ret || !args->bo_count)
		return ret;
	in->handles = memdup_user(u64_to_user_ptr(args->bo_handles),
				  args->bo_count * sizeof(*in->handles));
	if (IS_ERR(in->handles)) {
		ret = PTR_ERR(in->handles);
		in->handles = NULL;
		qpu_dbg(qf->qdev->dev, "submit refused: bo_handles unreadable (%d)\n",
			ret);
	}
	return ret;
}

int qpu_ioctl_submit(struct qpu_file *qf, void *data, size_t usize,
		     struct qpu_ioctl_fd *install,
		     const struct qpu_ioctl_in *in)
{
	struct qpu_submit *args = data;
	struct qpu_job *job;
	int ret;

	/* Before anything is allocated: a full queue costs nothing. */
	if (!qpu_job_queue_reserve(&qf->client)) {
		qpu_dbg(qf->qdev->dev, "submit refused: %u jobs queued on this file\n",
			qpu_job_max_queued());
		return -EAGAIN;
	}

	job = qpu_job_submit_build(qf, args, in);
	if (IS_ERR(job)) {
		ret = PTR_ERR(job);
		goto err_unqueue;
	}
	ret = qpu_job_submit_publish(qf, job, args, install);
	if (ret)
		goto err_unbuild;
	return 0;

err_unbuild:
	qpu_job_submit_unbuild(job);
err_unqueue:
	qpu_job_unqueued(&qf->client);
	return ret;
}

/* --- wait ---------------------------------------------------------------- */

static struct qpu_job *qpu_job_lookup(struct qpu_file *qf, const struct qpu_wait *args)
{
	struct qpu_job *job = NULL;
	struct qpu_bo *bo;

	mutex_lock(&qf->lock);
	if (args->flags & QPU_WAIT_BO) {
		bo = xa_load(&qf->handles, args->handle);
		if (!bo) {
			qpu_dbg(qf->qdev->dev, "wait refused: no BO handle %u\n",
				args->handle);
			job = ERR_PTR(-ENOENT);
		} else {
			job = bo->last_job;	/* NULL: no job used it */
		}
	} else {
		/*
		 * The table's index is an unsigned long: on a 32-bit kernel a
		 * seqno past it would name the job of its low bits.
		 */
		if (args->seqno <= ULONG_MAX)
			job = xa_load(&qf->client.jobs, (unsigned long)args->seqno);
		if (job && job->seqno != args->seqno)
			job = NULL;
		if (!job) {
			qpu_dbg(qf->qdev->dev, "wait refused: no job %llu kept on this file\n",
				args->seqno);
			job = ERR_PTR(-ENOENT);
		}
	}
	if (!IS_ERR_OR_NULL(job))
		kref_get(&job->ref);
	mutex_unlock(&qf->lock);
	return job;
}

/*
 * WAIT's absolute deadline as the relative timeout dma_fence_wait_timeout()
 * takes, as drm_timeout_abs_to_jiffies() does it: a deadline already past
 * (or 0, or negative) polls, and a far one is clamped below
 * MAX_SCHEDULE_TIMEOUT, since jiffies of a u64 do not fit a 32-bit long.
 * The subtraction is done only when the deadline is ahead, so it cannot
 * overflow. Rounded up, plus one for the tick already under way: a sleep
 * of n jiffies may end n - 1 ticks on, and a WAIT must not end before its
 * deadline (one less than a jiffy away sleeps too).
 */
static long qpu_job_wait_jiffies(s64 deadline_ns)
{
	u64 now = ktime_get_ns();
	u64 left;

	if (deadline_ns <= 0 || (u64)deadline_ns <= now)
		return 0;
	left = nsecs_to_jiffies64((u64)deadline_ns - now + TICK_NSEC - 1) + 1;
	return min_t(u64, left, MAX_SCHEDULE_TIMEOUT - 1);
}

/*
 * A deadlock's answer: the QPUs' states, for a caller whose struct holds
 * them; an older caller never heard of QPU_JOB_DEADLOCK: to it, a hang.
 */
static void qpu_job_wait_deadlock(struct qpu_wait *args,
				  const struct qpu_job *job, size_t usize)
{
	if (usize < offsetofend(struct qpu_wait, qpus)) {
		args->status = QPU_JOB_TIMEOUT;
		return;
	}
	args->result_flags |= QPU_WAIT_RESULT_QPUS;
	args->qpu_count = job->qpu_count;
	memcpy(args->qpus, job->qpus, sizeof(args->qpus));
}

int qpu_ioctl_wait(struct qpu_file *qf, void *data, size_t usize,
		   struct qpu_ioctl_fd *install,
		   const struct qpu_ioctl_in *in)
{
	struct qpu_wait *args = data;
	struct qpu_job *job;
	long ret;

	if (args->pad || args->pad2 || args->pad3 || args->flags & ~QPU_WAIT_BO) {
		qpu_dbg(qf->qdev->dev, "wait refused: nonzero pad or unknown flags %#x\n",
			args->flags & ~QPU_WAIT_BO);
		return -EINVAL;
	}
	if (args->flags & QPU_WAIT_BO ? args->seqno : args->handle) {
		qpu_dbg(qf->qdev->dev, "wait refused: %s\n",
			args->flags & QPU_WAIT_BO ? "a seqno with QPU_WAIT_BO" :
			"a handle without QPU_WAIT_BO");
		return -EINVAL;
	}
	/* Outputs only: whatever the caller left there is not an answer. */
	args->status = 0;
	args->fault_qpu = 0;
	args->fault_pc = 0;
	args->fault_addr = 0;
	args->fault_access = 0;
	args->result_flags = 0;
	args->instructions = 0;
	args->qpu_count = 0;
	memset(args->qpus, 0, sizeof(args->qpus));

	job = qpu_job_lookup(qf, args);
	if (IS_ERR(job))
		return PTR_ERR(job);
	if (!job) {
		args->status = QPU_JOB_DONE;
		return 0;
	}

	/* Again while the deadline is ahead: a wake-up a tick early is none. */
	do {
		ret = dma_fence_wait_timeout(job->done, true,
					     qpu_job_wait_jiffies(args->timeout_ns));
	} while (ret == 0 && !dma_fence_is_signaled(job->done) &&
		 qpu_job_wait_jiffies(args->timeout_ns));
	if (ret == 0)
		ret = dma_fence_is_signaled(job->done) ? 1 : -ETIME;
	if (ret > 0) {
		/* Written before the fence signalled. */
		args->status = READ_ONCE(job->status);
		if (args->status == QPU_JOB_FAULT) {
			args->fault_qpu = job->fault.qpu;
			args->fault_pc = job->fault.pc;
			args->fault_addr = job->fault.addr;
			args->fault_access = job->fault.access;
		}
		if (job->instructions_known) {
			args->result_flags |= QPU_WAIT_RESULT_INSTRUCTIONS;
			args->instructions = job->instructions;
		}
		if (args->status == QPU_JOB_DEADLOCK)
			qpu_job_wait_deadlock(args, job, usize);
		ret = 0;
	}
	qpu_job_put(job);
	return ret;
}

/* --- per file ------------------------------------------------------------ */

/* The last client id given out; one per open, module-wide. */
static atomic_t qpu_client_last_id = ATOMIC_INIT(0);

int qpu_job_file_init(struct qpu_file *qf)
{
	/* 2^32 opens wrap to 0: skip it, as 0 means "no id" on netlink. */
	do {
		qf->client.id = atomic_inc_return(&qpu_client_last_id);
	} while (!qf->client.id);
	INIT_LIST_HEAD(&qf->client.queue);
	INIT_LIST_HEAD(&qf->client.node);
	atomic_set(&qf->client.queued, 0);
	xa_init(&qf->client.jobs);
	qf->client.fence_context = dma_fence_context_alloc(1);
	qf->client.next_seqno = 1;
	return 0;
}

/* The file goes: cancel its jobs that have not started, forget the rest. */
void qpu_job_file_fini(struct qpu_file *qf)
{
	struct qpu_job *job;
	unsigned long seqno;

	qpu_sched_client_fini(qf->qdev, &qf->client);

	mutex_lock(&qf->lock);
	xa_for_each(&qf->client.jobs, seqno, job) {
		xa_erase(&qf->client.jobs, seqno);
		qpu_job_put(job);
	}
	mutex_unlock(&qf->lock);
	xa_destroy(&qf->client.jobs);
}
