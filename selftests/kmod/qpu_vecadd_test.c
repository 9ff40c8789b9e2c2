// SPDX-License-Identifier: GPL-2.0
/*
 * A real program through /dev/qpu: each of the 12 QPUs adds a 16-float
 * slice of A and B, read with TMU lookups, and writes its slice of C
 * through the VPM with a VCD DMA store. The results are checked against
 * the CPU. Without C in the job's BO list, the DMA store is stopped with a
 * fault before it writes anything.
 *
 * Uniforms of QPU k: A + 64k, B + 64k, C + 64k, k (its VPM row).
 */

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/qpu.h>

#include "kselftest_harness.h"
#include "qpu_programs.h"
#include "qpu_util.h"

#define QPUS		12
#define FLOATS		(QPUS * 16)


static uint32_t bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

FIXTURE(vecadd) {
	int fd;
	struct qpu_test_bo code, unif, a, b, c;
};

FIXTURE_SETUP(vecadd)
{
	uint32_t *u;
	float *a, *b;
	int k, i;

	self->fd = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG("open " QPU_NODE ": %s", strerror(errno));
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, NULL, 0, &self->code));
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, NULL, 0, &self->unif));
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, NULL, 0, &self->a));
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, NULL, 0, &self->b));
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, NULL, 0, &self->c));
	memcpy(self->code.map, qpu_prog_vector_add, sizeof(qpu_prog_vector_add));

	u = self->unif.map;
	a = self->a.map;
	b = self->b.map;
	for (k = 0; k < QPUS; k++) {
		u[4 * k + 0] = self->a.bus_addr + 64 * k;
		u[4 * k + 1] = self->b.bus_addr + 64 * k;
		u[4 * k + 2] = self->c.bus_addr + 64 * k;
		u[4 * k + 3] = k;
	}
	/* Sums of these are exact whatever the rounding mode. */
	for (i = 0; i < FLOATS; i++) {
		a[i] = (float)(i * 3 - 200) / 4.0f;
		b[i] = (float)(1000 - i) / 2.0f;
	}
}

FIXTURE_TEARDOWN(vecadd)
{
	close(self->fd);
}

/* Runs the 12 programs, each allowed @unif_length bytes of uniforms. */
static int run_limited(int fd, const struct qpu_test_bo *code, const struct qpu_test_bo *unif,
		       const uint32_t *handles, unsigned int count,
		       uint32_t unif_length, struct qpu_wait *w)
{
	struct qpu_program progs[QPUS];
	struct qpu_submit s = {
		.programs = (uintptr_t)progs,
		.program_count = QPUS,
		.program_size = sizeof(progs[0]),
		.bo_handles = (uintptr_t)handles,
		.bo_count = count,
	};
	struct timespec now;
	int k;

	for (k = 0; k < QPUS; k++)
		progs[k] = (struct qpu_program){
			.code_handle = code->handle, .unif_handle = unif->handle,
			.unif_offset = 16 * k, .unif_length = unif_length,
		};
	if (ioctl(fd, QPU_IOCTL_SUBMIT, &s))
		return -errno;
	clock_gettime(CLOCK_MONOTONIC, &now);
	*w = (struct qpu_wait){
		.seqno = s.seqno,
		.timeout_ns = (now.tv_sec + 10) * 1000000000ll + now.tv_nsec,
	};
	if (ioctl(fd, QPU_IOCTL_WAIT, w))
		return -errno;
	return w->status;
}

static int run(int fd, const struct qpu_test_bo *code, const struct qpu_test_bo *unif,
	       const uint32_t *handles, unsigned int count, struct qpu_wait *w)
{
	return run_limited(fd, code, unif, handles, count, 0, w);
}

