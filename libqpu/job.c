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
