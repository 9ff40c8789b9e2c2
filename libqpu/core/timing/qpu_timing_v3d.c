// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * The V3D timing model's mechanics (qpu_timing_v3d.h says what it models;
 * qpu_timing_v3d_board.c holds the numbers): per-QPU clocks advanced by
 * the trace hook, TMU lookups through each slice's L1T and the shared L2T
 * to an SDRAM booked by bandwidth, results queued per thread until ldtmu.
 * The SDRAM and each slice's TMU are timelines (qpu_timeline.h): the
 * emulator runs the QPUs in clock order, but an instruction that stalls
 * books its lookup at the end of the stall, ahead of QPUs still behind.
 */
#include "qpu_timing_v3d.h"
#include "v3d/qpu_v3d_codec.h"
#include "qpu_timeline.h"

#define TV_FIFO		16	/* ring of result times per thread */
#define TV_L1T_MAX	1024	/* lines per slice the arrays hold */
#define TV_L2T_MAX	8192
#define TV_SLICES	4
#define TV_DECODED	256	/* words the trace hook remembers decoded */

/* What the trace hook needs of a word, remembered by the word. */
struct tv_decoded {
	u64 word;
	bool valid;
	bool sfu;
	u32 sig;
};

struct tv_cache {
	u32 sets, ways, line;
	u32 tag[TV_L2T_MAX];	/* line number + 1, 0: empty */
	u32 used[TV_L2T_MAX];	/* LRU stamp */
	u32 stamp;
};

struct tv_thread {
	u64 ready[TV_FIFO];
	u8 head, n;
};

struct tv_qpu {
	u64 clock;
	u64 sfu_free;
	u64 write_free;		/* its last write gone to SDRAM */
	bool started;
	struct tv_thread t[QPU_V3D_EMU_THREADS];
	struct qpu_tv_qpu_stats s;
};

struct qpu_tv {
	struct qpu_tv_board b;
	const struct qpu_v3d_emu_board_info *emu;
	bool ready;		/* the caches sized from the parameters */
	u64 next_batch;
	struct qpu_timeline sdram;	/* bytes */
	struct qpu_timeline tmu[TV_SLICES];	/* cycles of each slice's TMU */
	u64 sdram_bytes, l1t_misses, l2t_misses;
	struct tv_qpu q[QPU_V3D_EMU_MAX_QPUS];
	u64 clock[QPU_V3D_EMU_MAX_QPUS];	/* q[i].clock, for qpu_tv_clock() */
	struct tv_decoded dec[TV_DECODED];
	struct tv_cache l2t;
	struct tv_cache l1t[TV_SLICES];
};

size_t qpu_tv_size(void)
{
	return (sizeof(struct qpu_tv) + 7) & ~(size_t)7;
}

void qpu_tv_init(struct qpu_tv *t, const struct qpu_tv_board *board)
{
	u8 *p = (u8 *)t;
	size_t i;

	for (i = 0; i < sizeof(*t); i++)
		p[i] = 0;
	t->b = *board;
	t->emu = qpu_v3d_emu_board(board->emu);
}

void qpu_tv_set_param(struct qpu_tv *t, unsigned int id, u32 value)
{
	if (id < QPU_TV_NUM_PARAMS)
		t->b.p[id].value = value;
}

static u32 pv(const struct qpu_tv *t, unsigned int id)
{
	return t->b.p[id].value;
}

/* Size @c from bytes/line/ways, within @max lines (0 bytes: no cache). */
static void cache_size(struct tv_cache *c, u32 bytes, u32 line, u32 ways,
		       u32 max)
{
	u32 lines;

	c->line = line ? line : 64;
	c->ways = ways ? ways : 1;
	lines = bytes / c->line;
	if (lines > max)
		lines = max;
	c->sets = lines / c->ways;
}

static u64 ns_cycles(const struct qpu_tv *t, u64 ns)
{
	return ns * t->emu->clock_mhz / 1000;
}

/* SDRAM bytes a timeline bucket moves: transfers x bus x efficiency. */
static u32 sdram_bytes_per_bucket(const struct qpu_tv *t)
{
	u64 x100 = (u64)pv(t, QPU_TV_SDRAM_MTS) * pv(t, QPU_TV_SDRAM_BUS_BYTES) *
		   pv(t, QPU_TV_SDRAM_EFFICIENCY);	/* bytes/us x 100 */
	u64 b = (x100 << QPU_TIMELINE_SHIFT) / (100 * (u64)t->emu->clock_mhz);

	return b ? (u32)b : 1;
}

