// SPDX-License-Identifier: MIT
/*
 * Set-associative arrays with true LRU (a use clock per entry: the ways of
 * a set are few, so finding the oldest is a short scan) or tree pseudo-LRU
 * (the binary tree of ways-1 bits Intel and others build: each node points
 * to the half to evict from next; a use points every node on its path
 * away from it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_int.h"

int model_cache_init(struct model_cache *c, uint64_t entries, unsigned ways, unsigned repl, int with_owner)
{
	memset(c, 0, sizeof(*c));
	if (ways == 0 || entries == 0 || entries % ways)
		return -EINVAL;
	if (repl == MP_REPL_PLRU && (ways > 32 || (ways & (ways - 1))))
		return -EINVAL;
	c->sets = (uint32_t)(entries / ways);
	c->ways = ways;
	c->pow2 = (c->sets & (c->sets - 1)) == 0;
	c->set_mask = c->sets - 1;
	c->repl = repl;
	while ((1u << c->levels) < ways)
		c->levels++;
	c->tag = calloc(entries, sizeof(*c->tag));
	c->flags = calloc(entries, 1);
	if (repl == MP_REPL_PLRU)
		c->plru = calloc(c->sets, sizeof(*c->plru));
	else
		c->stamp = calloc(entries, sizeof(*c->stamp));
	if (with_owner)
		c->owner = calloc(entries, sizeof(*c->owner));
	if (!c->tag || !c->flags || (!c->plru && !c->stamp) || (with_owner && !c->owner)) {
		model_cache_fini(c);
		return -ENOMEM;
	}
	return 0;
}

void model_cache_fini(struct model_cache *c)
{
	free(c->tag);
	free(c->flags);
	free(c->plru);
	free(c->stamp);
	free(c->owner);
	memset(c, 0, sizeof(*c));
}

void model_cache_clear(struct model_cache *c)
{
	uint64_t n = (uint64_t)c->sets * c->ways;
	memset(c->tag, 0, n * sizeof(*c->tag));
	memset(c->flags, 0, n);
	if (c->plru)
		memset(c->plru, 0, c->sets * sizeof(*c->plru));
	if (c->stamp)
		memset(c->stamp, 0, n * sizeof(*c->stamp));
	c->clock = 0;
}

/* Tree nodes are numbered 1..ways-1 in heap order; bit n of the set's word
 * is node n: 0 evict from the left half next, 1 from the right. */
static void plru_touch(struct model_cache *c, uint64_t set, unsigned way)
{
	uint32_t bits = c->plru[set];
	unsigned node = 1;
	for (unsigned l = c->levels; l-- > 0;) {
		unsigned dir = (way >> l) & 1;
		if (dir)
			bits &= ~(1u << node); /* used the right half: evict left next */
		else
			bits |= 1u << node;
		node = node * 2 + dir;
	}
	c->plru[set] = bits;
}

static unsigned plru_victim(const struct model_cache *c, uint64_t set)
{
	uint32_t bits = c->plru[set];
	unsigned node = 1;
	for (unsigned l = 0; l < c->levels; l++)
		node = node * 2 + ((bits >> node) & 1);
	return node - c->ways;
}

void model_cache_plru_touch(struct model_cache *c, uint64_t idx)
{
	uint64_t set = idx / c->ways;
	plru_touch(c, set, (unsigned)(idx - set * c->ways));
}

uint64_t model_cache_insert(struct model_cache *c, uint64_t key, uint32_t owner, uint8_t flags, struct model_victim *v,
			    int *evicted)
{
	uint64_t set = model_cache_set(c, key), base = set * c->ways;
	uint64_t idx = UINT64_MAX;
	if (c->stamp) {
		/* an empty entry has stamp 0 (cleared on drop): the oldest of all */
		const uint64_t *st = c->stamp + base;
		uint64_t best = st[0];
		uint32_t bw = 0;
		for (uint32_t w = 1; w < c->ways; w++)
			if (st[w] < best) {
				best = st[w];
				bw = w;
			}
		idx = base + bw;
	} else {
		for (uint32_t w = 0; w < c->ways; w++)
			if (!c->tag[base + w]) {
				idx = base + w;
				break;
			}
		if (idx == UINT64_MAX)
			idx = base + plru_victim(c, set);
	}
	*evicted = 0;
	if (c->tag[idx]) {
		*evicted = 1;
		v->key = c->tag[idx] - 1;
		v->flags = c->flags[idx];
		v->owner = c->owner ? c->owner[idx] : MP_MODEL_NO_OWNER;
	}
	c->tag[idx] = key + 1;
	c->flags[idx] = flags;
	if (c->owner)
		c->owner[idx] = owner;
	model_cache_touch(c, idx);
	return idx;
}
