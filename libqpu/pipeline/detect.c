// SPDX-License-Identifier: MIT
/*
 * The built-in post-processing stage, on the CPU: a YOLO-style grid head
 * decoded to boxes, a score threshold, and class-wise non-maximum
 * suppression (greedy, best first). It stands in for the QPU box-decoding
 * and NMS kernels, which plug in as a stage of the same interface.
 *
 * The candidates' buffer (one per cell and anchor) is allocated with the
 * stage and sorted in place (glibc's qsort() may allocate), so a frame
 * allocates nothing.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/pipeline_internal.h"

#define DETECT_MAX_BOXES	1024
#define DETECT_MAX_CELLS	(1u << 20)

struct detect {
	struct qpu_pipeline_detect c;
	struct qpu_pipeline_box *cand;
	unsigned int cand_cap;
};

/* Whether @x goes before @y: the higher score, then the lower label. */
static int before(const struct qpu_pipeline_box *x, const struct qpu_pipeline_box *y)
{
	if (x->score != y->score)
		return x->score > y->score;
	return x->label < y->label;
}

/* Shell sort, best first, in place (Ciura's gaps). */
static void sort_boxes(struct qpu_pipeline_box *b, unsigned int n)
{
	static const unsigned int gaps[] = { 701, 301, 132, 57, 23, 10, 4, 1 };
	unsigned int gi, g, i, j;

	for (gi = 0; gi < sizeof(gaps) / sizeof(gaps[0]); gi++) {
		g = gaps[gi];
		for (i = g; i < n; i++) {
			struct qpu_pipeline_box t = b[i];

			for (j = i; j >= g && before(&t, &b[j - g]); j -= g)
				b[j] = b[j - g];
			b[j] = t;
		}
	}
}

static float iou(const struct qpu_pipeline_box *a, const struct qpu_pipeline_box *b)
{
	float w = (a->x1 < b->x1 ? a->x1 : b->x1) - (a->x0 > b->x0 ? a->x0 : b->x0);
	float h = (a->y1 < b->y1 ? a->y1 : b->y1) - (a->y0 > b->y0 ? a->y0 : b->y0);
	float inter, uni;

	if (w <= 0 || h <= 0)
		return 0;
	inter = w * h;
	uni = (a->x1 - a->x0) * (a->y1 - a->y0) + (b->x1 - b->x0) * (b->y1 - b->y0) - inter;
	return uni > 0 ? inter / uni : 0;
}

static float clamp01(float v)
{
	return v < 0 ? 0 : v > 1 ? 1 : v;
}

static int detect_run(void *ctx, struct qpu_pipeline_job *job)
{
	struct detect *d = ctx;
	const struct qpu_pipeline_detect *c = &d->c;
	const float *in = job->in;
	struct qpu_pipeline_detections *out = job->out;
	size_t cells = (size_t)c->grid_w * c->grid_h;
	unsigned int n = 0, kept = 0, a, k, i, j;
	size_t cell;

	for (a = 0; a < c->anchors; a++) {
		const float *ch = in + (size_t)a * (5 + c->classes) * cells;

		for (cell = 0; cell < cells; cell++) {
			float obj = ch[4 * cells + cell], best = 0, cx, cy, w, h, score;
			int label = 0;

			if (obj < c->score_threshold)
				continue;
			for (k = 0; k < c->classes; k++) {
				if (ch[(5 + k) * cells + cell] > best) {
					best = ch[(5 + k) * cells + cell];
					label = (int)k;
				}
			}
			score = obj * (c->classes ? best : 1);
			if (score < c->score_threshold || n == d->cand_cap)
				continue;
			cx = ((float)(cell % c->grid_w) + ch[cell]) / (float)c->grid_w;
			cy = ((float)(cell / c->grid_w) + ch[cells + cell]) / (float)c->grid_h;
			w = ch[2 * cells + cell];
			h = ch[3 * cells + cell];
			d->cand[n++] = (struct qpu_pipeline_box){
				.x0 = clamp01(cx - w / 2), .y0 = clamp01(cy - h / 2),
				.x1 = clamp01(cx + w / 2), .y1 = clamp01(cy + h / 2),
				.score = score, .label = label,
			};
		}
	}
	sort_boxes(d->cand, n);
	for (i = 0; i < n && kept < c->max_boxes; i++) {
		int keep = 1;

		for (j = 0; j < kept && keep; j++)
			if (out->boxes[j].label == d->cand[i].label &&
			    iou(&out->boxes[j], &d->cand[i]) > c->iou_threshold)
				keep = 0;
		if (keep)
			out->boxes[kept++] = d->cand[i];
	}
	out->count = kept;
	out->candidates = n;
	return 0;
}

static void detect_fini(void *ctx)
{
	struct detect *d = ctx;

	free(d->cand);
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
	d->cand = calloc(d->cand_cap, sizeof(*d->cand));
	if (!d->cand) {
		free(d);
		return -ENOMEM;
	}
	*stage = (struct qpu_pipeline_stage){
		.name = "detect",
		.can = QPU_PIPELINE_CAN_CPU,
		.why = "box decoding and NMS run on the CPU here (no QPU kernel in this stage)",
		.in_bytes = cells * c->anchors * (5 + c->classes) * sizeof(float),
		.out_bytes = sizeof(struct qpu_pipeline_detections) +
			     (size_t)c->max_boxes * sizeof(struct qpu_pipeline_box),
		.run = detect_run,
		.fini = detect_fini,
		.ctx = d,
	};
	return 0;
}
