// SPDX-License-Identifier: MIT
/* die() of die.h: the tools' one way out on a usage or I/O error. */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "die.h"

void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", tool_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_FAILURE);
}
