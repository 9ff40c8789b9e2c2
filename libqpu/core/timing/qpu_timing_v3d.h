/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * The V3D 4.2 (Pi 4) and 7.1 (Pi 5) timing model: how many cycles a job
 * of the V3D emulator (core/v3d/qpu_v3d_emu.h) would take on a board, and
 * where its threads stalled. Like VideoCore IV's model (qpu_timing.h) it
 * rides on the emulator's hooks (qpu_v3d_emu_ops.trace for every
 * instruction, qpu_v3d_emu_ops.tmu for every TMU lookup), so results never
 * depend on it. Userspace only, freestanding, integers only.
 *
 * Each QPU keeps its own clock; each thread its TMU results' arrival
 * times, so a thread switch hides a lookup's latency behind the other
 * threads' instructions as the hardware does. Shared units (each slice's
 * TMU and L1T cache, the L2T, the SDRAM) are booked "busy until", so the
 * emulator must run the QPUs in the model's time order:
 * qpu_v3d_emu_set_clock(emu, qpu_tv_clock(model)). (Round-robin, one
 * instruction each, lets a QPU whose clock ran ahead book the SDRAM before
 * others that come earlier in modelled time.)
 * Every parameter lives once, in the table of qpu_timing_v3d_board.c.
 */
#ifndef QPU_TIMING_V3D_H
#define QPU_TIMING_V3D_H

#include "v3d/qpu_v3d_emu.h"

/* The model's parameters, one value per board. */
enum qpu_tv_param_id {
	QPU_TV_ISSUE_CYCLES,	/* cycles per instruction (16 lanes, 4-wide) */
	QPU_TV_THRSW_CYCLES,	/* a thread switch beyond its delay slots */
	QPU_TV_SFU_CYCLES,	/* SFU busy per operation, per QPU */
	QPU_TV_TMU_FIFO,	/* lookups in flight per QPU */
	QPU_TV_TMU_HIT_CYCLES,	/* request to result on an L1T hit */
	QPU_TV_TMU_LANE_CYCLES,	/* slice TMU occupancy per distinct line */
	QPU_TV_L1T_BYTES,	/* the TMU's L1 cache, per slice */
	QPU_TV_L1T_LINE_BYTES,
	QPU_TV_L1T_WAYS,
	QPU_TV_L2T_BYTES,	/* the L2T cache shared by the slices */
	QPU_TV_L2T_LINE_BYTES,
	QPU_TV_L2T_WAYS,
	QPU_TV_L2T_HIT_CYCLES,	/* an L1T miss that hits in the L2T */
	QPU_TV_L2T_WRITE_ALLOCATE, /* 1: a written line missed is read first */
	QPU_TV_SDRAM_MTS,	/* SDRAM transfers per microsecond */
	QPU_TV_SDRAM_BUS_BYTES,	/* bytes per transfer */
	QPU_TV_SDRAM_EFFICIENCY, /* percent of the peak a stream reaches */
	QPU_TV_SDRAM_LATENCY_NS, /* an L2T miss to its data */
	QPU_TV_CSD_SUBMIT_NS,	/* SUBMIT_CSD ioctl to the first batch */
	QPU_TV_BATCH_START_CYCLES, /* the CSD starting one batch */
	QPU_TV_NUM_PARAMS,
};

/**
 * struct qpu_tv_param - one parameter of one board
 * @value: its value, in the unit enum qpu_tv_param_id names
 * @source: a public source, or "fitted"/"assumed" (CALIBRATION-V3D.md)
 */
struct qpu_tv_param {
	u32 value;
	const char *source;
};

/**
 * struct qpu_tv_board - one board: the emulator's board (slices, QPUs,
 * clock and generation come from qpu_v3d_emu_board()) and its parameters
 * @emu: the emulator's board
 * @name: "pi4", "pi5", "pi5-16" (the emulator board's name)
 * @label: for people
 * @p: indexed by enum qpu_tv_param_id
 */
struct qpu_tv_board {
	enum qpu_v3d_emu_board emu;
	const char *label;
	struct qpu_tv_param p[QPU_TV_NUM_PARAMS];
};

/* The board of the emulator's @board, or NULL. */
const struct qpu_tv_board *qpu_tv_board_get(enum qpu_v3d_emu_board board);

/*
 * The SDRAM bytes a second the model lets @b's clients move together:
 * transfers x bus bytes x the fitted efficiency.
 */
u64 qpu_tv_sdram_bytes_per_s(const struct qpu_tv_board *b);

/* The parameter's name for people ("sdram_latency_ns"), or NULL. */
const char *qpu_tv_param_name(unsigned int id);

/* Why a thread did not issue in a cycle it could have. */
enum qpu_tv_stall {
	QPU_TV_STALL_TMU,	/* ldtmu before the lookup returned */
	QPU_TV_STALL_TMU_FIFO,	/* FIFO full, or a write behind the last */
	QPU_TV_STALL_SFU,	/* an SFU operation with the SFU busy */
	QPU_TV_STALL_THRSW,	/* thread switches */
	QPU_TV_NUM_STALLS,
};

const char *qpu_tv_stall_name(unsigned int stall);

/**
 * struct qpu_tv_qpu_stats - one QPU's modelled time
 * @end: the cycle after its last instruction
 * @instructions: instructions its threads issued
 * @stall: cycles it could not issue, by cause
 */
struct qpu_tv_qpu_stats {
	u64 end;
	u64 instructions;
	u64 stall[QPU_TV_NUM_STALLS];
};

/**
 * struct qpu_tv_stats - a job's modelled time
 * @cycles: V3D cycles from the first batch's start to the last QPU's end
 * @ns: @cycles at the board's clock plus the SUBMIT_CSD cost
 * @sdram_bytes: bytes moved to or from SDRAM
 * @l1t_misses: L1T lines missed
 * @l2t_misses: L2T lines missed
 * @qpu: per QPU
 */
struct qpu_tv_stats {
	u64 cycles;
	u64 ns;
	u64 sdram_bytes;
	u64 l1t_misses;
	u64 l2t_misses;
	struct qpu_tv_qpu_stats qpu[QPU_V3D_EMU_MAX_QPUS];
};

struct qpu_tv;

/* Bytes the caller provides for one model (8-byte aligned). */
size_t qpu_tv_size(void);

/* An idle V3D of @board, caches empty, at cycle 0. */
void qpu_tv_init(struct qpu_tv *t, const struct qpu_tv_board *board);

/* Override parameter @id (tests, fitting), before the job runs. */
void qpu_tv_set_param(struct qpu_tv *t, unsigned int id, u32 value);

/*
 * The hooks: set ops.trace = qpu_tv_trace and ops.tmu = qpu_tv_tmu with
 * the model as their context.
 */
void qpu_tv_trace(void *ctx, unsigned int qpu, unsigned int thread, u32 pc,
		  u64 word);
void qpu_tv_tmu(void *ctx, unsigned int qpu, unsigned int thread,
		const u32 addr[16], u16 lanes, unsigned int words,
		unsigned int size, bool write);

/*
 * Each QPU's clock, QPU_V3D_EMU_MAX_QPUS of them, for
 * qpu_v3d_emu_set_clock(); valid as long as the model.
 */
const u64 *qpu_tv_clock(const struct qpu_tv *t);

/* The job's modelled time so far. */
void qpu_tv_get_stats(const struct qpu_tv *t, struct qpu_tv_stats *stats);

#endif /* QPU_TIMING_V3D_H */
