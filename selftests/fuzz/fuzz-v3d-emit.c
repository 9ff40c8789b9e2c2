// SPDX-License-Identifier: MIT
/*
 * fuzz-v3d-emit: the typed V3D emitter (qpu_emit_v3d.h) under any
 * sequence of calls. The first byte picks the generation (odd: 7.1, even:
 * 4.2); each call then takes an opcode byte and its arguments from the
 * input (operands of every kind, out-of-range enums, labels that may never
 * be defined). Whatever the calls, the run must end without a sanitizer
 * report or a leak, the first error must stay the error (sticky, with its
 * index), a failed program must have no words, and a finished one must
 * have one word per instruction, each of which the disassembler turns
 * into a line that assembles back to the same word; words that did not
 * come from qpu_v3d_emit_raw() must be canonical (never a ".long").
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "qpu_asm.h"
#include "qpu_dis.h"
#include "qpu_emit_v3d.h"

#define MAX_CALLS	512

struct input {
	const uint8_t *p;
	size_t left;
};

static unsigned int byte(struct input *in)
{
	if (!in->left)
		return 0;
	in->left--;
	return *in->p++;
}

static uint32_t word32(struct input *in)
{
	uint32_t v = 0;
	int i;

	for (i = 0; i < 4; i++)
		v = v << 8 | byte(in);
	return v;
}

/* Any operand: every kind (and one that is none), any address. */
static struct qpu_v3d_reg reg(struct input *in)
{
	unsigned int k = byte(in), a = byte(in);
	struct qpu_v3d_reg r;

	switch (k % 8) {
	case 0:
		return QPU_V3D_NONE;
	case 1:
	case 2:
		r = QPU_V3D_RF(a & 63);
		break;
	case 3:
		r = qpu_v3d_reg_make(QPU_V3D_REG_ACC, a % 7);
		break;
	case 4:
		r = qpu_v3d_imm((int)(a % 40) - 20);
		break;
	case 5:
		r = QPU_V3D_MAGIC(a % 64);
		break;
	case 6:
		r = qpu_v3d_reg_make(a % 6, a);	/* any address, kind 5: none */
		break;
	default:
		r = qpu_v3d_immf((float)(1 << (a % 10)) / 16);
		break;
	}
	if (k & 0x10)
		r.pack = (uint8_t)(byte(in) % 4);
	if (k & 0x20)
		r.unpack = (uint8_t)(byte(in) % 17);
	return r;
}

static const char *label(struct input *in)
{
	static const char *const names[] = { "a", "b", "loop", "out", "", NULL };

	return names[byte(in) % 6];
}

/* An enum value: mostly valid ones, sometimes just past them. */
static unsigned int pick(struct input *in, unsigned int count)
{
	return byte(in) % (count + 2);
}

