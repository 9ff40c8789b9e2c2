# SPDX-License-Identifier: MIT
#
# y = alpha * x + y on 16-float vectors, in place; every program updates its
# own run of vectors. x comes through TMU0, y through TMU1; each result goes
# back over y through the program's VPM row and a VCD DMA store (a vector is
# read before it is written, so in place is safe).
#
# Uniforms: x, y (bus addresses of this program's first vector), vectors
# (0 allowed), vw_setup word of the program's VPM row, VDW setup word
# storing that row (16 words), alpha.

.include "exit.qinc"

.set ra_x, ra0
.set rb_y, rb0
.set ra_out, ra1
.set ra_n, ra2
.set rb_vw, rb1
.set rb_vdw, rb2
.set ra_alpha, ra3

	mov ra_x, unif
	mov rb_y, unif; mov r0, unif	# one uniform, read by both units
	mov ra_out, r0
	mov.setf ra_n, unif
	mov rb_vw, unif
	mov rb_vdw, unif
	brr.allz -, r:done
	mov ra_alpha, unif
	shl r3, elem_num, 2		# byte offset of each lane
	ldi r2, 64			# bytes per vector
:1
	add t0s, ra_x, r3; mov -, vw_wait	# our VPM row is free again
	add t1s, rb_y, r3
	add ra_x, ra_x, r2; nop; ldtmu0
	add rb_y, rb_y, r2; fmul r0, r4, ra_alpha; ldtmu1
	fadd r1, r0, r4; mov vw_setup, rb_vw
	sub.setf ra_n, ra_n, 1; mov vpm, r1
	brr.anynz -, r:1b
	mov vw_setup, rb_vdw			# the delay slots store the result
	add ra_out, ra_out, r2; mov vw_addr, ra_out
	nop
:done
	qpu_exit
