/* SPDX-License-Identifier: MIT */
/*
 * What every example does with its command line: "NAME [DEVICE]", the
 * device by the rule of every entry point (DEVICE, else $QPU_DEVICE, else
 * /dev/qpu; "emu" is the emulator in the process), -h/--help, and
 * libqpu's advice when no device opens (qpu_dev_open_hint()).
 */
#ifndef QPU_EXAMPLE_H
#define QPU_EXAMPLE_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qpu.h"

/* The open device, or NULL after saying why; exits on -h or a bad option. */
static inline struct qpu_dev *example_open(int argc, char **argv, const char *what)
{
	const char *path = argc > 1 ? argv[1] : NULL;
	struct qpu_dev *dev;
	const char *hint;

	if (path && (!strcmp(path, "-h") || !strcmp(path, "--help"))) {
		printf("Usage: %s [DEVICE]\n%s\n\nDEVICE: /dev/qpu (qpu.ko), or emu for the "
		       "emulator in this process;\ndefault $QPU_DEVICE, else /dev/qpu.\n",
		       argv[0], what);
		exit(0);
	}
	if (argc > 2 || (path && path[0] == '-')) {
		fprintf(stderr, "Usage: %s [DEVICE]  (%s --help says more)\n", argv[0], argv[0]);
		exit(2);
	}
	dev = qpu_dev_open(path);
	if (!dev) {
		int err = errno;

		hint = qpu_dev_open_hint(err);
		errno = err;
		fprintf(stderr, "%s: %s: %s\n", argv[0], path ? path :
			getenv("QPU_DEVICE") ? getenv("QPU_DEVICE") : "/dev/qpu", strerror(errno));
		if (hint)
			fprintf(stderr, "%s\n", hint);
	}
	return dev;
}

/* The QPUs @dev has (QPU_DEV_PARAM_NUM_QPUS: 12 on a Pi 1-3 and 5, 8 on a Pi 4). */
static inline unsigned int example_qpus(struct qpu_dev *dev)
{
	uint64_t qpus;

	return qpu_dev_get_param(dev, QPU_DEV_PARAM_NUM_QPUS, &qpus) ? 1 : (unsigned int)qpus;
}

#endif /* QPU_EXAMPLE_H */
