// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * The emulator's register writes: what a write to each of the 64 write
 * addresses does, as a table (write_dests[]) from the address to its
 * handler, with the regfile A and mul packs of register writes. The
 * common case, a register written without a pack, never comes here
 * (write_result() in qpu_emu_internal.h does it inline).
 */
#include "qpu_emu_internal.h"
#include "qpu_emu_float.h"

/* --- pack ---------------------------------------------------------------- */

static u32 sat_s(s64 v, s64 lo, s64 hi)
{
	return (u32)(v < lo ? lo : v > hi ? hi : v);
}

/*
 * Regfile A pack of an add (or swapped mul) result @v into @old. @wide is
 * the exact integer result of add/sub for the 32-bit saturation. A float
 * result packed to 16a or 16b becomes a float16 with or without "sat"
 * (the guide's pack table; PyVideoCore's test_pack_regA_float shows it on
 * a Pi); only an integer result saturates.
 */
static u32 pack_a(u32 old, u32 v, s64 wide, unsigned int mode, bool is_float)
{
	u32 b;

	switch (mode) {
	case QPU_ISA_PACK_A_16A:
	case QPU_ISA_PACK_A_16B:
	case QPU_ISA_PACK_A_16A_SAT:
	case QPU_ISA_PACK_A_16B_SAT:
		if (is_float)
			b = qpu_emu_f32_to_f16(v);
		else if (mode >= QPU_ISA_PACK_A_16A_SAT)
			b = sat_s((s32)v, -0x8000, 0x7fff) & 0xffff;
		else
			b = v & 0xffff;
		return mode == QPU_ISA_PACK_A_16A || mode == QPU_ISA_PACK_A_16A_SAT ?
			(old & 0xffff0000u) | b : (old & 0xffff) | b << 16;
	case QPU_ISA_PACK_A_8888:
		return (v & 0xff) * 0x01010101u;
	case QPU_ISA_PACK_A_8A:
	case QPU_ISA_PACK_A_8B:
	case QPU_ISA_PACK_A_8C:
	case QPU_ISA_PACK_A_8D:
		b = (mode - QPU_ISA_PACK_A_8A) * 8;
		return (old & ~(0xffu << b)) | (v & 0xff) << b;
	case QPU_ISA_PACK_A_32_SAT:
		return sat_s(wide, -0x80000000ll, 0x7fffffffll);
	case QPU_ISA_PACK_A_8888_SAT:
		return sat_s((s32)v, 0, 255) * 0x01010101u;
	case QPU_ISA_PACK_A_8A_SAT:
	case QPU_ISA_PACK_A_8B_SAT:
	case QPU_ISA_PACK_A_8C_SAT:
	case QPU_ISA_PACK_A_8D_SAT:
		b = (mode - QPU_ISA_PACK_A_8A_SAT) * 8;
		return (old & ~(0xffu << b)) | sat_s((s32)v, 0, 255) << b;
	default:
		return v;
	}
}

/* Mul pack (pm=1): float results become 8-bit unorm, integers their byte. */
static u32 pack_mul(u32 old, u32 v, unsigned int mode, bool is_float)
{
	u32 b = is_float ? qpu_emu_f32_to_unorm8(v) : v & 0xff;
	u32 sh = (mode - QPU_ISA_PACK_MUL_8A) * 8;

	if (mode == QPU_ISA_PACK_MUL_8888)
		return b * 0x01010101u;
	if (mode >= QPU_ISA_PACK_MUL_8A && mode <= QPU_ISA_PACK_MUL_8D)
		return (old & ~(0xffu << sh)) | b << sh;
	return v;
}

/* --- the write addresses ------------------------------------------------- */

/*
 * A handler: result @r of the unit writing address @waddr of regfile B
 * (@file_b) or A. r->mask holds the lanes whose condition holds; it may be
 * empty (see struct write_dest).
 */
