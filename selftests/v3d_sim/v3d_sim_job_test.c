// SPDX-License-Identifier: GPL-2.0
/*
 * Compute jobs on the simulated v3d node, on the Pi 4's and the Pi 5's
 * render nodes: a dispatch that stores through the TMU, in- and
 * out-syncobjs and the multisync extension, out-fences as sync_files,
 * WAIT_BO, perfmon counts; MMU faults (a store outside the job's BOs, a
 * shader address no BO maps) that end the job with -EFAULT; a BO closed
 * while its job is queued, the fd closed while a job runs; and upstream's
 * timeout: re-armed while batches progress (or, the emulator being the
 * clock, while a batch runs instructions within hang_instructions), a GPU
 * reset without progress, the next job running after it; the statistics
 * upstream gives from Linux 6.8 on: the device's sysfs gpu_stats and each
 * file's fdinfo, counting the CSD's jobs that ended (done or faulted) and
 * their time, a reset job not.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "kselftest_harness.h"
#include "v3d_sim_util.h"

#define CODE_WORDS	256
#define DATA_BYTES	4096
#define MAGIC		0x51505500u

/* Each lane stores unif[1] + its index at unif[0] + 4 * index. */
static const char store_src[] =
	"nop ; nop ; ldunifrf.rf10\n"
	"nop ; nop ; ldunifrf.rf11\n"
	"eidx rf12 ; nop\n"
	"shl rf13, rf12, 2 ; nop\n"
	"add rf10, rf10, rf13 ; nop\n"
	"add rf11, rf11, rf12 ; nop\n"
	"nop ; mov tmud, rf11\n"
	"nop ; mov tmua, rf10\n"
	"tmuwt - ; nop\n";

/* A loop of unif[0] turns (each of the batch's threads). */
static const char loop_src[] =
	"nop ; nop ; ldunifrf.rf1\n"
	"loop:\n"
	"sub.pushz rf1, rf1, 1 ; nop\n"
	"b.anyna loop\n"
	"nop ; nop\n"
	"nop ; nop\n"
	"nop ; nop\n";

/*
 * A loop of unif[0] turns, then each lane stores unif[2] + q at unif[1] +
 * 64 * q + 4 * index, where q is the QPU it ran on (tidx >> 2).
 */
static const char loop_then_store_src[] =
	"nop ; nop ; ldunifrf.rf1\n"
	"nop ; nop ; ldunifrf.rf10\n"
	"nop ; nop ; ldunifrf.rf11\n"
	"loop:\n"
	"sub.pushz rf1, rf1, 1 ; nop\n"
	"b.anyna loop\n"
	"nop ; nop\n"
	"nop ; nop\n"
	"nop ; nop\n"
	"tidx rf12 ; nop\n"
	"shr rf12, rf12, 2 ; nop\n"
	"shl rf13, rf12, 6 ; nop\n"
	"eidx rf14 ; nop\n"
	"shl rf14, rf14, 2 ; nop\n"
	"add rf13, rf13, rf14 ; nop\n"
	"add rf10, rf10, rf13 ; nop\n"
	"add rf11, rf11, rf12 ; nop\n"
	"nop ; mov tmud, rf11\n"
	"nop ; mov tmua, rf10\n"
	"tmuwt - ; nop\n";

/* Never ends. */
static const char hang_src[] =
	"hang:\n"
	"nop ; nop\n"
	"b hang\n"
	"nop ; nop\n"
	"nop ; nop\n"
	"nop ; nop\n";

FIXTURE(job) {
	int fd;
	int gen;
	struct v3d_sim_bo code, unif, data;
	uint32_t handles[3];
};

FIXTURE_VARIANT(job) {
	int gen;
};

FIXTURE_VARIANT_ADD(job, pi4) { .gen = 42 };
FIXTURE_VARIANT_ADD(job, pi5) { .gen = 71 };

