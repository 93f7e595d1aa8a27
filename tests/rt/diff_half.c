// SPDX-License-Identifier: MIT
/*
 * diff_half: two arrays of N ints at two sites, through volatile pointers:
 *   A (@A): N stores, then N loads
 *   B (@B): N stores, then N / DIV loads (DIV 1, or -DDIV=2: half)
 * Prints the sum of what it loaded. tests/cli/test_diff.sh builds it twice,
 * the second time with DIV 2 and a line added above the sites.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef DIV
#define DIV 1
#endif
#define N 100000

int main(void)
{
	volatile int *a = malloc(N * sizeof(int)); /* @A */
	volatile int *b = malloc(N * sizeof(int)); /* @B */
	if (!a || !b)
		return 1;
	for (int i = 0; i < N; i++) {
		a[i] = i;
		b[i] = i;
	}
	long sum = 0;
	for (int i = 0; i < N; i++)
		sum += a[i];
	for (int i = 0; i < N / DIV; i++)
		sum += b[i];
	printf("%ld\n", sum);
	free((void *)a);
	free((void *)b);
	return 0;
}
