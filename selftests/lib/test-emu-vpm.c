// SPDX-License-Identifier: MIT
/*
 * test-emu-vpm: the 8- and 16-bit VPM modes. Generic (QPU) writes and reads,
 * horizontal and vertical, packed and laned, with strides, and VCD DMA
 * loads and stores in 8- and 16-bit widths with byte/halfword selects,
 * each against the VPM or memory image computed by hand from the layout
 * qpu_emu_vpm.c documents (vpm_elem() and "DOC: VCD DMA widths").
 */
#include "qpu_vpm.h"
#include "test-emu.h"

/* Generic block setup; size 0 = 8-bit, 1 = 16-bit, 2 = 32-bit. */
#define GEN(num, stride, horiz, laned, size, addr) \
	((uint32_t)(num) << 20 | (uint32_t)(stride) << 12 | \
	 (uint32_t)(horiz) << 11 | (uint32_t)(laned) << 10 | \
	 (uint32_t)(size) << 8 | (uint32_t)(addr))
#define VDR(modew, rowlen, nrows, vpitch, vert, base) \
	(0x80000000u | (uint32_t)(modew) << 28 | ((rowlen) & 15u) << 20 | \
	 ((nrows) & 15u) << 16 | ((vpitch) & 15u) << 12 | \
	 (uint32_t)(vert) << 11 | (uint32_t)(base))
#define VDR_PITCH(bytes)	(0x90000000u | (bytes))
#define VDW(units, depth, horiz, base, modew) \
	(0x80000000u | ((units) & 127u) << 23 | ((depth) & 127u) << 16 | \
	 (uint32_t)(horiz) << 14 | (uint32_t)(base) << 3 | (modew))
#define VDW_STRIDE(bytes)	(0xc0000000u | (bytes))

/* The 8-bit and 16-bit test values of element i. */
#define E8(i)		((uint32_t)(i) * 0x11u)
#define E16(i)		((uint32_t)(i) * 0x1111u)
#define FILL		0xaaaaaaaau

/* r0 = elem_num * @k */
static void emit_elem_times(struct prog *p, uint32_t k)
{
	struct qpu_isa_instr in;

	emit(p, i_ldi(W_R2, k));
	in = i_mul(QPU_ISA_M_MUL24, W_R0, QPU_ISA_MUX_A, QPU_ISA_MUX_R2);
	in.raddr_a = R_ELEM;
	emit(p, in);
}

/* Fill 16 words (a row, or a column of a 16-row block) with FILL. */
static void emit_fill(struct prog *p, bool horiz, uint32_t addr)
{
	emit(p, i_ldi_b(W_VPM_SETUP, GEN(0, 1, horiz, 0, 2, addr)));
	emit(p, i_ldi(W_VPM, FILL));
}

/* ra@reg = one vector read with generic setup @setup */
static void emit_read(struct prog *p, uint32_t setup, unsigned int reg)
{
	struct qpu_isa_instr in;

	emit(p, i_ldi(W_VPM_SETUP, setup));
	in = i_mov(reg, QPU_ISA_MUX_A);
	in.raddr_a = R_VPM;
	emit(p, in);
}

static uint32_t vpm_byte(const uint32_t *vpm, unsigned int row,
			 unsigned int col, unsigned int b)
{
	return (vpm[row * 16 + col] >> (8 * b)) & 0xff;
}

static uint32_t vpm_half(const uint32_t *vpm, unsigned int row,
			 unsigned int col, unsigned int h)
{
	return (vpm[row * 16 + col] >> (16 * h)) & 0xffff;
}

/* Lane i of regfile A register @reg of QPU 0 holds want(i). */
static void expect_lanes(struct qpu_emu *emu, unsigned int reg,
			 uint32_t (*want)(unsigned int))
{
	uint32_t r[16];

	T_EQ_U64(0, qpu_emu_get_reg(emu, 0, QPU_EMU_FILE_A, reg, r));
	for (unsigned int i = 0; i < 16; i++)
		T_EQ_U64(want(i), r[i]);
}

static uint32_t want_e8(unsigned int i)
{
	return E8(i);
}

static uint32_t want_e16(unsigned int i)
{
	return E16(i);
}

static uint32_t want_e8_2(unsigned int i)
{
	return E8(i) ^ 0xff;
}

/*
 * Horizontal 8-bit: packed {Y=3, B=2} is bytes 32..47 of row 3 (words
 * 8..11); laned {Y=4, B=1} is byte 1 of each word of row 4; the other bytes
 * keep their FILL. A packed write with stride 1 from {Y=8, B=0} puts its two
 * vectors in words 0..3 and 4..7. Each reads back zero-extended.
 */
