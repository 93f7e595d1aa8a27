// SPDX-License-Identifier: MIT
/* NUMA control workload (tests/cli/test_numa.sh) on a simulated 4x8
 * machine: four workers, placed round-robin on nodes 1, 2, 3 and 0, each
 * allocate, fill and read back their own 64 KiB buffer (8,192 stores and
 * 16,384 loads): every page is first touched by its only user, so all
 * 98,304 buffer accesses are local and nothing is reported. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define WORDS 8192
#define THREADS 4

static uint64_t sums[THREADS];
static pthread_barrier_t done;

static void *worker(void *arg)
{
	volatile uint64_t *mine = malloc(WORDS * sizeof(uint64_t)); /* @BUFFER */
	uint64_t s = 0;
	for (int i = 0; i < WORDS; i++)
		mine[i] = (uint64_t)i;
	for (int r = 0; r < 2; r++)
		for (int i = 0; i < WORDS; i++)
			s += mine[i];
	sums[(intptr_t)arg] = s;
	/* free only when all are done: a buffer freed early could be handed to
	 * the next thread with its pages still on the first one's node */
	pthread_barrier_wait(&done);
	free((void *)mine);
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	pthread_barrier_init(&done, NULL, THREADS);
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i))
			return 1;
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	printf("%llu\n", (unsigned long long)sums[3]);
	return 0;
}
