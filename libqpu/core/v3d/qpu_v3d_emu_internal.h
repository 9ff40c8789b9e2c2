/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * The V3D emulator's state, shared by its files (qpu_v3d_emu.c: threads,
 * signals, branches, dispatch; qpu_v3d_emu_alu.c: the two ALUs and flags;
 * qpu_v3d_emu_mem.c: the MMU, uniforms and the TMU).
 */
#ifndef QPU_V3D_EMU_INTERNAL_H
#define QPU_V3D_EMU_INTERNAL_H

#include "v3d/qpu_v3d_emu.h"

#define LANES		QPU_V3D_EMU_LANES
#define ALL_LANES	0xffffu
#define TMU_FIFO_MAX	16	/* result vectors per QPU, shared by its threads */
#define TMU_DATA_MAX	8	/* tmud words queued for one lookup */

enum v3d_thread_state {
	T_FREE = QPU_V3D_EMU_THREAD_FREE,
	T_READY = QPU_V3D_EMU_THREAD_READY,
	/* arrived at a workgroup barrier */
	T_WAIT_BARRIER = QPU_V3D_EMU_THREAD_WAIT_BARRIER,
	/* ldtmu with an empty result FIFO: never woken */
	T_WAIT_TMU = QPU_V3D_EMU_THREAD_WAIT_TMU,
};

struct v3d_thread {
	u8 state;
	u8 nregs;		/* 64, or 32 with 4 threads */
	u8 thrsw_left;		/* delay slots before the switch */
	u8 br_left;		/* delay slots before a taken branch */
	u8 sfu_left;		/* 4.2: instructions until sfu_val reaches r4 */
	bool last_thrsw;	/* two thrsw in a row: the next one ends */
	bool ending;		/* the switch pending is the thread end */
	bool thrsw_queued;	/* a thrsw in the last slot of another */
	bool barrier_pending;	/* syncb written: block at the next switch */
	bool br_unif;		/* the taken branch moves the uniforms too */
	u8 tmu_ndata;
	u8 fifo_n;
	u8 fifo_head;
	u32 pc;
	u32 unif;
	u32 unifa;
	u32 link;
	u32 br_target;
	u32 br_unif_addr;
	u32 tmu_cfg;
	u32 group;		/* barrier group: the supergroup */
	u32 tidx;
	u16 fa, fb;		/* flag stacks, bit i = lane i */
	u64 issued;
	u32 sfu_val[LANES];
	u32 rtop[LANES];
	u32 tmu_data[TMU_DATA_MAX][LANES];
	u32 fifo[TMU_FIFO_MAX][LANES];
	u32 acc[6][LANES];
	u32 rf[64][LANES];
};

struct v3d_qpu {
	u8 threads;		/* 1, 2 or 4 of the dispatch */
	u8 cur;			/* the slot issuing */
	struct v3d_thread t[QPU_V3D_EMU_THREADS];
};

struct qpu_v3d_emu;

/* A fast ALU operation on 16 lanes (v3d_alu_fast_pick()). */
typedef void (*v3d_fast_fn)(const struct qpu_v3d_emu *emu,
			    const u32 *__restrict a, const u32 *__restrict b,
			    u32 *__restrict r);

/*
 * A predecoded instruction, by code address. Every fetch still reads the
 * word through the MMU; the entry serves only when the word is the one it
 * was decoded from, so a program that rewrites its code sees the new
 * instructions, and the reference path (predecode off) computes the same.
 */
#define PREDECODE_SIZE	1024	/* entries, direct-mapped by address */

/* Where a fast instruction's ALU writes (struct v3d_predecoded). */
enum { FAST_W_NONE, FAST_W_REG, FAST_W_MAGIC };

/* v3d_predecoded.direct's bit of ALU @alu (0 add, 1 mul), register file size @n. */
#define FAST_DIRECT(alu, n)	(1u << (2 * (alu) + (n)))

/*
 * @fast: step_fast() runs it: a branch, or both ALUs have a handler, no condition,
 * pack or unpack, integer flags only, no signal but small immediates,
 * thrsw, ldtmu and ldunif(rf). Then its operands are byte offsets in
 * struct v3d_thread (@src, by register file size: [0] 64, [1] 32
 * registers) or small immediates' vectors (@imm), its register
 * destinations offsets (@dst).
 */
