# SPDX-License-Identifier: MIT
#
# NMS's suppression matrix on V3D 4.2 and 7.1: ../nms.qasm's work (nms.c,
# "DOC: NMS on the QPUs"), exact in integers the same way, in 7
# instructions a column of 16 rows. The columns come through unifa as
# five uniforms each (x1, x2, y1 * K, y2 * K, k * area, K = 256 + k: the
# y's scaled so that h comes out times K), each read after its last use
# for the next column, so the loads ride on the arithmetic. h is not
# clamped: smul24 of the clamped w with a negative K h is negative, which
# suppresses nothing, as a zero product does. A column's flag is pushed
# in its last instruction and ORed into the mask in the next column's,
# after the mask doubled: column t of a group ends in bit 31 - t. Every 32
# columns the 16 words are written by the TMU to mask[g * npad + row].
# nms_gen.qinc names the temporaries: accumulators on 4.2, registers on
# 7.1.
#
# Window uniforms: as ../nms.qasm's (descriptors, their count, npad * 4,
# two words it skips).

.include "v3d.qinc"
.include "nms_gen.qinc"

# A group of 32 columns into @m, with the temporaries @t0, @t1, @t2:
# rf25..rf29 hold the rows' x1, x2, K y1, K y2, k * area, rf30..rf34 the
# column's, rf30..rf33 read a column ahead, rf34 at the step's start. A
# step's last instruction pushes its flag beside the OR of the last
# column's; the first step has none to take, and the last flag is taken
# after the last step.
.macro nms_step, t0, t1, t2, m
	max t0, rf25, rf30 ; add m, m, m ; ldunifarf.rf34
	min t1, rf26, rf31 ; nop ; ldunifarf.rf30
	max t2, rf27, rf32 ; sub t1, t1, t0 ; ldunifarf.rf31
	min t0, rf28, rf33 ; nop ; ldunifarf.rf32
	max t1, t1, 0 ; sub t0, t0, t2
	add t2, rf29, rf34 ; smul24 t1, t1, t0 ; ldunifarf.rf33
.endm

.macro nms_group, t0, t1, t2, m
	nop ; mov m, 0
	nms_step t0, t1, t2, m
	nop ; sub.pushn -, t2, t1
.rep i, 31
	nms_step t0, t1, t2, m
	or.ifa m, m, 1 ; sub.pushn -, t2, t1
.endr
	nop ; add m, m, m
	or.ifa m, m, 1 ; nop
	nop ; mov tmud, m
.endm

	v3d_window
	v3d_unif rf10			# descriptors
	v3d_unif rf11			# their count
	v3d_unif rf12			# bytes between mask groups
	sub.pushz rf11, rf11, 0 ; nop
	b.alla done
	eidx rf15 ; nop
	v3d_const rf16, 5, 2		# 20: bytes of a record
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
	nop ; nop ; ldtmu.rf27		# K y1
	nop ; nop ; ldtmu.rf28		# K y2
	nop ; nop ; ldtmu.rf29		# k * area
	v3d_unif rf30			# the first column's x1, x2, K y1, K y2
	v3d_unif rf31
	v3d_unif rf32
	v3d_unif rf33
group:
	nms_group_gen
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
