// SPDX-License-Identifier: GPL-2.0
/*
 * Driver benchmarks, run inside the VM on the simulated V3D (make bench):
 * the round trip of an empty job from submit to its fence signalling,
 * against an eventfd ping-pong between two threads on the same machine in
 * the same run, for one client and for two clients taking turns (each job
 * then follows another file's, so the driver resets the V3D before it: the
 * cost of isolating clients), and for one client again with the simulated
 * V3D's poll_only knob, where only the driver's poll of SRQCS finds a job's
 * end, as on hardware without interrupts, and once more with its
 * sim_hw_policy parameter, where a job does not start on a cleared machine
 * (the clean start's cost is the difference); BO create+mmap+destroy per
 * second; jobs per second with 1 and 4 clients. Each figure is a median of
 * 5 runs, so noise (TCG's timers) shows less.
 *
 * "bench-vm --round-trip [runs [jobs]]" measures only the eventfd ping-pong and the
 * one-client empty job (and its poll-only form), one line per run, each run
 * a pair taken back to back: what is compared when modules are alternated
 * in one guest (insmod one, measure, rmmod, insmod the other: make
 * bench-round-trip). Each line ends with the machine's context switches
 * per ping-pong round trip and per job, the guest's whole count, so that
 * the hand-offs show however loaded the host is.
 *
 * The comparison is fair by the number of hand-offs: the ping-pong wakes a
 * sleeping thread twice per round trip (the ponger, then the caller); the
 * job wakes the scheduler's worker (the submit) and then the caller (the
 * fence), while the simulated V3D runs the empty program and the scheduler
 * ends it within that worker's turn. What the job pays beyond the two
 * wake-ups is the driver's own work: the submit, the sync_file and its
 * fd, the clean start, the fence's end.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/qpu.h>

#include "../kmod/qpu_programs.h"
#include "../kmod/qpu_util.h"
#include "bench.h"

#define NODE		"/dev/qpu"
#define RUNS		5
#define POLL_ONLY	QPU_DEBUGFS "poll_only"
#define HW_POLICY	QPU_PARAMS "sim_hw_policy"

static void die(const char *what)
{
	fprintf(stderr, "bench-vm: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* --- jobs ---------------------------------------------------------------- */

struct client {
	int fd;
	uint32_t code, unif;
};

static uint32_t bo_create(int fd, size_t size, const void *data, size_t len)
{
	struct qpu_bo_create args = { .size = size };
	void *map;

	if (ioctl(fd, QPU_IOCTL_BO_CREATE, &args))
		die("BO_CREATE");
	if (data) {
		map = mmap(NULL, args.size, PROT_READ | PROT_WRITE, MAP_SHARED,
			   fd, args.mmap_offset);
		if (map == MAP_FAILED)
			die("mmap");
		memcpy(map, data, len);
		munmap(map, args.size);
	}
	return args.handle;
}

static void client_open(struct client *c)
{
	c->fd = open(NODE, O_RDWR | O_CLOEXEC);
	if (c->fd < 0)
		die("open " NODE);
	c->code = bo_create(c->fd, 4096, qpu_prog_end, sizeof(qpu_prog_end));
	c->unif = bo_create(c->fd, 4096, NULL, 0);
}

/* Submits a job of @programs empty programs; returns its fence fd or -1. */
static int submit(const struct client *c, unsigned int programs, uint64_t *seqno)
{
	struct qpu_program progs[12];
	struct qpu_submit args = {
		.programs = (uintptr_t)progs,
		.program_count = programs,
		.program_size = sizeof(progs[0]),
		.flags = seqno ? 0 : QPU_SUBMIT_OUT_FENCE,
	};
	unsigned int i;

	for (i = 0; i < programs; i++)
		progs[i] = (struct qpu_program){ .code_handle = c->code, .unif_handle = c->unif };
	if (ioctl(c->fd, QPU_IOCTL_SUBMIT, &args))
		die("SUBMIT");
	if (seqno)
		*seqno = args.seqno;
	return seqno ? -1 : args.out_fence_fd;
}

static void wait_seqno(const struct client *c, uint64_t seqno)
{
	struct qpu_wait w = { .seqno = seqno, .timeout_ns = INT64_MAX };

	if (ioctl(c->fd, QPU_IOCTL_WAIT, &w) || w.status != QPU_JOB_DONE)
		die("WAIT");
}

