1nop                           ; vfmul rf4, rf6, rf7
nop                           ; smul24 rf4, rf6, rf7
nop                           ; multop rf4, rf6, rf7
nop                           ; fmov rf4, rf6
nop                           ; mov rf4, rf6
nop                           ; nop
nop                           ; fmul rf4, rf6, rf7
nop                           ; ftounorm16 rf4, rf6
nop                           ; ftosnorm16 rf4, rf6
nop                           ; vftounorm8 rf4, rf6
nop                           ; vftosnorm8 rf4, rf6
nop                           ; funpackunormlo rf4, rf6
nop                           ; funpackunormhi rf4, rf6
nop                           ; funpacksnormlo rf4, rf6
nop                           ; funpacksnormhi rf4, rf6
nop                           ; vftounorm10lo rf4, rf6
nop                           ; vftounorm10hi rf4, rf6
nop                           ; nop                         ; thrsw
nop                           ; nop                         ; ldunif
nop                           ; nop                         ; thrsw; ldunif
nop                           ; nop                         ; ldtmu.rf5
nop                           ; nop                         ; ldtmu.unifa
nop                           ; nop                         ; thrsw; ldtmu.rf5
nop                           ; nop                         ; thrsw; ldtmu.unifa
nop                           ; nop                         ; ldtmu.rf5; ldunif
nop                           ; nop                         ; ldtmu.unifa; ldunif
nop                           ; nop                         ; thrsw; ldtmu.rf5; ldunif
nop                           ; nop                         ; thrsw; ldtmu.unifa; ldunif
nop                           ; nop                         ; ldvary.rf5
nop                           ; nop                         ; ldvary.unifa
nop                           ; nop                         ; thrsw; ldvary.rf5
nop                           ; nop                         ; thrsw; ldvary.unifa
nop                           ; nop                         ; ldvary.rf5; ldunif
nop                           ; nop                         ; ldvary.unifa; ldunif
nop                           ; nop                         ; thrsw; ldvary.rf5; ldunif
nop                           ; nop                         ; thrsw; ldvary.unifa; ldunif
nop                           ; nop                         ; ldunifrf.rf5
nop                           ; nop                         ; ldunifrf.unifa
nop                           ; nop                         ; thrsw; ldunifrf.rf5
nop                           ; nop                         ; thrsw; ldunifrf.unifa
add rf1, 0x3f800000, rf3      ; smul24 rf4, rf6, rf7
add rf1, rf2, 15              ; smul24 rf4, rf6, rf7
nop                           ; nop                         ; ldtlb.rf5
nop                           ; nop                         ; ldtlb.unifa
nop                           ; nop                         ; ldtlbu.rf5
nop                           ; nop                         ; ldtlbu.unifa
nop                           ; nop                         ; wrtmuc
nop                           ; nop                         ; thrsw; wrtmuc
