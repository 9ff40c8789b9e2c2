// SPDX-License-Identifier: MIT
/*
 * The hazard checker (qpu_hazard.h): decodes every word once into what it
 * reads, writes and signals, links relative branches to their targets,
 * then checks each word against the words that can run one or two
 * instructions before it. The rules, their sources and the control-flow
 * model are documented in qpu_hazard.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qpu_hazard.h"
#include "qpu_isa.h"

#define BIT64(n)	(UINT64_C(1) << (n))

/* Addresses the rules look at besides the core's QPU_ISA_RADDR/WADDR_*. */
#define ADDR_R14	14

#define FILE_A		0
#define FILE_B		1

#define MASK_RANGE(lo, hi)	((~UINT64_C(0) >> (63 - (hi))) & ~(BIT64(lo) - 1))
#define MASK_REGFILE		MASK_RANGE(0, 31)
#define MASK_SFU		MASK_RANGE(QPU_ISA_WADDR_SFU_RECIP, QPU_ISA_WADDR_SFU_LOG)
#define MASK_TMU		MASK_RANGE(QPU_ISA_WADDR_TMU0_S, QPU_ISA_WADDR_TMU1_B)
#define MASK_TLB		MASK_RANGE(QPU_ISA_WADDR_TLB_STENCIL, QPU_ISA_WADDR_TLB_ALPHA)

/* How far back the window rules look, and how many words one step holds. */
#define BACK_MAX	2
#define SET_MAX		32

/* Outstanding TMU requests one QPU can rely on ([A]), as the emulator keeps. */
#define TMU_FIFO_DEPTH	QPU_ISA_TMU_FIFO_DEPTH

static const struct {
	const char *name;
	const char *summary;
} rules[QPU_HAZARD_NUM_RULES] = {
	[QPU_HAZARD_REGFILE_RAW] = { "regfile-raw",
		"regfile A/B read in the instruction after its write" },
	[QPU_HAZARD_SFU_R4_READ] = { "sfu-r4-read",
		"r4 read within 2 instructions after an SFU write" },
	[QPU_HAZARD_SFU_BUSY] = { "sfu-busy",
		"SFU write within 2 instructions after an SFU write" },
	[QPU_HAZARD_SFU_R4_SIGNAL] = { "sfu-r4-signal",
		"signal writing r4 within 2 instructions after an SFU write" },
	[QPU_HAZARD_TMU_LOAD_WITH_WRITE] = { "tmu-load-with-write",
		"ldtmu and a TMU register write in one instruction" },
	[QPU_HAZARD_TMU_LOAD_EMPTY] = { "tmu-load-empty",
		"ldtmu with no request queued on that TMU" },
	[QPU_HAZARD_TMU_FIFO_OVERFLOW] = { "tmu-fifo-overflow",
		"more than 4 requests queued on one TMU" },
	[QPU_HAZARD_TMU_NOSWAP_LATENCY] = { "tmu-noswap-latency",
		"TMU write within 2 instructions after a tmu_noswap write" },
	[QPU_HAZARD_TMU_NOSWAP_AFTER_USE] = { "tmu-noswap-after-use",
		"tmu_noswap written after the TMUs were used" },
	[QPU_HAZARD_TMU_COND_WRITE] = { "tmu-cond-write",
		"conditional write to t0s or t1s" },
	[QPU_HAZARD_ROTATE_ACC_RAW] = { "rotate-acc-raw",
		"rotation of an accumulator written by the previous instruction" },
	[QPU_HAZARD_ROTATE_R5_RAW] = { "rotate-r5-raw",
		"rotation by r5 right after an r5 write" },
	[QPU_HAZARD_ROTATE_NON_ACC] = { "rotate-non-acc",
		"rotation of a mul input other than r0..r3 (per quad only)" },
	[QPU_HAZARD_ROTATE_IMM_READ] = { "rotate-imm-read",
		"an ALU input reads a rotation code as an immediate" },
	[QPU_HAZARD_BRANCH_IN_DELAY_SLOT] = { "branch-in-delay-slot",
		"branch in the delay slots of a branch or thrend" },
	[QPU_HAZARD_BRANCH_TARGET] = { "branch-target",
		"relative branch target outside the program or unaligned" },
	[QPU_HAZARD_BRANCH_DELAY_SHORT] = { "branch-delay-short",
		"fewer than 3 words after a branch" },
	[QPU_HAZARD_THREND_IN_DELAY_SLOT] = { "thrend-in-delay-slot",
		"thrend in the delay slots of a branch or thrend" },
	[QPU_HAZARD_THREND_REGFILE_WRITE] = { "thrend-regfile-write",
		"the thrend instruction writes regfile A or B" },
	[QPU_HAZARD_THREND_IO] = { "thrend-io",
		"uniform, varying, VPM, VDR or VDW access at thread end" },
	[QPU_HAZARD_THREND_R14] = { "thrend-r14",
		"ra14 or rb14 used at thread end" },
	[QPU_HAZARD_THREND_TLBZ] = { "thrend-tlbz",
		"tlbz write in the last instruction" },
	[QPU_HAZARD_THREND_MISSING] = { "thrend-missing",
		"the program has no thrend" },
	[QPU_HAZARD_RUNS_OFF_END] = { "runs-off-end",
		"execution can run past the last word" },
	[QPU_HAZARD_SAME_DEST] = { "same-dest",
		"both ALUs write the same register" },
	[QPU_HAZARD_PERIPHERAL_MULTI] = { "peripheral-multi",
		"more than one TMU/TLB/SFU/mutex/semaphore access in one instruction" },
	[QPU_HAZARD_PACK_PERIPHERAL] = { "pack-peripheral",
		"partial mul pack into a peripheral register" },
	[QPU_HAZARD_UNIF_ADDR_LATENCY] = { "unif-addr-latency",
		"uniform read within 2 instructions after a unif_addr write" },
	[QPU_HAZARD_MS_FLAGS_AFTER_TLBZ] = { "ms-flags-after-tlbz",
		"ms_flags read within 2 instructions after a tlbz write" },
	[QPU_HAZARD_SBWAIT_AT_START] = { "sbwait-at-start",
		"scoreboard wait or TLB access in the first two instructions" },
	[QPU_HAZARD_VPM_READ_LATENCY] = { "vpm-read-latency",
		"vpm read within 2 instructions after a vr_setup write" },
	[QPU_HAZARD_VPM_SETUP_CONFLICT] = { "vpm-setup-conflict",
		"VPM setup together with another setup or VPM access" },
	[QPU_HAZARD_VPM_READ_DMA_PENDING] = { "vpm-read-dma-pending",
		"vpm read while a DMA load is not waited for" },
	[QPU_HAZARD_DMA_WAIT_MISSING] = { "dma-wait-missing",
		"thrend while a DMA store is not waited for" },
	[QPU_HAZARD_RESERVED_ENCODING] = { "reserved-encoding",
		"reserved opcode, pack, branch condition or load-immediate mode" },
	[QPU_HAZARD_UNUSED_FIELD] = { "unused-field",
		"bits set in a field the instruction does not use" },
	[QPU_HAZARD_RESERVED_REGISTER] = { "reserved-register",
		"read or write of an address with no function" },
};

