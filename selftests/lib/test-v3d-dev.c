// SPDX-License-Identifier: MIT
/*
 * test-v3d-dev: the V3D devices through the public API alone, the
 * emulated ones ("emu:v3d42", "emu:v3d71": libqpu/runtime/emudev_v3d.c) or,
 * with --device, a v3d DRM node (libqpu/runtime/v3ddev.c; check-vm runs it
 * on kmod/v3d_sim's Pi 4 and Pi 5 nodes), expecting the same results: a
 * program assembled with the V3D assembler, dispatched, its stores checked
 * on every lane; buffers at upstream v3d's GPU addresses; faults (with
 * QPU, thread, PC, address and kind where the device can tell: the
 * emulator; the v3d driver says "fault" alone); QPU_JOB_ALL_BOS; a failed
 * job's out-fence cancelling the job behind it; timeouts; counters; the
 * boards; bad descriptions and sizes; a device closed with jobs in flight;
 * on a node, another driver's (vgem's) dma-buf imported and written in
 * place by a dispatch.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <stdint.h>
#include <unistd.h>

#include "testlib.h"

#include "qpu.h"
#include "qpu_asm.h"
#include "test-v3d.h"
#include "../kmod/vgem_buf.h"

#define GRANULE		(128u << 10)	/* upstream v3d's BO placement */

/* The devices every case runs on: the emulated ones, or --device's alone. */
static const char *devs[] = { "emu:v3d42", "emu:v3d71", "emu:v3d71,board=pi5-16" };
static unsigned int ndevs = T_ARRAY_SIZE(devs);
static const char *device_path;

/* A case that runs test_NAME(path) on every device. */
#define ON_EVERY_DEVICE(name)				\
	T_TEST(name)					\
	{						\
		unsigned int k;				\
							\
		for (k = 0; k < ndevs; k++)		\
			test_##name(devs[k]);		\
	}						\
	struct t_unused_##name

/* The emulator tells more of a job than a v3d driver: counters, fault detail. */
static bool is_emu(const char *path)
{
	return !strncmp(path, "emu", 3);
}

/*
 * Each invocation stores its global index (workgroup x + 3 y, times 32,
 * plus its local index) at data[index], data being uniform 0: the
 * workgroup ids are the payload's rf0 (4.2) or rf3 (7.1), the local
 * index the top bits of rf2, as the CSD hands them over.
 */
static const char *const store_index =
	"nop ; nop ; ldunifrf.rf10\n"
	"shr rf5, rf2, 13 ; nop\n"
	"shr rf5, rf5, 13 ; nop\n"
	"and rf6, rf%d, 15 ; nop\n"
	"shr rf7, rf%d, 8 ; nop\n"
	"shr rf7, rf7, 8 ; nop\n"
	"nop ; umul24 rf7, rf7, 3\n"
	"add rf6, rf6, rf7 ; nop\n"
	"shl rf6, rf6, 5 ; nop\n"
	"add rf6, rf6, rf5 ; nop\n"
	"shl rf8, rf6, 2 ; nop\n"
	"add rf8, rf8, rf10 ; nop\n"
	"nop ; mov tmud, rf6\n"
	"nop ; mov tmua, rf8\n"
	"tmuwt - ; nop\n";

/* A store to uniform 0's address, whatever it is. */
static const char *const store_to_unif0 =
	"nop ; nop ; ldunifrf.rf10\n"
	"nop ; mov tmud, 7\n"
	"nop ; mov tmua, rf10\n"
	"tmuwt - ; nop\n";

/* Never ends: a branch to itself. */
static const char *const spin =
	"loop:\n"
	"b loop\n"
	"nop ; nop\n"
	"nop ; nop\n"
	"nop ; nop\n";

struct rig {
	struct qpu_dev *dev;
	struct qpu_bo *code, *unif, *data;
	struct qpu_v3d_dispatch d;
	uint64_t gen;
};

static void rig_free(struct rig *r)
{
	qpu_bo_free(r->code);
	qpu_bo_free(r->unif);
	qpu_bo_free(r->data);
	qpu_dev_close(r->dev);
	memset(r, 0, sizeof(*r));
}

/*
 * Opens @path and assembles @fmt (given the payload's workgroup register
 * twice) with the thread end after it; uniform 0 is the data buffer. A
 * dispatch of 3 x 2 workgroups of 32, 2 per supergroup.
 */
