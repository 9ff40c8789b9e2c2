// SPDX-License-Identifier: GPL-2.0
/*
 * Unbinding the simulated V3D from its driver (sysfs) while files hold
 * jobs: the device's removal cancels every queued job, while other files
 * close at the same moment (their release frees what the removal walks),
 * and the files left open see their jobs' fences canceled and every later
 * call fail with ENODEV. While files hold mapped BOs: the removal frees
 * their memory at once, touching a mapping raises SIGBUS, and closing
 * frees the rest; with the sim_dma parameter the BOs come from the DMA
 * API, as a real V3D's do, which must not be used after the unbind. A
 * SUBMIT waiting for a user page that never arrives holds no unbind up.
 * A reset whose runtime resume fails leaves no power reference for the
 * next reset or the unbind to drop. Each case binds the device back, so
 * the other selftests find /dev/qpu.
 */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/qpu.h>
#include <linux/userfaultfd.h>

#include "kselftest_harness.h"
#include "qpu_nl.h"
#include "qpu_programs.h"
#include "qpu_util.h"

#define SIM_DRIVER	"/sys/bus/platform/drivers/qpu-sim/"
#define SIM_DEVICE	"qpu-sim.0"
#define FILES		8
#define JOBS		4

static int bind_back(void)
{
	struct stat st;
	int i;

	if (stat(QPU_NODE, &st) == 0)
		return 0;
	if (qpu_test_write(SIM_DRIVER "bind", SIM_DEVICE))
		return -1;
	for (i = 0; i < 100 && stat(QPU_NODE, &st); i++)
		usleep(10000);
	return stat(QPU_NODE, &st);
}

/* Unbinds the device when bound, then binds it back (a fresh probe). */
static int rebind(void)
{
	struct stat st;

	if (stat(QPU_NODE, &st) == 0 &&
	    qpu_test_write(SIM_DRIVER "unbind", SIM_DEVICE))
		return -1;
	return bind_back();
}

struct closer {
	pthread_barrier_t *go;
	int fd;
};

static void *close_at_go(void *arg)
{
	struct closer *c = arg;

	pthread_barrier_wait(c->go);
	close(c->fd);
	return NULL;
}

FIXTURE(unbind) {
	int unused;
};

FIXTURE_SETUP(unbind)
{
	ASSERT_EQ(0, bind_back());
}

FIXTURE_TEARDOWN(unbind)
{
	bind_back();
	qpu_test_write(QPU_DEBUGFS "resume_fail", "0");
}

/*
 * Half the files close as the device goes, with jobs queued behind one
 * hung by the knob; the other half find every job canceled and the device
 * gone. Rounds give the race between the removal and the releases chances.
 */
TEST_F_TIMEOUT(unbind, removal_cancels_queued_jobs_beside_closing_files, 60)
{
	struct qpu_test_bo code[FILES], unif[FILES];
	struct closer closers[FILES / 2];
	pthread_t threads[FILES / 2];
	pthread_barrier_t go;
	struct qpu_submit s;
	int fence[FILES][JOBS];
	int fd[FILES], round, i, j;

	for (round = 0; round < 5; round++) {
		ASSERT_EQ(0, bind_back());
		ASSERT_EQ(0, qpu_test_write(QPU_DEBUGFS "hang", "1"));
		for (i = 0; i < FILES; i++) {
			fd[i] = open(QPU_NODE, O_RDWR | O_CLOEXEC);
			ASSERT_LE(0, fd[i]);
			ASSERT_EQ(0, qpu_test_bo_new(fd[i], 4096, qpu_prog_end,
						     sizeof(qpu_prog_end), &code[i]));
			ASSERT_EQ(0, qpu_test_bo_new(fd[i], 4096, NULL, 0, &unif[i]));
			for (j = 0; j < JOBS; j++) {
				ASSERT_EQ(0, qpu_test_submit(fd[i], &code[i], &unif[i], 1,
							     10000, QPU_SUBMIT_OUT_FENCE,
							     0, &s));
				fence[i][j] = s.out_fence_fd;
			}
		}
		ASSERT_EQ(0, pthread_barrier_init(&go, NULL, FILES / 2 + 1));
		for (i = 0; i < FILES / 2; i++) {
			/*
			 * A mapping would keep the old device, and /dev/qpu's
			 * number with it, past the round.
			 */
			munmap(code[i].map, code[i].size);
			munmap(unif[i].map, unif[i].size);
			for (j = 0; j < JOBS; j++)
				close(fence[i][j]);
			closers[i] = (struct closer){ .go = &go, .fd = fd[i] };
			ASSERT_EQ(0, pthread_create(&threads[i], NULL, close_at_go,
						    &closers[i]));
		}
		pthread_barrier_wait(&go);
		ASSERT_EQ(0, qpu_test_write(SIM_DRIVER "unbind", SIM_DEVICE));
		for (i = 0; i < FILES / 2; i++)
			pthread_join(threads[i], NULL);
		pthread_barrier_destroy(&go);

		for (i = FILES / 2; i < FILES; i++) {
			/* The unbind returned once every job had ended. */
			for (j = 0; j < JOBS; j++) {
				EXPECT_EQ(-ECANCELED, qpu_test_fence_status(fence[i][j]));
				close(fence[i][j]);
			}
			/* The device is gone: no new work, no waiting either. */
			EXPECT_EQ(-1, qpu_test_submit(fd[i], &code[i], &unif[i], 1, 0, 0, 0, &s));
			EXPECT_EQ(ENODEV, errno);
			EXPECT_EQ(-ENODEV, qpu_test_wait(fd[i], 1, 1000, NULL));
			qpu_test_bo_free(fd[i], &code[i]);
			qpu_test_bo_free(fd[i], &unif[i]);
			close(fd[i]);
		}
	}
}

