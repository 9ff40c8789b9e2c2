// SPDX-License-Identifier: MIT
/*
 * One sample-kernel job: the program (uploaded once per device) and the
 * uniforms (in the device's scratch buffer, see cache.c), every QPU with the
 * same code and its own uniforms window; the call waits for the end. The
 * streaming kernels' shared wrapper (checks, split, uniforms) is here too.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernel.h"

/* Generous for the emulator under TCG; the device may cap it lower. */
#define QPU_KERNEL_WAIT_MS	600000

void qpu_kernel_clear_error(struct qpu_kernels *kernels)
{
	kernels->last_error[0] = '\0';
}

int qpu_kernel_fail(struct qpu_kernels *kernels, int err, const char *kernel,
		    const char *fmt, ...)
{
	char *msg = kernels ? kernels->last_error : NULL;
	size_t size = sizeof(kernels->last_error);
	va_list ap;
	int n;

	if (!kernels)	/* a CPU call with nowhere to put the message */
		return -err;
	n = snprintf(msg, size, "%s: ", kernel);
	if (n < 0 || (size_t)n >= size)
		n = 0;
	va_start(ap, fmt);
	vsnprintf(msg + n, size - n, fmt, ap);
	va_end(ap);
	return -err;
}

int qpu_kernel_check_buf(struct qpu_kernels *kernels, const char *kernel, const char *what,
			 const struct qpu_bo *bo, size_t offset, size_t size,
			 size_t align)
{
	size_t have;

	if (!bo)
		return qpu_kernel_fail(kernels, EINVAL, kernel, "%s: no buffer", what);
	if (align && offset % align)
		return qpu_kernel_fail(kernels, EINVAL, kernel,
				       "%s: offset %zu is not a multiple of %zu",
				       what, offset, align);
	have = qpu_bo_get_size(bo);
	if (offset > have || size > have - offset)
		return qpu_kernel_fail(kernels, EINVAL, kernel,
				       "%s: needs %zu bytes from offset %zu, the buffer has %zu",
				       what, size, offset, have);
	return 0;
}

int qpu_kernel_check_vector(struct qpu_kernels *kernels, const char *kernel, const char *what,
			    const struct qpu_vector *v, size_t len,
			    size_t multiple)
{
	if (!v)
		return qpu_kernel_fail(kernels, EINVAL, kernel, "%s: no vector", what);
	if (v->length != len)
		return qpu_kernel_fail(kernels, EINVAL, kernel,
				       "%s: has %zu elements, expected %zu",
				       what, v->length, len);
	if (!len || (multiple && len % multiple))
		return qpu_kernel_fail(kernels, EINVAL, kernel,
				       "%s: %zu elements; the kernel takes a positive multiple of %zu",
				       what, len, multiple ? multiple : 1);
	if (len > SIZE_MAX / 4)
		return qpu_kernel_fail(kernels, EINVAL, kernel, "%s: too long", what);
	return qpu_kernel_check_buf(kernels, kernel, what, v->bo, v->offset, len * 4, 4);
}

