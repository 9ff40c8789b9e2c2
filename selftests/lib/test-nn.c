// SPDX-License-Identifier: MIT
/*
 * <qpu_nn.h> from C: graphs built here (nn-build.h) loaded, planned and
 * run on the CPU's fast path, its reference and the emulator's QPUs, which
 * must agree; refusals named; truncated and corrupt images refused; the
 * window kernels' calls (libqpu-internal) refused when bad. The
 * operators' results against numpy references of the ONNX specification
 * are libqpu/python/tests/test_nn.py's.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qpu.h"
#include "qpu_nn.h"
#include "testlib.h"
#include "nn-build.h"
#include "kernels/nn_kernels.h"
#include "nn/nn_internal.h"
#include "qpu_gen.h"
#include "dwu8-ref.h"

static const char *device_path = "emu";
static struct qpu_dev *dev;

static const struct t_option options[] = {
	{ "device", &device_path, "device the QPU cases run on (default emu)" },
	{ NULL, NULL, NULL },
};

static int open_dev(void)
{
	dev = qpu_dev_open(device_path);
	if (!dev)
		fprintf(stderr, "%s: %s (the QPU cases skip)\n", device_path, strerror(errno));
	return T_EXIT_PASS;
}

static void close_dev(void)
{
	qpu_dev_close(dev);
}

static float frand(uint64_t *s)
{
	return (float)((t_rand(s) >> 40) & 0xffff) / 32768.0f - 1.0f;
}

static float *frand_n(size_t n, uint64_t seed)
{
	float *v = malloc(n * sizeof(*v));
	size_t i;

	for (i = 0; v && i < n; i++)
		v[i] = frand(&seed);
	return v;
}

/*
 * x (1 x C x H x W) -> Conv 3x3 (pads, stride) + bias -> Relu -> Conv 1x1
 * -> Reshape to (1, -1) -> Gemm (transB) -> Softmax. Channels C -> M -> M.
 */
static uint8_t *conv_net(int64_t C, int64_t H, int64_t W, int64_t M, int64_t stride,
			 size_t *size)
{
	struct nb q = { 0 };
	int64_t xd[4] = { 1, C, H, W }, w1d[4] = { M, C, 3, 3 }, bd[1] = { M };
	int64_t w2d[4] = { M, M, 1, 1 }, oh = (H + 2 - 3) / stride + 1, ow = (W + 2 - 3) / stride + 1;
	int64_t fcd[2] = { 10, M * oh * ow }, shd[1] = { 2 }, shape[2] = { 1, -1 };
	int64_t pads[4] = { 1, 1, 1, 1 }, strides[2] = { stride, stride };
	float *w1 = frand_n((size_t)(M * C * 9), 1), *b1 = frand_n((size_t)M, 2);
	float *w2 = frand_n((size_t)(M * M), 3), *fc = frand_n((size_t)(10 * M * oh * ow), 4);
	uint32_t x, tw1, tb1, c1, r1, tw2, c2, tsh, rs, tfc, g, y, in[3];
	uint8_t *img;

	x = nb_tensor(&q, "x", QPU_NN_FLOAT32, 4, xd, NULL, 0);
	tw1 = nb_tensor(&q, "w1", QPU_NN_FLOAT32, 4, w1d, w1, (size_t)(M * C * 9) * 4);
	tb1 = nb_tensor(&q, "b1", QPU_NN_FLOAT32, 1, bd, b1, (size_t)M * 4);
	tw2 = nb_tensor(&q, "w2", QPU_NN_FLOAT32, 4, w2d, w2, (size_t)(M * M) * 4);
	tsh = nb_tensor(&q, "shape", QPU_NN_INT64, 1, shd, shape, sizeof(shape));
	tfc = nb_tensor(&q, "fc", QPU_NN_FLOAT32, 2, fcd, fc, (size_t)(fcd[0] * fcd[1]) * 4);
	c1 = nb_value(&q, "c1");
	r1 = nb_value(&q, "r1");
	c2 = nb_value(&q, "c2");
	rs = nb_value(&q, "rs");
	g = nb_value(&q, "g");
	y = nb_value(&q, "y");
	nb_attr_ints(&q, "pads", 4, pads);
	nb_attr_ints(&q, "strides", 2, strides);
	in[0] = x, in[1] = tw1, in[2] = tb1;
	nb_node(&q, "conv1", "Conv", "", 3, in, 1, &c1);
	nb_node(&q, "relu1", "Relu", "", 1, &c1, 1, &r1);
	in[0] = r1, in[1] = tw2;
	nb_node(&q, "conv2", "Conv", "", 2, in, 1, &c2);
	in[0] = c2, in[1] = tsh;
	nb_node(&q, "flat", "Reshape", "", 2, in, 1, &rs);
	nb_attr_int(&q, "transB", 1);
	in[0] = rs, in[1] = tfc;
	nb_node(&q, "fc", "Gemm", "", 2, in, 1, &g);
	nb_node(&q, "softmax", "Softmax", "", 1, &g, 1, &y);
	img = nb_finish(&q, 13, 1, &x, 1, &y, size);
	free(w1);
	free(b1);
	free(w2);
	free(fc);
	return img;
}

/* The graph of image @img loaded and bound to @d with @flags (checked), or NULL. */
static struct qpu_nn_graph *load_bound(const uint8_t *img, size_t size, struct qpu_dev *d,
				       unsigned int flags)
{
	struct qpu_nn_graph *g;
	char err[256];

	g = qpu_nn_load_mem(img, size, err, sizeof(err));
	T_CHECK(g != NULL);
	if (!g) {
		fprintf(stderr, "load: %s\n", err);
		return NULL;
	}
	T_CHECK(qpu_nn_bind(g, d, flags) == 0);
	return g;
}

/*
 * Runs @img on @d (NULL: the CPU) with @flags: output @i into @out, its
 * element count (0 if the graph did not load).
 */
static size_t run_output(const uint8_t *img, size_t size, struct qpu_dev *d, unsigned int flags,
			 const float *x, unsigned int i, float *out, struct qpu_nn_graph **keep)
{
	struct qpu_nn_tensor_info ti, to = { 0 };
	struct qpu_nn_graph *g = load_bound(img, size, d, flags);

	if (!g)
		return 0;
	T_CHECK(qpu_nn_input(g, 0, &ti) == 0 && qpu_nn_output(g, i, &to) == 0);
	memcpy(ti.data, x, ti.bytes);
	T_CHECK(qpu_nn_run(g) == 0);
	memcpy(out, to.data, to.bytes);
	if (keep)
		*keep = g;
	else
		qpu_nn_free(g);
	return to.bytes / sizeof(float);
}

/* The same for conv_net's one output (10 floats); 0, or -1 if it did not load. */
static int run_net(const uint8_t *img, size_t size, struct qpu_dev *d, unsigned int flags,
		   const float *x, float *out, struct qpu_nn_graph **keep)
{
	return run_output(img, size, d, flags, x, 0, out, keep) ? 0 : -1;
}

static double max_rel(const float *a, const float *b, size_t n)
{
	double worst = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		double d = fabs((double)a[i] - b[i]) / (fabs((double)b[i]) + 1e-6);

		worst = d > worst ? d : worst;
	}
	return worst;
}

T_TEST(cpu_fast_ref_and_qpus_agree)
{
	static const int64_t shapes[][5] = {
		/* C, H, W, M, stride */
		{ 3, 9, 7, 16, 2 }, { 5, 1, 1, 7, 1 }, { 8, 16, 16, 32, 1 }, { 1, 4, 5, 3, 2 },
	};
	size_t i, size;

	for (i = 0; i < T_ARRAY_SIZE(shapes); i++) {
		const int64_t *s = shapes[i];
		uint8_t *img = conv_net(s[0], s[1], s[2], s[3], s[4], &size);
		float *x = frand_n((size_t)(s[0] * s[1] * s[2]), 9 + i);
		float ref[10], fast[10], qpu[10];

		T_CHECK(run_net(img, size, NULL, QPU_NN_BIND_REFERENCE, x, ref, NULL) == 0);
		T_CHECK(run_net(img, size, NULL, 0, x, fast, NULL) == 0);
		if (max_rel(fast, ref, 10) >= 1e-4)
			fprintf(stderr, "shape %zu: fast path off by %g\n", i, max_rel(fast, ref, 10));
		T_CHECK(max_rel(fast, ref, 10) < 1e-4);
		if (dev) {
			T_CHECK(run_net(img, size, dev, QPU_NN_BIND_QPU_ALL, x, qpu, NULL) == 0);
			/* the QPUs round products toward zero: close, not equal */
			T_CHECK(max_rel(qpu, ref, 10) < 1e-3);
		}
		free(img);
		free(x);
	}
}

/*
 * x (1 x C x H x W) -> depthwise Conv kxk (pads 1, stride) + bias -> Relu
 * -> MaxPool 2x2 stride 2 -> AveragePool 3x3 (pads 1) -> GlobalAveragePool:
 * the window kernels' graph (dwconv.qasm, pool.qasm for k = 3). Outputs:
 * the average pooling's and the global one's.
 */
static uint8_t *window_net(int64_t C, int64_t H, int64_t W, int64_t k, int64_t stride,
			   size_t *size)
{
	struct nb q = { 0 };
	int64_t xd[4] = { 1, C, H, W }, wd[4] = { C, 1, k, k }, bd[1] = { C };
	int64_t pads[4] = { 1, 1, 1, 1 }, strides[2] = { stride, stride };
	int64_t k2[2] = { 2, 2 }, k3[2] = { 3, 3 }, s2[2] = { 2, 2 };
	float *w = frand_n((size_t)(C * k * k), 21), *b = frand_n((size_t)C, 22);
	uint32_t x, tw, tb, c, r, m, a, y, in[3], out[2];
	uint8_t *img;

	x = nb_tensor(&q, "x", QPU_NN_FLOAT32, 4, xd, NULL, 0);
	tw = nb_tensor(&q, "w", QPU_NN_FLOAT32, 4, wd, w, (size_t)(C * k * k) * 4);
	tb = nb_tensor(&q, "b", QPU_NN_FLOAT32, 1, bd, b, (size_t)C * 4);
	c = nb_value(&q, "c");
	r = nb_value(&q, "r");
	m = nb_value(&q, "m");
	a = nb_value(&q, "a");
	y = nb_value(&q, "y");
	nb_attr_ints(&q, "pads", 4, pads);
	nb_attr_ints(&q, "strides", 2, strides);
	nb_attr_int(&q, "group", C);
	in[0] = x, in[1] = tw, in[2] = tb;
	nb_node(&q, "dw", "Conv", "", 3, in, 1, &c);
	nb_node(&q, "relu", "Relu", "", 1, &c, 1, &r);
	nb_attr_ints(&q, "kernel_shape", 2, k2);
	nb_attr_ints(&q, "strides", 2, s2);
	nb_node(&q, "max", "MaxPool", "", 1, &r, 1, &m);
	nb_attr_ints(&q, "kernel_shape", 2, k3);
	nb_attr_ints(&q, "pads", 4, pads);
	nb_node(&q, "avg", "AveragePool", "", 1, &m, 1, &a);
	nb_node(&q, "gap", "GlobalAveragePool", "", 1, &a, 1, &y);
	out[0] = a, out[1] = y;
	img = nb_finish(&q, 13, 1, &x, 2, out, size);
	free(w);
	free(b);
	return img;
}

T_TEST(depthwise_and_pooling_on_the_qpus)
{
	static const int64_t shapes[][4] = {
		/* C, H, W, stride: 1 and 3 vectors a row, tails, 1x1 pools */
		{ 4, 9, 9, 1 }, { 3, 21, 37, 2 }, { 2, 2, 3, 1 }, { 17, 14, 14, 1 },
	};
	const char *where[] = { "qpu", "fused", "qpu", "qpu", "qpu" };
	struct qpu_nn_node_info ni;
	struct qpu_nn_graph *g;
	size_t i, j, size, n;

	if (!dev)
		T_SKIP("no device");
	for (i = 0; i < T_ARRAY_SIZE(shapes); i++) {
		const int64_t *s = shapes[i];
		uint8_t *img = window_net(s[0], s[1], s[2], 3, s[3], &size);
		float *x = frand_n((size_t)(s[0] * s[1] * s[2]), 30 + i);
		float ref[2][17 * 7 * 7], qpu[2][17 * 7 * 7];

		for (j = 0; j < 2; j++) {
			n = run_output(img, size, NULL, QPU_NN_BIND_REFERENCE, x,
				       (unsigned int)j, ref[j], NULL);
			T_CHECK(n == run_output(img, size, dev, QPU_NN_BIND_QPU_ALL, x,
						(unsigned int)j, qpu[j], &g));
			/* the QPUs round toward zero: within a few ulps */
			if (max_rel(qpu[j], ref[j], n) >= 1e-5)
				fprintf(stderr, "shape %zu output %zu off by %g\n", i, j,
					max_rel(qpu[j], ref[j], n));
			T_CHECK(max_rel(qpu[j], ref[j], n) < 1e-5);
			for (n = 0; g && j == 0 && n < T_ARRAY_SIZE(where); n++) {
				T_CHECK(qpu_nn_node(g, (unsigned int)n, &ni) == 0);
				T_EQ_STR(where[n], qpu_nn_where_name(ni.where));
			}
			qpu_nn_free(g);
		}
		free(img);
		free(x);
	}
}

/*
 * Runs window_net @img on @d with every node it can take on the QPUs: the
 * average pooling's output within 1e-5 of the reference's, the depthwise
 * convolution at @dw_where, its reason starting with @dw_why, the MaxPool
 * at @max_where, its reason with @max_why.
 */
static void window_net_placed(const uint8_t *img, size_t size, struct qpu_dev *d, const float *x,
			      enum qpu_nn_where dw_where, const char *dw_why,
			      enum qpu_nn_where max_where, const char *max_why)
{
	float ref[256], out[256];
	struct qpu_nn_node_info ni;
	struct qpu_nn_graph *g = NULL;
	size_t n = run_output(img, size, NULL, QPU_NN_BIND_REFERENCE, x, 0, ref, NULL);

	T_CHECK(n <= T_ARRAY_SIZE(ref));
	T_CHECK(n == run_output(img, size, d, QPU_NN_BIND_QPU_ALL, x, 0, out, &g));
	T_CHECK(max_rel(out, ref, n) < 1e-5);
	T_CHECK(g && qpu_nn_node(g, 0, &ni) == 0 && ni.where == dw_where);
	T_CHECK(g && strncmp(ni.why, dw_why, strlen(dw_why)) == 0);
	T_CHECK(g && qpu_nn_node(g, 2, &ni) == 0 && ni.where == max_where);
	T_CHECK(g && strncmp(ni.why, max_why, strlen(max_why)) == 0);
	qpu_nn_free(g);
}

