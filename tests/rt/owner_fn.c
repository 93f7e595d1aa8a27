// SPDX-License-Identifier: MIT
/*
 * DRAM writes by function (test_model_owner.sh): for each line of a block,
 * rmw_line loads and stores a word, then put_line stores to it again. The
 * last store dirties the line, so each line's writeback belongs to
 * put_line, whichever function dirtied it first.
 * Usage: owner_fn [lines, default 4096]
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void rmw_line(long *p)
{
	*p += 1;
}

__attribute__((noinline)) static void put_line(long *p)
{
	*p = 7;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 4096;
	long *t = calloc(n, 64);
	if (!t)
		return 1;
	for (size_t i = 0; i < n; i++) {
		rmw_line(&t[i * 8]);
		put_line(&t[i * 8]);
	}
	long sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += t[i * 8];
	printf("checksum %ld\n", sum);
	free(t);
	return 0;
}
