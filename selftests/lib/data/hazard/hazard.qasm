# SPDX-License-Identifier: MIT
# qpu-as and qpu-check test input: a program with three hazards.
.macro load, reg
	mov reg, unif
.endm
	load ra1
	mov r0, ra1		# regfile-raw: ra1 was written just before
	mov recip, r0
	nop
	mov r1, r4		# sfu-r4-read: one instruction too early
	mov t0s, r1
	nop; ldtmu0
	nop; thrend
	nop
	mov r2, unif		# thrend-io: a uniform read at thread end
