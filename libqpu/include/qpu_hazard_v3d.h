/* SPDX-License-Identifier: MIT */
/*
 * libqpu: the hazard checker for V3D 4.2 (Pi 4) and 7.1 (Pi 5) code. It
 * reads encoded words and reports sequences the hardware does not run as
 * written, with the callback and findings of qpu_hazard.h. It needs no
 * device; qpu-check -m runs it. It keeps no state between calls and may be
 * called from several threads at once.
 *
 * DOC: control flow
 *
 * The scan is linear: a rule that looks back follows the word before,
 * branch targets add no edges. The thread end is the first thrsw after a
 * "last thrsw" (two thrsw in a row), or the only thrsw of a program that
 * has no such pair, as Mesa's validator counts it.
 *
 * DOC: rules
 *
 * Sources: [M] Mesa's src/broadcom/compiler/qpu_validate.c (Mesa 25.0),
 * the checks its compiler runs on every shader; [N] Mesa's
 * src/broadcom/compiler/v3d_compiler.h (MAX_TMU_QUEUE_SIZE) and
 * nir_to_vir.c (ntq_tmu_fifo_overflow()), the TMU pipelining limits its
 * compiler keeps; [Q] this library (facts
 * of the encoding or of the job model). "Within N" counts instructions
 * executed after the earlier one: 1 is the next instruction.
 *
 * branch-in-delay-slot   a branch within 3 after a branch [M]
 * branch-in-thrsw-slot   a branch within 2 after a thrsw [M]
 * thrsw-in-branch-slot   a thrsw within 3 after a branch [M]
 * thrsw-too-close        a thrsw within 2 after a thrsw, other than the
 *                        one right after it that marks the last thrsw, or
 *                        a second such pair; not with THREADS_1 [M]
 * sfu-in-thrsw-slot      (4.2) a magic SFU write (recip...) within 2
 *                        after a thrsw: its r4 result would land in the
 *                        other thread; SFU ALU ops write their own
 *                        destination and may sit there [M]
 * sfu-busy               a magic SFU write (recip...) right after one;
 *                        SFU ALU ops and 7.1's lane moves (shuffle, rot,
 *                        bcastf...) stall instead [M]
 * sfu-r4                 (4.2) r4 read or written right after a magic
 *                        SFU write, whose result is r4 two instructions
 *                        later; SFU ALU ops (exp rf14, rf4) write their
 *                        own destination [M]
 * peripheral-multi       more than one of TMU, SFU, VPM, TLB and sync
 *                        writes, ldtmu (4.2), ldtlb, ldtlbu, ldvpm in one
 *                        instruction [M]
 * ldunif-after-ldvary    ldunif or ldunifa right after ldvary: both write
 *                        r5 (rf0 on 7.1) in the same cycle [M]
 * ldvary-in-thrsw-slot   ldvary within 2 after a thrsw (4.2), or 2 after
 *                        (7.1) [M]
 * thrend-rf-write        4.2: a register-file write in the thread-end
 *                        instruction or its 2 delay slots; 7.1: an ALU
 *                        register-file write in the thread-end
 *                        instruction, or a write to rf2/rf3 in it or its
 *                        delay slots [M]
 * tmuwt-last             tmuwt in the last instruction (hardware erratum
 *                        GFXH-1625) [M]
 * umul24-rtop-lost       umul24 reading the rtop of a multop across a
 *                        thread switch, which clears it [M]
 * tmu-load-empty         ldtmu before any TMU request write: a load with
 *                        nothing queued stalls for ever [Q]
 * tmu-fifo-overflow      more ldtmu after the last TMU request write than
 *                        the TMU output FIFO holds per thread: 16 entries
 *                        shared by the threads of a QPU, 16 / threads each
 *                        (the flags below give the threads; 1 if none
 *                        does). Every result read after the last request
 *                        is queued by then, and the output FIFO cannot
 *                        stall [N]
 * thrend-missing         no thread end (program-end thrsw) [M]
 * delay-short            a branch or the thread end has its delay slots
 *                        past the last word [Q]
 * invalid-word           a word that is no instruction of the
 *                        generation [Q]
 */
#ifndef QPU_HAZARD_V3D_H
#define QPU_HAZARD_V3D_H

#include <stddef.h>
#include <stdint.h>

