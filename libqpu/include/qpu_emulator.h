/* SPDX-License-Identifier: MIT */
/*
 * libqpu: the QPU emulator, in-process, for tools and tests that want more
 * than a device gives: programs placed at chosen bus addresses over the
 * caller's memory, an instruction budget, a trace of every instruction and
 * write, the emulator's counters and a report of a hang. qpu-run is a thin
 * command line over it. (To run jobs through the same API as qpu.ko, open
 * the device "emu" with qpu_dev_open() instead.)
 *
 * The emulator models the 12 QPUs of a V3D with their semaphores, mutex,
 * VPM, VCD DMA and TMUs. Programs reach only the memory mapped with
 * qpu_emulator_map(); any other access stops the run with a fault.
 *
 * Conventions are those of qpu.h. A struct qpu_emulator is not
 * thread-safe; any number of them may run in different threads at once.
 */
#ifndef QPU_EMULATOR_H
#define QPU_EMULATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/** QPU_EMULATOR_NUM_QPUS - the QPUs of the emulated V3D */
#define QPU_EMULATOR_NUM_QPUS	12

/**
 * struct qpu_emulator - an emulated V3D and its memory map (opaque).
 */
struct qpu_emulator;

/**
 * qpu_emulator_new() - make an idle emulator with nothing mapped
 * @seed: 0 for the deterministic interleaving of the QPUs; any other value
 *	seeds a pseudo-random interleaving that shakes out races
 *
 * Return: an emulator the caller frees with qpu_emulator_free(), or NULL
 * with errno set (ENOMEM).
 */
QPU_API struct qpu_emulator *qpu_emulator_new(uint32_t seed);

/**
 * qpu_emulator_free() - free an emulator (not the memory mapped into it)
 * @emu: the emulator, or NULL
 */
QPU_API void qpu_emulator_free(struct qpu_emulator *emu);

/**
 * qpu_emulator_map() - let programs read and write @size bytes at @bus_addr
 * @emu: the emulator
 * @bus_addr: where programs see @mem's first byte
 * @mem: the caller's memory; it must stay valid while @emu runs
 * @size: bytes, at least one; @bus_addr + @size at most 2^32
 *
 * Return: 0; -EINVAL for an empty region, one past 4 GiB or one that
 * overlaps another; -ENOMEM.
 */
QPU_API int qpu_emulator_map(struct qpu_emulator *emu, uint32_t bus_addr,
			     void *mem, size_t size);

/**
 * qpu_emulator_lookup() - the host address of mapped bus memory
 * @emu: the emulator
 * @bus_addr: the first byte
 * @size: bytes that must all lie in one mapped region
 *
 * Return: a pointer into the caller's memory, or NULL when the bytes are
 * not all inside one region.
 */
QPU_API void *qpu_emulator_lookup(const struct qpu_emulator *emu,
				  uint32_t bus_addr, size_t size);

/**
 * typedef qpu_emulator_trace_fn - called before each instruction a QPU
 * issues, with its bus address @pc and @word
 */
typedef void (*qpu_emulator_trace_fn)(void *ctx, unsigned int qpu,
				      uint32_t pc, uint64_t word);

/**
 * typedef qpu_emulator_write_fn - called for each register write of the
 * instruction just traced (ALU results, load immediates, branch links):
 * write address @waddr of regfile B if @file_b else A (see
 * qpu_dis_write_reg_name()), the 16 lanes as computed, before any pack,
 * and in @lanes (bit i: lane i) those the condition let through
 */
typedef void (*qpu_emulator_write_fn)(void *ctx, unsigned int qpu,
				      unsigned int waddr, bool file_b,
				      const uint32_t value[16], uint16_t lanes);

/**
 * typedef qpu_emulator_interrupt_fn - called when a program writes the
 * host_int register
 */
typedef void (*qpu_emulator_interrupt_fn)(void *ctx, unsigned int qpu);

