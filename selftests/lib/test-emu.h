/* SPDX-License-Identifier: MIT */
/*
 * Shared harness of the emulator tests (test-emu-*.c): a small bus memory
 * of host arrays behind translate(), an instruction builder over
 * qpu_isa_encode(), and runners for one or more programs.
 */
#ifndef QPU_TEST_EMU_H
#define QPU_TEST_EMU_H

#include <stdbool.h>
#include <stdint.h>

#include "qpu_isa.h"
#include "qpu_emu.h"
#include "testlib.h"

#define CODE_BASE	0x00010000u
#define UNIF_BASE	0x00020000u
#define DATA_BASE	0x00100000u
#define OUT_BASE	0x00200000u
#define REGION_BYTES	0x10000u

/* Accumulator write addresses and common peripheral addresses. */
#define W_R0		32
#define W_R1		33
#define W_R2		34
#define W_R3		35
#define W_NOP		39
#define W_VPM		48
#define W_VPM_SETUP	49	/* A: vr_setup, B: vw_setup */
#define W_DMA_ADDR	50	/* A: vr_addr, B: vw_addr */
#define W_SFU_RECIP	52
#define W_SFU_RSQRT	53
#define W_SFU_EXP	54
#define W_SFU_LOG	55
#define W_TMU0_S	56
#define W_TMU1_S	60
#define R_UNIF		32
#define R_ELEM		38	/* elem_num in A, qpu_num in B */
#define R_NOP		39
#define R_VPM		48
#define R_WAIT		50	/* A: vr_wait, B: vw_wait */

struct tmem_region {
	uint32_t base;
	uint8_t mem[REGION_BYTES];
};

static struct tmem_region t_regions[4] = {
	{ .base = CODE_BASE }, { .base = UNIF_BASE }, { .base = DATA_BASE },
	{ .base = OUT_BASE },
};

static unsigned int t_irqs;

static inline void *t_translate(void *ctx, uint32_t addr, uint32_t len,
				enum qpu_mem_access kind)
{
	unsigned int i;

	(void)ctx;
	(void)kind;
	for (i = 0; i < 4; i++) {
		struct tmem_region *r = &t_regions[i];

		if (addr >= r->base && len <= REGION_BYTES &&
		    addr - r->base <= REGION_BYTES - len)
			return r->mem + (addr - r->base);
	}
	return NULL;
}

static inline void t_host_int(void *ctx, unsigned int qpu)
{
	(void)ctx;
	(void)qpu;
	t_irqs++;
}

static const struct qpu_emu_ops t_ops = {
	.translate = t_translate,
	.host_interrupt = t_host_int,
};

static inline uint32_t *t_words(uint32_t addr)
{
	return t_translate(NULL, addr, 4, QPU_MEM_TMU);
}

/* --- program builder ------------------------------------------------------ */

struct prog {
	uint32_t addr;
	unsigned int n;
};

static inline struct qpu_isa_instr i_nop(void)
{
	struct qpu_isa_instr in = {
		.kind = QPU_ISA_KIND_ALU, .sig = QPU_ISA_SIG_NONE,
		.waddr_add = W_NOP, .waddr_mul = W_NOP,
		.raddr_a = R_NOP, .raddr_b = R_NOP,
	};

	return in;
}

static inline struct qpu_isa_instr i_add(unsigned int op, unsigned int waddr,
					 unsigned int a, unsigned int b)
{
	struct qpu_isa_instr in = i_nop();

	in.op_add = op;
	in.cond_add = QPU_ISA_COND_ALWAYS;
	in.waddr_add = waddr;
	in.add_a = a;
	in.add_b = b;
	return in;
}

static inline struct qpu_isa_instr i_mul(unsigned int op, unsigned int waddr,
					 unsigned int a, unsigned int b)
{
	struct qpu_isa_instr in = i_nop();

	in.op_mul = op;
	in.cond_mul = QPU_ISA_COND_ALWAYS;
	in.waddr_mul = waddr;
	in.mul_a = a;
	in.mul_b = b;
	return in;
}

/* mov waddr (A side unless ws), mux a */
static inline struct qpu_isa_instr i_mov(unsigned int waddr, unsigned int a)
{
	return i_add(QPU_ISA_A_OR, waddr, a, a);
}

/* @in with its raddr_b slot holding small immediate @smi. */
static inline struct qpu_isa_instr i_smi(struct qpu_isa_instr in, unsigned int smi)
{
	in.kind = QPU_ISA_KIND_ALU_SMALL_IMM;
	in.raddr_b = smi;
	return in;
}

/* A nop reading @raddr_a and @raddr_b (for their side effects). */
static inline struct qpu_isa_instr i_read(unsigned int raddr_a, unsigned int raddr_b)
{
	struct qpu_isa_instr in = i_nop();

	in.raddr_a = raddr_a;
	in.raddr_b = raddr_b;
	return in;
}