static void call(struct qpu_v3d_emit *e, struct input *in, uint64_t *raw_at)
{
	struct qpu_v3d_reg d, a, b;
	unsigned int op = byte(in) % 24;
	size_t at;

	switch (op) {
	case 0:
	case 1:
	case 2:
	case 3:
		{
			unsigned int alu = pick(in, op & 1 ? QPU_V3D_M_COUNT :
						QPU_V3D_A_COUNT);

			d = reg(in);
			a = reg(in);
			b = reg(in);
			if (op == 0)
				qpu_v3d_emit_add(e, (enum qpu_v3d_add_op)alu, d, a, b);
			else if (op == 1)
				qpu_v3d_emit_mul(e, (enum qpu_v3d_mul_op)alu, d, a, b);
			else if (op == 2)
				qpu_v3d_emit_dual_add(e, (enum qpu_v3d_add_op)alu,
						      d, a, b);
			else
				qpu_v3d_emit_dual_mul(e, (enum qpu_v3d_mul_op)alu,
						      d, a, b);
		}
		break;
	case 4:
		qpu_v3d_emit_cond(e, (enum qpu_v3d_cond)pick(in, 5));
		break;
	case 5:
		qpu_v3d_emit_flags(e, (enum qpu_v3d_pf)pick(in, 4),
				   (enum qpu_v3d_uf)pick(in, 13));
		break;
	case 6:
		op = byte(in);
		qpu_v3d_emit_sig(e, op | (byte(in) & 0x1f) << 8, reg(in));
		break;
	case 7:
		qpu_v3d_emit_rot(e, (int)(byte(in) % 40) - 20);
		break;
	case 8:
		qpu_v3d_emit_nop(e);
		break;
	case 9:
		qpu_v3d_emit_thrsw(e);
		break;
	case 10:
		qpu_v3d_emit_ldunif(e, reg(in));
		break;
	case 11:
		qpu_v3d_emit_ldunifa(e, reg(in));
		break;
	case 12:
		qpu_v3d_emit_ldtmu(e, reg(in));
		break;
	case 13:
		qpu_v3d_emit_branch(e, (enum qpu_v3d_br_cond)pick(in, 7), label(in));
		break;
	case 14:
		qpu_v3d_emit_branch_offset(e, (enum qpu_v3d_br_cond)pick(in, 7),
					   (int32_t)word32(in));
		break;
	case 15:
		qpu_v3d_emit_branch_abs(e, (enum qpu_v3d_br_cond)pick(in, 7),
					word32(in));
		break;
	case 16:
		qpu_v3d_emit_branch_lri(e, (enum qpu_v3d_br_cond)pick(in, 7));
		break;
	case 17:
		qpu_v3d_emit_branch_reg(e, (enum qpu_v3d_br_cond)pick(in, 7),
					reg(in));
		break;
	case 18:
		qpu_v3d_emit_branch_msfign(e, (enum qpu_v3d_msfign)pick(in, 3));
		break;
	case 19:
		op = pick(in, 4);
		qpu_v3d_emit_branch_unif(e, (enum qpu_v3d_br_dest)op, reg(in));
		break;
	case 20:
	case 21:
		qpu_v3d_emit_label(e, label(in));
		break;
	case 22:
		qpu_v3d_emit_raw(e, (uint64_t)word32(in) << 32 | word32(in));
		at = qpu_v3d_emit_count(e);
		if (!qpu_v3d_emit_error(e, NULL) && at && at <= MAX_CALLS)
			raw_at[(at - 1) / 64] |= 1ull << ((at - 1) % 64);
		break;
	default:
		(void)qpu_v3d_emit_count(e);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t raw_at[MAX_CALLS / 64 + 1] = { 0 };
	struct input in = { data, size };
	char first[256] = "", line[QPU_DIS_BUF_SIZE], msg[256] = "";
	size_t first_index = 0, index, n = 1, i, calls;
	const uint64_t *words;
	struct qpu_v3d_emit *e;
	const char *err;
	int gen, ret;

	if (!size)
		return 0;
	gen = byte(&in) & 1 ? QPU_GEN_V3D71 : QPU_GEN_V3D42;
	e = qpu_v3d_emit_new(gen);
	FUZZ_CHECK(e, "qpu_v3d_emit_new: %d", errno);

	for (calls = 0; in.left && calls < MAX_CALLS; calls++) {
		call(e, &in, raw_at);
		err = qpu_v3d_emit_error(e, &index);
		if (!err)
			continue;
		FUZZ_CHECK(!strncmp(err, "instruction ", 12) && strlen(err) > 14,
			   "error text '%s'", err);
		if (!first[0]) {
			snprintf(first, sizeof(first), "%s", err);
			first_index = index;
		}
		FUZZ_CHECK(!strcmp(first, err) && index == first_index,
			   "error changed: '%s' (%zu), then '%s' (%zu)", first,
			   first_index, err, index);
	}
	FUZZ_CHECK(qpu_v3d_emit_words(e, &n) == NULL && n == 0,
		   "words before the finish");

	ret = qpu_v3d_emit_finish(e);
	words = qpu_v3d_emit_words(e, &n);
	err = qpu_v3d_emit_error(e, &index);
	FUZZ_CHECK(ret == 0 || ret == -EINVAL, "finish returned %d", ret);
	if (ret) {
		FUZZ_CHECK(err && !words && !n, "failed: error %s, %zu words",
			   err ? err : "(none)", n);
		FUZZ_CHECK(!first[0] || (!strcmp(first, err) && index == first_index),
			   "the finish replaced '%s' with '%s'", first, err);
		/* sticky: nothing changes it now */
		qpu_v3d_emit_nop(e);
		FUZZ_CHECK(qpu_v3d_emit_finish(e) == ret, "finish again");
	} else {
		FUZZ_CHECK(!err && !first[0], "finished with error '%s'",
			   err ? err : first);
		FUZZ_CHECK(words || !n, "no words");
		FUZZ_CHECK(n == qpu_v3d_emit_count(e), "%zu words, count %zu", n,
			   qpu_v3d_emit_count(e));
	}
	for (i = 0; !ret && i < n; i++) {
		uint64_t back = ~words[i];
		bool raw = i < MAX_CALLS && (raw_at[i / 64] >> (i % 64) & 1);

		qpu_dis_word_gen(gen, words[i], 8 * (uint32_t)i, 0, line,
				 sizeof(line));
		FUZZ_CHECK(raw || strncmp(line, ".long", 5),
			   "v3d%d word %zu 0x%016llx from the emitter is '%s'",
			   gen, i, (unsigned long long)words[i], line);
		FUZZ_CHECK(!qpu_asm_line_gen(gen, line, &back, msg, sizeof(msg)) &&
			   back == words[i], "v3d%d word %zu 0x%016llx -> '%s' -> %s",
			   gen, i, (unsigned long long)words[i], line, msg);
	}
	qpu_v3d_emit_free(e);
	return 0;
}
