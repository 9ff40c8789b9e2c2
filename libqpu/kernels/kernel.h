/* SPDX-License-Identifier: MIT */
/*
 * What the sample kernels' wrappers share: one launch of the same program on
 * several QPUs, each with its own uniforms, the error message helper, and
 * the whole wrapper of the streaming kernels.
 */
#ifndef LIBQPU_KERNEL_H
#define LIBQPU_KERNEL_H

#include <stdbool.h>
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
	/* the same kernel for V3D 4.2 and 7.1 (libqpu/kernels/v3d/), or NULL */
	const struct qpu_kernel_code *v3d42, *v3d71;
	/* V3D: pieces a non-empty program reads twice (streaming kernels) */
	unsigned int reread;
	/*
	 * V3D streaming kernels: where the first TMU-read operand starts on a
	 * 16-byte boundary, the program's lookups fetch @fetch_num bytes of it
	 * for every @fetch_den it converts (whole 16-byte blocks a lane; see
	 * v3d/gen42/gray.qasm); 0: its bytes once
	 */
	unsigned int fetch_num, fetch_den;
};

#define QPU_KERNEL_CODE(kname, array) \
	{ .name = (kname), .halves = (array), .size = sizeof(array) }

/*
 * A kernel with V3D programs too: libqpu/kernels/v3d/<v3d>.qasm assembled
 * for each generation into <v3d>_v3d42_code and <v3d>_v3d71_code, which
 * read @again pieces twice.
 */
#define QPU_KERNEL_V3D_CODE(kname, array, again) {			\
	.name = (kname), .halves = (array), .size = sizeof(array),	\
	.reread = (again) }
