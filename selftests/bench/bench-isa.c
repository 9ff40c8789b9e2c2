// SPDX-License-Identifier: MIT
/*
 * ISA throughput on this machine (make bench): decode, encode, decode +
 * disassemble to text, and assembling that text back (one program of all
 * the words, through libqpu's assembler), over seeded random words and over
 * a stream of common ALU words. Prints words per second, median of 5 runs.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <string.h>

#include "qpu_asm.h"
#include "bench.h"
#include "qpu_disasm.h"
#include "qpu_isa.h"

#define WORDS	(1 << 18)
#define RUNS	5

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The disassembly of @words as one program, one instruction a line. */
static char *program_text(const uint64_t *words)
{
	char *text = malloc((size_t)WORDS * QPU_DISASM_BUF_SIZE), *p = text;
	int i;

	if (!text)
		exit(1);
	for (i = 0; i < WORDS; i++) {
		p += qpu_disasm(words[i], 8 * i, 0, p, QPU_DISASM_BUF_SIZE);
		*p++ = '\n';
	}
	*p = '\0';
	return text;
}

/* Words per second assembling @text, median of RUNS; checks the result. */
static double asm_rate(const uint64_t *words)
{
	char *text = program_text(words);
	const uint64_t *out;
	double r[RUNS];
	int run;

	for (run = 0; run < RUNS; run++) {
		struct qpu_asm *as = qpu_asm_new();
		double start = bench_now_s();

		if (!as || qpu_asm_string(as, "bench", text) ||
		    qpu_asm_words(as, &out) != WORDS ||
		    memcmp(out, words, WORDS * sizeof(*words))) {
			fprintf(stderr, "bench-isa: the assembler did not give the words back\n");
			exit(1);
		}
		r[run] = WORDS / (bench_now_s() - start);
		qpu_asm_free(as);
	}
	free(text);
	return bench_median(r, RUNS);
}

/* Words per second of @what over @words, median of RUNS. */
static double rate(int what, const uint64_t *words)
{
	double r[RUNS];
	char buf[QPU_DISASM_BUF_SIZE];
	struct qpu_isa_instr in;
	volatile uint64_t sink = 0;
	uint64_t w;
	int run, i;

	for (run = 0; run < RUNS; run++) {
		double start = bench_now_s();

		for (i = 0; i < WORDS; i++) {
			switch (what) {
			case 0:
				qpu_isa_decode(words[i], &in);
				sink += in.kind;
				break;
			case 1:
				qpu_isa_decode(words[i], &in);
				qpu_isa_encode(&in, &w);
				sink += w;
				break;
			default:
				sink += qpu_disasm(words[i], 8 * i, 0, buf, sizeof(buf));
				break;
			}
		}
		r[run] = WORDS / (bench_now_s() - start);
	}
	(void)sink;
	return bench_median(r, RUNS);
}

int main(void)
{
	static const char *const names[] = {
		"decode", "decode + encode", "disassemble (decode + text)",
	};
	uint64_t *random_words = malloc(WORDS * sizeof(*random_words));
	uint64_t *alu_words = malloc(WORDS * sizeof(*alu_words));
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	int i;

	if (!random_words || !alu_words)
		return 1;
	for (i = 0; i < WORDS; i++) {
		random_words[i] = xorshift(&seed);
		/* Signals 1..12 only: plain ALU words, as real programs are. */
		alu_words[i] = (random_words[i] & ~(0xfull << 60)) |
			       ((uint64_t)(1 + i % 12) << 60);
	}

	printf("qpu ISA core on this machine (%d words, median of %d runs)\n",
	       WORDS, RUNS);
	for (i = 0; i < 3; i++)
		printf("  %-30s %7.1f M words/s random, %7.1f M words/s ALU\n",
		       names[i], rate(i, random_words) / 1e6,
		       rate(i, alu_words) / 1e6);
	printf("  %-30s %7.2f M words/s random, %7.2f M words/s ALU\n",
	       "assemble (text to words)", asm_rate(random_words) / 1e6,
	       asm_rate(alu_words) / 1e6);
	free(random_words);
	free(alu_words);
	return 0;
}
