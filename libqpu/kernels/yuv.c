// SPDX-License-Identifier: MIT
/*
 * qpu_yuv420_to_rgb(): yuv.qasm on up to 12 QPUs, every program converting
 * a run of output rows. The per-channel normalisation is folded into one
 * multiply-add (a = 1 / (255 std), b = -mean / std) on the host.
 */

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "kernel.h"
#include "yuv.qasm.h"
#include "v3d/yuv_v3d42.qasm.h"
#include "v3d/yuv_v3d71.qasm.h"

#define YUV_UNIFORMS	23
/*
 * V3D's programs take the conversion's constants as uniforms too (no
 * 32-bit immediates there): VideoCore IV's yuv.qasm has them as ldi.
 */
static const float yuv_v3d_consts[] = { 1.402f, 0.344136f, 0.714136f, 1.772f, 255.0f };
#define YUV_V3D_CONSTS	(sizeof(yuv_v3d_consts) / sizeof(yuv_v3d_consts[0]))
#define YUV_MAX_SIDE	4096
/* The 16.16 steps go through mul24: below 2^24, a 255x reduction at most. */
#define YUV_MAX_STEP	((1u << 24) - 1)

static const struct qpu_kernel_code yuv_prog =
	QPU_KERNEL_CODE_V3D("yuv420_to_rgb", yuv_code, yuv, 0);

/* 0 if plane @what of @rows rows of @cols bytes @stride apart is inside. */
static int check_plane(struct qpu_kernels *kernels, const char *what, const struct qpu_bo *bo,
		       size_t offset, size_t cols, size_t rows, size_t stride)
{
	const char *name = yuv_prog.name;

	if (stride < cols || stride >= (1u << 24))
		return qpu_kernel_fail(kernels, EINVAL, name,
				       "%s: stride %zu, needs %zu to 16777215",
				       what, stride, cols);
	return qpu_kernel_check_buf(kernels, name, what, bo, offset,
				    (rows - 1) * stride + cols, 1);
}

static int check_args(struct qpu_kernels *kernels, unsigned int qpus,
		      const struct qpu_yuv420 *src,
		      const struct qpu_planar_rgb *dst,
		      const float mean[3], const float std[3])
{
	const char *name = yuv_prog.name;
	unsigned int c;
	int ret;

	if (!src)
		return qpu_kernel_fail(kernels, EINVAL, name, "src: no image");
	if (!dst)
		return qpu_kernel_fail(kernels, EINVAL, name, "dst: no image");
	if (!mean || !std)
		return qpu_kernel_fail(kernels, EINVAL, name, "no mean or std");
	if (src->width < 2 || src->height < 2 || src->width % 2 ||
	    src->height % 2 || src->width > YUV_MAX_SIDE ||
	    src->height > YUV_MAX_SIDE)
		return qpu_kernel_fail(kernels, EINVAL, name,
				       "src: %ux%u; needs even sides of 2 to %u",
				       src->width, src->height, YUV_MAX_SIDE);
	if (!dst->width || dst->width % 16 || !dst->height ||
	    dst->width > YUV_MAX_SIDE || dst->height > YUV_MAX_SIDE)
		return qpu_kernel_fail(kernels, EINVAL, name,
				       "dst: %ux%u; needs a width that is a multiple of 16 and sides up to %u",
				       dst->width, dst->height, YUV_MAX_SIDE);
	if (((uint64_t)src->width << 16) / dst->width > YUV_MAX_STEP ||
	    ((uint64_t)src->height << 16) / dst->height > YUV_MAX_STEP)
		return qpu_kernel_fail(kernels, EINVAL, name,
				       "%ux%u to %ux%u: shrinks by 256 or more",
				       src->width, src->height, dst->width,
				       dst->height);
	for (c = 0; c < 3; c++)
		if (!isfinite(mean[c]) || !isfinite(std[c]) || std[c] == 0 ||
		    !isfinite(1.0f / (255.0f * std[c])))
			return qpu_kernel_fail(kernels, EINVAL, name,
					       "channel %u: mean %g, std %g; needs finite values and std not 0",
					       c, mean[c], std[c]);
	ret = check_plane(kernels, "src Y", src->bo, src->y_offset, src->width,
			  src->height, src->y_stride);
	if (!ret)
		ret = check_plane(kernels, "src U", src->bo, src->u_offset,
				  src->width / 2, src->height / 2,
				  src->uv_stride);
	if (!ret)
		ret = check_plane(kernels, "src V", src->bo, src->v_offset,
				  src->width / 2, src->height / 2,
				  src->uv_stride);
	if (!ret)
		ret = qpu_kernel_check_buf(kernels, name, "dst", dst->bo, dst->offset,
					   (size_t)dst->width * dst->height * 12,
					   4);
	if (!ret)
		ret = qpu_kernel_check_qpus(kernels, name, qpus);
	return ret;
}

