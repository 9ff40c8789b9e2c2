// SPDX-License-Identifier: MIT
/*
 * test-emu-fuzz: random programs on all 12 QPUs. Words are random, or
 * random fields of valid kinds, over code that may branch anywhere and
 * memory addresses aimed at the mapped regions and their edges. Every run
 * must end in a defined status within its budget, touch memory only
 * through translate() (ASan watches the rest), and repeat exactly: same
 * seed, same statistics, fault and memory. The repeat runs with the
 * predecoded-instruction cache off (every fetch translated and decoded
 * again), so it also proves the cache changes nothing: every register,
 * flag, PC, state, semaphore and VPM word must match. That covers the
 * fast paths the cache enables too: compute-shaped words (and movs) aim
 * at the ALU's, DMA-shaped programs at the VCD DMA row shortcuts.
 */
#include "qpu_vpm.h"
#include "test-emu.h"

#define RANDOM_SEED	0xa4093822299f31d0ull
#define RA_VARYING	35
#define PROGRAMS	3000
#define WORDS		48

static uint64_t rng = RANDOM_SEED;

static uint32_t rnd(uint32_t n)
{
	return (uint32_t)(t_rand(&rng) >> 33) % n;
}

/* Addresses near the regions' starts and ends, or anywhere. */
static uint32_t rnd_addr(void)
{
	static const uint32_t bases[] = {
		CODE_BASE, UNIF_BASE, DATA_BASE, OUT_BASE,
	};
	uint32_t b = bases[rnd(4)];

	switch (rnd(4)) {
	case 0:
		return (uint32_t)t_rand(&rng);
	case 1:
		return b + REGION_BYTES - 4 * rnd(64);
	default:
		return b + 4 * rnd(256);
	}
}

/* Mostly addresses a user program may use; now and then any. */
static unsigned int rnd_raddr(void)
{
	static const unsigned char ok[] = { 32, 38, 39, 48, 49, 50, 51 };

	if (!rnd(16))
		return rnd(64);
	return rnd(2) ? rnd(32) : ok[rnd(sizeof(ok))];
}

static unsigned int rnd_waddr(void)
{
	static const unsigned char ok[] = {
		32, 33, 34, 35, 36, 37, 38, 39, 40, 48, 49, 50, 51, 52, 53,
		54, 55, 56, 60,
	};

	if (!rnd(16))
		return rnd(64);
	return rnd(3) ? ok[rnd(sizeof(ok))] : rnd(32);
}

static unsigned int rnd_sig(void)
{
	static const unsigned char ok[] = { 1, 1, 1, 1, 2, 3, 10, 11 };

	return rnd(16) ? ok[rnd(sizeof(ok))] : rnd(13);
}

/*
 * The shape of compute loops, which the emulator runs on its fast path
 * (exec_alu_fast(), writing registers directly) when predecoding:
 * conditions always, no pack, unpack or flags (mostly), fadd and fmul
 * (mostly), and few registers, so a destination often is an input of its
 * own unit or of the other one; now and then a VPM or wait register read,
 * or a write to r5 or a peripheral, which the fast path does too; and
 * movs, which it copies.
 */
