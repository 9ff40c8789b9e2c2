// SPDX-License-Identifier: MIT
/*
 * The public emulator (qpu_emulator.h): the core's freestanding emulator
 * behind libqpu's own types, over a memory map of the caller's regions.
 * The core's header stays private, so it may change without the library's
 * API doing so. The core's access kinds are translated to enum qpu_access
 * here, for this file and the emulator device (emudev.c).
 */

#include <errno.h>
#include <stdlib.h>

#include "toolkit/toolkit.h"
#include "qpu_emu.h"
#include "qpu_emulator.h"
#include "qpu_timing.h"

_Static_assert(QPU_EMULATOR_NUM_QPUS == QPU_EMU_NUM_QPUS,
	       "the public QPU count is the core's");
_Static_assert((int)QPU_EMULATOR_NUM_STALLS == (int)QPU_TIMING_NUM_STALLS &&
	       (int)QPU_EMULATOR_STALL_THRSW == (int)QPU_TIMING_STALL_THRSW,
	       "the public stall causes are the timing model's");

struct qpu_emulator_region {
	uint32_t base;
	uint64_t size;
	unsigned char *mem;
};

struct qpu_emulator {
	struct qpu_emu *emu;
	struct qpu_emu_ops ops;
	struct qpu_emulator_region *regions;
	size_t nregions;
	enum qpu_emulator_status status;	/* of the last run */
	qpu_emulator_trace_fn trace;
	qpu_emulator_write_fn write;
	void *trace_ctx;
	qpu_emulator_interrupt_fn interrupt;
	void *interrupt_ctx;
	struct qpu_timing *timing;	/* qpu_emulator_set_board(), or NULL */
	const struct qpu_timing_board *board;	/* ... its board */
	bool started;			/* a program was started */
};

enum qpu_access qpu_access_from_emu(enum qpu_mem_access access)
{
	switch (access) {
	case QPU_MEM_FETCH:
		return QPU_ACCESS_FETCH;
	case QPU_MEM_UNIFORM:
		return QPU_ACCESS_UNIFORM;
	case QPU_MEM_TMU:
		return QPU_ACCESS_TMU;
	case QPU_MEM_LOAD:
		return QPU_ACCESS_DMA_LOAD;
	case QPU_MEM_STORE:
		return QPU_ACCESS_DMA_STORE;
	case QPU_MEM_TMU_WRITE:
		return QPU_ACCESS_TMU_WRITE;
	}
	return QPU_ACCESS_OTHER;
}

enum qpu_activity qpu_activity_from_emu(enum qpu_emu_qpu_state state)
{
	switch (state) {
	case QPU_EMU_QPU_IDLE:
		return QPU_ACTIVITY_IDLE;
	case QPU_EMU_QPU_RUNNING:
		return QPU_ACTIVITY_RUNNING;
	case QPU_EMU_QPU_WAIT_SEM:
		return QPU_ACTIVITY_WAIT_SEMAPHORE;
	case QPU_EMU_QPU_WAIT_MUTEX:
		return QPU_ACTIVITY_WAIT_MUTEX;
	case QPU_EMU_QPU_WAIT_VPM:
		return QPU_ACTIVITY_WAIT_VPM;
	case QPU_EMU_QPU_WAIT_TMU:
		return QPU_ACTIVITY_WAIT_TMU;
	}
	return QPU_ACTIVITY_RUNNING;
}

void *qpu_emulator_lookup(const struct qpu_emulator *emu, uint32_t bus_addr,
			  size_t size)
{
	size_t i;

	for (i = 0; i < emu->nregions; i++) {
		const struct qpu_emulator_region *r = &emu->regions[i];

		if (bus_addr >= r->base && size <= r->size &&
		    bus_addr - r->base <= r->size - size)
			return r->mem + (bus_addr - r->base);
	}
	return NULL;
}

static void *emulator_translate(void *ctx, u32 addr, u32 len,
				enum qpu_mem_access kind)
{
	return qpu_emulator_lookup(ctx, addr, len);
}

static void emulator_trace(void *ctx, unsigned int qpu, u32 pc, u64 word)
{
	struct qpu_emulator *emu = ctx;

	if (emu->timing)
		qpu_timing_issue(emu->timing, qpu, pc, word);
	if (emu->trace)
		emu->trace(emu->trace_ctx, qpu, pc, word);
}

static void emulator_event(void *ctx, const struct qpu_emu_event *ev)
{
	struct qpu_emulator *emu = ctx;

	qpu_timing_event(emu->timing, ev);
}

static void emulator_trace_write(void *ctx, unsigned int qpu,
				 unsigned int waddr, bool file_b,
				 const u32 value[16], u16 lanes)
{
	struct qpu_emulator *emu = ctx;

	if (emu->write)
		emu->write(emu->trace_ctx, qpu, waddr, file_b, value, lanes);
}

static void emulator_host_interrupt(void *ctx, unsigned int qpu)
{
	struct qpu_emulator *emu = ctx;

	if (emu->interrupt)
		emu->interrupt(emu->interrupt_ctx, qpu);
}

