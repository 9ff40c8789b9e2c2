// SPDX-License-Identifier: MIT
/*
 * libqpu's device API end to end: buffers, submit, wait, fences, faults,
 * uniforms read anywhere in a job, timeouts counted in instructions, and
 * deadlocks, running the same programs on the device --device names.
 * check-host runs it on the in-process emulator (the default, "emu");
 * check-vm runs the same binary, statically linked, on qpu.ko's simulated
 * V3D ("test-runtime --device /dev/qpu"). Buffers shared as dma-bufs, and
 * <qpu_capture.h>'s frames: in the VM, vivid's frames are imported and a
 * QPU job reads the camera's own pages (its threshold of the Y plane is
 * the CPU's of the bytes the camera's V4L2 mapping shows).
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/qpu.h>
#include <linux/videodev2.h>

#include "qpu.h"
#include "qpu_capture.h"
#include "qpu_devmodel.h"
#include "test-device.h"
#include "qpu_kernels.h"
#include "testlib.h"
#include "../kmod/qpu_programs.h"

#define QPUS	12
#define FLOATS	(QPUS * 16)

struct vecadd {
	struct qpu_bo *code, *unif, *a, *b, *c;
	struct qpu_program_ref progs[QPUS];
};

static uint32_t bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static void vecadd_init(struct qpu_dev *dev, struct vecadd *v)
{
	uint32_t *u;
	float *a, *b;
	int k, i;

	v->code = t_bo_or_die(dev, sizeof(qpu_prog_vector_add));
	v->unif = t_bo_or_die(dev, 4096);
	v->a = t_bo_or_die(dev, 4096);
	v->b = t_bo_or_die(dev, 4096);
	v->c = t_bo_or_die(dev, 4096);
	memcpy(qpu_bo_get_map(v->code), qpu_prog_vector_add,
	       sizeof(qpu_prog_vector_add));
	u = qpu_bo_get_map(v->unif);
	a = qpu_bo_get_map(v->a);
	b = qpu_bo_get_map(v->b);
	for (k = 0; k < QPUS; k++) {
		u[4 * k + 0] = qpu_bo_get_bus_addr(v->a) + 64 * k;
		u[4 * k + 1] = qpu_bo_get_bus_addr(v->b) + 64 * k;
		u[4 * k + 2] = qpu_bo_get_bus_addr(v->c) + 64 * k;
		u[4 * k + 3] = k;
		v->progs[k] = (struct qpu_program_ref){
			.code = v->code, .uniforms = v->unif,
			.uniforms_offset = 16 * k,
			.uniforms_length = 4 * QPU_PROG_VECTOR_ADD_UNIFORMS,
		};
	}
	/* Sums of these are exact in any rounding mode. */
	for (i = 0; i < FLOATS; i++) {
		a[i] = (float)(i * 3 - 200) / 4.0f;
		b[i] = (float)(1000 - i) / 2.0f;
	}
}

/* Only the in-process emulator measures a job's counters. */
static bool emulated;

/*
 * Both devices count a job's instructions: expect exactly @n; the
 * emulator also gives the job's counters, a kernel device none.
 */
static void expect_instructions(const struct qpu_job_result *r, uint64_t n)
{
	T_EQ_U64(QPU_JOB_RESULT_INSTRUCTIONS |
		 (emulated ? QPU_JOB_RESULT_COUNTERS : 0), r->flags);
	T_EQ_U64(n, r->instructions);
	if (!emulated)
		T_EQ_U64(0, r->counters.tmu_bytes + r->counters.run_ns);
}

static void vecadd_fini(struct vecadd *v)
{
	qpu_bo_free(v->code);
	qpu_bo_free(v->unif);
	qpu_bo_free(v->a);
	qpu_bo_free(v->b);
	qpu_bo_free(v->c);
}

static void test_buffers(struct qpu_dev *dev)
{
	struct qpu_bo *x = qpu_bo_new(dev, 1), *y = qpu_bo_new(dev, 8192);
	const unsigned char *m;
	size_t i;
	bool zero = true;

	T_CHECK(x && y);
	if (!x || !y)
		return;
	T_EQ_U64(4096, qpu_bo_get_size(x));
	T_EQ_U64(8192, qpu_bo_get_size(y));
	T_EQ_U64(0, qpu_bo_get_bus_addr(x) % 4096);
	/* Disjoint, with a gap: neither starts inside or right after the other. */
	T_CHECK(qpu_bo_get_bus_addr(y) >= qpu_bo_get_bus_addr(x) + 4096 + 4096 ||
		qpu_bo_get_bus_addr(x) >= qpu_bo_get_bus_addr(y) + 8192 + 4096);
	m = qpu_bo_get_map(y);
	for (i = 0; i < 8192; i++)
		zero &= !m[i];
	T_CHECK(zero);
	qpu_bo_free(x);
	qpu_bo_free(y);
	qpu_bo_free(NULL);

	errno = 0;
	T_CHECK(!qpu_bo_new(dev, 0));
	T_EQ_U64(EINVAL, errno);
}

T_TEST(buffers)
{
	test_buffers(device);
}

