0vpmsetup rf1, rf2             ; nop
vpmwt rf1                     ; nop
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
vfmax rf1, rf2, rf3           ; nop
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
nop                           ; add rf4, r1, r2
nop                           ; sub rf4, r1, r2
nop                           ; umul24 rf4, r1, r2
nop                           ; vfmul rf4, r1, r2
nop                           ; smul24 rf4, r1, r2
nop                           ; multop rf4, r1, r2
nop                           ; fmov rf4, r1
nop                           ; mov rf4, r1
nop                           ; nop
nop                           ; fmul rf4, r1, r2
nop                           ; nop                         ; thrsw
nop                           ; nop                         ; ldunif
nop                           ; nop                         ; thrsw; ldunif
nop                           ; nop                         ; ldtmu.rf5
