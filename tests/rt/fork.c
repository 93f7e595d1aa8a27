// SPDX-License-Identifier: MIT
/*
 * fork: the child inherits the parent's objects. The parent mallocs A (@A,
 * 4 KiB) and writes it N times, forks; the child reads A M times, mallocs B
 * (@B) and writes it P times, and exits 0; the parent waits, then writes A Q
 * more times. All inside region "work" (the child opens its own region
 * too: regions are per process), all through volatile pointers:
 *   A: N + Q stores by the parent, M loads by the child -> 2 threads
 *   B: P stores by the child
 *   the child's own stack: S stores to a volatile local, on the row
 *   "main thread stack (pid CHILD)", not on the parent's stack row
 * Prints "parent PID child PID".
 *
 * `fork inherit`: the child does not open a region of its own; it runs
 * entirely inside the parent's open "work" region (forked while it was open).
 */
#include <memprism.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 1000
#define M 700
#define P 300
#define Q 400
#define S 200
#define INTS 1024

int main(int argc, char **argv)
{
	int own_region = !(argc > 1 && strcmp(argv[1], "inherit") == 0);
	memprism_region_begin("work");
	volatile int *a = malloc(INTS * sizeof(int)); /* @A */
	if (!a)
		return 1;
	for (int i = 0; i < N; i++)
		a[i % INTS] = i;
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		if (own_region)
			memprism_region_begin("work");
		long sum = 0;
		for (int i = 0; i < M; i++)
			sum += a[i % INTS];
		volatile int *b = malloc(INTS * sizeof(int)); /* @B */
		if (!b)
			exit(1);
		for (int i = 0; i < P; i++)
			b[i % INTS] = (int)sum + i;
		volatile int local[16];
		for (int i = 0; i < S; i++)
			local[i % 16] = i;
		if (own_region)
			memprism_region_end("work");
		exit(0);
	}
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "child failed\n");
		return 1;
	}
	for (int i = 0; i < Q; i++)
		a[i % INTS] = -i;
	memprism_region_end("work");
	printf("parent %d child %d\n", (int)getpid(), (int)pid);
	return 0;
}
