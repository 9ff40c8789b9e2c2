// SPDX-License-Identifier: MIT
/*
 * The device's telemetry for the pipeline: qpu.ko's last sample (clock as
 * measured, temperature, throttled word) through its generic-netlink
 * family's DEV_GET, read with a plain netlink socket so that libqpu links
 * no netlink library; a v3d node's SoC temperature from the first thermal
 * zone (the upstream v3d driver reports no clock and no throttling); the
 * emulator reports nothing.
 */

#include <errno.h>
#include <fcntl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/qpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pipeline/pipeline_internal.h"

#define THERMAL_ZONE "/sys/class/thermal/thermal_zone0/temp"

struct nl_req {
	struct nlmsghdr n;
	struct genlmsghdr g;
	char attrs[64];
};

static void put_attr(struct nl_req *r, uint16_t type, const void *data, uint16_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)r + NLMSG_ALIGN(r->n.nlmsg_len));

	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((char *)a + NLA_HDRLEN, data, len);
	r->n.nlmsg_len = NLMSG_ALIGN(r->n.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

/* Sends @r and reads its one reply into @buf: the reply's length, or -errno. */
static int nl_talk(int fd, struct nl_req *r, char *buf, size_t size)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	ssize_t n;

	if (sendto(fd, r, r->n.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return -errno;
	n = recv(fd, buf, size, 0);
	if (n < 0)
		return -errno;
	if (!NLMSG_OK(h, (size_t)n))
		return -EPROTO;
	if (h->nlmsg_type == NLMSG_ERROR) {
		struct nlmsgerr *e = NLMSG_DATA(h);

		return e->error ? e->error : -ENODATA;
	}
	return (int)n;
}

/* Calls @fn on each attribute of the genetlink reply in @buf. */
static void each_attr(const char *buf, void (*fn)(const struct nlattr *a, void *ctx), void *ctx)
{
	const struct nlmsghdr *h = (const struct nlmsghdr *)buf;
	const char *p = (const char *)NLMSG_DATA(h) + GENL_HDRLEN;
	const char *end = buf + h->nlmsg_len;

	while (p + NLA_HDRLEN <= end) {
		const struct nlattr *a = (const struct nlattr *)p;

		if (a->nla_len < NLA_HDRLEN || p + a->nla_len > end)
			break;
		fn(a, ctx);
		p += NLA_ALIGN(a->nla_len);
	}
}

/* A u16 or u32 attribute's value (host order, as netlink sends it). */
static uint32_t attr_uint(const struct nlattr *a)
{
	uint16_t v16;
	uint32_t v32;

	if (a->nla_len >= NLA_HDRLEN + 4) {
		memcpy(&v32, (const char *)a + NLA_HDRLEN, 4);
		return v32;
	}
	if (a->nla_len >= NLA_HDRLEN + 2) {
		memcpy(&v16, (const char *)a + NLA_HDRLEN, 2);
		return v16;
	}
	return 0;
}

static void family_attr(const struct nlattr *a, void *ctx)
{
	if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID)
		*(uint16_t *)ctx = (uint16_t)attr_uint(a);
}

static void dev_attr(const struct nlattr *a, void *ctx)
{
	struct qpu_pipeline_telemetry *t = ctx;

	switch (a->nla_type & NLA_TYPE_MASK) {
	case QPU_A_DEV_CLOCK_MEASURED_HZ:
		t->clock_hz = attr_uint(a);
		t->flags |= QPU_PIPELINE_TELEMETRY_CLOCK;
		break;
	case QPU_A_DEV_TEMP_MC:
		t->temp_mc = (int32_t)attr_uint(a);
		t->flags |= QPU_PIPELINE_TELEMETRY_TEMP;
		break;
	case QPU_A_DEV_THROTTLED:
		t->throttled = attr_uint(a);
		t->flags |= QPU_PIPELINE_TELEMETRY_THROTTLED;
		break;
	}
}

/* /dev/qpu is device 0, /dev/qpuN device N; -1 for another path. */
static int kdev_index(const char *path)
{
	const char *base = strrchr(path, '/');
	char *end;
	long n;

	base = base ? base + 1 : path;
	if (strncmp(base, "qpu", 3))
		return -1;
	if (!base[3])
		return 0;
	n = strtol(base + 3, &end, 10);
	return *end || n < 0 || n > 255 ? -1 : (int)n;
}

static int kdev_telemetry(int index, struct qpu_pipeline_telemetry *t)
{
	struct nl_req r = {
		.n = { .nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN), .nlmsg_type = GENL_ID_CTRL,
		       .nlmsg_flags = NLM_F_REQUEST, .nlmsg_seq = 1 },
		.g = { .cmd = CTRL_CMD_GETFAMILY, .version = 1 },
	};
	uint32_t idx = (uint32_t)index;
	uint16_t family = 0;
	char buf[4096];
	int fd, ret;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -errno;
	put_attr(&r, CTRL_ATTR_FAMILY_NAME, QPU_GENL_NAME, sizeof(QPU_GENL_NAME));
	ret = nl_talk(fd, &r, buf, sizeof(buf));
	if (ret > 0)
		each_attr(buf, family_attr, &family);
	if (ret > 0 && family) {
		memset(&r, 0, sizeof(r));
		r.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
		r.n.nlmsg_type = family;
		r.n.nlmsg_flags = NLM_F_REQUEST;
		r.n.nlmsg_seq = 2;
		r.g.cmd = QPU_CMD_DEV_GET;
		r.g.version = QPU_GENL_VERSION;
		put_attr(&r, QPU_A_DEV_INDEX, &idx, sizeof(idx));
		ret = nl_talk(fd, &r, buf, sizeof(buf));
		if (ret > 0)
			each_attr(buf, dev_attr, t);
	}
	close(fd);
	if (ret > 0 && !family)
		ret = -ENOENT;
	return ret < 0 ? ret : 0;
}

static int thermal_zone(struct qpu_pipeline_telemetry *t)
{
	FILE *f = fopen(THERMAL_ZONE, "re");
	int mc;

	if (!f)
		return -errno;
	if (fscanf(f, "%d", &mc) == 1) {
		t->temp_mc = mc;
		t->flags |= QPU_PIPELINE_TELEMETRY_TEMP;
	}
	fclose(f);
	return 0;
}

int pl_telemetry_default(struct qpu_dev *dev, struct qpu_pipeline_telemetry *t)
{
	const char *what;
	uint64_t backend;
	int index;

	memset(t, 0, sizeof(*t));
	t->source = "none";
	if (!dev)
		return 0;
	what = qpu_dev_describe(dev);
	if (!qpu_dev_get_param(dev, QPU_DEV_PARAM_BACKEND, &backend)) {
		/* qpu.ko: only its devices answer BACKEND. */
		index = kdev_index(qpu_dev_get_path(dev));
		if (index >= 0 && !kdev_telemetry(index, t))
			t->source = "qpu.ko";
		return 0;
	}
	if (strstr(what, "v3d") && !thermal_zone(t))
		t->source = "thermal zone";
	return 0;
}
