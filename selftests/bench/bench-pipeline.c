// SPDX-License-Identifier: MIT
/*
 * The camera pipeline end to end, modelled per board: a 1920x1080 NV12
 * frame letterboxed to a 320x320 float tensor (qpu_preprocess()), the tiny
 * detector (`python3 -m qpu.pipeline tiny-detector --size 320`'s shape:
 * Conv 3x3/2 8 + Relu, Conv 3x3/2 16 + Relu, Conv 1x1 8 + Sigmoid, an
 * 80x80 grid of one anchor and three classes, built here in C with seeded
 * weights) and NMS (qpu_nms()), through <qpu_pipeline.h> on the emulator of
 * a Pi 3 (VideoCore IV timing model), a Pi 4 (emu:v3d42,timing) and a
 * Pi 5 (emu:v3d71,timing). Each stage's modelled device time and where it
 * ran are the frame's own (struct qpu_pipeline_stage_time); the sum is the
 * pipeline's modelled end-to-end latency. Left out: the CPU's share (box
 * decoding, NMS's sort and walk, copies into the graph's arena) and the
 * stage hand-offs, which a Pi's CPU would add. A stage that ran on the CPU
 * (a QPU run that failed and recovered, or a plan that put it there) has
 * no modelled time and shows as "cpu". These are a model's figures, not a
 * measurement; `qpu-detect -d DEVICE --bench` prints the same per stage.
 */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qpu.h"
#include "qpu_nn.h"
#include "qpu_pipeline.h"
#include "nn-build.h"

#define FRAME_W		1920
#define FRAME_H		1080
#define SIDE		320
#define CLASSES		3
#define HEAD_CH		(5 + CLASSES)
#define FRAMES		2

static uint32_t seed = 1;

static float frand(void)
{
	seed = seed * 1103515245u + 12345u;
	return (float)((seed >> 8) % 65536) / 32768.0f - 1.0f;
}

/* A conv's weights, He-scaled, and its zero bias (or the head's). */
static uint32_t conv(struct nb *q, const char *name, uint32_t x, int64_t m, int64_t c, int64_t k,
		     int64_t stride, const float *bias)
{
	int64_t wd[4] = { m, c, k, k }, bd[1] = { m }, ks[2] = { k, k }, st[2] = { stride, stride };
	int64_t pads[4] = { k / 2, k / 2, k / 2, k / 2 };
	size_t n = (size_t)(m * c * k * k), i;
	float *w = malloc(n * sizeof(*w)), *b = calloc((size_t)m, sizeof(*b));
	float scale = sqrtf(2.0f / (float)(c * k * k));
	char wn[32], bn[32];
	uint32_t in[3], out;

	for (i = 0; i < n; i++)
		w[i] = frand() * scale;
	if (bias)
		memcpy(b, bias, (size_t)m * sizeof(*b));
	snprintf(wn, sizeof(wn), "%s_w", name);
	snprintf(bn, sizeof(bn), "%s_b", name);
	in[0] = x;
	in[1] = nb_tensor(q, wn, QPU_NN_FLOAT32, 4, wd, w, n * sizeof(*w));
	in[2] = nb_tensor(q, bn, QPU_NN_FLOAT32, 1, bd, b, (size_t)m * sizeof(*b));
	out = nb_value(q, name);
	nb_attr_ints(q, "kernel_shape", 2, ks);
	nb_attr_ints(q, "strides", 2, st);
	nb_attr_ints(q, "pads", 4, pads);
	nb_node(q, name, "Conv", "", 3, in, 1, &out);
	free(w);
	free(b);
	return out;
}

static uint32_t unary(struct nb *q, const char *name, const char *op, uint32_t x)
{
	uint32_t y = nb_value(q, name);

	nb_node(q, name, op, "", 1, &x, 1, &y);
	return y;
}

static int write_detector(const char *path)
{
	/* boxes about a quarter of the image; objectness and classes biased
	 * so that a share of the 6,400 cells pass the threshold */
	static const float head_bias[HEAD_CH] = { 0, 0, -1, -1, 0.3f, 2, 2, 2 };
	int64_t xd[4] = { 1, 3, SIDE, SIDE };
	struct nb q = { 0 };
	uint32_t x, y;

	x = nb_tensor(&q, "image", QPU_NN_FLOAT32, 4, xd, NULL, 0);
	y = unary(&q, "relu1", "Relu", conv(&q, "conv1", x, 8, 3, 3, 2, NULL));
	y = unary(&q, "relu2", "Relu", conv(&q, "conv2", y, 16, 8, 3, 2, NULL));
	y = unary(&q, "head", "Sigmoid", conv(&q, "head_conv", y, HEAD_CH, 16, 1, 1, head_bias));
	return nb_save(&q, 13, x, y, path);
}

static const struct {
	const char *label, *device;
} boards[] = {
	{ "Pi 3 (VideoCore IV, 12 QPUs)", "emu:board=pi3" },
	{ "Pi 4 (V3D 4.2, 8 QPUs)", "emu:v3d42,timing" },
	{ "Pi 5 (V3D 7.1, 12 QPUs)", "emu:v3d71,timing" },
};

/* The last frame's stages, as the sink saw them. */
struct last {
	int status;
	char error[256];
	unsigned int boxes;
	unsigned int candidates;
	struct qpu_pipeline_stage_time t[3];
};