int qpu_kernel_check_image(struct qpu_kernels *kernels, const char *kernel, const char *what,
			   const struct qpu_image *img, unsigned int bpp,
			   size_t multiple)
{
	size_t pixels;

	if (!img)
		return qpu_kernel_fail(kernels, EINVAL, kernel, "%s: no image", what);
	pixels = (size_t)img->width * img->height;
	if (!pixels || (multiple && pixels % multiple))
		return qpu_kernel_fail(kernels, EINVAL, kernel,
				       "%s: %ux%u is %zu pixels; the kernel takes a positive multiple of %zu",
				       what, img->width, img->height, pixels,
				       multiple ? multiple : 1);
	if (img->stride != (size_t)img->width * bpp)
		return qpu_kernel_fail(kernels, EINVAL, kernel,
				       "%s: rows must be packed: stride %zu, expected %zu",
				       what, img->stride, (size_t)img->width * bpp);
	return qpu_kernel_check_buf(kernels, kernel, what, img->bo, img->offset,
				    pixels * bpp, 4);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int qpu_kernel_check_qpus(struct qpu_kernels *kernels, const char *kernel,
			  unsigned int qpus)
{
	uint64_t have;
	int ret;

	ret = qpu_dev_get_param(kernels->dev, QPU_DEV_PARAM_NUM_QPUS, &have);
	if (ret)
		return qpu_kernel_fail(kernels, -ret, kernel,
				       "cannot read the QPU count: %s",
				       strerror(-ret));
	if (!qpus || qpus > have)
		return qpu_kernel_fail(kernels, EINVAL, kernel,
				       "asked for %u QPUs, the device has %llu",
				       qpus, (unsigned long long)have);
	return 0;
}

/* The job's buffer list without repeats (a wrapper may pass c == a). */
static unsigned int unique_bos(const struct qpu_kernel_launch *l,
			       struct qpu_bo **out)
{
	unsigned int i, j, n = 0;

	for (i = 0; i < l->bo_count; i++) {
		for (j = 0; j < n; j++)
			if (out[j] == l->bos[i])
				break;
		if (j == n)
			out[n++] = l->bos[i];
	}
	return n;
}

/*
 * A sample kernel always ends, but large inputs on the emulator or under
 * TCG take longer than a device's default timeout: give it the longest.
 */
static unsigned int max_timeout_ms(struct qpu_dev *dev)
{
	uint64_t v;

	if (qpu_dev_get_param(dev, QPU_DEV_PARAM_MAX_TIMEOUT_MS, &v) || v > UINT32_MAX)
		return 0;
	return (unsigned int)v;
}

/* One more job's modelled time, run after the others (qpu_kernels_take_timing()). */
static void timing_add(struct qpu_kernels *kernels, const struct qpu_job_timing *t)
{
	struct qpu_job_timing *sum = &kernels->timing;

	sum->board = t->board;
	sum->cycles += t->cycles;
	sum->ns += t->ns;
	sum->launch_ns += t->launch_ns;
	sum->sdram_bytes += t->sdram_bytes;
	sum->stall_tmu += t->stall_tmu;
	sum->stall_dma += t->stall_dma;
	sum->stall_sync += t->stall_sync;
	sum->stall_other += t->stall_other;
	kernels->timing_known = true;
}

int qpu_kernel_submit(struct qpu_kernels *kernels, const char *name,
		      struct qpu_job_desc *job, struct qpu_kernel_stats *stats)
{
	struct qpu_job_result r;
	uint64_t seqno, start;
	int ret;

	if (!job->timeout_ms)
		job->timeout_ms = kernels->timeout_ms ? kernels->timeout_ms :
				  max_timeout_ms(kernels->dev);
	start = now_ns();
	ret = qpu_submit(kernels->dev, job, &seqno);
	if (ret)
		return qpu_kernel_fail(kernels, -ret, name, "submit: %s", strerror(-ret));
	ret = qpu_wait(kernels->dev, seqno, QPU_KERNEL_WAIT_MS, &r);
	if (ret)
		return qpu_kernel_fail(kernels, -ret, name, "wait: %s", strerror(-ret));
	if (stats) {
		stats->elapsed_ns = now_ns() - start;
		stats->qpus = job->program_count;
		stats->instructions_known =
			!!(r.flags & QPU_JOB_RESULT_INSTRUCTIONS);
		stats->instructions = r.instructions;
		stats->counters_known = !!(r.flags & QPU_JOB_RESULT_COUNTERS);
		stats->counters = r.counters;
	}
	if (r.flags & QPU_JOB_RESULT_TIMING)
		timing_add(kernels, &r.timing);
	if (r.status != QPU_STATUS_DONE)
		return qpu_kernel_fail(kernels, EIO, name,
				       "job %s (QPU %u, PC 0x%x, address 0x%08x)",
				       qpu_job_status_str(r.status), r.fault_qpu,
				       r.fault_pc, r.fault_addr);
	return 0;
}

int qpu_kernel_run(struct qpu_kernels *kernels, const struct qpu_kernel_launch *l,
		   struct qpu_kernel_stats *stats)
{
	const char *name = l->code->name;
	struct qpu_program_ref *progs;
	struct qpu_job_desc job = { .in_fence_fd = -1 };
	size_t unif_bytes = (size_t)l->qpus * l->uniforms_per_qpu * 4;
	struct qpu_bo *code, *unif, **bos = NULL;
	unsigned int i;
	int ret;

	ret = qpu_kernel_check_qpus(kernels, name, l->qpus);
	if (ret)
		return ret;
	if (qpu_gen_is_v3d(kernels->gen))
		return qpu_kernel_run_v3d(kernels, l, stats);
	progs = calloc(l->qpus, sizeof(*progs));
	bos = calloc(l->bo_count ? l->bo_count : 1, sizeof(*bos));
	if (!progs || !bos) {
		ret = qpu_kernel_fail(kernels, ENOMEM, name, "out of memory");
		goto free_progs;
	}
	code = qpu_kernel_code_bo(kernels, l->code);
	if (!code) {
		ret = qpu_kernel_fail(kernels, errno, name, "code buffer: %s",
				      strerror(errno));
		goto free_progs;
	}
	unif = qpu_kernel_scratch(kernels, unif_bytes ? unif_bytes : 4);
	if (!unif) {
		ret = qpu_kernel_fail(kernels, errno, name, "uniforms buffer: %s",
				      strerror(errno));
		goto free_progs;
	}
	if (unif_bytes)
		memcpy(qpu_bo_get_map(unif), l->uniforms, unif_bytes);

	for (i = 0; i < l->qpus; i++)
		progs[i] = (struct qpu_program_ref){
			.code = code,
			.uniforms = unif,
			.uniforms_offset = i * l->uniforms_per_qpu * 4,
			.uniforms_length = l->uniforms_per_qpu * 4,
		};
	job.programs = progs;
	job.program_count = l->qpus;
	job.bos = bos;
	job.bo_count = unique_bos(l, bos);
	job.timeout_ms = l->timeout_ms;
	ret = qpu_kernel_submit(kernels, name, &job, stats);
	if (stats)	/* every program reads all of its uniforms */
		stats->uniform_bytes = unif_bytes;
free_progs:
	free(bos);
	free(progs);
	return ret;
}

/* Elements or pixels of operand @op, checked. */
static size_t stream_units(const struct qpu_kernel_operand *op)
{
	if (op->bpp)
		return (size_t)op->image->width * op->image->height;
	return op->vector->length;
}

/* Bytes of a piece of @op. */
static size_t stream_piece_bytes(const struct qpu_kernel_stream *s,
				 const struct qpu_kernel_operand *op)
{
	return s->piece * (op->bpp ? op->bpp : 4);
}

/* The buffer of @op and, in *@offset, where the operand starts in it. */
static struct qpu_bo *stream_bo(const struct qpu_kernel_operand *op,
				size_t *offset)
{
	if (op->bpp) {
		*offset = op->image->offset;
		return op->image->bo;
	}
	*offset = op->vector->offset;
	return op->vector->bo;
}

/* Every operand as long as the first (vectors) or of its size (images). */
static int stream_check(struct qpu_kernels *kernels,
			const struct qpu_kernel_stream *s)
{
	const char *name = s->code->name;
	const struct qpu_kernel_operand *o0 = &s->ops[0];
	bool vectors = !o0->bpp;
	unsigned int i;
	int ret = 0;

	if (vectors && !o0->vector)
		return qpu_kernel_fail(kernels, EINVAL, name, "%s: no vector", o0->name);
	for (i = 0; i < s->op_count && !ret; i++) {
		const struct qpu_kernel_operand *o = &s->ops[i];

		if (vectors)
			ret = qpu_kernel_check_vector(kernels, name, o->name, o->vector,
						      o0->vector->length,
						      s->piece);
		else
			ret = qpu_kernel_check_image(kernels, name, o->name, o->image,
						     o->bpp, s->piece);
	}
	for (i = 1; i < s->op_count && !ret && !vectors; i++) {
		const struct qpu_image *a = s->ops[i].image, *b = o0->image;

		if (a->width != b->width || a->height != b->height)
			ret = qpu_kernel_fail(kernels, EINVAL, name,
					      "%s is %ux%u, %s is %ux%u",
					      s->ops[i].name, a->width,
					      a->height, o0->name, b->width,
					      b->height);
	}
	return ret;
}

/*
 * V3D programs write through the TMU too, read the first pieces of their
 * run again (qpu_kernel_code.reread, see "DOC: V3D launch") and may fetch
 * whole blocks of an aligned operand (qpu_kernel_code.fetch_num).
 */
static void stream_v3d_bytes(const struct qpu_kernels *kernels, unsigned int qpus,
			     const struct qpu_kernel_stream *s, size_t pieces,
			     struct qpu_kernel_stats *stats)
{
	const struct qpu_kernel_code *code = qpu_kernel_code_of(kernels, s->code);
	size_t start, count, offset;
	uint64_t again = 0, bytes;
	unsigned int i, k;
	bool first = true;

	for (k = 0; k < qpus; k++) {
		qpu_kernel_split(pieces, qpus, k, &start, &count);
		again += count ? code->reread : 0;
	}
	for (i = 0; i < s->op_count; i++) {
		struct qpu_bo *bo = stream_bo(&s->ops[i], &offset);

		if (!(s->ops[i].access & QPU_KERNEL_TMU_READ))
			continue;
		bytes = (pieces + again) * stream_piece_bytes(s, &s->ops[i]);
		if (first && code->fetch_den && !(qpu_kernel_addr(bo, offset) & 15))
			bytes = bytes / code->fetch_den * code->fetch_num;
		first = false;
		stats->tmu_bytes += bytes - pieces * stream_piece_bytes(s, &s->ops[i]);
	}
	stats->tmu_bytes += stats->dma_store_bytes;
	stats->dma_store_bytes = 0;
}

int qpu_kernel_stream_run(struct qpu_kernels *kernels, unsigned int qpus,
			  const struct qpu_kernel_stream *s,
			  struct qpu_kernel_stats *stats)
{
	const char *name = s->code->name;
	unsigned int per = s->op_count + 4 + s->const_count;
	struct qpu_kernel_launch l = {
		.code = s->code, .qpus = qpus, .uniforms_per_qpu = per,
	};
	uint64_t tmu = 0, store = 0;
	struct qpu_bo *bos[QPU_KERNEL_STREAM_MAX_OPS];
	size_t pieces, start, count, offset;
	unsigned int i, k, batch;
	uint32_t *u;
	int ret;

	qpu_kernel_clear_error(kernels);
	if (!s->op_count || s->op_count > QPU_KERNEL_STREAM_MAX_OPS)
		return qpu_kernel_fail(kernels, EINVAL, name, "%u operands", s->op_count);
	ret = stream_check(kernels, s);
	if (!ret)
		ret = qpu_kernel_check_qpus(kernels, name, qpus);
	if (ret)
		return ret;
	batch = qpu_kernel_batch_rows(qpus);
	if (!batch)
		return qpu_kernel_fail(kernels, EINVAL, name,
				       "%u QPUs do not fit the VPM's %u rows",
				       qpus, QPU_VPM_ROWS);

	pieces = stream_units(&s->ops[0]) / s->piece;
	u = calloc((size_t)qpus * per, sizeof(*u));
	if (!u)
		return qpu_kernel_fail(kernels, ENOMEM, name, "out of memory");
	for (k = 0; k < qpus; k++) {
		uint32_t *p = u + k * per;

		qpu_kernel_split(pieces, qpus, k, &start, &count);
		for (i = 0; i < s->op_count; i++) {
			struct qpu_bo *bo = stream_bo(&s->ops[i], &offset);

			*p++ = qpu_kernel_addr(bo, offset + start *
					       stream_piece_bytes(s, &s->ops[i]));
		}
		*p++ = (uint32_t)count;
		*p++ = qpu_kernel_vw_row(k * batch);
		*p++ = qpu_kernel_vdw_rows(0, 16, k * batch);
		*p++ = batch;
		if (s->const_count)
			memcpy(p, s->consts, s->const_count * sizeof(*p));
	}
	for (i = 0; i < s->op_count; i++) {
		uint64_t bytes = (uint64_t)pieces *
				 stream_piece_bytes(s, &s->ops[i]);

		bos[i] = stream_bo(&s->ops[i], &offset);
		if (s->ops[i].access & QPU_KERNEL_TMU_READ)
			tmu += bytes;
		if (s->ops[i].access & QPU_KERNEL_DMA_STORE)
			store += bytes;
	}
	l.uniforms = u;
	l.bos = bos;
	l.bo_count = s->op_count;
	ret = qpu_kernel_run(kernels, &l, stats);
	free(u);
	if (!ret && stats) {
		stats->tmu_bytes = tmu;
		stats->dma_load_bytes = 0;
		stats->dma_store_bytes = store;
		if (qpu_gen_is_v3d(kernels->gen))
			stream_v3d_bytes(kernels, qpus, s, pieces, stats);
	}
	return ret;
}
