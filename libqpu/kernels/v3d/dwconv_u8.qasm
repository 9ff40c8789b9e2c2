# SPDX-License-Identifier: MIT
#
# dwconv_u8 on V3D 4.2 and 7.1: the depthwise 3x3 convolution of bytes of
# struct qpu_dwconv_u8 (../nn_kernels.h), exact sums, requantized here,
# bit-exact with libqpu/nn's nn_requant(); horizontal strides 1 and 2, any
# vertical stride, pads and alignment. Host side: ../dwconv_u8_v3d.c.
#
# DOC: words and lanes
# A lane owns four neighbouring input columns cl..cl+3 of each of the
# three input rows: per row, two 16-word lookups (the aligned word under
# cl, and the one under cl + 4), whose 16 lanes read 64 neighbouring bytes
# (one or two lines). Rows need not be word aligned (W = 7, 14; planes
# follow each other with no gap): a funnel shift by the row's byte offset
# g (the same for all its lanes) lines columns cl..cl+3 up in one word X,
# and four shifts take its bytes apart. The columns are clamped to the
# row before the lookups, so none leaves it; the bytes that clamping makes
# wrong are pads. Pad columns become zx by a per-lane byte mask (M; zx in
# the other bytes, with int8 x's 0x80 folded in, one xor a row); a pad
# row reads the zero area, filled with zx as the tensor stores it. The
# sums S_kx[c] = sum over ky of w[ky][kx] x[ky][c] over the lane's columns
# make its outputs: at stride 1 four, ox = cl + pl .. cl + pl + 3, at
# stride 2 two (columns cl and cl + 2); what needs the next lane's columns
# comes from its partial sums by one rotation (Q2, Q3 at stride 1: S_2[0]
# and S_1[0] + S_2[1]; Q = S_2[0] at stride 2), so a group's last lane
# keeps only its first two outputs (one at stride 2). Sums are exact in
# 32-bit integers (smul24); the host folds zx into the bias (bias - zx x
# the weights' sum), so a pad (zx) adds nothing.
#
# DOC: groups
# A row of OW outputs takes LG lanes (a power of two) when it fits in them
# (OW <= 4 LG - 2 at stride 1, 2 LG - 1 at stride 2): the vector's 16
# lanes are 16 / LG groups, group g on output row oy + g, so rows of 14
# fill a vector four at a time. Wider rows take all 16 lanes and several
# vectors, 60 input columns apart. Every lane has its own row addresses,
# byte offsets, output row and limits; a group past the task's rows stores
# nothing. Outputs go out as byte stores (the config word tmuc: 0xfd a
# store), one per output a lane, where the output is below OW.
#
# DOC: requantization
# y = clamp(round_half_even(acc * mult + zy), lo, hi) as nn_requant()
# has it with the product in double. Here: p = fl(itof(acc) * mult)
# (|acc| < 2^24, refused otherwise: itof is exact, fmul rounds once to
# nearest), clamped in float to [lo - zy, hi - zy] (integers: clamping
# commutes with rounding, and no ftoin overflows), r = ftoin(p) (half to
# even), y = r + zy. Where it matters (|p| < 256) |p - acc * mult| <=
# 2^-17, so r is acc * mult's rounding unless a half-integer lies within
# 2^-17 of p, and a tie of acc * mult + zy goes to the even of the two
# sums, which r + zy may miss when zy is odd. So a lane whose d = p - r
# has d^2 above thr2 = (1/2 - 2^-12)^2 takes the exact path (branched to
# only when some lane needs it): with mult = m 2^-s (m the 24-bit
# mantissa) and K + 1/2 the half-integer nearest p, the sign of D = acc m
# - (2K + 1) 2^(s-1) decides, computed modulo 2^32 (multop, umul24; the
# shift in two, for s - 1 past 31): that is D itself, as |D| < 2^(s-11)
# <= 2^30 for s <= 41 (mult >= 2^-18; the host refuses smaller, and
# mult >= 2^23). D > 0: K + zy + 1; D < 0: K + zy; D = 0, a tie: the
# even of the two. The near lanes' p lie strictly inside the clamp, so
# their y needs none.
#
# DOC: uniforms
# Per program: tasks, W, H - 1, OW, pad_left, stride_h, W - 1, the zero
# area, lo - zy and hi - zy (floats), zy (+ 128 for int8 y: a byte store
# keeps the low byte, y ^ 0x80), thr2, zx x 0x01010101 (as stored), the
# byte stores' config, a vector's input columns (60), 0x80808080 for int8
# x (else 0), vectors a row, log2 LG, stride_w, 16 / LG (rows a group),
# 16 / LG x stride_h. Per task: the channel's plane, its first output
# row's address, that row's first input row (may be < 0), rows, the nine
# weights (ky-major), bias - zx x their sum, mult.
#
# DOC: cost
# Instructions (emulator counts, 4.2; 7.1's 1 to 2 % fewer): where a row
# is one vector, 241 a vector and its group at stride 1, 194 at stride 2;
# where rows take several vectors, 201 (153) a vector and 56 a group; a
# task 31; a program 57. A group's last vector makes the next group's row
# addresses and lookups, which so wait behind its outputs; the byte mask
# is made a vector only where rows take several. A vector makes 6
# lookups and 4 (2) byte stores, one or two lines each.

