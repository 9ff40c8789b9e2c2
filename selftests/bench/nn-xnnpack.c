// SPDX-License-Identifier: MIT
/*
 * nn-xnnpack: the CPU backend of <qpu_nn.h> against XNNPACK (Debian's
 * libxnnpack-dev) on MobileNet v1 1.0's 27 convolutions at 224x224, one
 * thread each: every layer as a one-node graph (Conv + bias + ReLU6 fused)
 * on libqpu's own fast path ("own"), on the CPU backend as it runs by
 * default, through XNNPACK ("via"), and as XNNPACK's NHWC convolution
 * with the same clamp called directly. Prints each layer's time (fastest
 * of RUNS), the ratios to the direct call, and the sums.
 *
 * Then INT8: each layer and the classifier (1024 x 1000) as a one-node
 * QLinearConv or QLinearMatMul graph (int8, per-channel weights, int32
 * bias) on the CPU backend's INT8 fast path, against XNNPACK's QC8 NHWC
 * convolution of the same shape (the classifier as a 1x1 one), runs of
 * each alternated, the fastest kept. $QPU_NN_QFAST picks our kernel
 * (ops_fast_int8.c). Not part of make check: make bench-nn-xnnpack
 * (tools/deps.sh xnnpack installs the library).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xnnpack.h>

#include "qpu_nn.h"
#include "nn-build.h"

#define RUNS 10

struct layer {
	int64_t cin, hw, cout, k, stride, group;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static float *filled(size_t n)
{
	float *v = malloc(n * sizeof(*v));
	size_t i;

	for (i = 0; v && i < n; i++)
		v[i] = (float)((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
	return v;
}

/* The layer as a one-node graph (Conv + bias, Clip 0..6 fused), on the CPU. */
static uint64_t time_qpu_nn(const struct layer *l, unsigned int flags)
{
	int64_t xd[4] = { 1, l->cin, l->hw, l->hw }, wd[4] = { l->cout, l->cin / l->group, l->k, l->k };
	int64_t bd[1] = { l->cout }, sd[1] = { 0 }, pads[4] = { 1, 1, 1, 1 };
	int64_t strides[2] = { l->stride, l->stride };
	size_t wn = (size_t)(wd[0] * wd[1] * wd[2] * wd[3]), bytes;
	float *w = filled(wn), *b = filled((size_t)l->cout), lo = 0.0f, hi = 6.0f;
	uint32_t x, tw, tb, c, y, tlo, thi, in[3];
	struct qpu_nn_tensor_info ti;
	struct qpu_nn_node_info ni;
	struct qpu_nn_graph *g;
	struct nb q = { 0 };
	uint64_t best = UINT64_MAX;
	uint8_t *img;
	char err[256];
	int r;

	x = nb_tensor(&q, "x", QPU_NN_FLOAT32, 4, xd, NULL, 0);
	tw = nb_tensor(&q, "w", QPU_NN_FLOAT32, 4, wd, w, wn * 4);
	tb = nb_tensor(&q, "b", QPU_NN_FLOAT32, 1, bd, b, (size_t)l->cout * 4);
	tlo = nb_tensor(&q, "lo", QPU_NN_FLOAT32, 0, sd, &lo, 4);
	thi = nb_tensor(&q, "hi", QPU_NN_FLOAT32, 0, sd, &hi, 4);
	c = nb_value(&q, "c");
	y = nb_value(&q, "y");
	if (l->k == 3)
		nb_attr_ints(&q, "pads", 4, pads);
	nb_attr_ints(&q, "strides", 2, strides);
	nb_attr_int(&q, "group", l->group);
	in[0] = x, in[1] = tw, in[2] = tb;
	nb_node(&q, "conv", "Conv", "", 3, in, 1, &c);
	in[0] = c, in[1] = tlo, in[2] = thi;
	nb_node(&q, "relu6", "Clip", "", 3, in, 1, &y);
	img = nb_finish(&q, 13, 1, &x, 1, &y, &bytes);
	g = qpu_nn_load_mem(img, bytes, err, sizeof(err));
	if (!g || qpu_nn_bind(g, NULL, flags)) {
		fprintf(stderr, "nn-xnnpack: %s\n", g ? qpu_nn_last_error(g) : err);
		exit(1);
	}
	qpu_nn_input(g, 0, &ti);
	memset(ti.data, 0, ti.bytes);
	for (r = 0; r < RUNS; r++) {
		qpu_nn_run(g);
		qpu_nn_node(g, 0, &ni);
		best = ni.last_ns < best ? ni.last_ns : best;
	}
	qpu_nn_free(g);
	free(img);
	free(w);
	free(b);
	return best;
}

