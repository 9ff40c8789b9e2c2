// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * The QPU interpreter: 12 QPUs, their semaphores, mutex, VPM, VCD DMA and
 * TMU direct lookups, scheduled one instruction at a time.
 *
 * DOC: modelling choices
 * - Scheduling: seed 0 runs the live QPUs round-robin in QPU order, one
 *   instruction each; another seed picks the next QPU with a xorshift32
 *   PRNG. A QPU that would block (semaphore, mutex, empty VPM read or TMU
 *   FIFO) issues nothing and sleeps until a semaphore or mutex changes;
 *   when every live QPU sleeps the run stops with QPU_EMU_DEADLOCK.
 * - Memory side effects happen when the instruction issues: TMU reads and
 *   VCD DMA complete at once (so vr_wait/vw_wait never wait). Every access
 *   of a DMA is checked before the first byte moves, so a refused DMA
 *   writes nothing.
 * - Latencies: an SFU result can be read from r4 by the third instruction
 *   after the write (two instructions in between: Mesa's vc4 scheduler
 *   gives SFU writes a latency of 3, VC4C inserts two nops); reading r4 in
 *   between returns the old r4 and counts in stall_sfu.
 *   ldtmu0/1 writes r4 at the end of its instruction. Regfile
 *   read-after-write hazards are not modelled: a written register reads the
 *   new value in the next instruction (the hazard checker owns the rule).
 *   Likewise a new vr_setup or unif_addr takes effect at once.
 * - One uniform, one VPM vector and one mutex acquire per instruction, even
 *   when both register files name them. unif_addr (regfile A) sets the
 *   stream address; unif_addr_rel (B) moves it by that many uniforms, as
 *   Broadcom's own shaders use it ("mov unif_addr_rel, -1" re-reads).
 * - Not reentrant: the caller serialises calls on one emulator.
 * - Peripheral writes (TMU, VPM, SFU, setups, host_int) happen when the
 *   condition holds in at least one lane; setups and DMA addresses use
 *   lane 0. TMU lookups fetch only the lanes whose condition holds (the
 *   others read 0); their low two address bits are ignored.
 * - Facts from vc4asm's addendum to the Reference Guide: flags change only
 *   in lanes whose condition holds; r5 writes replicate per quad (regfile A
 *   address) or from lane 0 (B); a register branch adds lane 15; the link
 *   is written only if the branch is taken; host_int needs a non-zero
 *   value; rotation codes also read as -16..-1; rotation with an input that
 *   is not r0..r3 rotates within each quad. The TMU FIFO depth is 4 (the
 *   guide allows 8, the addendum found more than 4 unreliable): a fifth
 *   request faults.
 * - Flags: Z and N from the result (for float results Z means +-0); C is
 *   the carry of add, the borrow of sub, "a > b" for min, max, fmin, fmax,
 *   fminabs and fmaxabs (as vc4asm documents for the integer ones), and 0
 *   for every other op and for load immediates.
 * - Faults: every word qpu_isa_decode() flags reserved (reserved opcodes,
 *   mul packs, branch conditions, load-immediate modes, and the padding
 *   bits of branches and semaphores), the TLB load signals (loadc, ldcend,
 *   loadcv, loadam), reads of varyings, coordinates, ms_flags/rev_flag and
 *   reserved addresses, and (with a true lane) writes of quad/ms/rev, TLB
 *   and texture parameter registers; a branch in a branch's delay slots; a
 *   TMU FIFO overflow; 8/16-bit VPM or DMA setups when used.
 * - Not modelled: textures (t/r/b writes), TLB, varyings and coordinates,
 *   8/16-bit VPM and DMA modes, thread switches (thrsw and lthrsw, like
 *   bkpt, sbwait and sbdone, do nothing), the nop-register and mul-nop
 *   read-back quirks (they read 0), the flag setting of branches with an
 *   odd raddr_a (such words fault as reserved). The stall counters count
 *   the scheduler's visits to waiting QPUs (once a round with seed 0).
 */
#include "qpu_isa.h"
#include "qpu_emu.h"
#include "qpu_emu_float.h"

#define LANES			16
#define ALL_LANES		0xffffu
#define TMU_FIFO_DEPTH		4
#define DCACHE_ENTRIES		512
#define VPM_ROWS		(QPU_EMU_VPM_WORDS / 16)

/* Read addresses 32..63 used below. */
#define RA_UNIF			32
#define RA_VARY			35
#define RA_ELEM_QPU		38
#define RA_NOP			39
#define RA_VPM			48
#define RA_BUSY			49
#define RA_WAIT			50
#define RA_MUTEX		51

/* Write addresses 32..63. */
#define WA_ACC0			32
#define WA_TMU_NOSWAP		36
#define WA_R5			37
#define WA_HOST_INT		38
#define WA_NOP			39
#define WA_UNIF_ADDR		40
#define WA_VPM			48
#define WA_VPM_SETUP		49
#define WA_DMA_ADDR		50
#define WA_MUTEX		51
#define WA_SFU_RECIP		52
#define WA_SFU_LOG		55
#define WA_TMU0_S		56
#define WA_TMU1_S		60

struct qpu_emu_vpm_setup {
	u32 addr;
	u32 stride;
	u32 left;		/* vectors still to read */
	u32 size;		/* 0 8-bit, 1 16-bit, 2 32-bit */
	bool horiz;
};

struct qpu_emu_result {
	u32 v[LANES];
	s64 wide[LANES];
	u16 mask;		/* lanes whose condition holds */
	bool is_mul;
	bool is_float;
};

/* exec_alu()'s vectors, kept off the (kernel) stack. */
struct qpu_emu_alu_scratch {
	u32 ra[LANES], rb[LANES];
	u32 aa[LANES], ab[LANES], ma[LANES], mb[LANES];
	struct qpu_emu_result add, mul;
	bool carry[LANES];
};

struct qpu_emu_qpu {
	enum qpu_emu_qpu_state state;
	u32 pc;
	u32 unif;
	u32 ra[32][LANES];
	u32 rb[32][LANES];
	u32 acc[6][LANES];
	u16 zf, nf, cf;
	u32 br_target;
	u8 br_left;		/* instructions to the branch, 0 if none */
	u8 end_left;		/* instructions to the thread end, 0 if none */
	u8 wait_sem;		/* semaphore of QPU_EMU_QPU_WAIT_SEM */
	bool wait_acquire;	/* ... and whether to acquire it */
	u8 sfu_left;		/* instructions until sfu_val reaches r4 */
	u32 sfu_val[LANES];
	u32 tmu[2][TMU_FIFO_DEPTH][LANES];
	u8 tmu_head[2], tmu_count[2];
	struct qpu_emu_vpm_setup vr, vw;
	u32 vdr_setup, vdr_pitch;
	u32 vdw_setup, vdw_stride;
};

