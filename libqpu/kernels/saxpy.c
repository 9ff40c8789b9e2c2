// SPDX-License-Identifier: MIT
/*
 * qpu_saxpy(): saxpy.qasm on up to 12 QPUs, a streaming kernel (kernel.h)
 * like qpu_vector_add(): every program streams through its own run of
 * 16-float pieces; y is read and stored.
 */

#include "kernel.h"
#include "saxpy.qasm.h"
#include "v3d/saxpy_v3d42.qasm.h"
#include "v3d/saxpy_v3d71.qasm.h"

static const struct qpu_kernel_code saxpy_prog =
	QPU_KERNEL_CODE_V3D("saxpy", saxpy_code, saxpy, 3);

int qpu_saxpy(struct qpu_kernels *kernels, unsigned int qpus, float alpha,
	      const struct qpu_vector *x, const struct qpu_vector *y,
	      struct qpu_kernel_stats *stats)
{
	const struct qpu_kernel_operand ops[] = {
		{ .name = "x", .vector = x, .access = QPU_KERNEL_TMU_READ },
		{ .name = "y", .vector = y,
		  .access = QPU_KERNEL_TMU_READ | QPU_KERNEL_DMA_STORE },
	};
	const uint32_t consts[] = { qpu_unif_f(alpha) };
	const struct qpu_kernel_stream s = {
		.code = &saxpy_prog, .piece = 16, .ops = ops, .op_count = 2,
		.consts = consts, .const_count = 1,
	};

	return qpu_kernel_stream_run(kernels, qpus, &s, stats);
}
