// SPDX-License-Identifier: MIT
/* parse_u64() of parse_num.h. */

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

#include "parse_num.h"

bool parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	unsigned long long n;
	char *end;

	/* strtoull() skips blanks and takes a sign: neither is a number here */
	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	n = strtoull(s, &end, 0);
	if (errno || *end || n < min || n > max)
		return false;
	*v = n;
	return true;
}
