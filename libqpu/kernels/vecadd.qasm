# SPDX-License-Identifier: MIT
#
# c = a + b on 16-float vectors; every program adds its own run of vectors.
# Reads through the TMUs (a on TMU0, b on TMU1, one lane a float), writes
# each sum to a row of the program's VPM rows and stores a batch of up to
# 8 rows (512 bytes) with one VCD DMA store (stream.qinc).
#
# Uniforms: a, b, c (bus addresses of this program's first vector),
# vectors (0 allowed), vw_setup word of the program's first VPM row, VDW
# setup word of that row with UNITS 0, rows per store.

.include "exit.qinc"
.include "dma.qinc"
.include "stream.qinc"

.set ra_a, ra0
.set rb_b, rb0
.set rb_out, rb1
.set ra_n, ra1
.set rb_vw, rb2
.set ra_vdw, ra2
.set rb_batch, rb3
.set rb_unit, rb4
.set ra_i, ra3
.set rb_vdwcur, rb5
.set ra_bytes, ra4
.set rb_1, rb6

	mov ra_a, unif
	mov rb_b, unif
	mov rb_out, unif
	mov.setf ra_n, unif
	mov rb_vw, unif
	mov ra_vdw, unif
	brr.allz -, r:done
	mov rb_batch, unif
	shl r3, elem_num, 2		# byte offset of each lane
	ldi r2, 64			# bytes per vector
	ldi rb_1, 1
	stream_init
	stream_first
:1	# a batch
	stream_batch r2, ra_i
:2	# a vector
	add t0s, ra_a, r3
	add t1s, rb_b, r3
	sub.setf ra_i, ra_i, rb_1; nop; ldtmu0
	brr.anynz -, r:2b
	add ra_a, ra_a, r2; mov r0, r4; ldtmu1
	fadd vpm, r0, r4
	add rb_b, rb_b, r2
	stream_store r:1b
:done
	qpu_exit
