// SPDX-License-Identifier: MIT
/*
 * Post-processing (<qpu_kernels.h>'s "DOC: post-processing") on the
 * in-process emulator or the device named by --device: qpu_nms() against
 * qpu_nms_cpu() index for index, the CPU reference against the IoU rule
 * it states, the decoders against hand-computed boxes, qpu_ccl_cpu()
 * against a flood fill, every edge case the header names, and every
 * refusal with its message.
 */

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qpu.h"
#include "qpu_kernels.h"
#include "testlib.h"
#include "kernels-dev.h"

static struct qpu_dev *dev;
static struct qpu_kernels *kernels;
static unsigned int max_qpus = 12;	/* the device's, at most 12 */

static uint32_t seed = 12345;

static uint32_t rnd(void)
{
	seed = seed * 1103515245u + 12345u;
	return seed >> 8;
}

/* Uniform in [lo, hi). */
static float frand(float lo, float hi)
{
	return lo + (hi - lo) * (float)(rnd() % 65536) / 65536.0f;
}

/*
 * @n boxes around @clusters centres in a 320-unit image, @classes classes,
 * scores from a small set so that ties happen.
 */
static void random_dets(struct qpu_detection *d, size_t n, unsigned int clusters,
			unsigned int classes)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned int c = rnd() % clusters;
		float cx = 20 + (float)(c * 53 % 280), cy = 20 + (float)(c * 97 % 280);
		float w = frand(8, 60), h = frand(8, 60);

		cx += frand(-10, 10);
		cy += frand(-10, 10);
		d[i] = (struct qpu_detection){
			.x1 = cx - w / 2, .y1 = cy - h / 2, .x2 = cx + w / 2, .y2 = cy + h / 2,
			.score = (float)(rnd() % 50) / 50.0f,
			.class_id = rnd() % classes, .index = (uint32_t)i,
		};
	}
}

/* qpu_nms() on @qpus QPUs and qpu_nms_cpu() give the same indices. */
static void same_as_cpu(const struct qpu_detection *d, size_t n,
			const struct qpu_nms_params *p, unsigned int qpus)
{
	uint32_t *a = malloc((n + 1) * sizeof(*a)), *b = malloc((n + 1) * sizeof(*b));
	size_t na = 99, nb = 98;
	struct qpu_kernel_stats st;

	T_EQ_U64(0, qpu_nms_cpu(kernels, d, n, p, a, n, &na));
	T_EQ_U64(0, qpu_nms(kernels, qpus, d, n, p, b, n, &nb, &st));
	T_EQ_STR("", qpu_kernels_last_error(kernels));
	T_EQ_U64(na, nb);
	if (na == nb && memcmp(a, b, na * sizeof(*a))) {
		fprintf(stderr, "n %zu, %u QPUs, threshold %g: indices differ\n", n, qpus,
			(double)p->iou_threshold);
		T_CHECK(0);
	}
	free(a);
	free(b);
}

T_TEST(nms_matches_cpu)
{
	static const size_t sizes[] = { 1, 17, 32, 100, 333 };
	static const float thresholds[] = { 0, 0.3f, 0.5f, 0.7f, 1 };
	struct qpu_nms_params p = { .scale = 4 };
	struct qpu_detection *d = malloc(333 * sizeof(*d));
	unsigned int s, t, classes;

	for (s = 0; s < T_ARRAY_SIZE(sizes); s++) {
		for (classes = 1; classes <= 400; classes *= 20) {
			random_dets(d, sizes[s], 1 + (unsigned int)sizes[s] / 8, classes);
			for (t = 0; t < T_ARRAY_SIZE(thresholds); t++) {
				p.iou_threshold = thresholds[t];
				same_as_cpu(d, sizes[s], &p, t % 2 ? 1 : max_qpus);
			}
		}
	}
	free(d);
}

