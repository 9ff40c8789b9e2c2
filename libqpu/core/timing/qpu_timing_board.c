// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * The timing model's parameters: one table per board, each value with its
 * source. "guide" is Broadcom's VideoCore IV 3D Architecture Reference
 * Guide (VideoCoreIV-AG100-R, 2013), by section; "rpi-docs" is the
 * Raspberry Pi documentation's table of config.txt clock defaults
 * (computers/config_txt/overclocking.adoc); "fitted" values were fitted to
 * GPU_FFT 3.0's published Pi 1 times (CALIBRATION.md says how, on which
 * sizes, and how well every size then agrees; on the other boards they
 * are the Pi 1's, extrapolated); "assumed" marks a value no document
 * gives and the fit could not tell apart from its neighbours.
 * Only the Pi 1 has published times: the other boards take the Pi 1's
 * fitted and assumed values (those that are times, as times, at their own
 * clocks) and are labelled extrapolated. Frozen with the calibration:
 * change a value only with a new calibration report.
 */
#include "qpu_timing.h"
#include "qpu_isa.h"

#define FITTED		"fitted to the Pi 1's GPU_FFT times (CALIBRATION.md)"
#define ASSUMED		"assumed: no document gives it"

/* The documented values' sources, by section. */
#define SRC_ISSUE	"guide s2 (Overview): 4-way SIMD multiplexed over 4 cycles"
#define SRC_REGFILE	"guide s3 (Register File): a write reads back 2 instructions on"
#define SRC_SFU		"guide s3 (SFU): r4 holds it 2 instructions on (rule sfu-r4)"
#define SRC_VPM		"guide s7 (VPM generic read): rule vpm-read-latency"
#define SRC_THRSW	"guide s3 (Thread control): a user program has one thread"
#define SRC_FIFO	"guide s4 (TMU): request FIFO; depth 4 as in qpu_isa.h"
#define SRC_MAILBOX	"GPU_FFT 3.0 gpu_fft.txt (Throughput): the mailbox adds 100 us"
#define SRC_L2		"BCM2835 overview (hermanhermitage wiki): 128 KiB, 4-way"
#define SRC_L2_2837	"assumed: the BCM2835's VideoCore IV L2; GPU_FFT 3.0's " \
			"gpu_fft_base.c bypasses it on Pi 2/3 (the 0xC alias)"
#define SRC_CLOCKS	"rpi-docs: v3d_freq and sdram_freq defaults of the board"
#define SRC_QUC		"guide s2 (block diagram), V3D_SLCACTL UCCS, V3D_PCTRS 22-23: " \
			"a uniforms cache per slice, shared by its QPUs; its size: assumed"
#define SRC_QUC_AHEAD	"assumed; the guide's unif_addr latency (rule unif-addr-latency) " \
			"shows the stream is fetched ahead of its reads, not how far"

/* A time in ns at a V3D clock of @mhz, in cycles. */
#define NS_CYCLES(ns, mhz)	((ns) * (mhz) / 1000)

/*
 * The Pi 1's fitted times, in ns where they are times (so that the other
 * boards keep them at their own clocks) and in cycles where they are work
 * of the V3D itself. The VCD's and the TMU's work per word is what the
 * emulator charges a job's budget (qpu_emu.h), kept there once.
 */
#define FIT_TMU_HIT_CYCLES	24
#define FIT_TMU_LANE_CYCLES	QPU_EMU_TMU_LANE_CYCLES
#define FIT_L2_HIT_CYCLES	20
#define FIT_SDRAM_LATENCY_NS	250
#define FIT_SDRAM_EFFICIENCY	21
#define FIT_DMA_SETUP_CYCLES	QPU_EMU_DMA_SETUP_CYCLES
#define FIT_DMA_ROW_CYCLES	QPU_EMU_DMA_ROW_CYCLES
#define FIT_DMA_BYTES_PER_CYCLE	QPU_EMU_DMA_BYTES_PER_CYCLE
#define FIT_LAUNCH_DIRECT_NS	10500
#define FIT_QPU_START_CYCLES	16
#define FIT_TMU_LINE_BYTES	32
#define FIT_SDRAM_PAGE_MISS_BYTES	0
#define FIT_L2_RANDOM		1

