# SPDX-License-Identifier: MIT
#
# dwconv_u8: ONNX's depthwise QLinearConv 3x3 (one channel a group) of
# bytes, requantized on the QPUs bit-exactly as the reference's
# nn_requant() (host side: window_u8.c; the semantics: nn_kernels.h's
# struct qpu_dwconv_u8). The work, the stores and the common uniforms are
# window.qinc's, with bytes for floats: a lane computes 4 adjacent outputs
# of a row, one VPM word a lane, stored by 8-bit VCD DMA of the row's
# bytes, so planes and rows need no alignment ("DOC: rows and lanes").
#
# DOC: reading bytes
# A lane's 4 outputs read 6 (stride 1) or 9 (stride 2) columns of each of
# the three input rows, from its first column ix on: three TMU word
# lookups a row (the words holding bytes ix to ix + 11 of the row; each
# clamped to the row's first and last word, so no lookup leaves the row).
# The words are funnel shifted by 8 o, o the byte offset of ix in its
# word (ror, then a bit select with 2^(32 - 8 o) - 1), into words u0, u1
# (u2) holding the columns in order, read back byte by byte with regfile
# A's unpack (.8a to .8d, zero-extended) as mul24 operands. An int8
# input is made unsigned by XOR 0x80 on the same words.
#
# DOC: rows and lanes
# A row of OW outputs takes G = ceil(OW / 4) lanes. When G is 8 or less a
# vector takes R = 16 / G rows of its plane (lane l: row l / G of them,
# column group l % G; lanes past R G idle), its input rows per lane, and
# stores each of its rows by its own 8-bit VCD DMA from VPM column R' G;
# else R = 1 and a row is one or more vectors of 16 groups (window.qinc's
# tail setup). window.qinc's row step is then R rows; a task's last
# vector may hold fewer of its rows, whose stores it leaves out.
#
# DOC: pads
# A row outside the input (iy < 0 or iy >= H) reads a zero area of a
# row's words instead whose bytes are zx (XOR 0x80 for int8), so its taps
# add nothing. A column outside (ix + i < 0 or >= W) is masked per lane:
# the lane's byte masks M of u0..u2 are computed once per vector, and
# u = ((u ^ XZ) & M) ^ Zx with XZ = Zx ^ 0x80808080 (int8) or Zx: inside,
# the byte (XOR 0x80); outside, zx. Lanes past the row's end compute junk
# that no store takes.
# The zero points are folded into the constant K = bias - zx * sum(w) of
# each channel (host), so acc = K + sum of w * x over the 9 taps; mul24
# takes w modulo 2^24 (the weights are -255 to 255), which keeps the sum
# exact modulo 2^24, and |sum| < 2^23 gives it back sign-extended.
#
# DOC: requantization
# y = sat(round half even(acc * mult + zy)), exactly as nn_requant()'s
# double, with |acc| < 2^24 and mult = m * 2^-s (m an integer under 2^24,
# s 1 to 38: the host refuses the rest). The float way first: v = acc (an
# exact itof) * mult + zy, clamped to [lo - 1/4, hi + 1/4], within 2^-14
# of the exact value whatever the float ALU's rounding (|v| < 512: an ulp
# is at most 2^-15 and the product and the sum each lose under one);
# round(v) = trunc(v + 1/2) is right unless frac(v) is within 2^-8 of
# 1/2. In those lanes the exact sign of
#   D = acc * m + zy * 2^s - (2 k + 1) * 2^(s - 1),   k = trunc(v),
# which is 2^s (v - k - 1/2), picks k or k + 1, and D = 0 is a tie (the
# even one). |D| < 2^(s - 7) <= 2^31 there, so D modulo 2^32 is D: mul24
# gives |acc| * m modulo 2^32, and (2 (k - zy) + 1) * 2^(s - 1) is two
# shifts (sh1 + sh2 = s - 1, each under 32: the term is 0 modulo 2^32 past
# 31). An int8 output is zy, lo and hi plus 128 (host): the byte pack
# keeps the low 8 bits, i.e. y ^ 0x80. A fused Relu or Clip is lo and hi.
#
# DOC: uniforms
# After window.qinc's: the zero area, Zx (zx in every byte), XZ, zy,
# zy as a float, lo - 1/4 and hi + 1/4 (floats), R, 1 / G (a float), G,
# the VDW setup's step to the next row's lanes, OW, stride_h, 4 stride_w,
# pad_left, then 1 for horizontal stride 1 or 2 for stride 2; per task,
# after window.qinc's (rows counted singly): the nine weights (ky-major),
# K, mult (float), m, sh1, sh2.
#
# DOC: per vector
# 14 instructions a row's lookups, 20 (stride 1) or 24 a row's funnel,
# 28 an output's products and requantization (the exact path 28 more,
# taken by about one output in eight), 17 a mask word when a row has more
# than one vector: 244 for stride 1, 256 for stride 2 (64 outputs); 38 a
# vector's rows and 7 a row stored after its first (qpu_dwint8.c's
# model of the byte program).

