// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * The emulator's VPM: the generic vector reads and writes a QPU sets up
 * with vr_setup/vw_setup (32, 16 and 8 bits, packed or laned) and VCD DMA
 * between the VPM and memory. Apart from the rest of the emulator because
 * the layouts are a topic of their own; nothing here is on the hot path
 * of compute code, so plain calls across the two files cost nothing
 * measurable. Both DMA directions check every access before moving a
 * byte, so a refused transfer changes nothing. FFT-shaped programs move
 * whole 32-bit rows each pass: those go by shortcuts (see fast_rows()).
 */
#include "qpu_emu_internal.h"
#include "qpu_vpm.h"

/*
 * May 32-bit horizontal rows take the shortcuts below, which give what the
 * general element loops give with one bounds check a row? Not without
 * predecoding: the reference test-emu-fuzz compares them with.
 */
static inline bool fast_rows(const struct qpu_emu_exec *x)
{
	return !x->emu->no_predecode;
}

/* --- generic access ------------------------------------------------------ */

/*
 * Word index of element @i of the generic-access vector at the decoded
 * address @a of setup @s, and in *@shift the bit where its 8 or 16 bits
 * start (0 for 32-bit).
 *
 * DOC: VPM generic access widths
 * The address fields follow the Reference Guide (section 7, the generic
 * block setup tables): "the LS 1 or 2 bits select the Half-word or Byte
 * sub-vector for 16 or 8-bit width", so an 8-bit address is {Y[5:0],
 * B[1:0]} horizontal and {Y[5:4], X[3:0], B[1:0]} vertical, a 16-bit one
 * {Y[5:0], H} and {Y[5:4], X[3:0], H}, a 32-bit one Y and {Y[5:4], X[3:0]}.
 * So a QPU sees 64 rows of the VPM ("a maximum height of 64 words", as
 * VC4C quotes the guide); only VCD DMA reaches the rest of our 12 KiB.
 * The hardware decodes only those bits: the address 0x60 of a vertical
 * 32-bit access is 0x20, so a stride of 64 ("0 => 64") leaves the address
 * where it is, and generated programs that set up one vertical write with
 * stride 0 and store a vector per write rely on it. An address past the
 * 64 rows (a setup's ADDR bits the mode does not name, or strides walking
 * off the end) therefore wraps: the low 6 (32-bit), 7 (16-bit) or 8
 * (8-bit) bits are the address, and stats.vpm_wrapped counts the access.
 * With qpu_emu_set_strict_vpm() it stops the job with QPU_FAULT_REASON_VPM
 * instead (at the byte address it would have reached): our own kernels'
 * tests turn that on, since in a kernel of ours a wrap is a bug.
 * LANED ("0,1 = Packed, Laned.
 * Ignored for 32-bit width"): laned, the vector is byte/halfword lane B/H
 * of 16 words (a row, or a column of a 16-row block); packed, it is 16
 * consecutive bytes/halfwords and B/H picks which 16 of the row's 64 bytes
 * (horizontal) or of the column's (vertical, 4 bytes a row, from the top
 * of the block). 8/16-bit reads are zero-extended; writes change only
 * their byte or halfword. STRIDE is added to the whole address, so with
 * stride 1 successive packed vectors fill a row. Our choice where the
 * guide has only figures: the packed order within a word is little-endian
 * (element 0 in bits 7:0), as VC4C's emulator also reads it.
 */
static u32 vpm_elem(const struct qpu_emu_vpm_setup *s, u32 a, unsigned int i,
		    u32 *shift)
{
	u32 w = s->size ? 2 : 1, per = 4u >> s->size;	/* size < 3 */
	u32 sel, x, row, pos;

	*shift = 0;
	if (s->size == 2) {
		if (s->horiz)
			return a * 16 + i;
		return ((a >> 4) * 16 + i) * 16 + (a & 15);
	}
	sel = a & (per - 1);
	a /= per;			/* now {Y} or {Y[..:4], X[3:0]} */
	if (s->laned) {
		*shift = sel * 8 * w;
		if (s->horiz)
			return a * 16 + i;
		return ((a >> 4) * 16 + i) * 16 + (a & 15);
	}
	pos = (16 * sel + i) * w;	/* byte offset in the row or column */
	*shift = (pos & 3) * 8;
	if (s->horiz)
		return a * 16 + pos / 4;
	x = a & 15;
	row = (a >> 4) * 16 + pos / 4;
	return row * 16 + x;
}

