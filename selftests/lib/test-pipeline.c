// SPDX-License-Identifier: MIT
/*
 * test-pipeline: <qpu_pipeline.h> on the emulator (or --device): frames in
 * order through QPU and CPU stages, 300 frames with a hung job, a faulting
 * job, a job canceled as a reset cancels it and a frame of the wrong size,
 * none lost and each failure recovered on the CPU; the slowdown warning
 * when the clock falls; the built-in stages (pre-processing on the QPUs
 * against the CPU, a .qnn detector, NMS); refusals before any job; fences
 * on device jobs: pre-processing submitted only, inference after its
 * fence on the pre-processing output's buffer, both chained in the
 * pipeline, failed fences passed on, bad ones refused.
 */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "qpu.h"
#include "qpu_nn.h"
#include "qpu_pipeline.h"
#include "nn-build.h"
#include "test-device.h"
#include "testlib.h"
#include "../kmod/qpu_programs.h"

#define SIDE		32
#define TENSOR		16
#define FRAMES		300
#define HANG_FRAME	50
#define FAULT_FRAME	120
#define RESET_FRAME	200
#define WRONG_FRAME	260
#define UNSUP_FRAME	280
/* The hung job runs with the stage's derived timeout; recovery must bring
 * the stage back within the 250 ms of a hang. */
#define BACK_TO_QPU_MS	250

static const float zero3[3] = { 0, 0, 0 }, one3[3] = { 1, 1, 1 };

/* A stage that runs one job on the device per frame, a bad one on the
 * frames chosen, and copies its input through. */
struct faulty {
	struct qpu_bo *code;
	struct qpu_bo *unif;
	uint64_t runs[2];
	unsigned int hang_timeout_ms;
};

enum { CODE_END = 0, CODE_LOOP = 64, CODE_TMU = 128 };

static int run_job(struct faulty *f, struct qpu_dev *dev, uint32_t code_off, int in_fence,
		   int *out_fence, unsigned int timeout_ms, enum qpu_status *status)
{
	struct qpu_program_ref prog = { .code = f->code, .code_offset = code_off,
					.uniforms = f->unif };
	struct qpu_job_desc job = { .programs = &prog, .program_count = 1,
				    .timeout_ms = timeout_ms, .in_fence_fd = in_fence,
				    .out_fence_fd = out_fence };
	struct qpu_job_result r;
	uint64_t seqno;
	int ret = qpu_submit(dev, &job, &seqno);

	if (ret)
		return ret;
	ret = qpu_wait(dev, seqno, -1, &r);
	if (ret)
		return ret;
	*status = r.status;
	return r.status == QPU_STATUS_DONE ? 0 : -EIO;
}

static int faulty_run(void *ctx, struct qpu_pipeline_job *job)
{
	struct faulty *f = ctx;
	uint64_t i = job->frame->index;
	enum qpu_status status = QPU_STATUS_DONE;
	int ret = 0, fence = -1;

	f->runs[job->place == QPU_PIPELINE_QPU]++;
	if (job->place == QPU_PIPELINE_QPU) {
		if (i == HANG_FRAME) {
			f->hang_timeout_ms = job->timeout_ms;
			ret = run_job(f, job->dev, CODE_LOOP, -1, NULL, job->timeout_ms, &status);
		} else if (i == UNSUP_FRAME) {
			snprintf(job->error, job->error_size, "asked for 99 QPUs");
			return -EINVAL;
		} else if (i == FAULT_FRAME) {
			ret = run_job(f, job->dev, CODE_TMU, -1, NULL, 0, &status);
		} else if (i == RESET_FRAME) {
			/* What a reset does to the job it interrupts: a job
			 * queued behind a failed one is canceled. */
			ret = run_job(f, job->dev, CODE_LOOP, -1, &fence, 1, &status);
			if (ret == -EIO)
				ret = run_job(f, job->dev, CODE_END, fence, NULL, 0, &status);
			close(fence);
		} else {
			ret = run_job(f, job->dev, CODE_END, -1, NULL, 0, &status);
		}
		if (ret) {
			job->status = status;
			snprintf(job->error, job->error_size, "job %s", qpu_job_status_str(status));
			return ret;
		}
		job->model_ns = 1000;
	}
	memcpy(job->out, job->in, job->out_bytes);
	return 0;
}

static void faulty_init(struct faulty *f, struct qpu_dev *dev)
{
	memset(f, 0, sizeof(*f));
	f->code = qpu_bo_new(dev, 4096);
	f->unif = qpu_bo_new(dev, 4096);
	T_CHECK(f->code && f->unif);
	if (!f->code || !f->unif)
		return;
	memcpy((char *)qpu_bo_get_map(f->code) + CODE_END, qpu_prog_end, sizeof(qpu_prog_end));
	memcpy((char *)qpu_bo_get_map(f->code) + CODE_LOOP, qpu_prog_loop, sizeof(qpu_prog_loop));
	memcpy((char *)qpu_bo_get_map(f->code) + CODE_TMU, qpu_prog_tmu_read,
	       sizeof(qpu_prog_tmu_read));
	/* The TMU read's address: the bottom of the bus, in no buffer. */
	memset(qpu_bo_get_map(f->unif), 0, 16);
}

static void faulty_fini(struct faulty *f)
{
	qpu_bo_free(f->code);
	qpu_bo_free(f->unif);
}

/* What the sink saw. */
struct seen {
	uint64_t count;
	uint64_t next_index;
	uint64_t out_of_order;
	uint64_t bad_user;
	uint64_t failed;
	uint64_t refused_index;
	uint64_t recovered_frames;
	uint64_t wrong_output;
	uint64_t bad_times;
	unsigned int hang_stage_timeout_ms;
	char error[256];
	size_t out_bytes;
	float first_value[FRAMES];
};

static void sink(void *ctx, const struct qpu_pipeline_frame *f)
{
	struct seen *s = ctx;

	if (f->index != s->next_index)
		s->out_of_order++;
	s->next_index = f->index + 1;
	if ((uintptr_t)f->user != f->index + 1)
		s->bad_user++;
	if (f->status) {
		s->failed++;
		s->refused_index = f->index;
		snprintf(s->error, sizeof(s->error), "%s", f->error);
	} else if (f->index < FRAMES) {
		s->first_value[f->index] = ((const float *)f->data)[0];
	}
	if (f->recoveries)
		s->recovered_frames++;
	/* Each stage's run of the frame, in order, where it ran. */
	if (!f->status && (f->stage_count != 2 || f->stages[0].place != QPU_PIPELINE_QPU ||
			   f->stages[0].end_ns < f->stages[0].start_ns ||
			   f->stages[1].start_ns < f->stages[0].end_ns ||
			   f->stages[1].end_ns > f->latency_ns ||
			   f->stages[1].recovered != (f->recoveries != 0) ||
			   (f->stages[1].recovered && f->stages[1].place != QPU_PIPELINE_CPU)))
		s->bad_times++;
	if (f->index == HANG_FRAME)
		s->hang_stage_timeout_ms = f->stages[1].timeout_ms;
	s->out_bytes = f->bytes;
	s->count++;
}

/* An I420 frame whose Y is @v everywhere, U and V 128 (grey). */
static void fill_grey(void *data, unsigned int side, uint8_t v)
{
	memset(data, v, (size_t)side * side);
	memset((uint8_t *)data + (size_t)side * side, 128, (size_t)side * side / 2);
}

