/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * The V3D 4.2 (Pi 4) and 7.1 (Pi 5) emulator: the QPUs of a board's slices
 * with their hardware threads, the compute shader dispatcher (CSD) and an
 * MMU address space, running machine code as decoded by the V3D codec.
 * Freestanding like VideoCore IV's emulator (core/vc4/qpu_emu.h): no libc,
 * no FPU (floats with integers), nothing allocated (the caller provides
 * qpu_v3d_emu_size() bytes), so that libqpu and a kernel module can both
 * run it. The semantics and where each comes from are in qpu_v3d_emu.c.
 */
#ifndef QPU_V3D_EMU_H
#define QPU_V3D_EMU_H

#include "qpu_fault.h"
#include "qpu_types.h"
#include "v3d/qpu_v3d_isa.h"
#include "v3d/qpu_v3d_codec.h"

#define QPU_V3D_EMU_MAX_QPUS	16	/* 4 slices x 4 QPUs (Pi 5's larger option) */
#define QPU_V3D_EMU_THREADS	4	/* thread slots per QPU */
#define QPU_V3D_EMU_LANES	16
#define QPU_V3D_EMU_EINVAL	22	/* Linux's EINVAL */
#define QPU_V3D_EMU_EBUSY	16	/* Linux's EBUSY */
#define QPU_V3D_EMU_ENOSPC	28	/* Linux's ENOSPC */

/*
 * Boards. The Pi 5's QPU count and clock are published twice, differently:
 * py-videocore7's README gives 3 slices x 4 QPUs at 800 MHz, a debugfs dump
 * of a Pi 5 (v3d ident, quoted in docs/ARCHITECTURE.md "Pi 4/5 facts") 4
 * slices / 16 QPUs at 960 MHz. Both are options; the Pi 4 is 2 x 4 at
 * 500 MHz (py-videocore6, and its measured 500.5 MHz QPU clock).
 */
enum qpu_v3d_emu_board {
	QPU_V3D_EMU_BOARD_PI4,		/* V3D 4.2, 2 x 4 QPUs, 500 MHz */
	QPU_V3D_EMU_BOARD_PI5_3X4,	/* V3D 7.1, 3 x 4 QPUs, 800 MHz */
	QPU_V3D_EMU_BOARD_PI5_4X4,	/* V3D 7.1, 4 x 4 QPUs, 960 MHz */
	QPU_V3D_EMU_BOARD_COUNT
};

/*
 * @csd_raw_batches: the CSD runs cfg[4] batches, not cfg[4] + 1: V3D 7.1
 * from revision 6 on, the Pi 5's BCM2712 (Mesa's v3dx_draw.c and the
 * kernel's v3d_sched.c: "V3D 7.1.6 and later don't subtract 1 from the
 * number of batches"; py-videocore7 writes its thread count there).
 */
struct qpu_v3d_emu_board_info {
	const char *name;
	enum qpu_gen gen;
	u8 slices;
	u8 qpus_per_slice;
	u32 clock_mhz;
	bool csd_raw_batches;
};

/* The board's figures, or NULL for an unknown board. */
const struct qpu_v3d_emu_board_info *
qpu_v3d_emu_board(enum qpu_v3d_emu_board board);

/* --- the MMU: one GPU virtual address space ------------------------------ */

/*
 * As upstream's v3d driver places BOs: at 128 KiB granularity (its
 * GMP_GRANULARITY) in one 32-bit space shared by every job, the first
 * granule (page 0 among it) never mapped. A job may touch only its own
 * BOs unless allow_all is set, which models the hardware's shared space
 * where any mapped BO is reachable.
 */
#define QPU_V3D_MMU_GRANULE	(128u << 10)
#define QPU_V3D_MMU_MAX_BOS	128

struct qpu_v3d_mmu_bo {
	u32 va;
	u32 size;
	u8 *host;
	bool in_job;
};

struct qpu_v3d_mmu {
	struct qpu_v3d_mmu_bo bo[QPU_V3D_MMU_MAX_BOS];	/* sorted by va */
	unsigned int count;
	bool allow_all;
};

void qpu_v3d_mmu_init(struct qpu_v3d_mmu *mmu);
/*
 * Map @size bytes at @host at the lowest free granule-aligned address;
 * *@va gets it. 0, -QPU_V3D_EMU_EINVAL (size 0) or -QPU_V3D_EMU_ENOSPC.
 */