static void rnd_compute(struct qpu_isa_instr *in)
{
	static const unsigned char ra[] = { 0, 1, 2, 3, 32, 32, 39, 48, 50 };
	static const unsigned char wa[] = {
		0, 1, 2, 3, 32, 33, 34, 35, 39, 0, 1, 2, 32, 33, 34, 35,
		37, 38, 48, 52,		/* r5, host_int, VPM, SFU */
	};

	in->kind = rnd(4) ? QPU_ISA_KIND_ALU : QPU_ISA_KIND_ALU_SMALL_IMM;
	in->sig = QPU_ISA_SIG_NONE;
	if (in->kind == QPU_ISA_KIND_ALU_SMALL_IMM)
		in->sig = 0;
	else if (!rnd(16))
		in->sig = rnd_sig();
	do {
		in->op_add = rnd(2) ? QPU_ISA_A_FADD :
			rnd(QPU_ISA_NUM_ADD_OPS);
	} while (!qpu_isa_add_ops[in->op_add].name);
	in->op_mul = rnd(2) ? QPU_ISA_M_FMUL : rnd(8);
	in->cond_add = rnd(8) ? QPU_ISA_COND_ALWAYS : rnd(8);
	in->cond_mul = rnd(8) ? QPU_ISA_COND_ALWAYS : rnd(8);
	in->waddr_add = wa[rnd(sizeof(wa))];
	in->waddr_mul = wa[rnd(sizeof(wa))];
	in->raddr_a = ra[rnd(sizeof(ra))];
	in->raddr_b = in->kind == QPU_ISA_KIND_ALU ? ra[rnd(sizeof(ra))] :
		rnd(64);
	in->add_a = rnd(8);
	in->add_b = rnd(8);
	in->mul_a = rnd(8);
	in->mul_b = rnd(8);
	in->sf = !rnd(8);
	in->ws = rnd(2);
	in->unpack = rnd(8) ? 0 : rnd(8);
	in->pm = !rnd(8);
	in->pack = rnd(8) ? 0 : (in->pm ? 3 + rnd(5) : rnd(16));
	/* movs (or, v8min of an input with itself): the fast path copies them */
	if (!rnd(4)) {
		in->op_add = QPU_ISA_A_OR;
		in->add_b = in->add_a;
		in->sf = false;
	}
	if (!rnd(4)) {
		in->op_mul = QPU_ISA_M_V8MIN;
		in->mul_b = in->mul_a;
	}
}

/*
 * The shape of flag-heavy code, for the emulator's lazy flags (computed
 * only when read): most instructions set the flags, from the fast path's
 * fadd and fmul or from integer ops and load immediates whose conditions
 * let only some lanes change; conditions and branches read them; thread
 * switches and ends come and go, and now and then a read faults, so the
 * flags are compared after every way a program stops.
 */
static uint64_t rnd_flag_word(bool may_branch)
{
	static const unsigned char int_ops[] = {
		QPU_ISA_A_ADD, QPU_ISA_A_SUB, QPU_ISA_A_MIN, QPU_ISA_A_MAX,
		QPU_ISA_A_AND, QPU_ISA_A_SHL, QPU_ISA_A_FMIN, QPU_ISA_A_FMAXABS,
	};
	struct qpu_isa_instr in = i_nop();
	uint64_t w;

	switch (rnd(8)) {
	case 0:
		if (!may_branch)	/* not in a branch's delay slots */
			return rnd_flag_word(false);
		in = i_branch(rnd(12), false, CODE_BASE + 8 * rnd(WORDS));
		break;
	case 1:
		in = i_ldi(rnd(2) ? W_R0 + rnd(4) : rnd(4), (uint32_t)t_rand(&rng));
		in.kind = rnd(2) ? QPU_ISA_KIND_LDI : QPU_ISA_KIND_LDI_PES;
		in.cond_add = rnd(8);
		in.sf = rnd(4) != 0;
		break;
	case 2:
		rnd_compute(&in);
		in.op_add = int_ops[rnd(sizeof(int_ops))];
		in.cond_add = rnd(8);
		in.sf = true;
		break;
	default:
		rnd_compute(&in);
		in.sf = rnd(4) != 0;
		if (in.kind == QPU_ISA_KIND_ALU && !rnd(4))
			in.sig = rnd(16) ? QPU_ISA_SIG_THRSW : QPU_ISA_SIG_THREND;
		if (!rnd(64))
			in.raddr_a = RA_VARYING;	/* a fault */
		break;
	}
	if (qpu_isa_encode(&in, &w))
		return t_rand(&rng);
	return w;
}

static uint64_t rnd_word(void);

static uint64_t encode_or_random(struct qpu_isa_instr in)
{
	uint64_t w;

	return qpu_isa_encode(&in, &w) ? t_rand(&rng) : w;
}

