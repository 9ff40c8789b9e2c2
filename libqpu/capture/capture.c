// SPDX-License-Identifier: MIT
/*
 * <qpu_capture.h>: a V4L2 camera's buffers exported as dma-bufs
 * (VIDIOC_EXPBUF) and imported into a qpu device, so that jobs read frames
 * where the camera wrote them; streaming I/O with the MMAP memory type,
 * single-planar formats.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/videodev2.h>

#include "runtime/runtime.h"
#include "qpu.h"
#include "qpu_capture.h"

#define CAPTURE_DEFAULT_BUFFERS	4
#define CAPTURE_MIN_BUFFERS	2
#define CAPTURE_MAX_BUFFERS	32

struct qpu_capture {
	int fd;
	char *path;
	bool streaming;
	struct v4l2_pix_format fmt;
	unsigned int count;
	struct qpu_bo *bos[CAPTURE_MAX_BUFFERS];
};

static int xioctl(int fd, unsigned long request, void *arg)
{
	int ret;

	do
		ret = ioctl(fd, request, arg);
	while (ret == -1 && errno == EINTR);
	return ret ? -errno : 0;
}

/* The planes of a single-planar frame of @fmt: how many, where, strides. */
static unsigned int capture_planes(const struct v4l2_pix_format *fmt,
				   size_t offsets[3], size_t strides[3])
{
	size_t luma = (size_t)fmt->bytesperline * fmt->height;

	offsets[0] = 0;
	strides[0] = fmt->bytesperline;
	switch (fmt->pixelformat) {
	case QPU_CAPTURE_NV12:
		offsets[1] = luma;
		strides[1] = fmt->bytesperline;
		return 2;
	case QPU_CAPTURE_YUV420:
		offsets[1] = luma;
		strides[1] = fmt->bytesperline / 2;
		offsets[2] = luma + strides[1] * (fmt->height / 2);
		strides[2] = strides[1];
		return 3;
	default:
		return 1;
	}
}

static bool capture_format_known(uint32_t fourcc)
{
	return fourcc == QPU_CAPTURE_NV12 || fourcc == QPU_CAPTURE_YUV420 ||
	       fourcc == QPU_CAPTURE_YUYV || fourcc == QPU_CAPTURE_RGB24 ||
	       fourcc == QPU_CAPTURE_GREY;
}

static void fourcc_str(uint32_t f, char s[5])
{
	int i;

	for (i = 0; i < 4; i++)
		s[i] = (char)(f >> 8 * i);
	s[4] = '\0';
}

/* The pixel formats the node offers, as "NV12, YUYV" into @s. */
static void capture_list_formats(int fd, char *s, size_t size)
{
	struct v4l2_fmtdesc d = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	size_t n = 0;
	char name[5];

	s[0] = '\0';
	for (d.index = 0; n + 8 < size && !xioctl(fd, VIDIOC_ENUM_FMT, &d); d.index++) {
		fourcc_str(d.pixelformat, name);
		n += (size_t)snprintf(s + n, size - n, "%s%s", n ? ", " : "", name);
	}
	if (!n)
		snprintf(s, size, "none it lists");
}

static int capture_set_format(struct qpu_capture *cap,
			      const struct qpu_capture_config *config)
{
	struct v4l2_capability caps = { 0 };
	struct v4l2_format f = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	char want[5], got[5], has[160];
	uint32_t c;
	int ret;

	ret = xioctl(cap->fd, VIDIOC_QUERYCAP, &caps);
	c = caps.capabilities & V4L2_CAP_DEVICE_CAPS ? caps.device_caps : caps.capabilities;
	if (ret || !(c & V4L2_CAP_VIDEO_CAPTURE) || !(c & V4L2_CAP_STREAMING))
		return qpu_fail(-ENODEV, "%s is not a V4L2 single-planar capture device with streaming I/O",
				cap->path);
	f.fmt.pix.width = config->width;
	f.fmt.pix.height = config->height;
	f.fmt.pix.pixelformat = config->fourcc;
	f.fmt.pix.field = V4L2_FIELD_NONE;
	ret = xioctl(cap->fd, VIDIOC_S_FMT, &f);
	fourcc_str(config->fourcc, want);
	fourcc_str(f.fmt.pix.pixelformat, got);
	if (ret)
		return qpu_fail(ret, "%s: VIDIOC_S_FMT %ux%u %s: %s", cap->path, config->width,
				config->height, want, strerror(-ret));
	if (f.fmt.pix.pixelformat != config->fourcc) {
		capture_list_formats(cap->fd, has, sizeof(has));
		return qpu_fail(-EINVAL, "%s has no %s (it gives %s; its formats: %s)", cap->path,
				want, got, has);
	}
	cap->fmt = f.fmt.pix;
	return 0;
}

