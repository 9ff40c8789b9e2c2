// SPDX-License-Identifier: MIT
/*
 * test-disasm: the one-word disassembler. Golden text for hand-made words of
 * every instruction form (words built here from the Reference Guide's bit
 * positions, text written by hand), raw fallbacks for what the syntax cannot
 * carry, buffer truncation, and property checks on a seeded sample: no two
 * sampled words print the same text, and flipping any one bit (or two, for
 * a subset) changes the text, so no field is invisible.
 */
#include <stdbool.h>
#include <stdint.h>

#include "qpu_disasm.h"
#include "qpu_isa.h"
#include "testlib.h"

#pragma GCC diagnostic ignored "-Woverride-init"

#define RANDOM_SEED	0x5eedf00dcafe1234ull
#define SAMPLE_WORDS	400000
#define FLIP_WORDS	40000	/* each with its 64 one-bit neighbours */
#define FLIP2_WORDS	1000	/* each with its 2016 two-bit neighbours */

#define B(v, pos)	((uint64_t)(v) << (pos))

/* Muxes and registers by their reference numbers. */
enum { R0, R1, R2, R3, R4, R5, MA, MB };

struct alu_fields {
	unsigned int sig, unpack, pm, pack, ca, cm, sf, ws, wa, wm, om, oa;
	unsigned int ra, rb, aa, ab, ma, mb;
};

/* Figure 4 of the Reference Guide: the ALU instruction layout. */
static uint64_t alu_word(struct alu_fields f)
{
	return B(f.sig, 60) | B(f.unpack, 57) | B(f.pm, 56) | B(f.pack, 52) |
		B(f.ca, 49) | B(f.cm, 46) | B(f.sf, 45) | B(f.ws, 44) |
		B(f.wa, 38) | B(f.wm, 32) | B(f.om, 29) | B(f.oa, 24) |
		B(f.ra, 18) | B(f.rb, 12) | B(f.aa, 9) | B(f.ab, 6) |
		B(f.ma, 3) | B(f.mb, 0);
}

/* Defaults: signal none, nothing written or read. */
#define ALU(...) alu_word((struct alu_fields){ .sig = 1, .wa = 39, .wm = 39, \
	.ra = 39, .rb = 39, __VA_ARGS__ })
/* An add op writing r0 from r1 and r2. */
#define ADD(...) ALU(.oa = 12, .ca = 1, .wa = 32, .aa = R1, .ab = R2, __VA_ARGS__)
/* A mul op writing r0 from r1 and r2. */
#define MUL(...) ALU(.om = 1, .cm = 1, .wm = 32, .ma = R1, .mb = R2, __VA_ARGS__)
#define SMI(imm, ...) ALU(.sig = 13, .rb = (imm), __VA_ARGS__)

struct ldi_fields {
	unsigned int mode, pm, pack, ca, cm, sf, ws, wa, wm;
	uint32_t imm;
};

/* Figure 5/6: load immediate and semaphore. */
static uint64_t ldi_word(struct ldi_fields f)
{
	return B(14, 60) | B(f.mode, 57) | B(f.pm, 56) | B(f.pack, 52) |
		B(f.ca, 49) | B(f.cm, 46) | B(f.sf, 45) | B(f.ws, 44) |
		B(f.wa, 38) | B(f.wm, 32) | f.imm;
}

#define LDI(...) ldi_word((struct ldi_fields){ .ca = 1, .wa = 39, .wm = 39, \
	__VA_ARGS__ })
#define SEM(...) ldi_word((struct ldi_fields){ .mode = 4, .wa = 39, .wm = 39, \
	__VA_ARGS__ })

struct br_fields {
	unsigned int pad, cond, rel, reg, ra, ws, wa, wm;
	uint32_t imm;
};

/* Figure 7: branch. */
static uint64_t br_word(struct br_fields f)
{
	return B(15, 60) | B(f.pad, 56) | B(f.cond, 52) | B(f.rel, 51) |
		B(f.reg, 50) | B(f.ra, 45) | B(f.ws, 44) | B(f.wa, 38) |
		B(f.wm, 32) | f.imm;
}

#define BR(...) br_word((struct br_fields){ .cond = 15, .wa = 39, .wm = 39, \
	__VA_ARGS__ })

/*
 * With --dump PREFIX, every word checked here is also written to PREFIX.bin
 * (little endian) and its text to PREFIX.qasm, so test-vc4asm.sh can have
 * vc4asm assemble the text and compare.
 */
static FILE *dump_bin, *dump_qasm;

static void dump(uint64_t word, const char *text)
{
	unsigned char le[8];

	if (!dump_bin)
		return;
	for (int i = 0; i < 8; i++)
		le[i] = (unsigned char)(word >> (8 * i));
	if (fwrite(le, 1, 8, dump_bin) != 8 || fprintf(dump_qasm, "%s\n", text) < 0) {
		perror("test-disasm: --dump");
		exit(T_EXIT_FAIL);
	}
}

static void check_golden(const char *file, int line, uint64_t word,
			 const char *want)
{
	char buf[QPU_DISASM_BUF_SIZE];
	int len = qpu_disasm(word, 0, 0, buf, sizeof(buf));

	dump(word, buf);
	t_checks++;
	if (strcmp(buf, want) || len != (int)strlen(want)) {
		fprintf(stderr, "%s:%d: word 0x%016" PRIx64 "\n  expected \"%s\"\n"
			"  got      \"%s\" (length %d)\n", file, line, word,
			want, buf, len);
		t_failures++;
	}
}

