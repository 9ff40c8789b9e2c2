// SPDX-License-Identifier: MIT
/*
 * qpuctl's output, in the style of iproute2's json_print: every field is
 * printed once, through one call taking its JSON key and its text format,
 * so the text and the JSON (-j, pretty with -p) cannot drift apart. JSON
 * carries raw numbers; a NULL text format prints the field in JSON only.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "qpuctl.h"

#define PRINT_MAX_DEPTH	8

static bool json;
static bool pretty;
static int depth;			/* open JSON objects and arrays */
static bool first[PRINT_MAX_DEPTH];	/* nothing printed yet at that depth */

void print_init(bool want_json, bool want_pretty)
{
	json = want_json;
	pretty = want_pretty;
}

bool print_json(void)
{
	return json;
}

static void json_indent(void)
{
	int i;

	if (!pretty)
		return;
	putchar('\n');
	for (i = 0; i < depth; i++)
		fputs("  ", stdout);
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

/* Starts a member: the comma, the indentation and the key. */
static void json_member(const char *key)
{
	if (depth > 0) {
		if (!first[depth])
			putchar(',');
		first[depth] = false;
		json_indent();
	}
	if (key) {
		json_string(key);
		fputs(pretty ? ": " : ":", stdout);
	}
}

static void json_open(const char *key, char bracket)
{
	json_member(key);
	putchar(bracket);
	if (depth < PRINT_MAX_DEPTH - 1)
		depth++;
	first[depth] = true;
}

static void json_close(char bracket)
{
	bool empty = first[depth];

	if (depth > 0)
		depth--;
	if (!empty)
		json_indent();
	putchar(bracket);
	if (!depth)
		putchar('\n');
}

void print_open_object(const char *key)
{
	if (json)
		json_open(key, '{');
}

void print_close_object(void)
{
	if (json)
		json_close('}');
}

void print_open_array(const char *key)
{
	if (json)
		json_open(key, '[');
}

void print_close_array(void)
{
	if (json)
		json_close(']');
}

void print_uint(const char *key, const char *fmt, uint64_t value)
{
	if (json) {
		json_member(key);
		printf("%" PRIu64, value);
	} else if (fmt) {
		printf(fmt, value);
	}
}

void print_int(const char *key, const char *fmt, int64_t value)
{
	if (json) {
		json_member(key);
		printf("%" PRId64, value);
	} else if (fmt) {
		printf(fmt, value);
	}
}

void print_string(const char *key, const char *fmt, const char *value)
{
	if (json) {
		json_member(key);
		json_string(value);
	} else if (fmt) {
		printf(fmt, value);
	}
}

/* Text only: separators, line ends, table headers. */
void print_text(const char *text)
{
	if (!json)
		fputs(text, stdout);
}

void print_flush(void)
{
	fflush(stdout);
}
