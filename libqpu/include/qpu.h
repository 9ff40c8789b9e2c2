/* SPDX-License-Identifier: MIT */
/*
 * libqpu: the public interface.
 *
 * Conventions for every function below:
 * - a function returning a pointer returns NULL and sets errno on failure;
 * - a function returning int returns 0 on success or a negative errno value,
 *   and leaves errno alone;
 * - destructors (_close, _free) accept NULL;
 * - objects are not thread-safe unless their section says so: share one
 *   between threads only with your own locking.
 *
 * Every number in these headers is libqpu's own (enum qpu_dev_param, enum
 * qpu_status, enum qpu_access...), not one of qpu.ko's <linux/qpu.h>: the
 * library translates, so that the two may grow apart.
 */
#ifndef QPU_H
#define QPU_H

#include <stddef.h>
#include <stdint.h>

#include "qpu_gen.h"

#ifdef __cplusplus
extern "C" {
#endif

#define QPU_API __attribute__((visibility("default")))

/**
 * DOC: generations
 *
 * The toolkit (qpu_asm.h, qpu_dis.h) knows three instruction sets, the
 * values of enum qpu_gen (qpu_gen.h): QPU_GEN_VC4 is VideoCore IV (Pi 1-3),
 * QPU_GEN_V3D42 the Pi 4's V3D 4.2, QPU_GEN_V3D71 the Pi 5's V3D 7.1, whose
 * text is Mesa's disassembly syntax (Mesa 25.0). A device has one
 * (QPU_DEV_PARAM_GEN).
 */

/**
 * qpu_gen_name() - the short name of a generation: "vc4", "v3d42", "v3d71"
 * @gen: an enum qpu_gen value
 * Return: a static string, as the tools' -m option and qpu_gen_from_name()
 * take it; NULL for any other value.
 */
QPU_API const char *qpu_gen_name(enum qpu_gen gen);

/**
 * qpu_gen_from_name() - the generation named "vc4", "v3d42" or "v3d71"
 * @name: the name, as the tools' -m option takes it
 * Return: QPU_GEN_VC4, QPU_GEN_V3D42 or QPU_GEN_V3D71; -EINVAL for any
 * other name or NULL.
 */
QPU_API int qpu_gen_from_name(const char *name);

/**
 * qpu_version() - the library's version
 *
 * Return: a static string such as "0.2.0"; do not free it.
 */
QPU_API const char *qpu_version(void);

/**
 * struct qpu_dev - an open qpu device (opaque).
 */
struct qpu_dev;

/**
 * qpu_dev_open() - open a qpu device
 * @path: a device node such as "/dev/qpu", or "emu" for the in-process
 *	emulator; NULL means $QPU_DEVICE, or /dev/qpu when that is unset.
 *	"emu:" takes comma-separated options: "emu:strict-vpm" stops a job
 *	with a fault where its generic VPM access would wrap past row 63
 *	(the hardware wraps it; a debugging aid, as qpu.ko's simulated V3D
 *	offers in debugfs, qpu/<node>/strict_vpm); "emu:max-bo-mib=N"
 *	raises the largest buffer from 64 MiB to N MiB (up to 512), as qpu.ko's
 *	max_bo_size parameter does (GPU_FFT's 2^22-point transform needs 65).
 *	The first option may name the emulator's generation (qpu_gen_name()):
 *	"emu:vc4" is "emu"; "emu:v3d42" (Pi 4) and "emu:v3d71" (Pi 5;
 *	",board=pi5-16" for its 4 x 4 configuration) emulate a V3D 4.2/7.1
 *	that runs QPU_JOB_V3D_DISPATCH jobs, its buffers at upstream v3d's
 *	GPU addresses (128 KiB granules from 128 KiB); their option
 *	",timing" runs the V3D timing model on that board beside every job,
 *	whose result then carries its modelled time (QPU_JOB_RESULT_TIMING,
 *	board QPU_BOARD_NONE: the device's board is the one modelled)
 *
 * The same program runs on all three kinds of VideoCore IV device: a real
 * V3D, qpu.ko's simulated V3D, and the emulator in this process (no kernel
 * module needed; every memory access is checked as in the simulated V3D).
 * qpu_dev_describe() says which one is in use, QPU_DEV_PARAM_GEN which
 * generation it runs. A node is probed, not recognised by its name: qpu.ko
 * answers its GET_PARAM; a DRM node is asked its driver (libdrm's
 * DRM_IOCTL_VERSION). The Pi 4's and Pi 5's "v3d" DRM driver's node runs
 * QPU_JOB_V3D_DISPATCH jobs (new in 0.5; libqpu/README.md, "On a Pi 4 or
 * 5", says what that driver reports and what not). "v3d" opens the first
 * v3d node, "v3d:v3d42" or "v3d:v3d71" the first of that generation (found
 * with libdrm's drmGetDevices2(), or by listing /dev/dri without libdrm);
 * qpu_dev_get_path() then says which. With no @path and no $QPU_DEVICE,
 * when /dev/qpu is missing, the first v3d node is opened.
 *
 * Return: a device the caller closes with qpu_dev_close(), or NULL with
 * errno set and qpu_last_error() saying why in words (ENOENT: no such
 * node, is qpu.ko loaded?; ENODEV: the node is neither qpu.ko's nor
 * v3d's; EPROTO: qpu.ko of another ABI; ENOTSUP: a device libqpu cannot
 * drive: a V3D other than 4.2/7.1, a v3d driver without CSD; EINVAL: an
 * unknown "emu:" option, a "v3d:" generation that is no V3D).
 */
QPU_API struct qpu_dev *qpu_dev_open(const char *path);

/**
 * qpu_last_error() - why the calling thread's last failed call failed
 *
 * qpu_dev_open() and qpu_submit() say in words what their errno value
 * cannot: which node was found and what it is, which generation a job and
 * a device have. Other calls leave the message as it was.
 *
 * Return: a string owned by the thread, valid until its next libqpu call;
 * "" when no call has failed with a message. New in 0.5.
 */
QPU_API const char *qpu_last_error(void);

/**
 * qpu_dev_open_hint() - what to do when qpu_dev_open() failed, for people
 * @err: the errno qpu_dev_open() left
 *
 * Every tool, the Python package and the examples print this under their
 * error, so a newcomer hears the same advice everywhere: for ENOENT, ENODEV
 * and ENXIO (no device node) the three ways to get a device (qpu.ko with a
 * simulated V3D on a PC, the emulator with QPU_DEVICE=emu or --device emu,
 * qpu.ko on a Raspberry Pi); for EACCES and EPERM who may open a node; for
 * ENOTTY that the node is not a qpu device. New in 0.5.
 *
 * Return: a static string of one or more lines without a final newline,
 * or NULL for an error it has no advice for.
 */
QPU_API const char *qpu_dev_open_hint(int err);

/**
 * qpu_dev_close() - close a device
 * @dev: the device, or NULL
 *
 * Jobs that have not started end as QPU_STATUS_CANCELED, their fences
 * signalled; a running one runs to its end first. Free the device's
 * buffers before: one left goes with the device (qpu_bo_free() may no
 * longer be called on it; on the emulator and a v3d node it is freed).
 * On a v3d node the driver keeps the jobs it holds, with their buffers'
 * memory, until they end; libqpu lets go of them at once.
 */
QPU_API void qpu_dev_close(struct qpu_dev *dev);

/**
 * qpu_dev_get_path() - the path the device was opened with
 * @dev: the device
 *
 * Return: a string owned by @dev, valid until qpu_dev_close().
 */
QPU_API const char *qpu_dev_get_path(const struct qpu_dev *dev);

/**
 * enum qpu_dev_param - what qpu_dev_get_param() reports
 * @QPU_DEV_PARAM_NUM_QPUS: QPUs a job may use (slices times QPUs per slice)
 * @QPU_DEV_PARAM_NUM_SLICES: slices
 * @QPU_DEV_PARAM_NUM_SEMAPHORES: hardware semaphores
 * @QPU_DEV_PARAM_VPM_SIZE: VPM size in bytes
 * @QPU_DEV_PARAM_MAX_BO_SIZE: the largest buffer, in bytes
 * @QPU_DEV_PARAM_DEFAULT_TIMEOUT_MS: the timeout of a job that asks for none
 * @QPU_DEV_PARAM_MAX_TIMEOUT_MS: the longest timeout a job may have
 * @QPU_DEV_PARAM_BACKEND: an enum qpu_dev_backend (qpu.ko's devices only)
 * @QPU_DEV_PARAM_ABI_VERSION: the version of qpu.ko's ABI
 * @QPU_DEV_PARAM_FEATURES: what the device does, QPU_DEV_FEATURE_* bits
 * @QPU_DEV_PARAM_INSTRUCTIONS_PER_MS: on a device that times a job by its
 *	progress (the emulator, qpu.ko's simulated V3D), the instructions per
 *	QPU that one millisecond of timeout allows; 0 on a real V3D
 * @QPU_DEV_PARAM_V3D_IDENT0: the V3D's raw IDENT0 register (qpu.ko only)
 * @QPU_DEV_PARAM_V3D_IDENT1: the V3D's raw IDENT1 register (qpu.ko only)
 * @QPU_DEV_PARAM_V3D_IDENT2: the V3D's raw IDENT2 register (qpu.ko only)
 * @QPU_DEV_PARAM_GEN: the enum qpu_gen the device runs: QPU_GEN_VC4 for
 *	qpu.ko and "emu" (new in 0.5: libqpu answers it for every device)
 * @QPU_DEV_PARAM_BO_L2_CACHED: VideoCore IV only: 1 when the QPUs reach
 *	buffers through the VideoCore's L2 cache, 0 when their bus alias
 *	(0xC) bypasses it. qpu.ko answers from where its buffers sit (an L2
 *	alias on a Pi 1 or Zero, 0xC on a Pi 2 or 3); the emulator from its
 *	board (1 for "pi1", whose buffers it then places at 0x4; 0 without
 *	a board and on the other boards). -EINVAL on V3D devices and on
 *	qpu.ko before it (new in 0.7)
 */
enum qpu_dev_param {
	QPU_DEV_PARAM_NUM_QPUS = 1,
	QPU_DEV_PARAM_NUM_SLICES,
	QPU_DEV_PARAM_NUM_SEMAPHORES,
	QPU_DEV_PARAM_VPM_SIZE,
	QPU_DEV_PARAM_MAX_BO_SIZE,
	QPU_DEV_PARAM_DEFAULT_TIMEOUT_MS,
	QPU_DEV_PARAM_MAX_TIMEOUT_MS,
	QPU_DEV_PARAM_BACKEND,
	QPU_DEV_PARAM_ABI_VERSION,
	QPU_DEV_PARAM_FEATURES,
	QPU_DEV_PARAM_V3D_IDENT0,
	QPU_DEV_PARAM_V3D_IDENT1,
	QPU_DEV_PARAM_V3D_IDENT2,
	QPU_DEV_PARAM_INSTRUCTIONS_PER_MS,
	QPU_DEV_PARAM_GEN,
	QPU_DEV_PARAM_BO_L2_CACHED,
};

/**
 * QPU_DEV_FEATURE_UNIFORMS_ANYWHERE - bit of QPU_DEV_PARAM_FEATURES: a
 * program may read uniforms anywhere in its job's buffers (unif_addr
 * writes); &qpu_program_ref.uniforms_length bounds nothing.
 */
#define QPU_DEV_FEATURE_UNIFORMS_ANYWHERE	(1u << 0)

/**
 * QPU_DEV_FEATURE_DEADLOCK - bit of QPU_DEV_PARAM_FEATURES: a job whose
 * running programs all wait forever ends at once as QPU_STATUS_DEADLOCK
 * (the emulator, qpu.ko's simulated V3D, the emulated Pi 4 and 5 since
 * 0.5; a real V3D cannot tell a deadlock from a hang, so it times out).
 */
#define QPU_DEV_FEATURE_DEADLOCK		(1u << 1)

/**
 * QPU_DEV_FEATURE_ALL_BOS - bit of QPU_DEV_PARAM_FEATURES: a job with
 * QPU_JOB_ALL_BOS may touch every buffer of its device, as the device holds
 * them at qpu_submit() (new in 0.3; qpu.ko's QPU_FEATURE_ALL_BOS).
 */
#define QPU_DEV_FEATURE_ALL_BOS			(1u << 2)

/**
 * qpu_dev_feature_name() - the name of a QPU_DEV_FEATURE_* bit
 * @bit: the bit's number (0 for QPU_DEV_FEATURE_UNIFORMS_ANYWHERE)
 *
 * The one table of names that qpu-info and the Python package print
 * ("uniforms_anywhere", "deadlock", "all_bos"). New in 0.5.
 *
 * Return: a static string, or NULL for a bit libqpu does not know.
 */
QPU_API const char *qpu_dev_feature_name(unsigned int bit);

/**
 * qpu_dev_get_param() - query one value of the device
 * @dev: the device
 * @param: what to report
 * @value: where the value goes; untouched on failure
 *
 * Return: 0, or -EINVAL for a parameter this device does not have (the
 * in-process emulator has no backend kind and no V3D registers).
 */
QPU_API int qpu_dev_get_param(struct qpu_dev *dev, enum qpu_dev_param param,
			      uint64_t *value);

/**
 * enum qpu_dev_backend - values of QPU_DEV_PARAM_BACKEND
 * @QPU_DEV_BACKEND_HARDWARE: a real V3D
 * @QPU_DEV_BACKEND_SIMULATED: qpu.ko's simulated V3D
 */
enum qpu_dev_backend {
	QPU_DEV_BACKEND_HARDWARE = 1,
	QPU_DEV_BACKEND_SIMULATED,
};

/**
 * qpu_backend_name() - a QPU_DEV_PARAM_BACKEND value for people and scripts
 * @backend: an enum qpu_dev_backend
 *
 * The one mapping that qpu-info and qpuctl print.
 *
 * Return: a static string: "hardware", "simulated" or "unknown"; do not
 * free it.
 */
QPU_API const char *qpu_backend_name(enum qpu_dev_backend backend);

/**
 * qpu_dev_backend_from_uapi() - qpu.ko's backend number as libqpu's
 * @uapi_backend: an enum qpu_backend of <linux/qpu.h>, for programs that
 *	read it from qpu.ko themselves (qpuctl, over netlink)
 *
 * Return: the enum qpu_dev_backend, or 0 for a number libqpu does not know.
 */
QPU_API enum qpu_dev_backend qpu_dev_backend_from_uapi(uint32_t uapi_backend);

/**
 * qpu_dev_describe() - which kind of device this is, for people
 * @dev: the device
 *
 * Return: a static string such as "qpu.ko, simulated V3D", "qpu.ko,
 * hardware V3D" or "in-process emulator"; do not free it.
 */
QPU_API const char *qpu_dev_describe(const struct qpu_dev *dev);

/**
 * struct qpu_bo - a buffer shared by the CPU and QPU programs (opaque).
 *
 * Zeroed when made, mapped for the CPU for its whole life, seen by QPU
 * programs at its bus address. Not thread-safe: one thread at a time.
 */
struct qpu_bo;

/**
 * qpu_bo_new() - make a buffer
 * @dev: the device
 * @size: bytes, at least one; rounded up to whole pages
 *
 * Return: a buffer the caller frees with qpu_bo_free(), or NULL with errno
 * set (EINVAL: bad size; EDQUOT, ENOSPC: a limit was reached; ENOMEM).
 */
QPU_API struct qpu_bo *qpu_bo_new(struct qpu_dev *dev, size_t size);

/**
 * qpu_bo_free() - unmap and release a buffer
 * @bo: the buffer, or NULL
 *
 * Memory a submitted job still uses stays alive until the job ends.
 */
QPU_API void qpu_bo_free(struct qpu_bo *bo);

/**
 * qpu_bo_get_map() - the CPU's view of a buffer
 * @bo: the buffer
 *
 * Return: its first byte, valid until qpu_bo_free().
 */
QPU_API void *qpu_bo_get_map(const struct qpu_bo *bo);

/** qpu_bo_get_bus_addr() - where QPU programs see the buffer's first byte */
QPU_API uint32_t qpu_bo_get_bus_addr(const struct qpu_bo *bo);

/** qpu_bo_get_size() - the buffer's size in bytes, a whole number of pages */
QPU_API size_t qpu_bo_get_size(const struct qpu_bo *bo);

/**
 * qpu_bo_import_dmabuf() - a buffer whose memory is a dma-buf's, uncopied
 * @dev: the device
 * @fd: a dma-buf fd (a camera's VIDIOC_EXPBUF, a DRM PRIME export, or
 *	qpu_bo_export_dmabuf()'s); the caller keeps it and may close it at
 *	once: the buffer holds the memory until qpu_bo_free()
 * @size: the bytes the caller needs, or 0 for the whole dma-buf; more than
 *	the dma-buf has is refused
 * @bo: gets the buffer, freed with qpu_bo_free(); NULL on failure
 *
 * Jobs see the dma-buf's own pages; the map (qpu_bo_get_map()) is the
 * whole dma-buf, mapped shared, and qpu_bo_get_size() its size. Where each
 * device takes its memory from:
 *
 * - qpu.ko: any dma-buf (QPU_IOCTL_BO_IMPORT); a real V3D only a contiguous
 *   one (EINVAL otherwise), the simulated one any.
 * - the v3d DRM driver (Pi 4, 5): any dma-buf it can import (PRIME).
 * - the in-process emulators ("emu", "emu:v3d..."): any fd it can mmap
 *   shared: a dma-buf, a memfd, a file; @size 0 takes the file's size.
 *
 * New in 0.6.
 *
 * Return: 0, or a negative errno with qpu_last_error() saying why
 * (EBADF: @fd is not open; EINVAL: not a dma-buf, a size too large, or
 * memory this V3D cannot reach; ENOTSUP: the device cannot import).
 */
QPU_API int qpu_bo_import_dmabuf(struct qpu_dev *dev, int fd, size_t size,
				 struct qpu_bo **bo);

/**
 * qpu_bo_export_dmabuf() - a dma-buf fd of a buffer, for other drivers
 * @bo: the buffer
 * @fd: gets a new fd (close-on-exec, mappable read-write) that the caller
 *	closes; -1 on failure
 *
 * The dma-buf holds the memory while it is open, mapped or imported
 * elsewhere, after qpu_bo_free() too. Importing it into the same device
 * gives the same memory at the same bus address. qpu.ko and the v3d
 * driver export; the emulators cannot (their memory is this process's).
 * New in 0.6.
 *
 * Return: 0, or a negative errno with qpu_last_error() saying why
 * (ENOTSUP: the device cannot export; EMFILE).
 */
QPU_API int qpu_bo_export_dmabuf(struct qpu_bo *bo, int *fd);

/**
 * struct qpu_program_ref - one program of a job
 * @code: the buffer holding the code
 * @code_offset: offset of the first instruction, a multiple of 8
 * @uniforms: the buffer holding the uniforms
 * @uniforms_offset: offset of the first uniform, a multiple of 4
 * @uniforms_length: kept for compatibility: a multiple of 4 within the
 *	buffer, or 0; checked, then ignored. Programs read uniforms anywhere in
 *	their job's buffers (QPU_DEV_FEATURE_UNIFORMS_ANYWHERE)
 */
struct qpu_program_ref {
	struct qpu_bo *code;
	uint32_t code_offset;
	struct qpu_bo *uniforms;
	uint32_t uniforms_offset;
	uint32_t uniforms_length;
};

/** QPU_JOB_TIMEOUT_NONE - a &qpu_job_desc.timeout_ms that asks for no bound. */
#define QPU_JOB_TIMEOUT_NONE	0xffffffffu

/**
 * enum qpu_job_kind - what a job runs (&qpu_job_desc.kind)
 * @QPU_JOB_VC4_PROGRAMS: VideoCore IV programs, one per QPU
 *	(&qpu_job_desc.programs). It is 0, so every description written for
 *	libqpu 0.4 or older is one
 * @QPU_JOB_V3D_DISPATCH: a V3D 4.2/7.1 compute dispatch
 *	(&qpu_job_desc.dispatch), what the v3d driver's SUBMIT_CSD runs
 *
 * A device runs the kind of its generation (QPU_DEV_PARAM_GEN); qpu_submit()
 * refuses the other with -EINVAL, and qpu_last_error() names both.
 */
enum qpu_job_kind {
	QPU_JOB_VC4_PROGRAMS,
	QPU_JOB_V3D_DISPATCH,
};

/**
 * struct qpu_v3d_dispatch - a V3D compute dispatch: a grid of workgroups
 * of one shader, grouped in supergroups and run in batches of 16
 * invocations, as the CSD's configuration words take it
 * @code: the buffer holding the shader
 * @code_offset: offset of its first instruction, a multiple of 8 (cfg[5])
 * @uniforms: the buffer holding its uniforms
 * @uniforms_offset: offset of the first uniform, a multiple of 4 (cfg[6])
 * @wg_count: workgroups in X, Y and Z, 1 to 65535 each (cfg[0..2])
 * @wg_size: invocations per workgroup, 1 to 256 (cfg[3])
 * @wgs_per_sg: workgroups per supergroup, 1 to 16 (cfg[3])
 * @batches: 16-invocation batches the dispatch runs (cfg[4]); 0: as Mesa
 *	counts them, whole supergroups of DIV_ROUND_UP(@wgs_per_sg * @wg_size,
 *	16) batches and a last partial one
 * @threads: threads per QPU the shader is compiled for: 1, 2 or 4 (4 sets
 *	cfg[5]'s threading bit)
 * @flags: QPU_V3D_DISPATCH_* bits
 *
 * The buffers holding the data the shader reads and writes are
 * &qpu_job_desc.bos, as for VideoCore IV programs.
 */
struct qpu_v3d_dispatch {
	struct qpu_bo *code;
	uint32_t code_offset;
	struct qpu_bo *uniforms;
	uint32_t uniforms_offset;
	uint32_t wg_count[3];
	uint32_t wg_size;
	uint32_t wgs_per_sg;
	uint32_t batches;
	uint32_t threads;
	uint32_t flags;
};

/** QPU_V3D_DISPATCH_SINGLE_SEG - cfg[5]: the shader is one segment */
#define QPU_V3D_DISPATCH_SINGLE_SEG	(1u << 0)
/** QPU_V3D_DISPATCH_PROPAGATE_NANS - cfg[5]: NaNs propagate (V3D 4.2) */
#define QPU_V3D_DISPATCH_PROPAGATE_NANS	(1u << 1)

/**
 * struct qpu_job_desc - what qpu_submit() runs
 * @programs: VideoCore IV: one per QPU used, 1 to QPU_DEV_PARAM_NUM_QPUS
 *	of them
 * @program_count: entries in @programs
 * @bos: the other buffers the programs read or write (their code and
 *	uniforms buffers are included anyway)
 * @bo_count: entries in @bos
 * @timeout_ms: 0 for the device's default; QPU_JOB_TIMEOUT_NONE for none on
 *	the in-process emulator (qpu.ko cuts it to its maximum). The emulator
 *	and qpu.ko's simulated V3D count it in instructions per QPU
 *	(QPU_DEV_PARAM_INSTRUCTIONS_PER_MS per millisecond), not wall time
 * @in_fence_fd: a sync_file (or the emulator's fence) to wait for first, or
 *	-1. qpu_submit() never waits for it: the job is queued behind it. A
 *	fence that signals an error cancels the job (QPU_STATUS_CANCELED): on
 *	qpu.ko a sync_file's; on the emulator, whose fences are eventfds,
 *	the out-fence of a job of any emulated device of the process that
 *	did not end QPU_STATUS_DONE
 * @out_fence_fd: NULL, or where to put a new fence fd that becomes
 *	readable (poll) when the job ends; the caller closes it
 * @flags: QPU_JOB_* bits (new in 0.3: a program built against 0.2 binds
 *	qpu_submit@LIBQPU_0.1, which reads the struct without it)
 * @kind: an enum qpu_job_kind; 0, QPU_JOB_VC4_PROGRAMS, takes @programs
 * @dispatch: with QPU_JOB_V3D_DISPATCH, the dispatch (@programs is then
 *	NULL and @program_count 0)
 *
 * @kind and @dispatch are new in 0.5: a program built against 0.3 or 0.4
 * binds qpu_submit@LIBQPU_0.3, which reads the struct without them.
 */
struct qpu_job_desc {
	const struct qpu_program_ref *programs;
	unsigned int program_count;
	struct qpu_bo *const *bos;
	unsigned int bo_count;
	unsigned int timeout_ms;
	int in_fence_fd;
	int *out_fence_fd;
	unsigned int flags;
	enum qpu_job_kind kind;
	const struct qpu_v3d_dispatch *dispatch;
};

/**
 * QPU_JOB_ALL_BOS - bit of &qpu_job_desc.flags: the programs may touch
 * every buffer of the device (QPU_DEV_FEATURE_ALL_BOS), as programs written
 * for the firmware mailbox expect; @bos must then be empty. The set is the
 * one at qpu_submit(): a buffer made later is out of reach (a fault on the
 * emulator and qpu.ko's simulated V3D), one freed later lives until the
 * job ends. On real hardware it needs what every job needs, CAP_SYS_RAWIO.
 */
#define QPU_JOB_ALL_BOS		(1u << 0)

/**
 * qpu_submit() - start a job; never waits for it
 * @dev: the device
 * @desc: the job
 * @seqno: where the job's number goes, for qpu_wait()
 *
 * Return: 0, or -EINVAL (bad description, unknown flags, buffers of another
 * device, QPU_JOB_ALL_BOS with @bos or on a device without
 * QPU_DEV_FEATURE_ALL_BOS, a job of another generation's kind: see
 * qpu_last_error()), -EPERM (real hardware needs CAP_SYS_RAWIO), -ENOENT,
 * -ENOMEM.
 */
QPU_API int qpu_submit(struct qpu_dev *dev, const struct qpu_job_desc *desc,
		       uint64_t *seqno);

/**
 * QPU_JOB_RESULT_INSTRUCTIONS - bit of &qpu_job_result.flags: the
 * instruction count is known.
 */
#define QPU_JOB_RESULT_INSTRUCTIONS	(1u << 0)

/**
 * QPU_JOB_RESULT_COUNTERS - bit of &qpu_job_result.flags: @counters holds
 * the job's own counts.
 */
#define QPU_JOB_RESULT_COUNTERS		(1u << 1)

/**
 * QPU_JOB_RESULT_QPUS - bit of &qpu_job_result.flags: @qpu_count and @qpus
 * say what each QPU was doing when the job stopped (QPU_STATUS_DEADLOCK).
 */
#define QPU_JOB_RESULT_QPUS		(1u << 2)

/**
 * QPU_JOB_RESULT_TIMING - bit of &qpu_job_result.flags: @timing holds the
 * job's modelled time on the board the device models (the in-process
 * emulator with a board set: qpu_dev_set_board(), $QPU_EMU_BOARD).
 */
#define QPU_JOB_RESULT_TIMING		(1u << 3)

/**
 * QPU_JOB_RESULT_PROGRESS - bit of &qpu_job_result.flags: @batches and
 * @batches_done say how far a V3D dispatch got (new in 0.7).
 */
#define QPU_JOB_RESULT_PROGRESS		(1u << 4)

/**
 * struct qpu_job_counters - what a job's programs did, as the device saw it
 * @dual_issued: instructions in which both the add and the mul unit did
 *	work (issue efficiency: how many of @instructions were dual-issued)
 * @tmu_bytes: bytes read through the TMUs (4 per lane fetched)
 * @uniform_bytes: bytes read from the uniform streams (4 per uniform)
 * @dma_load_bytes: bytes VCD DMA read from memory into the VPM
 * @dma_store_bytes: bytes VCD DMA wrote from the VPM to memory
 * @run_ns: host CPU time spent running the job, in nanoseconds
 * @vpm_wrapped: generic VPM reads and writes whose address lay past the
 *	64 rows a QPU addresses and wrapped, as the hardware decodes it
 *	(a device opened as "emu:strict-vpm" faults on them instead)
 *
 * Only the in-process emulator counts these: it runs every job on a fresh
 * emulator, in the submitting thread or (a job that waited for its
 * in-fence) the device's worker thread, so the counts and the CPU time are
 * the job's alone. A kernel driver (simulated or real V3D) leaves
 * QPU_JOB_RESULT_COUNTERS clear. A job that stopped early has the counts
 * up to where it stopped.
 */
struct qpu_job_counters {
	uint64_t dual_issued;
	uint64_t tmu_bytes;
	uint64_t uniform_bytes;
	uint64_t dma_load_bytes;
	uint64_t dma_store_bytes;
	uint64_t run_ns;
	uint64_t vpm_wrapped;
};

/**
 * enum qpu_status - how a job ended
 * @QPU_STATUS_DONE: every program reached its end
 * @QPU_STATUS_TIMEOUT: the job ran past its timeout (or hung)
 * @QPU_STATUS_FAULT: a program touched memory outside the job's buffers,
 *	or ran an instruction the V3D cannot run
 * @QPU_STATUS_CANCELED: the job never started (its device went away)
 * @QPU_STATUS_DEADLOCK: every running program waited forever on another
 *	(only from a device with QPU_DEV_FEATURE_DEADLOCK); &qpu_job_result.qpus
 *	says on what
 * @QPU_STATUS_RESET: the driver reset the GPU under the job (a v3d node's
 *	hang check: no new batch for 500 ms); the next job runs on a GPU
 *	recovered. New in 0.7: qpu_wait@LIBQPU_0.4 and older give it as
 *	QPU_STATUS_TIMEOUT
 */
enum qpu_status {
	QPU_STATUS_DONE = 1,
	QPU_STATUS_TIMEOUT,
	QPU_STATUS_FAULT,
	QPU_STATUS_CANCELED,
	QPU_STATUS_DEADLOCK,
	QPU_STATUS_RESET,
};

/**
 * enum qpu_access - what a faulting access was for
 * @QPU_ACCESS_NONE: no fault
 * @QPU_ACCESS_FETCH: instruction fetch
 * @QPU_ACCESS_UNIFORM: uniform stream read
 * @QPU_ACCESS_TMU: TMU read
 * @QPU_ACCESS_DMA_LOAD: VCD DMA from memory into the VPM
 * @QPU_ACCESS_DMA_STORE: VCD DMA from the VPM into memory
 * @QPU_ACCESS_OTHER: not a memory access (an instruction the V3D cannot
 *	run, a VPM address out of range)
 * @QPU_ACCESS_TMU_WRITE: TMU write or atomic (V3D 4.2/7.1). New in 0.5,
 *	as V3D jobs are; qpu_wait@LIBQPU_0.2 and @LIBQPU_0.1 give it as
 *	QPU_ACCESS_TMU.
 */
enum qpu_access {
	QPU_ACCESS_NONE = 0,
	QPU_ACCESS_FETCH,
	QPU_ACCESS_UNIFORM,
	QPU_ACCESS_TMU,
	QPU_ACCESS_DMA_LOAD,
	QPU_ACCESS_DMA_STORE,
	QPU_ACCESS_OTHER,
	QPU_ACCESS_TMU_WRITE,
};

/**
 * enum qpu_activity - what a QPU was doing when its job stopped
 * @QPU_ACTIVITY_IDLE: no program, or its program had ended
 * @QPU_ACTIVITY_RUNNING: issuing instructions
 * @QPU_ACTIVITY_WAIT_SEMAPHORE: waiting on &qpu_job_qpu.semaphore (to
 *	acquire it at 0, or release it at 15)
 * @QPU_ACTIVITY_WAIT_MUTEX: waiting for the mutex, held by another QPU
 * @QPU_ACTIVITY_WAIT_VPM: waiting on a VPM read (or DMA) never set up
 * @QPU_ACTIVITY_WAIT_TMU: waiting on a TMU result never requested
 * @QPU_ACTIVITY_WAIT_BARRIER: V3D: a thread waiting at its supergroup's
 *	barrier, which some thread never reaches. New in 0.5, as V3D jobs
 *	are; qpu_wait@LIBQPU_0.2 and @LIBQPU_0.1 give it as
 *	QPU_ACTIVITY_WAIT_SEMAPHORE (on semaphore 0)
 */
enum qpu_activity {
	QPU_ACTIVITY_IDLE = 1,
	QPU_ACTIVITY_RUNNING,
	QPU_ACTIVITY_WAIT_SEMAPHORE,
	QPU_ACTIVITY_WAIT_MUTEX,
	QPU_ACTIVITY_WAIT_VPM,
	QPU_ACTIVITY_WAIT_TMU,
	QPU_ACTIVITY_WAIT_BARRIER,
};

/**
 * QPU_JOB_MAX_QPUS - the most programs a job may carry and the entries of
 * &qpu_job_result.qpus: a format limit. A device's own count,
 * QPU_DEV_PARAM_NUM_QPUS (12 on every Raspberry Pi), is what a job may use.
 */
#define QPU_JOB_MAX_QPUS	16

/**
 * struct qpu_job_qpu - one QPU when its job stopped
 * @pc: bus address of the instruction it was about to issue
 * @activity: an enum qpu_activity
 * @semaphore: for QPU_ACTIVITY_WAIT_SEMAPHORE: which one (0..15)
 */
struct qpu_job_qpu {
	uint32_t pc;
	enum qpu_activity activity;
	uint32_t semaphore;
};

/**
 * enum qpu_board - the boards the emulator's timing model knows
 * @QPU_BOARD_NONE: no timing model (the default)
 * @QPU_BOARD_PI1: Raspberry Pi 1 and Zero (BCM2835, V3D at 250 MHz), the
 *	board the model is calibrated on
 * @QPU_BOARD_PI2: Pi 2 (extrapolated from the Pi 1)
 * @QPU_BOARD_PI3: Pi 3 (extrapolated)
 * @QPU_BOARD_PI3PLUS: Pi 3B+ (extrapolated)
 * @QPU_BOARD_PI4: Pi 4 (V3D 4.2, 8 QPUs at 500 MHz), the V3D timing model's
 *	(libqpu/core/timing/CALIBRATION-V3D.md), for the emulated V3D 4.2
 *	device (new in 0.5, as the two below)
 * @QPU_BOARD_PI5: Pi 5 (V3D 7.1, 12 QPUs at 800 MHz), for "emu:v3d71"
 * @QPU_BOARD_PI5_16: Pi 5 with 16 QPUs at 960 MHz, for
 *	"emu:v3d71,board=pi5-16"
 */
enum qpu_board {
	QPU_BOARD_NONE,
	QPU_BOARD_PI1,
	QPU_BOARD_PI2,
	QPU_BOARD_PI3,
	QPU_BOARD_PI3PLUS,
	QPU_BOARD_PI4,
	QPU_BOARD_PI5,
	QPU_BOARD_PI5_16,
};

/**
 * struct qpu_job_timing - a job's modelled time on a board
 * @board: the enum qpu_board modelled
 * @pad: zero
 * @cycles: V3D cycles from the first program's start to the last one's
 *	end, its last DMA store included
 * @ns: @cycles at the board's V3D clock
 * @launch_ns: what launching the job through qpu.ko costs the host on that
 *	board (submit, interrupt, fence); not in @ns
 * @sdram_bytes: bytes the job moved to or from SDRAM
 * @stall_tmu: cycles the QPUs waited for TMU results, summed over QPUs
 * @stall_dma: ... for VCD DMA
 * @stall_sync: ... for semaphores and the mutex
 * @stall_other: ... for anything else (regfile, SFU, VPM, fetch, uniforms)
 *
 * These are a model's figures, not a measurement: qpu-run --timing shows
 * them per QPU, and libqpu/core/timing/CALIBRATION.md says how well they
 * match published times.
 */
struct qpu_job_timing {
	enum qpu_board board;
	uint32_t pad;
	uint64_t cycles;
	uint64_t ns;
	uint64_t launch_ns;
	uint64_t sdram_bytes;
	uint64_t stall_tmu;
	uint64_t stall_dma;
	uint64_t stall_sync;
	uint64_t stall_other;
};

/**
 * struct qpu_job_result - how a job ended
 * @status: an enum qpu_status
 * @fault_qpu: for QPU_STATUS_FAULT: the QPU
 * @fault_pc: for QPU_STATUS_FAULT: bus address of the instruction
 * @fault_addr: for QPU_STATUS_FAULT: the address refused
 * @fault_access: for QPU_STATUS_FAULT: an enum qpu_access
 * @flags: QPU_JOB_RESULT_* bits saying which fields below hold a value
 * @instructions: with QPU_JOB_RESULT_INSTRUCTIONS: the instructions the
 *	job's programs issued, summed over the QPUs (for a job that stopped
 *	early, those issued before it stopped). The emulator and qpu.ko's
 *	simulated V3D count them, and a Pi 4's v3d node through a perfmon
 *	(QPU_CYCLES_VALID_INSTR; for a job that ended or faulted, not one
 *	reset or given up on); a VideoCore IV and a 7.1 node cannot, so the
 *	bit stays clear there and @instructions is 0.
 * @counters: with QPU_JOB_RESULT_COUNTERS: traffic and dual issue (the
 *	in-process emulator only); zero otherwise
 * @qpu_count: with QPU_JOB_RESULT_QPUS: entries of @qpus filled, one per
 *	QPU of the device
 * @fault_thread: with QPU_STATUS_FAULT on a V3D device, the faulting
 *	thread's slot on @fault_qpu (0 to 3); else 0 (new in 0.5, where it
 *	was padding)
 * @qpus: with QPU_JOB_RESULT_QPUS: each QPU's state, in QPU order
 * @timing: with QPU_JOB_RESULT_TIMING: the modelled time (LIBQPU_0.4)
 * @batches: with QPU_JOB_RESULT_PROGRESS: the batches of the job's V3D
 *	dispatch (LIBQPU_0.7)
 * @batches_done: with QPU_JOB_RESULT_PROGRESS: those that had run to
 *	their end when the job stopped (all of them for a job done). The
 *	emulated V3Ds tell it for every ending; upstream's v3d driver tells
 *	no job's progress (its hang check reads the CSD's batch counter in the
 *	kernel alone), so a v3d node leaves the bit clear (LIBQPU_0.7)
 *
 * ABI: the struct only grows at its end (its growth rule is settled in
 * libqpu/README.md). LIBQPU_0.2 changed it with the numbers' meaning, so a
 * program linked against 0.1 refuses to start instead of misreading it;
 * LIBQPU_0.4 added @timing (qpu_wait@LIBQPU_0.2 fills the struct without),
 * LIBQPU_0.7 @batches and @batches_done (qpu_wait@LIBQPU_0.4 fills the
 * struct up to @timing, a reset given as a timeout).
 */
struct qpu_job_result {
	enum qpu_status status;
	uint32_t fault_qpu;
	uint32_t fault_pc;
	uint32_t fault_addr;
	enum qpu_access fault_access;
	uint32_t flags;
	uint64_t instructions;
	struct qpu_job_counters counters;
	uint32_t qpu_count;
	uint32_t fault_thread;
	struct qpu_job_qpu qpus[QPU_JOB_MAX_QPUS];
	struct qpu_job_timing timing;
	uint64_t batches;
	uint64_t batches_done;
};

/**
 * qpu_wait() - wait for a job to end
 * @dev: the device
 * @seqno: the job, from qpu_submit()
 * @timeout_ms: how long to wait; 0 only looks, -1 waits without limit
 * @result: where its ending goes
 *
 * Return: 0 with @result filled, -ETIME when it has not ended in time,
 * -ENOENT for a job this device does not know (or forgot: the last 1024
 * are kept).
 */
QPU_API int qpu_wait(struct qpu_dev *dev, uint64_t seqno, int timeout_ms,
		     struct qpu_job_result *result);

/**
 * qpu_dev_set_board() - model a board's timing on the emulator device
 * @dev: a device opened as "emu"
 * @board: an enum qpu_board; QPU_BOARD_NONE turns the model off
 *
 * Jobs submitted afterwards carry their modelled time
 * (QPU_JOB_RESULT_TIMING); results never depend on it, only the time to
 * emulate does (at most about 3 times longer). "emu:board=pi3" or
 * $QPU_EMU_BOARD (pi1, pi2, pi3, pi3plus) set it at qpu_dev_open().
 * The emulated V3D devices (new in 0.5) model their own board alone, which
 * qpu_dev_open() fixed with their QPU count: QPU_BOARD_PI4 on "emu:v3d42",
 * QPU_BOARD_PI5 on "emu:v3d71", QPU_BOARD_PI5_16 on
 * "emu:v3d71,board=pi5-16" (as their option "timing" does).
 *
 * Return: 0, -EINVAL for an unknown board or one the device is not (a
 * VideoCore IV board on a V3D device, or the reverse), -ENOTTY for a
 * device that is no emulator (a real V3D's time is its own).
 */
QPU_API int qpu_dev_set_board(struct qpu_dev *dev, enum qpu_board board);

/**
 * qpu_board_from_name() - the board called @name
 * @name: "pi1", "pi2", "pi3" or "pi3plus" (the Zero is a "pi1"); "pi4",
 *	"pi5" or "pi5-16" (new in 0.5)
 *
 * Return: its enum qpu_board, or QPU_BOARD_NONE for another name or NULL.
 */
QPU_API enum qpu_board qpu_board_from_name(const char *name);

/**
 * qpu_board_name() - a board for people
 * @board: an enum qpu_board
 *
 * Return: a static string ("Pi 1/Zero", "Pi 3 (extrapolated)", "none",
 * "unknown"); do not free it.
 */
QPU_API const char *qpu_board_name(enum qpu_board board);

/**
 * enum qpu_launch - how a host starts a job, for qpu_board_launch_ns()
 * @QPU_LAUNCH_IOCTL: through qpu.ko (qpu_submit(), its fence)
 * @QPU_LAUNCH_DIRECT: the V3D's registers poked from the ARM, as GPU_FFT
 *	does for short batches
 * @QPU_LAUNCH_MAILBOX: the firmware mailbox's execute_qpu
 */
enum qpu_launch {
	QPU_LAUNCH_IOCTL,
	QPU_LAUNCH_DIRECT,
	QPU_LAUNCH_MAILBOX,
};

/**
 * qpu_board_launch_ns() - the modelled host cost of one launch
 * @board: an enum qpu_board
 * @path: an enum qpu_launch
 *
 * Return: nanoseconds the host spends starting a job and learning of its
 * end on @board by @path, beside the job's own &qpu_job_timing.ns; 0 for
 * QPU_BOARD_NONE, a V3D board (whose &qpu_job_timing.ns includes
 * SUBMIT_CSD's cost) or an unknown board or path.
 */
QPU_API uint64_t qpu_board_launch_ns(enum qpu_board board, enum qpu_launch path);

/**
 * qpu_board_mem_bytes_per_s() - the modelled memory bandwidth of a board
 * @board: an enum qpu_board
 *
 * What the timing model lets every client of SDRAM together move in a
 * second on @board (its SDRAM clock and fitted efficiency, see
 * libqpu/core/timing/CALIBRATION.md, or CALIBRATION-V3D.md for a Pi 4 or
 * 5): the ceiling of a streaming kernel's modelled throughput.
 *
 * Return: bytes per second; 0 for QPU_BOARD_NONE or an unknown board.
 */
QPU_API uint64_t qpu_board_mem_bytes_per_s(enum qpu_board board);

/**
 * qpu_job_status_str() - a job status for people
 * @status: an enum qpu_status
 *
 * Return: a static string ("done", "timed out", "memory fault",
 * "deadlock", ..., "unknown"); do not free it.
 */
QPU_API const char *qpu_job_status_str(enum qpu_status status);

/**
 * qpu_access_str() - a fault's access kind for people
 * @access: an enum qpu_access
 *
 * Return: a static string ("instruction fetch", "uniform read", ...,
 * "unknown"); do not free it.
 */
QPU_API const char *qpu_access_str(enum qpu_access access);

/* struct qpu_telemetry.flags: which fields hold a value. */
#define QPU_TELEMETRY_CLOCK_SET		(1u << 0)
#define QPU_TELEMETRY_CLOCK		(1u << 1)
#define QPU_TELEMETRY_TEMP		(1u << 2)
#define QPU_TELEMETRY_THROTTLED		(1u << 3)

/**
 * struct qpu_telemetry - the device's clock, temperature and throttling
 * @flags: QPU_TELEMETRY_* bits: the fields that hold a value
 * @throttled: the firmware's throttled word (bits as <linux/qpu.h>'s
 *	QPU_THROTTLED_*: under-voltage, frequency capped, throttled, soft
 *	temperature limit, now in bits 0-3 and since boot in bits 16-19)
 * @clock_set_hz: the V3D's clock as the firmware set it
 * @clock_hz: the V3D's clock as the firmware measured it
 * @temp_mc: the SoC's temperature in millidegrees Celsius
 * @reserved: 0
 * @source: where the values came from: "qpu.ko" (its last sample, over
 *	its netlink family), "firmware" (a Pi 4/5's firmware through
 *	/dev/vcio), "thermal zone" (the temperature alone, from the first
 *	thermal zone, when the firmware gives none), "none"
 * @why_clock: why @clock_hz (or @clock_set_hz) has no value, or NULL
 * @why_temp: why @temp_mc has no value, or NULL
 * @why_throttled: why @throttled has no value, or NULL
 *
 * The strings are static: valid for the life of the program, not freed.
 * The struct only grows at its end.
 */
struct qpu_telemetry {
	uint32_t flags;
	uint32_t throttled;
	uint64_t clock_set_hz;
	uint64_t clock_hz;
	int32_t temp_mc;
	uint32_t reserved;
	const char *source;
	const char *why_clock;
	const char *why_temp;
	const char *why_throttled;
};

/**
 * qpu_dev_get_telemetry() - the device's clock, temperature and throttling
 * @dev: the device
 * @out: the sample
 *
 * qpu.ko's devices give its telemetry's last sample (qpuctl(8), TELEMETRY);
 * a v3d node (a Pi 4/5) asks the Raspberry Pi firmware through /dev/vcio
 * each call (a mailbox round trip: do not call it per job), with the
 * first thermal zone's temperature where the firmware gives none; the
 * emulator has no clock, sensor or firmware. A field without a value has
 * its reason in @out.
 *
 * Return: 0 (even when no field has a value), or -EINVAL for a NULL
 * argument.
 */
QPU_API int qpu_dev_get_telemetry(struct qpu_dev *dev, struct qpu_telemetry *out);

#ifdef __cplusplus
}
#endif

#endif /* QPU_H */
