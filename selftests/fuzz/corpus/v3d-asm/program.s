1# a loop
.set step, 1
.macro twice op
	op
	op
.endm
loop:
	sub.pushz rf1, rf1, step ; nop
	b.na0  loop
	twice nop
	nop ; nop ; thrsw
	.rep i, 2
	shl rf3, rf3, i ; nop
	.endr
	fmov rf2, rf1 ; nop