/*
 * The shape of FFT passes, for the emulator's VCD DMA shortcuts (whole
 * 32-bit rows in one pass): from word 4 on (every QPU's start is before
 * it), two or three rounds of a load of rows from DATA into the VPM, VPM
 * rows written with computed values, and a store of rows of random shape
 * and stride to OUT, each waited for; random words after them. All lengths, positions and
 * strides are random, mostly inside the VPM and the regions, now and then
 * over an edge (the slow path's checks must agree).
 */
static void rnd_dma_program(uint64_t *code, unsigned int words)
{
	struct qpu_isa_instr in;
	unsigned int i = 4, k, rep;

	for (k = 0; k < i; k++)
		code[k] = encode_or_random(i_nop());
	/* twice or three times: the shortcuts need the window the first opened */
	for (rep = 2 + rnd(2); rep; rep--) {
		code[i++] = encode_or_random(i_ldi(W_VPM_SETUP,
			qpu_vdr_setup0(rnd(4), rnd(16), rnd(16),
				       qpu_vdr_dma(true, QPU_VPM_SIZE_32, rnd(4), rnd(64),
						   rnd(4) ? 0 : rnd(16), 0))));
		if (rnd(2))
			code[i++] = encode_or_random(i_ldi(W_VPM_SETUP,
							   qpu_vdr_setup1(4 * rnd(64))));
		code[i++] = encode_or_random(i_ldi(W_DMA_ADDR,
			DATA_BASE + 4 * rnd(rnd(16) ? 1024 : 16384)));
		code[i++] = encode_or_random(i_read(R_WAIT, R_NOP));
		code[i++] = encode_or_random(i_ldi_b(W_VPM_SETUP,
			qpu_vpm_setup(0, 1, qpu_vpm_addr(true, false, QPU_VPM_SIZE_32,
							 rnd(64), 0, 0))));
		for (k = rnd(3); k; k--) {
			rnd_compute(&in);
			in.waddr_add = W_VPM;
			in.ws = false;
			in.cond_add = QPU_ISA_COND_ALWAYS;
			if (!in.op_add)
				in.op_add = QPU_ISA_A_OR;
			code[i++] = encode_or_random(in);
		}
		code[i++] = encode_or_random(i_ldi_b(W_VPM_SETUP,
			qpu_vdw_setup0(1 + rnd(rnd(4) ? 4 : 127), 1 + rnd(16),
				       qpu_vdw_dma(true, QPU_VPM_SIZE_32, rnd(64),
						   rnd(4) ? 0 : rnd(16), 0))));
		if (rnd(2))
			code[i++] = encode_or_random(i_ldi_b(W_VPM_SETUP,
							     qpu_vdw_setup1(4 * rnd(16))));
		code[i++] = encode_or_random(i_ldi_b(W_DMA_ADDR,
			OUT_BASE + 4 * rnd(rnd(16) ? 1024 : 16384)));
		code[i++] = encode_or_random(i_read(R_NOP, R_WAIT));
	}
	while (i < words)
		code[i++] = rnd_word();
}

