/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * The VPM and VPM DMA setup words a QPU program writes to vr_setup and
 * vw_setup, built from their fields: generic block read/write setup, VDW
 * (VPM to memory) basic and stride setup, VDR (memory to VPM) basic and
 * stride setup. Layouts from the Reference Guide, section 7; each argument
 * is masked to its field, as vc4asm's functions of the same purpose do, so
 * the text assembler and the C assembler API build the same words from here.
 * Header only; the emulator (so qpu.ko too) takes QPU_VPM_ROWS from it.
 */
#ifndef QPU_VPM_H
#define QPU_VPM_H

#include "qpu_isa.h"

/* Element size of a VPM access or a DMA transfer (the hardware's values). */
enum qpu_vpm_size {
	QPU_VPM_SIZE_8,
	QPU_VPM_SIZE_16,
	QPU_VPM_SIZE_32,
};

/*
 * Generic block access (vr_setup, vw_setup). A QPU sees QPU_VPM_ROWS rows
 * of 16 words: the guide's addresses name Y[5:0] ("a maximum height of 64
 * words"); VCD DMA reaches the rest of the VPM. Each field is a mask of
 * its word, read with QPU_FIELD_GET() and built with QPU_FIELD_PREP().
 */
#define QPU_VPM_ROWS		64
#define QPU_VPM_NUM		QPU_GENMASK(23, 20)	/* reads only: vectors, 0 = 16 */
#define QPU_VPM_STRIDE		QPU_GENMASK(17, 12)	/* address increment, 0 = 64 */
#define QPU_VPM_HORIZ		QPU_GENMASK(11, 11)
#define QPU_VPM_LANED		QPU_GENMASK(10, 10)
#define QPU_VPM_SIZE		QPU_GENMASK(9, 8)	/* enum qpu_vpm_size */
#define QPU_VPM_ADDR		QPU_GENMASK(7, 0)

/*
 * VDW: VPM to memory, written to vw_setup. QPU_VDW_ID tells the basic
 * setup (2) and the stride setup (3) from a generic write setup (0).
 */
#define QPU_VDW_ID		QPU_GENMASK(31, 30)
#define QPU_VDW_ID_BASIC	2
#define QPU_VDW_ID_STRIDE	3
#define QPU_VDW_UNITS		QPU_GENMASK(29, 23)	/* 0 = 128 */
#define QPU_VDW_DEPTH		QPU_GENMASK(22, 16)	/* 0 = 128 */
#define QPU_VDW_HORIZ		QPU_GENMASK(14, 14)
#define QPU_VDW_Y		QPU_GENMASK(13, 7)
#define QPU_VDW_X		QPU_GENMASK(6, 3)
#define QPU_VDW_MODEW		QPU_GENMASK(2, 0)	/* qpu_vpm_dma_mode() */
#define QPU_VDW_STRIDE		QPU_GENMASK(15, 0)	/* the stride setup's */

/*
 * VDR: memory to VPM, written to vr_setup. Bit 31 set is the basic setup;
 * ID bits 31:28 of 9 (MODEW 1) are the extended pitch setup.
 */
#define QPU_VDR_ID		QPU_GENMASK(31, 31)
#define QPU_VDR_ID_EXT		QPU_GENMASK(31, 28)
#define QPU_VDR_ID_PITCH	9
#define QPU_VDR_MODEW		QPU_GENMASK(30, 28)	/* qpu_vpm_dma_mode() */
#define QPU_VDR_MPITCH		QPU_GENMASK(27, 24)	/* 8 << MPITCH bytes, 0: MPITCHB */
#define QPU_VDR_ROWLEN		QPU_GENMASK(23, 20)	/* 0 = 16 */
#define QPU_VDR_NROWS		QPU_GENMASK(19, 16)	/* 0 = 16 */
#define QPU_VDR_VPITCH		QPU_GENMASK(15, 12)	/* 0 = 16 */
#define QPU_VDR_VERT		QPU_GENMASK(11, 11)
#define QPU_VDR_Y		QPU_GENMASK(10, 4)
#define QPU_VDR_X		QPU_GENMASK(3, 0)
#define QPU_VDR_MPITCHB		QPU_GENMASK(15, 0)	/* the pitch setup's */

