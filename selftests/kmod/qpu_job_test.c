// SPDX-License-Identifier: GPL-2.0
/*
 * Jobs on the simulated V3D: SUBMIT and WAIT with their errors, out-fences
 * and in-fence chaining, timeouts with a V3D reset, faults on accesses
 * outside the job's BOs, cancellation when a file closes, a killed process,
 * fairness between files, many threads submitting at once, and the
 * instruction count WAIT returns (and the first, shorter WAIT structs);
 * uniforms read anywhere in a job, timeouts counted as progress, and
 * deadlocks reported with each QPU's state.
 *
 * Timeouts on the simulated V3D are instructions, QPU_PARAM_INSTRUCTIONS_PER_MS
 * per millisecond and QPU: a loop's timeout is a few ms, so the VM's slow
 * emulation spends it quickly. A job that must last a while by the wall
 * clock is a program that ends under the hang knob, timed by the wall clock.
 *
 * The programs are hand-encoded QPU instructions from qpu_programs.h.
 *
 * qpu_job_poll_test runs every case again with the simulated V3D's
 * poll_only knob set, so that jobs end only when the scheduler's poll of
 * SRQCS finds them, as on hardware; how soon, and at what cost in polls,
 * the poll_* cases check in both runs.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/qpu.h>

#include "kselftest_harness.h"
#include "qpu_programs.h"
#include "qpu_util.h"

#define DEBUGFS QPU_DEBUGFS
#define PARAMS QPU_PARAMS

/* The poll_only knob's value for every case (qpu_job_poll_test sets it). */
#ifndef QPU_JOB_POLL_ONLY
#define QPU_JOB_POLL_ONLY "0"
#endif


/* The device's instructions per QPU and millisecond of timeout. */
static __u64 per_ms(int fd)
{
	struct qpu_get_param p = { .param = QPU_PARAM_INSTRUCTIONS_PER_MS };

	return ioctl(fd, QPU_IOCTL_GET_PARAM, &p) ? 0 : p.value;
}

FIXTURE(job) {
	int fd;
	struct qpu_test_bo end, loop, tmu, unif, data;
};

FIXTURE_SETUP(job)
{
	self->fd = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG("open " QPU_NODE ": %s", strerror(errno));
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, qpu_prog_end, sizeof(qpu_prog_end), &self->end));
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, qpu_prog_loop, sizeof(qpu_prog_loop), &self->loop));
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, qpu_prog_tmu_read, sizeof(qpu_prog_tmu_read), &self->tmu));
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, NULL, 0, &self->unif));
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, NULL, 0, &self->data));
	ASSERT_EQ(0, qpu_test_write(DEBUGFS "hang", "0"));
	ASSERT_EQ(0, qpu_test_write(DEBUGFS "latency_us", "0"));
	ASSERT_EQ(0, qpu_test_write(DEBUGFS "poll_only", QPU_JOB_POLL_ONLY));
}

FIXTURE_TEARDOWN(job)
{
	qpu_test_write(DEBUGFS "hang", "0");
	qpu_test_write(DEBUGFS "latency_us", "0");
	qpu_test_write(DEBUGFS "fault_next", "0");
	qpu_test_write(DEBUGFS "strict_vpm", "0");
	qpu_test_write(PARAMS "max_timeout_ms", "60000");
	qpu_test_write(PARAMS "max_queued_jobs", "128");
	qpu_test_write(PARAMS "host_irq", "0");
	qpu_test_write(DEBUGFS "poll_only", "0");
	qpu_test_write(DEBUGFS "reset_noop", "0");
	qpu_test_write(PARAMS "sim_hw_policy", "0");
	close(self->fd);
}

TEST_F(job, one_program_done)
{
	struct qpu_submit s;

	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 1, 0, 0, 0, &s));
	EXPECT_EQ(1, s.seqno);
	EXPECT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, s.seqno, 5000, NULL));
	/* Asking again gives the same answer. */
	EXPECT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, s.seqno, 0, NULL));
}

TEST_F(job, twelve_programs_done_thirteen_refused)
{
	struct qpu_submit s;

	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 12, 0, 0, 0, &s));
	EXPECT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, s.seqno, 5000, NULL));
	EXPECT_EQ(-1, qpu_test_submit(self->fd, &self->end, &self->unif, 13, 0, 0, 0, NULL));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, qpu_test_submit(self->fd, &self->end, &self->unif, 0, 0, 0, 0, NULL));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(job, out_fence_polls_and_signals)
{
	struct pollfd pfd = { .events = POLLIN };
	struct qpu_submit s;

	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 4, 0,
			    QPU_SUBMIT_OUT_FENCE, 0, &s));
	ASSERT_LE(0, s.out_fence_fd);
	EXPECT_TRUE(fcntl(s.out_fence_fd, F_GETFD) & FD_CLOEXEC);
	pfd.fd = s.out_fence_fd;
	EXPECT_EQ(1, poll(&pfd, 1, 5000));
	EXPECT_EQ(1, qpu_test_fence_status(s.out_fence_fd));
	close(s.out_fence_fd);
}

/*
 * An infinite loop is stopped when it spent its timeout's instructions, all
 * of them, and the V3D works after.
 */
TEST_F_TIMEOUT(job, infinite_loop_times_out_and_resets, 60)
{
	long long resets = qpu_test_stat("resets");
	__u64 budget = 2 * per_ms(self->fd);
	struct qpu_submit s, t;
	struct qpu_wait w;

	ASSERT_EQ(62500, per_ms(self->fd));
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->loop, &self->unif, 12, 2,
			    QPU_SUBMIT_OUT_FENCE, 0, &s));
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 12, 0, 0, 0, &t));
	EXPECT_EQ(QPU_JOB_TIMEOUT, qpu_test_wait(self->fd, s.seqno, 50000, &w));
	/*
	 * The first program to spend its budget stops them all, none past it
	 * (they start one by one as the queue fills: the others may lag).
	 */
	EXPECT_GE(12 * budget, w.instructions);
	EXPECT_LE(budget, w.instructions);
	EXPECT_EQ(-ETIMEDOUT, qpu_test_fence_status(s.out_fence_fd));
	EXPECT_EQ(resets + 1, qpu_test_stat("resets"));
	EXPECT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, t.seqno, 5000, NULL));
	close(s.out_fence_fd);
}

/* A hang of another client's job does not stop ours. */
TEST_F_TIMEOUT(job, other_clients_hang_does_not_stop_us, 30)
{
	int fd2 = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	struct qpu_test_bo loop2, unif2;
	struct qpu_submit s, t;

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, qpu_test_bo_new(fd2, 4096, qpu_prog_loop, sizeof(qpu_prog_loop), &loop2));
	ASSERT_EQ(0, qpu_test_bo_new(fd2, 4096, NULL, 0, &unif2));
	ASSERT_EQ(0, qpu_test_submit(fd2, &loop2, &unif2, 12, 2, 0, 0, &s));
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 1, 0, 0, 0, &t));
	EXPECT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, t.seqno, 10000, NULL));
	EXPECT_EQ(QPU_JOB_TIMEOUT, qpu_test_wait(fd2, s.seqno, 10000, NULL));
	close(fd2);
}

/*
 * A job's budget counts its work: a loop of the largest VCD DMA (16 K
 * words a turn, for one instruction) with a 100 ms timeout ends timed out
 * within 2 s of the wall clock (or, on a host too loaded for that, within
 * three times what a loop of ALU instructions with the same timeout
 * takes), not at the wall-clock net's minute, and another client's job
 * queued behind it ends within that time too.
 */
TEST_F_TIMEOUT(job, dma_loop_ends_within_its_budget, 120)
{
	int fd2 = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	struct qpu_test_bo code, dst, end2, unif2;
	struct qpu_submit s, t;
	__s64 t0, alu_ns;

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, qpu_test_bo_new(fd2, 4096, qpu_prog_end, sizeof(qpu_prog_end), &end2));
	ASSERT_EQ(0, qpu_test_bo_new(fd2, 4096, NULL, 0, &unif2));
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, qpu_prog_dma_loop,
				     sizeof(qpu_prog_dma_loop), &code));
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, QPU_PROG_DMA_LOOP_BYTES, NULL, 0, &dst));
	*(__u32 *)self->unif.map = dst.bus_addr;
	t0 = qpu_test_now_ns();
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->loop, &self->unif, 1, 100, 0, 0, &s));
	EXPECT_EQ(QPU_JOB_TIMEOUT, qpu_test_wait(self->fd, s.seqno, 100000, NULL));
	alu_ns = qpu_test_now_ns() - t0;
	t0 = qpu_test_now_ns();
	ASSERT_EQ(0, qpu_test_submit(self->fd, &code, &self->unif, 1, 100,
				     QPU_SUBMIT_ALL_BOS, 0, &s));
	ASSERT_EQ(0, qpu_test_submit(fd2, &end2, &unif2, 1, 0, 0, 0, &t));
	EXPECT_EQ(QPU_JOB_DONE, qpu_test_wait(fd2, t.seqno, 100000, NULL));
	EXPECT_EQ(QPU_JOB_TIMEOUT, qpu_test_wait(self->fd, s.seqno, 100000, NULL));
	t0 = qpu_test_now_ns() - t0;
	TH_LOG("the DMA loop ended after %lld ms, the ALU loop after %lld ms",
	       t0 / 1000000, alu_ns / 1000000);
	EXPECT_GT(2000000000ll > 3 * alu_ns ? 2000000000ll : 3 * alu_ns, t0);
	qpu_test_bo_free(fd2, &end2);
	qpu_test_bo_free(fd2, &unif2);
	close(fd2);
	qpu_test_bo_free(self->fd, &code);
	qpu_test_bo_free(self->fd, &dst);
}