.include "v3d.qinc"
.include "window_gen.qinc"
.include "dwu8_gen.qinc"

# Row @k of the group (input row rf57 + @k) at @r: its address, or the
# zero area's when outside the input; @g8 = 8 x its byte offset less pl.
.macro row_addr, k, r, g8
	add rf6, rf57, k ; nop
	nop ; umul24 rf4, rf6, rf11
	add r, rf30, rf4 ; nop
	sub.pushc -, rf12, rf6 ; nop	# A: outside (H - 1 < row, unsigned)
	nop ; mov.ifa r, rf18
	sub rf6, r, rf14 ; nop
	and rf6, rf6, 3 ; nop
	shl g8, rf6, 3 ; nop
.endm

# The lookups of the vector at column rf38: each row's word under the
# lane's first column and under its fifth (what the next lane has), the
# columns clamped to the row.
.macro issue
	max rf57, rf38, 0 ; nop
	min rf57, rf57, rf16 ; nop
	add rf4, rf38, 4 ; nop
	max rf4, rf4, 0 ; nop
	min rf4, rf4, rf16 ; nop
	add rf6, rf34, rf57 ; nop
	and tmua, rf6, -4 ; nop
	add rf6, rf34, rf4 ; nop
	and tmua, rf6, -4 ; nop
	add rf6, rf35, rf57 ; nop
	and tmua, rf6, -4 ; nop
	add rf6, rf35, rf4 ; nop
	and tmua, rf6, -4 ; nop
	add rf6, rf36, rf57 ; nop
	and tmua, rf6, -4 ; nop
	add rf6, rf36, rf4 ; nop
	and tmua, rf6, -4 ; nop
.endm

# The byte mask of the lane's columns inside the row (rf58) and zx in
# the others (rf59).
.macro col_mask
	sub rf6, rf11, rf38 ; nop	# columns left from cl
	max rf6, rf6, 0 ; nop
	min rf6, rf6, 4 ; nop
	shl rf6, rf6, 2 ; nop
	nop ; mov rf58, -1
	shl rf58, rf58, rf6 ; nop
	shl rf58, rf58, rf6 ; nop
	not rf58, rf58 ; nop		# bytes below W
	neg rf6, rf38 ; nop		# pad columns before the row
	max rf6, rf6, 0 ; nop
	min rf6, rf6, 4 ; nop
	shl rf6, rf6, 2 ; nop
	nop ; mov rf59, -1
	shl rf59, rf59, rf6 ; nop
	shl rf59, rf59, rf6 ; nop
	and rf58, rf58, rf59 ; nop
	not rf59, rf58 ; nop
	and rf59, rf59, rf28 ; nop	# zx in the pad bytes
	and rf6, rf58, rf9 ; nop
	or rf59, rf59, rf6 ; nop	# 0x80 in the others of int8 x
