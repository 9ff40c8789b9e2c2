// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * The V3D timing model's parameters: one table per board, each value with
 * its source. Slices, QPUs, clock and generation are the emulator's
 * (qpu_v3d_emu_board()), not repeated here. "assumed" marks a value no
 * public document gives; CALIBRATION-V3D.md says which are to be fitted
 * to Idein's published figures and how far the model is from them.
 */
#include "qpu_timing_v3d.h"

#define ASSUMED		"assumed: no public document gives it (CALIBRATION-V3D.md)"
#define FITTED		"fitted to py-videocore6/7's published figures (CALIBRATION-V3D.md)"
#define SRC_ISSUE	"py-videocore6 README: peak 32 GFLOPS = 8 QPUs x 500 MHz x " \
			"2 ALUs x 4 lanes a cycle, so 16 lanes take 4 cycles"
#define SRC_THRSW	"Mesa v3d qpu_schedule.c: a switch takes effect after its " \
			"two delay slots, which the emulator issues"
#define SRC_FIFO	"Mesa v3d nir_to_vir.c: 16 TMU output FIFO entries per QPU"
#define SRC_PI4_DRAM	"Raspberry Pi 4 product brief: LPDDR4-3200 SDRAM, 32-bit bus"
#define SRC_PI5_DRAM	"Raspberry Pi 5 product brief: LPDDR4X-4267 SDRAM, 32-bit bus"

/* What no document gives, the same on both generations until fitted. */
#define COMMON_ROWS \
	[QPU_TV_ISSUE_CYCLES] = { 4, SRC_ISSUE }, \
	[QPU_TV_THRSW_CYCLES] = { 0, SRC_THRSW }, \
	[QPU_TV_SFU_CYCLES] = { 8, ASSUMED }, \
	[QPU_TV_TMU_FIFO] = { 16, SRC_FIFO }, \
	[QPU_TV_TMU_HIT_CYCLES] = { 20, FITTED }, \
	[QPU_TV_L1T_BYTES] = { 16384, ASSUMED }, \
	[QPU_TV_L1T_LINE_BYTES] = { 64, ASSUMED }, \
	[QPU_TV_L1T_WAYS] = { 4, ASSUMED }, \
	[QPU_TV_L2T_BYTES] = { 131072, ASSUMED }, \
	[QPU_TV_L2T_LINE_BYTES] = { 64, ASSUMED }, \
	[QPU_TV_L2T_WAYS] = { 8, ASSUMED }, \
	[QPU_TV_L2T_HIT_CYCLES] = { 20, ASSUMED }, \
	[QPU_TV_L2T_WRITE_ALLOCATE] = { 1, FITTED }, \
	[QPU_TV_SDRAM_LATENCY_NS] = { 100, FITTED }, \
	[QPU_TV_CSD_SUBMIT_NS] = { 20000, ASSUMED }, \
	[QPU_TV_BATCH_START_CYCLES] = { 16, ASSUMED }

static const struct qpu_tv_board boards[QPU_V3D_EMU_BOARD_COUNT] = {
	[QPU_V3D_EMU_BOARD_PI4] = {
		.emu = QPU_V3D_EMU_BOARD_PI4,
		.label = "Pi 4 (V3D 4.2, 8 QPUs, 500 MHz)",
		.p = {
			COMMON_ROWS,
			[QPU_TV_TMU_LANE_CYCLES] = { 9, FITTED },
			[QPU_TV_SDRAM_EFFICIENCY] = { 60, FITTED },
			[QPU_TV_SDRAM_MTS] = { 3200, SRC_PI4_DRAM },
			[QPU_TV_SDRAM_BUS_BYTES] = { 4, SRC_PI4_DRAM },
		},
	},
	[QPU_V3D_EMU_BOARD_PI5_3X4] = {
		.emu = QPU_V3D_EMU_BOARD_PI5_3X4,
		.label = "Pi 5 (V3D 7.1, 12 QPUs, 800 MHz)",
		.p = {
			COMMON_ROWS,
			[QPU_TV_TMU_LANE_CYCLES] = { 11, FITTED },
			[QPU_TV_SDRAM_EFFICIENCY] = { 85, FITTED },
			[QPU_TV_SDRAM_MTS] = { 4267, SRC_PI5_DRAM },
			[QPU_TV_SDRAM_BUS_BYTES] = { 4, SRC_PI5_DRAM },
		},
	},
	[QPU_V3D_EMU_BOARD_PI5_4X4] = {
		.emu = QPU_V3D_EMU_BOARD_PI5_4X4,
		.label = "Pi 5 (V3D 7.1, 16 QPUs, 960 MHz)",
		.p = {
			COMMON_ROWS,
			[QPU_TV_TMU_LANE_CYCLES] = { 11, FITTED },
			[QPU_TV_SDRAM_EFFICIENCY] = { 85, FITTED },
			[QPU_TV_SDRAM_MTS] = { 4267, SRC_PI5_DRAM },
			[QPU_TV_SDRAM_BUS_BYTES] = { 4, SRC_PI5_DRAM },
		},
	},
};

