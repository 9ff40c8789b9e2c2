// SPDX-License-Identifier: GPL-2.0
/*
 * qpu: the stress test of /dev/qpu. Owns a fixed-time run of several
 * processes x threads, each submitting a seeded mix of good jobs (the
 * 12-QPU vector add of qpu_programs.h over 1..12 QPUs, every result
 * checked against the CPU), faulting jobs (a TMU read of a BO the job does
 * not list: must end QPU_JOB_FAULT at that address) and hanging jobs (an
 * endless loop with a short timeout: must end QPU_JOB_TIMEOUT), with and
 * without fences. A victim process is killed with jobs in flight. At the
 * end every client has exited: bo_count/bo_bytes must return to 0 and the
 * job counters of debugfs must add up (submitted = done + failed + timeout
 * + canceled) and match what the clients saw. Last, one file holds many
 * BOs at once, past the first growths of its mmap space, and each mapping
 * must show its own BO.
 *
 * Usage: qpu_stress [-s SEED] [-t SECONDS] [-p PROCS] [-j THREADS]
 *                   [-w WAIT_SECONDS] [-K]
 *   (-w: how long a client waits for one job, 15 s by default: a debug
 *   kernel under TCG emulates a 50 ms hang for seconds; -K: no victim
 *   process). Prints TAP and "seed S, N jobs".
 */

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

#include "stress.h"
#include "../kmod/qpu_programs.h"

#define QPUS		12
#define FLOATS		(QPUS * 16)
#define SENTINEL	0xdeadbeefu

enum kind { GOOD, FAULT, HANG, KINDS };

static const char *const kind_names[KINDS] = { "good", "faulting", "hanging" };

struct counts {
	uint64_t submitted[KINDS];
	uint64_t as_expected[KINDS];
	uint64_t bad[KINDS];		/* wrong status or wrong result */
	uint64_t errors;		/* a failed ioctl or a wait timeout */
	uint64_t victim_submitted;
	uint64_t canceled;		/* behind a failed in-fence, as expected */
	uint64_t status[5];		/* how the waited jobs ended */
};

static struct counts *cnt;
static uint64_t opt_seed = 1;
static unsigned int opt_secs = 10, opt_procs = 2, opt_threads = 2, opt_wait_secs = 15;
static int opt_victim = 1;
static int64_t deadline;

struct client {
	int fd;
	uint64_t r;
	struct qpu_test_bo vecadd, end, loop, tmu, unif, a, b, c;
	int fence;			/* the last out-fence, or -1 */
	int fence_status;		/* how its job ended */
	const char *who;
};

static void fail(struct client *cl, const char *what, int err)
{
	if (__atomic_fetch_add(&cnt->errors, 1, __ATOMIC_RELAXED) < 20)
		printf("# %s: %s: %s\n", cl->who, what, strerror(err));
}

static int client_init(struct client *cl, int fd, uint64_t seed)
{
	struct qpu_test_bo *bos[] = { &cl->vecadd, &cl->end, &cl->loop, &cl->tmu,
			      &cl->unif, &cl->a, &cl->b, &cl->c };
	float *a, *b;
	unsigned int i;
	memset(cl, 0, sizeof(*cl));
	cl->fd = fd;
	cl->r = rng_seed(seed);
	cl->fence = -1;
	for (i = 0; i < sizeof(bos) / sizeof(bos[0]); i++) {
		if (qpu_test_bo_new(fd, 4096, NULL, 0, bos[i]))
			return -errno;
	}
	memcpy(cl->vecadd.map, qpu_prog_vector_add, sizeof(qpu_prog_vector_add));
	memcpy(cl->end.map, qpu_prog_end, sizeof(qpu_prog_end));
	memcpy(cl->loop.map, qpu_prog_loop, sizeof(qpu_prog_loop));
	memcpy(cl->tmu.map, qpu_prog_tmu_read, sizeof(qpu_prog_tmu_read));
	a = cl->a.map;
	b = cl->b.map;
	/* Quarter-integers: their sums are exact whatever the rounding. */
	for (i = 0; i < FLOATS; i++) {
		a[i] = (float)((int)rng_below(&cl->r, 4000) - 2000) / 4.0f;
		b[i] = (float)((int)rng_below(&cl->r, 4000) - 2000) / 4.0f;
	}
	return 0;
}

static void client_fini(struct client *cl)
{
	struct qpu_test_bo *bos[] = { &cl->vecadd, &cl->end, &cl->loop, &cl->tmu,
			      &cl->unif, &cl->a, &cl->b, &cl->c };
	unsigned int i;

	if (cl->fence >= 0)
		close(cl->fence);
	for (i = 0; i < sizeof(bos) / sizeof(bos[0]); i++)
		if (bos[i]->handle)
			qpu_test_bo_free(cl->fd, bos[i]);
}

