// SPDX-License-Identifier: MIT
/*
 * qpu_saxpy(): saxpy.qasm on up to 12 QPUs, split like qpu_vector_add():
 * every program streams through its own run of 16-float pieces.
 */

#include <errno.h>
#include <stdlib.h>

#include "kernel.h"
#include "saxpy.qasm.h"

#define SAXPY_UNIFORMS	6

static const struct qpu_kernel_code saxpy_prog =
	QPU_KERNEL_CODE("saxpy", saxpy_code);

int qpu_saxpy(struct qpu_dev *dev, unsigned int qpus, float alpha,
	      const struct qpu_vector *x, const struct qpu_vector *y,
	      struct qpu_kernel_stats *stats)
{
	const char *name = saxpy_prog.name;
	struct qpu_kernel_launch l = {
		.code = &saxpy_prog, .qpus = qpus,
		.uniforms_per_qpu = SAXPY_UNIFORMS,
	};
	struct qpu_bo *bos[2];
	uint32_t *u;
	size_t n, start, count;
	unsigned int k;
	int ret;

	qpu_kernel_clear_error();
	if (!x)
		return qpu_kernel_fail(EINVAL, name, "x: no vector");
	n = x->length;
	ret = qpu_kernel_check_vector(name, "x", x, n, 16);
	if (!ret)
		ret = qpu_kernel_check_vector(name, "y", y, n, 16);
	if (!ret)
		ret = qpu_kernel_check_qpus(dev, name, qpus);
	if (ret)
		return ret;

	u = calloc((size_t)qpus * SAXPY_UNIFORMS, sizeof(*u));
	if (!u)
		return qpu_kernel_fail(ENOMEM, name, "out of memory");
	for (k = 0; k < qpus; k++) {
		uint32_t *p = u + k * SAXPY_UNIFORMS;

		qpu_kernel_split(n / 16, qpus, k, &start, &count);
		p[0] = qpu_kernel_addr(x->bo, x->offset + start * 64);
		p[1] = qpu_kernel_addr(y->bo, y->offset + start * 64);
		p[2] = (uint32_t)count;
		p[3] = qpu_kernel_vw_row(k);
		p[4] = qpu_kernel_vdw_rows(1, 16, k);
		p[5] = qpu_unif_f(alpha);
	}
	bos[0] = x->bo;
	bos[1] = y->bo;
	l.uniforms = u;
	l.bos = bos;
	l.bo_count = 2;
	ret = qpu_kernel_run(dev, &l, stats);
	free(u);
	if (!ret && stats) {
		stats->tmu_bytes = 2 * n * 4;
		stats->dma_load_bytes = 0;
		stats->dma_store_bytes = n * 4;
	}
	return ret;
}
