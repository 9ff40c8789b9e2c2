1or tmua, rf2, rf3             ; mov tmud, rf6
or unifa, rf2, rf3            ; mov tmuhscm, rf6
b  -64
b.anya  256
b.a0p  zero_addr+0x00001000
b.na0q  lri
b.alla  rf7
bu.allna  rf7, a:unif
bu.anyna  24, r:unif
bu.anyna  24, lri
bu.anyna  24, rf9
.long 0x3ae03186bb03f000  # reserved signal
.long 0x0200000100000000  # reserved branch condition or msfign
.long 0x02ffffc0ff001001  # fields the text cannot show
