// SPDX-License-Identifier: GPL-2.0
/*
 * qpu: fault injection over the driver's allocation paths, in three ways.
 *
 * 1. One allocation at a time, in the calling thread: the 1st, 2nd, ...
 *    Nth allocation that an operation makes fails, until the operation
 *    runs to its end without reaching the Nth. /proc/thread-self/fail-nth
 *    counts the fault-injection points this thread passes: every slab
 *    allocation (failslab, with ignore-gfp-wait off so GFP_KERNEL ones
 *    count) and every page allocation that cannot sleep (fail_page_alloc);
 *    the task filter is on with /proc/thread-self/make-it-fail set and
 *    the probabilities are 0, so nothing fails outside this thread or at
 *    random. Operations: open, BO_CREATE, mmap, SUBMIT with in- and
 *    out-fences, WAIT, the release of a file that still has BOs, mappings
 *    and queued jobs (close, then the munmap that drops the last file
 *    reference: the release runs in this thread, as task work, before the
 *    syscall returns), and netlink DEV_GET, STATS_GET dump, CLIENT_GET
 *    dump, CONFIG_SET and DEV_RESET. And a SUBMIT of more than 512 BOs
 *    whose job hangs and whose reset fails (the reset_noop knob): its BO
 *    array, more than a page, falls back to vmalloc when the failed
 *    allocation is kvmalloc's kmalloc, and it outlives the job (the
 *    scheduler keeps the BOs, debugfs kept_bos) until another file's job
 *    resets the V3D and frees it. /proc/vmallocinfo must show that array
 *    once at least, so the kvfree of a vmalloc'ed array was reached.
 * 2. The same for BO_CREATE and mmap with sleeping page allocations
 *    counted too (fail_page_alloc's ignore-gfp-wait off): the BO's own
 *    pages, vmalloc's page tables, the mapping's page tables. As vmalloc
 *    falls back to single pages when its bulk allocation fails, one
 *    failure rarely fails it: bursts follow, where this thread's first
 *    1, 2, ... N page allocations all fail (fail_page_alloc with its task
 *    filter, probability 100, times N), until a burst is not used up.
 * 3. The scheduler's work cannot be reached that way (fail-nth and
 *    make-it-fail are per task, the work runs in a kworker), so a bounded
 *    window fails slab allocations system-wide: task filter off,
 *    probability 100, every INTERVAL-th allocation, at most TIMES of them
 *    (the kernel counts them down in failslab/times), for at most a few
 *    seconds while jobs that end, fault and time out run, and this
 *    program, subscribed to the events (so the work builds event
 *    messages), mostly sleeps in WAIT. Then the knobs are put back; every
 *    job must have ended as its program says, a new job must run, and the
 *    BO and job accounting must return to what it was.
 *
 * After each attempt every accepted call must have succeeded or failed
 * with an allowed errno (ENOMEM, or ENOBUFS for netlink), the device's
 * bo_count/bo_bytes must return to what they were, every job submitted
 * must have ended (jobs_submitted = done + failed + timeout + canceled),
 * and the next clean attempt must work. Needs a kernel with
 * CONFIG_FAULT_INJECTION, FAILSLAB, FAIL_PAGE_ALLOC and
 * FAULT_INJECTION_DEBUG_FS (the debug kernel); skips (exit 4) without
 * them. kmemleak is scanned by the caller, after the module's unload.
 *
 * The kernel's log: a failed vmalloc prints a warn_alloc report with a
 * stack dump ("vmalloc error: ...", "Call Trace:"). The VM runner is told
 * to expect those for this step (run-vm.sh --expect-log, see debug.mk)
 * and still fails on any other report; this program leaves the log alone.
 *
 * Usage: qpu_failinj [-k MAX_N] [-w TIMES] [-o TEXT]
 * -o runs only the operations whose name contains TEXT, and not the
 * window (to reproduce one finding). Prints TAP, then "N faults injected,
 * N jobs run".
 */

#include <pthread.h>

#include "stress.h"
#include "../kmod/qpu_programs.h"

#define FAILSLAB	"/sys/kernel/debug/failslab/"
#define FAILPAGE	"/sys/kernel/debug/fail_page_alloc/"

static unsigned int max_n = 200;
static unsigned int window_times = 40;
static unsigned long long faults_total, jobs_total;
static int test_no;

