// SPDX-License-Identifier: MIT
/*
 * fork + exec: the parent mallocs P (@P, 4 KiB) and writes it N times
 * inside region "work", forks; the child execs this program by the path it
 * was started with (argv[0]), or with argument "self" by /proc/self/exe
 * (under Valgrind the link names Valgrind's tool: the runtime execs the
 * program's own path), with argument "child"; the new image mallocs C (@C,
 * 4 KiB) and writes it M times inside a region "work" of its own. The
 * parent waits, then writes P Q more times. All stores go through
 * volatile pointers:
 *   P: N + Q stores by the parent
 *   C: M stores by the exec'd child
 * Prints "parent PID child PID" (the parent) and "image PID" (the child).
 */
#include <memprism.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 1000
#define M 600
#define Q 400
#define INTS 1024

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "child") == 0) {
		printf("image %d\n", (int)getpid());
		memprism_region_begin("work");
		volatile int *c = malloc(INTS * sizeof(int)); /* @C */
		if (!c)
			return 1;
		for (int i = 0; i < M; i++)
			c[i % INTS] = i;
		memprism_region_end("work");
		return 0;
	}
	memprism_region_begin("work");
	volatile int *p = malloc(INTS * sizeof(int)); /* @P */
	if (!p)
		return 1;
	for (int i = 0; i < N; i++)
		p[i % INTS] = i;
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		char *args[] = { argv[0], "child", NULL };
		execv(argc > 1 && strcmp(argv[1], "self") == 0 ? "/proc/self/exe" : argv[0], args);
		perror("execv");
		_exit(127);
	}
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "child failed\n");
		return 1;
	}
	for (int i = 0; i < Q; i++)
		p[i % INTS] = -i;
	memprism_region_end("work");
	printf("parent %d child %d\n", (int)getpid(), (int)pid);
	return 0;
}