/* What the ISA fixes: the same on every board. */
#define QPU_ROWS \
	[QPU_TP_ISSUE_CYCLES] = { QPU_EMU_ISSUE_CYCLES, SRC_ISSUE }, \
	[QPU_TP_REGFILE_LATENCY] = { QPU_ISA_REGFILE_LATENCY, SRC_REGFILE }, \
	[QPU_TP_SFU_LATENCY] = { QPU_ISA_SFU_LATENCY, SRC_SFU }, \
	[QPU_TP_VPM_READ_LATENCY] = { QPU_ISA_VPM_READ_LATENCY, SRC_VPM }, \
	[QPU_TP_THRSW_CYCLES] = { 0, SRC_THRSW }, \
	[QPU_TP_TMU_FIFO] = { QPU_ISA_TMU_FIFO_DEPTH, SRC_FIFO }, \
	[QPU_TP_ICACHE_BYTES] = { 4096, ASSUMED }, \
	[QPU_TP_ICACHE_LINE_BYTES] = { 64, ASSUMED }, \
	[QPU_TP_UNIF_LINE_BYTES] = { 64, ASSUMED }, \
	[QPU_TP_UNIF_CACHE_BYTES] = { 1024, SRC_QUC }, \
	[QPU_TP_UNIF_WAYS] = { 4, ASSUMED }, \
	[QPU_TP_UNIF_PREFETCH] = { 1, SRC_QUC_AHEAD }, \
	[QPU_TP_TMU_CACHE_BYTES] = { 4096, ASSUMED }, \
	[QPU_TP_TMU_WAYS] = { 4, ASSUMED }, \
	[QPU_TP_LAUNCH_MAILBOX_NS] = { 100000, SRC_MAILBOX }, \
	[QPU_TP_LAUNCH_IOCTL_NS] = { 20000, ASSUMED }, \
	[QPU_TP_SDRAM_PAGE_BYTES] = { 2048, ASSUMED }

/*
 * The fitted values at a V3D clock of @mhz: the Pi 1's own, the other
 * boards' extrapolated from it (qpu_timing_board.extrapolated).
 */
#define FIT_ROWS(mhz) \
	[QPU_TP_TMU_HIT_CYCLES] = { FIT_TMU_HIT_CYCLES, FITTED }, \
	[QPU_TP_TMU_LANE_CYCLES] = { FIT_TMU_LANE_CYCLES, FITTED }, \
	[QPU_TP_TMU_LINE_BYTES] = { FIT_TMU_LINE_BYTES, FITTED }, \
	[QPU_TP_L2_HIT_CYCLES] = { FIT_L2_HIT_CYCLES, FITTED }, \
	[QPU_TP_SDRAM_LATENCY] = { NS_CYCLES(FIT_SDRAM_LATENCY_NS, mhz), FITTED }, \
	[QPU_TP_SDRAM_EFFICIENCY] = { FIT_SDRAM_EFFICIENCY, FITTED }, \
	[QPU_TP_DMA_SETUP_CYCLES] = { FIT_DMA_SETUP_CYCLES, FITTED }, \
	[QPU_TP_DMA_ROW_CYCLES] = { FIT_DMA_ROW_CYCLES, FITTED }, \
	[QPU_TP_DMA_BYTES_PER_CYCLE] = { FIT_DMA_BYTES_PER_CYCLE, FITTED }, \
	[QPU_TP_LAUNCH_DIRECT_NS] = { FIT_LAUNCH_DIRECT_NS, FITTED }, \
	[QPU_TP_QPU_START_CYCLES] = { FIT_QPU_START_CYCLES, FITTED }, \
	[QPU_TP_SDRAM_PAGE_MISS_BYTES] = { FIT_SDRAM_PAGE_MISS_BYTES, FITTED }, \
	[QPU_TP_L2_RANDOM] = { FIT_L2_RANDOM, FITTED }

