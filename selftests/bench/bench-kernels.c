// SPDX-License-Identifier: MIT
/*
 * The sample kernels on the in-process emulator (or the device named by the
 * first argument), one line each: QPU instructions issued, bytes fetched by
 * the TMUs, read as uniforms and moved by VCD DMA, and the median wall time
 * of a few runs. The byte counts are the wrapper's; where the device
 * measures them too (the emulator) the "measured" column says whether they
 * agree, and a disagreement fails the bench.
 * Every run is checked against the CPU (tools/lib/kernel-cases.h); a wrong
 * result fails the bench. On the emulator the time is the emulator's, not a
 * QPU's: compare instruction counts across changes, times across machines.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "qpu.h"
#include "qpu_kernels.h"
#include "bench.h"
#include "kernel-cases.h"

#define RUNS	3

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "emu";
	struct qpu_dev *dev = qpu_dev_open(path);
	struct qpu_kernels *kernels = dev ? qpu_kernels_new(dev) : NULL;
	size_t i;
	int r, failed = 0;

	if (!kernels) {
		fprintf(stderr, "bench-kernels: qpu_dev_open(%s): %s\n", path,
			strerror(errno));
		qpu_dev_close(dev);
		return 1;
	}
	printf("sample kernels on %s (12 QPUs, median of %d runs)\n",
	       qpu_dev_describe(dev), RUNS);
	printf("  %-14s %-16s %14s %12s %10s %10s %12s %9s %10s\n", "kernel",
	       "size", "instructions", "TMU bytes", "uniforms", "DMA load",
	       "DMA store", "measured", "time ms");
	for (i = 0; i < kcase_count; i++) {
		struct kcase_report rep;
		double t[RUNS];
		const char *measured;
		char instr[24];

		for (r = 0; r < RUNS; r++) {
			memset(&rep, 0, sizeof(rep));
			if (kcases[i].run(kernels, 12, 0, &rep) || !rep.ok) {
				fprintf(stderr, "bench-kernels: %s: %s\n",
					kcases[i].kernel, rep.msg);
				failed = 1;
				break;
			}
			t[r] = rep.stats.elapsed_ns / 1e6;
		}
		if (r < RUNS)
			continue;
		if (rep.stats.instructions_known)
			snprintf(instr, sizeof(instr), "%llu",
				 (unsigned long long)rep.stats.instructions);
		else
			snprintf(instr, sizeof(instr), "n/a");
		measured = "n/a";
		if (rep.stats.counters_known) {
			const struct qpu_job_counters *m = &rep.stats.counters;
			bool same = m->tmu_bytes == rep.stats.tmu_bytes &&
				    m->uniform_bytes == rep.stats.uniform_bytes &&
				    m->dma_load_bytes == rep.stats.dma_load_bytes &&
				    m->dma_store_bytes == rep.stats.dma_store_bytes;

			measured = same ? "same" : "DIFFERENT";
			failed |= !same;
		}
		printf("  %-14s %-16s %14s %12llu %10llu %10llu %12llu %9s %10.3f\n",
		       kcases[i].kernel, rep.size, instr,
		       (unsigned long long)rep.stats.tmu_bytes,
		       (unsigned long long)rep.stats.uniform_bytes,
		       (unsigned long long)rep.stats.dma_load_bytes,
		       (unsigned long long)rep.stats.dma_store_bytes,
		       measured, bench_median(t, RUNS));
	}
	qpu_kernels_free(kernels);
	qpu_dev_close(dev);
	return failed;
}
