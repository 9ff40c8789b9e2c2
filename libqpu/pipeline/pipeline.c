// SPDX-License-Identifier: MIT
/*
 * The pipeline's engine: slots allocated once, one thread per stage, an
 * eventfd fence per slot and stage, recovery of failed device jobs on the
 * CPU, and the telemetry sampled beside the runs.
 *
 * Frames go through the slots in submit order and every stage takes them in
 * that order, so a stage waits only on the fence of the one slot it runs
 * next: no queue, no lock on the data path (the lock guards the counters).
 * The stop travels down the same fences as a frame marked "stop", so every
 * frame submitted before it reaches the sink first.
 */

#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "pipeline/pipeline_internal.h"
#include "runtime/runtime.h"

#define PL_DEFAULT_IN_FLIGHT	3
#define PL_DEFAULT_WINDOW	4096
#define PL_DEFAULT_TELEMETRY_MS	100
#define PL_MAX_SIDE		8192
/* A stage whose QPU runs failed this many times in a row runs the next
 * PL_DEMOTE_FRAMES frames on the CPU, so a broken device costs one timeout
 * per that many frames, not one per frame. */
#define PL_DEMOTE_AFTER		3
#define PL_DEMOTE_FRAMES	32
/* Slowdown warnings: a run this much slower than the stage's usual time
 * (the median of its first PL_BASE_RUNS QPU runs), with the clock below
 * PL_CLOCK_FALL of the clock those runs saw. */
#define PL_BASE_RUNS		8
#define PL_SLOW_FACTOR		1.5
#define PL_CLOCK_FALL		0.9
#define PL_WARN_EVERY		100
/* Good QPU runs a stage's derived timeout looks back on (the longest). */
#define PL_TIMEOUT_WINDOW	32

struct pl_buf {
	struct qpu_bo *bo;
	void *data;
	size_t bytes;
};

/* A neutral chroma sample: U = V = 128 give R = G = B = Y. */
#define PL_CHROMA_NEUTRAL	128

struct pl_slot {
	struct qpu_pipeline_frame frame;
	/* fence[s]: stage s may run; fence[0] is signalled by submit. */
	int fence[QPU_PIPELINE_MAX_STAGES];
	/* Signalled by the last stage when the frame reached the sink. */
	int free_fence;
	int stop;
	int refused;
	uint64_t submit_ns;
	char error[256];
	/* The caller's buffer of qpu_pipeline_submit_bo(), or NULL. */
	struct qpu_bo *user_bo;
	/*
	 * Pre-processing chained to inference ("Fences on device jobs"):
	 * @dev_fence, its QPU job's out-fence (-1: its output is there
	 * already), set before inference's fence; @chain_fence, signalled once
	 * per frame when its result is final (@chain_redo: remade on the CPU
	 * after the job failed, so inference runs again).
	 */
	int dev_fence;
	int chain_fence;
	int chain_redo;
	struct pl_buf in;
	struct pl_buf out[QPU_PIPELINE_MAX_STAGES];
};

struct pl_stage {
	struct qpu_pipeline *pl;
	unsigned int index;
	struct qpu_pipeline_stage st;
	char name[32];
	char why[160];
	enum qpu_pipeline_place place;
	pthread_t thread;
	int running;
	/* Owned by the stage's thread. */
	unsigned int consecutive_failures;
	uint64_t cpu_until;
	uint64_t fail_start_ns;
	uint64_t base[PL_BASE_RUNS];
	unsigned int base_count;
	uint64_t base_ns;
	uint64_t base_clock_hz;
	uint64_t good[PL_TIMEOUT_WINDOW];
	unsigned int good_count;
	/* Set before start or under the pipeline's lock; read by the thread. */
	unsigned int user_timeout_ms;
	/* Chained by a fence to the next stage (pre-processing) or the last. */
	int chain_out, chain_in;
	/* The run's message, copied into the slot's at the end of the run. */
	char err[256];
	/* Guarded by the pipeline's lock. */
	struct qpu_pipeline_stage_stats stats;
	uint64_t chained;
	struct pl_window window;
};

struct qpu_pipeline {
	struct qpu_pipeline_config cfg;
	size_t frame_bytes;
	struct pl_stage stages[QPU_PIPELINE_MAX_STAGES];
	unsigned int stage_count;
	struct pl_slot *slots;
	unsigned int slot_count;
	int started;
	int finished;
	int acquired;
	uint64_t next_index;
	char err[256];

	/* A device is not thread-safe (qpu.h): QPU runs take turns. */
	pthread_mutex_t dev_lock;
	pthread_mutex_t lock;
	struct qpu_pipeline_stats stats;
	struct pl_window window;
	uint64_t telemetry_ns;
};

uint64_t pl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void pl_err(char *err, size_t size, const char *fmt, ...)
{
	va_list ap;

	if (!err || !size)
		return;
	va_start(ap, fmt);
	vsnprintf(err, size, fmt, ap);
	va_end(ap);
}

int pl_job_failed(struct qpu_pipeline_job *job, int ret, const char *msg)
{
	static const enum qpu_status named[] = {
		QPU_STATUS_TIMEOUT, QPU_STATUS_FAULT, QPU_STATUS_DEADLOCK, QPU_STATUS_CANCELED,
	};
	unsigned int i;

	pl_err(job->error, job->error_size, "%s", msg && msg[0] ? msg : strerror(-ret));
	if (ret != -EIO)
		return ret;
	/* the kernel wrappers' -EIO message names the job's status */
	job->status = QPU_STATUS_CANCELED;
	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (strstr(job->error, qpu_job_status_str(named[i])))
			job->status = named[i];
	return ret;
}

