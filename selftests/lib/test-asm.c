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

#include "../../libqpu/asm.h"
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

static void test_round_trip(void)
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

static void test_fixed_words(void)
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

static void test_labels(void)
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

static void test_expressions(void)
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

static void test_register_aliases(void)
{
	T_SAME(".set r_x, ra5\n.set r_y, rb7\nadd r_x, r_y, r1\nmov r0, r_x.16a\n",
	       "add ra5, rb7, r1\nmov r0, ra5.16a\n");
	T_SAME(".set io, vpm\nmov io, r0\n", "mov vpm, r0\n");
	T_SAME(".set link, ra3\nbrr link, 8\n", "brr ra3, 8\n");
}

static void test_directives(void)
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

/* vc4asm forms GPU_FFT's sources use, with the words its hex files ship. */
static void test_vc4asm_forms(void)
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

static void test_include(void)
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
	T_EQ_STR("self.qasm:2:10: nesting deeper than 64 (recursive include or macro?)",
		 err);
	n = assemble_file("usebad.qasm", NULL, w, 16, err, sizeof(err));
	T_CHECK(n < 0);
	T_EQ_STR("bad.qinc:2:9: undefined symbol 'nothing'", err);
	n = assemble_file("missing.qasm", NULL, w, 16, err, sizeof(err));
	T_EQ_U64((uint64_t)-ENOENT, (uint64_t)n);

	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot clean up %s\n", tmpdir);
	}
}

static void test_errors(void)
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
	T_ERROR("ldi r0, 99999999999999999999999\n", "t.qasm:1:9: number too large");
	T_ERROR(".macro m x\nnop\n.endm\nm 1, 2\n",
		"t.qasm:4:6: too many arguments for macro 'm'");
	T_ERROR(".if 1\n  .error \"stop here\"\n.endif\n", "t.qasm:2:10: stop here");
	T_ERROR("nop\n.endr\n", "t.qasm:2:1: .endr without its opening directive");
	T_ERROR(".rep end / 8 + 1\nnop\n.endr\nend:\n",
		"t.qasm:4:1: label 'end' moved between passes (a forward label in .if or .rep?)");
	/* the instruction limit: 2^20 words */
	T_ERROR(".rep 1025\n.rep 1024\nnop\n.endr\n.endr\n",
		"t.qasm:3:1: program longer than 1048576 instructions");
}

int main(void)
{
	test_fixed_words();
	test_round_trip();
	test_labels();
	test_expressions();
	test_register_aliases();
	test_directives();
	test_vc4asm_forms();
	test_include();
	test_errors();
	return t_done("test-asm");
}
