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
 */
#ifndef QPU_H
#define QPU_H

#include <stdint.h>

#include <linux/qpu.h>	/* the statuses, states and limits named below */

#ifdef __cplusplus
extern "C" {
#endif

#define QPU_API __attribute__((visibility("default")))

/**
 * qpu_version() - the library's version
 *
 * Return: a static string such as "0.1.0"; do not free it.
 */
QPU_API const char *qpu_version(void);

/**
 * struct qpu_dev - an open qpu device (opaque).
 */
struct qpu_dev;

/**
 * qpu_dev_open() - open a qpu device
 * @path: a device node such as "/dev/qpu", or "emu" for the in-process
 *	emulator; NULL means $QPU_DEVICE, or /dev/qpu when that is unset
 *
 * The same program runs on all three kinds of device: a real V3D, qpu.ko's
 * simulated V3D, and the emulator in this process (no kernel module needed;
 * every memory access is checked as in the simulated V3D).
 * qpu_dev_describe() says which one is in use.
 *
 * Return: a device the caller closes with qpu_dev_close(), or NULL with
 * errno set (ENOENT: no such node, is qpu.ko loaded?; ENOTTY: the node is
 * not a qpu device).
 */
QPU_API struct qpu_dev *qpu_dev_open(const char *path);

/**
 * qpu_dev_close() - close a device
 * @dev: the device, or NULL
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
 * qpu_dev_get_param() - query one QPU_PARAM_* value (see <linux/qpu.h>)
 * @dev: the device
 * @param: an enum qpu_param value
 * @value: where the value goes; untouched on failure
 *
 * Return: 0, or -EINVAL for a parameter the kernel does not know.
 */
QPU_API int qpu_dev_get_param(struct qpu_dev *dev, uint32_t param,
			      uint64_t *value);

/**
 * qpu_backend_name() - a QPU_PARAM_BACKEND value for people and scripts
 * @backend: an enum qpu_backend of <linux/qpu.h>
 *
 * The one mapping that qpu-info and qpuctl print.
 *
 * Return: a static string: "hardware", "simulated" or "unknown"; do not
 * free it.
 */
QPU_API const char *qpu_backend_name(uint32_t backend);

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
 * struct qpu_program_ref - one program of a job
 * @code: the buffer holding the code
 * @code_offset: offset of the first instruction, a multiple of 8
 * @uniforms: the buffer holding the uniforms
 * @uniforms_offset: offset of the first uniform, a multiple of 4
 * @uniforms_length: kept for compatibility: a multiple of 4 within the
 *	buffer, or 0; checked, then ignored. Programs read uniforms anywhere in
 *	their job's buffers (QPU_FEATURE_UNIFORMS_ANYWHERE of <linux/qpu.h>)
 */
struct qpu_program_ref {
	struct qpu_bo *code;
	uint32_t code_offset;
	struct qpu_bo *uniforms;
	uint32_t uniforms_offset;
	uint32_t uniforms_length;
};

/**
 * struct qpu_job_desc - what qpu_submit() runs
 * @programs: one per QPU used, 1 to QPU_PARAM_NUM_QPUS of them
 * @program_count: entries in @programs
 * @bos: the other buffers the programs read or write (their code and
 *	uniforms buffers are included anyway)
 * @bo_count: entries in @bos
 * @timeout_ms: 0 for the device's default; QPU_TIMEOUT_NONE (<linux/qpu.h>)
 *	for none on the in-process emulator (qpu.ko cuts it to its maximum).
 *	The emulator and qpu.ko's simulated V3D count it in instructions per
 *	QPU (QPU_PARAM_INSTRUCTIONS_PER_MS per millisecond), not wall time
 * @in_fence_fd: a sync_file (or the emulator's fence) to wait for first, or
 *	-1
 * @out_fence_fd: NULL, or where to put a new fence fd that becomes
 *	readable (poll) when the job ends; the caller closes it
 */
struct qpu_job_desc {
	const struct qpu_program_ref *programs;
	unsigned int program_count;
	struct qpu_bo *const *bos;
	unsigned int bo_count;
	unsigned int timeout_ms;
	int in_fence_fd;
	int *out_fence_fd;
};

/**
 * qpu_submit() - start a job; never waits for it
 * @dev: the device
 * @desc: the job
 * @seqno: where the job's number goes, for qpu_wait()
 *
 * Return: 0, or -EINVAL (bad description, buffers of another device),
 * -EPERM (real hardware needs CAP_SYS_RAWIO), -ENOENT, -ENOMEM.
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
 * say what each QPU was doing when the job stopped (QPU_JOB_DEADLOCK).
 */
#define QPU_JOB_RESULT_QPUS		(1u << 2)

/**
 * struct qpu_job_counters - what a job's programs did, as the device saw it
 * @dual_issued: instructions in which both the add and the mul unit did
 *	work (issue efficiency: how many of @instructions were dual-issued)
 * @tmu_bytes: bytes read through the TMUs (4 per lane fetched)
 * @uniform_bytes: bytes read from the uniform streams (4 per uniform)
 * @dma_load_bytes: bytes VCD DMA read from memory into the VPM
 * @dma_store_bytes: bytes VCD DMA wrote from the VPM to memory
 * @run_ns: host CPU time spent running the job, in nanoseconds
 *
 * Only the in-process emulator counts these: it runs every job on a fresh
 * emulator in the submitting thread, so the counts and the CPU time are
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
};

/**
 * struct qpu_job_qpu - one QPU when its job stopped
 * @pc: bus address of the instruction it was about to issue
 * @state: an enum qpu_qpu_state of <linux/qpu.h> (QPU_QPU_WAIT_MUTEX...)
 * @semaphore: for QPU_QPU_WAIT_SEMAPHORE: which one (0..15)
 */
struct qpu_job_qpu {
	uint32_t pc;
	uint16_t state;
	uint16_t semaphore;
};

/**
 * struct qpu_job_result - how a job ended
 * @status: an enum qpu_job_status of <linux/qpu.h> (QPU_JOB_DONE...);
 *	QPU_JOB_DEADLOCK only from a device whose QPU_PARAM_FEATURES has
 *	QPU_FEATURE_DEADLOCK (the emulator, qpu.ko's simulated V3D)
 * @fault_qpu: for QPU_JOB_FAULT: the QPU
 * @fault_pc: for QPU_JOB_FAULT: bus address of the instruction
 * @fault_addr: for QPU_JOB_FAULT: the address refused
 * @fault_access: for QPU_JOB_FAULT: an enum qpu_fault_access
 * @flags: QPU_JOB_RESULT_* bits saying which fields below hold a value
 * @instructions: with QPU_JOB_RESULT_INSTRUCTIONS: the instructions the
 *	job's programs issued, summed over the QPUs (for a job that stopped
 *	early, those issued before it stopped). The emulator and qpu.ko's
 *	simulated V3D count them; a real V3D cannot, so the bit stays clear
 *	there and @instructions is 0.
 * @counters: with QPU_JOB_RESULT_COUNTERS: traffic and dual issue (the
 *	in-process emulator only); zero otherwise
 * @qpu_count: with QPU_JOB_RESULT_QPUS: entries of @qpus filled, one per
 *	QPU of the device
 * @pad: zero
 * @qpus: with QPU_JOB_RESULT_QPUS: each QPU's state, in QPU order
 *
 * ABI: the struct only grows at its end. A program built against an older
 * qpu.h calls the qpu_wait() of its symbol version, which writes only the
 * fields that version had (up to @counters for LIBQPU_0.1) and reports a
 * deadlock as QPU_JOB_TIMEOUT, as that version did.
 */
struct qpu_job_result {
	uint32_t status;
	uint32_t fault_qpu;
	uint32_t fault_pc;
	uint32_t fault_addr;
	uint32_t fault_access;
	uint32_t flags;
	uint64_t instructions;
	struct qpu_job_counters counters;
	uint32_t qpu_count;
	uint32_t pad;
	struct qpu_job_qpu qpus[QPU_WAIT_QPUS];
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
 * qpu_job_status_str() - a job status for people
 * @status: an enum qpu_job_status
 *
 * Return: a static string ("done", "timed out", "memory fault",
 * "deadlock", ...).
 */
QPU_API const char *qpu_job_status_str(uint32_t status);

#ifdef __cplusplus
}
#endif

#endif /* QPU_H */
