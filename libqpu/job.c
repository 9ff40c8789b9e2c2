// SPDX-License-Identifier: MIT
/*
 * Jobs: checking a job description once for every backend, submitting it
 * and waiting for it.
 */

#include <assert.h>
#include <errno.h>
#include <stdbool.h>

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

QPU_API int qpu_wait(struct qpu_dev *dev, uint64_t seqno, int timeout_ms,
		     struct qpu_job_result *result)
{
	assert(dev && result);
	return dev->ops->wait(dev, seqno, timeout_ms, result);
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
	default:
		return "unknown";
	}
}