struct v3d_predecoded {
	u64 word;
	u32 pc;
	u32 sig;	/* qpu_v3d_sig_bits() of the word */
	bool valid;
	bool fast;
	u8 add_w, mul_w;	/* FAST_W_*, when fast */
	bool flags;		/* push or update flags */
	bool branch;		/* a branch: do_branch() */
	bool nop;		/* nothing but the PC moves */
	bool plain;		/* fast ALUs into registers: no flags, no signal */
	u8 mov_magic;		/* only a mov to a magic address: its operand + 1 */
	bool priv;		/* fast, and touches only its thread: deferrable */
	u8 walk;		/* priv and a branch, ldtmu or tmud (lag_start()) */
	u8 tmud_n;		/* tmud-type writes it queues, when priv */
	/*
	 * From here with no delay slot pending: how many priv instructions
	 * follow in a row (this one included), their ldtmu and tmud writes,
	 * as found in code epoch @run_epoch (lag_static()).
	 */
	u8 run, run_ldtmu, run_tmud;
	u32 run_epoch;
	u8 add_need, mul_need;	/* the flags each ALU's pf/uf read: z 1, n 2, c 4 */
	u8 direct;	/* FAST_DIRECT(alu, n): the result straight to its register */
	v3d_fast_fn add_fn, mul_fn;
	const u32 *imm[4];	/* add a, add b, mul a, mul b */
	u16 src[2][4];
	u16 dst[2][2];		/* add, mul; by register file size */
	bool ldtmu_direct;	/* ldtmu into a register, no magic ALU write */
	u16 sig_dst[2];		/* then its offset, by register file size */
	struct qpu_v3d_instr in;
};

/*
 * A QPU's deferred turns (qpu_v3d_emu.c, "deferred turns"): instructions
 * whose turn came and went, to run before the QPU does anything else.
 */
#define LAG_MAX		32

struct v3d_lag {
	u8 n;		/* turns taken and not run yet */
	u8 cap;		/* turns the walk checked */
	u8 slot;	/* the thread they belong to */
};

#define STALE_MAX	64	/* TMU-written words the uniform cache hides */
#define STALE_HINTS	64	/* a filter of stale[]'s addresses */
#define UNIF_LINES_MAX	32	/* uniform lines a job's streams read */
#define UNIF_LINE_SHIFT	6	/* 64-byte lines */

struct qpu_v3d_emu {
	const struct qpu_v3d_emu_board_info *board;
	enum qpu_gen gen;
	unsigned int nqpus;
	struct qpu_v3d_mmu *mmu;
	const struct qpu_v3d_mmu_bo *last_bo;	/* v3d_translate()'s, or NULL */
	const struct qpu_v3d_emu_ops *ops;
	void *ctx;
	u64 limit;
	enum qpu_v3d_emu_status stop;	/* RUNNING while not stopped */
	struct qpu_v3d_emu_fault fault;
	struct qpu_v3d_emu_stats stats;
	bool csd_active;
	bool slot_freed;	/* a thread ended: csd_fill() may start batches */
	struct qpu_v3d_csd csd;
	u32 next_batch;
	bool predecode;
	bool host_float_ok;	/* qpu_v3d_emu_set_host_float() */
	bool host_float;	/* this run computes floats on the host */
	u8 float_form;		/* qpu_v3d_float_form(host_float) */
	u8 pre_form;		/* the float_form of the entries in pre[] */
	const u64 *clock;	/* qpu_v3d_emu_set_clock(), or NULL */
	bool resched;		/* a thread started, switched or woke */
	unsigned int pick;	/* the QPU the clock chose */
	u64 pick_bound;		/* its clock when the choice ends */
	unsigned int stale_n;
	struct {
		u32 va;
		u32 old;
	} stale[STALE_MAX];
	unsigned int unif_lines_n;
	u32 unif_last;		/* the line last read, + 1 (0: none) */
	u32 unif_lo, unif_hi;	/* the lowest and highest line read */
	u32 unif_line[UNIF_LINES_MAX];
	struct v3d_qpu q[QPU_V3D_EMU_MAX_QPUS];
	struct v3d_predecoded pre[PREDECODE_SIZE];
	u32 smimm[QPU_V3D_SMALL_IMMS][LANES];	/* the small immediates, splat */
	/* the BO the last instruction was fetched from: its va, host, size - 7 */
	u32 code_va, code_len;
	const u8 *code_host;
	bool hook_writes;	/* ops->trace_write: no fast path */
	bool hook_trace;	/* ops->trace */
	bool fast_run;		/* predecode on, no trace_write hook */
	u32 stale_hint[STALE_HINTS];	/* words in stale[] (0: none), by address */
	/* a TMU write's 16 words, all in stale[] while @noted_ok (tmu_word32()) */
	bool noted_ok;
	u32 noted_at[LANES];
	bool defer;		/* this run defers turns: fast, no hook, no clock */
	unsigned int lag_count;	/* QPUs with deferred turns */
	/*
	 * Changes whenever code may have: a run starts, an entry is
	 * replaced, the TMU writes between @pre_lo and @pre_hi, the lowest
	 * and highest address predecoded (lo > hi: none).
	 */
	u32 code_epoch;
	u32 pre_lo, pre_hi;
	struct v3d_lag lag[QPU_V3D_EMU_MAX_QPUS];
};

