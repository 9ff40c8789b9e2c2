// SPDX-License-Identifier: MIT
/*
 * The one place libqpu talks to qpu.ko: each wrapper fills the kernel's
 * struct, makes the call through qpu_kdev_ioctl() and returns 0 or -errno. The
 * one place, too, that knows <linux/qpu.h>'s numbers: the *_to_uapi() and
 * *_from_uapi() functions below translate them to libqpu's enums.
 */

#include <errno.h>
#include <stdlib.h>
#include <sys/ioctl.h>

#include <linux/qpu.h>

#include "runtime/runtime.h"

/* libqpu's limits are the ABI's format limits, or translation loses data. */
_Static_assert(QPU_JOB_MAX_QPUS == QPU_MAX_QPUS, "qpu.h and <linux/qpu.h> disagree");

/* libqpu's parameter as qpu.ko's; -1 for one qpu.ko does not have. */
static int64_t qpu_param_to_uapi(enum qpu_dev_param param)
{
	switch (param) {
	case QPU_DEV_PARAM_NUM_QPUS:
		return QPU_PARAM_NUM_QPUS;
	case QPU_DEV_PARAM_NUM_SLICES:
		return QPU_PARAM_NUM_SLICES;
	case QPU_DEV_PARAM_NUM_SEMAPHORES:
		return QPU_PARAM_NUM_SEMAPHORES;
	case QPU_DEV_PARAM_VPM_SIZE:
		return QPU_PARAM_VPM_SIZE;
	case QPU_DEV_PARAM_MAX_BO_SIZE:
		return QPU_PARAM_MAX_BO_SIZE;
	case QPU_DEV_PARAM_DEFAULT_TIMEOUT_MS:
		return QPU_PARAM_DEFAULT_TIMEOUT_MS;
	case QPU_DEV_PARAM_MAX_TIMEOUT_MS:
		return QPU_PARAM_MAX_TIMEOUT_MS;
	case QPU_DEV_PARAM_BACKEND:
		return QPU_PARAM_BACKEND;
	case QPU_DEV_PARAM_ABI_VERSION:
		return QPU_PARAM_ABI_VERSION;
	case QPU_DEV_PARAM_FEATURES:
		return QPU_PARAM_FEATURES;
	case QPU_DEV_PARAM_V3D_IDENT0:
		return QPU_PARAM_V3D_IDENT0;
	case QPU_DEV_PARAM_V3D_IDENT1:
		return QPU_PARAM_V3D_IDENT1;
	case QPU_DEV_PARAM_V3D_IDENT2:
		return QPU_PARAM_V3D_IDENT2;
	case QPU_DEV_PARAM_INSTRUCTIONS_PER_MS:
		return QPU_PARAM_INSTRUCTIONS_PER_MS;
	case QPU_DEV_PARAM_BO_L2_CACHED:
		return QPU_PARAM_BO_L2_CACHED;
	case QPU_DEV_PARAM_GEN:		/* libqpu's own: kdev.c answers it */
		break;
	}
	return -1;
}

/* qpu.ko's feature bits as libqpu's; bits libqpu does not know are dropped. */
static uint64_t qpu_features_from_uapi(uint64_t features)
{
	return (features & QPU_FEATURE_UNIFORMS_ANYWHERE ?
		QPU_DEV_FEATURE_UNIFORMS_ANYWHERE : 0) |
	       (features & QPU_FEATURE_DEADLOCK ? QPU_DEV_FEATURE_DEADLOCK : 0) |
	       (features & QPU_FEATURE_ALL_BOS ? QPU_DEV_FEATURE_ALL_BOS : 0);
}

/* A QPU's state in a WAIT answer as libqpu's. */
static enum qpu_activity qpu_activity_from_uapi(uint32_t state)
{
	switch (state) {
	case QPU_QPU_IDLE:
		return QPU_ACTIVITY_IDLE;
	case QPU_QPU_WAIT_SEMAPHORE:
		return QPU_ACTIVITY_WAIT_SEMAPHORE;
	case QPU_QPU_WAIT_MUTEX:
		return QPU_ACTIVITY_WAIT_MUTEX;
	case QPU_QPU_WAIT_VPM:
		return QPU_ACTIVITY_WAIT_VPM;
	case QPU_QPU_WAIT_TMU:
		return QPU_ACTIVITY_WAIT_TMU;
	default:
		return QPU_ACTIVITY_RUNNING;
	}
}

QPU_API enum qpu_dev_backend qpu_dev_backend_from_uapi(uint32_t uapi_backend)
{
	switch (uapi_backend) {
	case QPU_BACKEND_HW:
		return QPU_DEV_BACKEND_HARDWARE;
	case QPU_BACKEND_SIM:
		return QPU_DEV_BACKEND_SIMULATED;
	default:
		return 0;
	}
}