/* What one word does, as far as the rules care. */
struct word_info {
	struct qpu_isa_instr in;
	u64 rd[2];	/* addresses read per file, used or not (side effects) */
	u64 used[2];	/* addresses whose value an ALU input or branch uses */
	u64 kept[2];	/* ... of which an ALU op writes or sets flags from */
	u64 wr[2];	/* addresses written per file */
	u8 accs;	/* accumulators r0..r5 read by an input, bit per mux */
	u8 rot;		/* mul rotation: 0 none, 1..15, 16 by r5 */
	bool alu;	/* an ALU kind (signals and muxes are valid) */
	bool thrend;
	bool branch;
	bool uncond;	/* unconditional branch */
	bool r4_signal;	/* a signal that writes r4 */
	int ldtmu;	/* 0 or 1 for ldtmu0/1, else -1 */
	bool has_target;
	size_t target;	/* word index of a resolved relative branch */
	long rel;	/* relative offset in bytes */
};

struct checker {
	const uint64_t *words;
	size_t n;
	uint64_t rules;
	unsigned int flags;
	qpu_hazard_cb cb;
	void *ctx;
	struct word_info *info;
	long *in_head;		/* first branch targeting each word, or -1 */
	long *in_next;		/* next branch with the same target */
	bool *flow_ends;	/* the word never falls through to the next */

	/* The word being checked and the words that can run before it. */
	size_t cur;
	struct {
		size_t n;
		size_t v[SET_MAX];
	} back[BACK_MAX + 1];
	uint64_t reported;	/* rules already reported for cur */
	int found;
	bool stop;
};

static bool has(const u64 *m, unsigned int addr)
{
	return (m[FILE_A] | m[FILE_B]) & BIT64(addr);
}

static bool any(const u64 *m, u64 mask)
{
	return (m[FILE_A] | m[FILE_B]) & mask;
}

static const char *reg_name(bool write, unsigned int file, unsigned int addr)
{
	return write ? qpu_isa_write_regs[file][addr].name :
		       qpu_isa_read_regs[file][addr].name;
}

static void __attribute__((format(printf, 4, 5)))
report(struct checker *c, unsigned int rule, size_t ref, const char *fmt, ...)
{
	struct qpu_hazard h;
	char msg[200];
	va_list ap;

	if (c->stop || !(c->rules & BIT64(rule)) || (c->reported & BIT64(rule)))
		return;
	c->reported |= BIT64(rule);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	h.word = c->cur;
	h.ref = ref;
	h.rule = rule;
	h.name = rules[rule].name;
	h.message = msg;
	c->found++;
	if (c->cb && c->cb(&h, c->ctx))
		c->stop = true;
}

static void add_write(struct word_info *w, bool mul, unsigned int waddr)
{
	if (waddr == QPU_ISA_WADDR_NOP)
		return;
	w->wr[mul != w->in.ws ? FILE_B : FILE_A] |= BIT64(waddr);
}

/* An input of an ALU op whose result is @kept (written, or flags set). */
static void add_input(struct word_info *w, unsigned int mux, bool kept)
{
	u64 b = 0;
	int f = -1;

	if (mux == QPU_ISA_MUX_A) {
		f = FILE_A;
		b = BIT64(w->in.raddr_a);
	} else if (mux == QPU_ISA_MUX_B) {
		f = FILE_B;
		b = w->in.kind == QPU_ISA_KIND_ALU ? BIT64(w->in.raddr_b) : 0;
	} else {
		w->accs |= 1u << mux;
	}
	if (f < 0)
		return;
	w->used[f] |= b;
	if (kept)
		w->kept[f] |= b;
}

