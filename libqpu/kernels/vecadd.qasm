# SPDX-License-Identifier: MIT
#
# c = a + b on 16-float vectors; every program adds its own run of vectors.
# Reads through the TMUs (a on TMU0, b on TMU1, one lane a float), stores
# each sum through its own VPM row with a VCD DMA store.
#
# Uniforms: a, b, c (bus addresses of this program's first vector),
# vectors (0 allowed), vw_setup word of the program's VPM row, VDW setup
# word storing that row (16 words).

.include "exit.qinc"

.set ra_a, ra0
.set rb_b, rb0
.set ra_c, ra1
.set ra_n, ra2
.set rb_vw, rb1
.set rb_vdw, rb2

	mov ra_a, unif
	mov rb_b, unif
	mov ra_c, unif
	mov.setf ra_n, unif
	mov rb_vw, unif
	mov rb_vdw, unif
	brr.allz -, r:done
	shl r3, elem_num, 2		# byte offset of each lane
	ldi r2, 64			# bytes per vector
	nop
:1
	add t0s, ra_a, r3; mov -, vw_wait	# our VPM row is free again
	add t1s, rb_b, r3
	add ra_a, ra_a, r2; nop; ldtmu0
	add rb_b, rb_b, r2; mov r0, r4; ldtmu1
	fadd r1, r0, r4; mov vw_setup, rb_vw
	sub.setf ra_n, ra_n, 1; mov vpm, r1
	brr.anynz -, r:1b
	mov vw_setup, rb_vdw			# the delay slots store the sum
	add ra_c, ra_c, r2; mov vw_addr, ra_c
	nop
:done
	qpu_exit
