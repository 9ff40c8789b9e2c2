# SPDX-License-Identifier: MIT
#
# sgemm: C = alpha * A * B + beta * C on the 12 QPUs (host side: sgemm.c).
#
# DOC: blocking
# A program owns tiles of W "panel rows" by 16 "lanes", W = 64, 32 or 16:
# one SIMD lane per lane, one register per panel row (c(i) = ra(i/2) for
# even i, rb(i/2) for odd i: the 64 registers hold a 64x16 tile). For each
# k the TMU brings 16 elements of the lane operand into r4 and the uniform
# stream brings the W elements of the panel operand, each broadcast to all
# lanes; every instruction of the inner loop is
#	fadd c(i-1), c(i-1), r0 ; fmul r0, r4, unif
# so the mul unit makes one product while the add unit accumulates the one
# before. Plain: panel rows are rows of C (panel operand alpha * A, lane
# operand B, rows of B through the TMU). Transposed (C^T = B^T A^T):
# panel rows are columns of C (panel operand alpha * B^T, lane operand
# A^T: 16 rows of A gathered by the TMU); the wrapper takes the
# orientation that loads fewer bytes (96x363x3072: transposed, 48 panels
# of 64 columns, 6 lane tiles of 16 rows, no padding anywhere).
#
# The host packs the panel operand k-major, so a whole K x W panel is one
# contiguous uniform stream: unif_addr is written once per tile, not once
# per k (with its two-instruction latency, a pointer per k costs at least
# three issue slots per k: PyVideoCore's 16x64 loop issues 67 instructions
# for 64 products). Per k the loop adds three instructions (see "the k
# loop"); per U = 7 values of k it adds the flag read and the branch,
# whose three delay slots are the last three products. A W = 64 iteration
# issues 7 * 67 + 2 = 471 instructions for 7 * 64 dual-issued products:
# 95.1% of the peak before per-tile costs. U = 7 rather than 8 so that the
# loop (3768 bytes) fits a slice's 4 KiB instruction cache.
#
# DOC: the k loop
# The programs run in step (sgemm.c deals the tiles in rounds of 2 panels
# by 6 lane tiles on 12 QPUs, which they start together), so six read each panel's stream and two
# each lane tile's rows: the first to touch a line takes it from SDRAM,
# the others find it in the L2 (or the slice's TMU cache). A uniform read
# that misses blocks: so at each k TMU 1 reads the lines of the panel's
# stream PREFETCH = 1 value of k on (16 lanes spanning the W words, the
# address the stream's own word), and the uniforms always hit the L2.
# TMU 0 is asked for the lane operand AHEAD = 3 values of k on. A k's head:
#	add r1, r1, r3; ldtmu0		this k's lane operand into r4
#	add t1s, r2, unif		prefetch k + PREFETCH
#	mov t0s, r1			ask for k + AHEAD
# then the W products, the last of which takes the oldest prefetch into
# r4 (ldtmu1): junk that only the head's first instruction overwrites; no
# instruction of the head reads r4, and none may both write a TMU register
# and load r4. The last AHEAD values of k ask for nothing.
# Modelled on a Pi 1 (1024x1024x1024): 8.48 GFLOPS before (the first
# program of each panel took every miss of its stream, 39 M of 63 M cycles,
# and set everyone's pace), 15.49 with the prefetch, 16.12 with the rounds
# and the stores below, as long as the emulator ran the QPUs in its own
# order; in the model's time order 5.73 (the rounds fell out of step) and
# 16.61 with the rounds' barrier below.
#
# DOC: the rounds' barrier
# In step is not stable by itself: with the L2's random replacement, a
# program that falls some hundred values of k behind (1024x1024x1024: one
# whose slice's instruction cache lost the loop while the other three
# stored, 41 K cycles of fetches from a deep SDRAM queue) finds the shared
# lines gone and loads them again; SDRAM, busy 95% of the time in step,
# saturates, and the others drift apart too (5.9 GFLOPS, 259 MB moved).
# So the programs start each round together: at its i-th tile each
# program takes part in a barrier of the programs that have one (sgemm.c,
# sgemm_barriers(); none where the round mixes panel widths). Members
# release ARRIVE and acquire GO; the master (the lowest-numbered program)
# acquires ARRIVE once per member, then releases GO as often. GO is one of
# two semaphores, alternating from barrier to barrier, so that a member a
# barrier ahead cannot take a token meant for one still leaving the one
# before (a member cannot get two ahead: the master waits for all). The
# wait is the spread of a round's programs, some 0.5% in step.
#
# DOC: memory traffic
# Per k and tile: W words of the panel operand (uniforms) and 16 of the
# lane operand (TMU) for 2 * W * 16 FLOP: (W + 16) / (8 W) bytes per FLOP,
# 0.156 for W = 64, as for a 16x64 tile of PyVideoCore's orientation. The
# stream adds a word per k (the prefetch address); TMU 1 reads W words a
# k, mostly from the L2. From SDRAM, a round of 12 tiles in step loads
# each operand once: 2 x 64 + 6 x 16 = 224 values a k for 12 x 2048 FLOP,
# 0.0365 bytes per FLOP (1 x 12: 0.0417; a 64x16 tile alone: 0.156).
# 1024x1024x1024: 80 rounds of 2 x 6 and 5 of 3 x 4 and one of 4 tiles
# load 79.9 MB, C 4.2 MB, the lists 0.3 MB; the model moves 86.1 MB (the
# L2's random replacement evicts some lines before their last reader):
# at its 672 MB/s, 128 ms, 16.7 GFLOPS if SDRAM were never idle. It is
# busy 99% of the time; the QPUs issue 73% of their cycles, wait 17% for
# the TMU, 4% for DMA and 1% at the rounds' barriers.
#
# DOC: edges
# Panel rows: the host pads the last panel up to a multiple of 16 with
# copies of its last valid row and chooses W per panel (64, 32 + 16...) to
# waste the least. Registers of padding rows then hold the last valid
# row's results: in a batch with valid rows their stores go to that row
# (the same values again) or, a DMA per batch, are left out; a batch of
# padding only (whose old C would be read after that row's store) stores
# to a 64-byte dummy area of the scratch buffer. So the code has no branch
# for them. Lanes past the end read the last valid element (clamped TMU
# addresses) and store to the last valid lane's place, the same values
# again. K: the loops never ask the TMU for an element past K - 1 (the
# last AHEAD values of k have their own copies of the body, without
# requests); for K < AHEAD the first requests read row K - 1 again and
# the panel's stream has zero rows up to AHEAD (products of +0 and a
# finite element change no sum: the registers start at +0).
#
# DOC: storing C
# Per batch of BATCH = 4 registers the program writes its own VPM rows
# (program k: rows 4k..4k+3; a QPU's generic VPM accesses reach rows
# 0..63 only, so 4 rows each is what 12 programs fit) and stores them by
# VCD DMA. Plain: one DMA of the batch's valid rows, the VDW stride (bytes
# from one C row part to the next, at most 65535) set once a tile; where
# the pitch is larger (C may have up to 2^20 columns), 4 DMAs of a row
# each. Transposed: 16 stores of a C row part from a VPM column of 4. No
# mutex: the rows are the program's, and each QPU has its own VDW setup,
# as the streaming kernels rely on (stream.qinc). Batches of 8 rows shared
# under the mutex made the QPUs queue for it. The twelve programs of a
# round store at once and queue for the VCD engine: a DMA of 4 rows takes
# it 96 cycles, 4 of a row 144 (1024x1024x1024: DMA waits 6.6% of the
# cycles with a DMA per row, 5.1% with one per batch). Each store waits
# for the one before, and the last wait frees the rows. Per row, the stream
# gives each batch only its first setup and address, the pitch and the
# last valid row (or lane): the setups step by r5, the 8 or 16 addresses
# are computed in the lanes of r0, and each store takes its own by
# rotating r0. With beta != 0 the old C comes in through the TMU, two
# registers ahead, and beta * C is added on the way to the VPM; the
# zeroing of the registers for the next tile rides along.
#
# DOC: the uniform streams
# A program's uniforms are its tile list in the host's scratch buffer, which
# also holds the packed panels. Per tile, in reading order:
#   the round's barrier (0 none, 1 a member, n + 1 the master of n), its
#   GO semaphore (0: SEM_GO, 1: SEM_GO + 1), last valid lane, TMU bytes per lane, AHEAD TMU addresses of the first
#   requests (lane 0), the address of k = AHEAD - 1, TMU bytes per k, the
#   prefetch's bytes per lane (W / 4), PREFETCH prefetch addresses,
#   address of this tile's second part, variant (0: W = 64, 1: 32, 2: 16),
#   address of the panel;
# then the panel's stream (sgemm.c, sgemm_step_word(): a flag whether the
# main loop runs, its values of k, each a prefetch address and W values,
# a closing k's with a flag inside, a flag whether the remainder loop
# runs, its values of k, the last AHEAD's W values each);
# then (second part, read after the k loop):
#   1 if transposed, beta (0 selects the store-only path), last valid lane,
#   bytes per lane of C, [plain: 1 if a DMA per row, the VDW stride setup],
#   [a DMA per row: the VDW setup step (8: a VPM column; 128: a row)],
#   [beta != 0: two old-C addresses], per batch: the VPM write setup,
#   [beta != 0: the old-C addresses two registers ahead], the VDW setup of
#   store 0, [a DMA per row: the last lane of r0 to use (the batch's last
#   valid row, plain; the tile's last valid lane, transposed; 0 for
#   padding), the pitch between the stores' addresses], the first address
#   (the dummy area for padding); and 1 if another tile follows (its first
#   part is next), else 0.
#
# DOC: registers
# r0 products (k loop) or store addresses, r1 TMU addresses (k loop) or
# lane offsets of old C, r2 the prefetch's lane offsets or the VDW setup,
# r3 TMU bytes per k or beta, r4 TMU data, r5 the address of the tile's
# second part, then the VDW setup step.
#
# DOC: measured (make bench: emulator, 12 QPUs; issue = useful FLOP / (32 x
# instructions), bytes per FLOP through TMU + DMA (the panel prefetch
# included, mostly L2 hits) / also counting uniforms, against a
# 16x64-blocked kernel's computed ones)
#	96x363x3072 beta 0: issue 0.9229, 0.0678 / 0.1956 (16x64: 0.0368 / 0.1618)
#	96x363x3072 beta 1: issue 0.9204, 0.0733 / 0.2015 (16x64: 0.0423 / 0.1673)
#	256x256x256:        issue 0.9397, 0.0701 / 0.1978 (16x64: 0.0391 / 0.1641)
#	64x1024x1024:       issue 0.9481, 0.0644 / 0.1918 (16x64: 0.0332 / 0.1582)
# and modelled on a Pi 1, 12 QPUs: 11.25, 10.59, 12.77 and 14.09 GFLOPS;
# 1024x1024x1024 16.61 (129 ms; 1, 4, 8 QPUs: 1193, 295, 160 ms).
# Per 64x16 tile of 96x363x3072 (transposed, K = 363): 23232 products in
# about 25140 instructions, the k loops some 24400 (67 a k). The 16x64
# figures count no setup word and no prefetch at all; the difference in
# the last column is the prefetch addresses, the loop flags and the lists.
# The host's packing is CPU work outside these figures: for 96x363x3072
# (transposed: all of B, 1.1 M floats) about 2 ms of this machine's CPU
# once the device's scratch buffer exists. On a Pi the CPU reads B through
# a write-combined mapping (uncached), which may cost more than the QPUs'
# ~9 ms at 24 GFLOPS; a QPU pass would avoid that but load and store the
# operand once more (+26% bytes for this shape) and issue ~1% more.