static void decode_alu(struct word_info *w)
{
	const struct qpu_isa_instr *in = &w->in;
	bool smi = in->kind == QPU_ISA_KIND_ALU_SMALL_IMM;
	bool kept_add, kept_mul;

	w->alu = true;
	if (in->raddr_a != QPU_ISA_RADDR_NOP)
		w->rd[FILE_A] |= BIT64(in->raddr_a);
	if (!smi && in->raddr_b != QPU_ISA_RADDR_NOP)
		w->rd[FILE_B] |= BIT64(in->raddr_b);
	/* flags come from the add op, or the mul op when add is a nop */
	kept_add = in->sf || (in->cond_add != QPU_ISA_COND_NEVER &&
			      in->waddr_add != QPU_ISA_WADDR_NOP);
	kept_mul = (in->sf && in->op_add == QPU_ISA_A_NOP) ||
		   (in->cond_mul != QPU_ISA_COND_NEVER &&
		    in->waddr_mul != QPU_ISA_WADDR_NOP);
	if (in->op_add != QPU_ISA_A_NOP) {
		add_input(w, in->add_a, kept_add);
		if (!(qpu_isa_add_ops[in->op_add].flags & QPU_ISA_OP_UNARY))
			add_input(w, in->add_b, kept_add);
		if (in->cond_add != QPU_ISA_COND_NEVER)
			add_write(w, false, in->waddr_add);
	}
	if (in->op_mul != QPU_ISA_M_NOP) {
		add_input(w, in->mul_a, kept_mul);
		add_input(w, in->mul_b, kept_mul);
		if (in->cond_mul != QPU_ISA_COND_NEVER)
			add_write(w, true, in->waddr_mul);
		if (smi && in->raddr_b >= QPU_ISA_SMALL_IMM_ROT)
			w->rot = in->raddr_b == QPU_ISA_SMALL_IMM_ROT ? 16 :
				 in->raddr_b - QPU_ISA_SMALL_IMM_ROT;
	}
	if (smi)
		return;
	switch (in->sig) {
	case QPU_ISA_SIG_THREND:
		w->thrend = true;
		break;
	case QPU_ISA_SIG_LDTMU0:
	case QPU_ISA_SIG_LDTMU1:
		w->ldtmu = in->sig - QPU_ISA_SIG_LDTMU0;
		w->r4_signal = true;
		break;
	case QPU_ISA_SIG_LOADCV:
	case QPU_ISA_SIG_LOADC:
	case QPU_ISA_SIG_LDCEND:
	case QPU_ISA_SIG_LOADAM:
		w->r4_signal = true;
		break;
	default:
		break;
	}
}

static void decode_word(struct checker *c, size_t i)
{
	struct word_info *w = &c->info[i];

	memset(w, 0, sizeof(*w));
	w->ldtmu = -1;
	qpu_isa_decode(c->words[i], &w->in);
	switch (w->in.kind) {
	case QPU_ISA_KIND_ALU:
	case QPU_ISA_KIND_ALU_SMALL_IMM:
		decode_alu(w);
		break;
	case QPU_ISA_KIND_LDI:
	case QPU_ISA_KIND_LDI_PES:
	case QPU_ISA_KIND_LDI_PEU:
	case QPU_ISA_KIND_SEMA:
		if (w->in.cond_add != QPU_ISA_COND_NEVER)
			add_write(w, false, w->in.waddr_add);
		if (w->in.cond_mul != QPU_ISA_COND_NEVER)
			add_write(w, true, w->in.waddr_mul);
		break;
	case QPU_ISA_KIND_BRANCH:
		w->branch = true;
		w->uncond = w->in.br_cond == QPU_ISA_BR_ALWAYS;
		add_write(w, false, w->in.waddr_add);
		add_write(w, true, w->in.waddr_mul);
		if (w->in.br_reg) {
			w->rd[FILE_A] |= BIT64(w->in.raddr_a);
			w->used[FILE_A] |= BIT64(w->in.raddr_a);
		}
		if (w->in.br_rel && !w->in.br_reg) {
			long target = (long)(i + 4) * 8 + (int32_t)w->in.imm;

			w->rel = (int32_t)w->in.imm;
			if (target >= 0 && target % 8 == 0 &&
			    (unsigned long)target / 8 < c->n) {
				w->has_target = true;
				w->target = (size_t)target / 8;
			}
		}
		break;
	default:
		break;
	}
}

/* Build the flow: who falls through, which branch lands where. */
static void link_flow(struct checker *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		c->in_head[i] = -1;
		c->in_next[i] = -1;
	}
	for (i = 0; i < c->n; i++) {
		const struct word_info *w = &c->info[i];

		if (w->branch && w->uncond && i + 3 < c->n)
			c->flow_ends[i + 3] = true;
		if (w->thrend && i + 2 < c->n)
			c->flow_ends[i + 2] = true;
		if (w->has_target) {
			c->in_next[i] = c->in_head[w->target];
			c->in_head[w->target] = (long)i;
		}
	}
}

static void set_add(struct checker *c, unsigned int d, size_t v)
{
	size_t k;

	for (k = 0; k < c->back[d].n; k++)
		if (c->back[d].v[k] == v)
			return;
	if (c->back[d].n < SET_MAX)
		c->back[d].v[c->back[d].n++] = v;
}

/* back[d]: the words that can run d instructions before cur. */
static void walk_back(struct checker *c)
{
	unsigned int d;
	size_t k;

	c->back[0].n = 1;
	c->back[0].v[0] = c->cur;
	for (d = 1; d <= BACK_MAX; d++) {
		c->back[d].n = 0;
		for (k = 0; k < c->back[d - 1].n; k++) {
			size_t w = c->back[d - 1].v[k];
			long b;

			if (w > 0 && !c->flow_ends[w - 1])
				set_add(c, d, w - 1);
			for (b = c->in_head[w]; b >= 0; b = c->in_next[b])
				if ((size_t)b + 3 < c->n)
					set_add(c, d, (size_t)b + 3);
		}
	}
}

/*
 * The nearest word 1..@dmax instructions before cur that writes an
 * address in @mask of file @file (or of either file for file < 0);
 * QPU_HAZARD_NO_REF if none.
 */
static size_t back_writer(const struct checker *c, unsigned int dmax, int file,
			  u64 mask)
{
	unsigned int d;
	size_t k;

	for (d = 1; d <= dmax; d++) {
		for (k = 0; k < c->back[d].n; k++) {
			const struct word_info *w = &c->info[c->back[d].v[k]];
			u64 wr = file < 0 ? w->wr[FILE_A] | w->wr[FILE_B] : w->wr[file];

			if (wr & mask)
				return c->back[d].v[k];
		}
	}
	return QPU_HAZARD_NO_REF;
}