/**
 * qpu_emulator_set_trace() - watch every instruction (slow)
 * @emu: the emulator
 * @trace: called per instruction, or NULL
 * @write: called per register write, or NULL
 * @ctx: passed to both
 */
QPU_API void qpu_emulator_set_trace(struct qpu_emulator *emu,
				    qpu_emulator_trace_fn trace,
				    qpu_emulator_write_fn write, void *ctx);

/**
 * qpu_emulator_set_host_interrupt() - hear host interrupts
 * @emu: the emulator
 * @fn: called per host_int write, or NULL
 * @ctx: passed to @fn
 */
QPU_API void qpu_emulator_set_host_interrupt(struct qpu_emulator *emu,
					     qpu_emulator_interrupt_fn fn,
					     void *ctx);

/**
 * qpu_emulator_set_predecode() - cache decoded instructions (the default)
 * @emu: the emulator
 * @on: false decodes every instruction at each fetch: the slower
 *	reference path; results are the same
 */
QPU_API void qpu_emulator_set_predecode(struct qpu_emulator *emu, bool on);

/**
 * qpu_emulator_set_strict_vpm() - fault on generic VPM addresses that wrap
 * @emu: the emulator
 * @on: true stops a run with a fault where the hardware would wrap past
 *	the 64 rows a QPU addresses (off by default; a debugging aid)
 */
QPU_API void qpu_emulator_set_strict_vpm(struct qpu_emulator *emu, bool on);

/**
 * qpu_emulator_start() - start one program, as the V3D's request queue does
 * @emu: the emulator
 * @code_addr: bus address of the first instruction, a multiple of 8
 * @unif_addr: bus address of the uniform stream, a multiple of 4
 *
 * Return: the QPU (0 to QPU_EMULATOR_NUM_QPUS - 1) now running it, -EBUSY
 * when every QPU is busy, -EINVAL for a misaligned address.
 */
QPU_API int qpu_emulator_start(struct qpu_emulator *emu, uint32_t code_addr,
			       uint32_t unif_addr);

/**
 * enum qpu_emulator_status - how qpu_emulator_run() stopped
 * @QPU_EMULATOR_IDLE: every program reached its end
 * @QPU_EMULATOR_RUNNING: the budget ran out; running again goes on
 * @QPU_EMULATOR_FAULT: stopped by a fault (qpu_emulator_get_fault())
 * @QPU_EMULATOR_DEADLOCK: stopped: every live QPU waits forever
 */
enum qpu_emulator_status {
	QPU_EMULATOR_IDLE,
	QPU_EMULATOR_RUNNING,
	QPU_EMULATOR_FAULT,
	QPU_EMULATOR_DEADLOCK,
};

/**
 * qpu_emulator_run() - run the started programs
 * @emu: the emulator
 * @budget: at most this many instructions, over all QPUs
 *
 * After a fault or a deadlock nothing more runs on @emu.
 *
 * Return: how the run stopped.
 */
QPU_API enum qpu_emulator_status qpu_emulator_run(struct qpu_emulator *emu,
						  uint64_t budget);

/**
 * enum qpu_emulator_fault_reason - why a run stopped with a fault
 * @QPU_EMULATOR_FAULT_MEMORY: an access outside the mapped memory
 * @QPU_EMULATOR_FAULT_MISALIGNED: an address not aligned for its access
 * @QPU_EMULATOR_FAULT_INSTRUCTION: an encoding the hardware cannot run
 * @QPU_EMULATOR_FAULT_VPM: a VPM access outside it, or one that wraps
 *	under qpu_emulator_set_strict_vpm()
 */
enum qpu_emulator_fault_reason {
	QPU_EMULATOR_FAULT_MEMORY = 1,
	QPU_EMULATOR_FAULT_MISALIGNED,
	QPU_EMULATOR_FAULT_INSTRUCTION,
	QPU_EMULATOR_FAULT_VPM,
};

/**
 * struct qpu_emulator_fault - where and why a run stopped
 * @reason: why
 * @qpu: the QPU
 * @pc: bus address of the instruction
 * @addr: the address refused (a VPM address for QPU_EMULATOR_FAULT_VPM)
 * @access: what the access was for
 */
