// SPDX-License-Identifier: MIT
/*
 * The built-in pre-processing and inference stages. Pre-processing runs
 * qpu_preprocess() (one fused job: crop, bilinear resize, letterbox, colour
 * conversion, normalisation or quantisation) on the QPUs straight from the
 * frame's buffer into the next stage's, and qpu_preprocess_cpu(), the same
 * arithmetic, on the CPU and for recovery; inference runs a .qnn graph
 * bound to the device, and a second copy bound to the CPU for recovery.
 * Each QPU run gives its jobs the pipeline's budget for the stage
 * (&qpu_pipeline_job.timeout_ms). Pre-processing followed by inference
 * can chain them by a fence: its job only submitted (pl_pre_submit()),
 * inference's first job queued behind it (pl_infer_run()), reading the
 * tensor where pre-processing wrote it.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qpu_kernels.h"
#include "kernels/kernel.h"
#include "kernels/preproc.h"
#include "pipeline/pipeline_internal.h"
#include "runtime/runtime.h"

/* Full-range BT.601, the conversion qpu_pipeline_frame_to_rgb24() draws with. */
#define YUV_RV	1.402f
#define YUV_GU	0.344136f
#define YUV_GV	0.714136f
#define YUV_BU	1.772f

static float clamp255(float v)
{
	return v < 0 ? 0 : v > 255 ? 255 : v;
}

/* Pixel (@sx, @sy) of a packed @w x @h frame as R, G, B in [0, 255]. */
static void pixel_rgb(enum qpu_pipeline_format format, const uint8_t *in, unsigned int w,
		      unsigned int h, unsigned int sx, unsigned int sy, float rgb[3])
{
	size_t px = (size_t)w * h, s = (size_t)sy * w + sx;
	float Y, U, V;

	switch (format) {
	case QPU_PIPELINE_I420:
	case QPU_PIPELINE_NV12:
	case QPU_PIPELINE_YUYV:
		if (format == QPU_PIPELINE_I420) {
			size_t c = (size_t)(sy / 2) * (w / 2) + sx / 2;

			Y = in[s];
			U = (float)in[px + c] - 128;
			V = (float)in[px + px / 4 + c] - 128;
		} else if (format == QPU_PIPELINE_NV12) {
			size_t c = px + (size_t)(sy / 2) * w + (sx / 2) * 2;

			Y = in[s];
			U = (float)in[c] - 128;
			V = (float)in[c + 1] - 128;
		} else {
			size_t c = 2 * (s - sx % 2);

			Y = in[2 * s];
			U = (float)in[c + 1] - 128;
			V = (float)in[c + 3] - 128;
		}
		rgb[0] = clamp255(Y + YUV_RV * V);
		rgb[1] = clamp255(Y - YUV_GU * U - YUV_GV * V);
		rgb[2] = clamp255(Y + YUV_BU * U);
		break;
	case QPU_PIPELINE_RGB24:
		rgb[0] = in[s * 3];
		rgb[1] = in[s * 3 + 1];
		rgb[2] = in[s * 3 + 2];
		break;
	default:
		rgb[0] = rgb[1] = rgb[2] = in[s];
		break;
	}
}

QPU_API int qpu_pipeline_frame_to_rgb24(enum qpu_pipeline_format format, unsigned int width,
					unsigned int height, const void *src, uint8_t *dst)
{
	unsigned int x, y, c;
	float rgb[3];

	if (!qpu_pipeline_frame_bytes(format, width, height))
		return -EINVAL;
	for (y = 0; y < height; y++) {
		for (x = 0; x < width; x++) {
			pixel_rgb(format, src, width, height, x, y, rgb);
			for (c = 0; c < 3; c++)
				*dst++ = (uint8_t)rgb[c];
		}
	}
	return 0;
}

struct pre {
	struct qpu_pipeline_tensor c;
	struct qpu_kernels *kernels;
	unsigned int qpus;
	size_t out_bytes;
};

/* qpu_preprocess()'s pixel format for the pipeline's (GRAY8: NV12, see pl_frame_planes()). */
static enum qpu_pixel_format pix_format(enum qpu_pipeline_format f)
{
	switch (f) {
	case QPU_PIPELINE_I420:
		return QPU_PIX_I420;
	case QPU_PIPELINE_RGB24:
		return QPU_PIX_RGB888;
	case QPU_PIPELINE_YUYV:
		return QPU_PIX_YUYV;
	default:
		return QPU_PIX_NV12;
	}
}

/* A buffer of host memory for the CPU reference, which reads CPU mappings. */
static struct qpu_bo *host_bo(struct qpu_bo *bo, void *data, size_t bytes)
{
	*bo = (struct qpu_bo){ .size = bytes, .map = data };
	return bo;
}

