/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * The QPU emulator: the 12 QPUs of a V3D, their shared semaphores, mutex,
 * VPM, VCD DMA and TMU memory path, executing encoded programs with the
 * hardware's semantics. Freestanding: libqpu runs it in-process and qpu.ko's
 * simulated V3D runs it in kernel context, in slices, behind the user-program
 * request queue registers. No FPU: floats are computed with integers.
 *
 * Memory is reached only through the caller's translate() callback, so the
 * caller decides what a job may touch; an access it refuses stops the whole
 * job with a fault naming the QPU, the PC, the address and the access kind
 * (qpu_fault.h, shared by every generation).
 *
 * The emulator allocates nothing: the caller provides qpu_emu_size() bytes.
 */
#ifndef QPU_EMU_H
#define QPU_EMU_H

#include "qpu_fault.h"
#include "qpu_types.h"

#define QPU_EMU_NUM_QPUS	12
#define QPU_EMU_NUM_SEMAPHORES	16

/*
 * Time as the model counts it: the V3D clock it assumes, the BCM2835's
 * 250 MHz, and the 4 cycles a QPU takes per instruction (one quad of the 16
 * lanes per cycle). A QPU issues at most QPU_EMU_INSTRUCTIONS_PER_MS
 * instructions in a millisecond of the hardware's time: an upper bound, as
 * the hardware also stalls. The emulator device and the simulated V3D turn a
 * job's timeout into that many instructions per QPU (qpu_emu_set_limit()).
 */
#define QPU_EMU_CLOCK_HZ		250000000u
#define QPU_EMU_ISSUE_CYCLES		4
#define QPU_EMU_INSTRUCTIONS_PER_MS \
	(QPU_EMU_CLOCK_HZ / QPU_EMU_ISSUE_CYCLES / 1000)

/*
 * The work a program is charged beyond its instructions: one VCD DMA of
 * R rows and B bytes costs QPU_EMU_DMA_SETUP_CYCLES + R x
 * QPU_EMU_DMA_ROW_CYCLES + B / QPU_EMU_DMA_BYTES_PER_CYCLE cycles of the
 * VCD, and a TMU lookup QPU_EMU_TMU_LANE_CYCLES per lane, each rounded up
 * to whole instructions (QPU_EMU_ISSUE_CYCLES). One DMA moves up to 16 K
 * words for the price of one instruction: uncharged, a loop of them would
 * make a job's budget (qpu_emu_set_limit()) and each qpu_emu_run() slice
 * thousands of times the work they say. The timing model's board table
 * (libqpu/core/timing/qpu_timing_board.c) takes its VCD and TMU figures
 * from these, so the budget and the model's times agree. A generic VPM
 * access moves at most one 16-word vector per instruction: not charged.
 */
#define QPU_EMU_DMA_SETUP_CYCLES	16
#define QPU_EMU_DMA_ROW_CYCLES		4
#define QPU_EMU_DMA_BYTES_PER_CYCLE	4
#define QPU_EMU_TMU_LANE_CYCLES		1

/* Negative return values; the numbers are the Linux errno ones. */
#define QPU_EMU_EBUSY		16	/* no idle QPU to start a program on */
#define QPU_EMU_EINVAL		22	/* bad argument */

/**
 * struct qpu_emu_event - a memory transaction, for qpu_emu_ops.event
 * @kind: QPU_MEM_TMU, _DMA_LOAD or _DMA_STORE; or _UNIFORM: a
 *	write of unif_addr or unif_addr_rel moved the uniform stream
 * @qpu: the QPU whose instruction started it
 * @tmu: for a TMU lookup: which TMU (0 or 1)
 * @lanes: for a TMU lookup: the lanes that fetched (bit i = lane i)
 * @addr: for a TMU lookup: the 16 lanes' addresses (valid during the call);
 *	for a DMA: NULL
 * @base: for a DMA: the bus address of its first row; for _UNIFORM:
 *	where the stream continues
 * @rows: for a DMA: memory rows moved
 * @row_bytes: for a DMA: bytes in each row
 * @pitch: for a DMA: bytes from one row's start to the next's
 */
