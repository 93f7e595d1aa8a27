// SPDX-License-Identifier: MIT
/*
 * Sampling across events (tests/cli/test_sampling.sh): 2,000 rounds of
 * malloc(4096), 1,024 int stores and 1,024 int loads, free. With bursts
 * shorter than a round, allocations and frees fall inside skips and inside
 * bursts: every recorded access must still belong to the block (none
 * unknown), and recorded + skipped must be all 4,096,000 accesses plus the
 * few outside the loop.
 */
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 2000
#define INTS 1024

__attribute__((noinline)) static long round_trip(int *p, int r)
{
	for (int i = 0; i < INTS; i++)
		p[i] = i ^ r;
	long s = 0;
	for (int i = 0; i < INTS; i++)
		s += p[i];
	return s;
}

int main(void)
{
	long s = 0;
	for (int r = 0; r < ROUNDS; r++) {
		int *p = malloc(INTS * sizeof(int));
		if (!p)
			return 1;
		s += round_trip(p, r);
		free(p);
	}
	printf("%ld\n", s);
	return 0;
}
