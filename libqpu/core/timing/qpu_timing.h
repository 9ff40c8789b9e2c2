/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * The timing model: how many V3D cycles a job of the VideoCore IV emulator
 * would take on a given Raspberry Pi, and where its QPUs stalled. It rides
 * on the emulator's hooks (qpu_emu_ops.trace for every instruction issued,
 * qpu_emu_ops.event for TMU lookups and VCD DMA), so the emulator's hot
 * loop is the same whether it runs or not, and results never depend on it.
 * Userspace only (libqpu builds it, qpu.ko does not), but freestanding like
 * the rest of the core: no libc, integers only.
 *
 * Each QPU keeps its own clock, and the emulator runs next the QPU whose
 * clock is earliest (qpu_timing_clock(), qpu_emu_set_clock()), so the
 * caches see the QPUs' accesses in the model's time order. Shared units
 * (TMUs of a slice, the VCD, the SDRAM) are still booked on timelines of
 * fixed-size buckets rather than a single "busy until": one instruction's
 * transaction can book a unit far past the other QPUs' clocks, and a QPU
 * that comes later in the emulator's order must still find the unit free
 * at its own, earlier, time.
 * Every parameter lives once, in the per-board tables of qpu_timing_board.c.
 */
#ifndef QPU_TIMING_H
#define QPU_TIMING_H

#include "qpu_emu.h"

/* The boards, in the order of qpu_timing_board_get(). */
enum qpu_timing_board_id {
	QPU_TIMING_PI1,		/* Pi 1 and Zero: BCM2835 */
	QPU_TIMING_PI2,		/* Pi 2: BCM2836 */
	QPU_TIMING_PI3,		/* Pi 3: BCM2837 */
	QPU_TIMING_PI3PLUS,	/* Pi 3B+: BCM2837B0 */
	QPU_TIMING_NUM_BOARDS,
};

/* The model's parameters, one value per board (struct qpu_timing_board). */
enum qpu_timing_param_id {
	QPU_TP_V3D_MHZ,		/* V3D clock */
	QPU_TP_SDRAM_MHZ,	/* SDRAM clock */
	QPU_TP_ISSUE_CYCLES,	/* cycles per instruction */
	QPU_TP_REGFILE_LATENCY,	/* instructions before a regfile write reads back */
	QPU_TP_SFU_LATENCY,	/* instructions between an SFU write and r4 */
	QPU_TP_VPM_READ_LATENCY, /* instructions between vr_setup and a read */
	QPU_TP_THRSW_CYCLES,	/* a thread switch that finds no other thread */
	QPU_TP_TMU_FIFO,	/* TMU requests in flight per QPU and TMU */
	QPU_TP_TMU_HIT_CYCLES,	/* request to result on a TMU cache hit */
	QPU_TP_TMU_LANE_CYCLES,	/* TMU occupancy per lane looked up */
	QPU_TP_TMU_CACHE_BYTES,	/* TMU cache size, per TMU */
	QPU_TP_TMU_LINE_BYTES,	/* its line length */
	QPU_TP_TMU_WAYS,	/* its associativity */
	QPU_TP_L2_BYTES,	/* the VC4 L2 cache in front of SDRAM (0: bypassed) */
	QPU_TP_L2_LINE_BYTES,
	QPU_TP_L2_WAYS,
	QPU_TP_L2_HIT_CYCLES,	/* a TMU miss that hits in L2 */
	QPU_TP_ICACHE_BYTES,	/* instruction cache, per slice */
	QPU_TP_ICACHE_LINE_BYTES,
	QPU_TP_UNIF_LINE_BYTES,	/* uniforms cache line, fetched through L2 */
	QPU_TP_DMA_SETUP_CYCLES, /* VCD cycles to start one DMA */
	QPU_TP_DMA_ROW_CYCLES,	/* VCD cycles per memory row */
	QPU_TP_DMA_BYTES_PER_CYCLE, /* VCD data rate */
	QPU_TP_SDRAM_LATENCY,	/* V3D cycles from a miss to its data */
	QPU_TP_SDRAM_EFFICIENCY, /* percent of the SDRAM's peak reached */
	QPU_TP_LAUNCH_IOCTL_NS,	/* qpu.ko: submit, run, fence signalled */
	QPU_TP_LAUNCH_DIRECT_NS, /* V3D registers poked from the ARM */
	QPU_TP_LAUNCH_MAILBOX_NS, /* the firmware mailbox's execute_qpu */
	QPU_TP_QPU_START_CYCLES, /* cycles between two programs' starts */
	QPU_TP_SDRAM_PAGE_BYTES, /* an SDRAM page (row), per bank */
	QPU_TP_SDRAM_PAGE_MISS_BYTES, /* bandwidth an access to a closed page costs */
	QPU_TP_L2_RANDOM,	/* 1: the L2 replaces a random way, 0: the LRU one */
	QPU_TP_UNIF_CACHE_BYTES, /* uniforms cache, per slice (0: none) */
	QPU_TP_UNIF_WAYS,	/* its associativity */
	QPU_TP_UNIF_PREFETCH,	/* lines it asks for ahead of a stream */
	QPU_TIMING_NUM_PARAMS,
};