/*
 * The qpu_preprocess() call of @job: the frame where the pipeline says its
 * planes are (packed when the run is called without a pipeline's frame),
 * the tensor into the stage's output. @in and @out stand for buffers the
 * job does not have (no device).
 */
static void pre_call(const struct pre *p, const struct qpu_pipeline_job *job, struct qpu_bo *in,
		     struct qpu_bo *out, struct qpu_preprocess *pp)
{
	const struct qpu_pipeline_frame *f = job->frame;
	const struct qpu_pipeline_tensor *c = &p->c;

	*pp = c->pre;
	pp->src = (struct qpu_frame){
		.bo = job->in_bo ? job->in_bo : host_bo(in, (void *)job->in, job->in_bytes),
		.format = pix_format(c->format), .width = c->width, .height = c->height,
	};
	pp->dst_bo = job->out_bo ? job->out_bo : host_bo(out, job->out, job->out_bytes);
	pp->dst_offset = 0;
	if (f && f->stride[0]) {
		memcpy(pp->src.offset, f->offset, sizeof(pp->src.offset));
		memcpy(pp->src.stride, f->stride, sizeof(pp->src.stride));
	} else {
		pl_frame_planes(c->format, c->width, c->height, pp->src.offset, pp->src.stride);
	}
}

static int pre_run(void *ctx, struct qpu_pipeline_job *job)
{
	struct pre *p = ctx;
	struct qpu_bo in, out;
	struct qpu_preprocess pp;
	struct qpu_job_timing t;
	int ret;

	pre_call(p, job, &in, &out, &pp);
	if (job->place == QPU_PIPELINE_CPU || !p->kernels) {
		struct qpu_kernels msg = { 0 };

		ret = qpu_preprocess_cpu(&msg, &pp);
		return ret ? pl_job_failed(job, ret, msg.last_error) : 0;
	}
	qpu_kernels_set_timeout(p->kernels, job->timeout_ms);
	ret = qpu_preprocess(p->kernels, p->qpus, &pp, NULL);
	if (ret)
		return pl_job_failed(job, ret, qpu_kernels_last_error(p->kernels));
	if (!qpu_kernels_take_timing(p->kernels, &t))
		job->model_ns = t.ns + t.launch_ns;
	return 0;
}

int pl_pre_submit(void *ctx, struct qpu_pipeline_job *job, int *fence)
{
	struct pre *p = ctx;
	struct qpu_bo in, out;
	struct qpu_preprocess pp;
	int ret;

	pre_call(p, job, &in, &out, &pp);
	qpu_kernels_set_timeout(p->kernels, job->timeout_ms);
	ret = qpu_preprocess_submit(p->kernels, p->qpus, &pp, -1, fence);
	return ret ? pl_job_failed(job, ret, qpu_kernels_last_error(p->kernels)) : 0;
}

int pl_pre_finish(void *ctx, struct qpu_pipeline_job *job)
{
	struct pre *p = ctx;
	struct qpu_job_timing t;
	int ret = qpu_kernels_finish(p->kernels, NULL);

	if (ret)
		return pl_job_failed(job, ret, qpu_kernels_last_error(p->kernels));
	if (!qpu_kernels_take_timing(p->kernels, &t))
		job->model_ns = t.ns + t.launch_ns;
	return 0;
}

static void pre_fini(void *ctx)
{
	struct pre *p = ctx;

	qpu_kernels_free(p->kernels);
	free(p);
}

/* @c checked as qpu_preprocess() checks it, on buffers of the pipeline's sizes. */
static int pre_check(const struct qpu_pipeline_tensor *c, size_t *out_bytes, char *err,
		     size_t err_size)
{
	struct qpu_pipeline_frame f = { 0 };
	struct qpu_pipeline_job job = { .frame = &f };
	struct pre p = { .c = *c };
	struct qpu_kernels msg = { 0 };
	struct qpu_preprocess pp;
	struct preproc_plan plan;
	struct qpu_bo in, out;

	job.in_bytes = pl_frame_alloc_bytes(c->format, c->width, c->height);
	job.out_bytes = SIZE_MAX;
	pre_call(&p, &job, &in, &out, &pp);
	if (preproc_plan_make(&msg, &pp, &plan)) {
		pl_err(err, err_size, "%s", msg.last_error);
		return -EINVAL;
	}
	*out_bytes = plan.bytes;
	return 0;
}

