// SPDX-License-Identifier: MIT
/*
 * The in-process backend of struct qpu_dev: the emulator of libqpu/core
 * behind the same API as /dev/qpu, for machines without qpu.ko.
 *
 * Buffers are page-aligned heap memory placed in a 32-bit bus space from
 * 0xc0000000, each followed by a 64 KiB gap, as in qpu.ko's simulated V3D;
 * every access of a program is checked against its job's buffers (uniform
 * reads too: a program may point its stream anywhere in them), or with
 * QPU_JOB_ALL_BOS against every buffer of the device by a binary search of
 * the sorted live buffers. A job runs
 * to its end inside qpu_submit(), so an out-fence is an eventfd that is
 * already readable. Time is the job's progress, as on qpu.ko's simulated
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
 * turns on the emulator's strict VPM check (qpu_emu_set_strict_vpm()).
 */

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "qpu_devmodel.h"
#include "qpu_emu.h"

#define EMU_BUS_START		QPU_DEVMODEL_BUS_START
#define EMU_BUS_END		(QPU_DEVMODEL_BUS_START + QPU_DEVMODEL_BUS_SIZE)
#define EMU_BUS_GUARD		QPU_DEVMODEL_BUS_GUARD
#define EMU_PAGE		4096u
#define EMU_MAX_BO_SIZE		QPU_DEVMODEL_MAX_BO_SIZE
#define EMU_DEFAULT_TIMEOUT_MS	QPU_DEVMODEL_DEFAULT_TIMEOUT_MS
#define EMU_MAX_TIMEOUT_MS	QPU_DEVMODEL_MAX_TIMEOUT_MS
#define EMU_JOBS_KEPT		1024
#define EMU_SLICE		(1u << 20)

struct emu_result {
	uint64_t seqno;
	struct qpu_job_result result;
};

struct emudev {
	struct qpu_emu *emu;
	struct qpu_bo **bos;		/* live buffers, sorted by bus address */
	size_t bo_count, bo_cap;
	uint64_t next_seqno;
	struct emu_result results[EMU_JOBS_KEPT];
	bool strict_vpm;		/* option "strict-vpm" */
	uint64_t max_bo_size;		/* option "max-bo-mib=N", else 64 MiB */
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
		*value = qpu_ioctl_abi_version();
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

	for (i = 0; i <= ed->bo_count; i++) {
		uint64_t end = i < ed->bo_count ? ed->bos[i]->bus_addr : EMU_BUS_END;

		if (end >= next && end - next >= size + EMU_BUS_GUARD) {
			*addr = next;
			*index = i;
			return 0;
		}
		if (i < ed->bo_count)
			next = (uint64_t)ed->bos[i]->bus_addr + ed->bos[i]->size +
			       EMU_BUS_GUARD;
	}
	return -ENOSPC;
}

static int emudev_bo_alloc(struct qpu_dev *dev, struct qpu_bo *bo)
{
	struct emudev *ed = emudev_of(dev);
	size_t index;
	uint32_t addr;
	int ret;

	if (bo->size > ed->max_bo_size)
		return -EINVAL;
	bo->size = (bo->size + EMU_PAGE - 1) & ~(size_t)(EMU_PAGE - 1);
	ret = emudev_place(ed, bo->size, &addr, &index);
	if (ret)
		return ret;
	if (ed->bo_count == ed->bo_cap) {
		size_t cap = ed->bo_cap ? 2 * ed->bo_cap : 16;
		struct qpu_bo **bos = realloc(ed->bos, cap * sizeof(*bos));

		if (!bos)
			return -ENOMEM;
		ed->bos = bos;
		ed->bo_cap = cap;
	}
	bo->map = aligned_alloc(EMU_PAGE, bo->size);
	if (!bo->map)
		return -ENOMEM;
	memset(bo->map, 0, bo->size);
	bo->bus_addr = addr;
	memmove(&ed->bos[index + 1], &ed->bos[index],
		(ed->bo_count - index) * sizeof(*ed->bos));
	ed->bos[index] = bo;
	ed->bo_count++;
	return 0;
}

