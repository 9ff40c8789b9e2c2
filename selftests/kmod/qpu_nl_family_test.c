// SPDX-License-Identifier: GPL-2.0
/*
 * The qpu generic-netlink family: what the whole family refuses: commands
 * it does not have and events sent as requests, malformed attributes, reply
 * attributes in requests, and admin commands, events and the HANG_GET dump
 * without CAP_NET_ADMIN.
 * Messages are built by hand (qpu_nl.c); the fixture is qpu_nl_fixture.h.
 */
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "qpu_nl.h"
#include "qpu_nl_fixture.h"
#include "qpu_programs.h"
#include "qpu_util.h"

/* 1. Commands the family does not have, and events sent as requests. */
TEST_F(nl, unknown_command)
{
	req_start(&self->q, self->nl.family, 0, QPU_CMD_MAX + 1);
	EXPECT_EQ(-EOPNOTSUPP, nl_request(&self->nl, &self->q, &self->r));
	req_start(&self->q, self->nl.family, 0, 200);
	EXPECT_EQ(-EOPNOTSUPP, nl_request(&self->nl, &self->q, &self->r));
	req_start(&self->q, self->nl.family, 0, QPU_CMD_JOB_TIMEOUT_NTF);
	EXPECT_EQ(-EOPNOTSUPP, nl_request(&self->nl, &self->q, &self->r));
	req_start(&self->q, self->nl.family, 0, QPU_CMD_UNSPEC);
	EXPECT_EQ(-EOPNOTSUPP, nl_request(&self->nl, &self->q, &self->r));
}

/* 2. Unknown attributes, wrong lengths, wrong types, header fields. */
TEST_F(nl, malformed_attributes)
{
	__u16 short_index = 0;

	/* An attribute id the command does not know. */
	req_start(&self->q, self->nl.family, 0, QPU_CMD_DEV_GET);
	req_put_u32(&self->q, QPU_A_DEV_INDEX, 0);
	req_put_u32(&self->q, QPU_A_DEV_NAME, 0);
	EXPECT_EQ(-EINVAL, nl_request(&self->nl, &self->q, &self->r));
	EXPECT_STREQ("Unknown attribute type", self->r.msg);
	EXPECT_EQ(NLMSG_LENGTH(GENL_HDRLEN) + 8, self->r.offs);

	req_start(&self->q, self->nl.family, NLM_F_DUMP, QPU_CMD_CLIENT_GET);
	req_put_u32(&self->q, 999, 0);
	EXPECT_EQ(-EINVAL, nl_request(&self->nl, &self->q, &self->r));
	EXPECT_STREQ("Unknown attribute type", self->r.msg);

	/* CONFIG_GET takes no attribute at all. */
	req_start(&self->q, self->nl.family, 0, QPU_CMD_CONFIG_GET);
	req_put_u32(&self->q, QPU_A_CONFIG_MAX_BO_SIZE, 0);
	EXPECT_EQ(-EINVAL, nl_request(&self->nl, &self->q, &self->r));
	EXPECT_NE(0, self->r.msg[0]);

	/* A u32 of two bytes. */
	req_start(&self->q, self->nl.family, 0, QPU_CMD_DEV_GET);
	req_put(&self->q, QPU_A_DEV_INDEX, &short_index, sizeof(short_index));
	EXPECT_EQ(-EINVAL, nl_request(&self->nl, &self->q, &self->r));
	EXPECT_STREQ("invalid attribute length", self->r.msg);

	/* A u64 setting sent as a u32. */
	req_start(&self->q, self->nl.family, 0, QPU_CMD_CONFIG_SET);
	req_put_u32(&self->q, QPU_A_CONFIG_MAX_BO_SIZE, 1 << 20);
	EXPECT_EQ(-EINVAL, nl_request(&self->nl, &self->q, &self->r));
	EXPECT_STREQ("invalid attribute length", self->r.msg);

	/* A u32 flagged as a nest. */
	req_start(&self->q, self->nl.family, 0, QPU_CMD_DEV_GET);
	req_put_u32(&self->q, QPU_A_DEV_INDEX | NLA_F_NESTED, 0);
	EXPECT_EQ(-EINVAL, nl_request(&self->nl, &self->q, &self->r));
	EXPECT_STREQ("NLA_F_NESTED not expected", self->r.msg);

	/* The genetlink header's reserved field must be zero. */
	req_start(&self->q, self->nl.family, 0, QPU_CMD_DEV_GET);
	((struct genlmsghdr *)NLMSG_DATA(&self->q.nlh))->reserved = 1;
	req_put_u32(&self->q, QPU_A_DEV_INDEX, 0);
	EXPECT_EQ(-EINVAL, nl_request(&self->nl, &self->q, &self->r));
	EXPECT_STREQ("genlmsghdr.reserved field is not 0", self->r.msg);

	/* An attribute running past the message's end. */
	req_start(&self->q, self->nl.family, 0, QPU_CMD_DEV_GET);
	req_put_u32(&self->q, QPU_A_DEV_INDEX, 0);
	self->q.nlh.nlmsg_len -= 2;
	EXPECT_EQ(-EINVAL, nl_request(&self->nl, &self->q, &self->r));
}

