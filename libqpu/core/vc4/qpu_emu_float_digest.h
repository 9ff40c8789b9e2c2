/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * A digest of every float operation over seeded inputs, to compare the
 * kernel and user builds of the emulator's float code.
 */
#ifndef QPU_EMU_FLOAT_DIGEST_H
#define QPU_EMU_FLOAT_DIGEST_H

#include "qpu_types.h"

#define QPU_EMU_FLOAT_OPS	18

/* The operations in digest order. */
extern const char *const qpu_emu_float_op_names[QPU_EMU_FLOAT_OPS];

/* One FNV-1a digest per operation over @count seeded input pairs. */
void qpu_emu_float_digest(u32 seed, u32 count, u32 digest[QPU_EMU_FLOAT_OPS]);

#endif /* QPU_EMU_FLOAT_DIGEST_H */
