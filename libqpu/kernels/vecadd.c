// SPDX-License-Identifier: MIT
/*
 * qpu_vector_add(): vecadd.qasm on up to 12 QPUs, a streaming kernel
 * (kernel.h): the vectors are cut into 16-float pieces and every program
 * streams through its own run of consecutive pieces.
 */

#include "kernel.h"
#include "vecadd.qasm.h"
#include "v3d/vecadd_v3d42.qasm.h"
#include "v3d/vecadd_v3d71.qasm.h"

static const struct qpu_kernel_code vecadd_prog =
	QPU_KERNEL_CODE_V3D("vector_add", vecadd_code, vecadd, 3);

int qpu_vector_add(struct qpu_kernels *kernels, unsigned int qpus,
		   const struct qpu_vector *a, const struct qpu_vector *b,
		   const struct qpu_vector *c, struct qpu_kernel_stats *stats)
{
	const struct qpu_kernel_operand ops[] = {
		{ .name = "a", .vector = a, .access = QPU_KERNEL_TMU_READ },
		{ .name = "b", .vector = b, .access = QPU_KERNEL_TMU_READ },
		{ .name = "c", .vector = c, .access = QPU_KERNEL_DMA_STORE },
	};
	const struct qpu_kernel_stream s = {
		.code = &vecadd_prog, .piece = 16, .ops = ops, .op_count = 3,
	};

	return qpu_kernel_stream_run(kernels, qpus, &s, stats);
}
