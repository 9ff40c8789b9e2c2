// SPDX-License-Identifier: MIT
/*
 * The one place libqpu talks to qpu.ko: each wrapper fills the kernel's
 * struct, makes the call through qpu_ioctl() and returns 0 or -errno.
 */

#include <errno.h>
#include <sys/ioctl.h>

#include <linux/qpu.h>

#include "internal.h"

/* Retries calls a signal interrupted; returns 0 or -errno. */
static int qpu_ioctl(int fd, unsigned long request, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, request, arg);
	} while (ret == -1 && errno == EINTR);

	if (ret == -1)
		return -errno;
	return ret ? -EPROTO : 0;
}

int qpu_ioctl_get_param(int fd, uint32_t param, uint64_t *value)
{
	struct qpu_get_param args = { .param = param };
	int ret;

	ret = qpu_ioctl(fd, QPU_IOCTL_GET_PARAM, &args);
	if (!ret)
		*value = args.value;
	return ret;
}
