// SPDX-License-Identifier: GPL-2.0
/*
 * The qpu generic-netlink family: CLIENT_GET: the dump of open files with
 * pid, name, BOs and jobs, names hidden from another pid namespace, the do
 * by id, by pid and on a device, and its refusals; another user sees only
 * its own files, and no per-QPU counts in STATS_GET.
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

/* Finds this process's file @fd among the dump's: its client id, or 0. */
static __u32 my_client_id(struct nl *nl, struct req *q, struct reply *r,
			  __u64 bo_count)
{
	struct nlmsghdr *m;
	int i;

	req_start(q, nl->family, NLM_F_DUMP, QPU_CMD_CLIENT_GET);
	if (nl_request(nl, q, r))
		return 0;
	for (i = 0; i < r->count; i++) {
		m = reply_msg(r, i);
		if (msg_uint(m, QPU_A_CLIENT_PID) == (__u64)getpid() &&
		    msg_uint(m, QPU_A_CLIENT_BO_COUNT) == bo_count)
			return msg_uint(m, QPU_A_CLIENT_ID);
	}
	return 0;
}

/* 1. CLIENT_GET lists each open file with its pid, name, BOs and jobs. */
TEST_F(nl, client_dump_lists_open_files)
{
	int fd2 = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	int mine = 0, i, found5 = 0, found0 = 0;
	char comm[16] = "";
	struct qpu_submit s;
	struct nlmsghdr *m;

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, prctl(PR_GET_NAME, comm));
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 1, 0, 0, 0, &s));
	ASSERT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, s.seqno, 5000, NULL));

	req_start(&self->q, self->nl.family, NLM_F_DUMP, QPU_CMD_CLIENT_GET);
	ASSERT_EQ(0, nl_request(&self->nl, &self->q, &self->r)) TH_LOG("%s", self->r.msg);
	for (i = 0; i < self->r.count; i++) {
		m = reply_msg(&self->r, i);
		if (msg_uint(m, QPU_A_CLIENT_PID) != (__u64)getpid())
			continue;
		mine++;
		EXPECT_EQ(QPU_CMD_CLIENT_GET, msg_cmd(m));
		EXPECT_EQ(0, msg_uint(m, QPU_A_CLIENT_DEV_INDEX));
		EXPECT_STREQ(comm, msg_str(m, QPU_A_CLIENT_COMM));
		EXPECT_EQ(0, msg_uint(m, QPU_A_CLIENT_JOBS_QUEUED));
		if (msg_uint(m, QPU_A_CLIENT_BO_COUNT) == 5) {
			found5++;
			EXPECT_EQ(5 * 4096, msg_uint(m, QPU_A_CLIENT_BO_BYTES));
			EXPECT_EQ(1, msg_uint(m, QPU_A_CLIENT_JOBS_SUBMITTED));
		} else if (msg_uint(m, QPU_A_CLIENT_BO_COUNT) == 0) {
			found0++;
			EXPECT_EQ(0, msg_uint(m, QPU_A_CLIENT_BO_BYTES));
			EXPECT_EQ(0, msg_uint(m, QPU_A_CLIENT_JOBS_SUBMITTED));
		}
	}
	EXPECT_EQ(2, mine);
	EXPECT_EQ(1, found5);
	EXPECT_EQ(1, found0);
	EXPECT_EQ(0, self->r.intr);

	/* Closed, the second file is gone from the list. */
	close(fd2);
	req_start(&self->q, self->nl.family, NLM_F_DUMP, QPU_CMD_CLIENT_GET);
	req_put_u32(&self->q, QPU_A_CLIENT_DEV_INDEX, 0);
	ASSERT_EQ(0, nl_request(&self->nl, &self->q, &self->r));
	for (i = 0, mine = 0; i < self->r.count; i++)
		mine += msg_uint(reply_msg(&self->r, i), QPU_A_CLIENT_PID) ==
			(__u64)getpid();
	EXPECT_EQ(1, mine);
}

/*
 * 2. A requester in another pid namespace sees that files are open, with
 * their counters, but not which process opened them: PID 0 and no COMM.
 */
