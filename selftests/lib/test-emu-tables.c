// SPDX-License-Identifier: MIT
/*
 * test-emu-tables: two tables of what the emulator must give, one row per
 * case, each row naming its source. The pack/unpack table has every
 * regfile-A pack, mul pack, regfile-A unpack and r4 unpack mode for an
 * integer and a float op on the add and on the mul unit; the SFU table has
 * recip, recipsqrt, exp2 and log2 of zeros, a negative number, the
 * infinities, a NaN and denormals. The tables run two ways:
 *
 * - on the emulator API: every row its own program, its destination read
 *   back with qpu_emu_get_reg(), with the lane by lane float code the kernel
 *   build runs and with the host's best SIMD path, each with the
 *   predecoded-instruction cache on and off; the SFU rows also call the
 *   float functions themselves (those qpu.ko's float digest compares with
 *   this build);
 * - on a device, through libqpu's device API: the rows in a few jobs whose
 *   programs store every destination (16 lanes) through the VPM and a VDW,
 *   compared in memory; each reserved word in a job of its own that must
 *   fault. A third table, VDR pitches and VDW strides up to 16 bits, runs
 *   this way only.
 *
 * "test-emu-tables" runs both cases, emulator and device, the device way
 * on the in-process emulator ("emu"); with "--device DEVICE" the device
 * way runs on DEVICE and the emulator case skips: check-vm runs the
 * statically linked copy as "test-emu-tables --device /dev/qpu", on
 * qpu.ko's simulated V3D (the same core in the kernel build).
 *
 * Sources: "guide" is the VideoCore IV 3D Architecture Reference Guide
 * (its regfile-a pack and unpack tables, the mul pack table and Table 8,
 * the r4 unpack), "errata" PyVideoCore's APPENDIX (Table 8 is the r4
 * *unpack* table and its rows 4..7 are 8a..8d; the SFU notes), "hw" a
 * program of PyVideoCore's test suite that passes on a Pi. "choice" marks
 * what no source settles; the row says what was chosen and why.
 */
#include <errno.h>
#include <stddef.h>

#include <linux/qpu.h>

#include "qpu.h"
#include "qpu_emu_float.h"
#include "qpu_vpm.h"
#include "test-emu.h"

#define OLD		0xa5a5a5a5u	/* destination before the write */
#define SMI_ONE		32		/* the small immediate 1.0 */
#define RA_DST		5		/* regfile-A destination of packs */
#define RA_SRC		1		/* regfile-A source of unpacks */

/* Which op consumes or produces the value of a row. */
enum unit { ADD_INT, ADD_FLOAT, MUL_INT, MUL_FLOAT };

static const char *const unit_names[] = {
	"add (int)", "fadd", "mul24", "fmul",
};

/* Where the pack or unpack of a row happens. */
enum kind {
	PACK_A,		/* pm=0: pack of the regfile-A write (mul with ws=1) */
	PACK_MUL,	/* pm=1: mul pack; the add unit's write is not packed */
	UNPACK_A,	/* pm=0: unpack of the regfile-A read */
	UNPACK_R4,	/* pm=1: unpack of the r4 read */
};

static const char *const kind_names[] = {
	"regfile-A pack", "mul pack", "regfile-A unpack", "r4 unpack",
};

struct conv_row {
	enum kind kind;
	unsigned int mode;
	enum unit unit;
	uint32_t a, b;		/* operands; an unpack reads only a */
	uint32_t expect;	/* the destination after */
	const char *source;
};

#define G_PACK		"guide, regfile-a pack table"
#define G_PACK_F16	"guide, regfile-a pack table: 16 bit float if the " \
			"result was float"
#define G_SAT32		"guide: 32 sat saturates given overflow; choice: " \
			"only add and sub overflow, other results stay"
#define G_PACK_BITS	"guide: 8-bit packs convert to 8-bit unsigned int; " \
			"choice: a float result's bits are that int"
#define HW_F16_SAT	"hw: test_pack_regA_float, fadd with 16a/16b sat " \
			"gives float16; choice: overflow gives Inf as 16a does"
#define CH_F16_SAT	"guide (16 bit float if the result was float), as " \
			"hw shows for fadd; the mul unit writes regfile A"
#define G_MULPACK	"guide, mul pack table: mul float result to 8-bit " \
			"colour in [0, 1.0]"
#define CH_MULPACK_INT	"choice: guide names float results only; an " \
			"integer result gives its low byte, like 8a..8d"
#define G_MULPACK_ADD	"guide: with pm set, pack programs the mul " \
			"unit's colour conversion; the add write is plain"
#define G_MULPACK_RSV	"guide: mul pack table defines 0 and 3..7 only; " \
			"choice: the reserved word faults"
#define G_UNPACK	"guide, regfile-a unpack table"
#define CH_UNPACK_8DR	"guide: 8d replicated; choice: a float consumer " \
			"gets byte d as colour like 8d (hw never tested it)"
#define G_R4		"guide Table 8 with errata (4..7 are 8a..8d)"
#define CH_R4_INT	"choice: Table 8 names float conversions only; " \
			"integer consumers get the regfile-a integer rule"

#define F1_5	0x3fc00000u
#define F0_25	0x3e800000u
#define F1_75	0x3fe00000u
#define FM2_5	0xc0200000u
#define F0_5	0x3f000000u
#define F1_0	0x3f800000u
#define F2_5	0x40200000u
#define FM0_5	0xbf000000u
#define FM1_0	0xbf800000u
#define FM2_0	0xc0000000u
#define F2_0	0x40000000u
#define F0_75	0x3f400000u
#define F40000	0x471c4000u