/*
 * The address the hardware decodes for the access @s sets up (its mode's
 * 64 rows: 64 addresses a row's 1, 2 or 4 parts), in *@a; false when the
 * job stops instead (the reserved size, or a wrap under strict checks).
 */
static bool vpm_check(struct qpu_emu_exec *x,
		      const struct qpu_emu_vpm_setup *s, u32 *a)
{
	u32 per, sh;

	if (s->size == 3) {
		qpu_emu_bad_instr(x);	/* the reserved size */
		return false;
	}
	per = 4u >> s->size;	/* 4, 2 or 1 parts a row, without a division */
	*a = s->addr & (QPU_VPM_ROWS * per - 1);
	if (*a == s->addr)
		return true;
	if (x->emu->strict_vpm) {
		qpu_emu_set_fault(x, QPU_FAULT_REASON_VPM,
				  vpm_elem(s, s->addr, 0, &sh) * 4,
				  QPU_MEM_FETCH);
		return false;
	}
	x->emu->stats.vpm_wrapped++;
	return true;
}

/*
 * A read right after its setup gets the vector set up. The guide (section
 * 7, page 56) gives the data "a minimum latency of three QPU instructions"
 * and says reads "made too early ... will return immediately with
 * undefined data"; vc4asm's addendum measured on a Pi that they stall
 * instead and return the right data. The set-up vector is one of the
 * values "undefined" allows and the one a Pi gives, so the emulator
 * returns it without modelling the stall (test-emu-vpm's emit_read()
 * reads in the instruction after the setup); the hazard checker's
 * vpm-read-latency flags such reads when their value is used.
 */
void qpu_emu_vpm_read(struct qpu_emu_exec *x, u32 *out)
{
	struct qpu_emu_vpm_setup *s = &x->q->vr;
	u32 a, sh, mask = s->size ? 0xffff : 0xff;
	unsigned int i;

	if (!vpm_check(x, s, &a))
		return;
	if (s->size == 2 && s->horiz && fast_rows(x)) {
		/* a row: vpm_elem()'s a * 16 + i, copied at once */
		copy_lanes(out, &x->emu->vpm[a * 16]);
	} else if (s->size == 2) {
		for (i = 0; i < LANES; i++)
			out[i] = x->emu->vpm[vpm_elem(s, a, i, &sh)];
	} else {	/* 8 and 16 bits read zero-extended */
		for (i = 0; i < LANES; i++) {
			u32 w = vpm_elem(s, a, i, &sh);

			out[i] = (x->emu->vpm[w] >> sh) & mask;
		}
	}
	s->addr += s->stride;
	s->left--;
}

void qpu_emu_vpm_write(struct qpu_emu_exec *x, const u32 *v, u16 mask)
{
	struct qpu_emu_vpm_setup *s = &x->q->vw;
	u32 a, sh, m = s->size ? 0xffff : 0xff;
	unsigned int i;

	if (!vpm_check(x, s, &a))
		return;
	if (s->size == 2 && s->horiz && mask == ALL_LANES && fast_rows(x)) {
		/* a whole row: vpm_elem()'s a * 16 + i, copied at once */
		copy_lanes(&x->emu->vpm[a * 16], v);
		s->addr += s->stride;
		return;
	}
	for (i = 0; i < LANES; i++) {
		u32 *w;

		if (!(mask & (1u << i)))
			continue;
		w = &x->emu->vpm[vpm_elem(s, a, i, &sh)];
		if (s->size == 2)
			*w = v[i];
		else
			*w = (*w & ~(m << sh)) | (v[i] & m) << sh;
	}
	s->addr += s->stride;
}

