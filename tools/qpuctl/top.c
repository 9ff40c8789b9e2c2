// SPDX-License-Identifier: MIT
/*
 * qpuctl top: every interval, the job rates of each device (from the
 * differences of its counters between two samples), its buffer memory,
 * how busy it was, how busy each of its QPUs was, and the list of open
 * files. On a terminal the screen is cleared before each sample; otherwise
 * (and with -j, one JSON object per sample and line) samples follow each
 * other, so scripts can read them. "count N" stops after N samples.
 *
 * A device's BUSY% is the share of the interval it ran jobs (busy time).
 * A QPU's UTIL% is that share scaled by the QPU's instructions over those
 * of the interval's busiest QPU: a QPU that issued as much as the busiest
 * one counts as busy whenever the device was. Devices that do not count
 * instructions per QPU (a real V3D) show BUSY% only. A device sampled for
 * telemetry (while a file was open) also shows its last sample's clock,
 * temperature and throttling.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/qpu.h>
#include <netlink/attr.h>

#include "parse_num.h"
#include "qpuctl.h"

#define TOP_MAX_DEVS	16
#define TOP_MAX_QPUS	16

/* The counters top shows, in the order of its columns. */
static const struct {
	int attr;
	const char *key;	/* JSON: the counter per second */
	const char *head;	/* text column */
} top_rates[] = {
	{ QPU_A_STATS_JOBS_SUBMITTED, "submitted_per_s", " SUBMIT/S" },
	{ QPU_A_STATS_JOBS_DONE, "done_per_s", "   DONE/S" },
	{ QPU_A_STATS_JOBS_FAILED, "failed_per_s", " FAILED/S" },
	{ QPU_A_STATS_JOBS_TIMEOUT, "timeout_per_s", "TIMEOUT/S" },
	{ QPU_A_STATS_JOBS_CANCELED, "canceled_per_s", " CANCEL/S" },
	{ QPU_A_STATS_RESETS, "resets_per_s", " RESETS/S" },
};

#define NUM_RATES (sizeof(top_rates) / sizeof(top_rates[0]))

struct top_dev {
	uint32_t dev;
	uint64_t count[NUM_RATES];
	uint64_t bo_count;
	uint64_t bo_bytes;
	uint64_t busy_ns;
	unsigned int nqpus;	/* 0: no per-QPU counts */
	uint64_t instructions[TOP_MAX_QPUS];
	struct telemetry telemetry;
};