/* Each buffer exported by the driver and imported by the device. */
static int capture_import_buffers(struct qpu_capture *cap, struct qpu_dev *dev,
				  unsigned int count)
{
	struct v4l2_requestbuffers req = {
		.count = count,
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_MMAP,
	};
	unsigned int i;
	int ret;

	ret = xioctl(cap->fd, VIDIOC_REQBUFS, &req);
	if (ret)
		return qpu_fail(ret, "%s: VIDIOC_REQBUFS of %u MMAP buffers: %s", cap->path,
				count, strerror(-ret));
	/* Fewer than asked would starve a reader that holds some (a pipeline). */
	if (req.count < count || req.count > CAPTURE_MAX_BUFFERS)
		return qpu_fail(-ENOMEM, "%s gave %u buffers, not %u to %u", cap->path,
				req.count, count, CAPTURE_MAX_BUFFERS);
	for (i = 0; i < req.count; i++) {
		struct v4l2_exportbuffer exp = {
			.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
			.index = i,
			.flags = O_RDWR | O_CLOEXEC,
		};

		ret = xioctl(cap->fd, VIDIOC_EXPBUF, &exp);
		if (ret)
			return qpu_fail(ret, "%s: VIDIOC_EXPBUF of buffer %u: %s", cap->path, i,
					strerror(-ret));
		ret = qpu_bo_import_dmabuf(dev, exp.fd, cap->fmt.sizeimage, &cap->bos[i]);
		close(exp.fd);	/* the buffer holds the dma-buf */
		if (ret)
			return ret;
		cap->count = i + 1;
	}
	return 0;
}

QPU_API int qpu_capture_open(struct qpu_dev *dev,
			     const struct qpu_capture_config *config,
			     struct qpu_capture **out)
{
	unsigned int count = config->buffers ? config->buffers : CAPTURE_DEFAULT_BUFFERS;
	struct qpu_capture *cap;
	char want[5];
	int ret;

	*out = NULL;
	fourcc_str(config->fourcc, want);
	if (!config->path || !config->width || !config->height)
		return qpu_fail(-EINVAL, "qpu_capture_open: no path or size");
	if (!capture_format_known(config->fourcc))
		return qpu_fail(-EINVAL, "qpu_capture_open: format %s is none of NV12, YU12, YUYV, RGB3, GREY",
				want);
	if (count < CAPTURE_MIN_BUFFERS || count > CAPTURE_MAX_BUFFERS)
		return qpu_fail(-EINVAL, "qpu_capture_open: %u buffers, not %u to %u", count,
				CAPTURE_MIN_BUFFERS, CAPTURE_MAX_BUFFERS);
	cap = calloc(1, sizeof(*cap));
	if (!cap || !(cap->path = strdup(config->path))) {
		free(cap);
		return qpu_fail(-ENOMEM, "qpu_capture_open: out of memory");
	}
	cap->fd = open(config->path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (cap->fd < 0) {
		ret = qpu_fail(-errno, "cannot open %s: %s", config->path, strerror(errno));
		goto err;
	}
	ret = capture_set_format(cap, config);
	if (!ret)
		ret = capture_import_buffers(cap, dev, count);
	if (ret)
		goto err;
	*out = cap;
	return 0;

err:
	qpu_capture_close(cap);
	return ret;
}

static int capture_qbuf(struct qpu_capture *cap, unsigned int index)
{
	struct v4l2_buffer b = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_MMAP,
		.index = index,
	};
	int ret = xioctl(cap->fd, VIDIOC_QBUF, &b);

