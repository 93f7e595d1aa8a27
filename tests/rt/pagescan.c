// SPDX-License-Identifier: MIT
/*
 * The PTAT paper's verification workloads (its section 5): inside region "scan",
 * read the first byte of each 4 KiB page of an N-page block, in order; inside
 * region "random", make R random 8-byte reads of the same block. The block
 * is 2 MiB aligned so that modelled 2 MiB pages cover it exactly.
 * Usage: pagescan [N pages, default 32768] [R reads, default 1000000]
 */
#include <memprism.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 32768;
	size_t reads = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000000;
	size_t bytes = n * 4096;
	volatile char *block = aligned_alloc(2u << 20, (bytes + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1));
	if (!block || n == 0) {
		fprintf(stderr, "pagescan: bad size or no memory\n");
		return 1;
	}
	long sum = 0;
	memprism_region_begin("scan");
	for (size_t p = 0; p < n; p++)
		sum += block[p * 4096];
	memprism_region_end("scan");
	uint64_t x = 88172645463325252ull;
	memprism_region_begin("random");
	for (size_t i = 0; i < reads; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		sum += *(volatile uint64_t *)(block + (x % (bytes / 8)) * 8);
	}
	memprism_region_end("random");
	printf("pagescan: %zu pages, %zu reads, sum %ld\n", n, reads, sum);
	return 0;
}
