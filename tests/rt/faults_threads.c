// SPDX-License-Identifier: MIT
/* record --source faults: main allocates a page-aligned block of 2 x HALF
 * pages and touches none of it; two threads each first-touch their half
 * (one write per page) and print their tid. First-touch placement: the
 * block's pages must be split exactly HALF / HALF between the two tids. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define HALF 64
#define PAGE 4096

static volatile char *block;
static long tids[2];

static void *worker(void *arg)
{
	long k = (long)arg;
	tids[k] = syscall(SYS_gettid);
	for (int i = 0; i < HALF; i++)
		block[((size_t)k * HALF + (size_t)i) * PAGE] = (char)k;
	return NULL;
}

int main(void)
{
	block = aligned_alloc(PAGE, 2 * HALF * PAGE); /* @BLOCK */
	if (!block)
		return 1;
	madvise((void *)block, 2 * HALF * PAGE, MADV_NOHUGEPAGE);
	pthread_t t[2];
	/* one after the other: the halves never race, the test stays exact */
	for (long k = 0; k < 2; k++) {
		pthread_create(&t[k], NULL, worker, (void *)k);
		pthread_join(t[k], NULL);
	}
	printf("%ld %ld\n", tids[0], tids[1]);
	free((void *)block);
	return 0;
}