struct qpu_emulator_fault {
	enum qpu_emulator_fault_reason reason;
	unsigned int qpu;
	uint32_t pc;
	uint32_t addr;
	enum qpu_access access;
};

/**
 * qpu_emulator_get_fault() - the fault that stopped the run
 * @emu: the emulator
 * @fault: where it goes
 *
 * Return: 0, or -ENODATA when the last run did not stop with a fault.
 */
QPU_API int qpu_emulator_get_fault(const struct qpu_emulator *emu,
				   struct qpu_emulator_fault *fault);

/**
 * qpu_emulator_fault_reason_str() - a fault's reason for people
 * @reason: an enum qpu_emulator_fault_reason
 *
 * Return: a static string such as "memory outside every mapped region".
 */
QPU_API const char *
qpu_emulator_fault_reason_str(enum qpu_emulator_fault_reason reason);

/**
 * qpu_emulator_describe() - what every busy QPU is doing, for people
 * @emu: the emulator
 * @buf: where the text goes, NUL-terminated and truncated to @size; may
 *	be NULL when @size is 0
 * @size: bytes at @buf
 *
 * One line per busy QPU (its PC, its state, what it waits on), then the
 * semaphores and the mutex: the report of a deadlock or a spent budget.
 *
 * Return: the length of the whole text (without the NUL), as snprintf().
 */
QPU_API size_t qpu_emulator_describe(const struct qpu_emulator *emu,
				     char *buf, size_t size);

/**
 * enum qpu_emulator_stat - counters since qpu_emulator_new()
 * @QPU_EMULATOR_STAT_INSTRUCTIONS: instructions issued, over all QPUs
 * @QPU_EMULATOR_STAT_DUAL_ISSUED: instructions in which both the add and
 *	the mul unit did work
 * @QPU_EMULATOR_STAT_STALL_TMU: instructions an ldtmu waited for its result
 * @QPU_EMULATOR_STAT_STALL_SFU: instructions that read r4 before an SFU
 *	result arrived
 * @QPU_EMULATOR_STAT_STALL_VPM: waits on a VPM read never set up
 * @QPU_EMULATOR_STAT_STALL_SYNC: waits on semaphores or the mutex
 * @QPU_EMULATOR_STAT_TMU_BYTES: bytes read through the TMUs
 * @QPU_EMULATOR_STAT_UNIFORM_BYTES: bytes read from the uniform streams
 * @QPU_EMULATOR_STAT_DMA_LOAD_BYTES: bytes VCD DMA read from memory
 * @QPU_EMULATOR_STAT_DMA_STORE_BYTES: bytes VCD DMA wrote to memory
 * @QPU_EMULATOR_STAT_PROGRAMS_DONE: programs that reached their end
 * @QPU_EMULATOR_STAT_VPM_WRAPPED: generic VPM accesses that wrapped
 */
enum qpu_emulator_stat {
	QPU_EMULATOR_STAT_INSTRUCTIONS = 1,
	QPU_EMULATOR_STAT_DUAL_ISSUED,
	QPU_EMULATOR_STAT_STALL_TMU,
	QPU_EMULATOR_STAT_STALL_SFU,
	QPU_EMULATOR_STAT_STALL_VPM,
	QPU_EMULATOR_STAT_STALL_SYNC,
	QPU_EMULATOR_STAT_TMU_BYTES,
	QPU_EMULATOR_STAT_UNIFORM_BYTES,
	QPU_EMULATOR_STAT_DMA_LOAD_BYTES,
	QPU_EMULATOR_STAT_DMA_STORE_BYTES,
	QPU_EMULATOR_STAT_PROGRAMS_DONE,
	QPU_EMULATOR_STAT_VPM_WRAPPED,
};

