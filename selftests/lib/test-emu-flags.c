// SPDX-License-Identifier: MIT
/*
 * test-emu-flags: the flags as the emulator keeps them (computed from the
 * last setf's result only when something reads them) and as its fast path
 * sets them. Each program sets the flags with fadd or fmul (instructions
 * the fast path runs) on lanes holding +-0, denormals, NaNs, infinities
 * and both signs, then reads them: by qpu_emu_get_flags() after thread
 * end, by conditional writes and branches, across a thread switch, after
 * a fault, and merged with a setf of fewer lanes; and an integer add's
 * carries. The expected flags come from the float reference
 * (qpu_emu_fadd(), qpu_emu_fmul()) and host integers; every program
 * runs with predecoding on and off and must give the same state.
 */
#include "qpu_emu_float.h"
#include "test-emu.h"

#define RA_VARYING	35	/* reading it faults */

/* Each lane plus the next: +0, -0 (-0 + -denormal), NaNs, Inf - Inf... */
static const uint32_t lanes[16] = {
	0x00000000, 0x80000000, 0x80000001, 0x3f800000, /* +0, -0, -den., 1 */
	0xbf800000, 0x00000001, 0x7f800000, 0xff800000, /* -1, den., +-Inf */
	0x7fc00000, 0xffc00000, 0x40200000, 0xc0400000, /* +-NaN, 2.5, -3 */
	0x7f7fffff, 0xff7fffff, 0x00800000, 0x80800000, /* +-max, +-min */
};

/* Z and N of float results @v, one bit per lane. */
static void ref_flags(const uint32_t *v, uint16_t *z, uint16_t *n)
{
	*z = 0;
	*n = 0;
	for (int i = 0; i < 16; i++) {
		*z |= (uint16_t)(!(v[i] & 0x7fffffff) << i);
		*n |= (uint16_t)((v[i] >> 31) << i);
	}
}

/* r4 = lanes[] (TMU0), r2 = lanes[] rotated by one lane (TMU0 again). */
static void emit_load(struct prog *p)
{
	struct qpu_isa_instr in = i_smi(i_add(QPU_ISA_A_SHL, W_R1,
					      QPU_ISA_MUX_A, QPU_ISA_MUX_B), 2);

	memcpy(t_words(DATA_BASE), lanes, 64);
	for (int i = 0; i < 16; i++)
		t_words(DATA_BASE + 64)[i] = lanes[(i + 1) & 15];
	t_words(UNIF_BASE)[0] = DATA_BASE + 64;
	t_words(UNIF_BASE)[1] = DATA_BASE;
	in.raddr_a = R_ELEM;
	emit(p, in);
	for (int k = 0; k < 2; k++) {
		in = i_add(QPU_ISA_A_ADD, W_TMU0_S, QPU_ISA_MUX_R1,
			   QPU_ISA_MUX_A);
		in.raddr_a = R_UNIF;
		emit(p, in);
	}
	emit(p, i_sig(QPU_ISA_SIG_LDTMU0));
	in = i_mov(W_R2, QPU_ISA_MUX_R4);
	in.sig = QPU_ISA_SIG_LDTMU0;
	emit(p, in);
}

/* fadd.setf r3, r4, r2: an instruction the fast path runs */
static struct qpu_isa_instr i_fadd_setf(void)
{
	struct qpu_isa_instr in = i_add(QPU_ISA_A_FADD, W_R3, QPU_ISA_MUX_R4,
					QPU_ISA_MUX_R2);

	in.sf = true;
	return in;
}

struct state {
	enum qpu_emu_status status;
	uint16_t z, n, c;
	uint32_t r[6][16];
	uint32_t ra[32][16];
};

static void run(bool predecode, struct state *s)
{
	struct qpu_emu *emu = t_emu_new(0);

	qpu_emu_set_predecode(emu, predecode);
	s->status = t_run1(emu, CODE_BASE, UNIF_BASE);
	qpu_emu_get_flags(emu, 0, &s->z, &s->n, &s->c);
	for (unsigned int i = 0; i < 6; i++)
		qpu_emu_get_reg(emu, 0, QPU_EMU_FILE_ACC, i, s->r[i]);
	for (unsigned int i = 0; i < 32; i++)
		qpu_emu_get_reg(emu, 0, QPU_EMU_FILE_A, i, s->ra[i]);
	free(emu);
}

/* The program at CODE_BASE, both ways; the predecoded run's state. */
static void run_both(struct state *s)
{
	struct state ref;

	run(false, &ref);
	run(true, s);
	T_EQ_U64(ref.status, s->status);
	T_EQ_U64(ref.z, s->z);
	T_EQ_U64(ref.n, s->n);
	T_EQ_U64(ref.c, s->c);
	T_CHECK(!memcmp(ref.r, s->r, sizeof(ref.r)));
	T_CHECK(!memcmp(ref.ra, s->ra, sizeof(ref.ra)));
}