static void test_vector_add(struct qpu_dev *dev)
{
	struct vecadd v;
	struct qpu_bo *bos[3];
	struct qpu_job_desc job = { .program_count = QPUS, .in_fence_fd = -1 };
	struct qpu_job_result r;
	struct pollfd pfd = { .events = POLLIN };
	const float *a, *b;
	const uint32_t *c;
	uint64_t seqno;
	int fence = -1, i;

	vecadd_init(dev, &v);
	bos[0] = v.a;
	bos[1] = v.b;
	bos[2] = v.c;
	job.programs = v.progs;
	job.bos = bos;
	job.bo_count = 3;
	job.out_fence_fd = &fence;
	T_EQ_U64(0, qpu_submit(dev, &job, &seqno));
	T_CHECK(fence >= 0);
	pfd.fd = fence;
	T_EQ_U64(1, poll(&pfd, 1, 10000));
	close(fence);
	T_EQ_U64(0, qpu_wait(dev, seqno, 10000, &r));
	T_EQ_U64(QPU_STATUS_DONE, r.status);
	T_CHECK(!strcmp("done", qpu_job_status_str(r.status)));
	/* 19 instructions each, the last two in thrend's delay slots. */
	expect_instructions(&r, QPUS * 19);
	if (emulated) {
		/* each: two 16-lane TMU fetches, 4 uniforms, one 64-byte store */
		T_EQ_U64(QPUS * 2 * 64, r.counters.tmu_bytes);
		T_EQ_U64(QPUS * 4 * 4, r.counters.uniform_bytes);
		T_EQ_U64(0, r.counters.dma_load_bytes);
		T_EQ_U64(QPUS * 64, r.counters.dma_store_bytes);
		/* no instruction of it uses both units */
		T_EQ_U64(0, r.counters.dual_issued);
		T_CHECK(r.counters.run_ns > 0);
	}

	a = qpu_bo_get_map(v.a);
	b = qpu_bo_get_map(v.b);
	c = qpu_bo_get_map(v.c);
	for (i = 0; i < FLOATS; i++)
		T_EQ_U64(bits(a[i] + b[i]), c[i]);
	T_EQ_U64(0, c[FLOATS]);

	/* Without C among the job's buffers, the store is stopped. */
	memset(qpu_bo_get_map(v.c), 0, 4096);
	job.bo_count = 2;
	job.out_fence_fd = NULL;
	T_EQ_U64(0, qpu_submit(dev, &job, &seqno));
	T_EQ_U64(0, qpu_wait(dev, seqno, 10000, &r));
	T_EQ_U64(QPU_STATUS_FAULT, r.status);
	T_EQ_U64(QPU_ACCESS_DMA_STORE, r.fault_access);
	T_EQ_U64(qpu_bo_get_bus_addr(v.c) + 64 * r.fault_qpu, r.fault_addr);
	/* Counted up to the fault: some, not all; no store went out. */
	T_CHECK(r.flags & QPU_JOB_RESULT_INSTRUCTIONS);
	T_CHECK(r.instructions > 0 && r.instructions < QPUS * 19);
	if (emulated) {
		T_CHECK(r.flags & QPU_JOB_RESULT_COUNTERS);
		T_EQ_U64(0, r.counters.dma_store_bytes);
		T_CHECK(r.counters.tmu_bytes > 0);
	}
	for (i = 0; i < 1024; i++)
		T_EQ_U64(0, c[i]);

	/* A uniforms length one word short is ignored: the reads go on. */
	job.bo_count = 3;
	for (i = 0; i < QPUS; i++)
		v.progs[i].uniforms_length = 12;
	T_EQ_U64(0, qpu_submit(dev, &job, &seqno));
	T_EQ_U64(0, qpu_wait(dev, seqno, 10000, &r));
	T_EQ_U64(QPU_STATUS_DONE, r.status);

	/* A stream that runs off its buffer's end stops at the first word out. */
	((uint32_t *)qpu_bo_get_map(v.unif))[1022] = qpu_bo_get_bus_addr(v.a);
	((uint32_t *)qpu_bo_get_map(v.unif))[1023] = qpu_bo_get_bus_addr(v.b);
	v.progs[0].uniforms_offset = 4096 - 8;
	v.progs[0].uniforms_length = 0;
	T_EQ_U64(0, qpu_submit(dev, &job, &seqno));
	T_EQ_U64(0, qpu_wait(dev, seqno, 10000, &r));
	T_EQ_U64(QPU_STATUS_FAULT, r.status);
	T_EQ_U64(QPU_ACCESS_UNIFORM, r.fault_access);
	T_EQ_U64(qpu_bo_get_bus_addr(v.unif) + 4096, r.fault_addr);
	vecadd_fini(&v);
}

T_TEST(vector_add)
{
	test_vector_add(device);
}

/*
 * Runs one program (@words, @n of them) with uniforms @unif (@nunif) on
 * @dev, the buffers @in and @out given to the job; its ending in @r.
 */
static void run_one(struct qpu_dev *dev, const uint64_t *words, size_t n,
		    const uint32_t *unif, size_t nunif, struct qpu_bo *in,
		    struct qpu_bo *out, struct qpu_job_result *r)
{
	struct qpu_bo *code = t_bo_or_die(dev, 4096), *u = t_bo_or_die(dev, 4096);
	struct qpu_bo *bos[2] = { in, out };
	struct qpu_program_ref prog = { .code = code, .uniforms = u };
	struct qpu_job_desc job = {
		.programs = &prog, .program_count = 1, .bos = bos, .bo_count = 2,
		.in_fence_fd = -1,
	};
	uint64_t seqno;

	memcpy(qpu_bo_get_map(code), words, n * sizeof(*words));
	memcpy(qpu_bo_get_map(u), unif, nunif * sizeof(*unif));
	T_EQ_U64(0, qpu_submit(dev, &job, &seqno));
	T_EQ_U64(0, qpu_wait(dev, seqno, 10000, r));
	qpu_bo_free(code);
	qpu_bo_free(u);
}

/*
 * The VPM as the hardware decodes it, on every device: a vertical DMA
 * load steps rows by VPITCH (16 one-word rows fill one column), and a
 * generic write whose address passes row 63 wraps (stride 64 keeps the
 * address). The emulator counts the wrapped access; opened as
 * "emu:strict-vpm" it faults there instead; unknown options are refused.
 */
