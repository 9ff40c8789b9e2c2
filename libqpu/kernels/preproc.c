// SPDX-License-Identifier: MIT
/*
 * qpu_preprocess(): the plan (preproc_plan.c) turned into each program's
 * uniforms and run as one job, every program a run of output rows (V3D:
 * v3d/preproc.qasm; VideoCore IV: preproc.qasm); qpu_preprocess_submit(),
 * the same job left pending with its out-fence.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "preproc.h"
#include "preproc.qasm.h"
#include "v3d/preproc_v3d42.qasm.h"
#include "v3d/preproc_v3d71.qasm.h"

/*
 * A program's uniforms window (v3d/preproc.qasm, preproc.qasm): its words
 * in order. VideoCore IV's program reads the words after PU_255 too, and
 * the sections again through unif_addr, so it needs its window's address.
 */
enum preproc_unif {
	PU_HS = 0, PU_M = 3, PU_FX0 = 6, PU_STEPX, PU_XLO, PU_XHI, PU_AREA_X,
	PU_AREA_WM1, PU_WM1, PU_PIX_BYTES, PU_CHAN_BYTES, PU_BYTE_CFG, PU_NVEC,
	PU_ROW, PU_ROWS, PU_OUT, PU_ROW_BYTES, PU_FY, PU_INV65536, PU_255,
	/* VideoCore IV only */
	PU_WINDOW, PU_VW, PU_VDW_FULL, PU_VDW_TAIL, PU_STORES, PU_STORE_STEP,
	PU_VDW_STEP, PU_VEC_BYTES,
	/* the row section, read again every row */
	PU_ROW_SECTION, PU_B = PU_ROW_SECTION, PU_S = PU_B + 3, PU_VS = PU_S + 3,
	PU_STEPY = PU_VS + 3, PU_YLO, PU_YHI, PU_AREA_Y, PU_AREA_HM1,
	/* the colour section, read again every vector */
	PU_COL_SECTION, PU_MK = PU_COL_SECTION, PU_PAD = PU_MK + 12,
	PU_AB, PU_WCFG = PU_AB + 6, PU_QRANGE, PU_QMIN,
	PU_WORDS
};

/* Words of the row and colour sections the programs read. */
#define PREPROC_ROW_WORDS	(PU_COL_SECTION - PU_ROW_SECTION)
#define PREPROC_COL_WORDS	(PU_WORDS - PU_COL_SECTION)

/* The programs find the sections there (v3d/preproc.qasm, preproc.qasm). */
_Static_assert(PU_ROW_SECTION * 4 == 1 << 7, "the programs' row section");
_Static_assert((PU_COL_SECTION - PU_ROW_SECTION) * 4 == 7 << 3,
	       "the programs' colour section");

/* The TMU config words: four unsigned byte lookups; four 32-bit ones. */
#define PREPROC_CFG_BYTES	0xfdfdfdfdu
#define PREPROC_CFG_WORDS	0xffffffffu
#define PREPROC_LANES		16
/* TMU lookups a pixel: four taps of three components. */
#define PREPROC_TAPS		12

static const struct qpu_kernel_code preproc_v3d42 =
	QPU_KERNEL_V3D_CODE(PREPROC_NAME, preproc_v3d42_code, 0);
static const struct qpu_kernel_code preproc_v3d71 =
	QPU_KERNEL_V3D_CODE(PREPROC_NAME, preproc_v3d71_code, 0);
static const struct qpu_kernel_code preproc_prog = {
	.name = PREPROC_NAME, .halves = preproc_code, .size = sizeof(preproc_code),
	.v3d42 = &preproc_v3d42, .v3d71 = &preproc_v3d71,
};

