# SPDX-License-Identifier: MIT
#
# qpu_preprocess() on VideoCore IV: v3d/preproc.qasm's arithmetic (see
# there and preproc.c). What differs: the TMU reads
# words, so each tap's byte is shifted out (by address << 3: the ALU
# reads 5 bits) and masked; the colour section's words are operands read
# straight from the uniform stream, which unif_addr points at again for
# every vector (and at the row section for every row); R, G and B go to
# the program's VPM rows 3k..3k+2 and out with VCD DMA stores: NCHW three
# horizontal stores of a row each, NHWC one vertical store of 16 columns
# of 3 words (R, G, B of a pixel next to each other); the last vector of
# a row stores only the row's remaining pixels (the tail setup word).
# Quantised, each lane packs its R, G, B bytes into one word (R in bits
# 7:0) and writes it, >> 8 and >> 16: NCHW through an 8-bit packed write
# setup (the low bytes, 16 a vector, to bytes 0-15, 16-31 and 32-47 of row
# 3k) and three 8-bit row stores; NHWC to rows 3k..3k+2 and one 8-bit
# vertical store of bytes 0-2 of 16 columns of row 3k.
#
# Uniforms: preproc.c's enum preproc_unif in order (the window's first 24
# words, the VideoCore IV words after them: this window's address, the
# vw_setup word of row 3k, the full and the tail VDW setup words, the
# stores a vector, the bytes between their addresses, the setup word's
# step between them, the bytes a vector), then the row and colour
# sections, which the program reads again through unif_addr.

.include "exit.qinc"

.set ra_fx0, ra0
.set ra_xlo, ra1
.set ra_nvec, ra3
.set ra_y, ra4
.set ra_rows, ra5
.set ra_out, ra6
.set ra_fy, ra7
.set ra_rowp, ra8
.set ra_colp, ra9
.set ra_stores, ra10
.set ra_ra0, ra11
.set ra_ra1, ra12
.set ra_ra2, ra13
.set ra_x, ra14
.set ra_vleft, ra15
.set ra_outc, ra16
.set ra_wy, ra17
.set ra_xa, ra18
.set ra_xb, ra19
.set ra_xl, ra20
.set ra_Y, ra21
.set ra_U, ra22
.set ra_V, ra23
.set ra_R, ra24
.set ra_G, ra25
.set ra_B, ra26
.set ra_iwm1, ra27
.set ra_t0, ra29
.set ra_t1, ra30
.set ra_t2, ra31

.set rb_hs0, rb0
.set rb_hs1, rb1
.set rb_hs2, rb2
.set rb_m0, rb3
.set rb_m1, rb4
.set rb_m2, rb5
.set rb_stepx, rb6
.set rb_xhi, rb7
.set rb_ox, rb8
.set rb_inv, rb9
.set rb_255f, rb10
.set rb_255i, rb11
.set rb_rowb, rb12
.set rb_vw, rb13
.set rb_vdwf, rb14
.set rb_vdwt, rb15
.set rb_sstep, rb16
.set rb_vdwstep, rb17
.set rb_vbytes, rb18
.set rb_rb0, rb19
.set rb_rb1, rb20
.set rb_rb2, rb21
.set rb_wx, rb22
.set rb_16, rb23
.set rb_big, rb24
.set rb_wm1, rb25
.set rb_oxr, rb26
.set rb_t0, rb27
.set rb_t1, rb28
.set rb_t2, rb29

# Row section temporaries.
.set ra_b0, ra21
.set ra_b1, ra22
.set ra_b2, ra23
.set ra_vs0, ra24
.set ra_vs1, ra25
.set ra_vs2, ra26
.set rb_stepy, rb31
.set ra_ylo, ra30
.set ra_yhi, ra31
.set rb_oy, rb30
.set ra_ihm1, ra19

