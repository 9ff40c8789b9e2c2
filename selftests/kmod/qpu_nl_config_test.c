// SPDX-License-Identifier: GPL-2.0
/*
 * The qpu generic-netlink family: CONFIG_GET and CONFIG_SET against
 * GET_PARAM, the module parameters and BO_CREATE, and CONFIG_SET's
 * refusals.
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

/* 1. CONFIG_GET answers what GET_PARAM and the module parameters say. */
TEST_F(nl, config_get_matches_params)
{
	struct nlmsghdr *m;

	req_start(&self->q, self->nl.family, 0, QPU_CMD_CONFIG_GET);
	ASSERT_EQ(0, nl_request(&self->nl, &self->q, &self->r)) TH_LOG("%s", self->r.msg);
	ASSERT_EQ(1, self->r.count);
	m = reply_msg(&self->r, 0);
	EXPECT_EQ(get_param(self->fd, QPU_PARAM_DEFAULT_TIMEOUT_MS),
		  msg_uint(m, QPU_A_CONFIG_DEFAULT_TIMEOUT_MS));
	EXPECT_EQ(get_param(self->fd, QPU_PARAM_MAX_TIMEOUT_MS),
		  msg_uint(m, QPU_A_CONFIG_MAX_TIMEOUT_MS));
	EXPECT_EQ(get_param(self->fd, QPU_PARAM_MAX_BO_SIZE),
		  msg_uint(m, QPU_A_CONFIG_MAX_BO_SIZE));
	EXPECT_EQ(qpu_test_read_ll(PARAMS "client_mem_limit"),
		  msg_uint(m, QPU_A_CONFIG_CLIENT_MEM_LIMIT));
	EXPECT_EQ(qpu_test_read_ll(PARAMS "dev_mem_limit"),
		  msg_uint(m, QPU_A_CONFIG_DEV_MEM_LIMIT));
	EXPECT_EQ(qpu_test_read_ll(PARAMS "max_queued_jobs"),
		  msg_uint(m, QPU_A_CONFIG_MAX_QUEUED_JOBS));
}

/* 2. CONFIG_SET changes what GET_PARAM, the parameters and BO_CREATE see. */
TEST_F(nl, config_set_applies)
{
	struct qpu_bo_create bc = { .size = 3 * 4096 };

	req_start(&self->q, self->nl.family, 0, QPU_CMD_CONFIG_SET);
	req_put_u32(&self->q, QPU_A_CONFIG_DEFAULT_TIMEOUT_MS, 1234);
	req_put_u32(&self->q, QPU_A_CONFIG_MAX_TIMEOUT_MS, 5678);
	req_put_u64(&self->q, QPU_A_CONFIG_MAX_BO_SIZE, 2 * 4096);
	req_put_u64(&self->q, QPU_A_CONFIG_CLIENT_MEM_LIMIT, 1 << 20);
	req_put_u64(&self->q, QPU_A_CONFIG_DEV_MEM_LIMIT, 2 << 20);
	req_put_u32(&self->q, QPU_A_CONFIG_MAX_QUEUED_JOBS, 7);
	ASSERT_EQ(0, nl_request(&self->nl, &self->q, &self->r)) TH_LOG("%s", self->r.msg);
	EXPECT_EQ(0, self->r.count);
	EXPECT_EQ(1234, get_param(self->fd, QPU_PARAM_DEFAULT_TIMEOUT_MS));
	EXPECT_EQ(5678, get_param(self->fd, QPU_PARAM_MAX_TIMEOUT_MS));
	EXPECT_EQ(2 * 4096, get_param(self->fd, QPU_PARAM_MAX_BO_SIZE));
	EXPECT_EQ(1 << 20, qpu_test_read_ll(PARAMS "client_mem_limit"));
	EXPECT_EQ(2 << 20, qpu_test_read_ll(PARAMS "dev_mem_limit"));
	EXPECT_EQ(7, qpu_test_read_ll(PARAMS "max_queued_jobs"));
	EXPECT_EQ(-1, ioctl(self->fd, QPU_IOCTL_BO_CREATE, &bc));
	EXPECT_EQ(EINVAL, errno);

	/* One attribute alone changes only that one. */
	req_start(&self->q, self->nl.family, 0, QPU_CMD_CONFIG_SET);
	req_put_u64(&self->q, QPU_A_CONFIG_MAX_BO_SIZE, 8 * 4096);
	ASSERT_EQ(0, nl_request(&self->nl, &self->q, &self->r));
	EXPECT_EQ(8 * 4096, get_param(self->fd, QPU_PARAM_MAX_BO_SIZE));
	EXPECT_EQ(1234, get_param(self->fd, QPU_PARAM_DEFAULT_TIMEOUT_MS));
	EXPECT_EQ(0, ioctl(self->fd, QPU_IOCTL_BO_CREATE, &bc));
}

/* 3. CONFIG_SET refuses values out of range, and an empty request. */
TEST_F(nl, config_set_refusals)
{
	req_start(&self->q, self->nl.family, 0, QPU_CMD_CONFIG_SET);
	req_put_u32(&self->q, QPU_A_CONFIG_DEFAULT_TIMEOUT_MS, 0);
	EXPECT_EQ(-ERANGE, nl_request(&self->nl, &self->q, &self->r));
	EXPECT_STREQ("integer out of range", self->r.msg);
	EXPECT_EQ(NLMSG_LENGTH(GENL_HDRLEN), self->r.offs);

	req_start(&self->q, self->nl.family, 0, QPU_CMD_CONFIG_SET);
	req_put_u64(&self->q, QPU_A_CONFIG_MAX_BO_SIZE, (1ull << 30) + 1);
	EXPECT_EQ(-ERANGE, nl_request(&self->nl, &self->q, &self->r));
	EXPECT_STREQ("integer out of range", self->r.msg);

	/* A queue of no jobs, or longer than the jobs WAIT can name. */
	req_start(&self->q, self->nl.family, 0, QPU_CMD_CONFIG_SET);
	req_put_u32(&self->q, QPU_A_CONFIG_MAX_QUEUED_JOBS, 0);
	EXPECT_EQ(-ERANGE, nl_request(&self->nl, &self->q, &self->r));
	req_start(&self->q, self->nl.family, 0, QPU_CMD_CONFIG_SET);
	req_put_u32(&self->q, QPU_A_CONFIG_MAX_QUEUED_JOBS, 1025);
	EXPECT_EQ(-ERANGE, nl_request(&self->nl, &self->q, &self->r));
	EXPECT_STREQ("integer out of range", self->r.msg);

	req_start(&self->q, self->nl.family, 0, QPU_CMD_CONFIG_SET);
	EXPECT_EQ(-EINVAL, nl_request(&self->nl, &self->q, &self->r));
	EXPECT_STREQ("qpu: no configuration attribute given", self->r.msg);

	/* The padding attribute is not a setting. */
	req_start(&self->q, self->nl.family, 0, QPU_CMD_CONFIG_SET);
	req_put_u32(&self->q, QPU_A_CONFIG_PAD, 0);
	EXPECT_EQ(-EINVAL, nl_request(&self->nl, &self->q, &self->r));
	EXPECT_STREQ("Unsupported attribute", self->r.msg);

	/* Nothing changed. */
	EXPECT_EQ(self->saved[0], get_param(self->fd, QPU_PARAM_DEFAULT_TIMEOUT_MS));
	EXPECT_EQ(self->saved[2], get_param(self->fd, QPU_PARAM_MAX_BO_SIZE));
	EXPECT_EQ(self->saved[5], qpu_test_read_ll(PARAMS "max_queued_jobs"));
}

TEST_HARNESS_MAIN
