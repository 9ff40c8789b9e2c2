// SPDX-License-Identifier: GPL-2.0
/*
 * The qpu generic-netlink family, spoken over a raw netlink socket with
 * messages built by hand (so malformed ones can be built too): every
 * command and its answers against GET_PARAM, debugfs and the module
 * parameters; dumps; refusals with their errno and extended-ack text;
 * admin commands and the events group refused to an unprivileged user;
 * events on a forced hang, a fault and a reset asked over netlink; busy
 * time and per-QPU instruction counts against WAIT's; a client found by
 * id and by pid; the do and dump forms of every GET.
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

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/qpu.h>

#include "kselftest_harness.h"
#include "qpu_programs.h"
#include "qpu_util.h"

#define DEBUGFS QPU_DEBUGFS
#define PARAMS QPU_PARAMS

/* --- raw generic netlink ------------------------------------------------- */

#define MSG_SIZE	4096
#define REPLY_SIZE	65536
#define NO_VALUE	(~0ull)

struct req {
	union {
		struct nlmsghdr nlh;
		char buf[MSG_SIZE];
	};
};

/* What one request brought back. */
struct reply {
	int err;		/* 0 or -errno */
	char msg[256];		/* the extended ack's message, or "" */
	int offs;		/* offset of the bad attribute, or -1 */
	int miss_type;		/* the missing attribute, or -1 */
	int count;		/* data messages in @data */
	int intr;		/* a part carried NLM_F_DUMP_INTR */
	size_t len;
	char data[REPLY_SIZE] __attribute__((aligned(4)));
};

struct nl {
	int fd;
	__u16 family;
	__u32 events_group;
	__u32 seq;
};

static struct nlmsghdr *req_start(struct req *r, __u16 type, __u16 flags,
				  __u8 cmd)
{
	struct genlmsghdr *g;

	memset(r, 0, sizeof(*r));
	r->nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->nlh.nlmsg_type = type;
	r->nlh.nlmsg_flags = NLM_F_REQUEST | flags;
	g = NLMSG_DATA(&r->nlh);
	g->cmd = cmd;
	g->version = QPU_GENL_VERSION;
	return &r->nlh;
}