static const struct conv_row conv_rows[] = {
	/* regfile-A pack of add: 0x12345678 + 0x11111111 = 0x23456789 */
	{ PACK_A, 0, ADD_INT, 0x12345678, 0x11111111, 0x23456789, G_PACK },
	{ PACK_A, 1, ADD_INT, 0x12345678, 0x11111111, 0xa5a56789, G_PACK },
	{ PACK_A, 2, ADD_INT, 0x12345678, 0x11111111, 0x6789a5a5, G_PACK },
	{ PACK_A, 3, ADD_INT, 0x12345678, 0x11111111, 0x89898989, G_PACK },
	{ PACK_A, 4, ADD_INT, 0x12345678, 0x11111111, 0xa5a5a589, G_PACK },
	{ PACK_A, 5, ADD_INT, 0x12345678, 0x11111111, 0xa5a589a5, G_PACK },
	{ PACK_A, 6, ADD_INT, 0x12345678, 0x11111111, 0xa589a5a5, G_PACK },
	{ PACK_A, 7, ADD_INT, 0x12345678, 0x11111111, 0x89a5a5a5, G_PACK },
	{ PACK_A, 8, ADD_INT, 0x7fffff00, 0x00000200, 0x7fffffff, G_PACK },
	{ PACK_A, 9, ADD_INT, 0x00012000, 0x00000345, 0xa5a57fff, G_PACK },
	{ PACK_A, 10, ADD_INT, 0, 0xfffedcbb, 0x8000a5a5, G_PACK },
	{ PACK_A, 11, ADD_INT, 200, 100, 0xffffffff, G_PACK },
	{ PACK_A, 12, ADD_INT, 5, 0xfffffff6, 0xa5a5a500, G_PACK },
	{ PACK_A, 13, ADD_INT, 0x100, 0xff, 0xa5a5ffa5, G_PACK },
	{ PACK_A, 14, ADD_INT, 0x40, 0x40, 0xa580a5a5, G_PACK },
	{ PACK_A, 15, ADD_INT, 0x80000000, 0x10, 0x00a5a5a5, G_PACK },
	/* regfile-A pack of fadd */
	{ PACK_A, 0, ADD_FLOAT, F1_5, F0_25, F1_75, G_PACK },
	{ PACK_A, 1, ADD_FLOAT, F1_5, F0_25, 0xa5a53f00, G_PACK_F16 },
	{ PACK_A, 2, ADD_FLOAT, FM2_5, F0_5, 0xc000a5a5, G_PACK_F16 },
	{ PACK_A, 3, ADD_FLOAT, 0x3f800045, 0, 0x45454545, G_PACK_BITS },
	{ PACK_A, 4, ADD_FLOAT, 0x3f800045, 0, 0xa5a5a545, G_PACK_BITS },
	{ PACK_A, 5, ADD_FLOAT, 0x3f800046, 0, 0xa5a546a5, G_PACK_BITS },
	{ PACK_A, 6, ADD_FLOAT, 0x3f800047, 0, 0xa547a5a5, G_PACK_BITS },
	{ PACK_A, 7, ADD_FLOAT, 0x3f800048, 0, 0x48a5a5a5, G_PACK_BITS },
	{ PACK_A, 8, ADD_FLOAT, FM1_0, FM2_0, 0xc0400000, G_SAT32 },
	{ PACK_A, 9, ADD_FLOAT, F1_5, F0_25, 0xa5a53f00, HW_F16_SAT },
	{ PACK_A, 9, ADD_FLOAT, F40000, F40000, 0xa5a57c00, HW_F16_SAT },
	{ PACK_A, 10, ADD_FLOAT, FM2_5, F0_5, 0xc000a5a5, HW_F16_SAT },
	{ PACK_A, 11, ADD_FLOAT, F1_5, F0_25, 0xffffffff, G_PACK_BITS },
	{ PACK_A, 12, ADD_FLOAT, F1_5, F0_25, 0xa5a5a5ff, G_PACK_BITS },
	{ PACK_A, 13, ADD_FLOAT, FM2_5, F0_5, 0xa5a500a5, G_PACK_BITS },
	{ PACK_A, 14, ADD_FLOAT, F1_5, F0_25, 0xa5ffa5a5, G_PACK_BITS },
	{ PACK_A, 15, ADD_FLOAT, FM2_5, F0_5, 0x00a5a5a5, G_PACK_BITS },
	/* regfile-A pack of mul24 (ws=1) */
	{ PACK_A, 0, MUL_INT, 0x123, 0x456, 0x0004edc2, G_PACK },
	{ PACK_A, 1, MUL_INT, 0x123456, 0x10, 0xa5a54560, G_PACK },
	{ PACK_A, 2, MUL_INT, 0x123456, 0x10, 0x4560a5a5, G_PACK },
	{ PACK_A, 3, MUL_INT, 0x1234, 3, 0x9c9c9c9c, G_PACK },
	{ PACK_A, 4, MUL_INT, 0x1234, 3, 0xa5a5a59c, G_PACK },
	{ PACK_A, 5, MUL_INT, 0x1234, 3, 0xa5a59ca5, G_PACK },
	{ PACK_A, 6, MUL_INT, 0x1234, 3, 0xa59ca5a5, G_PACK },
	{ PACK_A, 7, MUL_INT, 0x1234, 3, 0x9ca5a5a5, G_PACK },
	{ PACK_A, 8, MUL_INT, 0xffffff, 0xffffff, 0xfe000001, G_SAT32 },
	{ PACK_A, 9, MUL_INT, 0x1000, 0x10, 0xa5a57fff, G_PACK },
	{ PACK_A, 10, MUL_INT, 0xffffff, 0xffffff, 0x8000a5a5, G_PACK },
	{ PACK_A, 11, MUL_INT, 20, 20, 0xffffffff, G_PACK },
	{ PACK_A, 12, MUL_INT, 0xffffff, 0xffffff, 0xa5a5a500, G_PACK },
	{ PACK_A, 13, MUL_INT, 10, 10, 0xa5a564a5, G_PACK },
	{ PACK_A, 14, MUL_INT, 16, 16, 0xa5ffa5a5, G_PACK },
	{ PACK_A, 15, MUL_INT, 3, 5, 0x0fa5a5a5, G_PACK },
	/* regfile-A pack of fmul (ws=1) */
	{ PACK_A, 0, MUL_FLOAT, F1_5, F2_5, 0x40700000, G_PACK },
	{ PACK_A, 1, MUL_FLOAT, F1_5, FM0_5, 0xa5a5ba00, G_PACK_F16 },
	{ PACK_A, 2, MUL_FLOAT, F1_5, F2_5, 0x4380a5a5, G_PACK_F16 },
	{ PACK_A, 3, MUL_FLOAT, 0x3f800045, F1_0, 0x45454545, G_PACK_BITS },
	{ PACK_A, 4, MUL_FLOAT, 0x3f800045, F1_0, 0xa5a5a545, G_PACK_BITS },
	{ PACK_A, 5, MUL_FLOAT, 0x3f800046, F1_0, 0xa5a546a5, G_PACK_BITS },
	{ PACK_A, 6, MUL_FLOAT, 0x3f800047, F1_0, 0xa547a5a5, G_PACK_BITS },
	{ PACK_A, 7, MUL_FLOAT, 0x3f800048, F1_0, 0x48a5a5a5, G_PACK_BITS },
	{ PACK_A, 8, MUL_FLOAT, F1_5, F2_5, 0x40700000, G_SAT32 },
	{ PACK_A, 9, MUL_FLOAT, F1_5, F2_5, 0xa5a54380, CH_F16_SAT },
	{ PACK_A, 10, MUL_FLOAT, F1_5, FM0_5, 0xba00a5a5, CH_F16_SAT },
	{ PACK_A, 11, MUL_FLOAT, F1_5, F2_5, 0xffffffff, G_PACK_BITS },
	{ PACK_A, 12, MUL_FLOAT, F1_5, FM0_5, 0xa5a5a500, G_PACK_BITS },
	{ PACK_A, 13, MUL_FLOAT, F1_5, F2_5, 0xa5a5ffa5, G_PACK_BITS },
	{ PACK_A, 14, MUL_FLOAT, F1_5, FM0_5, 0xa500a5a5, G_PACK_BITS },
	{ PACK_A, 15, MUL_FLOAT, F1_5, F2_5, 0xffa5a5a5, G_PACK_BITS },
	/* mul pack (pm=1) of fmul into r3: [0, 1.0] to 0..255, nearest */
	{ PACK_MUL, 0, MUL_FLOAT, F1_5, F2_5, 0x40700000, G_MULPACK },
	{ PACK_MUL, 3, MUL_FLOAT, F0_25, F2_0, 0x80808080, G_MULPACK },
	{ PACK_MUL, 4, MUL_FLOAT, F1_5, F1_0, 0xa5a5a5ff, G_MULPACK },
	{ PACK_MUL, 5, MUL_FLOAT, FM1_0, F0_5, 0xa5a500a5, G_MULPACK },
	{ PACK_MUL, 6, MUL_FLOAT, F0_25, F1_0, 0xa540a5a5, G_MULPACK },
	{ PACK_MUL, 7, MUL_FLOAT, F0_75, F1_0, 0xbfa5a5a5, G_MULPACK },
	/* mul pack of mul24: the low byte, no saturation */
	{ PACK_MUL, 0, MUL_INT, 0x123, 0x456, 0x0004edc2, G_MULPACK },
	{ PACK_MUL, 3, MUL_INT, 0x234, 1, 0x34343434, CH_MULPACK_INT },
	{ PACK_MUL, 4, MUL_INT, 0x1ff, 1, 0xa5a5a5ff, CH_MULPACK_INT },
	{ PACK_MUL, 5, MUL_INT, 0x100, 1, 0xa5a500a5, CH_MULPACK_INT },
	{ PACK_MUL, 6, MUL_INT, 7, 9, 0xa53fa5a5, CH_MULPACK_INT },
	{ PACK_MUL, 7, MUL_INT, 0x12, 0x10, 0x20a5a5a5, CH_MULPACK_INT },
	/* mul pack and the add unit: its regfile-A write is not packed */
	{ PACK_MUL, 0, ADD_INT, 0x12345678, 0x11111111, 0x23456789, G_MULPACK_ADD },
	{ PACK_MUL, 3, ADD_INT, 0x12345678, 0x11111111, 0x23456789, G_MULPACK_ADD },
	{ PACK_MUL, 4, ADD_INT, 0x12345678, 0x11111111, 0x23456789, G_MULPACK_ADD },
	{ PACK_MUL, 5, ADD_INT, 0x12345678, 0x11111111, 0x23456789, G_MULPACK_ADD },
	{ PACK_MUL, 6, ADD_INT, 0x12345678, 0x11111111, 0x23456789, G_MULPACK_ADD },
	{ PACK_MUL, 7, ADD_INT, 0x12345678, 0x11111111, 0x23456789, G_MULPACK_ADD },
	{ PACK_MUL, 0, ADD_FLOAT, F1_5, F0_25, F1_75, G_MULPACK_ADD },
	{ PACK_MUL, 3, ADD_FLOAT, F1_5, F0_25, F1_75, G_MULPACK_ADD },
	{ PACK_MUL, 4, ADD_FLOAT, F1_5, F0_25, F1_75, G_MULPACK_ADD },
	{ PACK_MUL, 5, ADD_FLOAT, F1_5, F0_25, F1_75, G_MULPACK_ADD },
	{ PACK_MUL, 6, ADD_FLOAT, F1_5, F0_25, F1_75, G_MULPACK_ADD },
	{ PACK_MUL, 7, ADD_FLOAT, F1_5, F0_25, F1_75, G_MULPACK_ADD },
	/* regfile-A unpack: or, fmax, v8min, fmul by 1.0 pass a value on */
	{ UNPACK_A, 0, ADD_INT, F1_5, 0, F1_5, G_UNPACK },
	{ UNPACK_A, 1, ADD_INT, 0x3c00c000, 0, 0xffffc000, G_UNPACK },
	{ UNPACK_A, 2, ADD_INT, 0x3c00c000, 0, 0x00003c00, G_UNPACK },
	{ UNPACK_A, 3, ADD_INT, 0x33ff8040, 0, 0x33333333, G_UNPACK },
	{ UNPACK_A, 4, ADD_INT, 0x33ff8040, 0, 0x40, G_UNPACK },
	{ UNPACK_A, 5, ADD_INT, 0x33ff8040, 0, 0x80, G_UNPACK },
	{ UNPACK_A, 6, ADD_INT, 0x33ff8040, 0, 0xff, G_UNPACK },
	{ UNPACK_A, 7, ADD_INT, 0x33ff8040, 0, 0x33, G_UNPACK },
	{ UNPACK_A, 0, ADD_FLOAT, F1_5, 0, F1_5, G_UNPACK },
	{ UNPACK_A, 1, ADD_FLOAT, 0x3c00c000, 0, FM2_0, G_UNPACK },
	{ UNPACK_A, 2, ADD_FLOAT, 0x3c00c000, 0, F1_0, G_UNPACK },
	{ UNPACK_A, 3, ADD_FLOAT, 0x33ff8040, 0, 0x3e4ccccd, CH_UNPACK_8DR },
	{ UNPACK_A, 4, ADD_FLOAT, 0x33ff8040, 0, 0x3e808081, G_UNPACK },
	{ UNPACK_A, 5, ADD_FLOAT, 0x33ff8040, 0, 0x3f008081, G_UNPACK },
	{ UNPACK_A, 6, ADD_FLOAT, 0x33ff8040, 0, F1_0, G_UNPACK },
	{ UNPACK_A, 7, ADD_FLOAT, 0x33ff8040, 0, 0x3e4ccccd, G_UNPACK },
	{ UNPACK_A, 0, MUL_INT, F1_5, 0, F1_5, G_UNPACK },
	{ UNPACK_A, 1, MUL_INT, 0x3c00c000, 0, 0xffffc000, G_UNPACK },
	{ UNPACK_A, 2, MUL_INT, 0x3c00c000, 0, 0x00003c00, G_UNPACK },
	{ UNPACK_A, 3, MUL_INT, 0x33ff8040, 0, 0x33333333, G_UNPACK },
	{ UNPACK_A, 4, MUL_INT, 0x33ff8040, 0, 0x40, G_UNPACK },
	{ UNPACK_A, 5, MUL_INT, 0x33ff8040, 0, 0x80, G_UNPACK },
	{ UNPACK_A, 6, MUL_INT, 0x33ff8040, 0, 0xff, G_UNPACK },
	{ UNPACK_A, 7, MUL_INT, 0x33ff8040, 0, 0x33, G_UNPACK },
	{ UNPACK_A, 0, MUL_FLOAT, F1_5, 0, F1_5, G_UNPACK },
	{ UNPACK_A, 1, MUL_FLOAT, 0x3c00c000, 0, FM2_0, G_UNPACK },
	{ UNPACK_A, 2, MUL_FLOAT, 0x3c00c000, 0, F1_0, G_UNPACK },
	{ UNPACK_A, 3, MUL_FLOAT, 0x33ff8040, 0, 0x3e4ccccd, CH_UNPACK_8DR },
	{ UNPACK_A, 4, MUL_FLOAT, 0x33ff8040, 0, 0x3e808081, G_UNPACK },
	{ UNPACK_A, 5, MUL_FLOAT, 0x33ff8040, 0, 0x3f008081, G_UNPACK },
	{ UNPACK_A, 6, MUL_FLOAT, 0x33ff8040, 0, F1_0, G_UNPACK },
	{ UNPACK_A, 7, MUL_FLOAT, 0x33ff8040, 0, 0x3e4ccccd, G_UNPACK },
	/* r4 unpack (pm=1) of a TMU result */
	{ UNPACK_R4, 0, ADD_INT, F1_5, 0, F1_5, G_R4 },
	{ UNPACK_R4, 1, ADD_INT, 0x3c00c000, 0, 0xffffc000, CH_R4_INT },
	{ UNPACK_R4, 2, ADD_INT, 0x3c00c000, 0, 0x00003c00, CH_R4_INT },
	{ UNPACK_R4, 3, ADD_INT, 0x33ff8040, 0, 0x33333333, CH_R4_INT },
	{ UNPACK_R4, 4, ADD_INT, 0x33ff8040, 0, 0x40, CH_R4_INT },
	{ UNPACK_R4, 5, ADD_INT, 0x33ff8040, 0, 0x80, CH_R4_INT },
	{ UNPACK_R4, 6, ADD_INT, 0x33ff8040, 0, 0xff, CH_R4_INT },
	{ UNPACK_R4, 7, ADD_INT, 0x33ff8040, 0, 0x33, CH_R4_INT },
	{ UNPACK_R4, 0, ADD_FLOAT, F1_5, 0, F1_5, G_R4 },
	{ UNPACK_R4, 1, ADD_FLOAT, 0x3c00c000, 0, FM2_0, G_R4 },
	{ UNPACK_R4, 2, ADD_FLOAT, 0x3c00c000, 0, F1_0, G_R4 },
	{ UNPACK_R4, 3, ADD_FLOAT, 0x33ff8040, 0, 0x3e4ccccd, G_R4 },
	{ UNPACK_R4, 4, ADD_FLOAT, 0x33ff8040, 0, 0x3e808081, G_R4 },
	{ UNPACK_R4, 5, ADD_FLOAT, 0x33ff8040, 0, 0x3f008081, G_R4 },
	{ UNPACK_R4, 6, ADD_FLOAT, 0x33ff8040, 0, F1_0, G_R4 },
	{ UNPACK_R4, 7, ADD_FLOAT, 0x33ff8040, 0, 0x3e4ccccd, G_R4 },
	{ UNPACK_R4, 0, MUL_INT, F1_5, 0, F1_5, G_R4 },
	{ UNPACK_R4, 1, MUL_INT, 0x3c00c000, 0, 0xffffc000, CH_R4_INT },
	{ UNPACK_R4, 2, MUL_INT, 0x3c00c000, 0, 0x00003c00, CH_R4_INT },
	{ UNPACK_R4, 3, MUL_INT, 0x33ff8040, 0, 0x33333333, CH_R4_INT },
	{ UNPACK_R4, 4, MUL_INT, 0x33ff8040, 0, 0x40, CH_R4_INT },
	{ UNPACK_R4, 5, MUL_INT, 0x33ff8040, 0, 0x80, CH_R4_INT },
	{ UNPACK_R4, 6, MUL_INT, 0x33ff8040, 0, 0xff, CH_R4_INT },
	{ UNPACK_R4, 7, MUL_INT, 0x33ff8040, 0, 0x33, CH_R4_INT },
	{ UNPACK_R4, 0, MUL_FLOAT, F1_5, 0, F1_5, G_R4 },
	{ UNPACK_R4, 1, MUL_FLOAT, 0x3c00c000, 0, FM2_0, G_R4 },
	{ UNPACK_R4, 2, MUL_FLOAT, 0x3c00c000, 0, F1_0, G_R4 },
	{ UNPACK_R4, 3, MUL_FLOAT, 0x33ff8040, 0, 0x3e4ccccd, G_R4 },
	{ UNPACK_R4, 4, MUL_FLOAT, 0x33ff8040, 0, 0x3e808081, G_R4 },
	{ UNPACK_R4, 5, MUL_FLOAT, 0x33ff8040, 0, 0x3f008081, G_R4 },
	{ UNPACK_R4, 6, MUL_FLOAT, 0x33ff8040, 0, F1_0, G_R4 },
	{ UNPACK_R4, 7, MUL_FLOAT, 0x33ff8040, 0, 0x3e4ccccd, G_R4 },
};