.endm

# X (rf61) = columns cl..cl+3 of the row whose word was looked up, its
# byte offset in @g8.
.macro funnel, g8
	nop ; nop ; ldtmu.rf61
	nop ; nop ; ldtmu.rf62
	shr rf61, rf61, g8 ; nop
	not rf6, g8 ; nop		# 31 - g8
	shl rf62, rf62, 1 ; nop
	shl rf62, rf62, rf6 ; nop
	or rf61, rf61, rf62 ; nop
	and rf61, rf61, rf58 ; nop
	xor rf61, rf61, rf59 ; nop
.endm

# Byte @b of X into @p.
.macro byte, b, p
.if b == 0
	shl p, rf61, -8 ; nop
	shr p, p, -8 ; nop
.endif
.if b == 1
	shl p, rf61, -16 ; nop
	shr p, p, -8 ; nop
.endif
.if b == 2
	shl p, rf61, 8 ; nop
	shr p, p, -8 ; nop
.endif
.if b == 3
	shr p, rf61, -8 ; nop
.endif
.endm

# A row's products (weights @w0 @w1 @w2 of kx 0, 1, 2), two bytes at a
# time in @Pa and @Pb, each product (in @T) added while the next is made.
# Stride 1: rf0, rf1, rf2, rf25 outputs 0..3, rf26 Q2 = S_2[0], rf60 Q3 =
# S_1[0] + S_2[1]; stride 2: rf0, rf1 outputs 0, 1 (columns 0, 2), rf2
# Q = S_2[0]. _first: the vector's first row sets them, the outputs to
# the bias (less zx x the weights' sum) plus its products.
.macro row1_first, g8, w0, w1, w2, Pa, Pb, T
	funnel g8
	byte 0, Pa
	byte 1, Pb
	nop ; smul24 T, Pa, w0
	add rf0, rf49, T ; smul24 rf60, Pa, w1
	nop ; smul24 rf26, Pa, w2
	nop ; smul24 T, Pb, w0
	add rf1, rf49, T ; smul24 T, Pb, w1
	add rf0, rf0, T ; smul24 T, Pb, w2
	add rf60, rf60, T ; nop
	byte 2, Pa
	byte 3, Pb
	nop ; smul24 T, Pa, w0
	add rf2, rf49, T ; smul24 T, Pa, w1
	add rf1, rf1, T ; smul24 T, Pa, w2
	add rf0, rf0, T ; smul24 T, Pb, w0
	add rf25, rf49, T ; smul24 T, Pb, w1
	add rf2, rf2, T ; smul24 T, Pb, w2
	add rf1, rf1, T ; nop
.endm

.macro row1_next, g8, w0, w1, w2, Pa, Pb, T
	funnel g8
	byte 0, Pa
	byte 1, Pb
	nop ; smul24 T, Pa, w0
	add rf0, rf0, T ; smul24 T, Pa, w1
	add rf60, rf60, T ; smul24 T, Pa, w2
	add rf26, rf26, T ; smul24 T, Pb, w0
	add rf1, rf1, T ; smul24 T, Pb, w1
	add rf0, rf0, T ; smul24 T, Pb, w2
	add rf60, rf60, T ; nop
	byte 2, Pa
	byte 3, Pb
	nop ; smul24 T, Pa, w0
	add rf2, rf2, T ; smul24 T, Pa, w1
	add rf1, rf1, T ; smul24 T, Pa, w2
	add rf0, rf0, T ; smul24 T, Pb, w0
	add rf25, rf25, T ; smul24 T, Pb, w1
	add rf2, rf2, T ; smul24 T, Pb, w2
	add rf1, rf1, T ; nop