FIXTURE_SETUP(job)
{
	self->gen = variant->gen;
	self->fd = v3d_sim_open(variant->gen, 1);
	ASSERT_LE(0, self->fd) TH_LOG("open %s%s-render: %s", V3D_SIM_BY_PATH,
				      v3d_sim_node_name(variant->gen), strerror(errno));
	ASSERT_EQ(0, v3d_sim_bo_new(self->fd, CODE_WORDS * 8, &self->code));
	ASSERT_EQ(0, v3d_sim_bo_new(self->fd, 4096, &self->unif));
	ASSERT_EQ(0, v3d_sim_bo_new(self->fd, DATA_BYTES, &self->data));
	self->handles[0] = self->code.handle;
	self->handles[1] = self->unif.handle;
	self->handles[2] = self->data.handle;
}

FIXTURE_TEARDOWN(job)
{
	v3d_sim_bo_free(self->fd, &self->data);
	v3d_sim_bo_free(self->fd, &self->unif);
	v3d_sim_bo_free(self->fd, &self->code);
	close(self->fd);
}

/* Assembles @src into the code BO; false (with a message) if it fails. */
static bool load(FIXTURE_DATA(job) *self, const char *src)
{
	return v3d_sim_assemble(self->gen, src, self->code.map, CODE_WORDS) > 0;
}

static void set_unif(FIXTURE_DATA(job) *self, uint32_t u0, uint32_t u1)
{
	uint32_t *u = self->unif.map;

	u[0] = u0;
	u[1] = u1;
}

/* Submits @batches batches with out-syncobj @out (0: none). */
static int submit(FIXTURE_DATA(job) *self, unsigned int batches, uint32_t out)
{
	uint32_t cfg[7];

	v3d_sim_cfg(cfg, self->gen, batches, self->code.offset, self->unif.offset);
	return v3d_sim_submit(self->fd, cfg, self->handles, 3, 0, out);
}

/* Waits for @sync and says how its fence ended (v3d_sim_sync_file_status). */
static int job_status(int fd, uint32_t sync, int64_t timeout_ms)
{
	int sf, st;

	if (v3d_sim_syncobj_wait(fd, sync, timeout_ms))
		return -1001;
	sf = v3d_sim_syncobj_sync_file(fd, sync);
	if (sf < 0)
		return -1002;
	st = v3d_sim_sync_file_status(sf);
	close(sf);
	return st;
}

static bool stored(FIXTURE_DATA(job) *self, uint32_t base)
{
	const uint32_t *d = self->data.map;
	unsigned int i;

	for (i = 0; i < 16; i++) {
		if (d[i] != base + i)
			return false;
	}
	return true;
}

/* The number after @key in the file's /proc/self/fdinfo, or -1. */
static long long fdinfo_value(int fd, const char *key)
{
	char path[64], line[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			v = strtoll(line + strlen(key), NULL, 10);
	fclose(f);
	return v;
}

/*
 * gpu_stats' line of @queue on generation @gen's device: its jobs and
 * runtime; the header checked. 0, or -1.
 */
static int gpu_stats(int gen, const char *queue, unsigned long long *jobs,
		     unsigned long long *runtime)
{
	char path[128], line[256], name[32];
	unsigned long long ts, j, rt;
	int ret = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/platform/devices/%s/gpu_stats",
		 v3d_sim_node_name(gen) + strlen("platform-"));
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (!fgets(line, sizeof(line), f) || strcmp(line, "queue\ttimestamp\tjobs\truntime\n"))
		goto out;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%31s %llu %llu %llu", name, &ts, &j, &rt) == 4 &&
		    !strcmp(name, queue)) {
			*jobs = j;
			*runtime = rt;
			ret = 0;
		}
out:
	fclose(f);
	return ret;
}

/*
 * gpu_stats and fdinfo count a file's CSD jobs that ended, a faulted one
 * too, and their time; the other queues and another file's stay 0.
 */
