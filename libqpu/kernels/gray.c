// SPDX-License-Identifier: MIT
/*
 * qpu_rgb_to_gray(): gray.qasm on up to 12 QPUs; the image is one run of
 * 64-pixel blocks, every program converting consecutive blocks.
 */

#include <errno.h>
#include <stdlib.h>

#include "kernel.h"
#include "gray.qasm.h"

#define GRAY_UNIFORMS	5

static const struct qpu_kernel_code gray_prog =
	QPU_KERNEL_CODE("rgb_to_gray", gray_code);

int qpu_rgb_to_gray(struct qpu_dev *dev, unsigned int qpus,
		    const struct qpu_image *rgb, const struct qpu_image *gray,
		    struct qpu_kernel_stats *stats)
{
	const char *name = gray_prog.name;
	struct qpu_kernel_launch l = {
		.code = &gray_prog, .qpus = qpus,
		.uniforms_per_qpu = GRAY_UNIFORMS,
	};
	struct qpu_bo *bos[2];
	size_t pixels, start, count;
	unsigned int k;
	uint32_t *u;
	int ret;

	qpu_kernel_clear_error();
	ret = qpu_kernel_check_image(name, "rgb", rgb, 3, 64);
	if (!ret)
		ret = qpu_kernel_check_image(name, "gray", gray, 1, 64);
	if (ret)
		return ret;
	if (gray->width != rgb->width || gray->height != rgb->height)
		return qpu_kernel_fail(EINVAL, name,
				       "gray is %ux%u, rgb is %ux%u",
				       gray->width, gray->height, rgb->width,
				       rgb->height);
	ret = qpu_kernel_check_qpus(dev, name, qpus);
	if (ret)
		return ret;

	pixels = (size_t)rgb->width * rgb->height;
	u = calloc((size_t)qpus * GRAY_UNIFORMS, sizeof(*u));
	if (!u)
		return qpu_kernel_fail(ENOMEM, name, "out of memory");
	for (k = 0; k < qpus; k++) {
		uint32_t *p = u + k * GRAY_UNIFORMS;

		qpu_kernel_split(pixels / 64, qpus, k, &start, &count);
		p[0] = qpu_kernel_addr(rgb->bo, rgb->offset + start * 192);
		p[1] = qpu_kernel_addr(gray->bo, gray->offset + start * 64);
		p[2] = (uint32_t)count;
		p[3] = qpu_kernel_vw_row(k);
		p[4] = qpu_kernel_vdw_rows(1, 16, k);
	}
	bos[0] = rgb->bo;
	bos[1] = gray->bo;
	l.uniforms = u;
	l.bos = bos;
	l.bo_count = 2;
	ret = qpu_kernel_run(dev, &l, stats);
	free(u);
	if (!ret && stats) {
		stats->tmu_bytes = pixels * 3;
		stats->dma_load_bytes = 0;
		stats->dma_store_bytes = pixels;
	}
	return ret;
}
