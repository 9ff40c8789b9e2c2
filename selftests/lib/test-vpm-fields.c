// SPDX-License-Identifier: MIT
/*
 * The fields of the VPM and VCD DMA setup words (qpu_vpm.h): every field
 * gives back what was put in it and keeps within its bits, the fields of
 * one word do not overlap, and the emulator decodes words made by the
 * builders into the fields they were made from.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qpu_emu_internal.h"
#include "qpu_vpm.h"
#include "testlib.h"

struct field {
	const char *name;
	u32 mask;
};

#define F(m)	{ #m, m }

static const struct field generic[] = {
	F(QPU_VPM_NUM), F(QPU_VPM_STRIDE), F(QPU_VPM_HORIZ), F(QPU_VPM_LANED),
	F(QPU_VPM_SIZE), F(QPU_VPM_ADDR),
};
static const struct field vdw[] = {
	F(QPU_VDW_ID), F(QPU_VDW_UNITS), F(QPU_VDW_DEPTH), F(QPU_VDW_HORIZ),
	F(QPU_VDW_Y), F(QPU_VDW_X), F(QPU_VDW_MODEW),
};
static const struct field vdw_stride[] = { F(QPU_VDW_ID), F(QPU_VDW_STRIDE) };
static const struct field vdr[] = {
	F(QPU_VDR_ID), F(QPU_VDR_MODEW), F(QPU_VDR_MPITCH), F(QPU_VDR_ROWLEN),
	F(QPU_VDR_NROWS), F(QPU_VDR_VPITCH), F(QPU_VDR_VERT), F(QPU_VDR_Y),
	F(QPU_VDR_X),
};
static const struct field vdr_pitch[] = { F(QPU_VDR_ID_EXT), F(QPU_VDR_MPITCHB) };

/* Put then get, for every value of small fields and the edges of wide ones. */
static void check_fields(const struct field *f, size_t n, u32 expected_bits)
{
	u32 all = 0;
	size_t i, j;

	for (i = 0; i < n; i++) {
		u32 m = f[i].mask, max = m >> __builtin_ctz(m), v;
		u32 probes[] = { 0, 1, max / 2, max - 1, max, 0x5555 & max, 0xaaaa & max };

		for (v = 0; max <= 255 && v <= max; v++) {
			u32 w = QPU_FIELD_PREP(m, v);

			T_CHECK(QPU_FIELD_GET(m, w) == v && !(w & ~m));
		}
		for (j = 0; j < T_ARRAY_SIZE(probes); j++)
			T_CHECK(QPU_FIELD_GET(m, QPU_FIELD_PREP(m, probes[j])) == probes[j]);
		/* a value too wide is cut to the field, as the builders promise */
		T_CHECK(QPU_FIELD_PREP(m, max + 1) == 0 || max == 0xffffffffu);
		T_CHECK(QPU_FIELD_GET(m, ~0u) == max);
		for (j = 0; j < i; j++)
			if (f[i].mask & f[j].mask) {
				char msg[128];

				snprintf(msg, sizeof(msg), "%s overlaps %s", f[i].name, f[j].name);
				t_report(__FILE__, __LINE__, msg);
			}
		all |= m;
	}
	T_EQ_U64(expected_bits, all);
}

/* The QPU whose VPM state the decode cases fill; zeroed before each use. */
static struct qpu_emu_qpu *q;

static int alloc_qpu(void)
{
	q = calloc(1, sizeof(*q));
	return q ? T_EXIT_PASS : T_EXIT_FAIL;
}

static void free_qpu(void)
{
	free(q);
}

T_TEST(field_layout)
{
	t_checks++;
	/* a generic setup leaves bits 31:24 (its ID) and 19:18 unused */
	check_fields(generic, T_ARRAY_SIZE(generic), 0x00f3ffff);
	/* VDW bit 15 is write-as-zero */
	check_fields(vdw, T_ARRAY_SIZE(vdw), 0xffff7fff);
	check_fields(vdw_stride, T_ARRAY_SIZE(vdw_stride), 0xc000ffff);
	check_fields(vdr, T_ARRAY_SIZE(vdr), 0xffffffff);
	check_fields(vdr_pitch, T_ARRAY_SIZE(vdr_pitch), 0xf000ffff);
}