# @dst = component (@hs, @m, rows @rowa, @rowb) interpolated: its four
# taps through TMU0, each byte shifted out of its word.
.macro comp, hs, m, rowa, rowb, dst
	shr r0, ra_xa, hs
	shr r1, ra_xb, hs
	nop; mul24 r0, r0, m
	nop; mul24 r1, r1, m
	add r2, rowa, r0
	add r3, rowa, r1; mov t0s, r2
	add r0, r0, rowb; mov t0s, r3
	add r1, r1, rowb; mov t0s, r0
	shl r2, r2, 3; mov t0s, r1
	shl r3, r3, 3
	shl r0, r0, 3
	shl r1, r1, 3
	nop; nop; ldtmu0
	shr r2, r4, r2; nop; ldtmu0
	shr r3, r4, r3; nop; ldtmu0
	shr r0, r4, r0; nop; ldtmu0
	shr r1, r4, r1
	and r2, r2, rb_255i
	and r3, r3, rb_255i
	and r0, r0, rb_255i
	and r1, r1, rb_255i
	itof r2, r2
	itof r3, r3
	itof r0, r0
	itof r1, r1
	fsub r3, r3, r2
	nop; fmul r3, r3, rb_wx
	fadd r2, r2, r3			# top
	fsub r1, r1, r0
	nop; fmul r1, r1, rb_wx
	fadd r0, r0, r1			# bottom
	fsub r0, r0, r2
	nop; fmul r0, r0, ra_wy
	fadd dst, r2, r0
.endm

# @dst = the colour row (m0, m1, m2, k: the next four uniforms) of Y, U,
# V, clamped to [0, 255].
.macro convert, dst
	nop; fmul r0, ra_Y, unif
	nop; fmul r1, ra_U, unif
	fadd r0, r0, r1; fmul r1, ra_V, unif
	fadd r0, r0, r1
	fadd r0, r0, unif
	fmax r0, r0, 0
	fmin dst, r0, rb_255f
.endm

# @dst = @reg clamped to [0, qrange (r1)], truncated, + qmin (r2), its
# low byte.
.macro quantise, reg, dst
	fmax r0, reg, 0
	fmin r0, r0, r1
	ftoi r0, r0
	add r0, r0, r2
	and dst, r0, rb_255i
.endm

# @reg = @reg * a + b (the next two uniforms).
.macro normalise, reg
	nop; fmul r0, reg, unif
	fadd reg, r0, unif
.endm

	mov rb_hs0, unif
	mov rb_hs1, unif
	mov rb_hs2, unif
	mov rb_m0, unif
	mov rb_m1, unif
	mov rb_m2, unif
	mov ra_fx0, unif
	mov rb_stepx, unif
	mov ra_xlo, unif
	mov rb_xhi, unif
	mov rb_ox, unif
	mov ra_iwm1, unif
	mov rb_wm1, unif
	mov -, unif			# pixel bytes: the DMA stores know
	mov -, unif			# channel bytes
	mov -, unif			# V3D's byte config
	mov ra_nvec, unif
	mov ra_y, unif
	mov ra_rows, unif
	mov ra_out, unif
	mov rb_rowb, unif
	mov ra_fy, unif
	mov rb_inv, unif
	mov rb_255f, unif
	mov r0, unif			# this window's address
	mov rb_vw, unif
	mov rb_vdwf, unif
	mov rb_vdwt, unif
	mov ra_stores, unif
	mov rb_sstep, unif
	mov rb_vdwstep, unif
	mov.setf -, ra_rows
	brr.allz -, r:done
	mov rb_vbytes, unif
	ldi r1, 128			# the row section: 32 words in
	add ra_rowp, r0, r1
	ldi r1, 184			# the colour section: 14 words more
	add ra_colp, r0, r1
	ldi rb_255i, 255
	ldi rb_16, 16
	ldi rb_big, 0x40000000		# a column no lane reaches

