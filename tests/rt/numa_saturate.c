// SPDX-License-Identifier: MIT
/* NUMA workload (tests/cli/test_numa.sh) on a simulated 4x8 machine: the
 * main thread (node 0) makes and fills two 64 KiB tables (their pages on
 * node 0); three workers, placed round-robin on nodes 1, 2 and 3, start
 * together and read both once: 3 x 2 x 8,192 = 49,152 remote reads, all to
 * node 0. Patterns: each table is read concurrently (replicate), and node 0
 * is saturated: both tables' remote traffic converges on it. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define WORDS 8192
#define THREADS 3

static volatile uint64_t *keys, *values;
static pthread_barrier_t start, done;
static uint64_t sums[THREADS];

static void *worker(void *arg)
{
	uint64_t s = 0;
	pthread_barrier_wait(&start);
	for (int i = 0; i < WORDS; i++)
		s += keys[i] + values[i];
	pthread_barrier_wait(&done);
	sums[(intptr_t)arg] = s;
	return NULL;
}

int main(void)
{
	keys = malloc(WORDS * sizeof(uint64_t)); /* @KEYS */
	values = malloc(WORDS * sizeof(uint64_t)); /* @VALUES */
	for (int i = 0; i < WORDS; i++) {
		keys[i] = (uint64_t)i;
		values[i] = (uint64_t)i * 3;
	}
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