T_TEST(horizontal_8)
{
	struct qpu_emu *emu = t_emu_new(0);
	struct prog p = prog_at(CODE_BASE);
	const uint32_t *vpm;
	struct qpu_isa_instr in;

	emit_fill(&p, true, 3);
	emit_fill(&p, true, 4);
	emit_elem_times(&p, 0x11);
	emit(&p, i_ldi_b(W_VPM_SETUP, GEN(0, 1, 1, 0, 0, 3 * 4 + 2)));
	emit(&p, i_mov(W_VPM, QPU_ISA_MUX_R0));
	emit(&p, i_ldi_b(W_VPM_SETUP, GEN(0, 1, 1, 1, 0, 4 * 4 + 1)));
	emit(&p, i_mov(W_VPM, QPU_ISA_MUX_R0));
	/* two packed vectors, the second = r0 ^ 0xff, stride 1 */
	emit(&p, i_ldi_b(W_VPM_SETUP, GEN(0, 1, 1, 0, 0, 8 * 4)));
	emit(&p, i_mov(W_VPM, QPU_ISA_MUX_R0));
	emit(&p, i_ldi(W_R1, 0xff));
	in = i_add(QPU_ISA_A_XOR, W_VPM, QPU_ISA_MUX_R0, QPU_ISA_MUX_R1);
	emit(&p, in);
	emit_read(&p, GEN(1, 1, 1, 0, 0, 3 * 4 + 2), 3);
	emit_read(&p, GEN(1, 1, 1, 1, 0, 4 * 4 + 1), 4);
	emit_read(&p, GEN(1, 1, 1, 0, 0, 8 * 4 + 1), 5);
	emit_end(&p);
	T_EQ_U64(QPU_EMU_IDLE, t_run1(emu, CODE_BASE, UNIF_BASE));
	vpm = qpu_emu_get_vpm(emu);
	for (unsigned int w = 0; w < 16; w++) {
		uint32_t packed = FILL;

		if (w >= 8 && w < 12)
			packed = E8(4 * (w - 8)) | E8(4 * (w - 8) + 1) << 8 |
				E8(4 * (w - 8) + 2) << 16 |
				E8(4 * (w - 8) + 3) << 24;
		T_EQ_U64(packed, vpm[3 * 16 + w]);
		T_EQ_U64((FILL & ~0xff00u) | E8(w) << 8, vpm[4 * 16 + w]);
	}
	for (unsigned int i = 0; i < 16; i++) {
		T_EQ_U64(E8(i), vpm_byte(vpm, 8, i / 4, i % 4));
		T_EQ_U64(E8(i) ^ 0xff, vpm_byte(vpm, 8, 4 + i / 4, i % 4));
	}
	T_EQ_U64(0, vpm[8 * 16 + 8]);
	expect_lanes(emu, 3, want_e8);
	expect_lanes(emu, 4, want_e8);
	expect_lanes(emu, 5, want_e8_2);
	free(emu);
}

/*
 * Horizontal 16-bit: packed {Y=5, H=1} is halfwords 16..31 of row 5 (words
 * 8..15); laned {Y=6, H=1} the high half of each word of row 6.
 */
T_TEST(horizontal_16)
{
	struct qpu_emu *emu = t_emu_new(0);
	struct prog p = prog_at(CODE_BASE);
	const uint32_t *vpm;

	emit_fill(&p, true, 5);
	emit_fill(&p, true, 6);
	emit_elem_times(&p, 0x1111);
	emit(&p, i_ldi_b(W_VPM_SETUP, GEN(0, 1, 1, 0, 1, 5 * 2 + 1)));
	emit(&p, i_mov(W_VPM, QPU_ISA_MUX_R0));
	emit(&p, i_ldi_b(W_VPM_SETUP, GEN(0, 1, 1, 1, 1, 6 * 2 + 1)));
	emit(&p, i_mov(W_VPM, QPU_ISA_MUX_R0));
	emit_read(&p, GEN(1, 1, 1, 0, 1, 5 * 2 + 1), 3);
	emit_read(&p, GEN(1, 1, 1, 1, 1, 6 * 2 + 1), 4);
	emit_end(&p);
	T_EQ_U64(QPU_EMU_IDLE, t_run1(emu, CODE_BASE, UNIF_BASE));
	vpm = qpu_emu_get_vpm(emu);
	for (unsigned int w = 0; w < 16; w++) {
		uint32_t packed = w < 8 ? FILL :
			E16(2 * (w - 8)) | E16(2 * (w - 8) + 1) << 16;

		T_EQ_U64(packed, vpm[5 * 16 + w]);
		T_EQ_U64((FILL & 0xffff) | E16(w) << 16, vpm[6 * 16 + w]);
	}
	expect_lanes(emu, 3, want_e16);
	expect_lanes(emu, 4, want_e16);
	free(emu);
}

