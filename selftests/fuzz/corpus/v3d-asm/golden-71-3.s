1nop                           ; nop                         ; ldvary.rf5; wrtmuc
nop                           ; nop                         ; ldvary.unifa; wrtmuc
nop                           ; nop                         ; thrsw; ldvary.rf5; wrtmuc
nop                           ; nop                         ; thrsw; ldvary.unifa; wrtmuc
nop                           ; nop                         ; ucb
nop                           ; nop                         ; ldunifa
nop                           ; nop                         ; ldunifarf.rf5
nop                           ; nop                         ; ldunifarf.unifa
nop                           ; nop                         ; ldtmu.rf5; wrtmuc
nop                           ; nop                         ; ldtmu.unifa; wrtmuc
nop                           ; nop                         ; thrsw; ldtmu.rf5; wrtmuc
nop                           ; nop                         ; thrsw; ldtmu.unifa; wrtmuc
add rf1, rf2, rf3             ; smul24 rf4, -16, rf7
add rf1, rf2, rf3             ; smul24 rf4, rf6, 0x43000000
sub.ifa rf1, rf2, rf3         ; add rf4, rf6, rf7
sub rf1, rf2, rf3             ; add.ifnb rf4, rf6, rf7
sub.pushz rf1, rf2, rf3       ; add rf4, rf6, rf7
sub rf1, rf2, rf3             ; add.pushn rf4, rf6, rf7
sub.andz rf1, rf2, rf3        ; add rf4, rf6, rf7
sub rf1, rf2, rf3             ; add.norc rf4, rf6, rf7
sub.ifb rf1, rf2, rf3         ; add.pushc rf4, rf6, rf7
sub.pushn rf1, rf2, rf3       ; add.ifna rf4, rf6, rf7
sub.ifnb rf1, rf2, rf3        ; add.ifa rf4, rf6, rf7
sub.nornn rf1, rf2, rf3       ; add.ifb rf4, rf6, rf7
sub.andnz rf1, rf2, rf3       ; add rf4, rf6, rf7
sub.nornz rf1, rf2, rf3       ; add rf4, rf6, rf7
sub.norz rf1, rf2, rf3        ; add rf4, rf6, rf7
sub.andn rf1, rf2, rf3        ; add rf4, rf6, rf7
sub.andnn rf1, rf2, rf3       ; add rf4, rf6, rf7
sub.norn rf1, rf2, rf3        ; add rf4, rf6, rf7
sub.andc rf1, rf2, rf3        ; add rf4, rf6, rf7
sub.andnc rf1, rf2, rf3       ; add rf4, rf6, rf7
sub.nornc rf1, rf2, rf3       ; add rf4, rf6, rf7
sub.pushc rf1, rf2, rf3       ; add rf4, rf6, rf7
fadd rf1.l, rf2.abs, rf3.h    ; nop
fsub rf1.h, rf2.l, rf3        ; nop
vfpack rf1, rf2.l, rf3.h      ; nop
fround rf1.l, rf2.h           ; nop
ftoiz rf1, rf2.l              ; nop
vfmin rf1, rf2.swp, rf3       ; nop
fmov rf1.h, rf2.sat           ; nop
fmov rf1, rf2.max0            ; nop
mov rf1, rf2.ih               ; nop
nop                           ; fmul rf4.h, rf6.abs, rf7.l
nop                           ; fmov rf4.l, rf6.h
nop                           ; fmov rf4.h, rf6.abs
nop                           ; vfmul rf4, rf6.ff, rf7
nop                           ; mov rf4, rf6.ul
