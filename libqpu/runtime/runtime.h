/* SPDX-License-Identifier: MIT */
/*
 * libqpu's private interfaces, shared between its files: the device and
 * buffer structs, the backend operations behind them (qpu.ko through
 * kdev.c, the upstream v3d DRM driver through v3ddev.c, the in-process
 * emulator through emudev.c), and the ioctl wrappers. Only kdev_ioctl.c
 * knows qpu.ko's structs and numbers, and only v3ddev.c the v3d driver's:
 * they translate them to libqpu's enums and back.
 */
#ifndef QPU_INTERNAL_H
#define QPU_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qpu.h"
#include "toolkit/toolkit.h"

/*
 * An entry point under a version node of libqpu.map (libqpu/README.md,
 * "How the API grows"): QPU_SYMVER_DEFAULT() binds @impl as name@@node,
 * what programs link against, QPU_SYMVER_OLD() as name@node, kept for old
 * programs. Only the shared library has version nodes: in the static
 * archive (objects built with -DQPU_STATIC_ARCHIVE, libqpu.mk) the default
 * is plainly @name and the old ones have none, so that libqpu.a links into
 * a shared object of its own (a plugin, a Python extension).
 */
#ifdef QPU_STATIC_ARCHIVE
#define QPU_SYMVER_DEFAULT(impl, name, node) \
	extern __typeof__(impl) name __attribute__((alias(#impl)))
#define QPU_SYMVER_OLD(impl, name, node) \
	_Static_assert(1, "no " #name "@" #node " in libqpu.a")
#else
#define QPU_SYMVER_DEFAULT(impl, name, node) \
	__asm__(".symver " #impl ", " #name "@@" #node)
#define QPU_SYMVER_OLD(impl, name, node) \
	__asm__(".symver " #impl ", " #name "@" #node)
#endif

/**
 * struct qpu_dev_ops - what differs between the kinds of device.
 * @describe: the qpu_dev_describe() string.
 * @get_param: a QPU_DEV_PARAM_* value; 0 or -errno.
 * @bo_alloc: zeroed, mapped memory of @bo->size bytes: set @bo->map,
 *	@bo->bus_addr and @bo->handle; 0 or -errno.
 * @bo_free: give back what @bo_alloc or @bo_import got.
 * @bo_import: map the dma-buf @fd as @bo: set @bo->map, @bo->bus_addr,
 *	@bo->handle and @bo->size (the dma-buf's; @bo->size asks at least
 *	that much, 0 anything); 0 or -errno with qpu_last_error() set.
 *	NULL: the device cannot import.
 * @bo_export: a new close-on-exec dma-buf fd of @bo into @fd; 0 or -errno
 *	with qpu_last_error() set. NULL: the device cannot export.
 * @submit: start a validated job; 0 or -errno.
 * @wait: wait for a job until @timeout_ms (0: look, -1: forever).
 * @close: free the backend's state.
 * @set_board: model @board's timing (the emulator only; NULL elsewhere).
 * @telemetry: fill @out (zeroed, source "none") with the device's clock,
 *	temperature and throttling and the reasons for what it lacks; 0 or
 *	-errno. NULL: the device has none (the emulator).
 */
struct qpu_dev_ops {
	const char *(*describe)(const struct qpu_dev *dev);
	int (*get_param)(struct qpu_dev *dev, enum qpu_dev_param param,
			 uint64_t *value);
	int (*bo_alloc)(struct qpu_dev *dev, struct qpu_bo *bo);
	void (*bo_free)(struct qpu_dev *dev, struct qpu_bo *bo);
	int (*bo_import)(struct qpu_dev *dev, struct qpu_bo *bo, int fd);
	int (*bo_export)(struct qpu_dev *dev, struct qpu_bo *bo, int *fd);
	int (*submit)(struct qpu_dev *dev, const struct qpu_job_desc *desc,
		      uint64_t *seqno);
	int (*wait)(struct qpu_dev *dev, uint64_t seqno, int timeout_ms,
		    struct qpu_job_result *result);
	void (*close)(struct qpu_dev *dev);
	int (*set_board)(struct qpu_dev *dev, enum qpu_board board);
	int (*telemetry)(struct qpu_dev *dev, struct qpu_telemetry *out);
};

struct qpu_dev {
	const struct qpu_dev_ops *ops;
	char *path;
	int fd;			/* kdev.c, v3ddev.c: the open node; -1 otherwise */
	void *priv;		/* emudev.c, v3ddev.c: the backend's state */
};

struct qpu_bo {
	struct qpu_dev *dev;
	size_t size;
	void *map;
	uint32_t bus_addr;
	uint32_t handle;	/* kdev.c, v3ddev.c: the kernel's handle */
	uint64_t mmap_offset;	/* kdev.c, v3ddev.c: where it is mapped from */
	void *priv;		/* emudev.c: its struct emu_mem; v3ddev.c: the next buffer */
};

/*
 * error.c: sets the calling thread's qpu_last_error() message from @fmt
 * and returns @err (a -errno value), for "return qpu_fail(-EINVAL, ...)".
 */
int qpu_fail(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* job.c: the batches of @d, its own count or Mesa's when it has none. */
uint32_t qpu_v3d_dispatch_batches(const struct qpu_v3d_dispatch *d);
/*
 * job.c: the timeout a job of &qpu_job_desc.timeout_ms runs with on a
 * device of libqpu's (the emulator, the v3d driver): the device model's
 * default for 0, cut to its maximum; QPU_JOB_TIMEOUT_NONE stays none.
 */
unsigned int qpu_job_timeout_ms(unsigned int timeout_ms);
/* job.c: QPU_DEV_PARAM_DEFAULT/MAX_TIMEOUT_MS for those; -EINVAL for others. */
int qpu_job_timeout_param(enum qpu_dev_param param, uint64_t *value);
/*
 * job.c: the CSD's cfg[0..6] for @d with its shader at @code_addr and its
 * uniforms at @unif_addr, what SUBMIT_CSD carries; @raw_batches: V3D
 * 7.1.6 on, whose CSD runs cfg[4] batches rather than cfg[4] + 1.
 */
void qpu_v3d_dispatch_cfg(const struct qpu_v3d_dispatch *d, uint32_t code_addr,
			  uint32_t unif_addr, bool raw_batches, uint32_t cfg[7]);

/* drm.c: the longest DRM node path the search gives. */
#define QPU_DRM_PATH_MAX	64
/*
 * drm.c: 0 when @fd (a node that is not qpu.ko's) is the v3d driver's;
 * else -ENODEV, saying in qpu_last_error() what it is.
 */
int qpu_drm_probe(int fd, const char *path);
/*
 * drm.c: the v3d driver's nodes into @paths, at most @max, one per device
 * (its render node, else its card node); how many.
 */
int qpu_drm_find_v3d(char (*paths)[QPU_DRM_PATH_MAX], int max);

/* v3ddev.c: the v3d backend on dev->fd, a node qpu_drm_probe() accepted. */
int qpu_v3ddev_open(struct qpu_dev *dev);

/* fwprop.c: the firmware property request telemetry sends, in words. */
#define QPU_FWPROP_WORDS	22
/* fwprop.c: the four-tag request (clocks, temperature, throttled) into @buf. */
void qpu_fwprop_request(uint32_t buf[QPU_FWPROP_WORDS]);
/*
 * fwprop.c: the firmware's answer in @buf into @t (flags, values, and the
 * reason for each field it lacks); 0, or -EPROTO when the buffer's code is
 * not success.
 */
int qpu_fwprop_parse(const uint32_t buf[QPU_FWPROP_WORDS], struct qpu_telemetry *t);
/*
 * fwprop.c: asks the firmware through @node (QPU_FWPROP_NODE) into @t; 0,
 * or -errno with every field's reason set.
 */
int qpu_fwprop_read(const char *node, struct qpu_telemetry *t);

/* telemetry.c: the telemetry ops of qpu.ko's devices and of v3d nodes. */
int qpu_kdev_telemetry(struct qpu_dev *dev, struct qpu_telemetry *t);
int qpu_v3d_telemetry(struct qpu_dev *dev, struct qpu_telemetry *t);

/* kdev.c */
int qpu_kdev_open(struct qpu_dev *dev);

/* emudev.c */
/* @options: what follows "emu:" in the path (NULL for plain "emu") */
int qpu_emudev_open(struct qpu_dev *dev, const char *options);

/* kdev_ioctl.c */
/* 0 if @fd is qpu.ko of this ABI; -ENOTTY: not qpu.ko; -EPROTO: another ABI */
int qpu_kdev_ioctl_check_abi(int fd);
/* The ABI version libqpu speaks, for the emulator's QPU_DEV_PARAM_ABI_VERSION. */
uint32_t qpu_kdev_ioctl_abi_version(void);
int qpu_kdev_ioctl_get_param(int fd, enum qpu_dev_param param, uint64_t *value);
/* libqpu's numbers as qpu.ko's, which libqpu 0.1 gave its callers */
uint32_t qpu_status_to_uapi(enum qpu_status status);
uint32_t qpu_access_to_uapi(enum qpu_access access);
int qpu_kdev_ioctl_bo_create(int fd, uint64_t size, struct qpu_bo *bo);
int qpu_kdev_ioctl_bo_destroy(int fd, uint32_t handle);
/* BO_IMPORT of @dmabuf: fills @bo's size, handle, bus_addr, mmap_offset */
int qpu_kdev_ioctl_bo_import(int fd, int dmabuf, struct qpu_bo *bo);
/* BO_EXPORT of @handle, close-on-exec and read-write: the new fd in @out */
int qpu_kdev_ioctl_bo_export(int fd, uint32_t handle, int *out);
int qpu_kdev_ioctl_submit(int fd, const struct qpu_job_desc *desc, uint64_t *seqno);
int qpu_kdev_ioctl_wait(int fd, uint64_t seqno, int64_t deadline_ns,
			struct qpu_job_result *result);

#endif /* QPU_INTERNAL_H */
