# SPDX-License-Identifier: MIT
#
# Binary threshold of 8-bit pixels: out = in > t ? maxval : 0, four pixels a
# word with the QPU's byte-wise saturating arithmetic (exact). For each
# byte: v8subs(in, t) is non-zero exactly when in > t; adding 254 with
# saturation and subtracting 254 again turns that into 1 or 0; times 255
# ((x << 8) - x, which cannot carry between bytes) gives 255 or 0; v8min
# with maxval gives maxval or 0. Every program converts its own run of
# 64-pixel blocks (one word a lane, TMU0), writes each result to a row of
# its VPM rows and stores a batch of up to 8 rows (512 bytes) with one VCD
# DMA store (stream.qinc).
#
# Uniforms: in, out (bus addresses of this program's first block), blocks
# (0 allowed), vw_setup word of the program's first VPM row, VDW setup word
# of that row with UNITS 0, rows per store, t in every byte, maxval in
# every byte.

.include "exit.qinc"
.include "dma.qinc"
.include "stream.qinc"

.set ra_in, ra0
.set rb_out, rb0
.set ra_n, ra1
.set rb_vw, rb1
.set ra_vdw, ra2
.set rb_batch, rb2
.set rb_t, rb3
.set ra_max, ra3
.set rb_64, rb4
.set rb_unit, rb5
.set rb_vdwcur, rb6
.set ra_i, ra4
.set ra_bytes, ra5

	mov ra_in, unif
	mov rb_out, unif
	mov.setf ra_n, unif
	mov rb_vw, unif
	mov ra_vdw, unif
	mov rb_batch, unif
	brr.allz -, r:done
	mov rb_t, unif
	mov ra_max, unif
	shl r3, elem_num, 2		# byte offset of each lane
	ldi r2, 0xfefefefe		# 254 in every byte
	ldi rb_64, 64
	stream_init
	stream_first
:1	# a batch
	stream_batch rb_64, ra_i
:2	# a block
	add t0s, ra_in, r3
	add ra_in, ra_in, rb_64; nop; ldtmu0
	nop; v8subs r0, r4, rb_t
	sub.setf ra_i, ra_i, 1; v8adds r0, r0, r2
	nop; v8subs r0, r0, r2
	brr.anynz -, r:2b
	shl r1, r0, 8
	sub r0, r1, r0
	nop; v8min vpm, r0, ra_max
	stream_store r:1b
:done
	qpu_exit
