// SPDX-License-Identifier: GPL-2.0
/*
 * qpu.ko's tracepoints (kmod/qpu_trace.h) in a tracefs instance of their
 * own: a job that ends, one that faults, one that spends its timeout and
 * one that hangs each leave their submit, start, end, fault, timeout and
 * reset records, with the fields that name the job (client id, seqno,
 * programs) and what happened to it (fault address and kind, status,
 * reset reason, duration); an administrator's reset over netlink
 * (QPU_CMD_DEV_RESET) leaves a reset record of its own. Without tracefs
 * every case is a skip.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/qpu.h>

#include "kselftest_harness.h"
#include "qpu_nl.h"
#include "qpu_programs.h"
#include "qpu_util.h"

#define DEBUGFS QPU_DEBUGFS
#define INSTANCE "instances/qpu_selftest"
#define TRACE_SIZE (1 << 20)

/*
 * The tracefs root: where it is mounted, or mounted here by the test;
 * NULL when the kernel has none.
 */
static const char *tracefs_root(void)
{
	static const char *const roots[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	char path[128];
	unsigned int i;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/instances", roots[i]);
		if (!access(path, F_OK))
			return roots[i];
	}
	if (!mount("tracefs", roots[0], "tracefs", 0, NULL))
		return roots[0];
	return NULL;
}

FIXTURE(trace) {
	int fd;
	char dir[160];
	char *buf;
	struct qpu_test_bo end, loop, tmu, unif, data;
};

/* The instance's file @name, in self->dir. */
static void instance_path(char *path, size_t size, const char *dir,
			  const char *name)
{
	snprintf(path, size, "%s/%s", dir, name);
}

FIXTURE_SETUP(trace)
{
	const char *root = tracefs_root();
	char path[256];

	self->fd = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG("open " QPU_NODE ": %s", strerror(errno));
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, qpu_prog_end, sizeof(qpu_prog_end), &self->end));
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, qpu_prog_loop, sizeof(qpu_prog_loop), &self->loop));
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, qpu_prog_tmu_read, sizeof(qpu_prog_tmu_read), &self->tmu));
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, NULL, 0, &self->unif));
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, NULL, 0, &self->data));
	ASSERT_EQ(0, qpu_test_write(DEBUGFS "hang", "0"));
	ASSERT_EQ(0, qpu_test_write(DEBUGFS "latency_us", "0"));
	self->buf = malloc(TRACE_SIZE);
	ASSERT_NE(NULL, self->buf);
	self->dir[0] = '\0';
	if (!root)
		return;		/* each case skips */

	/* An instance of our own: the global buffer stays as it was. */
	snprintf(self->dir, sizeof(self->dir), "%s/" INSTANCE, root);
	rmdir(self->dir);
	ASSERT_EQ(0, mkdir(self->dir, 0755)) TH_LOG("mkdir %s: %s", self->dir, strerror(errno));
	instance_path(path, sizeof(path), self->dir, "events/qpu/enable");
	ASSERT_EQ(0, qpu_test_write(path, "1")) TH_LOG("%s: %s (no qpu events?)", path, strerror(errno));
}

FIXTURE_TEARDOWN(trace)
{
	char path[256];

	if (self->dir[0]) {
		instance_path(path, sizeof(path), self->dir, "events/qpu/enable");
		qpu_test_write(path, "0");
		rmdir(self->dir);
	}
	qpu_test_write(DEBUGFS "hang", "0");
	free(self->buf);
	close(self->fd);
}

/* The instance's trace, whole, in self->buf; its length or -1. */
static long read_trace(struct _test_data_trace *self)
{
	char path[256];

	instance_path(path, sizeof(path), self->dir, "trace");
	return qpu_test_read_file(path, self->buf, TRACE_SIZE);
}

/*
 * The first record of @event at or after @from whose fields contain each
 * of the NULL-ended "key=value" strings; NULL when there is none. Its
 * line ends at the next newline, so fields are read up to it only.
 */