/*
 * Vertical: 8-bit laned {Y=16, X=3, B=2} is byte 2 of column 3, rows
 * 16..31; 8-bit packed {Y=16, X=5, B=3} bytes 48..63 of column 5 of that
 * block (rows 28..31, four a word); 16-bit laned {Y=32, X=7, H=1} the high
 * half of column 7, rows 32..47; 16-bit packed {Y=32, X=9, H=0} halfwords
 * 0..15 of column 9 (rows 32..39, two a word).
 */
T_TEST(vertical)
{
	struct qpu_emu *emu = t_emu_new(0);
	struct prog p = prog_at(CODE_BASE);
	const uint32_t *vpm;

	emit_fill(&p, false, 0x13);
	emit_fill(&p, false, 0x15);
	emit_fill(&p, false, 0x27);
	emit_fill(&p, false, 0x29);
	emit_elem_times(&p, 0x11);
	emit(&p, i_ldi_b(W_VPM_SETUP, GEN(0, 1, 0, 1, 0, 1 << 6 | 3 << 2 | 2)));
	emit(&p, i_mov(W_VPM, QPU_ISA_MUX_R0));
	emit(&p, i_ldi_b(W_VPM_SETUP, GEN(0, 1, 0, 0, 0, 1 << 6 | 5 << 2 | 3)));
	emit(&p, i_mov(W_VPM, QPU_ISA_MUX_R0));
	emit_read(&p, GEN(1, 1, 0, 1, 0, 1 << 6 | 3 << 2 | 2), 3);
	emit_read(&p, GEN(1, 1, 0, 0, 0, 1 << 6 | 5 << 2 | 3), 4);
	emit_elem_times(&p, 0x1111);
	emit(&p, i_ldi_b(W_VPM_SETUP, GEN(0, 1, 0, 1, 1, 2 << 5 | 7 << 1 | 1)));
	emit(&p, i_mov(W_VPM, QPU_ISA_MUX_R0));
	emit(&p, i_ldi_b(W_VPM_SETUP, GEN(0, 1, 0, 0, 1, 2 << 5 | 9 << 1)));
	emit(&p, i_mov(W_VPM, QPU_ISA_MUX_R0));
	emit_read(&p, GEN(1, 1, 0, 1, 1, 2 << 5 | 7 << 1 | 1), 5);
	emit_read(&p, GEN(1, 1, 0, 0, 1, 2 << 5 | 9 << 1), 1);
	emit_end(&p);
	T_EQ_U64(QPU_EMU_IDLE, t_run1(emu, CODE_BASE, UNIF_BASE));
	vpm = qpu_emu_get_vpm(emu);
	for (unsigned int i = 0; i < 16; i++) {
		T_EQ_U64((FILL & ~0xff0000u) | E8(i) << 16,
			 vpm[(16 + i) * 16 + 3]);
		T_EQ_U64(E8(i), vpm_byte(vpm, 28 + i / 4, 5, i % 4));
		T_EQ_U64((FILL & 0xffff) | E16(i) << 16,
			 vpm[(32 + i) * 16 + 7]);
		T_EQ_U64(E16(i), vpm_half(vpm, 32 + i / 2, 9, i % 2));
		/* the rest of the packed columns keeps its FILL */
		if (i < 12)
			T_EQ_U64(FILL, vpm[(16 + i) * 16 + 5]);
		if (i >= 8)
			T_EQ_U64(FILL, vpm[(32 + i) * 16 + 9]);
	}
	expect_lanes(emu, 3, want_e8);
	expect_lanes(emu, 4, want_e8);
	expect_lanes(emu, 5, want_e16);
	expect_lanes(emu, 1, want_e16);
	free(emu);

	/*
	 * The setup words of the assembler's v8l(), v8p(), v16l(), v16p() and
	 * the C API (qpu_vpm.h) are the ones tested above: programs built
	 * with them run here as the guide reads.
	 */
	T_EQ_U64(GEN(0, 1, 0, 1, 0, 1 << 6 | 3 << 2 | 2),
		 qpu_vpm_setup(0, 1, qpu_vpm_addr(false, true, QPU_VPM_SIZE_8,
						  16, 3, 2)));
	T_EQ_U64(GEN(0, 1, 0, 0, 0, 1 << 6 | 5 << 2 | 3),
		 qpu_vpm_setup(0, 1, qpu_vpm_addr(false, false, QPU_VPM_SIZE_8,
						  16, 5, 3)));
	T_EQ_U64(GEN(0, 1, 0, 1, 1, 2 << 5 | 7 << 1 | 1),
		 qpu_vpm_setup(0, 1, qpu_vpm_addr(false, true, QPU_VPM_SIZE_16,
						  32, 7, 1)));
	T_EQ_U64(GEN(0, 1, 0, 0, 1, 2 << 5 | 9 << 1),
		 qpu_vpm_setup(0, 1, qpu_vpm_addr(false, false, QPU_VPM_SIZE_16,
						  32, 9, 0)));
}

