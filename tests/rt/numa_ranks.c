// SPDX-License-Identifier: MIT
/*
 * numa_ranks: a process of a job (its rank from PMI_RANK, as MPICH's and
 * Hydra's launchers set it; 0 without) whose work is known exactly and
 * depends on the rank. Rank r allocates N(r) = 1000 * (r + 1) ints at @A
 * and stores each once from the main thread, which touches every page of
 * them first; then one more thread loads each r + 1 times:
 *   @A of rank r: N(r) stores by the main thread,
 *                 (r + 1) * N(r) loads by the second thread
 * On a simulated 2-node machine with threads spread (the main thread on
 * node 0, the second on node 1) and pages placed by first touch, every
 * load is remote and every store local.
 */
#include <pthread.h>
#include <stdlib.h>

static volatile int *a;
static long n, reps;

static void *reader(void *arg)
{
	long s = 0;
	for (long k = 0; k < reps; k++)
		for (long i = 0; i < n; i++)
			s += a[i];
	return (char *)arg + s;
}

int main(void)
{
	const char *e = getenv("PMI_RANK");
	int r = e ? atoi(e) : 0;
	n = 1000L * (r + 1);
	reps = r + 1;
	a = malloc((size_t)n * sizeof(int)); /* @A */
	if (!a)
		return 1;
	for (long i = 0; i < n; i++)
		a[i] = (int)i;
	pthread_t t;
	if (pthread_create(&t, NULL, reader, NULL))
		return 1;
	pthread_join(t, NULL);
	free((void *)a);
	return 0;
}
