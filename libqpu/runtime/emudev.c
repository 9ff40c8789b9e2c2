// SPDX-License-Identifier: MIT
/*
 * The in-process backend of struct qpu_dev: a generic emulated device
 * behind the same API as /dev/qpu, for machines without qpu.ko, whose jobs
 * a generation's runner executes (emudev.h; VideoCore IV's: emudev_vc4.c).
 *
 * Buffers are page-aligned heap memory placed in a 32-bit bus space from
 * 0xc0000000, each followed by a 64 KiB gap, as in qpu.ko's simulated V3D;
 * every access of a program is checked against its job's buffers (uniform
 * reads too: a program may point its stream anywhere in them), by a binary
 * search of the job's sorted buffers; with QPU_JOB_ALL_BOS those are all
 * the device's buffers at qpu_submit(), as qpu.ko takes them. Jobs run in
 * submission order, each once its in-fence has signalled; qpu_submit()
 * never waits for a fence: a job that can start at once runs inside it,
 * the others on a worker thread (struct emudev). An out-fence is an
 * eventfd that becomes readable when its job ends; as qpu.ko's fences
 * carry a failed job's error, a job whose in-fence is the out-fence of a
 * job that did not end QPU_STATUS_DONE (on any emulated device of the
 * process) ends QPU_STATUS_CANCELED without running. Time is the job's
 * progress, as on qpu.ko's simulated V3D: a job times out when a program
 * needs more than its timeout's worth of instructions (the runner's
 * instructions per millisecond), however long the host takes;
 * QPU_JOB_TIMEOUT_NONE sets no bound.
 *
 * Options after "emu:" (comma-separated; see qpu_dev_open()): first, the
 * generation ("vc4", the default, "v3d42" or "v3d71"), then "max-bo-mib=N", which raises the largest buffer to N MiB
 * (at most 512), and the runner's own (emudev_vc4.c, emudev_v3d.c).
 */

#include <errno.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "runtime/emudev.h"
#include "runtime/runtime.h"
#include "qpu_devmodel.h"

#define EMU_BUS_START		QPU_DEVMODEL_BUS_START
#define EMU_BUS_END		(QPU_DEVMODEL_BUS_START + QPU_DEVMODEL_BUS_SIZE)
#define EMU_BUS_GUARD		QPU_DEVMODEL_BUS_GUARD
#define EMU_ALIAS_WINDOW	((uint64_t)QPU_DEVMODEL_BUS_SIZE + QPU_DEVMODEL_BUS_GUARD)
#define EMU_PAGE		4096u
#define EMU_MAX_BO_SIZE		QPU_DEVMODEL_MAX_BO_SIZE
#define EMU_JOBS_KEPT		1024
#define EMU_FENCES_KEPT		1024

/* The runners a device can have, by generation; tests replace them. */
static const struct qpu_emu_runner *emu_runners[] = {
	&qpu_emu_runner_vc4,
	&qpu_emu_runner_v3d42,
	&qpu_emu_runner_v3d71,
};
static const enum qpu_gen emu_runner_gens[] = {
	QPU_GEN_VC4, QPU_GEN_V3D42, QPU_GEN_V3D71,
};

/*
 * A buffer's memory and bus range. It outlives its qpu_bo while a job
 * that has not ended holds it, as qpu.ko's jobs hold their BOs: its bus
 * range stays taken and its memory stays the job's until then.
 */
struct emu_mem {
	uint32_t bus_addr;
	size_t size;
	void *map;
	bool mapped;		/* @map is an mmap() of an imported fd */
	unsigned int refs;	/* its qpu_bo's, and one per job holding it */
	bool freed;		/* its qpu_bo is gone: no longer the caller's */
	struct qpu_bo *bo;	/* until then, its qpu_bo: qpu_dev_close() frees it */
};

/* A job from qpu_submit() to its end: what it may touch, where it starts. */
struct qpu_emu_job {
	struct qpu_emu_job *next;	/* in the queue */
	uint64_t seqno;
	struct qpu_emu_job_view view;	/* what the runner reads */
	struct emu_mem **mems;		/* sorted by bus address, each once */
	unsigned int mem_count;
	int in_fence;			/* a dup of the caller's, or -1 */
	int out_fence;			/* a dup of the caller's, or -1 */
	uint64_t fence_id;		/* its out-fence's in fence_log, or 0 */
};

struct emu_result {
	uint64_t seqno;
	struct qpu_job_result result;
};

