// SPDX-License-Identifier: MIT
/* A loop of more sites than the pass inlines in one function (300 loads,
 * with a call in every iteration), around a call-free loop: the big loop's
 * sites call the runtime, the small loop keeps its inline path, and every
 * access is recorded once. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void opaque(long *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
}

#define R(i) s += a[(k * 7 + (i)) & 1023];
#define R10(i) R(i##0) R(i##1) R(i##2) R(i##3) R(i##4) R(i##5) R(i##6) R(i##7) R(i##8) R(i##9)
#define R100(i) R10(i##0) R10(i##1) R10(i##2) R10(i##3) R10(i##4) R10(i##5) R10(i##6) R10(i##7) R10(i##8) R10(i##9)

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;
	long *a = calloc(1024, sizeof(long)); /* @a */
	long *b = calloc(64, sizeof(long)); /* @b */
	long s = 0;
	for (long k = 0; k < n; k++) {
		R100(1) R100(2) R100(3)
		for (int j = 0; j < 64; j++) /* call-free loop */
			b[j] += j;
		opaque(b);
	}
	printf("%ld %ld\n", s, b[63]);
	return 0;
}
