// SPDX-License-Identifier: MIT
/*
 * fuzz-asm: the text assembler on any source. The input up to its first NUL
 * byte is the program; what follows the NUL, if anything, is the file
 * "inc.qinc" in a scratch directory on the include path, so ".include"
 * reads fuzzed text too. Whatever the input, the run must end (ASan and
 * UBSan watch it), succeed with no error diagnostic or fail with at least
 * one, give every diagnostic a file, a line and a message, and produce words
 * that the disassembler turns into lines assembling to the same words.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "qpu_asm.h"
#include "fuzz.h"
#include "qpu_disasm.h"

#define MAX_SOURCE	(64 * 1024)
#define CHECKED_WORDS	64

static char dir[] = "/tmp/qpu-fuzz-asm-XXXXXX";
static char inc_path[PATH_MAX];

static void cleanup(void)
{
	unlink(inc_path);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	if (!mkdtemp(dir)) {
		perror("fuzz-asm: mkdtemp");
		exit(1);
	}
	snprintf(inc_path, sizeof(inc_path), "%s/inc.qinc", dir);
	atexit(cleanup);
	return 0;
}

static void write_include(const uint8_t *data, size_t size)
{
	int fd = open(inc_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	FUZZ_CHECK(fd >= 0, "open %s: %s", inc_path, strerror(errno));
	while (size) {
		ssize_t n = write(fd, data, size);

		FUZZ_CHECK(n > 0, "write %s: %s", inc_path, strerror(errno));
		data += n;
		size -= (size_t)n;
	}
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t len = nul ? (size_t)(nul - data) : size;
	const struct qpu_asm_diag *diags;
	const uint64_t *words;
	struct qpu_asm *as;
	size_t nwords, ndiags, i, errors = 0;
	char *text;
	int ret;

	if (size > MAX_SOURCE)
		return 0;
	if (nul)
		write_include(nul + 1, size - len - 1);
	else
		unlink(inc_path);
	text = malloc(len + 1);
	FUZZ_CHECK(text, "out of memory");
	memcpy(text, data, len);
	text[len] = '\0';

	as = qpu_asm_new();
	FUZZ_CHECK(as, "qpu_asm_new");
	FUZZ_CHECK(!qpu_asm_add_include_dir(as, dir), "include dir");
	ret = qpu_asm_string(as, "fuzz.qasm", text);
	nwords = qpu_asm_words(as, &words);
	ndiags = qpu_asm_diags(as, &diags);
	for (i = 0; i < ndiags; i++) {
		FUZZ_CHECK(diags[i].file && diags[i].msg && diags[i].line >= 1 &&
			   diags[i].col >= 1, "diagnostic %zu incomplete", i);
		errors += !diags[i].warning;
	}
	FUZZ_CHECK(ret == 0 || ret == -EINVAL, "qpu_asm_string returned %d", ret);
	if (ret) {
		FUZZ_CHECK(errors, "failed without an error diagnostic");
		FUZZ_CHECK(!nwords, "failed with %zu words", nwords);
	} else {
		FUZZ_CHECK(!errors, "succeeded with %zu errors", errors);
		FUZZ_CHECK(nwords <= QPU_ASM_MAX_WORDS, "%zu words", nwords);
	}
	for (i = 0; i < nwords && i < CHECKED_WORDS; i++) {
		char line[QPU_DISASM_BUF_SIZE], msg[256];
		uint64_t back = ~words[i];

		qpu_disasm(words[i], 8 * (uint32_t)i, 0, line, sizeof(line));
		FUZZ_CHECK(!qpu_asm_line(line, &back, msg, sizeof(msg)) && back == words[i],
			   "word %zu 0x%016llx -> '%s' -> %s", i,
			   (unsigned long long)words[i], line, msg);
	}
	qpu_asm_free(as);

	/* the same text as one line, when it is one */
	if (!strchr(text, '\n')) {
		char msg[64];
		uint64_t w;

		memset(msg, 'x', sizeof(msg));
		if (qpu_asm_line(text, &w, msg, sizeof(msg)))
			FUZZ_CHECK(memchr(msg, 0, sizeof(msg)), "message not terminated");
	}
	free(text);
	return 0;
}