.set U, 7				# k values per main-loop iteration
.set AHEAD, 3				# TMU requests in flight (sgemm.c)
.set PREFETCH, 1			# panel prefetches in flight (sgemm.c)
.set BATCH, 4				# registers per store batch (sgemm.c)
.set SEM_ARRIVE, 0			# the rounds' barrier: members arrive
.set SEM_GO, 1				# and 2: the master lets them go

# One inner-loop instruction: accumulate the product of register p, start
# the product of register p + 1.
.macro fma, p
.if ((p) % 2) == 0
	fadd ra0 + (p) / 2, ra0 + (p) / 2, r0; fmul r0, r4, unif
.else
	fadd rb0 + (p) / 2, rb0 + (p) / 2, r0; fmul r0, r4, unif
.endif
.endm

# Products of registers from .. to - 1 of a W-register tile.
.macro fmas, w, from, to
.rep j, (to) - (from)
	fma ((from) + j + (w) - 1) % (w)
.endr
.endm

# The same, taking the oldest panel prefetch into r4 at its end (the fmul
# still reads the old r4): junk, which the next instruction does not read.
.macro fma_drain, p
.if ((p) % 2) == 0
	fadd ra0 + (p) / 2, ra0 + (p) / 2, r0; fmul r0, r4, unif; ldtmu1
