// SPDX-License-Identifier: MIT
/*
 * qpuctl's netlink: the socket bound to the qpu family, and the one helper
 * every command sends its request through. It gathers the parts of a dump,
 * parses each message's attributes for the command's callback, prints the
 * kernel's extended-ack message as "Error: ..." and returns -errno.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/netlink.h>
#include <linux/qpu.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "qpuctl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

/* The state of one request, shared by its callbacks. */
struct qpu_nl_req {
	struct qpu_nl *nl;
	int maxattr;
	qpu_nl_msg_fn fn;
	void *arg;
	int err;
	bool done;
	bool intr;
};

void qpu_nl_open(struct qpu_nl *nl)
{
	int one = 1, ret;

	memset(nl, 0, sizeof(*nl));
	nl->sk = nl_socket_alloc();
	if (!nl->sk)
		die_errno(ENOMEM, "netlink socket");
	ret = genl_connect(nl->sk);
	if (ret)
		die("netlink socket: %s", nl_geterror(ret));
	/* Best effort: without it, errors come without their reason. */
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	nl->family = genl_ctrl_resolve(nl->sk, QPU_GENL_NAME);
	if (nl->family < 0)
		die(QPU_GENL_NAME ": generic netlink family not found: is qpu.ko loaded? (a Pi 4's or 5's GPU is the v3d driver's: qpuctl v3d)");
}

void qpu_nl_close(struct qpu_nl *nl)
{
	nl_socket_free(nl->sk);
	nl->sk = NULL;
}

struct nl_msg *qpu_nl_msg(struct qpu_nl *nl, uint8_t cmd, bool dump)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg || !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0,
				 dump ? NLM_F_DUMP : 0, cmd, QPU_GENL_VERSION))
		die_errno(ENOMEM, "netlink message");
	return msg;
}

void qpu_nl_put_u32(struct nl_msg *msg, int type, uint32_t value)
{
	if (nla_put_u32(msg, type, value))
		die_errno(EMSGSIZE, "netlink message");
}

void qpu_nl_put_u64(struct nl_msg *msg, int type, uint64_t value)
{
	if (nla_put_u64(msg, type, value))
		die_errno(EMSGSIZE, "netlink message");
}

/* A u32 or u64 attribute's value; 0 when absent. */
uint64_t qpu_nl_uint(const struct nlattr *attr)
{
	if (!attr)
		return 0;
	if (nla_len(attr) == sizeof(uint64_t))
		return nla_get_u64((struct nlattr *)attr);
	if (nla_len(attr) == sizeof(uint32_t))
		return nla_get_u32((struct nlattr *)attr);
	return 0;
}

/* A string attribute's value; "" when absent or not terminated. */
const char *qpu_nl_str(const struct nlattr *attr)
{
	const char *s;

	if (!attr || nla_len(attr) < 1)
		return "";
	s = nla_data(attr);
	return s[nla_len(attr) - 1] ? "" : s;
}

/* Prints the message of an extended ack's attributes, if it has one. */
void qpu_nl_parse_ext_ack(struct qpu_nl *nl, void *tlvs, int len)
{
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	const char *msg;

	if (len <= 0 || nla_parse(tb, NLMSGERR_ATTR_MAX, tlvs, len, NULL))
		return;
	msg = qpu_nl_str(tb[NLMSGERR_ATTR_MSG]);
	if (!*msg)
		return;
	fprintf(stderr, "Error: %s\n", msg);
	nl->ext_printed = true;
}

/* The reply message a qpu_nl_msg_fn is handling, for qpu_nl_attrs(). */
static struct nlmsghdr *qpu_nl_cur;

/**
 * qpu_nl_attrs() - every attribute of the reply being handled
 * @len: where their length in bytes goes
 *
 * For attributes that come more than once (tb holds only the last one).
 * Valid only inside a qpu_nl_msg_fn.
 *
 * Return: the first attribute.
 */
struct nlattr *qpu_nl_attrs(int *len)
{
	*len = genlmsg_attrlen(nlmsg_data(qpu_nl_cur), 0);
	return genlmsg_attrdata(nlmsg_data(qpu_nl_cur), 0);
}

