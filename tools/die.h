/* SPDX-License-Identifier: MIT */
/*
 * die() for the command-line tools: "TOOL_NAME: message" on standard
 * error, then exit status 1 (each tool's usage or I/O error status). A tool
 * defines TOOL_NAME before it includes this.
 */
#ifndef QPU_TOOLS_DIE_H
#define QPU_TOOLS_DIE_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", TOOL_NAME);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_FAILURE);
}

#endif /* QPU_TOOLS_DIE_H */
