/* SPDX-License-Identifier: MIT */
/*
 * The instruction builder both assemblers lower into: the text assembler
 * (asm_instr.c) and the C emitter (emit.c) describe an instruction with
 * typed operands, and the rules that turn them into a word live here once:
 * write-swap and write addresses, pack and pm, default conditions, flags,
 * read ports and small immediates, unpack, rotation, signals. A refusal
 * gives one message and the @where of the operand it is about (the text
 * assembler's column; the emitter ignores it). Private to libqpu.
 */
#ifndef LIBQPU_INSTR_BUILD_H
#define LIBQPU_INSTR_BUILD_H

#include <stdbool.h>
#include <stdint.h>

#include "qpu_isa.h"

#define QPU_IB_MSG_SIZE		128
#define QPU_IB_ROT_R5		16	/* qpu_ib_src.rot: rotate by r5 */
#define QPU_IB_SMI_NONE		(-1)
/* qpu_ib_src.smi of a value no small immediate encodes */
#define QPU_IB_SMI_INVALID	QPU_ISA_SMALL_IMM_ROT

struct qpu_ib_error {
	unsigned int where;
	char msg[QPU_IB_MSG_SIZE];
};

/**
 * struct qpu_ib_src - an ALU input or a "read": one of @mux, @raddr, @smi
 * @mux: an accumulator QPU_ISA_MUX_R0..R5, or -1
 * @raddr: per regfile (A, B) the read address of the name, or -1; a name
 *	both files have is placed where there is room, regfile A first
 * @smi: a small immediate's index, QPU_IB_SMI_INVALID, or QPU_IB_SMI_NONE
 * @unpack: QPU_ISA_UNPACK_*, 0 for none
 * @rot: mul inputs: 0 none, 1..15, QPU_IB_ROT_R5
 * @name: the name messages use
 * @where: @rot_where: the caller's positions of the operand and rotation
 */
struct qpu_ib_src {
	int mux;
	int raddr[2];
	int smi;
	unsigned int unpack;
	unsigned int rot;
	const char *name;
	unsigned int where;
	unsigned int rot_where;
};

/**
 * struct qpu_ib_dest - the write side of an ALU, load immediate or branch
 * @present: written at all (else the address is the no-write one)
 * @waddr: per regfile (A, B) the write address, or -1
 * @cond: QPU_ISA_COND_*, or -1 for the default (see qpu_ib_default_cond())
 * @pack_a: regfile-A pack QPU_ISA_PACK_A_*, or -1
 * @pack_mul: mul pack QPU_ISA_PACK_MUL_*, or -1
 * @pack_generic: the 8888 pack, regfile A or mul as the destination allows
 * @where: the caller's position of the destination
 */
struct qpu_ib_dest {
	bool present;
	int waddr[2];
	int cond;
	int pack_a;
	int pack_mul;
	bool pack_generic;
	unsigned int where;
};

/**
 * struct qpu_ib_side - the add or the mul half of an ALU instruction
 * @active: an operation, or a nop with a destination
 * @op: the opcode (0: nop)
 * @setf: this half sets the flags
 * @d: the destination
 * @a: @b: the inputs of an operation (the same pointer for a unary one)
 * @where: the caller's position of the operation
 */
struct qpu_ib_side {
	bool active;
	unsigned int op;
	bool setf;
	struct qpu_ib_dest d;
	const struct qpu_ib_src *a, *b;
	unsigned int where;
};

/**
 * struct qpu_ib_alu - an ALU instruction
 * @add: @mul: the two halves
 * @result_rot: the mul result rotated (as both mul inputs are), 0 none
 * @result_rot_where: its position
 * @reads: @nreads: sources that feed no ALU input
 * @sig: QPU_ISA_SIG_* (QPU_ISA_SIG_NONE for none)
 * @sig_where: its position
 * @where: the position of the whole instruction
 */
struct qpu_ib_alu {
	struct qpu_ib_side add, mul;
	unsigned int result_rot;
	unsigned int result_rot_where;
	const struct qpu_ib_src *reads;
	unsigned int nreads;
	unsigned int sig;
	unsigned int sig_where;
	unsigned int where;
};

void qpu_ib_src_init(struct qpu_ib_src *s);
void qpu_ib_dest_init(struct qpu_ib_dest *d);
void qpu_ib_alu_init(struct qpu_ib_alu *alu);

/* Small immediate index of an integer or of a float's bits, or -1. */
int qpu_ib_smi_int(int64_t v);
int qpu_ib_smi_float(uint32_t bits);

/* Each returns 0, or -EINVAL with *@err filled in. */
int qpu_ib_alu(const struct qpu_ib_alu *alu, uint64_t *word,
	       struct qpu_ib_error *err);
/*
 * Load immediate and semaphore: @in holds kind and value; destinations,
 * packs, flags and conditions are filled in here.
 */
int qpu_ib_ldi(struct qpu_isa_instr *in, const struct qpu_ib_dest *add,
	       const struct qpu_ib_dest *mul, bool setf, unsigned int where,
	       uint64_t *word, struct qpu_ib_error *err);
/* Branch: @in holds condition, target and register; the links go here. */
int qpu_ib_branch(struct qpu_isa_instr *in, const struct qpu_ib_dest *add,
		  const struct qpu_ib_dest *mul, unsigned int where,
		  uint64_t *word, struct qpu_ib_error *err);
/* The register a branch adds to its target: ra0..ra31. */
int qpu_ib_branch_reg(struct qpu_isa_instr *in, const struct qpu_ib_src *reg,
		      struct qpu_ib_error *err);
/*
 * A per-element load of @values[16] into @in: @is_signed 1 (-2..1), 0
 * (0..3), or -1 to pick signed when every value fits.
 */
int qpu_ib_ldi_elems(struct qpu_isa_instr *in, const int64_t *values,
		     int is_signed, unsigned int where, struct qpu_ib_error *err);

#endif /* LIBQPU_INSTR_BUILD_H */