void pl_frame_planes(enum qpu_pipeline_format format, unsigned int width, unsigned int height,
		     size_t offset[3], size_t stride[3])
{
	size_t px = (size_t)width * height;

	memset(offset, 0, 3 * sizeof(*offset));
	memset(stride, 0, 3 * sizeof(*stride));
	stride[0] = width;
	switch (format) {
	case QPU_PIPELINE_I420:
		offset[1] = px;
		offset[2] = px + px / 4;
		stride[1] = stride[2] = width / 2;
		break;
	case QPU_PIPELINE_NV12:
	case QPU_PIPELINE_GRAY8:
		offset[1] = px;
		stride[1] = width;
		break;
	case QPU_PIPELINE_RGB24:
		stride[0] = (size_t)width * 3;
		break;
	case QPU_PIPELINE_YUYV:
		stride[0] = (size_t)width * 2;
		break;
	}
}

size_t pl_frame_alloc_bytes(enum qpu_pipeline_format format, unsigned int width,
			    unsigned int height)
{
	size_t bytes = qpu_pipeline_frame_bytes(format, width, height);

	if (format == QPU_PIPELINE_GRAY8 && !((width | height) & 1))
		bytes += (size_t)width * height / 2;
	return bytes;
}

static int pl_fail(struct qpu_pipeline *pl, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int pl_fail(struct qpu_pipeline *pl, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(pl->err, sizeof(pl->err), fmt, ap);
	va_end(ap);
	return ret;
}

QPU_API const char *qpu_pipeline_format_name(enum qpu_pipeline_format format)
{
	switch (format) {
	case QPU_PIPELINE_I420:
		return "i420";
	case QPU_PIPELINE_NV12:
		return "nv12";
	case QPU_PIPELINE_RGB24:
		return "rgb24";
	case QPU_PIPELINE_GRAY8:
		return "gray8";
	case QPU_PIPELINE_YUYV:
		return "yuyv";
	}
	return NULL;
}

QPU_API const char *qpu_pipeline_place_name(enum qpu_pipeline_place place)
{
	switch (place) {
	case QPU_PIPELINE_AUTO:
		return "auto";
	case QPU_PIPELINE_QPU:
		return "qpu";
	case QPU_PIPELINE_CPU:
		return "cpu";
	}
	return NULL;
}

QPU_API size_t qpu_pipeline_frame_bytes(enum qpu_pipeline_format format,
					unsigned int width, unsigned int height)
{
	size_t px = (size_t)width * height;

	if (!width || !height || width > PL_MAX_SIDE || height > PL_MAX_SIDE)
		return 0;
	switch (format) {
	case QPU_PIPELINE_I420:
	case QPU_PIPELINE_NV12:
		if ((width | height) & 1)
			return 0;
		return px + px / 2;
	case QPU_PIPELINE_RGB24:
		return px * 3;
	case QPU_PIPELINE_GRAY8:
		return px;
	case QPU_PIPELINE_YUYV:
		return width & 1 ? 0 : px * 2;
	}
	return 0;
}

QPU_API struct qpu_pipeline *qpu_pipeline_new(const struct qpu_pipeline_config *config)
{
	struct qpu_pipeline *pl;
	const char *fmt;

	if (!config) {
		errno = EINVAL;
		return NULL;
	}
	fmt = qpu_pipeline_format_name(config->format);
	if (!fmt) {
		errno = -qpu_fail(-EINVAL, "pipeline: unsupported pixel format %d (i420, nv12, rgb24, gray8, yuyv)",
				  (int)config->format);
		return NULL;
	}
	if (!qpu_pipeline_frame_bytes(config->format, config->width, config->height)) {
		errno = -qpu_fail(-EINVAL, "pipeline: %ux%u is no %s frame size (1 to %u a side%s)",
				  config->width, config->height, fmt, PL_MAX_SIDE,
				  config->format == QPU_PIPELINE_I420 ||
				  config->format == QPU_PIPELINE_NV12 ? ", even" :
				  config->format == QPU_PIPELINE_YUYV ? ", an even width" : "");
		return NULL;
	}
	if (config->in_flight > QPU_PIPELINE_MAX_IN_FLIGHT) {
		errno = -qpu_fail(-EINVAL, "pipeline: %u frames in flight, at most %u",
				  config->in_flight, QPU_PIPELINE_MAX_IN_FLIGHT);
		return NULL;
	}
	pl = calloc(1, sizeof(*pl));
	if (!pl)
		return NULL;
	pl->cfg = *config;
	if (!pl->cfg.in_flight)
		pl->cfg.in_flight = PL_DEFAULT_IN_FLIGHT;
	if (!pl->cfg.stats_window)
		pl->cfg.stats_window = PL_DEFAULT_WINDOW;
	if (!pl->cfg.telemetry_ms)
		pl->cfg.telemetry_ms = PL_DEFAULT_TELEMETRY_MS;
	pl->frame_bytes = qpu_pipeline_frame_bytes(config->format, config->width, config->height);
	pthread_mutex_init(&pl->lock, NULL);
	pthread_mutex_init(&pl->dev_lock, NULL);
	return pl;
}

QPU_API const char *qpu_pipeline_last_error(const struct qpu_pipeline *pipeline)
{
	return pipeline ? pipeline->err : "";
}

static void stage_fini(struct qpu_pipeline_stage *st)
{
	if (st->fini)
		st->fini(st->ctx);
	st->fini = NULL;
}

QPU_API int qpu_pipeline_add_stage(struct qpu_pipeline *pl, const struct qpu_pipeline_stage *st)
{
	struct qpu_pipeline_stage copy = *st;
	size_t prev;
	struct pl_stage *s;

	pl->err[0] = 0;
	if (pl->started || pl->stage_count == QPU_PIPELINE_MAX_STAGES) {
		stage_fini(&copy);
		return pl_fail(pl, -EINVAL, "pipeline: %s", pl->started ? "started already" :
			       "too many stages");
	}
	if (!st->name || !st->run || !st->out_bytes || !(st->can & (QPU_PIPELINE_CAN_QPU |
								     QPU_PIPELINE_CAN_CPU))) {
		stage_fini(&copy);
		return pl_fail(pl, -EINVAL, "pipeline: a stage needs a name, a run, an output and a place it can run");
	}
	prev = pl->stage_count ? pl->stages[pl->stage_count - 1].st.out_bytes : pl->frame_bytes;
	if (st->in_bytes && st->in_bytes != prev) {
		stage_fini(&copy);
		return pl_fail(pl, -EINVAL, "pipeline: stage %s takes %zu bytes, %s gives %zu",
			       st->name, st->in_bytes,
			       pl->stage_count ? pl->stages[pl->stage_count - 1].name : "the frame",
			       prev);
	}
	if (st->place == QPU_PIPELINE_QPU && (!pl->cfg.dev || !(st->can & QPU_PIPELINE_CAN_QPU))) {
		stage_fini(&copy);
		return pl_fail(pl, -EINVAL, "pipeline: stage %s cannot run on the QPUs: %s", st->name,
			       !pl->cfg.dev ? "the pipeline has no device" :
			       st->why ? st->why : "it has no QPU path");
	}
	if (st->place == QPU_PIPELINE_CPU && !(st->can & QPU_PIPELINE_CAN_CPU)) {
		stage_fini(&copy);
		return pl_fail(pl, -EINVAL, "pipeline: stage %s has no CPU path", st->name);
	}
	s = &pl->stages[pl->stage_count];
	memset(s, 0, sizeof(*s));
	s->pl = pl;
	s->index = pl->stage_count;
	s->st = copy;
	snprintf(s->name, sizeof(s->name), "%s", st->name);
	s->st.name = s->name;
	if (st->place == QPU_PIPELINE_CPU) {
		s->place = QPU_PIPELINE_CPU;
		snprintf(s->why, sizeof(s->why), "placed on the CPU by the caller");
	} else if (st->place == QPU_PIPELINE_QPU) {
		s->place = QPU_PIPELINE_QPU;
		snprintf(s->why, sizeof(s->why), "placed on the QPUs by the caller");
	} else if (!pl->cfg.dev) {
		s->place = QPU_PIPELINE_CPU;
		snprintf(s->why, sizeof(s->why), "no device: the CPU backend");
	} else if (!(st->can & QPU_PIPELINE_CAN_QPU)) {
		s->place = QPU_PIPELINE_CPU;
		snprintf(s->why, sizeof(s->why), "%s", st->why ? st->why : "no QPU path");
	} else {
		s->place = QPU_PIPELINE_QPU;
		snprintf(s->why, sizeof(s->why), "the device's QPUs%s",
			 st->can & QPU_PIPELINE_CAN_CPU ? ", the CPU on a failed job" : "");
	}
	s->st.why = s->why;
	s->stats.name = s->name;
	s->stats.why = s->why;
	s->stats.place = s->place;
	pl->stage_count++;
	return 0;
}

static int buf_alloc(struct qpu_pipeline *pl, struct pl_buf *b, size_t bytes)
{
	b->bytes = bytes;
	if (pl->cfg.dev) {
		b->bo = qpu_bo_new(pl->cfg.dev, bytes);
		if (!b->bo)
			return pl_fail(pl, -errno, "pipeline: a %zu-byte device buffer: %s", bytes,
				       strerror(errno));
		b->data = qpu_bo_get_map(b->bo);
		return 0;
	}
	b->data = calloc(1, bytes);
	return b->data ? 0 : pl_fail(pl, -ENOMEM, "pipeline: out of memory");
}

static void buf_free(struct pl_buf *b)
{
	if (b->bo)
		qpu_bo_free(b->bo);
	else
		free(b->data);
	b->bo = NULL;
	b->data = NULL;
}

static void fence_signal(int fd)
{
	uint64_t one = 1;

	/* An eventfd's write of 1 cannot fail short of an overflow. */
	if (write(fd, &one, sizeof(one)) != sizeof(one))
		abort();
}

/* Waits for @fd to be signalled and consumes it: 0, or -ETIME. */
static int fence_wait(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	uint64_t v;
	int ret;

	do
		ret = poll(&p, 1, timeout_ms);
	while (ret < 0 && errno == EINTR);
	if (ret == 0)
		return -ETIME;
	if (ret < 0 || read(fd, &v, sizeof(v)) != sizeof(v))
		return -errno;
	return 0;
}

static void sample_telemetry(struct qpu_pipeline *pl, struct qpu_pipeline_telemetry *now)
{
	struct qpu_pipeline_telemetry t = { .source = "none" };
	uint64_t ns = pl_now_ns();
	int sample;

	pthread_mutex_lock(&pl->lock);
	sample = !pl->stats.telemetry_samples ||
		 ns - pl->telemetry_ns >= (uint64_t)pl->cfg.telemetry_ms * 1000000ull;
	if (sample)
		pl->telemetry_ns = ns;
	pthread_mutex_unlock(&pl->lock);
	if (sample) {
		if (pl->cfg.telemetry) {
			t.source = "user";
			if (pl->cfg.telemetry(pl->cfg.telemetry_ctx, &t))
				t.flags = 0;
		} else {
			pl_telemetry_default(pl->cfg.dev, &t);
		}
	}
	pthread_mutex_lock(&pl->lock);
	if (sample) {
		pl->stats.telemetry = t;
		pl->stats.telemetry_samples++;
	}
	*now = pl->stats.telemetry;
	pthread_mutex_unlock(&pl->lock);
}

static void warn(struct qpu_pipeline *pl, const char *msg)
{
	if (pl->cfg.warn)
		pl->cfg.warn(pl->cfg.warn_ctx, msg);
	else
		fprintf(stderr, "qpu pipeline: warning: %s\n", msg);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A successful QPU run's time against the stage's usual one and the clock. */
static void check_slowdown(struct pl_stage *s, uint64_t ns, const struct qpu_pipeline_telemetry *t)
{
	struct qpu_pipeline *pl = s->pl;
	uint64_t n;
	char msg[256];

	if (!(t->flags & QPU_PIPELINE_TELEMETRY_CLOCK))
		return;
	if (s->base_count < PL_BASE_RUNS) {
		s->base[s->base_count++] = ns;
		if (t->clock_hz > s->base_clock_hz)
			s->base_clock_hz = t->clock_hz;
		if (s->base_count == PL_BASE_RUNS) {
			qsort(s->base, PL_BASE_RUNS, sizeof(s->base[0]), cmp_u64);
			s->base_ns = s->base[PL_BASE_RUNS / 2];
		}
		return;
	}
	if ((double)ns <= PL_SLOW_FACTOR * (double)s->base_ns ||
	    (double)t->clock_hz >= PL_CLOCK_FALL * (double)s->base_clock_hz)
		return;
	pthread_mutex_lock(&pl->lock);
	n = s->stats.slowdowns++;
	if (n % PL_WARN_EVERY == 0)
		pl->stats.warnings++;
	pthread_mutex_unlock(&pl->lock);
	if (n % PL_WARN_EVERY)
		return;
	snprintf(msg, sizeof(msg),
		 "stage %s took %.2f ms, %.1fx its usual %.2f ms, with the V3D clock at %.0f MHz, down from %.0f MHz%s",
		 s->name, ns / 1e6, (double)ns / (double)s->base_ns, s->base_ns / 1e6,
		 t->clock_hz / 1e6, s->base_clock_hz / 1e6,
		 t->flags & QPU_PIPELINE_TELEMETRY_THROTTLED && t->throttled ? " (throttled)" : "");
	warn(pl, msg);
}

static void count_status(struct qpu_pipeline_stage_stats *st, enum qpu_status status)
{
	if (status == QPU_STATUS_TIMEOUT)
		st->timeouts++;
	else if (status == QPU_STATUS_FAULT)
		st->faults++;
	else
		st->canceled++;
}

/* @s's run of @job, inference's after @fence (-1: none). */
static int run_stage(struct pl_stage *s, struct qpu_pipeline_job *job, int fence)
{
	return s->chain_in ? pl_infer_run(s->st.ctx, job, fence) : s->st.run(s->st.ctx, job);
}

/* Runs @job, holding the device while it runs on the QPUs. */
static int run_on(struct pl_stage *s, struct qpu_pipeline_job *job, int fence)
{
	int ret;

	if (job->place != QPU_PIPELINE_QPU)
		return run_stage(s, job, fence);
	pthread_mutex_lock(&s->pl->dev_lock);
	ret = run_stage(s, job, fence);
	pthread_mutex_unlock(&s->pl->dev_lock);
	return ret;
}

/*
 * Pre-processing's QPU job submitted only: its out-fence to the slot,
 * inference started on it, then the job's end awaited here (no device
 * lock held), its result taken under the lock. Returns the run's result
 * as run_on() would, or 1 when nothing was submitted (run it as usual);
 * *@handed tells that the next stage was started, *@end when the job ended
 * (not when the lock came back: inference holds it meanwhile).
 */
static int run_chained(struct pl_stage *s, struct pl_slot *slot, struct qpu_pipeline_job *job,
		       int *handed, uint64_t *end)
{
	struct qpu_pipeline *pl = s->pl;
	int fence = -1, ret;

	pthread_mutex_lock(&pl->dev_lock);
	ret = pl_pre_submit(s->st.ctx, job, &fence);
	pthread_mutex_unlock(&pl->dev_lock);
	if (ret || fence < 0) {
		if (fence >= 0)
			close(fence);
		return ret ? ret : 1;
	}
	slot->dev_fence = fence;
	*handed = 1;
	fence_signal(slot->fence[s->index + 1]);
	pthread_mutex_lock(&pl->lock);
	s->chained++;
	pthread_mutex_unlock(&pl->lock);
	qpu_fence_wait(fence, -1);	/* how it ended: pl_pre_finish() says */
	*end = pl_now_ns();
	pthread_mutex_lock(&pl->dev_lock);
	ret = pl_pre_finish(s->st.ctx, job);
	pthread_mutex_unlock(&pl->dev_lock);
	return ret;
}

/* Waits until pre-processing's result for @slot is final; lets its fence go. */
static void chain_end(struct pl_slot *slot)
{
	if (fence_wait(slot->chain_fence, -1))
		abort();	/* an eventfd poll cannot fail */
	if (slot->dev_fence >= 0)
		close(slot->dev_fence);
	slot->dev_fence = -1;
}

/* Pre-processing's result for @slot is final (@redo: remade on the CPU). */
static void chain_signal(struct pl_slot *slot, int redo)
{
	slot->chain_redo = redo;
	fence_signal(slot->chain_fence);
}

/*
 * The job timeout of @s's next QPU run (qpu_pipeline_set_stage_timeout()):
 * the user's, else 0 (the device's) until QPU_PIPELINE_TIMEOUT_RUNS good
 * runs were seen, else the factor times the longest of the last ones, with
 * the floor.
 */
static unsigned int stage_timeout_ms(struct pl_stage *s)
{
	unsigned int i, n = s->good_count < PL_TIMEOUT_WINDOW ? s->good_count : PL_TIMEOUT_WINDOW;
	uint64_t longest = 0, ms;

	pthread_mutex_lock(&s->pl->lock);
	ms = s->user_timeout_ms;
	pthread_mutex_unlock(&s->pl->lock);
	if (ms || s->good_count < QPU_PIPELINE_TIMEOUT_RUNS)
		return (unsigned int)ms;
	for (i = 0; i < n; i++)
		longest = s->good[i] > longest ? s->good[i] : longest;
	ms = (QPU_PIPELINE_TIMEOUT_FACTOR * longest + 999999) / 1000000;
	return ms < QPU_PIPELINE_TIMEOUT_FLOOR_MS ? QPU_PIPELINE_TIMEOUT_FLOOR_MS :
	       ms > UINT32_MAX ? UINT32_MAX : (unsigned int)ms;
}

/* A QPU run's errors that the CPU path may not share: its limits, not the frame's. */
static int unsupported(int ret)
{
	return ret == -EINVAL || ret == -ENOTSUP || ret == -ENOSPC;
}

/*
 * One stage's work on one slot's frame, with recovery on the CPU. Returns
 * 1 when it started the next stage itself (a chained pre-processing).
 */
static int stage_run(struct pl_stage *s, struct pl_slot *slot)
{
	struct qpu_pipeline *pl = s->pl;
	struct pl_buf *in = s->index ? &slot->out[s->index - 1] : &slot->in;
	struct qpu_pipeline_stage_time *time = &slot->frame.stages[s->index];
	struct qpu_pipeline_telemetry t;
	struct qpu_pipeline_job job = {
		.frame = &slot->frame, .dev = pl->cfg.dev,
		.in = in->data, .in_bytes = in->bytes, .in_bo = in->bo,
		.out = slot->out[s->index].data, .out_bytes = slot->out[s->index].bytes,
		.out_bo = slot->out[s->index].bo, .error = s->err,
		.error_size = sizeof(s->err),
	};
	uint64_t t0, t1, model = 0, recovery = 0, back = 0, end = 0;
	int ret, recovered = 0, failed_qpu, hang, handed = 0, fence = -1;

	if (s->chain_in) {
		/* the frame's pre-processing job, or its result already final */
		fence = slot->dev_fence;
		if (fence < 0) {
			chain_end(slot);
			if (slot->frame.status)
				return 0;
		}
	}

	if (!s->index && slot->user_bo) {
		job.in_bo = slot->user_bo;
		job.in = qpu_bo_get_map(slot->user_bo);
		job.in_bytes = qpu_bo_get_size(slot->user_bo);
	}
	sample_telemetry(pl, &t);
	job.place = s->place;
	if (job.place == QPU_PIPELINE_QPU && slot->frame.index < s->cpu_until)
		job.place = QPU_PIPELINE_CPU;
	if (job.place == QPU_PIPELINE_QPU)
		job.timeout_ms = stage_timeout_ms(s);
	s->err[0] = 0;
	t0 = pl_now_ns();
	ret = 1;
	if (s->chain_out && job.place == QPU_PIPELINE_QPU)
		ret = run_chained(s, slot, &job, &handed, &end);
	if (ret == 1)
		ret = run_on(s, &job, fence);
	if (fence >= 0) {
		chain_end(slot);
		if (slot->frame.status)	/* failed in pre-processing: nothing of ours counts */
			return 0;
		pthread_mutex_lock(&pl->lock);
		s->chained++;
		pthread_mutex_unlock(&pl->lock);
		if (slot->chain_redo) {	/* its input was remade on the CPU */
			job.status = 0;
			job.model_ns = 0;
			s->err[0] = 0;
			ret = run_on(s, &job, -1);
		}
	}
	t1 = handed ? end : pl_now_ns();
	model = job.model_ns;
	if (job.place == QPU_PIPELINE_QPU && !ret) {
		s->consecutive_failures = 0;
		s->good[s->good_count++ % PL_TIMEOUT_WINDOW] =
			t1 - t0 > model ? t1 - t0 : model;
		if (s->fail_start_ns) {
			back = t0 - s->fail_start_ns;
			s->fail_start_ns = 0;
		}
	}
	hang = ret == -EIO;
	failed_qpu = job.place == QPU_PIPELINE_QPU && (hang || unsupported(ret)) &&
		     (s->st.can & QPU_PIPELINE_CAN_CPU);
	pthread_mutex_lock(&pl->lock);
	if (job.place == QPU_PIPELINE_QPU)
		s->stats.qpu_runs++;
	else
		s->stats.cpu_runs++;
	if (back > s->stats.back_to_qpu_max_ns)
		s->stats.back_to_qpu_max_ns = back;
	if (hang && job.place == QPU_PIPELINE_QPU)
		count_status(&s->stats, job.status);
	else if (failed_qpu)
		s->stats.unsupported++;
	s->stats.timeout_ms = job.place == QPU_PIPELINE_QPU ? job.timeout_ms : s->stats.timeout_ms;
	pthread_mutex_unlock(&pl->lock);

	time->timeout_ms = job.timeout_ms;
	if (failed_qpu) {
		if (hang && !s->fail_start_ns)
			s->fail_start_ns = t0;
		/* a QPU path that cannot do the frame will not do the next:
		 * the CPU's for a while, then a cheap try (it fails before any job) */
		if (++s->consecutive_failures >= PL_DEMOTE_AFTER || !hang)
			s->cpu_until = slot->frame.index + PL_DEMOTE_FRAMES;
		job.place = QPU_PIPELINE_CPU;
		job.status = 0;
		job.model_ns = 0;
		s->err[0] = 0;
		ret = run_stage(s, &job, -1);
		t1 = pl_now_ns();
		recovery = t1 - t0;
		recovered = 1;
		slot->frame.recoveries++;
	}
	if (ret) {
		char tmp[sizeof(slot->error)];

		snprintf(tmp, sizeof(tmp), "%s", s->err[0] ? s->err : strerror(-ret));
		snprintf(slot->error, sizeof(slot->error), "stage %.31s: %.200s", s->name, tmp);
		slot->frame.status = ret;
	}
	slot->frame.model_ns += model;
	time->start_ns = t0 - slot->submit_ns;
	time->end_ns = t1 - slot->submit_ns;
	time->model_ns = model;
	time->place = job.place;
	time->recovered = (unsigned int)recovered;

	pthread_mutex_lock(&pl->lock);
	s->stats.frames++;
	if (recovered) {
		s->stats.cpu_runs++;
		s->stats.recoveries++;
		s->stats.recovery_ns += recovery;
		if (recovery > s->stats.recovery_max_ns)
			s->stats.recovery_max_ns = recovery;
		pl->stats.recoveries++;
	}
	if (ret)
		s->stats.failed++;
	pl_window_add(&s->window, t1 - t0, model);
	pthread_mutex_unlock(&pl->lock);
	if (!ret && !recovered && job.place == QPU_PIPELINE_QPU)
		check_slowdown(s, t1 - t0, &t);
	if (s->chain_out)
		chain_signal(slot, handed && recovered);
	return handed;
}

static void deliver(struct qpu_pipeline *pl, struct pl_slot *slot)
{
	struct qpu_pipeline_frame *f = &slot->frame;
	struct pl_buf *last = pl->stage_count ? &slot->out[pl->stage_count - 1] : &slot->in;

	f->latency_ns = pl_now_ns() - slot->submit_ns;
	f->error = slot->error;
	f->frame_data = slot->user_bo ? (const char *)qpu_bo_get_map(slot->user_bo) + f->offset[0] :
			slot->in.data;
	f->data = last->data;
	f->bytes = pl->stage_count ? last->bytes : pl->frame_bytes;
	if (pl->cfg.sink)
		pl->cfg.sink(pl->cfg.sink_ctx, f);
	pthread_mutex_lock(&pl->lock);
	pl->stats.delivered++;
	if (f->status)
		pl->stats.failed++;
	if (!slot->refused)
		pl_window_add(&pl->window, f->latency_ns, f->model_ns);
	pthread_mutex_unlock(&pl->lock);
}

static void *stage_thread(void *arg)
{
	struct pl_stage *s = arg;
	struct qpu_pipeline *pl = s->pl;
	int last = s->index + 1 == pl->stage_count, handed = 0;
	uint64_t k;

	for (k = 0;; k++) {
		struct pl_slot *slot = &pl->slots[k % pl->slot_count];

		if (fence_wait(slot->fence[s->index], -1))
			abort();	/* an eventfd poll cannot fail */
		if (slot->stop) {
			if (!last)
				fence_signal(slot->fence[s->index + 1]);
			break;
		}
		handed = 0;
		if (!slot->frame.status || s->chain_in)
			handed = stage_run(s, slot);
		else if (s->chain_out)
			chain_signal(slot, 0);
		if (last) {
			deliver(pl, slot);
			fence_signal(slot->free_fence);
		} else if (!handed) {
			fence_signal(slot->fence[s->index + 1]);
		}
	}
	return NULL;
}

static void stop_threads(struct qpu_pipeline *pl)
{
	unsigned int i;

	for (i = 0; i < pl->stage_count; i++) {
		if (pl->stages[i].running)
			pthread_join(pl->stages[i].thread, NULL);
		pl->stages[i].running = 0;
	}
}

static void free_slots(struct qpu_pipeline *pl)
{
	unsigned int i, j;

	if (!pl->slots)
		return;
	for (i = 0; i < pl->slot_count; i++) {
		struct pl_slot *slot = &pl->slots[i];

		for (j = 0; j < QPU_PIPELINE_MAX_STAGES; j++) {
			if (slot->fence[j] >= 0)
				close(slot->fence[j]);
			buf_free(&slot->out[j]);
		}
		if (slot->free_fence >= 0)
			close(slot->free_fence);
		if (slot->chain_fence >= 0)
			close(slot->chain_fence);
		if (slot->dev_fence >= 0)
			close(slot->dev_fence);
		buf_free(&slot->in);
	}
	free(pl->slots);
	pl->slots = NULL;
}

static int alloc_slots(struct qpu_pipeline *pl)
{
	unsigned int i, j;
	int ret;

	pl->slot_count = pl->cfg.in_flight;
	pl->slots = calloc(pl->slot_count, sizeof(*pl->slots));
	if (!pl->slots)
		return pl_fail(pl, -ENOMEM, "pipeline: out of memory");
	for (i = 0; i < pl->slot_count; i++) {
		for (j = 0; j < QPU_PIPELINE_MAX_STAGES; j++)
			pl->slots[i].fence[j] = -1;
		pl->slots[i].free_fence = -1;
		pl->slots[i].chain_fence = -1;
		pl->slots[i].dev_fence = -1;
	}
	for (i = 0; i < pl->slot_count; i++) {
		struct pl_slot *slot = &pl->slots[i];

		slot->free_fence = eventfd(1, EFD_CLOEXEC);
		if (slot->free_fence < 0)
			return pl_fail(pl, -errno, "pipeline: eventfd: %s", strerror(errno));
		slot->chain_fence = eventfd(0, EFD_CLOEXEC);
		if (slot->chain_fence < 0)
			return pl_fail(pl, -errno, "pipeline: eventfd: %s", strerror(errno));
		for (j = 0; j < pl->stage_count; j++) {
			slot->fence[j] = eventfd(0, EFD_CLOEXEC);
			if (slot->fence[j] < 0)
				return pl_fail(pl, -errno, "pipeline: eventfd: %s", strerror(errno));
			ret = buf_alloc(pl, &slot->out[j], pl->stages[j].st.out_bytes);
			if (ret)
				return ret;
		}
		ret = buf_alloc(pl, &slot->in, pl_frame_alloc_bytes(pl->cfg.format, pl->cfg.width,
								     pl->cfg.height));
		if (ret)
			return ret;
		/* GRAY8's neutral chroma, after the luma (pl_frame_planes()) */
		memset((char *)slot->in.data + pl->frame_bytes, PL_CHROMA_NEUTRAL,
		       slot->in.bytes - pl->frame_bytes);
	}
	return 0;
}

/*
 * Built-in pre-processing right before built-in inference, with a device:
 * chained by a fence ("Fences on device jobs"), unless $QPU_PIPELINE_NO_CHAIN
 * is set (to compare, and for the tests).
 */
static void chain_stages(struct qpu_pipeline *pl)
{
	const char *off = getenv("QPU_PIPELINE_NO_CHAIN");
	unsigned int i;

	for (i = 0; i + 1 < pl->stage_count; i++) {
		if (!pl->cfg.dev || (off && *off) || !pl_stage_is_pre(&pl->stages[i].st) ||
		    !pl_stage_is_infer(&pl->stages[i + 1].st))
			continue;
		pl->stages[i].chain_out = 1;
		pl->stages[i + 1].chain_in = 1;
	}
}

uint64_t pl_stage_chained(struct qpu_pipeline *pl, unsigned int index)
{
	uint64_t n;

	if (index >= pl->stage_count)
		return 0;
	pthread_mutex_lock(&pl->lock);
	n = pl->stages[index].chained;
	pthread_mutex_unlock(&pl->lock);
	return n;
}

QPU_API int qpu_pipeline_start(struct qpu_pipeline *pl)
{
	unsigned int i;
	int ret;

	pl->err[0] = 0;
	if (pl->started)
		return pl_fail(pl, -EINVAL, "pipeline: started already");
	if (!pl->stage_count)
		return pl_fail(pl, -EINVAL, "pipeline: no stage");
	ret = alloc_slots(pl);
	if (!ret)
		ret = pl_window_init(&pl->window, pl->cfg.stats_window);
	for (i = 0; !ret && i < pl->stage_count; i++)
		ret = pl_window_init(&pl->stages[i].window, pl->cfg.stats_window);
	if (ret) {
		if (ret == -ENOMEM && !pl->err[0])
			pl_fail(pl, ret, "pipeline: out of memory");
		goto fail;
	}
	chain_stages(pl);
	pl->stats.in_flight = pl->slot_count;
	pl->stats.stage_count = pl->stage_count;
	pl->started = 1;
	for (i = 0; i < pl->stage_count; i++) {
		ret = -pthread_create(&pl->stages[i].thread, NULL, stage_thread, &pl->stages[i]);
		if (ret) {
			pl_fail(pl, ret, "pipeline: a thread: %s", strerror(-ret));
			/* The threads started exit on the stop; the rest never ran. */
			qpu_pipeline_finish(pl);
			pl->started = 0;
			goto fail;
		}
		pl->stages[i].running = 1;
	}
	return 0;
fail:
	free_slots(pl);
	return ret;
}

QPU_API int qpu_pipeline_acquire(struct qpu_pipeline *pl, int timeout_ms,
				 struct qpu_pipeline_input *in)
{
	struct pl_slot *slot;
	int ret;

	if (!pl->started || pl->finished || pl->acquired)
		return pl_fail(pl, -EINVAL, "pipeline: %s", !pl->started ? "not started" :
			       pl->finished ? "finished" : "the acquired frame was not submitted");
	slot = &pl->slots[pl->next_index % pl->slot_count];
	ret = fence_wait(slot->free_fence, timeout_ms);
	if (ret)
		return ret;
	pl->acquired = 1;
	in->data = slot->in.data;
	in->bytes = pl->frame_bytes;
	in->bo = slot->in.bo;
	return 0;
}

/* Sends the acquired slot's frame, refused with @why when not NULL. */
static void submit_slot(struct qpu_pipeline *pl, enum qpu_pipeline_format format,
			unsigned int width, unsigned int height, void *user,
			const struct qpu_pipeline_bo_frame *bf, const char *why)
{
	struct pl_slot *slot = &pl->slots[pl->next_index % pl->slot_count];
	struct qpu_pipeline_frame *f = &slot->frame;

	memset(f, 0, sizeof(*f));
	f->index = pl->next_index++;
	f->format = format;
	f->width = width;
	f->height = height;
	f->user = user;
	f->stage_count = pl->stage_count;
	slot->error[0] = 0;
	slot->stop = 0;
	slot->refused = 0;
	slot->user_bo = bf ? bf->bo : NULL;
	if (bf) {
		f->bo = bf->bo;
		memcpy(f->offset, bf->offset, sizeof(f->offset));
		memcpy(f->stride, bf->stride, sizeof(f->stride));
	} else {
		f->bo = slot->in.bo;
		pl_frame_planes(pl->cfg.format, pl->cfg.width, pl->cfg.height, f->offset, f->stride);
	}
	if (!why && (format != pl->cfg.format || width != pl->cfg.width ||
		     height != pl->cfg.height)) {
		const char *name = qpu_pipeline_format_name(format);

		snprintf(slot->error, sizeof(slot->error),
			 "refused: a %ux%u %s frame, the pipeline takes %ux%u %s", width, height,
			 name ? name : "unknown-format", pl->cfg.width, pl->cfg.height,
			 qpu_pipeline_format_name(pl->cfg.format));
		why = slot->error;
	} else if (why) {
		snprintf(slot->error, sizeof(slot->error), "refused: %s", why);
	}
	if (why) {
		f->status = -EINVAL;
		slot->refused = 1;
	}
	pthread_mutex_lock(&pl->lock);
	pl->stats.submitted++;
	if (f->status)
		pl->stats.refused++;
	pthread_mutex_unlock(&pl->lock);
	pl->acquired = 0;
	slot->submit_ns = pl_now_ns();
	fence_signal(slot->fence[0]);
}

QPU_API int qpu_pipeline_submit(struct qpu_pipeline *pl, enum qpu_pipeline_format format,
				unsigned int width, unsigned int height, void *user)
{
	if (!pl->acquired)
		return pl_fail(pl, -EINVAL, "pipeline: no frame acquired");
	submit_slot(pl, format, width, height, user, NULL, NULL);
	return 0;
}

/* Why @f's planes do not fit its buffer, or NULL. */
static const char *bo_frame_refusal(const struct qpu_pipeline_bo_frame *f, char *why,
				    size_t size)
{
	size_t off[3], row[3], rows[3] = { 0 }, have = qpu_bo_get_size(f->bo);
	unsigned int i;

	if (f->format == QPU_PIPELINE_GRAY8)
		return "gray8 frames come in the pipeline's own buffers (qpu_pipeline_submit())";
	/* a packed plane's stride is its row's bytes */
	pl_frame_planes(f->format, f->width, f->height, off, row);
	rows[0] = f->height;
	rows[1] = rows[2] = f->format == QPU_PIPELINE_I420 ||
			    f->format == QPU_PIPELINE_NV12 ? f->height / 2 : 0;
	for (i = 0; i < 3; i++) {
		if (!rows[i])
			continue;
		if (f->stride[i] < row[i] || f->offset[i] > have ||
		    (rows[i] - 1) * f->stride[i] + row[i] > have - f->offset[i]) {
			snprintf(why, size,
				 "plane %u (offset %zu, stride %zu, %zu rows of %zu bytes) is not inside the %zu-byte buffer",
				 i, f->offset[i], f->stride[i], rows[i], row[i], have);
			return why;
		}
	}
	return NULL;
}

QPU_API int qpu_pipeline_submit_bo(struct qpu_pipeline *pl,
				   const struct qpu_pipeline_bo_frame *f, void *user)
{
	char msg[200];
	const char *why = NULL;

	if (!pl->acquired)
		return pl_fail(pl, -EINVAL, "pipeline: no frame acquired");
	if (!pl->cfg.dev || !f || !f->bo)
		return pl_fail(pl, -EINVAL, "pipeline: %s", !pl->cfg.dev ?
			       "a device buffer's frame needs a pipeline with a device" :
			       "no frame buffer");
	if (f->format == pl->cfg.format && f->width == pl->cfg.width &&
	    f->height == pl->cfg.height)
		why = bo_frame_refusal(f, msg, sizeof(msg));
	submit_slot(pl, f->format, f->width, f->height, user, f, why);
	return 0;
}

QPU_API int qpu_pipeline_finish(struct qpu_pipeline *pl)
{
	struct qpu_pipeline_input in;
	struct pl_slot *slot;

	if (!pl->started)
		return pl_fail(pl, -EINVAL, "pipeline: not started");
	if (pl->finished)
		return 0;
	if (!pl->acquired && qpu_pipeline_acquire(pl, -1, &in))
		return pl_fail(pl, -EINVAL, "pipeline: cannot stop");
	slot = &pl->slots[pl->next_index % pl->slot_count];
	slot->stop = 1;
	pl->acquired = 0;
	pl->finished = 1;
	fence_signal(slot->fence[0]);
	stop_threads(pl);
	return 0;
}

QPU_API void qpu_pipeline_free(struct qpu_pipeline *pl)
{
	unsigned int i;

	if (!pl)
		return;
	if (pl->started)
		qpu_pipeline_finish(pl);
	free_slots(pl);
	for (i = 0; i < pl->stage_count; i++) {
		stage_fini(&pl->stages[i].st);
		pl_window_fini(&pl->stages[i].window);
	}
	pl_window_fini(&pl->window);
	pthread_mutex_destroy(&pl->lock);
	pthread_mutex_destroy(&pl->dev_lock);
	free(pl);
}

QPU_API int qpu_pipeline_get_stats(struct qpu_pipeline *pl, struct qpu_pipeline_stats *stats)
{
	pthread_mutex_lock(&pl->lock);
	*stats = pl->stats;
	stats->stage_count = pl->stage_count;
	stats->in_flight = pl->cfg.in_flight;
	pl_window_latency(&pl->window, &stats->latency);
	pthread_mutex_unlock(&pl->lock);
	return 0;
}

QPU_SYMVER_DEFAULT(qpu_pipeline_get_stage_stats_v0_7, qpu_pipeline_get_stage_stats, LIBQPU_0.7);

QPU_API int qpu_pipeline_get_stage_stats_v0_7(struct qpu_pipeline *pl, unsigned int index,
					      struct qpu_pipeline_stage_stats *stats)
{
	if (index >= pl->stage_count)
		return -EINVAL;
	pthread_mutex_lock(&pl->lock);
	*stats = pl->stages[index].stats;
	pl_window_latency(&pl->stages[index].window, &stats->latency);
	pthread_mutex_unlock(&pl->lock);
	return 0;
}

/* 0.6's struct ended at the latency. */
QPU_API int qpu_pipeline_get_stage_stats_v0_6(struct qpu_pipeline *pl, unsigned int index,
					      void *stats);
QPU_SYMVER_OLD(qpu_pipeline_get_stage_stats_v0_6, qpu_pipeline_get_stage_stats, LIBQPU_0.6);

QPU_API int qpu_pipeline_get_stage_stats_v0_6(struct qpu_pipeline *pl, unsigned int index,
					      void *stats)
{
	struct qpu_pipeline_stage_stats now;
	int ret = qpu_pipeline_get_stage_stats_v0_7(pl, index, &now);

	if (!ret)
		memcpy(stats, &now, offsetof(struct qpu_pipeline_stage_stats, unsupported));
	return ret;
}

QPU_API int qpu_pipeline_set_stage_timeout(struct qpu_pipeline *pl, unsigned int index,
					   unsigned int timeout_ms)
{
	if (!pl || index >= pl->stage_count)
		return -EINVAL;
	pthread_mutex_lock(&pl->lock);
	pl->stages[index].user_timeout_ms = timeout_ms;
	pthread_mutex_unlock(&pl->lock);
	return 0;
}

QPU_API int qpu_pipeline_stats_json(struct qpu_pipeline *pl, char *buf, size_t size)
{
	return pl_stats_json(pl, buf, size);
}
