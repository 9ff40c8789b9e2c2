// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * The timing model's engine (see qpu_timing.h); the parameters are the
 * board tables of qpu_timing_board.c.
 *
 * DOC: what is modelled
 * - A QPU issues one instruction every ISSUE_CYCLES (add and mul together:
 *   dual issue is the instruction itself) unless it waits for one of the
 *   causes of enum qpu_timing_stall; each wait is counted by its cause.
 * - Regfile writes read back REGFILE_LATENCY instructions later, r4 gets an
 *   SFU result SFU_LATENCY instructions after the write, a VPM read waits
 *   VPM_READ_LATENCY instructions after vr_setup. The hardware does not
 *   interlock on these (the hazard checker owns the rules): a program that
 *   breaks them is charged as if the nops it needs were there.
 * - TMU: each slice's two TMUs are shared by its four QPUs; a request
 *   occupies its TMU TMU_LANE_CYCLES per lane and returns TMU_HIT_CYCLES
 *   after that, later for each line that misses the TMU's cache (then the
 *   L2, then SDRAM). ldtmu waits for the oldest result of its FIFO.
 * - VCD DMA: one engine for all QPUs; a DMA takes DMA_SETUP_CYCLES, plus
 *   DMA_ROW_CYCLES a row, plus its bytes at DMA_BYTES_PER_CYCLE, and its
 *   SDRAM traffic; a QPU's next DMA of the same direction, and its
 *   vr_wait/vw_wait, wait for the previous one.
 * - L2: an access goes through it when the board has one and its bus
 *   address's alias is not 0xC (QPU_TIMING_ALIAS_DIRECT), whatever the
 *   board: a Pi 3 program whose buffers sit at an L2 alias has an L2, a
 *   Pi 1's at 0xC has none. The aliases that cache share its lines.
 * - SDRAM: bandwidth (the SDRAM clock, DDR, 32 bits, SDRAM_EFFICIENCY
 *   percent of it) booked on a timeline, plus SDRAM_LATENCY per miss.
 * - Uniforms: each slice's uniforms cache (UNIF_CACHE_BYTES, lines of
 *   UNIF_LINE_BYTES, UNIF_WAYS) is shared by its four QPUs and filled
 *   through the L2. When a stream enters a line (its first read there, or
 *   the unif_addr write that moved it) the cache asks for that line and
 *   the UNIF_PREFETCH lines after it; a read waits only for its own line's
 *   data. A line another QPU of the slice fetched is a hit, so a moved
 *   stream that comes back, or four QPUs reading one stream, fetch once.
 * - Semaphores: each release leaves a token stamped with its time; an
 *   acquire takes the oldest and waits for its stamp. The mutex likewise.
 * - Not modelled: the second thread of a QPU (user programs have one, so
 *   a thrsw costs THRSW_CYCLES and nothing else), textures, write-back of
 *   L2 lines (DMA stores write through and leave their lines in L2).
 */
#include "qpu_timing.h"
#include "qpu_timeline.h"
#include "qpu_isa.h"

#define TM_SLICES		3
#define TM_QPUS_PER_SLICE	4
#define TM_TMUS			(TM_SLICES * 2)
#define TM_FIFO_MAX		8
#define TM_OPS			2048	/* decoded instructions, a power of 2 */
#define L2_MAX_LINES		8192
#define TMU_MAX_LINES		512
#define IC_MAX_LINES		512
#define UC_MAX_LINES		256
#define NO_REG			0xff
#define SDRAM_BANKS		8

/* struct tm_op.flags */
#define F_R4		QPU_ISA_BIT(0)
#define F_SFU		QPU_ISA_BIT(1)
#define F_LDTMU0	QPU_ISA_BIT(2)
#define F_LDTMU1	QPU_ISA_BIT(3)
#define F_VPM_READ	QPU_ISA_BIT(4)
#define F_VR_SETUP	QPU_ISA_BIT(5)
#define F_VR_WAIT	QPU_ISA_BIT(6)
#define F_VW_WAIT	QPU_ISA_BIT(7)
#define F_MUTEX_ACQ	QPU_ISA_BIT(8)
#define F_MUTEX_REL	QPU_ISA_BIT(9)
#define F_SEM_ACQ	QPU_ISA_BIT(10)
#define F_SEM_REL	QPU_ISA_BIT(11)
#define F_THRSW		QPU_ISA_BIT(12)
#define F_UNIF		QPU_ISA_BIT(13)

