// SPDX-License-Identifier: MIT
/*
 * Jobs: checking a job description once for every backend (its kind
 * against the device's generation too), submitting it and waiting for it
 * or for its fence.
 */

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#if __has_include(<linux/sync_file.h>)
#include <linux/sync_file.h>
#endif

#include "runtime/runtime.h"
#include "qpu.h"
#include "qpu_devmodel.h"

/* Whether @d is a dispatch a CSD can take, with this device's buffers. */
static bool qpu_v3d_dispatch_valid(const struct qpu_dev *dev,
				   const struct qpu_v3d_dispatch *d)
{
	unsigned int i;

	if (!d || !d->code || !d->uniforms || d->code->dev != dev ||
	    d->uniforms->dev != dev)
		return false;
	for (i = 0; i < 3; i++)
		if (!d->wg_count[i] || d->wg_count[i] > 0xffff)
			return false;
	return d->wg_size && d->wg_size <= 256 && d->wgs_per_sg &&
	       d->wgs_per_sg <= 16 &&
	       (d->threads == 1 || d->threads == 2 || d->threads == 4) &&
	       !(d->flags & ~(QPU_V3D_DISPATCH_SINGLE_SEG |
			      QPU_V3D_DISPATCH_PROPAGATE_NANS));
}

static uint32_t div_round_up(uint64_t n, uint32_t d)
{
	return (uint32_t)((n + d - 1) / d);
}

uint32_t qpu_v3d_dispatch_batches(const struct qpu_v3d_dispatch *d)
{
	uint64_t wgs = (uint64_t)d->wg_count[0] * d->wg_count[1] * d->wg_count[2];
	uint32_t per_sg = div_round_up((uint64_t)d->wgs_per_sg * d->wg_size, 16);

	if (d->batches)
		return d->batches;
	return per_sg * (uint32_t)(wgs / d->wgs_per_sg) +
	       div_round_up(wgs % d->wgs_per_sg * d->wg_size, 16);
}

/*
 * The CSD's configuration words for @d (its batches counted), as Mesa's
 * v3dx_draw.c and py-videocore6/7 write them: no workgroup offsets, one
 * supergroup pattern, cfg[4] the batches less one except on V3D 7.1.6
 * and later (@raw_batches), which run cfg[4] batches.
 */
void qpu_v3d_dispatch_cfg(const struct qpu_v3d_dispatch *d, uint32_t code_addr,
			  uint32_t unif_addr, bool raw_batches, uint32_t cfg[7])
{
	uint32_t batches_per_sg = div_round_up((uint64_t)d->wgs_per_sg * d->wg_size, 16);
	uint32_t batches = qpu_v3d_dispatch_batches(d);
	unsigned int i;

	for (i = 0; i < 3; i++)
		cfg[i] = d->wg_count[i] << 16;
	cfg[3] = (d->wg_size & 0xff) | (d->wgs_per_sg & 0xf) << 8 |
		 (batches_per_sg - 1) << 12;
	cfg[4] = raw_batches ? batches : batches - 1;
	cfg[5] = code_addr | (d->threads == 4 ? 1u : 0) |
		 (d->flags & QPU_V3D_DISPATCH_SINGLE_SEG ? 2u : 0) |
		 (d->flags & QPU_V3D_DISPATCH_PROPAGATE_NANS ? 4u : 0);
	cfg[6] = unif_addr;
}

unsigned int qpu_job_timeout_ms(unsigned int timeout_ms)
{
	if (timeout_ms == QPU_JOB_TIMEOUT_NONE)
		return timeout_ms;
	if (!timeout_ms)
		return QPU_DEVMODEL_DEFAULT_TIMEOUT_MS;
	return timeout_ms < QPU_DEVMODEL_MAX_TIMEOUT_MS ? timeout_ms :
							  QPU_DEVMODEL_MAX_TIMEOUT_MS;
}

