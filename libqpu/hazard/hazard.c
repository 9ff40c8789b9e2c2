// SPDX-License-Identifier: MIT
/*
 * The hazard checker (qpu_hazard.h): decodes every word once into what it
 * reads, writes and signals, links relative branches to their targets,
 * then checks each word against the words that can run one or two
 * instructions before it. The rules, their sources and the control-flow
 * model are documented in qpu_hazard.h. Each check is a row of a table
 * (a predicate, a message template and the rule it reports), in the order
 * findings are reported: the previous instruction, latencies, rotation,
 * the word alone, the flow, the state carried along the scan, and last
 * the whole program (end_rules).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qpu_hazard.h"
#include "qpu_isa.h"

#define BIT64(n)	(UINT64_C(1) << (n))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

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
_Static_assert(QPU_ISA_SFU_LATENCY <= BACK_MAX && QPU_ISA_VPM_READ_LATENCY <= BACK_MAX &&
	       QPU_ISA_UNIF_ADDR_LATENCY <= BACK_MAX && QPU_ISA_TLBZ_LATENCY <= BACK_MAX &&
	       QPU_ISA_TMU_NOSWAP_LATENCY <= BACK_MAX, "a latency rule looks further back");
/* regfile-raw checks the instruction right before only */
_Static_assert(QPU_ISA_REGFILE_LATENCY == 1, "regfile-raw looks one instruction back");
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

/*
 * What a rule found: the word it refers to and the values its message
 * names. A message is a template over them: {ref} is @ref, {s0} and {s1}
 * the strings, {n0}..{n2} the numbers, {+n0} with its sign.
 */
struct finding {
	size_t ref;
	const char *s[2];
	long n[3];
	char list[120];		/* room for a string the predicate builds */
};

static void expand(char *buf, size_t size, const char *tmpl, const struct finding *f)
{
	size_t len = 0;
	const char *p;

	buf[0] = '\0';
	for (p = tmpl; *p && len < size - 1; p++) {
		const char *end = *p == '{' ? strchr(p, '}') : NULL;
		size_t name = end ? (size_t)(end - p - 1) : 0;
		int k = end ? p[name] - '0' : -1;
		int put = -1;

		if (end && name == 3 && !strncmp(p + 1, "ref", 3))
			put = snprintf(buf + len, size - len, "%zu", f->ref);
		else if (end && name == 2 && p[1] == 's' && (k == 0 || k == 1))
			put = snprintf(buf + len, size - len, "%s", f->s[k]);
		else if (end && name == 2 && p[1] == 'n' && k >= 0 && k <= 2)
			put = snprintf(buf + len, size - len, "%ld", f->n[k]);
		else if (end && name == 3 && p[1] == '+' && p[2] == 'n' && k >= 0 && k <= 2)
			put = snprintf(buf + len, size - len, "%+ld", f->n[k]);
		if (put < 0) {
			buf[len++] = *p;
			buf[len] = '\0';
			continue;
		}
		len += (size_t)put;
		if (len >= size)
			len = size - 1;
		p = end;
	}
}