int qpu_v3d_mmu_map(struct qpu_v3d_mmu *mmu, void *host, u32 size, u32 *va);
/* Unmap the BO at @va: 0 or -QPU_V3D_EMU_EINVAL. */
int qpu_v3d_mmu_unmap(struct qpu_v3d_mmu *mmu, u32 va);
/* The next job's BOs: clear the set, then add each by its address. */
void qpu_v3d_mmu_job_clear(struct qpu_v3d_mmu *mmu);
int qpu_v3d_mmu_job_add(struct qpu_v3d_mmu *mmu, u32 va);
/*
 * The host address of @len bytes at @va, or NULL if they are not all in
 * one BO the job may touch.
 */
void *qpu_v3d_mmu_translate(const struct qpu_v3d_mmu *mmu, u32 va, u32 len);

/* --- the compute shader dispatcher ---------------------------------------- */

/* cfg[0..6] as the CSD decodes them (field widths from Mesa's v3d_csd.h). */
struct qpu_v3d_csd {
	u32 wg_count[3];	/* cfg[0..2] bits 31:16 */
	u32 wg_offset[3];	/* cfg[0..2] bits 15:0 */
	u32 wg_size;		/* cfg[3] 7:0, 0 means 256 */
	u32 wgs_per_sg;		/* cfg[3] 11:8, 0 means 16 */
	u32 batches_per_sg;	/* cfg[3] 19:12, plus 1 */
	u32 max_sg_id;		/* cfg[3] 25:20 */
	bool overlap;		/* cfg[3] 26 */
	u32 batches;		/* cfg[4] plus 1, or cfg[4] (raw): what runs */
	u32 code;		/* cfg[5] with the low 3 bits clear */
	bool propagate_nans;	/* cfg[5] bit 2 */
	bool single_seg;	/* cfg[5] bit 1 */
	bool threading;		/* cfg[5] bit 0: 4 threads per QPU, else 2 */
	u32 unif;		/* cfg[6] */
};

/* @raw_batches: the board's csd_raw_batches. */
void qpu_v3d_csd_decode(const u32 cfg[7], bool raw_batches,
			struct qpu_v3d_csd *csd);

/* --- the emulator --------------------------------------------------------- */

/**
 * struct qpu_v3d_emu_ops - optional hooks (qpu-run --trace)
 * @trace: before each instruction a thread issues
 * @trace_write: each register-file (or 4.2 accumulator, @acc) write an ALU
 *	or signal makes, with the lanes the condition let through
 * @tmu: each TMU lookup, before it runs: the lanes' addresses, the lanes
 *	the condition let through, @words of @size bytes each, and whether
 *	it writes (the timing model, core/timing/qpu_timing_v3d.h)
 */
struct qpu_v3d_emu_ops {
	void (*trace)(void *ctx, unsigned int qpu, unsigned int thread, u32 pc,
		      u64 word);
	void (*trace_write)(void *ctx, unsigned int qpu, unsigned int thread,
			    unsigned int waddr, bool acc, const u32 value[16],
			    u16 lanes);
	void (*tmu)(void *ctx, unsigned int qpu, unsigned int thread,
		    const u32 addr[16], u16 lanes, unsigned int words,
		    unsigned int size, bool write);
};

enum qpu_v3d_emu_status {
	QPU_V3D_EMU_IDLE,	/* every batch reached its thread end */
	QPU_V3D_EMU_RUNNING,	/* the budget ran out; call again */
	QPU_V3D_EMU_FAULT,	/* stopped: qpu_v3d_emu_get_fault() */
	QPU_V3D_EMU_DEADLOCK,	/* every live thread waits (describe says on what) */
	QPU_V3D_EMU_LIMIT,	/* a thread ran out of its instruction limit */
};

/* A fault: qpu_fault.h's record plus the thread slot. */
struct qpu_v3d_emu_fault {
	struct qpu_fault f;
	u32 thread;
};

/**
 * struct qpu_v3d_emu_stats - counters since init or the last dispatch
 * @instructions: instructions issued, all threads
 * @cycles: reserved for the timing model to come (0)
 * @thread_switches: thrsw switches taken
 * @batches: batches started
 * @uniforms: uniforms read (ldunif, ldunifrf, tmuau configs, branches)
 * @unifa_reads: words read through the unifa stream
 * @tmu_lookups: TMU general reads (per lane and component)
 * @tmu_writes: TMU general writes and atomics (per lane and word)
 * @tmu_read_bytes: bytes the TMU read
 * @tmu_write_bytes: bytes the TMU wrote
 * @barriers: barriers released
 */
