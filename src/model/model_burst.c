// SPDX-License-Identifier: MIT
/*
 * The cache model's burst-sampling entry points (model_burst.h): tracking
 * of first fills and walks turned on, the burst the references are in,
 * the marks left at the end, the flushes that tell turned LLC sets. The
 * marks themselves are set and read on the access path (model.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_int.h"

void mp_model_track_same(struct mp_model *m, mp_model_same_fn fn)
{
	m->same_fn = fn;
}

int mp_model_track_first(struct mp_model *m, mp_model_first_fn fn, mp_model_first_walk_fn walk_fn, void *arg)
{
	/* 16 bits per line the LLCs hold: while a footprint fits them (when
	 * first touches matter), a new line's hash hits one seen before, and
	 * its fill goes unmarked (scaled in full, as without tracking), at
	 * most 1 time in 16 */
	uint64_t bits = (uint64_t)m->llc[0].all_sets * m->llc[0].ways * m->mach.sockets * 16;
	unsigned lg = 16;
	while ((1ull << lg) < bits)
		lg++;
	/* Pages apart, 16 bits per entry the cores' STLBs (or DTLBs) hold:
	 * where walks are first walks (pages that fit the TLBs) a new page
	 * hits one seen before at most 1 time in 16. In the lines' bitmap, a
	 * first burst that streams 5M lines (arrays' memsets, 20 times the
	 * LLC) sets half the bits, and half the pages' first walks would go
	 * unmarked, each scaled as a recurring one: 2 MiB pages' walks would
	 * come out 5 times the full run's. */
	uint64_t tlb = m->mach.stlb.entries ? m->mach.stlb.entries : m->mach.dtlb[MP_PAGE_4K].entries;
	uint64_t pbits = tlb * m->ncores * 16;
	unsigned plg = 16;
	while ((1ull << plg) < pbits)
		plg++;
	/* (written now, not calloc'd: a test-and-set on the shared zero page
	 * takes a copy-on-write fault per page, and a TLB flush of every
	 * other thread of the process) */
	uint64_t *b = malloc((1ull << lg) / 8), *pb = malloc((1ull << plg) / 8);
	if (!b || !pb) {
		free(b);
		free(pb);
		return -ENOMEM;
	}
	memset(b, 0, (1ull << lg) / 8);
	memset(pb, 0, (1ull << plg) / 8);
	free(m->first_seen);
	free(m->page_seen);
	m->first_seen = b;
	m->first_log2 = lg;
	m->page_seen = pb;
	m->page_log2 = plg;
	m->first_fn = fn;
	m->first_walk_fn = walk_fn;
	m->first_arg = arg;
	return 0;
}

void mp_model_first_counts(const struct mp_model *m, uint64_t *lines, uint64_t *pages)
{
	*lines = m->first_lines;
	*pages = m->first_pages;
}

void mp_model_set_burst(struct mp_model *m, unsigned burst)
{
	m->burst_tag = (uint8_t)((burst << MC_BURST_SHIFT) & MC_BURST);
	/* a core's first reference in the burst must look at the marks, also
	 * where it repeats the last one before the skip: no fast path then
	 * (the full path finds what it would have and changes nothing else) */
	for (unsigned k = 0; k < m->ncores; k++)
		m->core[k].last_key = m->core[k].last_page = UINT64_MAX;
}

struct left_line {
	uint64_t key;
	uint32_t owner;
	uint16_t core; /* pages: the core whose TLBs hold it; lines: 0 */
	uint8_t bursts, page;
};

static int left_by_key(const void *a, const void *b)
{
	const struct left_line *x = a, *y = b;
	if (x->page != y->page || x->core != y->core)
		return x->page != y->page ? (x->page < y->page ? -1 : 1) : (x->core < y->core ? -1 : 1);
	return x->key < y->key ? -1 : x->key > y->key;
}

/* The TLB arrays of the active cores (DTLBs per page size, STLB), in turn
 * (i from 0: NULL past the last); *core gets the array's core. */
static const struct model_cache *tlb_nth(const struct mp_model *m, unsigned i, unsigned *core)
{
	for (unsigned a = 0; a < m->nactive; a++) {
		const struct model_core *c = &m->core[m->active[a]];
		*core = m->active[a];
		for (int p = 0; p <= MP_PAGE_SIZES; p++) {
			const struct model_cache *t = p < MP_PAGE_SIZES ? &c->dtlb[p] : &c->stlb;
			if (t->sets && !i--)
				return t;
		}
	}
	return NULL;
}