static void test_vpm_decoding(struct qpu_dev *dev)
{
	struct qpu_bo *in = t_bo_or_die(dev, 4096), *out = t_bo_or_die(dev, 4096);
	uint32_t *src = qpu_bo_get_map(in), *dst = qpu_bo_get_map(out);
	uint32_t unif[2] = { qpu_bo_get_bus_addr(in), qpu_bo_get_bus_addr(out) };
	struct qpu_job_result r;
	struct qpu_dev *strict;
	int i;

	for (i = 0; i < 1024; i++)
		src[i] = 0x5000 + i;
	run_one(dev, qpu_prog_vdr_column, T_ARRAY_SIZE(qpu_prog_vdr_column),
		unif, QPU_PROG_VDR_COLUMN_UNIFORMS, in, out, &r);
	T_EQ_U64(QPU_STATUS_DONE, r.status);
	for (i = 0; i < 16; i++)
		T_EQ_U64(0x5000 + 16 * i, dst[i]);

	memset(dst, 0, 4096);
	run_one(dev, qpu_prog_vpm_wrap, T_ARRAY_SIZE(qpu_prog_vpm_wrap),
		unif + 1, QPU_PROG_VPM_WRAP_UNIFORMS, in, out, &r);
	T_EQ_U64(QPU_STATUS_DONE, r.status);
	for (i = 0; i < 16; i++)
		T_EQ_U64(2, dst[i]);
	T_EQ_U64(emulated ? 1 : 0, r.counters.vpm_wrapped);
	qpu_bo_free(in);
	qpu_bo_free(out);
	if (!emulated)
		return;

	strict = qpu_dev_open("emu:strict-vpm");
	T_CHECK(strict != NULL);
	if (!strict)
		return;
	in = t_bo_or_die(strict, 4096);
	out = t_bo_or_die(strict, 4096);
	unif[1] = qpu_bo_get_bus_addr(out);
	run_one(strict, qpu_prog_vpm_wrap, T_ARRAY_SIZE(qpu_prog_vpm_wrap),
		unif + 1, QPU_PROG_VPM_WRAP_UNIFORMS, in, out, &r);
	T_EQ_U64(QPU_STATUS_FAULT, r.status);
	/* at the VPM byte address 0x60 reaches: row 96, column 0 */
	T_EQ_U64(96 * 16 * 4, r.fault_addr);
	T_EQ_U64(0, r.counters.vpm_wrapped);
	qpu_bo_free(in);
	qpu_bo_free(out);
	qpu_dev_close(strict);

	errno = 0;
	T_CHECK(!qpu_dev_open("emu:strict-vpm,no-such-option"));
	T_CHECK(!qpu_dev_open("emu:max-bo-mib=0"));
	T_CHECK(!qpu_dev_open("emu:max-bo-mib=513"));
	T_CHECK(!qpu_dev_open("emu:max-bo-mib=9x"));
	T_EQ_U64(EINVAL, errno);
	strict = qpu_dev_open("emu:");	/* no options */
	T_CHECK(strict != NULL);
	qpu_dev_close(strict);

	/* A larger buffer limit: 65 MiB, GPU_FFT's 2^22 points, fits in 128. */
	strict = qpu_dev_open("emu:strict-vpm,max-bo-mib=128");
	T_CHECK(strict != NULL);
	if (strict) {
		uint64_t max = 0;
		struct qpu_bo *big = qpu_bo_new(strict, 65u << 20);

		T_EQ_U64(0, qpu_dev_get_param(strict, QPU_DEV_PARAM_MAX_BO_SIZE, &max));
		T_EQ_U64(128u << 20, max);
		T_CHECK(big != NULL);
		T_CHECK(!qpu_bo_new(strict, (128u << 20) + 1));
		qpu_bo_free(big);
		qpu_dev_close(strict);
	}
}

T_TEST(vpm_decoding)
{
	test_vpm_decoding(device);
}

/*
 * A program that points its uniform stream into a buffer below its first
 * uniform (a kernel streaming a matrix) reads there: the word it finds,
 * used as a TMU address outside the job, is what faults.
 */
static void test_uniforms_anywhere(struct qpu_dev *dev)
{
	struct qpu_bo *data = t_bo_or_die(dev, 4096);
	struct qpu_bo *code = t_bo_or_die(dev, 4096), *unif = t_bo_or_die(dev, 4096);
	struct qpu_program_ref prog = {
		.code = code, .uniforms = unif, .uniforms_length = 4,
	};
	struct qpu_job_desc job = {
		.programs = &prog, .program_count = 1, .bos = &data,
		.bo_count = 1, .in_fence_fd = -1,
	};
	const uint32_t outside = 0x1000;
	struct qpu_job_result r;
	uint64_t seqno, features = 0;

	T_EQ_U64(0, qpu_dev_get_param(dev, QPU_DEV_PARAM_FEATURES, &features));
	T_CHECK(features & QPU_DEV_FEATURE_UNIFORMS_ANYWHERE);
	T_CHECK(qpu_bo_get_bus_addr(data) < qpu_bo_get_bus_addr(unif));
	memcpy(qpu_bo_get_map(code), qpu_prog_unif_redirect,
	       sizeof(qpu_prog_unif_redirect));
	((uint32_t *)qpu_bo_get_map(unif))[0] = qpu_bo_get_bus_addr(data) + 64;
	((uint32_t *)qpu_bo_get_map(data))[16] = outside;
	T_EQ_U64(0, qpu_submit(dev, &job, &seqno));
	T_EQ_U64(0, qpu_wait(dev, seqno, 10000, &r));
	T_EQ_U64(QPU_STATUS_FAULT, r.status);
	T_EQ_U64(QPU_ACCESS_TMU, r.fault_access);
	T_EQ_U64(outside, r.fault_addr);

	/* Outside every buffer of the job, a uniform read still faults. */
	((uint32_t *)qpu_bo_get_map(unif))[0] = outside;
	T_EQ_U64(0, qpu_submit(dev, &job, &seqno));
	T_EQ_U64(0, qpu_wait(dev, seqno, 10000, &r));
	T_EQ_U64(QPU_STATUS_FAULT, r.status);
	T_EQ_U64(QPU_ACCESS_UNIFORM, r.fault_access);
	T_EQ_U64(outside, r.fault_addr);
	qpu_bo_free(code);
	qpu_bo_free(unif);
	qpu_bo_free(data);
}

T_TEST(uniforms_anywhere)
{
	test_uniforms_anywhere(device);
}

/*
 * QPU_JOB_ALL_BOS: a TMU read of a buffer the job does not list works, as
 * the device's buffers at submit are the job's; a listed buffer besides
 * the flag, or an unknown flag, is refused; the guard gap still faults.
 */
