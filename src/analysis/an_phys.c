// SPDX-License-Identifier: MIT
/*
 * Virtual-to-physical translations over time, from the PAGEMAP chunks of
 * the launcher (periodic looks) and the runtime (before big blocks go back
 * to the kernel, and at exit). Each page keeps its translations newest
 * first; a lookup at time t takes the newest one made at or before t, or the
 * oldest when the page was first seen after t (first touch happened between
 * two looks: the frame it got then is the one seen next). A reverse table
 * maps frames back to (pid, page): the reverse page table of seed 000.
 * The model's per-reference lookups go through a direct-mapped cache of
 * answers, each kept with the span of time it holds for.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_int.h"
#include "common/hashmap.h"

struct phys_ent {
	uint64_t vpage, pfn, time;
	uint32_t pid, flags;
	uint32_t older; /* index + 1 of the previous translation of this page, 0 none */
	uint32_t frame_prev; /* index + 1 of the previous entry for this frame, 0 none */
};

/* A translation as looked up, with the span of time it holds for: the
 * model asks for every line reference, and most ask for a page and time
 * asked for before. */
struct phys_cached {
	uint64_t vpage, lo, hi; /* the answer holds for lo <= time < hi */
	uint64_t paddr; /* frame address, 0 when there was none */
	uint32_t pid, flags;
};

#define PHYS_CACHE 4096 /* direct-mapped slots: 16 MiB of 4 KiB pages */

struct an_phys {
	MP_VEC(struct phys_ent) ents;
	struct mp_hashmap byvpage; /* key(pid, vpage) -> newest entry */
	struct mp_hashmap bypfn; /* pfn -> newest entry that maps it */
	uint64_t pages;
	struct phys_cached *cache; /* PHYS_CACHE slots, hi == 0: empty */
};

static uint64_t vkey(uint32_t pid, uint64_t vpage)
{
	return mp_hash64(vpage ^ ((uint64_t)pid << 40)) | 1;
}

static uint64_t pkey(uint64_t pfn)
{
	return mp_hash64(pfn + 0x9e37) | 1;
}

/* Inserts one translation, keeping each page's chain newest first. Hash
 * collisions between pages are told apart by the stored page and pid. */
static int insert(struct an_phys *ph, uint32_t pid, uint64_t vpage, uint64_t pfn, uint32_t flags, uint64_t time)
{
	uint64_t k = vkey(pid, vpage);
	uint64_t *v = mp_hashmap_get(&ph->byvpage, k);
	while (v && (ph->ents.v[*v].vpage != vpage || ph->ents.v[*v].pid != pid))
		v = mp_hashmap_get(&ph->byvpage, k = mp_hash64(k) | 1); /* probe on */
	struct phys_ent e = { vpage, pfn, time, pid, flags, 0, 0 };
	uint64_t *fv = pfn ? mp_hashmap_get(&ph->bypfn, pkey(pfn)) : NULL;
	if (fv)
		e.frame_prev = (uint32_t)*fv + 1;
	if (v) {
		struct phys_ent *head = &ph->ents.v[*v];
		if (head->pfn == pfn && head->flags == flags && time >= head->time)
			return 0; /* the same again */
		if (time >= head->time) {
			e.older = (uint32_t)*v + 1;
		} else {
			/* an older look arriving late: slot it into the chain */
			uint32_t at = (uint32_t)*v;
			while (ph->ents.v[at].older && ph->ents.v[ph->ents.v[at].older - 1].time > time)
				at = ph->ents.v[at].older - 1;
			e.older = ph->ents.v[at].older;
			if (mp_vec_push(&ph->ents, e))
				return -ENOMEM;
			ph->ents.v[at].older = (uint32_t)ph->ents.n;
			if (pfn && mp_hashmap_put(&ph->bypfn, pkey(pfn), ph->ents.n - 1))
				return -ENOMEM;
			return 0;
		}
	} else {
		ph->pages++;
	}
	if (mp_vec_push(&ph->ents, e))
		return -ENOMEM;
	uint64_t idx = ph->ents.n - 1;
	if (mp_hashmap_put(&ph->byvpage, k, idx))
		return -ENOMEM;
	if (pfn && mp_hashmap_put(&ph->bypfn, pkey(pfn), idx))
		return -ENOMEM;
	return 0;
}

struct an_phys *an_phys_new(void)
{
	struct an_phys *ph = calloc(1, sizeof(*ph));
	if (!ph)
		return NULL;
	ph->cache = calloc(PHYS_CACHE, sizeof(*ph->cache));
	if (!ph->cache) {
		free(ph);
		return NULL;
	}
	mp_hashmap_init(&ph->byvpage);
	mp_hashmap_init(&ph->bypfn);
	return ph;
}

void an_phys_del(struct an_phys *ph)
{
	if (!ph)
		return;
	mp_vec_free(&ph->ents);
	mp_hashmap_fini(&ph->byvpage);
	mp_hashmap_fini(&ph->bypfn);
	free(ph->cache);
	free(ph);
}

static struct phys_cached *cache_slot(const struct an_phys *ph, uint32_t pid, uint64_t vpage)
{
	return &ph->cache[(vpage ^ (uint64_t)pid * 0x9e3779b1u) & (PHYS_CACHE - 1)];
}

