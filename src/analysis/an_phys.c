// SPDX-License-Identifier: MIT
/*
 * Virtual-to-physical translations over time, from the PAGEMAP chunks of
 * the launcher (periodic looks) and the runtime (before big blocks go back
 * to the kernel, and at exit). Each page keeps its translations newest
 * first; a lookup at time t takes the newest one made at or before t, or the
 * oldest when the page was first seen after t (first touch happened between
 * two looks: the frame it got then is the one seen next). A reverse table
 * maps frames back to (pid, page): the reverse page table of the ORMBP paper,
 * made at its first use (only the DRAM trace export asks).
 * Each page keeps its last answer, with the span of time it holds for, in
 * its slot of the page table: the model's per-reference lookups mostly end
 * there.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
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

/* One page of one process: where its translations start, and the answer
 * last looked up with the span of time it holds for. The model asks for
 * every line reference, mostly for a page and time asked for before, so
 * the answer sits in the table slot the lookup probes first: a random
 * reference over many pages costs one host cache miss, not one each for a
 * cache slot, the map's keys, its values and the newest entry. */
struct phys_page {
	uint64_t vpage;
	uint64_t lo, hi; /* the answer holds for lo <= time < hi; hi == 0: none kept */
	uint64_t frame; /* frame address | MP_PAGEMAP_* flags; 0 when there was none */
	uint32_t pid;
	uint32_t head; /* index + 1 of the newest translation; 0: empty slot */
};

/* The flags ride in the frame address's low bits: 40 bytes a slot, not 48
 * (arrays' 84K pages are a 10 MiB table, and the kernel's zeroing of it is
 * a tenth of a bounded report). */
_Static_assert((MP_PAGEMAP_THP | MP_PAGEMAP_HUGETLB) < 4096, "pagemap flags fit below a frame address");

/* A table of cap slots holds at most 3/4 cap pages: linear probing stays
 * short (~2 slots a hit, often in one host line), and the table is a
 * third smaller than at half. */
static int phys_over(uint64_t pages, size_t cap)
{
	return pages * 4 > (uint64_t)cap * 3;
}

struct an_phys {
	MP_VEC(struct phys_ent) ents;
	struct phys_page *page; /* open addressing, linear probing, at most 3/4 full */
	size_t cap; /* power of two, or 0 */
	struct mp_hashmap bypfn; /* pfn -> newest entry that maps it, once has_reverse */
	int has_reverse; /* bypfn and the entries' frame_prev are made */
	uint64_t pages;
};

/* Fibonacci hashing (the top bits of one multiplication): lookups run
 * once per page change of a stream, a full mixer cost them a third more. */
static size_t page_home(uint32_t pid, uint64_t vpage, size_t cap)
{
	return (size_t)(((vpage ^ (uint64_t)pid << 40) * 0x9e3779b97f4a7c15ull) >> (64 - __builtin_ctzll(cap)));
}

/* The slot of (pid, vpage), or NULL. */
static inline struct phys_page *page_find(const struct an_phys *ph, uint32_t pid, uint64_t vpage)
{
	if (!ph->cap)
		return NULL;
	for (size_t i = page_home(pid, vpage, ph->cap);; i = (i + 1) & (ph->cap - 1)) {
		struct phys_page *p = &ph->page[i];
		if (!p->head)
			return NULL;
		if (p->vpage == vpage && p->pid == pid)
			return p;
	}
}

static size_t page_home_of(const void *e, size_t cap)
{
	const struct phys_page *p = e;
	return page_home(p->pid, p->vpage, cap);
}

static int page_used(const void *e)
{
	return ((const struct phys_page *)e)->head != 0;
}

/* Room for `pages` pages (phys_over). 0 or -ENOMEM. */
static int reserve(struct an_phys *ph, uint64_t pages)
{
	if (!phys_over(pages, ph->cap))
		return 0;
	size_t ncap = ph->cap ? ph->cap : 1024;
	while (phys_over(pages, ncap))
		ncap *= 2;
	struct phys_page *np = an_table_regrow(ph->page, ph->cap, ncap, sizeof(*np), page_home_of, page_used);
	if (!np)
		return -ENOMEM;
	free(ph->page);
	ph->page = np;
	ph->cap = ncap;
	return 0;
}

