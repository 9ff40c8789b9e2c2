// SPDX-License-Identifier: MIT
/*
 * libqpu/nn: convolutions on the CPU through XNNPACK where the machine has
 * it (Debian's libxnnpack0, found at run time with dlopen(), so that
 * libqpu neither links nor needs it). XNNPACK's NCHW operators take
 * MobileNet's layers in the graph's own layout (1x1, depthwise 3x3, and a
 * first 3x3 layer of 3 channels from an NHWC copy); any other convolution
 * goes through its NHWC operator between two reorderings in the scratch.
 * The operators are made (weights packed) and set up (the arena's
 * addresses) at bind; a run only runs them.
 */
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "nn_check.h"

#define XNN_LIBRARY "libXNNPACK.so.0"
#define XNN_SUCCESS 0			/* enum xnn_status */
#define XNN_FLAG_INPUT_NHWC 0x00000002	/* <xnnpack.h> */

/* How a node's operator reads and writes (enum nn_xnn_mode in nn_node). */
enum {
	XNN_NONE,
	XNN_NCHW,		/* the graph's tensors as they are */
	XNN_NCHW_FROM_NHWC,	/* an NHWC copy of the input in the scratch */
	XNN_NHWC,		/* NHWC copies of input and output in the scratch */
};

typedef int (*xnn_create_fn)(uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t,
			     uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, size_t, size_t,
			     size_t, size_t, const float *, const float *, float, float, uint32_t,
			     void **);
typedef int (*xnn_setup_fn)(void *, size_t, size_t, size_t, const float *, float *, void *);

static struct {
	pthread_once_t once;
	int ok;
	int (*initialize)(const void *allocator);
	xnn_create_fn create_nchw, create_nhwc;
	xnn_setup_fn setup_nchw, setup_nhwc;
	int (*run)(void *op, void *threadpool);
	int (*delete_op)(void *op);
} xnn = { .once = PTHREAD_ONCE_INIT };

static void xnn_load(void)
{
	void *lib = dlopen(XNN_LIBRARY, RTLD_NOW | RTLD_LOCAL);

	if (!lib)
		return;
	*(void **)&xnn.initialize = dlsym(lib, "xnn_initialize");
	*(void **)&xnn.create_nchw = dlsym(lib, "xnn_create_convolution2d_nchw_f32");
	*(void **)&xnn.create_nhwc = dlsym(lib, "xnn_create_convolution2d_nhwc_f32");
	*(void **)&xnn.setup_nchw = dlsym(lib, "xnn_setup_convolution2d_nchw_f32");
	*(void **)&xnn.setup_nhwc = dlsym(lib, "xnn_setup_convolution2d_nhwc_f32");
	*(void **)&xnn.run = dlsym(lib, "xnn_run_operator");
	*(void **)&xnn.delete_op = dlsym(lib, "xnn_delete_operator");
	if (!xnn.initialize || !xnn.create_nchw || !xnn.create_nhwc || !xnn.setup_nchw ||
	    !xnn.setup_nhwc || !xnn.run || !xnn.delete_op || xnn.initialize(NULL) != XNN_SUCCESS) {
		dlclose(lib);
		return;
	}
	xnn.ok = 1;	/* kept loaded: operators may live in any graph */
}

int nn_xnn_available(void)
{
	const char *env = getenv("QPU_NN_XNNPACK");

	if (env && !strcmp(env, "0"))
		return 0;
	pthread_once(&xnn.once, xnn_load);
	return xnn.ok;
}

static void act_range(const struct nn_node *n, float *lo, float *hi)
{
	*lo = -INFINITY;
	*hi = INFINITY;
	if (n->act == NN_ACT_RELU) {
		*lo = 0.0f;
	} else if (n->act == NN_ACT_CLIP) {
		*lo = n->act_a;
		*hi = n->act_b;
	}
}

/*
 * The layers XNNPACK's NCHW operators are made for (and tested with here):
 * depthwise 3x3 with pads of 1, and a first 3x3 layer of stride 2, 3
 * channels and pads of 1 (which reads NHWC). Its NCHW operators take other
 * shapes too, not all as ONNX means them; its NCHW 1x1 is a sparse product,
 * 15 times slower on dense weights than its NHWC one with both reorderings
 * (make bench-nn-xnnpack), which those take.
 */
static int nchw_shape(const struct nn_node *n, const struct nn_tensor *x,
		      const struct nn_tensor *w)
{
	const struct nn_win *wn = &n->win;
	int pads1 = wn->pt == 1 && wn->pl == 1 && wn->pb == 1 && wn->pr == 1;

	if (wn->kh == 3 && wn->kw == 3 && pads1 && wn->sh == wn->sw && wn->sh <= 2 &&
	    wn->group == x->dims[1] && w->dims[0] == x->dims[1] && w->dims[1] == 1)
		return XNN_NCHW;
	if (wn->kh == 3 && wn->kw == 3 && pads1 && wn->sh == 2 && wn->sw == 2 &&
	    wn->group == 1 && x->dims[1] == 3)
		return XNN_NCHW_FROM_NHWC;
	return XNN_NONE;
}

