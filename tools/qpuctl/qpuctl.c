// SPDX-License-Identifier: MIT
/*
 * qpuctl: administration of qpu.ko over its generic-netlink family.
 * This file owns the command line: options, the table from the first
 * word to a command, the top-level usage, and how failures end the run
 * (a "qpuctl: ..." line on stderr and exit status 1).
 */

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/qpu.h>

#include "qpuctl.h"

#define QPUCTL_VERSION "1"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: qpuctl [OPTIONS] OBJECT [COMMAND [ARGUMENTS]]\n"
		"       qpuctl [-j [-p]] [-d DEV] info           identification and state\n"
		"       qpuctl [-j [-p]] [-d DEV] stats          job, reset and memory counters\n"
		"       qpuctl [-j [-p]] [-d DEV] clients        open files of the devices\n"
		"       qpuctl [-j [-p]] config [get]            module-wide configuration\n"
		"       qpuctl config set KEY VALUE [KEY VALUE]...\n"
		"       qpuctl -d DEV reset                      reset a V3D\n"
		"       qpuctl [-j [-p]] -d DEV hang             the last hang's snapshot\n"
		"       qpuctl [-j [-p]] monitor [count N]       print events as they come\n"
		"       qpuctl [-j [-p]] [-d DEV] top [interval S] [count N]   rates, memory, files\n"
		"       qpuctl OBJECT help\n"
		"OBJECT := { info | stats | clients | config | reset | hang | monitor | top | help }\n"
		"OPTIONS := { -j[son] | -p[retty] | -d[ev] DEV | -h[elp] | -V[ersion] }\n"
		"DEV := { N | qpuN | /dev/qpuN }   (qpu and /dev/qpu are 0)\n"
		"config set, reset, hang and monitor need CAP_NET_ADMIN.\n");
}

static void __attribute__((noreturn)) vdie(int err, const char *fmt, va_list ap)
{
	fputs("qpuctl: ", stderr);
	vfprintf(stderr, fmt, ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
	exit(EXIT_FAILURE);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(0, fmt, ap);
}

void die_errno(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(err, fmt, ap);
}

bool is_help(const char *word)
{
	return !strcmp(word, "help") || !strcmp(word, "-h") ||
	       !strcmp(word, "--help");
}

/* N, qpuN, /dev/qpuN; "qpu" and "/dev/qpu" are 0. */
static int parse_dev(const char *arg)
{
	const char *p = arg;
	char *end;
	long n;

	if (!strncmp(p, "/dev/", 5))
		p += 5;
	if (!strncmp(p, "qpu", 3)) {
		p += 3;
		if (!*p)
			return 0;
	}
	errno = 0;
	n = strtol(p, &end, 10);
	if (!*p || *end || errno || n < 0 || n > 255)
		die("invalid device '%s': expected N, qpuN or /dev/qpuN", arg);
	return n;
}

static int cmd_help(struct qpuctl *ctl, int argc, char **argv)
{
	usage(stdout);
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(struct qpuctl *ctl, int argc, char **argv);
} commands[] = {
	{ "info", cmd_info },
	{ "stats", cmd_stats },
	{ "clients", cmd_clients },
	{ "config", cmd_config },
	{ "reset", cmd_reset },
	{ "hang", cmd_hang },
	{ "monitor", cmd_monitor },
	{ "top", cmd_top },
	{ "help", cmd_help },
};

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct qpuctl ctl = { .dev = QPUCTL_ANY_DEV };
	unsigned int i;
	int opt;

	while ((opt = getopt_long(argc, argv, "+d:hjpV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			ctl.dev = parse_dev(optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'j':
			ctl.json = true;
			break;
		case 'p':
			ctl.pretty = true;
			break;
		case 'V':
			printf("qpuctl %s (generic netlink family %s version %d)\n",
			       QPUCTL_VERSION, QPU_GENL_NAME, QPU_GENL_VERSION);
			return 0;
		default:
			usage(stderr);
			return EXIT_FAILURE;
		}
	}
	if (ctl.pretty && !ctl.json)
		die("-p needs -j");
	argc -= optind;
	argv += optind;
	if (!argc) {
		usage(stderr);
		return EXIT_FAILURE;
	}

	print_init(ctl.json, ctl.pretty);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[0], commands[i].name))
			return commands[i].fn(&ctl, argc - 1, argv + 1) ?
				EXIT_FAILURE : EXIT_SUCCESS;
	die("unknown object '%s': try 'qpuctl help'", argv[0]);
}
