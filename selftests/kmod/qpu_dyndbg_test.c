// SPDX-License-Identifier: GPL-2.0
/*
 * Refusals of user input leave a debug line: with qpu.ko's dynamic debug
 * on, each refused ioctl, mmap, netlink request and debugfs write of a
 * representative set (dispatcher, GET_PARAM, BO_CREATE, BO_DESTROY,
 * SUBMIT, WAIT, mmap; a missing or unknown device, client or setting over
 * netlink; float_digest and the simulated firmware's knobs) logs
 * exactly one kernel line saying what was refused, and nothing at all
 * with it off; repeated, no more than a burst of them. Requests that the generic-netlink core refuses before
 * qpu.ko sees them (a value outside its attribute's policy, an admin
 * command without CAP_NET_ADMIN) get the core's extended ack and no qpu
 * line, so they are not here. Without dynamic debug
 * (CONFIG_DYNAMIC_DEBUG) every case is a skip.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/qpu.h>

#include "kselftest_harness.h"
#include "qpu_nl.h"
#include "qpu_programs.h"
#include "qpu_util.h"

#define DYNDBG_CONTROL "/sys/kernel/debug/dynamic_debug/control"

/* What one case does: a call that must fail with the variant's errno. */
struct refusal_ctx {
	int fd;
	struct qpu_test_bo code;
	struct nl *nl;
};

typedef int (*refusal_fn)(const struct refusal_ctx *ctx);

FIXTURE(dyndbg) {
	struct refusal_ctx ctx;
	struct nl nl;
	int kmsg;
	int have_dyndbg;
};

FIXTURE_VARIANT(dyndbg) {
	refusal_fn refuse;
	int err;
	const char *text;	/* what the kernel line must say */
};

FIXTURE_SETUP(dyndbg)
{
	self->ctx.fd = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->ctx.fd) TH_LOG("open " QPU_NODE ": %s", strerror(errno));
	ASSERT_EQ(0, qpu_test_bo_new(self->ctx.fd, 4096, qpu_prog_end,
				     sizeof(qpu_prog_end), &self->ctx.code));
	ASSERT_EQ(0, nl_open(&self->nl))
		TH_LOG("generic netlink family " QPU_GENL_NAME " not found");
	self->ctx.nl = &self->nl;
	self->have_dyndbg = !access(DYNDBG_CONTROL, W_OK);
	self->kmsg = qpu_test_kmsg_open();
	ASSERT_LE(0, self->kmsg) TH_LOG("/dev/kmsg: %s", strerror(errno));
	if (self->have_dyndbg)
		ASSERT_EQ(0, qpu_test_write(DYNDBG_CONTROL, "module qpu +p"));
}

FIXTURE_TEARDOWN(dyndbg)
{
	if (self->have_dyndbg)
		qpu_test_write(DYNDBG_CONTROL, "module qpu -p");
	close(self->kmsg);
	close(self->nl.fd);
	qpu_test_bo_free(self->ctx.fd, &self->ctx.code);
	close(self->ctx.fd);
}

static int refuse_unknown_ioctl(const struct refusal_ctx *ctx)
{
	return ioctl(ctx->fd, _IO(QPU_IOCTL_BASE, 0x7f));
}

static int refuse_wrong_direction(const struct refusal_ctx *ctx)
{
	struct qpu_get_param p = { .param = QPU_PARAM_ABI_VERSION };

	return ioctl(ctx->fd, _IOR(QPU_IOCTL_BASE, QPU_IOCTL_NR_GET_PARAM,
				   struct qpu_get_param), &p);
}

static int refuse_short_struct(const struct refusal_ctx *ctx)
{
	__u32 p = QPU_PARAM_ABI_VERSION;

	return ioctl(ctx->fd, _IOC(_IOC_READ | _IOC_WRITE, QPU_IOCTL_BASE,
				   QPU_IOCTL_NR_GET_PARAM, sizeof(p)), &p);
}

static int refuse_nonzero_tail(const struct refusal_ctx *ctx)
{
	struct {
		struct qpu_get_param p;
		__u64 tail;
	} big = { .p.param = QPU_PARAM_ABI_VERSION, .tail = 1 };

	return ioctl(ctx->fd, _IOC(_IOC_READ | _IOC_WRITE, QPU_IOCTL_BASE,
				   QPU_IOCTL_NR_GET_PARAM, sizeof(big)), &big);
}

