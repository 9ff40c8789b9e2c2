# SPDX-License-Identifier: MIT
#
# Camera frame to network input on V3D 4.2 and 7.1, as VideoCore IV's
# yuv.qasm does it: I420 to planar float RGB, resized by nearest
# neighbour, full-range BT.601, clamped to [0, 255], normalised per channel
# (value * a + b). Every program converts its own run of output rows, 16
# pixels a vector: lane i reads the words holding its Y, U and V bytes
# (the TMU aligns a word's address down) and shifts its byte out (a shift
# by address << 3: the ALU reads 5 bits), then writes R, G and B through
# the TMU.
#
# Window uniforms (yuv.c): Y plane, U plane, V plane, Y stride, U/V
# stride, step_x, step_y, first row, rows (0 allowed), vectors per row, R
# address of the first row, plane bytes, 2 * plane bytes, four VPM words it
# skips, a of R, G, B, b of R, G, B, then the conversion's 1.402, 0.344136,
# 0.714136, 1.772 and 255.0.

.include "v3d.qinc"

	v3d_window
	v3d_unif rf10			# Y plane
	v3d_unif rf11			# U plane
	v3d_unif rf12			# V plane
	v3d_unif rf13			# Y stride
	v3d_unif rf14			# U/V stride
	v3d_unif rf15			# step_x
	v3d_unif rf16			# step_y
	v3d_unif rf17			# row
	v3d_unif rf18			# rows
	v3d_unif rf19			# vectors a row
	v3d_unif rf21			# R out
	v3d_unif rf22			# plane bytes
	v3d_unif rf23			# 2 * plane bytes
.rep i, 4
	v3d_unif rf20
.endr
	v3d_unif rf24			# a: R, G, B
	v3d_unif rf25
	v3d_unif rf26
	v3d_unif rf27			# b: R, G, B
	v3d_unif rf28
	v3d_unif rf29
	v3d_unif rf31			# 1.402
	v3d_unif rf32			# 0.344136
	v3d_unif rf33			# 0.714136
	v3d_unif rf34			# 1.772
	v3d_unif rf35			# 255.0
	sub.pushz rf20, rf18, 0 ; nop
	b.alla done
	v3d_const rf30, 8, 3		# 64: bytes of a vector
	v3d_const rf36, 8, 4		# 128
	v3d_const rf37, 15, 4
	add rf37, rf37, 15 ; nop	# 255
	v3d_const rf38, 1, 4		# 16: pixels a vector
	eidx rf39 ; nop
	shl rf39, rf39, 2 ; nop
	add rf21, rf21, rf39 ; nop	# this lane's R out
row:
	nop ; umul24 rf40, rf17, rf16
	shr rf40, rf40, -16 ; nop	# sy (a shift by -16 is by 16)
	nop ; umul24 rf41, rf40, rf13
	add rf42, rf41, rf10 ; nop	# the Y row
	shr rf40, rf40, 1 ; nop		# the chroma row
	nop ; umul24 rf41, rf40, rf14
	add rf43, rf41, rf11 ; nop	# the U row
	add rf44, rf41, rf12 ; nop	# the V row
	eidx rf45 ; nop			# x
	add rf46, rf19, 0 ; nop		# vectors left in the row
	add rf17, rf17, 1 ; nop
vec:
	nop ; umul24 rf47, rf45, rf15
	shr rf47, rf47, -16 ; nop	# sx
	add rf48, rf42, rf47 ; nop
	shr rf47, rf47, 1 ; nop		# the chroma column
	add rf49, rf43, rf47 ; nop
	add rf50, rf44, rf47 ; nop
	nop ; mov tmua, rf48
	nop ; mov tmua, rf49
	nop ; mov tmua, rf50
	shl rf48, rf48, 3 ; nop
	shl rf49, rf49, 3 ; nop
	shl rf50, rf50, 3 ; nop
	add rf45, rf45, rf38 ; nop
	nop ; nop ; ldtmu.rf51
	shr rf51, rf51, rf48 ; nop
	and rf51, rf51, rf37 ; nop	# Y
	nop ; nop ; ldtmu.rf52
	shr rf52, rf52, rf49 ; nop
	and rf52, rf52, rf37 ; nop
	sub rf52, rf52, rf36 ; nop	# U'
	nop ; nop ; ldtmu.rf53
	shr rf53, rf53, rf50 ; nop
	and rf53, rf53, rf37 ; nop
	sub rf53, rf53, rf36 ; nop	# V'
	itof rf51, rf51 ; nop
	itof rf52, rf52 ; nop
	itof rf53, rf53 ; nop
	nop ; fmul rf54, rf53, rf31	# R
	fadd rf54, rf51, rf54 ; nop
	fmax rf54, rf54, 0 ; nop
	fmin rf54, rf54, rf35 ; nop
	nop ; fmul rf54, rf54, rf24
	fadd tmud, rf54, rf27 ; nop
	nop ; mov tmua, rf21
	nop ; fmul rf54, rf52, rf32	# G
	fsub rf54, rf51, rf54 ; nop
	nop ; fmul rf55, rf53, rf33
	fsub rf54, rf54, rf55 ; nop
	fmax rf54, rf54, 0 ; nop
	fmin rf54, rf54, rf35 ; nop
	nop ; fmul rf54, rf54, rf25
	fadd tmud, rf54, rf28 ; nop
	add tmua, rf21, rf22 ; nop
	nop ; fmul rf54, rf52, rf34	# B
	fadd rf54, rf51, rf54 ; nop
	fmax rf54, rf54, 0 ; nop
	fmin rf54, rf54, rf35 ; nop
	sub.pushz rf46, rf46, 1 ; nop
	nop ; fmul rf54, rf54, rf26
	b.anyna vec
	fadd tmud, rf54, rf29 ; nop
	add tmua, rf21, rf23 ; nop
	add rf21, rf21, rf30 ; nop
	sub.pushz rf18, rf18, 1 ; nop
	b.anyna row
	nop ; nop
	nop ; nop
	nop ; nop
:done
	v3d_end
