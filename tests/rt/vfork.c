// SPDX-License-Identifier: MIT
/*
 * vfork (tests/cli/test_signals.sh). The parent mallocs P (@P) and stores
 * N words into it, vforks, and after the child is done stores N more. The
 * child either execs this program with argument "child" (mode exec), which
 * mallocs C (@C) and stores M words into it, or _exits with status 7 (mode
 * exit). The parent prints the child's status.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 100000
#define M 30000

void *volatile sink;

static void store(long *a, long n)
{
	for (long i = 0; i < n; i++)
		a[i] = i;
	sink = a;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "child")) {
		long *c = malloc(M * sizeof(long)); /* @C */
		store(c, M);
		return 0;
	}
	int do_exec = argc > 1 && !strcmp(argv[1], "exec");
	long *p = malloc(N * sizeof(long)); /* @P */
	store(p, N);
	pid_t pid = vfork();
	if (pid == 0) {
		if (do_exec)
			execl("/proc/self/exe", argv[0], "child", (char *)NULL);
		_exit(7);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	store(p, N);
	printf("child status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 0;
}