/* --- mapped BOs across the unbind ----------------------------------------- */

static sigjmp_buf touch_env;

static void touch_sigbus(int sig)
{
	siglongjmp(touch_env, 1);
}

/* Reads or writes *@p: 0 when that worked, SIGBUS when it raised that. */
static int touch(volatile __u32 *p, bool write)
{
	struct sigaction sa = { .sa_handler = touch_sigbus }, old;
	int got = 0;

	sigaction(SIGBUS, &sa, &old);
	if (sigsetjmp(touch_env, 1))
		got = SIGBUS;
	else if (write)
		*p = 0x5a5a5a5a;
	else
		(void)*p;
	sigaction(SIGBUS, &old, NULL);
	return got;
}

/*
 * Whether the VMA at @addr has the VmFlags word @flag in /proc/self/smaps
 * ("pf": page frames, the DMA API's memory; "mm": mixed, vmalloc's pages).
 */
static bool vma_has_flag(const void *addr, const char *flag)
{
	char line[512], want[32];
	unsigned long start, end;
	bool in = false, found = false;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return false;
	snprintf(want, sizeof(want), " %s", flag);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "VmFlags:", 8)) {
			if (in)
				found = strstr(line + 7, want) != NULL;
		} else if (sscanf(line, "%lx-%lx ", &start, &end) == 2) {
			in = (unsigned long)addr >= start && (unsigned long)addr < end;
		}
	}
	fclose(f);
	return found;
}

FIXTURE(unplug) {
	long long devices, bos, bo_memory;
};

/* BO memory from vmalloc (the default) or from the DMA API (sim_dma). */
FIXTURE_VARIANT(unplug) {
	const char *sim_dma;
	const char *vma_flag;
};

FIXTURE_VARIANT_ADD(unplug, vmalloc) {
	.sim_dma = "0",
	.vma_flag = "mm",
};

FIXTURE_VARIANT_ADD(unplug, dma_api) {
	.sim_dma = "1",
	.vma_flag = "pf",
};

/* The parameter applies at probe: a fresh one. */
FIXTURE_SETUP(unplug)
{
	ASSERT_EQ(0, qpu_test_write(QPU_PARAMS "sim_dma", variant->sim_dma));
	ASSERT_EQ(0, rebind());
	self->devices = qpu_test_objects("devices");
	self->bos = qpu_test_objects("bos");
	self->bo_memory = qpu_test_objects("bo_memory");
	ASSERT_LE(1, self->devices);
	ASSERT_LE(0, self->bos);
	ASSERT_LE(0, self->bo_memory);
}

FIXTURE_TEARDOWN(unplug)
{
	qpu_test_write(QPU_PARAMS "sim_dma", "0");
	rebind();
}

/*
 * A file holds three BOs: one mapped with its handle, one mapped whose
 * handle is gone (only the mapping holds it), one with only its handle.
 * The unbind frees all their memory although the file and mappings stay;
 * the mappings then raise SIGBUS, every call fails with ENODEV, closing
 * frees the rest, and the device bound again works.
 */
