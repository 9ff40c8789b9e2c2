// SPDX-License-Identifier: MIT
/*
 * test-emu-alu: every add and mul opcode of the emulator on chosen and
 * random inputs against values computed here on the host, with the Z/N/C
 * flags they set; write conditions, small immediates and vector rotation,
 * pack and unpack, load immediates (32-bit and per element) and r5 writes.
 * Operands reach the ALUs through TMU loads, so the TMU path is used too.
 */
#include "qpu_emu_float.h"
#include "test-emu.h"

/* No libm in the test link: the few helpers needed, for finite inputs. */
static long round_half_up(double v)
{
	return (long)(v + 0.5);
}

static float abs_f(float v)
{
	return t_u2f(t_f2u(v) & 0x7fffffffu);
}

#define RANDOM_SEED	0x243f6a8885a308d3ull
#define RANDOM_ROUNDS	40

static uint64_t rng = RANDOM_SEED;

/* Every case starts the sequence afresh: alone, it draws as in a full run. */
static void reseed(void)
{
	rng = RANDOM_SEED;
}

/* Host float with denormals flushed, as the QPU sees them. */
static float flushf(float f)
{
	uint32_t u = t_f2u(f);

	if (!(u & 0x7f800000u))
		u &= 0x80000000u;
	return t_u2f(u);
}

static uint32_t flush_u(uint32_t u)
{
	return t_f2u(flushf(t_u2f(u)));
}

static bool fgt(uint32_t a, uint32_t b)
{
	float x = flushf(t_u2f(a)), y = flushf(t_u2f(b));

	if (x == y)	/* -0 orders below +0 */
		return !(flush_u(a) >> 31) && (flush_u(b) >> 31);
	return x > y;
}

static uint32_t ref_v8(unsigned int op, uint32_t a, uint32_t b)
{
	uint32_t r = 0;

	for (int i = 0; i < 32; i += 8) {
		int x = (a >> i) & 255, y = (b >> i) & 255, v;

		switch (op) {
		case QPU_ISA_M_V8MULD:
			v = (int)round_half_up(x * y / 255.0);
			break;
		case QPU_ISA_M_V8MIN:
			v = x < y ? x : y;
			break;
		case QPU_ISA_M_V8MAX:
			v = x > y ? x : y;
			break;
		case QPU_ISA_M_V8ADDS:
			v = x + y > 255 ? 255 : x + y;
			break;
		default:
			v = x - y < 0 ? 0 : x - y;
			break;
		}
		r |= (uint32_t)v << i;
	}
	return r;
}

static uint32_t ref_add(unsigned int op, uint32_t a, uint32_t b, bool *c)
{
	float x = flushf(t_u2f(a)), y = flushf(t_u2f(b));
	uint32_t s = b & 31;

	*c = false;
	switch (op) {
	case QPU_ISA_A_FADD:
		return flush_u(t_f2u(x + y));
	case QPU_ISA_A_FSUB:
		return flush_u(t_f2u(x - y));
	case QPU_ISA_A_FMIN:
		*c = fgt(a, b);
		return *c ? flush_u(b) : flush_u(a);
	case QPU_ISA_A_FMAX:
		*c = fgt(a, b);
		return *c ? flush_u(a) : flush_u(b);
	case QPU_ISA_A_FMINABS:
		*c = fgt(a & 0x7fffffff, b & 0x7fffffff);
		return flush_u(t_f2u(abs_f(x) < abs_f(y) ? abs_f(x) : abs_f(y)));
	case QPU_ISA_A_FMAXABS:
		*c = fgt(a & 0x7fffffff, b & 0x7fffffff);
		return flush_u(t_f2u(abs_f(x) > abs_f(y) ? abs_f(x) : abs_f(y)));
	case QPU_ISA_A_FTOI:
		return (uint32_t)(int32_t)x;
	case QPU_ISA_A_ITOF:
		return t_host_itof((int32_t)a);
	case QPU_ISA_A_ADD:
		*c = (uint64_t)a + b > 0xffffffffu;
		return a + b;
	case QPU_ISA_A_SUB:
		*c = a < b;
		return a - b;
	case QPU_ISA_A_SHR:
		return a >> s;
	case QPU_ISA_A_ASR:
		return (uint32_t)((int32_t)a >> s);
	case QPU_ISA_A_ROR:
		return s ? (a >> s) | (a << (32 - s)) : a;
	case QPU_ISA_A_SHL:
		return a << s;
	case QPU_ISA_A_MIN:
		*c = (int32_t)a > (int32_t)b;
		return (int32_t)a < (int32_t)b ? a : b;
	case QPU_ISA_A_MAX:
		*c = (int32_t)a > (int32_t)b;
		return (int32_t)a > (int32_t)b ? a : b;
	case QPU_ISA_A_AND:
		return a & b;
	case QPU_ISA_A_OR:
		return a | b;
	case QPU_ISA_A_XOR:
		return a ^ b;
	case QPU_ISA_A_NOT:
		return ~a;
	case QPU_ISA_A_CLZ:
		return a ? (uint32_t)__builtin_clz(a) : 32;
	case QPU_ISA_A_V8ADDS:
		return ref_v8(QPU_ISA_M_V8ADDS, a, b);
	case QPU_ISA_A_V8SUBS:
		return ref_v8(QPU_ISA_M_V8SUBS, a, b);
	}
	return 0;
}

