/* SPDX-License-Identifier: MIT */
/*
 * The kernels libqpu/nn's QPU backend calls besides qpu_sgemm(): internal
 * to libqpu (not in <qpu_kernels.h>), with the sample kernels' conventions:
 * 0 or a negative errno, qpu_kernels_last_error() saying why, and the
 * modelled time summed for qpu_kernels_take_timing(). Both are window
 * kernels (window.c, window.qinc): each output of a plane is a function
 * of a window of its input plane.
 */
#ifndef LIBQPU_NN_KERNELS_H
#define LIBQPU_NN_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "qpu.h"
#include "qpu_kernels.h"

/*
 * The largest plane (H x W or OH x OW floats) the window kernels take:
 * their row offsets are 24-bit products (mul24).
 */
#define QPU_WINDOW_MAX_PLANE	((1u << 22) - 1)
#define QPU_WINDOW_MAX_STRIDE	15
/* V3D's depthwise program takes horizontal strides 1 and 2 (v3d/dwconv.qasm). */
#define QPU_DWCONV_V3D_MAX_STRIDE_W	2
/* The largest side of a pooling window (a global pooling's is the plane's). */
#define QPU_WINDOW_MAX_SIDE	QPU_WINDOW_MAX_PLANE

/**
 * struct qpu_window - the planes of a window kernel
 * @c: channels: input and output planes
 * @h, @w: an input plane's rows and columns
 * @oh, @ow: an output plane's
 * @stride_h, @stride_w: 1 to QPU_WINDOW_MAX_STRIDE
 * @pad_top, @pad_left: rows and columns of pads before the input (at most
 *	@h and @w); those after it follow from @oh and @ow
 */
struct qpu_window {
	unsigned int c, h, w, oh, ow;
	unsigned int stride_h, stride_w, pad_top, pad_left;
};

/**
 * struct qpu_dwconv - one depthwise 3x3 convolution (dwconv.qasm)
 * @x: C planes of H x W floats, plane after plane, at @x_off of @x
 * @y: C planes of OH x OW floats, at @y_off of @y (may not overlap @x)
 * @win: the planes; the filter is 3x3
 * @weights: C x 3 x 3 floats
 * @bias: C floats, or NULL
 * @lo, @hi: each output is clamped to them: -inf and inf for none, 0 and
 *	inf for ReLU, 0 and 6 for ReLU6 (Clip)
 */
struct qpu_dwconv {
	struct qpu_bo *x;
	size_t x_off;
	struct qpu_bo *y;
	size_t y_off;
	struct qpu_window win;
	const float *weights;
	const float *bias;
	float lo, hi;
};

/**
 * struct qpu_pool - one pooling (pool.qasm), ONNX's MaxPool, AveragePool
 *	or (a window of the whole plane) GlobalAveragePool
 * @x, @x_off, @y, @y_off: as struct qpu_dwconv's
 * @win: the planes
 * @kh, @kw: the window, 1 to QPU_WINDOW_MAX_SIDE each
 * @pad_bottom, @pad_right: pads after the input (an average's count)
 * @average: 1 for an average, 0 for a maximum
 * @count_pad: an average counts the pads (count_include_pad)
 * @channels_across: the planes' elements are 4 bytes apart down a column
 *	and a column (@win.h x 4 bytes) apart along a row: @win.w channels
 *	of @win.h elements each, one plane of @win.c; how GlobalAveragePool
 *	fills the lanes (pool.qasm, "DOC: global pooling")
 */
struct qpu_pool {
	struct qpu_bo *x;
	size_t x_off;
	struct qpu_bo *y;
	size_t y_off;
	struct qpu_window win;
	unsigned int kh, kw, pad_bottom, pad_right;
	unsigned int average, count_pad, channels_across;
};

/*
 * Run @p on @qpus QPUs (1 to 12). -EINVAL with the message for a shape the
 * kernel does not take (a dimension 0, a plane over QPU_WINDOW_MAX_PLANE,
 * a stride of 0 or over QPU_WINDOW_MAX_STRIDE, on V3D a depthwise
 * horizontal stride over QPU_DWCONV_V3D_MAX_STRIDE_W, pads larger than
 * the input, buffers too small, not word-aligned or overlapping).
 */
int qpu_dwconv3x3(struct qpu_kernels *kernels, unsigned int qpus, const struct qpu_dwconv *p,
		  struct qpu_kernel_stats *stats);
int qpu_pool2d(struct qpu_kernels *kernels, unsigned int qpus, const struct qpu_pool *p,
	       struct qpu_kernel_stats *stats);