/* r4 + r2 and r4 * r2 of the lanes above, from the float reference. */
static void ref_results(uint32_t *sum, uint32_t *prod)
{
	for (int i = 0; i < 16; i++) {
		sum[i] = qpu_emu_fadd(lanes[i], lanes[(i + 1) & 15]);
		prod[i] = qpu_emu_fmul(lanes[i], lanes[(i + 1) & 15]);
	}
}

/* Z and N of fadd.setf r3, r4, r2 on the lanes above. */
static void fadd_flags(uint16_t *z, uint16_t *n)
{
	uint32_t sum[16], prod[16];

	ref_results(sum, prod);
	ref_flags(sum, z, n);
}

/* fadd.setf, then thread end: qpu_emu_get_flags() sees the fadd's. */
T_TEST(fadd_then_end)
{
	struct prog p = prog_at(CODE_BASE);
	uint32_t sum[16], prod[16];
	uint16_t z, n;
	struct state s;

	ref_results(sum, prod);
	ref_flags(sum, &z, &n);
	emit_load(&p);
	emit(&p, i_fadd_setf());
	emit_end(&p);
	run_both(&s);
	T_EQ_U64(QPU_EMU_IDLE, s.status);
	T_CHECK(!memcmp(sum, s.r[3], sizeof(sum)));
	T_EQ_U64(z, s.z);
	T_EQ_U64(n, s.n);
	T_EQ_U64(0, s.c);
}

/*
 * fmul.setf alone (flags from the mul), and fadd.setf with an fmul writing
 * the same register (flags from the add, the register the mul's).
 */
T_TEST(mul_flags)
{
	struct prog p = prog_at(CODE_BASE);
	uint32_t sum[16], prod[16];
	struct qpu_isa_instr in;
	uint16_t z, n;
	struct state s;

	ref_results(sum, prod);
	ref_flags(prod, &z, &n);
	emit_load(&p);
	in = i_mul(QPU_ISA_M_FMUL, W_R3, QPU_ISA_MUX_R4, QPU_ISA_MUX_R2);
	in.sf = true;
	emit(&p, in);
	emit_end(&p);
	run_both(&s);
	T_CHECK(!memcmp(prod, s.r[3], sizeof(prod)));
	T_EQ_U64(z, s.z);
	T_EQ_U64(n, s.n);

	p = prog_at(CODE_BASE);
	ref_flags(sum, &z, &n);
	emit_load(&p);
	in = i_fadd_setf();
	in.op_mul = QPU_ISA_M_FMUL;
	in.cond_mul = QPU_ISA_COND_ALWAYS;
	in.waddr_mul = W_R3;
	in.mul_a = QPU_ISA_MUX_R4;
	in.mul_b = QPU_ISA_MUX_R2;
	emit(&p, in);
	emit_end(&p);
	run_both(&s);
	T_CHECK(!memcmp(prod, s.r[3], sizeof(prod)));
	T_EQ_U64(z, s.z);
	T_EQ_U64(n, s.n);
}

/*
 * Conditions and branches read flags the fast path set, across a thread
 * switch: ldi.ifz ra1, 1 and ldi.ifnc ra2, 2 after fadd.setf with thrsw;
 * then brr.anyns over an ldi ra3, 3 (taken: a lane is negative) and
 * brr.allzs over ldi ra4, 4 (not taken).
 */
T_TEST(conditions_and_branches)
{
	struct prog p = prog_at(CODE_BASE);
	struct qpu_isa_instr in;
	uint16_t z, n;
	struct state s;

	fadd_flags(&z, &n);
	T_CHECK(n && z != 0xffff);	/* the branches below go both ways */
	emit_load(&p);
	in = i_fadd_setf();
	in.sig = QPU_ISA_SIG_THRSW;
	emit(&p, in);
	in = i_ldi(1, 1);
	in.cond_add = QPU_ISA_COND_ZS;
	emit(&p, in);
	in = i_ldi(2, 2);
	in.cond_add = QPU_ISA_COND_NC;
	emit(&p, in);
	emit(&p, i_branch(QPU_ISA_BR_ANYNS, true, 8));	/* skips ra3 */
	for (int i = 0; i < 3; i++)
		emit(&p, i_nop());
	emit(&p, i_ldi(3, 3));
	emit(&p, i_branch(QPU_ISA_BR_ALLZS, true, 8));	/* not taken */
	for (int i = 0; i < 3; i++)
		emit(&p, i_nop());
	emit(&p, i_ldi(4, 4));
	emit_end(&p);
	run_both(&s);
	T_EQ_U64(QPU_EMU_IDLE, s.status);
	for (int i = 0; i < 16; i++) {
		T_EQ_U64(z >> i & 1 ? 1 : 0, s.ra[1][i]);
		T_EQ_U64(n >> i & 1 ? 0 : 2, s.ra[2][i]);
		T_EQ_U64(0, s.ra[3][i]);
		T_EQ_U64(4, s.ra[4][i]);
	}
	T_EQ_U64(z, s.z);
	T_EQ_U64(n, s.n);
}

