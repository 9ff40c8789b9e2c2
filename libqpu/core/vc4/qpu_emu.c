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
 *   TMU FIFO overflow; the reserved VPM size 3 and VDW MODEW 1 when used.
 * - 8/16-bit VPM and VCD DMA: see qpu_emu_vpm.c, vpm_elem() and "DOC: VCD
 *   DMA widths".
 * - Thread switches: the QPUs run user programs, one thread each (the
 *   guide's second thread per QPU is for threaded fragment shaders, which
 *   only the rendering pipeline starts). A thrsw or lthrsw then finds no
 *   other thread: like the hardware it takes effect after its two delay
 *   slots, and the same thread goes on with its registers, accumulators
 *   and TMU FIFOs intact, so the program runs as if the signal were absent.
 *   Programs that rely on a switch to wait for a TMU result still work: the
 *   lookup has completed (see the next point).
 * - TMU latency: lookups complete at the request, so results never depend
 *   on timing; stall_tmu counts the instructions an ldtmu issued too early
 *   would have waited for a result arriving TMU_LATENCY instructions after
 *   its request (Mesa's vc4 scheduler assumes 10; the guide gives none).
 * - Not modelled: textures (t/r/b writes), TLB, varyings and coordinates,
 *   bkpt, sbwait and sbdone (they do nothing), the nop-register and mul-nop
 *   read-back quirks (they read 0), the flag setting of branches with an
 *   odd raddr_a (such words fault as reserved). stall_vpm, stall_sync and
 *   part of stall_tmu count the scheduler's visits to waiting QPUs (once a
 *   round with seed 0).
 * - Pack 32s (regfile A pack 8) saturates the exact sum or difference of
 *   add and sub; any other result fits 32 bits and is kept as it is.
 * - Packs and unpacks where the guide's tables leave a case open (each is
 *   a row of test-emu-tables): regfile-A 16a/16b of a float result give a
 *   float16 with or without sat (as on a Pi), the 8-bit packs take a float
 *   result's bits as an integer, the mul pack of an integer result keeps
 *   its low byte. Unpacks follow each consumer (a float op gets floats);
 *   8dr gives a float op byte d as a colour, like 8d; r4 unpacks give an
 *   integer op the regfile-A integer forms.
 *
 * DOC: predecoded instructions
 * Each word is decoded once into a struct qpu_emu_op (the decode plus what
 * step() needs: may it block, does it read a uniform, the mutex or r4,
 * does it unpack, may exec_alu_fast() run it), kept in a direct-mapped
 * cache of OP_CACHE_ENTRIES indexed by PC. Code lives in the caller's
 * buffers, which the program's own VCD DMA, the host or another device may
 * rewrite at any time, so the cache is never trusted on its own: every
 * fetch still reads the 8 bytes at the PC and uses the entry only if its
 * tag holds the same PC and the same word. A write into code is therefore
 * seen at the next fetch with no hook on any writer, at the cost of a
 * 64-bit compare. What is saved is the translate() call of each fetch: a
 * QPU keeps a window (the rest of the 4 KiB block around its PC, or one
 * word where translate() refuses more) and fetches inside it directly.
 * translate()'s answers are trusted only until qpu_emu_run() returns (the
 * kernel's simulated V3D swaps jobs between calls), so each call starts
 * with no window. Uniform and TMU reads and the rows of VCD DMA loads and
 * stores use windows the same way (one per QPU and kind, see win_get()),
 * asked first for the rest of the 1 MiB region:
 * a TMU read walking down a column of a wide matrix (sgemm's B, 12 KiB a
 * row at N = 3072) leaves a 4 KiB block at every request, and translate()
 * (a search through the job's buffers in the benches) took a sixth of the
 * time there. Each word is still checked to lie inside what translate()
 * granted, and a word outside goes through translate() by itself, so
 * faults name the same instruction, address and access as without
 * windows. qpu_emu_set_predecode(emu, false) turns all of them off, and
 * exec_alu_fast() too, as a reference.
 *
 * DOC: speed
 * The ALU works on whole vectors: one switch per instruction, then a plain
 * 16-lane loop per op that the compiler unrolls or vectorises; inputs are
 * read in place (registers, constant vectors) rather than copied; the
 * float ops go through the 16-lane forms of qpu_emu_float.c (the host's
 * SSE2 or AVX-512 in userspace on x86-64); unpack, pack, peripheral writes
 * and rotation take the general paths only when an instruction uses them.
 * With one QPU live, round-robin is skipped: it runs until it waits or
 * ends. Results are the same bit for bit as the plain per-lane code
 * (test-emu-fuzz). Further:
 * - Data layout: every register, accumulator, FIFO entry and scratch
 *   vector starts on a 64-byte line (see emu_qpu(): the caller's memory is
 *   only 8-byte aligned). At the old 4-byte alignment each 64-byte load or
 *   store of the AVX-512 float code straddled two lines; aligning them
 *   made sgemm about 10% faster.
 * - A fast path: the instructions of compute loops (registers, uniforms
 *   or small immediates in, unconditional ops into registers, with or
 *   without flags, at most an ldtmu; see fast_ok()) run in
 *   exec_alu_fast(), which finds its vectors by offsets predecode()
 *   computed, writes fadd and fmul results straight into their registers
 *   and the others through the result buffers but not write_result(), and
 *   skips the tests exec_alu() makes for everything they do not use.
 *   sgemm's "fadd ra, ra, r0; fmul r0, r4, unif" is one, and so is a loop
 *   counter's "sub.setf r0, r0, 1". The integer lane loops are inlined
 *   into both paths (exec_alu_fast() is flattened): once GCC called them
 *   instead, and integer code lost more than the fast path gained.
 *   Predecoding off, nothing takes the fast path, and test-emu-fuzz
 *   compares the two on programs rich in such instructions.
 * - With the 1 MiB TMU windows, these took bench-sgemm's 96x363x3072
 *   from 28 to about 40 million emulated instructions per CPU second on
 *   the machine they were measured on.
 * - Watch what GCC makes of the 64-byte copies (copy_lanes()): while
 *   trying layouts, it expanded one into rep movs (with the vectors'
 *   alignment known from attributes) and copy loops into memmove() calls,
 *   each time making integer code 15-50% slower.
 * - In qpu_emu_float.c the 16-lane ops jump to their SIMD form with no
 *   register saves (simd_get() inline).
 */
#include "qpu_emu_internal.h"
#include "qpu_emu_float.h"

/* Register addresses are the core's QPU_ISA_RADDR_* and QPU_ISA_WADDR_*. */

/* How step() runs an instruction (qpu_emu_op.exec). */
enum qpu_emu_exec_kind {
	EX_ALU,
	EX_ALU_FAST,	/* common ALU shapes: see exec_alu_fast() */
	EX_LDI,		/* load immediates and semaphores */
	EX_BRANCH,
	EX_BAD,		/* reserved encodings and the raw kind: fault */
};

/* --- small helpers (no libc) --------------------------------------------- */

static void emu_memset(void *p, int c, size_t n)
{
	u8 *d = p;

	while (n--)
		*d++ = (u8)c;
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

/* Every state change goes through here, to keep the live/waiting masks. */
static void set_state(struct qpu_emu *emu, unsigned int qi,
		      enum qpu_emu_qpu_state state)
{
	u16 bit = (u16)(1u << qi);

	emu_qpu(emu, qi)->state = state;
	emu->live &= ~bit;
	emu->waiting &= ~bit;
	if (state != QPU_EMU_QPU_IDLE)
		emu->live |= bit;
	if (state >= QPU_EMU_QPU_WAIT_SEM)
		emu->waiting |= bit;
}

/* --- faults and memory --------------------------------------------------- */

void qpu_emu_set_fault(struct qpu_emu_exec *x, enum qpu_emu_fault_reason why,
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

/*
 * The host address of @len bytes at @addr for an access of @kind whose
 * address must be a multiple of @align, or NULL after setting the fault.
 */
void *qpu_emu_mem(struct qpu_emu_exec *x, u32 addr, u32 len, u32 align,
		  enum qpu_emu_access kind)
{
	void *p;

	if (x->fault)
		return NULL;
	if (addr & (align - 1)) {
		qpu_emu_set_fault(x, QPU_EMU_FAULT_MISALIGNED, addr, kind);
		return NULL;
	}
	p = x->emu->ops->translate(x->emu->ctx, addr, len, kind);
	if (!p)
		qpu_emu_set_fault(x, QPU_EMU_FAULT_MEMORY, addr, kind);
	return p;
}

/* Ask translate() for @len bytes at @addr as the window @w. */
static u8 *win_try(struct qpu_emu *emu, struct qpu_emu_win *w, u32 addr,
		   u32 len, enum qpu_emu_access kind)
{
	u8 *p = emu->ops->translate(emu->ctx, addr, len, kind);

	if (p) {
		w->p = p;
		w->addr = addr;
		w->len = len;
	}
	return p;
}

/* The window sizes win_miss() asks for, largest first (powers of 2). */
static const u32 win_sizes[WIN_LEVELS] = { 1u << 20, 1u << 16, FETCH_WINDOW };

/*
 * The host address of the @len bytes at @addr (a multiple of @align) for an
 * access of @kind, through the window @w: the same answer and the same
 * fault as qpu_emu_mem(x, addr, len, align, kind), with translate() asked
 * once for the rest of the 1 MiB region around @addr (or, where it refuses
 * that, of the 64 KiB one, the 4 KiB block, the 64-byte line) instead of
 * once per access. Strided TMU reads (a column of a wide matrix) leave a
 * 4 KiB block at every request; they stay inside a megabyte for many.
 * Windows that end before @addr + @len are not kept. Off (no window)
 * without predecoding.
 */
static u8 *win_miss(struct qpu_emu_exec *x, struct qpu_emu_win *w, u32 addr,
		    u32 len, u32 align, enum qpu_emu_access kind)
{
	struct qpu_emu *emu = x->emu;
	u32 wlen, tried = 0;
	u8 *p;
	unsigned int i;

	if (!(addr & (align - 1)) && !emu->no_predecode) {
		for (i = 0; i < WIN_LEVELS; i++) {
			u32 size = win_sizes[i];
			u32 region = addr & ~(size - 1);

			wlen = size - (addr & (size - 1));
			if (wlen <= 64 || wlen < len || wlen == tried ||
			    w->refused[i] == region + 1)
				continue;
			p = win_try(emu, w, addr, wlen, kind);
			if (p)
				return p;
			w->refused[i] = region + 1;
			tried = wlen;
		}
		wlen = 64 - (addr & 63);
		if (wlen > len) {
			p = win_try(emu, w, addr, wlen, kind);
			if (p)
				return p;
		}
	}
	return qpu_emu_mem(x, addr, len, align, kind);
}

/* win_miss()'s answer, from the window when it holds the bytes. */
static inline u8 *win_get(struct qpu_emu_exec *x, struct qpu_emu_win *w,
			  u32 addr, u32 len, u32 align,
			  enum qpu_emu_access kind)
{
	u32 off = addr - w->addr;

	if (x->fault)
		return NULL;
	if (off < w->len && len <= w->len - off && !(addr & (align - 1)))
		return w->p + off;
	return win_miss(x, w, addr, len, align, kind);
}

/* The 4-byte word at @addr through @w (uniforms, TMU reads). */
static inline const u8 *win_mem(struct qpu_emu_exec *x,
				struct qpu_emu_win *w, u32 addr,
				enum qpu_emu_access kind)
{
	return win_get(x, w, addr, 4, 4, kind);
}

/* A VCD DMA row through the QPU's window for @kind. */
u8 *qpu_emu_dma_mem(struct qpu_emu_exec *x, u32 addr, u32 len, u32 align,
		    enum qpu_emu_access kind)
{
	struct qpu_emu_win *w = kind == QPU_EMU_ACCESS_DMA_LOAD ?
		&x->q->dlwin : &x->q->dswin;

	return win_get(x, w, addr, len, align, kind);
}

void qpu_emu_bad_instr(struct qpu_emu_exec *x)
{
	qpu_emu_set_fault(x, QPU_EMU_FAULT_INSTRUCTION, x->q->pc,
			  QPU_EMU_ACCESS_FETCH);
}

/* --- waking and blocking ------------------------------------------------- */

/* A semaphore or the mutex changed: sleeping QPUs try again. */
static void wake_sync(struct qpu_emu *emu)
{
	unsigned int i;
	u16 waiting = emu->waiting;

	for (i = 0; waiting; i++, waiting >>= 1)
		if ((waiting & 1) &&
		    (emu_qpu(emu, i)->state == QPU_EMU_QPU_WAIT_SEM ||
		     emu_qpu(emu, i)->state == QPU_EMU_QPU_WAIT_MUTEX))
			set_state(emu, i, QPU_EMU_QPU_RUNNING);
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
	if (reads_raddr(in, QPU_ISA_RADDR_MUTEX) && emu->mutex_owner >= 0)
		return QPU_EMU_QPU_WAIT_MUTEX;
	if (reads_raddr(in, QPU_ISA_RADDR_VPM) && !q->vr.left)
		return QPU_EMU_QPU_WAIT_VPM;
	if (in->sig == QPU_ISA_SIG_LDTMU0 && !q->tmu_count[0])
		return QPU_EMU_QPU_WAIT_TMU;
	if (in->sig == QPU_ISA_SIG_LDTMU1 && !q->tmu_count[1])
		return QPU_EMU_QPU_WAIT_TMU;
	return QPU_EMU_QPU_RUNNING;
}

/* --- TMU ----------------------------------------------------------------- */

static void tmu_request(struct qpu_emu_exec *x, unsigned int t, const u32 *v,
			u16 mask)
{
	struct qpu_emu_qpu *q = x->q;
	u32 *slot;
	unsigned int i;

	if (q->tmu_count[t] >= TMU_FIFO_DEPTH) {
		qpu_emu_set_fault(x, QPU_EMU_FAULT_INSTRUCTION, q->pc,
				  QPU_EMU_ACCESS_TMU);
		return;
	}
	slot = q->tmu[t][(q->tmu_head[t] + q->tmu_count[t]) % TMU_FIFO_DEPTH];
	for (i = 0; i < LANES; i++) {
		const u8 *p;

		slot[i] = 0;
		if (!(mask & (1u << i)))
			continue;
		p = win_mem(x, &q->twin, v[i] & ~3u, QPU_EMU_ACCESS_TMU);
		if (!p)
			return;
		slot[i] = rd32(p);
		x->emu->stats.tmu_bytes += 4;
	}
	q->tmu_ready[t][(q->tmu_head[t] + q->tmu_count[t]) % TMU_FIFO_DEPTH] =
		x->emu->stats.instructions[x->qi] + TMU_LATENCY;
	q->tmu_count[t]++;
}

/*
 * ldtmu: r4 gets the oldest result. The lookup itself completed at the
 * request; the latency it would have had only counts in stall_tmu.
 */
static void tmu_pop(struct qpu_emu_exec *x, unsigned int t)
{
	struct qpu_emu_qpu *q = x->q;
	unsigned int i, h = q->tmu_head[t];
	u64 now = x->emu->stats.instructions[x->qi];

	if (now < q->tmu_ready[t][h])
		x->emu->stats.stall_tmu += q->tmu_ready[t][h] - now;

	for (i = 0; i < LANES; i++)
		q->acc[4][i] = q->tmu[t][h][i];
	q->tmu_head[t] = (h + 1) % TMU_FIFO_DEPTH;
	q->tmu_count[t]--;
}

/* --- pack and unpack ----------------------------------------------------- */

static u32 unpack(u32 v, unsigned int mode, bool is_float)
{
	switch (mode) {
	case QPU_ISA_UNPACK_16A:
	case QPU_ISA_UNPACK_16B:
		v = mode == QPU_ISA_UNPACK_16A ? v & 0xffff : v >> 16;
		if (is_float)
			return qpu_emu_f16_to_f32(v);
		return (u32)(s32)(s16)v;
	case QPU_ISA_UNPACK_8D_REP:
		v >>= 24;
		if (is_float)
			return qpu_emu_unorm8_to_f32(v);
		return v * 0x01010101u;
	case QPU_ISA_UNPACK_8A:
	case QPU_ISA_UNPACK_8B:
	case QPU_ISA_UNPACK_8C:
	case QPU_ISA_UNPACK_8D:
		v = (v >> ((mode - QPU_ISA_UNPACK_8A) * 8)) & 0xff;
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
 * the exact integer result of add/sub for the 32-bit saturation. A float
 * result packed to 16a or 16b becomes a float16 with or without "sat"
 * (the guide's pack table; PyVideoCore's test_pack_regA_float shows it on
 * a Pi); only an integer result saturates.
 */
static u32 pack_a(u32 old, u32 v, s64 wide, unsigned int mode, bool is_float)
{
	u32 b;

	switch (mode) {
	case QPU_ISA_PACK_A_16A:
	case QPU_ISA_PACK_A_16B:
	case QPU_ISA_PACK_A_16A_SAT:
	case QPU_ISA_PACK_A_16B_SAT:
		if (is_float)
			b = qpu_emu_f32_to_f16(v);
		else if (mode >= QPU_ISA_PACK_A_16A_SAT)
			b = sat_s((s32)v, -0x8000, 0x7fff) & 0xffff;
		else
			b = v & 0xffff;
		return mode == QPU_ISA_PACK_A_16A || mode == QPU_ISA_PACK_A_16A_SAT ?
			(old & 0xffff0000u) | b : (old & 0xffff) | b << 16;
	case QPU_ISA_PACK_A_8888:
		return (v & 0xff) * 0x01010101u;
	case QPU_ISA_PACK_A_8A:
	case QPU_ISA_PACK_A_8B:
	case QPU_ISA_PACK_A_8C:
	case QPU_ISA_PACK_A_8D:
		b = (mode - QPU_ISA_PACK_A_8A) * 8;
		return (old & ~(0xffu << b)) | (v & 0xff) << b;
	case QPU_ISA_PACK_A_32_SAT:
		return sat_s(wide, -0x80000000ll, 0x7fffffffll);
	case QPU_ISA_PACK_A_8888_SAT:
		return sat_s((s32)v, 0, 255) * 0x01010101u;
	case QPU_ISA_PACK_A_8A_SAT:
	case QPU_ISA_PACK_A_8B_SAT:
	case QPU_ISA_PACK_A_8C_SAT:
	case QPU_ISA_PACK_A_8D_SAT:
		b = (mode - QPU_ISA_PACK_A_8A_SAT) * 8;
		return (old & ~(0xffu << b)) | sat_s((s32)v, 0, 255) << b;
	default:
		return v;
	}
}

/* Mul pack (pm=1): float results become 8-bit unorm, integers their byte. */
static u32 pack_mul(u32 old, u32 v, unsigned int mode, bool is_float)
{
	u32 b = is_float ? qpu_emu_f32_to_unorm8(v) : v & 0xff;
	u32 sh = (mode - QPU_ISA_PACK_MUL_8A) * 8;

	if (mode == QPU_ISA_PACK_MUL_8888)
		return b * 0x01010101u;
	if (mode >= QPU_ISA_PACK_MUL_8A && mode <= QPU_ISA_PACK_MUL_8D)
		return (old & ~(0xffu << sh)) | b << sh;
	return v;
}

/* --- ALU ----------------------------------------------------------------- */

/*
 * 64 bytes into a register or result. GCC expands this into four vector
 * moves; a plain copy loop may become a call to memmove() instead.
 */
static inline void copy_lanes(u32 *dst, const u32 *src)
{
	__builtin_memcpy(dst, src, LANES * sizeof(*dst));
}

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

#define LANE_LOOP(expr)				\
	do {					\
		for (i = 0; i < LANES; i++)	\
			v[i] = (expr);		\
	} while (0)

#define CARRY_LOOP(expr)				\
	do {						\
		for (i = 0; i < LANES && want_c; i++)	\
			c |= (u16)((expr) << i);	\
	} while (0)

/*
 * The add ALU over 16 lanes: @v gets the results; the return value, the
 * carry flags (bit per lane) when @want_c. One switch per instruction, a
 * plain loop per op, so the compiler can unroll or vectorise it. Inlined
 * into both exec_alu() and exec_alu_fast() (flattened): called, the
 * integer ops lose more than the fast path gains them.
 */
static u16 alu_add_lanes(unsigned int op, const u32 *a, const u32 *b,
			 u32 *__restrict v, bool want_c)
{
	unsigned int i;
	u16 c = 0;

	switch (op) {
	case QPU_ISA_A_FADD:
		qpu_emu_fadd16(a, b, 0, v);
		break;
	case QPU_ISA_A_FSUB:	/* fsub(a, b) is fadd(a, -b), NaNs included */
		qpu_emu_fadd16(a, b, 0x80000000u, v);
		break;
	case QPU_ISA_A_FMIN:	/* the carries come for free */
		c = qpu_emu_fmin16(a, b, v);
		break;
	case QPU_ISA_A_FMAX:
		c = qpu_emu_fmax16(a, b, v);
		break;
	case QPU_ISA_A_FMINABS:
		c = qpu_emu_fminabs16(a, b, v);
		break;
	case QPU_ISA_A_FMAXABS:
		c = qpu_emu_fmaxabs16(a, b, v);
		break;
	case QPU_ISA_A_FTOI:
		qpu_emu_ftoi16(a, v);
		break;
	case QPU_ISA_A_ITOF:
		qpu_emu_itof16(a, v);
		break;
	case QPU_ISA_A_ADD:
		LANE_LOOP(a[i] + b[i]);
		CARRY_LOOP(v[i] < a[i]);
		break;
	case QPU_ISA_A_SUB:
		LANE_LOOP(a[i] - b[i]);
		CARRY_LOOP(a[i] < b[i]);
		break;
	case QPU_ISA_A_SHR:
		LANE_LOOP(a[i] >> (b[i] & 31));
		break;
	case QPU_ISA_A_ASR:
		LANE_LOOP((u32)((s32)a[i] >> (b[i] & 31)));
		break;
	case QPU_ISA_A_ROR:
		LANE_LOOP((a[i] >> (b[i] & 31)) | (a[i] << ((32 - b[i]) & 31)));
		break;
	case QPU_ISA_A_SHL:
		LANE_LOOP(a[i] << (b[i] & 31));
		break;
	case QPU_ISA_A_MIN:
		LANE_LOOP((s32)a[i] < (s32)b[i] ? a[i] : b[i]);
		CARRY_LOOP((s32)a[i] > (s32)b[i]);
		break;
	case QPU_ISA_A_MAX:
		LANE_LOOP((s32)a[i] > (s32)b[i] ? a[i] : b[i]);
		CARRY_LOOP((s32)a[i] > (s32)b[i]);
		break;
	case QPU_ISA_A_AND:
		LANE_LOOP(a[i] & b[i]);
		break;
	case QPU_ISA_A_OR:
		LANE_LOOP(a[i] | b[i]);
		break;
	case QPU_ISA_A_XOR:
		LANE_LOOP(a[i] ^ b[i]);
		break;
	case QPU_ISA_A_NOT:
		LANE_LOOP(~a[i]);
		break;
	case QPU_ISA_A_CLZ:
		LANE_LOOP(clz32(a[i]));
		break;
	case QPU_ISA_A_V8ADDS:
		LANE_LOOP(v8(a[i], b[i], QPU_ISA_M_V8ADDS));
		break;
	case QPU_ISA_A_V8SUBS:
		LANE_LOOP(v8(a[i], b[i], QPU_ISA_M_V8SUBS));
		break;
	default:
		LANE_LOOP(0);
		break;
	}
	return c;
}

static void alu_mul_lanes(unsigned int op, const u32 *a, const u32 *b,
			  u32 *__restrict v)
{
	unsigned int i;

	switch (op) {
	case QPU_ISA_M_FMUL:
		qpu_emu_fmul16(a, b, v);
		break;
	case QPU_ISA_M_MUL24:
		LANE_LOOP((a[i] & 0xffffff) * (b[i] & 0xffffff));
		break;
	case QPU_ISA_M_NOP:
		LANE_LOOP(0);
		break;
	case QPU_ISA_M_V8MIN:
	case QPU_ISA_M_V8MAX:
		/* the mul unit's mov: v8min/v8max of a value with itself */
		if (a == b) {
			copy_lanes(v, a);
			break;
		}
		LANE_LOOP(v8(a[i], b[i], op));
		break;
	default:
		LANE_LOOP(v8(a[i], b[i], op));
		break;
	}
}

/*
 * DOC: lazy flags
 * Programs set the flags far more often than they read them (an sgemm
 * written elsewhere sets them in every fadd; only the loop's branch reads
 * the last sub's). So set_flags() keeps the setf's result vector, lanes,
 * carries and kind, and Z and N are computed from them only when a
 * condition, a branch or qpu_emu_get_flags() asks (flags_of()). A setf of
 * all lanes replaces a pending one unseen; one of fewer lanes first
 * resolves the pending one into zf/nf/cf, since it keeps the other lanes.
 */

/* Z and N of the 16 lanes of @v (float results: Z for +-0). */
static void flags_zn(const u32 *v, bool is_float, u16 *zp, u16 *np)
{
	u32 zmask = is_float ? 0x7fffffffu : 0xffffffffu;
	unsigned int i;
	u16 z = 0, n = 0;

	for (i = 0; i < LANES; i++) {
		z |= (u16)(!(v[i] & zmask) << i);
		n |= (u16)((v[i] >> 31) << i);
	}
	*zp = z;
	*np = n;
}

/* The QPU's Z, N and C, the pending setf included, without changing it. */
static void flags_of(const struct qpu_emu_qpu *q, u16 *z, u16 *n, u16 *c)
{
	u16 m = q->flag_mask, pz, pn;

	*z = q->zf;
	*n = q->nf;
	*c = q->cf;
	if (!m)
		return;
	flags_zn(q->flag_v, q->flag_float, &pz, &pn);
	*z = (*z & ~m) | (pz & m);
	*n = (*n & ~m) | (pn & m);
	*c = (*c & ~m) | (q->flag_c & m);
}

/* Fold the pending setf into zf, nf and cf. */
static void flags_resolve(struct qpu_emu_qpu *q)
{
	if (!q->flag_mask)
		return;
	flags_of(q, &q->zf, &q->nf, &q->cf);
	q->flag_mask = 0;
}

/* Lanes whose write condition @cond holds. */
static u16 cond_mask(struct qpu_emu_qpu *q, unsigned int cond)
{
	if (cond == QPU_ISA_COND_NEVER)
		return 0;
	if (cond == QPU_ISA_COND_ALWAYS)
		return ALL_LANES;
	flags_resolve(q);
	switch (cond) {
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
		flags_resolve(q);
	copy_lanes(q->flag_v, v);
	q->flag_mask = mask;
	q->flag_c = c;
	q->flag_float = is_float;
	if (x->emu->no_predecode)
		flags_resolve(q);
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
	else if (waddr < QPU_ISA_WADDR_TMU_NOSWAP)
		dst = q->acc[waddr - QPU_ISA_WADDR_R0];
	if (dst && !in->pack) {
		if (r->mask == ALL_LANES) {
			copy_lanes(dst, r->v);
		} else {
			for (i = 0; i < LANES; i++)
				dst[i] = (r->mask >> i) & 1 ? r->v[i] : dst[i];
		}
		return;
	}
	if (dst) {
		for (i = 0; i < LANES; i++) {
			u32 v = r->v[i];

			if (!(r->mask & (1u << i)))
				continue;
			if (in->pm && r->is_mul)
				v = pack_mul(dst[i], v, in->pack, r->is_float);
			else if (!in->pm && !file_b && waddr < 32)
				v = pack_a(dst[i], v, r->wide[i], in->pack,
					   r->is_float);
			dst[i] = v;
		}
		return;
	}
	switch (waddr) {
	case QPU_ISA_WADDR_TMU_NOSWAP:
	case QPU_ISA_WADDR_NOP:
		return;
	case QPU_ISA_WADDR_R5:
		for (i = 0; i < LANES; i++)
			if (r->mask & (1u << i))
				q->acc[5][i] = r->v[file_b ? 0 : i & ~3u];
		return;
	case QPU_ISA_WADDR_HOST_INT:
		for (i = 0; i < LANES; i++)
			if ((r->mask & (1u << i)) && r->v[i])
				break;
		if (i < LANES && emu->ops->host_interrupt)
			emu->ops->host_interrupt(emu->ctx, x->qi);
		return;
	case QPU_ISA_WADDR_UNIF_ADDR:
		/* B: unif_addr_rel moves the stream by whole uniforms */
		if (any)
			q->unif = file_b ? q->unif + r->v[0] * 4 : r->v[0];
		return;
	case QPU_ISA_WADDR_VPM:
		if (any)
			qpu_emu_vpm_write(x, r->v, r->mask);
		return;
	case QPU_ISA_WADDR_VPM_SETUP:
		if (any)
			qpu_emu_vpm_setup(q, r->v[0], file_b);
		return;
	case QPU_ISA_WADDR_VPM_ADDR:
		if (!any)
			return;
		if (file_b)
			qpu_emu_dma_store(x, r->v[0]);
		else
			qpu_emu_dma_load(x, r->v[0]);
		return;
	case QPU_ISA_WADDR_MUTEX:
		if (any) {
			emu->mutex_owner = -1;
			wake_sync(emu);
		}
		return;
	case QPU_ISA_WADDR_TMU0_S:
	case QPU_ISA_WADDR_TMU1_S:
		if (any)
			tmu_request(x, waddr == QPU_ISA_WADDR_TMU1_S, r->v, r->mask);
		return;
	default:
		break;
	}
	if (waddr >= QPU_ISA_WADDR_SFU_RECIP && waddr <= QPU_ISA_WADDR_SFU_LOG) {
		if (!any)
			return;
		for (i = 0; i < LANES; i++) {
			u32 v = r->v[i];

			switch (waddr) {
			case QPU_ISA_WADDR_SFU_RECIP:
				q->sfu_val[i] = qpu_emu_recip(v);
				break;
			case QPU_ISA_WADDR_SFU_RECIP + 1:
				q->sfu_val[i] = qpu_emu_recipsqrt(v);
				break;
			case QPU_ISA_WADDR_SFU_RECIP + 2:
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
		qpu_emu_bad_instr(x);
}

/*
 * write_reg(), with the common case (a register, no pack) inlined, and the
 * tracer told. Tracing turns exec_alu_fast() off (see predecode()), which
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
		write_reg(x, waddr, file_b, r);
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

/* --- instruction kinds --------------------------------------------------- */

static const u32 zero_lanes[LANES];
static const u32 elem_lanes[LANES] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
};

/*
 * The 16 lanes register-file read @raddr gives: the register itself, a
 * constant, or @buf filled in.
 */
static const u32 *read_file(struct qpu_emu_exec *x, bool file_b,
			    unsigned int raddr, u32 unif, u32 *buf)
{
	struct qpu_emu_qpu *q = x->q;
	unsigned int i;
	u32 v = 0;

	if (raddr < 32)
		return file_b ? q->rb[raddr] : q->ra[raddr];
	switch (raddr) {
	case QPU_ISA_RADDR_UNIF:
		v = unif;
		break;
	case QPU_ISA_RADDR_ELEM_QPU:
		if (!file_b)
			return elem_lanes;
		v = x->qi;
		break;
	case QPU_ISA_RADDR_NOP:
	case QPU_ISA_RADDR_VPM_BUSY:
	case QPU_ISA_RADDR_VPM_WAIT:
	case QPU_ISA_RADDR_MUTEX:
		return zero_lanes;
	case QPU_ISA_RADDR_VPM:
		qpu_emu_vpm_read(x, buf);
		return buf;
	default:	/* varyings, coordinates, reserved */
		qpu_emu_bad_instr(x);
		return zero_lanes;
	}
	for (i = 0; i < LANES; i++)
		buf[i] = v;
	return buf;
}

/*
 * The 16 lanes an ALU input @mux selects: the source itself, or @buf with
 * the unpack applied (regfile A with pm clear, r4 with pm set).
 */
static const u32 *operand(struct qpu_emu_exec *x, unsigned int mux,
			  const u32 *ra, const u32 *rb, bool is_float,
			  u32 *buf)
{
	const struct qpu_isa_instr *in = x->in;
	const u32 *src;
	unsigned int i, mode = 0;

	if (mux == QPU_ISA_MUX_A) {
		src = ra;
		if (!in->pm)
			mode = in->unpack;
	} else if (mux == QPU_ISA_MUX_B) {
		src = rb;
	} else {
		src = x->q->acc[mux];
		if (mux == QPU_ISA_MUX_R4 && in->pm)
			mode = in->unpack;
	}
	if (!mode || !(x->op->flags & OP_UNPACK))
		return src;
	for (i = 0; i < LANES; i++)
		buf[i] = unpack(src[i], mode, is_float);
	return buf;
}

/* The exact integer result of add and sub, for the 32-bit saturating pack. */
static void alu_wide(unsigned int op, const u32 *a, const u32 *b,
		     const u32 *v, s64 *wide)
{
	unsigned int i;

	for (i = 0; i < LANES; i++) {
		if (op == QPU_ISA_A_ADD)
			wide[i] = (s64)(s32)a[i] + (s32)b[i];
		else if (op == QPU_ISA_A_SUB)
			wide[i] = (s64)(s32)a[i] - (s32)b[i];
		else
			wide[i] = (s32)v[i];
	}
}

static inline const u32 *splat(u32 *buf, u32 v)
{
	unsigned int i;

	for (i = 0; i < LANES; i++)
		buf[i] = v;
	return buf;
}

/* The vector ALU input @mux selects: an accumulator, regfile A or B. */
static inline const u32 *mux_src(struct qpu_emu_qpu *q, unsigned int mux,
				 const u32 *ra, const u32 *rb)
{
	if (mux == QPU_ISA_MUX_A)
		return ra;
	if (mux == QPU_ISA_MUX_B)
		return rb;
	return q->acc[mux];
}

static void exec_alu(struct qpu_emu_exec *x)
{
	const struct qpu_isa_instr *in = x->in;
	struct qpu_emu_qpu *q = x->q;
	struct qpu_emu *emu = x->emu;
	bool smi = in->kind == QPU_ISA_KIND_ALU_SMALL_IMM;
	const struct qpu_isa_smi *imm = &qpu_isa_small_imms[in->raddr_b];
	struct qpu_emu_alu_scratch *s = emu_alu(emu);
	const u32 *ra, *rb = s->rb;
	const u32 *opa, *opb, *opc, *opd;
	struct qpu_emu_result *add = emu_result(emu, false);
	struct qpu_emu_result *mul = emu_result(emu, true);
	u32 addf = qpu_isa_add_ops[in->op_add].flags;
	u32 mulf = qpu_isa_mul_ops[in->op_mul].flags;
	u32 unif = 0;
	u16 carry = 0;
	unsigned int i;

	if (in->sig == QPU_ISA_SIG_LOADCV || in->sig == QPU_ISA_SIG_LOADC ||
	    in->sig == QPU_ISA_SIG_LDCEND || in->sig == QPU_ISA_SIG_LOADAM) {
		qpu_emu_bad_instr(x);	/* TLB loads: not for user programs */
		return;
	}
	if (x->op->flags & OP_UNIF) {
		const u8 *p = win_mem(x, &q->uwin, q->unif,
				      QPU_EMU_ACCESS_UNIFORM);

		if (!p)
			return;
		unif = rd32(p);
		q->unif += 4;
		emu->stats.uniform_bytes += 4;
	}
	if (x->op->flags & OP_MUTEX)
		emu->mutex_owner = (int)x->qi;
	/* Reads without side effects are used in place, not copied. */
	if (in->raddr_a < 32)
		ra = q->ra[in->raddr_a];
	else if (in->raddr_a == QPU_ISA_RADDR_NOP)
		ra = zero_lanes;
	else if (in->raddr_a == QPU_ISA_RADDR_UNIF)
		ra = splat(s->ra, unif);
	else
		ra = read_file(x, false, in->raddr_a, unif, s->ra);
	if (smi) {
		u32 v = imm->kind == QPU_ISA_SMI_ROTATE ?
			(u32)(in->raddr_b - 64) : imm->value;

		for (i = 0; i < LANES; i++)
			s->rb[i] = v;
	} else if (in->raddr_b == QPU_ISA_RADDR_VPM && in->raddr_a == QPU_ISA_RADDR_VPM) {
		rb = ra;	/* one VPM read a cycle */
	} else if (in->raddr_b < 32) {
		rb = q->rb[in->raddr_b];
	} else if (in->raddr_b == QPU_ISA_RADDR_NOP) {
		rb = zero_lanes;
	} else if (in->raddr_b == QPU_ISA_RADDR_UNIF) {
		for (i = 0; i < LANES; i++)
			s->rb[i] = unif;
	} else {
		rb = read_file(x, true, in->raddr_b, unif, s->rb);
	}
	if (x->fault)
		return;
	x->uses_r4 = x->op->flags & OP_R4;

	/* Inputs; unpack applies per consumer (float or integer). */
	if (in->op_add) {
		bool f = addf & QPU_ISA_OP_FLOAT_IN;

		opa = mux_src(q, in->add_a, ra, rb);
		opb = mux_src(q, in->add_b, ra, rb);
		if (x->op->flags & OP_UNPACK) {
			opa = operand(x, in->add_a, ra, rb, f, s->aa);
			opb = operand(x, in->add_b, ra, rb, f, s->ab);
		}
		add->is_mul = false;
		add->is_float = addf & QPU_ISA_OP_FLOAT_OUT;
		add->mask = in->cond_add == QPU_ISA_COND_ALWAYS ? ALL_LANES :
			    cond_mask(q, in->cond_add);
		carry = alu_add_lanes(in->op_add, opa, opb, add->v, in->sf);
		if (in->pack == QPU_ISA_PACK_A_32_SAT && !in->pm)
			alu_wide(in->op_add, opa, opb, add->v, add->wide);
	}
	if (in->op_mul) {
		bool f = mulf & QPU_ISA_OP_FLOAT_IN;

		opc = mux_src(q, in->mul_a, ra, rb);
		opd = mux_src(q, in->mul_b, ra, rb);
		if (x->op->flags & OP_UNPACK) {
			opc = operand(x, in->mul_a, ra, rb, f, s->ma);
			opd = operand(x, in->mul_b, ra, rb, f, s->mb);
		}
		mul->is_mul = true;
		mul->is_float = mulf & QPU_ISA_OP_FLOAT_OUT;
		mul->mask = in->cond_mul == QPU_ISA_COND_ALWAYS ? ALL_LANES :
			    cond_mask(q, in->cond_mul);
		alu_mul_lanes(in->op_mul, opc, opd, mul->v);
		if (in->pack == QPU_ISA_PACK_A_32_SAT && !in->pm)
			alu_wide(QPU_ISA_M_NOP, opc, opd, mul->v, mul->wide);
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
			set_flags(x, add->v, carry, add->mask, add->is_float);
		else if (in->op_mul)
			set_flags(x, mul->v, 0, mul->mask, mul->is_float);
	}
	if (in->op_add)
		write_result(x, in->waddr_add, in->ws, add);
	if (in->op_mul)
		write_result(x, in->waddr_mul, !in->ws, mul);
	if (in->op_add && in->op_mul)
		emu->stats.both_units++;
	if (x->fault)
		return;
	if (in->sig == QPU_ISA_SIG_LDTMU0)
		tmu_pop(x, 0);
	else if (in->sig == QPU_ISA_SIG_LDTMU1)
		tmu_pop(x, 1);
	else if (in->sig == QPU_ISA_SIG_THREND)
		q->end_left = 3;
}

/* What exec_alu_fast() puts in a QPU's splat vectors (qpu_emu_op.fast_splat). */
#define FAST_SPLAT_UNIF_A	BIT_U8(0)	/* the uniform, in splat[0] */
#define FAST_SPLAT_UNIF_B	BIT_U8(1)	/* the uniform, in splat[1] */
#define FAST_SPLAT_IMM_B	BIT_U8(2)	/* fast_imm, in splat[1] */
#define FAST_VPM_A		BIT_U8(3)	/* a VPM read, in splat[0] */
#define FAST_VPM_B		BIT_U8(4)	/* a VPM read, in splat[1] */

/* qpu_emu_op.fast_dst values that are no register's offset */
#define FAST_DST_NOP		0	/* nothing written */
#define FAST_DST_WRITE		1	/* a peripheral or r5: write_reg() */

/*
 * exec_alu_fast()'s reads that are no register (op->fast_splat): the
 * uniform, the VPM, a small immediate, into the QPU's splat vectors, in
 * exec_alu()'s order. True when one faulted.
 */
static bool fast_inputs(struct qpu_emu_exec *x)
{
	const struct qpu_emu_op *op = x->op;
	struct qpu_emu_qpu *q = x->q;

	if (op->flags & OP_UNIF) {
		const u8 *p = win_mem(x, &q->uwin, q->unif,
				      QPU_EMU_ACCESS_UNIFORM);
		u32 unif;

		if (!p)
			return true;
		unif = rd32(p);
		q->unif += 4;
		x->emu->stats.uniform_bytes += 4;
		if (op->fast_splat & FAST_SPLAT_UNIF_A)
			splat(q->splat[0], unif);
		if (op->fast_splat & FAST_SPLAT_UNIF_B)
			splat(q->splat[1], unif);
	}
	if (op->fast_splat & FAST_VPM_A)
		qpu_emu_vpm_read(x, q->splat[0]);
	if (op->fast_splat & FAST_VPM_B)
		qpu_emu_vpm_read(x, q->splat[1]);
	if (op->fast_splat & FAST_SPLAT_IMM_B)
		splat(q->splat[1], op->fast_imm);
	return x->fault;
}

/*
 * A unit of exec_alu_fast() whose destination is no register: @op (an add
 * op unless @mul) of @a and @b to peripheral @waddr (file B if @file_b)
 * through write_reg(), or nowhere (FAST_DST_NOP), and the flags if @flags.
 */
static void fast_unit_write(struct qpu_emu_exec *x, bool mul, unsigned int op,
			    const u32 *a, const u32 *b, unsigned int waddr,
			    bool file_b, u16 dst_off, bool flags)
{
	struct qpu_emu_result *r = emu_result(x->emu, mul);
	u32 opf = mul ? qpu_isa_mul_ops[op].flags : qpu_isa_add_ops[op].flags;
	u16 carry = 0;

	if (mul)
		alu_mul_lanes(op, a, b, r->v);
	else
		carry = alu_add_lanes(op, a, b, r->v, flags);
	if (flags)
		set_flags(x, r->v, carry, ALL_LANES,
			  opf & QPU_ISA_OP_FLOAT_OUT);
	if (dst_off == FAST_DST_WRITE) {
		r->mask = ALL_LANES;
		r->is_mul = mul;
		r->is_float = opf & QPU_ISA_OP_FLOAT_OUT;
		write_reg(x, waddr, file_b, r);
	}
}

/*
 * exec_alu() for the instructions predecode() marks EX_ALU_FAST: register
 * files read only as registers, uniforms, the VPM, nop or a small
 * immediate (not a rotation), no unpack or pack, each unit absent or
 * unconditional (the flags from the add, else the mul, as exec_alu() sets
 * them), no signal but ldtmu, thread end or the ones that do nothing: see
 * fast_ok(). Most of a loop looks like that; every test exec_alu() makes
 * for the rest is left out. Its inputs and outputs are found with no test
 * at all: predecode() turned each into its offset in struct qpu_emu_qpu
 * (registers, accumulators, the QPU's zero vector, or a splat vector
 * filled here); fadd and fmul write their registers straight, the others
 * go through the result buffers, and write_reg() for peripherals.
 */
static __attribute__((flatten)) void exec_alu_fast(struct qpu_emu_exec *x)
{
	const struct qpu_emu_op *op = x->op;
	const struct qpu_isa_instr *in = x->in;
	struct qpu_emu_qpu *q = x->q;
	struct qpu_emu *emu = x->emu;
	u8 *base = (u8 *)q;
	u32 *dst;

	if (op->fast_splat && fast_inputs(x))
		return;
	x->uses_r4 = op->flags & OP_R4;
	if (in->op_add) {
		const u32 *a = (const u32 *)(base + op->fast_src[0]);
		const u32 *b = (const u32 *)(base + op->fast_src[1]);
		struct qpu_emu_result *r = emu_result(emu, false);
		u16 carry;

		dst = (u32 *)(base + op->fast_dst[0]);
		if (op->fast_dst[0] <= FAST_DST_WRITE) {
			fast_unit_write(x, false, in->op_add, a, b,
					in->waddr_add, in->ws, op->fast_dst[0],
					in->sf);
		} else if (in->op_add == QPU_ISA_A_FADD) {
			qpu_emu_fadd16(a, b, 0, dst);
			/* before the mul may write the same register */
			if (in->sf)
				set_flags(x, dst, 0, ALL_LANES, true);
		} else {
			carry = alu_add_lanes(in->op_add, a, b, r->v, in->sf);
			if (in->sf)
				set_flags(x, r->v, carry, ALL_LANES,
					  qpu_isa_add_ops[in->op_add].flags &
					  QPU_ISA_OP_FLOAT_OUT);
			copy_lanes(dst, r->v);
		}
	}
	if (in->op_mul) {
		const u32 *a = (const u32 *)(base + op->fast_src[2]);
		const u32 *b = (const u32 *)(base + op->fast_src[3]);
		struct qpu_emu_result *r = emu_result(emu, true);
		bool flags = in->sf && !in->op_add;

		dst = (u32 *)(base + op->fast_dst[1]);
		if (op->fast_dst[1] <= FAST_DST_WRITE) {
			fast_unit_write(x, true, in->op_mul, a, b,
					in->waddr_mul, !in->ws,
					op->fast_dst[1], flags);
		} else if (in->op_mul == QPU_ISA_M_FMUL) {
			qpu_emu_fmul16(a, b, dst);
			if (flags)
				set_flags(x, dst, 0, ALL_LANES, true);
		} else {
			alu_mul_lanes(in->op_mul, a, b, r->v);
			if (flags)
				set_flags(x, r->v, 0, ALL_LANES,
					  qpu_isa_mul_ops[in->op_mul].flags &
					  QPU_ISA_OP_FLOAT_OUT);
			copy_lanes(dst, r->v);
		}
		if (in->op_add)
			emu->stats.both_units++;
	}
	switch (in->sig) {	/* not after a fault of a peripheral write */
	case QPU_ISA_SIG_LDTMU0:
	case QPU_ISA_SIG_LDTMU1:
		if (!x->fault)
			tmu_pop(x, in->sig == QPU_ISA_SIG_LDTMU1);
		break;
	case QPU_ISA_SIG_THREND:
		if (!x->fault)
			q->end_left = 3;
		break;
	default:
		break;
	}
}

static void exec_ldi(struct qpu_emu_exec *x)
{
	const struct qpu_isa_instr *in = x->in;
	struct qpu_emu_qpu *q = x->q;
	struct qpu_emu_result r;
	u32 imm = in->imm;
	u16 add_mask, mul_mask;
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
	/* Semaphores mostly: nothing to write or flag. */
	if (!in->sf && in->waddr_add == QPU_ISA_WADDR_NOP && in->waddr_mul == QPU_ISA_WADDR_NOP)
		return;
	r.is_float = false;
	if (in->kind == QPU_ISA_KIND_LDI_PES ||
	    in->kind == QPU_ISA_KIND_LDI_PEU) {
		for (i = 0; i < LANES; i++)
			r.v[i] = (u32)qpu_isa_ldi_elem(imm,
				in->kind == QPU_ISA_KIND_LDI_PES, i);
	} else {
		splat(r.v, imm);
	}
	if (in->pack)	/* only pack_a() reads it */
		for (i = 0; i < LANES; i++)
			r.wide[i] = (s32)r.v[i];
	/* Conditions read the flags from before this instruction's setf. */
	add_mask = cond_mask(q, in->cond_add);
	mul_mask = cond_mask(q, in->cond_mul);
	if (in->sf)
		set_flags(x, r.v, 0, add_mask, false);
	r.is_mul = false;
	r.mask = add_mask;
	write_result(x, in->waddr_add, in->ws, &r);
	r.is_mul = true;
	r.mask = mul_mask;
	write_result(x, in->waddr_mul, !in->ws, &r);
}

static bool branch_taken(struct qpu_emu_qpu *q, unsigned int cond)
{
	u16 f;

	if (cond == QPU_ISA_BR_ALWAYS)
		return true;
	flags_resolve(q);
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
		qpu_emu_bad_instr(x);	/* a branch in a branch's delay slot */
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
	write_result(x, in->waddr_add, in->ws, &r);
	r.is_mul = true;
	write_result(x, in->waddr_mul, !in->ws, &r);
}

/* --- the scheduler ------------------------------------------------------- */

static bool op_reads(const struct qpu_isa_instr *in, unsigned int addr)
{
	return in->raddr_a == addr ||
		(in->kind == QPU_ISA_KIND_ALU && in->raddr_b == addr);
}

/*
 * The register a unit writing @waddr in file B (@file_b) or A changes,
 * numbered 0..31 for A, 32..63 for B and 64 + n for rn; -1 for anything
 * else (peripherals, r5, nop).
 */
static int dst_reg(unsigned int waddr, bool file_b)
{
	if (waddr < 32)
		return file_b ? 32 + (int)waddr : (int)waddr;
	if (waddr < QPU_ISA_WADDR_TMU_NOSWAP)
		return 64 + (int)(waddr - QPU_ISA_WADDR_R0);
	return -1;
}

/* Does ALU input @mux of @in read register @reg (dst_reg()'s numbers)? */
static bool mux_reads(const struct qpu_isa_instr *in, unsigned int mux,
		      int reg)
{
	if (mux == QPU_ISA_MUX_A)
		return in->raddr_a < 32 && reg == in->raddr_a;
	if (mux == QPU_ISA_MUX_B)
		return in->kind == QPU_ISA_KIND_ALU && in->raddr_b < 32 &&
			reg == 32 + in->raddr_b;
	return reg == 64 + (int)mux;
}

/* Can exec_alu_fast() read register file address @raddr? */
static bool fast_raddr(unsigned int raddr)
{
	return raddr < 32 || raddr == QPU_ISA_RADDR_UNIF ||
		raddr == QPU_ISA_RADDR_NOP || raddr == QPU_ISA_RADDR_VPM ||
		raddr == QPU_ISA_RADDR_VPM_BUSY || raddr == QPU_ISA_RADDR_VPM_WAIT;
}

/*
 * Can exec_alu_fast() run @in? Its units are absent or have condition
 * always (setting the flags or not), nothing is packed or unpacked, the
 * mul does not read what the add wrote (the add writes first; an fadd or
 * fmul may read its own destination, their 16-lane forms read every lane
 * before writing, and the other ops compute into the result buffers
 * first; r5 counts, the only peripheral write a mul can read), the
 * register files read registers, uniforms, the VPM, nop, the wait
 * registers or a small immediate that is no rotation, and the signal is
 * ldtmu, thread end or one that does nothing.
 */
static bool fast_ok(const struct qpu_isa_instr *in)
{
	int add = -1;

	if (in->op_add)
		add = in->waddr_add == QPU_ISA_WADDR_R5 ? 64 + QPU_ISA_MUX_R5 :
			dst_reg(in->waddr_add, in->ws);
	if (in->unpack || in->pack)
		return false;
	if (in->op_add && in->cond_add != QPU_ISA_COND_ALWAYS)
		return false;
	if (in->op_mul && in->cond_mul != QPU_ISA_COND_ALWAYS)
		return false;
	if (in->op_mul && (mux_reads(in, in->mul_a, add) ||
			   mux_reads(in, in->mul_b, add)))
		return false;
	if (!fast_raddr(in->raddr_a))
		return false;
	if (in->kind == QPU_ISA_KIND_ALU_SMALL_IMM ?
	    qpu_isa_small_imms[in->raddr_b].kind == QPU_ISA_SMI_ROTATE :
	    !fast_raddr(in->raddr_b))
		return false;
	switch (in->sig) {
	case QPU_ISA_SIG_LOADCV:
	case QPU_ISA_SIG_LOADC:
	case QPU_ISA_SIG_LDCEND:
	case QPU_ISA_SIG_LOADAM:
		return false;
	default:
		return true;
	}
}

/* Offset in struct qpu_emu_qpu of what register file A (@file_b: B) reads. */
static u16 fast_file_off(const struct qpu_isa_instr *in, bool file_b)
{
	unsigned int raddr = file_b ? in->raddr_b : in->raddr_a;

	if (file_b && in->kind == QPU_ISA_KIND_ALU_SMALL_IMM)
		return offsetof(struct qpu_emu_qpu, splat[1]);
	if (raddr < 32)
		return file_b ? offsetof(struct qpu_emu_qpu, rb[raddr]) :
			offsetof(struct qpu_emu_qpu, ra[raddr]);
	if (raddr != QPU_ISA_RADDR_UNIF && raddr != QPU_ISA_RADDR_VPM)
		return offsetof(struct qpu_emu_qpu, zero);	/* nop, waits */
	if (file_b && in->raddr_a == raddr)
		return offsetof(struct qpu_emu_qpu, splat[0]);	/* one read */
	return file_b ? offsetof(struct qpu_emu_qpu, splat[1]) :
		offsetof(struct qpu_emu_qpu, splat[0]);
}

static u16 fast_mux_off(const struct qpu_isa_instr *in, unsigned int mux)
{
	if (mux == QPU_ISA_MUX_A || mux == QPU_ISA_MUX_B)
		return fast_file_off(in, mux == QPU_ISA_MUX_B);
	return offsetof(struct qpu_emu_qpu, acc[mux]);
}

/*
 * Offset of register @waddr (dst_reg()'s 0..35) of A or B, or
 * FAST_DST_NOP or FAST_DST_WRITE.
 */
static u16 fast_dst_off(unsigned int waddr, bool file_b)
{
	if (waddr < 32)
		return file_b ? offsetof(struct qpu_emu_qpu, rb[waddr]) :
			offsetof(struct qpu_emu_qpu, ra[waddr]);
	if (waddr < QPU_ISA_WADDR_TMU_NOSWAP)
		return offsetof(struct qpu_emu_qpu, acc[waddr - QPU_ISA_WADDR_R0]);
	return waddr == QPU_ISA_WADDR_NOP ? FAST_DST_NOP : FAST_DST_WRITE;
}

/* Where exec_alu_fast() finds the vectors of @op's instruction. */
static void fast_operands(struct qpu_emu_op *op)
{
	const struct qpu_isa_instr *in = &op->in;
	bool smi = in->kind == QPU_ISA_KIND_ALU_SMALL_IMM;

	op->fast_splat = 0;
	if (in->raddr_a == QPU_ISA_RADDR_UNIF)
		op->fast_splat |= FAST_SPLAT_UNIF_A;
	if (!smi && in->raddr_b == QPU_ISA_RADDR_UNIF && in->raddr_a != QPU_ISA_RADDR_UNIF)
		op->fast_splat |= FAST_SPLAT_UNIF_B;
	if (in->raddr_a == QPU_ISA_RADDR_VPM)
		op->fast_splat |= FAST_VPM_A;
	if (!smi && in->raddr_b == QPU_ISA_RADDR_VPM && in->raddr_a != QPU_ISA_RADDR_VPM)
		op->fast_splat |= FAST_VPM_B;
	if (smi) {
		op->fast_splat |= FAST_SPLAT_IMM_B;
		op->fast_imm = qpu_isa_small_imms[in->raddr_b].value;
	}
	op->fast_src[0] = fast_mux_off(in, in->add_a);
	op->fast_src[1] = fast_mux_off(in, in->add_b);
	op->fast_src[2] = fast_mux_off(in, in->mul_a);
	op->fast_src[3] = fast_mux_off(in, in->mul_b);
	op->fast_dst[0] = fast_dst_off(in->waddr_add, in->ws);
	op->fast_dst[1] = fast_dst_off(in->waddr_mul, !in->ws);
}

/*
 * Decode @word at @pc into @op, with the facts step() needs precomputed;
 * exec_alu_fast() only if @fast.
 */
static void predecode(struct qpu_emu_op *op, u32 pc, u64 word, bool fast)
{
	struct qpu_isa_instr *in = &op->in;
	bool r4;

	qpu_isa_decode(word, in);
	op->word = word;
	op->addr = pc;
	op->flags = OP_VALID;
	switch (in->kind) {
	case QPU_ISA_KIND_ALU:
	case QPU_ISA_KIND_ALU_SMALL_IMM:
		op->exec = EX_ALU;
		if (op_reads(in, QPU_ISA_RADDR_MUTEX) || op_reads(in, QPU_ISA_RADDR_VPM) ||
		    in->sig == QPU_ISA_SIG_LDTMU0 ||
		    in->sig == QPU_ISA_SIG_LDTMU1)
			op->flags |= OP_WAIT;
		if (op_reads(in, QPU_ISA_RADDR_UNIF))
			op->flags |= OP_UNIF;
		if (op_reads(in, QPU_ISA_RADDR_MUTEX))
			op->flags |= OP_MUTEX;
		r4 = (in->op_add && (in->add_a == QPU_ISA_MUX_R4 ||
				     in->add_b == QPU_ISA_MUX_R4)) ||
		     (in->op_mul && (in->mul_a == QPU_ISA_MUX_R4 ||
				     in->mul_b == QPU_ISA_MUX_R4));
		if (r4)
			op->flags |= OP_R4;
		if (in->unpack)
			op->flags |= OP_UNPACK;
		if (fast && fast_ok(in)) {
			op->exec = EX_ALU_FAST;
			fast_operands(op);
		}
		break;
	case QPU_ISA_KIND_BRANCH:
		op->exec = EX_BRANCH;
		break;
	case QPU_ISA_KIND_RAW:
		op->exec = EX_BAD;
		break;
	case QPU_ISA_KIND_SEMA:
		op->flags |= OP_WAIT;
		op->exec = EX_LDI;
		break;
	default:
		op->exec = EX_LDI;
		break;
	}
	if (in->reserved)
		op->exec = EX_BAD;
}

/*
 * The instruction at the QPU's PC. The word is read from memory on every
 * fetch, through a window translate() granted once per qpu_emu_run(), and
 * compared with the word the cached decode was made from: any store into
 * code (VCD DMA, the host, another device) is seen at the next fetch
 * without hooks on the writers. NULL after a fault.
 */
static const struct qpu_emu_op *fetch(struct qpu_emu_exec *x, u64 *wordp)
{
	struct qpu_emu *emu = x->emu;
	struct qpu_emu_qpu *q = x->q;
	struct qpu_emu_op *op;
	u32 pc = q->pc, off = pc - q->win_addr;
	const u8 *p;
	u64 word;

	if (off < q->win_len && !(pc & 7)) {
		p = q->win + off;
	} else {
		if (pc & 7) {
			qpu_emu_set_fault(x, QPU_EMU_FAULT_MISALIGNED, pc,
					  QPU_EMU_ACCESS_FETCH);
			return NULL;
		}
		/* The rest of the 4 KiB block if mapped, else one word. */
		q->win_len = FETCH_WINDOW - (pc & (FETCH_WINDOW - 1));
		q->win = emu->no_predecode ? NULL :
			emu->ops->translate(emu->ctx, pc, q->win_len,
					    QPU_EMU_ACCESS_FETCH);
		if (!q->win) {
			q->win_len = 8;
			q->win = qpu_emu_mem(x, pc, 8, 4,
					     QPU_EMU_ACCESS_FETCH);
			if (!q->win) {
				q->win_len = 0;
				return NULL;
			}
		}
		q->win_addr = pc;
		if (emu->no_predecode)
			q->win_len = 0;
		p = q->win;
	}
	word = rd32(p) | (u64)rd32(p + 4) << 32;
	*wordp = word;
	if (emu->no_predecode) {
		op = &emu->op_uncached;
		predecode(op, pc, word, false);
		return op;
	}
	op = &emu->icache[(pc >> 3) & (OP_CACHE_ENTRIES - 1)];
	if (op->word != word || op->addr != pc || !op->flags)
		predecode(op, pc, word, !emu->ops->trace_write);
	return op;
}

static void finish(struct qpu_emu *emu, unsigned int qi)
{
	set_state(emu, qi, QPU_EMU_QPU_IDLE);
	emu->completed++;
	emu->stats.programs_done++;
}

/* Issue one instruction on QPU @qi; false if it had to wait instead. */
static bool step(struct qpu_emu *emu, unsigned int qi)
{
	struct qpu_emu_qpu *q = emu_qpu(emu, qi);
	struct qpu_emu_exec x = { .emu = emu, .q = q, .qi = qi };
	enum qpu_emu_qpu_state wait;
	const struct qpu_emu_op *op;
	u64 word;
	unsigned int i;

	op = fetch(&x, &word);
	if (!op)
		goto out;
	x.op = op;
	x.in = &op->in;
	if (op->exec == EX_BAD) {
		qpu_emu_bad_instr(&x);
		goto out;
	}
	if (op->flags & OP_WAIT) {
		wait = must_wait(emu, q, x.in);
		if (wait != QPU_EMU_QPU_RUNNING) {
			set_state(emu, qi, wait);
			return false;
		}
	}
	if (emu->ops->trace)
		emu->ops->trace(emu->ctx, qi, q->pc, word);
	emu->stats.instructions[qi]++;
	if (q->sfu_left && --q->sfu_left == 0)
		for (i = 0; i < LANES; i++)
			q->acc[4][i] = q->sfu_val[i];
	switch (op->exec) {
	case EX_ALU_FAST:
		exec_alu_fast(&x);
		break;
	case EX_ALU:
		exec_alu(&x);
		break;
	case EX_BRANCH:
		exec_branch(&x);
		break;
	default:
		exec_ldi(&x);
		break;
	}
	if (x.uses_r4 && q->sfu_left)
		emu->stats.stall_sfu++;	/* read r4 before the SFU result */
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
		finish(emu, qi);
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

/* The QPU seed 0 runs next; stalls of the waiting QPUs it passes count. */
static inline unsigned int pick_round_robin(struct qpu_emu *emu)
{
	for (;;) {
		unsigned int qi = emu->rr_next;

		emu->rr_next = qi + 1 < QPU_EMU_NUM_QPUS ? qi + 1 : 0;
		if (!(emu->live & (1u << qi)))
			continue;
		if (!(emu->waiting & (1u << qi)))
			return qi;
		count_stall(emu, emu_qpu(emu, qi));
	}
}

/* Set bits of @v (no libgcc in the kernel: no __builtin_popcount). */
static unsigned int popcount16(u16 v)
{
	unsigned int n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

/* A random ready QPU; stalls of the waiting QPUs before it count. */
static unsigned int pick_random(struct qpu_emu *emu, unsigned int ready)
{
	unsigned int pick = emu_rand(emu) % ready, qi;

	for (qi = 0; qi < QPU_EMU_NUM_QPUS; qi++) {
		if (!(emu->live & (1u << qi)))
			continue;
		if (emu->waiting & (1u << qi)) {
			count_stall(emu, emu_qpu(emu, qi));
			continue;
		}
		if (!pick--)
			break;
	}
	return qi;
}

/* translate()'s answers hold for one qpu_emu_run() call. */
static void forget_windows(struct qpu_emu_qpu *q)
{
	q->win_len = 0;
	emu_memset(&q->uwin, 0, sizeof(q->uwin));
	emu_memset(&q->twin, 0, sizeof(q->twin));
	emu_memset(&q->dlwin, 0, sizeof(q->dlwin));
	emu_memset(&q->dswin, 0, sizeof(q->dswin));
}

/* Runs at most @budget instructions over all QPUs. */
static enum qpu_emu_status run_budget(struct qpu_emu *emu, u64 budget)
{
	while (emu->status == QPU_EMU_RUNNING || emu->status == QPU_EMU_IDLE) {
		u16 ready = emu->live & ~emu->waiting;
		unsigned int qi;

		if (!emu->live) {
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
			qi = pick_random(emu, popcount16(ready));
		} else if (!(emu->live & (emu->live - 1))) {
			/*
			 * One QPU alone: round-robin would pick it every
			 * time, so run it until it waits, ends or faults.
			 */
			qi = pick_round_robin(emu);
			while (budget && emu->status == QPU_EMU_RUNNING &&
			       emu_qpu(emu, qi)->state == QPU_EMU_QPU_RUNNING) {
				if (!step(emu, qi))
					break;
				budget--;
			}
			continue;
		} else {
			/*
			 * Round-robin among several: the checks above hold
			 * until a QPU ends, faults or waits, or the budget
			 * runs out, so they are made again only then.
			 */
			do {
				qi = pick_round_robin(emu);
				if (step(emu, qi))
					budget--;
			} while (budget && emu->status == QPU_EMU_RUNNING &&
				 (emu->live & ~emu->waiting) &&
				 (emu->live & (emu->live - 1)));
			continue;
		}
		if (step(emu, qi))
			budget--;
	}
	return emu->status;
}

/* The most instructions a live program has issued since its start. */
static u64 most_issued(const struct qpu_emu *emu)
{
	unsigned int i;
	u64 most = 0, n;

	for (i = 0; i < QPU_EMU_NUM_QPUS; i++) {
		if (!(emu->live & (1u << i)))
			continue;
		n = emu->stats.instructions[i] - emu->started_at[i];
		if (n > most)
			most = n;
	}
	return most;
}

enum qpu_emu_status qpu_emu_run(struct qpu_emu *emu, u64 budget)
{
	unsigned int i;
	u64 most, chunk;

	/* translate()'s answers hold for one call: forget the windows. */
	for (i = 0; i < QPU_EMU_NUM_QPUS; i++)
		forget_windows(emu_qpu(emu, i));
	if (!emu->limit)
		return run_budget(emu, budget);
	/*
	 * In chunks no larger than what the most advanced live program has
	 * left, so none can pass the limit inside one: a live program at the
	 * limit has at least one more instruction to issue.
	 */
	for (;;) {
		if (emu->status != QPU_EMU_RUNNING && emu->status != QPU_EMU_IDLE)
			break;
		most = most_issued(emu);
		if (most >= emu->limit && (emu->live & ~emu->waiting)) {
			emu->status = QPU_EMU_LIMIT;
			break;
		}
		chunk = emu->limit > most ? emu->limit - most : 0;
		if (chunk > budget)
			chunk = budget;
		if (run_budget(emu, chunk) != QPU_EMU_RUNNING || !chunk)
			break;
		budget -= chunk;
		if (!budget)
			break;
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
	bool no_predecode = emu->no_predecode;
	bool strict_vpm = emu->strict_vpm;
	u64 limit = emu->limit;

	emu_memset(emu, 0, sizeof(*emu));
	emu->ops = ops;
	emu->ctx = ctx;
	emu->seed = seed;
	emu->no_predecode = no_predecode;
	emu->strict_vpm = strict_vpm;
	emu->limit = limit;
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
	emu->no_predecode = false;
	emu->strict_vpm = false;
	emu->limit = 0;
	reset_state(emu);
}

void qpu_emu_set_strict_vpm(struct qpu_emu *emu, bool on)
{
	emu->strict_vpm = on;
}

void qpu_emu_set_predecode(struct qpu_emu *emu, bool on)
{
	unsigned int i;

	emu->no_predecode = !on;
	for (i = 0; i < OP_CACHE_ENTRIES; i++)
		emu->icache[i].flags = 0;
	for (i = 0; i < QPU_EMU_NUM_QPUS; i++)
		forget_windows(emu_qpu(emu, i));
}

void qpu_emu_set_limit(struct qpu_emu *emu, u64 instructions)
{
	emu->limit = instructions;
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
		struct qpu_emu_qpu *q = emu_qpu(emu, i);

		if (is_live(q))
			continue;
		emu_memset(q, 0, sizeof(*q));
		set_state(emu, i, QPU_EMU_QPU_RUNNING);
		q->pc = code_addr;
		q->unif = unif_addr;
		emu->started_at[i] = emu->stats.instructions[i];
		/* A new program may give what the waiting ones wait for. */
		if (emu->status == QPU_EMU_IDLE || emu->status == QPU_EMU_DEADLOCK)
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
	q = emu_qpu(emu, qpu);
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
	flags_of(emu_qpu(emu, qpu), z, n, c);
	return 0;
}

enum qpu_emu_qpu_state qpu_emu_get_qpu_state(const struct qpu_emu *emu,
					     unsigned int qpu, u32 *pc)
{
	if (qpu >= QPU_EMU_NUM_QPUS)
		return QPU_EMU_QPU_IDLE;
	if (pc)
		*pc = emu_qpu(emu, qpu)->pc;
	return emu_qpu(emu, qpu)->state;
}

int qpu_emu_get_wait_semaphore(const struct qpu_emu *emu, unsigned int qpu,
			       bool *acquire)
{
	const struct qpu_emu_qpu *q;

	if (qpu >= QPU_EMU_NUM_QPUS)
		return -QPU_EMU_EINVAL;
	q = emu_qpu(emu, qpu);
	if (q->state != QPU_EMU_QPU_WAIT_SEM)
		return -QPU_EMU_EINVAL;
	if (acquire)
		*acquire = q->wait_acquire;
	return q->wait_sem;
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
		const struct qpu_emu_qpu *q = emu_qpu(emu, i);

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
