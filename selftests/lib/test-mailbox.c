// SPDX-License-Identifier: MIT
/*
 * test-mailbox: libqpu-mailbox as firmware-mailbox clients use it, on the
 * device named by --device (default "emu"; the VM passes /dev/qpu). It is a
 * client: it declares the mailbox prototypes itself, as clients keep their
 * own mailbox.h (a declaration that disagreed with <qpu_mailbox.h> would
 * not compile), and runs programs of its own shaped like theirs:
 * - 8 QPUs with semaphore barriers, the VPM and VCD DMA under the mutex,
 *   reading a second buffer by bus address, launched through execute_qpu()
 *   from a control list (GPU_FFT's large jobs);
 * - the same programs through gpu_fft_base_exec()'s two paths, and the
 *   trace line that says which ran;
 * - mapmem() of each address form (flags 0x4 and 0xC), the pad past each
 *   buffer's end and QPU_MAILBOX_EXACT;
 * - every refusal: unknown and freed handles, mapmem() of no buffer and of
 *   the peripheral window, a control list outside every buffer, 0 or 13
 *   QPUs, a timeout, execute_code().
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qpu.h"
#include "qpu_asm.h"
#include "qpu_mailbox.h"
#include "testlib.h"

/* A client's own copy of the prototypes (GPU_FFT 3.0's mailbox.h). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
int mbox_open();
#pragma GCC diagnostic pop
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

/* GPU_FFT's gpu_fft.h structs and glue, as its files declare them. */
struct GPU_FFT_PTR {
	unsigned vc;
	union { void *vptr; char *bptr; unsigned *uptr; } arm;
};
struct GPU_FFT_BASE {
	int mb;
	unsigned handle, size, vc_msg, vc_code, vc_unifs[8], peri_size;
	volatile unsigned *peri;
};
int gpu_fft_alloc(int mb, unsigned size, struct GPU_FFT_PTR *ptr);
unsigned gpu_fft_base_exec(struct GPU_FFT_BASE *base, int num_qpus);
void gpu_fft_base_release(struct GPU_FFT_BASE *base);
unsigned gpu_fft_ptr_inc(struct GPU_FFT_PTR *ptr, int bytes);

#define ALIAS		0xc0000000u
#define DONE		0x00000000u
#define TIMEOUT		0x80000000u
#define REFUSED		0x80000001u
#define FAULT		0x80000002u
#define QPUS		8

/*
 * Uniforms: index, count, input address, output address. Each QPU reads 16
 * words of the input (row @index) through the TMU, adds its index and puts
 * them in VPM row @index; a barrier (QPU 0 joins the others on semaphore 0
 * and releases them on semaphore 1); each then reads its neighbour's row
 * (index + 1, wrapping), which only the barrier guarantees is written, and
 * stores it with VCD DMA, under the mutex, to output row @index.
 */
