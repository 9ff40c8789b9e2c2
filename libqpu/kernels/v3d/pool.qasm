# SPDX-License-Identifier: MIT
#
# pool on V3D 4.2 and 7.1: ../pool.qasm's MaxPool, AveragePool and (a
# window of the whole plane, channels across the lanes) GlobalAveragePool,
# the same calls and uniform windows (../window.qinc's, read with
# ldunifa), 16 outputs a vector, lane l output column x0 + l.
#
# DOC: taps
# A vector's kh x kw taps are one loop, each tap's lookup issued before
# the last one's result is taken (two in flight; the one past the last
# tap is read and dropped). A tap reads the clamped column of the clamped
# row: for a maximum that pixel is inside the window too (window.c
# refuses pads as large as the window), so no tap needs a mask; for an
# average a tap outside the image reads the zero word after the uniforms
# instead. The count and its reciprocal are ../pool.qasm's (the SFU's
# recip and one Newton step).
#
# DOC: uniforms
# window.qinc's (the first VPM word 16: outputs a vector), then 1 for an
# average (0: max), kh, kw, XLO, XHI, YLO, YHI, the column pitch in bytes
# and the zero word's address. Tasks have only window.qinc's.

.include "v3d.qinc"

# The window row rf44 of this vector: its address in rf48 and, in rf49,
# how far it was clamped (0: inside the input).
.macro tap_row
	max rf51, rf44, 0 ; nop
	min rf51, rf51, rf12 ; nop
	sub rf49, rf51, rf44 ; nop
	nop ; umul24 rf51, rf51, rf13
	add rf48, rf34, rf51 ; nop
.endm

# Look the tap at column rf47 of row rf44 up (@avg: the zero word where
# it is outside), then step to the next tap (the next row past kw).
.macro issue, avg
	tap_row
	max rf52, rf47, 0 ; nop
	min rf52, rf52, rf11 ; nop
.if avg
	sub rf53, rf52, rf47 ; nop
.endif
	nop ; umul24 rf54, rf52, rf27
	add rf54, rf48, rf54 ; nop
.if avg
	or.pushz -, rf53, rf49 ; nop
	nop ; mov.ifna rf54, rf28
.endif
	nop ; mov tmua, rf54
	add rf47, rf47, 1 ; nop
	sub.pushz rf46, rf46, 1 ; nop
	nop ; mov.ifa rf46, rf22
	nop ; mov.ifa rf47, rf39
	add.ifa rf44, rf44, 1 ; nop
.endm

# The loops of one kind of pooling: @avg 1 for an average, else 0.
.macro pool_loops, avg
:1	# a task
	v3d_unif rf34			# the channel's input plane
	v3d_unif rf35			# its first output row
	v3d_unif rf36			# that row's first input row (may be < 0)
	v3d_unif rf37			# rows
:2	# a row
.if avg
	add rf51, rf36, rf21 ; nop	# the rows the window counts
	min rf51, rf51, rf26 ; nop
	max rf52, rf36, rf25 ; nop
	sub rf42, rf51, rf52 ; nop
.endif
	nop ; mov rf38, rf19		# vectors left
	nop ; mov rf39, rf31		# the window's first column, per lane
	nop ; mov rf40, rf35		# where the vector goes
	nop ; mov rf41, rf33		# its lanes' x
:3	# a vector
.if avg
	nop ; mov rf43, 0
.else
	nop ; mov rf43, rf55		# -infinity
.endif
	nop ; mov rf44, rf36		# the issue's window row
	nop ; mov rf47, rf39		# and column
	nop ; mov rf46, rf22		# columns left in its row
	nop ; mov rf50, rf29		# taps left
	issue avg
:4	# a tap
	issue avg
	nop ; nop ; ldtmu.rf56
	sub.pushz rf50, rf50, 1 ; nop
	b.anyna r:4b
.if avg
	fadd rf43, rf43, rf56 ; nop
.else
	fmax rf43, rf43, rf56 ; nop
.endif
	nop ; nop
	nop ; nop
	nop ; nop ; ldtmu.rf56		# the lookup past the last tap
.if avg
	add rf51, rf39, rf22 ; nop	# the count: columns x rows
	min rf51, rf51, rf24 ; nop
	max rf52, rf39, rf23 ; nop
	sub rf51, rf51, rf52 ; nop
	nop ; umul24 rf51, rf51, rf42
	max rf51, rf51, 1 ; nop
	itof rf51, rf51 ; nop
	recip rf52, rf51 ; nop
	nop ; nop			# (the SFU's latency is not documented)
	nop ; fmul rf53, rf51, rf52
	fsub rf53, rf57, rf53 ; nop	# 2 - c r
	nop ; fmul rf53, rf53, rf52
	nop ; fmul rf43, rf43, rf53
.endif
	sub.pushn -, rf41, rf32 ; nop	# A: a lane to store
	nop ; mov.ifa tmud, rf43
	add.ifa tmua, rf40, rf30 ; nop
	sub.pushz rf38, rf38, 1 ; nop
	b.anyna r:3b
	add rf39, rf39, rf15 ; nop
	add rf40, rf40, rf58 ; nop
	add rf41, rf41, rf59 ; nop
	sub.pushz rf37, rf37, 1 ; nop
	b.anyna r:2b
	add rf35, rf35, rf14 ; nop
	add rf36, rf36, rf17 ; nop
	nop ; nop
	sub.pushz rf10, rf10, 1 ; nop
	b.anyna r:1b
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
	v3d_unif rf59			# outputs a vector (16)
	v3d_unif rf5
	v3d_unif rf5
	v3d_unif rf20			# an average?
	v3d_unif rf21			# kh
	v3d_unif rf22			# kw
	v3d_unif rf23			# XLO
	v3d_unif rf24			# XHI
	v3d_unif rf25			# YLO
	v3d_unif rf26			# YHI
	v3d_unif rf27			# the column pitch
	v3d_unif rf28			# the zero word
	sub.pushz rf10, rf10, 0 ; nop
	b.alla done
	eidx rf33 ; nop			# lane l's x at x0 = 0
	shl rf30, rf33, 2 ; nop		# lane * 4: the stores' offset
	nop ; umul24 rf31, rf33, rf16
	sub rf31, rf31, rf18 ; nop	# lane l's first window column at x0 = 0
	shr rf32, rf14, 2 ; nop		# OW
	nop ; umul24 rf29, rf21, rf22	# taps a vector
	shl rf58, rf59, 2 ; nop		# bytes of a vector's outputs
	nop ; mov rf57, 2.0
	nop ; mov rf55, 1
	shl rf55, rf55, -9 ; nop	# the ALU reads five bits: 1 << 23
	sub rf55, 0, rf55 ; nop		# 0xff800000: -infinity
	sub.pushz -, rf20, 0 ; nop
	b.alla max
	nop ; nop
	nop ; nop
	nop ; nop
	pool_loops 1
	b done
	nop ; nop
	nop ; nop
	nop ; nop
max:
	pool_loops 0
:done
	v3d_end
