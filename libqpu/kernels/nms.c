// SPDX-License-Identifier: MIT
/*
 * Class-wise non-maximum suppression: qpu_nms_cpu() on the CPU, and
 * qpu_nms(), whose QPUs (nms.qasm, v3d/nms.qasm) compute the bit matrix of
 * which box suppresses which before the CPU walks it greedily. Both share
 * the preparation (checks, the grid, the order) and the predicate of
 * <qpu_kernels.h>'s "DOC: NMS arithmetic".
 *
 * DOC: NMS on the QPUs
 * The boxes, sorted by class then score, are padded with empty boxes to
 * a multiple of 32 and written as column records: x1, x2, K y1, K y2 (K =
 * 256 + k: the overlap's height comes out times K, and K w h is compared
 * with no multiply by K) and k * area, and on VideoCore IV a sixth word,
 * the column's bit. Rows come in
 * blocks of 16, one row a lane; block b covers the columns from (16 b
 * rounded down to 32) to the end of its last row's class, rounded up to
 * 32, so only pairs of a class and a few around them are computed. A
 * program loads its block's rows through the TMU, points its uniform
 * stream at the block's first column and reads every column as uniforms,
 * setting the column's bit in each lane's word where the row suppresses
 * it; every 32 columns it stores the 16 words. Word g of row i (columns
 * 32 g .. 32 g + 31) lands at mask[g * npad + i], column 32 g + t in bit
 * 31 - t (V3D's program shifts the word left a column). Each block in turn
 * goes to the least loaded program. The CPU reads,
 * for each row it keeps, only the bits of the columns after it in its
 * class.
 */

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "postproc.h"
#include "nms.qasm.h"
#include "v3d/nms_v3d42.qasm.h"
#include "v3d/nms_v3d71.qasm.h"

#define NMS_REC_WORDS	6	/* a column record: x1, x2, K y1, K y2, ka, bit */
#define NMS_REC_WORDS_V3D	5	/* the same without the bit */
#define NMS_DESC_WORDS	4	/* a block: rows, first column, groups, output */
#define NMS_UNIFORMS	5	/* a program's: see nms.qasm */
#define NMS_ROWS	16	/* a block's rows: one a lane */
#define NMS_GROUP	32	/* columns a mask word */

static const struct qpu_kernel_code nms_prog =
	QPU_KERNEL_CODE_V3D("nms", nms_code, nms, 0);


/* What the sorts compare, copied out of the detections (qsort has no context). */
struct sort_key {
	uint32_t class_id;
	float score;
	uint32_t index;
};

/*
 * The host memory of one call, taken in pieces from one block: the kernels'
 * kept memory (qpu_kernel_host()) when there are kernels, so a call with
 * kernels allocates nothing once the first of its size has run; else one
 * malloc() freed at the end.
 */
struct nms_mem {
	char *base;
	size_t used, cap;
	bool owned;
};

#define NMS_ALIGN	8

/* Room for every piece of a call on @npad boxes and @qpus programs. */
static size_t nms_mem_bytes(size_t npad, unsigned int qpus)
{
	/* order, end, pos: 4; box: 20; keys: 12; gone: 4; u: 20 and load,
	 * byk: 8 a program; blk: 8 a block of 16; 10 pieces' alignment */
	return npad * (4 * 3 + 20 + sizeof(struct sort_key) + 4 + 1) +
	       (size_t)(qpus + 1) * (NMS_UNIFORMS * 4 + 16) + 10 * NMS_ALIGN;
}

static int nms_mem_init(struct nms_mem *m, struct qpu_kernels *kernels, size_t bytes)
{
	m->used = 0;
	m->cap = bytes;
	m->owned = !kernels;
	m->base = kernels ? qpu_kernel_host(kernels, bytes) : malloc(bytes);
	return m->base ? 0 : -ENOMEM;
}

/* @bytes of @m, zeroed when @zero; the block is sized for every piece. */
static void *nms_take(struct nms_mem *m, size_t bytes, bool zero)
{
	void *p = m->base + m->used;

	m->used += (bytes + NMS_ALIGN - 1) / NMS_ALIGN * NMS_ALIGN;
	if (m->used > m->cap)
		abort();	/* nms_mem_bytes() is wrong: a bug */
	if (zero)
		memset(p, 0, bytes);
	return p;
}

