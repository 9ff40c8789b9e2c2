// SPDX-License-Identifier: GPL-2.0
/*
 * dma-buf sharing on the simulated V3D: QPU_IOCTL_BO_EXPORT and
 * QPU_IOCTL_BO_IMPORT, their refusals, our own export coming back as the
 * same BO, vgem's buffers imported and reached by jobs (no copy: the
 * bytes vgem's mapping shows are the ones the job wrote), lifetimes that
 * outlast the fds, and every count back to where it was.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm.h>
#include <linux/qpu.h>

#include "kselftest_harness.h"
#include "qpu_programs.h"
#include "qpu_util.h"
#include "vgem_buf.h"

#define DEBUGFS QPU_DEBUGFS
#define DYNDBG_CONTROL "/sys/kernel/debug/dynamic_debug/control"
#define CONTIGUOUS_PARAM QPU_PARAMS "sim_import_contiguous"

static long page_size;

/* Open fds of this process: what leaks show up in. */
static int fd_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static int bo_export(int fd, __u32 handle, __u32 flags, int *out)
{
	struct qpu_bo_export args = { .handle = handle, .flags = flags };
	int ret = ioctl(fd, QPU_IOCTL_BO_EXPORT, &args);

	*out = ret ? -1 : args.fd;
	return ret;
}

static int bo_import(int fd, int dmabuf, struct qpu_bo_import *out)
{
	struct qpu_bo_import args = { .fd = dmabuf };
	int ret = ioctl(fd, QPU_IOCTL_BO_IMPORT, &args);

	*out = args;
	return ret;
}

static int bo_destroy(int fd, __u32 handle)
{
	struct qpu_bo_destroy args = { .handle = handle };

	return ioctl(fd, QPU_IOCTL_BO_DESTROY, &args);
}

/* Whether the pages mapped at @p are one run of page frames (root only). */
static int pages_contiguous(const void *p, size_t size)
{
	uint64_t first = 0, e;
	size_t i;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		return -1;
	for (i = 0; i < size / page_size; i++) {
		off_t off = ((uintptr_t)p / page_size + i) * sizeof(e);

		if (pread(fd, &e, sizeof(e), off) != sizeof(e) || !(e & (1ull << 63)) ||
		    !(e & ((1ull << 55) - 1))) {
			printf("# pagemap of page %zu: %#llx (%s)\n", i, (unsigned long long)e,
			       strerror(errno));
			close(fd);
			return -1;
		}
		e &= (1ull << 55) - 1;
		if (i == 0)
			first = e;
		else if (e != first + i)
			break;
	}
	close(fd);
	return i == size / page_size;
}

FIXTURE(dmabuf) {
	int fd;
	int vgem;
	int fds;
	long long bos;
	struct qpu_test_bo code, unif, b;
	int kmsg;
	int dyndbg;
};

FIXTURE_SETUP(dmabuf)
{
	const float ones[16] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };

	page_size = sysconf(_SC_PAGESIZE);
	self->vgem = -1;
	self->kmsg = -1;
	self->fds = fd_count();
	self->bos = qpu_test_objects("bos");
	self->fd = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG("open " QPU_NODE ": %s (is qpu.ko loaded with sim=1?)",
				      strerror(errno));
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, qpu_prog_vector_add,
				     sizeof(qpu_prog_vector_add), &self->code));
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, NULL, 0, &self->unif));
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, ones, sizeof(ones), &self->b));
	self->vgem = vgem_open();
	self->dyndbg = !qpu_test_write(DYNDBG_CONTROL, "module qpu +p");
	self->kmsg = qpu_test_kmsg_open();
	qpu_test_kmsg_skip(self->kmsg);
}

