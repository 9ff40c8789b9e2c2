// SPDX-License-Identifier: GPL-2.0
/*
 * The emulator's float operations give bit-identical results in qpu.ko
 * (integer code in kernel context, read through debugfs qpu/float_digest)
 * and in libqpu (the same code built for userspace), over seeded inputs
 * that include zeros, denormals, infinities and NaNs.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "qpu_emu_float_digest.h"
#include "qpu_util.h"

#define DIGEST_FILE "/sys/kernel/debug/qpu/float_digest"

/* The kernel's digest for @seed and @count, in qpu_emu_float_op_names order. */
static int kernel_digest(u32 seed, u32 count, u32 digest[QPU_EMU_FLOAT_OPS])
{
	char request[32], name[32];
	unsigned int i, value;
	FILE *f;

	snprintf(request, sizeof(request), "%u %u", seed, count);
	if (qpu_test_write(DIGEST_FILE, request))
		return -1;
	f = fopen(DIGEST_FILE, "r");
	if (!f)
		return -1;
	for (i = 0; i < QPU_EMU_FLOAT_OPS; i++) {
		if (fscanf(f, "%31s %x", name, &value) != 2 ||
		    strcmp(name, qpu_emu_float_op_names[i])) {
			fclose(f);
			return -1;
		}
		digest[i] = value;
	}
	fclose(f);
	return 0;
}

TEST(kernel_and_user_builds_agree)
{
	static const u32 seeds[] = { 1, 0xdeadbeef, 20261130 };
	u32 kernel[QPU_EMU_FLOAT_OPS], user[QPU_EMU_FLOAT_OPS];
	unsigned int s, i;

	for (s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++) {
		ASSERT_EQ(0, kernel_digest(seeds[s], 100000, kernel))
			TH_LOG("reading %s: %s", DIGEST_FILE, strerror(errno));
		qpu_emu_float_digest(seeds[s], 100000, user);
		for (i = 0; i < QPU_EMU_FLOAT_OPS; i++) {
			const char *op = qpu_emu_float_op_names[i];

			EXPECT_EQ(user[i], kernel[i])
				TH_LOG("%s differs for seed %u", op, seeds[s]);
		}
	}
}

/* Different seeds give different digests: the digest sees the results. */
TEST(digest_depends_on_inputs)
{
	u32 a[QPU_EMU_FLOAT_OPS], b[QPU_EMU_FLOAT_OPS];
	unsigned int i, same = 0;

	ASSERT_EQ(0, kernel_digest(1, 1000, a));
	ASSERT_EQ(0, kernel_digest(2, 1000, b));
	for (i = 0; i < QPU_EMU_FLOAT_OPS; i++)
		same += a[i] == b[i];
	EXPECT_EQ(0, same);
}

TEST(bad_requests_refused)
{
	EXPECT_EQ(-1, qpu_test_write(DIGEST_FILE, "1"));
	EXPECT_EQ(-1, qpu_test_write(DIGEST_FILE, "1 99999999"));
	EXPECT_EQ(-1, qpu_test_write(DIGEST_FILE, "x y"));
}

TEST_HARNESS_MAIN
