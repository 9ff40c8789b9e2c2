# SPDX-License-Identifier: MIT
#
# The synchronisation helpers at work (sync.qinc): every program adds its
# number to one shared VPM row under the mutex, then signals semaphore 0.
# The master first clears the row and lets the others start (semaphore 1),
# and at the end waits for all of them and stores the row (16 words).
#
# Uniforms: value to add, master (1 or 0); the master's go on: programs - 1
# (at least 1), programs, result address.

.include "vpm.qinc"
.include "sync.qinc"
.include "dma.qinc"
.include "exit.qinc"
.include "unif.qinc"

	unif_read ra0			# my value
	mov.setf ra4, unif		# master?
	brr.allz -, r:add
	nop
	nop
	nop
	unif_read ra1			# the others
	vpm_wr_setup h32(0), 1
	mov vpm, 0			# the row starts at 0
:1
	sem_up 1			# release one other program
	sub.setf ra1, ra1, 1
	brr.anynz -, r:1b
	nop
	nop
	nop
	brr -, r:crit
	nop
	nop
	nop
:add
	sem_down 1			# wait until the row is cleared
:crit
	mutex_lock
	vpm_rd_setup 1, h32(0), 1
	nop
	nop
	add r0, vpm, ra0
	vpm_wr_setup h32(0), 1
	mov vpm, r0
	mutex_unlock
	sem_up 0			# done
	mov.setf -, ra4			# master?
	brr.allz -, r:end
	nop
	nop
	nop
	unif_read ra2			# programs
	unif_read ra3			# result address
	sem_join 0, ra2
	dma_st_setup 1, 16, dma_h32(0, 0)
	dma_st_start ra3
:end
	qpu_exit