/* Is the completion poll's timer on (poll_first_us not 0)? */
static int qpu_poll_timer_on(void)
{
	FILE *f = fopen(PARAMS "poll_first_us", "r");
	unsigned int us = 1;

	if (f) {
		if (fscanf(f, "%u", &us) != 1)
			us = 1;
		fclose(f);
	}
	return us != 0;
}

/*
 * Empty jobs end, one after another, also when only the poll of SRQCS can
 * find their end (qpu_job_poll_test runs this with the sim's poll_only
 * knob), and each is found by the completion poll. How soon is a speed,
 * not a behaviour: make bench reports the round trip in both modes (a TCG
 * guest on a shared host is too noisy for a timed test to mean anything).
 */
TEST_F_TIMEOUT(job, poll_notices_empty_jobs, 60)
{
	long long polls = qpu_test_stat("polls");
	struct qpu_submit s;
	unsigned int i;
	int timer = qpu_poll_timer_on();

	ASSERT_LE(0, polls);
	for (i = 0; i < 21; i++) {
		ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 1, 0, 0, 0, &s));
		ASSERT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, s.seqno, 5000, NULL));
	}
	/* Without the sim's kick, only a poll can have found each end. */
	if (!strcmp(QPU_JOB_POLL_ONLY, "1") && timer)
		EXPECT_LE(polls + 21, qpu_test_stat("polls"));
}

/*
 * A job that runs 300 ms costs about one poll per millisecond: the interval
 * doubles from 10 us up to 1 ms, not more, not less.
 */
TEST_F_TIMEOUT(job, poll_costs_a_poll_per_ms, 30)
{
	long long polls = qpu_test_stat("polls"), ms;
	struct qpu_submit s;
	__s64 t = qpu_test_now_ns();

	ASSERT_LE(0, polls);
	if (!qpu_poll_timer_on())
		SKIP(return, "loaded with poll_first_us=0: no poll timer");
	ASSERT_EQ(0, qpu_test_write(DEBUGFS "hang", "1"));
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 1, 300, 0, 0, &s));
	EXPECT_EQ(QPU_JOB_TIMEOUT, qpu_test_wait(self->fd, s.seqno, 10000, NULL));
	ms = (qpu_test_now_ns() - t) / 1000000;
	polls = qpu_test_stat("polls") - polls;
	TH_LOG("%lld polls in %lld ms", polls, ms);
	EXPECT_LE(300, ms);
	EXPECT_GE(ms + 20, polls);
	EXPECT_LE(ms / 4, polls);
}

/*
 * A reset that does not happen (the reset_noop knob) is noticed, and the
 * hung job's BOs, which its programs might still write, outlive their file
 * until a reset succeeds: here the one before another file's job.
 */
TEST_F_TIMEOUT(job, failed_reset_keeps_the_hung_jobs_bos, 30)
{
	long long failures = qpu_test_stat("reset_failures");
	long long count0 = qpu_test_stat("bo_count"), bytes0 = qpu_test_stat("bo_bytes");
	long long count = 0, bytes = 0;
	struct qpu_test_bo code, unif;
	struct qpu_submit s;
	int fd2 = open(QPU_NODE, O_RDWR | O_CLOEXEC);

	ASSERT_LE(0, fd2);
	ASSERT_LE(0, failures);
	ASSERT_EQ(0, qpu_test_bo_new(fd2, 4096, qpu_prog_end, sizeof(qpu_prog_end), &code));
	ASSERT_EQ(0, qpu_test_bo_new(fd2, 4096, NULL, 0, &unif));
	/* A first job makes fd2 the V3D's owner: no reset before the next. */
	ASSERT_EQ(0, qpu_test_submit(fd2, &code, &unif, 1, 0, 0, 0, &s));
	ASSERT_EQ(QPU_JOB_DONE, qpu_test_wait(fd2, s.seqno, 5000, NULL));

	ASSERT_EQ(0, qpu_test_write(DEBUGFS "hang", "1"));
	ASSERT_EQ(0, qpu_test_write(DEBUGFS "reset_noop", "1"));
	ASSERT_EQ(0, qpu_test_submit(fd2, &code, &unif, 1, 100, 0, 0, &s));
	EXPECT_EQ(QPU_JOB_TIMEOUT, qpu_test_wait(fd2, s.seqno, 10000, NULL));
	EXPECT_EQ(failures + 1, qpu_test_stat("reset_failures"));
	EXPECT_EQ(2, qpu_test_stat("kept_bos"));
	qpu_test_bo_free(fd2, &code);
	qpu_test_bo_free(fd2, &unif);
	close(fd2);
	EXPECT_EQ(-1, qpu_test_stats_wait_bo(300, count0, bytes0, &count, &bytes));
	EXPECT_EQ(count0 + 2, count);
	EXPECT_EQ(bytes0 + 2 * 4096, bytes);

	ASSERT_EQ(0, qpu_test_write(DEBUGFS "reset_noop", "0"));
	ASSERT_EQ(0, qpu_test_write(DEBUGFS "hang", "0"));
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 1, 0, 0, 0, &s));
	EXPECT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, s.seqno, 5000, NULL));
	EXPECT_EQ(0, qpu_test_stat("kept_bos"));
	EXPECT_EQ(0, qpu_test_stats_wait_bo(5000, count0, bytes0, NULL, NULL));
	EXPECT_EQ(failures + 1, qpu_test_stat("reset_failures"));
}

/* The hang knob makes a good job look hung: it times out. */
TEST_F_TIMEOUT(job, hang_knob_times_out, 30)
{
	struct qpu_submit s;

	ASSERT_EQ(0, qpu_test_write(DEBUGFS "hang", "1"));
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 1, 100, 0, 0, &s));
	EXPECT_EQ(QPU_JOB_TIMEOUT, qpu_test_wait(self->fd, s.seqno, 10000, NULL));
	ASSERT_EQ(0, qpu_test_write(DEBUGFS "hang", "0"));
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 1, 0, 0, 0, &s));
	EXPECT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, s.seqno, 5000, NULL));
}

/*
 * A timeout above the administrator's maximum is cut to it, the emulator's
 * QPU_TIMEOUT_NONE too: the loop issues the maximum's budget exactly.
 */
TEST_F_TIMEOUT(job, timeout_capped_by_max, 30)
{
	struct qpu_get_param p = { .param = QPU_PARAM_MAX_TIMEOUT_MS };
	struct qpu_submit s;
	struct qpu_wait w;

	ASSERT_EQ(0, qpu_test_write(PARAMS "max_timeout_ms", "4"));
	ASSERT_EQ(0, ioctl(self->fd, QPU_IOCTL_GET_PARAM, &p));
	EXPECT_EQ(4, p.value);
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->loop, &self->unif, 1, 100000, 0, 0, &s));
	EXPECT_EQ(QPU_JOB_TIMEOUT, qpu_test_wait(self->fd, s.seqno, 20000, &w));
	EXPECT_EQ(4 * per_ms(self->fd), w.instructions);
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->loop, &self->unif, 1,
				     QPU_TIMEOUT_NONE, 0, 0, &s));
	EXPECT_EQ(QPU_JOB_TIMEOUT, qpu_test_wait(self->fd, s.seqno, 20000, &w));
	EXPECT_EQ(4 * per_ms(self->fd), w.instructions);
}

/*
 * Within its budget a job is not cut by the wall clock: twelve programs of
 * 60004 instructions each fit the 62500 of 1 ms, though emulating them
 * takes the host far longer than 1 ms.
 */
TEST_F_TIMEOUT(job, within_budget_not_timed_out_by_wall_clock, 60)
{
	struct qpu_test_bo count;
	struct qpu_submit s;
	struct qpu_wait w;
	__s64 start = qpu_test_now_ns();

	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, qpu_prog_count,
				     sizeof(qpu_prog_count), &count));
	ASSERT_EQ(0, qpu_test_submit(self->fd, &count, &self->unif, 12, 1, 0, 0, &s));
	EXPECT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, s.seqno, 50000, &w));
	EXPECT_EQ(12 * QPU_PROG_COUNT_INSTRUCTIONS, w.instructions);
	/* It did take longer than its timeout: the check means something. */
	EXPECT_LT(1000000ll, qpu_test_now_ns() - start);
	qpu_test_bo_free(self->fd, &count);
}

/* Submits @code with one BO besides its code and uniforms. */
static int submit_with_bo(int fd, const struct qpu_test_bo *code,
			  const struct qpu_test_bo *unif, __u32 handle,
			  struct qpu_submit *s)
{
	struct qpu_program prog = { .code_handle = code->handle,
				    .unif_handle = unif->handle,
				    .unif_length = 4 };

	*s = (struct qpu_submit){
		.programs = (uintptr_t)&prog, .program_count = 1,
		.program_size = sizeof(prog), .bo_handles = (uintptr_t)&handle,
		.bo_count = 1,
	};
	return ioctl(fd, QPU_IOCTL_SUBMIT, s);
}

/*
 * A program reads uniforms wherever it points its stream in the job's BOs:
 * here in a BO below its first uniform, past its 4-byte unif_length. The
 * word it reads there, used as a TMU address outside the job, faults.
 */