/* The nearest branch (or thrend) at most @dist words before cur in memory. */
static size_t linear_before(const struct checker *c, unsigned int dist, bool thrend)
{
	unsigned int d;

	for (d = 1; d <= dist && d <= c->cur; d++) {
		const struct word_info *w = &c->info[c->cur - d];

		if (thrend ? w->thrend : w->branch)
			return c->cur - d;
	}
	return QPU_HAZARD_NO_REF;
}

static unsigned int lowest_bit(u64 m)
{
	return (unsigned int)__builtin_ctzll(m);
}

static bool reads_r4(const struct word_info *w)
{
	return w->accs & (1u << QPU_ISA_MUX_R4);
}

static bool writes_sfu(const struct word_info *w)
{
	return any(w->wr, MASK_SFU);
}

static bool signals_r4(const struct word_info *w)
{
	return w->r4_signal;
}

static bool reads_uniform(const struct word_info *w)
{
	return has(w->rd, QPU_ISA_RADDR_UNIF);
}

static bool reads_ms_flags(const struct word_info *w)
{
	return w->rd[FILE_A] & BIT64(QPU_ISA_RADDR_MS_REV);
}

/* a read whose value is discarded (GPU_FFT's "mov -, vpm") only waits */
static bool keeps_vpm_read(const struct word_info *w)
{
	return has(w->kept, QPU_ISA_RADDR_VPM);
}

static bool writes_tmu(const struct word_info *w)
{
	return any(w->wr, MASK_TMU);
}

#define FILE_ANY	(-1)

/*
 * The latency rules, one descriptor each in the order they are reported:
 * the word checked does @hit while a word one or two instructions before
 * it wrote an address in @after (of file @file, or of either). @msg names
 * that word (%zu), after the checked word's signal (%s) if @sig.
 */
static const struct latency_rule {
	unsigned int rule;
	int file;
	u64 after;
	bool (*hit)(const struct word_info *w);
	bool sig;
	const char *msg;
} latency_rules[] = {
	{ QPU_HAZARD_SFU_R4_READ, FILE_ANY, MASK_SFU, reads_r4, false,
	  "reads r4 while the SFU result of word %zu is not ready (it needs two instructions in between)" },
	{ QPU_HAZARD_SFU_BUSY, FILE_ANY, MASK_SFU, writes_sfu, false,
	  "writes the SFU while the SFU result of word %zu is pending" },
	{ QPU_HAZARD_SFU_R4_SIGNAL, FILE_ANY, MASK_SFU, signals_r4, true,
	  "signal %s writes r4 while the SFU result of word %zu is pending" },
	{ QPU_HAZARD_UNIF_ADDR_LATENCY, FILE_ANY, BIT64(QPU_ISA_WADDR_UNIF_ADDR),
	  reads_uniform, false,
	  "reads a uniform within 2 instructions after the unif_addr write of word %zu" },
	{ QPU_HAZARD_MS_FLAGS_AFTER_TLBZ, FILE_ANY, BIT64(QPU_ISA_WADDR_TLBZ),
	  reads_ms_flags, false,
	  "reads ms_flags within 2 instructions after the tlbz write of word %zu" },
	{ QPU_HAZARD_VPM_READ_LATENCY, FILE_A, BIT64(QPU_ISA_WADDR_VPM_SETUP),
	  keeps_vpm_read, false,
	  "reads vpm within 2 instructions after the vr_setup write of word %zu" },
	{ QPU_HAZARD_TMU_NOSWAP_LATENCY, FILE_ANY, BIT64(QPU_ISA_WADDR_TMU_NOSWAP),
	  writes_tmu, false,
	  "writes a TMU register within 2 instructions after the tmu_noswap write of word %zu" },
};

#define N_LATENCY_RULES	(sizeof(latency_rules) / sizeof(latency_rules[0]))

/* The formats are the table's, so test-hazard checks them, not the compiler. */
static void check_latency(struct checker *c, const struct word_info *w)
{
	const struct latency_rule *r;
	size_t ref;

	for (r = latency_rules; r < latency_rules + N_LATENCY_RULES; r++) {
		if (!r->hit(w))
			continue;
		ref = back_writer(c, BACK_MAX, r->file, r->after);
		if (ref == QPU_HAZARD_NO_REF)
			continue;
		if (r->sig)
			report(c, r->rule, ref, r->msg, qpu_isa_sig_names[w->in.sig], ref);
		else
			report(c, r->rule, ref, r->msg, ref);
	}
}

static void check_data(struct checker *c, const struct word_info *w)
{
	unsigned int f, d;
	size_t k;

	for (k = 0; k < c->back[1].n; k++) {
		const struct word_info *p = &c->info[c->back[1].v[k]];

		for (f = FILE_A; f <= FILE_B; f++) {
			u64 m = p->wr[f] & w->used[f] & MASK_REGFILE;

			if (m)
				report(c, QPU_HAZARD_REGFILE_RAW, c->back[1].v[k],
				       "reads %s, written by the previous instruction (word %zu)",
				       reg_name(false, f, lowest_bit(m)), c->back[1].v[k]);
		}
	}

	check_latency(c, w);

	if (!w->rot)
		return;
	for (k = 0; k < c->back[1].n; k++) {
		const struct word_info *p = &c->info[c->back[1].v[k]];
		unsigned int muxes[2] = { w->in.mul_a, w->in.mul_b };

		for (d = 0; d < 2; d++) {
			unsigned int m = muxes[d];
			bool hit = false;

			if (m <= QPU_ISA_MUX_R3)
				hit = has(p->wr, QPU_ISA_WADDR_R0 + m);
			else if (m == QPU_ISA_MUX_R4)
				hit = p->r4_signal;
			else if (m == QPU_ISA_MUX_R5)
				hit = has(p->wr, QPU_ISA_WADDR_R5);
			if (hit)
				report(c, QPU_HAZARD_ROTATE_ACC_RAW, c->back[1].v[k],
				       "rotates %s, written by the previous instruction (word %zu)",
				       qpu_isa_mux_names[m], c->back[1].v[k]);
		}
		if (w->rot == 16 && has(p->wr, QPU_ISA_WADDR_R5))
			report(c, QPU_HAZARD_ROTATE_R5_RAW, c->back[1].v[k],
			       "rotates by r5, written by the previous instruction (word %zu)",
			       c->back[1].v[k]);
	}
}

