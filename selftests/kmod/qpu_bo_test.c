// SPDX-License-Identifier: GPL-2.0
/*
 * Buffer objects on the simulated V3D: creation and its limits, zeroed
 * memory, bus addresses with guard gaps, mmap bounds, mappings that outlive
 * the handle and the file, per-file handles, and the device's accounting
 * returning to zero (debugfs qpu/qpu/stats) when everything is gone.
 */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/qpu.h>

#include "kselftest_harness.h"
#include "qpu_util.h"

#define STATS QPU_DEBUGFS "stats"

static long page_size;

static int bo_create(int fd, __u64 size, struct qpu_bo_create *out)
{
	struct qpu_bo_create args = { .size = size };
	int ret = ioctl(fd, QPU_IOCTL_BO_CREATE, &args);

	if (out)
		*out = args;
	return ret;
}

static int bo_destroy(int fd, __u32 handle)
{
	struct qpu_bo_destroy args = { .handle = handle };

	return ioctl(fd, QPU_IOCTL_BO_DESTROY, &args);
}

static void *bo_map(int fd, const struct qpu_bo_create *bo, size_t len)
{
	return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    bo->mmap_offset);
}

static bool all_zero(const unsigned char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

FIXTURE(bo) {
	int fd;
};

FIXTURE_SETUP(bo)
{
	page_size = sysconf(_SC_PAGESIZE);
	self->fd = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	/* 6.1's harness runs the test body after a SKIP() in setup: assert. */
	ASSERT_LE(0, self->fd) TH_LOG("open " QPU_NODE ": %s (is qpu.ko loaded with sim=1?)",
				      strerror(errno));
	ASSERT_EQ(0, qpu_test_stat("bo_count")) TH_LOG("BOs left over from before, or no " STATS);
}

/* Everything a test made is gone once its file and mappings are. */
FIXTURE_TEARDOWN(bo)
{
	if (self->fd < 0)
		return;
	close(self->fd);
	EXPECT_EQ(0, qpu_test_stat("bo_count"));
	EXPECT_EQ(0, qpu_test_stat("bo_bytes"));
}

TEST_F(bo, create_rounds_to_pages_and_fills_outputs)
{
	struct qpu_bo_create bo;

	ASSERT_EQ(0, bo_create(self->fd, 1, &bo));
	EXPECT_EQ(page_size, bo.size);
	EXPECT_NE(0, bo.handle);
	EXPECT_EQ(0, bo.bus_addr % page_size);
	EXPECT_LE(0xc0000000u, bo.bus_addr);
	EXPECT_NE(0, bo.mmap_offset);
	EXPECT_EQ(0, bo.mmap_offset % page_size);
	EXPECT_GT(1ull << 31, bo.mmap_offset);
	EXPECT_EQ(1, qpu_test_stat("bo_count"));
	EXPECT_EQ(page_size, qpu_test_stat("bo_bytes"));
}

TEST_F(bo, memory_is_zeroed_and_shared)
{
	const size_t size = 256 * 1024;
	struct qpu_bo_create bo;
	unsigned char *p, *q;

	ASSERT_EQ(0, bo_create(self->fd, size, &bo));
	p = bo_map(self->fd, &bo, size);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_TRUE(all_zero(p, size));

	memset(p, 0xa5, size);
	q = bo_map(self->fd, &bo, size);
	ASSERT_NE(MAP_FAILED, q);
	EXPECT_EQ(0xa5, q[0]);
	EXPECT_EQ(0xa5, q[size - 1]);
	munmap(p, size);
	munmap(q, size);

	/* A new BO never sees an old one's bytes. */
	ASSERT_EQ(0, bo_destroy(self->fd, bo.handle));
	ASSERT_EQ(0, bo_create(self->fd, size, &bo));
	p = bo_map(self->fd, &bo, size);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_TRUE(all_zero(p, size));
	munmap(p, size);
}

TEST_F(bo, bus_ranges_disjoint_with_gaps)
{
	struct qpu_bo_create a, b;
	__u32 a_end, b_end;

	ASSERT_EQ(0, bo_create(self->fd, 3 * page_size, &a));
	ASSERT_EQ(0, bo_create(self->fd, page_size, &b));
	a_end = a.bus_addr + a.size;
	b_end = b.bus_addr + b.size;
	/* Neither starts inside the other or right after its end. */
	EXPECT_TRUE(b.bus_addr >= a_end + 4096 || a.bus_addr >= b_end + 4096);
	EXPECT_NE(a.handle, b.handle);
	EXPECT_NE(a.mmap_offset, b.mmap_offset);
}

TEST_F(bo, bad_create_einval)
{
	struct qpu_bo_create args;
	__u64 max;
	struct qpu_get_param p = { .param = QPU_PARAM_MAX_BO_SIZE };

	ASSERT_EQ(0, ioctl(self->fd, QPU_IOCTL_GET_PARAM, &p));
	max = p.value;
	EXPECT_LE((__u64)page_size, max);

	EXPECT_EQ(-1, bo_create(self->fd, 0, NULL));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, bo_create(self->fd, max + 1, NULL));
	EXPECT_EQ(EINVAL, errno);
	/* Would wrap to zero when rounded up to a page. */
	EXPECT_EQ(-1, bo_create(self->fd, ~0ull, NULL));
	EXPECT_EQ(EINVAL, errno);

	args = (struct qpu_bo_create){ .size = 4096, .flags = 1 };
	EXPECT_EQ(-1, ioctl(self->fd, QPU_IOCTL_BO_CREATE, &args));
	EXPECT_EQ(EINVAL, errno);
	args = (struct qpu_bo_create){ .size = 4096, .pad = 1 };
	EXPECT_EQ(-1, ioctl(self->fd, QPU_IOCTL_BO_CREATE, &args));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, args.handle);
	EXPECT_EQ(-1, ioctl(self->fd, QPU_IOCTL_BO_CREATE, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(0, qpu_test_stat("bo_count"));
}

TEST_F(bo, max_size_accepted)
{
	struct qpu_get_param p = { .param = QPU_PARAM_MAX_BO_SIZE };
	struct qpu_bo_create bo;

	ASSERT_EQ(0, ioctl(self->fd, QPU_IOCTL_GET_PARAM, &p));
	ASSERT_EQ(0, bo_create(self->fd, p.value, &bo));
	EXPECT_EQ(p.value, bo.size);
	EXPECT_EQ((long long)p.value, qpu_test_stat("bo_bytes"));
}

TEST_F(bo, destroy_errors)
{
	struct qpu_bo_destroy args = { .handle = 1, .pad = 1 };
	struct qpu_bo_create bo;

	EXPECT_EQ(-1, bo_destroy(self->fd, 0));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, bo_destroy(self->fd, 12345));
	EXPECT_EQ(ENOENT, errno);

	ASSERT_EQ(0, bo_create(self->fd, 4096, &bo));
	args.handle = bo.handle;
	EXPECT_EQ(-1, ioctl(self->fd, QPU_IOCTL_BO_DESTROY, &args));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(1, qpu_test_stat("bo_count"));	/* refused, so still there */
	EXPECT_EQ(0, bo_destroy(self->fd, bo.handle));
	EXPECT_EQ(-1, bo_destroy(self->fd, bo.handle));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, QPU_IOCTL_BO_DESTROY, NULL));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(bo, mmap_bounds)
{
	struct qpu_bo_create bo;
	unsigned char *p;

	ASSERT_EQ(0, bo_create(self->fd, 2 * page_size, &bo));

	/* Past the end, before the start, at an offset no BO has. */
	p = bo_map(self->fd, &bo, 3 * page_size);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, page_size, PROT_READ, MAP_SHARED, self->fd,
		 bo.mmap_offset - page_size);
	EXPECT_EQ(MAP_FAILED, p);
	p = mmap(NULL, page_size, PROT_READ, MAP_SHARED, self->fd, 1ull << 30);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);

	/* A private copy would not be what the QPUs see. */
	p = mmap(NULL, page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, self->fd,
		 bo.mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);

	/* The second page alone, and it is the second page. */
	p = bo_map(self->fd, &bo, 2 * page_size);
	ASSERT_NE(MAP_FAILED, p);
	p[page_size] = 42;
	{
		struct qpu_bo_create second = bo;
		unsigned char *q;

		second.mmap_offset += page_size;
		q = bo_map(self->fd, &second, page_size);
		ASSERT_NE(MAP_FAILED, q);
		EXPECT_EQ(42, q[0]);
		/* Growing the mapping is refused. */
		EXPECT_EQ(MAP_FAILED, mremap(q, page_size, 2 * page_size, 0));
		munmap(q, page_size);
	}
	munmap(p, 2 * page_size);
}

