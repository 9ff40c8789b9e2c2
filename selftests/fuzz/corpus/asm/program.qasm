# a loop, a subroutine call and a DMA store
.set COUNT, 10
	mov ra2, unif
	mov r0, elem_num
	ldi ra1, COUNT
	or r1, 0, 0
loop:
	add r1, r1, r0
	sub.setf ra1, ra1, 1
	brr.anynz -, loop
	nop
	nop
	nop
	brr ra0, add7
	nop
	nop
	nop
	ldi vw_setup, vpm_setup(0, 1, h32(0))
	mov vpm, r1
	ldi vw_setup, vdw_setup_0(1, 16, dma_h32(0, 0))
	mov vw_addr, ra2
	nop; read vw_wait
	nop; thrend
	nop
	nop
add7:
	add r1, r1, 7
	bra -, ra0, 0
	nop
	nop
	nop
