// SPDX-License-Identifier: MIT
/*
 * smallobj: a chained hash table of many small nodes, the shape of a
 * database engine's or an interpreter's heap: `nodes` 32-byte nodes, each
 * its own malloc, hashed into nodes/2 buckets, then `lookups` lookups of
 * random keys (three in four present) that walk their bucket's chain, and
 * one node in 16 looked up is deleted and inserted again (a free and a
 * malloc among millions of live blocks). Fixed-seed xorshift64;
 * deterministic; prints a checksum so the work is not optimized away.
 * Usage: smallobj [nodes, default 1000000] [lookups, default 4000000]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct node {
	uint64_t key;
	uint64_t value;
	struct node *next;
	uint64_t hits;
};

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static inline uint64_t xorshift64(void)
{
	uint64_t x = rng;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng = x;
}

static inline size_t bucket_of(uint64_t key, size_t nb)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 32) % nb;
}

static int insert(struct node **tab, size_t nb, uint64_t key)
{
	struct node *n = malloc(sizeof(*n));
	if (!n)
		return -1;
	size_t b = bucket_of(key, nb);
	n->key = key;
	n->value = key ^ 0x5555;
	n->hits = 0;
	n->next = tab[b];
	tab[b] = n;
	return 0;
}

int main(int argc, char **argv)
{
	size_t nodes = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
	size_t lookups = argc > 2 ? strtoul(argv[2], NULL, 10) : 4000000;
	if (nodes < 2) {
		fprintf(stderr, "usage: smallobj [nodes >= 2] [lookups]\n");
		return 2;
	}
	size_t nb = nodes / 2;
	struct node **tab = calloc(nb, sizeof(*tab));
	if (!tab) {
		perror("calloc");
		return 1;
	}
	/* keys 0 .. nodes-1; a lookup's key is below nodes * 4 / 3 */
	for (size_t k = 0; k < nodes; k++)
		if (insert(tab, nb, k)) {
			perror("malloc");
			return 1;
		}

	uint64_t sum = 0;
	const uint64_t span = nodes + nodes / 3;
	for (size_t i = 0; i < lookups; i++) {
		uint64_t key = xorshift64() % span;
		size_t b = bucket_of(key, nb);
		struct node **at = &tab[b];
		struct node *n = *at;
		while (n && n->key != key) {
			at = &n->next;
			n = *at;
		}
		if (!n)
			continue;
		sum += n->value + n->hits++;
		if ((i & 15) == 0) {
			/* out and in again: a fresh block at the bucket's head */
			*at = n->next;
			free(n);
			if (insert(tab, nb, key)) {
				perror("malloc");
				return 1;
			}
		}
	}
	printf("smallobj: %zu nodes, %zu lookups, checksum %llu\n", nodes, lookups, (unsigned long long)sum);
	return 0;
}
