// SPDX-License-Identifier: GPL-2.0
/*
 * Loading qpu.ko: its parameters' values are checked at load time (a bad
 * one refuses the load), "sim=N" creates N nodes, and unloading removes
 * them; a device fresh from a load has no hang to report and counters at
 * zero on netlink; the device memory limit defaults to half the CMA area
 * the device tree or a cma= sets (512 MiB where none does, as on x86),
 * and a dev_mem_limit given at load beats that. Each case unloads the
 * module first and loads it back with sim=1 afterwards, so the other
 * selftests find it as they expect. QPU_KO names the module file
 * (default /qpu.ko).
 */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/qpu.h>

#include "kselftest_harness.h"
#include "qpu_nl.h"
#include "qpu_util.h"

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

/* The u64 CONFIG_GET answers for @attr, or -1. */
/*
 * Attribute @attr of the one reply to @cmd, asked of device 0 by its
 * @dev_attr unless that is 0; -1 on an error.
 */
static long long nl_get(__u8 cmd, __u16 dev_attr, __u16 attr)
{
	static struct reply r;
	__u64 v = NO_VALUE;
	struct req q;
	struct nl nl;

	if (nl_open(&nl))
		return -1;
	req_start(&q, nl.family, 0, cmd);
	if (dev_attr)
		req_put_u32(&q, dev_attr, 0);
	if (!nl_request(&nl, &q, &r) && r.count == 1)
		v = msg_uint(reply_msg(&r, 0), attr);
	close(nl.fd);
	return v == NO_VALUE ? -1 : (long long)v;
}

static long long config_get(__u16 attr)
{
	return nl_get(QPU_CMD_CONFIG_GET, 0, attr);
}

/* --- the CMA size, read here as the kernel reads it ---------------------- */

#define DT_BASE "/sys/firmware/devicetree/base"

/* What the kernel's memparse() makes of @s. */
static unsigned long long size_parse(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);
	const char *units = "KMGTPE", *u = *end ? strchr(units, toupper(*end)) : NULL;

	if (u)
		v <<= 10 * (u - units + 1);
	return v;
}

/* The last cma= of /proc/cmdline; 0 when none. */
static unsigned long long cmdline_cma(void)
{
	char line[4096], *p;
	unsigned long long size = 0;
	FILE *f = fopen("/proc/cmdline", "r");

	if (!f)
		return 0;
	if (fgets(line, sizeof(line), f))
		for (p = line; (p = strstr(p, "cma=")); p += 4)
			if (p == line || isspace((unsigned char)p[-1]))
				size = size_parse(p + 4);
	fclose(f);
	return size;
}

/* Reads the file @path (at most @max bytes); its length, or -1. */
static int file_read(const char *path, void *buf, int max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, max);
	close(fd);
	return n;
}

/* @n big-endian 32-bit cells from @p, as one number. */
static unsigned long long cells(const unsigned char *p, int n)
{
	unsigned long long v = 0;

	while (n--) {
		v = v << 32 | (unsigned long long)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
		p += 4;
	}
	return v;
}

/* The path of property @name of /reserved-memory's child @node, in @path. */
static const char *rmem_file(char *path, const char *node, const char *name)
{
	snprintf(path, 512, DT_BASE "/reserved-memory/%s/%s", node, name);
	return path;
}

/*
 * The /reserved-memory child that is a reusable shared-dma-pool and
 * linux,cma-default: its size, or its first reg entry's; 0 when none.
 */
static unsigned long long dt_cma(void)
{
	unsigned char buf[256];
	char path[512];
	unsigned long long size = 0;
	int na, ns, n;
	struct dirent *e;
	DIR *d = opendir(DT_BASE "/reserved-memory");

	if (!d)
		return 0;
	na = file_read(DT_BASE "/reserved-memory/#address-cells", buf, 4) == 4 ?
	     cells(buf, 1) : 2;
	ns = file_read(DT_BASE "/reserved-memory/#size-cells", buf, 4) == 4 ?
	     cells(buf, 1) : 1;
	while (!size && (e = readdir(d))) {
		n = file_read(rmem_file(path, e->d_name, "compatible"), buf, sizeof(buf));
		if (n <= 0 || !memmem(buf, n, "shared-dma-pool", 16) ||
		    access(rmem_file(path, e->d_name, "reusable"), F_OK) ||
		    access(rmem_file(path, e->d_name, "linux,cma-default"), F_OK))
			continue;
		n = file_read(rmem_file(path, e->d_name, "status"), buf, sizeof(buf));
		if (n > 0 && strncmp((char *)buf, "ok", 2))
			continue;
		if (file_read(rmem_file(path, e->d_name, "size"), buf, sizeof(buf)) == 4 * ns)
			size = cells(buf, ns);
		else if (file_read(rmem_file(path, e->d_name, "reg"), buf,
				   sizeof(buf)) >= 4 * (na + ns))
			size = cells(buf + 4 * na, ns);
	}
	closedir(d);
	return size;
}

