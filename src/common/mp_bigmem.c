// SPDX-License-Identifier: MIT
#include "common/mp_bigmem.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

void *mp_big_alloc(size_t len)
{
	const size_t huge = 2u << 20, line = 64;
	size_t align = len < huge ? line : huge;
	if (len > SIZE_MAX - align)
		return NULL;
	/* (aligned_alloc wants a multiple of the alignment) */
	len = len ? (len + align - 1) & ~(align - 1) : align;
	void *p = aligned_alloc(align, len);
	if (p && align == huge)
		madvise(p, len, MADV_HUGEPAGE); /* a hint: without THP, 4 KiB pages */
	return p;
}