TEST_F(job, uniforms_anywhere_in_the_job)
{
	struct qpu_get_param p = { .param = QPU_PARAM_FEATURES };
	const __u32 outside = 0x1000;
	struct qpu_test_bo code, unif2;
	struct qpu_submit s;
	struct qpu_wait w;

	ASSERT_EQ(0, ioctl(self->fd, QPU_IOCTL_GET_PARAM, &p));
	EXPECT_TRUE(p.value & QPU_FEATURE_UNIFORMS_ANYWHERE);
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, qpu_prog_unif_redirect,
				     sizeof(qpu_prog_unif_redirect), &code));
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, NULL, 0, &unif2));
	ASSERT_LT(self->data.bus_addr, unif2.bus_addr);
	((__u32 *)unif2.map)[0] = self->data.bus_addr + 64;
	((__u32 *)self->data.map)[16] = outside;
	ASSERT_EQ(0, submit_with_bo(self->fd, &code, &unif2, self->data.handle, &s));
	ASSERT_EQ(QPU_JOB_FAULT, qpu_test_wait(self->fd, s.seqno, 10000, &w));
	EXPECT_EQ(QPU_FAULT_TMU, w.fault_access);
	EXPECT_EQ(outside, w.fault_addr);

	/* Outside every BO of the job, a uniform read still faults. */
	((__u32 *)unif2.map)[0] = outside;
	ASSERT_EQ(0, submit_with_bo(self->fd, &code, &unif2, self->data.handle, &s));
	ASSERT_EQ(QPU_JOB_FAULT, qpu_test_wait(self->fd, s.seqno, 10000, &w));
	EXPECT_EQ(QPU_FAULT_UNIFORM, w.fault_access);
	EXPECT_EQ(outside, w.fault_addr);
	qpu_test_bo_free(self->fd, &code);
	qpu_test_bo_free(self->fd, &unif2);
}

/*
 * Programs that wait forever end at once as QPU_JOB_DEADLOCK, with each
 * QPU's PC and what it waits on; WAIT structs of the first two versions
 * (48 and 64 bytes) get QPU_JOB_TIMEOUT and nothing past their end.
 */
TEST_F_TIMEOUT(job, deadlock_ends_at_once_with_qpu_states, 30)
{
	const unsigned long wait_v1 = _IOWR(QPU_IOCTL_BASE, QPU_IOCTL_NR_WAIT, char[48]);
	const unsigned long wait_v2 = _IOWR(QPU_IOCTL_BASE, QPU_IOCTL_NR_WAIT, char[64]);
	struct qpu_get_param p = { .param = QPU_PARAM_FEATURES };
	struct qpu_program progs[2];
	long long timeouts = qpu_test_stat("jobs_timeout");
	struct qpu_test_bo code;
	struct qpu_submit s;
	struct qpu_wait w;
	__s64 start;
	unsigned int i;

	ASSERT_EQ(0, ioctl(self->fd, QPU_IOCTL_GET_PARAM, &p));
	EXPECT_TRUE(p.value & QPU_FEATURE_DEADLOCK);
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, qpu_prog_deadlock,
				     sizeof(qpu_prog_deadlock), &code));
	progs[0] = (struct qpu_program){ .code_handle = code.handle,
		.code_offset = QPU_PROG_DEADLOCK_SEM_OFFSET,
		.unif_handle = self->unif.handle };
	progs[1] = progs[0];
	progs[1].code_offset = QPU_PROG_DEADLOCK_TMU_OFFSET;
	s = (struct qpu_submit){ .programs = (uintptr_t)progs, .program_count = 2,
		.program_size = sizeof(progs[0]), .timeout_ms = 60000,
		.flags = QPU_SUBMIT_OUT_FENCE };
	start = qpu_test_now_ns();
	ASSERT_EQ(0, ioctl(self->fd, QPU_IOCTL_SUBMIT, &s));
	ASSERT_EQ(QPU_JOB_DEADLOCK, qpu_test_wait(self->fd, s.seqno, 20000, &w));
	EXPECT_GT(20000 * 1000000ll, qpu_test_now_ns() - start);
	EXPECT_EQ(-EDEADLK, qpu_test_fence_status(s.out_fence_fd));
	close(s.out_fence_fd);
	EXPECT_EQ(timeouts + 1, qpu_test_stat("jobs_timeout"));
	EXPECT_EQ(QPU_WAIT_RESULT_INSTRUCTIONS | QPU_WAIT_RESULT_QPUS, w.result_flags);
	EXPECT_EQ(0, w.instructions);	/* each waits at its first */
	EXPECT_EQ(12, w.qpu_count);
	EXPECT_EQ(code.bus_addr + QPU_PROG_DEADLOCK_SEM_OFFSET, w.qpus[0].pc);
	EXPECT_EQ(QPU_QPU_WAIT_SEMAPHORE, w.qpus[0].state);
	EXPECT_EQ(QPU_PROG_DEADLOCK_SEM, w.qpus[0].semaphore);
	EXPECT_EQ(code.bus_addr + QPU_PROG_DEADLOCK_TMU_OFFSET, w.qpus[1].pc);
	EXPECT_EQ(QPU_QPU_WAIT_TMU, w.qpus[1].state);
	for (i = 2; i < 12; i++)
		EXPECT_EQ(QPU_QPU_IDLE, w.qpus[i].state) TH_LOG("QPU %u", i);
	for (; i < QPU_MAX_QPUS; i++)
		EXPECT_EQ(0, w.qpus[i].pc);

	/* The older structs: a hang, and nothing written past their end. */
	memset(&w, 0xa5, sizeof(w));
	w.seqno = s.seqno;
	w.timeout_ns = 0;
	w.handle = w.flags = w.pad = 0;
	ASSERT_EQ(0, ioctl(self->fd, wait_v1, &w));
	EXPECT_EQ(QPU_JOB_TIMEOUT, w.status);
	EXPECT_EQ(0xa5a5a5a5, w.result_flags);
	w.pad2 = 0;
	ASSERT_EQ(0, ioctl(self->fd, wait_v2, &w));
	EXPECT_EQ(QPU_JOB_TIMEOUT, w.status);
	EXPECT_EQ(QPU_WAIT_RESULT_INSTRUCTIONS, w.result_flags);
	EXPECT_EQ(0xa5a5a5a5, w.qpu_count);
	EXPECT_EQ(0xa5a5a5a5, w.qpus[0].pc);
	qpu_test_bo_free(self->fd, &code);

	/* The V3D was reset: the next job runs. */
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 12, 0, 0, 0, &s));
	EXPECT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, s.seqno, 5000, NULL));
}

/* A TMU read outside the job's BOs stops the job; inside, it runs. */
TEST_F(job, access_outside_job_faults)
{
	struct qpu_wait w;
	struct qpu_submit s;
	__u32 *unif = self->unif.map;
	struct qpu_submit args;
	struct qpu_program prog = { .code_handle = self->tmu.handle,
				    .unif_handle = self->unif.handle };
	__u32 handles[1] = { self->data.handle };

	/* data is a BO of this file, but the job does not list it. */
	unif[0] = self->data.bus_addr;
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->tmu, &self->unif, 1, 0, 0, 0, &s));
	ASSERT_EQ(QPU_JOB_FAULT, qpu_test_wait(self->fd, s.seqno, 5000, &w));
	EXPECT_EQ(0, w.fault_qpu);
	EXPECT_EQ(QPU_FAULT_TMU, w.fault_access);
	EXPECT_EQ(self->data.bus_addr, w.fault_addr);
	EXPECT_LE(self->tmu.bus_addr, w.fault_pc);
	EXPECT_GT(self->tmu.bus_addr + 4096, w.fault_pc);

	/* Listed, the same read is allowed. */
	args = (struct qpu_submit){
		.programs = (uintptr_t)&prog, .program_count = 1,
		.program_size = sizeof(prog), .bo_handles = (uintptr_t)handles,
		.bo_count = 1,
	};
	ASSERT_EQ(0, ioctl(self->fd, QPU_IOCTL_SUBMIT, &args));
	EXPECT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, args.seqno, 5000, NULL));

	/* Past the end of a listed BO, into its guard gap, faults. */
	unif[0] = self->data.bus_addr + self->data.size;
	ASSERT_EQ(0, ioctl(self->fd, QPU_IOCTL_SUBMIT, &args));
	EXPECT_EQ(QPU_JOB_FAULT, qpu_test_wait(self->fd, args.seqno, 5000, NULL));
}

/* Submits the TMU read of unif[0] with QPU_SUBMIT_ALL_BOS and no list. */
static int submit_all_bos(int fd, const struct qpu_test_bo *code,
			  const struct qpu_test_bo *unif, __u32 timeout_ms,
			  struct qpu_submit *out)
{
	return qpu_test_submit(fd, code, unif, 1, timeout_ms, QPU_SUBMIT_ALL_BOS, 0, out);
}

/*
 * QPU_SUBMIT_ALL_BOS: the job reaches a BO of its file it does not list,
 * but the set is the file's at submit: a BO made after it is out of reach,
 * one destroyed after it stays alive for the job.
 */