struct qpu_emulator *qpu_emulator_new(uint32_t seed)
{
	struct qpu_emulator *emu = calloc(1, sizeof(*emu));

	if (!emu)
		return NULL;
	emu->emu = aligned_alloc(8, (qpu_emu_size() + 7) & ~(size_t)7);
	if (!emu->emu) {
		free(emu);
		errno = ENOMEM;
		return NULL;
	}
	emu->ops.translate = emulator_translate;
	emu->ops.host_interrupt = emulator_host_interrupt;
	qpu_emu_init(emu->emu, &emu->ops, emu, seed);
	return emu;
}

void qpu_emulator_free(struct qpu_emulator *emu)
{
	if (!emu)
		return;
	free(emu->regions);
	free(emu->emu);
	free(emu->timing);
	free(emu);
}

int qpu_emulator_map(struct qpu_emulator *emu, uint32_t bus_addr, void *mem,
		     size_t size)
{
	struct qpu_emulator_region *r;
	size_t i;

	if (!size || !mem || (uint64_t)bus_addr + size > 0x100000000ull)
		return -EINVAL;
	for (i = 0; i < emu->nregions; i++) {
		r = &emu->regions[i];
		if (bus_addr < r->base + r->size && r->base < bus_addr + size)
			return -EINVAL;
	}
	r = realloc(emu->regions, (emu->nregions + 1) * sizeof(*r));
	if (!r)
		return -ENOMEM;
	emu->regions = r;
	emu->regions[emu->nregions++] = (struct qpu_emulator_region){
		.base = bus_addr, .size = size, .mem = mem,
	};
	return 0;
}

void qpu_emulator_set_trace(struct qpu_emulator *emu,
			    qpu_emulator_trace_fn trace,
			    qpu_emulator_write_fn write, void *ctx)
{
	emu->trace = trace;
	emu->write = write;
	emu->trace_ctx = ctx;
	/* the core skips the calls altogether when they are not set */
	emu->ops.trace = trace || emu->timing ? emulator_trace : NULL;
	emu->ops.trace_write = write ? emulator_trace_write : NULL;
}

void qpu_emulator_set_host_interrupt(struct qpu_emulator *emu,
				     qpu_emulator_interrupt_fn fn, void *ctx)
{
	emu->interrupt = fn;
	emu->interrupt_ctx = ctx;
}

void qpu_emulator_set_predecode(struct qpu_emulator *emu, bool on)
{
	qpu_emu_set_predecode(emu->emu, on);
}

void qpu_emulator_set_strict_vpm(struct qpu_emulator *emu, bool on)
{
	qpu_emu_set_strict_vpm(emu->emu, on);
}

int qpu_emulator_start(struct qpu_emulator *emu, uint32_t code_addr,
		       uint32_t unif_addr)
{
	int ret = qpu_emu_start(emu->emu, code_addr, unif_addr);

	emu->started = true;
	if (ret >= 0 && emu->timing)
		qpu_timing_start(emu->timing, ret, code_addr, unif_addr);
	if (ret == -QPU_EMU_EBUSY)
		return -EBUSY;
	return ret < 0 ? -EINVAL : ret;
}

static enum qpu_emulator_status emulator_status(enum qpu_emu_status status)
{
	switch (status) {
	case QPU_EMU_IDLE:
		return QPU_EMULATOR_IDLE;
	case QPU_EMU_RUNNING:
		return QPU_EMULATOR_RUNNING;
	case QPU_EMU_FAULT:
		return QPU_EMULATOR_FAULT;
	case QPU_EMU_LIMIT:	/* this API sets no limit: cannot happen */
		return QPU_EMULATOR_RUNNING;
	case QPU_EMU_DEADLOCK:
		break;
	}
	return QPU_EMULATOR_DEADLOCK;
}

enum qpu_emulator_status qpu_emulator_run(struct qpu_emulator *emu,
					  uint64_t budget)
{
	emu->status = emulator_status(qpu_emu_run(emu->emu, budget));
	return emu->status;
}

static enum qpu_emulator_fault_reason
emulator_reason(enum qpu_fault_reason reason)
{
	switch (reason) {
	case QPU_FAULT_REASON_MEMORY:
		return QPU_EMULATOR_FAULT_MEMORY;
	case QPU_FAULT_REASON_MISALIGNED:
		return QPU_EMULATOR_FAULT_MISALIGNED;
	case QPU_FAULT_REASON_INSTRUCTION:
		return QPU_EMULATOR_FAULT_INSTRUCTION;
	case QPU_FAULT_REASON_VPM:
		break;
	}
	return QPU_EMULATOR_FAULT_VPM;
}

int qpu_emulator_get_fault(const struct qpu_emulator *emu,
			   struct qpu_emulator_fault *fault)
{
	const struct qpu_fault *f;

