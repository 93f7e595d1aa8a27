// SPDX-License-Identifier: MIT
/*
 * The replay's tallies of counted accesses per (class, code address), the
 * wrapper judgement's evidence (an_sites.c): what a stream's slots spill.
 */
#include "analysis/an_int.h"
#include "common/hashmap.h"

/* The wrapper judgement's evidence (an_sites.c): counted accesses per
 * (class, code address), for classes with an allocation stack. A stream
 * keeps a few at hand (an_replay.c); one whose slot another wants goes to
 * st->pairs. */
void an_pair_spill(struct an_state *st, struct an_pair_slot *e)
{
	const uint32_t cls = (uint32_t)(e->key >> 32);
	if (cls < st->class_stack.n && st->class_stack.v[cls] != UINT32_MAX) {
		uint64_t *v = mp_hashmap_get(&st->pairs, e->key);
		if (v)
			*v += e->n;
		else if (st->pairs.n < st->pairs_max && mp_hashmap_put(&st->pairs, e->key, e->n))
			st->oom = 1;
	}
	e->key = e->n = 0;
}

void an_pairs_flush(struct an_state *st, struct an_stream *s)
{
	for (unsigned i = 0; i < (1u << AN_PAIR_BITS); i++)
		if (s->pairs[i].key)
			an_pair_spill(st, &s->pairs[i]);
}

void an_pairs_finish(struct an_state *st)
{
	struct an_pair_slot e;
	for (size_t i = 0; i < st->ips.n; i++) {
		struct an_ip *ip = &st->ips.v[i];
		if (!ip->pair_n)
			continue;
		e = (struct an_pair_slot){ (uint64_t)(ip->pair_cls - 1) << 32 | (i + 1), ip->pair_n };
		an_pair_spill(st, &e);
		ip->pair_n = 0;
	}
}
