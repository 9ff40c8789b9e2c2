/* SPDX-License-Identifier: MIT */
/*
 * Minimal helpers for the library tests: checks that report file:line with
 * the expected and actual values, and liburing-style exit codes (0 pass,
 * 1 fail, 77 skip). A check failure does not stop the test, so one run
 * lists every broken case.
 *
 * A program's cases are named, as libgpiod's TEST_DEFINE: T_TEST(name) { }
 * defines one, T_MAIN() gives main() the shared runner (t_main), which runs
 * the cases named on the command line or all of them, a line for each, and
 * closes with "N passed, N failed[, N skipped]". Every program uses that
 * runner, so every one prints the closing line its caller counts.
 */
#ifndef QPU_TESTLIB_H
#define QPU_TESTLIB_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define T_EXIT_PASS	0
#define T_EXIT_FAIL	1
#define T_EXIT_SKIP	77

static unsigned long t_failures;
static unsigned long t_checks;

/* Stop printing after this many failures; the count stays exact. */
#define T_MAX_REPORTS	50

static inline void t_report(const char *file, int line, const char *what)
{
	t_failures++;
	if (t_failures <= T_MAX_REPORTS)
		fprintf(stderr, "%s:%d: %s\n", file, line, what);
}

#define T_CHECK(cond) do {						\
	t_checks++;							\
	if (!(cond))							\
		t_report(__FILE__, __LINE__, "check failed: " #cond);	\
} while (0)

#define T_EQ_U64(expected, got) do {					\
	uint64_t t_e_ = (uint64_t)(expected), t_g_ = (uint64_t)(got);	\
	t_checks++;							\
	if (t_e_ != t_g_) {						\
		char t_m_[160];						\
		snprintf(t_m_, sizeof(t_m_), "%s: expected 0x%" PRIx64	\
			 ", got 0x%" PRIx64, #got, t_e_, t_g_);		\
		t_report(__FILE__, __LINE__, t_m_);			\
	}								\
} while (0)

#define T_EQ_STR(expected, got) do {					\
	const char *t_e_ = (expected), *t_g_ = (got);			\
	t_checks++;							\
	if (strcmp(t_e_, t_g_)) {					\
		char t_m_[512];						\
		snprintf(t_m_, sizeof(t_m_),				\
			 "%s:\n  expected \"%s\"\n  got      \"%s\"",	\
			 #got, t_e_, t_g_);				\
		t_report(__FILE__, __LINE__, t_m_);			\
	}								\
} while (0)

/*
 * Named cases. T_TEST(id) { ... } defines case "id"; a constructor puts it
 * on the list, which t_main() sorts by line so cases run in file order
 * (constructor order is the toolchain's choice). A case fails when one of
 * its checks fails or when it ran none without skipping.
 */
struct t_case {
	const char *name;
	void (*fn)(void);
	int line;
	struct t_case *next;
};

static struct t_case *t_cases;
static char t_skip_reason[200];

static inline void t_register(struct t_case *tc)
{
	tc->next = t_cases;
	t_cases = tc;
}

#define T_TEST(id)							\
	static void t_case_fn_##id(void);				\
	static struct t_case t_case_##id = {				\
		#id, t_case_fn_##id, __LINE__, NULL			\
	};								\
	static void __attribute__((constructor)) t_case_add_##id(void)	\
	{								\
		t_register(&t_case_##id);				\
	}								\
	static void t_case_fn_##id(void)

/*
 * Ends the current case as skipped, from the case's own body (it returns);
 * the reason, which must not be empty, is printed with it.
 */
#define T_SKIP(...) do {						\
	snprintf(t_skip_reason, sizeof(t_skip_reason), __VA_ARGS__);	\
	return;								\
} while (0)

/*
 * A program-wide string option, "--name VALUE" or "--name=VALUE", read by
 * the setup (a device path, a dump prefix); tables end with a NULL name.
 */
struct t_option {
	const char *name;
	const char **value;
	const char *help;
};

