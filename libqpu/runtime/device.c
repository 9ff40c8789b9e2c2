// SPDX-License-Identifier: MIT
/*
 * struct qpu_dev: opening a device of either kind (qpu.ko's node or the
 * in-process emulator), querying and closing it.
 */

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"
#include "qpu.h"

/* The path that picks the in-process emulator; "emu:" adds options. */
#define QPU_EMULATOR_PATH "emu"
#define QPU_EMULATOR_PREFIX QPU_EMULATOR_PATH ":"

QPU_API const char *qpu_version(void)
{
	return LIBQPU_VERSION;
}

QPU_API struct qpu_dev *qpu_dev_open(const char *path)
{
	struct qpu_dev *dev;
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
	if (!dev->path) {
		ret = -ENOMEM;
		goto err;
	}

	if (!strcmp(path, QPU_EMULATOR_PATH))
		ret = qpu_emudev_open(dev, NULL);
	else if (!strncmp(path, QPU_EMULATOR_PREFIX, strlen(QPU_EMULATOR_PREFIX)))
		ret = qpu_emudev_open(dev, path + strlen(QPU_EMULATOR_PREFIX));
	else
		ret = qpu_kdev_open(dev);
	if (ret)
		goto err;
	return dev;

err:
	qpu_dev_close(dev);
	errno = -ret;
	return NULL;
}

QPU_API void qpu_dev_close(struct qpu_dev *dev)
{
	if (!dev)
		return;
	if (dev->ops)
		dev->ops->close(dev);
	free(dev->path);
	free(dev);
}

QPU_API const char *qpu_dev_get_path(const struct qpu_dev *dev)
{
	assert(dev);
	return dev->path;
}

QPU_API const char *qpu_dev_describe(const struct qpu_dev *dev)
{
	assert(dev);
	return dev->ops->describe(dev);
}

QPU_API int qpu_dev_get_param(struct qpu_dev *dev, enum qpu_dev_param param,
			      uint64_t *value)
{
	assert(dev && value);
	return dev->ops->get_param(dev, param, value);
}

QPU_API int qpu_dev_set_board(struct qpu_dev *dev, enum qpu_board board)
{
	if (!dev)
		return -EINVAL;
	if (!dev->ops->set_board)
		return -ENOTTY;
	return dev->ops->set_board(dev, board);
}
