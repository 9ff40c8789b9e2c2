0fadd rf1, rf2, rf3            ; nop
faddnf rf1, rf3, rf2          ; nop
vfpack rf1, rf2, rf3          ; nop
add rf1, rf2, rf3             ; nop
sub rf1, rf2, rf3             ; nop
fsub rf1, rf2, rf3            ; nop
min rf1, rf2, rf3             ; nop
max rf1, rf2, rf3             ; nop
umin rf1, rf2, rf3            ; nop
umax rf1, rf2, rf3            ; nop
shl rf1, rf2, rf3             ; nop
shr rf1, rf2, rf3             ; nop
asr rf1, rf2, rf3             ; nop
ror rf1, rf2, rf3             ; nop
fmin rf1, rf2, rf3            ; nop
fmax rf1, rf3, rf2            ; nop
vfmin rf1, rf2, rf3           ; nop
and rf1, rf2, rf3             ; nop
or rf1, rf2, rf3              ; nop
xor rf1, rf2, rf3             ; nop
vadd rf1, rf2, rf3            ; nop
vsub rf1, rf2, rf3            ; nop
not rf1, rf2                  ; nop
neg rf1, rf2                  ; nop
flapush rf1, rf2              ; nop
flbpush rf1, rf2              ; nop
flpop rf1, rf2                ; nop
recip rf1, rf2                ; nop
setmsf rf1, rf2               ; nop
setrevf rf1, rf2              ; nop
nop                           ; nop
tidx rf1                      ; nop
eidx rf1                      ; nop
lr rf1                        ; nop
vfla rf1                      ; nop
vflna rf1                     ; nop
vflb rf1                      ; nop
vflnb rf1                     ; nop
fxcd rf1                      ; nop
xcd rf1                       ; nop
fycd rf1                      ; nop
ycd rf1                       ; nop
msf rf1                       ; nop
revf rf1                      ; nop
vdwwt rf1                     ; nop
sampid rf1                    ; nop
barrierid rf1                 ; nop
tmuwt rf1                     ; nop
