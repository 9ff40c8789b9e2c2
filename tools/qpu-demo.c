// SPDX-License-Identifier: MIT
/*
 * qpu-demo: run every sample kernel of libqpu on one device, check each
 * result against the CPU, and print one table. `make demo` runs it in the
 * VM on qpu.ko's simulated V3D, or on a Raspberry Pi with qpu.ko loaded;
 * `--device emu` runs it on the in-process emulator. Exits 1 if any kernel
 * failed.
 */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qpu.h>
#include <qpu_kernels.h>

#include "kernel-cases.h"

static void usage(FILE *fp)
{
	fprintf(fp,
		"Usage: qpu-demo [OPTIONS]\n"
		"Run libqpu's sample kernels, check each against the CPU, print a table.\n\n"
		"  -d, --device PATH  /dev/qpu (the default), or emu for the emulator\n"
		"  -q, --qpus N       QPUs per kernel (default: all of the device's)\n"
		"  -h, --help         show this help\n");
}

static void print_instructions(const struct qpu_kernel_stats *s, char *buf,
			       size_t size)
{
	if (s->instructions_known)
		snprintf(buf, size, "%llu", (unsigned long long)s->instructions);
	else
		snprintf(buf, size, "n/a");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "qpus", required_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = "/dev/qpu";
	unsigned int qpus = 0, failed = 0;
	struct qpu_kernels *kernels;
	struct qpu_dev *dev;
	uint64_t have = 0;
	size_t i;
	int c;

	while ((c = getopt_long(argc, argv, "d:q:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			path = optarg;
			break;
		case 'q':
			qpus = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	dev = qpu_dev_open(path);
	if (!dev) {
		fprintf(stderr, "qpu-demo: cannot open %s: %s\n", path,
			strerror(errno));
		return 1;
	}
	if (!qpus) {
		c = qpu_dev_get_param(dev, QPU_DEV_PARAM_NUM_QPUS, &have);
		qpus = c ? 12 : (unsigned int)have;
	}
	kernels = qpu_kernels_new(dev);
	if (!kernels) {
		fprintf(stderr, "qpu-demo: %s\n", strerror(errno));
		qpu_dev_close(dev);
		return 1;
	}
	printf("qpu-demo: %s (%s), %u QPUs per kernel\n", qpu_dev_get_path(dev),
	       qpu_dev_describe(dev), qpus);
	printf("%-14s %-16s %-6s %14s %10s\n", "kernel", "size", "result",
	       "instructions", "time ms");
	for (i = 0; i < kcase_count; i++) {
		struct kcase_report r;
		char instr[24];

		memset(&r, 0, sizeof(r));
		kcases[i].run(kernels, qpus, 0, &r);
		print_instructions(&r.stats, instr, sizeof(instr));
		printf("%-14s %-16s %-6s %14s %10.3f\n", kcases[i].kernel,
		       r.size, r.ok ? "ok" : "FAIL", instr,
		       r.stats.elapsed_ns / 1e6);
		if (!r.ok) {
			printf("  %s\n", r.msg);
			failed++;
		}
	}
	printf("%zu kernels: %zu ok, %u failed\n", i, i - failed, failed);
	qpu_kernels_free(kernels);
	qpu_dev_close(dev);
	return failed ? 1 : 0;
}