#define GOLDEN(word, text) check_golden(__FILE__, __LINE__, word, text)

/* The raw form, spelt out here independently of the disassembler. */
static void check_raw(const char *file, int line, uint64_t word)
{
	char want[64];

	snprintf(want, sizeof(want), ".long 0x%016" PRIx64, word);
	check_golden(file, line, word, want);
}

#define RAW(word) check_raw(__FILE__, __LINE__, word)

T_TEST(alu_ops)
{
	static const char *const add[32] = {
		[1] = "fadd r0, r1, r2", [2] = "fsub r0, r1, r2",
		[3] = "fmin r0, r1, r2", [4] = "fmax r0, r1, r2",
		[5] = "fminabs r0, r1, r2", [6] = "fmaxabs r0, r1, r2",
		[12] = "add r0, r1, r2", [13] = "sub r0, r1, r2",
		[14] = "shr r0, r1, r2", [15] = "asr r0, r1, r2",
		[16] = "ror r0, r1, r2", [17] = "shl r0, r1, r2",
		[18] = "min r0, r1, r2", [19] = "max r0, r1, r2",
		[20] = "and r0, r1, r2", [21] = "or r0, r1, r2",
		[22] = "xor r0, r1, r2",
		[30] = "av8adds r0, r1, r2", [31] = "av8subs r0, r1, r2",
	};
	static const char *const mul[8] = {
		[1] = "nop; fmul r0, r1, r2", [2] = "nop; mul24 r0, r1, r2",
		[3] = "nop; v8muld r0, r1, r2", [4] = "nop; v8min r0, r1, r2",
		[5] = "nop; v8max r0, r1, r2", [6] = "nop; v8adds r0, r1, r2",
		[7] = "nop; v8subs r0, r1, r2",
	};

	GOLDEN(ALU(), "nop");
	for (unsigned int op = 0; op < 32; op++)
		if (add[op])
			GOLDEN(ADD(.oa = op), add[op]);
	/* Unary ops read their first input only; both muxes are equal. */
	GOLDEN(ADD(.oa = 7, .ab = R1), "ftoi r0, r1");
	GOLDEN(ADD(.oa = 8, .ab = R1), "itof r0, r1");
	GOLDEN(ADD(.oa = 23, .ab = R1), "not r0, r1");
	GOLDEN(ADD(.oa = 24, .ab = R1), "clz r0, r1");
	for (unsigned int op = 1; op < 8; op++)
		GOLDEN(MUL(.om = op), mul[op]);

	/* Both ALUs, as in the brief: add to regfile A, mul to regfile B. */
	GOLDEN(ALU(.oa = 12, .ca = 1, .wa = 1, .aa = R0, .ab = R1,
		   .om = 1, .cm = 1, .wm = 2, .ma = R2, .mb = R3),
	       "add ra1, r0, r1; fmul rb2, r2, r3");
	/* mov: or / v8min with equal inputs. */
	GOLDEN(ADD(.oa = 21, .aa = MA, .ab = MA, .ra = 32), "mov r0, unif");
	GOLDEN(MUL(.om = 4, .ma = R1, .mb = R1), "nop; mov r0, r1");
	GOLDEN(ALU(.oa = 21, .ca = 1, .wa = 33, .aa = R2, .ab = R2,
		   .om = 4, .cm = 1, .wm = 34, .ma = R3, .mb = R3),
	       "mov r1, r2; mov r2, r3");
	/* Signals. */
	{
		static const char *const sig[13] = {
			"nop; bkpt", "nop", "nop; thrsw", "nop; thrend",
			"nop; sbwait", "nop; sbdone", "nop; lthrsw",
			"nop; loadcv", "nop; loadc", "nop; ldcend",
			"nop; ldtmu0", "nop; ldtmu1", "nop; loadam",
		};

		for (unsigned int s = 0; s < 13; s++)
			GOLDEN(ALU(.sig = s), sig[s]);
	}
	GOLDEN(ADD(.sig = 10), "add r0, r1, r2; ldtmu0");
	/* An idle ALU may still write its last result to a register. */
	GOLDEN(ALU(.wa = 1, .ca = 1), "anop ra1");
	GOLDEN(ALU(.wa = 32, .ca = 0), "anop.never r0");
	GOLDEN(ALU(.wa = 1, .ca = 2, .ws = 1), "anop.ifz rb1");
	GOLDEN(ALU(.wm = 33, .cm = 1), "nop; mnop r1");
	GOLDEN(ALU(.wm = 33, .cm = 1, .ws = 1), "nop; mnop ra33");
	GOLDEN(ALU(.wa = 32, .ca = 1, .om = 1, .cm = 1, .wm = 33, .ma = R2,
		   .mb = R3, .sig = 3), "anop r0; fmul r1, r2, r3; thrend");
	GOLDEN(ADD(.wm = 36, .cm = 5), "add r0, r1, r2; mnop.ifnn tmurs");
	GOLDEN(ADD(.sig = 3, .oa = 21, .ab = R1), "mov r0, r1; thrend");
}

