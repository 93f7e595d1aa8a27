// SPDX-License-Identifier: MIT
/*
 * Heap blocks whose figures follow from the code (export --dhat): site A
 * allocates ten blocks of 400 bytes and writes each (memset: a call, not
 * expanded inline), then four are freed; site B allocates 4096 bytes once
 * the four are gone (the heap is then at its largest: 2400 + 4096 bytes),
 * writes them, reads one byte of each 64, and frees them. At the end six
 * blocks of A are live.
 */
#include <stdlib.h>
#include <string.h>

/* (global and volatile: the compiler may not drop blocks it sees unread) */
char *volatile a[10];

int main(void)
{
	for (int i = 0; i < 10; i++) {
		a[i] = malloc(400); /* A */
		if (!a[i])
			return 1;
		memset(a[i], i, 400);
	}
	for (int i = 0; i < 4; i++)
		free(a[i]);
	volatile char *b = malloc(4096); /* B */
	if (!b)
		return 1;
	memset((char *)b, 1, 4096);
	int sum = 0;
	for (int i = 0; i < 4096; i += 64)
		sum += b[i];
	free((char *)b);
	return sum == 64 ? 0 : 2;
}