static const char *peripheral_names[] = {
	"TMU write", "TMU read", "TLB write", "TLB read", "SFU write",
	"mutex read", "semaphore",
};

static void check_word(struct checker *c, const struct word_info *w)
{
	const struct qpu_isa_instr *in = &w->in;
	unsigned int count = 0, kinds = 0, k;
	u64 wr = w->wr[FILE_A] | w->wr[FILE_B];

	if (w->ldtmu >= 0 && any(w->wr, MASK_TMU))
		report(c, QPU_HAZARD_TMU_LOAD_WITH_WRITE, QPU_HAZARD_NO_REF,
		       "ldtmu%d in the same instruction as a TMU register write", w->ldtmu);

	if (w->alu) {
		bool add_tmu = in->op_add != QPU_ISA_A_NOP &&
			       (in->waddr_add == QPU_ISA_WADDR_TMU0_S || in->waddr_add == QPU_ISA_WADDR_TMU1_S);
		bool mul_tmu = in->op_mul != QPU_ISA_M_NOP &&
			       (in->waddr_mul == QPU_ISA_WADDR_TMU0_S || in->waddr_mul == QPU_ISA_WADDR_TMU1_S);

		if ((add_tmu && in->cond_add != QPU_ISA_COND_ALWAYS &&
		     in->cond_add != QPU_ISA_COND_NEVER) ||
		    (mul_tmu && in->cond_mul != QPU_ISA_COND_ALWAYS &&
		     in->cond_mul != QPU_ISA_COND_NEVER))
			report(c, QPU_HAZARD_TMU_COND_WRITE, QPU_HAZARD_NO_REF,
			       "conditional write to a TMU request register; the hardware does not honour the condition (vc4asm)");
	}

	if (w->rot && (in->mul_a > QPU_ISA_MUX_R3 || in->mul_b > QPU_ISA_MUX_R3))
		report(c, QPU_HAZARD_ROTATE_NON_ACC, QPU_HAZARD_NO_REF,
		       "rotates a mul input other than r0..r3: the rotation stays within each quad");
	if (in->kind == QPU_ISA_KIND_ALU_SMALL_IMM && in->raddr_b >= QPU_ISA_SMALL_IMM_ROT &&
	    ((in->op_add != QPU_ISA_A_NOP &&
	      (in->add_a == QPU_ISA_MUX_B ||
	       (in->add_b == QPU_ISA_MUX_B &&
		!(qpu_isa_add_ops[in->op_add].flags & QPU_ISA_OP_UNARY)))) ||
	     (in->op_mul != QPU_ISA_M_NOP &&
	      (in->mul_a == QPU_ISA_MUX_B || in->mul_b == QPU_ISA_MUX_B))))
		report(c, QPU_HAZARD_ROTATE_IMM_READ, QPU_HAZARD_NO_REF,
		       "an input reads the rotation code %u as the value %d",
		       in->raddr_b, (int)in->raddr_b - 64);

	/* Both ALUs write one register (regfile writes go to different files). */
	if (in->kind != QPU_ISA_KIND_BRANCH && in->kind != QPU_ISA_KIND_RAW &&
	    in->waddr_add == in->waddr_mul && in->waddr_add >= 32 &&
	    in->waddr_add != QPU_ISA_WADDR_NOP && in->waddr_add != QPU_ISA_WADDR_XY_COORD &&
	    in->waddr_add != QPU_ISA_WADDR_MS_REV && in->waddr_add != QPU_ISA_WADDR_VPM_SETUP &&
	    in->waddr_add != QPU_ISA_WADDR_VPM_ADDR) {
		u64 a = BIT64(in->waddr_add);
		bool both = (w->wr[FILE_A] & a) && (w->wr[FILE_B] & a);
		unsigned int ca = in->cond_add, cm = in->cond_mul;
		bool complementary = ca >= QPU_ISA_COND_ZS && cm >= QPU_ISA_COND_ZS &&
				     (ca ^ 1) == cm;

		if (both && !complementary)
			report(c, QPU_HAZARD_SAME_DEST, QPU_HAZARD_NO_REF,
			       "both ALUs write %s", reg_name(true, FILE_A, in->waddr_add));
	}

	/* Closely coupled peripherals: one access per instruction. */
	{
		unsigned int n[7] = {
			(unsigned int)__builtin_popcountll(w->wr[FILE_A] & MASK_TMU) +
				(unsigned int)__builtin_popcountll(w->wr[FILE_B] & MASK_TMU),
			w->ldtmu >= 0,
			(unsigned int)__builtin_popcountll(w->wr[FILE_A] & MASK_TLB) +
				(unsigned int)__builtin_popcountll(w->wr[FILE_B] & MASK_TLB),
			w->r4_signal && w->ldtmu < 0,
			(unsigned int)__builtin_popcountll(w->wr[FILE_A] & MASK_SFU) +
				(unsigned int)__builtin_popcountll(w->wr[FILE_B] & MASK_SFU),
			has(w->rd, QPU_ISA_RADDR_MUTEX),
			in->kind == QPU_ISA_KIND_SEMA,
		};
		char list[120] = "";
		size_t len = 0;

		for (k = 0; k < 7; k++) {
			count += n[k];
			if (n[k]) {
				len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
							kinds++ ? ", " : "", peripheral_names[k]);
				if (len >= sizeof(list))
					len = sizeof(list) - 1;
			}
		}
		if (count > 1)
			report(c, QPU_HAZARD_PERIPHERAL_MULTI, QPU_HAZARD_NO_REF,
			       "%u peripheral accesses in one instruction (%s); at most one works",
			       count, list);
	}

	if (w->alu && in->pm && in->pack >= QPU_ISA_PACK_MUL_8A &&
	    in->pack <= QPU_ISA_PACK_MUL_8D && in->op_mul != QPU_ISA_M_NOP &&
	    in->waddr_mul >= 32 && in->waddr_mul != QPU_ISA_WADDR_NOP)
		report(c, QPU_HAZARD_PACK_PERIPHERAL, QPU_HAZARD_NO_REF,
		       "partial pack .%s into %s: peripherals take whole words",
		       qpu_isa_pack_mul_names[in->pack],
		       reg_name(true, in->ws ? FILE_A : FILE_B, in->waddr_mul));

	if (!(c->flags & QPU_HAZARD_PARTIAL) && c->cur < 2 &&
	    ((w->alu && in->kind == QPU_ISA_KIND_ALU && in->sig == QPU_ISA_SIG_SBWAIT) ||
	     (wr & MASK_TLB) || (w->r4_signal && w->ldtmu < 0)))
		report(c, QPU_HAZARD_SBWAIT_AT_START, QPU_HAZARD_NO_REF,
		       "waits for the scoreboard in instruction %zu; the first two must not",
		       c->cur + 1);

	if ((w->wr[FILE_A] & BIT64(QPU_ISA_WADDR_VPM_SETUP)) &&
	    (w->wr[FILE_B] & BIT64(QPU_ISA_WADDR_VPM_SETUP)))
		report(c, QPU_HAZARD_VPM_SETUP_CONFLICT, QPU_HAZARD_NO_REF,
		       "writes vr_setup and vw_setup in one instruction");
	else if ((w->wr[FILE_A] & BIT64(QPU_ISA_WADDR_VPM_SETUP)) &&
		 has(w->rd, QPU_ISA_RADDR_VPM))
		report(c, QPU_HAZARD_VPM_SETUP_CONFLICT, QPU_HAZARD_NO_REF,
		       "reads vpm in the instruction that writes vr_setup");
	else if ((w->wr[FILE_B] & BIT64(QPU_ISA_WADDR_VPM_SETUP)) &&
		 (wr & BIT64(QPU_ISA_WADDR_VPM)))
		report(c, QPU_HAZARD_VPM_SETUP_CONFLICT, QPU_HAZARD_NO_REF,
		       "writes vpm in the instruction that writes vw_setup");

	if (in->reserved & (QPU_ISA_RSV_OP_ADD | QPU_ISA_RSV_PACK | QPU_ISA_RSV_BR_COND |
			    QPU_ISA_RSV_LDI_MODE) || in->kind == QPU_ISA_KIND_RAW)
		report(c, QPU_HAZARD_RESERVED_ENCODING, QPU_HAZARD_NO_REF, "%s",
		       in->kind == QPU_ISA_KIND_RAW ? "reserved load-immediate mode" :
		       in->reserved & QPU_ISA_RSV_OP_ADD ? "reserved add opcode" :
		       in->reserved & QPU_ISA_RSV_PACK ? "reserved mul pack mode" :
		       in->reserved & QPU_ISA_RSV_BR_COND ? "reserved branch condition" :
		       "reserved load-immediate mode");
	if (in->reserved & (QPU_ISA_RSV_SEM_PAD | QPU_ISA_RSV_BR_PAD | QPU_ISA_RSV_BR_RADDR))
		report(c, QPU_HAZARD_UNUSED_FIELD, QPU_HAZARD_NO_REF, "%s",
		       in->reserved & QPU_ISA_RSV_SEM_PAD ?
		       "semaphore instruction with bits 31:5 set" :
		       in->reserved & QPU_ISA_RSV_BR_PAD ?
		       "branch with bits 59:56 set" :
		       "branch with raddr_a set but no register target: an odd raddr_a sets the flags");

	for (k = FILE_A; k <= FILE_B; k++) {
		u64 m;
		unsigned int a;

		for (m = w->rd[k]; m; m &= m - 1) {
			a = lowest_bit(m);
			if (qpu_isa_read_regs[k][a].flags & QPU_ISA_REG_RESERVED)
				report(c, QPU_HAZARD_RESERVED_REGISTER, QPU_HAZARD_NO_REF,
				       "reads %s, an address with no function",
				       reg_name(false, k, a));
		}
		for (m = w->wr[k]; m; m &= m - 1) {
			a = lowest_bit(m);
			if (qpu_isa_write_regs[k][a].flags & QPU_ISA_REG_RESERVED)
				report(c, QPU_HAZARD_RESERVED_REGISTER, QPU_HAZARD_NO_REF,
				       "writes %s, an address with no function",
				       reg_name(true, k, a));
		}
	}
}

