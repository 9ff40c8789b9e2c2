// SPDX-License-Identifier: MIT
/*
 * qpu_sgemm(): sgemm.qasm on up to 12 QPUs. The host picks the orientation
 * (C, or C^T = B^T A^T, whichever loads fewer bytes), packs alpha * A (or
 * alpha * B^T) into zero-padded panels of 64, 32 or 16 rows (k-major: the
 * uniform stream the kernel broadcasts from), cuts the result into panel x
 * 16-lane tiles, deals them to the programs (widest panels first, in
 * rounds whose tiles share their operands through the L2: sgemm_deal(),
 * which the programs start together: sgemm_barriers()) and writes each
 * program's tile list and the panels' streams, all into
 * the device's scratch buffer (kept from call to call: cache.c). The kernel and the list format are described at the
 * top of sgemm.qasm. Packing costs the CPU M x K (or K x N) copies against
 * the QPUs' M x N x K products; the other operand and C are used in place.
 *
 * The kernel reads its tile list and the packed panels as uniforms, and a
 * device lets a program read uniforms only inside the job's uniforms
 * windows: so the scratch buffer is every program's uniforms buffer (lists
 * first, each program's window running from its list to the end of the
 * buffer), and the job is submitted here rather than by qpu_kernel_run(),
 * which copies uniforms into a buffer whose address the lists could not
 * name.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "sgemm.qasm.h"
#include "sgemm16x64.qasm.h"

#define SGEMM_U		7	/* k values per main-loop turn (.set U) */
/*
 * TMU requests in flight (.set AHEAD): the lane operand of k + AHEAD is
 * asked for at k, so SDRAM's queue and latency hide behind AHEAD values
 * of k; the FIFO holds 4.
 */
#define SGEMM_AHEAD	3
/*
 * Panel prefetches in flight (.set PREFETCH): TMU 1 reads the panel's
 * lines of k + PREFETCH at k, so the uniform reads of every program find
 * them in the L2; at most AHEAD, so that none reads past the panel. One
 * k (some 270 cycles) is ahead enough, and the fewer lines wait in the
 * L2, the fewer its random replacement evicts: at 1024x1024x1024, 3, 2
 * and 1 k ahead move 98.9, 90.9 and 85.7 MB (14.39, 15.64, 16.77 GFLOPS
 * in the model's time order, the rounds' barriers on).
 */
#define SGEMM_PREFETCH	1
#define SGEMM_COLS	16	/* columns of a tile: the SIMD width */
/*
 * Registers per store batch (.set BATCH): program k stores them from VPM
 * rows 4k .. 4k + 3, its own, so no program waits for another's stores.
 */
#define SGEMM_BATCH	4
/* Programs of one job: one per QPU of a V3D. */
#define SGEMM_MAX_PROGRAMS	12
/*
 * QPUs of a slice, which share its uniforms and TMU caches; the emulator
 * (and, assumed, the V3D) starts program i on QPU i of an idle V3D.
 */
#define SGEMM_SLICE_QPUS	4
#define SGEMM_DUMMY	64	/* bytes: where the stores of padding go */
/* Limits that keep the kernel's address arithmetic in 32 bits. */
#define SGEMM_MAX_DIM	(1u << 20)

static const struct qpu_kernel_code sgemm_prog =
	QPU_KERNEL_CODE("sgemm", sgemm_code);
static const struct qpu_kernel_code sgemm16x64_prog =
	QPU_KERNEL_CODE("sgemm16x64", sgemm16x64_code);

struct sgemm_panel {
	size_t row0;		/* first row of A and C */
	unsigned int w;		/* rows in the panel: 64, 32 or 16 */
	unsigned int valid;	/* rows below M */
	size_t offset;		/* of the packed panel in the scratch buffer */
};

struct sgemm_tile {
	unsigned int panel;
	size_t col0;
	unsigned int prog;
	size_t seq;		/* dealing order, kept within a program */
	unsigned int barrier;	/* 0 none, 1 member, n + 1 master of n */
	unsigned int round;	/* index in its program's list */
	unsigned int go;	/* its barrier's GO semaphore: 0 or 1 */
};

/* A growing list of uniforms. */
struct sgemm_words {
	uint32_t *w;
	size_t n, cap;
	bool failed;
};

static void sgemm_push(struct sgemm_words *ws, uint32_t v)
{
	if (ws->n == ws->cap) {
		size_t cap = ws->cap ? 2 * ws->cap : 1024;
		uint32_t *w = realloc(ws->w, cap * sizeof(*w));

		if (!w) {
			ws->failed = true;
			return;
		}
		ws->w = w;
		ws->cap = cap;
	}
	ws->w[ws->n++] = v;
}

/* Variant number of sgemm.qasm's dispatch for a panel of @w rows. */
static unsigned int sgemm_variant(unsigned int w)
{
	return w == 64 ? 0 : w == 32 ? 1 : 2;
}

/*
 * Panels covering @m rows: 64-row panels, then the rest as one 64 (more
 * than 48 left), 32 + 16 (33..48), 32 (17..32) or 16. Fewer rows waste
 * less padding; wider panels issue fewer loop instructions per product.
 */
static unsigned int sgemm_panel_width(size_t left)
{
	return left > 48 ? 64 : left > 16 ? 32 : 16;
}

static unsigned int sgemm_panels(size_t m, struct sgemm_panel *p)
{
	unsigned int n = 0;
	size_t row = 0;

	while (row < m) {
		size_t left = m - row;
		unsigned int w = sgemm_panel_width(left);

		p[n].row0 = row;
		p[n].w = w;
		p[n].valid = left < w ? (unsigned int)left : w;
		row += p[n].valid;
		n++;
	}
	return n;
}