T_TEST(recovery_300_frames)
{
	struct qpu_pipeline_config cfg = {
		.dev = device, .format = QPU_PIPELINE_I420, .width = SIDE, .height = SIDE,
		.in_flight = 4,
	};
	struct qpu_pipeline_preprocess pre = {
		.format = QPU_PIPELINE_I420, .width = SIDE, .height = SIDE,
		.out_width = TENSOR, .out_height = TENSOR,
	};
	struct qpu_pipeline_stage st;
	struct qpu_pipeline_stage_stats ss;
	struct qpu_pipeline_stats ps;
	struct qpu_pipeline_input in;
	struct qpu_pipeline *pl;
	struct seen *seen = calloc(1, sizeof(*seen));
	struct faulty f;
	char err[256], json[4096];
	unsigned int i;
	uint64_t gen = QPU_GEN_VC4;

	qpu_dev_get_param(device, QPU_DEV_PARAM_GEN, &gen);
	if (gen != QPU_GEN_VC4) {
		free(seen);
		/* its bad jobs are VideoCore IV programs (kmod/qpu_programs.h) */
		T_SKIP("the faulty stage's jobs are VideoCore IV programs");
	}
	memcpy(pre.mean, zero3, sizeof(zero3));
	memcpy(pre.std, one3, sizeof(one3));
	cfg.sink = sink;
	cfg.sink_ctx = seen;
	faulty_init(&f, device);
	pl = qpu_pipeline_new(&cfg);
	T_CHECK(pl != NULL);
	if (!pl || !seen)
		return;
	T_EQ_U64(0, qpu_pipeline_stage_preprocess(device, &pre, &st, err, sizeof(err)));
	T_EQ_U64(0, qpu_pipeline_add_stage(pl, &st));
	st = (struct qpu_pipeline_stage){
		.name = "faulty", .can = QPU_PIPELINE_CAN_QPU | QPU_PIPELINE_CAN_CPU,
		.in_bytes = TENSOR * TENSOR * 3 * 4, .out_bytes = TENSOR * TENSOR * 3 * 4,
		.run = faulty_run, .ctx = &f,
	};
	T_EQ_U64(0, qpu_pipeline_add_stage(pl, &st));
	T_EQ_U64(0, qpu_pipeline_start(pl));
	for (i = 0; i < FRAMES; i++) {
		T_EQ_U64(0, qpu_pipeline_acquire(pl, 60000, &in));
		T_EQ_U64(SIDE * SIDE * 3 / 2, in.bytes);
		T_CHECK(in.bo != NULL);
		fill_grey(in.data, SIDE, (uint8_t)i);
		T_EQ_U64(0, qpu_pipeline_submit(pl, QPU_PIPELINE_I420,
						i == WRONG_FRAME ? SIDE + 2 : SIDE, SIDE,
						(void *)(uintptr_t)(i + 1)));
	}
	T_EQ_U64(0, qpu_pipeline_finish(pl));

	/* Nothing lost, in order, one refusal. */
	T_EQ_U64(FRAMES, seen->count);
	T_EQ_U64(0, seen->out_of_order);
	T_EQ_U64(0, seen->bad_user);
	T_EQ_U64(1, seen->failed);
	T_EQ_U64(WRONG_FRAME, seen->refused_index);
	T_CHECK(strstr(seen->error, "refused: a 34x32 i420 frame, the pipeline takes 32x32 i420"));
	T_EQ_U64(4, seen->recovered_frames);
	T_EQ_U64(0, seen->bad_times);
	T_EQ_U64(TENSOR * TENSOR * 3 * 4, seen->out_bytes);
	/* Every frame's grey reached the end, recovered ones too (R of a
	 * grey level v is v / 255 with mean 0 and std 1). */
	for (i = 0; i < FRAMES; i++)
		if (i != WRONG_FRAME && (seen->first_value[i] < (float)(i & 255) / 255 - 1e-4f ||
					 seen->first_value[i] > (float)(i & 255) / 255 + 1e-4f))
			seen->wrong_output++;
	T_EQ_U64(0, seen->wrong_output);

	T_EQ_U64(0, qpu_pipeline_get_stats(pl, &ps));
	T_EQ_U64(FRAMES, ps.submitted);
	T_EQ_U64(FRAMES, ps.delivered);
	T_EQ_U64(1, ps.refused);
	T_EQ_U64(1, ps.failed);
	T_EQ_U64(4, ps.recoveries);
	T_EQ_U64(FRAMES - 1, ps.latency.count);
	T_CHECK(ps.latency.p50_ns <= ps.latency.p90_ns && ps.latency.p90_ns <= ps.latency.p99_ns &&
		ps.latency.p99_ns <= ps.latency.max_ns);

	T_EQ_U64(0, qpu_pipeline_get_stage_stats(pl, 0, &ss));
	T_EQ_STR("preprocess", ss.name);
	T_EQ_U64(QPU_PIPELINE_QPU, ss.place);
	T_EQ_U64(FRAMES - 1, ss.qpu_runs);
	T_EQ_U64(0, ss.recoveries);

	T_EQ_U64(0, qpu_pipeline_get_stage_stats(pl, 1, &ss));
	T_EQ_U64(FRAMES - 1, ss.frames);
	/* the unsupported frame demotes the stage for 32 frames: the rest
	 * of the run after frame 280 is on the CPU */
	T_EQ_U64(UNSUP_FRAME, ss.qpu_runs);
	T_EQ_U64(4 + FRAMES - UNSUP_FRAME - 1, ss.cpu_runs);
	T_EQ_U64(4, ss.recoveries);
	T_EQ_U64(1, ss.timeouts);
	T_EQ_U64(1, ss.faults);
	T_EQ_U64(1, ss.canceled);
	T_EQ_U64(1, ss.unsupported);
	T_EQ_U64(0, ss.failed);
	T_EQ_U64(UNSUP_FRAME, f.runs[1]);
	T_EQ_U64(4 + FRAMES - UNSUP_FRAME - 1, f.runs[0]);
	T_CHECK(ss.recovery_ns > 0 && ss.recovery_max_ns <= ss.recovery_ns);
	/* The hang ran with the derived budget, not the device's 2 s: the
	 * floor, as this stage's runs take well under 5 ms (a little more
	 * when a loaded machine or ASan slowed one of them down). */
	T_CHECK(f.hang_timeout_ms >= QPU_PIPELINE_TIMEOUT_FLOOR_MS &&
		f.hang_timeout_ms < BACK_TO_QPU_MS / 2);
	T_EQ_U64(f.hang_timeout_ms, seen->hang_stage_timeout_ms);
	T_CHECK(ss.timeout_ms >= QPU_PIPELINE_TIMEOUT_FLOOR_MS);
	T_CHECK(ss.back_to_qpu_max_ns > 0);
	/* The goal, as the pipeline measured it: from the hung job's
	 * start to the next good QPU run's start. The emulator times a job by
	 * its instructions, so a loaded machine does not shorten the hang. */
	T_CHECK(ss.back_to_qpu_max_ns < BACK_TO_QPU_MS * 1000000ull);
	T_EQ_U64(1000, ss.latency.model_ns);
	printf("recoveries: 4, longest %.2f ms, back to the QPUs within %.2f ms of a hung job's start (timeout %u ms)\n",
	       ss.recovery_max_ns / 1e6, ss.back_to_qpu_max_ns / 1e6, f.hang_timeout_ms);

	T_CHECK(qpu_pipeline_stats_json(pl, json, sizeof(json)) > 0);
	T_CHECK(strstr(json, "\"delivered\":300"));
	T_CHECK(strstr(json, "\"name\":\"faulty\",\"place\":\"qpu\""));
	T_CHECK(strstr(json, "\"recoveries\":4"));
	T_CHECK(strstr(json, "\"unsupported\":1"));
	T_CHECK(strstr(json, "\"p99_ns\":"));
	qpu_pipeline_free(pl);
	faulty_fini(&f);
	free(seen);
}

/* Starts @pl and runs @frames 8x8 GRAY8 frames through it to the end. */
static void run_gray(struct qpu_pipeline *pl, unsigned int frames)
{
	struct qpu_pipeline_input in;
	unsigned int i;

	T_EQ_U64(0, qpu_pipeline_start(pl));
	for (i = 0; i < frames; i++) {
		T_EQ_U64(0, qpu_pipeline_acquire(pl, 60000, &in));
		T_EQ_U64(0, qpu_pipeline_submit(pl, QPU_PIPELINE_GRAY8, 8, 8, NULL));
	}
	T_EQ_U64(0, qpu_pipeline_finish(pl));
}

/* A stage that takes 1 ms, 12 ms once the user's telemetry says the clock
 * fell, and that telemetry. */
struct clocked {
	uint64_t frame;
	unsigned int warnings;
	char warning[256];
	int steady_clock;	/* the clock does not fall */
	int speeds_up;		/* 12 ms a run, then 1 ms from frame 20 */
};

static int clocked_telemetry(void *ctx, struct qpu_pipeline_telemetry *t)
{
	struct clocked *c = ctx;

	t->flags = QPU_PIPELINE_TELEMETRY_CLOCK | QPU_PIPELINE_TELEMETRY_TEMP;
	t->clock_hz = c->frame < 20 || c->steady_clock ? 500000000 : 250000000;
	t->temp_mc = 80000;
	return 0;
}

static int clocked_run(void *ctx, struct qpu_pipeline_job *job)
{
	struct clocked *c = ctx;
	int slow = c->speeds_up ? job->frame->index < 20 : job->frame->index >= 20;
	struct timespec ts = { 0, slow ? 12000000 : 1000000 };

	c->frame = job->frame->index + 1;
	nanosleep(&ts, NULL);
	return 0;
}

