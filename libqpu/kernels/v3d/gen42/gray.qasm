# SPDX-License-Identifier: MIT
#
# RGB (3 bytes a pixel) to 8-bit grayscale on V3D 4.2: gray.qasm's
# conversion (BT.601 weights in 8-bit fixed point, gray = (77 R + 150 G +
# 29 B + 128) >> 8, exact) in fewer instructions and TMU lines, as 4.2
# reads at most two register-file addresses an instruction and its
# accumulators are free: the TMU's words arrive in r4 and r0 and the masks
# sit in r1..r3, so the add ALU takes the bytes apart reading accumulators
# only while the mul ALU multiplies. Lane i converts pixels 4i..4i+3 of a
# 64-pixel piece, the words W0 = (R0 G0 B0 R1), W1 = (G1 B1 R2 G2), W2 =
# (B2 R3 G3 B3), bytes from the lowest. umul24 reads 24 bits of each
# operand, so a product of a word whose bytes 0 and 2 hold x and y (masked
# with 0x00ff00ff) with k + l << 16 holds l x + k y in its high half (the
# bytes of the high operand's top land past bit 31), and of a word masked
# with 0xff00ff00 (byte 1 alone within 24 bits) with k << 8, k times byte 1
# there; W >> 24 is byte 3 alone. Each pixel's sum S so lands in a high
# half, below it less than 2^16 of other products:
#   P0 = (R0, B0) x (29 + 77 << 16) + (G0) x (150 << 8)
#   P1 = R1 x (77 << 16) + (G1, R2) x (150 << 16) + (B1) x (29 << 8)
#   P2 = (G1, R2) x 77 + G2 x (150 << 16) + (B2, G3) x (29 << 16)
#   P3 = (B2, G3) x 150 + (R3) x (77 << 8) + B3 x (29 << 16)
# and the four high halves, paired (0, 2) and (1, 3) and rounded in both
# halves at once, become the lane's four grays.
#
# The words: the Pi 4's TMU pays for every 64-byte line a lookup's lanes
# touch, and lanes 12 bytes apart touch three lines a lookup, so three
# scalar lookups a piece (W0, W1, W2) cost nine lines. Where the image
# starts on a 16-byte boundary, one vec4 lookup a piece takes three: 4.2
# returns the 16-byte block of each lane's address from the addressed word
# on, wrapping inside the block, so lane i reading at 12 i gets
#   c = 3 i mod 4 = 0: W0 W1 W2 (W3)       c = 1: W0 W1 W2 (the block's
#   c = 3: W0 (and three words before it)   first word)
#   c = 2: W0 W1 (and two words before W0)
# and the words a lane misses are the last one or two of lane i + 1's four
# (c = 3: W1 W2 are its third and fourth, c = 2: W2 its fourth). The mul
# ALU moves them over under the rot signal, lane i taking lane i + 1's
# value of a register-file operand (a quad rotation, as lanes 4q + 1 and
# 4q + 2 are the ones that need it) or of r4, where the flags select the
# lanes. Otherwise (an image at 4, 8 or 12 bytes past a block) the three
# scalar lookups run. Reads run AHEAD pieces in front, as in vecadd.qasm.
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

	shl rf54, rf52, 8 ; nop		# 150 << 8
	shl rf55, rf52, -16 ; nop	# 150 << 16
	shl rf56, rf51, -16 ; nop	# 77 << 16
	shl rf57, rf53, -16 ; nop	# 29 << 16
	shl rf58, rf53, 8 ; nop		# 29 << 8
	or rf59, rf53, rf56 ; nop	# 29 + 77 << 16
	shl rf26, rf51, 8 ; nop		# 77 << 8
	or r3, rf25, rf25 ; nop		# 0x00ff00ff
	or r2, rf29, rf29 ; nop		# 0xff00ff00
	nop ; mov r1, -8		# a shift by 24 (the ALU reads 5 bits)


	# 16-byte aligned: one vec4 lookup a piece (the head comment)
	and.pushz rf8, rf10, 15 ; nop
	b.anyna unaligned
	eidx rf8 ; nop
	nop ; umul24 rf8, rf8, 3
	and rf8, rf8, 3 ; nop		# c: the column of the lane's W0
	xor rf9, rf8, 3 ; nop		# 0 where c = 3: W1 from the next lane
	shr rf8, rf8, 1 ; nop
	xor rf8, rf8, 1 ; nop		# 0 where c >= 2: W2 from the next lane
	add rf20, rf20, rf10 ; nop	# the lane's address, and the last one
	add rf21, rf21, rf10 ; nop
	shl rf13, rf13, 2 ; nop		# pieces, counted down 4 a piece
	nop ; mov r5, -4		# the config of a per-lane vec4 read; the step

.rep i, AHEAD
	nop ; mov tmuc, r5
	nop ; mov tmua, rf20
	add rf20, rf20, rf31 ; nop
	min rf20, rf20, rf21 ; nop
