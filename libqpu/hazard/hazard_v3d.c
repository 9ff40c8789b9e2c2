// SPDX-License-Identifier: MIT
/*
 * The V3D 4.2/7.1 hazard checker (qpu_hazard_v3d.h): one linear pass over
 * the decoded words, the rules and their sources listed in the header.
 * The rules follow what Mesa's compiler validates on every shader it
 * schedules, so code that passes here is code Mesa would emit.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "qpu_hazard_v3d.h"
#include "emit/instr_build_v3d.h"

#define R(id)	QPU_HAZARD_V3D_##id

static const struct {
	const char *name;
	const char *summary;
} rules[QPU_HAZARD_V3D_NUM_RULES] = {
	[R(BRANCH_IN_DELAY_SLOT)] = { "branch-in-delay-slot",
		"a branch within 3 after a branch" },
	[R(BRANCH_IN_THRSW_SLOT)] = { "branch-in-thrsw-slot",
		"a branch within 2 after a thrsw" },
	[R(THRSW_IN_BRANCH_SLOT)] = { "thrsw-in-branch-slot",
		"a thrsw within 3 after a branch" },
	[R(THRSW_TOO_CLOSE)] = { "thrsw-too-close",
		"a thrsw within 2 after a thrsw (but the last-thrsw pair)" },
	[R(SFU_IN_THRSW_SLOT)] = { "sfu-in-thrsw-slot",
		"a magic SFU write within 2 after a thrsw (4.2)" },
	[R(SFU_BUSY)] = { "sfu-busy", "an SFU write right after an SFU write" },
	[R(SFU_R4)] = { "sfu-r4", "r4 read or written right after an SFU write (4.2)" },
	[R(PERIPHERAL_MULTI)] = { "peripheral-multi",
		"more than one TMU, SFU, VPM, TLB or sync access in one instruction" },
	[R(LDUNIF_AFTER_LDVARY)] = { "ldunif-after-ldvary",
		"ldunif or ldunifa right after ldvary" },
	[R(LDVARY_IN_THRSW_SLOT)] = { "ldvary-in-thrsw-slot",
		"ldvary in a thrsw delay slot (7.1: the second)" },
	[R(THREND_RF_WRITE)] = { "thrend-rf-write",
		"a register-file write the thread end does not allow" },
	[R(TMUWT_LAST)] = { "tmuwt-last", "tmuwt in the last instruction" },
	[R(UMUL24_RTOP_LOST)] = { "umul24-rtop-lost",
		"umul24 after a thread switch cleared its multop's rtop" },
	[R(TMU_LOAD_EMPTY)] = { "tmu-load-empty",
		"ldtmu before any TMU request write" },
	[R(THREND_MISSING)] = { "thrend-missing", "no thread end (program-end thrsw)" },
	[R(DELAY_SHORT)] = { "delay-short",
		"delay slots of a branch or the thread end past the last word" },
	[R(INVALID_WORD)] = { "invalid-word", "a word that is no instruction" },
	[R(TMU_FIFO_OVERFLOW)] = { "tmu-fifo-overflow",
		"more ldtmu after a TMU request than the output FIFO holds" },
};

/* TMU output FIFO entries of a QPU, shared by its threads (Mesa: [N]). */
#define TMU_OUTPUT_FIFO	16

const char *qpu_hazard_v3d_rule_name(unsigned int rule)
{
	return rule < QPU_HAZARD_V3D_NUM_RULES ? rules[rule].name : NULL;
}

const char *qpu_hazard_v3d_rule_summary(unsigned int rule)
{
	return rule < QPU_HAZARD_V3D_NUM_RULES ? rules[rule].summary : NULL;
}

int qpu_hazard_v3d_rule_find(const char *name)
{
	unsigned int i;

	for (i = 0; name && i < QPU_HAZARD_V3D_NUM_RULES; i++) {
		if (!strcmp(rules[i].name, name))
			return i;
	}
	return -ENOENT;
}