/* What the model needs of one instruction, decoded once. */
struct tm_op {
	u64 word;
	u32 pc;
	bool valid;
	u16 flags;
	u8 read[2];		/* regfile reads: 0..31 A, 32..63 B, or NO_REG */
	u8 write[2];		/* regfile writes, likewise */
	u8 sem;
};

/* A set-associative cache of line tags with LRU replacement. */
struct tm_cache {
	u32 sets, ways, shift, set_bits;
	u32 clock;
	u32 rng;		/* random replacement if not 0, else LRU */
	u32 *tag;		/* line + 1; 0 is empty */
	u32 *used;		/* clock of the last hit */
	u64 *ready;		/* cycle each line's fill arrives, or NULL */
	u64 *asked;		/* cycle it was asked for (with @ready) */
};

/* A shared unit booked in buckets of 1 << QPU_TIMELINE_SHIFT cycles. */
struct tm_qpu {
	bool live;
	u64 now;		/* cycle the next instruction may issue */
	u64 issue_at;		/* cycle the last one issued */
	u64 start;
	u64 n;
	u64 stall[QPU_TIMING_NUM_STALLS];
	u64 written[64];	/* cycle each regfile register was written */
	u64 r4_ready;
	u64 vpm_ready;
	u64 tmu_ready[2][TM_FIFO_MAX];
	u8 tmu_head[2], tmu_count[2];
	u64 dma_load_done, dma_store_done;
	u32 fetch_line;
	bool fetch_valid;
	u32 unif_addr, unif_line;
	bool unif_valid;
};

struct qpu_timing {
	const struct qpu_timing_board *b;
	u32 p[QPU_TIMING_NUM_PARAMS];	/* the board's values */
	u64 next_start;
	u64 sdram_bytes, tmu_misses, l2_misses;
	u64 mutex_free;
	u32 open_page[SDRAM_BANKS];	/* page + 1 each bank has open, 0: none */
	u64 sem_token[QPU_EMU_NUM_SEMAPHORES][16];
	u8 sem_head[QPU_EMU_NUM_SEMAPHORES], sem_count[QPU_EMU_NUM_SEMAPHORES];
	struct tm_qpu q[QPU_EMU_NUM_QPUS];
	u64 clock[QPU_EMU_NUM_QPUS];	/* q[i].now, for qpu_timing_clock() */
	struct tm_op ops[TM_OPS];
	struct tm_cache l2, tmu[TM_TMUS], ic[TM_SLICES], uc[TM_SLICES];
	u32 l2_tag[L2_MAX_LINES], l2_used[L2_MAX_LINES];
	u32 tmu_tag[TM_TMUS][TMU_MAX_LINES], tmu_used[TM_TMUS][TMU_MAX_LINES];
	u32 ic_tag[TM_SLICES][IC_MAX_LINES], ic_used[TM_SLICES][IC_MAX_LINES];
	u32 uc_tag[TM_SLICES][UC_MAX_LINES], uc_used[TM_SLICES][UC_MAX_LINES];
	u64 uc_ready[TM_SLICES][UC_MAX_LINES], uc_asked[TM_SLICES][UC_MAX_LINES];
	struct qpu_timeline sdram, vcd, tmu_tl[TM_TMUS];
};

static void tm_memset(void *p, int c, size_t n)
{
	u8 *d = p;

	while (n--)
		*d++ = (u8)c;
}

static u32 log2_floor(u32 v)
{
	u32 n = 0;

	while (v > 1) {
		v >>= 1;
		n++;
	}
	return n;
}

static u64 max_u64(u64 a, u64 b)
{
	return a > b ? a : b;
}

/* --- caches -------------------------------------------------------------- */

static void cache_init(struct tm_cache *c, u32 *tag, u32 *used, u32 max_lines,
		       u32 bytes, u32 line, u32 ways)
{
	u32 lines;

	c->tag = tag;
	c->used = used;
	c->ready = NULL;
	c->asked = NULL;
	c->clock = 0;
	c->shift = log2_floor(line ? line : 64);
	lines = bytes >> c->shift;
	if (lines > max_lines)
		lines = max_lines;
	if (!ways || ways > lines)
		ways = lines ? lines : 1;
	c->ways = ways;
	c->sets = lines / ways;
	/* a power of 2 of sets, so an address picks its set with a mask */
	c->set_bits = c->sets ? log2_floor(c->sets) : 0;
	c->sets = c->sets ? 1u << c->set_bits : 0;
	tm_memset(tag, 0, max_lines * sizeof(*tag));
	tm_memset(used, 0, max_lines * sizeof(*used));
}

