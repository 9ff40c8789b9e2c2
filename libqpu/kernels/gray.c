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

static const struct qpu_kernel_code gray_prog =
	QPU_KERNEL_CODE_V3D("rgb_to_gray", gray_code, gray, 1);

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