/* A depthwise 5x5 has no QPU kernel: the CPU runs it, and the plan says why. */
T_TEST(depthwise_without_kernel_planned_on_the_cpu)
{
	size_t size;
	uint8_t *img = window_net(4, 9, 9, 5, 1, &size);
	float *x = frand_n(4 * 81, 40);

	if (!dev) {
		free(img);
		free(x);
		T_SKIP("no device");
	}
	/* (then "; XNNPACK's convolution" where the machine has it) */
	window_net_placed(img, size, dev, x, QPU_NN_WHERE_CPU, "no QPU kernel for Conv with a "
			  "depthwise kernel other than 3x3", QPU_NN_WHERE_QPU, "");
	free(img);
	free(x);
}

/* The largest difference of @a and @b over @n floats. */
static double max_abs(const float *a, const float *b, size_t n)
{
	double worst = 0;
	size_t i;

	for (i = 0; i < n; i++)
		worst = fmax(worst, fabs((double)a[i] - b[i]));
	return worst;
}

/*
 * The emulated V3Ds (Pi 4: 8 QPUs, Pi 5: 12), whatever --device is: conv_net's
 * convolutions and Gemm on their sgemm (with the device's QPU count), the
 * same outputs as the CPU's reference, planned by the time model of the
 * device's board or asked; window_net's depthwise convolution and pooling
 * on the QPUs (v3d/dwconv.qasm, v3d/pool.qasm) when asked.
 */
T_TEST(v3d_emulators_run_the_nets)
{
	static const char *const paths[] = { "emu:v3d42", "emu:v3d71" };
	static const char *const boards[] = { "on Pi 4 (V3D 4.2, 8 QPUs", "on Pi 5 (V3D 7.1, 12 QPUs" };
	static const unsigned int flags[] = { QPU_NN_BIND_QPU_ALL, 0 };
	size_t size, wsize, i, j;
	uint8_t *img = conv_net(8, 16, 16, 32, 1, &size), *wimg = window_net(5, 9, 11, 3, 1, &wsize);
	float *x = frand_n(8 * 16 * 16, 50), *wx = frand_n(5 * 9 * 11, 51);
	float ref[10], out[10];
	struct qpu_nn_node_info ni;
	struct qpu_nn_graph *g;

	T_CHECK(run_net(img, size, NULL, QPU_NN_BIND_REFERENCE, x, ref, NULL) == 0);
	for (i = 0; i < T_ARRAY_SIZE(paths); i++) {
		struct qpu_dev *d = qpu_dev_open(paths[i]);

		T_CHECK(d != NULL);
		if (!d)
			continue;
		for (j = 0; j < T_ARRAY_SIZE(flags); j++) {
			g = NULL;
			T_CHECK(run_net(img, size, d, flags[j], x, out, &g) == 0);
			/* V3D rounds to nearest: within 1e-4 of the largest probability */
			if (max_abs(out, ref, 10) >= 1e-4)
				fprintf(stderr, "%s: off by %g\n", paths[i], max_abs(out, ref, 10));
			T_CHECK(max_abs(out, ref, 10) < 1e-4);
			/* conv1: 3x3 by im2col, 590 K multiply-adds, the QPUs' */
			T_CHECK(g && qpu_nn_node(g, 0, &ni) == 0 && ni.where == QPU_NN_WHERE_QPU);
			T_CHECK(g && strstr(ni.why, boards[i]) != NULL);
			/* conv2: 262 K, a near thing on a Pi 5 */
			T_CHECK(g && qpu_nn_node(g, 2, &ni) == 0 && strstr(ni.why, boards[i]));
			T_CHECK(g && (ni.where == QPU_NN_WHERE_QPU || !flags[j]));
			/* fc: 82 K, under SUBMIT_CSD's modelled 20 us on the CPU */
			T_CHECK(g && qpu_nn_node(g, 4, &ni) == 0 &&
				ni.where == (flags[j] ? QPU_NN_WHERE_QPU : QPU_NN_WHERE_CPU));
			if (g && !flags[j])
				T_CHECK(strncmp(ni.why, "faster on the CPU: ", 19) == 0);
			qpu_nn_free(g);
		}
		window_net_placed(wimg, wsize, d, wx, QPU_NN_WHERE_QPU, "", QPU_NN_WHERE_QPU, "");
		qpu_dev_close(d);
	}
	free(img);
	free(wimg);
	free(x);
	free(wx);
}

/*
 * Runs @img (one input of shape @xd: random floats times @scale, from
 * @seed) on V3D device @path with every node it can take on the QPUs:
 * its output within 1e-4 relative of the reference's, node 0 at @where,
 * its reason starting with @why.
 */
static void v3d_net_placed(const uint8_t *img, size_t size, const char *path, const int64_t *xd,
			   uint64_t seed, float scale, const char *where, const char *why)
{
	size_t in = (size_t)(xd[0] * xd[1] * xd[2] * xd[3]), n, i;
	size_t len = (size_t)(xd[0] * xd[1] * (xd[2] + 4) * (xd[3] + 4));
	struct qpu_dev *d = qpu_dev_open(path);
	float *x = frand_n(in, seed), *ref = calloc(len, sizeof(*ref));
	float *out = calloc(len, sizeof(*out));
	struct qpu_nn_node_info ni;
	struct qpu_nn_graph *g = NULL;

	T_CHECK(d && x && ref && out);
	if (!d || !x || !ref || !out)
		goto out;
	for (i = 0; i < in; i++)
		x[i] *= scale;
	n = run_output(img, size, NULL, QPU_NN_BIND_REFERENCE, x, 0, ref, NULL);
	T_CHECK(n > 0 && n <= len);
	T_CHECK(n == run_output(img, size, d, QPU_NN_BIND_QPU_ALL, x, 0, out, &g));
	if (max_rel(out, ref, n) >= 1e-4)
		fprintf(stderr, "%s: off by %g\n", path, max_rel(out, ref, n));
	T_CHECK(max_rel(out, ref, n) < 1e-4);
	T_CHECK(g && qpu_nn_node(g, 0, &ni) == 0);
	if (g) {
		T_EQ_STR(where, qpu_nn_where_name(ni.where));
		T_CHECK(strncmp(ni.why, why, strlen(why)) == 0);
	}
out:
	qpu_nn_free(g);
	qpu_dev_close(d);
	free(x);
	free(ref);
	free(out);
}

/*
 * x (N x C x H x W) -> depthwise Conv 3x3 (@pads: top, left, bottom,
 * right; @stride) + bias -> Clip(0, 6): MobileNet's depthwise layer.
 */
static uint8_t *dw_net(const int64_t *xd, int64_t stride, const int64_t *pads, size_t *size)
{
	struct nb q = { 0 };
	int64_t C = xd[1], wd[4] = { C, 1, 3, 3 }, bd[1] = { C };
	int64_t p4[4] = { pads[0], pads[1], pads[2], pads[3] }, strides[2] = { stride, stride };
	float *w = frand_n((size_t)(C * 9), 61), *b = frand_n((size_t)C, 62);
	uint32_t x, tw, tb, lo, hi, c, y, in[3];
	float zero = 0.0f, six = 6.0f;
	int64_t one[1] = { 1 };
	uint8_t *img;

	x = nb_tensor(&q, "x", QPU_NN_FLOAT32, 4, xd, NULL, 0);
	tw = nb_tensor(&q, "w", QPU_NN_FLOAT32, 4, wd, w, (size_t)(C * 9) * 4);
	tb = nb_tensor(&q, "b", QPU_NN_FLOAT32, 1, bd, b, (size_t)C * 4);
	lo = nb_tensor(&q, "lo", QPU_NN_FLOAT32, 0, one, &zero, 4);
	hi = nb_tensor(&q, "hi", QPU_NN_FLOAT32, 0, one, &six, 4);
	c = nb_value(&q, "c");
	y = nb_value(&q, "y");
	nb_attr_ints(&q, "pads", 4, p4);
	nb_attr_ints(&q, "strides", 2, strides);
	nb_attr_int(&q, "group", C);
	in[0] = x, in[1] = tw, in[2] = tb;
	nb_node(&q, "dw", "Conv", "", 3, in, 1, &c);
	in[0] = c, in[1] = lo, in[2] = hi;
	nb_node(&q, "relu6", "Clip", "", 3, in, 1, &y);
	img = nb_finish(&q, 13, 1, &x, 1, &y, size);
	free(w);
	free(b);
	return img;
}

/*
 * v3d/dwconv.qasm on the emulated V3D 4.2 and 7.1 against the reference,
 * edge shapes: a 1x1 image, odd channels and widths (tails of 14 and 15
 * outputs, 1 to 4 vectors a row), stride 2 with pads on one side and both,
 * a batch of 3, pads as wide as the image; the fused Clip on the QPUs.
 * A horizontal stride of 3 falls back to the CPU and the plan says why.
 */
T_TEST(v3d_depthwise_on_the_qpus)
{
	static const char *const paths[] = { "emu:v3d42", "emu:v3d71" };
	static const struct { int64_t x[4], stride, pads[4]; } cases[] = {
		{ { 1, 3, 1, 1 }, 1, { 1, 1, 1, 1 } },
		{ { 2, 5, 9, 15 }, 1, { 1, 1, 1, 1 } },
		{ { 1, 17, 7, 29 }, 1, { 0, 0, 0, 0 } },
		{ { 1, 7, 13, 47 }, 2, { 1, 1, 1, 1 } },
		{ { 3, 33, 8, 30 }, 2, { 0, 0, 1, 1 } },
		{ { 1, 2, 2, 2 }, 2, { 2, 2, 2, 2 } },
		{ { 1, 20, 14, 14 }, 1, { 1, 1, 1, 1 } },
		{ { 1, 4, 9, 9 }, 3, { 1, 1, 1, 1 } },
	};
	static const char why3[] = "no QPU kernel for Conv with a horizontal stride over V3D's 2";
	size_t i, j, size;

	for (i = 0; i < T_ARRAY_SIZE(paths); i++)
		for (j = 0; j < T_ARRAY_SIZE(cases); j++) {
			uint8_t *img = dw_net(cases[j].x, cases[j].stride, cases[j].pads, &size);
			int stride3 = cases[j].stride > QPU_DWCONV_V3D_MAX_STRIDE_W;

			/* inputs past the clamp's 6 */
			v3d_net_placed(img, size, paths[i], cases[j].x, 70 + j, 8.0f,
				       stride3 ? "cpu" : "qpu", stride3 ? why3 : "");
			free(img);
		}
}

/* Expect @ret to be -EINVAL and the kernels' message to start with @want. */
static void expect_kernel_refusal(struct qpu_kernels *k, int ret, const char *want)
{
	const char *got = qpu_kernels_last_error(k);

	T_CHECK(ret == -EINVAL);
	if (strncmp(got, want, strlen(want)))
		fprintf(stderr, "expected \"%s...\", got \"%s\"\n", want, got);
	T_CHECK(strncmp(got, want, strlen(want)) == 0);
}

/*
 * x (N x C x H x W) -> @op (MaxPool, AveragePool: a @k x @k window,
 * @stride, @pads, @count_pad; GlobalAveragePool).
 */
static uint8_t *pool_net(const int64_t *xd, const char *op, int64_t k, int64_t stride,
			 const int64_t *pads, int64_t count_pad, size_t *size)
{
	struct nb q = { 0 };
	int64_t kk[2] = { k, k }, ss[2] = { stride, stride };
	int64_t p4[4] = { pads[0], pads[1], pads[2], pads[3] };
	uint32_t x, y;

	x = nb_tensor(&q, "x", QPU_NN_FLOAT32, 4, xd, NULL, 0);
	y = nb_value(&q, "y");
	if (strcmp(op, "GlobalAveragePool")) {
		nb_attr_ints(&q, "kernel_shape", 2, kk);
		nb_attr_ints(&q, "strides", 2, ss);
		nb_attr_ints(&q, "pads", 4, p4);
		if (!strcmp(op, "AveragePool"))
			nb_attr_int(&q, "count_include_pad", count_pad);
	}
	nb_node(&q, "pool", op, "", 1, &x, 1, &y);
	return nb_finish(&q, 13, 1, &x, 1, &y, size);
}

/*
 * v3d/pool.qasm on the emulated V3D 4.2 and 7.1 against the reference:
 * 1x1 images, odd channels (17: a global pooling's lanes not a multiple of
 * 16), stride 2 with pads, batches, both counts of an average's pads
 * (pads as large as a window are refused at load: the kernel's own
 * refusal is v3d_window_kernels_refuse's).
 */
T_TEST(v3d_pooling_on_the_qpus)
{
	static const char *const paths[] = { "emu:v3d42", "emu:v3d71" };
	static const struct {
		const char *op;
		int64_t x[4], k, stride, pads[4], count_pad;
	} cases[] = {
		{ "MaxPool", { 2, 5, 9, 15 }, 3, 2, { 1, 1, 1, 1 }, 0 },
		{ "MaxPool", { 1, 17, 8, 8 }, 2, 2, { 0, 0, 0, 0 }, 0 },
		{ "MaxPool", { 1, 3, 1, 1 }, 1, 1, { 0, 0, 0, 0 }, 0 },
		{ "MaxPool", { 1, 3, 21, 37 }, 3, 1, { 1, 1, 1, 1 }, 0 },
		{ "AveragePool", { 3, 3, 7, 21 }, 3, 1, { 1, 1, 1, 1 }, 0 },
		{ "AveragePool", { 1, 20, 13, 13 }, 3, 2, { 1, 1, 1, 1 }, 1 },
		{ "AveragePool", { 1, 2, 1, 1 }, 3, 1, { 1, 1, 1, 1 }, 0 },
		{ "GlobalAveragePool", { 2, 17, 7, 7 }, 0, 0, { 0, 0, 0, 0 }, 0 },
		{ "GlobalAveragePool", { 1, 32, 1, 1 }, 0, 0, { 0, 0, 0, 0 }, 0 },
		{ "GlobalAveragePool", { 1, 3, 5, 3 }, 0, 0, { 0, 0, 0, 0 }, 0 },
	};
	size_t i, j, size;

	for (i = 0; i < T_ARRAY_SIZE(paths); i++)
		for (j = 0; j < T_ARRAY_SIZE(cases); j++) {
			uint8_t *img = pool_net(cases[j].x, cases[j].op, cases[j].k, cases[j].stride,
						cases[j].pads, cases[j].count_pad, &size);

			v3d_net_placed(img, size, paths[i], cases[j].x, 90 + j, 1.0f, "qpu", "");
			free(img);
		}
}

/*
 * The V3D programs' own refusals, after every check VideoCore IV's make:
 * a depthwise horizontal stride over 2, a maximum's pads as large as its
 * window.
 */
