// SPDX-License-Identifier: MIT
/*
 * qpu_nms() at 2,000 candidates, modelled (the goal: <= 1 ms on a
 * Pi 4): the job's modelled time on a Pi 3 (the VideoCore IV timing model,
 * 12 QPUs), a Pi 4 (emu:v3d42,timing, 8 QPUs) and a Pi 5 (emu:v3d71,timing,
 * 12 QPUs), for the boxes in one class (every pair computed: the worst
 * case), in 20 classes and in 80 (COCO's). Each result is checked against
 * qpu_nms_cpu(); a difference fails the bench. Beside it, this machine's
 * wall time of qpu_nms_cpu(), the CPU fallback (not a Pi's). The model
 * leaves out qpu_nms()'s CPU side (sorting, packing, the greedy walk over
 * the matrix). These are a model's figures, not a measurement.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "qpu.h"
#include "qpu_kernels.h"

#define CANDIDATES	2000

static uint32_t seed = 1;

static float frand(float lo, float hi)
{
	seed = seed * 1103515245u + 12345u;
	return lo + (hi - lo) * (float)((seed >> 8) % 65536) / 65536.0f;
}

/* @n boxes in a 320 x 320 input, around 100 objects, @classes classes. */
static void make_dets(struct qpu_detection *d, size_t n, unsigned int classes)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned int obj = (unsigned int)(i * 7919 % 100);
		float cx = 16 + (float)(obj * 53 % 288) + frand(-6, 6);
		float cy = 16 + (float)(obj * 97 % 288) + frand(-6, 6);
		float w = frand(10, 80), h = frand(10, 80);

		d[i] = (struct qpu_detection){
			.x1 = cx - w / 2, .y1 = cy - h / 2, .x2 = cx + w / 2, .y2 = cy + h / 2,
			.score = frand(0.25f, 1), .class_id = obj % classes, .index = (uint32_t)i,
		};
	}
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static const struct {
	const char *label, *device;
	enum qpu_board board;	/* VideoCore IV: the model's board */
	unsigned int qpus;
} boards[] = {
	{ "Pi 3 (VideoCore IV, 12 QPUs)", "emu", QPU_BOARD_PI3, 12 },
	{ "Pi 4 (V3D 4.2, 8 QPUs)", "emu:v3d42,timing", 0, 8 },
	{ "Pi 5 (V3D 7.1, 12 QPUs)", "emu:v3d71,timing", 0, 12 },
};

static const unsigned int class_counts[] = { 1, 20, 80 };

int main(void)
{
	struct qpu_nms_params p = { .iou_threshold = 0.45f, .scale = 6 };
	struct qpu_detection *d = malloc(CANDIDATES * sizeof(*d));
	uint32_t *a = malloc(CANDIDATES * sizeof(*a)), *b = malloc(CANDIDATES * sizeof(*b));
	size_t na, nb, bi, ci;
	int failed = 0;

	printf("qpu_nms(), %u candidates, IoU threshold %.2f: the job's modelled time\n"
	       "(a model's figures, not a measurement; qpu_nms()'s CPU side left out),\n"
	       "and this machine's wall time of qpu_nms_cpu(), the CPU fallback\n",
	       CANDIDATES, (double)p.iou_threshold);
	printf("  %-30s %8s %6s %12s %12s\n", "board", "classes", "kept", "QPU job",
	       "nms_cpu");
	for (bi = 0; bi < sizeof(boards) / sizeof(boards[0]); bi++) {
		struct qpu_dev *dev = qpu_dev_open(boards[bi].device);
		struct qpu_kernels *kernels = NULL;

		if (dev && (!boards[bi].board || !qpu_dev_set_board(dev, boards[bi].board)))
			kernels = qpu_kernels_new(dev);
		if (!kernels) {
			fprintf(stderr, "bench-postproc: %s: %s\n", boards[bi].device,
				strerror(errno));
			qpu_dev_close(dev);
			failed = 1;
			continue;
		}
		for (ci = 0; ci < sizeof(class_counts) / sizeof(class_counts[0]); ci++) {
			struct qpu_job_timing t;
			double t0, t1;

			make_dets(d, CANDIDATES, class_counts[ci]);
			qpu_kernels_take_timing(kernels, &t);
			t0 = now_us();
			if (qpu_nms_cpu(NULL, d, CANDIDATES, &p, a, CANDIDATES, &na))
				failed = 1;
			t1 = now_us();
			if (qpu_nms(kernels, boards[bi].qpus, d, CANDIDATES, &p, b, CANDIDATES,
				    &nb, NULL) || qpu_kernels_take_timing(kernels, &t)) {
				fprintf(stderr, "bench-postproc: %s\n", qpu_kernels_last_error(kernels));
				failed = 1;
				continue;
			}
			printf("  %-30s %8u %6zu %9.1f us %9.1f us%s\n", boards[bi].label,
			       class_counts[ci], nb, t.ns / 1e3, t1 - t0, na != nb || memcmp(a, b, na * sizeof(*a)) ?
			       " WRONG RESULT" : "");
			failed |= na != nb || memcmp(a, b, na * sizeof(*a));
		}
		qpu_kernels_free(kernels);
		qpu_dev_close(dev);
	}
	free(d);
	free(a);
	free(b);
	return failed;
}
