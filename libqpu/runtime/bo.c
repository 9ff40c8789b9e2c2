// SPDX-License-Identifier: MIT
/*
 * struct qpu_bo: buffers shared by the CPU and QPU programs, mapped for
 * their whole life. The device's backend makes and frees the memory.
 */

#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#include "runtime/runtime.h"
#include "qpu.h"

QPU_API struct qpu_bo *qpu_bo_new(struct qpu_dev *dev, size_t size)
{
	struct qpu_bo *bo;
	int ret;

	assert(dev);
	if (!size) {
		errno = EINVAL;
		return NULL;
	}
	bo = calloc(1, sizeof(*bo));
	if (!bo)
		return NULL;
	bo->dev = dev;
	bo->size = size;
	ret = dev->ops->bo_alloc(dev, bo);
	if (ret) {
		free(bo);
		errno = -ret;
		return NULL;
	}
	return bo;
}

QPU_API void qpu_bo_free(struct qpu_bo *bo)
{
	if (!bo)
		return;
	bo->dev->ops->bo_free(bo->dev, bo);
	free(bo);
}

QPU_API void *qpu_bo_get_map(const struct qpu_bo *bo)
{
	assert(bo);
	return bo->map;
}

QPU_API uint32_t qpu_bo_get_bus_addr(const struct qpu_bo *bo)
{
	assert(bo);
	return bo->bus_addr;
}

QPU_API size_t qpu_bo_get_size(const struct qpu_bo *bo)
{
	assert(bo);
	return bo->size;
}