static const char barrier_prog[] =
	"	mov ra0, unif\n"
	"	mov ra1, unif\n"
	"	mov ra2, unif\n"
	"	mov ra3, unif\n"
	"	ldi r1, 64\n"
	"	mul24 r1, ra0, r1\n"
	"	ldi r2, 4\n"
	"	mul24 r2, elem_num, r2\n"
	"	add r1, r1, r2\n"
	"	add t0s, ra2, r1\n"
	"	nop; ldtmu0\n"
	"	add r0, r4, ra0\n"
	"	ldi r1, vpm_setup(0, 1, h32(0))\n"
	"	add vw_setup, r1, ra0\n"
	"	mov vpm, r0\n"
	"	mov.setf -, ra0\n"
	"	brr.anynz -, r:worker\n"
	"	nop\n"
	"	nop\n"
	"	nop\n"
	"	sub ra4, ra1, 1\n"
	"	nop\n"
	":join\n"
	"	sub.setf ra4, ra4, 1\n"
	"	sacq -, 0\n"
	"	brr.anynz -, r:join\n"
	"	nop\n"
	"	nop\n"
	"	nop\n"
	"	sub ra4, ra1, 1\n"
	"	nop\n"
	":release\n"
	"	sub.setf ra4, ra4, 1\n"
	"	srel -, 1\n"
	"	brr.anynz -, r:release\n"
	"	nop\n"
	"	nop\n"
	"	nop\n"
	"	brr -, r:after\n"
	"	nop\n"
	"	nop\n"
	"	nop\n"
	":worker\n"
	"	srel -, 0\n"
	"	sacq -, 1\n"
	":after\n"
	"	add r1, ra0, 1\n"
	"	sub.setf -, r1, ra1\n"
	"	mov.ifz r1, 0\n"
	"	ldi r2, vpm_setup(1, 1, h32(0))\n"
	"	add vr_setup, r2, r1\n"
	"	nop\n"
	"	nop\n"
	"	mov r0, vpm\n"
	"	ldi r1, vpm_setup(0, 1, h32(8))\n"
	"	add vw_setup, r1, ra0\n"
	"	mov vpm, r0\n"
	"	mov r3, mutex\n"
	"	ldi r1, vdw_setup_0(1, 16, dma_h32(8, 0))\n"
	"	ldi r2, 128\n"
	"	mul24 r2, ra0, r2\n"
	"	add vw_setup, r1, r2\n"
	"	ldi r1, 64\n"
	"	mul24 r1, ra0, r1\n"
	"	add vw_addr, ra3, r1\n"
	"	mov -, vw_wait\n"
	"	mov mutex, 0\n"
	"	nop; thrend\n"
	"	nop\n"
	"	nop\n";

/* Reads the word at its first uniform through the TMU, then ends. */
static const char read_prog[] =
	"	mov t0s, unif\n"
	"	nop; ldtmu0\n"
	"	nop; thrend\n"
	"	nop\n"
	"	nop\n";

/* Never ends. */
static const char loop_prog[] =
	":loop\n"
	"	brr -, r:loop\n"
	"	nop\n"
	"	nop\n"
	"	nop\n";

static size_t assemble(const char *text, uint64_t *out, size_t max)
{
	struct qpu_asm *as = qpu_asm_new();
	const uint64_t *words;
	size_t n = 0;

	if (as && qpu_asm_string(as, "test-mailbox", text) == 0) {
		n = qpu_asm_words(as, &words);
		if (n <= max)
			memcpy(out, words, n * 8);
		else
			n = 0;
	} else if (as) {
		const struct qpu_asm_diag *d;
		size_t i, nd = qpu_asm_diags(as, &d);

		for (i = 0; i < nd; i++)
			fprintf(stderr, "%u:%u: %s\n", d[i].line, d[i].col, d[i].msg);
	}
	qpu_asm_free(as);
	if (!n) {
		fprintf(stderr, "test-mailbox: the test's program does not assemble\n");
		exit(T_EXIT_FAIL);
	}
	return n;
}

/* One buffer: handle, bus address, CPU view through mapmem(). */
struct buf {
	unsigned handle, bus;
	uint32_t *map;
};

static struct buf buf_new(int mb, unsigned size, unsigned flags)
{
	struct buf b = { 0 };

	b.handle = mem_alloc(mb, size, 4096, flags);
	T_CHECK(b.handle != 0);
	b.bus = mem_lock(mb, b.handle);
	T_CHECK(b.bus != 0);
	b.map = mapmem(b.bus & ~ALIAS, size);
	T_CHECK(b.map != NULL);
	if (!b.handle || !b.bus || !b.map)
		exit(T_EXIT_FAIL);
	return b;
}

static void buf_free(int mb, struct buf *b, unsigned size)
{
	unmapmem(b->map, size);
	T_EQ_U64(0, mem_unlock(mb, b->handle));
	T_EQ_U64(0, mem_free(mb, b->handle));
}

/*
 * Lays out GPU_FFT-style: code at 0, the QPUs' uniforms from 4096, the
 * control list at 8192; input and output in @data (rows of 64 bytes).
 */