.endm

.macro row2_first, g8, w0, w1, w2, Pa, Pb, T
	funnel g8
	byte 0, Pa
	byte 1, Pb
	nop ; smul24 T, Pa, w0
	add rf0, rf49, T ; smul24 rf2, Pa, w2
	nop ; smul24 T, Pb, w1
	add rf0, rf0, T ; nop
	byte 2, Pa
	byte 3, Pb
	nop ; smul24 T, Pa, w0
	add rf1, rf49, T ; smul24 T, Pa, w2
	add rf0, rf0, T ; smul24 T, Pb, w1
	add rf1, rf1, T ; nop
.endm

.macro row2_next, g8, w0, w1, w2, Pa, Pb, T
	funnel g8
	byte 0, Pa
	byte 1, Pb
	nop ; smul24 T, Pa, w0
	add rf0, rf0, T ; smul24 T, Pa, w2
	add rf2, rf2, T ; smul24 T, Pb, w1
	add rf0, rf0, T ; nop
	byte 2, Pa
	byte 3, Pb
	nop ; smul24 T, Pa, w0
	add rf1, rf1, T ; smul24 T, Pa, w2
	add rf0, rf0, T ; smul24 T, Pb, w1
	add rf1, rf1, T ; nop
.endm

# The three rows at stride @sw, the generation's registers for the bytes
# and the product in @Pa, @Pb, @T (dwu8_gen.qinc's dwu8_rows).
.macro rows, sw, Pa, Pb, T
.if sw == 1
	row1_first rf51, rf40, rf41, rf42, Pa, Pb, T
	row1_next rf53, rf43, rf44, rf45, Pa, Pb, T
	row1_next rf55, rf46, rf47, rf48, Pa, Pb, T
.else
	row2_first rf51, rf40, rf41, rf42, Pa, Pb, T
	row2_next rf53, rf43, rf44, rf45, Pa, Pb, T
	row2_next rf55, rf46, rf47, rf48, Pa, Pb, T
.endif
.endm

# @y = the requantized @acc less zy (the store adds it); rf26 = max(rf26,
# d^2) (@first: = d^2).
.macro requant, first, acc, y
	itof rf6, acc ; nop
	nop ; fmul rf6, rf6, rf50
	fmax rf6, rf6, rf20 ; nop
	fmin rf6, rf6, rf21 ; nop
	ftoin y, rf6 ; nop
	itof rf57, y ; nop
	fsub rf57, rf6, rf57 ; nop
.if first
	nop ; fmul rf26, rf57, rf57
.else
	nop ; fmul rf57, rf57, rf57
	fmax rf26, rf26, rf57 ; nop
.endif
.endm

# The exact path of output @acc (y in @y) for the lanes near a tie.
.macro exact, acc, y
	itof rf6, acc ; nop
	nop ; fmul rf6, rf6, rf50
	fmax rf6, rf6, rf20 ; nop
	fmin rf6, rf6, rf21 ; nop
	ftoin rf26, rf6 ; nop		# r
	itof rf57, rf26 ; nop
	fsub rf57, rf6, rf57 ; nop	# d
	nop ; fmul rf6, rf57, rf57
	fsub.pushn -, rf27, rf6 ; nop	# A: near a tie
	asr rf57, rf57, -1 ; nop	# -1 where d < 0
	add rf26, rf26, rf57 ; nop	# K: K + 0.5 nearest
	nop ; add rf52, rf26, rf22	# K + zy
	shl rf26, rf26, 1 ; nop
	add rf26, rf26, 1 ; nop		# 2K + 1
	nop ; mov rf57, -1
	shr rf57, rf57, -5 ; nop	# 31
	nop ; mov rf6, 9
	shl rf6, rf6, 4 ; nop
	add rf6, rf6, 5 ; nop		# 149
	shr rf54, rf50, -9 ; nop	# mult's biased exponent
	sub rf54, rf6, rf54 ; nop	# s - 1
	umin rf6, rf54, rf57 ; nop	# in two shifts
	shl rf26, rf26, rf6 ; nop
	sub rf6, rf54, rf6 ; nop
	shl rf26, rf26, rf6 ; nop
	shl rf54, rf50, 9 ; nop
	shr rf54, rf54, 9 ; nop
	nop ; mov rf6, 1
	shl rf6, rf6, -9 ; nop		# 1 << 23
	or rf54, rf54, rf6 ; nop	# m
	nop ; multop -, acc, rf54
	nop ; umul24 rf6, acc, rf54	# acc m mod 2^32
	sub rf6, rf6, rf26 ; nop	# D
	neg rf57, rf6 ; nop
	shr rf57, rf57, -1 ; nop	# D > 0
	and rf26, rf52, 1 ; nop		# K + zy odd
	sub.pushz -, rf6, 0 ; nop	# A: D == 0, B: near a tie
	or.ifa rf57, rf57, rf26 ; nop
	add.ifb y, rf52, rf57 ; nop
	sub.ifb y, y, rf22 ; nop	# less zy, as the fast path's