static int sgemm_check_matrix(struct qpu_kernels *kernels, const char *name, const char *what,
			      const struct qpu_matrix *x)
{
	uint64_t bytes;

	if (!x)
		return qpu_kernel_fail(kernels, EINVAL, name, "%s: no matrix", what);
	if (!x->rows || !x->cols)
		return qpu_kernel_fail(kernels, EINVAL, name, "%s is empty (%zu x %zu)",
				       what, x->rows, x->cols);
	if (x->rows > SGEMM_MAX_DIM || x->cols > SGEMM_MAX_DIM)
		return qpu_kernel_fail(kernels, EINVAL, name,
				       "%s: %zu x %zu is too large (at most %u)",
				       what, x->rows, x->cols, SGEMM_MAX_DIM);
	if (x->stride < x->cols)
		return qpu_kernel_fail(kernels, EINVAL, name,
				       "%s: stride %zu is less than its %zu columns",
				       what, x->stride, x->cols);
	if (x->stride > SGEMM_MAX_DIM)
		return qpu_kernel_fail(kernels, EINVAL, name,
				       "%s: stride %zu is too large (at most %u)",
				       what, x->stride, SGEMM_MAX_DIM);
	/* in 64 bits: the product overflows a 32-bit size_t */
	bytes = ((uint64_t)(x->rows - 1) * x->stride + x->cols) * 4;
	if (bytes > UINT32_MAX)
		return qpu_kernel_fail(kernels, EINVAL, name,
				       "%s: %llu bytes do not fit a buffer", what,
				       (unsigned long long)bytes);
	return qpu_kernel_check_buf(kernels, name, what, x->bo, x->offset,
				    (size_t)bytes, 4);
}

static int sgemm_check(struct qpu_kernels *kernels, const char *name,
		       unsigned int qpus, const struct qpu_matrix *a,
		       const struct qpu_matrix *b, const struct qpu_matrix *c)
{
	int ret;

	ret = sgemm_check_matrix(kernels, name, "A", a);
	if (!ret)
		ret = sgemm_check_matrix(kernels, name, "B", b);
	if (!ret)
		ret = sgemm_check_matrix(kernels, name, "C", c);
	if (ret)
		return ret;
	if (b->rows != a->cols)
		return qpu_kernel_fail(kernels, EINVAL, name,
				       "B has %zu rows, A has %zu columns",
				       b->rows, a->cols);
	if (c->rows != a->rows)
		return qpu_kernel_fail(kernels, EINVAL, name,
				       "C has %zu rows, A has %zu", c->rows,
				       a->rows);
	if (c->cols != b->cols)
		return qpu_kernel_fail(kernels, EINVAL, name,
				       "C has %zu columns, B has %zu", c->cols,
				       b->cols);
	return qpu_kernel_check_qpus(kernels, name, qpus);
}

/*
 * VDW setup of one memory row of @depth words: VPM row @y from column 0
 * (horizontal), or VPM column @x from row @y down (vertical).
 */
static uint32_t sgemm_vdw(unsigned int depth, bool horiz, unsigned int y,
			  unsigned int x)
{
	return qpu_vdw_setup0(1, depth,
			      qpu_vdw_dma(horiz, QPU_VPM_SIZE_32, y, x, 0));
}

/*
 * The orientation. Plain: panels are rows of A (and of C), lanes columns
 * of B and C. Transposed (C^T = B^T A^T): panels are columns of B and C,
 * lanes rows of A and C; the kernel then computes 16-row, W-column tiles
 * of C and stores them a C row part at a time. The wrapper takes the one
 * that loads fewer bytes.
 */
struct sgemm_ctx {
	const struct qpu_matrix *a, *b, *c;
	bool trans;
	float beta;
	size_t k;
	size_t kp;		/* k values the kernel runs: K, at least AHEAD */
	size_t kq;		/* those of the loops, which ask the TMU: kp - AHEAD */
	size_t lanes;		/* N plain, M transposed */
	uint32_t scratch_bus;
	bool prefetch;		/* the panel prefetch is worth its traffic */
	size_t dummy;		/* offset of the dummy store area */
	const struct sgemm_panel *panels;
	uint64_t stores;	/* bytes the DMA stores write */
};

static uint32_t sgemm_addr(const struct qpu_matrix *x, size_t row,
			   size_t col)
{
	return qpu_kernel_addr(x->bo, x->offset + (row * x->stride + col) * 4);
}

/* Address of C's element at panel row @r, lane @l. */
static uint32_t sgemm_c(const struct sgemm_ctx *x, size_t r, size_t l)
{
	return x->trans ? sgemm_addr(x->c, l, r) : sgemm_addr(x->c, r, l);
}

/*
 * The panel's uniform stream, in the kernel's reading order: a flag (the
 * main loop runs), per main-loop turn U values of k, then a flag (the
 * remainder loop runs), per remainder turn one value of k, then the AHEAD
 * last values of k. A k of a loop is the address of the panel's lines to
 * prefetch, then its W values, in whose last four, for a loop's closing k,
 * a flag: go round again. The last AHEAD values of k are their W values.
 * All of it depends on the panel and K only: every tile of the panel reads
 * the same stream. sgemm_step_word() is where k starts, in words.
 */
static size_t sgemm_step_word(const struct sgemm_ctx *x, unsigned int w,
			      size_t k)
{
	size_t turns = x->kq / SGEMM_U, turn = SGEMM_U * (w + 1) + 1;

	if (k < turns * SGEMM_U)
		return 1 + k / SGEMM_U * turn + k % SGEMM_U * (w + 1);
	if (k < x->kq)
		return 2 + turns * turn + (k - turns * SGEMM_U) * (w + 2);
	return 2 + turns * turn + (x->kq % SGEMM_U) * (w + 2) + (k - x->kq) * w;
}