static void check_flow(struct checker *c, const struct word_info *w)
{
	const size_t i = c->cur;
	size_t ref;

	if (w->branch) {
		ref = linear_before(c, 3, false);
		if (ref != QPU_HAZARD_NO_REF)
			report(c, QPU_HAZARD_BRANCH_IN_DELAY_SLOT, ref,
			       "branch in the delay slots of the branch at word %zu", ref);
		ref = linear_before(c, 2, true);
		if (ref != QPU_HAZARD_NO_REF)
			report(c, QPU_HAZARD_BRANCH_IN_DELAY_SLOT, ref,
			       "branch in the delay slots of the thrend at word %zu", ref);
		if (!(c->flags & QPU_HAZARD_PARTIAL)) {
			if (w->in.br_rel && !w->in.br_reg && !w->has_target)
				report(c, QPU_HAZARD_BRANCH_TARGET, QPU_HAZARD_NO_REF,
				       w->rel % 8 ? "branch offset %+ld is not a multiple of 8" :
				       "branch offset %+ld leaves the program", w->rel);
			if (i + 3 >= c->n)
				report(c, QPU_HAZARD_BRANCH_DELAY_SHORT, QPU_HAZARD_NO_REF,
				       "only %zu of the 3 delay slots of this branch exist",
				       c->n - 1 - i);
		}
	}
	if (w->thrend) {
		ref = linear_before(c, 3, false);
		if (ref != QPU_HAZARD_NO_REF)
			report(c, QPU_HAZARD_THREND_IN_DELAY_SLOT, ref,
			       "thrend in the delay slots of the branch at word %zu", ref);
		ref = linear_before(c, 2, true);
		if (ref != QPU_HAZARD_NO_REF)
			report(c, QPU_HAZARD_THREND_IN_DELAY_SLOT, ref,
			       "thrend in the delay slots of the thrend at word %zu", ref);
		if (any(w->wr, MASK_REGFILE)) {
			unsigned int f = (w->wr[FILE_A] & MASK_REGFILE) ? FILE_A : FILE_B;

			report(c, QPU_HAZARD_THREND_REGFILE_WRITE, QPU_HAZARD_NO_REF,
			       "the thrend instruction writes %s",
			       reg_name(true, f, lowest_bit(w->wr[f] & MASK_REGFILE)));
		}
	}

	/* Thread end and its two delay slots. */
	ref = w->thrend ? i : QPU_HAZARD_NO_REF;
	if (ref == QPU_HAZARD_NO_REF)
		ref = linear_before(c, 2, true);
	if (ref != QPU_HAZARD_NO_REF) {
		static const u64 io_rd = BIT64(QPU_ISA_RADDR_UNIF) | BIT64(QPU_ISA_RADDR_VARY) |
			BIT64(QPU_ISA_RADDR_VPM) | BIT64(QPU_ISA_RADDR_VPM_BUSY) |
			BIT64(QPU_ISA_RADDR_VPM_WAIT);
		static const u64 io_wr = BIT64(QPU_ISA_WADDR_VPM) | BIT64(QPU_ISA_WADDR_VPM_SETUP) |
			BIT64(QPU_ISA_WADDR_VPM_ADDR);
		u64 m;
		unsigned int f;

		for (f = FILE_A; f <= FILE_B; f++) {
			if ((m = w->rd[f] & io_rd))
				report(c, QPU_HAZARD_THREND_IO, ref,
				       "reads %s at thread end (thrend at word %zu)",
				       reg_name(false, f, lowest_bit(m)), ref);
			if ((m = w->wr[f] & io_wr))
				report(c, QPU_HAZARD_THREND_IO, ref,
				       "writes %s at thread end (thrend at word %zu)",
				       reg_name(true, f, lowest_bit(m)), ref);
		}
		if (has(w->rd, ADDR_R14) || has(w->wr, ADDR_R14))
			report(c, QPU_HAZARD_THREND_R14, ref,
			       "uses %s at thread end (thrend at word %zu)",
			       has(w->rd, ADDR_R14) ?
			       ((w->rd[FILE_A] & BIT64(ADDR_R14)) ? "ra14" : "rb14") :
			       ((w->wr[FILE_A] & BIT64(ADDR_R14)) ? "ra14" : "rb14"), ref);
		if (ref + 2 == i && has(w->wr, QPU_ISA_WADDR_TLBZ))
			report(c, QPU_HAZARD_THREND_TLBZ, ref,
			       "the last instruction (thrend at word %zu) writes tlbz", ref);
	}
}