/* A generic block setup written to vr_setup (@rd) or vw_setup. */
static void vpm_block_setup(struct qpu_emu_vpm_setup *s, u32 v, bool rd)
{
	s->addr = QPU_FIELD_GET(QPU_VPM_ADDR, v);
	s->size = QPU_FIELD_GET(QPU_VPM_SIZE, v);
	s->laned = QPU_FIELD_GET(QPU_VPM_LANED, v);
	s->horiz = QPU_FIELD_GET(QPU_VPM_HORIZ, v);
	s->stride = QPU_FIELD_GET(QPU_VPM_STRIDE, v);
	if (!s->stride)
		s->stride = 64;
	if (rd) {
		s->left = QPU_FIELD_GET(QPU_VPM_NUM, v);
		if (!s->left)
			s->left = 16;
	}
}

/*
 * A word written to vw_setup (@vw) or vr_setup: its ID bits pick the
 * VDW stride or basic setup, the VDR extended pitch or basic setup, else
 * a generic block setup.
 */
void qpu_emu_vpm_setup(struct qpu_emu_qpu *q, u32 v, bool vw)
{
	if (vw) {
		u32 id = QPU_FIELD_GET(QPU_VDW_ID, v);

		if (id == QPU_VDW_ID_STRIDE)
			q->vdw_stride = QPU_FIELD_GET(QPU_VDW_STRIDE, v);
		else if (id == QPU_VDW_ID_BASIC)
			q->vdw_setup = v;
		else
			vpm_block_setup(&q->vw, v, false);
		return;
	}
	if (QPU_FIELD_GET(QPU_VDR_ID_EXT, v) == QPU_VDR_ID_PITCH)
		q->vdr_pitch = QPU_FIELD_GET(QPU_VDR_MPITCHB, v);
	else if (QPU_FIELD_GET(QPU_VDR_ID, v))
		q->vdr_setup = v;
	else
		vpm_block_setup(&q->vr, v, true);
}

/* --- VCD DMA ------------------------------------------------------------- */

/*
 * DOC: VCD DMA widths
 * MODEW (VDR bits 30:28, VDW bits 2:0) is 0 for 32-bit elements, 2-3 for
 * 16-bit with halfword select MODEW[0], 4-7 for 8-bit with byte select
 * MODEW[1:0]; 1 is the VDR extended pitch setup, and reserved in a VDW
 * setup (a fault). The guide marks the selects "packed only" and VDW bit 15
 * write-as-zero: DMA always uses the packed layout of the generic accesses,
 * so a select picks the same 16 bytes/halfwords a generic address's B/H
 * does. Positions below are in bytes of the VPM seen as 64-byte rows.
 * - VDR: VPITCH is added to {Y, sel} after each memory row, in both
 *   orientations: the guide's VDR table says it is "added to the Y address
 *   and Byte/Half-word sel after each row is loaded, for both horizontal
 *   and vertical modes" ({Y[1:0], B[1:0]} for 8 bits, {Y[2:0], H[0]} for
 *   16, Y for 32; carries reach the whole Y). Measured on a Pi for 32 bits
 *   in published VPM notes ("VDR has VPITCH which adds to the Y address,
 *   and does not touch the X address"), and relied on by PyVideoCore's
 *   vertical load test (4 rows, VPITCH 16: rows 0, 16, 32, 48 of one
 *   column). The narrower widths follow the guide's sentence, which has
 *   no exception for them. Element k of memory row r goes to byte
 *   4X + 16*w*sel + k*w of row Y' (wrapping within the row, as 32-bit X
 *   does), or vertical down column X from byte 16*w*sel + k*w of the
 *   column (4 bytes a row) starting at row Y'.
 * - VDW: unit u reads row Y+u from byte 4X + 16*w*sel (running on into the
 *   next rows, as 32-bit DEPTH does), or column X+u from byte 16*w*sel of
 *   the column starting at row Y.
 * Memory rows need only be aligned to the element width.
 */

