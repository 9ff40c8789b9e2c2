// SPDX-License-Identifier: MIT
/*
 * What a device keeps for the sample kernels between calls: each kernel's
 * code, uploaded once, and one scratch buffer that grows to the largest
 * call's needs (uniforms, sgemm's packed panels and tile lists). A wrapper
 * call then allocates nothing on the device, which on /dev/qpu saves a
 * create, mmap and destroy per buffer and, for sgemm, the zeroing of
 * megabytes of fresh memory. Wrappers block until their job ends and a
 * device is used by one thread at a time, so one scratch buffer is enough.
 * qpu_dev_close() and qpu_kernel_drop_cache() give it all back.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../internal.h"
#include "kernel.h"

/* More than the library has kernels: a full cache is a bug. */
#define KERNEL_CACHE_CODES	16

struct qpu_kernel_cache {
	struct qpu_bo *scratch;
	unsigned int ncodes;
	struct {
		const struct qpu_kernel_code *code;
		struct qpu_bo *bo;
	} codes[KERNEL_CACHE_CODES];
};

QPU_API void qpu_kernel_drop_cache(struct qpu_dev *dev)
{
	struct qpu_kernel_cache *c = dev ? dev->kernel_cache : NULL;
	unsigned int i;

	if (!c)
		return;
	for (i = 0; i < c->ncodes; i++)
		qpu_bo_free(c->codes[i].bo);
	qpu_bo_free(c->scratch);
	free(c);
	dev->kernel_cache = NULL;
	dev->kernel_cache_drop = NULL;
}

static struct qpu_kernel_cache *kernel_cache(struct qpu_dev *dev)
{
	if (!dev->kernel_cache) {
		dev->kernel_cache = calloc(1, sizeof(struct qpu_kernel_cache));
		if (!dev->kernel_cache)
			return NULL;
		/* device.c calls it back, without linking the kernels in */
		dev->kernel_cache_drop = qpu_kernel_drop_cache;
	}
	return dev->kernel_cache;
}

struct qpu_bo *qpu_kernel_code_bo(struct qpu_dev *dev,
				  const struct qpu_kernel_code *code)
{
	struct qpu_kernel_cache *c = kernel_cache(dev);
	struct qpu_bo *bo;
	unsigned int i;

	if (!c)
		return NULL;
	for (i = 0; i < c->ncodes; i++)
		if (c->codes[i].code == code)
			return c->codes[i].bo;
	if (c->ncodes == KERNEL_CACHE_CODES) {
		errno = ENOSPC;
		return NULL;
	}
	bo = qpu_bo_new(dev, code->size);
	if (!bo)
		return NULL;
	memcpy(qpu_bo_get_map(bo), code->halves, code->size);
	c->codes[c->ncodes].code = code;
	c->codes[c->ncodes].bo = bo;
	c->ncodes++;
	return bo;
}

struct qpu_bo *qpu_kernel_scratch(struct qpu_dev *dev, size_t size)
{
	struct qpu_kernel_cache *c = kernel_cache(dev);

	if (!c)
		return NULL;
	if (c->scratch && qpu_bo_get_size(c->scratch) >= size)
		return c->scratch;
	/* the old one first: the two may not fit the device's limits */
	qpu_bo_free(c->scratch);
	c->scratch = qpu_bo_new(dev, size);
	return c->scratch;
}