T_TEST(conds_flags)
{
	static const char *const add[8] = {
		"add.never r0, r1, r2", "add r0, r1, r2", "add.ifz r0, r1, r2",
		"add.ifnz r0, r1, r2", "add.ifn r0, r1, r2",
		"add.ifnn r0, r1, r2", "add.ifc r0, r1, r2",
		"add.ifcc r0, r1, r2",
	};
	static const char *const mul[8] = {
		"nop; fmul.never r0, r1, r2", "nop; fmul r0, r1, r2",
		"nop; fmul.ifz r0, r1, r2", "nop; fmul.ifnz r0, r1, r2",
		"nop; fmul.ifn r0, r1, r2", "nop; fmul.ifnn r0, r1, r2",
		"nop; fmul.ifc r0, r1, r2", "nop; fmul.ifcc r0, r1, r2",
	};

	for (unsigned int c = 0; c < 8; c++) {
		GOLDEN(ADD(.ca = c), add[c]);
		GOLDEN(MUL(.cm = c), mul[c]);
	}
	/* .setf goes to the add op, to the mul op when add is nop. */
	GOLDEN(ADD(.sf = 1), "add.setf r0, r1, r2");
	/* vc4asm writes the unused add side with "always" then. */
	GOLDEN(MUL(.sf = 1, .ca = 1), "nop; fmul.setf r0, r1, r2");
	RAW(MUL(.sf = 1));
	GOLDEN(ALU(.sf = 1, .oa = 12, .ca = 1, .wa = 33, .aa = R1, .ab = R2,
		   .om = 1, .cm = 1, .wm = 34, .ma = R1, .mb = R2),
	       "add.setf r1, r1, r2; fmul r2, r1, r2");
	/*
	 * "-" is never written, so vc4asm drops its condition, except on the
	 * side that sets flags: there it defaults to always.
	 */
	GOLDEN(ADD(.wa = 39, .ca = 0), "add -, r1, r2");
	GOLDEN(ADD(.wa = 39, .ca = 0, .ws = 1), "add rb39, r1, r2");
	RAW(ADD(.wa = 39, .ca = 2));
	RAW(ADD(.wa = 39, .ca = 1));
	GOLDEN(ADD(.wa = 39, .ca = 1, .sf = 1), "add.setf -, r1, r2");
	GOLDEN(ADD(.wa = 39, .ca = 0, .sf = 1), "add.setf.never -, r1, r2");
	GOLDEN(ADD(.wa = 39, .ca = 7, .sf = 1), "add.setf.ifcc -, r1, r2");
	GOLDEN(MUL(.wm = 39, .cm = 0), "nop; fmul -, r1, r2");
	RAW(MUL(.wm = 39, .cm = 2));
	GOLDEN(MUL(.wm = 39, .cm = 1, .sf = 1, .ca = 1), "nop; fmul.setf -, r1, r2");
	GOLDEN(MUL(.wm = 39, .cm = 0, .sf = 1, .ca = 1),
	       "nop; fmul.setf.never -, r1, r2");
	GOLDEN(SMI(1, .oa = 20, .ca = 1, .sf = 1, .ra = 38, .aa = MA, .ab = MB),
	       "and.setf -, elem_num, 1");
	GOLDEN(ALU(.oa = 21, .ra = 48, .aa = MA, .ab = MA), "mov -, vpm");
}

T_TEST(pack_unpack)
{
	static const char *const pack_a[16] = {
		"", "16a", "16b", "8abcd", "8a", "8b", "8c", "8d",
		"32s", "16as", "16bs", "8abcdsi", "8asi", "8bsi", "8csi", "8dsi",
	};
	static const char *const pack_m[8] = {
		NULL, NULL, NULL, "8888", "8asf", "8bsf", "8csf", "8dsf",
	};
	static const char *const unpack[8] = {
		"", "16a", "16b", "8dr", "8a", "8b", "8c", "8d",
	};
	char want[64];

	for (unsigned int p = 1; p < 16; p++) {
		/* Regfile-A pack on the add result (ws=0) ... */
		snprintf(want, sizeof(want), "add ra1.%s, r1, r2", pack_a[p]);
		GOLDEN(ADD(.pack = p, .wa = 1), want);
		/* ... and on the mul result when ws=1 sends it to regfile A. */
		snprintf(want, sizeof(want), "nop; fmul ra1.%s, r1, r2", pack_a[p]);
		GOLDEN(MUL(.pack = p, .ws = 1, .wm = 1), want);
		/* Pack on an ALU that does not run cannot be written. */
		RAW(MUL(.pack = p, .wm = 1));
	}
	for (unsigned int p = 3; p < 8; p++) {
		snprintf(want, sizeof(want), "nop; fmul r0.%s, r1, r2", pack_m[p]);
		GOLDEN(MUL(.pm = 1, .pack = p), want);
		snprintf(want, sizeof(want), "nop; fmul tmurs.%s, r1, r2", pack_m[p]);
		GOLDEN(MUL(.pm = 1, .pack = p, .wm = 36), want);
	}
	/* "8888" on a regfile-A register means the regfile-A pack. */
	GOLDEN(MUL(.pm = 1, .pack = 4, .ws = 1, .wm = 1), "nop; fmul ra1.8asf, r1, r2");
	RAW(MUL(.pm = 1, .pack = 3, .ws = 1, .wm = 1));
	/* Regfile-A pack needs a regfile-A register, not I/O or r0..r3. */
	RAW(ADD(.pack = 1, .wa = 32));
	RAW(ADD(.pack = 4, .wa = 56));
	RAW(MUL(.pack = 4, .ws = 1, .wm = 39));
	for (unsigned int u = 1; u < 8; u++) {
		snprintf(want, sizeof(want), "fadd r0, ra5.%s, r2", unpack[u]);
		GOLDEN(ADD(.oa = 1, .unpack = u, .ra = 5, .aa = MA), want);
		snprintf(want, sizeof(want), "fadd r0, r4.%s, r2", unpack[u]);
		GOLDEN(ADD(.oa = 1, .pm = 1, .unpack = u, .aa = R4), want);
		/* Unpacked inputs are never shown as mov. */
		snprintf(want, sizeof(want), "or r0, ra5.%s, ra5.%s", unpack[u],
			 unpack[u]);
		GOLDEN(ADD(.oa = 21, .unpack = u, .ra = 5, .aa = MA, .ab = MA),
		       want);
		/* Unpack with nothing to apply to. */
		RAW(ADD(.unpack = u));
		RAW(ADD(.pm = 1, .unpack = u, .ra = 5, .aa = MA));
		/* ... or applied to I/O, or next to a read. */
		RAW(ADD(.oa = 1, .unpack = u, .ra = 32, .aa = MA));
		RAW(ADD(.oa = 1, .unpack = u, .ra = 5, .aa = MA, .rb = 3));
		RAW(ADD(.oa = 1, .pm = 1, .unpack = u, .aa = R4, .ra = 5));
	}
	/* Integer unpack with a float op on the other ALU: vc4asm refuses. */
	RAW(ALU(.oa = 12, .ca = 1, .wa = 32, .aa = MA, .ab = R1, .ra = 5,
		.unpack = 4, .om = 1, .cm = 1, .wm = 33, .ma = R2, .mb = R3));
	GOLDEN(ALU(.oa = 1, .ca = 1, .wa = 32, .aa = MA, .ab = R1, .ra = 5,
		   .unpack = 4, .om = 1, .cm = 1, .wm = 33, .ma = R2, .mb = R3),
	       "fadd r0, ra5.8a, r1; fmul r1, r2, r3");
	GOLDEN(ALU(.oa = 12, .ca = 1, .wa = 32, .aa = MA, .ab = R1, .ra = 5,
		   .unpack = 3, .om = 1, .cm = 1, .wm = 33, .ma = R2, .mb = R3),
	       "add r0, ra5.8dr, r1; fmul r1, r2, r3");
	/* pm=1 with neither pack nor unpack leaves no trace in text. */
	RAW(ADD(.pm = 1));
	for (unsigned int p = 1; p < 16; p++)
		if (p < 3 || p > 7)
			RAW(MUL(.pm = 1, .pack = p));
}