TEST_F_TIMEOUT(job, all_bos_reach_the_files_bos_at_submit, 60)
{
	struct qpu_get_param p = { .param = QPU_PARAM_FEATURES };
	struct qpu_test_bo later, gone;
	__u32 *unif = self->unif.map;
	struct qpu_submit s, q;
	struct qpu_wait w;

	ASSERT_EQ(0, ioctl(self->fd, QPU_IOCTL_GET_PARAM, &p));
	ASSERT_TRUE(p.value & QPU_FEATURE_ALL_BOS);

	/* The read of access_outside_job_faults, now allowed. */
	unif[0] = self->data.bus_addr + 64;
	ASSERT_EQ(0, submit_all_bos(self->fd, &self->tmu, &self->unif, 0, &s));
	EXPECT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, s.seqno, 5000, NULL));
	/* Past its end, into the guard gap, still faults. */
	unif[0] = self->data.bus_addr + self->data.size;
	ASSERT_EQ(0, submit_all_bos(self->fd, &self->tmu, &self->unif, 0, &s));
	ASSERT_EQ(QPU_JOB_FAULT, qpu_test_wait(self->fd, s.seqno, 5000, &w));
	EXPECT_EQ(self->data.bus_addr + self->data.size, w.fault_addr);

	/*
	 * Queued behind a looping job, a job reads a BO made after its
	 * submit: it faults there. Its own unif BO holds the address, written
	 * after the submit too (the job reads it when it runs).
	 */
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->loop, &self->unif, 1, 20, 0, 0, &q));
	ASSERT_EQ(0, submit_all_bos(self->fd, &self->tmu, &self->unif, 0, &s));
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, NULL, 0, &later));
	unif[0] = later.bus_addr;
	/* The loop's 20 ms of instructions take 10 s on raspi0 under load. */
	ASSERT_EQ(QPU_JOB_FAULT, qpu_test_wait(self->fd, s.seqno, 20000, &w));
	EXPECT_EQ(later.bus_addr, w.fault_addr);
	EXPECT_EQ(QPU_FAULT_TMU, w.fault_access);
	EXPECT_EQ(QPU_JOB_TIMEOUT, qpu_test_wait(self->fd, q.seqno, 0, NULL));
	qpu_test_bo_free(self->fd, &later);

	/* A BO destroyed (and unmapped) after the submit is still there. */
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, NULL, 0, &gone));
	unif[0] = gone.bus_addr;
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->loop, &self->unif, 1, 5, 0, 0, &q));
	ASSERT_EQ(0, submit_all_bos(self->fd, &self->tmu, &self->unif, 0, &s));
	qpu_test_bo_free(self->fd, &gone);
	EXPECT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, s.seqno, 5000, NULL));
	EXPECT_EQ(0, qpu_test_stats_wait_bo(5000, 5, 5 * 4096, NULL, NULL));
}

/* WAIT by a BO the job never listed waits for an all-BOs job. */
TEST_F(job, all_bos_wait_by_unlisted_bo)
{
	struct qpu_wait w = { .flags = QPU_WAIT_BO, .handle = self->data.handle,
			      .timeout_ns = qpu_test_now_ns() + 5000000000ll };
	struct qpu_submit s;

	/* Listed nowhere: no job used data, WAIT answers at once. */
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->loop, &self->unif, 1, 5, 0, 0, &s));
	ASSERT_EQ(0, ioctl(self->fd, QPU_IOCTL_WAIT, &w));
	EXPECT_EQ(QPU_JOB_DONE, w.status);
	EXPECT_EQ(QPU_JOB_TIMEOUT, qpu_test_wait(self->fd, s.seqno, 5000, NULL));

	/* Every BO of the file: WAIT on data is WAIT on the looping job. */
	ASSERT_EQ(0, submit_all_bos(self->fd, &self->loop, &self->unif, 5, &s));
	ASSERT_EQ(0, ioctl(self->fd, QPU_IOCTL_WAIT, &w));
	EXPECT_EQ(QPU_JOB_TIMEOUT, w.status);
}

/* What QPU_SUBMIT_ALL_BOS refuses, and the file's BOs it still cannot pass. */
/* 4,096 BO_CREATEs: seconds on a KASAN kernel under TCG, past the default 30 s. */
TEST_F_TIMEOUT(job, all_bos_errors, 180)
{
	int fd2 = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	struct qpu_program prog = { .code_handle = self->tmu.handle,
				    .unif_handle = self->unif.handle };
	__u32 handles[1] = { self->data.handle };
	struct qpu_submit args = {
		.programs = (uintptr_t)&prog, .program_count = 1,
		.program_size = sizeof(prog), .flags = QPU_SUBMIT_ALL_BOS,
	};
	struct qpu_bo_create bc;
	struct qpu_test_bo secret;
	__u32 *unif = self->unif.map;
	struct qpu_wait w;
	unsigned int made;
	__u32 first = 0, h;

	ASSERT_LE(0, fd2);
	/* A list besides the flag. */
	args.bo_handles = (uintptr_t)handles;
	args.bo_count = 1;
	EXPECT_EQ(-1, ioctl(self->fd, QPU_IOCTL_SUBMIT, &args));
	EXPECT_EQ(EINVAL, errno);
	args.bo_count = 0;
	EXPECT_EQ(-1, ioctl(self->fd, QPU_IOCTL_SUBMIT, &args));
	EXPECT_EQ(EINVAL, errno);
	args.bo_handles = 0;
	/* A program's handle the file does not have. */
	prog.code_handle = 9999;
	EXPECT_EQ(-1, ioctl(self->fd, QPU_IOCTL_SUBMIT, &args));
	EXPECT_EQ(ENOENT, errno);
	prog.code_handle = self->tmu.handle;
	prog.code_offset = 4;
	EXPECT_EQ(-1, ioctl(self->fd, QPU_IOCTL_SUBMIT, &args));
	EXPECT_EQ(EINVAL, errno);
	prog.code_offset = 0;

	/* Another file's BO stays out of reach. */
	ASSERT_EQ(0, qpu_test_bo_new(fd2, 4096, "secret", 6, &secret));
	unif[0] = secret.bus_addr;
	ASSERT_EQ(0, ioctl(self->fd, QPU_IOCTL_SUBMIT, &args));
	ASSERT_EQ(QPU_JOB_FAULT, qpu_test_wait(self->fd, args.seqno, 5000, &w));
	EXPECT_EQ(secret.bus_addr, w.fault_addr);
	close(fd2);

	/* At most 4096 BOs in the file, the bound of a list: 5 are there. */
	unif[0] = self->data.bus_addr;
	for (made = 5; made < 4097; made++) {
		bc = (struct qpu_bo_create){ .size = 4096 };
		ASSERT_EQ(0, ioctl(self->fd, QPU_IOCTL_BO_CREATE, &bc));
		if (!first)
			first = bc.handle;
	}
	EXPECT_EQ(-1, ioctl(self->fd, QPU_IOCTL_SUBMIT, &args));
	EXPECT_EQ(EINVAL, errno);
	/* One fewer, and the job runs. */
	ASSERT_EQ(0, ioctl(self->fd, QPU_IOCTL_BO_DESTROY,
			   &(struct qpu_bo_destroy){ .handle = bc.handle }));
	ASSERT_EQ(0, ioctl(self->fd, QPU_IOCTL_SUBMIT, &args));
	EXPECT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, args.seqno, 5000, NULL));
	for (h = first; h < bc.handle; h++)
		ASSERT_EQ(0, ioctl(self->fd, QPU_IOCTL_BO_DESTROY,
				   &(struct qpu_bo_destroy){ .handle = h }));
}

/*
 * QPU_SUBMIT_ALL_BOS is no way around the hardware's gate: with
 * sim_hw_policy, a user without CAP_SYS_RAWIO is refused as for any job.
 */
TEST_F(job, all_bos_behind_the_submit_gate)
{
	int status;
	pid_t pid;

	ASSERT_EQ(0, qpu_test_write(PARAMS "allow_unprivileged_hw", "0"));
	ASSERT_EQ(0, qpu_test_write(PARAMS "sim_hw_policy", "1"));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct qpu_test_bo code, unif;
		int fd;

		if (setgid(65534) || setuid(65534))
			_exit(2);
		fd = open(QPU_NODE, O_RDWR | O_CLOEXEC);
		if (fd < 0 || qpu_test_bo_new(fd, 4096, qpu_prog_end, sizeof(qpu_prog_end), &code) ||
		    qpu_test_bo_new(fd, 4096, NULL, 0, &unif))
			_exit(3);
		if (!qpu_test_submit(fd, &code, &unif, 1, 0, QPU_SUBMIT_ALL_BOS, 0, NULL))
			_exit(4);
		_exit(errno == EPERM ? 0 : 5);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	qpu_test_write(PARAMS "sim_hw_policy", "0");
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* Root keeps the capability: its all-BOs job runs. */
	ASSERT_EQ(0, qpu_test_write(PARAMS "sim_hw_policy", "1"));
	EXPECT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 1, 0,
				     QPU_SUBMIT_ALL_BOS, 0, NULL));
	qpu_test_write(PARAMS "sim_hw_policy", "0");
}

/* Another file's BO is out of reach even at its real bus address. */
TEST_F(job, other_files_bo_faults)
{
	int fd2 = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	__u32 *unif = self->unif.map;
	struct qpu_submit s;
	struct qpu_wait w;
	struct qpu_test_bo secret;

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, qpu_test_bo_new(fd2, 4096, "secret", 6, &secret));
	unif[0] = secret.bus_addr;
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->tmu, &self->unif, 1, 0, 0, 0, &s));
	EXPECT_EQ(QPU_JOB_FAULT, qpu_test_wait(self->fd, s.seqno, 5000, &w));
	EXPECT_EQ(secret.bus_addr, w.fault_addr);
	close(fd2);
}