/* Words of a panel's stream. */
static size_t sgemm_stream_words(const struct sgemm_ctx *x, unsigned int w)
{
	return sgemm_step_word(x, w, x->kp);
}

/*
 * Bus address of the prefetch of k (at most kp - 1) of panel @p. Without
 * an L2 to fill (sgemm_l2_prefetch()), every prefetch reads the panel's
 * first lines again: TMU 1's cache hits, no SDRAM traffic, and the code
 * and the stream's layout stay the same.
 */
static uint32_t sgemm_prefetch(const struct sgemm_ctx *x,
			       const struct sgemm_panel *p, size_t k)
{
	if (!x->prefetch)
		k = 0;
	return x->scratch_bus + (uint32_t)(p->offset +
		sgemm_step_word(x, p->w, k < x->kp ? k : x->kp - 1) * 4);
}

/*
 * Whether the panel prefetch fills an L2 the other programs read the
 * stream from: not where the device's buffers bypass it (a Pi 2 or 3,
 * QPU_DEV_PARAM_BO_L2_CACHED 0), where it only doubles the panels'
 * SDRAM traffic (1024x1024x1024 on a Pi 3's model: 12 QPUs slower than
 * 8). A device that cannot tell (qpu.ko before the parameter) keeps it.
 */
static bool sgemm_l2_prefetch(struct qpu_kernels *kernels)
{
	uint64_t l2;

	return qpu_dev_get_param(kernels->dev, QPU_DEV_PARAM_BO_L2_CACHED, &l2) || l2;
}

/*
 * One tile into @ws, whose word 0 is at bus address @list_bus; @more says
 * whether another tile follows. The order is the kernel's: see the top of
 * sgemm.qasm.
 */
static void sgemm_tile_words(struct sgemm_ctx *x, const struct sgemm_tile *t,
			     struct sgemm_words *ws, uint32_t list_bus,
			     bool more)
{
	const struct sgemm_panel *p = &x->panels[t->panel];
	uint32_t dummy = x->scratch_bus + (uint32_t)x->dummy;
	size_t l0 = t->col0, last_row = p->row0 + p->valid - 1;
	unsigned int lanes = x->lanes - l0 < SGEMM_COLS ?
			     (unsigned int)(x->lanes - l0) : SGEMM_COLS;
	unsigned int i, r, vpm_row = t->prog * SGEMM_BATCH;
	uint32_t base, step;
	/* bytes from the end of a row part of C to the next row's */
	size_t gap = (x->c->stride - lanes) * 4;
	bool strided = !x->trans && gap <= QPU_VDW_STRIDE;	/* the field from bit 0 */
	bool blend = x->beta != 0.0f;

	/* the round's barrier (sgemm_barriers()), then the k loop */
	sgemm_push(ws, t->barrier);
	sgemm_push(ws, t->go);
	sgemm_push(ws, lanes - 1);
	if (x->trans) {
		step = 4;
		sgemm_push(ws, (uint32_t)(x->a->stride * 4));
		base = sgemm_addr(x->a, l0, 0);
	} else {
		step = (uint32_t)(x->b->stride * 4);
		sgemm_push(ws, 4);
		base = sgemm_addr(x->b, 0, l0);
	}
	/* the first requests; past K - 1 (K < AHEAD) they read K - 1 again */
	for (i = 0; i < SGEMM_AHEAD; i++)
		sgemm_push(ws, base + (uint32_t)(i < x->k ? i : x->k - 1) * step);
	/* r1: moved on by a step before each request of the loops */
	sgemm_push(ws, base + (SGEMM_AHEAD - 1) * step);
	sgemm_push(ws, step);
	/* a prefetch's 16 lanes span one k of the panel */
	sgemm_push(ws, p->w * 4 / SGEMM_COLS);
	for (i = 0; i < SGEMM_PREFETCH; i++)
		sgemm_push(ws, sgemm_prefetch(x, p, i));
	sgemm_push(ws, list_bus + (uint32_t)(ws->n + 3) * 4);
	sgemm_push(ws, sgemm_variant(p->w));
	sgemm_push(ws, x->scratch_bus + (uint32_t)p->offset);

	/* second part: the stores */
	sgemm_push(ws, x->trans);
	sgemm_push(ws, blend ? qpu_unif_f(x->beta) : 0);
	sgemm_push(ws, lanes - 1);
	sgemm_push(ws, (uint32_t)(x->trans ? x->c->stride * 4 : 4));
	if (!x->trans) {
		/* a DMA per batch where the VDW stride reaches the next row */
		sgemm_push(ws, !strided);
		sgemm_push(ws, qpu_vdw_setup1(strided ? gap : 0));
	}
	/* VDW setup step of a DMA per row: the next VPM column or row */
	if (!strided)
		sgemm_push(ws, QPU_FIELD_PREP(x->trans ? QPU_VDW_X : QPU_VDW_Y, 1));
	for (i = 0; blend && i < 2 && i < p->w; i++)
		sgemm_push(ws, sgemm_c(x, i < p->valid ? p->row0 + i : last_row,
				       l0));
	for (i = 0; i < p->w; i += SGEMM_BATCH) {
		/*
		 * Rows past the panel's end are copies of its last valid row
		 * (see sgemm_pack()): in a batch with valid rows their stores
		 * go to that row, the same values again. A batch of padding
		 * only stores to the dummy area: its old C, read after that
		 * row's store, is no longer the old one.
		 */
		unsigned int valid = i < p->valid ? p->valid - i : 0;

		if (valid > SGEMM_BATCH)
			valid = SGEMM_BATCH;
		sgemm_push(ws, qpu_kernel_vw_row(vpm_row));
		for (r = 0; blend && r < SGEMM_BATCH; r++) {
			unsigned int ahead = i + r + 2;

			if (ahead < p->w)
				sgemm_push(ws, sgemm_c(x, ahead < p->valid ?
						       p->row0 + ahead :
						       last_row, l0));
		}
		/* VDW setup of store 0, last, pitch, first address */
		if (strided) {
			sgemm_push(ws, qpu_kernel_vdw_rows(valid ? valid : 1,
							   lanes, vpm_row));
			x->stores += (uint64_t)(valid ? valid : 1) * lanes * 4;
		} else if (!x->trans) {
			sgemm_push(ws, sgemm_vdw(lanes, true, vpm_row, 0));
			sgemm_push(ws, valid ? valid - 1 : 0);
			sgemm_push(ws, (uint32_t)(x->c->stride * 4));
			x->stores += (uint64_t)SGEMM_BATCH * lanes * 4;
		} else {
			sgemm_push(ws, sgemm_vdw(valid ? valid : 1, false,
						 vpm_row, 0));
			sgemm_push(ws, valid ? lanes - 1 : 0);
			sgemm_push(ws, (uint32_t)(x->c->stride * 4));
			x->stores += (uint64_t)SGEMM_COLS * (valid ? valid : 1) * 4;
		}
		sgemm_push(ws, valid ? sgemm_c(x, p->row0 + i, l0) : dummy);
	}
	sgemm_push(ws, more);
}

