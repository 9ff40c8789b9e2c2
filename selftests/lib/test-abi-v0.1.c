// SPDX-License-Identifier: MIT
/*
 * test-abi-v0.1: a program built the way one built against libqpu 0.1
 * would be, run against today's libqpu.so: it lays struct qpu_job_result
 * out as 0.1 did (followed here by guard words) and binds qpu_wait of
 * version LIBQPU_0.1, as the dynamic linker does for such a binary. The
 * old entry point must fill exactly the old struct, with 0.1's numbers,
 * and answer a deadlock, which 0.1 did not know, as the timeout it was.
 * It submits through qpu_submit of version LIBQPU_0.1 with 0.1's struct
 * qpu_job_desc, which had no flags: the words after it in the caller's
 * memory (all ones here) must not be read as flags.
 * Linked against the shared library (lib.mk), since symbol versions are
 * what is tested.
 */
#include <stdint.h>
#include <string.h>

#include "qpu.h"
#include "testlib.h"
#include "../kmod/qpu_programs.h"

/* libqpu 0.1's struct qpu_job_result and qpu.ko's numbers it carried. */
struct result_v0_1 {
	uint32_t status;
	uint32_t fault_qpu;
	uint32_t fault_pc;
	uint32_t fault_addr;
	uint32_t fault_access;
	uint32_t flags;
	uint64_t instructions;
	uint64_t counters[6];
};

#define V0_1_DONE	1
#define V0_1_TIMEOUT	2
#define V0_1_FAULT	3
#define V0_1_TMU	3	/* fault_access of a TMU read */
#define GUARD		0xa5a5a5a5a5a5a5a5ull

int qpu_wait_v0_1(struct qpu_dev *dev, uint64_t seqno, int timeout_ms,
		  struct result_v0_1 *result);
__asm__(".symver qpu_wait_v0_1, qpu_wait@LIBQPU_0.1");

/* libqpu 0.1's (and 0.2's) struct qpu_job_desc: no flags at its end. */
struct desc_v0_1 {
	const struct qpu_program_ref *programs;
	unsigned int program_count;
	struct qpu_bo *const *bos;
	unsigned int bo_count;
	unsigned int timeout_ms;
	int in_fence_fd;
	int *out_fence_fd;
};

int qpu_submit_v0_1(struct qpu_dev *dev, const struct desc_v0_1 *desc,
		    uint64_t *seqno);
__asm__(".symver qpu_submit_v0_1, qpu_submit@LIBQPU_0.1");

/* The old description and what follows it in the caller's memory. */
struct desc_slot {
	struct desc_v0_1 d;
	uint32_t after[8];
};

/* The old struct and what follows it in the caller's memory. */
struct slot {
	struct result_v0_1 r;
	uint64_t guard[16];
};

/* Runs @words from @code_offset with uniforms at @unif_offset; 0.1's answer. */
static void run(struct qpu_dev *dev, const uint64_t *words, size_t n,
		uint32_t code_offset, uint32_t unif_offset, struct slot *s)
{
	struct qpu_bo *code = qpu_bo_new(dev, 4096), *unif = qpu_bo_new(dev, 4096);
	struct qpu_program_ref prog = { .code = code, .code_offset = code_offset,
					.uniforms = unif, .uniforms_offset = unif_offset };
	struct desc_slot job;
	uint64_t seqno;
	unsigned int i;

	T_CHECK(code && unif);
	if (!code || !unif)
		exit(T_EXIT_FAIL);
	memcpy(qpu_bo_get_map(code), words, n * sizeof(*words));
	memset(s, 0xa5, sizeof(*s));
	memset(&job, 0xff, sizeof(job));
	job.d = (struct desc_v0_1){ .programs = &prog, .program_count = 1,
				    .in_fence_fd = -1 };
	T_EQ_U64(0, qpu_submit_v0_1(dev, &job.d, &seqno));
	T_EQ_U64(0, qpu_wait_v0_1(dev, seqno, 10000, &s->r));
	for (i = 0; i < T_ARRAY_SIZE(s->guard); i++)
		T_EQ_U64(GUARD, s->guard[i]);
	qpu_bo_free(code);
	qpu_bo_free(unif);
}

static struct qpu_dev *dev;

static int open_emu(void)
{
	dev = qpu_dev_open("emu");
	T_CHECK(dev != NULL);
	return dev ? T_EXIT_PASS : T_EXIT_FAIL;
}

static void close_emu(void)
{
	qpu_dev_close(dev);
}

T_TEST(done)
{
	struct slot s;

	run(dev, qpu_prog_end, T_ARRAY_SIZE(qpu_prog_end), 0, 0, &s);
	T_EQ_U64(V0_1_DONE, s.r.status);
	T_EQ_U64(QPU_JOB_RESULT_INSTRUCTIONS | QPU_JOB_RESULT_COUNTERS, s.r.flags);
	T_EQ_U64(3, s.r.instructions);
}

/* A deadlock, unknown to 0.1: its timeout, and no QPU states. */
T_TEST(deadlock_is_timeout)
{
	struct slot s;

	run(dev, qpu_prog_deadlock, T_ARRAY_SIZE(qpu_prog_deadlock),
	    QPU_PROG_DEADLOCK_SEM_OFFSET, 0, &s);
	T_EQ_U64(V0_1_TIMEOUT, s.r.status);
	T_EQ_U64(0, s.r.flags & ~(QPU_JOB_RESULT_INSTRUCTIONS | QPU_JOB_RESULT_COUNTERS));
}

/* A fault, in 0.1's numbers: a TMU read of address 0, in no buffer. */
T_TEST(fault)
{
	struct slot s;

	run(dev, qpu_prog_tmu_read, T_ARRAY_SIZE(qpu_prog_tmu_read), 0, 0, &s);
	T_EQ_U64(V0_1_FAULT, s.r.status);
	T_EQ_U64(V0_1_TMU, s.r.fault_access);
	T_EQ_U64(0, s.r.fault_addr);
}

T_MAIN(.setup = open_emu, .teardown = close_emu)
