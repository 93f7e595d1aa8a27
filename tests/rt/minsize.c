// SPDX-License-Identifier: MIT
/* record --min-size: NSMALL 32-byte blocks (one store each) and one 1 MiB
 * block (NBIG stores) inside region "work". With --min-size 4096 only the big
 * block is an object; the small blocks' stores count as the heap mapping. */
#include <memprism.h>
#include <stdio.h>
#include <stdlib.h>

#define NSMALL 1000
#define NBIG 5000

int main(void)
{
	static volatile long *small[NSMALL];
	memprism_region_begin("work");
	for (int i = 0; i < NSMALL; i++) {
		small[i] = malloc(32); /* @SMALL */
		small[i][0] = i;
	}
	volatile long *big = malloc(1 << 20); /* @BIG */
	for (int i = 0; i < NBIG; i++)
		big[i] = i;
	memprism_region_end("work");
	long sum = big[NBIG - 1];
	for (int i = 0; i < NSMALL; i++) {
		sum += small[i][0];
		free((void *)small[i]);
	}
	free((void *)big);
	printf("%ld\n", sum);
	return 0;
}
