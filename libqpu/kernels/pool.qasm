# SPDX-License-Identifier: MIT
#
# pool: MaxPool and AveragePool of any window, strides and pads, and
# GlobalAveragePool as the window of the whole plane, on up to 12 QPUs
# (host side: window.c). The work, the stores and the common uniforms are
# window.qinc's. Each tap is one TMU lookup of 16 lanes at the clamped
# column of the clamped row, taken (fmax or fadd under a condition) only
# in the lanes whose tap is inside the input: so a max never sees a pad
# and no lane reads outside the image.
#
# An average divides by the window's count, which ONNX takes inside the
# image (count_include_pad 0) or inside the padded image (1): per lane
# (min(x0 + kw, XHI) - max(x0, XLO)) x (min(y0 + kh, YHI) - max(y0, YLO)),
# the host giving the bounds, times the SFU's reciprocal after one
# Newton step (2 - c r) r.
#
# DOC: global pooling
# GlobalAveragePool is a window of the whole plane, and one output a
# plane would use one lane of 16. So the host lays the channels across
# the lanes instead: 16 channels (or all C, if C is no multiple of 16)
# are one "plane" of H x W rows and 16 (C) columns, whose rows are 4
# bytes apart and columns a channel (H x W x 4 bytes) apart; its window
# is H x W by 1, its one output row the 16 (C) channels' averages.
#
# DOC: uniforms
# After window.qinc's: 1 for an average (0: max), kh, kw, XLO, XHI, YLO,
# YHI, the column pitch in bytes (4 but for global pooling). Tasks have
# only window.qinc's.
#
# DOC: per vector
# 4 + 6 per window row + 7 per tap (the TMU's latency shows, as one
# request is in flight), 10 for the average's division, 11 to write,
# store and loop.

.include "exit.qinc"
.include "window.qinc"

.set ra_row, ra5
.set ra_yd, ra6
.set ra_kx, ra7
.set ra_ky, ra11
.set ra_iyc, ra12
.set ra_cy, ra13

.set rb_kh, rb9
.set rb_kw, rb10
.set rb_xlo, rb11
.set rb_xhi, rb14
.set rb_ylo, rb15
.set rb_yhi, rb16
.set rb_xpitch, rb17

# The loops of one kind of pooling: @avg 1 for an average, else 0.
.macro pool_loops, avg
:1	# a task
	win_task
:2	# a row
.if avg
	add r0, ra_iy, rb_kh		# the rows the window counts
	min r0, r0, rb_yhi
	max r1, ra_iy, rb_ylo
	sub ra_cy, r0, r1
.endif
	win_row
:3	# a vector
.if avg
	ldi r2, 0
.else
	ldi r2, 0xff800000		# -infinity
.endif
	mov ra_iyc, ra_iy
	mov ra_ky, rb_kh
:4	# a window row: clamped, and how far it was moved (0: inside)
	max r1, ra_iyc, 0
	min r1, r1, rb_hm1
	sub ra_yd, r1, ra_iyc; mul24 r1, r1, rb_w4
	add ra_row, ra_inbase, r1
	mov r3, ra_ixb
	mov ra_kx, rb_kw
:5	# a tap: taken where neither its column nor its row was moved
	max r1, r3, 0
	min r1, r1, rb_wm1
	sub r0, r1, r3; mul24 r1, r1, rb_xpitch
	add t0s, ra_row, r1
	sub.setf ra_kx, ra_kx, 1
	brr.anynz -, r:5b
	or.setf -, r0, ra_yd; nop; ldtmu0
.if avg
	fadd.ifz r2, r2, r4
.else
	fmax.ifz r2, r2, r4
.endif
	add r3, r3, 1
	sub.setf ra_ky, ra_ky, 1
	brr.anynz -, r:4b
	add ra_iyc, ra_iyc, 1
	nop
	nop
.if avg
	add r0, ra_ixb, rb_kw		# the count: columns x rows
	min r0, r0, rb_xhi
	max r1, ra_ixb, rb_xlo
	sub r0, r0, r1
	mul24 r0, r0, ra_cy
	max r0, r0, 1
	itof r0, r0
	mov recip, r0
	ldi r1, 0x40000000		# 2.0
	nop
	fmul r3, r0, r4
	fsub r3, r1, r3
	fmul r3, r3, r4
	fmul r2, r2, r3
.endif
	win_write r2
	win_store r:3b
	win_next r:2b, r:1b
.endm

	win_header r:done
	mov r0, unif			# an average?
	mov rb_kh, unif
	mov rb_kw, unif
	mov rb_xlo, unif
	mov rb_xhi, unif
	mov rb_ylo, unif
	mov rb_yhi, unif
	mov rb_xpitch, unif
	mov.setf -, r0
	brr.anynz -, r:avg
	nop
	nop
	nop
	pool_loops 0
	brr -, r:done
	nop
	nop
	nop
:avg
	pool_loops 1
:done
	qpu_exit