/**
 * struct qpu_timing_param - one parameter of one board
 * @value: its value, in the unit enum qpu_timing_param_id names
 * @source: where it comes from: a document and section, "fitted" (see
 *	the calibration report, libqpu/core/timing/CALIBRATION.md) or
 *	"extrapolated" from the Pi 1 figure
 */
struct qpu_timing_param {
	u32 value;
	const char *source;
};

/*
 * VideoCore IV bus aliases, a bus address's top two bits: 0x0, 0x4 and 0x8
 * reach SDRAM through the VideoCore's L2 cache, 0xC straight (BCM2835 ARM
 * Peripherals, the bus address map; the firmware's mem_alloc flags name
 * 0xC "direct, uncached"). The model's L2 serves what its alias sends it.
 */
#define QPU_TIMING_ALIAS_MASK	0xc0000000u
#define QPU_TIMING_ALIAS_L2	0x40000000u	/* what Linux gives a Pi 1's RAM */
#define QPU_TIMING_ALIAS_DIRECT	0xc0000000u	/* and a Pi 2's or 3's */

/**
 * struct qpu_timing_board - the parameters of one board
 * @name: what QPU_EMU_BOARD takes ("pi1", "pi2", "pi3", "pi3plus")
 * @label: for people ("Pi 1/Zero", ...)
 * @extrapolated: true when the board's figures are extrapolated from the
 *	Pi 1's (only the Pi 1 has published times to calibrate against)
 * @ram_alias: the alias Linux gives RAM for devices on this board (the
 *	device tree's dma-ranges), so where qpu.ko's buffers sit:
 *	QPU_TIMING_ALIAS_L2 or QPU_TIMING_ALIAS_DIRECT
 * @p: the parameters, indexed by enum qpu_timing_param_id
 */
struct qpu_timing_board {
	const char *name;
	const char *label;
	bool extrapolated;
	u32 ram_alias;
	struct qpu_timing_param p[QPU_TIMING_NUM_PARAMS];
};

/* The board @id, or NULL. */
const struct qpu_timing_board *qpu_timing_board_get(unsigned int id);

/* The board called @name ("pi1"...), or NULL. */
const struct qpu_timing_board *qpu_timing_board_find(const char *name);

/* The parameter's name for people ("sdram_latency"), or NULL. */
const char *qpu_timing_param_name(unsigned int id);