struct qpu_emu_dcache {
	u32 addr;
	bool valid;
	u64 word;
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
	int mutex_owner;
	u8 sem[QPU_EMU_NUM_SEMAPHORES];
	struct qpu_emu_fault fault;
	struct qpu_emu_stats stats;
	u32 vpm[QPU_EMU_VPM_WORDS];
	struct qpu_emu_qpu qpu[QPU_EMU_NUM_QPUS];
	struct qpu_emu_dcache dcache[DCACHE_ENTRIES];
	struct qpu_emu_alu_scratch alu;
};

/* Per-instruction context. */
struct qpu_emu_exec {
	struct qpu_emu *emu;
	struct qpu_emu_qpu *q;
	unsigned int qi;
	const struct qpu_isa_instr *in;
	bool fault;
	bool uses_r4;
};

/* --- small helpers (no libc) --------------------------------------------- */

static void emu_memset(void *p, int c, size_t n)
{
	u8 *d = p;

	while (n--)
		*d++ = (u8)c;
}

static u32 rd32(const void *p)
{
	const u8 *b = p;

	return b[0] | (u32)b[1] << 8 | (u32)b[2] << 16 | (u32)b[3] << 24;
}

static void wr32(void *p, u32 v)
{
	u8 *b = p;

	b[0] = (u8)v;
	b[1] = (u8)(v >> 8);
	b[2] = (u8)(v >> 16);
	b[3] = (u8)(v >> 24);
}

static u32 emu_rand(struct qpu_emu *emu)
{
	u32 x = emu->rng;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	emu->rng = x;
	return x;
}

static bool is_live(const struct qpu_emu_qpu *q)
{
	return q->state != QPU_EMU_QPU_IDLE;
}

static bool is_waiting(const struct qpu_emu_qpu *q)
{
	return q->state >= QPU_EMU_QPU_WAIT_SEM;
}

/* --- faults and memory --------------------------------------------------- */

static void set_fault(struct qpu_emu_exec *x, enum qpu_emu_fault_reason why,
		      u32 addr, enum qpu_emu_access access)
{
	if (x->fault)
		return;
	x->fault = true;
	x->emu->fault.reason = why;
	x->emu->fault.qpu = x->qi;
	x->emu->fault.pc = x->q->pc;
	x->emu->fault.addr = addr;
	x->emu->fault.access = access;
}

static void *mem(struct qpu_emu_exec *x, u32 addr, u32 len,
		 enum qpu_emu_access kind)
{
	void *p;

	if (x->fault)
		return NULL;
	if (addr & 3) {
		set_fault(x, QPU_EMU_FAULT_MISALIGNED, addr, kind);
		return NULL;
	}
	p = x->emu->ops->translate(x->emu->ctx, addr, len, kind);
	if (!p)
		set_fault(x, QPU_EMU_FAULT_MEMORY, addr, kind);
	return p;
}

static void bad_instr(struct qpu_emu_exec *x)
{
	set_fault(x, QPU_EMU_FAULT_INSTRUCTION, x->q->pc,
		  QPU_EMU_ACCESS_FETCH);
}

/* --- waking and blocking ------------------------------------------------- */

/* A semaphore or the mutex changed: sleeping QPUs try again. */
static void wake_sync(struct qpu_emu *emu)
{
	unsigned int i;

	for (i = 0; i < QPU_EMU_NUM_QPUS; i++)
		if (emu->qpu[i].state == QPU_EMU_QPU_WAIT_SEM ||
		    emu->qpu[i].state == QPU_EMU_QPU_WAIT_MUTEX)
			emu->qpu[i].state = QPU_EMU_QPU_RUNNING;
}

static bool reads_raddr(const struct qpu_isa_instr *in, unsigned int addr)
{
	if (in->kind != QPU_ISA_KIND_ALU &&
	    in->kind != QPU_ISA_KIND_ALU_SMALL_IMM)
		return false;
	return in->raddr_a == addr ||
		(in->kind == QPU_ISA_KIND_ALU && in->raddr_b == addr);
}

/* The state the QPU must wait in before issuing @in, or RUNNING. */
static enum qpu_emu_qpu_state must_wait(struct qpu_emu *emu,
					struct qpu_emu_qpu *q,
					const struct qpu_isa_instr *in)
{
	if (in->kind == QPU_ISA_KIND_SEMA) {
		u8 v = emu->sem[in->sem];

		if (!(in->sem_acquire ? v == 0 : v == 15))
			return QPU_EMU_QPU_RUNNING;
		q->wait_sem = in->sem;
		q->wait_acquire = in->sem_acquire;
		return QPU_EMU_QPU_WAIT_SEM;
	}
	if (in->kind != QPU_ISA_KIND_ALU &&
	    in->kind != QPU_ISA_KIND_ALU_SMALL_IMM)
		return QPU_EMU_QPU_RUNNING;
	if (reads_raddr(in, RA_MUTEX) && emu->mutex_owner >= 0)
		return QPU_EMU_QPU_WAIT_MUTEX;
	if (reads_raddr(in, RA_VPM) && !q->vr.left)
		return QPU_EMU_QPU_WAIT_VPM;
	if (in->sig == QPU_ISA_SIG_LDTMU0 && !q->tmu_count[0])
		return QPU_EMU_QPU_WAIT_TMU;
	if (in->sig == QPU_ISA_SIG_LDTMU1 && !q->tmu_count[1])
		return QPU_EMU_QPU_WAIT_TMU;
	return QPU_EMU_QPU_RUNNING;
}

/* --- VPM ----------------------------------------------------------------- */

/* Word index of element @i of the vector at generic address @addr. */
static u32 vpm_index(const struct qpu_emu_vpm_setup *s, unsigned int i)
{
	if (s->horiz)
		return s->addr * 16 + i;
	return ((s->addr >> 4) * 16 + i) * 16 + (s->addr & 15);
}

static bool vpm_check(struct qpu_emu_exec *x,
		      const struct qpu_emu_vpm_setup *s)
{
	if (s->size != 2) {
		bad_instr(x);	/* 8/16-bit VPM access: not modelled */
		return false;
	}
	if (vpm_index(s, 0) >= QPU_EMU_VPM_WORDS ||
	    vpm_index(s, 15) >= QPU_EMU_VPM_WORDS) {
		set_fault(x, QPU_EMU_FAULT_VPM, vpm_index(s, 0) * 4,
			  QPU_EMU_ACCESS_FETCH);
		return false;
	}
	return true;
}

static void vpm_read(struct qpu_emu_exec *x, u32 *out)
{
	struct qpu_emu_vpm_setup *s = &x->q->vr;
	unsigned int i;

	if (!vpm_check(x, s))
		return;
	for (i = 0; i < LANES; i++)
		out[i] = x->emu->vpm[vpm_index(s, i)];
	s->addr += s->stride;
	s->left--;
}