int nn_xnn_create(struct qpu_nn_graph *g, struct nn_node *n)
{
	const struct nn_tensor *x, *w;
	const float *b, *src;
	size_t M, cg, G, kk, m, c, p;
	const struct nn_win *wn = &n->win;
	float lo, hi, *ohwi;
	void *op = NULL;

	if (n->kind != NN_CONV)
		return 0;
	x = &g->t[n->in[0]];
	w = &g->t[n->in[1]];
	if (!w->is_const || x->is_const || !nn_xnn_available())
		return 0;
	b = n->n_in > 2 && n->in[2] >= 0 ? g->t[n->in[2]].cdata : NULL;
	M = (size_t)w->dims[0];
	cg = (size_t)w->dims[1];
	G = (size_t)n->win.group;
	kk = (size_t)(w->dims[2] * w->dims[3]);
	src = w->cdata;
	ohwi = malloc(w->bytes ? w->bytes : 1);
	if (!ohwi)
		return 0;
	for (m = 0; m < M; m++)	/* OIHW to XNNPACK's OHWI */
		for (c = 0; c < cg; c++)
			for (p = 0; p < kk; p++)
				ohwi[(m * kk + p) * cg + c] = src[(m * cg + c) * kk + p];
	act_range(n, &lo, &hi);
#define XNN_ARGS(flags) (uint32_t)wn->pt, (uint32_t)wn->pr, (uint32_t)wn->pb, (uint32_t)wn->pl, \
	(uint32_t)wn->kh, (uint32_t)wn->kw, (uint32_t)wn->sh, (uint32_t)wn->sw, 1, 1, (uint32_t)G, \
	cg, M / G, cg * G, M, ohwi, b, lo, hi, flags, &op
	if (nchw_shape(n, x, w) == XNN_NCHW && xnn.create_nchw(XNN_ARGS(0)) == XNN_SUCCESS)
		n->xnn_mode = XNN_NCHW;
	else if (nchw_shape(n, x, w) == XNN_NCHW_FROM_NHWC &&
		 xnn.create_nchw(XNN_ARGS(XNN_FLAG_INPUT_NHWC)) == XNN_SUCCESS)
		n->xnn_mode = XNN_NCHW_FROM_NHWC;
	else if (xnn.create_nhwc(XNN_ARGS(0)) == XNN_SUCCESS)
		n->xnn_mode = XNN_NHWC;
#undef XNN_ARGS
	free(ohwi);
	n->xnn_op = n->xnn_mode ? op : NULL;
	return n->xnn_mode != XNN_NONE;
}

size_t nn_xnn_scratch(const struct qpu_nn_graph *g, const struct nn_node *n)
{
	size_t in = g->t[n->in[0]].bytes, out = g->t[n->out[0]].bytes;

	switch (n->xnn_mode) {
	case XNN_NCHW_FROM_NHWC:
		return in;
	case XNN_NHWC:
		return in + out;
	default:
		return 0;
	}
}

int nn_xnn_setup(struct qpu_nn_graph *g, struct nn_node *n, void *scratch)
{
	const struct nn_tensor *x = &g->t[n->in[0]];
	size_t N = (size_t)x->dims[0], H = (size_t)x->dims[2], W = (size_t)x->dims[3];
	float *s = scratch, *y = g->t[n->out[0]].data;
	int ret;

	switch (n->xnn_mode) {
	case XNN_NCHW:
		ret = xnn.setup_nchw(n->xnn_op, N, H, W, x->data, y, NULL);
		break;
	case XNN_NCHW_FROM_NHWC:
		ret = xnn.setup_nchw(n->xnn_op, N, H, W, s, y, NULL);
		break;
	case XNN_NHWC:
		ret = xnn.setup_nhwc(n->xnn_op, N, H, W, s, s + x->count, NULL);
		break;
	default:
		return 0;
	}
	if (ret != XNN_SUCCESS) {
		nn_err(g, "node '%s' (%s): XNNPACK's setup failed (%d)", n->name, n->op, ret);
		return -EINVAL;
	}
	return 0;
}

/*
 * NCHW <-> NHWC of N images of C planes of P floats. Pixel by pixel, the C
 * lines of the planar side stay in the cache from one pixel to the next
 * (plane by plane, every write of the interleaved side misses: 15 times
 * slower at 56x56x128).
 */
static void reorder(const float *src, float *dst, size_t N, size_t C, size_t P, int to_nhwc)
{
	size_t b, c, p;

	for (b = 0; b < N; b++)
		for (p = 0; p < P; p++)
			for (c = 0; c < C; c++) {
				if (to_nhwc)
					dst[(b * P + p) * C + c] = src[(b * C + c) * P + p];
				else
					dst[(b * C + c) * P + p] = src[(b * P + p) * C + c];
			}
}

int nn_xnn_run(struct qpu_nn_graph *g, struct nn_node *n, void *scratch)
{
	const struct nn_tensor *x = &g->t[n->in[0]], *y = &g->t[n->out[0]];
	size_t N = (size_t)x->dims[0], P = (size_t)(x->dims[2] * x->dims[3]);
	size_t PO = (size_t)(y->dims[2] * y->dims[3]);
	float *s = scratch;

	if (n->xnn_mode != XNN_NCHW)
		reorder(x->data, s, N, (size_t)x->dims[1], P, 1);
	if (xnn.run(n->xnn_op, NULL) != XNN_SUCCESS) {
		nn_err(g, "node '%s' (%s): XNNPACK's run failed", n->name, n->op);
		return -EIO;
	}
	if (n->xnn_mode == XNN_NHWC)
		reorder(s + x->count, y->data, N, (size_t)y->dims[1], PO, 0);
	if (n->act != NN_ACT_NONE && n->act != NN_ACT_RELU && n->act != NN_ACT_CLIP)
		nn_apply_act(n, y->data, y->count);
	return 0;
}

void nn_xnn_free(struct nn_node *n)
{
	if (n->xnn_op)
		xnn.delete_op(n->xnn_op);
	n->xnn_op = NULL;
}
