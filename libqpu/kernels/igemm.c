// SPDX-License-Identifier: MIT
/*
 * qpu_igemm_u8(): igemm.qasm (VideoCore IV) and v3d/igemm.qasm (V3D 4.2,
 * 7.1), the integer product libqpu/nn's QLinearConv and QLinearMatMul run
 * on: unsigned bytes four to a word, exact 32-bit sums. The pieces (one
 * row, 16 columns) are split over the programs in C's order, so a product
 * of one row (a fully connected layer on one image) fills every QPU.
 */

#include <errno.h>
#include <stdlib.h>

#include "kernel.h"
#include "nn_kernels.h"
#include "igemm.qasm.h"
#include "v3d/igemm_v3d42.qasm.h"
#include "v3d/igemm_v3d71.qasm.h"

static const struct qpu_kernel_code igemm_prog =
	QPU_KERNEL_CODE_V3D("igemm", igemm_code, igemm, 0);

/* The uniforms a program reads (igemm.qasm's head). */
#define IGEMM_UNIFORMS	11

static int igemm_check(struct qpu_kernels *kernels, unsigned int qpus, const struct qpu_igemm *p)
{
	const char *name = igemm_prog.name;
	int ret;

	if (!p->m || !p->n || !p->k4)
		return qpu_kernel_fail(kernels, EINVAL, name, "empty product (%u x %u, %u words)",
				       p->m, p->n, p->k4);
	if (p->n % 16)
		return qpu_kernel_fail(kernels, EINVAL, name, "%u columns: not a multiple of 16",
				       p->n);
	if (p->k4 > QPU_IGEMM_MAX_K4 || p->m > QPU_IGEMM_MAX_SIDE || p->n > QPU_IGEMM_MAX_SIDE)
		return qpu_kernel_fail(kernels, EINVAL, name,
				       "%u x %u of %u words: over the kernel's 24-bit offsets",
				       p->m, p->n, p->k4);
	ret = qpu_kernel_check_qpus(kernels, name, qpus);
	if (!ret)
		ret = qpu_kernel_check_buf(kernels, name, "a", p->a, p->a_off,
					   (size_t)p->m * p->k4 * 4, 4);
	if (!ret)
		ret = qpu_kernel_check_buf(kernels, name, "b", p->b, p->b_off,
					   (size_t)p->n * p->k4 * 4, 4);
	if (!ret)
		ret = qpu_kernel_check_buf(kernels, name, "c", p->c, p->c_off,
					   (size_t)p->m * p->n * 4, 4);
	return ret;
}

int qpu_igemm_u8(struct qpu_kernels *kernels, unsigned int qpus, const struct qpu_igemm *p,
		 struct qpu_kernel_stats *stats)
{
	struct qpu_kernel_launch l = {
		.code = &igemm_prog, .uniforms_per_qpu = IGEMM_UNIFORMS,
	};
	size_t ppr = p->n / 16, pieces = (size_t)p->m * ppr, start, count, row_bytes;
	struct qpu_bo *bos[3];
	unsigned int k, batch;
	uint32_t *u;
	int ret;

	qpu_kernel_clear_error(kernels);
	ret = igemm_check(kernels, qpus, p);
	if (ret)
		return ret;
	if (qpus > pieces)
		qpus = (unsigned int)pieces;
	batch = qpu_kernel_batch_rows(qpus);
	row_bytes = (size_t)p->k4 * 4;
	u = calloc((size_t)qpus * IGEMM_UNIFORMS, sizeof(*u));
	if (!u)
		return qpu_kernel_fail(kernels, ENOMEM, igemm_prog.name, "out of memory");
	for (k = 0; k < qpus; k++) {
		uint32_t *w = u + k * IGEMM_UNIFORMS;
		size_t m0, n0;

		qpu_kernel_split(pieces, qpus, k, &start, &count);
		m0 = start / ppr;
		n0 = start % ppr;
		w[0] = qpu_kernel_addr(p->a, p->a_off + m0 * row_bytes);
		w[1] = qpu_kernel_addr(p->c, p->c_off + start * 64);
		w[2] = (uint32_t)count;
		w[3] = qpu_kernel_vw_row(k * batch);
		w[4] = qpu_kernel_vdw_rows(0, 16, k * batch);
		w[5] = batch;
		w[6] = qpu_kernel_addr(p->b, p->b_off + n0 * 16 * row_bytes);
		w[7] = (uint32_t)(ppr - n0);
		w[8] = qpu_kernel_addr(p->b, p->b_off);
		w[9] = p->k4;
		w[10] = (uint32_t)ppr;
	}
	bos[0] = p->a;
	bos[1] = p->b;
	bos[2] = p->c;
	l.qpus = qpus;
	l.uniforms = u;
	l.bos = bos;
	l.bo_count = 3;
	ret = qpu_kernel_run(kernels, &l, stats);
	free(u);
	if (!ret && stats) {
		/* every lane looks a word of A and of B up per step */
		uint64_t c_bytes = (uint64_t)p->m * p->n * 4;

		stats->tmu_bytes = (uint64_t)p->m * p->n * p->k4 * 8;
		stats->dma_load_bytes = 0;
		stats->dma_store_bytes = c_bytes;
		if (qpu_gen_is_v3d(kernels->gen)) {
			stats->tmu_bytes += c_bytes;
			stats->dma_store_bytes = 0;
		}
	}
	return ret;
}
