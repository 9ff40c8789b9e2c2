/* SPDX-License-Identifier: MIT */
/*
 * qpu_preprocess() run on made-up frames and held to qpu_preprocess_cpu():
 * shared by the kernels' test (many small cases) and the benchmark (the
 * 1080p NV12 to 320x320 row), so both mean the same by "correct".
 */
#ifndef QPU_TOOLS_PREPROC_CASES_H
#define QPU_TOOLS_PREPROC_CASES_H

#include <stdbool.h>

#include <qpu_kernels.h>

/**
 * struct pcase - one call's shape
 * @format: the frame's pixel format
 * @width, @height: the frame's size (strides and plane offsets are
 *	padded so none equals a row's bytes)
 * @crop: the crop (0 width: the whole frame)
 * @dst_width, @dst_height: the tensor's size
 * @layout, @type, @colorspace, @flags: as in struct qpu_preprocess
 */
struct pcase {
	enum qpu_pixel_format format;
	unsigned int width, height;
	struct qpu_rect crop;
	unsigned int dst_width, dst_height;
	enum qpu_tensor_layout layout;
	enum qpu_tensor_type type;
	enum qpu_colorspace colorspace;
	unsigned int flags;
};

/**
 * struct pcase_report - how a case went
 * @ok: the QPU's tensor matched the CPU's (floats within a few units in
 *	the last place of the operations, quantised values within 1)
 * @stats: the QPU call's
 * @msg: the call's error or the first mismatch
 */
struct pcase_report {
	bool ok;
	struct qpu_kernel_stats stats;
	char msg[300];
};

/*
 * Build @c's frame (seeded by @seed), run qpu_preprocess() on @qpus QPUs
 * and qpu_preprocess_cpu(), compare. Returns the QPU call's result (0, or
 * its negative errno with @r->msg set).
 */
int pcase_run(struct qpu_kernels *kernels, unsigned int qpus, const struct pcase *c,
	      unsigned int seed, struct pcase_report *r);

/* A short name of @c for messages and tables ("NV12 38x22>20x14 NCHW f32"). */
void pcase_name(const struct pcase *c, char *buf, size_t size);

/*
 * The benchmarks' rows (bench-kernels, bench-kernels-v3d): a 1080p NV12
 * frame to a 320x320 tensor, float NCHW and letterboxed int8 NHWC.
 */
#define PCASE_BENCH_COUNT	2
extern const struct pcase pcase_bench[PCASE_BENCH_COUNT];

#endif /* QPU_TOOLS_PREPROC_CASES_H */