static uint32_t ref_mul(unsigned int op, uint32_t a, uint32_t b)
{
	switch (op) {
	case QPU_ISA_M_FMUL:
		return flush_u(t_f2u(flushf(t_u2f(a)) * flushf(t_u2f(b))));
	case QPU_ISA_M_MUL24:
		return (a & 0xffffff) * (b & 0xffffff);
	default:
		return ref_v8(op, a, b);
	}
}

/*
 * Load @a into r2 and @b into r4 (TMU0), run @op, read r3 and the flags.
 * Program: r1 = elem_num << 2; t0s = r1 + unif (twice); ldtmu0;
 * r2 = r4, ldtmu0; r3 = op(r2, r4).setf; thrend.
 */
static void run_op(struct qpu_isa_instr op, const uint32_t *a,
		   const uint32_t *b, uint32_t *out, uint16_t *z,
		   uint16_t *n, uint16_t *c)
{
	struct qpu_emu *emu = t_emu_new(0);
	struct prog p = prog_at(CODE_BASE);
	struct qpu_isa_instr in = i_add(QPU_ISA_A_SHL, W_R1, QPU_ISA_MUX_A,
					QPU_ISA_MUX_B);
	uint32_t *unif = t_words(UNIF_BASE);
	enum qpu_emu_status st;

	memcpy(t_words(DATA_BASE), a, 64);
	memcpy(t_words(DATA_BASE + 64), b, 64);
	unif[0] = DATA_BASE;
	unif[1] = DATA_BASE + 64;
	in.kind = QPU_ISA_KIND_ALU_SMALL_IMM;
	in.raddr_a = R_ELEM;
	in.raddr_b = 2;
	emit(&p, in);
	for (int k = 0; k < 2; k++) {
		in = i_add(QPU_ISA_A_ADD, W_TMU0_S, QPU_ISA_MUX_R1,
			   QPU_ISA_MUX_A);
		in.raddr_a = R_UNIF;
		emit(&p, in);
	}
	emit(&p, i_sig(QPU_ISA_SIG_LDTMU0));
	in = i_mov(W_R2, QPU_ISA_MUX_R4);
	in.sig = QPU_ISA_SIG_LDTMU0;
	emit(&p, in);
	emit(&p, op);
	emit_end(&p);
	st = t_run1(emu, CODE_BASE, UNIF_BASE);
	T_EQ_U64(QPU_EMU_IDLE, st);
	qpu_emu_get_reg(emu, 0, QPU_EMU_FILE_ACC, 3, out);
	qpu_emu_get_flags(emu, 0, z, n, c);
	free(emu);
}

static void check_lanes(const char *what, unsigned int op, const uint32_t *a,
			const uint32_t *b, const uint32_t *exp,
			const uint32_t *got)
{
	for (int i = 0; i < 16; i++) {
		t_checks++;
		if (exp[i] != got[i]) {
			char m[200];

			snprintf(m, sizeof(m),
				 "%s op %u lane %d: %08x, %08x -> expected %08x got %08x",
				 what, op, i,
				 a[i], b[i], exp[i], got[i]);
			t_report(__FILE__, __LINE__, m);
		}
	}
}

static uint32_t rand_float(void)
{
	/* exponents well inside the normal range, both signs */
	uint32_t r = (uint32_t)t_rand(&rng);
	uint32_t e = 64 + (r >> 8) % 128;

	return (r & 0x80000000u) | e << 23 | ((uint32_t)t_rand(&rng) & 0x7fffff);
}

