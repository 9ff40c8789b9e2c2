// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * The emulator's memory path: faults, and the windows through which a QPU
 * reaches memory (see "DOC: predecoded instructions" in qpu_emu.c). Every
 * access goes through the caller's translate(), asked once per window and
 * qpu_emu_run() call; a refused or misaligned access sets the job's fault.
 */
#include "qpu_emu_internal.h"

void qpu_emu_set_fault(struct qpu_emu_exec *x, enum qpu_fault_reason why,
		       u32 addr, enum qpu_mem_access access)
{
	if (x->fault)
		return;
	x->fault = true;
	x->emu->fault.reason = why;
	x->emu->fault.qpu = x->qi;
	x->emu->fault.pc = x->q->pc;
	x->emu->fault.addr = addr;
	x->emu->fault.access = access;
}

/*
 * The host address of @len bytes at @addr for an access of @kind whose
 * address must be a multiple of @align, or NULL after setting the fault.
 */
void *qpu_emu_mem(struct qpu_emu_exec *x, u32 addr, u32 len, u32 align,
		  enum qpu_mem_access kind)
{
	void *p;

	if (x->fault)
		return NULL;
	if (addr & (align - 1)) {
		qpu_emu_set_fault(x, QPU_FAULT_REASON_MISALIGNED, addr, kind);
		return NULL;
	}
	p = x->emu->ops->translate(x->emu->ctx, addr, len, kind);
	if (!p)
		qpu_emu_set_fault(x, QPU_FAULT_REASON_MEMORY, addr, kind);
	return p;
}

/* Ask translate() for @len bytes at @addr as the window @w. */
static u8 *win_try(struct qpu_emu *emu, struct qpu_emu_win *w, u32 addr,
		   u32 len, enum qpu_mem_access kind)
{
	u8 *p = emu->ops->translate(emu->ctx, addr, len, kind);

	if (p) {
		w->p = p;
		w->addr = addr;
		w->len = len;
	}
	return p;
}

/* The window sizes qpu_emu_win_miss() asks for, largest first (powers of 2). */
static const u32 win_sizes[WIN_LEVELS] = { 1u << 20, 1u << 16, FETCH_WINDOW };

/*
 * The host address of the @len bytes at @addr (a multiple of @align) for an
 * access of @kind, through the window @w: the same answer and the same
 * fault as qpu_emu_mem(x, addr, len, align, kind), with translate() asked
 * once for the rest of the 1 MiB region around @addr (or, where it refuses
 * that, of the 64 KiB one, the 4 KiB block, the 64-byte line) instead of
 * once per access. Strided TMU reads (a column of a wide matrix) leave a
 * 4 KiB block at every request; they stay inside a megabyte for many.
 * Windows that end before @addr + @len are not kept. Off (no window)
 * without predecoding.
 */
u8 *qpu_emu_win_miss(struct qpu_emu_exec *x, struct qpu_emu_win *w, u32 addr,
		     u32 len, u32 align, enum qpu_mem_access kind)
{
	struct qpu_emu *emu = x->emu;
	u32 wlen, tried = 0;
	u8 *p;
	unsigned int i;

	if (!(addr & (align - 1)) && !emu->no_predecode) {
		for (i = 0; i < WIN_LEVELS; i++) {
			u32 size = win_sizes[i];
			u32 region = addr & ~(size - 1);

			wlen = size - (addr & (size - 1));
			if (wlen <= 64 || wlen < len || wlen == tried ||
			    w->refused[i] == region + 1)
				continue;
			p = win_try(emu, w, addr, wlen, kind);
			if (p)
				return p;
			w->refused[i] = region + 1;
			tried = wlen;
		}
		wlen = 64 - (addr & 63);
		if (wlen > len) {
			p = win_try(emu, w, addr, wlen, kind);
			if (p)
				return p;
		}
	}
	return qpu_emu_mem(x, addr, len, align, kind);
}

/* A VCD DMA row through the QPU's window for @kind. */
u8 *qpu_emu_dma_mem(struct qpu_emu_exec *x, u32 addr, u32 len, u32 align,
		    enum qpu_mem_access kind)
{
	struct qpu_emu_win *w = kind == QPU_MEM_LOAD ?
		&x->q->dlwin : &x->q->dswin;

	return win_get(x, w, addr, len, align, kind);
}

void qpu_emu_bad_instr(struct qpu_emu_exec *x)
{
	qpu_emu_set_fault(x, QPU_FAULT_REASON_INSTRUCTION, x->q->pc,
			  QPU_MEM_FETCH);
}