static void test_all_bos(struct qpu_dev *dev)
{
	struct qpu_bo *data = t_bo_or_die(dev, 4096);
	struct qpu_bo *code = t_bo_or_die(dev, 4096), *unif = t_bo_or_die(dev, 4096);
	struct qpu_program_ref prog = { .code = code, .uniforms = unif };
	struct qpu_job_desc job = {
		.programs = &prog, .program_count = 1, .in_fence_fd = -1,
	};
	uint32_t *u = qpu_bo_get_map(unif);
	struct qpu_job_result r;
	uint64_t seqno, features = 0;

	T_EQ_U64(0, qpu_dev_get_param(dev, QPU_DEV_PARAM_FEATURES, &features));
	T_CHECK(features & QPU_DEV_FEATURE_ALL_BOS);
	memcpy(qpu_bo_get_map(code), qpu_prog_tmu_read, sizeof(qpu_prog_tmu_read));
	u[0] = qpu_bo_get_bus_addr(data) + 128;
	/* Unlisted: a fault. */
	T_EQ_U64(0, qpu_submit(dev, &job, &seqno));
	T_EQ_U64(0, qpu_wait(dev, seqno, 10000, &r));
	T_EQ_U64(QPU_STATUS_FAULT, r.status);
	/* Every buffer of the device: done. */
	job.flags = QPU_JOB_ALL_BOS;
	T_EQ_U64(0, qpu_submit(dev, &job, &seqno));
	T_EQ_U64(0, qpu_wait(dev, seqno, 10000, &r));
	T_EQ_U64(QPU_STATUS_DONE, r.status);
	/* The guard gap after a buffer is no buffer. */
	u[0] = qpu_bo_get_bus_addr(data) + qpu_bo_get_size(data);
	T_EQ_U64(0, qpu_submit(dev, &job, &seqno));
	T_EQ_U64(0, qpu_wait(dev, seqno, 10000, &r));
	T_EQ_U64(QPU_STATUS_FAULT, r.status);
	T_EQ_U64(qpu_bo_get_bus_addr(data) + qpu_bo_get_size(data), r.fault_addr);
	/* A list besides the flag; a flag libqpu does not know. */
	job.bos = &data;
	job.bo_count = 1;
	T_EQ_U64(-EINVAL, qpu_submit(dev, &job, &seqno));
	job.bos = NULL;
	job.bo_count = 0;
	job.flags = 1u << 31;
	T_EQ_U64(-EINVAL, qpu_submit(dev, &job, &seqno));
	qpu_bo_free(code);
	qpu_bo_free(unif);
	qpu_bo_free(data);
}

T_TEST(all_bos)
{
	test_all_bos(device);
}

/*
 * Timeouts are progress: a loop on one QPU issues exactly its timeout's
 * budget, QPU_DEV_PARAM_INSTRUCTIONS_PER_MS per millisecond, then stops.
 */
static void test_timeout(struct qpu_dev *dev)
{
	struct qpu_bo *code = t_bo_or_die(dev, 4096), *unif = t_bo_or_die(dev, 4096);
	struct qpu_program_ref prog[QPUS];
	struct qpu_job_desc job = {
		.programs = prog, .program_count = 1, .timeout_ms = 3,
		.in_fence_fd = -1,
	};
	struct qpu_job_result r;
	uint64_t seqno, per_ms = 0;
	int i;

	for (i = 0; i < QPUS; i++)
		prog[i] = (struct qpu_program_ref){ .code = code, .uniforms = unif };
	T_EQ_U64(0, qpu_dev_get_param(dev, QPU_DEV_PARAM_INSTRUCTIONS_PER_MS, &per_ms));
	T_EQ_U64(62500, per_ms);	/* 250 MHz, 4 cycles an instruction */
	memcpy(qpu_bo_get_map(code), qpu_prog_loop, sizeof(qpu_prog_loop));
	T_EQ_U64(0, qpu_submit(dev, &job, &seqno));
	T_EQ_U64(0, qpu_wait(dev, seqno, 60000, &r));
	T_EQ_U64(QPU_STATUS_TIMEOUT, r.status);
	T_CHECK(!strcmp("timed out", qpu_job_status_str(r.status)));
	T_CHECK(r.flags & QPU_JOB_RESULT_INSTRUCTIONS);
	T_EQ_U64(3 * per_ms, r.instructions);

	/*
	 * Twelve: the first to spend its budget stops them all, none past
	 * it (the simulated V3D starts them one by one: the others may lag).
	 */
	job.program_count = QPUS;
	job.timeout_ms = 1;
	T_EQ_U64(0, qpu_submit(dev, &job, &seqno));
	T_EQ_U64(0, qpu_wait(dev, seqno, 60000, &r));
	T_EQ_U64(QPU_STATUS_TIMEOUT, r.status);
	T_CHECK(r.instructions <= QPUS * per_ms);
	T_CHECK(r.instructions >= per_ms);
	job.program_count = 1;
	job.timeout_ms = 100;

	/* The device works after the reset. */
	memcpy(qpu_bo_get_map(code), qpu_prog_end, sizeof(qpu_prog_end));
	T_EQ_U64(0, qpu_submit(dev, &job, &seqno));
	T_EQ_U64(0, qpu_wait(dev, seqno, 10000, &r));
	T_EQ_U64(QPU_STATUS_DONE, r.status);
	expect_instructions(&r, 3);	/* thrend and its two delay slots */
	qpu_bo_free(code);
	qpu_bo_free(unif);
}

