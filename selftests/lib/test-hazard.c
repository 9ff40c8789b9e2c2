// SPDX-License-Identifier: MIT
/*
 * test-hazard: the hazard checker. Every rule has a program that breaks it
 * (the finding, its word and the word it refers to) and a program that
 * does the same work correctly (no finding at all); each program is
 * assembler text. Then the rule mask, the API's refusals, the programs of
 * selftests/kmod/qpu_programs.h (the known findings only) and words a
 * seeded generator makes (no crash, findings in word order).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qpu_asm.h"
#include "../kmod/qpu_programs.h"
#include "qpu_hazard.h"
#include "testlib.h"

#define RANDOM_SEED	0x4a2a2d5eed5eed01ull
#define RANDOM_WORDS	200000
#define MAX_FINDINGS	64

/* Flags of the cases below. */
#define P	QPU_HAZARD_PARTIAL	/* a fragment */
#define F	0			/* a whole program */

#define NONE	QPU_HAZARD_NO_REF

struct finding {
	size_t word;
	size_t ref;
	unsigned int rule;
	char msg[200];
};

struct findings {
	size_t n;
	struct finding f[MAX_FINDINGS];
	bool in_order;
	bool bad_name;
};

static int collect(const struct qpu_hazard *h, void *ctx)
{
	struct findings *r = ctx;

	if (r->n && h->word < r->f[r->n - 1].word)
		r->in_order = false;
	if (!h->name || strcmp(h->name, qpu_hazard_rule_name(h->rule)))
		r->bad_name = true;
	if (r->n < MAX_FINDINGS) {
		r->f[r->n].word = h->word;
		r->f[r->n].ref = h->ref;
		r->f[r->n].rule = h->rule;
		snprintf(r->f[r->n].msg, sizeof(r->f[r->n].msg), "%s", h->message);
	}
	r->n++;
	return 0;
}

static struct qpu_asm *as;

/* Assemble @src and check it; returns the finding count, -1 if no words. */
static int run(const char *src, unsigned int flags, uint64_t rules,
	       struct findings *r)
{
	const uint64_t *words;
	size_t n;
	int ret;

	memset(r, 0, sizeof(*r));
	r->in_order = true;
	if (qpu_asm_string(as, "t.qasm", src)) {
		const struct qpu_asm_diag *d;

		if (qpu_asm_diags(as, &d))
			fprintf(stderr, "t.qasm:%u:%u: %s\n", d->line, d->col, d->msg);
		return -1;
	}
	n = qpu_asm_words(as, &words);
	ret = qpu_hazard_check(words, n, rules, flags, collect, r);
	t_checks++;
	if (ret != (int)r->n || !r->in_order || r->bad_name)
		t_report(__FILE__, __LINE__, "return value, order or names of findings");
	return ret;
}

static void dump(const struct findings *r)
{
	for (size_t i = 0; i < r->n && i < MAX_FINDINGS; i++)
		fprintf(stderr, "    word %zu ref %zd: %s [%s]\n", r->f[i].word,
			(ssize_t)r->f[i].ref, r->f[i].msg,
			qpu_hazard_rule_name(r->f[i].rule));
}

/*
 * The rule fires at @word referring to @ref, with @text in its message
 * (NULL: any), and no longer fires once the mask leaves it out.
 */
