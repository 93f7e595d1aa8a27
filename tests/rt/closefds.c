// SPDX-License-Identifier: MIT
/*
 * A program that owns its descriptor table, as daemons and process
 * spawners do. Usage: closefds FILE
 *   mallocs A (@A, 4 KiB) and makes N int stores into it; closes every
 *   descriptor from 3 on (close_range, then close() up to 1024 where the
 *   kernel lacks it); opens FILE, which takes the lowest number, and puts
 *   it at every number from 900 to 1023 as well (dup2); mallocs B (@B,
 *   4 KiB) and makes M stores into it, in 64 rounds with a malloc/free
 *   between rounds (events: the runtime writes as it goes); writes "done\n"
 *   to FILE and exits 0 with FILE and its copies open.
 * FILE must hold "done\n" and nothing else: the runtime's chunks go to the
 * data file, not to whatever descriptor took its number.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define N 1000
#define M 640000
#define INTS 1024

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	volatile int *a = malloc(INTS * sizeof(int)); /* @A */
	if (!a)
		return 1;
	for (int i = 0; i < N; i++)
		a[i % INTS] = i;
#ifdef SYS_close_range
	if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0)
#endif
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
	int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return 1;
	for (int k = 900; k < 1024; k++)
		if (k != fd && dup2(fd, k) != k)
			return 1;
	volatile int *b = malloc(INTS * sizeof(int)); /* @B */
	if (!b)
		return 1;
	for (int r = 0; r < 64; r++) {
		for (int i = 0; i < M / 64; i++)
			b[i % INTS] = i;
		free(malloc(16));
	}
	if (write(fd, "done\n", 5) != 5)
		return 1;
	return 0;
}
