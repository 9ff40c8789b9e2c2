// SPDX-License-Identifier: MIT
/*
 * test-v3d-emu: the V3D 4.2/7.1 emulator (libqpu/core/v3d/qpu_v3d_emu*),
 * by programs written in Mesa's syntax and assembled with qpu_asm, run on
 * a Pi 4 or Pi 5 board: ALU results on all 16 lanes against a host
 * reference (float edge cases included), flags and conditions, branches,
 * signals and their latencies measured by micro-programs, the TMU, thread
 * switches, CSD decoding and dispatch with its payload, barriers across
 * QPUs, the MMU's faults and allow-all, deadlock reports and the limit.
 */
#include <errno.h>
#include <math.h>

#include "testlib.h"

#include "qpu.h"
#include "qpu_asm.h"
#include "qpu_emu_float.h"
#include "v3d/qpu_v3d_emu.h"
#include "test-v3d.h"

#define CODE_BYTES	(64 * 1024)
#define UNIF_BYTES	(4 * 1024)
#define DATA_BYTES	(64 * 1024)

struct rig {
	struct qpu_v3d_mmu mmu;
	struct qpu_v3d_emu *emu;
	int gen;
	uint8_t *code, *unif, *data;
	uint32_t code_va, unif_va, data_va;
	size_t words;
};

static const char *const end_seq = V3D_THREAD_END;

static void rig_free(struct rig *r)
{
	free(r->emu);
	free(r->code);
	free(r->unif);
	free(r->data);
	memset(r, 0, sizeof(*r));
}

/* Assemble @src (with the thread end after it) and map code, uniforms and
 * data, all in the job. */
static bool rig_init(struct rig *r, enum qpu_v3d_emu_board board,
		     const char *src)
{
	const struct qpu_v3d_emu_board_info *b = qpu_v3d_emu_board(board);
	struct qpu_asm *as = qpu_asm_new();
	const uint64_t *words;
	char *full;
	size_t n;

	memset(r, 0, sizeof(*r));
	r->gen = b->gen;
	r->emu = calloc(1, qpu_v3d_emu_size());
	r->code = calloc(1, CODE_BYTES);
	r->unif = calloc(1, UNIF_BYTES);
	r->data = calloc(1, DATA_BYTES);
	full = malloc(strlen(src) + strlen(end_seq) + 2);
	if (!as || !r->emu || !r->code || !r->unif || !r->data || !full) {
		T_CHECK(!"out of memory");
		free(full);
		qpu_asm_free(as);
		return false;
	}
	sprintf(full, "%s\n%s", src, end_seq);
	qpu_asm_set_gen(as, r->gen);
	if (qpu_asm_string(as, "prog", full)) {
		const struct qpu_asm_diag *d;
		size_t nd = qpu_asm_diags(as, &d), i;

		for (i = 0; i < nd; i++)
			fprintf(stderr, "prog:%u: %s\n", d[i].line, d[i].msg);
		T_CHECK(!"program assembles");
		free(full);
		qpu_asm_free(as);
		return false;
	}
	n = qpu_asm_words(as, &words);
	memcpy(r->code, words, n * 8);
	r->words = n;
	free(full);
	qpu_asm_free(as);
	qpu_v3d_mmu_init(&r->mmu);
	T_EQ_U64(0, qpu_v3d_mmu_map(&r->mmu, r->code, CODE_BYTES, &r->code_va));
	T_EQ_U64(0, qpu_v3d_mmu_map(&r->mmu, r->unif, UNIF_BYTES, &r->unif_va));
	T_EQ_U64(0, qpu_v3d_mmu_map(&r->mmu, r->data, DATA_BYTES, &r->data_va));
	qpu_v3d_mmu_job_add(&r->mmu, r->code_va);
	qpu_v3d_mmu_job_add(&r->mmu, r->unif_va);
	qpu_v3d_mmu_job_add(&r->mmu, r->data_va);
	T_EQ_U64(0, qpu_v3d_emu_init(r->emu, board, &r->mmu, NULL, NULL));
	return true;
}

static uint32_t *unif32(struct rig *r)
{
	return (uint32_t *)r->unif;
}

static uint32_t *data32(struct rig *r)
{
	return (uint32_t *)r->data;
}

/* Run one thread on QPU 0's slot 0 of a single-threaded QPU. */
static enum qpu_v3d_emu_status rig_run(struct rig *r)
{
	T_EQ_U64(0, qpu_v3d_emu_start(r->emu, 0, 0, 1, r->code_va, r->unif_va));
	return qpu_v3d_emu_run(r->emu, 10000000);
}

static void reg(struct rig *r, unsigned int rf, uint32_t out[16])
{
	T_EQ_U64(0, qpu_v3d_emu_get_reg(r->emu, 0, 0, QPU_V3D_EMU_FILE_RF, rf,
					out));
}

static const enum qpu_v3d_emu_board boards[] = {
	QPU_V3D_EMU_BOARD_PI4, QPU_V3D_EMU_BOARD_PI5_3X4,
};

/* --- ALU results on all lanes ------------------------------------------- */

/*
 * The program loads X (data + 0) into rf1 and Y (data + 64) into rf2
 * through the TMU, then runs @op: its result is rf3.
 */
static const char *const load_xy =
	"nop ; nop ; ldunifrf.rf10\n"
	"eidx rf12 ; nop\n"
	"shl rf12, rf12, 2 ; nop\n"
	"add rf10, rf10, rf12 ; nop\n"
	"nop ; mov tmua, rf10\n"
	"add rf10, rf10, 15 ; nop\n"
	"add rf10, rf10, 15 ; nop\n"
	"add rf10, rf10, 15 ; nop\n"
	"add rf10, rf10, 15 ; nop\n"
	"add rf10, rf10, 4 ; nop\n"
	"nop ; mov tmua, rf10\n"
	"nop ; nop ; ldtmu.rf1\n"
	"nop ; nop ; ldtmu.rf2\n";

