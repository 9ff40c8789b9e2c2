# SPDX-License-Identifier: MIT
#
# y = alpha * x + y on 16-float vectors, in place; every program updates its
# own run of vectors. x comes through TMU0, y through TMU1; each result goes
# to a row of the program's VPM rows, and a batch of up to 8 rows (512
# bytes) goes back over y with one VCD DMA store (stream.qinc). A batch is
# read before it is stored, so in place is safe.
#
# Uniforms: x, y (bus addresses of this program's first vector), vectors
# (0 allowed), vw_setup word of the program's first VPM row, VDW setup word
# of that row with UNITS 0, rows per store, alpha.

.include "exit.qinc"
.include "dma.qinc"
.include "stream.qinc"

.set ra_x, ra0
.set rb_y, rb0
.set rb_out, rb1
.set ra_n, ra1
.set rb_vw, rb2
.set ra_vdw, ra2
.set rb_batch, rb3
.set ra_alpha, ra3
.set rb_unit, rb4
.set ra_i, ra4
.set rb_vdwcur, rb5
.set ra_bytes, ra5
.set rb_1, rb6

	mov ra_x, unif
	mov rb_y, unif; mov r0, unif	# one uniform, read by both units
	mov rb_out, r0
	mov.setf ra_n, unif
	mov rb_vw, unif
	mov ra_vdw, unif
	mov rb_batch, unif
	brr.allz -, r:done
	mov ra_alpha, unif
	shl r3, elem_num, 2		# byte offset of each lane
	ldi r2, 64			# bytes per vector
	ldi rb_1, 1
	stream_init
	stream_first
:1	# a batch
	stream_batch r2, ra_i
:2	# a vector
	add t1s, rb_y, r3
	add t0s, ra_x, r3
	sub.setf ra_i, ra_i, rb_1; nop; ldtmu0
	brr.anynz -, r:2b
	add rb_y, rb_y, r2; fmul r0, r4, ra_alpha; ldtmu1
	fadd vpm, r0, r4
	add ra_x, ra_x, r2
	stream_store r:1b
:done
	qpu_exit