static const char *find_record(const char *from, const char *event, ...)
{
	char tag[64];
	const char *p = from;

	snprintf(tag, sizeof(tag), " %s: ", event);
	while ((p = strstr(p, tag))) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char line[512];
		const char *want;
		int match = 1;
		va_list ap;

		snprintf(line, sizeof(line), "%.*s ", (int)len, p);
		va_start(ap, event);
		while ((want = va_arg(ap, const char *))) {
			char field[96];

			snprintf(field, sizeof(field), " %s ", want);
			if (!strstr(line, field))
				match = 0;
		}
		va_end(ap);
		if (match)
			return p;
		p += len;
	}
	return NULL;
}

/* The number after " @key=" in @record's line; -1 when absent. */
static long long record_field(const char *record, const char *key)
{
	const char *eol = strchr(record, '\n');
	char tag[64];
	const char *p;

	snprintf(tag, sizeof(tag), " %s=", key);
	p = strstr(record, tag);
	if (!p || (eol && p > eol))
		return -1;
	return strtoll(p + strlen(tag), NULL, 0);
}

/*
 * The submit record of our job @seqno (this process's, by its pid in the
 * record's task column): its client id, which the later records carry.
 */
static const char *find_submit(const char *buf, __u64 seqno, const char *more)
{
	char pid[32], seq[48];
	const char *p = buf, *line;

	snprintf(pid, sizeof(pid), "-%d ", getpid());
	snprintf(seq, sizeof(seq), "seqno=%llu", (unsigned long long)seqno);
	while ((p = find_record(p, "qpu_job_submit", seq, more, NULL))) {
		line = p;
		while (line > buf && line[-1] != '\n')
			line--;
		if (memmem(line, p - line, pid, strlen(pid)))
			return p;
		p++;
	}
	return NULL;
}

/* 1. A job that ends: submit, start and end, in that order. */
TEST_F(trace, job_submit_start_end)
{
	char client[32], seq[32], code[32];
	const char *submit, *start, *end;
	struct qpu_submit s;

	if (!self->dir[0])
		SKIP(return, "no tracefs in this kernel");
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 3, 500, 0, 0, &s));
	ASSERT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, s.seqno, 5000, NULL));
	ASSERT_LT(0, read_trace(self));

	submit = find_submit(self->buf, s.seqno, "programs=3");
	ASSERT_NE(NULL, submit) TH_LOG("no submit record:\n%s", self->buf);
	EXPECT_EQ(2, record_field(submit, "bos"));	/* code and uniforms */
	EXPECT_EQ(500, record_field(submit, "timeout_ms"));
	EXPECT_EQ(0, record_field(submit, "in_fence"));
	ASSERT_LT(0, record_field(submit, "client"));

	snprintf(client, sizeof(client), "client=%lld", record_field(submit, "client"));
	snprintf(seq, sizeof(seq), "seqno=%llu", (unsigned long long)s.seqno);
	snprintf(code, sizeof(code), "code_addr=0x%08x", self->end.bus_addr);
	start = find_record(submit, "qpu_job_start", client, seq, "programs=3", code, NULL);
	ASSERT_NE(NULL, start) TH_LOG("no start record after the submit:\n%s", self->buf);
	end = find_record(start, "qpu_job_end", client, seq, "programs=3", "status=done", NULL);
	ASSERT_NE(NULL, end) TH_LOG("no end record after the start:\n%s", self->buf);
	EXPECT_LT(0, record_field(end, "duration_ns"));
	/* A clean end resets nothing, and nothing timed out or faulted. */
	EXPECT_EQ(NULL, find_record(self->buf, "qpu_job_fault", client, NULL));
	EXPECT_EQ(NULL, find_record(self->buf, "qpu_job_timeout", client, NULL));
	EXPECT_EQ(NULL, find_record(start, "qpu_reset", NULL));
}