static uint64_t time_xnnpack(const struct layer *l)
{
	int64_t oh = (l->hw + (l->k == 3 ? 2 : 0) - l->k) / l->stride + 1;
	size_t gin = (size_t)(l->cin / l->group), gout = (size_t)(l->cout / l->group);
	float *w = filled((size_t)l->cout * gin * (size_t)(l->k * l->k)), *b = filled((size_t)l->cout);
	float *x = calloc((size_t)(l->cin * l->hw * l->hw), sizeof(float));
	float *y = calloc((size_t)(l->cout * oh * oh), sizeof(float));
	uint32_t p = l->k == 3 ? 1 : 0;
	xnn_operator_t op = NULL;
	uint64_t best = UINT64_MAX, t0;
	int r;

	if (!w || !b || !x || !y ||
	    xnn_create_convolution2d_nhwc_f32(p, p, p, p, (uint32_t)l->k, (uint32_t)l->k,
					      (uint32_t)l->stride, (uint32_t)l->stride, 1, 1,
					      (uint32_t)l->group, gin, gout, (size_t)l->cin,
					      (size_t)l->cout, w, b, 0.0f, 6.0f, 0, &op) !=
		    xnn_status_success ||
	    xnn_setup_convolution2d_nhwc_f32(op, 1, (size_t)l->hw, (size_t)l->hw, x, y, NULL) !=
		    xnn_status_success) {
		fprintf(stderr, "nn-xnnpack: XNNPACK refused layer %lldx%lld\n",
			(long long)l->cin, (long long)l->cout);
		exit(1);
	}
	for (r = 0; r < RUNS; r++) {
		t0 = now_ns();
		xnn_run_operator(op, NULL);
		t0 = now_ns() - t0;
		best = t0 < best ? t0 : best;
	}
	xnn_delete_operator(op);
	free(w);
	free(b);
	free(x);
	free(y);
	return best;
}

/* Byte @i of a fixed pseudo-random pattern, -128..127. */
static int8_t pattern8(size_t i, unsigned int salt)
{
	return (int8_t)(((i + salt) * 2654435761u >> 13) & 0xff);
}

/* What both sides of an INT8 layer share: weights, scales, bias. */
struct qlayer {
	struct layer l;
	int fc;			/* the classifier: QLinearMatMul of 1 x cin by cin x cout */
	int8_t *w;		/* cout x cin/group x k x k (OIHW; fc: cin x cout) */
	float *ws;		/* per output channel */
	int32_t *b;
};

#define QX_SCALE 0.02f
#define QY_SCALE 0.05f
#define QX_ZERO ((int8_t)-3)
#define QY_ZERO ((int8_t)5)

static int qlayer_init(struct qlayer *q)
{
	const struct layer *l = &q->l;
	size_t wn = (size_t)(l->cout * (l->cin / l->group) * l->k * l->k), i;

	q->w = malloc(wn);
	q->ws = malloc((size_t)l->cout * sizeof(float));
	q->b = malloc((size_t)l->cout * sizeof(int32_t));
	if (!q->w || !q->ws || !q->b)
		return -1;
	for (i = 0; i < wn; i++)
		q->w[i] = pattern8(i, 7);
	for (i = 0; i < (size_t)l->cout; i++) {
		q->ws[i] = 0.001f + 0.009f * (float)(i % 17) / 17.0f;
		q->b[i] = (int32_t)(i * 2654435761u % 4001) - 2000;
	}
	return 0;
}

static void qlayer_free(struct qlayer *q)
{
	free(q->w);
	free(q->ws);
	free(q->b);
}

