// SPDX-License-Identifier: MIT
/*
 * qpuctl's device commands: info (identification and state), stats
 * (counters), clients (open files) and reset. Without -d the read commands
 * dump every device; with it they ask for that one. top reuses the client
 * list.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <linux/qpu.h>
#include <netlink/attr.h>

#include "qpuctl.h"

/* Refuses arguments other than an optional "show"; true for "help". */
static bool dev_args(const char *object, const char *usage, int argc, char **argv)
{
	if (argc && is_help(argv[0])) {
		printf("Usage: %s", usage);
		return true;
	}
	if (argc && !strcmp(argv[0], "show")) {
		argc--;
		argv++;
	}
	if (argc)
		die("unknown %s command '%s': try 'qpuctl %s help'", object,
		    argv[0], object);
	return false;
}

static const char *backend_name(uint64_t backend)
{
	switch (backend) {
	case QPU_BACKEND_HW:
		return "hardware";
	case QPU_BACKEND_SIM:
		return "simulated";
	default:
		return "unknown";
	}
}

static const char *state_name(uint64_t state)
{
	switch (state) {
	case QPU_DEV_STATE_IDLE:
		return "idle";
	case QPU_DEV_STATE_BUSY:
		return "busy";
	case QPU_DEV_STATE_STOPPED:
		return "stopped";
	default:
		return "unknown";
	}
}

/* Sends @cmd as a get of device ctl->dev, or as a dump over all. */
static void dev_request(struct qpuctl *ctl, uint8_t cmd, int index_attr,
			int maxattr, qpu_nl_msg_fn fn, const char *what)
{
	bool dump = ctl->dev == QPUCTL_ANY_DEV;
	struct qpu_nl nl;
	struct nl_msg *msg;
	int ret;

	qpu_nl_open(&nl);
	msg = qpu_nl_msg(&nl, cmd, dump);
	if (!dump)
		qpu_nl_put_u32(msg, index_attr, ctl->dev);
	print_open_array(NULL);
	ret = qpu_nl_request(&nl, msg, maxattr, fn, NULL);
	print_close_array();
	if (ret)
		qpu_nl_die(&nl, ret, what);
	qpu_nl_close(&nl);
}

static int info_show(struct nlattr **tb, void *arg)
{
	print_open_object(NULL);
	print_uint("dev", "dev %" PRIu64, qpu_nl_uint(tb[QPU_A_DEV_INDEX]));
	print_string("name", " name %s", qpu_nl_str(tb[QPU_A_DEV_NAME]));
	print_string("backend", " backend %s",
		     backend_name(qpu_nl_uint(tb[QPU_A_DEV_BACKEND])));
	print_string("state", " state %s",
		     state_name(qpu_nl_uint(tb[QPU_A_DEV_STATE])));
	print_text("\n   ");
	print_uint("revision", " revision %" PRIu64,
		   qpu_nl_uint(tb[QPU_A_DEV_REVISION]));
	print_uint("qpus", " qpus %" PRIu64, qpu_nl_uint(tb[QPU_A_DEV_NUM_QPUS]));
	print_uint("slices", " slices %" PRIu64,
		   qpu_nl_uint(tb[QPU_A_DEV_NUM_SLICES]));
	print_uint("semaphores", " semaphores %" PRIu64,
		   qpu_nl_uint(tb[QPU_A_DEV_NUM_SEMAPHORES]));
	print_uint("vpm_size", " vpm_size %" PRIu64,
		   qpu_nl_uint(tb[QPU_A_DEV_VPM_SIZE]));
	print_text("\n   ");
	print_uint("ident0", " ident0 0x%08" PRIx64, qpu_nl_uint(tb[QPU_A_DEV_IDENT0]));
	print_uint("ident1", " ident1 0x%08" PRIx64, qpu_nl_uint(tb[QPU_A_DEV_IDENT1]));
	print_uint("ident2", " ident2 0x%08" PRIx64, qpu_nl_uint(tb[QPU_A_DEV_IDENT2]));
	print_text("\n");
	print_close_object();
	return 0;
}

int cmd_info(struct qpuctl *ctl, int argc, char **argv)
{
	if (dev_args("info", "qpuctl [-j [-p]] [-d DEV] info [show]\n"
		     "Identification and state of every device, or of DEV.\n",
		     argc, argv))
		return 0;
	dev_request(ctl, QPU_CMD_DEV_GET, QPU_A_DEV_INDEX, QPU_A_DEV_MAX,
		    info_show, "info");
	return 0;
}

