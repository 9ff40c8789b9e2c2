// SPDX-License-Identifier: MIT
/*
 * MobileNet v1's 13 depthwise 3x3 layers as INT8 (v3d/dwconv_u8.qasm,
 * qpu_dwconv3x3_u8_v3d()) on the V3D timing model: a Pi 4 (emu:v3d42, 8
 * QPUs at 500 MHz) and a Pi 5 (emu:v3d71, 12 QPUs at 800 MHz), all QPUs,
 * the frozen table of libqpu/core/timing/qpu_timing_v3d_board.c. Per
 * layer: the modelled time (SUBMIT_CSD's cost included), the bytes the
 * layer must move (input once, output once) over that time as a share of
 * the model's SDRAM bandwidth, the issue slots an output (cycles x QPUs /
 * 4, stalls included), the cycles and the TMU stalls a QPU; then the sum
 * of the 13. Every output is checked against the reference (dwu8-ref.h, on
 * nn_requant()); a wrong byte fails the bench. These are a model's
 * figures, not a measurement.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qpu.h"
#include "qpu_kernels.h"
#include "qpu_timing_v3d.h"
#include "dwu8-ref.h"

static const struct {
	const char *device;
	enum qpu_v3d_emu_board board;
	unsigned int qpus;
} boards[] = {
	{ "emu:v3d42,timing", QPU_V3D_EMU_BOARD_PI4, 8 },
	{ "emu:v3d71,timing", QPU_V3D_EMU_BOARD_PI5_3X4, 12 },
};

/* MobileNet v1 (224 x 224): C, input side, stride; pads 1 all round. */
static const struct { unsigned int c, side, stride; } layers[] = {
	{ 32, 112, 1 }, { 64, 112, 2 }, { 128, 56, 1 }, { 128, 56, 2 }, { 256, 28, 1 },
	{ 256, 28, 2 }, { 512, 14, 1 }, { 512, 14, 1 }, { 512, 14, 1 }, { 512, 14, 1 },
	{ 512, 14, 1 }, { 512, 14, 2 }, { 1024, 7, 1 },
};

static uint32_t rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* One layer on @kernels: its modelled time in @t; -1 when it failed. */
static int layer_run(struct qpu_dev *d, struct qpu_kernels *kernels, unsigned int i,
		     unsigned int qpus, struct qpu_job_timing *t)
{
	unsigned int s = layers[i].stride, n = layers[i].side, o = (n - 1) / s + 1, c = layers[i].c;
	size_t in = (size_t)c * n * n, out = (size_t)c * o * o, j;
	struct qpu_bo *xb = qpu_bo_new(d, in), *yb = qpu_bo_new(d, out);
	int16_t *w = malloc(c * 9 * sizeof(*w));
	int32_t *bias = malloc(c * sizeof(*bias));
	float *mult = malloc(c * sizeof(*mult));
	uint8_t *want = malloc(out);
	uint32_t seed = 0x2545f491u + i;
	int ret = -1;
	struct qpu_dwconv_u8 p = {
		.x = xb, .y = yb, .w = w, .bias = bias, .mult = mult, .zx = 128, .zy = 128,
		.lo = 128, .hi = 255,	/* a fused Relu's */
		.win = { .c = c, .h = n, .w = n, .oh = o, .ow = o, .stride_h = s, .stride_w = s,
			 .pad_top = 1, .pad_left = 1 },
	};

	if (!xb || !yb || !w || !bias || !mult || !want)
		goto out;
	for (j = 0; j < in; j++)
		((uint8_t *)qpu_bo_get_map(xb))[j] = (uint8_t)rnd(&seed);
	for (j = 0; j < (size_t)c * 9; j++)
		w[j] = (int16_t)((int)(rnd(&seed) % 255) - 127);
	for (j = 0; j < c; j++) {
		bias[j] = (int32_t)(rnd(&seed) % 20001) - 10000;
		mult[j] = 0x1p-14f * (float)(16 + rnd(&seed) % 64);
	}
	dwu8_ref(&p, qpu_bo_get_map(xb), want);
	qpu_kernels_take_timing(kernels, t);	/* drop what came before */
	if (qpu_dwconv3x3_u8(kernels, qpus, &p, NULL)) {
		fprintf(stderr, "layer %u: %s\n", i, qpu_kernels_last_error(kernels));
		goto out;
	}
	if (memcmp(qpu_bo_get_map(yb), want, out)) {
		fprintf(stderr, "layer %u: the outputs differ from the reference\n", i);
		goto out;
	}
	ret = qpu_kernels_take_timing(kernels, t) ? -1 : 0;
out:
	free(want);
	free(mult);
	free(bias);
	free(w);
	qpu_bo_free(yb);
	qpu_bo_free(xb);
	return ret;
}

int main(void)
{
	unsigned int b, i;

	printf("INT8 depthwise 3x3 (v3d/dwconv_u8.qasm), MobileNet v1's 13 layers, all QPUs,\n"
	       "the V3D timing model (a model's figures, not a measurement)\n");
	for (b = 0; b < sizeof(boards) / sizeof(boards[0]); b++) {
		const struct qpu_tv_board *tb = qpu_tv_board_get(boards[b].board);
		double bw = (double)qpu_tv_sdram_bytes_per_s(tb), sum_ns = 0, sum_bytes = 0;
		struct qpu_dev *d = qpu_dev_open(boards[b].device);
		struct qpu_kernels *k = d ? qpu_kernels_new(d) : NULL;

		if (!k) {
			fprintf(stderr, "%s: cannot open\n", boards[b].device);
			return 1;
		}
		printf("\n%s (%s, %u QPUs, model bandwidth %.0f MB/s)\n", tb->label,
		       boards[b].device, boards[b].qpus, bw / 1e6);
		printf("%-22s %10s %9s %8s %10s %12s\n", "layer", "time us", "bw share", "slots/o",
		       "cycles", "tmu stall/q");
		for (i = 0; i < sizeof(layers) / sizeof(layers[0]); i++) {
			unsigned int s = layers[i].stride, n = layers[i].side, o = (n - 1) / s + 1;
			double bytes = (double)layers[i].c * (n * n + o * o);
			struct qpu_job_timing t;
			char name[32];

			if (layer_run(d, k, i, boards[b].qpus, &t))
				return 1;
			snprintf(name, sizeof(name), "%ux%ux%u s%u", n, n, layers[i].c, s);
			printf("%-22s %10.1f %8.1f%% %8.2f %10llu %12llu\n", name, t.ns / 1e3,
			       100.0 * bytes / (t.ns * 1e-9) / bw,
			       (double)t.cycles * boards[b].qpus / 4 /
			       ((double)layers[i].c * o * o), (unsigned long long)t.cycles,
			       (unsigned long long)(t.stall_tmu / boards[b].qpus));
			sum_ns += (double)t.ns;
			sum_bytes += bytes;
		}
		printf("%-22s %10.1f %8.1f%%\n", "all 13", sum_ns / 1e3,
		       100.0 * sum_bytes / (sum_ns * 1e-9) / bw);
		qpu_kernels_free(k);
		qpu_dev_close(d);
	}
	return 0;
}