/* The layer as a one-node QLinearConv (QLinearMatMul) graph on the CPU, bound. */
static struct qpu_nn_graph *qgraph(const struct qlayer *q)
{
	const struct layer *l = &q->l;
	int64_t xd[4] = { 1, l->cin, l->hw, l->hw }, wd[4] = { l->cout, l->cin / l->group, l->k, l->k };
	int64_t fxd[2] = { 1, l->cin }, fwd[2] = { l->cin, l->cout };
	int64_t cd[1] = { l->cout }, sd[1] = { 0 }, pads[4] = { 1, 1, 1, 1 };
	int64_t strides[2] = { l->stride, l->stride };
	size_t wn = (size_t)(wd[0] * wd[1] * wd[2] * wd[3]), bytes;
	float xs = QX_SCALE, ys = QY_SCALE;
	int8_t xz = QX_ZERO, yz = QY_ZERO, *wz = calloc((size_t)l->cout, 1);
	uint32_t in[9], y;
	struct qpu_nn_node_info ni;
	struct qpu_nn_graph *g;
	struct nb nb = { 0 };
	uint8_t *img;
	char err[256];

	in[0] = q->fc ? nb_tensor(&nb, "x", QPU_NN_INT8, 2, fxd, NULL, 0) :
			nb_tensor(&nb, "x", QPU_NN_INT8, 4, xd, NULL, 0);
	in[1] = nb_tensor(&nb, "xs", QPU_NN_FLOAT32, 0, sd, &xs, 4);
	in[2] = nb_tensor(&nb, "xz", QPU_NN_INT8, 0, sd, &xz, 1);
	in[3] = q->fc ? nb_tensor(&nb, "w", QPU_NN_INT8, 2, fwd, q->w, wn) :
			nb_tensor(&nb, "w", QPU_NN_INT8, 4, wd, q->w, wn);
	in[4] = nb_tensor(&nb, "ws", QPU_NN_FLOAT32, 1, cd, q->ws, (size_t)l->cout * 4);
	in[5] = nb_tensor(&nb, "wz", QPU_NN_INT8, 1, cd, wz, (size_t)l->cout);
	in[6] = nb_tensor(&nb, "ys", QPU_NN_FLOAT32, 0, sd, &ys, 4);
	in[7] = nb_tensor(&nb, "yz", QPU_NN_INT8, 0, sd, &yz, 1);
	y = nb_value(&nb, "y");
	if (q->fc) {
		nb_node(&nb, "fc", "QLinearMatMul", "", 8, in, 1, &y);
	} else {
		in[8] = nb_tensor(&nb, "b", QPU_NN_INT32, 1, cd, q->b, (size_t)l->cout * 4);
		if (l->k == 3)
			nb_attr_ints(&nb, "pads", 4, pads);
		nb_attr_ints(&nb, "strides", 2, strides);
		nb_attr_int(&nb, "group", l->group);
		nb_node(&nb, "qconv", "QLinearConv", "", 9, in, 1, &y);
	}
	img = nb_finish(&nb, 13, 1, in, 1, &y, &bytes);
	g = qpu_nn_load_mem(img, bytes, err, sizeof(err));
	free(img);
	free(wz);
	if (!g || qpu_nn_bind(g, NULL, 0) || qpu_nn_node(g, 0, &ni) ||
	    ni.where != QPU_NN_WHERE_CPU) {
		fprintf(stderr, "nn-xnnpack: INT8 layer: %s\n", g ? qpu_nn_last_error(g) : err);
		exit(1);
	}
	return g;
}

