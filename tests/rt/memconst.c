// SPDX-License-Identifier: MIT
/* Constant-length memset/memcpy/memmove and struct copies of every size the
 * compiler handles differently: up to 64 bytes (recorded by the pass), 65
 * to 512 (which the back end would expand inline), and beyond (libc). Each
 * is one ranged access of exactly its bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct big {
	char b[200];
};

/* between any two copies: the compiler must assume p's bytes are read
 * and changed, so it neither drops nor merges them */
static inline void keep(void *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	char *p = calloc(1, 8192); /* @block */
	keep(p);
	for (int i = 0; i < n; i++) {
		memset(p, i, 100);
		keep(p);
		memset(p + 128, i, 200);
		keep(p);
		memcpy(p + 1024, p, 100);
		keep(p);
		memcpy(p + 2048, p + 128, 128);
		keep(p);
		memmove(p + 2100, p + 2048, 96);
		keep(p);
		memcpy(p + 5000, p, 64);
		keep(p);
		memset(p + 4096, i, 600);
		keep(p);
		*(struct big *)(p + 6000) = *(struct big *)(p + 7000);
		keep(p);
	}
	printf("%d\n", p[6000] + p[1024] + p[4096]);
	free(p);
	return 0;
}
