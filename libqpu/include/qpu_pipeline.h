/* SPDX-License-Identifier: MIT */
/*
 * libqpu pipelines: camera frames through stages (pre-processing,
 * inference, post-processing, or your own), each on the QPUs or the CPU,
 * with several frames in flight, latency statistics, telemetry beside
 * them, and recovery from hung or faulting jobs.
 *
 * A pipeline has a fixed number of slots (frames in flight). Each slot
 * holds the frame's buffer and one output buffer per stage, all allocated
 * once by qpu_pipeline_start() (device buffers when the pipeline has a
 * device, so that the CPU and the QPUs share them; no copy between
 * stages). Every stage runs in a thread of its own; between two stages of
 * a slot stands a fence (an eventfd) that the first signals when its output
 * is ready. The program's loop only fills free slots
 * (qpu_pipeline_acquire(), qpu_pipeline_submit()) and never waits for a
 * job; every frame reaches the sink, in order, with its status.
 *
 * Recovery: a stage whose device job times out, faults or is canceled by a
 * reset (its run returns -EIO with &qpu_pipeline_job.status) has the frame
 * run again on the CPU backend at once; the next frame goes back to the
 * QPUs. qpu.ko resets the V3D itself before such a job's fence signals
 * (the reset's reason shows in `qpuctl monitor`); the emulator runs every
 * job on a fresh emulator. Each recovery is counted with its time
 * (struct qpu_pipeline_stage_stats).
 *
 * Functions follow <qpu.h>'s conventions. A pipeline is driven from one
 * thread; its sink is called from the pipeline's last stage thread. A
 * device is not thread-safe, so the stages' QPU runs take turns on it
 * (CPU runs overlap them); the caller must not use the device while the
 * pipeline runs.
 * libqpu/pipeline/README.md says more.
 */
