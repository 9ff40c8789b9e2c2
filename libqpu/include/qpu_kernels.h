/* SPDX-License-Identifier: MIT */
/*
 * libqpu sample kernels: tuned QPU programs with host wrappers.
 *
 * The kernels of one device are a struct qpu_kernels, made with
 * qpu_kernels_new(): it keeps their code and scratch memory on the device
 * between calls, and the last call's error message. Every wrapper takes
 * it, buffer objects (of its device) holding the operands, the shape and an
 * optional struct qpu_kernel_stats. It checks everything it can before
 * submitting (sizes, alignment, buffers large enough for the shape, the QPU
 * count against the device) and returns 0 or a negative errno; on an error
 * qpu_kernels_last_error() says what was wrong in one line. Wrappers block
 * until the job ends; a job that faults or times out returns -EIO with the
 * job's status in the message. qpu_preprocess_submit() does not: it leaves
 * its job pending, with an out-fence, until qpu_kernels_finish().
 *
 * A struct qpu_kernels is not thread-safe: use one per thread (any number
 * may share a device, each keeping its own cache).
 *
 * The programs are libqpu/kernels/<name>.qasm, assembled at build time.
 * On a V3D 4.2/7.1 device (Pi 4, Pi 5: QPU_DEV_PARAM_GEN) the same calls
 * run libqpu/kernels/v3d/<name>.qasm as a compute dispatch, one program a
 * QPU; there the stores go through the TMU (the stats count them in
 * @tmu_bytes, none as DMA), floats round to nearest even, and
 * qpu_sgemm_16x64(), VideoCore IV's published schedule, returns -ENOTSUP
 * after checking its arguments.
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
 * @uniform_bytes: bytes the programs read as uniforms
 * @dma_load_bytes: bytes read by VCD DMA loads (memory to VPM)
 * @dma_store_bytes: bytes written by VCD DMA stores (VPM to memory)
 * @elapsed_ns: submit to completion, wall-clock nanoseconds
 * @counters_known: 1 if @counters holds the device's counts (the in-process
 *	emulator), 0 otherwise
 * @counters: the job's counters as the device measured them (see struct
 *	qpu_job_counters), when @counters_known
 *
 * The byte counts follow from the kernel's access pattern and the shape:
 * the wrapper computes them (a TMU fetch counts 4 bytes a lane), so they
 * are known on every device. Where the device measures them too, the two
 * agree (the library's tests check it for every kernel).
 */
struct qpu_kernel_stats {
	unsigned int qpus;
	int instructions_known;
	uint64_t instructions;
	uint64_t tmu_bytes;
	uint64_t uniform_bytes;
	uint64_t dma_load_bytes;
	uint64_t dma_store_bytes;
	uint64_t elapsed_ns;
	int counters_known;
	struct qpu_job_counters counters;
};

/**
 * struct qpu_kernels - the sample kernels on one device (opaque).
 */
struct qpu_kernels;

/**
 * qpu_kernels_new() - the sample kernels for a device
 * @dev: the device; it must outlive the object (free this first)
 *
 * Makes nothing on the device yet: the first call of each kernel uploads
 * its code there, and the wrappers keep one scratch buffer there
 * (uniforms, sgemm's packed operand), as large as the largest call so far
 * needed, so that later calls allocate nothing.
 *
 * Return: an object the caller frees with qpu_kernels_free(), or NULL with
 * errno set (EINVAL: @dev is NULL; ENOMEM).
 */
QPU_API struct qpu_kernels *qpu_kernels_new(struct qpu_dev *dev);

/**
 * qpu_kernels_free() - give back the kernels' buffers and the object
 * @kernels: the kernels, or NULL
 *
 * Call it before qpu_dev_close() of their device.
 */
QPU_API void qpu_kernels_free(struct qpu_kernels *kernels);

/**
 * qpu_kernels_get_dev() - the device the kernels run on
 * @kernels: the kernels
 *
 * Return: the device given to qpu_kernels_new(), still the caller's.
 */
QPU_API struct qpu_dev *qpu_kernels_get_dev(const struct qpu_kernels *kernels);

/**
 * qpu_kernels_last_error() - why the last wrapper call on @kernels failed
 * @kernels: the kernels
 *
 * Return: a message such as "sgemm: B has 362 rows, A has 363 columns", or
 * "" if the last call succeeded (or none was made). Owned by @kernels, valid
 * until its next wrapper call or qpu_kernels_free().
 */
QPU_API const char *qpu_kernels_last_error(const struct qpu_kernels *kernels);

/**
 * qpu_kernels_take_timing() - the modelled time of the kernels' jobs
 * @kernels: the kernels
 * @out: where the sum goes: cycles, times, bytes and stalls of every job
 *	the wrappers ran since qpu_kernels_new() or the last call, back to
 *	back, on the emulator device's board (qpu_dev_set_board())
 *
 * Starts the next sum at zero.
 *
 * Return: 0, or -ENODATA when no job since carried a modelled time (no
 * board set, or a device that is no emulator).
 */
