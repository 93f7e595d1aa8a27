// SPDX-License-Identifier: MIT
/*
 * A daemonizing program: main forks and returns at once; the child starts
 * a session of its own (setsid), forks the daemon and exits; the daemon
 * prints "daemon PID", waits, mallocs a block (@D) and writes it N times
 * through a volatile pointer, and exits 0. Usage:
 *   daemon            the daemon waits 300 ms before its work: `record`
 *                     must outlive main by that much to see it
 *   daemon FIFO       the daemon waits until a line arrives on FIFO (the
 *                     test's ^C to `record` comes first)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define N 5000
#define INTS 1024

int main(int argc, char **argv)
{
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid > 0)
		return 0; /* the program is done; its daemon is not */
	if (setsid() < 0)
		_exit(1);
	pid = fork();
	if (pid < 0)
		_exit(1);
	if (pid > 0)
		_exit(0);
	printf("daemon %d\n", (int)getpid());
	fflush(stdout);
	if (argc > 1) {
		char c;
		int fd = open(argv[1], O_RDONLY);
		if (fd < 0 || read(fd, &c, 1) != 1)
			return 1;
		close(fd);
	} else {
		struct timespec ts = { 0, 300 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	volatile int *d = malloc(INTS * sizeof(int)); /* @D */
	if (!d)
		return 1;
	for (int i = 0; i < N; i++)
		d[i % INTS] = i;
	free((void *)d);
	return 0;
}
