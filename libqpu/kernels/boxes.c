// SPDX-License-Identifier: MIT
/*
 * Box decoding on the CPU: qpu_decode_ssd_cpu() (anchors and TensorFlow's
 * box coder) and qpu_decode_yolo_cpu() (YOLOv5's grid head), each keeping
 * the classes whose score is above the threshold.
 */

#include <errno.h>
#include <math.h>

#include "postproc.h"

/*
 * Add a detection to @out if there is room; count it either way. NaN
 * scores fail "above", so they are never kept.
 */
static void emit(struct qpu_detection *out, size_t max_out, size_t *n,
		 const float box[4], float score, unsigned int class_id,
		 unsigned int index)
{
	if (*n < max_out)
		out[*n] = (struct qpu_detection){
			.x1 = box[0], .y1 = box[1], .x2 = box[2], .y2 = box[3],
			.score = score, .class_id = class_id, .index = index,
		};
	(*n)++;
}

static int decode_end(struct qpu_kernels *kernels, const char *name, size_t n,
		      size_t max_out, size_t *count)
{
	*count = n;
	if (n > max_out)
		return qpu_postproc_fail(kernels, ENOSPC, name,
					 "%zu detections above the threshold, room for %zu",
					 n, max_out);
	return 0;
}

QPU_API int qpu_decode_ssd_cpu(struct qpu_kernels *kernels, const struct qpu_ssd_params *p,
			       const float *loc, const float *scores, const float *anchors,
			       struct qpu_detection *out, size_t max_out, size_t *count)
{
	const char *name = "decode_ssd";
	size_t n = 0;
	unsigned int a, c, i;

	qpu_postproc_clear(kernels);
	if (!p || !loc || !scores || !anchors || (!out && max_out) || !count)
		return qpu_postproc_fail(kernels, EINVAL, name, "NULL argument");
	if (!p->anchors || p->anchors > QPU_DECODE_MAX_CANDIDATES)
		return qpu_postproc_fail(kernels, EINVAL, name, "%u anchors: 1 to %u",
					 p->anchors, QPU_DECODE_MAX_CANDIDATES);
	if (!p->classes || p->first_class >= p->classes || p->classes > 65536)
		return qpu_postproc_fail(kernels, EINVAL, name,
					 "%u classes from %u: bad counts", p->classes,
					 p->first_class);
	for (i = 0; i < 4; i++)
		if (!(p->scale[i] != 0))
			return qpu_postproc_fail(kernels, EINVAL, name,
						 "scale[%u] is 0 or NaN", i);
	for (a = 0; a < p->anchors; a++) {
		const float *t = loc + (size_t)a * 4, *an = anchors + (size_t)a * 4;
		const float *s = scores + (size_t)a * p->classes;
		float cy = t[0] / p->scale[0] * an[2] + an[0];
		float cx = t[1] / p->scale[1] * an[3] + an[1];
		float h = expf(t[2] / p->scale[2]) * an[2];
		float w = expf(t[3] / p->scale[3]) * an[3];
		float box[4] = {
			(cx - 0.5f * w) * p->width, (cy - 0.5f * h) * p->height,
			(cx + 0.5f * w) * p->width, (cy + 0.5f * h) * p->height,
		};

		for (c = p->first_class; c < p->classes; c++)
			if (s[c] > p->score_threshold)
				emit(out, max_out, &n, box, s[c], c, a);
	}
	return decode_end(kernels, name, n, max_out, count);
}

static float sigmoid(float v)
{
	return 1.0f / (1.0f + expf(-v));
}

QPU_API int qpu_decode_yolo_cpu(struct qpu_kernels *kernels, const struct qpu_yolo_params *p,
				const float *head, const float *anchor_wh,
				struct qpu_detection *out, size_t max_out, size_t *count)
{
	const char *name = "decode_yolo";
	size_t plane, n = 0;
	unsigned int a, c, gx, gy;

	qpu_postproc_clear(kernels);
	if (!p || !head || !anchor_wh || (!out && max_out) || !count)
		return qpu_postproc_fail(kernels, EINVAL, name, "NULL argument");
	if (!p->grid_w || !p->grid_h || !p->anchors || !p->classes ||
	    (uint64_t)p->grid_w * p->grid_h * p->anchors > QPU_DECODE_MAX_CANDIDATES ||
	    p->classes > 65536)
		return qpu_postproc_fail(kernels, EINVAL, name,
					 "%ux%u cells, %u anchors, %u classes: bad counts (at most %u candidates)",
					 p->grid_w, p->grid_h, p->anchors, p->classes,
					 QPU_DECODE_MAX_CANDIDATES);
	plane = (size_t)p->grid_w * p->grid_h;
	for (a = 0; a < p->anchors; a++) {
		const float *ch = head + (size_t)a * (5 + p->classes) * plane;

		for (gy = 0; gy < p->grid_h; gy++) {
			for (gx = 0; gx < p->grid_w; gx++) {
				size_t at = (size_t)gy * p->grid_w + gx;
				float obj = sigmoid(ch[4 * plane + at]);
				float cx = (2 * sigmoid(ch[at]) - 0.5f + gx) * p->stride;
				float cy = (2 * sigmoid(ch[plane + at]) - 0.5f + gy) * p->stride;
				float w = 2 * sigmoid(ch[2 * plane + at]);
				float h = 2 * sigmoid(ch[3 * plane + at]);
				float box[4];

				w = w * w * anchor_wh[2 * a];
				h = h * h * anchor_wh[2 * a + 1];
				box[0] = cx - 0.5f * w;
				box[1] = cy - 0.5f * h;
				box[2] = cx + 0.5f * w;
				box[3] = cy + 0.5f * h;
				for (c = 0; c < p->classes; c++) {
					float s = obj * sigmoid(ch[(5 + c) * plane + at]);

					if (s > p->score_threshold)
						emit(out, max_out, &n, box, s, c,
						     (unsigned int)((a * p->grid_h + gy) *
								    p->grid_w + gx));
				}
			}
		}
	}
	return decode_end(kernels, name, n, max_out, count);
}