/*
 * A job runs at once inside qpu_submit() when nothing is queued before it
 * and its in-fence (if any) has signalled; else it is queued and the
 * worker thread, started on first need, runs the queue in order, each job
 * once its in-fence signals, as qpu.ko runs a file's jobs. @lock guards
 * everything below it: the buffer list, the queue and the results; the
 * runner's state belongs to whoever set @busy.
 */
struct emudev {
	const struct qpu_emu_runner *runner;
	void *state;			/* the runner's */
	uint64_t max_bo_size;		/* option "max-bo-mib=N", else 64 MiB */
	pthread_mutex_t lock;
	pthread_cond_t done;		/* a job ended, or @busy fell */
	pthread_cond_t queued;		/* the queue grew, or @closing */
	struct emu_mem **mems;		/* live buffers, sorted by bus address */
	size_t mem_count, mem_cap;
	uint64_t next_seqno;
	uint64_t ended_seqno;		/* jobs end in order: the last one */
	struct emu_result results[EMU_JOBS_KEPT];
	struct qpu_emu_job *queue, **queue_tail;
	bool busy;			/* a job is running on the runner */
	bool closing;
	bool worker_started;
	pthread_t worker;
	int wake;			/* eventfd: wakes the worker's fence wait */
};

/*
 * The out-fences of every emulated device of the process and how their
 * jobs ended: an eventfd carries no error, so a job waiting on one finds
 * it here, by kcmp() (the same open file, whatever its fd number). The
 * last EMU_FENCES_KEPT are kept; an older one, or a fence of another kind,
 * counts as a job that ended well.
 */
static struct {
	uint64_t id;			/* 0: free */
	int fd;				/* a dup of the out-fence */
	bool ended;
	enum qpu_status status;
} fence_log[EMU_FENCES_KEPT];
static uint64_t fence_next_id = 1;
static pthread_mutex_t fence_lock = PTHREAD_MUTEX_INITIALIZER;

/* Logs the out-fence @fd of a job that has not ended; its id, or 0. */
static uint64_t fence_log_add(int fd)
{
	uint64_t id;
	int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	size_t slot;

	if (dup_fd < 0)
		return 0;
	pthread_mutex_lock(&fence_lock);
	id = fence_next_id++;
	slot = id % EMU_FENCES_KEPT;
	if (fence_log[slot].id)
		close(fence_log[slot].fd);
	fence_log[slot].id = id;
	fence_log[slot].fd = dup_fd;
	fence_log[slot].ended = false;
	pthread_mutex_unlock(&fence_lock);
	return id;
}

static void fence_log_end(uint64_t id, enum qpu_status status)
{
	size_t slot = id % EMU_FENCES_KEPT;

	pthread_mutex_lock(&fence_lock);
	if (id && fence_log[slot].id == id) {
		fence_log[slot].ended = true;
		fence_log[slot].status = status;
	}
	pthread_mutex_unlock(&fence_lock);
}

/* Whether the signalled fence @fd is the out-fence of a job that failed. */
static bool fence_log_failed(int fd)
{
	pid_t self = getpid();
	bool failed = false;
	size_t i;

	pthread_mutex_lock(&fence_lock);
	for (i = 0; i < EMU_FENCES_KEPT; i++) {
		if (!fence_log[i].id || !fence_log[i].ended ||
		    syscall(SYS_kcmp, self, self, KCMP_FILE, fd, fence_log[i].fd))
			continue;
		failed = fence_log[i].status != QPU_STATUS_DONE;
		break;
	}
	pthread_mutex_unlock(&fence_lock);
	return failed;
}

bool qpu_emudev_fence_failed(int fd)
{
	return fence_log_failed(fd);
}

void qpu_emudev_register_runner(enum qpu_gen gen,
				const struct qpu_emu_runner *runner)
{
	size_t i;

	for (i = 0; i < sizeof(emu_runner_gens) / sizeof(emu_runner_gens[0]); i++)
		if (emu_runner_gens[i] == gen)
			emu_runners[i] = runner ? runner :
					 gen == QPU_GEN_VC4 ? &qpu_emu_runner_vc4 :
					 gen == QPU_GEN_V3D42 ? &qpu_emu_runner_v3d42 :
					 &qpu_emu_runner_v3d71;
}

static struct emudev *emudev_of(const struct qpu_dev *dev)
{
	return dev->priv;
}

static const char *emudev_describe(const struct qpu_dev *dev)
{
	return "in-process emulator";
}

/*
 * Where a runner with aliases (VideoCore IV) places buffers: in one alias's
 * window, the first buffer's, or the runner's choice now when there is
 * none (QPU_DEVMODEL_BUS_START: the L2-bypassing one). Called with
 * ed->lock held.
 */
