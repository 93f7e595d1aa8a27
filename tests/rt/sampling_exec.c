// SPDX-License-Identifier: MIT
/*
 * Sampling across a failed exec (tests/cli/test_sampling.sh): the runtime
 * flushes before execve; when execve fails the program goes on, and so
 * must the sampling -- a quarter recorded under 1000,3000 bursts, not all
 * of the rest.
 */
#include <stdio.h>
#include <unistd.h>

int a[4096];

__attribute__((noinline)) static long work(int r)
{
	long s = 0;
	for (int i = 0; i < 4096; i++) {
		a[i] += r;
		s += a[i];
	}
	return s;
}

int main(void)
{
	long s = 0;
	for (int r = 0; r < 200; r++) {
		s += work(r);
		if (r == 50) {
			char *argv[] = { "nope", NULL };
			execv("/nonexistent/nope", argv);
		}
	}
	printf("%ld\n", s);
	return 0;
}