T_TEST(timeout)
{
	test_timeout(device);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Runs @job, which must time out; its wall-clock time in ns. */
static uint64_t timed_out_ns(struct qpu_dev *dev, const struct qpu_job_desc *job,
			     struct qpu_job_result *r)
{
	uint64_t seqno, t0 = mono_ns();

	T_EQ_U64(0, qpu_submit(dev, job, &seqno));
	T_EQ_U64(0, qpu_wait(dev, seqno, 60000, r));
	T_EQ_U64(QPU_STATUS_TIMEOUT, r->status);
	return mono_ns() - t0;
}

/*
 * A job's budget counts its work, not its instructions: loops of the
 * largest VCD DMA (16 K words each turn) with a 100 ms timeout end as
 * timed out within 2 s of the wall clock (or, on a host too slow or loaded
 * for that, within three times what loops of ALU instructions with the
 * same timeout take), one program or twelve, having issued a small part of
 * the 100 ms of instructions.
 */
static void test_dma_budget(struct qpu_dev *dev)
{
	struct qpu_bo *code = t_bo_or_die(dev, 4096), *unif = t_bo_or_die(dev, 4096);
	struct qpu_bo *alu = t_bo_or_die(dev, 4096);
	struct qpu_bo *dst = t_bo_or_die(dev, QPU_PROG_DMA_LOOP_BYTES);
	struct qpu_program_ref prog[QPUS];
	struct qpu_job_desc job = {
		.programs = prog, .program_count = 1, .timeout_ms = 100,
		.bos = &dst, .bo_count = 1, .in_fence_fd = -1,
	};
	struct qpu_job_result r;
	uint64_t alu_ns, dma_ns, per_ms = 0;
	int i, n;

	T_EQ_U64(0, qpu_dev_get_param(dev, QPU_DEV_PARAM_INSTRUCTIONS_PER_MS, &per_ms));
	memcpy(qpu_bo_get_map(code), qpu_prog_dma_loop, sizeof(qpu_prog_dma_loop));
	memcpy(qpu_bo_get_map(alu), qpu_prog_loop, sizeof(qpu_prog_loop));
	*(uint32_t *)qpu_bo_get_map(unif) = qpu_bo_get_bus_addr(dst);
	for (n = 1; n <= QPUS; n += QPUS - 1) {
		job.program_count = n;
		for (i = 0; i < QPUS; i++)
			prog[i] = (struct qpu_program_ref){ .code = alu, .uniforms = unif };
		alu_ns = timed_out_ns(dev, &job, &r);
		for (i = 0; i < QPUS; i++)
			prog[i].code = code;
		dma_ns = timed_out_ns(dev, &job, &r);
		T_CHECK(dma_ns < 2000000000ull || dma_ns < 3 * alu_ns);
		if (r.flags & QPU_JOB_RESULT_INSTRUCTIONS)
			T_CHECK(r.instructions < n * 100 * per_ms / 100);
	}
	qpu_bo_free(code);
	qpu_bo_free(unif);
	qpu_bo_free(alu);
	qpu_bo_free(dst);
}

T_TEST(dma_budget)
{
	test_dma_budget(device);
}

/*
 * Programs that wait forever end at once as QPU_STATUS_DEADLOCK (where the
 * device can tell), with each QPU's PC and what it waits on.
 */
static void test_deadlock(struct qpu_dev *dev)
{
	struct qpu_bo *code = t_bo_or_die(dev, 4096), *unif = t_bo_or_die(dev, 4096);
	uint32_t base = qpu_bo_get_bus_addr(code);
	struct qpu_program_ref prog[2] = {
		{ .code = code, .code_offset = QPU_PROG_DEADLOCK_SEM_OFFSET,
		  .uniforms = unif },
		{ .code = code, .code_offset = QPU_PROG_DEADLOCK_TMU_OFFSET,
		  .uniforms = unif },
	};
	struct qpu_job_desc job = {
		.programs = prog, .program_count = 2, .in_fence_fd = -1,
		.timeout_ms = QPU_JOB_TIMEOUT_NONE,
	};
	struct qpu_job_result r;
	uint64_t seqno, features = 0;
	unsigned int i;

	T_EQ_U64(0, qpu_dev_get_param(dev, QPU_DEV_PARAM_FEATURES, &features));
	T_CHECK(features & QPU_DEV_FEATURE_DEADLOCK);
	memcpy(qpu_bo_get_map(code), qpu_prog_deadlock, sizeof(qpu_prog_deadlock));
	T_EQ_U64(0, qpu_submit(dev, &job, &seqno));
	T_EQ_U64(0, qpu_wait(dev, seqno, 60000, &r));
	T_EQ_U64(QPU_STATUS_DEADLOCK, r.status);
	T_EQ_STR("deadlock", qpu_job_status_str(r.status));
	T_CHECK(r.flags & QPU_JOB_RESULT_QPUS);
	T_EQ_U64(QPUS, r.qpu_count);
	T_EQ_U64(base + QPU_PROG_DEADLOCK_SEM_OFFSET, r.qpus[0].pc);
	T_EQ_U64(QPU_ACTIVITY_WAIT_SEMAPHORE, r.qpus[0].activity);
	T_EQ_U64(QPU_PROG_DEADLOCK_SEM, r.qpus[0].semaphore);
	T_EQ_U64(base + QPU_PROG_DEADLOCK_TMU_OFFSET, r.qpus[1].pc);
	T_EQ_U64(QPU_ACTIVITY_WAIT_TMU, r.qpus[1].activity);
	for (i = 2; i < QPUS; i++)
		T_EQ_U64(QPU_ACTIVITY_IDLE, r.qpus[i].activity);
	/* Nothing ran: each waits at its first instruction. */
	T_EQ_U64(0, r.instructions);

	qpu_bo_free(code);
	qpu_bo_free(unif);
}

T_TEST(deadlock)
{
	test_deadlock(device);
}

static void test_bad_jobs(struct qpu_dev *dev)
{
	struct qpu_bo *code = t_bo_or_die(dev, 4096), *unif = t_bo_or_die(dev, 4096);
	struct qpu_program_ref progs[17];
	struct qpu_job_desc job = { .programs = progs, .in_fence_fd = -1 };
	struct qpu_job_result r;
	struct qpu_dev *other = qpu_dev_open("emu");
	struct qpu_bo *foreign = other ? qpu_bo_new(other, 4096) : NULL;
	uint64_t seqno;
	int i;

	for (i = 0; i < 17; i++)
		progs[i] = (struct qpu_program_ref){ .code = code, .uniforms = unif };
	job.program_count = 0;
	T_EQ_U64(-EINVAL, qpu_submit(dev, &job, &seqno));
	job.program_count = 17;
	T_EQ_U64(-EINVAL, qpu_submit(dev, &job, &seqno));
	job.program_count = 1;
	progs[0].code_offset = 4;
	T_EQ_U64(-EINVAL, qpu_submit(dev, &job, &seqno));
	progs[0].code_offset = 0;
	progs[0].uniforms_length = 6;
	T_EQ_U64(-EINVAL, qpu_submit(dev, &job, &seqno));
	progs[0].uniforms_length = 0;
	/* A buffer of another device is refused before anything runs. */
	T_CHECK(foreign != NULL);
	progs[0].code = foreign;
	T_EQ_U64(-EINVAL, qpu_submit(dev, &job, &seqno));
	progs[0].code = code;

	T_EQ_U64(-ENOENT, qpu_wait(dev, 987654, 0, &r));
	qpu_bo_free(foreign);
	qpu_dev_close(other);
	qpu_bo_free(code);
	qpu_bo_free(unif);
}

T_TEST(bad_jobs)
{
	test_bad_jobs(device);
}

static void test_params(struct qpu_dev *dev)
{
	uint64_t v = 0;

	T_EQ_U64(0, qpu_dev_get_param(dev, QPU_DEV_PARAM_NUM_QPUS, &v));
	T_EQ_U64(12, v);
	T_EQ_U64(0, qpu_dev_get_param(dev, QPU_DEV_PARAM_ABI_VERSION, &v));
	T_EQ_U64(QPU_ABI_VERSION, v);
	T_EQ_U64(-EINVAL, qpu_dev_get_param(dev, 0xffff, &v));

	/* The names qpu-info and qpuctl print. */
	T_EQ_STR("hardware", qpu_backend_name(QPU_DEV_BACKEND_HARDWARE));
	T_EQ_STR("simulated", qpu_backend_name(QPU_DEV_BACKEND_SIMULATED));
	T_EQ_STR("unknown", qpu_backend_name(0));
	T_EQ_STR("unknown", qpu_backend_name(99));

	/* libqpu's numbers are its own: qpu.ko's are translated */
	T_EQ_U64(QPU_DEV_BACKEND_HARDWARE, qpu_dev_backend_from_uapi(QPU_BACKEND_HW));
	T_EQ_U64(QPU_DEV_BACKEND_SIMULATED, qpu_dev_backend_from_uapi(QPU_BACKEND_SIM));
	T_EQ_U64(0, qpu_dev_backend_from_uapi(99));
	T_EQ_STR("memory fault", qpu_job_status_str(QPU_STATUS_FAULT));
	T_EQ_STR("canceled", qpu_job_status_str(QPU_STATUS_CANCELED));
	T_EQ_STR("unknown", qpu_job_status_str(0));
	T_EQ_STR("DMA store", qpu_access_str(QPU_ACCESS_DMA_STORE));
	T_EQ_STR("unknown", qpu_access_str(QPU_ACCESS_NONE));
}

T_TEST(params)
{
	test_params(device);
}

/*
 * Both simulated devices follow one device model (qpu_devmodel.h): the
 * same default limits, and a 33 MiB arena (PyVideoCore's default driver
 * allocates one at once) fits in one buffer, mapped to its last byte, its
 * bus address above the model's start.
 */
static void test_device_model(struct qpu_dev *dev)
{
	const size_t arena = 33u << 20;
	struct qpu_bo *bo;
	uint64_t v = 0;

	T_EQ_U64(0, qpu_dev_get_param(dev, QPU_DEV_PARAM_MAX_BO_SIZE, &v));
	T_EQ_U64(QPU_DEVMODEL_MAX_BO_SIZE, v);
	T_EQ_U64(0, qpu_dev_get_param(dev, QPU_DEV_PARAM_DEFAULT_TIMEOUT_MS, &v));
	T_EQ_U64(QPU_DEVMODEL_DEFAULT_TIMEOUT_MS, v);
	T_EQ_U64(0, qpu_dev_get_param(dev, QPU_DEV_PARAM_MAX_TIMEOUT_MS, &v));
	T_EQ_U64(QPU_DEVMODEL_MAX_TIMEOUT_MS, v);

	bo = qpu_bo_new(dev, arena);
	T_CHECK(bo != NULL);
	if (!bo)
		return;
	T_EQ_U64(arena, qpu_bo_get_size(bo));
	T_CHECK(qpu_bo_get_bus_addr(bo) >= QPU_DEVMODEL_BUS_START);
	((volatile uint8_t *)qpu_bo_get_map(bo))[arena - 1] = 1;
	qpu_bo_free(bo);
}

T_TEST(device_model)
{
	test_device_model(device);
}

/* A one-program job of qpu_prog_end gated by @in_fence; its fence in *@out. */
static int submit_end(struct qpu_dev *dev, struct qpu_bo *code, struct qpu_bo *unif,
		      int in_fence, int *out, uint64_t *seqno)
{
	struct qpu_program_ref prog = { .code = code, .uniforms = unif };
	struct qpu_job_desc job = {
		.programs = &prog, .program_count = 1,
		.in_fence_fd = in_fence, .out_fence_fd = out,
	};

	return qpu_submit(dev, &job, seqno);
}

static bool fence_readable(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) == 1;
}