TEST_F(job, stats_count_jobs)
{
	unsigned long long jobs0, rt0, jobs, rt;
	uint32_t out = v3d_sim_syncobj_new(self->fd);
	int other = v3d_sim_open(self->gen, 1);

	ASSERT_LE(0, other);
	ASSERT_EQ(0, gpu_stats(self->gen, "csd", &jobs0, &rt0));
	EXPECT_EQ(0, fdinfo_value(self->fd, "v3d-jobs-csd:"));
	EXPECT_EQ(0, fdinfo_value(self->fd, "drm-engine-csd:"));
	ASSERT_TRUE(load(self, store_src));
	set_unif(self, self->data.offset, MAGIC);
	ASSERT_EQ(0, submit(self, 1, out));
	EXPECT_EQ(1, job_status(self->fd, out, 10000));
	EXPECT_EQ(1, fdinfo_value(self->fd, "v3d-jobs-csd:"));
	EXPECT_LT(0, fdinfo_value(self->fd, "drm-engine-csd:"));
	EXPECT_EQ(0, fdinfo_value(self->fd, "v3d-jobs-bin:"));
	EXPECT_EQ(0, fdinfo_value(self->fd, "drm-engine-render:"));
	EXPECT_EQ(0, fdinfo_value(other, "v3d-jobs-csd:"));
	ASSERT_EQ(0, gpu_stats(self->gen, "csd", &jobs, &rt));
	EXPECT_EQ(jobs0 + 1, jobs);
	EXPECT_LT(rt0, rt);
	ASSERT_EQ(0, gpu_stats(self->gen, "tfu", &jobs, &rt));
	EXPECT_EQ(0, jobs);
	EXPECT_EQ(0, rt);
	EXPECT_NE(0, gpu_stats(self->gen, "nosuchqueue", &jobs, &rt));
	/* a store outside the job's BOs: ended by the MMU, counted */
	set_unif(self, 0x100, MAGIC);
	ASSERT_EQ(0, submit(self, 1, out));
	EXPECT_EQ(-EFAULT, job_status(self->fd, out, 10000));
	EXPECT_EQ(2, fdinfo_value(self->fd, "v3d-jobs-csd:"));
	v3d_sim_syncobj_free(self->fd, out);
	close(other);
}

TEST_F(job, store_runs_and_signals)
{
	uint32_t out = v3d_sim_syncobj_new(self->fd);
	struct drm_v3d_wait_bo w = { .handle = self->data.handle, .timeout_ns = 10000000000ull };

	ASSERT_NE(0, out);
	ASSERT_TRUE(load(self, store_src));
	set_unif(self, self->data.offset, MAGIC);
	ASSERT_EQ(0, submit(self, 1, out));
	/* WAIT_BO on the data BO waits for the job, as py-videocore does. */
	ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_V3D_WAIT_BO, &w));
	EXPECT_EQ(1, job_status(self->fd, out, 10000));
	EXPECT_TRUE(stored(self, MAGIC));
	v3d_sim_syncobj_free(self->fd, out);
}

/* No workgroups in a dimension: upstream's no-op dispatch, done at once. */
TEST_F(job, no_workgroups_is_a_no_op)
{
	uint32_t out = v3d_sim_syncobj_new(self->fd);
	uint32_t cfg[7];

	ASSERT_TRUE(load(self, store_src));
	set_unif(self, self->data.offset, MAGIC);
	v3d_sim_cfg(cfg, self->gen, 1, self->code.offset, self->unif.offset);
	cfg[1] = 0;
	ASSERT_EQ(0, v3d_sim_submit(self->fd, cfg, self->handles, 3, 0, out));
	EXPECT_EQ(1, job_status(self->fd, out, 10000));
	EXPECT_FALSE(stored(self, MAGIC));
	v3d_sim_syncobj_free(self->fd, out);
}