static void hit(int line, unsigned int rule, size_t word, size_t ref,
		const char *text, unsigned int flags, const char *src)
{
	struct findings r;
	char what[600];
	bool found = false;

	t_checks++;
	if (run(src, flags, QPU_HAZARD_ALL_RULES, &r) < 0) {
		snprintf(what, sizeof(what), "%s: does not assemble",
			 qpu_hazard_rule_name(rule));
		t_report(__FILE__, line, what);
		return;
	}
	for (size_t i = 0; i < r.n && i < MAX_FINDINGS; i++)
		if (r.f[i].rule == rule && r.f[i].word == word && r.f[i].ref == ref &&
		    (!text || strstr(r.f[i].msg, text)))
			found = true;
	if (!found) {
		snprintf(what, sizeof(what), "%s: no finding at word %zu (ref %zd%s%s); got:",
			 qpu_hazard_rule_name(rule), word, (ssize_t)ref,
			 text ? ", text " : "", text ? text : "");
		t_report(__FILE__, line, what);
		dump(&r);
	}

	t_checks++;
	run(src, flags, QPU_HAZARD_ALL_RULES & ~QPU_HAZARD_RULE_BIT(rule), &r);
	for (size_t i = 0; i < r.n && i < MAX_FINDINGS; i++) {
		if (r.f[i].rule == rule) {
			snprintf(what, sizeof(what), "%s: fires while disabled",
				 qpu_hazard_rule_name(rule));
			t_report(__FILE__, line, what);
			break;
		}
	}
}

/* The program is clean: no rule fires. */
static void clean(int line, unsigned int flags, const char *src)
{
	struct findings r;
	int ret = run(src, flags, QPU_HAZARD_ALL_RULES, &r);

	t_checks++;
	if (ret) {
		t_report(__FILE__, line, ret < 0 ? "does not assemble" :
			 "findings in a clean program:");
		dump(&r);
	}
}