#ifndef QPU_PIPELINE_H
#define QPU_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include "qpu.h"
#include "qpu_kernels.h"
#include "qpu_nn.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * enum qpu_pipeline_format - pixel formats of a pipeline's frames
 * @QPU_PIPELINE_I420: YUV 4:2:0, three planes Y, U, V (Y4M's C420)
 * @QPU_PIPELINE_NV12: YUV 4:2:0, a Y plane and one of interleaved U, V
 * @QPU_PIPELINE_RGB24: packed 8-bit R, G, B (PPM's P6)
 * @QPU_PIPELINE_GRAY8: 8-bit luma (PGM's P5)
 * @QPU_PIPELINE_YUYV: YUV 4:2:2 packed, Y0 U Y1 V for each two pixels
 *	(new in 0.7)
 *
 * The 4:2:0 formats need an even width and height, YUYV an even width.
 */
enum qpu_pipeline_format {
	QPU_PIPELINE_I420 = 1,
	QPU_PIPELINE_NV12,
	QPU_PIPELINE_RGB24,
	QPU_PIPELINE_GRAY8,
	QPU_PIPELINE_YUYV,
};

/**
 * qpu_pipeline_format_name() - "i420", "nv12", "rgb24", "gray8"
 * @format: an enum qpu_pipeline_format
 *
 * Return: a static string, or NULL for another value.
 */
QPU_API const char *qpu_pipeline_format_name(enum qpu_pipeline_format format);

/**
 * qpu_pipeline_frame_bytes() - bytes of a tightly packed frame
 * @format: an enum qpu_pipeline_format
 * @width: pixels per row, 1 to 8192 (even for YUV)
 * @height: rows, 1 to 8192 (even for YUV)
 *
 * Return: the size, or 0 for a format or size the pipeline refuses.
 */
QPU_API size_t qpu_pipeline_frame_bytes(enum qpu_pipeline_format format,
					unsigned int width, unsigned int height);

/**
 * qpu_pipeline_frame_to_rgb24() - a frame as packed 8-bit RGB
 * @format: the frame's enum qpu_pipeline_format
 * @width: its width
 * @height: its height
 * @src: its qpu_pipeline_frame_bytes() bytes
 * @dst: width x height x 3 bytes
 *
 * The pre-processing stage's conversion (full-range BT.601 for YUV, with
 * each chroma sample for its 2x2 pixels), without resize or normalisation.
 *
 * Return: 0, or -EINVAL for a format or size qpu_pipeline_frame_bytes()
 * refuses.
 */
QPU_API int qpu_pipeline_frame_to_rgb24(enum qpu_pipeline_format format, unsigned int width,
					unsigned int height, const void *src, uint8_t *dst);

/**
 * enum qpu_pipeline_place - where a stage runs
 * @QPU_PIPELINE_AUTO: as the plan says (the QPUs when the pipeline has a
 *	device and the stage can run there, else the CPU)
 * @QPU_PIPELINE_QPU: the device's QPUs
 * @QPU_PIPELINE_CPU: the CPU backend
 */
enum qpu_pipeline_place {
	QPU_PIPELINE_AUTO,
	QPU_PIPELINE_QPU,
	QPU_PIPELINE_CPU,
};

/** qpu_pipeline_place_name() - "auto", "qpu", "cpu"; NULL for another value */
QPU_API const char *qpu_pipeline_place_name(enum qpu_pipeline_place place);

/**
 * struct qpu_pipeline_stage_time - one stage's run of one frame
 * @start_ns: when the stage started on the frame, from its submit
 * @end_ns: when it ended (its CPU re-run included), from the submit
 * @model_ns: the run's modelled device time, 0 if none
 * @place: where the frame's result was made: QPU_PIPELINE_QPU, or
 *	QPU_PIPELINE_CPU (planned there, demoted, or a recovery);
 *	QPU_PIPELINE_AUTO for a stage that did not run (an earlier one failed)
 * @recovered: 1 when a failed QPU run was re-run on the CPU
 * @timeout_ms: the job timeout the run was given (0: the device's)
 */
struct qpu_pipeline_stage_time {
	uint64_t start_ns;
	uint64_t end_ns;
	uint64_t model_ns;
	enum qpu_pipeline_place place;
	unsigned int recovered;
	unsigned int timeout_ms;
};

#define QPU_PIPELINE_MAX_STAGES		8

/**
 * struct qpu_pipeline_frame - a frame as the stages and the sink see it
 * @index: its number, from 0, in the order of qpu_pipeline_submit()
 * @format: an enum qpu_pipeline_format
 * @width: pixels per row
 * @height: rows
 * @user: the caller's pointer given to qpu_pipeline_submit()
 * @status: for the sink: 0, or the negative errno that stopped it (the
 *	stages after the failing one skip it; it still reaches the sink)
 * @error: for the sink: why it failed, "" if it did not
 * @data: for the sink: the last stage's output (the frame's bytes when
 *	the pipeline has no stage)
 * @bytes: bytes at @data
 * @latency_ns: for the sink: submit to the end of the last stage
 * @model_ns: for the sink: the stages' modelled times summed, 0 if none
 *	was modelled
 * @recoveries: for the sink: stages re-run on the CPU for this frame
 * @frame_data: for the sink: the frame's own bytes, in its slot until the
 *	sink returns (to draw on it, as qpu-detect does); for a frame of
 *	qpu_pipeline_submit_bo(), its buffer's mapping at @offset[0]
 * @bo: the buffer holding the frame: the slot's, or the caller's
 *	(qpu_pipeline_submit_bo()); NULL without device (new in 0.7)
 * @offset: bytes from @bo's start to each plane (I420 Y, U, V; NV12 Y,
 *	UV; one plane otherwise)
 * @stride: bytes between rows of each plane
 * @stage_count: for the sink: entries in @stages
 * @stages: for the sink: each stage's run of this frame, in order
 */
struct qpu_pipeline_frame {
	uint64_t index;
	enum qpu_pipeline_format format;
	unsigned int width;
	unsigned int height;
	void *user;
	int status;
	const char *error;
	const void *data;
	size_t bytes;
	uint64_t latency_ns;
	uint64_t model_ns;
	unsigned int recoveries;
	const void *frame_data;
	struct qpu_bo *bo;
	size_t offset[3];
	size_t stride[3];
	unsigned int stage_count;
	struct qpu_pipeline_stage_time stages[QPU_PIPELINE_MAX_STAGES];
};

/**
 * struct qpu_pipeline_job - one stage's work on one frame
 * @frame: the frame
 * @place: QPU_PIPELINE_QPU or QPU_PIPELINE_CPU: where to run this time
 * @dev: the pipeline's device (NULL for a CPU-only pipeline)
 * @in: the previous stage's output (the frame for the first stage)
 * @in_bytes: bytes at @in
 * @in_bo: the device buffer holding @in, at offset 0; NULL without device
 * @out: this stage's output buffer for the frame
 * @out_bytes: its size, &qpu_pipeline_stage.out_bytes
 * @out_bo: the device buffer holding @out, at offset 0; NULL without device
 * @status: set by a run that returns -EIO: how the device's job ended
 *	(QPU_STATUS_TIMEOUT, QPU_STATUS_FAULT, QPU_STATUS_CANCELED...)
 * @model_ns: set by the run: the modelled time of its device work on the
 *	device's board; leave 0 when unknown
 * @error: where the run writes why it failed
 * @error_size: bytes at @error
 * @timeout_ms: the budget of each device job of a QPU run (0: the
 *	device's default), from the stage's expected time; a run passes it
 *	to its jobs (&qpu_job_desc.timeout_ms, qpu_kernels_set_timeout(),
 *	qpu_nn_set_timeout()) so that a hang costs that (new in 0.7)
 *
 * For the first stage, @in and @in_bo are the frame's buffer from its
 * start: a frame of qpu_pipeline_submit_bo() has its planes where
 * &qpu_pipeline_frame.offset says, and @in_bytes is the buffer's size.
 */
struct qpu_pipeline_job {
	const struct qpu_pipeline_frame *frame;
	enum qpu_pipeline_place place;
	struct qpu_dev *dev;
	const void *in;
	size_t in_bytes;
	struct qpu_bo *in_bo;
	void *out;
	size_t out_bytes;
	struct qpu_bo *out_bo;
	enum qpu_status status;
	uint64_t model_ns;
	char *error;
	size_t error_size;
	unsigned int timeout_ms;
};

/* &qpu_pipeline_stage.can bits: where a stage is able to run. */
#define QPU_PIPELINE_CAN_QPU	(1u << 0)
#define QPU_PIPELINE_CAN_CPU	(1u << 1)

/**
 * struct qpu_pipeline_stage - a stage
 * @name: for statistics and messages (copied)
 * @place: an enum qpu_pipeline_place
 * @can: QPU_PIPELINE_CAN_* bits; a stage without CAN_CPU cannot recover
 *	from a failed job (the frame then fails, the pipeline goes on)
 * @why: the reason of a stage that cannot run on the QPUs, for the plan
 *	("nv12: the QPU kernel takes I420"), or NULL (copied)
 * @in_bytes: the input it takes, checked against the previous stage's
 *	@out_bytes (or the frame's size) by qpu_pipeline_add_stage(); 0: any
 * @out_bytes: its output per frame, at least 1
 * @run: does the work of @job on @job->place; returns 0 or a negative
 *	errno, and -EIO (with @job->status) for a device job that failed;
 *	a QPU run's -EIO is re-run on the CPU, and so is its -EINVAL,
 *	-ENOTSUP or -ENOSPC (what the QPU path cannot do, counted as
 *	&qpu_pipeline_stage_stats.unsupported)
 * @fini: frees @ctx at qpu_pipeline_free(), or NULL
 * @ctx: the stage's own state, given to @run and @fini
 *
 * @run is called from the stage's thread only: state in @ctx needs no lock.
 */
struct qpu_pipeline_stage {
	const char *name;
	enum qpu_pipeline_place place;
	unsigned int can;
	const char *why;
	size_t in_bytes;
	size_t out_bytes;
	int (*run)(void *ctx, struct qpu_pipeline_job *job);
	void (*fini)(void *ctx);
	void *ctx;
};

/* struct qpu_pipeline_telemetry.flags bits: which fields hold a value. */
#define QPU_PIPELINE_TELEMETRY_CLOCK		(1u << 0)
#define QPU_PIPELINE_TELEMETRY_TEMP		(1u << 1)
#define QPU_PIPELINE_TELEMETRY_THROTTLED	(1u << 2)

/**
 * struct qpu_pipeline_telemetry - the device's state beside the latencies
 * @flags: QPU_PIPELINE_TELEMETRY_* bits
 * @clock_hz: the V3D's clock as measured (qpu.ko's telemetry, a Pi 4/5's
 *	firmware)
 * @temp_mc: the SoC's temperature in millidegrees Celsius
 * @throttled: the firmware's throttled word (qpu.ko, <linux/qpu.h>)
 * @source: where the sample came from ("qpu.ko", "firmware", "thermal zone", "none",
 *	"user")
 */
struct qpu_pipeline_telemetry {
	uint32_t flags;
	uint64_t clock_hz;
	int32_t temp_mc;
	uint32_t throttled;
	const char *source;
};

/**
 * struct qpu_pipeline_config - what qpu_pipeline_new() builds
 * @dev: the device for QPU stages, or NULL for the CPU alone; it must
 *	outlive the pipeline
 * @format: the frames' enum qpu_pipeline_format
 * @width: the frames' width
 * @height: the frames' height
 * @in_flight: slots (frames in flight), 1 to QPU_PIPELINE_MAX_IN_FLIGHT;
 *	0 means 3
 * @stats_window: latency samples kept per stage for the percentiles (the
 *	last ones); 0 means 4096
 * @telemetry_ms: the least time between two telemetry samples; 0 means 100
 * @telemetry: reads a sample, or NULL for the device's own (qpu.ko's
 *	telemetry through its netlink family; the Raspberry Pi firmware's
 *	through /dev/vcio, or the thermal zone's temperature, for a v3d
 *	node: qpu_dev_get_telemetry(); nothing on the emulator); returns 0 or a
 *	negative errno
 * @telemetry_ctx: given to @telemetry
 * @sink: called with every frame, in order, from the last stage's thread
 * @sink_ctx: given to @sink
 * @warn: called with each warning (a stage slowed while the clock fell),
 *	or NULL to print it on stderr
 * @warn_ctx: given to @warn
 */
struct qpu_pipeline_config {
	struct qpu_dev *dev;
	enum qpu_pipeline_format format;
	unsigned int width;
	unsigned int height;
	unsigned int in_flight;
	unsigned int stats_window;
	unsigned int telemetry_ms;
	int (*telemetry)(void *ctx, struct qpu_pipeline_telemetry *out);
	void *telemetry_ctx;
	void (*sink)(void *ctx, const struct qpu_pipeline_frame *frame);
	void *sink_ctx;
	void (*warn)(void *ctx, const char *message);
	void *warn_ctx;
};

#define QPU_PIPELINE_MAX_IN_FLIGHT	16

/** struct qpu_pipeline - a pipeline (opaque). */
struct qpu_pipeline;

/**
 * qpu_pipeline_new() - a pipeline without stages
 * @config: what to build (copied)
 *
 * Return: the pipeline, to free with qpu_pipeline_free(), or NULL with
 * errno set (EINVAL with qpu_last_error() saying why: an unknown format,
 * an odd size for a YUV format, too many slots; ENOMEM).
 */
QPU_API struct qpu_pipeline *qpu_pipeline_new(const struct qpu_pipeline_config *config);

/**
 * qpu_pipeline_add_stage() - append a stage
 * @pipeline: the pipeline, not started
 * @stage: the stage (copied; @stage->ctx becomes the pipeline's, whose
 *	qpu_pipeline_free() calls @stage->fini, even when this call fails)
 *
 * Return: 0, or -EINVAL (started, too many stages, an input size that is
 * not the previous output's, a stage forced on the QPUs without a device
 * or unable to run there: qpu_pipeline_last_error() says which).
 */
QPU_API int qpu_pipeline_add_stage(struct qpu_pipeline *pipeline,
				   const struct qpu_pipeline_stage *stage);

/**
 * qpu_pipeline_start() - allocate every buffer and start the stages
 * @pipeline: the pipeline, with at least one stage
 *
 * Return: 0, or a negative errno (-ENOMEM, the device's error).
 */
QPU_API int qpu_pipeline_start(struct qpu_pipeline *pipeline);

/**
 * struct qpu_pipeline_input - a free slot's frame buffer
 * @data: where the frame's bytes go
 * @bytes: the buffer's size: the configured frame's
 * @bo: the device buffer holding @data at offset 0 (a capture source may
 *	read into it), or NULL without device
 */
struct qpu_pipeline_input {
	void *data;
	size_t bytes;
	struct qpu_bo *bo;
};

/**
 * qpu_pipeline_acquire() - the next free slot's frame buffer
 * @pipeline: the pipeline, started
 * @timeout_ms: how long to wait for a slot to come free (-1: no bound)
 * @in: filled on success
 *
 * Only a full pipeline makes it wait: every slot holds a frame.
 *
 * Return: 0, -ETIME when no slot came free in time, -EINVAL when not
 * started or when the previous acquire was not submitted.
 */
QPU_API int qpu_pipeline_acquire(struct qpu_pipeline *pipeline, int timeout_ms,
				 struct qpu_pipeline_input *in);

/**
 * qpu_pipeline_submit() - send the acquired frame down the pipeline
 * @pipeline: the pipeline, after qpu_pipeline_acquire()
 * @format: the frame's format
 * @width: the frame's width
 * @height: the frame's height
 * @user: handed to the sink with the frame
 *
 * A frame whose format or size is not the configured one is not run: it
 * reaches the sink with status -EINVAL and an error saying what differs.
 *
 * Return: 0, or -EINVAL without an acquired slot.
 */
QPU_API int qpu_pipeline_submit(struct qpu_pipeline *pipeline, enum qpu_pipeline_format format,
				unsigned int width, unsigned int height, void *user);

/**
 * qpu_pipeline_finish() - wait until every submitted frame reached the sink
 * @pipeline: the pipeline
 *
 * Stops the stage threads; the pipeline can only be freed afterwards.
 *
 * Return: 0, or -EINVAL when not started.
 */
QPU_API int qpu_pipeline_finish(struct qpu_pipeline *pipeline);

/**
 * qpu_pipeline_free() - stop the threads, free the buffers and the stages
 * @pipeline: the pipeline, or NULL
 */
QPU_API void qpu_pipeline_free(struct qpu_pipeline *pipeline);

/** qpu_pipeline_last_error() - why the last failing call failed, or "" */
QPU_API const char *qpu_pipeline_last_error(const struct qpu_pipeline *pipeline);

/**
 * struct qpu_pipeline_latency - a latency's distribution over the window
 * @count: samples in the window
 * @p50_ns: median
 * @p90_ns: 90th percentile
 * @p99_ns: 99th percentile
 * @max_ns: largest
 * @mean_ns: mean
 * @jitter_ns: standard deviation
 * @model_ns: the mean modelled time of the samples that had one, 0 if none
 */
struct qpu_pipeline_latency {
	uint64_t count;
	uint64_t p50_ns;
	uint64_t p90_ns;
	uint64_t p99_ns;
	uint64_t max_ns;
	uint64_t mean_ns;
	uint64_t jitter_ns;
	uint64_t model_ns;
};

/**
 * struct qpu_pipeline_stage_stats - one stage since qpu_pipeline_start()
 * @name: the stage's name, owned by the pipeline
 * @place: where the plan put it: QPU_PIPELINE_QPU or QPU_PIPELINE_CPU
 * @why: the plan's reason, owned by the pipeline
 * @frames: frames it ran
 * @qpu_runs: runs on the QPUs, failed ones included
 * @cpu_runs: runs on the CPU, recoveries included
 * @failed: frames it could not do at all
 * @recoveries: failed QPU runs re-run on the CPU
 * @timeouts: of those, jobs that timed out
 * @faults: ... that faulted
 * @canceled: ... canceled (a reset) or another status
 * @recovery_ns: the recoveries' time summed: from the failed run's start to
 *	the end of its CPU re-run
 * @recovery_max_ns: the longest one
 * @back_to_qpu_max_ns: the longest time from a failed run's start to the
 *	start of the next QPU run that succeeded
 * @slowdowns: runs that warned: slower than the stage's usual time while
 *	the clock was below the one it was measured at
 * @latency: its time per frame (run and re-run)
 * @unsupported: recoveries of a QPU run that returned -EINVAL, -ENOTSUP or
 *	-ENOSPC: what the QPU path could not do (new in 0.7)
 * @timeout_ms: the job timeout its QPU runs get now, 0 for the device's
 *	(qpu_pipeline_set_stage_timeout() says how it is chosen; new in 0.7)
 *
 * Grown in 0.7: qpu_pipeline_get_stage_stats@LIBQPU_0.6 fills the struct
 * up to @latency.
 */
struct qpu_pipeline_stage_stats {
	const char *name;
	enum qpu_pipeline_place place;
	const char *why;
	uint64_t frames;
	uint64_t qpu_runs;
	uint64_t cpu_runs;
	uint64_t failed;
	uint64_t recoveries;
	uint64_t timeouts;
	uint64_t faults;
	uint64_t canceled;
	uint64_t recovery_ns;
	uint64_t recovery_max_ns;
	uint64_t back_to_qpu_max_ns;
	uint64_t slowdowns;
	struct qpu_pipeline_latency latency;
	uint64_t unsupported;
	unsigned int timeout_ms;
};

/**
 * struct qpu_pipeline_stats - the whole pipeline since qpu_pipeline_start()
 * @stage_count: stages
 * @submitted: frames submitted
 * @delivered: frames that reached the sink (every submitted one, once
 *	qpu_pipeline_finish() returned)
 * @failed: delivered with a nonzero status
 * @refused: of those, refused at submit (wrong format or size)
 * @recoveries: the stages' recoveries summed
 * @warnings: warnings given
 * @in_flight: slots
 * @telemetry_samples: telemetry samples read
 * @telemetry: the last sample
 * @latency: submit to sink, end to end
 */
struct qpu_pipeline_stats {
	unsigned int stage_count;
	uint64_t submitted;
	uint64_t delivered;
	uint64_t failed;
	uint64_t refused;
	uint64_t recoveries;
	uint64_t warnings;
	unsigned int in_flight;
	uint64_t telemetry_samples;
	struct qpu_pipeline_telemetry telemetry;
	struct qpu_pipeline_latency latency;
};

/**
 * qpu_pipeline_get_stats() - the pipeline's figures now
 * @pipeline: the pipeline
 * @stats: filled
 *
 * Callable while frames run; sorts the window's samples (no allocation).
 *
 * Return: 0.
 */
QPU_API int qpu_pipeline_get_stats(struct qpu_pipeline *pipeline,
				   struct qpu_pipeline_stats *stats);

/**
 * qpu_pipeline_get_stage_stats() - one stage's figures now
 * @pipeline: the pipeline
 * @index: the stage, from 0
 * @stats: filled
 *
 * Return: 0, or -EINVAL for an index out of range.
 */
QPU_API int qpu_pipeline_get_stage_stats(struct qpu_pipeline *pipeline, unsigned int index,
					 struct qpu_pipeline_stage_stats *stats);

/**
 * qpu_pipeline_stats_json() - every figure as one JSON object
 * @pipeline: the pipeline
 * @buf: where the text goes, NUL-terminated (truncated to @size)
 * @size: bytes at @buf
 *
 * The object has "frames", "latency", "telemetry" and "stages" (an array,
 * each with its counters and "latency"); times in nanoseconds. What
 * qpu-detect --bench and the Python package print.
 *
 * Return: the length of the whole text (as snprintf()), or a negative errno.
 */
QPU_API int qpu_pipeline_stats_json(struct qpu_pipeline *pipeline, char *buf, size_t size);

/*
 * Built-in stages. Each fills a struct qpu_pipeline_stage for
 * qpu_pipeline_add_stage(), which then owns its context. They are
 * interchangeable with your own: the stage interface above is all they use.
 */

/**
 * struct qpu_pipeline_preprocess - frame to a network's input tensor
 * @format: the frames' format
 * @width: the frames' width
 * @height: the frames' height
 * @out_width: the tensor's width
 * @out_height: the tensor's height
 * @mean: per channel R, G, B, subtracted after scaling to [0, 1]
 * @std: per channel, divided by after; not 0
 *
 * The output is float32 NCHW with three channels (GRAY8 repeats luma),
 * full-range BT.601: qpu_pipeline_stage_tensor() with those, the whole
 * frame, no letterbox. Since 0.7 that is qpu_preprocess() (bilinear, at
 * half-pixel centres) on the QPUs for every format, where 0.6 ran
 * qpu_yuv420_to_rgb() (nearest neighbour) for I420 alone.
 */
struct qpu_pipeline_preprocess {
	enum qpu_pipeline_format format;
	unsigned int width;
	unsigned int height;
	unsigned int out_width;
	unsigned int out_height;
	float mean[3];
	float std[3];
};

/**
 * qpu_pipeline_stage_preprocess() - the pre-processing stage
 * @dev: the pipeline's device, or NULL
 * @config: what it converts
 * @stage: filled on success
 * @err: a refusal's message (NUL-terminated), or NULL
 * @err_size: bytes at @err
 *
 * Return: 0, -EINVAL (bad sizes, format, std of 0: @err says which),
 * -ENOMEM.
 */
QPU_API int qpu_pipeline_stage_preprocess(struct qpu_dev *dev,
					  const struct qpu_pipeline_preprocess *config,
					  struct qpu_pipeline_stage *stage, char *err,
					  size_t err_size);

/**
 * qpu_pipeline_stage_infer() - the inference stage: a .qnn graph
 * @dev: the pipeline's device, or NULL for the CPU alone
 * @model: the .qnn file (qpu-nn convert makes one from ONNX)
 * @in_bytes: what the previous stage gives, checked against the graph's
 *	one float32 input (a model whose input does not match is refused
 *	here, before any job)
 * @bind_flags: QPU_NN_BIND_* bits for the device's graph
 * @stage: filled on success
 * @err: a refusal's message, or NULL
 * @err_size: bytes at @err
 *
 * Loads the graph twice: bound to @dev for the plan's runs and to the CPU
 * alone for recovery (both arenas allocated here). Its output is every
 * graph output's bytes, one after the other. Its modelled time is the
 * graph's nodes' (&qpu_nn_node_info.model_ns).
 *
 * Return: 0, -EINVAL (@err says why), -ENOMEM, a load or bind error.
 */
QPU_API int qpu_pipeline_stage_infer(struct qpu_dev *dev, const char *model, size_t in_bytes,
				     unsigned int bind_flags, struct qpu_pipeline_stage *stage,
				     char *err, size_t err_size);

/**
 * struct qpu_pipeline_box - a detection, coordinates in [0, 1] of the image
 * @x0: left
 * @y0: top
 * @x1: right
 * @y1: bottom
 * @score: objectness times the class's probability
 * @label: the class
 */
struct qpu_pipeline_box {
	float x0;
	float y0;
	float x1;
	float y1;
	float score;
	int32_t label;
};

/**
 * struct qpu_pipeline_detections - the detection stage's output per frame
 * @count: boxes kept
 * @candidates: boxes over the score threshold before NMS
 * @boxes: the boxes, best first (&qpu_pipeline_detect.max_boxes of them)
 */
struct qpu_pipeline_detections {
	uint32_t count;
	uint32_t candidates;
	struct qpu_pipeline_box boxes[];
};

/**
 * struct qpu_pipeline_detect - a YOLO-style grid head's decoding and NMS
 * @grid_w: cells per row
 * @grid_h: rows of cells
 * @anchors: boxes per cell
 * @classes: classes
 * @score_threshold: boxes scoring less are dropped
 * @iou_threshold: a box overlapping a better one of its class by more is
 *	dropped (class-wise NMS)
 * @max_boxes: the most boxes kept per frame
 *
 * The input is float32 [anchors * (5 + classes), grid_h, grid_w] (NCHW,
 * values already through a sigmoid): per anchor, x and y within the cell,
 * w and h as fractions of the image, objectness, then the classes.
 * libqpu/pipeline/README.md gives the formulas. The boxes are decoded on
 * the CPU; their class-wise NMS is qpu_nms() on the QPUs (since 0.7) or
 * qpu_nms_cpu() on the CPU and for recovery, coordinates on its grid of
 * QPU_NMS_GRID_MAX + 1 steps across the image.
 */
struct qpu_pipeline_detect {
	unsigned int grid_w;
	unsigned int grid_h;
	unsigned int anchors;
	unsigned int classes;
	float score_threshold;
	float iou_threshold;
	unsigned int max_boxes;
};

/**
 * qpu_pipeline_stage_detect() - the post-processing stage
 * @config: the head's shape and the thresholds
 * @stage: filled on success
 * @err: a refusal's message, or NULL
 * @err_size: bytes at @err
 *
 * Return: 0, -EINVAL (@err says why), -ENOMEM.
 */
QPU_API int qpu_pipeline_stage_detect(const struct qpu_pipeline_detect *config,
				      struct qpu_pipeline_stage *stage, char *err,
				      size_t err_size);

/*
 * New in 0.7: frames already in a device buffer, stage timeouts, and the
 * pre-processing stage with every option of qpu_preprocess().
 */

/**
 * struct qpu_pipeline_bo_frame - a frame in a device buffer of the caller's
 * @bo: the buffer, of the pipeline's device (a camera's imported dma-buf:
 *	struct qpu_capture_frame's @bo)
 * @format: its enum qpu_pipeline_format, the pipeline's (not GRAY8)
 * @width: its width, the pipeline's
 * @height: its height, the pipeline's
 * @offset: bytes from @bo's start to each plane (I420 Y, U, V; NV12 Y,
 *	UV; one plane for RGB24 and YUYV)
 * @stride: bytes between rows of each plane, at least a row's bytes
 */
struct qpu_pipeline_bo_frame {
	struct qpu_bo *bo;
	enum qpu_pipeline_format format;
	unsigned int width;
	unsigned int height;
	size_t offset[3];
	size_t stride[3];
};

/**
 * qpu_pipeline_submit_bo() - send a frame that is already a device buffer
 * @pipeline: the pipeline, with a device, after qpu_pipeline_acquire()
 *	(whose buffer this frame stands in for)
 * @frame: the frame; its buffer must stay as it is until the frame
 *	reaches the sink (a camera's buffer is queued back from there or
 *	after)
 * @user: handed to the sink with the frame
 *
 * Nothing is copied: the first stage reads @frame->bo where it is (the
 * built-in pre-processing runs qpu_preprocess() on it). A frame of another
 * format or size, a GRAY8 frame, or planes outside the buffer reach the
 * sink refused (status -EINVAL, an error saying why), as in
 * qpu_pipeline_submit().
 *
 * Return: 0, or -EINVAL without an acquired slot, without a device, or
 * with a NULL @frame or buffer.
 *
 * New in libqpu 0.7.
 */
QPU_API int qpu_pipeline_submit_bo(struct qpu_pipeline *pipeline,
				   const struct qpu_pipeline_bo_frame *frame, void *user);

/* Stage timeouts: see qpu_pipeline_set_stage_timeout(). */
#define QPU_PIPELINE_TIMEOUT_FACTOR	4
#define QPU_PIPELINE_TIMEOUT_FLOOR_MS	20
#define QPU_PIPELINE_TIMEOUT_RUNS	8

/**
 * qpu_pipeline_set_stage_timeout() - a stage's job timeout, or the derived one
 * @pipeline: the pipeline
 * @index: the stage, from 0
 * @timeout_ms: the budget of each device job of the stage's QPU runs
 *	(&qpu_pipeline_job.timeout_ms), or 0 to derive it
 *
 * Derived (the default): the device's own timeout for the stage's first
 * QPU_PIPELINE_TIMEOUT_RUNS good QPU runs, then QPU_PIPELINE_TIMEOUT_FACTOR
 * times the longest of its last 32 good QPU runs or their modelled time,
 * whichever is longer, and at least QPU_PIPELINE_TIMEOUT_FLOOR_MS. A job's
 * time is at most its run's, so the factor leaves a run that slows by up
 * to that much alone, and a hang costs the budget, not the device's
 * default. &qpu_pipeline_stage_stats.timeout_ms shows the value in use.
 *
 * Return: 0, or -EINVAL for an index out of range.
 *
 * New in libqpu 0.7.
 */
QPU_API int qpu_pipeline_set_stage_timeout(struct qpu_pipeline *pipeline, unsigned int index,
					   unsigned int timeout_ms);

/**
 * struct qpu_pipeline_tensor - frame to a network's input tensor
 * @format: the frames' format
 * @width: the frames' width (1 to 4096)
 * @height: the frames' height (1 to 4096)
 * @pre: the qpu_preprocess() call made for every frame: its crop, tensor
 *	size (@pre.dst_width, @pre.dst_height), layout, type (F32, or U8 /
 *	I8 with the model's input quantisation in @pre.scale and
 *	@pre.zero_point), colorspace, flags (QPU_PREPROCESS_LETTERBOX,
 *	QPU_PREPROCESS_BGR), pad, mean and std; its @pre.src, @pre.dst_bo
 *	and @pre.dst_offset are the pipeline's (ignored here)
 *
 * GRAY8 frames (even sides) are read as NV12 with neutral chroma, which
 * the pipeline keeps after the luma in its own frame buffers.
 */
struct qpu_pipeline_tensor {
	enum qpu_pipeline_format format;
	unsigned int width;
	unsigned int height;
	struct qpu_preprocess pre;
};

/**
 * qpu_pipeline_stage_tensor() - the pre-processing stage, every option
 * @dev: the pipeline's device, or NULL
 * @config: the frames and the tensor
 * @stage: filled on success
 * @err: a refusal's message (NUL-terminated), or NULL
 * @err_size: bytes at @err
 *
 * One qpu_preprocess() job a frame on the QPUs (on both generations,
 * every QPU of the device), straight into the next stage's input, from
 * the slot's buffer or the caller's (qpu_pipeline_submit_bo()) with no
 * copy; qpu_preprocess_cpu(), the same arithmetic, on the CPU and for
 * recovery. Its modelled time is the job's.
 *
 * Return: 0, -EINVAL (bad sizes, format, crop, std of 0, scale: @err says
 * which), -ENOMEM.
 *
 * New in libqpu 0.7.
 */
QPU_API int qpu_pipeline_stage_tensor(struct qpu_dev *dev,
				      const struct qpu_pipeline_tensor *config,
				      struct qpu_pipeline_stage *stage, char *err,
				      size_t err_size);

#ifdef __cplusplus
}
#endif

#endif /* QPU_PIPELINE_H */