static uint8_t mem_byte(unsigned int j)
{
	return (uint8_t)(j * 7 + 3);
}

/*
 * VDR 8-bit, select 1, 3 rows of 16 bytes 32 bytes apart from an odd
 * address, VPITCH 1, to {Y=20, X=0}: the rows land in the quarters 1, 2
 * and 3 of row 20 (bytes 16..63); quarter 0 stays 0. A generic packed read
 * of quarter 2 gets the second memory row.
 * VDR 16-bit vertical, select 1, 2 rows of 8 halfwords 64 bytes apart, to
 * {Y=48, X=2}: row 0 goes to column 2 from byte 32 of the column (rows
 * 56..59), row 1 (VPITCH 1 moves {Y, H} to Y=49, H=0: the guide adds it
 * to Y and the select "for both horizontal and vertical modes") down the
 * same column from row 49 (rows 49..52); column 3 stays 0.
 */
T_TEST(dma_load)
{
	struct qpu_emu *emu = t_emu_new(0);
	struct prog p = prog_at(CODE_BASE);
	uint8_t *d = (uint8_t *)t_words(DATA_BASE);
	const struct qpu_emu_stats *st;
	const uint32_t *vpm;
	uint32_t r[16];

	for (unsigned int j = 0; j < 4096; j++)
		d[j] = mem_byte(j);
	emit(&p, i_ldi(W_VPM_SETUP, VDR_PITCH(32)));
	emit(&p, i_ldi(W_VPM_SETUP, VDR(5, 16, 3, 1, 0, 20 * 16)));
	emit(&p, i_ldi(W_DMA_ADDR, DATA_BASE + 1));
	emit(&p, i_read(R_WAIT, R_NOP));
	emit(&p, i_ldi(W_VPM_SETUP, VDR_PITCH(64)));
	emit(&p, i_ldi(W_VPM_SETUP, VDR(3, 8, 2, 1, 1, 48 * 16 + 2)));
	emit(&p, i_ldi(W_DMA_ADDR, DATA_BASE + 1024));
	emit(&p, i_read(R_WAIT, R_NOP));
	emit_read(&p, GEN(1, 1, 1, 0, 0, 20 * 4 + 2), 3);
	emit_end(&p);
	T_EQ_U64(QPU_EMU_IDLE, t_run1(emu, CODE_BASE, UNIF_BASE));
	vpm = qpu_emu_get_vpm(emu);
	for (unsigned int b = 0; b < 64; b++) {
		uint32_t want = b < 16 ? 0 : mem_byte(1 + 32 * (b / 16 - 1) +
						      b % 16);

		T_EQ_U64(want, vpm_byte(vpm, 20, b / 4, b % 4));
	}
	for (unsigned int k = 0; k < 8; k++) {
		uint32_t h0 = mem_byte(1024 + 2 * k) |
			mem_byte(1024 + 2 * k + 1) << 8;
		uint32_t h1 = mem_byte(1088 + 2 * k) |
			mem_byte(1088 + 2 * k + 1) << 8;

		T_EQ_U64(h0, vpm_half(vpm, 56 + k / 2, 2, k % 2));
		T_EQ_U64(h1, vpm_half(vpm, 49 + k / 2, 2, k % 2));
	}
	T_EQ_U64(0, vpm[48 * 16 + 2]);
	T_EQ_U64(0, vpm[53 * 16 + 2]);
	T_EQ_U64(0, vpm[55 * 16 + 2]);
	for (unsigned int y = 48; y < 64; y++)
		T_EQ_U64(0, vpm[y * 16 + 3]);
	T_EQ_U64(0, qpu_emu_get_reg(emu, 0, QPU_EMU_FILE_A, 3, r));
	for (unsigned int i = 0; i < 16; i++)
		T_EQ_U64(mem_byte(33 + i), r[i]);
	st = qpu_emu_get_stats(emu);
	T_EQ_U64(3 * 16 + 2 * 8 * 2, st->dma_load_bytes);
	free(emu);
}