/*
 * Is @addr's line in @c? If not, it is now (in the least recently used
 * way). Either way *@slot is where it is (c->tag + *@slot).
 */
static bool cache_slot(struct tm_cache *c, u32 addr, u32 *slot)
{
	u32 line = addr >> c->shift, set, i, victim = 0, oldest = ~0u;
	u32 *tag, *used;

	if (!c->sets)
		return false;
	/* hashed, so power-of-two strides do not all land in one set */
	set = (line ^ line >> c->set_bits ^ line >> 2 * c->set_bits) &
		(c->sets - 1);
	tag = c->tag + set * c->ways;
	used = c->used + set * c->ways;
	c->clock++;
	for (i = 0; i < c->ways; i++) {
		if (tag[i] == line + 1) {
			used[i] = c->clock;
			*slot = set * c->ways + i;
			return true;
		}
		if (used[i] < oldest) {
			oldest = used[i];
			victim = i;
		}
	}
	if (c->rng) {		/* xorshift32: deterministic, no libc */
		c->rng ^= c->rng << 13;
		c->rng ^= c->rng >> 17;
		c->rng ^= c->rng << 5;
		victim = c->rng % c->ways;
	}
	tag[victim] = line + 1;
	used[victim] = c->clock;
	*slot = set * c->ways + victim;
	return false;
}

static bool cache_access(struct tm_cache *c, u32 addr)
{
	u32 slot;

	return cache_slot(c, addr, &slot);
}

/* --- memory -------------------------------------------------------------- */

/*
 * @bytes at @addr moved to or from SDRAM from cycle @at on: when the last
 * is through. An access to a page its bank does not have open costs
 * SDRAM_PAGE_MISS_BYTES of bandwidth more (precharge and activate).
 */
static u64 sdram_xfer(struct qpu_timing *t, u32 addr, u32 bytes, u64 at)
{
	u32 shift = log2_floor(t->p[QPU_TP_SDRAM_PAGE_BYTES] ?
			       t->p[QPU_TP_SDRAM_PAGE_BYTES] : 1);
	u32 page = addr >> shift, bank = page % SDRAM_BANKS;
	u64 cost = bytes;

	if (t->open_page[bank] != page + 1) {
		t->open_page[bank] = page + 1;
		cost += t->p[QPU_TP_SDRAM_PAGE_MISS_BYTES];
	}
	t->sdram_bytes += bytes;
	return qpu_timeline_book(&t->sdram, at, cost);
}

/* The same for a read: when the data arrives. */
static u64 sdram_read(struct qpu_timing *t, u32 addr, u32 bytes, u64 at)
{
	return sdram_xfer(t, addr, bytes, at) + t->p[QPU_TP_SDRAM_LATENCY];
}

/*
 * Whether an access at @addr goes through the L2: the board has one and
 * the address's alias does not bypass it.
 */
static bool l2_serves(const struct qpu_timing *t, u32 addr)
{
	return t->l2.sets &&
	       (addr & QPU_TIMING_ALIAS_MASK) != QPU_TIMING_ALIAS_DIRECT;
}

/* The L2 line at @addr, whichever caching alias reached it: hit or not. */
static bool l2_access(struct qpu_timing *t, u32 addr)
{
	return cache_access(&t->l2, addr & ~QPU_TIMING_ALIAS_MASK);
}

/*
 * @bytes from @addr (a line of a first-level cache that missed at @at):
 * when they arrive. The L2 lines it spans that miss come from SDRAM.
 */
static u64 mem_read(struct qpu_timing *t, u32 addr, u32 bytes, u64 at)
{
	u32 line, a, miss = 0, first = 0;

	if (!l2_serves(t, addr))
		return sdram_read(t, addr, bytes, at);
	line = 1u << t->l2.shift;
	for (a = addr & ~(line - 1); a < addr + bytes; a += line)
		if (!l2_access(t, a)) {
			t->l2_misses++;
			first = miss ? first : a;
			miss += line;
		}
	at += t->p[QPU_TP_L2_HIT_CYCLES];
	return miss ? sdram_read(t, first, miss, at) : at;
}

/* --- the QPUs ------------------------------------------------------------ */

static void wait_until(struct tm_qpu *q, u64 *at, u64 ready,
		       enum qpu_timing_stall why)
{
	if (ready > *at) {
		q->stall[why] += ready - *at;
		*at = ready;
	}
}

static bool uses_mux(const struct qpu_isa_instr *in, unsigned int mux)
{
	if (in->op_add != QPU_ISA_A_NOP && (in->add_a == mux || in->add_b == mux))
		return true;
	return in->op_mul != QPU_ISA_M_NOP && (in->mul_a == mux || in->mul_b == mux);
}