/* The IoU rule on integer boxes: kept both iff IoU <= k / 256. */
T_TEST(nms_cpu_iou_rule)
{
	struct qpu_nms_params p = { .scale = 1 };
	struct qpu_detection d[2];
	uint32_t keep[2];
	size_t kept, i;

	for (i = 0; i < 2000; i++) {
		int x1 = (int)(rnd() % 40), y1 = (int)(rnd() % 40);
		int x2 = x1 + (int)(rnd() % 30), y2 = y1 + (int)(rnd() % 30);
		int u1 = (int)(rnd() % 40), v1 = (int)(rnd() % 40);
		int u2 = u1 + (int)(rnd() % 30), v2 = v1 + (int)(rnd() % 30);
		int w = (x2 < u2 ? x2 : u2) - (x1 > u1 ? x1 : u1);
		int h = (y2 < v2 ? y2 : v2) - (y1 > v1 ? y1 : v1);
		long inter = w > 0 && h > 0 ? (long)w * h : 0;
		long uni = (long)(x2 - x1) * (y2 - y1) + (long)(u2 - u1) * (v2 - v1) - inter;
		unsigned int k = rnd() % 257;

		d[0] = (struct qpu_detection){ (float)x1, (float)y1, (float)x2, (float)y2,
					       0.9f, 3, 0 };
		d[1] = (struct qpu_detection){ (float)u1, (float)v1, (float)u2, (float)v2,
					       0.8f, 3, 1 };
		p.iou_threshold = (float)k / 256;
		T_EQ_U64(0, qpu_nms_cpu(NULL, d, 2, &p, keep, 2, &kept));
		/* IoU > k / 256, in integers; no area: never */
		T_EQ_U64(inter > 0 && 256 * inter > (long)k * uni ? 1 : 2, kept);
		T_EQ_U64(0, keep[0]);
	}
}

/* Both paths give @want (@count indices) for @d. */
static void nms_gives(const struct qpu_detection *d, size_t n,
		      const struct qpu_nms_params *p, const uint32_t *want, size_t count)
{
	uint32_t keep[16];
	size_t kept = 99, i;

	T_EQ_U64(0, qpu_nms_cpu(kernels, d, n, p, keep, 16, &kept));
	T_EQ_U64(count, kept);
	for (i = 0; i < count && i < kept; i++)
		T_EQ_U64(want[i], keep[i]);
	kept = 99;
	T_EQ_U64(0, qpu_nms(kernels, max_qpus, d, n, p, keep, 16, &kept, NULL));
	T_EQ_U64(count, kept);
	for (i = 0; i < count && i < kept; i++)
		T_EQ_U64(want[i], keep[i]);
}

T_TEST(nms_edges)
{
	struct qpu_nms_params p = { .iou_threshold = 0.5f, .scale = 1 };
	struct qpu_detection d[6];
	uint32_t keep[1];
	size_t kept = 99, i;

	/* no candidates: nothing kept, no job */
	T_EQ_U64(0, qpu_nms(kernels, 1, NULL, 0, &p, NULL, 0, &kept, NULL));
	T_EQ_U64(0, kept);
	T_EQ_U64(0, qpu_nms_cpu(NULL, NULL, 0, &p, NULL, 0, &kept));
	/* all the same box: the best stays; equal scores: the first */
	for (i = 0; i < 6; i++)
		d[i] = (struct qpu_detection){ 10, 10, 50, 50, i == 4 ? 0.9f : 0.5f, 1, 0 };
	nms_gives(d, 6, &p, (const uint32_t[]){ 4 }, 1);
	d[4].score = 0.5f;
	nms_gives(d, 6, &p, (const uint32_t[]){ 0 }, 1);
	/* a threshold of 1 keeps all, by score then position */
	p.iou_threshold = 1;
	d[3].score = 0.7f;
	nms_gives(d, 6, &p, (const uint32_t[]){ 3, 0, 1, 2, 4, 5 }, 6);
	/* max_out: the best ones */
	p.max_out = 2;
	nms_gives(d, 6, &p, (const uint32_t[]){ 3, 0 }, 2);
	p.max_out = 0;
	/* IoU exactly 0.5 (100 of 200) is kept at 0.5, not at 0.49 */
	d[0] = (struct qpu_detection){ 0, 0, 10, 10, 0.9f, 0, 0 };
	d[1] = (struct qpu_detection){ 0, 0, 10, 20, 0.8f, 0, 0 };
	p.iou_threshold = 0.5f;
	nms_gives(d, 2, &p, (const uint32_t[]){ 0, 1 }, 2);
	p.iou_threshold = 0.49f;
	nms_gives(d, 2, &p, (const uint32_t[]){ 0 }, 1);
	/* threshold 0: any overlap; touching edges are no overlap */
	p.iou_threshold = 0;
	d[1] = (struct qpu_detection){ 9, 9, 30, 30, 0.8f, 0, 0 };
	d[2] = (struct qpu_detection){ 10, 0, 20, 10, 0.7f, 0, 0 };
	nms_gives(d, 3, &p, (const uint32_t[]){ 0, 2 }, 2);
	/* another class is never suppressed; more classes than boxes */
	d[1].class_id = 1000;
	nms_gives(d, 3, &p, (const uint32_t[]){ 0, 1, 2 }, 3);
	/* boxes without area (and inverted ones) suppress nothing, nor are */
	d[0] = (struct qpu_detection){ 5, 5, 5, 40, 0.9f, 0, 0 };
	d[1] = (struct qpu_detection){ 0, 0, 10, 10, 0.8f, 0, 0 };
	d[2] = (struct qpu_detection){ 8, 8, 2, 2, 0.7f, 0, 0 };
	nms_gives(d, 3, &p, (const uint32_t[]){ 0, 1, 2 }, 3);
	/* coordinates off the grid are clamped: both at the corner, no area */
	d[0] = (struct qpu_detection){ -50, -50, -10, -10, 0.9f, 0, 0 };
	d[1] = (struct qpu_detection){ -40, -40, -20, -20, 0.8f, 0, 0 };
	nms_gives(d, 2, &p, (const uint32_t[]){ 0, 1 }, 2);
	d[0] = (struct qpu_detection){ 3000, 0, INFINITY, 10, 0.9f, 0, 0 };
	nms_gives(d, 1, &p, (const uint32_t[]){ 0 }, 1);
	(void)keep;
}

