# SPDX-License-Identifier: MIT
#
# dwconv: a depthwise 3x3 convolution (one channel per group, as MobileNet
# uses it) with strides, pads, bias and a clamp (the fused ReLU or ReLU6),
# on up to 12 QPUs (host side: window.c). The work, the stores and the
# common uniforms are window.qinc's; a lane reads its nine taps through
# the TMUs (the taps of 16 lanes overlap; the slice's TMU cache serves the
# repeats).
#
# DOC: pads
# A row outside the input (iy < 0 or iy >= H) reads from a zero area of
# at least W words instead (its address is swapped once per output row).
# A column outside (ix < 0 or ix >= W) reads the clamped column, a real
# pixel, and its column's sum is cleared by a lane mask of 0 bits (all
# ones inside) through v8min, a bytewise minimum on the mul ALU: a bitwise
# and, not a product, so an infinite or NaN edge pixel leaves no NaN in
# its neighbours' pad taps (0 times infinity would). The masks and clamped
# offsets are computed once per vector for the three values of kx and
# serve the three rows. So no lane reads outside the image and no tap
# branches.
#
# DOC: uniforms
# After window.qinc's: the zero area's address, the clamp's low and high
# bound; per task, after window.qinc's: the nine weights (ky-major) and
# the bias.
#
# DOC: per vector
# 18 instructions for the masks and offsets, 9 TMU requests and 12
# instructions of products (the ninth request waits for the first result
# to leave TMU 0's four-deep FIFO), 8 to sum, clamp and write the VPM row,
# 9 to store and loop; per output row 26 more (qpu_ops.c's model).

.include "exit.qinc"
.include "window.qinc"

.set ra_row0, ra5
.set ra_row1, ra6
.set ra_row2, ra7
.set ra_m0, ra11
.set ra_m1, ra12
.set ra_m2, ra13
.set ra_hi, ra15
.set ra_w0, ra16		# ra16..ra24: the nine weights

.set rb_zero, rb9
.set rb_lo, rb10
.set rb_bias, rb11
.set rb_o0, rb14
.set rb_o1, rb15
.set rb_o2, rb16

# Input row iy + @k of this output row: its address, or the zero area's
# when it is outside the image.
.macro row_addr, k, row
	add r0, ra_iy, k
	max r1, r0, 0
	min r1, r1, rb_hm1
	sub.setf -, r1, r0; mul24 r2, r1, rb_w4
	add row, ra_inbase, r2
	mov.ifnz row, rb_zero
.endm

# Column ix + @k of each lane: the clamped byte offset and the mask.
.macro col_mask, k, off, mask
	add r0, ra_ixb, k
	max r1, r0, 0
	min r1, r1, rb_wm1
	sub.setf -, r1, r0; mul24 off, r1, 4
	mov mask, -1
	mov.ifnz mask, 0
.endm

	win_header r:done
	mov rb_zero, unif
	mov rb_lo, unif
	mov ra_hi, unif

:task
	win_task
.rep j, 9
	mov ra_w0 + j, unif
.endr
	mov rb_bias, unif

:row
	row_addr 0, ra_row0
	row_addr 1, ra_row1
	row_addr 2, ra_row2
	win_row

:vec
	col_mask 0, rb_o0, ra_m0
	col_mask 1, rb_o1, ra_m1
	col_mask 2, rb_o2, ra_m2
	# The taps: TMU 0 takes the even ones, TMU 1 the odd ones.
	add t0s, ra_row0, rb_o0
	add t1s, ra_row0, rb_o1
	add t0s, ra_row0, rb_o2
	add t1s, ra_row1, rb_o0
	add t0s, ra_row1, rb_o1
	add t1s, ra_row1, rb_o2
	add t0s, ra_row2, rb_o0
	add t1s, ra_row2, rb_o1
	add r3, ra_row2, rb_o2
	nop; nop; ldtmu0
	mov t0s, r3; fmul r0, r4, ra_w0 + 0
	nop; nop; ldtmu1
	nop; fmul r1, r4, ra_w0 + 1; ldtmu0
	nop; fmul r2, r4, ra_w0 + 2; ldtmu1
	nop; fmul r3, r4, ra_w0 + 3; ldtmu0
	fadd r0, r0, r3; fmul r3, r4, ra_w0 + 4; ldtmu1
	fadd r1, r1, r3; fmul r3, r4, ra_w0 + 5; ldtmu0
	fadd r2, r2, r3; fmul r3, r4, ra_w0 + 6; ldtmu1
	fadd r0, r0, r3; fmul r3, r4, ra_w0 + 7; ldtmu0
	fadd r1, r1, r3; fmul r3, r4, ra_w0 + 8
	fadd r2, r2, r3
	# The columns' sums, masked, plus the bias, clamped.
	nop; v8min r0, r0, ra_m0
	fadd r0, r0, rb_bias; v8min r1, r1, ra_m1
	fadd r0, r0, r1; v8min r2, r2, ra_m2
	fadd r0, r0, r2
	fmax r0, r0, rb_lo
	fmin r0, r0, ra_hi
	win_write r0
	win_store r:vec
	win_next r:row, r:task
:done
	qpu_exit
