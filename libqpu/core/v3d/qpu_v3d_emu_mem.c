// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * The V3D emulator's memory side: the MMU's address space, the uniform
 * streams and the TMU's general (non-texture) lookups, writes and atomics.
 *
 * DOC: TMU
 * A lookup's config byte comes from the config word (tmuc, or the uniform
 * a tmuau write reads), low byte first, 0xff shifted in behind (py-
 * videocore6/7's test_tmu: sequential_read_write_vec). The byte is Mesa's
 * general lookup config: bit 7 per pixel (else per quad: lane 4q's address
 * serves its quad), bits 6:3 the op (Mesa's v3d_tmu_op: 15 regular, 0..10
 * the atomics, which are reads too), bits 2:0 the type (7 32-bit, 2..4 a
 * vector of 2..4 words, 0/1 8/16-bit signed, 5/6 unsigned). Data words
 * written before the address (tmud, and tmudref/tmuoff as py-videocore7's
 * atomic tests do: the compare value first for cmpxchg) make it a write;
 * a write of a regular op stores, an atomic reads, combines and returns the
 * old value. Results go to the thread's FIFO, in request order, one vector
 * per word (16 / threads vectors deep: Mesa's scheduler's limit); a lookup
 * that overflows it faults. Everything is done when the address is
 * written, in program order, so tmuwt has nothing to wait for and every
 * access sees every earlier one (the memory consistency the tests check).
 * Addresses are aligned down to the access size.
 *
 * DOC: uniform cache
 * The uniform streams read through their own cache, which the TMU's writes
 * do not update: a job that writes a word through the TMU and then reads
 * it as a uniform gets the word as it was (py-videocore6/7's
 * test_tmu_read_tmu_write_uniform_read, "!? not 3 ?", on both boards). The
 * emulator notes the old value of the first STALE_MAX words a job writes
 * and serves it to ldunif/ldunifa; once the log is full, a word in a line
 * (64 bytes) the job's uniform streams have read (the first UNIF_LINES_MAX
 * lines) takes the place of one outside them, and other words are read
 * fresh. (py-videocore7's 12-QPU scopy writes past its destination into its
 * own uniforms after megabytes of other writes, and a QPU a loop behind the
 * others still reads them as they were.) On 4.2 a vector's words
 * wrap inside the 16-byte block of its address (py-videocore6's
 * test_tmu_vec*_naive_write: a vec4 at column 1 fills columns 1, 2, 3, 0);
 * on 7.1 they follow each other (py-videocore7's
 * test_tmu_4x16_strided_rectangular_read loads vec4s at any word).
 */
#include "v3d/qpu_v3d_emu_internal.h"

#define TMU_OP_REGULAR	15

void qpu_v3d_mmu_init(struct qpu_v3d_mmu *mmu)
{
	mmu->count = 0;
	mmu->allow_all = false;
}

int qpu_v3d_mmu_map(struct qpu_v3d_mmu *mmu, void *host, u32 size, u32 *va)
{
	u64 at = QPU_V3D_MMU_GRANULE, span;
	unsigned int i, j;

	if (!size || !host)
		return -QPU_V3D_EMU_EINVAL;
	if (mmu->count >= QPU_V3D_MMU_MAX_BOS)
		return -QPU_V3D_EMU_ENOSPC;
	span = ((u64)size + QPU_V3D_MMU_GRANULE - 1) & ~(u64)(QPU_V3D_MMU_GRANULE - 1);
	for (i = 0; i < mmu->count; i++) {
		if (at + span <= mmu->bo[i].va)
			break;
		at = ((u64)mmu->bo[i].va + mmu->bo[i].size +
		      QPU_V3D_MMU_GRANULE - 1) & ~(u64)(QPU_V3D_MMU_GRANULE - 1);
	}
	if (at + span > 0x100000000ull)
		return -QPU_V3D_EMU_ENOSPC;
	for (j = mmu->count; j > i; j--)
		mmu->bo[j] = mmu->bo[j - 1];
	mmu->bo[i].va = (u32)at;
	mmu->bo[i].size = size;
	mmu->bo[i].host = host;
	mmu->bo[i].in_job = false;
	mmu->count++;
	*va = (u32)at;
	return 0;
}

