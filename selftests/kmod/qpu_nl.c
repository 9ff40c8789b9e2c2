// SPDX-License-Identifier: GPL-2.0
/*
 * Raw generic netlink for the kselftests and the stress programs; qpu_nl.h
 * says what each function does.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/qpu.h>

#include "qpu_nl.h"

struct nlmsghdr *req_start(struct req *r, __u16 type, __u16 flags,
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

int req_put_raw(struct req *r, __u16 type, __u16 nla_len, const void *data,
		__u16 len)
{
	__u32 at = NLMSG_ALIGN(r->nlh.nlmsg_len);
	struct nlattr *a = (void *)(r->buf + at);

	if (at + NLA_HDRLEN + NLA_ALIGN(len) > sizeof(r->buf))
		return -1;
	a->nla_type = type;
	a->nla_len = nla_len;
	if (len)
		memcpy((char *)a + NLA_HDRLEN, data, len);
	r->nlh.nlmsg_len = at + NLA_HDRLEN + NLA_ALIGN(len);
	return 0;
}

int req_put(struct req *r, __u16 type, const void *data, __u16 len)
{
	return req_put_raw(r, type, NLA_HDRLEN + len, data, len);
}

int req_put_u32(struct req *r, __u16 type, __u32 v)
{
	return req_put(r, type, &v, sizeof(v));
}

int req_put_u64(struct req *r, __u16 type, __u64 v)
{
	return req_put(r, type, &v, sizeof(v));
}

struct nlattr *attr_next(struct nlattr *a, int *rem)
{
	*rem -= NLA_ALIGN(a->nla_len);
	return (void *)((char *)a + NLA_ALIGN(a->nla_len));
}

int attr_ok(const struct nlattr *a, int rem)
{
	return rem >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= rem;
}

struct nlattr *attr_find(void *head, int len, __u16 type)
{
	struct nlattr *a = head;

	for (; attr_ok(a, len); a = attr_next(a, &len))
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
	return NULL;
}

struct nlattr *msg_attr(struct nlmsghdr *nlh, __u16 type)
{
	return attr_find((char *)NLMSG_DATA(nlh) + GENL_HDRLEN,
			 nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN), type);
}

__u64 msg_uint(struct nlmsghdr *nlh, __u16 type)
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

int msg_qpus(struct nlmsghdr *nlh, __u64 *sum, int *in_order)
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

const char *msg_str(struct nlmsghdr *nlh, __u16 type)
{
	struct nlattr *a = msg_attr(nlh, type);

	return a ? (const char *)a + NLA_HDRLEN : "";
}

__u8 msg_cmd(struct nlmsghdr *nlh)
{
	return ((struct genlmsghdr *)NLMSG_DATA(nlh))->cmd;
}

struct nlmsghdr *reply_msg(struct reply *r, int i)
{
	struct nlmsghdr *nlh = (void *)r->data;

	while (i--)
		nlh = (void *)((char *)nlh + NLMSG_ALIGN(nlh->nlmsg_len));
	return nlh;
}

void parse_ack(struct nlmsghdr *nlh, struct reply *r)
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

/* One answer to request @seq: 1 when it ends the exchange, else 0. */
static int nl_answer(struct nlmsghdr *nlh, struct reply *r, int *parts,
		     int *err)
{
	if (nlh->nlmsg_type == NLMSG_ERROR) {
		if (r) {
			parse_ack(nlh, r);
			*err = r->err;
		} else {
			memcpy(err, NLMSG_DATA(nlh), sizeof(int));
		}
		return 1;
	}
	if (nlh->nlmsg_type == NLMSG_DONE) {
		/* NLMSG_DONE ends a dump: no ack follows it. */
		memcpy(err, NLMSG_DATA(nlh), sizeof(int));
		return 1;
	}
	(*parts)++;
	if (!r)
		return 0;
	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		r->intr = 1;
	if (r->len + NLMSG_ALIGN(nlh->nlmsg_len) > sizeof(r->data)) {
		*err = -ENOBUFS;
		return 1;
	}
	memcpy(r->data + r->len, nlh, nlh->nlmsg_len);
	r->len += NLMSG_ALIGN(nlh->nlmsg_len);
	return 0;
}

int nl_transact(int fd, struct req *q, __u32 seq, int ms, struct reply *r,
		int *parts)
{
	/* Per thread: the fuzzer and the stress test share nothing. */
	static __thread char buf[REPLY_SIZE] __attribute__((aligned(8)));
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct nlmsghdr *nlh;
	int n, err = 0;

	*parts = 0;
	q->nlh.nlmsg_seq = seq;
	q->nlh.nlmsg_flags |= NLM_F_ACK;
	if (send(fd, q->buf, q->nlh.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		if (ms >= 0 && poll(&p, 1, ms) <= 0)
			return -ETIME;
		n = recv(fd, buf, sizeof(buf), ms >= 0 ? MSG_DONTWAIT : 0);
		if (n < 0) {
			if (ms >= 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			return -errno;
		}
		for (nlh = (void *)buf; NLMSG_OK(nlh, n); nlh = NLMSG_NEXT(nlh, n))
			if (nlh->nlmsg_seq == seq && nl_answer(nlh, r, parts, &err))
				return err;
	}
}

int nl_request(struct nl *nl, struct req *q, struct reply *r)
{
	memset(r, 0, offsetof(struct reply, data));
	r->offs = -1;
	r->miss_type = -1;
	return r->err = nl_transact(nl->fd, q, ++nl->seq, -1, r, &r->count);
}

int nl_socket(void)
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

int nl_resolve(struct nl *nl)
{
	static __thread struct reply r;
	struct nlattr *grps, *g, *a;
	struct nlmsghdr *nlh;
	struct req q;
	int rem;

	nl->family = 0;
	nl->events_group = 0;
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
		return 0;
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
	return 0;
}

int nl_open(struct nl *nl)
{
	int err;

	memset(nl, 0, sizeof(*nl));
	nl->fd = nl_socket();
	if (nl->fd < 0)
		return -errno;
	err = nl_resolve(nl);
	if (err)
		return err;
	return nl->events_group ? 0 : -EPROTO;
}

int events_open(struct nl *nl)
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

int event_wait(int fd, __u8 cmd, struct reply *out)
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

__u64 get_param(int fd, __u32 param)
{
	struct qpu_get_param p = { .param = param };

	if (ioctl(fd, QPU_IOCTL_GET_PARAM, &p))
		return NO_VALUE;
	return p.value;
}