static struct qpu_bo *end_program(struct qpu_dev *dev)
{
	struct qpu_bo *code = t_bo_or_die(dev, 4096);

	memcpy(qpu_bo_get_map(code), qpu_prog_end, sizeof(qpu_prog_end));
	return code;
}

/*
 * A fence that signals later. The emulator's fences are eventfds, so on it
 * the gate is an eventfd the test writes. qpu.ko's in-fences are
 * sync_files: there the gate is the out-fence of a job the simulated V3D
 * holds back by its latency_us knob (each program waits 300 ms), which
 * opens by itself.
 */
#define GATE_LATENCY	"/sys/kernel/debug/qpu/qpu/latency_us"

struct gate {
	int fd;
	struct qpu_bo *code, *unif;
};

static bool write_knob(const char *path, const char *value)
{
	FILE *f = fopen(path, "w");
	bool ok = f && fputs(value, f) >= 0;

	return f ? !fclose(f) && ok : false;
}

static void gate_open(struct qpu_dev *dev, struct gate *g)
{
	uint64_t seqno;

	g->fd = -1;
	g->code = g->unif = NULL;
	if (emulated) {
		g->fd = eventfd(0, EFD_CLOEXEC);
		T_CHECK(g->fd >= 0);
		return;
	}
	g->code = end_program(dev);
	g->unif = t_bo_or_die(dev, 4096);
	T_CHECK(write_knob(GATE_LATENCY, "300000"));
	T_EQ_U64(0, submit_end(dev, g->code, g->unif, -1, &g->fd, &seqno));
}

static void gate_release(struct gate *g)
{
	uint64_t one = 1;

	if (emulated)
		T_CHECK(write(g->fd, &one, sizeof(one)) == sizeof(one));
}

static void gate_close(struct gate *g)
{
	close(g->fd);
	qpu_bo_free(g->code);
	qpu_bo_free(g->unif);
}

/*
 * qpu_submit() never waits for an in-fence: a gated job is queued, the
 * jobs after it wait behind it (a file's jobs run in order), its buffers
 * stay its own when the caller frees them (the bus range stays taken), and
 * closing the device ends what is queued with its fences signalled. Both
 * devices, the same expectations.
 */
