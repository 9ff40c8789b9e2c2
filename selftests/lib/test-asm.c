// SPDX-License-Identifier: MIT
/*
 * test-asm: the text assembler. Round trip on a seeded sample of words
 * (disassemble, assemble, compare), programs with labels and forward
 * branches, expressions, each directive, .include with a search path, and
 * each error with its exact file:line:col and message, limits included.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "qpu_asm.h"
#include "qpu_disasm.h"
#include "testlib.h"

#define RANDOM_SEED	0x0a55e3b1e5eed001ull
#define ROUND_TRIP_WORDS 300000

#define FIELD(w, sh, b)	((unsigned int)(((w) >> (sh)) & ((1ull << (b)) - 1)))
#define SET_FIELD(w, sh, b, v) \
	((w) = ((w) & ~(((1ull << (b)) - 1) << (sh))) | ((uint64_t)(v) << (sh)))

/*
 * Make a random ALU word look like real code more often: idle ALUs read
 * nothing and keep the conditions the text implies, so fewer words fall
 * back to ".long" and more of the syntax is exercised.
 */
static uint64_t tidy_alu(uint64_t w, uint64_t r)
{
	unsigned int sig = FIELD(w, 60, 4), oa = FIELD(w, 24, 5), om = FIELD(w, 29, 3);

	if (sig >= 14)
		return w;
	if ((oa >= 9 && oa <= 11) || (oa >= 25 && oa <= 29)) {
		oa = 12 + (r & 7);
		SET_FIELD(w, 24, 5, oa);
	}
	if (r & 0x100) {
		oa = 0;
		SET_FIELD(w, 24, 5, 0);
	}
	if (r & 0x200) {
		om = 0;
		SET_FIELD(w, 29, 3, 0);
	}
	if (!oa) {
		SET_FIELD(w, 9, 3, 0);
		SET_FIELD(w, 6, 3, 0);
		if (FIELD(w, 38, 6) == 39)
			SET_FIELD(w, 49, 3, FIELD(w, 45, 1) && om ? 1 : 0);
	}
	if (!om) {
		SET_FIELD(w, 3, 3, 0);
		SET_FIELD(w, 0, 3, 0);
		if (FIELD(w, 32, 6) == 39)
			SET_FIELD(w, 46, 3, 0);
	}
	if (!oa && !om)
		SET_FIELD(w, 45, 1, 0);
	if (oa == 7 || oa == 8 || oa == 23 || oa == 24)
		SET_FIELD(w, 6, 3, FIELD(w, 9, 3));
	if (r & 0x400)
		SET_FIELD(w, 57, 3, 0);
	if (r & 0x800) {
		SET_FIELD(w, 52, 4, 0);
		SET_FIELD(w, 56, 1, 0);
	}
	if (r & 0x1000)
		SET_FIELD(w, 18, 6, (r >> 20) & 31);
	if (r & 0x2000)
		SET_FIELD(w, 12, 6, (r >> 26) & 31);
	if (r & 0x4000)
		SET_FIELD(w, 38, 6, 32 + ((r >> 32) & 7));
	if (r & 0x8000)
		SET_FIELD(w, 32, 6, 32 + ((r >> 36) & 7));
	return w;
}

static void round_trip_word(uint64_t w, unsigned long *text_forms)
{
	char text[QPU_DISASM_BUF_SIZE], msg[256], what[512];
	uint64_t got = 0;
	int err;

	qpu_disasm(w, 0, 0, text, sizeof(text));
	if (strncmp(text, ".long", 5))
		(*text_forms)++;
	err = qpu_asm_line(text, &got, msg, sizeof(msg));
	t_checks++;
	if (err || got != w) {
		snprintf(what, sizeof(what), "round trip of 0x%016" PRIx64 " \"%s\": "
			 "got 0x%016" PRIx64 " %s", w, text, got, msg);
		t_report(__FILE__, __LINE__, what);
	}
}

T_TEST(round_trip)
{
	uint64_t state = RANDOM_SEED;
	unsigned long i, text_forms = 0;

	for (i = 0; i < ROUND_TRIP_WORDS; i++) {
		uint64_t w = t_rand(&state), r = t_rand(&state);

		if (r & 1)
			SET_FIELD(w, 52, 4, 0);		/* no pack */
		if (r & 2)
			SET_FIELD(w, 57, 3, 0);		/* no unpack */
		if (r & 4)
			SET_FIELD(w, 56, 1, 0);		/* pm = 0 */
		if (r & 8)
			SET_FIELD(w, 46, 6, 8);		/* add always, mul never */
		if (r & 16)
			SET_FIELD(w, 45, 1, 0);		/* no setf */
		if (r & 32)
			SET_FIELD(w, 60, 4, t_rand(&state) % 13);
		if (r & 64)
			SET_FIELD(w, 32, 6, 39);
		if ((r >> 8) & 3)
			w = tidy_alu(w, r >> 10);
		round_trip_word(w, &text_forms);
	}
	/* most of the sample must be real text, not ".long" */
	T_CHECK(text_forms > ROUND_TRIP_WORDS / 3);
	printf("round trip: %lu of %d sampled words as text, the rest .long\n",
	       text_forms, ROUND_TRIP_WORDS);
	/* fixed words: every signal, small immediates, rotations */
	round_trip_word(0x100009e7009e7000ull, &text_forms);	/* nop */
	round_trip_word(0x300009e7009e7000ull, &text_forms);	/* thrend */
	round_trip_word(0xd0020827159e7000ull | (5 << 12), &text_forms);
}

/* Assemble @src (named "t.qasm"); returns the word count or -1. */
static long assemble(const char *src, uint64_t *words, size_t max, char *err,
		     size_t err_size)
{
	struct qpu_asm *as = qpu_asm_new();
	const struct qpu_asm_diag *d;
	const uint64_t *w;
	size_t n;
	long ret = -1;

	err[0] = '\0';
	if (!as)
		return -1;
	if (!qpu_asm_string(as, "t.qasm", src)) {
		n = qpu_asm_words(as, &w);
		if (n <= max) {
			if (n)
				memcpy(words, w, n * sizeof(*w));
			ret = (long)n;
		}
	} else if (qpu_asm_diags(as, &d)) {
		snprintf(err, err_size, "%s:%u:%u: %s", d->file, d->line, d->col, d->msg);
	}
	qpu_asm_free(as);
	return ret;
}

/* The program @src must give the same words as the plain lines @expected. */
#define T_SAME(src, expected) check_same(__LINE__, src, expected)
static void check_same(int line, const char *src, const char *expected)
{
	uint64_t a[64], b[64];
	char err_a[512], err_b[512], what[1400];
	long na = assemble(src, a, 64, err_a, sizeof(err_a));
	long nb = assemble(expected, b, 64, err_b, sizeof(err_b));

	t_checks++;
	if (na < 0 || nb < 0 || na != nb || memcmp(a, b, na * sizeof(*a))) {
		snprintf(what, sizeof(what), "programs differ (%ld vs %ld words) [%s] [%s]",
			 na, nb, err_a, err_b);
		t_report(__FILE__, line, what);
	}
}

/* Assembling @src must fail with exactly @expected ("t.qasm:L:C: msg"). */
#define T_ERROR(src, expected) check_error(__LINE__, src, expected)
static void check_error(int line, const char *src, const char *expected)
{
	uint64_t w[64];
	char err[512], what[1200];
	long n = assemble(src, w, 64, err, sizeof(err));

	t_checks++;
	if (n >= 0 || strcmp(err, expected)) {
		snprintf(what, sizeof(what), "expected error \"%s\", got %ld words, \"%s\"",
			 expected, n, err);
		t_report(__FILE__, line, what);
	}
}

static uint64_t word_of(const char *line)
{
	uint64_t w = 0;
	char msg[256];

	if (qpu_asm_line(line, &w, msg, sizeof(msg)))
		fprintf(stderr, "cannot assemble \"%s\": %s\n", line, msg);
	return w;
}

T_TEST(fixed_words)
{
	T_EQ_U64(0x100009e7009e7000ull, word_of("nop"));
	T_EQ_U64(0x300009e7009e7000ull, word_of("nop; thrend"));
	T_EQ_U64(0xe0020827000001f4ull, word_of("ldi r0, 500"));
	T_EQ_U64(0xe00208273f800000ull, word_of("ldi r0, 1.0"));
	T_EQ_U64(0x123456789abcdef0ull, word_of(".long 0x123456789abcdef0"));
	/* comments */
	T_EQ_U64(0x100009e7009e7000ull, word_of("nop # a comment"));
	T_EQ_U64(0x100009e7009e7000ull, word_of("nop // a comment"));
	T_EQ_U64(0x100009e7009e7000ull, word_of("nop /* inline */"));
}

