// SPDX-License-Identifier: MIT
/*
 * qpu_ccl_cpu(): connected-component labelling of a thresholded 8-bit
 * mask on the CPU, two raster passes with union-find.
 *
 * The first pass gives each foreground pixel the smallest provisional
 * label of its already-scanned neighbours (left, up, and the two upper
 * diagonals for 8-connectivity), or a new one, and unites the labels it
 * sees; a union keeps the smaller root, so every set's root is its first
 * label in scan order. The second pass numbers the roots 1, 2... in the
 * order their first pixel comes. It stays on the CPU: the unions chain
 * across the whole image, a serial walk, and a QPU pass of label
 * propagation needs as many passes as a component is long.
 */

#include <errno.h>
#include <stdlib.h>

#include "postproc.h"

static uint32_t find(uint32_t *parent, uint32_t x)
{
	while (parent[x] != x) {
		parent[x] = parent[parent[x]];	/* halve the path */
		x = parent[x];
	}
	return x;
}

static uint32_t unite(uint32_t *parent, uint32_t a, uint32_t b)
{
	a = find(parent, a);
	b = find(parent, b);
	if (a < b)
		parent[b] = a;
	else
		parent[a] = b;
	return a < b ? a : b;
}

QPU_API int qpu_ccl_cpu(struct qpu_kernels *kernels, const uint8_t *mask, unsigned int width,
			unsigned int height, size_t stride, uint8_t threshold,
			unsigned int connectivity, uint32_t *labels, uint32_t *count)
{
	const char *name = "ccl";
	uint32_t *parent, *number, next = 1, found = 0;
	unsigned int x, y;
	size_t i, pixels;

	qpu_postproc_clear(kernels);
	if (!mask || !labels || !count)
		return qpu_postproc_fail(kernels, EINVAL, name, "NULL argument");
	if (!width || !height || width > 65536 || height > 65536 || stride < width)
		return qpu_postproc_fail(kernels, EINVAL, name,
					 "%ux%u, stride %zu: sides 1 to 65536, stride at least the width",
					 width, height, stride);
	if (connectivity != 4 && connectivity != 8)
		return qpu_postproc_fail(kernels, EINVAL, name,
					 "connectivity %u: 4 or 8", connectivity);
	pixels = (size_t)width * height;
	/* at most one provisional label every other pixel, plus label 0 */
	parent = malloc((pixels / 2 + 2) * sizeof(*parent));
	if (!parent)
		return qpu_postproc_fail(kernels, ENOMEM, name, "out of memory");
	parent[0] = 0;
	for (y = 0; y < height; y++) {
		const uint8_t *row = mask + y * stride;
		uint32_t *l = labels + (size_t)y * width, *up = l - width;

		for (x = 0; x < width; x++) {
			uint32_t seen[4], m = 0, best = 0, j;

			l[x] = 0;
			if (row[x] <= threshold)
				continue;
			if (x && l[x - 1])
				seen[m++] = l[x - 1];
			if (y && up[x])
				seen[m++] = up[x];
			if (connectivity == 8 && y && x && up[x - 1])
				seen[m++] = up[x - 1];
			if (connectivity == 8 && y && x + 1 < width && up[x + 1])
				seen[m++] = up[x + 1];
			if (!m) {
				parent[next] = next;
				l[x] = next++;
				continue;
			}
			best = seen[0];
			for (j = 1; j < m; j++)
				best = unite(parent, best, seen[j]);
			l[x] = best;
		}
	}
	number = calloc(next, sizeof(*number));
	if (!number) {
		free(parent);
		return qpu_postproc_fail(kernels, ENOMEM, name, "out of memory");
	}
	for (i = 0; i < pixels; i++) {
		uint32_t r;

		if (!labels[i])
			continue;
		r = find(parent, labels[i]);
		if (!number[r])
			number[r] = ++found;
		labels[i] = number[r];
	}
	free(number);
	free(parent);
	*count = found;
	return 0;
}
