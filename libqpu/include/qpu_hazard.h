/* SPDX-License-Identifier: MIT */
/*
 * libqpu: the hazard checker. It reads encoded VideoCore IV QPU words and
 * reports sequences the hardware does not run as written: pipeline
 * hazards, peripheral misuse, broken branch and thread-end delay slots,
 * reserved encodings. It needs no device; the assembler (qpu-as -W) and
 * qpu-check run it.
 *
 * Conventions are those of qpu.h. The checker keeps no state between
 * calls and may be called from several threads at once.
 *
 * DOC: control flow
 * The scan is linear, with two refinements. Rules that look back one or
 * two instructions follow every way into a word: the word before it,
 * unless that one ends the flow (the last delay slot of an unconditional
 * branch, the second delay slot of thrend), and the last delay slot of
 * every relative branch that targets it. Rules that carry state (TMU
 * requests, DMA in flight) forget it at each branch target and after
 * each end of flow, so they never guess across a join. Absolute and
 * register branches have unknown targets and add no edges.
 *
 * DOC: rules
 * Sources: [G] the VideoCore IV 3D Architecture Reference Guide, "Summary
 * of Instruction Restrictions" and its register and VPM sections; [V]
 * vc4asm's validator; [P] PyVideoCore's sanity check; [A] vc4asm's
 * addendum to the guide; [Q] this library (facts of the encoding or of
 * the job model). "Within N" counts instructions executed after the
 * earlier one: 1 is the next instruction.
 *
 * regfile-raw           a regfile A/B location read by the instruction
 *                       after the one that wrote it [G V P]
 * sfu-r4-read           r4 read within 2 after an SFU write [G P]
 * sfu-busy              SFU write within 2 after an SFU write [G V]
 * sfu-r4-signal         ldtmu/TLB load signal (writes r4) within 2 after
 *                       an SFU write [G V P]
 * tmu-load-with-write   ldtmu0/1 and a TMU register write in one
 *                       instruction [P]
 * tmu-load-empty        ldtmu with no request queued on that TMU [Q]
 * tmu-fifo-overflow     a fifth request queued on one TMU [A]
 * tmu-noswap-latency    TMU write within 2 after a tmu_noswap write [G]
 *                       (the guide's example allows a TMU write in the
 *                       third instruction after; vc4asm and Mesa flag
 *                       that one too)
 * tmu-noswap-after-use  tmu_noswap written after the TMUs were used [V]
 * tmu-cond-write        conditional write to t0s/t1s [V]
 * rotate-acc-raw        mul rotation of an accumulator written by the
 *                       previous instruction [G V P]
 * rotate-r5-raw         rotation by r5 right after an r5 write [G V P]
 * rotate-non-acc        rotation with a mul input that is not r0..r3:
 *                       only per quad, not a full rotation [G V A]
 * rotate-imm-read       an ALU input reads a rotation code as a small
 *                       immediate value (-16..-1) [A]
 * branch-in-delay-slot  a branch in the 3 delay slots of a branch, or in
 *                       the 2 of a thrend [G V P]
 * branch-target         relative target outside the program or not on a
 *                       word boundary [Q]
 * branch-delay-short    fewer than 3 words after a branch [P]
 * thrend-in-delay-slot  thrend in the delay slots of a branch or thrend [G]
 * thrend-regfile-write  the thrend instruction writes regfile A or B [G V]
 * thrend-io             thrend or its 2 delay slots read uniforms or
 *                       varyings or touch VPM, VDR or VDW [G V]
 * thrend-r14            thrend or its delay slots use ra14/rb14 [G V]
 * thrend-tlbz           the last delay slot of thrend writes tlbz [G V]
 * thrend-missing        no thrend anywhere [Q]
 * runs-off-end          execution can run past the last word [Q]
 * same-dest             both ALUs write the same register or peripheral
 *                       and their conditions are not complementary [V P]
 * peripheral-multi      more than one of TMU write, TMU read, TLB write,
 *                       TLB read, SFU write, mutex read, semaphore in one
 *                       instruction [G V]
 * pack-peripheral       partial (8a..8d) mul pack into a peripheral [V]
 * unif-addr-latency     uniform read within 2 after a unif_addr write [G V]
 * ms-flags-after-tlbz   ms_flags read within 2 after a tlbz write [G V]
 * sbwait-at-start       scoreboard wait or TLB access in the first two
 *                       instructions [G V]
 * vpm-read-latency      vpm read within 2 after a vr_setup write whose
 *                       value is used (an ALU op writes it or sets flags
 *                       from it): "read data is available to read after
 *                       a minimum latency of three QPU instructions", and
 *                       "reads made too early ... will return immediately
 *                       with undefined data" (the guide, section 7, page
 *                       56). A read that discards its value (GPU_FFT's
 *                       "mov -, vpm" one instruction after the setup, 53
 *                       times in its shaders) is left alone: its data
 *                       does not matter, and it consumes a vector as any
 *                       read does. The emulator returns the set-up
 *                       vector to an early read: "undefined" allows it,
 *                       and vc4asm's addendum measured that early reads
 *                       stall and return the right data on a Pi [G]
 * vpm-setup-conflict    vr_setup with vw_setup, or a setup with a VPM
 *                       access of the same direction, in one
 *                       instruction [V]
 * vpm-read-dma-pending  vpm read while a DMA load started by vr_addr has
 *                       not been waited for (vr_wait) [Q]
 * dma-wait-missing      thrend while a DMA store started by vw_addr has
 *                       not been waited for (vw_wait): the job may end
 *                       before memory is written [Q]
 * reserved-encoding     reserved opcode, mul pack, branch condition or
 *                       load-immediate mode [G Q]
 * unused-field          semaphore bits 31:5, branch bits 59:56, or a
 *                       branch raddr_a without reg (sets flags) [G A]
 * reserved-register     a read or write address with no function [G]
 *
 * Signal conflicts (a signal with a small immediate, ldtmu with an
 * immediate) and a small immediate with a regfile B read cannot be
 * encoded in one word: the assembler refuses them, so no rule is needed.
 */