/* Job B waits for job A's out-fence. */
TEST_F_TIMEOUT(job, in_fence_chains_jobs, 30)
{
	struct qpu_submit a, b;
	int fd2 = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	struct qpu_test_bo end2, unif2;

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, qpu_test_bo_new(fd2, 4096, qpu_prog_end, sizeof(qpu_prog_end), &end2));
	ASSERT_EQ(0, qpu_test_bo_new(fd2, 4096, NULL, 0, &unif2));

	/*
	 * A is slow; B, on another file, would otherwise run first. A
	 * second of latency outlasts the 50 ms wait and the fence check
	 * even in a VM on a loaded host (300 ms did not).
	 */
	ASSERT_EQ(0, qpu_test_write(DEBUGFS "latency_us", "1000000"));
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 1, 5000,
			    QPU_SUBMIT_OUT_FENCE, 0, &a));
	ASSERT_EQ(0, qpu_test_submit(fd2, &end2, &unif2, 1, 0, QPU_SUBMIT_IN_FENCE,
			    a.out_fence_fd, &b));
	EXPECT_EQ(-ETIME, qpu_test_wait(fd2, b.seqno, 50, NULL));
	EXPECT_EQ(0, qpu_test_fence_status(a.out_fence_fd));
	EXPECT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, a.seqno, 10000, NULL));
	ASSERT_EQ(0, qpu_test_write(DEBUGFS "latency_us", "0"));
	EXPECT_EQ(QPU_JOB_DONE, qpu_test_wait(fd2, b.seqno, 10000, NULL));
	close(a.out_fence_fd);
	close(fd2);
}

/* A failed in-fence cancels the job that waits on it. */
TEST_F_TIMEOUT(job, failed_in_fence_cancels, 30)
{
	struct qpu_submit a, b;

	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->loop, &self->unif, 1, 5,
			    QPU_SUBMIT_OUT_FENCE, 0, &a));
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 1, 0,
			    QPU_SUBMIT_IN_FENCE, a.out_fence_fd, &b));
	EXPECT_EQ(QPU_JOB_TIMEOUT, qpu_test_wait(self->fd, a.seqno, 10000, NULL));
	EXPECT_EQ(QPU_JOB_CANCELED, qpu_test_wait(self->fd, b.seqno, 10000, NULL));
	close(a.out_fence_fd);
}

/* Closing a file cancels what has not started; fences say so, in order. */
TEST_F_TIMEOUT(job, close_cancels_queued_jobs, 30)
{
	int fd2 = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	struct pollfd pfd = { .events = POLLIN };
	struct qpu_submit a, b;
	struct qpu_test_bo loop2, end2, unif2;

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, qpu_test_bo_new(fd2, 4096, qpu_prog_loop, sizeof(qpu_prog_loop), &loop2));
	ASSERT_EQ(0, qpu_test_bo_new(fd2, 4096, qpu_prog_end, sizeof(qpu_prog_end), &end2));
	ASSERT_EQ(0, qpu_test_bo_new(fd2, 4096, NULL, 0, &unif2));
	/*
	 * A job that lasts 1.5 s by the wall clock, hung by the knob: long
	 * enough that the unmaps and the close below end before it, even on a
	 * debug kernel under TCG on a loaded host.
	 */
	ASSERT_EQ(0, qpu_test_write(DEBUGFS "hang", "1"));
	ASSERT_EQ(0, qpu_test_submit(fd2, &end2, &unif2, 1, 1500, QPU_SUBMIT_OUT_FENCE, 0, &a));
	ASSERT_EQ(0, qpu_test_submit(fd2, &end2, &unif2, 1, 0, QPU_SUBMIT_OUT_FENCE, 0, &b));
	/* Let the scheduler start the first (it does at once; this is slack). */
	EXPECT_EQ(-ETIME, qpu_test_wait(fd2, a.seqno, 100, NULL));
	munmap(loop2.map, 4096);
	munmap(end2.map, 4096);
	munmap(unif2.map, 4096);
	close(fd2);

	/* Fences of one file signal in order: the queued one after a's. */
	EXPECT_EQ(0, qpu_test_fence_status(a.out_fence_fd));
	EXPECT_EQ(0, qpu_test_fence_status(b.out_fence_fd));
	/* The running one runs to its end, and its BOs with it. */
	pfd.fd = a.out_fence_fd;
	EXPECT_EQ(1, poll(&pfd, 1, 10000));
	EXPECT_EQ(-ETIMEDOUT, qpu_test_fence_status(a.out_fence_fd));
	pfd.fd = b.out_fence_fd;
	EXPECT_EQ(1, poll(&pfd, 1, 10000));
	EXPECT_EQ(-ECANCELED, qpu_test_fence_status(b.out_fence_fd));
	close(a.out_fence_fd);
	close(b.out_fence_fd);
}

/* A process killed mid-job leaves nothing behind once the job ends. */
TEST_F_TIMEOUT(job, killed_process_leaks_nothing, 60)
{
	long long bos = qpu_test_stat("bo_count");
	int pipefd[2];
	pid_t pid;
	char c;
	int i;

	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd = open(QPU_NODE, O_RDWR | O_CLOEXEC);
		struct qpu_test_bo loop, unif;

		if (fd < 0 || qpu_test_bo_new(fd, 4096, qpu_prog_loop, sizeof(qpu_prog_loop), &loop) ||
		    qpu_test_bo_new(fd, 4096, NULL, 0, &unif) ||
		    qpu_test_submit(fd, &loop, &unif, 12, 5, 0, 0, NULL) ||
		    qpu_test_submit(fd, &loop, &unif, 12, 5, 0, 0, NULL))
			_exit(1);
		if (write(pipefd[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(pipefd[1]);
	ASSERT_EQ(1, read(pipefd[0], &c, 1));
	close(pipefd[0]);
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	/*
	 * The running job holds its BOs until it ends: 5 ms of progress, which
	 * a debug kernel's simulated V3D takes seconds to emulate. A bound.
	 */
	for (i = 0; i < 400 && qpu_test_stat("bo_count") != bos; i++)
		usleep(50000);
	EXPECT_EQ(bos, qpu_test_stat("bo_count"));
}

/* WAIT's fault fields are outputs: zero unless the job faulted. */
TEST_F(job, wait_clears_fault_fields)
{
	struct qpu_submit s;
	struct qpu_wait w;

	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 1, 0, 0, 0, &s));
	memset(&w, 0, sizeof(w));
	w.seqno = s.seqno;
	w.timeout_ns = qpu_test_now_ns() + 5000000000ll;
	w.status = 77;
	w.fault_qpu = 5;
	w.fault_pc = 0x1234;
	w.fault_addr = 0x5678;
	w.fault_access = QPU_FAULT_OTHER;
	ASSERT_EQ(0, ioctl(self->fd, QPU_IOCTL_WAIT, &w));
	EXPECT_EQ(QPU_JOB_DONE, w.status);
	EXPECT_EQ(0, w.fault_qpu);
	EXPECT_EQ(0, w.fault_pc);
	EXPECT_EQ(0, w.fault_addr);
	EXPECT_EQ(0, w.fault_access);
}

/* The lowest free fd: unchanged when a call installed no fd. */
static int lowest_free_fd(void)
{
	int fd = dup(0);

	if (fd >= 0)
		close(fd);
	return fd;
}

/*
 * A file's queue holds max_queued_jobs jobs behind the running one; the
 * next SUBMIT fails with EAGAIN and leaves nothing: no seqno, no fd, no BO
 * reference.
 */
TEST_F_TIMEOUT(job, queue_bound_refuses_with_eagain, 30)
{
	int fd2 = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	long long bos = qpu_test_stat("bo_count");
	long long bytes = qpu_test_stat("bo_bytes");
	struct qpu_test_bo end2, unif2;
	struct qpu_submit first, s;
	int i, free_fd;

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, qpu_test_bo_new(fd2, 4096, qpu_prog_end, sizeof(qpu_prog_end), &end2));
	ASSERT_EQ(0, qpu_test_bo_new(fd2, 4096, NULL, 0, &unif2));
	ASSERT_EQ(0, qpu_test_write(PARAMS "max_queued_jobs", "4"));
	/* A job that holds the V3D for 500 ms by the wall clock. */
	ASSERT_EQ(0, qpu_test_write(DEBUGFS "hang", "1"));
	ASSERT_EQ(0, qpu_test_submit(fd2, &end2, &unif2, 1, 500, 0, 0, &first));
	EXPECT_EQ(-ETIME, qpu_test_wait(fd2, first.seqno, 100, NULL));
	ASSERT_EQ(0, qpu_test_write(DEBUGFS "hang", "0"));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, qpu_test_submit(fd2, &end2, &unif2, 1, 0, 0, 0, &s));
	free_fd = lowest_free_fd();
	EXPECT_EQ(-1, qpu_test_submit(fd2, &end2, &unif2, 1, 0, QPU_SUBMIT_OUT_FENCE, 0, &s));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(free_fd, lowest_free_fd());
	/* Another file's queue is its own. */
	EXPECT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 1, 0, 0, 0, NULL));

	/* Once the queue drains, the next job takes the next number. */
	EXPECT_EQ(QPU_JOB_DONE, qpu_test_wait(fd2, first.seqno + 4, 20000, NULL));
	ASSERT_EQ(0, qpu_test_submit(fd2, &end2, &unif2, 1, 0, 0, 0, &s));
	EXPECT_EQ(first.seqno + 5, s.seqno);
	EXPECT_EQ(QPU_JOB_DONE, qpu_test_wait(fd2, s.seqno, 20000, NULL));

	qpu_test_bo_free(fd2, &end2);
	qpu_test_bo_free(fd2, &unif2);
	close(fd2);
	EXPECT_EQ(0, qpu_test_stats_wait_bo(5000, bos, bytes, NULL, NULL));
}

/*
 * A SUBMIT whose struct cannot be written back fails with EFAULT before
 * anything happens: no fence fd appears and no job takes a number.
 */