/* The page-allocation failures print warn_alloc reports: expected. */
static int setup(void)
{
	static const char *const knobs[][2] = {
		{ FAILSLAB "task-filter", "Y" },
		{ FAILSLAB "ignore-gfp-wait", "N" },
		{ FAILSLAB "probability", "0" },
		{ FAILSLAB "interval", "1" },
		{ FAILSLAB "times", "-1" },
		{ FAILSLAB "verbose", "0" },
		{ FAILPAGE "task-filter", "Y" },
		{ FAILPAGE "ignore-gfp-wait", "Y" },
		{ FAILPAGE "ignore-gfp-highmem", "N" },
		{ FAILPAGE "min-order", "0" },
		{ FAILPAGE "probability", "0" },
		{ FAILPAGE "verbose", "0" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		if (qpu_test_write(knobs[i][0], knobs[i][1])) {
			printf("# cannot write %s: %s\n", knobs[i][0], strerror(errno));
			return -1;
		}
	return qpu_test_write("/proc/thread-self/make-it-fail", "1");
}

/*
 * The thread's fail-nth file, opened once: opening it while armed would
 * itself allocate (and consume the count). Reading and writing it does not.
 */
static int nth_fd = -1;

static int arm(unsigned int n)
{
	char v[16];
	int len = snprintf(v, sizeof(v), "%u", n);

	return pwrite(nth_fd, v, len, 0) == len ? 0 : -1;
}

/* Disarms; returns 1 when the armed fault was injected. */
static int disarm(void)
{
	char v[16] = "";
	ssize_t n = pread(nth_fd, v, sizeof(v) - 1, 0);

	v[n > 0 ? n : 0] = 0;
	if (pwrite(nth_fd, "0", 1, 0) != 1)
		return 0;
	return n > 0 && atoi(v) == 0;
}

/* Jobs submitted that have not ended, by the device's counters. */
static long long jobs_in_flight(void)
{
	static const char *const ended[] = { "jobs_done", "jobs_failed",
		"jobs_timeout", "jobs_canceled" };
	long long n = qpu_test_stat("jobs_submitted");
	unsigned int i;

	for (i = 0; i < sizeof(ended) / sizeof(ended[0]); i++)
		n -= qpu_test_stat(ended[i]);
	return n;
}

/* Waits up to @ms for every job to end; 0, or -1 with the count left. */
static int jobs_wait_ended(int ms, long long *left)
{
	int64_t end = qpu_test_now_ns() + (int64_t)ms * 1000000;

	while ((*left = jobs_in_flight()) != 0) {
		if (qpu_test_now_ns() > end)
			return -1;
		usleep(10000);
	}
	return 0;
}

/* Counts a job submitted; the totals are printed at the end. */
static void job_counted(void)
{
	__atomic_fetch_add(&jobs_total, 1, __ATOMIC_RELAXED);
}

struct op {
	const char *name;
	/* Prepares (unarmed), returns 0 or -errno. */
	int (*prep)(void *ctx);
	/* The operation under fault injection: 0 or -errno. */
	int (*run)(void *ctx);
	/* Undoes what run and prep did (unarmed); 0 or a failure. */
	int (*undo)(void *ctx, int ran_ok);
	const int *allowed;	/* errnos allowed besides ENOMEM, 0-ended */
	enum {
		NTH,		/* fail-nth: slab, and pages that cannot sleep */
		NTH_PAGES,	/* fail-nth, sleeping page allocations too */
		PAGE_BURST,	/* the first n page allocations all fail */
	} mode;
	/* Checks once every attempt has run (may be NULL): 0 or a failure. */
	int (*after)(void);
};

/*
 * A job of more BOs than a page of pointers holds (512 on 64-bit): the
 * loop, its uniforms and the rest plain BOs.
 */
#define MANY_BOS	520

struct ctx {
	int fd, nl, family, fence;
	uint32_t seq;
	struct qpu_test_bo code, data, loop;
	struct qpu_bo_create bo;
	void *map;
	struct qpu_submit submit;
	struct qpu_program prog;
	uint32_t handles[1];
	uint64_t done_seqno;
	char config[32];
	uint32_t many[MANY_BOS];
};

static int ctx_open(struct ctx *c)
{
	c->fd = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	if (c->fd < 0)
		return -errno;
	if (qpu_test_bo_new(c->fd, 4096, qpu_prog_end, sizeof(qpu_prog_end),
			    &c->code) ||
	    qpu_test_bo_new(c->fd, 4096, NULL, 0, &c->data))
		return -errno;
	return 0;
}

static void ctx_close(struct ctx *c)
{
	if (c->fd >= 0) {
		qpu_test_bo_free(c->fd, &c->code);
		qpu_test_bo_free(c->fd, &c->data);
		qpu_test_bo_free(c->fd, &c->loop);
		close(c->fd);
	}
	c->fd = -1;
}

/* --- open ---------------------------------------------------------------- */

static int open_run(void *p)
{
	struct ctx *c = p;

	c->fd = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	return c->fd < 0 ? -errno : 0;
}

static int open_undo(void *p, int ok)
{
	struct ctx *c = p;

	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	return 0;
}

/* --- BO_CREATE and mmap --------------------------------------------------- */

static int bo_prep(void *p)
{
	struct ctx *c = p;

	c->fd = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	c->map = NULL;
	c->bo = (struct qpu_bo_create){ .size = 3 * 4096 };
	return c->fd < 0 ? -errno : 0;
}

static int bo_run(void *p)
{
	struct ctx *c = p;

	return ioctl(c->fd, QPU_IOCTL_BO_CREATE, &c->bo) ? -errno : 0;
}

static int bo_undo(void *p, int ok)
{
	struct ctx *c = p;
	struct qpu_bo_destroy d = { .handle = c->bo.handle };
	int ret = 0;

	if (c->map && c->map != MAP_FAILED) {
		/* The memory is usable and zeroed. */
		if (((volatile char *)c->map)[4096 * 2 + 7] != 0)
			ret = -1;
		munmap(c->map, c->bo.size);
	}
	if (ok || c->bo.handle)
		ret |= ioctl(c->fd, QPU_IOCTL_BO_DESTROY, &d) && ok ? -1 : 0;
	close(c->fd);
	c->fd = -1;
	return ret;
}

static int mmap_prep(void *p)
{
	struct ctx *c = p;
	int err = bo_prep(p);

	return err ? err : bo_run(c);
}

static int mmap_run(void *p)
{
	struct ctx *c = p;

	c->map = mmap(NULL, c->bo.size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      c->fd, (off_t)c->bo.mmap_offset);
	if (c->map == MAP_FAILED)
		return -errno;
	/* The first touch faults the pages in: allocations too. */
	((volatile char *)c->map)[0] = 1;
	((volatile char *)c->map)[4096] = 1;
	return 0;
}

static int mmap_undo(void *p, int ok)
{
	return bo_undo(p, 1);
}

/* --- SUBMIT with fences, WAIT ------------------------------------------- */

static int wait_seqno(int fd, uint64_t seqno, uint32_t *status)
{
	struct qpu_wait w = { .seqno = seqno,
		.timeout_ns = qpu_test_now_ns() + 10000000000ll };

	if (ioctl(fd, QPU_IOCTL_WAIT, &w))
		return -errno;
	*status = w.status;
	return 0;
}

/* Submits one program with one BO; 0 or -errno, the seqno in @seqno. */
static int submit_one(int fd, uint32_t code, uint32_t unif, uint32_t timeout_ms,
		      uint64_t *seqno)
{
	struct qpu_program prog = { .code_handle = code, .unif_handle = unif };
	struct qpu_submit s = { .programs = (uintptr_t)&prog,
		.program_count = 1, .program_size = sizeof(prog),
		.bo_handles = (uintptr_t)&unif, .bo_count = 1,
		.timeout_ms = timeout_ms };

	if (ioctl(fd, QPU_IOCTL_SUBMIT, &s))
		return -errno;
	job_counted();
	*seqno = s.seqno;
	return 0;
}

/* A first job, with an out-fence that the job under test waits for. */
static int submit_prep(void *p)
{
	struct ctx *c = p;
	struct qpu_submit s;
	int err = ctx_open(c);

	if (err)
		return err;
	c->prog = (struct qpu_program){ .code_handle = c->code.handle,
		.unif_handle = c->data.handle };
	c->handles[0] = c->data.handle;
	s = (struct qpu_submit){ .programs = (uintptr_t)&c->prog,
		.program_count = 1, .program_size = sizeof(c->prog),
		.bo_handles = (uintptr_t)c->handles, .bo_count = 1,
		.flags = QPU_SUBMIT_OUT_FENCE, .timeout_ms = 5000 };
	if (ioctl(c->fd, QPU_IOCTL_SUBMIT, &s))
		return -errno;
	job_counted();
	c->fence = s.out_fence_fd;
	c->done_seqno = s.seqno;
	c->submit = (struct qpu_submit){ .programs = (uintptr_t)&c->prog,
		.program_count = 1, .program_size = sizeof(c->prog),
		.bo_handles = (uintptr_t)c->handles, .bo_count = 1,
		.flags = QPU_SUBMIT_IN_FENCE | QPU_SUBMIT_OUT_FENCE,
		.in_fence_fd = c->fence, .out_fence_fd = -1,
		.timeout_ms = 5000 };
	return 0;
}

static int submit_run(void *p)
{
	struct ctx *c = p;

	if (ioctl(c->fd, QPU_IOCTL_SUBMIT, &c->submit))
		return -errno;
	job_counted();
	return 0;
}

/* A job that was accepted ends DONE; either way the file still works. */
static int submit_undo(void *p, int ok)
{
	struct ctx *c = p;
	uint32_t status = 0;
	int ret = 0;

	if (ok) {
		if (wait_seqno(c->fd, c->submit.seqno, &status) ||
		    status != QPU_JOB_DONE) {
			printf("# the job accepted under fault injection ended %u\n",
			       status);
			ret = -1;
		}
		close(c->submit.out_fence_fd);
	}
	if (wait_seqno(c->fd, c->done_seqno, &status) || status != QPU_JOB_DONE)
		ret = -1;
	close(c->fence);
	ctx_close(c);
	return ret;
}

static int wait_prep(void *p)
{
	struct ctx *c = p;
	uint32_t status;
	int err = submit_prep(p);

	if (!err)
		err = wait_seqno(c->fd, c->done_seqno, &status);
	if (!err)
		err = submit_run(p);	/* one more job, maybe still running */
	return err;
}

static int wait_run(void *p)
{
	struct ctx *c = p;
	struct qpu_wait w = { .seqno = c->submit.seqno,
		.timeout_ns = qpu_test_now_ns() + 10000000000ll };

	if (ioctl(c->fd, QPU_IOCTL_WAIT, &w))
		return -errno;
	w = (struct qpu_wait){ .flags = QPU_WAIT_BO, .handle = c->data.handle };
	return ioctl(c->fd, QPU_IOCTL_WAIT, &w) ? -errno : 0;
}

static int wait_undo(void *p, int ok)
{
	return submit_undo(p, 1);
}

/* --- release of a file with BOs, mappings and queued jobs --------------- */

/*
 * A job that runs (a loop, until its 5 ms timeout or the release cancels
 * it) and three queued behind it; every BO mapped. The simulated V3D times
 * jobs by progress: 5 ms is 312,500 instructions, a fraction of a second
 * even on a debug kernel, where 300 ms took longer than the check waits.
 */
static int release_prep(void *p)
{
	struct ctx *c = p;
	uint64_t seqno;
	int err = ctx_open(c), i;

	if (!err && qpu_test_bo_new(c->fd, 4096, qpu_prog_loop,
				    sizeof(qpu_prog_loop), &c->loop))
		err = -errno;
	if (!err)
		err = submit_one(c->fd, c->loop.handle, c->data.handle, 5, &seqno);
	for (i = 0; !err && i < 3; i++)
		err = submit_one(c->fd, c->code.handle, c->data.handle, 5000, &seqno);
	return err;
}

/*
 * The mappings hold the file: the last munmap() runs the release. An
 * munmap() may fail too (ENOMEM); its mapping stays for the undo.
 */
static int release_run(void *p)
{
	struct ctx *c = p;
	struct qpu_test_bo *bos[] = { &c->code, &c->data, &c->loop };
	unsigned int i;
	int err = 0;

	close(c->fd);
	c->fd = -1;
	for (i = 0; i < sizeof(bos) / sizeof(bos[0]); i++) {
		if (!munmap(bos[i]->map, bos[i]->size))
			bos[i]->map = NULL;
		else if (!err)
			err = -errno;
	}
	return err;
}

/* The mappings left, if any: the checks after each attempt do the rest. */
static int release_undo(void *p, int ok)
{
	struct ctx *c = p;
	struct qpu_test_bo *bos[] = { &c->code, &c->data, &c->loop };
	unsigned int i;
	int ret = 0;

	for (i = 0; i < sizeof(bos) / sizeof(bos[0]); i++) {
		if (bos[i]->map && munmap(bos[i]->map, bos[i]->size))
			ret = -1;
		memset(bos[i], 0, sizeof(*bos[i]));
	}
	return ret;
}

/* --- more than 512 BOs, a failed reset ----------------------------------- */

/* Attempts whose kept BO array was vmalloc'ed, by /proc/vmallocinfo. */
static unsigned int many_vmalloced;

static int many_reset_noop(const char *v)
{
	return qpu_test_write(QPU_DEBUGFS "reset_noop", v);
}

/*
 * The loop (5 ms: it times out), its uniforms and MANY_BOS - 2 more BOs;
 * the reset after the timeout does nothing, so it fails. A first job makes
 * this file the V3D's owner while resets still work: no reset between
 * files comes before the loop, which would fail too and cancel it.
 */
static int many_prep(void *p)
{
	struct ctx *c = p;
	struct qpu_bo_create bo;
	uint32_t status = 0;
	uint64_t seqno;
	int err = ctx_open(c), i;

	if (!err && qpu_test_bo_new(c->fd, 4096, qpu_prog_loop,
				    sizeof(qpu_prog_loop), &c->loop))
		err = -errno;
	c->many[0] = c->loop.handle;
	c->many[1] = c->data.handle;
	for (i = 2; !err && i < MANY_BOS; i++) {
		bo = (struct qpu_bo_create){ .size = 4096 };
		if (ioctl(c->fd, QPU_IOCTL_BO_CREATE, &bo))
			err = -errno;
		c->many[i] = bo.handle;
	}
	if (!err)
		err = submit_one(c->fd, c->code.handle, c->data.handle, 5000, &seqno);
	if (!err)
		err = wait_seqno(c->fd, seqno, &status);
	if (!err && status != QPU_JOB_DONE)
		err = -EPROTO;
	if (!err && many_reset_noop("1"))
		err = -errno;
	c->prog = (struct qpu_program){ .code_handle = c->loop.handle,
		.unif_handle = c->data.handle };
	c->submit = (struct qpu_submit){ .programs = (uintptr_t)&c->prog,
		.program_count = 1, .program_size = sizeof(c->prog),
		.bo_handles = (uintptr_t)c->many, .bo_count = MANY_BOS,
		.timeout_ms = 5 };
	return err;
}

/* Whether a vmalloc area of the job code (qpu_job_*) exists now. */
static int job_array_vmalloced(void)
{
	char line[512];
	int found = 0;
	FILE *f = fopen("/proc/vmallocinfo", "r");

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " qpu_job_") && strstr(line, "[qpu]");
	fclose(f);
	return found;
}

/*
 * The job times out, its reset fails and its MANY_BOS BOs are kept; once
 * the knob is off, another file's job resets the V3D and they go.
 */
static int many_undo(void *p, int ok)
{
	struct ctx *c = p;
	struct ctx other = { .fd = -1 };
	struct qpu_bo_destroy d;
	uint32_t status = 0;
	uint64_t seqno;
	int ret = 0, i;

	if (ok) {
		if (wait_seqno(c->fd, c->submit.seqno, &status) ||
		    status != QPU_JOB_TIMEOUT) {
			printf("# the job of %d BOs ended %u, expected a timeout\n",
			       MANY_BOS, status);
			ret = -1;
		}
		if (qpu_test_stat("kept_bos") != MANY_BOS) {
			printf("# %lld BOs kept after the failed reset, expected %d\n",
			       qpu_test_stat("kept_bos"), MANY_BOS);
			ret = -1;
		}
		many_vmalloced += job_array_vmalloced();
	}
	if (many_reset_noop("0"))
		ret = -1;
	if (ok) {
		if (ctx_open(&other) ||
		    submit_one(other.fd, other.code.handle, other.data.handle,
			       5000, &seqno) ||
		    wait_seqno(other.fd, seqno, &status) ||
		    status != QPU_JOB_DONE) {
			printf("# another file's job did not run after the failed reset\n");
			ret = -1;
		}
		ctx_close(&other);
		if (qpu_test_stat("kept_bos") != 0) {
			printf("# %lld BOs still kept after a reset that worked\n",
			       qpu_test_stat("kept_bos"));
			ret = -1;
		}
	}
	for (i = 2; i < MANY_BOS && c->many[i]; i++) {
		d = (struct qpu_bo_destroy){ .handle = c->many[i] };
		if (ioctl(c->fd, QPU_IOCTL_BO_DESTROY, &d))
			ret = -1;
	}
	ctx_close(c);
	return ret;
}

static int many_after(void)
{
	printf("# %u jobs of %d BOs kept a vmalloc'ed BO array after their failed reset\n",
	       many_vmalloced, MANY_BOS);
	return many_vmalloced ? 0 : -1;
}

/* --- netlink ------------------------------------------------------------- */

static int nl_prep(void *p)
{
	struct ctx *c = p;
	struct nl nl = { 0 };
	FILE *f;

	c->nl = nl.fd = nl_socket();
	if (c->nl < 0)
		return -errno;
	c->family = nl_resolve(&nl);
	if (!c->family)
		c->family = nl.family;
	f = fopen(QPU_PARAMS "max_timeout_ms", "r");
	if (!f || !fgets(c->config, sizeof(c->config), f))
		snprintf(c->config, sizeof(c->config), "60000");
	if (f)
		fclose(f);
	return c->family < 0 ? c->family : 0;
}

/* An open file too, so that CLIENT_GET has one to list. */
static int nl_file_prep(void *p)
{
	struct ctx *c = p;
	int err = ctx_open(c);

	return err ? err : nl_prep(p);
}

static int nl_do(struct ctx *c, uint8_t cmd, uint16_t flags)
{
	struct req m;
	int parts, err;

	req_start(&m, (uint16_t)c->family, flags, cmd);
	if ((cmd == QPU_CMD_DEV_GET && !(flags & NLM_F_DUMP)) ||
	    cmd == QPU_CMD_DEV_RESET)
		req_put_u32(&m, QPU_A_DEV_INDEX, 0);
	if (cmd == QPU_CMD_CONFIG_SET)
		req_put_u32(&m, QPU_A_CONFIG_MAX_TIMEOUT_MS,
			    (uint32_t)strtoul(c->config, NULL, 10));
	err = nl_transact(c->nl, &m, ++c->seq, 5000, NULL, &parts);
	if (!err && cmd != QPU_CMD_CONFIG_SET && cmd != QPU_CMD_DEV_RESET &&
	    !parts)
		err = -EPROTO;	/* an ack without the data */
	return err;
}

static int devget_run(void *p) { return nl_do(p, QPU_CMD_DEV_GET, 0); }
static int statsdump_run(void *p) { return nl_do(p, QPU_CMD_STATS_GET, NLM_F_DUMP); }
static int clientdump_run(void *p) { return nl_do(p, QPU_CMD_CLIENT_GET, NLM_F_DUMP); }
static int configset_run(void *p) { return nl_do(p, QPU_CMD_CONFIG_SET, 0); }
static int reset_run(void *p) { return nl_do(p, QPU_CMD_DEV_RESET, 0); }

static int nl_undo(void *p, int ok)
{
	struct ctx *c = p;
	char now[32] = "";
	FILE *f;
	int ret = 0;

	close(c->nl);
	c->nl = -1;
	/* The configuration is what it was (the value set was the same). */
	f = fopen(QPU_PARAMS "max_timeout_ms", "r");
	if (!f || !fgets(now, sizeof(now), f) || strcmp(now, c->config))
		ret = -1;
	if (f)
		fclose(f);
	return ret;
}

/* After a reset, or a refused one, the device runs a job again. */
static int nl_file_undo(void *p, int ok)
{
	struct ctx *c = p;
	uint64_t seqno;
	uint32_t status = 0;
	int ret = nl_undo(p, ok);

	if (submit_one(c->fd, c->code.handle, c->data.handle, 5000, &seqno) ||
	    wait_seqno(c->fd, seqno, &status) || status != QPU_JOB_DONE) {
		printf("# the device did not run a job afterwards (status %u)\n",
		       status);
		ret = -1;
	}
	ctx_close(c);
	return ret;
}

static const int no_more[] = { 0 };
static const int nl_more[] = { ENOBUFS, 0 };

static const struct op ops[] = {
	{ "open", NULL, open_run, open_undo, no_more, 0, NULL },
	{ "BO_CREATE", bo_prep, bo_run, bo_undo, no_more, 0, NULL },
	{ "mmap", mmap_prep, mmap_run, mmap_undo, no_more, 0, NULL },
	{ "SUBMIT with in- and out-fences", submit_prep, submit_run, submit_undo, no_more, 0, NULL },
	{ "WAIT", wait_prep, wait_run, wait_undo, no_more, 0, NULL },
	{ "release with BOs, mappings and queued jobs", release_prep,
	  release_run, release_undo, no_more, 0, NULL },
	{ "netlink DEV_GET", nl_prep, devget_run, nl_undo, nl_more, 0, NULL },
	{ "netlink STATS_GET dump", nl_prep, statsdump_run, nl_undo, nl_more, 0, NULL },
	{ "netlink CLIENT_GET dump", nl_file_prep, clientdump_run, nl_file_undo,
	  nl_more, 0, NULL },
	{ "netlink CONFIG_SET", nl_prep, configset_run, nl_undo, nl_more, 0, NULL },
	{ "netlink DEV_RESET", nl_file_prep, reset_run, nl_file_undo, nl_more, 0, NULL },
	{ "SUBMIT of more than 512 BOs, its reset failing", many_prep,
	  submit_run, many_undo, no_more, NTH, many_after },
	{ "BO_CREATE, sleeping page allocations too", bo_prep, bo_run, bo_undo,
	  no_more, NTH_PAGES, NULL },
	{ "mmap, sleeping page allocations too", mmap_prep, mmap_run, mmap_undo,
	  no_more, NTH_PAGES, NULL },
	{ "BO_CREATE, the first N page allocations failing", bo_prep, bo_run,
	  bo_undo, no_more, PAGE_BURST, NULL },
	{ "mmap, the first N page allocations failing", mmap_prep, mmap_run,
	  mmap_undo, no_more, PAGE_BURST, NULL },
};

static int allowed(const struct op *op, int err)
{
	const int *a;

	if (err == -ENOMEM)
		return 1;
	for (a = op->allowed; *a; a++)
		if (err == -*a)
			return 1;
	return 0;
}

/* Checks that the BOs and jobs are back to @count/@bytes and none left. */
static int accounting_back(const char *what, long long count, long long bytes)
{
	long long c, b, left;
	int ok = 1;

	if (qpu_test_stats_wait_bo(10000, count, bytes, &c, &b)) {
		printf("# %s: bo_count/bo_bytes %lld/%lld, were %lld/%lld\n",
		       what, c, b, count, bytes);
		ok = 0;
	}
	if (jobs_wait_ended(10000, &left)) {
		printf("# %s: %lld jobs submitted never ended\n", what, left);
		ok = 0;
	}
	return ok;
}

/*
 * Writes an open knob: no allocation (the open did them), so it works
 * inside the window too; tried again on a transient failure. The knobs
 * cannot seek, and each write sets the whole value.
 */
static int knob_fd_write(int fd, const char *val)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (write(fd, val, strlen(val)) == (ssize_t)strlen(val))
			return 0;
		usleep(1000);
	}
	return -1;
}