:1	# an output row
	mov unif_addr, ra_rowp
	asr r0, ra_fy, rb_16		# y0
	shl r1, r0, rb_16
	sub r1, ra_fy, r1		# its weight, 16 bits
	mov ra_b0, unif			# B0-2
	mov ra_b1, unif
	mov ra_b2, unif
	mov rb_t0, unif			# S0-2
	mov rb_t1, unif
	mov rb_t2, unif
	mov ra_vs0, unif		# vs0-2
	mov ra_vs1, unif
	mov ra_vs2, unif
	mov rb_stepy, unif
	mov ra_ylo, unif
	mov ra_yhi, unif
	mov rb_oy, unif
	mov ra_ihm1, unif
	itof r1, r1
	nop; fmul ra_wy, r1, rb_inv
	max r2, r0, ra_ylo
	min r2, r2, ra_yhi		# ya
	add r3, r0, 1
	max r3, r3, ra_ylo
	min r3, r3, ra_yhi		# yb
	shr r0, r2, ra_vs0
	shr r1, r3, ra_vs0; mul24 r0, r0, rb_t0
	nop; mul24 r1, r1, rb_t0
	add ra_ra0, r0, ra_b0
	add rb_rb0, r1, ra_b0
	shr r0, r2, ra_vs1
	shr r1, r3, ra_vs1; mul24 r0, r0, rb_t1
	nop; mul24 r1, r1, rb_t1
	add ra_ra1, r0, ra_b1
	add rb_rb1, r1, ra_b1
	shr r0, r2, ra_vs2
	shr r1, r3, ra_vs2; mul24 r0, r0, rb_t2
	nop; mul24 r1, r1, rb_t2
	add ra_ra2, r0, ra_b2
	add rb_rb2, r1, ra_b2
	sub r0, ra_y, rb_oy		# a row of the image area?
	max r1, r0, 0
	min r1, r1, ra_ihm1
	xor.setf -, r1, r0
	mov rb_oxr, rb_ox
	mov.ifnz rb_oxr, rb_big		# no: every lane is outside
	add ra_fy, ra_fy, rb_stepy
	add ra_y, ra_y, 1
	mov ra_x, elem_num
	mov ra_vleft, ra_nvec
	mov ra_outc, ra_out
	add ra_out, ra_out, rb_rowb
:2	# 16 pixels of the row
	min r0, ra_x, rb_wm1		# x, the row's last for lanes past it
	mov ra_xl, r0; mul24 r1, r0, rb_stepx
	add r1, r1, ra_fx0		# fx
	asr r2, r1, rb_16		# x0
	shl r3, r2, rb_16
	sub r3, r1, r3
	itof r3, r3
	nop; fmul rb_wx, r3, rb_inv
	max r0, r2, ra_xlo
	min ra_xa, r0, rb_xhi
	add r1, r2, 1
	max r1, r1, ra_xlo
	min ra_xb, r1, rb_xhi
	nop
	comp rb_hs0, rb_m0, ra_ra0, rb_rb0, ra_Y
	comp rb_hs1, rb_m1, ra_ra1, rb_rb1, ra_U
	comp rb_hs2, rb_m2, ra_ra2, rb_rb2, ra_V
	mov unif_addr, ra_colp
	sub r0, ra_xl, rb_oxr		# a column of the image area?
	max r1, r0, 0
	min r1, r1, ra_iwm1
	xor ra_t0, r1, r0
	convert ra_R
	convert ra_G
	convert ra_B
	mov.setf -, ra_t0
	mov r0, unif			# pad
	mov.ifnz ra_R, r0
	mov.ifnz ra_G, r0
	mov.ifnz ra_B, r0
	normalise ra_R
	normalise ra_G
	normalise ra_B
	mov -, unif			# V3D's write config
	mov.setf r1, unif		# qrange: 0 for a float tensor
	brr.allz -, r:4f
	mov r2, unif			# qmin
	nop
	nop
	quantise ra_R, r3
	quantise ra_G, r0
	shl r0, r0, 8
	or r3, r3, r0
	quantise ra_B, r0
	shl r0, r0, rb_16
	or r3, r3, r0			# the pixel's bytes R, G, B
	mov ra_R, r3
	shr ra_G, r3, 8
	shr ra_B, r3, rb_16
:4	# out through the VPM
	mov vw_setup, rb_vw
	mov vpm, ra_R
	mov vpm, ra_G
	mov vpm, ra_B
	sub.setf -, ra_vleft, 1		# the row's last vector: its tail
	mov r0, rb_vdwf
	mov.ifz r0, rb_vdwt
	mov r1, ra_outc
	mov r2, ra_stores
:3	# the stores
	mov vw_setup, r0
	mov vw_addr, r1
	mov -, vw_wait
	add r0, r0, rb_vdwstep
	sub.setf r2, r2, 1
	brr.anynz -, r:3b
	add r1, r1, rb_sstep
	nop
	nop
	add ra_outc, ra_outc, rb_vbytes
	add ra_x, ra_x, rb_16
	sub.setf ra_vleft, ra_vleft, 1
	brr.anynz -, r:2b
	nop
	nop
	nop
	sub.setf ra_rows, ra_rows, 1
	brr.anynz -, r:1b
	nop
	nop
	nop
:done
	qpu_exit