QPU_API int qpu_kernels_take_timing(struct qpu_kernels *kernels,
				    struct qpu_job_timing *out);

/**
 * qpu_kernels_drop_cache() - free what the kernels keep on their device now
 * @kernels: the kernels, or NULL
 *
 * Frees the uploaded code and the scratch buffer (qpu_kernels_free() does
 * too); the next call starts again. Call it only when no wrapper call is
 * running on @kernels.
 */
QPU_API void qpu_kernels_drop_cache(struct qpu_kernels *kernels);

/**
 * qpu_kernels_set_timeout() - the timeout of the wrappers' jobs
 * @kernels: the kernels
 * @timeout_ms: each job's &qpu_job_desc.timeout_ms from now on; 0 (the
 *	default) for the device's longest (QPU_DEV_PARAM_MAX_TIMEOUT_MS),
 *	as a large input on the emulator may need it. A pipeline stage sets
 *	its own budget here, so a hang costs that, not the longest.
 *
 * Return: 0, or -EINVAL for NULL kernels.
 *
 * New in libqpu 0.7.
 */
QPU_API int qpu_kernels_set_timeout(struct qpu_kernels *kernels, unsigned int timeout_ms);

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

/**
 * struct qpu_vector - a vector of 32-bit elements (floats) inside a buffer
 * @bo: the buffer
 * @offset: bytes from the buffer's start to element 0, a multiple of 4
 * @length: number of elements
 */
struct qpu_vector {
	struct qpu_bo *bo;
	size_t offset;
	size_t length;
};

/**
 * struct qpu_image - an image of bytes inside a buffer
 * @bo: the buffer
 * @offset: bytes from the buffer's start to the first pixel, a multiple
 *	of 4
 * @width: pixels per row
 * @height: rows
 * @stride: bytes from the start of one row to the start of the next
 *
 * The pixel kernels (grayscale, threshold) treat the image as one run of
 * pixels: its rows must be packed (@stride = @width * bytes per pixel).
 */
struct qpu_image {
	struct qpu_bo *bo;
	size_t offset;
	unsigned int width;
	unsigned int height;
	size_t stride;
};

/* --- kernels: one section each, below ------------------------------------ */

/* Vector kernels: every one spreads the vector over @qpus programs. */

/**
 * qpu_vector_add() - c = a + b, element by element, in single precision
 * @kernels: the kernels of the device to run on
 * @qpus: QPUs to spread the work over (1 to the device's count)
 * @a: the first operand
 * @b: the second operand, as long as @a
 * @c: the result, as long as @a (it may be @a or @b)
 * @stats: what the job did, or NULL
 *
 * The length must be a positive multiple of 16. The sums are the QPU's:
 * rounded toward zero, denormals flushed to zero.
 *
 * Return: 0, -EINVAL for bad vectors (see qpu_kernels_last_error()), -EIO
 * if the job failed.
 */
QPU_API int qpu_vector_add(struct qpu_kernels *kernels, unsigned int qpus,
			   const struct qpu_vector *a,
			   const struct qpu_vector *b,
			   const struct qpu_vector *c,
			   struct qpu_kernel_stats *stats);

/**
 * qpu_saxpy() - y = alpha * x + y, element by element, in single precision
 * @kernels: the kernels of the device to run on
 * @qpus: QPUs to spread the work over (1 to the device's count)
 * @alpha: the scale of @x
 * @x: the vector scaled
 * @y: the vector added to, as long as @x, overwritten by the result
 * @stats: what the job did, or NULL
 *
 * The length must be a positive multiple of 16. The product and the sum
 * are rounded separately (no fused multiply-add), toward zero.
 *
 * Return: 0, -EINVAL for bad vectors, -EIO if the job failed.
 */
QPU_API int qpu_saxpy(struct qpu_kernels *kernels, unsigned int qpus, float alpha,
		      const struct qpu_vector *x, const struct qpu_vector *y,
		      struct qpu_kernel_stats *stats);

/**
 * struct qpu_reduce_result - what qpu_reduce() found
 * @sum: the sum of the elements
 * @min: the smallest element
 * @max: the largest element
 */
struct qpu_reduce_result {
	float sum;
	float min;
	float max;
};

/**
 * qpu_reduce() - sum, minimum and maximum of a float vector, in one pass
 * @kernels: the kernels of the device to run on
 * @qpus: QPUs to spread the work over (1 to the device's count)
 * @x: the vector; its length a positive multiple of 16
 * @result: where the three results go
 * @stats: what the job did, or NULL
 *
 * Every QPU folds its part; the first gathers the others' partials through
 * the VPM, synchronised by semaphore 0 (which the job leaves as it found
 * it). The sum is added in another order than a loop on the CPU would, and
 * rounded toward zero: expect it within (length - 1) units in the last
 * place of the sum of the magnitudes. @min and @max are exact.
 *
 * Return: 0, -EINVAL for a bad vector, -EIO if the job failed.
 */
