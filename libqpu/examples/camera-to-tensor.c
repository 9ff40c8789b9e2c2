// SPDX-License-Identifier: MIT
/*
 * camera-to-tensor: turn a 640x480 I420 camera frame into the 224x224
 * normalised RGB tensor an ImageNet-style network takes, in one QPU pass
 * (colour conversion, resize and per-channel (x / 255 - mean) / std), then
 * threshold and grayscale kernels on the way, to show the image wrappers.
 * The frame here is synthetic: a gradient; put a real one in the buffer.
 *
 * Usage: camera-to-tensor [DEVICE]   (default $QPU_DEVICE, else /dev/qpu;
 * "emu" for the in-process emulator)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "qpu.h"

#include "example.h"
#include "qpu_kernels.h"

#define W	640
#define H	480
#define NET	224

int main(int argc, char **argv)
{
	static const float mean[3] = { 0.485f, 0.456f, 0.406f };
	static const float std[3] = { 0.229f, 0.224f, 0.225f };
	struct qpu_kernel_stats stats;
	struct qpu_yuv420 frame = {
		.y_offset = 0, .u_offset = W * H, .v_offset = W * H * 5 / 4,
		.width = W, .height = H, .y_stride = W, .uv_stride = W / 2,
	};
	struct qpu_planar_rgb tensor = { .width = NET, .height = NET };
	struct qpu_image luma = { .width = W, .height = H, .stride = W };
	struct qpu_image mask;
	struct qpu_kernels *kernels;
	struct qpu_dev *dev;
	unsigned char *yuv, *m;
	const float *t;
	size_t i, on = 0;
	int ret = 1;

	dev = example_open(argc, argv, "A camera frame to a network's input tensor with qpu_yuv420_to_rgb().");
	if (!dev)
		return 1;
	kernels = qpu_kernels_new(dev);
	frame.bo = qpu_bo_new(dev, W * H * 3 / 2);
	tensor.bo = qpu_bo_new(dev, 3 * NET * NET * sizeof(float));
	luma.bo = frame.bo;	/* the Y plane is a gray image */
	mask = luma;
	mask.bo = qpu_bo_new(dev, W * H);
	if (!kernels || !frame.bo || !tensor.bo || !mask.bo) {
		fprintf(stderr, "out of memory: %s\n", strerror(errno));
		goto out;
	}
	yuv = qpu_bo_get_map(frame.bo);
	for (i = 0; i < W * H; i++)
		yuv[i] = (unsigned char)((i % W) * 255 / W);	/* Y: left to right */
	memset(yuv + W * H, 128, W * H / 2);			/* no colour */

	if (qpu_yuv420_to_rgb(kernels, example_qpus(dev), &frame, &tensor, mean, std, &stats)) {
		fprintf(stderr, "%s\n", qpu_kernels_last_error(kernels));
		goto out;
	}
	t = qpu_bo_get_map(tensor.bo);
	printf("tensor 3x%dx%d in %.3f ms: R at the left %.3f, at the right %.3f\n",
	       NET, NET, stats.elapsed_ns / 1e6, t[0], t[NET - 1]);

	/* the bright half of the frame, from its Y plane */
	if (qpu_threshold(kernels, example_qpus(dev), &luma, &mask, 127, 255, &stats)) {
		fprintf(stderr, "%s\n", qpu_kernels_last_error(kernels));
		goto out;
	}
	m = qpu_bo_get_map(mask.bo);
	for (i = 0; i < W * H; i++)
		on += m[i] == 255;
	printf("threshold in %.3f ms: %zu of %d pixels above 127\n",
	       stats.elapsed_ns / 1e6, on, W * H);
	/* gray 0 maps to (0 - mean) / std, gray 255 to (1 - mean) / std */
	ret = !(t[0] < -2.0f && t[NET - 1] > 2.0f && on > W * H / 3);
	if (ret)
		fprintf(stderr, "unexpected results\n");
out:
	qpu_bo_free(frame.bo);
	qpu_bo_free(tensor.bo);
	qpu_bo_free(mask.bo);
	qpu_kernels_free(kernels);
	qpu_dev_close(dev);
	return ret;
}