static uint32_t emudev_window(const struct emudev *ed)
{
	return ed->mem_count ? (uint32_t)(ed->mems[0]->bus_addr & ~(EMU_ALIAS_WINDOW - 1)) :
			       ed->runner->bus_alias(ed->state);
}

static int emudev_get_param(struct qpu_dev *dev, enum qpu_dev_param param,
			    uint64_t *value)
{
	struct emudev *ed = emudev_of(dev);

	switch (param) {
	case QPU_DEV_PARAM_GEN:
		*value = ed->runner->gen;
		return 0;
	case QPU_DEV_PARAM_ABI_VERSION:
		*value = qpu_kdev_ioctl_abi_version();
		return 0;
	case QPU_DEV_PARAM_MAX_BO_SIZE:
		*value = ed->max_bo_size;
		return 0;
	case QPU_DEV_PARAM_DEFAULT_TIMEOUT_MS:
	case QPU_DEV_PARAM_MAX_TIMEOUT_MS:
		return qpu_job_timeout_param(param, value);
	case QPU_DEV_PARAM_INSTRUCTIONS_PER_MS:
		*value = ed->runner->instructions_per_ms;
		return 0;
	case QPU_DEV_PARAM_BO_L2_CACHED:
		if (!ed->runner->bus_alias)
			return -EINVAL;
		pthread_mutex_lock(&ed->lock);
		*value = emudev_window(ed) != QPU_DEVMODEL_BUS_START;
		pthread_mutex_unlock(&ed->lock);
		return 0;
	default:
		return ed->runner->get_param(ed->state, param, value);
	}
}

/* @v up to a multiple of @align, a power of two. */
static uint64_t emudev_align(uint64_t v, uint64_t align)
{
	return (v + align - 1) & ~(align - 1);
}

/*
 * First gap of the bus space that holds @size bytes and the guard, at an
 * address the runner's alignment allows.
 */
static int emudev_place(struct emudev *ed, size_t size, uint32_t *addr,
			size_t *index)
{
	uint64_t align = ed->runner->bus_align ? ed->runner->bus_align : EMU_PAGE;
	uint64_t next = ed->runner->bus_start ? ed->runner->bus_start : EMU_BUS_START;
	uint64_t top = EMU_BUS_END;
	size_t i;

	if (ed->runner->bus_alias) {
		next = emudev_window(ed);
		top = next + QPU_DEVMODEL_BUS_SIZE;
	}
	for (i = 0; i <= ed->mem_count; i++) {
		uint64_t end = i < ed->mem_count ? ed->mems[i]->bus_addr : top;

		if (end >= next && end - next >= size + EMU_BUS_GUARD) {
			*addr = next;
			*index = i;
			return 0;
		}
		if (i < ed->mem_count)
			next = emudev_align((uint64_t)ed->mems[i]->bus_addr +
					    ed->mems[i]->size + EMU_BUS_GUARD, align);
	}
	return -ENOSPC;
}

/* Called with ed->lock held. */
static int emudev_mem_add(struct emudev *ed, struct emu_mem *mem)
{
	size_t index;
	int ret;

	ret = emudev_place(ed, mem->size, &mem->bus_addr, &index);
	if (ret)
		return ret;
	if (ed->mem_count == ed->mem_cap) {
		size_t cap = ed->mem_cap ? 2 * ed->mem_cap : 16;
		struct emu_mem **mems = realloc(ed->mems, cap * sizeof(*mems));

		if (!mems)
			return -ENOMEM;
		ed->mems = mems;
		ed->mem_cap = cap;
	}
	memmove(&ed->mems[index + 1], &ed->mems[index],
		(ed->mem_count - index) * sizeof(*ed->mems));
	ed->mems[index] = mem;
	ed->mem_count++;
	return 0;
}

/* Drops a reference; the last one frees the range. Called with ed->lock held. */
static void emudev_mem_put(struct emudev *ed, struct emu_mem *mem)
{
	size_t i;

	if (--mem->refs)
		return;
	for (i = 0; i < ed->mem_count; i++) {
		if (ed->mems[i] == mem) {
			memmove(&ed->mems[i], &ed->mems[i + 1],
				(ed->mem_count - i - 1) * sizeof(*ed->mems));
			ed->mem_count--;
			break;
		}
	}
	if (mem->mapped)
		munmap(mem->map, mem->size);
	else
		free(mem->map);
	free(mem);
}