static void req_put(struct req *r, __u16 type, const void *data, __u16 len)
{
	struct nlattr *a = (void *)(r->buf + NLMSG_ALIGN(r->nlh.nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	r->nlh.nlmsg_len = NLMSG_ALIGN(r->nlh.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static void req_put_u32(struct req *r, __u16 type, __u32 v)
{
	req_put(r, type, &v, sizeof(v));
}

static void req_put_u64(struct req *r, __u16 type, __u64 v)
{
	req_put(r, type, &v, sizeof(v));
}

static struct nlattr *attr_next(struct nlattr *a, int *rem)
{
	*rem -= NLA_ALIGN(a->nla_len);
	return (void *)((char *)a + NLA_ALIGN(a->nla_len));
}

static int attr_ok(const struct nlattr *a, int rem)
{
	return rem >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= rem;
}

/* The attribute @type among the @len bytes at @head, or NULL. */
static struct nlattr *attr_find(void *head, int len, __u16 type)
{
	struct nlattr *a = head;

	for (; attr_ok(a, len); a = attr_next(a, &len))
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
	return NULL;
}

static struct nlattr *msg_attr(struct nlmsghdr *nlh, __u16 type)
{
	return attr_find((char *)NLMSG_DATA(nlh) + GENL_HDRLEN,
			 nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN), type);
}

/* A u32 or u64 attribute of a message, or NO_VALUE. */
static __u64 msg_uint(struct nlmsghdr *nlh, __u16 type)
{
	struct nlattr *a = msg_attr(nlh, type);
	__u64 v64;
	__u32 v32;

	if (a && a->nla_len == NLA_HDRLEN + 4) {
		memcpy(&v32, (char *)a + NLA_HDRLEN, 4);
		return v32;
	}
	if (a && a->nla_len == NLA_HDRLEN + 8) {
		memcpy(&v64, (char *)a + NLA_HDRLEN, 8);
		return v64;
	}
	return NO_VALUE;
}

/*
 * The QPU_A_STATS_QPU nests of a stats message: how many, whether their
 * indexes run 0, 1, 2..., and the sum of their instruction counts.
 */
static int msg_qpus(struct nlmsghdr *nlh, __u64 *sum, int *in_order)
{
	int len = nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN), n = 0, rem;
	struct nlattr *a = (void *)((char *)NLMSG_DATA(nlh) + GENL_HDRLEN);
	struct nlattr *idx, *ins;
	__u64 v;
	__u32 q;

	*sum = 0;
	*in_order = 1;
	for (; attr_ok(a, len); a = attr_next(a, &len)) {
		if ((a->nla_type & NLA_TYPE_MASK) != QPU_A_STATS_QPU)
			continue;
		rem = a->nla_len - NLA_HDRLEN;
		idx = attr_find((char *)a + NLA_HDRLEN, rem, QPU_A_QPU_INDEX);
		ins = attr_find((char *)a + NLA_HDRLEN, rem, QPU_A_QPU_INSTRUCTIONS);
		if (!idx || idx->nla_len != NLA_HDRLEN + 4 ||
		    !ins || ins->nla_len != NLA_HDRLEN + 8 ||
		    !(a->nla_type & NLA_F_NESTED))
			return -1;
		memcpy(&q, (char *)idx + NLA_HDRLEN, 4);
		memcpy(&v, (char *)ins + NLA_HDRLEN, 8);
		*in_order &= q == (__u32)n;
		*sum += v;
		n++;
	}
	return n;
}

static const char *msg_str(struct nlmsghdr *nlh, __u16 type)
{
	struct nlattr *a = msg_attr(nlh, type);

	return a ? (const char *)a + NLA_HDRLEN : "";
}

static __u8 msg_cmd(struct nlmsghdr *nlh)
{
	return ((struct genlmsghdr *)NLMSG_DATA(nlh))->cmd;
}

/* The @i-th data message of a reply. */
static struct nlmsghdr *reply_msg(struct reply *r, int i)
{
	struct nlmsghdr *nlh = (void *)r->data;

	while (i--)
		nlh = (void *)((char *)nlh + NLMSG_ALIGN(nlh->nlmsg_len));
	return nlh;
}

static void parse_ack(struct nlmsghdr *nlh, struct reply *r)
{
	struct nlmsgerr *e = NLMSG_DATA(nlh);
	int hdr = sizeof(*e), len;
	struct nlattr *a;

	r->err = e->error;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		hdr += e->msg.nlmsg_len - sizeof(e->msg);
	len = (int)nlh->nlmsg_len - NLMSG_HDRLEN - hdr;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || len <= 0)
		return;
	a = attr_find((char *)e + hdr, len, NLMSGERR_ATTR_MSG);
	if (a)
		snprintf(r->msg, sizeof(r->msg), "%s", (char *)a + NLA_HDRLEN);
	a = attr_find((char *)e + hdr, len, NLMSGERR_ATTR_OFFS);
	if (a)
		memcpy(&r->offs, (char *)a + NLA_HDRLEN, 4);
	a = attr_find((char *)e + hdr, len, NLMSGERR_ATTR_MISS_TYPE);
	if (a)
		memcpy(&r->miss_type, (char *)a + NLA_HDRLEN, 4);
}

/* Sends @q and gathers every answer; returns r->err. */
static int nl_request(struct nl *nl, struct req *q, struct reply *r)
{
	static char buf[REPLY_SIZE] __attribute__((aligned(4)));
	struct nlmsghdr *nlh;
	int n;

	memset(r, 0, offsetof(struct reply, data));
	r->offs = -1;
	r->miss_type = -1;
	q->nlh.nlmsg_seq = ++nl->seq;
	q->nlh.nlmsg_flags |= NLM_F_ACK;
	if (send(nl->fd, q->buf, q->nlh.nlmsg_len, 0) < 0)
		return r->err = -errno;

	for (;;) {
		n = recv(nl->fd, buf, sizeof(buf), 0);
		if (n < 0)
			return r->err = -errno;
		for (nlh = (void *)buf; NLMSG_OK(nlh, n); nlh = NLMSG_NEXT(nlh, n)) {
			if (nlh->nlmsg_seq != q->nlh.nlmsg_seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				parse_ack(nlh, r);
				return r->err;
			}
			if (nlh->nlmsg_type == NLMSG_DONE) {
				memcpy(&r->err, NLMSG_DATA(nlh), sizeof(int));
				return r->err;
			}
			if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
				r->intr = 1;
			if (r->len + NLMSG_ALIGN(nlh->nlmsg_len) > sizeof(r->data))
				return r->err = -ENOBUFS;
			memcpy(r->data + r->len, nlh, nlh->nlmsg_len);
			r->len += NLMSG_ALIGN(nlh->nlmsg_len);
			r->count++;
		}
	}
}

static int nl_socket(void)
{
	struct timeval tv = { .tv_sec = 10 };
	int fd, one = 1;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -1;
	if (setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Opens a socket and resolves the family and its events group. */
static int nl_open(struct nl *nl)
{
	static struct reply r;
	struct nlattr *grps, *g, *a;
	struct nlmsghdr *nlh;
	struct req q;
	int rem;

	memset(nl, 0, sizeof(*nl));
	nl->fd = nl_socket();
	if (nl->fd < 0)
		return -errno;
	req_start(&q, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY);
	((struct genlmsghdr *)NLMSG_DATA(&q.nlh))->version = 1;
	req_put(&q, CTRL_ATTR_FAMILY_NAME, QPU_GENL_NAME, sizeof(QPU_GENL_NAME));
	if (nl_request(nl, &q, &r))
		return r.err;
	if (r.count != 1)
		return -EPROTO;
	nlh = reply_msg(&r, 0);
	a = msg_attr(nlh, CTRL_ATTR_FAMILY_ID);
	if (!a)
		return -EPROTO;
	memcpy(&nl->family, (char *)a + NLA_HDRLEN, 2);
	grps = msg_attr(nlh, CTRL_ATTR_MCAST_GROUPS);
	if (!grps)
		return -EPROTO;
	rem = grps->nla_len - NLA_HDRLEN;
	for (g = (void *)((char *)grps + NLA_HDRLEN); attr_ok(g, rem);
	     g = attr_next(g, &rem)) {
		a = attr_find((char *)g + NLA_HDRLEN, g->nla_len - NLA_HDRLEN,
			      CTRL_ATTR_MCAST_GRP_NAME);
		if (!a || strcmp((char *)a + NLA_HDRLEN, QPU_GENL_MCGRP_EVENTS))
			continue;
		a = attr_find((char *)g + NLA_HDRLEN, g->nla_len - NLA_HDRLEN,
			      CTRL_ATTR_MCAST_GRP_ID);
		if (a)
			memcpy(&nl->events_group, (char *)a + NLA_HDRLEN, 4);
	}
	return nl->events_group ? 0 : -EPROTO;
}

/*
 * A socket joined to the events group, or -errno. It is bound first:
 * broadcasts skip sockets whose port id is the sender's, and an unbound
 * socket's is 0, the kernel's.
 */
static int events_open(struct nl *nl)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK };
	int fd = nl_socket();

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
		       &nl->events_group, sizeof(nl->events_group))) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* Reads events until one of command @cmd; copies it to @out. */
