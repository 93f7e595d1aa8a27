// SPDX-License-Identifier: MIT
/*
 * Exit statuses and uninstrumented builds. Usage: exit_status MODE
 *   exit7  makes 100 int stores into a heap block (@BLK), exits with 7
 *   term   the same, then kill(getpid(), SIGTERM)
 *   big    2,000,000 int stores at pseudo-random places in @BLK (a trace
 *          of several chunks that compress poorly), exits 0
 * The test builds this file twice: with `memprism cc` and with plain `cc`
 * (no instrumentation: the runtime is only preloaded, so the @BLK block is
 * recorded with 0 accesses).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: exit_status exit7|term|big\n");
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
	fprintf(stderr, "unknown mode %s\n", argv[1]);
	return 2;
}