/* qpu.ko's job status as libqpu's; 0 for one libqpu does not know. */
static enum qpu_status qpu_status_from_uapi(uint32_t status)
{
	switch (status) {
	case QPU_JOB_DONE:
		return QPU_STATUS_DONE;
	case QPU_JOB_TIMEOUT:
		return QPU_STATUS_TIMEOUT;
	case QPU_JOB_FAULT:
		return QPU_STATUS_FAULT;
	case QPU_JOB_CANCELED:
		return QPU_STATUS_CANCELED;
	case QPU_JOB_DEADLOCK:
		return QPU_STATUS_DEADLOCK;
	default:
		return 0;
	}
}

uint32_t qpu_status_to_uapi(enum qpu_status status)
{
	switch (status) {
	case QPU_STATUS_DONE:
		return QPU_JOB_DONE;
	case QPU_STATUS_TIMEOUT:
	case QPU_STATUS_RESET:	/* qpu.ko has no reset of its own: the nearest */
		return QPU_JOB_TIMEOUT;
	case QPU_STATUS_FAULT:
		return QPU_JOB_FAULT;
	case QPU_STATUS_CANCELED:
		return QPU_JOB_CANCELED;
	case QPU_STATUS_DEADLOCK:
		return QPU_JOB_DEADLOCK;
	}
	return 0;
}

uint32_t qpu_access_to_uapi(enum qpu_access access)
{
	switch (access) {
	case QPU_ACCESS_NONE:
		return 0;
	case QPU_ACCESS_FETCH:
		return QPU_FAULT_FETCH;
	case QPU_ACCESS_UNIFORM:
		return QPU_FAULT_UNIFORM;
	case QPU_ACCESS_TMU:
	case QPU_ACCESS_TMU_WRITE:	/* the uapi has no TMU write */
		return QPU_FAULT_TMU;
	case QPU_ACCESS_DMA_LOAD:
		return QPU_FAULT_DMA_LOAD;
	case QPU_ACCESS_DMA_STORE:
		return QPU_FAULT_DMA_STORE;
	case QPU_ACCESS_OTHER:
		return QPU_FAULT_OTHER;
	}
	return 0;
}

static enum qpu_access qpu_access_from_uapi(uint32_t access)
{
	switch (access) {
	case QPU_FAULT_FETCH:
		return QPU_ACCESS_FETCH;
	case QPU_FAULT_UNIFORM:
		return QPU_ACCESS_UNIFORM;
	case QPU_FAULT_TMU:
		return QPU_ACCESS_TMU;
	case QPU_FAULT_DMA_LOAD:
		return QPU_ACCESS_DMA_LOAD;
	case QPU_FAULT_DMA_STORE:
		return QPU_ACCESS_DMA_STORE;
	case QPU_FAULT_OTHER:
		return QPU_ACCESS_OTHER;
	default:
		return QPU_ACCESS_NONE;
	}
}

/* Retries calls a signal interrupted; returns 0 or -errno. */
static int qpu_kdev_ioctl(int fd, unsigned long request, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, request, arg);
	} while (ret == -1 && errno == EINTR);

	if (ret == -1)
		return -errno;
	return ret ? -EPROTO : 0;
}

static int qpu_kdev_ioctl_get_uapi_param(int fd, uint32_t param, uint64_t *value)
{
	struct qpu_get_param args = { .param = param };
	int ret;

	ret = qpu_kdev_ioctl(fd, QPU_IOCTL_GET_PARAM, &args);
	if (!ret)
		*value = args.value;
	return ret;
}

int qpu_kdev_ioctl_get_param(int fd, enum qpu_dev_param param, uint64_t *value)
{
	int64_t uapi_param = qpu_param_to_uapi(param);
	uint64_t v;
	int ret;

	if (uapi_param < 0)
		return -EINVAL;
	ret = qpu_kdev_ioctl_get_uapi_param(fd, (uint32_t)uapi_param, &v);
	if (ret)
		return ret;
	if (param == QPU_DEV_PARAM_BACKEND)
		v = qpu_dev_backend_from_uapi((uint32_t)v);
	else if (param == QPU_DEV_PARAM_FEATURES)
		v = qpu_features_from_uapi(v);
	*value = v;
	return 0;
}

int qpu_kdev_ioctl_check_abi(int fd)
{
	uint64_t abi;
	int ret;

	/*
	 * Anything that is not qpu.ko answers this with ENOTTY (or EINVAL;
	 * qemu-user, which runs 32-bit tests, with ENOSYS).
	 */
	ret = qpu_kdev_ioctl_get_uapi_param(fd, QPU_PARAM_ABI_VERSION, &abi);
	if (ret)
		return ret == -EINVAL || ret == -ENOSYS ? -ENOTTY : ret;
	return abi == QPU_ABI_VERSION ? 0 : -EPROTO;
}