/* Round trips of jobs submitted by @clients[0..count) in turn. */
static double job_round_trip_us(const struct client *clients, int count, long n)
{
	struct pollfd pfd = { .events = POLLIN };
	double start = bench_now_s();
	long i;

	for (i = 0; i < n; i++) {
		pfd.fd = submit(&clients[i % count], 1, NULL);
		if (poll(&pfd, 1, 10000) != 1)
			die("poll on the out-fence");
		close(pfd.fd);
	}
	return (bench_now_s() - start) / n * 1e6;
}

static double bo_cycles_per_s(const struct client *c, long n)
{
	double start = bench_now_s();
	long i;

	for (i = 0; i < n; i++) {
		struct qpu_bo_create args = { .size = 4096 };
		struct qpu_bo_destroy d;
		void *map;

		if (ioctl(c->fd, QPU_IOCTL_BO_CREATE, &args))
			die("BO_CREATE");
		map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd,
			   args.mmap_offset);
		if (map == MAP_FAILED)
			die("mmap");
		*(volatile char *)map = 1;
		munmap(map, 4096);
		d = (struct qpu_bo_destroy){ .handle = args.handle };
		if (ioctl(c->fd, QPU_IOCTL_BO_DESTROY, &d))
			die("BO_DESTROY");
	}
	return n / (bench_now_s() - start);
}

/* Each client keeps 8 jobs of 12 programs in flight. */
static void client_stream(long jobs)
{
	struct client c;
	uint64_t seqno[8];
	long i;

	client_open(&c);
	for (i = 0; i < jobs; i++) {
		if (i >= 8)
			wait_seqno(&c, seqno[i % 8]);
		submit(&c, 12, &seqno[i % 8]);
	}
	for (i = jobs > 8 ? jobs - 8 : 0; i < jobs; i++)
		wait_seqno(&c, seqno[i % 8]);
	close(c.fd);
}

static double jobs_per_s(int clients, long jobs_each)
{
	double start = bench_now_s();
	int i, status;

	for (i = 0; i < clients; i++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (pid == 0) {
			client_stream(jobs_each);
			_exit(0);
		}
	}
	for (i = 0; i < clients; i++)
		if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			die("client");
	return clients * jobs_each / (bench_now_s() - start);
}

/*
 * The machine's context switches so far (/proc/stat's ctxt): per round
 * trip, the hand-offs counted instead of timed, which the host's load
 * does not blur. -1 when unreadable.
 */
