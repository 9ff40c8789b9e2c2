/* SPDX-License-Identifier: MIT */
/*
 * Every sample kernel of libqpu run once on made-up data and checked
 * against the CPU: shared by qpu-demo (one table), the kernels' test (many
 * sizes and QPU counts) and their benchmark, so the three never disagree on
 * what "correct" means.
 *
 * Float results are compared with a tolerance derived from the QPU's
 * rounding (toward zero, denormals flushed): a result may differ from the
 * exact value (computed in double) by one unit in the last place of each
 * rounded operation it went through; integer and byte results must be exact.
 */
#ifndef QPU_TOOLS_KERNEL_CASES_H
#define QPU_TOOLS_KERNEL_CASES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <qpu_kernels.h>

/**
 * struct kcase_report - how one case went
 * @size: the shape, for people ("4096", "640x480")
 * @ok: the result matched the CPU's
 * @stats: what the wrapper reported
 * @flop: floating-point operations the case asks for (sgemm: 2MNK), 0
 *	for kernels measured in bytes
 * @msg: why it failed (the wrapper's error, or the first mismatch)
 * @cpu_ns: with kcase_time_cpu set, the time plain C on one thread of this
 *	machine's CPU took for the same work (-O2, no SIMD intrinsics, no
 *	BLAS); else 0
 */
struct kcase_report {
	char size[48];
	bool ok;
	struct qpu_kernel_stats stats;
	double flop;
	char msg[256];
	uint64_t cpu_ns;
};

/* Set by qpu-demo: the cases also time the CPU doing their work (@cpu_ns). */
extern bool kcase_time_cpu;

/* A case at a scale (elements or pixels; 0 for its default). */
typedef int (*kcase_fn)(struct qpu_kernels *kernels, unsigned int qpus,
			size_t scale, struct kcase_report *r);

/*
 * @small: a scale the tests run at several QPU counts, with uneven shares
 * (0 means the default, the demo's size); @counted: the wrapper reports
 * the instruction count where the device counts them; @stream: a kernel
 * bound by memory bandwidth, whose share of it bench-kernels-v3d reports at
 * 1 Mi elements (the streaming kernels of libqpu/kernels/kernel.h, and
 * reduce, which reads its vector once).
 */
struct kcase {
	const char *kernel;
	kcase_fn run;
	size_t small;
	bool counted;
	bool stream;
};

/* Every kernel's case, in the order qpu-demo prints them (kernel-cases.c). */
extern const struct kcase kcases[];
extern const size_t kcase_count;

#endif /* QPU_TOOLS_KERNEL_CASES_H */
