// SPDX-License-Identifier: MIT
/* Many small blocks of one site, each followed by a large block of
 * another, read at random: the small blocks' page walks are most of all,
 * and they are spread over so many 2 MiB pages that huge pages for them
 * alone, where they lie, would not stop the walks (the model's what-if
 * says so, and the report gives no huge-page advice). */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4096, reads = argc > 2 ? atoi(argv[2]) : 200000;
	long **small = malloc((size_t)n * sizeof(*small));
	for (int i = 0; i < n; i++) {
		small[i] = malloc(24); /* @small */
		small[i][0] = i;
		void *spacer = malloc(64 << 10); /* @spacer: the next small block is 64 KiB on */
		__asm__ volatile("" : : "r"(spacer) : "memory");
	}
	unsigned x = 12345;
	long s = 0;
	for (int k = 0; k < reads; k++) {
		x = x * 1103515245u + 12345u;
		s += small[(x >> 8) % (unsigned)n][0];
	}
	printf("%d\n", s > 0);
	return 0;
}
