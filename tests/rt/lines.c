// SPDX-License-Identifier: MIT
/* Three loops on three lines over two arrays: each line's accesses are
 * known exactly (built at -O1: no vectorization). */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	long *a = malloc((size_t)n * sizeof(*a)); /* @a */
	long *b = malloc((size_t)n * sizeof(*b)); /* @b */
	for (long i = 0; i < n; i++)
		a[i] = i; /* @fill */
	for (long i = 0; i < n; i++)
		b[i] = a[i] * 2; /* @copy */
	long s = 0;
	for (long i = 0; i < n; i++)
		s += b[i]; /* @sum */
	printf("%ld\n", s);
	return 0;
}
