# SPDX-License-Identifier: MIT
#
# qpu_preprocess() on V3D 4.2 and 7.1: a camera frame (NV12, I420, YUYV,
# RGB888) cropped, resized bilinearly (with letterbox padding), converted
# to RGB, clamped to [0, 255], normalised (and quantised) and written as
# an NCHW or NHWC tensor of floats or bytes, in one pass. Every program
# does its own run of output rows, 16 pixels a vector; lanes past the
# row's end take its last pixel (the same value to the same place).
#
# For output column x: fx = fx0 + x * stepx (16.16), taps xa, xb = floor
# and floor + 1 clamped to the crop, weight (fx & 0xffff) / 65536; rows
# alike. Component c of source pixel (x, y) is the byte at B_c + (y >>
# vs_c) * S_c + (x >> hs_c) * m_c, read as an unsigned byte lookup (the
# TMU's config byte 0xfd, four lookups a config word). The four taps of
# each component are interpolated (top, bottom, then between them), the
# three components converted by the colour rows (m0, m1, m2, k) and
# clamped, replaced by the pad value outside the image area, then v * a +
# b; a quantised tensor (qrange not 0) clamps to [0, qrange], truncates
# and adds qmin. The kernels doc and preproc.c give the arithmetic; the CPU
# reference (preproc_cpu.c) does the same operations.
#
# Window uniforms (preproc.c, enum preproc_unif): the program's
# constants (hs0-2, m0-2, fx0, stepx, xlo, xhi, area x, area width - 1,
# width - 1, pixel bytes, channel bytes, the byte config word, vectors a
# row, first row, rows, its first row's address, row bytes, its first
# row's fy, 1/65536, 255.0; eight words for VideoCore IV's program),
# then the row section (B0-2, S0-2, vs0-2,
# stepy, ylo, yhi, area y, area height - 1), read again for every row,
# then the colour section (per channel m0, m1, m2, k; pad; per channel a,
# b; the write config word, qrange, qmin), read again for every vector:
# the registers hold the rest.

.include "v3d.qinc"

# The byte offsets of the row and colour sections in the window (the 8
# words before the row section are VideoCore IV's).
.set ROW_WORDS_SHIFT, 7		# 32 words: 128 bytes = 1 << 7
.set COL_AFTER_ROW, 7		# 14 words: 56 bytes = 7 << 3

# Issue the four taps of one component: shift @hs, bytes @m, rows @ra, @rb.
.macro taps, hs, m, ra, rb
	shr rf49, rf47, hs ; nop
	nop ; umul24 rf49, rf49, m
	shr rf50, rf48, hs ; nop
	nop ; umul24 rf50, rf50, m
	nop ; mov tmuc, rf25
	add tmua, ra, rf49 ; nop
	add tmua, ra, rf50 ; nop
	add tmua, rb, rf49 ; nop
	add tmua, rb, rf50 ; nop
.endm

# @dst = the four taps of the oldest component in the FIFO, interpolated.
.macro blend, dst
	nop ; nop ; ldtmu.rf51
	nop ; nop ; ldtmu.rf52
	nop ; nop ; ldtmu.rf53
	nop ; nop ; ldtmu.rf54
	itof rf51, rf51 ; nop
	itof rf52, rf52 ; nop
	itof rf53, rf53 ; nop
	itof rf54, rf54 ; nop
	fsub rf52, rf52, rf51 ; nop
	nop ; fmul rf52, rf52, rf46
	fadd rf51, rf51, rf52 ; nop	# top
	fsub rf54, rf54, rf53 ; nop
	nop ; fmul rf54, rf54, rf46
	fadd rf53, rf53, rf54 ; nop	# bottom
	fsub rf53, rf53, rf51 ; nop
	nop ; fmul rf53, rf53, rf38
	fadd dst, rf51, rf53 ; nop
.endm

