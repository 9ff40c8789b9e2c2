// SPDX-License-Identifier: MIT
/*
 * fuzz-v3d-asm: the assembler on any V3D source. The first byte picks the
 * generation (odd: 7.1, even: 4.2), the rest up to a NUL byte is the
 * program. Whatever the input, the run must end (ASan and UBSan watch
 * it), succeed with no error diagnostic or fail with at least one, give
 * every diagnostic a line and a message, and produce words that the V3D
 * disassembler turns into lines assembling to the same words.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "qpu_asm.h"
#include "qpu_dis.h"

#define MAX_SOURCE	(64 * 1024)
#define CHECKED_WORDS	64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct qpu_asm_diag *diags;
	size_t nwords, ndiags, i, len, errors = 0;
	const uint64_t *words;
	const uint8_t *nul;
	struct qpu_asm *as;
	char *text;
	int gen, ret;

	if (!size || size > MAX_SOURCE)
		return 0;
	gen = data[0] & 1 ? QPU_GEN_V3D71 : QPU_GEN_V3D42;
	data++;
	size--;
	nul = memchr(data, 0, size);
	len = nul ? (size_t)(nul - data) : size;
	text = malloc(len + 1);
	FUZZ_CHECK(text, "out of memory");
	memcpy(text, data, len);
	text[len] = '\0';

	as = qpu_asm_new();
	FUZZ_CHECK(as, "qpu_asm_new");
	FUZZ_CHECK(!qpu_asm_set_gen(as, gen), "set_gen");
	ret = qpu_asm_string(as, "fuzz.s", text);
	nwords = qpu_asm_words(as, &words);
	ndiags = qpu_asm_diags(as, &diags);
	for (i = 0; i < ndiags; i++) {
		FUZZ_CHECK(diags[i].file && diags[i].msg && diags[i].line >= 1 &&
			   diags[i].col >= 1, "diagnostic %zu incomplete", i);
		errors += !diags[i].warning;
	}
	FUZZ_CHECK(ret == 0 || ret == -EINVAL, "qpu_asm_string returned %d", ret);
	if (ret)
		FUZZ_CHECK(errors && !nwords, "failed with %zu errors, %zu words",
			   errors, nwords);
	else
		FUZZ_CHECK(!errors, "succeeded with %zu errors", errors);
	for (i = 0; i < nwords && i < CHECKED_WORDS; i++) {
		char line[QPU_DIS_BUF_SIZE], msg[256];
		uint64_t back = ~words[i];

		qpu_dis_word_gen(gen, words[i], 8 * (uint32_t)i, 0, line,
				 sizeof(line));
		FUZZ_CHECK(!qpu_asm_line_gen(gen, line, &back, msg, sizeof(msg)) &&
			   back == words[i], "v3d%d word %zu 0x%016llx -> '%s' -> %s",
			   gen, i, (unsigned long long)words[i], line, msg);
	}
	qpu_asm_free(as);
	free(text);
	return 0;
}
