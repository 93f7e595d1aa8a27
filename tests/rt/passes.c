// SPDX-License-Identifier: MIT
/*
 * The model's findings (report --model, "what to change"): an array of N
 * 4 KiB pages (default 2048: 8 MiB), set once, then read in region
 * "passes" P times (default 3), one 8-byte word of each 64-byte line; then,
 * in region "pages", the first word of each page, P + 1 times over; then,
 * in region "fill", every word written once, in order.
 * Usage: passes [N pages] [P passes]
 */
#include <memprism.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 2048;
	unsigned passes = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 3;
	size_t words = n * 4096 / 8;
	volatile uint64_t *a = aligned_alloc(2u << 20, (n * 4096 + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1));
	if (!a || n == 0) {
		fprintf(stderr, "passes: bad size or no memory\n");
		return 1;
	}
	memset((void *)a, 1, n * 4096);
	uint64_t sum = 0;
	memprism_region_begin("passes");
	for (unsigned p = 0; p < passes; p++)
		for (size_t i = 0; i < words; i += 8)
			sum += a[i];
	memprism_region_end("passes");
	memprism_region_begin("pages");
	for (unsigned p = 0; p <= passes; p++)
		for (size_t i = 0; i < words; i += 512)
			sum += a[i];
	memprism_region_end("pages");
	memprism_region_begin("fill");
	for (size_t i = 0; i < words; i++)
		a[i] = i;
	memprism_region_end("fill");
	printf("passes: %zu pages, %u passes, sum %llu\n", n, passes, (unsigned long long)sum);
	return 0;
}