/* The limit the module must default to: half the CMA area, else 512 MiB. */
static long long expected_dev_mem_limit(const char **why)
{
	unsigned long long cma = 0, limit;

	*why = "no CMA size known (no device tree)";
	if (access(DT_BASE, F_OK) == 0) {
		cma = cmdline_cma();
		*why = "cma= on the command line";
		if (!cma) {
			cma = dt_cma();
			*why = "the device tree's CMA pool";
		}
	}
	if (!cma)
		return 512ll << 20;
	limit = cma / 2 / 4096 * 4096;
	return limit < 4096 ? 4096 : limit > 1ull << 30 ? 1ll << 30 : limit;
}

/* --- tests --------------------------------------------------------------- */

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

/*
 * A telemetry period outside 10 to 60000 ms (0 is "off") is refused, as
 * text that is no number is, each with one line naming the parameter and
 * the range (module parameters are setup: an error-level line).
 */
TEST_F(module, telemetry_period_refused_with_a_line)
{
	static const char *const bad[] = { "5", "60001", "soon" };
	static const int err[] = { ERANGE, ERANGE, EINVAL };
	char path[128], line[512], want[128];
	unsigned int i;
	int kmsg;

	ASSERT_EQ(0, load("sim=1"));
	kmsg = qpu_test_kmsg_open();
	ASSERT_LE(0, kmsg);
	snprintf(path, sizeof(path), QPU_PARAMS "telemetry_period_ms");
	for (i = 0; i < 3; i++) {
		qpu_test_kmsg_skip(kmsg);
		errno = 0;
		EXPECT_EQ(-1, qpu_test_write(path, bad[i]));
		EXPECT_EQ(err[i], errno) TH_LOG("%s: %s", bad[i], strerror(errno));
		EXPECT_EQ(1, qpu_test_kmsg_lines(kmsg, line, sizeof(line))) TH_LOG("last: %s", line);
		snprintf(want, sizeof(want),
			 "qpu: telemetry_period_ms=%s: expected milliseconds from 10 to 60000, or 0",
			 bad[i]);
		EXPECT_NE(NULL, strstr(line, want)) TH_LOG("line: %s", line);
	}
	close(kmsg);
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

/*
 * A device fresh from a load: no job has timed out, so HANG_GET has
 * nothing (-ENOENT from the do, no message in the dump), and its busy time
 * and per-QPU instruction counts start at zero.
 */
TEST_F(module, fresh_device_has_no_hang)
{
	/* Static: the harness's longjmp would clobber locals set below. */
	static struct reply r;
	static struct req q;
	static struct nl nl;
	static int in_order;
	static __u64 sum;

	ASSERT_EQ(0, load("sim=1"));
	ASSERT_EQ(0, nl_open(&nl));

	req_start(&q, nl.family, 0, QPU_CMD_HANG_GET);
	req_put_u32(&q, QPU_A_HANG_DEV_INDEX, 0);
	EXPECT_EQ(-ENOENT, nl_request(&nl, &q, &r));
	EXPECT_EQ(0, r.count);

	req_start(&q, nl.family, NLM_F_DUMP, QPU_CMD_HANG_GET);
	EXPECT_EQ(0, nl_request(&nl, &q, &r));
	EXPECT_EQ(0, r.count);

	req_start(&q, nl.family, 0, QPU_CMD_STATS_GET);
	req_put_u32(&q, QPU_A_STATS_DEV_INDEX, 0);
	ASSERT_EQ(0, nl_request(&nl, &q, &r));
	ASSERT_EQ(1, r.count);
	EXPECT_EQ(0, msg_uint(reply_msg(&r, 0), QPU_A_STATS_BUSY_NS));
	/* Twelve QPU nests, and their instruction counts add up to 0. */
	EXPECT_EQ(12, msg_qpus(reply_msg(&r, 0), &sum, &in_order));
	EXPECT_EQ(0, sum);
	EXPECT_TRUE(in_order);
	close(nl.fd);
}

/* The device's telemetry samples so far, from STATS_GET; -1 on an error. */
static long long telemetry_samples(void)
{
	return nl_get(QPU_CMD_STATS_GET, QPU_A_STATS_DEV_INDEX,
		      QPU_A_STATS_TELEMETRY_SAMPLES);
}

/*
 * The first open samples the telemetry at once; opening and closing the
 * device in a loop samples no more often than the period (1 s).
 */
TEST_F(module, reopening_samples_once_a_period)
{
	long long first;
	int i, fd;

	ASSERT_EQ(0, load("sim=1"));
	fd = open("/dev/qpu", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	for (i = 0; i < 200 && telemetry_samples() < 1; i++)
		usleep(10000);
	close(fd);
	first = telemetry_samples();
	ASSERT_LE(1, first);
	for (i = 0; i < 20; i++) {
		fd = open("/dev/qpu", O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, fd);
		usleep(5000);
		close(fd);
	}
	EXPECT_GE(first + 1, telemetry_samples());
}

TEST_F(module, dev_mem_limit_defaults_to_half_of_cma)
{
	const char *why;
	long long want = expected_dev_mem_limit(&why);

	long long max_bo = want < 64 << 20 ? want : 64 << 20;
	struct qpu_get_param p = { .param = QPU_PARAM_MAX_BO_SIZE };
	int fd;

	ASSERT_EQ(0, load("sim=1"));
	TH_LOG("expected dev_mem_limit %lld (%s)", want, why);
	EXPECT_EQ(want, qpu_test_param("dev_mem_limit"));
	EXPECT_EQ(want, config_get(QPU_A_CONFIG_DEV_MEM_LIMIT));
	/* The largest BO is one the limit allows. */
	EXPECT_EQ(max_bo, qpu_test_param("max_bo_size"));
	EXPECT_EQ(max_bo, config_get(QPU_A_CONFIG_MAX_BO_SIZE));
	fd = open("/dev/qpu", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, ioctl(fd, QPU_IOCTL_GET_PARAM, &p));
	EXPECT_EQ(max_bo, p.value);
	close(fd);
}

/* A 1 MiB BO on @fd: 0 or -errno. */
static int bo_mib(int fd)
{
	struct qpu_bo_create c = { .size = 1 << 20 };

	return ioctl(fd, QPU_IOCTL_BO_CREATE, &c) ? -errno : 0;
}

/*
 * Simulated nodes with DMA memory (sim_dma) draw on one CMA area, as real
 * ones do: their BOs count against one limit together, and where the CMA
 * size is unknown (no device tree: x86) it fails closed at 32 MiB, not at
 * 512 MiB for each node.
 */
TEST_F(module, dma_memory_limit_counts_every_node)
{
	const char *why;
	long long want = expected_dev_mem_limit(&why), total = 0;
	int fd[2], i, ret = 0;

	if (want == 512ll << 20)
		want = 32ll << 20;
	ASSERT_EQ(0, load("sim=2 sim_dma=1"));
	fd[0] = open("/dev/qpu", O_RDWR | O_CLOEXEC);
	fd[1] = open("/dev/qpu1", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd[0]);
	ASSERT_LE(0, fd[1]);
	/* At most 64 MiB past the limit: the VM has 512 MiB. */
	for (i = 0; total <= want + (64 << 20); i++) {
		ret = bo_mib(fd[i & 1]);
		if (ret)
			break;
		total += 1 << 20;
	}
	TH_LOG("%lld MiB on two nodes, then %d (limit %lld MiB: %s)",
	       total >> 20, ret, want >> 20, why);
	EXPECT_EQ(-ENOSPC, ret);
	EXPECT_EQ(want, total);
	close(fd[0]);
	close(fd[1]);
}

/*
 * Given at load, each beats the CMA-sized default (also where there is
 * none), and a given dev_mem_limit leaves max_bo_size alone.
 */
TEST_F(module, dev_mem_limit_parameter_beats_default)
{
	ASSERT_EQ(0, load("sim=1 dev_mem_limit=12345678"));
	EXPECT_EQ(12345678, qpu_test_param("dev_mem_limit"));
	EXPECT_EQ(12345678, config_get(QPU_A_CONFIG_DEV_MEM_LIMIT));
	EXPECT_EQ(64 << 20, qpu_test_param("max_bo_size"));
	ASSERT_EQ(0, unload());
	ASSERT_EQ(0, load("sim=1 max_bo_size=1048576"));
	EXPECT_EQ(1048576, qpu_test_param("max_bo_size"));
}

TEST_HARNESS_MAIN
