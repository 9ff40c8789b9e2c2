// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * The emulator's condition flags: Z, N and C per lane, kept lazily (see
 * "DOC: lazy flags"), and what reads them: the write conditions of the
 * ALUs and load immediates, and branch conditions.
 */
#include "qpu_emu_internal.h"

/*
 * DOC: lazy flags
 * Programs set the flags far more often than they read them (an sgemm
 * written elsewhere sets them in every fadd; only the loop's branch reads
 * the last sub's). So set_flags() keeps the setf's result vector, lanes,
 * carries and kind, and Z and N are computed from them only when a
 * condition, a branch or qpu_emu_get_flags() asks (qpu_emu_flags_of()). A setf of
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
void qpu_emu_flags_of(const struct qpu_emu_qpu *q, u16 *z, u16 *n, u16 *c)
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
void qpu_emu_flags_resolve(struct qpu_emu_qpu *q)
{
	if (!q->flag_mask)
		return;
	qpu_emu_flags_of(q, &q->zf, &q->nf, &q->cf);
	q->flag_mask = 0;
}

/* Lanes whose write condition @cond holds. */
u16 qpu_emu_cond_mask(struct qpu_emu_qpu *q, unsigned int cond)
{
	if (cond == QPU_ISA_COND_NEVER)
		return 0;
	if (cond == QPU_ISA_COND_ALWAYS)
		return ALL_LANES;
	qpu_emu_flags_resolve(q);
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
 * A Z or N branch condition (@cond below 8) read straight from a pending
 * setf of all 16 lanes, a loop counter's sub.setf mostly: whether any or
 * all of its results are zero (+-0 for a float) or negative, with no lane
 * mask built and nothing resolved. qpu_emu_branch_taken()'s answer; only
 * with predecoding, since without it no setf stays pending.
 */
static bool branch_on_pending(const struct qpu_emu_qpu *q, unsigned int cond)
{
	u32 zmask = q->flag_float ? 0x7fffffffu : 0xffffffffu;
	u32 bits = 0, signs_or = 0, signs_and = ~0u, zero = 0;
	bool any, all;
	unsigned int i;

	for (i = 0; i < LANES; i++) {
		u32 v = q->flag_v[i];

		bits |= v & zmask;
		zero |= !(v & zmask);
		signs_or |= v;
		signs_and &= v;
	}
	if (cond < 4) {
		any = zero;
		all = !bits;
	} else {
		any = signs_or >> 31;
		all = signs_and >> 31;
	}
	if (cond & 1)	/* the "clear" forms: none set, not all set */
		return !(cond & 2 ? all : any);
	return cond & 2 ? any : all;
}

bool qpu_emu_branch_taken(struct qpu_emu_qpu *q, unsigned int cond)
{
	u16 f;

	if (cond == QPU_ISA_BR_ALWAYS)
		return true;
	if (q->flag_mask == ALL_LANES && cond < 8)
		return branch_on_pending(q, cond);
	qpu_emu_flags_resolve(q);
	f = cond < 4 ? q->zf : cond < 8 ? q->nf : q->cf;
	if (cond & 1)
		f = ~f & ALL_LANES;	/* the "clear" forms */
	if (cond & 2)
		return f != 0;		/* any */
	return f == ALL_LANES;		/* all */
}
