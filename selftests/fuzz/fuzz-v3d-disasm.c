// SPDX-License-Identifier: MIT
/*
 * fuzz-v3d-disasm: the V3D 4.2 and 7.1 codec and disassembler. The input
 * is little-endian 64-bit words (a short tail is zero-padded), each tried
 * on both generations: a valid word must encode back to itself and have a
 * canonical form that encodes; the text must be NUL-terminated, fit
 * QPU_DIS_BUF_SIZE and be ".long" data for every invalid word (and for
 * valid ones that are not canonical, 4.2's read addresses apart, which
 * "rfN.a"/"rfN.b" name); and the text must assemble (qpu_asm_line_gen()) back
 * into the word.
 */
#include <string.h>

#include "fuzz.h"
#include "qpu_asm.h"
#include "qpu_dis.h"
#include "v3d/qpu_v3d_codec.h"

#define MAX_WORDS	64

static void round_trip(int gen, uint64_t w, uint32_t addr)
{
	struct qpu_v3d_instr in, canon;
	char text[QPU_DIS_BUF_SIZE], msg[256];
	uint64_t word = ~w;
	bool valid, data;
	u64 back = ~w;
	int len, ret;

	valid = qpu_v3d_decode(gen, w, &in) == QPU_V3D_VALID;
	if (valid) {
		FUZZ_CHECK(!qpu_v3d_encode(gen, &in, &back) && back == w,
			   "v3d%d 0x%016llx encodes back as 0x%016llx", gen,
			   (unsigned long long)w, (unsigned long long)back);
		canon = in;
		qpu_v3d_canonicalize(gen, &canon);
		FUZZ_CHECK(!qpu_v3d_encode(gen, &canon, &back),
			   "v3d%d 0x%016llx: canonical form has no encoding",
			   gen, (unsigned long long)w);
	}
	len = qpu_dis_word_gen(gen, w, addr, addr & 8 ? QPU_DIS_TARGET : 0,
			       text, sizeof(text));
	FUZZ_CHECK(len > 0 && (size_t)len < sizeof(text) &&
		   strlen(text) == (size_t)len,
		   "v3d%d 0x%016llx: length %d", gen, (unsigned long long)w, len);
	data = !strncmp(text, ".long ", 6);
	FUZZ_CHECK(data || valid, "v3d%d 0x%016llx: invalid word as '%s'", gen,
		   (unsigned long long)w, text);
	ret = qpu_asm_line_gen(gen, text, &word, msg, sizeof(msg));
	FUZZ_CHECK(!ret && word == w, "v3d%d 0x%016llx -> '%s' -> %d (%s) 0x%016llx",
		   gen, (unsigned long long)w, text, ret, msg,
		   (unsigned long long)word);
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
		round_trip(QPU_GEN_V3D42, w, 8 * (uint32_t)i);
		round_trip(QPU_GEN_V3D71, w, 8 * (uint32_t)i);
	}
	return 0;
}