QPU_API int qpu_pipeline_stage_tensor(struct qpu_dev *dev, const struct qpu_pipeline_tensor *c,
				      struct qpu_pipeline_stage *stage, char *err,
				      size_t err_size)
{
	uint64_t qpus = 1;
	struct pre *p;
	size_t out_bytes;
	int ret;

	if (!c || !stage) {
		pl_err(err, err_size, "preprocess: NULL argument");
		return -EINVAL;
	}
	if (!qpu_pipeline_format_name(c->format)) {
		pl_err(err, err_size,
		       "preprocess: unsupported pixel format %d (i420, nv12, rgb24, gray8, yuyv)",
		       (int)c->format);
		return -EINVAL;
	}
	if (!qpu_pipeline_frame_bytes(c->format, c->width, c->height) ||
	    c->width > PREPROC_MAX_SIDE || c->height > PREPROC_MAX_SIDE ||
	    (c->format == QPU_PIPELINE_GRAY8 && ((c->width | c->height) & 1))) {
		pl_err(err, err_size, "preprocess: %ux%u is no %s frame size (1 to %u a side%s)",
		       c->width, c->height, qpu_pipeline_format_name(c->format), PREPROC_MAX_SIDE,
		       c->format == QPU_PIPELINE_RGB24 ? "" :
		       c->format == QPU_PIPELINE_YUYV ? ", an even width" :
		       "; YUV 4:2:0 and gray8 need an even width and height");
		return -EINVAL;
	}
	ret = pre_check(c, &out_bytes, err, err_size);
	if (ret)
		return ret;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->c = *c;
	p->out_bytes = out_bytes;
	if (dev) {
		qpu_dev_get_param(dev, QPU_DEV_PARAM_NUM_QPUS, &qpus);
		p->qpus = (unsigned int)(qpus < c->pre.dst_height ? qpus : c->pre.dst_height);
		p->kernels = qpu_kernels_new(dev);
		if (!p->kernels) {
			free(p);
			return -ENOMEM;
		}
	}
	*stage = (struct qpu_pipeline_stage){
		.name = "preprocess",
		.can = QPU_PIPELINE_CAN_CPU | (dev ? QPU_PIPELINE_CAN_QPU : 0),
		.in_bytes = 0,	/* the frame's buffer: the slot's, or the caller's */
		.out_bytes = out_bytes,
		.run = pre_run,
		.fini = pre_fini,
		.ctx = p,
	};
	return 0;
}

QPU_API int qpu_pipeline_stage_preprocess(struct qpu_dev *dev,
					  const struct qpu_pipeline_preprocess *c,
					  struct qpu_pipeline_stage *stage, char *err,
					  size_t err_size)
{
	struct qpu_pipeline_tensor t;
	unsigned int i;

	if (!c) {
		pl_err(err, err_size, "preprocess: NULL argument");
		return -EINVAL;
	}
	for (i = 0; i < 3; i++) {
		if (c->std[i] == 0) {
			pl_err(err, err_size, "preprocess: std[%u] is 0", i);
			return -EINVAL;
		}
	}
	t = (struct qpu_pipeline_tensor){
		.format = c->format, .width = c->width, .height = c->height,
		.pre = {
			.dst_width = c->out_width, .dst_height = c->out_height,
			.layout = QPU_TENSOR_NCHW, .type = QPU_TENSOR_F32,
			.colorspace = QPU_COLOR_BT601_FULL,
		},
	};
	memcpy(t.pre.mean, c->mean, sizeof(t.pre.mean));
	memcpy(t.pre.std, c->std, sizeof(t.pre.std));
	return qpu_pipeline_stage_tensor(dev, &t, stage, err, err_size);
}

struct infer {
	struct qpu_nn_graph *dev_graph;
	struct qpu_nn_graph *cpu_graph;
	unsigned int qpu_nodes;
};

/* Sum of the graph's nodes' modelled times of the last run. */
static uint64_t graph_model_ns(const struct qpu_nn_graph *g)
{
	struct qpu_nn_node_info n;
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < qpu_nn_node_count(g); i++)
		if (!qpu_nn_node(g, i, &n))
			sum += n.model_ns;
	return sum;
}

int pl_infer_run(void *ctx, struct qpu_pipeline_job *job, int in_fence)
{
	struct infer *inf = ctx;
	/* The device's graph, unless this is a QPU graph's recovery: a graph
	 * planned on the CPU alone runs there too, with the board's model. */
	struct qpu_nn_graph *g = inf->dev_graph && (job->place == QPU_PIPELINE_QPU ||
						    !inf->qpu_nodes) ?
				 inf->dev_graph : inf->cpu_graph;
	struct qpu_nn_tensor_info ti;
	unsigned int i;
	size_t off = 0;
	int ret;

	if (g == inf->dev_graph)
		qpu_nn_set_timeout(g, job->timeout_ms);
	if (job->in_bo) {	/* read where the previous stage wrote it */
		ret = qpu_nn_run_input(g, job->in_bo, 0, in_fence);
	} else {
		qpu_nn_input(g, 0, &ti);
		memcpy(ti.data, job->in, ti.bytes);
		ret = qpu_nn_run(g);
	}
	if (ret)
		return pl_job_failed(job, ret, qpu_nn_last_error(g));
	for (i = 0; i < qpu_nn_output_count(g); i++) {
		qpu_nn_output(g, i, &ti);
		memcpy((char *)job->out + off, ti.data, ti.bytes);
		off += ti.bytes;
	}
	if (g == inf->dev_graph)
		job->model_ns = graph_model_ns(g);
	return 0;
}