static bool rig_init(struct rig *r, const char *path, const char *fmt)
{
	struct qpu_asm *as = qpu_asm_new();
	const uint64_t *words;
	char src[4096];
	size_t n;
	int wg;

	memset(r, 0, sizeof(*r));
	r->dev = qpu_dev_open(path);
	T_CHECK(r->dev && as);
	if (!r->dev || !as)
		goto fail;
	T_EQ_U64(0, qpu_dev_get_param(r->dev, QPU_DEV_PARAM_GEN, &r->gen));
	wg = r->gen == QPU_GEN_V3D71 ? 3 : 0;
	snprintf(src, sizeof(src), fmt, wg, wg);
	strcat(src, V3D_THREAD_END);
	qpu_asm_set_gen(as, (enum qpu_gen)r->gen);
	T_EQ_U64(0, qpu_asm_string(as, "prog", src));
	n = qpu_asm_words(as, &words);
	r->code = qpu_bo_new(r->dev, 4096);
	r->unif = qpu_bo_new(r->dev, 4096);
	r->data = qpu_bo_new(r->dev, 4096);
	T_CHECK(n && r->code && r->unif && r->data);
	if (!n || !r->code || !r->unif || !r->data)
		goto fail;
	memcpy(qpu_bo_get_map(r->code), words, n * 8);
	((uint32_t *)qpu_bo_get_map(r->unif))[0] = qpu_bo_get_bus_addr(r->data);
	memset(qpu_bo_get_map(r->data), 0xff, 4096);
	qpu_asm_free(as);
	r->d = (struct qpu_v3d_dispatch){
		.code = r->code, .uniforms = r->unif,
		.wg_count = { 3, 2, 1 }, .wg_size = 32, .wgs_per_sg = 2,
		.threads = 4,
	};
	return true;
fail:
	qpu_asm_free(as);
	rig_free(r);
	return false;
}

/*
 * A v3d node counts a job's timeout from its submission, behind the jobs
 * before it (a timed-out one runs on in the driver until its reset, 500 ms
 * on): the rig's jobs get long enough for a loaded VM.
 */
#define RIG_TIMEOUT_MS	20000

static int rig_submit(struct rig *r, int in_fence, int *out_fence,
		      uint64_t *seqno)
{
	struct qpu_job_desc desc = {
		.bos = &r->data, .bo_count = 1, .kind = QPU_JOB_V3D_DISPATCH,
		.dispatch = &r->d, .in_fence_fd = in_fence,
		.out_fence_fd = out_fence, .timeout_ms = RIG_TIMEOUT_MS,
	};

	return qpu_submit(r->dev, &desc, seqno);
}

static void rig_run(struct rig *r, struct qpu_job_result *res)
{
	uint64_t seqno = 0;

	memset(res, 0, sizeof(*res));
	T_EQ_U64(0, rig_submit(r, -1, NULL, &seqno));
	T_EQ_U64(0, qpu_wait(r->dev, seqno, -1, res));
}

/*
 * The instructions the emulated V3D of @gen counts for @fmt's job: what a
 * 4.2 node's perfmon counts (kmod/v3d_sim runs the same emulator).
 */
static uint64_t emu_instructions(uint64_t gen, const char *fmt)
{
	struct qpu_job_result res = { 0 };
	struct rig e;

	if (!rig_init(&e, gen == QPU_GEN_V3D71 ? "emu:v3d71" : "emu:v3d42", fmt))
		return 0;
	rig_run(&e, &res);
	rig_free(&e);
	return res.instructions;
}

T_TEST(dispatch_all_lanes)
{
	unsigned int i, k;

	for (k = 0; k < ndevs; k++) {
		struct qpu_job_result res;
		struct rig r;
		uint32_t *d;

		if (!rig_init(&r, devs[k], store_index))
			continue;
		rig_run(&r, &res);
		T_EQ_U64(QPU_STATUS_DONE, res.status);
		if (is_emu(devs[k])) {
			T_CHECK(res.flags & QPU_JOB_RESULT_INSTRUCTIONS);
			T_CHECK(res.flags & QPU_JOB_RESULT_COUNTERS);
			/* 12 batches of 22 instructions, each of 4 bytes' TMU write per lane */
			T_CHECK(res.instructions >= 12 * 15);
			T_EQ_U64(192 * 4, res.counters.tmu_bytes);
			T_EQ_U64(12 * 4, res.counters.uniform_bytes);
			T_EQ_U64(QPU_JOB_RESULT_PROGRESS, res.flags & QPU_JOB_RESULT_PROGRESS);
			T_EQ_U64(12, res.batches);
			T_EQ_U64(12, res.batches_done);
		} else if (r.gen == QPU_GEN_V3D42) {
			/* a Pi 4's node: the job's perfmon, QPU_CYCLES_VALID_INSTR */
			T_EQ_U64(QPU_JOB_RESULT_INSTRUCTIONS, res.flags);
			T_EQ_U64(emu_instructions(r.gen, store_index), res.instructions);
		} else {
			/* 7.1 numbers its counters apart: none attached */
			T_EQ_U64(0, res.flags);
		}
		d = qpu_bo_get_map(r.data);
		for (i = 0; i < 192; i++)
			T_EQ_U64(i, d[i]);
		T_EQ_U64(0xffffffffu, d[192]);
		rig_free(&r);
	}
}