/* Waits for @seqno (or through the fence / a BO); returns the status. */
static int wait_job(struct client *cl, struct qpu_submit *s, uint32_t bo,
		    struct qpu_wait *w)
{
	int how = rng_below(&cl->r, 3);

	if (how == 0 && (s->flags & QPU_SUBMIT_OUT_FENCE)) {
		struct pollfd p = { .fd = s->out_fence_fd, .events = POLLIN };

		if (poll(&p, 1, opt_wait_secs * 1000) != 1) {
			fail(cl, "poll on the out-fence", ETIME);
			return -ETIME;
		}
	}
	*w = (struct qpu_wait){ .seqno = s->seqno,
		.timeout_ns = qpu_test_now_ns() + opt_wait_secs * 1000000000ll };
	if (how == 1 && bo) {
		/* the last job of this file that uses @bo: this one */
		w->flags = QPU_WAIT_BO;
		w->handle = bo;
		w->seqno = 0;
	}
	if (ioctl(cl->fd, QPU_IOCTL_WAIT, w)) {
		fail(cl, "QPU_IOCTL_WAIT", errno);
		return -errno;
	}
	return (int)w->status;
}

static void one_job(struct client *cl)
{
	struct qpu_program progs[QPUS];
	uint32_t handles[3] = { cl->a.handle, cl->b.handle, cl->c.handle };
	uint32_t *u = cl->unif.map, *c = cl->c.map;
	const float *a = cl->a.map, *b = cl->b.map;
	struct qpu_submit s = {
		.programs = (uintptr_t)progs,
		.program_size = sizeof(progs[0]),
	};
	uint32_t pick = rng_below(&cl->r, 100), code, wait_bo = 0;
	enum kind kind = pick < 70 ? GOOD : pick < 85 ? FAULT : HANG;
	unsigned int n, k, i, bad = 0;
	struct qpu_wait w;
	int st, in_failed = 0;

	n = 1 + rng_below(&cl->r, QPUS);
	if (kind == GOOD) {
		code = cl->vecadd.handle;
		for (k = 0; k < n; k++) {
			u[4 * k + 0] = cl->a.bus_addr + 64 * k;
			u[4 * k + 1] = cl->b.bus_addr + 64 * k;
			u[4 * k + 2] = cl->c.bus_addr + 64 * k;
			u[4 * k + 3] = k;
		}
		for (i = 0; i < FLOATS; i++)
			c[i] = SENTINEL;
		s.bo_handles = (uintptr_t)handles;
		s.bo_count = 3;
		s.timeout_ms = 5000;
		wait_bo = cl->c.handle;
	} else if (kind == FAULT) {
		/* A TMU read of C, which this job does not list. */
		code = cl->tmu.handle;
		n = 1 + rng_below(&cl->r, 3);
		for (k = 0; k < n; k++)
			u[4 * k] = cl->c.bus_addr + 4 * k;
		s.timeout_ms = 5000;
	} else {
		code = cl->loop.handle;
		n = 1 + rng_below(&cl->r, 2);
		s.timeout_ms = 10 + rng_below(&cl->r, 30);
	}
	for (k = 0; k < n; k++)
		progs[k] = (struct qpu_program){ .code_handle = code,
			.unif_handle = cl->unif.handle, .unif_offset = 16 * k,
			.unif_length = 16 };
	s.program_count = n;
	if (rng_one_in(&cl->r, 2))
		s.flags |= QPU_SUBMIT_OUT_FENCE;
	if (cl->fence >= 0 && rng_one_in(&cl->r, 2)) {
		s.flags |= QPU_SUBMIT_IN_FENCE;
		s.in_fence_fd = cl->fence;
		/* A failed job's fence fails: jobs waiting for it are canceled. */
		in_failed = cl->fence_status != QPU_JOB_DONE;
	}
	if (ioctl(cl->fd, QPU_IOCTL_SUBMIT, &s)) {
		fail(cl, "QPU_IOCTL_SUBMIT", errno);
		return;
	}
	__atomic_fetch_add(&cnt->submitted[kind], 1, __ATOMIC_RELAXED);
	if (s.flags & QPU_SUBMIT_OUT_FENCE) {
		if (cl->fence >= 0)
			close(cl->fence);
		cl->fence = s.out_fence_fd;
	}
	st = wait_job(cl, &s, wait_bo, &w);
	if (st < 0)
		return;
	if (s.flags & QPU_SUBMIT_OUT_FENCE)
		cl->fence_status = st;
	__atomic_fetch_add(&cnt->status[st >= 1 && st <= 4 ? st : 0], 1,
			   __ATOMIC_RELAXED);
	if (in_failed) {
		bad = st != QPU_JOB_CANCELED;
		if (!bad)
			__atomic_fetch_add(&cnt->canceled, 1, __ATOMIC_RELAXED);
		goto judged;
	}
	switch (kind) {
	case GOOD:
		bad = st != QPU_JOB_DONE;
		for (i = 0; !bad && i < FLOATS; i++) {
			float sum = a[i] + b[i];
			uint32_t want;

			memcpy(&want, &sum, sizeof(want));
			if (i >= 16 * n)
				want = SENTINEL;
			if (c[i] != want) {
				printf("# %s: %u QPUs: C[%u] = 0x%08x, want 0x%08x\n",
				       cl->who, n, i, c[i], want);
				bad = 1;
			}
		}
		break;
	case FAULT:
		bad = st != QPU_JOB_FAULT || w.fault_access != QPU_FAULT_TMU ||
		      w.fault_addr < cl->c.bus_addr ||
		      w.fault_addr >= cl->c.bus_addr + 4 * n;
		break;
	default:
		bad = st != QPU_JOB_TIMEOUT;
		break;
	}
judged:
	if (bad) {
		__atomic_fetch_add(&cnt->bad[kind], 1, __ATOMIC_RELAXED);
		printf("# %s: a %s job ended with status %d (fault %u at 0x%08x, access %u)\n",
		       cl->who, kind_names[kind], st, w.fault_qpu, w.fault_addr,
		       w.fault_access);
	} else if (!in_failed) {
		__atomic_fetch_add(&cnt->as_expected[kind], 1, __ATOMIC_RELAXED);
	}
}

