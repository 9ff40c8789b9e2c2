// SPDX-License-Identifier: GPL-2.0
/*
 * The qpu generic-netlink family: the events group and HANG_GET: a forced
 * hang sends a timeout event, then a reset event; a real hang leaves a
 * snapshot for HANG_GET; a fault sends a fault event; CONFIG_GET and
 * HANG_GET answer as dumps too.
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

/* 1. A forced hang sends a timeout event, then a reset event. */
TEST_F_TIMEOUT(nl, hang_sends_timeout_and_reset_events, 30)
{
	int ev = events_open(&self->nl);
	char comm[16] = "";
	struct qpu_submit s;
	struct nlmsghdr *m;

	ASSERT_LE(0, ev);
	ASSERT_EQ(0, prctl(PR_GET_NAME, comm));
	ASSERT_EQ(0, qpu_test_write(DEBUGFS "hang", "1"));
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 1, 100, 0, 0, &s));
	EXPECT_EQ(QPU_JOB_TIMEOUT, qpu_test_wait(self->fd, s.seqno, 10000, NULL));

	ASSERT_EQ(0, event_wait(ev, QPU_CMD_JOB_TIMEOUT_NTF, &self->r));
	m = reply_msg(&self->r, 0);
	EXPECT_EQ(0, msg_uint(m, QPU_A_EVENT_DEV_INDEX));
	EXPECT_EQ((__u64)getpid(), msg_uint(m, QPU_A_EVENT_PID));
	EXPECT_STREQ(comm, msg_str(m, QPU_A_EVENT_COMM));
	EXPECT_EQ(s.seqno, msg_uint(m, QPU_A_EVENT_SEQNO));
	EXPECT_EQ(100, msg_uint(m, QPU_A_EVENT_TIMEOUT_MS));

	ASSERT_EQ(0, event_wait(ev, QPU_CMD_DEV_RESET_NTF, &self->r));
	m = reply_msg(&self->r, 0);
	EXPECT_EQ(0, msg_uint(m, QPU_A_EVENT_DEV_INDEX));
	EXPECT_EQ(QPU_RESET_TIMEOUT, msg_uint(m, QPU_A_EVENT_REASON));
	close(ev);
}

/* 2. A real hang (an endless loop) leaves a snapshot for HANG_GET. */
TEST_F_TIMEOUT(nl, hang_get_snapshot, 30)
{
	char comm[16] = "";
	struct qpu_submit s;
	struct nlmsghdr *m;
	__u64 srqcs;

	ASSERT_EQ(0, prctl(PR_GET_NAME, comm));
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->loop, &self->unif, 2, 5, 0, 0, &s));
	EXPECT_EQ(QPU_JOB_TIMEOUT, qpu_test_wait(self->fd, s.seqno, 10000, NULL));

	req_start(&self->q, self->nl.family, 0, QPU_CMD_HANG_GET);
	req_put_u32(&self->q, QPU_A_HANG_DEV_INDEX, 0);
	ASSERT_EQ(0, nl_request(&self->nl, &self->q, &self->r));
	m = reply_msg(&self->r, 0);
	ASSERT_NE(NULL, m);
	EXPECT_EQ(QPU_CMD_HANG_GET, msg_cmd(m));
	EXPECT_EQ(0, msg_uint(m, QPU_A_HANG_DEV_INDEX));
	EXPECT_GT(10000, msg_uint(m, QPU_A_HANG_AGE_MS));
	EXPECT_EQ((__u64)getpid(), msg_uint(m, QPU_A_HANG_PID));
	EXPECT_STREQ(comm, msg_str(m, QPU_A_HANG_COMM));
	EXPECT_EQ(s.seqno, msg_uint(m, QPU_A_HANG_SEQNO));
	EXPECT_EQ(5, msg_uint(m, QPU_A_HANG_TIMEOUT_MS));
	EXPECT_EQ(2, msg_uint(m, QPU_A_HANG_PROGRAMS));
	EXPECT_EQ(self->loop.bus_addr, msg_uint(m, QPU_A_HANG_CODE_ADDR));
	EXPECT_EQ(self->unif.bus_addr, msg_uint(m, QPU_A_HANG_UNIF_ADDR));
	/* Both programs were queued, neither ended. */
	srqcs = msg_uint(m, QPU_A_HANG_SRQCS);
	EXPECT_EQ(2, (srqcs >> 8) & 0xff);
	EXPECT_EQ(0, (srqcs >> 16) & 0xff);
	EXPECT_EQ(0, msg_uint(m, QPU_A_HANG_DBQITC));
}