static const char *const param_names[QPU_TV_NUM_PARAMS] = {
	[QPU_TV_ISSUE_CYCLES] = "issue_cycles",
	[QPU_TV_THRSW_CYCLES] = "thrsw_cycles",
	[QPU_TV_SFU_CYCLES] = "sfu_cycles",
	[QPU_TV_TMU_FIFO] = "tmu_fifo",
	[QPU_TV_TMU_HIT_CYCLES] = "tmu_hit_cycles",
	[QPU_TV_TMU_LANE_CYCLES] = "tmu_lane_cycles",
	[QPU_TV_L1T_BYTES] = "l1t_bytes",
	[QPU_TV_L1T_LINE_BYTES] = "l1t_line_bytes",
	[QPU_TV_L1T_WAYS] = "l1t_ways",
	[QPU_TV_L2T_BYTES] = "l2t_bytes",
	[QPU_TV_L2T_LINE_BYTES] = "l2t_line_bytes",
	[QPU_TV_L2T_WAYS] = "l2t_ways",
	[QPU_TV_L2T_HIT_CYCLES] = "l2t_hit_cycles",
	[QPU_TV_L2T_WRITE_ALLOCATE] = "l2t_write_allocate",
	[QPU_TV_SDRAM_MTS] = "sdram_mts",
	[QPU_TV_SDRAM_BUS_BYTES] = "sdram_bus_bytes",
	[QPU_TV_SDRAM_EFFICIENCY] = "sdram_efficiency_pct",
	[QPU_TV_SDRAM_LATENCY_NS] = "sdram_latency_ns",
	[QPU_TV_CSD_SUBMIT_NS] = "csd_submit_ns",
	[QPU_TV_BATCH_START_CYCLES] = "batch_start_cycles",
};

static const char *const stall_names[QPU_TV_NUM_STALLS] = {
	[QPU_TV_STALL_TMU] = "tmu",
	[QPU_TV_STALL_TMU_FIFO] = "tmu_fifo",
	[QPU_TV_STALL_SFU] = "sfu",
	[QPU_TV_STALL_THRSW] = "thrsw",
};

const struct qpu_tv_board *qpu_tv_board_get(enum qpu_v3d_emu_board board)
{
	return (unsigned int)board < QPU_V3D_EMU_BOARD_COUNT ? &boards[board] : NULL;
}

u64 qpu_tv_sdram_bytes_per_s(const struct qpu_tv_board *b)
{
	return (u64)b->p[QPU_TV_SDRAM_MTS].value * 1000000 *
	       b->p[QPU_TV_SDRAM_BUS_BYTES].value *
	       b->p[QPU_TV_SDRAM_EFFICIENCY].value / 100;
}

const char *qpu_tv_param_name(unsigned int id)
{
	return id < QPU_TV_NUM_PARAMS ? param_names[id] : NULL;
}

const char *qpu_tv_stall_name(unsigned int stall)
{
	return stall < QPU_TV_NUM_STALLS ? stall_names[stall] : NULL;
}