/* A generic setup made by qpu_vpm_setup() as the emulator decodes it. */
T_TEST(generic_decode)
{
	static const enum qpu_vpm_size sizes[] = {
		QPU_VPM_SIZE_8, QPU_VPM_SIZE_16, QPU_VPM_SIZE_32,
	};
	unsigned int num, stride, s, horiz, laned, y;

	for (s = 0; s < T_ARRAY_SIZE(sizes); s++)
	for (horiz = 0; horiz < 2; horiz++)
	for (laned = 0; laned < 2; laned++)
	for (num = 0; num < 16; num++)
	for (stride = 0; stride < 64; stride += 7)
	for (y = 0; y < 64; y += horiz ? 9 : 16) {
		u32 addr = qpu_vpm_addr(horiz, laned, sizes[s], y, 5, 1);
		u32 w = qpu_vpm_setup(num, stride, addr);
		bool is_laned = laned && sizes[s] != QPU_VPM_SIZE_32;

		memset(q, 0, sizeof(*q));
		qpu_emu_vpm_setup(q, w, false);
		T_CHECK(q->vr.left == (num ? num : 16) && q->vr.stride == (stride ? stride : 64) &&
			q->vr.size == sizes[s] && q->vr.horiz == horiz &&
			q->vr.laned == is_laned &&
			q->vr.addr == QPU_FIELD_GET(QPU_VPM_ADDR, addr) &&
			!q->vdr_setup && !q->vdr_pitch);
		memset(q, 0, sizeof(*q));
		w = qpu_vpm_setup(0, stride, addr);
		qpu_emu_vpm_setup(q, w, true);
		T_CHECK(q->vw.stride == (stride ? stride : 64) && q->vw.size == sizes[s] &&
			q->vw.horiz == horiz && q->vw.laned == is_laned &&
			q->vw.addr == QPU_FIELD_GET(QPU_VPM_ADDR, addr) &&
			!q->vdw_setup && !q->vdw_stride);
	}
}

/* DMA setups: the emulator keeps them whole, in the right register. */
T_TEST(dma_decode)
{
	unsigned int units, y, x, part, vpitch, mpitch;
	u32 w, dma;

	for (units = 0; units < 128; units += 9)
	for (y = 0; y < 128; y += 13)
	for (x = 0; x < 16; x += 5)
	for (part = 0; part < 4; part++) {
		dma = qpu_vdw_dma(x & 1, part & 1 ? QPU_VPM_SIZE_8 : QPU_VPM_SIZE_16, y, x, part);
		w = qpu_vdw_setup0(units, 127 - units, dma);
		memset(q, 0, sizeof(*q));
		qpu_emu_vpm_setup(q, w, true);
		T_CHECK(q->vdw_setup == w && !q->vdw_stride && !q->vw.stride);
		T_CHECK(QPU_FIELD_GET(QPU_VDW_ID, w) == QPU_VDW_ID_BASIC &&
			QPU_FIELD_GET(QPU_VDW_UNITS, w) == units &&
			QPU_FIELD_GET(QPU_VDW_DEPTH, w) == 127 - units &&
			QPU_FIELD_GET(QPU_VDW_HORIZ, w) == (x & 1) &&
			QPU_FIELD_GET(QPU_VDW_Y, w) == y && QPU_FIELD_GET(QPU_VDW_X, w) == x &&
			QPU_FIELD_GET(QPU_VDW_MODEW, w) ==
			(part & 1 ? QPU_VPM_MODEW_8 | part : QPU_VPM_MODEW_16 | (part & 1)));
	}
	for (mpitch = 0; mpitch < 16; mpitch++)
	for (vpitch = 0; vpitch < 16; vpitch += 3)
	for (y = 0; y < 128; y += 17) {
		x = (mpitch + y) & 15;
		dma = qpu_vdr_dma(vpitch & 1, QPU_VPM_SIZE_32, vpitch, y, x, 0);
		w = qpu_vdr_setup0(mpitch, 15 - mpitch, vpitch, dma);
		memset(q, 0, sizeof(*q));
		qpu_emu_vpm_setup(q, w, false);
		T_CHECK(q->vdr_setup == w && !q->vdr_pitch && !q->vr.stride);
		T_CHECK(QPU_FIELD_GET(QPU_VDR_ID, w) && !QPU_FIELD_GET(QPU_VDR_MODEW, w) &&
			QPU_FIELD_GET(QPU_VDR_MPITCH, w) == mpitch &&
			QPU_FIELD_GET(QPU_VDR_ROWLEN, w) == 15 - mpitch &&
			QPU_FIELD_GET(QPU_VDR_NROWS, w) == vpitch &&
			QPU_FIELD_GET(QPU_VDR_VPITCH, w) == vpitch &&
			QPU_FIELD_GET(QPU_VDR_VERT, w) == !(vpitch & 1) &&
			QPU_FIELD_GET(QPU_VDR_Y, w) == y && QPU_FIELD_GET(QPU_VDR_X, w) == x);
	}
	for (w = 0; w <= 0xffff; w += 0x1111) {
		memset(q, 0, sizeof(*q));
		qpu_emu_vpm_setup(q, qpu_vdw_setup1(w), true);
		T_CHECK(q->vdw_stride == w && !q->vdw_setup);
		memset(q, 0, sizeof(*q));
		qpu_emu_vpm_setup(q, qpu_vdr_setup1(w), false);
		T_CHECK(q->vdr_pitch == w && !q->vdr_setup);
	}
	/* the stride and pitch words cut what does not fit their 16 bits */
	T_EQ_U64(qpu_vdw_setup1(0x1234), qpu_vdw_setup1(0x51234));
	T_EQ_U64(qpu_vdr_setup1(0x1234), qpu_vdr_setup1(0x71234));
}

T_MAIN(.setup = alloc_qpu, .teardown = free_qpu)