	if (emu->status != QPU_EMULATOR_FAULT)
		return -ENODATA;
	f = qpu_emu_get_fault(emu->emu);
	*fault = (struct qpu_emulator_fault){
		.reason = emulator_reason(f->reason),
		.qpu = f->qpu,
		.pc = f->pc,
		.addr = f->addr,
		.access = qpu_access_from_emu(f->access),
	};
	return 0;
}

const char *qpu_emulator_fault_reason_str(enum qpu_emulator_fault_reason reason)
{
	switch (reason) {
	case QPU_EMULATOR_FAULT_MEMORY:
		return "memory outside every mapped region";
	case QPU_EMULATOR_FAULT_MISALIGNED:
		return "misaligned address";
	case QPU_EMULATOR_FAULT_INSTRUCTION:
		return "instruction the QPU cannot run";
	case QPU_EMULATOR_FAULT_VPM:
		return "VPM address beyond the VPM";
	}
	return "unknown";
}

size_t qpu_emulator_describe(const struct qpu_emulator *emu, char *buf,
			     size_t size)
{
	return qpu_emu_describe(emu->emu, buf, size);
}

int qpu_emulator_get_stat(const struct qpu_emulator *emu,
			  enum qpu_emulator_stat stat, uint64_t *value)
{
	const struct qpu_emu_stats *s = qpu_emu_get_stats(emu->emu);
	unsigned int i;

	switch (stat) {
	case QPU_EMULATOR_STAT_INSTRUCTIONS:
		*value = 0;
		for (i = 0; i < QPU_EMU_NUM_QPUS; i++)
			*value += s->instructions[i];
		return 0;
	case QPU_EMULATOR_STAT_DUAL_ISSUED:
		*value = s->both_units;
		return 0;
	case QPU_EMULATOR_STAT_STALL_TMU:
		*value = s->stall_tmu;
		return 0;
	case QPU_EMULATOR_STAT_STALL_SFU:
		*value = s->stall_sfu;
		return 0;
	case QPU_EMULATOR_STAT_STALL_VPM:
		*value = s->stall_vpm;
		return 0;
	case QPU_EMULATOR_STAT_STALL_SYNC:
		*value = s->stall_sync;
		return 0;
	case QPU_EMULATOR_STAT_TMU_BYTES:
		*value = s->tmu_bytes;
		return 0;
	case QPU_EMULATOR_STAT_UNIFORM_BYTES:
		*value = s->uniform_bytes;
		return 0;
	case QPU_EMULATOR_STAT_DMA_LOAD_BYTES:
		*value = s->dma_load_bytes;
		return 0;
	case QPU_EMULATOR_STAT_DMA_STORE_BYTES:
		*value = s->dma_store_bytes;
		return 0;
	case QPU_EMULATOR_STAT_PROGRAMS_DONE:
		*value = s->programs_done;
		return 0;
	case QPU_EMULATOR_STAT_VPM_WRAPPED:
		*value = s->vpm_wrapped;
		return 0;
	}
	return -EINVAL;
}

int qpu_emulator_get_qpu_instructions(const struct qpu_emulator *emu,
				      unsigned int qpu, uint64_t *value)
{
	if (qpu >= QPU_EMU_NUM_QPUS)
		return -EINVAL;
	*value = qpu_emu_get_stats(emu->emu)->instructions[qpu];
	return 0;
}

int qpu_emulator_set_board(struct qpu_emulator *emu, int board)
{
	const struct qpu_timing_board *b = qpu_timing_board_of(board);

	if (board != QPU_BOARD_NONE && !b)
		return -EINVAL;
	if (emu->started)
		return -EBUSY;
	free(emu->timing);
	emu->timing = NULL;
	if (b) {
		emu->timing = aligned_alloc(8, (qpu_timing_size() + 7) & ~(size_t)7);
		if (!emu->timing)
			return -ENOMEM;
		qpu_timing_init(emu->timing, b);
	}
	emu->board = b;
	emu->ops.trace = emu->trace || emu->timing ? emulator_trace : NULL;
	emu->ops.event = emu->timing ? emulator_event : NULL;
	qpu_emu_set_clock(emu->emu,
			  emu->timing ? qpu_timing_clock(emu->timing) : NULL);
	return 0;
}

int qpu_emulator_get_timing(const struct qpu_emulator *emu, unsigned int qpu,
			    struct qpu_emulator_timing *out)
{
	struct qpu_timing_stats s;
	unsigned int k;

	if (qpu >= QPU_EMULATOR_NUM_QPUS)
		return -EINVAL;
	if (!emu->timing)
		return -ENODATA;
	qpu_timing_get_stats(emu->timing, &s);
	out->start = s.qpu[qpu].start;
	out->end = s.qpu[qpu].end;
	out->end_ns = qpu_timing_cycles_to_ns(emu->board, s.qpu[qpu].end);
	out->instructions = s.qpu[qpu].instructions;
	for (k = 0; k < QPU_EMULATOR_NUM_STALLS; k++)
		out->stall[k] = s.qpu[qpu].stall[k];
	return 0;
}

const char *qpu_emulator_stall_name(enum qpu_emulator_stall stall)
{
	return qpu_timing_stall_name(stall);
}
