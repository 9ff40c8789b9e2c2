// SPDX-License-Identifier: MIT
/*
 * vector-add: add two vectors of a million floats on all the device's QPUs with
 * libqpu's sample kernel. The pattern every kernel follows: open a device
 * and its kernels, put the operands in buffers, call the wrapper, read the
 * result from the buffer's mapping. Copy it and change the kernel.
 *
 * Usage: vector-add [DEVICE]   (default $QPU_DEVICE, else /dev/qpu;
 * "emu" for the in-process emulator)
 * Build against an installed libqpu: cc vector-add.c -lqpu
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "qpu.h"

#include "example.h"
#include "qpu_kernels.h"

#define N	(1 << 20)	/* any positive multiple of 16 */

int main(int argc, char **argv)
{
	struct qpu_kernel_stats stats;
	struct qpu_bo *a = NULL, *b = NULL, *c = NULL;
	struct qpu_kernels *kernels;
	struct qpu_dev *dev;
	float *x, *y, *z;
	int i, ret = 1;

	dev = example_open(argc, argv, "Two vectors of a million floats added on all QPUs (qpu_vector_add()).");
	if (!dev)
		return 1;
	kernels = qpu_kernels_new(dev);
	if (!kernels) {
		fprintf(stderr, "qpu_kernels_new: %s\n", strerror(errno));
		goto out;
	}
	a = qpu_bo_new(dev, N * sizeof(float));
	b = qpu_bo_new(dev, N * sizeof(float));
	c = qpu_bo_new(dev, N * sizeof(float));
	if (!a || !b || !c) {
		fprintf(stderr, "qpu_bo_new: %s\n", strerror(errno));
		goto out;
	}
	x = qpu_bo_get_map(a);
	y = qpu_bo_get_map(b);
	for (i = 0; i < N; i++) {
		x[i] = (float)i;
		y[i] = 0.5f * (float)(N - i);
	}

	/* c = a + b on every QPU; a vector is a buffer, an offset, a length */
	ret = qpu_vector_add(kernels, example_qpus(dev), &(struct qpu_vector){ a, 0, N },
			     &(struct qpu_vector){ b, 0, N },
			     &(struct qpu_vector){ c, 0, N }, &stats);
	if (ret) {
		fprintf(stderr, "%s\n", qpu_kernels_last_error(kernels));
		ret = 1;
		goto out;
	}

	z = qpu_bo_get_map(c);
	for (i = 0; i < N; i++) {
		if (z[i] != x[i] + y[i]) {	/* exact: the sums need no rounding */
			fprintf(stderr, "c[%d] = %g, expected %g\n", i, z[i],
				x[i] + y[i]);
			ret = 1;
			goto out;
		}
	}
	printf("%d sums on %u QPUs of %s in %.3f ms", N, stats.qpus,
	       qpu_dev_describe(dev), stats.elapsed_ns / 1e6);
	if (stats.instructions_known)
		printf(", %llu QPU instructions",
		       (unsigned long long)stats.instructions);
	printf("\n");
out:
	qpu_bo_free(a);
	qpu_bo_free(b);
	qpu_bo_free(c);
	qpu_kernels_free(kernels);	/* before its device */
	qpu_dev_close(dev);
	return ret;
}
