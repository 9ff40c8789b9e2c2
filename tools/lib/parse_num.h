/* SPDX-License-Identifier: MIT */
/*
 * Numbers on the tools' command lines (parse_num.c): one strict reading,
 * so that "abc", "-1", "12x" or a number out of range is refused rather
 * than read as 0 or as the largest value.
 */
#ifndef QPU_TOOLS_PARSE_NUM_H
#define QPU_TOOLS_PARSE_NUM_H

#include <stdbool.h>
#include <stdint.h>

/*
 * @s as an unsigned number in C notation (decimal, 0x hex, 0 octal)
 * between @min and @max into *@v. False, *@v untouched, for an empty
 * string, a sign, leading blanks, trailing characters or a value out of
 * range.
 */
bool parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *v);

#endif /* QPU_TOOLS_PARSE_NUM_H */