/* State carried along the linear scan; reset where flows join. */
struct scan_state {
	bool known;		/* TMU counts start from an empty FIFO */
	unsigned int tmu[2];	/* requests queued (a lower bound if !known) */
	size_t first_tmu_write;	/* for tmu-noswap-after-use */
	size_t dma_load;	/* vr_addr write not waited for, or NO_REF */
	size_t dma_store;	/* vw_addr write not waited for, or NO_REF */
};

static void scan_reset(struct scan_state *s)
{
	s->known = false;
	s->tmu[0] = s->tmu[1] = 0;
	s->dma_load = s->dma_store = QPU_HAZARD_NO_REF;
}

static void check_state(struct checker *c, const struct word_info *w,
			struct scan_state *s)
{
	const size_t i = c->cur;
	unsigned int t;

	if (c->in_head[i] >= 0 || (i > 0 && c->flow_ends[i - 1]))
		scan_reset(s);

	if (has(w->wr, QPU_ISA_WADDR_TMU_NOSWAP) && s->first_tmu_write != QPU_HAZARD_NO_REF)
		report(c, QPU_HAZARD_TMU_NOSWAP_AFTER_USE, s->first_tmu_write,
		       "writes tmu_noswap after the TMU write of word %zu", s->first_tmu_write);
	if (any(w->wr, MASK_TMU) && s->first_tmu_write == QPU_HAZARD_NO_REF)
		s->first_tmu_write = i;

