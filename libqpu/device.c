// SPDX-License-Identifier: MIT
/*
 * struct qpu_dev: opening, identifying and closing a qpu device node.
 */

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/qpu.h>

#include "internal.h"
#include "qpu.h"

struct qpu_dev {
	int fd;
	char *path;
};

QPU_API const char *qpu_version(void)
{
	return LIBQPU_VERSION;
}

QPU_API struct qpu_dev *qpu_dev_open(const char *path)
{
	struct qpu_dev *dev;
	uint64_t abi;
	int ret;

	if (!path)
		path = getenv("QPU_DEVICE");
	if (!path || !*path)
		path = "/dev/qpu";

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	dev->fd = -1;
	dev->path = strdup(path);
	if (!dev->path)
		goto err;

	dev->fd = open(path, O_RDWR | O_CLOEXEC);
	if (dev->fd < 0)
		goto err;

	/* Anything that is not qpu.ko answers this with ENOTTY. */
	ret = qpu_ioctl_get_param(dev->fd, QPU_PARAM_ABI_VERSION, &abi);
	if (ret) {
		errno = ret == -EINVAL ? ENOTTY : -ret;
		goto err;
	}
	if (abi != QPU_ABI_VERSION) {
		errno = EPROTO;
		goto err;
	}
	return dev;

err:
	ret = errno;
	qpu_dev_close(dev);
	errno = ret;
	return NULL;
}

QPU_API void qpu_dev_close(struct qpu_dev *dev)
{
	if (!dev)
		return;
	if (dev->fd >= 0)
		close(dev->fd);
	free(dev->path);
	free(dev);
}

QPU_API const char *qpu_dev_get_path(const struct qpu_dev *dev)
{
	assert(dev);
	return dev->path;
}

QPU_API int qpu_dev_get_param(struct qpu_dev *dev, uint32_t param,
			      uint64_t *value)
{
	assert(dev && value);
	return qpu_ioctl_get_param(dev->fd, param, value);
}
