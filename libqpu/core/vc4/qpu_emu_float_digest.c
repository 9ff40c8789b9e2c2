// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * A digest of every float operation of the emulator over seeded inputs.
 * qpu.ko computes it in kernel context (debugfs qpu/float_digest) and a
 * selftest computes it with the user build of the same code: equal digests
 * show the two builds give bit-identical results, as the design requires.
 */

#include "qpu_emu_float.h"
#include "qpu_emu_float_digest.h"

const char *const qpu_emu_float_op_names[QPU_EMU_FLOAT_OPS] = {
	"fadd", "fsub", "fmul", "fmin", "fmax", "fminabs", "fmaxabs", "ftoi",
	"itof", "recip", "recipsqrt", "exp2", "log2", "f32_to_f16",
	"f16_to_f32", "f32_to_unorm8", "unorm8_to_f32", "fflush",
};

static u32 qpu_emu_digest_rand(u32 *state)
{
	u32 x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

/* Mostly ordinary floats, some of every special kind (zero, denormal, ...). */
static u32 qpu_emu_digest_input(u32 *state)
{
	u32 r = qpu_emu_digest_rand(state);

	switch (r & 7) {
	case 0:
		return r & 0x807fffffu;			/* zero or denormal */
	case 1:
		return r | 0x7f800000u;			/* infinity or NaN */
	default:
		return qpu_emu_digest_rand(state);
	}
}

static void qpu_emu_digest_fold(u32 *digest, u32 value)
{
	*digest = (*digest ^ value) * 0x01000193u;	/* FNV-1a */
}

void qpu_emu_float_digest(u32 seed, u32 count, u32 digest[QPU_EMU_FLOAT_OPS])
{
	u32 state = seed ? seed : 1;
	u32 i, op, a, b, r[QPU_EMU_FLOAT_OPS];

	for (op = 0; op < QPU_EMU_FLOAT_OPS; op++)
		digest[op] = 0x811c9dc5u;

	for (i = 0; i < count; i++) {
		a = qpu_emu_digest_input(&state);
		b = qpu_emu_digest_input(&state);
		r[0] = qpu_emu_fadd(a, b);
		r[1] = qpu_emu_fsub(a, b);
		r[2] = qpu_emu_fmul(a, b);
		r[3] = qpu_emu_fmin(a, b);
		r[4] = qpu_emu_fmax(a, b);
		r[5] = qpu_emu_fminabs(a, b);
		r[6] = qpu_emu_fmaxabs(a, b);
		r[7] = qpu_emu_ftoi(a);
		r[8] = qpu_emu_itof(b);
		r[9] = qpu_emu_recip(a);
		r[10] = qpu_emu_recipsqrt(a);
		r[11] = qpu_emu_exp2(a);
		r[12] = qpu_emu_log2(a);
		r[13] = qpu_emu_f32_to_f16(a);
		r[14] = qpu_emu_f16_to_f32(b & 0xffff);
		r[15] = qpu_emu_f32_to_unorm8(a);
		r[16] = qpu_emu_unorm8_to_f32(b & 0xff);
		r[17] = qpu_emu_fflush(a);
		for (op = 0; op < QPU_EMU_FLOAT_OPS; op++)
			qpu_emu_digest_fold(&digest[op], r[op]);
	}
}
