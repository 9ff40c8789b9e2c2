# SPDX-License-Identifier: MIT
#
# The VPM's 8- and 16-bit modes (vpm.qinc): 64 integers (four vectors,
# TMU0) are written as 64 packed bytes to VPM row 0 (h8p: 16 bytes a
# write, the byte select steps with the stride), as 64 packed halfwords to
# rows 1 and 2 (h16p), and byte 1 of every word of row 0 is read back
# laned (h8l: one byte of each of 16 words) into row 3. One VCD DMA store
# sends rows 0..3 to memory.
#
# Uniforms: input address (64 words), output address (4 rows of 16 words).

.include "vpm.qinc"
.include "dma.qinc"
.include "exit.qinc"
.include "unif.qinc"

	unif_read ra0
	unif_read ra1
	ldi r2, 64
	shl r3, elem_num, 2
	add t0s, ra0, r3
	add r3, r3, r2
	add t0s, ra0, r3
	add r3, r3, r2
	add t0s, ra0, r3
	add r3, r3, r2
	add t0s, ra0, r3
	nop; ldtmu0
	mov ra4, r4; nop; ldtmu0
	mov ra5, r4; nop; ldtmu0
	mov ra6, r4; nop; ldtmu0
	mov ra7, r4
	vpm_wr_setup h8p(0, 0), 1	# bytes 0..63 of row 0
	mov vpm, ra4
	mov vpm, ra5
	mov vpm, ra6
	mov vpm, ra7
	vpm_wr_setup h16p(1, 0), 1	# halfwords 0..31 of rows 1 and 2
	mov vpm, ra4
	mov vpm, ra5
	mov vpm, ra6
	mov vpm, ra7
	vpm_rd_setup 1, h8l(0, 1), 1	# byte 1 of each word of row 0
	vpm_wr_setup h32(3), 1
	nop
	mov vpm, vpm
	dma_st_setup 4, 16, dma_h32(0, 0)
	dma_st_start ra1
	qpu_exit
