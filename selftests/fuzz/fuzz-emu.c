// SPDX-License-Identifier: MIT
/*
 * fuzz-emu: the emulator on any words. The input's first 4 bytes choose how
 * many QPUs run the program (1..12), the interleaving seed and where the
 * uniforms start; the rest is copied to the start of a 64 KiB memory
 * region (zeroes after it) that holds the code, the uniforms and every TMU
 * and DMA address the program may use. Each run gets an instruction
 * budget; it must end in a defined status without touching memory outside
 * translate() (ASan watches), a fault must name a QPU that runs the
 * program, and reset must forget everything. Every input runs twice, with
 * the predecode cache (and the fast paths it enables) on and off, and both
 * runs must leave the same status, statistics, fault, registers, flags,
 * QPU states, semaphores, VPM and memory. The corpus's dma-rows.bin seeds
 * VCD DMA: three QPUs, three rounds of a load, VPM writes and a store (the
 * row shortcuts need the window a first transfer opened), so mutations
 * reach them; without it 30 s of fuzzing missed a store shifted by a word.
 */
#include <string.h>

#include "fuzz.h"
#include "qpu_emu.h"

#define BASE		0x40000u
#define REGION		(64u * 1024)
#define BUDGET		4000

static uint8_t *mem;
static struct qpu_emu *emu;

static void *translate(void *ctx, u32 addr, u32 len, enum qpu_mem_access kind)
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
		const struct qpu_fault *f = qpu_emu_get_fault(emu);

		FUZZ_CHECK(f && f->qpu < nqpus, "fault on QPU %u", f ? f->qpu : 99u);
		FUZZ_CHECK(f->reason <= QPU_FAULT_REASON_VPM, "fault reason %d", (int)f->reason);
	}
}

/* What one run leaves, for comparing the two. */
struct outcome {
	enum qpu_emu_status status;
	struct qpu_emu_stats stats;
	struct qpu_fault fault;
	uint64_t digest;
};

static void mix(uint64_t *h, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--) {
		*h ^= *b++;
		*h *= 1099511628211ull;
	}
}

/* FNV-1a over what the inspection calls show, and the memory. */
static uint64_t digest(void)
{
	uint64_t h = 1469598103934665603ull;
	unsigned int q, i;

	for (q = 0; q < QPU_EMU_NUM_QPUS; q++) {
		u32 r[16], pc;
		u16 z, n, c;
		int st;

		for (i = 0; i < 32; i++) {
			qpu_emu_get_reg(emu, q, QPU_EMU_FILE_A, i, r);
			mix(&h, r, sizeof(r));
			qpu_emu_get_reg(emu, q, QPU_EMU_FILE_B, i, r);
			mix(&h, r, sizeof(r));
		}
		for (i = 0; i < 6; i++) {
			qpu_emu_get_reg(emu, q, QPU_EMU_FILE_ACC, i, r);
			mix(&h, r, sizeof(r));
		}
		qpu_emu_get_flags(emu, q, &z, &n, &c);
		mix(&h, &z, sizeof(z));
		mix(&h, &n, sizeof(n));
		mix(&h, &c, sizeof(c));
		st = qpu_emu_get_qpu_state(emu, q, &pc);
		mix(&h, &st, sizeof(st));
		mix(&h, &pc, sizeof(pc));
	}
	for (i = 0; i < QPU_EMU_NUM_SEMAPHORES; i++) {
		int v = qpu_emu_get_semaphore(emu, i);

		mix(&h, &v, sizeof(v));
	}
	mix(&h, qpu_emu_get_vpm(emu), QPU_EMU_VPM_WORDS * 4);
	mix(&h, mem, REGION);
	return h;
}

static void run(const uint8_t *data, size_t size, bool predecode,
		struct outcome *o)
{
	unsigned int nqpus, q, i;
	u32 seed, unif;
	char buf[256];
	size_t need;

	nqpus = 1 + data[0] % QPU_EMU_NUM_QPUS;
	seed = data[1] & 0x80 ? data[1] : 0;
	unif = BASE + 4u * ((u32)data[2] << 6 | (data[3] & 0x3f));
	memset(mem, 0, REGION);
	memcpy(mem, data + 4, size - 4);

	qpu_emu_init(emu, &ops, NULL, seed);
	qpu_emu_set_predecode(emu, predecode);
	for (q = 0; q < nqpus; q++)
		FUZZ_CHECK(qpu_emu_start(emu, BASE, unif) == (int)q,
			   "start of program %u", q);
	FUZZ_CHECK(qpu_emu_start(emu, BASE + 4, unif) < 0, "misaligned start");
	o->status = qpu_emu_run(emu, BUDGET);
	check_status(o->status, nqpus);
	FUZZ_CHECK(qpu_emu_completed(emu) <= nqpus, "%u programs done",
		   qpu_emu_completed(emu));
	for (i = 0; i < QPU_EMU_NUM_SEMAPHORES; i++) {
		int s = qpu_emu_get_semaphore(emu, i);

		FUZZ_CHECK(s >= 0 && s <= 15, "semaphore %u is %d", i, s);
	}
	need = qpu_emu_describe(emu, buf, sizeof(buf));
	FUZZ_CHECK(strlen(buf) == (need < sizeof(buf) ? need : sizeof(buf) - 1),
		   "describe: %zu for %zu", strlen(buf), need);
	if (o->status == QPU_EMU_RUNNING) {	/* a second slice goes on */
		o->status = qpu_emu_run(emu, BUDGET / 4);
		check_status(o->status, nqpus);
	}
	o->stats = *qpu_emu_get_stats(emu);
	o->fault = *qpu_emu_get_fault(emu);
	o->digest = digest();
	qpu_emu_reset(emu);
	FUZZ_CHECK(qpu_emu_completed(emu) == 0, "completed after reset");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct outcome on, off;

	if (size < 4 || size - 4 > REGION)
		return 0;
	if (!emu)
		LLVMFuzzerInitialize(NULL, NULL);
	run(data, size, true, &on);
	run(data, size, false, &off);
	FUZZ_CHECK(on.status == off.status, "status %d, %d without predecoding",
		   (int)on.status, (int)off.status);
	FUZZ_CHECK(!memcmp(&on.stats, &off.stats, sizeof(on.stats)),
		   "statistics differ without predecoding");
	FUZZ_CHECK(on.status != QPU_EMU_FAULT ||
		   !memcmp(&on.fault, &off.fault, sizeof(on.fault)),
		   "fault differs without predecoding");
	FUZZ_CHECK(on.digest == off.digest,
		   "state differs without predecoding");
	return 0;
}