/* A line's or page's left marks: seen in 1 or 2 bursts, else 0. */
static unsigned left_bursts(uint8_t fl)
{
	return !(fl & (MC_FIRST | MC_REUSED)) ? 0 : (fl & MC_SECOND) == MC_SECOND ? 2 : 1;
}

/* The caches of the active cores and of every socket, in turn (i from 0:
 * NULL past the last). */
static const struct model_cache *cache_nth(const struct mp_model *m, unsigned i)
{
	if (i < 2 * m->nactive)
		return i & 1 ? &m->core[m->active[i / 2]].l2 : &m->core[m->active[i / 2]].l1;
	i -= 2 * m->nactive;
	return i < m->mach.sockets ? &m->llc[i] : NULL;
}

int mp_model_first_left(const struct mp_model *m, mp_model_left_fn fn, void *arg)
{
	static const unsigned shift[MP_PAGE_SIZES] = { 12, 21, 30 };
	const struct model_cache *c;
	unsigned core;
	uint64_t cap = 1;
	for (unsigned i = 0; (c = cache_nth(m, i)); i++)
		cap += model_cache_nidx(c);
	for (unsigned i = 0; (c = tlb_nth(m, i, &core)); i++)
		cap += model_cache_nidx(c);
	struct left_line *v = malloc(cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	size_t n = 0;
	for (unsigned i = 0; (c = cache_nth(m, i)); i++)
		for (uint64_t j = 0, e = model_cache_nidx(c); j < e; j++) {
			if (!model_cache_used(c, j))
				continue;
			unsigned b = left_bursts(*mc_flags(c, j));
			uint64_t key = model_cache_key(c, j);
			if (b && !(key & PT_BIT))
				v[n++] = (struct left_line){ key, *mc_owner(c, j), 0, (uint8_t)b, 0 };
		}
	for (unsigned i = 0; (c = tlb_nth(m, i, &core)); i++)
		for (uint64_t j = 0, e = model_cache_nidx(c); j < e; j++) {
			unsigned b = model_cache_used(c, j) ? left_bursts(*mc_flags(c, j)) : 0;
			if (b)
				v[n++] = (struct left_line){ model_cache_key(c, j), *mc_owner(c, j), (uint16_t)core,
							     (uint8_t)b, 1 };
		}
	/* (a line's copies have the same marks, a page's in a core's DTLB
	 * and STLB too: each once) */
	qsort(v, n, sizeof(*v), left_by_key);
	for (size_t i = 0; i < n; i++) {
		const struct left_line *l = &v[i];
		if (i && l->key == v[i - 1].key && l->page == v[i - 1].page && l->core == v[i - 1].core)
			continue;
		if (!l->page) {
			fn(arg, l->owner, l->bursts, NULL);
			continue;
		}
		/* a TLB key: page number | space << 40 | page size << 58 (translate) */
		unsigned ps = (unsigned)(l->key >> 58);
		struct mp_model_left_page pg = { (l->key & ((1ull << 40) - 1)) << shift[ps < MP_PAGE_SIZES ? ps : 0],
						 (uint32_t)(l->key >> 40 & 0xffff),
						 shift[ps < MP_PAGE_SIZES ? ps : 0] };
		fn(arg, l->owner, l->bursts, &pg);
	}
	free(v);
	return 0;
}

int mp_model_wb_turned(const struct mp_model *m)
{
	return m->wb_turned;
}

double mp_model_turned_share(const struct mp_model *m)
{
	/* (under set sampling the LLC stores only the sample's sets, the
	 * ones references see) */
	uint64_t sets = m->llc[0].sets, n = 0;
	for (uint64_t i = 0; i < (sets + 63) / 64; i++)
		n += (uint64_t)__builtin_popcountll(m->turned[i]);
	return sets ? (double)n / (double)sets : 0;
}

void mp_model_flush_turned(struct mp_model *m)
{
	m->flush_turned = 1;
	mp_model_flush(m);
	m->flush_turned = 0;
}

void mp_model_flush_told(struct mp_model *m)
{
	/* (2: every line, and no set turns now: the flush's own evictions
	 * would have turned the rest of a set as its first line went) */
	m->flush_turned = 2;
	mp_model_flush(m);
	m->flush_turned = 0;
}