/*
 * As upstream v3d: GPU address = offset in the MMU space, granule-aligned,
 * page 0 unmapped. A node's space is shared with its other clients, so
 * only the emulator's first buffer is surely at the first granule.
 */
T_TEST(buffers_at_mmu_addresses)
{
	unsigned int k;

	for (k = 0; k < ndevs; k++) {
		struct qpu_dev *dev = qpu_dev_open(devs[k]);
		struct qpu_bo *a = dev ? qpu_bo_new(dev, 4096) : NULL;
		struct qpu_bo *b = dev ? qpu_bo_new(dev, GRANULE + 4096) : NULL;
		struct qpu_bo *c = dev ? qpu_bo_new(dev, 4096) : NULL;

		T_CHECK(a && b && c);
		if (a && b && c) {
			if (is_emu(devs[k]))
				T_EQ_U64(GRANULE, qpu_bo_get_bus_addr(a));
			T_CHECK(qpu_bo_get_bus_addr(a) >= GRANULE);
			T_EQ_U64(0, qpu_bo_get_bus_addr(a) % GRANULE);
			T_EQ_U64(0, qpu_bo_get_bus_addr(b) % GRANULE);
			T_EQ_U64(0, qpu_bo_get_bus_addr(c) % GRANULE);
			T_EQ_U64(GRANULE + 4096, qpu_bo_get_size(b));
			T_CHECK(qpu_bo_get_bus_addr(a) != qpu_bo_get_bus_addr(b));
			T_CHECK(qpu_bo_get_bus_addr(c) != qpu_bo_get_bus_addr(b));
		}
		qpu_bo_free(a);
		qpu_bo_free(b);
		qpu_bo_free(c);
		qpu_dev_close(dev);
	}
}

/*
 * dma-buf sharing: a v3d node exports by PRIME and takes its own export
 * back as the same buffer (one GEM handle, kept until both are freed); the
 * emulators import a memfd and cannot export.
 */
static void test_dmabuf(const char *path)
{
	struct qpu_dev *dev = qpu_dev_open(path);
	struct qpu_bo *a = dev ? qpu_bo_new(dev, 8192) : NULL, *b = NULL;
	int fd = -1;

	T_CHECK(a != NULL);
	if (!a)
		goto out;
	if (is_emu(path)) {
		T_EQ_U64(-ENOTSUP, qpu_bo_export_dmabuf(a, &fd));
		fd = memfd_create("test-v3d-dev", MFD_CLOEXEC);
		T_CHECK(fd >= 0 && !ftruncate(fd, 8192));
	} else {
		T_EQ_U64(0, qpu_bo_export_dmabuf(a, &fd));
	}
	T_EQ_U64(-EINVAL, qpu_bo_import_dmabuf(dev, fd, 3 * 4096, &b));
	T_EQ_U64(0, qpu_bo_import_dmabuf(dev, fd, 0, &b));
	close(fd);
	T_CHECK(b != NULL);
	if (!b)
		goto out;
	T_EQ_U64(8192, qpu_bo_get_size(b));
	((uint32_t *)qpu_bo_get_map(b))[7] = 0x12345678;
	if (!is_emu(path)) {
		T_EQ_U64(qpu_bo_get_bus_addr(a), qpu_bo_get_bus_addr(b));
		qpu_bo_free(a);
		a = NULL;
		T_EQ_U64(0x12345678, ((uint32_t *)qpu_bo_get_map(b))[7]);
	}
out:
	qpu_bo_free(b);
	qpu_bo_free(a);
	qpu_dev_close(dev);
}
ON_EVERY_DEVICE(dmabuf);

/*
 * A foreign dma-buf on a v3d node: a vgem buffer imported by PRIME, placed
 * in the GPU's space, and written by a dispatch where vgem keeps it: vgem's
 * own mapping shows every lane's store, no copy.
 */
T_TEST(vgem_import_written_by_dispatch)
{
	struct qpu_job_result res;
	struct vgem_buf vb = { .dmabuf = -1 };
	struct rig r;
	const uint32_t *d;
	int vgem, i;

	if (is_emu(devs[0]))
		T_SKIP("vgem's dma-bufs go to a v3d node (--device, in the VM)");
	vgem = vgem_open();
	if (vgem < 0)
		T_SKIP("no vgem card (modprobe vgem)");
	T_EQ_U64(0, vgem_buf_new(vgem, GRANULE, &vb));
	if (vb.map == MAP_FAILED || !vb.map || !rig_init(&r, devs[0], store_index))
		goto out;
	memset(vb.map, 0xff, 4096);
	qpu_bo_free(r.data);
	r.data = NULL;
	T_EQ_U64(0, qpu_bo_import_dmabuf(r.dev, vb.dmabuf, 0, &r.data));
	if (r.data) {
		T_EQ_U64(vb.size, qpu_bo_get_size(r.data));
		T_CHECK(qpu_bo_get_bus_addr(r.data) >= GRANULE);
		T_EQ_U64(0, qpu_bo_get_bus_addr(r.data) % GRANULE);
		((uint32_t *)qpu_bo_get_map(r.unif))[0] = qpu_bo_get_bus_addr(r.data);
		rig_run(&r, &res);
		T_EQ_U64(QPU_STATUS_DONE, res.status);
		d = vb.map;
		for (i = 0; i < 192; i++)
			T_EQ_U64(i, d[i]);
		T_EQ_U64(0xffffffffu, d[192]);
	}
	rig_free(&r);
out:
	vgem_buf_free(vgem, &vb);
	close(vgem);
}

