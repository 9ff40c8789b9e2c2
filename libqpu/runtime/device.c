// SPDX-License-Identifier: MIT
/*
 * struct qpu_dev: opening a device by probing what its node is (qpu.ko's,
 * a DRM node asked its driver), the first v3d DRM node ("v3d") or the
 * in-process emulator ("emu"), querying and closing it.
 */

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "runtime/runtime.h"
#include "qpu.h"

/* The path that picks the in-process emulator; "emu:" adds options. */
#define QPU_EMULATOR_PATH "emu"
#define QPU_EMULATOR_PREFIX QPU_EMULATOR_PATH ":"
/* The node of qpu.ko's first device, the default. */
#define QPU_DEFAULT_PATH "/dev/qpu"
/* The path that picks the first v3d DRM node; "v3d:GEN", one of GEN. */
#define QPU_V3D_PATH "v3d"
#define QPU_V3D_PREFIX QPU_V3D_PATH ":"
/* v3d nodes the search tries. */
#define QPU_V3D_MAX_NODES 8

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

/* @dev->path, a node: qpu.ko's (GET_PARAM) or the v3d driver's. */
static int qpu_dev_probe_node(struct qpu_dev *dev)
{
	int ret = qpu_kdev_open(dev);

	if (ret == -ENOTTY) {
		ret = qpu_drm_probe(dev->fd, dev->path);
		if (!ret)
			ret = qpu_v3ddev_open(dev);
	}
	if (ret == -EPROTO)
		return qpu_fail(ret, "%s: qpu.ko of another ABI than libqpu's (%u)",
				dev->path, qpu_kdev_ioctl_abi_version());
	return ret;
}

/* The state of @dev as qpu_dev_open() found it, for opening again. */
static void qpu_dev_reset(struct qpu_dev *dev)
{
	if (dev->ops)
		dev->ops->close(dev);
	else if (dev->fd >= 0)
		close(dev->fd);
	dev->ops = NULL;
	dev->priv = NULL;
	dev->fd = -1;
}

/*
 * The first v3d DRM node (drm.c's search) of generation @gen, any when
 * @gen is -1; @dev->path becomes its node. -ENOENT when there is none,
 * else the last node's refusal (EACCES: not in the render group).
 */
static int qpu_dev_open_v3d(struct qpu_dev *dev, int gen)
{
	char nodes[QPU_V3D_MAX_NODES][QPU_DRM_PATH_MAX];
	int i, ret = -ENOENT, n = qpu_drm_find_v3d(nodes, QPU_V3D_MAX_NODES);
	uint64_t found;
	char *path;

	for (i = 0; i < n; i++) {
		path = strdup(nodes[i]);
		if (!path)
			return -ENOMEM;
		free(dev->path);
		dev->path = path;
		ret = qpu_dev_probe_node(dev);
		if (!ret && (gen < 0 || (!dev->ops->get_param(dev, QPU_DEV_PARAM_GEN, &found) &&
					 found == (uint64_t)gen)))
			return 0;
		if (!ret)
			ret = -ENOENT;
		else if (dev->fd < 0)
			qpu_fail(ret, "%s: %s", dev->path, strerror(-ret));
		qpu_dev_reset(dev);
	}
	if (ret == -ENOENT)
		return qpu_fail(ret, "no v3d DRM node%s%s", gen < 0 ? "" : " of ",
				gen < 0 ? "" : qpu_gen_name((enum qpu_gen)gen));
	return ret;
}

/* "v3d" and "v3d:GEN" (GEN: v3d42 or v3d71). */
static int qpu_dev_open_v3d_path(struct qpu_dev *dev, const char *gen_name)
{
	int gen = gen_name ? qpu_gen_from_name(gen_name) : -1;

	if (gen_name && (gen < 0 || !qpu_gen_is_v3d(gen)))
		return qpu_fail(-EINVAL, "%s: a v3d node runs v3d42 or v3d71", dev->path);
	return qpu_dev_open_v3d(dev, gen);
}

/*
 * A node, by what it answers: qpu.ko's GET_PARAM, else a DRM driver's
 * name. The default path, when missing, sends the search to the v3d
 * DRM nodes: a Pi 4 or 5 has no /dev/qpu.
 */
static int qpu_dev_open_node(struct qpu_dev *dev, bool is_default)
{
	int ret = qpu_dev_probe_node(dev);

	if (ret == -ENOENT && is_default) {
		qpu_dev_reset(dev);
		ret = qpu_dev_open_v3d(dev, -1);
		if (ret == -ENOENT)
			return qpu_dev_none(QPU_DEFAULT_PATH, ret, true);
		return ret;
	}
	if (dev->fd < 0)
		return qpu_dev_none(dev->path, ret, false);
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
	else if (!strcmp(path, QPU_V3D_PATH))
		ret = qpu_dev_open_v3d_path(dev, NULL);
	else if (!strncmp(path, QPU_V3D_PREFIX, strlen(QPU_V3D_PREFIX)))
		ret = qpu_dev_open_v3d_path(dev, path + strlen(QPU_V3D_PREFIX));
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