#ifndef QPU_HAZARD_H
#define QPU_HAZARD_H

#include <stddef.h>
#include <stdint.h>

#include "qpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Rule ids; new rules go at the end, ids are never reused. */
enum qpu_hazard_rule {
	QPU_HAZARD_REGFILE_RAW,
	QPU_HAZARD_SFU_R4_READ,
	QPU_HAZARD_SFU_BUSY,
	QPU_HAZARD_SFU_R4_SIGNAL,
	QPU_HAZARD_TMU_LOAD_WITH_WRITE,
	QPU_HAZARD_TMU_LOAD_EMPTY,
	QPU_HAZARD_TMU_FIFO_OVERFLOW,
	QPU_HAZARD_TMU_NOSWAP_LATENCY,
	QPU_HAZARD_TMU_NOSWAP_AFTER_USE,
	QPU_HAZARD_TMU_COND_WRITE,
	QPU_HAZARD_ROTATE_ACC_RAW,
	QPU_HAZARD_ROTATE_R5_RAW,
	QPU_HAZARD_ROTATE_NON_ACC,
	QPU_HAZARD_ROTATE_IMM_READ,
	QPU_HAZARD_BRANCH_IN_DELAY_SLOT,
	QPU_HAZARD_BRANCH_TARGET,
	QPU_HAZARD_BRANCH_DELAY_SHORT,
	QPU_HAZARD_THREND_IN_DELAY_SLOT,
	QPU_HAZARD_THREND_REGFILE_WRITE,
	QPU_HAZARD_THREND_IO,
	QPU_HAZARD_THREND_R14,
	QPU_HAZARD_THREND_TLBZ,
	QPU_HAZARD_THREND_MISSING,
	QPU_HAZARD_RUNS_OFF_END,
	QPU_HAZARD_SAME_DEST,
	QPU_HAZARD_PERIPHERAL_MULTI,
	QPU_HAZARD_PACK_PERIPHERAL,
	QPU_HAZARD_UNIF_ADDR_LATENCY,
	QPU_HAZARD_MS_FLAGS_AFTER_TLBZ,
	QPU_HAZARD_SBWAIT_AT_START,
	QPU_HAZARD_VPM_READ_LATENCY,
	QPU_HAZARD_VPM_SETUP_CONFLICT,
	QPU_HAZARD_VPM_READ_DMA_PENDING,
	QPU_HAZARD_DMA_WAIT_MISSING,
	QPU_HAZARD_RESERVED_ENCODING,
	QPU_HAZARD_UNUSED_FIELD,
	QPU_HAZARD_RESERVED_REGISTER,
	QPU_HAZARD_NUM_RULES
};

