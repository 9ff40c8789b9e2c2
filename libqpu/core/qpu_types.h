/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * Fixed-width types and bit fields for the freestanding core. The core is
 * compiled into qpu.ko and into libqpu, so it includes nothing but this
 * shim: kernel types and <linux/bitfield.h> in the kernel build, the same
 * names from the compiler's builtins in userspace. A field is named by its
 * mask (QPU_GENMASK); QPU_FIELD_GET() and QPU_FIELD_PREP() read and build
 * it, so a word's encoder and its decoders share one definition.
 */
#ifndef QPU_TYPES_H
#define QPU_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/stddef.h>
#include <linux/bits.h>
#include <linux/bitfield.h>

#define QPU_GENMASK(h, l)		GENMASK(h, l)
#define QPU_FIELD_GET(mask, reg)	FIELD_GET(mask, reg)
#define QPU_FIELD_PREP(mask, val)	FIELD_PREP(mask, val)
#else
/* stdbool.h and stddef.h are the compiler's own, even freestanding. */
#include <stdbool.h>
#include <stddef.h>

typedef __UINT8_TYPE__ u8;
typedef __UINT16_TYPE__ u16;
typedef __UINT32_TYPE__ u32;
typedef __UINT64_TYPE__ u64;
typedef __INT8_TYPE__ s8;
typedef __INT16_TYPE__ s16;
typedef __INT32_TYPE__ s32;
typedef __INT64_TYPE__ s64;

/* Bits @h..@l of a 32-bit word. */
#define QPU_GENMASK(h, l)	((~0u >> (31 - (h))) & (~0u << (l)))

/* The field @mask of @reg; @val placed in the field @mask (masked). */
static inline u32 qpu_field_get(u32 mask, u32 reg)
{
	return (reg & mask) >> __builtin_ctz(mask);
}

static inline u32 qpu_field_prep(u32 mask, u32 val)
{
	return (val << __builtin_ctz(mask)) & mask;
}

#define QPU_FIELD_GET(mask, reg)	qpu_field_get(mask, reg)
#define QPU_FIELD_PREP(mask, val)	qpu_field_prep(mask, val)
#endif

#endif /* QPU_TYPES_H */
