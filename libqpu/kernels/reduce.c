// SPDX-License-Identifier: MIT
/*
 * qpu_reduce(): reduce.qasm on up to 12 QPUs. Program 0 is the master that
 * gathers the others' partials through the VPM and semaphore 0; the three
 * results land in a one-page buffer of the wrapper's, so callers need no
 * output buffer.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "reduce.qasm.h"
#include "v3d/reduce_v3d42.qasm.h"
#include "v3d/reduce_v3d71.qasm.h"

#define REDUCE_UNIFORMS	11
#define REDUCE_LEAF_UNIFORMS	4	/* what a program other than the master reads */
#define REDUCE_OUT_ROW	48	/* after the partials' rows 0..47 */
#define REDUCE_V3D_AHEAD	6	/* v3d/reduce.qasm's AHEAD */
#define REDUCE_V3D_PARTIALS	48	/* floats a V3D program writes: 16 of each */

static const struct qpu_kernel_code reduce_prog =
	QPU_KERNEL_CODE_V3D("reduce", reduce_code, reduce, REDUCE_V3D_AHEAD);

/*
 * V3D: fold the partials of @qpus programs (v3d/reduce.qasm) and fill the
 * byte counts: the vector, the pieces read again, the partials written.
 */
static void reduce_v3d_fold(const float *p, unsigned int qpus, size_t n,
			    struct qpu_reduce_result *result,
			    struct qpu_kernel_stats *stats)
{
	unsigned int k, i, busy = 0;
	size_t start, count;

	result->sum = 0;
	result->min = p[16];
	result->max = p[32];
	for (k = 0; k < qpus; k++, p += REDUCE_V3D_PARTIALS) {
		for (i = 0; i < 16; i++) {
			result->sum += p[i];
			result->min = p[16 + i] < result->min ? p[16 + i] : result->min;
			result->max = p[32 + i] > result->max ? p[32 + i] : result->max;
		}
		qpu_kernel_split(n / 16, qpus, k, &start, &count);
		busy += count > 0;
	}
	if (stats) {
		stats->tmu_bytes = n * 4 + (uint64_t)busy * REDUCE_V3D_AHEAD * 64 +
				   (uint64_t)qpus * REDUCE_V3D_PARTIALS * 4;
		stats->dma_load_bytes = 0;
		stats->dma_store_bytes = 0;
	}
}

static uint32_t vr_rows(unsigned int n, unsigned int row)
{
	return qpu_vpm_setup(n, 1, qpu_vpm_addr(true, false, QPU_VPM_SIZE_32,
						row, 0, 0));
}

int qpu_reduce(struct qpu_kernels *kernels, unsigned int qpus,
	       const struct qpu_vector *x, struct qpu_reduce_result *result,
	       struct qpu_kernel_stats *stats)
{
	const char *name = reduce_prog.name;
	struct qpu_kernel_launch l = {
		.code = &reduce_prog, .qpus = qpus,
		.uniforms_per_qpu = REDUCE_UNIFORMS,
	};
	struct qpu_bo *bos[2], *out;
	const float *r;
	uint32_t *u;
	size_t n, start, count;
	unsigned int k;
	int ret;

	qpu_kernel_clear_error(kernels);
	if (!x)
		return qpu_kernel_fail(kernels, EINVAL, name, "x: no vector");
	if (!result)
		return qpu_kernel_fail(kernels, EINVAL, name, "no place for the result");
	n = x->length;
	ret = qpu_kernel_check_vector(kernels, name, "x", x, n, 16);
	if (!ret)
		ret = qpu_kernel_check_qpus(kernels, name, qpus);
	if (ret)
		return ret;
	/* VideoCore IV: semaphore 0 counts every program, up to 15 (V3D folds on the CPU) */
	if (qpus > 15 && !qpu_gen_is_v3d(kernels->gen))
		return qpu_kernel_fail(kernels, EINVAL, name, "at most 15 QPUs");

	out = qpu_bo_new(kernels->dev, 4096);
	if (!out)
		return qpu_kernel_fail(kernels, errno, name, "result buffer: %s",
				       strerror(errno));
	u = calloc((size_t)qpus * REDUCE_UNIFORMS, sizeof(*u));
	if (!u) {
		qpu_bo_free(out);
		return qpu_kernel_fail(kernels, ENOMEM, name, "out of memory");
	}
	for (k = 0; k < qpus; k++) {
		uint32_t *p = u + k * REDUCE_UNIFORMS;

		qpu_kernel_split(n / 16, qpus, k, &start, &count);
		p[0] = qpu_kernel_addr(x->bo, x->offset + start * 64);
		p[1] = (uint32_t)count;
		p[2] = qpu_vpm_setup(0, 16, qpu_vpm_addr(true, false,
							 QPU_VPM_SIZE_32, k,
							 0, 0));
		p[3] = k == 0;
		p[4] = qpus;
		p[5] = vr_rows(qpus, 0);
		p[6] = vr_rows(qpus, 16);
		p[7] = vr_rows(qpus, 32);
		p[8] = qpu_kernel_vw_row(REDUCE_OUT_ROW);
		p[9] = qpu_kernel_vdw_rows(3, 1, REDUCE_OUT_ROW);
		p[10] = qpu_bo_get_bus_addr(out);
	}
	bos[0] = x->bo;
	bos[1] = out;
	l.uniforms = u;
	l.bos = bos;
	l.bo_count = 2;
	ret = qpu_kernel_run(kernels, &l, stats);
	free(u);
	if (!ret && qpu_gen_is_v3d(kernels->gen)) {
		reduce_v3d_fold(qpu_bo_get_map(out), qpus, n, result, stats);
	} else if (!ret) {
		r = qpu_bo_get_map(out);
		result->sum = r[0];
		result->min = r[1];
		result->max = r[2];
		if (stats) {
			stats->tmu_bytes = n * 4;
			stats->uniform_bytes = (REDUCE_UNIFORMS +
						(qpus - 1) * REDUCE_LEAF_UNIFORMS) * 4;
			stats->dma_load_bytes = 0;
			stats->dma_store_bytes = 12;
		}
	}
	qpu_bo_free(out);
	return ret;
}
