// SPDX-License-Identifier: GPL-2.0
/*
 * The qpu generic-netlink family: DEV_GET and DEV_RESET: device 0 against
 * GET_PARAM, the dumps of DEV_GET and STATS_GET, a doit without its device
 * or with an unknown one, and a reset asked over netlink, idle and during a
 * job.
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

/* 1. DEV_GET for device 0 answers what GET_PARAM answers. */
TEST_F(nl, dev_get_matches_get_param)
{
	struct nlmsghdr *m;

	req_start(&self->q, self->nl.family, 0, QPU_CMD_DEV_GET);
	req_put_u32(&self->q, QPU_A_DEV_INDEX, 0);
	ASSERT_EQ(0, nl_request(&self->nl, &self->q, &self->r)) TH_LOG("%s", self->r.msg);
	ASSERT_EQ(1, self->r.count);
	m = reply_msg(&self->r, 0);
	EXPECT_EQ(QPU_CMD_DEV_GET, msg_cmd(m));
	EXPECT_EQ(0, msg_uint(m, QPU_A_DEV_INDEX));
	EXPECT_STREQ("qpu", msg_str(m, QPU_A_DEV_NAME));
	EXPECT_EQ(get_param(self->fd, QPU_PARAM_BACKEND), msg_uint(m, QPU_A_DEV_BACKEND));
	EXPECT_EQ(QPU_DEV_STATE_IDLE, msg_uint(m, QPU_A_DEV_STATE));
	EXPECT_EQ(get_param(self->fd, QPU_PARAM_V3D_IDENT0), msg_uint(m, QPU_A_DEV_IDENT0));
	EXPECT_EQ(get_param(self->fd, QPU_PARAM_V3D_IDENT1), msg_uint(m, QPU_A_DEV_IDENT1));
	EXPECT_EQ(get_param(self->fd, QPU_PARAM_V3D_IDENT2), msg_uint(m, QPU_A_DEV_IDENT2));
	EXPECT_EQ(get_param(self->fd, QPU_PARAM_NUM_QPUS), msg_uint(m, QPU_A_DEV_NUM_QPUS));
	EXPECT_EQ(get_param(self->fd, QPU_PARAM_NUM_SLICES),
		  msg_uint(m, QPU_A_DEV_NUM_SLICES));
	EXPECT_EQ(get_param(self->fd, QPU_PARAM_NUM_SEMAPHORES),
		  msg_uint(m, QPU_A_DEV_NUM_SEMAPHORES));
	EXPECT_EQ(get_param(self->fd, QPU_PARAM_VPM_SIZE), msg_uint(m, QPU_A_DEV_VPM_SIZE));
	EXPECT_NE(NO_VALUE, msg_uint(m, QPU_A_DEV_REVISION));
	/* The simulated V3D has no clock to report. */
	EXPECT_EQ(NULL, msg_attr(m, QPU_A_DEV_CLOCK_HZ));
}

/* 2. A dump of DEV_GET and of STATS_GET lists the one simulated device. */
TEST_F(nl, dumps_list_one_device)
{
	req_start(&self->q, self->nl.family, NLM_F_DUMP, QPU_CMD_DEV_GET);
	ASSERT_EQ(0, nl_request(&self->nl, &self->q, &self->r));
	ASSERT_EQ(1, self->r.count);
	EXPECT_EQ(0, msg_uint(reply_msg(&self->r, 0), QPU_A_DEV_INDEX));
	EXPECT_STREQ("qpu", msg_str(reply_msg(&self->r, 0), QPU_A_DEV_NAME));

	req_start(&self->q, self->nl.family, NLM_F_DUMP, QPU_CMD_STATS_GET);
	ASSERT_EQ(0, nl_request(&self->nl, &self->q, &self->r));
	ASSERT_EQ(1, self->r.count);
	EXPECT_EQ(0, msg_uint(reply_msg(&self->r, 0), QPU_A_STATS_DEV_INDEX));

	/* Filtered on a device that does not exist: empty. */
	req_start(&self->q, self->nl.family, NLM_F_DUMP, QPU_CMD_DEV_GET);
	req_put_u32(&self->q, QPU_A_DEV_INDEX, 3);
	ASSERT_EQ(0, nl_request(&self->nl, &self->q, &self->r));
	EXPECT_EQ(0, self->r.count);
}