/*
 * alpha * A (plain) or alpha * B^T (transposed), panel by panel, k-major;
 * rows past the end repeat the last valid row, so the kernel's registers for
 * them hold that row's results, which may then be stored over it again.
 * Values of k past K - 1 (K < AHEAD) are zeros: their products add
 * nothing (the lane operand they multiply is row K - 1 again, finite).
 */
static void sgemm_pack(const struct sgemm_ctx *x, float alpha, void *scratch,
		       unsigned int npanels)
{
	const struct qpu_matrix *src = x->trans ? x->b : x->a;
	const float *m = (const float *)((const char *)qpu_bo_get_map(src->bo) +
					 src->offset);
	size_t rs = x->trans ? 1 : src->stride, ks = x->trans ? src->stride : 1;
	size_t turns = x->kq / SGEMM_U, k;
	unsigned int p, i;

	for (p = 0; p < npanels; p++) {
		const struct sgemm_panel *pn = &x->panels[p];
		uint32_t *out = (uint32_t *)((char *)scratch + pn->offset);

		for (k = 0; k < x->kp; k++) {
			bool main = k < turns * SGEMM_U;
			/* a loop's closing k: its flag says whether it goes on */
			bool close = k < x->kq && (!main || k % SGEMM_U == SGEMM_U - 1);
			bool again = main ? k / SGEMM_U + 1 < turns : k + 1 < x->kq;

			if (k == 0)
				*out++ = turns != 0;
			if (k == turns * SGEMM_U)
				*out++ = x->kq > k;
			if (k < x->kq)
				*out++ = sgemm_prefetch(x, pn, k + SGEMM_PREFETCH);
			for (i = 0; i < pn->w; i++) {
				size_t row = pn->row0 +
					     (i < pn->valid ? i : pn->valid - 1);
				float v = k < x->k ? alpha * m[row * rs + k * ks] : 0.0f;

				if (close && i == pn->w - 3)
					*out++ = again;
				*out++ = qpu_unif_f(v);
			}
		}
	}
}

/* Bytes the k loops load (uniforms and TMU): panels along @p, lanes along
 * @l. */
static double sgemm_traffic(size_t p, size_t l, size_t k)
{
	size_t row = 0, width = 0, count = 0;

	while (row < p) {
		unsigned int w = sgemm_panel_width(p - row);

		width += w;
		count++;
		row += p - row < w ? p - row : w;
	}
	return (double)((l + 15) / 16) * k * (width + 16.0 * count) * 4;
}

/*
 * Panels a round of @qpus tiles spans: the programs run in step, so a
 * round of pr panels by qpus / pr lane tiles loads pr x 64 + qpus / pr x
 * 16 operand values per k from SDRAM (the rest hits the L2); the fewest
 * win (12 QPUs: 2 x 6, 224 values a k, against 256 for 1 x 12).
 */
static unsigned int sgemm_round_panels(unsigned int qpus)
{
	unsigned int p, best = 1;

	for (p = 2; p <= qpus; p++)
		if (qpus % p == 0 &&
		    p * 64 + qpus / p * SGEMM_COLS < best * 64 + qpus / best * SGEMM_COLS)
			best = p;
	return best;
}

/* One tile to the least loaded program (in turn while all weigh the same). */
static void sgemm_deal_one(uint64_t *load, unsigned int qpus,
			   const struct sgemm_panel *panels, unsigned int panel,
			   size_t col, struct sgemm_tile *tiles, size_t *n)
{
	unsigned int q, best = 0;

	for (q = 1; q < qpus; q++)
		if (load[q] < load[best])
			best = q;
	load[best] += panels[panel].w + 1;
	tiles[*n].panel = panel;
	tiles[*n].col0 = col * SGEMM_COLS;
	tiles[*n].prog = best;
	tiles[*n].seq = *n;
	(*n)++;
}