	for (t = 0; t < 2; t++) {
		if (!has(w->wr, t ? QPU_ISA_WADDR_TMU1_S : QPU_ISA_WADDR_TMU0_S))
			continue;
		if (++s->tmu[t] > TMU_FIFO_DEPTH)
			report(c, QPU_HAZARD_TMU_FIFO_OVERFLOW, QPU_HAZARD_NO_REF,
			       "queues request %u on TMU%u; only %u can be outstanding",
			       s->tmu[t], t, TMU_FIFO_DEPTH);
	}
	if (w->ldtmu >= 0) {
		if (s->tmu[w->ldtmu])
			s->tmu[w->ldtmu]--;
		else if (s->known)
			report(c, QPU_HAZARD_TMU_LOAD_EMPTY, QPU_HAZARD_NO_REF,
			       "ldtmu%d with no request queued on TMU%d: the QPU waits forever",
			       w->ldtmu, w->ldtmu);
	}

	if (w->rd[FILE_A] & BIT64(QPU_ISA_RADDR_VPM_WAIT))
		s->dma_load = QPU_HAZARD_NO_REF;
	if (w->rd[FILE_B] & BIT64(QPU_ISA_RADDR_VPM_WAIT))
		s->dma_store = QPU_HAZARD_NO_REF;
	if (has(w->rd, QPU_ISA_RADDR_VPM) && s->dma_load != QPU_HAZARD_NO_REF)
		report(c, QPU_HAZARD_VPM_READ_DMA_PENDING, s->dma_load,
		       "reads vpm while the DMA load started at word %zu may still run (read vr_wait first)",
		       s->dma_load);
	if (w->thrend && s->dma_store != QPU_HAZARD_NO_REF)
		report(c, QPU_HAZARD_DMA_WAIT_MISSING, s->dma_store,
		       "thread end while the DMA store started at word %zu may still run (read vw_wait first)",
		       s->dma_store);
	if (w->wr[FILE_A] & BIT64(QPU_ISA_WADDR_VPM_ADDR))
		s->dma_load = i;
	if (w->wr[FILE_B] & BIT64(QPU_ISA_WADDR_VPM_ADDR))
		s->dma_store = i;
}

static void check_end(struct checker *c)
{
	size_t i, last = c->n - 1;
	bool thrend = false;

	if (c->flags & QPU_HAZARD_PARTIAL)
		return;
	c->cur = last;
	c->reported = 0;
	for (i = 0; i < c->n; i++)
		thrend |= c->info[i].thrend;
	if (!thrend)
		report(c, QPU_HAZARD_THREND_MISSING, QPU_HAZARD_NO_REF,
		       "the program has no thrend: its QPU never finishes");
	/* Dead words after the last end of flow cannot run off the end. */
	for (i = last; i > 0 && c->in_head[i] < 0; i--)
		if (c->flow_ends[i - 1] || c->flow_ends[i])
			return;
	if (c->flow_ends[last])
		return;
	/* A branch too close to the end is branch-delay-short's finding. */
	for (i = c->n > 3 ? c->n - 3 : 0; i < c->n; i++)
		if (c->info[i].branch)
			return;
	/* A thrend without its delay slots is reported at the thrend. */
	if (c->n >= 2 && c->info[last - 1].thrend) {
		c->cur = last - 1;
		report(c, QPU_HAZARD_RUNS_OFF_END, QPU_HAZARD_NO_REF,
		       "this thrend has only 1 of its 2 delay slots");
	} else if (c->info[last].thrend) {
		report(c, QPU_HAZARD_RUNS_OFF_END, QPU_HAZARD_NO_REF,
		       "this thrend has none of its 2 delay slots");
	} else {
		report(c, QPU_HAZARD_RUNS_OFF_END, QPU_HAZARD_NO_REF,
		       "execution continues past the last word");
	}
}

int qpu_hazard_check(const uint64_t *words, size_t n, uint64_t rule_mask,
		     unsigned int flags, qpu_hazard_cb cb, void *ctx)
{
	struct checker c = {
		.words = words, .n = n, .rules = rule_mask, .flags = flags,
		.cb = cb, .ctx = ctx,
	};
	struct scan_state s;
	size_t i;

	if ((rule_mask & ~QPU_HAZARD_ALL_RULES) || (flags & ~QPU_HAZARD_PARTIAL) ||
	    (!words && n))
		return -EINVAL;
	if (!n)
		return 0;
	if (n > SIZE_MAX / sizeof(*c.info))
		return -ENOMEM;
	c.info = malloc(n * sizeof(*c.info));
	c.in_head = malloc(n * sizeof(*c.in_head));
	c.in_next = malloc(n * sizeof(*c.in_next));
	c.flow_ends = calloc(n, sizeof(*c.flow_ends));
	if (!c.info || !c.in_head || !c.in_next || !c.flow_ends) {
		c.found = -ENOMEM;
		goto out_free;
	}
	for (i = 0; i < n; i++)
		decode_word(&c, i);
	link_flow(&c);

	scan_reset(&s);
	s.known = !(flags & QPU_HAZARD_PARTIAL);	/* a program starts idle */
	s.first_tmu_write = QPU_HAZARD_NO_REF;
	for (i = 0; i < n && !c.stop; i++) {
		const struct word_info *w = &c.info[i];

		c.cur = i;
		c.reported = 0;
		walk_back(&c);
		check_data(&c, w);
		check_word(&c, w);
		check_flow(&c, w);
		check_state(&c, w, &s);
	}
	if (!c.stop)
		check_end(&c);
out_free:
	free(c.info);
	free(c.in_head);
	free(c.in_next);
	free(c.flow_ends);
	return c.found;
}

const char *qpu_hazard_rule_name(unsigned int rule)
{
	return rule < QPU_HAZARD_NUM_RULES ? rules[rule].name : NULL;
}

const char *qpu_hazard_rule_summary(unsigned int rule)
{
	return rule < QPU_HAZARD_NUM_RULES ? rules[rule].summary : NULL;
}

int qpu_hazard_rule_find(const char *name)
{
	unsigned int r;

	for (r = 0; name && r < QPU_HAZARD_NUM_RULES; r++)
		if (!strcmp(rules[r].name, name))
			return (int)r;
	return -ENOENT;
}