TEST_F(nl, client_names_stay_in_their_pid_namespace)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		pid_t inner;

		/* The next child is pid 1 of a new namespace (EINVAL: none). */
		if (unshare(CLONE_NEWPID))
			_exit(errno == EINVAL ? 99 : 100);
		inner = fork();
		if (inner < 0)
			_exit(101);
		if (inner == 0) {
			struct nl nl;
			struct req q;
			static struct reply r;
			int i, fails = 0;

			/* Root: another user sees none of root's files (test 5). */
			if (nl_open(&nl))
				_exit(102);
			req_start(&q, nl.family, NLM_F_DUMP, QPU_CMD_CLIENT_GET);
			if (nl_request(&nl, &q, &r) || r.count < 1)
				_exit(103);
			for (i = 0; i < r.count; i++) {
				struct nlmsghdr *m = reply_msg(&r, i);

				fails |= msg_uint(m, QPU_A_CLIENT_PID) != 0;
				fails |= (msg_attr(m, QPU_A_CLIENT_COMM) != NULL) << 1;
				fails |= (msg_attr(m, QPU_A_CLIENT_ID) == NULL) << 2;
			}
			_exit(fails);
		}
		_exit(waitpid(inner, &status, 0) == inner && WIFEXITED(status) ?
		      WEXITSTATUS(status) : 104);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == 99)
		SKIP(return, "the kernel has no pid namespaces (CONFIG_PID_NS)");
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* 3. CLIENT_GET as a do: by id, by pid, on a device; -ENOENT for none. */
TEST_F(nl, client_get_by_id_and_pid)
{
	int fd2 = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	__u32 id, id2;
	struct nlmsghdr *m;

	ASSERT_LE(0, fd2);
	id = my_client_id(&self->nl, &self->q, &self->r, 5);
	id2 = my_client_id(&self->nl, &self->q, &self->r, 0);
	ASSERT_NE(0, id);
	ASSERT_NE(0, id2);
	/* Opened later: a larger number. */
	EXPECT_LT(id, id2);

	req_start(&self->q, self->nl.family, 0, QPU_CMD_CLIENT_GET);
	req_put_u32(&self->q, QPU_A_CLIENT_ID, id2);
	ASSERT_EQ(0, nl_request(&self->nl, &self->q, &self->r)) TH_LOG("%s", self->r.msg);
	ASSERT_EQ(1, self->r.count);
	m = reply_msg(&self->r, 0);
	EXPECT_EQ(QPU_CMD_CLIENT_GET, msg_cmd(m));
	EXPECT_EQ(id2, msg_uint(m, QPU_A_CLIENT_ID));
	EXPECT_EQ((__u64)getpid(), msg_uint(m, QPU_A_CLIENT_PID));
	EXPECT_EQ(0, msg_uint(m, QPU_A_CLIENT_BO_COUNT));

	/* By pid: the process's oldest file. */
	req_start(&self->q, self->nl.family, 0, QPU_CMD_CLIENT_GET);
	req_put_u32(&self->q, QPU_A_CLIENT_PID, getpid());
	req_put_u32(&self->q, QPU_A_CLIENT_DEV_INDEX, 0);
	ASSERT_EQ(0, nl_request(&self->nl, &self->q, &self->r)) TH_LOG("%s", self->r.msg);
	ASSERT_EQ(1, self->r.count);
	EXPECT_EQ(id, msg_uint(reply_msg(&self->r, 0), QPU_A_CLIENT_ID));

	/* Id and pid that do not go together. */
	req_start(&self->q, self->nl.family, 0, QPU_CMD_CLIENT_GET);
	req_put_u32(&self->q, QPU_A_CLIENT_ID, id2);
	req_put_u32(&self->q, QPU_A_CLIENT_PID, getppid());
	EXPECT_EQ(-ENOENT, nl_request(&self->nl, &self->q, &self->r));
	EXPECT_STREQ("qpu: no such client", self->r.msg);

	/* The dump filters by pid and by id too. */
	req_start(&self->q, self->nl.family, NLM_F_DUMP, QPU_CMD_CLIENT_GET);
	req_put_u32(&self->q, QPU_A_CLIENT_PID, getpid());
	ASSERT_EQ(0, nl_request(&self->nl, &self->q, &self->r));
	EXPECT_EQ(2, self->r.count);
	req_start(&self->q, self->nl.family, NLM_F_DUMP, QPU_CMD_CLIENT_GET);
	req_put_u32(&self->q, QPU_A_CLIENT_ID, id);
	ASSERT_EQ(0, nl_request(&self->nl, &self->q, &self->r));
	ASSERT_EQ(1, self->r.count);
	EXPECT_EQ(5, msg_uint(reply_msg(&self->r, 0), QPU_A_CLIENT_BO_COUNT));

	/* Closed, the file is gone: no such client. */
	close(fd2);
	req_start(&self->q, self->nl.family, 0, QPU_CMD_CLIENT_GET);
	req_put_u32(&self->q, QPU_A_CLIENT_ID, id2);
	EXPECT_EQ(-ENOENT, nl_request(&self->nl, &self->q, &self->r));
	EXPECT_STREQ("qpu: no such client", self->r.msg);
	req_start(&self->q, self->nl.family, NLM_F_DUMP, QPU_CMD_CLIENT_GET);
	req_put_u32(&self->q, QPU_A_CLIENT_ID, id2);
	ASSERT_EQ(0, nl_request(&self->nl, &self->q, &self->r));
	EXPECT_EQ(0, self->r.count);
}

