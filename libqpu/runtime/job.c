// SPDX-License-Identifier: MIT
/*
 * Jobs: checking a job description once for every backend, submitting it
 * and waiting for it.
 */

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "runtime/runtime.h"
#include "qpu.h"

static bool qpu_job_desc_valid(const struct qpu_dev *dev,
			       const struct qpu_job_desc *desc)
{
	unsigned int i;

	if (!desc->programs || !desc->program_count || desc->program_count > QPU_JOB_MAX_QPUS)
		return false;
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
 * (libqpu/README.md, "How the API grows"): the default, LIBQPU_0.3, reads
 * today's struct with its flags; programs built before it bind
 * qpu_submit@LIBQPU_0.1, which reads the struct as it was, without flags.
 */
QPU_API int qpu_submit_v0_3(struct qpu_dev *dev, const struct qpu_job_desc *desc,
			    uint64_t *seqno);
__asm__(".symver qpu_submit_v0_3, qpu_submit@@LIBQPU_0.3");

QPU_API int qpu_submit_v0_3(struct qpu_dev *dev, const struct qpu_job_desc *desc,
			    uint64_t *seqno)
{
	assert(dev && desc && seqno);
	if (!qpu_job_desc_valid(dev, desc))
		return -EINVAL;
	return dev->ops->submit(dev, desc, seqno);
}

/* The description as libqpu 0.1 and 0.2 laid it out: no flags. */
struct qpu_job_desc_v0_1 {
	const struct qpu_program_ref *programs;
	unsigned int program_count;
	struct qpu_bo *const *bos;
	unsigned int bo_count;
	unsigned int timeout_ms;
	int in_fence_fd;
	int *out_fence_fd;
};

QPU_API int qpu_submit_v0_1(struct qpu_dev *dev,
			    const struct qpu_job_desc_v0_1 *old, uint64_t *seqno);
__asm__(".symver qpu_submit_v0_1, qpu_submit@LIBQPU_0.1");

QPU_API int qpu_submit_v0_1(struct qpu_dev *dev,
			    const struct qpu_job_desc_v0_1 *old, uint64_t *seqno)
{
	struct qpu_job_desc desc;

	assert(old);
	desc = (struct qpu_job_desc){
		.programs = old->programs,
		.program_count = old->program_count,
		.bos = old->bos,
		.bo_count = old->bo_count,
		.timeout_ms = old->timeout_ms,
		.in_fence_fd = old->in_fence_fd,
		.out_fence_fd = old->out_fence_fd,
	};
	return qpu_submit_v0_3(dev, &desc, seqno);
}

/*
 * qpu_wait() has one entry point per layout of struct qpu_job_result, each
 * under the symbol version that introduced it (libqpu/README.md, "How the
 * API grows"): the default, LIBQPU_0.4, fills today's struct; programs
 * linked against 0.2 or 0.3 bind qpu_wait@LIBQPU_0.2, which writes the struct
 * without the modelled time, and those linked against 0.1
 * qpu_wait@LIBQPU_0.1, which writes 0.1's struct.
 */
QPU_API int qpu_wait_v0_4(struct qpu_dev *dev, uint64_t seqno, int timeout_ms,
			  struct qpu_job_result *result);
__asm__(".symver qpu_wait_v0_4, qpu_wait@@LIBQPU_0.4");

QPU_API int qpu_wait_v0_4(struct qpu_dev *dev, uint64_t seqno, int timeout_ms,
			  struct qpu_job_result *result)
{
	assert(dev && result);
	return dev->ops->wait(dev, seqno, timeout_ms, result);
}

/* 0.2's struct qpu_job_result: today's up to the modelled time. */
#define QPU_JOB_RESULT_V0_2_SIZE	offsetof(struct qpu_job_result, timing)

QPU_API int qpu_wait_v0_2(struct qpu_dev *dev, uint64_t seqno, int timeout_ms,
			  void *old);
__asm__(".symver qpu_wait_v0_2, qpu_wait@LIBQPU_0.2");

QPU_API int qpu_wait_v0_2(struct qpu_dev *dev, uint64_t seqno, int timeout_ms,
			  void *old)
{
	struct qpu_job_result r;
	int ret;

	assert(dev && old);
	ret = dev->ops->wait(dev, seqno, timeout_ms, &r);
	if (ret)
		return ret;
	r.flags &= ~QPU_JOB_RESULT_TIMING;
	memcpy(old, &r, QPU_JOB_RESULT_V0_2_SIZE);
	return 0;
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
__asm__(".symver qpu_wait_v0_1, qpu_wait@LIBQPU_0.1");

QPU_API int qpu_wait_v0_1(struct qpu_dev *dev, uint64_t seqno, int timeout_ms,
			  struct qpu_job_result_v0_1 *old)
{
	struct qpu_job_result r;
	int ret;

	assert(dev && old);
	ret = dev->ops->wait(dev, seqno, timeout_ms, &r);
	if (ret)
		return ret;
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
	default:
		return "unknown";
	}
}