/* The regfile index (0..31 A, 32..63 B) a write lands in, or NO_REG. */
static u8 reg_of(unsigned int waddr, bool file_b)
{
	return waddr < 32 ? (u8)(waddr + (file_b ? 32 : 0)) : NO_REG;
}

static bool reads(const struct qpu_isa_instr *in, unsigned int addr, bool b)
{
	if (!b)
		return in->raddr_a == addr;
	return in->kind == QPU_ISA_KIND_ALU && in->raddr_b == addr;
}

/* Does @in write @waddr of regfile A (@b false) or B? */
static bool writes(const struct qpu_isa_instr *in, unsigned int waddr, bool b)
{
	return (in->waddr_add == waddr && in->ws == b) ||
		(in->waddr_mul == waddr && in->ws != b);
}

static void decode(struct tm_op *op, u32 pc, u64 word)
{
	struct qpu_isa_instr in;
	bool alu;

	qpu_isa_decode(word, &in);
	tm_memset(op, 0, sizeof(*op));
	op->word = word;
	op->pc = pc;
	op->valid = true;
	op->read[0] = NO_REG;
	op->read[1] = NO_REG;
	op->write[0] = NO_REG;
	op->write[1] = NO_REG;
	if (in.kind == QPU_ISA_KIND_SEMA) {
		op->flags |= in.sem_acquire ? F_SEM_ACQ : F_SEM_REL;
		op->sem = in.sem;
	}
	alu = in.kind == QPU_ISA_KIND_ALU || in.kind == QPU_ISA_KIND_ALU_SMALL_IMM;
	if (in.kind != QPU_ISA_KIND_RAW) {
		op->write[0] = reg_of(in.waddr_add, in.ws);
		op->write[1] = reg_of(in.waddr_mul, !in.ws);
		if (writes(&in, QPU_ISA_WADDR_VPM_SETUP, false))
			op->flags |= F_VR_SETUP;
		if (writes(&in, QPU_ISA_WADDR_MUTEX, false) ||
		    writes(&in, QPU_ISA_WADDR_MUTEX, true))
			op->flags |= F_MUTEX_REL;
		if ((in.waddr_add >= QPU_ISA_WADDR_SFU_RECIP &&
		     in.waddr_add <= QPU_ISA_WADDR_SFU_LOG) ||
		    (in.waddr_mul >= QPU_ISA_WADDR_SFU_RECIP &&
		     in.waddr_mul <= QPU_ISA_WADDR_SFU_LOG))
			op->flags |= F_SFU;
	}
	if (!alu)
		return;
	if (in.raddr_a < 32 && uses_mux(&in, QPU_ISA_MUX_A))
		op->read[0] = in.raddr_a;
	if (in.kind == QPU_ISA_KIND_ALU && in.raddr_b < 32 &&
	    uses_mux(&in, QPU_ISA_MUX_B))
		op->read[1] = in.raddr_b + 32;
	if (uses_mux(&in, QPU_ISA_MUX_R4))
		op->flags |= F_R4;
	if (in.sig == QPU_ISA_SIG_LDTMU0)
		op->flags |= F_LDTMU0;
	if (in.sig == QPU_ISA_SIG_LDTMU1)
		op->flags |= F_LDTMU1;
	if (in.sig == QPU_ISA_SIG_THRSW || in.sig == QPU_ISA_SIG_LTHRSW)
		op->flags |= F_THRSW;
	if (reads(&in, QPU_ISA_RADDR_VPM, false) || reads(&in, QPU_ISA_RADDR_VPM, true))
		op->flags |= F_VPM_READ;
	if (reads(&in, QPU_ISA_RADDR_VPM_WAIT, false))
		op->flags |= F_VR_WAIT;
	if (reads(&in, QPU_ISA_RADDR_VPM_WAIT, true))
		op->flags |= F_VW_WAIT;
	if (reads(&in, QPU_ISA_RADDR_MUTEX, false) || reads(&in, QPU_ISA_RADDR_MUTEX, true))
		op->flags |= F_MUTEX_ACQ;
	if (reads(&in, QPU_ISA_RADDR_UNIF, false) || reads(&in, QPU_ISA_RADDR_UNIF, true))
		op->flags |= F_UNIF;
}

/* Instruction fetch and uniform reads: their caches. */
static void issue_fetch(struct qpu_timing *t, unsigned int qi,
			struct tm_qpu *q, u32 pc, u64 *at)
{
	struct tm_cache *ic = &t->ic[qi / TM_QPUS_PER_SLICE];
	u32 line = pc >> ic->shift;