struct scan {
	enum qpu_gen gen;
	uint64_t rules;
	qpu_hazard_cb cb;
	void *ctx;
	int found;
	bool stop;
	uint64_t reported;	/* rules reported for the current word */
};

static void report(struct scan *s, size_t word, size_t ref, unsigned int rule,
		   const char *msg)
{
	struct qpu_hazard h = {
		.word = word, .ref = ref, .rule = rule,
		.name = rules[rule].name, .message = msg,
	};

	if (s->stop || !(s->rules & QPU_HAZARD_RULE_BIT(rule)) ||
	    (s->reported & QPU_HAZARD_RULE_BIT(rule)))
		return;
	s->reported |= QPU_HAZARD_RULE_BIT(rule);
	s->found++;
	if (s->cb && s->cb(&h, s->ctx))
		s->stop = true;
}

static bool alu_writes(const struct qpu_v3d_alu *alu, bool mul)
{
	const struct qpu_v3d_op_info *info = mul ?
		&qpu_v3d_mul_op_info[alu->op] : &qpu_v3d_add_op_info[alu->op];

	return info->args & QPU_V3D_ARG_D;
}

/* Whether an ALU writes magic address @pred accepts. */
static bool writes_magic(const struct qpu_v3d_instr *in,
			 bool (*pred)(unsigned int waddr))
{
	return (alu_writes(&in->add, false) && in->add.magic && pred(in->add.waddr)) ||
	       (alu_writes(&in->mul, true) && in->mul.magic && pred(in->mul.waddr));
}

static bool is_sfu_waddr(unsigned int w)
{
	return w >= QPU_V3D_W_RECIP && w <= QPU_V3D_W_RSQRT2;
}

static bool is_tmu_waddr(unsigned int w)
{
	return (w >= QPU_V3D_W_TMUD && w <= QPU_V3D_W_TMUAU) ||
	       (w >= QPU_V3D_W_TMUC && w <= QPU_V3D_W_TMUHSLOD);
}

/* A TMU write that queues a request (not tmuc, tmud: config and data). */
static bool is_tmu_request(unsigned int w)
{
	return is_tmu_waddr(w) && w != QPU_V3D_W_TMUD && w != QPU_V3D_W_TMUC;
}

static bool is_vpm_waddr(unsigned int w)
{
	return w == QPU_V3D_W_VPM || w == QPU_V3D_W_VPMU;
}

static bool is_tlb_waddr(unsigned int w)
{
	return w == QPU_V3D_W_TLB || w == QPU_V3D_W_TLBU;
}

static bool is_tsy_waddr(unsigned int w)
{
	return w >= QPU_V3D_W_SYNC && w <= QPU_V3D_W_SYNCB;
}

static bool is_r4(unsigned int w)
{
	return w == 4;
}

/* SFU operations (7.1 spells them as add ops; 4.2 has both forms). */
static bool sfu_op(const struct qpu_v3d_instr *in)
{
	switch (in->add.op) {
	case QPU_V3D_A_RECIP:
	case QPU_V3D_A_RSQRT:
	case QPU_V3D_A_EXP:
	case QPU_V3D_A_LOG:
	case QPU_V3D_A_SIN:
	case QPU_V3D_A_RSQRT2:
	case QPU_V3D_A_BALLOT:
	case QPU_V3D_A_BCASTF:
	case QPU_V3D_A_ALLEQ:
	case QPU_V3D_A_ALLFEQ:
	case QPU_V3D_A_ROTQ:
	case QPU_V3D_A_ROT:
	case QPU_V3D_A_SHUFFLE:
		return true;
	}
	return false;
}

static unsigned int count_magic(const struct qpu_v3d_instr *in,
				bool (*pred)(unsigned int waddr))
{
	return (alu_writes(&in->add, false) && in->add.magic && pred(in->add.waddr)) +
	       (alu_writes(&in->mul, true) && in->mul.magic && pred(in->mul.waddr));
}

