/* SPDX-License-Identifier: MIT */
/*
 * libqpu sample kernels: tuned QPU programs with host wrappers.
 *
 * Every wrapper takes the device, buffer objects holding its operands, the
 * shape and an optional struct qpu_kernel_stats. It checks everything it can
 * before submitting (sizes, alignment, buffers large enough for the shape,
 * the QPU count against the device) and returns 0 or a negative errno; on an
 * error qpu_kernel_last_error() says what was wrong in one line. Wrappers
 * block until the job ends; a job that faults or times out returns -EIO with
 * the job's status in the message.
 *
 * The programs are libqpu/kernels/<name>.qasm, assembled at build time.
 */
#ifndef QPU_KERNELS_H
#define QPU_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "qpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct qpu_kernel_stats - what one wrapper call did
 * @qpus: QPUs the job ran on
 * @instructions: QPU instructions issued by all programs of the job, when
 *	@instructions_known (the device counts them); 0 otherwise
 * @instructions_known: 1 if @instructions is a count, 0 if unknown
 * @tmu_bytes: bytes the programs fetch through the TMUs
 * @dma_load_bytes: bytes read by VCD DMA loads (memory to VPM)
 * @dma_store_bytes: bytes written by VCD DMA stores (VPM to memory)
 * @elapsed_ns: submit to completion, wall-clock nanoseconds
 *
 * The byte counts follow from the kernel's access pattern and the shape: the
 * wrapper computes them, the tests check them against the emulator's own
 * counters.
 */
struct qpu_kernel_stats {
	unsigned int qpus;
	int instructions_known;
	uint64_t instructions;
	uint64_t tmu_bytes;
	uint64_t dma_load_bytes;
	uint64_t dma_store_bytes;
	uint64_t elapsed_ns;
};

/**
 * qpu_kernel_last_error() - why the calling thread's last wrapper call failed
 *
 * Return: a message such as "sgemm: B has 362 rows, A has 363 columns", or
 * "" if the thread's last call succeeded. Valid until the thread's next
 * wrapper call.
 */
QPU_API const char *qpu_kernel_last_error(void);

/**
 * struct qpu_matrix - a row-major matrix of 32-bit elements inside a buffer
 * @bo: the buffer
 * @offset: bytes from the buffer's start to element (0, 0)
 * @rows: number of rows
 * @cols: number of columns
 * @stride: elements from the start of one row to the start of the next
 *	(at least @cols)
 */
struct qpu_matrix {
	struct qpu_bo *bo;
	size_t offset;
	size_t rows;
	size_t cols;
	size_t stride;
};

/* --- kernels: one section each, below ------------------------------------ */

/**
 * qpu_sgemm() - C = alpha * A * B + beta * C in single precision
 * @dev: the device
 * @qpus: QPUs to spread the work over (1 to the device's count; 12 is best)
 * @alpha: scale of the product
 * @a: M x K
 * @b: K x N
 * @beta: scale of C's old contents (0: C is only written)
 * @c: M x N, read when @beta is not 0, written
 * @stats: what the job did, or NULL
 *
 * Return: 0, -EINVAL for shapes that do not agree, misaligned matrices or
 * buffers too small (see qpu_kernel_last_error()), -EIO if the job failed.
 */
QPU_API int qpu_sgemm(struct qpu_dev *dev, unsigned int qpus, float alpha,
		      const struct qpu_matrix *a, const struct qpu_matrix *b,
		      float beta, const struct qpu_matrix *c,
		      struct qpu_kernel_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* QPU_KERNELS_H */