/* XNNPACK's QC8 convolution of the layer (the classifier: 1x1 on one pixel). */
static xnn_operator_t qxnn(const struct qlayer *q, int8_t **x, int8_t **y)
{
	const struct layer *l = &q->l;
	int64_t oh = q->fc ? 1 : (l->hw + (l->k == 3 ? 2 : 0) - l->k) / l->stride + 1;
	size_t gin = (size_t)(l->cin / l->group), gout = (size_t)(l->cout / l->group), i, j;
	size_t hw = q->fc ? 1 : (size_t)l->hw;
	uint32_t p = l->k == 3 ? 1 : 0;
	int8_t *w = q->w, *wt = NULL;
	xnn_operator_t op = NULL;

	if (q->fc) {	/* XNNPACK wants O x I: B transposed */
		wt = malloc((size_t)(l->cin * l->cout));
		for (i = 0; wt && i < (size_t)l->cin; i++)
			for (j = 0; j < (size_t)l->cout; j++)
				wt[j * (size_t)l->cin + i] = q->w[i * (size_t)l->cout + j];
		w = wt;
	} else if (l->group > 1) {	/* depthwise: XNNPACK's kernel is 1 x k x k x C */
		wt = malloc((size_t)(l->cout * l->k * l->k));
		for (i = 0; wt && i < (size_t)l->cout; i++)
			for (j = 0; j < (size_t)(l->k * l->k); j++)
				wt[j * (size_t)l->cout + i] = q->w[i * (size_t)(l->k * l->k) + j];
		w = wt;
	} else if (l->k > 1) {	/* OIHW to OHWI */
		wt = malloc((size_t)(l->cout * l->cin * l->k * l->k));
		for (i = 0; wt && i < (size_t)l->cout; i++)
			for (j = 0; j < (size_t)(l->cin * l->k * l->k); j++)
				wt[(i * (size_t)(l->k * l->k) + j % (size_t)(l->k * l->k)) *
				   (size_t)l->cin + j / (size_t)(l->k * l->k)] =
					q->w[i * (size_t)(l->cin * l->k * l->k) + j];
		w = wt;
	}
	*x = calloc(hw * hw * (size_t)l->cin, 1);
	*y = calloc((size_t)(oh * oh * l->cout), 1);
	if (!w || !*x || !*y ||
	    xnn_create_convolution2d_nhwc_qc8(p, p, p, p, (uint32_t)l->k, (uint32_t)l->k,
					      (uint32_t)l->stride, (uint32_t)l->stride, 1, 1,
					      (uint32_t)l->group, gin, gout, (size_t)l->cin,
					      (size_t)l->cout, QX_ZERO, QX_SCALE, q->ws, w,
					      q->fc ? NULL : q->b, QY_ZERO, QY_SCALE, -128, 127, 0,
					      &op) != xnn_status_success ||
	    xnn_setup_convolution2d_nhwc_qc8(op, 1, hw, hw, *x, *y, NULL) != xnn_status_success) {
		fprintf(stderr, "nn-xnnpack: XNNPACK refused INT8 layer %lldx%lld\n",
			(long long)l->cin, (long long)l->cout);
		exit(1);
	}
	free(wt);
	return op;
}

/* The INT8 rows: ours and XNNPACK's QC8, alternated; the sums and the worst ratio. */
static void bench_int8(const struct layer *layers, unsigned int n)
{
	double sum_q = 0, sum_x = 0, worst = 0;
	unsigned int i, r;

	printf("\nINT8 (int8 x, per-channel int8 weights, int32 bias): the INT8 fast path "
	       "against XNNPACK QC8, fastest of %d alternated runs\n", RUNS);
	printf("%-5s %-22s %9s %10s %7s\n", "layer", "shape", "own ms", "XNNPACK ms", "own/X");
	for (i = 0; i <= n; i++) {
		struct qlayer q = { .l = i < n ? layers[i] : (struct layer){ 1024, 1, 1000, 1, 1, 1 },
				    .fc = i == n };
		uint64_t tq = UINT64_MAX, tx = UINT64_MAX, t0;
		struct qpu_nn_tensor_info ti;
		struct qpu_nn_node_info ni;
		struct qpu_nn_graph *g;
		xnn_operator_t op;
		int8_t *x, *y;
		char shape[40];

		if (qlayer_init(&q)) {
			fprintf(stderr, "nn-xnnpack: out of memory\n");
			exit(1);
		}
		g = qgraph(&q);
		op = qxnn(&q, &x, &y);
		qpu_nn_input(g, 0, &ti);
		memset(ti.data, 0, ti.bytes);
		for (r = 0; r < RUNS; r++) {
			qpu_nn_run(g);
			qpu_nn_node(g, 0, &ni);
			tq = ni.last_ns < tq ? ni.last_ns : tq;
			t0 = now_ns();
			xnn_run_operator(op, NULL);
			t0 = now_ns() - t0;
			tx = t0 < tx ? t0 : tx;
		}
		if (q.fc)
			snprintf(shape, sizeof(shape), "fc %lld>%lld", (long long)q.l.cin,
				 (long long)q.l.cout);
		else
			snprintf(shape, sizeof(shape), "%s %lld>%lld @%lld s%lld",
				 q.l.group > 1 ? "dw" : (q.l.k == 1 ? "pw" : "conv"),
				 (long long)q.l.cin, (long long)q.l.cout, (long long)q.l.hw,
				 (long long)q.l.stride);
		printf("%-5u %-22s %9.3f %10.3f %7.2f\n", i, shape, tq / 1e6, tx / 1e6,
		       (double)tq / (double)tx);
		sum_q += (double)tq;
		sum_x += (double)tx;
		if ((double)tq / (double)tx > worst)
			worst = (double)tq / (double)tx;
		xnn_delete_operator(op);
		qpu_nn_free(g);
		qlayer_free(&q);
		free(x);
		free(y);
	}
	printf("%-5s %-22s %9.3f %10.3f %7.2f (worst layer: %.2f)\n", "total", "", sum_q / 1e6,
	       sum_x / 1e6, sum_q / sum_x, worst);
}