static void fill_inputs(unsigned int round, bool is_float, uint32_t *a,
			uint32_t *b)
{
	static const uint32_t ints[] = {
		0, 1, 2, 31, 32, 33, 0x7fffffff, 0x80000000u, 0xffffffffu,
		0xfffffffeu, 0x12345678, 0xff00ff00u, 0x00ff00ffu, 0x80,
		0xffffff, 0x1000000,
	};
	static const float floats[] = {
		0.0f, -0.0f, 1.0f, -1.0f, 1.5f, 3.25f, -7.75f, 1e10f,
		-1.0f / 1e10f, 65504.0f, 0.1f, 1e38f, -3e38f, 2.5f, 1.0f / 1e37f,
		100.0f,
	};

	for (int i = 0; i < 16; i++) {
		if (round == 0) {
			a[i] = is_float ? t_f2u(floats[i]) : ints[i];
			b[i] = is_float ? t_f2u(floats[(i * 7 + 3) & 15]) :
				ints[(i * 7 + 3) & 15];
		} else if (is_float) {
			a[i] = rand_float();
			b[i] = rand_float();
		} else {
			a[i] = (uint32_t)t_rand(&rng);
			b[i] = (uint32_t)t_rand(&rng);
		}
	}
}

T_TEST(add_ops)
{
	for (unsigned int op = 1; op < QPU_ISA_NUM_ADD_OPS; op++) {
		uint32_t fl = qpu_isa_add_ops[op].flags;
		bool fin = fl & QPU_ISA_OP_FLOAT_IN;

		if (!qpu_isa_add_ops[op].name)
			continue;
		for (unsigned int round = 0; round < RANDOM_ROUNDS; round++) {
			uint32_t a[16], b[16], got[16], exp[16];
			uint16_t z, n, c, ez = 0, en = 0, ec = 0;
			struct qpu_isa_instr in = i_add(op, W_R3, QPU_ISA_MUX_R2,
							QPU_ISA_MUX_R4);

			fill_inputs(round, fin, a, b);
			if (op == QPU_ISA_A_FTOI)
				for (int i = 0; i < 16; i++)	/* in range */
					if (((a[i] >> 23) & 0xff) > 157)
						a[i] = t_f2u(1234.5f);
			in.sf = true;
			run_op(in, a, b, got, &z, &n, &c);
			for (int i = 0; i < 16; i++) {
				bool cy;

				exp[i] = ref_add(op, a[i], b[i], &cy);
				if (fl & QPU_ISA_OP_FLOAT_OUT ?
				    !(exp[i] & 0x7fffffff) : !exp[i])
					ez |= 1 << i;
				en |= (exp[i] >> 31) << i;
				ec |= cy << i;
			}
			check_lanes(qpu_isa_add_ops[op].name, op, a, b, exp,
				    got);
			T_EQ_U64(ez, z);
			T_EQ_U64(en, n);
			T_EQ_U64(ec, c);
		}
	}
}

T_TEST(mul_ops)
{
	for (unsigned int op = 1; op < QPU_ISA_NUM_MUL_OPS; op++) {
		bool fin = qpu_isa_mul_ops[op].flags & QPU_ISA_OP_FLOAT_IN;

		for (unsigned int round = 0; round < RANDOM_ROUNDS; round++) {
			uint32_t a[16], b[16], got[16], exp[16];
			uint16_t z, n, c, ez = 0, en = 0;
			struct qpu_isa_instr in = i_mul(op, W_R3, QPU_ISA_MUX_R2,
							QPU_ISA_MUX_R4);

			fill_inputs(round, fin, a, b);
			in.sf = true;	/* add is nop: flags from mul */
			run_op(in, a, b, got, &z, &n, &c);
			for (int i = 0; i < 16; i++) {
				exp[i] = ref_mul(op, a[i], b[i]);
				if (fin ? !(exp[i] & 0x7fffffff) : !exp[i])
					ez |= 1 << i;
				en |= (exp[i] >> 31) << i;
			}
			check_lanes(qpu_isa_mul_ops[op].name, op, a, b, exp,
				    got);
			T_EQ_U64(ez, z);
			T_EQ_U64(en, n);
			T_EQ_U64(0, c);
		}
	}
}