/* in_sync orders jobs; the multisync extension's in- and out-syncobjs. */
TEST_F(job, syncobjs_and_multisync)
{
	uint32_t s1 = v3d_sim_syncobj_new(self->fd);
	uint32_t s2 = v3d_sim_syncobj_new(self->fd);
	uint32_t s3 = v3d_sim_syncobj_new(self->fd);
	struct drm_v3d_sem in = { .handle = s2 }, outs[2] = { { .handle = s1 }, { .handle = s3 } };
	struct drm_v3d_multi_sync ms = {
		.base.id = DRM_V3D_EXT_ID_MULTI_SYNC,
		.in_syncs = (uintptr_t)&in, .in_sync_count = 1,
		.out_syncs = (uintptr_t)outs, .out_sync_count = 2,
		.wait_stage = V3D_CSD,
	};
	struct drm_v3d_submit_csd s = {
		.bo_handles = (uintptr_t)self->handles, .bo_handle_count = 3,
		.flags = DRM_V3D_SUBMIT_EXTENSION, .extensions = (uintptr_t)&ms,
	};
	uint32_t cfg[7];

	ASSERT_TRUE(load(self, store_src));
	set_unif(self, self->data.offset, MAGIC);
	v3d_sim_cfg(cfg, self->gen, 1, self->code.offset, self->unif.offset);
	ASSERT_EQ(0, v3d_sim_submit(self->fd, cfg, self->handles, 3, 0, s1));
	/* The second job waits for the first through in_sync. */
	ASSERT_EQ(0, v3d_sim_submit(self->fd, cfg, self->handles, 3, s1, s2));
	EXPECT_EQ(1, job_status(self->fd, s2, 10000));
	EXPECT_EQ(1, job_status(self->fd, s1, 0));
	/* Multisync: waits for s2, signals s1 and s3 (replacing s1's fence). */
	memcpy(s.cfg, cfg, sizeof(cfg));
	ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_V3D_SUBMIT_CSD, &s));
	EXPECT_EQ(1, job_status(self->fd, s3, 10000));
	EXPECT_EQ(1, job_status(self->fd, s1, 0));
	EXPECT_TRUE(stored(self, MAGIC));
	v3d_sim_syncobj_free(self->fd, s1);
	v3d_sim_syncobj_free(self->fd, s2);
	v3d_sim_syncobj_free(self->fd, s3);
}

/* A perfmon sums the instructions of the jobs attached to it. */
TEST_F(job, perfmon_counts_instructions)
{
	struct drm_v3d_perfmon_create c = {
		.ncounters = 1, .counters = { V3D_PERFCNT_QPU_CYCLES_VALID_INSTR },
	};
	struct drm_v3d_perfmon_get_values g = { 0 };
	uint32_t out = v3d_sim_syncobj_new(self->fd);
	uint32_t cfg[7];
	__u64 first, v;

	ASSERT_TRUE(load(self, store_src));
	set_unif(self, self->data.offset, MAGIC);
	ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_V3D_PERFMON_CREATE, &c));
	v3d_sim_cfg(cfg, self->gen, 1, self->code.offset, self->unif.offset);
	{
		struct drm_v3d_submit_csd s = {
			.bo_handles = (uintptr_t)self->handles, .bo_handle_count = 3,
			.out_sync = out, .perfmon_id = c.id,
		};

		memcpy(s.cfg, cfg, sizeof(cfg));
		ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_V3D_SUBMIT_CSD, &s));
		EXPECT_EQ(1, job_status(self->fd, out, 10000));
		g.id = c.id;
		g.values_ptr = (uintptr_t)&first;
		ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_V3D_PERFMON_GET_VALUES, &g));
		EXPECT_LT(9, first);		/* the program's 9 and the end */
		ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_V3D_SUBMIT_CSD, &s));
		EXPECT_EQ(1, job_status(self->fd, out, 10000));
		g.values_ptr = (uintptr_t)&v;
		ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_V3D_PERFMON_GET_VALUES, &g));
		EXPECT_EQ(2 * first, v);
	}
	v3d_sim_syncobj_free(self->fd, out);
}