.else
	fadd rb0 + (p) / 2, rb0 + (p) / 2, r0; fmul r0, r4, unif; ldtmu1
.endif
.endm

# The head of a k of a loop: this k's lane operand into r4 (over the junk
# of the drain before it), the address moved on; ask TMU 1 for the
# panel's lines PREFETCH values of k on (the address is the stream's next
# word), and TMU 0 for the lane operand AHEAD values of k on. None reads r4.
.macro khead
	add r1, r1, r3; ldtmu0
	add t1s, r2, unif
	mov t0s, r1
.endm

# One k of a loop: the requests, W products, the last drains a prefetch.
.macro kstep, w
	khead
	fmas w, 0, (w) - 1
	fma_drain (w) - 2
.endm

# The closing k of a loop: the stream's flag says whether to go round
# again; the branch goes three instructions before the end, so its delay
# slots are the last three products.
.macro kstep_close, w, target
	khead
	fmas w, 0, (w) - 3
	mov.setf -, unif
	brr.allnz -, target
	fmas w, (w) - 3, (w) - 1
	fma_drain (w) - 2
.endm

# The tile's k loop for W registers: main loop (U values of k a turn),
# remainder loop, then the last AHEAD values of k, which ask for nothing
# (the requests run AHEAD values of k ahead, and none goes past K - 1).
# Whether each loop runs at all is a flag of the stream before it.
.macro kloop, w, main, rem, after_main, final
	mov.setf -, unif
	brr.allz -, after_main
	nop
	nop
	nop