T_TEST(labels)
{
	/* brr targets are relative to the fourth instruction after the branch */
	T_SAME("start:\n brr -, end\n nop\n nop\n nop\nend:\n nop\n",
	       "brr -, +0\nnop\nnop\nnop\nnop\n");
	T_SAME("loop: nop\n brr.anynz -, loop\n",
	       "nop\nbrr.anynz -, -40\n");
	T_SAME(":back\n nop\n brr -, r:back\n", "nop\nbrr -, -40\n");
	T_SAME("bra -, tgt\ntgt: nop\n", "bra -, 0x8\nnop\n");
	T_SAME("ldi r0, end - start\nstart: nop\nnop\nend:\n",
	       "ldi r0, 16\nnop\nnop\n");
}

T_TEST(expressions)
{
	static const struct { const char *expr; const char *value; } cases[] = {
		{ "1 + 2 * 3", "7" }, { "(1 + 2) * 3", "9" }, { "17 / 5", "3" },
		{ "17 % 5", "2" }, { "-17 / 5", "-3" }, { "1 << 4 | 1", "17" },
		{ "0xff & ~0xf", "0xf0" }, { "0xf0 ^ 0xff", "0x0f" },
		{ "256 >> 4", "16" }, { "!0 + !5", "1" }, { "3 < 4", "1" },
		{ "3 >= 4", "0" }, { "2 == 2 && 3 != 3", "0" }, { "0 || 7", "1" },
		{ "0b101", "5" }, { "-1", "0xffffffff" }, { "1.5 * 2", "3.0" },
		{ "0.5 + 0.25", "0.75" }, { "1e2", "100.0" }, { "7 - 2 - 1", "4" },
	};
	char src[256], expected[256];
	size_t i;

	for (i = 0; i < T_ARRAY_SIZE(cases); i++) {
		snprintf(src, sizeof(src), "ldi r0, %s\n", cases[i].expr);
		snprintf(expected, sizeof(expected), "ldi r0, %s\n", cases[i].value);
		T_SAME(src, expected);
	}
	T_SAME(".set N, 10\n.equ M, N * 2\nldi r0, M + N\n", "ldi r0, 30\n");
	T_SAME(".set F, 2.0\nfadd r0, r1, F\n", "fadd r0, r1, 2.0\n");
	T_SAME(".set K, 3\nadd r0, r1, K - 5\n", "add r0, r1, -2\n");
}

T_TEST(register_aliases)
{
	T_SAME(".set r_x, ra5\n.set r_y, rb7\nadd r_x, r_y, r1\nmov r0, r_x.16a\n",
	       "add ra5, rb7, r1\nmov r0, ra5.16a\n");
	T_SAME(".set io, vpm\nmov io, r0\n", "mov vpm, r0\n");
	T_SAME(".set link, ra3\nbrr link, 8\n", "brr ra3, 8\n");
}

T_TEST(directives)
{
	T_SAME(".rep 3\nnop\n.endr\n", "nop\nnop\nnop\n");
	T_SAME(".rep 2\n.rep 2\nthrsw\n.endr\nnop\n.endr\n",
	       "thrsw\nthrsw\nnop\nthrsw\nthrsw\nnop\n");
	T_SAME(".rep 0\nnop\n.endr\nthrend\n", "thrend\n");
	T_SAME(".set A, 2\n.if A == 1\nldi r0, 1\n.elif A == 2\nldi r0, 2\n"
	       ".else\nldi r0, 3\n.endif\n", "ldi r0, 2\n");
	T_SAME(".if 0\n.if 1\nldi r0, 1\n.endif\n.else\nldi r0, 4\n.endif\n",
	       "ldi r0, 4\n");
	T_SAME(".set X, 1\n.ifdef X\nnop\n.endif\n.ifndef X\nthrend\n.endif\n"
	       ".ifdef Y\nthrsw\n.endif\n", "nop\n");
	T_SAME(".if 0\n.bogus stuff that is skipped\n.endif\nnop\n", "nop\n");
	T_SAME(".macro addk, d, k\nadd d, d, k\n.endm\naddk r0, 1\naddk ra3, -4\n",
	       "add r0, r0, 1\nadd ra3, ra3, -4\n");
	T_SAME(".macro twice x\nx\nx\n.endm\ntwice nop\n", "nop\nnop\n");
	T_SAME(".macro outer\ninner 5\n.endm\n.macro inner v\nldi r1, v\n.endm\nouter\n",
	       "ldi r1, 5\n");
	T_SAME(".macro lbl\n.rep 2\nnop\n.endr\n.endm\nlbl\n", "nop\nnop\n");
}

/*
 * The vertical 8/16-bit generic setups as vc4asm's vc4.qinc builds them
 * (and the guide reads them: the low 1 or 2 bits select the half or byte):
 * v16p(y, x, h) = 0x100 | (y | x) << 1 | h, v8l(y, x, b) = 0x400 |
 * (y | x) << 2 | b; the emulator agrees (test-emu-vpm).
 */
T_TEST(vertical_sub_word_setups)
{
	T_EQ_U64(0x14b, word_of("ldi r0, v16p(32, 5, 1)") & 0xffffffffu);
	T_EQ_U64(0x54f, word_of("ldi r0, v16l(32, 7, 1)") & 0xffffffffu);
	T_EQ_U64(0x0d7, word_of("ldi r0, v8p(48, 5, 3)") & 0xffffffffu);
	T_EQ_U64(0x44e, word_of("ldi r0, v8l(16, 3, 2)") & 0xffffffffu);
}

/* vc4asm forms GPU_FFT's sources use, with the words its hex files ship. */
T_TEST(vc4asm_forms)
{
	T_EQ_U64(0xe002082700101200ull, word_of("mov r0, vpm_setup(1, 1, v32( 0,0))"));
	T_EQ_U64(0xe0021c6700001200ull, word_of("mov vw_setup, vpm_setup(16, 1, v32(0,0))"));
	T_EQ_U64(0xe00208a700000002ull,
		 word_of("mov r2, vpm_setup(1, 1, v32( 0,2)) - vpm_setup(1, 1, v32(0,0))"));
	T_EQ_U64(0xe002072788104000ull, word_of("mov ra28, vdw_setup_0(16, 16, dma_h32( 0,0))"));
	T_EQ_U64(0xe0021c6788104000ull, word_of("mov vw_setup, vdw_setup_0(16, 16, dma_h32(0,0))"));
	T_EQ_U64(0xe002172788104800ull, word_of("mov rb28, vdw_setup_0(16, 16, dma_h32(16,0))"));
	T_EQ_U64(0xe0021c67a0104000ull, word_of("mov vw_setup, vdw_setup_0(64, 16, dma_h32(0,0))"));
	T_EQ_U64(0xe0020827c0000000ull, word_of("mov r0, vdw_setup_1(0)"));
	T_EQ_U64(0xe0021c67c00000c0ull, word_of("mov vw_setup, vdw_setup_1(0) + 256-16*4"));
	/* a mov of any immediate is a load immediate; lists are per element */
	T_EQ_U64(0xe0020827000001f4ull, word_of("mov r0, 500"));
	T_EQ_U64(0xe00208a700000002ull, word_of("mov r2, 2"));
	T_EQ_U64(0xe20229e7000000ccull,
		 word_of("mov.setf -, [0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0]"));
	T_EQ_U64(word_of("ldipeu r0, [3,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]"),
		 word_of("mov r0, [3,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]"));
	/* semaphores as mov sources, and vc4asm's other register names */
	T_EQ_U64(0xe80009e700000002ull, word_of("mov -, srel(2)"));
	T_EQ_U64(word_of("sacq -, 9"), word_of("mov -, sacq(4+5)"));
	T_EQ_U64(word_of("ldi irq, 1"), word_of("mov interrupt, 1"));
	T_EQ_U64(word_of("mov ra12, r0"), word_of("mov ra10+2, r0"));
	/* VDR words: layout from the Reference Guide, not checked against vc4asm */
	T_EQ_U64(word_of("ldi r0, 0x80110000 | 1 << 12 | 2 << 4"),
		 word_of("mov r0, vdr_setup_0(0, 1, 1, vdr_h32(1, 2, 0))"));
	T_EQ_U64(word_of("ldi r0, 0x90000040"), word_of("mov r0, vdr_setup_1(64)"));
	/*
	 * Both DMA strides keep 16 bits (qpu_vpm.h): PyVideoCore's sgemm, run
	 * on a Pi, writes 12288 into the VDR pitch and 12224 into the VDW
	 * stride; vc4asm's vdw_setup_1 takes 16 bits "rather than 13".
	 */
	T_EQ_U64(word_of("ldi r0, 0x90003000"), word_of("mov r0, vdr_setup_1(12288)"));
	T_EQ_U64(word_of("ldi r0, 0x9000ffff"), word_of("mov r0, vdr_setup_1(0xffff)"));
	T_EQ_U64(word_of("ldi r0, 0xc0002fc0"), word_of("mov r0, vdw_setup_1(12224)"));
	T_EQ_U64(word_of("ldi r0, 0xc000ffff"), word_of("mov r0, vdw_setup_1(0xffff)"));

	T_SAME(".rep i, 3\nmov ra0+i, i + 16\n.endr\n",
	       "ldi ra0, 16\nldi ra1, 17\nldi ra2, 18\n");
	T_SAME(":1\nnop\nbrr -, r:1b\nbrr -, r:1f\nnop\n:1\nnop\n",
	       "nop\nbrr -, -40\nbrr -, -16\nnop\nnop\n");
	T_SAME(".macro jump, target\nbrr -, target\n.endm\njump r:2f\n:2\nnop\n",
	       "brr -, -24\nnop\n");
	T_SAME(".macro m\nnop\n.endm\n.macro m\nthrend\n.endm\nm\n", "thrend\n");
	T_SAME(".set X, 1\n.ifset X\nnop\n.endif\n.ifnset X\nthrsw\n.endif\n", "nop\n");
	T_ERROR("brr -, r:3f\n", "t.qasm:1:8: no following definition of local label 3");
	T_ERROR("mov r0, vpm_setup(1, 2)\n", "t.qasm:1:23: vpm_setup() takes 3 arguments, not 2");
	T_ERROR("mov ra30+5, r0\n", "t.qasm:1:9: register number 35 out of range");
}