struct qpu_v3d_emu_stats {
	u64 instructions;
	u64 cycles;
	u64 thread_switches;
	u64 batches;
	u64 uniforms;
	u64 unifa_reads;
	u64 tmu_lookups;
	u64 tmu_writes;
	u64 tmu_read_bytes;
	u64 tmu_write_bytes;
	u64 barriers;
};

struct qpu_v3d_emu;

/* Bytes the caller provides for one emulator (8-byte aligned). */
size_t qpu_v3d_emu_size(void);

/* An idle V3D of @board; @mmu and @ops (may be NULL) are kept by reference. */
int qpu_v3d_emu_init(struct qpu_v3d_emu *emu, enum qpu_v3d_emu_board board,
		     struct qpu_v3d_mmu *mmu, const struct qpu_v3d_emu_ops *ops,
		     void *ctx);

/*
 * qpu_v3d_emu_dispatch() - queue a compute dispatch as SUBMIT_CSD's cfg
 * words describe it; qpu_v3d_emu_run() runs it. -QPU_V3D_EMU_EBUSY while
 * one is still running, -QPU_V3D_EMU_EINVAL for a misaligned address.
 */
int qpu_v3d_emu_dispatch(struct qpu_v3d_emu *emu, const u32 cfg[7]);

/*
 * qpu_v3d_emu_start() - start one thread directly on QPU @qpu's slot @slot
 * of a QPU running @threads (1, 2 or 4) threads, with zeroed registers:
 * for tests of the core without the CSD's payload.
 */
int qpu_v3d_emu_start(struct qpu_v3d_emu *emu, unsigned int qpu,
		      unsigned int slot, unsigned int threads, u32 code,
		      u32 unif);

/* Run at most @budget instructions over all threads. */
enum qpu_v3d_emu_status qpu_v3d_emu_run(struct qpu_v3d_emu *emu, u64 budget);

/*
 * qpu_v3d_emu_set_predecode() - the predecode cache and the ALU's fast
 * paths on (the default; off in an EMU_REFERENCE build) or off: the
 * reference path check-reference and fuzz-v3d-emu compare them with.
 * Results are the same either way.
 */
void qpu_v3d_emu_set_predecode(struct qpu_v3d_emu *emu, bool on);

/*
 * qpu_v3d_emu_set_host_float() - the fast paths' fadd, fsub and fmul on
 * the host's float unit where it can (the default), or with integers as
 * the kernel computes them (@on false), for tests. Returns whether the
 * host's unit will be used (this build, this thread's float mode now).
 */
bool qpu_v3d_emu_set_host_float(struct qpu_v3d_emu *emu, bool on);

/* Instructions each thread may issue (0: no bound). */
void qpu_v3d_emu_set_limit(struct qpu_v3d_emu *emu, u64 instructions);

/**
 * qpu_v3d_emu_set_clock() - run the QPUs in the order of a timing model
 * @emu: the emulator
 * @clock: QPU_V3D_EMU_MAX_QPUS cycle counts kept by the caller (the timing
 *	model's qpu_tv_clock(): the cycle each QPU issues its next
 *	instruction), or NULL for round-robin, one instruction each (the
 *	default)
 *
 * With a clock, qpu_v3d_emu_run() runs the ready QPU whose clock is lowest
 * (the lowest index among equals) until it is QPU_V3D_EMU_CLOCK_SLACK
 * cycles past the next one, or a thread starts, switches, ends or waits,
 * so that what the model shares between QPUs (the L2T, the SDRAM, each
 * slice's TMU) is booked in modelled time order, as VideoCore IV's
 * qpu_emu_set_clock() does. Programs without races compute the same either
 * way. qpu_v3d_emu_init() clears it.
 */
#define QPU_V3D_EMU_CLOCK_SLACK	32
void qpu_v3d_emu_set_clock(struct qpu_v3d_emu *emu, const u64 *clock);

const struct qpu_v3d_emu_fault *qpu_v3d_emu_get_fault(const struct qpu_v3d_emu *emu);
const struct qpu_v3d_emu_stats *qpu_v3d_emu_get_stats(const struct qpu_v3d_emu *emu);

/* Register files of qpu_v3d_emu_get_reg(). */
enum qpu_v3d_emu_file {
	QPU_V3D_EMU_FILE_RF,	/* rf0..rf63 */
	QPU_V3D_EMU_FILE_ACC,	/* 4.2: r0..r5 */
};

/* The 16 lanes of a register of a thread; 0 or -QPU_V3D_EMU_EINVAL. */
int qpu_v3d_emu_get_reg(const struct qpu_v3d_emu *emu, unsigned int qpu,
			unsigned int slot, enum qpu_v3d_emu_file file,
			unsigned int reg, u32 out[16]);
