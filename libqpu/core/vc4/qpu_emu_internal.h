/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * The emulator's state and what its files share, one file per concern:
 * qpu_emu.c (the scheduler, semaphores and mutex, fetch and predecode,
 * load immediates and branches, the API), qpu_emu_alu.c (operands, the
 * add and mul units), qpu_emu_regs.c (register writes), qpu_emu_flags.c
 * (condition flags), qpu_emu_tmu.c (TMU lookups), qpu_emu_mem.c (faults
 * and memory windows) and qpu_emu_vpm.c (the VPM's generic accesses and
 * VCD DMA). The few helpers of the hot path that cross files are inline
 * here. Private to the core: callers use qpu_emu.h.
 */
#ifndef QPU_EMU_INTERNAL_H
#define QPU_EMU_INTERNAL_H

#include "qpu_isa.h"
#include "qpu_emu.h"

#define LANES			16
#define ALL_LANES		0xffffu
#define TMU_FIFO_DEPTH		QPU_ISA_TMU_FIFO_DEPTH
#define TMU_LATENCY		10	/* instructions, for stall_tmu only */
#define OP_CACHE_ENTRIES	1024	/* predecoded instructions, a power of 2 */
#define FETCH_WINDOW		4096	/* bytes translate() is asked for at once */
#define WIN_LEVELS		3	/* data window sizes tried before 64 bytes */

struct qpu_emu_vpm_setup {
	u32 addr;
	u32 stride;
	u32 left;		/* vectors still to read */
	u32 size;		/* 0 8-bit, 1 16-bit, 2 32-bit */
	bool laned;		/* 8/16-bit: one byte/halfword lane per word */
	bool horiz;
};

struct qpu_emu_result {
	u32 v[LANES];
	s64 wide[LANES];
	u16 mask;		/* lanes whose condition holds */
	bool is_mul;
	bool is_float;
};

/* qpu_emu_exec_alu()'s vectors, kept off the (kernel) stack. */
struct qpu_emu_alu_scratch {
	u32 ra[LANES], rb[LANES];
	u32 aa[LANES], ab[LANES], ma[LANES], mb[LANES];
};

/*
 * A range of memory translate() granted for one kind of access, trusted
 * until qpu_emu_run() returns. @refused[i] is 1 + the region of the i-th
 * window size (1 MiB, 64 KiB, 4 KiB) whose window translate() refused in
 * this run (0: none): the next size is tried there directly, and where
 * every size was refused words are read one at a time, as without a window.
 */
struct qpu_emu_win {
	u8 *p;
	u32 addr, len;
	u32 refused[WIN_LEVELS];
};

/*
 * One QPU: its scalars, then its vectors, which all start on cache lines
 * (see emu_qpu()); @ra must stay the first vector.
 */
struct qpu_emu_qpu {
	enum qpu_emu_qpu_state state;
	u32 pc;
	u32 unif;
	u16 zf, nf, cf;		/* the flags before the pending setf */
	u16 flag_mask;		/* lanes of the pending setf, 0 if none */
	u16 flag_c;		/* ... its carries */
	bool flag_float;	/* ... and whether its result is a float */
	u32 br_target;
	u8 br_left;		/* instructions to the branch, 0 if none */
	u8 end_left;		/* instructions to the thread end, 0 if none */
	u8 wait_sem;		/* semaphore of QPU_EMU_QPU_WAIT_SEM */
	bool wait_acquire;	/* ... and whether to acquire it */
	u64 wait_word;		/* ... the instruction's word: see sem_blocks_again() */
	u8 sfu_left;		/* instructions until sfu_val reaches r4 */
	u8 tmu_head[2], tmu_count[2];
	u64 tmu_ready[2][TMU_FIFO_DEPTH];	/* instruction count it arrives */
	struct qpu_emu_vpm_setup vr, vw;
	u32 vdr_setup, vdr_pitch;
	u32 vdw_setup, vdw_stride;
	/* code the QPU fetches from, translated once per qpu_emu_run() */
	const u8 *win;
	u32 win_addr, win_len;
	/* uniform stream, TMU and VCD DMA load and store memory, likewise */
	struct qpu_emu_win uwin, twin, dlwin, dswin;
	u32 ra[32][LANES];
	u32 rb[32][LANES];
	u32 acc[6][LANES];
	u32 sfu_val[LANES];
	u32 flag_v[LANES];	/* the pending setf's result: see set_flags() */
	/* qpu_emu_exec_alu_fast()'s inputs that are no register: see fast_operands() */
	u32 splat[2][LANES];	/* a uniform or small immediate, A and B */
	u32 zero[LANES];	/* nop reads; never written */
	u32 tmu[2][TMU_FIFO_DEPTH][LANES];
};