static void test_fence_queue(struct qpu_dev *dev, const char *path)
{
	struct qpu_bo *code = end_program(dev), *unif = t_bo_or_die(dev, 4096);
	struct qpu_bo *code2 = end_program(dev), *other;
	uint32_t freed_addr = qpu_bo_get_bus_addr(code2);
	int fa = -1, fb = -1, bad;
	struct qpu_job_result r;
	struct qpu_dev *dev2;
	struct gate gate;
	uint64_t a, b;

	gate_open(dev, &gate);
	T_EQ_U64(0, submit_end(dev, code2, unif, gate.fd, &fa, &a));
	T_EQ_U64(0, submit_end(dev, code, unif, -1, &fb, &b));
	T_EQ_U64(-ETIME, qpu_wait(dev, a, 0, &r));
	T_EQ_U64(-ETIME, qpu_wait(dev, a, 50, &r));
	T_EQ_U64(-ETIME, qpu_wait(dev, b, 0, &r));
	T_CHECK(!fence_readable(fa) && !fence_readable(fb));
	/* Freed while queued: the job keeps it, its bus range stays taken. */
	qpu_bo_free(code2);
	other = t_bo_or_die(dev, 4096);
	T_CHECK(qpu_bo_get_bus_addr(other) != freed_addr);
	gate_release(&gate);
	T_EQ_U64(0, qpu_wait(dev, b, 10000, &r));
	T_EQ_U64(QPU_STATUS_DONE, r.status);
	T_EQ_U64(0, qpu_wait(dev, a, 0, &r));
	T_EQ_U64(QPU_STATUS_DONE, r.status);
	T_CHECK(fence_readable(fa) && fence_readable(fb));
	close(fa);
	close(fb);
	qpu_bo_free(other);

	/* An in-fence that is no open file is refused. */
	bad = dup(gate.fd);
	close(bad);
	T_EQ_U64(-EINVAL, submit_end(dev, code, unif, bad, NULL, &a));
	gate_close(&gate);

	/* Closing a device ends its queued jobs; their fences signal. */
	dev2 = qpu_dev_open(path);
	T_CHECK(dev2 != NULL);
	if (dev2) {
		struct qpu_bo *c2 = end_program(dev2), *u2 = t_bo_or_die(dev2, 4096);

		gate_open(dev, &gate);
		T_EQ_U64(0, submit_end(dev2, c2, u2, gate.fd, &fa, &a));
		T_CHECK(!fence_readable(fa));
		qpu_bo_free(c2);
		qpu_bo_free(u2);
		qpu_dev_close(dev2);
		T_EQ_U64(1, poll(&(struct pollfd){ .fd = fa, .events = POLLIN }, 1, 10000));
		close(fa);
		gate_close(&gate);
	}
	if (!emulated)
		T_CHECK(write_knob(GATE_LATENCY, "0"));
	qpu_bo_free(code);
	qpu_bo_free(unif);
}

T_TEST(fence_queue)
{
	test_fence_queue(device, device_path);
}

/*
 * dma-buf sharing: a buffer imported from an fd is the fd's own memory to
 * jobs (qpu.ko: our own export, the same BO; the emulator: a memfd), and
 * what each device refuses.
 */
static void test_dmabuf(struct qpu_dev *dev)
{
	struct qpu_bo *src = NULL, *in = NULL, *bad = (struct qpu_bo *)1, *bos[2];
	struct qpu_job_desc job = { .program_count = QPUS, .in_fence_fd = -1 };
	struct qpu_job_result r;
	const size_t size = 8192;
	struct vecadd v;
	uint64_t seqno;
	int fd = -1, mfd, out = 0, k, i;
	const float *a, *b;
	uint32_t *u, *m;

	T_EQ_U64(-EBADF, qpu_bo_import_dmabuf(dev, -1, 0, &bad));
	T_CHECK(!bad);
	mfd = memfd_create("test-runtime", MFD_CLOEXEC);
	T_CHECK(mfd >= 0 && !ftruncate(mfd, size));
	vecadd_init(dev, &v);
	if (emulated) {
		T_EQ_U64(-ENOTSUP, qpu_bo_export_dmabuf(v.b, &out));
		T_EQ_U64(-1, out);
		T_CHECK(strstr(qpu_last_error(), "cannot export"));
		fd = mfd;
	} else {
		/* qpu.ko takes dma-bufs only: a memfd is not one. */
		T_EQ_U64(-EINVAL, qpu_bo_import_dmabuf(dev, mfd, 0, &bad));
		T_CHECK(strstr(qpu_last_error(), "cannot import"));
		close(mfd);
		src = t_bo_or_die(dev, size);
		T_EQ_U64(0, qpu_bo_export_dmabuf(src, &fd));
	}
	T_EQ_U64(-EINVAL, qpu_bo_import_dmabuf(dev, fd, size + 4096, &bad));
	T_CHECK(!bad);
	T_EQ_U64(0, qpu_bo_import_dmabuf(dev, fd, 0, &in));
	if (!in)
		goto out;
	T_EQ_U64(size, qpu_bo_get_size(in));
	if (src)
		T_EQ_U64(qpu_bo_get_bus_addr(src), qpu_bo_get_bus_addr(in));
	/* The fd's own mapping, after the fd is gone: the same pages. */
	m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	T_CHECK(m != MAP_FAILED);
	close(fd);
	if (m == MAP_FAILED)
		goto out;
	memcpy(m, qpu_bo_get_map(v.a), FLOATS * 4);
	u = qpu_bo_get_map(v.unif);
	for (k = 0; k < QPUS; k++) {
		u[4 * k + 0] = qpu_bo_get_bus_addr(in) + 64 * k;
		u[4 * k + 2] = qpu_bo_get_bus_addr(in) + 4096 + 64 * k;
	}
	bos[0] = in;
	bos[1] = v.b;
	job.programs = v.progs;
	job.bos = bos;
	job.bo_count = 2;
	T_EQ_U64(0, qpu_submit(dev, &job, &seqno));
	T_EQ_U64(0, qpu_wait(dev, seqno, 10000, &r));
	T_EQ_U64(QPU_STATUS_DONE, r.status);
	a = qpu_bo_get_map(v.a);
	b = qpu_bo_get_map(v.b);
	for (i = 0; i < FLOATS; i++)
		T_EQ_U64(bits(a[i] + b[i]), m[1024 + i]);
	T_EQ_U64(m[1024], ((const uint32_t *)qpu_bo_get_map(in))[1024]);
	munmap(m, size);
out:
	qpu_bo_free(in);
	qpu_bo_free(src);
	vecadd_fini(&v);
}

T_TEST(dmabuf)
{
	test_dmabuf(device);
}

/* --- <qpu_capture.h>: V4L2 frames imported (vivid in the VM) --- */

/* A size vivid's webcam input gives (its smallest), as asked. */
#define CAPTURE_W	320
#define CAPTURE_H	180

