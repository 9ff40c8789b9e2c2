// SPDX-License-Identifier: MIT
/*
 * struct qpu_dev: opening a device by probing what its node is (qpu.ko's,
 * a DRM node asked its driver) or the in-process emulator ("emu"),
 * querying and closing it.
 */

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "runtime/runtime.h"
#include "qpu.h"

/* The path that picks the in-process emulator; "emu:" adds options. */
#define QPU_EMULATOR_PATH "emu"
#define QPU_EMULATOR_PREFIX QPU_EMULATOR_PATH ":"
/* The node of qpu.ko's first device, the default. */
#define QPU_DEFAULT_PATH "/dev/qpu"

QPU_API const char *qpu_version(void)
{
	return LIBQPU_VERSION;
}

/*
 * The message of a qpu_dev_open() that found no device at @path (@err:
 * the -errno of opening it). With @searched, the path was the default: no
 * v3d DRM node is there either. How to get a device is
 * qpu_dev_open_hint()'s to say (dev_words.c), which callers print under it.
 */
static int qpu_dev_none(const char *path, int err, bool searched)
{
	return qpu_fail(err, "%s: %s%s", path, strerror(-err),
			searched ? "; no v3d DRM node either" : "");
}

/* The emulator, for "emu" and "emu:OPTIONS". */
static int qpu_dev_open_emu(struct qpu_dev *dev, const char *options)
{
	int ret = qpu_emudev_open(dev, options);

	if (ret == -ENOTSUP)
		return qpu_fail(ret, "%s: libqpu has no emulator of this generation yet",
				dev->path);
	if (ret == -EINVAL)
		return qpu_fail(ret, "%s: an unknown option or value", dev->path);
	if (ret)
		return qpu_fail(ret, "%s: %s", dev->path, strerror(-ret));
	return 0;
}

/*
 * A node, by what it answers: qpu.ko's GET_PARAM, else a DRM driver's
 * name. The default path, when missing, sends the search to the DRM
 * devices, so that a Pi 4 or 5 says what it has.
 */
static int qpu_dev_open_node(struct qpu_dev *dev, bool is_default)
{
	char v3d[64];
	int ret = qpu_kdev_open(dev);

	if (ret == -ENOTTY)
		return qpu_drm_probe(dev->fd, dev->path);
	if (ret == -EPROTO)
		return qpu_fail(ret, "%s: qpu.ko of another ABI than libqpu's (%u)",
				dev->path, qpu_kdev_ioctl_abi_version());
	if (ret == -ENOENT && is_default && qpu_drm_find_v3d(v3d, sizeof(v3d)))
		return qpu_fail(-ENOTSUP, "%s is missing; %s is the v3d DRM driver's node (the V3D 4.2/7.1 of a Pi 4 or 5): libqpu has no v3d backend yet",
				dev->path, v3d);
	if (dev->fd < 0)
		return qpu_dev_none(dev->path, ret, is_default && ret == -ENOENT);
	return ret;
}

QPU_API struct qpu_dev *qpu_dev_open(const char *path)
{
	struct qpu_dev *dev;
	bool is_default = false;
	int ret;

	if (!path)
		path = getenv("QPU_DEVICE");
	if (!path || !*path) {
		path = QPU_DEFAULT_PATH;
		is_default = true;
	}

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
		ret = qpu_dev_open_emu(dev, NULL);
	else if (!strncmp(path, QPU_EMULATOR_PREFIX, strlen(QPU_EMULATOR_PREFIX)))
		ret = qpu_dev_open_emu(dev, path + strlen(QPU_EMULATOR_PREFIX));
	else
		ret = qpu_dev_open_node(dev, is_default);
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
