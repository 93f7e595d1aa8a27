/* SPDX-License-Identifier: MIT */
/* Internals of the model: one set-associative array type serves caches,
 * TLBs and paging-structure caches alike. */
#ifndef MP_MODEL_INT_H
#define MP_MODEL_INT_H

#include <stdint.h>

#include "model/model.h"

enum { MC_DIRTY = 1, MC_EXCL = 2 /* no other core has the line (MESI E/M) */ };

/* A set-associative array of keys. Entry i of set s is [s * ways + i]. */
struct model_cache {
	uint32_t sets, ways;
	uint64_t set_mask; /* sets - 1 when sets is a power of two */
	int pow2;
	unsigned repl; /* enum mp_repl */
	unsigned levels; /* PLRU tree depth: log2(ways) */
	uint64_t *tag; /* key + 1; 0 = empty */
	uint64_t *stamp; /* LRU: the clock at the last use */
	uint32_t *plru; /* PLRU: one tree of ways-1 bits per set */
	uint32_t *owner; /* NULL unless made with owners */
	uint8_t *flags; /* MC_* */
	uint64_t clock;
};

struct model_victim {
	uint64_t key;
	uint32_t owner;
	uint8_t flags;
};

/* entries = sets * ways. 0 or -ENOMEM / -EINVAL (PLRU needs power-of-two ways
 * up to 32; entries must be a multiple of ways). */
int model_cache_init(struct model_cache *c, uint64_t entries, unsigned ways, unsigned repl, int with_owner);
void model_cache_fini(struct model_cache *c);
void model_cache_clear(struct model_cache *c);

static inline uint64_t model_cache_set(const struct model_cache *c, uint64_t key)
{
	return c->pow2 ? key & c->set_mask : key % c->sets;
}

/* Index of key's entry or -1. */
static inline int64_t model_cache_find(const struct model_cache *c, uint64_t key)
{
	uint64_t base = model_cache_set(c, key) * c->ways, t = key + 1;
	const uint64_t *tag = c->tag + base;
	for (uint32_t w = 0; w < c->ways; w++)
		if (tag[w] == t)
			return (int64_t)(base + w);
	return -1;
}

void model_cache_plru_touch(struct model_cache *c, uint64_t idx);

/* Marks entry idx most recently used. */
static inline void model_cache_touch(struct model_cache *c, uint64_t idx)
{
	if (c->stamp)
		c->stamp[idx] = ++c->clock;
	else
		model_cache_plru_touch(c, idx);
}

/* Inserts key (absent), as most recently used; an empty way first, else
 * the replacement policy's victim. Returns the entry index; *v gets the
 * evicted entry and the return of *evicted says whether there was one. */
uint64_t model_cache_insert(struct model_cache *c, uint64_t key, uint32_t owner, uint8_t flags, struct model_victim *v,
			    int *evicted);

/* Removes entry idx. */
static inline void model_cache_drop(struct model_cache *c, uint64_t idx)
{
	c->tag[idx] = 0;
	c->flags[idx] = 0;
	if (c->stamp)
		c->stamp[idx] = 0; /* empty entries are the first victims */
}

static inline uint64_t model_cache_key(const struct model_cache *c, uint64_t idx)
{
	return c->tag[idx] - 1;
}

#endif
