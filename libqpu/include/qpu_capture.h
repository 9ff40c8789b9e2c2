/* SPDX-License-Identifier: MIT */
/*
 * qpu_capture.h: frames of a V4L2 camera as qpu buffers, never copied.
 *
 * The camera's driver allocates its buffers (REQBUFS, MMAP), exports each
 * as a dma-buf (VIDIOC_EXPBUF), and libqpu imports them into the device
 * (qpu_bo_import_dmabuf()): a frame dequeued is a struct qpu_bo that jobs
 * read where the camera wrote it. Use:
 *
 *	struct qpu_capture_config cfg = {
 *		.path = "/dev/video0", .width = 640, .height = 480,
 *		.fourcc = QPU_CAPTURE_NV12,
 *	};
 *	struct qpu_capture *cap;
 *	struct qpu_capture_frame f;
 *
 *	if (qpu_capture_open(dev, &cfg, &cap) || qpu_capture_start(cap))
 *		fail(qpu_last_error());
 *	while (!qpu_capture_dequeue(cap, 1000, &f)) {
 *		(jobs on f.bo, planes at f.offsets[]; wait for them)
 *		qpu_capture_queue(cap, &f);	(the camera may write it again)
 *	}
 *	qpu_capture_close(cap);
 *
 * A frame's buffer belongs to the program from dequeue to queue; the
 * camera owns it otherwise, and writes the next frame into it. The
 * buffers live until qpu_capture_close(). One thread at a time, except
 * that qpu_capture_queue() may run in another thread while one dequeues
 * (a pipeline's sink does: qpu_pipeline_submit_bo()).
 *
 * Single-planar formats only (V4L2_BUF_TYPE_VIDEO_CAPTURE): NV12's two
 * planes are one buffer, UV after Y. With libcamera on a Pi, no V4L2
 * device is involved: each FrameBuffer plane has a dma-buf fd, which
 * qpu_bo_import_dmabuf() takes directly (see its manual page).
 *
 * New in libqpu 0.6.
 */
