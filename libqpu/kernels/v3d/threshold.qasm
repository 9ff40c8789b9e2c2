# SPDX-License-Identifier: MIT
#
# Binary threshold of 8-bit pixels on V3D 4.2 and 7.1: out = in > t ?
# maxval : 0, four pixels a word, exact. V3D has no byte-wise ALU, so each
# word is split into its even and odd bytes, one per 16-bit half: a byte b
# plus 255 - t carries into bit 8 of its half exactly when b > t, and
# never into the next half. Those carries, one a byte, times 255
# ((x << 8) - x: no byte carries into the next) make the mask of maxval.
# Every program converts its own run of 64-pixel pieces (a word a lane),
# reading AHEAD pieces in front as vecadd.qasm does.
#
# Window uniforms (kernel.h, "DOC: streaming kernels"): in, out (this
# program's first piece), pieces (0 allowed), three VPM words it skips, t
# in every byte, maxval in every byte.

.include "v3d.qinc"

.set AHEAD, 4

	v3d_window
	v3d_unif rf10			# in
	v3d_unif rf12			# out
	v3d_unif rf13			# pieces
	v3d_unif rf14
	v3d_unif rf14
	v3d_unif rf14
	v3d_unif rf16			# t, every byte
	v3d_unif rf17			# maxval, every byte
	eidx rf20 ; nop
	shl rf20, rf20, 2 ; nop		# read offset: lane * 4
	sub.pushz rf15, rf13, 0 ; nop
	b.alla done
	shl rf23, rf20, 0 ; nop		# lane * 4, for the stores
	sub rf21, rf13, 1 ; nop
	shl rf21, rf21, 6 ; nop
	add rf21, rf21, rf20 ; nop	# the last piece's offset
	v3d_const rf30, 8, 3		# 64: bytes a piece
	v3d_const rf25, 15, 4
	add rf25, rf25, 15 ; nop	# 255
	shl rf24, rf25, 8 ; nop
	shl rf24, rf24, 8 ; nop
	or rf25, rf25, rf24 ; nop	# 0x00ff00ff: the halves' bytes
	and rf16, rf16, rf25 ; nop
	sub rf26, rf25, rf16 ; nop	# 255 - t in each half
	nop ; mov rf27, 1
	shl rf27, rf27, 8 ; nop
	shl rf24, rf27, 8 ; nop
	shl rf24, rf24, 8 ; nop
	or rf27, rf27, rf24 ; nop	# 0x01000100: the carries
.rep i, AHEAD
	add tmua, rf10, rf20 ; nop
	add rf20, rf20, rf30 ; nop
	min rf20, rf20, rf21 ; nop
.endr
loop:
	add tmua, rf10, rf20 ; nop
	add rf20, rf20, rf30 ; nop ; ldtmu.rf40
	and rf41, rf40, rf25 ; nop	# even bytes
	shr rf42, rf40, 8 ; nop
	and rf42, rf42, rf25 ; nop	# odd bytes
	add rf41, rf41, rf26 ; nop
	add rf42, rf42, rf26 ; nop
	and rf41, rf41, rf27 ; nop
	and rf42, rf42, rf27 ; nop
	shr rf41, rf41, 8 ; nop
	or rf41, rf41, rf42 ; nop	# 1 in each byte above t
	shl rf42, rf41, 8 ; nop
	sub rf41, rf42, rf41 ; nop	# 255 in each byte above t
	and tmud, rf41, rf17 ; nop
	sub.pushz rf13, rf13, 1 ; nop
	b.anyna loop
	add tmua, rf12, rf23 ; nop
	min rf20, rf20, rf21 ; nop
	add rf12, rf12, rf30 ; nop
.rep i, AHEAD
	nop ; nop ; ldtmu.rf40
.endr
:done
	v3d_end