/* A store outside the job's BOs: the MMU's fault ends the job, -EFAULT. */
TEST_F(job, store_outside_bos_faults)
{
	uint32_t out = v3d_sim_syncobj_new(self->fd);
	struct v3d_sim_bo other;

	ASSERT_TRUE(load(self, store_src));
	/* A BO of this device, but not one of the job's. */
	ASSERT_EQ(0, v3d_sim_bo_new(self->fd, 4096, &other));
	set_unif(self, other.offset, MAGIC);
	ASSERT_EQ(0, submit(self, 1, out));
	EXPECT_EQ(-EFAULT, job_status(self->fd, out, 10000));
	EXPECT_EQ(0, ((uint32_t *)other.map)[0]);
	v3d_sim_bo_free(self->fd, &other);
	/* The next job runs. */
	set_unif(self, self->data.offset, MAGIC);
	ASSERT_EQ(0, submit(self, 1, out));
	EXPECT_EQ(1, job_status(self->fd, out, 10000));
	EXPECT_TRUE(stored(self, MAGIC));
	v3d_sim_syncobj_free(self->fd, out);
}

/* A shader address no BO maps: the instruction fetch faults. */
TEST_F(job, unmapped_shader_address_faults)
{
	uint32_t out = v3d_sim_syncobj_new(self->fd);
	uint32_t cfg[7];

	v3d_sim_cfg(cfg, self->gen, 1, 0x7ff00000u, self->unif.offset);
	ASSERT_EQ(0, v3d_sim_submit(self->fd, cfg, self->handles, 3, 0, out));
	EXPECT_EQ(-EFAULT, job_status(self->fd, out, 10000));
	v3d_sim_syncobj_free(self->fd, out);
}

/* Uniforms the CSD cannot read (not word-aligned): the job ends, -EINVAL. */
TEST_F(job, misaligned_uniforms_refused)
{
	uint32_t out = v3d_sim_syncobj_new(self->fd);
	uint32_t cfg[7];

	ASSERT_TRUE(load(self, store_src));
	v3d_sim_cfg(cfg, self->gen, 1, self->code.offset, self->unif.offset + 2);
	ASSERT_EQ(0, v3d_sim_submit(self->fd, cfg, self->handles, 3, 0, out));
	EXPECT_EQ(-EINVAL, job_status(self->fd, out, 10000));
	v3d_sim_syncobj_free(self->fd, out);
}

/* The job holds its BOs: closing their handles while it is queued is safe. */
TEST_F(job, bo_closed_while_queued)
{
	uint32_t out = v3d_sim_syncobj_new(self->fd);
	uint32_t *d = self->data.map;

	ASSERT_TRUE(load(self, store_src));
	set_unif(self, self->data.offset, MAGIC);
	ASSERT_EQ(0, submit(self, 4, out));
	ASSERT_EQ(0, v3d_sim_gem_close(self->fd, self->data.handle));
	self->data.handle = 0;
	EXPECT_EQ(1, job_status(self->fd, out, 10000));
	/* The mapping still holds the BO. */
	EXPECT_EQ(MAGIC + 5, d[5]);
	v3d_sim_syncobj_free(self->fd, out);
}

/* The device's resets (GET_PARAM 15, upstream's GLOBAL_RESET_COUNTER). */
static __u64 resets(int fd)
{
	struct drm_v3d_get_param p = { .param = 15 };

	return ioctl(fd, DRM_IOCTL_V3D_GET_PARAM, &p) ? ~0ull : p.value;
}

/*
 * Upstream's timeout: a job making no progress is reset (a batch looping
 * forever: once it has run hang_instructions, at a timeout), its fence
 * ends with -ECANCELED (the scheduler's mark of the guilty job), the reset
 * counter moves by one, and the next job runs.
 */