/* ra@reg = one vertical 32-bit vector read of column @x from row @y */
static void emit_read_column(struct prog *p, unsigned int y, unsigned int x,
			     unsigned int reg)
{
	emit_read(p, GEN(1, 1, 0, 0, 2, (y & 0x30) | x), reg);
}

static uint32_t mem_word(unsigned int j)
{
	return 0x1000u * j + 0x77;
}

/*
 * VDR 32-bit vertical: VPITCH steps the VPM row, never the column.
 * PyVideoCore's vertical load test, run on a Pi: 4 memory rows of 16
 * words, VPITCH 0 (16), to {Y=0, X=5} fill rows 0..63 of column 5 (rows
 * 0, 16, 32 and 48 start the memory rows). A generated program (a C++ code
 * generator's: setup 0x80101800 | qpu, 16 rows of one word, VPITCH 1) loads a
 * column of 16 words, 64 bytes apart, into rows 0..15 of column 9 and
 * reads it back whole: every lane, not only lane 0.
 */
T_TEST(dma_load_vertical)
{
	struct qpu_emu *emu = t_emu_new(0);
	struct prog p = prog_at(CODE_BASE);
	uint32_t *d = t_words(DATA_BASE);
	const uint32_t *vpm;
	uint32_t r[16];

	for (unsigned int j = 0; j < 2048; j++)
		d[j] = mem_word(j);
	emit(&p, i_ldi(W_VPM_SETUP, VDR(0, 16, 4, 0, 1, 5)
		       | 3u << 24));	/* MPITCH 3: 64 bytes */
	emit(&p, i_ldi(W_DMA_ADDR, DATA_BASE));
	emit(&p, i_read(R_WAIT, R_NOP));
	emit(&p, i_ldi(W_VPM_SETUP, VDR_PITCH(64)));
	emit(&p, i_ldi(W_VPM_SETUP, 0x80101800u | 9));
	emit(&p, i_ldi(W_DMA_ADDR, DATA_BASE + 4096));
	emit(&p, i_read(R_WAIT, R_NOP));
	emit_read_column(&p, 0, 9, 3);
	emit_read_column(&p, 48, 5, 4);
	emit_end(&p);
	T_EQ_U64(QPU_EMU_IDLE, t_run1(emu, CODE_BASE, UNIF_BASE));
	vpm = qpu_emu_get_vpm(emu);
	for (unsigned int y = 0; y < 64; y++) {
		T_EQ_U64(mem_word(y), vpm[y * 16 + 5]);
		/* nothing spills into the next columns */
		T_EQ_U64(0, vpm[y * 16 + 6]);
	}
	T_EQ_U64(0, qpu_emu_get_reg(emu, 0, QPU_EMU_FILE_A, 3, r));
	for (unsigned int i = 0; i < 16; i++) {
		T_EQ_U64(mem_word(1024 + 16 * i), r[i]);
		T_EQ_U64(0, vpm[i * 16 + 10]);
	}
	T_EQ_U64(0, qpu_emu_get_reg(emu, 0, QPU_EMU_FILE_A, 4, r));
	for (unsigned int i = 0; i < 16; i++)
		T_EQ_U64(mem_word(48 + i), r[i]);
	free(emu);
}

/*
 * The DMA strides are 16 bits (qpu_vpm.h), not the guide's 13: the VDR
 * pitch 12288 and the VDW stride 12224 that PyVideoCore's sgemm (C rows
 * of 3072 floats) uses on a Pi. Three rows of 16 words 12288 bytes apart
 * load into VPM rows 0..2; stored back with stride 12224 (12288 less the
 * 64-byte row) they land 12288 bytes apart. Bits above 15 are not the
 * stride: 0x10000 | 64 is a pitch of 64.
 */