struct top_sample {
	struct top_dev devs[TOP_MAX_DEVS];
	unsigned int ndevs;
	double time;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int top_stats_cb(struct nlattr **tb, void *arg)
{
	struct nlattr *qpu[QPU_A_QPU_MAX + 1];
	struct top_sample *s = arg;
	struct nlattr *attr, *head;
	struct top_dev *d;
	unsigned int i;
	int len, rem;

	if (s->ndevs == TOP_MAX_DEVS)
		return 0;
	d = &s->devs[s->ndevs++];
	d->dev = qpu_nl_uint(tb[QPU_A_STATS_DEV_INDEX]);
	for (i = 0; i < NUM_RATES; i++)
		d->count[i] = qpu_nl_uint(tb[top_rates[i].attr]);
	d->bo_count = qpu_nl_uint(tb[QPU_A_STATS_BO_COUNT]);
	d->bo_bytes = qpu_nl_uint(tb[QPU_A_STATS_BO_BYTES]);
	d->busy_ns = qpu_nl_uint(tb[QPU_A_STATS_BUSY_NS]);

	head = qpu_nl_attrs(&len);
	nla_for_each_attr(attr, head, len, rem) {
		uint64_t q;

		if (nla_type(attr) != QPU_A_STATS_QPU ||
		    nla_parse_nested(qpu, QPU_A_QPU_MAX, attr, NULL) ||
		    !qpu[QPU_A_QPU_INDEX])
			continue;
		q = qpu_nl_uint(qpu[QPU_A_QPU_INDEX]);
		if (q >= TOP_MAX_QPUS)
			continue;
		d->instructions[q] = qpu_nl_uint(qpu[QPU_A_QPU_INSTRUCTIONS]);
		if (q >= d->nqpus)
			d->nqpus = q + 1;
	}
	return 0;
}

/* A device's telemetry, from its DEV_GET message, beside its counters. */
static int top_dev_cb(struct nlattr **tb, void *arg)
{
	struct top_sample *s = arg;
	unsigned int i;

	for (i = 0; i < s->ndevs; i++)
		if (s->devs[i].dev == qpu_nl_uint(tb[QPU_A_DEV_INDEX]))
			telemetry_from_dev(&s->devs[i].telemetry, tb);
	return 0;
}

static void top_sample(struct qpuctl *ctl, struct qpu_nl *nl, struct top_sample *s)
{
	bool dump = ctl->dev == QPUCTL_ANY_DEV;
	struct nl_msg *msg;
	int ret;

	memset(s, 0, sizeof(*s));
	msg = qpu_nl_msg(nl, QPU_CMD_STATS_GET, dump);
	if (!dump)
		qpu_nl_put_u32(msg, QPU_A_STATS_DEV_INDEX, ctl->dev);
	ret = qpu_nl_request(nl, msg, QPU_A_STATS_MAX, top_stats_cb, s);
	if (ret)
		qpu_nl_die(nl, ret, "top");
	msg = qpu_nl_msg(nl, QPU_CMD_DEV_GET, dump);
	if (!dump)
		qpu_nl_put_u32(msg, QPU_A_DEV_INDEX, ctl->dev);
	ret = qpu_nl_request(nl, msg, QPU_A_DEV_MAX, top_dev_cb, s);
	if (ret)
		qpu_nl_die(nl, ret, "top");
	s->time = now();
}

static const struct top_dev *top_find(const struct top_sample *s, uint32_t dev)
{
	unsigned int i;

	for (i = 0; i < s->ndevs; i++)
		if (s->devs[i].dev == dev)
			return &s->devs[i];
	return NULL;
}

/* @new - @old of a counter, or 0 when it went back (the device was new). */
static uint64_t top_delta(uint64_t new, uint64_t old)
{
	return new >= old ? new - old : 0;
}

/* Percent, rounded, of @part in @whole; 0 for an empty whole. */
static uint64_t top_pct(double part, double whole)
{
	double pct = whole > 0 ? 100 * part / whole : 0;

	return (uint64_t)(pct > 100 ? 100 : pct + 0.5);
}

/* The QPU lines of a device: instructions per second and utilisation. */
static void top_print_qpus(const struct top_dev *d, const struct top_dev *p,
			   double secs, uint64_t busy)
{
	uint64_t delta[TOP_MAX_QPUS], max = 0;
	unsigned int q;

	for (q = 0; q < d->nqpus; q++) {
		delta[q] = p ? top_delta(d->instructions[q], p->instructions[q]) : 0;
		if (delta[q] > max)
			max = delta[q];
	}
	print_text("    QPU     INSTR/S  UTIL%\n");
	print_open_array("qpus");
	for (q = 0; q < d->nqpus; q++) {
		print_open_object(NULL);
		print_uint("qpu", "    %3" PRIu64, q);
		print_uint("instructions_per_s", " %11" PRIu64,
			   (uint64_t)(secs > 0 ? delta[q] / secs + 0.5 : 0));
		print_uint("util_pct", " %6" PRIu64 "\n",
			   max ? top_pct((double)busy * delta[q] / max, 100) : 0);
		print_close_object();
	}
	print_close_array();
}

static void top_print(struct qpuctl *ctl, const struct top_sample *prev,
		      const struct top_sample *cur, unsigned long n, bool tty)
{
	double secs = cur->time - prev->time;
	unsigned int i, j;

	if (tty && !print_json())
		fputs("\033[H\033[J", stdout);
	print_open_object(NULL);
	print_uint("sample", "qpuctl top: sample %" PRIu64, n);
	print_uint("interval_ms", ", %" PRIu64 " ms\n", (uint64_t)(secs * 1000 + 0.5));
	print_text("DEV");
	for (j = 0; j < NUM_RATES; j++) {
		print_text(" ");
		print_text(top_rates[j].head);
	}
	print_text("  BOS   BO_BYTES  BUSY%\n");

	print_open_array("devices");
	for (i = 0; i < cur->ndevs; i++) {
		const struct top_dev *d = &cur->devs[i], *p = top_find(prev, d->dev);
		/* The share of the interval the device ran jobs, in percent. */
		uint64_t busy = p ? top_pct(top_delta(d->busy_ns, p->busy_ns) / 1e9,
					    secs) : 0;

		print_open_object(NULL);
		print_uint("dev", "%-3" PRIu64, d->dev);
		for (j = 0; j < NUM_RATES; j++) {
			uint64_t delta = p && d->count[j] >= p->count[j] ?
					 d->count[j] - p->count[j] : 0;

			print_uint(top_rates[j].key, " %9" PRIu64,
				   (uint64_t)(secs > 0 ? delta / secs + 0.5 : 0));
		}
		print_uint("bo_count", " %4" PRIu64, d->bo_count);
		print_uint("bo_bytes", " %10" PRIu64, d->bo_bytes);
		print_uint("busy_pct", " %6" PRIu64 "\n", busy);
		if (telemetry_any(&d->telemetry)) {
			print_text("   ");
			telemetry_print(&d->telemetry);
			print_text("\n");
		}
		if (d->nqpus)
			top_print_qpus(d, p, secs, busy);
		print_close_object();
	}
	print_close_array();
	print_text("\n");
	clients_print(ctl, "clients");
	print_close_object();
	print_flush();
}

void top_parse_interval(int *argc, char ***argv, double *interval,
			unsigned long *count)
{
	char *end;
	uint64_t v;

	while (*argc >= 2) {
		if (!strcmp((*argv)[0], "interval")) {
			*interval = strtod((*argv)[1], &end);
			if (*end || !(*interval >= 0.1 && *interval <= 3600))
				die("invalid interval '%s': expected 0.1 to 3600 seconds",
				    (*argv)[1]);
		} else if (!strcmp((*argv)[0], "count")) {
			if (!parse_u64((*argv)[1], 1, UINT32_MAX, &v))
				die("invalid count '%s'", (*argv)[1]);
			*count = v;
		} else {
			break;
		}
		*argc -= 2;
		*argv += 2;
	}
}

int cmd_top(struct qpuctl *ctl, int argc, char **argv)
{
	struct top_sample a, b, *prev = &a, *cur = &b, *t;
	unsigned long count = 0, n;
	double interval = 1;
	struct qpu_nl nl;
	bool tty;
	int dev;

	if (argc && is_help(argv[0])) {
		printf("Usage: qpuctl [-j [-p]] top [DEV] [interval SECONDS] [count N]\n"
		       "Every interval (1 s), the job rates, buffer memory and busy\n"
		       "share of every device, or of DEV, the utilisation of each QPU\n"
		       "where the device counts instructions per QPU, and the open\n"
		       "files, and the last telemetry sample (clock set and measured,\n"
		       "temperature, throttling). Stops after N samples. DEV may also\n"
		       "come from -d.\n");
		return 0;
	}
	/* a Pi 4/5: no qpu.ko, the v3d driver's statistics */
	if ((!argc || !parse_dev(argv[0], &dev)) && v3d_stats_instead())
		return cmd_v3d_top(argc, argv);
	if (argc && parse_dev(argv[0], &dev)) {
		set_dev(ctl, argv[0]);
		argc--;
		argv++;
	}
	top_parse_interval(&argc, &argv, &interval, &count);
	if (argc)
		die("unknown top argument '%s': try 'qpuctl top help'", argv[0]);

	tty = isatty(STDOUT_FILENO);
	qpu_nl_open(&nl);
	top_sample(ctl, &nl, prev);
	for (n = 1; !count || n <= count; n++) {
		struct timespec ts = {
			.tv_sec = (time_t)interval,
			.tv_nsec = (long)((interval - (time_t)interval) * 1e9),
		};

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		top_sample(ctl, &nl, cur);
		top_print(ctl, prev, cur, n, tty);
		t = prev;
		prev = cur;
		cur = t;
	}
	qpu_nl_close(&nl);
	return 0;
}
