// SPDX-License-Identifier: MIT
/*
 * Big linear-probing tables of the analysis (translations, the model's
 * page rows and owners, NUMA placement): allocated with their pages
 * written up front, and grown by rehashing into a new one.
 */
#include <stdint.h>
#include <string.h>

#include "analysis/an_int.h"
#include "common/mp_bigmem.h"

void *an_table_calloc(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	/* Written now, not calloc'd: a big calloc is fresh mmap'd memory,
	 * whose probes map the shared zero page, and each page's first store
	 * then takes a copy-on-write fault that flushes the other threads'
	 * TLBs (the symbol loader's): 4% of a bounded arrays report, by perf. */
	void *p = mp_big_alloc(n * size);
	if (p)
		memset(p, 0, n * size);
	return p;
}

void *an_table_regrow(const void *tab, size_t cap, size_t ncap, size_t size, size_t (*home)(const void *e, size_t cap),
		      int (*used)(const void *e))
{
	uint8_t *nt = an_table_calloc(ncap, size);
	if (!nt)
		return NULL;
	const uint8_t *old = tab;
	for (size_t j = 0; j < cap; j++) {
		const void *e = old + j * size;
		if (!used(e))
			continue;
		size_t i = home(e, ncap);
		while (used(nt + i * size))
			i = (i + 1) & (ncap - 1);
		memcpy(nt + i * size, e, size);
	}
	return nt;
}
