// SPDX-License-Identifier: MIT
/*
 * The window kernels' host side: qpu_dwconv3x3() (dwconv.qasm, and
 * v3d/dwconv.qasm on V3D 4.2 and 7.1) and qpu_pool2d() (pool.qasm,
 * v3d/pool.qasm) on up to 12 QPUs. Both deal the C x OH output rows out
 * evenly, cut each program's run into tasks of one channel and write the
 * uniforms window.qinc describes, followed by each kernel's own; the zero
 * area dwconv's pad rows (and V3D's average pooling's pads) read follows
 * the uniforms in the kernels' scratch buffer. A V3D program's vector
 * may hold fewer outputs than its 16 lanes (v3d/dwconv.qasm, "DOC: rows
 * and lanes"), which its uniforms say.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "nn_kernels.h"
#include "window.h"
#include "dwconv.qasm.h"
#include "pool.qasm.h"
#include "v3d/dwconv_v3d42.qasm.h"
#include "v3d/dwconv_v3d71.qasm.h"
#include "v3d/pool_v3d42.qasm.h"
#include "v3d/pool_v3d71.qasm.h"

static const struct qpu_kernel_code dwconv_prog = QPU_KERNEL_CODE_V3D("dwconv", dwconv_code,
								      dwconv, 0);
static const struct qpu_kernel_code pool_prog = QPU_KERNEL_CODE_V3D("pool", pool_code, pool, 0);

int qpu_window_check(struct qpu_kernels *kernels, const char *name, const struct qpu_window *w,
		     unsigned int elem, struct qpu_bo *x, size_t x_off, struct qpu_bo *y,
		     size_t y_off)
{
	size_t in, out;
	int ret;

	if (!w->c || !w->h || !w->w || !w->oh || !w->ow)
		return qpu_kernel_fail(kernels, EINVAL, name,
				       "a dimension is 0 (C %u, input %ux%u, output %ux%u)",
				       w->c, w->h, w->w, w->oh, w->ow);
	if (!w->stride_h || !w->stride_w || w->stride_h > QPU_WINDOW_MAX_STRIDE ||
	    w->stride_w > QPU_WINDOW_MAX_STRIDE)
		return qpu_kernel_fail(kernels, EINVAL, name,
				       "strides %u, %u: the kernel takes 1 to %u", w->stride_h,
				       w->stride_w, QPU_WINDOW_MAX_STRIDE);
	if ((size_t)w->h * w->w > QPU_WINDOW_MAX_PLANE ||
	    (size_t)w->oh * w->ow > QPU_WINDOW_MAX_PLANE)
		return qpu_kernel_fail(kernels, EINVAL, name,
				       "planes of %ux%u and %ux%u: at most %u %s each",
				       w->h, w->w, w->oh, w->ow, QPU_WINDOW_MAX_PLANE,
				       elem == 1 ? "bytes" : "floats");
	if (w->pad_top > w->h || w->pad_left > w->w)
		return qpu_kernel_fail(kernels, EINVAL, name,
				       "pads %u, %u are larger than the input", w->pad_top,
				       w->pad_left);
	in = (size_t)w->c * w->h * w->w * elem;
	out = (size_t)w->c * w->oh * w->ow * elem;
	ret = qpu_kernel_check_buf(kernels, name, "x", x, x_off, in, elem);
	if (!ret)
		ret = qpu_kernel_check_buf(kernels, name, "y", y, y_off, out, elem);
	if (!ret && x == y && x_off < y_off + out && y_off < x_off + in)
		ret = qpu_kernel_fail(kernels, EINVAL, name, "x and y overlap");
	return ret;
}

int qpu_window_setup(struct qpu_kernels *kernels, unsigned int qpus, struct win_call *call,
		     const struct qpu_window *w, unsigned int elem, struct qpu_bo *x,
		     size_t x_off, struct qpu_bo *y, size_t y_off)
{
	int ret = qpu_window_check(kernels, call->code->name, w, elem, x, x_off, y, y_off);

	if (!ret)
		ret = qpu_kernel_check_qpus(kernels, call->code->name, qpus);
	call->win = w;
	call->v3d = qpu_gen_is_v3d(kernels->gen);
	call->out = WIN_LANES;
	call->elem = elem;
	call->lane_out = 1;
	call->rows = 1;
	call->x = x;
	call->x_off = x_off;
	call->y = y;
	call->y_off = y_off;
	return ret;
}

/* Program @k's uniforms into @u. */
static void win_uniforms(const struct win_call *call, unsigned int qpus, unsigned int k,
			 uint32_t *u)
{
	const struct qpu_window *w = call->win;
	unsigned int nvec = (w->ow + call->out - 1) / call->out;
	unsigned int tail = w->ow - (nvec - 1) * call->out, n = 0, tasks = 0;
	unsigned int e = call->elem;
	size_t start, count, r, rows;
	uint32_t *ntasks;

	qpu_kernel_split((size_t)w->c * w->oh, qpus, k, &start, &count);
	ntasks = &u[n++];
	u[n++] = w->w - 1;
	u[n++] = w->h - 1;
	u[n++] = call->row_pitch;
	u[n++] = w->ow * e * call->rows;	/* the next vector's first row */
	u[n++] = call->out * w->stride_w;
	u[n++] = call->lane_out * w->stride_w;	/* a lane's first column step */
	u[n++] = w->stride_h * call->rows;
	u[n++] = w->pad_left;
	u[n++] = nvec;
	if (call->v3d) {	/* no VPM: the vector's outputs instead */
		u[n++] = call->out;
		u[n++] = 0;
		u[n++] = 0;
	} else if (e == 1) {	/* a vector's bytes, packed four a lane */
		u[n++] = qpu_kernel_vw_row(k);
		u[n++] = qpu_vdw_setup0(1, call->out, qpu_vdw_dma(true, QPU_VPM_SIZE_8, k, 0, 0));
		u[n++] = qpu_vdw_setup0(1, tail, qpu_vdw_dma(true, QPU_VPM_SIZE_8, k, 0, 0));
	} else {
		u[n++] = qpu_kernel_vw_row(k);
		u[n++] = qpu_kernel_vdw_rows(1, WIN_LANES, k);
		u[n++] = qpu_kernel_vdw_rows(1, tail, k);
	}
	memcpy(&u[n], call->header, call->header_words * sizeof(*u));
	n += call->header_words;
	for (r = start; r < start + count; r += rows, tasks++) {
		size_t c = r / w->oh, oy = r % w->oh;

		rows = w->oh - oy;
		if (rows > start + count - r)
			rows = start + count - r;
		u[n++] = qpu_kernel_addr(call->x, call->x_off + c * w->h * w->w * e);
		u[n++] = qpu_kernel_addr(call->y, call->y_off + (c * w->oh + oy) * w->ow * e);
		u[n++] = (uint32_t)((int64_t)oy * w->stride_h - w->pad_top);
		u[n++] = (uint32_t)rows;
		if (call->task)
			call->task(call->arg, c, &u[n]);
		n += call->task_words;
	}
	*ntasks = tasks;
}