/* A program body run after r2 = a, r4 = b are loaded; results read back. */
static void run_body(const struct qpu_isa_instr *body, unsigned int count,
		     const uint32_t *a, const uint32_t *b,
		     struct qpu_emu **keep)
{
	struct qpu_emu *emu = t_emu_new(0);
	struct prog p = prog_at(CODE_BASE);
	struct qpu_isa_instr in = i_add(QPU_ISA_A_SHL, W_R1, QPU_ISA_MUX_A,
					QPU_ISA_MUX_B);
	uint32_t *unif = t_words(UNIF_BASE);

	memcpy(t_words(DATA_BASE), a, 64);
	memcpy(t_words(DATA_BASE + 64), b, 64);
	unif[0] = DATA_BASE;
	unif[1] = DATA_BASE + 64;
	in.kind = QPU_ISA_KIND_ALU_SMALL_IMM;
	in.raddr_a = R_ELEM;
	in.raddr_b = 2;
	emit(&p, in);
	for (int k = 0; k < 2; k++) {
		in = i_add(QPU_ISA_A_ADD, W_TMU0_S, QPU_ISA_MUX_R1,
			   QPU_ISA_MUX_A);
		in.raddr_a = R_UNIF;
		emit(&p, in);
	}
	emit(&p, i_sig(QPU_ISA_SIG_LDTMU0));
	in = i_mov(W_R2, QPU_ISA_MUX_R4);
	in.sig = QPU_ISA_SIG_LDTMU0;
	emit(&p, in);
	for (unsigned int k = 0; k < count; k++)
		emit(&p, body[k]);
	emit_end(&p);
	T_EQ_U64(QPU_EMU_IDLE, t_run1(emu, CODE_BASE, UNIF_BASE));
	*keep = emu;
}

static void get(struct qpu_emu *emu, enum qpu_emu_file f, unsigned int r,
		uint32_t *out)
{
	T_EQ_U64(0, qpu_emu_get_reg(emu, 0, f, r, out));
}

T_TEST(conditions)
{
	uint32_t a[16], b[16], r[16];
	struct qpu_isa_instr body[16];
	struct qpu_emu *emu;
	unsigned int k = 0;

	for (int i = 0; i < 16; i++) {
		a[i] = (uint32_t)(i - 8);	/* N for 0..7, Z for 8 */
		b[i] = 100 + i;
	}
	/* r3 = 0; sub.setf -, r2, 0 via xor; then each condition writes */
	body[k++] = i_add(QPU_ISA_A_XOR, W_R3, QPU_ISA_MUX_R2, QPU_ISA_MUX_R2);
	body[k] = i_add(QPU_ISA_A_OR, W_NOP, QPU_ISA_MUX_R2, QPU_ISA_MUX_R2);
	body[k++].sf = true;
	for (unsigned int cond = 0; cond < 8; cond++) {
		body[k] = i_add(QPU_ISA_A_OR, 0 + cond, QPU_ISA_MUX_R4,
				QPU_ISA_MUX_R4);
		body[k].cond_add = cond;
		k++;
	}
	run_body(body, k, a, b, &emu);
	for (unsigned int cond = 0; cond < 8; cond++) {
		get(emu, QPU_EMU_FILE_A, cond, r);
		for (int i = 0; i < 16; i++) {
			bool zs = a[i] == 0, ns = a[i] >> 31, on;

			switch (cond) {
			case 0:
				on = false;
				break;
			case 1:
				on = true;
				break;
			case 2:
				on = zs;
				break;
			case 3:
				on = !zs;
				break;
			case 4:
				on = ns;
				break;
			case 5:
				on = !ns;
				break;
			case 6:
				on = false;
				break;
				/* or clears C */;
			default:
				on = true;
				break;
			}
			T_EQ_U64(on ? b[i] : 0, r[i]);
		}
	}
	free(emu);

	/* Flags change only in lanes whose condition holds. */
	k = 0;
	body[k] = i_add(QPU_ISA_A_OR, W_NOP, QPU_ISA_MUX_R2, QPU_ISA_MUX_R2);
	body[k++].sf = true;		/* N = lanes 0..7 */
	body[k] = i_add(QPU_ISA_A_SUB, W_NOP, QPU_ISA_MUX_R4, QPU_ISA_MUX_R4);
	body[k].sf = true;		/* Z everywhere it is written */
	body[k++].cond_add = QPU_ISA_COND_NS;
	run_body(body, k, a, b, &emu);
	{
		uint16_t z, n, c;

		qpu_emu_get_flags(emu, 0, &z, &n, &c);
		T_EQ_U64(0x01ff, z);	/* lanes 0..7 from sub, 8 from or */
		T_EQ_U64(0, n);
	}
	free(emu);
}

