// SPDX-License-Identifier: MIT
/* A memprism cc program whose CPU time is almost all inside a library of
 * plain gcc code (unseen_lib.c, linked as libunseen.so): it fills a heap
 * array, then has the library walk it argv[1] times (default 4000). */
#include <stdio.h>
#include <stdlib.h>

unsigned long unseen_walk(const unsigned *a, size_t len, unsigned long n);

int main(int argc, char **argv)
{
	enum { LEN = 1 << 14 };
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 4000;
	unsigned *a = malloc(LEN * sizeof(*a)); /* @ARRAY */
	if (!a)
		return 1;
	for (unsigned i = 0; i < LEN; i++)
		a[i] = i * 2654435761u % LEN;
	printf("walked: %lu\n", unseen_walk(a, LEN, n));
	free(a);
	return 0;
}