static bool reads_r4(const struct qpu_v3d_instr *in)
{
	return (qpu_v3d_add_reads(in, 0) && in->add.a == 4) ||
	       (qpu_v3d_add_reads(in, 1) && in->add.b == 4) ||
	       (qpu_v3d_mul_reads(in, 0) && in->mul.a == 4) ||
	       (qpu_v3d_mul_reads(in, 1) && in->mul.b == 4);
}

static bool writes_r4(const struct qpu_v3d_instr *in, u32 sig)
{
	return writes_magic(in, is_r4) || writes_magic(in, is_sfu_waddr) ||
	       ((sig & QPU_V3D_SIG_WRITES_ADDR) && in->sig_magic &&
		in->sig_addr == 4);
}

/* Register-file writes of @in: the ALUs (@alu) and the signal (@sig_rf). */
static bool alu_rf_write(const struct qpu_v3d_alu *alu, bool mul, int rf)
{
	return alu_writes(alu, mul) && !alu->magic &&
	       (rf < 0 || alu->waddr == rf);
}

static bool sig_rf_write(const struct qpu_v3d_instr *in, u32 sig, int rf)
{
	return (sig & QPU_V3D_SIG_WRITES_ADDR) && !in->sig_magic &&
	       (rf < 0 || in->sig_addr == rf);
}

static bool thrend_rf_write(enum qpu_gen gen, const struct qpu_v3d_instr *in,
			    u32 sig, bool at_thrend)
{
	if (gen == QPU_GEN_V3D42)
		return alu_rf_write(&in->add, false, -1) ||
		       alu_rf_write(&in->mul, true, -1) || sig_rf_write(in, sig, -1);
	if (at_thrend && (alu_rf_write(&in->add, false, -1) ||
			  alu_rf_write(&in->mul, true, -1)))
		return true;
	return alu_rf_write(&in->add, false, 2) || alu_rf_write(&in->add, false, 3) ||
	       alu_rf_write(&in->mul, true, 2) || alu_rf_write(&in->mul, true, 3) ||
	       sig_rf_write(in, sig, 2) || sig_rf_write(in, sig, 3);
}

