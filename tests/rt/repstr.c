// SPDX-License-Identifier: MIT
/*
 * Rep-prefixed string instructions (x86-64), inside region "rep": one
 * `rep stosb` of N1 bytes into A (@A); one `rep movsb` of N2 bytes from B
 * (@B) to C (@C); one `rep movsb` of N3 bytes from D (@D) to E (@E) with
 * the direction flag set (backward, as memmove copies an overlap); and,
 * in a loop, K `rep stosq` of 8 qwords each into F (@F), every one a new
 * execution. Under record --source valgrind each execution is one ranged
 * access per operand: A one store of N1 bytes, B one load and C one store
 * of N2, D one load and E one store of N3, F K stores of 64 bytes.
 */
#include <memprism.h>
#include <stdio.h>
#include <stdlib.h>

#define N1 100000
#define N2 50000
#define N3 1000
#define K 10

static void rep_stosb(void *d, int c, size_t n)
{
	__asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
}

static void rep_stosq(void *d, unsigned long v, size_t n)
{
	__asm__ volatile("rep stosq" : "+D"(d), "+c"(n) : "a"(v) : "memory");
}

static void rep_movsb(void *d, const void *s, size_t n)
{
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

static void rep_movsb_backward(void *d, const void *s, size_t n)
{
	char *dl = (char *)d + n - 1;
	const char *sl = (const char *)s + n - 1;
	__asm__ volatile("std\n\trep movsb\n\tcld" : "+D"(dl), "+S"(sl), "+c"(n) : : "memory", "cc");
}

int main(void)
{
	char *a = malloc(N1); /* @A */
	char *b = malloc(N2); /* @B */
	char *c = malloc(N2); /* @C */
	char *d = malloc(N3); /* @D */
	char *e = malloc(N3); /* @E */
	unsigned long *f = malloc(K * 64); /* @F */
	if (!a || !b || !c || !d || !e || !f)
		return 1;
	for (int i = 0; i < N2; i++)
		b[i] = (char)i;
	for (int i = 0; i < N3; i++)
		d[i] = (char)(i * 3);
	memprism_region_begin("rep");
	rep_stosb(a, 7, N1);
	rep_movsb(c, b, N2);
	rep_movsb_backward(e, d, N3);
	for (int i = 0; i < K; i++)
		rep_stosq(f + 8 * i, (unsigned long)i, 8);
	memprism_region_end("rep");
	long sum = a[N1 - 1] + c[N2 - 1] + e[0] + (long)f[8 * K - 1];
	printf("repstr %ld\n", sum);
	return 0;
}
