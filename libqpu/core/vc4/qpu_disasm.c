// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * Disassembler of one instruction word into caller memory, with its own
 * small formatting helpers (no libc). The text rules are in qpu_disasm.h;
 * each printer either shows every field of the word or gives up, and the
 * word is then written as raw data.
 */
#include "qpu_disasm.h"
#include "qpu_isa.h"

struct dis {
	char *buf;
	size_t size;
	size_t len;
	bool bad;	/* a field cannot be shown: fall back to raw */
};

static void emit_c(struct dis *d, char c)
{
	if (d->len + 1 < d->size)
		d->buf[d->len] = c;
	d->len++;
}

static void emit(struct dis *d, const char *s)
{
	while (*s)
		emit_c(d, *s++);
}

static void emit_udec(struct dis *d, u32 v)
{
	char tmp[10];
	int n = 0;

	do {
		tmp[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	while (n)
		emit_c(d, tmp[--n]);
}

static void emit_sdec(struct dis *d, s32 v, bool plus)
{
	if (v < 0) {
		emit_c(d, '-');
		emit_udec(d, -(u32)v);
		return;
	}
	if (plus)
		emit_c(d, '+');
	emit_udec(d, v);
}

/* Exactly @n hex digits of @v, no prefix. */
static void emit_xdigits(struct dis *d, u32 v, int n)
{
	static const char hex[] = "0123456789abcdef";

	while (n--)
		emit_c(d, hex[(v >> (4 * n)) & 15]);
}

/* "0x" and the digits of @v, at least @digits of them. */
static void emit_hex(struct dis *d, u32 v, int digits)
{
	int n = 8;

	while (n > digits && !(v >> (4 * (n - 1))))
		n--;
	emit(d, "0x");
	emit_xdigits(d, v, n);
}

static void emit_suffix(struct dis *d, const char *s)
{
	if (s && *s) {
		emit_c(d, '.');
		emit(d, s);
	}
}

static void emit_numeric(struct dis *d, unsigned int file, unsigned int addr)
{
	emit(d, file ? "rb" : "ra");
	emit_udec(d, addr);
}

/* One destination of an ALU, ldi or branch word. */
struct dest {
	unsigned int file;	/* 0: regfile A, 1: regfile B */
	unsigned int waddr;
	unsigned int cond;	/* QPU_ISA_NUM_CONDS: no condition (branch) */
	const char *pack;	/* suffix or NULL */
	bool sets_flags;	/* this side takes .setf */
	bool numeric;		/* forced raNN/rbNN to show ws */
};

/*
 * Address 39 ("-") keeps a condition only on the side that sets the flags
 * (default "always" there); elsewhere it is always "never". It takes no
 * pack, and a regfile-A pack needs a regfile-A register (0..31).
 */
static bool dest_ok(const struct dest *dst, bool pack_a)
{
	if (pack_a && dst->waddr >= 32)
		return false;
	if (dst->waddr != QPU_ISA_WADDR_NOP)
		return true;
	if (dst->pack && *dst->pack)
		return false;
	return dst->cond >= QPU_ISA_NUM_CONDS || dst->sets_flags ||
		dst->cond == QPU_ISA_COND_NEVER;
}

/* True if the printed name of @dst tells which regfile it writes. */
static bool dest_shows_file(const struct dest *dst)
{
	const struct qpu_isa_reg *reg =
		&qpu_isa_write_regs[dst->file][dst->waddr];

	return dst->numeric || !(reg->flags & QPU_ISA_REG_SHARED);
}

static void emit_cond(struct dis *d, const struct dest *dst)
{
	unsigned int dflt = QPU_ISA_COND_ALWAYS;

	if (dst->waddr == QPU_ISA_WADDR_NOP && !dst->sets_flags)
		dflt = QPU_ISA_COND_NEVER;
	if (dst->cond < QPU_ISA_NUM_CONDS && dst->cond != dflt)
		emit_suffix(d, qpu_isa_cond_names[dst->cond]);
}

/* Name, then condition (ldi family only), then pack, as vc4asm parses. */
static void emit_dest(struct dis *d, const struct dest *dst, bool cond)
{
	if (dst->numeric)
		emit_numeric(d, dst->file, dst->waddr);
	else
		emit(d, qpu_isa_write_regs[dst->file][dst->waddr].name);
	if (cond)
		emit_cond(d, dst);
	emit_suffix(d, dst->pack);
}

/*
 * Make ws visible: with ws=1 and no destination naming a file, the first
 * printed one is spelt numerically (rb39 for "-"). Returns false if no
 * destination is printed at all.
 */
static bool show_ws(bool ws, struct dest *first, struct dest *second)
{
	if (!ws || (first && dest_shows_file(first)) ||
	    (second && dest_shows_file(second)))
		return true;
	if (!first)
		first = second;
	if (!first)
		return false;
	first->numeric = true;
	return true;
}

/*
 * The mul 8888 pack is spelt like the regfile-A one, so vc4asm takes it for
 * the latter when the mul result goes to a regfile-A register.
 */
static bool mul_pack_ok(const struct qpu_isa_instr *in, const struct dest *mul)
{
	return !(in->pm && in->pack == QPU_ISA_PACK_MUL_8888 && mul->file == 0 &&
		 mul->waddr < 32);
}

/* --- ALU words ---------------------------------------------------------- */

struct alu {
	const struct qpu_isa_instr *in;
	bool smi;
	bool add_used;
	bool mul_used;
	struct dest add;
	struct dest mul;
};

static bool src_unpacked(const struct alu *a, unsigned int mux)
{
	const struct qpu_isa_instr *in = a->in;

	if (!in->unpack)
		return false;
	return in->pm ? mux == QPU_ISA_MUX_R4 : mux == QPU_ISA_MUX_A;
}

static void emit_src(struct dis *d, const struct alu *a, unsigned int mux)
{
	const struct qpu_isa_instr *in = a->in;
	const struct qpu_isa_reg *reg;

	switch (mux) {
	case QPU_ISA_MUX_A:
		reg = &qpu_isa_read_regs[0][in->raddr_a];
		if (reg->flags & QPU_ISA_REG_NOP)
			emit_numeric(d, 0, in->raddr_a);
		else
			emit(d, reg->name);
		break;
	case QPU_ISA_MUX_B:
		if (a->smi) {
			if (in->raddr_b >= QPU_ISA_SMALL_IMM_ROT)
				d->bad = true;
			else
				emit(d, qpu_isa_small_imms[in->raddr_b].text);
			return;
		}
		reg = &qpu_isa_read_regs[1][in->raddr_b];
		if (reg->flags & QPU_ISA_REG_SHARED)
			emit_numeric(d, 1, in->raddr_b);
		else
			emit(d, reg->name);
		return;
	default:
		emit(d, qpu_isa_mux_names[mux]);
		break;
	}
	if (src_unpacked(a, mux))
		emit_suffix(d, qpu_isa_unpack_names[in->unpack]);
}

static void emit_rotation(struct dis *d, const struct alu *a)
{
	unsigned int rot;

	if (!a->smi || a->in->raddr_b < QPU_ISA_SMALL_IMM_ROT)
		return;
	rot = qpu_isa_small_imms[a->in->raddr_b].value;
	if (!rot) {
		emit(d, " << r5");
	} else if (rot < 8) {
		emit(d, " >> ");
		emit_udec(d, rot);
	} else {
		emit(d, " << ");
		emit_udec(d, 16 - rot);
	}
}

static bool is_mov(const struct alu *a, unsigned int src_a, unsigned int src_b)
{
	if (src_a != src_b || src_unpacked(a, src_a))
		return false;
	return !(a->smi && src_a == QPU_ISA_MUX_B);
}

static void emit_op(struct dis *d, const struct alu *a, bool mul)
{
	const struct qpu_isa_instr *in = a->in;
	const struct dest *dst = mul ? &a->mul : &a->add;
	unsigned int src_a = mul ? in->mul_a : in->add_a;
	unsigned int src_b = mul ? in->mul_b : in->add_b;
	bool unary, mov;

	if (mul) {
		unary = false;
		mov = in->op_mul == QPU_ISA_M_V8MIN && is_mov(a, src_a, src_b);
		emit(d, mov ? "mov" : qpu_isa_mul_ops[in->op_mul].name);
	} else {
		unary = qpu_isa_add_ops[in->op_add].flags & QPU_ISA_OP_UNARY;
		mov = in->op_add == QPU_ISA_A_OR && is_mov(a, src_a, src_b);
		emit(d, mov ? "mov" : qpu_isa_add_ops[in->op_add].name);
	}
	if (dst->sets_flags)
		emit(d, ".setf");
	emit_cond(d, dst);
	emit_c(d, ' ');
	emit_dest(d, dst, false);
	emit(d, ", ");
	emit_src(d, a, src_a);
	if (mul)
		emit_rotation(d, a);
	if (mov || unary)
		return;
	emit(d, ", ");
	emit_src(d, a, src_b);
	if (mul)
		emit_rotation(d, a);
}

/* Which muxes the printed operations read: bit per mux. */
static unsigned int used_muxes(const struct alu *a)
{
	const struct qpu_isa_instr *in = a->in;
	unsigned int m = 0;

	if (a->add_used)
		m |= 1u << in->add_a | 1u << in->add_b;
	if (a->mul_used)
		m |= 1u << in->mul_a | 1u << in->mul_b;
	return m;
}

static bool float_in(const struct alu *a, bool mul)
{
	if (mul)
		return a->mul_used && (qpu_isa_mul_ops[a->in->op_mul].flags &
				       QPU_ISA_OP_FLOAT_IN);
	return a->add_used && (qpu_isa_add_ops[a->in->op_add].flags &
			       QPU_ISA_OP_FLOAT_IN);
}

static bool reads_mux(const struct alu *a, bool mul, unsigned int mux)
{
	const struct qpu_isa_instr *in = a->in;

	if (mul)
		return a->mul_used && (in->mul_a == mux || in->mul_b == mux);
	return a->add_used && (in->add_a == mux || in->add_b == mux);
}

/* True if emit_read() will print a "read" for an unused read address. */
static bool needs_read(const struct alu *a)
{
	const struct qpu_isa_instr *in = a->in;
	unsigned int muxes = used_muxes(a);

	if (in->raddr_a != QPU_ISA_RADDR_NOP && !(muxes & (1u << QPU_ISA_MUX_A)))
		return true;
	if (muxes & (1u << QPU_ISA_MUX_B))
		return false;
	if (a->smi)
		return in->raddr_b < QPU_ISA_SMALL_IMM_ROT;
	return in->raddr_b != QPU_ISA_RADDR_NOP;
}

/*
 * Forms that vc4asm, the reference for the text, would not give back as
 * they are: it folds operations on equal or constant inputs into a load
 * immediate, reduces a float shift count to its low 5 bits, refuses an
 * integer regfile-A unpack next to a float operation of the other ALU, and
 * refuses unpack next to "read".
 */
static bool vc4asm_keeps(const struct alu *a)
{
	const struct qpu_isa_instr *in = a->in;
	bool unary = qpu_isa_add_ops[in->op_add].flags & QPU_ISA_OP_UNARY;
	bool any_float = float_in(a, false) || float_in(a, true);

	if (a->add_used && in->add_a == in->add_b &&
	    (in->op_add == QPU_ISA_A_SUB || in->op_add == QPU_ISA_A_XOR ||
	     (a->smi && in->add_a == QPU_ISA_MUX_B && !unary)))
		return false;
	if (a->mul_used && in->mul_a == in->mul_b &&
	    (in->op_mul == QPU_ISA_M_V8SUBS ||
	     (a->smi && in->mul_a == QPU_ISA_MUX_B)))
		return false;
	if (a->smi && a->add_used && in->add_b == QPU_ISA_MUX_B &&
	    qpu_isa_small_imms[in->raddr_b].kind == QPU_ISA_SMI_FLOAT &&
	    in->op_add >= QPU_ISA_A_SHR && in->op_add <= QPU_ISA_A_SHL)
		return false;
	if (in->unpack && needs_read(a))
		return false;
	if (in->unpack && !in->pm && in->unpack != QPU_ISA_UNPACK_8D_REP && any_float &&
	    ((reads_mux(a, false, QPU_ISA_MUX_A) && !float_in(a, false)) ||
	     (reads_mux(a, true, QPU_ISA_MUX_A) && !float_in(a, true))))
		return false;
	return true;
}

/* True if the ALU appears as an op or as a nop with a destination. */
static bool shown(const struct alu *a, bool mul)
{
	if (mul)
		return a->mul_used || a->in->waddr_mul != QPU_ISA_WADDR_NOP;
	return a->add_used || a->in->waddr_add != QPU_ISA_WADDR_NOP;
}

/* "anop.ifz ra1": vc4asm's way to write a register from an idle ALU. */
static void emit_nop_dest(struct dis *d, const struct alu *a, bool mul)
{
	const struct dest *dst = mul ? &a->mul : &a->add;

	emit(d, mul ? "mnop" : "anop");
	emit_cond(d, dst);
	emit_c(d, ' ');
	emit_dest(d, dst, false);
}

/* Reject what the text cannot carry; see the DOC block in qpu_disasm.h. */
static bool alu_check(struct alu *a)
{
	const struct qpu_isa_instr *in = a->in;
	unsigned int muxes = used_muxes(a);
	/* vc4asm writes an unused add ALU with "always" when mul sets flags. */
	unsigned int nop_cond = in->sf && a->mul_used ? QPU_ISA_COND_ALWAYS :
		QPU_ISA_COND_NEVER;
	bool pack_on_add = false, pack_on_mul = false;

	if (in->reserved)
		return false;
	/* An unused ALU reads nothing; with a destination it is "anop ra1". */
	if (!a->add_used && (in->add_a || in->add_b ||
			     (in->waddr_add == QPU_ISA_WADDR_NOP ?
			      in->cond_add != nop_cond : in->sf)))
		return false;
	if (!a->mul_used && (in->mul_a || in->mul_b ||
			     (in->waddr_mul == QPU_ISA_WADDR_NOP ?
			      in->cond_mul : in->sf)))
		return false;
	if (a->add_used && (qpu_isa_add_ops[in->op_add].flags &
			    QPU_ISA_OP_UNARY) && in->add_a != in->add_b)
		return false;
	if (in->sf && !a->add_used && !a->mul_used)
		return false;
	if (in->unpack && !(muxes & (1u << (in->pm ? QPU_ISA_MUX_R4 :
					    QPU_ISA_MUX_A))))
		return false;
	/* Unpack applies to registers of regfile A, not to its I/O. */
	if (in->unpack && !in->pm && in->raddr_a >= 32)
		return false;
	if (in->pm && !in->pack && !in->unpack)
		return false;
	if (a->smi && in->raddr_b >= QPU_ISA_SMALL_IMM_ROT &&
	    (!a->mul_used || (muxes & (1u << QPU_ISA_MUX_B))))
		return false;
	if (in->pack) {
		pack_on_add = !in->pm && !in->ws;
		pack_on_mul = !pack_on_add;
		if (pack_on_add ? !a->add_used : !a->mul_used)
			return false;
		if (pack_on_add)
			a->add.pack = qpu_isa_pack_a_names[in->pack];
		else if (in->pm)
			a->mul.pack = qpu_isa_pack_mul_names[in->pack];
		else
			a->mul.pack = qpu_isa_pack_a_names[in->pack];
	}
	if (a->add_used && !dest_ok(&a->add, pack_on_add))
		return false;
	if (a->mul_used && !dest_ok(&a->mul, pack_on_mul && !in->pm))
		return false;
	if (pack_on_mul && !mul_pack_ok(in, &a->mul))
		return false;
	if (!vc4asm_keeps(a))
		return false;
	return show_ws(in->ws, shown(a, false) ? &a->add : NULL,
		       shown(a, true) ? &a->mul : NULL);
}

static void emit_read(struct dis *d, const struct alu *a)
{
	const struct qpu_isa_instr *in = a->in;
	unsigned int muxes = used_muxes(a);

	if (in->raddr_a != QPU_ISA_RADDR_NOP &&
	    !(muxes & (1u << QPU_ISA_MUX_A))) {
		emit(d, "; read ");
		emit(d, qpu_isa_read_regs[0][in->raddr_a].name);
	}
	if (muxes & (1u << QPU_ISA_MUX_B))
		return;
	if (a->smi) {
		if (in->raddr_b < QPU_ISA_SMALL_IMM_ROT) {
			emit(d, "; read ");
			emit(d, qpu_isa_small_imms[in->raddr_b].text);
		}
	} else if (in->raddr_b != QPU_ISA_RADDR_NOP) {
		emit(d, "; read ");
		if (qpu_isa_read_regs[1][in->raddr_b].flags & QPU_ISA_REG_SHARED)
			emit_numeric(d, 1, in->raddr_b);
		else
			emit(d, qpu_isa_read_regs[1][in->raddr_b].name);
	}
}

static void dis_alu(struct dis *d, const struct qpu_isa_instr *in)
{
	struct alu a = {
		.in = in,
		.smi = in->kind == QPU_ISA_KIND_ALU_SMALL_IMM,
		.add_used = in->op_add != QPU_ISA_A_NOP,
		.mul_used = in->op_mul != QPU_ISA_M_NOP,
		.add = {
			.file = in->ws, .waddr = in->waddr_add,
			.cond = in->cond_add,
		},
		.mul = {
			.file = !in->ws, .waddr = in->waddr_mul,
			.cond = in->cond_mul,
		},
	};

	if (in->sf) {
		if (a.add_used)
			a.add.sets_flags = true;
		else
			a.mul.sets_flags = true;
	}
	if (!alu_check(&a)) {
		d->bad = true;
		return;
	}
	if (a.add_used)
		emit_op(d, &a, false);
	else if (shown(&a, false))
		emit_nop_dest(d, &a, false);
	else
		emit(d, "nop");
	if (a.mul_used) {
		emit(d, "; ");
		emit_op(d, &a, true);
	} else if (shown(&a, true)) {
		emit(d, "; ");
		emit_nop_dest(d, &a, true);
	}
	emit_read(d, &a);
	if (!a.smi && in->sig != QPU_ISA_SIG_NONE) {
		emit(d, "; ");
		emit(d, qpu_isa_sig_names[in->sig]);
	}
}

/* --- load immediate and semaphore --------------------------------------- */

static void dis_ldi(struct dis *d, const struct qpu_isa_instr *in)
{
	struct dest add = {
		.file = in->ws, .waddr = in->waddr_add, .cond = in->cond_add,
		.sets_flags = in->sf,
	};
	struct dest mul = {
		.file = !in->ws, .waddr = in->waddr_mul, .cond = in->cond_mul,
	};
	bool two, pes, pack_a = in->pack && !in->pm;
	int i;

	if ((in->reserved & ~QPU_ISA_RSV_SEM_PAD) || (in->pm && !in->pack)) {
		d->bad = true;
		return;
	}
	if (pack_a && !in->ws)
		add.pack = qpu_isa_pack_a_names[in->pack];
	else if (in->pack)
		mul.pack = in->pm ? qpu_isa_pack_mul_names[in->pack] :
			qpu_isa_pack_a_names[in->pack];
	if (!dest_ok(&add, pack_a && !in->ws) ||
	    !dest_ok(&mul, pack_a && in->ws) || !mul_pack_ok(in, &mul)) {
		d->bad = true;
		return;
	}
	two = in->waddr_mul != QPU_ISA_WADDR_NOP || mul.pack;
	show_ws(in->ws, &add, two ? &mul : NULL);

	switch (in->kind) {
	case QPU_ISA_KIND_LDI_PES:
		emit(d, "ldipes");
		break;
	case QPU_ISA_KIND_LDI_PEU:
		emit(d, "ldipeu");
		break;
	case QPU_ISA_KIND_SEMA:
		emit(d, in->sem_acquire ? "sacq" : "srel");
		break;
	default:
		emit(d, "ldi");
		break;
	}
	if (in->sf)
		emit(d, ".setf");
	emit_c(d, ' ');
	emit_dest(d, &add, true);
	if (two) {
		emit(d, ", ");
		emit_dest(d, &mul, true);
	}
	emit(d, ", ");
	switch (in->kind) {
	case QPU_ISA_KIND_LDI_PES:
	case QPU_ISA_KIND_LDI_PEU:
		pes = in->kind == QPU_ISA_KIND_LDI_PES;
		emit_c(d, '[');
		for (i = 0; i < 16; i++) {
			if (i)
				emit_c(d, ',');
			emit_sdec(d, qpu_isa_ldi_elem(in->imm, pes, i), false);
		}
		emit_c(d, ']');
		break;
	case QPU_ISA_KIND_SEMA:
		/* The number keeps the undocumented upper bits, bit 4 aside. */
		if (in->sem_pad)
			emit_hex(d, in->sem_pad << QPU_ISA_SEM_PAD_SHIFT | in->sem, 1);
		else
			emit_udec(d, in->sem);
		break;
	default:
		emit_hex(d, in->imm, 1);
		break;
	}
}

/* --- branch ------------------------------------------------------------- */

static void dis_branch(struct dis *d, const struct qpu_isa_instr *in, u32 addr,
		       unsigned int flags)
{
	struct dest add = {
		.file = in->ws, .waddr = in->waddr_add, .cond = QPU_ISA_NUM_CONDS,
	};
	struct dest mul = {
		.file = !in->ws, .waddr = in->waddr_mul, .cond = QPU_ISA_NUM_CONDS,
	};
	bool two = in->waddr_mul != QPU_ISA_WADDR_NOP;

	if (in->reserved) {
		d->bad = true;
		return;
	}
	show_ws(in->ws, &add, two ? &mul : NULL);
	emit(d, in->br_rel ? "brr" : "bra");
	emit_suffix(d, qpu_isa_br_cond_names[in->br_cond]);
	emit_c(d, ' ');
	emit_dest(d, &add, false);
	if (two) {
		emit(d, ", ");
		emit_dest(d, &mul, false);
		if (!in->br_reg)
			emit(d, ", -");
	}
	if (in->br_reg) {
		emit(d, ", ");
		emit_numeric(d, 0, in->raddr_a);
	}
	if (!in->br_reg || two || in->imm) {
		emit(d, ", ");
		if (in->br_rel)
			emit_sdec(d, (s32)in->imm, true);
		else
			emit_hex(d, in->imm, 1);
	}
	if ((flags & QPU_DISASM_TARGET) && !in->br_reg) {
		emit(d, "  # ");
		emit_hex(d, in->br_rel ? addr + 4 * 8 + in->imm : in->imm, 4);
	}
}

/**
 * qpu_disasm() - write one instruction word as assembler text
 * @word: the instruction
 * @addr: its byte address, used for QPU_DISASM_TARGET comments
 * @flags: QPU_DISASM_*
 * @buf: receives the text, NUL-terminated if @size is not 0
 * @size: size of @buf; QPU_DISASM_BUF_SIZE is always enough
 *
 * Return: the length of the whole text, as snprintf() counts it.
 */
int qpu_disasm(u64 word, u32 addr, unsigned int flags, char *buf, size_t size)
{
	struct qpu_isa_instr in;
	struct dis d = { .buf = buf, .size = size };

	qpu_isa_decode(word, &in);
	switch (in.kind) {
	case QPU_ISA_KIND_ALU:
	case QPU_ISA_KIND_ALU_SMALL_IMM:
		dis_alu(&d, &in);
		break;
	case QPU_ISA_KIND_LDI:
	case QPU_ISA_KIND_LDI_PES:
	case QPU_ISA_KIND_LDI_PEU:
	case QPU_ISA_KIND_SEMA:
		dis_ldi(&d, &in);
		break;
	case QPU_ISA_KIND_BRANCH:
		dis_branch(&d, &in, addr, flags);
		break;
	default:
		d.bad = true;
		break;
	}
	if (d.bad) {
		d.len = 0;
		emit(&d, ".long ");
		emit_hex(&d, (u32)(word >> 32), 8);
		emit_xdigits(&d, (u32)word, 8);
	}
	if (size)
		buf[d.len < size ? d.len : size - 1] = '\0';
	return (int)d.len;
}
