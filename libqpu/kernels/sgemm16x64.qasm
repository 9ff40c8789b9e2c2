# SPDX-License-Identifier: MIT
#
# sgemm16x64: C = A * B + beta * C in 16x64 tiles, the schedule
# PyVideoCore's sgemm example publishes 8 GFLOPS for on a Pi (its
# README.rst, "Records"); host side: qpu_sgemm_16x64() in sgemm.c. It is
# here to check the timing model on a program that was not tuned against
# it, so it keeps that schedule where qpu_sgemm() departs from it:
#
# - lanes are 16 rows of A, one register per column of the tile (c(j) =
#   ra(j/2) for even j, rb(j/2) for odd j: 64 columns);
# - per k, the TMU brings A's column k of the 16 rows (one lane per row,
#   16 rows apart in memory) and the uniform stream reads B's row k in
#   place: unif_addr is written once per k, so a k costs 67 instructions
#   for 64 dual-issued products (the write, the TMU request and the
#   counter ride on the products; the branch and its latency do not);
# - C goes out (and, beta != 0, comes in) through the VPM in four 16x16
#   blocks by VCD DMA, vertical VPM accesses, under the mutex.
#
# Loop state lives in the lanes of r2 (lane 0: B row of the next k, lane
# 1: the k counter, lane 2: the address of the tile's second part) and r3
# (what one k adds: lane 0 B's row pitch, lane 1 -1), since the 64
# registers hold C; one add with setf steps all of it and sets the flags
# the branch reads. Unlike PyVideoCore, the last k has its own copy of the
# body, so no TMU request goes past A's column K - 1.
#
# DOC: the uniform stream
# The host's tile list, per tile: A's address of the tile's first row,
# A's row pitch in bytes, B's address of the tile's first column, B's row
# pitch in bytes, K - 1, the bus address of the tile's second part (the
# next word); then beta (0: C is only written), C's address of the tile,
# the VDR pitch setup (C's row pitch), the VDW stride setup (the pitch less
# a block's 64 bytes), and 1 if another tile follows (its words next).
#
# r0 products, r1 TMU addresses (k loop) or C's address of the block,
# r2, r3 the loop state (then r2 64, r3 beta), r4 TMU data.

.include "dma.qinc"
.include "vpm.qinc"
.include "exit.qinc"

# Accumulate the product of column p - 1, start the product of column p.
.macro fma, p
.if ((p) + 63) % 2 == 0
	fadd ra0 + ((p) + 63) % 64 / 2, ra0 + ((p) + 63) % 64 / 2, r0; fmul r0, r4, unif
.else
	fadd rb0 + ((p) + 63) % 64 / 2, rb0 + ((p) + 63) % 64 / 2, r0; fmul r0, r4, unif
.endif
.endm

# Columns from .. to - 1.
.macro fmas, from, to
.rep j, (to) - (from)
	fma (from) + j
.endr
.endm

# The end of a k: the last column's sum, the next k's A column into r4
# and its B row into the uniform stream.
.macro k_end
	fadd rb31, rb31, r0; mov unif_addr, r2; ldtmu0
.endm

# One 16x16 block of C (registers 16 b .. 16 b + 15): old C in by DMA and
# beta * old C added when @blend; then to the VPM and out by DMA.
.macro wb_block, b, blend
.if blend
	ldi vr_setup, vdr_setup_0(0, 0, 0, vdr_h32(1, 0, 0))
	mov vr_addr, r1
	mov -, vr_wait
	ldi vr_setup, vpm_setup(16, 1, v32(0, 0))
.endif
	ldi vw_setup, vpm_setup(0, 1, v32(0, 0))
.if blend
	nop
.rep j, 16
	nop; fmul r0, vpm, r3
.if (16 * (b) + j) % 2 == 0
	fadd vpm, ra0 + (16 * (b) + j) / 2, r0; v8subs ra0 + (16 * (b) + j) / 2, r0, r0
.else
	fadd vpm, rb0 + (16 * (b) + j) / 2, r0; v8subs rb0 + (16 * (b) + j) / 2, r0, r0
.endif
.endr
.else
.rep j, 16
.if (16 * (b) + j) % 2 == 0
	mov vpm, ra0 + (16 * (b) + j) / 2; v8subs ra0 + (16 * (b) + j) / 2, r0, r0
.else
	mov vpm, rb0 + (16 * (b) + j) / 2; v8subs rb0 + (16 * (b) + j) / 2, r0, r0
.endif
.endr
.endif
	dma_st_setup 16, 16, dma_h32(0, 0)
	mov vw_addr, r1
	mov -, vw_wait
	add r1, r1, r2
.endm

.macro writeback, blend
.rep b, 4
	wb_block b, blend
.endr
.endm

# --- program start ---------------------------------------------------------

.rep i, 32
	mov ra0 + i, 0; mov rb0 + i, 0
.endr

:tile
	mov r0, unif				# A, the tile's first row
	mul24 r1, elem_num, unif		# x A's row pitch
	add r1, r1, r0				# lane e: row e, k = 0
	mov r2, 1				# lanes 3..15 never 0
	mov r3, 0
	mov.setf -, elem_num			# lane 0
	mov.ifz r2, unif			# B, the tile's first column
	mov.ifz r3, unif			# B's row pitch
	sub.setf -, elem_num, 1			# lane 1
	mov.ifz r2, unif			# K - 1
	mov.ifz r3, -1
	sub.setf -, elem_num, 2			# lane 2
	mov.ifz r2, unif			# the second part
	mov unif_addr, r2			# B's row 0
	mov t0s, r1				# A's column 0
	add r1, r1, 4
	nop; ldtmu0
	add.setf r2, r2, r3; mov t0s, r1	# column 1; the counter
	add r1, r1, 4; fmul r0, r4, unif
	fmas 1, 3
:kloop
	fmas 3, 64
	k_end
	add.setf r2, r2, r3; mov t0s, r1	# column k + 2; the counter
	brr.allnz -, r:kloop
	add r1, r1, 4; fmul r0, r4, unif
	fmas 1, 3
	# k = K - 2 without a request, then k = K - 1
	fmas 3, 64
	k_end
	nop
	nop
	nop; fmul r0, r4, unif
	fmas 1, 64
	fadd rb31, rb31, r0
	nop; mov unif_addr, r2 << 2		# the second part
	nop
	nop
	mov.setf r3, unif			# beta
	mov r1, unif				# C, the tile
	mov vr_setup, unif			# C's pitch for the loads
	mov vw_setup, unif			# ... and the stores
	brr.anyz -, r:store_only
	mov r2, mutex
	ldi r2, 64				# bytes of a block's row
	nop
	writeback 1
	brr -, r:tile_next
	nop
	nop
	nop
:store_only
	writeback 0
:tile_next
	mov mutex, 0
	mov.setf -, unif			# another tile?
	brr.anynz -, r:tile
	nop
	nop
	nop
	qpu_exit
