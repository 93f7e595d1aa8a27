// SPDX-License-Identifier: MIT
/* One allocation site whose blocks lie in two places far apart: 64 KiB
 * blocks from the brk heap and 1 MiB blocks that malloc maps (over its
 * mmap threshold), each written once. */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	long *b[8];
	for (int i = 0; i < 8; i++)
		b[i] = malloc(i % 2 ? 1 << 20 : 64 << 10); /* @site */
	long s = 0;
	for (int i = 0; i < 8; i++) {
		size_t n = (i % 2 ? 1 << 20 : 64 << 10) / sizeof(long);
		for (size_t k = 0; k < n; k++)
			b[i][k] = (long)k;
		s += b[i][n - 1];
	}
	printf("%ld\n", s);
	return 0;
}