/*
 * PAGE_BURST: this thread's next @n page allocations fail (fail_page_alloc
 * with its task filter, probability 100, times @n); the probability is
 * written through @prob, opened beforehand, as opening it could fail.
 */
static int burst_arm(int prob, unsigned int n)
{
	char v[16];

	snprintf(v, sizeof(v), "%u", n);
	if (qpu_test_write(FAILPAGE "times", v))
		return -1;
	return knob_fd_write(prob, "100");
}

/* Ends the burst; returns how many of the @n failures were used. */
static unsigned int burst_disarm(int prob, unsigned int n)
{
	char v[16] = "";
	int fd, len = 0;

	if (knob_fd_write(prob, "0")) {
		printf("Bail out! cannot end a fail_page_alloc burst\n");
		exit(1);
	}
	fd = open(FAILPAGE "times", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		len = (int)read(fd, v, sizeof(v) - 1);
		close(fd);
	}
	v[len > 0 ? len : 0] = 0;
	return len > 0 ? n - (unsigned int)atoi(v) : 0;
}

static void run_op(const struct op *op)
{
	long long count0 = qpu_test_stat("bo_count");
	long long bytes0 = qpu_test_stat("bo_bytes");
	unsigned int n, used, faults = 0, failures = 0, successes = 0;
	int ok = 1, err, hit, undo, prob = -1;
	char what[128];
	struct ctx c;

	if (op->mode != NTH &&
	    qpu_test_write(FAILPAGE "ignore-gfp-wait", "N")) {
		printf("not ok %d %s # cannot count sleeping page allocations\n",
		       ++test_no, op->name);
		return;
	}
	if (op->mode == PAGE_BURST) {
		prob = open(FAILPAGE "probability", O_WRONLY | O_CLOEXEC);
		if (prob < 0) {
			printf("not ok %d %s # %s: %s\n", ++test_no, op->name,
			       FAILPAGE "probability", strerror(errno));
			return;
		}
	}
	for (n = 1; n <= max_n; n++) {
		memset(&c, 0, sizeof(c));
		c.fd = c.nl = c.fence = -1;
		err = op->prep ? op->prep(&c) : 0;
		if (err) {
			printf("# %s: preparing failed: %s\n", op->name, strerror(-err));
			ok = 0;
			break;
		}
		if (op->mode == PAGE_BURST ? burst_arm(prob, n) : arm(n)) {
			printf("# %s: cannot arm: %s\n", op->name, strerror(errno));
			ok = 0;
			break;
		}
		err = op->run(&c);
		if (op->mode == PAGE_BURST) {
			used = burst_disarm(prob, n);
			hit = used == n;
		} else {
			hit = disarm();
			used = hit;
		}
		undo = op->undo(&c, !err);
		faults += used;
		if (err) {
			failures++;
			if (!allowed(op, err)) {
				printf("# %s: allocation %u failed: the call returned %s\n",
				       op->name, n, strerror(-err));
				ok = 0;
			}
		} else {
			successes++;
		}
		if (undo) {
			printf("# %s: allocation %u failed: cleaning up or checking afterwards failed\n",
			       op->name, n);
			ok = 0;
		}
		snprintf(what, sizeof(what), "%s: allocation %u failed", op->name, n);
		if (!accounting_back(what, count0, bytes0))
			ok = 0;
		if (!hit)
			break;	/* the operation makes fewer than n allocations */
	}
	if (op->mode != NTH)
		qpu_test_write(FAILPAGE "ignore-gfp-wait", "Y");
	if (op->after && op->after())
		ok = 0;
	if (prob >= 0) {
		close(prob);
		qpu_test_write(FAILPAGE "times", "-1");
	}
	faults_total += faults;
	printf("# %s: %u allocations failed in %u attempts: %u calls failed cleanly, %u succeeded anyway\n",
	       op->name, faults, failures + successes, failures, successes);
	printf("%sok %d %s%s\n", ok ? "" : "not ", ++test_no, op->name,
	       n > max_n ? " (stopped at the limit)" : "");
}