static void setup(struct qpu_tv *t)
{
	unsigned int i;

	cache_size(&t->l2t, pv(t, QPU_TV_L2T_BYTES), pv(t, QPU_TV_L2T_LINE_BYTES),
		   pv(t, QPU_TV_L2T_WAYS), TV_L2T_MAX);
	for (i = 0; i < TV_SLICES; i++) {
		cache_size(&t->l1t[i], pv(t, QPU_TV_L1T_BYTES),
			   pv(t, QPU_TV_L1T_LINE_BYTES), pv(t, QPU_TV_L1T_WAYS),
			   TV_L1T_MAX);
		qpu_timeline_init(&t->tmu[i], 1u << QPU_TIMELINE_SHIFT);
	}
	qpu_timeline_init(&t->sdram, sdram_bytes_per_bucket(t));
	t->ready = true;
}

/* Look @addr up in @c, filling it on a miss: true on a hit. */
static bool cache_access(struct tv_cache *c, u32 addr)
{
	u32 line = addr / c->line, set, i, victim;

	if (!c->sets)
		return false;
	set = (line % c->sets) * c->ways;
	victim = set;
	c->stamp++;
	for (i = set; i < set + c->ways; i++) {
		if (c->tag[i] == line + 1) {
			c->used[i] = c->stamp;
			return true;
		}
		if (c->used[i] < c->used[victim])
			victim = i;
	}
	c->tag[victim] = line + 1;
	c->used[victim] = c->stamp;
	return false;
}

/* Book @bytes on the SDRAM from cycle @now: the cycle the last one moves. */
static u64 sdram_book(struct qpu_tv *t, u64 now, u32 bytes)
{
	t->sdram_bytes += bytes;
	return qpu_timeline_book(&t->sdram, now, bytes);
}

/* An SFU operation: 7.1's add operations, 4.2's magic writes. */
static bool is_sfu(const struct qpu_v3d_instr *in)
{
	unsigned int op = in->add.op;

	return op == QPU_V3D_A_RECIP ||
	       (op >= QPU_V3D_A_RSQRT && op <= QPU_V3D_A_RSQRT2) ||
	       (in->add.magic && in->add.waddr >= QPU_V3D_W_RECIP &&
		in->add.waddr <= QPU_V3D_W_RSQRT2) ||
	       (in->mul.magic && in->mul.waddr >= QPU_V3D_W_RECIP &&
		in->mul.waddr <= QPU_V3D_W_RSQRT2);
}

static void stall(struct tv_qpu *q, unsigned int why, u64 until)
{
	if (until > q->clock) {
		q->s.stall[why] += until - q->clock;
		q->clock = until;
	}
}

/* The thread's state (the caches sized on first use), or NULL. */
static struct tv_thread *thread_of(struct qpu_tv *t, unsigned int qpu,
				   unsigned int thread)
{
	if (qpu >= QPU_V3D_EMU_MAX_QPUS || thread >= QPU_V3D_EMU_THREADS)
		return NULL;
	if (!t->ready)
		setup(t);
	return &t->q[qpu].t[thread];
}

/* @word's signals and SFU use, or NULL for a word that does not decode. */
static const struct tv_decoded *decoded(struct qpu_tv *t, u64 word)
{
	struct tv_decoded *d = &t->dec[(word ^ word >> 29 ^ word >> 47) %
				       TV_DECODED];
	struct qpu_v3d_instr in;

	if (d->valid && d->word == word)
		return d;
	if (qpu_v3d_decode(t->emu->gen, word, &in) != QPU_V3D_VALID)
		return NULL;
	d->word = word;
	d->valid = true;
	d->sig = in.is_branch ? 0 : qpu_v3d_sig_bits(t->emu->gen, in.sig);
	d->sfu = !in.is_branch && is_sfu(&in);
	return d;
}

void qpu_tv_trace(void *ctx, unsigned int qpu, unsigned int thread, u32 pc,
		  u64 word)
{
	struct qpu_tv *t = ctx;
	const struct tv_decoded *d;
	struct tv_qpu *q;
	struct tv_thread *th;

	(void)pc;
	th = thread_of(t, qpu, thread);
	if (!th)
		return;
	q = &t->q[qpu];
	if (!q->started) {
		q->started = true;
		t->next_batch += pv(t, QPU_TV_BATCH_START_CYCLES);
		q->clock = t->next_batch;
	}
	d = decoded(t, word);
	if (!d)
		return;
	if ((d->sig & QPU_V3D_SIG_LDTMU) && th->n) {
		stall(q, QPU_TV_STALL_TMU, th->ready[th->head]);
		th->head = (th->head + 1) % TV_FIFO;
		th->n--;
	}
	if (d->sfu) {
		stall(q, QPU_TV_STALL_SFU, q->sfu_free);
		q->sfu_free = q->clock + pv(t, QPU_TV_SFU_CYCLES);
	}
	if (d->sig & QPU_V3D_SIG_THRSW) {
		q->s.stall[QPU_TV_STALL_THRSW] += pv(t, QPU_TV_THRSW_CYCLES);
		q->clock += pv(t, QPU_TV_THRSW_CYCLES);
	}
	q->clock += pv(t, QPU_TV_ISSUE_CYCLES);
	q->s.instructions++;
	t->clock[qpu] = q->clock;
}