/*
 * The parts of struct qpu_emu the vector code reads and writes 64 bytes at
 * a time (the QPUs' vectors, the ALU scratch and results) each start on a
 * cache line of qpu_emu.vec: the caller's memory is only 8-byte aligned,
 * so emu_qpu() and its siblings find them there, with arithmetic only. A
 * QPU's scalars go on the lines before its first vector (VEC_HEAD bytes
 * from where its VEC_QPU bytes start).
 */
#define VEC_ROUND(n)	(((n) + 63) & ~(size_t)63)
#define VEC_HEAD	VEC_ROUND(offsetof(struct qpu_emu_qpu, ra))
#define VEC_QPU		(VEC_HEAD + VEC_ROUND(sizeof(struct qpu_emu_qpu) - \
					      offsetof(struct qpu_emu_qpu, ra)))
#define VEC_ALU		VEC_ROUND(sizeof(struct qpu_emu_alu_scratch))
#define VEC_RESULT	VEC_ROUND(sizeof(struct qpu_emu_result))
#define VEC_BYTES	(QPU_EMU_NUM_QPUS * VEC_QPU + VEC_ALU + 2 * VEC_RESULT)

/* What predecode() found out about an instruction (qpu_emu_op.flags). */
#define OP_VALID	BIT_U8(0)	/* the entry holds a decoded word */
#define OP_WAIT		BIT_U8(1)	/* may block: must_wait() decides */
#define OP_UNIF		BIT_U8(2)	/* reads a uniform */
#define OP_MUTEX	BIT_U8(3)	/* reads mutex_acq */
#define OP_R4		BIT_U8(4)	/* an ALU input is r4 (for stall_sfu) */
#define OP_UNPACK	BIT_U8(5)	/* an ALU input is unpacked */
#define OP_MOV_ADD	BIT_U8(6)	/* EX_ALU_FAST: the add is a mov, no setf */
#define OP_NOP		BIT_U8(7)	/* EX_ALU_FAST that does nothing at all */

#define BIT_U8(n)	((u8)(1u << (n)))

/*
 * One predecoded instruction: the word it was decoded from (the tag that
 * proves it still describes memory), its bus address, and the decode.
 */
struct qpu_emu_op {
	u64 word;
	u32 addr;
	u8 flags;
	u8 exec;
	bool step_fast;		/* step_fast() may run it */
	/* EX_ALU_FAST only: where its vectors are, see fast_operands() */
	u8 fast_splat;		/* FAST_SPLAT_* */
	u8 fast_mul1;		/* FAST_MUL1_*: an fmul input is a splat */
	bool fast_float;	/* qpu_emu_exec_float() may run it */
	u32 fast_imm;		/* the small immediate */
	u16 fast_src[4];	/* add_a, add_b, mul_a, mul_b */
	u16 fast_dst[2];	/* the add's and the mul's */
	struct qpu_isa_instr in;
};