/*
 * What T_MAIN() hands the runner. setup runs once before the first case
 * and returns T_EXIT_PASS, T_EXIT_SKIP (every case skips; it prints why)
 * or T_EXIT_FAIL; teardown runs once after the last. Checks in either
 * count, and a failed one is a failure of its own. before runs ahead of
 * each case (a random seed reset, so a case alone draws what it draws in
 * a full run).
 */
struct t_suite {
	int (*setup)(void);
	void (*teardown)(void);
	void (*before)(void);
	const struct t_option *options;
};

static inline const char *t_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The position of case @name on the list, or -1. */
static inline int t_find_case(const char *name)
{
	const struct t_case *tc;
	int n = 0;

	for (tc = t_cases; tc; tc = tc->next, n++)
		if (!strcmp(tc->name, name))
			return n;
	return -1;
}

/* Sorts the list by line: insertion, the list is short. */
static inline void t_sort_cases(void)
{
	struct t_case *sorted = NULL, *tc, **at;

	while ((tc = t_cases)) {
		t_cases = tc->next;
		for (at = &sorted; *at && (*at)->line < tc->line; at = &(*at)->next)
			;
		tc->next = *at;
		*at = tc;
	}
	t_cases = sorted;
}

static inline void t_usage(FILE *f, const char *prog, const struct t_suite *suite)
{
	const struct t_option *o;

	fprintf(f, "usage: %s [--list]", prog);
	for (o = suite->options; o && o->name; o++)
		fprintf(f, " [--%s %s]", o->name, o->help);
	fprintf(f, " [CASE]...\n"
		"Runs the named cases (all without a name) and prints one line for each;\n"
		"--list prints the names. Exit status 0 pass, 1 fail, 77 all skipped.\n");
}

/* -1 when @arg is no option of @suite, else how many arguments it took. */
static inline int t_option_parse(const struct t_suite *suite, int argc,
				 char **argv, int i)
{
	const struct t_option *o;
	const char *arg = argv[i] + 2;

	for (o = suite->options; o && o->name; o++) {
		size_t len = strlen(o->name);

		if (strncmp(arg, o->name, len))
			continue;
		if (arg[len] == '=') {
			*o->value = arg + len + 1;
			return 1;
		}
		if (!arg[len] && i + 1 < argc) {
			*o->value = argv[i + 1];
			return 2;
		}
	}
	return -1;
}

/* One case: its line, and whether it passed (0), failed (1) or skipped (2). */
static inline int t_run_one(const struct t_suite *suite, const struct t_case *tc)
{
	unsigned long checks = t_checks, failures = t_failures;

	t_skip_reason[0] = '\0';
	if (suite->before)
		suite->before();
	tc->fn();
	checks = t_checks - checks;
	failures = t_failures - failures;
	if (failures) {
		printf("FAIL %s (%lu of %lu checks failed)\n", tc->name, failures, checks);
		return 1;
	}
	if (t_skip_reason[0]) {
		printf("SKIP %s (%s; %lu checks passed)\n", tc->name, t_skip_reason, checks);
		return 2;
	}
	if (!checks) {
		printf("FAIL %s (no checks ran)\n", tc->name);
		return 1;
	}
	printf("PASS %s (%lu checks)\n", tc->name, checks);
	return 0;
}

