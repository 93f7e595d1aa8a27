// SPDX-License-Identifier: MIT
/*
 * A program that dies. Usage: crash segv|kill|abort|segv-mt|segv-loop|kill-mt|kill-handoff|kill-join|
 *                                  kill-wait|kill-fork
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
 *   kill-mt  the main thread allocates a 1 MiB block (@SHARED), starts a
 *            thread and waits; the thread makes N2 one-byte stores into
 *            the block, then kills the process (SIGKILL). The main thread
 *            wrote nothing after it started the thread: the block is known
 *            only if its allocation went out then.
 *   kill-handoff the main thread starts a thread, sleeps a second, then
 *            allocates a 1 MiB block (@HANDOFF), hands it to the thread and
 *            waits in pause(); the thread makes N2 stores into it and kills
 *            the process (SIGKILL). The block is known only if the runtime
 *            sent the main thread's allocation out although its buffer was
 *            far from full.
 *   kill-join the same at once, with no sleep, waiting in pthread_join.
 *   kill-wait the same at once, waiting on a semaphore: no flush point; the
 *            allocation is in the main thread's buffer, which the launcher
 *            reads after the kill.
 *   kill-fork the main thread allocates a 1 MiB block (@FORKP) and forks;
 *            the child allocates one (@FORKC), makes M = 1,000 stores into
 *            it, allocates and frees 16 bytes (an event: its stores are
 *            committed) and kills itself (SIGKILL); the parent makes N2
 *            stores into its block meanwhile, waits for the child and
 *            exits with 0. The child's buffer, the parent's until the fork,
 *            must be the child's own.
 */
#include <memprism.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 3000000L
#define N2 1500000L
#define K 2000000L
#define M 1000L
#define SIZE (1u << 20)

static sem_t done;
static volatile char *shared;

static void *killer(void *arg)
{
	(void)arg;
	for (long i = 0; i < N2; i++)
		shared[i & (SIZE - 1)] = (char)i;
	kill(getpid(), SIGKILL);
	return NULL;
}

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

/* (functions of their own: the compiler would otherwise merge their
 * malloc calls with main's, and the sites' lines with them) */
static __attribute__((noinline)) int kill_mt(void)
{
	shared = malloc(SIZE); /* @SHARED */
	pthread_t t;
	if (!shared || pthread_create(&t, NULL, killer, NULL) != 0)
		return 1;
	pthread_join(t, NULL);
	return 1; /* (not reached: the thread kills the process) */
}

static volatile char *_Atomic handed;

static void *taker(void *arg)
{
	(void)arg;
	volatile char *b;
	while (!(b = atomic_load(&handed)))
		usleep(1000);
	for (long i = 0; i < N2; i++)
		b[i & (SIZE - 1)] = (char)i;
	kill(getpid(), SIGKILL);
	return NULL;
}

/* join: 0 sleep a second and pause, 1 join, 2 wait on a semaphore */
static __attribute__((noinline)) int kill_handoff(int join)
{
	pthread_t t;
	if (pthread_create(&t, NULL, taker, NULL) != 0)
		return 1;
	if (!join)
		sleep(1);
	volatile char *b = malloc(SIZE); /* @HANDOFF */
	if (!b)
		return 1;
	atomic_store(&handed, b);
	if (join == 1)
		pthread_join(t, NULL);
	if (join == 2) {
		sem_init(&done, 0, 0);
		while (sem_wait(&done) != 0)
			;
	}
	for (;;)
		pause();
	return 1; /* (not reached: the thread kills the process) */
}

static __attribute__((noinline)) int kill_fork(void)
{
	volatile char *p = malloc(SIZE); /* @FORKP */
	if (!p)
		return 1;
	pid_t c = fork();
	if (c < 0)
		return 1;
	if (c == 0) {
		volatile char *b = malloc(SIZE); /* @FORKC */
		if (!b)
			_exit(1);
		for (long i = 0; i < M; i++)
			b[i] = (char)i;
		void *volatile e = malloc(16); /* (volatile: the pair is not optimized away) */
		free(e);
		kill(getpid(), SIGKILL);
		_exit(1);
	}
	for (long i = 0; i < N2; i++)
		p[i & (SIZE - 1)] = (char)i;
	int st;
	while (waitpid(c, &st, 0) < 0)
		;
	return WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: crash segv|kill|abort|segv-mt|segv-loop\n");
		return 2;
	}
	if (strcmp(argv[1], "kill-mt") == 0)
		return kill_mt();
	if (strcmp(argv[1], "kill-handoff") == 0)
		return kill_handoff(0);
	if (strcmp(argv[1], "kill-join") == 0)
		return kill_handoff(1);
	if (strcmp(argv[1], "kill-wait") == 0)
		return kill_handoff(2);
	if (strcmp(argv[1], "kill-fork") == 0)
		return kill_fork();
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
