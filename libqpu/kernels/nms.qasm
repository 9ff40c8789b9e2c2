# SPDX-License-Identifier: MIT
#
# NMS's suppression matrix (nms.c, "DOC: NMS on the QPUs"): for 16 rows a
# block, one a lane, and the block's columns, one at a time as six
# uniforms (x1, x2, y1 * K, y2 * K, k * area, the column's bit; K = 256 +
# k), sets the column's bit in each lane's word where K * w * h > k *
# area_row + k * area_col, w and h the overlap's sides clamped at 0 ("DOC:
# NMS arithmetic" in <qpu_kernels.h>); the y's come scaled so that h is K
# h. Integers on a 2048-step grid: exact, with mul24 (w < 2^11, K h <
# 2^20) and no sum past 2^31. 11 instructions a column.
# Every 32 columns the 16 words go through this program's VPM row to
# mask[g * npad + row] with one VCD DMA store.
#
# Uniforms: the address of this program's block descriptors, their count
# (0 allowed), npad * 4 (bytes between mask groups), vw_setup word of the
# program's VPM row, VDW setup word of that row (1 row of 16 words). A
# descriptor: the block's first row record, its first column
# record, its groups of 32 columns, where its first group's words go.

.include "exit.qinc"
.include "dma.qinc"

.set ra_desc, ra0
.set ra_nb, ra1
.set ra_stride, ra2
.set rb_vw, rb1
.set rb_vdw, rb2
.set rb_lane, rb3
.set ra_x1, ra3
.set rb_x2, rb4
.set ra_y1, ra4
.set rb_y2, rb5
.set ra_ka, ra5
.set ra_ng, ra6
.set ra_m, ra7
.set rb_out, rb6
.set ra_cols, ra8

	mov ra_desc, unif
	mov.setf ra_nb, unif
	mov ra_stride, unif
	mov rb_vw, unif
	brr.allz -, r:done
	mov rb_vdw, unif
	ldi r1, 24
	mul24 rb_lane, elem_num, r1	# a row record's bytes from lane 0's
	dma_st_stride 0
:block
	mov unif_addr, ra_desc
	nop
	nop
	mov r0, unif			# the rows' records
	mov ra_cols, unif
	mov ra_ng, unif
	mov rb_out, unif
	add r0, r0, rb_lane
	mov t0s, r0
	add r0, r0, 4
	mov t0s, r0
	add r0, r0, 4
	mov t0s, r0
	add r0, r0, 4
	mov t0s, r0
	nop; ldtmu0
	mov ra_x1, r4; ldtmu0
	mov rb_x2, r4; ldtmu0
	mov ra_y1, r4; ldtmu0
	mov rb_y2, r4
	add r0, r0, 4
	mov t0s, r0
	ldi r1, 16
	add ra_desc, ra_desc, r1
	mov unif_addr, ra_cols
	nop; ldtmu0
	mov ra_ka, r4
:group
	mov ra_m, 0
.rep i, 32
	max r0, ra_x1, unif
	min r1, rb_x2, unif
	sub r1, r1, r0
	max r0, ra_y1, unif
	min r2, rb_y2, unif
	sub r2, r2, r0
	max r1, r1, 0
	max r2, r2, 0
	add r0, ra_ka, unif; mul24 r1, r1, r2
	sub.setf -, r0, r1
	or.ifn ra_m, ra_m, unif
.endr
	mov -, vw_wait			# the row is free again
	mov vw_setup, rb_vw
	sub.setf ra_ng, ra_ng, 1
	mov vpm, ra_m
	mov vw_setup, rb_vdw
	brr.anynz -, r:group
	mov vw_addr, rb_out
	add rb_out, rb_out, ra_stride
	nop
	sub.setf ra_nb, ra_nb, 1
	brr.anynz -, r:block
	nop
	nop
	nop
:done
	qpu_exit