static void vpm_write(struct qpu_emu_exec *x, const u32 *v, u16 mask)
{
	struct qpu_emu_vpm_setup *s = &x->q->vw;
	unsigned int i;

	if (!vpm_check(x, s))
		return;
	for (i = 0; i < LANES; i++)
		if (mask & (1u << i))
			x->emu->vpm[vpm_index(s, i)] = v[i];
	s->addr += s->stride;
}

static void vpm_generic_setup(struct qpu_emu_vpm_setup *s, u32 v, bool rd)
{
	s->addr = v & 0xff;
	s->size = (v >> 8) & 3;
	s->horiz = (v >> 11) & 1;
	s->stride = (v >> 12) & 0x3f;
	if (!s->stride)
		s->stride = 64;
	if (rd) {
		s->left = (v >> 20) & 15;
		if (!s->left)
			s->left = 16;
	}
}

/* --- VCD DMA ------------------------------------------------------------- */

static bool dma_vpm_ok(struct qpu_emu_exec *x, u32 row, u32 col)
{
	if (row < VPM_ROWS)
		return true;
	set_fault(x, QPU_EMU_FAULT_VPM, (row * 16 + col) * 4,
		  QPU_EMU_ACCESS_FETCH);
	return false;
}

/*
 * VDR: memory row r (ROWLEN words, rows PITCH bytes apart) goes to VPM row
 * Y + r * VPITCH from column X (horizontal), or down column X + r * VPITCH
 * from row Y (vertical).
 */
static void dma_load(struct qpu_emu_exec *x, u32 addr)
{
	struct qpu_emu_qpu *q = x->q;
	u32 s = q->vdr_setup, mpitch = (s >> 24) & 15, pitch;
	u32 rowlen = (s >> 20) & 15, nrows = (s >> 16) & 15;
	u32 vpitch = (s >> 12) & 15, base = s & 0x7ff;
	bool vert = (s >> 11) & 1;
	u32 r, w, pass;

	if ((s >> 28) & 7) {
		bad_instr(x);	/* 8/16-bit DMA: not modelled */
		return;
	}
	pitch = mpitch ? 8u << mpitch : q->vdr_pitch;
	rowlen = rowlen ? rowlen : 16;
	nrows = nrows ? nrows : 16;
	vpitch = vpitch ? vpitch : 16;
	for (pass = 0; pass < 2; pass++) {
		for (r = 0; r < nrows; r++) {
			u8 *p = mem(x, addr + r * pitch, rowlen * 4,
				    QPU_EMU_ACCESS_DMA_LOAD);

			if (!p)
				return;
			for (w = 0; w < rowlen; w++) {
				u32 row, col;

				if (vert) {
					row = (base >> 4) + w;
					col = ((base & 15) + r * vpitch) & 15;
				} else {
					row = (base >> 4) + r * vpitch;
					col = ((base & 15) + w) & 15;
				}
				if (!dma_vpm_ok(x, row, col))
					return;
				if (pass)
					x->emu->vpm[row * 16 + col] =
						rd32(p + w * 4);
			}
		}
	}
	x->emu->stats.dma_load_bytes += nrows * rowlen * 4;
}

/*
 * VDW: UNITS memory rows of DEPTH words, each followed by STRIDE bytes.
 * Horizontal: row u comes from VPM row Y + u from column X; vertical: from
 * column X + u from row Y down.
 */
static void dma_store(struct qpu_emu_exec *x, u32 addr)
{
	struct qpu_emu_qpu *q = x->q;
	u32 s = q->vdw_setup, units = (s >> 23) & 127, depth = (s >> 16) & 127;
	u32 base = (s >> 3) & 0x7ff, u, d, pass;
	bool horiz = (s >> 14) & 1;

	if (s & 7) {
		bad_instr(x);	/* 8/16-bit DMA: not modelled */
		return;
	}
	units = units ? units : 128;
	depth = depth ? depth : 128;
	for (pass = 0; pass < 2; pass++) {
		for (u = 0; u < units; u++) {
			u8 *p = mem(x, addr + u * (depth * 4 + q->vdw_stride),
				    depth * 4, QPU_EMU_ACCESS_DMA_STORE);

			if (!p)
				return;
			for (d = 0; d < depth; d++) {
				u32 idx;

				if (horiz)
					idx = ((base >> 4) + u) * 16 +
						(base & 15) + d;
				else
					idx = ((base >> 4) + d) * 16 +
						(((base & 15) + u) & 15);
				if (!dma_vpm_ok(x, idx / 16, idx % 16))
					return;
				if (pass)
					wr32(p + d * 4, x->emu->vpm[idx]);
			}
		}
	}
	x->emu->stats.dma_store_bytes += units * depth * 4;
}

/* --- TMU ----------------------------------------------------------------- */

static void tmu_request(struct qpu_emu_exec *x, unsigned int t, const u32 *v,
			u16 mask)
{
	struct qpu_emu_qpu *q = x->q;
	u32 *slot;
	unsigned int i;

	if (q->tmu_count[t] >= TMU_FIFO_DEPTH) {
		set_fault(x, QPU_EMU_FAULT_INSTRUCTION, q->pc,
			  QPU_EMU_ACCESS_TMU);
		return;
	}
	slot = q->tmu[t][(q->tmu_head[t] + q->tmu_count[t]) % TMU_FIFO_DEPTH];
	for (i = 0; i < LANES; i++) {
		u8 *p;

		slot[i] = 0;
		if (!(mask & (1u << i)))
			continue;
		p = mem(x, v[i] & ~3u, 4, QPU_EMU_ACCESS_TMU);
		if (!p)
			return;
		slot[i] = rd32(p);
		x->emu->stats.tmu_bytes += 4;
	}
	q->tmu_count[t]++;
}

static void tmu_pop(struct qpu_emu_qpu *q, unsigned int t)
{
	unsigned int i, h = q->tmu_head[t];

	for (i = 0; i < LANES; i++)
		q->acc[4][i] = q->tmu[t][h][i];
	q->tmu_head[t] = (h + 1) % TMU_FIFO_DEPTH;
	q->tmu_count[t]--;
}

/* --- pack and unpack ----------------------------------------------------- */

static u32 unpack(u32 v, unsigned int mode, bool is_float)
{
	switch (mode) {
	case 1:
	case 2:
		v = mode == 1 ? v & 0xffff : v >> 16;
		if (is_float)
			return qpu_emu_f16_to_f32(v);
		return (u32)(s32)(s16)v;
	case 3:
		v >>= 24;
		if (is_float)
			return qpu_emu_unorm8_to_f32(v);
		return v * 0x01010101u;
	case 4:
	case 5:
	case 6:
	case 7:
		v = (v >> ((mode - 4) * 8)) & 0xff;
		return is_float ? qpu_emu_unorm8_to_f32(v) : v;
	default:
		return v;
	}
}

