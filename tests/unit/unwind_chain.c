// SPDX-License-Identifier: MIT
/* Callers for test_unwind.c, built without frame pointers (as Debian builds
 * its libraries): chain() calls through c1..c3, sort_and_grab() through
 * libc's qsort, which has none either. */
#include <stdlib.h>

int grab(void);

static volatile int sink;

__attribute__((noinline)) static int c3(int x)
{
	int r = grab() + x;
	sink = r;
	return r * 3;
}

__attribute__((noinline)) static int c2(int x)
{
	int r = c3(x + 1);
	sink = r;
	return r + 7;
}

__attribute__((noinline)) int chain(int x)
{
	int r = c2(x * 2);
	sink = r;
	return r - 1;
}

static int grabbed;

static int cmp(const void *a, const void *b)
{
	if (!grabbed++)
		grab();
	return *(const int *)a - *(const int *)b;
}

int sort_and_grab(void)
{
	int v[8] = { 5, 3, 7, 1, 9, 2, 8, 4 };
	grabbed = 0;
	qsort(v, 8, sizeof(int), cmp);
	return v[0];
}