int qpu_v3d_mmu_unmap(struct qpu_v3d_mmu *mmu, u32 va)
{
	unsigned int i;

	for (i = 0; i < mmu->count; i++) {
		if (mmu->bo[i].va != va)
			continue;
		for (; i + 1 < mmu->count; i++)
			mmu->bo[i] = mmu->bo[i + 1];
		mmu->count--;
		return 0;
	}
	return -QPU_V3D_EMU_EINVAL;
}

void qpu_v3d_mmu_job_clear(struct qpu_v3d_mmu *mmu)
{
	unsigned int i;

	for (i = 0; i < mmu->count; i++)
		mmu->bo[i].in_job = false;
}

int qpu_v3d_mmu_job_add(struct qpu_v3d_mmu *mmu, u32 va)
{
	unsigned int i;

	for (i = 0; i < mmu->count; i++) {
		if (mmu->bo[i].va == va) {
			mmu->bo[i].in_job = true;
			return 0;
		}
	}
	return -QPU_V3D_EMU_EINVAL;
}

/* The BO holding @va that the job may touch, or NULL. */
static const struct qpu_v3d_mmu_bo *mmu_find(const struct qpu_v3d_mmu *mmu,
					     u32 va)
{
	unsigned int lo = 0, hi = mmu->count;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;
		const struct qpu_v3d_mmu_bo *bo = &mmu->bo[mid];

		if (va < bo->va) {
			hi = mid;
		} else if (va - bo->va >= bo->size) {
			lo = mid + 1;
		} else {
			if (!bo->in_job && !mmu->allow_all)
				return NULL;
			return bo;
		}
	}
	return NULL;
}

void *qpu_v3d_mmu_translate(const struct qpu_v3d_mmu *mmu, u32 va, u32 len)
{
	const struct qpu_v3d_mmu_bo *bo = mmu_find(mmu, va);

	if (!bo || len > bo->size - (va - bo->va))
		return NULL;
	return bo->host + (va - bo->va);
}

/*
 * qpu_v3d_mmu_translate() through the BO the last access found, which
 * holds for a run (the MMU does not change while qpu_v3d_emu_run() runs;
 * the run forgets it when it starts).
 */
void *v3d_translate(struct qpu_v3d_emu *emu, u32 va, u32 len)
{
	const struct qpu_v3d_mmu_bo *bo = emu->last_bo;

	if (!bo || va - bo->va >= bo->size) {
		bo = mmu_find(emu->mmu, va);
		if (!bo)
			return NULL;
		emu->last_bo = bo;
	}
	if (len > bo->size - (va - bo->va))
		return NULL;
	return bo->host + (va - bo->va);
}

/* v3d_translate() with its first test inline, for the TMU's lane loops. */
static inline u8 *translate_lane(struct qpu_v3d_emu *emu, u32 va, u32 len)
{
	const struct qpu_v3d_mmu_bo *bo = emu->last_bo;

	if (bo && va - bo->va < bo->size && len <= bo->size - (va - bo->va))
		return bo->host + (va - bo->va);
	return v3d_translate(emu, va, len);
}

static u32 load32(const u8 *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (u32)p[3] << 24;
}

static void store32(u8 *p, u32 v)
{
	p[0] = (u8)v;
	p[1] = (u8)(v >> 8);
	p[2] = (u8)(v >> 16);
	p[3] = (u8)(v >> 24);
}

/*
 * Note the word at @va before the job's first TMU write to it: the uniform
 * streams go on reading it (see "uniform cache" above). A full log stops
 * noting; later writes are then seen at once.
 */
static bool unif_line_read(const struct qpu_v3d_emu *emu, u32 va)
{
	u32 line = va >> UNIF_LINE_SHIFT;
	unsigned int i;

	if (!emu->unif_lines_n || line < emu->unif_lo || line > emu->unif_hi)
		return false;
	for (i = 0; i < emu->unif_lines_n; i++)
		if (emu->unif_line[i] == line)
			return true;
	return false;
}

/*
 * stale_hint[] holds addresses that are in stale[] (a word written again
 * and again is found without the scan); an address leaves it when its
 * entry is replaced. 0 is no TMU address: page 0 is never mapped.
 */
