/* SPDX-License-Identifier: MIT */
/*
 * die() for the command-line tools (die.c): "NAME: message" on standard
 * error, then exit status 1 (each tool's usage or I/O error status). Each
 * tool defines tool_name, the NAME.
 */
#ifndef QPU_TOOLS_DIE_H
#define QPU_TOOLS_DIE_H

/* The tool's name for its messages, such as "qpu-run"; the tool defines it. */
extern const char tool_name[];

void die(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));

#endif /* QPU_TOOLS_DIE_H */
