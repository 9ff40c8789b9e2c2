// SPDX-License-Identifier: MIT
/*
 * test-genl-spec: uapi/qpu.genl.yaml and the netlink section of
 * uapi/linux/qpu.h say the same. The spec is read with a small parser for
 * the block style it is written in; every enum it implies (definitions,
 * attribute sets with their count and max sentinels, commands) is turned
 * into C names by the spec's rules (prefix + name, upper case, '-' to '_')
 * and compared, name by name and value by value, with the header's, which
 * are listed below. A name the header has and the spec lacks, or the
 * reverse, fails; so does a sentinel that disagrees, which catches an
 * entry added to the header without being added to this list. Every GET
 * command must offer both a do and a dump (STYLE.md, section 4).
 * The spec is $QPU_GENL_SPEC, else $QPU_TEST_DATA/../../../uapi/qpu.genl.yaml,
 * else uapi/qpu.genl.yaml.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/qpu.h>

#include "testlib.h"

#define H(x)	{ #x, (long long)(x) }

/* Every netlink constant of the header. */
static const struct {
	const char *name;
	long long value;
} header[] = {
	H(QPU_DEV_STATE_IDLE), H(QPU_DEV_STATE_BUSY), H(QPU_DEV_STATE_STOPPED),
	H(QPU_RESET_TIMEOUT), H(QPU_RESET_FAULT), H(QPU_RESET_ADMIN),
	H(QPU_RESET_REMOVE), H(QPU_RESET_DEADLOCK),
	H(QPU_TELEMETRY_CLOCK_LOW), H(QPU_TELEMETRY_CLOCK_OK),
	H(QPU_TELEMETRY_THROTTLE_START), H(QPU_TELEMETRY_THROTTLE_END),
	H(QPU_CMD_UNSPEC), H(QPU_CMD_DEV_GET), H(QPU_CMD_STATS_GET),
	H(QPU_CMD_CLIENT_GET), H(QPU_CMD_CONFIG_GET), H(QPU_CMD_CONFIG_SET),
	H(QPU_CMD_DEV_RESET), H(QPU_CMD_JOB_TIMEOUT_NTF),
	H(QPU_CMD_JOB_FAULT_NTF), H(QPU_CMD_DEV_RESET_NTF), H(QPU_CMD_HANG_GET),
	H(QPU_CMD_TELEMETRY_NTF),
	H(__QPU_CMD_MAX), H(QPU_CMD_MAX),
	H(QPU_A_DEV_UNSPEC), H(QPU_A_DEV_INDEX), H(QPU_A_DEV_NAME),
	H(QPU_A_DEV_BACKEND), H(QPU_A_DEV_STATE), H(QPU_A_DEV_IDENT0),
	H(QPU_A_DEV_IDENT1), H(QPU_A_DEV_IDENT2), H(QPU_A_DEV_REVISION),
	H(QPU_A_DEV_NUM_QPUS), H(QPU_A_DEV_NUM_SLICES),
	H(QPU_A_DEV_NUM_SEMAPHORES), H(QPU_A_DEV_VPM_SIZE),
	H(QPU_A_DEV_CLOCK_HZ), H(QPU_A_DEV_CLOCK_SET_HZ),
	H(QPU_A_DEV_CLOCK_MEASURED_HZ), H(QPU_A_DEV_TEMP_MC),
	H(QPU_A_DEV_THROTTLED), H(QPU_A_DEV_TELEMETRY_AGE_MS),
	H(QPU_A_DEV_CLOCK_LOW), H(QPU_A_DEV_THROTTLING),
	H(__QPU_A_DEV_MAX), H(QPU_A_DEV_MAX),
	H(QPU_A_STATS_UNSPEC), H(QPU_A_STATS_DEV_INDEX), H(QPU_A_STATS_PAD),
	H(QPU_A_STATS_JOBS_SUBMITTED), H(QPU_A_STATS_JOBS_DONE),
	H(QPU_A_STATS_JOBS_FAILED), H(QPU_A_STATS_JOBS_TIMEOUT),
	H(QPU_A_STATS_JOBS_CANCELED), H(QPU_A_STATS_RESETS),
	H(QPU_A_STATS_BO_COUNT), H(QPU_A_STATS_BO_BYTES),
	H(QPU_A_STATS_BUSY_NS), H(QPU_A_STATS_QPU),
	H(QPU_A_STATS_TELEMETRY_SAMPLES), H(QPU_A_STATS_CLOCK_LOW_EVENTS),
	H(QPU_A_STATS_THROTTLE_EVENTS),
	H(__QPU_A_STATS_MAX), H(QPU_A_STATS_MAX),
	H(QPU_A_QPU_UNSPEC), H(QPU_A_QPU_INDEX), H(QPU_A_QPU_PAD),
	H(QPU_A_QPU_INSTRUCTIONS),
	H(__QPU_A_QPU_MAX), H(QPU_A_QPU_MAX),
	H(QPU_A_CLIENT_UNSPEC), H(QPU_A_CLIENT_DEV_INDEX), H(QPU_A_CLIENT_PAD),
	H(QPU_A_CLIENT_PID), H(QPU_A_CLIENT_COMM), H(QPU_A_CLIENT_BO_COUNT),
	H(QPU_A_CLIENT_BO_BYTES), H(QPU_A_CLIENT_JOBS_SUBMITTED),
	H(QPU_A_CLIENT_JOBS_QUEUED), H(QPU_A_CLIENT_ID),
	H(__QPU_A_CLIENT_MAX), H(QPU_A_CLIENT_MAX),
	H(QPU_A_CONFIG_UNSPEC), H(QPU_A_CONFIG_PAD),
	H(QPU_A_CONFIG_DEFAULT_TIMEOUT_MS), H(QPU_A_CONFIG_MAX_TIMEOUT_MS),
	H(QPU_A_CONFIG_MAX_BO_SIZE), H(QPU_A_CONFIG_CLIENT_MEM_LIMIT),
	H(QPU_A_CONFIG_DEV_MEM_LIMIT), H(QPU_A_CONFIG_MAX_QUEUED_JOBS),
	H(__QPU_A_CONFIG_MAX), H(QPU_A_CONFIG_MAX),
	H(QPU_A_EVENT_UNSPEC), H(QPU_A_EVENT_DEV_INDEX), H(QPU_A_EVENT_PAD),
	H(QPU_A_EVENT_REASON), H(QPU_A_EVENT_PID), H(QPU_A_EVENT_COMM),
	H(QPU_A_EVENT_SEQNO), H(QPU_A_EVENT_TIMEOUT_MS),
	H(QPU_A_EVENT_FAULT_QPU), H(QPU_A_EVENT_FAULT_PC),
	H(QPU_A_EVENT_FAULT_ADDR), H(QPU_A_EVENT_FAULT_ACCESS),
	H(QPU_A_EVENT_TELEMETRY), H(QPU_A_EVENT_CLOCK_SET_HZ),
	H(QPU_A_EVENT_CLOCK_MEASURED_HZ), H(QPU_A_EVENT_TEMP_MC),
	H(QPU_A_EVENT_THROTTLED),
	H(__QPU_A_EVENT_MAX), H(QPU_A_EVENT_MAX),
	H(QPU_A_HANG_UNSPEC), H(QPU_A_HANG_DEV_INDEX), H(QPU_A_HANG_PAD),
	H(QPU_A_HANG_AGE_MS), H(QPU_A_HANG_PID), H(QPU_A_HANG_COMM),
	H(QPU_A_HANG_SEQNO), H(QPU_A_HANG_TIMEOUT_MS), H(QPU_A_HANG_PROGRAMS),
	H(QPU_A_HANG_CODE_ADDR), H(QPU_A_HANG_UNIF_ADDR), H(QPU_A_HANG_SRQCS),
	H(QPU_A_HANG_DBQITE), H(QPU_A_HANG_DBQITC),
	H(__QPU_A_HANG_MAX), H(QPU_A_HANG_MAX),
};

