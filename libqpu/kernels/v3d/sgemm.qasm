# SPDX-License-Identifier: MIT
#
# C = alpha A B + beta C on V3D 4.2 and 7.1, in tiles of 16 rows x 16
# columns (a lane a column). The wrapper (sgemm_v3d.c) packs alpha A into
# panels of 16 rows, k-major (16 floats a k, rows past M zero), and deals
# the tiles to the programs. For every k of a tile, the program reads B's
# row k (its 16 columns, a lookup: columns past N read the last one) and
# then, for each of the 16 rows, the panel's A value (ldunifa: the panel is
# the program's uniform stream while the tile runs) times that row into the
# row's accumulator: one instruction a row doing a multiply and an add,
# 32 flops. The row of k + AHEAD is asked for at k (the last row read
# again past the end: umin, as GPU addresses may pass 2^31), so the
# lookups hide behind 3 steps. K runs as K % 8 single steps, then K / 8
# turns of 8. At the tile's end each valid row (plus beta times C's row
# when beta is not 0) is written through the TMU, lanes past N masked off. The generation's sgemm_gen.qinc holds the step.
#
# Window uniforms (sgemm_v3d.c): tiles, K % 8, K / 8, B's row stride and
# C's row stride in bytes, beta, beta not 0 (1 or 0), then per tile: its
# panel's address, B's address at its first column, C's at its first
# element, the address of B's last row at its first column, rows, columns.

.include "v3d.qinc"
.include "sgemm_gen.qinc"

.set AHEAD, 3

# One k: ask for the row AHEAD on, take this one, 13 rows (then 3: tail).
.macro kstep_head
	add rf51, rf51, rf52 ; mov tmua, rf51
	umin rf51, rf51, rf53 ; nop ; ldtmu.rf50
	sg_mac rf47, rf50
	sg_mac rf32, rf50
	sg_mac rf33, rf50
	sg_mac rf34, rf50
	sg_mac rf35, rf50
	sg_mac rf36, rf50
	sg_mac rf37, rf50
	sg_mac rf38, rf50
	sg_mac rf39, rf50
	sg_mac rf40, rf50
	sg_mac rf41, rf50
	sg_mac rf42, rf50
	sg_mac rf43, rf50
.endm
.macro kstep_tail
	sg_mac rf44, rf50
	sg_mac rf45, rf50
	sg_mac rf46, rf50
.endm
.macro kstep
	kstep_head
	kstep_tail
.endm

	v3d_window
	v3d_unif rf10			# tiles
	v3d_unif rf11			# K % 8
	v3d_unif rf12			# K / 8
	v3d_unif rf52			# B's stride, bytes
	v3d_unif rf13			# C's stride, bytes
	v3d_unif rf14			# beta
	v3d_unif rf15			# beta not 0
	add rf18, rf6, 14 ; nop
	add rf18, rf18, 14 ; nop	# the first tile's words: the window's 8th
	eidx rf16 ; nop			# lane
	shl rf17, rf16, 2 ; nop		# lane * 4
	sub.pushz rf20, rf10, 0 ; nop
	b.alla done
	nop ; nop
	nop ; nop
	nop ; nop
tile:
	nop ; mov unifa, rf18		# back from the last panel's stream
	add rf18, rf18, 12 ; nop
	add rf18, rf18, 12 ; nop	# the next tile's words
	nop ; nop
	v3d_unif rf21			# panel
	v3d_unif rf22			# B
	v3d_unif rf23			# C
	v3d_unif rf53			# B's last row
	v3d_unif rf24			# rows
	v3d_unif rf25			# columns
	nop ; mov unifa, rf21		# the panel's stream
	sub rf26, rf25, 1 ; nop
	min rf26, rf16, rf26 ; nop
	shl rf26, rf26, 2 ; nop		# lane's column, clamped, * 4
	add rf51, rf22, rf26 ; nop	# B's rows, this lane
	add rf53, rf53, rf26 ; nop
	sg_first_a
	sg_zero_product
	nop ; mov rf32, 0
	nop ; mov rf33, 0
	nop ; mov rf34, 0
	nop ; mov rf35, 0
	nop ; mov rf36, 0
	nop ; mov rf37, 0
	nop ; mov rf38, 0
	nop ; mov rf39, 0
	nop ; mov rf40, 0
	nop ; mov rf41, 0
	nop ; mov rf42, 0
	nop ; mov rf43, 0
	nop ; mov rf44, 0
	nop ; mov rf45, 0
	nop ; mov rf46, 0
	nop ; mov rf47, 0