	if (q->fetch_valid && line == q->fetch_line)
		return;
	q->fetch_valid = true;
	q->fetch_line = line;
	if (!cache_access(ic, pc))
		wait_until(q, at, mem_read(t, pc & ~((1u << ic->shift) - 1),
					   1u << ic->shift, *at),
			   QPU_TIMING_STALL_FETCH);
}

/*
 * Uniform line @line for slice cache @uc, asked for at @at: when its data
 * is there. A miss fetches it through the L2; a hit on a line still on its
 * way waits for it. The emulator runs the QPUs in its own order, not the
 * model's: a QPU of the slice that asked for the line at a later cycle
 * than @at asked in fact after this one, which then sees that fetch's
 * latency from @at. Without a cache (size 0) every line is fetched each
 * time the stream enters it.
 */
static u64 unif_line_ready(struct qpu_timing *t, struct tm_cache *uc,
			   u32 line, u64 at)
{
	u32 slot;
	u64 ready;

	if (!uc->sets)
		return mem_read(t, line << uc->shift, 1u << uc->shift, at);
	if (!cache_slot(uc, line << uc->shift, &slot)) {
		uc->asked[slot] = at;
		uc->ready[slot] = mem_read(t, line << uc->shift,
					   1u << uc->shift, at);
	}
	ready = uc->ready[slot];
	if (at < uc->asked[slot] && ready > at + (ready - uc->asked[slot]))
		ready = at + (ready - uc->asked[slot]);
	return ready;
}

/*
 * The stream enters @line at @at: when that line is there. The cache also
 * asks for the UNIF_PREFETCH lines after it, without waiting for them.
 */
static u64 unif_enter(struct qpu_timing *t, unsigned int qi, u32 line, u64 at)
{
	struct tm_cache *uc = &t->uc[qi / TM_QPUS_PER_SLICE];
	u64 ready = unif_line_ready(t, uc, line, at);
	u32 i;

	for (i = 1; uc->sets && i <= t->p[QPU_TP_UNIF_PREFETCH]; i++)
		unif_line_ready(t, uc, line + i, at);
	return ready;
}

static void issue_uniform(struct qpu_timing *t, unsigned int qi,
			  struct tm_qpu *q, u64 *at)
{
	u32 line = q->unif_addr >> t->uc[0].shift;

	if (!q->unif_valid || line != q->unif_line) {
		q->unif_valid = true;
		q->unif_line = line;
		wait_until(q, at, unif_enter(t, qi, line, *at),
			   QPU_TIMING_STALL_UNIFORM);
	}
	q->unif_addr += 4;
}

static void issue_ldtmu(struct tm_qpu *q, unsigned int k, u64 *at)
{
	if (!q->tmu_count[k])
		return;		/* not reached: the emulator waits for a result */
	wait_until(q, at, q->tmu_ready[k][q->tmu_head[k]], QPU_TIMING_STALL_TMU);
	q->tmu_head[k] = (q->tmu_head[k] + 1) % TM_FIFO_MAX;
	q->tmu_count[k]--;
}

static void issue_sync(struct qpu_timing *t, const struct tm_op *op,
		       struct tm_qpu *q, u64 *at)
{
	/* ~0: held; not reached, the emulator orders release before acquire */
	if ((op->flags & F_MUTEX_ACQ) && t->mutex_free != ~0ull)
		wait_until(q, at, t->mutex_free, QPU_TIMING_STALL_MUTEX);
	if ((op->flags & F_SEM_ACQ) && t->sem_count[op->sem]) {
		u8 h = t->sem_head[op->sem];

		wait_until(q, at, t->sem_token[op->sem][h],
			   QPU_TIMING_STALL_SEMAPHORE);
		t->sem_head[op->sem] = (h + 1) % 16;
		t->sem_count[op->sem]--;
	}
}