/* The mul pack modes the guide leaves undefined, with any unit. */
static const unsigned int reserved_mul_packs[] = {
	1, 2, 8, 9, 10, 11, 12, 13, 14, 15,
};

enum sfu_op { RECIP, RECIPSQRT, EXP2, LOG2 };

static const char *const sfu_names[] = {
	"recip", "recipsqrt", "exp2", "log2",
};

struct sfu_row {
	enum sfu_op op;
	uint32_t in, expect;
	const char *source;
};

#define F_INF		0x7f800000u
#define F_NINF		0xff800000u
#define F_NAN		0x7fc00001u	/* a NaN that is not the quiet one */
#define F_DENORM	0x00000001u
#define F_NDENORM	0x80400000u
#define F_NEG4		0xc0800000u

#define E_RECIP0	"errata: RECIP(0) is inf; choice: IEEE sign"
#define E_RSQRT		"errata: RECIPSQRT(x) = 1/sqrt(abs(x)); hw: " \
			"test_sqrt_of_negative"
#define E_LOG		"errata: LOG(x) = log2(abs(x)); hw: " \
			"test_log_of_negative"
#define IEEE		"choice: IEEE-754 limit (no source measures it)"
#define NAN_RULE	"choice: NaN in, quiet NaN out (qpu_emu_float.c: " \
			"the addendum's no-NaN quirk is not modelled)"
