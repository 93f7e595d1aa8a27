// SPDX-License-Identifier: MIT
/*
 * Accesses made inside a shared library: libc's qsort sorts a heap array
 * (@ARR) of N ints, filled outside the region, with the program's
 * comparator, inside region "sort". The comparator loads the two elements
 * it is given and counts its calls in a static (`calls`, one load and one
 * store per call); qsort's own loads and stores of the array (and of the
 * scratch block it may take) happen in libc. Prints "calls C sorted".
 *
 * Under `memprism cc` only the comparator is instrumented: the array row
 * has exactly 2C loads and no store. Under record --source valgrind qsort's
 * own accesses are the array's too, and libc's functions appear in the
 * function view.
 */
#include <memprism.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1000

static long calls;

static int cmp(const void *a, const void *b)
{
	calls++;
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

int main(void)
{
	int *arr = malloc(N * sizeof(int)); /* @ARR */
	if (!arr)
		return 1;
	unsigned v = 12345;
	for (int i = 0; i < N; i++) {
		v = v * 1103515245u + 12345u;
		arr[i] = (int)(v >> 8);
	}
	memprism_region_begin("sort");
	qsort(arr, N, sizeof(int), cmp);
	memprism_region_end("sort");
	for (int i = 1; i < N; i++)
		if (arr[i - 1] > arr[i]) {
			printf("not sorted\n");
			return 1;
		}
	printf("calls %ld sorted\n", calls);
	free(arr);
	return 0;
}