static void sink(void *ctx, const struct qpu_pipeline_frame *f)
{
	struct last *l = ctx;

	l->status = f->status;
	snprintf(l->error, sizeof(l->error), "%s", f->error);
	if (!f->status) {
		l->boxes = ((const struct qpu_pipeline_detections *)f->data)->count;
		l->candidates = ((const struct qpu_pipeline_detections *)f->data)->candidates;
	}
	memcpy(l->t, f->stages, sizeof(l->t));
}

static void put_stage(const struct qpu_pipeline_stage_time *t, uint64_t *sum, int *all_qpu)
{
	if (t->place == QPU_PIPELINE_QPU && t->model_ns) {
		printf(" %8.2f ms", t->model_ns / 1e6);
		*sum += t->model_ns;
	} else {
		printf(" %11s", t->place == QPU_PIPELINE_QPU ? "qpu, -" : "cpu");
		*all_qpu = 0;
	}
}

/* One board's row; 0, or -1 when its pipeline could not run. */
static int run_board(unsigned int bi, const char *model)
{
	struct last l = { 0 };
	struct qpu_pipeline_config cfg = {
		.format = QPU_PIPELINE_NV12, .width = FRAME_W, .height = FRAME_H, .in_flight = 1,
		.sink = sink, .sink_ctx = &l,
	};
	struct qpu_pipeline_tensor t = {
		.format = QPU_PIPELINE_NV12, .width = FRAME_W, .height = FRAME_H,
		.pre = {
			.dst_width = SIDE, .dst_height = SIDE, .layout = QPU_TENSOR_NCHW,
			.type = QPU_TENSOR_F32, .flags = QPU_PREPROCESS_LETTERBOX, .pad = 114,
			.std = { 1, 1, 1 },
		},
	};
	struct qpu_pipeline_detect det = {
		.grid_w = SIDE / 4, .grid_h = SIDE / 4, .anchors = 1, .classes = CLASSES,
		.score_threshold = 0.5f, .iou_threshold = 0.45f, .max_boxes = 100,
	};
	struct qpu_pipeline_stage st;
	struct qpu_pipeline_input in;
	struct qpu_pipeline *pl = NULL;
	char err[512] = "";
	uint64_t sum = 0;
	unsigned int i;
	int all_qpu = 1, ret = -1;
	size_t px;

	cfg.dev = qpu_dev_open(boards[bi].device);
	if (!cfg.dev) {
		snprintf(err, sizeof(err), "%s", qpu_last_error());
		goto out;
	}
	pl = qpu_pipeline_new(&cfg);
	if (!pl || qpu_pipeline_stage_tensor(cfg.dev, &t, &st, err, sizeof(err)) ||
	    qpu_pipeline_add_stage(pl, &st) ||
	    qpu_pipeline_stage_infer(cfg.dev, model, st.out_bytes, 0, &st, err, sizeof(err)) ||
	    qpu_pipeline_add_stage(pl, &st) ||
	    qpu_pipeline_stage_detect(&det, &st, err, sizeof(err)) ||
	    qpu_pipeline_add_stage(pl, &st) || qpu_pipeline_start(pl))
		goto out;
	for (i = 0; i < FRAMES; i++) {
		if (qpu_pipeline_acquire(pl, -1, &in))
			goto out;
		/* a gradient with some texture: the detector's output varies */
		px = (size_t)FRAME_W * FRAME_H;
		for (size_t k = 0; k < in.bytes; k++)
			((uint8_t *)in.data)[k] = (uint8_t)(k < px ? (k % FRAME_W) / 8 + (k * 7 % 13) :
							   128 + (k % 5));
		qpu_pipeline_submit(pl, QPU_PIPELINE_NV12, FRAME_W, FRAME_H, NULL);
	}
	qpu_pipeline_finish(pl);
	if (l.status) {
		snprintf(err, sizeof(err), "%s", l.error);
		goto out;
	}
	printf("  %-30s", boards[bi].label);
	for (i = 0; i < 3; i++)
		put_stage(&l.t[i], &sum, &all_qpu);
	printf(" %8.2f ms%s  %u candidates, %u kept\n", sum / 1e6,
	       all_qpu ? "" : " (QPU stages only)", l.candidates, l.boxes);
	ret = 0;
out:
	if (ret)
		fprintf(stderr, "bench-pipeline: %s: %s\n", boards[bi].device,
			err[0] ? err : pl ? qpu_pipeline_last_error(pl) : qpu_last_error());
	qpu_pipeline_free(pl);
	qpu_dev_close(cfg.dev);
	return ret;
}

int main(void)
{
	char model[] = "/tmp/bench-pipeline-XXXXXX";
	int fd = mkstemp(model), failed = 0;
	unsigned int bi;

	if (fd < 0 || close(fd) || write_detector(model)) {
		fprintf(stderr, "bench-pipeline: %s: %s\n", model, strerror(errno));
		return 1;
	}
	printf("the pipeline, 1920x1080 NV12 -> 320x320 letterboxed float -> tiny detector -> NMS:\n"
	       "each stage's modelled device time (a model's figures, not a measurement; the\n"
	       "CPU's share of each stage left out; \"cpu\": the stage ran on the CPU)\n");
	printf("  %-30s %11s %11s %11s %11s\n", "board", "preprocess", "infer", "nms",
	       "end to end");
	for (bi = 0; bi < sizeof(boards) / sizeof(boards[0]); bi++)
		failed |= run_board(bi, model) != 0;
	unlink(model);
	return failed;
}
