// SPDX-License-Identifier: MIT
/* NUMA workload (tests/cli/test_numa.sh) on a simulated 4x8 machine: the
 * main thread (node 0) carves four per-thread parts of 6,000 bytes (750
 * words) out of one page-aligned 24,000-byte arena and clears it with
 * memset (first touch: its 6 pages on node 0); four workers, placed
 * round-robin on nodes 1, 2, 3 and 0, each read and write only their own part
 * 4 times (6,000 accesses each). The part boundaries (6,000, 12,000 and
 * 18,000 bytes) fall inside pages, so 3 pages hold two threads' parts. The
 * workers on nodes 1-3 make 18,000 remote accesses of 24,002 (the memset is
 * one access, and main reads the result). Pattern: thread-private parts sharing pages: allocate them
 * locally. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PART 750 /* words */
#define THREADS 4
#define ROUNDS 4

static uint64_t *arena;

static void *worker(void *arg)
{
	volatile uint64_t *mine = arena + (intptr_t)arg * PART;
	for (int r = 0; r < ROUNDS; r++)
		for (int i = 0; i < PART; i++)
			mine[i] = mine[i] + (uint64_t)i;
	return NULL;
}

int main(void)
{
	void *p;
	if (posix_memalign(&p, 4096, THREADS * PART * sizeof(uint64_t))) /* @ARENA */
		return 1;
	arena = p;
	memset(arena, 0, THREADS * PART * sizeof(uint64_t));
	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i))
			return 1;
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	printf("%llu\n", (unsigned long long)arena[PART - 1]);
	free(arena);
	return 0;
}
