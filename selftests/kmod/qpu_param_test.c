// SPDX-License-Identifier: GPL-2.0
/*
 * QPU_IOCTL_GET_PARAM on the simulated V3D, and the ioctl dispatcher's rules
 * shared by every qpu ioctl: command type, number and direction, struct sizes
 * (short, grown with a zero tail, grown with a non-zero tail), bad pointers.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/qpu.h>

#include "kselftest_harness.h"

#define QPU_NODE "/dev/qpu"

/* The command number GET_PARAM would have with a struct of @size bytes. */
#define GET_PARAM_SIZED(size) \
	_IOC(_IOC_READ | _IOC_WRITE, QPU_IOCTL_BASE, QPU_IOCTL_NR_GET_PARAM, size)

FIXTURE(param) {
	int fd;
};

FIXTURE_SETUP(param)
{
	self->fd = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	/* 6.1's harness runs the test body after a SKIP() in setup: assert. */
	ASSERT_LE(0, self->fd) TH_LOG("open " QPU_NODE ": %s (is qpu.ko loaded with sim=1?)",
				      strerror(errno));
}

FIXTURE_TEARDOWN(param)
{
	if (self->fd >= 0)
		close(self->fd);
}

static int get_param(int fd, __u32 param, __u64 *value)
{
	struct qpu_get_param args = { .param = param, .value = 0xdeadbeef };
	int ret;

	ret = ioctl(fd, QPU_IOCTL_GET_PARAM, &args);
	if (ret == 0)
		*value = args.value;
	return ret;
}

TEST_F(param, sim_identity)
{
	__u64 v;

	ASSERT_EQ(0, get_param(self->fd, QPU_PARAM_ABI_VERSION, &v));
	EXPECT_EQ(QPU_ABI_VERSION, v);
	ASSERT_EQ(0, get_param(self->fd, QPU_PARAM_BACKEND, &v));
	EXPECT_EQ(QPU_BACKEND_SIM, v);
	ASSERT_EQ(0, get_param(self->fd, QPU_PARAM_V3D_IDENT0, &v));
	EXPECT_EQ(0x02443356, v);	/* "V3D", technology version 2 */
	ASSERT_EQ(0, get_param(self->fd, QPU_PARAM_FEATURES, &v));
	EXPECT_EQ(QPU_FEATURE_UNIFORMS_ANYWHERE | QPU_FEATURE_DEADLOCK | QPU_FEATURE_ALL_BOS |
		  QPU_FEATURE_DMABUF, v);
	/* Timeouts are progress: a 250 MHz V3D's instructions per QPU and ms. */
	ASSERT_EQ(0, get_param(self->fd, QPU_PARAM_INSTRUCTIONS_PER_MS, &v));
	EXPECT_EQ(62500, v);
}

/* The decoded parameters agree with the raw IDENT1 word (reference guide). */
TEST_F(param, sim_shape_matches_ident1)
{
	__u64 ident1, qpus, slices, sems, vpm;

	ASSERT_EQ(0, get_param(self->fd, QPU_PARAM_V3D_IDENT1, &ident1));
	ASSERT_EQ(0, get_param(self->fd, QPU_PARAM_NUM_QPUS, &qpus));
	ASSERT_EQ(0, get_param(self->fd, QPU_PARAM_NUM_SLICES, &slices));
	ASSERT_EQ(0, get_param(self->fd, QPU_PARAM_NUM_SEMAPHORES, &sems));
	ASSERT_EQ(0, get_param(self->fd, QPU_PARAM_VPM_SIZE, &vpm));

	EXPECT_EQ(12, qpus);
	EXPECT_EQ(3, slices);
	EXPECT_EQ(16, sems);
	EXPECT_EQ(12 * 1024, vpm);
	EXPECT_EQ((ident1 >> 4) & 0xf, slices);
	EXPECT_EQ(((ident1 >> 8) & 0xf) * slices, qpus);
	EXPECT_EQ((ident1 >> 16) & 0xff, sems);
	EXPECT_EQ((ident1 >> 28) * 1024, vpm);
}

/*
 * QPU_PARAM_BO_L2_CACHED tells the alias BOs sit at: the simulated V3D
 * places them at 0xC, the one that bypasses the VideoCore L2, so 0; and a
 * BO's bus address agrees with the answer.
 */
TEST_F(param, bo_l2_cached_follows_bus_alias)
{
	struct qpu_bo_create bo = { .size = 4096 };
	struct qpu_bo_destroy d = { 0 };
	__u64 v = 7;

	ASSERT_EQ(0, get_param(self->fd, QPU_PARAM_BO_L2_CACHED, &v));
	EXPECT_EQ(0, v);
	ASSERT_EQ(0, ioctl(self->fd, QPU_IOCTL_BO_CREATE, &bo));
	EXPECT_EQ(0xc0000000u, bo.bus_addr & 0xc0000000u);
	EXPECT_EQ(v, (bo.bus_addr & 0xc0000000u) != 0xc0000000u);
	d.handle = bo.handle;
	EXPECT_EQ(0, ioctl(self->fd, QPU_IOCTL_BO_DESTROY, &d));
}