static void report(struct checker *c, unsigned int rule, const char *tmpl,
		   const struct finding *f)
{
	struct qpu_hazard h;
	char msg[200];

	if (c->stop || !(c->rules & BIT64(rule)) || (c->reported & BIT64(rule)))
		return;
	c->reported |= BIT64(rule);
	expand(msg, sizeof(msg), tmpl, f);
	h.word = c->cur;
	h.ref = f->ref;
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

static const u64 thrend_io_rd = BIT64(QPU_ISA_RADDR_UNIF) | BIT64(QPU_ISA_RADDR_VARY) |
	BIT64(QPU_ISA_RADDR_VPM) | BIT64(QPU_ISA_RADDR_VPM_BUSY) | BIT64(QPU_ISA_RADDR_VPM_WAIT);
static const u64 thrend_io_wr = BIT64(QPU_ISA_WADDR_VPM) | BIT64(QPU_ISA_WADDR_VPM_SETUP) |
	BIT64(QPU_ISA_WADDR_VPM_ADDR);

static void finding_init(struct finding *f)
{
	f->ref = QPU_HAZARD_NO_REF;
	f->s[0] = f->s[1] = "";
	f->n[0] = f->n[1] = f->n[2] = 0;
}

/*
 * The latency rules, one descriptor each in the order they are reported:
 * the word checked does @hit while a word at most @dist instructions before
 * it wrote an address in @after (of file @file, or of either). {ref} in
 * @msg is that word, {s0} the checked word's signal.
 */
static const struct latency_rule {
	unsigned int rule;
	unsigned int dist;
	int file;
	u64 after;
	bool (*hit)(const struct word_info *w);
	const char *msg;
} latency_rules[] = {
	{ QPU_HAZARD_SFU_R4_READ, QPU_ISA_SFU_LATENCY, FILE_ANY, MASK_SFU, reads_r4,
	  "reads r4 while the SFU result of word {ref} is not ready (it needs two instructions in between)" },
	{ QPU_HAZARD_SFU_BUSY, QPU_ISA_SFU_LATENCY, FILE_ANY, MASK_SFU, writes_sfu,
	  "writes the SFU while the SFU result of word {ref} is pending" },
	{ QPU_HAZARD_SFU_R4_SIGNAL, QPU_ISA_SFU_LATENCY, FILE_ANY, MASK_SFU, signals_r4,
	  "signal {s0} writes r4 while the SFU result of word {ref} is pending" },
	{ QPU_HAZARD_UNIF_ADDR_LATENCY, QPU_ISA_UNIF_ADDR_LATENCY, FILE_ANY, BIT64(QPU_ISA_WADDR_UNIF_ADDR), reads_uniform,
	  "reads a uniform within 2 instructions after the unif_addr write of word {ref}" },
	{ QPU_HAZARD_MS_FLAGS_AFTER_TLBZ, QPU_ISA_TLBZ_LATENCY, FILE_ANY, BIT64(QPU_ISA_WADDR_TLBZ), reads_ms_flags,
	  "reads ms_flags within 2 instructions after the tlbz write of word {ref}" },
	{ QPU_HAZARD_VPM_READ_LATENCY, QPU_ISA_VPM_READ_LATENCY, FILE_A, BIT64(QPU_ISA_WADDR_VPM_SETUP), keeps_vpm_read,
	  "reads vpm within 2 instructions after the vr_setup write of word {ref}" },
	{ QPU_HAZARD_TMU_NOSWAP_LATENCY, QPU_ISA_TMU_NOSWAP_LATENCY, FILE_ANY, BIT64(QPU_ISA_WADDR_TMU_NOSWAP), writes_tmu,
	  "writes a TMU register within 2 instructions after the tmu_noswap write of word {ref}" },
};

static void check_latency(struct checker *c, const struct word_info *w)
{
	const struct latency_rule *r;
	struct finding f;

	for (r = latency_rules; r < latency_rules + ARRAY_SIZE(latency_rules); r++) {
		if (!r->hit(w))
			continue;
		finding_init(&f);
		f.ref = back_writer(c, r->dist, r->file, r->after);
		if (f.ref == QPU_HAZARD_NO_REF)
			continue;
		f.s[0] = qpu_isa_sig_names[w->in.sig];
		report(c, r->rule, r->msg, &f);
	}
}

/*
 * The rules on the instruction right before: @hit sees the word checked
 * and one word @p that can run before it ({ref}); @arg is the row's
 * parameter (a file, a mul input). Each table is checked against every
 * such word in turn.
 */
struct prev_rule {
	unsigned int rule;
	bool (*hit)(const struct word_info *w, const struct word_info *p,
		    unsigned int arg, struct finding *f);
	unsigned int arg;
	const char *msg;
};

static bool regfile_raw(const struct word_info *w, const struct word_info *p,
			unsigned int file, struct finding *f)
{
	u64 m = p->wr[file] & w->used[file] & MASK_REGFILE;

	if (m)
		f->s[0] = reg_name(false, file, lowest_bit(m));
	return m;
}

/* @arg 0: mul_a, 1: mul_b */
static bool rotate_acc_raw(const struct word_info *w, const struct word_info *p,
			   unsigned int arg, struct finding *f)
{
	unsigned int m = arg ? w->in.mul_b : w->in.mul_a;
	bool hit = false;

	if (!w->rot)
		return false;
	if (m <= QPU_ISA_MUX_R3)
		hit = has(p->wr, QPU_ISA_WADDR_R0 + m);
	else if (m == QPU_ISA_MUX_R4)
		hit = p->r4_signal;
	else if (m == QPU_ISA_MUX_R5)
		hit = has(p->wr, QPU_ISA_WADDR_R5);
	f->s[0] = qpu_isa_mux_names[m];
	return hit;
}

static bool rotate_r5_raw(const struct word_info *w, const struct word_info *p,
			  unsigned int arg, struct finding *f)
{
	return w->rot == 16 && has(p->wr, QPU_ISA_WADDR_R5);
}

static const struct prev_rule regfile_rules[] = {
	{ QPU_HAZARD_REGFILE_RAW, regfile_raw, FILE_A,
	  "reads {s0}, written by the previous instruction (word {ref})" },
	{ QPU_HAZARD_REGFILE_RAW, regfile_raw, FILE_B,
	  "reads {s0}, written by the previous instruction (word {ref})" },
};

static const struct prev_rule rotation_rules[] = {
	{ QPU_HAZARD_ROTATE_ACC_RAW, rotate_acc_raw, 0,
	  "rotates {s0}, written by the previous instruction (word {ref})" },
	{ QPU_HAZARD_ROTATE_ACC_RAW, rotate_acc_raw, 1,
	  "rotates {s0}, written by the previous instruction (word {ref})" },
	{ QPU_HAZARD_ROTATE_R5_RAW, rotate_r5_raw, 0,
	  "rotates by r5, written by the previous instruction (word {ref})" },
};

static void check_prev(struct checker *c, const struct word_info *w,
		       const struct prev_rule *table, size_t n)
{
	const struct prev_rule *r;
	struct finding f;
	size_t k;

	for (k = 0; k < c->back[1].n; k++) {
		for (r = table; r < table + n; r++) {
			finding_init(&f);
			if (!r->hit(w, &c->info[c->back[1].v[k]], r->arg, &f))
				continue;
			f.ref = c->back[1].v[k];
			report(c, r->rule, r->msg, &f);
		}
	}
}

/*
 * The rules on one word alone and on its place in the flow: @hit says
 * whether the word checked breaks the rule and fills what @msg names;
 * @arg is the row's parameter (a file, reserved-field bits). Rows of one
 * rule are tried in order and the first hit is the one reported, as
 * each rule is reported once per word.
 */
struct word_rule {
	unsigned int rule;
	bool (*hit)(const struct checker *c, const struct word_info *w,
		    unsigned int arg, struct finding *f);
	unsigned int arg;
	const char *msg;
};

static bool ldtmu_with_tmu_write(const struct checker *c, const struct word_info *w,
				 unsigned int arg, struct finding *f)
{
	f->n[0] = w->ldtmu;
	return w->ldtmu >= 0 && any(w->wr, MASK_TMU);
}

static bool writes_tmu_request(const struct qpu_isa_instr *in, bool mul)
{
	unsigned int waddr = mul ? in->waddr_mul : in->waddr_add;

	return (mul ? in->op_mul != QPU_ISA_M_NOP : in->op_add != QPU_ISA_A_NOP) &&
	       (waddr == QPU_ISA_WADDR_TMU0_S || waddr == QPU_ISA_WADDR_TMU1_S);
}

static bool conditional(unsigned int cond)
{
	return cond != QPU_ISA_COND_ALWAYS && cond != QPU_ISA_COND_NEVER;
}

static bool tmu_cond_write(const struct checker *c, const struct word_info *w,
			   unsigned int arg, struct finding *f)
{
	const struct qpu_isa_instr *in = &w->in;

	return w->alu && ((writes_tmu_request(in, false) && conditional(in->cond_add)) ||
			  (writes_tmu_request(in, true) && conditional(in->cond_mul)));
}

static bool rotate_non_acc(const struct checker *c, const struct word_info *w,
			   unsigned int arg, struct finding *f)
{
	return w->rot && (w->in.mul_a > QPU_ISA_MUX_R3 || w->in.mul_b > QPU_ISA_MUX_R3);
}

static bool rotate_imm_read(const struct checker *c, const struct word_info *w,
			    unsigned int arg, struct finding *f)
{
	const struct qpu_isa_instr *in = &w->in;
	bool add_reads = in->op_add != QPU_ISA_A_NOP &&
		(in->add_a == QPU_ISA_MUX_B ||
		 (in->add_b == QPU_ISA_MUX_B &&
		  !(qpu_isa_add_ops[in->op_add].flags & QPU_ISA_OP_UNARY)));
	bool mul_reads = in->op_mul != QPU_ISA_M_NOP &&
		(in->mul_a == QPU_ISA_MUX_B || in->mul_b == QPU_ISA_MUX_B);

	f->n[0] = in->raddr_b;
	f->n[1] = (long)in->raddr_b - 64;
	return in->kind == QPU_ISA_KIND_ALU_SMALL_IMM && in->raddr_b >= QPU_ISA_SMALL_IMM_ROT &&
	       (add_reads || mul_reads);
}

/* Both ALUs write one register (regfile writes go to different files). */
static bool same_dest(const struct checker *c, const struct word_info *w,
		      unsigned int arg, struct finding *f)
{
	const struct qpu_isa_instr *in = &w->in;
	unsigned int ca = in->cond_add, cm = in->cond_mul;
	u64 a = BIT64(in->waddr_add);

	if (in->kind == QPU_ISA_KIND_BRANCH || in->kind == QPU_ISA_KIND_RAW ||
	    in->waddr_add != in->waddr_mul || in->waddr_add < 32 ||
	    in->waddr_add == QPU_ISA_WADDR_NOP || in->waddr_add == QPU_ISA_WADDR_XY_COORD ||
	    in->waddr_add == QPU_ISA_WADDR_MS_REV || in->waddr_add == QPU_ISA_WADDR_VPM_SETUP ||
	    in->waddr_add == QPU_ISA_WADDR_VPM_ADDR)
		return false;
	f->s[0] = reg_name(true, FILE_A, in->waddr_add);
	return (w->wr[FILE_A] & a) && (w->wr[FILE_B] & a) &&
	       !(ca >= QPU_ISA_COND_ZS && cm >= QPU_ISA_COND_ZS && (ca ^ 1) == cm);
}

static unsigned int count_in(const struct word_info *w, u64 mask)
{
	return (unsigned int)__builtin_popcountll(w->wr[FILE_A] & mask) +
	       (unsigned int)__builtin_popcountll(w->wr[FILE_B] & mask);
}

/* Closely coupled peripherals: one access per instruction. */
static bool peripheral_multi(const struct checker *c, const struct word_info *w,
			     unsigned int arg, struct finding *f)
{
	static const char *const names[] = {
		"TMU write", "TMU read", "TLB write", "TLB read", "SFU write",
		"mutex read", "semaphore",
	};
	unsigned int n[ARRAY_SIZE(names)] = {
		count_in(w, MASK_TMU),
		w->ldtmu >= 0,
		count_in(w, MASK_TLB),
		w->r4_signal && w->ldtmu < 0,
		count_in(w, MASK_SFU),
		has(w->rd, QPU_ISA_RADDR_MUTEX),
		w->in.kind == QPU_ISA_KIND_SEMA,
	};
	unsigned int count = 0, kinds = 0, k;
	size_t len = 0;

	f->list[0] = '\0';
	for (k = 0; k < ARRAY_SIZE(names); k++) {
		count += n[k];
		if (n[k]) {
			len += (size_t)snprintf(f->list + len, sizeof(f->list) - len, "%s%s",
						kinds++ ? ", " : "", names[k]);
			if (len >= sizeof(f->list))
				len = sizeof(f->list) - 1;
		}
	}
	f->n[0] = count;
	f->s[0] = f->list;
	return count > 1;
}

static bool pack_peripheral(const struct checker *c, const struct word_info *w,
			    unsigned int arg, struct finding *f)
{
	const struct qpu_isa_instr *in = &w->in;

	if (!(w->alu && in->pm && in->pack >= QPU_ISA_PACK_MUL_8A &&
	      in->pack <= QPU_ISA_PACK_MUL_8D && in->op_mul != QPU_ISA_M_NOP &&
	      in->waddr_mul >= 32 && in->waddr_mul != QPU_ISA_WADDR_NOP))
		return false;
	f->s[0] = qpu_isa_pack_mul_names[in->pack];
	f->s[1] = reg_name(true, in->ws ? FILE_A : FILE_B, in->waddr_mul);
	return true;
}

static bool sbwait_at_start(const struct checker *c, const struct word_info *w,
			    unsigned int arg, struct finding *f)
{
	const struct qpu_isa_instr *in = &w->in;

	f->n[0] = (long)c->cur + 1;
	return !(c->flags & QPU_HAZARD_PARTIAL) && c->cur < 2 &&
	       ((w->alu && in->kind == QPU_ISA_KIND_ALU && in->sig == QPU_ISA_SIG_SBWAIT) ||
		any(w->wr, MASK_TLB) || (w->r4_signal && w->ldtmu < 0));
}

static bool writes_vr_setup(const struct word_info *w)
{
	return w->wr[FILE_A] & BIT64(QPU_ISA_WADDR_VPM_SETUP);
}

static bool writes_vw_setup(const struct word_info *w)
{
	return w->wr[FILE_B] & BIT64(QPU_ISA_WADDR_VPM_SETUP);
}

static bool both_setups(const struct checker *c, const struct word_info *w,
			unsigned int arg, struct finding *f)
{
	return writes_vr_setup(w) && writes_vw_setup(w);
}

static bool vr_setup_with_read(const struct checker *c, const struct word_info *w,
			       unsigned int arg, struct finding *f)
{
	return writes_vr_setup(w) && has(w->rd, QPU_ISA_RADDR_VPM);
}

static bool vw_setup_with_write(const struct checker *c, const struct word_info *w,
				unsigned int arg, struct finding *f)
{
	return writes_vw_setup(w) && has(w->wr, QPU_ISA_WADDR_VPM);
}

/* @bits: the decoder's QPU_ISA_RSV_* flags the row is about */
static bool reserved_bits(const struct checker *c, const struct word_info *w,
			  unsigned int bits, struct finding *f)
{
	return w->in.reserved & bits;
}

/*
 * The lowest address of @file read, else written, that has no function.
 * (No VideoCore IV write address is reserved today; the tables say.)
 */
static bool reserved_register(const struct checker *c, const struct word_info *w,
			      unsigned int file, struct finding *f)
{
	unsigned int write;
	u64 m;

	for (write = 0; write < 2; write++) {
		for (m = write ? w->wr[file] : w->rd[file]; m; m &= m - 1) {
			unsigned int a = lowest_bit(m);
			const struct qpu_isa_reg *r = write ? &qpu_isa_write_regs[file][a] :
							      &qpu_isa_read_regs[file][a];

			if (r->flags & QPU_ISA_REG_RESERVED) {
				f->s[0] = write ? "writes" : "reads";
				f->s[1] = reg_name(write, file, a);
				return true;
			}
		}
	}
	return false;
}

static const struct word_rule word_rules[] = {
	{ QPU_HAZARD_TMU_LOAD_WITH_WRITE, ldtmu_with_tmu_write, 0,
	  "ldtmu{n0} in the same instruction as a TMU register write" },
	{ QPU_HAZARD_TMU_COND_WRITE, tmu_cond_write, 0,
	  "conditional write to a TMU request register; the hardware does not honour the condition (vc4asm)" },
	{ QPU_HAZARD_ROTATE_NON_ACC, rotate_non_acc, 0,
	  "rotates a mul input other than r0..r3: the rotation stays within each quad" },
	{ QPU_HAZARD_ROTATE_IMM_READ, rotate_imm_read, 0,
	  "an input reads the rotation code {n0} as the value {n1}" },
	{ QPU_HAZARD_SAME_DEST, same_dest, 0, "both ALUs write {s0}" },
	{ QPU_HAZARD_PERIPHERAL_MULTI, peripheral_multi, 0,
	  "{n0} peripheral accesses in one instruction ({s0}); at most one works" },
	{ QPU_HAZARD_PACK_PERIPHERAL, pack_peripheral, 0,
	  "partial pack .{s0} into {s1}: peripherals take whole words" },
	{ QPU_HAZARD_SBWAIT_AT_START, sbwait_at_start, 0,
	  "waits for the scoreboard in instruction {n0}; the first two must not" },
	{ QPU_HAZARD_VPM_SETUP_CONFLICT, both_setups, 0,
	  "writes vr_setup and vw_setup in one instruction" },
	{ QPU_HAZARD_VPM_SETUP_CONFLICT, vr_setup_with_read, 0,
	  "reads vpm in the instruction that writes vr_setup" },
	{ QPU_HAZARD_VPM_SETUP_CONFLICT, vw_setup_with_write, 0,
	  "writes vpm in the instruction that writes vw_setup" },
	{ QPU_HAZARD_RESERVED_ENCODING, reserved_bits, QPU_ISA_RSV_OP_ADD, "reserved add opcode" },
	{ QPU_HAZARD_RESERVED_ENCODING, reserved_bits, QPU_ISA_RSV_PACK, "reserved mul pack mode" },
	{ QPU_HAZARD_RESERVED_ENCODING, reserved_bits, QPU_ISA_RSV_BR_COND,
	  "reserved branch condition" },
	/* the decoder sets it on every QPU_ISA_KIND_RAW word */
	{ QPU_HAZARD_RESERVED_ENCODING, reserved_bits, QPU_ISA_RSV_LDI_MODE,
	  "reserved load-immediate mode" },
	{ QPU_HAZARD_UNUSED_FIELD, reserved_bits, QPU_ISA_RSV_SEM_PAD,
	  "semaphore instruction with bits 31:5 set" },
	{ QPU_HAZARD_UNUSED_FIELD, reserved_bits, QPU_ISA_RSV_BR_PAD, "branch with bits 59:56 set" },
	{ QPU_HAZARD_UNUSED_FIELD, reserved_bits, QPU_ISA_RSV_BR_RADDR,
	  "branch with raddr_a set but no register target: an odd raddr_a sets the flags" },
	{ QPU_HAZARD_RESERVED_REGISTER, reserved_register, FILE_A,
	  "{s0} {s1}, an address with no function" },
	{ QPU_HAZARD_RESERVED_REGISTER, reserved_register, FILE_B,
	  "{s0} {s1}, an address with no function" },
};

/* @arg 0: after a branch (3 delay slots), 1: after a thrend (2) */
static bool in_delay_slot(const struct checker *c, const struct word_info *w,
			  unsigned int thrend, struct finding *f)
{
	f->ref = linear_before(c, thrend ? 2 : 3, thrend);
	return f->ref != QPU_HAZARD_NO_REF;
}

static bool branch_in_delay_slot(const struct checker *c, const struct word_info *w,
				 unsigned int thrend, struct finding *f)
{
	return w->branch && in_delay_slot(c, w, thrend, f);
}

static bool thrend_in_delay_slot(const struct checker *c, const struct word_info *w,
				 unsigned int thrend, struct finding *f)
{
	return w->thrend && in_delay_slot(c, w, thrend, f);
}

/* @arg 1: the offset is not a multiple of 8, 0: it is but leaves the program */
static bool branch_target(const struct checker *c, const struct word_info *w,
			  unsigned int unaligned, struct finding *f)
{
	f->n[0] = w->rel;
	return w->branch && !(c->flags & QPU_HAZARD_PARTIAL) && w->in.br_rel &&
	       !w->in.br_reg && !w->has_target && !(w->rel % 8) == !unaligned;
}

static bool branch_delay_short(const struct checker *c, const struct word_info *w,
			       unsigned int arg, struct finding *f)
{
	f->n[0] = (long)(c->n - 1 - c->cur);
	return w->branch && !(c->flags & QPU_HAZARD_PARTIAL) && c->cur + 3 >= c->n;
}

static bool thrend_regfile_write(const struct checker *c, const struct word_info *w,
				 unsigned int arg, struct finding *f)
{
	unsigned int file = (w->wr[FILE_A] & MASK_REGFILE) ? FILE_A : FILE_B;

	if (!w->thrend || !any(w->wr, MASK_REGFILE))
		return false;
	f->s[0] = reg_name(true, file, lowest_bit(w->wr[file] & MASK_REGFILE));
	return true;
}

/* The thrend whose instruction or delay slots the word is, in {ref}. */
static bool at_thread_end(const struct checker *c, const struct word_info *w,
			  struct finding *f)
{
	f->ref = w->thrend ? c->cur : linear_before(c, 2, true);
	return f->ref != QPU_HAZARD_NO_REF;
}

static bool thrend_io_read(const struct checker *c, const struct word_info *w,
			   unsigned int file, struct finding *f)
{
	u64 m = w->rd[file] & thrend_io_rd;

	if (!m || !at_thread_end(c, w, f))
		return false;
	f->s[0] = reg_name(false, file, lowest_bit(m));
	return true;
}

static bool thrend_io_write(const struct checker *c, const struct word_info *w,
			    unsigned int file, struct finding *f)
{
	u64 m = w->wr[file] & thrend_io_wr;

	if (!m || !at_thread_end(c, w, f))
		return false;
	f->s[0] = reg_name(true, file, lowest_bit(m));
	return true;
}

static bool thrend_r14(const struct checker *c, const struct word_info *w,
		       unsigned int arg, struct finding *f)
{
	const u64 *m = has(w->rd, ADDR_R14) ? w->rd : w->wr;

	if (!has(m, ADDR_R14) || !at_thread_end(c, w, f))
		return false;
	f->s[0] = (m[FILE_A] & BIT64(ADDR_R14)) ? "ra14" : "rb14";
	return true;
}

static bool thrend_tlbz(const struct checker *c, const struct word_info *w,
			unsigned int arg, struct finding *f)
{
	return has(w->wr, QPU_ISA_WADDR_TLBZ) && at_thread_end(c, w, f) &&
	       f->ref + 2 == c->cur;
}

static const struct word_rule flow_rules[] = {
	{ QPU_HAZARD_BRANCH_IN_DELAY_SLOT, branch_in_delay_slot, 0,
	  "branch in the delay slots of the branch at word {ref}" },
	{ QPU_HAZARD_BRANCH_IN_DELAY_SLOT, branch_in_delay_slot, 1,
	  "branch in the delay slots of the thrend at word {ref}" },
	{ QPU_HAZARD_BRANCH_TARGET, branch_target, 1,
	  "branch offset {+n0} is not a multiple of 8" },
	{ QPU_HAZARD_BRANCH_TARGET, branch_target, 0, "branch offset {+n0} leaves the program" },
	{ QPU_HAZARD_BRANCH_DELAY_SHORT, branch_delay_short, 0,
	  "only {n0} of the 3 delay slots of this branch exist" },
	{ QPU_HAZARD_THREND_IN_DELAY_SLOT, thrend_in_delay_slot, 0,
	  "thrend in the delay slots of the branch at word {ref}" },
	{ QPU_HAZARD_THREND_IN_DELAY_SLOT, thrend_in_delay_slot, 1,
	  "thrend in the delay slots of the thrend at word {ref}" },
	{ QPU_HAZARD_THREND_REGFILE_WRITE, thrend_regfile_write, 0,
	  "the thrend instruction writes {s0}" },
	{ QPU_HAZARD_THREND_IO, thrend_io_read, FILE_A,
	  "reads {s0} at thread end (thrend at word {ref})" },
	{ QPU_HAZARD_THREND_IO, thrend_io_write, FILE_A,
	  "writes {s0} at thread end (thrend at word {ref})" },
	{ QPU_HAZARD_THREND_IO, thrend_io_read, FILE_B,
	  "reads {s0} at thread end (thrend at word {ref})" },
	{ QPU_HAZARD_THREND_IO, thrend_io_write, FILE_B,
	  "writes {s0} at thread end (thrend at word {ref})" },
	{ QPU_HAZARD_THREND_R14, thrend_r14, 0, "uses {s0} at thread end (thrend at word {ref})" },
	{ QPU_HAZARD_THREND_TLBZ, thrend_tlbz, 0,
	  "the last instruction (thrend at word {ref}) writes tlbz" },
};

static void check_rows(struct checker *c, const struct word_info *w,
		       const struct word_rule *table, size_t n)
{
	const struct word_rule *r;
	struct finding f;

	for (r = table; r < table + n; r++) {
		finding_init(&f);
		if (r->hit(c, w, r->arg, &f))
			report(c, r->rule, r->msg, &f);
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

/*
 * The rules on state carried along the scan: @hit reads the state as the
 * rows before left it, then @track (if any) moves it past the word, found
 * or not. @arg is the row's parameter (a TMU).
 */
struct state_rule {
	unsigned int rule;
	bool (*hit)(const struct word_info *w, const struct scan_state *s,
		    unsigned int arg, struct finding *f);
	void (*track)(const struct word_info *w, size_t i, unsigned int arg,
		      struct scan_state *s);
	unsigned int arg;
	const char *msg;
};

static bool noswap_after_use(const struct word_info *w, const struct scan_state *s,
			     unsigned int arg, struct finding *f)
{
	f->ref = s->first_tmu_write;
	return has(w->wr, QPU_ISA_WADDR_TMU_NOSWAP) && f->ref != QPU_HAZARD_NO_REF;
}

static void track_first_tmu_write(const struct word_info *w, size_t i, unsigned int arg,
				  struct scan_state *s)
{
	if (any(w->wr, MASK_TMU) && s->first_tmu_write == QPU_HAZARD_NO_REF)
		s->first_tmu_write = i;
}

static bool queues_request(const struct word_info *w, unsigned int tmu)
{
	return has(w->wr, tmu ? QPU_ISA_WADDR_TMU1_S : QPU_ISA_WADDR_TMU0_S);
}

/* @tmu: 0 or 1 */
static bool tmu_fifo_overflow(const struct word_info *w, const struct scan_state *s,
			      unsigned int tmu, struct finding *f)
{
	f->n[0] = s->tmu[tmu] + 1;
	f->n[1] = tmu;
	f->n[2] = TMU_FIFO_DEPTH;
	return queues_request(w, tmu) && s->tmu[tmu] + 1 > TMU_FIFO_DEPTH;
}

static void track_tmu_request(const struct word_info *w, size_t i, unsigned int tmu,
			      struct scan_state *s)
{
	if (queues_request(w, tmu))
		s->tmu[tmu]++;
}

static bool tmu_load_empty(const struct word_info *w, const struct scan_state *s,
			   unsigned int arg, struct finding *f)
{
	f->n[0] = f->n[1] = w->ldtmu;
	return w->ldtmu >= 0 && !s->tmu[w->ldtmu] && s->known;
}

static void track_tmu_load(const struct word_info *w, size_t i, unsigned int arg,
			   struct scan_state *s)
{
	if (w->ldtmu >= 0 && s->tmu[w->ldtmu])
		s->tmu[w->ldtmu]--;
}

/* A vr_wait (A) or vw_wait (B) read in this word ends the wait. */
static size_t dma_pending(const struct word_info *w, unsigned int file, size_t start)
{
	return (w->rd[file] & BIT64(QPU_ISA_RADDR_VPM_WAIT)) ? QPU_HAZARD_NO_REF : start;
}

static bool vpm_read_dma_pending(const struct word_info *w, const struct scan_state *s,
				 unsigned int arg, struct finding *f)
{
	f->ref = dma_pending(w, FILE_A, s->dma_load);
	return has(w->rd, QPU_ISA_RADDR_VPM) && f->ref != QPU_HAZARD_NO_REF;
}

static bool dma_wait_missing(const struct word_info *w, const struct scan_state *s,
			     unsigned int arg, struct finding *f)
{
	f->ref = dma_pending(w, FILE_B, s->dma_store);
	return w->thrend && f->ref != QPU_HAZARD_NO_REF;
}

static void track_dma(const struct word_info *w, size_t i, unsigned int arg,
		      struct scan_state *s)
{
	s->dma_load = dma_pending(w, FILE_A, s->dma_load);
	s->dma_store = dma_pending(w, FILE_B, s->dma_store);
	if (w->wr[FILE_A] & BIT64(QPU_ISA_WADDR_VPM_ADDR))
		s->dma_load = i;
	if (w->wr[FILE_B] & BIT64(QPU_ISA_WADDR_VPM_ADDR))
		s->dma_store = i;
}

static const struct state_rule state_rules[] = {
	{ QPU_HAZARD_TMU_NOSWAP_AFTER_USE, noswap_after_use, track_first_tmu_write, 0,
	  "writes tmu_noswap after the TMU write of word {ref}" },
	{ QPU_HAZARD_TMU_FIFO_OVERFLOW, tmu_fifo_overflow, track_tmu_request, 0,
	  "queues request {n0} on TMU{n1}; only {n2} can be outstanding" },
	{ QPU_HAZARD_TMU_FIFO_OVERFLOW, tmu_fifo_overflow, track_tmu_request, 1,
	  "queues request {n0} on TMU{n1}; only {n2} can be outstanding" },
	{ QPU_HAZARD_TMU_LOAD_EMPTY, tmu_load_empty, track_tmu_load, 0,
	  "ldtmu{n0} with no request queued on TMU{n1}: the QPU waits forever" },
	{ QPU_HAZARD_VPM_READ_DMA_PENDING, vpm_read_dma_pending, NULL, 0,
	  "reads vpm while the DMA load started at word {ref} may still run (read vr_wait first)" },
	{ QPU_HAZARD_DMA_WAIT_MISSING, dma_wait_missing, track_dma, 0,
	  "thread end while the DMA store started at word {ref} may still run (read vw_wait first)" },
};

static void check_state(struct checker *c, const struct word_info *w,
			struct scan_state *s)
{
	const struct state_rule *r;
	struct finding f;

	if (c->in_head[c->cur] >= 0 || (c->cur > 0 && c->flow_ends[c->cur - 1]))
		scan_reset(s);
	for (r = state_rules; r < state_rules + ARRAY_SIZE(state_rules); r++) {
		finding_init(&f);
		if (r->hit(w, s, r->arg, &f))
			report(c, r->rule, r->msg, &f);
		if (r->track)
			r->track(w, c->cur, r->arg, s);
	}
}

/*
 * The rules on the whole program, checked once its words are: @hit looks
 * at the program; a finding is reported at the word @back words before
 * the last. @arg is the row's parameter.
 */
struct end_rule {
	unsigned int rule;
	bool (*hit)(const struct checker *c, int arg, struct finding *f);
	int arg;
	unsigned int back;
	const char *msg;
};

static bool no_thrend(const struct checker *c, int arg, struct finding *f)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->info[i].thrend)
			return false;
	return true;
}

/* Whether the flow can reach the last word and go on past it. */
static bool can_run_off(const struct checker *c)
{
	size_t i, last = c->n - 1;

	/* Dead words after the last end of flow cannot run off the end. */
	for (i = last; i > 0 && c->in_head[i] < 0; i--)
		if (c->flow_ends[i - 1] || c->flow_ends[i])
			return false;
	if (c->flow_ends[last])
		return false;
	/* A branch too close to the end is branch-delay-short's finding. */
	for (i = c->n > 3 ? c->n - 3 : 0; i < c->n; i++)
		if (c->info[i].branch)
			return false;
	return true;
}

/* The delay slots of a thrend in the last two words (1 or 0), else -1. */
static int end_thrend_slots(const struct checker *c)
{
	if (c->n >= 2 && c->info[c->n - 2].thrend)
		return 1;
	return c->info[c->n - 1].thrend ? 0 : -1;
}

/* @slots: the delay slots its thrend has (a thrend is reported at it), or -1 */
static bool runs_off_end(const struct checker *c, int slots, struct finding *f)
{
	return can_run_off(c) && end_thrend_slots(c) == slots;
}

static const struct end_rule end_rules[] = {
	{ QPU_HAZARD_THREND_MISSING, no_thrend, 0, 0,
	  "the program has no thrend: its QPU never finishes" },
	{ QPU_HAZARD_RUNS_OFF_END, runs_off_end, 1, 1,
	  "this thrend has only 1 of its 2 delay slots" },
	{ QPU_HAZARD_RUNS_OFF_END, runs_off_end, 0, 0,
	  "this thrend has none of its 2 delay slots" },
	{ QPU_HAZARD_RUNS_OFF_END, runs_off_end, -1, 0,
	  "execution continues past the last word" },
};

static void check_end(struct checker *c)
{
	const struct end_rule *r;
	struct finding f;

	if (c->flags & QPU_HAZARD_PARTIAL)
		return;
	for (r = end_rules; r < end_rules + ARRAY_SIZE(end_rules); r++) {
		finding_init(&f);
		if (!r->hit(c, r->arg, &f))
			continue;
		c->cur = c->n - 1 - r->back;
		c->reported = 0;
		report(c, r->rule, r->msg, &f);
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
		check_prev(&c, w, regfile_rules, ARRAY_SIZE(regfile_rules));
		check_latency(&c, w);
		check_prev(&c, w, rotation_rules, ARRAY_SIZE(rotation_rules));
		check_rows(&c, w, word_rules, ARRAY_SIZE(word_rules));
		check_rows(&c, w, flow_rules, ARRAY_SIZE(flow_rules));
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