static int refuse_unknown_param(const struct refusal_ctx *ctx)
{
	struct qpu_get_param p = { .param = 0xffff };

	return ioctl(ctx->fd, QPU_IOCTL_GET_PARAM, &p);
}

static int refuse_bo_flags(const struct refusal_ctx *ctx)
{
	struct qpu_bo_create c = { .size = 4096, .flags = 1 };

	return ioctl(ctx->fd, QPU_IOCTL_BO_CREATE, &c);
}

static int refuse_bo_size_zero(const struct refusal_ctx *ctx)
{
	struct qpu_bo_create c = { .size = 0 };

	return ioctl(ctx->fd, QPU_IOCTL_BO_CREATE, &c);
}

static int refuse_bo_destroy_unknown(const struct refusal_ctx *ctx)
{
	struct qpu_bo_destroy d = { .handle = 0xdead };

	return ioctl(ctx->fd, QPU_IOCTL_BO_DESTROY, &d);
}

static int refuse_submit_flags(const struct refusal_ctx *ctx)
{
	return qpu_test_submit(ctx->fd, &ctx->code, &ctx->code, 1, 0, 1u << 31, 0, NULL);
}

static int refuse_submit_13_programs(const struct refusal_ctx *ctx)
{
	return qpu_test_submit(ctx->fd, &ctx->code, &ctx->code, 13, 0, 0, 0, NULL);
}

static int refuse_submit_unknown_handle(const struct refusal_ctx *ctx)
{
	struct qpu_test_bo none = { .handle = 0xdead };

	return qpu_test_submit(ctx->fd, &ctx->code, &none, 1, 0, 0, 0, NULL);
}

static int refuse_submit_no_in_fence_flag(const struct refusal_ctx *ctx)
{
	return qpu_test_submit(ctx->fd, &ctx->code, &ctx->code, 1, 0, 0, 3, NULL);
}

static int refuse_wait_unknown_seqno(const struct refusal_ctx *ctx)
{
	struct qpu_wait w = { .seqno = 999999 };

	return ioctl(ctx->fd, QPU_IOCTL_WAIT, &w);
}

static int refuse_wait_pad(const struct refusal_ctx *ctx)
{
	struct qpu_wait w = { .seqno = 1, .pad = 1 };

	return ioctl(ctx->fd, QPU_IOCTL_WAIT, &w);
}

static int refuse_mmap_private(const struct refusal_ctx *ctx)
{
	void *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, ctx->fd,
		       ctx->code.mmap_offset);

	if (p == MAP_FAILED)
		return -1;
	munmap(p, 4096);
	return 0;
}

static int refuse_mmap_no_bo(const struct refusal_ctx *ctx)
{
	void *p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, ctx->fd,
		       ctx->code.mmap_offset + (1 << 30));

	if (p == MAP_FAILED)
		return -1;
	munmap(p, 4096);
	return 0;
}

static int refuse_mmap_past_the_bo(const struct refusal_ctx *ctx)
{
	void *p = mmap(NULL, 2 * 4096, PROT_READ, MAP_SHARED, ctx->fd,
		       ctx->code.mmap_offset);

	if (p == MAP_FAILED)
		return -1;
	munmap(p, 2 * 4096);
	return 0;
}

/*
 * Sends the request @cmd with @attr (0: none) set to @value; -1 with
 * errno set to the ack's error, or 0.
 */
static int nl_refuse(const struct refusal_ctx *ctx, __u8 cmd, __u16 attr,
		     __u32 value)
{
	static struct reply r;
	struct req q;
	int err;

	req_start(&q, ctx->nl->family, 0, cmd);
	if (attr)
		req_put_u32(&q, attr, value);
	err = nl_request(ctx->nl, &q, &r);
	if (!err)
		return 0;
	errno = -err;
	return -1;
}

static int refuse_nl_missing_device(const struct refusal_ctx *ctx)
{
	return nl_refuse(ctx, QPU_CMD_STATS_GET, 0, 0);
}