/* The a and b flags of a thread, bit i for lane i. */
int qpu_v3d_emu_get_flags(const struct qpu_v3d_emu *emu, unsigned int qpu,
			  unsigned int slot, u16 *a, u16 *b);

/* What a thread slot holds (qpu_v3d_emu_get_thread()). */
enum qpu_v3d_emu_thread_state {
	QPU_V3D_EMU_THREAD_FREE,	/* no batch, or its batch ended */
	QPU_V3D_EMU_THREAD_READY,	/* issuing, or its turn will come */
	QPU_V3D_EMU_THREAD_WAIT_BARRIER, /* arrived at its supergroup's barrier */
	QPU_V3D_EMU_THREAD_WAIT_TMU,	/* ldtmu with nothing queued: forever */
};

/* Thread @slot of QPU @qpu: its state and PC; 0 or -QPU_V3D_EMU_EINVAL. */
int qpu_v3d_emu_get_thread(const struct qpu_v3d_emu *emu, unsigned int qpu,
			   unsigned int slot, enum qpu_v3d_emu_thread_state *state,
			   u32 *pc);

/*
 * One line per live thread (QPU, slot, PC, what it waits on), as a
 * deadlock report; NUL-terminated, truncated to @len; returns the length
 * the whole text needs, as snprintf.
 */
size_t qpu_v3d_emu_describe(const struct qpu_v3d_emu *emu, char *buf,
			    size_t len);

/* --- float semantics (qpu_v3d_emu_float.c), shared with the tests -------- */

u32 qpu_v3d_fadd(u32 a, u32 b);
u32 qpu_v3d_fmul(u32 a, u32 b);
u32 qpu_v3d_fmin(u32 a, u32 b);
u32 qpu_v3d_fmax(u32 a, u32 b);
/* Round to an integral float: 0 nearest even, 1 toward zero, 2 down, 3 up. */
u32 qpu_v3d_fround(u32 a, unsigned int mode);
/* To int32 (saturating, NaN 0) rounding as qpu_v3d_fround()'s @mode. */
u32 qpu_v3d_ftoi(u32 a, unsigned int mode);
/* To uint32 toward zero (negative 0, saturating). */
u32 qpu_v3d_ftouz(u32 a);
u32 qpu_v3d_itof(u32 a);
u32 qpu_v3d_utof(u32 a);
/* The SFU: 1/x, 1/sqrt(x), 2^x, log2(x), sin(pi x). */
u32 qpu_v3d_sfu(unsigned int which, u32 a);
/*
 * 16 lanes: @r[i] = fadd(@a[i], @b[i] ^ @neg) (@neg 0, or 0x80000000 for
 * fsub), @r[i] = fmul(@a[i], @b[i]); @r must not overlap the inputs. With
 * @host on the host's float unit where qpu_v3d_host_float_enter() allows
 * it, else with integers; the same bits either way.
 */
void qpu_v3d_fadd16(const u32 *a, const u32 *b, u32 neg, u32 *r, bool host);
void qpu_v3d_fmul16(const u32 *a, const u32 *b, u32 *r, bool host);
/*
 * The form @host picks now (the integers, the host's 4-lane unit, or
 * AVX-512 where the host has it and qpu_emu_float_simd() allows it), and
 * the same two operations in a form picked before (an emulator's run
 * picks once).
 */
enum qpu_v3d_float_forms {
	QPU_V3D_FLOAT_INT, QPU_V3D_FLOAT_HOST, QPU_V3D_FLOAT_AVX512,
};

unsigned int qpu_v3d_float_form(bool host);
void qpu_v3d_fadd16_form(const u32 *a, const u32 *b, u32 neg, u32 *r,
			 unsigned int form);
void qpu_v3d_fmul16_form(const u32 *a, const u32 *b, u32 *r,
			 unsigned int form);
/*
 * Whether this build and the calling thread's float mode (to nearest, no
 * flush-to-zero, no trap enabled) let the host's float unit compute the
 * 16-lane forms; @saved keeps the status flags, which
 * qpu_v3d_host_float_leave() restores (the host's ops set them).
 */
bool qpu_v3d_host_float_enter(u32 *saved);
void qpu_v3d_host_float_leave(u32 saved);

enum qpu_v3d_sfu_fn {
	QPU_V3D_SFU_RECIP, QPU_V3D_SFU_RSQRT, QPU_V3D_SFU_EXP,
	QPU_V3D_SFU_LOG, QPU_V3D_SFU_SIN, QPU_V3D_SFU_RSQRT2,
};

#endif /* QPU_V3D_EMU_H */
