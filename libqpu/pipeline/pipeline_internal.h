/* SPDX-License-Identifier: MIT */
/*
 * libqpu/pipeline's private declarations, grouped by defining file:
 * pipeline.c (slots, fences, stage threads, recovery), stats.c (latency
 * windows, percentiles, JSON), telemetry.c (the device's clock and
 * temperature), stages.c and detect.c (the built-in stages, and the
 * fence chaining pre-processing to inference).
 */
#ifndef QPU_PIPELINE_INTERNAL_H
#define QPU_PIPELINE_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "qpu_pipeline.h"

/* stats.c: the last @cap samples of one latency, allocated at start. */
struct pl_window {
	uint64_t *ns;
	uint64_t *model_ns;
	uint64_t *scratch;
	unsigned int cap;
	unsigned int count;
	unsigned int next;
};

int pl_window_init(struct pl_window *w, unsigned int cap);
void pl_window_fini(struct pl_window *w);
void pl_window_add(struct pl_window *w, uint64_t ns, uint64_t model_ns);
/* Sorts into the window's scratch: call with the pipeline's lock held. */
void pl_window_latency(struct pl_window *w, struct qpu_pipeline_latency *out);
int pl_stats_json(struct qpu_pipeline *pl, char *buf, size_t size);

/* telemetry.c */
int pl_telemetry_default(struct qpu_dev *dev, struct qpu_pipeline_telemetry *out);

/* pipeline.c: monotonic nanoseconds; a message into a stage's error. */
uint64_t pl_now_ns(void);
void pl_err(char *err, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* pipeline.c: qpu_pipeline_get_stage_stats(), today's layout. */
QPU_API int qpu_pipeline_get_stage_stats_v0_7(struct qpu_pipeline *pl, unsigned int index,
					      struct qpu_pipeline_stage_stats *stats);
/*
 * pipeline.c: a run's failure @ret into @job: @msg (or strerror) as its
 * error, and for -EIO the enum qpu_status the message names. Returns @ret.
 */
int pl_job_failed(struct qpu_pipeline_job *job, int ret, const char *msg);
/*
 * pipeline.c: the planes of a frame packed in the pipeline's own buffer:
 * offsets and strides (GRAY8: the luma, then a neutral NV12 chroma plane
 * that the buffer keeps, so that pre-processing reads it as NV12).
 */
void pl_frame_planes(enum qpu_pipeline_format format, unsigned int width, unsigned int height,
		     size_t offset[3], size_t stride[3]);
/* pipeline.c: bytes of the pipeline's frame buffer (GRAY8's chroma included). */
size_t pl_frame_alloc_bytes(enum qpu_pipeline_format format, unsigned int width,
			    unsigned int height);

/*
 * stages.c: the built-in pre-processing and inference stages chained by a
 * fence (pipeline.c, "Fences on device jobs"). pl_pre_submit() submits the
 * QPU job only, its out-fence into *@fence; pl_pre_finish() waits for it
 * and sets the modelled time. pl_infer_run() is inference's run with the
 * input behind @in_fence (-1: none).
 */
int pl_stage_is_pre(const struct qpu_pipeline_stage *st);
int pl_stage_is_infer(const struct qpu_pipeline_stage *st);
int pl_pre_submit(void *ctx, struct qpu_pipeline_job *job, int *fence);
int pl_pre_finish(void *ctx, struct qpu_pipeline_job *job);
int pl_infer_run(void *ctx, struct qpu_pipeline_job *job, int in_fence);
/* pipeline.c: frames stage @index ran chained by a fence to its neighbour. */
uint64_t pl_stage_chained(struct qpu_pipeline *pl, unsigned int index);

#endif /* QPU_PIPELINE_INTERNAL_H */
