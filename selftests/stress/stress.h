/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qpu: helpers of the reliability programs of selftests/stress (qpu_fuzz,
 * qpu_stress, qpu_failinj) that the kselftests do not need: the seeded
 * PRNG and raw generic netlink (messages built by hand, so malformed ones
 * can be built too). Buffers, clocks and the debugfs counters and knobs
 * come from the kselftests' selftests/kmod/qpu_util.h, linked in too.
 */
#ifndef QPU_STRESS_H
#define QPU_STRESS_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/qpu.h>

#include "../kmod/qpu_util.h"

/* --- PRNG: splitmix64 seeding a xorshift64* stream ---------------------- */

static inline uint64_t rng_seed(uint64_t s)
{
	s += 0x9e3779b97f4a7c15ull;
	s = (s ^ (s >> 30)) * 0xbf58476d1ce4e5b9ull;
	s = (s ^ (s >> 27)) * 0x94d049bb133111ebull;
	s ^= s >> 31;
	return s ? s : 1;
}

static inline uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

/* Uniform in [0, n) (n > 0; the bias is irrelevant here). */
static inline uint32_t rng_below(uint64_t *s, uint32_t n)
{
	return (uint32_t)((rng_next(s) >> 32) % n);
}

/* True with probability 1/n. */
static inline int rng_one_in(uint64_t *s, uint32_t n)
{
	return rng_below(s, n) == 0;
}

/* --- raw generic netlink ---------------------------------------------------- */

#define NLBUF_SIZE	4096

struct nlmsg {
	union {
		struct nlmsghdr nlh;
		char buf[NLBUF_SIZE];
	};
};

static inline void nl_start(struct nlmsg *m, uint16_t type, uint16_t flags,
			    uint8_t cmd, uint8_t version)
{
	struct genlmsghdr *g;

	memset(m, 0, sizeof(*m));
	m->nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	m->nlh.nlmsg_type = type;
	m->nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	g = NLMSG_DATA(&m->nlh);
	g->cmd = cmd;
	g->version = version;
}

/* Appends an attribute; @nla_len may lie about @len (fuzzing). */
static inline int nl_put_raw(struct nlmsg *m, uint16_t type, uint16_t nla_len,
			     const void *data, uint16_t len)
{
	uint32_t at = NLMSG_ALIGN(m->nlh.nlmsg_len);
	struct nlattr *a = (void *)(m->buf + at);

	if (at + NLA_HDRLEN + NLA_ALIGN(len) > sizeof(m->buf))
		return -1;
	a->nla_type = type;
	a->nla_len = nla_len;
	if (len)
		memcpy((char *)a + NLA_HDRLEN, data, len);
	m->nlh.nlmsg_len = at + NLA_HDRLEN + NLA_ALIGN(len);
	return 0;
}

static inline int nl_put(struct nlmsg *m, uint16_t type, const void *data,
			 uint16_t len)
{
	return nl_put_raw(m, type, NLA_HDRLEN + len, data, len);
}

static inline int nl_socket(void)
{
	struct timeval tv = { .tv_sec = 5 };
	int fd, one = 1;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

/*
 * Sends @m (seq @seq) and reads answers until its ack, the NLMSG_DONE
 * that ends a dump, or @ms of silence. Returns the ack's or the DONE's
 * error (0 or -errno), -ETIME on silence, or a send/recv -errno (the
 * socket's error, e.g. -ENOBUFS when the kernel could not queue the
 * answer). *@parts counts the data messages.
 */
static inline int nl_transact(int fd, struct nlmsg *m, uint32_t seq, int ms,
			      int *parts)
{
	static __thread char buf[32768] __attribute__((aligned(8)));
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct nlmsghdr *h;
	int n, err;

	*parts = 0;
	m->nlh.nlmsg_seq = seq;
	if (send(fd, m->buf, m->nlh.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		if (poll(&p, 1, ms) <= 0)
			return -ETIME;
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return -errno;
		}
		for (h = (void *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR ||
			    h->nlmsg_type == NLMSG_DONE) {
				/* NLMSG_DONE ends a dump: no ack follows it. */
				memcpy(&err, NLMSG_DATA(h), sizeof(err));
				return err;
			}
			(*parts)++;
		}
	}
}

/* Walks the attributes from @a over @rem bytes (lengths checked). */
#define nla_for_each_raw(a, rem)					\
	for (; (rem) >= NLA_HDRLEN && (a)->nla_len >= NLA_HDRLEN &&	\
	       (a)->nla_len <= (rem);					\
	     (rem) -= NLA_ALIGN((a)->nla_len),				\
	     (a) = (void *)((char *)(a) + NLA_ALIGN((a)->nla_len)))

/* The id of multicast group QPU_GENL_MCGRP_EVENTS in @grps, or 0. */
static inline uint32_t nl_events_group(struct nlattr *grps)
{
	struct nlattr *g = (void *)((char *)grps + NLA_HDRLEN), *a;
	int rem = grps->nla_len - NLA_HDRLEN, arem;

	nla_for_each_raw(g, rem) {
		uint32_t id = 0;
		int named = 0;

		a = (void *)((char *)g + NLA_HDRLEN);
		arem = g->nla_len - NLA_HDRLEN;
		nla_for_each_raw(a, arem) {
			if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_MCAST_GRP_ID)
				memcpy(&id, (char *)a + NLA_HDRLEN, sizeof(id));
			if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_MCAST_GRP_NAME)
				named = !strncmp((char *)a + NLA_HDRLEN,
						 QPU_GENL_MCGRP_EVENTS,
						 a->nla_len - NLA_HDRLEN);
		}
		if (named)
			return id;
	}
	return 0;
}

/*
 * The id of the generic-netlink family QPU_GENL_NAME, or -errno; the id of
 * its events group goes to @events (when not NULL; 0 if not found).
 */
static inline int nl_family_events(int fd, uint32_t *events)
{
	static __thread char buf[8192] __attribute__((aligned(8)));
	struct nlmsg m;
	struct nlmsghdr *h;
	struct nlattr *a;
	int n, rem, id = -EPROTO;

	if (events)
		*events = 0;
	nl_start(&m, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY, 1);
	m.nlh.nlmsg_flags &= ~NLM_F_ACK;
	nl_put(&m, CTRL_ATTR_FAMILY_NAME, QPU_GENL_NAME, sizeof(QPU_GENL_NAME));
	m.nlh.nlmsg_seq = 1;
	if (send(fd, m.buf, m.nlh.nlmsg_len, 0) < 0)
		return -errno;
	n = recv(fd, buf, sizeof(buf), 0);
	if (n < 0)
		return -errno;
	h = (void *)buf;
	if (!NLMSG_OK(h, n))
		return -EPROTO;
	if (h->nlmsg_type == NLMSG_ERROR) {
		memcpy(&n, NLMSG_DATA(h), sizeof(n));
		return n ? n : -EPROTO;
	}
	rem = (int)h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	a = (void *)((char *)NLMSG_DATA(h) + GENL_HDRLEN);
	nla_for_each_raw(a, rem) {
		if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID) {
			uint16_t v;

			memcpy(&v, (char *)a + NLA_HDRLEN, sizeof(v));
			id = v;
		}
		if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_MCAST_GROUPS &&
		    events)
			*events = nl_events_group(a);
	}
	return id;
}

static inline int nl_family(int fd)
{
	return nl_family_events(fd, NULL);
}

#endif /* QPU_STRESS_H */