#ifndef QPU_CAPTURE_H
#define QPU_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include "qpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* V4L2's fourcc codes (v4l2_fourcc()), the formats this API knows. */
#define QPU_CAPTURE_FOURCC(a, b, c, d) \
	((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)
/* Y plane, then interleaved Cb Cr at half resolution both ways. */
#define QPU_CAPTURE_NV12	QPU_CAPTURE_FOURCC('N', 'V', '1', '2')
/* Y, Cb, Cr planes (I420), chroma at half resolution both ways. */
#define QPU_CAPTURE_YUV420	QPU_CAPTURE_FOURCC('Y', 'U', '1', '2')
/* Y0 Cb Y1 Cr, 2 bytes a pixel. */
#define QPU_CAPTURE_YUYV	QPU_CAPTURE_FOURCC('Y', 'U', 'Y', 'V')
/* R, G, B bytes. */
#define QPU_CAPTURE_RGB24	QPU_CAPTURE_FOURCC('R', 'G', 'B', '3')
/* 8-bit luma only. */
#define QPU_CAPTURE_GREY	QPU_CAPTURE_FOURCC('G', 'R', 'E', 'Y')

/**
 * struct qpu_capture_config - what qpu_capture_open() asks of the camera
 * @path: the V4L2 capture node, e.g. "/dev/video0"
 * @width: pixels per row asked; the driver may give another (the frame
 *	says what it gave)
 * @height: rows asked
 * @fourcc: a QPU_CAPTURE_* format; a driver that gives another is refused
 * @buffers: buffers to allocate, 0 for 4 (2 to 32); a driver that gives
 *	fewer is refused (ENOMEM), one that gives more is taken
 */
struct qpu_capture_config {
	const char *path;
	uint32_t width;
	uint32_t height;
	uint32_t fourcc;
	unsigned int buffers;
};

/**
 * struct qpu_capture_frame - one dequeued frame
 * @bo: the buffer holding it, imported from the camera's dma-buf; the
 *	capture's: never freed by the caller
 * @index: the buffer's index, for qpu_capture_queue()
 * @width: pixels per row
 * @height: rows
 * @fourcc: its QPU_CAPTURE_* format
 * @planes: planes in @bo (1, 2 for NV12, 3 for YUV420)
 * @offsets: bytes from @bo's start to each plane
 * @strides: bytes between rows of each plane
 * @bytesused: bytes of @bo the frame fills
 * @sequence: the driver's frame counter (a gap: frames dropped)
 * @timestamp_ns: when the driver says the frame was taken (its clock,
 *	CLOCK_MONOTONIC for most)
 */
struct qpu_capture_frame {
	struct qpu_bo *bo;
	unsigned int index;
	uint32_t width;
	uint32_t height;
	uint32_t fourcc;
	unsigned int planes;
	size_t offsets[3];
	size_t strides[3];
	size_t bytesused;
	uint32_t sequence;
	int64_t timestamp_ns;
};

/** struct qpu_capture - an open camera and its imported buffers (opaque) */
struct qpu_capture;

/**
 * qpu_capture_open() - set a camera up and import its buffers
 * @dev: the device whose jobs will read the frames
 * @config: camera, size, format, buffers
 * @cap: gets the capture, closed with qpu_capture_close(); NULL on failure
 *
 * Return: 0, or a negative errno with qpu_last_error() saying why (ENOENT:
 * no such node; ENODEV: not a streaming capture device; EINVAL: a format
 * the driver does not give, the message listing those it has; the
 * import's errors). The driver may give another size than asked:
 * qpu_capture_get_format() says which.
 */
QPU_API int qpu_capture_open(struct qpu_dev *dev,
			     const struct qpu_capture_config *config,
			     struct qpu_capture **cap);

/**
 * qpu_capture_start() - queue every buffer and start streaming
 * @cap: the capture
 *
 * Return: 0 or a negative errno with qpu_last_error() set.
 */
QPU_API int qpu_capture_start(struct qpu_capture *cap);

/**
 * qpu_capture_dequeue() - the next frame the camera filled
 * @cap: the capture, started
 * @timeout_ms: how long to wait; 0 only looks, -1 waits for ever
 * @frame: gets the frame; its buffer is the caller's until queued
 *
 * Return: 0, -ETIME when no frame came in time, -EIO for a frame the
 * driver marked bad (queued back already), or another negative errno.
 */
QPU_API int qpu_capture_dequeue(struct qpu_capture *cap, int timeout_ms,
				struct qpu_capture_frame *frame);

/**
 * qpu_capture_queue() - give a frame's buffer back to the camera
 * @cap: the capture
 * @frame: a frame of qpu_capture_dequeue(); jobs reading it must have
 *	ended, as the camera writes the next frame into it
 *
 * Return: 0 or a negative errno with qpu_last_error() set.
 */
QPU_API int qpu_capture_queue(struct qpu_capture *cap,
			      const struct qpu_capture_frame *frame);

/**
 * qpu_capture_get_format() - what the driver gave: every frame's layout
 * @cap: the capture, open
 * @layout: gets width, height, fourcc, planes, offsets, strides, and the
 *	buffer's bytes in bytesused; bo NULL, the rest 0
 *
 * Known from qpu_capture_open() on, before the first frame: a program
 * sizes what reads the frames (a pipeline) before it starts the camera.
 *
 * Return: 0.
 *
 * New in libqpu 0.7.
 */
QPU_API int qpu_capture_get_format(const struct qpu_capture *cap,
				   struct qpu_capture_frame *layout);

/**
 * qpu_capture_fd() - the V4L2 node's fd, to poll() for a frame (POLLIN)
 * @cap: the capture
 */
QPU_API int qpu_capture_fd(const struct qpu_capture *cap);

/**
 * qpu_capture_close() - stop streaming, free the buffers, close the node
 * @cap: the capture, or NULL
 */
QPU_API void qpu_capture_close(struct qpu_capture *cap);

#ifdef __cplusplus
}
#endif

#endif /* QPU_CAPTURE_H */