static bool stats_header_done;

static int stats_show(struct nlattr **tb, void *arg)
{
	if (!stats_header_done) {
		print_text("DEV  SUBMITTED       DONE     FAILED    TIMEOUT   CANCELED     RESETS  BOS   BO_BYTES\n");
		stats_header_done = true;
	}
	print_open_object(NULL);
	print_uint("dev", "%-4" PRIu64, qpu_nl_uint(tb[QPU_A_STATS_DEV_INDEX]));
	print_uint("jobs_submitted", " %9" PRIu64,
		   qpu_nl_uint(tb[QPU_A_STATS_JOBS_SUBMITTED]));
	print_uint("jobs_done", " %10" PRIu64, qpu_nl_uint(tb[QPU_A_STATS_JOBS_DONE]));
	print_uint("jobs_failed", " %10" PRIu64,
		   qpu_nl_uint(tb[QPU_A_STATS_JOBS_FAILED]));
	print_uint("jobs_timeout", " %10" PRIu64,
		   qpu_nl_uint(tb[QPU_A_STATS_JOBS_TIMEOUT]));
	print_uint("jobs_canceled", " %10" PRIu64,
		   qpu_nl_uint(tb[QPU_A_STATS_JOBS_CANCELED]));
	print_uint("resets", " %10" PRIu64, qpu_nl_uint(tb[QPU_A_STATS_RESETS]));
	print_uint("bo_count", " %4" PRIu64, qpu_nl_uint(tb[QPU_A_STATS_BO_COUNT]));
	print_uint("bo_bytes", " %10" PRIu64, qpu_nl_uint(tb[QPU_A_STATS_BO_BYTES]));
	print_text("\n");
	print_close_object();
	return 0;
}

int cmd_stats(struct qpuctl *ctl, int argc, char **argv)
{
	if (dev_args("stats", "qpuctl [-j [-p]] [-d DEV] stats [show]\n"
		     "Job, reset and memory counters of every device, or of DEV.\n",
		     argc, argv))
		return 0;
	dev_request(ctl, QPU_CMD_STATS_GET, QPU_A_STATS_DEV_INDEX,
		    QPU_A_STATS_MAX, stats_show, "stats");
	return 0;
}

static bool clients_header_done;

static int clients_show(struct nlattr **tb, void *arg)
{
	if (!clients_header_done) {
		print_text("DEV  PID      COMM              BOS   BO_BYTES  SUBMITTED  QUEUED\n");
		clients_header_done = true;
	}
	print_open_object(NULL);
	print_uint("dev", "%-4" PRIu64, qpu_nl_uint(tb[QPU_A_CLIENT_DEV_INDEX]));
	print_uint("pid", " %-8" PRIu64, qpu_nl_uint(tb[QPU_A_CLIENT_PID]));
	print_string("comm", " %-16s", qpu_nl_str(tb[QPU_A_CLIENT_COMM]));
	print_uint("bo_count", " %4" PRIu64, qpu_nl_uint(tb[QPU_A_CLIENT_BO_COUNT]));
	print_uint("bo_bytes", " %10" PRIu64, qpu_nl_uint(tb[QPU_A_CLIENT_BO_BYTES]));
	print_uint("jobs_submitted", " %10" PRIu64,
		   qpu_nl_uint(tb[QPU_A_CLIENT_JOBS_SUBMITTED]));
	print_uint("jobs_queued", " %7" PRIu64,
		   qpu_nl_uint(tb[QPU_A_CLIENT_JOBS_QUEUED]));
	print_text("\n");
	print_close_object();
	return 0;
}

/**
 * clients_print() - print the open files of every device, or of ctl->dev
 * @ctl: the command line
 * @key: the JSON key of the array, or NULL at the top level
 */
void clients_print(struct qpuctl *ctl, const char *key)
{
	struct qpu_nl nl;
	struct nl_msg *msg;
	int ret;

	/* A dump only; -d filters it. */
	qpu_nl_open(&nl);
	msg = qpu_nl_msg(&nl, QPU_CMD_CLIENT_GET, true);
	if (ctl->dev != QPUCTL_ANY_DEV)
		qpu_nl_put_u32(msg, QPU_A_CLIENT_DEV_INDEX, ctl->dev);
	clients_header_done = false;
	print_open_array(key);
	ret = qpu_nl_request(&nl, msg, QPU_A_CLIENT_MAX, clients_show, NULL);
	print_close_array();
	if (ret)
		qpu_nl_die(&nl, ret, "clients");
	qpu_nl_close(&nl);
}

