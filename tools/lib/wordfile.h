/* SPDX-License-Identifier: MIT */
/*
 * The tools' code-file reader (wordfile.c, in libqpu-tools.a): QPU code as raw
 * little-endian 64-bit words or GPU_FFT-style hex text. Used by the tools
 * that take code as input (qpu-dis, qpu-check, qpu-run).
 */
#ifndef QPU_TOOLS_WORDFILE_H
#define QPU_TOOLS_WORDFILE_H

#include <stddef.h>
#include <stdint.h>

enum qpu_wordfile_format {
	QPU_WORDFILE_AUTO,	/* hex if the text looks like it, else binary */
	QPU_WORDFILE_HEX,	/* "0xLOW, 0xHIGH," with // or # comments */
	QPU_WORDFILE_BINARY,	/* little-endian 64-bit words */
};

/*
 * Read @path (NULL or "-": standard input) into a new array in *@words
 * (free() it) of *@n words. Return 0; -EINVAL for malformed input, with
 * a message such as "line 2: odd number of 32-bit words" in @err; -ENOMEM;
 * or the -errno of a failed open or read, with strerror() in @err.
 */
int qpu_wordfile_read(const char *path, enum qpu_wordfile_format format,
		      uint64_t **words, size_t *n, char *err, size_t err_size);

#endif /* QPU_TOOLS_WORDFILE_H */
