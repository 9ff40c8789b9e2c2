// SPDX-License-Identifier: MIT
/*
 * The built-in pre-processing and inference stages. Pre-processing runs
 * qpu_yuv420_to_rgb() on the QPUs for I420 frames and a CPU version of
 * the same sampling and conversion for everything (and for recovery);
 * inference runs a .qnn graph bound to the device, and a second copy
 * bound to the CPU for recovery. Both are plain struct qpu_pipeline_stage
 * users, so the fused pre-processing kernels replace the first by a stage
 * of the same shape.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qpu_kernels.h"
#include "pipeline/pipeline_internal.h"

/* Full-range BT.601, the QPU kernel's conversion (libqpu/kernels/yuv.c). */
#define YUV_RV	1.402f
#define YUV_GU	0.344136f
#define YUV_GV	0.714136f
#define YUV_BU	1.772f

/* qpu_yuv420_to_rgb()'s limits: a tensor row of whole 16-lane vectors. */
#define PRE_QPU_WIDTH_MULTIPLE	16
#define PRE_QPU_MAX_SIDE	4096
#define PRE_QPU_MAX_REDUCTION	255

/* The enum qpu_status a kernel wrapper's -EIO message names. */
static enum qpu_status status_from_message(const char *msg)
{
	static const enum qpu_status named[] = {
		QPU_STATUS_TIMEOUT, QPU_STATUS_FAULT, QPU_STATUS_DEADLOCK, QPU_STATUS_CANCELED,
	};
	unsigned int i;

	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (strstr(msg, qpu_job_status_str(named[i])))
			return named[i];
	return QPU_STATUS_CANCELED;
}

struct pre {
	struct qpu_pipeline_preprocess c;
	struct qpu_kernels *kernels;
	unsigned int qpus;
	float a[3];
	float b[3];
};

static float clamp255(float v)
{
	return v < 0 ? 0 : v > 255 ? 255 : v;
}