static inline struct qpu_isa_instr i_sig(unsigned int sig)
{
	struct qpu_isa_instr in = i_nop();

	in.sig = sig;
	return in;
}

static inline struct qpu_isa_instr i_ldi(unsigned int waddr, uint32_t imm)
{
	struct qpu_isa_instr in = {
		.kind = QPU_ISA_KIND_LDI, .cond_add = QPU_ISA_COND_ALWAYS,
		.waddr_add = waddr, .waddr_mul = W_NOP, .imm = imm,
	};

	return in;
}

/* ldi to the B side of @waddr (vw_setup, vw_addr: ws set). */
static inline struct qpu_isa_instr i_ldi_b(unsigned int waddr, uint32_t imm)
{
	struct qpu_isa_instr in = i_ldi(waddr, imm);

	in.ws = true;
	return in;
}

static inline struct qpu_isa_instr i_sema(unsigned int sem, bool acquire)
{
	struct qpu_isa_instr in = {
		.kind = QPU_ISA_KIND_SEMA, .waddr_add = W_NOP,
		.waddr_mul = W_NOP, .sem = sem, .sem_acquire = acquire,
	};

	return in;
}

static inline struct qpu_isa_instr i_branch(unsigned int cond, bool rel, uint32_t imm)
{
	struct qpu_isa_instr in = {
		.kind = QPU_ISA_KIND_BRANCH, .br_cond = cond, .br_rel = rel,
		.waddr_add = W_NOP, .waddr_mul = W_NOP, .imm = imm,
	};

	return in;
}

static inline void emit(struct prog *p, struct qpu_isa_instr in)
{
	uint64_t w = 0;
	uint32_t *dst = t_words(p->addr + p->n * 8);
	int ret = qpu_isa_encode(&in, &w);

	if (ret) {
		fprintf(stderr, "encode failed (%d) at instruction %u\n", ret,
			p->n);
		exit(T_EXIT_FAIL);
	}
	dst[0] = (uint32_t)w;
	dst[1] = (uint32_t)(w >> 32);
	p->n++;
}

static inline void emit_end(struct prog *p)
{
	emit(p, i_sig(QPU_ISA_SIG_THREND));
	emit(p, i_nop());
	emit(p, i_nop());
}

/* sub.setf r0, r0, 1; brr.anyzc -, @loop; three delay-slot nops */
static inline void emit_loop_end(struct prog *p, uint32_t loop)
{
	struct qpu_isa_instr in = i_smi(i_add(QPU_ISA_A_SUB, W_R0,
					      QPU_ISA_MUX_R0, QPU_ISA_MUX_B),
					1);
	uint32_t here;

	in.sf = true;
	emit(p, in);
	here = p->addr + p->n * 8;
	emit(p, i_branch(QPU_ISA_BR_ANYZC, true, loop - (here + 32)));
	emit(p, i_nop());
	emit(p, i_nop());
	emit(p, i_nop());
}

static inline struct prog prog_at(uint32_t addr)
{
	struct prog p = { addr, 0 };

	return p;
}

/* --- running -------------------------------------------------------------- */

static inline struct qpu_emu *t_emu_new(uint32_t seed)
{
	struct qpu_emu *emu = aligned_alloc(8, (qpu_emu_size() + 7) & ~7ul);

	if (!emu) {
		perror("aligned_alloc");
		exit(T_EXIT_FAIL);
	}
	qpu_emu_init(emu, &t_ops, NULL, seed);
	return emu;
}

/* Run one program to its end; returns the status. */
static inline enum qpu_emu_status t_run1(struct qpu_emu *emu, uint32_t code,
					 uint32_t unif)
{
	int q = qpu_emu_start(emu, code, unif);

	if (q < 0)
		return QPU_EMU_FAULT;
	return qpu_emu_run(emu, 1000000);
}

static inline uint32_t t_f2u(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static inline float t_u2f(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

/*
 * The QPU's fadd, fsub and fmul round toward zero: the host reference
 * switches SSE to the same mode (MXCSR bits 14:13). Returns false where the
 * host mode cannot be changed without libm (the caller then skips).
 */
#if defined(__x86_64__)
#include <xmmintrin.h>

static inline bool t_host_rtz(bool on)
{
	unsigned int csr = _mm_getcsr() & ~0x6000u;

	_mm_setcsr(csr | (on ? 0x6000u : 0));
	return true;
}
#else
static inline bool t_host_rtz(bool on)
{
	(void)on;
	return false;
}
#endif

/* (float)i rounded to nearest even, whatever the current host mode. */
static __attribute__((noinline, unused)) uint32_t t_host_itof(int32_t i)
{
	unsigned int saved = 0;
	volatile float f;

#if defined(__x86_64__)
	saved = _mm_getcsr();
	_mm_setcsr(saved & ~0x6000u);
#endif
	f = (float)i;
#if defined(__x86_64__)
	_mm_setcsr(saved);
#endif
	(void)saved;
	return t_f2u(f);
}

#endif /* QPU_TEST_EMU_H */
