// SPDX-License-Identifier: MIT
/*
 * Allocation wrappers. xmalloc (its name contains "alloc") and get_buffer
 * (it does not) both call malloc and check the result, so neither is a tail
 * call and both stay on the allocation stack (noinline). Each is called from
 * two lines of main with different buffers; inside region "work", through
 * volatile pointers:
 *   @X1 xmalloc(1000)    -> 100 int stores
 *   @X2 xmalloc(2000)    -> 200 int stores + 50 int loads
 *   @G1 get_buffer(3000) -> 300 int stores
 *   @G2 get_buffer(4000) -> 400 int stores
 *   @N1 new_node()       -> 10 long stores (new_node calls xmalloc(80): a
 *                           chain of two wrappers, both skipped by name)
 * Default labels: main's lines for xmalloc, get_buffer's own malloc line
 * (@GM, both buffers in one row) for get_buffer. --no-wrapper-heuristic:
 * one row at xmalloc's malloc line (@XM, 3 instances). -w get_buffer: main's
 * lines for get_buffer too. Every view: stdout's buffer, which printf
 * allocates inside libc, at main's printf line (@OUT).
 */
#include <memprism.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void *xmalloc(size_t n)
{
	void *p = malloc(n); /* @XM */
	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	return p;
}

__attribute__((noinline)) void *get_buffer(size_t n)
{
	void *p = malloc(n); /* @GM */
	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	return p;
}

__attribute__((noinline)) long *new_node(void)
{
	long *n = xmalloc(10 * sizeof(long));
	n[0] = 0; /* before the region */
	return n;
}

static void fill(volatile int *p, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = i;
}

int main(void)
{
	volatile int *x1 = xmalloc(1000); /* @X1 */
	volatile int *x2 = xmalloc(2000); /* @X2 */
	volatile int *g1 = get_buffer(3000); /* @G1 */
	volatile int *g2 = get_buffer(4000); /* @G2 */
	volatile long *node = new_node(); /* @N1 */
	long sum = 0;
	memprism_region_begin("work");
	fill(x1, 100);
	fill(x2, 200);
	for (int i = 0; i < 50; i++)
		sum += x2[i];
	fill(g1, 300);
	fill(g2, 400);
	for (int i = 0; i < 10; i++)
		node[i] = i;
	memprism_region_end("work");
	printf("checksum %ld\n", sum); /* @OUT */
	free((void *)x1);
	free((void *)x2);
	free((void *)g1);
	free((void *)g2);
	free((void *)node);
	return 0;
}
