// SPDX-License-Identifier: GPL-2.0
/*
 * qpu: fault injection over the driver's allocation paths. Owns failing,
 * one at a time, the 1st, 2nd, ... Nth allocation that an operation makes
 * in this thread, until the operation runs to its end without reaching
 * the Nth: /proc/thread-self/fail-nth counts the fault-injection points
 * this thread passes, i.e. every slab allocation (failslab, with
 * ignore-gfp-wait off so GFP_KERNEL ones count) and every page allocation
 * that cannot sleep (fail_page_alloc); the task filter is on with
 * /proc/thread-self/make-it-fail set and the probabilities are 0, so
 * nothing fails outside this thread or at random.
 * For each operation (open, BO_CREATE, mmap, SUBMIT with in- and
 * out-fences, WAIT, netlink DEV_GET, STATS_GET dump and CONFIG_SET) every
 * attempt must succeed or fail with an allowed errno (ENOMEM, or ENOBUFS
 * for netlink), leave the device's bo_count/bo_bytes as they were, and the
 * next clean attempt must work. Needs a kernel with CONFIG_FAULT_INJECTION,
 * FAILSLAB, FAIL_PAGE_ALLOC and FAULT_INJECTION_DEBUG_FS (the debug
 * kernel); skips (exit 4) without them. kmemleak is scanned by the caller.
 *
 * The kernel's log: a failed vmalloc prints a warn_alloc report with a
 * stack dump ("vmalloc error: ...", "Call Trace:"), which the VM runner
 * would take for a failure. At the end this program reads every kernel
 * record logged while it ran (/dev/kmsg): if each "Call Trace:" belongs to
 * such an allocation-failure report and nothing matches the runner's other
 * patterns (BUG:, WARNING:, KASAN, lockdep, kmemleak, Oops...), it copies
 * the records to its output as "# kmsg: " lines and clears the kernel's
 * log buffer (as dmesg -c does); otherwise it fails and leaves the log
 * for the runner to judge.
 *
 * Usage: qpu_failinj [-k MAX_N]     Prints TAP and "N faults injected".
 */

#include <regex.h>
#include <sys/klog.h>

#include "stress.h"
#include "../kmod/qpu_programs.h"

#define FAILSLAB	"/sys/kernel/debug/failslab/"
#define FAILPAGE	"/sys/kernel/debug/fail_page_alloc/"

static unsigned int max_n = 200;
static unsigned long long faults_total;
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
		if (file_write(knobs[i][0], knobs[i][1])) {
			printf("# cannot write %s: %s\n", knobs[i][0], strerror(errno));
			return -1;
		}
	return file_write("/proc/thread-self/make-it-fail", "1");
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

/* Waits up to 10 s for the BO counters to read @count/@bytes again. */
static int stats_wait_zero_delta(long long count, long long bytes)
{
	int64_t end = now_ns() + 10000000000ll;

	while (stats_get("bo_count") != count || stats_get("bo_bytes") != bytes) {
		if (now_ns() > end)
			return -1;
		usleep(10000);
	}
	return 0;
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
};

struct ctx {
	int fd, nl, family, fence;
	uint32_t seq;
	struct sbo code, data;
	struct qpu_bo_create bo;
	void *map;
	struct qpu_submit submit;
	struct qpu_program prog;
	uint32_t handles[1];
	uint64_t done_seqno;
	char config[32];
};

static int ctx_open(struct ctx *c)
{
	int err;

	c->fd = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	if (c->fd < 0)
		return -errno;
	err = sbo_new(c->fd, 4096, &c->code);
	if (!err)
		err = sbo_new(c->fd, 4096, &c->data);
	if (err)
		return err;
	memcpy(c->code.map, qpu_prog_end, sizeof(qpu_prog_end));
	return 0;
}

static void ctx_close(struct ctx *c)
{
	if (c->fd >= 0) {
		sbo_free(c->fd, &c->code);
		sbo_free(c->fd, &c->data);
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
		.timeout_ns = now_ns() + 10000000000ll };

	if (ioctl(fd, QPU_IOCTL_WAIT, &w))
		return -errno;
	*status = w.status;
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

	return ioctl(c->fd, QPU_IOCTL_SUBMIT, &c->submit) ? -errno : 0;
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
		.timeout_ns = now_ns() + 10000000000ll };

	if (ioctl(c->fd, QPU_IOCTL_WAIT, &w))
		return -errno;
	w = (struct qpu_wait){ .flags = QPU_WAIT_BO, .handle = c->data.handle };
	return ioctl(c->fd, QPU_IOCTL_WAIT, &w) ? -errno : 0;
}

