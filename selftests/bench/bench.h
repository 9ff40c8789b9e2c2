/* SPDX-License-Identifier: MIT */
/*
 * What every benchmark needs: a monotonic clock in seconds and the median
 * of a few runs (these machines are noisy; one figure per run is not).
 */
#ifndef QPU_BENCH_H
#define QPU_BENCH_H

#include <stdlib.h>
#include <time.h>

static inline double bench_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * VideoCore IV's FLOP a cycle at peak: 12 QPUs x 16 lanes x 2 ALUs, an
 * instruction every 4 cycles (24 GFLOPS at a Pi 1's 250 MHz).
 */
#define PEAK_FLOP_PER_CYCLE	(12.0 * 16 * 2 / 4)

/* The median of @n values; sorts @v. */
static inline double bench_median(double *v, int n)
{
	qsort(v, n, sizeof(*v), bench_cmp_double);
	return v[n / 2];
}

#endif /* QPU_BENCH_H */