/* Why a QPU did not issue in a cycle it could have. */
enum qpu_timing_stall {
	QPU_TIMING_STALL_REGFILE,	/* a regfile value not yet written back */
	QPU_TIMING_STALL_SFU,		/* r4 before the SFU result */
	QPU_TIMING_STALL_TMU,		/* ldtmu before the lookup returned */
	QPU_TIMING_STALL_TMU_FIFO,	/* a TMU request with the FIFO full */
	QPU_TIMING_STALL_VPM,		/* a VPM read before its setup took */
	QPU_TIMING_STALL_DMA,		/* vr_wait/vw_wait, or a DMA behind another */
	QPU_TIMING_STALL_SEMAPHORE,	/* a semaphore acquire */
	QPU_TIMING_STALL_MUTEX,		/* the mutex held by another QPU */
	QPU_TIMING_STALL_FETCH,		/* an instruction cache miss */
	QPU_TIMING_STALL_UNIFORM,	/* a uniform not yet in the uniforms cache */
	QPU_TIMING_STALL_THRSW,		/* a thread switch */
	QPU_TIMING_NUM_STALLS,
};

/* The stall's name for people ("tmu"), or NULL. */
const char *qpu_timing_stall_name(unsigned int stall);

/**
 * struct qpu_timing_qpu_stats - one QPU's modelled time
 * @start: cycle its program started (0: the first)
 * @end: cycle its program ended (its thread end and its last DMA store)
 * @instructions: instructions it issued
 * @stall: cycles it could not issue, by cause
 */
struct qpu_timing_qpu_stats {
	u64 start;
	u64 end;
	u64 instructions;
	u64 stall[QPU_TIMING_NUM_STALLS];
};

/**
 * struct qpu_timing_stats - a job's modelled time
 * @cycles: V3D cycles from the first program's start to the last one's end
 * @ns: @cycles at the board's V3D clock
 * @sdram_bytes: bytes moved to or from SDRAM
 * @tmu_misses: TMU cache lines missed
 * @l2_misses: L2 lines missed
 * @qpu: per QPU
 */
struct qpu_timing_stats {
	u64 cycles;
	u64 ns;
	u64 sdram_bytes;
	u64 tmu_misses;
	u64 l2_misses;
	struct qpu_timing_qpu_stats qpu[QPU_EMU_NUM_QPUS];
};

struct qpu_timing;

/* Bytes the caller provides for one model (8-byte aligned). */
size_t qpu_timing_size(void);

/* Make @t a model of an idle V3D of @board, caches empty, at cycle 0. */
void qpu_timing_init(struct qpu_timing *t, const struct qpu_timing_board *board);

/*
 * Override parameter @id of the model's copy of its board, before the
 * first qpu_timing_start() (it empties the caches): for the tests that
 * measure each parameter, and for fitting.
 */
void qpu_timing_set_param(struct qpu_timing *t, unsigned int id, u32 value);

/* A program starts on QPU @qpu (as qpu_emu_start() reported it). */
void qpu_timing_start(struct qpu_timing *t, unsigned int qpu, u32 code_addr,
		      u32 unif_addr);

/* qpu_emu_ops.trace: QPU @qpu issues @word at @pc. */
void qpu_timing_issue(struct qpu_timing *t, unsigned int qpu, u32 pc, u64 word);

/* qpu_emu_ops.event: the instruction just issued started a transaction. */
void qpu_timing_event(struct qpu_timing *t, const struct qpu_emu_event *ev);

/*
 * The cycle each QPU's next instruction may issue, by QPU: for
 * qpu_emu_set_clock(), so the emulator runs the QPUs in the model's time
 * order. Valid as long as @t is.
 */
const u64 *qpu_timing_clock(const struct qpu_timing *t);

/* The job's modelled time so far (call when it has ended). */
void qpu_timing_get_stats(const struct qpu_timing *t,
			  struct qpu_timing_stats *stats);

/* @cycles of @board's V3D clock in nanoseconds. */
u64 qpu_timing_cycles_to_ns(const struct qpu_timing_board *board, u64 cycles);

/*
 * The bandwidth the model gives SDRAM, in bytes per microsecond times 100:
 * DDR on a 32-bit bus moves 8 bytes a clock, of which @efficiency_pct
 * percent is reached. The model's own rate and qpu_board_mem_bytes_per_s()
 * both come from here.
 */
static inline u64 qpu_timing_sdram_rate_x100(u32 sdram_mhz, u32 efficiency_pct)
{
	return (u64)sdram_mhz * 8 * efficiency_pct;
}

#endif /* QPU_TIMING_H */
