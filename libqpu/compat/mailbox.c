// SPDX-License-Identifier: MIT
/*
 * The firmware-mailbox layer of libqpu-mailbox: sessions (mbox_open), their
 * buffers (mem_alloc and friends), the mapping from the addresses mailbox
 * programs compute to those buffers (mapmem), and jobs (execute_qpu), on
 * any libqpu device. What each call answers is documented in
 * <qpu_mailbox.h>.
 *
 * A session is one libqpu device, so one open file of qpu.ko: every buffer
 * of the session is one of its BOs, and a job run with QPU_JOB_ALL_BOS may
 * touch all of them, as the firmware's jobs touch any memory.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mailbox_internal.h"
#include "qpu.h"
#include "qpu_mailbox.h"

#define MBOX_API __attribute__((visibility("default")))
#define MBOX_MAX_SESSIONS	8
#define MBOX_PAGE		4096u
#define MBOX_MAX_ALIGN		4096u

struct mbox_buf {
	unsigned handle;
	struct qpu_bo *bo;
	uint32_t offset;	/* of the requested bytes in the BO */
	uint32_t size;		/* bytes requested */
	unsigned flags;		/* mem_alloc()'s */
};

struct mbox_session {
	int token;		/* the descriptor mbox_open() gave; -1: free */
	struct qpu_dev *dev;
	struct mbox_buf *bufs;
	size_t count, cap;
	unsigned enables;	/* qpu_enable(1) calls not yet undone */
};

static struct mbox_session mbox_sessions[MBOX_MAX_SESSIONS] = {
	[0 ... MBOX_MAX_SESSIONS - 1] = { .token = -1 },
};
/* Handles are never reused in the process, so a freed one is known as such. */
static unsigned mbox_next_handle = 1;

static void mbox_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void mbox_err(const char *fmt, ...)
{
	va_list ap;

	fputs("qpu-mailbox: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static bool mbox_env_on(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0");
}

