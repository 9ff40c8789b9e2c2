# SPDX-License-Identifier: MIT
# qpu-as and qpu-check test input: the same work without hazards.
.macro load, reg
	mov reg, unif
.endm
	load ra1
	mov r2, unif
	mov r0, ra1
	mov recip, r0
	nop
	nop
	mov r1, r4
	mov t0s, r1
	nop; ldtmu0
	nop; thrend
	nop
	nop
