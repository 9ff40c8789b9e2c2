/* SPDX-License-Identifier: MIT */
/*
 * qpu_preprocess()'s plan: the checked call turned into the numbers both
 * the QPU programs and the CPU reference work from (preproc_plan.c), so
 * the two share every constant and every rounding of the setup.
 */
#ifndef LIBQPU_PREPROC_H
#define LIBQPU_PREPROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel.h"

#define PREPROC_NAME		"preprocess"
#define PREPROC_MAX_SIDE	4096

/*
 * Where component c (Y, U, V; or R, G, B) of source pixel (x, y) is:
 * byte offset + (y >> vs) * stride + (x >> hs) * bytes of the buffer.
 */
struct preproc_comp {
	size_t offset;
	size_t stride;
	unsigned int hs, vs, bytes;
};

/**
 * struct preproc_plan - qpu_preprocess() in numbers
 * @comp: the three source components
 * @fx0: 16.16 source column of output column 0 (may be below 0)
 * @stepx: 16.16 source columns per output column
 * @fy0, @stepy: the same for rows
 * @xlo, @xhi, @ylo, @yhi: the crop's first and last column and row
 * @area: the image area of the tensor (the rest is padding)
 * @width, @height: the tensor's
 * @esize: bytes an element; @pix_bytes between pixels; @chan_bytes
 *	between channels; @row_bytes between rows; @bytes in all
 * @m, @k: the colour conversion: channel c = sum_j m[c][j] comp_j + k[c]
 * @pad: the border's value before normalisation
 * @a, @b: out = v * a + b per channel (quantised: already divided by the
 *	scale, b with zero point - qmin + 0.5 added)
 * @quant: U8 or I8: out then clamped to [0, qrange], truncated, + qmin
 */
struct preproc_plan {
	struct preproc_comp comp[3];
	int32_t fx0, stepx, fy0, stepy;
	int32_t xlo, xhi, ylo, yhi;
	struct qpu_rect area;
	unsigned int width, height;
	size_t esize, pix_bytes, chan_bytes, row_bytes, bytes;
	float m[3][3], k[3];
	float pad;
	float a[3], b[3];
	bool quant;
	float qrange;
	int32_t qmin;
};

/*
 * Check @p (the message in @kernels, which may be NULL) and fill @plan.
 * Returns 0 or -EINVAL.
 */
int preproc_plan_make(struct qpu_kernels *kernels, const struct qpu_preprocess *p,
		      struct preproc_plan *plan);

/* The 16.16 coordinate's sample pair, clamped to [lo, hi], and weight. */
static inline void preproc_taps(int32_t f, int32_t lo, int32_t hi, int32_t *a, int32_t *b,
				int32_t *w)
{
	int32_t i = f >> 16;	/* arithmetic: floor */

	*w = f - (int32_t)((uint32_t)i << 16);
	*a = i < lo ? lo : i > hi ? hi : i;
	i++;
	*b = i < lo ? lo : i > hi ? hi : i;
}

#endif /* LIBQPU_PREPROC_H */