static void emudev_bo_free(struct qpu_dev *dev, struct qpu_bo *bo)
{
	struct emudev *ed = emudev_of(dev);
	size_t i;

	for (i = 0; i < ed->bo_count; i++) {
		if (ed->bos[i] == bo) {
			memmove(&ed->bos[i], &ed->bos[i + 1],
				(ed->bo_count - i - 1) * sizeof(*ed->bos));
			ed->bo_count--;
			break;
		}
	}
	free(bo->map);
}

static bool emudev_in_bo(const struct qpu_bo *bo, uint32_t addr, uint32_t len)
{
	return addr >= bo->bus_addr && len <= bo->size &&
	       addr - bo->bus_addr <= bo->size - len;
}

/*
 * QPU_JOB_ALL_BOS: the device's buffer holding the access, by a binary
 * search of the live buffers (sorted by bus address), so a job over many
 * buffers costs no scan per access. A job runs inside qpu_submit(), so the
 * live set is the set at submit.
 */
static const struct qpu_bo *emudev_find_bo(const struct emudev *ed,
					   uint32_t addr, uint32_t len)
{
	size_t lo = 0, hi = ed->bo_count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct qpu_bo *bo = ed->bos[mid];

		if (addr < bo->bus_addr)
			hi = mid;
		else if (addr - bo->bus_addr >= bo->size)
			lo = mid + 1;
		else
			return emudev_in_bo(bo, addr, len) ? bo : NULL;
	}
	return NULL;
}

/* The running job, for translate(). */
struct emudev_job {
	const struct emudev *ed;
	const struct qpu_job_desc *desc;
};

/* Every access of a program: inside one of its job's buffers. */
static void *emudev_translate(void *ctx, uint32_t addr, uint32_t len,
			      enum qpu_emu_access access)
{
	const struct emudev_job *run = ctx;
	const struct qpu_job_desc *job = run->desc;
	const struct qpu_bo *bo = NULL;
	unsigned int i;

	(void)access;		/* every kind may reach every buffer of the job */
	if (job->flags & QPU_JOB_ALL_BOS) {
		bo = emudev_find_bo(run->ed, addr, len);
		return bo ? (char *)bo->map + (addr - bo->bus_addr) : NULL;
	}
	for (i = 0; i < job->program_count && !bo; i++) {
		if (emudev_in_bo(job->programs[i].code, addr, len))
			bo = job->programs[i].code;
		else if (emudev_in_bo(job->programs[i].uniforms, addr, len))
			bo = job->programs[i].uniforms;
	}
	for (i = 0; i < job->bo_count && !bo; i++)
		if (emudev_in_bo(job->bos[i], addr, len))
			bo = job->bos[i];
	return bo ? (char *)bo->map + (addr - bo->bus_addr) : NULL;
}

static const struct qpu_emu_ops emudev_emu_ops = {
	.translate = emudev_translate,
};

static enum qpu_access emudev_fault_access(const struct qpu_emu_fault *f)
{
	if (f->reason == QPU_EMU_FAULT_MEMORY ||
	    f->reason == QPU_EMU_FAULT_MISALIGNED)
		return qpu_access_from_emu(f->access);
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
}

/* Runs @job to its end on a freshly reset emulator. */
static void emudev_run(struct emudev *ed, const struct qpu_job_desc *job,
		       struct qpu_job_result *result)
{
	enum qpu_emu_status status = QPU_EMU_IDLE;
	uint64_t cpu0 = thread_cpu_ns();
	struct emudev_job run = { .ed = ed, .desc = job };
	unsigned int i;

