// SPDX-License-Identifier: MIT
/*
 * qpu_threshold(): threshold.qasm on up to 12 QPUs, a streaming kernel
 * (kernel.h): the image is one run of 64-pixel blocks, every program
 * converting consecutive blocks.
 */

#include "kernel.h"
#include "threshold.qasm.h"
#include "v3d/threshold_v3d42.qasm.h"
#include "v3d/threshold_v3d71.qasm.h"

static const struct qpu_kernel_code threshold_prog =
	QPU_KERNEL_CODE_V3D("threshold", threshold_code, threshold, 4);

int qpu_threshold(struct qpu_kernels *kernels, unsigned int qpus,
		  const struct qpu_image *in, const struct qpu_image *out,
		  uint8_t t, uint8_t maxval, struct qpu_kernel_stats *stats)
{
	const struct qpu_kernel_operand ops[] = {
		{ .name = "in", .image = in, .bpp = 1,
		  .access = QPU_KERNEL_TMU_READ },
		{ .name = "out", .image = out, .bpp = 1,
		  .access = QPU_KERNEL_DMA_STORE },
	};
	const uint32_t consts[] = { t * 0x01010101u, maxval * 0x01010101u };
	const struct qpu_kernel_stream s = {
		.code = &threshold_prog, .piece = 64, .ops = ops, .op_count = 2,
		.consts = consts, .const_count = 2,
	};

	return qpu_kernel_stream_run(kernels, qpus, &s, stats);
}