T_TEST(v3d_window_kernels_refuse)
{
	static const char *const paths[] = { "emu:v3d42", "emu:v3d71" };
	static const float w9[9];
	const struct qpu_window win = {
		.c = 1, .h = 8, .w = 8, .oh = 8, .ow = 8,
		.stride_h = 1, .stride_w = 1, .pad_top = 1, .pad_left = 1,
	};
	size_t i;

	for (i = 0; i < T_ARRAY_SIZE(paths); i++) {
		struct qpu_dev *d = qpu_dev_open(paths[i]);
		struct qpu_kernels *k = d ? qpu_kernels_new(d) : NULL;
		struct qpu_bo *bo = d ? qpu_bo_new(d, 4096) : NULL;
		struct qpu_dwconv dw = { .x = bo, .y = bo, .y_off = 1024, .win = win, .weights = w9 };
		struct qpu_pool p = { .x = bo, .y = bo, .y_off = 1024, .win = win, .kh = 3, .kw = 3,
				      .pad_bottom = 1, .pad_right = 1 };

		T_CHECK(k && bo);
		if (!k || !bo)
			goto next;
		memset(qpu_bo_get_map(bo), 0, 4096);
		T_CHECK(qpu_dwconv3x3(k, 8, &dw, NULL) == 0);	/* the calls below differ */
		T_CHECK(qpu_pool2d(k, 8, &p, NULL) == 0);
		dw.win.stride_w = 2;
		dw.win.ow = 4;
		T_CHECK(qpu_dwconv3x3(k, 8, &dw, NULL) == 0);
		dw.win.stride_w = 3;
		dw.win.ow = 3;
		expect_kernel_refusal(k, qpu_dwconv3x3(k, 8, &dw, NULL),
				      "dwconv: horizontal stride 3: V3D's program takes 1 to 2");
		p.kh = p.kw = 1;
		expect_kernel_refusal(k, qpu_pool2d(k, 8, &p, NULL),
				      "pool: pads 1, 1, 1, 1 of a 1x1 maximum: V3D's program takes "
				      "pads smaller than the window");
		p.average = 1;	/* an average reads the zero word for a pad */
		T_CHECK(qpu_pool2d(k, 8, &p, NULL) == 0);
next:
		qpu_bo_free(bo);
		qpu_kernels_free(k);
		qpu_dev_close(d);
	}
}

/*
 * Infinite edge pixels (-inf on the left, +inf on the right): the outputs
 * whose windows hold one are that infinity (ONNX leaves the pads out of
 * the sum), never NaN nor the clamp's bound, on VideoCore IV's dwconv.qasm
 * and V3D's: a pad tap is cleared, not multiplied by 0.
 */
static void dwconv_infinite_edges(struct qpu_dev *d, unsigned int qpus, const char *name)
{
	enum { H = 3, W = 20 };
	const struct qpu_window win = {
		.c = 1, .h = H, .w = W, .oh = H, .ow = W,
		.stride_h = 1, .stride_w = 1, .pad_top = 1, .pad_left = 1,
	};
	static const float w9[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	struct qpu_kernels *k = d ? qpu_kernels_new(d) : NULL;
	struct qpu_bo *bo = d ? qpu_bo_new(d, 4096) : NULL;
	struct qpu_dwconv dw = {
		.x = bo, .y = bo, .y_off = 1024, .win = win, .weights = w9,
		.lo = -INFINITY, .hi = INFINITY,
	};
	float *x, *y;
	int r, c, bad = 0;

	T_CHECK(k && bo);
	if (!k || !bo)
		goto out;
	x = qpu_bo_get_map(bo);
	y = x + 256;
	for (r = 0; r < H; r++)
		for (c = 0; c < W; c++)
			x[r * W + c] = c == 0 ? -INFINITY : c == W - 1 ? INFINITY : 1.0f;
	T_CHECK(qpu_dwconv3x3(k, qpus, &dw, NULL) == 0);
	for (r = 0; r < H; r++)
		for (c = 0; c < W; c++) {
			/* the taps inside the image: 2 or 3 rows of 2 or 3 columns */
			float want = c <= 1 ? -INFINITY : c >= W - 2 ? INFINITY :
				     (float)((r == 0 || r == H - 1 ? 2 : 3) * 3);

			if (y[r * W + c] != want && bad++ < 3)
				fprintf(stderr, "%s: output %d,%d is %g, not %g\n", name, r, c,
					y[r * W + c], want);
		}
	T_EQ_U64(0, bad);
out:
	qpu_bo_free(bo);
	qpu_kernels_free(k);
}

T_TEST(dwconv_infinite_edges_make_no_nan)
{
	struct qpu_dev *v42 = qpu_dev_open("emu:v3d42"), *v71 = qpu_dev_open("emu:v3d71");

	if (dev)
		dwconv_infinite_edges(dev, 12, "VideoCore IV");
	dwconv_infinite_edges(v42, 8, "emu:v3d42");
	dwconv_infinite_edges(v71, 12, "emu:v3d71");
	qpu_dev_close(v42);
	qpu_dev_close(v71);
}

T_TEST(window_kernels_refuse_bad_calls)
{
	static const float w9[2 * 9];
	struct qpu_kernels *k;
	struct qpu_bo *bo;
	struct qpu_dwconv d;
	struct qpu_pool p;
	const struct qpu_window win = {
		.c = 2, .h = 8, .w = 8, .oh = 8, .ow = 8,
		.stride_h = 1, .stride_w = 1, .pad_top = 1, .pad_left = 1,
	};
	const struct qpu_dwconv good_d = {
		.x_off = 0, .y_off = 1024, .win = win, .weights = w9, .lo = 0, .hi = 6,
	};
	const struct qpu_pool good_p = { .x_off = 0, .y_off = 1024, .win = win, .kh = 3, .kw = 3 };

	if (!dev)
		T_SKIP("no device");
	k = qpu_kernels_new(dev);
	bo = qpu_bo_new(dev, 4096);
	T_CHECK(k && bo);
	if (!k || !bo)
		goto out;
	memset(qpu_bo_get_map(bo), 0, 4096);
	d = good_d;
	d.x = d.y = bo;
	T_CHECK(qpu_dwconv3x3(k, 12, &d, NULL) == 0);	/* the calls below differ in one field */
	p = good_p;
	p.x = p.y = bo;
	T_CHECK(qpu_pool2d(k, 12, &p, NULL) == 0);

	expect_kernel_refusal(k, qpu_dwconv3x3(k, 12, NULL, NULL), "dwconv: no convolution");
	d.weights = NULL;
	expect_kernel_refusal(k, qpu_dwconv3x3(k, 12, &d, NULL), "dwconv: no weights");
	d = good_d, d.x = d.y = bo, d.win.c = 0;
	expect_kernel_refusal(k, qpu_dwconv3x3(k, 12, &d, NULL), "dwconv: a dimension is 0");
	d = good_d, d.x = d.y = bo, d.win.stride_w = 16;
	expect_kernel_refusal(k, qpu_dwconv3x3(k, 12, &d, NULL),
			      "dwconv: strides 1, 16: the kernel takes 1 to 15");
	d = good_d, d.x = d.y = bo, d.win.pad_top = 9;
	expect_kernel_refusal(k, qpu_dwconv3x3(k, 12, &d, NULL),
			      "dwconv: pads 9, 1 are larger than the input");
	d = good_d, d.x = d.y = bo, d.win.h = 4096, d.win.w = 1024;
	expect_kernel_refusal(k, qpu_dwconv3x3(k, 12, &d, NULL),
			      "dwconv: planes of 4096x1024 and 8x8: at most 4194303 floats each");
	d = good_d, d.x = d.y = bo, d.y_off = 4096 - 256;
	expect_kernel_refusal(k, qpu_dwconv3x3(k, 12, &d, NULL),
			      "dwconv: y: needs 512 bytes from offset 3840");
	d = good_d, d.x = d.y = bo, d.y_off = 256;
	expect_kernel_refusal(k, qpu_dwconv3x3(k, 12, &d, NULL), "dwconv: x and y overlap");
	d = good_d, d.x = d.y = bo, d.x_off = 2;
	expect_kernel_refusal(k, qpu_dwconv3x3(k, 12, &d, NULL), "dwconv: x: offset 2 is not");
	d = good_d, d.x = d.y = bo;
	expect_kernel_refusal(k, qpu_dwconv3x3(k, 13, &d, NULL),
			      "dwconv: asked for 13 QPUs");
	expect_kernel_refusal(k, qpu_pool2d(k, 12, NULL, NULL), "pool: no pooling");
	p.kw = 0;
	expect_kernel_refusal(k, qpu_pool2d(k, 12, &p, NULL), "pool: a 3x0 window: sides of 1 to");
	p = good_p, p.x = p.y = bo, p.win.stride_h = 0;
	expect_kernel_refusal(k, qpu_pool2d(k, 12, &p, NULL),
			      "pool: strides 0, 1: the kernel takes 1 to 15");
	p = good_p, p.x = p.y = NULL;
	expect_kernel_refusal(k, qpu_pool2d(k, 12, &p, NULL), "pool: x: no buffer");
out:
	qpu_bo_free(bo);
	qpu_kernels_free(k);
}

/* qpu_igemm_u8() of random bytes on @d against the host's sums, @qpus programs. */
static void igemm_matches_host(struct qpu_dev *d, unsigned int m, unsigned int n, unsigned int k4,
			       unsigned int qpus, uint64_t seed)
{
	size_t a_bytes = (size_t)m * k4 * 4, b_bytes = (size_t)n * k4 * 4;
	size_t c_off = (a_bytes + b_bytes + 63) & ~(size_t)63, bad = 0, i, j, k;
	struct qpu_kernels *kern = qpu_kernels_new(d);
	struct qpu_bo *bo = qpu_bo_new(d, c_off + (size_t)m * n * 4);
	struct qpu_igemm p = { .m = m, .n = n, .k4 = k4 };
	uint8_t *map;
	uint32_t *c;

	T_CHECK(kern && bo);
	if (!kern || !bo)
		goto out;
	map = qpu_bo_get_map(bo);
	for (i = 0; i < a_bytes + b_bytes; i++)	/* the extremes too */
		map[i] = i % 7 == 0 ? 255 : i % 11 == 0 ? 0 : (uint8_t)(t_rand(&seed) >> 32);
	p.a = p.b = p.c = bo;
	p.b_off = a_bytes;
	p.c_off = c_off;
	T_CHECK(qpu_igemm_u8(kern, qpus, &p, NULL) == 0);
	c = (uint32_t *)(map + c_off);
	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++) {
			uint32_t want = 0;

			for (k = 0; k < (size_t)k4 * 4; k++)
				want += (uint32_t)map[i * k4 * 4 + k] *
					map[a_bytes + ((j / 16 * k4 + k / 4) * 16 + j % 16) * 4 + k % 4];
			bad += c[i * n + j] != want;
		}
	if (bad)
		fprintf(stderr, "igemm %ux%u, %u words, %u QPUs: %zu sums wrong\n", m, n, k4, qpus,
			bad);
	T_CHECK(bad == 0);
out:
	qpu_bo_free(bo);
	qpu_kernels_free(kern);
}

T_TEST(igemm_sums_exactly_on_every_generation)
{
	static const char *const paths[] = { "emu:v3d42", "emu:v3d71" };
	struct qpu_dev *d;
	size_t i;

	if (!dev)
		T_SKIP("no device");
	igemm_matches_host(dev, 1, 16, 1, 12, 1);	/* one piece */
	igemm_matches_host(dev, 3, 48, 5, 12, 2);	/* runs start inside rows */
	igemm_matches_host(dev, 9, 32, 33, 4, 3);
	for (i = 0; i < T_ARRAY_SIZE(paths); i++) {
		d = qpu_dev_open(paths[i]);
		T_CHECK(d != NULL);
		if (!d)
			continue;
		igemm_matches_host(d, 1, 16, 1, 8, 4);
		igemm_matches_host(d, 3, 48, 5, 8, 5);
		igemm_matches_host(d, 9, 32, 33, 3, 6);
		qpu_dev_close(d);
	}
}

/* --- qpu_dwconv3x3_u8(): the byte depthwise program on VideoCore IV ------------ */

/* A VideoCore IV device for the byte program's cases: the suite's, else the emulator. */
static struct qpu_dev *vc4_dev(void)
{
	uint64_t gen = 0;

	if (dev && !qpu_dev_get_param(dev, QPU_DEV_PARAM_GEN, &gen) && !qpu_gen_is_v3d((int)gen))
		return dev;
	return qpu_dev_open("emu");
}

static void vc4_dev_done(struct qpu_dev *d)
{
	if (d != dev)
		qpu_dev_close(d);
}

/*
 * One call of the byte program: the planes, the bytes as they sit in
 * memory (int8 if @x_int8 / @y_int8), the constants in the unsigned
 * domain (struct qpu_dwconv_u8).
 */
struct dw8_case {
	struct qpu_window win;
	unsigned int pad_bottom, pad_right;
	int x_int8, y_int8;
	uint8_t zx, zy, lo, hi;
	unsigned int qpus;
};

/*
 * Run @t with the given constants on @d and compare every output byte with
 * the reference; the bytes around y (a guard) must stay. Returns the
 * outputs that differ.
 */
static size_t dw8_run(struct qpu_dev *d, const struct dw8_case *t, const uint8_t *x,
		      const int16_t *w, const int32_t *bias, const float *mult)
{
	const struct qpu_window *win = &t->win;
	size_t in = (size_t)win->c * win->h * win->w, out = (size_t)win->c * win->oh * win->ow;
	/* byte offsets of every alignment: planes and rows need none */
	size_t x_off = t->qpus % 4, y_off = ((x_off + in + 64 + 3) & ~(size_t)3) + t->qpus % 3;
	size_t bad = 0, c, i;
	struct qpu_kernels *k = qpu_kernels_new(d);
	struct qpu_bo *bo = qpu_bo_new(d, y_off + out + 64);
	uint8_t *map, *want = NULL;
	unsigned int oy, ox;

	T_CHECK(k && bo);
	if (!k || !bo)
		goto out;
	map = qpu_bo_get_map(bo);
	want = malloc(out);
	T_CHECK(want != NULL);
	if (!want)
		goto out;
	memset(map, 0xa5, y_off + out + 64);
	memcpy(map + x_off, x, in);
	{
		struct qpu_dwconv_u8 p = {
			.x = bo, .x_off = x_off, .y = bo, .y_off = y_off, .win = *win,
			.w = w, .bias = bias, .mult = mult, .zx = t->zx, .zy = t->zy,
			.lo = t->lo, .hi = t->hi, .x_int8 = (uint8_t)t->x_int8,
			.y_int8 = (uint8_t)t->y_int8,
		};
		int ret = qpu_dwconv3x3_u8(k, t->qpus, &p, NULL);

		if (ret)
			fprintf(stderr, "dwconv_u8: %s\n", qpu_kernels_last_error(k));
		T_CHECK(ret == 0);
		if (ret)
			goto out;
		dwu8_ref(&p, x, want);
	}
	for (c = 0; c < win->c; c++)
		for (oy = 0; oy < win->oh; oy++)
			for (ox = 0; ox < win->ow; ox++) {
				size_t o = (c * win->oh + oy) * win->ow + ox;

				if (map[y_off + o] != want[o] && bad++ < 5)
					fprintf(stderr, "dwconv_u8 %ux%u/%u c %zu (%u, %u): %u, "
						"want %u (mult %.9g)\n", win->w, win->h,
						win->stride_w, c, oy, ox, map[y_off + o], want[o],
						(double)mult[c]);
			}
	for (i = 0; i < 64; i++)	/* y is at least 64 bytes past x */
		if (map[y_off - 64 + i] != 0xa5 || map[y_off + out + i] != 0xa5)
			bad++;
out:
	free(want);
	qpu_bo_free(bo);
	qpu_kernels_free(k);
	return bad;
}