/* "file:line:col" of @loc, then " < site" for each macro call it is in. */
static void loc_text(const struct qpu_asm_loc *loc, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (; loc && len < size; loc = loc->expanded_from)
		len += snprintf(buf + len, size - len, "%s%s:%u:%u%s%s", len ? " < " : "",
				loc->file, loc->line, loc->col, loc->macro ? " " : "",
				loc->macro ? loc->macro : "");
}

/* Each word of @src must come from the location listed in @expected. */
#define T_LOCS(src, ...) check_locs(__LINE__, src, (const char *const[]){ __VA_ARGS__, NULL })
static void check_locs(int line, const char *src, const char *const *expected)
{
	struct qpu_asm *as = qpu_asm_new();
	const struct qpu_asm_loc *locs;
	const uint64_t *words;
	char got[256], what[600];
	size_t i, n, nexp = 0;
	int err;

	while (expected[nexp])
		nexp++;
	err = qpu_asm_string(as, "t.qasm", src);
	n = qpu_asm_locs(as, &locs);
	t_checks++;
	if (err || n != nexp || qpu_asm_words(as, &words) != n) {
		snprintf(what, sizeof(what), "locs: error %d, %zu locs, expected %zu",
			 err, n, nexp);
		t_report(__FILE__, line, what);
		n = 0;
	}
	for (i = 0; i < n; i++) {
		loc_text(&locs[i], got, sizeof(got));
		t_checks++;
		if (strcmp(got, expected[i])) {
			snprintf(what, sizeof(what), "loc of word %zu: expected \"%s\", got \"%s\"",
				 i, expected[i], got);
			t_report(__FILE__, line, what);
		}
	}
	qpu_asm_free(as);
}

T_TEST(locs)
{
	T_LOCS("nop\n  ldi r0, 1\nx: y: add r0, r0, 1 ; mov r1, r0\n\t.long 5\n",
	       "t.qasm:1:1", "t.qasm:2:3", "t.qasm:3:7", "t.qasm:4:2");
	/* .rep repeats the body's location; labels and directives give none */
	T_LOCS(".set A, 1\n.rep 2\n nop\n.endr\n:1\n.if A\n thrend\n.endif\n",
	       "t.qasm:3:2", "t.qasm:3:2", "t.qasm:7:2");
	/* a macro's words: the body line, then the call, nested calls outward */
	T_LOCS(".macro inner v\n  ldi r1, v\n.endm\n"
	       ".macro outer\n nop\n inner 3\n.endm\n"
	       "outer\n   inner 4\n.rep 2\nouter\n.endr\nnop\n",
	       "t.qasm:5:2 < t.qasm:8:1 outer",
	       "t.qasm:2:3 < t.qasm:6:2 inner < t.qasm:8:1 outer",
	       "t.qasm:2:3 < t.qasm:9:4 inner",
	       "t.qasm:5:2 < t.qasm:11:1 outer",
	       "t.qasm:2:3 < t.qasm:6:2 inner < t.qasm:11:1 outer",
	       "t.qasm:5:2 < t.qasm:11:1 outer",
	       "t.qasm:2:3 < t.qasm:6:2 inner < t.qasm:11:1 outer",
	       "t.qasm:13:1");
	/* data words: the line that opened them; .back keeps each word's line */
	T_LOCS(" .int 1, 2, 3\n.byte 4\nnop\nthrsw\n.back 1\n  thrend\n.endb\n",
	       "t.qasm:1:2", "t.qasm:1:2", "t.qasm:3:1", "t.qasm:6:3", "t.qasm:4:1");
	/* a function's body does not change the word's location */
	T_LOCS(".set f(x) x + 1\n\tldi r0, f(2)\n", "t.qasm:2:2");
	/* a .rep inside a macro keeps the call */
	T_LOCS(".macro m\n.rep 2\nthrsw\n.endr\n.endm\n m\n",
	       "t.qasm:3:1 < t.qasm:6:2 m", "t.qasm:3:1 < t.qasm:6:2 m");
}

/* All diagnostics of assembling @src, one per line, notes included. */
static int diag_text(const char *src, char *buf, size_t size)
{
	struct qpu_asm *as = qpu_asm_new();
	const struct qpu_asm_diag *d;
	const struct qpu_asm_loc *loc;
	size_t i, n, len = 0;
	int err;

	buf[0] = '\0';
	err = qpu_asm_string(as, "t.qasm", src);
	n = qpu_asm_diags(as, &d);
	for (i = 0; i < n && len < size; i++) {
		len += snprintf(buf + len, size - len, "%s%s:%u:%u: %s: %s", len ? "\n" : "",
				d[i].file, d[i].line, d[i].col,
				d[i].warning ? "warning" : "error", d[i].msg);
		for (loc = d[i].expanded_from; loc && len < size; loc = loc->expanded_from)
			len += snprintf(buf + len, size - len,
					"\n%s:%u:%u: note: in expansion of macro '%s'",
					loc->file, loc->line, loc->col, loc->macro);
	}
	qpu_asm_free(as);
	return err;
}

/* Assembling @src must give exactly the diagnostics @expected, and @err. */
#define T_DIAGS(src, err, expected) check_diags(__LINE__, src, err, expected)
static void check_diags(int line, const char *src, int err, const char *expected)
{
	char got[4096], what[8800];
	int got_err = diag_text(src, got, sizeof(got));

	t_checks++;
	if (got_err != err || strcmp(got, expected)) {
		snprintf(what, sizeof(what), "diagnostics (error %d, expected %d):\n%s\n"
			 "expected:\n%s", got_err, err, got, expected);
		t_report(__FILE__, line, what);
	}
}