static int infer_run(void *ctx, struct qpu_pipeline_job *job)
{
	return pl_infer_run(ctx, job, -1);
}

int pl_stage_is_pre(const struct qpu_pipeline_stage *st)
{
	return st->run == pre_run;
}

int pl_stage_is_infer(const struct qpu_pipeline_stage *st)
{
	return st->run == infer_run;
}

static void infer_fini(void *ctx)
{
	struct infer *inf = ctx;

	qpu_nn_free(inf->dev_graph);
	qpu_nn_free(inf->cpu_graph);
	free(inf);
}

/* Loads @model and binds it; NULL with @err filled on failure. */
static struct qpu_nn_graph *load_bound(const char *model, struct qpu_dev *dev,
				       unsigned int flags, char *err, size_t err_size, int *ret)
{
	struct qpu_nn_graph *g = qpu_nn_load(model, err, err_size);

	if (!g) {
		*ret = -errno;
		return NULL;
	}
	*ret = qpu_nn_bind(g, dev, flags);
	if (*ret) {
		pl_err(err, err_size, "%s: %s", model, qpu_nn_last_error(g));
		qpu_nn_free(g);
		return NULL;
	}
	return g;
}

QPU_API int qpu_pipeline_stage_infer(struct qpu_dev *dev, const char *model, size_t in_bytes,
				     unsigned int bind_flags, struct qpu_pipeline_stage *stage,
				     char *err, size_t err_size)
{
	struct qpu_nn_tensor_info ti;
	struct infer *inf = calloc(1, sizeof(*inf));
	size_t out_bytes = 0;
	unsigned int i;
	int ret;

	if (!inf)
		return -ENOMEM;
	inf->cpu_graph = load_bound(model, NULL, 0, err, err_size, &ret);
	if (!inf->cpu_graph)
		goto fail;
	ret = -EINVAL;
	if (qpu_nn_input_count(inf->cpu_graph) != 1) {
		pl_err(err, err_size, "%s: %u inputs; the pipeline feeds one", model,
		       qpu_nn_input_count(inf->cpu_graph));
		goto fail;
	}
	qpu_nn_input(inf->cpu_graph, 0, &ti);
	if (ti.dtype != QPU_NN_FLOAT32 || ti.bytes != in_bytes) {
		char shape[96] = "";
		size_t n = 0;

		for (i = 0; i < ti.rank && n < sizeof(shape) - 12; i++)
			n += (size_t)snprintf(shape + n, sizeof(shape) - n, "%s%lld", i ? "x" : "",
					      (long long)ti.dims[i]);
		pl_err(err, err_size,
		       "%s: input %s is %s %s (%zu bytes); the previous stage gives %zu bytes of float32",
		       model, ti.name, ti.dtype == QPU_NN_FLOAT32 ? "float32" : "not float32",
		       shape, ti.bytes, in_bytes);
		goto fail;
	}
	for (i = 0; i < qpu_nn_output_count(inf->cpu_graph); i++) {
		qpu_nn_output(inf->cpu_graph, i, &ti);
		out_bytes += ti.bytes;
	}
	if (dev) {
		inf->dev_graph = load_bound(model, dev, bind_flags, err, err_size, &ret);
		if (!inf->dev_graph)
			goto fail;
		for (i = 0; i < qpu_nn_node_count(inf->dev_graph); i++) {
			struct qpu_nn_node_info n;

			if (!qpu_nn_node(inf->dev_graph, i, &n) && n.where == QPU_NN_WHERE_QPU)
				inf->qpu_nodes++;
		}
	}
	*stage = (struct qpu_pipeline_stage){
		.name = "infer",
		.can = QPU_PIPELINE_CAN_CPU | (inf->qpu_nodes ? QPU_PIPELINE_CAN_QPU : 0),
		.why = dev && !inf->qpu_nodes ? "the graph's plan puts no node on the QPUs" : NULL,
		.in_bytes = in_bytes,
		.out_bytes = out_bytes,
		.run = infer_run,
		.fini = infer_fini,
		.ctx = inf,
	};
	return 0;
fail:
	infer_fini(inf);
	return ret;
}