static void clocked_warn(void *ctx, const char *msg)
{
	struct clocked *c = ctx;

	c->warnings++;
	snprintf(c->warning, sizeof(c->warning), "%s", msg);
}

/* A pipeline of @st alone after 30 gray frames, its stats; NULL (checked) on failure. */
static struct qpu_pipeline *clocked_pipeline(const struct qpu_pipeline_config *cfg,
					     const struct qpu_pipeline_stage *st,
					     struct qpu_pipeline_stage_stats *ss,
					     struct qpu_pipeline_stats *ps)
{
	struct qpu_pipeline *pl = qpu_pipeline_new(cfg);

	T_CHECK(pl != NULL);
	if (!pl)
		return NULL;
	T_EQ_U64(0, qpu_pipeline_add_stage(pl, st));
	run_gray(pl, 30);
	T_EQ_U64(0, qpu_pipeline_get_stage_stats(pl, 0, ss));
	T_EQ_U64(0, qpu_pipeline_get_stats(pl, ps));
	return pl;
}

T_TEST(slowdown_warning)
{
	struct clocked c = { 0 };
	struct qpu_pipeline_config cfg = {
		.dev = device, .format = QPU_PIPELINE_GRAY8, .width = 8, .height = 8,
		.in_flight = 1, .telemetry_ms = 1, .telemetry = clocked_telemetry,
		.telemetry_ctx = &c, .warn = clocked_warn, .warn_ctx = &c,
	};
	struct qpu_pipeline_stage st = {
		.name = "clocked", .can = QPU_PIPELINE_CAN_QPU, .out_bytes = 4,
		.run = clocked_run, .ctx = &c,
	};
	struct qpu_pipeline_stage_stats ss;
	struct qpu_pipeline_stats ps;
	struct qpu_pipeline *pl = clocked_pipeline(&cfg, &st, &ss, &ps);

	if (!pl)
		return;
	T_CHECK(ss.slowdowns >= 5);
	T_EQ_U64(1, c.warnings);	/* one message per 100 slow runs */
	T_CHECK(strstr(c.warning, "stage clocked took"));
	T_CHECK(strstr(c.warning, "with the V3D clock at 250 MHz, down from 500 MHz"));
	T_EQ_U64(1, ps.warnings);
	T_CHECK(ps.telemetry_samples >= 30);
	T_EQ_STR("user", ps.telemetry.source);
	T_EQ_U64(250000000, ps.telemetry.clock_hz);
	T_EQ_U64(80000, ps.telemetry.temp_mc);
	qpu_pipeline_free(pl);

	/* a slower stage at the same clock, or a lower clock with a faster
	 * stage (far from any scheduling hiccup), is no slowdown of the
	 * clock's making */
	for (c.steady_clock = 1; c.steady_clock >= 0; c.steady_clock--) {
		c.speeds_up = !c.steady_clock;
		c.frame = 0;
		c.warnings = 0;
		pl = clocked_pipeline(&cfg, &st, &ss, &ps);
		if (!pl)
			return;
		T_EQ_U64(0, ss.slowdowns);
		T_EQ_U64(0, c.warnings);
		T_EQ_U64(0, ps.warnings);
		T_EQ_U64(c.steady_clock ? 500000000 : 250000000, ps.telemetry.clock_hz);
		qpu_pipeline_free(pl);
	}
}

/* The emulator reports no telemetry; a pipeline says so. */
T_TEST(telemetry_default)
{
	struct qpu_pipeline_config cfg = {
		.dev = device, .format = QPU_PIPELINE_GRAY8, .width = 8, .height = 8,
	};
	struct qpu_pipeline_stage st = {
		.name = "copy", .can = QPU_PIPELINE_CAN_CPU, .out_bytes = 64,
		.run = clocked_run, .ctx = &(struct clocked){ 0 },
	};
	struct qpu_pipeline_stats ps;
	struct qpu_pipeline_input in;
	struct qpu_pipeline *pl = qpu_pipeline_new(&cfg);

	T_CHECK(pl != NULL);
	if (!pl)
		return;
	T_EQ_U64(0, qpu_pipeline_add_stage(pl, &st));
	T_EQ_U64(0, qpu_pipeline_start(pl));
	T_EQ_U64(0, qpu_pipeline_acquire(pl, 1000, &in));
	T_EQ_U64(0, qpu_pipeline_submit(pl, QPU_PIPELINE_GRAY8, 8, 8, NULL));
	T_EQ_U64(0, qpu_pipeline_finish(pl));
	T_EQ_U64(0, qpu_pipeline_get_stats(pl, &ps));
	T_EQ_U64(1, ps.telemetry_samples);
	if (strstr(qpu_dev_describe(device), "emulator")) {
		T_EQ_STR("none", ps.telemetry.source);
		T_EQ_U64(0, ps.telemetry.flags);
	}
	qpu_pipeline_free(pl);
}

/* Pre-processing on the QPUs and on the CPU give the same tensor. */
T_TEST(preprocess_qpu_cpu)
{
	struct qpu_pipeline_preprocess pre = {
		.format = QPU_PIPELINE_I420, .width = 48, .height = 36,
		.out_width = 16, .out_height = 12, .mean = { 0.485f, 0.456f, 0.406f },
		.std = { 0.229f, 0.224f, 0.225f },
	};
	struct qpu_pipeline_stage q, c;
	struct qpu_bo *in = qpu_bo_new(device, 48 * 36 * 3 / 2);
	struct qpu_bo *out = qpu_bo_new(device, 16 * 12 * 3 * 4);
	float *cpu = malloc(16 * 12 * 3 * 4);
	struct qpu_pipeline_frame frame = { .format = QPU_PIPELINE_I420, .width = 48, .height = 36 };
	struct qpu_pipeline_job job = { .frame = &frame, .dev = device };
	char err[256];
	unsigned int i, bad = 0;
	uint8_t *p;

	T_CHECK(in && out && cpu);
	if (!in || !out || !cpu)
		return;
	p = qpu_bo_get_map(in);
	for (i = 0; i < 48 * 36 * 3 / 2; i++)
		p[i] = (uint8_t)(i * 37 + (i >> 5));
	T_EQ_U64(0, qpu_pipeline_stage_preprocess(device, &pre, &q, err, sizeof(err)));
	T_EQ_U64(QPU_PIPELINE_CAN_QPU | QPU_PIPELINE_CAN_CPU, q.can);
	job.in = p;
	job.in_bytes = 48 * 36 * 3 / 2;
	job.in_bo = in;
	job.out = qpu_bo_get_map(out);
	job.out_bytes = q.out_bytes;
	job.out_bo = out;
	job.error = err;
	job.error_size = sizeof(err);
	job.place = QPU_PIPELINE_QPU;
	T_EQ_U64(0, q.run(q.ctx, &job));
	job.place = QPU_PIPELINE_CPU;
	job.out = cpu;
	job.out_bo = NULL;
	T_EQ_U64(0, q.run(q.ctx, &job));
	for (i = 0; i < 16 * 12 * 3; i++) {
		float d = ((float *)qpu_bo_get_map(out))[i] - cpu[i];

		if (d > 1e-4f || d < -1e-4f)
			bad++;
	}
	T_EQ_U64(0, bad);
	q.fini(q.ctx);

	/* Every format has a QPU path now; without a device, the CPU. */
	pre.format = QPU_PIPELINE_NV12;
	T_EQ_U64(0, qpu_pipeline_stage_preprocess(device, &pre, &c, err, sizeof(err)));
	T_EQ_U64(QPU_PIPELINE_CAN_QPU | QPU_PIPELINE_CAN_CPU, c.can);
	c.fini(c.ctx);
	T_EQ_U64(0, qpu_pipeline_stage_preprocess(NULL, &pre, &c, err, sizeof(err)));
	T_EQ_U64(QPU_PIPELINE_CAN_CPU, c.can);
	c.fini(c.ctx);
	qpu_bo_free(in);
	qpu_bo_free(out);
	free(cpu);
}

/*
 * A detector in the shape qpu_pipeline_stage_detect() decodes: a 1x1
 * convolution from 3 x 8 x 8 to 7 channels (one anchor, x, y, w, h,
 * objectness, two classes), each a constant from its bias, then a sigmoid.
 */
