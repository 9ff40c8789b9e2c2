# SPDX-License-Identifier: MIT
#
# dwconv on V3D 4.2 and 7.1: the depthwise 3x3 convolution of
# ../dwconv.qasm (strides, pads, bias, the clamp of a fused ReLU or
# ReLU6), horizontal strides 1 and 2 (window.c refuses others here), the
# same calls and uniform windows (../window.qinc's, read with ldunifa).
#
# DOC: rows and lanes
# A vector is OUT outputs of a row, lane l output column x0 + l: 14 at
# stride 1, 15 at stride 2. Lane l's lookups read the input columns its
# taps need at kx = 0 (and, at stride 2, kx = 1) in each of the three
# input rows: one lookup of 16 neighbouring words a row at stride 1, two
# at stride 2, where VideoCore IV's kernel makes nine. The other taps are
# a neighbour lane's: the column sums S_kx = sum over ky of w[ky][kx] x
# input are rotated (S_1 by one lane, S_2 by two at stride 1; S_2 by one
# at stride 2; gen42/ and gen71/window_gen.qinc), so lanes OUT..15 hold
# wrapped sums and never store. The vector's successor is looked up
# before its sums are made; past a row's end, the last column is read
# again (the wrapper counts those words).
#
# DOC: pads
# A row outside the input reads the zero area (W words after the
# uniforms); a column outside reads the clamped column and its word is
# replaced by 0 (not multiplied by a mask: a pad beside an infinite pixel
# stays a pad, as ONNX has it). Lanes store where their x is below OW (a
# conditional TMU write).
#
# DOC: uniforms
# window.qinc's, with a vector's column step OUT x stride_w, vectors a
# row of OUT outputs, and OUT in place of the first VPM word; then the
# zero area, the clamp's low and high bound; per task window.qinc's,
# the nine weights (ky-major) and the bias.

.include "v3d.qinc"
.include "window_gen.qinc"

# Input row iy + @k of this output row (rf32 = iy): its address in
# @dst, or the zero area's when the row is outside the input.
.macro row_addr, k, dst
	add rf50, rf32, k ; nop
	max rf51, rf50, 0 ; nop
	min rf51, rf51, rf12 ; nop
	sub.pushz -, rf51, rf50 ; nop
	nop ; umul24 rf51, rf51, rf13
	add dst, rf30, rf51 ; nop
	nop ; mov.ifna dst, rf20
.endm

# Lane l's column rf38 + @k: clamped byte offset in @off, 0 in @mask
# when the column is inside.
.macro col_off, k, off, mask
	add rf50, rf38, k ; nop
	max off, rf50, 0 ; nop
	min off, off, rf11 ; nop
	sub mask, off, rf50 ; nop
	shl off, off, 2 ; nop
.endm

# The next vector's lookups (@sw 1: a word of each row; 2: two).
.macro issue, sw
	col_off 0, rf52, rf54
.if sw == 2
	col_off 1, rf51, rf53
.endif
	add tmua, rf34, rf52 ; nop
.if sw == 2
	add tmua, rf34, rf51 ; nop
.endif
	add tmua, rf35, rf52 ; nop
.if sw == 2
	add tmua, rf35, rf51 ; nop
.endif
	add tmua, rf36, rf52 ; nop
.if sw == 2
	add tmua, rf36, rf51 ; nop
.endif
	add rf38, rf38, rf15 ; nop
.endm

# @s = w[0][@kx] @a + w[1][@kx] @b + w[2][@kx] @c (w0..w2: its weights).
.macro colsum, s, a, b, c, w0, w1, w2
	nop ; fmul s, a, w0
	nop ; fmul rf61, b, w1
	fadd s, s, rf61 ; nop
	nop ; fmul rf61, c, w2
	fadd s, s, rf61 ; nop
.endm

# A row's vectors at horizontal stride @sw; rf58 holds the output.
.macro vectors, sw
	nop ; mov rf37, rf19		# vectors left
	nop ; mov rf38, rf25		# the lookups' first column, per lane
	nop ; mov rf39, rf31		# where the vector goes
	nop ; mov rf29, rf26		# its lanes' x (past OW: no store)
	issue sw
:1
.if sw == 1
	nop ; nop ; ldtmu.rf55
	nop ; nop ; ldtmu.rf56
	sub.pushz -, rf54, 0 ; nop
	nop ; nop ; ldtmu.rf57
	nop ; mov.ifna rf55, 0
	nop ; mov.ifna rf56, 0
	nop ; mov.ifna rf57, 0
	issue sw
	colsum rf58, rf55, rf56, rf57, rf40, rf43, rf46
	colsum rf59, rf55, rf56, rf57, rf41, rf44, rf47
	colsum rf60, rf55, rf56, rf57, rf42, rf45, rf48
	win_rot rf59, rf59, 1, -1
	win_rot rf60, rf60, 2, -2