static u32 sat_s(s64 v, s64 lo, s64 hi)
{
	return (u32)(v < lo ? lo : v > hi ? hi : v);
}

/*
 * Regfile A pack of an add (or swapped mul) result @v into @old. @wide is
 * the exact integer result of add/sub for the 32-bit saturation.
 */
static u32 pack_a(u32 old, u32 v, s64 wide, unsigned int mode, bool is_float)
{
	u32 b;

	switch (mode) {
	case 1:
	case 2:
		b = is_float ? qpu_emu_f32_to_f16(v) : v & 0xffff;
		return mode == 1 ? (old & 0xffff0000u) | b :
			(old & 0xffff) | b << 16;
	case 3:
		return (v & 0xff) * 0x01010101u;
	case 4:
	case 5:
	case 6:
	case 7:
		b = (mode - 4) * 8;
		return (old & ~(0xffu << b)) | (v & 0xff) << b;
	case 8:
		return sat_s(wide, -0x80000000ll, 0x7fffffffll);
	case 9:
	case 10:
		b = sat_s((s32)v, -0x8000, 0x7fff) & 0xffff;
		return mode == 9 ? (old & 0xffff0000u) | b :
			(old & 0xffff) | b << 16;
	case 11:
		return sat_s((s32)v, 0, 255) * 0x01010101u;
	case 12:
	case 13:
	case 14:
	case 15:
		b = (mode - 12) * 8;
		return (old & ~(0xffu << b)) | sat_s((s32)v, 0, 255) << b;
	default:
		return v;
	}
}

/* Mul pack (pm=1): float results become 8-bit unorm, integers their byte. */
static u32 pack_mul(u32 old, u32 v, unsigned int mode, bool is_float)
{
	u32 b = is_float ? qpu_emu_f32_to_unorm8(v) : v & 0xff;

	if (mode == 3)
		return b * 0x01010101u;
	if (mode >= 4 && mode <= 7)
		return (old & ~(0xffu << ((mode - 4) * 8))) |
			b << ((mode - 4) * 8);
	return v;
}

/* --- ALU ----------------------------------------------------------------- */

static u32 v8(u32 a, u32 b, unsigned int op)
{
	u32 r = 0;
	unsigned int i;

	for (i = 0; i < 32; i += 8) {
		s32 x = (a >> i) & 0xff, y = (b >> i) & 0xff, v;

		switch (op) {
		case QPU_ISA_M_V8MULD:
			v = x * y + 128;
			v = (v + (v >> 8)) >> 8;
			break;
		case QPU_ISA_M_V8MIN:
			v = x < y ? x : y;
			break;
		case QPU_ISA_M_V8MAX:
			v = x > y ? x : y;
			break;
		case QPU_ISA_M_V8ADDS:
			v = x + y > 255 ? 255 : x + y;
			break;
		default:	/* v8subs */
			v = x - y < 0 ? 0 : x - y;
			break;
		}
		r |= (u32)v << i;
	}
	return r;
}

static u32 clz32(u32 v)
{
	return v ? (u32)__builtin_clz(v) : 32;
}

/* One lane of the add ALU; *@c gets the carry flag, *@wide the exact sum. */
static u32 alu_add(unsigned int op, u32 a, u32 b, bool *c, s64 *wide)
{
	u32 s = b & 31;

	*c = false;
	switch (op) {
	case QPU_ISA_A_FADD:
		return qpu_emu_fadd(a, b);
	case QPU_ISA_A_FSUB:
		return qpu_emu_fsub(a, b);
	case QPU_ISA_A_FMIN:
		*c = qpu_emu_fgt(a, b);
		return qpu_emu_fmin(a, b);
	case QPU_ISA_A_FMAX:
		*c = qpu_emu_fgt(a, b);
		return qpu_emu_fmax(a, b);
	case QPU_ISA_A_FMINABS:
		*c = qpu_emu_fgt(a & 0x7fffffffu, b & 0x7fffffffu);
		return qpu_emu_fminabs(a, b);
	case QPU_ISA_A_FMAXABS:
		*c = qpu_emu_fgt(a & 0x7fffffffu, b & 0x7fffffffu);
		return qpu_emu_fmaxabs(a, b);
	case QPU_ISA_A_FTOI:
		return qpu_emu_ftoi(a);
	case QPU_ISA_A_ITOF:
		return qpu_emu_itof(a);
	case QPU_ISA_A_ADD:
		*c = (u64)a + b > 0xffffffffull;
		*wide = (s64)(s32)a + (s32)b;
		return a + b;
	case QPU_ISA_A_SUB:
		*c = a < b;
		*wide = (s64)(s32)a - (s32)b;
		return a - b;
	case QPU_ISA_A_SHR:
		return a >> s;
	case QPU_ISA_A_ASR:
		return (u32)((s32)a >> s);
	case QPU_ISA_A_ROR:
		return s ? (a >> s) | (a << (32 - s)) : a;
	case QPU_ISA_A_SHL:
		return a << s;
	case QPU_ISA_A_MIN:
		*c = (s32)a > (s32)b;
		return (s32)a < (s32)b ? a : b;
	case QPU_ISA_A_MAX:
		*c = (s32)a > (s32)b;
		return (s32)a > (s32)b ? a : b;
	case QPU_ISA_A_AND:
		return a & b;
	case QPU_ISA_A_OR:
		return a | b;
	case QPU_ISA_A_XOR:
		return a ^ b;
	case QPU_ISA_A_NOT:
		return ~a;
	case QPU_ISA_A_CLZ:
		return clz32(a);
	case QPU_ISA_A_V8ADDS:
		return v8(a, b, QPU_ISA_M_V8ADDS);
	case QPU_ISA_A_V8SUBS:
		return v8(a, b, QPU_ISA_M_V8SUBS);
	default:
		return 0;
	}
}

static u32 alu_mul(unsigned int op, u32 a, u32 b)
{
	switch (op) {
	case QPU_ISA_M_FMUL:
		return qpu_emu_fmul(a, b);
	case QPU_ISA_M_MUL24:
		return (a & 0xffffff) * (b & 0xffffff);
	case QPU_ISA_M_NOP:
		return 0;
	default:
		return v8(a, b, op);
	}
}

/* Lanes whose write condition @cond holds. */
static u16 cond_mask(const struct qpu_emu_qpu *q, unsigned int cond)
{
	switch (cond) {
	case QPU_ISA_COND_NEVER:
		return 0;
	case QPU_ISA_COND_ALWAYS:
		return ALL_LANES;
	case QPU_ISA_COND_ZS:
		return q->zf;
	case QPU_ISA_COND_ZC:
		return ~q->zf & ALL_LANES;
	case QPU_ISA_COND_NS:
		return q->nf;
	case QPU_ISA_COND_NC:
		return ~q->nf & ALL_LANES;
	case QPU_ISA_COND_CS:
		return q->cf;
	default:
		return ~q->cf & ALL_LANES;
	}
}