void qpu_timing_issue(struct qpu_timing *t, unsigned int qi, u32 pc, u64 word)
{
	struct tm_qpu *q = &t->q[qi];
	struct tm_op *op = &t->ops[(pc >> 3) & (TM_OPS - 1)];
	u32 issue = t->p[QPU_TP_ISSUE_CYCLES];
	u64 at = q->now;
	unsigned int i;

	if (!op->valid || op->word != word || op->pc != pc)
		decode(op, pc, word);
	issue_fetch(t, qi, q, pc, &at);
	if (op->flags & F_UNIF)
		issue_uniform(t, qi, q, &at);
	for (i = 0; i < 2; i++)
		if (op->read[i] != NO_REG && q->written[op->read[i]])
			wait_until(q, &at, q->written[op->read[i]] +
				   t->p[QPU_TP_REGFILE_LATENCY] * issue,
				   QPU_TIMING_STALL_REGFILE);
	if (op->flags & F_R4)
		wait_until(q, &at, q->r4_ready, QPU_TIMING_STALL_SFU);
	if (op->flags & F_LDTMU0)
		issue_ldtmu(q, 0, &at);
	if (op->flags & F_LDTMU1)
		issue_ldtmu(q, 1, &at);
	if (op->flags & F_VPM_READ)
		wait_until(q, &at, q->vpm_ready, QPU_TIMING_STALL_VPM);
	if (op->flags & F_VR_WAIT)
		wait_until(q, &at, q->dma_load_done, QPU_TIMING_STALL_DMA);
	if (op->flags & F_VW_WAIT)
		wait_until(q, &at, q->dma_store_done, QPU_TIMING_STALL_DMA);
	if (op->flags & (F_MUTEX_ACQ | F_SEM_ACQ))
		issue_sync(t, op, q, &at);
	if (op->flags & F_THRSW) {
		q->stall[QPU_TIMING_STALL_THRSW] += t->p[QPU_TP_THRSW_CYCLES];
		at += t->p[QPU_TP_THRSW_CYCLES];
	}

	/* It issues at @at; what it writes is ready from then on. */
	q->issue_at = at;
	q->now = at + issue;
	t->clock[qi] = q->now;
	q->n++;
	for (i = 0; i < 2; i++)
		if (op->write[i] != NO_REG)
			q->written[op->write[i]] = at + issue;
	if (op->flags & F_SFU)
		q->r4_ready = at + (t->p[QPU_TP_SFU_LATENCY] + 1) * issue;
	if (op->flags & (F_LDTMU0 | F_LDTMU1))
		q->r4_ready = max_u64(q->r4_ready, at + issue);
	if (op->flags & F_VR_SETUP)
		q->vpm_ready = at + (t->p[QPU_TP_VPM_READ_LATENCY] + 1) * issue;
	if (op->flags & F_MUTEX_ACQ)
		t->mutex_free = ~0ull;	/* held until its release */
	if (op->flags & F_MUTEX_REL)
		t->mutex_free = at + issue;
	if ((op->flags & F_SEM_REL) && t->sem_count[op->sem] < 16) {
		u8 s = op->sem;

		t->sem_token[s][(t->sem_head[s] + t->sem_count[s]) % 16] = at + issue;
		t->sem_count[s]++;
	}
}

/* --- transactions -------------------------------------------------------- */

/* The instruction that started a transaction waits for @ready to issue. */
static void delay_issue(struct qpu_timing *t, unsigned int qi, u64 ready,
			enum qpu_timing_stall why)
{
	struct tm_qpu *q = &t->q[qi];
	u64 at = q->issue_at;

	wait_until(q, &at, ready, why);
	q->now += at - q->issue_at;
	q->issue_at = at;
	t->clock[qi] = q->now;
}

static void event_tmu(struct qpu_timing *t, const struct qpu_emu_event *ev)
{
	struct tm_qpu *q = &t->q[ev->qpu];
	unsigned int k = ev->tmu & 1, unit = ev->qpu / TM_QPUS_PER_SLICE * 2 + k;
	struct tm_cache *c = &t->tmu[unit];
	u32 fifo = t->p[QPU_TP_TMU_FIFO], lanes = 0, i, last = ~0u;
	u64 at, done, ready = 0;

	if (fifo > TM_FIFO_MAX)
		fifo = TM_FIFO_MAX;
	if (q->tmu_count[k] >= fifo)
		delay_issue(t, ev->qpu, q->tmu_ready[k][q->tmu_head[k]],
			    QPU_TIMING_STALL_TMU_FIFO);
	if (q->tmu_count[k] >= TM_FIFO_MAX)
		issue_ldtmu(q, k, &q->issue_at);	/* not reached */
	at = q->issue_at;
	for (i = 0; i < 16; i++) {
		u32 line;

		if (!(ev->lanes & (1u << i)))
			continue;
		lanes++;
		line = ev->addr[i] >> c->shift;
		if (line == last)
			continue;
		last = line;
		if (!cache_access(c, ev->addr[i])) {
			t->tmu_misses++;
			ready = max_u64(ready, mem_read(t, line << c->shift,
							1u << c->shift, at));
		}
	}
	done = qpu_timeline_book(&t->tmu_tl[unit], at,
				 (u64)(lanes ? lanes : 1) *
				 t->p[QPU_TP_TMU_LANE_CYCLES]);
	ready = max_u64(ready, done) + t->p[QPU_TP_TMU_HIT_CYCLES];
	q->tmu_ready[k][(q->tmu_head[k] + q->tmu_count[k]) % TM_FIFO_MAX] = ready;
	q->tmu_count[k]++;
}