static int emudev_bo_alloc(struct qpu_dev *dev, struct qpu_bo *bo)
{
	struct emudev *ed = emudev_of(dev);
	struct emu_mem *mem;
	int ret;

	if (bo->size > ed->max_bo_size)
		return -EINVAL;
	mem = calloc(1, sizeof(*mem));
	if (!mem)
		return -ENOMEM;
	mem->size = (bo->size + EMU_PAGE - 1) & ~(size_t)(EMU_PAGE - 1);
	mem->refs = 1;
	mem->bo = bo;
	mem->map = aligned_alloc(EMU_PAGE, mem->size);
	if (!mem->map) {
		free(mem);
		return -ENOMEM;
	}
	memset(mem->map, 0, mem->size);
	pthread_mutex_lock(&ed->lock);
	ret = emudev_mem_add(ed, mem);
	pthread_mutex_unlock(&ed->lock);
	if (ret) {
		free(mem->map);
		free(mem);
		return ret;
	}
	bo->size = mem->size;
	bo->map = mem->map;
	bo->bus_addr = mem->bus_addr;
	bo->priv = mem;
	return 0;
}

/*
 * An imported fd is mapped shared, whatever it is: a dma-buf, a memfd, a
 * file. Its pages are the fd's, as a job of a real device would see them;
 * the bus range is the emulator's own. @bo->size 0 takes the fd's size.
 */
static int emudev_bo_import(struct qpu_dev *dev, struct qpu_bo *bo, int fd)
{
	struct emudev *ed = emudev_of(dev);
	off_t end = lseek(fd, 0, SEEK_END);
	struct emu_mem *mem;
	int ret;

	if (end <= 0)
		return qpu_fail(end ? -errno : -EINVAL,
				"emulator: fd %d has no size to map (%s)", fd,
				end ? strerror(errno) : "empty");
	if (bo->size > (size_t)end)
		return qpu_fail(-EINVAL, "emulator: fd %d has %lld bytes, less than the %zu asked",
				fd, (long long)end, bo->size);
	if ((size_t)end > ed->max_bo_size)
		return qpu_fail(-EINVAL, "emulator: fd %d has %lld bytes, more than the largest buffer, %llu",
				fd, (long long)end, (unsigned long long)ed->max_bo_size);
	mem = calloc(1, sizeof(*mem));
	if (!mem)
		return qpu_fail(-ENOMEM, "emulator: out of memory");
	mem->size = ((size_t)end + EMU_PAGE - 1) & ~(size_t)(EMU_PAGE - 1);
	mem->refs = 1;
	mem->bo = bo;
	mem->mapped = true;
	mem->map = mmap(NULL, mem->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mem->map == MAP_FAILED) {
		ret = -errno;
		free(mem);
		return qpu_fail(ret, "emulator: cannot map fd %d shared, read-write: %s",
				fd, strerror(-ret));
	}
	pthread_mutex_lock(&ed->lock);
	ret = emudev_mem_add(ed, mem);
	pthread_mutex_unlock(&ed->lock);
	if (ret) {
		munmap(mem->map, mem->size);
		free(mem);
		return qpu_fail(ret, "emulator: no bus space for %lld more bytes", (long long)end);
	}
	bo->size = mem->size;
	bo->map = mem->map;
	bo->bus_addr = mem->bus_addr;
	bo->priv = mem;
	return 0;
}

static void emudev_bo_free(struct qpu_dev *dev, struct qpu_bo *bo)
{
	struct emudev *ed = emudev_of(dev);

	struct emu_mem *mem = bo->priv;

	pthread_mutex_lock(&ed->lock);
	mem->freed = true;
	mem->bo = NULL;
	emudev_mem_put(ed, mem);
	pthread_mutex_unlock(&ed->lock);
}

static void emudev_mem_window(const void *buf, uint32_t *start, uint64_t *size)
{
	const struct emu_mem *mem = buf;

	*start = mem->bus_addr;
	*size = mem->size;
}

void *qpu_emudev_translate(const struct qpu_emu_job *job, uint32_t addr,
			   uint32_t len)
{
	const struct emu_mem *mem;
	int i;

	i = qpu_devmodel_find_window((const void *const *)job->mems, job->mem_count,
				     emudev_mem_window, addr, len);
	if (i < 0)
		return NULL;
	mem = job->mems[i];
	return (char *)mem->map + (addr - mem->bus_addr);
}

uint64_t qpu_emudev_thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

void *qpu_emudev_job_buffer(const struct qpu_emu_job *job, unsigned int i,
			    uint32_t *addr, uint32_t *size)
{
	if (i >= job->mem_count)
		return NULL;
	*addr = job->mems[i]->bus_addr;
	*size = job->mems[i]->size;
	return job->mems[i]->map;
}