/* The output side of a window of @n with pads @a and @b, stride @s. */
static unsigned int dw8_side(unsigned int n, unsigned int a, unsigned int b, unsigned int s)
{
	return (n + a + b - 3) / s + 1;
}

/* Random planes, weights, biases and multipliers for @t; outputs that differ. */
static size_t dw8_random(struct qpu_dev *d, struct dw8_case t, uint64_t seed)
{
	struct qpu_window *win = &t.win;
	size_t in, c, i, bad;
	uint8_t *x;
	int16_t *w;
	int32_t *bias;
	float *mult;

	win->oh = dw8_side(win->h, win->pad_top, t.pad_bottom, win->stride_h);
	win->ow = dw8_side(win->w, win->pad_left, t.pad_right, win->stride_w);
	in = (size_t)win->c * win->h * win->w;
	x = malloc(in);
	w = malloc((size_t)win->c * 9 * sizeof(*w));
	bias = malloc((size_t)win->c * sizeof(*bias));
	mult = malloc((size_t)win->c * sizeof(*mult));
	T_CHECK(x && w && bias && mult);
	if (!x || !w || !bias || !mult) {
		bad = 1;
		goto out;
	}
	for (i = 0; i < in; i++)
		x[i] = (uint8_t)t_rand(&seed);
	for (c = 0; c < win->c; c++) {
		/* weights up to the extremes; multipliers that spread the sums over 0..255 and past */
		int range = c % 3 == 0 ? 511 : 63;

		for (i = 0; i < 9; i++)
			w[c * 9 + i] = (int16_t)((int)(t_rand(&seed) % (uint64_t)range) - range / 2);
		bias[c] = (int32_t)(t_rand(&seed) % 20001) - 10000;
		mult[c] = ldexpf(1.0f + (float)(t_rand(&seed) % 4096) / 4096.0f,
				 -(int)(t_rand(&seed) % 8) - (range > 100 ? 12 : 8));
	}
	bad = dw8_run(d, &t, x, w, bias, mult);
out:
	free(x);
	free(w);
	free(bias);
	free(mult);
	return bad;
}

T_TEST(dwconv_u8_matches_the_reference)
{
	struct qpu_dev *d = vc4_dev();
	/* C, H, W, sh, sw, pt, pl, pb, pr */
	static const unsigned int shapes[][9] = {
		{ 1, 1, 1, 1, 1, 1, 1, 1, 1 },		/* a 1x1 image: all pads but one tap */
		{ 3, 7, 7, 1, 1, 1, 1, 1, 1 },		/* MobileNet's 7 */
		{ 5, 14, 14, 2, 2, 0, 0, 1, 1 },	/* its stride 2: pads after only */
		{ 4, 14, 14, 2, 2, 1, 1, 1, 1 },	/* both sides */
		{ 2, 5, 67, 1, 1, 1, 1, 1, 1 },		/* a row over 64 outputs, W odd */
		{ 3, 9, 130, 2, 2, 1, 1, 1, 1 },	/* two vectors and a tail at stride 2 */
		{ 2, 6, 3, 1, 2, 2, 2, 0, 0 },		/* strides apart, pads of 2 */
		{ 7, 11, 10, 2, 1, 0, 1, 1, 0 },	/* one-sided pads */
		{ 1, 3, 3, 1, 1, 0, 0, 0, 0 },		/* no pads: one output */
		{ 3, 4, 6, 3, 2, 1, 0, 1, 1 },		/* a vertical stride of 3 */
		{ 3, 28, 28, 1, 1, 1, 1, 1, 1 },	/* rows of 7 lanes: 2 a vector, 2 lanes idle */
		{ 2, 5, 32, 1, 1, 1, 1, 1, 1 },		/* of 8 */
		{ 2, 4, 33, 1, 1, 1, 1, 1, 1 },		/* of 9: one a vector */
		{ 9, 13, 20, 1, 1, 1, 1, 1, 1 },	/* 3 rows a vector, 13 of them */
	};
	size_t i, bad = 0;

	T_CHECK(d != NULL);
	if (!d)
		return;
	for (i = 0; i < T_ARRAY_SIZE(shapes); i++) {
		const unsigned int *s = shapes[i];
		struct dw8_case t = {
			.win = { .c = s[0], .h = s[1], .w = s[2], .stride_h = s[3],
				 .stride_w = s[4], .pad_top = s[5], .pad_left = s[6] },
			.pad_bottom = s[7], .pad_right = s[8], .lo = 0, .hi = 255,
			.qpus = 1 + (unsigned int)(i * 5 % 12),
		};
		unsigned int v;

		for (v = 0; v < 6; v++) {	/* both domains both sides, zero points, clamps */
			t.x_int8 = v & 1;
			t.y_int8 = (v >> 1) & 1;
			t.zx = v == 2 ? 0 : v == 3 ? 255 : (uint8_t)(37 * v + 11);
			t.zy = v == 4 ? 0 : v == 5 ? 255 : (uint8_t)(29 * v + 100);
			t.lo = v == 1 ? t.zy : 0;		/* a fused Relu */
			t.hi = v == 3 ? (uint8_t)(t.zy < 200 ? t.zy + 50 : 255) : 255;	/* a Clip */
			bad += dw8_random(d, t, 100 * i + v);
		}
	}
	T_EQ_U64(0, bad);
	vc4_dev_done(d);
}

/*
 * The requantization near its ties: channels whose only weight is the
 * centre's 1 (zx 0), so acc = bias + x for the plane's 256 values x, with
 * biases that put those 256 sums around a tie: exact ties of multipliers
 * odd * 2^-s, the nearest ties among 2^14 sums of random 24-bit
 * multipliers (the exponent range's both ends too), negative sums, sums
 * past 0 and 255, both output domains. Counts the reference's exact ties
 * and near ties (within 2^-8 of a half: the program's exact path) so the
 * case cannot pass without them.
 */
T_TEST(dwconv_u8_requantizes_exactly_near_ties)
{
	enum { C = 1024, SIDE = 16, RUNS = 8 };
	struct qpu_dev *d = vc4_dev();
	struct dw8_case t = {
		.win = { .c = C, .h = SIDE, .w = SIDE, .oh = SIDE, .ow = SIDE, .stride_h = 1,
			 .stride_w = 1, .pad_top = 1, .pad_left = 1 },
		.pad_bottom = 1, .pad_right = 1, .hi = 255, .qpus = 12,
	};
	uint8_t *x = malloc((size_t)C * SIDE * SIDE);
	int16_t *w = calloc((size_t)C * 9, sizeof(*w));
	int32_t *bias = malloc(C * sizeof(*bias));
	float *mult = malloc(C * sizeof(*mult));
	uint64_t seed = 7, ties = 0, near = 0, pairs = 0;
	size_t bad = 0, c, i;
	unsigned int run;

	T_CHECK(d && x && w && bias && mult);
	if (!d || !x || !w || !bias || !mult)
		goto out;
	for (i = 0; i < (size_t)C * SIDE * SIDE; i++)
		x[i] = (uint8_t)i;
	for (c = 0; c < C; c++)
		w[c * 9 + 4] = 1;
	for (run = 0; run < RUNS; run++) {
		t.y_int8 = run & 1;
		t.zy = (uint8_t)(run * 67 % 256);
		for (c = 0; c < C; c++) {
			unsigned int kind = c % 4, e;
			double best = 2.0, lo_acc, hi_acc;
			int64_t a0, acc, pick = 0;

			if (kind == 0) {	/* odd * 2^-s: exact ties */
				e = (unsigned int)(t_rand(&seed) % 8) + 1;
				mult[c] = ldexpf((float)(2 * (t_rand(&seed) % (1u << (e - 1))) + 1),
						 -(int)e);
			} else {	/* a random mantissa, s from 1 to 38 */
				e = kind == 1 ? 38 : kind == 2 ? (unsigned int)(t_rand(&seed) % 30) + 9 : 24;
				mult[c] = ldexpf((float)((t_rand(&seed) & 0x7fffff) | 0x800001), -(int)e);
			}
			/* the sums whose results span -2 .. 258 (and the 24-bit limit) */
			lo_acc = (-2.0 - t.zy) / (double)mult[c];
			hi_acc = (258.0 - t.zy) / (double)mult[c] - 255;
			if (lo_acc < -16000000.0)
				lo_acc = -16000000.0;
			if (hi_acc > 16000000.0)
				hi_acc = 16000000.0;
			if (hi_acc < lo_acc)
				hi_acc = lo_acc;
			a0 = (int64_t)lo_acc + (int64_t)(t_rand(&seed) %
							 (uint64_t)(hi_acc - lo_acc + 1));
			for (acc = a0; acc < a0 + (1 << 14) && kind; acc++) {
				double v = (double)acc * (double)mult[c] + t.zy;
				double f = fabs(v - floor(v) - 0.5);

				if (f < best)
					best = f, pick = acc;
			}
			if (kind)	/* the nearest tie at a random x */
				a0 = pick - (int64_t)(t_rand(&seed) % 256);
			bias[c] = (int32_t)a0;
		}
		for (c = 0; c < C; c++)
			for (i = 0; i < 256; i++) {
				double v = (double)(bias[c] + (int64_t)i) * (double)mult[c] + t.zy;
				double f = fabs(v - floor(v) - 0.5);

				ties += f == 0.0 && v > -1.0 && v < 256.0;
				near += f < 1.0 / 256 && v > -1.0 && v < 256.0;
			}
		pairs += (uint64_t)C * 256;
		bad += dw8_run(d, &t, x, w, bias, mult);
	}
	fprintf(stderr, "%llu sums: %llu exact ties, %llu within 2^-8 of one\n",
		(unsigned long long)pairs, (unsigned long long)ties, (unsigned long long)near);
	T_CHECK(ties > 10000 && near > 100000);
	T_EQ_U64(0, bad);
out:
	free(x);
	free(w);
	free(bias);
	free(mult);
	if (d)
		vc4_dev_done(d);
}

