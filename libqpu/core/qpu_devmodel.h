/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * The device model both simulated devices share, qpu.ko's simulated V3D
 * (kmod/qpu_sim.c) and libqpu's in-process emulator device (libqpu/
 * emudev.c): where buffers sit in the 32-bit bus space and the defaults of
 * their limits, held once so that the two behave the same.
 *
 * Buffers are placed from QPU_DEVMODEL_BUS_START, each followed by an
 * unmapped gap of QPU_DEVMODEL_BUS_GUARD bytes, so an access running off a
 * buffer's end meets no other buffer and faults. The largest buffer by
 * default holds a 33 MiB arena, what PyVideoCore's default driver
 * allocates at once; a real V3D's limits follow from its board instead.
 */
#ifndef QPU_DEVMODEL_H
#define QPU_DEVMODEL_H

#define QPU_DEVMODEL_BUS_START		0xc0000000u
#define QPU_DEVMODEL_BUS_SIZE		(0x40000000u - QPU_DEVMODEL_BUS_GUARD)
#define QPU_DEVMODEL_BUS_GUARD		0x10000u

#define QPU_DEVMODEL_MAX_BO_SIZE	(64u << 20)
#define QPU_DEVMODEL_DEFAULT_TIMEOUT_MS	2000u
#define QPU_DEVMODEL_MAX_TIMEOUT_MS	60000u

#endif /* QPU_DEVMODEL_H */