# @dst = colour row (m0, m1, m2, k from the colour section) of Y, U, V
# (rf55, rf56, rf57), clamped to [0, 255].
.macro convert, dst
	nop ; nop ; ldunifarf.rf52
	nop ; fmul dst, rf55, rf52
	nop ; nop ; ldunifarf.rf52
	nop ; fmul rf51, rf56, rf52
	fadd dst, dst, rf51 ; nop
	nop ; nop ; ldunifarf.rf52
	nop ; fmul rf51, rf57, rf52
	fadd dst, dst, rf51 ; nop
	nop ; nop ; ldunifarf.rf52
	fadd dst, dst, rf52 ; nop
	fmax dst, dst, 0 ; nop
	fmin dst, dst, rf2 ; nop
.endm

# @dst = @dst * a + b (the next two words of the colour section).
.macro normalise, dst
	nop ; nop ; ldunifarf.rf52
	nop ; fmul dst, dst, rf52
	nop ; nop ; ldunifarf.rf52
	fadd dst, dst, rf52 ; nop
.endm

# Quantised lanes (flag A clear): clamp to [0, qrange], truncate, + qmin.
.macro quantise, dst
	fmax.ifna dst, dst, 0 ; nop
	fmin.ifna dst, dst, rf54 ; nop
	ftoiz.ifna dst, dst ; nop
	add.ifna dst, dst, rf58 ; nop
.endm

	v3d_window
	v3d_unif rf10			# hs: Y, U, V (or R, G, B)
	v3d_unif rf11
	v3d_unif rf12
	v3d_unif rf13			# bytes a (x >> hs)
	v3d_unif rf14
	v3d_unif rf15
	v3d_unif rf16			# fx0
	v3d_unif rf17			# stepx
	v3d_unif rf18			# xlo
	v3d_unif rf19			# xhi
	v3d_unif rf20			# area x
	v3d_unif rf21			# area width - 1
	v3d_unif rf22			# width - 1
	v3d_unif rf23			# pixel bytes
	v3d_unif rf24			# channel bytes
	v3d_unif rf25			# byte lookups' config word
	v3d_unif rf26			# vectors a row
	v3d_unif rf27			# first row
	v3d_unif rf28			# rows
	v3d_unif rf29			# its address
	v3d_unif rf30			# row bytes
	v3d_unif rf31			# its fy
	v3d_unif rf5			# 1 / 65536
	v3d_unif rf2			# 255.0
	sub.pushz rf62, rf28, 0 ; nop
	b.alla done
	v3d_const rf8, 1, ROW_WORDS_SHIFT
	add rf8, rf8, rf6 ; nop		# the row section
	v3d_const rf9, COL_AFTER_ROW, 3
	add rf9, rf9, rf8 ; nop		# the colour section
	v3d_const rf1, 1, 4		# 16: pixels a vector
	v3d_const rf4, 1, -2		# 1 << 30: a column no lane reaches