/*
 * The tiles of the @w-row panels in lane tiles @j0 .. @j1 - 1, in rounds
 * of @per panels by @cols lane tiles: lane tile by lane tile across a
 * round's panels, or with @panel_major a panel's @cols lane tiles to
 * consecutive programs (so to one slice's QPUs when @cols is a slice's
 * count).
 */
static void sgemm_deal_region(uint64_t *load, unsigned int qpus,
			      const struct sgemm_panel *panels,
			      unsigned int npanels, unsigned int w, size_t j0,
			      size_t j1, unsigned int per, size_t cols,
			      bool panel_major, struct sgemm_tile *tiles,
			      size_t *n)
{
	unsigned int group[SGEMM_MAX_PROGRAMS], p, g, ng;
	size_t j, jg, i;

	for (p = 0; p < npanels; ) {
		for (ng = 0; p < npanels && ng < per; p++)
			if (panels[p].w == w)
				group[ng++] = p;
		for (jg = j0; jg < j1; jg += cols)
			for (i = 0; i < cols * ng; i++) {
				g = panel_major ? i / cols : i % ng;
				j = jg + (panel_major ? i % cols : i / ng);
				if (j < j1)
					sgemm_deal_one(load, qpus, panels, group[g],
						       j, tiles, n);
			}
	}
}

/* A tile's round, its slice, one of its operands and that one's words a k. */
struct sgemm_operand {
	size_t round, slice, which;
	unsigned int words;
};

static int sgemm_cmp_operand(const void *l, const void *r)
{
	const struct sgemm_operand *x = l, *y = r;

	if (x->round != y->round)
		return x->round < y->round ? -1 : 1;
	if (x->slice != y->slice)
		return x->slice < y->slice ? -1 : 1;
	return x->which < y->which ? -1 : x->which > y->which;
}

/*
 * The words a k of the tiles' panels (@lanes false) or lane tiles that
 * each round's slices load: each distinct one once.
 */
static uint64_t sgemm_slice_operands(const struct sgemm_tile *tiles,
				     size_t n, const struct sgemm_panel *panels,
				     bool lanes, struct sgemm_operand *ops)
{
	size_t round[SGEMM_MAX_PROGRAMS] = { 0 }, t;
	uint64_t words = 0;

	for (t = 0; t < n; t++) {
		const struct sgemm_tile *x = &tiles[t];

		ops[t] = (struct sgemm_operand){
			.round = round[x->prog]++,
			.slice = x->prog / SGEMM_SLICE_QPUS,
			.which = lanes ? x->col0 : x->panel,
			.words = lanes ? SGEMM_COLS : panels[x->panel].w + 1,
		};
	}
	qsort(ops, n, sizeof(*ops), sgemm_cmp_operand);
	for (t = 0; t < n; t++)
		if (t == 0 || sgemm_cmp_operand(&ops[t - 1], &ops[t]))
			words += ops[t].words;
	return words;
}

/*
 * Operand words per k the @n dealt tiles load from SDRAM where the
 * buffers bypass the L2 (a Pi 2 or 3): in each round (a program's i-th
 * tile is in round i) each slice fetches each of its panels' streams once
 * (its QPUs share its uniforms cache) and each of its lane tiles once (its
 * TMU cache), whichever other slice loads them too. UINT64_MAX when out
 * of memory.
 */
static uint64_t sgemm_slice_words(const struct sgemm_tile *tiles, size_t n,
				  const struct sgemm_panel *panels)
{
	struct sgemm_operand *ops = malloc(n * sizeof(*ops));
	uint64_t words;

	if (!ops)
		return UINT64_MAX;
	words = sgemm_slice_operands(tiles, n, panels, false, ops) +
		sgemm_slice_operands(tiles, n, panels, true, ops);
	free(ops);
	return words;
}

/*
 * Deal the tiles, widest panels first: the programs run in step, so the
 * tiles that run together should share their operands through the L2.
 * Rounds of sgemm_round_panels() panels by the rest of the programs in
 * lane tiles, over as many lane tiles as fill whole rounds; the lane
 * tiles left over in rounds of as many panels as the programs they
 * leave (1024x1024x1024: 80 rounds of 2 x 6, then 5 of 3 x 4 and 4
 * tiles), so that a round spans no more panels than it must. Rounds a
 * slice wide (4 lane tiles) go panel by panel to a slice's QPUs, which
 * then fetch the panel's stream once into their uniforms cache and its
 * prefetches once into their TMU cache (a Pi 1's model, 1024x512x49:
 * 5.58 ms dealt across the slices, 4.88 a panel a slice).
 * With @slices (the buffers bypass the L2: only a slice's QPUs share,
 * through its caches) each slice takes one panel by SGEMM_SLICE_QPUS
 * lane tiles in the rounds the lane tiles fill (12 QPUs: 3 x 4, 384
 * values a k from SDRAM, where 2 x 6 dealt across the slices loads 480;
 * a Pi 3's model at 1024x1024x1024: 240 ms to 189).
 */
static void sgemm_deal_as(const struct sgemm_panel *panels,
			  unsigned int npanels, size_t coltiles,
			  unsigned int qpus, bool slices,
			  struct sgemm_tile *tiles, size_t *n)
{
	uint64_t load[SGEMM_MAX_PROGRAMS] = { 0 };
	unsigned int w, per = slices ? qpus / SGEMM_SLICE_QPUS : sgemm_round_panels(qpus);
	size_t cols = qpus / per, full = coltiles - coltiles % cols;
	size_t rest = coltiles - full;
	bool sliced = qpus % SGEMM_SLICE_QPUS == 0;