TEST_F(job, submit_to_read_only_struct_leaves_nothing)
{
	struct qpu_program prog = {
		.code_handle = self->end.handle,
		.unif_handle = self->unif.handle,
	};
	struct qpu_submit *ro, s;
	__u64 before;
	int free_fd;

	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 1, 0, 0, 0, &s));
	before = s.seqno;
	ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	*ro = (struct qpu_submit){
		.programs = (uintptr_t)&prog,
		.program_count = 1,
		.program_size = sizeof(prog),
		.flags = QPU_SUBMIT_OUT_FENCE,
	};
	ASSERT_EQ(0, mprotect(ro, 4096, PROT_READ));
	free_fd = lowest_free_fd();
	EXPECT_EQ(-1, ioctl(self->fd, QPU_IOCTL_SUBMIT, ro));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(free_fd, lowest_free_fd());
	EXPECT_EQ(-ENOENT, qpu_test_wait(self->fd, before + 1, 0, NULL));
	munmap(ro, 4096);

	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 1, 0, 0, 0, &s));
	EXPECT_EQ(before + 1, s.seqno);
	EXPECT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, s.seqno, 5000, NULL));
}

/*
 * On an idle device an empty job starts and ends inside SUBMIT (the
 * submitter's turn, qpu_sched.c): its out-fence has signalled by the time
 * SUBMIT returns, so the caller never sleeps for it. A turn of the work
 * that happens to hold the scheduler then (a stray kick) sends a job the
 * old way, so a few may not have signalled yet; most must.
 */
TEST_F(job, idle_device_ends_empty_job_in_submit)
{
	struct pollfd pfd = { .events = POLLIN };
	struct qpu_submit s;
	int i, signalled = 0;

	if (strcmp(QPU_JOB_POLL_ONLY, "0"))
		SKIP(return, "poll_only: the poll finds the end, after SUBMIT");
	for (i = 0; i < 20; i++) {
		ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 1, 0,
					     QPU_SUBMIT_OUT_FENCE, 0, &s));
		pfd.fd = s.out_fence_fd;
		signalled += poll(&pfd, 1, 0) == 1;
		close(s.out_fence_fd);
		EXPECT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, s.seqno, 5000, NULL));
	}
	EXPECT_LE(16, signalled) TH_LOG("%d of 20 fences signalled at SUBMIT's return", signalled);
}

/*
 * A file with many slow jobs does not keep another file waiting: between
 * our SUBMIT and our job's end, the flooding file finishes at most the job
 * that was running and the one whose turn came first, plus one more while
 * we count.  Counting from our SUBMIT, not from the flood's, keeps a slow
 * guest's submit time out of the figure, and 200 ms jobs keep each job far
 * longer than counting the flood's WAITs takes in a loaded raspi0 guest (at
 * 50 ms, CI saw the count pass the bound there).
 */
static int jobs_still_queued(int fd, const struct qpu_submit *jobs, int n)
{
	int i, pending = 0;

	for (i = 0; i < n; i++)
		pending += qpu_test_wait(fd, jobs[i].seqno, 0, NULL) == -ETIME;
	return pending;
}

#define FLOOD_JOBS	10

TEST_F_TIMEOUT(job, files_take_turns, 60)
{
	int fd2 = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	struct qpu_submit flood[FLOOD_JOBS], mine;
	struct qpu_test_bo end2, unif2;
	int i, before, after;

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, qpu_test_bo_new(fd2, 4096, qpu_prog_end, sizeof(qpu_prog_end), &end2));
	ASSERT_EQ(0, qpu_test_bo_new(fd2, 4096, NULL, 0, &unif2));
	ASSERT_EQ(0, qpu_test_write(DEBUGFS "latency_us", "200000"));
	for (i = 0; i < FLOOD_JOBS; i++)
		ASSERT_EQ(0, qpu_test_submit(fd2, &end2, &unif2, 1, 0, 0, 0, &flood[i]));
	before = jobs_still_queued(fd2, flood, FLOOD_JOBS);
	ASSERT_LE(5, before) TH_LOG("the flood drained before our job came (%d left)", before);
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 1, 0, 0, 0, &mine));
	EXPECT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, mine.seqno, 20000, NULL));
	after = jobs_still_queued(fd2, flood, FLOOD_JOBS);
	EXPECT_GE(3, before - after)
		TH_LOG("the other file finished %d jobs before ours", before - after);
	ASSERT_EQ(0, qpu_test_write(DEBUGFS "latency_us", "0"));
	EXPECT_EQ(QPU_JOB_DONE, qpu_test_wait(fd2, flood[FLOOD_JOBS - 1].seqno, 20000, NULL));
	close(fd2);
}

struct thread_arg {
	int fd;
	const struct qpu_test_bo *code, *unif;
	int done;
};

static void *submitter(void *p)
{
	struct thread_arg *t = p;
	struct qpu_submit s;
	int i;

	for (i = 0; i < 25; i++) {
		if (qpu_test_submit(t->fd, t->code, t->unif, 3, 0, 0, 0, &s))
			break;
		if (qpu_test_wait(t->fd, s.seqno, 10000, NULL) == QPU_JOB_DONE)
			t->done++;
	}
	return NULL;
}

/* Threads of one file and several files submitting at once. */
TEST_F_TIMEOUT(job, many_threads_submit, 120)
{
	struct thread_arg args[4];
	pthread_t threads[4];
	int fd2 = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	struct qpu_test_bo end2, unif2;
	int i;

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, qpu_test_bo_new(fd2, 4096, qpu_prog_end, sizeof(qpu_prog_end), &end2));
	ASSERT_EQ(0, qpu_test_bo_new(fd2, 4096, NULL, 0, &unif2));
	for (i = 0; i < 4; i++) {
		args[i] = (struct thread_arg){
			.fd = i % 2 ? fd2 : self->fd,
			.code = i % 2 ? &end2 : &self->end,
			.unif = i % 2 ? &unif2 : &self->unif,
		};
		ASSERT_EQ(0, pthread_create(&threads[i], NULL, submitter, &args[i]));
	}
	for (i = 0; i < 4; i++) {
		pthread_join(threads[i], NULL);
		EXPECT_EQ(25, args[i].done);
	}
	close(fd2);
}

/* The simulated V3D checks every access, so anyone may use it. */
TEST_F(job, unprivileged_user_runs_on_sim)
{
	struct stat st;
	pid_t pid;
	int status;

	ASSERT_EQ(0, stat(QPU_NODE, &st));
	EXPECT_EQ(0666, st.st_mode & 0777);

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct qpu_test_bo code, unif;
		struct qpu_submit s;
		int fd;

		if (setgid(65534) || setuid(65534))
			_exit(2);
		fd = open(QPU_NODE, O_RDWR | O_CLOEXEC);
		if (fd < 0 || qpu_test_bo_new(fd, 4096, qpu_prog_end, sizeof(qpu_prog_end), &code) ||
		    qpu_test_bo_new(fd, 4096, NULL, 0, &unif) ||
		    qpu_test_submit(fd, &code, &unif, 12, 0, 0, 0, &s))
			_exit(3);
		_exit(qpu_test_wait(fd, s.seqno, 5000, NULL) == QPU_JOB_DONE ? 0 : 4);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* The fault_next knob: the next program faults as it starts. */
TEST_F(job, fault_next_knob)
{
	struct qpu_submit s;
	struct qpu_wait w;

	ASSERT_EQ(0, qpu_test_write(DEBUGFS "fault_next", "1"));
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 3, 0, 0, 0, &s));
	EXPECT_EQ(QPU_JOB_FAULT, qpu_test_wait(self->fd, s.seqno, 5000, &w));
	EXPECT_EQ(QPU_FAULT_OTHER, w.fault_access);
	EXPECT_EQ(self->end.bus_addr, w.fault_pc);
	/* It fired once. */
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 3, 0, 0, 0, &s));
	EXPECT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, s.seqno, 5000, NULL));
}

/*
 * strict_vpm: a VPM address past the 64 rows a QPU decodes wraps, as on the
 * hardware, unless the knob asks for a fault (a debugging aid).
 */
TEST_F(job, strict_vpm_knob)
{
	struct qpu_test_bo code;
	struct qpu_submit s;
	struct qpu_wait w;
	__u32 *unif = self->unif.map, *out = unif + 256;

	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, qpu_prog_vpm_wrap, sizeof(qpu_prog_vpm_wrap), &code));
	unif[0] = self->unif.bus_addr + 1024;
	ASSERT_EQ(0, qpu_test_write(DEBUGFS "strict_vpm", "0"));
	ASSERT_EQ(0, qpu_test_submit(self->fd, &code, &self->unif, 1, 0, 0, 0, &s));
	EXPECT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, s.seqno, 5000, NULL));
	EXPECT_EQ(2, out[0]);	/* the second write overwrote the first */

	ASSERT_EQ(0, qpu_test_write(DEBUGFS "strict_vpm", "1"));
	ASSERT_EQ(0, qpu_test_submit(self->fd, &code, &self->unif, 1, 0, 0, 0, &s));
	EXPECT_EQ(QPU_JOB_FAULT, qpu_test_wait(self->fd, s.seqno, 5000, &w));
	EXPECT_EQ(QPU_FAULT_OTHER, w.fault_access);
	EXPECT_EQ(code.bus_addr + 16, w.fault_pc);	/* the second write */
	qpu_test_write(DEBUGFS "strict_vpm", "0");
	qpu_test_bo_free(self->fd, &code);
}

/* With host_irq, a program's host_int write is taken as an interrupt. */
TEST_F(job, host_interrupt_option)
{
	long long irqs = qpu_test_stat("host_irqs");
	struct qpu_submit s;
	struct qpu_test_bo code;

	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, qpu_prog_host_irq, sizeof(qpu_prog_host_irq), &code));
	ASSERT_EQ(0, qpu_test_write(PARAMS "host_irq", "1"));
	ASSERT_EQ(0, qpu_test_submit(self->fd, &code, &self->unif, 12, 0, 0, 0, &s));
	EXPECT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, s.seqno, 5000, NULL));
	EXPECT_LT(irqs, qpu_test_stat("host_irqs"));

	/* Off: the writes are not enabled and raise nothing. */
	irqs = qpu_test_stat("host_irqs");
	ASSERT_EQ(0, qpu_test_write(PARAMS "host_irq", "0"));
	ASSERT_EQ(0, qpu_test_submit(self->fd, &code, &self->unif, 12, 0, 0, 0, &s));
	EXPECT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, s.seqno, 5000, NULL));
	EXPECT_EQ(irqs, qpu_test_stat("host_irqs"));
}

