// SPDX-License-Identifier: MIT
/*
 * The V3D 4.2/7.1 disassembler: one word into Mesa's disassembly text
 * (src/broadcom/qpu/qpu_disasm.c as of Mesa 25.0, the first release
 * series whose 7.1 support is complete), with its column padding, so a
 * shader dump from a Pi reads and diffs the same. Additions, each
 * for words whose Mesa text would assemble to a different word: "; ucb"
 * and "; rot" (signals Mesa does not print; 4.2's rotation amount as
 * py-videocore6 writes it, "rot(-1)", plain "rot" being by r5), write
 * address 44 named
 * "tmuhscm" (Mesa repeats "tmuscm"), ".link" and ", bdu=N" on branches
 * (bit 23, and bdu without ub: py-videocore sets both), 4.2 register-file
 * reads as "rf11.a"/"rf11.b" (read address a or b) on a word whose read
 * addresses are not the ones the assembler would choose (Mesa's scheduler
 * merges instructions with theirs already placed), and ".long 0x..." for invalid words
 * and for words with fields the text cannot show; those keep their Mesa
 * text, unpadded, as the comment, so a dump stays readable.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "emit/instr_build_v3d.h"
#include "toolkit/dis_v3d.h"

struct out {
	char *buf;
	size_t size;
	size_t len;
	bool bad;	/* a field without a name was met */
	bool ports;	/* 4.2: "rfN.a"/"rfN.b", the read address named */
};

static void __attribute__((format(printf, 2, 3)))
put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->len < o->size ? o->buf + o->len : NULL,
		      o->len < o->size ? o->size - o->len : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += n;
}

static void pad_to(struct out *o, size_t col)
{
	while (o->len < col)
		put(o, " ");
}

static void put_suffix(struct out *o, const char *s)
{
	if (*s)
		put(o, ".%s", s);
}

static void put_small_imm(struct out *o, unsigned int idx)
{
	int32_t v = (int32_t)qpu_v3d_small_imm[idx];

	if (v >= -16 && v <= 15)
		put(o, "%d", v);
	else
		put(o, "0x%08x", (uint32_t)v);
}

/* Operand @field of the ALU: @which 0..3 is add a, add b, mul a, mul b. */
static void put_operand(struct out *o, enum qpu_gen gen,
			const struct qpu_v3d_instr *in, unsigned int field,
			int which)
{
	static const uint32_t imm71[] = {
		QPU_V3D_SIG_SMIMM_A, QPU_V3D_SIG_SMIMM_B,
		QPU_V3D_SIG_SMIMM_C, QPU_V3D_SIG_SMIMM_D,
	};
	uint32_t sig = qpu_v3d_sig_bits(gen, in->sig);

	if (gen == QPU_GEN_V3D71) {
		if (sig & imm71[which])
			put_small_imm(o, field);
		else
			put(o, "rf%u", field);
		return;
	}
	if (field == QPU_V3D_MUX_A)
		put(o, o->ports ? "rf%u.a" : "rf%u", in->raddr_a);
	else if (field == QPU_V3D_MUX_B && (sig & QPU_V3D_SIG_SMIMM_B))
		put_small_imm(o, in->raddr_b);
	else if (field == QPU_V3D_MUX_B)
		put(o, o->ports ? "rf%u.b" : "rf%u", in->raddr_b);
	else
		put(o, "r%u", field);
}

static void put_waddr(struct out *o, enum qpu_gen gen, unsigned int waddr,
		      bool magic)
{
	const char *name;

	if (!magic) {
		put(o, "rf%u", waddr);
		return;
	}
	name = qpu_v3d_waddr_name(gen, waddr);
	if (!name) {
		o->bad = true;
		name = "?";
	}
	put(o, "%s", name);
}