/* One instruction's ALU work, before its writes land. */
struct v3d_alu_out {
	u32 v[LANES];
	u16 lanes;		/* the condition's lanes */
	bool writes;
	bool flags;		/* set by the caller: z, n, c are used */
	u16 z, n, c;		/* flag inputs of pushes and updates */
};

/*
 * qpu_v3d_emu.c: an instruction the fast path does not take (or one not
 * predecoded yet), fetched, decoded and run field by field: the reference
 * path. Not static, so that the compiler keeps it out of line and the
 * fast path saves no registers for it.
 */
void v3d_step_general(struct qpu_v3d_emu *emu, unsigned int qpu,
		      unsigned int slot);

/*
 * A TMU write of [@va, @va + @len): code it may change is fetched again
 * (v3d_code_changed()), at every turn not taken yet.
 */
void v3d_code_changed(struct qpu_v3d_emu *emu);

static inline void v3d_code_write(struct qpu_v3d_emu *emu, u32 va, u32 len)
{
	if ((u64)va + len > emu->pre_lo && va < (u64)emu->pre_hi + 8)
		v3d_code_changed(emu);
}

void v3d_emu_set_fault(struct qpu_v3d_emu *emu, unsigned int qpu,
		       unsigned int slot, enum qpu_fault_reason why,
		       u32 addr, enum qpu_mem_access kind);

/* qpu_v3d_emu_float.c: the fast handler of a float op in form @form */
enum v3d_float_op { V3D_FADD, V3D_FSUB, V3D_FMUL };
v3d_fast_fn v3d_float_fast(enum v3d_float_op op, unsigned int form);

/* qpu_v3d_emu_alu.c */
void v3d_alu_add(struct qpu_v3d_emu *emu, struct v3d_thread *t,
		 const struct qpu_v3d_instr *in, const u32 *a, const u32 *b,
		 struct v3d_alu_out *o, bool *bad);
void v3d_alu_mul(struct qpu_v3d_emu *emu, struct v3d_thread *t,
		 const struct qpu_v3d_instr *in, const u32 *a, const u32 *b,
		 struct v3d_alu_out *o, bool *bad);
/*
 * The fast handlers of @in's ALUs when both have one and neither has a
 * condition, pack or unpack, nor flags but of an integer op
 * v3d_fast_flags() computes.
 */
bool v3d_alu_fast_pick(const struct qpu_v3d_instr *in, v3d_fast_fn *add,
		       v3d_fast_fn *mul);
/* @fn, or its float op's handler in form @form (for a run's entries). */
v3d_fast_fn v3d_fast_form(v3d_fast_fn fn, unsigned int form);
/*
 * The z, n and c inputs of @o (those in @need: bit 0 z, 1 n, 2 c) for
 * handler @fn's result @r of @a, @b.
 */
void v3d_fast_flags(v3d_fast_fn fn, unsigned int need, const u32 *a,
		    const u32 *b, const u32 *r, struct v3d_alu_out *o);
u16 v3d_cond_lanes(const struct v3d_thread *t, unsigned int cond);
void v3d_flags_apply(struct v3d_thread *t, unsigned int pf, unsigned int uf,
		     const struct v3d_alu_out *o);

/* qpu_v3d_emu_mem.c */
void *v3d_translate(struct qpu_v3d_emu *emu, u32 va, u32 len);
bool v3d_read_unif(struct qpu_v3d_emu *emu, unsigned int qpu,
		   unsigned int slot, u32 *addr, u32 *val);
bool v3d_tmu_lookup(struct qpu_v3d_emu *emu, unsigned int qpu,
		    unsigned int slot, const u32 *addr, u16 lanes);

#endif /* QPU_V3D_EMU_INTERNAL_H */