T_TEST(registers)
{
	static const char *const rd_a[32] = {
		"unif", "ra33", "ra34", "vary", "ra36", "ra37", "elem_num",
		"ra39", "ra40", "x_coord", "ms_mask", "ra43", "ra44", "ra45",
		"ra46", "ra47", "vpm", "vr_busy", "vr_wait", "mutex",
	};
	static const char *const rd_b[32] = {
		"rb32", "rb33", "rb34", "rb35", "rb36", "rb37", "qpu_num",
		"rb39", "rb40", "y_coord", "rev_flag", "rb43", "rb44", "rb45",
		"rb46", "rb47", "rb48", "vw_busy", "vw_wait", "rb51",
	};
	/* Write names; NULL where the two files share the name below. */
	static const char *const shared[32] = {
		"r0", "r1", "r2", "r3", "tmurs", NULL, "irq", NULL,
		NULL, NULL, NULL, "stencil", "tlbz", "tlbm", "tlbc", "tlbam",
		"vpm", NULL, NULL, "mutex", "recip", "recipsqrt", "exp", "log",
		"t0s", "t0t", "t0r", "t0b", "t1s", "t1t", "t1r", "t1b",
	};
	static const char *const only[2][32] = {
		{ [5] = "r5quad", [8] = "unif_addr", [9] = "x_coord",
		  [10] = "ms_mask", [17] = "vr_setup", [18] = "vr_addr" },
		{ [5] = "r5rep", [8] = "unif_addr_rel", [9] = "y_coord",
		  [10] = "rev_flag", [17] = "vw_setup", [18] = "vw_addr" },
	};
	char want[64];

	for (unsigned int i = 0; i < 32; i++) {
		snprintf(want, sizeof(want), "fadd r0, ra%u, r2", i);
		GOLDEN(ADD(.oa = 1, .ra = i, .aa = MA), want);
		snprintf(want, sizeof(want), "fadd r0, r1, rb%u", i);
		GOLDEN(ADD(.oa = 1, .rb = i, .ab = MB), want);
		snprintf(want, sizeof(want), "fadd ra%u, r1, r2", i);
		GOLDEN(ADD(.oa = 1, .wa = i), want);
		snprintf(want, sizeof(want), "fadd rb%u, r1, r2", i);
		GOLDEN(ADD(.oa = 1, .wa = i, .ws = 1), want);
		snprintf(want, sizeof(want), "nop; fmul rb%u, r1, r2", i);
		GOLDEN(MUL(.wm = i), want);
		snprintf(want, sizeof(want), "nop; fmul ra%u, r1, r2", i);
		GOLDEN(MUL(.wm = i, .ws = 1), want);
	}
	for (unsigned int i = 0; i < 32; i++) {
		if (i < 20) {
			snprintf(want, sizeof(want), "fadd r0, %s, r2", rd_a[i]);
			GOLDEN(ADD(.oa = 1, .ra = 32 + i, .aa = MA), want);
			snprintf(want, sizeof(want), "fadd r0, r1, %s", rd_b[i]);
			GOLDEN(ADD(.oa = 1, .rb = 32 + i, .ab = MB), want);
		}
		for (unsigned int ws = 0; ws < 2; ws++) {
			const char *name = shared[i] ? shared[i] : only[ws][i];

			if (i == 7)	/* address 39, see test_conds_flags() */
				continue;
			if (shared[i] && ws)	/* ws=1 needs a file name */
				snprintf(want, sizeof(want), "fadd rb%u, r1, r2",
					 32 + i);
			else
				snprintf(want, sizeof(want), "fadd %s, r1, r2",
					 name);
			GOLDEN(ADD(.oa = 1, .wa = 32 + i, .ws = ws), want);
		}
	}
	/* ws=1 with a shared name on the mul side alone. */
	GOLDEN(MUL(.ws = 1), "nop; fmul ra32, r1, r2");
	/* ... and with one file-specific name, the other stays symbolic. */
	GOLDEN(ALU(.ws = 1, .oa = 12, .ca = 1, .wa = 2, .aa = R1, .ab = R2,
		   .om = 1, .cm = 1, .wm = 36, .ma = R1, .mb = R2),
	       "add rb2, r1, r2; fmul tmurs, r1, r2");
	RAW(ALU(.ws = 1));
	/* Unused read addresses appear as read. */
	GOLDEN(ALU(.ra = 5), "nop; read ra5");
	GOLDEN(ALU(.ra = 32, .rb = 32), "nop; read unif; read rb32");
	GOLDEN(ADD(.ra = 49, .rb = 3), "add r0, r1, r2; read vr_busy; read rb3");
	GOLDEN(ADD(.rb = 49, .sig = 11), "add r0, r1, r2; read vw_busy; ldtmu1");
}