typedef void write_fn(struct qpu_emu_exec *x, unsigned int waddr, bool file_b,
		      const struct qpu_emu_result *r);

/*
 * What a write address does: @write, called only when a lane's condition
 * holds unless @lanes (the handler writes lane by lane itself). An address
 * with no @write is not for user programs (quad/ms/rev, TLB, texture
 * parameters): a write of a true lane faults.
 */
struct write_dest {
	write_fn *write;
	bool lanes;
};

/* A register (regfile A/B or r0..r3) with a pack: lane by lane. */
static void write_packed(struct qpu_emu_exec *x, unsigned int waddr,
			 bool file_b, const struct qpu_emu_result *r)
{
	const struct qpu_isa_instr *in = x->in;
	struct qpu_emu_qpu *q = x->q;
	u32 *dst;
	unsigned int i;

	if (waddr < 32)
		dst = file_b ? q->rb[waddr] : q->ra[waddr];
	else
		dst = q->acc[waddr - QPU_ISA_WADDR_R0];
	if (!in->pack) {
		for (i = 0; i < LANES; i++)
			dst[i] = (r->mask >> i) & 1 ? r->v[i] : dst[i];
		return;
	}
	for (i = 0; i < LANES; i++) {
		u32 v = r->v[i];

		if (!(r->mask & (1u << i)))
			continue;
		if (in->pm && r->is_mul)
			v = pack_mul(dst[i], v, in->pack, r->is_float);
		else if (!in->pm && !file_b && waddr < 32)
			v = pack_a(dst[i], v, r->wide[i], in->pack,
				   r->is_float);
		dst[i] = v;
	}
}

/* tmu_noswap: the TMUs are never swapped (no second thread runs). */
static void write_nothing(struct qpu_emu_exec *x, unsigned int waddr,
			  bool file_b, const struct qpu_emu_result *r)
{
}

/* r5quad (A) replicates each quad's first lane, r5rep (B) lane 0. */
static void write_r5(struct qpu_emu_exec *x, unsigned int waddr, bool file_b,
		     const struct qpu_emu_result *r)
{
	unsigned int i;

	for (i = 0; i < LANES; i++)
		if (r->mask & (1u << i))
			x->q->acc[5][i] = r->v[file_b ? 0 : i & ~3u];
}

/* host_int: an interrupt when a true lane is non-zero. */
static void write_host_int(struct qpu_emu_exec *x, unsigned int waddr,
			   bool file_b, const struct qpu_emu_result *r)
{
	struct qpu_emu *emu = x->emu;
	unsigned int i;

	for (i = 0; i < LANES; i++)
		if ((r->mask & (1u << i)) && r->v[i])
			break;
	if (i < LANES && emu->ops->host_interrupt)
		emu->ops->host_interrupt(emu->ctx, x->qi);
}

/*
 * unif_addr (A) sets the stream; unif_addr_rel (B) moves it by uniforms.
 * The timing model hears of it: the next uniform comes from there.
 */
static void write_unif_addr(struct qpu_emu_exec *x, unsigned int waddr,
			    bool file_b, const struct qpu_emu_result *r)
{
	struct qpu_emu_qpu *q = x->q;

	q->unif = file_b ? q->unif + r->v[0] * 4 : r->v[0];
	if (x->emu->ops->event) {
		struct qpu_emu_event ev = {
			.kind = QPU_MEM_UNIFORM, .qpu = x->qi, .base = q->unif,
		};

		x->emu->ops->event(x->emu->ctx, &ev);
	}
}

static void write_vpm(struct qpu_emu_exec *x, unsigned int waddr, bool file_b,
		      const struct qpu_emu_result *r)
{
	qpu_emu_vpm_write(x, r->v, r->mask);
}

/* vr_setup (A) or vw_setup (B), from lane 0. */
static void write_vpm_setup(struct qpu_emu_exec *x, unsigned int waddr,
			    bool file_b, const struct qpu_emu_result *r)
{
	qpu_emu_vpm_setup(x->q, r->v[0], file_b);
}

