// SPDX-License-Identifier: MIT
/*
 * qpu_sgemm() on V3D 4.2/7.1: v3d/sgemm.qasm, one program a QPU. The host
 * packs alpha * A into zero-padded panels of 16 rows, k-major (the stream
 * the program reads with ldunifa), cuts C into 16 x 16 tiles and deals
 * them round robin, panel by panel within a column block, so that the
 * programs running side by side read the same rows of B (the L2T serves
 * all but the first). Each program's window lists its tiles; the windows
 * and the panels share @kernels's scratch buffer with the dispatch's two
 * words (launch_v3d.c, "DOC: V3D launch"). B and C are used in place.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "v3d/sgemm_v3d42.qasm.h"
#include "v3d/sgemm_v3d71.qasm.h"

#define SG_TILE		16	/* rows and columns of a tile */
#define SG_UNROLL	8	/* k a turn of the main loop (v3d/sgemm.qasm) */
#define SG_AHEAD	3	/* rows of B asked for ahead (.set AHEAD) */
#define SG_HEAD_WORDS	7	/* a window's words before its tiles */
#define SG_TILE_WORDS	6	/* a tile's words */
#define SG_HEADER_WORDS	2	/* the dispatch's own two uniforms */
#define SG_PAD		64	/* bytes past the panels: the one A value read ahead */

static const struct qpu_kernel_code sgemm_v3d[] = {
	QPU_KERNEL_V3D_CODE("sgemm", sgemm_v3d42_code, 0),
	QPU_KERNEL_V3D_CODE("sgemm", sgemm_v3d71_code, 0),
};

static uint32_t matrix_addr(const struct qpu_matrix *x, size_t row, size_t col)
{
	return qpu_kernel_addr(x->bo, x->offset + (row * x->stride + col) * 4);
}

/* Pack alpha * A's panels (k-major, rows past M zero) at @out. */
static void sgemm_v3d_pack(float *out, float alpha, const struct qpu_matrix *a,
			   size_t panels)
{
	const float *src = (const float *)((const char *)qpu_bo_get_map(a->bo) + a->offset);
	size_t p, i, k;

	for (p = 0; p < panels; p++)
		for (k = 0; k < a->cols; k++)
			for (i = 0; i < SG_TILE; i++) {
				size_t row = p * SG_TILE + i;

				*out++ = row < a->rows ? alpha * src[row * a->stride + k] : 0.0f;
			}
}

/* Unique buffers of B, C and the scratch buffer into @bos; their count. */
static unsigned int sgemm_v3d_bos(struct qpu_bo **bos, struct qpu_bo *b, struct qpu_bo *c,
				  struct qpu_bo *s)
{
	unsigned int n = 0;

	bos[n++] = s;
	if (b != s)
		bos[n++] = b;
	if (c != s && c != b)
		bos[n++] = c;
	return n;
}

int qpu_sgemm_v3d(struct qpu_kernels *kernels, unsigned int qpus, float alpha,
		  const struct qpu_matrix *a, const struct qpu_matrix *b, float beta,
		  const struct qpu_matrix *c, struct qpu_kernel_stats *stats)
{
	const struct qpu_kernel_code *code = &sgemm_v3d[kernels->gen == QPU_GEN_V3D71];
	size_t m = a->rows, k = a->cols, n = b->cols;
	size_t panels = (m + SG_TILE - 1) / SG_TILE, blocks = (n + SG_TILE - 1) / SG_TILE;
	size_t tiles = panels * blocks, per, window, panel_off, bytes, t;
	unsigned int progs = qpus < tiles ? qpus : (unsigned int)tiles, p, nbos;
	struct qpu_bo *scratch, *bos[3];
	uint32_t *u, base;
	uint64_t unif;
	int ret;

	per = (tiles + progs - 1) / progs;
	window = SG_HEAD_WORDS + SG_TILE_WORDS * per;
	panel_off = ((SG_HEADER_WORDS + progs * window) * 4 + 63) & ~(size_t)63;
	bytes = panel_off + panels * k * SG_TILE * 4 + SG_PAD;
	scratch = qpu_kernel_scratch(kernels, bytes);
	if (!scratch)
		return qpu_kernel_fail(kernels, errno, code->name, "scratch buffer: %s",
				       strerror(errno));
	u = qpu_bo_get_map(scratch);
	base = qpu_kernel_addr(scratch, 0);
	u[0] = base + SG_HEADER_WORDS * 4;
	u[1] = (uint32_t)(window * 4);
	unif = (uint64_t)progs * SG_HEADER_WORDS * 4;
	for (p = 0; p < progs; p++) {
		uint32_t *w = u + SG_HEADER_WORDS + p * window, *tw = w + SG_HEAD_WORDS;
		unsigned int count = 0;

		for (t = p; t < tiles; t += progs, count++) {
			size_t panel = t % panels, col = t / panels * SG_TILE;
			size_t row = panel * SG_TILE;

			*tw++ = base + (uint32_t)(panel_off + panel * k * SG_TILE * 4);
			*tw++ = matrix_addr(b, 0, col);
			*tw++ = matrix_addr(c, row, col);
			*tw++ = matrix_addr(b, k - 1, col);
			*tw++ = (uint32_t)(m - row < SG_TILE ? m - row : SG_TILE);
			*tw++ = (uint32_t)(n - col < SG_TILE ? n - col : SG_TILE);
		}
		w[0] = count;
		w[1] = (uint32_t)(k % SG_UNROLL);
		w[2] = (uint32_t)(k / SG_UNROLL);
		w[3] = (uint32_t)(b->stride * 4);
		w[4] = (uint32_t)(c->stride * 4);
		w[5] = qpu_unif_f(beta);
		w[6] = beta != 0.0f;
		unif += (SG_HEAD_WORDS + (uint64_t)SG_TILE_WORDS * count) * 4;
	}
	ret = qpu_kernel_host_read(kernels, code->name, a->bo);
	if (ret)
		return ret;
	sgemm_v3d_pack((float *)((char *)u + panel_off), alpha, a, panels);
	nbos = sgemm_v3d_bos(bos, b->bo, c->bo, scratch);
	ret = qpu_kernel_dispatch_v3d(kernels, code, progs, scratch, bos, nbos, stats);
	if (stats) {
		/* B's rows (whole lookups, AHEAD more a tile), C's stores and loads */
		stats->tmu_bytes = (uint64_t)tiles * (k + SG_AHEAD) * SG_TILE * 4 +
				   (uint64_t)m * n * 4 * (beta != 0.0f ? 2 : 1);
		/* the panel once a tile, one value read ahead */
		stats->uniform_bytes = unif + (uint64_t)tiles * (k * SG_TILE + 1) * 4;
		stats->dma_load_bytes = 0;
		stats->dma_store_bytes = 0;
	}
	return ret;
}