struct qpu_emu {
	const struct qpu_emu_ops *ops;
	void *ctx;
	u32 seed;
	u32 rng;
	enum qpu_emu_status status;
	u32 completed;
	u32 rr_next;
	u16 live;		/* QPUs with a program, bit per QPU */
	u16 waiting;		/* ... of which in a QPU_EMU_QPU_WAIT_* state */
	u16 sem_woken;		/* ... woken from a semaphore wait, not yet run */
	u16 used;		/* QPUs given a program since init or reset */
	bool no_predecode;	/* qpu_emu_set_predecode(emu, false) */
	bool strict_vpm;	/* qpu_emu_set_strict_vpm(emu, true) */
	u64 limit;		/* qpu_emu_set_limit(); 0: none */
	const u64 *clock;	/* qpu_emu_set_clock(); NULL: round-robin */
	u64 pick_bound;		/* pick_earliest(): runs @pick until this, */
	u32 pick;
	u16 pick_live, pick_waiting;	/* ... while the masks are these */
	u64 started_at[QPU_EMU_NUM_QPUS];	/* emu_work() at start */
	u64 charged[QPU_EMU_NUM_QPUS];	/* DMA and TMU work, qpu_emu_charge() */
	u64 debt;		/* charged, not yet taken from run_loop()'s budget */
	int mutex_owner;
	u8 sem[QPU_EMU_NUM_SEMAPHORES];
	struct qpu_fault fault;
	struct qpu_emu_stats stats;
	u32 vpm[QPU_EMU_VPM_WORDS];
	struct qpu_emu_op op_uncached;	/* the decode when predecoding is off */
	struct qpu_emu_op icache[OP_CACHE_ENTRIES];
	u8 vec[VEC_BYTES + 63];	/* see emu_qpu() */
};

/* Per-instruction context. */
struct qpu_emu_exec {
	struct qpu_emu *emu;
	struct qpu_emu_qpu *q;
	unsigned int qi;
	const struct qpu_emu_op *op;
	const struct qpu_isa_instr *in;
	bool fault;
	bool uses_r4;
};

/* The 64-byte aligned start of @emu->vec. */
static inline u8 *emu_vec(const struct qpu_emu *emu)
{
	return (u8 *)(((unsigned long)emu->vec + 63) & ~63ul);
}

static inline struct qpu_emu_qpu *emu_qpu(const struct qpu_emu *emu,
					  unsigned int qi)
{
	return (struct qpu_emu_qpu *)(emu_vec(emu) + qi * VEC_QPU + VEC_HEAD -
				      offsetof(struct qpu_emu_qpu, ra));
}

static inline struct qpu_emu_alu_scratch *emu_alu(const struct qpu_emu *emu)
{
	return (struct qpu_emu_alu_scratch *)(emu_vec(emu) +
					      QPU_EMU_NUM_QPUS * VEC_QPU);
}

/* The add (@mul false) or mul unit's result. */
static inline struct qpu_emu_result *emu_result(const struct qpu_emu *emu,
						bool mul)
{
	return (struct qpu_emu_result *)(emu_vec(emu) +
					 QPU_EMU_NUM_QPUS * VEC_QPU + VEC_ALU +
					 mul * VEC_RESULT);
}

/*
 * Little-endian words in the caller's memory, at any alignment (no libc).
 * On a little-endian host one unaligned load or store (what
 * __builtin_memcpy() of 4 bytes compiles to) instead of four byte
 * accesses and shifts: every fetch reads two words.
 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static inline u32 rd32(const void *p)
{
	u32 v;

	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

static inline void wr32(void *p, u32 v)
{
	__builtin_memcpy(p, &v, sizeof(v));
}
#else
static inline u32 rd32(const void *p)
{
	const u8 *b = p;

	return b[0] | (u32)b[1] << 8 | (u32)b[2] << 16 | (u32)b[3] << 24;
}

static inline void wr32(void *p, u32 v)
{
	u8 *b = p;

	b[0] = (u8)v;
	b[1] = (u8)(v >> 8);
	b[2] = (u8)(v >> 16);
	b[3] = (u8)(v >> 24);
}
#endif

/* qpu_emu.c */
void qpu_emu_wake_sync(struct qpu_emu *emu);

