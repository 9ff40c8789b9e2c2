/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw generic netlink (qpu_nl.c): requests built by hand, so malformed
 * ones can be built too, their answers gathered with the extended ack,
 * and the events group. The one copy: linked into every kselftest by
 * kmod.mk and into the stress programs by selftests/stress/stress.mk.
 */
#ifndef QPU_NL_H
#define QPU_NL_H

#include <stddef.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/types.h>

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

struct nlmsghdr *req_start(struct req *r, __u16 type, __u16 flags,
			   __u8 cmd);

/*
 * Appends an attribute whose header says @nla_len (which may lie about
 * @len, for the fuzzer); -1 when it does not fit, else 0.
 */
int req_put_raw(struct req *r, __u16 type, __u16 nla_len, const void *data,
		__u16 len);

int req_put(struct req *r, __u16 type, const void *data, __u16 len);

int req_put_u32(struct req *r, __u16 type, __u32 v);

int req_put_u64(struct req *r, __u16 type, __u64 v);

struct nlattr *attr_next(struct nlattr *a, int *rem);

int attr_ok(const struct nlattr *a, int rem);

/* The attribute @type among the @len bytes at @head, or NULL. */
struct nlattr *attr_find(void *head, int len, __u16 type);

struct nlattr *msg_attr(struct nlmsghdr *nlh, __u16 type);

/* A u32 or u64 attribute of a message, or NO_VALUE. */
__u64 msg_uint(struct nlmsghdr *nlh, __u16 type);

/*
 * The QPU_A_STATS_QPU nests of a stats message: how many, whether their
 * indexes run 0, 1, 2..., and the sum of their instruction counts.
 */
int msg_qpus(struct nlmsghdr *nlh, __u64 *sum, int *in_order);

const char *msg_str(struct nlmsghdr *nlh, __u16 type);

__u8 msg_cmd(struct nlmsghdr *nlh);

/* The @i-th data message of a reply. */
struct nlmsghdr *reply_msg(struct reply *r, int i);

void parse_ack(struct nlmsghdr *nlh, struct reply *r);

/*
 * Sends @q (with an ack asked for) as request @seq on @fd and reads its
 * answers until the ack, the NLMSG_DONE that ends a dump, or @ms of
 * silence (@ms < 0: the socket's receive timeout, an -EAGAIN). *@parts
 * counts the data messages; @r, when not NULL, keeps them and the ack's
 * message. Returns the ack's or the DONE's error (0 or -errno), -ETIME on
 * silence, or send's or recv's -errno (-ENOBUFS: the kernel could not
 * queue an answer). Thread-safe.
 */
int nl_transact(int fd, struct req *q, __u32 seq, int ms, struct reply *r,
		int *parts);

/* Sends @q on @nl with the next seq and gathers every answer; r->err. */
int nl_request(struct nl *nl, struct req *q, struct reply *r);

int nl_socket(void);

/*
 * Resolves the family on the open socket nl->fd, and its events group
 * (0 when there is none); 0 or -errno.
 */
int nl_resolve(struct nl *nl);

/* Opens a socket and resolves the family and its events group. */
int nl_open(struct nl *nl);

/*
 * A socket joined to the events group, or -errno. It is bound first:
 * broadcasts skip sockets whose port id is the sender's, and an unbound
 * socket's is 0, the kernel's.
 */
int events_open(struct nl *nl);

/* Reads events until one of command @cmd; copies it to @out. */
int event_wait(int fd, __u8 cmd, struct reply *out);

__u64 get_param(int fd, __u32 param);

#endif /* QPU_NL_H */