.rep i, AHEAD
	add rf51, rf51, rf52 ; mov tmua, rf51
	umin rf51, rf51, rf53 ; nop
.endr
	sub.pushz rf20, rf11, 0 ; nop
	b.alla ones_done
	add rf27, rf11, 0 ; nop
	nop ; nop
	nop ; nop
ones:
	sub.pushz rf27, rf27, 1 ; nop
	kstep_head
	b.anyna ones
	kstep_tail
ones_done:
	sub.pushz rf20, rf12, 0 ; nop
	b.alla eights_done
	add rf27, rf12, 0 ; nop
	nop ; nop
	nop ; nop
eights:
	sub.pushz rf27, rf27, 1 ; nop
.rep i, 7
	kstep
.endr
	kstep_head
	b.anyna eights
	kstep_tail
eights_done:
	sg_flush rf47
.rep i, AHEAD
	nop ; nop ; ldtmu.rf50
.endr
	# the stores: lanes below the columns, rows below the rows
	sub rf28, rf16, rf25 ; nop	# negative: a valid column
	sub rf29, 0, rf24 ; nop		# row - rows: negative: a valid row
	add rf23, rf23, rf17 ; nop	# this lane's C
	sub.pushz rf20, rf15, 0 ; nop
	b.alla store
	nop ; nop
	nop ; nop
	nop ; nop
	max.pushn rf20, rf28, rf29 ; nop
	nop ; mov.ifa tmua, rf23
	add rf29, rf29, 1 ; nop
	nop ; nop ; ldtmu.rf30
	nop ; fmul rf30, rf30, rf14
	fadd rf30, rf32, rf30 ; nop
	nop ; mov.ifa tmud, rf30
	nop ; mov.ifa tmua, rf23
	add rf23, rf23, rf13 ; nop
	max.pushn rf20, rf28, rf29 ; nop
	nop ; mov.ifa tmua, rf23
	add rf29, rf29, 1 ; nop
	nop ; nop ; ldtmu.rf30
	nop ; fmul rf30, rf30, rf14
	fadd rf30, rf33, rf30 ; nop
	nop ; mov.ifa tmud, rf30
	nop ; mov.ifa tmua, rf23
	add rf23, rf23, rf13 ; nop
	max.pushn rf20, rf28, rf29 ; nop
	nop ; mov.ifa tmua, rf23
	add rf29, rf29, 1 ; nop
	nop ; nop ; ldtmu.rf30
	nop ; fmul rf30, rf30, rf14
	fadd rf30, rf34, rf30 ; nop
	nop ; mov.ifa tmud, rf30
	nop ; mov.ifa tmua, rf23
	add rf23, rf23, rf13 ; nop
	max.pushn rf20, rf28, rf29 ; nop
	nop ; mov.ifa tmua, rf23
	add rf29, rf29, 1 ; nop
	nop ; nop ; ldtmu.rf30
	nop ; fmul rf30, rf30, rf14
	fadd rf30, rf35, rf30 ; nop
	nop ; mov.ifa tmud, rf30
	nop ; mov.ifa tmua, rf23
	add rf23, rf23, rf13 ; nop
	max.pushn rf20, rf28, rf29 ; nop
	nop ; mov.ifa tmua, rf23
	add rf29, rf29, 1 ; nop
	nop ; nop ; ldtmu.rf30
	nop ; fmul rf30, rf30, rf14
	fadd rf30, rf36, rf30 ; nop
	nop ; mov.ifa tmud, rf30
	nop ; mov.ifa tmua, rf23
	add rf23, rf23, rf13 ; nop
	max.pushn rf20, rf28, rf29 ; nop
	nop ; mov.ifa tmua, rf23
	add rf29, rf29, 1 ; nop
	nop ; nop ; ldtmu.rf30
	nop ; fmul rf30, rf30, rf14
	fadd rf30, rf37, rf30 ; nop
	nop ; mov.ifa tmud, rf30
	nop ; mov.ifa tmua, rf23
	add rf23, rf23, rf13 ; nop
	max.pushn rf20, rf28, rf29 ; nop
	nop ; mov.ifa tmua, rf23
	add rf29, rf29, 1 ; nop
	nop ; nop ; ldtmu.rf30
	nop ; fmul rf30, rf30, rf14
	fadd rf30, rf38, rf30 ; nop
	nop ; mov.ifa tmud, rf30
	nop ; mov.ifa tmua, rf23
	add rf23, rf23, rf13 ; nop
	max.pushn rf20, rf28, rf29 ; nop
	nop ; mov.ifa tmua, rf23
	add rf29, rf29, 1 ; nop
	nop ; nop ; ldtmu.rf30
	nop ; fmul rf30, rf30, rf14
	fadd rf30, rf39, rf30 ; nop
	nop ; mov.ifa tmud, rf30
	nop ; mov.ifa tmua, rf23
	add rf23, rf23, rf13 ; nop
	max.pushn rf20, rf28, rf29 ; nop
	nop ; mov.ifa tmua, rf23
	add rf29, rf29, 1 ; nop
	nop ; nop ; ldtmu.rf30
	nop ; fmul rf30, rf30, rf14
	fadd rf30, rf40, rf30 ; nop
	nop ; mov.ifa tmud, rf30
	nop ; mov.ifa tmua, rf23
	add rf23, rf23, rf13 ; nop
	max.pushn rf20, rf28, rf29 ; nop
	nop ; mov.ifa tmua, rf23
	add rf29, rf29, 1 ; nop
	nop ; nop ; ldtmu.rf30
	nop ; fmul rf30, rf30, rf14
	fadd rf30, rf41, rf30 ; nop
	nop ; mov.ifa tmud, rf30
	nop ; mov.ifa tmua, rf23
	add rf23, rf23, rf13 ; nop
	max.pushn rf20, rf28, rf29 ; nop
	nop ; mov.ifa tmua, rf23
	add rf29, rf29, 1 ; nop
	nop ; nop ; ldtmu.rf30
	nop ; fmul rf30, rf30, rf14
	fadd rf30, rf42, rf30 ; nop
	nop ; mov.ifa tmud, rf30
	nop ; mov.ifa tmua, rf23
	add rf23, rf23, rf13 ; nop
	max.pushn rf20, rf28, rf29 ; nop
	nop ; mov.ifa tmua, rf23
	add rf29, rf29, 1 ; nop
	nop ; nop ; ldtmu.rf30
	nop ; fmul rf30, rf30, rf14
	fadd rf30, rf43, rf30 ; nop
	nop ; mov.ifa tmud, rf30
	nop ; mov.ifa tmua, rf23
	add rf23, rf23, rf13 ; nop
	max.pushn rf20, rf28, rf29 ; nop
	nop ; mov.ifa tmua, rf23
	add rf29, rf29, 1 ; nop
	nop ; nop ; ldtmu.rf30
	nop ; fmul rf30, rf30, rf14
	fadd rf30, rf44, rf30 ; nop
	nop ; mov.ifa tmud, rf30
	nop ; mov.ifa tmua, rf23
	add rf23, rf23, rf13 ; nop
	max.pushn rf20, rf28, rf29 ; nop
	nop ; mov.ifa tmua, rf23
	add rf29, rf29, 1 ; nop
	nop ; nop ; ldtmu.rf30
	nop ; fmul rf30, rf30, rf14
	fadd rf30, rf45, rf30 ; nop
	nop ; mov.ifa tmud, rf30
	nop ; mov.ifa tmua, rf23
	add rf23, rf23, rf13 ; nop
	max.pushn rf20, rf28, rf29 ; nop
	nop ; mov.ifa tmua, rf23
	add rf29, rf29, 1 ; nop
	nop ; nop ; ldtmu.rf30
	nop ; fmul rf30, rf30, rf14
	fadd rf30, rf46, rf30 ; nop
	nop ; mov.ifa tmud, rf30
	nop ; mov.ifa tmua, rf23
	add rf23, rf23, rf13 ; nop
	max.pushn rf20, rf28, rf29 ; nop
	nop ; mov.ifa tmua, rf23
	add rf29, rf29, 1 ; nop
	nop ; nop ; ldtmu.rf30
	nop ; fmul rf30, rf30, rf14
	fadd rf30, rf47, rf30 ; nop
	nop ; mov.ifa tmud, rf30
	nop ; mov.ifa tmua, rf23
	add rf23, rf23, rf13 ; nop
	b store_done
	nop ; nop
	nop ; nop
	nop ; nop