row:
	nop ; mov unifa, rf8
	asr rf57, rf31, -16 ; nop	# y0 (a shift by -16 is by 16)
	shl rf58, rf57, -16 ; nop
	sub rf58, rf31, rf58 ; nop	# its weight, 16 bits
	v3d_unif rf43			# B0-2
	v3d_unif rf44
	v3d_unif rf45
	v3d_unif rf46			# S0-2
	v3d_unif rf47
	v3d_unif rf48
	v3d_unif rf49			# vs0-2
	v3d_unif rf50
	v3d_unif rf51
	v3d_unif rf52			# stepy
	v3d_unif rf53			# ylo
	v3d_unif rf54			# yhi
	v3d_unif rf55			# area y
	v3d_unif rf56			# area height - 1
	itof rf38, rf58 ; nop
	nop ; fmul rf38, rf38, rf5	# wy
	max rf59, rf57, rf53 ; nop
	min rf59, rf59, rf54 ; nop	# ya
	add rf60, rf57, 1 ; nop
	max rf60, rf60, rf53 ; nop
	min rf60, rf60, rf54 ; nop	# yb
	shr rf61, rf59, rf49 ; nop
	nop ; umul24 rf61, rf61, rf46
	add rf32, rf61, rf43 ; nop	# component 0's rows
	shr rf61, rf60, rf49 ; nop
	nop ; umul24 rf61, rf61, rf46
	add rf35, rf61, rf43 ; nop
	shr rf61, rf59, rf50 ; nop
	nop ; umul24 rf61, rf61, rf47
	add rf33, rf61, rf44 ; nop	# component 1's
	shr rf61, rf60, rf50 ; nop
	nop ; umul24 rf61, rf61, rf47
	add rf36, rf61, rf44 ; nop
	shr rf61, rf59, rf51 ; nop
	nop ; umul24 rf61, rf61, rf48
	add rf34, rf61, rf45 ; nop	# component 2's
	shr rf61, rf60, rf51 ; nop
	nop ; umul24 rf61, rf61, rf48
	add rf37, rf61, rf45 ; nop
	sub rf61, rf27, rf55 ; nop	# a row of the image area?
	umin rf62, rf61, rf56 ; nop
	xor.pushz rf62, rf62, rf61 ; nop
	add rf39, rf20, 0 ; nop
	nop ; mov.ifna rf39, rf4	# no: every lane is outside
	add rf31, rf31, rf52 ; nop
	add rf27, rf27, 1 ; nop
	eidx rf40 ; nop			# x
	add rf41, rf26, 0 ; nop		# vectors left
	add rf42, rf29, 0 ; nop		# the row's address
	add rf29, rf29, rf30 ; nop
vec:
	umin rf43, rf40, rf22 ; nop	# x, the row's last for lanes past it
	nop ; umul24 rf44, rf43, rf17
	add rf44, rf44, rf16 ; nop	# fx
	asr rf45, rf44, -16 ; nop
	shl rf46, rf45, -16 ; nop
	sub rf46, rf44, rf46 ; nop
	itof rf46, rf46 ; nop
	nop ; fmul rf46, rf46, rf5	# wx
	max rf47, rf45, rf18 ; nop
	min rf47, rf47, rf19 ; nop	# xa
	add rf48, rf45, 1 ; nop
	max rf48, rf48, rf18 ; nop
	min rf48, rf48, rf19 ; nop	# xb
	taps rf10, rf13, rf32, rf35
	taps rf11, rf14, rf33, rf36
	blend rf55			# Y (or R)
	taps rf12, rf15, rf34, rf37
	blend rf56			# U (or G)
	blend rf57			# V (or B)
	nop ; mov unifa, rf9
	sub rf58, rf43, rf39 ; nop	# a column of the image area?
	umin rf59, rf58, rf21 ; nop
	xor rf59, rf59, rf58 ; nop
	convert rf60
	convert rf61
	convert rf62
	xor.pushz rf59, rf59, 0 ; nop
	nop ; nop ; ldunifarf.rf52	# pad
	nop ; mov.ifna rf60, rf52
	nop ; mov.ifna rf61, rf52
	nop ; mov.ifna rf62, rf52
	normalise rf60
	normalise rf61
	normalise rf62
	nop ; nop ; ldunifarf.rf53	# the write config word
	nop ; nop ; ldunifarf.rf54	# qrange
	nop ; nop ; ldunifarf.rf58	# qmin
	xor.pushz rf59, rf54, 0 ; nop
	quantise rf60
	quantise rf61
	quantise rf62
	nop ; umul24 rf51, rf43, rf23
	add rf51, rf51, rf42 ; nop	# the pixel's R
	nop ; mov tmuc, rf53
	nop ; mov tmud, rf60
	nop ; mov tmua, rf51
	add rf51, rf51, rf24 ; nop
	nop ; mov tmud, rf61
	nop ; mov tmua, rf51
	add rf51, rf51, rf24 ; nop
	nop ; mov tmud, rf62
	nop ; mov tmua, rf51
	sub.pushz rf41, rf41, 1 ; nop
	b.anyna vec
	add rf40, rf40, rf1 ; nop
	nop ; nop
	nop ; nop
	sub.pushz rf28, rf28, 1 ; nop
	b.anyna row
	nop ; nop
	nop ; nop
	nop ; nop
:done
	v3d_end