static int write_detector(const char *path)
{
	static const float logits[7] = { 0, 0, 0, 0, 2.1972246f, 2, -2 };
	int64_t xd[4] = { 1, 3, 8, 8 }, wd[4] = { 7, 3, 1, 1 }, bd[1] = { 7 };
	float w[21] = { 0 };
	struct nb q = { 0 };
	uint32_t x, tw, tb, c, y, in[3];

	x = nb_tensor(&q, "image", QPU_NN_FLOAT32, 4, xd, NULL, 0);
	tw = nb_tensor(&q, "w", QPU_NN_FLOAT32, 4, wd, w, sizeof(w));
	tb = nb_tensor(&q, "b", QPU_NN_FLOAT32, 1, bd, logits, sizeof(logits));
	c = nb_value(&q, "conv");
	y = nb_value(&q, "head");
	in[0] = x;
	in[1] = tw;
	in[2] = tb;
	nb_node(&q, "conv", "Conv", "", 3, in, 1, &c);
	nb_node(&q, "sigmoid", "Sigmoid", "", 1, &c, 1, &y);
	return nb_save(&q, 13, x, y, path);
}

/* The detector into a new file of the template @model; 0, or -1 (checked). */
static int detector_model(char *model)
{
	int fd = mkstemp(model);

	T_CHECK(fd >= 0);
	if (fd < 0)
		return -1;
	close(fd);
	T_EQ_U64(0, write_detector(model));
	return 0;
}

struct detect_seen {
	uint32_t count;
	uint32_t candidates;
	struct qpu_pipeline_box best;
};

static void detect_sink(void *ctx, const struct qpu_pipeline_frame *f)
{
	const struct qpu_pipeline_detections *d = f->data;
	struct detect_seen *keep = ctx;

	if (f->status)
		return;
	keep->count = d->count;
	keep->candidates = d->candidates;
	if (d->count)
		keep->best = d->boxes[0];
}

/*
 * A started pipeline of pre-processing (I420 32x16 to 8x8), the detector of
 * @model and NMS on @dev, its frames' detections to @d; NULL on failure.
 */
static struct qpu_pipeline *detector_start(struct qpu_dev *dev, const char *model,
					   struct detect_seen *d, unsigned int in_flight)
{
	struct qpu_pipeline_preprocess pre = {
		.format = QPU_PIPELINE_I420, .width = 32, .height = 16,
		.out_width = 8, .out_height = 8, .std = { 1, 1, 1 },
	};
	struct qpu_pipeline_detect det = {
		.grid_w = 8, .grid_h = 8, .anchors = 1, .classes = 2,
		.score_threshold = 0.5f, .iou_threshold = 0.5f, .max_boxes = 100,
	};
	struct qpu_pipeline_config cfg = {
		.dev = dev, .format = QPU_PIPELINE_I420, .width = 32, .height = 16,
		.sink = detect_sink, .sink_ctx = d, .in_flight = in_flight,
	};
	struct qpu_pipeline *pl = qpu_pipeline_new(&cfg);
	struct qpu_pipeline_stage st;
	char err[512];

	T_CHECK(pl != NULL);
	if (!pl)
		return NULL;
	T_EQ_U64(0, qpu_pipeline_stage_preprocess(dev, &pre, &st, err, sizeof(err)));
	T_EQ_U64(0, qpu_pipeline_add_stage(pl, &st));
	T_EQ_U64(0, qpu_pipeline_stage_infer(dev, model, 8 * 8 * 3 * 4, QPU_NN_BIND_QPU_ALL, &st, err,
					     sizeof(err)));
	T_EQ_U64(0, qpu_pipeline_add_stage(pl, &st));
	T_EQ_U64(0, qpu_pipeline_stage_detect(&det, &st, err, sizeof(err)));
	T_EQ_U64(0, qpu_pipeline_add_stage(pl, &st));
	T_EQ_U64(0, qpu_pipeline_start(pl));
	return pl;
}

/* Pre-processing, the detector and NMS, on the device and on the CPU. */
T_TEST(detector_pipeline)
{
	char model[] = "/tmp/test-pipeline-XXXXXX";
	unsigned int pass;

	if (detector_model(model))
		return;
	for (pass = 0; pass < 2; pass++) {
		struct detect_seen d = { 0 };
		struct qpu_pipeline *pl = detector_start(pass ? NULL : device, model, &d, 0);
		struct qpu_pipeline_input in;
		unsigned int i;

		if (!pl)
			break;
		for (i = 0; i < 4; i++) {
			T_EQ_U64(0, qpu_pipeline_acquire(pl, 60000, &in));
			memset(in.data, 100, in.bytes);
			T_EQ_U64(0, qpu_pipeline_submit(pl, QPU_PIPELINE_I420, 32, 16, NULL));
		}
		T_EQ_U64(0, qpu_pipeline_finish(pl));
		/* 64 cells each with a centred box half the image wide,
		 * objectness 0.9, class 0 at 0.88: NMS keeps the cells whose
		 * boxes overlap no better one by more than half. */
		T_EQ_U64(64, d.candidates);
		T_CHECK(d.count > 1 && d.count < 64);
		T_EQ_U64(0, d.best.label);
		T_CHECK(d.best.score > 0.79f && d.best.score < 0.80f);
		T_CHECK(d.best.x1 - d.best.x0 > 0.2f);
		qpu_pipeline_free(pl);
	}
	unlink(model);
}

T_TEST(nms)
{
	struct qpu_pipeline_detect det = {
		.grid_w = 1, .grid_h = 1, .anchors = 2, .classes = 2,
		.score_threshold = 0.3f, .iou_threshold = 0.5f, .max_boxes = 4,
	};
	/* Per anchor: x, y, w, h, objectness, class 0, class 1. */
	float in[14] = {
		0.5f, 0.5f, 0.5f, 0.5f, 0.9f, 0.9f, 0.1f,
		0.6f, 0.5f, 0.5f, 0.5f, 0.8f, 0.9f, 0.1f,
	};
	char outbuf[sizeof(struct qpu_pipeline_detections) + 4 * sizeof(struct qpu_pipeline_box)];
	struct qpu_pipeline_detections *d = (void *)outbuf;
	struct qpu_pipeline_frame frame = { 0 };
	struct qpu_pipeline_job job = { .frame = &frame, .place = QPU_PIPELINE_CPU, .in = in,
					.out = outbuf, .out_bytes = sizeof(outbuf) };
	struct qpu_pipeline_stage st;
	char err[128];

	T_EQ_U64(0, qpu_pipeline_stage_detect(&det, &st, err, sizeof(err)));
	T_EQ_U64(sizeof(in), st.in_bytes);
	T_EQ_U64(0, st.run(st.ctx, &job));
	/* Boxes centred at x 0.5 and 0.6, both 0.5 wide: IoU 2/3, the same
	 * class: the better one stays. */
	T_EQ_U64(2, d->candidates);
	T_EQ_U64(1, d->count);
	T_CHECK(d->boxes[0].score > 0.80f && d->boxes[0].score < 0.82f);
	T_CHECK(d->boxes[0].x0 > 0.25f - 1e-6f && d->boxes[0].x0 < 0.25f + 1e-6f);
	/* Another class: both stay, the better first. */
	in[12] = 0.1f;
	in[13] = 0.9f;
	T_EQ_U64(0, st.run(st.ctx, &job));
	T_EQ_U64(2, d->count);
	T_EQ_U64(0, d->boxes[0].label);
	T_EQ_U64(1, d->boxes[1].label);
	/* Under the score threshold: none. */
	in[4] = in[11] = 0.2f;
	T_EQ_U64(0, st.run(st.ctx, &job));
	T_EQ_U64(0, d->candidates);
	T_EQ_U64(0, d->count);
	st.fini(st.ctx);
}

/* What a tensor sink keeps: the first frame's tensor. */
struct tensor_seen {
	unsigned int frames;
	int status;
	char error[256];
	uint8_t tensor[16 * 12 * 3];
};

static void tensor_sink(void *ctx, const struct qpu_pipeline_frame *f)
{
	struct tensor_seen *t = ctx;

	if (!t->frames++) {
		t->status = f->status;
		snprintf(t->error, sizeof(t->error), "%s", f->error);
		if (!f->status && f->bytes == sizeof(t->tensor))
			memcpy(t->tensor, f->data, sizeof(t->tensor));
	}
}

/*
 * A YUYV frame in a buffer of the caller's (planes at an odd offset, rows
 * wider than the frame) through a letterboxed NHWC int8 tensor, on the
 * QPUs with no copy, equals the same frame in the pipeline's own buffer
 * on the CPU (within one step: "results may differ by one"); refusals.
 */