TEST_F(job, hang_is_reset_then_next_job_runs)
{
	uint32_t out = v3d_sim_syncobj_new(self->fd);
	__u64 before = resets(self->fd);
	int64_t t0, spent;
	int st;

	ASSERT_NE(~0ull, before);
	ASSERT_TRUE(load(self, hang_src));
	t0 = v3d_sim_now_ms();
	ASSERT_EQ(0, submit(self, 1, out));
	st = job_status(self->fd, out, 20000);
	spent = v3d_sim_now_ms() - t0;
	EXPECT_EQ(-ECANCELED, st) TH_LOG("a hung job's fence ends with -ECANCELED, not %d", st);
	EXPECT_LE(400, spent);
	EXPECT_EQ(before + 1, resets(self->fd));
	ASSERT_TRUE(load(self, store_src));
	set_unif(self, self->data.offset, MAGIC);
	ASSERT_EQ(0, submit(self, 1, out));
	EXPECT_EQ(1, job_status(self->fd, out, 10000));
	EXPECT_TRUE(stored(self, MAGIC));
	v3d_sim_syncobj_free(self->fd, out);
}

/* Thread slots of the node: slices x QPUs x 4 threads. */
static unsigned int slots(int fd)
{
	struct drm_v3d_get_param p = { .param = DRM_V3D_PARAM_V3D_CORE0_IDENT1 };

	if (ioctl(fd, DRM_IOCTL_V3D_GET_PARAM, &p))
		return 0;
	return ((p.value >> 4) & 0xf) * ((p.value >> 8) & 0xf) * 4;
}

/*
 * A job longer than several timeouts whose batches keep starting is not
 * reset: the timer is re-armed on progress. Batches start a wave at a
 * time (one per thread slot, as the CSD fills the QPUs), each wave short
 * (a few loop turns per batch); the number of waves doubles until a job
 * outlasts three timeouts, and no job on the way may be reset. Past the
 * CSD's 65,535 workgroups of one dimension, the turns a batch loops
 * double instead (still far under hang_instructions a batch), so a fast
 * emulator gets a long enough job too.
 */
TEST_F(job, long_job_with_progress_is_not_reset)
{
	uint32_t out = v3d_sim_syncobj_new(self->fd);
	unsigned int wave = slots(self->fd), batches, turns = 16;
	int64_t t0, ms = 0;

	ASSERT_LT(0, wave);
	ASSERT_TRUE(load(self, loop_src));
	for (batches = wave; ms < 1500 && turns <= 4096;) {
		set_unif(self, turns, 0);
		t0 = v3d_sim_now_ms();
		ASSERT_EQ(0, submit(self, batches, out));
		ASSERT_EQ(1, job_status(self->fd, out, 60000))
			TH_LOG("a job of %u batches of %u turns was reset", batches, turns);
		ms = v3d_sim_now_ms() - t0;
		if (ms >= 1500)
			break;
		if (batches * 2 <= 0xffff)
			batches *= 2;
		else
			turns *= 2;
	}
	TH_LOG("%u batches (waves of %u) of %u turns ran %lld ms", batches, wave, turns,
	       (long long)ms);
	/* Past three timeouts: the later ones re-armed on progress alone. */
	EXPECT_LE(1500, ms);
	v3d_sim_syncobj_free(self->fd, out);
}