static unsigned barrier_setup(const struct buf *code, const struct buf *data,
			      unsigned *unifs)
{
	uint32_t *u = code->map + 1024, *ctl = code->map + 2048;
	unsigned q, i;

	assemble(barrier_prog, (uint64_t *)code->map, 512);
	for (i = 0; i < 16 * QPUS; i++) {
		data->map[i] = 1000 + i;
		data->map[1024 + i] = 0;
	}
	for (q = 0; q < QPUS; q++) {
		u[4 * q] = q;
		u[4 * q + 1] = QPUS;
		u[4 * q + 2] = data->bus;
		u[4 * q + 3] = data->bus + 4096;
		unifs[q] = code->bus + 4096 + 16 * q;
		ctl[2 * q] = unifs[q];
		ctl[2 * q + 1] = code->bus;
	}
	return code->bus + 8192;
}

/* Output row q holds input row q + 1 (wrapping) plus q + 1. */
static void barrier_check(const struct buf *data)
{
	unsigned q, i, bad = 0;

	for (q = 0; q < QPUS; q++) {
		unsigned from = (q + 1) % QPUS;

		for (i = 0; i < 16; i++)
			bad += data->map[1024 + 16 * q + i] != 1000 + 16 * from + i + from;
	}
	T_EQ_U64(0, bad);
}

/* The session the cases share, on the device --device names (setup). */
static int session = -1;

static void test_execute_qpu(int mb)
{
	struct buf code = buf_new(mb, 3 * 4096, 0xc), data = buf_new(mb, 2 * 4096, 0x4);
	unsigned unifs[QPUS], control = barrier_setup(&code, &data, unifs);

	T_EQ_U64(0, qpu_enable(mb, 1));
	T_EQ_U64(DONE, execute_qpu(mb, QPUS, control, 1, 2000));
	barrier_check(&data);
	T_EQ_U64(0, qpu_enable(mb, 0));
	buf_free(mb, &code, 3 * 4096);
	buf_free(mb, &data, 2 * 4096);
}

T_TEST(execute_qpu)
{
	test_execute_qpu(session);
}

/* mapmem()'s address forms, and what is no buffer. */
static void test_mapmem(int mb)
{
	struct buf direct = buf_new(mb, 8192, 0x4), cached = buf_new(mb, 8192, 0xc);
	unsigned phys = direct.bus & ~ALIAS;

	/* Flag 0x4: the address with the alias cleared, and Pi 1's + 0x20000000. */
	T_CHECK(mapmem(phys, 8192) == direct.map);
	T_CHECK(mapmem(phys + 0x20000000u, 8192) == direct.map);
	T_CHECK(mapmem(phys + 4096, 4096) == direct.map + 1024);
	/* Flag 0xc: the alias cleared only. */
	T_CHECK(mapmem(cached.bus & ~ALIAS, 8192) == cached.map);
	T_CHECK(mapmem((cached.bus & ~ALIAS) + 0x20000000u, 8192) == NULL);
	/* Into the pad (64 KiB past the end) but not past it. */
	T_CHECK(mapmem(phys, 8192 + 65536) == direct.map);
	T_CHECK(mapmem(phys, 8192 + 65536 + 4096) == NULL);
	/* No buffer there; the peripheral windows. */
	T_CHECK(mapmem(0x10000000u, 4096) == NULL);
	T_CHECK(mapmem(0x20000000u, 0x01000000u) == NULL);
	T_CHECK(mapmem(0x3f000000u, 0x01000000u) == NULL);
	buf_free(mb, &direct, 8192);
	buf_free(mb, &cached, 8192);
	/* A freed buffer's window is no buffer any more. */
	T_CHECK(mapmem(phys, 4096) == NULL);
}

T_TEST(mapmem)
{
	test_mapmem(session);
}