T_TEST(bo_frames)
{
	enum { W = 24, H = 12, OFF = 13, STRIDE = W * 2 + 8 };
	struct qpu_pipeline_tensor t = {
		.format = QPU_PIPELINE_YUYV, .width = W, .height = H,
		.pre = {
			.dst_width = 16, .dst_height = 12, .layout = QPU_TENSOR_NHWC,
			.type = QPU_TENSOR_I8, .flags = QPU_PREPROCESS_LETTERBOX, .pad = 114,
			.mean = { 0.5f, 0.5f, 0.5f }, .std = { 0.25f, 0.25f, 0.25f },
			.scale = 0.03f, .zero_point = 3,
		},
	};
	struct qpu_bo *bo = qpu_bo_new(device, OFF + STRIDE * H);
	struct tensor_seen qpu = { 0 }, cpu = { 0 }, refused = { 0 };
	struct qpu_pipeline_bo_frame bf = {
		.bo = bo, .format = QPU_PIPELINE_YUYV, .width = W, .height = H,
		.offset = { OFF }, .stride = { STRIDE },
	};
	struct qpu_pipeline_input in;
	struct qpu_pipeline_stage st;
	struct qpu_pipeline *pl;
	char err[256];
	unsigned int x, y, i, bad = 0;
	uint8_t *m;

	T_CHECK(bo != NULL);
	if (!bo)
		return;
	m = qpu_bo_get_map(bo);
	for (y = 0; y < H; y++)
		for (x = 0; x < W * 2; x++)
			m[OFF + y * STRIDE + x] = (uint8_t)(x * 11 + y * 7);
	for (i = 0; i < 2; i++) {
		struct qpu_pipeline_config cfg = {
			.dev = i ? NULL : device, .format = QPU_PIPELINE_YUYV, .width = W,
			.height = H, .sink = tensor_sink, .sink_ctx = i ? &cpu : &qpu,
		};

		pl = qpu_pipeline_new(&cfg);
		T_CHECK(pl != NULL);
		if (!pl)
			break;
		T_EQ_U64(0, qpu_pipeline_stage_tensor(cfg.dev, &t, &st, err, sizeof(err)));
		T_EQ_U64(16 * 12 * 3, st.out_bytes);
		T_EQ_U64(0, qpu_pipeline_add_stage(pl, &st));
		T_EQ_U64(0, qpu_pipeline_start(pl));
		T_EQ_U64(0, qpu_pipeline_acquire(pl, 60000, &in));
		if (i) {
			for (y = 0; y < H; y++)
				memcpy((uint8_t *)in.data + y * W * 2, m + OFF + y * STRIDE, W * 2);
			T_EQ_U64(0, qpu_pipeline_submit(pl, QPU_PIPELINE_YUYV, W, H, NULL));
		} else {
			T_EQ_U64(0, qpu_pipeline_submit_bo(pl, &bf, NULL));
		}
		T_EQ_U64(0, qpu_pipeline_finish(pl));
		qpu_pipeline_free(pl);
	}
	T_EQ_U64(0, qpu.status);
	T_EQ_U64(0, cpu.status);
	for (i = 0; i < sizeof(qpu.tensor); i++)
		if (abs((int8_t)qpu.tensor[i] - (int8_t)cpu.tensor[i]) > 1)
			bad++;
	T_EQ_U64(0, bad);
	/* the letterbox's top rows are the pad: (114 / 255 - 0.5) / 0.25 / 0.03 + 3,
	 * rounded half up */
	T_EQ_U64((uint8_t)(int8_t)-4, cpu.tensor[0]);

	/* Refused: planes outside the buffer, GRAY8, no device, no frame. */
	{
		struct qpu_pipeline_config cfg = {
			.dev = device, .format = QPU_PIPELINE_YUYV, .width = W, .height = H,
			.sink = tensor_sink, .sink_ctx = &refused,
		};

		pl = qpu_pipeline_new(&cfg);
		T_CHECK(pl != NULL);
		if (!pl)
			goto out;
		T_EQ_U64(0, qpu_pipeline_stage_tensor(device, &t, &st, err, sizeof(err)));
		T_EQ_U64(0, qpu_pipeline_add_stage(pl, &st));
		T_EQ_U64(-EINVAL, qpu_pipeline_submit_bo(pl, &bf, NULL));
		T_EQ_STR("pipeline: no frame acquired", qpu_pipeline_last_error(pl));
		T_EQ_U64(0, qpu_pipeline_start(pl));
		T_EQ_U64(0, qpu_pipeline_acquire(pl, 60000, &in));
		T_EQ_U64(-EINVAL, qpu_pipeline_submit_bo(pl, NULL, NULL));
		T_EQ_STR("pipeline: no frame buffer", qpu_pipeline_last_error(pl));
		bf.offset[0] = 1 << 24;	/* past any rounding of the buffer's size */
		T_EQ_U64(0, qpu_pipeline_submit_bo(pl, &bf, NULL));
		T_EQ_U64(0, qpu_pipeline_finish(pl));
		T_EQ_U64(-EINVAL, refused.status);
		T_CHECK(strstr(refused.error, "refused: plane 0 (offset 16777216, stride 56, 12 rows of 48 bytes) is not inside the"));
		T_EQ_U64(-EINVAL, qpu_pipeline_set_stage_timeout(pl, 1, 5));
		qpu_pipeline_free(pl);
	}
	{
		struct qpu_pipeline_config cfg = {
			.format = QPU_PIPELINE_YUYV, .width = W, .height = H,
		};

		pl = qpu_pipeline_new(&cfg);
		T_CHECK(pl != NULL);
		if (!pl)
			goto out;
		T_EQ_U64(0, qpu_pipeline_stage_tensor(NULL, &t, &st, err, sizeof(err)));
		T_EQ_U64(0, qpu_pipeline_add_stage(pl, &st));
		T_EQ_U64(0, qpu_pipeline_start(pl));
		T_EQ_U64(0, qpu_pipeline_acquire(pl, 60000, &in));
		T_EQ_U64(-EINVAL, qpu_pipeline_submit_bo(pl, &bf, NULL));
		T_CHECK(strstr(qpu_pipeline_last_error(pl), "needs a pipeline with a device"));
		T_EQ_U64(0, qpu_pipeline_submit(pl, QPU_PIPELINE_YUYV, W, H, NULL));
		qpu_pipeline_free(pl);
	}
out:
	qpu_bo_free(bo);
}

/* A user's stage timeout reaches the runs' jobs and the frames. */
struct timeout_seen {
	unsigned int job_ms;
	unsigned int frame_ms;
};

static int timeout_run(void *ctx, struct qpu_pipeline_job *job)
{
	((struct timeout_seen *)ctx)->job_ms = job->timeout_ms;
	return 0;
}

static void timeout_sink(void *ctx, const struct qpu_pipeline_frame *f)
{
	((struct timeout_seen *)ctx)->frame_ms = f->stages[0].timeout_ms;
}

T_TEST(stage_timeout)
{
	struct timeout_seen seen = { 0 };
	struct qpu_pipeline_config cfg = {
		.dev = device, .format = QPU_PIPELINE_GRAY8, .width = 8, .height = 8,
		.sink = timeout_sink, .sink_ctx = &seen,
	};
	struct qpu_pipeline_stage st = {
		.name = "t", .can = QPU_PIPELINE_CAN_QPU, .out_bytes = 4, .run = timeout_run,
		.ctx = &seen,
	};
	struct qpu_pipeline_stage_stats ss;
	struct qpu_pipeline *pl = qpu_pipeline_new(&cfg);

	T_CHECK(pl != NULL);
	if (!pl)
		return;
	T_EQ_U64(-EINVAL, qpu_pipeline_set_stage_timeout(pl, 0, 7));
	T_EQ_U64(0, qpu_pipeline_add_stage(pl, &st));
	T_EQ_U64(0, qpu_pipeline_set_stage_timeout(pl, 0, 7));
	run_gray(pl, 2);
	T_EQ_U64(7, seen.job_ms);
	T_EQ_U64(7, seen.frame_ms);
	T_EQ_U64(0, qpu_pipeline_get_stage_stats(pl, 0, &ss));
	T_EQ_U64(7, ss.timeout_ms);
	qpu_pipeline_free(pl);
}