int main(int argc, char **argv)
{
	static const int64_t blocks[13][2] = {
		{ 64, 1 }, { 128, 2 }, { 128, 1 }, { 256, 2 }, { 256, 1 }, { 512, 2 },
		{ 512, 1 }, { 512, 1 }, { 512, 1 }, { 512, 1 }, { 512, 1 }, { 1024, 2 }, { 1024, 1 },
	};
	struct layer layers[27];
	double sum_q = 0, sum_v = 0, sum_x = 0, worst = 0;
	int64_t c = 32, hw = 112;
	unsigned int i, n = 0;

	if (xnn_initialize(NULL) != xnn_status_success) {
		fprintf(stderr, "nn-xnnpack: xnn_initialize failed (no supported CPU?)\n");
		return 1;
	}
	layers[n++] = (struct layer){ 3, 224, 32, 3, 2, 1 };
	for (i = 0; i < 13; i++) {
		layers[n++] = (struct layer){ c, hw, c, 3, blocks[i][1], c };
		hw = (hw + 2 - 3) / blocks[i][1] + 1;
		layers[n++] = (struct layer){ c, hw, blocks[i][0], 1, 1, 1 };
		c = blocks[i][0];
	}
	if (argc > 1 && !strcmp(argv[1], "int8")) {	/* the INT8 rows alone */
		bench_int8(layers, n);
		xnn_deinitialize();
		return 0;
	}
	printf("MobileNet v1 1.0 224x224, one thread, fastest of %d runs\n", RUNS);
	printf("%-5s %-22s %9s %9s %10s %7s %7s\n", "layer", "shape", "own ms", "via ms",
	       "XNNPACK ms", "own/X", "via/X");
	for (i = 0; i < n; i++) {
		const struct layer *l = &layers[i];
		uint64_t tq = time_qpu_nn(l, QPU_NN_BIND_NO_XNNPACK), tv = time_qpu_nn(l, 0);
		uint64_t tx = time_xnnpack(l);
		char shape[40];

		snprintf(shape, sizeof(shape), "%s %lld>%lld @%lld s%lld",
			 l->group > 1 ? "dw" : (l->k == 1 ? "pw" : "conv"), (long long)l->cin,
			 (long long)l->cout, (long long)l->hw, (long long)l->stride);
		printf("%-5u %-22s %9.3f %9.3f %10.3f %7.2f %7.2f\n", i, shape, tq / 1e6, tv / 1e6,
		       tx / 1e6, (double)tq / (double)tx, (double)tv / (double)tx);
		sum_q += (double)tq;
		sum_v += (double)tv;
		sum_x += (double)tx;
		if ((double)tv / (double)tx > worst)
			worst = (double)tv / (double)tx;
	}
	printf("%-5s %-22s %9.3f %9.3f %10.3f %7.2f %7.2f (worst layer via XNNPACK: %.2f)\n",
	       "total", "", sum_q / 1e6, sum_v / 1e6, sum_x / 1e6, sum_q / sum_x, sum_v / sum_x,
	       worst);
	bench_int8(layers, n);
	xnn_deinitialize();
	return 0;
}
