/* SPDX-License-Identifier: MIT */
/*
 * The tools' command-line convention (cli.c), written out once in
 * qpu-tools(7): -h/--help to standard output, -V/--version as
 * "NAME (libqpu) VERSION", usage errors as "NAME: what\nTry 'NAME --help'
 * for more information.", binary output never to a terminal.
 */
#ifndef QPU_TOOLS_CLI_H
#define QPU_TOOLS_CLI_H

#include <stdint.h>
#include <stdio.h>

/* "NAME (libqpu) VERSION" on standard output: the package's version. */
void print_version(void);

/* A usage error: the message and where help is, then exit @status. */
void usage_error(int status, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

/* After getopt_long()'s own message about a bad option: exit @status. */
void try_help(int status) __attribute__((noreturn));

/* Die unless @fp may take binary output: a terminal may not. */
void refuse_binary_to_terminal(FILE *fp, const char *instead);

/*
 * Option @opt's value @s, a number from @min to @max (parse_num.h), or a
 * usage error (exit 1) naming the option and the range.
 */
uint64_t cli_opt_u64(const char *opt, const char *s, uint64_t min, uint64_t max);

#endif /* QPU_TOOLS_CLI_H */
