# SPDX-License-Identifier: MIT
#
# igemm: C (M x N uint32) = A (M x K) times B (K x N), the operands
# unsigned bytes packed four to a 32-bit word along K: A row by row (K4
# words a row), B in panels of 16 columns, a panel word-step by word-step
# (16 words, one a column: one TMU lookup reads one 64-byte line), the
# sums exact in 32 bits (wrapping). The QPUs have no 8-bit dot product: a word of each
# operand is one TMU lookup, the A word's bytes come out of regfile A by
# its unpack modes (8a..8d, zero-extended for mul24), the B word's by
# shifts and a mask, and mul24 multiplies byte by byte. What INT8 buys is
# a quarter of a float's bytes, not faster arithmetic. The host
# (igemm.c) turns int8 into uint8 and subtracts the zero points
# (libqpu/nn/qpu_ops.c).
#
# A piece is one row m and 16 columns: lane i computes C[m][n0 + i]. A
# program takes a run of pieces in C's order (N is a multiple of 16), so
# its stores are consecutive (stream.qinc); a run may start inside a row
# (a product of one row still fills every QPU).
#
# Uniforms: a (the row of the program's first piece), c (its first
# piece), pieces (0 allowed), vw_setup word of the program's first VPM
# row, VDW setup word of that row with UNITS 0, rows per store, the first
# piece's panel of B (b + n0 * K4 * 4), pieces left in its row; then the
# same for every program: b (B's transpose), K4 (words a row, at least
# 1), pieces a row.

.include "exit.qinc"
.include "dma.qinc"
.include "stream.qinc"

.set ra_arow, ra0
.set ra_n, ra1
.set ra_vdw, ra2
.set ra_bytes, ra3
.set ra_ap, ra4
.set ra_aw, ra5
.set ra_k, ra6
.set ra_acc, ra7
.set ra_left, ra8
.set ra_i, ra9
.set ra_bp, ra10
.set rb_out, rb0
.set rb_vw, rb1
.set rb_batch, rb2
.set rb_unit, rb3
.set rb_vdwcur, rb4
.set rb_bstart, rb5
.set rb_bcol, rb6
.set rb_4, rb7
.set rb_k4, rb8
.set rb_ppr, rb9
.set rb_rowbytes, rb10
.set rb_pstep, rb11
.set rb_255, rb12
.set rb_64, rb13

	mov ra_arow, unif
	mov rb_out, unif
	mov.setf ra_n, unif
	mov rb_vw, unif
	mov ra_vdw, unif
	brr.allz -, r:done
	mov rb_batch, unif
	mov ra_bp, unif			# the program's first column of B
	mov ra_left, unif		# pieces left in its first row
	mov r0, unif			# b
	mov r1, unif			# K4
	mov rb_k4, r1
	shl r2, r1, 2			# bytes of a row
	mov rb_rowbytes, r2
	shl r3, elem_num, 2
	add rb_bstart, r0, r3		# lane i's column of B
	add rb_bcol, ra_bp, r3
	shl rb_pstep, r2, 4		# 16 columns of B
	mov rb_ppr, unif
	ldi rb_255, 255
	ldi rb_64, 64
	ldi rb_4, 4
	stream_init
	stream_first
:1	# a batch
	stream_batch rb_64, ra_i
:2	# a piece: 16 sums of K4 words
	mov ra_ap, ra_arow
	mov ra_bp, rb_bcol
	mov ra_k, rb_k4
	mov ra_acc, 0
:3	# a word of each operand
	mov t0s, ra_ap
	mov t1s, ra_bp
	add ra_bp, ra_bp, rb_64
	add ra_ap, ra_ap, rb_4; nop; ldtmu0
	mov ra_aw, r4; nop; ldtmu1
	and r0, r4, rb_255
	shr r1, r4, 8
	and r1, r1, rb_255; mul24 r0, ra_aw.8a, r0
	shr r2, r4, -16			# the ALU reads five bits: 16
	and r2, r2, rb_255; mul24 r1, ra_aw.8b, r1
	shr r3, r4, -8			# 24
	add r0, r0, r1; mul24 r2, ra_aw.8c, r2
	add r0, r0, r2; mul24 r3, ra_aw.8d, r3
	sub.setf ra_k, ra_k, 1
	brr.anynz -, r:3b
	add r0, r0, r3
	add ra_acc, ra_acc, r0
	nop
	# the piece is done: store it, step to the next 16 columns
	sub.setf ra_left, ra_left, 1
	mov vpm, ra_acc
	mov r0, rb_pstep
	add rb_bcol, rb_bcol, r0
	mov.ifz ra_left, rb_ppr
	mov.ifz rb_bcol, rb_bstart
	mov r0, rb_rowbytes
	add.ifz ra_arow, ra_arow, r0
	sub.setf ra_i, ra_i, 1
	brr.anynz -, r:2b
	nop
	nop
	nop
	stream_store r:1b
:done
	qpu_exit