static long long context_switches(void)
{
	long long n = -1;
	char line[256];
	FILE *f = fopen("/proc/stat", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "ctxt %lld", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* One line per run: the ping-pong and the one-client job, back to back. */
static int round_trips(int runs, long jobs)
{
	bool poll_knob = qpu_test_write(POLL_ONLY, "0") == 0;
	double ev[RUNS * 8], job[RUNS * 8], ratio[RUNS * 8];
	struct client c;
	int r;

	if (runs < 1 || runs > RUNS * 8)
		runs = RUNS;
	if (jobs < 1)
		jobs = 500;
	client_open(&c);
	job_round_trip_us(&c, 1, 50);		/* warm up */
	for (r = 0; r < runs; r++) {
		double jobp = 0, ev_cs, job_cs;
		long long cs = context_switches();

		ev[r] = qpu_test_eventfd_round_trip_us(4 * jobs);
		if (ev[r] < 0)
			die("eventfd ping-pong");
		ev_cs = (double)(context_switches() - cs) / (4 * jobs);
		cs = context_switches();
		job[r] = job_round_trip_us(&c, 1, jobs);
		job_cs = (double)(context_switches() - cs) / jobs;
		ratio[r] = job[r] / ev[r];
		if (poll_knob) {
			qpu_test_write(POLL_ONLY, "1");
			jobp = job_round_trip_us(&c, 1, jobs);
			qpu_test_write(POLL_ONLY, "0");
		}
		printf("round trip %d: eventfd %.1f us, job %.1f us, ratio %.2f x, poll only %.1f us, switches %.2f and %.2f\n",
		       r, ev[r], job[r], ratio[r], jobp, ev_cs, job_cs);
	}
	printf("round trip median of %d: eventfd %.1f us, job %.1f us, ratio %.2f x\n",
	       runs, bench_median(ev, runs), bench_median(job, runs),
	       bench_median(ratio, runs));
	close(c.fd);
	return 0;
}

int main(int argc, char **argv)
{
	double ev[RUNS], job[RUNS], job2[RUNS], jobp[RUNS], jobk[RUNS], bo[RUNS];
	double j1[RUNS], j4[RUNS];
	long long resets0, ns0, resets, ns;
	double ev_us, job_us, job2_us, jobp_us = 0, jobk_us = 0;
	/* On hardware there is no knob: completion is always polled there. */
	bool poll_knob = qpu_test_write(POLL_ONLY, "0") == 0;
	struct client c[2];
	int r;

	if (argc > 1 && !strcmp(argv[1], "--round-trip"))
		return round_trips(argc > 2 ? atoi(argv[2]) : RUNS,
				   argc > 3 ? atol(argv[3]) : 500);
	client_open(&c[0]);
	client_open(&c[1]);
	resets0 = qpu_test_stat("isolation_resets");
	ns0 = qpu_test_stat("isolation_reset_ns");
	for (r = 0; r < RUNS; r++) {
		ev[r] = qpu_test_eventfd_round_trip_us(2000);
		if (ev[r] < 0)
			die("eventfd ping-pong");
		job[r] = job_round_trip_us(c, 1, 300);
		job2[r] = job_round_trip_us(c, 2, 300);
		if (poll_knob) {
			qpu_test_write(POLL_ONLY, "1");
			jobp[r] = job_round_trip_us(c, 1, 300);
			qpu_test_write(POLL_ONLY, "0");
			qpu_test_write(HW_POLICY, "1");
			jobk[r] = job_round_trip_us(c, 1, 300);
			qpu_test_write(HW_POLICY, "0");
		}
		bo[r] = bo_cycles_per_s(&c[0], 1000);
		j1[r] = jobs_per_s(1, 200);
		j4[r] = jobs_per_s(4, 50);
	}
	ev_us = bench_median(ev, RUNS);
	job_us = bench_median(job, RUNS);
	job2_us = bench_median(job2, RUNS);
	if (poll_knob) {
		jobp_us = bench_median(jobp, RUNS);
		jobk_us = bench_median(jobk, RUNS);
	}
	resets = qpu_test_stat("isolation_resets") - resets0;
	ns = qpu_test_stat("isolation_reset_ns") - ns0;

	printf("qpu driver benchmarks (%s; median of %d runs)\n",
	       poll_knob ? "simulated V3D, in the VM" : "no simulated V3D's knobs", RUNS);
	printf("  %-46s %10.1f us\n", "eventfd ping-pong round trip, 2 threads", ev_us);
	printf("  %-46s %10.1f us\n", "empty job: submit to out-fence poll", job_us);
	printf("  %-46s %10.2f x   (goal: at most 1.5)\n", "ratio job / eventfd", job_us / ev_us);
	printf("  %-46s %10.1f us\n", "empty job, two clients taking turns", job2_us);
	printf("  %-46s %10.2f x\n", "ratio two clients / one client", job2_us / job_us);
	if (poll_knob) {
		printf("  %-46s %10.1f us\n", "empty job, poll only (no kick, as on hardware)",
		       jobp_us);
		printf("  %-46s %10.2f x\n", "ratio poll only job / eventfd", jobp_us / ev_us);
		printf("  %-46s %10.1f us\n", "empty job, no clean start (sim_hw_policy)",
		       jobk_us);
		printf("  %-46s %10.1f us\n", "clean start, each job", job_us - jobk_us);
	}
	if (resets > 0)
		printf("  %-46s %10.1f us   (%lld resets)\n", "V3D reset between clients, each",
		       ns / 1e3 / resets, resets);
	printf("  %-46s %10.0f /s\n", "BO create + mmap + touch + destroy, 4 KiB",
	       bench_median(bo, RUNS));
	printf("  %-46s %10.0f /s\n", "jobs of 12 empty programs, 1 client",
	       bench_median(j1, RUNS));
	printf("  %-46s %10.0f /s\n", "jobs of 12 empty programs, 4 clients",
	       bench_median(j4, RUNS));
	close(c[0].fd);
	close(c[1].fd);
	return 0;
}
