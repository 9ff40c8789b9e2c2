// SPDX-License-Identifier: MIT
/*
 * The in-process backend of struct qpu_dev: the emulator of libqpu/core
 * behind the same API as /dev/qpu, for machines without qpu.ko.
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
 * eventfd that becomes readable when its job ends. Time is the job's progress, as on qpu.ko's simulated
 * V3D: a job times out when a program needs more than its timeout's worth
 * of instructions (QPU_EMU_INSTRUCTIONS_PER_MS per millisecond), however
 * long the host takes; QPU_JOB_TIMEOUT_NONE sets no bound. A job whose live
 * programs all wait forever ends at once as QPU_STATUS_DEADLOCK, with each
 * QPU's state.
 *
 * Each job runs on a freshly initialised emulator, so the emulator's
 * statistics afterwards are the job's own: its instruction count and the
 * counters of struct qpu_job_counters.
 *
 * Options after "emu:" (comma-separated; see qpu_dev_open()): "strict-vpm"
 * turns on the emulator's strict VPM check (qpu_emu_set_strict_vpm());
 * "max-bo-mib=N" raises the largest buffer to N MiB (at most 512);
 * "board=NAME" (or $QPU_EMU_BOARD, when no option names one) runs the
 * timing model of libqpu/core/timing beside the emulator, through its
 * trace and event hooks, and gives each job its modelled time on that
 * board (QPU_JOB_RESULT_TIMING); qpu_dev_set_board() changes it later.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "runtime/runtime.h"
#include "qpu_devmodel.h"
#include "qpu_emu.h"
#include "qpu_timing.h"

#define EMU_BUS_START		QPU_DEVMODEL_BUS_START
#define EMU_BUS_END		(QPU_DEVMODEL_BUS_START + QPU_DEVMODEL_BUS_SIZE)
#define EMU_BUS_GUARD		QPU_DEVMODEL_BUS_GUARD
#define EMU_PAGE		4096u
#define EMU_MAX_BO_SIZE		QPU_DEVMODEL_MAX_BO_SIZE
#define EMU_DEFAULT_TIMEOUT_MS	QPU_DEVMODEL_DEFAULT_TIMEOUT_MS
#define EMU_MAX_TIMEOUT_MS	QPU_DEVMODEL_MAX_TIMEOUT_MS
#define EMU_JOBS_KEPT		1024
#define EMU_SLICE		(1u << 20)

/*
 * A buffer's memory and bus range. It outlives its qpu_bo while a job
 * that has not ended holds it, as qpu.ko's jobs hold their BOs: its bus
 * range stays taken and its memory stays the job's until then.
 */
struct emu_mem {
	uint32_t bus_addr;
	size_t size;
	void *map;
	unsigned int refs;	/* its qpu_bo's, and one per job holding it */
	bool freed;		/* its qpu_bo is gone: no longer the caller's */
};