/* Pixel (@sx, @sy) of a @w x @h frame as R, G, B in [0, 255]. */
static void pixel_rgb(enum qpu_pipeline_format format, const uint8_t *in, unsigned int w,
		      unsigned int h, unsigned int sx, unsigned int sy, float rgb[3])
{
	size_t px = (size_t)w * h, s = (size_t)sy * w + sx;
	float Y, U, V;

	switch (format) {
	case QPU_PIPELINE_I420:
	case QPU_PIPELINE_NV12:
		Y = in[s];
		if (format == QPU_PIPELINE_I420) {
			size_t c = (size_t)(sy / 2) * (w / 2) + sx / 2;

			U = (float)in[px + c] - 128;
			V = (float)in[px + px / 4 + c] - 128;
		} else {
			size_t c = px + (size_t)(sy / 2) * w + (sx / 2) * 2;

			U = (float)in[c] - 128;
			V = (float)in[c + 1] - 128;
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

/* The CPU's pre-processing: every format, the QPU kernel's sampling. */
static void pre_cpu(const struct pre *p, const uint8_t *in, float *out)
{
	unsigned int w = p->c.width, h = p->c.height, ow = p->c.out_width, oh = p->c.out_height;
	uint32_t step_x = (uint32_t)(((uint64_t)w << 16) / ow);
	uint32_t step_y = (uint32_t)(((uint64_t)h << 16) / oh);
	size_t plane = (size_t)ow * oh;
	unsigned int x, y;
	float rgb[3];

	for (y = 0; y < oh; y++) {
		unsigned int sy = (unsigned int)(((uint64_t)y * step_y) >> 16);

		for (x = 0; x < ow; x++) {
			unsigned int sx = (unsigned int)(((uint64_t)x * step_x) >> 16);
			size_t o = (size_t)y * ow + x;

			pixel_rgb(p->c.format, in, w, h, sx, sy, rgb);
			out[o] = rgb[0] * p->a[0] + p->b[0];
			out[plane + o] = rgb[1] * p->a[1] + p->b[1];
			out[2 * plane + o] = rgb[2] * p->a[2] + p->b[2];
		}
	}
}

static int pre_run(void *ctx, struct qpu_pipeline_job *job)
{
	struct pre *p = ctx;
	struct qpu_yuv420 src;
	struct qpu_planar_rgb dst;
	struct qpu_job_timing t;
	size_t px = (size_t)p->c.width * p->c.height;
	int ret;

	if (job->place == QPU_PIPELINE_CPU) {
		pre_cpu(p, job->in, job->out);
		return 0;
	}
	src = (struct qpu_yuv420){
		.bo = job->in_bo, .y_offset = 0, .u_offset = px, .v_offset = px + px / 4,
		.width = p->c.width, .height = p->c.height, .y_stride = p->c.width,
		.uv_stride = p->c.width / 2,
	};
	dst = (struct qpu_planar_rgb){
		.bo = job->out_bo, .width = p->c.out_width, .height = p->c.out_height,
	};
	ret = qpu_yuv420_to_rgb(p->kernels, p->qpus, &src, &dst, p->c.mean, p->c.std, NULL);
	if (ret) {
		pl_err(job->error, job->error_size, "%s", qpu_kernels_last_error(p->kernels));
		if (ret == -EIO)
			job->status = status_from_message(job->error);
		return ret;
	}
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

QPU_API int qpu_pipeline_stage_preprocess(struct qpu_dev *dev,
					  const struct qpu_pipeline_preprocess *c,
					  struct qpu_pipeline_stage *stage, char *err,
					  size_t err_size)
{
	const char *why = NULL;
	uint64_t qpus = 1;
	struct pre *p;
	unsigned int i;

	if (!qpu_pipeline_format_name(c->format)) {
		pl_err(err, err_size, "preprocess: unsupported pixel format %d (i420, nv12, rgb24, gray8)",
		       (int)c->format);
		return -EINVAL;
	}
	if (!qpu_pipeline_frame_bytes(c->format, c->width, c->height)) {
		pl_err(err, err_size, "preprocess: %ux%u is no %s frame size%s", c->width, c->height,
		       qpu_pipeline_format_name(c->format),
		       c->format == QPU_PIPELINE_I420 || c->format == QPU_PIPELINE_NV12 ?
		       " (YUV 4:2:0 needs an even width and height)" : "");
		return -EINVAL;
	}
	if (!c->out_width || !c->out_height || c->out_width > c->width * 255u ||
	    c->out_height > c->height * 255u) {
		pl_err(err, err_size, "preprocess: a %ux%u tensor from a %ux%u frame", c->out_width,
		       c->out_height, c->width, c->height);
		return -EINVAL;
	}
	for (i = 0; i < 3; i++) {
		if (c->std[i] == 0) {
			pl_err(err, err_size, "preprocess: std[%u] is 0", i);
			return -EINVAL;
		}
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->c = *c;
	for (i = 0; i < 3; i++) {
		p->a[i] = 1.0f / (255.0f * c->std[i]);
		p->b[i] = -c->mean[i] / c->std[i];
	}
	if (!dev)
		why = "no device";
	else if (c->format != QPU_PIPELINE_I420)
		why = "the QPU kernel (qpu_yuv420_to_rgb) takes I420 frames only";
	else if (c->out_width % PRE_QPU_WIDTH_MULTIPLE)
		why = "the QPU kernel writes tensor rows of a multiple of 16 values";
	else if (c->width > PRE_QPU_MAX_SIDE || c->height > PRE_QPU_MAX_SIDE ||
		 c->width > c->out_width * PRE_QPU_MAX_REDUCTION ||
		 c->height > c->out_height * PRE_QPU_MAX_REDUCTION)
		why = "the QPU kernel takes up to 4096x4096 and a 255x reduction";
	if (!why) {
		qpu_dev_get_param(dev, QPU_DEV_PARAM_NUM_QPUS, &qpus);
		p->qpus = (unsigned int)(qpus < c->out_height ? qpus : c->out_height);
		p->kernels = qpu_kernels_new(dev);
		if (!p->kernels) {
			free(p);
			return -ENOMEM;
		}
	}
	*stage = (struct qpu_pipeline_stage){
		.name = "preprocess",
		.can = QPU_PIPELINE_CAN_CPU | (why ? 0 : QPU_PIPELINE_CAN_QPU),
		.why = why,
		.in_bytes = qpu_pipeline_frame_bytes(c->format, c->width, c->height),
		.out_bytes = (size_t)c->out_width * c->out_height * 3 * sizeof(float),
		.run = pre_run,
		.fini = pre_fini,
		.ctx = p,
	};
	return 0;
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

static int infer_run(void *ctx, struct qpu_pipeline_job *job)
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

	qpu_nn_input(g, 0, &ti);
	memcpy(ti.data, job->in, ti.bytes);
	ret = qpu_nn_run(g);
	if (ret) {
		pl_err(job->error, job->error_size, "%s", qpu_nn_last_error(g));
		if (ret == -EIO)
			job->status = status_from_message(job->error);
		return ret;
	}
	for (i = 0; i < qpu_nn_output_count(g); i++) {
		qpu_nn_output(g, i, &ti);
		memcpy((char *)job->out + off, ti.data, ti.bytes);
		off += ti.bytes;
	}
	if (g == inf->dev_graph)
		job->model_ns = graph_model_ns(g);
	return 0;
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