static uint64_t rnd_word(void)
{
	struct qpu_isa_instr in = i_nop();
	uint64_t w;

	switch (rnd(16)) {
	case 0:
		return t_rand(&rng);
	case 1:
		in = i_ldi(rnd_waddr(),
			   rnd(4) ? rnd_addr() : (uint32_t)t_rand(&rng));
		in.kind = rnd(4) ? QPU_ISA_KIND_LDI :
			(rnd(2) ? QPU_ISA_KIND_LDI_PES : QPU_ISA_KIND_LDI_PEU);
		in.ws = rnd(2);
		in.sf = rnd(2);
		in.waddr_mul = rnd_waddr();
		in.cond_mul = rnd(8);
		in.cond_add = rnd(8);
		in.pm = rnd(2);
		in.pack = in.pm ? 3 + rnd(5) : rnd(16);
		break;
	case 2:
		in = i_sema(rnd(16), rnd(2));
		break;
	case 3:
		in = i_branch(rnd(4) ? QPU_ISA_BR_ALWAYS : rnd(12), rnd(2),
			      rnd(2) ? 8 * (rnd(WORDS) - WORDS / 2) :
			      CODE_BASE + 8 * rnd(WORDS));
		in.waddr_add = rnd(64);
		in.br_reg = !rnd(4);
		if (in.br_reg)
			in.raddr_a = rnd(32);
		break;
	case 4:
	case 5:
	case 6:
		rnd_compute(&in);
		break;
	default:
		in.kind = rnd(3) ? QPU_ISA_KIND_ALU : QPU_ISA_KIND_ALU_SMALL_IMM;
		in.sig = in.kind == QPU_ISA_KIND_ALU ? rnd_sig() : 0;
		do {
			in.op_add = rnd(QPU_ISA_NUM_ADD_OPS);
		} while (!qpu_isa_add_ops[in.op_add].name);
		in.op_mul = rnd(8);
		in.cond_add = rnd(8);
		in.cond_mul = rnd(8);
		in.waddr_add = rnd_waddr();
		in.waddr_mul = rnd_waddr();
		in.raddr_a = rnd_raddr();
		in.raddr_b = in.kind == QPU_ISA_KIND_ALU ? rnd_raddr() : rnd(64);
		in.add_a = rnd(8);
		in.add_b = rnd(8);
		in.mul_a = rnd(8);
		in.mul_b = rnd(8);
		in.sf = rnd(2);
		in.ws = rnd(2);
		in.unpack = rnd(8);
		in.pm = rnd(2);
		in.pack = in.pm ? (rnd(2) ? 0 : 3 + rnd(5)) : rnd(16);
		break;
	}
	if (qpu_isa_encode(&in, &w))
		return t_rand(&rng);
	return w;
}

struct outcome {
	enum qpu_emu_status status;
	struct qpu_emu_stats stats;
	struct qpu_fault fault;
	uint32_t out_sum;
	uint64_t state_sum;
};

static void mix(uint64_t *h, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--) {
		*h ^= *b++;
		*h *= 1099511628211ull;
	}
}

/* FNV-1a over everything qpu_emu's inspection calls show. */
static uint64_t state_digest(const struct qpu_emu *emu)
{
	uint64_t h = 1469598103934665603ull;

	for (unsigned int q = 0; q < QPU_EMU_NUM_QPUS; q++) {
		uint32_t r[16], pc;
		uint16_t z, n, c;
		int st;

		for (unsigned int i = 0; i < 32; i++) {
			qpu_emu_get_reg(emu, q, QPU_EMU_FILE_A, i, r);
			mix(&h, r, sizeof(r));
			qpu_emu_get_reg(emu, q, QPU_EMU_FILE_B, i, r);
			mix(&h, r, sizeof(r));
		}
		for (unsigned int i = 0; i < 6; i++) {
			qpu_emu_get_reg(emu, q, QPU_EMU_FILE_ACC, i, r);
			mix(&h, r, sizeof(r));
		}
		qpu_emu_get_flags(emu, q, &z, &n, &c);
		mix(&h, &z, 2);
		mix(&h, &n, 2);
		mix(&h, &c, 2);
		st = qpu_emu_get_qpu_state(emu, q, &pc);
		mix(&h, &st, sizeof(st));
		mix(&h, &pc, sizeof(pc));
	}
	for (unsigned int i = 0; i < QPU_EMU_NUM_SEMAPHORES; i++) {
		int v = qpu_emu_get_semaphore(emu, i);

		mix(&h, &v, sizeof(v));
	}
	mix(&h, qpu_emu_get_vpm(emu), QPU_EMU_VPM_WORDS * 4);
	return h;
}

static uint32_t checksum(void)
{
	uint32_t s = 0, *o = t_words(OUT_BASE), *d = t_words(DATA_BASE);

	for (unsigned int i = 0; i < REGION_BYTES / 4; i++)
		s = s * 31 + o[i] + d[i] * 7;
	return s;
}

