/* SPDX-License-Identifier: MIT */
/*
 * Open-addressing hash map from non-zero uint64 keys to uint64 values, for
 * the analysis side (symbol caches, stack and object interning).
 */
#ifndef MP_HASHMAP_H
#define MP_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

struct mp_hashmap {
	uint64_t *keys; /* 0 = empty slot */
	uint64_t *vals;
	size_t cap; /* power of two */
	size_t n;
};

void mp_hashmap_init(struct mp_hashmap *m);
void mp_hashmap_fini(struct mp_hashmap *m);
/* Returns a pointer to the value for key, or NULL if absent. key != 0. */
uint64_t *mp_hashmap_get(const struct mp_hashmap *m, uint64_t key);
/* Inserts or overwrites. Returns 0 or -ENOMEM. key != 0. */
int mp_hashmap_put(struct mp_hashmap *m, uint64_t key, uint64_t val);

static inline uint64_t mp_hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* FNV-1a over s, mixed; never 0 (a key of the map). */
static inline uint64_t mp_hash_str(const char *s, uint64_t seed)
{
	uint64_t h = 0xcbf29ce484222325ull ^ seed;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return mp_hash64(h) | 1;
}

#endif