/* Bad input is refused with a message, before any job. */
T_TEST(refusals)
{
	struct qpu_pipeline_config cfg = { .dev = NULL, .format = 99, .width = 8, .height = 8 };
	struct qpu_pipeline_preprocess pre = {
		.format = QPU_PIPELINE_I420, .width = 33, .height = 32, .out_width = 16,
		.out_height = 16, .std = { 1, 1, 1 },
	};
	struct qpu_pipeline_detect det = { .grid_w = 0 };
	char model[] = "/tmp/test-pipeline-XXXXXX", err[512];
	struct qpu_pipeline_stage st;
	struct qpu_pipeline_input in;
	struct qpu_pipeline *pl;
	int fd;

	errno = 0;
	T_CHECK(!qpu_pipeline_new(&cfg));
	T_EQ_U64(EINVAL, errno);
	T_CHECK(strstr(qpu_last_error(), "unsupported pixel format 99"));
	cfg.format = QPU_PIPELINE_NV12;
	cfg.width = 31;
	T_CHECK(!qpu_pipeline_new(&cfg));
	T_CHECK(strstr(qpu_last_error(), "31x8 is no nv12 frame size (1 to 8192 a side, even)"));
	cfg.width = 8;
	cfg.in_flight = QPU_PIPELINE_MAX_IN_FLIGHT + 1;
	T_CHECK(!qpu_pipeline_new(&cfg));
	cfg.in_flight = 0;
	T_EQ_U64(0, qpu_pipeline_frame_bytes(QPU_PIPELINE_I420, 7, 8));
	T_EQ_U64(0, qpu_pipeline_frame_bytes(QPU_PIPELINE_RGB24, 0, 8));
	T_EQ_U64(8 * 8 * 3, qpu_pipeline_frame_bytes(QPU_PIPELINE_RGB24, 8, 8));
	T_CHECK(!qpu_pipeline_format_name(0));

	T_EQ_U64(-EINVAL, qpu_pipeline_stage_preprocess(device, &pre, &st, err, sizeof(err)));
	T_CHECK(strstr(err, "33x32 is no i420 frame size (1 to 4096 a side; YUV 4:2:0 and gray8 need an even width and height)"));
	pre.width = 32;
	pre.format = 7;
	T_EQ_U64(-EINVAL, qpu_pipeline_stage_preprocess(device, &pre, &st, err, sizeof(err)));
	T_CHECK(strstr(err, "unsupported pixel format 7"));
	pre.format = QPU_PIPELINE_I420;
	pre.std[1] = 0;
	T_EQ_U64(-EINVAL, qpu_pipeline_stage_preprocess(device, &pre, &st, err, sizeof(err)));
	T_CHECK(strstr(err, "std[1] is 0"));
	pre.std[1] = 1;
	{
		struct qpu_pipeline_tensor t = {
			.format = QPU_PIPELINE_GRAY8, .width = 31, .height = 32,
			.pre = { .dst_width = 16, .dst_height = 16, .std = { 1, 1, 1 } },
		};

		T_EQ_U64(-EINVAL, qpu_pipeline_stage_tensor(device, &t, &st, err, sizeof(err)));
		T_CHECK(strstr(err, "31x32 is no gray8 frame size (1 to 4096 a side; YUV 4:2:0 and gray8 need an even width and height)"));
		t.width = 32;
		t.pre.crop = (struct qpu_rect){ .x = 20, .width = 20, .height = 32 };
		T_EQ_U64(-EINVAL, qpu_pipeline_stage_tensor(device, &t, &st, err, sizeof(err)));
		T_CHECK(strstr(err, "preprocess: crop"));
		t.pre.crop = (struct qpu_rect){ 0 };
		t.pre.type = QPU_TENSOR_U8;
		T_EQ_U64(-EINVAL, qpu_pipeline_stage_tensor(device, &t, &st, err, sizeof(err)));
		T_CHECK(strstr(err, "preprocess: scale 0: needs a finite value above 0"));
		t.pre.type = QPU_TENSOR_F32;
		t.pre.layout = 9;
		T_EQ_U64(-EINVAL, qpu_pipeline_stage_tensor(device, &t, &st, err, sizeof(err)));
		T_CHECK(strstr(err, "layout 9"));
		t.pre.layout = QPU_TENSOR_NCHW;
		t.format = QPU_PIPELINE_YUYV;
		t.width = 4097;
		T_EQ_U64(-EINVAL, qpu_pipeline_stage_tensor(device, &t, &st, err, sizeof(err)));
		T_CHECK(strstr(err, "4097x32 is no yuyv frame size (1 to 4096 a side, an even width)"));
		T_EQ_U64(-EINVAL, qpu_pipeline_stage_tensor(device, NULL, &st, err, sizeof(err)));
	}
	T_EQ_U64(-EINVAL, qpu_pipeline_stage_detect(&det, &st, err, sizeof(err)));
	T_CHECK(strstr(err, "detect: a 0x0 grid"));

	/* A model whose input is not what the previous stage gives. */
	fd = mkstemp(model);
	T_CHECK(fd >= 0);
	if (fd >= 0) {
		close(fd);
		T_EQ_U64(0, write_detector(model));
		T_EQ_U64(-EINVAL, qpu_pipeline_stage_infer(device, model, 16 * 16 * 3 * 4, 0, &st,
							   err, sizeof(err)));
		T_CHECK(strstr(err, "input image is float32 1x3x8x8 (768 bytes); the previous stage gives 3072 bytes"));
		/* the stages' timeout setters: a graph must be bound first */
		{
			struct qpu_nn_graph *g = qpu_nn_load(model, err, sizeof(err));

			T_CHECK(g != NULL);
			T_EQ_U64(-EINVAL, qpu_nn_set_timeout(g, 5));
			T_EQ_U64(0, qpu_nn_bind(g, NULL, 0));
			T_EQ_U64(0, qpu_nn_set_timeout(g, 5));
			qpu_nn_free(g);
		}
		unlink(model);
	}
	T_EQ_U64(-EINVAL, qpu_nn_set_timeout(NULL, 5));
	T_EQ_U64(-EINVAL, qpu_kernels_set_timeout(NULL, 5));
	T_CHECK(qpu_pipeline_stage_infer(device, "/nonexistent.qnn", 768, 0, &st, err,
					 sizeof(err)) < 0);

	/* A stage whose input is not the previous output; on the QPUs
	 * without a device; calls out of order. */
	cfg.format = QPU_PIPELINE_GRAY8;
	pl = qpu_pipeline_new(&cfg);
	T_CHECK(pl != NULL);
	if (!pl)
		return;
	st = (struct qpu_pipeline_stage){
		.name = "s", .can = QPU_PIPELINE_CAN_CPU, .in_bytes = 65, .out_bytes = 4,
		.run = clocked_run, .ctx = &(struct clocked){ 0 },
	};
	T_EQ_U64(-EINVAL, qpu_pipeline_add_stage(pl, &st));
	T_EQ_STR("pipeline: stage s takes 65 bytes, the frame gives 64",
		 qpu_pipeline_last_error(pl));
	st.in_bytes = 64;
	st.place = QPU_PIPELINE_QPU;
	T_EQ_U64(-EINVAL, qpu_pipeline_add_stage(pl, &st));
	T_CHECK(strstr(qpu_pipeline_last_error(pl), "cannot run on the QPUs: the pipeline has no device"));
	T_EQ_U64(-EINVAL, qpu_pipeline_start(pl));
	T_EQ_STR("pipeline: no stage", qpu_pipeline_last_error(pl));
	T_EQ_U64(-EINVAL, qpu_pipeline_acquire(pl, 0, &in));
	T_EQ_U64(-EINVAL, qpu_pipeline_submit(pl, QPU_PIPELINE_GRAY8, 8, 8, NULL));
	T_EQ_U64(-EINVAL, qpu_pipeline_finish(pl));
	st.place = QPU_PIPELINE_AUTO;
	T_EQ_U64(0, qpu_pipeline_add_stage(pl, &st));
	T_EQ_U64(0, qpu_pipeline_start(pl));
	T_EQ_U64(-EINVAL, qpu_pipeline_add_stage(pl, &st));
	T_EQ_U64(0, qpu_pipeline_acquire(pl, 0, &in));
	T_EQ_U64(-EINVAL, qpu_pipeline_acquire(pl, 0, &in));
	T_EQ_U64(0, qpu_pipeline_submit(pl, QPU_PIPELINE_GRAY8, 8, 8, NULL));
	T_EQ_U64(0, qpu_pipeline_finish(pl));
	T_EQ_U64(-EINVAL, qpu_pipeline_acquire(pl, 0, &in));
	qpu_pipeline_free(pl);
}

/* --- fences on device jobs ------------------------------------------------------------ */

#define FENCE_W		32
#define FENCE_H		16
#define FENCE_SIDE	8
#define FENCE_OUT	(FENCE_SIDE * FENCE_SIDE * 3 * 4)