struct qpu_emu_event {
	enum qpu_mem_access kind;
	unsigned int qpu;
	unsigned int tmu;
	u16 lanes;
	const u32 *addr;
	u32 base;
	u32 rows;
	u32 row_bytes;
	u32 pitch;
};

/**
 * struct qpu_emu_ops - how the emulator reaches the world
 * @translate: the host address of @len bytes at bus address @addr for an
 *	access of @kind, or NULL when the job may not touch all of them (the
 *	job then stops with a fault). @len is never zero.
 * @host_interrupt: a program wrote the host_int register (optional).
 * @trace: called before each instruction a QPU issues, with its bus address
 *	and word (optional; added by the emulator for qpu-run --trace).
 * @trace_write: called for each write an instruction makes (ALU results,
 *	load immediates, branch links; not to the nop address), after @trace
 *	for it: the write address @waddr of regfile B if @file_b else A, the
 *	16 lanes as computed (before any pack) and the lanes the condition
 *	let through (optional; qpu-run --trace).
 * @event: called for each memory transaction an instruction starts (TMU
 *	lookups and VCD DMA) and each move of its uniform stream, after
 *	@trace for it and once the transaction has been done (optional; the
 *	userspace timing model). Unset, it costs one test per TMU request,
 *	DMA or unif_addr write and none per instruction.
 */
struct qpu_emu_ops {
	void *(*translate)(void *ctx, u32 addr, u32 len,
			   enum qpu_mem_access kind);
	void (*host_interrupt)(void *ctx, unsigned int qpu);
	void (*trace)(void *ctx, unsigned int qpu, u32 pc, u64 word);
	void (*trace_write)(void *ctx, unsigned int qpu, unsigned int waddr,
			    bool file_b, const u32 value[16], u16 lanes);
	void (*event)(void *ctx, const struct qpu_emu_event *ev);
};

/* Outcome of qpu_emu_run(). */
enum qpu_emu_status {
	QPU_EMU_IDLE,		/* no program is running or waiting */
	QPU_EMU_RUNNING,	/* the budget ran out; call again */
	QPU_EMU_FAULT,		/* stopped: see qpu_emu_get_fault() */
	QPU_EMU_DEADLOCK,	/* every live QPU waits (a new program resumes) */
	QPU_EMU_LIMIT,		/* stopped: a program is out of instructions */
};

/**
 * struct qpu_emu_stats - counters since qpu_emu_init() or qpu_emu_reset()
 * @instructions: instructions issued per QPU
 * @both_units: instructions where both the add and the mul unit did work
 * @stall_tmu: instructions an ldtmu waited for its result (the modelled
 *	TMU latency left when it issued), plus scheduler visits to a QPU whose
 *	ldtmu found the FIFO empty
 * @stall_sfu: instructions that read r4 before an SFU result arrived
 * @stall_vpm: scheduler visits to a QPU waiting on a VPM read never set up
 * @stall_sync: scheduler visits to QPUs waiting on semaphores or the mutex
 * @tmu_bytes: bytes read through the TMUs
 * @uniform_bytes: bytes read from the uniform streams (4 per uniform)
 * @dma_load_bytes: bytes VCD DMA read from memory
 * @dma_store_bytes: bytes VCD DMA wrote to memory
 * @programs_done: programs that reached thread end
 * @vpm_wrapped: generic VPM reads and writes whose address (as set up, plus
 *	the strides since) lies past the 64 rows a QPU addresses, and so
 *	wrapped onto the rows the hardware decodes (see
 *	qpu_emu_set_strict_vpm())
 */
struct qpu_emu_stats {
	u64 instructions[QPU_EMU_NUM_QPUS];
	u64 both_units;
	u64 stall_tmu;
	u64 stall_sfu;
	u64 stall_vpm;
	u64 stall_sync;
	u64 tmu_bytes;
	u64 uniform_bytes;
	u64 dma_load_bytes;
	u64 dma_store_bytes;
	u64 programs_done;
	u64 vpm_wrapped;
};

struct qpu_emu;

/* Bytes the caller must provide for one emulator, suitably aligned (8). */
size_t qpu_emu_size(void);