/* Program @k's window: rows @start .. @start + @count - 1. */
static void v3d_window(const struct qpu_preprocess *p, const struct preproc_plan *pl,
		       size_t start, size_t count, uint32_t *u)
{
	unsigned int c;

	for (c = 0; c < 3; c++) {
		u[PU_HS + c] = pl->comp[c].hs;
		u[PU_M + c] = pl->comp[c].bytes;
		u[PU_B + c] = qpu_kernel_addr(p->src.bo, pl->comp[c].offset);
		u[PU_S + c] = (uint32_t)pl->comp[c].stride;
		u[PU_VS + c] = pl->comp[c].vs;
		u[PU_MK + 4 * c] = qpu_unif_f(pl->m[c][0]);
		u[PU_MK + 4 * c + 1] = qpu_unif_f(pl->m[c][1]);
		u[PU_MK + 4 * c + 2] = qpu_unif_f(pl->m[c][2]);
		u[PU_MK + 4 * c + 3] = qpu_unif_f(pl->k[c]);
		u[PU_AB + 2 * c] = qpu_unif_f(pl->a[c]);
		u[PU_AB + 2 * c + 1] = qpu_unif_f(pl->b[c]);
	}
	u[PU_FX0] = (uint32_t)pl->fx0;
	u[PU_STEPX] = (uint32_t)pl->stepx;
	u[PU_XLO] = (uint32_t)pl->xlo;
	u[PU_XHI] = (uint32_t)pl->xhi;
	u[PU_AREA_X] = pl->area.x;
	u[PU_AREA_WM1] = pl->area.width - 1;
	u[PU_WM1] = pl->width - 1;
	u[PU_PIX_BYTES] = (uint32_t)pl->pix_bytes;
	u[PU_CHAN_BYTES] = (uint32_t)pl->chan_bytes;
	u[PU_BYTE_CFG] = PREPROC_CFG_BYTES;
	u[PU_NVEC] = (pl->width + PREPROC_LANES - 1) / PREPROC_LANES;
	u[PU_ROW] = (uint32_t)start;
	u[PU_ROWS] = (uint32_t)count;
	u[PU_OUT] = qpu_kernel_addr(p->dst_bo, p->dst_offset + start * pl->row_bytes);
	u[PU_ROW_BYTES] = (uint32_t)pl->row_bytes;
	u[PU_FY] = (uint32_t)(pl->fy0 + (int64_t)start * pl->stepy);
	u[PU_INV65536] = qpu_unif_f(1.0f / 65536.0f);
	u[PU_255] = qpu_unif_f(255.0f);
	u[PU_STEPY] = (uint32_t)pl->stepy;
	u[PU_YLO] = (uint32_t)pl->ylo;
	u[PU_YHI] = (uint32_t)pl->yhi;
	u[PU_AREA_Y] = pl->area.y;
	u[PU_AREA_HM1] = pl->area.height - 1;
	u[PU_PAD] = qpu_unif_f(pl->pad);
	u[PU_WCFG] = pl->quant ? PREPROC_CFG_BYTES : PREPROC_CFG_WORDS;
	u[PU_QRANGE] = pl->quant ? qpu_unif_f(pl->qrange) : 0;
	u[PU_QMIN] = (uint32_t)pl->qmin;
}

/*
 * VideoCore IV's words of program @k's window, which qpu_kernel_run() puts
 * at @window; R, G, B in VPM rows 3k..3k+2 (see preproc.qasm).
 */
static void vc4_window(const struct preproc_plan *pl, unsigned int k, uint32_t window,
		       uint32_t *u)
{
	unsigned int tail = pl->width % PREPROC_LANES ? pl->width % PREPROC_LANES :
			    PREPROC_LANES;
	enum qpu_vpm_size size = pl->quant ? QPU_VPM_SIZE_8 : QPU_VPM_SIZE_32;
	bool nhwc = pl->chan_bytes == pl->esize;

	u[PU_WINDOW] = window;
	u[PU_VW] = qpu_kernel_vw_row(3 * k);
	if (nhwc) {	/* 16 (or tail) columns of R, G, B: words, or bytes of row 3k */
		uint32_t dma = qpu_vdw_dma(false, size, 3 * k, 0, 0);

		u[PU_VDW_FULL] = qpu_vdw_setup0(PREPROC_LANES, 3, dma);
		u[PU_VDW_TAIL] = qpu_vdw_setup0(tail, 3, dma);
		u[PU_STORES] = 1;
		u[PU_STORE_STEP] = 0;
		u[PU_VDW_STEP] = 0;
	} else {	/* a row a channel, or 16 bytes of row 3k a channel */
		unsigned int row = pl->quant ? 0 : 1, part = pl->quant ? 1 : 0;

		if (pl->quant)
			u[PU_VW] = qpu_vpm_setup(0, 1, qpu_vpm_addr(true, false, size, 3 * k,
								    0, 0));
		u[PU_VDW_FULL] = qpu_vdw_setup0(1, PREPROC_LANES,
						qpu_vdw_dma(true, size, 3 * k, 0, 0));
		u[PU_VDW_TAIL] = qpu_vdw_setup0(1, tail, qpu_vdw_dma(true, size, 3 * k, 0, 0));
		u[PU_STORES] = 3;
		u[PU_STORE_STEP] = (uint32_t)pl->chan_bytes;
		u[PU_VDW_STEP] = qpu_vdw_dma(true, size, 3 * k + row, 0, part) -
				 qpu_vdw_dma(true, size, 3 * k, 0, 0);
	}
	u[PU_VEC_BYTES] = (uint32_t)(PREPROC_LANES * pl->pix_bytes);
}