#define FLUSH		"guide: denormals flushed to zero of the same sign; " \
			"then the zero row"

static const struct sfu_row sfu_rows[] = {
	{ RECIP, 0, F_INF, E_RECIP0 },
	{ RECIP, 0x80000000u, F_NINF, E_RECIP0 },
	{ RECIP, F_NEG4, 0xbe800000u, IEEE },
	{ RECIP, F_INF, 0, IEEE },
	{ RECIP, F_NINF, 0x80000000u, IEEE },
	{ RECIP, F_NAN, QPU_EMU_F_QNAN, NAN_RULE },
	{ RECIP, F_DENORM, F_INF, FLUSH },
	{ RECIP, F_NDENORM, F_NINF, FLUSH },
	{ RECIPSQRT, 0, F_INF, E_RECIP0 },
	{ RECIPSQRT, 0x80000000u, F_INF, E_RSQRT },
	{ RECIPSQRT, F_NEG4, 0x3f000000u, E_RSQRT },
	{ RECIPSQRT, F_INF, 0, IEEE },
	{ RECIPSQRT, F_NINF, 0, E_RSQRT },
	{ RECIPSQRT, F_NAN, QPU_EMU_F_QNAN, NAN_RULE },
	{ RECIPSQRT, F_DENORM, F_INF, FLUSH },
	{ RECIPSQRT, F_NDENORM, F_INF, FLUSH },
	{ EXP2, 0, F1_0, IEEE },
	{ EXP2, 0x80000000u, F1_0, IEEE },
	{ EXP2, F_NEG4, 0x3d800000u, IEEE },
	{ EXP2, F_INF, F_INF, IEEE },
	{ EXP2, F_NINF, 0, IEEE },
	{ EXP2, F_NAN, QPU_EMU_F_QNAN, NAN_RULE },
	{ EXP2, F_DENORM, F1_0, FLUSH },
	{ EXP2, F_NDENORM, F1_0, FLUSH },
	{ LOG2, 0, F_NINF, IEEE },
	{ LOG2, 0x80000000u, F_NINF, E_LOG },
	{ LOG2, F_NEG4, F2_0, E_LOG },
	{ LOG2, F_INF, F_INF, IEEE },
	{ LOG2, F_NINF, F_INF, E_LOG },
	{ LOG2, F_NAN, QPU_EMU_F_QNAN, NAN_RULE },
	{ LOG2, F_DENORM, F_NINF, FLUSH },
	{ LOG2, F_NDENORM, F_NINF, FLUSH },
};