/* --- the scheduler's work, under a system-wide window ---------------------- */

#define WINDOW_JOBS	24	/* submitted before the window */
#define WINDOW_MAX_JOBS	96	/* and during it, at most */
#define WINDOW_MS	3000	/* the window's longest */
#define WINDOW_INTERVAL	"3"	/* every 3rd slab allocation fails */

enum job_kind { KIND_END, KIND_FAULT, KIND_HANG, KIND_COUNT };

static const uint32_t kind_status[KIND_COUNT] = {
	[KIND_END] = QPU_JOB_DONE,
	[KIND_FAULT] = QPU_JOB_FAULT,
	[KIND_HANG] = QPU_JOB_TIMEOUT,
};

struct window {
	struct ctx c;
	struct qpu_test_bo tmu;
	uint64_t seqno[WINDOW_MAX_JOBS];
	enum job_kind kind[WINDOW_MAX_JOBS];
	unsigned int jobs, refused, wrong_errno, events;
};

/* Submits a job of kind @k; 0, or -errno (refused: not recorded). */
static int window_submit(struct window *w, enum job_kind k)
{
	static const uint32_t timeout_ms[KIND_COUNT] = { 5000, 5000, 20 };
	uint32_t code = k == KIND_END ? w->c.code.handle :
			k == KIND_FAULT ? w->tmu.handle : w->c.loop.handle;
	int err;

	if (w->jobs == WINDOW_MAX_JOBS)
		return -ENOSPC;
	/* The uniforms BO is zeroed: the TMU read of address 0 faults. */
	err = submit_one(w->c.fd, code, w->c.data.handle, timeout_ms[k],
			 &w->seqno[w->jobs]);
	if (err)
		return err;
	w->kind[w->jobs++] = k;
	return 0;
}

