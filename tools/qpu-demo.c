// SPDX-License-Identifier: MIT
/*
 * qpu-demo: run every sample kernel of libqpu on one device, check each
 * result against the CPU, and print one table. `make demo` runs it in the
 * VM on qpu.ko's simulated V3D, or on a Raspberry Pi with qpu.ko loaded;
 * `--device emu` runs it on the in-process emulator. Each kernel also runs
 * on the emulator with the timing model of two boards of the device's
 * generation, a Pi 1/Zero and a Pi 3 for VideoCore IV, a Pi 4 and a Pi 5
 * for V3D (emu:v3d42 and emu:v3d71 with their "timing" option), and
 * the table shows its modelled time and throughput there (GFLOPS for
 * sgemm, memory GB/s for the others; labelled
 * modelled: a model's figures, not measurements; --no-model skips them),
 * and beside the device's time, the CPU's for the same work: plain C on one
 * thread of the machine qpu-demo runs on (kernel-cases.h, @cpu_ns).
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
		"      --no-model     skip the modelled figures (Pi 1/Zero and Pi 3, or\n"
		"                     Pi 4 and Pi 5 for a V3D device)\n"
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

/*
 * The boards whose modelled figures the table shows, two per generation:
 * the emulator device that models each (with its board set when @board is
 * not QPU_BOARD_NONE) and its column's name.
 */
struct model_board {
	const char *column;
	const char *device;
	enum qpu_board board;
	const char *name;	/* NULL: qpu_board_name(@board) */
};
#define MODEL_BOARDS	2
static const struct model_board vc4_boards[MODEL_BOARDS] = {
	{ "Pi1", "emu", QPU_BOARD_PI1, NULL },
	{ "Pi3", "emu", QPU_BOARD_PI3, NULL },
};
static const struct model_board v3d_boards[MODEL_BOARDS] = {
	{ "Pi4", "emu:v3d42,timing", QPU_BOARD_NONE, "Pi 4 (V3D 4.2, 8 QPUs, 500 MHz)" },
	{ "Pi5", "emu:v3d71,timing", QPU_BOARD_NONE, "Pi 5 (V3D 7.1, 12 QPUs, 800 MHz)" },
};

static const char *model_name(const struct model_board *m)
{
	return m->name ? m->name : qpu_board_name(m->board);
}

/* @qpus, or all of @dev's when @all (or when it has fewer). */
static unsigned int model_qpus(struct qpu_dev *dev, unsigned int qpus, bool all)
{
	uint64_t have;

	if (qpu_dev_get_param(dev, QPU_DEV_PARAM_NUM_QPUS, &have))
		return qpus;
	return all || have < qpus ? (unsigned int)have : qpus;
}

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
	kcase_time_cpu = false;
	kcases[i].run(emu, qpus, 0, &r);
	kcase_time_cpu = true;
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
	const struct model_board *boards = vc4_boards;
	bool no_model = false, all = false;
	uint64_t gen;
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
	if (!qpus) {
		qpus = (unsigned int)have;
		all = true;
	}
	if (!qpu_dev_get_param(dev, QPU_DEV_PARAM_GEN, &gen) && qpu_gen_is_v3d((int)gen))
		boards = v3d_boards;
	kcase_time_cpu = true;
	kernels = qpu_kernels_new(dev);
	if (!kernels) {
		fprintf(stderr, "qpu-demo: %s\n", strerror(errno));
		qpu_dev_close(dev);
		return 1;
	}
	for (b = 0; !no_model && b < MODEL_BOARDS; b++) {
		model_dev[b] = qpu_dev_open(boards[b].device);
		if (model_dev[b] && (boards[b].board == QPU_BOARD_NONE ||
				     !qpu_dev_set_board(model_dev[b], boards[b].board)))
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
		       model_name(&boards[0]), model_name(&boards[1]));
	printf("CPU: the same work in plain C on one thread of this machine\n");
	printf("%-14s %-16s %-6s %14s %10s %8s", "kernel", "size", "result",
	       "instructions", "time ms", "CPU ms");
	if (!no_model)
		printf(" %7s us %-13s %7s us %s", boards[0].column, "  throughput",
		       boards[1].column, "  throughput");
	printf("\n");
	for (i = 0; i < kcase_count; i++) {
		struct kcase_report r;
		char instr[24];

		memset(&r, 0, sizeof(r));
		kcases[i].run(kernels, qpus, 0, &r);
		print_instructions(&r.stats, instr, sizeof(instr));
		printf("%-14s %-16s %-6s %14s %10.3f %8.3f", kcases[i].kernel,
		       r.size, r.ok ? "ok" : "FAIL", instr,
		       r.stats.elapsed_ns / 1e6, r.cpu_ns / 1e6);
		for (b = 0; !no_model && b < MODEL_BOARDS; b++) {
			char m[40];

			/* pad every column but the last: no trailing blanks */
			model_case(model[b], i, model_qpus(model_dev[b], qpus, all), m,
				   sizeof(m));
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
