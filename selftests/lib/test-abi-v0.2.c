// SPDX-License-Identifier: MIT
/*
 * test-abi-v0.2: a program built against libqpu 0.2, whose struct
 * qpu_job_result ended before today's timing, bound to qpu_wait@LIBQPU_0.2
 * and linked against today's libqpu.so: on an emulator that models a
 * board (so today's result carries a timing), the old entry point fills
 * exactly 0.2's bytes (the guard words after them stay), without
 * QPU_JOB_RESULT_TIMING, and today's qpu_wait fills the timing. Likewise
 * a program built against 0.3 or 0.4, whose struct qpu_job_desc ended at
 * its flags, bound to qpu_submit@LIBQPU_0.3: whatever its memory holds
 * after that struct (where today's kind and dispatch are), its VideoCore
 * IV programs run, and today's qpu_submit reads the kind. And a program
 * built against 0.4 to 0.6, whose struct ended at the timing, bound to
 * qpu_wait@LIBQPU_0.4: it gets the timing, not the progress after it.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "qpu.h"
#include "testlib.h"
#include "../kmod/qpu_programs.h"

#define V0_2_SIZE	offsetof(struct qpu_job_result, timing)
#define GUARD		0xa5a5a5a5a5a5a5a5ull

int qpu_wait_v0_2(struct qpu_dev *dev, uint64_t seqno, int timeout_ms, void *result);
__asm__(".symver qpu_wait_v0_2, qpu_wait@LIBQPU_0.2");
int qpu_submit_v0_3(struct qpu_dev *dev, const void *desc, uint64_t *seqno);
__asm__(".symver qpu_submit_v0_3, qpu_submit@LIBQPU_0.3");
int qpu_wait_v0_4(struct qpu_dev *dev, uint64_t seqno, int timeout_ms, void *result);
__asm__(".symver qpu_wait_v0_4, qpu_wait@LIBQPU_0.4");

/* 0.2's struct and what follows it in the caller's memory. */
struct slot {
	union {
		struct qpu_job_result_prefix {
			enum qpu_status status;
			uint32_t fault_qpu, fault_pc, fault_addr;
			enum qpu_access fault_access;
			uint32_t flags;
		} head;
		unsigned char bytes[V0_2_SIZE];
	} r;
	uint64_t guard[16];
};

static struct qpu_dev *dev;
static struct qpu_bo *code, *unif;

/* One device that models a board, and a job that ends at once. */
static int open_emu(void)
{
	dev = qpu_dev_open("emu:board=pi1");
	if (!dev) {
		fprintf(stderr, "qpu_dev_open(emu:board=pi1): %s\n", strerror(errno));
		return T_EXIT_FAIL;
	}
	code = t_bo_or_die(dev, 4096);
	unif = t_bo_or_die(dev, 4096);
	memcpy(qpu_bo_get_map(code), qpu_prog_end, sizeof(qpu_prog_end));
	return T_EXIT_PASS;
}

static void close_emu(void)
{
	qpu_bo_free(code);
	qpu_bo_free(unif);
	qpu_dev_close(dev);
}

static uint64_t submit(void)
{
	struct qpu_program_ref prog = { .code = code, .uniforms = unif };
	struct qpu_job_desc job = { .programs = &prog, .program_count = 1,
				    .in_fence_fd = -1 };
	uint64_t seqno = 0;

	T_EQ_U64(0, qpu_submit(dev, &job, &seqno));
	return seqno;
}

static void guard_fill(uint64_t guard[16])
{
	unsigned int i;

	for (i = 0; i < 16; i++)
		guard[i] = GUARD;
}

static void guard_check(const uint64_t guard[16])
{
	unsigned int i;

	for (i = 0; i < 16; i++)
		T_EQ_U64(GUARD, guard[i]);
}

/* qpu_wait@LIBQPU_0.2 fills 0.2's bytes, no more, and no timing flag. */
T_TEST(old_wait_fills_old_struct)
{
	struct slot s;

	memset(&s, 0, sizeof(s));
	guard_fill(s.guard);
	T_EQ_U64(0, qpu_wait_v0_2(dev, submit(), -1, &s));
	T_EQ_U64(QPU_STATUS_DONE, s.r.head.status);
	T_CHECK(s.r.head.flags & QPU_JOB_RESULT_INSTRUCTIONS);
	T_EQ_U64(0, s.r.head.flags & QPU_JOB_RESULT_TIMING);
	guard_check(s.guard);
}

/* qpu_wait@LIBQPU_0.4 fills 0.4's bytes, the timing last, no more. */
T_TEST(v0_4_wait_fills_v0_4_struct)
{
	struct {
		union {
			struct qpu_job_result_prefix head;
			unsigned char bytes[offsetof(struct qpu_job_result, batches)];
		} r;
		uint64_t guard[16];
	} s;

	memset(&s, 0, sizeof(s));
	guard_fill(s.guard);
	T_EQ_U64(0, qpu_wait_v0_4(dev, submit(), -1, &s));
	T_EQ_U64(QPU_STATUS_DONE, s.r.head.status);
	T_CHECK(s.r.head.flags & QPU_JOB_RESULT_TIMING);
	T_EQ_U64(0, s.r.head.flags & QPU_JOB_RESULT_PROGRESS);
	guard_check(s.guard);
}

/* Today's qpu_wait, on the same device, gives the timing. */
T_TEST(wait_fills_timing)
{
	struct qpu_job_result now;

	T_EQ_U64(0, qpu_wait(dev, submit(), -1, &now));
	T_EQ_U64(QPU_STATUS_DONE, now.status);
	T_CHECK(now.flags & QPU_JOB_RESULT_TIMING);
	T_CHECK(now.timing.cycles > 0);
}

/* qpu_submit@LIBQPU_0.3 reads 0.4's bytes, not what follows them. */
T_TEST(old_submit_reads_old_struct)
{
	struct qpu_program_ref prog = { .code = code, .uniforms = unif };
	struct qpu_job_desc job;
	struct qpu_job_result r;
	uint64_t seqno = 0;

	memset(&job, 0xa5, sizeof(job));	/* kind, dispatch: garbage */
	job.programs = &prog;
	job.program_count = 1;
	job.bos = NULL;
	job.bo_count = 0;
	job.timeout_ms = 0;
	job.in_fence_fd = -1;
	job.out_fence_fd = NULL;
	job.flags = 0;
	T_EQ_U64(0, qpu_submit_v0_3(dev, &job, &seqno));
	T_EQ_U64(0, qpu_wait(dev, seqno, -1, &r));
	T_EQ_U64(QPU_STATUS_DONE, r.status);
	/* today's entry point reads the kind: the garbage is refused */
	T_EQ_U64(-EINVAL, qpu_submit(dev, &job, &seqno));
}

T_MAIN(.setup = open_emu, .teardown = close_emu)