QPU_API int qpu_reduce(struct qpu_kernels *kernels, unsigned int qpus,
		       const struct qpu_vector *x,
		       struct qpu_reduce_result *result,
		       struct qpu_kernel_stats *stats);

/* Pixel kernels: packed 8-bit images, a positive multiple of 64 pixels. */

/**
 * qpu_rgb_to_gray() - RGB to 8-bit grayscale, BT.601 luma
 * @kernels: the kernels of the device to run on
 * @qpus: QPUs to spread the work over (1 to the device's count)
 * @rgb: the input, 3 bytes a pixel (R, G, B), stride = width * 3
 * @gray: the output, 1 byte a pixel, stride = width, the size of @rgb
 * @stats: what the job did, or NULL
 *
 * gray = (77 R + 150 G + 29 B + 128) >> 8 exactly, for every pixel.
 *
 * Return: 0, -EINVAL for bad images, -EIO if the job failed.
 */
QPU_API int qpu_rgb_to_gray(struct qpu_kernels *kernels, unsigned int qpus,
			    const struct qpu_image *rgb,
			    const struct qpu_image *gray,
			    struct qpu_kernel_stats *stats);

/**
 * qpu_threshold() - binary threshold of an 8-bit image
 * @kernels: the kernels of the device to run on
 * @qpus: QPUs to spread the work over (1 to the device's count)
 * @in: the input, 1 byte a pixel, stride = width
 * @out: the output, the size of @in (it may be @in)
 * @t: the threshold
 * @maxval: the value of pixels above @t
 * @stats: what the job did, or NULL
 *
 * out = in > t ? maxval : 0 for every pixel (OpenCV's THRESH_BINARY).
 *
 * Return: 0, -EINVAL for bad images, -EIO if the job failed.
 */
QPU_API int qpu_threshold(struct qpu_kernels *kernels, unsigned int qpus,
			  const struct qpu_image *in,
			  const struct qpu_image *out, uint8_t t,
			  uint8_t maxval, struct qpu_kernel_stats *stats);

/**
 * struct qpu_yuv420 - an I420 frame (YUV 4:2:0, three 8-bit planes)
 * @bo: the buffer holding the three planes
 * @y_offset: bytes from the buffer's start to the Y plane (any alignment)
 * @u_offset: the same for the U (Cb) plane, width / 2 x height / 2
 * @v_offset: the same for the V (Cr) plane
 * @width: pixels per row, even
 * @height: rows, even
 * @y_stride: bytes between Y rows (at least @width)
 * @uv_stride: bytes between U rows and between V rows (at least @width / 2)
 */
struct qpu_yuv420 {
	struct qpu_bo *bo;
	size_t y_offset;
	size_t u_offset;
	size_t v_offset;
	unsigned int width;
	unsigned int height;
	size_t y_stride;
	size_t uv_stride;
};

/**
 * struct qpu_planar_rgb - three float planes R, G, B (a CHW tensor)
 * @bo: the buffer
 * @offset: bytes from the buffer's start to R's first value, a multiple
 *	of 4; G follows R and B follows G, width * height floats each
 * @width: values per row, a multiple of 16
 * @height: rows
 */
struct qpu_planar_rgb {
	struct qpu_bo *bo;
	size_t offset;
	unsigned int width;
	unsigned int height;
};

/**
 * qpu_yuv420_to_rgb() - camera frame to neural-network input, in one pass
 * @kernels: the kernels of the device to run on
 * @qpus: QPUs to spread the rows over (1 to the device's count)
 * @src: the frame, up to 4096 x 4096
 * @dst: the tensor, its size the size the frame is resized to (at most a
 *	255x reduction per side)
 * @mean: per channel (R, G, B), subtracted after scaling to [0, 1]
 * @std: per channel, divided by after subtracting @mean; not 0
 * @stats: what the job did, or NULL
 *
 * Output pixel (x, y) takes source pixel (x * step_x >> 16, y * step_y >>
 * 16), step = (source side << 16) / destination side (nearest neighbour),
 * with chroma from (sx / 2, sy / 2); full-range BT.601 (JPEG) conversion,
 * each channel clamped to [0, 255], then (c / 255 - mean) / std computed as
 * c * a + b with a = 1 / (255 std) and b = -mean / std in single
 * precision. The QPU rounds toward zero: each value is within a few units
 * in the last place of that formula evaluated exactly.
 *
 * Return: 0, -EINVAL for bad shapes, strides, buffers or normalisation,
 * -EIO if the job failed.
 */
