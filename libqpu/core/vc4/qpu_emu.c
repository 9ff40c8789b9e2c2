// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * The QPU interpreter's scheduler and sync: 12 QPUs scheduled one
 * instruction at a time, their semaphores and mutex, fetch and predecode,
 * the instructions that are no ALU operation (load immediates, semaphores,
 * branches) and the API of qpu_emu.h. The other parts, one file each, are
 * listed in qpu_emu_internal.h; the modelling choices of all are here.
 *
 * DOC: modelling choices
 * - Scheduling: seed 0 runs the live QPUs round-robin in QPU order, one
 *   instruction each, or, given a timing model's clocks
 *   (qpu_emu_set_clock()), the one whose modelled clock is earliest;
 *   another seed picks the next QPU with a xorshift32 PRNG. A QPU that
 *   would block (semaphore, mutex, empty VPM read or TMU FIFO) issues
 *   nothing and sleeps until a semaphore or mutex changes;
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
 * does it unpack, may qpu_emu_exec_alu_fast() run it), kept in a direct-mapped
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
 * qpu_emu_exec_alu_fast() too, as a reference.
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
 *   qpu_emu_exec_alu_fast(), which finds its vectors by offsets predecode()
 *   computed, writes fadd and fmul results straight into their registers
 *   and the others through the result buffers but not write_result(), and
 *   skips the tests qpu_emu_exec_alu() makes for everything they do not use.
 *   sgemm's "fadd ra, ra, r0; fmul r0, r4, unif" is one, and so is a loop
 *   counter's "sub.setf r0, r0, 1". The integer lane loops are inlined
 *   into both paths (qpu_emu_exec_alu_fast() is flattened): once GCC called them
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
 * - FFT-shaped programs (VCD DMA, VPM rows, TMU twiddles, semaphore
 *   barriers) take shortcuts of their own, each only with predecoding:
 *   32-bit DMA rows inside the VPM and an open window move in one pass
 *   (dma_load_rows()), 16-lane TMU requests inside the window are tested
 *   at once (tmu_lookup_window()), a branch reads a pending setf of all
 *   lanes without resolving it (branch_on_pending()), movs copy (OP_MOV_ADD),
 *   words that do nothing skip the ALU (EX_NOP), and a QPU woken from a
 *   semaphore wait that would only block again skips step()
 *   (sem_blocks_again()). Together they took the bench's FFT row from
 *   414 to 296 million host instructions (callgrind, 1/20 of its passes).
 * - Sgemm loops whose every fadd sets the flags (as programs written
 *   elsewhere do) take these, each only with predecoding: step_fast()
 *   issues compute instructions with fewer tests than step(), and the
 *   round-robin loop checks nothing again after them; fadd, fsub and fmul
 *   into registers run in qpu_emu_exec_float(); an fadd.setf stores its
 *   result and the pending flags from one host register, and an fmul by a
 *   uniform broadcasts it instead of loading the splat vector just stored
 *   (the host forwards no narrow stores to one 64-byte load: a fifth of
 *   the row's time went there), both in one call with the fadd
 *   (qpu_emu_fadd_fmul16_1()). Together they took the bench's flag-setting
 *   sgemm row from 144 to 120 million host instructions (callgrind, 1/20
 *   of its iterations) and from 59 to 81 million emulated instructions
 *   per CPU second.
 */
#include "qpu_emu_internal.h"

/* Register addresses are the core's QPU_ISA_RADDR_* and QPU_ISA_WADDR_*. */

/* How step() runs an instruction (qpu_emu_op.exec). */
enum qpu_emu_exec_kind {
	EX_ALU,
	EX_ALU_FAST,	/* common ALU shapes: see qpu_emu_exec_alu_fast() */
	EX_FLOAT,	/* ... of which fadd and fmul: qpu_emu_exec_float() */
	EX_NOP,		/* ... of which those that do nothing (OP_NOP) */
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

/* --- waking and blocking ------------------------------------------------- */

/*
 * A semaphore or the mutex changed: sleeping QPUs try again. Those that
 * waited on a semaphore are noted (with predecoding) for
 * sem_blocks_again().
 */
void qpu_emu_wake_sync(struct qpu_emu *emu)
{
	unsigned int i, waiting = emu->waiting, woken = 0, from_sem = 0;

	for (i = 0; waiting >> i; i++) {
		struct qpu_emu_qpu *q;

		if (!((waiting >> i) & 1))
			continue;
		q = emu_qpu(emu, i);
		if (q->state == QPU_EMU_QPU_WAIT_SEM)
			from_sem |= 1u << i;
		else if (q->state != QPU_EMU_QPU_WAIT_MUTEX)
			continue;
		q->state = QPU_EMU_QPU_RUNNING;	/* set_state(), live already */
		woken |= 1u << i;
	}
	emu->waiting &= (u16)~woken;
	if (!emu->no_predecode)
		emu->sem_woken |= (u16)from_sem;
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

/* --- load immediates, semaphores, branches ------------------------------ */

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
		qpu_emu_wake_sync(x->emu);
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
	add_mask = qpu_emu_cond_mask(q, in->cond_add);
	mul_mask = qpu_emu_cond_mask(q, in->cond_mul);
	if (in->sf)
		set_flags(x, r.v, 0, add_mask, false);
	r.is_mul = false;
	r.mask = add_mask;
	write_result(x, in->waddr_add, in->ws, &r);
	r.is_mul = true;
	r.mask = mul_mask;
	write_result(x, in->waddr_mul, !in->ws, &r);
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
	if (!qpu_emu_branch_taken(q, in->br_cond))
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
 * Decode @word at @pc into @op, with the facts step() needs precomputed;
 * qpu_emu_exec_alu_fast() only if @fast.
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
		if (fast && qpu_emu_fast_prepare(op))
			op->exec = op->flags & OP_NOP ? EX_NOP :
				   op->fast_float ? EX_FLOAT : EX_ALU_FAST;
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
	op->step_fast = (op->exec == EX_ALU_FAST || op->exec == EX_FLOAT ||
			 op->exec == EX_NOP) &&
			!(op->flags & OP_WAIT);
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
			qpu_emu_set_fault(x, QPU_FAULT_REASON_MISALIGNED, pc,
					  QPU_MEM_FETCH);
			return NULL;
		}
		/* The rest of the 4 KiB block if mapped, else one word. */
		q->win_len = FETCH_WINDOW - (pc & (FETCH_WINDOW - 1));
		q->win = emu->no_predecode ? NULL :
			emu->ops->translate(emu->ctx, pc, q->win_len,
					    QPU_MEM_FETCH);
		if (!q->win) {
			q->win_len = 8;
			q->win = qpu_emu_mem(x, pc, 8, 4,
					     QPU_MEM_FETCH);
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

/* The end of an issued instruction: a fault, else the PC moves on. */
static inline void step_end(struct qpu_emu_exec *x)
{
	struct qpu_emu_qpu *q = x->q;

	if (x->fault) {
		x->emu->status = QPU_EMU_FAULT;
		return;
	}
	if (q->br_left && --q->br_left == 0)
		q->pc = q->br_target;
	else
		q->pc += 8;
	if (q->end_left && --q->end_left == 0)
		finish(x->emu, x->qi);
}

/*
 * Issue one instruction on QPU @qi; false if it had to wait instead. @op
 * is the decode of @word at the PC if the caller fetched it (step_fast()),
 * else NULL.
 */
static bool step_op(struct qpu_emu *emu, unsigned int qi,
		    const struct qpu_emu_op *op, u64 word)
{
	struct qpu_emu_qpu *q = emu_qpu(emu, qi);
	struct qpu_emu_exec x = { .emu = emu, .q = q, .qi = qi };
	enum qpu_emu_qpu_state wait;
	unsigned int i;

	if (!op)
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
			q->wait_word = word;
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
	/* Tests by how common: a switch with EX_NOP slowed sgemm down. */
	if (op->exec == EX_FLOAT)
		qpu_emu_exec_float(&x);
	else if (op->exec == EX_ALU_FAST)
		qpu_emu_exec_alu_fast(&x);
	else if (op->exec == EX_ALU)
		qpu_emu_exec_alu(&x);
	else if (op->exec == EX_BRANCH)
		exec_branch(&x);
	else if (op->exec != EX_NOP)	/* nops, reads of vr_wait or vw_wait */
		exec_ldi(&x);
	if (x.uses_r4 && q->sfu_left)
		emu->stats.stall_sfu++;	/* read r4 before the SFU result */
out:
	step_end(&x);
	return true;
}

static bool step(struct qpu_emu *emu, unsigned int qi)
{
	return step_op(emu, qi, NULL, 0);
}

/*
 * A QPU that wake_sync() woke from a semaphore wait is run by step() at
 * its next turn, and at a barrier most such turns only block it again:
 * every change of any semaphore wakes every QPU waiting on one. Does
 * step() block it again? Then that is done here, with what step() would
 * look at: the word at the PC (in the fetch window of this
 * qpu_emu_run(), else step() fetches) is still the semaphore instruction
 * it waited on, and the semaphore still refuses. Nothing else step()
 * would do before blocking is seen outside (no trace, no count).
 */
static inline bool sem_blocks_again(struct qpu_emu *emu, unsigned int qi)
{
	struct qpu_emu_qpu *q = emu_qpu(emu, qi);
	u32 off = q->pc - q->win_addr;
	const u8 *p;
	u8 v;

	emu->sem_woken &= (u16)~(1u << qi);
	if (off >= q->win_len || q->state != QPU_EMU_QPU_RUNNING)
		return false;
	p = q->win + off;
	if ((rd32(p) | (u64)rd32(p + 4) << 32) != q->wait_word)
		return false;
	v = emu->sem[q->wait_sem];
	if (q->wait_acquire ? v != 0 : v != 15)
		return false;
	q->state = QPU_EMU_QPU_WAIT_SEM;	/* set_state(), live already */
	emu->waiting |= (u16)(1u << qi);
	return true;
}

/* step(), or sem_blocks_again()'s shortcut to the same answer. */
static inline bool issue(struct qpu_emu *emu, unsigned int qi)
{
	if (((emu->sem_woken >> qi) & 1) && sem_blocks_again(emu, qi))
		return false;
	return step(emu, qi);
}

/* What issue_on() did: waited (0) or issued (1, step()'s true), or ... */
#define ISSUED		1
#define ISSUED_QUIET	2	/* ... issued, and the run's state is as it was */

/*
 * step() for an instruction of a compute loop, with what step() tests
 * for the rest left to it: the QPU not woken from a semaphore wait, no SFU
 * result or thread end on its way, the PC inside the fetch window and its
 * cached decode one that runs in qpu_emu_exec_alu_fast() or does nothing,
 * and cannot block (op->step_fast). Only with predecoding and no tracer
 * (see run_budget()); step() itself otherwise.
 */
static inline int step_fast(struct qpu_emu *emu, unsigned int qi)
{
	struct qpu_emu_qpu *q = emu_qpu(emu, qi);
	u32 pc = q->pc, off = pc - q->win_addr;
	const struct qpu_emu_op *op;
	struct qpu_emu_exec x;
	const u8 *p;
	u64 word;

	if (off >= q->win_len || (pc & 7) || q->sfu_left || q->end_left ||
	    ((emu->sem_woken >> qi) & 1))
		return issue(emu, qi);
	p = q->win + off;
	word = rd32(p) | (u64)rd32(p + 4) << 32;
	op = &emu->icache[(pc >> 3) & (OP_CACHE_ENTRIES - 1)];
	if (op->word != word || op->addr != pc || !op->flags)
		return issue(emu, qi);
	if (!op->step_fast)	/* fetched as step() would: not again */
		return step_op(emu, qi, op, word);
	x = (struct qpu_emu_exec){
		.emu = emu, .q = q, .qi = qi, .op = op, .in = &op->in,
	};
	emu->stats.instructions[qi]++;
	if (op->exec == EX_FLOAT)
		qpu_emu_exec_float(&x);
	else if (op->exec == EX_ALU_FAST)
		qpu_emu_exec_alu_fast(&x);
	if (x.uses_r4 && q->sfu_left)
		emu->stats.stall_sfu++;	/* an SFU write of this instruction */
	step_end(&x);
	/*
	 * No thread end was on its way: only a fault changes the run, and a
	 * DMA or TMU charge (a VPM store's address written), which the run
	 * loop must pay at once, as after step(), or the budget ends later.
	 */
	return x.fault || emu->debt ? ISSUED : ISSUED_QUIET;
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

/*
 * With a clock (qpu_emu_set_clock()): the ready QPU that is earliest, or
 * the first among equals; there is one, the callers check. A choice holds
 * until that QPU is QPU_EMU_CLOCK_SLACK cycles past the runner-up, or a QPU
 * starts, ends, waits or wakes: a scan per instruction cost emulation half
 * again its time, and a few instructions' disorder is below what the
 * model's caches can tell. Each scan counts a stall of every waiting QPU.
 */
static unsigned int pick_earliest(struct qpu_emu *emu)
{
	u16 ready = emu->live & ~emu->waiting;
	unsigned int qi, best = 0;
	u64 bc = ~0ull, nc = ~0ull;

	if (emu->pick_live == emu->live && emu->pick_waiting == emu->waiting &&
	    emu->clock[emu->pick] < emu->pick_bound)
		return emu->pick;
	for (qi = 0; qi < QPU_EMU_NUM_QPUS; qi++) {
		u64 c = ready & (1u << qi) ? emu->clock[qi] : ~0ull;

		if (c < bc) {
			nc = bc;
			bc = c;
			best = qi;
		} else if (c < nc) {
			nc = c;
		}
		if (emu->waiting & emu->live & (1u << qi))
			count_stall(emu, emu_qpu(emu, qi));
	}
	emu->pick = best;
	emu->pick_bound = nc < ~0ull - QPU_EMU_CLOCK_SLACK ?
		nc + QPU_EMU_CLOCK_SLACK : ~0ull;
	emu->pick_live = emu->live;
	emu->pick_waiting = emu->waiting;
	return best;
}

/* The QPU seed 0 runs next; stalls of the waiting QPUs it passes count. */
static inline unsigned int pick_round_robin(struct qpu_emu *emu)
{
	if (emu->clock)
		return pick_earliest(emu);
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

/*
 * Issue on QPU @qi: step_fast() when @fast (predecoding on, no tracer),
 * else issue(). Inline with @fast a constant, for two loops in
 * run_budget() with no test of it inside.
 */
static inline int issue_on(struct qpu_emu *emu, unsigned int qi, bool fast)
{
	return fast ? step_fast(emu, qi) : issue(emu, qi);
}

/*
 * @budget less the work charged since the last look (qpu_emu_charge()),
 * down to 0; a charge past it is forgiven: the run ends there.
 */
static inline u64 pay_debt(struct qpu_emu *emu, u64 budget)
{
	u64 debt = emu->debt;

	emu->debt = 0;
	return debt < budget ? budget - debt : 0;
}

/*
 * run_budget()'s loop over @budget instructions' worth of work, step_fast()
 * if @fast. step_fast()'s quiet instructions are never charged: only the
 * others' debt is looked at.
 */
static inline enum qpu_emu_status run_loop(struct qpu_emu *emu, u64 budget,
					   bool fast)
{
	emu->debt = 0;
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
			qi = pick_random(emu, qpu_emu_popcount16(ready));
		} else if (!(emu->live & (emu->live - 1))) {
			/*
			 * One QPU alone: round-robin would pick it every
			 * time, so run it until it waits, ends or faults.
			 */
			qi = pick_round_robin(emu);
			while (budget && emu->status == QPU_EMU_RUNNING &&
			       emu_qpu(emu, qi)->state == QPU_EMU_QPU_RUNNING) {
				int done = issue_on(emu, qi, fast);

				if (!done)
					break;
				budget--;
				if (done != ISSUED_QUIET && emu->debt)
					budget = pay_debt(emu, budget);
			}
			continue;
		} else {
			/*
			 * Round-robin among several: the checks above hold
			 * until a QPU ends, faults or waits, or the budget
			 * runs out, so they are made again only then, and
			 * not after step_fast() ran a compute instruction.
			 */
			for (;;) {
				int done;

				qi = pick_round_robin(emu);
				done = issue_on(emu, qi, fast);
				if (done)
					budget--;
				if (done != ISSUED_QUIET && emu->debt)
					budget = pay_debt(emu, budget);
				if (!budget)
					break;
				if (done == ISSUED_QUIET)
					continue;
				if (emu->status != QPU_EMU_RUNNING ||
				    !(emu->live & ~emu->waiting) ||
				    !(emu->live & (emu->live - 1)))
					break;
			}
			continue;
		}
		if (issue_on(emu, qi, fast))
			budget--;
		if (emu->debt)
			budget = pay_debt(emu, budget);
	}
	return emu->status;
}

/* Runs at most @budget instructions over all QPUs. */
static enum qpu_emu_status run_budget(struct qpu_emu *emu, u64 budget)
{
	if (!emu->no_predecode && !emu->ops->trace)
		return run_loop(emu, budget, true);
	return run_loop(emu, budget, false);
}

/* QPU @qi's work: its instructions, and what its DMAs and TMU cost. */
static u64 emu_work(const struct qpu_emu *emu, unsigned int qi)
{
	return emu->stats.instructions[qi] + emu->charged[qi];
}

/* The most work a live program has done since its start. */
static u64 most_issued(const struct qpu_emu *emu)
{
	unsigned int i;
	u64 most = 0, n;

	for (i = 0; i < QPU_EMU_NUM_QPUS; i++) {
		if (!(emu->live & (1u << i)))
			continue;
		n = emu_work(emu, i) - emu->started_at[i];
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
	 * left, so none can pass the limit inside one (but by the charge of
	 * the DMA that spends the chunk): a live program at the limit has at
	 * least one more instruction to issue.
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

/*
 * Everything back to its state at init but the settings, all of it when
 * @all; else what a job can have changed: the scalars, statistics and VPM
 * before op_uncached, and the QPUs given a program. Left alone: the
 * predecoded instructions, which are checked against memory's word and
 * address at each fetch and so never run stale code, and the per-instruction
 * scratch vectors, written before they are read. A QPU is cleared again
 * when a program starts on it (qpu_emu_start()). The partial reset is what
 * qpu.ko's simulated V3D pays before every job: about a tenth of the whole.
 */
static void reset_state(struct qpu_emu *emu, bool all)
{
	const struct qpu_emu_ops *ops = emu->ops;
	void *ctx = emu->ctx;
	u32 seed = emu->seed;
	bool no_predecode = emu->no_predecode;
	bool strict_vpm = emu->strict_vpm;
	u64 limit = emu->limit;
	const u64 *clock = emu->clock;
	unsigned int qi;

	if (all) {
		emu_memset(emu, 0, sizeof(*emu));
	} else {
		for (qi = 0; qi < QPU_EMU_NUM_QPUS; qi++)
			if (emu->used & (1u << qi))
				emu_memset(emu_qpu(emu, qi), 0,
					   sizeof(struct qpu_emu_qpu));
		emu_memset(emu, 0, offsetof(struct qpu_emu, op_uncached));
	}
	emu->ops = ops;
	emu->ctx = ctx;
	emu->seed = seed;
	emu->no_predecode = no_predecode;
	emu->strict_vpm = strict_vpm;
	emu->limit = limit;
	emu->clock = clock;
	emu->rng = seed;
	emu->mutex_owner = -1;
	emu->status = QPU_EMU_IDLE;
}

/*
 * A build with QPU_EMU_REFERENCE_PATH (make check-reference) starts every
 * emulator on the reference path, predecoding off, so that every test of
 * the emulator runs once without the fast paths too.
 */
#ifdef QPU_EMU_REFERENCE_PATH
#define QPU_EMU_NO_PREDECODE_DEFAULT	true
#else
#define QPU_EMU_NO_PREDECODE_DEFAULT	false
#endif

void qpu_emu_init(struct qpu_emu *emu, const struct qpu_emu_ops *ops,
		  void *ctx, u32 seed)
{
	emu->ops = ops;
	emu->ctx = ctx;
	emu->seed = seed;
	emu->no_predecode = QPU_EMU_NO_PREDECODE_DEFAULT;
	emu->strict_vpm = false;
	emu->limit = 0;
	emu->clock = NULL;
	reset_state(emu, true);
}

void qpu_emu_set_strict_vpm(struct qpu_emu *emu, bool on)
{
	emu->strict_vpm = on;
}

void qpu_emu_set_predecode(struct qpu_emu *emu, bool on)
{
	unsigned int i;

	emu->no_predecode = !on;
	for (i = 0; i < OP_CACHE_ENTRIES; i++) {
		emu->icache[i].flags = 0;
		emu->icache[i].step_fast = false;
	}
	for (i = 0; i < QPU_EMU_NUM_QPUS; i++)
		forget_windows(emu_qpu(emu, i));
}

void qpu_emu_set_limit(struct qpu_emu *emu, u64 instructions)
{
	emu->limit = instructions;
}

void qpu_emu_set_clock(struct qpu_emu *emu, const u64 *clock)
{
	emu->clock = clock;
}

void qpu_emu_reset(struct qpu_emu *emu)
{
	reset_state(emu, false);
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
		emu->used |= 1u << i;
		set_state(emu, i, QPU_EMU_QPU_RUNNING);
		q->pc = code_addr;
		q->unif = unif_addr;
		emu->started_at[i] = emu_work(emu, i);
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

const struct qpu_fault *qpu_emu_get_fault(const struct qpu_emu *emu)
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
	qpu_emu_flags_of(emu_qpu(emu, qpu), z, n, c);
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