/*
 * Pi 2 and 3: the same L2, which GPU_FFT and qpu.ko bypass there (their
 * buffers at the 0xC alias, so the model's L2 sees none of their lines).
 */
#define L2_2837_ROWS \
	[QPU_TP_L2_BYTES] = { 131072, SRC_L2_2837 }, \
	[QPU_TP_L2_LINE_BYTES] = { 32, ASSUMED }, \
	[QPU_TP_L2_WAYS] = { 4, SRC_L2_2837 }

static const struct qpu_timing_board boards[QPU_TIMING_NUM_BOARDS] = {
	[QPU_TIMING_PI1] = {
		.name = "pi1",
		.label = "Pi 1/Zero",
		.ram_alias = QPU_TIMING_ALIAS_L2,	/* bcm2835.dtsi dma-ranges */
		.p = {
			[QPU_TP_V3D_MHZ] = { 250, SRC_CLOCKS },
			[QPU_TP_SDRAM_MHZ] = { 400, SRC_CLOCKS },
			[QPU_TP_L2_BYTES] = { 131072, SRC_L2 },
			[QPU_TP_L2_LINE_BYTES] = { 32, ASSUMED },
			[QPU_TP_L2_WAYS] = { 4, SRC_L2 },
			QPU_ROWS,
			FIT_ROWS(250),
		},
	},
	[QPU_TIMING_PI2] = {
		.name = "pi2",
		.label = "Pi 2 (extrapolated)",
		.extrapolated = true,
		.ram_alias = QPU_TIMING_ALIAS_DIRECT,	/* bcm2836/7.dtsi */
		.p = {
			[QPU_TP_V3D_MHZ] = { 250, SRC_CLOCKS },
			[QPU_TP_SDRAM_MHZ] = { 450, SRC_CLOCKS },
			L2_2837_ROWS,
			QPU_ROWS,
			FIT_ROWS(250),
		},
	},
	[QPU_TIMING_PI3] = {
		.name = "pi3",
		.label = "Pi 3 (extrapolated)",
		.extrapolated = true,
		.ram_alias = QPU_TIMING_ALIAS_DIRECT,	/* bcm2836/7.dtsi */
		.p = {
			[QPU_TP_V3D_MHZ] = { 300, SRC_CLOCKS },
			[QPU_TP_SDRAM_MHZ] = { 450, SRC_CLOCKS },
			L2_2837_ROWS,
			QPU_ROWS,
			FIT_ROWS(300),
		},
	},
	[QPU_TIMING_PI3PLUS] = {
		.name = "pi3plus",
		.label = "Pi 3B+ (extrapolated)",
		.extrapolated = true,
		.ram_alias = QPU_TIMING_ALIAS_DIRECT,	/* bcm2836/7.dtsi */
		.p = {
			[QPU_TP_V3D_MHZ] = { 300, SRC_CLOCKS },
			[QPU_TP_SDRAM_MHZ] = { 500, SRC_CLOCKS },
			L2_2837_ROWS,
			QPU_ROWS,
			FIT_ROWS(300),
		},
	},
};