/* Many errors per run, each once, with the macro calls they come from. */
T_TEST(many_errors)
{
	char src[2048];
	size_t len = 0;
	int i;

	T_DIAGS("nop\nfoo\nldi r0, (1\nthrend\nbar r0\n", -EINVAL,
		"t.qasm:2:1: error: unknown instruction 'foo'\n"
		"t.qasm:3:11: error: expected ')'\n"
		"t.qasm:5:1: error: unknown instruction 'bar'");
	/* the second pass's errors come together too */
	T_DIAGS("ldi r0, a\nldi r1, b\nbrr -, c\n", -EINVAL,
		"t.qasm:1:9: error: undefined symbol 'a'\n"
		"t.qasm:2:9: error: undefined symbol 'b'\n"
		"t.qasm:3:8: error: undefined symbol 'c'");
	/* and with the first pass's: every error of the file in one run */
	T_DIAGS("foo\nldi r0, a\nbar r1\nbrr -, c\n", -EINVAL,
		"t.qasm:1:1: error: unknown instruction 'foo'\n"
		"t.qasm:3:1: error: unknown instruction 'bar'\n"
		"t.qasm:2:9: error: undefined symbol 'a'\n"
		"t.qasm:4:8: error: undefined symbol 'c'");
	/* but not after a directive failed: what it defined is missing */
	T_DIAGS(".set x, (1\nldi r0, x\nfoo\n", -EINVAL,
		"t.qasm:1:11: error: expected ')'\n"
		"t.qasm:3:1: error: unknown instruction 'foo'");
	/* a loop's error is reported once */
	T_DIAGS(".rep 3\nldi r0, 1 +\n.endr\n", -EINVAL,
		"t.qasm:2:12: error: expected an expression");
	/* inside macros: the body line, then each call outward */
	T_DIAGS(".macro inner v\n  add r0, r0, v\n.endm\n"
		".macro outer\n  inner 100\n.endm\nouter\n  inner 200\n", -EINVAL,
		"t.qasm:2:15: error: value cannot be a small immediate\n"
		"t.qasm:5:3: note: in expansion of macro 'inner'\n"
		"t.qasm:7:1: note: in expansion of macro 'outer'\n"
		"t.qasm:2:15: error: value cannot be a small immediate\n"
		"t.qasm:8:3: note: in expansion of macro 'inner'");
	/* columns are those of the macro body, whatever the arguments' length */
	T_DIAGS(".set LONGNAME, r1\n.macro m, a, b\n  add r0, a, b\n.endm\nm LONGNAME, 100\n",
		-EINVAL, "t.qasm:3:14: error: value cannot be a small immediate\n"
		"t.qasm:5:1: note: in expansion of macro 'm'");
	T_LOCS(".macro m, a\n a; fmul r0, r1, r2\n.endm\nm ldtmu0\n",
	       "t.qasm:2:2 < t.qasm:4:1 m");
	/* a bad .if condition takes no branch and leaves no stray .endif */
	T_DIAGS(".if 1 +\nnop\n.else\nthrend\n.endif\nfoo\n", -EINVAL,
		"t.qasm:1:8: error: expected an expression\n"
		"t.qasm:6:1: error: unknown instruction 'foo'");
	/* a block whose first line fails is skipped to its end */
	T_DIAGS(".macro m, 1\nnop\n.endm\n.rep x +\nfoo\n.endr\nnop\n", -EINVAL,
		"t.qasm:1:11: error: expected a parameter name\n"
		"t.qasm:4:9: error: expected an expression");
	T_DIAGS(".foreach v, 1, 2 +\nbar\n.endfor\n", -EINVAL,
		"t.qasm:1:19: error: expected an expression");
	/* warnings alone do not fail the run */
	T_DIAGS(".byte 1\nnop\n", 0,
		"t.qasm:2:1: warning: instruction after 8 bits of data: "
		"the rest of the word is padded with zeros");
	/* at most QPU_ASM_MAX_ERRORS, then one line saying so */
	for (i = 0; i < 25; i++)
		len += snprintf(src + len, sizeof(src) - len, "nop\n  bad%d\n", i);
	{
		char got[4096];
		const char *last;

		T_CHECK(diag_text(src, got, sizeof(got)) == -EINVAL);
		last = strrchr(got, '\n');
		T_EQ_STR("\nt.qasm:40:3: error: too many errors, stopping", last ? last : "");
		T_CHECK(strstr(got, "t.qasm:40:3: error: unknown instruction 'bad19'\n") != NULL);
		T_CHECK(strstr(got, "bad20") == NULL);
	}
}

/* .const, .lset, .unset and friends; loop counters end with their loop. */
T_TEST(constants)
{
	T_SAME(".const N, 4\n.define M, N + 1\nldi r0, N * M\n", "ldi r0, 20\n");
	T_SAME(".set X, 1\n.unset X\n.ifset X\nnop\n.else\nthrend\n.endif\n", "thrend\n");
	T_SAME(".set X, 1\n.undef X\n.set X, 2\nldi r0, X\n", "ldi r0, 2\n");
	/* .lset lives in its macro call; the global one shows again after it */
	T_SAME(".set V, 1\n.macro m\n.lset V, 7\nldi r0, V\n.endm\nm\nldi r1, V\n",
	       "ldi r0, 7\nldi r1, 1\n");
	T_SAME(".macro m\n.lset W, 3\n.lunset W\n.ifset W\nnop\n.endif\n.endm\nm\n"
	       ".ifset W\nthrsw\n.endif\nthrend\n", "thrend\n");
	T_SAME(".lconst C, ra3\nmov C, 1\n", "ldi ra3, 1\n");
	/* a loop counter shadows a constant of the same name for the loop only */
	T_SAME(".set i, 9\n.rep i, 2\nldi r0, i\n.endr\nldi r1, i\n",
	       "ldi r0, 0\nldi r0, 1\nldi r1, 9\n");
	T_ERROR(".const N, 1\n.const N, 2\n",
		"t.qasm:2:8: constant 'N' redefined (defined at t.qasm:1)");
	T_ERROR(".const N, 1\n.set N, 2\n",
		"t.qasm:2:6: constant 'N' redefined (defined at t.qasm:1)");
	T_ERROR("x: nop\n.set x, 1\n", "t.qasm:2:6: 'x' is already a label");
	T_DIAGS(".unset Q\n.lunset Q\nnop\n", 0,
		"t.qasm:1:8: warning: 'Q' is not defined globally\n"
		"t.qasm:2:9: warning: 'Q' is not defined in this scope");
}

/* Functions: ".set f(x) expr" and .func ... .endf, evaluated at each call. */
T_TEST(functions)
{
	T_SAME(".set twice(x) x * 2\nldi r0, twice(3) + twice(twice(1))\n", "ldi r0, 10\n");
	T_SAME(".set reg(n) ra0 + n\nmov reg(5), r1\n", "mov ra5, r1\n");
	T_SAME(".func clamp(v, lo, hi)\n  .if v < lo\n    lo\n  .elseif v > hi\n    hi\n"
	       "  .else\n    v\n  .endif\n.endf\n"
	       "ldi r0, clamp(-5, 0, 10)\nldi r1, clamp(50, 0, 10)\nldi r2, clamp(7, 0, 10)\n",
	       "ldi r0, 0\nldi r1, 10\nldi r2, 7\n");
	/* recursion, and .lset local to one call */
	T_SAME(".func fact(n)\n  .lset r, 1\n  .if n > 1\n    .lset r, n * fact(n - 1)\n"
	       "  .endif\n  r\n.endf\nldi r0, fact(5)\n", "ldi r0, 120\n");
	/* vc4asm's vpm_setup written as a checked function overrides the builtin */
	T_SAME(".func vpm_setup(num, stride, dma)\n  .assert num <= 16 && num > 0\n"
	       "  (num & 0xf) << 20 | (stride & 0x3f) << 12 | dma\n.endf\n"
	       "mov vw_setup, vpm_setup(15, 1, 0xa00)\n", "ldi vw_setup, 0x00f01a00\n");
	T_ERROR(".set f(x) x\nldi r0, f(1, 2)\n",
		"t.qasm:2:14: too many arguments for function 'f'");
	T_ERROR(".set f(x, y) x\nldi r0, f(1)\n",
		"t.qasm:2:12: function 'f' takes 2 arguments, not 1");
	T_ERROR(".func f(n)\n  .assert n\n  n\n.endf\nnop\nldi r0, f(0)\n",
		"t.qasm:2:3: assertion failed");
	T_DIAGS(".func f(n)\n  n\n  n + 1\n.endf\nldi r0, f(0)\n", -EINVAL,
		"t.qasm:3:3: error: a function has one result expression\n"
		"t.qasm:5:9: note: in expansion of macro 'f'");
	T_ERROR(".func f(n)\n  nop\n.endf\nldi r0, f(0)\n",
		"t.qasm:2:3: undefined symbol 'nop'");
	T_ERROR(".func f(n)\n  .if n\n  1\n.endf\nldi r0, f(1)\n",
		"t.qasm:2:3: .if without .endif");
	T_ERROR(".func f(n)\n  .rep 2\n  1\n.endf\nldi r0, f(1)\n",
		"t.qasm:2:3: .rep cannot be used in a function");
	T_ERROR(".func f(n)\n  f(n)\n.endf\nldi r0, f(1)\n",
		"t.qasm:2:3: function calls nested deeper than 64");
	T_ERROR(".func f(n\n  n\n.endf\nnop\n", "t.qasm:1:10: expected ',' or ')'");
	T_ERROR(".func f(n)\n  n\n", "t.qasm:1:1: missing .endf for this .func");
	T_ERROR(".lset g(x) x\n", "t.qasm:1:7: a function is defined with .set or .func");
}

