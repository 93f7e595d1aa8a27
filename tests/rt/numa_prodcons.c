// SPDX-License-Identifier: MIT
/* NUMA workload (tests/cli/test_numa.sh), run on a simulated 4x8 machine:
 * a producer pinned to CPU 0 (node 0) allocates and fills a 256 KiB buffer
 * (32,768 stores, so first touch puts its 64 pages on node 0); then a
 * consumer pinned to CPU 8 (node 1) through its thread attribute reads it 4
 * times (131,072 remote loads). Pattern: remote usage after allocation. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define WORDS 32768
#define ROUNDS 4

static volatile uint64_t *buf;
static uint64_t sum;

static void *producer(void *arg)
{
	(void)arg;
	cpu_set_t cs;
	CPU_ZERO(&cs);
	CPU_SET(0, &cs);
	if (pthread_setaffinity_np(pthread_self(), sizeof(cs), &cs))
		abort();
	buf = malloc(WORDS * sizeof(uint64_t)); /* @BUFFER */
	for (int i = 0; i < WORDS; i++)
		buf[i] = (uint64_t)i;
	return NULL;
}

static void *consumer(void *arg)
{
	(void)arg;
	uint64_t s = 0;
	for (int r = 0; r < ROUNDS; r++)
		for (int i = 0; i < WORDS; i++)
			s += buf[i];
	sum = s;
	return NULL;
}

int main(void)
{
	pthread_t p, c;
	if (pthread_create(&p, NULL, producer, NULL) || pthread_join(p, NULL))
		return 1;
	pthread_attr_t a;
	cpu_set_t cs;
	CPU_ZERO(&cs);
	CPU_SET(8, &cs); /* node 1 of a 4x8 machine: the host may not have it */
	pthread_attr_init(&a);
	if (pthread_attr_setaffinity_np(&a, sizeof(cs), &cs))
		return 2;
	if (pthread_create(&c, &a, consumer, NULL) || pthread_join(c, NULL))
		return 3;
	pthread_attr_destroy(&a);
	printf("%llu\n", (unsigned long long)sum);
	free((void *)buf);
	return 0;
}