static int refuse_nl_unknown_device(const struct refusal_ctx *ctx)
{
	return nl_refuse(ctx, QPU_CMD_DEV_GET, QPU_A_DEV_INDEX, 7);
}

static int refuse_nl_reset_unknown_device(const struct refusal_ctx *ctx)
{
	return nl_refuse(ctx, QPU_CMD_DEV_RESET, QPU_A_DEV_INDEX, 7);
}

static int refuse_nl_client_missing(const struct refusal_ctx *ctx)
{
	return nl_refuse(ctx, QPU_CMD_CLIENT_GET, 0, 0);
}

static int refuse_nl_client_unknown(const struct refusal_ctx *ctx)
{
	return nl_refuse(ctx, QPU_CMD_CLIENT_GET, QPU_A_CLIENT_ID, 0xdead);
}

static int refuse_nl_config_set_nothing(const struct refusal_ctx *ctx)
{
	return nl_refuse(ctx, QPU_CMD_CONFIG_SET, 0, 0);
}

static int refuse_float_digest_long(const struct refusal_ctx *ctx)
{
	return qpu_test_write(QPU_DEBUGFS_ROOT "float_digest",
			      "1234567890 1234567890 1234567890 1234567890");
}

static int refuse_float_digest_format(const struct refusal_ctx *ctx)
{
	return qpu_test_write(QPU_DEBUGFS_ROOT "float_digest", "seven");
}

static int refuse_fw_temp_range(const struct refusal_ctx *ctx)
{
	return qpu_test_write(QPU_DEBUGFS "fw_temp_mc", "125001");
}

static int refuse_fw_throttled_bits(const struct refusal_ctx *ctx)
{
	return qpu_test_write(QPU_DEBUGFS "fw_throttled", "0x10000");
}

#define REFUSAL(name, fn, errno_value, line)				\
	FIXTURE_VARIANT_ADD(dyndbg, name) {				\
		.refuse = fn, .err = errno_value, .text = line,		\
	}

REFUSAL(unknown_ioctl, refuse_unknown_ioctl, ENOTTY, "not a qpu command");
REFUSAL(wrong_direction, refuse_wrong_direction, ENOTTY, "unknown number or direction");
REFUSAL(short_struct, refuse_short_struct, EINVAL, "struct of 4 bytes");
REFUSAL(nonzero_tail, refuse_nonzero_tail, E2BIG, "nonzero tail");
REFUSAL(unknown_param, refuse_unknown_param, EINVAL, "get_param refused: unknown param 65535");
REFUSAL(bo_create_flags, refuse_bo_flags, EINVAL, "bo_create refused: nonzero flags");
REFUSAL(bo_create_size_zero, refuse_bo_size_zero, EINVAL, "bo_create refused: size 0");
REFUSAL(bo_destroy_unknown, refuse_bo_destroy_unknown, ENOENT, "bo_destroy refused: no handle 57005");
REFUSAL(submit_flags, refuse_submit_flags, EINVAL, "submit refused: nonzero pad or unknown flags 0x80000000");
REFUSAL(submit_13_programs, refuse_submit_13_programs, EINVAL, "submit refused: 13 programs");
REFUSAL(submit_unknown_handle, refuse_submit_unknown_handle, ENOENT, "submit refused: no BO handle 57005");
REFUSAL(submit_fence_fd_without_flag, refuse_submit_no_in_fence_flag, EINVAL, "in_fence_fd without");
REFUSAL(wait_unknown_seqno, refuse_wait_unknown_seqno, ENOENT, "wait refused: no job 999999");
REFUSAL(wait_pad, refuse_wait_pad, EINVAL, "wait refused: nonzero pad");
REFUSAL(mmap_private, refuse_mmap_private, EINVAL, "mmap refused: not MAP_SHARED");
REFUSAL(mmap_no_bo, refuse_mmap_no_bo, EINVAL, "mmap refused: no BO at page offset");
REFUSAL(mmap_past_the_bo, refuse_mmap_past_the_bo, EINVAL, "mmap refused: 2 pages from page 0");
REFUSAL(nl_missing_device, refuse_nl_missing_device, EINVAL,
	"netlink request refused: qpu: missing device index");
REFUSAL(nl_unknown_device, refuse_nl_unknown_device, ENODEV,
	"netlink request refused: qpu: no such device");
