# SPDX-License-Identifier: MIT
#
# Sum, minimum and maximum of a float vector on V3D 4.2 and 7.1: every
# program folds its own run of 16-float pieces (a lookup each, AHEAD in
# front as in vecadd.qasm) into three 16-lane partials and writes them to
# the result buffer, program k at byte 192 k: sums, minima, maxima, a
# piece each. A program with no pieces writes 0, +infinity, -infinity.
# The wrapper folds the partials of every program on the CPU.
#
# Window uniforms (reduce.c): x (this program's first piece), pieces (0
# allowed), eight words of VideoCore IV's gathering it skips, the result
# buffer.

.include "v3d.qinc"

.set AHEAD, 6

	v3d_window
	v3d_unif rf10			# x
	v3d_unif rf13			# pieces
.rep i, 8
	v3d_unif rf14
.endr
	v3d_unif rf12			# results
	eidx rf20 ; nop
	shl rf20, rf20, 2 ; nop		# lane * 4
	v3d_const rf30, 8, 3		# 64: bytes a piece
	nop ; mov rf24, 3
	nop ; umul24 rf24, rf24, rf30	# 192: bytes of partials a program
	nop ; umul24 rf24, rf24, rf7
	add rf12, rf12, rf24 ; nop
	add rf12, rf12, rf20 ; nop	# this lane's sum
	nop ; mov rf31, 0		# sums
	nop ; mov rf33, -1
	shr rf32, rf33, -8 ; nop	# 255 (shifts by -8 and -9 are by 24, 23)
	shl rf32, rf32, -9 ; nop	# minima: +infinity
	shl rf33, rf33, -9 ; nop	# maxima: -infinity
	sub.pushz rf15, rf13, 0 ; nop
	b.alla store
	add rf23, rf20, 0 ; nop
	sub rf21, rf13, 1 ; nop
	shl rf21, rf21, 6 ; nop
	add rf21, rf21, rf20 ; nop	# the last piece's offset
.rep i, AHEAD
	add tmua, rf10, rf20 ; nop
	add rf20, rf20, rf30 ; nop
	min rf20, rf20, rf21 ; nop
.endr
loop:
	add tmua, rf10, rf20 ; nop
	add rf20, rf20, rf30 ; nop ; ldtmu.rf40
	min rf20, rf20, rf21 ; nop
	sub.pushz rf13, rf13, 1 ; nop
	b.anyna loop
	fadd rf31, rf31, rf40 ; nop
	fmin rf32, rf32, rf40 ; nop
	fmax rf33, rf33, rf40 ; nop
.rep i, AHEAD
	nop ; nop ; ldtmu.rf40
.endr
store:
	add tmud, rf31, 0 ; nop
	add tmua, rf12, 0 ; nop
	add rf12, rf12, rf30 ; nop
	add tmud, rf32, 0 ; nop
	add tmua, rf12, 0 ; nop
	add rf12, rf12, rf30 ; nop
	add tmud, rf33, 0 ; nop
	add tmua, rf12, 0 ; nop
	v3d_end