static void set_flags(struct qpu_emu_qpu *q, const u32 *v, const bool *c,
		      u16 mask, bool is_float)
{
	unsigned int i;

	for (i = 0; i < LANES; i++) {
		u16 bit = 1u << i;
		bool z = is_float ? !(v[i] & 0x7fffffffu) : !v[i];

		if (!(mask & bit))
			continue;
		q->zf = z ? q->zf | bit : q->zf & ~bit;
		q->nf = (v[i] >> 31) ? q->nf | bit : q->nf & ~bit;
		q->cf = (c && c[i]) ? q->cf | bit : q->cf & ~bit;
	}
}

/* --- writes -------------------------------------------------------------- */

static void write_reg(struct qpu_emu_exec *x, unsigned int waddr, bool file_b,
		      const struct qpu_emu_result *r)
{
	const struct qpu_isa_instr *in = x->in;
	struct qpu_emu_qpu *q = x->q;
	struct qpu_emu *emu = x->emu;
	u32 *dst = NULL;
	unsigned int i;
	bool any = r->mask != 0;

	if (waddr < 32)
		dst = file_b ? q->rb[waddr] : q->ra[waddr];
	else if (waddr < WA_TMU_NOSWAP)
		dst = q->acc[waddr - WA_ACC0];
	if (dst) {
		for (i = 0; i < LANES; i++) {
			u32 v = r->v[i];

			if (!(r->mask & (1u << i)))
				continue;
			if (in->pm && r->is_mul && in->pack)
				v = pack_mul(dst[i], v, in->pack, r->is_float);
			else if (!in->pm && in->pack && !file_b && waddr < 32)
				v = pack_a(dst[i], v, r->wide[i], in->pack,
					   r->is_float);
			dst[i] = v;
		}
		return;
	}
	switch (waddr) {
	case WA_TMU_NOSWAP:
	case WA_NOP:
		return;
	case WA_R5:
		for (i = 0; i < LANES; i++)
			if (r->mask & (1u << i))
				q->acc[5][i] = r->v[file_b ? 0 : i & ~3u];
		return;
	case WA_HOST_INT:
		for (i = 0; i < LANES; i++)
			if ((r->mask & (1u << i)) && r->v[i])
				break;
		if (i < LANES && emu->ops->host_interrupt)
			emu->ops->host_interrupt(emu->ctx, x->qi);
		return;
	case WA_UNIF_ADDR:
		/* B: unif_addr_rel moves the stream by whole uniforms */
		if (any)
			q->unif = file_b ? q->unif + r->v[0] * 4 : r->v[0];
		return;
	case WA_VPM:
		if (any)
			vpm_write(x, r->v, r->mask);
		return;
	case WA_VPM_SETUP:
		if (!any)
			return;
		if (!file_b) {
			if ((r->v[0] >> 28) == 9)
				q->vdr_pitch = r->v[0] & 0x1fff;
			else if (r->v[0] >> 31)
				q->vdr_setup = r->v[0];
			else
				vpm_generic_setup(&q->vr, r->v[0], true);
		} else {
			if ((r->v[0] >> 30) == 3)
				q->vdw_stride = r->v[0] & 0xffff;
			else if ((r->v[0] >> 30) == 2)
				q->vdw_setup = r->v[0];
			else
				vpm_generic_setup(&q->vw, r->v[0], false);
		}
		return;
	case WA_DMA_ADDR:
		if (!any)
			return;
		if (file_b)
			dma_store(x, r->v[0]);
		else
			dma_load(x, r->v[0]);
		return;
	case WA_MUTEX:
		if (any) {
			emu->mutex_owner = -1;
			wake_sync(emu);
		}
		return;
	case WA_TMU0_S:
	case WA_TMU1_S:
		if (any)
			tmu_request(x, waddr == WA_TMU1_S, r->v, r->mask);
		return;
	default:
		break;
	}
	if (waddr >= WA_SFU_RECIP && waddr <= WA_SFU_LOG) {
		if (!any)
			return;
		for (i = 0; i < LANES; i++) {
			u32 v = r->v[i];

			switch (waddr) {
			case WA_SFU_RECIP:
				q->sfu_val[i] = qpu_emu_recip(v);
				break;
			case WA_SFU_RECIP + 1:
				q->sfu_val[i] = qpu_emu_recipsqrt(v);
				break;
			case WA_SFU_RECIP + 2:
				q->sfu_val[i] = qpu_emu_exp2(v);
				break;
			default:
				q->sfu_val[i] = qpu_emu_log2(v);
				break;
			}
		}
		q->sfu_left = 3;	/* r4 gets it before the 3rd next */
		return;
	}
	/* quad/ms/rev, TLB, texture parameters: not for user programs */
	if (any)
		bad_instr(x);
}

/* --- instruction kinds --------------------------------------------------- */

static void read_file(struct qpu_emu_exec *x, bool file_b, unsigned int raddr,
		      u32 unif, u32 *out)
{
	struct qpu_emu_qpu *q = x->q;
	unsigned int i;
	u32 v = 0;

	if (raddr < 32) {
		const u32 *src = file_b ? q->rb[raddr] : q->ra[raddr];

		for (i = 0; i < LANES; i++)
			out[i] = src[i];
		return;
	}
	switch (raddr) {
	case RA_UNIF:
		v = unif;
		break;
	case RA_ELEM_QPU:
		for (i = 0; i < LANES; i++)
			out[i] = file_b ? x->qi : i;
		return;
	case RA_NOP:
	case RA_BUSY:
	case RA_WAIT:
	case RA_MUTEX:
		break;
	case RA_VPM:
		vpm_read(x, out);
		return;
	default:	/* varyings, coordinates, reserved */
		bad_instr(x);
		break;
	}
	for (i = 0; i < LANES; i++)
		out[i] = v;
}

/*
 * The 16 lanes an ALU input @mux selects: the source itself, or @buf with
 * the unpack applied (regfile A with pm clear, r4 with pm set).
 */
static const u32 *operand(struct qpu_emu_exec *x, unsigned int mux,
			  bool is_float, u32 *buf)
{
	const struct qpu_isa_instr *in = x->in;
	struct qpu_emu_alu_scratch *s = &x->emu->alu;
	const u32 *src;
	unsigned int i, mode = 0;

	if (mux == QPU_ISA_MUX_A) {
		src = s->ra;
		if (!in->pm)
			mode = in->unpack;
	} else if (mux == QPU_ISA_MUX_B) {
		src = s->rb;
	} else {
		src = x->q->acc[mux];
		if (mux == QPU_ISA_MUX_R4 && in->pm)
			mode = in->unpack;
	}
	if (!mode)
		return src;
	for (i = 0; i < LANES; i++)
		buf[i] = unpack(src[i], mode, is_float);
	return buf;
}