/* 3. A fault sends a fault event naming the QPU and the address. */
TEST_F_TIMEOUT(nl, fault_sends_fault_event, 30)
{
	int ev = events_open(&self->nl);
	__u32 *unif = self->unif.map;
	struct qpu_submit s;
	struct nlmsghdr *m;

	ASSERT_LE(0, ev);
	unif[0] = self->data.bus_addr;	/* not listed in the job */
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->tmu, &self->unif, 1, 0, 0, 0, &s));
	EXPECT_EQ(QPU_JOB_FAULT, qpu_test_wait(self->fd, s.seqno, 10000, NULL));

	ASSERT_EQ(0, event_wait(ev, QPU_CMD_JOB_FAULT_NTF, &self->r));
	m = reply_msg(&self->r, 0);
	EXPECT_EQ(s.seqno, msg_uint(m, QPU_A_EVENT_SEQNO));
	EXPECT_EQ(0, msg_uint(m, QPU_A_EVENT_FAULT_QPU));
	EXPECT_EQ(self->data.bus_addr, msg_uint(m, QPU_A_EVENT_FAULT_ADDR));
	EXPECT_EQ(QPU_FAULT_TMU, msg_uint(m, QPU_A_EVENT_FAULT_ACCESS));
	EXPECT_LE(self->tmu.bus_addr, msg_uint(m, QPU_A_EVENT_FAULT_PC));

	ASSERT_EQ(0, event_wait(ev, QPU_CMD_DEV_RESET_NTF, &self->r));
	EXPECT_EQ(QPU_RESET_FAULT, msg_uint(reply_msg(&self->r, 0), QPU_A_EVENT_REASON));
	close(ev);
}

/* 4. CONFIG_GET and HANG_GET answer as dumps too, as every GET does. */
TEST_F_TIMEOUT(nl, config_and_hang_dumps, 30)
{
	struct nlmsghdr *m;
	struct qpu_submit s;
	__u64 timeout;

	req_start(&self->q, self->nl.family, NLM_F_DUMP, QPU_CMD_CONFIG_GET);
	ASSERT_EQ(0, nl_request(&self->nl, &self->q, &self->r)) TH_LOG("%s", self->r.msg);
	ASSERT_EQ(1, self->r.count);
	m = reply_msg(&self->r, 0);
	EXPECT_EQ(QPU_CMD_CONFIG_GET, msg_cmd(m));
	EXPECT_EQ(get_param(self->fd, QPU_PARAM_DEFAULT_TIMEOUT_MS),
		  msg_uint(m, QPU_A_CONFIG_DEFAULT_TIMEOUT_MS));
	EXPECT_EQ(get_param(self->fd, QPU_PARAM_MAX_BO_SIZE),
		  msg_uint(m, QPU_A_CONFIG_MAX_BO_SIZE));
	EXPECT_EQ(qpu_test_read_ll(PARAMS "dev_mem_limit"),
		  msg_uint(m, QPU_A_CONFIG_DEV_MEM_LIMIT));
	/* A dump takes no attribute either. */
	req_start(&self->q, self->nl.family, NLM_F_DUMP, QPU_CMD_CONFIG_GET);
	req_put_u32(&self->q, QPU_A_CONFIG_DEFAULT_TIMEOUT_MS, 10);
	EXPECT_EQ(-EINVAL, nl_request(&self->nl, &self->q, &self->r));

	/* A hang, then the dump of every device's last one. */
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->loop, &self->unif, 1, 5, 0, 0, &s));
	EXPECT_EQ(QPU_JOB_TIMEOUT, qpu_test_wait(self->fd, s.seqno, 10000, NULL));
	req_start(&self->q, self->nl.family, NLM_F_DUMP, QPU_CMD_HANG_GET);
	ASSERT_EQ(0, nl_request(&self->nl, &self->q, &self->r)) TH_LOG("%s", self->r.msg);
	ASSERT_EQ(1, self->r.count);
	m = reply_msg(&self->r, 0);
	EXPECT_EQ(QPU_CMD_HANG_GET, msg_cmd(m));
	EXPECT_EQ(0, msg_uint(m, QPU_A_HANG_DEV_INDEX));
	EXPECT_EQ(s.seqno, msg_uint(m, QPU_A_HANG_SEQNO));
	timeout = msg_uint(m, QPU_A_HANG_TIMEOUT_MS);
	EXPECT_EQ(5, timeout);
	/* Filtered on a device that does not exist: empty. */
	req_start(&self->q, self->nl.family, NLM_F_DUMP, QPU_CMD_HANG_GET);
	req_put_u32(&self->q, QPU_A_HANG_DEV_INDEX, 3);
	ASSERT_EQ(0, nl_request(&self->nl, &self->q, &self->r));
	EXPECT_EQ(0, self->r.count);
}

TEST_HARNESS_MAIN