	*n = 0;
	for (w = 64; w >= 16; w /= 2) {
		sgemm_deal_region(load, qpus, panels, npanels, w, 0, full, per,
				  cols, sliced && cols == SGEMM_SLICE_QPUS,
				  tiles, n);
		if (rest)
			sgemm_deal_region(load, qpus, panels, npanels, w, full,
					  coltiles, qpus / rest ? qpus / rest : 1,
					  rest, sliced && rest == SGEMM_SLICE_QPUS,
					  tiles, n);
	}
}

/*
 * The tiles dealt as sgemm_deal_as() says; where the buffers bypass the
 * L2 (@l2 false) and 12 QPUs' lane tiles do not fill rounds of 3 x 4,
 * dealt both ways, the one that loads fewer operand words kept
 * (sgemm_slice_words(); a Pi 3's model, 512x512x196: 13.2 ms dealt
 * 2 x 6, 11.1 with 3 x 4 and 8 x 1; 96x363x3072: 30.4 and 43.8).
 */
static unsigned int sgemm_deal(const struct sgemm_panel *panels,
			       unsigned int npanels, size_t coltiles,
			       unsigned int qpus, bool l2,
			       struct sgemm_tile *tiles)
{
	unsigned int q, used = 0;
	bool slices = !l2 && qpus % SGEMM_SLICE_QPUS == 0;
	size_t n, t;

	if (slices && coltiles % SGEMM_SLICE_QPUS) {
		uint64_t across, sliced;

		sgemm_deal_as(panels, npanels, coltiles, qpus, false, tiles, &n);
		across = sgemm_slice_words(tiles, n, panels);
		sgemm_deal_as(panels, npanels, coltiles, qpus, true, tiles, &n);
		sliced = sgemm_slice_words(tiles, n, panels);
		slices = sliced < across;
	}
	sgemm_deal_as(panels, npanels, coltiles, qpus, slices, tiles, &n);
	for (t = 0; t < n; t++)
		used |= 1u << tiles[t].prog;
	for (q = 0, t = 0; q < qpus; q++)
		t += used >> q & 1;
	return (unsigned int)t;	/* programs 0..t-1 got tiles (least loaded first) */
}

static int sgemm_cmp_tile(const void *l, const void *r)
{
	const struct sgemm_tile *x = l, *y = r;

	if (x->prog != y->prog)
		return x->prog < y->prog ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * The rounds' barriers, on tiles sorted by program: the programs start
 * their i-th tiles together, the lowest-numbered the master of the others.
 * The rounds share their operands through the L2 only while the programs
 * run in step; with the L2's random replacement, one that falls some
 * hundred values of k behind (its slice's instruction cache refilled
 * while the others store) finds the shared lines gone, loads them again,
 * and with SDRAM near saturation slows everyone else out of step too.
 * Only rounds whose tiles all have one width: their tiles take one time.
 * The GO semaphore alternates from barrier to barrier, not round to round:
 * a member can be one barrier ahead of another, never two.
 */
static void sgemm_barriers(struct sgemm_tile *tiles, size_t ntiles,
			   const struct sgemm_panel *panels)
{
	size_t t, first = 0, r, rounds = 0, barriers = 0;

	for (t = 0; t < ntiles; t++) {
		if (t && tiles[t].prog != tiles[t - 1].prog)
			first = t;
		tiles[t].round = (unsigned int)(t - first);
		tiles[t].barrier = 0;
		tiles[t].go = 0;
		if (tiles[t].round + 1 > rounds)
			rounds = tiles[t].round + 1;
	}
	for (r = 0; r < rounds; r++) {
		unsigned int n = 0, w = 0;
		struct sgemm_tile *master = NULL;
		bool same = true;

		for (t = 0; t < ntiles; t++) {
			if (tiles[t].round != r)
				continue;
			if (!master)
				master = &tiles[t];
			else if (panels[tiles[t].panel].w != w)
				same = false;
			w = panels[tiles[t].panel].w;
			n++;
		}
		if (n < 2 || !same)
			continue;
		for (t = 0; t < ntiles; t++) {
			if (tiles[t].round != r)
				continue;
			tiles[t].barrier = &tiles[t] == master ? n : 1;
			tiles[t].go = barriers & 1;
		}
		barriers++;
	}
}

/* Submit one program per list and wait: see the top of this file. */
static int sgemm_submit(struct qpu_kernels *kernels,
			const struct qpu_kernel_code *prog, struct qpu_bo *scratch,
			const uint32_t *list_offsets, unsigned int progs,
			struct qpu_bo *const *bos, unsigned int nbos,
			struct qpu_kernel_stats *stats)
{
	const char *name = prog->name;
	struct qpu_program_ref refs[SGEMM_MAX_PROGRAMS];
	struct qpu_job_desc job = { .in_fence_fd = -1 };
	struct qpu_bo *code;
	unsigned int i;

	code = qpu_kernel_code_bo(kernels, prog);
	if (!code)
		return qpu_kernel_fail(kernels, errno, name, "code buffer: %s",
				       strerror(errno));
	for (i = 0; i < progs; i++)
		refs[i] = (struct qpu_program_ref){
			.code = code,
			.uniforms = scratch,
			.uniforms_offset = list_offsets[i],
		};
	job.programs = refs;
	job.program_count = progs;
	job.bos = bos;
	job.bo_count = nbos;
	return qpu_kernel_submit(kernels, name, &job, stats);
}

/* @bo unless @bos already has it; returns the new count. */
static unsigned int sgemm_add_bo(struct qpu_bo **bos, unsigned int n,
				 struct qpu_bo *bo)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (bos[i] == bo)
			return n;
	bos[n] = bo;
	return n + 1;
}