/* .foreach: the body once per value, registers included. */
T_TEST(foreach)
{
	T_SAME(".foreach reg, ra0, rb1, r2\n  mov reg, 0\n.endfor\n",
	       "mov ra0, 0\nmov rb1, 0\nmov r2, 0\n");
	T_SAME(".set B, 3\n.foreach v, 1, B * 2, 1.5\nldi r0, v\n.endr\n",
	       "ldi r0, 1\nldi r0, 6\nldi r0, 1.5\n");
	T_SAME(".foreach a, 1, 2\n.foreach b, 10, 20\nldi r0, a + b\n.endfor\n.endfor\n",
	       "ldi r0, 11\nldi r0, 21\nldi r0, 12\nldi r0, 22\n");
	T_ERROR(".foreach 1, 2\nnop\n.endfor\n", "t.qasm:1:10: expected a name");
	T_ERROR(".foreach v, 1\nnop\n", "t.qasm:1:1: missing .endfor for this .foreach");
	T_ERROR(".foreach v, ra1.16a\nnop\n.endfor\n",
		"t.qasm:1:13: a register value takes no suffix");
	T_ERROR(".endfor\n", "t.qasm:1:1: .endfor without its opening directive");
	T_ERROR(".foreach v, srel(1)\nnop\n.endfor\n",
		"t.qasm:1:13: a semaphore operation is not a value");
}

/* Data: little-endian fields packed from bit 0 of a word upwards. */
T_TEST(data)
{
	T_SAME(".int 0x11223344, 0x55667788\n", ".long 0x5566778811223344\n");
	T_SAME(".short 1, 2, 3, 4\n.word 5, 6, 7, 8\n",
	       ".long 0x0004000300020001\n.long 0x0008000700060005\n");
	T_SAME(".byte 1, 2, 3, 4, 5, 6, 7, 8\n", ".long 0x0807060504030201\n");
	T_SAME(".bit 1, 0, 1, 1\n.int4 0xf\n", ".long 0xfd\n");
	T_SAME(".float 1.0, -2\n", ".long 0xc00000003f800000\n");
	T_SAME(".half 1.0, 0.5, 2\n", ".long 0x0000400038003c00\n");
	T_SAME(".double 1.0\n", ".long 0x3ff0000000000000\n");
	T_SAME(".dword -1, 0\n.qword 2\n.int64 3\n.quad 4\n",
	       ".long 0xffffffff\n.long 2\n.long 3\n.long 4\n");
	/* a field across a word boundary continues in the next word */
	T_SAME(".short 1, 2, 3\n.int 0x44332211\n",
	       ".long 0x2211000300020001\n.long 0x4433\n");
	/* a label after data points at its byte */
	T_SAME(".byte 1, 2, 3\nx:\n.byte 4\nldi r0, x\n",
	       ".long 0x04030201\nldi r0, 3\n");
	T_DIAGS(".byte 300, -129\n.short 65535\n.bit 2\n", 0,
		"t.qasm:1:7: warning: 300 does not fit in 8 bits\n"
		"t.qasm:1:12: warning: -129 does not fit in 8 bits\n"
		"t.qasm:3:6: warning: a bit is 0 or 1, not 2");
	T_DIAGS(".byte 1\n.int 2, 3\n", 0,
		"t.qasm:2:6: warning: .int value not aligned: 24 bits short of 32-bit alignment");
	T_DIAGS(".half 100000\n", 0,
		"t.qasm:1:7: warning: 100000 is out of the range of a 16-bit float");
	T_ERROR(".int 1.5\n", "t.qasm:1:6: .int needs integers; use .float");
	T_ERROR(".int ra1\n", "t.qasm:1:6: .int needs numbers");
	T_ERROR(".bit 1\nx: nop\n", "t.qasm:2:1: a label needs a byte boundary, not bit 1 of data");
	T_ERROR(".bit 1\n:1\n", "t.qasm:2:2: a label needs a byte boundary, not bit 1 of data");
}

/* .align pads data with zero bits and code with nops; .assert; .global. */
T_TEST(align_assert_global)
{
	T_SAME(".byte 1\n.align 4\n.byte 2\n", ".long 0x0200000001\n");
	T_SAME(".byte 1\n.align 8\n.byte 2\n", ".long 1\n.long 2\n");
	T_SAME("thrend\n.align 32\nthrsw\n", "thrend\nnop\nnop\nnop\nthrsw\n");
	T_SAME("thrend\n.align 16, 8\nthrsw\n", "thrend\nthrsw\n");
	T_SAME("nop\nx: nop\nnop\n.align 16, x\nthrsw\n", "nop\nnop\nnop\nthrsw\n");
	T_SAME("nop\nx: nop\n.align 16, x\nthrsw\n", "nop\nnop\nnop\nthrsw\n");
	T_SAME("x: nop\n.align 16, x\nthrsw\n", "nop\nnop\nthrsw\n");
	T_SAME("nop\n.align 0\nthrend\n", "nop\nthrend\n");
	T_ERROR(".align 3\n", "t.qasm:1:8: alignment 3 is not a power of 2 up to 64");
	T_ERROR(".align 128\n", "t.qasm:1:8: alignment 128 is not a power of 2 up to 64");
	T_SAME(".assert 1 + 1 == 2\nnop\n.assert end - start == 8\nstart: nop\nend:\n",
	       "nop\nnop\n");
	T_ERROR("nop\n  .assert 2 > 3\n", "t.qasm:2:3: assertion failed");
	T_SAME(".global :start\n.global size, end - start\n::start\nnop\nend:\n", "nop\n");
	T_ERROR(".global size, 1.5\n", "t.qasm:1:15: a global symbol is a label or an integer");
	T_ERROR(".global :nothing\n", "t.qasm:1:10: undefined symbol 'nothing'");
	T_SAME(".code\n.text\n.rodata\nnop\n", "nop\n");
}

/* .back n: the block goes before the last n instructions. */
T_TEST(back)
{
	T_SAME("nop\nthrsw\nthrend\n.back 2\nldi r0, 1\nldi r1, 2\n.endb\nnop\n",
	       "nop\nldi r0, 1\nldi r1, 2\nthrsw\nthrend\nnop\n");
	/* a branch inside lands at its new place: relative targets follow */
	T_SAME("nop\nnop\nnop\n.back 3\nbrr -, target\n.endb\ntarget: thrend\n",
	       "brr -, 0\nnop\nnop\nnop\nthrend\n");
	T_SAME("nop\n.back 0\nthrend\n.endb\n", "nop\nthrend\n");
	/* before any word (found by fuzz-asm: UBSan, offset on a NULL array) */
	T_SAME(".back 0\n.endb\nnop\n", "nop\n");
	T_ERROR("nop\n.back 2\n.endb\n",
		"t.qasm:2:7: .back 2 goes before the start of the program");
	T_ERROR(".back 11\n.endb\n", "t.qasm:1:7: .back count 11 out of range 0..10");
	T_ERROR("nop\nnop\n.back 1\n.back 1\n.endb\n.endb\n",
		"t.qasm:4:1: .back inside .back (at line 3)");
	T_ERROR("nop\n .back 1\nnop\n", "t.qasm:2:2: missing .endb for this .back");
	T_ERROR(".endb\n", "t.qasm:1:1: .endb without .back");
	T_DIAGS("nop\nnop\nx: nop\n.back 2\nthrend\n.endb\n", 0,
		"t.qasm:4:1: warning: .back moves code across label 'x'");
}