/* The cycle one line's data reaches the TMU, looked up at @now. */
static u64 line_ready(struct qpu_tv *t, unsigned int slice, u32 addr, u64 now,
		      bool write)
{
	u64 at = now + pv(t, QPU_TV_TMU_HIT_CYCLES);

	if (write) {	/* into the L2T, a missed line read first if it allocates */
		if (!cache_access(&t->l2t, addr)) {
			t->l2t_misses++;
			if (pv(t, QPU_TV_L2T_WRITE_ALLOCATE))
				return sdram_book(t, now, t->l2t.line);
		}
		return at;
	}
	if (cache_access(&t->l1t[slice], addr))
		return at;
	t->l1t_misses++;
	at += pv(t, QPU_TV_L2T_HIT_CYCLES);
	if (cache_access(&t->l2t, addr))
		return at;
	t->l2t_misses++;
	return sdram_book(t, now, t->l2t.line) + at - now +
	       ns_cycles(t, pv(t, QPU_TV_SDRAM_LATENCY_NS));
}

void qpu_tv_tmu(void *ctx, unsigned int qpu, unsigned int thread,
		const u32 addr[16], u16 lanes, unsigned int words,
		unsigned int size, bool write)
{
	struct qpu_tv *t = ctx;
	unsigned int slice, i, k, n = 0, per_qpu, inflight = 0;
	struct tv_thread *th;
	struct tv_qpu *q;
	u32 seen[QPU_V3D_EMU_LANES];
	u64 now, done, start, lane;

	th = thread_of(t, qpu, thread);
	if (!th)
		return;
	q = &t->q[qpu];
	slice = (qpu / t->emu->qpus_per_slice) % TV_SLICES;
	/* the QPU's FIFO: wait for the oldest result when it is full */
	per_qpu = pv(t, QPU_TV_TMU_FIFO);
	for (i = 0; i < QPU_V3D_EMU_THREADS; i++)
		inflight += q->t[i].n;
	if (per_qpu && inflight + words > per_qpu && th->n)
		stall(q, QPU_TV_STALL_TMU_FIFO, th->ready[th->head]);
	if (write)	/* one write in flight per QPU */
		stall(q, QPU_TV_STALL_TMU_FIFO, q->write_free);
	now = q->clock;
	done = now + pv(t, QPU_TV_TMU_HIT_CYCLES);
	lane = pv(t, QPU_TV_TMU_LANE_CYCLES);
	for (i = 0; i < QPU_V3D_EMU_LANES; i++) {
		u32 line;

		if (!(lanes >> i & 1))
			continue;
		line = addr[i] / t->l2t.line;
		for (k = 0; k < n && seen[k] != line; k++)
			;
		if (k < n)
			continue;
		seen[n++] = line;
		/* the line's turn on the slice's TMU starts it */
		start = qpu_timeline_book(&t->tmu[slice], now, lane) - lane;
		start = line_ready(t, slice, addr[i], start, write);
		if (start > done)
			done = start;
	}
	t->clock[qpu] = q->clock;
	if (write) {
		unsigned int bytes = 0;

		for (i = 0; i < QPU_V3D_EMU_LANES; i++)
			bytes += (lanes >> i & 1) * words * size;
		q->write_free = sdram_book(t, done, bytes);
		return;
	}
	for (k = 0; k < words && th->n < TV_FIFO; k++) {
		th->ready[(th->head + th->n) % TV_FIFO] = done;
		th->n++;
	}
}

const u64 *qpu_tv_clock(const struct qpu_tv *t)
{
	return t->clock;
}

void qpu_tv_get_stats(const struct qpu_tv *t, struct qpu_tv_stats *s)
{
	unsigned int i;

	s->cycles = 0;
	for (i = 0; i < QPU_V3D_EMU_MAX_QPUS; i++) {
		s->qpu[i] = t->q[i].s;
		s->qpu[i].end = t->q[i].clock;
		if (t->q[i].clock > s->cycles)
			s->cycles = t->q[i].clock;
	}
	s->ns = s->cycles * 1000 / t->emu->clock_mhz + pv(t, QPU_TV_CSD_SUBMIT_NS);
	s->sdram_bytes = t->sdram_bytes;
	s->l1t_misses = t->l1t_misses;
	s->l2t_misses = t->l2t_misses;
}