/* Which op consumes or produces the value of a row: its instruction. */
static unsigned int add_op(enum unit u)
{
	return u == ADD_FLOAT ? QPU_ISA_A_FADD : QPU_ISA_A_ADD;
}

static unsigned int mul_op(enum unit u)
{
	return u == MUL_FLOAT ? QPU_ISA_M_FMUL : QPU_ISA_M_MUL24;
}

static bool is_add(enum unit u)
{
	return u == ADD_INT || u == ADD_FLOAT;
}

/* The instruction of a pack row: a op b into its destination. */
static struct qpu_isa_instr pack_instr(const struct conv_row *r)
{
	struct qpu_isa_instr in;

	if (is_add(r->unit)) {
		in = i_add(add_op(r->unit), RA_DST, QPU_ISA_MUX_R1,
			   QPU_ISA_MUX_R2);
	} else if (r->kind == PACK_A) {
		in = i_mul(mul_op(r->unit), RA_DST, QPU_ISA_MUX_R1,
			   QPU_ISA_MUX_R2);
		in.ws = true;	/* the mul unit writes regfile A */
	} else {
		in = i_mul(mul_op(r->unit), W_R3, QPU_ISA_MUX_R1,
			   QPU_ISA_MUX_R2);
	}
	in.pm = r->kind == PACK_MUL;
	in.pack = r->mode;
	return in;
}

/* The instruction of an unpack row: its value passed on into r0. */
static struct qpu_isa_instr unpack_instr(const struct conv_row *r)
{
	unsigned int mux = r->kind == UNPACK_A ? QPU_ISA_MUX_A : QPU_ISA_MUX_R4;
	struct qpu_isa_instr in;

	switch (r->unit) {
	case ADD_INT:
		in = i_add(QPU_ISA_A_OR, W_R0, mux, mux);
		break;
	case ADD_FLOAT:
		in = i_add(QPU_ISA_A_FMAX, W_R0, mux, mux);
		break;
	case MUL_INT:
		in = i_mul(QPU_ISA_M_V8MIN, W_R0, mux, mux);
		break;
	default:
		in = i_smi(i_mul(QPU_ISA_M_FMUL, W_R0, mux, QPU_ISA_MUX_B),
			   SMI_ONE);
		break;
	}
	in.raddr_a = RA_SRC;
	in.pm = r->kind == UNPACK_R4;
	in.unpack = r->mode;
	return in;
}

/* Where a row's program leaves its result. */
struct result_reg {
	enum qpu_emu_file file;	/* QPU_EMU_FILE_A or QPU_EMU_FILE_ACC */
	unsigned int reg;
};

/*
 * Emits the instructions of conversion row @r at @p; an r4 unpack reads its
 * operand through TMU0 from bus address @tmu_addr, whose 16 words are
 * @tmu_words. The row's own instruction is the last one emitted.
 */
static struct result_reg emit_conv(struct prog *p, const struct conv_row *r,
				   uint32_t tmu_addr, uint32_t *tmu_words)
{
	if (r->kind == PACK_A || r->kind == PACK_MUL) {
		bool to_r3 = r->kind == PACK_MUL && !is_add(r->unit);

		emit(p, i_ldi(W_R1, r->a));
		emit(p, i_ldi(W_R2, r->b));
		emit(p, i_ldi(to_r3 ? W_R3 : RA_DST, OLD));
		emit(p, i_nop());
		emit(p, pack_instr(r));
		if (to_r3)
			return (struct result_reg){ QPU_EMU_FILE_ACC, 3 };
		return (struct result_reg){ QPU_EMU_FILE_A, RA_DST };
	}
	if (r->kind == UNPACK_A) {
		emit(p, i_ldi(RA_SRC, r->a));
	} else {
		for (int i = 0; i < 16; i++)
			tmu_words[i] = r->a;
		emit(p, i_ldi(W_R1, tmu_addr));
		emit(p, i_mov(W_TMU0_S, QPU_ISA_MUX_R1));
		emit(p, i_sig(QPU_ISA_SIG_LDTMU0));
	}
	emit(p, i_nop());
	emit(p, unpack_instr(r));
	return (struct result_reg){ QPU_EMU_FILE_ACC, 0 };
}

