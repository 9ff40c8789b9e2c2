// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/* A shared unit's capacity over time, for both timing models. */
#include "qpu_timeline.h"

void qpu_timeline_init(struct qpu_timeline *tl, u32 cap)
{
	__builtin_memset(tl, 0, sizeof(*tl));
	tl->cap = cap ? cap : 1;
}

/* The ring moves on so that bucket @b fits; older buckets are forgotten. */
static void advance(struct qpu_timeline *tl, u64 b)
{
	u64 base = b - QPU_TIMELINE_BUCKETS / 2;

	if (base - tl->base >= QPU_TIMELINE_BUCKETS)
		__builtin_memset(tl->used, 0, sizeof(tl->used));
	else
		for (; tl->base < base; tl->base++)
			tl->used[tl->base & (QPU_TIMELINE_BUCKETS - 1)] = 0;
	tl->base = base;
}

u64 qpu_timeline_book(struct qpu_timeline *tl, u64 t, u64 amount)
{
	u64 b = t >> QPU_TIMELINE_SHIFT, end, least;
	u64 total = amount;
	u32 *u = NULL;

	if (b < tl->base)
		b = tl->base;
	for (;;) {
		u32 room, take;

		if (b >= tl->base + QPU_TIMELINE_BUCKETS)
			advance(tl, b);
		u = &tl->used[b & (QPU_TIMELINE_BUCKETS - 1)];
		room = tl->cap - *u;
		take = amount < room ? (u32)amount : room;
		*u += take;
		amount -= take;
		if (!amount)
			break;
		b++;
	}
	end = (b << QPU_TIMELINE_SHIFT) +
	      (((u64)*u << QPU_TIMELINE_SHIFT) + tl->cap - 1) / tl->cap;
	least = t + ((total << QPU_TIMELINE_SHIFT) + tl->cap - 1) / tl->cap;
	return end > least ? end : least;
}