TEST_F(param, ident2_is_readable)
{
	__u64 v = 1;

	EXPECT_EQ(0, get_param(self->fd, QPU_PARAM_V3D_IDENT2, &v));
	EXPECT_EQ(0, v >> 32);
}

TEST_F(param, unknown_param_einval)
{
	__u64 v;

	EXPECT_EQ(-1, get_param(self->fd, QPU_PARAM_BO_L2_CACHED + 1, &v));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, get_param(self->fd, 0xffffffff, &v));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(param, nonzero_pad_einval)
{
	struct qpu_get_param args = { .param = QPU_PARAM_ABI_VERSION, .pad = 1 };

	EXPECT_EQ(-1, ioctl(self->fd, QPU_IOCTL_GET_PARAM, &args));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(param, bad_pointer_efault)
{
	EXPECT_EQ(-1, ioctl(self->fd, QPU_IOCTL_GET_PARAM, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, QPU_IOCTL_GET_PARAM, (void *)8));
	EXPECT_EQ(EFAULT, errno);
}

/* The input is readable but the answer cannot be written back. */
TEST_F(param, readonly_struct_efault)
{
	long page = sysconf(_SC_PAGESIZE);
	struct qpu_get_param *args;

	args = mmap(NULL, page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, args);
	args->param = QPU_PARAM_ABI_VERSION;
	ASSERT_EQ(0, mprotect(args, page, PROT_READ));

	EXPECT_EQ(-1, ioctl(self->fd, QPU_IOCTL_GET_PARAM, args));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(0, args->value);
	munmap(args, page);
}

/* A struct shorter than the first version cannot hold the answer. */
TEST_F(param, short_struct_einval)
{
	struct qpu_get_param args = { .param = QPU_PARAM_ABI_VERSION };

	EXPECT_EQ(-1, ioctl(self->fd, GET_PARAM_SIZED(8), &args));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(self->fd, GET_PARAM_SIZED(0), &args));
	EXPECT_EQ(EINVAL, errno);
}

/* A newer caller's longer struct works while its extra bytes are zero... */
TEST_F(param, grown_struct_zero_tail_ok)
{
	struct {
		struct qpu_get_param args;
		__u64 tail[2];
	} big = { .args.param = QPU_PARAM_ABI_VERSION };

	ASSERT_EQ(0, ioctl(self->fd, GET_PARAM_SIZED(sizeof(big)), &big));
	EXPECT_EQ(QPU_ABI_VERSION, big.args.value);
	EXPECT_EQ(0, big.tail[0]);
	EXPECT_EQ(0, big.tail[1]);
}

/* ...and is refused when it asks for something this kernel does not know. */
TEST_F(param, grown_struct_nonzero_tail_e2big)
{
	struct {
		struct qpu_get_param args;
		__u64 tail[2];
	} big = { .args.param = QPU_PARAM_ABI_VERSION, .tail[1] = 1 };

	EXPECT_EQ(-1, ioctl(self->fd, GET_PARAM_SIZED(sizeof(big)), &big));
	EXPECT_EQ(E2BIG, errno);
	EXPECT_EQ(0, big.args.value);
}

TEST_F(param, wrong_direction_enotty)
{
	struct qpu_get_param args = { .param = QPU_PARAM_ABI_VERSION };

	EXPECT_EQ(-1, ioctl(self->fd, _IOR(QPU_IOCTL_BASE, QPU_IOCTL_NR_GET_PARAM,
					   struct qpu_get_param), &args));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->fd, _IOW(QPU_IOCTL_BASE, QPU_IOCTL_NR_GET_PARAM,
					   struct qpu_get_param), &args));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->fd, _IO(QPU_IOCTL_BASE, QPU_IOCTL_NR_GET_PARAM)));
	EXPECT_EQ(ENOTTY, errno);
}

TEST_F(param, unknown_command_enotty)
{
	struct qpu_get_param args = { .param = QPU_PARAM_ABI_VERSION };

	EXPECT_EQ(-1, ioctl(self->fd, _IOWR(QPU_IOCTL_BASE, 0x3f,
					    struct qpu_get_param), &args));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->fd, _IOWR(QPU_IOCTL_BASE + 1, QPU_IOCTL_NR_GET_PARAM,
					    struct qpu_get_param), &args));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->fd, FIONREAD, &args));
	EXPECT_EQ(ENOTTY, errno);
}

/* Files are independent and the node is not seekable. */
TEST_F(param, second_open_and_lseek)
{
	int fd2 = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	__u64 v;

	ASSERT_LE(0, fd2);
	EXPECT_EQ(0, get_param(fd2, QPU_PARAM_NUM_QPUS, &v));
	close(fd2);
	EXPECT_EQ(0, get_param(self->fd, QPU_PARAM_NUM_QPUS, &v));
	EXPECT_EQ(-1, lseek(self->fd, 0, SEEK_SET));
	EXPECT_EQ(ESPIPE, errno);
}

TEST_HARNESS_MAIN