int an_phys_add(struct an_phys *ph, uint32_t pid, uint64_t vpage, uint64_t pfn, uint32_t flags, uint64_t time)
{
	/* a new translation changes the answers for its page: forget the
	 * cached one (a page has at most one, in its slot) */
	struct phys_cached *c = cache_slot(ph, pid, vpage);
	if (c->vpage == vpage && c->pid == pid)
		c->hi = 0;
	return insert(ph, pid, vpage, pfn, flags, time);
}

int an_phys_load(struct an_state *st)
{
	if (!st->pagemap_chunks.n)
		return 0;
	struct an_phys *ph = an_phys_new();
	if (!ph)
		return -ENOMEM;
	st->phys = ph;
	int bad = 0;
	for (size_t i = 0; i < st->pagemap_chunks.n; i++) {
		struct trace_chunk c;
		if (!trace_reader_read_at(st->reader, st->pagemap_chunks.v[i], &c))
			continue;
		struct trace_pagemap pm;
		struct trace_pagemap_run run;
		if (trace_pagemap_open(&c, &pm)) {
			bad = 1;
			continue;
		}
		int k;
		while ((k = trace_pagemap_next(&pm, &run)) == 1)
			for (uint64_t j = 0; j < run.npages; j++)
				if (an_phys_add(ph, (uint32_t)pm.pid, run.vpage + j, run.pfn ? run.pfn + j : 0,
						(uint32_t)run.flags, pm.time))
					return -ENOMEM;
		if (k < 0)
			bad = 1;
	}
	if (bad)
		an_warn(st, "a page-table record is malformed: some translations are missing");
	st->res->phys_pages = ph->pages;
	return 0;
}

void an_phys_free(struct an_state *st)
{
	an_phys_del(st->phys);
	st->phys = NULL;
}

/* The translation of (pid, vpage) at time, and the span [*lo, *hi) of times
 * that get the same answer: from the entry's own time (from 0 for the
 * oldest, which also answers for times before the first look) to the next
 * newer entry's. */
static int lookup_span(const struct an_phys *ph, uint32_t pid, uint64_t vpage, uint64_t time, uint64_t *pfn,
		       uint32_t *flags, uint64_t *lo, uint64_t *hi)
{
	uint64_t k = vkey(pid, vpage);
	uint64_t *v = mp_hashmap_get(&ph->byvpage, k);
	while (v && (ph->ents.v[*v].vpage != vpage || ph->ents.v[*v].pid != pid))
		v = mp_hashmap_get(&ph->byvpage, k = mp_hash64(k) | 1);
	*lo = 0;
	*hi = UINT64_MAX;
	if (!v)
		return 0;
	const struct phys_ent *e = &ph->ents.v[*v];
	while (e->time > time && e->older) {
		*hi = e->time;
		e = &ph->ents.v[e->older - 1];
	}
	if (e->older)
		*lo = e->time;
	if (!e->pfn)
		return 0; /* the page was gone then */
	*pfn = e->pfn;
	*flags = e->flags;
	return 1;
}

int an_phys_lookup(const struct an_state *st, uint32_t pid, uint64_t vaddr, uint64_t time, uint64_t *paddr,
		   uint32_t *flags)
{
	uint64_t pfn, lo, hi;
	if (!st->phys || !lookup_span(st->phys, pid, vaddr >> 12, time, &pfn, flags, &lo, &hi))
		return 0;
	*paddr = pfn << 12 | (vaddr & 4095);
	return 1;
}

int an_phys_translate(struct an_phys *ph, uint32_t pid, uint64_t vaddr, uint64_t time, uint64_t *paddr, uint32_t *flags,
		      uint64_t *lo, uint64_t *hi)
{
	uint64_t vpage = vaddr >> 12;
	struct phys_cached *c = cache_slot(ph, pid, vpage);
	if (!(c->vpage == vpage && c->pid == pid && time >= c->lo && time < c->hi)) {
		uint64_t pfn = 0;
		uint32_t fl = 0;
		int ok = lookup_span(ph, pid, vpage, time, &pfn, &fl, &c->lo, &c->hi);
		c->vpage = vpage;
		c->pid = pid;
		c->paddr = ok ? pfn << 12 : 0;
		c->flags = fl;
	}
	*lo = c->lo;
	*hi = c->hi;
	if (!c->paddr)
		return 0;
	*paddr = c->paddr | (vaddr & 4095);
	*flags = c->flags;
	return 1;
}

int an_phys_reverse(const struct an_state *st, uint64_t paddr, uint64_t time, uint32_t *pid, uint64_t *vaddr)
{
	const struct an_phys *ph = st->phys;
	if (!ph)
		return 0;
	uint64_t *v = mp_hashmap_get(&ph->bypfn, pkey(paddr >> 12));
	if (!v)
		return 0;
	/* frames are reused over time: the page that had it latest at or
	 * before time, else the first to have it */
	const struct phys_ent *best = NULL, *first = NULL;
	for (uint32_t i = (uint32_t)*v + 1; i; i = ph->ents.v[i - 1].frame_prev) {
		const struct phys_ent *e = &ph->ents.v[i - 1];
		if (e->pfn != paddr >> 12)
			continue;
		if (e->time <= time && (!best || e->time > best->time))
			best = e;
		if (!first || e->time < first->time)
			first = e;
	}
	if (!best)
		best = first;
	if (!best)
		return 0;
	*pid = best->pid;
	*vaddr = best->vpage << 12 | (paddr & 4095);
	return 1;
}