T_TEST(small_imm_rotate)
{
	uint32_t a[16], b[16], r[16];
	struct qpu_isa_instr body[8], in;
	struct qpu_emu *emu;
	unsigned int k = 0;

	for (int i = 0; i < 16; i++) {
		a[i] = 1000 + i;
		b[i] = 0;
	}
	/* every integer and float small immediate through the add ALU */
	for (unsigned int smi = 0; smi < 48; smi++) {
		k = 0;
		in = i_add(QPU_ISA_A_OR, W_R3, QPU_ISA_MUX_B, QPU_ISA_MUX_B);
		in.kind = QPU_ISA_KIND_ALU_SMALL_IMM;
		in.raddr_b = smi;
		body[k++] = in;
		run_body(body, k, a, b, &emu);
		get(emu, QPU_EMU_FILE_ACC, 3, r);
		for (int i = 0; i < 16; i++)
			T_EQ_U64(qpu_isa_small_imms[smi].value, r[i]);
		free(emu);
	}
	/* full rotation of r2 by 1..15 (v8min r3, r2, r2 rotated) */
	for (unsigned int rot = 1; rot < 16; rot++) {
		k = 0;
		in = i_mul(QPU_ISA_M_V8MIN, W_R3, QPU_ISA_MUX_R2, QPU_ISA_MUX_R2);
		in.kind = QPU_ISA_KIND_ALU_SMALL_IMM;
		in.raddr_b = 48 + rot;
		body[k++] = in;
		run_body(body, k, a, b, &emu);
		get(emu, QPU_EMU_FILE_ACC, 3, r);
		for (int i = 0; i < 16; i++)
			T_EQ_U64(a[(i - rot) & 15], r[i]);
		free(emu);
	}
	/*
	 * Rotate by r5 (5, from an LDI to r5 per quad), and per-quad
	 * rotation when an input is not an accumulator r0..r3.
	 */
	k = 0;
	body[k++] = i_ldi(37, 5);	/* regfile A 37 = r5 per quad */
	body[k] = i_mov(W_R0, QPU_ISA_MUX_R2);
	body[k].waddr_mul = 5;		/* rb5 = a via mul v8min */
	body[k].op_mul = QPU_ISA_M_V8MIN;
	body[k].cond_mul = QPU_ISA_COND_ALWAYS;
	body[k].mul_a = QPU_ISA_MUX_R2;
	body[k++].mul_b = QPU_ISA_MUX_R2;
	in = i_mul(QPU_ISA_M_V8MIN, W_R3, QPU_ISA_MUX_R0, QPU_ISA_MUX_R0);
	in.kind = QPU_ISA_KIND_ALU_SMALL_IMM;
	in.raddr_b = 48;
	body[k++] = in;
	in = i_mul(QPU_ISA_M_V8MIN, W_R1, QPU_ISA_MUX_R4, QPU_ISA_MUX_R4);
	in.kind = QPU_ISA_KIND_ALU_SMALL_IMM;
	in.raddr_b = 49;	/* r4 input: rotate inside quads by 1 */
	body[k++] = in;
	run_body(body, k, a, a, &emu);
	get(emu, QPU_EMU_FILE_ACC, 3, r);
	for (int i = 0; i < 16; i++)
		T_EQ_U64(a[(i - 5) & 15], r[i]);
	get(emu, QPU_EMU_FILE_ACC, 1, r);
	for (int i = 0; i < 16; i++)
		T_EQ_U64(a[(i & ~3) | ((i - 1) & 3)], r[i]);
	get(emu, QPU_EMU_FILE_B, 5, r);
	for (int i = 0; i < 16; i++)
		T_EQ_U64(a[i], r[i]);
	free(emu);
}