T_TEST(small_imm)
{
	static const char *const rot[16] = {
		"<< r5", ">> 1", ">> 2", ">> 3", ">> 4", ">> 5", ">> 6", ">> 7",
		"<< 8", "<< 7", "<< 6", "<< 5", "<< 4", "<< 3", "<< 2", "<< 1",
	};
	char want[64];

	GOLDEN(SMI(5, .oa = 12, .ca = 1, .wa = 32, .aa = R1, .ab = MB),
	       "add r0, r1, 5");
	GOLDEN(SMI(29, .oa = 12, .ca = 1, .wa = 32, .aa = R1, .ab = MB),
	       "add r0, r1, -3");
	GOLDEN(SMI(16, .oa = 12, .ca = 1, .wa = 32, .aa = MB, .ab = R1),
	       "add r0, -16, r1");
	GOLDEN(SMI(33, .om = 1, .cm = 1, .wm = 32, .ma = R1, .mb = MB),
	       "nop; fmul r0, r1, 2.0");
	GOLDEN(SMI(39, .oa = 1, .ca = 1, .wa = 32, .aa = R1, .ab = MB),
	       "fadd r0, r1, 128.0");
	GOLDEN(SMI(40, .oa = 1, .ca = 1, .wa = 32, .aa = R1, .ab = MB),
	       "fadd r0, r1, 0.00390625");
	GOLDEN(SMI(45, .oa = 1, .ca = 1, .wa = 32, .aa = R1, .ab = MB),
	       "fadd r0, r1, 0.125");
	GOLDEN(SMI(47, .oa = 1, .ca = 1, .wa = 32, .aa = R1, .ab = MB),
	       "fadd r0, r1, 0.5");
	/* vc4asm folds an op on two immediates into a load immediate. */
	RAW(SMI(5, .oa = 21, .ca = 1, .wa = 32, .aa = MB, .ab = MB));
	RAW(SMI(33, .om = 1, .cm = 1, .wm = 32, .ma = MB, .mb = MB));
	GOLDEN(SMI(5, .oa = 8, .ca = 1, .wa = 32, .aa = MB, .ab = MB),
	       "itof r0, 5");
	/* ... and reduces a float shift count to 5 bits. */
	RAW(SMI(33, .oa = 17, .ca = 1, .wa = 32, .aa = R1, .ab = MB));
	GOLDEN(SMI(33, .oa = 17, .ca = 1, .wa = 32, .aa = MB, .ab = R1),
	       "shl r0, 2.0, r1");
	GOLDEN(SMI(16, .oa = 17, .ca = 1, .wa = 32, .aa = R1, .ab = MB),
	       "shl r0, r1, -16");
	GOLDEN(SMI(7), "nop; read 7");
	GOLDEN(SMI(15, .sig = 13, .oa = 12, .ca = 1, .wa = 32, .aa = R1, .ab = R2),
	       "add r0, r1, r2; read 15");
	for (unsigned int r = 0; r < 16; r++) {
		snprintf(want, sizeof(want), "nop; fmul r0, r1 %s, r2 %s",
			 rot[r], rot[r]);
		GOLDEN(SMI(48 + r, .om = 1, .cm = 1, .wm = 32, .ma = R1, .mb = R2),
		       want);
		snprintf(want, sizeof(want), "nop; mov r0, ra1 %s", rot[r]);
		GOLDEN(SMI(48 + r, .om = 4, .cm = 1, .wm = 32, .ra = 1, .ma = MA,
			   .mb = MA), want);
		/* A rotation read through mux B, or with no mul op, is raw. */
		RAW(SMI(48 + r, .om = 1, .cm = 1, .wm = 32, .ma = R1, .mb = MB));
		RAW(SMI(48 + r, .oa = 12, .ca = 1, .wa = 32, .aa = R1, .ab = MB));
		RAW(SMI(48 + r));
	}
	GOLDEN(SMI(50, .oa = 12, .ca = 1, .wa = 33, .aa = R1, .ab = R2,
		   .om = 1, .cm = 1, .wm = 32, .ma = R3, .mb = R3),
	       "add r1, r1, r2; fmul r0, r3 >> 2, r3 >> 2");
}