/* qpu_emu_mem.c */
void qpu_emu_set_fault(struct qpu_emu_exec *x, enum qpu_fault_reason why,
		       u32 addr, enum qpu_mem_access access);
void qpu_emu_bad_instr(struct qpu_emu_exec *x);
void *qpu_emu_mem(struct qpu_emu_exec *x, u32 addr, u32 len, u32 align,
		  enum qpu_mem_access kind);
u8 *qpu_emu_win_miss(struct qpu_emu_exec *x, struct qpu_emu_win *w, u32 addr,
		     u32 len, u32 align, enum qpu_mem_access kind);
u8 *qpu_emu_dma_mem(struct qpu_emu_exec *x, u32 addr, u32 len, u32 align,
		    enum qpu_mem_access kind);

/* qpu_emu_alu.c */
void qpu_emu_exec_alu(struct qpu_emu_exec *x);
void qpu_emu_exec_alu_fast(struct qpu_emu_exec *x);
void qpu_emu_exec_float(struct qpu_emu_exec *x);
/* Can qpu_emu_exec_alu_fast() run @op? If so, where its vectors are, too. */
bool qpu_emu_fast_prepare(struct qpu_emu_op *op);

/* qpu_emu_regs.c */
void qpu_emu_write_reg(struct qpu_emu_exec *x, unsigned int waddr,
		       bool file_b, const struct qpu_emu_result *r);

/* qpu_emu_flags.c */
void qpu_emu_flags_of(const struct qpu_emu_qpu *q, u16 *z, u16 *n, u16 *c);
void qpu_emu_flags_resolve(struct qpu_emu_qpu *q);
u16 qpu_emu_cond_mask(struct qpu_emu_qpu *q, unsigned int cond);
bool qpu_emu_branch_taken(struct qpu_emu_qpu *q, unsigned int cond);

/* qpu_emu_tmu.c */
void qpu_emu_tmu_request(struct qpu_emu_exec *x, unsigned int t, const u32 *v,
			 u16 mask);
void qpu_emu_tmu_pop(struct qpu_emu_exec *x, unsigned int t);

/* qpu_emu_vpm.c */
void qpu_emu_vpm_read(struct qpu_emu_exec *x, u32 *out);
void qpu_emu_vpm_write(struct qpu_emu_exec *x, const u32 *v, u16 mask);
void qpu_emu_vpm_setup(struct qpu_emu_qpu *q, u32 v, bool vw);
void qpu_emu_dma_load(struct qpu_emu_exec *x, u32 addr);
void qpu_emu_dma_store(struct qpu_emu_exec *x, u32 addr);

/* --- the hot path's helpers, inline in every file ---------------------- */

/*
 * 64 bytes into a register or result. GCC expands this into four vector
 * moves; a plain copy loop may become a call to memmove() instead.
 */
static inline void copy_lanes(u32 *dst, const u32 *src)
{
	__builtin_memcpy(dst, src, LANES * sizeof(*dst));
}

static inline const u32 *splat(u32 *buf, u32 v)
{
	unsigned int i;

	for (i = 0; i < LANES; i++)
		buf[i] = v;
	return buf;
}

/* qpu_emu_win_miss()'s answer, from the window when it holds the bytes. */
static inline u8 *win_get(struct qpu_emu_exec *x, struct qpu_emu_win *w,
			  u32 addr, u32 len, u32 align,
			  enum qpu_mem_access kind)
{
	u32 off = addr - w->addr;

	if (x->fault)
		return NULL;
	if (off < w->len && len <= w->len - off && !(addr & (align - 1)))
		return w->p + off;
	return qpu_emu_win_miss(x, w, addr, len, align, kind);
}