static void exec_alu(struct qpu_emu_exec *x)
{
	const struct qpu_isa_instr *in = x->in;
	struct qpu_emu_qpu *q = x->q;
	struct qpu_emu *emu = x->emu;
	bool smi = in->kind == QPU_ISA_KIND_ALU_SMALL_IMM;
	const struct qpu_isa_smi *imm = &qpu_isa_small_imms[in->raddr_b];
	struct qpu_emu_alu_scratch *s = &emu->alu;
	u32 *ra = s->ra, *rb = s->rb, unif = 0;
	const u32 *opa = NULL, *opb = NULL, *opc = NULL, *opd = NULL;
	struct qpu_emu_result *add = &s->add, *mul = &s->mul;
	bool *carry = s->carry;
	u32 addf = qpu_isa_add_ops[in->op_add].flags;
	u32 mulf = qpu_isa_mul_ops[in->op_mul].flags;
	unsigned int i;

	if (in->sig == QPU_ISA_SIG_LOADCV || in->sig == QPU_ISA_SIG_LOADC ||
	    in->sig == QPU_ISA_SIG_LDCEND || in->sig == QPU_ISA_SIG_LOADAM) {
		bad_instr(x);	/* TLB loads: not for user programs */
		return;
	}
	if (in->raddr_a == RA_UNIF || (!smi && in->raddr_b == RA_UNIF)) {
		u8 *p = mem(x, q->unif, 4, QPU_EMU_ACCESS_UNIFORM);

		if (!p)
			return;
		unif = rd32(p);
		q->unif += 4;
	}
	if (in->raddr_a == RA_MUTEX || (!smi && in->raddr_b == RA_MUTEX))
		emu->mutex_owner = (int)x->qi;
	read_file(x, false, in->raddr_a, unif, ra);
	if (smi) {
		for (i = 0; i < LANES; i++)
			rb[i] = imm->kind == QPU_ISA_SMI_ROTATE ?
				(u32)(in->raddr_b - 64) : imm->value;
	} else if (in->raddr_b == RA_VPM && in->raddr_a == RA_VPM) {
		for (i = 0; i < LANES; i++)	/* one VPM read a cycle */
			rb[i] = ra[i];
	} else {
		read_file(x, true, in->raddr_b, unif, rb);
	}
	if (x->fault)
		return;

	/* Inputs; unpack applies per consumer (float or integer). */
	if (in->op_add) {
		opa = operand(x, in->add_a, addf & QPU_ISA_OP_FLOAT_IN, s->aa);
		opb = operand(x, in->add_b, addf & QPU_ISA_OP_FLOAT_IN, s->ab);
	}
	if (in->op_mul) {
		opc = operand(x, in->mul_a, mulf & QPU_ISA_OP_FLOAT_IN, s->ma);
		opd = operand(x, in->mul_b, mulf & QPU_ISA_OP_FLOAT_IN, s->mb);
	}
	x->uses_r4 = (in->op_add && (in->add_a == QPU_ISA_MUX_R4 ||
		      in->add_b == QPU_ISA_MUX_R4)) ||
		     (in->op_mul && (in->mul_a == QPU_ISA_MUX_R4 ||
		      in->mul_b == QPU_ISA_MUX_R4));

	add->is_mul = false;
	add->is_float = addf & QPU_ISA_OP_FLOAT_OUT;
	add->mask = cond_mask(q, in->cond_add);
	mul->is_mul = true;
	mul->is_float = mulf & QPU_ISA_OP_FLOAT_OUT;
	mul->mask = cond_mask(q, in->cond_mul);
	for (i = 0; in->op_add && i < LANES; i++) {
		add->wide[i] = 0;
		add->v[i] = alu_add(in->op_add, opa[i], opb[i], &carry[i],
				    &add->wide[i]);
	}
	for (i = 0; in->op_mul && i < LANES; i++) {
		mul->v[i] = alu_mul(in->op_mul, opc[i], opd[i]);
		mul->wide[i] = (s32)mul->v[i];
	}
	if (smi && imm->kind == QPU_ISA_SMI_ROTATE && in->op_mul) {
		u32 n = imm->value ? imm->value : q->acc[5][0] & 15;
		bool full = in->mul_a < QPU_ISA_MUX_R4 &&
			    in->mul_b < QPU_ISA_MUX_R4;
		u32 t[LANES];

		for (i = 0; i < LANES; i++)
			t[i] = mul->v[i];
		for (i = 0; i < LANES; i++)
			mul->v[i] = full ? t[(i - n) & 15] :
				t[(i & ~3u) | ((i - n) & 3)];
	}
	if (in->sf) {
		if (in->op_add)
			set_flags(q, add->v, carry, add->mask, add->is_float);
		else if (in->op_mul)
			set_flags(q, mul->v, NULL, mul->mask, mul->is_float);
	}
	if (in->op_add)
		write_reg(x, in->waddr_add, in->ws, add);
	if (in->op_mul)
		write_reg(x, in->waddr_mul, !in->ws, mul);
	if (in->op_add && in->op_mul)
		emu->stats.both_units++;
	if (x->fault)
		return;
	if (in->sig == QPU_ISA_SIG_LDTMU0)
		tmu_pop(q, 0);
	else if (in->sig == QPU_ISA_SIG_LDTMU1)
		tmu_pop(q, 1);
	else if (in->sig == QPU_ISA_SIG_THREND)
		q->end_left = 3;
}

static void exec_ldi(struct qpu_emu_exec *x)
{
	const struct qpu_isa_instr *in = x->in;
	struct qpu_emu_qpu *q = x->q;
	struct qpu_emu_result r;
	u32 imm = in->imm;
	unsigned int i;

	if (in->kind == QPU_ISA_KIND_SEMA) {
		u8 *s = &x->emu->sem[in->sem];

		imm = in->sem | (u32)in->sem_acquire << QPU_ISA_SEM_ACQUIRE_BIT |
			in->sem_pad << QPU_ISA_SEM_PAD_SHIFT;
		if (in->sem_acquire)
			(*s)--;
		else
			(*s)++;
		wake_sync(x->emu);
	}
	r.is_float = false;
	for (i = 0; i < LANES; i++) {
		if (in->kind == QPU_ISA_KIND_LDI_PES ||
		    in->kind == QPU_ISA_KIND_LDI_PEU)
			r.v[i] = (u32)qpu_isa_ldi_elem(imm,
				in->kind == QPU_ISA_KIND_LDI_PES, i);
		else
			r.v[i] = imm;
		r.wide[i] = (s32)r.v[i];
	}
	if (in->sf)
		set_flags(q, r.v, NULL, cond_mask(q, in->cond_add), false);
	r.is_mul = false;
	r.mask = cond_mask(q, in->cond_add);
	write_reg(x, in->waddr_add, in->ws, &r);
	r.is_mul = true;
	r.mask = cond_mask(q, in->cond_mul);
	write_reg(x, in->waddr_mul, !in->ws, &r);
}