#define HIT(rule, word, ref, text, flags, src) \
	hit(__LINE__, QPU_HAZARD_##rule, word, ref, text, flags, src)
#define CLEAN(flags, src)	clean(__LINE__, flags, src)

T_TEST(data_hazards)
{
	HIT(REGFILE_RAW, 1, 0, "reads ra1", P, "mov ra1, r0\nmov r1, ra1\n");
	HIT(REGFILE_RAW, 1, 0, "reads ra2", P, "nop; mov ra2, r0\nmov r1, ra2\n");
	HIT(REGFILE_RAW, 1, 0, "reads rb7", P, "mov rb7, r0\nadd r1, r0, rb7\n");
	CLEAN(P, "mov ra1, r0\nnop\nmov r1, ra1\n");
	CLEAN(P, "mov rb1, r0\nmov r1, ra1\n");		/* the other file */
	CLEAN(P, "mov.never ra1, r0\nmov r1, ra1\n");	/* no write */
	/* the read happens whether or not its result is written */
	HIT(REGFILE_RAW, 1, 0, NULL, P, "mov ra1, r0\nmov.never r1, ra1\n");
	/* the last delay slot of a loop runs right before the loop's head */
	HIT(REGFILE_RAW, 1, 6, "word 6", P,
	    "mov r0, 4\n:loop\nadd r1, ra1, r0\nsub.setf r0, r0, 1\n"
	    "brr.anynz -, r:loop\nnop\nnop\nmov ra1, r1\n");
	CLEAN(P, "mov r0, 4\n:loop\nadd r1, ra1, r0\nsub.setf r0, r0, 1\n"
	      "brr.anynz -, r:loop\nnop\nmov ra1, r1\nnop\n");
	/* a register branch reads ra */
	HIT(REGFILE_RAW, 1, 0, "reads ra3", P, "mov ra3, r0\nbra -, ra3\nnop\nnop\nnop\n");

	HIT(SFU_R4_READ, 2, 0, NULL, P, "mov recip, r0\nnop\nmov r1, r4\n");
	HIT(SFU_R4_READ, 1, 0, NULL, P, "mov exp, r0\nfadd r1, r4, r0\n");
	CLEAN(P, "mov recip, r0\nnop\nnop\nmov r1, r4\n");

	HIT(SFU_BUSY, 2, 0, NULL, P, "mov recip, r0\nnop\nmov exp, r1\n");
	CLEAN(P, "mov recip, r0\nnop\nnop\nmov exp, r1\n");

	HIT(SFU_R4_SIGNAL, 2, 0, "ldtmu0", P,
	    "mov recip, r0\nmov t0s, r1\nnop; ldtmu0\n");
	CLEAN(P, "mov recip, r0\nmov t0s, r1\nnop\nnop; ldtmu0\n");

	HIT(UNIF_ADDR_LATENCY, 2, 0, NULL, P, "mov unif_addr, r0\nnop\nmov r1, unif\n");
	HIT(UNIF_ADDR_LATENCY, 1, 0, NULL, P, "mov unif_addr_rel, r0\nmov r1, unif\n");
	CLEAN(P, "mov unif_addr, r0\nnop\nnop\nmov r1, unif\n");

	HIT(MS_FLAGS_AFTER_TLBZ, 1, 0, NULL, P, "mov tlbz, r0\nmov r1, ms_mask\n");
	CLEAN(P, "mov tlbz, r0\nnop\nnop\nmov r1, ms_mask\n");

	HIT(VPM_READ_LATENCY, 2, 0, NULL, P, "mov vr_setup, r0\nnop\nmov r1, vpm\n");
	CLEAN(P, "mov vr_setup, r0\nnop\nnop\nmov r1, vpm\n");
	CLEAN(P, "mov vw_setup, r0\nmov r1, vpm\n");	/* the write setup */
	/*
	 * The guide: early reads return undefined data; a read that discards
	 * it (GPU_FFT: "mov -, vpm" right after the setup) is harmless, one
	 * whose value lands anywhere (a register, the flags, either unit) is
	 * not.
	 */
	CLEAN(P, "mov vr_setup, r0\nmov -, vpm\n");
	CLEAN(P, "mov vr_setup, r0\nnop; mov -, vpm\n");
	CLEAN(P, "mov vr_setup, r0\nmov.never r1, vpm\n");
	HIT(VPM_READ_LATENCY, 1, 0, NULL, P, "mov vr_setup, r0\nmov r1, vpm\n");
	HIT(VPM_READ_LATENCY, 1, 0, NULL, P, "mov vr_setup, r0\nmov.setf -, vpm\n");
	HIT(VPM_READ_LATENCY, 1, 0, NULL, P, "mov vr_setup, r0\nnop; mov r1, vpm\n");
	HIT(VPM_READ_LATENCY, 2, 0, NULL, P,
	    "mov vr_setup, r0\nnop\nmov -, vpm; mov r2, vpm\n");
	HIT(VPM_READ_LATENCY, 1, 0, NULL, P,
	    "mov vr_setup, r0\nadd r1, r0, vpm\n");
}

T_TEST(tmu)
{
	HIT(TMU_LOAD_WITH_WRITE, 0, NONE, NULL, P, "mov t0s, r0; ldtmu0\n");
	CLEAN(P, "mov t0s, r0\nnop; ldtmu0\n");

	HIT(TMU_LOAD_EMPTY, 0, NONE, "ldtmu0", F, "nop; ldtmu0\nnop; thrend\nnop\nnop\n");
	HIT(TMU_LOAD_EMPTY, 1, NONE, "ldtmu1", F,
	    "mov t0s, r0\nnop; ldtmu1\nnop; ldtmu0\nnop; thrend\nnop\nnop\n");
	HIT(TMU_LOAD_EMPTY, 2, NONE, NULL, F,
	    "mov t1s, r0\nnop; ldtmu1\nnop; ldtmu1\nnop; thrend\nnop\nnop\n");
	CLEAN(F, "mov t0s, r0\nmov t1s, r0\nnop; ldtmu1\nnop; ldtmu0\nnop; thrend\nnop\nnop\n");
	/* a fragment may start with requests queued before it */
	CLEAN(P, "nop; ldtmu0\n");
	/* at a branch target the queue is not known: no guess */
	CLEAN(F, ":top\nnop; ldtmu0\nmov t0s, r0\nbrr.allz -, r:top\nnop\nnop\nnop\n"
	      "nop; thrend\nnop\nnop\n");
	CLEAN(F, "nop\nbrr -, r:l\nnop\nnop\nnop\n:back\nnop; ldtmu0\nnop; thrend\nnop\nnop\n"
	      ":l\nmov t0s, r0\nbrr -, r:back\nnop\nnop\nnop\n");

	HIT(TMU_FIFO_OVERFLOW, 4, NONE, "request 5", P,
	    "mov t0s, r0\nmov t0s, r0\nmov t0s, r0\nmov t0s, r0\nmov t0s, r0\n");
	CLEAN(P, "mov t0s, r0\nmov t0s, r0\nmov t0s, r0\nmov t0s, r0\nnop; ldtmu0\n"
	      "mov t0s, r0\nnop; ldtmu0\nnop; ldtmu0\nnop; ldtmu0\nnop; ldtmu0\n");

	/* the guide: tmu_noswap in the 1st instruction, TMU write in the 4th */
	HIT(TMU_NOSWAP_LATENCY, 2, 0, NULL, P,
	    "mov tmurs, 1\nnop\nmov t0s, r0\nnop; ldtmu0\n");
	CLEAN(P, "mov tmurs, 1\nnop\nnop\nmov t0s, r0\nnop; ldtmu0\n");

	HIT(TMU_NOSWAP_AFTER_USE, 3, 0, NULL, P,
	    "mov t0s, r0\nnop; ldtmu0\nnop\nmov tmurs, 1\n");

	HIT(TMU_COND_WRITE, 0, NONE, NULL, P, "mov.ifz t0s, r0\nnop; ldtmu0\n");
	HIT(TMU_COND_WRITE, 0, NONE, NULL, P, "nop; mov.ifcc t1s, r0\nnop; ldtmu1\n");
	CLEAN(P, "mov.ifz r0, r1\nmov t0s, r0\nnop; ldtmu0\n");
}

T_TEST(rotation)
{
	HIT(ROTATE_ACC_RAW, 1, 0, "rotates r1", P, "mov r1, 1\nnop; fmul r0, r1, r2 >> 1\n");
	HIT(ROTATE_ACC_RAW, 1, 0, "rotates r2", P,
	    "nop; fmul r2, r0, r0\nnop; fmul r0, r1, r2 >> 1\n");
	CLEAN(P, "mov r1, 1\nnop\nnop; fmul r0, r1, r2 >> 1\n");

	HIT(ROTATE_R5_RAW, 1, 0, NULL, P, "mov r5rep, r0\nnop; fmul r0, r1, r2 << r5\n");
	CLEAN(P, "mov r5rep, r0\nnop\nnop; fmul r0, r1, r2 << r5\n");

	HIT(ROTATE_NON_ACC, 0, NONE, NULL, P, "nop; fmul r0, ra1, r1 >> 1\n");
	HIT(ROTATE_NON_ACC, 0, NONE, NULL, P, "nop; fmul r0, r1, r4 >> 3\n");
	CLEAN(P, "nop; fmul r0, r1, r2 >> 1\nnop; v8min r3, r1, r1 >> 15\n");

	/* "nop; fmul r0, r1, r2 >> 1" with its second mul input set to regfile B */
	HIT(ROTATE_IMM_READ, 0, NONE, "value -15", P, ".long 0xd00049e0209f100f\n");
	CLEAN(P, "add r0, r1, -15\n");
}

T_TEST(flow)
{
	HIT(BRANCH_IN_DELAY_SLOT, 2, 0, "branch at word 0", P,
	    "brr -, 64\nnop\nbrr -, 64\nnop\nnop\nnop\n");
	HIT(BRANCH_IN_DELAY_SLOT, 1, 0, "thrend at word 0", P,
	    "nop; thrend\nbrr -, 64\nnop\nnop\nnop\n");
	CLEAN(P, "brr -, 64\nnop\nnop\nnop\nbrr -, 64\nnop\nnop\nnop\n");

	HIT(BRANCH_TARGET, 0, NONE, "leaves the program", F,
	    "brr -, 800\nnop\nnop\nnop\nnop; thrend\nnop\nnop\n");
	HIT(BRANCH_TARGET, 0, NONE, "not a multiple of 8", F,
	    "brr -, 4\nnop\nnop\nnop\nnop; thrend\nnop\nnop\n");
	HIT(BRANCH_TARGET, 0, NONE, NULL, F,
	    "brr -, -40\nnop\nnop\nnop\nnop; thrend\nnop\nnop\n");
	CLEAN(F, "brr -, 0\nnop\nnop\nnop\nnop; thrend\nnop\nnop\n");
	CLEAN(P, "brr -, 800\nnop\nnop\nnop\n");	/* a fragment may jump out */

	HIT(BRANCH_DELAY_SHORT, 3, NONE, "only 1 of the 3", F,
	    "nop; thrend\nnop\nnop\nbrr -, -32\nnop\n");
	CLEAN(F, "nop; thrend\nnop\nnop\nbrr -, -32\nnop\nnop\nnop\n");

	HIT(THREND_IN_DELAY_SLOT, 1, 0, "branch at word 0", P,
	    "brr -, 64\nnop; thrend\nnop\nnop\n");
	HIT(THREND_IN_DELAY_SLOT, 1, 0, "thrend at word 0", P,
	    "nop; thrend\nnop; thrend\nnop\nnop\n");
	CLEAN(F, "nop; thrend\nnop\nnop\n");

	HIT(THREND_REGFILE_WRITE, 0, NONE, "writes ra1", P, "mov ra1, r0; thrend\nnop\nnop\n");
	HIT(THREND_REGFILE_WRITE, 0, NONE, "writes rb2", P, "mov rb2, r0; thrend\nnop\nnop\n");
	CLEAN(F, "mov r0, r1; thrend\nnop\nnop\n");

	HIT(THREND_IO, 1, 0, "reads unif", P, "nop; thrend\nmov r0, unif\nnop\n");
	HIT(THREND_IO, 2, 0, "writes vpm", P, "nop; thrend\nnop\nmov vpm, r0\n");
	HIT(THREND_IO, 2, 0, "writes vw_setup", P, "nop; thrend\nnop\nmov vw_setup, r0\n");
	HIT(THREND_IO, 0, 0, "reads vary", P, "mov r0, vary; thrend\nnop\nnop\n");
	HIT(THREND_IO, 1, 0, "reads vw_wait", P, "nop; thrend\nmov -, vw_wait\nnop\n");
	CLEAN(F, "mov r0, unif\nmov -, vw_wait\nnop; thrend\nnop\nnop\n");

	HIT(THREND_R14, 2, 0, "ra14", P, "nop; thrend\nnop\nmov r0, ra14\n");
	HIT(THREND_R14, 1, 0, "rb14", P, "nop; thrend\nmov rb14, r0\nnop\n");
	CLEAN(F, "mov r0, ra14\nnop; thrend\nnop\nnop\n");

	HIT(THREND_TLBZ, 2, 0, NULL, P, "nop; thrend\nnop\nmov tlbz, r0\n");
	CLEAN(P, "nop; thrend\nmov tlbz, r0\nnop\n");

	HIT(THREND_MISSING, 4, NONE, NULL, F, "nop\nbrr -, -32\nnop\nnop\nnop\n");
	CLEAN(F, "nop; thrend\nnop\nnop\n");

	HIT(RUNS_OFF_END, 0, NONE, "only 1 of its 2", F, "nop; thrend\nnop\n");
	HIT(RUNS_OFF_END, 1, NONE, "none of its 2", F, "nop\nnop; thrend\n");
	/* the loop's branch is conditional: its last slot falls through */
	HIT(RUNS_OFF_END, 7, NONE, "past the last word", F,
	    "nop; thrend\nnop\nnop\n:x\nnop\nbrr.allz -, r:x\nnop\nnop\nnop\n");
	CLEAN(F, "nop; thrend\nnop\nnop\nnop\nnop\n");	/* dead words at the end */
	CLEAN(F, "brr -, 8\nnop\nnop\nnop\nnop\nnop; thrend\nnop\nnop\n");

	HIT(SBWAIT_AT_START, 0, NONE, "instruction 1", F, "nop; sbwait\nnop; thrend\nnop\nnop\n");
	HIT(SBWAIT_AT_START, 1, NONE, "instruction 2", F, "nop\nmov tlbc, r0\nnop; thrend\nnop\nnop\n");
	CLEAN(F, "nop\nnop\nnop; sbwait\nnop; thrend\nnop\nnop\n");
}

T_TEST(peripherals)
{
	HIT(SAME_DEST, 0, NONE, "write r0", P, "add r0, r1, r2; fmul r0, r1, r2\n");
	HIT(SAME_DEST, 0, NONE, "write r5", P, "add r5quad, r1, r2; fmul r5rep, r1, r2\n");
	HIT(SAME_DEST, 0, NONE, "write tmurs", P, "add tmurs, r1, r2; fmul tmurs, r1, r2\n");
	CLEAN(P, "add.ifz r0, r1, r2; fmul.ifnz r0, r1, r2\n");
	CLEAN(P, "add ra1, r1, r2; fmul rb1, r1, r2\n");
	CLEAN(P, "add vr_setup, r1, r2; fmul r0, r1, r2\n");

	HIT(PERIPHERAL_MULTI, 0, NONE, "TMU write, SFU write", P,
	    "add t0s, r0, r1; fmul recip, r1, r1\nnop; ldtmu0\n");
	HIT(PERIPHERAL_MULTI, 0, NONE, "SFU write, mutex read", P, "mov recip, mutex\n");
	HIT(PERIPHERAL_MULTI, 1, NONE, "TMU write, TMU read", P,
	    "mov t0s, r0\nmov t1s, r1; ldtmu0\nnop; ldtmu1\n");
	CLEAN(P, "add t0s, r0, r1; fmul r2, r1, r1\nnop; ldtmu0\nmov r0, mutex\nmov mutex, r0\n"
	      "sacq -, 1\nsrel -, 1\n");

	/* "nop; fmul vpm, r0, r1" with the mul pack .8a (pm set) */
	HIT(PACK_PERIPHERAL, 0, NONE, "into vpm", P, ".long 0x114049f0209e7001\n");
	CLEAN(P, "nop; fmul vpm, r0, r1\n");

	HIT(VPM_SETUP_CONFLICT, 0, NONE, "vr_setup and vw_setup", P,
	    "add vr_setup, r0, r1; fmul vw_setup, r0, r1\n");
	HIT(VPM_SETUP_CONFLICT, 0, NONE, "writes vpm", P,
	    "add vw_setup, r0, r1; fmul vpm, r0, r1\n");
	HIT(VPM_SETUP_CONFLICT, 0, NONE, "reads vpm", P, "mov vr_setup, vpm\n");
	CLEAN(P, "mov vr_setup, r0\nmov vw_setup, r1\nnop\nmov vpm, vpm\n");

	HIT(VPM_READ_DMA_PENDING, 3, 0, NULL, P,
	    "mov vr_addr, r0\nnop\nnop\nmov r1, vpm\n");
	CLEAN(P, "mov vr_addr, r0\nmov -, vr_wait\nmov r1, vpm\n");

	HIT(DMA_WAIT_MISSING, 1, 0, NULL, F, "mov vw_addr, r0\nnop; thrend\nnop\nnop\n");
	CLEAN(F, "mov vw_addr, r0\nmov -, vw_wait\nnop; thrend\nnop\nnop\n");
}

T_TEST(encodings)
{
	HIT(RESERVED_ENCODING, 0, NONE, "load-immediate mode", P, ".long 0xe400000000000000\n");
	/* "add r0, r1, r2" with add opcode 9 */
	HIT(RESERVED_ENCODING, 0, NONE, "add opcode", P, ".long 0x10020827099e7280\n");
	/* "fmul r0, r1, r2" with pm set and mul pack 1 */
	HIT(RESERVED_ENCODING, 0, NONE, "mul pack mode", P, ".long 0x111049e0209e700a\n");
	/* "brr -, 64" with condition 12 */
	HIT(RESERVED_ENCODING, 0, NONE, "branch condition", P,
	    ".long 0xf0c809e700000040\nnop\nnop\nnop\n");
	CLEAN(P, "ldi r0, 0x12345678\nadd r0, r1, r2\n");

	/* "sacq -, 3" with bit 5 set */
	HIT(UNUSED_FIELD, 0, NONE, "bits 31:5", P, ".long 0xe80009e700000033\n");
	/* "brr -, 64" with bit 56 set */
	HIT(UNUSED_FIELD, 0, NONE, "bits 59:56", P,
	    ".long 0xf1f809e700000040\nnop\nnop\nnop\n");
	/* "brr -, 64" with raddr_a 1 and no register */
	HIT(UNUSED_FIELD, 0, NONE, "sets the flags", P,
	    ".long 0xf0f829e700000040\nnop\nnop\nnop\n");
	CLEAN(P, "sacq -, 3\nbrr -, 64\nnop\nnop\nnop\n");

	/* "mov r0, unif" reading regfile A address 33 */
	HIT(RESERVED_REGISTER, 0, NONE, "reads ra33", P, ".long 0x1002082715867d80\n");
	/* "mov r0, rb1" reading regfile B address 33 */
	HIT(RESERVED_REGISTER, 0, NONE, "reads rb33", P, ".long 0x10020827159e1fc0\n");
	CLEAN(P, "mov r0, unif\nmov r0, elem_num\n");
}

/* qpu_programs.h: the programs every device test runs. */
T_TEST(golden)
{
	static const struct {
		const char *name;
		const uint64_t *words;
		size_t n;
		int findings;
		int rule;
	} progs[] = {
#define PROG(p, count, rule) { #p, p, T_ARRAY_SIZE(p), count, rule }
		PROG(qpu_prog_end, 0, -1),
		/* built never to end: the finding is the point of the program */
		PROG(qpu_prog_loop, 1, QPU_HAZARD_THREND_MISSING),
		PROG(qpu_prog_tmu_read, 0, -1),
		PROG(qpu_prog_host_irq, 0, -1),
		PROG(qpu_prog_vector_add, 0, -1),
#undef PROG
	};

	for (size_t i = 0; i < T_ARRAY_SIZE(progs); i++) {
		struct findings r = { .in_order = true };
		int ret = qpu_hazard_check(progs[i].words, progs[i].n,
					   QPU_HAZARD_ALL_RULES, 0, collect, &r);

		t_checks++;
		if (ret != progs[i].findings ||
		    (ret == 1 && (int)r.f[0].rule != progs[i].rule)) {
			char what[200];

			snprintf(what, sizeof(what), "%s: %d findings, expected %d",
				 progs[i].name, ret, progs[i].findings);
			t_report(__FILE__, __LINE__, what);
			dump(&r);
		}
	}
}

static int count_only(const struct qpu_hazard *h, void *ctx)
{
	return ++*(int *)ctx >= 2;	/* stop at the second finding */
}

T_TEST(api)
{
	const uint64_t nop = QPU_PROG_NOP, bad[3] = { 0xe400000000000000ull,
		0xe400000000000000ull, 0xe400000000000000ull };
	int calls = 0;

	T_CHECK(qpu_hazard_check(NULL, 1, QPU_HAZARD_ALL_RULES, 0, NULL, NULL) == -EINVAL);
	T_CHECK(qpu_hazard_check(&nop, 1, QPU_HAZARD_ALL_RULES << 1, 0, NULL, NULL) == -EINVAL);
	T_CHECK(qpu_hazard_check(&nop, 1, QPU_HAZARD_ALL_RULES, 0x80, NULL, NULL) == -EINVAL);
	T_CHECK(qpu_hazard_check(NULL, 0, QPU_HAZARD_ALL_RULES, 0, NULL, NULL) == 0);
	/* no callback: count only; thrend-missing and runs-off-end */
	T_CHECK(qpu_hazard_check(&nop, 1, QPU_HAZARD_ALL_RULES, 0, NULL, NULL) == 2);
	T_CHECK(qpu_hazard_check(&nop, 1, 0, 0, NULL, NULL) == 0);
	T_CHECK(qpu_hazard_check(&nop, 1, QPU_HAZARD_ALL_RULES, QPU_HAZARD_PARTIAL,
				 NULL, NULL) == 0);
	/* a callback returning non-zero stops the scan */
	T_CHECK(qpu_hazard_check(bad, 3, QPU_HAZARD_ALL_RULES, QPU_HAZARD_PARTIAL,
				 count_only, &calls) == 2);
	T_CHECK(calls == 2);

	T_EQ_STR("regfile-raw", qpu_hazard_rule_name(QPU_HAZARD_REGFILE_RAW));
	T_CHECK(qpu_hazard_rule_name(QPU_HAZARD_NUM_RULES) == NULL);
	T_CHECK(qpu_hazard_rule_summary(QPU_HAZARD_NUM_RULES) == NULL);
	T_CHECK(qpu_hazard_rule_find("no-such-rule") == -ENOENT);
	T_CHECK(qpu_hazard_rule_find(NULL) == -ENOENT);
	for (unsigned int rule = 0; rule < QPU_HAZARD_NUM_RULES; rule++) {
		const char *name = qpu_hazard_rule_name(rule);

		T_CHECK(name && qpu_hazard_rule_find(name) == (int)rule);
		T_CHECK(qpu_hazard_rule_summary(rule) && *qpu_hazard_rule_summary(rule));
	}
}

/* Random words: no crash, no out-of-range word or ref, word order kept. */
static int check_random(const struct qpu_hazard *h, void *ctx)
{
	size_t *state = ctx;	/* [0] words, [1] last word, [2] bad */

	if (h->word >= state[0] || (h->ref != NONE && h->ref >= state[0]) ||
	    h->word < state[1] || !h->message || !*h->message)
		state[2]++;
	state[1] = h->word;
	return 0;
}

T_TEST(random)
{
	uint64_t state = RANDOM_SEED, *words = malloc(RANDOM_WORDS * sizeof(*words));
	size_t ctx[3] = { RANDOM_WORDS, 0, 0 };
	int ret;

	T_CHECK(words != NULL);
	if (!words)
		return;
	for (size_t i = 0; i < RANDOM_WORDS; i++)
		words[i] = t_rand(&state);
	ret = qpu_hazard_check(words, RANDOM_WORDS, QPU_HAZARD_ALL_RULES, 0,
			       check_random, ctx);
	T_CHECK(ret > 0);
	T_CHECK(ctx[2] == 0);
	printf("random: %d findings in %d words\n", ret, RANDOM_WORDS);
	free(words);
}

static int make_asm(void)
{
	as = qpu_asm_new();
	if (!as) {
		perror("qpu_asm_new");
		return T_EXIT_FAIL;
	}
	return T_EXIT_PASS;
}

static void free_asm(void)
{
	qpu_asm_free(as);
}

T_MAIN(.setup = make_asm, .teardown = free_asm)
