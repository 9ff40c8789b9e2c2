// SPDX-License-Identifier: GPL-2.0
/*
 * The simulated v3d node's uapi, ioctl by ioctl, on the Pi 4's and the
 * Pi 5's render nodes (found by their by-path names): GET_PARAM's
 * identification and features, CREATE_BO's placement in the device's one
 * address space, MMAP_BO, GET_BO_OFFSET, WAIT_BO, SUBMIT_CSD's and the
 * perfmons' refusals, and the card node's DRM_AUTH rule for submits. Each
 * with its negative cases, as upstream's v3d answers them.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <linux/capability.h>

#include "kselftest_harness.h"
#include "v3d_sim_util.h"

#define GRANULE		(128u << 10)

static int get_param(int fd, __u32 param, __u64 *value)
{
	struct drm_v3d_get_param p = { .param = param };
	int ret = ioctl(fd, DRM_IOCTL_V3D_GET_PARAM, &p);

	*value = p.value;
	return ret;
}

FIXTURE(node) {
	int fd;
};

FIXTURE_VARIANT(node) {
	int gen;
};

FIXTURE_VARIANT_ADD(node, pi4) { .gen = 42 };
FIXTURE_VARIANT_ADD(node, pi5) { .gen = 71 };

FIXTURE_SETUP(node)
{
	self->fd = v3d_sim_open(variant->gen, 1);
	/* 6.1's harness runs the test body after a SKIP() in setup: assert. */
	ASSERT_LE(0, self->fd) TH_LOG("open %s%s-render: %s (v3d_sim.ko loaded, links made?)",
				      V3D_SIM_BY_PATH, v3d_sim_node_name(variant->gen),
				      strerror(errno));
}

FIXTURE_TEARDOWN(node)
{
	close(self->fd);
}

/* The driver is "v3d", as a Pi's: libdrm's probes find it by that name. */
TEST_F(node, driver_name_is_v3d)
{
	char name[16] = { 0 };
	struct drm_version v = { .name = name, .name_len = sizeof(name) - 1 };

	ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_VERSION, &v));
	EXPECT_STREQ("v3d", name);
}

TEST_F(node, get_param_ident_and_features)
{
	__u64 v;

	ASSERT_EQ(0, get_param(self->fd, DRM_V3D_PARAM_V3D_CORE0_IDENT0, &v));
	EXPECT_EQ(0x443356, v & 0xffffff);			/* "V3D" */
	EXPECT_EQ(variant->gen / 10, v >> 24);
	ASSERT_EQ(0, get_param(self->fd, DRM_V3D_PARAM_V3D_CORE0_IDENT1, &v));
	EXPECT_EQ(variant->gen % 10, v & 0xf);			/* revision */
	EXPECT_EQ(v3d_sim_slices(variant->gen), (v >> 4) & 0xf);	/* slices */
	EXPECT_EQ(4, (v >> 8) & 0xf);				/* QPUs each */
	ASSERT_EQ(0, get_param(self->fd, DRM_V3D_PARAM_V3D_HUB_IDENT1, &v));
	EXPECT_EQ(variant->gen / 10, v & 0xf);
	EXPECT_EQ(1, (v >> 8) & 0xf);				/* one core */
	/* The revision Mesa reads: 4.2.14, 7.1.6 (cfg[4] without minus 1). */
	ASSERT_EQ(0, get_param(self->fd, DRM_V3D_PARAM_V3D_HUB_IDENT3, &v));
	EXPECT_EQ(variant->gen == 42 ? 14 : 6, (v >> 8) & 0xff);
	ASSERT_EQ(0, get_param(self->fd, DRM_V3D_PARAM_SUPPORTS_CSD, &v));
	EXPECT_EQ(1, v);
	ASSERT_EQ(0, get_param(self->fd, DRM_V3D_PARAM_SUPPORTS_PERFMON, &v));
	EXPECT_EQ(1, v);
	ASSERT_EQ(0, get_param(self->fd, DRM_V3D_PARAM_SUPPORTS_MULTISYNC_EXT, &v));
	EXPECT_EQ(1, v);
	ASSERT_EQ(0, get_param(self->fd, DRM_V3D_PARAM_SUPPORTS_TFU, &v));
	EXPECT_EQ(0, v);
}

