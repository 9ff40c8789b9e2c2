# SPDX-License-Identifier: MIT
#
# RGB (3 bytes a pixel) to 8-bit grayscale on V3D 4.2 and 7.1 with the
# BT.601 luma weights in 8-bit fixed point: gray = (77 R + 150 G + 29 B +
# 128) >> 8, exact integer arithmetic. Every program converts its own run
# of 64-pixel pieces: lane i reads the 12 bytes of pixels 4i..4i+3 as three
# words (v3d_load3 of the generation), takes the channels out
# with shifts and masks (shifts by -16 and -8 are by 16 and 24: the ALU
# reads 5 bits), and writes the four grays as one word. Reads run AHEAD
# pieces in front, as in vecadd.qasm.
#
# Window uniforms (kernel.h, "DOC: streaming kernels"): rgb, gray (this
# program's first piece), pieces (0 allowed), three VPM words it skips.

.include "v3d.qinc"

.set AHEAD, 1

	v3d_window
	v3d_unif rf10			# rgb
	v3d_unif rf12			# gray
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
	v3d_const rf50, 8, 4		# 128: rounding
	v3d_const rf51, 8, 3
	add rf51, rf51, 13 ; nop	# 77
	add rf52, rf50, 11 ; nop
	add rf52, rf52, 11 ; nop	# 150
	v3d_const rf53, 1, 4
	add rf53, rf53, 13 ; nop	# 29

# The next piece's three words, from offset rf20.
.macro fetch
	v3d_load3 rf10, rf20, rf22
	add rf20, rf20, rf31 ; nop
	min rf20, rf20, rf21 ; nop
.endm

# @dst = byte @k of @src.
.macro chan, dst, src, k
.if k == 0
	and dst, src, rf25 ; nop
.elif k == 3
	shr dst, src, -8 ; nop
.else
	shr dst, src, 8 * k - 32 * (k == 2) ; nop
	and dst, dst, rf25 ; nop
.endif
.endm

# Gray of the pixel whose channels are byte @rk of @rw, @gk of @gw and @bk
# of @bw, into rf47 (the first pixel) or or-ed into it at byte @out.
.macro pixel, rw, rk, gw, gk, bw, bk, out
	chan rf43, rw, rk
	chan rf44, gw, gk
	chan rf45, bw, bk
	nop ; umul24 rf43, rf43, rf51
	nop ; umul24 rf44, rf44, rf52
	nop ; umul24 rf45, rf45, rf53
	add rf43, rf43, rf50 ; nop
	add rf43, rf43, rf44 ; nop
	add rf43, rf43, rf45 ; nop
	shr rf43, rf43, 8 ; nop
.if out == 0
	add rf47, rf43, 0 ; nop
.else
	shl rf43, rf43, 8 * out - 32 * (out == 2) - 32 * (out == 3) ; nop
	or rf47, rf47, rf43 ; nop
.endif
.endm

.rep i, AHEAD
	fetch
.endr
loop:
	fetch
	nop ; nop ; ldtmu.rf40
	nop ; nop ; ldtmu.rf41
	nop ; nop ; ldtmu.rf42
	pixel rf40, 0, rf40, 1, rf40, 2, 0
	pixel rf40, 3, rf41, 0, rf41, 1, 1
	pixel rf41, 2, rf41, 3, rf42, 0, 2
	pixel rf42, 1, rf42, 2, rf42, 3, 3
	sub.pushz rf13, rf13, 1 ; nop
	b.anyna loop
	add tmud, rf47, 0 ; nop
	add tmua, rf12, rf23 ; nop
	add rf12, rf12, rf30 ; nop
.rep i, AHEAD
	nop ; nop ; ldtmu.rf40
	nop ; nop ; ldtmu.rf41
	nop ; nop ; ldtmu.rf42
.endr
:done
	v3d_end
