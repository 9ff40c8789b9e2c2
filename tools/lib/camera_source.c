// SPDX-License-Identifier: MIT
/*
 * qpu-detect's V4L2 source: camera buffers imported by <qpu_capture.h>,
 * submitted in place with qpu_pipeline_submit_bo(), queued back to the
 * camera from the sink once the frame is written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "camera_source.h"
#include "die.h"

/* qpu_capture_config.buffers' bound (libqpu/capture) */
#define CAMERA_MAX_BUFFERS	32

/* A camera buffer out of the camera's hands: the frame it holds. */
struct camera_buf {
	struct qpu_capture_frame frame;
};

struct camera_source {
	struct qpu_capture *cap;
	char path[256];
	struct qpu_capture_frame layout;
	enum qpu_pipeline_format format;
	unsigned int buffers;
	struct camera_buf bufs[CAMERA_MAX_BUFFERS];
	/* main thread: camera_submit() */
	int have_sequence;
	uint32_t last_sequence;
	uint64_t skipped;
	uint64_t submitted;
	/* the sink's thread: camera_check_frame(), camera_release_frame() */
	uint64_t imported;
	uint64_t copied;
	/* set by the sink's thread, read by the main thread */
	int queue_error;
	char queue_message[256];
};

static const struct {
	const char *name;
	uint32_t fourcc;
} camera_formats[] = {
	{ "NV12", QPU_CAPTURE_NV12 },
	{ "YU12", QPU_CAPTURE_YUV420 },
	{ "I420", QPU_CAPTURE_YUV420 },
	{ "YUYV", QPU_CAPTURE_YUYV },
	{ "RGB3", QPU_CAPTURE_RGB24 },
	{ "GREY", QPU_CAPTURE_GREY },
};

int camera_format_from_name(const char *name, uint32_t *fourcc)
{
	size_t i;

	for (i = 0; i < sizeof(camera_formats) / sizeof(camera_formats[0]); i++) {
		if (!strcasecmp(name, camera_formats[i].name)) {
			*fourcc = camera_formats[i].fourcc;
			return 0;
		}
	}
	return -1;
}

static const char *fourcc_name(uint32_t fourcc)
{
	size_t i;

	for (i = 0; i < sizeof(camera_formats) / sizeof(camera_formats[0]); i++)
		if (camera_formats[i].fourcc == fourcc)
			return camera_formats[i].name;
	return "?";
}

/* The pipeline's format for a camera format, or 0 if it takes none. */
static enum qpu_pipeline_format pipeline_format(uint32_t fourcc)
{
	switch (fourcc) {
	case QPU_CAPTURE_NV12:
		return QPU_PIPELINE_NV12;
	case QPU_CAPTURE_YUV420:
		return QPU_PIPELINE_I420;
	case QPU_CAPTURE_RGB24:
		return QPU_PIPELINE_RGB24;
	case QPU_CAPTURE_YUYV:
		return QPU_PIPELINE_YUYV;
	}
	/* GREY: the pipeline takes luma frames in its own buffers only */
	return 0;
}

struct camera_source *camera_open(struct qpu_dev *dev, const char *path, uint32_t fourcc,
				  unsigned int width, unsigned int height, unsigned int buffers,
				  enum qpu_pipeline_format *format, unsigned int *w,
				  unsigned int *h)
{
	struct qpu_capture_config cfg = {
		.path = path, .width = width, .height = height, .fourcc = fourcc,
		.buffers = buffers,
	};
	struct camera_source *cam;

	*format = pipeline_format(fourcc);
	if (!*format)
		die("--camera-format %s: the pipeline takes no such frames from a camera; choose NV12, YU12, YUYV or RGB3",
		    fourcc_name(fourcc));
	if (!qpu_pipeline_frame_bytes(*format, width, height))
		die("--size %ux%u: a %s frame needs %s, 1 to 8192 a side", width, height,
		    fourcc_name(fourcc), *format == QPU_PIPELINE_RGB24 ? "a size" :
		    "an even width and height");
	if (buffers > CAMERA_MAX_BUFFERS)
		die("--camera-buffers %u: at most %u", buffers, CAMERA_MAX_BUFFERS);
	cam = calloc(1, sizeof(*cam));
	if (!cam)
		die("out of memory");
	snprintf(cam->path, sizeof(cam->path), "%s", path);
	if (qpu_capture_open(dev, &cfg, &cam->cap))
		die("camera: %s", qpu_last_error());
	qpu_capture_get_format(cam->cap, &cam->layout);
	if (cam->layout.width != width || cam->layout.height != height)
		die("camera %s gives %ux%u %s frames, not the %ux%u asked: ask --size %ux%u", path,
		    cam->layout.width, cam->layout.height, fourcc_name(fourcc), width, height,
		    cam->layout.width, cam->layout.height);
	cam->format = *format;
	cam->buffers = buffers;
	*w = width;
	*h = height;
	return cam;
}