void qpu_mailbox_trace(const char *fmt, ...)
{
	va_list ap;

	if (!mbox_env_on("QPU_MAILBOX_TRACE"))
		return;
	fputs("qpu-mailbox: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static struct mbox_session *mbox_session(int mb, const char *who)
{
	unsigned int i;

	for (i = 0; i < MBOX_MAX_SESSIONS; i++)
		if (mb >= 0 && mbox_sessions[i].token == mb)
			return &mbox_sessions[i];
	mbox_err("%s: %d is no descriptor of mbox_open()", who, mb);
	return NULL;
}

static struct mbox_buf *mbox_buf(struct mbox_session *s, unsigned handle,
				 const char *who)
{
	size_t i;

	for (i = 0; i < s->count; i++)
		if (s->bufs[i].handle == handle)
			return &s->bufs[i];
	if (handle && handle < mbox_next_handle)
		mbox_err("%s: handle %u was freed or belongs to another descriptor", who, handle);
	else
		mbox_err("%s: handle %u was never allocated", who, handle);
	return NULL;
}

/* The bus address QPU programs see the buffer's requested bytes at. */
static uint32_t mbox_bus(const struct mbox_buf *b)
{
	return qpu_bo_get_bus_addr(b->bo) + b->offset;
}

/* Bytes of the BO from the requested start: the requested ones and the pad. */
static uint32_t mbox_span(const struct mbox_buf *b)
{
	return qpu_bo_get_size(b->bo) - b->offset;
}

static bool mbox_holds(uint32_t start, uint32_t span, uint32_t addr, uint32_t len)
{
	return addr >= start && len <= span && addr - start <= span - len;
}

/*
 * The buffer of any session whose bus range holds [@addr, @addr + @len),
 * compared with the alias bits cleared (a program may use another alias of
 * the same memory); its byte offset from the requested start in @off.
 */
static struct mbox_buf *mbox_find_bus(struct mbox_session *s, uint32_t addr,
				      uint32_t len, uint32_t *off)
{
	uint32_t phys = addr & ~QPU_MAILBOX_ALIAS_MASK;
	size_t i;

	for (i = 0; i < s->count; i++) {
		struct mbox_buf *b = &s->bufs[i];
		uint32_t start = mbox_bus(b) & ~QPU_MAILBOX_ALIAS_MASK;

		if (mbox_holds(start, mbox_span(b), phys, len)) {
			*off = phys - start;
			return b;
		}
	}
	return NULL;
}

/* The header keeps GPU_FFT's declaration without a prototype; this is one. */
int mbox_open(void);

MBOX_API int mbox_open(void)
{
	struct mbox_session *s = NULL;
	const char *path = getenv("QPU_DEVICE");
	unsigned int i;

	for (i = 0; i < MBOX_MAX_SESSIONS && !s; i++)
		if (mbox_sessions[i].token < 0)
			s = &mbox_sessions[i];
	if (!s) {
		mbox_err("mbox_open: %d descriptors are open already", MBOX_MAX_SESSIONS);
		return -1;
	}
	s->dev = qpu_dev_open(NULL);
	if (!s->dev) {
		mbox_err("mbox_open: cannot open %s: %s", path && *path ? path : "/dev/qpu",
			 strerror(errno));
		return -1;
	}
	/* A descriptor no other call of the process is given. */
	s->token = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (s->token < 0) {
		mbox_err("mbox_open: /dev/null: %s", strerror(errno));
		qpu_dev_close(s->dev);
		s->dev = NULL;
		return -1;
	}
	return s->token;
}

MBOX_API void mbox_close(int file_desc)
{
	struct mbox_session *s = mbox_session(file_desc, "mbox_close");
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->count; i++)
		qpu_bo_free(s->bufs[i].bo);
	free(s->bufs);
	qpu_dev_close(s->dev);
	close(s->token);
	*s = (struct mbox_session){ .token = -1 };
}

MBOX_API unsigned mem_alloc(int file_desc, unsigned size, unsigned align, unsigned flags)
{
	struct mbox_session *s = mbox_session(file_desc, "mem_alloc");
	bool exact = mbox_env_on("QPU_MAILBOX_EXACT");
	struct mbox_buf b = { .size = size, .flags = flags };
	uint64_t bo_size;

	if (!s)
		return 0;
	if (!size || (align & (align - 1)) || align > MBOX_MAX_ALIGN) {
		mbox_err("mem_alloc: size %u, align %u: want a size and a power-of-two align up to %u",
			 size, align, MBOX_MAX_ALIGN);
		return 0;
	}
	bo_size = exact ? size : (uint64_t)size + QPU_MAILBOX_PAD;
	if (s->count == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 8;
		struct mbox_buf *bufs = realloc(s->bufs, cap * sizeof(*bufs));

		if (!bufs) {
			mbox_err("mem_alloc: out of memory");
			return 0;
		}
		s->bufs = bufs;
		s->cap = cap;
	}
	b.bo = qpu_bo_new(s->dev, bo_size);
	if (!b.bo) {
		mbox_err("mem_alloc: %u bytes: %s", size, strerror(errno));
		return 0;
	}
	if (!qpu_bo_get_bus_addr(b.bo)) {
		/* qpu.ko hides a real V3D's bus addresses from the unprivileged. */
		mbox_err("mem_alloc: no bus address: running programs on this V3D needs CAP_SYS_RAWIO");
		qpu_bo_free(b.bo);
		return 0;
	}
	/* Exact: the requested end as near the BO's end as @align allows. */
	if (exact && align)
		b.offset = (qpu_bo_get_size(b.bo) - size) / align * align;
	b.handle = mbox_next_handle++;
	s->bufs[s->count++] = b;
	return b.handle;
}

MBOX_API unsigned mem_free(int file_desc, unsigned handle)
{
	struct mbox_session *s = mbox_session(file_desc, "mem_free");
	struct mbox_buf *b = s ? mbox_buf(s, handle, "mem_free") : NULL;

	if (!b)
		return 1;
	qpu_bo_free(b->bo);
	*b = s->bufs[--s->count];
	return 0;
}

MBOX_API unsigned mem_lock(int file_desc, unsigned handle)
{
	struct mbox_session *s = mbox_session(file_desc, "mem_lock");
	struct mbox_buf *b = s ? mbox_buf(s, handle, "mem_lock") : NULL;

	return b ? mbox_bus(b) : 0;
}

MBOX_API unsigned mem_unlock(int file_desc, unsigned handle)
{
	struct mbox_session *s = mbox_session(file_desc, "mem_unlock");

	return s && mbox_buf(s, handle, "mem_unlock") ? 0 : 1;
}

/* The SoCs' peripheral windows (Pi 1 and Zero; Pi 2 and 3; Pi 4). */
static bool mbox_peripheral(uint32_t base, uint32_t size)
{
	static const uint32_t windows[][2] = {
		{ 0x20000000u, 0x01000000u },
		{ 0x3f000000u, 0x01000000u },
		{ 0xfe000000u, 0x01800000u },
	};
	uint64_t end = (uint64_t)base + (size ? size : 1);
	unsigned int i;

	for (i = 0; i < sizeof(windows) / sizeof(windows[0]); i++)
		if (base < (uint64_t)windows[i][0] + windows[i][1] && end > windows[i][0])
			return true;
	return false;
}

MBOX_API void *mapmem(unsigned base, unsigned size)
{
	struct mbox_buf *found = NULL;
	uint32_t found_off = 0;
	unsigned int i, matches = 0;
	size_t j;

	for (i = 0; i < MBOX_MAX_SESSIONS; i++) {
		struct mbox_session *s = &mbox_sessions[i];

		for (j = 0; s->token >= 0 && j < s->count; j++) {
			struct mbox_buf *b = &s->bufs[j];
			uint32_t window = mbox_bus(b) & ~QPU_MAILBOX_ALIAS_MASK;
			uint32_t span = mbox_span(b);

			if (mbox_holds(window, span, base, size)) {
				found = b;
				found_off = base - window;
				matches++;
			} else if ((b->flags & QPU_MAILBOX_MEM_ALIAS) == QPU_MAILBOX_MEM_DIRECT &&
				   mbox_holds(window + QPU_MAILBOX_PI1_UNCACHED, span, base, size)) {
				found = b;
				found_off = base - window - QPU_MAILBOX_PI1_UNCACHED;
				matches++;
			}
		}
	}
	if (matches == 1)
		return (char *)qpu_bo_get_map(found->bo) + found->offset + found_off;
	if (matches > 1)
		mbox_err("mapmem(0x%08x, %u): the address is in %u buffers' windows", base, size, matches);
	else if (mbox_peripheral(base, size))
		mbox_err("mapmem(0x%08x, %u): the peripheral window is not mapped: qpu.ko owns the V3D; run programs with execute_qpu()",
			 base, size);
	else
		mbox_err("mapmem(0x%08x, %u): no buffer of mem_alloc() holds it (give a locked buffer's bus address with 0xc0000000 cleared)",
			 base, size);
	return NULL;
}

MBOX_API void unmapmem(void *addr, unsigned size)
{
	/* The CPU mapping lives as long as its buffer: nothing to undo. */
}

MBOX_API unsigned qpu_enable(int file_desc, unsigned enable)
{
	struct mbox_session *s = mbox_session(file_desc, "qpu_enable");

	if (!s)
		return 1;
	if (enable)
		s->enables++;
	else if (s->enables)
		s->enables--;
	return 0;
}

MBOX_API unsigned execute_code(int file_desc, unsigned code, unsigned r0, unsigned r1,
			       unsigned r2, unsigned r3, unsigned r4, unsigned r5)
{
	mbox_err("execute_code(0x%08x): VPU code cannot run on qpu.ko's devices", code);
	return 0xffffffffu;
}

/* Finds @addr in the session's buffers as a program's code or uniforms. */
static int mbox_program_part(struct mbox_session *s, uint32_t addr, uint32_t align,
			     struct qpu_bo **bo, uint32_t *offset)
{
	uint32_t off;
	struct mbox_buf *b = mbox_find_bus(s, addr, align, &off);

	if (!b || addr % align)
		return -1;
	*bo = b->bo;
	*offset = b->offset + off;
	return 0;
}

unsigned qpu_mailbox_run(int mb, unsigned num_qpus, const uint32_t *pairs,
			 unsigned timeout_ms, const char *who)
{
	struct mbox_session *s = mbox_session(mb, who);
	struct qpu_program_ref progs[QPU_JOB_MAX_QPUS];
	struct qpu_job_desc job = {
		.programs = progs, .program_count = num_qpus, .in_fence_fd = -1,
		.timeout_ms = timeout_ms, .flags = QPU_JOB_ALL_BOS,
	};
	struct qpu_job_result r;
	uint64_t seqno, qpus = 0;
	unsigned int i;
	int ret;

	if (!s)
		return QPU_MAILBOX_REFUSED;
	if (qpu_dev_get_param(s->dev, QPU_DEV_PARAM_NUM_QPUS, &qpus))
		qpus = QPU_JOB_MAX_QPUS;
	if (!num_qpus || num_qpus > qpus || num_qpus > QPU_JOB_MAX_QPUS) {
		mbox_err("%s: %u QPUs: the device runs 1 to %u", who, num_qpus, (unsigned)qpus);
		return QPU_MAILBOX_REFUSED;
	}
	for (i = 0; i < num_qpus; i++) {
		progs[i] = (struct qpu_program_ref){ 0 };
		if (mbox_program_part(s, pairs[2 * i], 4, &progs[i].uniforms,
				      &progs[i].uniforms_offset) ||
		    mbox_program_part(s, pairs[2 * i + 1], 8, &progs[i].code,
				      &progs[i].code_offset)) {
			mbox_err("%s: program %u: uniforms 0x%08x, code 0x%08x: not inside a buffer of mem_alloc() (or misaligned)",
				 who, i, pairs[2 * i], pairs[2 * i + 1]);
			return QPU_MAILBOX_REFUSED;
		}
	}
	ret = qpu_submit(s->dev, &job, &seqno);
	if (!ret)
		ret = qpu_wait(s->dev, seqno, -1, &r);
	if (ret) {
		mbox_err("%s: %s", who, strerror(-ret));
		return QPU_MAILBOX_REFUSED;
	}
	qpu_mailbox_trace("%s: %u QPUs: %s", who, num_qpus, qpu_job_status_str(r.status));
	if (r.flags & QPU_JOB_RESULT_TIMING) {
		/* execute_qpu is the firmware's; gpu_fft_base_exec pokes registers */
		enum qpu_launch path = strcmp(who, "execute_qpu") ?
			QPU_LAUNCH_DIRECT : QPU_LAUNCH_MAILBOX;
		uint64_t launch = qpu_board_launch_ns(r.timing.board, path);

		qpu_mailbox_trace("%s: modelled %llu ns on %s: %s launch %llu ns, V3D %llu ns (%llu cycles; %llu instructions; stalls: tmu %llu, dma %llu, sync %llu, other %llu; sdram %llu bytes)",
				  who, (unsigned long long)(launch + r.timing.ns),
				  qpu_board_name(r.timing.board),
				  path == QPU_LAUNCH_MAILBOX ? "mailbox" : "direct",
				  (unsigned long long)launch, (unsigned long long)r.timing.ns,
				  (unsigned long long)r.timing.cycles,
				  (unsigned long long)r.instructions,
				  (unsigned long long)r.timing.stall_tmu,
				  (unsigned long long)r.timing.stall_dma,
				  (unsigned long long)r.timing.stall_sync,
				  (unsigned long long)r.timing.stall_other,
				  (unsigned long long)r.timing.sdram_bytes);
	}
	switch (r.status) {
	case QPU_STATUS_DONE:
		return QPU_MAILBOX_DONE;
	case QPU_STATUS_FAULT:
		mbox_err("%s: QPU %u at 0x%08x: %s of 0x%08x outside every buffer", who,
			 r.fault_qpu, r.fault_pc, qpu_access_str(r.fault_access), r.fault_addr);
		return QPU_MAILBOX_FAULT;
	default:
		mbox_err("%s: the job %s", who, qpu_job_status_str(r.status));
		return QPU_MAILBOX_TIMEOUT;
	}
}

MBOX_API unsigned execute_qpu(int file_desc, unsigned num_qpus, unsigned control,
			      unsigned noflush, unsigned timeout)
{
	struct mbox_session *s = mbox_session(file_desc, "execute_qpu");
	uint32_t pairs[2 * QPU_JOB_MAX_QPUS] = { 0 }, off;
	struct mbox_buf *b;

	if (!s)
		return QPU_MAILBOX_REFUSED;
	/* The run refuses these, with the device's number of QPUs. */
	if (!num_qpus || num_qpus > QPU_JOB_MAX_QPUS)
		return qpu_mailbox_run(file_desc, num_qpus, pairs, timeout, "execute_qpu");
	b = mbox_find_bus(s, control, 8 * num_qpus, &off);
	if (!b || control % 4) {
		mbox_err("execute_qpu: control list 0x%08x (%u pairs) is not inside a buffer of mem_alloc()",
			 control, num_qpus);
		return QPU_MAILBOX_REFUSED;
	}
	memcpy(pairs, (char *)qpu_bo_get_map(b->bo) + b->offset + off, 8 * num_qpus);
	return qpu_mailbox_run(file_desc, num_qpus, pairs, timeout, "execute_qpu");
}
