// SPDX-License-Identifier: MIT
/*
 * Set-associative arrays with true LRU (up to 16 ways, the ways in recency
 * order as nibbles of one word; beyond, a doubly linked list of them) or
 * tree pseudo-LRU
 * (the binary tree of ways-1 bits Intel and others build: each node points
 * to the half to evict from next; a use points every node on its path
 * away from it). One block of memory per set (layout in model_int.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/mp_bigmem.h"
#include "model/model_int.h"

/* Every LRU set starts with way i at rank i (empty ways go first anyway). */
static void init_orders(struct model_cache *c)
{
	if (c->repl != MP_REPL_LRU)
		return;
	uint64_t order = c->ways >= 16 ? 0xfedcba9876543210ull
				       : 0xfedcba9876543210ull & ((1ull << (4 * c->ways)) - 1);
	for (uint64_t s = 0; s < c->sets; s++) {
		if (c->nibble_lru) {
			*mc_order(c, s) = order; /* (unused nibbles stay 0) */
			continue;
		}
		uint32_t *ends = mc_list_ends(c, s);
		uint32_t *next = (uint32_t *)(model_cache_block(c, s) + c->off_links), *prev = next + c->ways;
		ends[0] = 0;
		ends[1] = c->ways - 1;
		for (uint32_t w = 0; w < c->ways; w++) {
			next[w] = w + 1; /* (the last one's is never read) */
			prev[w] = w ? w - 1 : 0;
		}
	}
}

int model_cache_init(struct model_cache *c, uint64_t entries, unsigned ways, unsigned repl, int with_owner)
{
	memset(c, 0, sizeof(*c));
	if (ways == 0 || entries == 0 || entries % ways || ways > (1u << 30))
		return -EINVAL;
	if (repl == MP_REPL_PLRU && (ways > 32 || (ways & (ways - 1))))
		return -EINVAL;
	c->sets = c->all_sets = (uint32_t)(entries / ways);
	c->ways = ways;
	c->pow2 = (c->sets & (c->sets - 1)) == 0;
	c->set_mask = c->sets - 1;
	if (!c->pow2)
		c->mod_m = ~(unsigned __int128)0 / c->sets + 1;
	c->repl = repl;
	c->nibble_lru = repl == MP_REPL_LRU && ways <= 16;
	while ((1u << c->levels) < ways)
		c->levels++;
	c->wshift = c->levels;
	if (repl == MP_REPL_PLRU && c->levels <= 3)
		for (unsigned b = 0; b < 256; b++)
			c->plru_leaf[b] = (uint8_t)mc_plru_walk(c->levels, b);
	if (repl == MP_REPL_PLRU)
		for (unsigned w = 0; w < ways; w++) {
			/* the path from the root to leaf w (mc_plru_use) */
			unsigned node = 1;
			for (unsigned l = c->levels; l-- > 0;) {
				unsigned dir = (w >> l) & 1;
				if (dir)
					c->plru_clr[w] |= 1u << node; /* used the right half: evict left next */
				else
					c->plru_set[w] |= 1u << node;
				node = node * 2 + dir;
			}
		}
	/* the set's block (model_int.h), 8-byte aligned throughout; what a
	 * lookup reads first (fingerprints, recency, flags) is in front */
	uint64_t at = (ways + 15ull) & ~15ull;
	if (repl == MP_REPL_LRU) { /* the recency word, or the list's ends */
		c->off_order = (uint32_t)at;
		at += 8;
	} else if (repl == MP_REPL_PLRU) {
		c->off_plru = (uint32_t)at;
		at += 8;
	}
	c->off_flags = (uint32_t)at;
	at += (ways + 7ull) & ~7ull;
	c->off_tag = (uint32_t)at;
	at += 8ull * ways;
	if (repl == MP_REPL_LRU && !c->nibble_lru) {
		c->off_links = (uint32_t)at;
		at += 8ull * ways;
	}
	if (with_owner) {
		c->off_owner = (uint32_t)at;
		at += 4ull * ways;
	}
	/* whole host cache lines per set, so the front is one line */
	at = (at + 63) & ~63ull;
	if (at > UINT32_MAX || c->sets > SIZE_MAX / at)
		return -EINVAL;
	c->set_bytes = (uint32_t)at;
	c->mem = mp_big_alloc((size_t)c->sets * at);
	if (!c->mem) {
		model_cache_fini(c);
		return -ENOMEM;
	}
	model_cache_clear(c); /* zeroes, and sets the recency orders */
	return 0;
}

int model_cache_keep_every(struct model_cache *c, unsigned n)
{
	unsigned shift = 0;
	while ((1u << shift) < n)
		shift++;
	if (n == 0 || (n & (n - 1)) || c->all_sets % n)
		return -EINVAL;
	uint32_t kept = c->all_sets >> shift;
	uint8_t *mem = mp_big_alloc((size_t)kept * c->set_bytes);
	if (!mem)
		return -ENOMEM;
	free(c->mem);
	c->mem = mem;
	c->sets = kept;
	c->keep_shift = shift;
	model_cache_clear(c);
	return 0;
}

void model_cache_fini(struct model_cache *c)
{
	free(c->mem);
	memset(c, 0, sizeof(*c));
}

void model_cache_clear(struct model_cache *c)
{
	if (c->mem)
		memset(c->mem, 0, (size_t)c->sets * c->set_bytes);
	init_orders(c);
}

uint64_t model_cache_insert(struct model_cache *c, uint64_t key, uint32_t owner, uint8_t flags, struct model_victim *v,
			    int *evicted)
{
	return mc_insert(c, key, owner, flags, v, evicted);
}