/* No buffer of no bytes, nor one past what the device takes. */
T_TEST(bad_sizes)
{
	unsigned int k;

	for (k = 0; k < ndevs; k++) {
		struct qpu_dev *dev = qpu_dev_open(devs[k]);
		uint64_t max = 0;

		T_CHECK(dev);
		if (!dev)
			continue;
		T_EQ_U64(0, qpu_dev_get_param(dev, QPU_DEV_PARAM_MAX_BO_SIZE, &max));
		errno = 0;
		T_CHECK(!qpu_bo_new(dev, 0));
		T_EQ_U64(EINVAL, errno);
		errno = 0;
		T_CHECK(!qpu_bo_new(dev, SIZE_MAX & ~(size_t)4095));
		T_CHECK(errno != 0);
		if (max < SIZE_MAX - 4096) {
			errno = 0;
			T_CHECK(!qpu_bo_new(dev, max + 4096));
			T_CHECK(errno != 0);
		}
		qpu_dev_close(dev);
	}
}

T_TEST(boards)
{
	static const struct { const char *path; uint64_t gen, qpus, slices; } rows[] = {
		{ "emu:v3d42", QPU_GEN_V3D42, 8, 2 },
		{ "emu:v3d42,board=pi4", QPU_GEN_V3D42, 8, 2 },
		{ "emu:v3d71", QPU_GEN_V3D71, 12, 3 },
		{ "emu:v3d71,board=pi5", QPU_GEN_V3D71, 12, 3 },
		{ "emu:v3d71,board=pi5-16,max-bo-mib=8", QPU_GEN_V3D71, 16, 4 },
	};
	static const char *const bad[] = {
		"emu:v3d42,board=pi5", "emu:v3d71,board=pi4", "emu:v3d71,board=",
		"emu:v3d71,board=pi5-1", "emu:v3d42,strict-vpm", "emu:v3d71,bogus",
	};
	unsigned int i;

	for (i = 0; i < T_ARRAY_SIZE(rows); i++) {
		struct qpu_dev *dev = qpu_dev_open(rows[i].path);
		uint64_t v = 0;

		T_CHECK(dev);
		if (!dev)
			continue;
		T_EQ_U64(0, qpu_dev_get_param(dev, QPU_DEV_PARAM_GEN, &v));
		T_EQ_U64(rows[i].gen, v);
		T_EQ_U64(0, qpu_dev_get_param(dev, QPU_DEV_PARAM_NUM_QPUS, &v));
		T_EQ_U64(rows[i].qpus, v);
		T_EQ_U64(0, qpu_dev_get_param(dev, QPU_DEV_PARAM_NUM_SLICES, &v));
		T_EQ_U64(rows[i].slices, v);
		/* its own board's model only (test-timing's v3d_boards) */
		T_EQ_U64(0, qpu_dev_set_board(dev, QPU_BOARD_NONE));
		T_EQ_U64(-EINVAL, qpu_dev_set_board(dev, QPU_BOARD_PI1));
		qpu_dev_close(dev);
	}
	for (i = 0; i < T_ARRAY_SIZE(bad); i++) {
		errno = 0;
		T_CHECK(!qpu_dev_open(bad[i]));
		T_EQ_U64(EINVAL, errno);
	}
}

