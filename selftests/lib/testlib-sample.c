// SPDX-License-Identifier: MIT
/*
 * testlib-sample: a program of named cases that fails on purpose, for
 * test-runners.sh to check testlib.h's runner against: one case passes,
 * one fails a check, one skips, one runs no check; "--setup skip" or
 * "--setup fail" makes the setup do so. Not a test: check-host builds it
 * but runs it only through test-runners.sh.
 */
#include "testlib.h"

static const char *setup_mode = "pass";

static const struct t_option options[] = {
	{ "setup", &setup_mode, "pass|skip|fail" },
	{ NULL, NULL, NULL },
};

static int setup(void)
{
	if (!strcmp(setup_mode, "skip")) {
		printf("setup: skipping as asked\n");
		return T_EXIT_SKIP;
	}
	return strcmp(setup_mode, "fail") ? T_EXIT_PASS : T_EXIT_FAIL;
}

T_TEST(passes)
{
	T_CHECK(1 + 1 == 2);
	T_EQ_STR("qpu", "qpu");
}

T_TEST(fails)
{
	T_EQ_U64(1, 1);
	T_EQ_U64(2, 3);
}

T_TEST(skips)
{
	T_CHECK(1);
	T_SKIP("no %s here", "hardware");
	T_CHECK(0);	/* not reached */
}

T_TEST(no_checks)
{
}

T_MAIN(.setup = setup, .options = options)