TEST_F(node, get_param_refusals)
{
	struct drm_v3d_get_param p = { .param = DRM_V3D_PARAM_SUPPORTS_CSD, .pad = 1 };
	__u64 v;

	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_V3D_GET_PARAM, &p));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, get_param(self->fd, 0x1000, &v));
	EXPECT_EQ(EINVAL, errno);
	/* A register read wants value 0 on the way in. */
	p = (struct drm_v3d_get_param){ .param = DRM_V3D_PARAM_V3D_CORE0_IDENT0, .value = 1 };
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_V3D_GET_PARAM, &p));
	EXPECT_EQ(EINVAL, errno);
}

/* BOs at 128 KiB granularity, never at 0, apart, zeroed, mapped. */
TEST_F(node, create_bo_placement)
{
	struct v3d_sim_bo a, b;
	struct drm_v3d_get_bo_offset o = { 0 };
	unsigned int i;

	ASSERT_EQ(0, v3d_sim_bo_new(self->fd, 4096, &a));
	ASSERT_EQ(0, v3d_sim_bo_new(self->fd, 3 * GRANULE + 1, &b));
	EXPECT_LE(GRANULE, a.offset);
	EXPECT_EQ(0, a.offset % GRANULE);
	EXPECT_EQ(0, b.offset % GRANULE);
	EXPECT_TRUE(b.offset >= a.offset + 4096 || a.offset >= b.offset + b.size);
	for (i = 0; i < b.size; i += 4096)
		EXPECT_EQ(0, ((unsigned char *)b.map)[i]);
	o.handle = b.handle;
	ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_V3D_GET_BO_OFFSET, &o));
	EXPECT_EQ(b.offset, o.offset);
	v3d_sim_bo_free(self->fd, &a);
	v3d_sim_bo_free(self->fd, &b);
}

/* One address space per device: two clients' BOs never overlap. */
TEST_F(node, one_address_space_per_device)
{
	int fd2 = v3d_sim_open(variant->gen, 1);
	struct v3d_sim_bo a, b;

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, v3d_sim_bo_new(self->fd, GRANULE, &a));
	ASSERT_EQ(0, v3d_sim_bo_new(fd2, GRANULE, &b));
	EXPECT_NE(a.offset, b.offset);
	v3d_sim_bo_free(fd2, &b);
	v3d_sim_bo_free(self->fd, &a);
	close(fd2);
}

TEST_F(node, create_bo_refusals)
{
	struct drm_v3d_create_bo c = { .size = 0 };

	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_V3D_CREATE_BO, &c));
	EXPECT_EQ(EINVAL, errno);
	c = (struct drm_v3d_create_bo){ .size = 4096, .flags = 1 };
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_V3D_CREATE_BO, &c));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(node, bo_handle_refusals)
{
	struct drm_v3d_mmap_bo m = { .handle = 0xdead };
	struct drm_v3d_get_bo_offset o = { .handle = 0xdead };
	struct drm_v3d_wait_bo w = { .handle = 0xdead };
	struct v3d_sim_bo a;

	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_V3D_MMAP_BO, &m));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_V3D_GET_BO_OFFSET, &o));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_V3D_WAIT_BO, &w));
	EXPECT_EQ(EINVAL, errno);

	ASSERT_EQ(0, v3d_sim_bo_new(self->fd, 4096, &a));
	m = (struct drm_v3d_mmap_bo){ .handle = a.handle, .flags = 1 };
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_V3D_MMAP_BO, &m));
	EXPECT_EQ(EINVAL, errno);
	w = (struct drm_v3d_wait_bo){ .handle = a.handle, .pad = 1 };
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_V3D_WAIT_BO, &w));
	EXPECT_EQ(EINVAL, errno);
	/* An idle BO: no wait at all. */
	w = (struct drm_v3d_wait_bo){ .handle = a.handle, .timeout_ns = 0 };
	EXPECT_EQ(0, ioctl(self->fd, DRM_IOCTL_V3D_WAIT_BO, &w));
	/* A closed handle is gone. */
	v3d_sim_bo_free(self->fd, &a);
	o.handle = a.handle;
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_V3D_GET_BO_OFFSET, &o));
}