/* @ret is -EINVAL and the message contains @what. */
static void refused(int ret, const char *msg, const char *what)
{
	T_EQ_U64((uint64_t)-EINVAL, ret);
	if (!strstr(msg, what)) {
		fprintf(stderr, "message \"%s\" lacks \"%s\"\n", msg, what);
		T_CHECK(0);
	}
}

T_TEST(nms_bad)
{
	struct qpu_nms_params p = { .iou_threshold = 0.5f, .scale = 1 };
	struct qpu_detection d[3] = {
		{ 0, 0, 1, 1, 0.5f, 0, 0 }, { 0, 0, 1, 1, 0.5f, 0, 0 }, { 0, 0, 1, 1, 0.5f, 0, 0 },
	};
	uint32_t keep[3];
	size_t kept;
	const char *m;

#define BOTH(call_cpu, call_qpu, what) do {					\
	refused(call_cpu, qpu_kernels_last_error(kernels), what);		\
	refused(call_qpu, qpu_kernels_last_error(kernels), what);		\
} while (0)
	BOTH(qpu_nms_cpu(kernels, d, 3, NULL, keep, 3, &kept),
	     qpu_nms(kernels, 1, d, 3, NULL, keep, 3, &kept, NULL), "NULL argument");
	BOTH(qpu_nms_cpu(kernels, NULL, 3, &p, keep, 3, &kept),
	     qpu_nms(kernels, 1, NULL, 3, &p, keep, 3, &kept, NULL), "NULL argument");
	BOTH(qpu_nms_cpu(kernels, d, 3, &p, keep, 3, NULL),
	     qpu_nms(kernels, 1, d, 3, &p, keep, 3, NULL, NULL), "NULL argument");
	BOTH(qpu_nms_cpu(kernels, d, QPU_NMS_MAX_CANDIDATES + 1, &p, keep, 3, &kept),
	     qpu_nms(kernels, 1, d, QPU_NMS_MAX_CANDIDATES + 1, &p, keep, 3, &kept, NULL),
	     "boxes: at most 8192");
	BOTH(qpu_nms_cpu(kernels, d, 3, &p, keep, 2, &kept),
	     qpu_nms(kernels, 1, d, 3, &p, keep, 2, &kept, NULL),
	     "keep: room for 2 indices, 3 needed");
	p.max_out = 2;	/* enough room then */
	T_EQ_U64(0, qpu_nms(kernels, 1, d, 3, &p, keep, 2, &kept, NULL));
	p.iou_threshold = -0.1f;
	BOTH(qpu_nms_cpu(kernels, d, 3, &p, keep, 3, &kept),
	     qpu_nms(kernels, 1, d, 3, &p, keep, 3, &kept, NULL), "not in [0, 1]");
	p.iou_threshold = 1.5f;
	BOTH(qpu_nms_cpu(kernels, d, 3, &p, keep, 3, &kept),
	     qpu_nms(kernels, 1, d, 3, &p, keep, 3, &kept, NULL), "not in [0, 1]");
	p.iou_threshold = NAN;
	BOTH(qpu_nms_cpu(kernels, d, 3, &p, keep, 3, &kept),
	     qpu_nms(kernels, 1, d, 3, &p, keep, 3, &kept, NULL), "not in [0, 1]");
	p.iou_threshold = 0.5f;
	p.scale = 0;
	BOTH(qpu_nms_cpu(kernels, d, 3, &p, keep, 3, &kept),
	     qpu_nms(kernels, 1, d, 3, &p, keep, 3, &kept, NULL), "not above 0");
	p.scale = 1;
	d[2].score = NAN;
	BOTH(qpu_nms_cpu(kernels, d, 3, &p, keep, 3, &kept),
	     qpu_nms(kernels, 1, d, 3, &p, keep, 3, &kept, NULL),
	     "detection 2: NaN score or coordinate");
	d[2].score = 0.5f;
	d[1].y2 = NAN;
	BOTH(qpu_nms_cpu(kernels, d, 3, &p, keep, 3, &kept),
	     qpu_nms(kernels, 1, d, 3, &p, keep, 3, &kept, NULL), "detection 1: NaN");
	d[1].y2 = 1;
	refused(qpu_nms(kernels, 0, d, 3, &p, keep, 3, &kept, NULL),
		qpu_kernels_last_error(kernels), "nms: ");
	refused(qpu_nms(kernels, 1000, d, 3, &p, keep, 3, &kept, NULL),
		qpu_kernels_last_error(kernels), "nms: ");
	/* without kernels, the message is the thread's */
	refused(qpu_nms_cpu(NULL, d, 3, &p, keep, 1, &kept), qpu_last_error(), "nms_cpu: keep");
	m = qpu_kernels_last_error(kernels);
	T_EQ_U64(0, qpu_nms_cpu(kernels, d, 3, &p, keep, 3, &kept));
	T_EQ_STR("", m);
