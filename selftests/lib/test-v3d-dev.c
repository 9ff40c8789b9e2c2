// SPDX-License-Identifier: MIT
/*
 * test-v3d-dev: the emulated V3D devices "emu:v3d42" and "emu:v3d71"
 * (libqpu/runtime/emudev_v3d.c) through the public API alone: a program
 * assembled with the V3D assembler, dispatched, its stores checked on
 * every lane; buffers at upstream v3d's GPU addresses; faults with QPU,
 * thread, PC, address and kind; QPU_JOB_ALL_BOS; a failed job's
 * out-fence cancelling the job behind it; timeouts; counters; the boards;
 * bad descriptions.
 */
#include <errno.h>
#include <poll.h>
#include <unistd.h>

#include "testlib.h"

#include "qpu.h"
#include "qpu_asm.h"
#include "test-v3d.h"

#define GRANULE		(128u << 10)	/* upstream v3d's BO placement */

static const char *const devs[] = { "emu:v3d42", "emu:v3d71", "emu:v3d71,board=pi5-16" };

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

static int rig_submit(struct rig *r, int in_fence, int *out_fence,
		      uint64_t *seqno)
{
	struct qpu_job_desc desc = {
		.bos = &r->data, .bo_count = 1, .kind = QPU_JOB_V3D_DISPATCH,
		.dispatch = &r->d, .in_fence_fd = in_fence,
		.out_fence_fd = out_fence,
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

T_TEST(dispatch_all_lanes)
{
	unsigned int i, k;

	for (k = 0; k < T_ARRAY_SIZE(devs); k++) {
		struct qpu_job_result res;
		struct rig r;
		uint32_t *d;

		if (!rig_init(&r, devs[k], store_index))
			continue;
		rig_run(&r, &res);
		T_EQ_U64(QPU_STATUS_DONE, res.status);
		T_CHECK(res.flags & QPU_JOB_RESULT_INSTRUCTIONS);
		T_CHECK(res.flags & QPU_JOB_RESULT_COUNTERS);
		/* 12 batches of 22 instructions, each of 4 bytes' TMU write per lane */
		T_CHECK(res.instructions >= 12 * 15);
		T_EQ_U64(192 * 4, res.counters.tmu_bytes);
		T_EQ_U64(12 * 4, res.counters.uniform_bytes);
		d = qpu_bo_get_map(r.data);
		for (i = 0; i < 192; i++)
			T_EQ_U64(i, d[i]);
		T_EQ_U64(0xffffffffu, d[192]);
		rig_free(&r);
	}
}

/* As upstream v3d: GPU address = offset in the MMU space, granule-aligned, page 0 unmapped. */
T_TEST(buffers_at_mmu_addresses)
{
	struct qpu_dev *dev = qpu_dev_open("emu:v3d42");
	struct qpu_bo *a = dev ? qpu_bo_new(dev, 4096) : NULL;
	struct qpu_bo *b = dev ? qpu_bo_new(dev, GRANULE + 4096) : NULL;
	struct qpu_bo *c = dev ? qpu_bo_new(dev, 4096) : NULL;

	T_CHECK(a && b && c);
	if (a && b && c) {
		T_EQ_U64(GRANULE, qpu_bo_get_bus_addr(a));
		T_EQ_U64(0, qpu_bo_get_bus_addr(b) % GRANULE);
		T_CHECK(qpu_bo_get_bus_addr(b) > qpu_bo_get_bus_addr(a));
		T_CHECK(qpu_bo_get_bus_addr(c) >= qpu_bo_get_bus_addr(b) + 2 * GRANULE);
	}
	qpu_bo_free(a);
	qpu_bo_free(b);
	qpu_bo_free(c);
	qpu_dev_close(dev);
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
		/* no timing model for V3D yet */
		T_EQ_U64(-ENOTTY, qpu_dev_set_board(dev, QPU_BOARD_NONE));
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

	for (k = 0; k < T_ARRAY_SIZE(devs); k++) {
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
		/* a store: a TMU write, not a read */
		T_EQ_U64(QPU_ACCESS_TMU_WRITE, res.fault_access);
		T_CHECK(!strcmp(qpu_access_str(res.fault_access), "TMU write"));
		T_EQ_U64(0x100, res.fault_addr);
		T_EQ_U64(0, qpu_dev_get_param(r.dev, QPU_DEV_PARAM_NUM_QPUS, &nqpus));
		T_CHECK(res.fault_qpu < nqpus);
		T_CHECK(res.fault_thread < 4);
		T_CHECK(res.fault_pc >= qpu_bo_get_bus_addr(r.code) &&
			res.fault_pc < qpu_bo_get_bus_addr(r.code) + 64);
		/* a buffer of the device the job did not name is out of reach */
		other = qpu_bo_new(r.dev, 4096);
		T_CHECK(other);
		if (other) {
			((uint32_t *)qpu_bo_get_map(r.unif))[0] =
				qpu_bo_get_bus_addr(other);
			rig_run(&r, &res);
			T_EQ_U64(QPU_STATUS_FAULT, res.status);
			T_EQ_U64(qpu_bo_get_bus_addr(other), res.fault_addr);
			qpu_bo_free(other);
		}
		rig_free(&r);
	}
}

/* A bad instruction: a fault of no memory access. */
T_TEST(fault_bad_instruction)
{
	struct qpu_job_result res;
	struct rig r;

	if (!rig_init(&r, "emu:v3d42", store_index))
		return;
	((uint64_t *)qpu_bo_get_map(r.code))[1] = ~0ull;
	rig_run(&r, &res);
	T_EQ_U64(QPU_STATUS_FAULT, res.status);
	T_EQ_U64(qpu_bo_get_bus_addr(r.code) + 8, res.fault_pc);
	T_EQ_U64(QPU_ACCESS_OTHER, res.fault_access);
	rig_free(&r);
}

/* QPU_JOB_ALL_BOS: a buffer the job does not name is in reach. */
T_TEST(all_bos)
{
	struct qpu_job_desc desc;
	struct qpu_job_result res;
	uint64_t seqno = 0, features = 0;
	struct rig r;

	if (!rig_init(&r, "emu:v3d71", store_to_unif0))
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
	rig_free(&r);
}

T_TEST(failed_in_fence_cancels)
{
	struct qpu_job_result res;
	uint64_t bad = 0, next = 0;
	int fence = -1;
	struct rig r;

	if (!rig_init(&r, "emu:v3d71", store_to_unif0))
		return;
	((uint32_t *)qpu_bo_get_map(r.unif))[0] = 0x100;
	T_EQ_U64(0, rig_submit(&r, -1, &fence, &bad));
	T_CHECK(fence >= 0);
	T_EQ_U64(0, rig_submit(&r, fence, NULL, &next));
	T_EQ_U64(0, qpu_wait(r.dev, bad, -1, &res));
	T_EQ_U64(QPU_STATUS_FAULT, res.status);
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

/*
 * Workgroups with x = 0 wait on ldtmu with nothing queued, the others at
 * their supergroup's barrier, which those never reach: a deadlock, each
 * QPU's wait named, at once rather than at the timeout.
 */
T_TEST(deadlock_reported)
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
	unsigned int k;

	for (k = 0; k < T_ARRAY_SIZE(devs); k++) {
		struct qpu_job_result res;
		unsigned int q, tmu = 0, barrier = 0;
		uint64_t features = 0;
		struct rig r;

		if (!rig_init(&r, devs[k], stuck))
			continue;
		T_EQ_U64(0, qpu_dev_get_param(r.dev, QPU_DEV_PARAM_FEATURES,
					      &features));
		T_CHECK(features & QPU_DEV_FEATURE_DEADLOCK);
		rig_run(&r, &res);
		T_EQ_U64(QPU_STATUS_DEADLOCK, res.status);
		T_EQ_U64(0, res.fault_access);
		for (q = 0; q < QPU_JOB_MAX_QPUS; q++) {
			if (res.qpus[q].activity == QPU_ACTIVITY_WAIT_TMU) {
				tmu++;
				T_EQ_U64(qpu_bo_get_bus_addr(r.code) + 12 * 8,
					 res.qpus[q].pc);
			} else if (res.qpus[q].activity ==
				   QPU_ACTIVITY_WAIT_BARRIER) {
				barrier++;
				T_EQ_U64(qpu_bo_get_bus_addr(r.code) + 8 * 8,
					 res.qpus[q].pc);
			}
		}
		T_CHECK(tmu > 0);
		T_CHECK(barrier > 0);
		rig_free(&r);
	}
}

T_TEST(timeout)
{
	struct qpu_job_desc desc;
	struct qpu_job_result res;
	uint64_t seqno = 0;
	struct rig r;

	if (!rig_init(&r, "emu:v3d42", spin))
		return;
	r.d.wg_count[0] = r.d.wg_count[1] = 1;
	desc = (struct qpu_job_desc){
		.kind = QPU_JOB_V3D_DISPATCH, .dispatch = &r.d, .in_fence_fd = -1,
		.timeout_ms = 1,
	};
	T_EQ_U64(0, qpu_submit(r.dev, &desc, &seqno));
	T_EQ_U64(0, qpu_wait(r.dev, seqno, -1, &res));
	T_EQ_U64(QPU_STATUS_TIMEOUT, res.status);
	rig_free(&r);
}

T_TEST(bad_descriptions)
{
	struct qpu_program_ref prog;
	struct qpu_job_desc desc;
	struct qpu_job_result res;
	uint64_t seqno = 0;
	struct rig r;

	if (!rig_init(&r, "emu:v3d42", store_index))
		return;
	/* VideoCore IV programs on a V3D device: refused, naming both */
	prog = (struct qpu_program_ref){ .code = r.code, .uniforms = r.unif };
	desc = (struct qpu_job_desc){ .programs = &prog, .program_count = 1,
				      .in_fence_fd = -1 };
	T_EQ_U64(-EINVAL, qpu_submit(r.dev, &desc, &seqno));
	T_CHECK(strstr(qpu_last_error(), "VideoCore IV programs"));
	T_CHECK(strstr(qpu_last_error(), "v3d42"));

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
	/* and the same description, put right, runs */
	desc.bos = &r.data;
	desc.bo_count = 1;
	T_EQ_U64(0, qpu_submit(r.dev, &desc, &seqno));
	T_EQ_U64(0, qpu_wait(r.dev, seqno, -1, &res));
	T_EQ_U64(QPU_STATUS_DONE, res.status);
	rig_free(&r);
}

T_MAIN();