TEST_F(job, wait_by_bo)
{
	struct qpu_wait w = { .flags = QPU_WAIT_BO, .handle = self->data.handle,
			      .timeout_ns = qpu_test_now_ns() + 5000000000ll };
	struct qpu_submit s;

	/* No job used it yet. */
	ASSERT_EQ(0, ioctl(self->fd, QPU_IOCTL_WAIT, &w));
	EXPECT_EQ(QPU_JOB_DONE, w.status);

	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->loop, &self->unif, 1, 5, 0, 0, &s));
	w.handle = self->loop.handle;
	ASSERT_EQ(0, ioctl(self->fd, QPU_IOCTL_WAIT, &w));
	EXPECT_EQ(QPU_JOB_TIMEOUT, w.status);

	w.handle = 9999;
	EXPECT_EQ(-1, ioctl(self->fd, QPU_IOCTL_WAIT, &w));
	EXPECT_EQ(ENOENT, errno);
}

TEST_F(job, wait_errors)
{
	struct qpu_wait w = { .seqno = 12345, .timeout_ns = qpu_test_now_ns() };
	struct qpu_submit s;

	EXPECT_EQ(-1, ioctl(self->fd, QPU_IOCTL_WAIT, &w));
	EXPECT_EQ(ENOENT, errno);
	w = (struct qpu_wait){ .seqno = 1, .pad = 1 };
	EXPECT_EQ(-1, ioctl(self->fd, QPU_IOCTL_WAIT, &w));
	EXPECT_EQ(EINVAL, errno);
	w = (struct qpu_wait){ .seqno = 1, .flags = 2 };
	EXPECT_EQ(-1, ioctl(self->fd, QPU_IOCTL_WAIT, &w));
	EXPECT_EQ(EINVAL, errno);
	/* A seqno and a BO handle at once is ambiguous. */
	w = (struct qpu_wait){ .seqno = 1, .handle = 1, .flags = QPU_WAIT_BO };
	EXPECT_EQ(-1, ioctl(self->fd, QPU_IOCTL_WAIT, &w));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(self->fd, QPU_IOCTL_WAIT, NULL));
	EXPECT_EQ(EFAULT, errno);
	/* A seqno past 32 bits is no job of its low bits (32-bit kernels). */
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 1, 0, 0, 0, &s));
	EXPECT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, s.seqno, 5000, NULL));
	w = (struct qpu_wait){ .seqno = s.seqno + (1ull << 32) };
	EXPECT_EQ(-1, ioctl(self->fd, QPU_IOCTL_WAIT, &w));
	EXPECT_EQ(ENOENT, errno);

	/* A deadline in the past only polls (a job hung 200 ms by the knob). */
	ASSERT_EQ(0, qpu_test_write(DEBUGFS "hang", "1"));
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 1, 200, 0, 0, &s));
	EXPECT_EQ(-ETIME, qpu_test_wait(self->fd, s.seqno, -1000, NULL));
	EXPECT_EQ(QPU_JOB_TIMEOUT, qpu_test_wait(self->fd, s.seqno, 10000, NULL));
}

/*
 * A WAIT never ends before its deadline: on a job the hang knob holds,
 * each deadline, also those under a jiffy away, is past by CLOCK_MONOTONIC
 * when WAIT says -ETIME.
 */
TEST_F_TIMEOUT(job, wait_never_ends_before_its_deadline, 60)
{
	static const __s64 us[] = { 50, 300, 999, 1500, 4100, 9999, 10001, 23456 };
	struct qpu_submit s;
	unsigned int i, k;

	ASSERT_EQ(0, qpu_test_write(DEBUGFS "hang", "1"));
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 1, 3000, 0, 0, &s));
	for (k = 0; k < 3; k++) {
		for (i = 0; i < sizeof(us) / sizeof(us[0]); i++) {
			struct qpu_wait w = { .seqno = s.seqno };
			__s64 now;

			w.timeout_ns = qpu_test_now_ns() + us[i] * 1000;
			EXPECT_EQ(-1, ioctl(self->fd, QPU_IOCTL_WAIT, &w));
			EXPECT_EQ(ETIME, errno);
			now = qpu_test_now_ns();
			EXPECT_LE(w.timeout_ns, now)
				TH_LOG("%lld us: ended %lld us early", (long long)us[i],
				       (long long)(w.timeout_ns - now) / 1000);
		}
	}
	ASSERT_EQ(0, qpu_test_write(DEBUGFS "hang", "0"));
	EXPECT_EQ(QPU_JOB_TIMEOUT, qpu_test_wait(self->fd, s.seqno, 20000, NULL));
}

/* WAIT with @deadline_ns on job @seqno: its status or -errno; @took_ms. */
static int wait_deadline(int fd, __u64 seqno, __s64 deadline_ns, long long *took_ms)
{
	struct qpu_wait w = { .seqno = seqno, .timeout_ns = deadline_ns };
	__s64 start = qpu_test_now_ns();
	int ret = ioctl(fd, QPU_IOCTL_WAIT, &w);

	*took_ms = (qpu_test_now_ns() - start) / 1000000;
	return ret ? -errno : (int)w.status;
}

/*
 * Deadlines as the uapi states them, on a running and on a finished job:
 * the past (down to INT64_MIN), zero and now only poll, at once; a far one
 * (INT64_MAX, libqpu's "forever") waits until the job ends. Once these
 * overflowed: INT64_MIN wrapped into a long wait, and INT64_MAX became a
 * negative timeout (EINVAL and a WARN) on a 32-bit kernel.
 */
TEST_F_TIMEOUT(job, wait_deadlines_past_zero_far, 60)
{
	const __s64 past[] = { INT64_MIN, -1, 0, 1, 0 /* now, below */ };
	struct qpu_submit s, t;
	long long took;
	unsigned int i;

	/* 1.5 s by the wall clock: programs that end, hung by the knob. */
	ASSERT_EQ(0, qpu_test_write(DEBUGFS "hang", "1"));
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 12, 1500, 0, 0, &s));
	for (i = 0; i < sizeof(past) / sizeof(past[0]); i++) {
		__s64 deadline = i == 4 ? qpu_test_now_ns() : past[i];

		EXPECT_EQ(-ETIME, wait_deadline(self->fd, s.seqno, deadline, &took))
			TH_LOG("deadline %lld", (long long)deadline);
		EXPECT_GT(300, took) TH_LOG("deadline %lld waited %lld ms",
					    (long long)deadline, took);
	}
	EXPECT_EQ(QPU_JOB_TIMEOUT, wait_deadline(self->fd, s.seqno, INT64_MAX, &took));
	EXPECT_LT(500, took);
	ASSERT_EQ(0, qpu_test_write(DEBUGFS "hang", "0"));

	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 12, 0, 0, 0, &t));
	EXPECT_EQ(QPU_JOB_DONE, wait_deadline(self->fd, t.seqno, INT64_MAX, &took));
	for (i = 0; i < sizeof(past) / sizeof(past[0]); i++) {
		EXPECT_EQ(QPU_JOB_DONE, wait_deadline(self->fd, t.seqno, past[i], &took));
		EXPECT_EQ(QPU_JOB_TIMEOUT, wait_deadline(self->fd, s.seqno, past[i], &took));
	}
}

