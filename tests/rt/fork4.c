// SPDX-License-Identifier: MIT
/*
 * fork4 [SCALE]: one data file, four processes. The parent mallocs A (@A,
 * 4 KiB) and writes it N times, then forks three children before waiting
 * for any; child k (1..3) reads the A it inherited k*M*SCALE times, mallocs
 * B (@B, the same site in each child, 4 KiB) and writes it k*P*SCALE times,
 * and exits 0. The parent then writes A Q more times. All accesses go
 * through volatile pointers:
 *   A: N + Q stores by the parent, 6*M*SCALE loads by the children
 *   B: 3 blocks, 6*P*SCALE stores, child k's k*P*SCALE
 * Prints "child K PID" for each child, then "parent PID".
 * SCALE (default 1) makes each child's replay as long as wanted
 * (bench/merge.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 1000
#define M 700
#define P 300
#define Q 400
#define INTS 1024
#define CHILDREN 3

int main(int argc, char **argv)
{
	long scale = argc > 1 ? atol(argv[1]) : 1;
	if (scale < 1)
		return 2;
	volatile int *a = malloc(INTS * sizeof(int)); /* @A */
	if (!a)
		return 1;
	for (int i = 0; i < N; i++)
		a[i % INTS] = i;
	fflush(stdout);
	pid_t pids[CHILDREN];
	for (int k = 1; k <= CHILDREN; k++) {
		pid_t pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			long sum = 0;
			for (long i = 0; i < k * M * scale; i++)
				sum += a[i % INTS];
			volatile int *b = malloc(INTS * sizeof(int)); /* @B */
			if (!b)
				exit(1);
			for (long i = 0; i < k * P * scale; i++)
				b[i % INTS] = (int)(sum + i);
			exit(0);
		}
		pids[k - 1] = pid;
	}
	for (int k = 0; k < CHILDREN; k++) {
		int st;
		if (waitpid(pids[k], &st, 0) != pids[k] || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "child %d failed\n", k + 1);
			return 1;
		}
	}
	for (int i = 0; i < Q; i++)
		a[i % INTS] = -i;
	for (int k = 0; k < CHILDREN; k++)
		printf("child %d %d\n", k + 1, (int)pids[k]);
	printf("parent %d\n", (int)getpid());
	return 0;
}