main:
.rep u, U - 1
	kstep w
.endr
	kstep_close w, main
after_main:
	mov.setf -, unif
	brr.allz -, final
	nop
	nop
	nop
rem:
	kstep_close w, rem
final:
.rep u, AHEAD
	nop; ldtmu0
	fmas w, 0, w
.endr
.endm

# Store-only path (beta = 0): 8 registers into the VPM rows, zeroing them
# for the next tile.
.macro store_rows, first
.rep j, BATCH
.if (((first) + j) % 2) == 0
	mov vpm, ra0 + ((first) + j) / 2; v8subs ra0 + ((first) + j) / 2, r0, r0
.else
	mov vpm, rb0 + ((first) + j) / 2; v8subs rb0 + ((first) + j) / 2, r0, r0
.endif
.endr
.endm

# beta != 0: VPM row = beta * old C (already in r4) + c(i), c(i) zeroed;
# the add unit asks for the old C two registers ahead when @ask, ldtmu0
# brings the next one when @load.
.macro blend_row, i, ask, load
.if ask
	add t0s, r1, unif; fmul r0, r4, r3
.else
	nop; fmul r0, r4, r3
.endif
.if ((i) % 2) == 0
.if load
	fadd vpm, ra0 + (i) / 2, r0; v8subs ra0 + (i) / 2, r0, r0; ldtmu0
.else
	fadd vpm, ra0 + (i) / 2, r0; v8subs ra0 + (i) / 2, r0, r0
.endif
.else
.if load
	fadd vpm, rb0 + (i) / 2, r0; v8subs rb0 + (i) / 2, r0, r0; ldtmu0
.else
	fadd vpm, rb0 + (i) / 2, r0; v8subs rb0 + (i) / 2, r0, r0