int qpu_sgemm(struct qpu_kernels *kernels, unsigned int qpus, float alpha,
	      const struct qpu_matrix *a, const struct qpu_matrix *b,
	      float beta, const struct qpu_matrix *c,
	      struct qpu_kernel_stats *stats)
{
	const char *name = sgemm_prog.name;
	struct sgemm_panel *panels = NULL;
	struct sgemm_tile *tiles = NULL;
	struct sgemm_words ws = { 0 };
	struct sgemm_ctx x;
	struct qpu_bo *scratch = NULL, *bos[3];
	uint32_t offsets[16];
	size_t m, n, k, coltiles, ntiles, packed = 0, lists, t, tmu = 0;
	unsigned int npanels, p, progs, prog, nbos;
	uint64_t unif = 0;
	int ret;

	qpu_kernel_clear_error(kernels);
	ret = sgemm_check(kernels, name, qpus, a, b, c);
	if (ret)
		return ret;
	if (qpu_gen_is_v3d(kernels->gen))
		return qpu_sgemm_v3d(kernels, qpus, alpha, a, b, beta, c, stats);
	m = a->rows;
	k = a->cols;
	n = b->cols;
	if (qpus > SGEMM_MAX_PROGRAMS)
		qpus = SGEMM_MAX_PROGRAMS;
	x = (struct sgemm_ctx){
		.a = a, .b = b, .c = c, .beta = beta, .k = k,
		.kp = k > SGEMM_AHEAD ? k : SGEMM_AHEAD,
		.kq = k > SGEMM_AHEAD ? k - SGEMM_AHEAD : 0,
		.trans = sgemm_traffic(n, m, k) < sgemm_traffic(m, n, k),
		.prefetch = sgemm_l2_prefetch(kernels),
	};
	if (x.trans) {
		size_t swap = m;

		m = n;
		n = swap;
	}
	/* from here on m counts panel rows, n lanes */
	x.lanes = n;
	coltiles = (n + SGEMM_COLS - 1) / SGEMM_COLS;

	panels = calloc(m / 16 + 2, sizeof(*panels));
	if (!panels)
		return qpu_kernel_fail(kernels, ENOMEM, name, "out of memory");
	x.panels = panels;
	npanels = sgemm_panels(m, panels);
	ntiles = npanels * coltiles;
	tiles = calloc(ntiles, sizeof(*tiles));
	if (!tiles) {
		ret = qpu_kernel_fail(kernels, ENOMEM, name, "out of memory");
		goto out;
	}
	progs = sgemm_deal(panels, npanels, coltiles, qpus, x.prefetch, tiles);
	qsort(tiles, ntiles, sizeof(*tiles), sgemm_cmp_tile);
	sgemm_barriers(tiles, ntiles, panels);

	/* First pass: the size of the lists (addresses do not change it). */
	for (t = 0; t < ntiles; t++)
		sgemm_tile_words(&x, &tiles[t], &ws, 0,
				 t + 1 < ntiles && tiles[t + 1].prog == tiles[t].prog);
	if (ws.failed) {
		ret = qpu_kernel_fail(kernels, ENOMEM, name, "out of memory");
		goto out;
	}
	/* Scratch: the lists, the dummy store area, the panels. */
	lists = ws.n * 4;
	x.dummy = lists;
	packed = lists + SGEMM_DUMMY;
	for (p = 0; p < npanels; p++) {
		panels[p].offset = packed;
		size_t words = sgemm_stream_words(&x, panels[p].w);

		if ((uint64_t)words * 4 > UINT32_MAX - packed) {
			ret = qpu_kernel_fail(kernels, EINVAL, name,
					      "the packed %s does not fit a buffer",
					      x.trans ? "B" : "A");
			goto out;
		}
		packed += words * 4;
	}
	scratch = qpu_kernel_scratch(kernels, packed);
	if (!scratch) {
		ret = qpu_kernel_fail(kernels, errno, name, "scratch buffer: %s",
				      strerror(errno));
		goto out;
	}
	x.scratch_bus = qpu_bo_get_bus_addr(scratch);
	ret = qpu_kernel_host_read(kernels, name, (x.trans ? b : a)->bo);
	if (ret)
		goto out;
	sgemm_pack(&x, alpha, qpu_bo_get_map(scratch), npanels);

	/* Second pass: the lists, with their addresses. */
	ws.n = 0;
	x.stores = 0;
	for (t = 0, prog = 0; t < ntiles; t++) {
		if (t == 0 || tiles[t].prog != tiles[t - 1].prog)
			offsets[prog++] = (uint32_t)ws.n * 4;
		sgemm_tile_words(&x, &tiles[t], &ws, x.scratch_bus,
				 t + 1 < ntiles && tiles[t + 1].prog == tiles[t].prog);
		/* lane operand, panel prefetches, old C: 16 words each */
		tmu += (x.kp + SGEMM_PREFETCH + x.kq +
			(beta != 0.0f ? panels[tiles[t].panel].w : 0)) * 64;
		unif += (uint64_t)sgemm_stream_words(&x, panels[tiles[t].panel].w) * 4;
	}
	memcpy(qpu_bo_get_map(scratch), ws.w, lists);

	nbos = sgemm_add_bo(bos, 0, a->bo);
	nbos = sgemm_add_bo(bos, nbos, b->bo);
	nbos = sgemm_add_bo(bos, nbos, c->bo);
	ret = sgemm_submit(kernels, &sgemm_prog, scratch, offsets, progs, bos,
			   nbos, stats);
	if (!ret && stats) {
		stats->tmu_bytes = tmu;
		stats->uniform_bytes = unif + lists;
		stats->dma_load_bytes = 0;
		stats->dma_store_bytes = x.stores;
	}
out:
	free(ws.w);
	free(tiles);
	free(panels);
	return ret;
}

