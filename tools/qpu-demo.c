// SPDX-License-Identifier: MIT
/*
 * qpu-demo: run every sample kernel of libqpu on one device, check each
 * result against the CPU, and print one table. `make demo` runs it in the
 * VM on qpu.ko's simulated V3D, or on a Raspberry Pi with qpu.ko loaded;
 * `--device emu` runs it on the in-process emulator. Each kernel also runs
 * on the emulator with the timing model of a Pi 1/Zero and of a Pi 3, and
 * the table shows its modelled time and throughput there (GFLOPS for
 * sgemm, memory GB/s for the others; labelled
 * modelled: a model's figures, not measurements; --no-model skips them).
 * Exits 1 if any kernel failed or the device cannot be opened, 2 on a
 * usage error.
 */

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qpu.h>
#include <qpu_kernels.h>

#include "cli.h"
#include "die.h"
#include "kernel-cases.h"
#include "open_dev.h"
#include "parse_num.h"

const char tool_name[] = "qpu-demo";

static void usage(FILE *fp)
{
	fprintf(fp,
		"Usage: qpu-demo [OPTIONS]\n"
		"Run libqpu's sample kernels, check each against the CPU, print a table.\n\n"
		"  -d, --device PATH  the device node, or emu for the emulator\n"
		"                     (default $QPU_DEVICE, else /dev/qpu)\n"
		"  -q, --qpus N       QPUs per kernel (default: all of the device's)\n"
		"      --no-model     skip the modelled Pi 1/Zero and Pi 3 figures\n"
		"  -h, --help         show this help\n"
		"  -V, --version      the package version\n"
		"Options follow qpu-tools(7).\n");
}

static void print_instructions(const struct qpu_kernel_stats *s, char *buf,
			       size_t size)
{
	if (s->instructions_known)
		snprintf(buf, size, "%llu", (unsigned long long)s->instructions);
	else
		snprintf(buf, size, "n/a");
}

/* The boards whose modelled figures the table shows. */
static const enum qpu_board model_boards[] = { QPU_BOARD_PI1, QPU_BOARD_PI3 };
#define MODEL_BOARDS	(sizeof(model_boards) / sizeof(model_boards[0]))

/*
 * Case @i on the emulator modelling @board: "modelled us" and the
 * throughput over that time, launches included: GFLOPS for a case that
 * counts its FLOP (sgemm), else GB/s (the kernel's TMU and DMA bytes),
 * into @buf, or "-" when it cannot run there.
 */
static void model_case(struct qpu_kernels *emu, size_t i, unsigned int qpus,
		       char *buf, size_t size)
{
	struct qpu_job_timing t;
	struct kcase_report r;
	uint64_t bytes, ns;

	memset(&r, 0, sizeof(r));
	qpu_kernels_take_timing(emu, &t);	/* drop an earlier case's */
	kcases[i].run(emu, qpus, 0, &r);
	if (!r.ok || qpu_kernels_take_timing(emu, &t)) {
		snprintf(buf, size, "%10s %11s", "-", "-");
		return;
	}
	ns = t.ns + t.launch_ns;
	bytes = r.stats.counters.tmu_bytes + r.stats.counters.dma_load_bytes +
		r.stats.counters.dma_store_bytes;
	if (r.flop)
		snprintf(buf, size, "%10.1f %6.2f GFLOPS", ns / 1e3,
			 ns ? r.flop / ns : 0.0);
	else
		snprintf(buf, size, "%10.1f %6.2f GB/s", ns / 1e3,
			 ns ? (double)bytes / ns : 0.0);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "qpus", required_argument, NULL, 'q' },
		{ "no-model", no_argument, NULL, 1 },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = NULL;
	unsigned int qpus = 0, failed = 0;
	struct qpu_kernels *kernels, *model[MODEL_BOARDS] = { NULL };
	struct qpu_dev *model_dev[MODEL_BOARDS] = { NULL };
	bool no_model = false;
	size_t b;
	struct qpu_dev *dev;
	uint64_t have = 0, n;
	size_t i;
	int c;

	while ((c = getopt_long(argc, argv, "d:q:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			path = optarg;
			break;
		case 'q':
			if (!parse_u64(optarg, 1, QPU_JOB_MAX_QPUS, &n))
				usage_error(2, "bad QPU count '%s': expected 1 to %u",
					    optarg, QPU_JOB_MAX_QPUS);
			qpus = (unsigned int)n;
			break;
		case 1:
			no_model = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			print_version();
			return 0;
		default:
			try_help(2);
		}
	}
	if (optind != argc)
		usage_error(2, "unexpected argument '%s'", argv[optind]);
	dev = open_dev(path);
	if (qpu_dev_get_param(dev, QPU_DEV_PARAM_NUM_QPUS, &have))
		have = 12;
	if (qpus > have) {
		fprintf(stderr, "qpu-demo: asked for %u QPUs, %s has %u\n", qpus,
			qpu_dev_get_path(dev), (unsigned int)have);
		qpu_dev_close(dev);
		return 2;
	}
	if (!qpus)
		qpus = (unsigned int)have;
	kernels = qpu_kernels_new(dev);
	if (!kernels) {
		fprintf(stderr, "qpu-demo: %s\n", strerror(errno));
		qpu_dev_close(dev);
		return 1;
	}
	for (b = 0; !no_model && b < MODEL_BOARDS; b++) {
		model_dev[b] = qpu_dev_open("emu");
		if (model_dev[b] && !qpu_dev_set_board(model_dev[b], model_boards[b]))
			model[b] = qpu_kernels_new(model_dev[b]);
		if (!model[b]) {
			fprintf(stderr, "qpu-demo: no emulator for the modelled figures\n");
			no_model = true;
		}
	}
	printf("qpu-demo: %s (%s), %u QPUs per kernel\n", qpu_dev_get_path(dev),
	       qpu_dev_describe(dev), qpus);
	if (!no_model)
		printf("modelled (the emulator's timing model, not a measurement): %s, %s\n",
		       qpu_board_name(model_boards[0]), qpu_board_name(model_boards[1]));
	printf("%-14s %-16s %-6s %14s %10s", "kernel", "size", "result",
	       "instructions", "time ms");
	if (!no_model)
		printf(" %10s %-13s %10s %s", "Pi1 us", "  throughput", "Pi3 us",
		       "  throughput");
	printf("\n");
	for (i = 0; i < kcase_count; i++) {
		struct kcase_report r;
		char instr[24];

		memset(&r, 0, sizeof(r));
		kcases[i].run(kernels, qpus, 0, &r);
		print_instructions(&r.stats, instr, sizeof(instr));
		printf("%-14s %-16s %-6s %14s %10.3f", kcases[i].kernel,
		       r.size, r.ok ? "ok" : "FAIL", instr,
		       r.stats.elapsed_ns / 1e6);
		for (b = 0; !no_model && b < MODEL_BOARDS; b++) {
			char m[40];

			/* pad every column but the last: no trailing blanks */
			model_case(model[b], i, qpus, m, sizeof(m));
			printf(b + 1 < MODEL_BOARDS ? " %-24s" : " %s", m);
		}
		printf("\n");
		if (!r.ok) {
			printf("  %s\n", r.msg);
			failed++;
		}
	}
	printf("%zu kernels: %zu ok, %u failed\n", i, i - failed, failed);
	for (b = 0; b < MODEL_BOARDS; b++) {
		qpu_kernels_free(model[b]);
		qpu_dev_close(model_dev[b]);
	}
	qpu_kernels_free(kernels);
	qpu_dev_close(dev);
	return failed ? 1 : 0;
}
