// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * The V3D emulator's QPUs: their thread slots, the instruction cycle
 * (operands, both ALUs, signals, writes, delay slots), branches, thread
 * switches and ends, barriers, and the CSD that fills the slots.
 *
 * DOC: semantics and their sources
 * - Operands: 4.2 reads r0..r5 or the two shared read addresses through
 *   each operand's mux (raddr_b a small immediate under its signal); 7.1
 *   reads a register-file address per operand, or a small immediate under
 *   that operand's signal. Every read sees the registers as they were
 *   before the instruction; its writes land at its end.
 * - Register file: 64 registers a thread, 32 with 4 threads, as Mesa's
 *   register allocator has it for V3D 4.x and later ("double the physical
 *   register space per thread"); an address past them wraps (unconfirmed).
 * - Signals: ldunif writes r5 (4.2) or rf0 (7.1), ldunifa the same from
 *   the unifa stream, ldunifrf/ldunifarf/ldtmu the address the signal
 *   carries, all at the end of their instruction (py-videocore's tests read
 *   them in the next one). 4.2's SFU writes (recip ... rsqrt2 magic
 *   addresses) land in r4 one instruction later: the second instruction
 *   after the write reads them (py-videocore6's test_sfu puts one nop
 *   between); earlier reads see the old r4. The SFU ALU ops of both
 *   generations write their destination like any op (the same test reads
 *   it in the next instruction). unifa takes effect at once.
 * - Magic writes: r5 (4.2) and quad (7.1, into rf0) give each quad its
 *   first lane, r5rep and rep give every lane the value of lane 0; tmuc sets the TMU
 *   config word, tmud/tmudref/tmuoff queue data, tmua/tmuau make the lookup
 *   (qpu_v3d_emu_mem.c), unifa points the second uniform stream, syncb
 *   arrives at the supergroup's barrier. The VPM, tile buffer and varyings
 *   have no compute use here: they fault as instructions.
 * - 4.2's rot signal rotates the mul ALU's operands by raddr_b's small
 *   immediate, or by r5's lane 0 when raddr_b is 0 (py-videocore6's
 *   encoding): lane i gets lane (i - n) mod 16 of an accumulator, and of a
 *   register-file operand lane 4q + (i - n) mod 4, inside its quad (its
 *   test_full_rotate and test_quad_rotate: "rot signal with rfN source
 *   performs as a quad rotate").
 * - thrsw: the switch comes after two delay slots. Two thrsw in a row mark
 *   the last switch (Mesa's emit_thrsw: "signal that to the HW by emitting
 *   two THRSWs in a row"); the thrsw after it ends the thread, again after
 *   two delay slots. A thrsw in the last delay slot of another (py-
 *   videocore6's test_parallel loops so) switches again two instructions
 *   after the thread resumes. A barrier (a syncb write) blocks at the next switch
 *   (Mesa: "the blocking of a TSY op only happens at the next thread
 *   switch") until every thread of the supergroup arrived or ended.
 * - Branches: taken after three delay slots; relative targets count from
 *   past them; a register target reads raddr_a's lane 0, a register
 *   uniform target its lane 1 aligned down to 8 bytes (py-videocore's
 *   test_uniform_branch_reg puts the address in lane 1; its test_unifa
 *   branches to src + 4 * eidx and reads src[0] first). A uniform target read from the stream is
 *   absolute, or relative to the address past that uniform (its
 *   test_uniform_branch_rel). The link register is written only when bit
 *   23 is set (py-videocore's link flag; the codec's BR_LINK): its value
 *   is the address past the delay slots. Conditions read the a flags of
 *   all 16 lanes (a compute batch runs them all); msfign is ignored.
 * - CSD: cfg[5] THREADING runs 4 threads a QPU in slots 0..3, else 2 in
 *   slots 0 and 2 (py-videocore6's test_parallel counts (tidx >> 1) & 31 as
 *   16 distinct ids of 16 batches on 8 QPUs with threading off). tidx is
 *   QPU << 2 | slot. The CSD runs cfg[4] + 1 batches, cfg[4] on a Pi 5
 *   (struct qpu_v3d_emu_board_info's csd_raw_batches); their workgroups
 *   fill supergroups lane by lane (batch_lane()), a supergroup's batches
 *   start together, on a slot of every QPU before a second of any; the
 *   ids count x, then y, then z, with no wrap of z. The payload, as
 *   Mesa's compute setup reads it: rf0 (4.2) or rf3 (7.1) holds the
 *   workgroup x | y << 16, rf2 z | workgroup-in-supergroup << 16 | local
 *   index in the top max(6, log2 wg_size rounded up) bits: Mesa's
 *   ffs(next_pow2(MAX2(wg_size, 64))) - 1, which py-videocore7's
 *   test_parallel_with_workgroup reads on a Pi 5. (A later Mesa reads
 *   log2(wg_size) bits for powers of two; the board's test decides.)
 */
#include "v3d/qpu_v3d_emu_internal.h"
#include "qpu_strbuf.h"

static const struct qpu_v3d_emu_board_info boards[QPU_V3D_EMU_BOARD_COUNT] = {
	[QPU_V3D_EMU_BOARD_PI4] = { "pi4", QPU_GEN_V3D42, 2, 4, 500, false },
	[QPU_V3D_EMU_BOARD_PI5_3X4] = { "pi5", QPU_GEN_V3D71, 3, 4, 800, true },
	[QPU_V3D_EMU_BOARD_PI5_4X4] = { "pi5-16", QPU_GEN_V3D71, 4, 4, 960, true },
};

const struct qpu_v3d_emu_board_info *
qpu_v3d_emu_board(enum qpu_v3d_emu_board board)
{
	if ((unsigned int)board >= QPU_V3D_EMU_BOARD_COUNT)
		return NULL;
	return &boards[board];
}

void qpu_v3d_csd_decode(const u32 cfg[7], bool raw_batches,
			struct qpu_v3d_csd *csd)
{
	unsigned int i;

	for (i = 0; i < 3; i++) {
		csd->wg_count[i] = cfg[i] >> 16;
		csd->wg_offset[i] = cfg[i] & 0xffff;
	}
	csd->wg_size = cfg[3] & 0xff;
	if (!csd->wg_size)
		csd->wg_size = 256;
	csd->wgs_per_sg = (cfg[3] >> 8) & 0xf;
	if (!csd->wgs_per_sg)
		csd->wgs_per_sg = 16;
	csd->batches_per_sg = ((cfg[3] >> 12) & 0xff) + 1;
	csd->max_sg_id = (cfg[3] >> 20) & 0x3f;
	csd->overlap = (cfg[3] >> 26) & 1;
	csd->batches = raw_batches ? cfg[4] : cfg[4] + 1;
	csd->code = cfg[5] & ~7u;
	csd->propagate_nans = (cfg[5] >> 2) & 1;
	csd->single_seg = (cfg[5] >> 1) & 1;
	csd->threading = cfg[5] & 1;
	csd->unif = cfg[6];
}

size_t qpu_v3d_emu_size(void)
{
	return sizeof(struct qpu_v3d_emu);
}

int qpu_v3d_emu_init(struct qpu_v3d_emu *emu, enum qpu_v3d_emu_board board,
		     struct qpu_v3d_mmu *mmu, const struct qpu_v3d_emu_ops *ops,
		     void *ctx)
{
	const struct qpu_v3d_emu_board_info *b = qpu_v3d_emu_board(board);
	unsigned int i, l;

	if (!b || !mmu)
		return -QPU_V3D_EMU_EINVAL;
	__builtin_memset(emu, 0, sizeof(*emu));
	emu->board = b;
	emu->gen = b->gen;
	emu->nqpus = b->slices * b->qpus_per_slice;
	emu->mmu = mmu;
	emu->ops = ops;
	emu->ctx = ctx;
	emu->stop = QPU_V3D_EMU_RUNNING;
#ifdef QPU_EMU_REFERENCE_PATH	/* make check-reference */
	emu->predecode = false;
#else
	emu->predecode = true;
#endif
	emu->host_float_ok = true;
	emu->pre_lo = ~0u;
	for (i = 0; i < QPU_V3D_SMALL_IMMS; i++)
		for (l = 0; l < LANES; l++)
			emu->smimm[i][l] = qpu_v3d_small_imm[i];
	return 0;
}

void qpu_v3d_emu_set_limit(struct qpu_v3d_emu *emu, u64 instructions)
{
	emu->limit = instructions;
}

const struct qpu_v3d_emu_fault *qpu_v3d_emu_get_fault(const struct qpu_v3d_emu *emu)
{
	return &emu->fault;
}

const struct qpu_v3d_emu_stats *qpu_v3d_emu_get_stats(const struct qpu_v3d_emu *emu)
{
	return &emu->stats;
}

void v3d_emu_set_fault(struct qpu_v3d_emu *emu, unsigned int qpu,
		       unsigned int slot, enum qpu_fault_reason why,
		       u32 addr, enum qpu_mem_access kind)
{
	if (emu->stop != QPU_V3D_EMU_RUNNING)
		return;
	emu->stop = QPU_V3D_EMU_FAULT;
	emu->fault.f.reason = why;
	emu->fault.f.qpu = qpu;
	emu->fault.f.pc = emu->q[qpu].t[slot].pc;
	emu->fault.f.addr = addr;
	emu->fault.f.access = kind;
	emu->fault.thread = slot;
}

static void thread_reset(struct v3d_thread *t, unsigned int threads, u32 code,
			 u32 unif)
{
	__builtin_memset(t, 0, sizeof(*t));
	t->state = T_READY;
	t->nregs = threads == 4 ? 32 : 64;
	t->pc = code;
	t->unif = unif;
	t->tmu_cfg = 0xffffffffu;
	t->group = ~0u;
}

int qpu_v3d_emu_start(struct qpu_v3d_emu *emu, unsigned int qpu,
		      unsigned int slot, unsigned int threads, u32 code,
		      u32 unif)
{
	struct v3d_qpu *q;

	if (qpu >= emu->nqpus || slot >= QPU_V3D_EMU_THREADS ||
	    (threads != 1 && threads != 2 && threads != 4) ||
	    (code & 7) || (unif & 3))
		return -QPU_V3D_EMU_EINVAL;
	q = &emu->q[qpu];
	if (q->t[slot].state != T_FREE)
		return -QPU_V3D_EMU_EBUSY;
	q->threads = threads;
	thread_reset(&q->t[slot], threads, code, unif);
	q->t[slot].tidx = qpu << 2 | slot;
	emu->stop = QPU_V3D_EMU_RUNNING;
	return 0;
}

int qpu_v3d_emu_dispatch(struct qpu_v3d_emu *emu, const u32 cfg[7])
{
	struct qpu_v3d_csd csd;

	if (emu->csd_active)
		return -QPU_V3D_EMU_EBUSY;
	qpu_v3d_csd_decode(cfg, emu->board->csd_raw_batches, &csd);
	if (csd.unif & 3)
		return -QPU_V3D_EMU_EINVAL;
	emu->csd = csd;
	emu->csd_active = true;
	emu->next_batch = 0;
	emu->stale_n = 0;	/* a job starts with a clean uniform cache */
	__builtin_memset(emu->stale_hint, 0, sizeof(emu->stale_hint));
	emu->noted_ok = false;
	emu->unif_lines_n = 0;
	emu->unif_last = 0;
	emu->slot_freed = true;
	emu->stop = QPU_V3D_EMU_RUNNING;
	__builtin_memset(&emu->stats, 0, sizeof(emu->stats));
	return 0;
}

/*
 * Where batch @b's lane @lane sits: its workgroup and local index. A
 * supergroup's batches hold its workgroups lane after lane, as many as
 * fill them when that is more than wgs_per_sg says: py-videocore7 asks for
 * 24 per supergroup, which its 4-bit field keeps as 8, and its
 * test_parallel_with_workgroup sees workgroups 0..23 there on a Pi 5.
 */
static void batch_lane(const struct qpu_v3d_csd *csd, u32 b, unsigned int lane,
		       u32 *wg, u32 *wg_in_sg, u32 *local)
{
	u32 sg = b / csd->batches_per_sg;
	u32 l = (b % csd->batches_per_sg) * LANES + lane;
	u32 per_sg = csd->batches_per_sg * LANES / csd->wg_size;

	if (per_sg < csd->wgs_per_sg)
		per_sg = csd->wgs_per_sg;
	*wg_in_sg = l / csd->wg_size;
	*local = l % csd->wg_size;
	*wg = sg * per_sg + *wg_in_sg;
}

/*
 * The barrier group of batch @b: its supergroup. A barrier holds every
 * batch of the supergroup (py-videocore6's test_barrier syncs 16 one-batch
 * workgroups of one supergroup; Mesa sizes supergroups of shaders with
 * barriers to fit the QPUs at once).
 */
static u32 batch_group(const struct qpu_v3d_csd *csd, u32 b)
{
	return b / csd->batches_per_sg;
}

/* Bits of the local index at the top of the payload's rf2. */
static unsigned int lii_bits(u32 wg_size)
{
	unsigned int bits = 6;

	while ((1u << bits) < wg_size)
		bits++;
	return bits;
}

static void write_payload(struct qpu_v3d_emu *emu, struct v3d_thread *t, u32 b)
{
	const struct qpu_v3d_csd *csd = &emu->csd;
	unsigned int bits = lii_bits(csd->wg_size), i;
	unsigned int r0 = emu->gen == QPU_GEN_V3D71 ? 3 : 0;

	for (i = 0; i < LANES; i++) {
		u32 wg, in_sg, local, c[3], id[3];

		batch_lane(csd, b, i, &wg, &in_sg, &local);
		c[0] = csd->wg_count[0] ? csd->wg_count[0] : 0x10000;
		c[1] = csd->wg_count[1] ? csd->wg_count[1] : 0x10000;
		id[0] = wg % c[0] + csd->wg_offset[0];
		id[1] = (wg / c[0]) % c[1] + csd->wg_offset[1];
		id[2] = wg / c[0] / c[1] + csd->wg_offset[2];
		t->rf[r0][i] = (id[0] & 0xffff) | id[1] << 16;
		t->rf[2][i] = (id[2] & 0xffff) |
			      (in_sg & ((1u << (16 - bits)) - 1)) << 16 |
			      local << (32 - bits);
	}
}

/* Whether QPU @q may take a batch of a @threads-thread dispatch. */
static bool qpu_takes(const struct v3d_qpu *q, unsigned int threads)
{
	unsigned int s;

	if (q->threads == threads)
		return true;
	for (s = 0; s < QPU_V3D_EMU_THREADS; s++)
		if (q->t[s].state != T_FREE)
			return false;
	return true;
}

/* Start as many batches as free slots hold, a supergroup at a time. */
static void csd_fill(struct qpu_v3d_emu *emu)
{
	const struct qpu_v3d_csd *csd = &emu->csd;
	unsigned int threads = csd->threading ? 4 : 2, step = 4 / threads;

	while (emu->csd_active && emu->next_batch < csd->batches) {
		u32 b = emu->next_batch, g = batch_group(csd, b), n = 0, free = 0;
		unsigned int qpu, s;

		/* a group larger than the board starts as slots allow */
		while (b + n < csd->batches && batch_group(csd, b + n) == g &&
		       n < emu->nqpus * threads)
			n++;
		for (qpu = 0; qpu < emu->nqpus; qpu++) {
			if (!qpu_takes(&emu->q[qpu], threads))
				continue;
			for (s = 0; s < QPU_V3D_EMU_THREADS; s += step)
				free += emu->q[qpu].t[s].state == T_FREE;
		}
		if (free < n)
			return;
		/*
		 * a slot on every QPU before a second on any, as batches run
		 * side by side on the hardware's QPUs
		 */
		for (s = 0; s < QPU_V3D_EMU_THREADS && n; s += step) {
			for (qpu = 0; qpu < emu->nqpus && n; qpu++) {
				struct v3d_qpu *q = &emu->q[qpu];
				struct v3d_thread *t = &q->t[s];

				if (t->state != T_FREE || !qpu_takes(q, threads))
					continue;
				q->threads = threads;
				thread_reset(t, threads, csd->code, csd->unif);
				t->tidx = qpu << 2 | s;
				t->group = g;
				write_payload(emu, t, emu->next_batch);
				emu->next_batch++;
				emu->stats.batches++;
				n--;
			}
		}
	}
	if (emu->next_batch >= csd->batches)
		emu->csd_active = false;
}

static u32 reg_index(const struct v3d_thread *t, unsigned int r)
{
	return r & (t->nregs - 1);
}

/* Release @group's barrier when none of its live threads runs on. */
static void barrier_check(struct qpu_v3d_emu *emu, u32 group)
{
	unsigned int qpu, s;
	bool waiting = false;

	for (qpu = 0; qpu < emu->nqpus; qpu++) {
		for (s = 0; s < QPU_V3D_EMU_THREADS; s++) {
			const struct v3d_thread *t = &emu->q[qpu].t[s];

			if (t->state == T_FREE || t->group != group)
				continue;
			if (t->state != T_WAIT_BARRIER)
				return;
			waiting = true;
		}
	}
	if (!waiting)
		return;
	emu->stats.barriers++;
	emu->resched = true;
	for (qpu = 0; qpu < emu->nqpus; qpu++) {
		for (s = 0; s < QPU_V3D_EMU_THREADS; s++) {
			struct v3d_thread *t = &emu->q[qpu].t[s];

			if (t->state == T_WAIT_BARRIER && t->group == group)
				t->state = T_READY;
		}
	}
}

/* The thread switch after thrsw's delay slots (or its end). */
static void thread_switch(struct qpu_v3d_emu *emu, unsigned int qpu,
			  struct v3d_thread *t)
{
	struct v3d_qpu *q = &emu->q[qpu];
	unsigned int i;

	emu->stats.thread_switches++;
	emu->resched = true;
	if (t->ending) {
		u32 g = t->group;

		t->state = T_FREE;
		emu->slot_freed = true;
		barrier_check(emu, g);
	} else if (t->barrier_pending) {
		t->barrier_pending = false;
		t->state = T_WAIT_BARRIER;
		barrier_check(emu, t->group);
	}
	for (i = 1; i <= QPU_V3D_EMU_THREADS; i++) {
		unsigned int s = (q->cur + i) % QPU_V3D_EMU_THREADS;

		if (q->t[s].state == T_READY) {
			q->cur = s;
			return;
		}
	}
}

static void replicate(u32 *dst, const u32 *v, u16 lanes, bool quad)
{
	unsigned int i;

	for (i = 0; i < LANES; i++)
		if (lanes >> i & 1)
			dst[i] = v[quad ? i & ~3u : 0];
}

static void write_lanes(u32 *dst, const u32 *v, u16 lanes)
{
	unsigned int i;

	if (lanes == ALL_LANES) {
		__builtin_memcpy(dst, v, LANES * sizeof(*v));
		return;
	}
	for (i = 0; i < LANES; i++)
		if (lanes >> i & 1)
			dst[i] = v[i];
}

static void trace_write(struct qpu_v3d_emu *emu, unsigned int qpu,
			unsigned int slot, unsigned int waddr, bool acc,
			const u32 *v, u16 lanes)
{
	if (emu->ops && emu->ops->trace_write)
		emu->ops->trace_write(emu->ctx, qpu, slot, waddr, acc, v, lanes);
}

/* A write of @v to @waddr (magic or the register file) in @lanes. */
static void write_dest(struct qpu_v3d_emu *emu, unsigned int qpu,
		       unsigned int slot, unsigned int waddr, bool magic,
		       const u32 *v, u16 lanes)
{
	struct v3d_thread *t = &emu->q[qpu].t[slot];
	bool v71 = emu->gen == QPU_GEN_V3D71;
	unsigned int i;

	if (!magic) {
		write_lanes(t->rf[reg_index(t, waddr)], v, lanes);
		trace_write(emu, qpu, slot, waddr, false, v, lanes);
		return;
	}
	if (!v71 && waddr <= 5) {
		if (waddr == QPU_V3D_W_QUAD)
			replicate(t->acc[5], v, lanes, true);
		else
			write_lanes(t->acc[waddr], v, lanes);
		trace_write(emu, qpu, slot, waddr, true, t->acc[waddr], lanes);
		return;
	}
	switch (waddr) {
	case QPU_V3D_W_NOP:
	case QPU_V3D_W_SYNC:
	case QPU_V3D_W_SYNCU:
		return;
	case QPU_V3D_W_QUAD:	/* 7.1: quad */
		replicate(t->rf[0], v, lanes, true);
		return;
	case QPU_V3D_W_R5REP:
		replicate(v71 ? t->rf[0] : t->acc[5], v, lanes, false);
		return;
	case QPU_V3D_W_UNIFA:
		t->unifa = v[0];
		return;
	case QPU_V3D_W_TMUD:
	case QPU_V3D_W_TMUC + 6:	/* tmudref */
	case QPU_V3D_W_TMUC + 7:	/* tmuoff */
		if (t->tmu_ndata >= TMU_DATA_MAX) {
			v3d_emu_set_fault(emu, qpu, slot,
					  QPU_FAULT_REASON_INSTRUCTION, waddr,
					  QPU_MEM_TMU);
			return;
		}
		__builtin_memcpy(t->tmu_data[t->tmu_ndata], v,
				 sizeof(t->tmu_data[0]));
		t->tmu_ndata++;
		return;
	case QPU_V3D_W_TMUC:
		t->tmu_cfg = v[0];
		return;
	case QPU_V3D_W_TMUAU:
		if (!v3d_read_unif(emu, qpu, slot, &t->unif, &t->tmu_cfg))
			return;
		emu->stats.uniforms++;
		v3d_tmu_lookup(emu, qpu, slot, v, lanes);
		return;
	case QPU_V3D_W_TMUA:
		v3d_tmu_lookup(emu, qpu, slot, v, lanes);
		return;
	case QPU_V3D_W_SYNCB:
		t->barrier_pending = true;
		return;
	}
	if (!v71 && waddr >= QPU_V3D_W_RECIP && waddr <= QPU_V3D_W_RSQRT2) {
		for (i = 0; i < LANES; i++)
			t->sfu_val[i] = qpu_v3d_sfu(waddr - QPU_V3D_W_RECIP, v[i]);
		t->sfu_left = 3;	/* counted down at this one's end too */
		return;
	}
	if (waddr > QPU_V3D_W_TMUC && waddr <= QPU_V3D_W_TMUHSLOD)
		return;		/* texture parameters: no general-mode use */
	v3d_emu_set_fault(emu, qpu, slot, QPU_FAULT_REASON_INSTRUCTION, waddr,
			  QPU_MEM_TMU);
}

/* Operand @field of an ALU (mux on 4.2, address on 7.1) into @out. */
static const u32 *operand(struct qpu_v3d_emu *emu, struct v3d_thread *t,
			  const struct qpu_v3d_instr *in, u32 sig,
			  unsigned int field, u32 smimm_bit, u32 *tmp)
{
	unsigned int i, idx;

	if (emu->gen == QPU_GEN_V3D71) {
		if (sig & smimm_bit) {
			for (i = 0; i < LANES; i++)
				tmp[i] = qpu_v3d_small_imm[field];
			return tmp;
		}
		return t->rf[reg_index(t, field)];
	}
	if (field < 6)
		return t->acc[field];
	if (field == QPU_V3D_MUX_A)
		return t->rf[reg_index(t, in->raddr_a)];
	if (sig & QPU_V3D_SIG_SMIMM_B) {
		idx = in->raddr_b;
		for (i = 0; i < LANES; i++)
			tmp[i] = qpu_v3d_small_imm[idx];
		return tmp;
	}
	return t->rf[reg_index(t, in->raddr_b)];
}

/* Lane i gets lane i - @n, of the vector or (@quad) of its quad. */
static void rotate(u32 *dst, const u32 *src, unsigned int n, bool quad)
{
	unsigned int i;

	for (i = 0; i < LANES; i++)
		dst[i] = quad ? src[(i & ~3u) | ((i - n) & 3)] : src[(i - n) & 15];
}

static bool branch_taken(const struct v3d_thread *t, unsigned int cond)
{
	switch (cond) {
	case QPU_V3D_BR_ALWAYS:
		return true;
	case QPU_V3D_BR_A0:
		return t->fa & 1;
	case QPU_V3D_BR_NA0:
		return !(t->fa & 1);
	case QPU_V3D_BR_ALLA:
		return t->fa == ALL_LANES;
	case QPU_V3D_BR_ANYNA:
		return t->fa != ALL_LANES;
	case QPU_V3D_BR_ANYA:
		return t->fa != 0;
	case QPU_V3D_BR_ALLNA:
		return t->fa == 0;
	}
	return false;
}

static void do_branch(struct qpu_v3d_emu *emu, unsigned int qpu,
		      unsigned int slot, const struct qpu_v3d_instr *in)
{
	struct v3d_thread *t = &emu->q[qpu].t[slot];
	const struct qpu_v3d_branch *br = &in->br;
	u32 after = t->pc + 4 * 8, u = 0, at;
	const u32 *reg = t->rf[reg_index(t, br->raddr_a)];

	if (!branch_taken(t, br->cond))
		return;
	switch (br->bdi) {
	case QPU_V3D_BR_DEST_ABS:
		t->br_target = br->offset;
		break;
	case QPU_V3D_BR_DEST_REL:
		t->br_target = after + br->offset;
		break;
	case QPU_V3D_BR_DEST_LRI:
		t->br_target = t->link;
		break;
	default:
		t->br_target = reg[0];
		break;
	}
	t->br_unif = br->ub;
	if (br->ub) {
		if (br->bdu == QPU_V3D_BR_DEST_RF) {
			t->br_unif_addr = reg[1] & ~7u;
		} else if (br->bdu == QPU_V3D_BR_DEST_LRI) {
			t->br_unif_addr = t->link;
		} else {
			at = t->unif;
			if (!v3d_read_unif(emu, qpu, slot, &at, &u))
				return;
			emu->stats.uniforms++;
			t->unif = at;
			t->br_unif_addr = br->bdu == QPU_V3D_BR_DEST_ABS ? u : at + u;
		}
	}
	if (br->link)
		t->link = after;
	t->br_left = 4;	/* counted down at the end of this one too */
}

/* What the thread does after each instruction: the delay slots' ends. */
static void delay_slots(struct qpu_v3d_emu *emu, unsigned int qpu,
			struct v3d_thread *t)
{
	unsigned int i;

	if (t->sfu_left && --t->sfu_left == 1) {
		for (i = 0; i < LANES; i++)
			t->acc[4][i] = t->sfu_val[i];
		t->sfu_left = 0;
	}
	if (t->br_left && --t->br_left == 0) {
		t->pc = t->br_target;
		if (t->br_unif)
			t->unif = t->br_unif_addr;
	}
	if (t->thrsw_left && --t->thrsw_left == 0) {
		thread_switch(emu, qpu, t);
		if (t->thrsw_queued) {	/* its slots run after the switch */
			t->thrsw_queued = false;
			t->ending = t->last_thrsw;
			t->thrsw_left = 2;
		}
	}
}

static inline void end_of_instruction(struct qpu_v3d_emu *emu,
				      unsigned int qpu, struct v3d_thread *t)
{
	if (t->sfu_left | t->br_left | t->thrsw_left)
		delay_slots(emu, qpu, t);
}

/* Byte offset of register @r of a thread with @nregs registers. */
static u16 rf_off(unsigned int r, unsigned int nregs)
{
	return (u16)(__builtin_offsetof(struct v3d_thread, rf) +
		     (r & (nregs - 1)) * LANES * sizeof(u32));
}

static u16 acc_off(unsigned int r)
{
	return (u16)(__builtin_offsetof(struct v3d_thread, acc) +
		     r * LANES * sizeof(u32));
}

/*
 * Where the fast path writes an ALU's result (FAST_W_*, with its offsets
 * in @off by register file size).
 */
static unsigned int fast_dst(enum qpu_gen gen, const struct qpu_v3d_alu *alu,
			     const struct qpu_v3d_op_info *info, u16 *off)
{
	if (!(info->args & QPU_V3D_ARG_D))
		return FAST_W_NONE;
	if (!alu->magic) {
		off[0] = rf_off(alu->waddr, 64);
		off[1] = rf_off(alu->waddr, 32);
		return FAST_W_REG;
	}
	if (alu->waddr == QPU_V3D_W_NOP)
		return FAST_W_NONE;
	/* 4.2's r0..r4; r5 writes a quad's first lane */
	if (gen == QPU_GEN_V3D42 && alu->waddr < QPU_V3D_W_R5) {
		off[0] = acc_off(alu->waddr);
		off[1] = off[0];
		return FAST_W_REG;
	}
	return FAST_W_MAGIC;
}

/* Operand @k of a fast entry: @field as operand() reads it. */
static void fast_src(struct qpu_v3d_emu *emu, struct v3d_predecoded *e,
		     unsigned int k, unsigned int field, u32 smimm_bit)
{
	const struct qpu_v3d_instr *in = &e->in;
	unsigned int r;
	bool smimm;

	e->imm[k] = NULL;
	e->src[0][k] = 0;
	e->src[1][k] = 0;
	if (emu->gen == QPU_GEN_V3D42 && field < 6) {
		e->src[0][k] = acc_off(field);
		e->src[1][k] = e->src[0][k];
		return;
	}
	if (emu->gen == QPU_GEN_V3D71) {
		smimm = e->sig & smimm_bit;
		r = field;
	} else {
		smimm = field != QPU_V3D_MUX_A && (e->sig & QPU_V3D_SIG_SMIMM_B);
		r = field == QPU_V3D_MUX_A ? in->raddr_a : in->raddr_b;
	}
	if (smimm) {
		e->imm[k] = emu->smimm[r];
		return;
	}
	e->src[0][k] = rf_off(r, 64);
	e->src[1][k] = rf_off(r, 32);
}

/* Which of z, n and c (bits 0, 1, 2) push @pf and update @uf read. */
static u8 flags_needed(unsigned int pf, unsigned int uf)
{
	u8 need = 0;

	if (pf)
		need |= 1u << (pf - QPU_V3D_PF_PUSHZ);
	if (uf)
		need |= 1u << ((uf - QPU_V3D_UF_ANDZ) / 4);
	return need;
}

/* The signals step_fast() runs besides small immediates. */
#define FAST_SIGS	(QPU_V3D_SIG_THRSW | QPU_V3D_SIG_LDTMU | \
			 QPU_V3D_SIG_LDUNIF | QPU_V3D_SIG_LDUNIFRF | \
			 QPU_V3D_SIG_SMIMMS)

/*
 * Whether ALU @alu of fast entry @e may compute straight into its register
 * (register file size @n): a register no operand of either ALU reads (the
 * handlers' pointers are restrict, the flags read the operands after) and
 * the other ALU does not write. Not with ldunif, whose fault leaves every
 * register as it was.
 */
static bool fast_direct(const struct v3d_predecoded *e, unsigned int alu,
			unsigned int n)
{
	u16 d = e->dst[alu][n];
	unsigned int k;

	if ((alu ? e->mul_w : e->add_w) != FAST_W_REG ||
	    !(alu ? e->mul_fn : e->add_fn))
		return false;
	if ((alu ? e->add_w : e->mul_w) == FAST_W_REG && e->dst[!alu][n] == d)
		return false;
	for (k = 0; k < 4; k++)
		if ((k < 2 ? e->add_fn : e->mul_fn) && !e->imm[k] &&
		    e->src[n][k] == d)
			return false;
	return true;
}

/*
 * Whether a write to @waddr (@magic) changes nothing but its thread's
 * registers: a register, 4.2's accumulators, quad and r5rep/rep.
 */
static bool magic_private(enum qpu_gen gen, bool magic, unsigned int waddr)
{
	if (!magic || waddr == QPU_V3D_W_NOP || waddr == QPU_V3D_W_R5REP ||
	    waddr == QPU_V3D_W_QUAD)
		return true;
	return gen == QPU_GEN_V3D42 && waddr < QPU_V3D_W_R5;
}

/*
 * The same for a fast ALU's write (FAST_W_*), where tmud, tmudref and
 * tmuoff count in @tmud (their queue is the thread's; only its overflow
 * faults, which the walk rules out).
 */
static bool fast_w_private(enum qpu_gen gen, unsigned int w,
			   unsigned int waddr, u8 *tmud)
{
	if (w != FAST_W_MAGIC)
		return true;
	if (waddr == QPU_V3D_W_TMUD || waddr == QPU_V3D_W_TMUDREF ||
	    waddr == QPU_V3D_W_TMUOFF) {
		(*tmud)++;
		return true;
	}
	return magic_private(gen, true, waddr);
}

/* The fast path's fields of predecoded entry @e. */
static void predecode_fast(struct qpu_v3d_emu *emu, struct v3d_predecoded *e)
{
	const struct qpu_v3d_instr *in = &e->in;
	unsigned int n, alu;

	e->fast = false;
	e->nop = false;
	e->plain = false;
	e->mov_magic = 0;
	e->priv = false;
	e->walk = 0;
	e->tmud_n = 0;
	e->ldtmu_direct = false;
	e->branch = in->is_branch;
	if (in->is_branch) {
		e->fast = true;
		/* a uniform read from the stream is memory everyone sees */
		e->priv = !in->br.ub || in->br.bdu == QPU_V3D_BR_DEST_RF ||
			  in->br.bdu == QPU_V3D_BR_DEST_LRI;
		e->walk = e->priv;
		return;
	}
	if ((e->sig & ~FAST_SIGS) ||
	    !v3d_alu_fast_pick(in, &e->add_fn, &e->mul_fn))
		return;
	e->add_w = fast_dst(emu->gen, &in->add,
			    &qpu_v3d_add_op_info[in->add.op], e->dst[0]);
	e->mul_w = fast_dst(emu->gen, &in->mul,
			    &qpu_v3d_mul_op_info[in->mul.op], e->dst[1]);
	/* an idle ALU: no operands, no call */
	if (in->add.op == QPU_V3D_A_NOP)
		e->add_fn = NULL;
	if (in->mul.op == QPU_V3D_M_NOP)
		e->mul_fn = NULL;
	if (e->add_fn)
		e->add_fn = v3d_fast_form(e->add_fn, emu->float_form);
	if (e->mul_fn)
		e->mul_fn = v3d_fast_form(e->mul_fn, emu->float_form);
	fast_src(emu, e, 0, in->add.a, QPU_V3D_SIG_SMIMM_A);
	fast_src(emu, e, 1, in->add.b, QPU_V3D_SIG_SMIMM_B);
	fast_src(emu, e, 2, in->mul.a, QPU_V3D_SIG_SMIMM_C);
	fast_src(emu, e, 3, in->mul.b, QPU_V3D_SIG_SMIMM_D);
	e->flags = in->apf || in->auf || in->mpf || in->muf;
	e->add_need = flags_needed(in->apf, in->auf);
	e->mul_need = flags_needed(in->mpf, in->muf);
	e->nop = !e->add_fn && !e->mul_fn && !e->add_w && !e->mul_w &&
		 !(e->sig & ~QPU_V3D_SIG_SMIMMS);
	e->direct = 0;
	if (!(e->sig & (QPU_V3D_SIG_LDUNIF | QPU_V3D_SIG_LDUNIFRF)))
		for (n = 0; n < 2; n++)
			for (alu = 0; alu < 2; alu++)
				if (fast_direct(e, alu, n))
					e->direct |= FAST_DIRECT(alu, n);
	e->fast = true;
	e->priv = !(e->sig & (QPU_V3D_SIG_LDUNIF | QPU_V3D_SIG_LDUNIFRF |
			      QPU_V3D_SIG_THRSW)) &&
		  (!(e->sig & QPU_V3D_SIG_LDTMU) ||
		   magic_private(emu->gen, in->sig_magic, in->sig_addr)) &&
		  fast_w_private(emu->gen, e->add_w, in->add.waddr, &e->tmud_n) &&
		  fast_w_private(emu->gen, e->mul_w, in->mul.waddr, &e->tmud_n);
	e->walk = e->priv && (e->tmud_n || (e->sig & QPU_V3D_SIG_LDTMU));
	e->ldtmu_direct = (e->sig & QPU_V3D_SIG_LDTMU) && !in->sig_magic &&
			  !(e->sig & (QPU_V3D_SIG_LDUNIF | QPU_V3D_SIG_LDUNIFRF)) &&
			  e->add_w != FAST_W_MAGIC && e->mul_w != FAST_W_MAGIC;
	e->sig_dst[0] = rf_off(in->sig_addr, 64);
	e->sig_dst[1] = rf_off(in->sig_addr, 32);
	e->plain = !e->nop && !e->flags && !(e->sig & ~QPU_V3D_SIG_SMIMMS) &&
		   e->add_w != FAST_W_MAGIC && e->mul_w != FAST_W_MAGIC;
	if (!e->flags && !(e->sig & ~QPU_V3D_SIG_SMIMMS)) {
		if (in->add.op == QPU_V3D_A_MOV && e->add_w == FAST_W_MAGIC &&
		    !e->mul_fn && e->mul_w == FAST_W_NONE)
			e->mov_magic = 1;	/* add a */
		if (in->mul.op == QPU_V3D_M_MOV && e->mul_w == FAST_W_MAGIC &&
		    !e->add_fn && e->add_w == FAST_W_NONE)
			e->mov_magic = 3;	/* mul a */
	}
}

static void lag_flush_all(struct qpu_v3d_emu *emu);
static void code_epoch_next(struct qpu_v3d_emu *emu);

/*
 * @w at @pc decoded, through the predecode cache when it is on: the
 * instruction, the cache's entry (valid until the next decode) or @tmp,
 * with the entry in @entry (NULL without predecoding); NULL for an invalid
 * word.
 */
static const struct qpu_v3d_instr *decode(struct qpu_v3d_emu *emu, u32 pc,
					  u64 w, struct qpu_v3d_instr *tmp,
					  u32 *sig,
					  const struct v3d_predecoded **entry)
{
	struct v3d_predecoded *e = &emu->pre[(pc >> 3) % PREDECODE_SIZE];

	*entry = NULL;
	if (emu->predecode && e->valid && e->pc == pc && e->word == w) {
		*sig = e->sig;
		*entry = e;
		return &e->in;
	}
	if (qpu_v3d_decode(emu->gen, w, tmp) != QPU_V3D_VALID)
		return NULL;
	*sig = tmp->is_branch ? 0 : qpu_v3d_sig_bits(emu->gen, tmp->sig);
	if (!emu->predecode)
		return tmp;
	if (emu->lag_count)	/* deferred turns run from the entries */
		lag_flush_all(emu);
	code_epoch_next(emu);	/* runs through @e end elsewhere */
	if (pc < emu->pre_lo)
		emu->pre_lo = pc;
	if (pc > emu->pre_hi)
		emu->pre_hi = pc;
	e->valid = true;
	e->pc = pc;
	e->word = w;
	e->sig = *sig;
	e->in = *tmp;
	predecode_fast(emu, e);
	*entry = e;
	return &e->in;
}

void qpu_v3d_emu_set_predecode(struct qpu_v3d_emu *emu, bool on)
{
	emu->predecode = on;
	__builtin_memset(emu->pre, 0, sizeof(emu->pre));
}

/* A signal's result @sval lands; false after a fault. */
static bool sig_write(struct qpu_v3d_emu *emu, unsigned int qpu,
		      unsigned int slot, const struct qpu_v3d_instr *in,
		      u32 sig, const u32 *sval)
{
	struct v3d_thread *t = &emu->q[qpu].t[slot];

	if (sig & QPU_V3D_SIG_WRITES_ADDR)
		write_dest(emu, qpu, slot, in->sig_addr, in->sig_magic, sval,
			   ALL_LANES);
	else if (emu->gen == QPU_GEN_V3D71)
		write_lanes(t->rf[0], sval, ALL_LANES);
	else
		write_lanes(t->acc[5], sval, ALL_LANES);
	return emu->stop == QPU_V3D_EMU_RUNNING;
}

/* The instruction's thrsw, then the next PC and the delay slots' ends. */
static void end_of_step(struct qpu_v3d_emu *emu, unsigned int qpu,
			struct v3d_thread *t, u32 sig)
{
	if (sig & QPU_V3D_SIG_THRSW) {
		if (t->thrsw_left == 2) {
			t->last_thrsw = true;	/* right after another */
		} else if (t->thrsw_left) {
			t->thrsw_queued = true;	/* in the last delay slot */
		} else {
			t->ending = t->last_thrsw;
			t->thrsw_left = 3;	/* this one and two slots */
		}
	}
	t->pc += 8;
	end_of_instruction(emu, qpu, t);
}

/* A fast operand: a small immediate's vector or a register. */
static inline const u32 *fast_op(const struct v3d_predecoded *e,
				 const u8 *base, unsigned int n, unsigned int k)
{
	return e->imm[k] ? e->imm[k] : (const u32 *)(base + e->src[n][k]);
}

/*
 * A plain entry (both ALUs' results to registers, or nowhere; no flags, no
 * signal but small immediates): step_fast()'s work without its tests.
 */
static inline void step_plain(struct qpu_v3d_emu *emu, unsigned int qpu,
			      struct v3d_thread *t,
			      const struct v3d_predecoded *e)
{
	u8 *base = (u8 *)t;
	unsigned int n = t->nregs == 32;
	u32 av[LANES], mv[LANES];
	u32 *ra = av, *rm = mv;

	if (e->add_fn) {
		if (e->direct & FAST_DIRECT(0, n))
			ra = (u32 *)(base + e->dst[0][n]);
		e->add_fn(emu, fast_op(e, base, n, 0), fast_op(e, base, n, 1),
			  ra);
	}
	if (e->mul_fn) {
		if (e->direct & FAST_DIRECT(1, n))
			rm = (u32 *)(base + e->dst[1][n]);
		e->mul_fn(emu, fast_op(e, base, n, 2), fast_op(e, base, n, 3),
			  rm);
	}
	if (e->add_w && ra == av)
		__builtin_memcpy(base + e->dst[0][n], av, sizeof(av));
	if (e->mul_w && rm == mv)
		__builtin_memcpy(base + e->dst[1][n], mv, sizeof(mv));
	t->pc += 8;
	end_of_instruction(emu, qpu, t);
}

/*
 * A mov to a magic address and nothing else (tmua, tmud, ...): the
 * operand goes to write_dest() as step_fast() would copy it there.
 */
static void step_mov_magic(struct qpu_v3d_emu *emu, unsigned int qpu,
			   unsigned int slot, struct v3d_thread *t,
			   const struct v3d_predecoded *e)
{
	unsigned int k = e->mov_magic - 1;

	write_dest(emu, qpu, slot, k ? e->in.mul.waddr : e->in.add.waddr, true,
		   fast_op(e, (const u8 *)t, t->nregs == 32, k), ALL_LANES);
	if (emu->stop != QPU_V3D_EMU_RUNNING)
		return;
	t->pc += 8;
	end_of_instruction(emu, qpu, t);
}

/*
 * An instruction predecode_fast() chose: what step()'s general path does
 * for it, in the same order, with its operands and handlers found once.
 */
static void step_fast(struct qpu_v3d_emu *emu, unsigned int qpu,
		      unsigned int slot, struct v3d_thread *t,
		      const struct v3d_predecoded *e)
{
	const struct qpu_v3d_instr *in = &e->in;
	u8 *base = (u8 *)t;
	unsigned int n = t->nregs == 32;
	const u32 *aa = NULL, *ab = NULL, *ma = NULL, *mb = NULL;
	u32 av[LANES], mv[LANES], sval[LANES], uval = 0, sig = e->sig;
	u32 *ra = av, *rm = mv;
	const u32 *fifo = NULL;
	struct v3d_alu_out fa, fm;
	unsigned int i;

	if (e->branch) {
		do_branch(emu, qpu, slot, in);
		t->pc += 8;
		end_of_instruction(emu, qpu, t);
		return;
	}
	if (e->add_fn) {
		aa = fast_op(e, base, n, 0);
		ab = fast_op(e, base, n, 1);
		if (e->direct & FAST_DIRECT(0, n))
			ra = (u32 *)(base + e->dst[0][n]);
		e->add_fn(emu, aa, ab, ra);
	}
	if (e->mul_fn) {
		ma = fast_op(e, base, n, 2);
		mb = fast_op(e, base, n, 3);
		if (e->direct & FAST_DIRECT(1, n))
			rm = (u32 *)(base + e->dst[1][n]);
		e->mul_fn(emu, ma, mb, rm);
	}
	if (e->flags) {		/* before the writes change the operands */
		if (e->add_need)
			v3d_fast_flags(e->add_fn, e->add_need, aa, ab, ra, &fa);
		if (e->mul_need)
			v3d_fast_flags(e->mul_fn, e->mul_need, ma, mb, rm, &fm);
	}
	if (sig & (QPU_V3D_SIG_LDUNIF | QPU_V3D_SIG_LDUNIFRF)) {
		if (!v3d_read_unif(emu, qpu, slot, &t->unif, &uval))
			return;
		emu->stats.uniforms++;
		for (i = 0; i < LANES; i++)
			sval[i] = uval;
	}
	if (sig & QPU_V3D_SIG_LDTMU) {	/* after it, as v3d_step_general() */
		fifo = t->fifo[t->fifo_head];
		if (!e->ldtmu_direct)
			__builtin_memcpy(sval, fifo, sizeof(sval));
		t->fifo_head = (t->fifo_head + 1) % TMU_FIFO_MAX;
		t->fifo_n--;
	}
	if (e->add_w == FAST_W_REG && ra == av)
		__builtin_memcpy(base + e->dst[0][n], av, sizeof(av));
	else if (e->add_w == FAST_W_MAGIC)
		write_dest(emu, qpu, slot, in->add.waddr, true, av, ALL_LANES);
	if (e->mul_w == FAST_W_REG && rm == mv)
		__builtin_memcpy(base + e->dst[1][n], mv, sizeof(mv));
	else if (e->mul_w == FAST_W_MAGIC)
		write_dest(emu, qpu, slot, in->mul.waddr, true, mv, ALL_LANES);
	if (emu->stop != QPU_V3D_EMU_RUNNING)
		return;
	if (e->flags) {
		if (e->add_need)
			v3d_flags_apply(t, in->apf, in->auf, &fa);
		if (e->mul_need)
			v3d_flags_apply(t, in->mpf, in->muf, &fm);
	}
	/* the popped vector stays: no magic write queued a lookup since */
	if (e->ldtmu_direct)
		__builtin_memcpy(base + e->sig_dst[n], fifo, sizeof(sval));
	else if ((sig & (QPU_V3D_SIG_LDUNIF | QPU_V3D_SIG_LDUNIFRF |
			 QPU_V3D_SIG_LDTMU)) &&
		 !sig_write(emu, qpu, slot, in, sig, sval))
		return;
	end_of_step(emu, qpu, t, sig);
}

/*
 * The word at @t's PC through the BO the last fetch found (the MMU does
 * not change while qpu_v3d_emu_run() runs; the run forgets it when it
 * starts), or NULL after a fault.
 */
static inline bool fetch(struct qpu_v3d_emu *emu, unsigned int qpu,
			 unsigned int slot, u32 pc, u64 *w)
{
	const u8 *p;
	u32 off = pc - emu->code_va;
	unsigned int i;

	if (off < emu->code_len && !(pc & 7)) {
		p = emu->code_host + off;
	} else {
		p = v3d_translate(emu, pc, 8);
		if (!p || (pc & 7)) {
			v3d_emu_set_fault(emu, qpu, slot,
					  p ? QPU_FAULT_REASON_MISALIGNED :
					  QPU_FAULT_REASON_MEMORY, pc,
					  QPU_MEM_FETCH);
			return false;
		}
		emu->code_va = emu->last_bo->va;
		emu->code_host = emu->last_bo->host;
		emu->code_len = emu->last_bo->size - 7;
	}
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	__builtin_memcpy(w, p, 8);
	(void)i;
#else
	*w = 0;
	for (i = 0; i < 8; i++)
		*w |= (u64)p[i] << (8 * i);
#endif
	return true;
}

void v3d_step_general(struct qpu_v3d_emu *emu, unsigned int qpu,
		      unsigned int slot)
{
	struct v3d_thread *t = &emu->q[qpu].t[slot];
	bool v71 = emu->gen == QPU_GEN_V3D71, bad = false;
	struct qpu_v3d_instr tmp;
	const struct qpu_v3d_instr *in;
	const struct v3d_predecoded *e;
	struct v3d_alu_out add, mul;
	const u32 *aa, *ab, *ma, *mb;
	u32 ta[LANES], tb[LANES], tc[LANES], td[LANES], rot[2][LANES];
	u32 sig, uval = 0, sval[LANES];
	bool sig_writes = false;
	u64 w;
	unsigned int i;

	if (!fetch(emu, qpu, slot, t->pc, &w))
		return;
	in = decode(emu, t->pc, w, &tmp, &sig, &e);
	if (!in) {
		v3d_emu_set_fault(emu, qpu, slot, QPU_FAULT_REASON_INSTRUCTION,
				  t->pc, QPU_MEM_FETCH);
		return;
	}
	if ((sig & QPU_V3D_SIG_LDTMU) && !t->fifo_n) {
		t->state = T_WAIT_TMU;	/* nothing will fill it */
		return;
	}
	if (emu->limit && t->issued >= emu->limit) {
		emu->stop = QPU_V3D_EMU_LIMIT;
		return;
	}
	if (emu->ops && emu->ops->trace)
		emu->ops->trace(emu->ctx, qpu, slot, t->pc, w);
	t->issued++;
	emu->stats.instructions++;

	if (e && e->fast && !emu->hook_writes) {
		step_fast(emu, qpu, slot, t, e);
		return;
	}
	if (in->is_branch) {
		do_branch(emu, qpu, slot, in);
		t->pc += 8;
		end_of_instruction(emu, qpu, t);
		return;
	}
	if (sig & (QPU_V3D_SIG_LDVARY | QPU_V3D_SIG_LDVPM |
		   QPU_V3D_SIG_LDTLB | QPU_V3D_SIG_LDTLBU)) {
		v3d_emu_set_fault(emu, qpu, slot, QPU_FAULT_REASON_INSTRUCTION,
				  t->pc, QPU_MEM_FETCH);
		return;
	}

	/* operands, as the registers were before this instruction */
	aa = operand(emu, t, in, sig, in->add.a, QPU_V3D_SIG_SMIMM_A, ta);
	ab = operand(emu, t, in, sig, in->add.b, QPU_V3D_SIG_SMIMM_B, tb);
	ma = operand(emu, t, in, sig, in->mul.a, QPU_V3D_SIG_SMIMM_C, tc);
	mb = operand(emu, t, in, sig, in->mul.b, QPU_V3D_SIG_SMIMM_D, td);
	if (!v71 && (sig & QPU_V3D_SIG_ROT)) {
		/* raddr_b 48..63 have no small immediate: their low bits */
		unsigned int n = !in->raddr_b ? t->acc[5][0] :
				 in->raddr_b < QPU_V3D_SMALL_IMMS ?
				 qpu_v3d_small_imm[in->raddr_b] : in->raddr_b;

		rotate(rot[0], ma, n, in->mul.a >= 6);
		rotate(rot[1], mb, n, in->mul.b >= 6);
		ma = rot[0];
		mb = rot[1];
	}
	add.flags = in->apf || in->auf;
	mul.flags = in->mpf || in->muf;
	v3d_alu_add(emu, t, in, aa, ab, &add, &bad);
	if (!bad)
		v3d_alu_mul(emu, t, in, ma, mb, &mul, &bad);
	if (bad) {
		v3d_emu_set_fault(emu, qpu, slot, QPU_FAULT_REASON_INSTRUCTION,
				  t->pc, QPU_MEM_FETCH);
		return;
	}

	/* signals that read before the writes land */
	if (sig & (QPU_V3D_SIG_LDUNIF | QPU_V3D_SIG_LDUNIFRF)) {
		if (!v3d_read_unif(emu, qpu, slot, &t->unif, &uval))
			return;
		emu->stats.uniforms++;
		sig_writes = true;
	} else if (sig & (QPU_V3D_SIG_LDUNIFA | QPU_V3D_SIG_LDUNIFARF)) {
		if (!v3d_read_unif(emu, qpu, slot, &t->unifa, &uval))
			return;
		emu->stats.unifa_reads++;
		sig_writes = true;
	}
	if (sig & QPU_V3D_SIG_WRTMUC) {	/* texture config: no general use */
		if (!v3d_read_unif(emu, qpu, slot, &t->unif, &uval))
			return;
		emu->stats.uniforms++;
	}
	if (sig & QPU_V3D_SIG_LDTMU) {
		for (i = 0; i < LANES; i++)
			sval[i] = t->fifo[t->fifo_head][i];
		t->fifo_head = (t->fifo_head + 1) % TMU_FIFO_MAX;
		t->fifo_n--;
		sig_writes = true;
	} else if (sig_writes) {
		for (i = 0; i < LANES; i++)
			sval[i] = uval;
	}

	/* the writes, the flags, then the signals' results */
	if (add.writes)
		write_dest(emu, qpu, slot, in->add.waddr, in->add.magic, add.v,
			   add.lanes);
	if (mul.writes)
		write_dest(emu, qpu, slot, in->mul.waddr, in->mul.magic, mul.v,
			   mul.lanes);
	if (emu->stop != QPU_V3D_EMU_RUNNING)
		return;
	v3d_flags_apply(t, in->apf, in->auf, &add);
	v3d_flags_apply(t, in->mpf, in->muf, &mul);
	if (sig_writes && !sig_write(emu, qpu, slot, in, sig, sval))
		return;
	end_of_step(emu, qpu, t, sig);
}

/*
 * One instruction of QPU @qpu's thread @slot: a fast entry of its PC whose
 * word is still in memory runs at once (what v3d_step_general() does for it:
 * fetch, decode, no ldtmu wait, the limit, the trace hook, the counts),
 * anything else through v3d_step_general().
 */
static inline void step(struct qpu_v3d_emu *emu, unsigned int qpu,
			unsigned int slot)
{
	struct v3d_thread *t = &emu->q[qpu].t[slot];
	const struct v3d_predecoded *e = &emu->pre[(t->pc >> 3) % PREDECODE_SIZE];
	u32 off = t->pc - emu->code_va;

	if (e->fast && e->pc == t->pc && emu->fast_run && off < emu->code_len &&
	    !__builtin_memcmp(emu->code_host + off, &e->word, 8) &&
	    (!(e->sig & QPU_V3D_SIG_LDTMU) || t->fifo_n) &&
	    (!emu->limit || t->issued < emu->limit)) {
		if (emu->hook_trace)
			emu->ops->trace(emu->ctx, qpu, slot, t->pc, e->word);
		t->issued++;
		emu->stats.instructions++;
		if (e->plain) {
			step_plain(emu, qpu, t, e);
			return;
		}
		if (e->mov_magic) {
			step_mov_magic(emu, qpu, slot, t, e);
			return;
		}
		if (e->nop) {
			t->pc += 8;
			end_of_instruction(emu, qpu, t);
			return;
		}
		step_fast(emu, qpu, slot, t, e);
		return;
	}
	v3d_step_general(emu, qpu, slot);
}

/*
 * Deferred turns. Round-robin gives each QPU one instruction a turn; most
 * instructions touch nothing but their thread (entries marked priv:
 * registers, flags, the TMU data queue and result FIFO, the branch and
 * delay-slot state), so that when they run does not matter to the other
 * QPUs, only that they run before their thread's next instruction that
 * another QPU or the caller can see. At a QPU's turn, lag_start() finds
 * how many of the next instructions are priv as they will run (the delay
 * slots counted down, a known branch target followed, the FIFO and the
 * data queue kept from running dry or over), each word checked in memory
 * as its turn's fetch would: it stops before an instruction that is not
 * priv, one whose end switches threads, the landing of a branch among
 * them (not known before it runs), or the limit. Those turns then only
 * count (run_in_turn()); lag_flush() runs them, as step() would have,
 * when the QPU's next turn is not deferred and at every stop, before
 * anything can be observed (a fault, the budget's end, the end of
 * qpu_v3d_emu_run()). The words checked stay checked while the code epoch
 * does not change: a TMU write into predecoded code changes it and cuts
 * every walk to the turns already taken (v3d_code_changed()); an entry
 * is replaced only after every deferred turn ran. Faults, budget ends and
 * results are those of one instruction a turn (test-v3d-emu's
 * deferred_turns_match_reference).
 */

/* The word at @pc is @e's (through the MMU when not in the code BO). */
static bool word_is(const struct qpu_v3d_emu *emu, u32 pc,
		    const struct v3d_predecoded *e)
{
	u32 off = pc - emu->code_va;
	const u8 *p = off < emu->code_len ? emu->code_host + off :
		      qpu_v3d_mmu_translate(emu->mmu, pc, 8);

	return p && !__builtin_memcmp(p, &e->word, 8);
}

/*
 * @e0's run: the priv instructions from it with nothing pending, up to a
 * branch's third delay slot, with their ldtmu and tmud writes.
 */
static void lag_static(struct qpu_v3d_emu *emu, struct v3d_predecoded *e0)
{
	unsigned int k, taken = 0, ldtmu = 0, tmud = 0;
	u32 pc = e0->pc;

	for (k = 0; k < LAG_MAX; k++) {
		const struct v3d_predecoded *e =
			&emu->pre[(pc >> 3) % PREDECODE_SIZE];

		if (!e->priv || e->pc != pc || !word_is(emu, pc, e) ||
		    (e->branch && taken))
			break;
		ldtmu += !!(e->sig & QPU_V3D_SIG_LDTMU);
		tmud += e->tmud_n;
		if (e->branch)
			taken = 4;
		pc += 8;
		if (taken && --taken == 0) {
			k++;	/* the landing is not known before it runs */
			break;
		}
	}
	e0->run = (u8)k;
	e0->run_ldtmu = (u8)ldtmu;
	e0->run_tmud = (u8)tmud;
	e0->run_epoch = emu->code_epoch;
}

/*
 * The walk from a thread's state (a branch's delay slots pending, or a
 * run that would empty the FIFO or fill the data queue; no thread switch
 * pending): the turns it may defer.
 */
static unsigned int lag_walk(struct qpu_v3d_emu *emu,
			     const struct v3d_thread *t, unsigned int max)
{
	unsigned int k, fifo = t->fifo_n, nd = t->tmu_ndata;
	unsigned int br = t->br_left, taken = 0;
	u32 pc = t->pc;

	for (k = 0; k < max; k++) {
		const struct v3d_predecoded *e =
			&emu->pre[(pc >> 3) % PREDECODE_SIZE];

		if (!e->priv || e->pc != pc || !word_is(emu, pc, e))
			break;
		if (e->sig & QPU_V3D_SIG_LDTMU) {
			if (!fifo)
				break;
			fifo--;
		}
		if (nd + e->tmud_n > TMU_DATA_MAX)
			break;
		nd += e->tmud_n;
		if (e->branch) {
			if (br || taken)
				break;
			taken = 4;
		}
		pc += 8;
		if (br && --br == 0)
			pc = t->br_target;
		if (taken && --taken == 0)
			return k + 1;
	}
	return k;
}

static bool lag_start(struct qpu_v3d_emu *emu, unsigned int qpu,
		      unsigned int slot)
{
	const struct v3d_thread *t = &emu->q[qpu].t[slot];
	struct v3d_predecoded *e = &emu->pre[(t->pc >> 3) % PREDECODE_SIZE];
	unsigned int k, max = LAG_MAX;

	/* a switch pending comes within two instructions */
	if (!e->priv || e->pc != t->pc || t->thrsw_left)
		return false;
	if (emu->limit) {
		if (t->issued >= emu->limit)
			return false;
		if (emu->limit - t->issued < max)
			max = (unsigned int)(emu->limit - t->issued);
	}
	if (t->br_left) {
		k = lag_walk(emu, t, max);
	} else {
		if (e->run_epoch != emu->code_epoch)
			lag_static(emu, e);
		k = e->run;
		if (k < 2)
			return false;
		if (k > max || e->run_ldtmu > t->fifo_n ||
		    t->tmu_ndata + e->run_tmud > TMU_DATA_MAX)
			k = lag_walk(emu, t, max);
	}
	if (k < 2)
		return false;
	emu->lag[qpu].n = 1;
	emu->lag[qpu].cap = (u8)k;
	emu->lag[qpu].slot = (u8)slot;
	emu->lag_count++;
	return true;
}

/* Run QPU @qpu's deferred turns. */
static void lag_flush(struct qpu_v3d_emu *emu, unsigned int qpu)
{
	struct v3d_lag *lg = &emu->lag[qpu];
	unsigned int k, slot = lg->slot;
	struct v3d_thread *t = &emu->q[qpu].t[slot];

	for (k = 0; k < lg->n; k++) {
		const struct v3d_predecoded *e =
			&emu->pre[(t->pc >> 3) % PREDECODE_SIZE];

		if (e->plain) {
			step_plain(emu, qpu, t, e);
		} else if (e->mov_magic) {
			step_mov_magic(emu, qpu, slot, t, e);
		} else if (e->nop) {
			t->pc += 8;
			end_of_instruction(emu, qpu, t);
		} else if (e->branch) {
			do_branch(emu, qpu, slot, &e->in);
			t->pc += 8;
			end_of_instruction(emu, qpu, t);
		} else {
			step_fast(emu, qpu, slot, t, e);
		}
	}
	t->issued += lg->n;
	emu->stats.instructions += lg->n;
	lg->n = 0;
	lg->cap = 0;
	emu->lag_count--;
}

/*
 * Every QPU's deferred turns, also after a stop (they cannot fault: the
 * stop is lifted while they run).
 */
static void lag_flush_all(struct qpu_v3d_emu *emu)
{
	enum qpu_v3d_emu_status stop = emu->stop;
	unsigned int qpu;

	emu->stop = QPU_V3D_EMU_RUNNING;
	for (qpu = 0; qpu < emu->nqpus && emu->lag_count; qpu++)
		if (emu->lag[qpu].cap)
			lag_flush(emu, qpu);
	emu->stop = stop;
}

/* A new code epoch: every run found is found again. */
static void code_epoch_next(struct qpu_v3d_emu *emu)
{
	unsigned int i;

	if (++emu->code_epoch)
		return;
	for (i = 0; i < PREDECODE_SIZE; i++)	/* wrapped: none is current */
		emu->pre[i].run_epoch = 0;
	emu->code_epoch = 1;
}

void v3d_code_changed(struct qpu_v3d_emu *emu)
{
	unsigned int qpu;

	code_epoch_next(emu);
	for (qpu = 0; qpu < emu->nqpus; qpu++)
		emu->lag[qpu].cap = emu->lag[qpu].n;
}

static bool thread_live(const struct v3d_thread *t)
{
	return t->state != T_FREE;
}

/* The slot QPU @q issues from next (made its current one), or -1. */
static int ready_slot(struct v3d_qpu *q)
{
	unsigned int s;

	if (q->t[q->cur].state == T_READY)
		return q->cur;
	for (s = 0; s < QPU_V3D_EMU_THREADS; s++) {
		if (q->t[s].state == T_READY) {
			q->cur = s;
			return s;
		}
	}
	return -1;
}

/* Nothing ready: a deadlock while a thread lives, idle once the CSD is. */
static enum qpu_v3d_emu_status none_ready(const struct qpu_v3d_emu *emu)
{
	unsigned int qpu, s;

	for (qpu = 0; qpu < emu->nqpus; qpu++)
		for (s = 0; s < QPU_V3D_EMU_THREADS; s++)
			if (thread_live(&emu->q[qpu].t[s]))
				return QPU_V3D_EMU_DEADLOCK;
	return emu->csd_active ? QPU_V3D_EMU_RUNNING : QPU_V3D_EMU_IDLE;
}

/*
 * With a clock: the ready QPU whose clock is lowest, or -1. A choice holds
 * until its clock passes the runner-up's by QPU_V3D_EMU_CLOCK_SLACK or a
 * thread changes state (a scan per instruction costs more than a few
 * instructions' disorder tells the model's caches).
 */
static int pick_earliest(struct qpu_v3d_emu *emu)
{
	u64 bc = ~0ull, nc = ~0ull;
	unsigned int qpu;
	int best = -1;

	if (!emu->resched && emu->clock[emu->pick] < emu->pick_bound &&
	    ready_slot(&emu->q[emu->pick]) >= 0)
		return emu->pick;
	for (qpu = 0; qpu < emu->nqpus; qpu++) {
		u64 c;

		if (ready_slot(&emu->q[qpu]) < 0)
			continue;
		c = emu->clock[qpu];
		if (c < bc) {
			nc = bc;
			bc = c;
			best = qpu;
		} else if (c < nc) {
			nc = c;
		}
	}
	emu->resched = false;
	if (best >= 0) {
		emu->pick = best;
		emu->pick_bound = nc < ~0ull - QPU_V3D_EMU_CLOCK_SLACK ?
				  nc + QPU_V3D_EMU_CLOCK_SLACK : ~0ull;
	}
	return best;
}

static enum qpu_v3d_emu_status run_by_clock(struct qpu_v3d_emu *emu,
					    u64 budget)
{
	enum qpu_v3d_emu_status st;
	int qpu;

	while (budget) {
		if (emu->slot_freed) {	/* a batch may start */
			emu->slot_freed = false;
			csd_fill(emu);
			emu->resched = true;
		}
		qpu = pick_earliest(emu);
		if (qpu < 0) {
			st = none_ready(emu);
			if (st != QPU_V3D_EMU_RUNNING)
				return st;
			continue;
		}
		step(emu, qpu, emu->q[qpu].cur);
		if (emu->stop != QPU_V3D_EMU_RUNNING)
			return emu->stop;
		budget--;
	}
	return QPU_V3D_EMU_RUNNING;
}

static enum qpu_v3d_emu_status run_in_turn(struct qpu_v3d_emu *emu, u64 budget)
{
	enum qpu_v3d_emu_status st;
	unsigned int qpu;

	while (budget) {
		bool ran = false;

		if (emu->slot_freed) {	/* a batch may start */
			emu->slot_freed = false;
			csd_fill(emu);
		}
		for (qpu = 0; qpu < emu->nqpus && budget; qpu++) {
			struct v3d_lag *lg = &emu->lag[qpu];
			int s;

			if (lg->n < lg->cap) {	/* a deferred turn */
				lg->n++;
				ran = true;
				budget--;
				continue;
			}
			if (lg->cap)
				lag_flush(emu, qpu);
			s = ready_slot(&emu->q[qpu]);
			if (s < 0)
				continue;
			if (!emu->defer || !lag_start(emu, qpu, s))
				step(emu, qpu, s);
			if (emu->stop != QPU_V3D_EMU_RUNNING) {
				lag_flush_all(emu);
				return emu->stop;
			}
			ran = true;
			budget--;
		}
		if (!ran) {
			st = none_ready(emu);
			if (st != QPU_V3D_EMU_RUNNING)
				return st;
		}
	}
	lag_flush_all(emu);
	return QPU_V3D_EMU_RUNNING;
}

enum qpu_v3d_emu_status qpu_v3d_emu_run(struct qpu_v3d_emu *emu, u64 budget)
{
	enum qpu_v3d_emu_status st;
	u32 saved;

	if (emu->stop != QPU_V3D_EMU_RUNNING)
		return emu->stop;
	emu->last_bo = NULL;	/* the MMU may have changed since */
	emu->code_len = 0;
	emu->hook_writes = emu->ops && emu->ops->trace_write;
	emu->hook_trace = emu->ops && emu->ops->trace;
	emu->fast_run = emu->predecode && !emu->hook_writes;
	emu->defer = emu->fast_run && !emu->hook_trace && !emu->clock &&
		     !(emu->ops && emu->ops->tmu);
	code_epoch_next(emu);	/* the caller may have changed memory */
	emu->host_float = emu->host_float_ok && emu->predecode &&
			  qpu_v3d_host_float_enter(&saved);
	emu->float_form = (u8)qpu_v3d_float_form(emu->host_float);
	if (emu->pre_form != emu->float_form) {	/* entries call another form */
		__builtin_memset(emu->pre, 0, sizeof(emu->pre));
		emu->pre_form = emu->float_form;
	}
	st = emu->clock ? run_by_clock(emu, budget) : run_in_turn(emu, budget);
	if (emu->host_float)
		qpu_v3d_host_float_leave(saved);
	return st;
}

bool qpu_v3d_emu_set_host_float(struct qpu_v3d_emu *emu, bool on)
{
	u32 saved;
	bool can = qpu_v3d_host_float_enter(&saved);

	qpu_v3d_host_float_leave(saved);
	emu->host_float_ok = on;
	return on && can;
}

void qpu_v3d_emu_set_clock(struct qpu_v3d_emu *emu, const u64 *clock)
{
	emu->clock = clock;
	emu->pick = 0;
	emu->resched = true;
}

int qpu_v3d_emu_get_reg(const struct qpu_v3d_emu *emu, unsigned int qpu,
			unsigned int slot, enum qpu_v3d_emu_file file,
			unsigned int reg, u32 out[16])
{
	const struct v3d_thread *t;
	unsigned int i;

	if (qpu >= emu->nqpus || slot >= QPU_V3D_EMU_THREADS)
		return -QPU_V3D_EMU_EINVAL;
	t = &emu->q[qpu].t[slot];
	if (file == QPU_V3D_EMU_FILE_RF && reg < 64) {
		for (i = 0; i < LANES; i++)
			out[i] = t->rf[reg][i];
		return 0;
	}
	if (file == QPU_V3D_EMU_FILE_ACC && reg < 6 &&
	    emu->gen == QPU_GEN_V3D42) {
		for (i = 0; i < LANES; i++)
			out[i] = t->acc[reg][i];
		return 0;
	}
	return -QPU_V3D_EMU_EINVAL;
}

int qpu_v3d_emu_get_flags(const struct qpu_v3d_emu *emu, unsigned int qpu,
			  unsigned int slot, u16 *a, u16 *b)
{
	if (qpu >= emu->nqpus || slot >= QPU_V3D_EMU_THREADS)
		return -QPU_V3D_EMU_EINVAL;
	*a = emu->q[qpu].t[slot].fa;
	*b = emu->q[qpu].t[slot].fb;
	return 0;
}

int qpu_v3d_emu_get_thread(const struct qpu_v3d_emu *emu, unsigned int qpu,
			   unsigned int slot, enum qpu_v3d_emu_thread_state *state,
			   u32 *pc)
{
	if (qpu >= emu->nqpus || slot >= QPU_V3D_EMU_THREADS)
		return -QPU_V3D_EMU_EINVAL;
	*state = (enum qpu_v3d_emu_thread_state)emu->q[qpu].t[slot].state;
	*pc = emu->q[qpu].t[slot].pc;
	return 0;
}

size_t qpu_v3d_emu_describe(const struct qpu_v3d_emu *emu, char *buf,
			    size_t len)
{
	static const char *const what[] = {
		[T_FREE] = "free", [T_READY] = "ready",
		[T_WAIT_BARRIER] = "waits at a barrier",
		[T_WAIT_TMU] = "waits on ldtmu with an empty TMU FIFO",
	};
	struct qpu_strbuf o = { buf, len, 0 };
	unsigned int qpu, s;

	for (qpu = 0; qpu < emu->nqpus; qpu++) {
		for (s = 0; s < QPU_V3D_EMU_THREADS; s++) {
			const struct v3d_thread *t = &emu->q[qpu].t[s];

			if (t->state == T_FREE)
				continue;
			qpu_strbuf_s(&o, "qpu ");
			qpu_strbuf_u(&o, qpu, false);
			qpu_strbuf_s(&o, " thread ");
			qpu_strbuf_u(&o, s, false);
			qpu_strbuf_s(&o, " pc ");
			qpu_strbuf_u(&o, t->pc, true);
			qpu_strbuf_s(&o, ": ");
			qpu_strbuf_s(&o, what[t->state]);
			qpu_strbuf_c(&o, '\n');
		}
	}
	return qpu_strbuf_end(&o);
}
