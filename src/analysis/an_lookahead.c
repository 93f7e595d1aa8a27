// SPDX-License-Identifier: MIT
/*
 * The replay's lookahead: while pages miss the model's DTLB (or, in the
 * replay that checks the advice, the checks' DTLBs), or lookups go to a
 * map of many objects, a second decoder runs up to AN_AHEAD
 * records ahead of the replay and prefetches the host memory the lookups
 * and the model will read for them (the object's leaf, slot and object;
 * the translation's table slot, the page row, the model's sets and the
 * victim's), changing no state.
 */
#include <string.h>

#include "analysis/an_model_int.h"

/* An access ahead, off the stream's lookups (the loop's own objects, which
 * need no map), in a map of many objects: the slot of its granule in the
 * map's shadow, and AN_AHEAD_NAME records later the object named there;
 * where the shadow has no slot, its way down the tree and its object, a
 * step every AN_AHEAD_STEP records, each reading what the one before
 * fetched. A free ahead: its granule's slot and its way down the tree. */
static void hint_object(const struct an_state *st, struct an_stream *s, const struct trace_rec *r)
{
	const struct an_objmap *m = &st->procs.v[s->proc].map;
	const unsigned q = s->ahead_oseq++;
	const uint32_t **name = &s->ahead_names[(q - AN_AHEAD_NAME) % AN_AHEAD];
	if (*name) {
		const struct an_obj *o = an_objmap_named(m, **name);
		if (o) {
			__builtin_prefetch(o);
			/* the answer for the replay, good while the map stays
			 * as it is now (an_replay.c, apply_access) */
			struct an_ahead_acc *x = &s->ahead_acc[(q - AN_AHEAD_NAME) % AN_AHEAD];
			x->obj = o;
			x->gen = m->gen;
		}
		*name = NULL;
	}
	/* (most maps with many objects have the shadow: no tree hint under way) */
	if (q - s->ahead_tree <= AN_AHEAD)
		for (unsigned k = AN_AHEAD_STEP; k < AN_AHEAD; k += AN_AHEAD_STEP) {
			__typeof__(s->ahead_objs[0]) *e = &s->ahead_objs[(q - k) % AN_AHEAD];
			if (e->a1)
				an_objmap_hint_step(m, e->a1 - 1, &e->h);
		}
	__typeof__(s->ahead_objs[0]) *e = &s->ahead_objs[q % AN_AHEAD];
	e->a1 = 0;
	if (m->live < AN_AHEAD_OBJECTS)
		return;
	if (r->cls != MP_REC_ACCESS) {
		/* a free goes down the tree to its block's leaf and reads the
		 * block and its granules (an_objmap_take_at): among a million
		 * blocks four or five host misses in turn, which the steps of
		 * a tree's hint fetch ahead (smallobj's report: 2-3% less
		 * time; the malloc that takes the block again mostly goes to
		 * the same leaf, then in the host's caches too) */
		if (r->cls == MP_REC_EVENT && r->event == MP_EV_FREE) {
			const uint32_t *slot = an_objmap_hint_slot(m, r->f[2]);
			if (slot)
				__builtin_prefetch(slot);
			e->a1 = r->f[2] + 1;
			s->ahead_tree = q;
			an_objmap_hint_begin(m, r->f[2], &e->h);
		}
		return;
	}
	/* not a granule next to the last one hinted: the same block */
	const uint64_t g = r->addr >> AN_SHADOW_GRAIN;
	if (g - s->ahead_granule + 2 <= 4)
		return;
	const uint32_t *slot = an_objmap_hint_slot(m, r->addr);
	if (slot) {
		/* (whether the stream's lookups hold it or not: to ask costs
		 * more than a hint) */
		__builtin_prefetch(slot);
		s->ahead_names[q % AN_AHEAD] = slot;
		s->ahead_granule = g;
		return;
	}
	for (int k = 0; k < AN_LOOKUPS; k++)
		if (r->addr >= s->look[k].lo && r->addr < s->look[k].hi)
			return;
	e->a1 = r->addr + 1;
	s->ahead_tree = q;
	an_objmap_hint_begin(m, r->addr, &e->h);
}

/* Far enough ahead for the hint to arrive, the translation slot and TLB
 * row of each new page: over many pages these are the replay's host cache
 * misses. Then, for each new line, in stages that each read what the one
 * before fetched: its frame, the model's L2 and LLC sets for it and its
 * walk's last level, and the LLC sets their L2 victims will go to. Over an
 * LLC of 32 MiB (8 MiB of sets) a random reference otherwise waits on
 * three or four host misses in turn: the hints halve randacc's model time. */
