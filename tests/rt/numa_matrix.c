// SPDX-License-Identifier: MIT
/* NUMA workload (tests/cli/test_numa.sh) on a simulated 4x8 machine: the
 * main thread (node 0) makes and fills a 64 KiB matrix (8,192 stores: its
 * pages on node 0); four workers, placed round-robin by default on nodes 1,
 * 2, 3 and 0, start together at a barrier and read all of it twice (65,536
 * loads), then meet at a barrier again. The workers on nodes 1-3 make
 * 3 x 16,384 = 49,152 remote reads of 73,728 accesses. Pattern: concurrent
 * remote reads of a read-only object: replicate it per node. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define WORDS 8192
#define THREADS 4
#define ROUNDS 2

static volatile uint64_t *matrix;
static pthread_barrier_t start, done;
static uint64_t sums[THREADS];

static void *worker(void *arg)
{
	int me = (int)(intptr_t)arg;
	uint64_t s = 0;
	pthread_barrier_wait(&start);
	for (int r = 0; r < ROUNDS; r++)
		for (int i = 0; i < WORDS; i++)
			s += matrix[i];
	pthread_barrier_wait(&done);
	sums[me] = s;
	return NULL;
}

int main(void)
{
	matrix = malloc(WORDS * sizeof(uint64_t)); /* @MATRIX */
	for (int i = 0; i < WORDS; i++)
		matrix[i] = (uint64_t)i;
	pthread_barrier_init(&start, NULL, THREADS);
	pthread_barrier_init(&done, NULL, THREADS);
	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i))
			return 1;
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	printf("%llu\n", (unsigned long long)sums[0]);
	return 0;
}
