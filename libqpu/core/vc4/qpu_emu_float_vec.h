/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * Four float lanes in a GCC vector, for the float code's host paths in
 * userspace (VideoCore IV's SSE2 form, V3D's host float unit): the types,
 * unaligned loads and stores, and the denormal flush both need.
 */
#ifndef QPU_EMU_FLOAT_VEC_H
#define QPU_EMU_FLOAT_VEC_H

#include "qpu_types.h"

typedef u32 v4u __attribute__((vector_size(16)));
typedef s32 v4s __attribute__((vector_size(16)));
typedef float v4f __attribute__((vector_size(4 * sizeof(u32))));

static inline v4u vload(const u32 *p)
{
	v4u v;

	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

static inline void vstore(u32 *p, v4u v)
{
	__builtin_memcpy(p, &v, sizeof(v));
}

/* Denormals (exponent field 0) to a zero of the same sign. */
static inline v4u vflush(v4u a)
{
	v4u z = (v4u)((a & 0x7f800000u) == 0);

	return a & ~(z & 0x7fffffffu);	/* one op fewer than ~z | sign */
}

#endif /* QPU_EMU_FLOAT_VEC_H */
