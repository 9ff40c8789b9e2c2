// SPDX-License-Identifier: MIT
/*
 * The post-processing calls' messages: the kernels' last error, or the
 * thread's qpu_last_error() for a CPU call made without kernels.
 */

#include <stdarg.h>
#include <stdio.h>

#include "postproc.h"
#include "runtime/runtime.h"

int qpu_postproc_fail(struct qpu_kernels *kernels, int err, const char *kernel,
		      const char *fmt, ...)
{
	char text[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (kernels)
		return qpu_kernel_fail(kernels, err, kernel, "%s", text);
	return qpu_fail(-err, "%s: %s", kernel, text);
}

void qpu_postproc_clear(struct qpu_kernels *kernels)
{
	if (kernels)
		qpu_kernel_clear_error(kernels);
}