/* 3. The new attributes of STATS and DEV are answers, never requests. */
TEST_F(nl, reply_attributes_refused_in_requests)
{
	req_start(&self->q, self->nl.family, 0, QPU_CMD_STATS_GET);
	req_put_u32(&self->q, QPU_A_STATS_DEV_INDEX, 0);
	req_put_u64(&self->q, QPU_A_STATS_BUSY_NS, 0);
	EXPECT_EQ(-EINVAL, nl_request(&self->nl, &self->q, &self->r));
	EXPECT_STREQ("Unknown attribute type", self->r.msg);

	req_start(&self->q, self->nl.family, NLM_F_DUMP, QPU_CMD_STATS_GET);
	req_put(&self->q, QPU_A_STATS_QPU | NLA_F_NESTED, "", 0);
	EXPECT_EQ(-EINVAL, nl_request(&self->nl, &self->q, &self->r));
	EXPECT_STREQ("Unknown attribute type", self->r.msg);

	req_start(&self->q, self->nl.family, 0, QPU_CMD_DEV_GET);
	req_put_u32(&self->q, QPU_A_DEV_INDEX, 0);
	req_put_u32(&self->q, QPU_A_DEV_CLOCK_HZ, 250000000);
	EXPECT_EQ(-EINVAL, nl_request(&self->nl, &self->q, &self->r));
	EXPECT_STREQ("Unknown attribute type", self->r.msg);
}

/* 4. Without CAP_NET_ADMIN: reads work, admin commands and events do not. */
TEST_F(nl, unprivileged_user_refused)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct nl nl;
		struct req q;
		static struct reply r;
		int fails = 0;

		if (setgid(65534) || setuid(65534))
			_exit(100);
		if (nl_open(&nl))
			_exit(101);

		req_start(&q, nl.family, 0, QPU_CMD_DEV_GET);
		req_put_u32(&q, QPU_A_DEV_INDEX, 0);
		fails += nl_request(&nl, &q, &r) != 0;

		req_start(&q, nl.family, 0, QPU_CMD_CONFIG_GET);
		fails += nl_request(&nl, &q, &r) != 0;

		req_start(&q, nl.family, 0, QPU_CMD_CONFIG_SET);
		req_put_u32(&q, QPU_A_CONFIG_DEFAULT_TIMEOUT_MS, 10);
		fails += (nl_request(&nl, &q, &r) != -EPERM) << 2;

		req_start(&q, nl.family, 0, QPU_CMD_DEV_RESET);
		req_put_u32(&q, QPU_A_DEV_INDEX, 0);
		fails += (nl_request(&nl, &q, &r) != -EPERM) << 4;

		req_start(&q, nl.family, 0, QPU_CMD_HANG_GET);
		req_put_u32(&q, QPU_A_HANG_DEV_INDEX, 0);
		fails += (nl_request(&nl, &q, &r) != -EPERM) << 5;

		fails += (events_open(&nl) != -EPERM) << 6;
		_exit(fails);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(self->saved[0], get_param(self->fd, QPU_PARAM_DEFAULT_TIMEOUT_MS));
}

