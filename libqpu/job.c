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

#include <linux/qpu.h>

#include "internal.h"
#include "qpu.h"

static bool qpu_job_desc_valid(const struct qpu_dev *dev,
			       const struct qpu_job_desc *desc)
{
	unsigned int i;

	if (!desc->programs || !desc->program_count || desc->program_count > 16)
		return false;
	if (desc->bo_count && !desc->bos)
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

QPU_API int qpu_submit(struct qpu_dev *dev, const struct qpu_job_desc *desc,
		       uint64_t *seqno)
{
	assert(dev && desc && seqno);
	if (!qpu_job_desc_valid(dev, desc))
		return -EINVAL;
	return dev->ops->submit(dev, desc, seqno);
}

/*
 * qpu_wait(): its default version, LIBQPU_0.2, fills the whole struct
 * qpu_job_result. Defined under another name so that the older version
 * below can be bound too (the names are the symbols' versions).
 */
QPU_API int qpu_wait_v0_2(struct qpu_dev *dev, uint64_t seqno, int timeout_ms,
			  struct qpu_job_result *result);
__asm__(".symver qpu_wait_v0_2, qpu_wait@@LIBQPU_0.2");

QPU_API int qpu_wait_v0_2(struct qpu_dev *dev, uint64_t seqno, int timeout_ms,
			  struct qpu_job_result *result)
{
	assert(dev && result);
	return dev->ops->wait(dev, seqno, timeout_ms, result);
}

/*
 * qpu_wait@LIBQPU_0.1, for programs built before struct qpu_job_result
 * grew past @counters: only that much of it is theirs to write, and they
 * never heard of QPU_JOB_DEADLOCK, a hang as they see it.
 */
QPU_API int qpu_wait_v0_1(struct qpu_dev *dev, uint64_t seqno, int timeout_ms,
			  struct qpu_job_result *result);
__asm__(".symver qpu_wait_v0_1, qpu_wait@LIBQPU_0.1");

QPU_API int qpu_wait_v0_1(struct qpu_dev *dev, uint64_t seqno, int timeout_ms,
			  struct qpu_job_result *result)
{
	struct qpu_job_result full;
	int ret;

	assert(dev && result);
	ret = dev->ops->wait(dev, seqno, timeout_ms, &full);
	if (ret)
		return ret;
	if (full.status == QPU_JOB_DEADLOCK)
		full.status = QPU_JOB_TIMEOUT;
	full.flags &= ~QPU_JOB_RESULT_QPUS;
	memcpy(result, &full, offsetof(struct qpu_job_result, qpu_count));
	return 0;
}

QPU_API const char *qpu_job_status_str(uint32_t status)
{
	switch (status) {
	case QPU_JOB_DONE:
		return "done";
	case QPU_JOB_TIMEOUT:
		return "timed out";
	case QPU_JOB_FAULT:
		return "memory fault";
	case QPU_JOB_CANCELED:
		return "canceled";
	case QPU_JOB_DEADLOCK:
		return "deadlock";
	default:
		return "unknown";
	}
}