/* MODEW: 0 for 32 bits, 2..3 for 16 (halfword select), 4..7 for 8 (byte). */
#define QPU_VPM_MODEW_16	2
#define QPU_VPM_MODEW_8		4
#define QPU_VPM_MODEW_H		QPU_GENMASK(0, 0)
#define QPU_VPM_MODEW_B		QPU_GENMASK(1, 0)

/*
 * The stride of the VDW stride setup (bits 15:0) and the pitch of the VDR
 * extended pitch setup (MPITCHB, bits 15:0 here). The guide's tables give
 * both 13 bits (Table 35 STRIDE, Table 37 MPITCHB, bits 12:0); programs
 * that run on a Pi need more: PyVideoCore's sgemm example, with C rows of
 * 3072 floats, writes 12288 into the VDR pitch and 12224 into the VDW
 * stride, and vc4asm's vc4.qinc notes that the VDW STRIDE is 16 bits "rather
 * than 13 as documented" (bit 16 is BLOCKMODE, so 16 is its most). The VDR
 * word has nothing else below its ID (bits 31:28); we give it the 16 bits
 * of its VDW twin, the most any known program needs.
 */
#define QPU_VPM_DMA_STRIDE_MASK	QPU_VDW_STRIDE	/* both at bit 0: the most */

/**
 * qpu_vpm_setup() - a generic block read or write setup word
 * @num: vectors to read, 0..15 (0 = 16); 0 for writes
 * @stride: address increment after each vector, 0..63 (0 = 64)
 * @addr: the address and mode from qpu_vpm_addr()
 */
static inline u32 qpu_vpm_setup(u32 num, u32 stride, u32 addr)
{
	return QPU_FIELD_PREP(QPU_VPM_NUM, num) | QPU_FIELD_PREP(QPU_VPM_STRIDE, stride) |
		addr;
}

/**
 * qpu_vpm_addr() - address and mode of a generic block access
 * @horiz: horizontal (a row of 16) instead of vertical (a column)
 * @laned: 8/16-bit: laned instead of packed
 * @size: element size
 * @y: row (horizontal: 0..63; vertical: a multiple of 16, 0..48)
 * @x: vertical only: column 0..15
 * @part: 16-bit: half 0..1; 8-bit: byte 0..3
 */
static inline u32 qpu_vpm_addr(bool horiz, bool laned, enum qpu_vpm_size size,
			       u32 y, u32 x, u32 part)
{
	u32 w = QPU_FIELD_PREP(QPU_VPM_SIZE, size), a;

	if (laned && size != QPU_VPM_SIZE_32)
		w |= QPU_VPM_LANED;
	if (horiz) {
		w |= QPU_VPM_HORIZ;
		a = y & 63;
	} else {
		/* the guide: "the LS 1 or 2 bits select" the half or byte */
		a = (y & 0x30) | (x & 15);
	}
	if (size == QPU_VPM_SIZE_16)
		a = a << 1 | (part & 1);
	else if (size == QPU_VPM_SIZE_8)
		a = a << 2 | (part & 3);
	return w | QPU_FIELD_PREP(QPU_VPM_ADDR, a);
}

/**
 * qpu_vdw_setup0() - the basic VDW setup word
 * @units: rows (horizontal) or columns (vertical), 0..127 (0 = 128)
 * @depth: row length (horizontal) or column height, 0..127 (0 = 128)
 * @dma: orientation, VPM address and mode from qpu_vdw_dma()
 */
static inline u32 qpu_vdw_setup0(u32 units, u32 depth, u32 dma)
{
	return QPU_FIELD_PREP(QPU_VDW_ID, QPU_VDW_ID_BASIC) |
		QPU_FIELD_PREP(QPU_VDW_UNITS, units) |
		QPU_FIELD_PREP(QPU_VDW_DEPTH, depth) | dma;
}