/*
 * 5. Without CAP_NET_ADMIN: the new reads work, without what other users
 * do (per-QPU counts, their files); the HANG_GET dump not.
 */
TEST_F(nl, unprivileged_new_commands)
{
	int status;
	pid_t parent = getpid(), pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct nl nl;
		struct req q;
		static struct reply r;
		__u64 sum;
		int fails = 0, in_order;

		if (setgid(65534) || setuid(65534))
			_exit(100);
		if (nl_open(&nl))
			_exit(101);

		req_start(&q, nl.family, 0, QPU_CMD_STATS_GET);
		req_put_u32(&q, QPU_A_STATS_DEV_INDEX, 0);
		fails |= nl_request(&nl, &q, &r) != 0;
		/* Without the per-QPU counts: they tell what others run. */
		fails |= (r.count != 1 ||
			  msg_qpus(reply_msg(&r, 0), &sum, &in_order) != 0) << 1;

		/* Root's files are not this user's to see. */
		req_start(&q, nl.family, 0, QPU_CMD_CLIENT_GET);
		req_put_u32(&q, QPU_A_CLIENT_PID, parent);
		fails |= (nl_request(&nl, &q, &r) != -ENOENT) << 2;

		req_start(&q, nl.family, NLM_F_DUMP, QPU_CMD_CONFIG_GET);
		fails |= (nl_request(&nl, &q, &r) != 0 || r.count != 1) << 3;

		req_start(&q, nl.family, NLM_F_DUMP, QPU_CMD_HANG_GET);
		fails |= (nl_request(&nl, &q, &r) != -EPERM) << 4;
		_exit(fails);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * 6. The telemetry's attributes are answers, never requests, and its
 * event is no command.
 */
TEST_F(nl, telemetry_attributes_refused_in_requests)
{
	req_start(&self->q, self->nl.family, 0, QPU_CMD_DEV_GET);
	req_put_u32(&self->q, QPU_A_DEV_INDEX, 0);
	req_put_u32(&self->q, QPU_A_DEV_TEMP_MC, 45000);
	EXPECT_EQ(-EINVAL, nl_request(&self->nl, &self->q, &self->r));
	EXPECT_STREQ("Unknown attribute type", self->r.msg);

	req_start(&self->q, self->nl.family, NLM_F_DUMP, QPU_CMD_DEV_GET);
	req_put_u32(&self->q, QPU_A_DEV_THROTTLING, 1);
	EXPECT_EQ(-EINVAL, nl_request(&self->nl, &self->q, &self->r));
	EXPECT_STREQ("Unknown attribute type", self->r.msg);

	req_start(&self->q, self->nl.family, 0, QPU_CMD_STATS_GET);
	req_put_u32(&self->q, QPU_A_STATS_DEV_INDEX, 0);
	req_put_u64(&self->q, QPU_A_STATS_TELEMETRY_SAMPLES, 0);
	EXPECT_EQ(-EINVAL, nl_request(&self->nl, &self->q, &self->r));
	EXPECT_STREQ("Unknown attribute type", self->r.msg);

	req_start(&self->q, self->nl.family, 0, QPU_CMD_TELEMETRY_NTF);
	EXPECT_EQ(-EOPNOTSUPP, nl_request(&self->nl, &self->q, &self->r));
}

TEST_HARNESS_MAIN