T_TEST(dma_wide_strides)
{
	struct qpu_emu *emu = t_emu_new(0);
	struct prog p = prog_at(CODE_BASE);
	uint32_t *d = t_words(DATA_BASE), *o = t_words(OUT_BASE);
	const uint32_t *vpm;

	for (unsigned int j = 0; j < 3 * 3072; j++)
		d[j] = mem_word(j);
	/* the words of qpu_vpm.h's builders, which the assemblers use */
	emit(&p, i_ldi(W_VPM_SETUP, qpu_vdr_setup1(12288)));
	emit(&p, i_ldi(W_VPM_SETUP, VDR(0, 16, 3, 1, 0, 0)));
	emit(&p, i_ldi(W_DMA_ADDR, DATA_BASE));
	emit(&p, i_read(R_WAIT, R_NOP));
	emit(&p, i_ldi_b(W_VPM_SETUP, qpu_vdw_setup1(12224)));
	emit(&p, i_ldi_b(W_VPM_SETUP, VDW(3, 16, 1, 0, 0)));
	emit(&p, i_ldi_b(W_DMA_ADDR, OUT_BASE));
	emit(&p, i_read(R_NOP, R_WAIT));
	emit(&p, i_ldi(W_VPM_SETUP, VDR_PITCH(0x10000 | 64)));
	emit(&p, i_ldi(W_VPM_SETUP, VDR(0, 16, 2, 1, 0, 8 * 16)));
	emit(&p, i_ldi(W_DMA_ADDR, DATA_BASE));
	emit(&p, i_read(R_WAIT, R_NOP));
	emit_end(&p);
	T_EQ_U64(QPU_EMU_IDLE, t_run1(emu, CODE_BASE, UNIF_BASE));
	vpm = qpu_emu_get_vpm(emu);
	for (unsigned int r = 0; r < 3; r++) {
		for (unsigned int k = 0; k < 16; k++) {
			T_EQ_U64(mem_word(3072 * r + k), vpm[r * 16 + k]);
			T_EQ_U64(mem_word(3072 * r + k), o[3072 * r + k]);
		}
		T_EQ_U64(0, o[3072 * r + 16]);
	}
	for (unsigned int k = 0; k < 16; k++)
		T_EQ_U64(mem_word(16 + k), vpm[9 * 16 + k]);
	free(emu);
}

/*
 * 32-bit horizontal VCD DMA, each transfer twice in one run, so the second
 * takes the shortcuts through the DMA windows the first opened
 * (dma_load_rows(), dma_store_rows()): VDR 3 rows of 16 words 96 bytes
 * apart to rows 4, 6 and 8 (VPITCH 2), and 2 rows of 5 words to {Y=20,
 * X=13} (wrapping to columns 0 and 1); VDW 3 units of 16 words from row 4
 * with stride 8, and 2 units of 5 words from {Y=20, X=13} (running on into
 * the next row). Against the words computed by hand and the same program
 * with predecoding off (the element loops).
 */
static void run_dma_twice(bool predecode, uint32_t *vpm_out, uint32_t *out)
{
	struct qpu_emu *emu = t_emu_new(0);
	struct prog p = prog_at(CODE_BASE);
	uint32_t *d = t_words(DATA_BASE), *o = t_words(OUT_BASE);
	const struct qpu_emu_stats *st;

	qpu_emu_set_predecode(emu, predecode);
	for (unsigned int j = 0; j < 1024; j++)
		d[j] = mem_word(j);
	memset(o, 0, 1024 * 4);
	emit(&p, i_ldi(W_VPM_SETUP, VDR_PITCH(96)));
	for (unsigned int pass = 0; pass < 2; pass++) {
		emit(&p, i_ldi(W_VPM_SETUP, VDR(0, 16, 3, 2, 0, 4 * 16)));
		emit(&p, i_ldi(W_DMA_ADDR, DATA_BASE));
		emit(&p, i_read(R_WAIT, R_NOP));
		emit(&p, i_ldi(W_VPM_SETUP, VDR(0, 5, 2, 1, 0, 20 * 16 + 13)));
		emit(&p, i_ldi(W_DMA_ADDR, DATA_BASE + 1024));
		emit(&p, i_read(R_WAIT, R_NOP));
		emit(&p, i_ldi_b(W_VPM_SETUP, VDW_STRIDE(8)));
		emit(&p, i_ldi_b(W_VPM_SETUP, VDW(3, 16, 1, 4 * 16, 0)));
		emit(&p, i_ldi_b(W_DMA_ADDR, OUT_BASE));
		emit(&p, i_read(R_NOP, R_WAIT));
		emit(&p, i_ldi_b(W_VPM_SETUP, VDW_STRIDE(0)));
		emit(&p, i_ldi_b(W_VPM_SETUP, VDW(2, 5, 1, 20 * 16 + 13, 0)));
		emit(&p, i_ldi_b(W_DMA_ADDR, OUT_BASE + 2048));
		emit(&p, i_read(R_NOP, R_WAIT));
	}
	emit_end(&p);
	T_EQ_U64(QPU_EMU_IDLE, t_run1(emu, CODE_BASE, UNIF_BASE));
	memcpy(vpm_out, qpu_emu_get_vpm(emu), QPU_EMU_VPM_WORDS * 4);
	memcpy(out, o, 1024 * 4);
	st = qpu_emu_get_stats(emu);
	T_EQ_U64(2 * (3 * 16 + 2 * 5) * 4, st->dma_load_bytes);
	T_EQ_U64(2 * (3 * 16 + 2 * 5) * 4, st->dma_store_bytes);
	free(emu);
}