.else
	nop ; nop ; ldtmu.rf55
	sub.pushz -, rf54, 0 ; nop
	nop ; nop ; ldtmu.rf56
	sub.pushz -, rf53, 0 ; nop	# B: even inside, A: odd
	nop ; nop ; ldtmu.rf57
	nop ; nop ; ldtmu.rf62
	nop ; nop ; ldtmu.rf63
	nop ; nop ; ldtmu.rf9
	nop ; mov.ifnb rf55, 0
	nop ; mov.ifnb rf57, 0
	nop ; mov.ifnb rf63, 0
	nop ; mov.ifna rf56, 0
	nop ; mov.ifna rf62, 0
	nop ; mov.ifna rf9, 0
	issue sw
	colsum rf58, rf55, rf57, rf63, rf40, rf43, rf46
	colsum rf59, rf56, rf62, rf9, rf41, rf44, rf47
	colsum rf60, rf55, rf57, rf63, rf42, rf45, rf48
	win_rot rf60, rf60, 1, -1
.endif
	fadd rf58, rf58, rf49 ; nop	# + bias
	fadd rf58, rf58, rf59 ; nop
	fadd rf58, rf58, rf60 ; nop
	fmax rf58, rf58, rf21 ; nop
	sub.pushn -, rf29, rf27 ; nop	# A: a lane to store
	fmin.ifa tmud, rf58, rf22 ; nop
	add.ifa tmua, rf39, rf24 ; nop
	sub.pushz rf37, rf37, 1 ; nop
	b.anyna r:1b
	add rf39, rf39, rf28 ; nop
	add rf29, rf29, rf4 ; nop
	nop ; nop
	# the lookups past the row's end
	nop ; nop ; ldtmu.rf55
	nop ; nop ; ldtmu.rf55
	nop ; nop ; ldtmu.rf55
.if sw == 2
	nop ; nop ; ldtmu.rf55
	nop ; nop ; ldtmu.rf55
	nop ; nop ; ldtmu.rf55
.endif
.endm

# Every task's rows at horizontal stride @sw.
.macro tasks, sw
:2	# a task
	v3d_unif rf30			# the channel's input plane
	v3d_unif rf31			# its first output row
	v3d_unif rf32			# that row's first input row (may be < 0)
	v3d_unif rf33			# rows
	v3d_unif rf40			# w[0][0]
	v3d_unif rf41
	v3d_unif rf42
	v3d_unif rf43
	v3d_unif rf44
	v3d_unif rf45
	v3d_unif rf46
	v3d_unif rf47
	v3d_unif rf48			# w[2][2]
	v3d_unif rf49			# bias
:3	# a row
	row_addr 0, rf34
	row_addr 1, rf35
	row_addr 2, rf36
	vectors sw
	sub.pushz rf33, rf33, 1 ; nop
	b.anyna r:3b
	add rf31, rf31, rf14 ; nop
	add rf32, rf32, rf17 ; nop
	nop ; nop
	sub.pushz rf10, rf10, 1 ; nop
	b.anyna r:2b
	nop ; nop
	nop ; nop
	nop ; nop
.endm

	v3d_window
	v3d_unif rf10			# tasks
	v3d_unif rf11			# W - 1
	v3d_unif rf12			# H - 1
	v3d_unif rf13			# row pitch
	v3d_unif rf14			# OW * 4
	v3d_unif rf15			# a vector's column step
	v3d_unif rf16			# stride_w
	v3d_unif rf17			# stride_h
	v3d_unif rf18			# pad_left
	v3d_unif rf19			# vectors a row
	v3d_unif rf4			# OUT: outputs a vector
	v3d_unif rf5
	v3d_unif rf5
	v3d_unif rf20			# the zero area
	v3d_unif rf21			# lo
	v3d_unif rf22			# hi
	sub.pushz rf10, rf10, 0 ; nop
	b.alla done
	eidx rf23 ; nop
	shl rf24, rf23, 2 ; nop		# lane * 4: the stores' offset
	nop ; umul24 rf25, rf23, rf16
	sub rf25, rf25, rf18 ; nop	# lane l's column at x = 0, kx = 0
	v3d_const rf26, 1, 15
	shl rf26, rf26, 15 ; nop	# 1 << 30: past any OW
	sub.pushn -, rf23, rf4 ; nop	# A: lane < OUT
	nop ; mov.ifa rf26, rf23	# lane l's x at x0 = 0, or never stored
	shl rf28, rf4, 2 ; nop		# bytes of OUT outputs
	shr rf27, rf14, 2 ; nop		# OW
	sub.pushz -, rf16, 1 ; nop
	b.anyna stride2
	nop ; nop
	nop ; nop
	nop ; nop
	tasks 1
	b done
	nop ; nop
	nop ; nop
	nop ; nop
stride2:
	tasks 2
:done
	v3d_end
