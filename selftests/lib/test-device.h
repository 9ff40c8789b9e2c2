/* SPDX-License-Identifier: MIT */
/*
 * The device a library test runs on: "emu" unless --device names another
 * (the VM's runs name qpu.ko's node), opened once before the cases and
 * closed after them (T_MAIN's setup and teardown).
 */
#ifndef QPU_TEST_DEVICE_H
#define QPU_TEST_DEVICE_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "qpu.h"
#include "testlib.h"

static const char *device_path = "emu";
static struct qpu_dev *device;

static const struct t_option device_options[] = {
	{ "device", &device_path, "DEVICE" },
	{ NULL, NULL, NULL },
};

static inline int t_device_open(void)
{
	device = qpu_dev_open(device_path);
	if (!device) {
		fprintf(stderr, "qpu_dev_open(%s): %s\n", device_path, strerror(errno));
		return T_EXIT_FAIL;
	}
	printf("device: %s (%s)\n", qpu_dev_get_path(device), qpu_dev_describe(device));
	return T_EXIT_PASS;
}

static inline void t_device_close(void)
{
	qpu_dev_close(device);
}

#endif /* QPU_TEST_DEVICE_H */