#undef BOTH
}

static bool near(float a, float b)
{
	return fabsf(a - b) <= 1e-4f * (1 + fabsf(b));
}

T_TEST(decode_ssd)
{
	/* two anchors, background + 2 classes */
	const float anchors[] = { 0.5f, 0.5f, 0.2f, 0.4f, 0.25f, 0.75f, 0.5f, 0.5f };
	const float loc[] = { 0, 0, 0, 0, 1, -2, 5 * logf(2), 0 };
	const float scores[] = { 0.9f, 0.6f, 0.2f, 0.1f, NAN, 0.7f };
	struct qpu_ssd_params p = {
		.anchors = 2, .classes = 3, .first_class = 1, .scale = { 10, 10, 5, 5 },
		.score_threshold = 0.5f, .width = 200, .height = 100,
	};
	struct qpu_detection out[4];
	size_t n = 0;

	T_EQ_U64(0, qpu_decode_ssd_cpu(kernels, &p, loc, scores, anchors, out, 4, &n));
	T_EQ_U64(2, n);
	/* anchor 0: centre (0.5, 0.5), 0.4 x 0.2 */
	T_CHECK(near(out[0].x1, 60) && near(out[0].y1, 40) && near(out[0].x2, 140) &&
		near(out[0].y2, 60));
	T_CHECK(out[0].class_id == 1 && out[0].index == 0 && out[0].score == 0.6f);
	/* anchor 1: cy 0.25 + 0.1 * 0.5, cx 0.75 - 0.2 * 0.5, h 2 * 0.5, w 0.5 */
	T_CHECK(near(out[1].x1, 80) && near(out[1].y1, -20) && near(out[1].x2, 180) &&
		near(out[1].y2, 80));
	T_CHECK(out[1].class_id == 2 && out[1].index == 1);
	/* too little room: the first, and how many there were */
	T_EQ_U64((uint64_t)-ENOSPC, qpu_decode_ssd_cpu(kernels, &p, loc, scores, anchors,
						       out, 1, &n));
	T_EQ_U64(2, n);
	T_EQ_STR("decode_ssd: 2 detections above the threshold, room for 1",
		 qpu_kernels_last_error(kernels));
	p.first_class = 3;
	refused(qpu_decode_ssd_cpu(kernels, &p, loc, scores, anchors, out, 4, &n),
		qpu_kernels_last_error(kernels), "bad counts");
	p.first_class = 0;
	p.anchors = 0;
	refused(qpu_decode_ssd_cpu(kernels, &p, loc, scores, anchors, out, 4, &n),
		qpu_kernels_last_error(kernels), "0 anchors");
	p.anchors = 2;
	p.scale[2] = 0;
	refused(qpu_decode_ssd_cpu(NULL, &p, loc, scores, anchors, out, 4, &n),
		qpu_last_error(), "scale[2]");
	refused(qpu_decode_ssd_cpu(kernels, &p, NULL, scores, anchors, out, 4, &n),
		qpu_kernels_last_error(kernels), "NULL");
}

