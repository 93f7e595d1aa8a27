// SPDX-License-Identifier: MIT
/*
 * fork_llc [LINES]: two processes in one data file whose arrays each fit
 * the LLC of the generic machine (2 MiB) but not both together. The parent
 * mallocs P (@P, LINES * 64 bytes, default 24,576 lines: 1.5 MiB), stores
 * to one int of each line, forks a child and waits for it, then loads the
 * same int of each line again and clears P with one memset (from its
 * first int to the end of its last: the same LINES lines, one range). The
 * child mallocs C (@C, the same size), stores to one int of each line,
 * loads them again, clears C alike and exits 0. Each pass touches LINES
 * distinct lines (one int 64 bytes after the last from the block's start,
 * whatever its alignment), through volatile pointers. On a machine of its
 * own, each array's lines come from DRAM once (the stores' write-allocate)
 * and stay cached and dirty to the end: no DRAM write. Prints "child PID"
 * and "parent PID".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define STEP 16 /* ints in a 64-byte line */

int main(int argc, char **argv)
{
	long lines = argc > 1 ? atol(argv[1]) : 24576;
	if (lines < 1)
		return 2;
	volatile int *p = malloc((size_t)lines * 64); /* @P */
	if (!p)
		return 1;
	for (long i = 0; i < lines; i++)
		p[i * STEP] = (int)i;
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		volatile int *c = malloc((size_t)lines * 64); /* @C */
		if (!c)
			_exit(1);
		for (long i = 0; i < lines; i++)
			c[i * STEP] = (int)i;
		long sum = 0;
		for (long i = 0; i < lines; i++)
			sum += c[i * STEP];
		memset((void *)c, 0, (size_t)(lines - 1) * 64 + 4);
		exit(sum == lines * (lines - 1) / 2 ? 0 : 1);
	}
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "child failed\n");
		return 1;
	}
	long sum = 0;
	for (long i = 0; i < lines; i++)
		sum += p[i * STEP];
	memset((void *)p, 0, (size_t)(lines - 1) * 64 + 4);
	printf("child %d\nparent %d\n", (int)pid, (int)getpid());
	return sum == lines * (lines - 1) / 2 ? 0 : 1;
}
