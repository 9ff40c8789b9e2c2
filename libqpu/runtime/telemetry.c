// SPDX-License-Identifier: MIT
/*
 * The devices' telemetry (qpu_dev_get_telemetry()): qpu.ko's last sample
 * (clock as set and measured, temperature, throttled word) through its
 * generic-netlink family's DEV_GET, read with a plain netlink socket so
 * that libqpu links no netlink library; a v3d node's from the Raspberry
 * Pi firmware through /dev/vcio (fwprop.c), its temperature from the first
 * thermal zone where the firmware gives none; nothing on the emulator.
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

#include "qpu_fwprop.h"
#include "runtime/runtime.h"

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
	struct qpu_telemetry *t = ctx;

	switch (a->nla_type & NLA_TYPE_MASK) {
	case QPU_A_DEV_CLOCK_SET_HZ:
		t->clock_set_hz = attr_uint(a);
		t->flags |= QPU_TELEMETRY_CLOCK_SET;
		break;
	case QPU_A_DEV_CLOCK_MEASURED_HZ:
		t->clock_hz = attr_uint(a);
		t->flags |= QPU_TELEMETRY_CLOCK;
		break;
	case QPU_A_DEV_TEMP_MC:
		t->temp_mc = (int32_t)attr_uint(a);
		t->flags |= QPU_TELEMETRY_TEMP;
		break;
	case QPU_A_DEV_THROTTLED:
		t->throttled = attr_uint(a);
		t->flags |= QPU_TELEMETRY_THROTTLED;
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

static int kdev_netlink(int index, struct qpu_telemetry *t)
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

static int thermal_zone(struct qpu_telemetry *t)
{
	FILE *f = fopen(THERMAL_ZONE, "re");
	int mc;

	if (!f)
		return -errno;
	if (fscanf(f, "%d", &mc) == 1) {
		t->temp_mc = mc;
		t->flags |= QPU_TELEMETRY_TEMP;
		t->why_temp = NULL;
	}
	fclose(f);
	return 0;
}

int qpu_kdev_telemetry(struct qpu_dev *dev, struct qpu_telemetry *t)
{
	static const char missing[] = "qpu.ko's telemetry has no such sample (yet) for this device";
	int index = kdev_index(dev->path);

	t->why_clock = t->why_temp = t->why_throttled = missing;
	if (index < 0) {
		t->why_clock = t->why_temp = t->why_throttled =
			"qpu.ko's node has no /dev/qpuN name to find its telemetry by";
		return 0;
	}
	if (kdev_netlink(index, t)) {
		t->why_clock = t->why_temp = t->why_throttled =
			"qpu.ko's netlink family does not answer";
		return 0;
	}
	t->source = "qpu.ko";
	if (t->flags & QPU_TELEMETRY_CLOCK)
		t->why_clock = NULL;
	if (t->flags & QPU_TELEMETRY_TEMP)
		t->why_temp = NULL;
	if (t->flags & QPU_TELEMETRY_THROTTLED)
		t->why_throttled = NULL;
	return 0;
}

int qpu_v3d_telemetry(struct qpu_dev *dev, struct qpu_telemetry *t)
{
	const char *node = getenv("QPU_FWPROP_NODE");
	bool firmware;

	(void)dev;
	qpu_fwprop_read(node && *node ? node : QPU_FWPROP_NODE, t);
	firmware = t->flags;
	if (firmware)
		t->source = "firmware";
	if (!(t->flags & QPU_TELEMETRY_TEMP) && !thermal_zone(t) && !firmware)
		t->source = "thermal zone";
	return 0;
}

QPU_API int qpu_dev_get_telemetry(struct qpu_dev *dev, struct qpu_telemetry *out)
{
	if (!dev || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->source = "none";
	if (!dev->ops->telemetry) {
		out->why_clock = out->why_temp = out->why_throttled =
			"an emulated device has no clock, sensor or firmware";
		return 0;
	}
	return dev->ops->telemetry(dev, out);
}
