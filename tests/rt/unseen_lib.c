// SPDX-License-Identifier: MIT
/* A library built with plain gcc (no memprism cc), for unseen_main.c:
 * its loop's loads and stores are not in an inst trace, and nearly all
 * of the program's CPU time is spent in it. */
#include <stddef.h>

/* n passes of a dependent walk over a: each step's load decides the next */
unsigned long unseen_walk(const unsigned *a, size_t len, unsigned long n)
{
	unsigned long sum = 0;
	size_t i = 0;
	for (unsigned long k = 0; k < n; k++) {
		for (size_t j = 0; j < len; j++) {
			i = (i + a[i] + 1) % len;
			sum += i;
		}
	}
	return sum;
}