/* ldi r1, x; mov sfu, r1; two nops; mov r0, r4 */
static struct result_reg emit_sfu(struct prog *p, const struct sfu_row *r)
{
	emit(p, i_ldi(W_R1, r->in));
	emit(p, i_mov(W_SFU_RECIP + r->op, QPU_ISA_MUX_R1));
	emit(p, i_nop());
	emit(p, i_nop());
	emit(p, i_mov(W_R0, QPU_ISA_MUX_R4));
	return (struct result_reg){ QPU_EMU_FILE_ACC, 0 };
}

static void conv_what(const struct conv_row *r, char *what, size_t size)
{
	snprintf(what, size, "%s %u, %s", kind_names[r->kind], r->mode,
		 unit_names[r->unit]);
}

static void row_failed(const char *way, const char *what, uint32_t a,
		       uint32_t b, uint32_t expect, uint32_t got,
		       const char *source)
{
	char m[400];

	snprintf(m, sizeof(m),
		 "%s: %s (%08x, %08x): expected %08x got %08x [%s]", way,
		 what, a, b, expect, got, source);
	t_report(__FILE__, __LINE__, m);
}

/* One check: all 16 lanes of @out are @r's @expect. */
static void check_lanes(const char *way, const char *what, uint32_t a,
			uint32_t b, uint32_t expect, const uint32_t *out,
			const char *source)
{
	t_checks++;
	for (int i = 0; i < 16; i++) {
		if (out[i] != expect) {
			row_failed(way, what, a, b, expect, out[i], source);
			return;
		}
	}
}

/* --- the emulator way: one program per row, registers read back ----------- */

/* How the emulator runs: SIMD level (0 is the kernel's code), predecode. */
struct config {
	int simd;
	bool predecode;
	char name[40];
};

/* Runs the program at CODE_BASE; the status, and @where's value in @out. */
static enum qpu_emu_status run(const struct config *c, struct result_reg where,
			       uint32_t out[16])
{
	struct qpu_emu *emu = t_emu_new(0);
	enum qpu_emu_status st;

	qpu_emu_set_predecode(emu, c->predecode);
	st = t_run1(emu, CODE_BASE, UNIF_BASE);
	if (st == QPU_EMU_IDLE)
		T_EQ_U64(0, qpu_emu_get_reg(emu, 0, where.file, where.reg,
					    out));
	free(emu);
	return st;
}

/* Runs row @r; @faults: the word is reserved and must fault instead. */
static void test_conv_row(const struct config *c, const struct conv_row *r,
			  bool faults)
{
	struct prog p = prog_at(CODE_BASE);
	enum qpu_emu_status st;
	struct result_reg where;
	uint32_t out[16];
	char what[80];

	conv_what(r, what, sizeof(what));
	where = emit_conv(&p, r, DATA_BASE, t_words(DATA_BASE));
	emit_end(&p);
	st = run(c, where, out);
	if (faults || st != QPU_EMU_IDLE) {
		/* then expected and got are qpu_emu_status values */
		t_checks++;
		strncat(what, ": run status", sizeof(what) - strlen(what) - 1);
		if (st != (faults ? QPU_EMU_FAULT : QPU_EMU_IDLE))
			row_failed(c->name, what, r->a, r->b,
				   faults ? QPU_EMU_FAULT : QPU_EMU_IDLE, st,
				   r->source);
		return;
	}
	check_lanes(c->name, what, r->a, r->b, r->expect, out, r->source);
}

static uint32_t sfu_call(enum sfu_op op, uint32_t x)
{
	switch (op) {
	case RECIP:
		return qpu_emu_recip(x);
	case RECIPSQRT:
		return qpu_emu_recipsqrt(x);
	case EXP2:
		return qpu_emu_exp2(x);
	default:
		return qpu_emu_log2(x);
	}
}

static void test_sfu_row(const struct config *c, const struct sfu_row *r)
{
	struct prog p = prog_at(CODE_BASE);
	struct result_reg where = emit_sfu(&p, r);
	enum qpu_emu_status st;
	uint32_t out[16], direct = sfu_call(r->op, r->in);

	emit_end(&p);
	st = run(c, where, out);
	t_checks++;
	if (direct != r->expect)
		row_failed(c->name, sfu_names[r->op], r->in, 0, r->expect,
			   direct, r->source);
	if (st != QPU_EMU_IDLE) {
		t_checks++;
		row_failed(c->name, "run status", r->in, 0, QPU_EMU_IDLE, st,
			   sfu_names[r->op]);
		return;
	}
	check_lanes(c->name, sfu_names[r->op], r->in, 0, r->expect, out,
		    r->source);
}

static void test_config(const struct config *c)
{
	struct conv_row rsv = { PACK_MUL, 0, ADD_INT, 1, 2, 0, G_MULPACK_RSV };

	for (size_t k = 0; k < T_ARRAY_SIZE(conv_rows); k++)
		test_conv_row(c, &conv_rows[k], false);
	for (size_t k = 0; k < T_ARRAY_SIZE(reserved_mul_packs); k++) {
		rsv.mode = reserved_mul_packs[k];
		for (rsv.unit = ADD_INT; rsv.unit <= MUL_FLOAT; rsv.unit++)
			test_conv_row(c, &rsv, true);
	}
	for (size_t k = 0; k < T_ARRAY_SIZE(sfu_rows); k++)
		test_sfu_row(c, &sfu_rows[k]);
}

/* The device named by --device; the emulator case runs without one. */
static const char *device_path;

T_TEST(emulator)
{
	int best, levels[2] = { 0, 0 };
	struct config c;

	if (device_path)
		T_SKIP("--device %s: the device way only", device_path);
	best = qpu_emu_float_simd(-1);
	levels[1] = best;
	for (int l = 0; l < (best ? 2 : 1); l++) {
		for (int pd = 0; pd < 2; pd++) {
			c.simd = qpu_emu_float_simd(levels[l]);
			c.predecode = pd;
			snprintf(c.name, sizeof(c.name), "simd %d, predecode %s",
				 c.simd, pd ? "on" : "off");
			test_config(&c);
		}
	}
	qpu_emu_float_simd(-1);
}

/* --- the device way: batches of rows, results stored to memory ------------ */

/*
 * The VDR pitch and VDW stride rows: @rows rows of 16 words, @pitch bytes
 * apart in memory, load into VPM rows 0.. (VDR extended pitch setup) and
 * store back with VDW stride @stride, so row r lands at r * (64 + @stride).
 * They run on devices only (the emulator's own twin of the sgemm row, which
 * also reads the VPM, is test-emu-vpm's test_dma_wide_strides).
 */