TEST_F(job, submit_errors)
{
	struct qpu_program prog = { .code_handle = self->end.handle,
				    .unif_handle = self->unif.handle };
	__u32 big[2][8] = { { self->end.handle, 0, self->unif.handle, 0 } };
	__u32 handles[2] = { self->data.handle, 777 };
	struct qpu_submit base = {
		.programs = (uintptr_t)&prog, .program_count = 1,
		.program_size = sizeof(prog),
	};
	struct qpu_submit a;
	int devnull = open("/dev/null", O_RDONLY);

#define EXPECT_SUBMIT_ERRNO(err) do {					\
		EXPECT_EQ(-1, ioctl(self->fd, QPU_IOCTL_SUBMIT, &a));	\
		EXPECT_EQ(err, errno);					\
	} while (0)

	a = base; a.pad = 1;
	EXPECT_SUBMIT_ERRNO(EINVAL);
	a = base; a.flags = 1 << 7;
	EXPECT_SUBMIT_ERRNO(EINVAL);
	a = base; a.program_size = 12;
	EXPECT_SUBMIT_ERRNO(EINVAL);
	a = base; a.program_size = 1 << 20;
	EXPECT_SUBMIT_ERRNO(EINVAL);
	a = base; a.bo_count = 100000;
	EXPECT_SUBMIT_ERRNO(EINVAL);
	a = base; a.programs = 8;
	EXPECT_SUBMIT_ERRNO(EFAULT);
	a = base; a.bo_count = 1; a.bo_handles = 8;
	EXPECT_SUBMIT_ERRNO(EFAULT);
	a = base; a.bo_count = 2; a.bo_handles = (uintptr_t)handles;
	EXPECT_SUBMIT_ERRNO(ENOENT);
	prog.code_handle = 555;
	a = base;
	EXPECT_SUBMIT_ERRNO(ENOENT);
	prog.code_handle = self->end.handle;
	prog.code_offset = 4;
	EXPECT_SUBMIT_ERRNO(EINVAL);
	prog.code_offset = 4096;
	EXPECT_SUBMIT_ERRNO(EINVAL);
	prog.code_offset = 0;
	prog.unif_offset = 2;
	EXPECT_SUBMIT_ERRNO(EINVAL);
	prog.unif_offset = 0;
	prog.unif_length = 6;
	EXPECT_SUBMIT_ERRNO(EINVAL);
	prog.unif_length = 4096 + 4;
	EXPECT_SUBMIT_ERRNO(EINVAL);
	prog.unif_offset = 8;
	prog.unif_length = 4096;
	EXPECT_SUBMIT_ERRNO(EINVAL);
	prog.unif_offset = 0;
	prog.unif_length = 0;
	prog.pad = 1;
	EXPECT_SUBMIT_ERRNO(EINVAL);
	prog.pad = 0;
	/* The first version's 16-byte element, and a longer one whose extra
	 * bytes are zero, are accepted; a non-zero extra byte is not.
	 */
	a = base; a.programs = (uintptr_t)big; a.program_size = 16;
	EXPECT_EQ(0, ioctl(self->fd, QPU_IOCTL_SUBMIT, &a));
	a.program_size = sizeof(big[0]);
	EXPECT_EQ(0, ioctl(self->fd, QPU_IOCTL_SUBMIT, &a));
	big[0][7] = 1;
	EXPECT_SUBMIT_ERRNO(E2BIG);
	/* The submit struct itself: too short, and grown with a zero tail. */
	{
		struct { struct qpu_submit s; __u64 tail; } grown = { .s = base };

		EXPECT_EQ(-1, ioctl(self->fd, _IOC(_IOC_READ | _IOC_WRITE,
						   QPU_IOCTL_BASE, QPU_IOCTL_NR_SUBMIT,
						   offsetof(struct qpu_submit, seqno)), &a));
		EXPECT_EQ(EINVAL, errno);
		EXPECT_EQ(0, ioctl(self->fd, _IOC(_IOC_READ | _IOC_WRITE,
						  QPU_IOCTL_BASE, QPU_IOCTL_NR_SUBMIT,
						  sizeof(grown)), &grown));
		EXPECT_NE(0, grown.s.seqno);
	}
	/* Fences: not a sync_file, closed, given without the flag. */
	a = base; a.flags = QPU_SUBMIT_IN_FENCE; a.in_fence_fd = devnull;
	EXPECT_SUBMIT_ERRNO(EINVAL);
	a = base; a.flags = QPU_SUBMIT_IN_FENCE; a.in_fence_fd = 999;
	EXPECT_SUBMIT_ERRNO(EINVAL);
	a = base; a.in_fence_fd = devnull;
	EXPECT_SUBMIT_ERRNO(EINVAL);
	EXPECT_EQ(-1, ioctl(self->fd, QPU_IOCTL_SUBMIT, NULL));
	EXPECT_EQ(EFAULT, errno);
	close(devnull);
#undef EXPECT_SUBMIT_ERRNO
}

/*
 * BOs a job uses live until it ends, even when their handles go first. The
 * hang knob keeps the ended program's job from completing until its 1.5 s
 * of wall clock are out: a looping job's budget of instructions ran out
 * under load before the counts were read.
 */
TEST_F_TIMEOUT(job, bos_outlive_destroy_while_running, 30)
{
	struct qpu_bo_destroy d = { .handle = self->end.handle };
	long long bos;
	struct qpu_submit s;

	ASSERT_EQ(0, qpu_test_write(DEBUGFS "hang", "1"));
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 1, 1500, 0, 0, &s));
	munmap(self->end.map, 4096);
	bos = qpu_test_stat("bo_count");
	ASSERT_EQ(0, ioctl(self->fd, QPU_IOCTL_BO_DESTROY, &d));
	EXPECT_EQ(bos, qpu_test_stat("bo_count"));
	EXPECT_EQ(QPU_JOB_TIMEOUT, qpu_test_wait(self->fd, s.seqno, 10000, NULL));
	EXPECT_EQ(bos - 1, qpu_test_stat("bo_count"));
}

/* WAIT returns each job's instruction count: 3 per program of qpu_prog_end. */
TEST_F(job, wait_returns_instructions)
{
	struct qpu_submit s;
	struct qpu_wait w;

	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 1, 0, 0, 0, &s));
	ASSERT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, s.seqno, 5000, &w));
	EXPECT_EQ(QPU_WAIT_RESULT_INSTRUCTIONS, w.result_flags);
	EXPECT_EQ(3, w.instructions);

	/* Twelve programs: their sum, and only this job's. */
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 12, 0, 0, 0, &s));
	ASSERT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, s.seqno, 5000, &w));
	EXPECT_EQ(QPU_WAIT_RESULT_INSTRUCTIONS, w.result_flags);
	EXPECT_EQ(36, w.instructions);

	/* Asked again: the same answer. */
	ASSERT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, s.seqno, 0, &w));
	EXPECT_EQ(36, w.instructions);

	/* By BO: the last job that used it. */
	w = (struct qpu_wait){ .flags = QPU_WAIT_BO, .handle = self->end.handle,
			       .timeout_ns = qpu_test_now_ns() + 5000000000ll,
			       .result_flags = 0xff, .instructions = 7 };
	ASSERT_EQ(0, ioctl(self->fd, QPU_IOCTL_WAIT, &w));
	EXPECT_EQ(QPU_WAIT_RESULT_INSTRUCTIONS, w.result_flags);
	EXPECT_EQ(36, w.instructions);

	/* A BO no job used: nothing is known, whatever came in. */
	w = (struct qpu_wait){ .flags = QPU_WAIT_BO, .handle = self->data.handle,
			       .result_flags = 0xff, .instructions = 7 };
	ASSERT_EQ(0, ioctl(self->fd, QPU_IOCTL_WAIT, &w));
	EXPECT_EQ(0, w.result_flags);
	EXPECT_EQ(0, w.instructions);
}

/* Jobs that stop early count what ran; jobs that never ran count nothing. */
TEST_F_TIMEOUT(job, instructions_of_stopped_jobs, 30)
{
	struct qpu_submit a, b;
	struct qpu_wait w;

	/* A loop until its timeout: its whole budget, all counted. */
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->loop, &self->unif, 1, 5,
				     QPU_SUBMIT_OUT_FENCE, 0, &a));
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 1, 0,
				     QPU_SUBMIT_IN_FENCE, a.out_fence_fd, &b));
	ASSERT_EQ(QPU_JOB_TIMEOUT, qpu_test_wait(self->fd, a.seqno, 10000, &w));
	EXPECT_EQ(QPU_WAIT_RESULT_INSTRUCTIONS, w.result_flags);
	EXPECT_EQ(5 * per_ms(self->fd), w.instructions);
	/* Its in-fence failed: it never started, so nothing is known. */
	ASSERT_EQ(QPU_JOB_CANCELED, qpu_test_wait(self->fd, b.seqno, 10000, &w));
	EXPECT_EQ(0, w.result_flags);
	EXPECT_EQ(0, w.instructions);
	close(a.out_fence_fd);

	/* A fault as the first program starts: it ran, and ran nothing. */
	ASSERT_EQ(0, qpu_test_write(DEBUGFS "fault_next", "1"));
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 1, 0, 0, 0, &a));
	ASSERT_EQ(QPU_JOB_FAULT, qpu_test_wait(self->fd, a.seqno, 5000, &w));
	EXPECT_EQ(QPU_WAIT_RESULT_INSTRUCTIONS, w.result_flags);
	EXPECT_EQ(0, w.instructions);

	/* The reset did not carry anything over to the next job. */
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 2, 0, 0, 0, &a));
	ASSERT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, a.seqno, 5000, &w));
	EXPECT_EQ(6, w.instructions);
}

/* The second WAIT pad must be zero; the first version's size still works. */
TEST_F(job, wait_struct_versions)
{
	/* struct qpu_wait as the first ABI had it: 48 bytes, up to pad. */
	const unsigned long wait_v1 = _IOWR(QPU_IOCTL_BASE, QPU_IOCTL_NR_WAIT,
					    char[48]);
	struct qpu_wait w;
	struct qpu_submit s;

	ASSERT_EQ(48, offsetof(struct qpu_wait, result_flags));
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 1, 0, 0, 0, &s));

	w = (struct qpu_wait){ .seqno = s.seqno, .pad2 = 1,
			       .timeout_ns = qpu_test_now_ns() + 5000000000ll };
	EXPECT_EQ(-1, ioctl(self->fd, QPU_IOCTL_WAIT, &w));
	EXPECT_EQ(EINVAL, errno);

	/* The kernel writes nothing past the 48 bytes an old caller has. */
	memset(&w, 0xa5, sizeof(w));
	w.seqno = s.seqno;
	w.timeout_ns = qpu_test_now_ns() + 5000000000ll;
	w.handle = 0;
	w.flags = 0;
	w.pad = 0;
	ASSERT_EQ(0, ioctl(self->fd, wait_v1, &w));
	EXPECT_EQ(QPU_JOB_DONE, w.status);
	EXPECT_EQ(0xa5a5a5a5, w.result_flags);
	EXPECT_EQ(0xa5a5a5a5, w.pad2);
	EXPECT_EQ(0xa5a5a5a5a5a5a5a5ull, w.instructions);

	/* Shorter than the first version: refused. */
	EXPECT_EQ(-1, ioctl(self->fd, _IOWR(QPU_IOCTL_BASE, QPU_IOCTL_NR_WAIT,
					    char[40]), &w));
	EXPECT_EQ(EINVAL, errno);
}

TEST_HARNESS_MAIN
