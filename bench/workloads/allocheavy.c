// SPDX-License-Identifier: MIT
/*
 * allocheavy: `pairs` malloc/free pairs with sizes from 16 B to 64 KiB drawn
 * log-uniformly from a fixed-seed xorshift64 generator (all below glibc's
 * mmap threshold, so everything is served from the heap). A pool of 64 live
 * slots is kept; each step frees the block in a random slot and mallocs a
 * new one in its place, so frees are not in LIFO order.
 *
 * Touching: each block gets its FIRST and LAST byte written right after
 * malloc, and both bytes are read back just before it is freed (two stores
 * and two loads per block). We deliberately do not memset whole blocks: the
 * average block is ~8 KiB, and memset would make the run a memory-bandwidth
 * test instead of an allocator test.
 * Deterministic; prints a checksum so the work is not optimized away.
 * Usage: allocheavy [pairs, default 2000000]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define SLOTS 64
#define MIN_LOG2 4 /* 16 B */
#define MAX_LOG2 16 /* 64 KiB */

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static inline uint64_t xorshift64(void)
{
	uint64_t x = rng;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng = x;
}

/* Log-uniform in [16, 65536]: uniform exponent, then uniform within the octave. */
static size_t pick_size(void)
{
	uint64_t r = xorshift64();
	unsigned e = MIN_LOG2 + (unsigned)(r % (MAX_LOG2 - MIN_LOG2));
	size_t lo = (size_t)1 << e;
	return lo + (size_t)((r >> 16) % (lo + 1)); /* [2^e, 2^(e+1)] */
}

struct slot {
	unsigned char *p;
	size_t size;
};

static uint64_t release(struct slot *s)
{
	uint64_t c = 0;
	if (s->p) {
		c = (uint64_t)s->p[0] * 257u + s->p[s->size - 1] + s->size;
		free(s->p);
		s->p = NULL;
	}
	return c;
}

int main(int argc, char **argv)
{
	size_t pairs = argc > 1 ? strtoul(argv[1], NULL, 10) : 2000000;
	struct slot pool[SLOTS] = { { 0 } };
	uint64_t sum = 0;

	for (size_t k = 0; k < pairs; k++) {
		struct slot *s = &pool[xorshift64() % SLOTS];
		sum += release(s);
		size_t size = pick_size();
		unsigned char *p = malloc(size);
		if (!p) {
			perror("malloc");
			return 1;
		}
		p[0] = (unsigned char)k;
		p[size - 1] = (unsigned char)(k >> 8);
		s->p = p;
		s->size = size;
	}
	for (int i = 0; i < SLOTS; i++)
		sum += release(&pool[i]);
	printf("allocheavy: %zu pairs, checksum %llu\n", pairs, (unsigned long long)sum);
	return 0;
}
