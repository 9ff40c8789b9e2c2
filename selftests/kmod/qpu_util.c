// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the kselftests of qpu.ko; see qpu_util.h.
 */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <linux/sync_file.h>
#include <unistd.h>

#include "qpu_util.h"

int qpu_test_bo_new(int fd, size_t size, const void *data, size_t len,
		    struct qpu_test_bo *bo)
{
	struct qpu_bo_create args = { .size = size };

	if (ioctl(fd, QPU_IOCTL_BO_CREATE, &args))
		return -1;
	bo->handle = args.handle;
	bo->bus_addr = args.bus_addr;
	bo->size = args.size;
	bo->mmap_offset = args.mmap_offset;
	bo->map = mmap(NULL, args.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		       args.mmap_offset);
	if (bo->map == MAP_FAILED) {
		struct qpu_bo_destroy d = { .handle = args.handle };
		int err = errno;

		ioctl(fd, QPU_IOCTL_BO_DESTROY, &d);
		memset(bo, 0, sizeof(*bo));
		errno = err;
		return -1;
	}
	if (data)
		memcpy(bo->map, data, len);
	return 0;
}

void qpu_test_bo_free(int fd, struct qpu_test_bo *bo)
{
	struct qpu_bo_destroy d = { .handle = bo->handle };

	if (bo->map)
		munmap(bo->map, bo->size);
	if (bo->handle)
		ioctl(fd, QPU_IOCTL_BO_DESTROY, &d);
	memset(bo, 0, sizeof(*bo));
}

int qpu_test_submit(int fd, const struct qpu_test_bo *code,
		    const struct qpu_test_bo *unif, unsigned int count,
		    __u32 timeout_ms, __u32 flags, int in_fence_fd,
		    struct qpu_submit *out)
{
	struct qpu_program progs[16];
	struct qpu_submit args = {
		.programs = (uintptr_t)progs,
		.program_count = count,
		.program_size = sizeof(progs[0]),
		.flags = flags,
		.in_fence_fd = in_fence_fd,
		.timeout_ms = timeout_ms,
	};
	unsigned int i;
	int ret;

	for (i = 0; i < 16; i++)
		progs[i] = (struct qpu_program){ .code_handle = code->handle,
						 .unif_handle = unif->handle };
	ret = ioctl(fd, QPU_IOCTL_SUBMIT, &args);
	if (out)
		*out = args;
	return ret;
}

__s64 qpu_test_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

int qpu_test_wait(int fd, __u64 seqno, int ms, struct qpu_wait *out)
{
	struct qpu_wait args = {
		.seqno = seqno,
		.timeout_ns = qpu_test_now_ns() + ms * 1000000ll,
	};

	if (ioctl(fd, QPU_IOCTL_WAIT, &args))
		return -errno;
	if (out)
		*out = args;
	return args.status;
}

/* The value of a "name: value" line of @path; -1 when absent. */
static long long qpu_test_stat_file(const char *path, const char *name)
{
	char key[64];
	long long value, found = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fscanf(f, "%63[^:]: %lld\n", key, &value) == 2)
		if (!strcmp(key, name))
			found = value;
	fclose(f);
	return found;
}

long long qpu_test_stat(const char *name)
{
	return qpu_test_stat_file(QPU_DEBUGFS "stats", name);
}

long long qpu_test_objects(const char *name)
{
	return qpu_test_stat_file(QPU_DEBUGFS_ROOT "objects", name);
}

int qpu_test_fence_status(int fence_fd)
{
	struct sync_file_info info = { 0 };

	if (ioctl(fence_fd, SYNC_IOC_FILE_INFO, &info))
		return -1000;
	return info.status;
}

