// SPDX-License-Identifier: MIT
/*
 * The ORMBP paper's validation micro-benchmark (its Table II): five arrays
 * a0..a4, one thread each, touched with a 64-byte stride after a memset,
 * inside the region of interest "kernel":
 *   a0 all reads forward            a1 3/4 reads then 1/4 writes, forward
 *   a2 1/2 reads then 1/2 writes    a3 1/4 reads then 3/4 writes, backward
 *   a4 all writes, backward
 * With 256 MiB arrays each array sees exactly 4,194,304 accesses.
 * Usage: arrays [MiB per array, default 256]
 */
#include <memprism.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NARRAYS 5
#define STRIDE 64

struct job {
	char *a;
	size_t n; /* accesses: bytes / STRIDE */
	int reads_quarters; /* how many quarters are reads (rest are writes) */
	int backward;
	long sink;
};

static void *run(void *arg)
{
	struct job *j = arg;
	/* Locals, not j->...: the volatile stores below may alias *j (char
	 * aliases everything), so field reads would be redone every iteration
	 * and show up as accesses to main's stack. */
	char *const a = j->a;
	const size_t n = j->n, nreads = n / 4 * (size_t)j->reads_quarters;
	const int backward = j->backward;
	long sum = 0;
	for (size_t k = 0; k < n; k++) {
		size_t i = backward ? n - 1 - k : k;
		volatile char *p = a + i * STRIDE;
		if (k < nreads)
			sum += *p;
		else
			*p = (char)k;
	}
	j->sink = sum;
	return NULL;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 256;
	if (mib == 0) {
		fprintf(stderr, "usage: arrays [MiB per array, > 0]\n");
		return 2;
	}
	size_t bytes = mib << 20;
	struct job jobs[NARRAYS];
	static const int quarters[NARRAYS] = { 4, 3, 2, 1, 0 };
	/* One allocation site per array, so each is its own object. */
	char *a0 = malloc(bytes);
	char *a1 = malloc(bytes);
	char *a2 = malloc(bytes);
	char *a3 = malloc(bytes);
	char *a4 = malloc(bytes);
	char *arrays[NARRAYS] = { a0, a1, a2, a3, a4 };
	for (int i = 0; i < NARRAYS; i++)
		if (!arrays[i]) {
			perror("malloc");
			return 1;
		}
	/* Last array first: what the memsets leave in the caches is a0's tail,
	 * which a0 (forward) reaches last, long after its own reads evicted it.
	 * Memset in order, a4's tail would be cached and a4 (backward) would
	 * hit it whenever its thread happened to run first. */
	for (int i = NARRAYS - 1; i >= 0; i--)
		memset(arrays[i], 1, bytes);

	memprism_region_begin("kernel");
	pthread_t th[NARRAYS];
	for (int i = 0; i < NARRAYS; i++) {
		jobs[i] = (struct job){ arrays[i], bytes / STRIDE, quarters[i], i >= 3, 0 };
		if (pthread_create(&th[i], NULL, run, &jobs[i]) != 0) {
			perror("pthread_create");
			return 1;
		}
	}
	for (int i = 0; i < NARRAYS; i++)
		pthread_join(th[i], NULL);
	memprism_region_end("kernel");

	long total = 0;
	for (int i = 0; i < NARRAYS; i++)
		total += jobs[i].sink;
	printf("arrays: %zu MiB x %d, checksum %ld\n", mib, NARRAYS, total);
	for (int i = 0; i < NARRAYS; i++)
		free(arrays[i]);
	return 0;
}