T_TEST(decode_yolo)
{
	/* 2 x 1 grid, 1 anchor, 2 classes: channels tx ty tw th obj c0 c1 */
	float head[7 * 2] = { 0 };
	const float anchor_wh[] = { 10, 20 };
	struct qpu_yolo_params p = {
		.grid_w = 2, .grid_h = 1, .anchors = 1, .classes = 2, .stride = 8,
		.score_threshold = 0.2f,
	};
	struct qpu_detection out[4];
	size_t n = 0;

	head[2 * 4 + 1] = -20;		/* cell 1: no object */
	head[2 * 6] = -20;		/* cell 0, class 1: no */
	head[2 * 5] = NAN;		/* cell 0, class 0: NaN, never kept */
	head[2 * 5] = 20;
	T_EQ_U64(0, qpu_decode_yolo_cpu(kernels, &p, head, anchor_wh, out, 4, &n));
	T_EQ_U64(1, n);
	/* s(0) = 0.5: centre (0.5 + gx) * 8, size the anchor's; score 0.5 * ~1 */
	T_CHECK(near(out[0].x1, -1) && near(out[0].y1, -6) && near(out[0].x2, 9) &&
		near(out[0].y2, 14));
	T_CHECK(out[0].class_id == 0 && out[0].index == 0 && near(out[0].score, 0.5f));
	head[2 * 5] = NAN;
	T_EQ_U64(0, qpu_decode_yolo_cpu(kernels, &p, head, anchor_wh, out, 4, &n));
	T_EQ_U64(0, n);
	p.classes = 0;
	refused(qpu_decode_yolo_cpu(kernels, &p, head, anchor_wh, out, 4, &n),
		qpu_kernels_last_error(kernels), "bad counts");
	p.classes = 2;
	p.grid_w = 1u << 19;
	p.anchors = 3;	/* 3 * 2^19 candidates */
	refused(qpu_decode_yolo_cpu(kernels, &p, head, anchor_wh, out, 4, &n),
		qpu_kernels_last_error(kernels), "bad counts");
	p.grid_w = 2;
	p.anchors = 1;
	refused(qpu_decode_yolo_cpu(kernels, &p, head, anchor_wh, NULL, 4, &n),
		qpu_kernels_last_error(kernels), "NULL");
}

/* A flood fill's labels, numbered in scan order: what qpu_ccl_cpu() promises. */
static uint32_t flood(const uint8_t *m, unsigned int w, unsigned int h, uint8_t t,
		      unsigned int conn, uint32_t *lab)
{
	size_t *stack = malloc((size_t)w * h * sizeof(*stack)), top, i;
	uint32_t n = 0;

	memset(lab, 0, (size_t)w * h * sizeof(*lab));
	for (i = 0; i < (size_t)w * h; i++) {
		if (m[i] <= t || lab[i])
			continue;
		lab[i] = ++n;
		stack[0] = i;
		top = 1;
		while (top) {
			size_t p = stack[--top];
			int x = (int)(p % w), y = (int)(p / w), dx, dy;

			for (dy = -1; dy <= 1; dy++)
				for (dx = -1; dx <= 1; dx++) {
					int u = x + dx, v = y + dy;
					size_t q;

					if ((!dx && !dy) || (conn == 4 && dx && dy) || u < 0 ||
					    v < 0 || u >= (int)w || v >= (int)h)
						continue;
					q = (size_t)v * w + (size_t)u;
					if (m[q] > t && !lab[q]) {
						lab[q] = n;
						stack[top++] = q;
					}
				}
		}
	}
	free(stack);
	return n;
}

