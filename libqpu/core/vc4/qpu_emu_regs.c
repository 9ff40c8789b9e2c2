// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * The emulator's register writes: what a write to each of the 64 write
 * addresses does, with the regfile A and mul packs of register writes. The
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

void qpu_emu_write_reg(struct qpu_emu_exec *x, unsigned int waddr,
		       bool file_b, const struct qpu_emu_result *r)
{
	const struct qpu_isa_instr *in = x->in;
	struct qpu_emu_qpu *q = x->q;
	struct qpu_emu *emu = x->emu;
	u32 *dst = NULL;
	unsigned int i;
	bool any = r->mask != 0;

	if (waddr < 32)
		dst = file_b ? q->rb[waddr] : q->ra[waddr];
	else if (waddr < QPU_ISA_WADDR_TMU_NOSWAP)
		dst = q->acc[waddr - QPU_ISA_WADDR_R0];
	if (dst && !in->pack) {
		if (r->mask == ALL_LANES) {
			copy_lanes(dst, r->v);
		} else {
			for (i = 0; i < LANES; i++)
				dst[i] = (r->mask >> i) & 1 ? r->v[i] : dst[i];
		}
		return;
	}
	if (dst) {
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
		return;
	}
	switch (waddr) {
	case QPU_ISA_WADDR_TMU_NOSWAP:
	case QPU_ISA_WADDR_NOP:
		return;
	case QPU_ISA_WADDR_R5:
		for (i = 0; i < LANES; i++)
			if (r->mask & (1u << i))
				q->acc[5][i] = r->v[file_b ? 0 : i & ~3u];
		return;
	case QPU_ISA_WADDR_HOST_INT:
		for (i = 0; i < LANES; i++)
			if ((r->mask & (1u << i)) && r->v[i])
				break;
		if (i < LANES && emu->ops->host_interrupt)
			emu->ops->host_interrupt(emu->ctx, x->qi);
		return;
	case QPU_ISA_WADDR_UNIF_ADDR:
		/* B: unif_addr_rel moves the stream by whole uniforms */
		if (any)
			q->unif = file_b ? q->unif + r->v[0] * 4 : r->v[0];
		return;
	case QPU_ISA_WADDR_VPM:
		if (any)
			qpu_emu_vpm_write(x, r->v, r->mask);
		return;
	case QPU_ISA_WADDR_VPM_SETUP:
		if (any)
			qpu_emu_vpm_setup(q, r->v[0], file_b);
		return;
	case QPU_ISA_WADDR_VPM_ADDR:
		if (!any)
			return;
		if (file_b)
			qpu_emu_dma_store(x, r->v[0]);
		else
			qpu_emu_dma_load(x, r->v[0]);
		return;
	case QPU_ISA_WADDR_MUTEX:
		if (any) {
			emu->mutex_owner = -1;
			qpu_emu_wake_sync(emu);
		}
		return;
	case QPU_ISA_WADDR_TMU0_S:
	case QPU_ISA_WADDR_TMU1_S:
		if (any)
			qpu_emu_tmu_request(x, waddr == QPU_ISA_WADDR_TMU1_S, r->v, r->mask);
		return;
	default:
		break;
	}
	if (waddr >= QPU_ISA_WADDR_SFU_RECIP && waddr <= QPU_ISA_WADDR_SFU_LOG) {
		if (!any)
			return;
		for (i = 0; i < LANES; i++) {
			u32 v = r->v[i];

			switch (waddr) {
			case QPU_ISA_WADDR_SFU_RECIP:
				q->sfu_val[i] = qpu_emu_recip(v);
				break;
			case QPU_ISA_WADDR_SFU_RECIP + 1:
				q->sfu_val[i] = qpu_emu_recipsqrt(v);
				break;
			case QPU_ISA_WADDR_SFU_RECIP + 2:
				q->sfu_val[i] = qpu_emu_exp2(v);
				break;
			default:
				q->sfu_val[i] = qpu_emu_log2(v);
				break;
			}
		}
		q->sfu_left = 3;	/* r4 gets it before the 3rd next */
		return;
	}
	/* quad/ms/rev, TLB, texture parameters: not for user programs */
	if (any)
		qpu_emu_bad_instr(x);
}