/* vivid's first single-planar capture node into @path; false without. */
static bool find_vivid(char *path, size_t size)
{
	int i;

	for (i = 0; i < 64; i++) {
		struct v4l2_capability c = { 0 };
		int fd;

		snprintf(path, size, "/dev/video%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!ioctl(fd, VIDIOC_QUERYCAP, &c) && !strcmp((char *)c.driver, "vivid") &&
		    (c.device_caps & V4L2_CAP_VIDEO_CAPTURE)) {
			close(fd);
			return true;
		}
		close(fd);
	}
	return false;
}

T_TEST(capture_refusals)
{
	struct qpu_capture_config cfg = {
		.path = "/nonexistent/video0", .width = CAPTURE_W, .height = CAPTURE_H,
		.fourcc = QPU_CAPTURE_NV12,
	};
	struct qpu_capture *cap = (struct qpu_capture *)1;

	T_EQ_U64(-ENOENT, qpu_capture_open(device, &cfg, &cap));
	T_CHECK(!cap);
	T_CHECK(strstr(qpu_last_error(), "/nonexistent/video0"));
	cfg.path = "/dev/null";
	T_EQ_U64(-ENODEV, qpu_capture_open(device, &cfg, &cap));
	T_CHECK(strstr(qpu_last_error(), "not a V4L2"));
	cfg.fourcc = QPU_CAPTURE_FOURCC('X', 'X', 'X', 'X');
	T_EQ_U64(-EINVAL, qpu_capture_open(device, &cfg, &cap));
	T_CHECK(strstr(qpu_last_error(), "XXXX"));
	cfg.fourcc = QPU_CAPTURE_NV12;
	cfg.buffers = 1;
	T_EQ_U64(-EINVAL, qpu_capture_open(device, &cfg, &cap));
	cfg.buffers = 0;
	cfg.width = 0;
	T_EQ_U64(-EINVAL, qpu_capture_open(device, &cfg, &cap));
	qpu_capture_close(NULL);
}

/* The camera's own mapping of buffer @index (V4L2 MMAP), or MAP_FAILED. */
static void *camera_map(int fd, unsigned int index, size_t *len)
{
	struct v4l2_buffer b = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_MMAP,
		.index = index,
	};

	if (ioctl(fd, VIDIOC_QUERYBUF, &b))
		return MAP_FAILED;
	*len = b.length;
	return mmap(NULL, b.length, PROT_READ, MAP_SHARED, fd, b.m.offset);
}

T_TEST(vivid_frames_are_the_cameras_pages)
{
	struct qpu_capture_config cfg = {
		.width = CAPTURE_W, .height = CAPTURE_H, .fourcc = QPU_CAPTURE_NV12, .buffers = 3,
	};
	struct qpu_capture *cap;
	struct qpu_capture_frame f;
	struct qpu_kernels *k;
	struct qpu_bo *out;
	struct qpu_image in_img, out_img;
	char path[32];
	uint32_t last = 0;
	int n, ret;

	if (!find_vivid(path, sizeof(path)))
		T_SKIP("no vivid capture node (modprobe vivid)");
	cfg.path = path;
	ret = qpu_capture_open(device, &cfg, &cap);
	T_EQ_U64(0, ret);
	if (ret) {
		fprintf(stderr, "%s\n", qpu_last_error());
		return;
	}
	k = qpu_kernels_new(device);
	out = qpu_bo_new(device, CAPTURE_W * CAPTURE_H);
	T_CHECK(k && out);
	T_EQ_U64(0, qpu_capture_start(cap));
	for (n = 0; n < 3 && k && out; n++) {
		const unsigned char *cam, *o, *m;
		size_t len, i, bad = 0;

		ret = qpu_capture_dequeue(cap, 10000, &f);
		T_EQ_U64(0, ret);
		if (ret)
			break;
		T_EQ_U64(CAPTURE_W, f.width);
		T_EQ_U64(CAPTURE_H, f.height);
		T_EQ_U64(CAPTURE_W, f.strides[0]);
		if (f.width != CAPTURE_W || f.height != CAPTURE_H || f.strides[0] != CAPTURE_W)
			break;
		T_EQ_U64(QPU_CAPTURE_NV12, f.fourcc);
		T_EQ_U64(2, f.planes);
		T_EQ_U64(CAPTURE_W * CAPTURE_H, f.offsets[1]);
		T_CHECK(f.bytesused >= CAPTURE_W * CAPTURE_H * 3 / 2);
		T_CHECK(qpu_bo_get_size(f.bo) >= f.bytesused);
		T_CHECK(n == 0 || f.sequence > last);
		last = f.sequence;

		cam = camera_map(qpu_capture_fd(cap), f.index, &len);
		T_CHECK(cam != MAP_FAILED && len >= CAPTURE_W * CAPTURE_H * 3 / 2);
		if (cam == MAP_FAILED || len < CAPTURE_W * CAPTURE_H * 3 / 2)
			break;
		m = qpu_bo_get_map(f.bo);
		T_EQ_U64(0, memcmp(cam, m, CAPTURE_W * CAPTURE_H * 3 / 2));
		in_img = (struct qpu_image){ .bo = f.bo, .width = CAPTURE_W, .height = CAPTURE_H, .stride = CAPTURE_W };
		out_img = (struct qpu_image){ .bo = out, .width = CAPTURE_W, .height = CAPTURE_H, .stride = CAPTURE_W };
		T_EQ_U64(0, qpu_threshold(k, 4, &in_img, &out_img, 100, 255, NULL));
		o = qpu_bo_get_map(out);
		for (i = 0; i < CAPTURE_W * CAPTURE_H; i++)
			bad += o[i] != (cam[i] > 100 ? 255 : 0);
		T_EQ_U64(0, bad);
		munmap((void *)cam, len);
		T_EQ_U64(0, qpu_capture_queue(cap, &f));
	}
	f.index = 99;
	T_EQ_U64(-EINVAL, qpu_capture_queue(cap, &f));
	qpu_bo_free(out);
	qpu_kernels_free(k);
	qpu_capture_close(cap);
}

static int open_device(void)
{
	int ret = t_device_open();

	if (ret == T_EXIT_PASS)
		emulated = strstr(qpu_dev_describe(device), "emulator") != NULL;
	return ret;
}

T_TEST(open_nonexistent)
{
	errno = 0;
	T_CHECK(!qpu_dev_open("/nonexistent/qpu"));
	T_EQ_U64(ENOENT, errno);
}

T_MAIN(.setup = open_device, .teardown = t_device_close, .options = device_options)
