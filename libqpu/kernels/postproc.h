/* SPDX-License-Identifier: MIT */
/*
 * What the post-processing calls (boxes.c, nms.c, ccl.c) share: their
 * message, which goes to the kernels' last error or, for the CPU calls
 * made without kernels, to the thread's qpu_last_error().
 */
#ifndef LIBQPU_POSTPROC_H
#define LIBQPU_POSTPROC_H

#include "kernel.h"

/*
 * "<kernel>: <text>" into @kernels's message, or qpu_last_error()'s when
 * @kernels is NULL; returns -@err.
 */
int qpu_postproc_fail(struct qpu_kernels *kernels, int err, const char *kernel,
		      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Clear @kernels's message, if any. */
void qpu_postproc_clear(struct qpu_kernels *kernels);

#endif /* LIBQPU_POSTPROC_H */