static float f_of(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

static uint32_t u_of(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static uint32_t ftz(uint32_t u)
{
	return (u & 0x7f800000u) ? u : (u & 0x80000000u);
}

static bool is_nan32(uint32_t u)
{
	return (u & 0x7fffffffu) > 0x7f800000u;
}

/* The host's float op, flushed and with the canonical NaN. */
static uint32_t host_f(uint32_t x, uint32_t y, char op)
{
	float a = f_of(ftz(x)), b = f_of(ftz(y)), r = 0;

	switch (op) {
	case '+':
		r = a + b;
		break;
	case '-':
		r = a - b;
		break;
	case '*':
		r = a * b;
		break;
	case 'm':
		r = (isnan(a) || isnan(b)) ? NAN : (a < b || (a == b && signbit(a))) ? a : b;
		break;
	case 'M':
		r = (isnan(a) || isnan(b)) ? NAN : (a > b || (a == b && !signbit(a))) ? a : b;
		break;
	}
	if (isnan(r))
		return 0x7fc00000u;
	return ftz(u_of(r));
}

static const uint32_t fx[16] = {
	0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x3fc00000,
	0x40200000, 0x00000001, 0x80400000, 0x7f800000, 0xff800000,
	0x7fc00001, 0x7f7fffff, 0x00800000, 0x40400000, 0x501502f9,
	0x3eaaaaab,
};

static const uint32_t fy[16] = {
	0x80000000, 0x80000000, 0x3f800000, 0x3f800000, 0xc0200000,
	0x3f000000, 0x00800000, 0x00000003, 0x7f800000, 0x7f800000,
	0x3f800000, 0x7f7fffff, 0x80800001, 0x33800000, 0x4f000000,
	0x40400000,
};

static const uint32_t ix[16] = {
	0, 1, 2, 0xffffffff, 0x80000000, 0x7fffffff, 12345, 0xdeadbeef,
	31, 32, 33, 0x10000, 0xffff, 0x8000, 5, 0xfffffff0,
};

static const uint32_t iy[16] = {
	0, 1, 0xffffffff, 1, 1, 1, 3, 4, 31, 32, 33, 0xffff0000, 16, 17,
	0x80000000, 7,
};

/* Assemble load_xy + @line, run it with X, Y and compare rf3 to @want. */
static void run_op(enum qpu_v3d_emu_board board, const char *line,
		   const uint32_t *x, const uint32_t *y, const uint32_t *want,
		   const char *what)
{
	char src[2048];
	uint32_t got[16];
	struct rig r;
	unsigned int i;

	snprintf(src, sizeof(src), "%s%s\n", load_xy, line);
	if (!rig_init(&r, board, src))
		return;
	memcpy(r.data, x, 64);
	memcpy(r.data + 64, y, 64);
	unif32(&r)[0] = r.data_va;
	T_EQ_U64(QPU_V3D_EMU_IDLE, rig_run(&r));
	reg(&r, 3, got);
	for (i = 0; i < 16; i++) {
		t_checks++;
		if (got[i] != want[i] && !(is_nan32(got[i]) && is_nan32(want[i]))) {
			char m[256];

			snprintf(m, sizeof(m), "%s on %s lane %u: x 0x%08x y 0x%08x: "
				 "want 0x%08x got 0x%08x", what,
				 qpu_v3d_emu_board(board)->name, i, x[i], y[i],
				 want[i], got[i]);
			t_report(__FILE__, __LINE__, m);
		}
	}
	rig_free(&r);
}

static uint32_t ref_int(const char *op, uint32_t x, uint32_t y)
{
	if (!strcmp(op, "add"))
		return x + y;
	if (!strcmp(op, "sub"))
		return x - y;
	if (!strcmp(op, "min"))
		return (int32_t)x < (int32_t)y ? x : y;
	if (!strcmp(op, "max"))
		return (int32_t)x > (int32_t)y ? x : y;
	if (!strcmp(op, "umin"))
		return x < y ? x : y;
	if (!strcmp(op, "umax"))
		return x > y ? x : y;
	if (!strcmp(op, "shl"))
		return x << (y & 31);
	if (!strcmp(op, "shr"))
		return x >> (y & 31);
	if (!strcmp(op, "asr"))
		return (uint32_t)((int32_t)x >> (y & 31));
	if (!strcmp(op, "ror"))
		return (y & 31) ? (x >> (y & 31)) | (x << (32 - (y & 31))) : x;
	if (!strcmp(op, "and"))
		return x & y;
	if (!strcmp(op, "or"))
		return x | y;
	if (!strcmp(op, "xor"))
		return x ^ y;
	if (!strcmp(op, "not"))
		return ~x;
	if (!strcmp(op, "neg"))
		return -x;
	if (!strcmp(op, "clz"))
		return x ? (uint32_t)__builtin_clz(x) : 32;
	if (!strcmp(op, "umul24"))
		return (x & 0xffffff) * (y & 0xffffff);
	if (!strcmp(op, "smul24"))
		return (uint32_t)((int32_t)(x << 8) >> 8) *
		       (uint32_t)((int32_t)(y << 8) >> 8);
	return 0xdead;
}

T_TEST(alu_int_ops)
{
	static const char *const binops[] = {
		"add", "sub", "min", "max", "umin", "umax", "shl", "shr", "asr",
		"ror", "and", "or", "xor",
	};
	static const char *const unops[] = { "not", "neg", "clz" };
	static const char *const mulops[] = { "add", "sub", "umul24", "smul24" };
	uint32_t want[16];
	char line[128];
	size_t b, k;
	unsigned int i;

	for (b = 0; b < T_ARRAY_SIZE(boards); b++) {
		for (k = 0; k < T_ARRAY_SIZE(binops); k++) {
			for (i = 0; i < 16; i++)
				want[i] = ref_int(binops[k], ix[i], iy[i]);
			snprintf(line, sizeof(line), "%s rf3, rf1, rf2 ; nop",
				 binops[k]);
			run_op(boards[b], line, ix, iy, want, binops[k]);
		}
		for (k = 0; k < T_ARRAY_SIZE(unops); k++) {
			for (i = 0; i < 16; i++)
				want[i] = ref_int(unops[k], ix[i], 0);
			snprintf(line, sizeof(line), "%s rf3, rf1 ; nop", unops[k]);
			run_op(boards[b], line, ix, iy, want, unops[k]);
		}
		for (k = 0; k < T_ARRAY_SIZE(mulops); k++) {
			for (i = 0; i < 16; i++)
				want[i] = ref_int(mulops[k], ix[i], iy[i]);
			snprintf(line, sizeof(line), "nop ; %s rf3, rf1, rf2",
				 mulops[k]);
			run_op(boards[b], line, ix, iy, want, mulops[k]);
		}
		/* a 32-bit multiply as Mesa emits it: multop, then umul24 */
		for (i = 0; i < 16; i++)
			want[i] = ix[i] * iy[i];
		run_op(boards[b], "nop ; multop -, rf1, rf2\n"
		       "nop ; umul24 rf3, rf1, rf2", ix, iy, want, "imul");
		/* small immediates */
		for (i = 0; i < 16; i++)
			want[i] = ix[i] + 0xfffffff1u;
		run_op(boards[b], "add rf3, rf1, -15 ; nop", ix, iy, want,
		       "add -15");
		for (i = 0; i < 16; i++)
			want[i] = i;
		run_op(boards[b], "eidx rf3 ; nop", ix, iy, want, "eidx");
		for (i = 0; i < 16; i++)
			want[i] = 0;
		run_op(boards[b], "tidx rf3 ; nop", ix, iy, want, "tidx");
	}
}

T_TEST(alu_float_ops)
{
	static const struct {
		const char *line;
		char op;
	} ops[] = {
		{ "fadd rf3, rf1, rf2 ; nop", '+' },
		{ "faddnf rf3, rf2, rf1 ; nop", '+' },
		{ "fsub rf3, rf1, rf2 ; nop", '-' },
		{ "fcmp rf3, rf1, rf2 ; nop", '-' },
		{ "fmin rf3, rf1, rf2 ; nop", 'm' },
		{ "fmax rf3, rf2, rf1 ; nop", 'M' },
		{ "nop ; fmul rf3, rf1, rf2", '*' },
	};
	uint32_t want[16];
	size_t b, k;
	unsigned int i;

	for (b = 0; b < T_ARRAY_SIZE(boards); b++) {
		for (k = 0; k < T_ARRAY_SIZE(ops); k++) {
			for (i = 0; i < 16; i++)
				want[i] = host_f(fx[i], fy[i], ops[k].op);
			run_op(boards[b], ops[k].line, fx, fy, want, ops[k].line);
		}
		/* abs unpack, f16 pack */
		for (i = 0; i < 16; i++)
			want[i] = host_f(fx[i] & 0x7fffffff, fy[i], '+');
		run_op(boards[b], "fadd rf3, rf1.abs, rf2 ; nop", fx, fy, want,
		       "fadd abs");
		for (i = 0; i < 16; i++)
			want[i] = (uint32_t)(int32_t)ix[i] == ix[i] ?
				  u_of((float)(int32_t)ix[i]) : 0;
		run_op(boards[b], "itof rf3, rf1 ; nop", ix, iy, want, "itof");
		for (i = 0; i < 16; i++)
			want[i] = u_of((float)ix[i]);
		run_op(boards[b], "utof rf3, rf1 ; nop", ix, iy, want, "utof");
	}
}

/*
 * vfmin/vfmax on both generations (7.1's vfmax is missing from Mesa; py-
 * videocore7's test_binary_ops runs it on a Pi 5): half-float pairs per
 * lane, signs and both halves mixed, with the .swp unpack of a.
 */
T_TEST(alu_vfmin_vfmax)
{
	static const uint16_t h[] = {	/* ordered: -3 -2 -1 -0.5 0 0.5 1 2 3 */
		0xc200, 0xc000, 0xbc00, 0xb800, 0x0000, 0x3800, 0x3c00,
		0x4000, 0x4200,
	};
	uint32_t x[16], y[16], mx[16], mn[16], sw[16];
	unsigned int i, xl, xh, yl, yh;
	size_t b;

	for (i = 0; i < 16; i++) {
		xl = i % 9;
		xh = (i * 5 + 2) % 9;
		yl = (i * 7 + 4) % 9;
		yh = (i * 2 + 1) % 9;
		x[i] = (uint32_t)h[xh] << 16 | h[xl];
		y[i] = (uint32_t)h[yh] << 16 | h[yl];
		mx[i] = (uint32_t)h[xh > yh ? xh : yh] << 16 | h[xl > yl ? xl : yl];
		mn[i] = (uint32_t)h[xh < yh ? xh : yh] << 16 | h[xl < yl ? xl : yl];
		sw[i] = (uint32_t)h[xl > yh ? xl : yh] << 16 | h[xh > yl ? xh : yl];
	}
	for (b = 0; b < T_ARRAY_SIZE(boards); b++) {
		run_op(boards[b], "vfmax rf3, rf1, rf2 ; nop", x, y, mx, "vfmax");
		run_op(boards[b], "vfmin rf3, rf1, rf2 ; nop", x, y, mn, "vfmin");
		run_op(boards[b], "vfmax rf3, rf1.swp, rf2 ; nop", x, y, sw,
		       "vfmax swp");
	}
}

/* The fast paths give the reference path's results: random floats near
 * each other (so that sums cancel and round), and near the ends of the
 * exponent range, through fadd, fsub and fmul on the reference path and
 * the fast paths with the host's float unit and with integers. */
T_TEST(fast_paths_match_reference)
{
	static const char *const prog =
		"fadd rf3, rf1, rf2 ; fmul rf4, rf1, rf2\n"
		"fsub rf5, rf1, rf2 ; nop\n";
	uint64_t state = 0x5eed;
	uint32_t x[16], y[16], got[3][3][16];
	unsigned int round, i, k, path;
	struct rig r;
	char src[2048];

	snprintf(src, sizeof(src), "%s%s", load_xy, prog);
	for (round = 0; round < 48; round++) {
		for (i = 0; i < 16; i++) {
			uint32_t e = (uint32_t)(t_rand(&state) % 254) + 1;

			if (round % 3 == 1)
				e = e % 8 + 1;		/* near underflow */
			else if (round % 3 == 2)
				e = 254 - e % 8;	/* near overflow */
			x[i] = (uint32_t)t_rand(&state) & 0x807fffffu;
			x[i] |= e << 23;
			y[i] = (x[i] ^ ((uint32_t)t_rand(&state) & 0x800000ffu)) +
			       ((uint32_t)(t_rand(&state) % 3) << 23);
		}
		for (path = 0; path < 3; path++) {
			if (!rig_init(&r, QPU_V3D_EMU_BOARD_PI4, src))
				return;
			qpu_v3d_emu_set_predecode(r.emu, path);
			qpu_v3d_emu_set_host_float(r.emu, path == 1);
			memcpy(r.data, x, 64);
			memcpy(r.data + 64, y, 64);
			unif32(&r)[0] = r.data_va;
			T_EQ_U64(QPU_V3D_EMU_IDLE, rig_run(&r));
			for (k = 0; k < 3; k++)
				reg(&r, 3 + k, got[path][k]);
			rig_free(&r);
		}
		for (k = 0; k < 3; k++) {
			for (i = 0; i < 16; i++) {
				T_EQ_U64(got[0][k][i], got[1][k][i]);
				T_EQ_U64(got[0][k][i], got[2][k][i]);
			}
		}
		/* and both against the host, away from the flushing edge */
		for (i = 0; i < 16; i++) {
			if (round % 3 == 1)
				continue;
			T_EQ_U64(host_f(x[i], y[i], '+'), got[1][0][i]);
			T_EQ_U64(host_f(x[i], y[i], '*'), got[1][1][i]);
			T_EQ_U64(host_f(x[i], y[i], '-'), got[1][2][i]);
		}
	}
}

/* The magic destinations random programs keep: no TMU, VPM or SFU. */
static bool magic_ok(int gen, unsigned int waddr)
{
	if (waddr == QPU_V3D_W_NOP || waddr == QPU_V3D_W_R5REP ||
	    waddr == QPU_V3D_W_QUAD)
		return true;
	return gen == QPU_GEN_V3D42 && waddr < QPU_V3D_W_R5;
}

/*
 * A random ALU word for random_programs_match_reference(): any valid
 * non-branch word whose signals the emulator runs in a compute job without
 * the TMU (small immediates, rot, thrsw, ldunif, ldunifrf), with magic
 * destinations other than 4.2's accumulators, quad and r5rep/rep turned
 * into registers; a quarter without conditions or flags and a quarter
 * with flags but no condition, so that the fast paths see more of them.
 */
static uint64_t random_alu_word(int gen, uint64_t *state)
{
	const uint32_t ok_sigs = QPU_V3D_SIG_SMIMM_A | QPU_V3D_SIG_SMIMM_B |
				 QPU_V3D_SIG_SMIMM_C | QPU_V3D_SIG_SMIMM_D |
				 QPU_V3D_SIG_ROT | QPU_V3D_SIG_THRSW |
				 QPU_V3D_SIG_LDUNIF | QPU_V3D_SIG_LDUNIFRF;
	static const uint8_t add_ops[] = {
		QPU_V3D_A_ADD, QPU_V3D_A_SUB, QPU_V3D_A_AND, QPU_V3D_A_OR,
		QPU_V3D_A_XOR, QPU_V3D_A_SHL, QPU_V3D_A_SHR, QPU_V3D_A_ASR,
		QPU_V3D_A_FADD, QPU_V3D_A_FSUB, QPU_V3D_A_FMAX, QPU_V3D_A_FMIN,
		QPU_V3D_A_MOV, QPU_V3D_A_EIDX, QPU_V3D_A_NOP,
	};
	static const uint8_t mul_ops[] = {
		QPU_V3D_M_FMUL, QPU_V3D_M_ADD, QPU_V3D_M_SUB, QPU_V3D_M_MOV,
		QPU_V3D_M_FMOV, QPU_V3D_M_NOP,
	};
	struct qpu_v3d_instr in;
	uint64_t w;

	for (;;) {
		w = t_rand(state);
		switch (t_rand(state) % 4) {
		case 0:		/* no condition, no flags */
			w &= ~QPU_V3D_COND;
			break;
		case 1:		/* flags, no condition */
			w = (w & ~QPU_V3D_COND) |
			    QPU_V3D_PUT(QPU_V3D_COND, t_rand(state) % 32);
			break;
		}
		if (t_rand(state) & 1)
			w &= ~QPU_V3D_SIG;
		if (qpu_v3d_decode(gen, w, &in) != QPU_V3D_VALID ||
		    in.is_branch)
			continue;
		if (qpu_v3d_sig_bits(gen, in.sig) & ~ok_sigs)
			continue;
		if (t_rand(state) % 4) {	/* the ops with fast handlers */
			in.add.op = add_ops[t_rand(state) % T_ARRAY_SIZE(add_ops)];
			in.mul.op = mul_ops[t_rand(state) % T_ARRAY_SIZE(mul_ops)];
			if (t_rand(state) & 1) {
				in.add.pack = 0;
				in.add.unpack_a = 0;
				in.add.unpack_b = 0;
				in.mul.pack = 0;
				in.mul.unpack_a = 0;
				in.mul.unpack_b = 0;
			}
		}
		in.add.magic &= magic_ok(gen, in.add.waddr);
		in.mul.magic &= magic_ok(gen, in.mul.waddr);
		in.sig_magic &= magic_ok(gen, in.sig_addr);
		if (!qpu_v3d_encode(gen, &in, &w))
			return w;
	}
}

/*
 * The predecoded fast paths against the reference path on random
 * programs: every register, accumulator and flag of the thread, its state,
 * the status and the statistics, with 1 and 4 threads (a register file of
 * 64 and of 32), on both generations. The registers start with uniforms
 * spread over the lanes by eidx.
 */
T_TEST(random_programs_match_reference)
{
	enum { BODY = 24, ROUNDS = 60, PREFIX = 1 + 2 * 24 };
	static const unsigned int threads[] = { 1, 4 };
	uint64_t state = 0xfa57;
	unsigned int round, path, i, k;
	char src[8192];
	size_t len = 0, b, tn;

	len += (size_t)snprintf(src + len, sizeof(src) - len, "eidx rf40 ; nop\n");
	for (k = 0; k < 24; k++)
		len += (size_t)snprintf(src + len, sizeof(src) - len,
					"nop ; nop ; ldunifrf.rf%u\n"
					"xor rf%u, rf%u, rf40 ; nop\n", k, k, k);
	for (k = 0; k < BODY; k++)
		len += (size_t)snprintf(src + len, sizeof(src) - len, "nop ; nop\n");
	for (b = 0; b < T_ARRAY_SIZE(boards); b++) {
		for (tn = 0; tn < T_ARRAY_SIZE(threads); tn++) {
			for (round = 0; round < ROUNDS; round++) {
				uint32_t regs[2][64 + 6][16], unif[64];
				struct qpu_v3d_emu_stats st[2];
				struct qpu_v3d_emu_fault fault[2];
				enum qpu_v3d_emu_thread_state ts[2];
				enum qpu_v3d_emu_status status[2];
				uint16_t fa[2], fb[2];
				uint32_t pc[2];
				uint64_t words[BODY];
				struct rig r;

				for (k = 0; k < 64; k++)
					unif[k] = (uint32_t)t_rand(&state);
				for (k = 0; k < BODY; k++)
					words[k] = random_alu_word(qpu_v3d_emu_board(boards[b])->gen,
								   &state);
				for (path = 0; path < 2; path++) {
					if (!rig_init(&r, boards[b], src))
						return;
					memcpy(r.code + PREFIX * 8, words,
					       sizeof(words));
					memcpy(r.unif, unif, sizeof(unif));
					qpu_v3d_emu_set_predecode(r.emu, path);
					T_EQ_U64(0, qpu_v3d_emu_start(r.emu, 0, 0,
								      threads[tn],
								      r.code_va,
								      r.unif_va));
					status[path] = qpu_v3d_emu_run(r.emu, 100000);
					memset(regs[path], 0, sizeof(regs[path]));
					for (k = 0; k < 64; k++)
						qpu_v3d_emu_get_reg(r.emu, 0, 0,
								    QPU_V3D_EMU_FILE_RF,
								    k, regs[path][k]);
					for (k = 0; k < 6; k++)
						qpu_v3d_emu_get_reg(r.emu, 0, 0,
								    QPU_V3D_EMU_FILE_ACC,
								    k, regs[path][64 + k]);
					qpu_v3d_emu_get_flags(r.emu, 0, 0, &fa[path],
							      &fb[path]);
					qpu_v3d_emu_get_thread(r.emu, 0, 0, &ts[path],
							       &pc[path]);
					st[path] = *qpu_v3d_emu_get_stats(r.emu);
					fault[path] = *qpu_v3d_emu_get_fault(r.emu);
					rig_free(&r);
				}
				T_EQ_U64(status[0], status[1]);
				T_EQ_U64(ts[0], ts[1]);
				T_EQ_U64(pc[0], pc[1]);
				T_EQ_U64(fa[0], fa[1]);
				T_EQ_U64(fb[0], fb[1]);
				T_CHECK(!memcmp(&fault[0], &fault[1], sizeof(fault[0])));
				T_CHECK(!memcmp(&st[0], &st[1], sizeof(st[0])));
				for (k = 0; k < 64 + 6; k++)
					for (i = 0; i < 16; i++)
						T_EQ_U64(regs[0][k][i], regs[1][k][i]);
			}
		}
	}
}

/* Everything a caller can observe of a rig's emulator after a run. */
struct emu_view {
	enum qpu_v3d_emu_status status;
	struct qpu_v3d_emu_stats stats;
	struct qpu_v3d_emu_fault fault;
	struct {
		enum qpu_v3d_emu_thread_state state;
		uint32_t pc;
		uint16_t fa, fb;
		uint32_t regs[64 + 6][16];
	} t[QPU_V3D_EMU_MAX_QPUS][QPU_V3D_EMU_THREADS];
	uint8_t data[1024];
};

static void emu_view(struct rig *r, enum qpu_v3d_emu_status status,
		     struct emu_view *v)
{
	unsigned int q, s, k;

	memset(v, 0, sizeof(*v));
	v->status = status;
	v->stats = *qpu_v3d_emu_get_stats(r->emu);
	v->fault = *qpu_v3d_emu_get_fault(r->emu);
	for (q = 0; q < QPU_V3D_EMU_MAX_QPUS; q++) {
		for (s = 0; s < QPU_V3D_EMU_THREADS; s++) {
			if (qpu_v3d_emu_get_thread(r->emu, q, s, &v->t[q][s].state,
						   &v->t[q][s].pc))
				continue;
			qpu_v3d_emu_get_flags(r->emu, q, s, &v->t[q][s].fa,
					      &v->t[q][s].fb);
			for (k = 0; k < 64; k++)
				qpu_v3d_emu_get_reg(r->emu, q, s, QPU_V3D_EMU_FILE_RF,
						    k, v->t[q][s].regs[k]);
			for (k = 0; k < 6; k++)
				qpu_v3d_emu_get_reg(r->emu, q, s, QPU_V3D_EMU_FILE_ACC,
						    k, v->t[q][s].regs[64 + k]);
		}
	}
	memcpy(v->data, r->data, sizeof(v->data));
}

/*
 * The fast paths' deferred turns (qpu_v3d_emu.c, "deferred turns")
 * against the reference path, one instruction a turn: every QPU of the
 * board runs a loop of random ALU words (flags, small immediates, rot,
 * thrsw, ldunif, in a branch's delay slots too) around TMU writes and
 * reads of one shared vector, so that the QPUs' order shows in memory;
 * the runs end in random budgets (mid-walk), and in the faults the random
 * words cause (a uniform stream past its BO, a TMU address they
 * overwrote), or the limit. After every run, every thread's registers,
 * flags, state and PC, the memory, statistics, status and fault must be
 * the same. Half the rounds give the QPUs four programs 8 KiB apart, the
 * same loop with other random words, so that they share predecode entries
 * and replace each other's.
 */
T_TEST(deferred_turns_match_reference)
{
	enum { ROUNDS = 10, SLOTS = 28 };
	static const char *const body[] = {
		"nop ; nop ; ldunifrf.rf10", "nop ; nop ; ldunifrf.rf5",
		"eidx rf30 ; nop", "shl rf30, rf30, 2 ; nop",
		"add rf10, rf10, rf30 ; nop", "loop:",
		"R", "R", "R", "R", "R", "R", "nop ; mov tmud, rf3",
		"nop ; mov tmua, rf10", "R", "R", "R", "R",
		"nop ; mov tmua, rf10", "R", "R", "R",
		"nop ; nop ; ldtmu.rf31", "R", "R",
		"sub.pushz rf5, rf5, 1 ; nop", "b.anyna  loop", "R", "R", "R",
	};
	static const unsigned int threads[] = { 1, 4 };
	uint64_t state = 0xdefe;
	unsigned int round, path, i, k, q, s, slot_of[SLOTS], nslots = 0;
	static struct emu_view view[2];
	char src[4096];
	size_t len = 0, b, tn;

	for (i = 0; i < T_ARRAY_SIZE(body); i++) {
		if (!strcmp(body[i], "R"))
			slot_of[nslots++] = i - 1;	/* "loop:" is no word */
		len += (size_t)snprintf(src + len, sizeof(src) - len, "%s\n",
					strcmp(body[i], "R") ? body[i] : "nop ; nop");
	}
	T_CHECK(nslots <= SLOTS);
	for (b = 0; b < T_ARRAY_SIZE(boards); b++) {
		int gen = qpu_v3d_emu_board(boards[b])->gen;
		unsigned int nq = qpu_v3d_emu_board(boards[b])->slices *
				  qpu_v3d_emu_board(boards[b])->qpus_per_slice;

		for (tn = 0; tn < T_ARRAY_SIZE(threads); tn++) {
			for (round = 0; round < ROUNDS; round++) {
				uint64_t words[4][SLOTS], chunk_state = t_rand(&state);
				uint32_t unif[UNIF_BYTES / 4];
				bool alias = round & 1;
				uint64_t limit = round % 5 == 4 ? 300 + t_rand(&state) % 500 : 0;
				struct rig r[2];

				for (i = 0; i < 4; i++)
					for (k = 0; k < nslots; k++)
						words[i][k] = random_alu_word(gen, &state);
				for (k = 0; k < UNIF_BYTES / 4; k++)
					unif[k] = (uint32_t)t_rand(&state);
				for (path = 0; path < 2; path++) {
					if (!rig_init(&r[path], boards[b], src))
						return;
					for (i = 1; alias && i < 4; i++)
						memcpy(r[path].code + i * 8192,
						       r[path].code, 4096);
					for (i = 0; i < (alias ? 4 : 1); i++)
						for (k = 0; k < nslots; k++)
							memcpy(r[path].code + i * 8192 +
							       slot_of[k] * 8,
							       &words[i][k], 8);
					memcpy(r[path].unif, unif, sizeof(unif));
					for (k = 0; k < UNIF_BYTES / 4; k += 16) {
						unif32(&r[path])[k] = r[path].data_va;
						unif32(&r[path])[k + 1] = 2 + unif[k + 1] % 12;
					}
					qpu_v3d_emu_set_predecode(r[path].emu, path);
					qpu_v3d_emu_set_limit(r[path].emu, limit);
					for (q = 0; q < nq; q++) {
						uint32_t code = r[path].code_va +
								(alias ? (q % 4) * 8192 : 0);

						for (s = 0; s < threads[tn]; s++) {
							int e = qpu_v3d_emu_start(r[path].emu,
								q, s, threads[tn], code,
								r[path].unif_va + 64 * (q * 4 + s));

							T_EQ_U64(0, e);
						}
					}
				}
				for (i = 0; i < 200; i++) {
					uint64_t budget = 1 + t_rand(&chunk_state) % 400;

					for (path = 0; path < 2; path++)
						emu_view(&r[path], qpu_v3d_emu_run(r[path].emu,
										   budget),
							 &view[path]);
					T_EQ_U64(view[0].status, view[1].status);
					T_CHECK(!memcmp(&view[0], &view[1], sizeof(view[0])));
					if (view[0].status != QPU_V3D_EMU_RUNNING)
						break;
				}
				rig_free(&r[0]);
				rig_free(&r[1]);
			}
		}
	}
}

/*
 * A QPU writes, through the TMU, an instruction another QPU runs in a long
 * straight line of deferred turns (both predecoded by a first run):
 * the turns taken before the write run the old word, those after it the
 * new one, as with one instruction a turn.
 */
T_TEST(code_write_during_deferred_turns)
{
	static const char *const writer =	/* 13 words, then its tmua */
		"nop ; nop ; ldunifrf.rf10\n"
		"nop ; nop ; ldunifrf.rf11\n"
		"nop ; nop ; ldunifrf.rf12\n"
		"eidx rf1 ; nop\n"
		"and rf1, rf1, 1 ; nop\n"
		"shl rf2, rf1, 2 ; nop\n"
		"add rf10, rf10, rf2 ; nop\n"
		"xor rf3, rf11, rf12 ; nop\n"
		"shl rf4, rf1, -1 ; nop\n"
		"asr rf4, rf4, -1 ; nop\n"
		"and rf3, rf3, rf4 ; nop\n"
		"xor rf3, rf3, rf11 ; nop\n"
		"nop ; mov tmud, rf3\n"
		"nop ; mov tmua, rf10\n";
	enum { WRITER = 14, WRITE_TURN = 13, ADDS = 64 };
	unsigned int at, path, b, runs_new = 0;
	char src[8192];
	size_t len;

	len = (size_t)snprintf(src, sizeof(src), "%s%s", writer, end_seq);
	for (at = 0; at < ADDS; at++)
		len += (size_t)snprintf(src + len, sizeof(src) - len,
					"add rf1, rf1, 1 ; nop\n");
	snprintf(src + len, sizeof(src) - len, "%sadd rf1, rf1, 8 ; nop\n",
		 end_seq);
	for (b = 0; b < T_ARRAY_SIZE(boards); b++) {
		for (at = 0; at < 40; at++) {
			uint32_t got[2][16];

			for (path = 0; path < 2; path++) {
				uint32_t adds, repl_off = (WRITER + 7 + ADDS + 7) * 8;
				struct rig r;

				if (!rig_init(&r, boards[b], src))
					return;
				qpu_v3d_emu_set_predecode(r.emu, path);
				adds = r.code_va + (WRITER + 7) * 8;
				/* both predecoded: the writer writes data first */
				unif32(&r)[0] = r.data_va;
				T_EQ_U64(0, qpu_v3d_emu_start(r.emu, 0, 0, 1, r.code_va,
							      r.unif_va));
				T_EQ_U64(0, qpu_v3d_emu_start(r.emu, 1, 0, 1, adds,
							      r.unif_va));
				T_EQ_U64(QPU_V3D_EMU_IDLE, qpu_v3d_emu_run(r.emu, 100000));
				unif32(&r)[0] = adds + 8 * at;
				memcpy(&unif32(&r)[1], r.code + repl_off, 8);
				T_EQ_U64(0, qpu_v3d_emu_start(r.emu, 0, 0, 1, r.code_va,
							      r.unif_va));
				T_EQ_U64(0, qpu_v3d_emu_start(r.emu, 1, 0, 1, adds,
							      r.unif_va));
				T_EQ_U64(QPU_V3D_EMU_IDLE, qpu_v3d_emu_run(r.emu, 100000));
				T_EQ_U64(0, qpu_v3d_emu_get_reg(r.emu, 1, 0,
								QPU_V3D_EMU_FILE_RF, 1,
								got[path]));
				rig_free(&r);
			}
			T_EQ_U64(ADDS + (at >= WRITE_TURN ? 7 : 0), got[1][0]);
			T_CHECK(!memcmp(got[0], got[1], sizeof(got[0])));
			runs_new += at >= WRITE_TURN;
		}
	}
	T_CHECK(runs_new > 0);
}

/*
 * A QPU's first run through code 8 KiB past another's straight line of
 * deferred turns: its instructions take the predecode entries of those
 * the other QPU's turns were taken on and not run yet, which run as they
 * were fetched.
 */
T_TEST(predecode_alias_during_deferred_turns)
{
	enum { ADDS = 64, TWOS = 40 };
	unsigned int path, b, i;
	char src[8192];
	size_t len = 0;

	for (i = 0; i < ADDS; i++)
		len += (size_t)snprintf(src + len, sizeof(src) - len,
					"add rf1, rf1, 1 ; nop\n");
	len += (size_t)snprintf(src + len, sizeof(src) - len, "%s", end_seq);
	for (i = 0; i < TWOS; i++)
		len += (size_t)snprintf(src + len, sizeof(src) - len,
					"add rf1, rf1, 2 ; nop\n");
	for (b = 0; b < T_ARRAY_SIZE(boards); b++) {
		uint32_t got[2][2][16];

		for (path = 0; path < 2; path++) {
			uint32_t other;
			struct rig r;

			if (!rig_init(&r, boards[b], src))
				return;
			/* three entries ahead of the first QPU */
			other = 8192 + 3 * 8;
			memcpy(r.code + other, r.code + (ADDS + 7) * 8,
			       (TWOS + 7) * 8);
			qpu_v3d_emu_set_predecode(r.emu, path);
			T_EQ_U64(0, qpu_v3d_emu_start(r.emu, 0, 0, 1, r.code_va,
						      r.unif_va));
			T_EQ_U64(QPU_V3D_EMU_IDLE, qpu_v3d_emu_run(r.emu, 100000));
			T_EQ_U64(0, qpu_v3d_emu_start(r.emu, 0, 0, 1, r.code_va,
						      r.unif_va));
			T_EQ_U64(0, qpu_v3d_emu_start(r.emu, 1, 0, 1,
						      r.code_va + other, r.unif_va));
			T_EQ_U64(QPU_V3D_EMU_IDLE, qpu_v3d_emu_run(r.emu, 100000));
			for (i = 0; i < 2; i++)
				T_EQ_U64(0, qpu_v3d_emu_get_reg(r.emu, i, 0,
								QPU_V3D_EMU_FILE_RF, 1,
								got[path][i]));
			rig_free(&r);
		}
		T_EQ_U64(ADDS, got[1][0][0]);
		T_EQ_U64(2 * TWOS, got[1][1][0]);
		T_CHECK(!memcmp(got[0], got[1], sizeof(got[0])));
	}
}

/* Rounding and conversion edge cases, on the functions the ALU runs. */
T_TEST(float_edges)
{
	T_EQ_U64(u_of(2.0f), qpu_v3d_fround(u_of(2.5f), 0));
	T_EQ_U64(u_of(4.0f), qpu_v3d_fround(u_of(3.5f), 0));
	T_EQ_U64(u_of(-2.0f), qpu_v3d_fround(u_of(-2.5f), 1));
	T_EQ_U64(u_of(-3.0f), qpu_v3d_fround(u_of(-2.5f), 2));
	T_EQ_U64(u_of(3.0f), qpu_v3d_fround(u_of(2.25f), 3));
	T_EQ_U64(0x80000000u, qpu_v3d_fround(u_of(-0.25f), 0));
	T_EQ_U64(2, qpu_v3d_ftoi(u_of(2.5f), 0));
	T_EQ_U64(3, qpu_v3d_ftoi(u_of(3.7f), 1));
	T_EQ_U64((uint32_t)-3, qpu_v3d_ftoi(u_of(-3.7f), 1));
	T_EQ_U64(0x7fffffffu, qpu_v3d_ftoi(u_of(3e9f), 1));
	T_EQ_U64(0x80000000u, qpu_v3d_ftoi(u_of(-3e9f), 1));
	T_EQ_U64(0, qpu_v3d_ftoi(0x7fc00000u, 1));
	T_EQ_U64(0, qpu_v3d_ftouz(u_of(-5.0f)));
	T_EQ_U64(3000000000u, qpu_v3d_ftouz(u_of(3e9f)));
	T_EQ_U64(u_of(16777216.0f), qpu_v3d_itof(16777217));	/* ties to even */
	T_EQ_U64(u_of(1.0f + 0x1p-23f), qpu_v3d_fadd(u_of(1.0f), u_of(0x1.8p-24f)));
	T_EQ_U64(0, qpu_v3d_fadd(0x00000001u, 0));		/* denormal flushed */
	T_EQ_U64(0x7f800000u, qpu_v3d_fmul(0x7f7fffffu, u_of(2.0f)));
	T_EQ_U64(0x7fc00000u, qpu_v3d_fmul(0x7f800000u, 0));
	T_EQ_U64(0x7fc00000u, qpu_v3d_fadd(0x7f800000u, 0xff800000u));
	T_EQ_U64(0, qpu_v3d_fadd(u_of(1.0f), u_of(-1.0f)));
}

/*
 * The 16-lane fadd, fsub and fmul, on the host's float unit (each SIMD
 * form it has) and with integers, against the lane functions on every pair of edge values (signed
 * zeros, denormals, the normal range's ends, Inf, quiet and signalling
 * NaNs of both signs) and on products that round to the smallest normal
 * on the host's denormal grid but to zero in the reference.
 */
T_TEST(float16_edges_match_lanes)
{
	static const uint32_t v[] = {
		0x00000000u, 0x80000000u, 0x00000001u, 0x807fffffu, 0x00800000u,
		0x80800000u, 0x00800001u, 0x3f800000u, 0xbf800000u, 0x3f800001u,
		0x7f7fffffu, 0xff7fffffu, 0x7f800000u, 0xff800000u, 0x7fc00000u,
		0xffc00001u, 0x7f800001u, 0x203504f3u, 0x1fb504f3u, 0x9fb504f3u,
		0x1f800000u, 0x20000000u, 0x4b800000u, 0x33800000u, 0x00400000u,
	};
	const unsigned int n = sizeof(v) / sizeof(v[0]);
	uint32_t a[16], b[16], got[16];
	uint64_t state = 0xf1a7;
	unsigned int i, j, k, host, round;
	int level, top = qpu_emu_float_simd(-1);

	if (top < 1)
		top = 1;	/* arm64's host form */

	for (round = 0; round < n * n / 16 + 64; round++) {
		for (k = 0; k < 16; k++) {
			i = (round * 16 + k) % (n * n);
			a[k] = round < n * n / 16 + 1 ? v[i / n] :
			       0x1f000000u + (uint32_t)(t_rand(&state) % 0x01800000u);
			b[k] = round < n * n / 16 + 1 ? v[i % n] :
			       0x1f000000u + (uint32_t)(t_rand(&state) % 0x01800000u);
			if (round >= n * n / 16 + 1 && (k & 1))
				b[k] ^= 0x80000000u;
		}
		for (level = 0; level <= top; level++) {
			host = level > 0;
			if (host)	/* SSE2 (or arm64's), then AVX-512 */
				qpu_emu_float_simd(level);
			qpu_v3d_fadd16(a, b, 0, got, host);
			for (j = 0; j < 16; j++)
				T_EQ_U64(qpu_v3d_fadd(a[j], b[j]), got[j]);
			qpu_v3d_fadd16(a, b, 0x80000000u, got, host);
			for (j = 0; j < 16; j++)
				T_EQ_U64(qpu_v3d_fadd(a[j], b[j] ^ 0x80000000u), got[j]);
			qpu_v3d_fmul16(a, b, got, host);
			for (j = 0; j < 16; j++)
				T_EQ_U64(qpu_v3d_fmul(a[j], b[j]), got[j]);
		}
	}
	qpu_emu_float_simd(-1);
	/* the rounding edge itself: the host's 2^-126, the reference's 0 */
	T_EQ_U64(0, qpu_v3d_fmul(0x203504f3u, 0x1fb504f3u));
}

/* SFU values against the host's libm, the precision qpu_v3d_emu_float.c
 * states (and py-videocore's rtol 1e-4 with room). */
T_TEST(sfu_values)
{
	static const float xs[] = { 0.1f, 0.25f, 0.5f, 1.0f, 2.0f, 3.0f, 7.5f, 100.0f };
	size_t i;

	for (i = 0; i < T_ARRAY_SIZE(xs); i++) {
		float x = xs[i];

		T_CHECK(fabs(f_of(qpu_v3d_sfu(QPU_V3D_SFU_RECIP, u_of(x))) - 1 / x) <= 1e-6 / x);
		T_CHECK(fabs(f_of(qpu_v3d_sfu(QPU_V3D_SFU_RSQRT, u_of(x))) - 1 / sqrt(x)) <= 1e-6);
		T_CHECK(fabs(f_of(qpu_v3d_sfu(QPU_V3D_SFU_RSQRT2, u_of(x))) - 1 / sqrt(x)) <= 1e-6);
		T_CHECK(fabs(f_of(qpu_v3d_sfu(QPU_V3D_SFU_LOG, u_of(x))) - log2(x)) <= 1e-6);
		T_CHECK(fabs(f_of(qpu_v3d_sfu(QPU_V3D_SFU_EXP, u_of(x / 16))) - exp2(x / 16)) <= 1e-5);
		T_CHECK(fabs(f_of(qpu_v3d_sfu(QPU_V3D_SFU_SIN, u_of(x / 200))) -
			     sin(M_PI * x / 200)) <= 1e-7);
		T_CHECK(fabs(f_of(qpu_v3d_sfu(QPU_V3D_SFU_SIN, u_of(-x / 200))) +
			     sin(M_PI * x / 200)) <= 1e-7);
	}
	T_EQ_U64(u_of(1.0f), qpu_v3d_sfu(QPU_V3D_SFU_SIN, u_of(0.75f)));
	T_EQ_U64(u_of(-1.0f), qpu_v3d_sfu(QPU_V3D_SFU_SIN, u_of(-2.0f)));
	T_EQ_U64(0x7f800000u, qpu_v3d_sfu(QPU_V3D_SFU_RECIP, 0));
	T_EQ_U64(0xff800000u, qpu_v3d_sfu(QPU_V3D_SFU_LOG, 0));
	T_EQ_U64(u_of(1.0f), qpu_v3d_sfu(QPU_V3D_SFU_EXP, 0));
}

/* SFU ops of both generations: their result in the next instruction. */
T_TEST(sfu_ops)
{
	uint32_t want[16], x[16];
	unsigned int i;
	size_t b;

	for (i = 0; i < 16; i++)
		x[i] = u_of(0.5f + (float)i);
	for (b = 0; b < T_ARRAY_SIZE(boards); b++) {
		for (i = 0; i < 16; i++)
			want[i] = qpu_v3d_sfu(QPU_V3D_SFU_RECIP, x[i]);
		run_op(boards[b], "recip rf4, rf1 ; nop\nnop ; mov rf3, rf4",
		       x, x, want, "recip op");
		for (i = 0; i < 16; i++)
			want[i] = qpu_v3d_sfu(QPU_V3D_SFU_LOG, x[i]);
		run_op(boards[b], "log rf3, rf1 ; nop", x, x, want, "log op");
	}
}

/* 4.2's SFU magic writes: r4 takes the result for the second instruction
 * after the write, not the first (measured as on a Pi: read at +1, +2). */
T_TEST(sfu_r4_latency)
{
	uint32_t v[16];
	struct rig r;

	if (!rig_init(&r, QPU_V3D_EMU_BOARD_PI4,
		      "nop ; mov r4, 7\n"
		      "nop ; nop ; ldunifrf.rf1\n"
		      "nop ; mov recip, rf1\n"
		      "nop ; mov rf5, r4\n"
		      "nop ; mov rf6, r4\n"))
		return;
	unif32(&r)[0] = u_of(4.0f);
	T_EQ_U64(QPU_V3D_EMU_IDLE, rig_run(&r));
	reg(&r, 5, v);
	T_EQ_U64(7, v[0]);
	reg(&r, 6, v);
	T_EQ_U64(u_of(0.25f), v[15]);
	rig_free(&r);
}

/* --- signals ------------------------------------------------------------- */

T_TEST(ldunif_latency)
{
	uint32_t v[16];
	struct rig r;
	size_t b;

	for (b = 0; b < T_ARRAY_SIZE(boards); b++) {
		bool v71 = qpu_v3d_emu_board(boards[b])->gen == 71;

		if (!rig_init(&r, boards[b], v71 ?
			      "nop ; nop ; ldunif\n"
			      "nop ; mov rf3, rf0 ; ldunif\n"
			      "nop ; mov rf4, rf0 ; ldunifrf.rf5\n"
			      "nop ; mov unifa, rf5\n"
			      "nop ; nop ; ldunifa\n"
			      "nop ; mov rf6, rf0 ; ldunifarf.rf7\n" :
			      "nop ; nop ; ldunif\n"
			      "nop ; mov rf3, r5 ; ldunif\n"
			      "nop ; mov rf4, r5 ; ldunifrf.rf5\n"
			      "nop ; mov unifa, rf5\n"
			      "nop ; nop ; ldunifa\n"
			      "nop ; mov rf6, r5 ; ldunifarf.rf7\n"))
			return;
		unif32(&r)[0] = 11;
		unif32(&r)[1] = 22;
		unif32(&r)[2] = r.unif_va + 64;
		unif32(&r)[16] = 33;
		unif32(&r)[17] = 44;
		T_EQ_U64(QPU_V3D_EMU_IDLE, rig_run(&r));
		reg(&r, 3, v);
		T_EQ_U64(11, v[0]);
		reg(&r, 4, v);
		T_EQ_U64(22, v[9]);
		reg(&r, 6, v);
		T_EQ_U64(33, v[15]);
		reg(&r, 7, v);
		T_EQ_U64(44, v[3]);
		T_EQ_U64(3, qpu_v3d_emu_get_stats(r.emu)->uniforms);
		T_EQ_U64(2, qpu_v3d_emu_get_stats(r.emu)->unifa_reads);
		rig_free(&r);
	}
}

/* Lane moves: 4.2's rot signal, r5 (quad) and r5rep; 7.1's rot, rotq,
 * shuffle and quad/rep. */
T_TEST(lane_moves)
{
	uint32_t want[16], x[16];
	unsigned int i;

	for (i = 0; i < 16; i++)
		x[i] = 100 + i;
	for (i = 0; i < 16; i++)
		want[i] = x[(i + 1) & 15];
	run_op(QPU_V3D_EMU_BOARD_PI4, "nop ; mov r1, rf1\nnop ; mov rf3, r1 ; rot(-1)",
	       x, x, want, "rot(-1)");
	for (i = 0; i < 16; i++)
		want[i] = x[(i - 3) & 15];
	run_op(QPU_V3D_EMU_BOARD_PI4, "nop ; mov r1, rf1\nnop ; mov rf3, r1 ; rot(3)",
	       x, x, want, "rot(3)");
	/* a register-file operand turns inside its quad (py-videocore6's
	 * test_quad_rotate: "rot signal with rfN source performs as a quad
	 * rotate") */
	for (i = 0; i < 16; i++)
		want[i] = 2 * x[(i & ~3u) | ((i - 1) & 3)];
	run_op(QPU_V3D_EMU_BOARD_PI4, "nop ; add rf3, rf1, rf1 ; rot(1)", x, x,
	       want, "quad rot of rf");
	for (i = 0; i < 16; i++)
		want[i] = x[i & ~3u];
	run_op(QPU_V3D_EMU_BOARD_PI4, "nop ; mov r5, rf1\nnop ; mov rf3, r5",
	       x, x, want, "r5 quad");
	run_op(QPU_V3D_EMU_BOARD_PI5_3X4, "nop ; mov quad, rf1\nnop ; mov rf3, rf0",
	       x, x, want, "quad");
	for (i = 0; i < 16; i++)
		want[i] = x[0];
	run_op(QPU_V3D_EMU_BOARD_PI4, "nop ; mov r5rep, rf1\nnop ; mov rf3, r5",
	       x, x, want, "r5rep");
	run_op(QPU_V3D_EMU_BOARD_PI5_3X4, "nop ; mov rep, rf1\nnop ; mov rf3, rf0",
	       x, x, want, "rep");
	for (i = 0; i < 16; i++)
		want[i] = x[(i + 2) & 15];
	run_op(QPU_V3D_EMU_BOARD_PI5_3X4, "rot rf3, rf1, 2 ; nop", x, x, want, "rot");
	for (i = 0; i < 16; i++)
		want[i] = x[(i & ~3u) | ((i + 1) & 3)];
	run_op(QPU_V3D_EMU_BOARD_PI5_3X4, "rotq rf3, rf1, 1 ; nop", x, x, want, "rotq");
	for (i = 0; i < 16; i++)
		want[i] = x[15 - i];
	run_op(QPU_V3D_EMU_BOARD_PI5_3X4,
	       "eidx rf4 ; nop\nsub rf4, 15, rf4 ; nop\nshuffle rf3, rf1, rf4 ; nop",
	       x, x, want, "shuffle");
}

/* The flag-stack ops and vfl* results (py-videocore6's test_cond_flx and
 * test_cond_vflx). */
T_TEST(flag_stack_ops)
{
	uint32_t want[16], x[16], y[16];
	unsigned int i;
	size_t b;

	for (i = 0; i < 16; i++) {
		x[i] = 0x1000 + i;
		y[i] = i & 1;
	}
	for (b = 0; b < T_ARRAY_SIZE(boards); b++) {
		/* a = (y == 0), b = a's old value (all 0) */
		for (i = 0; i < 16; i++)
			want[i] = x[i] << 2 | (i & 1 ? 0 : 3);
		run_op(boards[b], "nop ; mov.pushz -, rf2\nflapush rf3, rf1 ; nop",
		       x, y, want, "flapush");
		for (i = 0; i < 16; i++)
			want[i] = x[i] << 2;
		run_op(boards[b], "nop ; mov.pushz -, rf2\nflbpush rf3, rf1 ; nop",
		       x, y, want, "flbpush");
		for (i = 0; i < 16; i++)
			want[i] = x[i] >> 2;
		run_op(boards[b], "flpop rf3, rf1 ; nop", x, y, want, "flpop");
		for (i = 0; i < 16; i++)
			want[i] = i & 1 ? 0x10001 : 0;
		run_op(boards[b], "nop ; mov.pushz -, rf2\nvflna rf3 ; nop", x, y,
		       want, "vflna");
	}
}

/* A vec3 store of 1, 2, 3 at word 2 of a block, its address written
 * with @cond; data as it leaves it. */
static void vec3_store(struct rig *r, enum qpu_v3d_emu_board board,
		       const char *cond)
{
	char src[512];

	snprintf(src, sizeof(src),
		 "nop ; nop ; ldunifrf.rf10\n"
		 "nop ; nop ; ldunifrf.rf11\n"
		 "nop ; mov tmuc, rf11\n"
		 "nop ; mov tmud, 1\n"
		 "nop ; mov tmud, 2\n"
		 "nop ; mov tmud, 3\n"
		 "nop ; mov%s tmua, rf10\n"
		 "tmuwt - ; nop\n", cond);
	if (!rig_init(r, board, src))
		return;
	unif32(r)[0] = r->data_va + 8;		/* word 2 of a block */
	unif32(r)[1] = 0xfffffffb;		/* vec3, per pixel */
	T_EQ_U64(QPU_V3D_EMU_IDLE, rig_run(r));
}

/* Vector TMU words: 4.2 wraps them inside their 16-byte block, 7.1 not
 * (py-videocore6's vec naive writes, py-videocore7's strided reads); a
 * condition masks the lanes' stores. */
T_TEST(tmu_vector_wrap_per_generation)
{
	struct rig r;
	uint32_t *d;
	size_t b;

	for (b = 0; b < T_ARRAY_SIZE(boards); b++) {
		bool v71 = qpu_v3d_emu_board(boards[b])->gen == 71;

		vec3_store(&r, boards[b], ".ifa");	/* no flag: no lane */
		d = data32(&r);
		T_EQ_U64(0, d[2]);
		rig_free(&r);
		vec3_store(&r, boards[b], "");
		d = data32(&r);
		T_EQ_U64(1, d[2]);
		T_EQ_U64(2, d[3]);
		T_EQ_U64(v71 ? 0 : 3, d[0]);	/* 4.2 wraps to word 0 */
		T_EQ_U64(v71 ? 3 : 0, d[4]);
		rig_free(&r);
	}
}

/* --- flags, conditions, branches ---------------------------------------- */

T_TEST(flags_and_conditions)
{
	uint32_t v[16];
	uint16_t a, b;
	struct rig r;
	unsigned int i;
	size_t k;

	for (k = 0; k < T_ARRAY_SIZE(boards); k++) {
		if (!rig_init(&r, boards[k],
			      "eidx rf1 ; nop\n"
			      "sub.pushn rf2, rf1, 5 ; nop\n"	/* a: lanes < 5 */
			      "sub.pushz rf2, rf1, 9 ; nop\n"	/* a: lane 9, b: < 5 */
			      "nop ; mov.ifb rf3, 1\n"
			      "nop ; mov.ifna rf4, 2\n"
			      "vflb rf5 ; nop\n"
			      "sub.andnz rf2, rf1, 9 ; nop\n"	/* a &= !z: none */
			      "vfla rf6 ; nop\n"))
			return;
		T_EQ_U64(QPU_V3D_EMU_IDLE, rig_run(&r));
		T_EQ_U64(0, qpu_v3d_emu_get_flags(r.emu, 0, 0, &a, &b));
		T_EQ_U64(0, a);
		T_EQ_U64(0x1f, b);
		reg(&r, 3, v);
		for (i = 0; i < 16; i++)
			T_EQ_U64(i < 5 ? 1 : 0, v[i]);
		reg(&r, 4, v);
		for (i = 0; i < 16; i++)
			T_EQ_U64(i != 9 ? 2 : 0, v[i]);
		reg(&r, 5, v);
		for (i = 0; i < 16; i++)
			T_EQ_U64(i < 5 ? 0x10001 : 0, v[i]);
		reg(&r, 6, v);
		for (i = 0; i < 16; i++)
			T_EQ_U64(0, v[i]);
		rig_free(&r);
	}
}

/* A counted loop: the branch takes effect after its three delay slots,
 * which run every time. */
T_TEST(branch_loop_and_delay_slots)
{
	uint32_t v[16];
	struct rig r;
	size_t k;

	for (k = 0; k < T_ARRAY_SIZE(boards); k++) {
		if (!rig_init(&r, boards[k],
			      "nop ; mov rf1, 10\n"
			      "nop ; mov rf2, 0\n"
			      "nop ; mov rf3, 0\n"
			      "loop:\n"
			      "sub.pushz rf1, rf1, 1 ; nop\n"
			      "b.anyna  loop\n"
			      "add rf2, rf2, 1 ; nop\n"
			      "nop ; nop\n"
			      "add rf3, rf3, 1 ; nop\n"
			      "add rf4, rf3, 0 ; nop\n"))
			return;
		T_EQ_U64(QPU_V3D_EMU_IDLE, rig_run(&r));
		reg(&r, 2, v);
		T_EQ_U64(10, v[0]);
		reg(&r, 3, v);
		T_EQ_U64(10, v[15]);
		rig_free(&r);
	}
}

/* Link register: written only with branch bit 23 (py-videocore's link
 * flag), to the address past the delay slots; b lri returns there. */
T_TEST(branch_link_bit23)
{
	char src[1024];
	uint32_t v[16];
	struct rig r;
	uint64_t *w;
	size_t k, i;

	for (k = 0; k < T_ARRAY_SIZE(boards); k++) {
		for (i = 0; i < 2; i++) {
			/* "b.link": the text form of bit 23 */
			snprintf(src, sizeof(src), "nop ; mov rf2, 0\n"
				 "%s  sub\n"		/* word 1 */
				 "nop ; nop\n"
				 "nop ; nop\n"
				 "nop ; nop\n"
				 "add rf2, rf2, 1 ; nop\n"	/* link target */
				 "b  end\n"
				 "nop ; nop\n"
				 "nop ; nop\n"
				 "nop ; nop\n"
				 "sub:\n"
				 "lr rf3 ; nop\n"
				 "b  lri\n"
				 "nop ; nop\n"
				 "nop ; nop\n"
				 "nop ; nop\n"
				 "end:\n", i ? "b.link" : "b");
			if (!rig_init(&r, boards[k], src))
				return;
			w = (uint64_t *)r.code;
			T_EQ_U64(i ? 1ull << 23 : 0, w[1] & 1ull << 23);
			if (i) {
				T_EQ_U64(QPU_V3D_EMU_IDLE, rig_run(&r));
				reg(&r, 2, v);
				T_EQ_U64(1, v[0]);
				reg(&r, 3, v);
				T_EQ_U64(r.code_va + 5 * 8, v[0]);
			} else {
				/* no link: b lri goes to 0, which is unmapped */
				T_EQ_U64(QPU_V3D_EMU_FAULT, rig_run(&r));
				T_EQ_U64(QPU_MEM_FETCH,
					 qpu_v3d_emu_get_fault(r.emu)->f.access);
				T_EQ_U64(0, qpu_v3d_emu_get_fault(r.emu)->f.addr);
			}
			rig_free(&r);
		}
	}
}

/* Uniform-stream branches: absolute and relative targets from the stream
 * (as py-videocore7's test_uniform_branch_*), and from a register's lane 1. */
T_TEST(branch_uniforms)
{
	static const char *const forms[] = {
		"bu  next, a:unif\n", "bu  next, r:unif\n", "bu  next, rf1\n",
	};
	uint32_t v[16];
	struct rig r;
	size_t f;

	for (f = 0; f < T_ARRAY_SIZE(forms); f++) {
		char src[512];

		snprintf(src, sizeof(src),
			 "eidx rf1 ; nop\n"
			 "shl rf1, rf1, 4 ; nop\n"	/* lane 1: 16 */
			 "%s"
			 "nop ; nop\n"
			 "nop ; nop\n"
			 "nop ; nop\n"
			 "next:\n"
			 "nop ; nop ; ldunifrf.rf3\n", forms[f]);
		if (!rig_init(&r, QPU_V3D_EMU_BOARD_PI5_3X4, src))
			return;
		unif32(&r)[0] = f == 0 ? r.unif_va + 12 : 8;	/* abs: unif[3] */
		unif32(&r)[1] = 5;
		unif32(&r)[2] = 6;
		unif32(&r)[3] = 7;
		unif32(&r)[4] = 8;
		if (f == 2) {
			rig_free(&r);
			snprintf(src, sizeof(src),
				 "nop ; nop ; ldunifrf.rf2\n"
				 "eidx rf1 ; nop\n"
				 "shl rf1, rf1, 4 ; nop\n"
				 "add rf1, rf1, rf2 ; nop\n"
				 "add rf1, rf1, 4 ; nop\n"	/* aligned down */
				 "%s"
				 "nop ; nop\n"
				 "nop ; nop\n"
				 "nop ; nop\n"
				 "next:\n"
				 "nop ; nop ; ldunifrf.rf3\n", forms[f]);
			if (!rig_init(&r, QPU_V3D_EMU_BOARD_PI5_3X4, src))
				return;
			unif32(&r)[0] = r.unif_va;
			unif32(&r)[4] = 8;
		}
		T_EQ_U64(QPU_V3D_EMU_IDLE, rig_run(&r));
		reg(&r, 3, v);
		/* abs: unif[3] = 7; rel: past unif[0] (4) + 8 = unif[3]; reg:
		 * lane 1 = base + 20, aligned down to 8: unif[4] */
		T_EQ_U64(f == 2 ? 8 : 7, v[0]);
		rig_free(&r);
	}
}

/* --- TMU ------------------------------------------------------------------ */

T_TEST(tmu_write_read_vec_atomic)
{
	uint32_t *d, v[16];
	struct rig r;
	unsigned int i;
	size_t k;

	for (k = 0; k < T_ARRAY_SIZE(boards); k++) {
		if (!rig_init(&r, boards[k],
			      "nop ; nop ; ldunifrf.rf10\n"
			      "eidx rf12 ; nop\n"
			      "shl rf13, rf12, 2 ; nop\n"
			      "add rf11, rf10, rf13 ; nop\n"
			      /* store eidx + 1000 to data[0..15] */
			      "add rf1, rf12, 15 ; nop\n"
			      "nop ; mov tmud, rf1\n"
			      "nop ; mov tmua, rf11\n"
			      "tmuwt - ; nop\n"
			      /* read back as a vec2 at data + 8 * lane: tmuau's config */
			      "shl rf14, rf12, 3 ; nop\n"
			      "add rf14, rf10, rf14 ; nop\n"
			      "nop ; mov tmuau, rf14\n"
			      "nop ; nop ; ldtmu.rf2\n"
			      "nop ; nop ; ldtmu.rf3\n"
			      /* atomic add 3 at data[lane] through tmuc's config */
			      "nop ; nop ; ldunifrf.rf15\n"
			      "nop ; mov tmuc, rf15\n"
			      "nop ; mov tmud, 3\n"
			      "nop ; mov tmua, rf11\n"
			      "nop ; nop ; ldtmu.rf4\n"))
			return;
		unif32(&r)[0] = r.data_va;
		unif32(&r)[1] = 0xfffffffa;	/* vec2, per pixel, regular */
		unif32(&r)[2] = 0xffffff87;	/* add (op 0), 32-bit, per pixel */
		T_EQ_U64(QPU_V3D_EMU_IDLE, rig_run(&r));
		d = data32(&r);
		for (i = 0; i < 16; i++)
			T_EQ_U64(i + 15 + 3, d[i]);
		reg(&r, 2, v);
		for (i = 0; i < 8; i++)
			T_EQ_U64(2 * i + 15, v[i]);
		reg(&r, 3, v);
		for (i = 0; i < 8; i++)
			T_EQ_U64(2 * i + 16, v[i]);
		reg(&r, 4, v);
		for (i = 0; i < 16; i++)
			T_EQ_U64(i + 15, v[i]);
		T_CHECK(qpu_v3d_emu_get_stats(r.emu)->tmu_writes >= 32);
		rig_free(&r);
	}
}

/* Every atomic op on lane values (one data word; cmpxchg two). */
T_TEST(tmu_atomics)
{
	static const struct {
		unsigned int op;
		uint32_t (*f)(uint32_t old, uint32_t d);
	} ops[] = {
		{ 0, NULL }, { 1, NULL }, { 2, NULL }, { 4, NULL }, { 5, NULL },
		{ 6, NULL }, { 7, NULL }, { 8, NULL }, { 9, NULL }, { 10, NULL },
	};
	size_t k;

	for (k = 0; k < T_ARRAY_SIZE(ops) + 1; k++) {
		bool cmpx = k == T_ARRAY_SIZE(ops);
		unsigned int op = cmpx ? 3 : ops[k].op, i;
		uint32_t v[16], *d, want;
		char src[1024];
		struct rig r;

		snprintf(src, sizeof(src),
			 "nop ; nop ; ldunifrf.rf10\n"
			 "eidx rf12 ; nop\n"
			 "shl rf13, rf12, 2 ; nop\n"
			 "add rf11, rf10, rf13 ; nop\n"
			 "nop ; nop ; ldunifrf.rf15\n"
			 "nop ; mov tmuc, rf15\n"
			 "sub rf1, rf12, 8 ; nop\n"
			 "%s"
			 "nop ; mov tmua, rf11\n"
			 "nop ; nop ; ldtmu.rf4\n",
			 cmpx ? "nop ; mov tmudref, rf12\nnop ; mov tmuoff, rf1\n" :
				"nop ; mov tmud, rf1\n");
		if (!rig_init(&r, QPU_V3D_EMU_BOARD_PI5_3X4, src))
			return;
		unif32(&r)[0] = r.data_va;
		unif32(&r)[1] = 0xffffff87 | op << 3;
		d = data32(&r);
		for (i = 0; i < 16; i++)
			d[i] = i & 1 ? i : 5;
		T_EQ_U64(QPU_V3D_EMU_IDLE, rig_run(&r));
		reg(&r, 4, v);
		for (i = 0; i < 16; i++) {
			uint32_t old = i & 1 ? i : 5, x = i - 8;

			T_EQ_U64(old, v[i]);
			switch (op) {
			case 0: want = old + x; break;
			case 1: want = old - x; break;
			case 2: want = x; break;
			case 3: want = old == i ? x : old; break;
			case 4: want = old < x ? old : x; break;
			case 5: want = old > x ? old : x; break;
			case 6: want = (int32_t)old < (int32_t)x ? old : x; break;
			case 7: want = (int32_t)old > (int32_t)x ? old : x; break;
			case 8: want = old & x; break;
			case 9: want = old | x; break;
			default: want = old ^ x; break;
			}
			T_EQ_U64(want, d[i]);
		}
		rig_free(&r);
	}
}

/* A uniform the job wrote through the TMU reads as it was (the uniform
 * cache); the TMU reads the new value. */
T_TEST(uniform_cache_stale_after_tmu_write)
{
	uint32_t v[16];
	struct rig r;
	size_t b;

	for (b = 0; b < T_ARRAY_SIZE(boards); b++) {
		if (!rig_init(&r, boards[b],
			      "nop ; nop ; ldunifrf.rf10\n"	/* &unif[2] */
			      "nop ; mov tmud, 5\n"
			      "nop ; mov tmua, rf10\n"
			      "tmuwt - ; nop\n"
			      "nop ; nop ; ldunifrf.rf11\n"	/* unif[1] */
			      "nop ; nop ; ldunifrf.rf12\n"	/* unif[2]: stale */
			      "nop ; mov tmua, rf10\n"
			      "nop ; nop ; ldtmu.rf13\n"))
			return;
		unif32(&r)[0] = r.unif_va + 8;
		unif32(&r)[1] = 6;
		unif32(&r)[2] = 7;
		T_EQ_U64(QPU_V3D_EMU_IDLE, rig_run(&r));
		reg(&r, 11, v);
		T_EQ_U64(6, v[0]);
		reg(&r, 12, v);
		T_EQ_U64(7, v[0]);
		reg(&r, 13, v);
		T_EQ_U64(5, v[0]);
		T_EQ_U64(5, unif32(&r)[2]);
		rig_free(&r);
	}
}

/*
 * Past the first STALE_MAX written words, a word in a line the uniform
 * stream read still reads as it was (py-videocore7's 12-QPU scopy writes
 * into its uniforms after megabytes of data); a word elsewhere reads new.
 */
T_TEST(uniform_cache_stale_after_many_writes)
{
	char src[2048];
	uint32_t v[16];
	struct rig r;
	size_t b, len;
	int k;

	len = (size_t)sprintf(src,
			      "nop ; nop ; ldunifrf.rf10\n"	/* data */
			      "nop ; nop ; ldunifrf.rf11\n"	/* &unif[4] */
			      "nop ; nop ; ldunifrf.rf14\n"	/* 64 */
			      "eidx rf12 ; nop\n"
			      "shl rf13, rf12, 2 ; nop\n"
			      "add rf13, rf10, rf13 ; nop\n");
	for (k = 0; k < 5; k++)	/* 80 words */
		len += (size_t)sprintf(src + len,
				       "nop ; mov tmud, rf12\n"
				       "nop ; mov tmua, rf13\n"
				       "add rf13, rf13, rf14 ; nop\n");
	sprintf(src + len, "tmuwt - ; nop\n"
		"nop ; mov tmud, 9\n"
		"nop ; mov tmua, rf11\n"
		"tmuwt - ; nop\n"
		"nop ; nop ; ldunifrf.rf15\n"	/* unif[3] */
		"nop ; nop ; ldunifrf.rf16\n"	/* unif[4]: stale */
		"nop ; mov tmua, rf11\n"
		"nop ; nop ; ldtmu.rf17\n");
	for (b = 0; b < T_ARRAY_SIZE(boards); b++) {
		if (!rig_init(&r, boards[b], src))
			return;
		unif32(&r)[0] = r.data_va;
		unif32(&r)[1] = r.unif_va + 16;
		unif32(&r)[2] = 64;
		unif32(&r)[3] = 6;
		unif32(&r)[4] = 7;
		T_EQ_U64(QPU_V3D_EMU_IDLE, rig_run(&r));
		reg(&r, 15, v);
		T_EQ_U64(6, v[0]);
		reg(&r, 16, v);
		T_EQ_U64(7, v[0]);
		reg(&r, 17, v);
		T_EQ_U64(9, v[0]);
		T_EQ_U64(9, unif32(&r)[4]);
		T_EQ_U64(15, data32(&r)[79]);
		rig_free(&r);
	}
}

/* The lookup FIFO holds 16 / threads vectors: one more faults. */
T_TEST(tmu_fifo_depth)
{
	char src[4096] = "nop ; nop ; ldunifrf.rf10\n";
	struct rig r;
	int i;

	for (i = 0; i < 17; i++)
		strcat(src, "nop ; mov tmua, rf10\n");
	if (!rig_init(&r, QPU_V3D_EMU_BOARD_PI5_3X4, src))
		return;
	unif32(&r)[0] = r.data_va;
	T_EQ_U64(QPU_V3D_EMU_FAULT, rig_run(&r));
	T_EQ_U64(QPU_FAULT_REASON_INSTRUCTION, qpu_v3d_emu_get_fault(r.emu)->f.reason);
	T_EQ_U64(QPU_MEM_TMU, qpu_v3d_emu_get_fault(r.emu)->f.access);
	T_EQ_U64(r.code_va + 17 * 8, qpu_v3d_emu_get_fault(r.emu)->f.pc);
	rig_free(&r);
}

/* --- MMU ------------------------------------------------------------------ */

T_TEST(mmu_layout_and_faults)
{
	struct qpu_v3d_mmu mmu;
	static uint8_t a[100], b[200000], c[8];
	uint32_t va_a, va_b, va_c;

	qpu_v3d_mmu_init(&mmu);
	T_EQ_U64(0, qpu_v3d_mmu_map(&mmu, a, sizeof(a), &va_a));
	T_EQ_U64(0, qpu_v3d_mmu_map(&mmu, b, sizeof(b), &va_b));
	T_EQ_U64(QPU_V3D_MMU_GRANULE, va_a);		/* page 0 never */
	T_EQ_U64(2 * QPU_V3D_MMU_GRANULE, va_b);
	T_EQ_U64(-QPU_V3D_EMU_EINVAL, qpu_v3d_mmu_map(&mmu, c, 0, &va_c));
	T_EQ_U64(0, qpu_v3d_mmu_map(&mmu, c, sizeof(c), &va_c));
	T_EQ_U64(4 * QPU_V3D_MMU_GRANULE, va_c);	/* b spans two granules */
	T_EQ_U64(0, qpu_v3d_mmu_unmap(&mmu, va_a));
	T_EQ_U64(-QPU_V3D_EMU_EINVAL, qpu_v3d_mmu_unmap(&mmu, va_a));
	T_EQ_U64(0, qpu_v3d_mmu_map(&mmu, a, sizeof(a), &va_a));
	T_EQ_U64(QPU_V3D_MMU_GRANULE, va_a);		/* the hole is reused */
	/* not in the job, unless allow_all */
	T_CHECK(qpu_v3d_mmu_translate(&mmu, va_b, 4) == NULL);
	T_EQ_U64(0, qpu_v3d_mmu_job_add(&mmu, va_b));
	T_EQ_U64(-QPU_V3D_EMU_EINVAL, qpu_v3d_mmu_job_add(&mmu, 12345));
	T_CHECK(qpu_v3d_mmu_translate(&mmu, va_b + 8, 4) == b + 8);
	T_CHECK(qpu_v3d_mmu_translate(&mmu, va_b + sizeof(b) - 2, 4) == NULL);
	T_CHECK(qpu_v3d_mmu_translate(&mmu, 0, 4) == NULL);
	T_CHECK(qpu_v3d_mmu_translate(&mmu, va_a, 4) == NULL);
	mmu.allow_all = true;
	T_CHECK(qpu_v3d_mmu_translate(&mmu, va_a, 4) == a);
	T_CHECK(qpu_v3d_mmu_translate(&mmu, 0, 4) == NULL);
	qpu_v3d_mmu_job_clear(&mmu);
	mmu.allow_all = false;
	T_CHECK(qpu_v3d_mmu_translate(&mmu, va_b, 4) == NULL);
}

/* A TMU read of a BO outside the job faults, naming QPU, thread, PC,
 * address and kind; allow_all lets it through. */
T_TEST(mmu_job_fault_and_allow_all)
{
	static uint32_t other[64];
	uint32_t va, v[16];
	struct rig r;
	int allow;

	for (allow = 0; allow < 2; allow++) {
		if (!rig_init(&r, QPU_V3D_EMU_BOARD_PI4,
			      "nop ; nop ; ldunifrf.rf10\n"
			      "nop ; mov tmua, rf10\n"
			      "nop ; nop ; ldtmu.rf1\n"))
			return;
		other[0] = 77;
		T_EQ_U64(0, qpu_v3d_mmu_map(&r.mmu, other, sizeof(other), &va));
		r.mmu.allow_all = allow;
		unif32(&r)[0] = va;
		if (!allow) {
			const struct qpu_v3d_emu_fault *f;

			T_EQ_U64(QPU_V3D_EMU_FAULT, rig_run(&r));
			f = qpu_v3d_emu_get_fault(r.emu);
			T_EQ_U64(QPU_FAULT_REASON_MEMORY, f->f.reason);
			T_EQ_U64(QPU_MEM_TMU, f->f.access);
			T_EQ_U64(va, f->f.addr);
			T_EQ_U64(r.code_va + 8, f->f.pc);
			T_EQ_U64(0, f->f.qpu);
			T_EQ_U64(0, f->thread);
		} else {
			T_EQ_U64(QPU_V3D_EMU_IDLE, rig_run(&r));
			reg(&r, 1, v);
			T_EQ_U64(77, v[0]);
		}
		rig_free(&r);
	}
}

/* A refused TMU write or atomic is a TMU write; a read a TMU read. */
T_TEST(mmu_tmu_write_fault_kind)
{
	static const struct {
		const char *src;
		enum qpu_mem_access kind;
	} cases[] = {
		{ "nop ; mov tmud, 7\nnop ; mov tmua, rf10\ntmuwt - ; nop\n",
		  QPU_MEM_TMU_WRITE },
		{ "nop ; mov tmua, rf10\nnop ; nop ; ldtmu.rf1\n", QPU_MEM_TMU },
		/* an atomic add (tmuau's config from the second uniform) */
		{ "nop ; mov tmud, 7\nnop ; mov tmuau, rf10\n"
		  "nop ; nop ; ldtmu.rf1\n", QPU_MEM_TMU_WRITE },
	};
	char src[512];
	size_t k, b;
	struct rig r;

	for (b = 0; b < T_ARRAY_SIZE(boards); b++) {
		for (k = 0; k < T_ARRAY_SIZE(cases); k++) {
			snprintf(src, sizeof(src), "nop ; nop ; ldunifrf.rf10\n%s",
				 cases[k].src);
			if (!rig_init(&r, boards[b], src))
				return;
			unif32(&r)[0] = 0x100;	/* page 0: never mapped */
			unif32(&r)[1] = 0xffffff87;	/* add, 32-bit */
			T_EQ_U64(QPU_V3D_EMU_FAULT, rig_run(&r));
			T_EQ_U64(QPU_FAULT_REASON_MEMORY,
				 qpu_v3d_emu_get_fault(r.emu)->f.reason);
			T_EQ_U64(cases[k].kind,
				 qpu_v3d_emu_get_fault(r.emu)->f.access);
			T_EQ_U64(0x100, qpu_v3d_emu_get_fault(r.emu)->f.addr);
			rig_free(&r);
		}
	}
}

T_TEST(mmu_uniform_and_fetch_faults)
{
	struct rig r;

	if (!rig_init(&r, QPU_V3D_EMU_BOARD_PI4, "nop ; nop ; ldunif\n"))
		return;
	T_EQ_U64(0, qpu_v3d_emu_start(r.emu, 1, 0, 1, r.code_va, 4));
	T_EQ_U64(QPU_V3D_EMU_FAULT, qpu_v3d_emu_run(r.emu, 100));
	T_EQ_U64(QPU_MEM_UNIFORM, qpu_v3d_emu_get_fault(r.emu)->f.access);
	T_EQ_U64(4, qpu_v3d_emu_get_fault(r.emu)->f.addr);
	T_EQ_U64(1, qpu_v3d_emu_get_fault(r.emu)->f.qpu);
	rig_free(&r);
}

/* --- threads, barriers, the CSD ------------------------------------------ */

T_TEST(csd_decode_table)
{
	static const struct {
		uint32_t cfg[7];
		bool raw;
		struct qpu_v3d_csd want;
	} rows[] = {
		/* py-videocore6: 1 x 1 x 1, wg 16, 16 per sg (its 16 << 8
		 * ORs into bit 12, which is set already), thread 8 -> cfg4 7 */
		{ { 1 << 16, 1 << 16, 1 << 16, 0xf000 | 16 << 8 | 16, 7,
		    0x20000 | 4 | 1, 0x40000 }, false,
		  { { 1, 1, 1 }, { 0, 0, 0 }, 16, 16, 16, 0, false, 8, 0x20000,
		    true, false, true, 0x40000 } },
		/* py-videocore7 writes thread itself: 8 batches on a Pi 5
		 * (7.1.6+), 9 on an earlier 7.1 */
		{ { 1 << 16, 1 << 16, 1 << 16, 0xf000 | 16 << 8 | 16, 8,
		    0x20000 | 2, 0x40000 }, true,
		  { { 1, 1, 1 }, { 0, 0, 0 }, 16, 16, 16, 0, false, 8, 0x20000,
		    false, true, false, 0x40000 } },
		{ { 1 << 16, 1 << 16, 1 << 16, 0xf000 | 16 << 8 | 16, 8,
		    0x20000 | 2, 0x40000 }, false,
		  { { 1, 1, 1 }, { 0, 0, 0 }, 16, 16, 16, 0, false, 9, 0x20000,
		    false, true, false, 0x40000 } },
		/* Mesa: 4 x 2 x 3 groups from (1, 2, 3), wg size 256 (0), 1
		 * per sg, 16 batches per sg, max sg id 5, overlap */
		{ { 4 << 16 | 1, 2 << 16 | 2, 3 << 16 | 3,
		    1 << 26 | 5 << 20 | 15 << 12 | 1 << 8 | 0, 383, 0x1000,
		    0x2000 }, false,
		  { { 4, 2, 3 }, { 1, 2, 3 }, 256, 1, 16, 5, true, 384, 0x1000,
		    false, false, false, 0x2000 } },
	};
	size_t i;

	for (i = 0; i < T_ARRAY_SIZE(rows); i++) {
		struct qpu_v3d_csd got;

		qpu_v3d_csd_decode(rows[i].cfg, rows[i].raw, &got);
		T_CHECK(!memcmp(&got.wg_count, rows[i].want.wg_count, 12));
		T_CHECK(!memcmp(&got.wg_offset, rows[i].want.wg_offset, 12));
		T_EQ_U64(rows[i].want.wg_size, got.wg_size);
		T_EQ_U64(rows[i].want.wgs_per_sg, got.wgs_per_sg);
		T_EQ_U64(rows[i].want.batches_per_sg, got.batches_per_sg);
		T_EQ_U64(rows[i].want.max_sg_id, got.max_sg_id);
		T_EQ_U64(rows[i].want.overlap, got.overlap);
		T_EQ_U64(rows[i].want.batches, got.batches);
		T_EQ_U64(rows[i].want.code, got.code);
		T_EQ_U64(rows[i].want.propagate_nans, got.propagate_nans);
		T_EQ_U64(rows[i].want.single_seg, got.single_seg);
		T_EQ_U64(rows[i].want.threading, got.threading);
		T_EQ_U64(rows[i].want.unif, got.unif);
	}
}

/* cfg[4] 0: one batch on a Pi 4, none on a Pi 5 (7.1.6+ counts raw). */
T_TEST(csd_batch_count_per_revision)
{
	uint32_t cfg[7] = { 1 << 16, 1 << 16, 1 << 16, 16, 0, 0, 0 };
	struct rig r;
	size_t b;

	for (b = 0; b < T_ARRAY_SIZE(boards); b++) {
		if (!rig_init(&r, boards[b], "nop ; nop\n"))
			return;
		cfg[5] = r.code_va;
		cfg[6] = r.unif_va;
		T_EQ_U64(0, qpu_v3d_emu_dispatch(r.emu, cfg));
		T_EQ_U64(QPU_V3D_EMU_IDLE, qpu_v3d_emu_run(r.emu, 1000));
		T_EQ_U64(qpu_v3d_emu_board(boards[b])->csd_raw_batches ? 0 : 1,
			 qpu_v3d_emu_get_stats(r.emu)->batches);
		rig_free(&r);
	}
}

/*
 * A dispatch of 3 x 2 workgroups of 32 invocations (2 batches each), 2 per
 * supergroup: each lane stores its global index (from the payload's
 * workgroup id and local index) at that index, and its tidx beside. Every
 * index is written once, by a lane of a distinct (QPU, slot) per batch.
 */
static void csd_payload(enum qpu_v3d_emu_board board, bool threading)
{
	bool v71 = qpu_v3d_emu_board(board)->gen == 71;
	char src[2048];
	uint32_t cfg[7], *d;
	struct rig r;
	unsigned int i, batches = 12, seen[64] = { 0 };

	/* idx = ((y * 3 + x) * 32 + local); local in rf2's top 6 bits */
	snprintf(src, sizeof(src),
		 "nop ; nop ; ldunifrf.rf10\n"
		 "shr rf5, rf2, 13 ; nop\n"
		 "shr rf5, rf5, 13 ; nop\n"		/* local */
		 "and rf6, rf%d, 15 ; nop\n"		/* x (< 16) */
		 "shr rf7, rf%d, 8 ; nop\n"
		 "shr rf7, rf7, 8 ; nop\n"		/* y */
		 "nop ; umul24 rf7, rf7, 3\n"
		 "add rf6, rf6, rf7 ; nop\n"
		 "shl rf6, rf6, 5 ; nop\n"
		 "add rf6, rf6, rf5 ; nop\n"		/* idx */
		 "shl rf8, rf6, 2 ; nop\n"
		 "add rf8, rf8, rf10 ; nop\n"
		 "nop ; mov tmud, rf6\n"
		 "nop ; mov tmua, rf8\n"
		 "tidx rf9 ; nop\n"
		 "add rf8, rf8, 15 ; nop\n"
		 "nop ; mov rf11, 8\n"
		 "shl rf11, rf11, 8 ; nop\n"	/* 2048 */
		 "add rf8, rf8, rf11 ; nop\n"
		 "sub rf8, rf8, 15 ; nop\n"
		 "nop ; mov tmud, rf9\n"
		 "nop ; mov tmua, rf8\n"
		 "tmuwt - ; nop\n", v71 ? 3 : 0, v71 ? 3 : 0);
	if (!rig_init(&r, board, src))
		return;
	unif32(&r)[0] = r.data_va;
	memset(r.data, 0xff, 4096);
	cfg[0] = 3u << 16;
	cfg[1] = 2u << 16;
	cfg[2] = 1u << 16;
	cfg[3] = (4 - 1) << 12 | 2 << 8 | 32;
	cfg[4] = batches - !qpu_v3d_emu_board(board)->csd_raw_batches;
	cfg[5] = r.code_va | threading;
	cfg[6] = r.unif_va;
	T_EQ_U64(0, qpu_v3d_emu_dispatch(r.emu, cfg));
	T_EQ_U64(-QPU_V3D_EMU_EBUSY, qpu_v3d_emu_dispatch(r.emu, cfg));
	T_EQ_U64(QPU_V3D_EMU_IDLE, qpu_v3d_emu_run(r.emu, 100000000));
	T_EQ_U64(batches, qpu_v3d_emu_get_stats(r.emu)->batches);
	d = data32(&r);
	for (i = 0; i < 192; i++) {
		uint32_t tidx = d[512 + i];

		T_EQ_U64(i, d[i]);
		T_CHECK(tidx != 0xffffffffu && (tidx & 3) < 4);
		if (!threading)
			T_CHECK((tidx & 1) == 0);	/* slots 0 and 2 */
		if (i % 16 == 0 && tidx < 64) {
			seen[tidx]++;
			T_CHECK(seen[tidx] >= 1);
		}
		T_EQ_U64(d[512 + (i & ~15u)], tidx);	/* one thread a batch */
	}
	rig_free(&r);
}

T_TEST(csd_dispatch_payload)
{
	size_t b;

	for (b = 0; b < T_ARRAY_SIZE(boards); b++) {
		csd_payload(boards[b], false);
		csd_payload(boards[b], true);
	}
	csd_payload(QPU_V3D_EMU_BOARD_PI5_4X4, true);
}

/*
 * @n batches meet at a barrier: the program's @id_src puts each batch's
 * number 0..@n-1 (a power of two) in rf6; the batch waits (longer the
 * lower its number), writes number + 1 to data[id], meets the others,
 * then copies the next batch's word to data[n + id]. Without the barrier
 * the early readers would see 0.
 */
static void barrier_run(enum qpu_v3d_emu_board board, const char *id_src,
			unsigned int n, const uint32_t cfg_in[7])
{
	char src[2048];
	uint32_t cfg[7], *d;
	struct rig r;
	unsigned int i;

	snprintf(src, sizeof(src),
		 "nop ; nop ; ldunifrf.rf10\n"
		 "%s"
		 "sub rf7, %u, rf6 ; nop\n"
		 "shl rf7, rf7, 5 ; nop\n"
		 "wait:\n"
		 "sub.pushz rf7, rf7, 1 ; nop\n"
		 "b.anyna  wait\n"
		 "nop ; nop\n"
		 "nop ; nop\n"
		 "nop ; nop\n"
		 "shl rf8, rf6, 2 ; nop\n"
		 "add rf8, rf8, rf10 ; nop\n"
		 "add rf9, rf6, 1 ; nop\n"
		 "nop ; mov tmud, rf9\n"
		 "nop ; mov tmua, rf8\n"
		 "tmuwt - ; nop\n"
		 "barrierid syncb ; nop ; thrsw\n"
		 "nop ; nop\n"
		 "nop ; nop\n"
		 "add rf11, rf6, 1 ; nop\n"
		 "and rf11, rf11, %u ; nop\n"
		 "shl rf11, rf11, 2 ; nop\n"
		 "add rf11, rf11, rf10 ; nop\n"
		 "nop ; mov tmua, rf11\n"
		 "nop ; nop ; ldtmu.rf12\n"
		 "nop ; mov rf13, %u\n"
		 "shl rf13, rf13, 2 ; nop\n"
		 "add rf13, rf13, rf8 ; nop\n"
		 "nop ; mov tmud, rf12\n"
		 "nop ; mov tmua, rf13\n"
		 "tmuwt - ; nop\n", id_src, n, n - 1, n);
	if (!rig_init(&r, board, src))
		return;
	unif32(&r)[0] = r.data_va;
	memcpy(cfg, cfg_in, sizeof(cfg));
	cfg[4] -= !qpu_v3d_emu_board(board)->csd_raw_batches;
	cfg[5] = r.code_va;
	cfg[6] = r.unif_va;
	T_EQ_U64(0, qpu_v3d_emu_dispatch(r.emu, cfg));
	T_EQ_U64(QPU_V3D_EMU_IDLE, qpu_v3d_emu_run(r.emu, 100000000));
	d = data32(&r);
	for (i = 0; i < n; i++) {
		T_EQ_U64(i + 1, d[i]);
		T_EQ_U64((i + 1) % n + 1, d[n + i]);
	}
	T_EQ_U64(1, qpu_v3d_emu_get_stats(r.emu)->barriers);
	rig_free(&r);
}

/* The 4 batches of a workgroup of 64 invocations, threading on; the
 * batch number from the local index (the top 6 bits of rf2). */
T_TEST(barrier_across_qpus)
{
	static const uint32_t cfg[7] = {
		1 << 16, 1 << 16, 1 << 16, (4 - 1) << 12 | 1 << 8 | 64, 4, 0, 1,
	};
	size_t b;

	for (b = 0; b < T_ARRAY_SIZE(boards); b++)
		barrier_run(boards[b], "shr rf6, rf2, 13 ; nop\n"
			    "shr rf6, rf6, 13 ; nop\n"
			    "shr rf6, rf6, 4 ; nop\n", 4, cfg);
}

/* The barrier holds a supergroup: 8 one-batch workgroups, 8 per
 * supergroup (py-videocore6's test_barrier has 16); the number is the
 * workgroup's x. */
T_TEST(barrier_holds_supergroup)
{
	static const uint32_t cfg[7] = {
		8 << 16, 1 << 16, 1 << 16, (8 - 1) << 12 | 8 << 8 | 16, 8, 0, 0,
	};
	size_t b;

	for (b = 0; b < T_ARRAY_SIZE(boards); b++)
		barrier_run(boards[b],
			    qpu_v3d_emu_board(boards[b])->gen == 71 ?
			    "and rf6, rf3, 7 ; nop\n" : "and rf6, rf0, 7 ; nop\n",
			    8, cfg);
}

/* Two threads on one QPU: thrsw hands over after its two delay slots, the
 * register files are the threads' own, and both end. */
T_TEST(threads_switch)
{
	uint32_t v[16];
	struct rig r;

	if (!rig_init(&r, QPU_V3D_EMU_BOARD_PI4,
		      "tidx rf1 ; nop\n"
		      "nop ; nop ; thrsw\n"
		      "add rf2, rf1, 1 ; nop\n"
		      "add rf3, rf1, 2 ; nop\n"
		      "add rf4, rf1, 3 ; nop\n"))
		return;
	T_EQ_U64(0, qpu_v3d_emu_start(r.emu, 0, 0, 2, r.code_va, r.unif_va));
	T_EQ_U64(0, qpu_v3d_emu_start(r.emu, 0, 2, 2, r.code_va, r.unif_va));
	T_EQ_U64(-QPU_V3D_EMU_EBUSY,
		 qpu_v3d_emu_start(r.emu, 0, 2, 2, r.code_va, r.unif_va));
	T_EQ_U64(QPU_V3D_EMU_IDLE, qpu_v3d_emu_run(r.emu, 10000));
	T_EQ_U64(0, qpu_v3d_emu_get_reg(r.emu, 0, 2, QPU_V3D_EMU_FILE_RF, 4, v));
	T_EQ_U64(2 + 3, v[0]);
	T_EQ_U64(0, qpu_v3d_emu_get_reg(r.emu, 0, 0, QPU_V3D_EMU_FILE_RF, 4, v));
	T_EQ_U64(0 + 3, v[0]);
	/* each thread: the body's switch, the last switch (two thrsw in a
	 * row) and its end */
	T_EQ_U64(6, qpu_v3d_emu_get_stats(r.emu)->thread_switches);
	rig_free(&r);
}

/* A thrsw in the last delay slot of another switches again two
 * instructions after the thread resumes (py-videocore6's test_parallel
 * loops so); a thread with nothing else to run resumes at once. */
T_TEST(thrsw_in_delay_slot)
{
	uint32_t v[16];
	struct rig r;

	if (!rig_init(&r, QPU_V3D_EMU_BOARD_PI4,
		      "nop ; nop ; thrsw\n"
		      "nop ; nop\n"
		      "nop ; nop ; thrsw\n"
		      "add rf1, rf1, 1 ; nop\n"
		      "add rf1, rf1, 1 ; nop\n"
		      "add rf1, rf1, 1 ; nop\n"))
		return;
	T_EQ_U64(QPU_V3D_EMU_IDLE, rig_run(&r));
	reg(&r, 1, v);
	T_EQ_U64(3, v[0]);	/* it did not end early */
	/* 2 body switches, the last switch, the end */
	T_EQ_U64(4, qpu_v3d_emu_get_stats(r.emu)->thread_switches);
	rig_free(&r);
}

/* ldtmu with nothing requested never returns: a deadlock, reported. */
T_TEST(deadlock_report)
{
	char text[256];
	struct rig r;

	if (!rig_init(&r, QPU_V3D_EMU_BOARD_PI5_3X4, "nop ; nop ; ldtmu.rf1\n"))
		return;
	T_EQ_U64(QPU_V3D_EMU_DEADLOCK, rig_run(&r));
	T_CHECK(qpu_v3d_emu_describe(r.emu, text, sizeof(text)) > 10);
	T_CHECK(strstr(text, "qpu 0 thread 0") != NULL);
	T_CHECK(strstr(text, "empty TMU FIFO") != NULL);
	T_EQ_U64(0, qpu_v3d_emu_describe(r.emu, NULL, 0) == 0);
	rig_free(&r);
}

/* An endless loop stops at the instruction limit; the budget returns. */
T_TEST(limit_and_budget)
{
	struct rig r;

	if (!rig_init(&r, QPU_V3D_EMU_BOARD_PI4,
		      "top:\n"
		      "b  top\n"
		      "nop ; nop\n"
		      "nop ; nop\n"
		      "nop ; nop\n"))
		return;
	T_EQ_U64(0, qpu_v3d_emu_start(r.emu, 0, 0, 1, r.code_va, r.unif_va));
	T_EQ_U64(QPU_V3D_EMU_RUNNING, qpu_v3d_emu_run(r.emu, 1000));
	T_EQ_U64(1000, qpu_v3d_emu_get_stats(r.emu)->instructions);
	qpu_v3d_emu_set_limit(r.emu, 5000);
	T_EQ_U64(QPU_V3D_EMU_LIMIT, qpu_v3d_emu_run(r.emu, 100000));
	T_EQ_U64(5000, qpu_v3d_emu_get_stats(r.emu)->instructions);
	rig_free(&r);
}

T_TEST(bad_arguments)
{
	struct qpu_v3d_mmu mmu;
	struct qpu_v3d_emu *emu = calloc(1, qpu_v3d_emu_size());
	uint32_t v[16];
	uint16_t a, b;

	qpu_v3d_mmu_init(&mmu);
	T_CHECK(qpu_v3d_emu_board(QPU_V3D_EMU_BOARD_COUNT) == NULL);
	T_EQ_U64(-QPU_V3D_EMU_EINVAL,
		 qpu_v3d_emu_init(emu, QPU_V3D_EMU_BOARD_COUNT, &mmu, NULL, NULL));
	T_EQ_U64(0, qpu_v3d_emu_init(emu, QPU_V3D_EMU_BOARD_PI4, &mmu, NULL, NULL));
	T_EQ_U64(-QPU_V3D_EMU_EINVAL, qpu_v3d_emu_start(emu, 8, 0, 1, 0x20000, 0x40000));
	T_EQ_U64(-QPU_V3D_EMU_EINVAL, qpu_v3d_emu_start(emu, 0, 4, 1, 0x20000, 0x40000));
	T_EQ_U64(-QPU_V3D_EMU_EINVAL, qpu_v3d_emu_start(emu, 0, 0, 3, 0x20000, 0x40000));
	T_EQ_U64(-QPU_V3D_EMU_EINVAL, qpu_v3d_emu_start(emu, 0, 0, 1, 0x20004, 0x40000));
	T_EQ_U64(-QPU_V3D_EMU_EINVAL, qpu_v3d_emu_start(emu, 0, 0, 1, 0x20000, 0x40002));
	T_EQ_U64(-QPU_V3D_EMU_EINVAL, qpu_v3d_emu_get_reg(emu, 8, 0, QPU_V3D_EMU_FILE_RF, 0, v));
	T_EQ_U64(-QPU_V3D_EMU_EINVAL, qpu_v3d_emu_get_reg(emu, 0, 0, QPU_V3D_EMU_FILE_RF, 64, v));
	T_EQ_U64(-QPU_V3D_EMU_EINVAL, qpu_v3d_emu_get_reg(emu, 0, 0, QPU_V3D_EMU_FILE_ACC, 6, v));
	T_EQ_U64(-QPU_V3D_EMU_EINVAL, qpu_v3d_emu_get_flags(emu, 0, 4, &a, &b));
	T_EQ_U64(QPU_V3D_EMU_IDLE, qpu_v3d_emu_run(emu, 100));
	free(emu);
	T_EQ_U64(8, qpu_v3d_emu_board(QPU_V3D_EMU_BOARD_PI4)->slices *
		    qpu_v3d_emu_board(QPU_V3D_EMU_BOARD_PI4)->qpus_per_slice);
	T_EQ_U64(500, qpu_v3d_emu_board(QPU_V3D_EMU_BOARD_PI4)->clock_mhz);
}

T_MAIN()