REFUSAL(nl_reset_unknown_device, refuse_nl_reset_unknown_device, ENODEV,
	"netlink request refused: qpu: no such device");
REFUSAL(nl_client_missing, refuse_nl_client_missing, EINVAL,
	"netlink request refused: qpu: missing client id or pid");
REFUSAL(nl_client_unknown, refuse_nl_client_unknown, ENOENT,
	"netlink request refused: qpu: no such client");
REFUSAL(nl_config_set_nothing, refuse_nl_config_set_nothing, EINVAL,
	"netlink request refused: qpu: no configuration attribute given");
REFUSAL(float_digest_too_long, refuse_float_digest_long, EINVAL,
	"float_digest write refused: 43 bytes, at most 31");
REFUSAL(float_digest_not_seed_count, refuse_float_digest_format, EINVAL,
	"float_digest write refused: not \"SEED COUNT\"");
REFUSAL(fw_temp_out_of_range, refuse_fw_temp_range, EINVAL,
	"firmware knob write refused: 125001, not 0 to 125000");
REFUSAL(fw_throttled_unknown_bits, refuse_fw_throttled_bits, EINVAL,
	"fw_throttled write refused: bits 0x10000 outside 0xf");

/* The refusal fails as before and logs exactly one line saying what. */
TEST_F(dyndbg, refusal_logs_one_line)
{
	char line[1024];
	int ret;

	if (!self->have_dyndbg)
		SKIP(return, "no " DYNDBG_CONTROL " (CONFIG_DYNAMIC_DEBUG)");
	qpu_test_kmsg_skip(self->kmsg);
	errno = 0;
	ret = variant->refuse(&self->ctx);
	EXPECT_EQ(-1, ret);
	EXPECT_EQ(variant->err, errno) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(1, qpu_test_kmsg_lines(self->kmsg, line, sizeof(line))) TH_LOG("last: %s", line);
	EXPECT_NE(NULL, strstr(line, variant->text)) TH_LOG("line: %s", line);
}

/* With the module's debug lines off, the same refusal logs nothing. */
TEST_F(dyndbg, refusal_silent_when_off)
{
	char line[1024];

	if (!self->have_dyndbg)
		SKIP(return, "no " DYNDBG_CONTROL " (CONFIG_DYNAMIC_DEBUG)");
	ASSERT_EQ(0, qpu_test_write(DYNDBG_CONTROL, "module qpu -p"));
	qpu_test_kmsg_skip(self->kmsg);
	EXPECT_EQ(-1, variant->refuse(&self->ctx));
	EXPECT_EQ(variant->err, errno);
	EXPECT_EQ(0, qpu_test_kmsg_lines(self->kmsg, line, sizeof(line))) TH_LOG("line: %s", line);
}

/*
 * Repeated at will, a refusal does not flood the log: its line is
 * rate-limited, a burst of ten per five seconds and call site. The call
 * site here is one no case above uses (a WAIT on an unknown BO handle), as
 * their refusals share some (netlink's) and each must log its one line.
 */
TEST(refusal_lines_rate_limited)
{
	struct qpu_wait w = { .flags = QPU_WAIT_BO, .handle = 999999 };
	int fd, kmsg, i, lines;
	char line[1024];

	if (access(DYNDBG_CONTROL, W_OK))
		SKIP(return, "no " DYNDBG_CONTROL " (CONFIG_DYNAMIC_DEBUG)");
	fd = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	kmsg = qpu_test_kmsg_open();
	ASSERT_LE(0, kmsg);
	ASSERT_EQ(0, qpu_test_write(DYNDBG_CONTROL, "module qpu +p"));
	qpu_test_kmsg_skip(kmsg);
	for (i = 0; i < 30; i++) {
		EXPECT_EQ(-1, ioctl(fd, QPU_IOCTL_WAIT, &w));
		EXPECT_EQ(ENOENT, errno);
	}
	lines = qpu_test_kmsg_lines(kmsg, line, sizeof(line));
	qpu_test_write(DYNDBG_CONTROL, "module qpu -p");
	EXPECT_LE(1, lines);
	EXPECT_GE(10, lines) TH_LOG("last: %s", line);
	close(kmsg);
	close(fd);
}

TEST_HARNESS_MAIN