TEST_F(vecadd, twelve_qpus_add_vectors)
{
	uint32_t handles[] = { self->a.handle, self->b.handle, self->c.handle };
	const float *a = self->a.map, *b = self->b.map;
	const uint32_t *c = self->c.map;
	struct qpu_wait w;
	int round, i;

	for (round = 0; round < 3; round++) {
		memset(self->c.map, 0, 4096);
		ASSERT_EQ(QPU_JOB_DONE, run(self->fd, &self->code, &self->unif,
					    handles, 3, &w));
		for (i = 0; i < FLOATS; i++)
			ASSERT_EQ(bits(a[i] + b[i]), c[i]) TH_LOG("element %d", i);
		/* Nothing past the 192 results was written. */
		EXPECT_EQ(0, c[FLOATS]);
	}
}

TEST_F(vecadd, store_outside_job_faults_and_writes_nothing)
{
	uint32_t handles[] = { self->a.handle, self->b.handle };
	const uint32_t *c = self->c.map;
	struct qpu_wait w;
	int i;

	ASSERT_EQ(QPU_JOB_FAULT, run(self->fd, &self->code, &self->unif,
				     handles, 2, &w));
	EXPECT_EQ(QPU_FAULT_DMA_STORE, w.fault_access);
	EXPECT_GT(QPUS, w.fault_qpu);
	EXPECT_EQ(self->c.bus_addr + 64 * w.fault_qpu, w.fault_addr);
	EXPECT_LE(self->code.bus_addr, w.fault_pc);
	EXPECT_GT(self->code.bus_addr + sizeof(qpu_prog_vector_add), w.fault_pc);
	for (i = 0; i < 1024; i++)
		ASSERT_EQ(0, c[i]) TH_LOG("word %d written", i);

	/* The V3D was reset and works: the same job with C listed runs. */
	{
		uint32_t all[] = { self->a.handle, self->b.handle, self->c.handle };

		EXPECT_EQ(QPU_JOB_DONE, run(self->fd, &self->code, &self->unif,
					    all, 3, &w));
	}
}

/*
 * Each program reads 4 uniforms: a 12-byte unif_length no longer stops it
 * at the 4th (QPU_FEATURE_UNIFORMS_ANYWHERE); the sums come out right.
 */
TEST_F(vecadd, uniforms_past_their_length_read)
{
	uint32_t handles[] = { self->a.handle, self->b.handle, self->c.handle };
	const float *a = self->a.map, *b = self->b.map;
	const uint32_t *c = self->c.map;
	struct qpu_wait w;
	int i;

	ASSERT_EQ(QPU_JOB_DONE, run_limited(self->fd, &self->code, &self->unif,
					    handles, 3, 12, &w));
	for (i = 0; i < FLOATS; i++)
		ASSERT_EQ(bits(a[i] + b[i]), c[i]) TH_LOG("element %d", i);
}

/* Another client's infinite loop is reset; our results are still right. */
TEST_F_TIMEOUT(vecadd, correct_beside_a_hung_client, 30)
{
	uint32_t handles[] = { self->a.handle, self->b.handle, self->c.handle };
	const float *a = self->a.map, *b = self->b.map;
	const uint32_t *c = self->c.map;
	int fd2 = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	struct qpu_program prog;
	struct qpu_submit s;
	struct qpu_test_bo code2, unif2;
	struct qpu_wait w;
	int i;

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, qpu_test_bo_new(fd2, 4096, NULL, 0, &code2));
	ASSERT_EQ(0, qpu_test_bo_new(fd2, 4096, NULL, 0, &unif2));
	memcpy(code2.map, qpu_prog_loop, sizeof(qpu_prog_loop));
	prog = (struct qpu_program){ .code_handle = code2.handle,
				     .unif_handle = unif2.handle };
	s = (struct qpu_submit){
		.programs = (uintptr_t)&prog, .program_count = 1,
		.program_size = sizeof(prog), .timeout_ms = 20,
	};
	ASSERT_EQ(0, ioctl(fd2, QPU_IOCTL_SUBMIT, &s));

	ASSERT_EQ(QPU_JOB_DONE, run(self->fd, &self->code, &self->unif,
				    handles, 3, &w));
	for (i = 0; i < FLOATS; i++)
		ASSERT_EQ(bits(a[i] + b[i]), c[i]) TH_LOG("element %d", i);
	close(fd2);
}

TEST_HARNESS_MAIN