static int wait_undo(void *p, int ok)
{
	return submit_undo(p, 1);
}

/* --- netlink ------------------------------------------------------------- */

static int nl_prep(void *p)
{
	struct ctx *c = p;
	FILE *f;

	c->nl = nl_socket();
	if (c->nl < 0)
		return -errno;
	c->family = nl_family(c->nl);
	f = fopen("/sys/module/qpu/parameters/max_timeout_ms", "r");
	if (!f || !fgets(c->config, sizeof(c->config), f))
		snprintf(c->config, sizeof(c->config), "60000");
	if (f)
		fclose(f);
	return c->family < 0 ? c->family : 0;
}

static int nl_do(struct ctx *c, uint8_t cmd, uint16_t flags)
{
	struct nlmsg m;
	uint32_t v = 0;
	int parts, err;

	nl_start(&m, (uint16_t)c->family, flags, cmd, QPU_GENL_VERSION);
	if (cmd == QPU_CMD_DEV_GET && !(flags & NLM_F_DUMP))
		nl_put(&m, QPU_A_DEV_INDEX, &v, 4);
	if (cmd == QPU_CMD_CONFIG_SET) {
		v = (uint32_t)strtoul(c->config, NULL, 10);
		nl_put(&m, QPU_A_CONFIG_MAX_TIMEOUT_MS, &v, 4);
	}
	err = nl_transact(c->nl, &m, ++c->seq, 5000, &parts);
	if (!err && cmd != QPU_CMD_CONFIG_SET && !parts)
		err = -EPROTO;	/* an ack without the data */
	return err;
}

static int devget_run(void *p) { return nl_do(p, QPU_CMD_DEV_GET, 0); }
static int statsdump_run(void *p) { return nl_do(p, QPU_CMD_STATS_GET, NLM_F_DUMP); }
static int configset_run(void *p) { return nl_do(p, QPU_CMD_CONFIG_SET, 0); }

static int nl_undo(void *p, int ok)
{
	struct ctx *c = p;
	char now[32] = "";
	FILE *f;
	int ret = 0;

	close(c->nl);
	/* The configuration is what it was (the value set was the same). */
	f = fopen("/sys/module/qpu/parameters/max_timeout_ms", "r");
	if (!f || !fgets(now, sizeof(now), f) || strcmp(now, c->config))
		ret = -1;
	if (f)
		fclose(f);
	return ret;
}

static const int no_more[] = { 0 };
static const int nl_more[] = { ENOBUFS, 0 };

static const struct op ops[] = {
	{ "open", NULL, open_run, open_undo, no_more },
	{ "BO_CREATE", bo_prep, bo_run, bo_undo, no_more },
	{ "mmap", mmap_prep, mmap_run, mmap_undo, no_more },
	{ "SUBMIT with in- and out-fences", submit_prep, submit_run, submit_undo, no_more },
	{ "WAIT", wait_prep, wait_run, wait_undo, no_more },
	{ "netlink DEV_GET", nl_prep, devget_run, nl_undo, nl_more },
	{ "netlink STATS_GET dump", nl_prep, statsdump_run, nl_undo, nl_more },
	{ "netlink CONFIG_SET", nl_prep, configset_run, nl_undo, nl_more },
};

static int kmsg_fd = -1;

static void kmsg_start(void)
{
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg_fd >= 0)
		lseek(kmsg_fd, 0, SEEK_END);
}

