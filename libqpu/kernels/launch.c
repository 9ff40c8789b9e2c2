// SPDX-License-Identifier: MIT
/*
 * One sample-kernel job: the program and the uniforms go into two fresh
 * buffers, every QPU gets the same code and its own uniforms window, and the
 * call waits for the end. A fresh code buffer per call keeps wrappers free of
 * per-device caches; it costs one buffer allocation per call.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/qpu.h>

#include "kernel.h"

/* Generous for the emulator under TCG; the device may cap it lower. */
#define QPU_KERNEL_WAIT_MS	600000

static __thread char last_error[256];

const char *qpu_kernel_last_error(void)
{
	return last_error;
}

void qpu_kernel_clear_error(void)
{
	last_error[0] = '\0';
}

int qpu_kernel_fail(int err, const char *kernel, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(last_error, sizeof(last_error), "%s: ", kernel);
	if (n < 0 || (size_t)n >= sizeof(last_error))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(last_error + n, sizeof(last_error) - n, fmt, ap);
	va_end(ap);
	return -err;
}

int qpu_kernel_check_buf(const char *kernel, const char *what,
			 const struct qpu_bo *bo, size_t offset, size_t size,
			 size_t align)
{
	size_t have;

	if (!bo)
		return qpu_kernel_fail(EINVAL, kernel, "%s: no buffer", what);
	if (align && offset % align)
		return qpu_kernel_fail(EINVAL, kernel,
				       "%s: offset %zu is not a multiple of %zu",
				       what, offset, align);
	have = qpu_bo_get_size(bo);
	if (offset > have || size > have - offset)
		return qpu_kernel_fail(EINVAL, kernel,
				       "%s: needs %zu bytes from offset %zu, the buffer has %zu",
				       what, size, offset, have);
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int check_launch(struct qpu_dev *dev, const struct qpu_kernel_launch *l)
{
	const char *name = l->code->name;
	uint64_t qpus;
	int ret;

	ret = qpu_dev_get_param(dev, QPU_PARAM_NUM_QPUS, &qpus);
	if (ret)
		return qpu_kernel_fail(-ret, name, "cannot read the QPU count: %s",
				       strerror(-ret));
	if (!l->qpus || l->qpus > qpus)
		return qpu_kernel_fail(EINVAL, name,
				       "asked for %u QPUs, the device has %llu",
				       l->qpus, (unsigned long long)qpus);
	return 0;
}

int qpu_kernel_run(struct qpu_dev *dev, const struct qpu_kernel_launch *l,
		   struct qpu_kernel_stats *stats)
{
	const char *name = l->code->name;
	struct qpu_program_ref *progs;
	struct qpu_job_desc job = { .in_fence_fd = -1 };
	size_t unif_bytes = (size_t)l->qpus * l->uniforms_per_qpu * 4;
	struct qpu_bo *code, *unif;
	struct qpu_job_result r;
	uint64_t seqno, start;
	unsigned int i;
	int ret;

	ret = check_launch(dev, l);
	if (ret)
		return ret;
	progs = calloc(l->qpus, sizeof(*progs));
	if (!progs)
		return qpu_kernel_fail(ENOMEM, name, "out of memory");
	code = qpu_bo_new(dev, l->code->size);
	if (!code) {
		ret = qpu_kernel_fail(errno, name, "code buffer: %s",
				      strerror(errno));
		goto free_progs;
	}
	unif = qpu_bo_new(dev, unif_bytes ? unif_bytes : 4);
	if (!unif) {
		ret = qpu_kernel_fail(errno, name, "uniforms buffer: %s",
				      strerror(errno));
		goto free_code;
	}
	memcpy(qpu_bo_get_map(code), l->code->halves, l->code->size);
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
	job.bos = l->bos;
	job.bo_count = l->bo_count;
	job.timeout_ms = l->timeout_ms;

	start = now_ns();
	ret = qpu_submit(dev, &job, &seqno);
	if (ret) {
		ret = qpu_kernel_fail(-ret, name, "submit: %s", strerror(-ret));
		goto free_unif;
	}
	ret = qpu_wait(dev, seqno, QPU_KERNEL_WAIT_MS, &r);
	if (ret) {
		ret = qpu_kernel_fail(-ret, name, "wait: %s", strerror(-ret));
		goto free_unif;
	}
	if (stats) {
		stats->elapsed_ns = now_ns() - start;
		stats->qpus = l->qpus;
		stats->instructions_known = 0;
		stats->instructions = 0;
	}
	if (r.status != QPU_JOB_DONE)
		ret = qpu_kernel_fail(EIO, name,
				      "job %s (QPU %u, PC 0x%x, address 0x%08x)",
				      qpu_job_status_str(r.status), r.fault_qpu,
				      r.fault_pc, r.fault_addr);
free_unif:
	qpu_bo_free(unif);
free_code:
	qpu_bo_free(code);
free_progs:
	free(progs);
	return ret;
}
