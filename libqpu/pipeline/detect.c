// SPDX-License-Identifier: MIT
/*
 * The built-in post-processing stage: a YOLO-style grid head decoded to
 * boxes over the score threshold on the CPU, then class-wise non-maximum
 * suppression by qpu_nms() (the overlap matrix on the QPUs, the greedy walk
 * on the CPU) or qpu_nms_cpu() on the CPU and for recovery: the kernels'
 * NMS is the one NMS of libqpu.
 *
 * The candidates and the kept indices are allocated with the stage; the
 * kernels (made at the first QPU run, on the pipeline's device) keep the
 * NMS job's buffer and host memory from frame to frame, growing them only
 * for a frame with more candidates than any before.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/pipeline_internal.h"

#define DETECT_MAX_BOXES	1024
#define DETECT_MAX_CELLS	(1u << 20)

#define DETECT_MAX_CELLS	(1u << 20)

struct detect {
	struct qpu_pipeline_detect c;
	struct qpu_detection *cand;
	uint32_t *keep;
	unsigned int cand_cap;
	struct qpu_kernels *kernels;
	unsigned int qpus;
};

static float clamp01(float v)
{
	return v < 0 ? 0 : v > 1 ? 1 : v;
}

/* The head's boxes over the threshold into d->cand; returns how many passed. */
static unsigned int decode(struct detect *d, const float *in, unsigned int *stored)
{
	const struct qpu_pipeline_detect *c = &d->c;
	size_t cells = (size_t)c->grid_w * c->grid_h, cell;
	unsigned int n = 0, passed = 0, a, k;

	for (a = 0; a < c->anchors; a++) {
		const float *ch = in + (size_t)a * (5 + c->classes) * cells;

		for (cell = 0; cell < cells; cell++) {
			float obj = ch[4 * cells + cell], best = 0, cx, cy, w, h, score;
			uint32_t label = 0;

			if (obj < c->score_threshold)
				continue;
			for (k = 0; k < c->classes; k++) {
				if (ch[(5 + k) * cells + cell] > best) {
					best = ch[(5 + k) * cells + cell];
					label = k;
				}
			}
			score = obj * (c->classes ? best : 1);
			if (score < c->score_threshold)
				continue;
			passed++;
			if (n == d->cand_cap)
				continue;
			cx = ((float)(cell % c->grid_w) + ch[cell]) / (float)c->grid_w;
			cy = ((float)(cell / c->grid_w) + ch[cells + cell]) / (float)c->grid_h;
			w = ch[2 * cells + cell];
			h = ch[3 * cells + cell];
			d->cand[n] = (struct qpu_detection){
				.x1 = clamp01(cx - w / 2), .y1 = clamp01(cy - h / 2),
				.x2 = clamp01(cx + w / 2), .y2 = clamp01(cy + h / 2),
				.score = score, .class_id = label,
				.index = (uint32_t)(a * cells + cell),
			};
			n++;
		}
	}
	*stored = n;
	return passed;
}

static int detect_run(void *ctx, struct qpu_pipeline_job *job)
{
	struct detect *d = ctx;
	struct qpu_pipeline_detections *out = job->out;
	/* coordinates in [0, 1] onto the NMS grid's whole width */
	struct qpu_nms_params np = {
		.iou_threshold = d->c.iou_threshold, .scale = QPU_NMS_GRID_MAX,
		.max_out = d->c.max_boxes,
	};
	struct qpu_job_timing t;
	unsigned int n, passed;
	size_t kept, i;
	int ret;

	passed = decode(d, job->in, &n);
	if (job->place == QPU_PIPELINE_QPU && !d->kernels) {
		uint64_t qpus = 1;

		/* once, at the first QPU run: the stage is made without a device */
		d->kernels = qpu_kernels_new(job->dev);
		if (!d->kernels)
			return pl_job_failed(job, -ENOMEM, NULL);
		qpu_dev_get_param(job->dev, QPU_DEV_PARAM_NUM_QPUS, &qpus);
		d->qpus = (unsigned int)qpus;
	}
	if (job->place == QPU_PIPELINE_QPU) {
		qpu_kernels_set_timeout(d->kernels, job->timeout_ms);
		ret = qpu_nms(d->kernels, d->qpus, d->cand, n, &np, d->keep, d->c.max_boxes,
			      &kept, NULL);
		if (!ret && !qpu_kernels_take_timing(d->kernels, &t))
			job->model_ns = t.ns + t.launch_ns;
	} else {
		ret = qpu_nms_cpu(d->kernels, d->cand, n, &np, d->keep, d->c.max_boxes, &kept);
	}
	if (ret)
		return pl_job_failed(job, ret, d->kernels ? qpu_kernels_last_error(d->kernels) :
				     qpu_last_error());
	for (i = 0; i < kept; i++) {
		const struct qpu_detection *b = &d->cand[d->keep[i]];

		out->boxes[i] = (struct qpu_pipeline_box){
			.x0 = b->x1, .y0 = b->y1, .x1 = b->x2, .y1 = b->y2,
			.score = b->score, .label = (int32_t)b->class_id,
		};
	}
	out->count = (uint32_t)kept;
	out->candidates = passed;
	return 0;
}

static void detect_fini(void *ctx)
{
	struct detect *d = ctx;

	qpu_kernels_free(d->kernels);
	free(d->cand);
	free(d->keep);
	free(d);
}

QPU_API int qpu_pipeline_stage_detect(const struct qpu_pipeline_detect *c,
				      struct qpu_pipeline_stage *stage, char *err,
				      size_t err_size)
{
	size_t cells = (size_t)c->grid_w * c->grid_h;
	struct detect *d;

	if (!c->grid_w || !c->grid_h || !c->anchors || cells * c->anchors > DETECT_MAX_CELLS ||
	    c->classes > 4096) {
		pl_err(err, err_size, "detect: a %ux%u grid of %u anchors and %u classes",
		       c->grid_w, c->grid_h, c->anchors, c->classes);
		return -EINVAL;
	}
	if (!c->max_boxes || c->max_boxes > DETECT_MAX_BOXES) {
		pl_err(err, err_size, "detect: %u boxes kept, 1 to %u", c->max_boxes,
		       DETECT_MAX_BOXES);
		return -EINVAL;
	}
	if (!(c->score_threshold >= 0 && c->score_threshold <= 1) ||
	    !(c->iou_threshold >= 0 && c->iou_threshold <= 1)) {
		pl_err(err, err_size, "detect: thresholds are within [0, 1]");
		return -EINVAL;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->c = *c;
	d->cand_cap = (unsigned int)(cells * c->anchors);
	if (d->cand_cap > QPU_NMS_MAX_CANDIDATES)
		d->cand_cap = QPU_NMS_MAX_CANDIDATES;
	d->cand = calloc(d->cand_cap, sizeof(*d->cand));
	d->keep = calloc(c->max_boxes, sizeof(*d->keep));
	if (!d->cand || !d->keep) {
		detect_fini(d);
		return -ENOMEM;
	}
	*stage = (struct qpu_pipeline_stage){
		.name = "detect",
		.can = QPU_PIPELINE_CAN_CPU | QPU_PIPELINE_CAN_QPU,
		.in_bytes = cells * c->anchors * (5 + c->classes) * sizeof(float),
		.out_bytes = sizeof(struct qpu_pipeline_detections) +
			     (size_t)c->max_boxes * sizeof(struct qpu_pipeline_box),
		.run = detect_run,
		.fini = detect_fini,
		.ctx = d,
	};
	return 0;
}