int qpu_job_timeout_param(enum qpu_dev_param param, uint64_t *value)
{
	if (param == QPU_DEV_PARAM_DEFAULT_TIMEOUT_MS)
		*value = QPU_DEVMODEL_DEFAULT_TIMEOUT_MS;
	else if (param == QPU_DEV_PARAM_MAX_TIMEOUT_MS)
		*value = QPU_DEVMODEL_MAX_TIMEOUT_MS;
	else
		return -EINVAL;
	return 0;
}

/* The generation whose jobs are of @kind. */
static bool qpu_job_kind_runs_on(enum qpu_job_kind kind, uint64_t gen)
{
	return kind == QPU_JOB_V3D_DISPATCH ? qpu_gen_is_v3d((int)gen) :
					      gen == QPU_GEN_VC4;
}

/* -EINVAL, saying so, for a job of the kind another generation runs. */
static int qpu_job_check_gen(struct qpu_dev *dev, const struct qpu_job_desc *desc)
{
	static const char *const kinds[] = {
		[QPU_JOB_VC4_PROGRAMS] = "VideoCore IV programs",
		[QPU_JOB_V3D_DISPATCH] = "a V3D compute dispatch",
	};
	uint64_t gen;

	if (dev->ops->get_param(dev, QPU_DEV_PARAM_GEN, &gen))
		return qpu_fail(-EINVAL, "%s: the device does not say its generation",
				dev->path);
	if (qpu_job_kind_runs_on(desc->kind, gen))
		return 0;
	return qpu_fail(-EINVAL, "%s: a job of %s cannot run on this %s device",
			dev->path, kinds[desc->kind], qpu_gen_name((enum qpu_gen)gen));
}

static bool qpu_job_desc_valid(const struct qpu_dev *dev,
			       const struct qpu_job_desc *desc)
{
	unsigned int i;

	if (desc->kind == QPU_JOB_V3D_DISPATCH) {
		if (desc->programs || desc->program_count ||
		    !qpu_v3d_dispatch_valid(dev, desc->dispatch))
			return false;
	} else if (desc->kind != QPU_JOB_VC4_PROGRAMS || desc->dispatch ||
		   !desc->programs || !desc->program_count ||
		   desc->program_count > QPU_JOB_MAX_QPUS) {
		return false;
	}
	if (desc->bo_count && !desc->bos)
		return false;
	if (desc->flags & ~QPU_JOB_ALL_BOS ||
	    (desc->flags & QPU_JOB_ALL_BOS && desc->bo_count))
		return false;
	for (i = 0; i < desc->program_count; i++) {
		const struct qpu_program_ref *p = &desc->programs[i];

		if (!p->code || !p->uniforms || p->code->dev != dev ||
		    p->uniforms->dev != dev)
			return false;
	}
	for (i = 0; i < desc->bo_count; i++)
		if (!desc->bos[i] || desc->bos[i]->dev != dev)
			return false;
	return true;
}

/*
 * qpu_submit() has one entry point per layout of struct qpu_job_desc
 * (libqpu/README.md, "How the API grows"): the default, LIBQPU_0.5, reads
 * today's struct with its kind; programs built against 0.3 or 0.4 bind
 * qpu_submit@LIBQPU_0.3, which reads the struct without it (VideoCore IV
 * programs), and those built before qpu_submit@LIBQPU_0.1, which reads the
 * struct without flags either.
 */
QPU_API int qpu_submit_v0_5(struct qpu_dev *dev, const struct qpu_job_desc *desc,
			    uint64_t *seqno);
QPU_SYMVER_DEFAULT(qpu_submit_v0_5, qpu_submit, LIBQPU_0.5);

QPU_API int qpu_submit_v0_5(struct qpu_dev *dev, const struct qpu_job_desc *desc,
			    uint64_t *seqno)
{
	int ret;

	assert(dev && desc && seqno);
	if (!qpu_job_desc_valid(dev, desc))
		return qpu_fail(-EINVAL, "%s: an invalid job description",
				dev->path);
	ret = qpu_job_check_gen(dev, desc);
	if (ret)
		return ret;
	return dev->ops->submit(dev, desc, seqno);
}

