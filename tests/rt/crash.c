// SPDX-License-Identifier: MIT
/*
 * A program that dies. Usage: crash segv|kill|abort|segv-mt|segv-loop
 * Inside region "work" it makes exactly N = 3,000,000 one-byte stores into a
 * 1 MiB heap buffer (@BUF), sequentially with wrap-around: at about two trace
 * bytes per access that is several 1 MiB trace chunks. Then:
 *   segv     stores through a NULL pointer (SIGSEGV: the runtime's handler
 *            flushes every buffer, then the signal kills the program)
 *   kill     kill(getpid(), SIGKILL): nothing can be flushed; only the chunks
 *            already written survive
 *   abort    abort() (SIGABRT, flushed like segv)
 *   segv-mt  like segv, but first a second thread makes exactly N2 =
 *            1,500,000 one-byte stores into its own 1 MiB buffer (@BUF2) and
 *            then blocks: the crashing thread's handler must flush the other
 *            thread's buffer too.
 *   segv-loop dies inside the store loop, at store K = 2,000,000 (a loop
 *            without calls: inline instrumentation keeps the thread's
 *            recording state in registers there, and the thread's cursor
 *            catches up once per iteration).
 */
#include <memprism.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 3000000L
#define N2 1500000L
#define K 2000000L
#define SIZE (1u << 20)

static sem_t done;

static void *worker(void *arg)
{
	(void)arg;
	volatile char *b = malloc(SIZE); /* @BUF2 */
	if (!b)
		abort();
	for (long i = 0; i < N2; i++)
		b[i & (SIZE - 1)] = (char)i;
	sem_post(&done);
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: crash segv|kill|abort|segv-mt|segv-loop\n");
		return 2;
	}
	volatile char *buf = malloc(SIZE); /* @BUF */
	if (!buf)
		return 1;
	memprism_region_begin("work");
	if (strcmp(argv[1], "segv-mt") == 0) {
		pthread_t t;
		sem_init(&done, 0, 0);
		if (pthread_create(&t, NULL, worker, NULL) != 0)
			return 1;
		while (sem_wait(&done) != 0)
			;
	}
	volatile int *null = (volatile int *)(uintptr_t)(argc - 2); /* NULL, unknown to the compiler */
	long stop = strcmp(argv[1], "segv-loop") == 0 ? K : -1;
	for (long i = 0; i < N; i++) {
		if (i == stop)
			*null = 1;
		buf[i & (SIZE - 1)] = (char)i;
	}
	memprism_region_end("work");
	if (strcmp(argv[1], "kill") == 0)
		kill(getpid(), SIGKILL);
	if (strcmp(argv[1], "abort") == 0)
		abort();
	*null = 1;
	return 0;
}