/**
 * struct qpu_dwconv_u8 - one depthwise 3x3 convolution of bytes
 *	(dwconv_u8.qasm on VideoCore IV, v3d/dwconv_u8.qasm on V3D): ONNX's
 *	QLinearConv of one channel a group, bit-exact with the reference
 *	(nn_requant(): the product in double, half to even, saturated):
 *
 *	acc = @bias[c] + sum over the 9 taps of (x - @zx) * @w[c * 9 + tap]
 *	y   = min(max(nn_requant(acc, @mult[c], @zy), @lo), @hi)
 *
 *	all in the unsigned domain: an int8 tensor's byte b is read as
 *	b ^ 0x80 (its value plus 128) and written back so, and its zero
 *	point is given plus 128; a pad tap reads @zx, so it adds nothing.
 * @x: C planes of H x W bytes, plane after plane with no gap, at @x_off
 *	of @x
 * @y: C planes of OH x OW bytes, likewise at @y_off of @y (may not
 *	overlap @x)
 * @win: the planes; the filter is 3x3
 * @w: C x 9 weights less their channel's zero point, -255 to 255
 * @bias: C sums' constants (QLinearConv's int32 bias), or NULL for 0
 * @mult: C multipliers x_scale * w_scale[c] / y_scale as nn_qmult()
 *	computes them
 * @zx, @zy: x's and y's zero points, 0 to 255
 * @lo, @hi: the outputs' clamp, 0 and 255 for none (a fused Relu's is
 *	@zy and 255)
 * @x_int8, @y_int8: the tensor's bytes are int8 (b ^ 0x80 above)
 */
struct qpu_dwconv_u8 {
	struct qpu_bo *x;
	size_t x_off;
	struct qpu_bo *y;
	size_t y_off;
	struct qpu_window win;
	const int16_t *w;
	const int32_t *bias;
	const float *mult;
	uint8_t zx, zy, lo, hi;
	uint8_t x_int8, y_int8;
};

/*
 * Run @p on @qpus QPUs. -EINVAL with the message for a shape or
 * requantization the program does not take (each says which; the
 * planner keeps such a node on the CPU with that reason).
 * qpu_dwconv3x3_u8_v3d() is V3D's half, which qpu_dwconv3x3_u8() calls on
 * a V3D device.
 */
int qpu_dwconv3x3_u8(struct qpu_kernels *kernels, unsigned int qpus,
		     const struct qpu_dwconv_u8 *p, struct qpu_kernel_stats *stats);
int qpu_dwconv3x3_u8_v3d(struct qpu_kernels *kernels, unsigned int qpus,
			 const struct qpu_dwconv_u8 *p, struct qpu_kernel_stats *stats);

/*
 * Why channel @c of @p cannot be requantized exactly by the byte program
 * (window_u8.c: a weight outside -255 to 255, sums that may reach 2^24, a
 * multiplier outside the exact range), or NULL. Reads @p's w, bias, mult
 * and zx only: the planner asks it before it keeps a node on the QPUs.
 */
const char *qpu_dwconv_u8_unable(const struct qpu_dwconv_u8 *p, size_t c);

/*
 * The same for V3D's program (dwconv_u8_v3d.c: a multiplier outside 2^-18
 * to 2^23, weights and sums as above).
 */
const char *qpu_dwconv_u8_v3d_unable(const struct qpu_dwconv_u8 *p, size_t c);

/*
 * The instruction times the busiest of @qpus programs of V3D's byte
 * program takes for planes @w on a V3D of generation @gen: its issue,
 * with the stalls the V3D timing model adds (v3d/README.md); times the
 * board's clocks an instruction, its time.
 */
double qpu_dwconv_u8_v3d_cost(const struct qpu_window *w, unsigned int qpus, enum qpu_gen gen);

/*
 * Split @mult into m * 2^-s (m < 2^24, odd unless s is 1), the form
 * dwconv_u8.qasm's exact requantization takes; 0, or -1 when it is not a
 * positive normal float or s falls outside 1 to 38.
 */
int qpu_dwconv_u8_split(float mult, uint32_t *m, unsigned int *s);

/* The integer product's limits (kept within 24-bit offsets). */
#define QPU_IGEMM_MAX_K4	((1u << 24) / 64)
#define QPU_IGEMM_MAX_SIDE	(1u << 24)

/**
 * struct qpu_igemm - one integer product (igemm.qasm): C = A times B,
 *	the sums of byte products exact modulo 2^32
 * @a, @a_off: A, @m rows of @k4 words, each word four unsigned bytes of
 *	the row (byte 0 first along K; pad a row's last word with zeros)
 * @b, @b_off: B in panels of 16 columns: panel p's word w of column
 *	16 p + i (its bytes 4 w to 4 w + 3) at word (p * @k4 + w) * 16 + i
 * @c, @c_off: C, @m rows of @n uint32
 * @m, @n, @k4: C's rows and columns (@n a multiple of 16), words along K
 */
struct qpu_igemm {
	struct qpu_bo *a;
	size_t a_off;
	struct qpu_bo *b;
	size_t b_off;
	struct qpu_bo *c;
	size_t c_off;
	unsigned int m, n, k4;
};

/*
 * Run @p on @qpus QPUs (1 to the device's; never more than C has pieces
 * of 16 columns). -EINVAL with the message for an empty product, @n not a
 * multiple of 16, @k4 over QPU_IGEMM_MAX_K4, or buffers too small or not
 * word-aligned.
 */
int qpu_igemm_u8(struct qpu_kernels *kernels, unsigned int qpus, const struct qpu_igemm *p,
		 struct qpu_kernel_stats *stats);

#endif /* LIBQPU_NN_KERNELS_H */