.include "exit.qinc"
.include "window.qinc"

.set ra_u, ra16			# ra16..ra24: u0..u2 of rows 0..2 (row-major)
.set ra_u00, ra16
.set ra_u01, ra17
.set ra_u02, ra18
.set ra_u10, ra19
.set ra_u11, ra20
.set ra_u12, ra21
.set ra_u20, ra22
.set ra_u21, ra23
.set ra_u22, ra24
.set ra_m0, ra11		# ra11..ra13: the lane's byte masks
.set ra_r, ra5			# rows a vector (1: a row of one or more vectors)
.set ra_cnt, ra6
.set ra_out, ra15
.set ra_sh1, ra25
.set ra_hif, ra26
.set ra_multf, ra27
.set ra_k, ra28
.set ra_zyf, ra29
.set ra_lof, ra30
.set ra_acc, ra31

.set rb_w0, rb14		# rb14..rb22: the nine weights
.set rb_row0, rb23		# rb23..rb25: the three input rows
.set rb_rhosh, rb26		# the lane's row in the vector times stride_h
.set rb_xstep, rb27		# VDW setup: the next row's lanes (X + G)
.set rb_owb, rb28		# OW: bytes from an output row to the next
.set rb_zero, rb9
.set rb_xz, rb10
.set rb_zx, rb11
.set rb_zy, rb29
.set rb_m, rb30
.set rb_sh2, rb31

# Input row iy + @k of the lane's output row: its address, or the zero
# area's when it is outside the image.
.macro row_addr, k, row
	add r0, ra_iy, rb_rhosh
	add r0, r0, k
	max r1, r0, 0
	min r1, r1, rb_hm1
	sub.setf -, r1, r0; mul24 r2, r1, rb_w4
	add row, ra_inbase, r2
	mov.ifnz row, rb_zero
.endm

# The lane's byte mask of its columns ix + 4 @k .. ix + 4 @k + 3, into @m:
# 0xff where the column is inside the row.
.macro col_mask, k, m
	add r0, ra_ixb, k * 4
	not r1, r0
	add r1, r1, 1			# -ix: the bytes before column 0
	max r1, r1, 0
	min r1, r1, 4
	shl r1, r1, 2
	shl r2, -1, r1
	shl r2, r2, r1			# ones from that byte up (two shifts: 32 is 0)
	sub r1, rb_wm1, r0
	add r1, r1, 1			# W - ix: the bytes before column W
	max r1, r1, 0
	min r1, r1, 4
	shl r1, r1, 2
	shl r3, -1, r1
	shl r3, r3, r1
	not r3, r3			# ones below that byte
	and m, r2, r3
.endm

# The lane's masks of u0..u@n - 1.
.macro col_masks, n
	col_mask 0, ra_m0
	col_mask 1, ra_m0 + 1
.if n > 2
	col_mask 2, ra_m0 + 2
.endif
.endm

# Row @j's three word lookups on TMU @t (t0s or t1s).
.macro row_lookups, j, t
	add r0, ra_ixb, rb_row0 + j	# the lane's first byte
	and r0, r0, -4
	mov r1, rb_row0 + j
	add r2, r1, rb_wm1
	and r2, r2, -4			# the row's last word
	and r1, r1, -4			# and its first
	max r3, r0, r1
	min t, r3, r2
	add r0, r0, 4
	max r3, r0, r1
	min t, r3, r2
	add r0, r0, 4
	max r3, r0, r1
	min t, r3, r2
.endm

# Row @j's words from TMU @ld (ldtmu0 or ldtmu1) into u0..u@n - 1 of the
# row: funnel shifted, masked, pads zx, int8 made unsigned.
.macro row_words, j, ld, n
	add r0, ra_ixb, rb_row0 + j
	and r0, r0, 3
	shl r0, r0, 3			# the shift 8 o
	nop; nop; ld
	ror r1, r4, r0; nop; ld
	ror r2, r4, r0; nop; ld
	ror r3, r4, r0
	shr ra_acc, -1, r0		# the funnel mask 2^(32 - 8 o) - 1
	xor r0, r1, r2
	and r0, r0, ra_acc
	xor r0, r0, r2
	xor r0, r0, rb_xz
	and r0, r0, ra_m0
	xor ra_u + 3 * j, r0, rb_zx
	xor r0, r2, r3
	and r0, r0, ra_acc
	xor r0, r0, r3
	xor r0, r0, rb_xz
	and r0, r0, ra_m0 + 1
	xor ra_u + 3 * j + 1, r0, rb_zx
