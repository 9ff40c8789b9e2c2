// SPDX-License-Identifier: MIT
/* cli.h's helpers: what every tool says the same way (qpu-tools(7)). */

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include <qpu.h>

#include "cli.h"
#include "die.h"
#include "parse_num.h"

void print_version(void)
{
	printf("%s (libqpu) %s\n", tool_name, qpu_version());
}

void usage_error(int status, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", tool_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", tool_name);
	exit(status);
}

void try_help(int status)
{
	fprintf(stderr, "Try '%s --help' for more information.\n", tool_name);
	exit(status);
}

void refuse_binary_to_terminal(FILE *fp, const char *instead)
{
	if (isatty(fileno(fp)))
		die("not writing binary to a terminal: %s", instead);
}

uint64_t cli_opt_u64(const char *opt, const char *s, uint64_t min, uint64_t max)
{
	uint64_t v;

	if (!parse_u64(s, min, max, &v))
		usage_error(EXIT_FAILURE, "%s '%s': not a number from %" PRIu64 " to %" PRIu64,
			    opt, s, min, max);
	return v;
}