static const char *const param_names[QPU_TIMING_NUM_PARAMS] = {
	[QPU_TP_V3D_MHZ] = "v3d_mhz",
	[QPU_TP_SDRAM_MHZ] = "sdram_mhz",
	[QPU_TP_ISSUE_CYCLES] = "issue_cycles",
	[QPU_TP_REGFILE_LATENCY] = "regfile_latency",
	[QPU_TP_SFU_LATENCY] = "sfu_latency",
	[QPU_TP_VPM_READ_LATENCY] = "vpm_read_latency",
	[QPU_TP_THRSW_CYCLES] = "thrsw_cycles",
	[QPU_TP_TMU_FIFO] = "tmu_fifo",
	[QPU_TP_TMU_HIT_CYCLES] = "tmu_hit_cycles",
	[QPU_TP_TMU_LANE_CYCLES] = "tmu_lane_cycles",
	[QPU_TP_TMU_CACHE_BYTES] = "tmu_cache_bytes",
	[QPU_TP_TMU_LINE_BYTES] = "tmu_line_bytes",
	[QPU_TP_TMU_WAYS] = "tmu_ways",
	[QPU_TP_L2_BYTES] = "l2_bytes",
	[QPU_TP_L2_LINE_BYTES] = "l2_line_bytes",
	[QPU_TP_L2_WAYS] = "l2_ways",
	[QPU_TP_L2_HIT_CYCLES] = "l2_hit_cycles",
	[QPU_TP_ICACHE_BYTES] = "icache_bytes",
	[QPU_TP_ICACHE_LINE_BYTES] = "icache_line_bytes",
	[QPU_TP_UNIF_LINE_BYTES] = "unif_line_bytes",
	[QPU_TP_DMA_SETUP_CYCLES] = "dma_setup_cycles",
	[QPU_TP_DMA_ROW_CYCLES] = "dma_row_cycles",
	[QPU_TP_DMA_BYTES_PER_CYCLE] = "dma_bytes_per_cycle",
	[QPU_TP_SDRAM_LATENCY] = "sdram_latency_cycles",
	[QPU_TP_SDRAM_EFFICIENCY] = "sdram_efficiency_pct",
	[QPU_TP_LAUNCH_IOCTL_NS] = "launch_ioctl_ns",
	[QPU_TP_LAUNCH_DIRECT_NS] = "launch_direct_ns",
	[QPU_TP_LAUNCH_MAILBOX_NS] = "launch_mailbox_ns",
	[QPU_TP_QPU_START_CYCLES] = "qpu_start_cycles",
	[QPU_TP_SDRAM_PAGE_BYTES] = "sdram_page_bytes",
	[QPU_TP_SDRAM_PAGE_MISS_BYTES] = "sdram_page_miss_bytes",
	[QPU_TP_L2_RANDOM] = "l2_random",
	[QPU_TP_UNIF_CACHE_BYTES] = "unif_cache_bytes",
	[QPU_TP_UNIF_WAYS] = "unif_ways",
	[QPU_TP_UNIF_PREFETCH] = "unif_prefetch_lines",
};

static const char *const stall_names[QPU_TIMING_NUM_STALLS] = {
	[QPU_TIMING_STALL_REGFILE] = "regfile",
	[QPU_TIMING_STALL_SFU] = "sfu",
	[QPU_TIMING_STALL_TMU] = "tmu",
	[QPU_TIMING_STALL_TMU_FIFO] = "tmu_fifo",
	[QPU_TIMING_STALL_VPM] = "vpm",
	[QPU_TIMING_STALL_DMA] = "dma",
	[QPU_TIMING_STALL_SEMAPHORE] = "semaphore",
	[QPU_TIMING_STALL_MUTEX] = "mutex",
	[QPU_TIMING_STALL_FETCH] = "fetch",
	[QPU_TIMING_STALL_UNIFORM] = "uniform",
	[QPU_TIMING_STALL_THRSW] = "thrsw",
};

const struct qpu_timing_board *qpu_timing_board_get(unsigned int id)
{
	return id < QPU_TIMING_NUM_BOARDS ? &boards[id] : NULL;
}

static bool str_eq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

const struct qpu_timing_board *qpu_timing_board_find(const char *name)
{
	unsigned int i;

	for (i = 0; name && i < QPU_TIMING_NUM_BOARDS; i++)
		if (str_eq(boards[i].name, name))
			return &boards[i];
	return NULL;
}

const char *qpu_timing_param_name(unsigned int id)
{
	return id < QPU_TIMING_NUM_PARAMS ? param_names[id] : NULL;
}

const char *qpu_timing_stall_name(unsigned int stall)
{
	return stall < QPU_TIMING_NUM_STALLS ? stall_names[stall] : NULL;
}