TEST_F(node, submit_csd_refusals)
{
	struct drm_v3d_extension bad_ext = { .id = 0x77 };
	struct drm_v3d_multi_sync empty = { .base.id = DRM_V3D_EXT_ID_MULTI_SYNC };
	struct drm_v3d_sem sem = { .handle = 0xdead };
	struct drm_v3d_multi_sync ms = {
		.base.id = DRM_V3D_EXT_ID_MULTI_SYNC,
		.out_syncs = (uintptr_t)&sem, .out_sync_count = 1,
		.wait_stage = V3D_CSD,
	};
	struct drm_v3d_submit_csd s = { 0 };
	struct v3d_sim_bo code;
	__u32 handles[2];

	ASSERT_EQ(0, v3d_sim_bo_new(self->fd, 4096, &code));
	v3d_sim_cfg(s.cfg, variant->gen, 1, code.offset, code.offset);
	handles[0] = code.handle;
	s.bo_handles = (uintptr_t)handles;
	s.bo_handle_count = 1;

#define REFUSED(err, what) do { \
		struct drm_v3d_submit_csd t = s; \
		what; \
		EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_V3D_SUBMIT_CSD, &t)); \
		EXPECT_EQ(err, errno) TH_LOG("%s", #what); \
	} while (0)

	REFUSED(EINVAL, t.pad = 1);
	REFUSED(EINVAL, t.flags = 4);
	REFUSED(EINVAL, t.bo_handle_count = 0);
	REFUSED(EINVAL, t.bo_handle_count = 100000);
	REFUSED(EFAULT, t.bo_handles = 8);
	REFUSED(ENOENT, handles[1] = 0xdead; t.bo_handle_count = 2);
	REFUSED(ENOENT, t.perfmon_id = 0xdead);
	REFUSED(EINVAL, t.flags = DRM_V3D_SUBMIT_EXTENSION;
		t.extensions = (uintptr_t)&bad_ext);
	REFUSED(EFAULT, t.flags = DRM_V3D_SUBMIT_EXTENSION; t.extensions = 8);
	REFUSED(EINVAL, t.flags = DRM_V3D_SUBMIT_EXTENSION;
		t.extensions = (uintptr_t)&empty);
	REFUSED(EINVAL, t.flags = DRM_V3D_SUBMIT_EXTENSION;
		t.extensions = (uintptr_t)&ms);
	/* A syncobj without a fence is no in-fence upstream accepts. */
	REFUSED(EINVAL, t.in_sync = v3d_sim_syncobj_new(self->fd));
#undef REFUSED
	/* The units the simulation lacks. */
	{
		struct drm_v3d_submit_tfu tfu = { 0 };

		EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_V3D_SUBMIT_TFU, &tfu));
		EXPECT_EQ(ENODEV, errno);
	}
	v3d_sim_bo_free(self->fd, &code);
}