struct qpu_bo *qpu_window_scratch(struct qpu_kernels *kernels, const struct win_call *call,
				  unsigned int qpus, size_t *per, size_t *unif_bytes)
{
	const struct qpu_window *w = call->win;
	struct qpu_bo *scratch;

	/* A program's run of rows spans at most this many channels. */
	*per = WIN_HEADER + call->header_words + (WIN_TASK + call->task_words) *
	       (((size_t)w->c * w->oh / qpus + 1) / w->oh + 2);
	/*
	 * qpu_kernel_run() copies the uniforms to the start of this buffer,
	 * on V3D after two words of its own (launch_v3d.c): the extra bytes
	 * start a line after the uniforms.
	 */
	*unif_bytes = (size_t)qpus * *per * 4 + WIN_LINE;
	scratch = qpu_kernel_scratch(kernels, *unif_bytes + call->extra_bytes);
	if (!scratch)
		return NULL;
	memset((uint8_t *)qpu_bo_get_map(scratch) + *unif_bytes, 0, call->extra_bytes);
	return scratch;
}

int qpu_window_run(struct qpu_kernels *kernels, unsigned int qpus, const struct win_call *call,
		   size_t per, struct qpu_kernel_stats *stats)
{
	const struct qpu_window *w = call->win;
	struct qpu_kernel_launch l = { .code = call->code, .qpus = qpus };
	struct qpu_bo *bos[3];
	uint32_t *u;
	unsigned int k;
	int ret;

	u = calloc((size_t)qpus * per, sizeof(*u));
	if (!u)
		return qpu_kernel_fail(kernels, ENOMEM, call->code->name, "out of memory");
	for (k = 0; k < qpus; k++)
		win_uniforms(call, qpus, k, u + k * per);
	bos[0] = call->x;
	bos[1] = call->y;
	bos[2] = kernels->scratch;
	l.uniforms = u;
	l.uniforms_per_qpu = (unsigned int)per;
	l.bos = bos;
	l.bo_count = 3;
	ret = qpu_kernel_run(kernels, &l, stats);
	free(u);
	if (!ret && stats) {
		stats->tmu_bytes = (uint64_t)w->c * w->h * w->w * call->elem;
		stats->dma_load_bytes = 0;
		stats->dma_store_bytes = (uint64_t)w->c * w->oh * w->ow * call->elem;
		if (call->v3d) {	/* TMU writes */
			stats->tmu_bytes += stats->dma_store_bytes;
			stats->dma_store_bytes = 0;
		}
	}
	return ret;
}

static void dw_task(const void *arg, size_t c, uint32_t *u)
{
	const struct qpu_dwconv *p = arg;
	unsigned int j;

	for (j = 0; j < 9; j++)
		u[j] = qpu_unif_f(p->weights[c * 9 + j]);
	u[9] = qpu_unif_f(p->bias ? p->bias[c] : 0.0f);
}