/* Everything a test made is gone once its fds are: fds and BOs alike. */
FIXTURE_TEARDOWN(dmabuf)
{
	qpu_test_write(CONTIGUOUS_PARAM, "N");
	qpu_test_write(DEBUGFS "latency_us", "0");
	if (self->dyndbg)
		qpu_test_write(DYNDBG_CONTROL, "module qpu -p");
	if (self->kmsg >= 0)
		close(self->kmsg);
	if (self->vgem >= 0)
		close(self->vgem);
	qpu_test_bo_free(self->fd, &self->code);
	qpu_test_bo_free(self->fd, &self->unif);
	qpu_test_bo_free(self->fd, &self->b);
	close(self->fd);
	EXPECT_EQ(0, qpu_test_stats_wait_bo(5000, 0, 0, NULL, NULL));
	EXPECT_EQ(self->bos, qpu_test_objects("bos"));
	EXPECT_EQ(self->fds, fd_count());
}

/* Runs vector_add on one QPU: @c = @a + the fixture's ones; job status. */
static int vector_add(FIXTURE_DATA(dmabuf) *self, __u32 a, __u32 c,
		      int latency_us, int close_fd)
{
	__u32 *u = self->unif.map;
	struct qpu_submit s;
	char us[16];

	u[0] = a;
	u[1] = self->b.bus_addr;
	u[2] = c;
	u[3] = 0;
	snprintf(us, sizeof(us), "%d", latency_us);
	if (qpu_test_write(DEBUGFS "latency_us", us))
		return -EIO;
	if (qpu_test_submit(self->fd, &self->code, &self->unif, 1, 5000,
			    QPU_SUBMIT_ALL_BOS, 0, &s))
		return -errno;
	if (close_fd >= 0)
		close(close_fd);
	return qpu_test_wait(self->fd, s.seqno, 20000, NULL);
}

TEST_F(dmabuf, feature_bit)
{
	struct qpu_get_param p = { .param = QPU_PARAM_FEATURES };

	ASSERT_EQ(0, ioctl(self->fd, QPU_IOCTL_GET_PARAM, &p));
	EXPECT_TRUE(p.value & QPU_FEATURE_DMABUF);
}

TEST_F(dmabuf, export_refusals)
{
	struct qpu_bo_export e = { .handle = self->b.handle, .pad = 1 };
	int out;

	EXPECT_EQ(-1, bo_export(self->fd, 0, 0, &out));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, bo_export(self->fd, 9999, 0, &out));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, bo_export(self->fd, self->b.handle, 1u << 2, &out));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(self->fd, QPU_IOCTL_BO_EXPORT, &e));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(dmabuf, import_refusals)
{
	struct {
		struct qpu_bo_import args;
		__u64 tail;
	} big = { .args = { .fd = -1 }, .tail = 1 };
	struct qpu_bo_import im;
	int dmabuf, null = open("/dev/null", O_RDWR | O_CLOEXEC);

	ASSERT_LE(0, null);
	EXPECT_EQ(-1, bo_import(self->fd, -1, &im));
	EXPECT_EQ(EBADF, errno);
	EXPECT_EQ(-1, bo_import(self->fd, 1000, &im));
	EXPECT_EQ(EBADF, errno);
	/* Not a dma-buf: a file, and a qpu node itself. */
	EXPECT_EQ(-1, bo_import(self->fd, null, &im));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, bo_import(self->fd, self->fd, &im));
	EXPECT_EQ(EINVAL, errno);
	close(null);

	ASSERT_EQ(0, bo_export(self->fd, self->b.handle, QPU_BO_EXPORT_CLOEXEC, &dmabuf));
	im = (struct qpu_bo_import){ .fd = dmabuf, .flags = 1 };
	EXPECT_EQ(-1, ioctl(self->fd, QPU_IOCTL_BO_IMPORT, &im));
	EXPECT_EQ(EINVAL, errno);
	/* A longer struct whose tail this kernel does not know. */
	big.args.fd = dmabuf;
	EXPECT_EQ(-1, ioctl(self->fd, _IOWR(QPU_IOCTL_BASE, QPU_IOCTL_NR_BO_IMPORT, big), &big));
	EXPECT_EQ(E2BIG, errno);
	big.tail = 0;
	EXPECT_EQ(0, ioctl(self->fd, _IOWR(QPU_IOCTL_BASE, QPU_IOCTL_NR_BO_IMPORT, big), &big));
	EXPECT_EQ(self->b.bus_addr, big.args.bus_addr);
	EXPECT_EQ(0, bo_destroy(self->fd, big.args.handle));
	close(dmabuf);
}

