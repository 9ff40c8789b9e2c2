fadd r0, r1, r2; fmul r3, r1, r2
fadd.ifz.setf ra1.16a, ra2.16b, unif; fmul.ifnn r3, ra2.16b, r1
add rb1, ra2, rb3; mul24 ra3, ra2, rb3
v8min r0, r1 >> 2, r1 >> 2
fmul r0, r1 << r5, r2
itof r0, r1; ldtmu0
mov r2, r4; ldtmu1
shl r1, elem_num, 2
add t0s, r1, unif
anop.ifz ra1
nop; mnop rb1
add r0, r1, -16; fmul r2, r3, -16
ldipes r0, [0, 1, -2, -1, 0, 1, -2, -1, 1, 1, 1, 1, 0, 0, -2, -1]
ldipeu ra5, [0, 1, 2, 3, 3, 2, 1, 0, 0, 0, 0, 3, 3, 3, 1, 2]
ldi r0.ifz, r1.ifnn, 0x10
sacq -, 3
srel -, ra1, 15
brr.anyz r1, ra2, +16
bra -, 0x1000
.long 0xe400000000000000