#define NHEADER		T_ARRAY_SIZE(header)
#define MAX_NAMES	256

/* The constants the spec implies. */
static struct {
	char name[2 * 256];
	long long value;
} spec[MAX_NAMES];
static unsigned int nspec;

static char spec_name[256], spec_mcgrp[256];

/* The operation being read: its name and the forms it offers. */
static char op_name[256];
static bool op_do, op_dump;
static unsigned int nget;

/* An operation ends: a GET must work as a do and as a dump. */
static void op_end(void)
{
	size_t len = strlen(op_name);

	if (len > 4 && !strcmp(op_name + len - 4, "-get")) {
		nget++;
		if (!op_do || !op_dump)
			fprintf(stderr, "operation %s lacks its %s\n", op_name,
				op_do ? "dump" : "do");
		T_CHECK(op_do && op_dump);
	}
	op_name[0] = '\0';
	op_do = op_dump = false;
}

/* prefix + name in C: upper case, '-' to '_'. */
static void add(const char *prefix, const char *name, long long value)
{
	char *p;

	T_CHECK(nspec < MAX_NAMES);
	if (nspec >= MAX_NAMES)
		return;
	snprintf(spec[nspec].name, sizeof(spec[nspec].name), "%s%s", prefix, name);
	for (p = spec[nspec].name; *p; p++)
		*p = *p == '-' ? '_' : toupper((unsigned char)*p);
	spec[nspec].value = value;
	nspec++;
}

