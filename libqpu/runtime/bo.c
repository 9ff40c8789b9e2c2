// SPDX-License-Identifier: MIT
/*
 * struct qpu_bo: buffers shared by the CPU and QPU programs, mapped for
 * their whole life. The device's backend makes and frees the memory.
 */

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

QPU_API int qpu_bo_import_dmabuf(struct qpu_dev *dev, int fd, size_t size,
				 struct qpu_bo **out)
{
	struct qpu_bo *bo;
	int ret;

	assert(dev && out);
	*out = NULL;
	if (fd < 0)
		return qpu_fail(-EBADF, "qpu_bo_import_dmabuf: fd %d is not open", fd);
	if (!dev->ops->bo_import)
		return qpu_fail(-ENOTSUP, "%s cannot import dma-bufs",
				dev->ops->describe(dev));
	bo = calloc(1, sizeof(*bo));
	if (!bo)
		return qpu_fail(-ENOMEM, "qpu_bo_import_dmabuf: out of memory");
	bo->dev = dev;
	bo->size = size;
	ret = dev->ops->bo_import(dev, bo, fd);
	if (ret) {
		free(bo);
		return ret;
	}
	*out = bo;
	return 0;
}

QPU_API int qpu_bo_export_dmabuf(struct qpu_bo *bo, int *fd)
{
	assert(bo && fd);
	*fd = -1;
	if (!bo->dev->ops->bo_export)
		return qpu_fail(-ENOTSUP, "%s cannot export dma-bufs: its buffers are this process's memory",
				bo->dev->ops->describe(bo->dev));
	return bo->dev->ops->bo_export(bo->dev, bo, fd);
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
