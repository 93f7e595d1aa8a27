// SPDX-License-Identifier: MIT
/*
 * Exit statuses and uninstrumented builds. Usage: exit_status MODE
 *   exit7  makes 100 int stores into a heap block (@BLK), exits with 7
 *   term   the same, then kill(getpid(), SIGTERM)
 *   big    2,000,000 int stores at pseudo-random places in @BLK (a trace
 *          of several chunks that compress poorly), exits 0
 *   spin FILE  the 100 stores, creates FILE (it runs, recorded), then
 *          stores into @BLK until a signal kills it (1 ms pause every
 *          2^20 stores: the trace grows, not too fast)
 *   trap FILE  like spin, but SIGTERM and SIGHUP end the loop: exits 3
 * The test builds this file twice: with `memprism cc` and with plain `cc`
 * (no instrumentation: the runtime is only preloaded, so the @BLK block is
 * recorded with 0 accesses).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Creates the file named (the test waits for it), then stores into blk
 * until stop is set. */
static void spin(volatile int *blk, const char *started)
{
	FILE *f = fopen(started, "w");
	if (!f || fclose(f))
		exit(1);
	const struct timespec ms = { 0, 1000000 };
	for (unsigned long i = 0; !stop; i++) {
		blk[i & 1023] = (int)i;
		if ((i & ((1ul << 20) - 1)) == 0)
			nanosleep(&ms, NULL);
	}
}

int main(int argc, char **argv)
{
	int with_file = argc == 3 && (strcmp(argv[1], "spin") == 0 || strcmp(argv[1], "trap") == 0);
	if (argc != 2 && !with_file) {
		fprintf(stderr, "usage: exit_status exit7|term|big|spin FILE|trap FILE\n");
		return 2;
	}
	long n = strcmp(argv[1], "big") == 0 ? 2000000 : 100;
	volatile int *blk = malloc(4096); /* @BLK */
	if (!blk)
		return 1;
	unsigned x = 12345;
	for (long i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		blk[(x >> 16) & 1023] = (int)i;
	}
	if (strcmp(argv[1], "exit7") == 0)
		exit(7);
	if (strcmp(argv[1], "term") == 0)
		kill(getpid(), SIGTERM);
	if (strcmp(argv[1], "big") == 0)
		return 0;
	if (strcmp(argv[1], "trap") == 0) {
		struct sigaction sa = { .sa_handler = on_signal };
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		spin(blk, argv[2]);
		exit(3);
	}
	if (strcmp(argv[1], "spin") == 0)
		spin(blk, argv[2]); /* never returns: no handler sets stop */
	fprintf(stderr, "unknown mode %s\n", argv[1]);
	return 2;
}