T_TEST(ldi_sema)
{
	GOLDEN(LDI(.wa = 0, .imm = 0x12345678), "ldi ra0, 0x12345678");
	GOLDEN(LDI(.wa = 32, .imm = 0), "ldi r0, 0x0");
	GOLDEN(LDI(.wa = 32, .imm = 0xffffffff, .ws = 1), "ldi rb32, 0xffffffff");
	GOLDEN(LDI(.wa = 1, .imm = 5, .ws = 1), "ldi rb1, 0x5");
	GOLDEN(LDI(.wa = 1, .wm = 2, .cm = 1, .imm = 0x100), "ldi ra1, rb2, 0x100");
	GOLDEN(LDI(.wa = 1, .ca = 2, .imm = 5), "ldi ra1.ifz, 0x5");
	GOLDEN(LDI(.wa = 1, .ca = 0, .imm = 5), "ldi ra1.never, 0x5");
	GOLDEN(LDI(.ca = 0, .wm = 2, .cm = 1, .imm = 5), "ldi -, rb2, 0x5");
	RAW(LDI(.ca = 0, .wm = 39, .cm = 3, .imm = 5));
	GOLDEN(LDI(.ca = 3, .sf = 1, .imm = 5), "ldi.setf -.ifnz, 0x5");
	GOLDEN(LDI(.ca = 0, .sf = 1, .wm = 2, .cm = 1, .imm = 5),
	       "ldi.setf -.never, rb2, 0x5");
	GOLDEN(LDI(.ca = 1, .sf = 1, .imm = 1), "ldi.setf -, 0x1");
	GOLDEN(LDI(.wa = 1, .pack = 4, .imm = 0xff), "ldi ra1.8a, 0xff");
	GOLDEN(LDI(.wa = 32, .wm = 1, .cm = 1, .ws = 1, .pack = 12, .imm = 3),
	       "ldi r0, ra1.8asi, 0x3");
	GOLDEN(LDI(.wa = 32, .wm = 1, .ws = 1, .pack = 12, .imm = 3),
	       "ldi r0, ra1.never.8asi, 0x3");
	GOLDEN(LDI(.wa = 1, .ca = 4, .pack = 4, .imm = 5), "ldi ra1.ifn.8a, 0x5");
	GOLDEN(LDI(.wm = 32, .cm = 1, .ca = 0, .pm = 1, .pack = 3, .imm = 1),
	       "ldi -, r0.8888, 0x1");
	RAW(LDI(.wa = 32, .pack = 4, .imm = 1));
	GOLDEN(LDI(.wa = 32, .wm = 32, .cm = 1, .pm = 1, .pack = 4, .imm = 3),
	       "ldi r0, r0.8asf, 0x3");
	RAW(LDI(.wa = 32, .pm = 1, .imm = 3));
	RAW(LDI(.wa = 32, .pm = 1, .pack = 1, .imm = 3));
	/* Per element: element i has bit i low, bit 16 + i high. */
	GOLDEN(LDI(.mode = 1, .wa = 32, .imm = 0xccccaaaa),
	       "ldipes r0, [0,1,-2,-1,0,1,-2,-1,0,1,-2,-1,0,1,-2,-1]");
	GOLDEN(LDI(.mode = 3, .wa = 32, .imm = 0xccccaaaa),
	       "ldipeu r0, [0,1,2,3,0,1,2,3,0,1,2,3,0,1,2,3]");
	GOLDEN(LDI(.mode = 3, .wa = 5, .imm = 0x00018000),
	       "ldipeu ra5, [2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1]");
	/* Semaphores: number in bits 3:0, acquire in bit 4. */
	GOLDEN(SEM(.imm = 0x13), "sacq -, 3");
	GOLDEN(SEM(.imm = 0x0f), "srel -, 15");
	GOLDEN(SEM(.imm = 0x10), "sacq -, 0");
	GOLDEN(SEM(.imm = 0x33), "sacq -, 0x23");
	GOLDEN(SEM(.imm = 0x80000001), "srel -, 0x80000001");
	GOLDEN(SEM(.imm = 0x17, .wa = 32, .ca = 1), "sacq r0, 7");
	GOLDEN(SEM(.imm = 0x1, .sf = 1, .ca = 1), "srel.setf -, 1");
	/* Reserved load-immediate modes. */
	RAW(LDI(.mode = 2, .imm = 1));
	RAW(LDI(.mode = 5));
	RAW(LDI(.mode = 6));
	RAW(LDI(.mode = 7, .imm = 0xffffffff));
}