/*
 * A description of an older layout, today's up to @size bytes (the same
 * members in the same order, so at the same offsets); the members it did
 * not have are 0: VideoCore IV programs, no flags.
 */
static int qpu_submit_old(struct qpu_dev *dev, const void *old, size_t size,
			  uint64_t *seqno)
{
	struct qpu_job_desc desc;

	assert(old);
	memset(&desc, 0, sizeof(desc));
	memcpy(&desc, old, size);
	return qpu_submit_v0_5(dev, &desc, seqno);
}

/* libqpu 0.3 and 0.4's struct ended at its flags: no kind. */
QPU_API int qpu_submit_v0_3(struct qpu_dev *dev, const void *old,
			    uint64_t *seqno);
QPU_SYMVER_OLD(qpu_submit_v0_3, qpu_submit, LIBQPU_0.3);

QPU_API int qpu_submit_v0_3(struct qpu_dev *dev, const void *old,
			    uint64_t *seqno)
{
	return qpu_submit_old(dev, old, offsetof(struct qpu_job_desc, kind), seqno);
}

/* libqpu 0.1 and 0.2's struct ended at its out-fence: no flags. */
QPU_API int qpu_submit_v0_1(struct qpu_dev *dev, const void *old,
			    uint64_t *seqno);
QPU_SYMVER_OLD(qpu_submit_v0_1, qpu_submit, LIBQPU_0.1);

QPU_API int qpu_submit_v0_1(struct qpu_dev *dev, const void *old,
			    uint64_t *seqno)
{
	return qpu_submit_old(dev, old, offsetof(struct qpu_job_desc, flags), seqno);
}

/*
 * qpu_wait() has one entry point per layout of struct qpu_job_result, each
 * under the symbol version that introduced it (libqpu/README.md, "How the
 * API grows"): the default, LIBQPU_0.7, fills today's struct; programs
 * linked against 0.4 to 0.6 bind qpu_wait@LIBQPU_0.4, which writes the
 * struct without a dispatch's progress, those linked against 0.2 or 0.3
 * qpu_wait@LIBQPU_0.2, which writes it without the modelled time either,
 * and those linked against 0.1 qpu_wait@LIBQPU_0.1, which writes 0.1's
 * struct.
 */
QPU_API int qpu_wait_v0_7(struct qpu_dev *dev, uint64_t seqno, int timeout_ms,
			  struct qpu_job_result *result);
QPU_SYMVER_DEFAULT(qpu_wait_v0_7, qpu_wait, LIBQPU_0.7);

QPU_API int qpu_wait_v0_7(struct qpu_dev *dev, uint64_t seqno, int timeout_ms,
			  struct qpu_job_result *result)
{
	assert(dev && result);
	return dev->ops->wait(dev, seqno, timeout_ms, result);
}

/* 0.4's struct qpu_job_result: today's up to a dispatch's progress. */
#define QPU_JOB_RESULT_V0_4_SIZE	offsetof(struct qpu_job_result, batches)
/* 0.2's struct qpu_job_result: today's up to the modelled time. */
#define QPU_JOB_RESULT_V0_2_SIZE	offsetof(struct qpu_job_result, timing)

/* A status new in 0.7 (a reset) as the older one nearest to it. */
static void result_without_v0_7_values(struct qpu_job_result *r)
{
	if (r->status == QPU_STATUS_RESET)
		r->status = QPU_STATUS_TIMEOUT;
	r->flags &= ~QPU_JOB_RESULT_PROGRESS;
}

/*
 * Values new in 0.5 (V3D jobs' TMU writes and barriers) as the older ones
 * nearest to them, for callers of the older entry points.
 */