TEST_F_TIMEOUT(unplug, mapped_bos_freed_at_unbind, 60)
{
	struct qpu_test_bo code, unif, kept;
	struct qpu_bo_create create = { .size = 4096 };
	struct qpu_bo_destroy destroy;
	struct qpu_submit s;
	__u64 bytes;
	void *map;
	int fd;

	fd = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, qpu_test_bo_new(fd, 16384, qpu_prog_end, sizeof(qpu_prog_end),
				     &code));
	ASSERT_EQ(0, qpu_test_bo_new(fd, 8192, NULL, 0, &unif));
	ASSERT_EQ(0, qpu_test_bo_new(fd, 4096, NULL, 0, &kept));
	bytes = code.size + unif.size + kept.size;
	munmap(kept.map, kept.size);
	kept.map = NULL;
	destroy = (struct qpu_bo_destroy){ .handle = unif.handle };
	ASSERT_EQ(0, ioctl(fd, QPU_IOCTL_BO_DESTROY, &destroy));
	unif.handle = 0;
	EXPECT_TRUE(vma_has_flag(code.map, variant->vma_flag));

	/* The device works with this memory. */
	((__u32 *)unif.map)[1] = 7;
	EXPECT_EQ(7, ((volatile __u32 *)unif.map)[1]);
	ASSERT_EQ(0, qpu_test_submit(fd, &code, &kept, 1, 0, 0, 0, &s));
	EXPECT_EQ(QPU_JOB_DONE, qpu_test_wait(fd, s.seqno, 10000, NULL));
	EXPECT_EQ(self->bos + 3, qpu_test_objects("bos"));
	EXPECT_EQ(self->bo_memory + bytes, qpu_test_objects("bo_memory"));

	ASSERT_EQ(0, qpu_test_write(SIM_DRIVER "unbind", SIM_DEVICE));

	/* The memory went with the device; the structures wait for the file. */
	EXPECT_EQ(self->bo_memory, qpu_test_objects("bo_memory"));
	EXPECT_EQ(self->bos + 3, qpu_test_objects("bos"));
	EXPECT_EQ(self->devices, qpu_test_objects("devices"));

	EXPECT_EQ(SIGBUS, touch(code.map, false));
	EXPECT_EQ(SIGBUS, touch((__u32 *)code.map + 1024, true));
	EXPECT_EQ(SIGBUS, touch(unif.map, true));
	EXPECT_EQ(SIGBUS, touch((__u32 *)unif.map + 1, false));

	EXPECT_EQ(NO_VALUE, get_param(fd, QPU_PARAM_NUM_QPUS));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(-1, ioctl(fd, QPU_IOCTL_BO_CREATE, &create));
	EXPECT_EQ(ENODEV, errno);
	destroy = (struct qpu_bo_destroy){ .handle = kept.handle };
	EXPECT_EQ(-1, ioctl(fd, QPU_IOCTL_BO_DESTROY, &destroy));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(-1, qpu_test_submit(fd, &code, &kept, 1, 0, 0, 0, &s));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(-ENODEV, qpu_test_wait(fd, 1, 1000, NULL));
	map = mmap(NULL, kept.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   kept.mmap_offset);
	EXPECT_EQ(MAP_FAILED, map);
	EXPECT_EQ(ENODEV, errno);
	if (map != MAP_FAILED)
		munmap(map, kept.size);

	/* A child inherits the mappings, and their SIGBUS. */
	if (fork() == 0)
		_exit(touch(unif.map, false) == SIGBUS ? 0 : 1);
	{
		int status = -1;

		wait(&status);
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}

	munmap(code.map, code.size);
	munmap(unif.map, unif.size);
	EXPECT_EQ(0, close(fd));
	EXPECT_EQ(self->bos, qpu_test_objects("bos"));
	EXPECT_EQ(self->bo_memory, qpu_test_objects("bo_memory"));
	EXPECT_EQ(self->devices - 1, qpu_test_objects("devices"));

	/* Bound again, the device is whole. */
	ASSERT_EQ(0, bind_back());
	EXPECT_EQ(self->devices, qpu_test_objects("devices"));
	fd = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, qpu_test_bo_new(fd, 16384, qpu_prog_end, sizeof(qpu_prog_end),
				     &code));
	ASSERT_EQ(0, qpu_test_bo_new(fd, 4096, NULL, 0, &unif));
	EXPECT_EQ(0, touch((__u32 *)code.map + 1024, true));
	ASSERT_EQ(0, qpu_test_submit(fd, &code, &unif, 1, 0, 0, 0, &s));
	EXPECT_EQ(QPU_JOB_DONE, qpu_test_wait(fd, s.seqno, 10000, NULL));
	qpu_test_bo_free(fd, &code);
	qpu_test_bo_free(fd, &unif);
	close(fd);
	EXPECT_EQ(self->bo_memory, qpu_test_objects("bo_memory"));
}