.endif
.endif
.endm

# The DMA stores of one batch: @n stores of one memory row each (a row
# stride over 65535 bytes does not fit the VDW stride setup, and a wide C
# has them), each store waiting for the one before; the last wait frees
# the VPM rows for the next batch.
# Plain, @n = BATCH: store j writes row j of the batch from VPM row j;
# transposed, @n = 16: store j writes lane j's C row part from VPM column
# j. Setups step by r5 (a VPM row or column); the addresses are computed
# into r0, lane j's being min(j, last) * pitch + first (last: the batch's
# last valid row, or the tile's last valid lane), and store j takes lane
# j's by rotation.
.macro store_batch, n
	mov r2, unif				# VDW setup of store 0
	min r0, elem_num, unif			# min(j, last)
	mul24 r0, r0, unif			# x pitch
	add r0, r0, unif			# + the first address
.rep j, n
	mov vw_setup, r2; mov -, vw_wait
.if j == 0
	add r2, r2, r5; mov vw_addr, r0
.else
	add r2, r2, r5; mov vw_addr, r0 << j
.endif
.endr
	mov -, vw_wait
.endm

# The start of a batch: the VPM write setup of the program's rows.
.macro batch_start
	mov vw_setup, unif			# VPM write setup
.endm

# The start of the stores: the last product goes in, the stream moves to the
# tile's second part, and the flags say transposed (then to @tstore) and,
# after the branch, beta != 0.
.macro wb_head, w, tstore
.if (((w) - 1) % 2) == 0
	fadd ra0 + ((w) - 1) / 2, ra0 + ((w) - 1) / 2, r0; mov unif_addr, r5; ldtmu1
.else
	fadd rb0 + ((w) - 1) / 2, rb0 + ((w) - 1) / 2, r0; mov unif_addr, r5; ldtmu1
.endif
.rep a, PREFETCH - 1
	nop; ldtmu1				# the last panel prefetches
.endr
.rep a, 3 - PREFETCH
	nop					# unif_addr's latency
.endr
	mov.setf -, unif			# 1: C transposed
	brr.anynz -, tstore
	mov.setf r3, unif			# beta
	min r0, elem_num, unif			# last valid lane
	mul24 r1, r0, unif			# lane offsets in C
.endm

# The stores of a tile of @w registers, batches of 8 with @n = 8 row
# stores each, or (@n = 16) transposed with a store per lane.
.macro wb_body, w, n, blend
	brr.anynz -, blend
	mov r5rep, unif				# VDW setup step between stores
	nop
	nop
.rep b, (w) / BATCH
	batch_start
	store_rows BATCH * b
	store_batch n
.endr
	brr -, r:tile_next
	nop
	nop
	nop
blend:
	add t0s, r1, unif			# old row 0
	add t0s, r1, unif			# old row 1
	nop; ldtmu0
.rep b, (w) / BATCH
	batch_start
.rep j, BATCH
	blend_row BATCH * b + j, (BATCH * b + j + 2) < (w), (BATCH * b + j + 1) < (w)
.endr
	store_batch n
.endr
	brr -, r:tile_next
	nop
	nop
	nop
.endm

# The store of a batch in one DMA: its valid rows from the program's VPM
# rows, the stride set once a tile; the wait frees the rows.
.macro store_strided
	mov vw_setup, unif			# VDW setup: valid rows x lanes
	mov vw_addr, unif			# the first row (or the dummy area)
	mov -, vw_wait
.endm

# The stores of a tile as is, a DMA per batch; unless the stream says the
# pitch is too large for the VDW stride (then to @rstore: a DMA per row).
.macro wb_strided, w, rstore, blend
	mov.setf -, unif			# 1: a DMA per row
	brr.anynz -, rstore
	mov vw_setup, unif			# VDW stride: pitch - row
	mov.setf -, r3				# beta
	nop
	brr.anynz -, blend
	nop
	nop
	nop
.rep b, (w) / BATCH
	batch_start
	store_rows BATCH * b
	store_strided
.endr
	brr -, r:tile_next
	nop
	nop
	nop
blend:
	add t0s, r1, unif			# old row 0
	add t0s, r1, unif			# old row 1
	nop; ldtmu0
