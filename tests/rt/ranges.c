// SPDX-License-Identifier: MIT
/*
 * Long ranges under set sampling (test_model_ranges.sh). Inside region
 * "ranges":
 *   1. main warms the block's first 16 KiB (memset: 256 lines, in L1 after);
 *   2. thread `reader` reads one byte per line of pages 20..23 of the block
 *      (its L1 then holds them), and waits;
 *   3. main memsets the whole block: 256 L1 hits at its start, the rest
 *      misses; its stores take the reader's copies away;
 *   4. the reader reads pages 20..23 again: all misses.
 * Usage: ranges [block KiB, default 1024]
 */
#include <memprism.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile char *block;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn = PTHREAD_COND_INITIALIZER;
static int step;
static long sum;

/* The replay orders threads by events (a region's ends are some) and
 * replays what a thread does between two of its events as one run. */
static void event(void)
{
	memprism_region_begin("turn");
	memprism_region_end("turn");
}

static void wait_for(int s)
{
	pthread_mutex_lock(&lock);
	while (step < s)
		pthread_cond_wait(&turn, &lock);
	pthread_mutex_unlock(&lock);
	event();
}

static void go(int s)
{
	event();
	pthread_mutex_lock(&lock);
	step = s;
	pthread_cond_broadcast(&turn);
	pthread_mutex_unlock(&lock);
}

static __attribute__((noinline)) long reader_pass(void)
{
	long t = 0;
	for (size_t b = 20 * 4096; b < 24 * 4096; b += 64)
		t += block[b];
	return t;
}

static void *reader(void *arg)
{
	(void)arg;
	wait_for(1);
	long t = reader_pass();
	go(2);
	wait_for(3);
	t += reader_pass();
	sum += t;
	go(4);
	return NULL;
}

int main(int argc, char **argv)
{
	size_t kib = argc > 1 ? strtoul(argv[1], NULL, 10) : 1024;
	size_t bytes = kib * 1024;
	if (kib < 128 || !(block = aligned_alloc(4096, bytes))) {
		fprintf(stderr, "ranges: bad size (at least 128 KiB) or no memory\n");
		return 1;
	}
	memset((char *)block, 2, bytes); /* every page present before the region */
	pthread_t t;
	if (pthread_create(&t, NULL, reader, NULL)) {
		fprintf(stderr, "ranges: pthread_create failed\n");
		return 1;
	}
	memprism_region_begin("ranges");
	memset((char *)block, 0, 16 * 1024);
	go(1);
	wait_for(2);
	memset((char *)block, 1, bytes);
	go(3);
	wait_for(4);
	memprism_region_end("ranges");
	pthread_join(t, NULL);
	printf("ranges: %zu KiB, sum %ld\n", kib, sum);
	return 0;
}