/* Instructions each program may issue; 0: no bound (QPU_JOB_TIMEOUT_NONE). */
static uint64_t emudev_limit(const struct emudev *ed, unsigned int timeout_ms)
{
	timeout_ms = qpu_job_timeout_ms(timeout_ms);
	if (timeout_ms == QPU_JOB_TIMEOUT_NONE)
		return 0;
	return (uint64_t)timeout_ms * ed->runner->instructions_per_ms;
}

/*
 * Runs @job to its end, unless its in-fence carries a failed job's error:
 * then it ends canceled, as on qpu.ko. The caller set ed->busy.
 */
static void emudev_run(struct emudev *ed, const struct qpu_emu_job *job,
		       struct qpu_job_result *result)
{
	memset(result, 0, sizeof(*result));
	if (job->in_fence >= 0 && fence_log_failed(job->in_fence)) {
		result->status = QPU_STATUS_CANCELED;
		return;
	}
	ed->runner->run(ed->state, &job->view, result);
}

static int emudev_mem_cmp(const void *a, const void *b)
{
	const struct emu_mem *x = *(struct emu_mem *const *)a;
	const struct emu_mem *y = *(struct emu_mem *const *)b;

	return (x->bus_addr > y->bus_addr) - (x->bus_addr < y->bus_addr);
}

static void emudev_job_free(struct emudev *ed, struct qpu_emu_job *job)
{
	unsigned int i;

	for (i = 0; i < job->mem_count; i++)
		emudev_mem_put(ed, job->mems[i]);
	if (job->in_fence >= 0)
		close(job->in_fence);
	if (job->out_fence >= 0)
		close(job->out_fence);
	free(job->mems);
	free(job);
}

/*
 * Where the programs (VideoCore IV) or the shader (V3D) start, into
 * @job->view, and the buffers they are in, at @job->mems from @n; false
 * when a start lies outside its buffer, as qpu.ko checks it.
 */
static bool emudev_job_starts(struct qpu_emu_job *job,
			      const struct qpu_job_desc *desc, bool all,
			      unsigned int *n)
{
	const struct qpu_v3d_dispatch *d = desc->dispatch;
	unsigned int i;

	if (desc->kind == QPU_JOB_V3D_DISPATCH) {
		if (!qpu_devmodel_program_fits(d->code->size, d->code_offset,
					       d->uniforms->size, d->uniforms_offset, 0))
			return false;
		job->view.dispatch = *d;
		job->view.dispatch.batches = qpu_v3d_dispatch_batches(d);
		job->view.code_addr[0] = d->code->bus_addr + d->code_offset;
		job->view.unif_addr[0] = d->uniforms->bus_addr + d->uniforms_offset;
		if (!all) {
			job->mems[(*n)++] = d->code->priv;
			job->mems[(*n)++] = d->uniforms->priv;
		}
		return true;
	}
	for (i = 0; i < desc->program_count; i++) {
		const struct qpu_program_ref *p = &desc->programs[i];

		if (!qpu_devmodel_program_fits(p->code->size, p->code_offset,
					       p->uniforms->size, p->uniforms_offset,
					       p->uniforms_length))
			return false;
		job->view.code_addr[i] = p->code->bus_addr + p->code_offset;
		job->view.unif_addr[i] = p->uniforms->bus_addr + p->uniforms_offset;
		if (all)
			continue;
		job->mems[(*n)++] = p->code->priv;
		job->mems[(*n)++] = p->uniforms->priv;
	}
	job->view.program_count = desc->program_count;
	return true;
}

/*
 * The job @desc describes, holding its buffers (job.c checked that they
 * are this device's and that the job is of its generation), with windows
 * checked as qpu.ko checks them. Called with ed->lock held.
 */
static int emudev_job_new(struct emudev *ed, const struct qpu_job_desc *desc,
			  struct qpu_emu_job **out)
{
	bool all = desc->flags & QPU_JOB_ALL_BOS;
	size_t max = all ? ed->mem_count : 2 * QPU_JOB_MAX_QPUS + desc->bo_count;
	struct qpu_emu_job *job = calloc(1, sizeof(*job));
	unsigned int i, n = 0;

