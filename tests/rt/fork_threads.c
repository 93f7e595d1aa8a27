// SPDX-License-Identifier: MIT
/*
 * fork_threads [LINES]: one data file, four processes, seven threads. The
 * parent (one thread) takes a block P of LINES 64-byte lines (default
 * 8,192: 512 KiB, past a Nehalem core's L2, within its socket's LLC)
 * through buf_alloc (@P) and stores to one int of each line, then forks
 * three children before waiting for any. Child k (1..3) takes a block of
 * its own through buf_alloc, from a function of its own (childK: @C1,
 * @C2, @C3),
 * stores to one int of each line from its main thread, then starts a
 * second thread that loads the same ints k times, joins it and exits 0.
 * All through volatile pointers:
 *   P: LINES stores by the parent
 *   Ck: LINES stores by child k's main thread, k * LINES loads by its second
 * buf_alloc is a wrapper (it only allocates), so each block is sited at
 * its call: three rows the rule `--pages buf_alloc=2M` applies to though
 * their labels name main and childK. In the serial replay's order the threads are
 * the file's 0 (the parent), 1-2 (child 1), 3-4 (child 2) and 5-6 (child 3):
 * with `--thread-map spread` on two sockets of four cores, child 2's two
 * threads run on different sockets and the others' on one.
 * Prints "child K PID" for each child, then "parent PID".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define STEP 16 /* ints in a 64-byte line */
#define CHILDREN 3

static long lines;
static volatile int *buf;
static long reps;

__attribute__((noinline)) static void *buf_alloc(size_t n)
{
	void *b = malloc(n);
	__asm__ volatile("" : : "r"(b) : "memory"); /* (no tail call: it is on the stack) */
	return b;
}

static void *reader(void *arg)
{
	long sum = 0;
	for (long r = 0; r < reps; r++)
		for (long i = 0; i < lines; i++)
			sum += buf[i * STEP];
	return (char *)arg + (sum & 1);
}

/* Child k's work on its block b (inlined into each child's own function,
 * so that each block's site is that function's call of buf_alloc). */
static inline int work(volatile int *b, int k)
{
	if (!b)
		return 1;
	buf = b;
	for (long i = 0; i < lines; i++)
		buf[i * STEP] = (int)i;
	reps = k;
	pthread_t t;
	if (pthread_create(&t, NULL, reader, NULL) || pthread_join(t, NULL))
		return 1;
	return 0;
}

__attribute__((noinline)) static int child1(void)
{
	return work(buf_alloc((size_t)lines * 64), 1); /* @C1 */
}

__attribute__((noinline)) static int child2(void)
{
	return work(buf_alloc((size_t)lines * 64), 2); /* @C2 */
}

__attribute__((noinline)) static int child3(void)
{
	return work(buf_alloc((size_t)lines * 64), 3); /* @C3 */
}

int main(int argc, char **argv)
{
	lines = argc > 1 ? atol(argv[1]) : 8192;
	if (lines < 1)
		return 2;
	volatile int *p = buf_alloc((size_t)lines * 64); /* @P */
	if (!p)
		return 1;
	for (long i = 0; i < lines; i++)
		p[i * STEP] = (int)i;
	fflush(stdout);
	pid_t pids[CHILDREN];
	for (int k = 1; k <= CHILDREN; k++) {
		pid_t pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0)
			exit(k == 1 ? child1() : k == 2 ? child2() : child3());
		pids[k - 1] = pid;
	}
	for (int k = 0; k < CHILDREN; k++) {
		int st;
		if (waitpid(pids[k], &st, 0) != pids[k] || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "child %d failed\n", k + 1);
			return 1;
		}
		printf("child %d %d\n", k + 1, (int)pids[k]);
	}
	printf("parent %d\n", (int)getpid());
	return 0;
}