void an_look_ahead(struct an_state *st, struct an_stream *s, int restart)
{
	const struct an_model *am = st->model;
	if (restart || !--s->ahead_on) {
		s->ahead_n = 0;
		s->ahead_page = s->ahead_line = UINT64_MAX;
		memset(s->ahead_lines, 0, sizeof(s->ahead_lines));
		memset(s->ahead_objs, 0, sizeof(s->ahead_objs));
		memset(s->ahead_names, 0, sizeof(s->ahead_names));
		return;
	}
	if (s->ahead_n)
		s->ahead_n--;
	else
		s->ahead = s->dec; /* caught up (a new chunk, or the end of one) */
	struct trace_rec r;
	while (s->ahead_n < AN_AHEAD) {
		/* an access is kept, decoded, for the replay (an_int.h,
		 * an_ahead_taken): a record decoded once, not twice */
		struct an_ahead_acc *x = &s->ahead_acc[s->ahead_oseq % AN_AHEAD];
		x->at = NULL;
		x->obj = NULL;
		const uint8_t *at = s->ahead.p;
		if (trace_dec_acc(&s->ahead, &x->a)) {
			x->at = at;
			x->p = s->ahead.p;
			x->last_addr = s->ahead.last_addr;
			x->last_ip = s->ahead.last_ip;
			x->prev_ip = s->ahead.prev_ip;
			r.cls = MP_REC_ACCESS;
			r.addr = x->a.addr;
		} else if (trace_dec_next(&s->ahead, &r) != 1) {
			break;
		}
		s->ahead_n++;
		hint_object(st, s, &r);
		if (!am)
			continue;
		const uint32_t pid = st->procs.v[s->proc].pid;
		/* the lines of earlier records, as the hints before had time to
		 * arrive: the frame, then the model's sets, then the victim's */
		_Static_assert((AN_AHEAD & (AN_AHEAD - 1)) == 0 && AN_AHEAD_SETS < AN_AHEAD_VICTIM &&
				       AN_AHEAD_VICTIM < AN_AHEAD,
			       "stages of the lookahead ring (indices wrap with the counter)");
		__typeof__(s->ahead_lines[0]) *e = NULL;
		if (am->hint_sets) {
			unsigned q = s->ahead_seq++;
			e = &s->ahead_lines[(q - AN_AHEAD_SETS) % AN_AHEAD];
			if (e->a1) {
				/* (through the stream's translations at hand, which the
				 * replay's reference will find there) */
				const struct an_ph_slot *t =
					st->phys ? anm_phys_slot(st, s, e->a1 - 1, s->ahead.time) : NULL;
				e->paddr = t ? an_ph_frame(t, e->a1 - 1) : 0;
				/* (the model on threads: each worker prefetches its own) */
				e->hinted = anm_model_here(am) ? mp_model_prefetch(am->m, s->core, s->proc, e->a1 - 1, e->paddr) : 0;
			}
			e = &s->ahead_lines[(q - AN_AHEAD_VICTIM) % AN_AHEAD];
			if (e->a1 && e->hinted && anm_model_here(am))
				mp_model_prefetch_victim(am->m, s->core, s->proc, e->a1 - 1, e->paddr, e->hinted);
			e = &s->ahead_lines[q % AN_AHEAD];
			e->a1 = 0;
		}
		if (r.cls != MP_REC_ACCESS)
			continue;
		if (e) {
			/* (not a line next to the last one or two away, a stream's:
			 * the host's own prefetcher brings their sets) */
			uint64_t ln = r.addr >> am->line_shift;
			if (ln - s->ahead_line + 2 > 4)
				e->a1 = r.addr + 1;
			s->ahead_line = ln;
		}
		if (r.addr >> 12 == s->ahead_page)
			continue;
		s->ahead_page = r.addr >> 12;
		if (st->phys)
			an_phys_prefetch(st->phys, pid, r.addr);
		if (am->rows_cap) {
			const struct page_row *w =
				&am->rows[row_home(s->proc, r.addr >> 12, 12, st->parts_on ? s->thread : 0, am->rows_cap)];
			__builtin_prefetch(w);
			__builtin_prefetch((const char *)(w + 1) - 1); /* it may straddle two lines */
		}
	}
}