	if (!job)
		return -ENOMEM;
	job->in_fence = -1;
	job->out_fence = -1;
	job->mems = calloc(max ? max : 1, sizeof(*job->mems));
	if (!job->mems) {
		free(job);
		return -ENOMEM;
	}
	if (!emudev_job_starts(job, desc, all, &n)) {
		free(job->mems);
		free(job);
		return -EINVAL;
	}
	for (i = 0; i < desc->bo_count; i++)
		job->mems[n++] = desc->bos[i]->priv;
	/* Those the caller holds now; not those only a queued job still holds. */
	for (i = 0; all && i < ed->mem_count; i++)
		if (!ed->mems[i]->freed)
			job->mems[n++] = ed->mems[i];
	qsort(job->mems, n, sizeof(*job->mems), emudev_mem_cmp);
	for (i = 0; i < n; i++) {
		if (job->mem_count && job->mems[job->mem_count - 1] == job->mems[i])
			continue;
		job->mems[job->mem_count++] = job->mems[i];
		job->mems[i]->refs++;
	}
	job->view.kind = desc->kind;
	job->view.limit = emudev_limit(ed, desc->timeout_ms);
	job->view.job = job;
	*out = job;
	return 0;
}

/* Whether @fd (an eventfd or sync_file) is readable now. */
static bool emudev_fence_signalled(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN);
}

/*
 * @job ended with @result: keep the result, signal its out-fence, let its
 * buffers go. Called with ed->lock held.
 */
static void emudev_job_end(struct emudev *ed, struct qpu_emu_job *job,
			   const struct qpu_job_result *result)
{
	struct emu_result *slot = &ed->results[job->seqno % EMU_JOBS_KEPT];
	uint64_t one = 1;

	slot->seqno = job->seqno;
	slot->result = *result;
	ed->ended_seqno = job->seqno;
	/* Before the fence signals: a job waiting on it then sees how it ended. */
	fence_log_end(job->fence_id, result->status);
	if (job->out_fence >= 0 &&
	    write(job->out_fence, &one, sizeof(one)) != sizeof(one))
		abort();	/* an eventfd of ours at 0 takes a 1 */
	emudev_job_free(ed, job);
	pthread_cond_broadcast(&ed->done);
}

/* Waits until @fd signals or the device closes; false: it closes. */
static bool emudev_worker_wait_fence(struct emudev *ed, int fd)
{
	struct pollfd pfd[2] = {
		{ .fd = fd, .events = POLLIN },
		{ .fd = ed->wake, .events = POLLIN },
	};

	if (fd < 0)
		return true;
	for (;;) {
		if (poll(pfd, 2, -1) < 0)
			continue;	/* EINTR */
		if (pfd[1].revents)
			return false;
		if (pfd[0].revents)
			return true;
	}
}

/* Runs the queue in order: each job once its in-fence has signalled. */
static void *emudev_worker(void *arg)
{
	struct emudev *ed = arg;
	struct qpu_job_result result;
	struct qpu_emu_job *job;

	pthread_mutex_lock(&ed->lock);
	for (;;) {
		while (!ed->queue && !ed->closing)
			pthread_cond_wait(&ed->queued, &ed->lock);
		if (ed->closing)
			break;
		job = ed->queue;
		pthread_mutex_unlock(&ed->lock);
		if (!emudev_worker_wait_fence(ed, job->in_fence)) {
			pthread_mutex_lock(&ed->lock);
			break;
		}
		pthread_mutex_lock(&ed->lock);
		while (ed->busy)	/* a job submitted before it runs inline */
			pthread_cond_wait(&ed->done, &ed->lock);
		ed->busy = true;
		pthread_mutex_unlock(&ed->lock);
		emudev_run(ed, job, &result);
		pthread_mutex_lock(&ed->lock);
		ed->busy = false;
		ed->queue = job->next;
		if (!ed->queue)
			ed->queue_tail = &ed->queue;
		emudev_job_end(ed, job, &result);
	}
	pthread_mutex_unlock(&ed->lock);
	return NULL;
}

/* Hands @job to the worker, starting it on first need. Called with ed->lock held. */
static int emudev_enqueue(struct emudev *ed, struct qpu_emu_job *job)
{
	if (!ed->worker_started) {
		if (pthread_create(&ed->worker, NULL, emudev_worker, ed))
			return -EAGAIN;
		ed->worker_started = true;
	}
	*ed->queue_tail = job;
	ed->queue_tail = &job->next;
	pthread_cond_signal(&ed->queued);
	return 0;
}