/* A mapping keeps the memory after the handle and the file are gone. */
TEST_F(bo, mapping_outlives_handle_and_file)
{
	struct qpu_bo_create bo;
	unsigned char *p;
	int fd2;

	fd2 = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, bo_create(fd2, page_size, &bo));
	p = bo_map(fd2, &bo, page_size);
	ASSERT_NE(MAP_FAILED, p);
	p[7] = 7;

	ASSERT_EQ(0, bo_destroy(fd2, bo.handle));
	EXPECT_EQ(7, p[7]);
	p[8] = 8;
	/* The offset died with the handle. */
	EXPECT_EQ(MAP_FAILED, bo_map(fd2, &bo, page_size));

	close(fd2);
	EXPECT_EQ(8, p[8]);
	EXPECT_EQ(1, qpu_test_stat("bo_count"));
	munmap(p, page_size);
	EXPECT_EQ(0, qpu_test_stat("bo_count"));
}

/* Closing a file frees what it held, whatever was left. */
TEST_F(bo, close_frees_everything)
{
	int fd2 = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	int i;

	ASSERT_LE(0, fd2);
	for (i = 0; i < 64; i++)
		ASSERT_EQ(0, bo_create(fd2, (i + 1) * 4096, NULL));
	EXPECT_EQ(64, qpu_test_stat("bo_count"));
	close(fd2);
	EXPECT_EQ(0, qpu_test_stat("bo_count"));
	EXPECT_EQ(0, qpu_test_stat("bo_bytes"));
}

