/* SPDX-License-Identifier: MIT */
/*
 * Minimal helpers for the library tests: checks that report file:line with
 * the expected and actual values, and liburing-style exit codes (0 pass,
 * 1 fail, 77 skip). A check failure does not stop the test, so one run
 * lists every broken case.
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

/* Call at the end of main(): prints a summary and gives the exit code. */
static inline int t_done(const char *name)
{
	if (!t_checks) {
		fprintf(stderr, "%s: no checks ran\n", name);
		return T_EXIT_FAIL;
	}
	if (t_failures) {
		fprintf(stderr, "%s: %lu of %lu checks failed\n", name,
			t_failures, t_checks);
		return T_EXIT_FAIL;
	}
	printf("%s: %lu checks passed\n", name, t_checks);
	return T_EXIT_PASS;
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