QPU_API int qpu_yuv420_to_rgb(struct qpu_kernels *kernels, unsigned int qpus,
			      const struct qpu_yuv420 *src,
			      const struct qpu_planar_rgb *dst,
			      const float mean[3], const float std[3],
			      struct qpu_kernel_stats *stats);

/**
 * qpu_sgemm() - C = alpha * A * B + beta * C in single precision
 * @kernels: the kernels of the device to run on
 * @qpus: QPUs to spread the work over (1 to the device's count,
 *	QPU_DEV_PARAM_NUM_QPUS, which is best: 12 on a Pi 1-3 and 5, 8 on a Pi 4)
 * @alpha: scale of the product
 * @a: M x K
 * @b: K x N
 * @beta: scale of C's old contents (0: C is only written)
 * @c: M x N, read when @beta is not 0, written
 * @stats: what the job did, or NULL
 *
 * Any M, N, K from 1 to 2^20, strides (in elements) from the column count
 * to 2^20, offsets a multiple of 4 bytes; the matrices may share buffers,
 * but C must not overlap A or B. The wrapper packs alpha * A (or alpha *
 * B^T) on the CPU (M x K or K x N copies) into @kernels's scratch buffer
 * (see qpu_kernels_new()) and submits one job; products are rounded
 * toward zero as on the hardware.
 * Stats: the byte counts are exact; uniform_bytes counts the tile lists
 * and the packed panels the kernel reads as uniforms.
 *
 * Return: 0, -EINVAL for shapes that do not agree, misaligned matrices or
 * buffers too small (see qpu_kernels_last_error()), -EIO if the job failed.
 */
QPU_API int qpu_sgemm(struct qpu_kernels *kernels, unsigned int qpus, float alpha,
		      const struct qpu_matrix *a, const struct qpu_matrix *b,
		      float beta, const struct qpu_matrix *c,
		      struct qpu_kernel_stats *stats);

/**
 * qpu_sgemm_16x64() - C = A * B + beta * C with PyVideoCore's schedule
 * @kernels: the kernels of the device to run on
 * @qpus: QPUs to spread the work over (1 to the device's count)
 * @a: M x K, M a multiple of 16, K at least 3
 * @b: K x N, N a multiple of 64
 * @beta: scale of C's old contents (0: C is only written)
 * @c: M x N, read when @beta is not 0, written
 * @stats: what the job did, or NULL
 *
 * The 16x64 tiles, the per-k uniform pointer into B and the DMA through
 * the VPM of PyVideoCore's published sgemm example, kept as they are so
 * that the timing model can be checked against the figure published for
 * it (libqpu/kernels/sgemm16x64.qasm). It reads A and B in place, packs
 * nothing and is slower than qpu_sgemm(), which is the one to use. The
 * results are qpu_sgemm()'s to the bit for alpha = 1 (the same products
 * rounded toward zero, summed in the same order).
 *
 * Return: 0, -EINVAL for shapes it does not take (see
 * qpu_kernels_last_error()), -EIO if the job failed.
 */
QPU_API int qpu_sgemm_16x64(struct qpu_kernels *kernels, unsigned int qpus,
			    const struct qpu_matrix *a,
			    const struct qpu_matrix *b, float beta,
			    const struct qpu_matrix *c,
			    struct qpu_kernel_stats *stats);

/*
 * DOC: post-processing (box decoding, non-maximum suppression, components)
 * What follows a detector or a segmenter: its raw outputs decoded into
 * scored boxes (SSD's anchors, YOLO's grid) above a score threshold,
 * class-wise non-maximum suppression (NMS) of those boxes, and the
 * connected components of a thresholded mask. Every call takes the
 * kernels of a device for its messages (qpu_kernels_last_error()); the
 * functions ending in _cpu run on the CPU only, accept NULL there (the
 * message then goes to qpu_last_error()) and are the references the QPU
 * calls are tested against, and the fallback when no device is at hand.
 * qpu_nms() computes the overlap matrix on the QPUs and the greedy
 * suppression on the CPU; its result is qpu_nms_cpu()'s, to the index.
 * Box decoding and labelling run on the CPU (libqpu/kernels/postproc.md
 * says why).
 */

/**
 * struct qpu_detection - one scored box
 * @x1: left edge, in the units the decoder was asked for
 * @y1: top edge
 * @x2: right edge (boxes with @x2 <= @x1 or @y2 <= @y1 have no area)
 * @y2: bottom edge
 * @score: its class's score
 * @class_id: the class (the score's column in the model's output)
 * @index: the candidate it came from (SSD: the anchor; YOLO: (anchor *
 *	grid_h + gy) * grid_w + gx)
 */
struct qpu_detection {
	float x1, y1, x2, y2;
	float score;
	uint32_t class_id;
	uint32_t index;
};