static bool branch_taken(const struct qpu_emu_qpu *q, unsigned int cond)
{
	u16 f;

	if (cond == QPU_ISA_BR_ALWAYS)
		return true;
	f = cond < 4 ? q->zf : cond < 8 ? q->nf : q->cf;
	if (cond & 1)
		f = ~f & ALL_LANES;	/* the "clear" forms */
	if (cond & 2)
		return f != 0;		/* any */
	return f == ALL_LANES;		/* all */
}

static void exec_branch(struct qpu_emu_exec *x)
{
	const struct qpu_isa_instr *in = x->in;
	struct qpu_emu_qpu *q = x->q;
	struct qpu_emu_result r;
	u32 target = in->imm;
	unsigned int i;

	if (q->br_left) {
		bad_instr(x);	/* a branch in a branch's delay slot */
		return;
	}
	if (!branch_taken(q, in->br_cond))
		return;
	if (in->br_rel)
		target += q->pc + 32;
	if (in->br_reg)
		target += q->ra[in->raddr_a][15];
	q->br_target = target;
	q->br_left = 4;	/* one is taken off after this one */
	r.is_float = false;
	r.mask = ALL_LANES;
	for (i = 0; i < LANES; i++) {
		r.v[i] = q->pc + 32;
		r.wide[i] = 0;
	}
	r.is_mul = false;
	write_reg(x, in->waddr_add, in->ws, &r);
	r.is_mul = true;
	write_reg(x, in->waddr_mul, !in->ws, &r);
}

/* --- the scheduler ------------------------------------------------------- */

static const struct qpu_isa_instr *decode(struct qpu_emu *emu, u32 pc,
					  u64 word)
{
	struct qpu_emu_dcache *d = &emu->dcache[(pc >> 3) % DCACHE_ENTRIES];

	if (!d->valid || d->addr != pc || d->word != word) {
		qpu_isa_decode(word, &d->in);
		d->addr = pc;
		d->word = word;
		d->valid = true;
	}
	return &d->in;
}

static void finish(struct qpu_emu *emu, struct qpu_emu_qpu *q)
{
	q->state = QPU_EMU_QPU_IDLE;
	emu->completed++;
	emu->stats.programs_done++;
}

/* Issue one instruction on QPU @qi; false if it had to wait instead. */
static bool step(struct qpu_emu *emu, unsigned int qi)
{
	struct qpu_emu_qpu *q = &emu->qpu[qi];
	struct qpu_emu_exec x = { .emu = emu, .q = q, .qi = qi };
	enum qpu_emu_qpu_state wait;
	const u8 *p;
	u64 word;
	unsigned int i;

	if (q->pc & 7) {
		set_fault(&x, QPU_EMU_FAULT_MISALIGNED, q->pc,
			  QPU_EMU_ACCESS_FETCH);
		goto out;
	}
	p = mem(&x, q->pc, 8, QPU_EMU_ACCESS_FETCH);
	if (!p)
		goto out;
	word = rd32(p) | (u64)rd32(p + 4) << 32;
	x.in = decode(emu, q->pc, word);
	if (x.in->reserved) {
		bad_instr(&x);
		goto out;
	}
	wait = must_wait(emu, q, x.in);
	if (wait != QPU_EMU_QPU_RUNNING) {
		q->state = wait;
		return false;
	}
	if (emu->ops->trace)
		emu->ops->trace(emu->ctx, qi, q->pc, word);
	emu->stats.instructions[qi]++;
	if (q->sfu_left && --q->sfu_left == 0)
		for (i = 0; i < LANES; i++)
			q->acc[4][i] = q->sfu_val[i];
	switch (x.in->kind) {
	case QPU_ISA_KIND_ALU:
	case QPU_ISA_KIND_ALU_SMALL_IMM:
		exec_alu(&x);
		break;
	case QPU_ISA_KIND_BRANCH:
		exec_branch(&x);
		break;
	case QPU_ISA_KIND_RAW:
		bad_instr(&x);
		break;
	default:
		exec_ldi(&x);
		break;
	}
	if (x.uses_r4 && q->sfu_left)
		emu->stats.stall_sfu++;
out:
	if (x.fault) {
		emu->status = QPU_EMU_FAULT;
		return true;
	}
	if (q->br_left && --q->br_left == 0)
		q->pc = q->br_target;
	else
		q->pc += 8;
	if (q->end_left && --q->end_left == 0)
		finish(emu, q);
	return true;
}

static void count_stall(struct qpu_emu *emu, const struct qpu_emu_qpu *q)
{
	if (q->state == QPU_EMU_QPU_WAIT_TMU)
		emu->stats.stall_tmu++;
	else if (q->state == QPU_EMU_QPU_WAIT_VPM)
		emu->stats.stall_vpm++;
	else
		emu->stats.stall_sync++;
}

enum qpu_emu_status qpu_emu_run(struct qpu_emu *emu, u64 budget)
{
	while (emu->status == QPU_EMU_RUNNING || emu->status == QPU_EMU_IDLE) {
		unsigned int i, live = 0, ready = 0, qi;

		for (i = 0; i < QPU_EMU_NUM_QPUS; i++) {
			live += is_live(&emu->qpu[i]);
			ready += is_live(&emu->qpu[i]) &&
				!is_waiting(&emu->qpu[i]);
		}
		if (!live) {
			emu->status = QPU_EMU_IDLE;
			break;
		}
		if (!ready) {
			emu->status = QPU_EMU_DEADLOCK;
			break;
		}
		emu->status = QPU_EMU_RUNNING;
		if (!budget)
			break;
		if (emu->seed) {
			unsigned int pick = emu_rand(emu) % ready;

			for (qi = 0; qi < QPU_EMU_NUM_QPUS; qi++) {
				struct qpu_emu_qpu *q = &emu->qpu[qi];

				if (!is_live(q))
					continue;
				if (is_waiting(q)) {
					count_stall(emu, q);
					continue;
				}
				if (!pick--)
					break;
			}
		} else {
			/* The next QPU in order that is ready. */
			for (;;) {
				struct qpu_emu_qpu *q;

				qi = emu->rr_next;
				emu->rr_next = (qi + 1) % QPU_EMU_NUM_QPUS;
				q = &emu->qpu[qi];
				if (!is_live(q))
					continue;
				if (!is_waiting(q))
					break;
				count_stall(emu, q);
			}
		}
		if (step(emu, qi))
			budget--;
	}
	return emu->status;
}

/* --- the API ------------------------------------------------------------- */