/**
 * qpu_vdw_setup1() - the VDW stride setup word
 * @stride: bytes from the end of one row in memory to the next row
 */
static inline u32 qpu_vdw_setup1(u32 stride)
{
	return QPU_FIELD_PREP(QPU_VDW_ID, QPU_VDW_ID_STRIDE) |
		QPU_FIELD_PREP(QPU_VDW_STRIDE, stride);
}

/* The mode bits of a DMA transfer: 0 for 32 bit, else size and part. */
static inline u32 qpu_vpm_dma_mode(enum qpu_vpm_size size, u32 part)
{
	if (size == QPU_VPM_SIZE_16)
		return QPU_VPM_MODEW_16 | (part & QPU_VPM_MODEW_H);
	if (size == QPU_VPM_SIZE_8)
		return QPU_VPM_MODEW_8 | (part & QPU_VPM_MODEW_B);
	return 0;
}

/**
 * qpu_vdw_dma() - orientation, VPM address and mode of a VDW transfer
 * @horiz: horizontal rows instead of vertical columns
 * @size: element size
 * @y: VPM row 0..127
 * @x: VPM column 0..15
 * @part: 16-bit: half 0..1; 8-bit: byte 0..3
 */
static inline u32 qpu_vdw_dma(bool horiz, enum qpu_vpm_size size, u32 y, u32 x,
			      u32 part)
{
	return (horiz ? QPU_VDW_HORIZ : 0) | QPU_FIELD_PREP(QPU_VDW_Y, y) |
		QPU_FIELD_PREP(QPU_VDW_X, x) |
		QPU_FIELD_PREP(QPU_VDW_MODEW, qpu_vpm_dma_mode(size, part));
}

/**
 * qpu_vdr_setup0() - the basic VDR setup word
 * @mpitch: memory pitch, 8 << @mpitch bytes, 0..15
 * @rowlen: row length 0..15 (0 = 16)
 * @nrows: rows 0..15 (0 = 16)
 * @addr: orientation, VPM address and mode from qpu_vdr_dma()
 */
static inline u32 qpu_vdr_setup0(u32 mpitch, u32 rowlen, u32 nrows, u32 addr)
{
	return QPU_VDR_ID | QPU_FIELD_PREP(QPU_VDR_MPITCH, mpitch) |
		QPU_FIELD_PREP(QPU_VDR_ROWLEN, rowlen) |
		QPU_FIELD_PREP(QPU_VDR_NROWS, nrows) | addr;
}

/**
 * qpu_vdr_setup1() - the VDR stride setup word
 * @stride: bytes between rows in memory
 */
static inline u32 qpu_vdr_setup1(u32 stride)
{
	return QPU_FIELD_PREP(QPU_VDR_ID_EXT, QPU_VDR_ID_PITCH) |
		QPU_FIELD_PREP(QPU_VDR_MPITCHB, stride);
}

/**
 * qpu_vdr_dma() - orientation, VPM address and mode of a VDR transfer
 * @horiz: horizontal rows instead of vertical columns
 * @size: element size
 * @vpitch: VPM rows (or columns) between memory rows, 0..15 (0 = 16)
 * @y: VPM row 0..127
 * @x: VPM column 0..15
 * @part: 16-bit: half 0..1; 8-bit: byte 0..3
 */
static inline u32 qpu_vdr_dma(bool horiz, enum qpu_vpm_size size, u32 vpitch,
			      u32 y, u32 x, u32 part)
{
	return QPU_FIELD_PREP(QPU_VDR_MODEW, qpu_vpm_dma_mode(size, part)) |
		QPU_FIELD_PREP(QPU_VDR_VPITCH, vpitch) | (horiz ? 0 : QPU_VDR_VERT) |
		QPU_FIELD_PREP(QPU_VDR_Y, y) | QPU_FIELD_PREP(QPU_VDR_X, x);
}

#endif /* QPU_VPM_H */
