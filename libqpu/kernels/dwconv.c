// SPDX-License-Identifier: MIT
/*
 * qpu_dwconv3x3(): dwconv.qasm on up to 12 QPUs. The host deals the C x OH
 * output rows out evenly, cuts each program's run into tasks of one
 * channel and writes the uniforms (the layout is at the top of
 * dwconv.qasm); the zero area the pad rows read follows the uniforms in
 * the kernels' scratch buffer.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "nn_kernels.h"
#include "dwconv.qasm.h"

static const struct qpu_kernel_code dwconv_prog = QPU_KERNEL_CODE("dwconv", dwconv_code);

#define DW_HEADER	15	/* uniforms before the tasks */
#define DW_TASK		14	/* uniforms a task */
#define DW_LANES	16

static int dw_check(struct qpu_kernels *kernels, const struct qpu_dwconv *p)
{
	const char *name = dwconv_prog.name;
	size_t in, out;
	int ret;

	if (!p->c || !p->h || !p->w || !p->oh || !p->ow)
		return qpu_kernel_fail(kernels, EINVAL, name,
				       "a dimension is 0 (C %u, input %ux%u, output %ux%u)",
				       p->c, p->h, p->w, p->oh, p->ow);
	if (!p->stride || p->stride > 15)
		return qpu_kernel_fail(kernels, EINVAL, name,
				       "stride %u: the kernel takes 1 to 15", p->stride);
	if ((size_t)p->h * p->w > QPU_DWCONV_MAX_PLANE ||
	    (size_t)p->oh * p->ow > QPU_DWCONV_MAX_PLANE)
		return qpu_kernel_fail(kernels, EINVAL, name,
				       "planes of %ux%u and %ux%u: at most %u floats each",
				       p->h, p->w, p->oh, p->ow, QPU_DWCONV_MAX_PLANE);
	if (p->pad_top > p->oh * p->stride || p->pad_left > p->ow * p->stride)
		return qpu_kernel_fail(kernels, EINVAL, name,
				       "pads %u, %u reach past the output", p->pad_top,
				       p->pad_left);
	if (!p->weights)
		return qpu_kernel_fail(kernels, EINVAL, name, "no weights");
	in = (size_t)p->c * p->h * p->w * 4;
	out = (size_t)p->c * p->oh * p->ow * 4;
	ret = qpu_kernel_check_buf(kernels, name, "x", p->x, p->x_off, in, 4);
	if (!ret)
		ret = qpu_kernel_check_buf(kernels, name, "y", p->y, p->y_off, out, 4);
	if (!ret && p->x == p->y && p->x_off < p->y_off + out && p->y_off < p->x_off + in)
		ret = qpu_kernel_fail(kernels, EINVAL, name, "x and y overlap");
	return ret;
}

/* Program @k's uniforms into @u (room for @per words); returns the words. */
static unsigned int dw_uniforms(const struct qpu_dwconv *p, unsigned int qpus, unsigned int k,
				uint32_t zero, uint32_t *u)
{
	unsigned int nvec = (p->ow + DW_LANES - 1) / DW_LANES;
	unsigned int tail = p->ow - (nvec - 1) * DW_LANES, n = 0, tasks = 0, j;
	size_t start, count, r, rows;
	uint32_t *ntasks;

	qpu_kernel_split((size_t)p->c * p->oh, qpus, k, &start, &count);
	ntasks = &u[n++];
	u[n++] = p->w - 1;
	u[n++] = p->h - 1;
	u[n++] = p->w * 4;
	u[n++] = p->ow * 4;
	u[n++] = DW_LANES * p->stride;
	u[n++] = p->stride;
	u[n++] = p->pad_left;
	u[n++] = nvec;
	u[n++] = qpu_kernel_vw_row(k);
	u[n++] = qpu_kernel_vdw_rows(1, DW_LANES, k);
	u[n++] = qpu_kernel_vdw_rows(1, tail, k);
	u[n++] = zero;
	u[n++] = qpu_unif_f(p->lo);
	u[n++] = qpu_unif_f(p->hi);
	for (r = start; r < start + count; r += rows, tasks++) {
		size_t c = r / p->oh, oy = r % p->oh;

		rows = p->oh - oy;
		if (rows > start + count - r)
			rows = start + count - r;
		u[n++] = qpu_kernel_addr(p->x, p->x_off + c * p->h * p->w * 4);
		u[n++] = qpu_kernel_addr(p->y, p->y_off + (c * p->oh + oy) * p->ow * 4);
		u[n++] = (uint32_t)((int64_t)oy * p->stride - p->pad_top);
		u[n++] = (uint32_t)rows;
		for (j = 0; j < 9; j++)
			u[n++] = qpu_unif_f(p->weights[c * 9 + j]);
		u[n++] = qpu_unif_f(p->bias ? p->bias[c] : 0.0f);
	}
	*ntasks = tasks;
	return n;
}

int qpu_dwconv3x3(struct qpu_kernels *kernels, unsigned int qpus, const struct qpu_dwconv *p,
		  struct qpu_kernel_stats *stats)
{
	const char *name = dwconv_prog.name;
	struct qpu_kernel_launch l = { .code = &dwconv_prog, .qpus = qpus };
	struct qpu_bo *bos[3], *scratch;
	size_t per, unif_bytes, zero_bytes;
	uint32_t *u;
	unsigned int k;
	int ret;

	qpu_kernel_clear_error(kernels);
	if (!p)
		return qpu_kernel_fail(kernels, EINVAL, name, "no convolution");
	ret = dw_check(kernels, p);
	if (!ret)
		ret = qpu_kernel_check_qpus(kernels, name, qpus);
	if (ret)
		return ret;
	/* A program's run of rows spans at most this many channels. */
	per = DW_HEADER + DW_TASK * (((size_t)p->c * p->oh / qpus + 1) / p->oh + 2);
	unif_bytes = (size_t)qpus * per * 4;
	zero_bytes = ((size_t)p->w * 4 + 63) & ~(size_t)63;
	scratch = qpu_kernel_scratch(kernels, unif_bytes + zero_bytes);
	if (!scratch)
		return qpu_kernel_fail(kernels, errno, name, "scratch buffer: %s",
				       strerror(errno));
	/* qpu_kernel_run() copies the uniforms to the start of this buffer. */
	memset((uint8_t *)qpu_bo_get_map(scratch) + unif_bytes, 0, zero_bytes);
	u = calloc((size_t)qpus * per, sizeof(*u));
	if (!u)
		return qpu_kernel_fail(kernels, ENOMEM, name, "out of memory");
	for (k = 0; k < qpus; k++)
		dw_uniforms(p, qpus, k, qpu_kernel_addr(scratch, unif_bytes), u + k * per);
	bos[0] = p->x;
	bos[1] = p->y;
	bos[2] = scratch;
	l.uniforms = u;
	l.uniforms_per_qpu = (unsigned int)per;
	l.bos = bos;
	l.bo_count = 3;
	ret = qpu_kernel_run(kernels, &l, stats);
	free(u);
	if (!ret && stats) {
		stats->tmu_bytes = (uint64_t)p->c * p->oh *
				   ((p->ow + DW_LANES - 1) / DW_LANES) * 9 * DW_LANES * 4;
		stats->dma_load_bytes = 0;
		stats->dma_store_bytes = (uint64_t)p->c * p->oh * p->ow * 4;
	}
	return ret;
}