/* Handles mean nothing outside their file, even in a child sharing it. */
TEST_F(bo, handles_are_per_file)
{
	struct qpu_bo_create a, b;
	int fd2 = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	pid_t pid;
	int status;

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, bo_create(self->fd, page_size, &a));
	EXPECT_EQ(-1, bo_destroy(fd2, a.handle));
	EXPECT_EQ(ENOENT, errno);
	ASSERT_EQ(0, bo_create(fd2, page_size, &b));
	/* Each file numbers its own handles. */
	EXPECT_EQ(a.handle, b.handle);
	EXPECT_NE(a.bus_addr, b.bus_addr);

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* Another process with its own file cannot touch ours. */
		int own = open(QPU_NODE, O_RDWR | O_CLOEXEC);

		_exit(own >= 0 && bo_destroy(own, a.handle) == -1 && errno == ENOENT ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_EQ(0, bo_destroy(self->fd, a.handle));
	close(fd2);
}

/* A process killed with BOs and mappings leaks nothing. */
TEST_F(bo, killed_process_leaks_nothing)
{
	int pipefd[2];
	pid_t pid;
	char c;

	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd = open(QPU_NODE, O_RDWR | O_CLOEXEC);
		struct qpu_bo_create bo;
		int i;

		for (i = 0; fd >= 0 && i < 16; i++)
			if (bo_create(fd, 8192, &bo) == 0)
				bo_map(fd, &bo, 8192);
		if (write(pipefd[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(pipefd[1]);
	ASSERT_EQ(1, read(pipefd[0], &c, 1));
	close(pipefd[0]);
	EXPECT_EQ(16, qpu_test_stat("bo_count"));
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	EXPECT_EQ(0, qpu_test_stat("bo_count"));
}

/*
 * The limits per file (EDQUOT) and per device (ENOSPC) hold. The device's
 * goes back to what it was, a default that depends on the machine's CMA.
 */
TEST_F(bo, limits)
{
	int fd2 = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	long long dev_limit = qpu_test_param("dev_mem_limit");
	struct qpu_bo_create bo;
	char was[32];

	ASSERT_LE(0, fd2);
	ASSERT_LT(0, dev_limit);
	snprintf(was, sizeof(was), "%lld", dev_limit);
	ASSERT_EQ(0, qpu_test_write(QPU_PARAMS "client_mem_limit", "65536"));
	ASSERT_EQ(0, qpu_test_write(QPU_PARAMS "dev_mem_limit", "98304"));

	ASSERT_EQ(0, bo_create(self->fd, 65536, &bo));
	EXPECT_EQ(-1, bo_create(self->fd, 4096, NULL));
	EXPECT_EQ(EDQUOT, errno);
	/* Another file has its own quota but shares the device's. */
	EXPECT_EQ(0, bo_create(fd2, 32768, NULL));
	EXPECT_EQ(-1, bo_create(fd2, 4096, NULL));
	EXPECT_EQ(ENOSPC, errno);
	/* Freeing makes room again. */
	EXPECT_EQ(0, bo_destroy(self->fd, bo.handle));
	EXPECT_EQ(0, bo_create(fd2, 4096, NULL));

	EXPECT_EQ(0, qpu_test_write(QPU_PARAMS "client_mem_limit", "268435456"));
	EXPECT_EQ(0, qpu_test_write(QPU_PARAMS "dev_mem_limit", was));
	close(fd2);
}

/*
 * A BO destroyed while mapped keeps its memory, so it keeps counting: the
 * limit cannot be dodged by mapping, destroying and creating again.
 */
TEST_F(bo, mapped_destroyed_bo_still_counts)
{
	struct qpu_bo_create bo;
	void *p;

	ASSERT_EQ(0, qpu_test_write(QPU_PARAMS "client_mem_limit", "65536"));
	ASSERT_EQ(0, bo_create(self->fd, 65536, &bo));
	p = bo_map(self->fd, &bo, 65536);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(0, bo_destroy(self->fd, bo.handle));
	EXPECT_EQ(-1, bo_create(self->fd, 4096, NULL));
	EXPECT_EQ(EDQUOT, errno);
	/* The last reference gives it back. */
	EXPECT_EQ(0, munmap(p, 65536));
	EXPECT_EQ(0, bo_create(self->fd, 65536, NULL));
	EXPECT_EQ(0, qpu_test_write(QPU_PARAMS "client_mem_limit", "268435456"));
}

#define CGROUP_ROOT	"/sys/fs/cgroup"
#define CGROUP_TEST	CGROUP_ROOT "/qpu-bo-test"

/*
 * BO memory is charged to the creator's memory cgroup: memory.current grows
 * with its BOs, and BO_CREATE fails with ENOMEM at memory.max instead of
 * going past it (or calling the cgroup's OOM killer on the caller).
 */
TEST_F(bo, charged_to_memory_cgroup)
{
	const long long max = 16 << 20, bo_size = 1 << 20;
	int pipefd[2], status;
	long long r[4];
	char pid[16];
	pid_t child;

	if (access(CGROUP_ROOT "/cgroup.controllers", F_OK))
		mount("cgroup2", CGROUP_ROOT, "cgroup2", 0, NULL);
	if (access(CGROUP_ROOT "/cgroup.controllers", F_OK))
		SKIP(return, "no cgroup2 hierarchy");
	qpu_test_write(CGROUP_ROOT "/cgroup.subtree_control", "+memory");
	rmdir(CGROUP_TEST);
	ASSERT_EQ(0, mkdir(CGROUP_TEST, 0755));
	ASSERT_EQ(0, qpu_test_write(CGROUP_TEST "/memory.max", "16777216"));
	ASSERT_EQ(0, pipe(pipefd));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		/* Reports: memory.current before, after 4 BOs, BOs made, errno. */
		long long out[4] = { 0 };
		int fd;

		snprintf(pid, sizeof(pid), "%d", getpid());
		if (qpu_test_write(CGROUP_TEST "/cgroup.procs", pid))
			_exit(1);
		fd = open(QPU_NODE, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			_exit(1);
		out[0] = qpu_test_read_ll(CGROUP_TEST "/memory.current");
		for (out[2] = 0; out[2] < 64; out[2]++) {
			if (bo_create(fd, bo_size, NULL)) {
				out[3] = errno;
				break;
			}
			if (out[2] == 3)
				out[1] = qpu_test_read_ll(CGROUP_TEST "/memory.current");
		}
		if (write(pipefd[1], out, sizeof(out)) != sizeof(out))
			_exit(1);
		_exit(0);
	}
	close(pipefd[1]);
	EXPECT_EQ(sizeof(r), read(pipefd[0], r, sizeof(r)));
	close(pipefd[0]);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("the child ended with status %#x", status);
	EXPECT_LE(r[0] + 4 * bo_size, r[1])
		TH_LOG("memory.current %lld before, %lld after 4 BOs of 1 MiB", r[0], r[1]);
	EXPECT_EQ(ENOMEM, r[3]) TH_LOG("%lld BOs of 1 MiB made", r[2]);
	EXPECT_GT(max / bo_size, r[2]);
	rmdir(CGROUP_TEST);
}

TEST_F(bo, limit_parameters_validated)
{
	EXPECT_EQ(-1, qpu_test_write(QPU_PARAMS "max_bo_size", "0"));
	EXPECT_EQ(-1, qpu_test_write(QPU_PARAMS "max_bo_size", "lots"));
	EXPECT_EQ(-1, qpu_test_write(QPU_PARAMS "dev_mem_limit", "99999999999"));
	EXPECT_EQ(0, qpu_test_write(QPU_PARAMS "max_bo_size", "8192"));
	EXPECT_EQ(-1, bo_create(self->fd, 8193, NULL));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, qpu_test_write(QPU_PARAMS "max_bo_size", "67108864"));	/* the default */
	EXPECT_EQ(0, bo_create(self->fd, 8193, NULL));
}

TEST_HARNESS_MAIN
