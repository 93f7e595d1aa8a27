// SPDX-License-Identifier: MIT
/* A loop whose iterations are known: region "iter" first reads array A
 * (8192 8-byte elements, forward) then writes array B (8192 elements), 50
 * times. Folded, phase [0, 0.5) holds A and [0.5, 1) holds B, and the
 * offset inside each grows linearly with the phase. */
#include <memprism.h>
#include <stdio.h>
#include <stdlib.h>

#define N 8192
#define ITERS 50

int main(void)
{
	long *a = malloc(N * sizeof(long)); /* A */
	long *b = malloc(N * sizeof(long)); /* B */
	if (!a || !b)
		return 1;
	for (int i = 0; i < N; i++) /* outside the region */
		a[i] = i;
	long sum = 0;
	for (int it = 0; it < ITERS; it++) {
		memprism_region_begin("iter");
		/* volatile: one 8-byte access per element, no vectorizing */
		for (int i = 0; i < N; i++)
			sum += ((volatile long *)a)[i];
		for (int i = 0; i < N; i++)
			((volatile long *)b)[i] = sum + i;
		memprism_region_end("iter");
	}
	printf("fold: %ld\n", sum);
	free(a);
	free(b);
	return 0;
}