/* 4. CLIENT_GET's do refuses what names no file, or names it badly. */
TEST_F(nl, client_get_refusals)
{
	__u64 big = 1;

	/* Neither id nor pid. */
	req_start(&self->q, self->nl.family, 0, QPU_CMD_CLIENT_GET);
	EXPECT_EQ(-EINVAL, nl_request(&self->nl, &self->q, &self->r));
	EXPECT_STREQ("qpu: missing client id or pid", self->r.msg);
	EXPECT_EQ(QPU_A_CLIENT_ID, self->r.miss_type);
	req_start(&self->q, self->nl.family, 0, QPU_CMD_CLIENT_GET);
	req_put_u32(&self->q, QPU_A_CLIENT_DEV_INDEX, 0);
	EXPECT_EQ(-EINVAL, nl_request(&self->nl, &self->q, &self->r));
	EXPECT_STREQ("qpu: missing client id or pid", self->r.msg);

	/* An id or a pid that no open file has. */
	req_start(&self->q, self->nl.family, 0, QPU_CMD_CLIENT_GET);
	req_put_u32(&self->q, QPU_A_CLIENT_ID, 0xfffffff0);
	EXPECT_EQ(-ENOENT, nl_request(&self->nl, &self->q, &self->r));
	EXPECT_STREQ("qpu: no such client", self->r.msg);
	req_start(&self->q, self->nl.family, 0, QPU_CMD_CLIENT_GET);
	req_put_u32(&self->q, QPU_A_CLIENT_PID, 0x7ffffff0);
	EXPECT_EQ(-ENOENT, nl_request(&self->nl, &self->q, &self->r));

	/* 0 is no id and no pid. */
	req_start(&self->q, self->nl.family, 0, QPU_CMD_CLIENT_GET);
	req_put_u32(&self->q, QPU_A_CLIENT_ID, 0);
	EXPECT_EQ(-ERANGE, nl_request(&self->nl, &self->q, &self->r));
	EXPECT_STREQ("integer out of range", self->r.msg);
	req_start(&self->q, self->nl.family, NLM_F_DUMP, QPU_CMD_CLIENT_GET);
	req_put_u32(&self->q, QPU_A_CLIENT_PID, 0);
	EXPECT_EQ(-ERANGE, nl_request(&self->nl, &self->q, &self->r));

	/* Wrong lengths. */
	req_start(&self->q, self->nl.family, 0, QPU_CMD_CLIENT_GET);
	req_put_u64(&self->q, QPU_A_CLIENT_ID, big);
	EXPECT_EQ(-EINVAL, nl_request(&self->nl, &self->q, &self->r));
	EXPECT_STREQ("invalid attribute length", self->r.msg);
	req_start(&self->q, self->nl.family, 0, QPU_CMD_CLIENT_GET);
	req_put(&self->q, QPU_A_CLIENT_PID, &big, 2);
	EXPECT_EQ(-EINVAL, nl_request(&self->nl, &self->q, &self->r));
	EXPECT_STREQ("invalid attribute length", self->r.msg);

	/* Reply-only attributes are not requests. */
	req_start(&self->q, self->nl.family, 0, QPU_CMD_CLIENT_GET);
	req_put_u32(&self->q, QPU_A_CLIENT_ID, 1);
	req_put_u32(&self->q, QPU_A_CLIENT_BO_COUNT, 1);
	EXPECT_EQ(-EINVAL, nl_request(&self->nl, &self->q, &self->r));
	EXPECT_STREQ("Unsupported attribute", self->r.msg);

	/* A device that does not exist. */
	req_start(&self->q, self->nl.family, 0, QPU_CMD_CLIENT_GET);
	req_put_u32(&self->q, QPU_A_CLIENT_ID, 1);
	req_put_u32(&self->q, QPU_A_CLIENT_DEV_INDEX, 7);
	EXPECT_EQ(-ENODEV, nl_request(&self->nl, &self->q, &self->r));
	EXPECT_STREQ("qpu: no such device", self->r.msg);
}