T_TEST(ldi_r5)
{
	uint32_t a[16] = { 0 }, r[16];
	struct qpu_isa_instr body[8];
	struct qpu_emu *emu;
	int32_t vals[16];
	uint32_t imm;
	unsigned int k = 0;

	for (int i = 0; i < 16; i++)
		vals[i] = (i % 4) - 2;
	T_EQ_U64(0, qpu_isa_ldi_pack_elems(vals, true, &imm));
	body[k] = i_ldi(0, imm);
	body[k].kind = QPU_ISA_KIND_LDI_PES;
	k++;
	body[k] = i_ldi(1, 0xdeadbeef);
	body[k].ws = true;	/* rb1 */
	k++;
	for (int i = 0; i < 16; i++)
		vals[i] = 3 - (i % 4);
	T_EQ_U64(0, qpu_isa_ldi_pack_elems(vals, false, &imm));
	body[k] = i_ldi(2, imm);
	body[k].kind = QPU_ISA_KIND_LDI_PEU;
	k++;
	/* r5 from elem_num: A address = per quad, B address = lane 0 */
	body[k] = i_add(QPU_ISA_A_ADD, 37, QPU_ISA_MUX_A, QPU_ISA_MUX_A);
	body[k++].raddr_a = R_ELEM;
	body[k] = i_mov(W_R3, QPU_ISA_MUX_R5);
	k++;
	body[k] = i_add(QPU_ISA_A_ADD, 37, QPU_ISA_MUX_B, QPU_ISA_MUX_B);
	body[k].ws = true;
	body[k++].raddr_b = R_ELEM;	/* qpu_num (0) + 0 */
	run_body(body, k, a, a, &emu);
	get(emu, QPU_EMU_FILE_A, 0, r);
	for (int i = 0; i < 16; i++)
		T_EQ_U64((uint32_t)((i % 4) - 2), r[i]);
	get(emu, QPU_EMU_FILE_B, 1, r);
	T_EQ_U64(0xdeadbeef, r[7]);
	get(emu, QPU_EMU_FILE_A, 2, r);
	for (int i = 0; i < 16; i++)
		T_EQ_U64(3 - (i % 4), r[i]);
	get(emu, QPU_EMU_FILE_ACC, 3, r);
	for (int i = 0; i < 16; i++)
		T_EQ_U64((i & ~3) * 2, r[i]);
	get(emu, QPU_EMU_FILE_ACC, 5, r);
	for (int i = 0; i < 16; i++)
		T_EQ_U64(0, r[i]);
	free(emu);
}

T_TEST(pack_unpack)
{
	uint32_t a[16], b[16], r[16];
	struct qpu_isa_instr body[16], in;
	struct qpu_emu *emu;
	unsigned int k = 0;

	for (int i = 0; i < 16; i++) {
		a[i] = 0x11223344u + i;			/* bytes */
		b[i] = t_f2u(0.25f * i - 1.0f);		/* floats */
	}
	/* ra0 = a; then unpack 8a..8d, 16a/16b, 8dr to r0.. */
	body[k++] = i_mov(0, QPU_ISA_MUX_R2);
	body[k++] = i_mov(1, QPU_ISA_MUX_R4);
	for (unsigned int m = 1; m < 8; m++) {
		in = i_mov(W_R0 + (m & 3), QPU_ISA_MUX_A);
		in.raddr_a = 0;
		in.unpack = m;
		in.waddr_add = 10 + m;	/* ra11..ra17 (no pack) */
		body[k++] = in;
	}
	/* pack: 16a of a float (f16), 8c, 16as/8as saturation of an add */
	in = i_add(QPU_ISA_A_FADD, 20, QPU_ISA_MUX_R4, QPU_ISA_MUX_R4);
	in.pack = 1;
	body[k++] = in;
	in = i_mov(21, QPU_ISA_MUX_R2);
	in.pack = 6;
	body[k++] = in;
	in = i_add(QPU_ISA_A_SUB, 22, QPU_ISA_MUX_R4, QPU_ISA_MUX_R2);
	in.pack = 9;	/* 16as */
	body[k++] = in;
	in = i_add(QPU_ISA_A_ADD, 23, QPU_ISA_MUX_R2, QPU_ISA_MUX_R2);
	in.pack = 8;	/* 32s */
	body[k++] = in;
	in = i_mov(24, QPU_ISA_MUX_R2);
	in.pack = 8;	/* 32s of a result that is not a sum: as it is */
	body[k++] = in;
	/* mul pack 8888 of an fmul result (unorm8) */
	in = i_mul(QPU_ISA_M_FMUL, W_R3, QPU_ISA_MUX_R4, QPU_ISA_MUX_R4);
	in.pm = true;
	in.pack = 3;
	body[k++] = in;
	run_body(body, k, a, b, &emu);
	for (unsigned int m = 1; m < 8; m++) {
		get(emu, QPU_EMU_FILE_A, 10 + m, r);
		for (int i = 0; i < 16; i++) {
			uint32_t v = a[i], e;

			switch (m) {
			case 1:
				e = (uint32_t)(int32_t)(int16_t)v;
				break;
			case 2:
				e = (uint32_t)(int32_t)(int16_t)(v >> 16);
				break;
			case 3:
				e = (v >> 24) * 0x01010101u;
				break;
			default:
				e = (v >> ((m - 4) * 8)) & 0xff;
				break;
			}
			T_EQ_U64(e, r[i]);
		}
	}
	get(emu, QPU_EMU_FILE_A, 20, r);
	T_EQ_U64(0x4400, r[12] & 0xffff);	/* 2.0 + 2.0 as f16 */
	get(emu, QPU_EMU_FILE_A, 21, r);
	T_EQ_U64((a[3] & 0xff) << 16, r[3]);
	get(emu, QPU_EMU_FILE_A, 22, r);
	T_EQ_U64(0x8000, r[0] & 0xffff);	/* huge negative saturates */
	get(emu, QPU_EMU_FILE_A, 23, r);
	T_EQ_U64(0x2244668cu, r[2]);		/* no overflow: plain sum */
	get(emu, QPU_EMU_FILE_A, 24, r);
	for (int i = 0; i < 16; i++)
		T_EQ_U64(a[i], r[i]);
	get(emu, QPU_EMU_FILE_ACC, 3, r);
	for (int i = 0; i < 16; i++) {
		float f = t_u2f(b[i]) * t_u2f(b[i]);
		uint32_t e = f >= 1.0f ? 255 : (uint32_t)round_half_up(f * 255.0);

		T_EQ_U64(e * 0x01010101u, r[i]);
	}
	free(emu);
}