/* vc4asm's rotation of a result, pack names and register names. */
T_TEST(vc4asm_spellings)
{
	T_EQ_U64(word_of("fmul r0, r1 << r5, r2 << r5"), word_of("fmul r0 >> r5, r1, r2"));
	T_EQ_U64(word_of("fmul r0, r1 >> 3, r2 >> 3"), word_of("fmul r0 << 3, r1, r2"));
	T_EQ_U64(word_of("fmul r0, r1 << 3, r2 << 3"), word_of("fmul r0 >> 3, r1, r2"));
	T_EQ_U64(word_of("fmul r0, r1 >> 3, r2 >> 3"), word_of("fmul r0 << 3, r1 >> 3, r2"));
	T_EQ_U64(word_of("add ra0.16a, r1, r2"), word_of("add ra0.16ai, r1, r2"));
	T_EQ_U64(word_of("fadd ra0.16b, r1, r2"), word_of("fadd ra0.16bf, r1, r2"));
	T_EQ_U64(word_of("add ra0.8abcdsi, r1, r2"), word_of("add ra0.8888s, r1, r2"));
	T_EQ_U64(word_of("add ra0.8asi, r1, r2"), word_of("add ra0.8as, r1, r2"));
	T_EQ_U64(word_of("add ra0.8dsi, r1, r2"), word_of("add ra0.8dclamp, r1, r2"));
	T_EQ_U64(word_of("add ra0.32s, r1, r2"), word_of("add ra0.32si, r1, r2"));
	T_EQ_U64(word_of("add ra0, r1, r2"), word_of("add ra0.32, r1, r2"));
	T_EQ_U64(word_of("add r0, ra1.8a, r2"), word_of("add r0, ra1.8ai, r2"));
	T_EQ_U64(word_of("fadd r0, r4.16b, r2"), word_of("fadd r0, r4.16bf, r2"));
	/* no unit named: the add ALU packs in regfile A, the mul ALU in itself */
	T_EQ_U64(word_of("add ra0.8abcd, r1, r2"), word_of("add ra0.8888, r1, r2"));
	T_EQ_U64(word_of("fmul ra0.8abcd, r1, r2"), word_of("fmul ra0.8888, r1, r2"));
	T_ERROR("fmul r0.8a, r1, r2\n", "t.qasm:1:6: pack needs a regfile A register");
	T_EQ_U64(word_of("fmul r0.8888, r1, r2"), word_of("fmul r0.8abcd, r1, r2"));
	T_EQ_U64(word_of("fmul rb0.8888, r1, r2"), word_of("fmul rb0.8ddupe, r1, r2"));
	/* a mul ALU writing regfile A: pm 0, pack 4 */
	T_EQ_U64(0x104059c0409e700aull, word_of("mul24 ra0.8a, r1, r2"));
	T_EQ_U64(word_of("mov mutex, 1"), word_of("mov mutex_rel, 1"));
	T_EQ_U64(word_of("mov r0, mutex"), word_of("mov r0, mutex_acq"));
	T_EQ_U64(word_of("mov irq, r0"), word_of("mov host_int, r0"));
	T_ERROR("fmul r0, r1 >> r5, r2\n", "t.qasm:1:13: an input is rotated by r5 with '<< r5'");
	T_ERROR("fmul r0 << r5, r1, r2\n", "t.qasm:1:9: a result is rotated by r5 with '>> r5'");
	T_ERROR("fmul r0 << 2, r1 << 2, r2\n",
		"t.qasm:1:18: both mul inputs need the same rotation");
	T_ERROR("mov mutex_acq, r0\n", "t.qasm:1:5: expected a destination register");
	T_ERROR("mov r0, mutex_rel\n", "t.qasm:1:9: 'mutex_rel' cannot be read");
	T_ERROR("add r0.8888sf, r1, r2\n", "t.qasm:1:5: the add ALU has no float pack");
	/* ".8af" unpacks only, as in vc4asm */
	T_ERROR("fmul r0.8af, r1, r2\n", "t.qasm:1:6: unknown destination suffix '.8af'");
	T_EQ_U64(word_of("fmul r0, r4.8c, r2"), word_of("fmul r0, r4.8cf, r2"));
	T_ERROR("add ra0.16x, r1, r2\n", "t.qasm:1:5: unknown destination suffix '.16x'");
}

static char tmpdir[64];

static void write_file(const char *name, const char *text)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	fp = fopen(path, "w");
	if (!fp || fputs(text, fp) < 0 || fclose(fp)) {
		perror(path);
		exit(T_EXIT_FAIL);
	}
}

static int assemble_file(const char *name, const char *incdir, uint64_t *words,
			 size_t max, char *err, size_t err_size)
{
	struct qpu_asm *as = qpu_asm_new();
	const struct qpu_asm_diag *d;
	const uint64_t *w;
	char path[256];
	int ret;
	size_t n;

	err[0] = '\0';
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	if (incdir)
		qpu_asm_add_include_dir(as, incdir);
	ret = qpu_asm_file(as, path);
	if (!ret) {
		n = qpu_asm_words(as, &w);
		ret = n <= max ? (int)n : -1;
		if (n)
			memcpy(words, w, (n <= max ? n : max) * sizeof(*w));
	} else if (qpu_asm_diags(as, &d)) {
		snprintf(err, err_size, "%s:%u:%u: %s", strrchr(d->file, '/') + 1,
			 d->line, d->col, d->msg);
	}
	qpu_asm_free(as);
	return ret;
}

/* qpu_asm_file() on @path: its return value */
static int top_file(const char *path)
{
	struct qpu_asm *as = qpu_asm_new();
	int ret = qpu_asm_file(as, path);

	qpu_asm_free(as);
	return ret;
}

T_TEST(include)
{
	char incdir[128], err[200];
	uint64_t w[16];
	int n;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test-asm.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		exit(T_EXIT_FAIL);
	}
	snprintf(incdir, sizeof(incdir), "%s/inc", tmpdir);
	mkdir(incdir, 0700);
	write_file("inc/defs.qinc", ".set VALUE, 42\n.macro emit\nldi r2, VALUE\n.endm\n");
	write_file("local.qinc", "thrsw\n");
	write_file("main.qasm", ".include \"defs.qinc\"\n.include \"local.qinc\"\nemit\n");
	write_file("self.qasm", "nop\n.include \"self.qasm\"\n");
	write_file("bad.qinc", "nop\nldi r0, nothing\n");
	write_file("usebad.qasm", "nop\n.include \"bad.qinc\"\n");
	write_file("inc/which.qinc", "thrend\n");
	write_file("which.qinc", "thrsw\n");
	write_file("angle.qasm", ".include <which.qinc>\n.include \"which.qinc\"\n");
	/* the fuzzer's hang-include-twice: a file including itself twice */
	write_file("twice.qinc", ".include \"twice.qinc\"\n .include \"twice.qinc\"\n");
	write_file("twice.qasm", ".include \"twice.qinc\"\n.include \"twice.qinc\"\n");
	write_file("seq.qasm", ".include \"local.qinc\"\n.include \"local.qinc\"\n");
	write_file("zero.qasm", "nop\n.include \"/dev/zero\"\n");
	write_file("dir.qasm", ".include \"inc\"\n");
	write_file("big.qasm", ".include \"big.qinc\"\n");
	write_file("big.qinc", "");
	write_file("loop.qasm", ".rep 5000\n  .include \"local.qinc\"\n.endr\n");

	n = assemble_file("main.qasm", incdir, w, 16, err, sizeof(err));
	T_EQ_U64(2, n);
	T_EQ_U64(0x200009e7009e7000ull, w[0]);
	T_EQ_U64(word_of("ldi r2, 42"), w[1]);

	n = assemble_file("main.qasm", NULL, w, 16, err, sizeof(err));
	T_CHECK(n < 0);
	T_EQ_STR("main.qasm:1:10: cannot include 'defs.qinc': No such file or directory",
		 err);
	n = assemble_file("self.qasm", NULL, w, 16, err, sizeof(err));
	T_CHECK(n < 0);
	T_EQ_STR("self.qasm:2:10: cannot include 'self.qasm': it is being included "
		 "already (recursive include)", err);
	/* it used to take 2^64 includes to reach the depth limit */
	n = assemble_file("twice.qasm", NULL, w, 16, err, sizeof(err));
	T_CHECK(n < 0);
	T_EQ_STR("twice.qinc:1:10: cannot include 'twice.qinc': it is being included "
		 "already (recursive include)", err);
	/* one file after the other is no recursion */
	n = assemble_file("seq.qasm", NULL, w, 16, err, sizeof(err));
	T_EQ_U64(2, n);
	/* a device would be read until memory runs out */
	n = assemble_file("zero.qasm", NULL, w, 16, err, sizeof(err));
	T_CHECK(n < 0);
	T_EQ_STR("zero.qasm:2:10: cannot include '/dev/zero': not a regular file", err);
	T_ERROR(".include \"/dev/zero\"\n",
		"t.qasm:1:10: cannot include '/dev/zero': not a regular file");
	/* a directory used to read as an empty file */
	n = assemble_file("dir.qasm", NULL, w, 16, err, sizeof(err));
	T_CHECK(n < 0);
	T_EQ_STR("dir.qasm:1:10: cannot include 'inc': Is a directory", err);
	T_ERROR(".include \"/\"\n", "t.qasm:1:10: cannot include '/': Is a directory");
	/* a FIFO is refused before it is opened: the open would block */
	{
		char path[256];

		snprintf(path, sizeof(path), "%s/fifo.qinc", tmpdir);
		T_CHECK(!mkfifo(path, 0600));
		write_file("fifo.qasm", ".include \"fifo.qinc\"\n");
		n = assemble_file("fifo.qasm", NULL, w, 16, err, sizeof(err));
		T_CHECK(n < 0);
		T_EQ_STR("fifo.qasm:1:10: cannot include 'fifo.qinc': not a regular file", err);
	}
	{
		char path[256];

		snprintf(path, sizeof(path), "%s/big.qinc", tmpdir);
		T_CHECK(!truncate(path, QPU_ASM_MAX_FILE_SIZE + 1));
		n = assemble_file("big.qasm", NULL, w, 16, err, sizeof(err));
		T_CHECK(n < 0);
		T_EQ_STR("big.qasm:1:10: cannot include 'big.qinc': larger than 16777216 bytes",
			 err);
		/* the top file may be a device, but no larger than the limit */
		T_EQ_U64((uint64_t)-EFBIG, (uint64_t)top_file("/dev/zero"));
		T_EQ_U64((uint64_t)-EFBIG, (uint64_t)top_file(path));
		T_EQ_U64((uint64_t)-EISDIR, (uint64_t)top_file(tmpdir));
	}
	/* an include in a loop reads its file each time: at most 4096 */
	n = assemble_file("loop.qasm", NULL, w, 16, err, sizeof(err));
	T_CHECK(n < 0);
	T_EQ_STR("loop.qasm:2:12: more than 4096 includes in one pass", err);
	n = assemble_file("usebad.qasm", NULL, w, 16, err, sizeof(err));
	T_CHECK(n < 0);
	T_EQ_STR("bad.qinc:2:9: undefined symbol 'nothing'", err);
	/* <name> tries the include directories first, "name" the file's own */
	n = assemble_file("angle.qasm", incdir, w, 16, err, sizeof(err));
	T_EQ_U64(2, n);
	T_EQ_U64(word_of("thrend"), w[0]);
	T_EQ_U64(word_of("thrsw"), w[1]);
	n = assemble_file("missing.qasm", NULL, w, 16, err, sizeof(err));
	T_EQ_U64((uint64_t)-ENOENT, (uint64_t)n);

	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot clean up %s\n", tmpdir);
	}
}