struct held_submit {
	int fd;
	struct qpu_submit args;
	int ret, err;
};

static void *held_submit_run(void *arg)
{
	struct held_submit *h = arg;

	h->ret = ioctl(h->fd, QPU_IOCTL_SUBMIT, &h->args);
	h->err = errno;
	return NULL;
}

static void *unbind_run(void *arg)
{
	int ret = qpu_test_write(SIM_DRIVER "unbind", SIM_DEVICE);

	__atomic_store_n((int *)arg, ret ? -1 : 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/*
 * SUBMIT's programs in a page that never arrives (userfaultfd holds it, as
 * a FUSE mapping that never answers would): the device unbinds while the
 * SUBMIT waits for it, and once the page arrives the SUBMIT finds the
 * device gone.
 */
TEST_F_TIMEOUT(unbind, user_page_never_arriving_holds_no_removal, 60)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	struct uffdio_zeropage zero = { .mode = 0 };
	struct held_submit h = { .ret = 0 };
	pthread_t submitter, unbinder;
	struct pollfd pfd;
	int uffd, unbound = 0, i;
	void *page;

	uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0 && errno == ENOSYS)
		SKIP(return, "the kernel has no userfaultfd (CONFIG_USERFAULTFD)");
	ASSERT_LE(0, uffd) TH_LOG("userfaultfd: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_API, &api));
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, page);
	reg.range.start = (uintptr_t)page;
	reg.range.len = 4096;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_REGISTER, &reg));

	h.fd = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, h.fd);
	h.args = (struct qpu_submit){
		.programs = (uintptr_t)page, .program_count = 1,
		.program_size = sizeof(struct qpu_program),
	};
	ASSERT_EQ(0, pthread_create(&submitter, NULL, held_submit_run, &h));
	pfd = (struct pollfd){ .fd = uffd, .events = POLLIN };
	ASSERT_EQ(1, poll(&pfd, 1, 10000)) TH_LOG("the SUBMIT never read the page");

	ASSERT_EQ(0, pthread_create(&unbinder, NULL, unbind_run, &unbound));
	for (i = 0; i < 1000 && !__atomic_load_n(&unbound, __ATOMIC_SEQ_CST); i++)
		usleep(10000);
	EXPECT_EQ(1, __atomic_load_n(&unbound, __ATOMIC_SEQ_CST))
		TH_LOG("the unbind waited for the page");

	zero.range = reg.range;
	EXPECT_EQ(0, ioctl(uffd, UFFDIO_ZEROPAGE, &zero));
	pthread_join(submitter, NULL);
	pthread_join(unbinder, NULL);
	EXPECT_EQ(-1, h.ret);
	EXPECT_EQ(ENODEV, h.err);
	close(h.fd);
	close(uffd);
	munmap(page, 4096);
}

/* --- runtime PM across resets and the unbind ------------------------------ */

#define SIM_POWER	"/sys/bus/platform/devices/" SIM_DEVICE "/power/"
#define USAGE_UNSEEN	(-1000)

/*
 * The device's runtime-PM usage count, or USAGE_UNSEEN on a kernel that
 * does not show it (CONFIG_PM_ADVANCED_DEBUG off).
 */
static long power_usage(void)
{
	char buf[32];

	if (qpu_test_read_file(SIM_POWER "runtime_usage", buf, sizeof(buf)) <= 0)
		return USAGE_UNSEEN;
	return strtol(buf, NULL, 10);
}

/* The device's runtime-PM status ("active", "suspended"), or "". */
static const char *power_status(char *buf, size_t size)
{
	if (qpu_test_read_file(SIM_POWER "runtime_status", buf, size) <= 0)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* An administrator's reset of device 0 (netlink DEV_RESET); 0 or -errno. */
static int admin_reset(void)
{
	static struct req q;
	static struct reply r;
	struct nl nl;
	int ret = nl_open(&nl);

	if (ret)
		return ret;
	req_start(&q, nl.family, 0, QPU_CMD_DEV_RESET);
	req_put_u32(&q, QPU_A_DEV_INDEX, 0);
	ret = nl_request(&nl, &q, &r);
	close(nl.fd);
	return ret;
}

#define EXPECT_USAGE(n) do {						\
	long usage_ = power_usage();					\
	if (usage_ != USAGE_UNSEEN)					\
		EXPECT_EQ((n), usage_);					\
} while (0)