/* The slot of (pid, vpage), made empty-headed (head 0) if new; NULL on ENOMEM. */
static struct phys_page *page_get(struct an_phys *ph, uint32_t pid, uint64_t vpage)
{
	struct phys_page *p = page_find(ph, pid, vpage);
	if (p)
		return p;
	if (phys_over(ph->pages + 1, ph->cap) && reserve(ph, ph->cap ? ph->cap : 512))
		return NULL;
	size_t i = page_home(pid, vpage, ph->cap);
	while (ph->page[i].head)
		i = (i + 1) & (ph->cap - 1);
	p = &ph->page[i];
	*p = (struct phys_page){ .vpage = vpage, .pid = pid };
	return p;
}

static uint64_t pkey(uint64_t pfn)
{
	return mp_hash64(pfn + 0x9e37) | 1;
}

/* Inserts one translation, keeping each page's chain newest first, and
 * forgets the page's kept answer (the new translation may change it). */
static int insert(struct an_phys *ph, uint32_t pid, uint64_t vpage, uint64_t pfn, uint32_t flags, uint64_t time)
{
	struct phys_page *p = page_get(ph, pid, vpage);
	if (!p)
		return -ENOMEM;
	p->hi = 0;
	struct phys_ent e = { vpage, pfn, time, pid, flags, 0, 0 };
	uint64_t *fv = pfn && ph->has_reverse ? mp_hashmap_get(&ph->bypfn, pkey(pfn)) : NULL;
	if (fv)
		e.frame_prev = (uint32_t)*fv + 1;
	if (p->head) {
		struct phys_ent *head = &ph->ents.v[p->head - 1];
		if (head->pfn == pfn && head->flags == flags && time >= head->time)
			return 0; /* the same again */
		if (time >= head->time) {
			e.older = p->head;
		} else {
			/* an older look arriving late: slot it into the chain */
			uint32_t at = p->head - 1;
			while (ph->ents.v[at].older && ph->ents.v[ph->ents.v[at].older - 1].time > time)
				at = ph->ents.v[at].older - 1;
			e.older = ph->ents.v[at].older;
			if (mp_vec_push(&ph->ents, e))
				return -ENOMEM;
			ph->ents.v[at].older = (uint32_t)ph->ents.n;
			if (pfn && ph->has_reverse && mp_hashmap_put(&ph->bypfn, pkey(pfn), ph->ents.n - 1))
				return -ENOMEM;
			return 0;
		}
	}
	if (mp_vec_push(&ph->ents, e))
		return -ENOMEM;
	if (!p->head)
		ph->pages++;
	p->head = (uint32_t)ph->ents.n;
	uint64_t idx = ph->ents.n - 1;
	if (pfn && ph->has_reverse && mp_hashmap_put(&ph->bypfn, pkey(pfn), idx))
		return -ENOMEM;
	return 0;
}

struct an_phys *an_phys_new(void)
{
	struct an_phys *ph = calloc(1, sizeof(*ph));
	if (!ph)
		return NULL;
	mp_hashmap_init(&ph->bypfn);
	return ph;
}

void an_phys_del(struct an_phys *ph)
{
	if (!ph)
		return;
	mp_vec_free(&ph->ents);
	free(ph->page);
	mp_hashmap_fini(&ph->bypfn);
	free(ph);
}

/* The reverse table from the entries so far, in the order they were
 * added (what insert does to it, done later). 0 or -ENOMEM. */
static int make_reverse(struct an_phys *ph)
{
	if (ph->has_reverse)
		return 0;
	for (size_t i = 0; i < ph->ents.n; i++) {
		struct phys_ent *e = &ph->ents.v[i];
		if (!e->pfn)
			continue;
		uint64_t *fv = mp_hashmap_get(&ph->bypfn, pkey(e->pfn));
		e->frame_prev = fv ? (uint32_t)*fv + 1 : 0;
		if (mp_hashmap_put(&ph->bypfn, pkey(e->pfn), i))
			return -ENOMEM;
	}
	ph->has_reverse = 1;
	return 0;
}