/* A program reading past its buffer's requested end: the pad, and without. */
static void test_pad(int mb, int exact)
{
	struct buf code = buf_new(mb, 4096, 0x4), data = buf_new(mb, 4096, 0x4);
	uint32_t *u = code.map + 512, *ctl = code.map + 768;

	assemble(read_prog, (uint64_t *)code.map, 64);
	u[0] = data.bus + 4096;		/* one word past the end */
	ctl[0] = code.bus + 2048;
	ctl[1] = code.bus;
	T_EQ_U64(exact ? FAULT : DONE, execute_qpu(mb, 1, code.bus + 3072, 1, 1000));
	buf_free(mb, &code, 4096);
	buf_free(mb, &data, 4096);
}

T_TEST(pad)
{
	test_pad(session, 0);
}

static void test_refusals(int mb)
{
	struct buf code = buf_new(mb, 4096, 0x4);
	uint32_t *ctl = code.map + 768;
	unsigned freed;

	/* Handles never given, and freed ones. */
	T_EQ_U64(0, mem_lock(mb, 12345));
	T_EQ_U64(1, mem_unlock(mb, 12345));
	T_EQ_U64(1, mem_free(mb, 12345));
	freed = mem_alloc(mb, 4096, 4096, 0xc);
	T_CHECK(freed != 0);
	T_EQ_U64(0, mem_free(mb, freed));
	T_EQ_U64(0, mem_lock(mb, freed));
	T_EQ_U64(1, mem_free(mb, freed));
	/* Sizes and alignments the layer cannot give. */
	T_EQ_U64(0, mem_alloc(mb, 0, 4096, 0x4));
	T_EQ_U64(0, mem_alloc(mb, 4096, 3, 0x4));
	T_EQ_U64(0, mem_alloc(mb, 4096, 8192, 0x4));
	/* A descriptor mbox_open() never gave. */
	T_EQ_U64(1, qpu_enable(mb + 1000, 1));
	T_EQ_U64(0, mem_alloc(mb + 1000, 4096, 4096, 0x4));
	T_EQ_U64(REFUSED, execute_qpu(mb + 1000, 1, code.bus + 3072, 1, 1000));

	/* A control list outside every buffer; 0 and 13 QPUs. */
	assemble(loop_prog, (uint64_t *)code.map, 64);
	ctl[0] = code.bus + 2048;
	ctl[1] = code.bus;
	T_EQ_U64(REFUSED, execute_qpu(mb, 1, 0xfff00000u, 1, 1000));
	/* Across the end of the buffer and its pad. */
	T_EQ_U64(REFUSED, execute_qpu(mb, 1, code.bus + 4096 + 65536 - 4, 1, 1000));
	T_EQ_U64(REFUSED, execute_qpu(mb, 0, code.bus + 3072, 1, 1000));
	T_EQ_U64(REFUSED, execute_qpu(mb, 13, code.bus + 3072, 1, 1000));
	/* Code outside every buffer, and misaligned code. */
	ctl[1] = 0xfff00000u;
	T_EQ_U64(REFUSED, execute_qpu(mb, 1, code.bus + 3072, 1, 1000));
	ctl[1] = code.bus + 4;
	T_EQ_U64(REFUSED, execute_qpu(mb, 1, code.bus + 3072, 1, 1000));
	/* A program that never ends: the firmware's timeout answer. */
	ctl[1] = code.bus;
	T_EQ_U64(TIMEOUT, execute_qpu(mb, 1, code.bus + 3072, 1, 1));
	/* VPU code does not run here. */
	T_EQ_U64(0xffffffffu, execute_code(mb, code.bus, 0, 0, 0, 0, 0, 0));
	buf_free(mb, &code, 4096);
}

T_TEST(refusals)
{
	test_refusals(session);
}

/* Runs @fn with stderr in a file; the file's text (static, truncated). */
static const char *capture_stderr(void (*fn)(int), int mb)
{
	static char text[4096];
	FILE *f = tmpfile();
	int saved = dup(2);
	size_t n;

	if (!f || saved < 0)
		exit(T_EXIT_FAIL);
	fflush(stderr);
	dup2(fileno(f), 2);
	fn(mb);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = 0;
	fclose(f);
	return text;
}

