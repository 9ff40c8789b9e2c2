/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * Fixed-width types for the freestanding core. The core is compiled into
 * qpu.ko and into libqpu, so it includes nothing but this shim: kernel types
 * in the kernel build, the same names from the compiler's builtin types in
 * userspace.
 */
#ifndef QPU_TYPES_H
#define QPU_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/stddef.h>
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
#endif

#endif /* QPU_TYPES_H */