static void run(uint32_t seed, const uint64_t *code, bool predecode,
		struct outcome *o)
{
	struct qpu_emu *emu = t_emu_new(seed);
	uint32_t *u = t_words(UNIF_BASE);

	qpu_emu_set_predecode(emu, predecode);
	for (unsigned int i = 0; i < WORDS; i++) {
		uint32_t *w = t_words(CODE_BASE + 8 * i);

		w[0] = (uint32_t)code[i];
		w[1] = (uint32_t)(code[i] >> 32);
	}
	memset(t_words(OUT_BASE), 0, REGION_BYTES);
	for (unsigned int i = 0; i < REGION_BYTES / 4; i++) {
		t_words(DATA_BASE)[i] = i * 0x01000193u;
		u[i] = i & 1 ? DATA_BASE + 4 * (i & 255) : OUT_BASE + 64 * i;
	}
	for (unsigned int k = 0; k < QPU_EMU_NUM_QPUS; k++)
		T_EQ_U64(k, qpu_emu_start(emu, CODE_BASE + 8 * (k % 4),
					  UNIF_BASE + 256 * k));
	o->status = qpu_emu_run(emu, 20000);
	o->stats = *qpu_emu_get_stats(emu);
	o->fault = *qpu_emu_get_fault(emu);
	o->out_sum = checksum();
	o->state_sum = state_digest(emu);
	{
		char text[1024];

		T_CHECK(qpu_emu_describe(emu, text, sizeof(text)) <
			sizeof(text));
	}
	free(emu);
}

T_TEST(random_programs)
{
	unsigned int counts[4] = { 0 }, dma_loads = 0, dma_stores = 0;
	uint64_t code[WORDS], thrend;
	struct qpu_isa_instr end = i_sig(QPU_ISA_SIG_THREND);
	int ret = qpu_isa_encode(&end, &thrend);

	T_EQ_U64(0, ret);

	for (unsigned int n = 0; n < PROGRAMS; n++) {
		struct outcome a, b;
		uint32_t seed = n % 3 ? (uint32_t)t_rand(&rng) | 1 : 0;

		/* a quarter flag-heavy, an eighth DMA-shaped */
		if (n % 8 == 1)
			rnd_dma_program(code, WORDS);
		for (unsigned int i = 0, br = 0; n % 8 != 1 && i < WORDS; i++) {
			code[i] = n % 4 == 3 ? rnd_flag_word(i >= br + 4) :
				rnd_word();
			if ((code[i] >> 60) == 15)	/* a branch */
				br = i;
		}
		if (n % 2)	/* let some programs end */
			code[WORDS - 3] = thrend;
		run(seed, code, true, &a);
		run(seed, code, false, &b);
		T_CHECK(a.status <= QPU_EMU_DEADLOCK);
		T_EQ_U64(a.status, b.status);
		T_CHECK(!memcmp(&a.stats, &b.stats, sizeof(a.stats)));
		T_EQ_U64(a.out_sum, b.out_sum);
		T_EQ_U64(a.state_sum, b.state_sum);
		if (a.status == QPU_EMU_FAULT) {
			T_EQ_U64(a.fault.pc, b.fault.pc);
			T_EQ_U64(a.fault.addr, b.fault.addr);
			T_EQ_U64(a.fault.reason, b.fault.reason);
			T_CHECK(a.fault.qpu < QPU_EMU_NUM_QPUS);
		}
		counts[a.status]++;
		if (n % 8 == 1) {
			dma_loads += a.stats.dma_load_bytes > 0;
			dma_stores += a.stats.dma_store_bytes > 0;
		}
	}
	printf("outcomes: %u idle, %u running, %u fault, %u deadlock\n",
	       counts[0], counts[1], counts[2], counts[3]);
	/* the DMA-shaped programs must mostly reach their transfers */
	printf("DMA-shaped: %u of %u loaded, %u stored\n", dma_loads,
	       PROGRAMS / 8, dma_stores);
	T_CHECK(dma_loads > PROGRAMS / 16 && dma_stores > PROGRAMS / 16);
}

T_MAIN()
