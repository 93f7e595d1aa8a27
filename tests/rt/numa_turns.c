// SPDX-License-Identifier: MIT
/* NUMA workload (tests/cli/test_numa.sh) on a simulated 4x8 machine: four
 * threads pin themselves with sched_setaffinity to CPUs 0, 8, 16 and 24
 * (nodes 0-3) and take turns on one 64 KiB buffer that the main thread made
 * and filled (8,192 stores: its 16 pages on node 0). Three rounds of four
 * turns; each turn reads and writes every word (16,384 accesses) and, as
 * phase-structured code does, allocates a note for the turn's log (the
 * event that orders the turns in the replay). The threads on nodes 1-3 make
 * 3 x 3 x 16,384 = 147,456 remote accesses of 8,192 + 12 x 16,384 + 1 (main
 * reads the result) = 204,801.
 * Pattern: alternate remote accesses, 13 hand-overs (main -> first turn, 11
 * turn changes, last turn -> main, which reads the result). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define WORDS 8192
#define THREADS 4
#define ROUNDS 3

static volatile uint64_t *buf;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int turn;
static char *notes[ROUNDS * THREADS]; /* the log of turns */

static void *worker(void *arg)
{
	int me = (int)(intptr_t)arg;
	cpu_set_t cs;
	CPU_ZERO(&cs);
	CPU_SET(me * 8, &cs); /* node me of a 4x8 machine */
	if (sched_setaffinity(0, sizeof(cs), &cs))
		abort();
	for (int r = 0; r < ROUNDS; r++) {
		pthread_mutex_lock(&mu);
		while (turn != r * THREADS + me)
			pthread_cond_wait(&cv, &mu);
		pthread_mutex_unlock(&mu);
		char *note = malloc(64); /* @NOTE */
		for (int i = 0; i < WORDS; i++)
			buf[i] = buf[i] + 1;
		note[0] = (char)me;
		notes[r * THREADS + me] = note;
		pthread_mutex_lock(&mu);
		turn++;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
	}
	return NULL;
}

int main(void)
{
	buf = malloc(WORDS * sizeof(uint64_t)); /* @BUFFER */
	for (int i = 0; i < WORDS; i++)
		buf[i] = 0;
	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i))
			return 1;
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < ROUNDS * THREADS; i++)
		free(notes[i]);
	printf("%llu\n", (unsigned long long)buf[WORDS - 1]);
	return 0;
}
