/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QPU programs the tests and benchmarks run, as encoded instruction words
 * with the disassembly beside each (qpu-dis prints the same text). Shared
 * by the kselftests (static, no libqpu), the stress test and the library's
 * runtime test, so each program exists once.
 */
#ifndef QPU_PROGRAMS_H
#define QPU_PROGRAMS_H

#include <stdint.h>

#define QPU_PROG_NOP		0x100009e7009e7000ull	/* nop */
#define QPU_PROG_THREND		0x300009e7009e7000ull	/* nop; thrend */
#define QPU_PROG_LOOP		0xf0f809e7ffffffe0ull	/* brr -, -32 (itself) */

/* Ends at once. */
static const uint64_t qpu_prog_end[] __attribute__((unused)) = {
	QPU_PROG_THREND, QPU_PROG_NOP, QPU_PROG_NOP,
};

/* Never ends: a branch to itself and its three delay slots. */
static const uint64_t qpu_prog_loop[] __attribute__((unused)) = {
	QPU_PROG_LOOP, QPU_PROG_NOP, QPU_PROG_NOP, QPU_PROG_NOP,
};

/*
 * Counts 12000 down, five instructions a turn: 60004 instructions in all,
 * within the 62500 of a 1 ms timeout on a device that times by progress.
 */
#define QPU_PROG_COUNT_INSTRUCTIONS	60004
static const uint64_t qpu_prog_count[] __attribute__((unused)) = {
	0xe002082700002ee0ull,	/* ldi r0, 0x2ee0 */
	0xd00228270d9c11c0ull,	/* sub.setf r0, r0, 1 */
	0xf03809e7ffffffd8ull,	/* brr.anynz -, -40 */
	QPU_PROG_NOP, QPU_PROG_NOP, QPU_PROG_NOP,
	QPU_PROG_THREND, QPU_PROG_NOP, QPU_PROG_NOP,
};

/*
 * Never ends, and moves the most memory one instruction can: a VCD DMA
 * store of UNITS=DEPTH=0, 128 rows of 128 words from the VPM, to the
 * address in its first uniform (QPU_PROG_DMA_LOOP_BYTES there), each turn.
 */
#define QPU_PROG_DMA_LOOP_BYTES	(128 * 128 * 4)
static const uint64_t qpu_prog_dma_loop[] __attribute__((unused)) = {
	0xe0021c6780004000ull,	/* ldi vw_setup, 0x80004000 */
	0x1002082715827d80ull,	/* mov r0, unif */
	0x10021ca7159e7000ull,	/* mov vw_addr, r0 */
	0x100009e7159f2fc0ull,	/* mov -, vw_wait */
	0xf0f809e7ffffffd0ull,	/* brr -, -48 */
	QPU_PROG_NOP, QPU_PROG_NOP, QPU_PROG_NOP,
};

/* Reads the word at the address in its first uniform through TMU 0. */
static const uint64_t qpu_prog_tmu_read[] __attribute__((unused)) = {
	0x10020e2715827d80ull,	/* or t0s, unif, unif */
	0xa00009e7009e7000ull,	/* nop; ldtmu0 */
	QPU_PROG_THREND, QPU_PROG_NOP, QPU_PROG_NOP,
};

/*
 * Points its uniform stream at the address in its first uniform (two
 * instructions before the next read, as the hardware needs), then reads the
 * word at the address it finds there through TMU 0: a job that reads
 * uniforms outside its first window, and shows which word it read by the
 * TMU access (a fault names the address).
 */
static const uint64_t qpu_prog_unif_redirect[] __attribute__((unused)) = {
	0x10020a2715827d80ull,	/* mov unif_addr, unif */
	QPU_PROG_NOP, QPU_PROG_NOP,
	0x10020e2715827d80ull,	/* mov t0s, unif */
	0xa00009e7009e7000ull,	/* nop; ldtmu0 */
	QPU_PROG_THREND, QPU_PROG_NOP, QPU_PROG_NOP,
};

/*
 * Two programs that wait forever: at QPU_PROG_DEADLOCK_SEM_OFFSET an
 * acquire of semaphore 3 (nothing releases it), at
 * QPU_PROG_DEADLOCK_TMU_OFFSET an ldtmu0 with no TMU request before it.
 */
#define QPU_PROG_DEADLOCK_SEM_OFFSET	0
#define QPU_PROG_DEADLOCK_SEM		3
#define QPU_PROG_DEADLOCK_TMU_OFFSET	32
static const uint64_t qpu_prog_deadlock[] __attribute__((unused)) = {
	0xe80009e700000013ull,	/* sacq -, 3 */
	QPU_PROG_THREND, QPU_PROG_NOP, QPU_PROG_NOP,
	0xa00009e7009e7000ull,	/* nop; ldtmu0 */
	QPU_PROG_THREND, QPU_PROG_NOP, QPU_PROG_NOP,
};