static void put_alu(struct out *o, enum qpu_gen gen,
		    const struct qpu_v3d_instr *in, bool mul)
{
	const struct qpu_v3d_alu *alu = mul ? &in->mul : &in->add;
	const struct qpu_v3d_op_info *info = mul ?
		&qpu_v3d_mul_op_info[alu->op] : &qpu_v3d_add_op_info[alu->op];
	bool writes = qpu_v3d_sig_bits(gen, in->sig) & QPU_V3D_SIG_WRITES_ADDR;
	bool reads_a = mul ? qpu_v3d_mul_reads(in, 0) : qpu_v3d_add_reads(in, 0);
	bool reads_b = mul ? qpu_v3d_mul_reads(in, 1) : qpu_v3d_add_reads(in, 1);
	bool dst = info->args & QPU_V3D_ARG_D;

	put(o, "%s", info->name);
	if (!writes)
		put_suffix(o, qpu_v3d_cond_names[mul ? in->mc : in->ac]);
	put_suffix(o, qpu_v3d_pf_names[mul ? in->mpf : in->apf]);
	put_suffix(o, qpu_v3d_uf_names[mul ? in->muf : in->auf]);
	/* Mesa ends a mul nop at its name, an add nop after a space */
	if (mul && alu->op == QPU_V3D_M_NOP)
		return;
	put(o, " ");
	if (dst) {
		put_waddr(o, gen, alu->waddr, alu->magic);
		put_suffix(o, qpu_v3d_pack_names[alu->pack]);
	}
	if (reads_a) {
		if (dst)
			put(o, ", ");
		put_operand(o, gen, in, alu->a, mul ? 2 : 0);
		put_suffix(o, qpu_v3d_unpack_names[alu->unpack_a]);
	}
	if (reads_b) {
		put(o, ", ");
		put_operand(o, gen, in, alu->b, mul ? 3 : 1);
		put_suffix(o, qpu_v3d_unpack_names[alu->unpack_b]);
	}
}

static void put_sig_addr(struct out *o, enum qpu_gen gen,
			 const struct qpu_v3d_instr *in)
{
	const char *name;

	if (!in->sig_magic) {
		put(o, ".rf%u", in->sig_addr);
		return;
	}
	name = qpu_v3d_waddr_name(gen, in->sig_addr);
	if (!name) {
		o->bad = true;
		name = "?";
	}
	put(o, ".%s", name);
}

/* Mesa's order of the signals, and whether each names its address. */
static const struct {
	uint32_t bit;
	bool addr;
} sig_order[] = {
	{ QPU_V3D_SIG_THRSW, false },
	{ QPU_V3D_SIG_LDVARY, true },
	{ QPU_V3D_SIG_LDVPM, false },
	{ QPU_V3D_SIG_LDTMU, true },
	{ QPU_V3D_SIG_LDTLB, true },
	{ QPU_V3D_SIG_LDTLBU, true },
	{ QPU_V3D_SIG_LDUNIF, false },
	{ QPU_V3D_SIG_LDUNIFRF, true },
	{ QPU_V3D_SIG_LDUNIFA, false },
	{ QPU_V3D_SIG_LDUNIFARF, true },
	{ QPU_V3D_SIG_WRTMUC, false },
	{ QPU_V3D_SIG_UCB, false },
	{ QPU_V3D_SIG_ROT, false },
};

/*
 * 4.2's rotation, which Mesa does not print: py-videocore6's rot(N). It
 * sits in raddr_b, so text that also reads raddr_b (mux B), or a float
 * small immediate as the amount, has no spelling.
 */
static void put_rot(struct out *o, const struct qpu_v3d_instr *in)
{
	bool mux_b = (qpu_v3d_add_reads(in, 0) && in->add.a == QPU_V3D_MUX_B) ||
		     (qpu_v3d_add_reads(in, 1) && in->add.b == QPU_V3D_MUX_B) ||
		     (qpu_v3d_mul_reads(in, 0) && in->mul.a == QPU_V3D_MUX_B) ||
		     (qpu_v3d_mul_reads(in, 1) && in->mul.b == QPU_V3D_MUX_B);

	if (mux_b || in->raddr_b >= 32)
		o->bad = true;
	else if (in->raddr_b)
		put(o, "(%d)", qpu_v3d_rot_amount(in->raddr_b));
}

static void put_sigs(struct out *o, enum qpu_gen gen,
		     const struct qpu_v3d_instr *in)
{
	uint32_t sig = qpu_v3d_sig_bits(gen, in->sig);
	size_t i;
	int bit;

	if (!(sig & ~(QPU_V3D_SIG_SMIMM_A | QPU_V3D_SIG_SMIMM_B |
		      QPU_V3D_SIG_SMIMM_C | QPU_V3D_SIG_SMIMM_D)))
		return;
	pad_to(o, 60);
	for (i = 0; i < sizeof(sig_order) / sizeof(sig_order[0]); i++) {
		if (!(sig & sig_order[i].bit))
			continue;
		bit = __builtin_ctz(sig_order[i].bit);
		put(o, "; %s", qpu_v3d_sig_names[bit]);
		if (sig_order[i].addr)
			put_sig_addr(o, gen, in);
		if (sig_order[i].bit == QPU_V3D_SIG_ROT)
			put_rot(o, in);
	}
}

