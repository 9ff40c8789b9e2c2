/* SPDX-License-Identifier: MIT */
/*
 * libqpu: the QPU generations, one type for the library and its core.
 * Freestanding (no includes, no libc), since libqpu/core includes it too.
 */
#ifndef QPU_GEN_H
#define QPU_GEN_H

/**
 * enum qpu_gen - an instruction set, and the devices that run it
 * @QPU_GEN_VC4: VideoCore IV (Pi 1-3)
 * @QPU_GEN_V3D42: V3D 4.2 (Pi 4)
 * @QPU_GEN_V3D71: V3D 7.1 (Pi 5), whose text is Mesa's disassembly syntax
 *
 * The values are the version numbers, as libqpu 0.1-0.4's defines of the
 * same names had them; the defines stay, so that #ifdef still finds them.
 */
enum qpu_gen {
	QPU_GEN_VC4 = 4,
	QPU_GEN_V3D42 = 42,
	QPU_GEN_V3D71 = 71,
};

#define QPU_GEN_VC4	QPU_GEN_VC4
#define QPU_GEN_V3D42	QPU_GEN_V3D42
#define QPU_GEN_V3D71	QPU_GEN_V3D71

/* Whether @gen is a V3D generation (4.2 or 7.1). */
static inline int qpu_gen_is_v3d(int gen)
{
	return gen == QPU_GEN_V3D42 || gen == QPU_GEN_V3D71;
}

/* Whether @gen is any enum qpu_gen value: the one validity check. */
static inline int qpu_gen_valid(int gen)
{
	return gen == QPU_GEN_VC4 || qpu_gen_is_v3d(gen);
}

#endif /* QPU_GEN_H */
