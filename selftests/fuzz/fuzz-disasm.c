// SPDX-License-Identifier: MIT
/*
 * fuzz-disasm: the disassembler's round trip. The input is a sequence of
 * little-endian 64-bit words (a short tail is zero-padded); every word must
 * decode and encode back to itself, disassemble into a NUL-terminated line
 * that fits QPU_DISASM_BUF_SIZE, and assemble (qpu_asm_line()) back into
 * the same word, with and without the branch-target comment.
 */
#include <string.h>

#include "qpu_asm.h"
#include "fuzz.h"
#include "qpu_disasm.h"
#include "qpu_isa.h"

#define MAX_WORDS	64

static void round_trip(uint64_t w, uint32_t addr)
{
	struct qpu_isa_instr in;
	char text[QPU_DISASM_BUF_SIZE], msg[256];
	uint64_t back = ~w;
	unsigned int flags;
	int len, ret;

	qpu_isa_decode(w, &in);
	FUZZ_CHECK(!qpu_isa_encode(&in, &back) && back == w,
		   "0x%016llx encodes back as 0x%016llx", (unsigned long long)w,
		   (unsigned long long)back);

	for (flags = 0; flags <= QPU_DISASM_TARGET; flags += QPU_DISASM_TARGET) {
		len = qpu_disasm(w, addr, flags, text, sizeof(text));
		FUZZ_CHECK(len > 0 && (size_t)len < sizeof(text) &&
			   strlen(text) == (size_t)len,
			   "0x%016llx: length %d", (unsigned long long)w, len);
		back = ~w;
		ret = qpu_asm_line(text, &back, msg, sizeof(msg));
		FUZZ_CHECK(!ret && back == w, "0x%016llx -> '%s' -> %d (%s) 0x%016llx",
			   (unsigned long long)w, text, ret, msg,
			   (unsigned long long)back);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t i, n = (size + 7) / 8;

	if (n > MAX_WORDS)
		n = MAX_WORDS;
	for (i = 0; i < n; i++) {
		uint8_t b[8] = { 0 };
		uint64_t w = 0;
		int k;

		memcpy(b, data + 8 * i, size - 8 * i < 8 ? size - 8 * i : 8);
		for (k = 7; k >= 0; k--)
			w = w << 8 | b[k];
		round_trip(w, 0x1000 + 8 * (uint32_t)i);
	}
	return 0;
}
