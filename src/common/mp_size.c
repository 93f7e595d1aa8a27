// SPDX-License-Identifier: MIT
/* Byte sizes with K, M, G suffixes (mp_size.h). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

#include "common/mp_size.h"

int mp_parse_size(const char *v, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	if (end == v || errno || *v == '-')
		return -1;
	uint64_t mul = 1;
	switch (toupper((unsigned char)*end)) {
	case 'K':
		mul = 1ull << 10;
		end++;
		break;
	case 'M':
		mul = 1ull << 20;
		end++;
		break;
	case 'G':
		mul = 1ull << 30;
		end++;
		break;
	default:
		break;
	}
	if (*end == 'i' || *end == 'I')
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || n > UINT64_MAX / mul)
		return -1;
	*out = n * mul;
	return 0;
}