.if n > 2
	and r0, r3, ra_acc
	xor r0, r0, rb_xz
	and r0, r0, ra_m0 + 2
	xor ra_u + 3 * j + 2, r0, rb_zx
.endif
.endm

# Output @k of the lane, whose nine taps (ky-major) are the unpacked
# bytes @t0 to @t8, requantized into byte @k of ra_out.
.macro output, k, t0, t1, t2, t3, t4, t5, t6, t7, t8
	nop; mul24 r0, t0, rb_w0
	nop; mul24 r1, t1, rb_w0 + 1
	add r0, r0, r1; mul24 r1, t2, rb_w0 + 2
	add r0, r0, r1; mul24 r1, t3, rb_w0 + 3
	add r0, r0, r1; mul24 r1, t4, rb_w0 + 4
	add r0, r0, r1; mul24 r1, t5, rb_w0 + 5
	add r0, r0, r1; mul24 r1, t6, rb_w0 + 6
	add r0, r0, r1; mul24 r1, t7, rb_w0 + 7
	add r0, r0, r1; mul24 r1, t8, rb_w0 + 8
	add r0, r0, r1
	shl r0, r0, 8
	asr r0, r0, 8			# the exact sum, from its low 24 bits
	add r0, r0, ra_k		# acc
	itof r1, r0; mov ra_acc, r0
	fmul r1, r1, ra_multf
	fadd r1, r1, ra_zyf
	fmax r1, r1, ra_lof
	fmin r1, r1, ra_hif		# v
	ftoi r0, r1			# k
	itof r3, r0
	fsub r3, r1, r3
	fsub r3, r3, 0.5
	fmaxabs r3, r3, r3
	fsub.setf -, r3, 0.00390625	# N: within 2^-8 of a half
	brr.allnn -, r:9f		# no lane near a tie: v + 1/2 truncated
	fadd r1, r1, 0.5
	ftoi r1, r1
	nop
	# the exact path: D = acc * m - (2 (k - zy) + 1) 2^(s - 1) modulo 2^32
	not r2, ra_acc
	add r2, r2, 1
	max r2, r2, ra_acc		# |acc| (mul24 takes 24 bits)
	mul24 r2, r2, rb_m
	asr r3, ra_acc, -1		# the sign: 0 or -1 (the ALU reads five bits: 31)
	xor r2, r2, r3
	sub r2, r2, r3			# acc * m
	sub r3, r0, rb_zy
	shl r3, r3, 1
	add r3, r3, 1
	shl r3, r3, ra_sh1
	shl r3, r3, rb_sh2
	sub r2, r2, r3			# D
	not r3, r2
	add r3, r3, 1			# -D
	or r2, r2, r3			# negative unless D is 0 (|D| < 2^31)
	asr r3, r3, -1			# -1 where D > 0
	asr r2, r2, -1
	not r2, r2			# -1 where D is 0: a tie
	and r2, r2, r0
	and r2, r2, 1			# a tie of an odd k: up to the even one
	sub r3, r0, r3
	add r2, r2, r3
	mov.ifn r1, r2			# the flags are still the near test's
:9
.if k == 0
	mov ra_out.8a, r1
.elseif k == 1
	mov ra_out.8b, r1
.elseif k == 2
	mov ra_out.8c, r1
.else
	mov ra_out.8d, r1
.endif
.endm

# The whole program for horizontal stride @s (1 or 2); @n words a row.
.macro outputs1
	output 0, ra_u00.8a, ra_u00.8b, ra_u00.8c, ra_u10.8a, ra_u10.8b, ra_u10.8c, ra_u20.8a, ra_u20.8b, ra_u20.8c
	output 1, ra_u00.8b, ra_u00.8c, ra_u00.8d, ra_u10.8b, ra_u10.8c, ra_u10.8d, ra_u20.8b, ra_u20.8c, ra_u20.8d
	output 2, ra_u00.8c, ra_u00.8d, ra_u01.8a, ra_u10.8c, ra_u10.8d, ra_u11.8a, ra_u20.8c, ra_u20.8d, ra_u21.8a
	output 3, ra_u00.8d, ra_u01.8a, ra_u01.8b, ra_u10.8d, ra_u11.8a, ra_u11.8b, ra_u20.8d, ra_u21.8a, ra_u21.8b
