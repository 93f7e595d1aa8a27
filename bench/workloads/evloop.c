// SPDX-License-Identifier: MIT
/*
 * evloop: a CPU-bound loop over one small (4 KiB, cache-resident) array,
 * one 4-byte load and one 4-byte store per iteration:
 *     a[i & 1023] = a[i & 1023] * 3 + 1
 * This is the worst case for access tracing: almost no work per access.
 * The array is a global (a static object, not a heap block). Deterministic;
 * prints a checksum so the loop is not optimized away.
 * The default (800M iterations, ~0.4 s natively on a 2-core Xeon VM) was
 * tuned up from 200M, which ran in only ~0.1 s there (clang unrolls the loop
 * to ~0.5 ns per iteration).
 * Usage: evloop [iterations, default 800000000]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int a[1024];

int main(int argc, char **argv)
{
	unsigned long long iters = argc > 1 ? strtoull(argv[1], NULL, 10) : 800000000ULL;
	for (int i = 0; i < 1024; i++)
		a[i] = i;
	for (unsigned long long i = 0; i < iters; i++)
		a[i & 1023] = a[i & 1023] * 3 + 1;
	uint32_t sum = 0;
	for (int i = 0; i < 1024; i++)
		sum = sum * 31 + (uint32_t)a[i];
	printf("evloop: %llu iterations, checksum %u\n", iters, sum);
	return 0;
}