T_TEST(dma_rows_twice)
{
	static uint32_t vpm[2][QPU_EMU_VPM_WORDS], out[2][1024];

	run_dma_twice(true, vpm[0], out[0]);
	run_dma_twice(false, vpm[1], out[1]);
	T_CHECK(!memcmp(vpm[0], vpm[1], sizeof(vpm[0])));
	T_CHECK(!memcmp(out[0], out[1], sizeof(out[0])));
	for (unsigned int r = 0; r < 3; r++)
		for (unsigned int k = 0; k < 16; k++)
			T_EQ_U64(mem_word(24 * r + k), vpm[0][(4 + 2 * r) * 16 + k]);
	for (unsigned int r = 0; r < 2; r++)
		for (unsigned int k = 0; k < 5; k++)
			T_EQ_U64(mem_word(256 + 24 * r + k),
				 vpm[0][(20 + r) * 16 + ((13 + k) & 15)]);
	for (unsigned int u = 0; u < 3; u++) {
		for (unsigned int k = 0; k < 16; k++)
			T_EQ_U64(vpm[0][(4 + u) * 16 + k], out[0][u * 18 + k]);
		T_EQ_U64(0, out[0][u * 18 + 16]);
		T_EQ_U64(0, out[0][u * 18 + 17]);
	}
	for (unsigned int u = 0; u < 2; u++)
		for (unsigned int k = 0; k < 5; k++)
			T_EQ_U64(vpm[0][(20 + u) * 16 + 13 + k],
				 out[0][512 + u * 5 + k]);
}

/*
 * VDW 8-bit, select 2, 2 units of 5 bytes, stride 3, from {Y=20, X=1}: unit
 * u is bytes 36..40 of row 20 + u, stored 8 bytes apart; the 3-byte gaps
 * keep their 0xee.
 * VDW 16-bit vertical, select 1, 2 units of 3 halfwords, stride 2, from
 * {Y=48, X=2}: unit u is halfwords 16..18 of column 2 + u (rows 56, 57).
 * A VDW with MODEW 1 (reserved) faults.
 */
