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
 * words"); VCD DMA reaches the rest of the VPM.
 */
#define QPU_VPM_ROWS		64
#define QPU_VPM_NUM_SHIFT	20	/* reads only: vectors, 0 = 16 */
#define QPU_VPM_STRIDE_SHIFT	12	/* address increment, 0 = 64 */
#define QPU_VPM_HORIZ		QPU_ISA_BIT(11)
#define QPU_VPM_LANED		QPU_ISA_BIT(10)
#define QPU_VPM_SIZE_SHIFT	8

/* VDW: VPM to memory, written to vw_setup. */
#define QPU_VDW_ID		(2u << 30)
#define QPU_VDW_STRIDE_ID	(3u << 30)
#define QPU_VDW_UNITS_SHIFT	23
#define QPU_VDW_DEPTH_SHIFT	16
#define QPU_VDW_HORIZ		QPU_ISA_BIT(14)
#define QPU_VDW_Y_SHIFT		7
#define QPU_VDW_X_SHIFT		3

/* VDR: memory to VPM, written to vr_setup. */
#define QPU_VDR_ID		QPU_ISA_BIT(31)
#define QPU_VDR_STRIDE_ID	(9u << 28)
#define QPU_VDR_MPITCH_SHIFT	24
#define QPU_VDR_ROWLEN_SHIFT	20
#define QPU_VDR_NROWS_SHIFT	16
#define QPU_VDR_MODEW_SHIFT	28
#define QPU_VDR_VPITCH_SHIFT	12
#define QPU_VDR_VERT		QPU_ISA_BIT(11)
#define QPU_VDR_Y_SHIFT		4

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
#define QPU_VPM_DMA_STRIDE_MASK	0xffff

/**
 * qpu_vpm_setup() - a generic block read or write setup word
 * @num: vectors to read, 0..15 (0 = 16); 0 for writes
 * @stride: address increment after each vector, 0..63 (0 = 64)
 * @addr: the address and mode from qpu_vpm_addr()
 */
static inline u32 qpu_vpm_setup(u32 num, u32 stride, u32 addr)
{
	return (num & 15) << QPU_VPM_NUM_SHIFT |
		(stride & 63) << QPU_VPM_STRIDE_SHIFT | addr;
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
	u32 w = (u32)size << QPU_VPM_SIZE_SHIFT;

	if (laned && size != QPU_VPM_SIZE_32)
		w |= QPU_VPM_LANED;
	if (horiz) {
		w |= QPU_VPM_HORIZ;
		if (size == QPU_VPM_SIZE_32)
			return w | (y & 63);
		if (size == QPU_VPM_SIZE_16)
			return w | (y & 63) << 1 | (part & 1);
		return w | (y & 63) << 2 | (part & 3);
	}
	/* the guide: "the LS 1 or 2 bits select" the half or byte */
	if (size == QPU_VPM_SIZE_32)
		return w | (y & 0x30) | (x & 15);
	if (size == QPU_VPM_SIZE_16)
		return w | ((y & 0x30) | (x & 15)) << 1 | (part & 1);
	return w | ((y & 0x30) | (x & 15)) << 2 | (part & 3);
}

/**
 * qpu_vdw_setup0() - the basic VDW setup word
 * @units: rows (horizontal) or columns (vertical), 0..127 (0 = 128)
 * @depth: row length (horizontal) or column height, 0..127 (0 = 128)
 * @dma: orientation, VPM address and mode from qpu_vdw_dma()
 */
static inline u32 qpu_vdw_setup0(u32 units, u32 depth, u32 dma)
{
	return QPU_VDW_ID | (units & 127) << QPU_VDW_UNITS_SHIFT |
		(depth & 127) << QPU_VDW_DEPTH_SHIFT | dma;
}

/**
 * qpu_vdw_setup1() - the VDW stride setup word
 * @stride: bytes from the end of one row in memory to the next row
 */
static inline u32 qpu_vdw_setup1(u32 stride)
{
	return QPU_VDW_STRIDE_ID | (stride & QPU_VPM_DMA_STRIDE_MASK);
}

/* The mode bits of a DMA transfer: 0 for 32 bit, else size and part. */
static inline u32 qpu_vpm_dma_mode(enum qpu_vpm_size size, u32 part)
{
	if (size == QPU_VPM_SIZE_16)
		return 2 | (part & 1);
	if (size == QPU_VPM_SIZE_8)
		return 4 | (part & 3);
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
	return (horiz ? QPU_VDW_HORIZ : 0) | (y & 127) << QPU_VDW_Y_SHIFT |
		(x & 15) << QPU_VDW_X_SHIFT | qpu_vpm_dma_mode(size, part);
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
	return QPU_VDR_ID | (mpitch & 15) << QPU_VDR_MPITCH_SHIFT |
		(rowlen & 15) << QPU_VDR_ROWLEN_SHIFT |
		(nrows & 15) << QPU_VDR_NROWS_SHIFT | addr;
}

/**
 * qpu_vdr_setup1() - the VDR stride setup word
 * @stride: bytes between rows in memory
 */
static inline u32 qpu_vdr_setup1(u32 stride)
{
	return QPU_VDR_STRIDE_ID | (stride & QPU_VPM_DMA_STRIDE_MASK);
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
	return qpu_vpm_dma_mode(size, part) << QPU_VDR_MODEW_SHIFT |
		(vpitch & 15) << QPU_VDR_VPITCH_SHIFT | (horiz ? 0 : QPU_VDR_VERT) |
		(y & 127) << QPU_VDR_Y_SHIFT | (x & 15);
}

#endif /* QPU_VPM_H */
