/* SPDX-License-Identifier: MIT */
/*
 * The reference of struct qpu_dwconv_u8 (libqpu/kernels/nn_kernels.h) that
 * test-nn and bench-dwconv-u8-v3d check v3d/dwconv_u8.qasm against. Needs
 * libqpu's internal headers on the include path (-Ilibqpu).
 */
#ifndef DWU8_REF_H
#define DWU8_REF_H

#include <stdint.h>

#include "kernels/nn_kernels.h"
#include "nn/nn_internal.h"

/*
 * struct qpu_dwconv_u8's reference, straight from its comment: the taps
 * inside the input, nn_requant() (the product in double, half to even,
 * saturated) in the tensor's own domain, then the clamp.
 */
static inline void dwu8_ref(const struct qpu_dwconv_u8 *p, const uint8_t *x, uint8_t *y)
{
	const struct qpu_window *w = &p->win;
	unsigned int c, oy, ox, ky, kx;

	for (c = 0; c < w->c; c++)
		for (oy = 0; oy < w->oh; oy++)
			for (ox = 0; ox < w->ow; ox++) {
				int64_t acc = p->bias ? p->bias[c] : 0;
				int32_t q;

				for (ky = 0; ky < 3; ky++)
					for (kx = 0; kx < 3; kx++) {
						int64_t iy = (int64_t)oy * w->stride_h - w->pad_top + ky;
						int64_t ix = (int64_t)ox * w->stride_w - w->pad_left + kx;
						int v = p->zx;

						if (iy >= 0 && iy < w->h && ix >= 0 && ix < w->w)
							v = x[((size_t)c * w->h + (size_t)iy) * w->w +
							      (size_t)ix] ^ (p->x_int8 ? 0x80 : 0);
						acc += (int64_t)(v - p->zx) * p->w[c * 9 + ky * 3 + kx];
					}
				if (p->y_int8)
					q = nn_requant(acc, p->mult[c], p->zy - 128, QPU_NN_INT8) + 128;
				else
					q = nn_requant(acc, p->mult[c], p->zy, QPU_NN_UINT8);
				q = q < p->lo ? p->lo : q > p->hi ? p->hi : q;
				y[((size_t)c * w->oh + oy) * w->ow + ox] =
					(uint8_t)(q ^ (p->y_int8 ? 0x80 : 0));
			}
}

#endif /* DWU8_REF_H */
