/* SPDX-License-Identifier: MIT */
/*
 * The device and struct qpu_kernels of a kernel test program (test-kernels,
 * test-sgemm, test-postproc): opened in its setup, freed in its teardown.
 */
#ifndef SELFTESTS_KERNELS_DEV_H
#define SELFTESTS_KERNELS_DEV_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "qpu.h"
#include "qpu_kernels.h"
#include "testlib.h"

/* The programs' one option, --device, into the string @path. */
#define T_KERNELS_OPTIONS(path)						\
	static const struct t_option options[] = {			\
		{ "device", &(path), "DEVICE" },			\
		{ NULL, NULL, NULL },					\
	}

/*
 * Open the device at @path into @dev (printing its name) and its kernels
 * into @kernels. Returns T_EXIT_PASS, or @no_device when the device does not open and
 * T_EXIT_FAIL when the kernels cannot be made (saying why on stderr).
 */
static inline int t_open_kernels(const char *path, int no_device, struct qpu_dev **dev,
				 struct qpu_kernels **kernels)
{
	*dev = qpu_dev_open(path);
	if (!*dev) {
		fprintf(stderr, "qpu_dev_open(%s): %s\n", path, strerror(errno));
		return no_device;
	}
	printf("device: %s (%s)\n", qpu_dev_get_path(*dev), qpu_dev_describe(*dev));
	*kernels = qpu_kernels_new(*dev);
	if (!*kernels) {
		fprintf(stderr, "qpu_kernels_new: %s\n", strerror(errno));
		qpu_dev_close(*dev);
		return T_EXIT_FAIL;
	}
	return T_EXIT_PASS;
}

/* Free what t_open_kernels() opened. */
static inline void t_close_kernels(struct qpu_dev *dev, struct qpu_kernels *kernels)
{
	qpu_kernels_free(kernels);
	qpu_dev_close(dev);
}

#endif /* SELFTESTS_KERNELS_DEV_H */