T_TEST(branch)
{
	static const char *const cond[16] = {
		"brr.allz -, +32", "brr.allnz -, +32", "brr.anyz -, +32",
		"brr.anynz -, +32", "brr.alln -, +32", "brr.allnn -, +32",
		"brr.anyn -, +32", "brr.anynn -, +32", "brr.allc -, +32",
		"brr.allnc -, +32", "brr.anyc -, +32", "brr.anync -, +32",
		NULL, NULL, NULL, "brr -, +32",
	};
	char buf[QPU_DISASM_BUF_SIZE];

	for (unsigned int c = 0; c < 16; c++) {
		if (cond[c])
			GOLDEN(BR(.cond = c, .rel = 1, .imm = 32), cond[c]);
		else
			RAW(BR(.cond = c, .rel = 1, .imm = 32));
	}
	GOLDEN(BR(.rel = 1, .imm = (uint32_t)-64), "brr -, -64");
	GOLDEN(BR(.rel = 1), "brr -, +0");
	GOLDEN(BR(.imm = 0x1000), "bra -, 0x1000");
	GOLDEN(BR(.reg = 1, .ra = 8), "bra -, ra8");
	GOLDEN(BR(.reg = 1, .ra = 31, .imm = 0x100), "bra -, ra31, 0x100");
	GOLDEN(BR(.rel = 1, .reg = 1, .ra = 3, .imm = 8), "brr -, ra3, +8");
	GOLDEN(BR(.rel = 1, .wa = 1, .imm = 16), "brr ra1, +16");
	GOLDEN(BR(.rel = 1, .wa = 1, .ws = 1, .imm = 16), "brr rb1, +16");
	GOLDEN(BR(.rel = 1, .wa = 32, .ws = 1), "brr rb32, +0");
	GOLDEN(BR(.rel = 1, .ws = 1), "brr rb39, +0");
	GOLDEN(BR(.rel = 1, .wa = 32), "brr r0, +0");
	GOLDEN(BR(.rel = 1, .wa = 1, .wm = 2, .imm = 8), "brr ra1, rb2, -, +8");
	GOLDEN(BR(.rel = 1, .wm = 2, .imm = 8), "brr -, rb2, -, +8");
	GOLDEN(BR(.reg = 1, .ra = 3, .wa = 1, .wm = 2), "bra ra1, rb2, ra3, 0x0");
	RAW(BR(.pad = 1));
	RAW(BR(.pad = 8, .rel = 1));
	RAW(BR(.ra = 1));	/* raddr_a without reg */

	/* Targets as comments: relative to the fourth next instruction. */
	qpu_disasm(BR(.rel = 1, .imm = 32), 0x100, QPU_DISASM_TARGET, buf,
		   sizeof(buf));
	T_EQ_STR("brr -, +32  # 0x0140", buf);
	qpu_disasm(BR(.rel = 1, .imm = (uint32_t)-48), 0x100, QPU_DISASM_TARGET,
		   buf, sizeof(buf));
	T_EQ_STR("brr -, -48  # 0x00f0", buf);
	qpu_disasm(BR(.imm = 0x12340), 0x100, QPU_DISASM_TARGET, buf, sizeof(buf));
	T_EQ_STR("bra -, 0x12340  # 0x12340", buf);
	qpu_disasm(BR(.reg = 1, .ra = 2), 0x100, QPU_DISASM_TARGET, buf,
		   sizeof(buf));
	T_EQ_STR("bra -, ra2", buf);
}

/* Encodings the syntax cannot carry, each printed raw. */
T_TEST(raw)
{
	for (unsigned int op = 9; op < 12; op++)
		RAW(ADD(.oa = op));
	for (unsigned int op = 25; op < 30; op++)
		RAW(ADD(.oa = op));
	RAW(ALU(.ca = 1));			/* nop with a condition */
	RAW(ALU(.aa = R1));			/* nop with an input */
	RAW(ALU(.cm = 1));
	RAW(ALU(.mb = R2));
	RAW(ALU(.wa = 32, .ca = 1, .sf = 1));	/* nop with dest and flags */
	RAW(ALU(.wm = 32, .cm = 1, .sf = 1, .ca = 1));
	RAW(ALU(.sf = 1));			/* flags from no ALU */
	RAW(ADD(.oa = 23, .aa = R1, .ab = R2));	/* unary, second input set */
	/* vc4asm folds these into a load immediate of 0. */
	RAW(ADD(.oa = 13, .ab = R1));
	RAW(ADD(.oa = 22, .aa = MA, .ab = MA, .ra = 3));
	RAW(MUL(.om = 7, .mb = R1));
	GOLDEN(ADD(.oa = 31, .ab = R1), "av8subs r0, r1, r1");
	GOLDEN(ADD(.oa = 20, .ab = R1), "and r0, r1, r1");
	RAW(0xffffffffffffffffull);		/* branch, reserved bits */
	RAW(0xe400000000000000ull);		/* ldi mode 2 */
}

T_TEST(buffer)
{
	char buf[16];
	int len;

	memset(buf, 'x', sizeof(buf));
	len = qpu_disasm(ADD(), 0, 0, buf, 8);
	T_EQ_U64(strlen("add r0, r1, r2"), len);
	T_EQ_STR("add r0,", buf);
	T_CHECK(buf[8] == 'x');
	len = qpu_disasm(ADD(), 0, 0, buf, 1);
	T_EQ_STR("", buf);
	T_EQ_U64(14, len);
	buf[0] = 'x';
	len = qpu_disasm(ADD(), 0, 0, buf, 0);
	T_CHECK(buf[0] == 'x');
	T_EQ_U64(14, len);
	len = qpu_disasm(ALU(.ws = 1), 0, 0, buf, 11);
	T_EQ_STR(".long 0x10", buf);
	T_EQ_U64(24, len);
}