int an_phys_add(struct an_phys *ph, uint32_t pid, uint64_t vpage, uint64_t pfn, uint32_t flags, uint64_t time)
{
	return insert(ph, pid, vpage, pfn, flags, time);
}

/* Linear counting (Whang et al. 1990): of n distinct pages hashed into m
 * bits, z set, n is about -m ln(1 - z/m); within 1% while z < m / 2. */
#define DISTINCT_LOG2 21 /* a 256 KiB bitmap */

static uint64_t distinct_estimate(const uint64_t *bits)
{
	const double m = (double)(1u << DISTINCT_LOG2);
	uint64_t z = 0;
	for (size_t i = 0; i < (1u << DISTINCT_LOG2) / 64; i++)
		z += (uint64_t)__builtin_popcountll(bits[i]);
	return (double)z > m / 2 ? UINT64_MAX : (uint64_t)(-m * log1p(-(double)z / m) * 1.02) + 64;
}

/* The table for a file's translations, sized for them at once (0 or
 * -ENOMEM). */
static int phys_make(struct an_state *st, uint64_t cap)
{
	struct an_phys *ph = an_phys_new();
	if (!ph)
		return -ENOMEM;
	st->phys = ph;
	/* The table sized at once for the pages of all looks together: grown
	 * by doubling, its zeroing would be ~8% of a bounded arrays report,
	 * and sized for the largest look alone (27K of arrays' 100K pages: the
	 * looks come at growing intervals while the program touches its
	 * pages) it would still grow twice, 21% of the report. The distinct pages
	 * of all looks, counted by a hashed bitmap: sorting the looks' runs
	 * instead cost randacc's 130K runs 28M instructions. */
	uint64_t most = 0, sum = 0;
	uint64_t *bits = calloc((1u << DISTINCT_LOG2) / 64, sizeof(uint64_t));
	if (!bits)
		return -ENOMEM;
	for (size_t i = 0; i < st->pagemap_chunks.n && sum < cap; i++) {
		struct trace_chunk c;
		struct trace_pagemap pm;
		struct trace_pagemap_run run;
		if (!trace_reader_read_at(st->reader, st->pagemap_chunks.v[i], &c) || trace_pagemap_open(&c, &pm))
			continue;
		while (sum < cap && trace_pagemap_next(&pm, &run) == 1)
			for (uint64_t j = 0; j < run.npages && sum < cap; j++, sum++) {
				uint64_t h = mp_hash64((run.vpage + j) ^ pm.pid << 40) >> (64 - DISTINCT_LOG2);
				bits[h >> 6] |= 1ull << (h & 63);
			}
	}
	/* (a damaged look's claim of a TiB stops at cap: the loop above too) */
	most = distinct_estimate(bits);
	most = most < sum ? most : sum;
	free(bits);
	/* (at most 16 GiB of 4 KiB pages at once, a 384 MiB table; past that
	 * it grows as pages come, so that a damaged look's claim of a TiB in
	 * a few bytes is not all zeroed up front) */
	const uint64_t most_at_once = 1ull << 22;
	if (reserve(ph, most < most_at_once ? most : most_at_once) || (st->opts->on_dram && make_reverse(ph)))
		return -ENOMEM;
	return 0;
}

