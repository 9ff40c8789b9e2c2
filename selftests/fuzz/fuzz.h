/* SPDX-License-Identifier: MIT */
/*
 * What every harness in selftests/fuzz/ provides and may use: the libFuzzer
 * entry points (the same functions driver.c calls when libFuzzer is not
 * there) and FUZZ_CHECK(), which reports a broken invariant and aborts so
 * that either engine records the input.
 */
#ifndef QPU_FUZZ_H
#define QPU_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FUZZ_CHECK(cond, ...) do {					\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: invariant broken: %s: ",	\
			__FILE__, __LINE__, #cond);			\
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
		abort();						\
	}								\
} while (0)

#endif /* QPU_FUZZ_H */
