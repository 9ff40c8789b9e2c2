// SPDX-License-Identifier: MIT
/*
 * One sample-kernel job on a V3D 4.2/7.1 device: the launch of kernel.h's
 * struct qpu_kernel_launch as a compute dispatch (SUBMIT_CSD's shape).
 *
 * DOC: V3D launch
 * Program k of a launch is workgroup k of a one-dimensional dispatch of
 * 16-invocation workgroups, one supergroup each, so the CSD gives the
 * first program a slot on QPU 0, the next one on QPU 1... and @qpus
 * programs run on @qpus QPUs, one thread each (the threading bit clear:
 * the thread's TMU FIFO holds 8 results). Every invocation of the dispatch
 * reads the same uniform stream: two words, the address of program 0's
 * uniforms window and the bytes of a window, after which program k reads
 * window k (the words a VideoCore IV program k gets) with ldunifa
 * (libqpu/kernels/v3d/v3d.qinc). The windows follow the two words in
 * @kernels's scratch buffer.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

#define V3D_HEADER_WORDS	2
#define V3D_BATCH_LANES		16

const struct qpu_kernel_code *qpu_kernel_code_of(const struct qpu_kernels *kernels,
						 const struct qpu_kernel_code *code)
{
	switch (kernels->gen) {
	case QPU_GEN_V3D42:
		return code->v3d42;
	case QPU_GEN_V3D71:
		return code->v3d71;
	default:
		return code;
	}
}

int qpu_kernel_dispatch_v3d(struct qpu_kernels *kernels, const struct qpu_kernel_code *code,
			    unsigned int programs, struct qpu_bo *uniforms,
			    struct qpu_bo *const *bos, unsigned int bo_count,
			    struct qpu_kernel_stats *stats)
{
	struct qpu_v3d_dispatch d = {
		.uniforms = uniforms, .wg_count = { programs, 1, 1 },
		.wg_size = V3D_BATCH_LANES, .wgs_per_sg = 1, .threads = 2,
	};
	struct qpu_job_desc job = {
		.in_fence_fd = -1, .kind = QPU_JOB_V3D_DISPATCH, .dispatch = &d,
		.bos = (struct qpu_bo **)bos, .bo_count = bo_count,
	};
	int ret;

	d.code = qpu_kernel_code_bo(kernels, code);
	if (!d.code)
		return qpu_kernel_fail(kernels, errno, code->name, "code buffer: %s",
				       strerror(errno));
	ret = qpu_kernel_submit(kernels, code->name, &job, stats);
	if (stats)
		stats->qpus = programs;
	return ret;
}

int qpu_kernel_run_v3d(struct qpu_kernels *kernels, const struct qpu_kernel_launch *l,
		       struct qpu_kernel_stats *stats)
{
	const struct qpu_kernel_code *code = qpu_kernel_code_of(kernels, l->code);
	size_t window = (size_t)l->uniforms_per_qpu * 4;
	size_t unif_bytes = (size_t)l->qpus * window;
	struct qpu_bo *unif, **bos;
	uint32_t *u;
	int ret;

	if (!code)
		return qpu_kernel_fail(kernels, ENOTSUP, l->code->name,
				       "no program for this device's generation");
	unif = qpu_kernel_scratch(kernels, V3D_HEADER_WORDS * 4 + unif_bytes);
	if (!unif)
		return qpu_kernel_fail(kernels, errno, code->name, "uniforms buffer: %s",
				       strerror(errno));
	u = qpu_bo_get_map(unif);
	u[0] = qpu_kernel_addr(unif, V3D_HEADER_WORDS * 4);
	u[1] = (uint32_t)window;
	if (unif_bytes)
		memcpy(u + V3D_HEADER_WORDS, l->uniforms, unif_bytes);
	/* the uniforms buffer is read through ldunifa, a TMU-like read: list it */
	bos = calloc(l->bo_count + 1, sizeof(*bos));
	if (!bos)
		return qpu_kernel_fail(kernels, ENOMEM, code->name, "out of memory");
	memcpy(bos, l->bos, l->bo_count * sizeof(*bos));
	bos[l->bo_count] = unif;
	ret = qpu_kernel_dispatch_v3d(kernels, code, l->qpus, unif, bos,
				      l->bo_count + 1, stats);
	free(bos);
	if (stats)	/* the two words, and every program's window */
		stats->uniform_bytes = V3D_HEADER_WORDS * 4 * (uint64_t)l->qpus + unif_bytes;
	return ret;
}