T_TEST(dma_store)
{
	struct qpu_emu *emu = t_emu_new(0);
	struct prog p = prog_at(CODE_BASE);
	uint8_t *o = (uint8_t *)t_words(OUT_BASE);
	const struct qpu_emu_stats *st;
	const uint32_t *vpm;

	memset(o, 0xee, 1024);
	/* rows 20, 21: word w = 0x5000 | y << 8 | w; column 2, 3 from row 48 */
	emit(&p, i_ldi_b(W_VPM_SETUP, GEN(0, 1, 1, 0, 2, 20)));
	for (unsigned int y = 20; y < 22; y++) {
		struct qpu_isa_instr in;

		emit(&p, i_ldi(W_R1, y << 8 | 0x5000));
		in = i_add(QPU_ISA_A_ADD, W_VPM, QPU_ISA_MUX_A, QPU_ISA_MUX_R1);
		in.raddr_a = R_ELEM;
		emit(&p, in);
	}
	emit(&p, i_ldi_b(W_VPM_SETUP, GEN(0, 1, 0, 0, 2, 0x32)));
	emit_elem_times(&p, 0x01010101);
	emit(&p, i_mov(W_VPM, QPU_ISA_MUX_R0));
	emit(&p, i_mov(W_VPM, QPU_ISA_MUX_R0));	/* column 3 the same */
	emit(&p, i_ldi_b(W_VPM_SETUP, VDW_STRIDE(3)));
	emit(&p, i_ldi_b(W_VPM_SETUP, VDW(2, 5, 1, 20 * 16 + 1, 6)));
	emit(&p, i_ldi_b(W_DMA_ADDR, OUT_BASE));
	emit(&p, i_read(R_NOP, R_WAIT));
	emit(&p, i_ldi_b(W_VPM_SETUP, VDW_STRIDE(2)));
	emit(&p, i_ldi_b(W_VPM_SETUP, VDW(2, 3, 0, 48 * 16 + 2, 3)));
	emit(&p, i_ldi_b(W_DMA_ADDR, OUT_BASE + 256));
	emit(&p, i_read(R_NOP, R_WAIT));
	emit_end(&p);
	T_EQ_U64(QPU_EMU_IDLE, t_run1(emu, CODE_BASE, UNIF_BASE));
	vpm = qpu_emu_get_vpm(emu);
	for (unsigned int u = 0; u < 2; u++) {
		for (unsigned int k = 0; k < 5; k++)
			T_EQ_U64(vpm_byte(vpm, 20 + u, (36 + k) / 4,
					  (36 + k) % 4), o[u * 8 + k]);
		for (unsigned int k = 5; k < 8; k++)
			T_EQ_U64(0xee, o[u * 8 + k]);
	}
	/* bytes 36..40 of row 20: words 9 and 10, 0x5000 | 20 << 8 | w */
	T_EQ_U64(0x09, o[0]);
	T_EQ_U64(0x54, o[1]);
	T_EQ_U64(0x0a, o[4]);
	for (unsigned int u = 0; u < 2; u++) {
		for (unsigned int k = 0; k < 3; k++) {
			uint32_t h = vpm_half(vpm, 56 + k / 2, 2 + u, k % 2);

			/* rows 56, 57 hold 0x080808, 0x090909 (mul24) */
			T_EQ_U64(k == 0 ? 0x0808 : k == 1 ? 0x08 : 0x0909, h);
			T_EQ_U64(h & 0xff, o[256 + u * 8 + 2 * k]);
			T_EQ_U64(h >> 8, o[256 + u * 8 + 2 * k + 1]);
		}
		T_EQ_U64(0xee, o[256 + u * 8 + 6]);
		T_EQ_U64(0xee, o[256 + u * 8 + 7]);
	}
	st = qpu_emu_get_stats(emu);
	T_EQ_U64(2 * 5 + 2 * 3 * 2, st->dma_store_bytes);
	free(emu);

	emu = t_emu_new(0);
	p = prog_at(CODE_BASE);
	emit(&p, i_ldi_b(W_VPM_SETUP, VDW(1, 16, 1, 0, 1)));
	emit(&p, i_ldi_b(W_DMA_ADDR, OUT_BASE));
	emit_end(&p);
	T_EQ_U64(QPU_EMU_FAULT, t_run1(emu, CODE_BASE, UNIF_BASE));
	T_EQ_U64(QPU_FAULT_REASON_INSTRUCTION, qpu_emu_get_fault(emu)->reason);
	T_EQ_U64(CODE_BASE + 8, qpu_emu_get_fault(emu)->pc);
	free(emu);
}

/*
 * Faults: the reserved size 3; an 8-bit horizontal vector past the VPM
 * (row 63 is the last 8-bit row address: fine); a 16-bit DMA from an odd
 * address is misaligned.
 */
T_TEST(vpm_faults)
{
	struct qpu_emu *emu = t_emu_new(0);
	struct prog p = prog_at(CODE_BASE);

	emit(&p, i_ldi_b(W_VPM_SETUP, GEN(0, 1, 1, 0, 3, 0)));
	emit(&p, i_ldi(W_VPM, 1));
	emit_end(&p);
	T_EQ_U64(QPU_EMU_FAULT, t_run1(emu, CODE_BASE, UNIF_BASE));
	T_EQ_U64(QPU_FAULT_REASON_INSTRUCTION, qpu_emu_get_fault(emu)->reason);
	T_EQ_U64(CODE_BASE + 8, qpu_emu_get_fault(emu)->pc);
	free(emu);

	emu = t_emu_new(0);
	p = prog_at(CODE_BASE);
	emit(&p, i_ldi_b(W_VPM_SETUP, GEN(0, 1, 1, 0, 0, 255)));
	emit(&p, i_ldi(W_VPM, 1));
	emit_end(&p);
	T_EQ_U64(QPU_EMU_IDLE, t_run1(emu, CODE_BASE, UNIF_BASE));
	T_EQ_U64(0x01010101, qpu_emu_get_vpm(emu)[63 * 16 + 15]);
	free(emu);

	emu = t_emu_new(0);
	p = prog_at(CODE_BASE);
	emit(&p, i_ldi(W_VPM_SETUP, VDR(2, 8, 1, 1, 0, 0)));
	emit(&p, i_ldi(W_DMA_ADDR, DATA_BASE + 1));
	emit_end(&p);
	T_EQ_U64(QPU_EMU_FAULT, t_run1(emu, CODE_BASE, UNIF_BASE));
	T_EQ_U64(QPU_FAULT_REASON_MISALIGNED, qpu_emu_get_fault(emu)->reason);
	T_EQ_U64(DATA_BASE + 1, qpu_emu_get_fault(emu)->addr);
	free(emu);
}

T_MAIN()
