// SPDX-License-Identifier: MIT
/*
 * Atomics under gcc's ThreadSanitizer instrumentation (tests/cli/test_gcc.sh):
 * THREADS threads each add 1 to a shared counter N times with
 * atomic_fetch_add, and once a compare-and-swap on a flag; the counter must
 * end at THREADS x N (the runtime's atomics must be atomic), and each
 * fetch_add is a load and a store of the counter. The main thread then
 * loads it once.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 4

static _Atomic long counter; /* @COUNTER */
static _Atomic int flag;
static long n;

static void *work(void *arg)
{
	(void)arg;
	for (long i = 0; i < n; i++)
		atomic_fetch_add(&counter, 1);
	int zero = 0;
	atomic_compare_exchange_strong(&flag, &zero, 1);
	return NULL;
}

int main(int argc, char **argv)
{
	n = argc > 1 ? atol(argv[1]) : 100000;
	pthread_t th[THREADS];
	for (int i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, work, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	long got = atomic_load(&counter);
	printf("counter %ld flag %d\n", got, atomic_load(&flag));
	return got == THREADS * n ? 0 : 1;
}
