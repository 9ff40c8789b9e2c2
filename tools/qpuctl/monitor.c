// SPDX-License-Identifier: MIT
/*
 * qpuctl monitor: joins the family's "events" group (CAP_NET_ADMIN) and
 * prints each event as it comes (job timeouts and faults, resets, and the
 * telemetry's clock and throttling changes): one line of text, or one
 * JSON object per line with -j. "count N" stops after N events, for
 * scripts.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/qpu.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "parse_num.h"
#include "qpuctl.h"

struct monitor {
	unsigned long seen;
	unsigned long count;	/* 0: forever */
};

static const char *reason_name(uint64_t reason)
{
	switch (reason) {
	case QPU_RESET_TIMEOUT:
		return "timeout";
	case QPU_RESET_FAULT:
		return "fault";
	case QPU_RESET_ADMIN:
		return "admin";
	case QPU_RESET_REMOVE:
		return "remove";
	case QPU_RESET_DEADLOCK:
		return "deadlock";
	default:
		return "unknown";
	}
}

static const char *access_name(uint64_t access)
{
	static const char * const names[] = {
		[QPU_FAULT_FETCH] = "fetch",
		[QPU_FAULT_UNIFORM] = "uniform",
		[QPU_FAULT_TMU] = "tmu",
		[QPU_FAULT_DMA_LOAD] = "dma_load",
		[QPU_FAULT_DMA_STORE] = "dma_store",
		[QPU_FAULT_OTHER] = "other",
	};

	if (access < sizeof(names) / sizeof(names[0]) && names[access])
		return names[access];
	return "unknown";
}

static void monitor_job(struct nlattr **tb)
{
	print_uint("pid", " pid %" PRIu64, qpu_nl_uint(tb[QPU_A_EVENT_PID]));
	print_string("comm", " comm %s", qpu_nl_str(tb[QPU_A_EVENT_COMM]));
	print_uint("seqno", " seqno %" PRIu64, qpu_nl_uint(tb[QPU_A_EVENT_SEQNO]));
}

static int monitor_cb(struct nl_msg *msg, void *arg)
{
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[QPU_A_EVENT_MAX + 1];
	struct monitor *mon = arg;
	struct telemetry t;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, QPU_A_EVENT_MAX, NULL))
		return NL_SKIP;

	print_open_object(NULL);
	switch (gh->cmd) {
	case QPU_CMD_JOB_TIMEOUT_NTF:
		print_string("event", "[%s]", "job_timeout");
		print_uint("dev", " dev %" PRIu64, qpu_nl_uint(tb[QPU_A_EVENT_DEV_INDEX]));
		monitor_job(tb);
		print_uint("timeout_ms", " timeout_ms %" PRIu64,
			   qpu_nl_uint(tb[QPU_A_EVENT_TIMEOUT_MS]));
		break;
	case QPU_CMD_JOB_FAULT_NTF:
		print_string("event", "[%s]", "job_fault");
		print_uint("dev", " dev %" PRIu64, qpu_nl_uint(tb[QPU_A_EVENT_DEV_INDEX]));
		monitor_job(tb);
		print_uint("fault_qpu", " qpu %" PRIu64,
			   qpu_nl_uint(tb[QPU_A_EVENT_FAULT_QPU]));
		print_uint("fault_pc", " pc 0x%08" PRIx64,
			   qpu_nl_uint(tb[QPU_A_EVENT_FAULT_PC]));
		print_uint("fault_addr", " addr 0x%08" PRIx64,
			   qpu_nl_uint(tb[QPU_A_EVENT_FAULT_ADDR]));
		print_string("fault_access", " access %s",
			     access_name(qpu_nl_uint(tb[QPU_A_EVENT_FAULT_ACCESS])));
		break;
	case QPU_CMD_DEV_RESET_NTF:
		print_string("event", "[%s]", "reset");
		print_uint("dev", " dev %" PRIu64, qpu_nl_uint(tb[QPU_A_EVENT_DEV_INDEX]));
		print_string("reason", " reason %s",
			     reason_name(qpu_nl_uint(tb[QPU_A_EVENT_REASON])));
		break;
	case QPU_CMD_TELEMETRY_NTF:
		print_string("event", "[%s]", "telemetry");
		print_uint("dev", " dev %" PRIu64, qpu_nl_uint(tb[QPU_A_EVENT_DEV_INDEX]));
		print_string("telemetry", " %s",
			     telemetry_event_name(qpu_nl_uint(tb[QPU_A_EVENT_TELEMETRY])));
		telemetry_from_event(&t, tb);
		telemetry_print(&t);
		break;
	default:
		print_uint("event", "[event %" PRIu64 "]", gh->cmd);
		break;
	}
	print_text("\n");
	print_close_object();
	print_flush();

	mon->seen++;
	return mon->count && mon->seen >= mon->count ? NL_STOP : NL_OK;
}

int cmd_monitor(struct qpuctl *ctl, int argc, char **argv)
{
	struct monitor mon = { 0 };
	struct qpu_nl nl;
	int group, ret;

	if (argc && is_help(argv[0])) {
		printf("Usage: qpuctl [-j [-p]] monitor [count N]\n"
		       "Print the events of every device as they come: job timeouts,\n"
		       "job faults, resets, and the V3D's clock falling low or recovering\n"
		       "and throttling starting or ending. Needs CAP_NET_ADMIN.\n");
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[0], "count")) {
		uint64_t n;

		if (!parse_u64(argv[1], 1, UINT32_MAX, &n))
			die("invalid count '%s'", argv[1]);
		mon.count = n;
		argc -= 2;
		argv += 2;
	}
	if (argc)
		die("unknown monitor argument '%s': try 'qpuctl monitor help'", argv[0]);

	qpu_nl_open(&nl);
	group = genl_ctrl_resolve_grp(nl.sk, QPU_GENL_NAME, QPU_GENL_MCGRP_EVENTS);
	if (group < 0)
		die("events group: %s", nl_geterror(group));
	ret = nl_socket_add_membership(nl.sk, group);
	if (ret == -NLE_PERM)
		die_errno(EPERM, "joining the events group (needs CAP_NET_ADMIN)");
	if (ret)
		die("joining the events group: %s", nl_geterror(ret));
	nl_socket_disable_seq_check(nl.sk);
	nl_socket_modify_cb(nl.sk, NL_CB_VALID, NL_CB_CUSTOM, monitor_cb, &mon);

	while (!mon.count || mon.seen < mon.count) {
		ret = nl_recvmsgs_default(nl.sk);
		if (ret < 0 && ret != -NLE_INTR && ret != -NLE_AGAIN)
			die("reading events: %s", nl_geterror(ret));
	}
	qpu_nl_close(&nl);
	return 0;
}