/* fadd.setf, then a fault: the stopped QPU's flags are the fadd's. */
T_TEST(flags_after_fault)
{
	struct prog p = prog_at(CODE_BASE);
	uint16_t z, n;
	struct state s;

	fadd_flags(&z, &n);
	emit_load(&p);
	emit(&p, i_fadd_setf());
	emit(&p, i_read(RA_VARYING, R_NOP));
	emit_end(&p);
	run_both(&s);
	T_EQ_U64(QPU_EMU_FAULT, s.status);
	T_EQ_U64(z, s.z);
	T_EQ_U64(n, s.n);
}

/*
 * A setf of fewer lanes after a pending one of all: fadd.setf, then
 * sub.setf.ifn r0, r4, r4 (Z set, N and C clear where N was): the other
 * lanes keep the fadd's flags.
 */
T_TEST(partial_setf)
{
	struct prog p = prog_at(CODE_BASE);
	struct qpu_isa_instr in;
	uint16_t z, n;
	struct state s;

	fadd_flags(&z, &n);
	emit_load(&p);
	emit(&p, i_fadd_setf());
	in = i_add(QPU_ISA_A_SUB, W_R0, QPU_ISA_MUX_R4, QPU_ISA_MUX_R4);
	in.cond_add = QPU_ISA_COND_NS;
	in.sf = true;
	emit(&p, in);
	emit_end(&p);
	run_both(&s);
	T_EQ_U64(z | n, s.z);
	T_EQ_U64(0, s.n);
	T_EQ_U64(0, s.c);
}

/*
 * An ldi's condition reads the flags from before it, also when it sets
 * them: after fadd.setf, ldi.ifnc.setf ra5, 0x80000000 writes the lanes
 * whose N was clear (and sets N there, clears Z); the rest keep the fadd's.
 */
T_TEST(ldi_setf_condition)
{
	struct prog p = prog_at(CODE_BASE);
	struct qpu_isa_instr in;
	uint16_t z, n;
	struct state s;

	fadd_flags(&z, &n);
	T_CHECK(n && n != 0xffff);	/* lanes both ways */
	emit_load(&p);
	emit(&p, i_fadd_setf());
	in = i_ldi(5, 0x80000000u);
	in.cond_add = QPU_ISA_COND_NC;
	in.sf = true;
	emit(&p, in);
	emit_end(&p);
	run_both(&s);
	T_EQ_U64(QPU_EMU_IDLE, s.status);
	for (int i = 0; i < 16; i++)
		T_EQ_U64(n >> i & 1 ? 0 : 0x80000000u, s.ra[5][i]);
	T_EQ_U64(0xffff, s.n);
	T_EQ_U64(z & n, s.z);
}

/*
 * Integer ops take the fast path too: add.setf r3, r4, r2 and a mul24 into
 * r1 in the same instruction give the add's Z, N and carries.
 */
T_TEST(integer_setf)
{
	struct prog p = prog_at(CODE_BASE);
	struct qpu_isa_instr in;
	uint16_t z = 0, n = 0, c = 0;
	struct state s;

	emit_load(&p);
	in = i_add(QPU_ISA_A_ADD, W_R3, QPU_ISA_MUX_R4, QPU_ISA_MUX_R2);
	in.op_mul = QPU_ISA_M_MUL24;
	in.cond_mul = QPU_ISA_COND_ALWAYS;
	in.waddr_mul = W_R1;
	in.mul_a = QPU_ISA_MUX_R4;
	in.mul_b = QPU_ISA_MUX_R2;
	in.sf = true;
	emit(&p, in);
	emit_end(&p);
	run_both(&s);
	for (int i = 0; i < 16; i++) {
		uint32_t a = lanes[i], b = lanes[(i + 1) & 15], v = a + b;

		T_EQ_U64(v, s.r[3][i]);
		T_EQ_U64((a & 0xffffff) * (b & 0xffffff), s.r[1][i]);
		z |= (uint16_t)(!v << i);
		n |= (uint16_t)((v >> 31) << i);
		c |= (uint16_t)((v < a) << i);
	}
	T_CHECK(c && n);	/* the lanes above give both */
	T_EQ_U64(z, s.z);
	T_EQ_U64(n, s.n);
	T_EQ_U64(c, s.c);
}

T_MAIN()