/* The job's fences: a dup of @desc's in-fence, a new out-fence in @fence. */
static int emudev_job_fences(struct qpu_emu_job *job,
			     const struct qpu_job_desc *desc, int *fence)
{
	/* Taken now, as qpu.ko takes its sync_file: the caller may close it. */
	if (desc->in_fence_fd >= 0) {
		job->in_fence = fcntl(desc->in_fence_fd, F_DUPFD_CLOEXEC, 0);
		if (job->in_fence < 0)
			return errno == EBADF ? -EINVAL : -errno;
	}
	if (!desc->out_fence_fd)
		return 0;
	*fence = eventfd(0, EFD_CLOEXEC);
	if (*fence < 0)
		return -errno;
	job->out_fence = fcntl(*fence, F_DUPFD_CLOEXEC, 0);
	if (job->out_fence < 0) {
		int ret = -errno;

		close(*fence);
		*fence = -1;
		return ret;
	}
	job->fence_id = fence_log_add(*fence);
	return 0;
}

static int emudev_submit(struct qpu_dev *dev, const struct qpu_job_desc *desc,
			 uint64_t *seqno)
{
	struct emudev *ed = emudev_of(dev);
	struct qpu_job_result result;
	struct qpu_emu_job *job;
	int ret, fence = -1;

	pthread_mutex_lock(&ed->lock);
	ret = emudev_job_new(ed, desc, &job);
	pthread_mutex_unlock(&ed->lock);
	if (ret)
		return ret;
	ret = emudev_job_fences(job, desc, &fence);
	if (ret)
		goto out_free;

	pthread_mutex_lock(&ed->lock);
	job->seqno = ed->next_seqno;
	if (!ed->queue && !ed->busy &&
	    (job->in_fence < 0 || emudev_fence_signalled(job->in_fence))) {
		ed->busy = true;
		pthread_mutex_unlock(&ed->lock);
		emudev_run(ed, job, &result);
		pthread_mutex_lock(&ed->lock);
		ed->busy = false;
		emudev_job_end(ed, job, &result);
	} else {
		ret = emudev_enqueue(ed, job);
		if (ret) {
			pthread_mutex_unlock(&ed->lock);
			if (fence >= 0)
				close(fence);
			goto out_free;
		}
	}
	*seqno = ed->next_seqno++;
	pthread_mutex_unlock(&ed->lock);
	if (desc->out_fence_fd)
		*desc->out_fence_fd = fence;
	return 0;

out_free:
	fence_log_end(job->fence_id, QPU_STATUS_CANCELED);
	pthread_mutex_lock(&ed->lock);
	emudev_job_free(ed, job);
	pthread_mutex_unlock(&ed->lock);
	return ret;
}

/* The absolute CLOCK_MONOTONIC time @ms from now. */
static struct timespec emudev_deadline(int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	return ts;
}

static int emudev_wait(struct qpu_dev *dev, uint64_t seqno, int timeout_ms,
		       struct qpu_job_result *result)
{
	struct emudev *ed = emudev_of(dev);
	const struct emu_result *slot = &ed->results[seqno % EMU_JOBS_KEPT];
	struct timespec deadline = emudev_deadline(timeout_ms > 0 ? timeout_ms : 0);
	int ret = 0;

	pthread_mutex_lock(&ed->lock);
	if (!seqno || seqno >= ed->next_seqno) {
		ret = -ENOENT;
		goto out;
	}
	while (ed->ended_seqno < seqno && !ret) {
		if (!timeout_ms)
			ret = -ETIME;
		else if (timeout_ms < 0)
			pthread_cond_wait(&ed->done, &ed->lock);
		else if (pthread_cond_timedwait(&ed->done, &ed->lock, &deadline) == ETIMEDOUT)
			ret = ed->ended_seqno < seqno ? -ETIME : 0;
	}
	if (!ret && slot->seqno != seqno)
		ret = -ENOENT;		/* ended, and forgotten since */
	if (!ret)
		*result = slot->result;
out:
	pthread_mutex_unlock(&ed->lock);
	return ret;
}

/*
 * Stops the worker; jobs still queued end as canceled (their out-fences
 * signal, as qpu.ko's do at close). Buffers not freed yet go with the
 * device.
 */
static void emudev_close(struct qpu_dev *dev)
{
	struct emudev *ed = emudev_of(dev);
	struct qpu_job_result canceled = { .status = QPU_STATUS_CANCELED };
	uint64_t one = 1;
	size_t i;

	if (!ed)
		return;
	pthread_mutex_lock(&ed->lock);
	ed->closing = true;
	pthread_cond_signal(&ed->queued);
	pthread_mutex_unlock(&ed->lock);
	if (ed->worker_started) {
		if (write(ed->wake, &one, sizeof(one)) != sizeof(one))
			abort();
		pthread_join(ed->worker, NULL);
	}
	pthread_mutex_lock(&ed->lock);
	while (ed->queue) {
		struct qpu_emu_job *job = ed->queue;

		ed->queue = job->next;
		emudev_job_end(ed, job, &canceled);
	}
	pthread_mutex_unlock(&ed->lock);
	/* Buffers left to the device go with it (qpu_dev_close()). */
	for (i = 0; i < ed->mem_count; i++) {
		free(ed->mems[i]->bo);
		free(ed->mems[i]->map);
		free(ed->mems[i]);
	}
	if (ed->wake >= 0)
		close(ed->wake);
	pthread_cond_destroy(&ed->done);
	pthread_cond_destroy(&ed->queued);
	pthread_mutex_destroy(&ed->lock);
	if (ed->state)
		ed->runner->destroy(ed->state);
	free(ed->mems);
	free(ed);
}