T_TEST(dwconv_u8_refusals)
{
	static const int16_t w9[2 * 9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	static const float m2[2] = { 0.01f, 0.02f };
	struct qpu_dev *d = vc4_dev();
	struct qpu_kernels *k = d ? qpu_kernels_new(d) : NULL;
	struct qpu_bo *bo = d ? qpu_bo_new(d, 4096) : NULL;
	int16_t wbad[2 * 9] = { 0 };
	int32_t bbad[2] = { 0, 0 };
	float mbad[2] = { 0.01f, 0.01f };
	const struct qpu_dwconv_u8 good = {
		.x_off = 0, .y_off = 1024, .w = w9, .mult = m2, .zx = 3, .zy = 5, .hi = 255,
		.win = { .c = 2, .h = 7, .w = 7, .oh = 7, .ow = 7, .stride_h = 1,
			 .stride_w = 1, .pad_top = 1, .pad_left = 1 },
	};
	struct qpu_dwconv_u8 p;

	T_CHECK(k && bo);
	if (!k || !bo)
		goto out;
	memset(qpu_bo_get_map(bo), 0, 4096);
	p = good, p.x = p.y = bo;
	T_CHECK(qpu_dwconv3x3_u8(k, 12, &p, NULL) == 0);	/* the calls below differ in one field */
	expect_kernel_refusal(k, qpu_dwconv3x3_u8(k, 12, NULL, NULL), "dwconv_u8: no convolution");
	p.w = NULL;
	expect_kernel_refusal(k, qpu_dwconv3x3_u8(k, 12, &p, NULL),
			      "dwconv_u8: no weights or multipliers");
	p = good, p.x = p.y = bo, p.mult = NULL;
	expect_kernel_refusal(k, qpu_dwconv3x3_u8(k, 12, &p, NULL),
			      "dwconv_u8: no weights or multipliers");
	p = good, p.x = p.y = bo, p.win.stride_w = 3, p.win.ow = 3;
	expect_kernel_refusal(k, qpu_dwconv3x3_u8(k, 12, &p, NULL),
			      "dwconv_u8: horizontal stride 3: the program takes 1 and 2");
	p = good, p.x = p.y = bo, p.lo = 9, p.hi = 8;
	expect_kernel_refusal(k, qpu_dwconv3x3_u8(k, 12, &p, NULL), "dwconv_u8: clamp 9 to 8 is empty");
	p = good, p.x = p.y = bo, p.win.c = 0;
	expect_kernel_refusal(k, qpu_dwconv3x3_u8(k, 12, &p, NULL), "dwconv_u8: a dimension is 0");
	p = good, p.x = p.y = bo, p.win.h = 4096, p.win.w = 1024;
	expect_kernel_refusal(k, qpu_dwconv3x3_u8(k, 12, &p, NULL),
			      "dwconv_u8: planes of 4096x1024 and 7x7: at most 4194303 bytes each");
	p = good, p.x = p.y = bo, p.y_off = 52;
	expect_kernel_refusal(k, qpu_dwconv3x3_u8(k, 12, &p, NULL), "dwconv_u8: x and y overlap");
	p = good, p.x = p.y = bo;
	expect_kernel_refusal(k, qpu_dwconv3x3_u8(k, 13, &p, NULL), "dwconv_u8: asked for 13 QPUs");
	wbad[9 + 4] = 256;
	p = good, p.x = p.y = bo, p.w = wbad;
	expect_kernel_refusal(k, qpu_dwconv3x3_u8(k, 12, &p, NULL),
			      "dwconv_u8: channel 1 (multiplier 0.02): a weight less its zero point "
			      "outside -255 to 255");
	wbad[9 + 4] = -255;
	T_CHECK(qpu_dwconv3x3_u8(k, 12, &p, NULL) == 0);
	/* the sums' bound: bias + 255 * 255 (zx 3: bias - 3 * w) reaches 2^24 */
	wbad[9 + 4] = 255;
	p.bias = bbad;
	bbad[1] = (1 << 24) - 255 * 255 + 3 * 255;
	expect_kernel_refusal(k, qpu_dwconv3x3_u8(k, 12, &p, NULL),
			      "dwconv_u8: channel 1 (multiplier 0.02): sums that may reach 2^24");
	bbad[1]--;
	T_CHECK(qpu_dwconv3x3_u8(k, 12, &p, NULL) == 0);
	wbad[9 + 4] = -1;	/* the least sum: bias + 3 - 255 */
	bbad[1] = -(1 << 24) + 255 - 3;
	expect_kernel_refusal(k, qpu_dwconv3x3_u8(k, 12, &p, NULL),
			      "dwconv_u8: channel 1 (multiplier 0.02): sums that may reach 2^24");
	p = good, p.x = p.y = bo, p.mult = mbad;
	mbad[0] = ldexpf(1.5f, -39);	/* m 3, s 40 */
	expect_kernel_refusal(k, qpu_dwconv3x3_u8(k, 12, &p, NULL),
			      "dwconv_u8: channel 0 (multiplier 2.72848e-12): a multiplier outside");
	mbad[0] = ldexpf(1.5f, -37);	/* s 38: the least */
	T_CHECK(qpu_dwconv3x3_u8(k, 12, &p, NULL) == 0);
	mbad[0] = ldexpf(1.0f, -37);	/* 1 * 2^-37: m stripped to 1 */
	T_CHECK(qpu_dwconv3x3_u8(k, 12, &p, NULL) == 0);
	mbad[0] = 0.0f;
	expect_kernel_refusal(k, qpu_dwconv3x3_u8(k, 12, &p, NULL),
			      "dwconv_u8: channel 0 (multiplier 0): a multiplier outside");
	mbad[0] = -0.01f;
	expect_kernel_refusal(k, qpu_dwconv3x3_u8(k, 12, &p, NULL),
			      "dwconv_u8: channel 0 (multiplier -0.01): a multiplier outside");
	mbad[0] = NAN;
	expect_kernel_refusal(k, qpu_dwconv3x3_u8(k, 12, &p, NULL),
			      "dwconv_u8: channel 0 (multiplier nan): a multiplier outside");
	mbad[0] = 1 << 23;	/* an integer: s would be 0 */
	expect_kernel_refusal(k, qpu_dwconv3x3_u8(k, 12, &p, NULL),
			      "dwconv_u8: channel 0 (multiplier 8.38861e+06): a multiplier outside");
out:
	qpu_bo_free(bo);
	qpu_kernels_free(k);
	if (d)
		vc4_dev_done(d);
}

/*
 * One quantized layer: QLinearConv (@k x @k, @stride, pads of @k / 2) of
 * x (1 x @C x @H x @W, int8 if @sx else uint8) by per-channel int8 weights
 * (zero points at the extremes), or, @k 0, QLinearMatMul of x (@H x @C) by
 * B (@C x @W, per-column scales and zero points). @ys small saturates.
 */
struct qnet {
	int64_t C, H, W, M, k, stride;
	int sx;
	int32_t xz;
	float ys;
	int64_t group;		/* 0 for 1 */
};

static uint8_t *qlinear_net(const struct qnet *p, size_t *size, size_t *in_bytes)
{
	struct nb q = { 0 };
	int conv = p->k > 0;
	int64_t xd[4] = { 1, p->C, p->H, p->W }, md[2] = { p->H, p->C };
	int64_t group = p->group ? p->group : 1;
	int64_t wd[4] = { p->M, p->C / group, p->k, p->k }, bd[2] = { p->C, p->W }, cd[1];
	int64_t pads[4], strides[2] = { p->stride, p->stride };
	size_t nw = conv ? (size_t)(p->M * wd[1] * p->k * p->k) : (size_t)(p->C * p->W), i;
	size_t ch = conv ? (size_t)p->M : (size_t)p->W;
	int8_t *w = malloc(nw), *wz = malloc(ch), xz8 = (int8_t)p->xz;
	uint8_t xzu = (uint8_t)p->xz, yz = 3;
	float *ws = malloc(ch * sizeof(float)), xs = 0.02f;
	int32_t *bias = malloc(ch * sizeof(int32_t));
	uint32_t x, in[9], y;
	uint64_t seed = 77;
	uint8_t *img;

	for (i = 0; i < nw; i++)
		w[i] = (int8_t)(t_rand(&seed) >> 56);
	for (i = 0; i < ch; i++) {
		wz[i] = i % 3 == 0 ? -128 : i % 3 == 1 ? 127 : (int8_t)(t_rand(&seed) >> 60);
		ws[i] = 0.001f + 0.0005f * (float)(i % 7);
		bias[i] = (int32_t)(t_rand(&seed) % 4001) - 2000;
	}
	cd[0] = (int64_t)ch;
	x = conv ? nb_tensor(&q, "x", p->sx ? QPU_NN_INT8 : QPU_NN_UINT8, 4, xd, NULL, 0) :
		   nb_tensor(&q, "x", p->sx ? QPU_NN_INT8 : QPU_NN_UINT8, 2, md, NULL, 0);
	in[0] = x;
	in[1] = nb_tensor(&q, "xs", QPU_NN_FLOAT32, 0, NULL, &xs, 4);
	in[2] = p->sx ? nb_tensor(&q, "xz", QPU_NN_INT8, 0, NULL, &xz8, 1) :
			nb_tensor(&q, "xz", QPU_NN_UINT8, 0, NULL, &xzu, 1);
	in[3] = nb_tensor(&q, "w", QPU_NN_INT8, conv ? 4 : 2, conv ? wd : bd, w, nw);
	in[4] = nb_tensor(&q, "ws", QPU_NN_FLOAT32, 1, cd, ws, ch * 4);
	in[5] = nb_tensor(&q, "wz", QPU_NN_INT8, 1, cd, wz, ch);
	in[6] = nb_tensor(&q, "ys", QPU_NN_FLOAT32, 0, NULL, &p->ys, 4);
	in[7] = nb_tensor(&q, "yz", QPU_NN_UINT8, 0, NULL, &yz, 1);
	in[8] = nb_tensor(&q, "b", QPU_NN_INT32, 1, cd, bias, ch * 4);
	y = nb_value(&q, "y");
	if (conv) {
		for (i = 0; i < 4; i++)
			pads[i] = p->k / 2;
		nb_attr_ints(&q, "pads", 4, pads);
		nb_attr_ints(&q, "strides", 2, strides);
		if (group > 1)
			nb_attr_int(&q, "group", group);
		nb_node(&q, "qconv", "QLinearConv", "", 9, in, 1, &y);
	} else {
		nb_node(&q, "qmm", "QLinearMatMul", "", 8, in, 1, &y);
	}
	img = nb_finish(&q, 13, 1, &x, 1, &y, size);
	*in_bytes = (size_t)(conv ? p->C * p->H * p->W : p->H * p->C);
	free(w);
	free(wz);
	free(ws);
	free(bias);
	return img;
}

/* @p's output on @d (NULL: the reference) into @out; its bytes; the node's placing. */
static size_t qlinear_run(const uint8_t *img, size_t size, struct qpu_dev *d, const uint8_t *x,
			  uint8_t *out, size_t cap, struct qpu_nn_node_info *ni)
{
	struct qpu_nn_tensor_info ti, to = { 0 };
	struct qpu_nn_graph *g = load_bound(img, size, d,
					    d ? QPU_NN_BIND_QPU_ALL : QPU_NN_BIND_REFERENCE);

	if (!g)
		return 0;
	T_CHECK(qpu_nn_input(g, 0, &ti) == 0 && qpu_nn_output(g, 0, &to) == 0);
	T_CHECK(to.bytes <= cap);
	if (to.bytes > cap)
		to.bytes = 0;
	memcpy(ti.data, x, ti.bytes);
	T_CHECK(qpu_nn_run(g) == 0);
	memcpy(out, to.data, to.bytes);
	T_CHECK(qpu_nn_node(g, 0, ni) == 0);
	qpu_nn_free(g);
	return to.bytes;
}

/*
 * @p on @d against the reference for x of the extremes and random bytes
 * (@seed), placed on the QPUs; the outputs at 0 or 255 (of *@n), or -1 if
 * any byte differs (@what and @i name the net).
 */
static long qlinear_check(const struct qnet *p, struct qpu_dev *d, uint64_t seed,
			  const char *what, size_t i, size_t *n_out)
{
	static uint8_t want[8192], got[8192], x[8192];
	struct qpu_nn_node_info ni;
	size_t k, size, in_bytes, n;
	uint8_t *img = qlinear_net(p, &size, &in_bytes);
	long sat = 0;

	for (k = 0; k < in_bytes; k++)	/* the extremes too */
		x[k] = k % 5 == 0 ? 0 : k % 5 == 1 ? 255 : (uint8_t)(t_rand(&seed) >> 56);
	n = qlinear_run(img, size, NULL, x, want, sizeof(want), &ni);
	T_CHECK(n > 0 && qlinear_run(img, size, d, x, got, sizeof(got), &ni) == n);
	T_CHECK(ni.where == QPU_NN_WHERE_QPU);
	*n_out = n;
	for (k = 0; k < n; k++)
		sat += want[k] == 0 || want[k] == 255;
	free(img);
	if (!memcmp(want, got, n))
		return sat;
	fprintf(stderr, "%s, net %zu: differs from the reference\n", what, i);
	return -1;
}

T_TEST(int8_layers_exact_on_every_generation)
{
	static const struct qnet nets[] = {
		{ 5, 7, 6, 20, 3, 1, 1, -128, 0.05f, 1 },	/* K 45: not a multiple of 4 */
		{ 3, 9, 8, 17, 3, 2, 0, 255, 0.05f, 1 },	/* stride 2, 17 channels */
		{ 7, 1, 1, 16, 1, 1, 0, 0, 0.0005f, 1 },	/* a 1x1 image, saturated */
		{ 6, 5, 5, 33, 1, 1, 1, 127, 0.02f, 1 },	/* 1x1 read directly */
		{ 13, 3, 20, 0, 0, 0, 0, 7, 0.05f, 1 },	/* MatMul: K 13, 20 columns */
		{ 64, 1, 35, 0, 0, 0, 1, -3, 0.01f, 1 },	/* one row over the QPUs */
	};
	const char *paths[] = { NULL, "emu:v3d42", "emu:v3d71" };
	size_t i, j, n;
	long sat;

	if (!dev)
		T_SKIP("no device");
	for (j = 0; j < T_ARRAY_SIZE(paths); j++) {
		struct qpu_dev *d = paths[j] ? qpu_dev_open(paths[j]) : dev;

		T_CHECK(d != NULL);
		if (!d)
			continue;
		for (i = 0; i < T_ARRAY_SIZE(nets); i++) {
			struct qnet p = nets[i];

			if (!p.k)
				p.M = p.W;
			sat = qlinear_check(&p, d, 100 + i, paths[j] ? paths[j] : device_path, i,
					    &n);
			T_CHECK(sat >= 0);
			if (i == 2)	/* the saturated one saturates */
				T_CHECK(sat > (long)n / 2);
		}
		if (paths[j])
			qpu_dev_close(d);
	}
}

/*
 * Depthwise QLinearConv layers on VideoCore IV's byte program, byte for
 * byte the reference's: int8 and uint8 x, zero points at the extremes,
 * strides 1 and 2, a 1x1 image, odd widths, a saturated one.
 */
T_TEST(int8_depthwise_exact_on_the_qpus)
{
	static const struct qnet nets[] = {
		{ 5, 7, 6, 5, 3, 1, 1, -128, 0.05f, 5 },
		{ 3, 9, 8, 3, 3, 2, 0, 255, 0.05f, 3 },
		{ 7, 1, 1, 7, 3, 1, 0, 0, 0.0005f, 7 },
		{ 6, 14, 14, 6, 3, 2, 1, 127, 0.02f, 6 },
		{ 2, 13, 70, 2, 3, 1, 0, 7, 0.05f, 2 },
	};
	struct qpu_dev *d = vc4_dev();
	size_t i, n;
	long sat;

	T_CHECK(d != NULL);
	if (!d)
		return;
	for (i = 0; i < T_ARRAY_SIZE(nets); i++) {
		sat = qlinear_check(&nets[i], d, 300 + i, "depthwise", i, &n);
		T_CHECK(sat >= 0);
		if (i == 2)	/* the saturated one saturates */
			T_CHECK(sat > (long)n / 2);
	}
	vc4_dev_done(d);
}

/*
 * The CPU's INT8 fast path (ops_fast_int8.c), each SIMD kernel this CPU
 * runs forced by $QPU_NN_QFAST, byte for byte the reference's: the layers
 * above, depthwise ones (strides 1 and 2, even and odd widths) and groups.
 */
T_TEST(int8_cpu_fast_kernels_exact)
{
	static const struct qnet nets[] = {
		{ 5, 7, 6, 20, 3, 1, 1, -128, 0.05f, 1 },	/* K 45 */
		{ 3, 9, 8, 17, 3, 2, 0, 255, 0.05f, 1 },	/* stride 2, 17 channels */
		{ 7, 1, 1, 16, 1, 1, 0, 0, 0.0005f, 1 },	/* a 1x1 image, saturated */
		{ 6, 5, 5, 33, 1, 1, 1, 127, 0.02f, 1 },	/* 1x1 read directly */
		{ 13, 3, 20, 0, 0, 0, 0, 7, 0.05f, 1 },	/* MatMul: K 13, 20 columns */
		{ 9, 14, 14, 9, 3, 1, 1, 5, 0.05f, 9 },	/* depthwise */
		{ 7, 12, 12, 7, 3, 2, 0, 200, 0.05f, 7 },	/* depthwise, stride 2, even width */
		{ 5, 9, 11, 5, 3, 2, 1, -100, 0.05f, 5 },	/* depthwise, stride 2, odd width */
		{ 6, 6, 5, 4, 3, 1, 0, 9, 0.05f, 2 },	/* two groups */
	};
	static const struct {
		const char *name, *cpu[2];	/* the kernel, the CPU features it needs */
	} kernels[] = {
		{ "c", { NULL, NULL } },
#if defined(__x86_64__)
		{ "sse2", { NULL, NULL } },
		{ "avx2", { "avx2", NULL } },
		{ "avx512", { "avx512bw", NULL } },
		{ "avx512vnni", { "avx512bw", "avx512vnni" } },
#elif defined(__aarch64__)
		{ "neon", { NULL, NULL } },
#endif
	};
	uint8_t want[4096], got[4096], x[4096];
	struct qpu_nn_tensor_info ti, to;
	struct qpu_nn_node_info ni;
	struct qpu_nn_graph *g;
	size_t i, j, k, size, in_bytes, n, runs = 0;

	for (j = 0; j < T_ARRAY_SIZE(kernels); j++) {
#if defined(__x86_64__)
		if ((kernels[j].cpu[0] && !__builtin_cpu_supports("avx2")) ||
		    (kernels[j].cpu[0] && !strcmp(kernels[j].cpu[0], "avx512bw") &&
		     !__builtin_cpu_supports("avx512bw")) ||
		    (kernels[j].cpu[1] && !__builtin_cpu_supports("avx512vnni")))
			continue;	/* not this CPU's: the next one */
#endif
		setenv("QPU_NN_QFAST", kernels[j].name, 1);
		for (i = 0; i < T_ARRAY_SIZE(nets); i++) {
			struct qnet p = nets[i];
			uint64_t seed = 300 + i;
			uint8_t *img;

			if (!p.k)
				p.M = p.W;
			img = qlinear_net(&p, &size, &in_bytes);
			for (k = 0; k < in_bytes; k++)
				x[k] = k % 5 == 0 ? 0 : k % 5 == 1 ? 255 : (uint8_t)(t_rand(&seed) >> 56);
			n = qlinear_run(img, size, NULL, x, want, sizeof(want), &ni);
			g = load_bound(img, size, NULL, 0);
			T_CHECK(n > 0 && g != NULL);
			if (g) {
				T_CHECK(qpu_nn_input(g, 0, &ti) == 0 && qpu_nn_output(g, 0, &to) == 0);
				memcpy(ti.data, x, ti.bytes);
				T_CHECK(qpu_nn_run(g) == 0 && qpu_nn_node(g, 0, &ni) == 0);
				T_CHECK(ni.where == QPU_NN_WHERE_CPU && to.bytes == n);
				memcpy(got, to.data, n);
				if (memcmp(want, got, n))
					fprintf(stderr, "kernel %s, net %zu: differs from the reference\n",
						kernels[j].name, i);
				T_CHECK(memcmp(want, got, n) == 0);
				runs++;
				qpu_nn_free(g);
			}
			free(img);
		}
	}
	unsetenv("QPU_NN_QFAST");
	T_CHECK(runs >= 2 * T_ARRAY_SIZE(nets) || (runs == T_ARRAY_SIZE(nets) &&
						    T_ARRAY_SIZE(kernels) == 1));
}

T_TEST(int8_refusals)
{
	static const struct qnet dw = { 4, 5, 5, 4, 3, 1, 0, 0, 0.05f, 4 };
	static const struct qnet grouped = { 4, 5, 5, 4, 3, 1, 0, 0, 0.05f, 2 };
	struct qpu_kernels *k;
	struct qpu_bo *bo;
	struct qpu_igemm p, good = { .m = 2, .n = 16, .k4 = 3, .b_off = 256, .c_off = 1024 };
	struct qpu_nn_node_info ni;
	struct qpu_nn_graph *g;
	uint8_t *img;
	size_t size, in_bytes;

	if (!dev)
		T_SKIP("no device");
	k = qpu_kernels_new(dev);
	bo = qpu_bo_new(dev, 2048);
	T_CHECK(k && bo);
	if (!k || !bo)
		goto out;
	memset(qpu_bo_get_map(bo), 0, 2048);
	good.a = good.b = good.c = bo;
	p = good;
	T_CHECK(qpu_igemm_u8(k, 12, &p, NULL) == 0);	/* the calls below differ in one field */
	p.n = 20;
	expect_kernel_refusal(k, qpu_igemm_u8(k, 12, &p, NULL),
			      "igemm: 20 columns: not a multiple of 16");
	p = good, p.k4 = 0;
	expect_kernel_refusal(k, qpu_igemm_u8(k, 12, &p, NULL), "igemm: empty product");
	p = good, p.k4 = QPU_IGEMM_MAX_K4 + 1;
	expect_kernel_refusal(k, qpu_igemm_u8(k, 12, &p, NULL), "igemm: 2 x 16 of 262145 words");
	p = good, p.c_off = qpu_bo_get_size(bo) - 64;
	expect_kernel_refusal(k, qpu_igemm_u8(k, 12, &p, NULL), "igemm: c: needs 128 bytes");
	p = good, p.a_off = 2;
	expect_kernel_refusal(k, qpu_igemm_u8(k, 12, &p, NULL), "igemm: a: offset 2 is not");
	p = good, p.b = NULL;
	expect_kernel_refusal(k, qpu_igemm_u8(k, 12, &p, NULL), "igemm: b: no buffer");
	p = good;
	expect_kernel_refusal(k, qpu_igemm_u8(k, 13, &p, NULL), "igemm: asked for 13 QPUs");
	/* a grouped QLinearConv (two channels a group) stays on the CPU, saying why */
	img = qlinear_net(&grouped, &size, &in_bytes);
	g = qpu_nn_load_mem(img, size, NULL, 0);
	T_CHECK(g && qpu_nn_bind(g, dev, QPU_NN_BIND_QPU_ALL) == 0);
	T_CHECK(g && qpu_nn_node(g, 0, &ni) == 0 && ni.where == QPU_NN_WHERE_CPU);
	T_CHECK(g && strcmp(ni.why, "no QPU kernel for QLinearConv with groups of more than "
			    "one channel (a grouped QLinearConv)") == 0);
	qpu_nn_free(g);
	free(img);
	/* a depthwise one: the byte programs' (both generations) */
	img = qlinear_net(&dw, &size, &in_bytes);
	g = qpu_nn_load_mem(img, size, NULL, 0);
	T_CHECK(g && qpu_nn_bind(g, dev, QPU_NN_BIND_QPU_ALL) == 0);
	T_CHECK(g && qpu_nn_node(g, 0, &ni) == 0);
	T_CHECK(g && ni.where == QPU_NN_WHERE_QPU);
	qpu_nn_free(g);
	free(img);
out:
	qpu_bo_free(bo);
	qpu_kernels_free(k);
}

/*
 * A QDQ layer as quantize_static writes it: DequantizeLinear of int8 x
 * (per tensor), of int8 weights (per output channel) and of int32 biases
 * (scale x_scale * w_scale), Conv 3x3, Relu, QuantizeLinear; or (@form
 * QDQ_AS_QLINEAR) the QLinearConv of the same integers, or the QDQ layer
 * with a bias scale off by a factor (QDQ_BAD_BIAS_SCALE) or a zero x scale
 * (QDQ_ZERO_SCALE).
 */
enum qdq_form { QDQ_LAYER, QDQ_AS_QLINEAR, QDQ_BAD_BIAS_SCALE, QDQ_ZERO_SCALE };
#define QDQ_C 5
#define QDQ_M 20
#define QDQ_HW 7

static uint8_t *qdq_net(enum qdq_form form, size_t *size)
{
	int64_t xd[4] = { 1, QDQ_C, QDQ_HW, QDQ_HW }, wd[4] = { QDQ_M, QDQ_C, 3, 3 };
	int64_t cd[1] = { QDQ_M }, pads[4] = { 1, 1, 1, 1 };
	int8_t w[QDQ_M * QDQ_C * 9], wz[QDQ_M] = { 0 }, xz = 3, yz = -128;
	float ws[QDQ_M], bs[QDQ_M], xs = form == QDQ_ZERO_SCALE ? 0.0f : 0.02f, ys = 0.05f;
	int32_t bias[QDQ_M];
	uint32_t x, in[9], t[6], y;
	uint64_t seed = 37;
	struct nb q = { 0 };
	size_t i;

	for (i = 0; i < sizeof(w); i++)
		w[i] = (int8_t)(t_rand(&seed) >> 56);
	for (i = 0; i < QDQ_M; i++) {
		ws[i] = 0.001f + 0.0005f * (float)(i % 7);
		bs[i] = xs * ws[i] * (form == QDQ_BAD_BIAS_SCALE ? 2.0f : 1.0f);
		bias[i] = (int32_t)(t_rand(&seed) % 4001) - 2000;
	}
	x = nb_tensor(&q, "x", QPU_NN_INT8, 4, xd, NULL, 0);
	in[0] = x;
	in[1] = nb_tensor(&q, "xs", QPU_NN_FLOAT32, 0, NULL, &xs, 4);
	in[2] = nb_tensor(&q, "xz", QPU_NN_INT8, 0, NULL, &xz, 1);
	in[3] = nb_tensor(&q, "w", QPU_NN_INT8, 4, wd, w, sizeof(w));
	in[4] = nb_tensor(&q, "ws", QPU_NN_FLOAT32, 1, cd, ws, sizeof(ws));
	in[5] = nb_tensor(&q, "wz", QPU_NN_INT8, 1, cd, wz, sizeof(wz));
	in[6] = nb_tensor(&q, "ys", QPU_NN_FLOAT32, 0, NULL, &ys, 4);
	in[7] = nb_tensor(&q, "yz", QPU_NN_INT8, 0, NULL, &yz, 1);
	in[8] = nb_tensor(&q, "b", QPU_NN_INT32, 1, cd, bias, sizeof(bias));
	y = nb_value(&q, "y");
	if (form == QDQ_AS_QLINEAR) {
		nb_attr_ints(&q, "pads", 4, pads);
		nb_node(&q, "conv", "QLinearConv", "", 9, in, 1, &y);
	} else {
		uint32_t bsi = nb_tensor(&q, "bs", QPU_NN_FLOAT32, 1, cd, bs, sizeof(bs));
		uint32_t dq[3], conv_in[3];

		for (i = 0; i < 6; i++) {
			static const char *const names[] = { "xd", "wd", "bd", "c", "r", "unused" };

			t[i] = nb_value(&q, names[i]);
		}
		dq[0] = in[0], dq[1] = in[1], dq[2] = in[2];
		nb_node(&q, "dqx", "DequantizeLinear", "", 3, dq, 1, &t[0]);
		dq[0] = in[3], dq[1] = in[4], dq[2] = in[5];
		nb_attr_int(&q, "axis", 0);
		nb_node(&q, "dqw", "DequantizeLinear", "", 3, dq, 1, &t[1]);
		dq[0] = in[8], dq[1] = bsi;
		nb_attr_int(&q, "axis", 0);
		nb_node(&q, "dqb", "DequantizeLinear", "", 2, dq, 1, &t[2]);
		conv_in[0] = t[0], conv_in[1] = t[1], conv_in[2] = t[2];
		nb_attr_ints(&q, "pads", 4, pads);
		nb_node(&q, "conv", "Conv", "", 3, conv_in, 1, &t[3]);
		nb_node(&q, "relu", "Relu", "", 1, &t[3], 1, &t[4]);
		dq[0] = t[4], dq[1] = in[6], dq[2] = in[7];
		nb_node(&q, "qy", "QuantizeLinear", "", 3, dq, 1, &y);
	}
	return nb_finish(&q, 13, 1, &x, 1, &y, size);
}

/* What the plan says of the node named "conv" (copied: the graph is freed). */
struct qdq_seen {
	char op[32], fused[48], why[400];
	enum qpu_nn_where where;
};

/* @form's output on @d (NULL: the CPU's reference) with @flags; the node named "conv". */
static void qdq_run(enum qdq_form form, struct qpu_dev *d, unsigned int flags, const int8_t *x,
		    int8_t *y, struct qdq_seen *conv)
{
	struct qpu_nn_tensor_info ti, to;
	struct qpu_nn_graph *g;
	size_t size;
	uint8_t *img = qdq_net(form, &size);
	unsigned int i;

	memset(conv, 0, sizeof(*conv));
	memset(y, 0, QDQ_M * QDQ_HW * QDQ_HW);
	g = load_bound(img, size, d, flags | (d ? 0 : QPU_NN_BIND_REFERENCE));
	free(img);
	if (!g)
		return;
	T_CHECK(qpu_nn_input(g, 0, &ti) == 0 && qpu_nn_output(g, 0, &to) == 0);
	T_CHECK(ti.bytes == QDQ_C * QDQ_HW * QDQ_HW && to.bytes == QDQ_M * QDQ_HW * QDQ_HW);
	memcpy(ti.data, x, ti.bytes);
	T_CHECK(qpu_nn_run(g) == 0);
	memcpy(y, to.data, to.bytes);
	for (i = 0; i < qpu_nn_node_count(g); i++) {
		struct qpu_nn_node_info ni;

		T_CHECK(qpu_nn_node(g, i, &ni) == 0);
		if (strcmp(ni.name, "conv"))
			continue;
		snprintf(conv->op, sizeof(conv->op), "%s", ni.op);
		snprintf(conv->fused, sizeof(conv->fused), "%s", ni.fused);
		snprintf(conv->why, sizeof(conv->why), "%s", ni.why);
		conv->where = ni.where;
	}
	qpu_nn_free(g);
}

static int max_step(const int8_t *a, const int8_t *b, size_t n)
{
	int worst = 0;
	size_t i;

	for (i = 0; i < n; i++)
		worst = abs(a[i] - b[i]) > worst ? abs(a[i] - b[i]) : worst;
	return worst;
}

T_TEST(qdq_layer_runs_as_qlinearconv)
{
	const char *paths[] = { NULL, "emu:v3d42", "emu:v3d71" };
	int8_t x[QDQ_C * QDQ_HW * QDQ_HW], want[QDQ_M * QDQ_HW * QDQ_HW], got[sizeof(want)];
	int8_t lit[sizeof(want)];
	struct qdq_seen ni;
	char err[256];
	uint64_t seed = 5;
	size_t i, size;
	uint8_t *img;

	for (i = 0; i < sizeof(x); i++)
		x[i] = (int8_t)(t_rand(&seed) >> 56);
	qdq_run(QDQ_AS_QLINEAR, NULL, 0, x, want, &ni);
	T_CHECK(ni.where == QPU_NN_WHERE_CPU_REF && !strcmp(ni.op, "QLinearConv"));
	/* fused when asked: the QLinearConv's bytes, on the CPU and on each generation's QPUs */
	qdq_run(QDQ_LAYER, NULL, QPU_NN_BIND_QDQ_INT8, x, got, &ni);
	T_CHECK(memcmp(got, want, sizeof(want)) == 0 && !strcmp(ni.op, "QLinearConv"));
	T_CHECK(!strcmp(ni.fused, "Relu, QuantizeLinear"));
	T_CHECK(strstr(ni.why, "; QDQ: int8 in place of DequantizeLinear -> Conv -> "
			"QuantizeLinear") != NULL);
	for (i = 0; dev && i < T_ARRAY_SIZE(paths); i++) {
		struct qpu_dev *d = paths[i] ? qpu_dev_open(paths[i]) : dev;

		T_CHECK(d != NULL);
		if (!d)
			continue;
		qdq_run(QDQ_LAYER, d, QPU_NN_BIND_QPU_ALL | QPU_NN_BIND_QDQ_INT8, x, got, &ni);
		T_CHECK(memcmp(got, want, sizeof(want)) == 0);
		T_CHECK(ni.where == QPU_NN_WHERE_QPU && !strcmp(ni.op, "QLinearConv"));
		if (paths[i])
			qpu_dev_close(d);
	}
	/* literal, the default: the float Conv, within a step of the integers */
	qdq_run(QDQ_LAYER, NULL, 0, x, lit, &ni);
	T_CHECK(!strcmp(ni.op, "Conv") && !strcmp(ni.fused, "Relu"));
	T_CHECK(max_step(lit, want, sizeof(want)) <= 1);
	T_CHECK(strstr(ni.why, "QDQ") == NULL);
	/* a bias scale other than x_scale * w_scale: float, and the plan says why */
	qdq_run(QDQ_BAD_BIAS_SCALE, NULL, QPU_NN_BIND_QDQ_INT8, x, got, &ni);
	T_CHECK(!strcmp(ni.op, "Conv") && strstr(ni.why, "; QDQ kept float: bias scale "
						  "4e-05 (channel 0) is not x_scale * w_scale = 2e-05"));
	/* a zero scale: refused at load, naming the node */
	img = qdq_net(QDQ_ZERO_SCALE, &size);
	T_CHECK(qpu_nn_load_mem(img, size, err, sizeof(err)) == NULL && errno == EINVAL);
	T_CHECK(!strcmp(err, "node 'dqx' (DequantizeLinear): x_scale[0] is 0: a scale must be "
			"finite and not 0"));
	free(img);
}

T_TEST(plan_says_where_and_why)
{
	size_t size, i;
	uint8_t *img = conv_net(8, 16, 16, 32, 1, &size);
	float *x = frand_n(8 * 16 * 16, 5), out[10];
	struct qpu_nn_graph *g = NULL;
	struct qpu_nn_node_info ni;
	const char *want[] = { "qpu", "fused", "qpu", "view", "qpu", "cpu" };

	if (!dev) {
		free(img);
		free(x);
		T_SKIP("no device");
	}
	run_net(img, size, dev, QPU_NN_BIND_QPU_ALL, x, out, &g);
	T_CHECK(g && qpu_nn_node_count(g) == 6);
	for (i = 0; g && i < 6; i++) {
		T_CHECK(qpu_nn_node(g, (unsigned int)i, &ni) == 0);
		T_EQ_STR(want[i], qpu_nn_where_name(ni.where));
		T_CHECK(ni.why && ni.why[0]);
	}
	if (g) {
		qpu_nn_node(g, 0, &ni);
		T_EQ_STR("Relu", ni.fused);
		T_CHECK(ni.macs == 32 * 8 * 9 * 16 * 16);
		T_CHECK(qpu_nn_node(g, 6, &ni) == -EINVAL);
		T_CHECK(qpu_nn_bind(g, dev, 0) == -EINVAL);	/* bound once */
	}
	qpu_nn_free(g);
	free(img);
	free(x);
}

/* Without flags, the time model places: conv1 (590 K multiply-adds) is modelled
 * 40 times faster on the QPUs than on a Pi 1's CPU, the softmax has no kernel. */
T_TEST(automatic_placement_says_why)
{
	size_t size;
	uint8_t *img = conv_net(8, 16, 16, 32, 1, &size);
	float *x = frand_n(8 * 16 * 16, 5), out[10];
	struct qpu_nn_graph *g = NULL;
	struct qpu_nn_node_info ni;

	if (!dev) {
		free(img);
		free(x);
		T_SKIP("no device");
	}
	run_net(img, size, dev, 0, x, out, &g);
	if (g) {
		T_CHECK(qpu_nn_node(g, 0, &ni) == 0 && ni.where == QPU_NN_WHERE_QPU);
		T_CHECK(strncmp(ni.why, "faster on the QPUs: QPUs ", 25) == 0);
		T_CHECK(qpu_nn_node(g, 5, &ni) == 0 && ni.where == QPU_NN_WHERE_CPU);
		T_EQ_STR("no QPU kernel for Softmax", ni.why);
	}
	qpu_nn_free(g);
	free(img);
	free(x);
}

T_TEST(arena_reuses_dead_tensors)
{
	size_t size;
	uint8_t *img = conv_net(8, 16, 16, 32, 1, &size);
	struct qpu_nn_graph *g = qpu_nn_load_mem(img, size, NULL, 0);

	T_CHECK(g && qpu_nn_arena_bytes(g) == 0);
	T_CHECK(g && qpu_nn_run(g) == -EINVAL);	/* not bound */
	T_CHECK(g && qpu_nn_bind(g, NULL, 0x100) == -EINVAL);
	T_CHECK(g && qpu_nn_bind(g, NULL, QPU_NN_BIND_NO_XNNPACK) == 0);
	/*
	 * x 8 KiB, r1 32 KiB, c2 32 KiB (rs its view), g and y 64 bytes each:
	 * at most r1 and c2 live together, and x's place is taken again; the
	 * scratch is conv1's im2col (72 x 256 floats) and a packed panel (72 x 8).
	 */
	T_EQ_U64(2 * 32768 + 72 * 256 * 4 + 72 * 8 * 4, g ? qpu_nn_arena_bytes(g) : 0);
	qpu_nn_free(g);
	free(img);
}

T_TEST(nhwc_input_gives_the_same_output)
{
	size_t size, c, p;
	uint8_t *img = conv_net(3, 6, 5, 4, 1, &size);
	float *x = frand_n(3 * 30, 11), xh[90], a[10], b[10];
	struct qpu_nn_tensor_info ti, to;
	struct qpu_nn_graph *g = qpu_nn_load_mem(img, size, NULL, 0);

	for (c = 0; c < 3; c++)
		for (p = 0; p < 30; p++)
			xh[p * 3 + c] = x[c * 30 + p];
	run_net(img, size, NULL, 0, x, a, NULL);
	T_CHECK(g && qpu_nn_set_input_layout(g, 0, QPU_NN_NHWC) == 0);
	T_CHECK(g && qpu_nn_set_output_layout(g, 0, QPU_NN_NHWC) == -EINVAL);	/* 2-D */
	T_CHECK(g && qpu_nn_set_input_layout(g, 1, QPU_NN_NHWC) == -EINVAL);
	T_CHECK(g && qpu_nn_bind(g, NULL, 0) == 0);
	T_CHECK(g && qpu_nn_set_input_layout(g, 0, QPU_NN_NCHW) == -EINVAL);	/* bound */
	if (g && qpu_nn_input(g, 0, &ti) == 0 && qpu_nn_output(g, 0, &to) == 0) {
		T_CHECK(ti.layout == QPU_NN_NHWC && ti.dims[1] == 3);
		memcpy(ti.data, xh, sizeof(xh));
		T_CHECK(qpu_nn_run(g) == 0);
		memcpy(b, to.data, sizeof(b));
		T_CHECK(max_rel(b, a, 10) < 1e-6);
	}
	qpu_nn_free(g);
	free(img);
	free(x);
}

/* A one-node graph of @op on x (1x4x6x6) and w, with the attributes set. */
static uint8_t *one_node(const char *op, int set_attrs, size_t *size)
{
	struct nb q = { 0 };
	int64_t xd[4] = { 1, 4, 6, 6 }, wd[4] = { 4, 4, 3, 3 }, dil[2] = { 2, 2 };
	float w[144] = { 0 };
	uint32_t x, tw, y, in[2];

	x = nb_tensor(&q, "x", QPU_NN_FLOAT32, 4, xd, NULL, 0);
	tw = nb_tensor(&q, "w", QPU_NN_FLOAT32, 4, wd, w, sizeof(w));
	y = nb_value(&q, "y");
	if (set_attrs == 1)
		nb_attr_ints(&q, "dilations", 2, dil);
	if (set_attrs == 2)
		nb_attr_int(&q, "frobnicate", 1);
	if (set_attrs == 3)
		nb_attr_int(&q, "group", 3);
	if (set_attrs == 4)
		nb_attr_str(&q, "auto_pad", "SAME_SIDEWAYS");
	if (set_attrs == 5)
		nb_attr_float(&q, "group", 1.0f);
	in[0] = x, in[1] = tw;
	nb_node(&q, "n0", op, "", 2, in, 1, &y);
	return nb_finish(&q, 13, 1, &x, 1, &y, size);
}

static void expect_refusal(const uint8_t *img, size_t size, const char *want)
{
	char err[256] = "unset";
	struct qpu_nn_graph *g = qpu_nn_load_mem(img, size, err, sizeof(err));

	T_CHECK(g == NULL && errno == EINVAL);
	if (!strstr(err, want)) {
		fprintf(stderr, "refusal \"%s\" lacks \"%s\"\n", err, want);
		T_CHECK(0);
	}
	qpu_nn_free(g);
}

T_TEST(refusals_name_node_op_and_what)
{
	static const struct {
		const char *op;
		int attrs;
		const char *want;
	} cases[] = {
		{ "Conv", 1, "node 'n0' (Conv): dilations 2,2 not supported" },
		{ "Conv", 2, "node 'n0' (Conv): attribute frobnicate not supported" },
		{ "Conv", 3, "node 'n0' (Conv): group 3 does not divide" },
		{ "Conv", 4, "auto_pad SAME_SIDEWAYS not supported" },
		{ "Conv", 5, "attribute group must be an int" },
		{ "LSTM", 0, "node 'n0' (LSTM): operator not supported" },
		{ "Add", 0, "shapes do not broadcast" },
	};
	size_t i, size;

	for (i = 0; i < T_ARRAY_SIZE(cases); i++) {
		uint8_t *img = one_node(cases[i].op, cases[i].attrs, &size);

		expect_refusal(img, size, cases[i].want);
		free(img);
	}
}

T_TEST(refusals_of_graphs)
{
	struct nb q = { 0 };
	int64_t xd[4] = { -1, 3, 4, 4 };
	uint32_t x, y, z;
	uint8_t *img;
	size_t size;

	x = nb_tensor(&q, "x", QPU_NN_FLOAT32, 4, xd, NULL, 0);
	y = nb_value(&q, "y");
	nb_node(&q, "r", "Relu", "", 1, &x, 1, &y);
	img = nb_finish(&q, 13, 1, &x, 1, &y, &size);
	expect_refusal(img, size, "input 'x': a dimension not known at load");
	free(img);

	xd[0] = 0;	/* a batch of no images: refused, not divided by */
	q = (struct nb){ 0 };
	x = nb_tensor(&q, "x", QPU_NN_FLOAT32, 4, xd, NULL, 0);
	y = nb_value(&q, "y");
	nb_node(&q, "r", "Relu", "", 1, &x, 1, &y);
	img = nb_finish(&q, 13, 1, &x, 1, &y, &size);
	expect_refusal(img, size, "node 'r' (Relu): input 'x' is empty (a dimension of 0)");
	free(img);

	xd[0] = 1;	/* a node reading what a later node makes */
	x = nb_tensor(&q, "x", QPU_NN_FLOAT32, 4, xd, NULL, 0);
	y = nb_value(&q, "y");
	z = nb_value(&q, "z");
	nb_node(&q, "first", "Relu", "", 1, &z, 1, &y);
	nb_node(&q, "second", "Relu", "", 1, &x, 1, &z);
	img = nb_finish(&q, 13, 1, &x, 1, &y, &size);
	expect_refusal(img, size, "node 'first' (Relu): input 'z' is made by no node before it");
	free(img);

	x = nb_tensor(&q, "x", 10 /* float16 */, 4, xd, NULL, 0);
	y = nb_value(&q, "y");
	nb_node(&q, "r", "Relu", "", 1, &x, 1, &y);
	img = nb_finish(&q, 13, 1, &x, 1, &y, &size);
	expect_refusal(img, size, "input 'x': element type not supported");
	free(img);

	x = nb_tensor(&q, "x", QPU_NN_FLOAT32, 4, xd, NULL, 0);
	y = nb_value(&q, "y");
	nb_node(&q, "q", "QuantizeLinear", "", 2, (uint32_t[]){ x, x }, 1, &y);
	img = nb_finish(&q, 13, 1, &x, 1, &y, &size);
	expect_refusal(img, size, "node 'q' (QuantizeLinear): y_scale must be a constant");
	free(img);
}

T_TEST(truncated_and_corrupt_images_are_refused)
{
	size_t size, n;
	uint8_t *img = conv_net(3, 5, 5, 4, 1, &size), *copy = malloc(size + 1);
	char err[256];

	for (n = 0; n < size; n++) {
		memcpy(copy, img, n);
		T_CHECK(qpu_nn_load_mem(copy, n, err, sizeof(err)) == NULL && errno == EINVAL);
	}
	memcpy(copy, img, size);
	copy[size] = 0;
	T_CHECK(qpu_nn_load_mem(copy, size + 1, err, sizeof(err)) == NULL);
	T_CHECK(strstr(err, "malformed or truncated") != NULL);
	copy[0] = 'X';
	T_CHECK(qpu_nn_load_mem(copy, size, err, sizeof(err)) == NULL);
	T_EQ_STR("not a .qnn file (no magic)", err);
	copy[0] = img[0];
	copy[8] = 2;	/* major 2 */
	T_CHECK(qpu_nn_load_mem(copy, size, err, sizeof(err)) == NULL);
	T_EQ_STR(".qnn format 2, this library reads 1", err);
	T_CHECK(qpu_nn_load_mem(NULL, 4, err, sizeof(err)) == NULL && errno == EINVAL);
	T_CHECK(qpu_nn_load("/nonexistent.qnn", err, sizeof(err)) == NULL && errno == ENOENT);
	T_CHECK(qpu_nn_load(NULL, NULL, 0) == NULL && errno == EINVAL);
	qpu_nn_free(NULL);
	T_CHECK(qpu_nn_bind(NULL, NULL, 0) == -EINVAL && qpu_nn_run(NULL) == -EINVAL);
	T_EQ_STR("none", qpu_nn_where_name(99));
	free(copy);
	free(img);
}

/* --- INT8 depthwise on V3D (v3d/dwconv_u8.qasm) ------------------------------------ */

/* xorshift32: the cases' bytes, the same on every run */
static uint32_t dwu8_rand(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* The multipliers' kinds of a case: drawn, ties on purpose, near them. */
enum dwu8_mult { DWU8_RANDOM, DWU8_EIGHTH, DWU8_NEAR_EIGHTH, DWU8_TINY_TIES };

struct dwu8_case {
	unsigned int c, h, w, sh, sw, pt, pl, pb, pr;
	uint8_t zx, zy, lo, hi, x_int8, y_int8;
	enum dwu8_mult mult;
	size_t x_off, y_off;	/* odd offsets: rows and planes off word boundaries */
};

/*
 * Run @t on the V3D @d with @qpus programs against dwu8_ref(), byte for
 * byte, and check the bytes around the output are untouched; the number
 * of outputs that differ (0 on success).
 */
static size_t dwu8_run(struct qpu_dev *d, const struct dwu8_case *t, unsigned int qpus,
		       uint32_t seed)
{
	struct qpu_window win = {
		.c = t->c, .h = t->h, .w = t->w, .stride_h = t->sh, .stride_w = t->sw,
		.pad_top = t->pt, .pad_left = t->pl,
	};
	struct qpu_kernels *k = d ? qpu_kernels_new(d) : NULL;
	size_t in, out, i, bad = 0, guard = 64;
	struct qpu_bo *xb = NULL, *yb = NULL;
	struct qpu_dwconv_u8 p;
	int16_t *wt = NULL;
	int32_t *bias = NULL;
	float *mult = NULL;
	uint8_t *want = NULL, *x, *y;

	win.oh = (t->h + t->pt + t->pb - 3) / t->sh + 1;
	win.ow = (t->w + t->pl + t->pr - 3) / t->sw + 1;
	in = (size_t)t->c * t->h * t->w;
	out = (size_t)t->c * win.oh * win.ow;
	T_CHECK(k != NULL);
	if (!k)
		goto out;
	xb = qpu_bo_new(d, t->x_off + in);
	yb = qpu_bo_new(d, t->y_off + out + guard);
	wt = malloc(t->c * 9 * sizeof(*wt));
	bias = malloc(t->c * sizeof(*bias));
	mult = malloc(t->c * sizeof(*mult));
	want = malloc(out);
	T_CHECK(xb && yb && wt && bias && mult && want);
	if (!xb || !yb || !wt || !bias || !mult || !want)
		goto out;
	x = (uint8_t *)qpu_bo_get_map(xb) + t->x_off;
	y = qpu_bo_get_map(yb);
	for (i = 0; i < in; i++)	/* a flat image of zx gives the biases' ties */
		x[i] = t->mult == DWU8_TINY_TIES ? (uint8_t)(t->zx ^ (t->x_int8 ? 0x80 : 0)) :
						   (uint8_t)dwu8_rand(&seed);
	memset(y, 0x5a, t->y_off + out + guard);
	for (i = 0; i < (size_t)t->c * 9; i++)
		wt[i] = (int16_t)((int)(dwu8_rand(&seed) % 511) - 255);
	for (i = 0; i < t->c; i++) {
		switch (t->mult) {
		case DWU8_RANDOM:	/* the scale MobileNet's layers have */
			mult[i] = 0x1p-12f * (float)(1 + dwu8_rand(&seed) % 4096);
			bias[i] = (int32_t)(dwu8_rand(&seed) % 200001) - 100000;
			break;
		case DWU8_EIGHTH:	/* acc = 4 mod 8 ties */
			mult[i] = i % 2 ? 0.125f : 0.5f;
			bias[i] = (int32_t)(dwu8_rand(&seed) % 2001) - 1000;
			wt[i * 9 + dwu8_rand(&seed) % 9] /= 64;
			break;
		case DWU8_NEAR_EIGHTH:	/* a hair off the ties, both ways */
			mult[i] = i % 2 ? 0.125f * (1.0f + 0x1p-20f) : 0.125f * (1.0f - 0x1p-21f);
			bias[i] = (int32_t)(dwu8_rand(&seed) % 2001) - 1000;
			break;
		case DWU8_TINY_TIES:	/* mult 2^-17: ties, and 2^-17 off them, at s = 40 */
			mult[i] = 0x1p-17f;
			bias[i] = (int32_t)(2 * (i % 120) + 1) * 65536 + (int32_t)(i % 3) - 1;
			break;
		}
	}
	p = (struct qpu_dwconv_u8){
		.x = xb, .x_off = t->x_off, .y = yb, .y_off = t->y_off, .win = win,
		.w = wt, .bias = bias, .mult = mult, .zx = t->zx, .zy = t->zy,
		.lo = t->lo, .hi = t->hi, .x_int8 = t->x_int8, .y_int8 = t->y_int8,
	};
	dwu8_ref(&p, x, want);
	T_CHECK(qpu_dwconv3x3_u8(k, qpus, &p, NULL) == 0);
	for (i = 0; i < out; i++)
		bad += y[t->y_off + i] != want[i];
	for (i = 0; i < t->y_off; i++)
		bad += y[i] != 0x5a;
	for (i = 0; i < guard; i++)
		bad += y[t->y_off + out + i] != 0x5a;
	if (bad)
		fprintf(stderr, "%ux%ux%u s%u,%u pads %u %u %u %u: %zu bytes wrong (%s)\n",
			t->c, t->h, t->w, t->sh, t->sw, t->pt, t->pl, t->pb, t->pr, bad,
			qpu_kernels_last_error(k));
out:
	free(want);
	free(mult);
	free(bias);
	free(wt);
	qpu_bo_free(yb);
	qpu_bo_free(xb);
	qpu_kernels_free(k);
	return bad;
}

/*
 * v3d/dwconv_u8.qasm's cases, each checked byte for byte against the
 * reference: a 1x1 image, widths not a multiple of 4 (rows and planes off
 * word boundaries, odd offsets), odd channels, groups of rows a vector
 * (W 7, 14, 28) and two to four vectors a row, strides 1 and 2 across and
 * 1 to 3 down with pads on one side and both, a batch as more planes, int8
 * and uint8 on both sides, zero points 0 and 255, clamps, saturation, and
 * the exact path's near-ties: ties made on purpose (mult 1/8 and 1/2), a
 * hair off them both ways, and at mult 2^-17 (its shifts past 31).
 */
static const struct dwu8_case dwu8_cases[] = {
	{ 1, 1, 1, 1, 1, 1, 1, 1, 1, 128, 128, 0, 255, 0, 0, DWU8_RANDOM, 0, 0 },
	{ 3, 9, 15, 1, 1, 1, 1, 1, 1, 3, 200, 0, 255, 1, 1, DWU8_RANDOM, 1, 3 },
	{ 5, 14, 14, 1, 1, 1, 1, 1, 1, 0, 255, 0, 255, 0, 1, DWU8_RANDOM, 2, 1 },
	{ 7, 7, 7, 1, 1, 1, 1, 1, 1, 255, 0, 0, 255, 1, 0, DWU8_RANDOM, 3, 2 },
	{ 2, 28, 28, 1, 1, 1, 1, 1, 1, 128, 100, 100, 255, 1, 1, DWU8_RANDOM, 0, 0 },
	{ 2, 5, 130, 1, 1, 1, 1, 1, 1, 17, 30, 0, 200, 0, 0, DWU8_RANDOM, 1, 0 },
	{ 3, 6, 67, 1, 1, 0, 0, 0, 0, 128, 128, 0, 255, 1, 1, DWU8_RANDOM, 0, 1 },
	{ 2, 14, 14, 2, 2, 0, 0, 1, 1, 128, 128, 0, 255, 1, 1, DWU8_RANDOM, 1, 1 },
	{ 3, 13, 47, 2, 2, 1, 1, 1, 1, 90, 60, 60, 255, 0, 1, DWU8_RANDOM, 2, 3 },
	{ 2, 8, 125, 2, 2, 1, 1, 0, 0, 128, 128, 0, 255, 1, 0, DWU8_RANDOM, 3, 0 },
	{ 1, 4, 3, 3, 2, 2, 2, 2, 2, 10, 20, 0, 255, 0, 0, DWU8_RANDOM, 0, 0 },
	{ 2, 3, 250, 1, 1, 0, 1, 2, 0, 200, 50, 0, 255, 1, 0, DWU8_RANDOM, 1, 2 },
	{ 2, 9, 251, 2, 1, 1, 1, 1, 1, 60, 70, 0, 255, 0, 1, DWU8_RANDOM, 3, 3 },
	{ 3, 7, 129, 3, 2, 0, 0, 1, 1, 128, 128, 0, 255, 1, 1, DWU8_RANDOM, 2, 1 },
	{ 4, 6, 22, 1, 1, 1, 1, 1, 1, 128, 127, 0, 255, 1, 1, DWU8_EIGHTH, 1, 2 },
	{ 3, 5, 9, 1, 2, 1, 1, 1, 1, 5, 8, 0, 255, 0, 0, DWU8_EIGHTH, 0, 0 },
	{ 4, 6, 22, 1, 1, 1, 1, 1, 1, 128, 128, 0, 255, 1, 1, DWU8_NEAR_EIGHTH, 3, 0 },
	{ 240, 3, 5, 1, 1, 1, 1, 1, 1, 7, 0, 0, 255, 0, 0, DWU8_TINY_TIES, 1, 1 },
	{ 240, 3, 5, 1, 1, 1, 1, 1, 1, 7, 1, 0, 255, 1, 1, DWU8_TINY_TIES, 0, 0 },
};

/* dwu8_cases on @d, each on 3 or 8 programs (at most @d's QPUs). */
static void dwu8_cases_on(struct qpu_dev *d)
{
	uint64_t qpus = 0;
	size_t j;

	T_CHECK(d && qpu_dev_get_param(d, QPU_DEV_PARAM_NUM_QPUS, &qpus) == 0);
	if (!d || !qpus)
		return;
	for (j = 0; j < T_ARRAY_SIZE(dwu8_cases); j++)
		T_CHECK(dwu8_run(d, &dwu8_cases[j], j % 3 ? (qpus < 8 ? (unsigned int)qpus : 8) : 3,
				 0x9e3779b9u + (uint32_t)j) == 0);
}

/* The cases on the emulated V3D 4.2 and 7.1. */
T_TEST(v3d_int8_depthwise_on_the_qpus)
{
	static const char *const paths[] = { "emu:v3d42", "emu:v3d71" };
	size_t i;

	for (i = 0; i < T_ARRAY_SIZE(paths); i++) {
		struct qpu_dev *d = qpu_dev_open(paths[i]);

		dwu8_cases_on(d);
		qpu_dev_close(d);
	}
}

/*
 * The same cases on the test's device (--device), where it is a V3D:
 * check-vm's kmod/v3d_sim nodes.
 */
T_TEST(int8_depthwise_on_the_device)
{
	uint64_t gen = 0;

	if (!dev || qpu_dev_get_param(dev, QPU_DEV_PARAM_GEN, &gen) || !qpu_gen_is_v3d((int)gen))
		T_SKIP("no V3D device");
	dwu8_cases_on(dev);
}

/*
 * qpu_dwconv3x3_u8()'s refusals on V3D (qpu_dwconv3x3_u8_v3d()), each with its message and nothing
 * written: what the program cannot take (a horizontal stride of 3, sums
 * past 2^24, multipliers outside 2^-18..2^23, weights past 255) and the
 * usual bad calls; VideoCore IV is qpu_dwconv3x3_u8()'s.
 */
T_TEST(v3d_int8_depthwise_refuses)
{
	static const int16_t w9[2 * 9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	static const int32_t bias[2] = { 10, -10 };
	const struct qpu_window win = {
		.c = 2, .h = 8, .w = 8, .oh = 8, .ow = 8,
		.stride_h = 1, .stride_w = 1, .pad_top = 1, .pad_left = 1,
	};
	struct qpu_dev *d = qpu_dev_open("emu:v3d71"), *vc4 = qpu_dev_open("emu");
	struct qpu_kernels *k = d ? qpu_kernels_new(d) : NULL;
	struct qpu_kernels *k4 = vc4 ? qpu_kernels_new(vc4) : NULL;
	struct qpu_bo *bo = d ? qpu_bo_new(d, 4096) : NULL;
	struct qpu_bo *bo4 = vc4 ? qpu_bo_new(vc4, 4096) : NULL;
	int16_t wbad[2 * 9];
	int32_t bbad[2];
	float mult[2] = { 0.01f, 0.02f }, mbad[2];
	struct qpu_dwconv_u8 good = {
		.x = bo, .y = bo, .y_off = 2048, .win = win, .w = w9, .bias = bias, .mult = mult,
		.zx = 128, .zy = 128, .lo = 0, .hi = 255,
	}, p;
	size_t i, n;
	uint8_t *m;

	T_CHECK(k && k4 && bo && bo4);
	if (!k || !k4 || !bo || !bo4)
		goto out;
	m = qpu_bo_get_map(bo);
	memset(m, 7, 4096);
	p = good;
	T_CHECK(qpu_dwconv3x3_u8(k, 12, &p, NULL) == 0);	/* the calls below differ */
	memset(m + 2048, 0x5a, 2048);
	expect_kernel_refusal(k, qpu_dwconv3x3_u8(k, 12, NULL, NULL),
			      "dwconv_u8: no convolution");
	p = good, p.w = NULL;
	expect_kernel_refusal(k, qpu_dwconv3x3_u8(k, 12, &p, NULL), "dwconv_u8: no weights");
	p = good, p.mult = NULL;
	expect_kernel_refusal(k, qpu_dwconv3x3_u8(k, 12, &p, NULL),
			      "dwconv_u8: no multipliers");
	p = good, p.win.ow = 0;
	expect_kernel_refusal(k, qpu_dwconv3x3_u8(k, 12, &p, NULL),
			      "dwconv_u8: a dimension is 0");
	p = good, p.win.stride_w = 3, p.win.ow = 3;
	expect_kernel_refusal(k, qpu_dwconv3x3_u8(k, 12, &p, NULL),
			      "dwconv_u8: horizontal stride 3: V3D's program takes 1 and 2");
	p = good, p.win.pad_left = 9;
	expect_kernel_refusal(k, qpu_dwconv3x3_u8(k, 12, &p, NULL),
			      "dwconv_u8: pads 1, 9 are larger than the input");
	p = good, p.lo = 200, p.hi = 100;
	expect_kernel_refusal(k, qpu_dwconv3x3_u8(k, 12, &p, NULL),
			      "dwconv_u8: clamp 200 to 100 is empty");
	memcpy(wbad, w9, sizeof(wbad));
	wbad[9 + 4] = 256;
	p = good, p.w = wbad;
	expect_kernel_refusal(k, qpu_dwconv3x3_u8(k, 12, &p, NULL),
			      "dwconv_u8: channel 1 (multiplier 0.02): a weight less its zero point "
			      "outside -255 to 255");
	/* |bias| + 128 x 45: one past the exact sums */
	bbad[0] = -((1 << 24) - 128 * 45);
	bbad[1] = 10;
	p = good, p.bias = bbad;
	expect_kernel_refusal(k, qpu_dwconv3x3_u8(k, 12, &p, NULL),
			      "dwconv_u8: channel 0 (multiplier 0.01): sums that may reach 2^24");
	bbad[0] += 1;
	T_CHECK(qpu_dwconv3x3_u8(k, 12, &p, NULL) == 0);
	memset(m + 2048, 0x5a, 2048);
	mbad[0] = 0.01f;
	mbad[1] = 0x1p-19f;
	p = good, p.mult = mbad;
	expect_kernel_refusal(k, qpu_dwconv3x3_u8(k, 12, &p, NULL),
			      "dwconv_u8: channel 1 (multiplier 1.90735e-06): a multiplier outside "
			      "2^-18 to 2^23");
	mbad[1] = 0x1p23f;
	expect_kernel_refusal(k, qpu_dwconv3x3_u8(k, 12, &p, NULL),
			      "dwconv_u8: channel 1 (multiplier 8.38861e+06): a multiplier outside");
	mbad[1] = NAN;
	expect_kernel_refusal(k, qpu_dwconv3x3_u8(k, 12, &p, NULL),
			      "dwconv_u8: channel 1 (multiplier nan): a multiplier outside");
	p = good, p.y_off = 4096 - 64;
	expect_kernel_refusal(k, qpu_dwconv3x3_u8(k, 12, &p, NULL),
			      "dwconv_u8: y: needs 128 bytes from offset 4032");
	p = good, p.y_off = 64;
	expect_kernel_refusal(k, qpu_dwconv3x3_u8(k, 12, &p, NULL),
			      "dwconv_u8: x and y overlap");
	p = good;
	expect_kernel_refusal(k, qpu_dwconv3x3_u8(k, 13, &p, NULL),
			      "dwconv_u8: asked for 13 QPUs");
	for (i = 2048, n = 0; i < 4096; i++)	/* no refused call wrote */
		n += m[i] != 0x5a;
	T_CHECK(n == 0);
	p = good, p.x = p.y = bo4;
	T_CHECK(qpu_dwconv3x3_u8_v3d(k4, 12, &p, NULL) == -ENOTSUP);
	T_EQ_STR("dwconv_u8: V3D's program, and the device is not a V3D", qpu_kernels_last_error(k4));
out:
	qpu_bo_free(bo4);
	qpu_bo_free(bo);
	qpu_kernels_free(k4);
	qpu_kernels_free(k);
	qpu_dev_close(vc4);
	qpu_dev_close(d);
}

T_MAIN(.setup = open_dev, .teardown = close_dev, .options = options)
