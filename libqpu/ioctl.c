// SPDX-License-Identifier: MIT
/*
 * The one place libqpu talks to qpu.ko: each wrapper fills the kernel's
 * struct, makes the call through qpu_ioctl() and returns 0 or -errno.
 */

#include <errno.h>
#include <stdlib.h>
#include <sys/ioctl.h>

#include <linux/qpu.h>

#include "internal.h"

/* Retries calls a signal interrupted; returns 0 or -errno. */
static int qpu_ioctl(int fd, unsigned long request, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, request, arg);
	} while (ret == -1 && errno == EINTR);

	if (ret == -1)
		return -errno;
	return ret ? -EPROTO : 0;
}

int qpu_ioctl_get_param(int fd, uint32_t param, uint64_t *value)
{
	struct qpu_get_param args = { .param = param };
	int ret;

	ret = qpu_ioctl(fd, QPU_IOCTL_GET_PARAM, &args);
	if (!ret)
		*value = args.value;
	return ret;
}

int qpu_ioctl_bo_create(int fd, uint64_t size, struct qpu_bo *bo)
{
	struct qpu_bo_create args = { .size = size };
	int ret;

	ret = qpu_ioctl(fd, QPU_IOCTL_BO_CREATE, &args);
	if (ret)
		return ret;
	bo->size = args.size;
	bo->handle = args.handle;
	bo->bus_addr = args.bus_addr;
	bo->mmap_offset = args.mmap_offset;
	return 0;
}

int qpu_ioctl_bo_destroy(int fd, uint32_t handle)
{
	struct qpu_bo_destroy args = { .handle = handle };

	return qpu_ioctl(fd, QPU_IOCTL_BO_DESTROY, &args);
}

int qpu_ioctl_submit(int fd, const struct qpu_job_desc *desc, uint64_t *seqno)
{
	struct qpu_program programs[16];
	struct qpu_submit args = {
		.programs = (uintptr_t)programs,
		.program_count = desc->program_count,
		.program_size = sizeof(programs[0]),
		.bo_count = desc->bo_count,
		.timeout_ms = desc->timeout_ms,
	};
	uint32_t *handles = NULL;
	unsigned int i;
	int ret;

	if (desc->program_count > 16)
		return -EINVAL;
	for (i = 0; i < desc->program_count; i++) {
		const struct qpu_program_ref *p = &desc->programs[i];

		programs[i] = (struct qpu_program){
			.code_handle = p->code->handle,
			.code_offset = p->code_offset,
			.unif_handle = p->uniforms->handle,
			.unif_offset = p->uniforms_offset,
			.unif_length = p->uniforms_length,
		};
	}
	if (desc->bo_count) {
		handles = calloc(desc->bo_count, sizeof(*handles));
		if (!handles)
			return -ENOMEM;
		for (i = 0; i < desc->bo_count; i++)
			handles[i] = desc->bos[i]->handle;
		args.bo_handles = (uintptr_t)handles;
	}
	if (desc->in_fence_fd >= 0) {
		args.flags |= QPU_SUBMIT_IN_FENCE;
		args.in_fence_fd = desc->in_fence_fd;
	}
	if (desc->out_fence_fd)
		args.flags |= QPU_SUBMIT_OUT_FENCE;

	ret = qpu_ioctl(fd, QPU_IOCTL_SUBMIT, &args);
	free(handles);
	if (ret)
		return ret;
	*seqno = args.seqno;
	if (desc->out_fence_fd)
		*desc->out_fence_fd = args.out_fence_fd;
	return 0;
}

int qpu_ioctl_wait(int fd, uint64_t seqno, int64_t deadline_ns,
		   struct qpu_job_result *result)
{
	struct qpu_wait args = { .seqno = seqno, .timeout_ns = deadline_ns };
	int ret;

	/* The deadline is absolute, so a restart after a signal is safe. */
	ret = qpu_ioctl(fd, QPU_IOCTL_WAIT, &args);
	if (ret)
		return ret;
	*result = (struct qpu_job_result){
		.status = args.status,
		.fault_qpu = args.fault_qpu,
		.fault_pc = args.fault_pc,
		.fault_addr = args.fault_addr,
		.fault_access = args.fault_access,
	};
	/* An older kernel leaves result_flags zero: nothing more is known. */
	if (args.result_flags & QPU_WAIT_RESULT_INSTRUCTIONS) {
		result->flags |= QPU_JOB_RESULT_INSTRUCTIONS;
		result->instructions = args.instructions;
	}
	if ((args.result_flags & QPU_WAIT_RESULT_QPUS) &&
	    args.qpu_count <= QPU_WAIT_QPUS) {
		unsigned int i;

		result->flags |= QPU_JOB_RESULT_QPUS;
		result->qpu_count = args.qpu_count;
		for (i = 0; i < args.qpu_count; i++)
			result->qpus[i] = (struct qpu_job_qpu){
				.pc = args.qpus[i].pc,
				.state = args.qpus[i].state,
				.semaphore = args.qpus[i].semaphore,
			};
	}
	return 0;
}
