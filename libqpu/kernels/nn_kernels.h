/* SPDX-License-Identifier: MIT */
/*
 * The kernels libqpu/nn's QPU backend calls besides qpu_sgemm(): internal
 * to libqpu (not in <qpu_kernels.h>), with the sample kernels' conventions:
 * 0 or a negative errno, qpu_kernels_last_error() saying why, and the
 * modelled time summed for qpu_kernels_take_timing().
 */
#ifndef LIBQPU_NN_KERNELS_H
#define LIBQPU_NN_KERNELS_H

#include <stddef.h>

#include "qpu.h"
#include "qpu_kernels.h"

/*
 * The largest plane (H x W floats) the depthwise kernel takes: its row
 * offsets are 24-bit products (mul24).
 */
#define QPU_DWCONV_MAX_PLANE	((1u << 22) - 1)

/**
 * struct qpu_dwconv - one depthwise 3x3 convolution (dwconv.qasm)
 * @x: C planes of @h x @w floats, plane after plane, at @x_off of @x
 * @y: C planes of @oh x @ow floats, at @y_off of @y (may not overlap @x)
 * @c: channels (groups): one 3x3 filter each
 * @stride: both directions' (1 or 2 in MobileNet; any from 1 to 15)
 * @pad_top, @pad_left: zeros before the first row and column; the pads
 *	after them follow from @oh and @ow
 * @weights: @c x 3 x 3 floats
 * @bias: @c floats, or NULL
 * @lo, @hi: each output is clamped to them: -inf and inf for none, 0 and
 *	inf for ReLU, 0 and 6 for ReLU6 (Clip)
 */
struct qpu_dwconv {
	struct qpu_bo *x;
	size_t x_off;
	struct qpu_bo *y;
	size_t y_off;
	unsigned int c, h, w, oh, ow;
	unsigned int stride, pad_top, pad_left;
	const float *weights;
	const float *bias;
	float lo, hi;
};

/*
 * Run @p on @qpus QPUs (1 to 12). -EINVAL with the message for a shape the
 * kernel does not take (a dimension 0, a plane over QPU_DWCONV_MAX_PLANE,
 * a stride of 0 or over 15, pads of 16 or more, buffers too small or not
 * word-aligned).
 */
int qpu_dwconv3x3(struct qpu_kernels *kernels, unsigned int qpus, const struct qpu_dwconv *p,
		  struct qpu_kernel_stats *stats);

#endif /* LIBQPU_NN_KERNELS_H */