/* Word index in the VPM of byte @pos of row @row, or of column @col. */
static u32 dma_word(bool vert, u32 row, u32 col, u32 pos)
{
	if (vert)
		return (row + pos / 4) * 16 + col;
	return row * 16 + pos / 4;
}

static bool dma_vpm_ok(struct qpu_emu_exec *x, u32 word)
{
	if (word < QPU_EMU_VPM_WORDS)
		return true;
	qpu_emu_set_fault(x, QPU_FAULT_REASON_VPM, word * 4, QPU_MEM_FETCH);
	return false;
}

static u32 rd_n(const u8 *p, u32 w)
{
	if (w == 4)
		return rd32(p);
	return w == 2 ? (u32)(p[0] | p[1] << 8) : p[0];
}

static void wr_n(u8 *p, u32 v, u32 w)
{
	if (w == 4) {
		wr32(p, v);
		return;
	}
	p[0] = (u8)v;
	if (w == 2)
		p[1] = (u8)(v >> 8);
}

/* Element width in bytes and select of a MODEW value; 0 if reserved. */
static u32 dma_width(u32 modew, u32 *sel)
{
	*sel = modew & QPU_VPM_MODEW_B;
	if (!modew)
		return 4;
	if (modew >= QPU_VPM_MODEW_8)
		return 1;
	*sel = modew & QPU_VPM_MODEW_H;
	return modew >= QPU_VPM_MODEW_16 ? 2 : 0;
}

/* A DMA done: charge its work, and tell qpu_emu_ops.event, if set. */
static void dma_event(struct qpu_emu_exec *x, enum qpu_mem_access kind,
		      u32 addr, u32 rows, u32 row_bytes, u32 pitch)
{
	struct qpu_emu_event ev = {
		.kind = kind, .qpu = x->qi, .base = addr, .rows = rows,
		.row_bytes = row_bytes, .pitch = pitch,
	};

	qpu_emu_charge(x, qpu_emu_dma_cycles(rows, rows * row_bytes));
	if (x->emu->ops->event)
		x->emu->ops->event(x->emu->ctx, &ev);
}

/*
 * The host address of the @len bytes at @addr when the QPU's DMA window
 * @w already holds them all, else NULL (nothing asked of translate()): a
 * DMA whose every row lies there takes win_get()'s first answer for each.
 */
static u8 *dma_span(struct qpu_emu_exec *x, struct qpu_emu_win *w, u32 addr,
		    u32 len)
{
	u32 off = addr - w->addr;

	if (x->fault || !fast_rows(x) || (addr & 3))
		return NULL;
	if (off < w->len && len <= w->len - off)
		return w->p + off;
	return NULL;
}

/*
 * A VDR of 32-bit rows along VPM rows (@nrows rows of @rowlen words,
 * @pitch bytes apart, to VPM rows @row, @row + @vpitch, ... from column
 * @bx) in one pass, as FFT-shaped programs load every pass, when no check
 * of qpu_emu_dma_load()'s two passes can fail: every row is inside the
 * VPM and inside the QPU's load window. The same words in the same order;
 * false (nothing moved) otherwise.
 */
static bool dma_load_rows(struct qpu_emu_exec *x, u32 addr, u32 nrows,
			  u32 rowlen, u32 pitch, u32 row, u32 vpitch, u32 bx)
{
	u32 *vpm = x->emu->vpm, r, k;
	const u8 *p;

	if (row + (nrows - 1) * vpitch >= QPU_EMU_VPM_WORDS / 16 ||
	    (pitch & 3))
		return false;
	p = dma_span(x, &x->q->dlwin, addr, (nrows - 1) * pitch + rowlen * 4);
	if (!p)
		return false;
	for (r = 0; r < nrows; r++, p += pitch, row += vpitch) {
		u32 *d = vpm + row * 16;

		if (rowlen == LANES && !bx) {
			__builtin_memcpy(d, p, LANES * 4);
			continue;
		}
		for (k = 0; k < rowlen; k++)
			d[(k + bx) & 15] = rd32(p + k * 4);
	}
	return true;
}