T_TEST(fault_reported)
{
	unsigned int k;

	for (k = 0; k < ndevs; k++) {
		struct qpu_job_result res;
		struct qpu_bo *other;
		uint64_t nqpus = 0;
		struct rig r;

		if (!rig_init(&r, devs[k], store_to_unif0))
			continue;
		/* page 0 is never mapped */
		((uint32_t *)qpu_bo_get_map(r.unif))[0] = 0x100;
		rig_run(&r, &res);
		T_EQ_U64(QPU_STATUS_FAULT, res.status);
		if (is_emu(devs[k])) {
			/* a store: a TMU write, not a read */
			T_EQ_U64(QPU_ACCESS_TMU_WRITE, res.fault_access);
			T_CHECK(!strcmp(qpu_access_str(res.fault_access), "TMU write"));
			T_EQ_U64(0x100, res.fault_addr);
			T_EQ_U64(0, qpu_dev_get_param(r.dev, QPU_DEV_PARAM_NUM_QPUS, &nqpus));
			T_CHECK(res.fault_qpu < nqpus);
			T_CHECK(res.fault_thread < 4);
			T_CHECK(res.fault_pc >= qpu_bo_get_bus_addr(r.code) &&
				res.fault_pc < qpu_bo_get_bus_addr(r.code) + 64);
		} else {
			/* the v3d driver logs the detail; its uapi has none */
			T_EQ_U64(QPU_ACCESS_NONE, res.fault_access);
			T_EQ_U64(0, res.fault_addr);
		}
		/* a buffer of the device the job did not name is out of reach */
		other = qpu_bo_new(r.dev, 4096);
		T_CHECK(other);
		if (other) {
			((uint32_t *)qpu_bo_get_map(r.unif))[0] =
				qpu_bo_get_bus_addr(other);
			rig_run(&r, &res);
			T_EQ_U64(QPU_STATUS_FAULT, res.status);
			if (is_emu(devs[k]))
				T_EQ_U64(qpu_bo_get_bus_addr(other), res.fault_addr);
			qpu_bo_free(other);
		}
		rig_free(&r);
	}
}

/* A bad instruction: a fault of no memory access. */
T_TEST(fault_bad_instruction)
{
	unsigned int k;

	for (k = 0; k < ndevs; k++) {
		struct qpu_job_result res;
		struct rig r;

		if (!rig_init(&r, devs[k], store_index))
			continue;
		((uint64_t *)qpu_bo_get_map(r.code))[1] = ~0ull;
		rig_run(&r, &res);
		T_EQ_U64(QPU_STATUS_FAULT, res.status);
		if (is_emu(devs[k])) {
			T_EQ_U64(qpu_bo_get_bus_addr(r.code) + 8, res.fault_pc);
			T_EQ_U64(QPU_ACCESS_OTHER, res.fault_access);
		} else if (r.gen == QPU_GEN_V3D42) {
			/* a fault ends the job: what ran before it is counted */
			T_EQ_U64(QPU_JOB_RESULT_INSTRUCTIONS, res.flags);
		}
		rig_free(&r);
	}
}

/* QPU_JOB_ALL_BOS: a buffer the job does not name is in reach; buffers named twice. */
static void test_all_bos(const char *path)
{
	struct qpu_job_desc desc;
	struct qpu_job_result res;
	uint64_t seqno = 0, features = 0;
	struct rig r;

	if (!rig_init(&r, path, store_to_unif0))
		return;
	T_EQ_U64(0, qpu_dev_get_param(r.dev, QPU_DEV_PARAM_FEATURES, &features));
	T_CHECK(features & QPU_DEV_FEATURE_ALL_BOS);
	desc = (struct qpu_job_desc){
		.kind = QPU_JOB_V3D_DISPATCH, .dispatch = &r.d, .in_fence_fd = -1,
		.flags = QPU_JOB_ALL_BOS,
	};
	T_EQ_U64(0, qpu_submit(r.dev, &desc, &seqno));
	T_EQ_U64(0, qpu_wait(r.dev, seqno, -1, &res));
	T_EQ_U64(QPU_STATUS_DONE, res.status);
	T_EQ_U64(7, ((uint32_t *)qpu_bo_get_map(r.data))[0]);
	/* a buffer listed twice, and the shader's listed too: each is the job's once */
	((uint32_t *)qpu_bo_get_map(r.data))[0] = 0;
	{
		struct qpu_bo *twice[] = { r.data, r.code, r.data };

		desc.flags = 0;
		desc.bos = twice;
		desc.bo_count = 3;
		T_EQ_U64(0, qpu_submit(r.dev, &desc, &seqno));
		T_EQ_U64(0, qpu_wait(r.dev, seqno, -1, &res));
		T_EQ_U64(QPU_STATUS_DONE, res.status);
		T_EQ_U64(7, ((uint32_t *)qpu_bo_get_map(r.data))[0]);
	}
	rig_free(&r);
}

ON_EVERY_DEVICE(all_bos);

