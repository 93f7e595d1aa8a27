// SPDX-License-Identifier: MIT
/* Thread-local variables: NT threads each store K times into their own
 * copy of tl_counter and read tl_table once per element; main touches its
 * own copy J times. Each variable is one row with one instance per thread. */
#include <memprism.h>
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define K 1000
#define J 7

__thread long tl_counter;
static __thread int tl_table[64] = { 1 };

static void *work(void *arg)
{
	volatile long *c = &tl_counter;
	volatile int *t = tl_table;
	long sum = 0;
	for (int i = 0; i < K; i++)
		*c = i;
	for (int i = 0; i < 64; i++)
		sum += t[i];
	return (void *)sum;
}

int main(void)
{
	pthread_t th[NT];
	memprism_region_begin("work");
	volatile long *c = &tl_counter;
	for (int i = 0; i < J; i++)
		*c = i;
	for (int i = 0; i < NT; i++)
		pthread_create(&th[i], NULL, work, NULL);
	long total = 0;
	for (int i = 0; i < NT; i++) {
		void *r;
		pthread_join(th[i], &r);
		total += (long)r;
	}
	memprism_region_end("work");
	printf("tls %ld\n", total);
	return 0;
}
