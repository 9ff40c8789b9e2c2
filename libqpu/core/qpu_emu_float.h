/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * The QPU's float arithmetic on IEEE-754 single bit patterns, computed with
 * integers only (the kernel build has no FPU). Shared by the emulator and its
 * tests; the rules (denormal flushing, rounding, NaN/Inf handling, SFU
 * precision) are stated in qpu_emu_float.c.
 */
#ifndef QPU_EMU_FLOAT_H
#define QPU_EMU_FLOAT_H

#include "qpu_types.h"

#define QPU_EMU_F_QNAN	0x7fc00000u

u32 qpu_emu_fadd(u32 a, u32 b);
u32 qpu_emu_fsub(u32 a, u32 b);
u32 qpu_emu_fmul(u32 a, u32 b);
u32 qpu_emu_fmin(u32 a, u32 b);
u32 qpu_emu_fmax(u32 a, u32 b);
u32 qpu_emu_fminabs(u32 a, u32 b);
u32 qpu_emu_fmaxabs(u32 a, u32 b);
/* True when float @a orders after float @b (after flushing). */
bool qpu_emu_fgt(u32 a, u32 b);
u32 qpu_emu_ftoi(u32 a);
u32 qpu_emu_itof(u32 a);

/* SFU: reciprocal, reciprocal square root, 2^x, log2(x). */
u32 qpu_emu_recip(u32 a);
u32 qpu_emu_recipsqrt(u32 a);
u32 qpu_emu_exp2(u32 a);
u32 qpu_emu_log2(u32 a);

/* Conversions used by pack and unpack. */
u32 qpu_emu_f32_to_f16(u32 a);
u32 qpu_emu_f16_to_f32(u32 h);
u32 qpu_emu_f32_to_unorm8(u32 a);
u32 qpu_emu_unorm8_to_f32(u32 b);

/* Denormals become a zero of the same sign. */
u32 qpu_emu_fflush(u32 a);

#endif /* QPU_EMU_FLOAT_H */
