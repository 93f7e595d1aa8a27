// SPDX-License-Identifier: MIT
/*
 * Address reuse across threads. Threads A and B take strict turns (mutex +
 * condition variable), ROUNDS rounds each. On its turn, A mallocs a 4 KiB
 * block at the line marked @A, writes it with exactly KA int stores and frees
 * it; then B mallocs 4 KiB at @B, writes it with exactly KB long stores and
 * frees it. mallopt(M_ARENA_MAX, 1) puts both threads on one arena, and
 * 4 KiB is above the per-thread tcache limit, so the block one thread just
 * freed is normally the one the other thread gets next: the same address
 * alternates between two allocation sites and two threads. The program prints
 * the first pointers of each thread and how often the address was reused.
 *
 * Whatever the reuse, inside region "work" the @A row must have exactly
 * ROUNDS * KA stores from one thread and the @B row ROUNDS * KB stores from
 * the other: an access belongs to the block live at its address at that time.
 *
 * Second phase, region "handoff": A mallocs 4 KiB at @H and writes it (KA
 * int stores), hands it to B, which reads every 4th int (KA / 4 loads) and
 * frees it (a cross-thread free); then A mallocs again, usually getting the
 * same address. The @H row: ROUNDS * KA stores, ROUNDS * KA / 4 loads, two
 * threads, ROUNDS instances.
 */
#include <malloc.h>
#include <memprism.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 200
#define BLOCK 4096
#define KA (BLOCK / 4) /* int stores by A per round */
#define KB (BLOCK / 8) /* long stores by B per round */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int turn; /* 0: A's turn, 1: B's */
static void *last_freed;
static int reused[2];
static void *first[2];

static void wait_turn(int me)
{
	pthread_mutex_lock(&mu);
	while (turn != me)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
}

static void pass_turn(int to)
{
	pthread_mutex_lock(&mu);
	turn = to;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
}

static void *thread_a(void *arg)
{
	(void)arg;
	for (int r = 0; r < ROUNDS; r++) {
		wait_turn(0);
		volatile int *p = malloc(BLOCK); /* @A */
		if (!p)
			abort();
		if (r == 0)
			first[0] = (void *)p;
		if ((void *)p == last_freed)
			reused[0]++;
		for (int i = 0; i < KA; i++)
			p[i] = r + i;
		free((void *)p);
		last_freed = (void *)p;
		pass_turn(1);
	}
	return NULL;
}

static void *thread_b(void *arg)
{
	(void)arg;
	for (int r = 0; r < ROUNDS; r++) {
		wait_turn(1);
		volatile long *p = malloc(BLOCK); /* @B */
		if (!p)
			abort();
		if (r == 0)
			first[1] = (void *)p;
		if ((void *)p == last_freed)
			reused[1]++;
		for (int i = 0; i < KB; i++)
			p[i] = r - i;
		free((void *)p);
		last_freed = (void *)p;
		pass_turn(0);
	}
	return NULL;
}

static volatile int *handed;
static int handoff_reused;

static void *handoff_a(void *arg)
{
	(void)arg;
	void *prev = NULL;
	for (int r = 0; r < ROUNDS; r++) {
		wait_turn(0);
		volatile int *p = malloc(BLOCK); /* @H */
		if (!p)
			abort();
		if ((void *)p == prev)
			handoff_reused++;
		prev = (void *)p;
		for (int i = 0; i < KA; i++)
			p[i] = r * i;
		handed = p;
		pass_turn(1);
	}
	return NULL;
}

static void *handoff_b(void *arg)
{
	long sum = 0;
	for (int r = 0; r < ROUNDS; r++) {
		wait_turn(1);
		volatile int *p = handed;
		for (int i = 0; i < KA; i += 4)
			sum += p[i];
		free((void *)p);
		pass_turn(0);
	}
	*(long *)arg = sum;
	return NULL;
}

int main(void)
{
	mallopt(M_ARENA_MAX, 1);
	pthread_t a, b;
	memprism_region_begin("work");
	if (pthread_create(&a, NULL, thread_a, NULL) || pthread_create(&b, NULL, thread_b, NULL)) {
		perror("pthread_create");
		return 1;
	}
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	memprism_region_end("work");
	printf("first A %p first B %p\n", first[0], first[1]);
	printf("reused %d of %d\n", reused[0] + reused[1], 2 * ROUNDS);

	long sum = 0;
	turn = 0;
	memprism_region_begin("handoff");
	if (pthread_create(&a, NULL, handoff_a, NULL) || pthread_create(&b, NULL, handoff_b, &sum)) {
		perror("pthread_create");
		return 1;
	}
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	memprism_region_end("handoff");
	printf("handoff reused %d of %d\n", handoff_reused, ROUNDS - 1);
	printf("checksum %ld\n", sum);
	return 0;
}
