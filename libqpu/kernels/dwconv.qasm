# SPDX-License-Identifier: MIT
#
# dwconv: a depthwise 3x3 convolution (one channel per group, as MobileNet
# uses it) with stride, pads, bias and a clamp (the fused ReLU or ReLU6),
# on up to 12 QPUs (host side: dwconv.c).
#
# DOC: work
# The output is C planes of OH rows of OW floats; the host deals the C x OH
# rows out to the programs in runs of consecutive rows (qpu_kernel_split),
# cut into tasks of one channel each. A task's row is computed 16 outputs
# at a time, one per lane: lane l of vector v is output column
# x = 16 v + l, and reads input column ix = x * stride - pad_left + kx
# of rows iy = oy * stride - pad_top + ky, one TMU lookup per tap (the
# nine taps of 16 lanes overlap; the slice's TMU cache serves the
# repeats).
#
# DOC: pads
# A row outside the input (iy < 0 or iy >= H) reads from a zero area of
# at least W words instead (its address is swapped once per output row).
# A column outside (ix < 0 or ix >= W) reads the clamped column, a real
# pixel, and its column's sum is multiplied by a lane mask of 0.0 (1.0
# inside): the masks and clamped offsets are computed once per vector for
# the three values of kx and serve the three rows. So no lane reads
# outside the image and no tap branches; the host checks nothing but the
# shapes. Lanes past OW compute junk that the store leaves out.
#
# DOC: storing
# Each program owns one VPM row (program k: row k) and stores a vector
# with one VCD DMA store of 16 words, the last vector of an output row
# only OW - 16 (nvec - 1) of them (the tail setup). The store runs while
# the next vector's taps are computed; the program waits for it before it
# writes the row again.
#
# DOC: uniforms
# Per program: tasks (0 allowed), W - 1, H - 1, W * 4, OW * 4, 16 * stride
# (the column step of a vector), stride, pad_left, vectors per row, the
# vw_setup word of its VPM row, the VDW setup of a whole vector and of the
# row's last one, the zero area's address, the clamp's low and high bound.
# Per task: the channel's input plane, the address of its first output
# row, that row's first input row (oy * stride - pad_top, may be
# negative), rows, the nine weights (ky-major) and the bias.
#
# DOC: per vector
# 21 instructions for the masks and offsets, 9 TMU requests and 12
# instructions of products (the ninth request waits for the first result
# to leave TMU 0's four-deep FIFO), 8 to sum, clamp and write the VPM row,
# 9 to store and loop; per output row 19 more.

.include "exit.qinc"

.set ra_ntasks, ra0
.set ra_inbase, ra1
.set ra_orow, ra2
.set ra_iy, ra3
.set ra_nrows, ra4
.set ra_row0, ra5
.set ra_row1, ra6
.set ra_row2, ra7
.set ra_ixb, ra8
.set ra_v, ra9
.set ra_outp, ra10
.set ra_m0, ra11
.set ra_m1, ra12
.set ra_m2, ra13
.set ra_vdwt, ra14
.set ra_hi, ra15
.set ra_w0, ra16		# ra16..ra24: the nine weights

.set rb_wm1, rb0
.set rb_hm1, rb1
.set rb_w4, rb2
.set rb_ow4, rb3
.set rb_ixstep, rb4
.set rb_s, rb5
.set rb_nvec, rb6
.set rb_vw, rb7
.set rb_vdwf, rb8
.set rb_zero, rb9
.set rb_lo, rb10
.set rb_bias, rb11
.set rb_ixb0, rb12
.set rb_64, rb13
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
	mov mask, 1.0
	mov.ifnz mask, 0
.endm

	mov.setf ra_ntasks, unif
	brr.allz -, r:done
	mov rb_wm1, unif
	mov rb_hm1, unif
	mov rb_w4, unif
	mov rb_ow4, unif
	mov rb_ixstep, unif
	mov r0, unif			# stride
	mov rb_s, r0; mul24 r1, elem_num, r0
	sub rb_ixb0, r1, unif		# - pad_left
	mov rb_nvec, unif
	mov rb_vw, unif
	mov rb_vdwf, unif
	mov ra_vdwt, unif
	mov rb_zero, unif
	mov rb_lo, unif
	mov ra_hi, unif
	ldi rb_64, 64

:task
	mov ra_inbase, unif
	mov ra_orow, unif
	mov ra_iy, unif
	mov ra_nrows, unif
.rep j, 9
	mov ra_w0 + j, unif
.endr
	mov rb_bias, unif

:row
	row_addr 0, ra_row0
	row_addr 1, ra_row1
	row_addr 2, ra_row2
	mov ra_v, rb_nvec
	mov ra_ixb, rb_ixb0
	mov ra_outp, ra_orow

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
	nop; fmul r0, r0, ra_m0
	fadd r0, r0, rb_bias; fmul r1, r1, ra_m1
	fadd r0, r0, r1; fmul r2, r2, ra_m2
	fadd r0, r0, r2
	fmax r0, r0, rb_lo
	mov -, vw_wait			# the last store has left our row
	mov vw_setup, rb_vw
	fmin vpm, r0, ra_hi
	# Store it: the row's last vector takes the tail setup.
	sub.setf ra_v, ra_v, 1
	mov r1, rb_vdwf
	mov.ifz r1, ra_vdwt
	mov vw_setup, r1
	mov vw_addr, ra_outp
	brr.anynz -, r:vec
	add ra_outp, ra_outp, rb_64
	add ra_ixb, ra_ixb, rb_ixstep
	nop

	sub.setf ra_nrows, ra_nrows, 1
	brr.anynz -, r:row
	add ra_orow, ra_orow, rb_ow4
	add ra_iy, ra_iy, rb_s
	nop

	sub.setf ra_ntasks, ra_ntasks, 1
	brr.anynz -, r:task
	nop
	nop
	nop
:done
	qpu_exit