int qpu_yuv420_to_rgb(struct qpu_kernels *kernels, unsigned int qpus,
		      const struct qpu_yuv420 *src,
		      const struct qpu_planar_rgb *dst, const float mean[3],
		      const float std[3], struct qpu_kernel_stats *stats)
{
	const char *name = yuv_prog.name;
	bool v3d = qpu_gen_is_v3d(kernels->gen);
	struct qpu_kernel_launch l = {
		.code = &yuv_prog, .qpus = qpus,
		.uniforms_per_qpu = YUV_UNIFORMS + (v3d ? YUV_V3D_CONSTS : 0),
	};
	struct qpu_bo *bos[2];
	size_t plane, start, count, pixels;
	unsigned int k, c;
	uint32_t *u;
	int ret;

	qpu_kernel_clear_error(kernels);
	ret = check_args(kernels, qpus, src, dst, mean, std);
	if (ret)
		return ret;

	pixels = (size_t)dst->width * dst->height;
	plane = pixels * 4;
	u = calloc((size_t)qpus * l.uniforms_per_qpu, sizeof(*u));
	if (!u)
		return qpu_kernel_fail(kernels, ENOMEM, name, "out of memory");
	for (k = 0; k < qpus; k++) {
		uint32_t *p = u + k * l.uniforms_per_qpu;

		qpu_kernel_split(dst->height, qpus, k, &start, &count);
		p[0] = qpu_kernel_addr(src->bo, src->y_offset);
		p[1] = qpu_kernel_addr(src->bo, src->u_offset);
		p[2] = qpu_kernel_addr(src->bo, src->v_offset);
		p[3] = (uint32_t)src->y_stride;
		p[4] = (uint32_t)src->uv_stride;
		p[5] = (uint32_t)(((uint64_t)src->width << 16) / dst->width);
		p[6] = (uint32_t)(((uint64_t)src->height << 16) / dst->height);
		p[7] = (uint32_t)start;
		p[8] = (uint32_t)count;
		p[9] = dst->width / 16;
		p[10] = qpu_kernel_addr(dst->bo, dst->offset +
					start * dst->width * 4);
		p[11] = (uint32_t)plane;
		p[12] = (uint32_t)(2 * plane);
		p[13] = qpu_kernel_vw_row(3 * k);
		p[14] = qpu_kernel_vdw_rows(1, 16, 3 * k);
		p[15] = qpu_kernel_vdw_rows(1, 16, 3 * k + 1);
		p[16] = qpu_kernel_vdw_rows(1, 16, 3 * k + 2);
		for (c = 0; c < 3; c++) {
			p[17 + c] = qpu_unif_f(1.0f / (255.0f * std[c]));
			p[20 + c] = qpu_unif_f(-mean[c] / std[c]);
		}
		for (c = 0; v3d && c < YUV_V3D_CONSTS; c++)
			p[YUV_UNIFORMS + c] = qpu_unif_f(yuv_v3d_consts[c]);
	}
	bos[0] = src->bo;
	bos[1] = dst->bo;
	l.uniforms = u;
	l.bos = bos;
	l.bo_count = 2;
	ret = qpu_kernel_run(kernels, &l, stats);
	free(u);
	if (!ret && stats) {
		stats->tmu_bytes = pixels * 3 * 4;	/* a word a sample */
		stats->dma_load_bytes = 0;
		stats->dma_store_bytes = plane * 3;
		if (v3d) {	/* the stores are TMU writes */
			stats->tmu_bytes += stats->dma_store_bytes;
			stats->dma_store_bytes = 0;
		}
	}
	return ret;
}
