// SPDX-License-Identifier: MIT
/* record --source faults: one page-aligned block of NPAGES pages, first
 * touched by a write to each page, from the main thread. The block's pages
 * are touched by nobody else (page alignment keeps malloc's header on the
 * page before it; MADV_NOHUGEPAGE keeps THP=always from mapping it with one
 * fault), so its row must show exactly NPAGES faults and NPAGES pages.
 * Exits with status 3 so the test sees the status preserved. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define NPAGES 100
#define PAGE 4096

int main(void)
{
	volatile char *block = aligned_alloc(PAGE, NPAGES * PAGE); /* @BLOCK */
	if (!block)
		return 1;
	madvise((void *)block, NPAGES * PAGE, MADV_NOHUGEPAGE);
	for (int i = 0; i < NPAGES; i++)
		block[(size_t)i * PAGE] = 1;
	long sum = 0;
	for (int i = 0; i < NPAGES; i++) /* second touches: no new fault */
		sum += block[(size_t)i * PAGE + 1];
	printf("touched %d pages (%ld)\n", NPAGES, sum);
	free((void *)block);
	return 3;
}