/**
 * qpu_emulator_get_stat() - one counter
 * @emu: the emulator
 * @stat: which
 * @value: where it goes; untouched on failure
 *
 * Return: 0, or -EINVAL for an unknown counter.
 */
QPU_API int qpu_emulator_get_stat(const struct qpu_emulator *emu,
				  enum qpu_emulator_stat stat,
				  uint64_t *value);

/**
 * qpu_emulator_get_qpu_instructions() - instructions one QPU issued
 * @emu: the emulator
 * @qpu: the QPU
 * @value: where the count goes; untouched on failure
 *
 * Return: 0, or -EINVAL for @qpu out of range.
 */
QPU_API int qpu_emulator_get_qpu_instructions(const struct qpu_emulator *emu,
					      unsigned int qpu,
					      uint64_t *value);

/**
 * enum qpu_emulator_stall - why a QPU of the timing model did not issue
 * (qpu_emulator_set_board()): what it waited for
 */
enum qpu_emulator_stall {
	QPU_EMULATOR_STALL_REGFILE,	/* a regfile value not yet written back */
	QPU_EMULATOR_STALL_SFU,		/* r4 before the SFU result */
	QPU_EMULATOR_STALL_TMU,		/* ldtmu before the lookup returned */
	QPU_EMULATOR_STALL_TMU_FIFO,	/* a TMU request with the FIFO full */
	QPU_EMULATOR_STALL_VPM,		/* a VPM read before its setup took */
	QPU_EMULATOR_STALL_DMA,		/* vr_wait/vw_wait, a DMA behind another */
	QPU_EMULATOR_STALL_SEMAPHORE,	/* a semaphore acquire */
	QPU_EMULATOR_STALL_MUTEX,	/* the mutex */
	QPU_EMULATOR_STALL_FETCH,	/* an instruction cache miss */
	QPU_EMULATOR_STALL_UNIFORM,	/* a uniform cache miss */
	QPU_EMULATOR_STALL_THRSW,	/* a thread switch */
	QPU_EMULATOR_NUM_STALLS,
};

/**
 * struct qpu_emulator_timing - one QPU's modelled time
 * @start: V3D cycle its program started
 * @end: cycle it ended (thread end and its last DMA)
 * @end_ns: @end in nanoseconds at the board's V3D clock
 * @instructions: instructions it issued
 * @stall: cycles it waited, by enum qpu_emulator_stall
 */
struct qpu_emulator_timing {
	uint64_t start;
	uint64_t end;
	uint64_t end_ns;
	uint64_t instructions;
	uint64_t stall[QPU_EMULATOR_NUM_STALLS];
};

/**
 * qpu_emulator_set_board() - run the timing model of a board beside it
 * @emu: the emulator, before its first qpu_emulator_start()
 * @board: an enum qpu_board of <qpu.h>; QPU_BOARD_NONE turns it off
 *
 * Results do not change; qpu_emulator_get_timing() then says how many
 * cycles each QPU would have taken on @board and why it stalled.
 *
 * Return: 0, -EINVAL for an unknown board, -EBUSY once a program started,
 * -ENOMEM.
 */
QPU_API int qpu_emulator_set_board(struct qpu_emulator *emu, int board);

/**
 * qpu_emulator_get_timing() - one QPU's modelled time so far
 * @emu: the emulator, with a board set
 * @qpu: the QPU
 * @out: where it goes; untouched on failure
 *
 * Return: 0, -EINVAL for @qpu out of range, -ENODATA without a board.
 */
QPU_API int qpu_emulator_get_timing(const struct qpu_emulator *emu,
				    unsigned int qpu,
				    struct qpu_emulator_timing *out);

/**
 * qpu_emulator_stall_name() - a stall cause for people
 * @stall: an enum qpu_emulator_stall
 *
 * Return: a static string ("tmu", "semaphore", ...), or NULL for another
 * value; do not free it.
 */
QPU_API const char *qpu_emulator_stall_name(enum qpu_emulator_stall stall);

#ifdef __cplusplus
}
#endif

#endif /* QPU_EMULATOR_H */
