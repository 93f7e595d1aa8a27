// SPDX-License-Identifier: MIT
/*
 * Allocation wrappers, judged by what functions do, not by their names.
 * xmalloc and get_buffer both call malloc from one line, check the result
 * and return the block, which only their callers use: wrappers, whatever
 * their names (neither is a tail call, both stay on the allocation stack:
 * noinline). Each is called from two lines of main with different buffers;
 * inside region "work", through volatile pointers:
 *   @X1 xmalloc(1000)    -> 100 int stores
 *   @X2 xmalloc(2000)    -> 200 int stores + 50 int loads
 *   @G1 get_buffer(3000) -> 300 int stores
 *   @G2 get_buffer(4000) -> 400 int stores
 *   @N1 new_node()       -> 10 long stores (new_node calls xmalloc(80) and
 *                           stores one long before the region: a chain of
 *                           two wrappers)
 * Two functions with "alloc" in their names that are no wrappers:
 *   @GC alloc_graph(60)  allocates a struct (@GS) and two arrays (@GA,
 *                        @GW) from three lines: main loads the struct's n
 *                        once, stores 60 ints into one array and 40
 *                        doubles into the other: three rows in alloc_graph
 *   @XS1, @XS2 xalloc_and_sum(20), (30): mallocs a table (@XS) and uses it
 *                        itself, 20 + 30 stores and as many loads: one row
 *                        at @XS, 2 instances
 * Default labels: main's lines for xmalloc, get_buffer and new_node.
 * --no-wrapper-heuristic: one row at xmalloc's malloc line (@XM, 3
 * instances), one at get_buffer's (@GM, 2). --not-wrapper get_buffer: @GM
 * alone. -w alloc_graph: its three blocks at main's @GC. Every view:
 * stdout's buffer, which printf allocates inside libc, at main's printf
 * line (@OUT).
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

struct graph {
	int n;
	int *adj;
	double *w;
};

__attribute__((noinline)) struct graph *alloc_graph(int n)
{
	struct graph *g = malloc(sizeof(*g)); /* @GS */
	if (!g)
		exit(1);
	g->n = n;
	g->adj = malloc((size_t)n * sizeof(int)); /* @GA */
	g->w = malloc((size_t)n * sizeof(double)); /* @GW */
	if (!g->adj || !g->w)
		exit(1);
	return g;
}

__attribute__((noinline)) long xalloc_and_sum(int n)
{
	volatile int *t = malloc((size_t)n * sizeof(int)); /* @XS */
	if (!t)
		exit(1);
	long s = 0;
	for (int i = 0; i < n; i++)
		t[i] = i;
	for (int i = 0; i < n; i++)
		s += t[i];
	free((void *)t);
	return s;
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
	struct graph *g = alloc_graph(60); /* @GC */
	volatile int *adj = g->adj;
	volatile double *w = g->w;
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
	int gn = ((volatile struct graph *)g)->n;
	for (int i = 0; i < gn; i++)
		adj[i] = i;
	for (int i = 0; i < 40; i++)
		w[i] = i;
	sum += xalloc_and_sum(20); /* @XS1 */
	sum += xalloc_and_sum(30); /* @XS2 */
	memprism_region_end("work");
	printf("checksum %ld\n", sum); /* @OUT */
	free((void *)x1);
	free((void *)x2);
	free((void *)g1);
	free((void *)g2);
	free((void *)node);
	free(g->adj);
	free(g->w);
	free(g);
	return 0;
}
