# SPDX-License-Identifier: MIT
#
# NMS's suppression matrix on V3D 4.2 and 7.1: ../nms.qasm's work (nms.c,
# "DOC: NMS on the QPUs"), exact in integers the same way. 16 rows a
# block, one a lane; the block's columns come through unifa as six
# uniforms each (x1, x2, y1, y2, k * area, the column's bit), each read a
# column ahead of its use, so the loads ride on the arithmetic's
# instructions: 12 a column. h is not clamped: smul24 of the clamped w
# times (256 + k) with a negative h is negative, which suppresses nothing,
# as a zero product does. Every 32 columns the 16 words are written by
# the TMU to mask[g * npad + row].
#
# Window uniforms: as ../nms.qasm's (descriptors, their count, npad * 4,
# two VPM words it skips, 256 + k).

.include "v3d.qinc"

	v3d_window
	v3d_unif rf10			# descriptors
	v3d_unif rf11			# their count
	v3d_unif rf12			# bytes between mask groups
	v3d_unif rf14
	v3d_unif rf14
	v3d_unif rf13			# 256 + k
	sub.pushz rf11, rf11, 0 ; nop
	b.alla done
	eidx rf15 ; nop
	v3d_const rf16, 3, 3		# 24: bytes of a record
	nop ; umul24 rf15, rf15, rf16	# a row record's bytes from lane 0's
	eidx rf17 ; nop
	shl rf17, rf17, 2 ; nop		# lane * 4: a store's word
	v3d_const rf18, 1, 4		# 16: bytes of a descriptor
block:
	nop ; mov unifa, rf10
	add rf10, rf10, rf18 ; nop
	nop ; nop
	nop ; nop
	v3d_unif rf20			# the rows' records
	v3d_unif rf21			# the first column's record
	v3d_unif rf22			# groups of 32 columns
	v3d_unif rf23			# where the first group's words go
	add rf24, rf20, rf15 ; nop
	nop ; mov tmua, rf24
	add rf24, rf24, 4 ; nop
	nop ; mov tmua, rf24
	add rf24, rf24, 4 ; nop
	nop ; mov tmua, rf24
	add rf24, rf24, 4 ; nop
	nop ; mov tmua, rf24
	add rf24, rf24, 4 ; nop
	nop ; mov tmua, rf24
	nop ; mov unifa, rf21
	nop ; nop ; ldtmu.rf25		# x1
	nop ; nop ; ldtmu.rf26		# x2
	nop ; nop ; ldtmu.rf27		# y1
	nop ; nop ; ldtmu.rf28		# y2
	nop ; nop ; ldtmu.rf29		# k * area
	v3d_unif rf30			# the first column's x1, x2, y1, y2, k * area
	v3d_unif rf31
	v3d_unif rf32
	v3d_unif rf33
	v3d_unif rf34
group:
	nop ; mov rf35, 0
.rep i, 32
	max rf40, rf25, rf30 ; nop ; ldunifarf.rf36
	min rf41, rf26, rf31 ; nop ; ldunifarf.rf30
	sub rf41, rf41, rf40 ; nop ; ldunifarf.rf31
	max rf40, rf27, rf32 ; nop
	min rf42, rf28, rf33 ; nop ; ldunifarf.rf32
	sub rf42, rf42, rf40 ; nop ; ldunifarf.rf33
	add rf43, rf29, rf34 ; nop
	max rf41, rf41, 0 ; nop
	nop ; umul24 rf41, rf41, rf13 ; ldunifarf.rf34
	nop ; smul24 rf41, rf41, rf42
	sub.pushn rf44, rf43, rf41 ; nop
	or.ifa rf35, rf35, rf36 ; nop
.endr
	nop ; mov tmud, rf35
	add tmua, rf23, rf17 ; nop
	sub.pushz rf22, rf22, 1 ; nop
	b.anyna group
	add rf23, rf23, rf12 ; nop
	nop ; nop
	nop ; nop
	sub.pushz rf11, rf11, 1 ; nop
	b.anyna block
	nop ; nop
	nop ; nop
	nop ; nop
:done
	v3d_end
