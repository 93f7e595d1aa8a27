// SPDX-License-Identifier: MIT
/*
 * Loops the inline instrumentation treats differently (tests/cli/
 * test_inline.sh reads the pass's -Rpass=memprism remarks by line): a loop
 * that synchronizes with nothing checks the epoch once per iteration; one
 * with an atomic, a volatile access or an irreducible cycle, at every
 * access. main() then has a loop of the first kind read a block another
 * thread allocated after this thread last recorded: its loads belong to
 * that block only if the epoch check at the loop's top sent the first one
 * down the path that writes the new epoch.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

int a[1024];
_Atomic int flag;
volatile int vol;

__attribute__((noinline)) int plain(long n)
{
	int s = 0;
	for (long i = 0; i < n; i++) /* LOOP plain */
		s += a[i & 1023];
	return s;
}

__attribute__((noinline)) int atomics(long n)
{
	for (long i = 0; i < n; i++) { /* LOOP atomic */
		a[i & 1023] += 1;
		atomic_fetch_add_explicit(&flag, 1, memory_order_relaxed);
	}
	return a[5];
}

__attribute__((noinline)) int volatiles(long n)
{
	for (long i = 0; i < n; i++) /* LOOP volatile */
		a[i & 1023] += vol;
	return a[7];
}

__attribute__((noinline)) int irreducible(long n)
{
	int s = 0;
	for (long i = 0; i < n; i++) { /* LOOP irreducible */
		if (a[i & 1023] & 1)
			goto x;
	y:
		s += a[(s + 1) & 1023];
		if (s & 2)
			continue;
	x:
		s += a[(s + 2) & 1023];
		if (s & 4)
			goto y;
	}
	return s;
}

__attribute__((noinline)) long sum(const int *p, long n)
{
	long s = 0;
	for (long i = 0; i < n; i++) /* LOOP sum */
		s += p[i];
	return s;
}

static int *block;

static void *producer(void *arg)
{
	(void)arg;
	block = malloc(4096 * sizeof(int));
	for (int i = 0; i < 4096; i++)
		block[i] = i;
	return NULL;
}

/* Not instrumented: the block reaches sum() in a register, so sum()'s loop
 * makes this thread's first record since the block was allocated. */
__attribute__((disable_sanitizer_instrumentation, noinline)) static int *make_block(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, producer, NULL) || pthread_join(t, NULL))
		exit(1);
	return block;
}

int main(void)
{
	long r = plain(5000) + atomics(5000) + volatiles(5000) + irreducible(5000);
	r += sum(make_block(), 4096);
	printf("%ld\n", r);
	free(block);
	return 0;
}