/*
 * A VDW of 32-bit horizontal units (@units rows of @depth words from VPM
 * row @by, column @bx on) in one pass, when every unit is inside the VPM
 * and inside the QPU's store window (see dma_load_rows()).
 */
static bool dma_store_rows(struct qpu_emu_exec *x, u32 addr, u32 units,
			   u32 depth, u32 by, u32 bx)
{
	u32 rstride = depth * 4 + x->q->vdw_stride, u, d;
	const u32 *vpm = x->emu->vpm;
	u8 *p;

	if ((by + units - 1) * 16 + bx + depth > QPU_EMU_VPM_WORDS ||
	    (rstride & 3))
		return false;
	p = dma_span(x, &x->q->dswin, addr, (units - 1) * rstride + depth * 4);
	if (!p)
		return false;
	for (u = 0; u < units; u++, p += rstride) {
		const u32 *src = vpm + (by + u) * 16 + bx;

		if (depth == LANES) {
			__builtin_memcpy(p, src, LANES * 4);
			continue;
		}
		for (d = 0; d < depth; d++)
			wr32(p + d * 4, src[d]);
	}
	return true;
}

/*
 * VDR: memory row r (ROWLEN elements, rows PITCH bytes apart) goes to VPM
 * row Y + r * VPITCH, along it from column X (horizontal) or down column X
 * (vertical); narrower widths as the DOC above says.
 */
void qpu_emu_dma_load(struct qpu_emu_exec *x, u32 addr)
{
	struct qpu_emu_qpu *q = x->q;
	u32 s = q->vdr_setup, mpitch = QPU_FIELD_GET(QPU_VDR_MPITCH, s), pitch;
	u32 rowlen = QPU_FIELD_GET(QPU_VDR_ROWLEN, s);
	u32 nrows = QPU_FIELD_GET(QPU_VDR_NROWS, s);
	u32 vpitch = QPU_FIELD_GET(QPU_VDR_VPITCH, s);
	u32 bx = QPU_FIELD_GET(QPU_VDR_X, s), by = QPU_FIELD_GET(QPU_VDR_Y, s);
	bool vert = QPU_FIELD_GET(QPU_VDR_VERT, s);
	u32 r, k, pass, sel0, w, per;

	w = dma_width(QPU_FIELD_GET(QPU_VDR_MODEW, s), &sel0);
	if (!w) {
		/* not reached: MODEW 1 is the pitch setup */
		qpu_emu_bad_instr(x);
		return;
	}
	per = 4 / w;
	pitch = mpitch ? 8u << mpitch : q->vdr_pitch;
	rowlen = rowlen ? rowlen : 16;
	nrows = nrows ? nrows : 16;
	vpitch = vpitch ? vpitch : 16;
	if (w == 4 && !vert &&
	    dma_load_rows(x, addr, nrows, rowlen, pitch, by, vpitch, bx)) {
		x->emu->stats.dma_load_bytes += nrows * rowlen * w;
		dma_event(x, QPU_MEM_LOAD, addr, nrows, rowlen * w,
			  pitch);
		return;
	}
	for (pass = 0; pass < 2; pass++) {
		for (r = 0; r < nrows; r++) {
			u8 *p = qpu_emu_dma_mem(x, addr + r * pitch, rowlen * w, w,
					QPU_MEM_LOAD);
			u32 v = by * per + sel0 + r * vpitch;
			u32 row = v / per, sel = v % per;

			if (!p)
				return;
			/*
			 * 32-bit rows along a VPM row inside the VPM: the loop
			 * below's words, (k + X) % 16 of the row, with one
			 * check (its fault, when the row is outside, is the
			 * loop's at k = 0).
			 */
			if (w == 4 && !vert && row < QPU_EMU_VPM_WORDS / 16 &&
			    fast_rows(x)) {
				for (k = 0; pass && k < rowlen; k++)
					x->emu->vpm[row * 16 + ((k + bx) & 15)] =
						rd32(p + k * 4);
				continue;
			}
			for (k = 0; k < rowlen; k++) {
				u32 pos = 16 * w * sel + k * w, word;

				if (!vert)
					pos = (pos + 4 * bx) & 63;
				word = dma_word(vert, row, bx, pos);
				if (!dma_vpm_ok(x, word))
					return;
				if (pass) {
					u32 *d = &x->emu->vpm[word];
					u32 sh = (pos & 3) * 8;
					u32 m = w == 4 ? ~0u :
						((1u << (8 * w)) - 1) << sh;

					*d = (*d & ~m) |
						(rd_n(p + k * w, w) << sh & m);
				}
			}
		}
	}
	x->emu->stats.dma_load_bytes += nrows * rowlen * w;
	dma_event(x, QPU_MEM_LOAD, addr, nrows, rowlen * w, pitch);
}

