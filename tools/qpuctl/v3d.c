// SPDX-License-Identifier: MIT
/*
 * qpuctl v3d: the Pi 4's and Pi 5's GPUs, which the upstream v3d DRM driver
 * serves (qpu.ko is not involved, so its netlink family is not there):
 * each DRM render node libqpu opens as a v3d device (qpu_dev_open()),
 * with what the driver's uapi tells: generation, board, slices, QPUs and
 * the identification registers, and the telemetry libqpu reads for it
 * (the Raspberry Pi firmware's clock, temperature and throttling through
 * /dev/vcio; the uapi gives none of its own).
 */

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qpu.h>

#include "qpuctl.h"

/* Where the DRM nodes are; $QPUCTL_ROOT stages another machine's, as for doctor. */
#define V3D_DRM_DIR	"/dev/dri"
#define V3D_MAX_NODES	64

static int v3d_name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* One node: false when it is no v3d node (another driver's). */
static bool v3d_show_node(const char *node)
{
	static const struct { enum qpu_dev_param param; const char *key, *fmt; } params[] = {
		{ QPU_DEV_PARAM_NUM_SLICES, "slices", " slices %" PRIu64 },
		{ QPU_DEV_PARAM_NUM_QPUS, "qpus", " qpus %" PRIu64 },
		{ QPU_DEV_PARAM_V3D_IDENT0, "ident0", " ident0 0x%08" PRIx64 },
		{ QPU_DEV_PARAM_V3D_IDENT1, "ident1", " ident1 0x%08" PRIx64 },
		{ QPU_DEV_PARAM_V3D_IDENT2, "ident2", " ident2 0x%08" PRIx64 },
	};
	struct qpu_dev *dev = qpu_dev_open(node);
	struct qpu_telemetry t;
	uint64_t gen = 0, v;
	size_t i;
	int err = errno;

	if (!dev && err == ENODEV)
		return false;
	print_open_object(NULL);
	print_string("node", "node %s", node);
	if (!dev) {
		/* a v3d node this caller cannot use: say why */
		print_string("error", " error %s\n", qpu_last_error());
		print_close_object();
		return true;
	}
	qpu_dev_get_param(dev, QPU_DEV_PARAM_GEN, &gen);
	print_string("gen", " gen %s", qpu_gen_name((enum qpu_gen)gen));
	print_string("kind", " kind \"%s\"", qpu_dev_describe(dev));
	for (i = 0; i < sizeof(params) / sizeof(params[0]); i++)
		if (!qpu_dev_get_param(dev, params[i].param, &v))
			print_uint(params[i].key, params[i].fmt, v);
	if (!qpu_dev_get_telemetry(dev, &t))
		telemetry_print_libqpu(&t);
	print_text("\n");
	print_close_object();
	qpu_dev_close(dev);
	return true;
}

int cmd_v3d(struct qpuctl *ctl, int argc, char **argv)
{
	const char *root = getenv("QPUCTL_ROOT");
	char dir[4096], node[4096 + 256], *names[V3D_MAX_NODES];
	unsigned int i, n = 0, found = 0;
	struct dirent *e;
	DIR *dp;

	(void)ctl;
	if (argc && is_help(argv[0])) {
		printf("Usage: qpuctl [-j [-p]] v3d [show]\n"
		       "       qpuctl [-j [-p]] v3d stats\n"
		       "       qpuctl [-j [-p]] v3d top [interval SECONDS] [count N]\n"
		       "List the v3d DRM driver's nodes (a Pi 4's or Pi 5's GPU), as libqpu\n"
		       "opens them: generation, board, slices, QPUs, identification, and the\n"
		       "firmware's clock, temperature and throttling (telemetry). stats: each\n"
		       "node's queues from the driver's gpu_stats (jobs, runtime); top: every\n"
		       "interval (1 s) each node's compute busy share and jobs, and each\n"
		       "client's (process, file) from its fdinfo. Stops after N samples.\n");
		return 0;
	}
	if (argc && !strcmp(argv[0], "stats"))
		return cmd_v3d_stats(argc - 1, argv + 1);
	if (argc && !strcmp(argv[0], "top"))
		return cmd_v3d_top(argc - 1, argv + 1);
	if (argc && strcmp(argv[0], "show"))
		die("unknown v3d command '%s': try 'qpuctl v3d help'", argv[0]);
	if (argc > 1)
		die("unexpected argument '%s'", argv[1]);
	snprintf(dir, sizeof(dir), "%s" V3D_DRM_DIR, root ? root : "");
	dp = opendir(dir);
	while (dp && (e = readdir(dp)) && n < V3D_MAX_NODES)
		if (!strncmp(e->d_name, "renderD", 7) && (names[n] = strdup(e->d_name)))
			n++;
	if (dp)
		closedir(dp);
	qsort(names, n, sizeof(*names), v3d_name_cmp);
	print_open_array(NULL);
	for (i = 0; i < n; i++) {
		snprintf(node, sizeof(node), "%s/%s", dir, names[i]);
		found += v3d_show_node(node);
		free(names[i]);
	}
	print_close_array();
	print_flush();
	if (!found)
		die("no v3d DRM node in %s (a Pi 4 or 5 needs dtoverlay=vc4-kms-v3d: see qpuctl doctor)",
		    dir);
	return 0;
}