/**
 * struct qpu_ssd_params - SSD box decoding (TensorFlow's box coder)
 * @anchors: candidates, 1 to QPU_DECODE_MAX_CANDIDATES
 * @classes: score columns a candidate, the background's included (at
 *	most 65536)
 * @first_class: the first column that is a class (1 skips a background
 *	column 0); below @classes
 * @scale: y, x, h, w: the box coder's scale factors (10, 10, 5, 5 for
 *	TensorFlow's SSDs; 1 / variance for Caffe's); not 0
 * @score_threshold: a class is kept when its score is above it
 * @width: output units across the image (anchors are normalized)
 * @height: output units down the image
 *
 * Anchor a is (cy, cx, h, w) and its regression (ty, tx, th, tw): the box
 * is centred at (cy + ty / scale_y * h, cx + tx / scale_x * w) with size
 * (h * exp(th / scale_h), w * exp(tw / scale_w)), in single precision,
 * scaled by @height and @width.
 */
struct qpu_ssd_params {
	unsigned int anchors;
	unsigned int classes;
	unsigned int first_class;
	float scale[4];
	float score_threshold;
	float width;
	float height;
};

/* The most candidates a decode call reads and an NMS call takes. */
#define QPU_DECODE_MAX_CANDIDATES	(1u << 20)
#define QPU_NMS_MAX_CANDIDATES		8192u

/**
 * qpu_decode_ssd_cpu() - SSD outputs to the detections above a threshold
 * @kernels: for the message, or NULL
 * @p: the decoding's parameters
 * @loc: anchors x 4 floats, (ty, tx, th, tw) each
 * @scores: anchors x classes floats, probabilities (softmax or sigmoid done)
 * @anchors: anchors x 4 floats, (cy, cx, h, w) each, normalized
 * @out: room for @max_out detections
 * @max_out: entries in @out
 * @count: set to the number of detections above the threshold
 *
 * Detections come anchor by anchor, classes in order within an anchor;
 * a NaN score is never above the threshold.
 *
 * Return: 0; -ENOSPC when more than @max_out passed (@out holds the first
 * @max_out, *@count says how many passed); -EINVAL for NULL pointers, bad
 * counts or a zero scale.
 */
QPU_API int qpu_decode_ssd_cpu(struct qpu_kernels *kernels, const struct qpu_ssd_params *p,
			       const float *loc, const float *scores, const float *anchors,
			       struct qpu_detection *out, size_t max_out, size_t *count);

/**
 * struct qpu_yolo_params - YOLO (v5's head) grid decoding
 * @grid_w: cells across, at least 1
 * @grid_h: cells down, at least 1
 * @anchors: anchors a cell, at least 1 (grid_w * grid_h * anchors at most
 *	QPU_DECODE_MAX_CANDIDATES)
 * @classes: classes, 1 to 65536
 * @stride: output units a cell
 * @score_threshold: a class is kept when objectness * class score is above it
 *
 * The head is the convolution's output, anchors * (5 + classes) channels
 * of grid_h x grid_w raw logits (NCHW): channel a * (5 + classes) + c
 * holds anchor a's tx, ty, tw, th, objectness, then the class logits. With
 * s(v) = 1 / (1 + exp(-v)): centre ((2 s(tx) - 0.5 + gx) * stride, (2 s(ty)
 * - 0.5 + gy) * stride), size ((2 s(tw))^2 * anchor_w, (2 s(th))^2 *
 * anchor_h), score s(obj) * s(class).
 */
struct qpu_yolo_params {
	unsigned int grid_w;
	unsigned int grid_h;
	unsigned int anchors;
	unsigned int classes;
	float stride;
	float score_threshold;
};

/**
 * qpu_decode_yolo_cpu() - a YOLO head to the detections above a threshold
 * @kernels: for the message, or NULL
 * @p: the decoding's parameters
 * @head: the head's anchors * (5 + classes) * grid_h * grid_w floats
 * @anchor_wh: anchors x 2 floats, each anchor's width and height in
 *	output units
 * @out: room for @max_out detections
 * @max_out: entries in @out
 * @count: set to the number of detections above the threshold
 *
 * Detections come anchor by anchor, then row by row, cell by cell, classes
 * in order; a NaN score is never above the threshold.
 *
 * Return: as qpu_decode_ssd_cpu().
 */
QPU_API int qpu_decode_yolo_cpu(struct qpu_kernels *kernels, const struct qpu_yolo_params *p,
				const float *head, const float *anchor_wh,
				struct qpu_detection *out, size_t max_out, size_t *count);

