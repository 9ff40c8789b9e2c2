# SPDX-License-Identifier: MIT
#
# Camera frame to network input in one pass: I420 (YUV 4:2:0, 8-bit
# planes) to planar float RGB (three planes, R, G, B, each dst_w x dst_h),
# resized by nearest neighbour and normalised per channel.
#
# For output pixel (x, y): sx = (x * step_x) >> 16, sy = (y * step_y) >> 16
# (16.16 steps, src / dst); Y from (sx, sy), U and V from (sx / 2, sy / 2);
# full-range BT.601: R = Y + 1.402 V', G = Y - 0.344136 U' - 0.714136 V',
# B = Y + 1.772 U' (U' = U - 128, V' = V - 128), each clamped to [0, 255];
# then out = value * a + b per channel (a = 1 / (255 std), b = -mean / std).
#
# Every program converts its own run of output rows. Lane i of a 16-pixel
# vector fetches the words holding its Y, U and V bytes (TMU0, TMU1, TMU0;
# the TMU ignores the low address bits) and shifts its byte out. The three
# channel rows go to the program's VPM rows 3k..3k+2 and out with three VCD
# DMA stores of 64 bytes.
#
# Uniforms: Y plane, U plane, V plane (bus addresses), Y stride, U/V stride,
# step_x, step_y, first row, rows (0 allowed), vectors per row, R address
# of the first row, plane bytes, 2 * plane bytes, vw_setup word of row 3k
# (stride 1), VDW setup words of rows 3k, 3k + 1, 3k + 2, a of R, G, B,
# b of R, G, B.

.include "exit.qinc"

.set ra_yplane, ra0
.set ra_uplane, ra1
.set ra_vplane, ra2
.set ra_ybase, ra3
.set ra_ubase, ra4
.set ra_vbase, ra5
.set ra_x, ra6
.set ra_xn, ra7
.set ra_y, ra8
.set ra_rows, ra9
.set ra_out, ra10
.set ra_kvr, ra11
.set ra_kgu, ra12
.set ra_kbu, ra13
.set ra_ar, ra14
.set ra_ag, ra15
.set ra_ab, ra16

.set rb_ys, rb0
.set rb_cs, rb1
.set rb_stepx, rb2
.set rb_stepy, rb3
.set rb_nvec, rb4
.set rb_plane, rb5
.set rb_plane2, rb6
.set rb_vw, rb7
.set rb_vdw0, rb8
.set rb_vdw1, rb9
.set rb_vdw2, rb10
.set rb_br, rb11
.set rb_bg, rb12
.set rb_bb, rb13
.set rb_16, rb14
.set rb_255, rb15
.set rb_128, rb16
.set rb_255f, rb17
.set rb_kgv, rb18
.set rb_64, rb19

	mov ra_yplane, unif
	mov ra_uplane, unif
	mov ra_vplane, unif
	mov rb_ys, unif
	mov rb_cs, unif
	mov rb_stepx, unif
	mov rb_stepy, unif
	mov ra_y, unif
	mov.setf ra_rows, unif
	mov rb_nvec, unif
	mov ra_out, unif
	mov rb_plane, unif
	mov rb_plane2, unif
	mov rb_vw, unif
	mov rb_vdw0, unif
	mov rb_vdw1, unif
	mov rb_vdw2, unif
	mov ra_ar, unif
	mov ra_ag, unif
	mov ra_ab, unif
	mov rb_br, unif
	mov rb_bg, unif
	brr.allz -, r:done
	mov rb_bb, unif
	ldi rb_16, 16
	ldi rb_255, 255
	ldi rb_128, 128
	ldi rb_255f, 255.0
	ldi ra_kvr, 1.402
	ldi ra_kgu, 0.344136
	ldi rb_kgv, 0.714136
	ldi ra_kbu, 1.772
	ldi rb_64, 64

:1	# an output row
	nop; mul24 r0, ra_y, rb_stepy
	shr r0, r0, rb_16		# sy
	nop; mul24 r1, r0, rb_ys
	shr r0, r0, 1			# chroma row
	add ra_ybase, r1, ra_yplane; mul24 r1, r0, rb_cs
	add ra_ubase, r1, ra_uplane
	add ra_vbase, r1, ra_vplane
	mov ra_x, elem_num
	mov ra_xn, rb_nvec
	add ra_y, ra_y, 1
:2	# 16 pixels of the row
	nop; mul24 r0, ra_x, rb_stepx
	shr r0, r0, rb_16		# sx
	add r1, ra_ybase, r0
	shr r0, r0, 1			# chroma column
	add r2, ra_ubase, r0; mov t0s, r1
	add r3, ra_vbase, r0; mov t1s, r2
	shl r1, r1, 3; mov t0s, r3	# shift counts: 8 * (address & 3)
	shl r2, r2, 3
	shl r3, r3, 3
	add ra_x, ra_x, rb_16; nop; ldtmu0
	shr r0, r4, r1; nop; ldtmu1
	and r1, r0, rb_255
	shr r0, r4, r2; nop; ldtmu0
	and r2, r0, rb_255
	shr r0, r4, r3; mov -, vw_wait	# our VPM rows are free again
	and r3, r0, rb_255
	sub r2, r2, rb_128
	sub r3, r3, rb_128
	itof r1, r1			# Y
	itof r2, r2			# U'
	itof r3, r3; mov vw_setup, rb_vw	# V'
	nop; fmul r0, r3, ra_kvr		# R
	fadd r0, r1, r0
	fmax r0, r0, 0
	fmin r0, r0, rb_255f
	nop; fmul r0, r0, ra_ar
	fadd vpm, r0, rb_br
	nop; fmul r0, r2, ra_kgu		# G
	fsub r0, r1, r0; fmul r3, r3, rb_kgv
	fsub r0, r0, r3
	fmax r0, r0, 0
	fmin r0, r0, rb_255f
	nop; fmul r0, r0, ra_ag
	fadd vpm, r0, rb_bg
	nop; fmul r0, r2, ra_kbu		# B
	fadd r0, r1, r0
	fmax r0, r0, 0
	fmin r0, r0, rb_255f
	nop; fmul r0, r0, ra_ab
	fadd vpm, r0, rb_bb
	sub.setf ra_xn, ra_xn, 1
	mov vw_setup, rb_vdw0
	mov vw_addr, ra_out
	mov -, vw_wait
	mov vw_setup, rb_vdw1
	add vw_addr, ra_out, rb_plane
	mov -, vw_wait
	brr.anynz -, r:2b
	mov vw_setup, rb_vdw2			# the delay slots store B
	add vw_addr, ra_out, rb_plane2
	add ra_out, ra_out, rb_64
	sub.setf ra_rows, ra_rows, 1
	brr.anynz -, r:1b
	nop
	nop
	nop
:done
	qpu_exit