/* One line of the spec: its indentation, and "key: value" or "-". */
struct line {
	int indent;
	bool dash;
	char key[256];
	char value[256];
};

static bool parse_line(char *buf, struct line *l)
{
	char *p = buf, *colon, *end;

	memset(l, 0, sizeof(*l));
	buf[strcspn(buf, "\n#")] = '\0';
	while (*p == ' ')
		p++;
	l->indent = p - buf;
	end = p + strlen(p);
	while (end > p && end[-1] == ' ')
		end--;
	*end = '\0';
	if (!*p)
		return false;
	if (!strcmp(p, "-")) {
		l->dash = true;
		return true;
	}
	colon = strstr(p, ":");
	if (!colon)
		return false;	/* a list item or a text block line */
	*colon = '\0';
	snprintf(l->key, sizeof(l->key), "%s", p);
	p = colon + 1;
	while (*p == ' ')
		p++;
	snprintf(l->value, sizeof(l->value), "%s", p);
	return true;
}

/* A set of entries being read: prefix, sentinels, next value. */
struct group {
	bool open;
	char prefix[256];
	char cnt_name[256];
	char max_name[256];
	long long next;
};

static void group_close(struct group *g)
{
	if (!g->open)
		return;
	if (g->cnt_name[0])
		add("", g->cnt_name, g->next);
	if (g->max_name[0])
		add("", g->max_name, g->next - 1);
	memset(g, 0, sizeof(*g));
}

/* "[ a, b, c ]": each entry, from @g->next on. */
static void add_flow_list(struct group *g, char *list)
{
	char *tok;

	for (tok = strtok(list, "[], "); tok; tok = strtok(NULL, "[], "))
		add(g->prefix, tok, g->next++);
}

/* Adds the entry whose lines were being read, if any. */
static void flush(struct group *g, char *pending)
{
	if (pending[0])
		add(g->prefix, pending, g->next++);
	pending[0] = '\0';
}

