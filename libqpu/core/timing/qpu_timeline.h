/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * A shared unit's capacity over time (SDRAM bandwidth, a TMU, a DMA
 * engine) for the timing models of both generations: buckets of
 * 1 << QPU_TIMELINE_SHIFT cycles, each with room for a number of units.
 * A request books the first room from its cycle on, so one made later in
 * emulation but earlier in modelled time still goes before those booked
 * after it, which a single "busy until" cycle cannot do. Freestanding.
 */
#ifndef QPU_TIMELINE_H
#define QPU_TIMELINE_H

#include "qpu_types.h"

#define QPU_TIMELINE_BUCKETS	4096	/* a power of 2: a ring */
#define QPU_TIMELINE_SHIFT	6	/* a bucket is 1 << QPU_TIMELINE_SHIFT cycles */

struct qpu_timeline {
	u64 base;		/* first bucket the ring holds */
	u32 cap;		/* units a bucket holds */
	u32 used[QPU_TIMELINE_BUCKETS];
};

/* Empty, with room for @cap units a bucket (0 counts as 1). */
void qpu_timeline_init(struct qpu_timeline *tl, u32 cap);

/*
 * Book @amount units from cycle @t on, in the first buckets with room:
 * the cycle the last unit is done. Buckets more than half the ring behind
 * the latest booking are forgotten.
 */
u64 qpu_timeline_book(struct qpu_timeline *tl, u64 t, u64 amount);

#endif /* QPU_TIMELINE_H */
