0nop                           ; nop                         ; ldtmu.r4
nop                           ; nop                         ; thrsw; ldtmu.rf5
nop                           ; nop                         ; thrsw; ldtmu.r4
nop                           ; nop                         ; ldtmu.rf5; ldunif
nop                           ; nop                         ; ldtmu.r4; ldunif
nop                           ; nop                         ; thrsw; ldtmu.rf5; ldunif
nop                           ; nop                         ; thrsw; ldtmu.r4; ldunif
nop                           ; nop                         ; ldvary.rf5
nop                           ; nop                         ; ldvary.r4
nop                           ; nop                         ; thrsw; ldvary.rf5
nop                           ; nop                         ; thrsw; ldvary.r4
nop                           ; nop                         ; ldvary.rf5; ldunif
nop                           ; nop                         ; ldvary.r4; ldunif
nop                           ; nop                         ; thrsw; ldvary.rf5; ldunif
nop                           ; nop                         ; thrsw; ldvary.r4; ldunif
nop                           ; nop                         ; ldunifrf.rf5
nop                           ; nop                         ; ldunifrf.r4
nop                           ; nop                         ; thrsw; ldunifrf.rf5
nop                           ; nop                         ; thrsw; ldunifrf.r4
add rf1, rf2, -1              ; smul24 rf4, r1, r2          ; ldvary.rf5
add rf1, rf2, -1              ; smul24 rf4, r1, r2          ; ldvary.r4
add rf1, rf2, -1              ; smul24 rf4, r1, r2
nop                           ; nop                         ; ldtlb.rf5
nop                           ; nop                         ; ldtlb.r4
nop                           ; nop                         ; ldtlbu.rf5
nop                           ; nop                         ; ldtlbu.r4
nop                           ; nop                         ; wrtmuc
nop                           ; nop                         ; thrsw; wrtmuc
nop                           ; nop                         ; ldvary.rf5; wrtmuc
nop                           ; nop                         ; ldvary.r4; wrtmuc
nop                           ; nop                         ; thrsw; ldvary.rf5; wrtmuc
nop                           ; nop                         ; thrsw; ldvary.r4; wrtmuc
nop                           ; nop                         ; ucb
nop                           ; nop                         ; rot
nop                           ; nop                         ; ldunifa
nop                           ; nop                         ; ldunifarf.rf5
nop                           ; nop                         ; ldunifarf.r4
add rf1, rf2, -1              ; smul24 rf4, r1, r2          ; ldtmu.rf5
add rf1, rf2, -1              ; smul24 rf4, r1, r2          ; ldtmu.r4
sub.ifa rf1, rf2, rf3         ; add rf4, r1, r2
sub rf1, rf2, rf3             ; add.ifnb rf4, r1, r2
sub.pushz rf1, rf2, rf3       ; add rf4, r1, r2
sub rf1, rf2, rf3             ; add.pushn rf4, r1, r2
sub.andz rf1, rf2, rf3        ; add rf4, r1, r2
sub rf1, rf2, rf3             ; add.norc rf4, r1, r2
sub.ifb rf1, rf2, rf3         ; add.pushc rf4, r1, r2
sub.pushn rf1, rf2, rf3       ; add.ifna rf4, r1, r2
sub.ifnb rf1, rf2, rf3        ; add.ifa rf4, r1, r2
