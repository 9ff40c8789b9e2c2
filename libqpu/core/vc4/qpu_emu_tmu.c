// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * The emulator's TMUs as direct memory lookups: a write to t0s/t1s queues
 * one request of 16 addresses, which completes at once into the QPU's
 * FIFO for that TMU (4 deep); ldtmu0/1 moves the oldest result into r4.
 * Timing only counts (stall_tmu): see "DOC: modelling choices" in qpu_emu.c.
 */
#include "qpu_emu_internal.h"

/*
 * The lookups of a request of all 16 lanes at once when the QPU's TMU
 * window holds every address (one test of all offsets, then the loads),
 * as tmu_lookup_lanes() would make them: false, and nothing done, for
 * fewer lanes, when one address is outside, after a fault, or with
 * predecoding off (the reference test-emu-fuzz compares with).
 */
static bool tmu_lookup_window(struct qpu_emu_exec *x, u32 *slot,
			      const u32 *v, u16 mask)
{
	const struct qpu_emu_win *w = &x->q->twin;
	u32 off[LANES], base = w->addr, last = w->len - 4, out = 0;
	const u8 *p = w->p;
	unsigned int i;

	if (mask != ALL_LANES || x->fault || x->emu->no_predecode ||
	    w->len < 4)
		return false;
	for (i = 0; i < LANES; i++) {
		off[i] = (v[i] & ~3u) - base;
		out |= off[i] > last;
	}
	if (out)
		return false;
	for (i = 0; i < LANES; i++)
		slot[i] = rd32(p + off[i]);
	x->emu->stats.tmu_bytes += LANES * 4;
	return true;
}

/* The lookups one lane at a time, each through win_mem(); false on a fault. */
static bool tmu_lookup_lanes(struct qpu_emu_exec *x, u32 *slot, const u32 *v,
			     u16 mask)
{
	unsigned int i;

	for (i = 0; i < LANES; i++) {
		const u8 *p;

		slot[i] = 0;
		if (!(mask & (1u << i)))
			continue;
		p = win_mem(x, &x->q->twin, v[i] & ~3u, QPU_MEM_TMU);
		if (!p)
			return false;
		slot[i] = rd32(p);
		x->emu->stats.tmu_bytes += 4;
	}
	return true;
}

void qpu_emu_tmu_request(struct qpu_emu_exec *x, unsigned int t, const u32 *v,
			 u16 mask)
{
	struct qpu_emu_qpu *q = x->q;
	u32 *slot;

	if (q->tmu_count[t] >= TMU_FIFO_DEPTH) {
		qpu_emu_set_fault(x, QPU_FAULT_REASON_INSTRUCTION, q->pc,
				  QPU_MEM_TMU);
		return;
	}
	slot = q->tmu[t][(q->tmu_head[t] + q->tmu_count[t]) % TMU_FIFO_DEPTH];
	if (!tmu_lookup_window(x, slot, v, mask) &&
	    !tmu_lookup_lanes(x, slot, v, mask))
		return;
	q->tmu_ready[t][(q->tmu_head[t] + q->tmu_count[t]) % TMU_FIFO_DEPTH] =
		x->emu->stats.instructions[x->qi] + TMU_LATENCY;
	q->tmu_count[t]++;
	qpu_emu_charge(x, qpu_emu_popcount16(mask) * QPU_EMU_TMU_LANE_CYCLES);
	if (x->emu->ops->event) {
		struct qpu_emu_event ev = {
			.kind = QPU_MEM_TMU, .qpu = x->qi, .tmu = t,
			.lanes = mask, .addr = v,
		};

		x->emu->ops->event(x->emu->ctx, &ev);
	}
}

/*
 * ldtmu: r4 gets the oldest result. The lookup itself completed at the
 * request; the latency it would have had only counts in stall_tmu.
 */
void qpu_emu_tmu_pop(struct qpu_emu_exec *x, unsigned int t)
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