static u32 *stale_hint(struct qpu_v3d_emu *emu, u32 va)
{
	return &emu->stale_hint[(va >> 2) % STALE_HINTS];
}

static void note_stale_new(struct qpu_v3d_emu *emu, u32 va, const u8 *p)
{
	unsigned int i;

	emu->noted_ok = false;	/* stale_hint[] may change */
	if (emu->stale_n >= STALE_MAX && !unif_line_read(emu, va))
		return;
	for (i = 0; i < emu->stale_n; i++)
		if (emu->stale[i].va == va)
			return;
	if (emu->stale_n < STALE_MAX) {
		i = emu->stale_n++;
	} else {	/* full: a word in a line the streams read takes a place */
		for (i = 0; i < STALE_MAX; i++)
			if (!unif_line_read(emu, emu->stale[i].va))
				break;
		if (i == STALE_MAX)
			return;
		if (*stale_hint(emu, emu->stale[i].va) == emu->stale[i].va)
			*stale_hint(emu, emu->stale[i].va) = 0;
	}
	emu->stale[i].va = va;
	emu->stale[i].old = load32(p);
	*stale_hint(emu, va) = va;
}

static inline void note_stale(struct qpu_v3d_emu *emu, u32 va, const u8 *p)
{
	if (*stale_hint(emu, va) != va)	/* else noted already */
		note_stale_new(emu, va, p);
}

/* Note the line of a uniform read (see "uniform cache" above). */
static void note_unif_line(struct qpu_v3d_emu *emu, u32 va)
{
	u32 line = va >> UNIF_LINE_SHIFT;
	unsigned int i;

	if (emu->unif_last == line + 1)
		return;
	emu->unif_last = line + 1;
	for (i = 0; i < emu->unif_lines_n; i++)
		if (emu->unif_line[i] == line)
			return;
	if (emu->unif_lines_n >= UNIF_LINES_MAX)
		return;
	if (!emu->unif_lines_n || line < emu->unif_lo)
		emu->unif_lo = line;
	if (!emu->unif_lines_n || line > emu->unif_hi)
		emu->unif_hi = line;
	emu->unif_line[emu->unif_lines_n++] = line;
}

bool v3d_read_unif(struct qpu_v3d_emu *emu, unsigned int qpu,
		   unsigned int slot, u32 *addr, u32 *val)
{
	const u8 *p = v3d_translate(emu, *addr, 4);
	unsigned int i;

	if (!p || (*addr & 3)) {
		v3d_emu_set_fault(emu, qpu, slot, p ? QPU_FAULT_REASON_MISALIGNED :
				  QPU_FAULT_REASON_MEMORY, *addr,
				  QPU_MEM_UNIFORM);
		return false;
	}
	note_unif_line(emu, *addr);
	*val = load32(p);
	for (i = 0; i < emu->stale_n; i++)
		if (emu->stale[i].va == *addr)
			*val = emu->stale[i].old;
	*addr += 4;
	return true;
}

/* The new memory word of an atomic @op on @old with data @d0 (@d1). */
static u32 atomic(unsigned int op, u32 old, u32 d0, u32 d1, bool write)
{
	if (!write) {	/* the read forms: inc, dec, not */
		switch (op) {
		case 8:
			return old + 1;
		case 9:
			return old - 1;
		case 10:
			return ~old;
		}
		return old;
	}
	switch (op) {
	case 0:
		return old + d0;
	case 1:
		return old - d0;
	case 2:
		return d0;
	case 3:
		return old == d0 ? d1 : old;
	case 4:
		return old < d0 ? old : d0;
	case 5:
		return old > d0 ? old : d0;
	case 6:
		return (s32)old < (s32)d0 ? old : d0;
	case 7:
		return (s32)old > (s32)d0 ? old : d0;
	case 8:
		return old & d0;
	case 9:
		return old | d0;
	case 10:
		return old ^ d0;
	}
	return old;
}

static u32 load_sized(const u8 *p, unsigned int type)
{
	switch (type) {
	case 0:
		return (u32)(s32)(s8)p[0];
	case 1:
		return (u32)(s32)(s16)(p[0] | p[1] << 8);
	case 5:
		return p[0];
	case 6:
		return p[0] | p[1] << 8;
	}
	return load32(p);
}