/* Drains the events; counts them. */
static void window_events(struct window *w)
{
	static char buf[8192] __attribute__((aligned(8)));
	ssize_t n;

	if (w->c.nl < 0)
		return;
	while ((n = recv(w->c.nl, buf, sizeof(buf), MSG_DONTWAIT)) != 0) {
		struct nlmsghdr *h = (void *)buf;
		int len = (int)n;

		if (n < 0) {
			if (errno == ENOBUFS)	/* events lost: fine */
				continue;
			break;
		}
		for (; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len))
			w->events++;
	}
}

static int knob(const char *name, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), FAILSLAB "%s", name);
	if (!qpu_test_write(path, val))
		return 0;
	printf("# cannot write %s: %s\n", path, strerror(errno));
	return -1;
}

/*
 * Opens the window, keeps submitting while it lasts, and closes it when
 * every job has ended, failslab's count ran out or WINDOW_MS passed;
 * returns the number of faults injected, or -1.
 */
static int window_run(struct window *w)
{
	int prob = open(FAILSLAB "probability", O_WRONLY | O_CLOEXEC);
	unsigned int done = 0, k = 0;
	char times[16] = "";
	int left = -1, n, fd;
	int64_t end;

	snprintf(times, sizeof(times), "%u", window_times);
	if (prob < 0 || knob("times", times) ||
	    knob("interval", WINDOW_INTERVAL) || knob("task-filter", "N") ||
	    knob_fd_write(prob, "100")) {
		printf("# cannot open the window: %s\n", strerror(errno));
		if (prob >= 0)
			knob_fd_write(prob, "0");
		goto out_close;
	}
	end = qpu_test_now_ns() + WINDOW_MS * 1000000ll;
	while (qpu_test_now_ns() < end) {
		struct qpu_wait wt = { 0 };

		if (done < w->jobs) {
			wt.seqno = w->seqno[done];
			wt.timeout_ns = qpu_test_now_ns() + 100000000ll;
			if (!ioctl(w->c.fd, QPU_IOCTL_WAIT, &wt))
				done++;
		} else if (k >= WINDOW_MAX_JOBS - WINDOW_JOBS) {
			break;
		} else {
			usleep(20000);
		}
		if (k < WINDOW_MAX_JOBS - WINDOW_JOBS) {
			n = window_submit(w, (enum job_kind)(k % KIND_COUNT));
			if (n == -ENOMEM)
				w->refused++;
			else if (n)
				w->wrong_errno++;
			k++;
		}
		window_events(w);
	}
	/* Closed in this order: nothing fails once probability reads 0. */
	if (knob_fd_write(prob, "0")) {
		printf("Bail out! cannot close the failslab window\n");
		exit(1);
	}
	/* What is left of the count: read once the window is shut. */
	fd = open(FAILSLAB "times", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = (int)read(fd, times, sizeof(times) - 1);
		times[n > 0 ? n : 0] = 0;
		if (n > 0)
			left = atoi(times);
		close(fd);
	}
	knob("task-filter", "Y");
	knob("interval", "1");
	knob("times", "-1");
out_close:
	if (prob >= 0)
		close(prob);
	return left < 0 ? -1 : (int)window_times - left;
}

