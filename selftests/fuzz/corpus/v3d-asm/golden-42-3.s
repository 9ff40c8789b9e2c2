0sub.nornn rf1, rf2, rf3       ; add.ifb rf4, r1, r2
sub.andnz rf1, rf2, rf3       ; add rf4, r1, r2
sub.nornz rf1, rf2, rf3       ; add rf4, r1, r2
sub.norz rf1, rf2, rf3        ; add rf4, r1, r2
sub.andn rf1, rf2, rf3        ; add rf4, r1, r2
sub.andnn rf1, rf2, rf3       ; add rf4, r1, r2
sub.norn rf1, rf2, rf3        ; add rf4, r1, r2
sub.andc rf1, rf2, rf3        ; add rf4, r1, r2
sub.andnc rf1, rf2, rf3       ; add rf4, r1, r2
sub.nornc rf1, rf2, rf3       ; add rf4, r1, r2
sub.pushc rf1, rf2, rf3       ; add rf4, r1, r2
fadd rf1.l, rf2.abs, rf3.h    ; nop
fsub rf1.h, rf2.l, rf3        ; nop
vfpack rf1, rf2.l, rf3.h      ; nop
fround rf1.l, rf2.h           ; nop
ftoiz rf1, rf2.l              ; nop
vfmin rf1, rf2.swp, rf3       ; nop
nop                           ; fmul rf4.h, r1.abs, r2.l
nop                           ; fmov rf4.l, r1.h
nop                           ; fmov rf4.h, r1.abs
nop                           ; vfmul rf4, r1.ff, r2
or tmua, rf2, rf0             ; mov tmud, r1
or unifa, rf2, rf0            ; mov tmuhscm, r1
b  -64
b.anya  256
b.a0p  zero_addr+0x00001000
b.na0q  lri
b.alla  rf7
bu.allna  rf7, a:unif
bu.anyna  24, r:unif
bu.anyna  24, lri
bu.anyna  24, rf9
.long 0x0000000000000000  # no instruction kind (mul op 0, no branch)
.long 0x3c003186bb800001  # fields the text cannot show
.long 0x3f403186bb800000  # reserved signal
.long 0x3c043186bb800000  # reserved condition code
fdx tlb, r0.l                 ; nop
.long 0x3c00319fbb800000  # fields the text cannot show