/* The 4-byte word at @addr through @w (uniforms, TMU reads). */
static inline const u8 *win_mem(struct qpu_emu_exec *x,
				struct qpu_emu_win *w, u32 addr,
				enum qpu_mem_access kind)
{
	return win_get(x, w, addr, 4, 4, kind);
}

/* The setf of flag_v's lanes in @mask, carries @c, is the pending one. */
static inline void flags_pending(struct qpu_emu_qpu *q, u16 mask, u16 c,
				 bool is_float)
{
	q->flag_mask = mask;
	q->flag_c = c;
	q->flag_float = is_float;
}

/*
 * The flags of the lanes in @mask become those of results @v and carries
 * @c, lazily (see "DOC: lazy flags"): @v is copied, not looked at. Without
 * predecoding at once, as the reference test-emu-fuzz compares with.
 */
static inline void set_flags(struct qpu_emu_exec *x, const u32 *v, u16 c,
			     u16 mask, bool is_float)
{
	struct qpu_emu_qpu *q = x->q;

	if (!mask)
		return;
	if (mask != ALL_LANES)
		qpu_emu_flags_resolve(q);
	copy_lanes(q->flag_v, v);
	flags_pending(q, mask, c, is_float);
	if (x->emu->no_predecode)
		qpu_emu_flags_resolve(q);
}

/*
 * qpu_emu_write_reg(), with the common case (a register, no pack) inlined, and the
 * tracer told. Tracing turns qpu_emu_exec_alu_fast() off (see predecode()), which
 * writes registers without this.
 */
static inline void write_result(struct qpu_emu_exec *x, unsigned int waddr,
				bool file_b, const struct qpu_emu_result *r)
{
	const struct qpu_emu_ops *ops = x->emu->ops;
	struct qpu_emu_qpu *q = x->q;
	u32 *dst;
	unsigned int i;

	if (waddr == QPU_ISA_WADDR_NOP)
		return;
	if (ops->trace_write)
		ops->trace_write(x->emu->ctx, x->qi, waddr, file_b, r->v,
				 r->mask);
	if (x->in->pack || waddr >= QPU_ISA_WADDR_TMU_NOSWAP) {
		qpu_emu_write_reg(x, waddr, file_b, r);
		return;
	}
	if (waddr < 32)
		dst = file_b ? q->rb[waddr] : q->ra[waddr];
	else
		dst = q->acc[waddr - QPU_ISA_WADDR_R0];
	if (r->mask == ALL_LANES) {
		copy_lanes(dst, r->v);
		return;
	}
	for (i = 0; i < LANES; i++)
		dst[i] = (r->mask >> i) & 1 ? r->v[i] : dst[i];
}

/* Set bits of @v (no libgcc in the kernel: no __builtin_popcount). */
static inline unsigned int qpu_emu_popcount16(u16 v)
{
	unsigned int n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

/*
 * Charges the instruction's QPU for @cycles (at most a DMA's, some 17 K)
 * of DMA or TMU work, in whole
 * instructions (qpu_emu.h, QPU_EMU_DMA_SETUP_CYCLES): its budget and the
 * run's both count them.
 */
static inline void qpu_emu_charge(struct qpu_emu_exec *x, u32 cycles)
{
	u32 n = (cycles + QPU_EMU_ISSUE_CYCLES - 1) / QPU_EMU_ISSUE_CYCLES;

	x->emu->charged[x->qi] += n;
	x->emu->debt += n;
}

/* The cycles of one VCD DMA of @rows memory rows and @bytes in all. */
static inline u32 qpu_emu_dma_cycles(u32 rows, u32 bytes)
{
	return QPU_EMU_DMA_SETUP_CYCLES + rows * QPU_EMU_DMA_ROW_CYCLES +
	       bytes / QPU_EMU_DMA_BYTES_PER_CYCLE;
}

#endif /* QPU_EMU_INTERNAL_H */