static void store_sized(u8 *p, unsigned int type, u32 v)
{
	switch (type) {
	case 0:
	case 5:
		p[0] = (u8)v;
		return;
	case 1:
	case 6:
		p[0] = (u8)v;
		p[1] = (u8)(v >> 8);
		return;
	}
	store32(p, v);
}

/* The statistics of @n lanes' 32-bit reads or (@write) writes. */
static void tmu_count32(struct qpu_v3d_emu *emu, bool write, unsigned int n)
{
	if (write) {
		emu->stats.tmu_writes += n;
		emu->stats.tmu_write_bytes += 4 * n;
	} else {
		emu->stats.tmu_lookups += n;
		emu->stats.tmu_read_bytes += 4 * n;
	}
}

/*
 * v3d_tmu_lookup()'s lane loop (with predecoding, the fast paths) for its
 * most common lookup, a regular read or write of one 32-bit word a lane:
 * the same steps, faults and statistics in the same order, with fewer
 * tests per lane.
 */
static bool tmu_word32(struct qpu_v3d_emu *emu, unsigned int qpu,
		       unsigned int slot, const u32 *addr, u16 lanes,
		       bool per_pixel, bool write, u32 *res)
{
	const struct v3d_thread *t = &emu->q[qpu].t[slot];
	const struct qpu_v3d_mmu_bo *bo = emu->last_bo;
	unsigned int i, n = 0;
	u32 at[LANES], out = 0;
	bool in_bo = bo && bo->size >= 4 && lanes == ALL_LANES;

	/* all 16 lanes in the BO of the last access: no test per lane */
	if (in_bo) {
		/* loops a compiler vectorizes */
		if (per_pixel)
			for (i = 0; i < LANES; i++)
				at[i] = addr[i] & ~3u;
		else
			for (i = 0; i < LANES; i++)
				at[i] = addr[i & ~3u] & ~3u;
		for (i = 0; i < LANES; i++)
			out |= at[i] - bo->va > bo->size - 4;
		in_bo = !out;
	}
	if (in_bo) {	/* the BO's fields in registers: byte stores alias them */
		u8 *host = bo->host;
		u32 va = bo->va;

		if (write && emu->noted_ok &&
		    !__builtin_memcmp(at, emu->noted_at, sizeof(at))) {
			/* the words of the last write: all noted already */
			v3d_code_write(emu, va, bo->size);
			for (i = 0; i < LANES; i++)
				store32(host + (at[i] - va), t->tmu_data[0][i]);
		} else if (write) {
			bool noted = true;

			v3d_code_write(emu, va, bo->size);
			for (i = 0; i < LANES; i++) {
				u8 *p = host + (at[i] - va);

				if (*stale_hint(emu, at[i]) != at[i]) {
					note_stale_new(emu, at[i], p);
					noted = false;
				}
				store32(p, t->tmu_data[0][i]);
			}
			if (noted) {	/* each was in stale[] */
				__builtin_memcpy(emu->noted_at, at, sizeof(at));
				emu->noted_ok = true;
			}
		} else {
			for (i = 0; i < LANES; i++)
				res[i] = load32(host + (at[i] - va));
		}
	}
	if (in_bo) {
		tmu_count32(emu, write, LANES);
		return true;
	}
	for (i = 0; i < LANES; i++) {
		u32 a;
		u8 *p;

		res[i] = 0;
		if (!(lanes >> i & 1))
			continue;
		a = addr[per_pixel ? i : i & ~3u] & ~3u;
		p = translate_lane(emu, a, 4);
		if (!p) {
			tmu_count32(emu, write, n);
			v3d_emu_set_fault(emu, qpu, slot, QPU_FAULT_REASON_MEMORY,
					  a, write ? QPU_MEM_TMU_WRITE : QPU_MEM_TMU);
			return false;
		}
		if (write) {
			v3d_code_write(emu, a, 4);
			note_stale(emu, a, p);
			store32(p, t->tmu_data[0][i]);
		} else {
			res[i] = load32(p);
		}
		n++;
	}
	tmu_count32(emu, write, n);
	return true;
}

