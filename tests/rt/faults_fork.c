// SPDX-License-Identifier: MIT
/* record --source faults [--children]: the parent first-touches PARENT pages
 * of one block, then forks a child that first-touches CHILD pages of a block
 * of its own and exits; the parent waits and prints both pids. Page-aligned
 * blocks with MADV_NOHUGEPAGE (as faults_pages.c), so each block's row holds
 * exactly its pages, in the process that touched them. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PARENT 40
#define CHILD 24
#define PAGE 4096

static void touch(int npages)
{
	volatile char *block = aligned_alloc(PAGE, (size_t)npages * PAGE); /* @BLOCK */
	if (!block)
		exit(1);
	madvise((void *)block, (size_t)npages * PAGE, MADV_NOHUGEPAGE);
	for (int i = 0; i < npages; i++)
		block[(size_t)i * PAGE] = 1;
	free((void *)block);
}

int main(void)
{
	touch(PARENT);
	fflush(stdout);
	pid_t child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		touch(CHILD);
		_exit(0);
	}
	int st;
	if (waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	printf("%d %d\n", (int)getpid(), (int)child);
	return 0;
}