/* An I420 FENCE_W x FENCE_H frame of a pattern into @bo, to an 8x8 float tensor. */
static struct qpu_preprocess fence_pre(struct qpu_bo *frame, struct qpu_bo *out)
{
	struct qpu_preprocess p = {
		.src = { .bo = frame, .format = QPU_PIX_I420, .width = FENCE_W, .height = FENCE_H,
			 .offset = { 0, FENCE_W * FENCE_H, FENCE_W * FENCE_H * 5 / 4 },
			 .stride = { FENCE_W, FENCE_W / 2, FENCE_W / 2 } },
		.dst_bo = out, .dst_width = FENCE_SIDE, .dst_height = FENCE_SIDE,
		.layout = QPU_TENSOR_NCHW, .type = QPU_TENSOR_F32,
		.colorspace = QPU_COLOR_BT601_FULL, .std = { 1, 1, 1 },
	};
	uint8_t *f = qpu_bo_get_map(frame);
	unsigned int i;

	for (i = 0; i < FENCE_W * FENCE_H * 3 / 2; i++)
		f[i] = (uint8_t)(i * 29 + (i >> 4));
	return p;
}

/* A job fence that signalled with an error (a faulting job's), or -1 where
 * the device takes no VideoCore IV program. */
static int failed_fence(struct faulty *f)
{
	enum qpu_status status;
	uint64_t gen = QPU_GEN_VC4;
	int fence = -1;

	qpu_dev_get_param(device, QPU_DEV_PARAM_GEN, &gen);
	if (gen != QPU_GEN_VC4)
		return -1;
	T_EQ_U64(-EIO, run_job(f, device, CODE_TMU, -1, &fence, 0, &status));
	T_EQ_U64(QPU_STATUS_FAULT, status);
	return fence;
}

static int emulated(void)
{
	return !strncmp(device_path, "emu", 3);
}

/* qpu_preprocess_submit(): returns before its job ends, the same tensor. */
T_TEST(fence_preprocess_submit)
{
	struct qpu_kernels *k = qpu_kernels_new(device);
	struct qpu_bo *frame = qpu_bo_new(device, FENCE_W * FENCE_H * 3 / 2);
	struct qpu_bo *a = qpu_bo_new(device, FENCE_OUT), *b = qpu_bo_new(device, FENCE_OUT);
	struct qpu_kernel_stats st;
	struct qpu_preprocess p;
	struct faulty f;
	int gate = -1, fence = -1, bad, pipefd[2];
	uint64_t one = 1;

	T_CHECK(k && frame && a && b);
	if (!k || !frame || !a || !b)
		return;
	faulty_init(&f, device);
	p = fence_pre(frame, a);
	T_EQ_U64(0, qpu_preprocess(k, 2, &p, NULL));
	p.dst_bo = b;
	/* On the emulator an eventfd of ours holds the job back: the call
	 * returns with the job queued, its fence unsignalled. */
	if (emulated())
		gate = eventfd(0, EFD_CLOEXEC);
	T_EQ_U64(0, qpu_preprocess_submit(k, 2, &p, gate, &fence));
	T_CHECK(fence >= 0);
	if (gate >= 0) {
		T_EQ_U64(-ETIME, qpu_fence_wait(fence, 0));
		T_EQ_U64(-ETIME, qpu_fence_wait(fence, 20));
	}
	/* one pending job a struct qpu_kernels: its uniforms are in its memory */
	T_EQ_U64(-EBUSY, qpu_preprocess(k, 2, &p, NULL));
	T_EQ_U64(-EBUSY, qpu_preprocess_submit(k, 2, &p, -1, NULL));
	T_CHECK(strstr(qpu_kernels_last_error(k), "pending"));
	if (gate >= 0)
		T_EQ_U64(sizeof(one), write(gate, &one, sizeof(one)));
	T_EQ_U64(0, qpu_kernels_finish(k, &st));
	T_EQ_U64(2, st.qpus);
	T_EQ_U64(0, qpu_fence_wait(fence, 0));
	T_EQ_U64(0, qpu_fence_wait(fence, -1));	/* not consumed */
	T_EQ_U64(0, memcmp(qpu_bo_get_map(a), qpu_bo_get_map(b), FENCE_OUT));
	T_EQ_U64(0, qpu_kernels_finish(k, NULL));	/* none pending */
	close(fence);
	if (gate >= 0)
		close(gate);

	/* an in-fence whose job failed: the job is canceled, the error passed on */
	fence = failed_fence(&f);
	if (fence >= 0) {
		int out = -1;

		T_EQ_U64(-EIO, qpu_fence_wait(fence, 0));
		T_EQ_U64(0, qpu_preprocess_submit(k, 2, &p, fence, &out));
		T_EQ_U64(-EIO, qpu_kernels_finish(k, NULL));
		T_CHECK(strstr(qpu_kernels_last_error(k), "canceled"));
		T_EQ_U64(-EIO, qpu_fence_wait(out, -1));
		close(out);
		close(fence);
	}

	/* bad fences: refused before any job */
	T_EQ_U64(-EINVAL, qpu_fence_wait(-1, 0));
	T_EQ_U64(-EINVAL, qpu_fence_wait(9999, 0));
	T_CHECK(pipe(pipefd) == 0);
	T_EQ_U64(-EINVAL, qpu_fence_wait(pipefd[0], 0));
	T_CHECK(strstr(qpu_last_error(), "no job fence"));
	T_EQ_U64(-EINVAL, qpu_preprocess_submit(k, 2, &p, pipefd[0], &fence));
	T_EQ_U64(-1, fence);
	T_CHECK(strstr(qpu_kernels_last_error(k), "no job fence"));
	T_EQ_U64(-EINVAL, qpu_preprocess_submit(k, 2, &p, 9999, NULL));
	T_EQ_U64(-EINVAL, qpu_preprocess_submit(NULL, 2, &p, -1, NULL));
	T_EQ_U64(-EINVAL, qpu_kernels_finish(NULL, NULL));
	/* a bad tensor: refused by the checks, nothing pending */
	p.dst_width = 0;
	bad = qpu_preprocess_submit(k, 2, &p, -1, NULL);
	T_EQ_U64(-EINVAL, bad);
	p.dst_width = FENCE_SIDE;
	T_EQ_U64(0, qpu_preprocess(k, 2, &p, NULL));
	close(pipefd[0]);
	close(pipefd[1]);
	faulty_fini(&f);
	qpu_bo_free(frame);
	qpu_bo_free(a);
	qpu_bo_free(b);
	qpu_kernels_free(k);
}

/* A MatMul of the 192 floats of a tensor by a constant 192 x 7: its A is the input. */
static int write_matmul(const char *path)
{
	static float w[FENCE_OUT / 4 * 7];
	int64_t xd[2] = { 1, FENCE_OUT / 4 }, wd[2] = { FENCE_OUT / 4, 7 };
	struct nb q = { 0 };
	uint32_t x, tw, y, in[2];
	unsigned int i;

	for (i = 0; i < FENCE_OUT / 4 * 7; i++)
		w[i] = (float)(i % 13) / 13.0f - 0.5f;
	x = nb_tensor(&q, "x", QPU_NN_FLOAT32, 2, xd, NULL, 0);
	tw = nb_tensor(&q, "w", QPU_NN_FLOAT32, 2, wd, w, sizeof(w));
	y = nb_value(&q, "y");
	in[0] = x;
	in[1] = tw;
	nb_node(&q, "mm", "MatMul", "", 2, in, 1, &y);
	return nb_save(&q, 13, x, y, path);
}

/* The graph of @model bound to @dev (every node it can on the QPUs). */
static struct qpu_nn_graph *fence_graph(const char *model, struct qpu_dev *dev)
{
	char err[256];
	struct qpu_nn_graph *g = qpu_nn_load(model, err, sizeof(err));

	T_CHECK(g != NULL);
	if (g && qpu_nn_bind(g, dev, QPU_NN_BIND_QPU_ALL)) {
		T_CHECK(0);
		qpu_nn_free(g);
		g = NULL;
	}
	return g;
}

/* The graph's output 0 into @out. */
static void fence_output(struct qpu_nn_graph *g, float *out, size_t bytes)
{
	struct qpu_nn_tensor_info ti;

	T_EQ_U64(0, qpu_nn_output(g, 0, &ti));
	T_EQ_U64(bytes, ti.bytes);
	memcpy(out, ti.data, bytes < ti.bytes ? bytes : ti.bytes);
}

/* Opens an eventfd gate 30 ms after it starts. */
static void *open_gate(void *arg)
{
	struct timespec ts = { 0, 30000000 };
	uint64_t one = 1;

	nanosleep(&ts, NULL);
	if (write(*(int *)arg, &one, sizeof(one)) != sizeof(one))
		abort();
	return NULL;
}