void camera_start(struct camera_source *cam)
{
	if (qpu_capture_start(cam->cap))
		die("camera: %s", qpu_last_error());
}

void camera_release_frame(struct camera_source *cam, const struct qpu_pipeline_frame *f)
{
	const struct camera_buf *b = f->user;
	int ret;

	if (!b)
		return;
	ret = qpu_capture_queue(cam->cap, &b->frame);
	if (ret && !__atomic_load_n(&cam->queue_error, __ATOMIC_ACQUIRE)) {
		snprintf(cam->queue_message, sizeof(cam->queue_message), "%s", qpu_last_error());
		__atomic_store_n(&cam->queue_error, ret, __ATOMIC_RELEASE);
	}
}

void camera_submit(struct camera_source *cam, struct qpu_pipeline *pl, int timeout_ms)
{
	struct qpu_pipeline_bo_frame bf = { .format = cam->format };
	struct qpu_capture_frame f;
	struct camera_buf *b;
	int ret;

	do {
		if (__atomic_load_n(&cam->queue_error, __ATOMIC_ACQUIRE))
			die("camera: %s", cam->queue_message);
		ret = qpu_capture_dequeue(cam->cap, timeout_ms, &f);
	} while (ret == -EIO);	/* a frame the driver marked bad, queued again */
	if (ret)
		die("camera: %s", qpu_last_error());
	if (cam->have_sequence && f.sequence > cam->last_sequence + 1)
		cam->skipped += f.sequence - cam->last_sequence - 1;
	cam->have_sequence = 1;
	cam->last_sequence = f.sequence;
	b = &cam->bufs[f.index];
	b->frame = f;
	bf.bo = f.bo;
	bf.width = f.width;
	bf.height = f.height;
	memcpy(bf.offset, f.offsets, sizeof(bf.offset));
	memcpy(bf.stride, f.strides, sizeof(bf.stride));
	if (qpu_pipeline_submit_bo(pl, &bf, b))
		die("%s", qpu_pipeline_last_error(pl));
	cam->submitted++;
}

int camera_check_frame(struct camera_source *cam, const struct qpu_pipeline_frame *f,
		       uint32_t *sequence)
{
	const struct camera_buf *b = f->user;

	/* the frame the stages read is the camera's buffer, at its mapping */
	if (b && f->bo == b->frame.bo && f->frame_data &&
	    f->frame_data == (const char *)qpu_bo_get_map(b->frame.bo) + b->frame.offsets[0]) {
		cam->imported++;
		*sequence = b->frame.sequence;
		return 1;
	}
	cam->copied++;
	return 0;
}

void camera_print_summary(struct camera_source *cam, FILE *out)
{
	fprintf(out, "camera %s: %ux%u %s, %u buffers; %llu frames imported, %llu copied, %llu skipped by the camera\n",
		cam->path, cam->layout.width, cam->layout.height, fourcc_name(cam->layout.fourcc),
		cam->buffers, (unsigned long long)cam->imported,
		(unsigned long long)cam->copied, (unsigned long long)cam->skipped);
}

void camera_close(struct camera_source *cam)
{
	if (!cam)
		return;
	qpu_capture_close(cam->cap);
	free(cam);
}