int cmd_clients(struct qpuctl *ctl, int argc, char **argv)
{
	if (dev_args("clients", "qpuctl [-j [-p]] [-d DEV] clients [show]\n"
		     "The open files of every device, or of DEV: the process that\n"
		     "opened each, its buffer objects and its jobs.\n",
		     argc, argv))
		return 0;
	clients_print(ctl, NULL);
	return 0;
}

int cmd_reset(struct qpuctl *ctl, int argc, char **argv)
{
	struct qpu_nl nl;
	struct nl_msg *msg;
	int ret;

	if (argc && is_help(argv[0])) {
		printf("Usage: qpuctl -d DEV reset\n"
		       "Reset the V3D of DEV between two jobs; a running job ends\n"
		       "as canceled. Needs CAP_NET_ADMIN.\n");
		return 0;
	}
	if (argc)
		die("unknown reset argument '%s': try 'qpuctl reset help'", argv[0]);
	if (ctl->dev == QPUCTL_ANY_DEV)
		die("reset needs a device: qpuctl -d DEV reset");

	qpu_nl_open(&nl);
	msg = qpu_nl_msg(&nl, QPU_CMD_DEV_RESET, false);
	qpu_nl_put_u32(msg, QPU_A_DEV_INDEX, ctl->dev);
	ret = qpu_nl_request(&nl, msg, QPU_A_DEV_MAX, NULL, NULL);
	if (ret)
		qpu_nl_die(&nl, ret, "reset");
	qpu_nl_close(&nl);
	return 0;
}

static int hang_show(struct nlattr **tb, void *arg)
{
	print_open_object(NULL);
	print_uint("dev", "dev %" PRIu64, qpu_nl_uint(tb[QPU_A_HANG_DEV_INDEX]));
	print_uint("age_ms", " age_ms %" PRIu64, qpu_nl_uint(tb[QPU_A_HANG_AGE_MS]));
	print_uint("pid", " pid %" PRIu64, qpu_nl_uint(tb[QPU_A_HANG_PID]));
	print_string("comm", " comm %s", qpu_nl_str(tb[QPU_A_HANG_COMM]));
	print_uint("seqno", " seqno %" PRIu64, qpu_nl_uint(tb[QPU_A_HANG_SEQNO]));
	print_uint("timeout_ms", " timeout_ms %" PRIu64,
		   qpu_nl_uint(tb[QPU_A_HANG_TIMEOUT_MS]));
	print_text("\n   ");
	print_uint("programs", " programs %" PRIu64, qpu_nl_uint(tb[QPU_A_HANG_PROGRAMS]));
	print_uint("code_addr", " code_addr 0x%08" PRIx64,
		   qpu_nl_uint(tb[QPU_A_HANG_CODE_ADDR]));
	print_uint("unif_addr", " unif_addr 0x%08" PRIx64,
		   qpu_nl_uint(tb[QPU_A_HANG_UNIF_ADDR]));
	print_text("\n   ");
	print_uint("srqcs", " srqcs 0x%08" PRIx64, qpu_nl_uint(tb[QPU_A_HANG_SRQCS]));
	print_uint("dbqite", " dbqite 0x%08" PRIx64, qpu_nl_uint(tb[QPU_A_HANG_DBQITE]));
	print_uint("dbqitc", " dbqitc 0x%08" PRIx64, qpu_nl_uint(tb[QPU_A_HANG_DBQITC]));
	print_text("\n");
	print_close_object();
	return 0;
}

int cmd_hang(struct qpuctl *ctl, int argc, char **argv)
{
	if (dev_args("hang", "qpuctl [-j [-p]] -d DEV hang [show]\n"
		     "What DEV and its job looked like when its last job timed\n"
		     "out: the job, its process and the queue's registers.\n"
		     "Needs CAP_NET_ADMIN.\n",
		     argc, argv))
		return 0;
	if (ctl->dev == QPUCTL_ANY_DEV)
		die("hang needs a device: qpuctl -d DEV hang");
	dev_request(ctl, QPU_CMD_HANG_GET, QPU_A_HANG_DEV_INDEX, QPU_A_HANG_MAX,
		    hang_show, "hang");
	return 0;
}
