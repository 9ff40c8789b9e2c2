// SPDX-License-Identifier: MIT
/*
 * qpu-run's V3D path (run_v3d.h): the regions become buffers of an
 * emulated V3D device, each at the GPU address the command line gave it
 * (the device places buffers first-fit at granules, so a buffer the job
 * does not name fills each gap before a region), and the program runs as
 * one compute dispatch of workgroups of the size asked, one a supergroup.
 * The job's result gives the fault or each QPU's wait in a deadlock, the
 * counters; dumps read the buffers afterwards.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qpu.h>
#include <qpu_dis.h>

#include "die.h"
#include "run_v3d.h"

#define RUN_V3D_MAX_BOS		64

int run_write_dump(const char *path, const uint8_t *p, uint32_t size)
{
	uint32_t k;

	if (path) {
		FILE *f = fopen(path, "wb");

		if (!f || fwrite(p, 1, size, f) != size || fclose(f)) {
			fprintf(stderr, "%s: %s: %s\n", tool_name, path,
				strerror(errno));
			return 1;
		}
		return 0;
	}
	for (k = 0; k + 4 <= size; k += 4) {
		uint32_t w;

		memcpy(&w, p + k, 4);
		printf("%s%08" PRIx32, k % 32 ? " " : "", w);
		if (k % 32 == 28 || k + 8 > size)
			putchar('\n');
	}
	return 0;
}

struct v3d_bos {
	struct qpu_bo *bo[RUN_V3D_MAX_BOS];	/* regions', then fillers */
	unsigned int count;
};

static struct qpu_bo *v3d_bo_new(struct qpu_dev *dev, struct v3d_bos *bos,
				 size_t size)
{
	struct qpu_bo *bo;

	if (bos->count == RUN_V3D_MAX_BOS)
		die("too many regions");
	bo = qpu_bo_new(dev, size);
	if (!bo)
		die("cannot make a buffer of %zu bytes: %s", size, qpu_last_error());
	bos->bo[bos->count++] = bo;
	return bo;
}

/* Region @r's buffer at its address: the gap before it filled. */
static struct qpu_bo *v3d_place(struct qpu_dev *dev, struct v3d_bos *bos,
				const struct run_v3d_region *r)
{
	struct qpu_bo *bo = v3d_bo_new(dev, bos, r->size);
	uint32_t at = qpu_bo_get_bus_addr(bo);

	if (at < r->base) {
		/* a filler up to half a granule before it: any guard fits */
		qpu_bo_free(bo);
		bos->count--;
		v3d_bo_new(dev, bos, r->base - at - RUN_V3D_GRANULE / 2);
		bo = v3d_bo_new(dev, bos, r->size);
		at = qpu_bo_get_bus_addr(bo);
	}
	if (at != r->base)
		die("%s: cannot place it at 0x%08" PRIx32 " (the one before ends too "
		    "close; the next free address is 0x%08" PRIx32 ")", r->name,
		    r->base, at);
	memcpy(qpu_bo_get_map(bo), r->mem, r->size);
	return bo;
}

static int v3d_cmp(const void *a, const void *b)
{
	const struct run_v3d_region *x = *(struct run_v3d_region *const *)a;
	const struct run_v3d_region *y = *(struct run_v3d_region *const *)b;

	return (x->base > y->base) - (x->base < y->base);
}

static void v3d_report_fault(const struct run_v3d *run,
			     const struct qpu_job_result *res)
{
	const struct run_v3d_region *code = &run->regions[0];

	fprintf(stderr, "%s: fault on qpu %" PRIu32 " thread %" PRIu32
		" at pc 0x%08" PRIx32 ": %s of 0x%08" PRIx32 "\n", tool_name,
		res->fault_qpu, res->fault_thread, res->fault_pc,
		qpu_access_str(res->fault_access), res->fault_addr);
	if (res->fault_pc >= code->base && res->fault_pc - code->base + 8 <= code->size) {
		char text[QPU_DIS_BUF_SIZE];
		uint64_t w;

		memcpy(&w, code->mem + (res->fault_pc - code->base), 8);
		if (qpu_dis_word_gen(run->gen, w, res->fault_pc, 0, text,
				     sizeof(text)) >= 0)
			fprintf(stderr, "%s:   %016" PRIx64 "  %s\n", tool_name,
				w, text);
	}
}

static void v3d_report_deadlock(const struct qpu_job_result *res)
{
	static const char *const what[] = {
		[QPU_ACTIVITY_WAIT_TMU] = "waits on ldtmu with nothing queued",
		[QPU_ACTIVITY_WAIT_BARRIER] = "waits at a barrier no other "
					      "thread reaches",
	};
	unsigned int q;

	fprintf(stderr, "%s: deadlock: every running thread waits forever\n",
		tool_name);
	for (q = 0; q < QPU_JOB_MAX_QPUS; q++) {
		const struct qpu_job_qpu *s = &res->qpus[q];

		if (s->activity == QPU_ACTIVITY_WAIT_TMU ||
		    s->activity == QPU_ACTIVITY_WAIT_BARRIER)
			fprintf(stderr, "%s:   qpu %u at pc 0x%08" PRIx32 ": %s\n",
				tool_name, q, s->pc, what[s->activity]);
	}
}