/* The dma-buf maps the BO's own pages, and outlives handle and file. */
TEST_F(dmabuf, export_maps_the_bo_and_outlives_it)
{
	struct qpu_test_bo bo;
	long long bos;
	int dmabuf, fd2 = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	unsigned char *p;

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, qpu_test_bo_new(fd2, 2 * page_size, "qpu", 4, &bo));
	ASSERT_EQ(0, bo_export(fd2, bo.handle, QPU_BO_EXPORT_CLOEXEC | QPU_BO_EXPORT_RDWR,
			       &dmabuf));
	EXPECT_EQ(FD_CLOEXEC, fcntl(dmabuf, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ((off_t)bo.size, lseek(dmabuf, 0, SEEK_END));
	p = mmap(NULL, bo.size, PROT_READ | PROT_WRITE, MAP_SHARED, dmabuf, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(0, memcmp(p, "qpu", 4));
	p[page_size] = 0x5a;
	EXPECT_EQ(0x5a, ((unsigned char *)bo.map)[page_size]);

	bos = qpu_test_objects("bos");
	qpu_test_bo_free(fd2, &bo);
	close(fd2);
	EXPECT_EQ(bos, qpu_test_objects("bos"));	/* the dma-buf holds it */
	EXPECT_EQ(0x5a, p[page_size]);
	close(dmabuf);
	EXPECT_EQ(bos, qpu_test_objects("bos"));	/* and so does the mapping */
	munmap(p, 2 * page_size);
	EXPECT_EQ(bos - 1, qpu_test_objects("bos"));
}

/* A read-only export cannot be mapped writable. */
TEST_F(dmabuf, export_read_only)
{
	int dmabuf;
	void *p;

	ASSERT_EQ(0, bo_export(self->fd, self->b.handle, 0, &dmabuf));
	EXPECT_EQ(0, fcntl(dmabuf, F_GETFD) & FD_CLOEXEC);
	p = mmap(NULL, page_size, PROT_READ | PROT_WRITE, MAP_SHARED, dmabuf, 0);
	EXPECT_EQ(MAP_FAILED, p);
	p = mmap(NULL, page_size, PROT_READ, MAP_SHARED, dmabuf, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(1.0f, *(float *)p);
	munmap(p, page_size);
	close(dmabuf);
}

/* Our own export comes back as the BO itself, as DRM PRIME does. */
TEST_F(dmabuf, own_export_is_the_same_bo)
{
	struct qpu_bo_import im, im2;
	int dmabuf, again, fd2 = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	long long bos = qpu_test_objects("bos");
	float *q;

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, bo_export(self->fd, self->b.handle, QPU_BO_EXPORT_CLOEXEC, &dmabuf));
	ASSERT_EQ(0, bo_import(self->fd, dmabuf, &im));
	EXPECT_NE(self->b.handle, im.handle);
	EXPECT_NE(self->b.mmap_offset, im.mmap_offset);
	EXPECT_EQ(self->b.bus_addr, im.bus_addr);
	EXPECT_EQ(self->b.size, im.size);
	EXPECT_EQ(bos, qpu_test_objects("bos"));
	EXPECT_EQ(0, bo_destroy(self->fd, im.handle));
	EXPECT_EQ(1.0f, ((float *)self->b.map)[0]);

	/* Another file: a handle of its own to the same memory. */
	ASSERT_EQ(0, bo_import(fd2, dmabuf, &im));
	EXPECT_EQ(self->b.bus_addr, im.bus_addr);
	EXPECT_EQ(bos, qpu_test_objects("bos"));
	ASSERT_EQ(0, bo_import(fd2, dmabuf, &im2));
	EXPECT_NE(im.handle, im2.handle);
	EXPECT_EQ(0, bo_destroy(fd2, im2.handle));
	q = mmap(NULL, page_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd2, im.mmap_offset);
	ASSERT_NE(MAP_FAILED, q);
	q[3] = 7.0f;
	EXPECT_EQ(7.0f, ((float *)self->b.map)[3]);
	q[3] = 1.0f;

	/* Exported again from that file: an export of the same BO. */
	ASSERT_EQ(0, bo_export(fd2, im.handle, QPU_BO_EXPORT_CLOEXEC, &again));
	ASSERT_EQ(0, bo_import(self->fd, again, &im2));
	EXPECT_EQ(self->b.bus_addr, im2.bus_addr);
	EXPECT_EQ(0, bo_destroy(self->fd, im2.handle));
	close(again);
	munmap(q, page_size);
	EXPECT_EQ(0, bo_destroy(fd2, im.handle));
	close(fd2);
	close(dmabuf);
	EXPECT_EQ(bos, qpu_test_objects("bos"));
}

/* A vgem buffer: jobs read and write its own pages, no copy. */
TEST_F(dmabuf, vgem_import_reached_by_jobs)
{
	struct qpu_bo_import im;
	struct vgem_buf v;
	float *a, *c, *q;
	int i;

	if (self->vgem < 0)
		SKIP(return, "no vgem node (is vgem.ko loaded?)");
	ASSERT_EQ(0, vgem_buf_new(self->vgem, 4 * page_size, &v));
	a = v.map;
	c = (float *)((char *)v.map + 3 * page_size);
	for (i = 0; i < 16; i++)
		a[i] = i;
	ASSERT_EQ(0, bo_import(self->fd, v.dmabuf, &im));
	EXPECT_EQ(v.size, im.size);
	EXPECT_NE(0, im.bus_addr);

	/* The device's mapping of the import is vgem's memory. */
	q = mmap(NULL, im.size, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, im.mmap_offset);
	ASSERT_NE(MAP_FAILED, q);
	EXPECT_EQ(5.0f, q[5]);
	q[17] = 42.0f;
	EXPECT_EQ(42.0f, a[17]);

	EXPECT_EQ(QPU_JOB_DONE, vector_add(self, im.bus_addr, im.bus_addr + 3 * page_size, 0, -1));
	for (i = 0; i < 16; i++)
		EXPECT_EQ(i + 1.0f, c[i]);
	EXPECT_EQ(c[15], q[3 * page_size / 4 + 15]);
	munmap(q, im.size);
	EXPECT_EQ(0, bo_destroy(self->fd, im.handle));
	vgem_buf_free(self->vgem, &v);
}

/* Closing the dma-buf fd and vgem's handle while a job runs changes nothing. */
TEST_F(dmabuf, vgem_closed_while_job_runs)
{
	struct qpu_bo_import im;
	struct vgem_buf v;
	float *q;
	int i, dmabuf;

	if (self->vgem < 0)
		SKIP(return, "no vgem node (is vgem.ko loaded?)");
	ASSERT_EQ(0, vgem_buf_new(self->vgem, page_size, &v));
	for (i = 0; i < 16; i++)
		((float *)v.map)[i] = 2 * i;
	ASSERT_EQ(0, bo_import(self->fd, v.dmabuf, &im));
	q = mmap(NULL, im.size, PROT_READ, MAP_SHARED, self->fd, im.mmap_offset);
	ASSERT_NE(MAP_FAILED, q);
	dmabuf = v.dmabuf;
	v.dmabuf = -1;
	munmap(v.map, v.size);
	v.map = NULL;
	vgem_buf_free(self->vgem, &v);	/* only the dma-buf fd is left */

	/* The job destroys nothing, but the fd goes while it waits to start. */
	EXPECT_EQ(QPU_JOB_DONE, vector_add(self, im.bus_addr, im.bus_addr + 64, 100000, dmabuf));
	for (i = 0; i < 16; i++)
		EXPECT_EQ(2 * i + 1.0f, q[16 + i]);
	munmap(q, im.size);
	EXPECT_EQ(0, bo_destroy(self->fd, im.handle));
}

/* Destroying the handle while a job uses the import: the job still ends well. */
TEST_F(dmabuf, destroy_while_in_use)
{
	struct qpu_bo_import im;
	struct qpu_submit s;
	struct vgem_buf v;
	__u32 *u = self->unif.map;

	if (self->vgem < 0)
		SKIP(return, "no vgem node (is vgem.ko loaded?)");
	ASSERT_EQ(0, vgem_buf_new(self->vgem, page_size, &v));
	ASSERT_EQ(0, bo_import(self->fd, v.dmabuf, &im));
	u[0] = im.bus_addr;
	u[1] = self->b.bus_addr;
	u[2] = im.bus_addr + 64;
	u[3] = 0;
	ASSERT_EQ(0, qpu_test_write(DEBUGFS "latency_us", "100000"));
	ASSERT_EQ(0, qpu_test_submit(self->fd, &self->code, &self->unif, 1, 5000,
				     QPU_SUBMIT_ALL_BOS, 0, &s));
	ASSERT_EQ(0, bo_destroy(self->fd, im.handle));
	EXPECT_EQ(QPU_JOB_DONE, qpu_test_wait(self->fd, s.seqno, 20000, NULL));
	EXPECT_EQ(1.0f, ((float *)v.map)[16]);
	vgem_buf_free(self->vgem, &v);
}

/* With sim_import_contiguous, the simulated V3D refuses as a real one. */
TEST_F(dmabuf, contiguity_as_on_hardware)
{
	const size_t size = 64 * page_size;
	struct qpu_bo_import im;
	struct vgem_buf one, many;
	char last[256] = "";
	int contiguous;

	if (self->vgem < 0)
		SKIP(return, "no vgem node (is vgem.ko loaded?)");
	ASSERT_EQ(0, vgem_buf_new(self->vgem, page_size, &one));
	ASSERT_EQ(0, vgem_buf_new(self->vgem, size, &many));
	memset(many.map, 1, size);	/* every page present for pagemap */
	contiguous = pages_contiguous(many.map, size);
	if (contiguous < 0)
		TH_LOG("no page frames in /proc/self/pagemap: either answer is taken");

	/* By default the simulated V3D reaches any pages. */
	ASSERT_EQ(0, bo_import(self->fd, many.dmabuf, &im));
	EXPECT_EQ(0, bo_destroy(self->fd, im.handle));

	ASSERT_EQ(0, qpu_test_write(CONTIGUOUS_PARAM, "Y"));
	ASSERT_EQ(0, bo_import(self->fd, one.dmabuf, &im));
	EXPECT_EQ(0, bo_destroy(self->fd, im.handle));
	if (!bo_import(self->fd, many.dmabuf, &im)) {
		EXPECT_NE(0, contiguous);
		EXPECT_EQ(0, bo_destroy(self->fd, im.handle));
	} else {
		EXPECT_EQ(EINVAL, errno);
		EXPECT_NE(1, contiguous);
		if (self->dyndbg)
			EXPECT_LE(1, qpu_test_kmsg_grep(self->kmsg, "is not contiguous",
							last, sizeof(last)));
	}
	vgem_buf_free(self->vgem, &one);
	vgem_buf_free(self->vgem, &many);
}

/* Many imports and exports, all closed: nothing is left behind. */
TEST_F(dmabuf, no_leaks)
{
	struct qpu_bo_import im;
	struct vgem_buf v;
	int i, dmabuf;

	for (i = 0; i < 32; i++) {
		ASSERT_EQ(0, bo_export(self->fd, self->b.handle, QPU_BO_EXPORT_CLOEXEC, &dmabuf));
		ASSERT_EQ(0, bo_import(self->fd, dmabuf, &im));
		close(dmabuf);
	}
	if (self->vgem < 0)
		return;
	ASSERT_EQ(0, vgem_buf_new(self->vgem, page_size, &v));
	for (i = 0; i < 32; i++) {
		ASSERT_EQ(0, bo_import(self->fd, v.dmabuf, &im));
		if (i % 2)
			EXPECT_EQ(0, bo_destroy(self->fd, im.handle));
	}
	vgem_buf_free(self->vgem, &v);
	/* The 16 handles left go with the file, in the teardown. */
}

TEST_HARNESS_MAIN