/*
 * 5. Without CAP_NET_ADMIN or CAP_SYS_ADMIN a user sees its own files only
 * (as hidepid's users expect), not root's open beside them, and STATS_GET
 * without the per-QPU counts, which tell what others run; root sees both.
 */
TEST_F(nl, other_users_files_and_qpu_counts_hidden)
{
	struct nlmsghdr *m;
	int status, i, qpus = 0;
	pid_t pid;

	req_start(&self->q, self->nl.family, 0, QPU_CMD_STATS_GET);
	req_put_u32(&self->q, QPU_A_STATS_DEV_INDEX, 0);
	ASSERT_EQ(0, nl_request(&self->nl, &self->q, &self->r)) TH_LOG("%s", self->r.msg);
	ASSERT_EQ(1, self->r.count);
	m = reply_msg(&self->r, 0);
	EXPECT_NE(NULL, msg_attr(m, QPU_A_STATS_QPU));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct nl nl;
		struct req q;
		static struct reply r;
		int fd, fails = 0;

		if (setgid(65534) || setuid(65534) || nl_open(&nl))
			_exit(100);
		fd = open(QPU_NODE, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			_exit(101);
		req_start(&q, nl.family, NLM_F_DUMP, QPU_CMD_CLIENT_GET);
		if (nl_request(&nl, &q, &r))
			_exit(102);
		fails |= r.count != 1;
		for (i = 0; i < r.count; i++)
			fails |= (msg_uint(reply_msg(&r, i), QPU_A_CLIENT_PID) !=
				  (__u64)getpid()) << 1;
		req_start(&q, nl.family, 0, QPU_CMD_STATS_GET);
		req_put_u32(&q, QPU_A_STATS_DEV_INDEX, 0);
		if (nl_request(&nl, &q, &r) || r.count != 1)
			_exit(103);
		fails |= (msg_attr(reply_msg(&r, 0), QPU_A_STATS_QPU) != NULL) << 2;
		close(fd);
		_exit(fails);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));

	/* Root sees its own file and everyone's. */
	req_start(&self->q, self->nl.family, NLM_F_DUMP, QPU_CMD_CLIENT_GET);
	ASSERT_EQ(0, nl_request(&self->nl, &self->q, &self->r));
	for (i = 0; i < self->r.count; i++)
		qpus += msg_uint(reply_msg(&self->r, i), QPU_A_CLIENT_PID) ==
			(__u64)getpid();
	EXPECT_LE(1, qpus);
}

TEST_HARNESS_MAIN
