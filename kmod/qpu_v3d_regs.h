/* SPDX-License-Identifier: GPL-2.0 */
/*
 * V3D register offsets and fields that qpu.ko programs, from the VideoCore IV
 * 3D Architecture Reference Guide (section 10). The real V3D and the
 * simulated one share these: the simulator models this list, except the
 * reservation registers SQRSV0/1 and VPMBASE, whose writes it ignores.
 */
#ifndef QPU_V3D_REGS_H
#define QPU_V3D_REGS_H

#include <linux/bits.h>

#define V3D_IDENT0			0x0000
#define   V3D_IDENT0_EXPECTED		0x02443356	/* "V3D", version 2 */
#define V3D_IDENT1			0x0004
#define   V3D_IDENT1_VPMSZ		GENMASK(31, 28)	/* KiB; 0 means 16 */
#define   V3D_IDENT1_NSEM		GENMASK(23, 16)
#define   V3D_IDENT1_TUPS		GENMASK(15, 12)
#define   V3D_IDENT1_QUPS		GENMASK(11, 8)
#define   V3D_IDENT1_NSLC		GENMASK(7, 4)
#define   V3D_IDENT1_REV		GENMASK(3, 0)
#define V3D_IDENT2			0x0008
#define V3D_SCRATCH			0x0010
#define V3D_L2CACTL			0x0020
#define   V3D_L2CACTL_L2CCLR		BIT(2)
#define V3D_SLCACTL			0x0024
#define   V3D_SLCACTL_ALL		(GENMASK(27, 24) | GENMASK(19, 16) | \
					 GENMASK(11, 8) | GENMASK(3, 0))
/*
 * QPU scheduler reservations: four bits per QPU (SQRSV0 QPUs 0-7, SQRSV1
 * QPUs 8-15) that keep a QPU away from kinds of programs. 0, the reset
 * value, reserves nothing: every QPU may run user programs.
 */
#define V3D_SQRSV0			0x0410
#define V3D_SQRSV1			0x0414
/* User-program request queue: the QPUs' entry point for compute. */
#define V3D_SRQPC			0x0430	/* write: enqueue a program */
#define V3D_SRQUA			0x0434	/* its uniforms address */
#define V3D_SRQUL			0x0438	/* its uniforms length */
#define V3D_SRQCS			0x043c
#define   V3D_SRQCS_QLEN		GENMASK(5, 0)
#define   V3D_SRQCS_ERR			BIT(7)	/* write 1 to clear */
#define   V3D_SRQCS_REQS		GENMASK(15, 8)	/* write bit 8 to clear */
#define   V3D_SRQCS_REQS_CLR		BIT(8)
#define   V3D_SRQCS_DONE		GENMASK(23, 16)	/* write bit 16 to clear */
#define   V3D_SRQCS_DONE_CLR		BIT(16)

/* VPM memory reserved for user programs, in units of 256 bytes (4 rows). */
#define V3D_VPMBASE			0x0504
#define   V3D_VPMBASE_VPMURSV		GENMASK(4, 0)
#define   V3D_VPMBASE_UNIT		256

/* QPU host interrupts: a program's write to host_int sets its QPU's bit. */
#define V3D_DBQITE			0x0e2c	/* enable, one bit per QPU */
#define V3D_DBQITC			0x0e30	/* pending; write 1 to clear */

/* End of the register window: the device tree gives 4 KiB. */
#define V3D_REGS_SIZE			0x1000

#endif /* QPU_V3D_REGS_H */
