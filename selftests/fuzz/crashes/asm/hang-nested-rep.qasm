.rep 65536
.rep 65536
.set A, 1
.endr
.endr
nop; thrend
nop
nop