	qpu_emu_init(ed->emu, &emudev_emu_ops, &run, 0);
	qpu_emu_set_strict_vpm(ed->emu, ed->strict_vpm);
	qpu_emu_set_limit(ed->emu, emudev_limit(job->timeout_ms));
	memset(result, 0, sizeof(*result));
	for (i = 0; i < job->program_count; i++) {
		const struct qpu_program_ref *p = &job->programs[i];

		if (qpu_emu_start(ed->emu, p->code->bus_addr + p->code_offset,
				  p->uniforms->bus_addr + p->uniforms_offset) < 0) {
			result->status = QPU_STATUS_FAULT;
			result->fault_qpu = i;
			result->fault_pc = p->code->bus_addr + p->code_offset;
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
		const struct qpu_emu_fault *f = qpu_emu_get_fault(ed->emu);

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

static bool emudev_owns(const struct emudev *ed, const struct qpu_bo *bo)
{
	size_t i;

	for (i = 0; i < ed->bo_count; i++)
		if (ed->bos[i] == bo)
			return true;
	return false;
}

static int emudev_check(const struct emudev *ed, const struct qpu_job_desc *job)
{
	unsigned int i;

	for (i = 0; i < job->program_count; i++) {
		const struct qpu_program_ref *p = &job->programs[i];

		if (!emudev_owns(ed, p->code) || !emudev_owns(ed, p->uniforms))
			return -EINVAL;
		if (p->code_offset % 8 || p->code_offset >= p->code->size ||
		    p->uniforms_offset % 4 ||
		    p->uniforms_offset >= p->uniforms->size ||
		    p->uniforms_length % 4 ||
		    p->uniforms_length > p->uniforms->size - p->uniforms_offset)
			return -EINVAL;
	}
	for (i = 0; i < job->bo_count; i++)
		if (!emudev_owns(ed, job->bos[i]))
			return -EINVAL;
	return 0;
}

static int emudev_submit(struct qpu_dev *dev, const struct qpu_job_desc *desc,
			 uint64_t *seqno)
{
	struct emudev *ed = emudev_of(dev);
	struct pollfd pfd = { .fd = desc->in_fence_fd, .events = POLLIN };
	struct emu_result *slot;
	int ret, fence = -1;

	ret = emudev_check(ed, desc);
	if (ret)
		return ret;
	if (desc->in_fence_fd >= 0 &&
	    (poll(&pfd, 1, -1) != 1 || (pfd.revents & POLLNVAL)))
		return -EINVAL;
	if (desc->out_fence_fd) {
		fence = eventfd(1, EFD_CLOEXEC);
		if (fence < 0)
			return -errno;
	}

	slot = &ed->results[ed->next_seqno % EMU_JOBS_KEPT];
	slot->seqno = ed->next_seqno;
	emudev_run(ed, desc, &slot->result);
	*seqno = ed->next_seqno++;
	if (desc->out_fence_fd)
		*desc->out_fence_fd = fence;
	return 0;
}

static int emudev_wait(struct qpu_dev *dev, uint64_t seqno, int timeout_ms,
		       struct qpu_job_result *result)
{
	struct emudev *ed = emudev_of(dev);
	const struct emu_result *slot = &ed->results[seqno % EMU_JOBS_KEPT];

	/* Jobs end inside qpu_submit(): there is never anything to wait for. */
	if (!seqno || slot->seqno != seqno)
		return -ENOENT;
	*result = slot->result;
	return 0;
}

static void emudev_close(struct qpu_dev *dev)
{
	struct emudev *ed = emudev_of(dev);

	if (!ed)
		return;
	free(ed->emu);
	free(ed->bos);
	free(ed);
}

static const struct qpu_dev_ops emudev_ops = {
	.describe = emudev_describe,
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
	int ret;

	dev->ops = &emudev_ops;
	if (!ed)
		return -ENOMEM;
	dev->priv = ed;
	ed->next_seqno = 1;
	ed->max_bo_size = EMU_MAX_BO_SIZE;
	ret = emudev_parse(ed, options);
	if (ret)
		return ret;
	ed->emu = aligned_alloc(8, (qpu_emu_size() + 7) & ~(size_t)7);
	if (!ed->emu)
		return -ENOMEM;
	return 0;
}
