// SPDX-License-Identifier: MIT
/* Thousands of threads: NT threads in waves of WAVE, each allocating one
 * block at one site and storing into it exactly K times. */
#include <memprism.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NT 2000
#define WAVE 200
#define K 100

static void *work(void *arg)
{
	volatile long *b = malloc(K * sizeof(long)); /* @SITE */
	if (!b)
		return arg;
	for (int i = 0; i < K; i++)
		b[i] = i;
	free((void *)b);
	return NULL;
}

int main(void)
{
	static pthread_t th[WAVE];
	memprism_region_begin("work");
	for (int w = 0; w < NT / WAVE; w++) {
		for (int i = 0; i < WAVE; i++)
			if (pthread_create(&th[i], NULL, work, NULL) != 0) {
				perror("pthread_create");
				return 1;
			}
		for (int i = 0; i < WAVE; i++)
			pthread_join(th[i], NULL);
	}
	memprism_region_end("work");
	printf("threads done\n");
	return 0;
}
