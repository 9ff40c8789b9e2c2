# SPDX-License-Identifier: MIT
#
# c = a + b on V3D 4.2 and 7.1, 16 floats (a piece) a lookup; every
# program adds its own run of pieces. Lane i reads element i of a piece of
# a and of b through the TMU and writes element i of c back through it.
# The reads run AHEAD pieces in front of the sums, so the lookups' latency
# hides behind the loop (AHEAD + 1 pieces of two lookups fill 8 of the
# thread's FIFO entries); the last piece is read again in their place at
# the end, harmlessly.
#
# Window uniforms (kernel.h, "DOC: streaming kernels"): a, b, c (this
# program's first piece), pieces (0 allowed), three VPM words it skips.

.include "v3d.qinc"

.set AHEAD, 3

	v3d_window
	v3d_unif rf10			# a
	v3d_unif rf11			# b
	v3d_unif rf12			# c
	v3d_unif rf13			# pieces
	v3d_unif rf14
	v3d_unif rf14
	v3d_unif rf14
	eidx rf20 ; nop
	shl rf20, rf20, 2 ; nop		# read offset: lane * 4
	sub.pushz rf15, rf13, 0 ; nop
	b.alla done
	shl rf23, rf20, 0 ; nop		# lane * 4, for the stores
	sub rf21, rf13, 1 ; nop
	shl rf21, rf21, 6 ; nop
	add rf21, rf21, rf20 ; nop	# the last piece's offset
	v3d_const rf30, 8, 3		# 64: bytes a piece
.rep i, AHEAD
	add tmua, rf10, rf20 ; nop
	add tmua, rf11, rf20 ; nop
	add rf20, rf20, rf30 ; nop
	min rf20, rf20, rf21 ; nop
.endr
loop:
	add tmua, rf10, rf20 ; nop
	add tmua, rf11, rf20 ; nop
	add rf20, rf20, rf30 ; nop ; ldtmu.rf40
	min rf20, rf20, rf21 ; nop ; ldtmu.rf41
	sub.pushz rf13, rf13, 1 ; nop
	b.anyna loop
	fadd tmud, rf40, rf41 ; nop
	add tmua, rf12, rf23 ; nop
	add rf12, rf12, rf30 ; nop
.rep i, AHEAD
	nop ; nop ; ldtmu.rf40
	nop ; nop ; ldtmu.rf41
.endr
:done
	v3d_end