/**
 * struct qpu_nms_params - class-wise non-maximum suppression
 * @iou_threshold: in [0, 1]: a box is suppressed by a better box of its
 *	class whose intersection over union with it is above this, taken in
 *	steps of 1/256 (rounded to the nearest step)
 * @scale: grid steps a coordinate unit, above 0: the boxes are compared on
 *	a grid of QPU_NMS_GRID_MAX + 1 steps, each coordinate rounded to
 *	round(v * @scale) and clamped to [0, QPU_NMS_GRID_MAX]
 * @max_out: the most boxes kept (0: no limit)
 *
 * DOC: NMS arithmetic
 * On the grid every overlap is exact in 32-bit integers, on the CPU and
 * the QPUs alike: with w = min(x2i, x2j) - max(x1i, x1j) and h likewise,
 * clamped at 0, inter = w * h and a = (x2 - x1) * (y2 - y1) (0 when the
 * box is inverted), box j is suppressed by box i when (256 + k) * inter >
 * k * (a_i + a_j), k = round(256 * @iou_threshold): IoU > k / 256. So an
 * IoU threshold of 1 suppresses nothing, 0 every box that overlaps a
 * better one, and a box without area never suppresses nor is suppressed.
 * Order: the boxes of a class by score, highest first, equal scores by
 * their position in the input; a box is kept unless a kept box of its
 * class suppresses it. The kept boxes are returned by score, equal scores
 * by position.
 */
struct qpu_nms_params {
	float iou_threshold;
	float scale;
	unsigned int max_out;
};

#define QPU_NMS_GRID_MAX	2047

/**
 * qpu_nms_cpu() - class-wise NMS on the CPU
 * @kernels: for the message, or NULL
 * @dets: @n detections
 * @n: 0 to QPU_NMS_MAX_CANDIDATES
 * @p: the suppression's parameters
 * @keep: room for @keep_size indices into @dets
 * @keep_size: at least min(@n, @p->max_out) (@n when max_out is 0)
 * @kept: set to the number of indices written
 *
 * Return: 0; -EINVAL for NULL pointers, bad counts, a @keep too small, a
 * threshold outside [0, 1], a scale not above 0, or a NaN score or
 * coordinate (the message names the detection); -ENOMEM.
 */
QPU_API int qpu_nms_cpu(struct qpu_kernels *kernels, const struct qpu_detection *dets,
			size_t n, const struct qpu_nms_params *p, uint32_t *keep,
			size_t keep_size, size_t *kept);

/**
 * qpu_nms() - class-wise NMS with the overlap matrix on the QPUs
 * @kernels: the kernels of the device to run on
 * @qpus: QPUs to spread the rows over (1 to the device's count)
 * @dets, @n, @p, @keep, @keep_size, @kept: as qpu_nms_cpu(), whose result
 *	this is, index for index
 * @stats: the job's QPUs, instructions and time, or NULL (its byte counts
 *	are not counted: 0, but for V3D's uniform windows)
 *
 * The CPU sorts the boxes (class, then score) and puts them on the grid;
 * the QPUs compute, 16 rows a program at a time, the bit matrix "box j
 * suppressed by box i" for every pair of a class (nms.qasm); the CPU then
 * walks it greedily. No job is run when @n is 0.
 *
 * Return: qpu_nms_cpu()'s, and -EIO if the job failed.
 */
QPU_API int qpu_nms(struct qpu_kernels *kernels, unsigned int qpus,
		    const struct qpu_detection *dets, size_t n,
		    const struct qpu_nms_params *p, uint32_t *keep, size_t keep_size,
		    size_t *kept, struct qpu_kernel_stats *stats);

/**
 * qpu_ccl_cpu() - connected components of a thresholded 8-bit mask
 * @kernels: for the message, or NULL
 * @mask: @height rows of @width bytes, @stride bytes apart
 * @width: 1 to 65536
 * @height: 1 to 65536
 * @stride: at least @width
 * @threshold: a pixel is foreground when above it
 * @connectivity: 4 or 8
 * @labels: @width * @height labels, packed rows: 0 for the background,
 *	1..count for the components, numbered in the order their first pixel
 *	comes in a row-by-row scan
 * @count: set to the number of components
 *
 * Two passes with union-find (serial, so on the CPU: see
 * libqpu/kernels/postproc.md). The threshold may be run on the QPUs first
 * with qpu_threshold() and this called with a threshold of 0.
 *
 * Return: 0; -EINVAL for NULL pointers, bad sizes or connectivity;
 * -ENOMEM.
 */
QPU_API int qpu_ccl_cpu(struct qpu_kernels *kernels, const uint8_t *mask, unsigned int width,
			unsigned int height, size_t stride, uint8_t threshold,
			unsigned int connectivity, uint32_t *labels, uint32_t *count);
/* --- fused pre-processing: camera frame to network input ------------------ */