static uint32_t sat(int64_t v, int64_t lo, int64_t hi)
{
	return (uint32_t)(v < lo ? lo : v > hi ? hi : v);
}

/* Regfile-A pack of an integer add result, from the mode table. */
static uint32_t ref_pack_a(uint32_t old, uint32_t v, int64_t wide,
			   unsigned int mode)
{
	unsigned int sh;

	switch (mode) {
	case 0:
		return v;
	case 1:
		return (old & 0xffff0000u) | (v & 0xffff);
	case 2:
		return (old & 0xffff) | v << 16;
	case 3:
		return (v & 0xff) * 0x01010101u;
	case 8:
		return sat(wide, INT32_MIN, INT32_MAX);
	case 9:
		return (old & 0xffff0000u) |
			(sat((int32_t)v, -32768, 32767) & 0xffff);
	case 10:
		return (old & 0xffff) | sat((int32_t)v, -32768, 32767) << 16;
	case 11:
		return sat((int32_t)v, 0, 255) * 0x01010101u;
	default:
		sh = ((mode & 7) - 4) * 8;
		return (old & ~(0xffu << sh)) |
			(mode >= 12 ? sat((int32_t)v, 0, 255) : (v & 0xff)) << sh;
	}
}

/* Every regfile-A pack of add, and every mul pack of fmul and mul24. */
T_TEST(all_packs)
{
	for (unsigned int mode = 0; mode < 16; mode++) {
		uint32_t a[16], b[16], r[16];
		struct qpu_isa_instr body[4];
		struct qpu_emu *emu;

		for (int i = 0; i < 16; i++) {
			int32_t range = i < 8 ? 300 : 100000;

			a[i] = (uint32_t)((int32_t)(t_rand(&rng) % (2 * range)) -
					  range);
			b[i] = (uint32_t)((int32_t)(t_rand(&rng) % (2 * range)) -
					  range);
		}
		a[15] = 0x7fffff00;	/* 32s: overflow */
		b[15] = 0x100;
		a[14] = 0x80000000u;
		b[14] = 0xffffffffu;
		body[0] = i_ldi(20, 0xa5a5a5a5u);
		body[1] = i_add(QPU_ISA_A_ADD, 20, QPU_ISA_MUX_R2,
				QPU_ISA_MUX_R4);
		body[1].pack = mode;
		run_body(body, 2, a, b, &emu);
		get(emu, QPU_EMU_FILE_A, 20, r);
		for (int i = 0; i < 16; i++) {
			int64_t wide = (int64_t)(int32_t)a[i] + (int32_t)b[i];

			t_checks++;
			if (r[i] != ref_pack_a(0xa5a5a5a5u, a[i] + b[i], wide,
					       mode)) {
				fprintf(stderr,
					"pack %u lane %d: %08x + %08x gave %08x\n",
					mode, i, a[i], b[i], r[i]);
				t_failures++;
			}
		}
		free(emu);
	}
	for (unsigned int mode = 3; mode < 8; mode++) {
		uint32_t a[16], b[16], r[16], r1[16];
		struct qpu_isa_instr body[4];
		struct qpu_emu *emu;

		for (int i = 0; i < 16; i++) {
			a[i] = t_f2u((float)(i - 3) / 10.0f);
			b[i] = t_f2u(1.0f + (float)i / 16.0f);
		}
		body[0] = i_ldi(W_R3, 0xa5a5a5a5u);
		body[1] = i_mul(QPU_ISA_M_FMUL, W_R3, QPU_ISA_MUX_R2,
				QPU_ISA_MUX_R4);
		body[1].pm = true;
		body[1].pack = mode;
		body[2] = i_ldi(W_R1, 0xa5a5a5a5u);
		body[3] = i_mul(QPU_ISA_M_MUL24, W_R1, QPU_ISA_MUX_R4,
				QPU_ISA_MUX_R4);
		body[3].pm = true;
		body[3].pack = mode;
		run_body(body, 4, a, b, &emu);
		get(emu, QPU_EMU_FILE_ACC, 3, r);
		get(emu, QPU_EMU_FILE_ACC, 1, r1);
		for (int i = 0; i < 16; i++) {
			uint32_t f = qpu_emu_f32_to_unorm8(qpu_emu_fmul(a[i],
								      b[i]));
			uint32_t m = ((b[i] & 0xffffff) * (b[i] & 0xffffff)) &
				0xff;
			unsigned int sh = (mode - 4) * 8;

			if (mode == 3) {
				T_EQ_U64(f * 0x01010101u, r[i]);
				T_EQ_U64(m * 0x01010101u, r1[i]);
			} else {
				T_EQ_U64((0xa5a5a5a5u & ~(0xffu << sh)) |
					 f << sh, r[i]);
				T_EQ_U64((0xa5a5a5a5u & ~(0xffu << sh)) |
					 m << sh, r1[i]);
			}
		}
		free(emu);
	}
}