static int qpu_nl_valid_cb(struct nl_msg *msg, void *arg)
{
	struct qpu_nl_req *req = arg;
	struct nlattr *tb[req->maxattr + 1];

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, req->maxattr, NULL)) {
		req->err = -EPROTO;
		return NL_STOP;
	}
	qpu_nl_cur = nlmsg_hdr(msg);
	req->err = req->fn ? req->fn(tb, req->arg) : 0;
	qpu_nl_cur = NULL;
	return req->err ? NL_STOP : NL_OK;
}

/* The end of a dump; a dump that failed carries its error and ack here. */
static int qpu_nl_finish_cb(struct nl_msg *msg, void *arg)
{
	struct qpu_nl_req *req = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	int len = nlmsg_datalen(nlh), err;

	req->done = true;
	if (len < (int)sizeof(int))
		return NL_STOP;
	memcpy(&err, nlmsg_data(nlh), sizeof(err));
	if (err < 0) {
		req->err = err;
		if (nlh->nlmsg_flags & NLM_F_ACK_TLVS)
			qpu_nl_parse_ext_ack(req->nl, (char *)nlmsg_data(nlh) + sizeof(int),
					     len - (int)sizeof(int));
	}
	return NL_STOP;
}

static int qpu_nl_ack_cb(struct nl_msg *msg, void *arg)
{
	struct qpu_nl_req *req = arg;

	req->done = true;
	return NL_STOP;
}

static int qpu_nl_intr_cb(struct nl_msg *msg, void *arg)
{
	struct qpu_nl_req *req = arg;

	req->intr = true;
	return NL_OK;
}

static int qpu_nl_error_cb(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct qpu_nl_req *req = arg;
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	int off = sizeof(*e);

	req->err = e->error;
	req->done = true;
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			off += e->msg.nlmsg_len - NLMSG_HDRLEN;
		qpu_nl_parse_ext_ack(req->nl, (char *)e + off,
				     (int)nlh->nlmsg_len - NLMSG_HDRLEN - off);
	}
	return NL_STOP;
}

/**
 * qpu_nl_request() - send a request and read its whole answer
 * @nl: the socket
 * @msg: the request, from qpu_nl_msg(); freed here
 * @maxattr: the highest attribute of the reply's attribute set
 * @fn: called for each reply message (NULL: none expected)
 * @arg: passed to @fn
 *
 * Return: 0, or a negative errno from the kernel, from @fn or from the
 * socket. The kernel's extended-ack message, if any, is on stderr.
 */
int qpu_nl_request(struct qpu_nl *nl, struct nl_msg *msg, int maxattr,
		   qpu_nl_msg_fn fn, void *arg)
{
	struct qpu_nl_req req = {
		.nl = nl, .maxattr = maxattr, .fn = fn, .arg = arg,
	};
	struct nl_cb *cb;
	int ret;

	nl->ext_printed = false;
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb)
		die_errno(ENOMEM, "netlink callbacks");
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, qpu_nl_valid_cb, &req);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, qpu_nl_finish_cb, &req);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, qpu_nl_ack_cb, &req);
	nl_cb_set(cb, NL_CB_DUMP_INTR, NL_CB_CUSTOM, qpu_nl_intr_cb, &req);
	nl_cb_err(cb, NL_CB_CUSTOM, qpu_nl_error_cb, &req);

	ret = nl_send_auto(nl->sk, msg);
	nlmsg_free(msg);
	if (ret < 0) {
		req.err = -EIO;
		goto out;
	}
	while (!req.done && !req.err) {
		ret = nl_recvmsgs(nl->sk, cb);
		if (ret < 0 && !req.err)
			req.err = ret == -NLE_NOMEM ? -ENOMEM : -EIO;
	}
	if (req.intr && !req.err)
		fprintf(stderr, "qpuctl: warning: the list changed while it was read; it may be inconsistent\n");
out:
	nl_cb_put(cb);
	return req.err;
}

/* Ends the run after a failed request; the ack's message says why, if any. */
void qpu_nl_die(struct qpu_nl *nl, int err, const char *what)
{
	if (nl->ext_printed)
		exit(EXIT_FAILURE);
	die_errno(-err, "%s", what);
}