/* Raises its QPU's host interrupt, then ends. */
static const uint64_t qpu_prog_host_irq[] __attribute__((unused)) = {
	0xe00209a700000001ull,	/* ldi irq, 1 (host_int) */
	QPU_PROG_THREND, QPU_PROG_NOP, QPU_PROG_NOP,
};

/*
 * Each QPU adds a 16-float slice of A and B, read with TMU lookups, and
 * stores its slice of C through VPM row k with a VCD DMA store. Uniforms of
 * QPU k: A + 64k, B + 64k, C + 64k, k.
 */
#define QPU_PROG_VECTOR_ADD_UNIFORMS	4
static const uint64_t qpu_prog_vector_add[] __attribute__((unused)) = {
	0xd002086711982dc0ull,	/* shl r1, elem_num, 2 */
	0x10020e270c827380ull,	/* add t0s, r1, unif */
	0x10020e270c827380ull,	/* add t0s, r1, unif */
	0xa00009e7009e7000ull,	/* nop; ldtmu0 */
	0xa00208a7159e7900ull,	/* mov r2, r4; ldtmu0 */
	0x100208e7019e7500ull,	/* fadd r3, r2, r4 */
	0x1002006715827d80ull,	/* mov ra1, unif */
	0x100200a715827d80ull,	/* mov ra2, unif */
	0xe00208a700001a00ull,	/* ldi r2, 0x1a00 */
	0x10021c670c0a7580ull,	/* add vw_setup, r2, ra2 */
	0x10020c27159e76c0ull,	/* mov vpm, r3 */
	0xd002082711087dc0ull,	/* shl r0, ra2, 7 */
	0xe00208a780904000ull,	/* ldi r2, 0x80904000 */
	0x10021c670c9e7400ull,	/* add vw_setup, r2, r0 */
	0x10021ca715067d80ull,	/* mov vw_addr, ra1 */
	0x100009e7009f2000ull,	/* nop; read vw_wait */
	0x300009e7009e7000ull,	/* nop; thrend */
	0x100009e7009e7000ull,	/* nop */
	0x100009e7009e7000ull,	/* nop */
};

/*
 * Sets up vertical 32-bit VPM writes once at address 0x20 (column 0 of rows
 * 32..47) with stride 0 (64) and writes 1, then 2: the second address,
 * 0x60, decodes as 0x20 on the hardware (a QPU addresses 64 rows), so 2
 * overwrites 1. Stores that column as 16 words at the address in its
 * uniform. The emulators count one wrapped access, or fault on it with
 * their strict VPM check.
 */
#define QPU_PROG_VPM_WRAP_UNIFORMS	1
static const uint64_t qpu_prog_vpm_wrap[] __attribute__((unused)) = {
	0xe0021c6700000220ull,	/* ldi vw_setup, 0x220 */
	0xe0020c2700000001ull,	/* ldi vpm, 1 */
	0xe0020c2700000002ull,	/* ldi vpm, 2 */
	0xe0021c6780901000ull,	/* ldi vw_setup, vdw_setup_0(1, 16, dma_v32(32, 0)) */
	0x10021ca715827d80ull,	/* or vw_addr, unif, unif */
	0x100009e7159f2fc0ull,	/* or -, vw_wait, vw_wait */
	QPU_PROG_THREND, QPU_PROG_NOP, QPU_PROG_NOP,
};

/*
 * A vertical VCD DMA load of 16 memory rows of one word, 64 bytes apart
 * (setup 0x80101800: VPITCH 1, column 0): the hardware adds VPITCH to the
 * row, so the words fill rows 0..15 of column 0, which a vertical store
 * writes back as 16 consecutive words. Uniforms: source, destination.
 */
#define QPU_PROG_VDR_COLUMN_UNIFORMS	2
static const uint64_t qpu_prog_vdr_column[] __attribute__((unused)) = {
	0xe0020c6790000040ull,	/* ldi vr_setup, vdr_setup_1(64) */
	0xe0020c6780101800ull,	/* ldi vr_setup, 0x80101800 */
	0x10020ca715827d80ull,	/* or vr_addr, unif, unif */
	0x100009e715ca7d80ull,	/* or -, vr_wait, vr_wait */
	0xe0021c6780900000ull,	/* ldi vw_setup, vdw_setup_0(1, 16, dma_v32(0, 0)) */
	0x10021ca715827d80ull,	/* or vw_addr, unif, unif */
	0x100009e7159f2fc0ull,	/* or -, vw_wait, vw_wait */
	QPU_PROG_THREND, QPU_PROG_NOP, QPU_PROG_NOP,
};

#endif /* QPU_PROGRAMS_H */