/* 2. A TMU read outside the job: a fault record naming it, then a reset. */
TEST_F(trace, fault_names_the_address_then_resets)
{
	char client[32], seq[32], addr[32];
	const char *submit, *fault, *end;
	__u32 *unif = self->unif.map;
	struct qpu_submit s;

	if (!self->dir[0])
		SKIP(return, "no tracefs in this kernel");
	unif[0] = self->data.bus_addr;	/* a BO the job does not list */
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->tmu, &self->unif, 1, 0, 0, 0, &s));
	ASSERT_EQ(QPU_JOB_FAULT, qpu_test_wait(self->fd, s.seqno, 5000, NULL));
	ASSERT_LT(0, read_trace(self));

	submit = find_submit(self->buf, s.seqno, "programs=1");
	ASSERT_NE(NULL, submit) TH_LOG("no submit record:\n%s", self->buf);
	snprintf(client, sizeof(client), "client=%lld", record_field(submit, "client"));
	snprintf(seq, sizeof(seq), "seqno=%llu", (unsigned long long)s.seqno);
	snprintf(addr, sizeof(addr), "addr=0x%08x", self->data.bus_addr);
	fault = find_record(submit, "qpu_job_fault", client, seq, "qpu=0", addr,
			    "access=tmu", NULL);
	ASSERT_NE(NULL, fault) TH_LOG("no fault record:\n%s", self->buf);
	EXPECT_LE(self->tmu.bus_addr, record_field(fault, "pc"));
	EXPECT_GT(self->tmu.bus_addr + 4096, record_field(fault, "pc"));
	end = find_record(fault, "qpu_job_end", client, seq, "status=fault", NULL);
	ASSERT_NE(NULL, end) TH_LOG("no end record after the fault:\n%s", self->buf);
	EXPECT_NE(NULL, find_record(fault, "qpu_reset", "reason=fault", "ret=0", NULL))
		TH_LOG("no reset record after the fault:\n%s", self->buf);
}

/* 3. A loop that spends its 2 ms of instructions: timeout, end, reset. */
TEST_F_TIMEOUT(trace, timeout_then_reset, 60)
{
	char client[32], seq[32];
	const char *submit, *timeout, *end;
	struct qpu_submit s;

	if (!self->dir[0])
		SKIP(return, "no tracefs in this kernel");
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->loop, &self->unif, 1, 2, 0, 0, &s));
	ASSERT_EQ(QPU_JOB_TIMEOUT, qpu_test_wait(self->fd, s.seqno, 50000, NULL));
	ASSERT_LT(0, read_trace(self));

	submit = find_submit(self->buf, s.seqno, "timeout_ms=2");
	ASSERT_NE(NULL, submit) TH_LOG("no submit record:\n%s", self->buf);
	snprintf(client, sizeof(client), "client=%lld", record_field(submit, "client"));
	snprintf(seq, sizeof(seq), "seqno=%llu", (unsigned long long)s.seqno);
	timeout = find_record(submit, "qpu_job_timeout", client, seq, "timeout_ms=2",
			      "kind=timeout", NULL);
	ASSERT_NE(NULL, timeout) TH_LOG("no timeout record:\n%s", self->buf);
	EXPECT_LT(0, record_field(timeout, "duration_ns"));
	end = find_record(timeout, "qpu_job_end", client, seq, "status=timeout", NULL);
	ASSERT_NE(NULL, end) TH_LOG("no end record after the timeout:\n%s", self->buf);
	EXPECT_LE(record_field(timeout, "duration_ns"), record_field(end, "duration_ns"));
	EXPECT_NE(NULL, find_record(timeout, "qpu_reset", "reason=timeout", "ret=0", NULL))
		TH_LOG("no reset record after the timeout:\n%s", self->buf);
	EXPECT_EQ(NULL, find_record(self->buf, "qpu_job_fault", client, NULL));
}

/*
 * 4. A hung V3D (the hang knob: ended programs are not counted) is reset
 * when the job's wall-clock timeout passes; the job after it runs.
 */
