// SPDX-License-Identifier: MIT
/*
 * exec: the program re-executes itself. Without arguments it mallocs P
 * (@P, 4 KiB) and writes it N times inside region "work", ends the region
 * and execs /proc/self/exe with argument "child", by execv or by the
 * function its argument names (execl, execlp, execle, execvp, execvpe,
 * fexecve: glibc's list forms once went past the runtime). The new image (same pid
 * and tid) mallocs C (@C, 4 KiB) and writes it M times inside region "work",
 * and returns 0. All stores go through volatile pointers:
 *   P: N stores by the pre-exec image
 *   C: M stores by the post-exec image
 * Both images append to the same data file, as two process instances with
 * the same pid. Each image prints "pid PID tid TID IMAGE".
 */
#define _GNU_SOURCE
#include <memprism.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

#define N 1000
#define M 600
#define INTS 1024

static void ids(const char *image)
{
	printf("pid %d tid %ld %s\n", (int)getpid(), (long)syscall(SYS_gettid), image);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "child") == 0) {
		ids("child");
		memprism_region_begin("work");
		volatile int *c = malloc(INTS * sizeof(int)); /* @C */
		if (!c)
			return 1;
		for (int i = 0; i < M; i++)
			c[i % INTS] = i;
		memprism_region_end("work");
		return 0;
	}
	ids("parent");
	memprism_region_begin("work");
	volatile int *p = malloc(INTS * sizeof(int)); /* @P */
	if (!p)
		return 1;
	for (int i = 0; i < N; i++)
		p[i % INTS] = i;
	memprism_region_end("work");
	const char *via = argc > 1 ? argv[1] : "execv", *self = "/proc/self/exe";
	char *args[] = { argv[0], "child", NULL };
	if (!strcmp(via, "execl"))
		execl(self, argv[0], "child", (char *)NULL);
	else if (!strcmp(via, "execlp"))
		execlp(self, argv[0], "child", (char *)NULL);
	else if (!strcmp(via, "execle"))
		execle(self, argv[0], "child", (char *)NULL, environ);
	else if (!strcmp(via, "execvp"))
		execvp(self, args);
	else if (!strcmp(via, "execvpe"))
		execvpe(self, args, environ);
	else if (!strcmp(via, "fexecve")) {
		int fd = open(self, O_RDONLY);
		if (fd >= 0)
			fexecve(fd, args, environ);
	} else
		execv(self, args);
	perror(via);
	return 1;
}