uint32_t qpu_kdev_ioctl_abi_version(void)
{
	return QPU_ABI_VERSION;
}

/* What BO_CREATE and BO_IMPORT answer alike (@args: either struct). */
#define QPU_KDEV_BO_ANSWER(bo, args) do {		\
	(bo)->size = (args)->size;			\
	(bo)->handle = (args)->handle;			\
	(bo)->bus_addr = (args)->bus_addr;		\
	(bo)->mmap_offset = (args)->mmap_offset;	\
} while (0)

int qpu_kdev_ioctl_bo_create(int fd, uint64_t size, struct qpu_bo *bo)
{
	struct qpu_bo_create args = { .size = size };
	int ret;

	ret = qpu_kdev_ioctl(fd, QPU_IOCTL_BO_CREATE, &args);
	if (!ret)
		QPU_KDEV_BO_ANSWER(bo, &args);
	return ret;
}

int qpu_kdev_ioctl_bo_destroy(int fd, uint32_t handle)
{
	struct qpu_bo_destroy args = { .handle = handle };

	return qpu_kdev_ioctl(fd, QPU_IOCTL_BO_DESTROY, &args);
}

int qpu_kdev_ioctl_bo_import(int fd, int dmabuf, struct qpu_bo *bo)
{
	struct qpu_bo_import args = { .fd = dmabuf };
	int ret;

	ret = qpu_kdev_ioctl(fd, QPU_IOCTL_BO_IMPORT, &args);
	if (!ret)
		QPU_KDEV_BO_ANSWER(bo, &args);
	return ret;
}

int qpu_kdev_ioctl_bo_export(int fd, uint32_t handle, int *out)
{
	struct qpu_bo_export args = {
		.handle = handle,
		.flags = QPU_BO_EXPORT_CLOEXEC | QPU_BO_EXPORT_RDWR,
	};
	int ret;

	ret = qpu_kdev_ioctl(fd, QPU_IOCTL_BO_EXPORT, &args);
	if (!ret)
		*out = args.fd;
	return ret;
}

int qpu_kdev_ioctl_submit(int fd, const struct qpu_job_desc *desc, uint64_t *seqno)
{
	struct qpu_program programs[QPU_MAX_QPUS];
	struct qpu_submit args = {
		.programs = (uintptr_t)programs,
		.program_count = desc->program_count,
		.program_size = sizeof(programs[0]),
		.bo_count = desc->bo_count,
		.timeout_ms = desc->timeout_ms == QPU_JOB_TIMEOUT_NONE ?
			      QPU_TIMEOUT_NONE : desc->timeout_ms,
	};
	uint32_t *handles = NULL;
	unsigned int i;
	int ret;

	if (desc->program_count > QPU_MAX_QPUS)
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
	if (desc->flags & QPU_JOB_ALL_BOS)
		args.flags |= QPU_SUBMIT_ALL_BOS;

	ret = qpu_kdev_ioctl(fd, QPU_IOCTL_SUBMIT, &args);
	free(handles);
	if (ret)
		return ret;
	*seqno = args.seqno;
	if (desc->out_fence_fd)
		*desc->out_fence_fd = args.out_fence_fd;
	return 0;
}

int qpu_kdev_ioctl_wait(int fd, uint64_t seqno, int64_t deadline_ns,
			struct qpu_job_result *result)
{
	struct qpu_wait args = { .seqno = seqno, .timeout_ns = deadline_ns };
	int ret;

	/* The deadline is absolute, so a restart after a signal is safe. */
	ret = qpu_kdev_ioctl(fd, QPU_IOCTL_WAIT, &args);
	if (ret)
		return ret;
	*result = (struct qpu_job_result){
		.status = qpu_status_from_uapi(args.status),
		.fault_qpu = args.fault_qpu,
		.fault_pc = args.fault_pc,
		.fault_addr = args.fault_addr,
		.fault_access = qpu_access_from_uapi(args.fault_access),
	};
	/* An older kernel leaves result_flags zero: nothing more is known. */
	if (args.result_flags & QPU_WAIT_RESULT_INSTRUCTIONS) {
		result->flags |= QPU_JOB_RESULT_INSTRUCTIONS;
		result->instructions = args.instructions;
	}
	if ((args.result_flags & QPU_WAIT_RESULT_QPUS) &&
	    args.qpu_count <= QPU_JOB_MAX_QPUS) {
		unsigned int i;

		result->flags |= QPU_JOB_RESULT_QPUS;
		result->qpu_count = args.qpu_count;
		for (i = 0; i < args.qpu_count; i++)
			result->qpus[i] = (struct qpu_job_qpu){
				.pc = args.qpus[i].pc,
				.activity = qpu_activity_from_uapi(args.qpus[i].state),
				.semaphore = args.qpus[i].semaphore,
			};
	}
	return 0;
}