/* qpu_preprocess(), which qpu_preprocess_submit() runs submit-only. */
static int preproc_run(struct qpu_kernels *kernels, unsigned int qpus,
		       const struct qpu_preprocess *p, struct qpu_kernel_stats *stats)
{
	struct preproc_plan plan;
	struct qpu_bo *bos[2] = { p ? p->src.bo : NULL, p ? p->dst_bo : NULL };
	struct qpu_kernel_launch l = {
		.code = &preproc_prog, .qpus = qpus, .uniforms_per_qpu = PU_WORDS,
		.bos = bos, .bo_count = 2,
	};
	struct qpu_bo *unif = NULL;
	size_t start, count, lanes;
	unsigned int k;
	bool vc4;
	uint32_t *u;
	int ret;

	qpu_kernel_clear_error(kernels);
	ret = preproc_plan_make(kernels, p, &plan);
	if (!ret)
		ret = qpu_kernel_check_qpus(kernels, PREPROC_NAME, qpus);
	if (ret)
		return ret;
	vc4 = !qpu_gen_is_v3d(kernels->gen);
	if (vc4) {
		/*
		 * qpu_kernel_run() copies the windows to the start of the
		 * scratch buffer, which a call of the same size returns
		 * unchanged: the programs get their windows' addresses.
		 */
		unif = qpu_kernel_scratch(kernels, (size_t)qpus * PU_WORDS * 4);
		if (!unif)
			return qpu_kernel_fail(kernels, errno, PREPROC_NAME,
					       "uniforms buffer: %s", strerror(errno));
	}
	u = calloc((size_t)qpus * PU_WORDS, sizeof(*u));
	if (!u)
		return qpu_kernel_fail(kernels, ENOMEM, PREPROC_NAME, "out of memory");
	for (k = 0; k < qpus; k++) {
		qpu_kernel_split(plan.height, qpus, k, &start, &count);
		v3d_window(p, &plan, start, count, u + (size_t)k * PU_WORDS);
		if (vc4)
			vc4_window(&plan, k, qpu_kernel_addr(unif, (size_t)k * PU_WORDS * 4),
				   u + (size_t)k * PU_WORDS);
	}
	l.uniforms = u;
	ret = qpu_kernel_run(kernels, &l, stats);
	free(u);
	if (!ret && stats) {
		/* every lane of every vector: the last pixel's repeats too */
		lanes = (size_t)plan.height * PREPROC_LANES *
			((plan.width + PREPROC_LANES - 1) / PREPROC_LANES);
		stats->tmu_bytes = lanes * (PREPROC_TAPS + 3 * plan.esize);
		stats->dma_load_bytes = 0;
		stats->dma_store_bytes = 0;
		if (vc4) {	/* word lookups; the stores are DMA's */
			stats->tmu_bytes = lanes * PREPROC_TAPS * 4;
			stats->dma_store_bytes = plan.bytes;
		}
		/*
		 * The launch's (V3D: its header words) beside the words the
		 * programs read: the window's first part once, the row
		 * section every row, the colour section every vector.
		 */
		stats->uniform_bytes = stats->uniform_bytes - (uint64_t)qpus * PU_WORDS * 4 +
				       4 * ((uint64_t)qpus * (vc4 ? PU_ROW_SECTION : PU_WINDOW) +
					    (uint64_t)plan.height * PREPROC_ROW_WORDS +
					    lanes / PREPROC_LANES * PREPROC_COL_WORDS);
	}
	return ret;
}

QPU_API int qpu_preprocess(struct qpu_kernels *kernels, unsigned int qpus,
			   const struct qpu_preprocess *p, struct qpu_kernel_stats *stats)
{
	return preproc_run(kernels, qpus, p, stats);
}

QPU_API int qpu_preprocess_submit(struct qpu_kernels *kernels, unsigned int qpus,
				  const struct qpu_preprocess *p, int in_fence_fd,
				  int *out_fence_fd)
{
	int ret;

	if (!kernels)
		return -EINVAL;
	qpu_kernel_clear_error(kernels);
	if (kernels->pending)
		return qpu_kernel_fail(kernels, EBUSY, PREPROC_NAME,
				       "a job is pending: qpu_kernels_finish() first");
	if (out_fence_fd)
		*out_fence_fd = -1;
	/* a fence that signalled with an error is taken: the job is canceled */
	if (in_fence_fd != -1 && qpu_fence_wait(in_fence_fd, 0) == -EINVAL)
		return qpu_kernel_fail(kernels, EINVAL, PREPROC_NAME,
				       "in-fence %d is no job fence", in_fence_fd);
	memset(&kernels->pending_stats, 0, sizeof(kernels->pending_stats));
	kernels->has_in_fence = in_fence_fd != -1;
	kernels->in_fence = in_fence_fd;
	kernels->submit_only = true;
	kernels->out_fence = out_fence_fd;
	ret = preproc_run(kernels, qpus, p, &kernels->pending_stats);
	kernels->submit_only = false;
	kernels->has_in_fence = false;
	kernels->out_fence = NULL;
	kernels->pending_stats.qpus = qpus;
	return ret;
}