static void nms_mem_fini(struct nms_mem *m)
{
	if (m->owned)
		free(m->base);
	m->base = NULL;
}

/*
 * struct nms_prep - the boxes ready for suppression
 * @n: boxes
 * @npad: @n rounded up to NMS_GROUP (at least NMS_GROUP)
 * @order: sorted position to input index
 * @end: sorted position to the end of its class's run
 * @box: sorted position to its grid box: x1, x2, y1, y2, k * area
 * @k: the threshold in 1/256 steps
 * @keys: room for @npad sort keys
 * @mem: the call's host memory, where the arrays above are
 */
struct nms_prep {
	size_t n, npad;
	uint32_t *order;
	uint32_t *end;
	int32_t (*box)[5];
	uint32_t k;
	struct sort_key *keys;
	struct nms_mem mem;
};

/* Class, then score (highest first), then position: a total order. */
static int by_class_score(const void *a, const void *b)
{
	const struct sort_key *x = a, *y = b;

	if (x->class_id != y->class_id)
		return x->class_id < y->class_id ? -1 : 1;
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Score (highest first), then position. */
static int by_score(const void *a, const void *b)
{
	const struct sort_key *x = a, *y = b;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Sort the @n input indices @idx by @cmp over their detections in @dets. */
static void sort_indices(struct sort_key *key, uint32_t *idx, size_t n,
			 const struct qpu_detection *dets,
			 int (*cmp)(const void *, const void *))
{
	size_t i;

	for (i = 0; i < n; i++)
		key[i] = (struct sort_key){ .class_id = dets[idx[i]].class_id,
					    .score = dets[idx[i]].score,
					    .index = idx[i] };
	qsort(key, n, sizeof(*key), cmp);
	for (i = 0; i < n; i++)
		idx[i] = key[i].index;
}

static int32_t grid(float v, float scale)
{
	float t = v * scale;

	if (t < 0)
		t = 0;
	if (t > QPU_NMS_GRID_MAX)
		t = QPU_NMS_GRID_MAX;
	return (int32_t)lrintf(t);
}

static void prep_free(struct nms_prep *s)
{
	nms_mem_fini(&s->mem);
}

/* Check the call, take its host memory (room for @qpus programs) and sort. */
static int prep(struct qpu_kernels *kernels, const char *name,
		const struct qpu_detection *dets, size_t n,
		const struct qpu_nms_params *p, uint32_t *keep, size_t keep_size,
		size_t *kept, unsigned int qpus, struct nms_prep *s)
{
	size_t i, need;

	memset(s, 0, sizeof(*s));
	if (!p || (!dets && n) || (!keep && keep_size) || !kept)
		return qpu_postproc_fail(kernels, EINVAL, name, "NULL argument");
	if (n > QPU_NMS_MAX_CANDIDATES)
		return qpu_postproc_fail(kernels, EINVAL, name, "%zu boxes: at most %u",
					 n, QPU_NMS_MAX_CANDIDATES);
	need = p->max_out && p->max_out < n ? p->max_out : n;
	if (keep_size < need)
		return qpu_postproc_fail(kernels, EINVAL, name,
					 "keep: room for %zu indices, %zu needed", keep_size,
					 need);
	if (!(p->iou_threshold >= 0 && p->iou_threshold <= 1))
		return qpu_postproc_fail(kernels, EINVAL, name,
					 "iou_threshold %g: not in [0, 1]",
					 (double)p->iou_threshold);
	if (!(p->scale > 0))
		return qpu_postproc_fail(kernels, EINVAL, name,
					 "scale %g: not above 0", (double)p->scale);
	for (i = 0; i < n; i++) {
		const struct qpu_detection *d = &dets[i];

		if (isnan(d->score) || isnan(d->x1) || isnan(d->y1) ||
		    isnan(d->x2) || isnan(d->y2))
			return qpu_postproc_fail(kernels, EINVAL, name,
						 "detection %zu: NaN score or coordinate", i);
	}
	s->n = n;
	s->npad = (n + NMS_GROUP - 1) / NMS_GROUP * NMS_GROUP;
	if (!s->npad)
		s->npad = NMS_GROUP;
	s->k = (uint32_t)lrintf(p->iou_threshold * 256);
	if (nms_mem_init(&s->mem, kernels, nms_mem_bytes(s->npad, qpus)))
		return qpu_postproc_fail(kernels, ENOMEM, name, "out of memory");
	s->order = nms_take(&s->mem, s->npad * sizeof(*s->order), false);
	s->end = nms_take(&s->mem, s->npad * sizeof(*s->end), false);
	s->box = nms_take(&s->mem, s->npad * sizeof(*s->box), true);
	s->keys = nms_take(&s->mem, s->npad * sizeof(*s->keys), false);
	for (i = 0; i < n; i++)
		s->order[i] = (uint32_t)i;
	sort_indices(s->keys, s->order, n, dets, by_class_score);
	for (i = n; i-- > 0;) {
		const struct qpu_detection *d = &dets[s->order[i]];
		int32_t *b = s->box[i];

		s->end[i] = i + 1 < n && dets[s->order[i + 1]].class_id == d->class_id ?
			    s->end[i + 1] : (uint32_t)i + 1;
		b[0] = grid(d->x1, p->scale);
		b[1] = grid(d->x2, p->scale);
		b[2] = grid(d->y1, p->scale);
		b[3] = grid(d->y2, p->scale);
		if (b[1] < b[0])
			b[1] = b[0];
		if (b[3] < b[2])
			b[3] = b[2];
		b[4] = (int32_t)s->k * (b[1] - b[0]) * (b[3] - b[2]);
	}
	for (i = n; i < s->npad; i++)
		s->end[i] = (uint32_t)n;
	return 0;
}

/* "DOC: NMS arithmetic": does box @i suppress box @j? */
static bool suppresses(const struct nms_prep *s, size_t i, size_t j)
{
	const int32_t *a = s->box[i], *b = s->box[j];
	int32_t w = (a[1] < b[1] ? a[1] : b[1]) - (a[0] > b[0] ? a[0] : b[0]);
	int32_t h = (a[3] < b[3] ? a[3] : b[3]) - (a[2] > b[2] ? a[2] : b[2]);

	if (w <= 0 || h <= 0)
		return false;
	return (int64_t)(256 + s->k) * w * h > (int64_t)a[4] + b[4];
}

/*
 * The kept sorted positions @pos (@count of them) as input indices into
 * @keep, by score, at most @p->max_out.
 */
static void finish(const struct qpu_detection *dets, const struct nms_prep *s,
		   const struct qpu_nms_params *p, uint32_t *pos, size_t count,
		   uint32_t *keep, size_t *kept)
{
	size_t i;

	for (i = 0; i < count; i++)
		pos[i] = s->order[pos[i]];
	sort_indices(s->keys, pos, count, dets, by_score);
	if (p->max_out && count > p->max_out)
		count = p->max_out;
	if (count)	/* keep may be NULL when there is nothing */
		memcpy(keep, pos, count * sizeof(*keep));
	*kept = count;
}

QPU_API int qpu_nms_cpu(struct qpu_kernels *kernels, const struct qpu_detection *dets,
			size_t n, const struct qpu_nms_params *p, uint32_t *keep,
			size_t keep_size, size_t *kept)
{
	struct nms_prep s;
	uint32_t *pos;
	uint8_t *gone;
	size_t i, j, count = 0;
	int ret;

	qpu_postproc_clear(kernels);
	ret = prep(kernels, "nms_cpu", dets, n, p, keep, keep_size, kept, 0, &s);
	if (ret)
		return ret;
	pos = nms_take(&s.mem, s.npad * sizeof(*pos), false);
	gone = nms_take(&s.mem, s.npad, true);
	for (i = 0; i < n; i++) {
		if (gone[i])
			continue;
		pos[count++] = (uint32_t)i;
		for (j = i + 1; j < s.end[i]; j++)
			if (!gone[j] && suppresses(&s, i, j))
				gone[j] = 1;
	}
	finish(dets, &s, p, pos, count, keep, kept);
	prep_free(&s);
	return 0;
}

/*
 * The bus memory of a qpu_nms() job: the column records, the blocks'
 * descriptors and the mask, each at its byte offset in one buffer.
 */
struct nms_layout {
	size_t cols, descs, mask, size;
	size_t blocks;
	unsigned int rec_words;
};

static void layout(const struct nms_prep *s, bool v3d, struct nms_layout *l)
{
	l->rec_words = v3d ? NMS_REC_WORDS_V3D : NMS_REC_WORDS;
	l->cols = 0;
	l->blocks = s->npad / NMS_ROWS;
	/* one record more: V3D's program reads a column ahead */
	l->descs = (s->npad + 1) * l->rec_words * 4;
	l->mask = l->descs + l->blocks * NMS_DESC_WORDS * 4;
	l->size = l->mask + s->npad / NMS_GROUP * s->npad * 4;
}

/* Block @b's first column and its columns' end (both multiples of 32). */
static void block_cols(const struct nms_prep *s, size_t b, size_t *c0, size_t *c1)
{
	size_t last = b * NMS_ROWS + NMS_ROWS - 1;

	*c0 = b * NMS_ROWS / NMS_GROUP * NMS_GROUP;
	*c1 = (s->end[last] + NMS_GROUP - 1) / NMS_GROUP * NMS_GROUP;
	if (*c1 < *c0 + NMS_GROUP)	/* padding rows: one group of nothing */
		*c1 = *c0 + NMS_GROUP;
}

/*
 * Write the records and the descriptors into @map, share the blocks out
 * (longest first to the least loaded of @qpus programs) and fill the
 * programs' uniforms @u.
 */
static void fill(struct nms_prep *s, const struct nms_layout *l, struct qpu_bo *bo,
		 unsigned int qpus, uint32_t *u)
{
	uint32_t *map = qpu_bo_get_map(bo), *rec = map + l->cols / 4;
	size_t *load, *byk, b, i, c0, c1;
	uint32_t *blk, *desc;
	unsigned int k, best;

	for (i = 0; i <= s->npad; i++) {
		uint32_t *r = rec + i * l->rec_words;

		for (k = 0; k < 5; k++)
			r[k] = i < s->npad ? (uint32_t)s->box[i][k] : 0;
		r[2] *= 256 + s->k;
		r[3] *= 256 + s->k;
		if (l->rec_words > 5)
			r[5] = 1u << (NMS_GROUP - 1 - i % NMS_GROUP);
	}
	load = nms_take(&s->mem, qpus * sizeof(*load), true);
	byk = nms_take(&s->mem, (qpus + 1) * sizeof(*byk), true);
	blk = nms_take(&s->mem, l->blocks * 2 * sizeof(*blk), false);
	/* each block in turn to the least loaded program */
	for (b = 0; b < l->blocks; b++) {
		block_cols(s, b, &c0, &c1);
		for (best = 0, k = 1; k < qpus; k++)
			if (load[k] < load[best])
				best = k;
		load[best] += c1 - c0;
		blk[2 * b] = (uint32_t)b;
		blk[2 * b + 1] = best;
		byk[best + 1]++;
	}
	for (k = 0; k < qpus; k++)
		byk[k + 1] += byk[k];
	for (k = 0; k < qpus; k++) {
		uint32_t *p = u + k * NMS_UNIFORMS;

		p[0] = qpu_kernel_addr(bo, l->descs + byk[k] * NMS_DESC_WORDS * 4);
		p[1] = (uint32_t)(byk[k + 1] - byk[k]);
		p[2] = (uint32_t)(s->npad * 4);
		p[3] = qpu_kernel_vw_row(k);
		p[4] = qpu_kernel_vdw_rows(1, 16, k);
	}
	for (b = 0; b < l->blocks; b++) {
		k = blk[2 * b + 1];
		desc = map + l->descs / 4 + byk[k]++ * NMS_DESC_WORDS;
		block_cols(s, b, &c0, &c1);
		desc[0] = qpu_kernel_addr(bo, l->cols + b * NMS_ROWS * l->rec_words * 4);
		desc[1] = qpu_kernel_addr(bo, l->cols + c0 * l->rec_words * 4);
		desc[2] = (uint32_t)((c1 - c0) / NMS_GROUP);
		desc[3] = qpu_kernel_addr(bo, l->mask + (c0 / NMS_GROUP * s->npad +
							 b * NMS_ROWS) * 4);
	}
}

static uint32_t reverse32(uint32_t v)
{
	v = (v >> 1 & 0x55555555u) | (v & 0x55555555u) << 1;
	v = (v >> 2 & 0x33333333u) | (v & 0x33333333u) << 2;
	v = (v >> 4 & 0x0f0f0f0fu) | (v & 0x0f0f0f0fu) << 4;
	v = (v >> 8 & 0x00ff00ffu) | (v & 0x00ff00ffu) << 8;
	return v >> 16 | v << 16;
}

/* The greedy walk over the QPUs' mask: the kept positions into @pos. */
static size_t walk(const struct nms_prep *s, const uint32_t *mask, uint32_t *pos,
		   uint32_t *gone)
{
	size_t i, g, count = 0;

	for (i = 0; i < s->n; i++) {
		size_t g0 = (i + 1) / NMS_GROUP, g1 = (s->end[i] + NMS_GROUP - 1) / NMS_GROUP;

		if (gone[i / NMS_GROUP] >> (i % NMS_GROUP) & 1)
			continue;
		pos[count++] = (uint32_t)i;
		for (g = g0; g < g1; g++) {
			/* column lo + t in bit 31 - t: reversed, t in bit t */
			uint32_t w = reverse32(mask[g * s->npad + i]);
			size_t lo = g * NMS_GROUP, hi = lo + NMS_GROUP;

			if (lo <= i)	/* only the columns after i... */
				w &= ~0u << (i - lo) << 1;
			if (hi > s->end[i])	/* ...and in its class */
				w &= ~(~0u << (s->end[i] - lo));
			gone[g] |= w;
		}
	}
	return count;
}

QPU_API int qpu_nms(struct qpu_kernels *kernels, unsigned int qpus,
		    const struct qpu_detection *dets, size_t n,
		    const struct qpu_nms_params *p, uint32_t *keep, size_t keep_size,
		    size_t *kept, struct qpu_kernel_stats *stats)
{
	struct qpu_kernel_launch run = {
		.code = &nms_prog, .qpus = qpus, .uniforms_per_qpu = NMS_UNIFORMS,
	};
	struct qpu_bo *bo;
	struct nms_layout l;
	struct nms_prep s;
	uint32_t *u, *pos, *gone;
	int ret;

	qpu_kernel_clear_error(kernels);
	ret = qpu_kernel_check_qpus(kernels, "nms", qpus);
	if (!ret)
		ret = prep(kernels, "nms", dets, n, p, keep, keep_size, kept, qpus, &s);
	if (ret)
		return ret;
	if (stats)
		memset(stats, 0, sizeof(*stats));
	if (!n) {
		*kept = 0;
		goto out;
	}
	layout(&s, qpu_gen_is_v3d(kernels->gen), &l);
	/* kept by the kernels from call to call, as the uniforms' scratch is */
	bo = qpu_kernel_work(kernels, l.size);
	if (!bo) {
		ret = qpu_kernel_fail(kernels, errno, "nms", "buffer of %zu bytes: %s", l.size,
				      strerror(errno));
		goto out;
	}
	u = nms_take(&s.mem, (size_t)qpus * NMS_UNIFORMS * sizeof(*u), true);
	pos = nms_take(&s.mem, s.npad * sizeof(*pos), false);
	gone = nms_take(&s.mem, s.npad / NMS_GROUP * sizeof(*gone), true);
	fill(&s, &l, bo, qpus, u);
	run.uniforms = u;
	run.bos = &bo;
	run.bo_count = 1;
	ret = qpu_kernel_run(kernels, &run, stats);
	if (ret)
		goto out;
	finish(dets, &s, p, pos, walk(&s, (const uint32_t *)qpu_bo_get_map(bo) + l.mask / 4,
				      pos, gone), keep, kept);
out:
	prep_free(&s);
	return ret;
}