TEST_F_TIMEOUT(trace, hang_is_reset_and_the_next_job_runs, 60)
{
	char client[32], seq[32], next[32];
	const char *submit, *timeout, *reset;
	struct qpu_submit s, t;

	if (!self->dir[0])
		SKIP(return, "no tracefs in this kernel");
	ASSERT_EQ(0, qpu_test_write(DEBUGFS "hang", "1"));
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 2, 100, 0, 0, &s));
	ASSERT_EQ(QPU_JOB_TIMEOUT, qpu_test_wait(self->fd, s.seqno, 50000, NULL));
	ASSERT_EQ(0, qpu_test_write(DEBUGFS "hang", "0"));
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 1, 0, 0, 0, &t));
	ASSERT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, t.seqno, 5000, NULL));
	ASSERT_LT(0, read_trace(self));

	submit = find_submit(self->buf, s.seqno, "programs=2");
	ASSERT_NE(NULL, submit) TH_LOG("no submit record:\n%s", self->buf);
	snprintf(client, sizeof(client), "client=%lld", record_field(submit, "client"));
	snprintf(seq, sizeof(seq), "seqno=%llu", (unsigned long long)s.seqno);
	snprintf(next, sizeof(next), "seqno=%llu", (unsigned long long)t.seqno);
	timeout = find_record(submit, "qpu_job_timeout", client, seq, "timeout_ms=100",
			      "kind=timeout", NULL);
	ASSERT_NE(NULL, timeout) TH_LOG("no timeout record:\n%s", self->buf);
	/* By the wall clock: at least the 100 ms asked for. */
	EXPECT_LE(100000000LL, record_field(timeout, "duration_ns"));
	reset = find_record(timeout, "qpu_reset", "reason=timeout", "ret=0", NULL);
	ASSERT_NE(NULL, reset) TH_LOG("no reset record after the timeout:\n%s", self->buf);
	EXPECT_NE(NULL, find_record(reset, "qpu_job_end", client, next, "status=done", NULL))
		TH_LOG("the next job did not end after the reset:\n%s", self->buf);
}

/*
 * 5. An administrator's reset (netlink DEV_RESET) of an idle V3D: one
 * reset record with the admin reason, and no job record with it.
 */
TEST_F_TIMEOUT(trace, admin_reset_over_netlink, 30)
{
	static struct reply r;
	const char *reset;
	struct nl nl;
	struct req q;

	if (!self->dir[0])
		SKIP(return, "no tracefs in this kernel");
	ASSERT_EQ(0, nl_open(&nl)) TH_LOG("generic netlink family " QPU_GENL_NAME " not found");
	req_start(&q, nl.family, 0, QPU_CMD_DEV_RESET);
	req_put_u32(&q, QPU_A_DEV_INDEX, 0);
	ASSERT_EQ(0, nl_request(&nl, &q, &r)) TH_LOG("DEV_RESET: %s", r.msg);
	close(nl.fd);
	ASSERT_LT(0, read_trace(self));

	reset = find_record(self->buf, "qpu_reset", "dev=0", "reason=admin", "ret=0", NULL);
	ASSERT_NE(NULL, reset) TH_LOG("no admin reset record:\n%s", self->buf);
	EXPECT_LE(0, record_field(reset, "duration_ns"));
	/* Only one reset was asked for, and no job ran. */
	EXPECT_EQ(NULL, find_record(reset + 1, "qpu_reset", NULL)) TH_LOG("%s", self->buf);
	EXPECT_EQ(NULL, strstr(self->buf, " qpu_job_")) TH_LOG("%s", self->buf);
}

/* 6. Events disabled in the instance record nothing there. */
TEST_F(trace, disabled_events_record_nothing)
{
	char path[256];
	struct qpu_submit s;

	if (!self->dir[0])
		SKIP(return, "no tracefs in this kernel");
	instance_path(path, sizeof(path), self->dir, "events/qpu/enable");
	ASSERT_EQ(0, qpu_test_write(path, "0"));
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->end, &self->unif, 1, 0, 0, 0, &s));
	ASSERT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, s.seqno, 5000, NULL));
	ASSERT_LE(0, read_trace(self));
	EXPECT_EQ(NULL, strstr(self->buf, " qpu_job_")) TH_LOG("%s", self->buf);
}

TEST_HARNESS_MAIN