static int event_wait(int fd, __u8 cmd, struct reply *out)
{
	static char buf[MSG_SIZE] __attribute__((aligned(4)));
	struct nlmsghdr *nlh;
	int n;

	for (;;) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0)
			return -errno;
		for (nlh = (void *)buf; NLMSG_OK(nlh, n); nlh = NLMSG_NEXT(nlh, n)) {
			if (nlh->nlmsg_type < NLMSG_MIN_TYPE || msg_cmd(nlh) != cmd)
				continue;
			memcpy(out->data, nlh, nlh->nlmsg_len);
			out->count = 1;
			return 0;
		}
	}
}

/* --- the device ---------------------------------------------------------- */

static __u64 get_param(int fd, __u32 param)
{
	struct qpu_get_param p = { .param = param };

	if (ioctl(fd, QPU_IOCTL_GET_PARAM, &p))
		return NO_VALUE;
	return p.value;
}

/* --- tests --------------------------------------------------------------- */

FIXTURE(nl) {
	struct nl nl;
	int fd;
	struct req q;
	struct reply r;
	struct qpu_test_bo end, loop, tmu, unif, data;
	long long saved[6];
};

/* In the order of enum qpu_a_config, from QPU_A_CONFIG_DEFAULT_TIMEOUT_MS. */
static const char * const config_params[] = {
	"default_timeout_ms", "max_timeout_ms", "max_bo_size",
	"client_mem_limit", "dev_mem_limit", "max_queued_jobs",
};