static void window_test(void)
{
	long long count0 = qpu_test_stat("bo_count");
	long long bytes0 = qpu_test_stat("bo_bytes");
	long long resets0 = qpu_test_stat("resets"), resets;
	unsigned int i, wrong = 0, seen[KIND_COUNT] = { 0 };
	static struct window w;
	struct nl nl = { .fd = -1 };
	uint32_t status;
	uint64_t seqno;
	int ok = 1, faults;

	memset(&w, 0, sizeof(w));
	w.c.fd = w.c.nl = w.c.fence = -1;
	if (ctx_open(&w.c) ||
	    qpu_test_bo_new(w.c.fd, 4096, qpu_prog_loop, sizeof(qpu_prog_loop),
			    &w.c.loop) ||
	    qpu_test_bo_new(w.c.fd, 4096, qpu_prog_tmu_read,
			    sizeof(qpu_prog_tmu_read), &w.tmu)) {
		printf("not ok %d scheduler work under failslab # setup: %s\n",
		       ++test_no, strerror(errno));
		return;
	}
	/* Subscribed, so that the work builds event messages too. */
	w.c.nl = nl.fd = nl_socket();
	if (w.c.nl >= 0 && !nl_resolve(&nl) && nl.events_group)
		setsockopt(w.c.nl, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
			   &nl.events_group, sizeof(nl.events_group));
	else
		printf("# no events group: the work builds no event messages\n");
	for (i = 0; i < WINDOW_JOBS; i++)
		if (window_submit(&w, (enum job_kind)(i % KIND_COUNT))) {
			printf("# submitting before the window: %s\n", strerror(errno));
			ok = 0;
		}

	faults = window_run(&w);
	if (faults < 0) {
		printf("# the failslab window could not be run\n");
		ok = 0;
	} else {
		faults_total += faults;
	}

	/* Every job accepted ends as its program says. */
	for (i = 0; i < w.jobs; i++) {
		if (wait_seqno(w.c.fd, w.seqno[i], &status) ||
		    status != kind_status[w.kind[i]]) {
			if (wrong++ < 5)
				printf("# job %llu (kind %d) ended %u, expected %u\n",
				       (unsigned long long)w.seqno[i], w.kind[i],
				       status, kind_status[w.kind[i]]);
			continue;
		}
		seen[w.kind[i]]++;
	}
	window_events(&w);
	if (wrong || w.wrong_errno)
		ok = 0;
	/* The device recovered: a new job runs. */
	if (submit_one(w.c.fd, w.c.code.handle, w.c.data.handle, 5000, &seqno) ||
	    wait_seqno(w.c.fd, seqno, &status) || status != QPU_JOB_DONE) {
		printf("# no job ran after the window\n");
		ok = 0;
	}
	/*
	 * Each fault and timeout sends a job event and a reset event; the
	 * ones missing are the work's allocations that failed (best effort).
	 */
	resets = qpu_test_stat("resets") - resets0;
	printf("# window: %d slab allocations failed system-wide; %u jobs (%u done, %u faulted, %u timed out, %u ended otherwise), %u submissions refused (ENOMEM), %u with another errno, %lld resets, %u of %lld events received\n",
	       faults, w.jobs, seen[KIND_END], seen[KIND_FAULT], seen[KIND_HANG],
	       wrong, w.refused, w.wrong_errno, resets, w.events,
	       seen[KIND_FAULT] + seen[KIND_HANG] + resets);
	if (w.c.nl >= 0)
		close(w.c.nl);
	w.c.nl = -1;
	qpu_test_bo_free(w.c.fd, &w.tmu);
	ctx_close(&w.c);
	if (!accounting_back("after the window", count0, bytes0))
		ok = 0;
	printf("%sok %d scheduler work under failslab (system-wide, bounded window)\n",
	       ok ? "" : "not ", ++test_no);
}

