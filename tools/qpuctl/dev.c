// SPDX-License-Identifier: MIT
/*
 * qpuctl's device objects: dev (show, reset, hang), stats and client, and
 * the first release's words for them (info, clients, reset, hang). Without
 * a DEV handle the read commands dump every device; with one they ask for
 * that one. top reuses the client list.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/qpu.h>
#include <netlink/attr.h>

#include <qpu.h>
#include "qpuctl.h"

static const char dev_usage[] =
	"Usage: qpuctl [-j [-p]] dev [show] [DEV]\n"
	"       qpuctl dev reset DEV\n"
	"       qpuctl [-j [-p]] dev hang [DEV]\n"
	"show: identification and state of every device, or of DEV, with the\n"
	"      V3D's clock rate when the kernel knows it.\n"
	"reset: reset the V3D of DEV between two jobs; a running job ends as\n"
	"      canceled. Needs CAP_NET_ADMIN.\n"
	"hang: what each device, or DEV, and its job looked like when its last\n"
	"      job timed out: the job, its process and the queue's registers;\n"
	"      devices where none has are left out. Needs CAP_NET_ADMIN.\n"
	"DEV may also come from -d. Aliases: info = dev show, reset = dev reset,\n"
	"hang = dev hang.\n";

static const char stats_usage[] =
	"Usage: qpuctl [-j [-p]] stats [show] [DEV]\n"
	"Job, reset and memory counters of every device, or of DEV; the time it\n"
	"spent running jobs and, where the device counts them (the simulated\n"
	"V3D), the instructions each QPU issued.\n";

static const char client_usage[] =
	"Usage: qpuctl [-j [-p]] client [show] [DEV] [id ID] [pid PID]\n"
	"The open files of every device, or of DEV: the process that opened\n"
	"each, its buffer objects and its jobs. id asks for the one file of\n"
	"that number (an error when it is gone); pid lists that process's files.\n"
	"Alias: clients = client show.\n";

/* Is @word one of @keys (a NULL-terminated list, or NULL)? */
static bool dev_is_key(const char *const *keys, const char *word)
{
	for (; keys && *keys; keys++)
		if (!strcmp(word, *keys))
			return true;
	return false;
}

/*
 * The arguments after a command: an optional DEV handle, and the
 * key-value pairs in @keys (NULL: none), whose values (1 to 2^32 - 1) go
 * to @values. Anything else is refused, named, as an argument of @word.
 */
static void dev_args(struct qpuctl *ctl, const char *word, int argc, char **argv,
		     const char *const *keys, uint32_t *values)
{
	unsigned long long v;
	bool dev_seen = false;
	unsigned int i;
	char *end;
	int dev;

	for (; argc; argc--, argv++) {
		for (i = 0; keys && keys[i]; i++)
			if (!strcmp(argv[0], keys[i]))
				break;
		if (keys && keys[i]) {
			if (argc < 2)
				die("%s: %s needs a value", word, keys[i]);
			errno = 0;
			v = strtoull(argv[1], &end, 10);
			if (end == argv[1] || *end || errno || !v ||
			    v > UINT32_MAX || argv[1][0] == '-')
				die("invalid %s '%s'", keys[i], argv[1]);
			values[i] = v;
			argc--;
			argv++;
		} else if (!dev_seen && parse_dev(argv[0], &dev)) {
			set_dev(ctl, argv[0]);
			dev_seen = true;
		} else {
			die("unknown %s argument '%s': try 'qpuctl %s help'", word,
			    argv[0], word);
		}
	}
}

/*
 * A command that acts on one device refuses to run without one. @word is
 * what the user typed (an alias, or "dev" then @cmd).
 */