/* Pixel formats of struct qpu_frame (the V4L2 names). */
enum qpu_pixel_format {
	QPU_PIX_NV12 = 1,	/* Y plane, then one plane of interleaved U, V (4:2:0) */
	QPU_PIX_I420,		/* Y, U, V planes (4:2:0) */
	QPU_PIX_YUYV,		/* one plane, Y0 U Y1 V for each two pixels (4:2:2) */
	QPU_PIX_RGB888,		/* one plane, R G B bytes a pixel */
};

/**
 * struct qpu_frame - a camera frame in a buffer
 * @bo: the buffer holding every plane
 * @format: its pixel format
 * @width: pixels a row (even for NV12, I420 and YUYV), up to 4096
 * @height: rows (even for NV12 and I420), up to 4096
 * @offset: bytes from the buffer's start to each plane (any alignment):
 *	NV12 Y, UV; I420 Y, U, V; YUYV and RGB888 the one plane
 * @stride: bytes between rows of each plane (at least a row's bytes,
 *	below 2^24)
 */
struct qpu_frame {
	struct qpu_bo *bo;
	enum qpu_pixel_format format;
	unsigned int width;
	unsigned int height;
	size_t offset[3];
	size_t stride[3];
};

/* A rectangle of pixels; a width or height of 0 means the whole frame. */
struct qpu_rect {
	unsigned int x;
	unsigned int y;
	unsigned int width;
	unsigned int height;
};

/* Output tensor layouts and element types. */
enum qpu_tensor_layout {
	QPU_TENSOR_NCHW,	/* three planes R, G, B */
	QPU_TENSOR_NHWC,	/* R, G, B of a pixel next to each other */
};

enum qpu_tensor_type {
	QPU_TENSOR_F32,		/* normalised: (v / 255 - mean) / std */
	QPU_TENSOR_U8,		/* quantised: round(normalised / scale) + zero point */
	QPU_TENSOR_I8,
};

/* Colour conversions of YUV frames (RGB888 frames are taken as they are). */
enum qpu_colorspace {
	QPU_COLOR_BT601_FULL,		/* JPEG / JFIF: Y and UV over 0..255 */
	QPU_COLOR_BT601_LIMITED,	/* video: Y 16..235, UV 16..240 */
	QPU_COLOR_BT709_LIMITED,	/* HD video */
};

/* struct qpu_preprocess flags */
#define QPU_PREPROCESS_LETTERBOX	0x1u	/* keep the aspect ratio, pad */
#define QPU_PREPROCESS_BGR		0x2u	/* channels B, G, R */

/**
 * struct qpu_preprocess - one frame to one tensor
 * @src: the frame
 * @crop: the part of @src to use (inside it; for NV12, I420 and YUYV any
 *	position and size: chroma follows luma)
 * @dst_bo: the tensor's buffer
 * @dst_offset: bytes from @dst_bo's start to the tensor (a multiple of 4
 *	for QPU_TENSOR_F32)
 * @dst_width: the tensor's width W (1 to 4096)
 * @dst_height: its height H (1 to 4096)
 * @layout: NCHW or NHWC
 * @type: F32, U8 or I8
 * @colorspace: the YUV to RGB conversion
 * @flags: QPU_PREPROCESS_LETTERBOX, QPU_PREPROCESS_BGR
 * @pad: with QPU_PREPROCESS_LETTERBOX, the value (0..255) of the border's
 *	R, G and B before normalisation (114 for YOLO)
 * @mean: per output channel, subtracted after scaling to [0, 1]
 * @std: per output channel, divided by after subtracting @mean; not 0
 * @scale: U8 and I8: the quantisation step of the normalised value (> 0)
 * @zero_point: U8 and I8: the quantised value of 0
 */
struct qpu_preprocess {
	struct qpu_frame src;
	struct qpu_rect crop;
	struct qpu_bo *dst_bo;
	size_t dst_offset;
	unsigned int dst_width;
	unsigned int dst_height;
	enum qpu_tensor_layout layout;
	enum qpu_tensor_type type;
	enum qpu_colorspace colorspace;
	unsigned int flags;
	float pad;
	float mean[3];
	float std[3];
	float scale;
	int zero_point;
};