/* vr_addr (A) starts a DMA load, vw_addr (B) a DMA store. */
static void write_vpm_addr(struct qpu_emu_exec *x, unsigned int waddr,
			   bool file_b, const struct qpu_emu_result *r)
{
	if (file_b)
		qpu_emu_dma_store(x, r->v[0]);
	else
		qpu_emu_dma_load(x, r->v[0]);
}

/* mutex_rel: whoever waits for the mutex tries again. */
static void write_mutex(struct qpu_emu_exec *x, unsigned int waddr,
			bool file_b, const struct qpu_emu_result *r)
{
	x->emu->mutex_owner = -1;
	qpu_emu_wake_sync(x->emu);
}

/* t0s, t1s: a direct lookup of the true lanes' addresses. */
static void write_tmu(struct qpu_emu_exec *x, unsigned int waddr, bool file_b,
		      const struct qpu_emu_result *r)
{
	qpu_emu_tmu_request(x, waddr == QPU_ISA_WADDR_TMU1_S, r->v, r->mask);
}

/* The SFU functions, by write address from QPU_ISA_WADDR_SFU_RECIP. */
static u32 (*const sfu_ops[])(u32 v) = {
	qpu_emu_recip, qpu_emu_recipsqrt, qpu_emu_exp2, qpu_emu_log2,
};

/* recip, recipsqrt, exp, log: every lane, into r4 before the 3rd next. */
static void write_sfu(struct qpu_emu_exec *x, unsigned int waddr, bool file_b,
		      const struct qpu_emu_result *r)
{
	u32 (*op)(u32 v) = sfu_ops[waddr - QPU_ISA_WADDR_SFU_RECIP];
	struct qpu_emu_qpu *q = x->q;
	unsigned int i;

	for (i = 0; i < LANES; i++)
		q->sfu_val[i] = op(r->v[i]);
	q->sfu_left = 3;
}

#define WADDR_R3	(QPU_ISA_WADDR_R0 + 3)

/* Every write address: regfile A and B share a row (see the handlers). */
static const struct write_dest write_dests[1u << QPU_ISA_WADDR_BITS] = {
	[0 ... 31] = { .write = write_packed, .lanes = true },
	[QPU_ISA_WADDR_R0 ... WADDR_R3] = { .write = write_packed, .lanes = true },
	[QPU_ISA_WADDR_TMU_NOSWAP] = { .write = write_nothing, .lanes = true },
	[QPU_ISA_WADDR_R5] = { .write = write_r5, .lanes = true },
	[QPU_ISA_WADDR_HOST_INT] = { .write = write_host_int, .lanes = true },
	[QPU_ISA_WADDR_NOP] = { .write = write_nothing, .lanes = true },
	[QPU_ISA_WADDR_UNIF_ADDR] = { .write = write_unif_addr },
	[QPU_ISA_WADDR_VPM] = { .write = write_vpm },
	[QPU_ISA_WADDR_VPM_SETUP] = { .write = write_vpm_setup },
	[QPU_ISA_WADDR_VPM_ADDR] = { .write = write_vpm_addr },
	[QPU_ISA_WADDR_MUTEX] = { .write = write_mutex },
	[QPU_ISA_WADDR_SFU_RECIP ... QPU_ISA_WADDR_SFU_LOG] = { .write = write_sfu },
	[QPU_ISA_WADDR_TMU0_S] = { .write = write_tmu },
	[QPU_ISA_WADDR_TMU1_S] = { .write = write_tmu },
};

void qpu_emu_write_reg(struct qpu_emu_exec *x, unsigned int waddr,
		       bool file_b, const struct qpu_emu_result *r)
{
	const struct write_dest *d = &write_dests[waddr];

	if (!r->mask && !d->lanes)
		return;
	if (d->write)
		d->write(x, waddr, file_b, r);
	else
		qpu_emu_bad_instr(x);
}