static inline int t_main(const struct t_suite *suite, int argc, char **argv)
{
	const char *prog = t_base_name(argv[0]);
	unsigned long count[3] = { 0 }, selected = 0, before;
	struct t_case *tc;
	int i, n, setup = T_EXIT_PASS;
	char *chosen;

	/* failure reports go to stderr: keep the two in order in a log */
	setvbuf(stdout, NULL, _IOLBF, 0);
	t_sort_cases();
	for (tc = t_cases, n = 0; tc; tc = tc->next)
		n++;
	chosen = calloc((size_t)n + 1, 1);
	if (!chosen)
		return T_EXIT_FAIL;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--list")) {
			for (tc = t_cases; tc; tc = tc->next)
				printf("%s\n", tc->name);
			free(chosen);
			return T_EXIT_PASS;
		}
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			t_usage(stdout, prog, suite);
			free(chosen);
			return T_EXIT_PASS;
		}
		if (argv[i][0] == '-') {
			int took = argv[i][1] == '-' ? t_option_parse(suite, argc, argv, i) : -1;

			if (took < 0) {
				fprintf(stderr, "%s: unknown option '%s'\n", prog, argv[i]);
				t_usage(stderr, prog, suite);
				free(chosen);
				return T_EXIT_FAIL;
			}
			i += took - 1;
			continue;
		}
		n = t_find_case(argv[i]);
		if (n < 0) {
			fprintf(stderr, "%s: no case named '%s' (--list shows them)\n",
				prog, argv[i]);
			free(chosen);
			return T_EXIT_FAIL;
		}
		if (!chosen[n])
			selected++;
		chosen[n] = 1;
	}
	if (!t_cases) {
		fprintf(stderr, "%s: no cases defined\n", prog);
		free(chosen);
		return T_EXIT_FAIL;
	}

	before = t_failures;
	if (suite->setup)
		setup = suite->setup();
	if (setup == T_EXIT_PASS && t_failures > before)
		setup = T_EXIT_FAIL;
	for (tc = t_cases, n = 0; tc; tc = tc->next, n++) {
		if (selected && !chosen[n])
			continue;
		if (setup == T_EXIT_SKIP) {
			printf("SKIP %s (setup skipped)\n", tc->name);
			count[2]++;
		} else if (setup != T_EXIT_PASS) {
			printf("FAIL %s (setup failed)\n", tc->name);
			count[1]++;
		} else {
			count[t_run_one(suite, tc)]++;
		}
	}
	free(chosen);
	if (setup == T_EXIT_PASS && suite->teardown) {
		before = t_failures;
		suite->teardown();
		if (t_failures > before) {
			printf("FAIL teardown (%lu checks failed)\n", t_failures - before);
			count[1]++;
		}
	}

	printf("%s: %lu checks\n", prog, t_checks);
	if (count[2])
		printf("%lu passed, %lu failed, %lu skipped\n", count[0], count[1], count[2]);
	else
		printf("%lu passed, %lu failed\n", count[0], count[1]);
	if (count[1])
		return T_EXIT_FAIL;
	return count[0] ? T_EXIT_PASS : T_EXIT_SKIP;
}

/*
 * main() of a program of named cases: T_MAIN(), or with the suite's parts,
 * T_MAIN(.setup = open_device, .teardown = close_device, .options = opts);
 * members left out are NULL.
 */
#define T_MAIN(...)							\
	int main(int argc, char **argv)					\
	{								\
		static const struct t_suite t_suite_ = { __VA_ARGS__ };	\
		return t_main(&t_suite_, argc, argv);			\
	}

/*
 * The path of @name in the tests' data directory, in @buf: $QPU_TEST_DATA,
 * which run-tests.sh sets, else selftests/lib/data (a run from the top of
 * the tree).
 */
static inline const char *t_data_file(const char *name, char *buf, size_t size)
{
	const char *data = getenv("QPU_TEST_DATA");

	snprintf(buf, size, "%s/%s", data ? data : "selftests/lib/data", name);
	return buf;
}

/* xorshift64*: a fixed, documented sequence for the random tests. */
static inline uint64_t t_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dull;
}

#ifdef QPU_H
#include <errno.h>

/* A buffer of @dev, or the test program ends: nothing to test without it. */
static inline struct qpu_bo *t_bo_or_die(struct qpu_dev *dev, size_t size)
{
	struct qpu_bo *bo = qpu_bo_new(dev, size);

	if (!bo) {
		fprintf(stderr, "qpu_bo_new(%zu): %s\n", size, strerror(errno));
		exit(T_EXIT_FAIL);
	}
	return bo;
}
#endif

#endif /* QPU_TESTLIB_H */
