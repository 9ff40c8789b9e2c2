# test-qpu-as: vc4asm's directives and spellings. asm-directives.hex holds
# the words vc4asm 0.3 gives for this file (its data with .float, .half or
# a float in .foreach differs: see libqpu/asm.h).

# data fields, packed from bit 0 of a word upwards
.int 0x11223344, 0x55667788
.short 1, 2, 3
.int 0x44332211
.byte 1, 2, 3
.byte 4
.bit 1, 0, 1, 1
.int4 0xf
.align 8
	nop
y:	nop
.align 32
	thrsw
.align 16, :y
	thrend
.align 16, 8
	ldi r0, 0x1234

# .back: thrsw goes before the last two words
.back 2
	thrsw
.endb

.foreach v, 1, ra2, 3
	mov r1, v
.endfor

# functions, constants, local constants
.set f(a) a + 1
	ldi r2, f(4)
.func g(a)
  .if a > 2
	a * 2
  .else
	a
  .endif
.endf
	ldi r3, g(5)
	ldi r3, g(1)
.const K, 5
.lset L, 7
	ldi r0, K + L

# vc4asm's label references
:1	nop
	brr -, :1
	nop
	nop
	nop
	brr -, :2f
	nop
	nop
	nop
:2	nop

# rotations of a result, pack names, register names
	fmul r0 << 3, r1, r2
	fmul r0 >> r5, r1, r2
	fmul r0, r1 << r5, r2
	add ra0.8888, r1, r2
	add ra0.16ai, r1, r2
	fadd ra0.16af, r1, r2
	add ra0.8asi, r1, r2
	fmul ra0.8888, r1, r2
	fmul r0.8abcd, r1, r2
	mov mutex_rel, 1
	mov r0, mutex_acq
	add ra0.32, r1, r2
	nop; thrend
	nop
	nop
