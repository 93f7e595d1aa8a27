// SPDX-License-Identifier: MIT
/*
 * Signal handlers amid recorded code (tests/cli/test_signals.sh). Handlers
 * store the HANDLER_WORDS words of the static array `hand` through a
 * volatile pointer (one 8-byte store each); the main loops store words of a
 * heap array in plain loops, which keep the runtime's state in registers.
 * Each mode prints what the report must count.
 *   alarm N    SIGALRM every millisecond (set with signal()); the main loop
 *              stores N words. Prints "ticks T" and whether sigaction
 *              reports the program's own handler.
 *   alloc N    SIGALRM every millisecond, the handler also allocates and
 *              frees a block; the main loop N times allocates, stores into
 *              and frees a block, so signals come inside the runtime's hooks
 *   jump N     the handler siglongjmps back out of the main loop, N times
 *   nest K     SIGUSR1 with SA_NODEFER raised K times; the handler raises it
 *              again from inside itself, NEST deep
 *   threads N  THREADS threads store N words each while SIGALRM comes every
 *              millisecond to whichever thread the kernel picks
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#define HANDLER_WORDS 64
#define NEST 3
#define THREADS 4
#define RING (1 << 16) /* words of the heap arrays */

static long hand[HANDLER_WORDS];
static volatile long ticks; /* (its own accesses are not asserted) */
static volatile int depth;
static sigjmp_buf env;
void *volatile sink;

static void store_hand(void)
{
	volatile long *v = hand;
	for (int i = 0; i < HANDLER_WORDS; i++)
		v[i] = i;
}

static void on_alarm(int sig)
{
	(void)sig;
	store_hand();
	__atomic_add_fetch(&ticks, 1, __ATOMIC_RELAXED);
}

static void on_alarm_heap(int sig)
{
	(void)sig;
	long *b = malloc(256); /* @HANDLER_ALLOC */
	b[0] = 1;
	sink = b;
	free(b);
	store_hand();
	ticks++;
}

static long jumps_wanted;

static void on_alarm_jump(int sig)
{
	(void)sig;
	if (ticks >= jumps_wanted)
		return; /* (a signal between the loop's end and the timer's) */
	store_hand();
	ticks++;
	siglongjmp(env, 1);
}

static void on_usr1(int sig)
{
	depth++;
	store_hand();
	ticks++;
	if (depth < NEST)
		raise(sig); /* SA_NODEFER: runs nested, before raise returns */
	depth--;
}

static void every_ms(void)
{
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
	setitimer(ITIMER_REAL, &it, NULL);
}

static void stop_timer(void)
{
	struct itimerval z;
	memset(&z, 0, sizeof(z));
	setitimer(ITIMER_REAL, &z, NULL);
}

static void install(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

static void store_words(long *a, long n)
{
	for (long i = 0; i < n; i++)
		a[i & (RING - 1)] = i;
}

static void *worker(void *arg)
{
	long *a = malloc(RING * sizeof(long)); /* @THREAD_RING */
	store_words(a, *(long *)arg);
	sink = a;
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	const char *mode = argv[1];
	long n = atol(argv[2]);
	if (!strcmp(mode, "alarm")) {
		signal(SIGALRM, on_alarm);
		struct sigaction q;
		sigaction(SIGALRM, NULL, &q);
		printf("query %s\n", q.sa_handler == on_alarm && (q.sa_flags & SA_RESTART) ? "ok" : "wrong");
		long *a = malloc(RING * sizeof(long)); /* @RING */
		every_ms();
		store_words(a, n);
		stop_timer();
		sink = a;
	} else if (!strcmp(mode, "alloc")) {
		install(SIGALRM, on_alarm_heap, SA_RESTART);
		every_ms();
		for (long i = 0; i < n; i++) {
			long *b = malloc(64); /* @MAIN_ALLOC */
			b[0] = i;
			sink = b;
			free(b);
		}
		stop_timer();
	} else if (!strcmp(mode, "jump")) {
		jumps_wanted = n;
		install(SIGALRM, on_alarm_jump, 0);
		long *a = malloc(RING * sizeof(long)); /* @RING_JUMP */
		every_ms();
		while (ticks < n)
			if (sigsetjmp(env, 1) == 0)
				store_words(a, 1L << 62);
		stop_timer();
		sink = a;
	} else if (!strcmp(mode, "nest")) {
		install(SIGUSR1, on_usr1, SA_NODEFER);
		for (long i = 0; i < n; i++)
			raise(SIGUSR1);
	} else if (!strcmp(mode, "threads")) {
		install(SIGALRM, on_alarm, SA_RESTART);
		pthread_t th[THREADS];
		every_ms();
		for (int i = 0; i < THREADS; i++)
			pthread_create(&th[i], NULL, worker, &n);
		for (int i = 0; i < THREADS; i++)
			pthread_join(th[i], NULL);
		stop_timer();
	} else {
		return 2;
	}
	printf("ticks %ld\n", (long)ticks);
	return 0;
}
