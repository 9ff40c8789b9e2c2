.set A, 2
.set B, A * 3 + (1 << 4)
.if A == 1
ldi r0, 1
.elif A == 2
ldi r0, B
.else
ldi r0, 3
.endif
.ifdef B
nop
.endif
.macro addk, d, k
add d, d, k
.endm
addk r0, 1
addk ra3, -4
.rep i, 3
mov ra0+i, i + 16
.endr
.macro jump, target
brr -, target
.endm
jump r:2f
:2
nop
.set F, 1.5
ldi r1, F
ldi vr_setup, vdr_setup_0(3, 16, 16, vdr_h32(1, 0, 0))
ldi vw_setup, vdw_setup_1(64)