static void event_dma(struct qpu_timing *t, const struct qpu_emu_event *ev)
{
	struct tm_qpu *q = &t->q[ev->qpu];
	bool load = ev->kind == QPU_MEM_LOAD;
	u64 *done = load ? &q->dma_load_done : &q->dma_store_done;
	u64 at, bytes = (u64)ev->rows * ev->row_bytes, engine, mem;
	u32 bpc = t->p[QPU_TP_DMA_BYTES_PER_CYCLE], r, a;

	delay_issue(t, ev->qpu, *done, QPU_TIMING_STALL_DMA);
	at = q->issue_at;
	engine = qpu_timeline_book(&t->vcd, at,
				   t->p[QPU_TP_DMA_SETUP_CYCLES] +
				   (u64)ev->rows * t->p[QPU_TP_DMA_ROW_CYCLES] +
				   (bytes + (bpc ? bpc : 1) - 1) / (bpc ? bpc : 1));
	/* row by row: loads read what misses L2; stores write through */
	mem = at;
	for (r = 0; r < ev->rows; r++) {
		u32 row = ev->base + r * ev->pitch, miss = ev->row_bytes;

		if (l2_serves(t, row)) {
			u32 line = 1u << t->l2.shift;

			for (miss = 0, a = row & ~(line - 1);
			     a < row + ev->row_bytes; a += line)
				if (!l2_access(t, a) && load) {
					t->l2_misses++;
					miss += line;
				}
			if (!load)
				miss = ev->row_bytes;	/* the lines stay */
		}
		if (miss)	/* posted writes: done once through, no latency */
			mem = max_u64(mem, load ? sdram_read(t, row, miss, at) :
				      sdram_xfer(t, row, miss, at));
	}
	*done = max_u64(engine, mem);
}

void qpu_timing_event(struct qpu_timing *t, const struct qpu_emu_event *ev)
{
	if (ev->qpu >= QPU_EMU_NUM_QPUS)
		return;
	if (ev->kind == QPU_MEM_UNIFORM) {
		struct tm_qpu *q = &t->q[ev->qpu];

		/*
		 * A moved stream is fetched from where it now is, from the
		 * write on (the reads in between still get the old stream's
		 * uniforms); its first read waits for the line. Without a
		 * cache to hold it, that read fetches it.
		 */
		q->unif_addr = ev->base;
		q->unif_valid = false;
		if (t->uc[0].sets)
			unif_enter(t, ev->qpu, ev->base >> t->uc[0].shift,
				   q->issue_at);
	} else if (ev->kind == QPU_MEM_TMU) {
		event_tmu(t, ev);
	} else if (ev->kind == QPU_MEM_LOAD ||
		   ev->kind == QPU_MEM_STORE) {
		event_dma(t, ev);
	}
}

/* --- the API ------------------------------------------------------------- */

/* Every cache empty, in the geometry of the parameters. */
static void caches_init(struct qpu_timing *t)
{
	const u32 *p = t->p;
	unsigned int i;

	cache_init(&t->l2, t->l2_tag, t->l2_used, L2_MAX_LINES,
		   p[QPU_TP_L2_BYTES], p[QPU_TP_L2_LINE_BYTES], p[QPU_TP_L2_WAYS]);
	t->l2.rng = p[QPU_TP_L2_RANDOM] ? 2463534242u : 0;
	for (i = 0; i < TM_TMUS; i++)
		cache_init(&t->tmu[i], t->tmu_tag[i], t->tmu_used[i], TMU_MAX_LINES,
			   p[QPU_TP_TMU_CACHE_BYTES], p[QPU_TP_TMU_LINE_BYTES],
			   p[QPU_TP_TMU_WAYS]);
	for (i = 0; i < TM_SLICES; i++) {
		cache_init(&t->ic[i], t->ic_tag[i], t->ic_used[i], IC_MAX_LINES,
			   p[QPU_TP_ICACHE_BYTES], p[QPU_TP_ICACHE_LINE_BYTES], 0);
		cache_init(&t->uc[i], t->uc_tag[i], t->uc_used[i], UC_MAX_LINES,
			   p[QPU_TP_UNIF_CACHE_BYTES], p[QPU_TP_UNIF_LINE_BYTES],
			   p[QPU_TP_UNIF_WAYS]);
		t->uc[i].ready = t->uc_ready[i];
		t->uc[i].asked = t->uc_asked[i];
	}
}