/* A job from qpu_submit() to its end: what it may touch, where it starts. */
struct emu_job {
	struct emu_job *next;		/* in the queue */
	uint64_t seqno;
	unsigned int timeout_ms;
	unsigned int program_count;
	uint32_t code_addr[QPU_JOB_MAX_QPUS];
	uint32_t unif_addr[QPU_JOB_MAX_QPUS];
	struct emu_mem **mems;		/* sorted by bus address, each once */
	unsigned int mem_count;
	int in_fence;			/* a dup of the caller's, or -1 */
	int out_fence;			/* a dup of the caller's, or -1 */
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
 * emulator belongs to whoever set @busy.
 */
struct emudev {
	struct qpu_emu *emu;
	bool strict_vpm;		/* option "strict-vpm" */
	enum qpu_board board;		/* option "board=", $QPU_EMU_BOARD */
	struct qpu_timing *timing;	/* the model, while @board is set */
	uint64_t max_bo_size;		/* option "max-bo-mib=N", else 64 MiB */
	pthread_mutex_t lock;
	pthread_cond_t done;		/* a job ended, or @busy fell */
	pthread_cond_t queued;		/* the queue grew, or @closing */
	struct emu_mem **mems;		/* live buffers, sorted by bus address */
	size_t mem_count, mem_cap;
	uint64_t next_seqno;
	uint64_t ended_seqno;		/* jobs end in order: the last one */
	struct emu_result results[EMU_JOBS_KEPT];
	struct emu_job *queue, **queue_tail;
	bool busy;			/* a job is running on @emu */
	bool closing;
	bool worker_started;
	pthread_t worker;
	int wake;			/* eventfd: wakes the worker's fence wait */
};

static struct emudev *emudev_of(const struct qpu_dev *dev)
{
	return dev->priv;
}

static const char *emudev_describe(const struct qpu_dev *dev)
{
	return "in-process emulator";
}

static int emudev_get_param(struct qpu_dev *dev, enum qpu_dev_param param,
			    uint64_t *value)
{
	switch (param) {
	case QPU_DEV_PARAM_ABI_VERSION:
		*value = qpu_kdev_ioctl_abi_version();
		return 0;
	case QPU_DEV_PARAM_NUM_QPUS:
		*value = QPU_EMU_NUM_QPUS;
		return 0;
	case QPU_DEV_PARAM_NUM_SLICES:
		*value = QPU_EMU_NUM_QPUS / 4;
		return 0;
	case QPU_DEV_PARAM_NUM_SEMAPHORES:
		*value = QPU_EMU_NUM_SEMAPHORES;
		return 0;
	case QPU_DEV_PARAM_VPM_SIZE:
		*value = QPU_EMU_VPM_WORDS * 4;
		return 0;
	case QPU_DEV_PARAM_FEATURES:
		*value = QPU_DEV_FEATURE_UNIFORMS_ANYWHERE | QPU_DEV_FEATURE_DEADLOCK |
			 QPU_DEV_FEATURE_ALL_BOS;
		return 0;
	case QPU_DEV_PARAM_MAX_BO_SIZE:
		*value = emudev_of(dev)->max_bo_size;
		return 0;
	case QPU_DEV_PARAM_DEFAULT_TIMEOUT_MS:
		*value = EMU_DEFAULT_TIMEOUT_MS;
		return 0;
	case QPU_DEV_PARAM_MAX_TIMEOUT_MS:
		*value = EMU_MAX_TIMEOUT_MS;
		return 0;
	case QPU_DEV_PARAM_INSTRUCTIONS_PER_MS:
		*value = QPU_EMU_INSTRUCTIONS_PER_MS;
		return 0;
	default:
		/* No V3D registers here: no backend kind, no ident words. */
		return -EINVAL;
	}
}

/* First gap of the bus space that holds @size bytes and the guard. */
static int emudev_place(struct emudev *ed, size_t size, uint32_t *addr,
			size_t *index)
{
	uint64_t next = EMU_BUS_START;
	size_t i;

	for (i = 0; i <= ed->mem_count; i++) {
		uint64_t end = i < ed->mem_count ? ed->mems[i]->bus_addr : EMU_BUS_END;

		if (end >= next && end - next >= size + EMU_BUS_GUARD) {
			*addr = next;
			*index = i;
			return 0;
		}
		if (i < ed->mem_count)
			next = (uint64_t)ed->mems[i]->bus_addr + ed->mems[i]->size +
			       EMU_BUS_GUARD;
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

static void emudev_bo_free(struct qpu_dev *dev, struct qpu_bo *bo)
{
	struct emudev *ed = emudev_of(dev);

	struct emu_mem *mem = bo->priv;

	pthread_mutex_lock(&ed->lock);
	mem->freed = true;
	emudev_mem_put(ed, mem);
	pthread_mutex_unlock(&ed->lock);
}

static void emudev_mem_window(const void *buf, uint32_t *start, uint64_t *size)
{
	const struct emu_mem *mem = buf;

	*start = mem->bus_addr;
	*size = mem->size;
}

/* What the emulator's callbacks get: the job and, if on, the model. */
struct emu_run {
	const struct emu_job *job;
	struct qpu_timing *timing;
};

/* Every access of a program: inside one of its job's buffers. */
static void *emudev_translate(void *ctx, uint32_t addr, uint32_t len,
			      enum qpu_mem_access access)
{
	const struct emu_job *job = ((const struct emu_run *)ctx)->job;
	const struct emu_mem *mem;
	int i;

	(void)access;		/* every kind may reach every buffer of the job */
	i = qpu_devmodel_find_window((const void *const *)job->mems, job->mem_count,
				     emudev_mem_window, addr, len);
	if (i < 0)
		return NULL;
	mem = job->mems[i];
	return (char *)mem->map + (addr - mem->bus_addr);
}

static void emudev_timing_issue(void *ctx, unsigned int qpu, uint32_t pc,
				uint64_t word)
{
	qpu_timing_issue(((struct emu_run *)ctx)->timing, qpu, pc, word);
}

static void emudev_timing_event(void *ctx, const struct qpu_emu_event *ev)
{
	qpu_timing_event(((struct emu_run *)ctx)->timing, ev);
}

static const struct qpu_emu_ops emudev_emu_ops = {
	.translate = emudev_translate,
};

/* The same with the timing model on. */
static const struct qpu_emu_ops emudev_timed_ops = {
	.translate = emudev_translate,
	.trace = emudev_timing_issue,
	.event = emudev_timing_event,
};

static enum qpu_access emudev_fault_access(const struct qpu_fault *f)
{
	enum qpu_mem_access access;

	if (qpu_devmodel_fault_access(f, &access))
		return qpu_access_from_emu(access);
	return QPU_ACCESS_OTHER;
}

/* Instructions each program may issue; 0: no bound (QPU_JOB_TIMEOUT_NONE). */
static uint64_t emudev_limit(unsigned int timeout_ms)
{
	if (timeout_ms == QPU_JOB_TIMEOUT_NONE)
		return 0;
	if (!timeout_ms)
		timeout_ms = EMU_DEFAULT_TIMEOUT_MS;
	if (timeout_ms > EMU_MAX_TIMEOUT_MS)
		timeout_ms = EMU_MAX_TIMEOUT_MS;
	return (uint64_t)timeout_ms * QPU_EMU_INSTRUCTIONS_PER_MS;
}

/* Where each QPU stopped. */
static void emudev_report_qpus(const struct qpu_emu *emu,
			       struct qpu_job_result *result)
{
	unsigned int i;

	result->flags |= QPU_JOB_RESULT_QPUS;
	result->qpu_count = QPU_EMU_NUM_QPUS;
	for (i = 0; i < QPU_EMU_NUM_QPUS; i++) {
		struct qpu_job_qpu *q = &result->qpus[i];
		int sem = qpu_emu_get_wait_semaphore(emu, i, NULL);

		q->activity = qpu_activity_from_emu(qpu_emu_get_qpu_state(emu, i, &q->pc));
		q->semaphore = sem < 0 ? 0 : sem;
	}
}

/* This thread's CPU time: the emulator runs the job in the caller. */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * The job ran on a fresh emulator, started at @cpu0 of this thread's CPU
 * time: its statistics are the job's.
 */
static void emudev_count(struct emudev *ed, uint64_t cpu0,
			 struct qpu_job_result *result)
{
	const struct qpu_emu_stats *stats = qpu_emu_get_stats(ed->emu);
	struct qpu_job_counters *c = &result->counters;
	unsigned int i;

	result->flags |= QPU_JOB_RESULT_INSTRUCTIONS | QPU_JOB_RESULT_COUNTERS;
	result->instructions = 0;
	for (i = 0; i < QPU_EMU_NUM_QPUS; i++)
		result->instructions += stats->instructions[i];
	c->dual_issued = stats->both_units;
	c->tmu_bytes = stats->tmu_bytes;
	c->uniform_bytes = stats->uniform_bytes;
	c->dma_load_bytes = stats->dma_load_bytes;
	c->dma_store_bytes = stats->dma_store_bytes;
	c->run_ns = thread_cpu_ns() - cpu0;
	c->vpm_wrapped = stats->vpm_wrapped;
	if (ed->timing) {
		qpu_timing_to_job(ed->timing, ed->board, &result->timing);
		result->flags |= QPU_JOB_RESULT_TIMING;
	}
}

/* Runs @job to its end on a freshly reset emulator; the caller set ed->busy. */
static void emudev_run(struct emudev *ed, const struct emu_job *job,
		       struct qpu_job_result *result)
{
	enum qpu_emu_status status = QPU_EMU_IDLE;
	uint64_t cpu0 = thread_cpu_ns();
	struct emu_run run = { .job = job, .timing = ed->timing };
	unsigned int i;
	int qpu;

	if (ed->timing)
		qpu_timing_init(ed->timing, qpu_timing_board_of(ed->board));
	qpu_emu_init(ed->emu, ed->timing ? &emudev_timed_ops : &emudev_emu_ops,
		     &run, 0);
	if (ed->timing)
		qpu_emu_set_clock(ed->emu, qpu_timing_clock(ed->timing));
	qpu_emu_set_strict_vpm(ed->emu, ed->strict_vpm);
	qpu_emu_set_limit(ed->emu, emudev_limit(job->timeout_ms));
	memset(result, 0, sizeof(*result));
	for (i = 0; i < job->program_count; i++) {
		qpu = qpu_emu_start(ed->emu, job->code_addr[i], job->unif_addr[i]);
		if (qpu >= 0 && ed->timing)
			qpu_timing_start(ed->timing, qpu, job->code_addr[i],
					 job->unif_addr[i]);
		if (qpu < 0) {
			result->status = QPU_STATUS_FAULT;
			result->fault_qpu = i;
			result->fault_pc = job->code_addr[i];
			result->fault_addr = result->fault_pc;
			result->fault_access = QPU_ACCESS_FETCH;
			emudev_count(ed, cpu0, result);
			return;
		}
	}
	do {
		status = qpu_emu_run(ed->emu, EMU_SLICE);
	} while (status == QPU_EMU_RUNNING);

	switch (status) {
	case QPU_EMU_IDLE:
		result->status = QPU_STATUS_DONE;
		break;
	case QPU_EMU_FAULT: {
		const struct qpu_fault *f = qpu_emu_get_fault(ed->emu);

		result->status = QPU_STATUS_FAULT;
		result->fault_qpu = f->qpu;
		result->fault_pc = f->pc;
		result->fault_addr = f->addr;
		result->fault_access = emudev_fault_access(f);
		break;
	}
	case QPU_EMU_DEADLOCK:
		result->status = QPU_STATUS_DEADLOCK;
		emudev_report_qpus(ed->emu, result);
		break;
	default:		/* a program needed more than its time */
		result->status = QPU_STATUS_TIMEOUT;
		break;
	}
	emudev_count(ed, cpu0, result);
}

static int emudev_mem_cmp(const void *a, const void *b)
{
	const struct emu_mem *x = *(struct emu_mem *const *)a;
	const struct emu_mem *y = *(struct emu_mem *const *)b;

	return (x->bus_addr > y->bus_addr) - (x->bus_addr < y->bus_addr);
}

static void emudev_job_free(struct emudev *ed, struct emu_job *job)
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
 * The job @desc describes, holding its buffers (job.c checked that they
 * are this device's), with windows checked as qpu.ko checks them. Called
 * with ed->lock held.
 */
static int emudev_job_new(struct emudev *ed, const struct qpu_job_desc *desc,
			  struct emu_job **out)
{
	bool all = desc->flags & QPU_JOB_ALL_BOS;
	size_t max = all ? ed->mem_count : 2 * desc->program_count + desc->bo_count;
	struct emu_job *job = calloc(1, sizeof(*job));
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
	for (i = 0; i < desc->program_count; i++) {
		const struct qpu_program_ref *p = &desc->programs[i];

		if (!qpu_devmodel_program_fits(p->code->size, p->code_offset,
					       p->uniforms->size, p->uniforms_offset,
					       p->uniforms_length))
			goto invalid;
		job->code_addr[i] = p->code->bus_addr + p->code_offset;
		job->unif_addr[i] = p->uniforms->bus_addr + p->uniforms_offset;
		if (all)
			continue;
		job->mems[n++] = p->code->priv;
		job->mems[n++] = p->uniforms->priv;
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
	job->program_count = desc->program_count;
	job->timeout_ms = desc->timeout_ms;
	*out = job;
	return 0;

invalid:
	free(job->mems);
	free(job);
	return -EINVAL;
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
static void emudev_job_end(struct emudev *ed, struct emu_job *job,
			   const struct qpu_job_result *result)
{
	struct emu_result *slot = &ed->results[job->seqno % EMU_JOBS_KEPT];
	uint64_t one = 1;

	slot->seqno = job->seqno;
	slot->result = *result;
	ed->ended_seqno = job->seqno;
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
	struct emu_job *job;

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
static int emudev_enqueue(struct emudev *ed, struct emu_job *job)
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

static int emudev_submit(struct qpu_dev *dev, const struct qpu_job_desc *desc,
			 uint64_t *seqno)
{
	struct emudev *ed = emudev_of(dev);
	struct qpu_job_result result;
	struct emu_job *job;
	int ret, fence = -1;

	pthread_mutex_lock(&ed->lock);
	ret = emudev_job_new(ed, desc, &job);
	pthread_mutex_unlock(&ed->lock);
	if (ret)
		return ret;
	/* Taken now, as qpu.ko takes its sync_file: the caller may close it. */
	if (desc->in_fence_fd >= 0) {
		job->in_fence = fcntl(desc->in_fence_fd, F_DUPFD_CLOEXEC, 0);
		if (job->in_fence < 0) {
			ret = errno == EBADF ? -EINVAL : -errno;
			goto out_free;
		}
	}
	if (desc->out_fence_fd) {
		fence = eventfd(0, EFD_CLOEXEC);
		if (fence < 0) {
			ret = -errno;
			goto out_free;
		}
		job->out_fence = fcntl(fence, F_DUPFD_CLOEXEC, 0);
		if (job->out_fence < 0) {
			ret = -errno;
			close(fence);
			goto out_free;
		}
	}

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
		struct emu_job *job = ed->queue;

		ed->queue = job->next;
		emudev_job_end(ed, job, &canceled);
	}
	pthread_mutex_unlock(&ed->lock);
	for (i = 0; i < ed->mem_count; i++) {
		free(ed->mems[i]->map);
		free(ed->mems[i]);
	}
	if (ed->wake >= 0)
		close(ed->wake);
	pthread_cond_destroy(&ed->done);
	pthread_cond_destroy(&ed->queued);
	pthread_mutex_destroy(&ed->lock);
	free(ed->emu);
	free(ed->timing);
	free(ed->mems);
	free(ed);
}

/* Under @ed->lock with no job running: the emulator's board is the caller's. */
static int emudev_set_board(struct qpu_dev *dev, enum qpu_board board)
{
	struct emudev *ed = emudev_of(dev);
	struct qpu_timing *timing = NULL;

	if (board != QPU_BOARD_NONE && !qpu_timing_board_of(board))
		return -EINVAL;
	if (board != QPU_BOARD_NONE) {
		timing = aligned_alloc(8, (qpu_timing_size() + 7) & ~(size_t)7);
		if (!timing)
			return -ENOMEM;
	}
	pthread_mutex_lock(&ed->lock);
	while (ed->busy || ed->queue)
		pthread_cond_wait(&ed->done, &ed->lock);
	free(ed->timing);
	ed->timing = timing;
	ed->board = board;
	pthread_mutex_unlock(&ed->lock);
	return 0;
}

static const struct qpu_dev_ops emudev_ops = {
	.describe = emudev_describe,
	.set_board = emudev_set_board,
	.get_param = emudev_get_param,
	.bo_alloc = emudev_bo_alloc,
	.bo_free = emudev_bo_free,
	.submit = emudev_submit,
	.wait = emudev_wait,
	.close = emudev_close,
};

/* The comma-separated options of "emu:OPTIONS"; -EINVAL for unknown ones. */
static int emudev_parse(struct emudev *ed, const char *options)
{
	static const char strict_vpm[] = "strict-vpm", max_bo[] = "max-bo-mib=";
	static const char board[] = "board=";

	while (options && *options) {
		size_t len = strcspn(options, ",");
		char *end;

		if (len == sizeof(strict_vpm) - 1 &&
		    !strncmp(options, strict_vpm, len)) {
			ed->strict_vpm = true;
		} else if (len > sizeof(max_bo) - 1 &&
			   !strncmp(options, max_bo, sizeof(max_bo) - 1)) {
			unsigned long mib = strtoul(options + sizeof(max_bo) - 1, &end, 10);

			/* Within the 1 GiB bus space, beside other buffers. */
			if (end != options + len || !mib || mib > 512)
				return -EINVAL;
			ed->max_bo_size = (uint64_t)mib << 20;
		} else if (len > sizeof(board) - 1 &&
			   !strncmp(options, board, sizeof(board) - 1)) {
			char name[16] = "";

			if (len - (sizeof(board) - 1) < sizeof(name))
				memcpy(name, options + sizeof(board) - 1,
				       len - (sizeof(board) - 1));
			ed->board = qpu_board_from_name(name);
			if (ed->board == QPU_BOARD_NONE)
				return -EINVAL;
		} else {
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
	int ret;

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
	ret = emudev_parse(ed, options);
	if (ret)
		return ret;
	/* $QPU_EMU_BOARD when no option chose: a name it does not know fails */
	if (ed->board == QPU_BOARD_NONE && getenv("QPU_EMU_BOARD") &&
	    *getenv("QPU_EMU_BOARD")) {
		ed->board = qpu_board_from_name(getenv("QPU_EMU_BOARD"));
		if (ed->board == QPU_BOARD_NONE)
			return -EINVAL;
	}
	if (ed->board != QPU_BOARD_NONE) {
		ret = emudev_set_board(dev, ed->board);
		if (ret)
			return ret;
	}
	ed->wake = eventfd(0, EFD_CLOEXEC);
	if (ed->wake < 0)
		return -errno;
	ed->emu = aligned_alloc(8, (qpu_emu_size() + 7) & ~(size_t)7);
	if (!ed->emu)
		return -ENOMEM;
	return 0;
}