int an_phys_load(struct an_state *st, int keep)
{
	if (!st->pagemap_chunks.n)
		return 0;
	/* Translations past the cap are ignored: a run may claim 2^36 pages in
	 * a few bytes, and more than the file's bound (an_bound), or than a
	 * TiB of 4 KiB pages, is a damaged or crafted file, not a program. */
	uint64_t cap = an_bound(st, AN_PAGES_FLOOR, AN_PAGES_PER_KIB), added = 0;
	if (cap > AN_PHYS_MAX_PAGES)
		cap = AN_PHYS_MAX_PAGES;
	int bad = 0, capped = 0;
	if (keep && phys_make(st, cap))
		return -ENOMEM;
	struct an_phys *ph = st->phys;
	for (size_t i = 0; i < st->pagemap_chunks.n && !capped; i++) {
		struct trace_chunk c;
		if (!trace_reader_read_at(st->reader, st->pagemap_chunks.v[i], &c)) {
			if (trace_reader_read_error(st->reader) == -ENOMEM)
				return -ENOMEM;
			bad = 1; /* (its checksum was right, its payload does not decode) */
			continue;
		}
		struct trace_pagemap pm;
		struct trace_pagemap_run run;
		if (trace_pagemap_open(&c, &pm)) {
			bad = 1;
			continue;
		}
		int k;
		while (!capped && (k = trace_pagemap_next(&pm, &run)) == 1) {
			if (!ph) {
				capped = run.npages > cap - added;
				added += capped ? 0 : run.npages;
				continue;
			}
			for (uint64_t j = 0; j < run.npages; j++) {
				if (++added > cap) {
					capped = 1;
					break;
				}
				if (an_phys_add(ph, (uint32_t)pm.pid, run.vpage + j, run.pfn ? run.pfn + j : 0,
						(uint32_t)run.flags, pm.time))
					return -ENOMEM;
			}
		}
		if (!capped && k < 0)
			bad = 1;
	}
	if (bad || capped)
		st->res->damaged |= AN_DAMAGE_PARTIAL;
	if (bad)
		an_warn(st, "a page-table record is malformed: some translations are missing");
	if (capped)
		an_warn(st,
			"page-table records of more than %llu pages, more than a file of %llu bytes can hold (a "
			"damaged file?): the rest are ignored",
			(unsigned long long)cap, (unsigned long long)st->file_bytes);
	st->res->phys_pages = ph ? ph->pages : 0;
	return 0;
}

void an_phys_free(struct an_state *st)
{
	an_phys_del(st->phys);
	st->phys = NULL;
}

/* The translation of page p at time, and the span [*lo, *hi) of times
 * that get the same answer: from the entry's own time (from 0 for the
 * oldest, which also answers for times before the first look) to the next
 * newer entry's. p NULL: none, ever. */
static int lookup_span(const struct an_phys *ph, const struct phys_page *p, uint64_t time, uint64_t *pfn,
		       uint32_t *flags, uint64_t *lo, uint64_t *hi)
{
	*lo = 0;
	*hi = UINT64_MAX;
	if (!p)
		return 0;
	const struct phys_ent *e = &ph->ents.v[p->head - 1];
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
	if (!st->phys || !lookup_span(st->phys, page_find(st->phys, pid, vaddr >> 12), time, &pfn, flags, &lo, &hi))
		return 0;
	*paddr = pfn << 12 | (vaddr & 4095);
	return 1;
}

void an_phys_prefetch(const struct an_phys *ph, uint32_t pid, uint64_t vaddr)
{
	if (ph->cap) {
		/* both ends: a slot may straddle two host lines */
		const struct phys_page *p = &ph->page[page_home(pid, vaddr >> 12, ph->cap)];
		__builtin_prefetch(p);
		__builtin_prefetch((const char *)(p + 1) - 1);
	}
}

int an_phys_translate(struct an_phys *ph, uint32_t pid, uint64_t vaddr, uint64_t time, uint64_t *paddr, uint32_t *flags,
		      uint64_t *lo, uint64_t *hi)
{
	struct phys_page *p = page_find(ph, pid, vaddr >> 12);
	if (!p) {
		*lo = 0;
		*hi = UINT64_MAX;
		return 0;
	}
	if (!(time >= p->lo && time < p->hi)) {
		uint64_t pfn = 0;
		uint32_t fl = 0;
		int ok = lookup_span(ph, p, time, &pfn, &fl, &p->lo, &p->hi);
		p->frame = ok ? pfn << 12 | (fl & 4095) : 0;
	}
	*lo = p->lo;
	*hi = p->hi;
	if (!p->frame)
		return 0;
	*paddr = (p->frame & ~4095ull) | (vaddr & 4095);
	*flags = (uint32_t)(p->frame & 4095);
	return 1;
}

int an_phys_reverse(const struct an_state *st, uint64_t paddr, uint64_t time, uint32_t *pid, uint64_t *vaddr)
{
	struct an_phys *ph = st->phys;
	if (!ph || make_reverse(ph))
		return 0; /* (an_phys_load made it when a reverse lookup may come) */
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
