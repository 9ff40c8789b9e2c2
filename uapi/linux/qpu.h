/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR MIT) */
/*
 * qpu: user-program access to the QPUs of the VideoCore IV V3D.
 *
 * The one definition of the ABI between qpu.ko and its users (libqpu, qpuctl,
 * the selftests). Nothing here may be duplicated elsewhere.
 */
#ifndef _UAPI_LINUX_QPU_H
#define _UAPI_LINUX_QPU_H

#include <linux/types.h>

#if defined(__cplusplus)
extern "C" {
#endif

/**
 * DOC: the qpu device
 *
 * Each V3D that qpu.ko drives, real or simulated, appears as a character
 * device: the first as ``/dev/qpu``, later ones as ``/dev/qpu1``, ``/dev/qpu2``
 * and so on. All requests are ioctls on an open file of that device.
 *
 * A device can go while files are open (its driver unbound, the module
 * removed): its jobs end with &QPU_JOB_CANCELED (out-fences signal
 * -ECANCELED), and its buffers' memory is freed at once. From then on
 * every ioctl and mmap on those files fails with -ENODEV, and touching an
 * existing mapping raises SIGBUS; closing the file and unmapping still
 * work.
 *
 * Privilege: QPU programs on a real V3D can read and write any memory, so
 * running them is a privileged operation on real hardware (the same gate as
 * ``/dev/mem``). Queries such as &QPU_IOCTL_GET_PARAM need no privilege. The
 * simulated V3D checks every memory access of a program and is open to any
 * user who may open the node.
 *
 * Feature probing: a program asks &QPU_PARAM_FEATURES and tests its bits
 * (&enum qpu_feature), or tries an ioctl and treats -ENOTTY as absent. It
 * never compares &QPU_PARAM_ABI_VERSION to decide whether a feature exists;
 * that number only changes on an incompatible break, which this ABI
 * promises never to make. Each feature is one bit; a new feature takes the
 * next bit, and a bit keeps its meaning forever, never reused. A kernel
 * that predates a feature leaves its bit clear (a kernel that predates the
 * scheme reports 0).
 *
 * Conventions of every ioctl below: structs are 64-bit aligned and only ever
 * grow at their end. The kernel accepts a struct shorter than its own as long
 * as it holds every member of the first version (the missing tail reads as
 * zero), and a longer one as long as the bytes it does not know are zero
 * (otherwise -E2BIG). Members named ``pad`` must be zero (-EINVAL); unknown
 * ``flags`` bits give -EINVAL; user pointers travel as __u64; bus addresses
 * are __u32 because the V3D is a 32-bit device. A struct the kernel cannot
 * write its answer into gives -EFAULT before anything is done. Only one
 * made unwritable during the call (by another thread) gives -EFAULT after
 * the call took effect: a &QPU_IOCTL_SUBMIT's job is then queued and runs,
 * but no out-fence fd is installed.
 */

/**
 * DOC: growing the ABI
 *
 * Everything new is added so that old programs keep working unchanged and
 * new programs can tell whether the kernel has it:
 *
 * - Behaviour and new values: a &enum qpu_feature bit, found through
 *   &QPU_PARAM_FEATURES (above). New statuses, states and flags are only
 *   given to a caller that can know them: a WAIT struct too short to hold a
 *   new answer gets the nearest old one (a deadlock reads as
 *   &QPU_JOB_TIMEOUT to a 48- or 64-byte caller).
 * - Structs: new members at the end only, announced by a &enum
 *   qpu_wait_result_flags bit or a feature bit when "zero" could be a real
 *   answer; a caller's size tells the kernel which version it speaks.
 * - Ioctls, parameters, netlink commands and attributes: new ids at the end
 *   of their enums, never reordered or reused; an unknown one is refused
 *   (-ENOTTY, -EINVAL, or netlink's strict validation).
 *
 * Limits are of three kinds, and only the first kind lives here as a
 * constant: format limits, the sizes of what the ABI can carry, fixed
 * forever (&QPU_MAX_QPUS, &QPU_TIMEOUT_NONE); device values, what one V3D
 * has (&QPU_PARAM_NUM_QPUS, &QPU_PARAM_VPM_SIZE, &QPU_PARAM_NUM_SEMAPHORES),
 * read with &QPU_IOCTL_GET_PARAM; and tunables, what the administrator
 * chose (&QPU_PARAM_MAX_BO_SIZE, &QPU_PARAM_DEFAULT_TIMEOUT_MS,
 * &QPU_PARAM_MAX_TIMEOUT_MS; module parameters, and the netlink CONFIG
 * attributes), read with &QPU_IOCTL_GET_PARAM or netlink and never
 * compiled into a program.
 */

/**
 * QPU_IOCTL_BASE - the ioctl type byte of qpu.
 *
 * 0xBC is free in Documentation/userspace-api/ioctl/ioctl-number.rst.
 */
#define QPU_IOCTL_BASE 0xBC

/**
 * enum qpu_ioctl_nr - ioctl numbers.
 * @QPU_IOCTL_NR_GET_PARAM: see &struct qpu_get_param.
 * @QPU_IOCTL_NR_BO_CREATE: see &struct qpu_bo_create.
 * @QPU_IOCTL_NR_BO_DESTROY: see &struct qpu_bo_destroy.
 * @QPU_IOCTL_NR_SUBMIT: see &struct qpu_submit.
 * @QPU_IOCTL_NR_WAIT: see &struct qpu_wait.
 * @QPU_IOCTL_NR_BO_EXPORT: see &struct qpu_bo_export.
 * @QPU_IOCTL_NR_BO_IMPORT: see &struct qpu_bo_import.
 *
 * New entries go at the end; nothing is ever reordered or reused.
 */
enum qpu_ioctl_nr {
	QPU_IOCTL_NR_GET_PARAM = 0x00,
	QPU_IOCTL_NR_BO_CREATE = 0x01,
	QPU_IOCTL_NR_BO_DESTROY = 0x02,
	QPU_IOCTL_NR_SUBMIT = 0x03,
	QPU_IOCTL_NR_WAIT = 0x04,
	QPU_IOCTL_NR_BO_EXPORT = 0x05,
	QPU_IOCTL_NR_BO_IMPORT = 0x06,
};

/**
 * enum qpu_param - what &QPU_IOCTL_GET_PARAM can report.
 * @QPU_PARAM_ABI_VERSION: the ABI version, &QPU_ABI_VERSION.
 * @QPU_PARAM_BACKEND: which kind of V3D stands behind the device,
 *	an &enum qpu_backend.
 * @QPU_PARAM_V3D_IDENT0: raw V3D IDENT0 register: technology version and
 *	the bytes "V3D".
 * @QPU_PARAM_V3D_IDENT1: raw V3D IDENT1 register: revision, slices, QPUs
 *	and TMUs per slice, semaphores, VPM size.
 * @QPU_PARAM_V3D_IDENT2: raw V3D IDENT2 register: VRI memory and tile
 *	buffer sizes.
 * @QPU_PARAM_NUM_QPUS: number of QPUs (slices times QPUs per slice); a job
 *	runs at most this many programs.
 * @QPU_PARAM_NUM_SLICES: number of slices.
 * @QPU_PARAM_NUM_SEMAPHORES: number of hardware semaphores.
 * @QPU_PARAM_VPM_SIZE: VPM size in bytes.
 * @QPU_PARAM_FEATURES: a mask of &enum qpu_feature bits: what this device
 *	does that earlier kernels did not.
 * @QPU_PARAM_MAX_BO_SIZE: the largest buffer object, in bytes, that
 *	&QPU_IOCTL_BO_CREATE accepts now (the administrator may change it).
 * @QPU_PARAM_DEFAULT_TIMEOUT_MS: the timeout of a job that asks for none.
 * @QPU_PARAM_MAX_TIMEOUT_MS: the longest timeout a job may have.
 * @QPU_PARAM_INSTRUCTIONS_PER_MS: on a device that measures a job's time by
 *	its progress (the simulated V3D), the instructions each QPU may issue
 *	per millisecond of the job's timeout (see &qpu_submit.timeout_ms); 0
 *	where time is the wall clock's (a real V3D). -EINVAL from kernels
 *	before it, whose simulated V3D used the wall clock too.
 * @QPU_PARAM_BO_L2_CACHED: 1 when the V3D reaches BOs through the
 *	VideoCore's 128 KiB L2 cache, 0 when it bypasses it. The bus address's
 *	top two bits pick the path: 0x0, 0x4 and 0x8 go through the L2, 0xC
 *	goes straight to SDRAM (BCM2835 ARM Peripherals, the bus address map). Where BOs
 *	sit follows the device tree's dma-ranges: the BCM2835 (Pi 1, Zero)
 *	maps RAM to an L2 alias, where the ARM also goes through that L2; the
 *	BCM2836/7 (Pi 2, 3) to 0xC, since their ARMs do not, so an L2 line
 *	would go stale against what the ARM wrote. A program whose other QPUs
 *	would find lines it loaded in the L2 (a prefetch) wastes SDRAM
 *	bandwidth where this is 0. The simulated V3D places BOs at 0xC: 0.
 *	-EINVAL from kernels before it.
 *
 * New entries go at the end; nothing is ever reordered or reused.
 */
enum qpu_param {
	QPU_PARAM_ABI_VERSION = 0,
	QPU_PARAM_BACKEND = 1,
	QPU_PARAM_V3D_IDENT0 = 2,
	QPU_PARAM_V3D_IDENT1 = 3,
	QPU_PARAM_V3D_IDENT2 = 4,
	QPU_PARAM_NUM_QPUS = 5,
	QPU_PARAM_NUM_SLICES = 6,
	QPU_PARAM_NUM_SEMAPHORES = 7,
	QPU_PARAM_VPM_SIZE = 8,
	QPU_PARAM_FEATURES = 9,
	QPU_PARAM_MAX_BO_SIZE = 10,
	QPU_PARAM_DEFAULT_TIMEOUT_MS = 11,
	QPU_PARAM_MAX_TIMEOUT_MS = 12,
	QPU_PARAM_INSTRUCTIONS_PER_MS = 13,
	QPU_PARAM_BO_L2_CACHED = 14,
};

/**
 * enum qpu_feature - bits of &QPU_PARAM_FEATURES.
 * @QPU_FEATURE_UNIFORMS_ANYWHERE: a program may read uniforms anywhere in
 *	its job's BOs, wherever it points its stream (a write to unif_addr);
 *	&qpu_program.unif_length no longer bounds the reads. Before it, the
 *	simulated V3D faulted a uniform read outside the program's window (a
 *	real V3D never checked).
 * @QPU_FEATURE_DEADLOCK: a job whose running programs all wait on each
 *	other (or on a VPM read or TMU result that never comes) ends at once
 *	with &QPU_JOB_DEADLOCK, and &QPU_IOCTL_WAIT says where each QPU
 *	stopped (&qpu_wait.qpus). Only the simulated V3D can tell: a real V3D
 *	cannot tell a deadlock from a long job, so such a job times out there
 *	(&QPU_JOB_TIMEOUT), and the bit is clear.
 * @QPU_FEATURE_ALL_BOS: &QPU_SUBMIT_ALL_BOS: a job may touch every BO its
 *	file holds when it is submitted, without listing them.
 * @QPU_FEATURE_DMABUF: &QPU_IOCTL_BO_EXPORT and &QPU_IOCTL_BO_IMPORT: BOs
 *	shared with other drivers and processes as dma-buf fds.
 *
 * New bits go at the end; a bit is never reused.
 */
enum qpu_feature {
	QPU_FEATURE_UNIFORMS_ANYWHERE = 1 << 0,
	QPU_FEATURE_DEADLOCK = 1 << 1,
	QPU_FEATURE_ALL_BOS = 1 << 2,
	QPU_FEATURE_DMABUF = 1 << 3,
};

/**
 * QPU_ABI_VERSION - version of this ABI, reported by &QPU_PARAM_ABI_VERSION.
 */
#define QPU_ABI_VERSION 1

/**
 * enum qpu_backend - values of &QPU_PARAM_BACKEND.
 * @QPU_BACKEND_HW: a real V3D, bound through the device tree.
 * @QPU_BACKEND_SIM: the simulated V3D inside qpu.ko, created by its ``sim``
 *	module parameter; it checks every memory access of a program.
 */
enum qpu_backend {
	QPU_BACKEND_HW = 1,
	QPU_BACKEND_SIM = 2,
};

/**
 * struct qpu_get_param - argument of &QPU_IOCTL_GET_PARAM.
 * @param: Input: an &enum qpu_param; an unknown one gives -EINVAL.
 * @pad: Input: must be zero.
 * @value: Output: the parameter's value.
 */
struct qpu_get_param {
	__u32 param;
	__u32 pad;
	__u64 value;
};

#define QPU_IOCTL_GET_PARAM \
	_IOWR(QPU_IOCTL_BASE, QPU_IOCTL_NR_GET_PARAM, struct qpu_get_param)

/**
 * DOC: buffer objects
 *
 * A buffer object (BO) is memory that QPU programs and the CPU share. It is
 * zeroed when created, named by a handle that is only meaningful in the file
 * that created it, seen by QPU code at a 32-bit bus address, and mapped by
 * the CPU with mmap() of the device file at the BO's mmap offset, shared
 * (MAP_SHARED) and within the BO's pages.
 *
 * A BO lives while anything uses it: its handle, a CPU mapping, or a job.
 * Destroying the handle or closing the file does not pull memory from under
 * a mapping or a running job; the memory is freed when the last user goes.
 *
 * Limits, set by the administrator: the largest BO, the bytes one open file
 * may hold (-EDQUOT past it) and the bytes a device may hold (-ENOSPC past
 * it). A BO counts until its memory is freed: destroying a handle whose BO
 * is still mapped, or used by a job, gives nothing back yet. Mmap offsets
 * fit in a 32-bit off_t.
 */

/**
 * struct qpu_bo_create - argument of &QPU_IOCTL_BO_CREATE.
 * @size: Input: bytes wanted, at least one and at most the largest BO size;
 *	Output: the size given, rounded up to whole pages.
 * @flags: Input: must be zero; no flags are defined yet.
 * @handle: Output: the BO's handle in this file, never zero.
 * @bus_addr: Output: where QPU programs see the BO's first byte; 0 for a
 *	caller that may not submit on this V3D (-EPERM), as a real V3D's bus
 *	addresses reveal physical memory, which unprivileged users do not
 *	learn (as /proc/PID/pagemap hides frame numbers from them).
 * @pad: Input: must be zero.
 * @mmap_offset: Output: the offset to pass to mmap() on this file.
 *
 * Errors: -EINVAL for a zero or too large size, flags or pad; -EDQUOT when
 * this file's limit is reached; -ENOSPC when the device's limit or its bus
 * address space is; -ENOMEM when the memory cannot be had.
 */
struct qpu_bo_create {
	__u64 size;
	__u32 flags;
	__u32 handle;
	__u32 bus_addr;
	__u32 pad;
	__u64 mmap_offset;
};

#define QPU_IOCTL_BO_CREATE \
	_IOWR(QPU_IOCTL_BASE, QPU_IOCTL_NR_BO_CREATE, struct qpu_bo_create)

/**
 * struct qpu_bo_destroy - argument of &QPU_IOCTL_BO_DESTROY.
 * @handle: Input: the BO to forget; -ENOENT when this file has no such BO.
 * @pad: Input: must be zero.
 *
 * The handle is gone when this returns; the memory stays while mappings or
 * jobs still use it.
 */
struct qpu_bo_destroy {
	__u32 handle;
	__u32 pad;
};

#define QPU_IOCTL_BO_DESTROY \
	_IOW(QPU_IOCTL_BASE, QPU_IOCTL_NR_BO_DESTROY, struct qpu_bo_destroy)

/**
 * DOC: dma-buf sharing
 *
 * A BO can be handed to another driver or process as a dma-buf fd
 * (&QPU_IOCTL_BO_EXPORT), and a dma-buf of another driver (a camera's
 * V4L2 buffer from VIDIOC_EXPBUF, a DRM PRIME buffer) becomes a BO of this
 * file (&QPU_IOCTL_BO_IMPORT) that jobs use as any other: its pages are
 * never copied. &QPU_FEATURE_DMABUF says both are there.
 *
 * Lifetimes: an exported dma-buf holds its BO until the dma-buf's last
 * user (fd, mapping, importer) goes, whatever happens to the handle or the
 * file. An imported BO holds the dma-buf, attached and mapped for the
 * device (pinned, for exporters that move buffers), until the BO's last
 * user (handle, mapping, job) goes: closing the dma-buf fd, even while a
 * job runs on the BO, changes nothing.
 *
 * Importing a dma-buf this device exported gives back the BO itself, as
 * DRM PRIME does, though under a new handle (and mmap offset) each time,
 * in any file: each handle is destroyed on its own, so a program needs no
 * count of who holds one. Exporting an imported BO gives the original
 * dma-buf.
 *
 * A real V3D has no MMU: a buffer it reaches must be one run of bus
 * addresses. Importing one that is not gives -EINVAL (and a debug line
 * saying so). The simulated V3D reaches any pages, unless its module
 * parameter ``sim_import_contiguous`` asks it to refuse as a real one does.
 *
 * An imported BO is not counted against the file's or the device's limits
 * (its memory is the exporter's), only against the file's mmap space.
 * When the device goes, an imported BO lets go of its dma-buf; an exported
 * BO's memory stays while the dma-buf lives (on a real V3D it is then never
 * given back), but mapping it again through the device fails.
 */

/**
 * enum qpu_bo_export_flags - bits of &qpu_bo_export.flags.
 * @QPU_BO_EXPORT_CLOEXEC: the new fd is close-on-exec (O_CLOEXEC).
 * @QPU_BO_EXPORT_RDWR: the dma-buf may be mapped writable (O_RDWR);
 *	without it, read-only.
 */
enum qpu_bo_export_flags {
	QPU_BO_EXPORT_CLOEXEC = 1 << 0,
	QPU_BO_EXPORT_RDWR = 1 << 1,
};

/**
 * struct qpu_bo_export - argument of &QPU_IOCTL_BO_EXPORT.
 * @handle: Input: the BO to export; -ENOENT when this file has no such BO.
 * @flags: Input: &enum qpu_bo_export_flags; others give -EINVAL.
 * @fd: Output: a new dma-buf fd naming the BO's memory.
 * @pad: Input: must be zero.
 *
 * Errors: -EINVAL for flags or pad; -ENOENT; -EMFILE when the process has
 * no free fd; -ENOMEM.
 */
struct qpu_bo_export {
	__u32 handle;
	__u32 flags;
	__s32 fd;
	__u32 pad;
};

#define QPU_IOCTL_BO_EXPORT \
	_IOWR(QPU_IOCTL_BASE, QPU_IOCTL_NR_BO_EXPORT, struct qpu_bo_export)

/**
 * struct qpu_bo_import - argument of &QPU_IOCTL_BO_IMPORT.
 * @fd: Input: a dma-buf fd; the caller keeps it (and may close it at once).
 * @flags: Input: must be zero; no flags are defined yet.
 * @handle: Output: the BO's handle in this file, never zero.
 * @bus_addr: Output: where QPU programs see the BO's first byte; 0 for a
 *	caller that may not submit on this V3D, as for &QPU_IOCTL_BO_CREATE.
 * @size: Output: the BO's size, the dma-buf's, a whole number of pages.
 * @mmap_offset: Output: the offset to pass to mmap() on this file.
 *
 * Errors: -EBADF when @fd is not an open file; -EINVAL when it is not a
 * dma-buf, for flags, for a buffer a real V3D cannot reach (not contiguous,
 * or out of its 32-bit bus space) or a size not a whole number of pages;
 * -ENOSPC when the file's mmap space or the device's bus space is full;
 * or what the exporter says when it cannot map the buffer.
 */
struct qpu_bo_import {
	__s32 fd;
	__u32 flags;
	__u32 handle;
	__u32 bus_addr;
	__u64 size;
	__u64 mmap_offset;
};

#define QPU_IOCTL_BO_IMPORT \
	_IOWR(QPU_IOCTL_BASE, QPU_IOCTL_NR_BO_IMPORT, struct qpu_bo_import)

/**
 * DOC: jobs
 *
 * A job runs up to one program per QPU at once, as the V3D's user-program
 * queue does: each program starts at an address inside a code BO and reads
 * its uniforms from an address inside a uniforms BO, or wherever it points
 * its uniform stream later (&QPU_FEATURE_UNIFORMS_ANYWHERE). The job lists
 * every BO its programs touch; on the simulated V3D an access to any other
 * address stops the job with a fault. &QPU_IOCTL_SUBMIT never blocks: the job waits
 * for its in-fence, then for the jobs submitted before it on the same file,
 * then for its turn on the V3D (files take turns, so one file cannot starve
 * another), and runs until every program has ended or its timeout passes.
 * A job past its timeout is stopped by resetting the V3D; jobs queued behind
 * it run on.
 *
 * Time: a real V3D's jobs are timed by the wall clock. The simulated V3D
 * runs programs far slower than the hardware, so it times a job by its
 * progress instead: the job times out when one of its programs needs more
 * than &qpu_submit.timeout_ms times &QPU_PARAM_INSTRUCTIONS_PER_MS
 * instructions (the most a QPU of a 250 MHz V3D could issue in that time;
 * the hardware, which also stalls, does less), each VCD DMA and TMU lookup
 * counted as the instructions' worth of time the V3D takes to move its
 * words (a DMA of 16 K words about 4,200), so that a job's cost on the
 * host is bounded by its timeout whatever it does. It does not time out by the
 * wall clock while its programs run within that budget, however long the
 * host takes, up to a safety net of 256 times the timeout (a minute at
 * least); programs waiting to start (the debugfs knob latency_us) count as
 * running, as they have spent nothing. Once no program is left to run but
 * the job has not completed (the debugfs knob hang), the wall clock
 * applies as on the hardware.
 *
 * Queue bound: a file may have at most &QPU_A_CONFIG_MAX_QUEUED_JOBS jobs
 * queued (submitted and not started, a running job not counted); SUBMIT
 * past it fails with -EAGAIN and changes nothing, so the caller waits for
 * one of its jobs and tries again.
 *
 * Completion is seen three ways: the out-fence (a sync_file fd, pollable),
 * &QPU_IOCTL_WAIT on the job's sequence number, or &QPU_IOCTL_WAIT on any BO
 * the job used. Closing the file cancels its jobs that have not started;
 * a running job runs to its end, and its BOs live until then.
 *
 * On real hardware, submitting needs CAP_SYS_RAWIO unless the administrator
 * allowed otherwise: QPU programs there can read and write all memory.
 *
 * A job submitted with &QPU_SUBMIT_ALL_BOS (&QPU_FEATURE_ALL_BOS) lists no
 * BOs: it may touch every BO its file holds at the moment of the submit,
 * as programs written for the firmware mailbox expect (they find their
 * buffers by bus address in memory they were given). The set is taken at
 * submit, not live: each of those BOs is held until the job ends, even if
 * its handle is destroyed meanwhile, and a BO created after the submit is
 * out of the job's reach (on the simulated V3D, an access to it faults).
 * The job counts as using each of them, so &QPU_IOCTL_WAIT on any BO the
 * file held at the submit waits for it (or for a later job using that BO).
 * A file may hold at most 4096 BOs for such a submit, the bound of an
 * explicit list. It is no privilege of its own: on real hardware every
 * submit already needs CAP_SYS_RAWIO, and on the simulated V3D the job
 * still reaches no other file's BO.
 *
 * A job never finds what another file's jobs left on the V3D (VPM contents,
 * semaphore counts, a held mutex, registers, FIFOs): the driver resets the
 * V3D before a file's job that follows another file's. On the simulated V3D
 * every job, even after one of its own file, starts on a clean machine; on
 * real hardware jobs of one file see what the file's earlier jobs left.
 */

/**
 * struct qpu_program - one program of a job, an element of
 * &qpu_submit.programs.
 * @code_handle: Input: the BO holding the code.
 * @code_offset: Input: offset of the first instruction, a multiple of 8.
 * @unif_handle: Input: the BO holding the uniforms.
 * @unif_offset: Input: offset of the first uniform, a multiple of 4.
 * @unif_length: Input: a multiple of 4 within the BO, or 0; checked, then
 *	ignored: kept for compatibility. Kernels before
 *	&QPU_FEATURE_UNIFORMS_ANYWHERE faulted a uniform read past that many
 *	bytes (0: the rest of the BO) on the simulated V3D; now a program
 *	reads uniforms anywhere in its job's BOs.
 * @pad: Input: must be zero.
 *
 * The first version was 16 bytes long, without @unif_length and @pad; a
 * caller passing that size gets the rest of the BO.
 */
struct qpu_program {
	__u32 code_handle;
	__u32 code_offset;
	__u32 unif_handle;
	__u32 unif_offset;
	__u32 unif_length;
	__u32 pad;
};

/**
 * enum qpu_submit_flags - bits of &qpu_submit.flags.
 * @QPU_SUBMIT_IN_FENCE: wait for the sync_file in &qpu_submit.in_fence_fd.
 * @QPU_SUBMIT_OUT_FENCE: return a sync_file in &qpu_submit.out_fence_fd.
 * @QPU_SUBMIT_ALL_BOS: the job may touch every BO of the file, taken at
 *	submit (see "jobs"); &qpu_submit.bo_count and &qpu_submit.bo_handles
 *	must then be zero (&QPU_FEATURE_ALL_BOS).
 */
enum qpu_submit_flags {
	QPU_SUBMIT_IN_FENCE = 1 << 0,
	QPU_SUBMIT_OUT_FENCE = 1 << 1,
	QPU_SUBMIT_ALL_BOS = 1 << 2,
};

/**
 * struct qpu_submit - argument of &QPU_IOCTL_SUBMIT.
 * @programs: Input: pointer to @program_count elements of @program_size
 *	bytes, each a &struct qpu_program (bytes past the ones this kernel
 *	knows must be zero).
 * @bo_handles: Input: pointer to @bo_count __u32 handles of the BOs the
 *	programs read or write, besides their code and uniforms BOs (which
 *	are always included).
 * @program_count: Input: 1 to &QPU_PARAM_NUM_QPUS (which never exceeds
 *	&QPU_MAX_QPUS).
 * @program_size: Input: sizeof(struct qpu_program) as the caller knows it,
 *	at least 16 (the first version).
 * @bo_count: Input: entries in @bo_handles, at most 4096.
 * @flags: Input: &enum qpu_submit_flags.
 * @in_fence_fd: Input: a sync_file fd, with &QPU_SUBMIT_IN_FENCE.
 * @out_fence_fd: Output: a new sync_file fd (close-on-exec), with
 *	&QPU_SUBMIT_OUT_FENCE; signalled when the job ends, whatever its status.
 * @timeout_ms: Input: the job's timeout from its start on the V3D; 0 for
 *	&QPU_PARAM_DEFAULT_TIMEOUT_MS; longer than &QPU_PARAM_MAX_TIMEOUT_MS is
 *	cut to it, &QPU_TIMEOUT_NONE included. See "jobs" for how the
 *	simulated V3D measures it.
 * @pad: Input: must be zero.
 * @seqno: Output: the job's number in this file, for &QPU_IOCTL_WAIT.
 *
 * Errors: -EINVAL for a bad count, size, offset, flag, pad or fence fd,
 * or with &QPU_SUBMIT_ALL_BOS a list or more than 4096 BOs in the file;
 * -ENOENT for a handle this file does not have; -EFAULT for bad pointers;
 * -EPERM when the caller may not run programs on this V3D; -EAGAIN when
 * this file's queue is full (see "jobs").
 */
struct qpu_submit {
	__u64 programs;
	__u64 bo_handles;
	__u32 program_count;
	__u32 program_size;
	__u32 bo_count;
	__u32 flags;
	__s32 in_fence_fd;
	__s32 out_fence_fd;
	__u32 timeout_ms;
	__u32 pad;
	__u64 seqno;
};

/**
 * QPU_TIMEOUT_NONE - a &qpu_submit.timeout_ms that asks for no timeout.
 *
 * Only libqpu's in-process emulator honours it: its jobs then run until
 * they end, fault or deadlock. qpu.ko treats it as any timeout past
 * &QPU_PARAM_MAX_TIMEOUT_MS: it cuts it to that maximum.
 */
#define QPU_TIMEOUT_NONE 0xffffffffu

#define QPU_IOCTL_SUBMIT \
	_IOWR(QPU_IOCTL_BASE, QPU_IOCTL_NR_SUBMIT, struct qpu_submit)

/**
 * enum qpu_job_status - how a job ended, in &qpu_wait.status.
 * @QPU_JOB_DONE: every program reached its end.
 * @QPU_JOB_TIMEOUT: the job ran past its timeout; the V3D was reset.
 * @QPU_JOB_FAULT: a program touched memory outside the job's BOs
 *	(simulated V3D only); &qpu_wait.fault_qpu and the next fields say
 *	where. Nothing was written after the fault.
 * @QPU_JOB_CANCELED: the job never started: its file was closed, its
 *	in-fence failed, or the device went away; or it was running when an
 *	administrator reset the V3D (&QPU_CMD_DEV_RESET).
 * @QPU_JOB_DEADLOCK: every program still running waited for something no
 *	other would ever give (&QPU_FEATURE_DEADLOCK, simulated V3D only):
 *	stopped at once, the V3D reset; &qpu_wait.qpus says where each QPU
 *	was. A caller whose &struct qpu_wait ends before @qpus gets
 *	&QPU_JOB_TIMEOUT instead, as kernels before it said.
 */
enum qpu_job_status {
	QPU_JOB_DONE = 1,
	QPU_JOB_TIMEOUT = 2,
	QPU_JOB_FAULT = 3,
	QPU_JOB_CANCELED = 4,
	QPU_JOB_DEADLOCK = 5,
};

/**
 * enum qpu_wait_flags - bits of &qpu_wait.flags.
 * @QPU_WAIT_BO: &qpu_wait.handle names a BO: wait for the last job
 *	submitted on this file that uses it; without it, &qpu_wait.seqno
 *	names the job.
 */
enum qpu_wait_flags {
	QPU_WAIT_BO = 1 << 0,
};

/**
 * enum qpu_wait_result_flags - bits of &qpu_wait.result_flags.
 * @QPU_WAIT_RESULT_INSTRUCTIONS: &qpu_wait.instructions holds the job's
 *	instruction count. The simulated V3D knows it for every job that
 *	started; a real V3D has no per-job count (its performance counters
 *	only sum over all QPUs and are shared with vc4), so never sets it.
 * @QPU_WAIT_RESULT_QPUS: &qpu_wait.qpu_count and &qpu_wait.qpus hold what
 *	each QPU was doing when the job stopped; set with &QPU_JOB_DEADLOCK.
 */
enum qpu_wait_result_flags {
	QPU_WAIT_RESULT_INSTRUCTIONS = 1 << 0,
	QPU_WAIT_RESULT_QPUS = 1 << 1,
};

/**
 * enum qpu_qpu_state - what a QPU was doing, in &qpu_wait_qpu.state.
 * @QPU_QPU_IDLE: no program, or its program had ended.
 * @QPU_QPU_RUNNING: issuing instructions.
 * @QPU_QPU_WAIT_SEMAPHORE: waiting on semaphore &qpu_wait_qpu.semaphore
 *	(an acquire at 0 or a release at 15).
 * @QPU_QPU_WAIT_MUTEX: waiting for the mutex, held by another QPU.
 * @QPU_QPU_WAIT_VPM: waiting on a VPM read (or DMA) never set up.
 * @QPU_QPU_WAIT_TMU: waiting on a TMU result never requested.
 */
enum qpu_qpu_state {
	QPU_QPU_IDLE = 0,
	QPU_QPU_RUNNING = 1,
	QPU_QPU_WAIT_SEMAPHORE = 2,
	QPU_QPU_WAIT_MUTEX = 3,
	QPU_QPU_WAIT_VPM = 4,
	QPU_QPU_WAIT_TMU = 5,
};

/**
 * QPU_MAX_QPUS - the most QPUs the ABI can describe: the bound of
 * &qpu_submit.program_count and the entries of &qpu_wait.qpus. A format
 * limit, fixed forever (a VideoCore IV V3D has at most 16). A device's own
 * count, &QPU_PARAM_NUM_QPUS (12 on every Raspberry Pi), is what a job may
 * use.
 */
#define QPU_MAX_QPUS 16

/**
 * struct qpu_wait_qpu - one QPU when its job stopped, in &qpu_wait.qpus.
 * @pc: bus address of the instruction it was about to issue.
 * @state: an &enum qpu_qpu_state.
 * @semaphore: with &QPU_QPU_WAIT_SEMAPHORE, the semaphore (0 to 15).
 */
struct qpu_wait_qpu {
	__u32 pc;
	__u16 state;
	__u16 semaphore;
};

/**
 * enum qpu_fault_access - what a faulting access was for.
 * @QPU_FAULT_FETCH: instruction fetch.
 * @QPU_FAULT_UNIFORM: uniform read.
 * @QPU_FAULT_TMU: TMU read.
 * @QPU_FAULT_DMA_LOAD: VCD DMA from memory.
 * @QPU_FAULT_DMA_STORE: VCD DMA to memory.
 * @QPU_FAULT_OTHER: not a memory access (an instruction the V3D cannot run,
 *	a VPM access out of range).
 */
enum qpu_fault_access {
	QPU_FAULT_FETCH = 1,
	QPU_FAULT_UNIFORM = 2,
	QPU_FAULT_TMU = 3,
	QPU_FAULT_DMA_LOAD = 4,
	QPU_FAULT_DMA_STORE = 5,
	QPU_FAULT_OTHER = 6,
};

/**
 * struct qpu_wait - argument of &QPU_IOCTL_WAIT.
 * @seqno: Input: the job (&qpu_submit.seqno), unless &QPU_WAIT_BO.
 * @timeout_ns: Input: absolute CLOCK_MONOTONIC deadline in ns; a time in
 *	the past only polls. -ETIME when the job has not ended by then.
 * @handle: Input: the BO, with &QPU_WAIT_BO.
 * @flags: Input: &enum qpu_wait_flags.
 * @status: Output: an &enum qpu_job_status.
 * @fault_qpu: Output: for &QPU_JOB_FAULT, the QPU (0-based).
 * @fault_pc: Output: for &QPU_JOB_FAULT, bus address of the instruction.
 * @fault_addr: Output: for &QPU_JOB_FAULT, the address refused.
 * @fault_access: Output: for &QPU_JOB_FAULT, an &enum qpu_fault_access.
 * @pad: Input: must be zero.
 * @result_flags: Output: &enum qpu_wait_result_flags: which of the fields
 *	below hold a value. Zero from a kernel that predates them, as the
 *	struct's tail it does not know is never written.
 * @pad2: Input: must be zero.
 * @instructions: Output: with &QPU_WAIT_RESULT_INSTRUCTIONS, the
 *	instructions the job's programs issued, summed over the QPUs; for a
 *	job that timed out, faulted or was canceled while running, those issued
 *	before it stopped.
 * @qpu_count: Output: with &QPU_WAIT_RESULT_QPUS, the entries of @qpus
 *	filled: one per QPU of the V3D, in QPU order.
 * @pad3: Input: must be zero.
 * @qpus: Output: with &QPU_WAIT_RESULT_QPUS, each QPU's state.
 *
 * The first version was 48 bytes long, up to @pad; the second 64, up to
 * @instructions. Both still work: the kernel writes nothing past the size
 * given, and reports a deadlock to them as &QPU_JOB_TIMEOUT.
 *
 * Errors: -ENOENT for a job this file never submitted or has forgotten (the
 * last 1024 are kept) or a BO it does not have; -ETIME; -EINTR when a
 * signal came first (the absolute deadline makes a restart safe).
 * Waiting on a BO no job has used answers &QPU_JOB_DONE at once.
 */
struct qpu_wait {
	__u64 seqno;
	__s64 timeout_ns;
	__u32 handle;
	__u32 flags;
	__u32 status;
	__u32 fault_qpu;
	__u32 fault_pc;
	__u32 fault_addr;
	__u32 fault_access;
	__u32 pad;
	__u32 result_flags;
	__u32 pad2;
	__u64 instructions;
	__u32 qpu_count;
	__u32 pad3;
	struct qpu_wait_qpu qpus[QPU_MAX_QPUS];
};

#define QPU_IOCTL_WAIT \
	_IOWR(QPU_IOCTL_BASE, QPU_IOCTL_NR_WAIT, struct qpu_wait)

/**
 * DOC: the qpu generic-netlink family
 *
 * Administration goes through the generic-netlink family &QPU_GENL_NAME,
 * version &QPU_GENL_VERSION, in the initial network namespace only; the
 * spec uapi/qpu.genl.yaml describes the same family. Every command is
 * strictly validated: unknown attributes, wrong lengths and flags in the
 * genetlink header's reserved field are refused with -EINVAL, and every
 * refusal carries an extended-ack message. Devices are named by their
 * index N in /dev/qpuN (0 for /dev/qpu).
 *
 * Commands (the reply carries the same command id):
 *
 * - &QPU_CMD_DEV_GET: do with &QPU_A_DEV_INDEX (required), or dump over
 *   all devices. Replies: &QPU_A_DEV_INDEX, &QPU_A_DEV_NAME,
 *   &QPU_A_DEV_BACKEND, &QPU_A_DEV_STATE, &QPU_A_DEV_IDENT0 to
 *   &QPU_A_DEV_VPM_SIZE, and &QPU_A_DEV_CLOCK_HZ when the clock is known;
 *   then, once the device's telemetry has been sampled (see "DOC: telemetry"),
 *   &QPU_A_DEV_TELEMETRY_AGE_MS, &QPU_A_DEV_CLOCK_LOW, &QPU_A_DEV_THROTTLING
 *   and each of &QPU_A_DEV_CLOCK_SET_HZ, &QPU_A_DEV_CLOCK_MEASURED_HZ,
 *   &QPU_A_DEV_TEMP_MC and &QPU_A_DEV_THROTTLED the firmware answered.
 * - &QPU_CMD_STATS_GET: do with &QPU_A_STATS_DEV_INDEX (required), or dump
 *   over all devices. Replies: every &enum qpu_a_stats attribute but PAD;
 *   &QPU_A_STATS_QPU only where the backend counts instructions (the
 *   simulated V3D) and the requester has CAP_NET_ADMIN or CAP_SYS_ADMIN
 *   (they tell what other users run), then once per QPU, each a nest of
 *   &enum qpu_a_qpu; the telemetry counters come after the nests.
 * - &QPU_CMD_CLIENT_GET: do with &QPU_A_CLIENT_ID, or else
 *   &QPU_A_CLIENT_PID (the first file that process has open, by device
 *   index, then oldest first), optionally restricted to the device
 *   &QPU_A_CLIENT_DEV_INDEX (-ENODEV when there is none); -EINVAL without
 *   either attribute, -ENOENT when no open file matches. Or dump, one
 *   message per open file, filtered by any of the same attributes. Without
 *   CAP_NET_ADMIN or CAP_SYS_ADMIN only the files the requester's
 *   effective uid opened match, as hidepid's users expect.
 *   Replies: every &enum qpu_a_client attribute but PAD (and COMM for
 *   processes the requester's pid namespace does not see). Dumps
 *   interrupted by a file opening or closing carry NLM_F_DUMP_INTR.
 * - &QPU_CMD_CONFIG_GET: do, or dump (one message), no attributes.
 *   Replies: every &enum qpu_a_config attribute but PAD. The configuration
 *   is module-wide.
 * - &QPU_CMD_CONFIG_SET: do, needs CAP_NET_ADMIN; at least one &enum
 *   qpu_a_config attribute, each within the range its kernel-doc gives
 *   (-ERANGE otherwise). No reply beyond the ack.
 * - &QPU_CMD_HANG_GET: needs CAP_NET_ADMIN. Do with &QPU_A_HANG_DEV_INDEX
 *   (required), or dump over all devices (optionally only that one).
 *   Replies: every &enum qpu_a_hang attribute but PAD, taken when the
 *   device's last job timed out, before the reset; -ENOENT from the do
 *   when none has, and no message in the dump for such a device.
 * - &QPU_CMD_DEV_RESET: do, needs CAP_NET_ADMIN, &QPU_A_DEV_INDEX
 *   (required). Resets the V3D between two scheduler steps: a running job
 *   ends with &QPU_JOB_CANCELED, queued jobs run on afterwards. Returns
 *   when the reset is done.
 *
 * Events, sent to the multicast group &QPU_GENL_MCGRP_EVENTS (joining it
 * needs CAP_NET_ADMIN, as events carry pids), all with &enum qpu_a_event
 * attributes:
 *
 * - &QPU_CMD_JOB_TIMEOUT_NTF: a job ran past its timeout. DEV_INDEX, PID,
 *   COMM, SEQNO, TIMEOUT_MS.
 * - &QPU_CMD_JOB_FAULT_NTF: a program touched memory outside its job's
 *   BOs. DEV_INDEX, PID, COMM, SEQNO, FAULT_QPU, FAULT_PC, FAULT_ADDR,
 *   FAULT_ACCESS.
 * - &QPU_CMD_DEV_RESET_NTF: the V3D was reset. DEV_INDEX, REASON.
 * - &QPU_CMD_TELEMETRY_NTF: the V3D's clock fell low or recovered, or
 *   throttling started or ended (see "DOC: telemetry"). DEV_INDEX,
 *   TELEMETRY, and the sample's CLOCK_SET_HZ, CLOCK_MEASURED_HZ, TEMP_MC
 *   and THROTTLED, each where the firmware answered.
 *
 * Counters and sizes are u64 attributes aligned with the set's PAD
 * attribute; everything else is u32 or a NUL-terminated string. New
 * attributes and commands go at the end of their enum; nothing is ever
 * reordered or reused.
 */

/**
 * DOC: telemetry
 *
 * While a device has a file open, the driver samples, every
 * telemetry_period_ms milliseconds (module parameter, default 1000; 0 stops
 * sampling), the V3D's clock as the firmware set it (GET_CLOCK_RATE) and as
 * it measures it (GET_CLOCK_MEASURED), the SoC's temperature and the
 * firmware's throttled flags (&enum qpu_throttled_flags), through the
 * Raspberry Pi firmware's mailbox on hardware and from the simulated V3D's
 * debugfs knobs on the simulated one. &QPU_A_DEV_CLOCK_HZ keeps its meaning
 * (the rate read when the device appeared); the samples have their own
 * attributes. The last sample stays readable after the files close, with
 * its age.
 *
 * Two states follow the samples, each with hysteresis so that a value
 * near a threshold does not send an event per sample:
 *
 * - clock low: entered when the measured clock is more than 5 % below the
 *   set rate (measured * 100 < set * 95), left when it is back within 2 %
 *   (measured * 100 >= set * 98); in between the state stays.
 * - throttling: entered at the first sample with any of the firmware's
 *   "now" bits (&QPU_THROTTLED_NOW) set, left after
 *   &QPU_TELEMETRY_CLEAR_SAMPLES samples in a row without any.
 *
 * Each change of state is one &QPU_CMD_TELEMETRY_NTF event (an &enum
 * qpu_telemetry_event) and, for entries, one count in STATS.
 */

/**
 * QPU_TELEMETRY_CLEAR_SAMPLES - samples in a row without a throttled "now"
 * bit that end throttling.
 */
#define QPU_TELEMETRY_CLEAR_SAMPLES	3

/**
 * enum qpu_throttled_flags - bits of &QPU_A_DEV_THROTTLED: the Raspberry Pi
 *	firmware's get-throttled word, as it gives it ("vcgencmd
 *	get_throttled"). The "occurred" bits stay set until the firmware is
 *	asked to clear them, which qpu.ko never does (the hwmon driver does).
 * @QPU_THROTTLED_UNDER_VOLTAGE: the supply is under-voltage now.
 * @QPU_THROTTLED_FREQ_CAPPED: the ARM frequency is capped now.
 * @QPU_THROTTLED_THROTTLED: the SoC is throttled now.
 * @QPU_THROTTLED_SOFT_TEMP_LIMIT: the soft temperature limit is active now.
 * @QPU_THROTTLED_NOW: the four bits above.
 * @QPU_THROTTLED_UNDER_VOLTAGE_OCCURRED: under-voltage has occurred.
 * @QPU_THROTTLED_FREQ_CAPPED_OCCURRED: frequency capping has occurred.
 * @QPU_THROTTLED_THROTTLED_OCCURRED: throttling has occurred.
 * @QPU_THROTTLED_SOFT_TEMP_LIMIT_OCCURRED: the soft limit has been active.
 */
enum qpu_throttled_flags {
	QPU_THROTTLED_UNDER_VOLTAGE = 1 << 0,
	QPU_THROTTLED_FREQ_CAPPED = 1 << 1,
	QPU_THROTTLED_THROTTLED = 1 << 2,
	QPU_THROTTLED_SOFT_TEMP_LIMIT = 1 << 3,
	QPU_THROTTLED_NOW = 0xf,
	QPU_THROTTLED_UNDER_VOLTAGE_OCCURRED = 1 << 16,
	QPU_THROTTLED_FREQ_CAPPED_OCCURRED = 1 << 17,
	QPU_THROTTLED_THROTTLED_OCCURRED = 1 << 18,
	QPU_THROTTLED_SOFT_TEMP_LIMIT_OCCURRED = 1 << 19,
};

/**
 * enum qpu_telemetry_event - values of &QPU_A_EVENT_TELEMETRY.
 * @QPU_TELEMETRY_CLOCK_LOW: the measured clock fell more than 5 % below
 *	the set rate.
 * @QPU_TELEMETRY_CLOCK_OK: it came back within 2 %.
 * @QPU_TELEMETRY_THROTTLE_START: the firmware started throttling.
 * @QPU_TELEMETRY_THROTTLE_END: it stopped.
 */
enum qpu_telemetry_event {
	QPU_TELEMETRY_CLOCK_LOW = 1,
	QPU_TELEMETRY_CLOCK_OK = 2,
	QPU_TELEMETRY_THROTTLE_START = 3,
	QPU_TELEMETRY_THROTTLE_END = 4,
};

/** QPU_GENL_NAME - the name of the generic-netlink family. */
#define QPU_GENL_NAME		"qpu"
/** QPU_GENL_VERSION - the version of the generic-netlink family. */
#define QPU_GENL_VERSION	1
/** QPU_GENL_MCGRP_EVENTS - the name of the multicast group of events. */
#define QPU_GENL_MCGRP_EVENTS	"events"

/**
 * enum qpu_dev_state - values of &QPU_A_DEV_STATE.
 * @QPU_DEV_STATE_IDLE: no job is running.
 * @QPU_DEV_STATE_BUSY: a job is running.
 * @QPU_DEV_STATE_STOPPED: the device is going away; no job starts.
 */
enum qpu_dev_state {
	QPU_DEV_STATE_IDLE = 1,
	QPU_DEV_STATE_BUSY = 2,
	QPU_DEV_STATE_STOPPED = 3,
};

/**
 * enum qpu_reset_reason - values of &QPU_A_EVENT_REASON.
 * @QPU_RESET_TIMEOUT: a job ran past its timeout.
 * @QPU_RESET_FAULT: a job faulted.
 * @QPU_RESET_ADMIN: an administrator asked, with &QPU_CMD_DEV_RESET.
 * @QPU_RESET_REMOVE: the device is going away with a job running.
 * @QPU_RESET_DEADLOCK: a job deadlocked (&QPU_JOB_DEADLOCK).
 */
enum qpu_reset_reason {
	QPU_RESET_TIMEOUT = 1,
	QPU_RESET_FAULT = 2,
	QPU_RESET_ADMIN = 3,
	QPU_RESET_REMOVE = 4,
	QPU_RESET_DEADLOCK = 5,
};

/**
 * enum qpu_cmd - commands of the qpu family.
 * @QPU_CMD_UNSPEC: not a command.
 * @QPU_CMD_DEV_GET: identification and state of a device (do or dump).
 * @QPU_CMD_STATS_GET: counters of a device (do or dump).
 * @QPU_CMD_CLIENT_GET: the open files of the devices (do or dump).
 * @QPU_CMD_CONFIG_GET: the module-wide configuration (do or dump).
 * @QPU_CMD_CONFIG_SET: change the configuration (CAP_NET_ADMIN).
 * @QPU_CMD_DEV_RESET: reset a device's V3D (CAP_NET_ADMIN).
 * @QPU_CMD_JOB_TIMEOUT_NTF: event: a job timed out.
 * @QPU_CMD_JOB_FAULT_NTF: event: a job faulted.
 * @QPU_CMD_DEV_RESET_NTF: event: a V3D was reset.
 * @QPU_CMD_HANG_GET: the last hang's snapshot (do or dump; CAP_NET_ADMIN).
 * @QPU_CMD_TELEMETRY_NTF: event: the clock or throttling changed state.
 * @__QPU_CMD_MAX: sentinel.
 * @QPU_CMD_MAX: the last command.
 */
enum qpu_cmd {
	QPU_CMD_UNSPEC,
	QPU_CMD_DEV_GET,
	QPU_CMD_STATS_GET,
	QPU_CMD_CLIENT_GET,
	QPU_CMD_CONFIG_GET,
	QPU_CMD_CONFIG_SET,
	QPU_CMD_DEV_RESET,
	QPU_CMD_JOB_TIMEOUT_NTF,
	QPU_CMD_JOB_FAULT_NTF,
	QPU_CMD_DEV_RESET_NTF,
	QPU_CMD_HANG_GET,
	QPU_CMD_TELEMETRY_NTF,

	__QPU_CMD_MAX,
	QPU_CMD_MAX = __QPU_CMD_MAX - 1
};

/**
 * enum qpu_a_dev - attributes of a device (&QPU_CMD_DEV_GET,
 *	&QPU_CMD_DEV_RESET).
 * @QPU_A_DEV_UNSPEC: not an attribute.
 * @QPU_A_DEV_INDEX: u32, N in /dev/qpuN; the request's device.
 * @QPU_A_DEV_NAME: string, the node's name ("qpu", "qpu1"...).
 * @QPU_A_DEV_BACKEND: u32, an &enum qpu_backend.
 * @QPU_A_DEV_STATE: u32, an &enum qpu_dev_state.
 * @QPU_A_DEV_IDENT0: u32, the raw V3D IDENT0 register.
 * @QPU_A_DEV_IDENT1: u32, the raw V3D IDENT1 register.
 * @QPU_A_DEV_IDENT2: u32, the raw V3D IDENT2 register.
 * @QPU_A_DEV_REVISION: u32, the V3D revision.
 * @QPU_A_DEV_NUM_QPUS: u32, number of QPUs.
 * @QPU_A_DEV_NUM_SLICES: u32, number of slices.
 * @QPU_A_DEV_NUM_SEMAPHORES: u32, number of hardware semaphores.
 * @QPU_A_DEV_VPM_SIZE: u32, VPM size in bytes.
 * @QPU_A_DEV_CLOCK_HZ: u32, the V3D's clock rate in Hz, as read when the
 *	device appeared; absent when unknown (always on the simulated V3D).
 * @QPU_A_DEV_CLOCK_SET_HZ: u32, the V3D's clock rate the firmware set, at
 *	the last sample.
 * @QPU_A_DEV_CLOCK_MEASURED_HZ: u32, the V3D's clock as the firmware
 *	measured it, at the last sample.
 * @QPU_A_DEV_TEMP_MC: s32, the SoC's temperature in millidegrees Celsius,
 *	at the last sample.
 * @QPU_A_DEV_THROTTLED: u32, the firmware's &enum qpu_throttled_flags, at
 *	the last sample.
 * @QPU_A_DEV_TELEMETRY_AGE_MS: u32, how long ago the last sample was taken.
 * @QPU_A_DEV_CLOCK_LOW: u32, 1 while the clock is low (with hysteresis).
 * @QPU_A_DEV_THROTTLING: u32, 1 while throttling (with hysteresis).
 * @__QPU_A_DEV_MAX: sentinel.
 * @QPU_A_DEV_MAX: the last attribute.
 */
enum qpu_a_dev {
	QPU_A_DEV_UNSPEC,
	QPU_A_DEV_INDEX,
	QPU_A_DEV_NAME,
	QPU_A_DEV_BACKEND,
	QPU_A_DEV_STATE,
	QPU_A_DEV_IDENT0,
	QPU_A_DEV_IDENT1,
	QPU_A_DEV_IDENT2,
	QPU_A_DEV_REVISION,
	QPU_A_DEV_NUM_QPUS,
	QPU_A_DEV_NUM_SLICES,
	QPU_A_DEV_NUM_SEMAPHORES,
	QPU_A_DEV_VPM_SIZE,
	QPU_A_DEV_CLOCK_HZ,
	QPU_A_DEV_CLOCK_SET_HZ,
	QPU_A_DEV_CLOCK_MEASURED_HZ,
	QPU_A_DEV_TEMP_MC,
	QPU_A_DEV_THROTTLED,
	QPU_A_DEV_TELEMETRY_AGE_MS,
	QPU_A_DEV_CLOCK_LOW,
	QPU_A_DEV_THROTTLING,

	__QPU_A_DEV_MAX,
	QPU_A_DEV_MAX = __QPU_A_DEV_MAX - 1
};

/**
 * enum qpu_a_stats - attributes of a device's counters
 *	(&QPU_CMD_STATS_GET); counters start at zero when the device appears.
 * @QPU_A_STATS_UNSPEC: not an attribute.
 * @QPU_A_STATS_DEV_INDEX: u32, the device; the request's device.
 * @QPU_A_STATS_PAD: padding for the u64 attributes.
 * @QPU_A_STATS_JOBS_SUBMITTED: u64, jobs submitted.
 * @QPU_A_STATS_JOBS_DONE: u64, jobs that ended with &QPU_JOB_DONE.
 * @QPU_A_STATS_JOBS_FAILED: u64, jobs that ended with &QPU_JOB_FAULT.
 * @QPU_A_STATS_JOBS_TIMEOUT: u64, jobs that ended with &QPU_JOB_TIMEOUT or
 *	&QPU_JOB_DEADLOCK (the hangs).
 * @QPU_A_STATS_JOBS_CANCELED: u64, jobs that ended with &QPU_JOB_CANCELED.
 * @QPU_A_STATS_RESETS: u64, V3D resets.
 * @QPU_A_STATS_BO_COUNT: u64, buffer objects alive now.
 * @QPU_A_STATS_BO_BYTES: u64, bytes of those buffer objects.
 * @QPU_A_STATS_BUSY_NS: u64, nanoseconds the V3D spent running jobs (from
 *	a job's start to its end), including the running job's time so far.
 * @QPU_A_STATS_QPU: nest of &enum qpu_a_qpu, one per QPU in QPU order;
 *	absent when the backend cannot count per QPU (a real V3D: its
 *	performance counters only sum over all QPUs).
 * @QPU_A_STATS_TELEMETRY_SAMPLES: u64, telemetry samples taken.
 * @QPU_A_STATS_CLOCK_LOW_EVENTS: u64, times the clock fell low.
 * @QPU_A_STATS_THROTTLE_EVENTS: u64, times throttling started.
 * @__QPU_A_STATS_MAX: sentinel.
 * @QPU_A_STATS_MAX: the last attribute.
 */
enum qpu_a_stats {
	QPU_A_STATS_UNSPEC,
	QPU_A_STATS_DEV_INDEX,
	QPU_A_STATS_PAD,
	QPU_A_STATS_JOBS_SUBMITTED,
	QPU_A_STATS_JOBS_DONE,
	QPU_A_STATS_JOBS_FAILED,
	QPU_A_STATS_JOBS_TIMEOUT,
	QPU_A_STATS_JOBS_CANCELED,
	QPU_A_STATS_RESETS,
	QPU_A_STATS_BO_COUNT,
	QPU_A_STATS_BO_BYTES,
	QPU_A_STATS_BUSY_NS,
	QPU_A_STATS_QPU,
	QPU_A_STATS_TELEMETRY_SAMPLES,
	QPU_A_STATS_CLOCK_LOW_EVENTS,
	QPU_A_STATS_THROTTLE_EVENTS,

	__QPU_A_STATS_MAX,
	QPU_A_STATS_MAX = __QPU_A_STATS_MAX - 1
};

/**
 * enum qpu_a_qpu - attributes of one QPU, nested in &QPU_A_STATS_QPU.
 * @QPU_A_QPU_UNSPEC: not an attribute.
 * @QPU_A_QPU_INDEX: u32, the QPU (0-based).
 * @QPU_A_QPU_PAD: padding for the u64 attributes.
 * @QPU_A_QPU_INSTRUCTIONS: u64, instructions the QPU issued since the
 *	device appeared.
 * @__QPU_A_QPU_MAX: sentinel.
 * @QPU_A_QPU_MAX: the last attribute.
 */
enum qpu_a_qpu {
	QPU_A_QPU_UNSPEC,
	QPU_A_QPU_INDEX,
	QPU_A_QPU_PAD,
	QPU_A_QPU_INSTRUCTIONS,

	__QPU_A_QPU_MAX,
	QPU_A_QPU_MAX = __QPU_A_QPU_MAX - 1
};

/**
 * enum qpu_a_client - attributes of an open file (&QPU_CMD_CLIENT_GET).
 * @QPU_A_CLIENT_UNSPEC: not an attribute.
 * @QPU_A_CLIENT_DEV_INDEX: u32, the device the file is open on; in a
 *	request, only that device's files.
 * @QPU_A_CLIENT_PAD: padding for the u64 attributes.
 * @QPU_A_CLIENT_PID: u32, the process that opened the file, in the
 *	requester's pid namespace (0 when not visible there); in a request
 *	(at least 1), only that process's files.
 * @QPU_A_CLIENT_COMM: string, that process's command name at open; absent
 *	when the process is not visible in the requester's pid namespace (its
 *	&QPU_A_CLIENT_PID reads 0), so names do not cross pid namespaces.
 * @QPU_A_CLIENT_BO_COUNT: u32, buffer objects the file has handles to.
 * @QPU_A_CLIENT_BO_BYTES: u64, bytes of the buffer objects the file created
 *	and that are not yet freed (a destroyed one still mapped or used by a
 *	job counts): what the per-file limit is checked against.
 * @QPU_A_CLIENT_JOBS_SUBMITTED: u64, jobs the file submitted.
 * @QPU_A_CLIENT_JOBS_QUEUED: u32, of those, jobs that have not started.
 * @QPU_A_CLIENT_ID: u32, the file's number, unique among the files opened
 *	since the module was loaded, never 0; in a request, that file.
 * @__QPU_A_CLIENT_MAX: sentinel.
 * @QPU_A_CLIENT_MAX: the last attribute.
 */
enum qpu_a_client {
	QPU_A_CLIENT_UNSPEC,
	QPU_A_CLIENT_DEV_INDEX,
	QPU_A_CLIENT_PAD,
	QPU_A_CLIENT_PID,
	QPU_A_CLIENT_COMM,
	QPU_A_CLIENT_BO_COUNT,
	QPU_A_CLIENT_BO_BYTES,
	QPU_A_CLIENT_JOBS_SUBMITTED,
	QPU_A_CLIENT_JOBS_QUEUED,
	QPU_A_CLIENT_ID,

	__QPU_A_CLIENT_MAX,
	QPU_A_CLIENT_MAX = __QPU_A_CLIENT_MAX - 1
};

/**
 * enum qpu_a_config - the module-wide configuration (&QPU_CMD_CONFIG_GET,
 *	&QPU_CMD_CONFIG_SET); the module parameters of the same names show
 *	the same values. A change applies to the next job or allocation.
 * @QPU_A_CONFIG_UNSPEC: not an attribute.
 * @QPU_A_CONFIG_PAD: padding for the u64 attributes.
 * @QPU_A_CONFIG_DEFAULT_TIMEOUT_MS: u32, 1 to 3600000, the timeout of a
 *	job that asks for none (&QPU_PARAM_DEFAULT_TIMEOUT_MS).
 * @QPU_A_CONFIG_MAX_TIMEOUT_MS: u32, 1 to 3600000, the longest timeout a
 *	job may have (&QPU_PARAM_MAX_TIMEOUT_MS).
 * @QPU_A_CONFIG_MAX_BO_SIZE: u64, 4096 to 2^30, the largest buffer object
 *	in bytes (&QPU_PARAM_MAX_BO_SIZE).
 * @QPU_A_CONFIG_CLIENT_MEM_LIMIT: u64, 4096 to 2^30, the bytes of buffer
 *	objects one open file may hold.
 * @QPU_A_CONFIG_DEV_MEM_LIMIT: u64, 4096 to 2^30, the bytes of buffer
 *	objects one device may hold.
 * @QPU_A_CONFIG_MAX_QUEUED_JOBS: u32, 1 to 1024 (the jobs a file keeps for
 *	&QPU_IOCTL_WAIT), the jobs one open file may have queued; SUBMIT
 *	past it fails with -EAGAIN.
 * @__QPU_A_CONFIG_MAX: sentinel.
 * @QPU_A_CONFIG_MAX: the last attribute.
 */
enum qpu_a_config {
	QPU_A_CONFIG_UNSPEC,
	QPU_A_CONFIG_PAD,
	QPU_A_CONFIG_DEFAULT_TIMEOUT_MS,
	QPU_A_CONFIG_MAX_TIMEOUT_MS,
	QPU_A_CONFIG_MAX_BO_SIZE,
	QPU_A_CONFIG_CLIENT_MEM_LIMIT,
	QPU_A_CONFIG_DEV_MEM_LIMIT,
	QPU_A_CONFIG_MAX_QUEUED_JOBS,

	__QPU_A_CONFIG_MAX,
	QPU_A_CONFIG_MAX = __QPU_A_CONFIG_MAX - 1
};

/**
 * enum qpu_a_event - attributes of the events.
 * @QPU_A_EVENT_UNSPEC: not an attribute.
 * @QPU_A_EVENT_DEV_INDEX: u32, the device.
 * @QPU_A_EVENT_PAD: padding for the u64 attributes.
 * @QPU_A_EVENT_REASON: u32, an &enum qpu_reset_reason.
 * @QPU_A_EVENT_PID: u32, the process that submitted the job, in the
 *	initial pid namespace.
 * @QPU_A_EVENT_COMM: string, its command name at submission.
 * @QPU_A_EVENT_SEQNO: u64, the job's &qpu_submit.seqno in its file.
 * @QPU_A_EVENT_TIMEOUT_MS: u32, the job's timeout.
 * @QPU_A_EVENT_FAULT_QPU: u32, the QPU that faulted (0-based).
 * @QPU_A_EVENT_FAULT_PC: u32, bus address of its instruction.
 * @QPU_A_EVENT_FAULT_ADDR: u32, the address refused.
 * @QPU_A_EVENT_FAULT_ACCESS: u32, an &enum qpu_fault_access.
 * @QPU_A_EVENT_TELEMETRY: u32, an &enum qpu_telemetry_event.
 * @QPU_A_EVENT_CLOCK_SET_HZ: u32, as &QPU_A_DEV_CLOCK_SET_HZ.
 * @QPU_A_EVENT_CLOCK_MEASURED_HZ: u32, as &QPU_A_DEV_CLOCK_MEASURED_HZ.
 * @QPU_A_EVENT_TEMP_MC: s32, as &QPU_A_DEV_TEMP_MC.
 * @QPU_A_EVENT_THROTTLED: u32, as &QPU_A_DEV_THROTTLED.
 * @__QPU_A_EVENT_MAX: sentinel.
 * @QPU_A_EVENT_MAX: the last attribute.
 */
enum qpu_a_event {
	QPU_A_EVENT_UNSPEC,
	QPU_A_EVENT_DEV_INDEX,
	QPU_A_EVENT_PAD,
	QPU_A_EVENT_REASON,
	QPU_A_EVENT_PID,
	QPU_A_EVENT_COMM,
	QPU_A_EVENT_SEQNO,
	QPU_A_EVENT_TIMEOUT_MS,
	QPU_A_EVENT_FAULT_QPU,
	QPU_A_EVENT_FAULT_PC,
	QPU_A_EVENT_FAULT_ADDR,
	QPU_A_EVENT_FAULT_ACCESS,
	QPU_A_EVENT_TELEMETRY,
	QPU_A_EVENT_CLOCK_SET_HZ,
	QPU_A_EVENT_CLOCK_MEASURED_HZ,
	QPU_A_EVENT_TEMP_MC,
	QPU_A_EVENT_THROTTLED,

	__QPU_A_EVENT_MAX,
	QPU_A_EVENT_MAX = __QPU_A_EVENT_MAX - 1
};

/**
 * enum qpu_a_hang - attributes of &QPU_CMD_HANG_GET.
 * @QPU_A_HANG_UNSPEC: not an attribute.
 * @QPU_A_HANG_DEV_INDEX: u32, the device.
 * @QPU_A_HANG_PAD: padding for the u64 attributes.
 * @QPU_A_HANG_AGE_MS: u64, how long ago the job timed out.
 * @QPU_A_HANG_PID: u32, the process that submitted it, in the initial pid
 *	namespace.
 * @QPU_A_HANG_COMM: string, its command name at submission.
 * @QPU_A_HANG_SEQNO: u64, the job's &qpu_submit.seqno in its file.
 * @QPU_A_HANG_TIMEOUT_MS: u32, the job's timeout.
 * @QPU_A_HANG_PROGRAMS: u32, its programs.
 * @QPU_A_HANG_CODE_ADDR: u32, bus address of its first program's code.
 * @QPU_A_HANG_UNIF_ADDR: u32, bus address of its first program's uniforms.
 * @QPU_A_HANG_SRQCS: u32, the user-program queue's control and status
 *	register: queue length, error, requests and completions.
 * @QPU_A_HANG_DBQITE: u32, the QPU host interrupt enables.
 * @QPU_A_HANG_DBQITC: u32, the QPU host interrupts pending.
 * @__QPU_A_HANG_MAX: sentinel.
 * @QPU_A_HANG_MAX: the last attribute.
 */
enum qpu_a_hang {
	QPU_A_HANG_UNSPEC,
	QPU_A_HANG_DEV_INDEX,
	QPU_A_HANG_PAD,
	QPU_A_HANG_AGE_MS,
	QPU_A_HANG_PID,
	QPU_A_HANG_COMM,
	QPU_A_HANG_SEQNO,
	QPU_A_HANG_TIMEOUT_MS,
	QPU_A_HANG_PROGRAMS,
	QPU_A_HANG_CODE_ADDR,
	QPU_A_HANG_UNIF_ADDR,
	QPU_A_HANG_SRQCS,
	QPU_A_HANG_DBQITE,
	QPU_A_HANG_DBQITC,

	__QPU_A_HANG_MAX,
	QPU_A_HANG_MAX = __QPU_A_HANG_MAX - 1
};

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_LINUX_QPU_H */