#define QPU_KERNEL_CODE_V3D(kname, array, v3d, again) {			\
	.name = (kname), .halves = (array), .size = sizeof(array),		\
	.v3d42 = &(const struct qpu_kernel_code)				\
		QPU_KERNEL_V3D_CODE(kname, v3d##_v3d42_code, again),		\
	.v3d71 = &(const struct qpu_kernel_code)				\
		QPU_KERNEL_V3D_CODE(kname, v3d##_v3d71_code, again),		\
}

/* More than the library has kernels: a full cache is a bug. */
#define QPU_KERNELS_MAX_CODES	24

/*
 * struct qpu_kernels - the sample kernels on one device (cache.c)
 * @dev: the device, the caller's: it outlives this object
 * @gen: the device's generation, which picks the programs
 * @scratch: uniforms and sgemm's operands, as large as the largest call
 *	so far needed; NULL before the first call
 * @ncodes: entries used in @codes
 * @codes: each kernel's code, uploaded at its first call
 * @last_error: the last wrapper call's message, "" after a success
 * @timeout_ms: the jobs' timeout (qpu_kernels_set_timeout()), 0 for the
 *	device's longest
 * @work: a wrapper's own device buffer for its operands (qpu_nms()'s
 *	records and mask), kept between calls as @scratch is; NULL before
 * @host: a wrapper's host memory, kept between calls; @host_bytes its size
 * @in_fence: with @has_in_fence, the fence the next job waits for on the
 *	device (libqpu/nn's first QPU node); the caller's fd, used once;
 *	@in_fence_bo, the buffer it guards, which a wrapper reading it on the
 *	host waits for on the CPU instead (qpu_kernel_host_read())
 * @submit_only: the next job is submitted, not waited for; its out-fence
 *	goes to @out_fence (qpu_preprocess_submit())
 * @pending: a job submitted and not yet finished (qpu_kernels_finish());
 *	the scratch buffer holds its uniforms, so every other call refuses
 *	with -EBUSY until then; @pending_* say what to finish
 */
struct qpu_kernels {
	struct qpu_dev *dev;
	enum qpu_gen gen;	/* the device's (QPU_DEV_PARAM_GEN) */
	struct qpu_bo *scratch;
	unsigned int ncodes;
	struct {
		const struct qpu_kernel_code *code;
		struct qpu_bo *bo;
	} codes[QPU_KERNELS_MAX_CODES];
	char last_error[256];
	struct qpu_job_timing timing;	/* summed until qpu_kernels_take_timing() */
	bool timing_known;
	unsigned int timeout_ms;
	struct qpu_bo *work;
	void *host;
	size_t host_bytes;
	bool has_in_fence;
	int in_fence;
	const struct qpu_bo *in_fence_bo;
	bool submit_only;
	int *out_fence;
	bool pending;
	const char *pending_name;
	uint64_t pending_seqno, pending_start;
	struct qpu_kernel_stats pending_stats;
};

/**
 * struct qpu_kernel_launch - one job of a sample kernel
 * @code: the program, the same on every QPU
 * @qpus: programs to start (1 to the device's QPU count)
 * @uniforms: @qpus * @uniforms_per_qpu words, QPU by QPU
 * @uniforms_per_qpu: words each program reads
 * @bos: the job's operand buffers (code and uniforms are added)
 * @bo_count: entries in @bos
 * @timeout_ms: 0 for the device's longest (QPU_DEV_PARAM_MAX_TIMEOUT_MS)
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
int qpu_kernel_run(struct qpu_kernels *kernels, const struct qpu_kernel_launch *l,
		   struct qpu_kernel_stats *stats);

/*
 * The V3D side (launch_v3d.c, "DOC: V3D launch"): @code's program for
 * @kernels's generation (NULL: none); @l run as a compute dispatch; a
 * dispatch of @programs workgroups of @code (already the generation's)
 * reading @uniforms, for wrappers that build their own uniforms.
 */
const struct qpu_kernel_code *qpu_kernel_code_of(const struct qpu_kernels *kernels,
						 const struct qpu_kernel_code *code);
int qpu_kernel_run_v3d(struct qpu_kernels *kernels, const struct qpu_kernel_launch *l,
		       struct qpu_kernel_stats *stats);
int qpu_kernel_dispatch_v3d(struct qpu_kernels *kernels, const struct qpu_kernel_code *code,
			    unsigned int programs, struct qpu_bo *uniforms,
			    struct qpu_bo *const *bos, unsigned int bo_count,
			    struct qpu_kernel_stats *stats);

/* qpu_sgemm() on V3D, its arguments checked (sgemm_v3d.c). */
int qpu_sgemm_v3d(struct qpu_kernels *kernels, unsigned int qpus, float alpha,
		  const struct qpu_matrix *a, const struct qpu_matrix *b, float beta,
		  const struct qpu_matrix *c, struct qpu_kernel_stats *stats);

/*
 * Submit @job (a timeout of 0 becomes the device's longest), wait for its
 * end and fill @stats' qpus, instructions and elapsed_ns. Returns 0, -EIO
 * if the job did not end well, or the errno of a failed submit or wait;
 * the message is set. For wrappers that build their own job. With
 * @kernels->submit_only it returns after the submit, the job pending
 * (qpu_kernels_finish() ends it); with @kernels->has_in_fence the job
 * waits for that fence first.
 */
int qpu_kernel_submit(struct qpu_kernels *kernels, const char *name,
		      struct qpu_job_desc *job, struct qpu_kernel_stats *stats);

/*
 * A wrapper about to read @bo on the host (sgemm packing an operand): when
 * @bo is what the pending in-fence guards, wait for it here (the job then
 * needs it no more). Returns 0, or -ECANCELED with the message when the
 * fence's job did not end well.
 */
int qpu_kernel_host_read(struct qpu_kernels *kernels, const char *name,
			 const struct qpu_bo *bo);

/*
 * @kernels's copy of @code on its device, uploaded at the first call (cache.c);
 * owned by @kernels: do not free. NULL with errno set on failure.
 */
struct qpu_bo *qpu_kernel_code_bo(struct qpu_kernels *kernels,
				  const struct qpu_kernel_code *code);

/*
 * @kernels's scratch buffer, at least @size bytes, contents undefined
 * (not zeroed); owned by @kernels and valid until the next call. NULL
 * with errno set on failure.
 */
struct qpu_bo *qpu_kernel_scratch(struct qpu_kernels *kernels, size_t size);

/*
 * @kernels's work buffer (a device buffer apart from the scratch one, which
 * holds the uniforms), at least @size bytes, contents undefined; and its
 * host memory, at least @size bytes. Owned by @kernels, valid until the
 * next call. NULL with errno set on failure.
 */
struct qpu_bo *qpu_kernel_work(struct qpu_kernels *kernels, size_t size);
void *qpu_kernel_host(struct qpu_kernels *kernels, size_t size);

/* Set @kernels's message ("<kernel>: <text>"; none if @kernels is NULL) and return -@err. */
int qpu_kernel_fail(struct qpu_kernels *kernels, int err, const char *kernel, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * 0 if the device has at least @qpus QPUs (and @qpus is not 0); else
 * -EINVAL and the message.
 */
int qpu_kernel_check_qpus(struct qpu_kernels *kernels, const char *kernel,
			  unsigned int qpus);

/* Clear @kernels's message; wrappers call it first. */
void qpu_kernel_clear_error(struct qpu_kernels *kernels);

/*
 * 0 if @bo holds @size bytes from @offset and @offset is a multiple of
 * @align; else the message names @what and the function returns -EINVAL.
 */
int qpu_kernel_check_buf(struct qpu_kernels *kernels, const char *kernel, const char *what,
			 const struct qpu_bo *bo, size_t offset, size_t size,
			 size_t align);

/*
 * 0 if @v is a usable vector of exactly @len 32-bit elements (@len > 0, a
 * multiple of @multiple), word-aligned and inside its buffer; else
 * -EINVAL with the message naming @what.
 */
int qpu_kernel_check_vector(struct qpu_kernels *kernels, const char *kernel, const char *what,
			    const struct qpu_vector *v, size_t len,
			    size_t multiple);

/*
 * 0 if @img is a packed image of @bpp bytes a pixel, with a positive
 * multiple of @multiple pixels, word-aligned and inside its buffer; else
 * -EINVAL with the message naming @what.
 */
int qpu_kernel_check_image(struct qpu_kernels *kernels, const char *kernel, const char *what,
			   const struct qpu_image *img, unsigned int bpp,
			   size_t multiple);

/*
 * DOC: streaming kernels
 * vecadd, saxpy, gray and threshold share one shape: every operand is a
 * run of equal pieces (16 floats of a vector, 64 pixels of an image),
 * program k gets a run of consecutive pieces, reads its inputs through the
 * TMUs and stores its outputs through its own VPM rows, several rows per
 * VCD DMA store. struct qpu_kernel_stream describes one such call and
 * qpu_kernel_stream_run() checks, splits, fills the uniforms and launches.
 *
 * Every program reads, in this order: one bus address per operand (of the
 * program's first piece), the number of pieces (0 allowed), the vw_setup
 * word of its first VPM row, the VDW setup word storing from that row with
 * UNITS 0 (the program adds rows << 23 per store), the rows per store
 * (its batch), then the kernel's own constants, the same for every
 * program. stream.qinc holds the loop this layout serves.
 *
 * Program k owns VPM rows k * batch .. k * batch + batch - 1, batch being
 * 8 (512 bytes a store) up to 8 programs, else what the 64 rows a generic
 * write reaches allow: 7 for 9 programs... 5 (320 bytes) for 12. Every
 * store but a program's last takes a whole batch; the last takes what is
 * left, so any number of pieces works.
 */

/* What a program does with an operand; both for saxpy's y. */
#define QPU_KERNEL_TMU_READ	1u	/* read through the TMUs */
#define QPU_KERNEL_DMA_STORE	2u	/* written by VCD DMA stores */

/**
 * struct qpu_kernel_operand - one vector or image of a streaming kernel
 * @name: for messages ("a", "rgb")
 * @vector: the operand, for vector kernels; or
 * @image: the operand, for pixel kernels (packed rows)
 * @bpp: images: bytes a pixel; 0 for vectors
 * @access: QPU_KERNEL_TMU_READ and/or QPU_KERNEL_DMA_STORE
 */
struct qpu_kernel_operand {
	const char *name;
	const struct qpu_vector *vector;
	const struct qpu_image *image;
	unsigned int bpp;
	unsigned int access;
};

#define QPU_KERNEL_STREAM_MAX_OPS	4

/**
 * struct qpu_kernel_stream - one call of a streaming kernel
 * @code: the program
 * @piece: elements (vectors) or pixels (images) a piece: one VPM row of
 *	output; lengths must be a positive multiple of it
 * @ops: the operands, all of the first one's length (or size); vectors
 *	or images (@bpp not 0), not both
 * @op_count: entries in @ops (1 to QPU_KERNEL_STREAM_MAX_OPS)
 * @consts: uniforms after the common ones, the same for every program
 * @const_count: entries in @consts
 */
struct qpu_kernel_stream {
	const struct qpu_kernel_code *code;
	size_t piece;
	const struct qpu_kernel_operand *ops;
	unsigned int op_count;
	const uint32_t *consts;
	unsigned int const_count;
};

/*
 * Check @s's operands and @qpus, split the pieces over @qpus programs, fill
 * their uniforms (see "DOC: streaming kernels") and run the job. Fills all
 * of @stats, the byte counts from the operands' accesses. Returns 0,
 * -EINVAL with the message for bad operands, or qpu_kernel_run()'s errors.
 */
int qpu_kernel_stream_run(struct qpu_kernels *kernels, unsigned int qpus,
			  const struct qpu_kernel_stream *s,
			  struct qpu_kernel_stats *stats);

/*
 * The most rows one VCD DMA store of a streaming kernel takes (512 bytes);
 * the programs of a job share out the QPU_VPM_ROWS a generic access
 * reaches.
 */
#define QPU_KERNEL_MAX_BATCH	8

/*
 * The VPM rows each of @qpus programs of a streaming kernel owns, its
 * rows per store: as many as fit, at most QPU_KERNEL_MAX_BATCH; 0 if not
 * even one fits.
 */
static inline unsigned int qpu_kernel_batch_rows(unsigned int qpus)
{
	unsigned int rows = QPU_VPM_ROWS / qpus;

	return rows < QPU_KERNEL_MAX_BATCH ? rows : QPU_KERNEL_MAX_BATCH;
}

/*
 * Program @kernels's share of @total work units over @qpus programs: @start and
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
 * words from column 0 of @row (@units 0 leaves the field for a program that
 * adds its row count, see "DOC: streaming kernels"). Built by the core's
 * qpu_vpm.h, as the assembler builds them.
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