struct thread_arg {
	int fd;			/* shared by the process's threads, or -1 */
	uint64_t seed;
	char who[32];
};

static void *thread_main(void *p)
{
	struct thread_arg *ta = p;
	struct client cl;
	int fd = ta->fd, own = 0, err;

	if (fd < 0) {
		fd = open(QPU_NODE, O_RDWR | O_CLOEXEC);
		own = 1;
	}
	if (fd < 0) {
		printf("# %s: open %s: %s\n", ta->who, QPU_NODE, strerror(errno));
		__atomic_fetch_add(&cnt->errors, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	err = client_init(&cl, fd, ta->seed);
	cl.who = ta->who;
	if (err) {
		fail(&cl, "creating the BOs", -err);
	} else {
		while (qpu_test_now_ns() < deadline)
			one_job(&cl);
	}
	client_fini(&cl);
	if (own)
		close(fd);
	return NULL;
}

static int proc_main(unsigned int p)
{
	struct thread_arg ta[64];
	pthread_t th[64];
	unsigned int t;
	int shared = open(QPU_NODE, O_RDWR | O_CLOEXEC);

	for (t = 0; t < opt_threads; t++) {
		/* Even threads share the process's file, odd ones have their own. */
		ta[t].fd = t % 2 ? -1 : shared;
		ta[t].seed = opt_seed * 7919 + p * 64 + t;
		snprintf(ta[t].who, sizeof(ta[t].who), "process %u thread %u", p, t);
		if (pthread_create(&th[t], NULL, thread_main, &ta[t]))
			return 1;
	}
	for (t = 0; t < opt_threads; t++)
		pthread_join(th[t], NULL);
	close(shared);
	return 0;
}

/* Submits hanging and good jobs without waiting, until it is killed. */
static void victim_main(void)
{
	struct client cl;
	int fd = open(QPU_NODE, O_RDWR | O_CLOEXEC);

	if (fd < 0 || client_init(&cl, fd, opt_seed))
		_exit(1);
	cl.who = "victim";
	for (;;) {
		struct qpu_program prog = { .code_handle = cl.loop.handle,
			.unif_handle = cl.unif.handle };
		struct qpu_submit s = { .programs = (uintptr_t)&prog,
			.program_count = 1, .program_size = sizeof(prog),
			.timeout_ms = 50 };

		if (rng_one_in(&cl.r, 2))
			prog.code_handle = cl.end.handle;
		if (!ioctl(fd, QPU_IOCTL_SUBMIT, &s))
			__atomic_fetch_add(&cnt->victim_submitted, 1,
					   __ATOMIC_RELAXED);
		else
			usleep(1000);
		if (s.seqno % 8 == 0)
			usleep(20000);	/* do not fill the queue for nothing */
	}
}

static long long stat_delta(const char *name, long long before)
{
	long long v = qpu_test_stat(name);

	return v < 0 ? -1 : v - before;
}

#define MANY_BOS	96

/* Fills @bo with words naming it. */
static void bo_fill(struct qpu_test_bo *bo)
{
	uint32_t *w = bo->map;
	size_t i;

	for (i = 0; i < bo->size / 4; i += 1024)
		w[i] = bo->handle * 0x10001u + (uint32_t)i;
}

static int bo_check(const struct qpu_test_bo *bo)
{
	const uint32_t *w = bo->map;
	size_t i;

	for (i = 0; i < bo->size / 4; i += 1024)
		if (w[i] != bo->handle * 0x10001u + (uint32_t)i)
			return -1;
	return 0;
}

/*
 * Many BOs of 4 KiB to 1 MiB on one file (tens of MiB: the mmap space
 * grows from 4 MiB several times), every other one destroyed and the
 * holes refilled: mmap offsets stay page-aligned, below 2 GiB and
 * disjoint, and every mapping shows its own BO. Returns 0 when all holds.
 */
static int many_bos(uint64_t seed)
{
	static struct qpu_test_bo bos[MANY_BOS];
	uint64_t r = rng_seed(seed), pass;
	unsigned int i, j, made = 0, bad = 0;
	int fd = open(QPU_NODE, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -1;
	memset(bos, 0, sizeof(bos));
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < MANY_BOS; i++) {
			if (bos[i].handle)
				continue;
			if (qpu_test_bo_new(fd, 4096u << rng_below(&r, 9), NULL, 0,
					    &bos[i])) {
				printf("# BO %u: %s\n", i, strerror(errno));
				bad++;
				continue;
			}
			made++;
			bo_fill(&bos[i]);
		}
		for (i = 0; i < MANY_BOS; i++) {
			const struct qpu_test_bo *a = &bos[i];

			if (!a->handle)
				continue;
			if (a->mmap_offset % 4096 || !a->mmap_offset ||
			    a->mmap_offset + a->size > (1ull << 31) || bo_check(a))
				bad++;
			for (j = i + 1; j < MANY_BOS; j++)
				if (bos[j].handle &&
				    a->mmap_offset < bos[j].mmap_offset + bos[j].size &&
				    bos[j].mmap_offset < a->mmap_offset + a->size)
					bad++;
		}
		if (!pass)
			for (i = 0; i < MANY_BOS; i += 2)
				qpu_test_bo_free(fd, &bos[i]);
	}
	for (i = 0; i < MANY_BOS; i++)
		if (bos[i].handle)
			qpu_test_bo_free(fd, &bos[i]);
	close(fd);
	printf("# %u BOs made on one file, %u problems\n", made, bad);
	return bad || qpu_test_stats_wait_bo(20000, 0, 0, NULL, NULL) ? -1 : 0;
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "jobs_submitted", "jobs_done",
		"jobs_failed", "jobs_timeout", "jobs_canceled" };
	long long before[5], d[5], count, bytes;
	uint64_t ours, verified = 0, total = 0;
	int c, status, failed = 0, zero, consistent;
	pid_t pids[64], victim = -1;
	unsigned int p, i;
	int64_t t0;

	while ((c = getopt(argc, argv, "s:t:p:j:w:K")) != -1) {
		switch (c) {
		case 's': opt_seed = strtoull(optarg, NULL, 0); break;
		case 't': opt_secs = strtoul(optarg, NULL, 0); break;
		case 'p': opt_procs = strtoul(optarg, NULL, 0); break;
		case 'j': opt_threads = strtoul(optarg, NULL, 0); break;
		case 'w': opt_wait_secs = strtoul(optarg, NULL, 0); break;
		case 'K': opt_victim = 0; break;
		default:
			fprintf(stderr, "usage: qpu_stress [-s SEED] [-t SECONDS] [-p PROCS] [-j THREADS] [-w WAIT_SECONDS] [-K]\n");
			return 2;
		}
	}
	if (!opt_procs || opt_procs > 64 || !opt_threads || opt_threads > 64) {
		fprintf(stderr, "qpu_stress: 1 to 64 processes and threads\n");
		return 2;
	}
	if (!opt_wait_secs || opt_wait_secs > 3600) {
		fprintf(stderr, "qpu_stress: a wait of 1 to 3600 seconds\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..4\n");
	printf("# qpu_stress: seed %llu, %u s, %u processes x %u threads%s\n",
	       (unsigned long long)opt_seed, opt_secs, opt_procs, opt_threads,
	       opt_victim ? ", and a victim killed halfway" : "");
	cnt = mmap(NULL, sizeof(*cnt), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (cnt == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (i = 0; i < 5; i++)
		before[i] = qpu_test_stat(names[i]);
	t0 = qpu_test_now_ns();
	deadline = t0 + (int64_t)opt_secs * 1000000000ll;
	if (opt_victim) {
		victim = fork();
		if (victim == 0)
			victim_main();
	}
	for (p = 0; p < opt_procs; p++) {
		pids[p] = fork();
		if (pids[p] == 0)
			_exit(proc_main(p));
		if (pids[p] < 0) {
			perror("fork");
			return 1;
		}
	}
	if (victim > 0) {
		usleep(opt_secs * 500000);
		kill(victim, SIGKILL);
		waitpid(victim, &status, 0);
	}
	for (p = 0; p < opt_procs; p++)
		if (waitpid(pids[p], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			printf("# process %u ended badly (status 0x%x)\n", p, status);
			failed = 1;
		}
	for (i = 0; i < KINDS; i++) {
		printf("# %-9s jobs: %llu submitted, %llu as expected, %llu wrong\n",
		       kind_names[i], (unsigned long long)cnt->submitted[i],
		       (unsigned long long)cnt->as_expected[i],
		       (unsigned long long)cnt->bad[i]);
		total += cnt->submitted[i];
		if (cnt->bad[i])
			failed = 1;
	}
	verified = cnt->as_expected[GOOD];
	printf("# %llu jobs canceled behind a failed in-fence, as expected\n",
	       (unsigned long long)cnt->canceled);
	printf("# victim submitted %llu jobs; %llu errors; %.1f s\n",
	       (unsigned long long)cnt->victim_submitted,
	       (unsigned long long)cnt->errors, (double)(qpu_test_now_ns() - t0) / 1e9);
	if (cnt->errors || !verified)
		failed = 1;
	printf("%sok 1 every good job's result verified (%llu)\n",
	       failed ? "not " : "", (unsigned long long)verified);

	/* Every client is gone: BOs go when their last job ends. */
	zero = qpu_test_stats_wait_bo(20000, 0, 0, &count, &bytes);
	for (i = 0; i < 5; i++)
		d[i] = stat_delta(names[i], before[i]);
	printf("# kernel: %lld submitted, %lld done, %lld failed, %lld timeout, %lld canceled; bo_count %lld, bo_bytes %lld\n",
	       d[0], d[1], d[2], d[3], d[4], count, bytes);
	ours = total + cnt->victim_submitted;
	printf("# seen by the clients: %llu done, %llu failed, %llu timeout, %llu canceled (behind a failed in-fence), %llu other\n",
	       (unsigned long long)cnt->status[QPU_JOB_DONE],
	       (unsigned long long)cnt->status[QPU_JOB_FAULT],
	       (unsigned long long)cnt->status[QPU_JOB_TIMEOUT],
	       (unsigned long long)cnt->status[QPU_JOB_CANCELED],
	       (unsigned long long)cnt->status[0]);
	/* The victim's jobs are only in the kernel's counts (no faults). */
	consistent = before[0] >= 0 && d[0] == d[1] + d[2] + d[3] + d[4] &&
		     (uint64_t)d[0] >= ours && (uint64_t)d[0] <= ours + 1 &&
		     (uint64_t)d[1] >= cnt->status[QPU_JOB_DONE] &&
		     (uint64_t)d[2] == cnt->status[QPU_JOB_FAULT] &&
		     (uint64_t)d[3] >= cnt->status[QPU_JOB_TIMEOUT] &&
		     (uint64_t)d[4] >= cnt->status[QPU_JOB_CANCELED];
	if (!opt_victim)
		consistent = consistent &&
			     (uint64_t)d[1] == cnt->status[QPU_JOB_DONE] &&
			     (uint64_t)d[3] == cnt->status[QPU_JOB_TIMEOUT] &&
			     (uint64_t)d[4] == cnt->status[QPU_JOB_CANCELED];
	printf("%sok 2 job counters consistent\n", consistent ? "" : "not ");
	printf("%sok 3 accounting returns to zero\n", zero ? "not " : "");
	if (many_bos(opt_seed)) {
		printf("not ok 4 many BOs on one file: disjoint mmap offsets, each mapping its own BO\n");
		failed = 1;
	} else {
		printf("ok 4 many BOs on one file: disjoint mmap offsets, each mapping its own BO\n");
	}
	printf("seed %llu, %llu jobs\n", (unsigned long long)opt_seed,
	       (unsigned long long)ours);
	return failed || !consistent || zero ? 1 : 0;
}