#include "qpu.h"
#include "qpu_hazard.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Rule ids; new rules go at the end, ids are never reused. */
enum qpu_hazard_v3d_rule {
	QPU_HAZARD_V3D_BRANCH_IN_DELAY_SLOT,
	QPU_HAZARD_V3D_BRANCH_IN_THRSW_SLOT,
	QPU_HAZARD_V3D_THRSW_IN_BRANCH_SLOT,
	QPU_HAZARD_V3D_THRSW_TOO_CLOSE,
	QPU_HAZARD_V3D_SFU_IN_THRSW_SLOT,
	QPU_HAZARD_V3D_SFU_BUSY,
	QPU_HAZARD_V3D_SFU_R4,
	QPU_HAZARD_V3D_PERIPHERAL_MULTI,
	QPU_HAZARD_V3D_LDUNIF_AFTER_LDVARY,
	QPU_HAZARD_V3D_LDVARY_IN_THRSW_SLOT,
	QPU_HAZARD_V3D_THREND_RF_WRITE,
	QPU_HAZARD_V3D_TMUWT_LAST,
	QPU_HAZARD_V3D_UMUL24_RTOP_LOST,
	QPU_HAZARD_V3D_TMU_LOAD_EMPTY,
	QPU_HAZARD_V3D_THREND_MISSING,
	QPU_HAZARD_V3D_DELAY_SHORT,
	QPU_HAZARD_V3D_INVALID_WORD,
	QPU_HAZARD_V3D_TMU_FIFO_OVERFLOW,
	QPU_HAZARD_V3D_NUM_RULES
};

#define QPU_HAZARD_V3D_ALL_RULES \
	(QPU_HAZARD_RULE_BIT(QPU_HAZARD_V3D_NUM_RULES) - 1)

/*
 * Flags of qpu_hazard_v3d_check() besides QPU_HAZARD_PARTIAL: the program
 * runs 1, 2 or 4 threads per QPU (at most one of them). THREADS_1 is a
 * single-threaded dispatch (CSD cfg[5] THREADING clear), where thrsw
 * switches to no other thread: thrsw-too-close does not apply. Without
 * any, the thread count is unknown: thrsw-too-close applies, and
 * tmu-fifo-overflow counts 1 thread. THREADS_1 is new in libqpu 0.5.0:
 * older libraries refuse it (-EINVAL).
 */
#define QPU_HAZARD_V3D_THREADS_2	(1u << 8)
#define QPU_HAZARD_V3D_THREADS_4	(1u << 9)
#define QPU_HAZARD_V3D_THREADS_1	(1u << 10)
#define QPU_HAZARD_V3D_THREADS \
	(QPU_HAZARD_V3D_THREADS_1 | QPU_HAZARD_V3D_THREADS_2 | \
	 QPU_HAZARD_V3D_THREADS_4)

/**
 * qpu_hazard_v3d_check() - check V3D code for hazards
 * @gen: QPU_GEN_V3D42 or QPU_GEN_V3D71
 * @words: the instruction words, the first one at the program's start
 * @n: number of words
 * @rules: a mask of QPU_HAZARD_RULE_BIT()s of enum qpu_hazard_v3d_rule,
 *	or QPU_HAZARD_V3D_ALL_RULES
 * @flags: 0 or QPU_HAZARD_PARTIAL (skip thrend-missing and delay-short),
 *	and at most one of QPU_HAZARD_V3D_THREADS_1, _2 and _4
 * @cb: called per finding (struct qpu_hazard, rule ids of this header),
 *	may be NULL to count only
 * @ctx: passed to @cb
 *
 * Each rule is reported at most once per word, in word order.
 *
 * Return: the number of findings reported, or -EINVAL for an unknown
 * generation, unknown @rules or @flags bits, or NULL @words with @n > 0.
 */
QPU_API int qpu_hazard_v3d_check(enum qpu_gen gen, const uint64_t *words,
				 size_t n, uint64_t rules, unsigned int flags,
				 qpu_hazard_cb cb, void *ctx);

/* The name, one-line summary and id (by name, or -ENOENT) of a rule. */
QPU_API const char *qpu_hazard_v3d_rule_name(unsigned int rule);
QPU_API const char *qpu_hazard_v3d_rule_summary(unsigned int rule);
QPU_API int qpu_hazard_v3d_rule_find(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* QPU_HAZARD_V3D_H */