static void result_without_v0_5_values(struct qpu_job_result *r)
{
	unsigned int i;

	if (r->fault_access == QPU_ACCESS_TMU_WRITE)
		r->fault_access = QPU_ACCESS_TMU;
	for (i = 0; i < QPU_JOB_MAX_QPUS; i++) {
		if (r->qpus[i].activity == QPU_ACTIVITY_WAIT_BARRIER) {
			r->qpus[i].activity = QPU_ACTIVITY_WAIT_SEMAPHORE;
			r->qpus[i].semaphore = 0;
		}
	}
}

/*
 * Today's wait, its result given to a caller of an older layout: the first
 * @size bytes (0.4's or 0.2's), in the numbers that layout's release knew.
 */
static int qpu_wait_as(struct qpu_dev *dev, uint64_t seqno, int timeout_ms,
		       void *old, size_t size)
{
	struct qpu_job_result r;
	int ret;

	assert(dev && old);
	ret = dev->ops->wait(dev, seqno, timeout_ms, &r);
	if (ret)
		return ret;
	result_without_v0_7_values(&r);
	if (size <= QPU_JOB_RESULT_V0_2_SIZE) {
		r.flags &= ~QPU_JOB_RESULT_TIMING;
		result_without_v0_5_values(&r);
	}
	memcpy(old, &r, size);
	return 0;
}

QPU_API int qpu_wait_v0_4(struct qpu_dev *dev, uint64_t seqno, int timeout_ms,
			  void *old);
QPU_SYMVER_OLD(qpu_wait_v0_4, qpu_wait, LIBQPU_0.4);

QPU_API int qpu_wait_v0_4(struct qpu_dev *dev, uint64_t seqno, int timeout_ms,
			  void *old)
{
	return qpu_wait_as(dev, seqno, timeout_ms, old, QPU_JOB_RESULT_V0_4_SIZE);
}

QPU_API int qpu_wait_v0_2(struct qpu_dev *dev, uint64_t seqno, int timeout_ms,
			  void *old);
QPU_SYMVER_OLD(qpu_wait_v0_2, qpu_wait, LIBQPU_0.2);

QPU_API int qpu_wait_v0_2(struct qpu_dev *dev, uint64_t seqno, int timeout_ms,
			  void *old)
{
	return qpu_wait_as(dev, seqno, timeout_ms, old, QPU_JOB_RESULT_V0_2_SIZE);
}

/*
 * The result as libqpu 0.1 laid it out and numbered it: qpu.ko's status
 * and access numbers, six counters, nothing after them. 0.1 knew no
 * deadlock: to its callers one is the hang it would have been.
 */
struct qpu_job_result_v0_1 {
	uint32_t status;
	uint32_t fault_qpu;
	uint32_t fault_pc;
	uint32_t fault_addr;
	uint32_t fault_access;
	uint32_t flags;
	uint64_t instructions;
	uint64_t dual_issued;
	uint64_t tmu_bytes;
	uint64_t uniform_bytes;
	uint64_t dma_load_bytes;
	uint64_t dma_store_bytes;
	uint64_t run_ns;
};

QPU_API int qpu_wait_v0_1(struct qpu_dev *dev, uint64_t seqno, int timeout_ms,
			  struct qpu_job_result_v0_1 *old);
QPU_SYMVER_OLD(qpu_wait_v0_1, qpu_wait, LIBQPU_0.1);

QPU_API int qpu_wait_v0_1(struct qpu_dev *dev, uint64_t seqno, int timeout_ms,
			  struct qpu_job_result_v0_1 *old)
{
	struct qpu_job_result r;
	int ret;

	assert(dev && old);
	ret = dev->ops->wait(dev, seqno, timeout_ms, &r);
	if (ret)
		return ret;
	result_without_v0_7_values(&r);
	if (r.status == QPU_STATUS_DEADLOCK)
		r.status = QPU_STATUS_TIMEOUT;
	*old = (struct qpu_job_result_v0_1){
		.status = qpu_status_to_uapi(r.status),
		.fault_qpu = r.fault_qpu,
		.fault_pc = r.fault_pc,
		.fault_addr = r.fault_addr,
		.fault_access = qpu_access_to_uapi(r.fault_access),
		.flags = r.flags & (QPU_JOB_RESULT_INSTRUCTIONS | QPU_JOB_RESULT_COUNTERS),
		.instructions = r.instructions,
		.dual_issued = r.counters.dual_issued,
		.tmu_bytes = r.counters.tmu_bytes,
		.uniform_bytes = r.counters.uniform_bytes,
		.dma_load_bytes = r.counters.dma_load_bytes,
		.dma_store_bytes = r.counters.dma_store_bytes,
		.run_ns = r.counters.run_ns,
	};
	return 0;
}