/* 3. A doit without its device index, or with an unknown one. */
TEST_F(nl, missing_or_unknown_device)
{
	static const __u8 cmds[] = {
		QPU_CMD_DEV_GET, QPU_CMD_STATS_GET, QPU_CMD_DEV_RESET,
		QPU_CMD_HANG_GET,
	};
	unsigned int i;

	for (i = 0; i < sizeof(cmds); i++) {
		req_start(&self->q, self->nl.family, 0, cmds[i]);
		EXPECT_EQ(-EINVAL, nl_request(&self->nl, &self->q, &self->r));
		EXPECT_STREQ("qpu: missing device index", self->r.msg);
		EXPECT_EQ(1, self->r.miss_type);	/* every *_INDEX is 1 */

		req_start(&self->q, self->nl.family, 0, cmds[i]);
		req_put_u32(&self->q, 1, 7);
		EXPECT_EQ(-ENODEV, nl_request(&self->nl, &self->q, &self->r));
		EXPECT_STREQ("qpu: no such device", self->r.msg);
		EXPECT_EQ(NLMSG_LENGTH(GENL_HDRLEN), self->r.offs);
	}
}

/* 4. DEV_RESET resets an idle V3D: counted, announced, jobs run after. */
TEST_F_TIMEOUT(nl, reset_idle_device, 30)
{
	long long resets = qpu_test_stat("resets");
	int ev = events_open(&self->nl);
	struct qpu_submit s;

	ASSERT_LE(0, ev);
	req_start(&self->q, self->nl.family, 0, QPU_CMD_DEV_RESET);
	req_put_u32(&self->q, QPU_A_DEV_INDEX, 0);
	ASSERT_EQ(0, nl_request(&self->nl, &self->q, &self->r)) TH_LOG("%s", self->r.msg);
	EXPECT_EQ(resets + 1, qpu_test_stat("resets"));

	ASSERT_EQ(0, event_wait(ev, QPU_CMD_DEV_RESET_NTF, &self->r));
	EXPECT_EQ(0, msg_uint(reply_msg(&self->r, 0), QPU_A_EVENT_DEV_INDEX));
	EXPECT_EQ(QPU_RESET_ADMIN, msg_uint(reply_msg(&self->r, 0), QPU_A_EVENT_REASON));

	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 1, 0, 0, 0, &s));
	EXPECT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, s.seqno, 5000, NULL));
	close(ev);
}

/* 5. DEV_RESET during a running job cancels it; the next job runs. */
TEST_F_TIMEOUT(nl, reset_cancels_running_job, 30)
{
	long long canceled = qpu_test_stat("jobs_canceled");
	struct qpu_submit s, t;
	struct nlmsghdr *m;
	int i;

	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->loop, &self->unif, 1, 20000, 0, 0, &s));
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 1, 0, 0, 0, &t));
	/* Wait until the loop runs. */
	for (i = 0; i < 500; i++) {
		req_start(&self->q, self->nl.family, 0, QPU_CMD_DEV_GET);
		req_put_u32(&self->q, QPU_A_DEV_INDEX, 0);
		ASSERT_EQ(0, nl_request(&self->nl, &self->q, &self->r));
		m = reply_msg(&self->r, 0);
		if (msg_uint(m, QPU_A_DEV_STATE) == QPU_DEV_STATE_BUSY)
			break;
		usleep(10000);
	}
	ASSERT_GT(500, i);

	req_start(&self->q, self->nl.family, 0, QPU_CMD_DEV_RESET);
	req_put_u32(&self->q, QPU_A_DEV_INDEX, 0);
	ASSERT_EQ(0, nl_request(&self->nl, &self->q, &self->r)) TH_LOG("%s", self->r.msg);
	EXPECT_EQ(QPU_JOB_CANCELED, qpu_test_wait(self->fd, s.seqno, 0, NULL));
	EXPECT_EQ(canceled + 1, qpu_test_stat("jobs_canceled"));
	EXPECT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, t.seqno, 5000, NULL));
}

TEST_HARNESS_MAIN