/* The module's hang_instructions (a QPU's), or 0 if sysfs does not say. */
static unsigned long module_hang_instructions(void)
{
	FILE *f = fopen("/sys/module/v3d_sim/parameters/hang_instructions", "r");
	unsigned long v = 0;

	if (f) {
		if (fscanf(f, "%lu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/*
 * One batch that runs three quarters of hang_instructions (5 per loop
 * turn): no batch starts after the first, but the emulator, the GPU's
 * clock here, keeps running instructions, so every timeout on the way is
 * re-armed (under TCG such a batch outlasts several; sgemm's did) and the
 * job ends well. The looping batch of hang_is_reset_then_next_job_runs
 * runs past the budget and is reset.
 */
TEST_F(job, long_batch_running_instructions_is_not_reset)
{
	uint32_t out = v3d_sim_syncobj_new(self->fd);
	unsigned long budget = module_hang_instructions();
	int64_t t0;

	if (!budget)
		SKIP(return, "hang_instructions is the board's (0): 3/4 of it is minutes of emulation");
	ASSERT_TRUE(load(self, loop_src));
	set_unif(self, (uint32_t)(budget / 4 * 3 / 5), 0);
	t0 = v3d_sim_now_ms();
	ASSERT_EQ(0, submit(self, 1, out));
	EXPECT_EQ(1, job_status(self->fd, out, 60000))
		TH_LOG("a batch within hang_instructions was reset");
	TH_LOG("one batch of %lu instructions ran %lld ms", budget / 4 * 3,
	       (long long)(v3d_sim_now_ms() - t0));
	v3d_sim_syncobj_free(self->fd, out);
}

/*
 * A Pi's V3D resets a job only when no batch starts for 500 ms, some 250 M
 * instructions of a Pi 4 QPU: a job whose QPUs each run a batch far
 * shorter than that ends well, with every batch's stores. One batch per
 * QPU of 1 Mi instructions (2 ms of a Pi 4 QPU; py-videocore6's
 * test_parallel_16 runs 2 Mi a batch) that stores after its loop: the
 * node used to reset it for a hang (a budget of 512 Ki a batch, 1 ms), and
 * half of test_parallel_16's batches never stored.
 */
TEST_F(job, batches_longer_than_a_millisecond_are_not_reset)
{
	uint32_t out = v3d_sim_syncobj_new(self->fd);
	unsigned int qpus = slots(self->fd) / 4, q, i;
	unsigned long budget = module_hang_instructions();
	const uint32_t turns = (1u << 20) / 5;	/* 5 instructions a turn */
	uint32_t *u = self->unif.map, *d = self->data.map;
	int64_t t0;

	ASSERT_LT(0, qpus);
	ASSERT_LE(qpus * 64, DATA_BYTES);
	/* a rig's smaller budget must still hold a QPU's batch */
	if (budget)
		EXPECT_LT(turns * 5ul, budget);
	ASSERT_TRUE(load(self, loop_then_store_src));
	u[0] = turns;
	u[1] = self->data.offset;
	u[2] = MAGIC;
	t0 = v3d_sim_now_ms();
	ASSERT_EQ(0, submit(self, qpus, out));
	EXPECT_EQ(1, job_status(self->fd, out, 120000))
		TH_LOG("%u batches of %u instructions were reset", qpus, turns * 5);
	TH_LOG("%u batches of %u instructions ran %lld ms", qpus, turns * 5,
	       (long long)(v3d_sim_now_ms() - t0));
	for (q = 0; q < qpus; q++)
		for (i = 0; i < 16; i++)
			EXPECT_EQ(MAGIC + q, d[16 * q + i])
				TH_LOG("QPU %u's batch did not store lane %u", q, i);
	v3d_sim_syncobj_free(self->fd, out);
}

/* Closing the fd while its job runs: the job ends (by the timeout here). */
TEST_F(job, fd_closed_while_job_runs)
{
	int fd2 = v3d_sim_open(self->gen, 1);
	struct v3d_sim_bo code;
	uint32_t cfg[7], out = v3d_sim_syncobj_new(self->fd);

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, v3d_sim_bo_new(fd2, CODE_WORDS * 8, &code));
	ASSERT_LT(0, v3d_sim_assemble(self->gen, hang_src, code.map, CODE_WORDS));
	v3d_sim_cfg(cfg, self->gen, 1, code.offset, code.offset);
	ASSERT_EQ(0, v3d_sim_submit(fd2, cfg, &code.handle, 1, 0, 0));
	usleep(100 * 1000);
	v3d_sim_bo_free(fd2, &code);
	close(fd2);
	/* Another client's job runs once the orphan is reset. */
	ASSERT_TRUE(load(self, store_src));
	set_unif(self, self->data.offset, MAGIC);
	ASSERT_EQ(0, submit(self, 1, out));
	EXPECT_EQ(1, job_status(self->fd, out, 20000));
	EXPECT_TRUE(stored(self, MAGIC));
	v3d_sim_syncobj_free(self->fd, out);
}

TEST_HARNESS_MAIN