int qpu_hazard_v3d_check(enum qpu_gen gen, const uint64_t *words, size_t n,
			 uint64_t rule_mask, unsigned int flags,
			 qpu_hazard_cb cb, void *ctx)
{
	struct scan s = { .gen = gen, .rules = rule_mask,
			  .cb = cb, .ctx = ctx };
	long last_branch = -10, last_thrsw = -10, last_sfu = -10;
	bool one_thread = flags & QPU_HAZARD_V3D_THREADS_1;
	long thrend = -1, first_request = -1, last_request = -1;
	unsigned int fifo_depth, reads_since_request = 0;
	bool last_thrsw_found = true, prev_ldvary = false;
	bool rtop_valid = false, rtop_hazard = false;
	struct qpu_v3d_instr in;
	char msg[128];
	size_t i;
	u32 sig;

	if (!qpu_gen_is_v3d(gen) ||
	    (rule_mask & ~QPU_HAZARD_V3D_ALL_RULES) ||
	    (flags & ~(QPU_HAZARD_PARTIAL | QPU_HAZARD_V3D_THREADS)) ||
	    __builtin_popcount(flags & QPU_HAZARD_V3D_THREADS) > 1 ||
	    (!words && n))
		return -EINVAL;
	fifo_depth = TMU_OUTPUT_FIFO /
		     (flags & QPU_HAZARD_V3D_THREADS_4 ? 4 :
		      flags & QPU_HAZARD_V3D_THREADS_2 ? 2 : 1);

	/* A thrsw pair marks the last thrsw: the thread end comes after it. */
	for (i = 0; i + 1 < n; i++) {
		if (qpu_v3d_decode(s.gen, words[i], &in) == QPU_V3D_VALID &&
		    !in.is_branch &&
		    (qpu_v3d_sig_bits(s.gen, in.sig) & QPU_V3D_SIG_THRSW) &&
		    qpu_v3d_decode(s.gen, words[i + 1], &in) == QPU_V3D_VALID &&
		    !in.is_branch &&
		    (qpu_v3d_sig_bits(s.gen, in.sig) & QPU_V3D_SIG_THRSW)) {
			last_thrsw_found = false;
			break;
		}
	}

	for (i = 0; i < n && !s.stop; i++) {
		long ip = (long)i;
		enum qpu_v3d_invalid why = qpu_v3d_decode(s.gen, words[i], &in);
		unsigned int periph;

		s.reported = 0;
		if (why != QPU_V3D_VALID) {
			snprintf(msg, sizeof(msg), "not an instruction: %s",
				 qpu_v3d_invalid_name(why));
			report(&s, i, QPU_HAZARD_NO_REF, R(INVALID_WORD), msg);
			prev_ldvary = false;
			continue;
		}
		if (in.is_branch) {
			if (ip - last_branch < 4)
				report(&s, i, last_branch, R(BRANCH_IN_DELAY_SLOT),
				       "branch in the delay slots of a branch");
			if (ip - last_thrsw < 3)
				report(&s, i, last_thrsw, R(BRANCH_IN_THRSW_SLOT),
				       "branch in the delay slots of a thrsw");
			if (!(flags & QPU_HAZARD_PARTIAL) && i + 3 >= n)
				report(&s, i, QPU_HAZARD_NO_REF, R(DELAY_SHORT),
				       "fewer than 3 words after the branch");
			last_branch = ip;
			prev_ldvary = false;
			continue;
		}
		sig = qpu_v3d_sig_bits(s.gen, in.sig);

		if (in.mul.op == QPU_V3D_M_MULTOP && ip - last_branch >= 4)
			rtop_valid = true;
		if (in.mul.op == QPU_V3D_M_UMUL24) {
			if (rtop_hazard)
				report(&s, i, last_thrsw, R(UMUL24_RTOP_LOST),
				       "umul24 reads the rtop of a multop, but a "
				       "thread switch cleared it");
			rtop_valid = false;
			rtop_hazard = false;
		}
		if (prev_ldvary && (sig & (QPU_V3D_SIG_LDUNIF | QPU_V3D_SIG_LDUNIFA)))
			report(&s, i, i - 1, R(LDUNIF_AFTER_LDVARY),
			       "ldunif right after ldvary: both write r5 (rf0) at once");

		/*
		 * Only magic SFU writes, whose result comes back in r4: Mesa's
		 * scheduler keeps only those out of the slots (legacy SFU) and
		 * puts SFU ALU ops there, which write their own destination.
		 */
		if (ip - last_thrsw < 3) {
			if (writes_magic(&in, is_sfu_waddr))
				report(&s, i, last_thrsw, R(SFU_IN_THRSW_SLOT),
				       "magic SFU write in a thrsw delay slot: its "
				       "r4 result lands in the other thread");
			if ((sig & QPU_V3D_SIG_LDVARY) &&
			    (s.gen == QPU_GEN_V3D42 || ip - last_thrsw == 2))
				report(&s, i, last_thrsw, R(LDVARY_IN_THRSW_SLOT),
				       "ldvary in a thrsw delay slot");
		}
		/*
		 * Only magic SFU writes (recip...) count, as Mesa's validator
		 * counts them: the result goes to r4 (4.2); SFU ALU ops write
		 * their own destination, and 7.1's lane moves stall, not break.
		 */
		if (ip - last_sfu < 2) {
			if (s.gen == QPU_GEN_V3D42 &&
			    (reads_r4(&in) || writes_r4(&in, sig)))
				report(&s, i, last_sfu, R(SFU_R4),
				       "r4 used while the SFU result is on its way");
			if (writes_magic(&in, is_sfu_waddr))
				report(&s, i, last_sfu, R(SFU_BUSY),
				       "SFU write right after an SFU write");
		}

		periph = count_magic(&in, is_tmu_waddr) +
			 count_magic(&in, is_sfu_waddr) + sfu_op(&in) +
			 count_magic(&in, is_vpm_waddr) +
			 count_magic(&in, is_tlb_waddr) +
			 count_magic(&in, is_tsy_waddr) +
			 (s.gen == QPU_GEN_V3D42 && (sig & QPU_V3D_SIG_LDTMU)) +
			 !!(sig & QPU_V3D_SIG_LDTLB) + !!(sig & QPU_V3D_SIG_LDTLBU) +
			 !!(sig & QPU_V3D_SIG_LDVPM);
		if (periph > 1)
			report(&s, i, QPU_HAZARD_NO_REF, R(PERIPHERAL_MULTI),
			       "more than one of TMU, SFU, VPM, TLB and sync in "
			       "one instruction");
		if (writes_magic(&in, is_sfu_waddr))
			last_sfu = ip;

		if ((sig & QPU_V3D_SIG_LDTMU) && first_request < 0)
			report(&s, i, QPU_HAZARD_NO_REF, R(TMU_LOAD_EMPTY),
			       "ldtmu with no TMU request written before it");
		/*
		 * The reads after the last request are all of results queued
		 * by then: at least that many FIFO entries. A request in the
		 * same instruction comes after its ldtmu.
		 */
		if ((sig & QPU_V3D_SIG_LDTMU) && first_request >= 0 &&
		    ++reads_since_request == fifo_depth + 1) {
			snprintf(msg, sizeof(msg), "ldtmu number %u since the TMU "
				 "request: the output FIFO holds %u per thread",
				 reads_since_request, fifo_depth);
			report(&s, i, last_request, R(TMU_FIFO_OVERFLOW), msg);
		}
		if (writes_magic(&in, is_tmu_request)) {
			if (first_request < 0)
				first_request = ip;
			last_request = ip;
			reads_since_request = 0;
		}

		if (sig & QPU_V3D_SIG_THRSW) {
			if (ip - last_branch < 4)
				report(&s, i, last_branch, R(THRSW_IN_BRANCH_SLOT),
				       "thrsw in the delay slots of a branch");
			if (last_thrsw_found && thrend < 0) {
				thrend = ip;
				if (!(flags & QPU_HAZARD_PARTIAL) && i + 2 >= n)
					report(&s, i, QPU_HAZARD_NO_REF, R(DELAY_SHORT),
					       "fewer than 2 words after the thread end");
			}
			/* one thread: a thrsw switches to no other thread */
			if (last_thrsw == ip - 1) {
				if (last_thrsw_found && thrend != ip && !one_thread)
					report(&s, i, last_thrsw, R(THRSW_TOO_CLOSE),
					       "a second last-thrsw pair");
				last_thrsw_found = true;
			} else {
				if (ip - last_thrsw < 3 && !one_thread)
					report(&s, i, last_thrsw, R(THRSW_TOO_CLOSE),
					       "thrsw in the delay slots of a thrsw");
				last_thrsw = ip;
			}
		}

		if (thrend >= 0 && ip >= thrend && ip <= thrend + 2) {
			if (thrend_rf_write(s.gen, &in, sig, ip == thrend))
				report(&s, i, thrend, R(THREND_RF_WRITE),
				       s.gen == QPU_GEN_V3D42 ?
				       "register-file write at or after the thread end" :
				       "register-file write the thread end does not allow");
			if (ip == thrend + 2 && in.add.op == QPU_V3D_A_TMUWT)
				report(&s, i, thrend, R(TMUWT_LAST),
				       "tmuwt in the last instruction (GFXH-1625)");
		}

		if (rtop_valid && ip == last_thrsw + 2) {
			rtop_hazard = true;
			rtop_valid = false;
		}
		prev_ldvary = sig & QPU_V3D_SIG_LDVARY;
	}
	if (!s.stop && !(flags & QPU_HAZARD_PARTIAL) && thrend < 0) {
		s.reported = 0;
		report(&s, n ? n - 1 : 0, QPU_HAZARD_NO_REF, R(THREND_MISSING),
		       "no thread end: the program never ends its thread");
	}
	return s.found;
}
