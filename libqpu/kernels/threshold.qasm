# SPDX-License-Identifier: MIT
#
# Binary threshold of 8-bit pixels: out = in > t ? maxval : 0, four pixels a
# word with the QPU's byte-wise saturating arithmetic (exact). For each
# byte: v8subs(in, t) is non-zero exactly when in > t; adding 254 with
# saturation and subtracting 254 again turns that into 1 or 0; times 255
# ((x << 8) - x, which cannot carry between bytes) gives 255 or 0; v8min
# with maxval gives maxval or 0. Every program converts its own run of
# 64-pixel blocks (one word a lane, TMU0) and stores each through its VPM
# row with a VCD DMA store.
#
# Uniforms: in, out (bus addresses of this program's first block), blocks
# (0 allowed), vw_setup word of the program's VPM row, VDW setup word
# storing that row, t in every byte, maxval in every byte.

.include "exit.qinc"

.set ra_in, ra0
.set ra_out, ra1
.set ra_n, ra2
.set rb_vw, rb0
.set rb_vdw, rb1
.set rb_t, rb2
.set ra_max, ra3
.set rb_64, rb4

	mov ra_in, unif
	mov ra_out, unif
	mov.setf ra_n, unif
	mov rb_vw, unif
	mov rb_vdw, unif
	brr.allz -, r:done
	mov rb_t, unif
	mov ra_max, unif
	shl r3, elem_num, 2		# byte offset of each lane
	ldi r2, 0xfefefefe		# 254 in every byte
	ldi rb_64, 64
	nop
:1
	add t0s, ra_in, r3; mov -, vw_wait	# our VPM row is free again
	add ra_in, ra_in, rb_64; nop; ldtmu0
	nop; v8subs r0, r4, rb_t
	sub.setf ra_n, ra_n, 1; v8adds r0, r0, r2
	nop; v8subs r0, r0, r2
	shl r1, r0, 8
	sub r0, r1, r0; mov vw_setup, rb_vw
	brr.anynz -, r:1b
	nop; v8min vpm, r0, ra_max		# the delay slots store the block
	mov vw_setup, rb_vdw
	add ra_out, ra_out, rb_64; mov vw_addr, ra_out
:done
	qpu_exit
