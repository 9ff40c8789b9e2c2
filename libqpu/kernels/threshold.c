// SPDX-License-Identifier: MIT
/*
 * qpu_threshold(): threshold.qasm on up to 12 QPUs; the image is one run of
 * 64-pixel blocks, every program converting consecutive blocks.
 */

#include <errno.h>
#include <stdlib.h>

#include "kernel.h"
#include "threshold.qasm.h"

#define THRESHOLD_UNIFORMS	7

static const struct qpu_kernel_code threshold_prog =
	QPU_KERNEL_CODE("threshold", threshold_code);

int qpu_threshold(struct qpu_dev *dev, unsigned int qpus,
		  const struct qpu_image *in, const struct qpu_image *out,
		  uint8_t t, uint8_t maxval, struct qpu_kernel_stats *stats)
{
	const char *name = threshold_prog.name;
	struct qpu_kernel_launch l = {
		.code = &threshold_prog, .qpus = qpus,
		.uniforms_per_qpu = THRESHOLD_UNIFORMS,
	};
	struct qpu_bo *bos[2];
	size_t pixels, start, count;
	unsigned int k;
	uint32_t *u;
	int ret;

	qpu_kernel_clear_error();
	ret = qpu_kernel_check_image(name, "in", in, 1, 64);
	if (!ret)
		ret = qpu_kernel_check_image(name, "out", out, 1, 64);
	if (ret)
		return ret;
	if (out->width != in->width || out->height != in->height)
		return qpu_kernel_fail(EINVAL, name, "out is %ux%u, in is %ux%u",
				       out->width, out->height, in->width,
				       in->height);
	ret = qpu_kernel_check_qpus(dev, name, qpus);
	if (ret)
		return ret;

	pixels = (size_t)in->width * in->height;
	u = calloc((size_t)qpus * THRESHOLD_UNIFORMS, sizeof(*u));
	if (!u)
		return qpu_kernel_fail(ENOMEM, name, "out of memory");
	for (k = 0; k < qpus; k++) {
		uint32_t *p = u + k * THRESHOLD_UNIFORMS;

		qpu_kernel_split(pixels / 64, qpus, k, &start, &count);
		p[0] = qpu_kernel_addr(in->bo, in->offset + start * 64);
		p[1] = qpu_kernel_addr(out->bo, out->offset + start * 64);
		p[2] = (uint32_t)count;
		p[3] = qpu_kernel_vw_row(k);
		p[4] = qpu_kernel_vdw_rows(1, 16, k);
		p[5] = t * 0x01010101u;
		p[6] = maxval * 0x01010101u;
	}
	bos[0] = in->bo;
	bos[1] = out->bo;
	l.uniforms = u;
	l.bos = bos;
	l.bo_count = 2;
	ret = qpu_kernel_run(dev, &l, stats);
	free(u);
	if (!ret && stats) {
		stats->tmu_bytes = pixels;
		stats->dma_load_bytes = 0;
		stats->dma_store_bytes = pixels;
	}
	return ret;
}