int main(int argc, char **argv)
{
	const char *only = NULL;
	unsigned int i, count = 0;
	int c;

	while ((c = getopt(argc, argv, "k:w:o:")) != -1) {
		switch (c) {
		case 'k':
			max_n = strtoul(optarg, NULL, 0);
			break;
		case 'w':
			window_times = strtoul(optarg, NULL, 0);
			break;
		case 'o':
			only = optarg;
			break;
		default:
			fprintf(stderr, "usage: qpu_failinj [-k MAX_N] [-w TIMES] [-o TEXT]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (access(FAILSLAB "probability", W_OK) ||
	    access(FAILPAGE "probability", W_OK) ||
	    access("/proc/thread-self/fail-nth", W_OK)) {
		printf("1..0 # SKIP no failslab/fail_page_alloc/fail-nth: not a fault-injection kernel\n");
		return 4;
	}
	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (nth_fd < 0) {
		printf("1..0 # SKIP /proc/thread-self/fail-nth: %s\n", strerror(errno));
		return 4;
	}
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		count += !only || strstr(ops[i].name, only);
	printf("TAP version 13\n1..%u\n", count + !only);
	if (setup()) {
		printf("Bail out! cannot configure fault injection\n");
		return 1;
	}
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!only || strstr(ops[i].name, only))
			run_op(&ops[i]);
	if (!only)
		window_test();
	printf("%llu faults injected, %llu jobs run\n", faults_total, jobs_total);
	return 0;
}