TEST_F(node, perfmon_refusals)
{
	struct drm_v3d_perfmon_create c = { .ncounters = 0 };
	struct drm_v3d_perfmon_destroy d = { .id = 0xdead };
	struct drm_v3d_perfmon_get_values g = { .id = 0xdead };
	__u64 values[2];

	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_V3D_PERFMON_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
	c.ncounters = DRM_V3D_MAX_PERF_COUNTERS + 1;
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_V3D_PERFMON_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
	c.ncounters = 1;
	c.counters[0] = V3D_PERFCNT_NUM;
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_V3D_PERFMON_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_V3D_PERFMON_DESTROY, &d));
	EXPECT_EQ(EINVAL, errno);
	g.values_ptr = (uintptr_t)values;
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_V3D_PERFMON_GET_VALUES, &g));
	EXPECT_EQ(EINVAL, errno);

	/* A perfmon: ids from 1, zero before any job, gone once destroyed. */
	c.ncounters = 2;
	c.counters[0] = V3D_PERFCNT_QPU_CYCLES_VALID_INSTR;
	c.counters[1] = V3D_PERFCNT_CYCLE_COUNT;
	ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_V3D_PERFMON_CREATE, &c));
	EXPECT_LE(1, c.id);
	g.id = c.id;
	g.pad = 1;
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_V3D_PERFMON_GET_VALUES, &g));
	EXPECT_EQ(EINVAL, errno);
	g.pad = 0;
	values[0] = values[1] = 99;
	ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_V3D_PERFMON_GET_VALUES, &g));
	EXPECT_EQ(0, values[0]);
	EXPECT_EQ(0, values[1]);
	g.values_ptr = 8;
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_V3D_PERFMON_GET_VALUES, &g));
	EXPECT_EQ(EFAULT, errno);
	d.id = c.id;
	EXPECT_EQ(0, ioctl(self->fd, DRM_IOCTL_V3D_PERFMON_DESTROY, &d));
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_V3D_PERFMON_DESTROY, &d));
	EXPECT_EQ(EINVAL, errno);
}

/* Drops CAP_SYS_ADMIN from the effective set: DRM deems root authenticated. */
static int drop_sys_admin(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[CAP_SYS_ADMIN / 32].effective &= ~(1u << (CAP_SYS_ADMIN % 32));
	return syscall(SYS_capset, &h, d);
}

/*
 * SUBMIT_CSD is DRM_RENDER_ALLOW | DRM_AUTH: on the card node only the
 * master (the first opener here) or an authenticated client submits; a
 * second opener, neither master nor root (which DRM authenticates), is
 * refused with EACCES, while it may still ask GET_PARAM. The render node
 * needs neither.
 */
TEST_F(node, card_node_submit_needs_auth)
{
	int master = v3d_sim_open(variant->gen, 0);
	struct v3d_sim_bo code;
	uint32_t cfg[7];
	int other;
	__u64 v;

	ASSERT_LE(0, master);
	/* A file opened without CAP_SYS_ADMIN is not authenticated. */
	ASSERT_EQ(0, drop_sys_admin());
	other = v3d_sim_open(variant->gen, 0);
	ASSERT_LE(0, other);
	ASSERT_EQ(0, v3d_sim_bo_new(other, 4096, &code));
	/* No workgroups: upstream's no-op dispatch, accepted and done. */
	v3d_sim_cfg(cfg, variant->gen, 1, code.offset, code.offset);
	cfg[0] = 0;
	EXPECT_EQ(-1, v3d_sim_submit(other, cfg, &code.handle, 1, 0, 0));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(0, get_param(other, DRM_V3D_PARAM_SUPPORTS_CSD, &v));
	v3d_sim_bo_free(other, &code);

	ASSERT_EQ(0, v3d_sim_bo_new(master, 4096, &code));
	EXPECT_EQ(0, v3d_sim_submit(master, cfg, &code.handle, 1, 0, 0));
	v3d_sim_bo_free(master, &code);

	ASSERT_EQ(0, v3d_sim_bo_new(self->fd, 4096, &code));
	EXPECT_EQ(0, v3d_sim_submit(self->fd, cfg, &code.handle, 1, 0, 0));
	v3d_sim_bo_free(self->fd, &code);
	close(other);
	close(master);
}

TEST_HARNESS_MAIN
