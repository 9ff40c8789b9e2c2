/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the kselftests of qpu.ko (linked into each of them by
 * kmod.mk) and the programs of selftests/stress (stress.mk links them too):
 * buffers, jobs, waits, clocks, and the debugfs and sysfs files the tests
 * read and write. Each returns what the ioctl returned (0 or -1 with errno)
 * unless it says otherwise.
 */
#ifndef QPU_UTIL_H
#define QPU_UTIL_H

#include <stddef.h>

#include <linux/qpu.h>

#define QPU_NODE		"/dev/qpu"
#define QPU_DEBUGFS		"/sys/kernel/debug/qpu/qpu/"
#define QPU_DEBUGFS_ROOT	"/sys/kernel/debug/qpu/"
#define QPU_PARAMS		"/sys/module/qpu/parameters/"

/* A buffer object and its mapping. */
struct qpu_test_bo {
	__u32 handle;
	__u32 bus_addr;
	void *map;
	size_t size;
	__u64 mmap_offset;
};

/*
 * Creates and maps a BO of @size bytes, then copies @len bytes of @data
 * (none when NULL). When the mapping fails the BO is destroyed again.
 */
int qpu_test_bo_new(int fd, size_t size, const void *data, size_t len,
		    struct qpu_test_bo *bo);

/* Unmaps and destroys a BO of qpu_test_bo_new(), then clears @bo. */
void qpu_test_bo_free(int fd, struct qpu_test_bo *bo);

/*
 * Submits @count copies of one program (no other BOs); fills @out (if not
 * NULL) with the kernel's answer.
 */
int qpu_test_submit(int fd, const struct qpu_test_bo *code,
		    const struct qpu_test_bo *unif, unsigned int count,
		    __u32 timeout_ms, __u32 flags, int in_fence_fd,
		    struct qpu_submit *out);

/* Waits up to @ms for job @seqno: its status, or -errno; fills @out. */
int qpu_test_wait(int fd, __u64 seqno, int ms, struct qpu_wait *out);

/* CLOCK_MONOTONIC in ns, as WAIT's deadlines are. */
__s64 qpu_test_now_ns(void);

/* A "name: value" line of debugfs qpu/qpu/stats; -1 when absent. */
long long qpu_test_stat(const char *name);

/*
 * A "name: value" line of debugfs qpu/objects (what the module holds over
 * all devices, removed ones included); -1 when absent.
 */
long long qpu_test_objects(const char *name);

/* The status a sync_file reports: 1 signalled, 0 pending, <0 error. */
int qpu_test_fence_status(int fence_fd);

/*
 * Waits up to @ms for the stats bo_count and bo_bytes to read @count and
 * @bytes (jobs still running hold their BOs); 0 or -1. The last values read
 * go to @count_now and @bytes_now when not NULL.
 */
int qpu_test_stats_wait_bo(int ms, long long count, long long bytes,
			   long long *count_now, long long *bytes_now);

/*
 * Waits up to @ms for every job the device was given to have ended
 * (jobs_submitted = done + failed + timeout + canceled): a test that counts
 * device-wide BOs or jobs starts after an earlier test's last job, which may
 * outlive its file (a running job keeps its BOs). 0, or -1 at @ms.
 */
int qpu_test_wait_device_idle(int ms);

/*
 * The mean round trip of @n eventfd ping-pongs between two threads, in
 * us: what a wake-up costs on this machine now; -1 on an error.
 */
double qpu_test_eventfd_round_trip_us(long n);

/* The number a file (sysfs, cgroup) holds; -1 when it cannot be read. */
long long qpu_test_read_ll(const char *path);
/* The number in /sys/module/qpu/parameters/@name; -1 when unreadable. */
long long qpu_test_param(const char *name);

/* Writes @value to the file @path (a knob or a parameter); 0 or -1. */
int qpu_test_write(const char *path, const char *value);

/*
 * Reads the file @path whole, up to @size - 1 bytes, into @buf and ends it
 * with a NUL; the bytes read, or -1.
 */
long qpu_test_read_file(const char *path, char *buf, size_t size);

/* /dev/kmsg, opened to read without blocking; the fd or -1. */
int qpu_test_kmsg_open(void);

/* Skips the records already in the log: only what follows is read. */
void qpu_test_kmsg_skip(int kmsg);

/*
 * The log records that appeared since, from the qpu module (dev_dbg's
 * "qpu-sim" device prefix, pr_*'s "qpu: "): how many, and the last in
 * @last (@size bytes).
 */
int qpu_test_kmsg_lines(int kmsg, char *last, size_t size);

/* The same, counting only the records that contain @text. */
int qpu_test_kmsg_grep(int kmsg, const char *text, char *last, size_t size);

#endif /* QPU_UTIL_H */
