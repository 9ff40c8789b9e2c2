# SPDX-License-Identifier: MIT
#
# Transpose one 16x16 block of floats with the VPM (vpm.qinc, dma.qinc):
# a VCD DMA load brings 16 rows of the input (rows `pitch` bytes apart) to
# VPM rows 0..15; 16 vertical reads (v32) take its columns and 16
# horizontal writes (h32) put them in rows 16..31 as rows; one VCD DMA
# store sends those to the output, rows as far apart as its stride setup
# says. The store's setup words come from the host (built with
# qpu_vpm.h), the rest from the assembler's functions.
#
# Uniforms: input address, input row pitch in bytes, output address, VDW
# setup word, VDW stride word.

.include "vpm.qinc"
.include "dma.qinc"
.include "exit.qinc"
.include "unif.qinc"

	unif_read ra0			# input
	unif_read rb0			# its pitch
	unif_read ra1			# output
	unif_read rb1			# VDW setup
	unif_read rb2			# VDW stride setup
	dma_ld_setup 0, 16, 16, vdr_h32(1, 0, 0)	# 16 rows of 16 words
	ldi r1, vdr_setup_1(0)
	or vr_setup, rb0, r1		# vdr_setup_1(pitch), the pitch at run time
	dma_ld_start ra0
	dma_ld_wait
	vpm_rd_setup 16, v32(0, 0), 1	# columns 0..15 of rows 0..15
	vpm_wr_setup h32(16), 1		# to rows 16..31
	nop
.rep i, 16
	mov vpm, vpm
.endr
	mov vw_setup, rb1
	mov vw_setup, rb2
	dma_st_start ra1
	qpu_exit