static void dev_need(const struct qpuctl *ctl, const char *word, const char *cmd)
{
	bool alias = strcmp(word, "dev");

	if (ctl->dev == QPUCTL_ANY_DEV)
		die("%s%s%s needs a device: qpuctl dev %s DEV", word,
		    alias ? "" : " ", alias ? "" : cmd, cmd);
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

static int info_show(struct nlattr **tb, void *arg)
{
	struct telemetry t;

	print_open_object(NULL);
	print_uint("dev", "dev %" PRIu64, qpu_nl_uint(tb[QPU_A_DEV_INDEX]));
	print_string("name", " name %s", qpu_nl_str(tb[QPU_A_DEV_NAME]));
	print_string("backend", " backend %s",
		     qpu_backend_name(qpu_dev_backend_from_uapi(
				     qpu_nl_uint(tb[QPU_A_DEV_BACKEND]))));
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
	/* Only when the kernel knows it (never on the simulated V3D). */
	if (tb[QPU_A_DEV_CLOCK_HZ])
		print_uint("clock_hz", " clock_hz %" PRIu64,
			   qpu_nl_uint(tb[QPU_A_DEV_CLOCK_HZ]));
	print_text("\n   ");
	print_uint("ident0", " ident0 0x%08" PRIx64, qpu_nl_uint(tb[QPU_A_DEV_IDENT0]));
	print_uint("ident1", " ident1 0x%08" PRIx64, qpu_nl_uint(tb[QPU_A_DEV_IDENT1]));
	print_uint("ident2", " ident2 0x%08" PRIx64, qpu_nl_uint(tb[QPU_A_DEV_IDENT2]));
	print_text("\n");
	/* Once the device has been sampled (while a file was open). */
	telemetry_from_dev(&t, tb);
	if (telemetry_any(&t)) {
		print_text("   ");
		telemetry_print(&t);
		print_text("\n");
	}
	print_close_object();
	return 0;
}

static void dev_show(struct qpuctl *ctl, const char *word, int argc, char **argv)
{
	dev_args(ctl, word, argc, argv, NULL, NULL);
	dev_request(ctl, QPU_CMD_DEV_GET, QPU_A_DEV_INDEX, QPU_A_DEV_MAX,
		    info_show, "info");
}

static void dev_reset(struct qpuctl *ctl, const char *word, int argc, char **argv)
{
	struct qpu_nl nl;
	struct nl_msg *msg;
	int ret;

	dev_args(ctl, word, argc, argv, NULL, NULL);
	dev_need(ctl, word, "reset");

	qpu_nl_open(&nl);
	msg = qpu_nl_msg(&nl, QPU_CMD_DEV_RESET, false);
	qpu_nl_put_u32(msg, QPU_A_DEV_INDEX, ctl->dev);
	ret = qpu_nl_request(&nl, msg, QPU_A_DEV_MAX, NULL, NULL);
	if (ret)
		qpu_nl_die(&nl, ret, "reset");
	qpu_nl_close(&nl);
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

static void dev_hang(struct qpuctl *ctl, const char *word, int argc, char **argv)
{
	dev_args(ctl, word, argc, argv, NULL, NULL);
	dev_request(ctl, QPU_CMD_HANG_GET, QPU_A_HANG_DEV_INDEX, QPU_A_HANG_MAX,
		    hang_show, "hang");
}

static bool stats_header_done;

/* The per-QPU counters of a stats message, when the device has them. */
static void stats_show_qpus(struct nlattr **tb)
{
	struct nlattr *qpu[QPU_A_QPU_MAX + 1];
	struct nlattr *attr, *head;
	int len, rem;

	if (!tb[QPU_A_STATS_QPU])
		return;
	print_text("     instructions per QPU:");
	print_open_array("qpus");
	head = qpu_nl_attrs(&len);
	nla_for_each_attr(attr, head, len, rem) {
		if (nla_type(attr) != QPU_A_STATS_QPU ||
		    nla_parse_nested(qpu, QPU_A_QPU_MAX, attr, NULL))
			continue;
		print_open_object(NULL);
		print_uint("qpu", " %" PRIu64, qpu_nl_uint(qpu[QPU_A_QPU_INDEX]));
		print_uint("instructions", ":%" PRIu64,
			   qpu_nl_uint(qpu[QPU_A_QPU_INSTRUCTIONS]));
		print_close_object();
	}
	print_close_array();
	print_text("\n");
}

static int stats_show(struct nlattr **tb, void *arg)
{
	if (!stats_header_done) {
		print_text("DEV  SUBMITTED       DONE     FAILED    TIMEOUT   CANCELED     RESETS  BOS   BO_BYTES    BUSY_MS\n");
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
	/* JSON has the raw nanoseconds, the table milliseconds. */
	print_uint("busy_ns", NULL, qpu_nl_uint(tb[QPU_A_STATS_BUSY_NS]));
	if (!print_json())
		printf(" %10" PRIu64 "\n",
		       qpu_nl_uint(tb[QPU_A_STATS_BUSY_NS]) / 1000000);
	stats_show_qpus(tb);
	telemetry_print_stats(tb);
	print_close_object();
	return 0;
}

static void stats_show_cmd(struct qpuctl *ctl, const char *word, int argc,
			   char **argv)
{
	dev_args(ctl, word, argc, argv, NULL, NULL);
	dev_request(ctl, QPU_CMD_STATS_GET, QPU_A_STATS_DEV_INDEX,
		    QPU_A_STATS_MAX, stats_show, "stats");
}

static bool clients_header_done;

static int clients_show(struct nlattr **tb, void *arg)
{
	if (!clients_header_done) {
		print_text("DEV  ID       PID      COMM              BOS   BO_BYTES  SUBMITTED  QUEUED\n");
		clients_header_done = true;
	}
	print_open_object(NULL);
	print_uint("dev", "%-4" PRIu64, qpu_nl_uint(tb[QPU_A_CLIENT_DEV_INDEX]));
	print_uint("id", " %-8" PRIu64, qpu_nl_uint(tb[QPU_A_CLIENT_ID]));
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

/*
 * The open files of every device or of ctl->dev, as an array under @key
 * (NULL at the top level): a dump, filtered by @pid when not 0; or, for a
 * client @id, a get of that one file.
 */
static void clients_request(struct qpuctl *ctl, const char *key, uint32_t id,
			    uint32_t pid)
{
	struct qpu_nl nl;
	struct nl_msg *msg;
	int ret;

	qpu_nl_open(&nl);
	msg = qpu_nl_msg(&nl, QPU_CMD_CLIENT_GET, !id);
	if (ctl->dev != QPUCTL_ANY_DEV)
		qpu_nl_put_u32(msg, QPU_A_CLIENT_DEV_INDEX, ctl->dev);
	if (id)
		qpu_nl_put_u32(msg, QPU_A_CLIENT_ID, id);
	if (pid)
		qpu_nl_put_u32(msg, QPU_A_CLIENT_PID, pid);
	clients_header_done = false;
	print_open_array(key);
	ret = qpu_nl_request(&nl, msg, QPU_A_CLIENT_MAX, clients_show, NULL);
	print_close_array();
	if (ret)
		qpu_nl_die(&nl, ret, "clients");
	qpu_nl_close(&nl);
}

/**
 * clients_print() - print the open files of every device, or of ctl->dev
 * @ctl: the command line
 * @key: the JSON key of the array, or NULL at the top level
 */
void clients_print(struct qpuctl *ctl, const char *key)
{
	clients_request(ctl, key, 0, 0);
}

static const char *const client_keys[] = { "id", "pid", NULL };

static void client_show(struct qpuctl *ctl, const char *word, int argc,
			char **argv)
{
	uint32_t values[2] = { 0, 0 };

	dev_args(ctl, word, argc, argv, client_keys, values);
	clients_request(ctl, NULL, values[0], values[1]);
}

/* A command of an object: its word, its keys and what runs it. */
struct dev_cmd {
	const char *name;
	const char *const *keys;
	void (*fn)(struct qpuctl *ctl, const char *word, int argc, char **argv);
};

/*
 * An object's command line: "help", a command word of @cmds, or none: the
 * first command (show) then runs, and its arguments (a DEV handle or one
 * of its keys) may come right after the object.
 */
static int dev_object(struct qpuctl *ctl, const char *word, const char *usage,
		      const struct dev_cmd *cmds, int argc, char **argv)
{
	const struct dev_cmd *cmd = &cmds[0];
	int dev;

	if (argc && is_help(argv[0])) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc && !parse_dev(argv[0], &dev) &&
	    !dev_is_key(cmds[0].keys, argv[0])) {
		for (cmd = cmds; cmd->name; cmd++)
			if (!strcmp(argv[0], cmd->name))
				break;
		if (!cmd->name)
			die("unknown %s command '%s': try 'qpuctl %s help'", word,
			    argv[0], word);
		argc--;
		argv++;
		if (argc && is_help(argv[0])) {
			fputs(usage, stdout);
			return 0;
		}
	}
	cmd->fn(ctl, word, argc, argv);
	return 0;
}

static const struct dev_cmd dev_cmds[] = {
	{ "show", NULL, dev_show },
	{ "reset", NULL, dev_reset },
	{ "hang", NULL, dev_hang },
	{ },
};

static const struct dev_cmd show_only_cmds[] = {
	{ "show", NULL, dev_show },
	{ },
};

static const struct dev_cmd stats_cmds[] = {
	{ "show", NULL, stats_show_cmd },
	{ },
};

static const struct dev_cmd client_cmds[] = {
	{ "show", client_keys, client_show },
	{ },
};

int cmd_dev(struct qpuctl *ctl, int argc, char **argv)
{
	return dev_object(ctl, "dev", dev_usage, dev_cmds, argc, argv);
}

int cmd_stats(struct qpuctl *ctl, int argc, char **argv)
{
	/* a Pi 4/5: no qpu.ko, the v3d driver's statistics */
	if ((!argc || (argc == 1 && !strcmp(argv[0], "show"))) && v3d_stats_instead())
		return cmd_v3d_stats(0, NULL);
	return dev_object(ctl, "stats", stats_usage, stats_cmds, argc, argv);
}

int cmd_client(struct qpuctl *ctl, int argc, char **argv)
{
	return dev_object(ctl, "client", client_usage, client_cmds, argc, argv);
}

/* info [show] [DEV]: dev show. */
int cmd_info(struct qpuctl *ctl, int argc, char **argv)
{
	return dev_object(ctl, "info", dev_usage, show_only_cmds, argc, argv);
}

/* clients [show] [DEV] [id ID] [pid PID]: client show. */
int cmd_clients(struct qpuctl *ctl, int argc, char **argv)
{
	return dev_object(ctl, "clients", client_usage, client_cmds, argc, argv);
}

/* reset [DEV]: dev reset. */
int cmd_reset(struct qpuctl *ctl, int argc, char **argv)
{
	if (argc && is_help(argv[0])) {
		fputs(dev_usage, stdout);
		return 0;
	}
	dev_reset(ctl, "reset", argc, argv);
	return 0;
}

/* hang [show] [DEV]: dev hang. */
int cmd_hang(struct qpuctl *ctl, int argc, char **argv)
{
	if (argc && is_help(argv[0])) {
		fputs(dev_usage, stdout);
		return 0;
	}
	if (argc && !strcmp(argv[0], "show")) {
		argc--;
		argv++;
	}
	dev_hang(ctl, "hang", argc, argv);
	return 0;
}