static void put_branch(struct out *o, const struct qpu_v3d_branch *br)
{
	static const char *const udest[] = { ", a:unif", ", r:unif", ", lri" };

	put(o, "b%s", br->ub ? "u" : "");
	put_suffix(o, qpu_v3d_branch_cond_names[br->cond]);
	put(o, "%s", qpu_v3d_msfign_names[br->msfign]);
	if (br->link)
		put(o, ".link");
	switch (br->bdi) {
	case QPU_V3D_BR_DEST_ABS:
		put(o, "  zero_addr+0x%08x", br->offset);
		break;
	case QPU_V3D_BR_DEST_REL:
		put(o, "  %d", (int32_t)br->offset);
		break;
	case QPU_V3D_BR_DEST_LRI:
		put(o, "  lri");
		break;
	default:
		put(o, "  rf%u", br->raddr_a);
		break;
	}
	if (!br->ub) {
		/* ignored by the hardware, yet set by py-videocore (1) */
		if (br->bdu)
			put(o, ", bdu=%u", br->bdu);
		return;
	}
	if (br->bdu < 3)
		put(o, "%s", udest[br->bdu]);
	else if (br->bdu == QPU_V3D_BR_DEST_RF)
		put(o, ", rf%u", br->raddr_a);
	else
		o->bad = true;	/* bdu 4..7 have no meaning */
}

static bool format(enum qpu_gen gen, const struct qpu_v3d_instr *in,
		   bool ports, char *buf, size_t size)
{
	struct out o = { buf, size, 0, false, ports };

	if (size)
		buf[0] = '\0';
	if (in->is_branch) {
		put_branch(&o, &in->br);
	} else {
		put_alu(&o, gen, in, false);
		pad_to(&o, 30);
		put(&o, "; ");
		put_alu(&o, gen, in, true);
		put_sigs(&o, gen, in);
	}
	return !o.bad && o.len < size;
}

bool qpu_v3d_format(enum qpu_gen gen, const struct qpu_v3d_instr *in,
		    char *buf, size_t size)
{
	return format(gen, in, false, buf, size);
}

/* Mesa's column padding down to one space, none before a ';'. */
static void squeeze(char *s)
{
	char *d = s, *p = s;

	while (*p) {
		if (*p == ' ') {
			while (*p == ' ')
				p++;
			if (*p && *p != ';')
				*d++ = ' ';
			continue;
		}
		*d++ = *p++;
	}
	*d = '\0';
}

int qpu_v3d_disasm(enum qpu_gen gen, uint64_t w, uint32_t addr,
		   unsigned int flags, char *buf, size_t size)
{
	struct qpu_v3d_instr in, canon;
	enum qpu_v3d_invalid why;
	const char *reason = NULL;
	char text[256];
	uint64_t back = 0;

	why = qpu_v3d_decode(gen, w, &in);
	if (why != QPU_V3D_VALID) {
		reason = qpu_v3d_invalid_name(why);
	} else if (!qpu_v3d_format(gen, &in, text, sizeof(text))) {
		reason = "a field without a name (a reserved magic address, "
			 "branch bdu 4..7, or 4.2's rot beside a raddr_b read)";
	} else {
		canon = in;
		qpu_v3d_canonicalize(gen, &canon);
		if ((qpu_v3d_encode(gen, &canon, &back) || back != w) &&
		    !qpu_v3d_encode_ported(gen, &in, &back) && back == w &&
		    format(gen, &in, true, text, sizeof(text)))
			back = w;	/* the read addresses named: "rf11.b" */
		if (back != w) {
			/* still readable: Mesa's text, unpadded, as the comment */
			squeeze(text);
			if (strlen(text) + sizeof(".long 0x0123456789abcdef  # ") <=
			    QPU_V3D_DIS_LINE_MAX)
				return snprintf(buf, size, ".long 0x%016llx  # %s",
						(unsigned long long)w, text);
			reason = "fields the text cannot show";
		}
	}
	if (reason)
		return snprintf(buf, size, ".long 0x%016llx  # %s",
				(unsigned long long)w, reason);
	if ((flags & QPU_V3D_DIS_TARGET) && in.is_branch &&
	    in.br.bdi == QPU_V3D_BR_DEST_REL)
		return snprintf(buf, size, "%s  # 0x%x", text,
				qpu_v3d_branch_target(addr, in.br.offset));
	return snprintf(buf, size, "%s", text);
}
