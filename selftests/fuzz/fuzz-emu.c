// SPDX-License-Identifier: MIT
/*
 * fuzz-emu: the emulator on any words. The input's first 4 bytes choose how
 * many QPUs run the program (1..12), the interleaving seed, where the
 * uniforms start and whether the predecode cache is on; the rest is copied
 * to the start of a 64 KiB memory region (zeroes after it) that holds the
 * code, the uniforms and every TMU and DMA address the program may use.
 * Each run gets an instruction budget; it must end in a defined status
 * without touching memory outside translate() (ASan watches), a fault must
 * name a QPU that runs the program, and reset must forget everything.
 */
#include <string.h>

#include "fuzz.h"
#include "qpu_emu.h"

#define BASE		0x40000u
#define REGION		(64u * 1024)
#define BUDGET		4000

static uint8_t *mem;
static struct qpu_emu *emu;

static void *translate(void *ctx, u32 addr, u32 len, enum qpu_emu_access kind)
{
	FUZZ_CHECK(len, "translate of 0 bytes");
	if (addr < BASE || addr - BASE > REGION || len > REGION - (addr - BASE))
		return NULL;
	return mem + (addr - BASE);
}

static const struct qpu_emu_ops ops = { .translate = translate };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	mem = malloc(REGION);
	emu = aligned_alloc(8, (qpu_emu_size() + 7) & ~(size_t)7);
	FUZZ_CHECK(mem && emu, "out of memory");
	return 0;
}

static void check_status(enum qpu_emu_status st, unsigned int nqpus)
{
	FUZZ_CHECK(st == QPU_EMU_IDLE || st == QPU_EMU_RUNNING || st == QPU_EMU_FAULT ||
		   st == QPU_EMU_DEADLOCK, "status %d", (int)st);
	if (st == QPU_EMU_FAULT) {
		const struct qpu_emu_fault *f = qpu_emu_get_fault(emu);

		FUZZ_CHECK(f && f->qpu < nqpus, "fault on QPU %u", f ? f->qpu : 99u);
		FUZZ_CHECK(f->reason <= QPU_EMU_FAULT_VPM, "fault reason %d", (int)f->reason);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int nqpus, q, i;
	enum qpu_emu_status st;
	u32 seed, unif;
	char buf[256];
	size_t need;

	if (size < 4 || size - 4 > REGION)
		return 0;
	if (!emu)
		LLVMFuzzerInitialize(NULL, NULL);
	nqpus = 1 + data[0] % QPU_EMU_NUM_QPUS;
	seed = data[1] & 0x80 ? data[1] : 0;
	unif = BASE + 4u * ((u32)data[2] << 6 | (data[3] & 0x3f));
	memset(mem, 0, REGION);
	memcpy(mem, data + 4, size - 4);

	qpu_emu_init(emu, &ops, NULL, seed);
	qpu_emu_set_predecode(emu, !(data[3] & 0x40));
	for (q = 0; q < nqpus; q++)
		FUZZ_CHECK(qpu_emu_start(emu, BASE, unif) == (int)q,
			   "start of program %u", q);
	FUZZ_CHECK(qpu_emu_start(emu, BASE + 4, unif) < 0, "misaligned start");
	st = qpu_emu_run(emu, BUDGET);
	check_status(st, nqpus);
	FUZZ_CHECK(qpu_emu_completed(emu) <= nqpus, "%u programs done",
		   qpu_emu_completed(emu));
	for (i = 0; i < QPU_EMU_NUM_SEMAPHORES; i++) {
		int s = qpu_emu_get_semaphore(emu, i);

		FUZZ_CHECK(s >= 0 && s <= 15, "semaphore %u is %d", i, s);
	}
	need = qpu_emu_describe(emu, buf, sizeof(buf));
	FUZZ_CHECK(strlen(buf) == (need < sizeof(buf) ? need : sizeof(buf) - 1),
		   "describe: %zu for %zu", strlen(buf), need);
	if (st == QPU_EMU_RUNNING)	/* a second slice continues where it stopped */
		check_status(qpu_emu_run(emu, BUDGET / 4), nqpus);
	qpu_emu_reset(emu);
	FUZZ_CHECK(qpu_emu_completed(emu) == 0, "completed after reset");
	return 0;
}