T_TEST(errors)
{
	T_ERROR("add r0, r1\n", "t.qasm:1:9: 'add' takes 3 operands, not 2");
	T_ERROR("nop\nfoo r0, r1, r2\n", "t.qasm:2:1: unknown instruction 'foo'");
	T_ERROR("ldi r0, undefined_x\n", "t.qasm:1:9: undefined symbol 'undefined_x'");
	T_ERROR("ldi r0, 0x100000000\n", "t.qasm:1:9: value does not fit in 32 bits");
	T_ERROR("add r0, r1, 100\n", "t.qasm:1:13: value cannot be a small immediate");
	T_ERROR("add r0, ra1, ra2\n",
		"t.qasm:1:14: regfile A is already read at another address");
	T_ERROR("  brr -, nowhere\n", "t.qasm:1:10: undefined symbol 'nowhere'");
	T_ERROR(".rep 100000\nnop\n.endr\n",
		"t.qasm:1:6: repeat count 100000 out of range 0..65536");
	T_ERROR(".rep 3\nnop\n", "t.qasm:1:1: missing .endr for this .rep");
	T_ERROR(".macro m\nm\n.endm\nm\n", "t.qasm:2:1: recursive call of macro 'm'");
	T_ERROR(".macro a\nb\n.endm\n.macro b\na\n.endm\na\n",
		"t.qasm:5:1: recursive call of macro 'a'");
	T_ERROR(".if 1\nnop\n", "t.qasm:1:1: .if without .endif");
	T_ERROR("nop\n.endif\n", "t.qasm:2:1: .endif without .if");
	T_ERROR(".else\n", "t.qasm:1:1: .else without .if");
	T_ERROR(".if 1\n.else\n.else\n.endif\n", "t.qasm:3:1: .else after .else");
	T_ERROR("ldi r0, (1 + 2\n", "t.qasm:1:15: expected ')'");
	T_ERROR("ldi r0, 1 / 0\n", "t.qasm:1:11: division by zero");
	T_ERROR("ldi r0, 1.5 % 2\n", "t.qasm:1:13: operator '%' needs integer operands");
	T_ERROR("  .bogus 1\n", "t.qasm:1:3: unknown directive '.bogus'");
	T_ERROR("add r0, r1, r2 extra\n",
		"t.qasm:1:16: expected ',' or end of instruction");
	T_ERROR("fmul r0, r1 << 3, r2 >> 2\n",
		"t.qasm:1:22: both mul inputs need the same rotation");
	T_ERROR("x: nop\nx: nop\n", "t.qasm:2:1: label 'x' defined twice");
	T_ERROR(".set ra0, 1\n", "t.qasm:1:6: 'ra0' is a register name");
	T_ERROR("add.setf r0, r1, r2; fmul.setf r0, r1, r2\n",
		"t.qasm:1:22: only one ALU can set the flags");
	T_ERROR("nop; thrend; ldtmu0\n", "t.qasm:1:14: only one signal per instruction");
	T_ERROR("add r0, r1, 2; thrend\n",
		"t.qasm:1:16: a signal cannot be used with a small immediate or rotation");
	T_ERROR(".long 1 +\n", "t.qasm:1:10: expected an expression");
	T_ERROR("ldi r0, $\n", "t.qasm:1:9: unexpected character '$'");
	T_ERROR("add.ifq r0, r1, r2\n", "t.qasm:1:1: unknown suffix '.ifq' on 'add'");
	T_ERROR("mov r0, ra1.16x\n", "t.qasm:1:9: unknown source suffix '.16x'");
	T_ERROR("ldipes r0, [1, 2]\n", "t.qasm:1:12: 'ldipes' takes a list of 16 values");
	T_ERROR("sacq -, 16\n", "t.qasm:1:9: semaphore number out of range");
	T_ERROR("brr -, ra40\n", "t.qasm:1:8: expected a regfile A register ra0..ra31");
	/* the builder's refusals, shared with the emitter (test-emit) */
	T_ERROR("fadd ra1, r1, r2; fmul ra2, r1, r2\n",
		"t.qasm:1:24: the two destinations need different register files");
	T_ERROR("add r0, ra1, rb2; read vpm\n",
		"t.qasm:1:24: no free register file to read 'vpm'");
	T_ERROR("ldipes r0, [0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0]\n",
		"t.qasm:1:12: element 7 out of range: 2");
	T_ERROR("mov r0, ra1.16a.16b\n", "t.qasm:1:9: only one unpack per instruction");
	T_ERROR("fadd r0, ra1.16a, r4.8a\n",
		"t.qasm:1:19: pack and unpack need different pm modes");
	T_ERROR("fadd r0, ra1, rb2.16a\n",
		"t.qasm:1:15: unpack needs r4 or a regfile A register");
	T_ERROR("fmul r0, r1 << 2, rb2\n", "t.qasm:1:6: a rotation needs regfile B unused");
	T_ERROR("add r0, 1, 2\n", "t.qasm:1:12: only one small immediate per instruction");
	T_ERROR("add r0, rb1, 2\n", "t.qasm:1:14: regfile B is already read");
	T_ERROR("add r0, 2, rb1\n", "t.qasm:1:12: regfile B is taken by a small immediate");
	T_ERROR("fadd r0, r1, r2; fmul.setf r0, r1, r2\n",
		"t.qasm:1:18: the mul ALU sets flags only when the add ALU is idle");
	T_ERROR("ldi r0, 99999999999999999999999\n", "t.qasm:1:9: number too large");
	T_ERROR(".macro m x\nnop\n.endm\nm 1, 2\n",
		"t.qasm:4:6: too many arguments for macro 'm'");
	T_ERROR(".if 1\n  .error \"stop here\"\n.endif\n", "t.qasm:2:10: stop here");
	T_ERROR("nop\n.endr\n", "t.qasm:2:1: .endr without its opening directive");
	T_ERROR(".rep end / 8 + 1\nnop\n.endr\nend:\n",
		"t.qasm:4:1: label 'end' moved between passes (a forward label in .if or .rep?)");
	/* a label only the second pass sees (it used to crash) */
	T_ERROR("nop\n.if fwd != 0\ny: nop\n.endif\nfwd: nop\n",
		"t.qasm:3:1: label 'y' moved between passes (a forward label in .if or .rep?)");
	/* the instruction limit: 2^20 words */
	T_ERROR(".rep 1025\n.rep 1024\nnop\n.endr\n.endr\n",
		"t.qasm:3:1: program longer than 1048576 instructions");
}

