# SPDX-License-Identifier: MIT
#
# igemm on V3D 4.2 and 7.1: C (M x N uint32) = A (M x K) times B (K x N),
# unsigned bytes packed four to a word along K (A row by row, B in panels
# of 16 columns), the sums exact in 32 bits, as libqpu/kernels/igemm.qasm (its
# head says the layout and why INT8 buys bytes, not arithmetic). V3D has
# no integer unpack: each word's bytes come out by shifts and a mask of
# 255, then four umul24s and four adds. A's word, the same for every lane,
# comes through the unifa stream (one read, not 16 TMU lookups); B's
# through the TMU. Lane i computes C[m][n0 + i] of a
# piece (one row, 16 columns) and writes it through the TMU.
#
# Window uniforms (kernel.h): a (the row of the program's first piece), c
# (that piece), pieces (0 allowed), three VPM words it skips, the first
# piece's panel of B, pieces left in its row, then b (B's transpose), K4
# (words a row, at least 1), pieces a row.

.include "v3d.qinc"

	v3d_window
	v3d_unif rf10			# a: this row's first word
	v3d_unif rf12			# c
	v3d_unif rf13			# pieces
	v3d_unif rf14
	v3d_unif rf14
	v3d_unif rf14
	v3d_unif rf28			# the first piece's column of B
	v3d_unif rf27			# pieces left in its row
	v3d_unif rf11			# b
	v3d_unif rf16			# K4
	v3d_unif rf17			# pieces a row
	eidx rf20 ; nop
	shl rf23, rf20, 2 ; nop		# lane * 4: the stores' offset
	sub.pushz rf15, rf13, 0 ; nop
	b.alla done
	shl rf18, rf16, 2 ; nop		# bytes a row
	shl rf19, rf20, 2 ; nop
	add rf24, rf11, rf19 ; nop	# lane i's column of B
	shl rf26, rf18, 4 ; nop		# 16 columns of B
	add rf25, rf28, rf19 ; nop	# this piece's columns
	v3d_const rf30, 8, 3		# 64: bytes of C a piece
	v3d_const rf31, 15, 4
	add rf31, rf31, 15 ; nop	# 255
piece:
	nop ; mov unifa, rf10		# A's row: one word for all lanes a step
	nop ; mov rf33, rf25
	nop ; mov rf34, rf16
	nop ; mov rf35, 0
word:
	add tmua, rf33, 0 ; nop
	add rf33, rf33, rf30 ; nop ; ldunifarf.rf40
	nop ; nop ; ldtmu.rf41
	and rf42, rf40, rf31 ; nop
	shr rf43, rf40, 8 ; nop
	and rf43, rf43, rf31 ; nop
	shr rf44, rf40, -16 ; nop	# the ALU reads five bits: 16
	and rf44, rf44, rf31 ; nop
	shr rf45, rf40, -8 ; nop	# 24
	and rf46, rf41, rf31 ; nop
	shr rf47, rf41, 8 ; nop
	and rf47, rf47, rf31 ; nop
	shr rf48, rf41, -16 ; nop
	and rf48, rf48, rf31 ; nop
	shr rf49, rf41, -8 ; nop
	nop ; umul24 rf42, rf42, rf46
	nop ; umul24 rf43, rf43, rf47
	nop ; umul24 rf44, rf44, rf48
	nop ; umul24 rf45, rf45, rf49
	add rf35, rf35, rf42 ; nop
	add rf35, rf35, rf43 ; nop
	sub.pushz rf34, rf34, 1 ; nop
	b.anyna word
	add rf35, rf35, rf44 ; nop
	add rf35, rf35, rf45 ; nop
	nop ; nop
	# the piece is done: store it, step to the next 16 columns
	nop ; mov tmud, rf35
	add tmua, rf12, rf23 ; nop
	add rf12, rf12, rf30 ; nop
	add rf25, rf25, rf26 ; nop
	sub.pushz rf27, rf27, 1 ; nop
	nop ; mov.ifa rf27, rf17
	nop ; mov.ifa rf25, rf24
	add.ifa rf10, rf10, rf18 ; nop
	sub.pushz rf13, rf13, 1 ; nop
	b.anyna piece
	nop ; nop
	nop ; nop
	nop ; nop
:done
	v3d_end