static void parse_spec(FILE *f)
{
	enum { TOP, DEFS, SETS, OPS, MCGRPS } section = TOP;
	struct group g = { 0 };
	char buf[512], pending[256] = "";
	struct line l;

	while (fgets(buf, sizeof(buf), f)) {
		if (!parse_line(buf, &l))
			continue;
		/* An entry ends at the next dash of its level or above. */
		if (l.indent == 0 ||
		    (l.dash && section == SETS && l.indent <= 6) ||
		    (l.dash && section == OPS && l.indent <= 4))
			flush(&g, pending);
		if (section == OPS &&
		    (l.indent == 0 || (l.dash && l.indent <= 4)))
			op_end();
		if (l.indent == 0) {
			group_close(&g);
			if (!strcmp(l.key, "definitions"))
				section = DEFS;
			else if (!strcmp(l.key, "attribute-sets"))
				section = SETS;
			else if (!strcmp(l.key, "operations"))
				section = OPS;
			else if (!strcmp(l.key, "mcast-groups"))
				section = MCGRPS;
			else
				section = TOP;
			if (!strcmp(l.key, "name"))
				snprintf(spec_name, sizeof(spec_name), "%s", l.value);
			continue;
		}

		switch (section) {
		case DEFS:
		case SETS:
			if (l.dash && l.indent == 2) {
				/* A definition or an attribute set. */
				group_close(&g);
				g.open = true;
				g.next = section == SETS ? 1 : 0;
			} else if (l.indent == 4 && !strcmp(l.key, "name-prefix")) {
				snprintf(g.prefix, sizeof(g.prefix), "%s", l.value);
			} else if (l.indent == 4 && !strcmp(l.key, "value-start")) {
				g.next = atoll(l.value);
			} else if (l.indent == 4 && !strcmp(l.key, "attr-cnt-name")) {
				snprintf(g.cnt_name, sizeof(g.cnt_name), "%s", l.value);
			} else if (l.indent == 4 && !strcmp(l.key, "attr-max-name")) {
				snprintf(g.max_name, sizeof(g.max_name), "%s", l.value);
			} else if (l.indent == 4 && !strcmp(l.key, "entries")) {
				add_flow_list(&g, l.value);
			} else if (l.indent == 8 && !strcmp(l.key, "name")) {
				snprintf(pending, sizeof(pending), "%s", l.value);
			} else if (l.indent == 8 && !strcmp(l.key, "value")) {
				g.next = atoll(l.value);
			}
			break;
		case OPS:
			if (l.indent == 2 && !strcmp(l.key, "name-prefix")) {
				g.open = true;
				g.next = 1;
				snprintf(g.prefix, sizeof(g.prefix), "%s", l.value);
			} else if (l.indent == 2 && !strcmp(l.key, "cmd-cnt-name")) {
				snprintf(g.cnt_name, sizeof(g.cnt_name), "%s", l.value);
			} else if (l.indent == 2 && !strcmp(l.key, "cmd-max-name")) {
				snprintf(g.max_name, sizeof(g.max_name), "%s", l.value);
			} else if (l.indent == 6 && !strcmp(l.key, "name")) {
				snprintf(pending, sizeof(pending), "%s", l.value);
				snprintf(op_name, sizeof(op_name), "%s", l.value);
			} else if (l.indent == 6 && !strcmp(l.key, "do")) {
				op_do = true;
			} else if (l.indent == 6 && !strcmp(l.key, "dump")) {
				op_dump = true;
			} else if (l.indent == 6 && !strcmp(l.key, "value")) {
				g.next = atoll(l.value);
			}
			break;
		case MCGRPS:
			if (!strcmp(l.key, "name"))
				snprintf(spec_mcgrp, sizeof(spec_mcgrp), "%s", l.value);
			break;
		case TOP:
			break;
		}
	}
	flush(&g, pending);
	if (section == OPS)
		op_end();
	group_close(&g);
}

static FILE *open_spec(void)
{
	const char *env = getenv("QPU_GENL_SPEC");
	const char *data = getenv("QPU_TEST_DATA");
	char path[1024];
	FILE *f;

	if (env)
		return fopen(env, "r");
	if (data) {
		snprintf(path, sizeof(path), "%s/../../../uapi/qpu.genl.yaml", data);
		f = fopen(path, "r");
		if (f)
			return f;
	}
	return fopen("uapi/qpu.genl.yaml", "r");
}

/* The spec is read once; op_end() checks each operation as it closes. */
static int read_spec(void)
{
	FILE *f = open_spec();

	if (!f) {
		fprintf(stderr, "test-genl-spec: cannot open uapi/qpu.genl.yaml (set QPU_GENL_SPEC)\n");
		return T_EXIT_FAIL;
	}
	parse_spec(f);
	fclose(f);
	return T_EXIT_PASS;
}

T_TEST(family)
{
	T_EQ_STR(QPU_GENL_NAME, spec_name);
	T_EQ_STR(QPU_GENL_MCGRP_EVENTS, spec_mcgrp);
	T_EQ_U64(NHEADER, nspec);
	/* dev, stats, client, config and hang: each checked by op_end(). */
	T_EQ_U64(5, nget);
}

T_TEST(spec_ids_in_header)
{
	unsigned int i, j;

	for (i = 0; i < nspec; i++) {
		for (j = 0; j < NHEADER; j++)
			if (!strcmp(spec[i].name, header[j].name))
				break;
		if (j == NHEADER) {
			fprintf(stderr, "spec has %s = %lld; the header does not\n",
				spec[i].name, spec[i].value);
			T_CHECK(j < NHEADER);
			continue;
		}
		if (spec[i].value != header[j].value)
			fprintf(stderr, "%s: spec %lld, header %lld\n", spec[i].name,
				spec[i].value, header[j].value);
		T_EQ_U64(header[j].value, spec[i].value);
	}
}

T_TEST(header_ids_in_spec)
{
	unsigned int i, j;

	for (j = 0; j < NHEADER; j++) {
		for (i = 0; i < nspec; i++)
			if (!strcmp(spec[i].name, header[j].name))
				break;
		if (i == nspec)
			fprintf(stderr, "header has %s; the spec does not\n",
				header[j].name);
		T_CHECK(i < nspec);
	}
}

T_MAIN(.setup = read_spec)
