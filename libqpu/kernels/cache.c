// SPDX-License-Identifier: MIT
/*
 * struct qpu_kernels: what the sample kernels keep between calls on one
 * device, and their last error. The cache holds each kernel's code,
 * uploaded once, and one scratch buffer that grows to the largest call's
 * needs (uniforms, sgemm's packed panels and tile lists). A wrapper call
 * then allocates nothing on the device, which on /dev/qpu saves a create,
 * mmap and destroy per buffer and, for sgemm, the zeroing of megabytes of
 * fresh memory; a wrapper with operands of its own (qpu_nms()) keeps them
 * in a second buffer and host memory the same way. Wrappers block until their job ends and a kernels object
 * is used by one thread at a time, so one scratch buffer is enough. The
 * device knows nothing of it: qpu_kernels_free() gives it all back.
 */

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

QPU_API struct qpu_kernels *qpu_kernels_new(struct qpu_dev *dev)
{
	struct qpu_kernels *kernels;
	uint64_t gen;

	if (!dev) {
		errno = EINVAL;
		return NULL;
	}
	kernels = calloc(1, sizeof(*kernels));
	if (!kernels)
		return NULL;
	kernels->dev = dev;
	kernels->gen = qpu_dev_get_param(dev, QPU_DEV_PARAM_GEN, &gen) ||
		       !qpu_gen_valid((int)gen) ? QPU_GEN_VC4 : (enum qpu_gen)gen;
	return kernels;
}

QPU_API void qpu_kernels_drop_cache(struct qpu_kernels *kernels)
{
	unsigned int i;

	if (!kernels)
		return;
	qpu_kernels_finish(kernels, NULL);	/* the buffers are its job's */
	for (i = 0; i < kernels->ncodes; i++)
		qpu_bo_free(kernels->codes[i].bo);
	kernels->ncodes = 0;
	qpu_bo_free(kernels->scratch);
	kernels->scratch = NULL;
	qpu_bo_free(kernels->work);
	kernels->work = NULL;
	free(kernels->host);
	kernels->host = NULL;
	kernels->host_bytes = 0;
}

QPU_API void qpu_kernels_free(struct qpu_kernels *kernels)
{
	qpu_kernels_drop_cache(kernels);
	free(kernels);
}

QPU_API struct qpu_dev *qpu_kernels_get_dev(const struct qpu_kernels *kernels)
{
	assert(kernels);
	return kernels->dev;
}

QPU_API const char *qpu_kernels_last_error(const struct qpu_kernels *kernels)
{
	assert(kernels);
	return kernels->last_error;
}

QPU_API int qpu_kernels_take_timing(struct qpu_kernels *kernels,
				    struct qpu_job_timing *out)
{
	assert(kernels && out);
	if (!kernels->timing_known)
		return -ENODATA;
	*out = kernels->timing;
	memset(&kernels->timing, 0, sizeof(kernels->timing));
	kernels->timing_known = false;
	return 0;
}

struct qpu_bo *qpu_kernel_code_bo(struct qpu_kernels *kernels,
				  const struct qpu_kernel_code *code)
{
	struct qpu_bo *bo;
	unsigned int i;

	for (i = 0; i < kernels->ncodes; i++)
		if (kernels->codes[i].code == code)
			return kernels->codes[i].bo;
	if (kernels->ncodes == QPU_KERNELS_MAX_CODES) {
		errno = ENOSPC;
		return NULL;
	}
	bo = qpu_bo_new(kernels->dev, code->size);
	if (!bo)
		return NULL;
	memcpy(qpu_bo_get_map(bo), code->halves, code->size);
	kernels->codes[kernels->ncodes].code = code;
	kernels->codes[kernels->ncodes].bo = bo;
	kernels->ncodes++;
	return bo;
}

struct qpu_bo *qpu_kernel_scratch(struct qpu_kernels *kernels, size_t size)
{
	if (kernels->pending) {	/* it holds the pending job's uniforms */
		errno = EBUSY;
		return NULL;
	}
	if (kernels->scratch && qpu_bo_get_size(kernels->scratch) >= size)
		return kernels->scratch;
	/* the old one first: the two may not fit the device's limits */
	qpu_bo_free(kernels->scratch);
	kernels->scratch = qpu_bo_new(kernels->dev, size);
	return kernels->scratch;
}

struct qpu_bo *qpu_kernel_work(struct qpu_kernels *kernels, size_t size)
{
	if (kernels->pending) {
		errno = EBUSY;
		return NULL;
	}
	if (kernels->work && qpu_bo_get_size(kernels->work) >= size)
		return kernels->work;
	qpu_bo_free(kernels->work);
	kernels->work = qpu_bo_new(kernels->dev, size);
	return kernels->work;
}

void *qpu_kernel_host(struct qpu_kernels *kernels, size_t size)
{
	void *p;

	if (kernels->host_bytes >= size)
		return kernels->host;
	p = realloc(kernels->host, size);
	if (!p)
		return NULL;
	kernels->host = p;
	kernels->host_bytes = size;
	return p;
}

QPU_API int qpu_kernels_set_timeout(struct qpu_kernels *kernels, unsigned int timeout_ms)
{
	if (!kernels)
		return -EINVAL;
	kernels->timeout_ms = timeout_ms;
	return 0;
}
