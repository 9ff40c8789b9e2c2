// SPDX-License-Identifier: GPL-2.0
/*
 * Loading qpu.ko: its parameters' values are checked at load time (a bad
 * one refuses the load), "sim=N" creates N nodes, and unloading removes them. Each case unloads the module first and loads it back with
 * sim=1 afterwards, so the other selftests find it as they expect.
 * QPU_KO names the module file (default /qpu.ko).
 */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kselftest_harness.h"

static const char *module_path(void)
{
	const char *path = getenv("QPU_KO");

	return path ? path : "/qpu.ko";
}

static int load(const char *params)
{
	int fd = open(module_path(), O_RDONLY | O_CLOEXEC);
	int ret, err;

	if (fd < 0)
		return -1;
	ret = syscall(SYS_finit_module, fd, params, 0);
	err = errno;
	close(fd);
	errno = err;
	return ret;
}

static int unload(void)
{
	return syscall(SYS_delete_module, "qpu", O_NONBLOCK);
}

static bool node_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISCHR(st.st_mode);
}

FIXTURE(module) {
	int unused;
};

FIXTURE_SETUP(module)
{
	/* 6.1's harness runs the test body after a SKIP() in setup: assert. */
	ASSERT_EQ(0, getuid()) TH_LOG("loading modules needs root");
	ASSERT_EQ(0, access(module_path(), R_OK)) TH_LOG("%s not found: set QPU_KO",
							  module_path());
	if (unload() && errno != ENOENT)
		ASSERT_EQ(0, -errno) TH_LOG("cannot unload qpu: %s", strerror(errno));
}

FIXTURE_TEARDOWN(module)
{
	unload();
	ASSERT_EQ(0, load("sim=1")) TH_LOG("reload with sim=1: %s", strerror(errno));
}

TEST_F(module, sim_out_of_range_refused)
{
	EXPECT_EQ(-1, load("sim=5"));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, load("sim=-1"));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, load("sim=two"));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_FALSE(node_exists("/dev/qpu"));
}

TEST_F(module, no_sim_no_node)
{
	ASSERT_EQ(0, load(""));
	EXPECT_FALSE(node_exists("/dev/qpu"));
}

TEST_F(module, sim_count_creates_nodes)
{
	ASSERT_EQ(0, load("sim=3"));
	EXPECT_TRUE(node_exists("/dev/qpu"));
	EXPECT_TRUE(node_exists("/dev/qpu1"));
	EXPECT_TRUE(node_exists("/dev/qpu2"));
	EXPECT_FALSE(node_exists("/dev/qpu3"));
	ASSERT_EQ(0, unload());
	EXPECT_FALSE(node_exists("/dev/qpu"));
	EXPECT_FALSE(node_exists("/dev/qpu2"));
}

/* An open file pins the module; closing it lets the unload go through. */
TEST_F(module, open_file_blocks_unload)
{
	int fd;

	ASSERT_EQ(0, load("sim=1"));
	fd = open("/dev/qpu", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, unload());
	EXPECT_EQ(EWOULDBLOCK, errno);
	close(fd);
	EXPECT_EQ(0, unload());
}

/* The parameters the kernel gives every module stay accepted. */
TEST_F(module, kernel_parameters_accepted)
{
	ASSERT_EQ(0, load("sim=1 dyndbg=+p async_probe"));
	EXPECT_TRUE(node_exists("/dev/qpu"));
}

TEST_HARNESS_MAIN
