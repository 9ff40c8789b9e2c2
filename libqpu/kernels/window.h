/* SPDX-License-Identifier: MIT */
/*
 * The window kernels' shared host side (window.c), internal to libqpu:
 * what window.qinc needs of a call, the checks of the planes and buffers,
 * the scratch buffer and the launch. window.c's float kernels and
 * window_u8.c's byte kernel call them.
 */
#ifndef LIBQPU_WINDOW_H
#define LIBQPU_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "kernel.h"
#include "nn_kernels.h"

#define WIN_HEADER	13	/* window.qinc's uniforms before the kernel's own */
#define WIN_TASK	4	/* and a task's */
#define WIN_LANES	16
#define WIN_LINE	64	/* bytes between the uniforms and the zero area */

/*
 * What window.qinc needs of a call, and the kernel's own uniforms.
 * qpu_window_setup() sets the fields up to @out for floats (one a lane);
 * a byte kernel then sets @elem and @lane_out.
 */
struct win_call {
	const struct qpu_kernel_code *code;
	struct qpu_bo *x, *y;
	size_t x_off, y_off;
	const struct qpu_window *win;
	int v3d;			/* the device is a V3D: its uniforms */
	unsigned int out;		/* outputs a vector (16 on VideoCore IV) */
	unsigned int elem;		/* bytes an element: 4 (floats) or 1 */
	unsigned int lane_out;		/* adjacent outputs a lane computes */
	unsigned int rows;		/* output rows a vector (then one vector a row) */
	uint32_t row_pitch;		/* bytes from an input row to the next */
	const uint32_t *header;		/* the kernel's header uniforms */
	unsigned int header_words;
	unsigned int task_words;	/* the kernel's uniforms per task */
	/* writes them for a task of channel @c into @u */
	void (*task)(const void *arg, size_t c, uint32_t *u);
	const void *arg;
	size_t extra_bytes;		/* zeroed scratch after the uniforms */
};

/*
 * Check planes @w of @elem-byte elements (dimensions, strides up to
 * QPU_WINDOW_MAX_STRIDE, sizes, pads) and the buffers x and y for them,
 * for kernel @name; 0 or -EINVAL with the message.
 */
int qpu_window_check(struct qpu_kernels *kernels, const char *name, const struct qpu_window *w,
		     unsigned int elem, struct qpu_bo *x, size_t x_off, struct qpu_bo *y,
		     size_t y_off);

/*
 * Check a call's planes of @elem-byte elements, its buffers and @qpus, and
 * point @call at them; 0 or -EINVAL with the message.
 */
int qpu_window_setup(struct qpu_kernels *kernels, unsigned int qpus, struct win_call *call,
		     const struct qpu_window *w, unsigned int elem, struct qpu_bo *x,
		     size_t x_off, struct qpu_bo *y, size_t y_off);

/*
 * The scratch buffer for @call on @qpus programs, its extra bytes zeroed
 * after the uniforms (@unif_bytes of them, @per words a program).
 */
struct qpu_bo *qpu_window_scratch(struct qpu_kernels *kernels, const struct win_call *call,
				  unsigned int qpus, size_t *per, size_t *unif_bytes);

/* Write every program's uniforms and run them; 0 or a negative errno. */
int qpu_window_run(struct qpu_kernels *kernels, unsigned int qpus, const struct win_call *call,
		   size_t per, struct qpu_kernel_stats *stats);

#endif /* LIBQPU_WINDOW_H */