/*
 * qpu_nn_run_input() on @model's graph: the input where pre-processing
 * wrote it, after its fence. On the emulator the pre-processing job waits
 * on a gate that another thread opens 30 ms later, so the graph's first
 * job is queued behind a job not yet run (or its wrapper, packing the
 * input on the host, waits on the CPU): the outputs are still the waited
 * run's, bit for bit.
 */
static void fence_nn_case(const char *model, size_t out_floats)
{
	struct qpu_kernels *k = qpu_kernels_new(device);
	struct qpu_bo *frame = qpu_bo_new(device, FENCE_W * FENCE_H * 3 / 2);
	struct qpu_bo *t = qpu_bo_new(device, FENCE_OUT), *small = qpu_bo_new(device, 64);
	float *ref = calloc(3 * out_floats, sizeof(float)), *got = ref + out_floats;
	float *cpu = got + out_floats;
	struct qpu_nn_graph *g = fence_graph(model, device), *c = fence_graph(model, NULL);
	struct qpu_nn_tensor_info ti;
	struct qpu_preprocess p;
	struct faulty f;
	pthread_t gate_thread;
	unsigned int i, far = 0;
	int fence = -1, gate = -1, pipefd[2] = { -1, -1 };

	T_CHECK(k && frame && t && small && ref);
	faulty_init(&f, device);
	if (!k || !frame || !t || !small || !ref || !g || !c)
		goto out;
	p = fence_pre(frame, t);

	/* waited: the tensor copied into the arena */
	T_EQ_U64(0, qpu_preprocess(k, 2, &p, NULL));
	T_EQ_U64(0, qpu_nn_input(g, 0, &ti));
	memcpy(ti.data, qpu_bo_get_map(t), ti.bytes);
	T_EQ_U64(0, qpu_nn_run(g));
	fence_output(g, ref, out_floats * 4);

	/* chained: the arena's input is garbage, the buffer is read in place */
	memset(ti.data, 0x7f, ti.bytes);
	memset(qpu_bo_get_map(t), 0, FENCE_OUT);
	if (emulated()) {
		gate = eventfd(0, EFD_CLOEXEC);
		T_EQ_U64(0, pthread_create(&gate_thread, NULL, open_gate, &gate));
	}
	T_EQ_U64(0, qpu_preprocess_submit(k, 2, &p, gate, &fence));
	T_EQ_U64(0, qpu_nn_run_input(g, t, 0, fence));
	if (gate >= 0) {
		pthread_join(gate_thread, NULL);
		close(gate);
	}
	T_EQ_U64(0, qpu_kernels_finish(k, NULL));
	fence_output(g, got, out_floats * 4);
	T_EQ_U64(0, memcmp(ref, got, out_floats * 4));
	T_EQ_U64(0x7f7f7f7f, ((uint32_t *)ti.data)[0]);	/* not copied */

	/* a graph on the CPU alone waits for the fence on the CPU */
	T_EQ_U64(0, qpu_nn_run_input(c, t, 0, fence));
	fence_output(c, cpu, out_floats * 4);
	for (i = 0; i < out_floats; i++)
		far += cpu[i] - ref[i] > 1e-4f || ref[i] - cpu[i] > 1e-4f;
	T_EQ_U64(0, far);
	close(fence);
	fence = -1;
	/* no fence, no buffer: plain qpu_nn_run() on the arena */
	memcpy(ti.data, qpu_bo_get_map(t), ti.bytes);
	T_EQ_U64(0, qpu_nn_run_input(g, NULL, 0, -1));
	fence_output(g, got, out_floats * 4);
	T_EQ_U64(0, memcmp(ref, got, out_floats * 4));

	/* a fence whose job failed: nothing runs on a missing input */
	fence = failed_fence(&f);
	if (fence >= 0) {
		T_EQ_U64(-ECANCELED, qpu_nn_run_input(g, t, 0, fence));
		T_CHECK(strstr(qpu_nn_last_error(g), "did not end well"));
		T_EQ_U64(-ECANCELED, qpu_nn_run_input(c, t, 0, fence));
		close(fence);
	}

	/* refusals */
	T_CHECK(pipe(pipefd) == 0);
	T_EQ_U64(-EINVAL, qpu_nn_run_input(g, t, 0, pipefd[0]));
	T_CHECK(strstr(qpu_nn_last_error(g), "no job fence"));
	T_EQ_U64(-EINVAL, qpu_nn_run_input(g, small, qpu_bo_get_size(small) - 4, -1));
	T_CHECK(strstr(qpu_nn_last_error(g), "do not fit"));
	T_EQ_U64(-EINVAL, qpu_nn_run_input(g, t, 2, -1));
	T_EQ_U64(-EINVAL, qpu_nn_run_input(g, t, qpu_bo_get_size(t) + 4, -1));
	T_EQ_U64(-EINVAL, qpu_nn_run_input(NULL, t, 0, -1));
	close(pipefd[0]);
	close(pipefd[1]);
out:
	qpu_nn_free(g);
	qpu_nn_free(c);
	faulty_fini(&f);
	qpu_bo_free(frame);
	qpu_bo_free(t);
	qpu_bo_free(small);
	qpu_kernels_free(k);
	free(ref);
}

/* A 1x1 convolution (sgemm's B is the input) and a MatMul (its A, packed on the host). */
T_TEST(fence_nn_run_input)
{
	char conv[] = "/tmp/test-pipeline-XXXXXX", mm[] = "/tmp/test-pipeline-XXXXXX";
	int fd;

	if (!detector_model(conv)) {
		fence_nn_case(conv, 7 * FENCE_SIDE * FENCE_SIDE);
		unlink(conv);
	}
	fd = mkstemp(mm);
	T_CHECK(fd >= 0);
	if (fd < 0)
		return;
	close(fd);
	T_EQ_U64(0, write_matmul(mm));
	fence_nn_case(mm, 7);
	unlink(mm);
}

/* The stages' "chained" counts of the pipeline's JSON, @n of them. */
static void chained_counts(struct qpu_pipeline *pl, unsigned long long *c, unsigned int n)
{
	char json[8192];
	const char *at = json;
	unsigned int i;

	T_CHECK(qpu_pipeline_stats_json(pl, json, sizeof(json)) > 0);
	for (i = 0; i < n; i++) {
		at = strstr(at, "\"chained\":");
		T_CHECK(at != NULL);
		if (!at)
			return;
		at += strlen("\"chained\":");
		c[i] = strtoull(at, NULL, 10);
	}
}

/*
 * Pre-processing and inference chained by a fence in the pipeline: every
 * frame's pre-processing job submitted only and inference queued behind it;
 * the detections those of the same pipeline with the waits
 * (QPU_PIPELINE_NO_CHAIN).
 */
T_TEST(fence_chained_pipeline)
{
	char model[] = "/tmp/test-pipeline-XXXXXX";
	struct detect_seen d[2];
	unsigned int pass;

	if (detector_model(model))
		return;
	memset(d, 0, sizeof(d));
	for (pass = 0; pass < 2; pass++) {
		unsigned long long chained[3] = { 0, 0, 0 };
		struct qpu_pipeline_input in;
		struct qpu_pipeline *pl;
		unsigned int i;

		if (pass)
			setenv("QPU_PIPELINE_NO_CHAIN", "1", 1);
		pl = detector_start(device, model, &d[pass], 2);
		if (!pl)
			break;
		unsetenv("QPU_PIPELINE_NO_CHAIN");
		for (i = 0; i < 6; i++) {
			T_EQ_U64(0, qpu_pipeline_acquire(pl, 60000, &in));
			memset(in.data, 60 + 10 * i, in.bytes);
			T_EQ_U64(0, qpu_pipeline_submit(pl, QPU_PIPELINE_I420, 32, 16, NULL));
		}
		T_EQ_U64(0, qpu_pipeline_finish(pl));
		chained_counts(pl, chained, 3);
		T_EQ_U64(pass ? 0 : 6, chained[0]);
		T_EQ_U64(pass ? 0 : 6, chained[1]);
		T_EQ_U64(0, chained[2]);
		qpu_pipeline_free(pl);
	}
	T_EQ_U64(d[1].candidates, d[0].candidates);
	T_EQ_U64(d[1].count, d[0].count);
	T_EQ_U64(0, memcmp(&d[0].best, &d[1].best, sizeof(d[0].best)));
	T_CHECK(d[0].count > 0);
	unlink(model);
}

T_MAIN(.setup = t_device_open, .teardown = t_device_close, .options = device_options)