/* SDRAM bytes a bucket: clock x 2 (DDR) x 4 bytes, at the efficiency. */
static u32 sdram_bytes_per_bucket(const struct qpu_timing *t)
{
	u64 bw = qpu_timing_sdram_rate_x100(t->p[QPU_TP_SDRAM_MHZ],
					    t->p[QPU_TP_SDRAM_EFFICIENCY]) << QPU_TIMELINE_SHIFT;

	bw /= 100 * (u64)(t->p[QPU_TP_V3D_MHZ] ? t->p[QPU_TP_V3D_MHZ] : 1);
	return bw ? (u32)bw : 1;
}

size_t qpu_timing_size(void)
{
	return sizeof(struct qpu_timing);
}

void qpu_timing_init(struct qpu_timing *t, const struct qpu_timing_board *board)
{
	unsigned int i;

	tm_memset(t, 0, sizeof(*t));
	t->b = board;
	for (i = 0; i < QPU_TIMING_NUM_PARAMS; i++)
		t->p[i] = board->p[i].value;
	if (!t->p[QPU_TP_ISSUE_CYCLES])
		t->p[QPU_TP_ISSUE_CYCLES] = 1;
	if (!t->p[QPU_TP_UNIF_LINE_BYTES])
		t->p[QPU_TP_UNIF_LINE_BYTES] = 4;
	caches_init(t);
	qpu_timeline_init(&t->sdram, sdram_bytes_per_bucket(t));
	qpu_timeline_init(&t->vcd, 1u << QPU_TIMELINE_SHIFT);
	for (i = 0; i < TM_TMUS; i++)
		qpu_timeline_init(&t->tmu_tl[i], 1u << QPU_TIMELINE_SHIFT);
}

void qpu_timing_set_param(struct qpu_timing *t, unsigned int id, u32 value)
{
	if (id < QPU_TIMING_NUM_PARAMS)
		t->p[id] = value;
	if (id == QPU_TP_ISSUE_CYCLES && !value)
		t->p[id] = 1;
	t->sdram.cap = sdram_bytes_per_bucket(t);
	caches_init(t);		/* empty still: only the geometry changes */
}

void qpu_timing_start(struct qpu_timing *t, unsigned int qi, u32 code_addr,
		      u32 unif_addr)
{
	struct tm_qpu *q;

	if (qi >= QPU_EMU_NUM_QPUS)
		return;
	q = &t->q[qi];
	tm_memset(q, 0, sizeof(*q));
	q->live = true;
	q->start = t->next_start;
	q->now = q->start;
	t->clock[qi] = q->now;
	q->unif_addr = unif_addr;
	t->next_start += t->p[QPU_TP_QPU_START_CYCLES];
	(void)code_addr;	/* fetched like every other instruction */
}

const u64 *qpu_timing_clock(const struct qpu_timing *t)
{
	return t->clock;
}

u64 qpu_timing_cycles_to_ns(const struct qpu_timing_board *board, u64 cycles)
{
	u32 mhz = board->p[QPU_TP_V3D_MHZ].value;

	return mhz ? cycles * 1000 / mhz : 0;
}

void qpu_timing_get_stats(const struct qpu_timing *t,
			  struct qpu_timing_stats *s)
{
	unsigned int i, k;

	tm_memset(s, 0, sizeof(*s));
	for (i = 0; i < QPU_EMU_NUM_QPUS; i++) {
		const struct tm_qpu *q = &t->q[i];
		struct qpu_timing_qpu_stats *o = &s->qpu[i];

		if (!q->live)
			continue;
		o->start = q->start;
		o->end = max_u64(q->dma_store_done, q->dma_load_done);
		o->end = max_u64(q->now, o->end);
		o->instructions = q->n;
		for (k = 0; k < QPU_TIMING_NUM_STALLS; k++)
			o->stall[k] = q->stall[k];
		s->cycles = max_u64(s->cycles, o->end);
	}
	s->ns = qpu_timing_cycles_to_ns(t->b, s->cycles);
	s->sdram_bytes = t->sdram_bytes;
	s->tmu_misses = t->tmu_misses;
	s->l2_misses = t->l2_misses;
}
