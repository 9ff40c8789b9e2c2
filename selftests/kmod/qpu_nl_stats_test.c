// SPDX-License-Identifier: GPL-2.0
/*
 * The qpu generic-netlink family: STATS_GET against debugfs after a job,
 * per-QPU instruction counts against what WAIT says each job issued, and
 * busy time while a job runs and after.
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

/* The counters a STATS_GET reply gives about time and instructions. */
struct busy {
	__u64 busy_ns;
	__u64 instructions;
	int qpus;
	int in_order;
};

static int stats_busy(struct nl *nl, struct req *q, struct reply *r,
		      struct busy *b)
{
	struct nlmsghdr *m;

	req_start(q, nl->family, 0, QPU_CMD_STATS_GET);
	req_put_u32(q, QPU_A_STATS_DEV_INDEX, 0);
	if (nl_request(nl, q, r) || r->count != 1)
		return -1;
	m = reply_msg(r, 0);
	b->busy_ns = msg_uint(m, QPU_A_STATS_BUSY_NS);
	b->qpus = msg_qpus(m, &b->instructions, &b->in_order);
	return b->busy_ns == NO_VALUE ? -1 : 0;
}

/* 1. STATS_GET answers what debugfs says, after a job ran. */
TEST_F(nl, stats_get_matches_debugfs)
{
	static const struct { __u16 attr; const char *name; } map[] = {
		{ QPU_A_STATS_JOBS_SUBMITTED, "jobs_submitted" },
		{ QPU_A_STATS_JOBS_DONE, "jobs_done" },
		{ QPU_A_STATS_JOBS_FAILED, "jobs_failed" },
		{ QPU_A_STATS_JOBS_TIMEOUT, "jobs_timeout" },
		{ QPU_A_STATS_JOBS_CANCELED, "jobs_canceled" },
		{ QPU_A_STATS_RESETS, "resets" },
		{ QPU_A_STATS_BO_COUNT, "bo_count" },
		{ QPU_A_STATS_BO_BYTES, "bo_bytes" },
	};
	struct qpu_submit s;
	struct nlmsghdr *m;
	unsigned int i;

	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 1, 0, 0, 0, &s));
	ASSERT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, s.seqno, 5000, NULL));

	req_start(&self->q, self->nl.family, 0, QPU_CMD_STATS_GET);
	req_put_u32(&self->q, QPU_A_STATS_DEV_INDEX, 0);
	ASSERT_EQ(0, nl_request(&self->nl, &self->q, &self->r)) TH_LOG("%s", self->r.msg);
	ASSERT_EQ(1, self->r.count);
	m = reply_msg(&self->r, 0);
	EXPECT_EQ(QPU_CMD_STATS_GET, msg_cmd(m));
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		EXPECT_EQ(qpu_test_stat(map[i].name), msg_uint(m, map[i].attr))
			TH_LOG("counter %u", i);
	EXPECT_LE(1, msg_uint(m, QPU_A_STATS_JOBS_DONE));
	EXPECT_LE(5, msg_uint(m, QPU_A_STATS_BO_COUNT));
}

/* 2. Per-QPU instructions grow by what WAIT says each job issued. */
TEST_F(nl, stats_qpu_instructions_match_wait)
{
	struct busy before, after;
	struct qpu_submit s;
	struct qpu_wait w;

	ASSERT_EQ(0, stats_busy(&self->nl, &self->q, &self->r, &before));
	EXPECT_EQ(12, before.qpus);
	EXPECT_EQ(1, before.in_order);

	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 12, 0, 0, 0, &s));
	ASSERT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, s.seqno, 5000, &w));
	ASSERT_EQ(QPU_WAIT_RESULT_INSTRUCTIONS, w.result_flags);
	EXPECT_EQ(36, w.instructions);

	ASSERT_EQ(0, stats_busy(&self->nl, &self->q, &self->r, &after));
	EXPECT_EQ(12, after.qpus);
	EXPECT_EQ(before.instructions + w.instructions, after.instructions);
	EXPECT_LT(before.busy_ns, after.busy_ns);
}

/* 3. Busy time counts a running job, and then its whole run. */
TEST_F_TIMEOUT(nl, stats_busy_time, 30)
{
	struct busy before, during, after;
	struct qpu_submit s;
	struct nlmsghdr *m;
	int i;

	ASSERT_EQ(0, stats_busy(&self->nl, &self->q, &self->r, &before));
	/* 40 ms of instructions: seconds of the VM's emulation. */
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->loop, &self->unif, 1, 40, 0, 0, &s));
	for (i = 0; i < 500; i++) {
		req_start(&self->q, self->nl.family, 0, QPU_CMD_DEV_GET);
		req_put_u32(&self->q, QPU_A_DEV_INDEX, 0);
		ASSERT_EQ(0, nl_request(&self->nl, &self->q, &self->r));
		m = reply_msg(&self->r, 0);
		if (msg_uint(m, QPU_A_DEV_STATE) == QPU_DEV_STATE_BUSY)
			break;
		usleep(1000);
	}
	ASSERT_GT(500, i);
	usleep(50000);
	ASSERT_EQ(0, stats_busy(&self->nl, &self->q, &self->r, &during));
	/* The running job's time so far is in, and the QPU is issuing. */
	EXPECT_LE(before.busy_ns + 50000000ull, during.busy_ns);
	ASSERT_EQ(QPU_JOB_TIMEOUT, qpu_test_wait(self->fd, s.seqno, 30000, NULL));
	ASSERT_EQ(0, stats_busy(&self->nl, &self->q, &self->r, &after));
	EXPECT_LT(during.busy_ns, after.busy_ns);
	EXPECT_LE(during.busy_ns, after.busy_ns);
	EXPECT_LT(during.instructions, after.instructions);
}

TEST_HARNESS_MAIN
