/* SPDX-License-Identifier: MIT */
/*
 * What the sample kernels' wrappers share: one launch of the same program on
 * several QPUs, each with its own uniforms, and the error message helper.
 */
#ifndef LIBQPU_KERNEL_H
#define LIBQPU_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "qpu.h"
#include "qpu_kernels.h"

/*
 * One program as qpu-as -f c writes it: little-endian 32-bit halves, two per
 * instruction.
 */
struct qpu_kernel_code {
	const char *name;
	const uint32_t *halves;
	size_t size;		/* bytes */
};

#define QPU_KERNEL_CODE(kname, array) \
	{ .name = (kname), .halves = (array), .size = sizeof(array) }

/**
 * struct qpu_kernel_launch - one job of a sample kernel
 * @code: the program, the same on every QPU
 * @qpus: programs to start (1 to the device's QPU count)
 * @uniforms: @qpus * @uniforms_per_qpu words, QPU by QPU
 * @uniforms_per_qpu: words each program reads
 * @bos: the job's operand buffers (code and uniforms are added)
 * @bo_count: entries in @bos
 * @timeout_ms: 0 for the device's default
 */
struct qpu_kernel_launch {
	const struct qpu_kernel_code *code;
	unsigned int qpus;
	const uint32_t *uniforms;
	unsigned int uniforms_per_qpu;
	struct qpu_bo *const *bos;
	unsigned int bo_count;
	unsigned int timeout_ms;
};

/*
 * Run @l to completion. Fills @stats' qpus, instructions and elapsed_ns (the
 * caller adds its byte counts). Returns 0, -EINVAL for a bad launch (more
 * QPUs than the device has...), -EIO if the job did not end well, or the
 * errno of a failed buffer, submit or wait call; the message is set.
 */
int qpu_kernel_run(struct qpu_dev *dev, const struct qpu_kernel_launch *l,
		   struct qpu_kernel_stats *stats);

/* Set the thread's message ("<kernel>: <text>") and return -@err. */
int qpu_kernel_fail(int err, const char *kernel, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Clear the thread's message; wrappers call it first. */
void qpu_kernel_clear_error(void);

/*
 * 0 if @bo holds @size bytes from @offset and @offset is a multiple of
 * @align; else the message names @what and the function returns -EINVAL.
 */
int qpu_kernel_check_buf(const char *kernel, const char *what,
			 const struct qpu_bo *bo, size_t offset, size_t size,
			 size_t align);

#endif /* LIBQPU_KERNEL_H */
