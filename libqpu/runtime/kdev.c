// SPDX-License-Identifier: MIT
/*
 * The qpu.ko backend of struct qpu_dev: a /dev/qpu node, real or simulated
 * V3D behind it. Buffers are mapped once, for their whole life. The names
 * of qpu.ko's backends (qpu_backend_name()) live here too.
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "runtime/runtime.h"

QPU_API const char *qpu_backend_name(enum qpu_dev_backend backend)
{
	switch (backend) {
	case QPU_DEV_BACKEND_HARDWARE:
		return "hardware";
	case QPU_DEV_BACKEND_SIMULATED:
		return "simulated";
	default:
		return "unknown";
	}
}

static const char *qpu_kdev_describe(const struct qpu_dev *dev)
{
	uint64_t backend = 0;

	qpu_kdev_ioctl_get_param(dev->fd, QPU_DEV_PARAM_BACKEND, &backend);
	switch (backend) {
	case QPU_DEV_BACKEND_HARDWARE:
		return "qpu.ko, hardware V3D";
	case QPU_DEV_BACKEND_SIMULATED:
		return "qpu.ko, simulated V3D";
	default:
		return "qpu.ko, unknown V3D";
	}
}

static int qpu_kdev_get_param(struct qpu_dev *dev, enum qpu_dev_param param,
			      uint64_t *value)
{
	/* qpu.ko drives VideoCore IV alone: its ABI has no such number. */
	if (param == QPU_DEV_PARAM_GEN) {
		*value = QPU_GEN_VC4;
		return 0;
	}
	return qpu_kdev_ioctl_get_param(dev->fd, param, value);
}

static int qpu_kdev_bo_alloc(struct qpu_dev *dev, struct qpu_bo *bo)
{
	int ret;

	ret = qpu_kdev_ioctl_bo_create(dev->fd, bo->size, bo);
	if (ret)
		return ret;
	bo->map = mmap(NULL, bo->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       dev->fd, bo->mmap_offset);
	if (bo->map == MAP_FAILED) {
		ret = -errno;
		qpu_kdev_ioctl_bo_destroy(dev->fd, bo->handle);
		return ret;
	}
	return 0;
}

static void qpu_kdev_bo_free(struct qpu_dev *dev, struct qpu_bo *bo)
{
	munmap(bo->map, bo->size);
	/* Cannot fail for a handle this file made and still holds. */
	qpu_kdev_ioctl_bo_destroy(dev->fd, bo->handle);
}

/* BO_IMPORT, then the whole dma-buf mapped through the device. */
static int qpu_kdev_bo_import(struct qpu_dev *dev, struct qpu_bo *bo, int fd)
{
	size_t want = bo->size;
	int ret;

	ret = qpu_kdev_ioctl_bo_import(dev->fd, fd, bo);
	if (ret)
		return qpu_fail(ret, "%s: cannot import dma-buf fd %d: %s%s", dev->path, fd,
				strerror(-ret), ret == -EINVAL ?
				" (not a dma-buf, or memory this V3D cannot reach: see dmesg with qpu's debug lines on)" : "");
	if (want > bo->size) {
		qpu_kdev_ioctl_bo_destroy(dev->fd, bo->handle);
		return qpu_fail(-EINVAL, "%s: dma-buf fd %d has %zu bytes, less than the %zu asked",
				dev->path, fd, bo->size, want);
	}
	bo->map = mmap(NULL, bo->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       dev->fd, bo->mmap_offset);
	if (bo->map == MAP_FAILED) {
		ret = -errno;
		qpu_kdev_ioctl_bo_destroy(dev->fd, bo->handle);
		return qpu_fail(ret, "%s: cannot map the dma-buf of fd %d: %s", dev->path,
				fd, strerror(-ret));
	}
	return 0;
}

static int qpu_kdev_bo_export(struct qpu_dev *dev, struct qpu_bo *bo, int *fd)
{
	int ret = qpu_kdev_ioctl_bo_export(dev->fd, bo->handle, fd);

	if (ret)
		return qpu_fail(ret, "%s: cannot export a buffer: %s%s", dev->path,
				strerror(-ret), ret == -ENOTTY ?
				" (qpu.ko predates dma-buf sharing)" : "");
	return 0;
}

static int qpu_kdev_submit(struct qpu_dev *dev, const struct qpu_job_desc *desc,
			   uint64_t *seqno)
{
	return qpu_kdev_ioctl_submit(dev->fd, desc, seqno);
}

static int qpu_kdev_wait(struct qpu_dev *dev, uint64_t seqno, int timeout_ms,
			 struct qpu_job_result *result)
{
	struct timespec now;
	int64_t deadline;

	if (timeout_ms < 0) {
		deadline = INT64_MAX;
	} else {
		clock_gettime(CLOCK_MONOTONIC, &now);
		deadline = now.tv_sec * 1000000000ll + now.tv_nsec +
			   timeout_ms * 1000000ll;
	}
	return qpu_kdev_ioctl_wait(dev->fd, seqno, deadline, result);
}

static void qpu_kdev_close(struct qpu_dev *dev)
{
	if (dev->fd >= 0)
		close(dev->fd);
}

static const struct qpu_dev_ops qpu_kdev_ops = {
	.describe = qpu_kdev_describe,
	.get_param = qpu_kdev_get_param,
	.bo_alloc = qpu_kdev_bo_alloc,
	.bo_free = qpu_kdev_bo_free,
	.bo_import = qpu_kdev_bo_import,
	.bo_export = qpu_kdev_bo_export,
	.submit = qpu_kdev_submit,
	.wait = qpu_kdev_wait,
	.close = qpu_kdev_close,
	.telemetry = qpu_kdev_telemetry,
};

/* mmap() of a buffer past 4 GiB of qpu.ko's offsets, on 32-bit userspace too. */
_Static_assert(sizeof(off_t) == 8, "libqpu needs -D_FILE_OFFSET_BITS=64");

/* Opens dev->path; errno-style return: 0 or -errno (ENOTTY: not qpu). */
int qpu_kdev_open(struct qpu_dev *dev)
{
	dev->ops = &qpu_kdev_ops;
	dev->fd = open(dev->path, O_RDWR | O_CLOEXEC);
	if (dev->fd < 0)
		return -errno;
	return qpu_kdev_ioctl_check_abi(dev->fd);
}
