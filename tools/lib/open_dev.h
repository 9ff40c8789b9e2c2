/* SPDX-License-Identifier: MIT */
/*
 * open_dev() for the tools (open_dev.c): every tool opens its device by the
 * same rule (the path given, else $QPU_DEVICE, else /dev/qpu: that of
 * qpu_dev_open()) and fails with the same words (qpu_dev_open_hint()).
 */
#ifndef QPU_TOOLS_OPEN_DEV_H
#define QPU_TOOLS_OPEN_DEV_H

struct qpu_dev;

/*
 * The device at @path (NULL: $QPU_DEVICE, else /dev/qpu), or exit 1 after
 * "NAME: PATH: error" and the advice of qpu_dev_open_hint() on stderr.
 */
struct qpu_dev *open_dev(const char *path);

/* The device a NULL path opens, for messages: $QPU_DEVICE or /dev/qpu. */
const char *default_dev_path(void);

#endif /* QPU_TOOLS_OPEN_DEV_H */
