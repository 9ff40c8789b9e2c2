// SPDX-License-Identifier: MIT
/*
 * qpu_rgb_to_gray(): gray.qasm on up to 12 QPUs, a streaming kernel
 * (kernel.h): the image is one run of 64-pixel blocks, every program
 * converting consecutive blocks.
 */

#include "kernel.h"
#include "gray.qasm.h"
#include "v3d/gray_v3d42.qasm.h"
#include "v3d/gray_v3d71.qasm.h"

/* 4.2 fetches 16 bytes a lane for every 12 of an aligned image (v3d/gen42/gray.qasm) */
static const struct qpu_kernel_code gray_prog = {
	.name = "rgb_to_gray", .halves = gray_code, .size = sizeof(gray_code),
	.v3d42 = &(const struct qpu_kernel_code) {
		.name = "rgb_to_gray", .halves = gray_v3d42_code,
		.size = sizeof(gray_v3d42_code), .reread = 1,
		.fetch_num = 4, .fetch_den = 3,
	},
	.v3d71 = &(const struct qpu_kernel_code)
		QPU_KERNEL_V3D_CODE("rgb_to_gray", gray_v3d71_code, 1),
};

int qpu_rgb_to_gray(struct qpu_kernels *kernels, unsigned int qpus,
		    const struct qpu_image *rgb, const struct qpu_image *gray,
		    struct qpu_kernel_stats *stats)
{
	const struct qpu_kernel_operand ops[] = {
		{ .name = "rgb", .image = rgb, .bpp = 3,
		  .access = QPU_KERNEL_TMU_READ },
		{ .name = "gray", .image = gray, .bpp = 1,
		  .access = QPU_KERNEL_DMA_STORE },
	};
	const struct qpu_kernel_stream s = {
		.code = &gray_prog, .piece = 64, .ops = ops, .op_count = 2,
	};

	return qpu_kernel_stream_run(kernels, qpus, &s, stats);
}