	if (ret)
		return qpu_fail(ret, "%s: VIDIOC_QBUF of buffer %u: %s", cap->path, index,
				strerror(-ret));
	return 0;
}

QPU_API int qpu_capture_start(struct qpu_capture *cap)
{
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	unsigned int i;
	int ret;

	for (i = 0; i < cap->count; i++) {
		ret = capture_qbuf(cap, i);
		if (ret)
			return ret;
	}
	ret = xioctl(cap->fd, VIDIOC_STREAMON, &type);
	if (ret)
		return qpu_fail(ret, "%s: VIDIOC_STREAMON: %s", cap->path, strerror(-ret));
	cap->streaming = true;
	return 0;
}

QPU_API int qpu_capture_dequeue(struct qpu_capture *cap, int timeout_ms,
				struct qpu_capture_frame *frame)
{
	struct v4l2_buffer b = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_MMAP,
	};
	struct pollfd pfd = { .fd = cap->fd, .events = POLLIN };
	int ret;

	for (;;) {
		ret = xioctl(cap->fd, VIDIOC_DQBUF, &b);
		if (ret != -EAGAIN)
			break;
		ret = poll(&pfd, 1, timeout_ms);
		if (ret < 0 && errno != EINTR)
			return qpu_fail(-errno, "%s: poll: %s", cap->path, strerror(errno));
		if (ret == 0)
			return qpu_fail(-ETIME, "%s: no frame within %d ms", cap->path, timeout_ms);
	}
	if (ret)
		return qpu_fail(ret, "%s: VIDIOC_DQBUF: %s", cap->path, strerror(-ret));
	if (b.index >= cap->count)
		return qpu_fail(-EIO, "%s: the driver gave buffer %u of %u", cap->path, b.index,
				cap->count);
	if (b.flags & V4L2_BUF_FLAG_ERROR) {
		ret = capture_qbuf(cap, b.index);
		return ret ? ret : qpu_fail(-EIO, "%s: frame %u is bad", cap->path, b.sequence);
	}
	memset(frame, 0, sizeof(*frame));
	frame->bo = cap->bos[b.index];
	frame->index = b.index;
	frame->width = cap->fmt.width;
	frame->height = cap->fmt.height;
	frame->fourcc = cap->fmt.pixelformat;
	frame->planes = capture_planes(&cap->fmt, frame->offsets, frame->strides);
	frame->bytesused = b.bytesused;
	frame->sequence = b.sequence;
	frame->timestamp_ns = b.timestamp.tv_sec * 1000000000ll + b.timestamp.tv_usec * 1000ll;
	return 0;
}

QPU_API int qpu_capture_queue(struct qpu_capture *cap,
			      const struct qpu_capture_frame *frame)
{
	if (frame->index >= cap->count || frame->bo != cap->bos[frame->index])
		return qpu_fail(-EINVAL, "%s: not a frame of this capture", cap->path);
	return capture_qbuf(cap, frame->index);
}

QPU_API int qpu_capture_get_format(const struct qpu_capture *cap,
				   struct qpu_capture_frame *layout)
{
	memset(layout, 0, sizeof(*layout));
	layout->width = cap->fmt.width;
	layout->height = cap->fmt.height;
	layout->fourcc = cap->fmt.pixelformat;
	layout->planes = capture_planes(&cap->fmt, layout->offsets, layout->strides);
	layout->bytesused = cap->fmt.sizeimage;
	return 0;
}

QPU_API int qpu_capture_fd(const struct qpu_capture *cap)
{
	return cap->fd;
}

QPU_API void qpu_capture_close(struct qpu_capture *cap)
{
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	struct v4l2_requestbuffers req = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_MMAP,
	};
	unsigned int i;

	if (!cap)
		return;
	if (cap->streaming)
		xioctl(cap->fd, VIDIOC_STREAMOFF, &type);
	for (i = 0; i < cap->count; i++)
		qpu_bo_free(cap->bos[i]);
	if (cap->fd >= 0) {
		/* The dma-bufs held the buffers until now: give them back. */
		xioctl(cap->fd, VIDIOC_REQBUFS, &req);
		close(cap->fd);
	}
	free(cap->path);
	free(cap);
}