/*
 * The simulated V3D is powered through runtime PM by the functions the
 * real one uses (qpu_v3d_power_*()): one reference from the probe on,
 * dropped and taken again by each reset. When a reset's resume fails (the
 * resume_fail knob) no reference is left, and neither the next reset nor
 * the unbind drops one: the kernel would log "Runtime PM usage count
 * underflow!" (and one before 5.18 count below zero), and on hardware
 * another holder's reference would be the one dropped.
 */
TEST_F_TIMEOUT(unbind, failed_resume_drops_no_reference, 60)
{
	int kmsg_down = qpu_test_kmsg_open(), kmsg_under = qpu_test_kmsg_open();
	long long failures;
	struct qpu_test_bo code, unif;
	struct qpu_submit s;
	char status[32], last[256];
	int fd;

	ASSERT_LE(0, kmsg_down);
	ASSERT_LE(0, kmsg_under);
	/* A fresh probe: the driver's reference is the only one. */
	ASSERT_EQ(0, rebind());
	qpu_test_kmsg_skip(kmsg_down);
	qpu_test_kmsg_skip(kmsg_under);
	if (power_usage() == USAGE_UNSEEN)
		TH_LOG("no power/runtime_usage (CONFIG_PM_ADVANCED_DEBUG off): the status and the log are checked");
	EXPECT_USAGE(1);
	EXPECT_STREQ("active", power_status(status, sizeof(status)));
	failures = qpu_test_stat("reset_failures");

	/* A reset whose resume fails: the V3D is off, no reference held. */
	ASSERT_EQ(0, qpu_test_write(QPU_DEBUGFS "resume_fail", "1"));
	ASSERT_EQ(0, admin_reset());
	EXPECT_EQ(failures + 1, qpu_test_stat("reset_failures"));
	EXPECT_USAGE(0);
	EXPECT_STREQ("suspended", power_status(status, sizeof(status)));

	/* The next one works without dropping a reference first. */
	ASSERT_EQ(0, qpu_test_write(QPU_DEBUGFS "resume_fail", "0"));
	ASSERT_EQ(0, admin_reset());
	EXPECT_EQ(failures + 1, qpu_test_stat("reset_failures"));
	EXPECT_USAGE(1);
	EXPECT_STREQ("active", power_status(status, sizeof(status)));
	fd = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, qpu_test_bo_new(fd, 4096, qpu_prog_end, sizeof(qpu_prog_end), &code));
	ASSERT_EQ(0, qpu_test_bo_new(fd, 4096, NULL, 0, &unif));
	ASSERT_EQ(0, qpu_test_submit(fd, &code, &unif, 1, 0, 0, 0, &s));
	EXPECT_EQ(QPU_JOB_DONE, qpu_test_wait(fd, s.seqno, 5000, NULL));
	qpu_test_bo_free(fd, &code);
	qpu_test_bo_free(fd, &unif);
	close(fd);

	/* A failed resume again, then the removal: nothing to drop. */
	ASSERT_EQ(0, qpu_test_write(QPU_DEBUGFS "resume_fail", "1"));
	ASSERT_EQ(0, admin_reset());
	EXPECT_EQ(failures + 2, qpu_test_stat("reset_failures"));
	EXPECT_USAGE(0);
	ASSERT_EQ(0, qpu_test_write(SIM_DRIVER "unbind", SIM_DEVICE));
	EXPECT_USAGE(0);
	/* A new probe, with the knob off: powered again. */
	ASSERT_EQ(0, bind_back());
	EXPECT_USAGE(1);
	EXPECT_STREQ("active", power_status(status, sizeof(status)));

	EXPECT_EQ(0, qpu_test_kmsg_grep(kmsg_under, "usage count underflow", last, sizeof(last)))
		TH_LOG("%s", last);
	EXPECT_EQ(0, qpu_test_kmsg_grep(kmsg_down, "could not power the V3D down", last, sizeof(last)))
		TH_LOG("%s", last);
	close(kmsg_down);
	close(kmsg_under);
}

TEST_HARNESS_MAIN
