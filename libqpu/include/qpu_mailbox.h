/* SPDX-License-Identifier: MIT */
/*
 * qpu_mailbox.h: libqpu-mailbox, the firmware-mailbox interface of
 * Raspberry Pi QPU programs (GPU_FFT release 3.0's mailbox.h: the same
 * prototypes, so clients keep including their own copy) running on
 * /dev/qpu or, with QPU_DEVICE=emu, on libqpu's emulator. Link with
 * `pkg-config --libs qpu-mailbox`. The library also carries GPU_FFT's host
 * glue (gpu_fft_alloc, gpu_fft_base_exec, gpu_fft_base_release,
 * gpu_fft_ptr_inc), declared by GPU_FFT's own gpu_fft.h.
 *
 * What each call does here, and what it returns where the firmware's
 * answer cannot be given:
 *
 * mbox_open(): opens the device (libqpu's qpu_dev_open(NULL): $QPU_DEVICE
 *	or /dev/qpu) and returns a descriptor for the calls below (an fd of
 *	/dev/null, unique in the process), or -1 with a message on stderr.
 * mbox_close(): frees the session's buffers and closes the device.
 * mem_alloc(): a zeroed buffer of @size bytes, aligned to @align (a power
 *	of two up to 4096); returns its handle, never reused in the process,
 *	or 0. Every flag is accepted: the firmware's cache aliases do not
 *	exist here (qpu.ko picks one alias for every buffer: see README,
 *	"Porting a mailbox program"). Each buffer is padded with 64 KiB past
 *	its end, as programs that prefetch a little past
 *	their data work on the firmware's unbounded memory; with
 *	QPU_MAILBOX_EXACT=1 in the environment there is no pad and the
 *	requested end is placed as near the buffer's end as @align allows,
 *	so that a read past it faults on the emulator and the simulated V3D.
 * mem_lock(): the buffer's bus address, as QPU programs see it; 0 for an
 *	unknown or freed handle. mem_unlock(), mem_free(): 0, or 1 for an
 *	unknown or freed handle.
 * mapmem(@base, @size): the CPU's view of the buffer whose window holds
 *	[@base, @base + @size): a buffer's window is its bus address with the
 *	two alias bits (0xc0000000) cleared and, for a buffer allocated with
 *	flag 0x4 (direct), also that plus 0x20000000 (GPU_FFT's address on a
 *	Pi 1 in uncached mode). NULL with a message for anything else,
 *	including the peripheral windows (0x20000000, 0x3f000000 and
 *	0xfe000000, 16 MiB each): /dev/mem is never opened.
 * unmapmem(): nothing to undo (the mapping lives with its buffer).
 * qpu_enable(): counts enables and disables; 0, or 1 for an unknown
 *	descriptor.
 * execute_qpu(@num_qpus, @control): reads @num_qpus {uniforms, code} bus
 *	address pairs at @control and runs them as one job that may touch
 *	every buffer of the session (QPU_JOB_ALL_BOS); @timeout in ms (0: the
 *	device's default), @noflush ignored (the driver clears the V3D's
 *	caches before every job). Returns 0 when every program ended,
 *	0x80000000 on a timeout (and on a deadlock, which the hardware cannot
 *	tell from one), 0x80000001 when refused (unknown descriptor,
 *	@num_qpus 0 or more than the device has, @control or an address in
 *	the list outside every buffer, a misaligned one, or a failed submit),
 *	0x80000002 when a program touched memory outside the session's
 *	buffers (emulator and simulated V3D only), each with a message.
 * execute_code(): VPU code cannot run here: a message, and 0xffffffff.
 *
 * C++: the declarations are extern "C". A C++ client whose own mailbox.h
 * declares them without extern "C" (QPULib's Mailbox.h) compiles with
 * `-include qpu_mailbox.h`: a function's later declarations keep the
 * linkage of its first.
 *
 * QPU_MAILBOX_TRACE=1 prints one line per job to stderr (which path of
 * GPU_FFT's glue ran, the QPUs, the status). Not thread-safe: one thread
 * at a time, as the firmware interface was used.
 */
#ifndef QPU_MAILBOX_H
#define QPU_MAILBOX_H

#if defined(__cplusplus)
extern "C" {
#endif

/*
 * GPU_FFT's mailbox.h declares mbox_open() without a prototype: so do we. In
 * C++ that is a prototype, and naming a C-only warning would be one.
 */
#if defined(__cplusplus)
int mbox_open();
#else
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
int mbox_open();
#pragma GCC diagnostic pop
#endif
void mbox_close(int file_desc);

unsigned mem_alloc(int file_desc, unsigned size, unsigned align, unsigned flags);
unsigned mem_free(int file_desc, unsigned handle);
unsigned mem_lock(int file_desc, unsigned handle);
unsigned mem_unlock(int file_desc, unsigned handle);
void *mapmem(unsigned base, unsigned size);
void unmapmem(void *addr, unsigned size);

unsigned execute_code(int file_desc, unsigned code, unsigned r0, unsigned r1, unsigned r2, unsigned r3, unsigned r4, unsigned r5);
unsigned execute_qpu(int file_desc, unsigned num_qpus, unsigned control, unsigned noflush, unsigned timeout);
unsigned qpu_enable(int file_desc, unsigned enable);

#if defined(__cplusplus)
}
#endif

#endif /* QPU_MAILBOX_H */
