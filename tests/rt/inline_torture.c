// SPDX-License-Identifier: MIT
/*
 * Constructs inline instrumentation and its passive copies must survive:
 * varargs, computed goto, setjmp/longjmp, VLAs and alloca, threads with
 * TLS and atomics, __int128, complex, struct copies, inline asm.
 * test_inline.sh compares its output with a plain build's and counts the
 * atomics: 4 threads x 10,000 atomic_fetch_add on `shared`.
 */
#include <alloca.h>
#include <complex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

static jmp_buf jb;
static _Thread_local long tls_acc;
static _Atomic long shared;

static long vsum(int n, ...)
{
	va_list ap;
	va_start(ap, n);
	long s = 0;
	for (int i = 0; i < n; i++)
		s += va_arg(ap, long);
	va_end(ap);
	return s;
}

static int dispatch(const unsigned char *code, int n)
{
	static void *ops[] = { &&op_inc, &&op_dbl, &&op_end };
	int acc = 1, pc = 0;
	goto *ops[code[pc]];
op_inc:
	acc++;
	if (++pc >= n)
		return acc;
	goto *ops[code[pc]];
op_dbl:
	acc *= 2;
	if (++pc >= n)
		return acc;
	goto *ops[code[pc]];
op_end:
	return acc;
}

static void deep(int k)
{
	if (k == 0)
		longjmp(jb, 42);
	volatile char pad[64];
	pad[k % 64] = (char)k;
	deep(k - 1);
}

static long vla(int n)
{
	long a[n];
	long *b = alloca(sizeof(long) * (size_t)n);
	for (int i = 0; i < n; i++)
		a[i] = i, b[i] = 2 * i;
	long s = 0;
	for (int i = 0; i < n; i++)
		s += a[i] * b[n - 1 - i];
	return s;
}

static void *worker(void *arg)
{
	long id = (long)arg;
	for (int i = 0; i < 10000; i++) {
		tls_acc += i;
		atomic_fetch_add(&shared, 1);
	}
	return (void *)(tls_acc + id);
}

/* A loop left by a return from its middle, and by its end: the hot state
 * copy must be written back on both ways out. */
static int hay[1000];
__attribute__((noinline)) static int find(int x)
{
	for (int i = 0; i < 1000; i++)
		if (hay[i] == x)
			return i;
	return -1;
}

static __int128 wide(__int128 x)
{
	for (int i = 0; i < 5; i++)
		x = x * 3 + i;
	return x;
}
static double complex rot(double complex z, int n)
{
	for (int i = 0; i < n; i++)
		z *= I;
	return z;
}

int main(void)
{
	printf("vsum %ld\n", vsum(5, 1L, 2L, 3L, 4L, 5L));
	unsigned char code[] = { 0, 1, 1, 0, 1, 2 };
	printf("dispatch %d\n", dispatch(code, 6));
	int r = setjmp(jb);
	if (!r)
		deep(20);
	printf("longjmp %d\n", r);
	printf("vla %ld\n", vla(37));
	for (int i = 0; i < 1000; i++)
		hay[i] = i * 3;
	printf("find %d %d %d\n", find(1500), find(-5), find(2997));
	pthread_t t[4];
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	long s = 0;
	for (int i = 0; i < 4; i++) {
		void *v;
		pthread_join(t[i], &v);
		s += (long)v;
	}
	printf("threads %ld shared %ld\n", s, atomic_load(&shared));
	__int128 w = wide(7);
	printf("wide %llu\n", (unsigned long long)(w & 0xffffffffffff));
	double complex z = rot(1.0 + 2.0 * I, 3);
	printf("complex %.1f %.1f\n", creal(z), cimag(z));
	char buf[64];
	struct {
		int a;
		char b[20];
	} x = { 5, "hello" }, y;
	y = x;
	memcpy(buf, &y, sizeof y);
	printf("copy %d %s\n", ((int *)buf)[0], buf + 4);
	unsigned u;
	__asm__ volatile("movl $7, %0" : "=r"(u));
	printf("asm %u\n", u);
	return 0;
}