static void test_failed_in_fence_cancels(const char *path)
{
	struct qpu_job_result res;
	uint64_t bad = 0, next = 0;
	int fence = -1;
	struct rig r;

	if (!rig_init(&r, path, store_to_unif0))
		return;
	((uint32_t *)qpu_bo_get_map(r.unif))[0] = 0x100;
	T_EQ_U64(0, rig_submit(&r, -1, &fence, &bad));
	T_CHECK(fence >= 0);
	/*
	 * Once it has failed: the v3d driver runs a job whose in-fence fails
	 * while it waits (Linux 6.1's scheduler), so libqpu cancels only a job
	 * whose in-fence has failed already.
	 */
	T_EQ_U64(0, qpu_wait(r.dev, bad, -1, &res));
	T_EQ_U64(QPU_STATUS_FAULT, res.status);
	T_EQ_U64(0, rig_submit(&r, fence, NULL, &next));
	T_EQ_U64(0, qpu_wait(r.dev, next, -1, &res));
	T_EQ_U64(QPU_STATUS_CANCELED, res.status);
	/* a good job's fence lets the next run */
	close(fence);
	fence = -1;
	((uint32_t *)qpu_bo_get_map(r.unif))[0] = qpu_bo_get_bus_addr(r.data);
	T_EQ_U64(0, rig_submit(&r, -1, &fence, &bad));
	T_EQ_U64(0, rig_submit(&r, fence, NULL, &next));
	T_EQ_U64(0, qpu_wait(r.dev, next, -1, &res));
	T_EQ_U64(QPU_STATUS_DONE, res.status);
	T_EQ_U64(0, qpu_wait(r.dev, bad, 0, &res));
	T_EQ_U64(QPU_STATUS_DONE, res.status);
	if (fence >= 0) {
		struct pollfd pfd = { .fd = fence, .events = POLLIN };

		T_EQ_U64(1, poll(&pfd, 1, 0));
		close(fence);
	}
	rig_free(&r);
}

ON_EVERY_DEVICE(failed_in_fence_cancels);

/*
 * Workgroups with x = 0 wait on ldtmu with nothing queued, the others at
 * their supergroup's barrier, which those never reach: a deadlock, each
 * QPU's wait named, at once rather than at the timeout.
 */
static void test_deadlock_reported(const char *path)
{
	static const char *const stuck =
		"and.pushz rf6, rf%d, 15 ; nop\n"
		"b.anya tmu_wait\n"
		"nop ; nop\nnop ; nop\nnop ; nop\n"
		"barrierid syncb ; nop ; thrsw\n"
		"nop ; nop\nnop ; nop\n"
		"b done\n"
		"nop ; nop\nnop ; nop\nnop ; nop\n"
		"tmu_wait:\n"
		"nop ; nop ; ldtmu.rf1\n"
		"done:\n";
	struct qpu_job_result res;
	unsigned int q, tmu = 0, barrier = 0;
	uint64_t features = 0;
	struct rig r;

	if (!rig_init(&r, path, stuck))
		return;
	T_EQ_U64(0, qpu_dev_get_param(r.dev, QPU_DEV_PARAM_FEATURES, &features));
	if (!is_emu(path)) {
		/* a v3d driver resets a hang after its timeout: no deadlock report */
		T_CHECK(!(features & QPU_DEV_FEATURE_DEADLOCK));
		rig_free(&r);
		return;
	}
	T_CHECK(features & QPU_DEV_FEATURE_DEADLOCK);
	rig_run(&r, &res);
	T_EQ_U64(QPU_STATUS_DEADLOCK, res.status);
	T_EQ_U64(0, res.fault_access);
	for (q = 0; q < QPU_JOB_MAX_QPUS; q++) {
		if (res.qpus[q].activity == QPU_ACTIVITY_WAIT_TMU) {
			tmu++;
			T_EQ_U64(qpu_bo_get_bus_addr(r.code) + 12 * 8, res.qpus[q].pc);
		} else if (res.qpus[q].activity == QPU_ACTIVITY_WAIT_BARRIER) {
			barrier++;
			T_EQ_U64(qpu_bo_get_bus_addr(r.code) + 8 * 8, res.qpus[q].pc);
		}
	}
	T_CHECK(tmu > 0);
	T_CHECK(barrier > 0);
	rig_free(&r);
}

ON_EVERY_DEVICE(deadlock_reported);

/* @r with one workgroup of the program that never ends, its job @desc. */
static bool rig_spin(struct rig *r, const char *path, unsigned int timeout_ms,
		     struct qpu_job_desc *desc)
{
	if (!rig_init(r, path, spin))
		return false;
	r->d.wg_count[0] = r->d.wg_count[1] = 1;
	*desc = (struct qpu_job_desc){
		.kind = QPU_JOB_V3D_DISPATCH, .dispatch = &r->d, .in_fence_fd = -1,
		.timeout_ms = timeout_ms,
	};
	return true;
}

static void test_timeout(const char *path)
{
	struct qpu_job_desc desc;
	struct qpu_job_result res;
	uint64_t seqno = 0;
	struct rig r;

	if (!rig_spin(&r, path, 1, &desc))
		return;
	T_EQ_U64(0, qpu_submit(r.dev, &desc, &seqno));
	T_EQ_U64(0, qpu_wait(r.dev, seqno, -1, &res));
	T_EQ_U64(QPU_STATUS_TIMEOUT, res.status);
	if (is_emu(path)) {
		/* 32 invocations: 2 batches, both started, neither ended */
		T_EQ_U64(QPU_JOB_RESULT_PROGRESS, res.flags & QPU_JOB_RESULT_PROGRESS);
		T_EQ_U64(2, res.batches);
		T_EQ_U64(0, res.batches_done);
	} else {
		/* a node's job libqpu gave up on is not counted; no progress */
		T_EQ_U64(0, res.flags & (QPU_JOB_RESULT_INSTRUCTIONS |
					 QPU_JOB_RESULT_PROGRESS));
	}
	rig_free(&r);
}