.rep b, (w) / BATCH
	batch_start
.rep j, BATCH
	blend_row BATCH * b + j, (BATCH * b + j + 2) < (w), (BATCH * b + j + 1) < (w)
.endr
	store_strided
.endr
	brr -, r:tile_next
	nop
	nop
	nop
.endm

# Everything after the k loop of a W-row tile: C as is (a DMA per batch,
# or BATCH stores of a row per batch) or transposed (16 stores of a column
# part per batch).
.macro writeback, w, tstore, blend, rstore, rblend, tblend
	wb_head w, tstore
	wb_strided w, rstore, blend
rstore:
	wb_body w, BATCH, rblend
tstore:
	wb_body w, 16, tblend
.endm

# --- program start ---------------------------------------------------------

.rep i, 32
	mov ra0 + i, 0; mov rb0 + i, 0
.endr

:tile
	mov.setf r0, unif			# barrier: 0 none, 1 member, n + 1 master
	brr.anyz -, r:tile_go
	mov.setf -, unif			# which GO semaphore: 0 or 1
	sub r0, r0, 1				# n: members to wait for (0: a member)
	nop
	brr.anynz -, r:tile_odd
	mov.setf -, r0
	nop
	nop
	brr.anynz -, r:tile_even_master
	nop
	nop
	nop
	srel -, SEM_ARRIVE
	sacq -, SEM_GO
	brr -, r:tile_go
	nop
	nop
	nop
:tile_even_master
	mov r1, r0
:tile_even_join
	sub.setf r0, r0, 1
	sacq -, SEM_ARRIVE
	brr.anynz -, r:tile_even_join
	nop
	nop
	nop
:tile_even_go
	sub.setf r1, r1, 1
	srel -, SEM_GO
	brr.anynz -, r:tile_even_go
	nop
	nop
	nop
	brr -, r:tile_go
	nop
	nop
	nop
:tile_odd
	brr.anynz -, r:tile_odd_master
	nop
	nop
	nop
	srel -, SEM_ARRIVE
	sacq -, SEM_GO + 1
	brr -, r:tile_go
	nop
	nop
	nop
:tile_odd_master
	mov r1, r0
:tile_odd_join
	sub.setf r0, r0, 1
	sacq -, SEM_ARRIVE
	brr.anynz -, r:tile_odd_join
	nop
	nop
	nop
:tile_odd_go
	sub.setf r1, r1, 1
	srel -, SEM_GO + 1
	brr.anynz -, r:tile_odd_go
	nop
	nop
	nop
:tile_go
	min r0, elem_num, unif			# last valid lane
	mul24 r0, r0, unif			# x lane stride
.rep a, AHEAD
	add t0s, r0, unif			# ask for k = a (at most K - 1)
.endr
	add r1, r0, unif			# that of k = AHEAD - 1
	mov r3, unif				# bytes from one k to the next
	mul24 r2, elem_num, unif		# panel prefetch lane offsets
.rep a, PREFETCH
	add t1s, r2, unif			# the panel's lines of k = a
.endr
	mov r5rep, unif				# second part
	mov.setf r0, unif			# variant
	mov unif_addr, unif			# the panel
	brr.anyz -, r:w64
	sub.setf -, r0, 1
	mov r0, 0
	nop
	brr.anyz -, r:w32
	nop
	nop
	nop
	brr -, r:w16
	nop
	nop
	nop

:w64
	kloop 64, w64_main, w64_rem, w64_after, w64_final
	writeback 64, w64_t, w64_blend, w64_r, w64_rblend, w64_tblend
:w32
	kloop 32, w32_main, w32_rem, w32_after, w32_final
	writeback 32, w32_t, w32_blend, w32_r, w32_rblend, w32_tblend
:w16
	kloop 16, w16_main, w16_rem, w16_after, w16_final
	writeback 16, w16_t, w16_blend, w16_r, w16_rblend, w16_tblend

:tile_next
	mov.setf -, unif			# another tile?
	brr.anynz -, r:tile
	nop
	nop
	nop
	nop; thrend
	nop
	nop