QPU_API const char *qpu_job_status_str(enum qpu_status status)
{
	switch (status) {
	case QPU_STATUS_DONE:
		return "done";
	case QPU_STATUS_TIMEOUT:
		return "timed out";
	case QPU_STATUS_FAULT:
		return "memory fault";
	case QPU_STATUS_CANCELED:
		return "canceled";
	case QPU_STATUS_DEADLOCK:
		return "deadlock";
	case QPU_STATUS_RESET:
		return "GPU reset";
	default:
		return "unknown";
	}
}

QPU_API const char *qpu_access_str(enum qpu_access access)
{
	switch (access) {
	case QPU_ACCESS_FETCH:
		return "instruction fetch";
	case QPU_ACCESS_UNIFORM:
		return "uniform read";
	case QPU_ACCESS_TMU:
		return "TMU read";
	case QPU_ACCESS_DMA_LOAD:
		return "DMA load";
	case QPU_ACCESS_DMA_STORE:
		return "DMA store";
	case QPU_ACCESS_OTHER:
		return "other";
	case QPU_ACCESS_TMU_WRITE:
		return "TMU write";
	default:
		return "unknown";
	}
}

/* A job's fence: a sync_file (qpu.ko, a v3d node) or an eventfd (the emulator). */
enum fence_kind { FENCE_NONE, FENCE_SYNC_FILE, FENCE_EVENTFD };

static enum fence_kind fence_kind_of(int fd)
{
	char path[32], link[64];
	ssize_t n;

	if (fd < 0 || fcntl(fd, F_GETFD) < 0)
		return FENCE_NONE;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)	/* no /proc: take it as a fence, poll() will tell */
		return FENCE_EVENTFD;
	link[n] = '\0';
	if (!strcmp(link, "anon_inode:sync_file"))
		return FENCE_SYNC_FILE;
	if (!strcmp(link, "anon_inode:[eventfd]"))
		return FENCE_EVENTFD;
	return FENCE_NONE;
}

/* Whether the signalled sync_file @fd carries an error. */
static bool sync_file_failed(int fd)
{
#ifdef SYNC_IOC_FILE_INFO
	struct sync_file_info info;

	memset(&info, 0, sizeof(info));
	return !ioctl(fd, SYNC_IOC_FILE_INFO, &info) && info.status < 0;
#else
	(void)fd;
	return false;
#endif
}

QPU_API int qpu_fence_wait(int fence_fd, int timeout_ms)
{
	enum fence_kind kind = fence_kind_of(fence_fd);
	struct pollfd p = { .fd = fence_fd, .events = POLLIN };
	int ret;

	if (kind == FENCE_NONE)
		return qpu_fail(-EINVAL, "fence: %d is no job fence (a sync_file or the emulator's eventfd)",
				fence_fd);
	do
		ret = poll(&p, 1, timeout_ms < 0 ? -1 : timeout_ms);
	while (ret < 0 && errno == EINTR);
	if (ret < 0)
		return qpu_fail(-errno, "fence: poll: %s", strerror(errno));
	if (!ret)
		return -ETIME;
	if (!(p.revents & POLLIN))
		return qpu_fail(-EINVAL, "fence: %d does not signal", fence_fd);
	if (kind == FENCE_SYNC_FILE ? sync_file_failed(fence_fd) :
	    qpu_emudev_fence_failed(fence_fd))
		return qpu_fail(-EIO, "fence: the job behind it did not end well");
	return 0;
}
