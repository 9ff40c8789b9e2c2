// SPDX-License-Identifier: MIT
/*
 * qpu_vector_add(): vecadd.qasm on up to 12 QPUs. The vector is cut into
 * 16-float pieces and every program gets a run of consecutive pieces, so
 * each streams through memory on its own.
 */

#include <errno.h>
#include <stdlib.h>

#include "kernel.h"
#include "vecadd.qasm.h"

#define VECADD_UNIFORMS	6

static const struct qpu_kernel_code vecadd_prog =
	QPU_KERNEL_CODE("vector_add", vecadd_code);

int qpu_vector_add(struct qpu_dev *dev, unsigned int qpus,
		   const struct qpu_vector *a, const struct qpu_vector *b,
		   const struct qpu_vector *c, struct qpu_kernel_stats *stats)
{
	const char *name = vecadd_prog.name;
	struct qpu_kernel_launch l = {
		.code = &vecadd_prog, .qpus = qpus,
		.uniforms_per_qpu = VECADD_UNIFORMS,
	};
	struct qpu_bo *bos[3];
	uint32_t *u;
	size_t n, start, count;
	unsigned int k;
	int ret;

	qpu_kernel_clear_error();
	if (!a)
		return qpu_kernel_fail(EINVAL, name, "a: no vector");
	n = a->length;
	ret = qpu_kernel_check_vector(name, "a", a, n, 16);
	if (!ret)
		ret = qpu_kernel_check_vector(name, "b", b, n, 16);
	if (!ret)
		ret = qpu_kernel_check_vector(name, "c", c, n, 16);
	if (!ret)
		ret = qpu_kernel_check_qpus(dev, name, qpus);
	if (ret)
		return ret;

	u = calloc((size_t)qpus * VECADD_UNIFORMS, sizeof(*u));
	if (!u)
		return qpu_kernel_fail(ENOMEM, name, "out of memory");
	for (k = 0; k < qpus; k++) {
		uint32_t *p = u + k * VECADD_UNIFORMS;

		qpu_kernel_split(n / 16, qpus, k, &start, &count);
		p[0] = qpu_kernel_addr(a->bo, a->offset + start * 64);
		p[1] = qpu_kernel_addr(b->bo, b->offset + start * 64);
		p[2] = qpu_kernel_addr(c->bo, c->offset + start * 64);
		p[3] = (uint32_t)count;
		p[4] = qpu_kernel_vw_row(k);
		p[5] = qpu_kernel_vdw_rows(1, 16, k);
	}
	bos[0] = a->bo;
	bos[1] = b->bo;
	bos[2] = c->bo;
	l.uniforms = u;
	l.bos = bos;
	l.bo_count = 3;
	ret = qpu_kernel_run(dev, &l, stats);
	free(u);
	if (!ret && stats) {
		stats->tmu_bytes = 2 * n * 4;
		stats->dma_load_bytes = 0;
		stats->dma_store_bytes = n * 4;
	}
	return ret;
}