/*
 * VDW: UNITS memory rows of DEPTH elements, each followed by STRIDE bytes.
 * Horizontal: row u comes from VPM row Y + u from column X; vertical: from
 * column X + u from row Y down.
 */
void qpu_emu_dma_store(struct qpu_emu_exec *x, u32 addr)
{
	struct qpu_emu_qpu *q = x->q;
	u32 s = q->vdw_setup, units = QPU_FIELD_GET(QPU_VDW_UNITS, s);
	u32 depth = QPU_FIELD_GET(QPU_VDW_DEPTH, s);
	u32 by = QPU_FIELD_GET(QPU_VDW_Y, s), bx = QPU_FIELD_GET(QPU_VDW_X, s);
	bool horiz = QPU_FIELD_GET(QPU_VDW_HORIZ, s);
	u32 u, d, pass, sel, w;

	w = dma_width(QPU_FIELD_GET(QPU_VDW_MODEW, s), &sel);
	if (!w) {
		qpu_emu_bad_instr(x);	/* MODEW 1 is reserved */
		return;
	}
	units = units ? units : 128;
	depth = depth ? depth : 128;
	if (w == 4 && horiz && dma_store_rows(x, addr, units, depth, by, bx)) {
		x->emu->stats.dma_store_bytes += units * depth * w;
		dma_event(x, QPU_MEM_STORE, addr, units, depth * w,
			  depth * w + q->vdw_stride);
		return;
	}
	for (pass = 0; pass < 2; pass++) {
		for (u = 0; u < units; u++) {
			u8 *p = qpu_emu_dma_mem(x, addr + u * (depth * w +
						       q->vdw_stride),
					depth * w, w,
					QPU_MEM_STORE);
			u32 row = by + (horiz ? u : 0);
			u32 col = horiz ? bx : (bx + u) & 15;

			if (!p)
				return;
			/*
			 * 32-bit horizontal units inside the VPM: the loop
			 * below's words, consecutive from X of row Y + u.
			 */
			if (w == 4 && horiz && fast_rows(x) &&
			    row * 16 + col + depth <= QPU_EMU_VPM_WORDS) {
				for (d = 0; pass && d < depth; d++)
					wr32(p + d * 4,
					     x->emu->vpm[row * 16 + col + d]);
				continue;
			}
			for (d = 0; d < depth; d++) {
				u32 pos = 16 * w * sel + d * w, word;

				if (horiz)
					pos += 4 * col;
				word = dma_word(!horiz, row, col, pos);
				if (!dma_vpm_ok(x, word))
					return;
				if (pass)
					wr_n(p + d * w, x->emu->vpm[word] >>
					     ((pos & 3) * 8), w);
			}
		}
	}
	x->emu->stats.dma_store_bytes += units * depth * w;
	dma_event(x, QPU_MEM_STORE, addr, units, depth * w,
		  depth * w + q->vdw_stride);
}