/*
 * qpu_sgemm_16x64(): sgemm16x64.qasm, PyVideoCore's schedule (see the top
 * of that file). The tiles are dealt as PyVideoCore deals them: the
 * programs form a grid of row groups by column groups, each program a
 * rectangle of 16x64 tiles, row by row; of the grids with the fewest
 * tiles on the busiest program, the one whose column groups are nearest
 * six times its row groups, more row groups on a tie (PyVideoCore's 2 x 6
 * for its 12 threads, which ties with 1 x 12).
 */
#define SGEMM16_WORDS	11	/* list words per tile (sgemm16x64.qasm) */

static void sgemm16_grid(size_t mb, size_t nb, unsigned int qpus,
			 unsigned int *rows, unsigned int *cols)
{
	size_t best = SIZE_MAX, best_skew = SIZE_MAX;
	unsigned int p;

	for (p = 1; p <= qpus; p++) {
		size_t q = qpus / p, load, skew;

		if (qpus % p)
			continue;
		load = ((mb + p - 1) / p) * ((nb + q - 1) / q);
		skew = q > 6 * p ? q - 6 * p : 6 * p - q;
		if (load < best || (load == best && skew <= best_skew)) {
			best = load;
			best_skew = skew;
			*rows = p;
			*cols = (unsigned int)q;
		}
	}
}

int qpu_sgemm_16x64(struct qpu_kernels *kernels, unsigned int qpus,
		    const struct qpu_matrix *a, const struct qpu_matrix *b,
		    float beta, const struct qpu_matrix *c,
		    struct qpu_kernel_stats *stats)
{
	const char *name = sgemm16x64_prog.name;
	uint32_t offsets[SGEMM_MAX_PROGRAMS], *w, list;
	struct qpu_bo *scratch, *bos[3];
	unsigned int gr = 1, gc = 1, pr, pc, progs = 0, nbos;
	size_t mb, nb, tiles = 0, i, j, n = 0;
	uint64_t tmu = 0, unif = 0, loads = 0;
	int ret;

	qpu_kernel_clear_error(kernels);
	ret = sgemm_check(kernels, name, qpus, a, b, c);
	if (ret)
		return ret;
	if (qpu_gen_is_v3d(kernels->gen))	/* VideoCore IV's schedule only */
		return qpu_kernel_fail(kernels, ENOTSUP, name,
				       "no program for this device's generation");
	if (a->rows % 16 || b->cols % 64 || a->cols < 3)
		return qpu_kernel_fail(kernels, EINVAL, name,
				       "M must be a multiple of 16, N of 64, K at least 3 (%zu x %zu x %zu)",
				       a->rows, a->cols, b->cols);
	mb = a->rows / 16;
	nb = b->cols / 64;
	sgemm16_grid(mb, nb, qpus, &gr, &gc);
	scratch = qpu_kernel_scratch(kernels, mb * nb * SGEMM16_WORDS * 4);
	if (!scratch)
		return qpu_kernel_fail(kernels, errno, name, "scratch buffer: %s",
				       strerror(errno));
	w = qpu_bo_get_map(scratch);
	list = qpu_bo_get_bus_addr(scratch);
	for (pr = 0; pr < gr; pr++) {
		for (pc = 0; pc < gc; pc++) {
			size_t i0 = pr * ((mb + gr - 1) / gr), i1;
			size_t j0 = pc * ((nb + gc - 1) / gc), j1;

			i1 = i0 + (mb + gr - 1) / gr;
			j1 = j0 + (nb + gc - 1) / gc;
			i1 = i1 < mb ? i1 : mb;
			j1 = j1 < nb ? j1 : nb;
			if (i0 >= i1 || j0 >= j1)
				continue;
			offsets[progs++] = (uint32_t)n * 4;
			for (i = i0; i < i1; i++) {
				for (j = j0; j < j1; j++) {
					size_t ldc = c->stride * 4;

					w[n++] = sgemm_addr(a, i * 16, 0);
					w[n++] = (uint32_t)a->stride * 4;
					w[n++] = sgemm_addr(b, 0, j * 64);
					w[n++] = (uint32_t)b->stride * 4;
					w[n++] = (uint32_t)a->cols - 1;
					w[n] = list + (uint32_t)(n + 1) * 4;
					n++;
					w[n++] = qpu_unif_f(beta);
					w[n++] = sgemm_addr(c, i * 16, j * 64);
					w[n++] = qpu_vdr_setup1((uint32_t)ldc);
					w[n++] = qpu_vdw_setup1((uint32_t)ldc - 64);
					w[n++] = i + 1 < i1 || j + 1 < j1;
					tiles++;
				}
			}
		}
	}
	nbos = sgemm_add_bo(bos, 0, a->bo);
	nbos = sgemm_add_bo(bos, nbos, b->bo);
	nbos = sgemm_add_bo(bos, nbos, c->bo);
	ret = sgemm_submit(kernels, &sgemm16x64_prog, scratch, offsets, progs,
			   bos, nbos, stats);
	if (!ret && stats) {
		tmu = (uint64_t)tiles * a->cols * 64;
		unif = (uint64_t)tiles * (a->cols * 64 + SGEMM16_WORDS) * 4;
		loads = beta != 0.0f ? (uint64_t)a->rows * b->cols * 4 : 0;
		stats->tmu_bytes = tmu;
		stats->uniform_bytes = unif;
		stats->dma_load_bytes = loads;
		stats->dma_store_bytes = (uint64_t)a->rows * b->cols * 4;
	}
	return ret;
}