static struct GPU_FFT_BASE *glue_base;

static void glue_exec(int qpus)
{
	T_EQ_U64(DONE, gpu_fft_base_exec(glue_base, qpus));
}

static void glue_exec_8(int mb)
{
	glue_exec(QPUS);
}

/*
 * GPU_FFT's host glue: one allocation laid out as gpu_fft.c does (its
 * struct GPU_FFT_BASE first), base.peri set and never touched, and both
 * paths of gpu_fft_base_exec() run the barrier program as a job.
 */
static void test_gpu_fft_glue(int mb)
{
	struct buf data = buf_new(mb, 2 * 4096, 0x4);
	struct GPU_FFT_PTR ptr;
	struct buf code;
	unsigned control;
	const char *trace;

	T_EQ_U64(0, gpu_fft_alloc(mb, 4 * 4096, &ptr));
	glue_base = ptr.arm.vptr;
	T_CHECK(glue_base->peri != NULL);
	T_EQ_U64(mb, glue_base->mb);
	T_EQ_U64(4 * 4096, glue_base->size);
	T_EQ_U64(ptr.vc, gpu_fft_ptr_inc(&ptr, 4096));
	code = (struct buf){ .bus = ptr.vc, .map = ptr.arm.vptr };
	control = barrier_setup(&code, &data, glue_base->vc_unifs);
	glue_base->vc_code = code.bus;

	setenv("QPU_MAILBOX_TRACE", "1", 1);
	glue_base->vc_msg = 0;
	trace = capture_stderr(glue_exec_8, mb);
	T_CHECK(strstr(trace, "gpu_fft_base_exec: direct path, 8 QPUs") != NULL);
	T_CHECK(strstr(trace, "mailbox path") == NULL);
	barrier_check(&data);

	memset(data.map + 1024, 0, 16 * QPUS * 4);
	glue_base->vc_msg = control;
	trace = capture_stderr(glue_exec_8, mb);
	T_CHECK(strstr(trace, "gpu_fft_base_exec: mailbox path, 8 QPUs") != NULL);
	T_CHECK(strstr(trace, "execute_qpu: 8 QPUs: done") != NULL);
	barrier_check(&data);
	unsetenv("QPU_MAILBOX_TRACE");

	gpu_fft_base_release(glue_base);
	buf_free(mb, &data, 2 * 4096);
}

T_TEST(gpu_fft_glue)
{
	test_gpu_fft_glue(session);
}

static const char *device_path = "emu";

static const struct t_option options[] = {
	{ "device", &device_path, "DEVICE" },
	{ NULL, NULL, NULL },
};

static int open_mailbox(void)
{
	setenv("QPU_DEVICE", device_path, 1);
	session = mbox_open();
	T_CHECK(session >= 0);
	if (session < 0)
		return T_EXIT_FAIL;
	printf("device: %s\n", device_path);
	return T_EXIT_PASS;
}

static void close_mailbox(void)
{
	mbox_close(session);
}

/* The exact check: no pad, the requested end as the buffer's. */
T_TEST(pad_exact)
{
	int exact_mb;

	setenv("QPU_MAILBOX_EXACT", "1", 1);
	exact_mb = mbox_open();
	T_CHECK(exact_mb >= 0);
	if (exact_mb >= 0) {
		test_pad(exact_mb, 1);
		mbox_close(exact_mb);
	}
	unsetenv("QPU_MAILBOX_EXACT");
}

/* No device: mbox_open() says so. */
T_TEST(no_device)
{
	setenv("QPU_DEVICE", "/nonexistent/qpu", 1);
	T_EQ_U64((uint64_t)-1, (uint64_t)mbox_open());
	setenv("QPU_DEVICE", device_path, 1);
}

T_MAIN(.setup = open_mailbox, .teardown = close_mailbox, .options = options)