/* @n copies of @unit, then @mid, then @n copies of @tail, after @head */
static char *repeated(const char *head, const char *unit, size_t n, const char *mid,
		      const char *tail)
{
	size_t lu = strlen(unit), lt = strlen(tail), len = strlen(head), i;
	char *s = malloc(len + n * (lu + lt) + strlen(mid) + 1), *p;

	if (!s) {
		perror("malloc");
		exit(T_EXIT_FAIL);
	}
	p = s + len;
	memcpy(s, head, len);
	for (i = 0; i < n; i++, p += lu)
		memcpy(p, unit, lu);
	strcpy(p, mid);
	p += strlen(mid);
	for (i = 0; i < n; i++, p += lt)
		memcpy(p, tail, lt);
	*p = '\0';
	return s;
}

/*
 * Limits on work: what the fuzzer found running for hours or overflowing
 * the stack (selftests/fuzz/crashes/asm/), and its relatives, now errors.
 */
T_TEST(limits)
{
	char *src, expected[200];
	struct qpu_asm *as;
	const struct qpu_asm_diag *d;
	size_t n;

	/* stack-overflow-parens: 256 levels at most, the innermost included */
	src = repeated("ldi r0, ", "(", 255, "1", ")");
	T_SAME(src, "ldi r0, 1\n");
	free(src);
	src = repeated("ldi r0, ", "(", 20000, "1", ")");
	T_ERROR(src, "t.qasm:1:265: expression nested deeper than 256");
	free(src);
	src = repeated("ldi r0, ", "- ", 300, "1", "");
	T_ERROR(src, "t.qasm:1:521: expression nested deeper than 256");
	free(src);
	/* function arguments nest too, and each call's body adds its own */
	src = repeated(".set f(x) x\nldi r0, ", "f(", 300, "1", ")");
	T_ERROR(src, "t.qasm:2:521: expression nested deeper than 256");
	free(src);
	src = repeated("mov r0, ", "h32(", 300, "0", ")");
	T_ERROR(src, "t.qasm:1:1033: expression nested deeper than 256");
	free(src);
	/* a failed line leaves no depth behind */
	src = repeated("ldi r0, ", "(", 300, "1", ")");
	{
		char *two = malloc(strlen(src) + 64);

		T_CHECK(two != NULL);
		sprintf(two, "%s\n.rep 2\nldi r0, ((1))\n.endr\n", src);
		T_DIAGS(two, -EINVAL, "t.qasm:1:265: error: expression nested deeper than 256");
		free(two);
	}
	free(src);

	/* hang-nested-rep: the product of nested counts is bounded */
	T_ERROR(".rep 65536\n.rep 65536\n.set A, 1\n.endr\n.endr\nnop; thrend\nnop\nnop\n",
		"t.qasm:2:6: loops nested here repeat their body more than 2097152 times");
	T_SAME(".rep 2048\n.rep 1024\n.endr\n.endr\nnop\n", "nop\n");
	T_ERROR(".rep 2048\n.rep 1025\n.endr\n.endr\nnop\n",
		"t.qasm:2:6: loops nested here repeat their body more than 2097152 times");
	T_ERROR(".rep 65536\n.foreach v, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, "
		"15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33\n"
		".set A, v\n.endfor\n.endr\n",
		"t.qasm:2:10: loops nested here repeat their body more than 2097152 times");
	/* through a macro call */
	T_ERROR(".macro m\n.rep 65536\n.set A, 1\n.endr\n.endm\n.rep 64\nm\n.endr\n",
		"t.qasm:2:6: loops nested here repeat their body more than 2097152 times");
	/* 22 loops of 2 */
	src = repeated("", ".rep 2\n", 22, ".set A, 1\n", ".endr\n");
	T_ERROR(src, "t.qasm:22:6: loops nested here repeat their body more than 2097152 times");
	free(src);
	/* a long body in allowed loops: the lines of a pass are bounded */
	T_ERROR(".rep 65536\n.rep 32\n.set A, 1\n.set B, 2\n.endr\n.endr\n",
		"t.qasm:3:1: more than 2097152 lines in one pass (loops, macros, "
		"functions or includes repeat too much)");
	/* a function calling itself twice: 2^40 calls */
	T_ERROR(".func f(n)\n .if n\n  f(n - 1) + f(n - 1)\n .else\n  0\n .endif\n.endf\n"
		"ldi r0, f(40)\n",
		"t.qasm:5:1: more than 2097152 lines in one pass (loops, macros, "
		"functions or includes repeat too much)");
	/* and so are their bytes */
	src = repeated(".rep 65536\n# ", "x", 60000, "\n.endr\n", "");
	T_ERROR(src, "t.qasm:2:1: more than 268435456 bytes of lines in one pass (loops, "
		"macros, functions or includes repeat too much)");
	free(src);

	/* arguments passed on double at each call: 8^7 bytes */
	{
		char text[1024];
		size_t len = 0;
		int i;

		len += snprintf(text + len, sizeof(text) - len, ".macro m0 x\n.set A, x\n.endm\n");
		for (i = 1; i < 8; i++)
			len += snprintf(text + len, sizeof(text) - len,
					".macro m%d x\nm%d x x x x x x x x\n.endm\n", i, i - 1);
		snprintf(text + len, sizeof(text) - len, "m7 1\n");
		T_ERROR(text, "t.qasm:11:18: macro expansion longer than 65536 bytes");
	}

	/* a warning in a loop, different each time: 100, then one line */
	as = qpu_asm_new();
	T_CHECK(as != NULL);
	T_CHECK(!qpu_asm_string(as, "t.qasm", ".rep i, 5000\n.byte 256 + i\n.endr\n"));
	n = qpu_asm_diags(as, &d);
	T_EQ_U64(QPU_ASM_MAX_WARNINGS + 1, n);
	if (n == QPU_ASM_MAX_WARNINGS + 1) {
		T_CHECK(d[n - 1].warning);
		T_EQ_STR("more than 100 warnings, the rest are not shown", d[n - 1].msg);
		T_EQ_STR("355 does not fit in 8 bits", d[n - 2].msg);
	}
	qpu_asm_free(as);
	/* errors are still reported once the warnings are no longer */
	as = qpu_asm_new();
	T_CHECK(as != NULL);
	T_CHECK(qpu_asm_string(as, "t.qasm", ".rep i, 500\n.byte 256 + i\n.endr\n"
			       "foo\n.rep i, 30\nldi r0, 1 / (i - i)\n.endr\n") == -EINVAL);
	n = qpu_asm_diags(as, &d);
	T_EQ_U64(QPU_ASM_MAX_WARNINGS + 1 + 2, n);
	if (n == QPU_ASM_MAX_WARNINGS + 3) {
		T_EQ_STR("unknown instruction 'foo'", d[n - 2].msg);
		T_EQ_STR("division by zero", d[n - 1].msg);
		T_CHECK(!d[n - 1].warning);
	}
	qpu_asm_free(as);

	/* local labels: each reference looked through all definitions */
	T_SAME(":1\nnop\n:1\nnop\n:2\nbrr -, r:1b\nbrr -, r:1f\n:1\nnop\nbrr -, r:2b\n"
	       "brr -, r:1b\n", "nop\nnop\nbrr -, -40\nbrr -, -24\nnop\nbrr -, -56\n"
	       "brr -, -48\n");
	T_SAME(":1\n.rep 65536\n:2\n:2\n:2\n.set X, r:1b\n.endr\nnop\n", "nop\n");
	T_ERROR(".rep 65536\n:2\n:2\n:2\n.set X, r:1b\n.endr\nnop\n",
		"t.qasm:5:9: no preceding definition of local label 1");

	/* .back, .align and .foreach were bounded already */
	T_ERROR("nop\n.back 4294967296\n.endb\n",
		"t.qasm:2:7: .back count 4294967296 out of range 0..10");
	T_ERROR(".align 0x100000000\n",
		"t.qasm:1:8: alignment 4294967296 is not a power of 2 up to 64");
	T_ERROR(".align 64, 0x7fffffffffffffff\nnop\n.align 64, -0x7fffffffffffffff\n.rep 3\n",
		"t.qasm:4:1: missing .endr for this .rep");
	src = repeated(".foreach v", ", 0", QPU_ASM_MAX_REPEAT + 1, "\nnop\n.endfor\n", "");
	snprintf(expected, sizeof(expected), "t.qasm:1:%u: more than 65536 values",
		 (unsigned int)strlen(".foreach v") + 3 * QPU_ASM_MAX_REPEAT + 3);
	T_ERROR(src, expected);
	free(src);
}

T_MAIN()
