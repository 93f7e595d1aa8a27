// SPDX-License-Identifier: MIT
/*
 * Two page-walk findings checked together (report --model): table A of N
 * 4 KiB pages and table B of N/2, each 2 MiB-aligned and set once; then,
 * in region "pages", R rounds of reading the first word of each page of A
 * and, beside the first N/2 of them, of B's. With "fork", the tables set,
 * a child is forked and both processes read them so (the child first).
 * Usage: two_tables [N pages] [R rounds] [fork]
 */
#include <memprism.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile uint64_t *table(size_t pages)
{
	size_t bytes = (pages * 4096 + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1);
	volatile uint64_t *t = aligned_alloc(2u << 20, bytes);
	if (t)
		memset((void *)t, 1, pages * 4096);
	return t;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 2048;
	unsigned rounds = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 2;
	volatile uint64_t *a = n >= 2 ? table(n) : NULL; /* @A */
	volatile uint64_t *b = n >= 2 ? table(n / 2) : NULL; /* @B */
	if (!a || !b) {
		fprintf(stderr, "two_tables: bad size or no memory\n");
		return 1;
	}
	pid_t child = -1;
	if (argc > 3 && !strcmp(argv[3], "fork") && (child = fork()) < 0) {
		perror("two_tables: fork");
		return 1;
	}
	if (child > 0 && waitpid(child, NULL, 0) != child)
		return 1;
	uint64_t sum = 0;
	memprism_region_begin("pages");
	for (unsigned r = 0; r < rounds; r++)
		for (size_t p = 0; p < n; p++) {
			sum += a[p * 512];
			if (p < n / 2)
				sum += b[p * 512];
		}
	memprism_region_end("pages");
	printf("two_tables: %zu and %zu pages, %u rounds, sum %llu\n", n, n / 2, rounds, (unsigned long long)sum);
	return 0;
}