struct dma_row {
	uint32_t pitch, stride;
	unsigned int rows;
	const char *source;
};

#define G_DMA13		"guide, Tables 35 and 37: 13-bit VDW stride and " \
			"VDR pitch"
#define HW_SGEMM	"hw: PyVideoCore's sgemm example, C rows of 3072 " \
			"floats (qpu_vpm.h)"
#define CH_DMA16	"vc4asm vc4.qinc: the VDW stride is 16 bits; " \
			"choice: the VDR pitch too (qpu_vpm.h)"

static const struct dma_row dma_rows[] = {
	{ 128, 64, 3, G_DMA13 },
	{ 12288, 12224, 3, HW_SGEMM },
	{ 0xffc0, 0xff80, 3, CH_DMA16 },
};

/*
 * Rows per job: each row writes its result to the next VPM row (a QPU
 * reaches QPU_VPM_ROWS of them) and one VDW stores them all, 64 bytes a
 * row, so a few jobs run every row.
 */
#define DEV_BATCH	QPU_VPM_ROWS
#define DEV_ROWS	(T_ARRAY_SIZE(conv_rows) + T_ARRAY_SIZE(sfu_rows))
#define POISON		0xeeeeeeeeu	/* memory no store reached */

static void poison(struct qpu_bo *bo)
{
	uint32_t *w = qpu_bo_get_map(bo);

	for (size_t i = 0; i < qpu_bo_get_size(bo) / 4; i++)
		w[i] = POISON;
}

struct dev_run {
	struct qpu_dev *dev;
	const char *way;
	struct qpu_bo *code, *unif;
};

/*
 * Runs the program built at CODE_BASE (@n instructions) alone on the
 * device, with @data and @out. False if the job could not be run (then
 * reported).
 */
static bool dev_job(struct dev_run *d, unsigned int n, struct qpu_bo *data,
		    struct qpu_bo *out, struct qpu_job_result *res)
{
	struct qpu_program_ref prog = { .code = d->code, .uniforms = d->unif };
	struct qpu_bo *bos[] = { data, out };
	struct qpu_job_desc desc = {
		.programs = &prog, .program_count = 1,
		.bos = bos, .bo_count = T_ARRAY_SIZE(bos), .in_fence_fd = -1,
	};
	uint64_t seqno;
	int ret;

	memcpy(qpu_bo_get_map(d->code), t_words(CODE_BASE), n * 8);
	ret = qpu_submit(d->dev, &desc, &seqno);
	if (!ret)
		ret = qpu_wait(d->dev, seqno, -1, res);
	T_EQ_U64(0, ret);
	return !ret;
}

/* The job ended as @expect (a QPU_JOB_* status); says so if not. */
static bool dev_status(const struct dev_run *d, const char *what,
		       const struct qpu_job_result *res, uint32_t expect)
{
	char m[200];

	t_checks++;
	if (res->status == expect)
		return true;
	snprintf(m, sizeof(m), "%s: %s: job %s (fault at %08x, access %u), "
		 "expected %s", d->way, what, qpu_job_status_str(res->status),
		 res->fault_pc, res->fault_access, qpu_job_status_str(expect));
	t_report(__FILE__, __LINE__, m);
	return false;
}

/* Device row @k: conversion rows, then SFU rows. */
static struct result_reg emit_dev_row(struct prog *p, size_t k,
				      uint32_t tmu_addr, uint32_t *tmu_words)
{
	if (k < T_ARRAY_SIZE(conv_rows))
		return emit_conv(p, &conv_rows[k], tmu_addr, tmu_words);
	return emit_sfu(p, &sfu_rows[k - T_ARRAY_SIZE(conv_rows)]);
}

static void check_dev_row(const struct dev_run *d, size_t k,
			  const uint32_t *out)
{
	const struct conv_row *c;
	const struct sfu_row *s;
	char what[80];

	if (k < T_ARRAY_SIZE(conv_rows)) {
		c = &conv_rows[k];
		conv_what(c, what, sizeof(what));
		check_lanes(d->way, what, c->a, c->b, c->expect, out,
			    c->source);
		return;
	}
	s = &sfu_rows[k - T_ARRAY_SIZE(conv_rows)];
	check_lanes(d->way, sfu_names[s->op], s->in, 0, s->expect, out,
		    s->source);
}

/*
 * Rows @first.. (up to DEV_BATCH) in one program: each row's instructions,
 * then "mov vpm, <its result>" (a nop first for a regfile-A result, which
 * an instruction cannot read right after its write); one VDW stores the
 * rows' vectors to @out at row @first's 64 bytes and on.
 */
static void test_dev_batch(struct dev_run *d, size_t first,
			   struct qpu_bo *data, struct qpu_bo *out)
{
	size_t n = DEV_ROWS - first < DEV_BATCH ? DEV_ROWS - first : DEV_BATCH;
	uint32_t *tmu = qpu_bo_get_map(data), *o = qpu_bo_get_map(out);
	uint32_t tmu_bus = qpu_bo_get_bus_addr(data);
	struct prog p = prog_at(CODE_BASE);
	struct qpu_job_result res;
	char what[40];

	snprintf(what, sizeof(what), "rows %zu..%zu", first, first + n - 1);
	emit(&p, i_ldi_b(W_VPM_SETUP, qpu_vpm_setup(0, 1,
		qpu_vpm_addr(true, false, QPU_VPM_SIZE_32, 0, 0, 0))));
	for (size_t j = 0; j < n; j++) {
		struct result_reg where = emit_dev_row(&p, first + j,
						       tmu_bus + 64 * j,
						       tmu + 16 * j);

		if (where.file == QPU_EMU_FILE_A) {
			struct qpu_isa_instr in = i_mov(W_VPM, QPU_ISA_MUX_A);

			in.raddr_a = where.reg;
			emit(&p, i_nop());
			emit(&p, in);
		} else {
			emit(&p, i_mov(W_VPM, QPU_ISA_MUX_R0 + where.reg));
		}
	}
	emit(&p, i_ldi_b(W_VPM_SETUP, qpu_vdw_setup1(0)));
	emit(&p, i_ldi_b(W_VPM_SETUP, qpu_vdw_setup0(n, 16,
		qpu_vdw_dma(true, QPU_VPM_SIZE_32, 0, 0, 0))));
	emit(&p, i_ldi_b(W_DMA_ADDR, qpu_bo_get_bus_addr(out) + 64 * first));
	emit(&p, i_read(R_NOP, R_WAIT));
	emit_end(&p);
	if (!dev_job(d, p.n, data, out, &res) ||
	    !dev_status(d, what, &res, QPU_JOB_DONE))
		return;
	for (size_t j = 0; j < n; j++)
		check_dev_row(d, first + j, o + 16 * (first + j));
}