int qpu_dwconv3x3(struct qpu_kernels *kernels, unsigned int qpus, const struct qpu_dwconv *p,
		  struct qpu_kernel_stats *stats)
{
	const char *name = dwconv_prog.name;
	uint32_t header[3];
	struct win_call call = {
		.code = &dwconv_prog, .header = header, .header_words = 3,
		.task_words = 10, .task = dw_task, .arg = p,
	};
	struct qpu_bo *scratch;
	size_t per, unif_bytes;
	int ret;

	qpu_kernel_clear_error(kernels);
	if (!p)
		return qpu_kernel_fail(kernels, EINVAL, name, "no convolution");
	if (!p->weights)
		return qpu_kernel_fail(kernels, EINVAL, name, "no weights");
	ret = qpu_window_setup(kernels, qpus, &call, &p->win, 4, p->x, p->x_off, p->y, p->y_off);
	if (ret)
		return ret;
	if (call.v3d) {	/* v3d/dwconv.qasm, "DOC: rows and lanes" */
		if (p->win.stride_w > QPU_DWCONV_V3D_MAX_STRIDE_W)
			return qpu_kernel_fail(kernels, EINVAL, name,
					       "horizontal stride %u: V3D's program takes 1 to %u",
					       p->win.stride_w, QPU_DWCONV_V3D_MAX_STRIDE_W);
		call.out = WIN_LANES - 2 / p->win.stride_w;
	}
	call.row_pitch = p->win.w * 4;
	/* the zero area: pad rows read up to W words */
	call.extra_bytes = ((size_t)p->win.w * 4 + 63) & ~(size_t)63;
	scratch = qpu_window_scratch(kernels, &call, qpus, &per, &unif_bytes);
	if (!scratch)
		return qpu_kernel_fail(kernels, errno, name, "scratch buffer: %s",
				       strerror(errno));
	header[0] = qpu_kernel_addr(scratch, unif_bytes);
	header[1] = qpu_unif_f(p->lo);
	header[2] = qpu_unif_f(p->hi);
	return qpu_window_run(kernels, qpus, &call, per, stats);
}

int qpu_pool2d(struct qpu_kernels *kernels, unsigned int qpus, const struct qpu_pool *p,
	       struct qpu_kernel_stats *stats)
{
	const char *name = pool_prog.name;
	const struct qpu_window *w;
	uint32_t header[9];
	struct win_call call = { .code = &pool_prog, .header = header, .header_words = 8 };
	struct qpu_bo *scratch;
	size_t per, unif_bytes;
	int ret;

	qpu_kernel_clear_error(kernels);
	if (!p)
		return qpu_kernel_fail(kernels, EINVAL, name, "no pooling");
	w = &p->win;
	if (!p->kh || !p->kw || p->kh > QPU_WINDOW_MAX_SIDE || p->kw > QPU_WINDOW_MAX_SIDE)
		return qpu_kernel_fail(kernels, EINVAL, name,
				       "a %ux%u window: sides of 1 to %u", p->kh, p->kw,
				       QPU_WINDOW_MAX_SIDE);
	ret = qpu_window_setup(kernels, qpus, &call, w, 4, p->x, p->x_off, p->y, p->y_off);
	if (ret)
		return ret;
	/* v3d/pool.qasm's maximum reads the clamped pixel for a pad */
	if (call.v3d && !p->average && (w->pad_top >= p->kh || w->pad_left >= p->kw ||
					p->pad_bottom >= p->kh || p->pad_right >= p->kw))
		return qpu_kernel_fail(kernels, EINVAL, name,
				       "pads %u, %u, %u, %u of a %ux%u maximum: V3D's program "
				       "takes pads smaller than the window", w->pad_top,
				       w->pad_left, p->pad_bottom, p->pad_right, p->kh, p->kw);
	call.row_pitch = p->channels_across ? 4 : w->w * 4;
	if (call.v3d) {	/* and the zero word an average's pad reads */
		call.header_words = 9;
		call.extra_bytes = WIN_LINE;
	}
	scratch = qpu_window_scratch(kernels, &call, qpus, &per, &unif_bytes);
	if (!scratch)
		return qpu_kernel_fail(kernels, errno, name, "scratch buffer: %s",
				       strerror(errno));
	header[0] = p->average;
	header[1] = p->kh;
	header[2] = p->kw;
	/* the window's count: inside the image, or inside the padded image */
	header[3] = p->count_pad ? (uint32_t)-(int32_t)w->pad_left : 0;
	header[4] = w->w + (p->count_pad ? p->pad_right : 0);
	header[5] = p->count_pad ? (uint32_t)-(int32_t)w->pad_top : 0;
	header[6] = w->h + (p->count_pad ? p->pad_bottom : 0);
	header[7] = p->channels_across ? w->h * 4 : 4;
	header[8] = qpu_kernel_addr(scratch, unif_bytes);
	return qpu_window_run(kernels, qpus, &call, per, stats);
}
