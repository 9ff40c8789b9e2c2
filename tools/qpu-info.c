// SPDX-License-Identifier: MIT
/*
 * qpu-info: print what a qpu device reports about itself (GET_PARAM), one
 * "name: value" line each; parameters a device does not have (the
 * emulator has no V3D registers) are left out. For statistics, see qpuctl.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qpu.h>

#include "cli.h"
#include "die.h"
#include "open_dev.h"

const char tool_name[] = "qpu-info";

static const struct {
	enum qpu_dev_param param;
	const char *name;
	const char *format;	/* how the value reads best */
} params[] = {
	{ QPU_DEV_PARAM_ABI_VERSION, "abi_version", "%" PRIu64 },
	{ QPU_DEV_PARAM_BACKEND, "backend", NULL },
	{ QPU_DEV_PARAM_GEN, "gen", NULL },
	{ QPU_DEV_PARAM_V3D_IDENT0, "v3d_ident0", "0x%08" PRIx64 },
	{ QPU_DEV_PARAM_V3D_IDENT1, "v3d_ident1", "0x%08" PRIx64 },
	{ QPU_DEV_PARAM_V3D_IDENT2, "v3d_ident2", "0x%08" PRIx64 },
	{ QPU_DEV_PARAM_NUM_QPUS, "qpus", "%" PRIu64 },
	{ QPU_DEV_PARAM_NUM_SLICES, "slices", "%" PRIu64 },
	{ QPU_DEV_PARAM_NUM_SEMAPHORES, "semaphores", "%" PRIu64 },
	{ QPU_DEV_PARAM_VPM_SIZE, "vpm_bytes", "%" PRIu64 },
	{ QPU_DEV_PARAM_FEATURES, "features", "0x%" PRIx64 },
	{ QPU_DEV_PARAM_INSTRUCTIONS_PER_MS, "instructions_per_ms", "%" PRIu64 },
	{ QPU_DEV_PARAM_BO_L2_CACHED, "bo_l2_cached", "%" PRIu64 },
};

static void print_features(uint64_t mask)
{
	unsigned int bit;
	const char *name;

	printf("0x%" PRIx64, mask);
	for (bit = 0; bit < 64; bit++) {
		if (!(mask & (1ull << bit)))
			continue;
		name = qpu_dev_feature_name(bit);
		if (name)
			printf(" %s", name);
		else
			printf(" bit%u", bit);
	}
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: qpu-info [-d DEVICE]\n"
		"Print what a qpu device reports about itself.\n\n"
		"  -d, --device=PATH  the device node, or \"emu\" for the in-process\n"
		"                     emulator (default $QPU_DEVICE, else /dev/qpu)\n"
		"  -h, --help         this text\n"
		"  -V, --version      the package version\n"
		"Options follow qpu-tools(7).\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ }
	};
	const char *path = NULL;
	struct qpu_dev *dev;
	uint64_t value;
	size_t i;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "d:hV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			path = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			print_version();
			return 0;
		default:
			try_help(1);
		}
	}
	if (optind != argc)
		usage_error(1, "unexpected argument '%s'", argv[optind]);

	dev = open_dev(path);

	printf("device: %s\n", qpu_dev_get_path(dev));
	printf("kind: %s\n", qpu_dev_describe(dev));
	for (i = 0; i < sizeof(params) / sizeof(params[0]); i++) {
		ret = qpu_dev_get_param(dev, params[i].param, &value);
		if (ret == -EINVAL)
			continue;
		if (ret) {
			fprintf(stderr, "qpu-info: %s: %s\n", params[i].name,
				strerror(-ret));
			qpu_dev_close(dev);
			return 1;
		}
		printf("%s: ", params[i].name);
		if (params[i].param == QPU_DEV_PARAM_BACKEND)
			fputs(qpu_backend_name(value), stdout);
		else if (params[i].param == QPU_DEV_PARAM_GEN)
			fputs(qpu_gen_name((enum qpu_gen)value), stdout);
		else if (params[i].param == QPU_DEV_PARAM_FEATURES)
			print_features(value);
		else
			printf(params[i].format, value);
		putchar('\n');
	}
	qpu_dev_close(dev);
	return 0;
}
