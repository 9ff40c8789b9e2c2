/* SPDX-License-Identifier: MIT */
/*
 * What the sample kernels' wrappers share: one launch of the same program on
 * several QPUs, each with its own uniforms, and the error message helper.
 */
#ifndef LIBQPU_KERNEL_H
#define LIBQPU_KERNEL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "qpu.h"
#include "qpu_kernels.h"
#include "qpu_vpm.h"

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
 * @timeout_ms: 0 for the device's longest (QPU_PARAM_MAX_TIMEOUT_MS)
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

/*
 * Submit @job (a timeout of 0 becomes the device's longest), wait for its
 * end and fill @stats' qpus, instructions and elapsed_ns. Returns 0, -EIO
 * if the job did not end well, or the errno of a failed submit or wait;
 * the message is set. For wrappers that build their own job.
 */
int qpu_kernel_submit(struct qpu_dev *dev, const char *name,
		      struct qpu_job_desc *job, struct qpu_kernel_stats *stats);

/*
 * The device's copy of @code, uploaded at the first call (kernels/cache.c);
 * owned by the device: do not free. NULL with errno set on failure.
 */
struct qpu_bo *qpu_kernel_code_bo(struct qpu_dev *dev,
				  const struct qpu_kernel_code *code);

/*
 * The device's scratch buffer, at least @size bytes, contents undefined
 * (not zeroed); owned by the device and valid until the next call. NULL
 * with errno set on failure.
 */
struct qpu_bo *qpu_kernel_scratch(struct qpu_dev *dev, size_t size);

/* Set the thread's message ("<kernel>: <text>") and return -@err. */
int qpu_kernel_fail(int err, const char *kernel, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * 0 if the device has at least @qpus QPUs (and @qpus is not 0); else
 * -EINVAL and the message.
 */
int qpu_kernel_check_qpus(struct qpu_dev *dev, const char *kernel,
			  unsigned int qpus);

/* Clear the thread's message; wrappers call it first. */
void qpu_kernel_clear_error(void);

/*
 * 0 if @bo holds @size bytes from @offset and @offset is a multiple of
 * @align; else the message names @what and the function returns -EINVAL.
 */
int qpu_kernel_check_buf(const char *kernel, const char *what,
			 const struct qpu_bo *bo, size_t offset, size_t size,
			 size_t align);

/*
 * 0 if @v is a usable vector of exactly @len 32-bit elements (@len > 0, a
 * multiple of @multiple), word-aligned and inside its buffer; else
 * -EINVAL with the message naming @what.
 */
int qpu_kernel_check_vector(const char *kernel, const char *what,
			    const struct qpu_vector *v, size_t len,
			    size_t multiple);

/*
 * 0 if @img is a packed image of @bpp bytes a pixel, with a positive
 * multiple of @multiple pixels, word-aligned and inside its buffer; else
 * -EINVAL with the message naming @what.
 */
int qpu_kernel_check_image(const char *kernel, const char *what,
			   const struct qpu_image *img, unsigned int bpp,
			   size_t multiple);

/*
 * Program @k's share of @total work units over @qpus programs: @start and
 * @count, as even as can be (the first total % qpus get one more).
 */
static inline void qpu_kernel_split(size_t total, unsigned int qpus,
				    unsigned int k, size_t *start,
				    size_t *count)
{
	size_t base = total / qpus, extra = total % qpus;

	*start = k * base + (k < extra ? k : extra);
	*count = base + (k < extra);
}

/* The bus address of byte @offset of @bo. */
static inline uint32_t qpu_kernel_addr(const struct qpu_bo *bo, size_t offset)
{
	return qpu_bo_get_bus_addr(bo) + (uint32_t)offset;
}

/* A float uniform. */
static inline uint32_t qpu_unif_f(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

/*
 * Setup words for the VPM rows a wrapper gives a program (row k for
 * program k, or k * rows for several): a generic write of 32-bit rows from
 * @row with stride 1, and a VDW store of @units horizontal rows of @depth
 * words from column 0 of @row. Built by the core's qpu_vpm.h, as the
 * assembler builds them.
 */
static inline uint32_t qpu_kernel_vw_row(unsigned int row)
{
	return qpu_vpm_setup(0, 1, qpu_vpm_addr(true, false, QPU_VPM_SIZE_32,
						row, 0, 0));
}

static inline uint32_t qpu_kernel_vdw_rows(unsigned int units,
					   unsigned int depth,
					   unsigned int row)
{
	return qpu_vdw_setup0(units, depth,
			      qpu_vdw_dma(true, QPU_VPM_SIZE_32, row, 0, 0));
}

#endif /* LIBQPU_KERNEL_H */