size_t qpu_emu_size(void)
{
	return sizeof(struct qpu_emu);
}

static void reset_state(struct qpu_emu *emu)
{
	const struct qpu_emu_ops *ops = emu->ops;
	void *ctx = emu->ctx;
	u32 seed = emu->seed;

	emu_memset(emu, 0, sizeof(*emu));
	emu->ops = ops;
	emu->ctx = ctx;
	emu->seed = seed;
	emu->rng = seed;
	emu->mutex_owner = -1;
	emu->status = QPU_EMU_IDLE;
}

void qpu_emu_init(struct qpu_emu *emu, const struct qpu_emu_ops *ops,
		  void *ctx, u32 seed)
{
	emu->ops = ops;
	emu->ctx = ctx;
	emu->seed = seed;
	reset_state(emu);
}

void qpu_emu_reset(struct qpu_emu *emu)
{
	reset_state(emu);
}

int qpu_emu_start(struct qpu_emu *emu, u32 code_addr, u32 unif_addr)
{
	unsigned int i;

	if ((code_addr & 7) || (unif_addr & 3))
		return -QPU_EMU_EINVAL;
	for (i = 0; i < QPU_EMU_NUM_QPUS; i++) {
		struct qpu_emu_qpu *q = &emu->qpu[i];

		if (is_live(q))
			continue;
		emu_memset(q, 0, sizeof(*q));
		q->state = QPU_EMU_QPU_RUNNING;
		q->pc = code_addr;
		q->unif = unif_addr;
		if (emu->status == QPU_EMU_IDLE)
			emu->status = QPU_EMU_RUNNING;
		return (int)i;
	}
	return -QPU_EMU_EBUSY;
}

u32 qpu_emu_completed(const struct qpu_emu *emu)
{
	return emu->completed;
}

const struct qpu_emu_fault *qpu_emu_get_fault(const struct qpu_emu *emu)
{
	return &emu->fault;
}

const struct qpu_emu_stats *qpu_emu_get_stats(const struct qpu_emu *emu)
{
	return &emu->stats;
}

int qpu_emu_get_reg(const struct qpu_emu *emu, unsigned int qpu,
		    enum qpu_emu_file file, unsigned int reg, u32 out[16])
{
	const struct qpu_emu_qpu *q;
	const u32 *src;
	unsigned int i;

	if (qpu >= QPU_EMU_NUM_QPUS)
		return -QPU_EMU_EINVAL;
	q = &emu->qpu[qpu];
	if (file == QPU_EMU_FILE_ACC && reg < 6)
		src = q->acc[reg];
	else if (file == QPU_EMU_FILE_A && reg < 32)
		src = q->ra[reg];
	else if (file == QPU_EMU_FILE_B && reg < 32)
		src = q->rb[reg];
	else
		return -QPU_EMU_EINVAL;
	for (i = 0; i < LANES; i++)
		out[i] = src[i];
	return 0;
}

int qpu_emu_get_flags(const struct qpu_emu *emu, unsigned int qpu,
		      u16 *z, u16 *n, u16 *c)
{
	if (qpu >= QPU_EMU_NUM_QPUS)
		return -QPU_EMU_EINVAL;
	*z = emu->qpu[qpu].zf;
	*n = emu->qpu[qpu].nf;
	*c = emu->qpu[qpu].cf;
	return 0;
}

enum qpu_emu_qpu_state qpu_emu_get_qpu_state(const struct qpu_emu *emu,
					     unsigned int qpu, u32 *pc)
{
	if (qpu >= QPU_EMU_NUM_QPUS)
		return QPU_EMU_QPU_IDLE;
	if (pc)
		*pc = emu->qpu[qpu].pc;
	return emu->qpu[qpu].state;
}

int qpu_emu_get_semaphore(const struct qpu_emu *emu, unsigned int sem)
{
	if (sem >= QPU_EMU_NUM_SEMAPHORES)
		return -QPU_EMU_EINVAL;
	return emu->sem[sem];
}

const u32 *qpu_emu_get_vpm(const struct qpu_emu *emu)
{
	return emu->vpm;
}

/* --- describe ------------------------------------------------------------ */

struct qpu_emu_buf {
	char *p;
	size_t len, pos;
};

static void put_str(struct qpu_emu_buf *b, const char *s)
{
	for (; *s; s++, b->pos++)
		if (b->pos + 1 < b->len)
			b->p[b->pos] = *s;
}

static void put_num(struct qpu_emu_buf *b, u32 v, bool hex)
{
	char tmp[12];
	int n = 0;

	if (hex)
		put_str(b, "0x");
	do {
		u32 d = hex ? v & 15 : v % 10;

		tmp[n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
		v = hex ? v >> 4 : v / 10;
	} while (v);
	while (n--) {
		char s[2] = { tmp[n], 0 };

		put_str(b, s);
	}
}

size_t qpu_emu_describe(const struct qpu_emu *emu, char *buf, size_t len)
{
	static const char *const names[] = {
		[QPU_EMU_QPU_IDLE] = "idle",
		[QPU_EMU_QPU_RUNNING] = "running",
		[QPU_EMU_QPU_WAIT_SEM] = "waits on a semaphore",
		[QPU_EMU_QPU_WAIT_MUTEX] = "waits on the mutex",
		[QPU_EMU_QPU_WAIT_VPM] = "waits on a VPM read never set up",
		[QPU_EMU_QPU_WAIT_TMU] = "waits on an empty TMU FIFO",
	};
	struct qpu_emu_buf b = { .p = buf, .len = len };
	unsigned int i;

	for (i = 0; i < QPU_EMU_NUM_QPUS; i++) {
		const struct qpu_emu_qpu *q = &emu->qpu[i];

		if (!is_live(q))
			continue;
		put_str(&b, "qpu ");
		put_num(&b, i, false);
		put_str(&b, ": pc ");
		put_num(&b, q->pc, true);
		put_str(&b, ", ");
		put_str(&b, names[q->state]);
		if (q->state == QPU_EMU_QPU_WAIT_SEM) {
			put_str(&b, q->wait_acquire ? " (acquire " :
				" (release ");
			put_num(&b, q->wait_sem, false);
			put_str(&b, ")");
		}
		put_str(&b, "\n");
	}
	put_str(&b, "semaphores:");
	for (i = 0; i < QPU_EMU_NUM_SEMAPHORES; i++) {
		put_str(&b, " ");
		put_num(&b, emu->sem[i], false);
	}
	put_str(&b, "\nmutex: ");
	if (emu->mutex_owner < 0) {
		put_str(&b, "free\n");
	} else {
		put_str(&b, "held by qpu ");
		put_num(&b, (u32)emu->mutex_owner, false);
		put_str(&b, "\n");
	}
	if (len)
		buf[b.pos < len ? b.pos : len - 1] = 0;
	return b.pos;
}