.endm

# The rows of the group whose first input row (lane group 0's) is rf57:
# their addresses and byte offsets, and the lane's first column (rf38).
.macro group_rows, sw
	nop ; umul24 rf6, rf24, rf15
	add rf57, rf57, rf6 ; nop	# the lane's group's first input row
	row_addr 0, rf34, rf51
	row_addr 1, rf35, rf53
	row_addr 2, rf36, rf55
.if sw == 1
	sub rf38, rf23, rf14 ; nop	# the first column: ox - pl
.else
	shl rf38, rf23, 1 ; nop
	sub rf38, rf38, rf14 ; nop
.endif
.endm

# Store byte @y of output @j (its limit in @lim) through the TMU.
.macro put, j, y, lim
.if j == 0
	sub.pushc -, rf39, lim ; nop
	nop ; add tmud, y, rf22	# + zy (+ 128 for int8 y)
	add.ifa tmua, rf63, rf39 ; nop
.else
	add rf6, rf39, j ; nop
	sub.pushc -, rf6, lim ; nop
	nop ; add tmud, y, rf22
	add.ifa tmua, rf63, rf6 ; nop
.endif
.endm

# A group's vectors at horizontal stride @sw.
.macro vectors, sw
	nop ; mov rf37, rf5		# vectors left
	nop ; mov rf39, rf23		# the lane's first output column
:1
	dwu8_rows sw
.if sw == 1
	win_rot rf26, rf26, 1, -1
	win_rot rf60, rf60, 1, -1
	add rf2, rf2, rf26 ; nop
	add rf25, rf25, rf60 ; nop
.else
	win_rot rf2, rf2, 1, -1
	add rf1, rf1, rf2 ; nop
.endif
	sub.pushz -, rf37, 1 ; nop	# A: the group's last vector
	b.anyna r:5f
	add rf38, rf38, rf8 ; nop	# the next vector's lookups
	nop ; nop
	nop ; nop
	# or the next group's first, while this one's outputs are made
	sub.pushn -, rf19, rf33 ; nop	# A: the task has rows past the group
	b.anyna r:6f
	nop ; nop
	nop ; nop
	nop ; nop
	add rf57, rf32, rf56 ; nop
	group_rows sw
	sub.pushz -, rf5, 1 ; nop	# A: a row is one vector: the mask stays
	b.anyna r:5f
	nop ; nop
	nop ; nop
	nop ; nop
	issue
	b r:6f
	nop ; nop
	nop ; nop
	nop ; nop
:5
	issue
	col_mask			# the next vector's columns
:6
	requant 1, rf0, rf61
	requant 0, rf1, rf62
.if sw == 1
	requant 0, rf2, rf4
	requant 0, rf25, rf60
.endif
	fsub.pushn -, rf27, rf26 ; nop	# A: a lane near a tie
	b.anya r:7f
	nop ; nop
	nop ; nop
	nop ; nop
