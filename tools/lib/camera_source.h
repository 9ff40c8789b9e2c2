/* SPDX-License-Identifier: MIT */
/*
 * A V4L2 camera as a pipeline's frame source (camera_source.c), for
 * qpu-detect --camera: each frame is the camera's own buffer, imported
 * into the device by <qpu_capture.h> and handed to the pipeline with
 * qpu_pipeline_submit_bo(), never copied; the sink queues it back to the
 * camera once the frame is written.
 */
#ifndef QPU_TOOLS_CAMERA_SOURCE_H
#define QPU_TOOLS_CAMERA_SOURCE_H

#include <stdint.h>
#include <stdio.h>

#include "qpu.h"
#include "qpu_capture.h"
#include "qpu_pipeline.h"

/* The names --camera-format takes, for messages. */
#define CAMERA_FORMAT_NAMES	"NV12, YU12 (I420), YUYV, RGB3, GREY"

/* A --camera-format name (V4L2's fourcc, any case; I420 for YU12) as a
 * QPU_CAPTURE_* fourcc: 0, or -1 for a name it does not know. */
int camera_format_from_name(const char *name, uint32_t *fourcc);

/* Buffers a pipeline of @in_flight slots needs of the camera: the slots'
 * frames (each held until its sink returns), one the camera writes, one
 * queued for the next. */
#define CAMERA_MIN_BUFFERS(in_flight)	((in_flight) + 2)

struct camera_source;

/*
 * Opens the camera @path at @width x @height in @fourcc with @buffers
 * buffers, imported into @dev, and says what the pipeline gets in @format,
 * @w and @h. Exits 1 with a message naming the cause: no such device, not
 * a capture device, a format the camera lacks (with those it has) or the
 * pipeline takes no frame of, a size the camera changed, fewer buffers.
 */
struct camera_source *camera_open(struct qpu_dev *dev, const char *path, uint32_t fourcc,
				  unsigned int width, unsigned int height, unsigned int buffers,
				  enum qpu_pipeline_format *format, unsigned int *w,
				  unsigned int *h);

/* Starts streaming; exits 1 on failure. */
void camera_start(struct camera_source *cam);

/*
 * Waits up to @timeout_ms for the camera's next good frame and submits it
 * into @pl's acquired slot, in place. Exits 1 when no frame came or the
 * pipeline refused the call.
 */
void camera_submit(struct camera_source *cam, struct qpu_pipeline *pl, int timeout_ms);

/*
 * For the sink: the camera's sequence number of a frame @pl's sink got,
 * and whether the frame's bytes are the camera buffer's own mapping (the
 * pipeline read the imported buffer, not a copy). Counts the frame as
 * imported or copied (camera_print_summary()).
 */
int camera_check_frame(struct camera_source *cam, const struct qpu_pipeline_frame *f,
		       uint32_t *sequence);

/* Queues the camera buffer of a frame @pl's sink got back to the camera:
 * call it last in the sink, once nothing reads the frame. */
void camera_release_frame(struct camera_source *cam, const struct qpu_pipeline_frame *f);

/* "camera PATH: WxH FOURCC, N buffers; F frames imported, C copied, S skipped
 * by the camera" on @out. */
void camera_print_summary(struct camera_source *cam, FILE *out);

/* Stops the camera and frees its buffers (after qpu_pipeline_finish()). */
void camera_close(struct camera_source *cam);

#endif /* QPU_TOOLS_CAMERA_SOURCE_H */