/* Judges the records logged since kmsg_start(); returns 0 when clean. */
static int kmsg_judge(void)
{
	static const char bad_pat[] = "BUG:|WARNING:|Oops|KASAN|UBSAN|"
		"possible recursive locking|INFO: task .* blocked|kmemleak|"
		"general protection fault|Kernel panic|circular locking|"
		"suspicious RCU|ODEBUG";
	/* warn_alloc's headers, and kmemleak's own metadata failing */
	static const char alloc_pat[] = "(vmalloc error|page allocation failure|"
		"vmap allocation for size|kmemleak: Cannot allocate a scan area)";
	unsigned int traces = 0, reports = 0, bad = 0, records = 0;
	regex_t bad_re, alloc_re;
	char rec[2048];
	ssize_t n;

	if (kmsg_fd < 0) {
		printf("# cannot read /dev/kmsg: the kernel log is left to the runner\n");
		return 0;
	}
	if (regcomp(&bad_re, bad_pat, REG_EXTENDED | REG_NOSUB) ||
	    regcomp(&alloc_re, alloc_pat, REG_EXTENDED | REG_NOSUB))
		return -1;
	for (;;) {
		char *msg, *nl;

		n = read(kmsg_fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records: go on */
		if (n <= 0)
			break;
		rec[n] = 0;
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		nl = strchr(msg, '\n');
		if (nl)
			*nl = 0;
		records++;
		printf("# kmsg: %s\n", msg);
		if (!regexec(&alloc_re, msg, 0, NULL, 0))
			reports += !strstr(msg, "kmemleak");
		else if (strstr(msg, "Call Trace:"))
			traces++;
		else if (!regexec(&bad_re, msg, 0, NULL, 0))
			bad++;
	}
	regfree(&bad_re);
	regfree(&alloc_re);
	close(kmsg_fd);
	printf("# kernel log: %u records, %u allocation-failure reports, %u stack dumps, %u other reports\n",
	       records, reports, traces, bad);
	if (bad || traces > reports) {
		printf("# kernel log: a report that is not an allocation failure: left for the runner\n");
		return -1;
	}
	if (reports)
		klogctl(5 /* SYSLOG_ACTION_CLEAR */, NULL, 0);
	return 0;
}

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

static void run_op(const struct op *op)
{
	long long count0 = stats_get("bo_count"), bytes0 = stats_get("bo_bytes");
	unsigned int n, faults = 0, failures = 0, successes = 0;
	int ok = 1, err, hit, undo;
	struct ctx c;

	for (n = 1; n <= max_n; n++) {
		memset(&c, 0, sizeof(c));
		c.fd = c.nl = c.fence = -1;
		err = op->prep ? op->prep(&c) : 0;
		if (err) {
			printf("# %s: preparing failed: %s\n", op->name, strerror(-err));
			ok = 0;
			break;
		}
		if (arm(n)) {
			printf("# %s: cannot arm fail-nth: %s\n", op->name, strerror(errno));
			ok = 0;
			break;
		}
		err = op->run(&c);
		hit = disarm();
		undo = op->undo(&c, !err);
		if (hit)
			faults++;
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
		if (stats_wait_zero_delta(count0, bytes0)) {
			printf("# %s: allocation %u failed: bo_count/bo_bytes %lld/%lld, were %lld/%lld\n",
			       op->name, n, stats_get("bo_count"),
			       stats_get("bo_bytes"), count0, bytes0);
			ok = 0;
		}
		if (!hit)
			break;	/* the operation makes fewer than n allocations */
	}
	faults_total += faults;
	printf("# %s: %u allocations failed in turn: %u calls failed cleanly, %u succeeded anyway\n",
	       op->name, faults, failures, successes);
	printf("%sok %d %s%s\n", ok ? "" : "not ", ++test_no, op->name,
	       n > max_n ? " (stopped at the limit)" : "");
}

int main(int argc, char **argv)
{
	unsigned int i;
	int c;

	while ((c = getopt(argc, argv, "k:")) != -1) {
		if (c != 'k') {
			fprintf(stderr, "usage: qpu_failinj [-k MAX_N]\n");
			return 2;
		}
		max_n = strtoul(optarg, NULL, 0);
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
	printf("TAP version 13\n1..%zu\n", sizeof(ops) / sizeof(ops[0]) + 1);
	if (setup()) {
		printf("Bail out! cannot configure fault injection\n");
		return 1;
	}
	kmsg_start();
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		run_op(&ops[i]);
	printf("%sok %d kernel log: only expected allocation-failure reports\n",
	       kmsg_judge() ? "not " : "", ++test_no);
	printf("%llu faults injected\n", faults_total);
	return 0;
}