ON_EVERY_DEVICE(timeout);

/*
 * A node's hang check resets the GPU under a job that starts no batch: the
 * job ends QPU_STATUS_RESET (not counted: upstream drops a reset job's
 * counts) and the next job runs on the recovered GPU. The emulated V3Ds
 * have no driver to reset (their timeout is the case above).
 */
static void test_reset(const char *path)
{
	struct qpu_job_desc desc;
	struct qpu_job_result res;
	uint64_t seqno = 0, max_ms = 0;
	struct rig r;

	T_CHECK(!strcmp(qpu_job_status_str(QPU_STATUS_RESET), "GPU reset"));
	if (is_emu(path) || !rig_spin(&r, path, 0, &desc))
		return;
	T_EQ_U64(0, qpu_dev_get_param(r.dev, QPU_DEV_PARAM_MAX_TIMEOUT_MS, &max_ms));
	desc.timeout_ms = (unsigned int)max_ms;
	T_EQ_U64(0, qpu_submit(r.dev, &desc, &seqno));
	T_EQ_U64(0, qpu_wait(r.dev, seqno, -1, &res));
	T_EQ_U64(QPU_STATUS_RESET, res.status);
	T_EQ_U64(0, res.flags);
	rig_free(&r);
	if (!rig_init(&r, path, store_index))
		return;
	rig_run(&r, &res);
	T_EQ_U64(QPU_STATUS_DONE, res.status);
	T_EQ_U64(5, ((uint32_t *)qpu_bo_get_map(r.data))[5]);
	rig_free(&r);
}

ON_EVERY_DEVICE(reset);

static void test_bad_descriptions(const char *path)
{
	struct qpu_program_ref prog;
	struct qpu_job_desc desc;
	struct qpu_job_result res;
	uint64_t seqno = 0, max_ms = 0;
	struct rig r;

	if (!rig_init(&r, path, store_index))
		return;
	/* VideoCore IV programs on a V3D device: refused, naming both */
	prog = (struct qpu_program_ref){ .code = r.code, .uniforms = r.unif };
	desc = (struct qpu_job_desc){ .programs = &prog, .program_count = 1,
				      .in_fence_fd = -1 };
	T_EQ_U64(-EINVAL, qpu_submit(r.dev, &desc, &seqno));
	T_CHECK(strstr(qpu_last_error(), "VideoCore IV programs"));
	T_CHECK(strstr(qpu_last_error(), qpu_gen_name((enum qpu_gen)r.gen)));

	desc = (struct qpu_job_desc){ .kind = QPU_JOB_V3D_DISPATCH,
				      .dispatch = &r.d, .in_fence_fd = -1 };
	r.d.code_offset = 4;		/* not an instruction */
	T_EQ_U64(-EINVAL, qpu_submit(r.dev, &desc, &seqno));
	r.d.code_offset = 4096;		/* past its buffer */
	T_EQ_U64(-EINVAL, qpu_submit(r.dev, &desc, &seqno));
	r.d.code_offset = 0;
	r.d.uniforms_offset = 2;
	T_EQ_U64(-EINVAL, qpu_submit(r.dev, &desc, &seqno));
	r.d.uniforms_offset = 0;
	r.d.wg_size = 0;
	T_EQ_U64(-EINVAL, qpu_submit(r.dev, &desc, &seqno));
	r.d.wg_size = 257;
	T_EQ_U64(-EINVAL, qpu_submit(r.dev, &desc, &seqno));
	r.d.wg_size = 32;
	r.d.threads = 3;
	T_EQ_U64(-EINVAL, qpu_submit(r.dev, &desc, &seqno));
	r.d.threads = 4;
	r.d.wg_count[2] = 0;
	T_EQ_U64(-EINVAL, qpu_submit(r.dev, &desc, &seqno));
	r.d.wg_count[2] = 1;
	r.d.flags = 1u << 7;
	T_EQ_U64(-EINVAL, qpu_submit(r.dev, &desc, &seqno));
	r.d.flags = 0;
	/*
	 * and the same description, put right, runs: given the longest
	 * timeout, as on a node it may queue behind the spinning job the
	 * timeout case left, until the driver resets that (under TCG the
	 * simulated node's hang budget takes seconds of emulation)
	 */
	desc.bos = &r.data;
	desc.bo_count = 1;
	T_EQ_U64(0, qpu_dev_get_param(r.dev, QPU_DEV_PARAM_MAX_TIMEOUT_MS, &max_ms));
	desc.timeout_ms = (unsigned int)max_ms;
	T_EQ_U64(0, qpu_submit(r.dev, &desc, &seqno));
	T_EQ_U64(0, qpu_wait(r.dev, seqno, -1, &res));
	T_EQ_U64(QPU_STATUS_DONE, res.status);
	rig_free(&r);
}

