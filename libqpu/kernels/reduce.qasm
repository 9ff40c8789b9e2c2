# SPDX-License-Identifier: MIT
#
# Sum, minimum and maximum of a float vector in one pass. Every program
# folds its own run of 16-float vectors (TMU0 loads) into three 16-lane
# partials and writes them to the VPM: its rows k (sums), 16 + k (minima)
# and 32 + k (maxima). Then it releases semaphore 0 and, unless it is the
# master, ends. The master acquires the semaphore once per program, folds
# the rows of every program, reduces the 16 lanes with vector rotations,
# and stores sum, min and max (three floats) with one VCD DMA store from
# VPM rows 48..50 (three memory rows of one word, stride 0: set here, as
# nothing says a QPU resets the last program's stride).
#
# Uniforms: x (bus address of this program's first vector), vectors
# (0 allowed), vw_setup word of the partials (row k, stride 16), master
# (1 or 0); the master's go on: programs, vr_setup words of the sum, min and
# max rows, vw_setup word of rows 48.., VDW setup word (3 rows of 1 word),
# result address.

.include "dma.qinc"
.include "exit.qinc"
.include "sync.qinc"

.set ra_x, ra0
.set ra_n, ra1
.set rb_vw, rb0
.set rb_64, rb1
.set ra_cnt, ra2
.set rb_progs, rb2
.set ra_i, ra3

	mov ra_x, unif
	mov.setf ra_n, unif
	mov rb_vw, unif
	ldi r0, 0			# sums
	ldi r1, 0x7f800000		# minima: +infinity
	brr.allz -, r:2f
	ldi r2, 0xff800000		# maxima: -infinity
	shl r3, elem_num, 2		# byte offset of each lane
	ldi rb_64, 64			# bytes per vector
:1
	add t0s, ra_x, r3
	sub.setf ra_n, ra_n, 1
	add ra_x, ra_x, rb_64; nop; ldtmu0
	brr.anynz -, r:1b
	fadd r0, r0, r4
	fmin r1, r1, r4
	fmax r2, r2, r4
:2
	mov vw_setup, rb_vw
	mov vpm, r0
	mov vpm, r1
	mov vpm, r2
	sem_up 0			# my partials are in the VPM
	mov.setf -, unif		# master?
	brr.allz -, r:done
	nop
	nop
	nop

	# The master: wait for every program's partials.
	mov r3, unif
	mov ra_cnt, r3; mov rb_progs, r3
	nop
	sem_join 0, ra_cnt

# Fold the 16-lane rows of all programs into @acc (initial value @init) with
# @op; the rows come from the read setup in the next uniform.
.macro fold, op, acc, init
	mov vr_setup, unif
	mov ra_i, rb_progs
	ldi acc, init
	nop
:3
	sub.setf ra_i, ra_i, 1
	brr.anynz -, r:3b
	op acc, acc, vpm
	nop
	nop
.endm
	fold fadd, r0, 0
	fold fmin, r1, 0x7f800000
	fold fmax, r2, 0xff800000

	# Lanes: after rotating by 8, 4, 2 and 1 every lane holds the result.
.rep s, 4
	nop; v8min r3, r0, r0 >> (8 >> s)
	fadd r0, r0, r3; v8min r3, r1, r1 >> (8 >> s)
	fmin r1, r1, r3; v8min r3, r2, r2 >> (8 >> s)
	fmax r2, r2, r3
.endr
	mov vw_setup, unif
	mov vpm, r0
	mov vpm, r1
	mov vpm, r2
	dma_st_stride 0			# the rows follow each other
	mov vw_setup, unif
	mov vw_addr, unif
:done
	qpu_exit
