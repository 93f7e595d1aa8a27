// SPDX-License-Identifier: MIT
/*
 * Functions whose entry jumps to their passive (uninstrumented) copy when
 * not recording, with arguments and results that live in memory or need
 * extension: a struct passed by value and returned through a hidden
 * pointer, narrow signed and unsigned arguments and result. The copy must
 * get them exactly as the function did (test_passive.sh compares the output
 * with a plain build's, recorded and not).
 */
#include <stdio.h>

struct big {
	long a[8];
};

__attribute__((noinline)) struct big scaled(struct big b, int n)
{
	struct big r;
	for (int i = 0; i < 8; i++)
		r.a[i] = b.a[i] * n;
	for (int k = 0; k < n; k++)
		r.a[k & 7] += k;
	return r;
}

__attribute__((noinline)) unsigned char mix(unsigned char x, signed char y, const char *s)
{
	unsigned char t = 0;
	for (int i = 0; s[i]; i++)
		t += (unsigned char)(s[i] + x + y);
	return t;
}

int main(void)
{
	struct big b;
	for (int i = 0; i < 8; i++)
		b.a[i] = i - 3;
	struct big r = scaled(b, 100);
	long s = 0;
	for (int i = 0; i < 8; i++)
		s = s * 31 + r.a[i];
	printf("scaled %ld mix %d\n", s, mix(200, -7, "passive copies"));
	return 0;
}