.endm

.macro outputs2
	output 0, ra_u00.8a, ra_u00.8b, ra_u00.8c, ra_u10.8a, ra_u10.8b, ra_u10.8c, ra_u20.8a, ra_u20.8b, ra_u20.8c
	output 1, ra_u00.8c, ra_u00.8d, ra_u01.8a, ra_u10.8c, ra_u10.8d, ra_u11.8a, ra_u20.8c, ra_u20.8d, ra_u21.8a
	output 2, ra_u01.8a, ra_u01.8b, ra_u01.8c, ra_u11.8a, ra_u11.8b, ra_u11.8c, ra_u21.8a, ra_u21.8b, ra_u21.8c
	output 3, ra_u01.8c, ra_u01.8d, ra_u02.8a, ra_u11.8c, ra_u11.8d, ra_u12.8a, ra_u21.8c, ra_u21.8d, ra_u22.8a
.endm

.macro program, s, n
	mov ra_ixb, rb_ixb0		# the first vector's masks
	nop
	col_masks n
:1	# a task
	win_task
.rep j, 9
	mov rb_w0 + j, unif
.endr
	mov ra_k, unif
	mov ra_multf, unif
	mov rb_m, unif
	mov ra_sh1, unif
	mov rb_sh2, unif
	sub ra_nrows, ra_nrows, 1	# rows left less one
:2	# a vector's rows
	row_addr 0, rb_row0
	row_addr 1, rb_row0 + 1
	row_addr 2, rb_row0 + 2
	win_row
:3	# a vector: its masks, unless rows are one vector (the program's start made them)
	mov r0, rb_nvec
	sub.setf -, r0, 1
	brr.allz -, r:4f
	nop
	nop
	nop
	col_masks n
:4
	row_lookups 0, t0s
	row_lookups 1, t1s
	row_words 0, ldtmu0, n
	row_lookups 2, t0s
	row_words 1, ldtmu1, n
	row_words 2, ldtmu0, n
.if s == 1
	outputs1
.else
	outputs2
.endif
	win_write ra_out
	win_store r:3b
	# rows 1 .. R - 1 of the vector (those the task has) from the lanes X + G on
	mov r0, ra_r
	sub r0, r0, 1
	min r0, r0, ra_nrows
	mov.setf ra_cnt, r0
	brr.allz -, r:5f
	add r1, ra_vdwt, rb_xstep
	add r2, ra_orow, rb_owb
	nop
:6
	mov vw_setup, r1
	mov vw_addr, r2
	sub.setf ra_cnt, ra_cnt, 1
	brr.anynz -, r:6b
	add r1, r1, rb_xstep
	add r2, r2, rb_owb
	nop
:5	# the next R rows while the task has them, then the next task
	mov r0, ra_r
	sub.setf ra_nrows, ra_nrows, r0
	brr.anynn -, r:2b
	add ra_orow, ra_orow, rb_ow4
	add ra_iy, ra_iy, rb_sh
	nop
	sub.setf ra_ntasks, ra_ntasks, 1
	brr.anynz -, r:1b
	nop
	nop
	nop
.endm

	win_header r:done
	mov rb_zero, unif
	mov rb_zx, unif
	mov rb_xz, unif
	mov rb_zy, unif
	mov ra_zyf, unif
	mov ra_lof, unif
	mov ra_hif, unif
	# a lane's row in the vector and column group: l / G and l % G
	mov ra_r, unif
	mov r2, unif			# 1 / G
	mov r1, unif			# G
	mov rb_xstep, unif
	mov rb_owb, unif
	mov r3, unif			# stride_h
	itof r0, elem_num
	fadd r0, r0, 0.5
	fmul r0, r0, r2
	ftoi r0, r0
	nop; mul24 rb_rhosh, r0, r3
	nop; mul24 r1, r0, r1
	sub r1, elem_num, r1
	mov r2, unif			# 4 * stride_w
	nop; mul24 r1, r1, r2
	sub rb_ixb0, r1, unif		# - pad_left: the lane's first column
	sub.setf -, unif, 1
	brr.anynz -, r:stride2
	nop
	nop
	nop
	program 1, 2
	brr -, r:done
	nop
	nop
	nop
:stride2
	program 2, 3
:done
	qpu_exit