:8
	nop ; mov tmuc, rf29		# byte stores
	put 0, rf61, rf7
.if sw == 1
	put 1, rf62, rf7
	put 2, rf4, rf3
	put 3, rf60, rf3
.else
	put 1, rf62, rf3
.endif
	sub.pushz rf37, rf37, 1 ; nop
	b.anyna r:1b
.if sw == 1
	add rf39, rf39, rf8 ; nop	# the next vector's outputs
	nop ; nop
.else
	shr rf6, rf8, 1 ; nop
	add rf39, rf39, rf6 ; nop
.endif
	nop ; nop
	b r:9f
	nop ; nop
	nop ; nop
	nop ; nop
:7
	exact rf0, rf61
	exact rf1, rf62
.if sw == 1
	exact rf2, rf4
	exact rf25, rf60
.endif
	b r:8b
	nop ; nop
	nop ; nop
	nop ; nop
:9
.endm

# Every task's rows at horizontal stride @sw, a group of rows at a time.
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
	v3d_unif rf49			# bias - zx sum w
	v3d_unif rf50			# mult
	nop ; mov rf57, rf32
	group_rows sw			# the task's first group
	issue
	col_mask
:3	# a group of rows, its first vector's lookups made
	nop ; umul24 rf6, rf24, rf13
	add rf63, rf31, rf6 ; nop	# the group's output row
	sub.pushc -, rf24, rf33 ; nop	# A: a row of the task
	nop ; mov rf7, 0
	nop ; mov.ifa rf7, rf13		# outputs 0 (, 1) store below OW
	and rf3, rf7, rf17 ; nop	# the others not in a group's last lane
	vectors sw
	sub rf33, rf33, rf19 ; nop
	sub.pushn -, rf33, 1 ; nop	# A: no rows left
	b.anyna r:3b
	add rf32, rf32, rf56 ; nop
	nop ; umul24 rf6, rf19, rf13
	add rf31, rf31, rf6 ; nop
	sub.pushz rf10, rf10, 1 ; nop
	b.anyna r:2b
	nop ; nop
	nop ; nop
	nop ; nop
.endm

	v3d_window
	v3d_unif rf10			# tasks
	v3d_unif rf11			# W
	v3d_unif rf12			# H - 1
	v3d_unif rf13			# OW
	v3d_unif rf14			# pad_left
	v3d_unif rf15			# stride_h
	v3d_unif rf16			# W - 1
	v3d_unif rf18			# the zero area
	v3d_unif rf20			# lo - zy
	v3d_unif rf21			# hi - zy
	v3d_unif rf22			# zy
	v3d_unif rf27			# thr2
	v3d_unif rf28			# zx x 0x01010101
	v3d_unif rf29			# the byte stores' config
	v3d_unif rf8			# a vector's input columns
	v3d_unif rf9			# 0x80808080 for int8 x, else 0
	v3d_unif rf5			# vectors a row
	v3d_unif rf6			# log2 LG
	v3d_unif rf4			# stride_w
	v3d_unif rf19			# 16 / LG: rows a group
	v3d_unif rf56			# 16 / LG x stride_h
	sub.pushz rf10, rf10, 0 ; nop
	b.alla done
	eidx rf23 ; nop
	shr rf24, rf23, rf6 ; nop	# g: the lane's group
	shl rf17, rf24, rf6 ; nop
	sub rf23, rf23, rf17 ; nop	# its lane in the group
	add rf17, rf23, 1 ; nop
	shr rf17, rf17, rf6 ; nop
	sub rf17, rf17, 1 ; nop		# 0 in a group's last lane, else ~0
	shl rf23, rf23, 2 ; nop		# 4 outputs a lane at stride 1
	sub.pushz -, rf4, 1 ; nop
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
	shr rf23, rf23, 1 ; nop		# 2 at stride 2
	tasks 2
:done
	v3d_end