.endr
loop4:
	nop ; mov tmuc, r5
	or.pushz -, rf8, rf8 ; mov tmua, rf20		# a: c >= 2
	add rf20, rf20, rf31 ; nop ; ldtmu.r4		# r4 = W0
	and rf32, r4, r3 ; mov.pushz -, rf9		# R0, B0; a: c = 3, b: c >= 2
	and rf33, r4, r2 ; umul24 rf44, rf32, rf59 ; ldtmu.r0	# G0; r0: the second word
	shr rf34, r4, r1 ; umul24 rf45, rf33, rf54 ; ldtmu.r4	# R1; r4: the third word
	min rf20, rf20, rf21 ; nop ; ldtmu.rf43		# the fourth
	nop ; umul24 rf46, rf34, rf56
	nop ; mov.ifa r0, r4 ; rot(-1)			# r0 = W1
	and rf35, r0, r3 ; mov.ifb r4, rf43 ; rot(-1)	# G1, R2; r4 = W2
	and rf36, r0, r2 ; umul24 rf47, rf35, rf55	# B1
	shr rf37, r0, r1 ; umul24 rf48, rf35, rf51	# G2
	and rf38, r4, r3 ; umul24 rf49, rf36, rf58	# B2, G3
	and rf39, r4, r2 ; umul24 rf50, rf37, rf55	# R3
	shr rf43, r4, r1 ; umul24 rf60, rf38, rf57	# B3
	nop ; umul24 rf61, rf38, rf52
	nop ; umul24 rf62, rf39, rf26
	nop ; umul24 rf63, rf43, rf57
	add rf44, rf44, rf45 ; nop			# P0
	add rf46, rf46, rf47 ; nop
	add rf46, rf46, rf49 ; nop			# P1
	add rf48, rf48, rf50 ; nop
	add rf48, rf48, rf60 ; nop			# P2
	add rf61, rf61, rf62 ; nop
	add rf61, rf61, rf63 ; nop			# P3
	shr rf44, rf44, -16 ; nop			# S0 low
	and rf48, rf48, rf27 ; nop			# S2 high
	shr rf46, rf46, -16 ; nop			# S1 low
	and rf61, rf61, rf27 ; nop			# S3 high
	or rf44, rf44, rf48 ; nop
	or rf46, rf46, rf61 ; nop
	add rf44, rf44, rf28 ; nop			# + 128 in each half
	add rf46, rf46, rf28 ; nop
	shr rf44, rf44, 8 ; nop
	and rf44, rf44, r3 ; add.pushz rf13, rf13, r5	# grays 0 and 2 in bytes 0 and 2
	and rf46, rf46, r2 ; nop			# grays 1 and 3 in bytes 1 and 3
	b.anyna loop4
	or tmud, rf44, rf46 ; nop
	add tmua, rf12, rf23 ; nop
	add rf12, rf12, rf30 ; nop
.rep i, AHEAD
	nop ; nop ; ldtmu.rf40
	nop ; nop ; ldtmu.rf41
	nop ; nop ; ldtmu.rf42
	nop ; nop ; ldtmu.rf43
.endr
	b done
	nop ; nop
	nop ; nop
	nop ; nop

# 4, 8 or 12 bytes past a block: three scalar lookups a piece.
unaligned:
# The next piece's three words, from offset rf20.
.macro fetch
	v3d_load3 rf10, rf18, rf19, rf20
	add rf20, rf20, rf31 ; nop
.endm

.rep i, AHEAD
	fetch
	min rf20, rf20, rf21 ; nop
.endr
loop3:
	fetch
	min rf20, rf20, rf21 ; nop ; ldtmu.r4		# r4 = W0
	and rf32, r4, r3 ; nop				# R0, B0
	and rf33, r4, r2 ; umul24 rf44, rf32, rf59	# G0
	shr rf34, r4, r1 ; umul24 rf45, rf33, rf54 ; ldtmu.r4	# R1; r4 = W1
	and rf35, r4, r3 ; umul24 rf46, rf34, rf56	# G1, R2
	and rf36, r4, r2 ; umul24 rf47, rf35, rf55	# B1
	shr rf37, r4, r1 ; umul24 rf48, rf35, rf51 ; ldtmu.r4	# G2; r4 = W2
	and rf38, r4, r3 ; umul24 rf49, rf36, rf58	# B2, G3
	and rf39, r4, r2 ; umul24 rf50, rf37, rf55	# R3
	shr rf43, r4, r1 ; umul24 rf60, rf38, rf57	# B3
	nop ; umul24 rf61, rf38, rf52
	nop ; umul24 rf62, rf39, rf26
	nop ; umul24 rf63, rf43, rf57
	add rf44, rf44, rf45 ; nop			# P0
	add rf46, rf46, rf47 ; nop
	add rf46, rf46, rf49 ; nop			# P1
	add rf48, rf48, rf50 ; nop
	add rf48, rf48, rf60 ; nop			# P2
	add rf61, rf61, rf62 ; nop
	add rf61, rf61, rf63 ; nop			# P3
	shr rf44, rf44, -16 ; nop			# S0 low
	and rf48, rf48, rf27 ; nop			# S2 high
	shr rf46, rf46, -16 ; nop			# S1 low
	and rf61, rf61, rf27 ; nop			# S3 high
	or rf44, rf44, rf48 ; nop
	or rf46, rf46, rf61 ; nop
	add rf44, rf44, rf28 ; nop			# + 128 in each half
	add rf46, rf46, rf28 ; nop
	shr rf44, rf44, 8 ; nop
	and rf44, rf44, r3 ; nop			# grays 0 and 2 in bytes 0 and 2
	and rf46, rf46, r2 ; nop			# grays 1 and 3 in bytes 1 and 3
	sub.pushz rf13, rf13, 1 ; nop
	b.anyna loop3
	or tmud, rf44, rf46 ; nop
	add tmua, rf12, rf23 ; nop
	add rf12, rf12, rf30 ; nop
.rep i, AHEAD
	nop ; nop ; ldtmu.rf40
	nop ; nop ; ldtmu.rf41
	nop ; nop ; ldtmu.rf42
.endr
:done
	v3d_end
