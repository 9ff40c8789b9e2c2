# Each lane stores eidx + uniform 1 at uniform 0 + 4 * eidx, then the
# thread ends (the last switch as two thrsw in a row): the program
# test-qpu-run-v3d.sh and test_v3d_device.py dispatch on emu:v3d42/v3d71.
nop ; nop ; ldunifrf.rf10
nop ; nop ; ldunifrf.rf11
eidx rf12 ; nop
shl rf13, rf12, 2 ; nop
add rf10, rf10, rf13 ; nop
add rf12, rf12, rf11 ; nop
nop ; mov tmud, rf12
nop ; mov tmua, rf10
tmuwt - ; nop
nop ; nop ; thrsw
nop ; nop ; thrsw
nop ; nop
nop ; nop
nop ; nop ; thrsw
nop ; nop
nop ; nop
