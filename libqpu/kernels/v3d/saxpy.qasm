# SPDX-License-Identifier: MIT
#
# y = alpha * x + y on V3D 4.2 and 7.1 (product and sum rounded apart),
# 16 floats (a piece) a lookup; every program updates its own run of
# pieces, reading AHEAD pieces of x and y in front of the writes as
# vecadd.qasm does (a piece of y is read before it is written).
#
# Window uniforms (kernel.h, "DOC: streaming kernels"): x, y (this
# program's first piece), pieces (0 allowed), three VPM words it skips,
# alpha.

.include "v3d.qinc"

.set AHEAD, 3

	v3d_window
	v3d_unif rf10			# x
	v3d_unif rf11			# y, read
	v3d_unif rf13			# pieces
	v3d_unif rf14
	v3d_unif rf14
	v3d_unif rf14
	v3d_unif rf16			# alpha
	eidx rf20 ; nop
	shl rf20, rf20, 2 ; nop		# read offset: lane * 4
	sub.pushz rf15, rf13, 0 ; nop
	b.alla done
	shl rf23, rf20, 0 ; nop		# lane * 4, for the stores
	sub rf21, rf13, 1 ; nop
	shl rf21, rf21, 6 ; nop
	add rf21, rf21, rf20 ; nop	# the last piece's offset
	add rf12, rf11, 0 ; nop		# y, written
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
	nop ; fmul rf42, rf40, rf16
	sub.pushz rf13, rf13, 1 ; nop
	b.anyna loop
	fadd tmud, rf42, rf41 ; nop
	add tmua, rf12, rf23 ; nop
	add rf12, rf12, rf30 ; nop
.rep i, AHEAD
	nop ; nop ; ldtmu.rf40
	nop ; nop ; ldtmu.rf41
.endr
:done
	v3d_end