ON_EVERY_DEVICE(bad_descriptions);

/*
 * "v3d" and "v3d:GEN" name the first v3d DRM node (of that generation):
 * one opens as a V3D device, or there is none (ENOENT, said in words);
 * a generation that is no V3D's is refused. /dev/null is no device.
 */
T_TEST(open_by_name)
{
	static const char *const bad[] = { "v3d:vc4", "v3d:v3d99", "v3d:" };
	static const char *const names[] = { "v3d", "v3d:v3d42", "v3d:v3d71" };
	unsigned int i;

	for (i = 0; i < T_ARRAY_SIZE(bad); i++) {
		errno = 0;
		T_CHECK(!qpu_dev_open(bad[i]));
		T_EQ_U64(EINVAL, errno);
		T_CHECK(strstr(qpu_last_error(), "v3d42 or v3d71"));
	}
	for (i = 0; i < T_ARRAY_SIZE(names); i++) {
		struct qpu_dev *dev;
		uint64_t gen = 0;

		errno = 0;
		dev = qpu_dev_open(names[i]);
		if (!dev) {
			T_EQ_U64(ENOENT, errno);
			T_CHECK(strstr(qpu_last_error(), "no v3d DRM node"));
			continue;
		}
		T_EQ_U64(0, qpu_dev_get_param(dev, QPU_DEV_PARAM_GEN, &gen));
		T_CHECK(qpu_gen_is_v3d((int)gen));
		if (i)
			T_EQ_U64(qpu_gen_from_name(names[i] + 4), gen);
		T_CHECK(!strncmp(qpu_dev_get_path(dev), "/dev/dri/", 9));
		T_CHECK(strstr(qpu_dev_describe(dev), "v3d DRM driver"));
		qpu_dev_close(dev);
	}
	errno = 0;
	T_CHECK(!qpu_dev_open("/dev/null"));
	T_EQ_U64(ENODEV, errno);
	T_CHECK(strstr(qpu_last_error(), "neither qpu.ko's node nor a DRM node"));
}

/* Open file descriptors of this process. */
static unsigned int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	unsigned int n = 0;

	if (!d)
		return 0;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/*
 * A device closed with jobs queued and running, its buffers and an
 * out-fence still held: nothing of it stays open (the emulator's memory:
 * check-asan), and the next device runs a job.
 */
static void test_close_in_flight(const char *path)
{
	struct qpu_job_desc desc;
	struct qpu_job_result res;
	uint64_t seqno = 0;
	unsigned int fds = open_fds(), i;
	int fence = -1;
	struct rig r;

	if (!rig_spin(&r, path, 50, &desc))
		return;
	for (i = 0; i < 3; i++) {
		/*
		 * An out-fence too; not the emulator's, which its process-wide
		 * log of fences keeps open (emudev.c) to cancel jobs behind it.
		 */
		desc.out_fence_fd = i == 2 && !is_emu(path) ? &fence : NULL;
		T_EQ_U64(0, qpu_submit(r.dev, &desc, &seqno));
	}
	/* the emulator runs a job without an in-fence as it is submitted */
	i = (unsigned int)-qpu_wait(r.dev, seqno, 0, &res);
	T_CHECK(i == 0 || i == ETIME);
	T_EQ_U64(-ENOENT, qpu_wait(r.dev, seqno + 1, 0, &res));
	T_EQ_U64(-ENOENT, qpu_wait(r.dev, 0, 0, &res));
	/* the buffers go with the device */
	qpu_dev_close(r.dev);
	if (fence >= 0)
		close(fence);
	T_EQ_U64(fds, open_fds());
	if (rig_init(&r, path, store_index)) {
		rig_run(&r, &res);
		T_EQ_U64(QPU_STATUS_DONE, res.status);
		rig_free(&r);
	}
}

ON_EVERY_DEVICE(close_in_flight);

static const struct t_option options[] = {
	{ "device", &device_path, "DEVICE (default: the emulated V3Ds)" },
	{ NULL, NULL, NULL },
};

static int pick_device(void)
{
	struct qpu_dev *dev;

	if (!device_path)
		return T_EXIT_PASS;
	dev = qpu_dev_open(device_path);
	if (!dev) {
		fprintf(stderr, "qpu_dev_open(%s): %s\n", device_path, qpu_last_error());
		return T_EXIT_FAIL;
	}
	printf("device: %s (%s)\n", qpu_dev_get_path(dev), qpu_dev_describe(dev));
	qpu_dev_close(dev);
	devs[0] = device_path;
	ndevs = 1;
	return T_EXIT_PASS;
}

T_MAIN(.setup = pick_device, .options = options);
