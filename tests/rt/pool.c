// SPDX-License-Identifier: MIT
/*
 * A program's own allocator: main mallocs a 64 KiB pool (@POOL), which
 * pool_get carves bump-pointer style (with a free list for 800-byte
 * blocks) and pool_put takes back; both are annotated with
 * memprism_malloclike / memprism_freelike unless run as `pool plain`.
 * Inside region "work", through volatile pointers, each carved block used
 * by a function of its own:
 *   @A  pool_get(400)          -> fill_a: 100 int stores
 *   @B  pool_get(800)          -> fill_b: 200 int stores, sum_b: 50 int loads
 *   @C  10 x pool_get(32)      -> fill_node: 4 long stores each (40)
 *   pool_put(B): the free list's link is stored into B's memory (1 store,
 *   the pool's own, after the freelike)
 *   @D  pool_get(800)          -> pops B's memory (1 load of the link, the
 *                                 pool's own, before the malloclike);
 *                                 fill_d: 30 int stores
 *   pool_put(A): no link (400 bytes are not kept)
 * Annotated: rows A 100, B 250, C 40 (10 instances), D 30, and the pool
 * row only the allocator's own store and load. Plain: the pool row has
 * all 422. After the region the pool is freed (its carved C blocks
 * end with it) and a new block of the pool's size (@Z, often at the same
 * address) gets 7 stores: they are Z's alone.
 */
#include <memprism.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POOL_SIZE (64u << 10)

static struct {
	char *mem;
	size_t used;
	void *free800; /* blocks of 800 bytes given back */
	int annotate;
} pool;

__attribute__((noinline)) static void *pool_get(size_t n)
{
	void *p;
	if (n == 800 && pool.free800) {
		p = pool.free800;
		pool.free800 = *(void *volatile *)p;
	} else {
		n = (n + 15) & ~(size_t)15;
		if (pool.used + n > POOL_SIZE)
			return NULL;
		p = pool.mem + pool.used;
		pool.used += n;
	}
	if (pool.annotate)
		memprism_malloclike(p, n);
	return p;
}

__attribute__((noinline)) static void pool_put(void *p, size_t n)
{
	if (pool.annotate)
		memprism_freelike(p);
	if (n == 800) {
		*(void *volatile *)p = pool.free800;
		pool.free800 = p;
	}
}

__attribute__((noinline)) static void fill_a(volatile int *a)
{
	for (int i = 0; i < 100; i++)
		a[i] = i;
}

__attribute__((noinline)) static void fill_b(volatile int *b)
{
	for (int i = 0; i < 200; i++)
		b[i] = i;
}

__attribute__((noinline)) static long sum_b(volatile int *b)
{
	long s = 0;
	for (int i = 0; i < 50; i++)
		s += b[i];
	return s;
}

__attribute__((noinline)) static void fill_node(volatile long *n, long v)
{
	for (int i = 0; i < 4; i++)
		n[i] = v + i;
}

__attribute__((noinline)) static void fill_d(volatile int *d)
{
	for (int i = 0; i < 30; i++)
		d[i] = -i;
}

int main(int argc, char **argv)
{
	pool.annotate = !(argc > 1 && strcmp(argv[1], "plain") == 0);
	pool.mem = malloc(POOL_SIZE); /* @POOL */
	if (!pool.mem)
		return 1;
	memprism_region_begin("work");
	volatile int *a = pool_get(400); /* @A */
	volatile int *b = pool_get(800); /* @B */
	fill_a(a);
	fill_b(b);
	long sum = sum_b(b);
	for (int i = 0; i < 10; i++) {
		volatile long *n = pool_get(32); /* @C */
		fill_node(n, i);
	}
	pool_put((void *)b, 800);
	volatile int *d = pool_get(800); /* @D */
	fill_d(d);
	pool_put((void *)a, 400);
	memprism_region_end("work");
	free(pool.mem);
	volatile long *z = malloc(POOL_SIZE); /* @Z */
	if (!z)
		return 1;
	for (int i = 0; i < 7; i++)
		z[i * 1024] = i;
	printf("d %s b, z %s the pool\n", (void *)d == (void *)b ? "reuses" : "does not reuse",
	       (void *)z == (void *)pool.mem ? "reuses" : "does not reuse");
	printf("checksum %ld\n", sum);
	free((void *)z);
	return 0;
}