int qpu_test_stats_wait_bo(int ms, long long count, long long bytes,
			   long long *count_now, long long *bytes_now)
{
	__s64 end = qpu_test_now_ns() + ms * 1000000ll;
	long long c, b;

	for (;;) {
		c = qpu_test_stat("bo_count");
		b = qpu_test_stat("bo_bytes");
		if ((c == count && b == bytes) || qpu_test_now_ns() > end)
			break;
		usleep(10000);
	}
	if (count_now)
		*count_now = c;
	if (bytes_now)
		*bytes_now = b;
	return c == count && b == bytes ? 0 : -1;
}

int qpu_test_wait_device_idle(int ms)
{
	static const char *const ended[] = { "jobs_done", "jobs_failed", "jobs_timeout",
					     "jobs_canceled" };
	__s64 end = qpu_test_now_ns() + ms * 1000000ll;
	long long submitted, sum;
	unsigned int i;

	for (;;) {
		submitted = qpu_test_stat("jobs_submitted");
		for (sum = 0, i = 0; i < sizeof(ended) / sizeof(ended[0]); i++)
			sum += qpu_test_stat(ended[i]);
		if (submitted < 0 || sum >= submitted)
			return 0;
		if (qpu_test_now_ns() > end)
			return -1;
		usleep(10000);
	}
}

long long qpu_test_read_ll(const char *path)
{
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

long long qpu_test_param(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), QPU_PARAMS "%s", name);
	return qpu_test_read_ll(path);
}

int qpu_test_write(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -1;
	ret = write(fd, value, strlen(value)) == (ssize_t)strlen(value) ? 0 : -1;
	close(fd);
	return ret;
}

long qpu_test_read_file(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n = 0;
	int fd;

	if (!size)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while (len < size - 1 && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	return n < 0 ? -1 : (long)len;
}

struct qpu_test_pingpong {
	int ping, pong;
	long n;
};

static void *qpu_test_ponger(void *arg)
{
	struct qpu_test_pingpong *p = arg;
	uint64_t v;
	long n;

	for (n = p->n; n; n--)
		if (read(p->ping, &v, sizeof(v)) != sizeof(v) ||
		    write(p->pong, &v, sizeof(v)) != sizeof(v))
			break;
	return NULL;
}

double qpu_test_eventfd_round_trip_us(long n)
{
	struct qpu_test_pingpong p = { .ping = eventfd(0, 0), .pong = eventfd(0, 0), .n = n };
	double us = -1;
	uint64_t v = 1;
	pthread_t t;
	__s64 start;
	long i;

	if (p.ping < 0 || p.pong < 0 || pthread_create(&t, NULL, qpu_test_ponger, &p))
		goto out;
	start = qpu_test_now_ns();
	for (i = 0; i < n; i++)
		if (write(p.ping, &v, sizeof(v)) != sizeof(v) ||
		    read(p.pong, &v, sizeof(v)) != sizeof(v))
			break;
	if (i == n)
		us = (qpu_test_now_ns() - start) / 1e3 / n;
	else
		pthread_cancel(t);	/* blocked in read(), a cancellation point */
	pthread_join(t, NULL);
out:
	close(p.ping);
	close(p.pong);
	return us;
}

int qpu_test_kmsg_open(void)
{
	return open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
}

void qpu_test_kmsg_skip(int kmsg)
{
	lseek(kmsg, 0, SEEK_END);
}

int qpu_test_kmsg_lines(int kmsg, char *last, size_t size)
{
	return qpu_test_kmsg_grep(kmsg, "", last, size);
}

int qpu_test_kmsg_grep(int kmsg, const char *text, char *last, size_t size)
{
	char rec[2048];
	int count = 0;
	size_t len;
	ssize_t n;

	last[0] = '\0';
	while ((n = read(kmsg, rec, sizeof(rec) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		const char *msg;

		if (n < 0)
			continue;	/* overwritten records: read on */
		rec[n] = '\0';
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		if (strncmp(msg, "qpu-sim ", 8) && strncmp(msg, "qpu: ", 5))
			continue;
		if (!strstr(msg, text))
			continue;
		count++;
		len = strnlen(msg, size - 1);
		memcpy(last, msg, len);
		last[len] = '\0';
	}
	return count;
}