/**
 * qpu_emu_init() - make @emu an idle V3D
 * @emu: qpu_emu_size() bytes
 * @ops: memory and interrupt callbacks, kept by reference
 * @ctx: passed to every callback
 * @seed: 0 for the deterministic interleaving of the QPUs; any other value
 *	seeds a pseudo-random interleaving that shakes out races
 */
void qpu_emu_init(struct qpu_emu *emu, const struct qpu_emu_ops *ops,
		  void *ctx, u32 seed);

/**
 * qpu_emu_start() - start one program, as a write to the V3D's SRQPC does
 * @emu: the emulator
 * @code_addr: bus address of the first instruction (8-byte aligned)
 * @unif_addr: bus address of the uniform stream (4-byte aligned)
 *
 * Return: the QPU (0..11) now running it, -QPU_EMU_EBUSY when every QPU is
 * busy, -QPU_EMU_EINVAL for a misaligned address.
 */
int qpu_emu_start(struct qpu_emu *emu, u32 code_addr, u32 unif_addr);

/**
 * qpu_emu_run() - run the started programs
 * @emu: the emulator
 * @budget: at most this much work, over all QPUs, in instructions: each
 *	instruction counts one, a DMA or TMU lookup what it is charged (see
 *	QPU_EMU_DMA_SETUP_CYCLES); the instruction that spends the last of it
 *	ends the call, so one call does at most @budget plus one DMA's work
 *
 * Return: QPU_EMU_IDLE when no program is left (all reached thread end),
 * QPU_EMU_RUNNING when the budget ran out first, or a stop status; after a
 * stop nothing runs until qpu_emu_reset().
 */
enum qpu_emu_status qpu_emu_run(struct qpu_emu *emu, u64 budget);

/*
 * qpu_emu_set_predecode() - turn the predecoded-instruction cache on (the
 * default) or off. Off, every fetch goes through translate() and
 * qpu_isa_decode(): the reference the tests compare the cache against.
 * Results are the same either way; only the speed differs.
 */
void qpu_emu_set_predecode(struct qpu_emu *emu, bool on);

/*
 * qpu_emu_set_strict_vpm() - fault on VPM addresses that wrap (off by default)
 *
 * A generic VPM access decodes only the address bits of its mode (the
 * 64 rows a QPU sees), as the hardware does: an address past them wraps,
 * and stats.vpm_wrapped counts it. Programs rely on it (a stride of 64
 * that leaves the address where it is); a program of ours that gets
 * there has usually miscomputed its address. With @on, such an access
 * stops the job with QPU_FAULT_REASON_VPM instead: a debugging aid the
 * hardware lacks. Kept by qpu_emu_reset(), cleared by qpu_emu_init().
 */
void qpu_emu_set_strict_vpm(struct qpu_emu *emu, bool on);

/**
 * qpu_emu_set_limit() - bound each program's work
 * @emu: the emulator
 * @instructions: how much work each program may do from its
 *	qpu_emu_start(), in instructions: each one it issues, plus what its
 *	DMAs and TMU lookups are charged (see QPU_EMU_DMA_SETUP_CYCLES);
 *	0 for no bound (the default)
 *
 * A program that would issue one more stops the job: qpu_emu_run() returns
 * QPU_EMU_LIMIT with every program left where it was. A job whose programs
 * each need at most @instructions runs to its end. Like the seed and the
 * predecode setting, the limit survives qpu_emu_reset().
 */
void qpu_emu_set_limit(struct qpu_emu *emu, u64 instructions);

/**
 * qpu_emu_set_clock() - run the QPUs in the order of a timing model
 * @emu: the emulator
 * @clock: one cycle count per QPU, kept by the caller (the userspace
 *	timing model: the cycle each QPU's next instruction may issue), or
 *	NULL for round-robin (the default)
 *
 * With seed 0 the scheduler then runs the ready QPU whose @clock is
 * lowest (the lowest index among equals), until it is
 * QPU_EMU_CLOCK_SLACK cycles past the next one, so that the state a timing
 * model shares between QPUs (caches, units, semaphores) sees their
 * accesses in its own time order rather than one instruction each in
 * turn; each choice counts a stall of every waiting QPU. Results of
 * programs without races are the same either way. Other seeds ignore it.
 * Survives qpu_emu_reset(); qpu_emu_init() clears it.
 */
