# SPDX-License-Identifier: MIT
#
# RGB (3 bytes a pixel) to 8-bit grayscale on V3D 4.2 and 7.1 with the
# BT.601 luma weights in 8-bit fixed point: gray = (77 R + 150 G + 29 B +
# 128) >> 8, exact integer arithmetic. Every program converts its own run
# of 64-pixel pieces: lane i reads the 12 bytes of pixels 4i..4i+3 as three
# words (v3d_load3 of the generation) and works on two pixels at once, one
# a 16-bit half: the words masked with 0x00ff00ff, shifted by 8 first or
# not, hold (R0, B0), (G0, R1), (G1, R2), (B1, G2), (B2, G3), (R3, B3) in
# their halves; rotated by 16 (a shift by -16 is by 16: the ALU reads 5
# bits) the halves swap, so that three umul24s (the bytes stay within 24
# bits, each half's sum below 2^16) and two adds give one pixel's sum in
# one half; two such sums masked to their halves make a pair, and the
# pairs (0, 2) and (1, 3), rounded in both halves at once, become the four
# grays of the lane's word. Reads run AHEAD pieces in front, as in
# vecadd.qasm.
#
# Window uniforms (kernel.h, "DOC: streaming kernels"): rgb, gray (this
# program's first piece), pieces (0 allowed), three VPM words it skips.

.include "v3d.qinc"

.set AHEAD, 1

	v3d_window
	v3d_unif rf10			# rgb
	v3d_unif rf12			# gray
	add rf18, rf10, 4 ; nop
	add rf19, rf10, 8 ; nop		# rgb + 4, rgb + 8
	v3d_unif rf13			# pieces
	v3d_unif rf14
	v3d_unif rf14
	v3d_unif rf14
	eidx rf23 ; nop
	shl rf23, rf23, 2 ; nop		# lane * 4: the gray word
	sub.pushz rf15, rf13, 0 ; nop
	b.alla done
	nop ; umul24 rf20, rf23, 3	# lane * 12: the first rgb word
	sub rf21, rf13, 1 ; nop
	nop ; mov rf24, 3
	v3d_const rf30, 8, 3		# 64: bytes of gray a piece
	nop ; umul24 rf31, rf30, rf24	# 192: bytes of rgb a piece
	nop ; umul24 rf21, rf21, rf31
	add rf21, rf21, rf20 ; nop	# the last piece's offset
	v3d_const rf25, 15, 4
	add rf25, rf25, 15 ; nop	# 255
	shl rf24, rf25, 8 ; nop
	shl rf24, rf24, 8 ; nop
	or rf25, rf25, rf24 ; nop	# 0x00ff00ff: the halves' low bytes
	nop ; mov rf26, -1
	shr rf26, rf26, -16 ; nop	# 0x0000ffff: the low half
	nop ; mov rf27, -1
	shl rf27, rf27, -16 ; nop	# 0xffff0000: the high half
	nop ; mov rf29, -1
	xor rf29, rf29, rf25 ; nop	# 0xff00ff00
	v3d_const rf50, 8, 4		# 128: rounding
	shl rf28, rf50, 8 ; nop
	shl rf28, rf28, 8 ; nop
	or rf28, rf28, rf50 ; nop	# 128 in each half
	v3d_const rf51, 8, 3
	add rf51, rf51, 13 ; nop	# 77
	add rf52, rf50, 11 ; nop
	add rf52, rf52, 11 ; nop	# 150
	v3d_const rf53, 1, 4
	add rf53, rf53, 13 ; nop	# 29

# The next piece's three words, from offset rf20.
.macro fetch
	v3d_load3 rf10, rf18, rf19, rf20
	add rf20, rf20, rf31 ; nop
.endm

.rep i, AHEAD
	fetch
	min rf20, rf20, rf21 ; nop
.endr
loop:
	fetch
	min rf20, rf20, rf21 ; nop ; ldtmu.rf40
	and rf43, rf40, rf25 ; nop ; ldtmu.rf41	# A = R0, B0
	shr rf44, rf40, 8 ; nop
	and rf44, rf44, rf25 ; nop ; ldtmu.rf42	# Bv = G0, R1
	and rf45, rf41, rf25 ; nop		# C = G1, R2
	shr rf46, rf41, 8 ; nop
	and rf46, rf46, rf25 ; nop		# D = B1, G2
	and rf47, rf42, rf25 ; nop		# E = B2, G3
	shr rf48, rf42, 8 ; nop
	and rf48, rf48, rf25 ; nop		# F = R3, B3
	ror rf49, rf43, -16 ; nop		# B0, R0
	nop ; umul24 rf54, rf43, rf51
	nop ; umul24 rf55, rf44, rf52
	nop ; umul24 rf56, rf49, rf53
	add rf54, rf54, rf55 ; nop
	add rf54, rf54, rf56 ; nop		# low half: pixel 0
	ror rf49, rf47, -16 ; nop		# G3, B2
	nop ; umul24 rf55, rf45, rf51
	nop ; umul24 rf56, rf46, rf52
	nop ; umul24 rf57, rf49, rf53
	add rf55, rf55, rf56 ; nop
	add rf55, rf55, rf57 ; nop		# high half: pixel 2
	and rf54, rf54, rf26 ; nop
	and rf55, rf55, rf27 ; nop
	or rf54, rf54, rf55 ; nop		# pixels 0 and 2
	ror rf49, rf44, -16 ; nop		# R1, G0
	nop ; umul24 rf55, rf49, rf51
	nop ; umul24 rf56, rf45, rf52
	nop ; umul24 rf57, rf46, rf53
	add rf55, rf55, rf56 ; nop
	add rf55, rf55, rf57 ; nop		# low half: pixel 1
	ror rf49, rf48, -16 ; nop		# B3, R3
	nop ; umul24 rf56, rf49, rf51
	nop ; umul24 rf57, rf47, rf52
	nop ; umul24 rf58, rf48, rf53
	add rf56, rf56, rf57 ; nop
	add rf56, rf56, rf58 ; nop		# high half: pixel 3
	and rf55, rf55, rf26 ; nop
	and rf56, rf56, rf27 ; nop
	or rf55, rf55, rf56 ; nop		# pixels 1 and 3
	add rf54, rf54, rf28 ; nop		# + 128 in each half
	add rf55, rf55, rf28 ; nop
	shr rf54, rf54, 8 ; nop
	and rf54, rf54, rf25 ; nop		# grays 0 and 2 in bytes 0 and 2
	and rf55, rf55, rf29 ; nop		# grays 1 and 3 in bytes 1 and 3
	sub.pushz rf13, rf13, 1 ; nop
	b.anyna loop
	or tmud, rf54, rf55 ; nop
	add tmua, rf12, rf23 ; nop
	add rf12, rf12, rf30 ; nop
.rep i, AHEAD
	nop ; nop ; ldtmu.rf40
	nop ; nop ; ldtmu.rf41
	nop ; nop ; ldtmu.rf42
.endr
:done
	v3d_end
