// SPDX-License-Identifier: MIT
/* An allocation after a loop in a function that has a passive copy: under
 * link-time optimization its site must keep its line. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	long *a = malloc((size_t)n * sizeof(*a)); /* site: first */
	for (long i = 0; i < n; i++)
		a[i] = i;
	long *b = malloc((size_t)n * sizeof(*b)); /* site: after the loop */
	for (long i = 0; i < n; i++)
		b[i] = a[n - 1 - i] * 3;
	long s = 0;
	for (long i = 0; i < n; i++)
		s += b[i];
	printf("%ld\n", s); /* site: stdout's buffer, after the loops */
	free(b);
	free(a);
	return 0;
}