bool v3d_tmu_lookup(struct qpu_v3d_emu *emu, unsigned int qpu,
		    unsigned int slot, const u32 *addr, u16 lanes)
{
	struct v3d_thread *t = &emu->q[qpu].t[slot];
	unsigned int cfg = t->tmu_cfg & 0xff, op = (cfg >> 3) & 15;
	unsigned int type = cfg & 7, words = 1, size = 4, i, k, depth;
	bool per_pixel = cfg & 0x80, write = t->tmu_ndata > 0;
	bool atomic_op = op != TMU_OP_REGULAR, returns;
	bool wrap = emu->gen == QPU_GEN_V3D42, fast;
	u32 res[4][LANES];

	t->tmu_cfg = (t->tmu_cfg >> 8) | 0xff000000u;
	if (type >= 2 && type <= 4)
		words = type;
	else if (type == 0 || type == 5)
		size = 1;
	else if (type == 1 || type == 6)
		size = 2;
	if (atomic_op) {
		words = 1;
		size = 4;
	}
	/* reads return their words; atomics the old value; cache ops nothing */
	returns = atomic_op ? (write || op >= 8) : !write;
	if (emu->ops && emu->ops->tmu)
		emu->ops->tmu(emu->ctx, qpu, slot, addr, lanes, words, size,
			      write);
	/* TMU_FIFO_MAX / threads, threads 1, 2 or 4: no division */
	depth = TMU_FIFO_MAX >> (emu->q[qpu].threads >> 1);
	if (returns && t->fifo_n + words > depth) {
		v3d_emu_set_fault(emu, qpu, slot, QPU_FAULT_REASON_INSTRUCTION,
				  t->fifo_n + words, QPU_MEM_TMU);
		return false;
	}
	fast = emu->predecode && !atomic_op && words == 1 && size == 4;
	if (fast) {	/* a read's words go straight to the FIFO's next entry */
		u32 *to = write ? res[0] :
			  t->fifo[(t->fifo_head + t->fifo_n) % TMU_FIFO_MAX];

		if (!tmu_word32(emu, qpu, slot, addr, lanes, per_pixel, write,
				to))
			return false;
		t->tmu_ndata = 0;
		if (!write)
			t->fifo_n++;
		return true;
	}
	for (i = 0; i < LANES && !fast; i++) {
		unsigned int src = per_pixel ? i : i & ~3u;
		u32 a = addr[src] & ~(size - 1);

		for (k = 0; k < words; k++)
			res[k][i] = 0;
		if (!(lanes >> i & 1))
			continue;
		for (k = 0; k < words; k++) {
			/* 4.2: a vector's words wrap inside its 16-byte block */
			u32 at = wrap ? (a & ~15u) | ((a + 4 * k) & 15) : a + 4 * k;
			u8 *p = v3d_translate(emu, at, size);

			if (!p) {
				v3d_emu_set_fault(emu, qpu, slot,
						  QPU_FAULT_REASON_MEMORY, at,
						  write ? QPU_MEM_TMU_WRITE :
						  QPU_MEM_TMU);
				return false;
			}
			if (atomic_op) {
				u32 old = load32(p);

				if (write || op >= 8) {
					v3d_code_write(emu, at & ~3u, 4);
					note_stale(emu, at & ~3u, p);
					store32(p, atomic(op, old,
							  t->tmu_data[0][i],
							  t->tmu_data[1][i], write));
				}
				res[0][i] = old;
				emu->stats.tmu_writes++;
				emu->stats.tmu_read_bytes += 4;
				emu->stats.tmu_write_bytes += 4;
			} else if (write) {
				if (k < t->tmu_ndata) {
					v3d_code_write(emu, at & ~3u, 4);
					note_stale(emu, at & ~3u,
						   p - (at & 3));
					store_sized(p, type, t->tmu_data[k][i]);
					emu->stats.tmu_writes++;
					emu->stats.tmu_write_bytes += size;
				}
			} else {
				res[k][i] = load_sized(p, type);
				emu->stats.tmu_lookups++;
				emu->stats.tmu_read_bytes += size;
			}
		}
	}
	t->tmu_ndata = 0;
	if (!returns)
		return true;
	for (k = 0; k < words; k++) {
		unsigned int at = (t->fifo_head + t->fifo_n) % TMU_FIFO_MAX;

		for (i = 0; i < LANES; i++)
			t->fifo[at][i] = res[k][i];
		t->fifo_n++;
	}
	return true;
}