/* Rule masks for qpu_hazard_check(). */
#define QPU_HAZARD_RULE_BIT(rule)	(UINT64_C(1) << (rule))
#define QPU_HAZARD_ALL_RULES		(QPU_HAZARD_RULE_BIT(QPU_HAZARD_NUM_RULES) - 1)

/*
 * Flags of qpu_hazard_check(). QPU_HAZARD_PARTIAL: the words are a piece
 * of a program, not all of it; skip the rules about its start and end
 * (sbwait-at-start, thrend-missing, runs-off-end, branch-delay-short,
 * branch-target) and assume nothing about the TMU queues at its start.
 */
#define QPU_HAZARD_PARTIAL		(1u << 0)

/* qpu_hazard.ref when no other word is involved. */
#define QPU_HAZARD_NO_REF		((size_t)-1)

/**
 * struct qpu_hazard - one finding
 * @word: index of the word that breaks the rule (the later one)
 * @ref: the earlier word it conflicts with, or QPU_HAZARD_NO_REF
 * @rule: an enum qpu_hazard_rule value
 * @name: the rule's name, as qpu_hazard_rule_name() gives it
 * @message: one line, no location, no trailing period
 *
 * The strings are valid during the callback only.
 */
struct qpu_hazard {
	size_t word;
	size_t ref;
	unsigned int rule;
	const char *name;
	const char *message;
};

/* Called once per finding, in word order; return non-zero to stop. */
typedef int (*qpu_hazard_cb)(const struct qpu_hazard *hazard, void *ctx);

/**
 * qpu_hazard_check() - check a program for hazards
 * @words: the instruction words, the first one at the program's start
 * @n: number of words
 * @rules: the rules to apply, a mask of QPU_HAZARD_RULE_BIT()s, or
 *	QPU_HAZARD_ALL_RULES
 * @flags: 0 or QPU_HAZARD_PARTIAL
 * @cb: called per finding, may be NULL to count only
 * @ctx: passed to @cb
 *
 * Each rule is reported at most once per word.
 *
 * Return: the number of findings reported (up to and including the one
 * whose callback stopped the scan), or -EINVAL for unknown @rules or
 * @flags bits or NULL @words with @n > 0, -ENOMEM.
 */
QPU_API int qpu_hazard_check(const uint64_t *words, size_t n, uint64_t rules,
			     unsigned int flags, qpu_hazard_cb cb, void *ctx);

/**
 * qpu_hazard_rule_name() - the name of a rule, such as "regfile-raw"
 * @rule: an enum qpu_hazard_rule value
 *
 * Return: a static string, or NULL for an unknown rule.
 */
QPU_API const char *qpu_hazard_rule_name(unsigned int rule);

/**
 * qpu_hazard_rule_summary() - one line saying what a rule finds
 * @rule: an enum qpu_hazard_rule value
 *
 * Return: a static string, or NULL for an unknown rule.
 */
QPU_API const char *qpu_hazard_rule_summary(unsigned int rule);

/**
 * qpu_hazard_rule_find() - look a rule up by name
 * @name: a name as qpu_hazard_rule_name() gives it
 *
 * Return: the rule id, or -ENOENT.
 */
QPU_API int qpu_hazard_rule_find(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* QPU_HAZARD_H */