/* With no job running or queued: the runner's state is the caller's. */
static int emudev_set_board(struct qpu_dev *dev, enum qpu_board board)
{
	struct emudev *ed = emudev_of(dev);
	int ret;

	if (!ed->runner->set_board)
		return -ENOTTY;
	pthread_mutex_lock(&ed->lock);
	while (ed->busy || ed->queue)
		pthread_cond_wait(&ed->done, &ed->lock);
	ret = ed->runner->set_board(ed->state, board);
	pthread_mutex_unlock(&ed->lock);
	return ret;
}

static const struct qpu_dev_ops emudev_ops = {
	.describe = emudev_describe,
	.set_board = emudev_set_board,
	.get_param = emudev_get_param,
	.bo_alloc = emudev_bo_alloc,
	.bo_free = emudev_bo_free,
	.bo_import = emudev_bo_import,
	.submit = emudev_submit,
	.wait = emudev_wait,
	.close = emudev_close,
};

/*
 * The runner "emu:OPTIONS" names with its first option (VideoCore IV's
 * when that is no generation); @options moves past it. NULL with @err set
 * (ENOTSUP) for a generation that has no runner yet.
 */
static const struct qpu_emu_runner *emudev_runner(const char **options,
						  int *err)
{
	size_t len = *options ? strcspn(*options, ",") : 0;
	size_t i;

	for (i = 0; len && i < sizeof(emu_runner_gens) / sizeof(emu_runner_gens[0]); i++) {
		const char *name = qpu_gen_name(emu_runner_gens[i]);

		if (strlen(name) != len || strncmp(*options, name, len))
			continue;
		*options += len + ((*options)[len] == ',');
		if (!emu_runners[i])
			*err = -ENOTSUP;
		return emu_runners[i];
	}
	return emu_runners[0];
}

/* The comma-separated options of "emu:OPTIONS"; -EINVAL for unknown ones. */
static int emudev_parse(struct emudev *ed, const char *options)
{
	static const char max_bo[] = "max-bo-mib=";

	while (options && *options) {
		size_t len = strcspn(options, ",");
		char *end;
		int ret;

		if (len > sizeof(max_bo) - 1 &&
		    !strncmp(options, max_bo, sizeof(max_bo) - 1)) {
			unsigned long mib = strtoul(options + sizeof(max_bo) - 1, &end, 10);

			/* Within the 1 GiB bus space, beside other buffers. */
			if (end != options + len || !mib || mib > 512)
				return -EINVAL;
			ed->max_bo_size = (uint64_t)mib << 20;
		} else {
			ret = ed->runner->option ?
			      ed->runner->option(ed->state, options, len) : -ENOENT;
			if (ret)
				return -EINVAL;
		}
		options += len;
		if (*options)
			options++;
	}
	return 0;
}

int qpu_emudev_open(struct qpu_dev *dev, const char *options)
{
	struct emudev *ed = calloc(1, sizeof(*ed));
	pthread_condattr_t attr;
	int ret = 0;

	dev->ops = &emudev_ops;
	if (!ed)
		return -ENOMEM;
	ed->wake = -1;
	ed->next_seqno = 1;
	ed->max_bo_size = EMU_MAX_BO_SIZE;
	ed->queue_tail = &ed->queue;
	pthread_mutex_init(&ed->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&ed->done, &attr);
	pthread_cond_init(&ed->queued, NULL);
	pthread_condattr_destroy(&attr);
	dev->priv = ed;
	ed->runner = emudev_runner(&options, &ret);
	if (ret)
		return ret;
	ed->state = ed->runner->create();
	if (!ed->state)
		return -ENOMEM;
	ret = emudev_parse(ed, options);
	if (!ret && ed->runner->ready)
		ret = ed->runner->ready(ed->state);
	if (ret)
		return ret;
	ed->wake = eventfd(0, EFD_CLOEXEC);
	if (ed->wake < 0)
		return -errno;
	return 0;
}