/* A word whose fields favour forms that print as text rather than raw. */
static uint64_t sample_word(uint64_t *rnd)
{
	uint64_t r = t_rand(rnd), w = t_rand(rnd);
	unsigned int pick = r & 15;

	r >>= 4;
	if (pick == 0)
		return w;			/* anything */
	if (pick < 3) {
		w = (w & ~B(7, 57)) | B((r & 1) ? 4 : (r >> 1) & 3, 57);
		return (w & ~B(15, 60)) | B(14, 60);	/* ldi and semaphores */
	}
	if (pick < 5) {
		w &= ~(B(15, 56) | B(15, 52));
		w |= B(r % 12 + (r & 16 ? 4 : 0), 52);
		if (!(w & B(1, 50)))
			w &= ~B(31, 45);
		return w | B(15, 60);		/* branches */
	}
	/* ALU: random fields, some set to common values. */
	w = (w & ~B(15, 60)) | B(r % 14, 60);
	r >>= 4;
	if (r & 1)
		w &= ~B(7, 57);			/* no unpack */
	if (r & 2)
		w &= ~(B(1, 56) | B(15, 52));	/* no pack */
	if (r & 4)
		w = (w & ~B(63, 18)) | B(39, 18);
	if (r & 8)
		w = (w & ~B(63, 12)) | B(39, 12);
	if (r & 16)
		w = (w & ~B(31, 24)) | B(r & 32 ? 21 : 12, 24);
	/* Idle ALUs read nothing and mostly write nothing. */
	if (!(w & B(31, 24))) {
		w &= ~B(63, 6);
		if (r & 64)
			w = (w & ~(B(63, 38) | B(7, 49))) | B(39, 38);
	}
	if (!(w & B(7, 29))) {
		w &= ~B(63, 0);
		if (r & 128)
			w = (w & ~(B(63, 32) | B(7, 46))) | B(39, 32);
	}
	return w;
}

struct entry {
	uint64_t hash;
	uint64_t word;
};

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return x->word < y->word ? -1 : x->word > y->word;
}

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return h;
}

T_TEST(unambiguous)
{
	struct entry *e = calloc(SAMPLE_WORDS, sizeof(*e));
	char a[QPU_DISASM_BUF_SIZE], b[QPU_DISASM_BUF_SIZE];
	unsigned long text = 0, clashes = 0;
	uint64_t rnd = RANDOM_SEED;
	int len, max_len = 0;

	if (!e) {
		fprintf(stderr, "out of memory\n");
		exit(T_EXIT_FAIL);
	}
	for (size_t i = 0; i < SAMPLE_WORDS; i++) {
		e[i].word = sample_word(&rnd);
		len = qpu_disasm(e[i].word, 0, 0, a, sizeof(a));
		dump(e[i].word, a);
		if (len > max_len)
			max_len = len;
		T_EQ_U64(len, strlen(a));
		text += strncmp(a, ".long", 5) != 0;
		e[i].hash = fnv1a(a);
	}
	qsort(e, SAMPLE_WORDS, sizeof(*e), entry_cmp);
	for (size_t i = 1; i < SAMPLE_WORDS; i++) {
		if (e[i].hash != e[i - 1].hash || e[i].word == e[i - 1].word)
			continue;
		qpu_disasm(e[i - 1].word, 0, 0, a, sizeof(a));
		qpu_disasm(e[i].word, 0, 0, b, sizeof(b));
		if (strcmp(a, b))
			continue;
		if (++clashes <= 10)
			fprintf(stderr, "0x%016" PRIx64 " and 0x%016" PRIx64
				" both print \"%s\"\n", e[i - 1].word,
				e[i].word, a);
	}
	t_checks++;
	if (clashes) {
		fprintf(stderr, "%lu texts stand for more than one word (seed 0x%llx)\n",
			clashes, (unsigned long long)RANDOM_SEED);
		t_failures++;
	}
	/*
	 * Neighbours: flipping one bit of a word (or two, for a smaller set)
	 * must change its text, so no field is invisible.
	 */
	rnd = RANDOM_SEED + 1;
	clashes = 0;
	for (size_t i = 0; i < FLIP_WORDS; i++) {
		uint64_t w = sample_word(&rnd);
		unsigned int pairs = i < FLIP2_WORDS ? 64 : 1;

		qpu_disasm(w, 0, 0, a, sizeof(a));
		for (unsigned int x = 0; x < 64; x++) {
			for (unsigned int y = x; y < x + pairs && y < 64; y++) {
				uint64_t v = w ^ B(1, x) ^ (y != x ? B(1, y) : 0);

				qpu_disasm(v, 0, 0, b, sizeof(b));
				if (strcmp(a, b))
					continue;
				if (++clashes <= 10)
					fprintf(stderr, "0x%016" PRIx64 " and 0x%016"
						PRIx64 " both print \"%s\"\n",
						w, v, a);
			}
		}
	}
	t_checks++;
	if (clashes) {
		fprintf(stderr, "%lu bit flips left the text unchanged\n",
			clashes);
		t_failures++;
	}
	/* The sample must mostly print as text, or it proves little. */
	T_CHECK(text > SAMPLE_WORDS / 4);
	T_CHECK(max_len < QPU_DISASM_BUF_SIZE);
	free(e);
}

static void open_dump(const char *prefix)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s.bin", prefix);
	dump_bin = fopen(path, "wb");
	snprintf(path, sizeof(path), "%s.qasm", prefix);
	dump_qasm = fopen(path, "w");
	if (!dump_bin || !dump_qasm) {
		perror("test-disasm: --dump");
		exit(T_EXIT_FAIL);
	}
}

static void close_dump(void)
{
	if (dump_bin && (fclose(dump_bin) || fclose(dump_qasm))) {
		perror("test-disasm: --dump");
		exit(T_EXIT_FAIL);
	}
}

static const char *dump_prefix;

static const struct t_option options[] = {
	{ "dump", &dump_prefix, "PREFIX" },
	{ NULL, NULL, NULL },
};

static int setup(void)
{
	if (dump_prefix)
		open_dump(dump_prefix);
	return T_EXIT_PASS;
}

T_MAIN(.setup = setup, .teardown = close_dump, .options = options)