store:
	max.pushn rf20, rf28, rf29 ; nop
	add rf29, rf29, 1 ; nop
	nop ; mov.ifa tmud, rf32
	nop ; mov.ifa tmua, rf23
	add rf23, rf23, rf13 ; nop
	max.pushn rf20, rf28, rf29 ; nop
	add rf29, rf29, 1 ; nop
	nop ; mov.ifa tmud, rf33
	nop ; mov.ifa tmua, rf23
	add rf23, rf23, rf13 ; nop
	max.pushn rf20, rf28, rf29 ; nop
	add rf29, rf29, 1 ; nop
	nop ; mov.ifa tmud, rf34
	nop ; mov.ifa tmua, rf23
	add rf23, rf23, rf13 ; nop
	max.pushn rf20, rf28, rf29 ; nop
	add rf29, rf29, 1 ; nop
	nop ; mov.ifa tmud, rf35
	nop ; mov.ifa tmua, rf23
	add rf23, rf23, rf13 ; nop
	max.pushn rf20, rf28, rf29 ; nop
	add rf29, rf29, 1 ; nop
	nop ; mov.ifa tmud, rf36
	nop ; mov.ifa tmua, rf23
	add rf23, rf23, rf13 ; nop
	max.pushn rf20, rf28, rf29 ; nop
	add rf29, rf29, 1 ; nop
	nop ; mov.ifa tmud, rf37
	nop ; mov.ifa tmua, rf23
	add rf23, rf23, rf13 ; nop
	max.pushn rf20, rf28, rf29 ; nop
	add rf29, rf29, 1 ; nop
	nop ; mov.ifa tmud, rf38
	nop ; mov.ifa tmua, rf23
	add rf23, rf23, rf13 ; nop
	max.pushn rf20, rf28, rf29 ; nop
	add rf29, rf29, 1 ; nop
	nop ; mov.ifa tmud, rf39
	nop ; mov.ifa tmua, rf23
	add rf23, rf23, rf13 ; nop
	max.pushn rf20, rf28, rf29 ; nop
	add rf29, rf29, 1 ; nop
	nop ; mov.ifa tmud, rf40
	nop ; mov.ifa tmua, rf23
	add rf23, rf23, rf13 ; nop
	max.pushn rf20, rf28, rf29 ; nop
	add rf29, rf29, 1 ; nop
	nop ; mov.ifa tmud, rf41
	nop ; mov.ifa tmua, rf23
	add rf23, rf23, rf13 ; nop
	max.pushn rf20, rf28, rf29 ; nop
	add rf29, rf29, 1 ; nop
	nop ; mov.ifa tmud, rf42
	nop ; mov.ifa tmua, rf23
	add rf23, rf23, rf13 ; nop
	max.pushn rf20, rf28, rf29 ; nop
	add rf29, rf29, 1 ; nop
	nop ; mov.ifa tmud, rf43
	nop ; mov.ifa tmua, rf23
	add rf23, rf23, rf13 ; nop
	max.pushn rf20, rf28, rf29 ; nop
	add rf29, rf29, 1 ; nop
	nop ; mov.ifa tmud, rf44
	nop ; mov.ifa tmua, rf23
	add rf23, rf23, rf13 ; nop
	max.pushn rf20, rf28, rf29 ; nop
	add rf29, rf29, 1 ; nop
	nop ; mov.ifa tmud, rf45
	nop ; mov.ifa tmua, rf23
	add rf23, rf23, rf13 ; nop
	max.pushn rf20, rf28, rf29 ; nop
	add rf29, rf29, 1 ; nop
	nop ; mov.ifa tmud, rf46
	nop ; mov.ifa tmua, rf23
	add rf23, rf23, rf13 ; nop
	max.pushn rf20, rf28, rf29 ; nop
	add rf29, rf29, 1 ; nop
	nop ; mov.ifa tmud, rf47
	nop ; mov.ifa tmua, rf23
	add rf23, rf23, rf13 ; nop
store_done:
	sub.pushz rf10, rf10, 1 ; nop
	b.anyna tile
	nop ; nop
	nop ; nop
	nop ; nop
:done
	v3d_end
