// SPDX-License-Identifier: MIT
/*
 * GPU_FFT's host glue, in place of GPU_FFT release 3.0's gpu_fft_base.c:
 * gpu_fft_alloc, gpu_fft_base_exec, gpu_fft_base_release and
 * gpu_fft_ptr_inc over the mailbox layer, so GPU_FFT's other files build
 * unmodified against libqpu-mailbox.
 *
 * gpu_fft.c runs a small batch "directly" (it leaves base.vc_msg 0 and the
 * glue pokes the V3D's registers through base.peri) and a large one
 * through execute_qpu() with a control list at base.vc_msg. Here both
 * become jobs: base.peri is a page the process cannot touch (PROT_NONE),
 * never dereferenced by GPU_FFT's files, and the direct path runs the
 * programs of base.vc_unifs and base.vc_code as one job. QPU_MAILBOX_TRACE
 * says which path ran.
 */

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mailbox_internal.h"
#include "qpu_mailbox.h"

#define GLUE_API __attribute__((visibility("default")))

/*
 * The structs of GPU_FFT's gpu_fft.h that these functions take, member for
 * member: their layout is the interface.
 */
#define GLUE_FFT_QPUS		8
#define GLUE_FFT_TIMEOUT_MS	2000	/* GPU_FFT's timeout of a job */
#define GLUE_MEM_FLAGS		QPU_MAILBOX_MEM_DIRECT

struct GPU_FFT_COMPLEX {
	float re, im;
};

struct GPU_FFT_PTR {
	unsigned vc;
	union {
		struct GPU_FFT_COMPLEX *cptr;
		void *vptr;
		char *bptr;
		float *fptr;
		unsigned *uptr;
	} arm;
};

struct GPU_FFT_BASE {
	int mb;
	unsigned handle, size, vc_msg, vc_code, vc_unifs[GLUE_FFT_QPUS], peri_size;
	volatile unsigned *peri;
};

int gpu_fft_alloc(int mb, unsigned size, struct GPU_FFT_PTR *ptr);
unsigned gpu_fft_base_exec(struct GPU_FFT_BASE *base, int num_qpus);
void gpu_fft_base_release(struct GPU_FFT_BASE *base);
unsigned gpu_fft_ptr_inc(struct GPU_FFT_PTR *ptr, int bytes);

/* GPU_FFT's answers: -1 no V3D, -3 no memory, -4 no peripherals. */
GLUE_API int gpu_fft_alloc(int mb, unsigned size, struct GPU_FFT_PTR *ptr)
{
	long page = sysconf(_SC_PAGESIZE);
	struct GPU_FFT_BASE *base;
	unsigned handle;
	void *peri;

	if (qpu_enable(mb, 1))
		return -1;
	handle = mem_alloc(mb, size, 4096, GLUE_MEM_FLAGS);
	if (!handle) {
		qpu_enable(mb, 0);
		return -3;
	}
	/* Not the V3D's registers: a page any access to faults. */
	peri = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (peri == MAP_FAILED) {
		mem_free(mb, handle);
		qpu_enable(mb, 0);
		return -4;
	}
	ptr->vc = mem_lock(mb, handle);
	ptr->arm.vptr = mapmem(ptr->vc & ~QPU_MAILBOX_ALIAS_MASK, size);
	if (!ptr->arm.vptr) {
		munmap(peri, page);
		mem_free(mb, handle);
		qpu_enable(mb, 0);
		return -3;
	}
	base = ptr->arm.vptr;
	base->peri = peri;
	base->peri_size = page;
	base->mb = mb;
	base->handle = handle;
	base->size = size;
	return 0;
}

GLUE_API unsigned gpu_fft_base_exec(struct GPU_FFT_BASE *base, int num_qpus)
{
	uint32_t pairs[2 * GLUE_FFT_QPUS] = { 0 };
	int q;

	if (base->vc_msg) {
		qpu_mailbox_trace("gpu_fft_base_exec: mailbox path, %d QPUs", num_qpus);
		return execute_qpu(base->mb, num_qpus, base->vc_msg, 1, GLUE_FFT_TIMEOUT_MS);
	}
	qpu_mailbox_trace("gpu_fft_base_exec: direct path, %d QPUs", num_qpus);
	if (num_qpus < 1 || num_qpus > GLUE_FFT_QPUS)
		return qpu_mailbox_run(base->mb, 0, pairs, 0, "gpu_fft_base_exec");
	for (q = 0; q < num_qpus; q++) {
		pairs[2 * q] = base->vc_unifs[q];
		pairs[2 * q + 1] = base->vc_code;
	}
	return qpu_mailbox_run(base->mb, num_qpus, pairs, GLUE_FFT_TIMEOUT_MS,
			       "gpu_fft_base_exec");
}

GLUE_API void gpu_fft_base_release(struct GPU_FFT_BASE *base)
{
	/* The struct lives in the buffer about to be freed. */
	int mb = base->mb;
	unsigned handle = base->handle, size = base->size;

	munmap((void *)base->peri, base->peri_size);
	unmapmem(base, size);
	mem_unlock(mb, handle);
	mem_free(mb, handle);
	qpu_enable(mb, 0);
}

GLUE_API unsigned gpu_fft_ptr_inc(struct GPU_FFT_PTR *ptr, int bytes)
{
	unsigned vc = ptr->vc;

	ptr->vc += bytes;
	ptr->arm.bptr += bytes;
	return vc;
}
