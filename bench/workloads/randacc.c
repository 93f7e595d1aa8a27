// SPDX-License-Identifier: MIT
/*
 * randacc: random 8-byte read-modify-write updates into one big table
 * (GUPS-like). The table is malloc'd and memset first, then `updates`
 * times: pick a slot with a fixed-seed xorshift64 generator and do
 * t[idx] += x (exactly one 8-byte load and one 8-byte store per update).
 * Deterministic; prints a checksum so the work is not optimized away.
 * Usage: randacc [table MiB, default 256] [updates, default 20000000]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static inline uint64_t xorshift64(void)
{
	uint64_t x = rng;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng = x;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 256;
	size_t updates = argc > 2 ? strtoul(argv[2], NULL, 10) : 20000000;
	if (mib == 0) {
		fprintf(stderr, "usage: randacc [table MiB > 0] [updates]\n");
		return 2;
	}
	size_t n = (mib << 20) / sizeof(uint64_t);
	uint64_t *t = malloc(n * sizeof(uint64_t));
	if (!t) {
		perror("malloc");
		return 1;
	}
	memset(t, 0, n * sizeof(uint64_t));

	/* Power-of-two tables (the default) use a mask, others a modulo. */
	int pow2 = (n & (n - 1)) == 0;
	uint64_t sum = 0;
	for (size_t k = 0; k < updates; k++) {
		uint64_t r = xorshift64();
		size_t idx = pow2 ? (size_t)(r & (n - 1)) : (size_t)(r % n);
		uint64_t v = t[idx] + (r >> 32); /* one load */
		t[idx] = v; /* one store */
		sum += v;
	}
	printf("randacc: %zu MiB, %zu updates, checksum %llu\n", mib, updates,
	       (unsigned long long)sum);
	free(t);
	return 0;
}