/* r4 unpack (pm=1) of bytes to floats; regfile-A 16a/16b halves to floats. */
T_TEST(float_unpacks)
{
	uint32_t a[16], b[16], r[16];
	struct qpu_isa_instr body[8], in;
	struct qpu_emu *emu;
	unsigned int k = 0;

	for (int i = 0; i < 16; i++) {
		a[i] = 0x3c00u | (0xc000u + 0x400u * i) << 16;	/* halves */
		b[i] = 0x01020304u * (uint32_t)(i + 1);		/* bytes */
	}
	body[k++] = i_mov(0, QPU_ISA_MUX_R2);			/* ra0 = a */
	for (unsigned int m = 4; m < 8; m++) {
		in = i_smi(i_add(QPU_ISA_A_FADD, 20 + m, QPU_ISA_MUX_R4,
				 QPU_ISA_MUX_B), 0);
		in.pm = true;
		in.unpack = m;
		body[k++] = in;
	}
	for (unsigned int m = 1; m < 3; m++) {
		in = i_smi(i_add(QPU_ISA_A_FADD, 28 + m, QPU_ISA_MUX_A,
				 QPU_ISA_MUX_B), 0);
		in.raddr_a = 0;
		in.unpack = m;
		body[k++] = in;
	}
	run_body(body, k, a, b, &emu);
	for (unsigned int m = 4; m < 8; m++) {
		get(emu, QPU_EMU_FILE_A, 20 + m, r);
		for (int i = 0; i < 16; i++)
			T_EQ_U64(qpu_emu_unorm8_to_f32(b[i] >> ((m - 4) * 8)),
				 r[i]);
	}
	get(emu, QPU_EMU_FILE_A, 29, r);
	for (int i = 0; i < 16; i++)
		T_EQ_U64(t_f2u(1.0f), r[i]);
	get(emu, QPU_EMU_FILE_A, 30, r);
	for (int i = 0; i < 16; i++)
		T_EQ_U64(qpu_emu_f16_to_f32(a[i] >> 16), r[i]);
	T_EQ_U64(t_f2u(-2.0f), r[0]);
	free(emu);
}

static int setup(void)
{
	if (!t_host_rtz(true)) {
		printf("test-emu-alu: no way to round toward zero on this host\n");
		return T_EXIT_SKIP;
	}
	return T_EXIT_PASS;
}

T_MAIN(.setup = setup, .before = reseed)
