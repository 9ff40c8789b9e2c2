// SPDX-License-Identifier: MIT
/*
 * qpuctl: administration of qpu.ko over its generic-netlink family.
 * This file owns the command line: options, the table from the first
 * word to an object, the top-level usage, and how failures end the run
 * (a "qpuctl: ..." line on stderr and exit status 1).
 *
 * The grammar is iproute2's, "qpuctl [OPTIONS] OBJECT [COMMAND [ARGS]]",
 * with "show" the default command and an optional DEV handle: none lists
 * every device, one asks for that device. The first release's flat words
 * (info, clients, reset, hang) stay as aliases of the commands they became,
 * so scripts written for them keep working.
 */

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/qpu.h>

#include "cli.h"
#include "qpuctl.h"

const char tool_name[] = "qpuctl";

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: qpuctl [OPTIONS] OBJECT [COMMAND [ARGUMENTS]]\n"
		"       qpuctl [-j [-p]] dev [show] [DEV]          identification and state\n"
		"       qpuctl dev reset DEV                       reset a V3D\n"
		"       qpuctl [-j [-p]] dev hang [DEV]            the last hang's snapshot\n"
		"       qpuctl [-j [-p]] stats [show] [DEV]        counters, busy time, instructions\n"
		"       qpuctl [-j [-p]] client [show] [DEV] [id ID] [pid PID]   open files\n"
		"       qpuctl [-j [-p]] config [show]             module-wide configuration\n"
		"       qpuctl config set KEY VALUE [KEY VALUE]...\n"
		"       qpuctl [-j [-p]] monitor [count N]         print events as they come\n"
		"       qpuctl [-j [-p]] top [DEV] [interval S] [count N]   live rates and use\n"
		"       qpuctl [-j [-p]] doctor                   what keeps /dev/qpu from working\n"
		"       qpuctl [-j [-p]] v3d [show]               a Pi 4/5's GPU (the v3d driver's nodes)\n"
		"       qpuctl OBJECT help\n"
		"OBJECT := { dev | stats | client | config | monitor | top | doctor | v3d | help }\n"
		"OPTIONS := { -j[son] | -p[retty] | -d[ev] DEV | -h[elp] | -V[ersion] }\n"
		"DEV := { N | qpuN | /dev/qpuN }   (qpu and /dev/qpu are 0; -d DEV also names it)\n"
		"Aliases of the first release: info = dev show, clients = client show,\n"
		"reset = dev reset, hang = dev hang.\n"
		"config set, dev reset, dev hang and monitor need CAP_NET_ADMIN.\n");
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

/**
 * parse_dev() - read a device handle
 * @arg: N, qpuN or /dev/qpuN; "qpu" and "/dev/qpu" are 0
 * @dev: where N goes
 *
 * Return: false when @arg is no device handle.
 */
bool parse_dev(const char *arg, int *dev)
{
	const char *p = arg;
	char *end;
	long n;

	if (!strncmp(p, "/dev/", 5))
		p += 5;
	if (!strncmp(p, "qpu", 3)) {
		p += 3;
		if (!*p) {
			*dev = 0;
			return true;
		}
	}
	if (*p < '0' || *p > '9')
		return false;
	errno = 0;
	n = strtol(p, &end, 10);
	if (*end || errno || n > 255)
		return false;
	*dev = n;
	return true;
}

/**
 * set_dev() - the device a command names, from -d or its DEV argument
 * @ctl: the command line
 * @arg: the handle; must be one
 *
 * Both may be given only when they name the same device.
 */
void set_dev(struct qpuctl *ctl, const char *arg)
{
	int dev;

	if (!parse_dev(arg, &dev))
		die("invalid device '%s': expected N, qpuN or /dev/qpuN", arg);
	if (ctl->dev != QPUCTL_ANY_DEV && ctl->dev != dev)
		die("two devices given: %d and '%s'", ctl->dev, arg);
	ctl->dev = dev;
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
	{ "dev", cmd_dev },
	{ "stats", cmd_stats },
	{ "client", cmd_client },
	{ "config", cmd_config },
	{ "monitor", cmd_monitor },
	{ "top", cmd_top },
	{ "doctor", cmd_doctor },
	{ "v3d", cmd_v3d },
	{ "help", cmd_help },
	/* The first release's words. */
	{ "info", cmd_info },
	{ "clients", cmd_clients },
	{ "reset", cmd_reset },
	{ "hang", cmd_hang },
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
			ctl.dev = QPUCTL_ANY_DEV;	/* the last -d counts */
			set_dev(&ctl, optarg);
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
			print_version();
			printf("generic netlink family %s version %d\n",
			       QPU_GENL_NAME, QPU_GENL_VERSION);
			return 0;
		default:
			try_help(EXIT_FAILURE);
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
