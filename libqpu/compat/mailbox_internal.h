/* SPDX-License-Identifier: MIT */
/*
 * libqpu-mailbox's private interface between the mailbox layer (mailbox.c)
 * and GPU_FFT's host glue (gpu_fft_glue.c): running a list of programs as
 * one job of a session, the return codes, and the trace.
 */
#ifndef QPU_MAILBOX_INTERNAL_H
#define QPU_MAILBOX_INTERNAL_H

#include <stdint.h>

/* execute_qpu()'s answers (qpu_mailbox.h). */
#define QPU_MAILBOX_DONE	0x00000000u
#define QPU_MAILBOX_TIMEOUT	0x80000000u	/* as the firmware */
#define QPU_MAILBOX_REFUSED	0x80000001u
#define QPU_MAILBOX_FAULT	0x80000002u

/* The alias bits of a VideoCore bus address. */
#define QPU_MAILBOX_ALIAS_MASK	0xc0000000u
/*
 * mem_alloc()'s alias bits (0xc: L1 non-allocating, GPU_FFT's cached mode)
 * and their direct (uncached) value, with GPU_FFT's Pi 1 offset for it.
 */
#define QPU_MAILBOX_MEM_ALIAS	0xcu
#define QPU_MAILBOX_MEM_DIRECT	0x4u
#define QPU_MAILBOX_PI1_UNCACHED 0x20000000u
/* Bytes past each buffer's requested end, unless QPU_MAILBOX_EXACT=1. */
#define QPU_MAILBOX_PAD		(64u * 1024)

/*
 * Runs @num_qpus programs, {uniforms, code} bus address pairs at @pairs, as
 * one job of session @mb that may touch all its buffers; @timeout_ms 0 for
 * the device's default. @who names the caller in messages and the trace.
 * Returns a QPU_MAILBOX_* answer.
 */
unsigned qpu_mailbox_run(int mb, unsigned num_qpus, const uint32_t *pairs,
			 unsigned timeout_ms, const char *who);

/* One line on stderr when QPU_MAILBOX_TRACE is set (and not "0"). */
void qpu_mailbox_trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* QPU_MAILBOX_INTERNAL_H */