T_TEST(ccl)
{
	/* a U closed at the bottom: one component; a diagonal pair: 1 or 2 */
	static const uint8_t u[] = {
		9, 0, 9, 0, 0,
		9, 0, 9, 0, 9,
		9, 9, 9, 9, 0,
	};
	static const uint32_t u4[] = {
		1, 0, 1, 0, 0,
		1, 0, 1, 0, 2,
		1, 1, 1, 1, 0,
	};
	uint32_t lab[15], ref[64 * 48], got[64 * 48], count = 99;
	uint8_t *m = malloc(64 * 48 + 64);
	unsigned int i, conn, t;

	T_EQ_U64(0, qpu_ccl_cpu(kernels, u, 5, 3, 5, 0, 4, lab, &count));
	T_EQ_U64(2, count);
	T_CHECK(!memcmp(lab, u4, sizeof(u4)));
	T_EQ_U64(0, qpu_ccl_cpu(kernels, u, 5, 3, 5, 0, 8, lab, &count));
	T_EQ_U64(1, count);
	T_EQ_U64(0, qpu_ccl_cpu(kernels, u, 5, 3, 5, 9, 8, lab, &count));
	T_EQ_U64(0, count);
	/* random masks with a stride, both connectivities, against a flood fill */
	for (t = 0; t < 6; t++) {
		for (i = 0; i < 64 * 48 + 64; i++)
			m[i] = (uint8_t)(rnd() % 256);
		for (conn = 4; conn <= 8; conn += 4) {
			uint8_t packed[64 * 48];
			unsigned int y;

			for (y = 0; y < 48; y++)
				memcpy(packed + y * 63, m + y * 64, 63);
			T_EQ_U64(0, qpu_ccl_cpu(NULL, m, 63, 48, 64, (uint8_t)(80 + t * 20), conn,
						got, &count));
			T_EQ_U64(flood(packed, 63, 48, (uint8_t)(80 + t * 20), conn, ref), count);
			T_CHECK(!memcmp(got, ref, 63 * 48 * sizeof(*got)));
		}
	}
	/* one pixel, one row, one column */
	T_EQ_U64(0, qpu_ccl_cpu(kernels, u, 1, 1, 1, 0, 4, lab, &count));
	T_EQ_U64(1, count);
	T_EQ_U64(0, qpu_ccl_cpu(kernels, u + 10, 5, 1, 5, 0, 4, lab, &count));
	T_EQ_U64(1, count);
	T_EQ_U64(0, qpu_ccl_cpu(kernels, u, 1, 3, 5, 0, 4, lab, &count));
	T_EQ_U64(1, count);
	refused(qpu_ccl_cpu(kernels, u, 0, 3, 5, 0, 4, lab, &count),
		qpu_kernels_last_error(kernels), "sides 1 to 65536");
	refused(qpu_ccl_cpu(kernels, u, 5, 3, 4, 0, 4, lab, &count),
		qpu_kernels_last_error(kernels), "stride 4");
	refused(qpu_ccl_cpu(kernels, u, 5, 3, 5, 0, 6, lab, &count),
		qpu_kernels_last_error(kernels), "connectivity 6: 4 or 8");
	refused(qpu_ccl_cpu(NULL, u, 5, 3, 5, 0, 4, NULL, &count), qpu_last_error(),
		"ccl: NULL");
	free(m);
}

static const char *device_path = "emu";

T_KERNELS_OPTIONS(device_path);

static int open_kernels(void)
{
	uint64_t v;

	if (t_open_kernels(device_path, T_EXIT_FAIL, &dev, &kernels) != T_EXIT_PASS)
		return T_EXIT_FAIL;
	if (qpu_dev_get_param(dev, QPU_DEV_PARAM_NUM_QPUS, &v) == 0 && v < max_qpus)
		max_qpus = (unsigned int)v;
	return T_EXIT_PASS;
}

static void close_kernels(void)
{
	t_close_kernels(dev, kernels);
}

T_MAIN(.setup = open_kernels, .teardown = close_kernels, .options = options)
