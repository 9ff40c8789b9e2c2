1vpmwt rf1                     ; nop
flafirst rf1                  ; nop
flnafirst rf1                 ; nop
ldvpmv_in rf1, rf2            ; nop
ldvpmv_out rf1, rf2           ; nop
ldvpmd_in rf1, rf2            ; nop
ldvpmd_out rf1, rf2           ; nop
ldvpmp rf1, rf2               ; nop
rsqrt rf1, rf2                ; nop
exp rf1, rf2                  ; nop
log rf1, rf2                  ; nop
sin rf1, rf2                  ; nop
rsqrt2 rf1, rf2               ; nop
ldvpmg_in rf1, rf2, rf3       ; nop
ldvpmg_out rf1, rf2, rf3      ; nop
fcmp rf1, rf2, rf3            ; nop
fround rf1, rf2               ; nop
ftoin rf1, rf2                ; nop
ftrunc rf1, rf2               ; nop
ftoiz rf1, rf2                ; nop
ffloor rf1, rf2               ; nop
ftouz rf1, rf2                ; nop
fceil rf1, rf2                ; nop
ftoc rf1, rf2                 ; nop
fdx rf1, rf2                  ; nop
fdy rf1, rf2                  ; nop
stvpmv rf2, rf3               ; nop
stvpmd rf2, rf3               ; nop
stvpmp rf2, rf3               ; nop
itof rf1, rf2                 ; nop
clz rf1, rf2                  ; nop
utof rf1, rf2                 ; nop
fmov rf1, rf2                 ; nop
mov rf1, rf2                  ; nop
vpack rf1, rf2, rf3           ; nop
v8pack rf1, rf2, rf3          ; nop
v10pack rf1, rf2, rf3         ; nop
v11fpack rf1, rf2, rf3        ; nop
ballot rf1, rf2               ; nop
bcastf rf1, rf2               ; nop
alleq rf1, rf2                ; nop
allfeq rf1, rf2               ; nop
rotq rf1, rf2, rf3            ; nop
rot rf1, rf2, rf3             ; nop
shuffle rf1, rf2, rf3         ; nop
nop                           ; add rf4, rf6, rf7
nop                           ; sub rf4, rf6, rf7
nop                           ; umul24 rf4, rf6, rf7
