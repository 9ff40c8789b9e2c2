/* SPDX-License-Identifier: MIT */
/*
 * libqpu: the public interface.
 *
 * Conventions for every function below:
 * - a function returning a pointer returns NULL and sets errno on failure;
 * - a function returning int returns 0 on success or a negative errno value,
 *   and leaves errno alone;
 * - destructors (_close, _free) accept NULL;
 * - objects are not thread-safe unless their section says so: share one
 *   between threads only with your own locking.
 */
#ifndef QPU_H
#define QPU_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define QPU_API __attribute__((visibility("default")))

/**
 * qpu_version() - the library's version
 *
 * Return: a static string such as "0.1.0"; do not free it.
 */
QPU_API const char *qpu_version(void);

/**
 * struct qpu_dev - an open qpu device (opaque).
 */
struct qpu_dev;

/**
 * qpu_dev_open() - open a qpu device node
 * @path: the node, or NULL for $QPU_DEVICE, or /dev/qpu when that is unset
 *
 * Return: a device the caller closes with qpu_dev_close(), or NULL with
 * errno set (ENOENT: no such node, is qpu.ko loaded?; ENOTTY: the node is
 * not a qpu device).
 */
QPU_API struct qpu_dev *qpu_dev_open(const char *path);

/**
 * qpu_dev_close() - close a device
 * @dev: the device, or NULL
 */
QPU_API void qpu_dev_close(struct qpu_dev *dev);

/**
 * qpu_dev_get_path() - the path the device was opened with
 * @dev: the device
 *
 * Return: a string owned by @dev, valid until qpu_dev_close().
 */
QPU_API const char *qpu_dev_get_path(const struct qpu_dev *dev);

/**
 * qpu_dev_get_param() - query one QPU_PARAM_* value (see <linux/qpu.h>)
 * @dev: the device
 * @param: an enum qpu_param value
 * @value: where the value goes; untouched on failure
 *
 * Return: 0, or -EINVAL for a parameter the kernel does not know.
 */
QPU_API int qpu_dev_get_param(struct qpu_dev *dev, uint32_t param,
			      uint64_t *value);

#ifdef __cplusplus
}
#endif

#endif /* QPU_H */