FIXTURE_SETUP(nl)
{
	char path[128];
	unsigned int i;

	self->fd = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG("open " QPU_NODE ": %s", strerror(errno));
	ASSERT_EQ(0, nl_open(&self->nl))
		TH_LOG("generic netlink family " QPU_GENL_NAME " not found");
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, qpu_prog_end, sizeof(qpu_prog_end), &self->end));
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, qpu_prog_loop, sizeof(qpu_prog_loop), &self->loop));
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, qpu_prog_tmu_read, sizeof(qpu_prog_tmu_read), &self->tmu));
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, NULL, 0, &self->unif));
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, NULL, 0, &self->data));
	ASSERT_EQ(0, qpu_test_write(DEBUGFS "hang", "0"));
	for (i = 0; i < ARRAY_SIZE(config_params); i++) {
		snprintf(path, sizeof(path), PARAMS "%s", config_params[i]);
		self->saved[i] = qpu_test_read_ll(path);
		ASSERT_LT(0, self->saved[i]);
	}
}

FIXTURE_TEARDOWN(nl)
{
	char path[128], value[32];
	unsigned int i;

	qpu_test_write(DEBUGFS "hang", "0");
	for (i = 0; i < ARRAY_SIZE(config_params); i++) {
		snprintf(path, sizeof(path), PARAMS "%s", config_params[i]);
		snprintf(value, sizeof(value), "%lld", self->saved[i]);
		qpu_test_write(path, value);
	}
	close(self->nl.fd);
	close(self->fd);
}

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

/* 3. STATS_GET answers what debugfs says, after a job ran. */
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

/* 4. CLIENT_GET lists each open file with its pid, name, BOs and jobs. */
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
 * A requester in another pid namespace sees that files are open, with their
 * counters, but not which process opened them: PID 0 and no COMM.
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

			if (setgid(65534) || setuid(65534) || nl_open(&nl))
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

/* 5. CONFIG_GET answers what GET_PARAM and the module parameters say. */
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

/* 6. CONFIG_SET changes what GET_PARAM, the parameters and BO_CREATE see. */
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

/* 7. CONFIG_SET refuses values out of range, and an empty request. */
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

/* 8. A doit without its device index, or with an unknown one. */
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

/* 9. Commands the family does not have, and events sent as requests. */
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

/* 10. Unknown attributes, wrong lengths, wrong types, header fields. */
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

/* 11. Without CAP_NET_ADMIN: reads work, admin commands and events do not. */
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

/* 12. A forced hang sends a timeout event, then a reset event. */
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

/* 12b. A real hang (an endless loop) leaves a snapshot for HANG_GET. */
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

/* 13. A fault sends a fault event naming the QPU and the address. */
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

/* 14. DEV_RESET resets an idle V3D: counted, announced, jobs run after. */
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

/* 15. DEV_RESET during a running job cancels it; the next job runs. */
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

/* 16. Per-QPU instructions grow by what WAIT says each job issued. */
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

/* 17. Busy time counts a running job, and then its whole run. */
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

/* 18. CLIENT_GET as a do: by id, by pid, on a device; -ENOENT for none. */
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

/* 19. CLIENT_GET's do refuses what names no file, or names it badly. */
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

/* 20. The new attributes of STATS and DEV are answers, never requests. */
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

/* 21. CONFIG_GET and HANG_GET answer as dumps too, as every GET does. */
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

/* 22. Without CAP_NET_ADMIN: the new reads work, the HANG_GET dump not. */
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
		fails |= (r.count != 1 ||
			  msg_qpus(reply_msg(&r, 0), &sum, &in_order) != 12) << 1;

		req_start(&q, nl.family, 0, QPU_CMD_CLIENT_GET);
		req_put_u32(&q, QPU_A_CLIENT_PID, parent);
		fails |= (nl_request(&nl, &q, &r) != 0) << 2;

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
 * 23. The telemetry's attributes are answers, never requests, and its
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