/**
 * qpu_preprocess() - crop, resize, convert and normalise a frame in one pass
 * @kernels: the kernels of the device to run on
 * @qpus: QPUs to spread the output rows over (1 to the device's count)
 * @p: the frame, the tensor and how to get from one to the other
 * @stats: what the job did, or NULL
 *
 * Every output pixel (x, y) of the image area (the whole tensor, or with
 * QPU_PREPROCESS_LETTERBOX the centred area of the crop's aspect ratio,
 * see qpu_preprocess_placement(); the rest is @pad) samples the crop
 * bilinearly at half-pixel centres: sx = crop.x + (x - left + 0.5) *
 * crop.width / area width - 0.5, in 16.16 fixed point (exact integer
 * arithmetic), sample rows and columns clamped to the crop. Chroma is
 * taken at each luma sample's position (nearest: x / 2, y / 2), Y, U
 * and V are interpolated with the same weights, then converted with
 * @colorspace's matrix, clamped to [0, 255], then v * a + b per channel
 * (a = 1 / (255 std), b = -mean / std), and for U8 and I8 rounded half
 * up after dividing by @scale and adding @zero_point, clamped to the
 * type. One job, each QPU a run of output rows, reading every source
 * sample once per output pixel and writing each output element once.
 * The float arithmetic is qpu_preprocess_cpu()'s, each operation rounded
 * as the QPU rounds (toward zero on VideoCore IV): results may differ from
 * it in the last bits of the float, and by one in a quantised value.
 * Stats: the byte counts are exact (lanes past a row's end, which repeat
 * its last pixel, included; uniforms the programs read again per row and
 * per vector too).
 *
 * Return: 0, -EINVAL for an unsupported format, an odd size for a
 * subsampled format, a crop outside the frame, std 0, a scale not above 0,
 * a buffer too small (see qpu_kernels_last_error()), -EIO if the job
 * failed.
 */
QPU_API int qpu_preprocess(struct qpu_kernels *kernels, unsigned int qpus,
			   const struct qpu_preprocess *p,
			   struct qpu_kernel_stats *stats);

/**
 * qpu_preprocess_cpu() - qpu_preprocess() on the CPU
 * @kernels: where the error message goes (qpu_kernels_last_error()), or NULL
 * @p: as for qpu_preprocess(); the buffers are read and written through
 *	their CPU mappings
 *
 * The same checks, the same fixed-point coordinates and the same float
 * operations in the same order (rounded to nearest): the reference the
 * tests hold the QPU programs to, and a CPU fallback.
 *
 * Return: 0 or -EINVAL as qpu_preprocess().
 */
QPU_API int qpu_preprocess_cpu(struct qpu_kernels *kernels,
			       const struct qpu_preprocess *p);

/**
 * qpu_preprocess_placement() - where the image lands in the tensor
 * @p: as for qpu_preprocess() (only the sizes, crop and flags are read)
 * @area: the tensor's pixels that show the crop (the rest is padding):
 *	the whole tensor without QPU_PREPROCESS_LETTERBOX
 *
 * To map detections back: frame x = crop.x + (x - area.x) * crop.width /
 * area.width, the same for y.
 *
 * Return: 0, or -EINVAL for sizes qpu_preprocess() refuses.
 */
QPU_API int qpu_preprocess_placement(const struct qpu_preprocess *p,
				     struct qpu_rect *area);

/**
 * qpu_preprocess_submit() - qpu_preprocess() without waiting for its job
 * @kernels: the kernels of the device to run on
 * @qpus: as for qpu_preprocess()
 * @p: as for qpu_preprocess()
 * @in_fence_fd: a job fence the job waits for on the device first (an
 *	earlier job's out-fence, &qpu_job_desc.in_fence_fd), or -1; a fence
 *	that signals with an error cancels the job
 * @out_fence_fd: NULL, or where the job's new out-fence goes (the caller
 *	closes it): a following job may take it as its in-fence and read the
 *	tensor with no wait on the CPU between (qpu_nn_run_input())
 *
 * The same checks and the same job as qpu_preprocess(), submitted and left
 * pending: the call returns once the device has it (the emulator may have
 * run it already; qpu.ko and a v3d node run it after the call). The job is
 * @kernels's pending job until qpu_kernels_finish(), which says how it
 * ended and fills the stats; meanwhile every other call on @kernels
 * returns -EBUSY, since the job's uniforms live in @kernels's memory. New
 * in 0.8.
 *
 * Return: 0, -EINVAL as qpu_preprocess() (before any job; an in-fence that
 * is no job fence too), -EBUSY (a job is pending), or the errno of a failed
 * submit; the message in qpu_kernels_last_error().
 */
QPU_API int qpu_preprocess_submit(struct qpu_kernels *kernels, unsigned int qpus,
				  const struct qpu_preprocess *p, int in_fence_fd,
				  int *out_fence_fd);

/**
 * qpu_kernels_finish() - wait for the job qpu_preprocess_submit() left pending
 * @kernels: the kernels
 * @stats: what the job did (as qpu_preprocess()'s @stats), or NULL
 *
 * Its modelled time goes where qpu_kernels_take_timing() reads it, as a
 * waiting wrapper's does. qpu_kernels_drop_cache() and qpu_kernels_free()
 * finish a pending job first. New in 0.8.
 *
 * Return: 0 when the job ended well or none was pending, -EIO when it did
 * not (its status in qpu_kernels_last_error()), -EINVAL for a NULL
 * @kernels, or the errno of a failed wait (the job stays pending).
 */
QPU_API int qpu_kernels_finish(struct qpu_kernels *kernels,
			       struct qpu_kernel_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* QPU_KERNELS_H */