static int v3d_dumps(const struct run_v3d *run)
{
	unsigned int i, k;

	for (i = 0; i < run->ndumps; i++) {
		const struct run_dump *d = &run->dumps[i];
		const struct run_v3d_region *r = NULL;

		for (k = 0; k < run->nregions && !r; k++)
			if (d->addr >= run->regions[k].base &&
			    (uint64_t)d->addr + d->size <=
			    (uint64_t)run->regions[k].base + run->regions[k].size)
				r = &run->regions[k];
		if (!r) {
			fprintf(stderr, "%s: dump 0x%" PRIx32 "@0x%" PRIx32
				" is not inside one region\n", tool_name,
				d->size, d->addr);
			return 1;
		}
		if (run_write_dump(d->path, r->mem + (d->addr - r->base), d->size))
			return 1;
	}
	return 0;
}

/*
 * --timing: the job's modelled time on the device's board. The model sums
 * the stalls over the QPUs (struct qpu_job_timing); its time includes
 * SUBMIT_CSD's cost.
 */
static void v3d_print_timing(const char *path, const struct qpu_job_result *res)
{
	const struct qpu_job_timing *t = &res->timing;

	if (!(res->flags & QPU_JOB_RESULT_TIMING)) {
		printf("timing: none (the job did not run to a modelled end)\n");
		return;
	}
	printf("timing (modelled on %s, device %s: a model, not a measurement):\n",
	       qpu_board_name(t->board), path);
	printf("job: %" PRIu64 " cycles, %.3f us with SUBMIT_CSD, %" PRIu64
	       " bytes through SDRAM\n", t->cycles, t->ns / 1000.0, t->sdram_bytes);
	printf("stalls (cycles, all QPUs): tmu %" PRIu64 ", other %" PRIu64 "\n",
	       t->stall_tmu, t->stall_other);
}

int run_v3d(const struct run_v3d *run)
{
	struct run_v3d_region *sorted[RUN_V3D_MAX_BOS];
	struct qpu_bo *placed[RUN_V3D_MAX_BOS];
	struct v3d_bos bos = { .count = 0 };
	struct qpu_v3d_dispatch d = { 0 };
	struct qpu_job_desc desc = { 0 };
	struct qpu_job_result res;
	uint64_t seqno, per_ms = 1;
	struct qpu_dev *dev;
	char path[64];
	unsigned int i;
	int ret = 0;

	if (run->nregions > RUN_V3D_MAX_BOS / 2)
		die("too many regions");
	snprintf(path, sizeof(path), "emu:%s%s%s%s", qpu_gen_name(run->gen),
		 run->board ? ",board=" : "", run->board ? run->board : "",
		 run->timing ? ",timing" : "");
	dev = qpu_dev_open(path);
	if (!dev && run->board && errno == EINVAL)
		die("unknown board '%s' for %s (%s)", run->board,
		    qpu_gen_name(run->gen),
		    run->gen == QPU_GEN_V3D42 ? "pi4" : "pi5, pi5-16");
	if (!dev)
		die("%s: %s", path, qpu_last_error());
	for (i = 0; i < run->nregions; i++) {
		sorted[i] = &run->regions[i];
		if (sorted[i]->base < RUN_V3D_GRANULE ||
		    sorted[i]->base % RUN_V3D_GRANULE || !sorted[i]->size)
			die("%s at 0x%08" PRIx32 ": on V3D a region starts at a "
			    "multiple of 0x%x, from 0x%x", sorted[i]->name,
			    sorted[i]->base, RUN_V3D_GRANULE, RUN_V3D_GRANULE);
	}
	qsort(sorted, run->nregions, sizeof(*sorted), v3d_cmp);
	for (i = 0; i < run->nregions; i++)
		placed[sorted[i] - run->regions] = v3d_place(dev, &bos, sorted[i]);

	d.code = placed[0];
	d.uniforms = placed[1];
	d.wg_count[0] = run->workgroups;
	d.wg_count[1] = d.wg_count[2] = 1;
	d.wg_size = run->wg_size;
	d.wgs_per_sg = 1;
	d.threads = run->threads;
	qpu_dev_get_param(dev, QPU_DEV_PARAM_INSTRUCTIONS_PER_MS, &per_ms);
	desc.kind = QPU_JOB_V3D_DISPATCH;
	desc.dispatch = &d;
	desc.bos = placed + 2;
	desc.bo_count = run->nregions - 2;
	desc.in_fence_fd = -1;
	desc.timeout_ms = (unsigned int)((run->budget + per_ms - 1) / per_ms);
	if (!desc.timeout_ms)
		desc.timeout_ms = 1;
	if (qpu_submit(dev, &desc, &seqno) || qpu_wait(dev, seqno, -1, &res))
		die("cannot run the dispatch: %s", qpu_last_error());
	for (i = 0; i < run->nregions; i++)
		memcpy(run->regions[i].mem, qpu_bo_get_map(placed[i]),
		       run->regions[i].size);

	switch (res.status) {
	case QPU_STATUS_DONE:
		break;
	case QPU_STATUS_FAULT:
		v3d_report_fault(run, &res);
		ret = 2;
		break;
	case QPU_STATUS_DEADLOCK:
		v3d_report_deadlock(&res);
		ret = 3;
		break;
	default:
		fprintf(stderr, "%s: %s: instruction budget spent\n", tool_name,
			qpu_job_status_str(res.status));
		ret = 4;
		break;
	}
	if (run->stats)
		printf("instructions: %" PRIu64 "\nbytes: tmu %" PRIu64
		       ", uniforms %" PRIu64 "\n", res.instructions,
		       res.counters.tmu_bytes, res.counters.uniform_bytes);
	if (run->timing)
		v3d_print_timing(path, &res);
	if (!ret)
		ret = v3d_dumps(run);
	for (i = 0; i < bos.count; i++)
		qpu_bo_free(bos.bo[i]);
	qpu_dev_close(dev);
	return ret;
}