/* A reserved mul pack: the job ends with a fault at that instruction. */
static void test_dev_reserved(struct dev_run *d, struct qpu_bo *data,
			      struct qpu_bo *out, const struct conv_row *r)
{
	struct prog p = prog_at(CODE_BASE);
	struct qpu_job_result res;
	uint32_t pc;
	char what[80];

	conv_what(r, what, sizeof(what));
	emit_conv(&p, r, qpu_bo_get_bus_addr(data), qpu_bo_get_map(data));
	pc = qpu_bo_get_bus_addr(d->code) + (p.n - 1) * 8;
	emit_end(&p);
	if (!dev_job(d, p.n, data, out, &res) ||
	    !dev_status(d, what, &res, QPU_JOB_FAULT))
		return;
	T_EQ_U64(pc, res.fault_pc);
	T_EQ_U64(QPU_FAULT_OTHER, res.fault_access);
}

static uint32_t dma_word(unsigned int i)
{
	return 0x0d000000u | i;
}

/*
 * Row @row of @r's store, at @o: the loaded row's 16 words (one check, its
 * first wrong word reported), then the stride's gap after it untouched.
 */
static void check_dma_row(const struct dev_run *d, const struct dma_row *r,
			  const char *what, unsigned int row, const uint32_t *o)
{
	char m[300];

	for (unsigned int k = 0; k <= 16; k++) {
		uint32_t expect = k < 16 ? dma_word(r->pitch / 4 * row + k) :
			POISON;

		if (k == 0 || k == 16)
			t_checks++;
		if (o[k] == expect)
			continue;
		snprintf(m, sizeof(m), "%s: %s, row %u word %u: expected %08x "
			 "got %08x [%s]", d->way, what, row, k, expect, o[k],
			 r->source);
		t_report(__FILE__, __LINE__, m);
		if (k < 16)
			k = 15;		/* on to the gap */
	}
}

/*
 * ldi vr_setup, vdr_setup_1(pitch); ldi vr_setup, vdr_setup_0(rows of 16
 * words, horizontal, VPM row 0); ldi vr_addr, data; read vr_wait; then the
 * same rows out through vw_setup with vdw_setup_1(stride).
 */
static void test_dev_dma(struct dev_run *d, const struct dma_row *r)
{
	uint32_t gap = (64 + r->stride) / 4;
	size_t out_bytes = (size_t)gap * 4 * r->rows + 4;
	struct qpu_bo *data = t_bo_or_die(d->dev, (size_t)r->pitch * r->rows);
	struct qpu_bo *out = t_bo_or_die(d->dev, out_bytes);
	uint32_t *m = qpu_bo_get_map(data), *o = qpu_bo_get_map(out);
	struct prog p = prog_at(CODE_BASE);
	struct qpu_job_result res;
	char what[80];

	snprintf(what, sizeof(what), "VDR pitch %u, VDW stride %u", r->pitch,
		 r->stride);
	for (unsigned int i = 0; i < r->pitch / 4 * r->rows; i++)
		m[i] = dma_word(i);
	poison(out);
	emit(&p, i_ldi(W_VPM_SETUP, qpu_vdr_setup1(r->pitch)));
	emit(&p, i_ldi(W_VPM_SETUP, qpu_vdr_setup0(0, 16, r->rows,
		qpu_vdr_dma(true, QPU_VPM_SIZE_32, 1, 0, 0, 0))));
	emit(&p, i_ldi(W_DMA_ADDR, qpu_bo_get_bus_addr(data)));
	emit(&p, i_read(R_WAIT, R_NOP));
	emit(&p, i_ldi_b(W_VPM_SETUP, qpu_vdw_setup1(r->stride)));
	emit(&p, i_ldi_b(W_VPM_SETUP, qpu_vdw_setup0(r->rows, 16,
		qpu_vdw_dma(true, QPU_VPM_SIZE_32, 0, 0, 0))));
	emit(&p, i_ldi_b(W_DMA_ADDR, qpu_bo_get_bus_addr(out)));
	emit(&p, i_read(R_NOP, R_WAIT));
	emit_end(&p);
	if (dev_job(d, p.n, data, out, &res) &&
	    dev_status(d, what, &res, QPU_JOB_DONE)) {
		for (unsigned int row = 0; row < r->rows; row++)
			check_dma_row(d, r, what, row, &o[gap * row]);
	}
	qpu_bo_free(out);
	qpu_bo_free(data);
}

T_TEST(device)
{
	const char *path = device_path ? device_path : "emu";
	struct conv_row rsv = { PACK_MUL, 0, ADD_INT, 1, 2, 0, G_MULPACK_RSV };
	struct qpu_bo *data, *out;
	struct dev_run d;
	char way[80];

	d.dev = qpu_dev_open(path);
	t_checks++;
	if (!d.dev) {
		snprintf(way, sizeof(way), "qpu_dev_open(%s): %s", path,
			 strerror(errno));
		t_report(__FILE__, __LINE__, way);
		return;
	}
	printf("device: %s (%s)\n", qpu_dev_get_path(d.dev),
	       qpu_dev_describe(d.dev));
	fflush(stdout);		/* before any failure on stderr */
	snprintf(way, sizeof(way), "device %s", path);
	d.way = way;
	d.code = t_bo_or_die(d.dev, REGION_BYTES);
	d.unif = t_bo_or_die(d.dev, 4096);
	data = t_bo_or_die(d.dev, 64 * DEV_BATCH);
	out = t_bo_or_die(d.dev, 64 * DEV_ROWS);
	poison(out);
	for (size_t first = 0; first < DEV_ROWS; first += DEV_BATCH)
		test_dev_batch(&d, first, data, out);
	for (size_t k = 0; k < T_ARRAY_SIZE(reserved_mul_packs); k++) {
		rsv.mode = reserved_mul_packs[k];
		for (rsv.unit = ADD_INT; rsv.unit <= MUL_FLOAT; rsv.unit++)
			test_dev_reserved(&d, data, out, &rsv);
	}
	for (size_t k = 0; k < T_ARRAY_SIZE(dma_rows); k++)
		test_dev_dma(&d, &dma_rows[k]);
	qpu_bo_free(out);
	qpu_bo_free(data);
	qpu_bo_free(d.unif);
	qpu_bo_free(d.code);
	qpu_dev_close(d.dev);
}

static const struct t_option options[] = {
	{ "device", &device_path, "DEVICE" },
	{ NULL, NULL, NULL },
};

T_MAIN(.options = options)