#define QPU_EMU_CLOCK_SLACK	32
void qpu_emu_set_clock(struct qpu_emu *emu, const u64 *clock);

/* Stop every program and forget all state but the callbacks and settings. */
void qpu_emu_reset(struct qpu_emu *emu);

/* Programs that reached thread end since init or reset (SRQCS's count). */
u32 qpu_emu_completed(const struct qpu_emu *emu);

/* Valid after QPU_EMU_FAULT, until the next reset. */
const struct qpu_fault *qpu_emu_get_fault(const struct qpu_emu *emu);

const struct qpu_emu_stats *qpu_emu_get_stats(const struct qpu_emu *emu);

/* --- inspection (tests, tools, deadlock reports) ------------------------ */

/* Register files of qpu_emu_get_reg(). */
enum qpu_emu_file {
	QPU_EMU_FILE_A,		/* regfile A, 0..31 */
	QPU_EMU_FILE_B,		/* regfile B, 0..31 */
	QPU_EMU_FILE_ACC,	/* accumulators r0..r5 */
};

/* What a QPU is doing, from qpu_emu_get_qpu_state(). */
enum qpu_emu_qpu_state {
	QPU_EMU_QPU_IDLE,	/* no program (or it reached thread end) */
	QPU_EMU_QPU_RUNNING,	/* issuing instructions */
	QPU_EMU_QPU_WAIT_SEM,	/* semaphore acquire at 0 or release at 15 */
	QPU_EMU_QPU_WAIT_MUTEX,	/* mutex held by another QPU (or itself) */
	QPU_EMU_QPU_WAIT_VPM,	/* VPM read with no vector set up */
	QPU_EMU_QPU_WAIT_TMU,	/* ldtmu with an empty TMU FIFO */
};

/* Size of the VPM in 32-bit words (the Pi's 12 KiB, IDENT1 VPMSZ=12). */
#define QPU_EMU_VPM_WORDS	(12 * 1024 / 4)

/*
 * Copy the 16 lanes of register @reg of @file of QPU @qpu into @out.
 * Return: 0, or -QPU_EMU_EINVAL for an argument out of range.
 */
int qpu_emu_get_reg(const struct qpu_emu *emu, unsigned int qpu,
		    enum qpu_emu_file file, unsigned int reg, u32 out[16]);

/* The Z, N and C flags of QPU @qpu, one bit per lane (bit i = lane i). */
int qpu_emu_get_flags(const struct qpu_emu *emu, unsigned int qpu,
		      u16 *z, u16 *n, u16 *c);

/* The QPU's state; *@pc (if not NULL) gets the next instruction's address. */
enum qpu_emu_qpu_state qpu_emu_get_qpu_state(const struct qpu_emu *emu,
					     unsigned int qpu, u32 *pc);

/*
 * The semaphore QPU @qpu waits on in QPU_EMU_QPU_WAIT_SEM (0..15), with
 * *@acquire (if not NULL) true for an acquire (the count is 0) and false for
 * a release (the count is 15); -QPU_EMU_EINVAL in any other state.
 */
int qpu_emu_get_wait_semaphore(const struct qpu_emu *emu, unsigned int qpu,
			       bool *acquire);

/* Semaphore @sem's counter (0..15), or -QPU_EMU_EINVAL. */
int qpu_emu_get_semaphore(const struct qpu_emu *emu, unsigned int sem);

/* The shared VPM, QPU_EMU_VPM_WORDS words. */
const u32 *qpu_emu_get_vpm(const struct qpu_emu *emu);

/*
 * qpu_emu_describe() - one line per busy QPU (PC, state, what it waits on)
 * plus the semaphores and mutex, NUL-terminated and truncated to @len
 * (@buf may be NULL when @len is 0).
 * Return: the length the whole text needs (without the NUL), like snprintf.
 */
size_t qpu_emu_describe(const struct qpu_emu *emu, char *buf, size_t len);

#endif /* QPU_EMU_H */
