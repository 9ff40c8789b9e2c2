// SPDX-License-Identifier: MIT
/*
 * qpuctl config: the module-wide configuration of qpu.ko (job timeouts,
 * memory limits and the queue bound), read with "get" and changed with
 * "set KEY VALUE...".
 * The keys are the names of the module parameters that show the same
 * values; byte values take a K, M or G suffix (powers of 1024).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/qpu.h>
#include <netlink/attr.h>

#include "qpuctl.h"

static const struct {
	const char *key;
	int attr;
	bool bytes;		/* u64 with suffixes; else a plain u32 */
} config_keys[] = {
	{ "default_timeout_ms", QPU_A_CONFIG_DEFAULT_TIMEOUT_MS, false },
	{ "max_timeout_ms", QPU_A_CONFIG_MAX_TIMEOUT_MS, false },
	{ "max_bo_size", QPU_A_CONFIG_MAX_BO_SIZE, true },
	{ "client_mem_limit", QPU_A_CONFIG_CLIENT_MEM_LIMIT, true },
	{ "dev_mem_limit", QPU_A_CONFIG_DEV_MEM_LIMIT, true },
	{ "max_queued_jobs", QPU_A_CONFIG_MAX_QUEUED_JOBS, false },
};

#define NUM_KEYS (sizeof(config_keys) / sizeof(config_keys[0]))

static void config_usage(void)
{
	unsigned int i;

	printf("Usage: qpuctl [-j [-p]] config [get]\n"
	       "       qpuctl config set KEY VALUE [KEY VALUE]...\n"
	       "KEY := {");
	for (i = 0; i < NUM_KEYS; i++)
		printf(" %s%s", config_keys[i].key, i + 1 < NUM_KEYS ? " |" : " }\n");
	printf("Timeouts are in ms (1 to 3600000); sizes in bytes (4096 to 1G),\n"
	       "with an optional K, M or G suffix; max_queued_jobs is jobs per open\n"
	       "file (1 to 1024). set needs CAP_NET_ADMIN.\n");
}

static int config_show(struct nlattr **tb, void *arg)
{
	unsigned int i;

	print_open_object(NULL);
	for (i = 0; i < NUM_KEYS; i++) {
		char fmt[64];

		snprintf(fmt, sizeof(fmt), "%s %%" PRIu64 "\n", config_keys[i].key);
		print_uint(config_keys[i].key, fmt,
			   qpu_nl_uint(tb[config_keys[i].attr]));
	}
	print_close_object();
	return 0;
}

static uint64_t parse_value(const char *key, const char *arg, bool bytes)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (bytes && *end && !end[1]) {
		switch (*end) {
		case 'k': case 'K':
			shift = 10;
			end++;
			break;
		case 'm': case 'M':
			shift = 20;
			end++;
			break;
		case 'g': case 'G':
			shift = 30;
			end++;
			break;
		}
	}
	if (end == arg || *end || errno || arg[0] == '-' || v > (~0ull >> shift) ||
	    (!bytes && v > UINT32_MAX))
		die("invalid value '%s' for %s", arg, key);
	return v << shift;
}

static int config_set(int argc, char **argv)
{
	struct {
		unsigned int key;
		uint64_t value;
	} set[NUM_KEYS * 4];
	unsigned int i, n = 0;
	struct qpu_nl nl;
	struct nl_msg *msg;
	int ret;

	if (!argc)
		die("config set needs KEY VALUE: try 'qpuctl config help'");
	/* All of it is checked before anything is sent. */
	for (; argc; argc -= 2, argv += 2) {
		for (i = 0; i < NUM_KEYS; i++)
			if (!strcmp(argv[0], config_keys[i].key))
				break;
		if (i == NUM_KEYS)
			die("unknown config key '%s': try 'qpuctl config help'", argv[0]);
		if (argc < 2)
			die("config set: %s needs a value", argv[0]);
		if (n == sizeof(set) / sizeof(set[0]))
			die("config set: too many settings");
		set[n].key = i;
		set[n++].value = parse_value(argv[0], argv[1], config_keys[i].bytes);
	}

	qpu_nl_open(&nl);
	msg = qpu_nl_msg(&nl, QPU_CMD_CONFIG_SET, false);
	for (i = 0; i < n; i++) {
		if (config_keys[set[i].key].bytes)
			qpu_nl_put_u64(msg, config_keys[set[i].key].attr, set[i].value);
		else
			qpu_nl_put_u32(msg, config_keys[set[i].key].attr, set[i].value);
	}
	ret = qpu_nl_request(&nl, msg, QPU_A_CONFIG_MAX, NULL, NULL);
	if (ret)
		qpu_nl_die(&nl, ret, "config set");
	qpu_nl_close(&nl);
	return 0;
}

static int config_get(int argc, char **argv)
{
	struct qpu_nl nl;
	struct nl_msg *msg;
	int ret;

	if (argc)
		die("unknown config get argument '%s': try 'qpuctl config help'",
		    argv[0]);
	qpu_nl_open(&nl);
	msg = qpu_nl_msg(&nl, QPU_CMD_CONFIG_GET, false);
	ret = qpu_nl_request(&nl, msg, QPU_A_CONFIG_MAX, config_show, NULL);
	if (ret)
		qpu_nl_die(&nl, ret, "config get");
	qpu_nl_close(&nl);
	return 0;
}

int cmd_config(struct qpuctl *ctl, int argc, char **argv)
{
	if (!argc || !strcmp(argv[0], "get") || !strcmp(argv[0], "show"))
		return config_get(argc ? argc - 1 : 0, argv + 1);
	if (is_help(argv[0])) {
		config_usage();
		return 0;
	}
	if (!strcmp(argv[0], "set")) {
		if (argc > 1 && is_help(argv[1])) {
			config_usage();
			return 0;
		}
		return config_set(argc - 1, argv + 1);
	}
	die("unknown config command '%s': try 'qpuctl config help'", argv[0]);
}
