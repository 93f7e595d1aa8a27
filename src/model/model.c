// SPDX-License-Identifier: MIT
/*
 * The cache/TLB hierarchy. Per core: L1D, L2, L1 DTLB arrays, STLB and
 * paging-structure caches; per socket: the LLC. Keys: a data line is
 * (space << 42 | address >> line shift); a paging-structure line has bit 62
 * set and lives in a synthetic page-table layout (one table per level and
 * address space, entries in address order), which gives walks the locality
 * real page tables have: the eight PTEs of a line map 32 KiB of neighbours.
 *
 * Coherence is invalidation-based: a store makes its core's copy the only
 * one (other cores' copies are invalidated, a dirty one handing its data to
 * the LLC); a load that misses a core's private caches takes dirty data
 * from another core down to the LLC first. Only cores that have made a
 * reference are snooped, so a single-threaded stream pays nothing for it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mp_error.h"
#include "common/mp_memlevel.h"
#include "model/model_int.h"

static inline __attribute__((always_inline)) void llc_insert(struct mp_model *m, unsigned s, const struct mc_at *at,
							     uint64_t key, uint32_t owner, uint8_t flags);

static unsigned level_latency(const struct mp_machine *mm, unsigned level);

/* --- construction -------------------------------------------------------- */

static int cache_from(struct model_cache *c, const struct mp_cache_geom *g, unsigned line)
{
	return model_cache_init(c, g->size / line, g->ways, g->repl, 1);
}

/* with_owner: the entries keep the owner of the reference whose walk made
 * them (mp_model_track_first reports it; the DTLB and STLB) */
static int tlb_from(struct model_cache *c, const struct mp_tlb_geom *g, int with_owner)
{
	if (!g->entries)
		return 0;
	return model_cache_init(c, g->entries, g->ways ? g->ways : g->entries, MP_REPL_LRU, with_owner);
}

/* tlbs_only: data caches of one set each (mp_model_new_translating). */
static struct mp_model *model_new(const struct mp_machine *given, int tlbs_only)
{
	char err[160];
	if (mp_machine_check(given, err, sizeof(err))) {
		errno = EINVAL;
		return NULL;
	}
	struct mp_machine one = *given;
	if (tlbs_only) {
		struct mp_cache_geom *g[3] = { &one.l1d, &one.l2, &one.llc };
		for (int i = 0; i < 3; i++)
			g[i]->size = (uint64_t)g[i]->ways * one.line;
	}
	const struct mp_machine *mach = &one;
	struct mp_model *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->mach = *given;
	m->ncores = mach->sockets * mach->cores;
	while ((1u << m->line_shift) < mach->line)
		m->line_shift++;
	m->core = calloc(m->ncores, sizeof(*m->core));
	m->llc = calloc(mach->sockets, sizeof(*m->llc));
	m->active = calloc(m->ncores, sizeof(*m->active));
	m->socket_active = calloc(mach->sockets, 1);
	if (!m->core || !m->llc || !m->active || !m->socket_active)
		goto nomem;
	for (unsigned s = 0; s < mach->sockets; s++)
		if (cache_from(&m->llc[s], &mach->llc, mach->line))
			goto nomem;
	for (unsigned l = 0; l < MP_LVL_COUNT; l++)
		m->lat[l] = level_latency(mach, l);
	m->turned = calloc((m->llc[0].sets + 63) / 64, sizeof(*m->turned));
	if (!m->turned)
		goto nomem;
	for (unsigned k = 0; k < m->ncores; k++) {
		struct model_core *c = &m->core[k];
		c->socket = k / mach->cores;
		c->last_key = c->last_page = UINT64_MAX;
		if (cache_from(&c->l1, &mach->l1d, mach->line) || cache_from(&c->l2, &mach->l2, mach->line))
			goto nomem;
		for (int p = 0; p < MP_PAGE_SIZES; p++)
			if (tlb_from(&c->dtlb[p], &mach->dtlb[p], 1))
				goto nomem;
		if (tlb_from(&c->stlb, &mach->stlb, 1))
			goto nomem;
		const unsigned psc[3] = { mach->psc_pml4, mach->psc_pdpt, mach->psc_pde };
		for (int l = 0; l < 3; l++) {
			struct mp_tlb_geom g = { psc[l], psc[l] };
			if (tlb_from(&c->psc[l], &g, 0))
				goto nomem;
		}
	}
	return m;
nomem:
	mp_model_free(m);
	errno = ENOMEM;
	return NULL;
}

struct mp_model *mp_model_new(const struct mp_machine *mach)
{
	return model_new(mach, 0);
}

struct mp_model *mp_model_new_translating(const struct mp_machine *mach)
{
	return model_new(mach, 1);
}

void mp_model_free(struct mp_model *m)
{
	if (!m)
		return;
	if (m->core)
		for (unsigned k = 0; k < m->ncores; k++) {
			struct model_core *c = &m->core[k];
			model_cache_fini(&c->l1);
			model_cache_fini(&c->l2);
			for (int p = 0; p < MP_PAGE_SIZES; p++)
				model_cache_fini(&c->dtlb[p]);
			model_cache_fini(&c->stlb);
			for (int l = 0; l < 3; l++)
				model_cache_fini(&c->psc[l]);
		}
	if (m->llc)
		for (unsigned s = 0; s < m->mach.sockets; s++)
			model_cache_fini(&m->llc[s]);
	free(m->core);
	free(m->llc);
	free(m->active);
	free(m->socket_active);
	free(m->held);
	free(m->turned);
	free(m->first_seen);
	free(m->page_seen);
	free(m);
}

void mp_model_set_writeback(struct mp_model *m, mp_model_wb_fn fn, void *arg)
{
	m->wb = fn;
	m->wb_arg = arg;
}

/* Bit h of a bitmap of lines or pages seen, set: MC_FIRST and the
 * burst's tag if it was clear, else 0. */
static inline uint8_t seen_mark(struct mp_model *m, uint64_t *seen, uint64_t h)
{
	uint64_t *w = &seen[h >> 6], bit = 1ull << (h & 63);
	if (*w & bit)
		return 0;
	*w |= bit;
	return (uint8_t)(MC_FIRST | m->burst_tag);
}

/* The marks of a data line's fill from DRAM: MC_FIRST and the burst's tag
 * if it is the line's first (mp_model_track_first), else none. */
static inline uint8_t first_marks(struct mp_model *m, uint64_t key, uint32_t owner)
{
	if (!m->first_seen || owner == MP_MODEL_NO_OWNER)
		return 0;
	uint8_t marks = seen_mark(m, m->first_seen, (key * 0x9e3779b97f4a7c15ull) >> (64 - m->first_log2));
	m->first_lines += marks != 0 && !(key & PT_BIT);
	return marks;
}

/* The marks of another copy of the line or page go to entry flags *fl. */
static inline void marks_set(uint8_t *fl, uint8_t marks)
{
	*fl = (uint8_t)((*fl & ~MC_MARKS) | (marks & MC_MARKS));
}

/* A reference found a marked line or page (its entry's flags *fl); again:
 * the core's previous reference was to it too. In its burst, a reference
 * other than such a repeat marks it in use (0 comes back); in a later
 * burst the marks go, and if it was in use the skips since its burst
 * come back, for the caller to report (mp_model_track_first). In use,
 * not just seen twice: a line referenced again soon after its first
 * reference most likely had been just before it too, in the skip, and
 * was cached then in the full run; a line found again only bursts later
 * may have been referenced at any time before (randacc's, whose full run
 * has half of them cached over an LLC of half its table: counted once,
 * its DRAM reads would come out -20%). */
/* A data line or a page then counts the bursts it is seen in, up to
 * three: its first later burst marks it MC_SECOND (*second set, for the
 * caller to report whether in use or not), a third takes its marks away.
 * A paging-structure line (counted 0) loses its marks at once. */
static unsigned marks_touch(const struct mp_model *m, uint8_t *fl, int again, int counted, int *second)
{
	uint8_t marks = *fl & MC_MARKS;
	const int was_second = (marks & MC_SECOND) == MC_SECOND;
	if ((marks & MC_BURST) == m->burst_tag) {
		if ((marks & MC_FIRST) && !was_second && !again)
			*fl = (uint8_t)((*fl & ~MC_MARKS) | MC_REUSED | m->burst_tag);
		return 0;
	}
	*fl &= (uint8_t)~MC_MARKS;
	if (was_second)
		return 0;
	if (counted) {
		*fl |= (uint8_t)(MC_SECOND | m->burst_tag);
		*second = 1;
	}
	return marks & MC_REUSED ? ((m->burst_tag - (marks & MC_BURST)) & MC_BURST) >> MC_BURST_SHIFT : 0;
}

/* A line's marks are one state, the same on all its copies: a copy made
 * later takes them from the level it comes from or, from DRAM,
 * first_marks; so an eviction carries no news. A change (marks_touch)
 * goes to every copy at once: a copy left with the old marks could report
 * the line a second time, or not in use. Changes come at most twice a
 * line: searching every cache then costs nothing that matters. */
static __attribute__((noinline)) void marks_set_all(struct mp_model *m, uint64_t key, uint8_t marks)
{
	for (unsigned i = 0; i < m->nactive; i++) {
		struct model_core *c = &m->core[m->active[i]];
		struct model_cache *pc[2] = { &c->l1, &c->l2 };
		for (int l = 0; l < 2; l++) {
			int64_t j = model_cache_find(pc[l], key);
			if (j >= 0)
				marks_set(mc_flags(pc[l], (uint64_t)j), marks);
		}
	}
	for (unsigned s = 0; s < m->mach.sockets; s++) {
		int64_t j = model_cache_find(&m->llc[s], key);
		if (j >= 0)
			marks_set(mc_flags(&m->llc[s], (uint64_t)j), marks);
	}
}

/* The owner a copy of a line takes from a reference of `owner` to the
 * copy *fl, owned by `from`. A marked data line's copies keep its filler,
 * whose rows counted the fill, for the report that takes it back: a load
 * by another owner copies it as it is, and so does a store by an owner
 * the caller's mp_model_track_same puts in the filler's rows (the same
 * object and thread, other code: its writeback, if it comes, goes to the
 * filler's code address; made the owner, it would take the fill back
 * from a function that did not count it, and by function a bounded
 * allocheavy would sum 2.7x its total DRAM reads). A store by any other
 * owner makes it the owner (its writeback is the storer's), and the line
 * loses its marks: no report could take the fill back from the rows that
 * counted it (a thread scanning lines another filled would take back the
 * other's fills, and the total's DRAM reads could come out 0). */
static __attribute__((noinline)) uint32_t marked_owner(struct mp_model *m, uint64_t key, uint8_t *fl, uint32_t from,
							uint32_t owner, int write)
{
	if (from == owner || (key & PT_BIT))
		return owner;
	if (!write)
		return from;
	if (!m->same_fn)
		return owner;
	if (m->same_fn(m->first_arg, from, owner))
		return from;
	marks_set_all(m, key, 0);
	*fl &= (uint8_t)~MC_MARKS;
	return owner;
}

static inline int marked(uint8_t fl)
{
	return (fl & (MC_FIRST | MC_REUSED)) != 0;
}

/* A reference found marked entry idx of c, a line's copy at `level`. A
 * marked copy keeps the owner of the reference that filled the line,
 * whose rows counted the fill and take it back (marked_owner). */
static __attribute__((noinline)) void first_touch(struct mp_model *m, struct model_cache *c, uint64_t idx,
						  unsigned level, int again)
{
	uint8_t *fl = mc_flags(c, idx), before = *fl;
	const uint64_t key = model_cache_key(c, idx);
	int second = 0;
	unsigned skips = marks_touch(m, fl, again, !(key & PT_BIT), &second);
	if (*fl != before)
		marks_set_all(m, key, *fl & MC_MARKS);
	if (skips || second)
		m->first_fn(m->first_arg, *mc_owner(c, idx), level, skips, (key & PT_BIT) != 0);
}

/* The marks of a page's first walk by core k (its TLB key; as
 * first_marks, in the pages' bitmap). A page is new to
 * each core's TLBs: a thread that moves to another core walks its pages
 * again, once, which a bounded trace would scale as it scales a rate. */
static inline uint8_t page_marks(struct mp_model *m, uint64_t key, unsigned k)
{
	uint64_t h = (key ^ 0x5851f42d4c957f2dull ^ (uint64_t)k << 50) * 0xbf58476d1ce4e5b9ull;
	uint8_t marks = seen_mark(m, m->page_seen, h >> (64 - m->page_log2));
	m->first_pages += marks != 0;
	return marks;
}

/* A reference found marked TLB entry idx of c (tlb: MP_TLB_L1_HIT or
 * L2_HIT) for its page, not the core's previous one (that takes the
 * DTLB's fast path): as first_touch, with the owner of the reference that
 * made the walk (whose rows counted it). A change goes to the page's copy
 * in `below` too (the STLB under a DTLB hit; else NULL), as
 * marks_set_all's to a line's copies. */
static __attribute__((noinline)) void page_touch(struct mp_model *m, struct model_cache *c, uint64_t idx,
						 struct model_cache *below, unsigned tlb, uint64_t va, unsigned shift)
{
	const uint32_t owner = *mc_owner(c, idx);
	uint8_t *fl = mc_flags(c, idx), before = *fl;
	int second = 0;
	unsigned skips = marks_touch(m, fl, 0, 1, &second);
	int64_t j;
	if (*fl != before && below && (j = model_cache_find(below, model_cache_key(c, idx))) >= 0)
		marks_set(mc_flags(below, (uint64_t)j), *fl & MC_MARKS);
	if (skips || second)
		m->first_walk_fn(m->first_arg, owner, tlb, skips, va >> shift << shift, shift);
}

int mp_model_sample_sets(struct mp_model *m, unsigned n, char *err, size_t errlen)
{
	int e = mp_machine_sample_sets_ok(&m->mach, n, err, errlen);
	if (e)
		return e;
	/* (L1 takes every line: only L2 and the LLC keep the sample's sets) */
	for (unsigned k = 0; k < m->ncores && !e; k++)
		e = model_cache_keep_every(&m->core[k].l2, n);
	for (unsigned s = 0; s < m->mach.sockets && !e; s++)
		e = model_cache_keep_every(&m->llc[s], n);
	uint64_t *turned = e ? NULL : calloc((m->llc[0].sets + 63) / 64, sizeof(*turned));
	if (!turned) {
		snprintf(err, errlen, "%s", mp_strerror(e ? e : -ENOMEM));
		return e ? e : -ENOMEM;
	}
	free(m->turned);
	m->turned = turned;
	m->sample_mask = n - 1;
	return 0;
}

int model_keep_residue(struct mp_model *m, unsigned n)
{
	int e = 0;
	for (unsigned k = 0; k < m->ncores && !e; k++)
		e = model_cache_keep_every(&m->core[k].l2, n);
	for (unsigned s = 0; s < m->mach.sockets && !e; s++)
		e = model_cache_keep_every(&m->llc[s], n);
	return e;
}

unsigned mp_model_ncores(const struct mp_model *m)
{
	return m->ncores;
}

/* --- data caches ---------------------------------------------------------- */

static inline int llc_set_turned(const struct mp_model *m, uint64_t key)
{
	uint64_t set = model_cache_set(&m->llc[0], key);
	return (m->turned[set >> 6] >> (set & 63)) & 1;
}

static void dram_write(struct mp_model *m, uint64_t key, uint32_t owner)
{
	if (!m->wb)
		return;
	if (m->flush_turned) {
		/* (only the end's flushes ask: not every dirty eviction) */
		m->wb_turned = llc_set_turned(m, key);
		if (m->flush_turned == 1 && !m->wb_turned)
			return;
	}
	if (key & PHYS_BIT)
		m->wb(m->wb_arg, owner, (key & ~PHYS_BIT) << m->line_shift, 1);
	else
		m->wb(m->wb_arg, owner, (key & ((1ull << SPACE_SHIFT) - 1)) << m->line_shift, 0);
}

/* A line leaves socket s's LLC. An inclusive LLC takes it from every core
 * of the socket first; whoever held it dirty makes the writeback dirty. */
static void llc_evicted(struct mp_model *m, unsigned s, struct model_victim v)
{
	if (!m->flush_turned) {
		uint64_t set = model_cache_set(&m->llc[s], v.key);
		m->turned[set >> 6] |= 1ull << (set & 63);
	}
	if (m->mach.llc.inclusion == MP_INCL_INCLUSIVE)
		for (unsigned i = 0; i < m->nactive; i++) {
			struct model_core *c = &m->core[m->active[i]];
			if (c->socket != s)
				continue;
			struct model_cache *pc[2] = { &c->l1, &c->l2 };
			for (int l = 0; l < 2; l++) {
				int64_t j = model_cache_find(pc[l], v.key);
				if (j < 0)
					continue;
				if (*mc_flags(pc[l], j) & MC_DIRTY) {
					v.flags |= MC_DIRTY;
					v.owner = *mc_owner(pc[l], j);
				}
				model_cache_drop(pc[l], (uint64_t)j);
			}
		}
	if (v.flags & MC_DIRTY)
		dram_write(m, v.key, v.owner);
}

/* Puts a line into socket s's LLC (absent there; at: mc_at's for it),
 * handling the victim. (This, llc_writeback, l2_evicted and l1_evicted run
 * for most lines that miss L2: inline in line_ref, as their calls' saves
 * and restores of registers cost about as much as their work.) */
static inline __attribute__((always_inline)) void llc_insert(struct mp_model *m, unsigned s, const struct mc_at *at,
							     uint64_t key, uint32_t owner, uint8_t flags)
{
	struct model_victim v;
	int ev;
	mc_insert_at(&m->llc[s], at, key, owner, flags & (MC_DIRTY | MC_MARKS), &v, &ev);
	if (ev)
		llc_evicted(m, s, v);
}

/* Dirty data (or, into an exclusive LLC, any line) moving down to the LLC. */
static inline __attribute__((always_inline)) void llc_writeback(struct mp_model *m, unsigned s,
								const struct model_victim *v)
{
	const struct mc_at at = mc_at(&m->llc[s], v->key);
	int64_t j = mc_find_at(&m->llc[s], &at, v->key);
	if (j >= 0) {
		if (v->flags & MC_DIRTY) {
			*mc_flags(&m->llc[s], j) |= MC_DIRTY;
			*mc_owner(&m->llc[s], j) = v->owner;
		}
		return;
	}
	llc_insert(m, s, &at, v->key, v->owner, v->flags);
}

/* A line leaves core k's L2. */
static inline __attribute__((always_inline)) void l2_evicted(struct mp_model *m, unsigned k, struct model_victim v)
{
	struct model_core *c = &m->core[k];
	if (m->mach.l2.inclusion == MP_INCL_INCLUSIVE) {
		int64_t j = model_cache_find(&c->l1, v.key);
		if (j >= 0) {
			uint8_t f1 = *mc_flags(&c->l1, j);
			if (f1 & MC_DIRTY) {
				v.flags |= MC_DIRTY;
				v.owner = *mc_owner(&c->l1, j);
			}
			model_cache_drop(&c->l1, (uint64_t)j);
		}
	}
	if ((v.flags & MC_DIRTY) || m->mach.llc.inclusion == MP_INCL_EXCLUSIVE)
		llc_writeback(m, c->socket, &v);
}

/* A dirty line leaves core k's L1: its data goes to L2. */
static inline __attribute__((always_inline)) void l1_evicted(struct mp_model *m, unsigned k,
							     const struct model_victim *v)
{
	struct model_core *c = &m->core[k];
	if (!(v->flags & MC_DIRTY) || (v->key & m->sample_mask))
		return; /* (set sampling: no L2 to take a line outside the sample) */
	const struct mc_at at = mc_at(&c->l2, v->key);
	int64_t j = mc_find_at(&c->l2, &at, v->key);
	if (j >= 0) {
		if (v->flags & MC_DIRTY) {
			*mc_flags(&c->l2, j) |= MC_DIRTY;
			*mc_owner(&c->l2, j) = v->owner;
		}
		return;
	}
	struct model_victim v2;
	int ev;
	mc_insert_at(&c->l2, &at, v->key, v->owner, v->flags, &v2, &ev);
	if (ev)
		l2_evicted(m, k, v2);
}

/* A copy another core's caches had of a line core k missed in L2. */
struct peer_copy {
	int found; /* 1: on k's socket, 2: on another only */
	uint8_t marks; /* mp_model_track_first's, after the touch */
	uint32_t owner;
};

/* Other cores' copies of key: on a store they go (dirty data to their LLC);
 * on a load a dirty copy is written down to the LLC and kept clean. Returns
 * 1 if another core keeps a copy. *peer (if not NULL) says whether one had
 * a copy, which then may serve the miss (line_ref). */
static int snoop(struct mp_model *m, unsigned k, uint64_t key, int write, struct peer_copy *peer)
{
	int shared = 0;
	/* An L2 that holds all its L1 holds (inclusive; the lines snooped are
	 * the sample's, which never take line_ref_l1's way into L1 alone):
	 * a core without the line there has no copy, and one lookup says so */
	const int l2_first = m->mach.l2.inclusion == MP_INCL_INCLUSIVE;
	for (unsigned i = 0; i < m->nactive; i++) {
		unsigned o = m->active[i];
		if (o == k)
			continue;
		struct model_core *c = &m->core[o];
		if (l2_first && model_cache_find(&c->l2, key) < 0)
			continue;
		struct model_cache *pc[2] = { &c->l1, &c->l2 };
		for (int l = 0; l < 2; l++) {
			int64_t j = model_cache_find(pc[l], key);
			if (j < 0)
				continue;
			if (peer && peer->found != 1) {
				/* (the first copy found on the socket, else anywhere:
				 * its marks and owner, as an LLC hit takes them) */
				if (*mc_flags(pc[l], j) & MC_MARKS)
					first_touch(m, pc[l], (uint64_t)j,
						    c->socket == m->core[k].socket ? MP_LVL_L3 : MP_LVL_REMOTE_CACHE,
						    0);
				peer->found = c->socket == m->core[k].socket ? 1 : 2;
				peer->marks = *mc_flags(pc[l], j) & MC_MARKS;
				peer->owner = *mc_owner(pc[l], j);
			}
			if (*mc_flags(pc[l], j) & MC_DIRTY) {
				struct model_victim v = { key, *mc_owner(pc[l], j), MC_DIRTY };
				*mc_flags(pc[l], j) &= (uint8_t)~MC_DIRTY;
				llc_writeback(m, c->socket, &v);
			}
			if (write)
				model_cache_drop(pc[l], (uint64_t)j);
			else {
				*mc_flags(pc[l], j) &= (uint8_t)~MC_EXCL;
				shared = 1;
			}
		}
	}
	return shared;
}

/* Another socket's LLC holds key: its data serves the miss (a store takes
 * the line, dirty state and all). Returns 1 if one did. */
static int snoop_sockets(struct mp_model *m, unsigned s, uint64_t key, int write, uint8_t *flags, uint32_t *owner)
{
	int found = 0;
	for (unsigned o = 0; o < m->mach.sockets; o++) {
		if (o == s || !m->socket_active[o])
			continue;
		int64_t j = model_cache_find(&m->llc[o], key);
		if (j < 0)
			continue;
		found = 1;
		if (write) {
			if (*mc_flags(&m->llc[o], j) & MC_DIRTY) {
				*flags |= MC_DIRTY;
				*owner = *mc_owner(&m->llc[o], j);
			}
			model_cache_drop(&m->llc[o], (uint64_t)j);
		}
	}
	return found;
}

static void activate(struct mp_model *m, unsigned k)
{
	struct model_core *c = &m->core[k];
	if (c->active)
		return;
	c->active = 1;
	m->active[m->nactive++] = k;
	if (!m->socket_active[c->socket]) {
		m->socket_active[c->socket] = 1;
		m->nsockets_active++;
	}
}

/* Set sampling: other cores' L1 copies of a line outside the sample. A
 * store takes them away; a load leaves them shared, and a dirty one clean
 * (its data went down to the unmodelled levels). Returns 1 if one stays. */
static int snoop_l1(struct mp_model *m, unsigned k, uint64_t key, int write)
{
	int shared = 0;
	for (unsigned i = 0; i < m->nactive; i++) {
		unsigned o = m->active[i];
		if (o == k)
			continue;
		struct model_cache *l1 = &m->core[o].l1;
		int64_t j = model_cache_find(l1, key);
		if (j < 0)
			continue;
		if (write) {
			model_cache_drop(l1, (uint64_t)j);
		} else {
			*mc_flags(l1, j) &= (uint8_t) ~(MC_EXCL | MC_DIRTY);
			shared = 1;
		}
	}
	return shared;
}

/* L1's part of a reference by core k: on a hit, the line becomes the most
 * recent, a store takes it exclusive (other cores' copies go) and dirty,
 * and MP_LVL_L1 comes back; on a miss, 0, and *at is mc_at's for the
 * line's fill (l1_fill). */
static inline __attribute__((always_inline)) unsigned l1_hit(struct mp_model *m, unsigned k, uint64_t key, int write,
							     uint32_t owner, struct mc_at *at)
{
	struct model_core *c = &m->core[k];
	int64_t i;
	if (key == c->last_key && *mc_tag(&c->l1, c->last_idx) == key + 1)
		i = (int64_t)c->last_idx;
	else {
		*at = mc_at(&c->l1, key);
		i = mc_find_at(&c->l1, at, key);
	}
	if (i < 0)
		return 0;
	if (*mc_flags(&c->l1, i) & MC_MARKS)
		first_touch(m, &c->l1, (uint64_t)i, MP_LVL_L1, key == c->last_key);
	model_cache_touch(&c->l1, (uint64_t)i);
	c->last_key = key;
	c->last_idx = (uint64_t)i;
	if (write) {
		if (!(*mc_flags(&c->l1, i) & MC_EXCL) && m->nactive > 1) {
			if (key & m->sample_mask)
				snoop_l1(m, k, key, 1);
			else
				snoop(m, k, key, 1, NULL);
		}
		uint8_t *fl = mc_flags(&c->l1, i);
		if (marked(*fl))
			owner = marked_owner(m, key, fl, *mc_owner(&c->l1, i), owner, 1);
		*fl |= MC_DIRTY | MC_EXCL;
		*mc_owner(&c->l1, i) = owner;
	}
	return MP_LVL_L1;
}

/* The line comes into core k's L1 (at: l1_hit's) with flags fl, as the
 * most recent. */
static inline __attribute__((always_inline)) void l1_fill(struct mp_model *m, unsigned k, const struct mc_at *at,
							  uint64_t key, uint32_t owner, uint8_t fl)
{
	struct model_core *c = &m->core[k];
	struct model_victim v = { 0, 0, 0 }; /* (read only when evicted, which gcc cannot tell) */
	int ev;
	uint64_t idx = mc_insert_at(&c->l1, at, key, owner, fl, &v, &ev);
	if (ev && (v.flags & MC_DIRTY) && !(v.key & m->sample_mask))
		l1_evicted(m, k, &v); /* (what it does for no other victim) */
	c->last_key = key;
	c->last_idx = idx;
}

/* Set sampling: a line outside the sample goes through L1 as any other
 * (so L1 hits stay exact), and a miss is served by levels that are not
 * modelled for it: MP_LVL_UNKNOWN. */
static inline __attribute__((always_inline)) unsigned line_ref_l1(struct mp_model *m, unsigned k, uint64_t key,
								  int write, uint32_t owner)
{
	struct mc_at at = { NULL, 0, 0 }; /* (set by l1_hit when it misses) */
	if (l1_hit(m, k, key, write, owner, &at))
		return MP_LVL_L1;
	int shared = m->nactive > 1 ? snoop_l1(m, k, key, write) : 0;
	l1_fill(m, k, &at, key, owner, write ? MC_DIRTY | MC_EXCL : shared ? 0 : MC_EXCL);
	return MP_LVL_UNKNOWN;
}

/* One reference to a line by core k: returns the level that served it. */
static unsigned line_ref(struct mp_model *m, unsigned k, uint64_t key, int write, uint32_t owner)
{
	if (key & m->sample_mask)
		return line_ref_l1(m, k, key, write, owner);
	struct mc_at at1 = { NULL, 0, 0 }; /* (set by l1_hit when it misses) */
	if (l1_hit(m, k, key, write, owner, &at1))
		return MP_LVL_L1;
	struct model_core *c = &m->core[k];

	unsigned level;
	uint8_t fl = 0; /* flags of the new L1 line */
	uint32_t own = owner; /* owner of dirt arriving with the line */
	uint32_t l1_owner = owner; /* the new L1 line's (marked_owner) */
	const struct mc_at at2 = mc_at(&c->l2, key);
	int64_t j = mc_find_at(&c->l2, &at2, key);
	if (j >= 0) {
		uint8_t *f2 = mc_flags(&c->l2, j);
		if (*f2 & MC_MARKS)
			first_touch(m, &c->l2, (uint64_t)j, MP_LVL_L2, 0);
		model_cache_touch(&c->l2, (uint64_t)j);
		level = MP_LVL_L2;
		fl = *f2 & (MC_EXCL | MC_MARKS); /* (L1's copy takes the marks) */
		if (marked(fl))
			l1_owner = marked_owner(m, key, &fl, *mc_owner(&c->l2, j), owner, write);
		if (write && !(fl & MC_EXCL) && m->nactive > 1)
			snoop(m, k, key, 1, NULL);
		if (write)
			*mc_flags(&c->l2, j) |= MC_EXCL;
	} else {
		struct peer_copy peer = { 0, 0, 0 };
		int shared = m->nactive > 1 ? snoop(m, k, key, write, &peer) : 0;
		struct model_cache *llc = &m->llc[c->socket];
		uint8_t l2fl = shared ? 0 : MC_EXCL;
		const struct mc_at at3 = mc_at(llc, key);
		int64_t h = mc_find_at(llc, &at3, key);
		if (h >= 0) {
			level = MP_LVL_L3;
			uint8_t *f3 = mc_flags(llc, h);
			if (*f3 & MC_MARKS)
				first_touch(m, llc, (uint64_t)h, MP_LVL_L3, 0);
			l2fl |= *f3 & MC_MARKS; /* (the marks go up with it) */
			if (marked(l2fl))
				own = l1_owner = marked_owner(m, key, &l2fl, *mc_owner(llc, h), owner, write);
			if (m->mach.llc.inclusion == MP_INCL_EXCLUSIVE) {
				/* the line moves up, dirty state and all */
				l2fl |= *f3 & MC_DIRTY;
				own = *mc_owner(llc, h);
				model_cache_drop(llc, (uint64_t)h);
			} else {
				model_cache_touch(llc, (uint64_t)h);
			}
		} else {
			uint8_t rfl = 0;
			uint32_t rown = owner;
			level = MP_LVL_LOCAL_DRAM;
			if (m->nsockets_active > 1 && snoop_sockets(m, c->socket, key, write, &rfl, &rown)) {
				level = MP_LVL_REMOTE_CACHE;
				l2fl |= rfl;
				own = rown;
			} else if (peer.found) {
				/* Another core's L1 or L2 held the line clean (a dirty
				 * copy was written down to the LLC above, and an
				 * inclusive LLC has them all): it serves the miss, cache
				 * to cache, as Zen's L3 shadow tags, an Opteron's probe
				 * filter or a non-inclusive LLC's snoop filter have it
				 * done. No DRAM read: a thread that moved to the other
				 * core read its lines from DRAM again here, and a bounded
				 * trace scaled those as recurring fills (allocheavy
				 * +120%). */
				level = peer.found == 1 ? MP_LVL_L3 : MP_LVL_REMOTE_CACHE;
				l2fl |= peer.marks;
				if (marked(l2fl))
					own = l1_owner = marked_owner(m, key, &l2fl, peer.owner, owner, write);
			}
			if (level == MP_LVL_LOCAL_DRAM && m->first_seen)
				l2fl |= first_marks(m, key, own);
			if (m->mach.llc.inclusion != MP_INCL_EXCLUSIVE)
				llc_insert(m, c->socket, &at3, key, own, l2fl & MC_MARKS);
		}
		/* Dirt that came up with the line (exclusive LLC, another
		 * socket) stays in L2 under its owner; a store supersedes it. */
		if (write)
			l2fl &= (uint8_t)~MC_DIRTY;
		struct model_victim v;
		int ev;
		mc_insert_at(&c->l2, &at2, key, own, l2fl, &v, &ev);
		if (ev)
			l2_evicted(m, k, v);
		fl = l2fl & (MC_EXCL | MC_MARKS);
	}
	if (write)
		fl |= MC_DIRTY | MC_EXCL;
	l1_fill(m, k, &at1, key, l1_owner, fl);
	return level;
}

static unsigned level_latency(const struct mp_machine *mm, unsigned level)
{
	switch (level) {
	case MP_LVL_L1:
		return mm->l1d.latency;
	case MP_LVL_L2:
		return mm->l2.latency;
	case MP_LVL_L3:
		return mm->llc.latency;
	case MP_LVL_REMOTE_CACHE:
		return mm->llc.latency * 2;
	case MP_LVL_UNKNOWN:
		return 0; /* set sampling: a miss outside the sample */
	default:
		return mm->dram_latency;
	}
}

/* --- translation ------------------------------------------------------------
 */

static uint64_t pt_key(unsigned space, unsigned level, uint64_t va, unsigned line_shift)
{
	/* level 1 = PTE ... 4 = PML4E; entry index = va >> (12 + 9 (level-1)) */
	uint64_t entry = (va >> (12 + 9 * (level - 1))) * 8;
	return PT_BIT | (uint64_t)space << SPACE_SHIFT | ((uint64_t)level << 40 | entry) >> line_shift;
}

/* (walk_loads: the walk's paging-structure loads go through the caches;
 * 0 for mp_model_translate, which models the TLBs alone) */
static inline __attribute__((always_inline)) void translate(struct mp_model *m, unsigned k, unsigned space, uint64_t va,
							    int ps, uint32_t owner, struct mp_model_out *out,
							    int walk_loads)
{
	struct model_core *c = &m->core[k];
	static const unsigned shift[MP_PAGE_SIZES] = { 12, 21, 30 };
	uint64_t page = va >> shift[ps];
	uint64_t key = page | (uint64_t)space << 40 | (uint64_t)ps << 58;
	/* a size without its own first-level array shares the 4 KiB one */
	struct model_cache *d = c->dtlb[ps].sets ? &c->dtlb[ps] : &c->dtlb[MP_PAGE_4K];
	if (key == c->last_page && *mc_tag(d, c->last_tlb_idx) == key + 1) {
		model_cache_touch(d, c->last_tlb_idx);
		out->tlb = MP_TLB_L1_HIT;
		return;
	}
	const struct mc_at atd = mc_at(d, key);
	int64_t i = mc_find_at(d, &atd, key);
	if (i >= 0) {
		if (*mc_flags(d, i) & MC_MARKS)
			page_touch(m, d, (uint64_t)i,
				   c->stlb.sets && (m->mach.stlb_sizes & (1u << ps)) ? &c->stlb : NULL, MP_TLB_L1_HIT,
				   va, shift[ps]);
		model_cache_touch(d, (uint64_t)i);
		c->last_page = key;
		c->last_tlb_idx = (uint64_t)i;
		out->tlb = MP_TLB_L1_HIT;
		return;
	}
	const struct mp_machine *mm = &m->mach;
	int in_stlb = c->stlb.sets && (mm->stlb_sizes & (1u << ps));
	out->latency += mm->stlb_latency;
	struct model_victim v;
	int ev;
	uint8_t marks = 0; /* mp_model_track_first's, for the DTLB's new entry */
	uint32_t walker = owner; /* and the owner of the walk that made it */
	struct mc_at ats = { NULL, 0, 0 };
	if (in_stlb)
		ats = mc_at(&c->stlb, key);
	if (in_stlb && (i = mc_find_at(&c->stlb, &ats, key)) >= 0) {
		uint8_t *fs = mc_flags(&c->stlb, i);
		if (*fs & MC_MARKS)
			page_touch(m, &c->stlb, (uint64_t)i, NULL, MP_TLB_L2_HIT, va, shift[ps]);
		marks = *fs & MC_MARKS;
		walker = *mc_owner(&c->stlb, i);
		model_cache_touch(&c->stlb, (uint64_t)i);
		out->tlb = MP_TLB_L2_HIT;
	} else {
		out->tlb = MP_TLB_WALK;
		/* the deepest paging-structure cache hit skips the levels above */
		const unsigned leaf = (unsigned)ps + 1; /* level holding the translation */
		unsigned top = 4;
		uint64_t pk[3];
		for (int l = 0; l < 3; l++)
			pk[l] = va >> (39 - 9 * l) | (uint64_t)space << 40;
		for (int l = 2; l >= 0; l--) {
			/* psc[l] caches the entry of level 4-l: skips levels 4..4-l */
			unsigned below = 3 - (unsigned)l; /* next level to read on a hit */
			if (below < leaf || !c->psc[l].sets)
				continue;
			int64_t h = model_cache_find(&c->psc[l], pk[l]);
			if (h >= 0) {
				model_cache_touch(&c->psc[l], (uint64_t)h);
				top = below;
				break;
			}
		}
		for (unsigned lvl = top; lvl >= leaf; lvl--) {
			/* (set sampling: a load outside the sample that misses L1
			 * adds no cycles and no DRAM read. The walker owns the
			 * line: a clean line's owner is only whom
			 * mp_model_track_first reports its first fill to) */
			out->walk_refs++;
			if (walk_loads) {
				unsigned lv = line_ref(m, k, pt_key(space, lvl, va & VA_MASK, m->line_shift), 0, owner);
				if (lv == MP_LVL_LOCAL_DRAM)
					out->walk_dram++;
				out->latency += m->lat[lv];
			}
			if (lvl > leaf) {
				/* a non-leaf entry read: cache it (psc index 4-lvl). The
				 * lookup above missed it (the walk starts below the deepest
				 * hit) and walk loads never touch these caches: absent. */
				struct model_cache *p = &c->psc[4 - lvl];
				if (p->sets)
					model_cache_insert(p, pk[4 - lvl], 0, 0, &v, &ev);
			}
		}
		if (m->first_walk_fn && owner != MP_MODEL_NO_OWNER)
			marks = page_marks(m, key, k);
		if (in_stlb)
			mc_insert_at(&c->stlb, &ats, key, owner, marks, &v, &ev);
	}
	uint64_t idx = mc_insert_at(d, &atd, key, walker, marks, &v, &ev);
	c->last_page = key;
	c->last_tlb_idx = idx;
}

/* repeatable's answer once the core's last line and page are this
 * reference's: a load changes nothing, and a store nothing if the line is
 * this owner's, dirty and exclusive already. */
static inline unsigned repeatable_now(const struct model_core *c, uint32_t owner)
{
	if ((*mc_flags(&c->l1, c->last_idx) & (MC_DIRTY | MC_EXCL)) == (MC_DIRTY | MC_EXCL) &&
	    *mc_owner(&c->l1, c->last_idx) == owner)
		return MP_AGAIN_LOAD | MP_AGAIN_STORE;
	return MP_AGAIN_LOAD;
}

/* Which kinds of reference to this line and page would now change nothing
 * (MP_AGAIN_*). When the core's previous reference was to the same line and
 * page, both are still the most recently used entries of their L1 and DTLB
 * (every touch of those goes through line_ref / translate, which record
 * it), so touching them again changes no replacement order: a load changes
 * nothing, nor does a store to a line this owner already holds dirty and
 * exclusive. */
static inline unsigned repeatable(const struct mp_model *m, unsigned k, unsigned space, uint64_t va, int ps,
				  uint64_t key, uint32_t owner)
{
	static const unsigned shift[MP_PAGE_SIZES] = { 12, 21, 30 };
	const struct model_core *c = &m->core[k];
	if (key != c->last_key || *mc_tag(&c->l1, c->last_idx) != key + 1)
		return 0;
	uint64_t page = va >> shift[ps] | (uint64_t)space << 40 | (uint64_t)ps << 58;
	const struct model_cache *d = c->dtlb[ps].sets ? &c->dtlb[ps] : &c->dtlb[MP_PAGE_4K];
	if (page != c->last_page || *mc_tag(d, c->last_tlb_idx) != page + 1)
		return 0;
	return repeatable_now(c, owner);
}

/* --- long ranges under set sampling (MP_MODEL_SKIPPED) ----------------------
 */

/* The 4 KiB page of a line key (with its space or physical bit). */
static inline uint64_t page_of_key(const struct mp_model *m, uint64_t key)
{
	return key >> (12 - m->line_shift);
}

static inline size_t held_slot(uint64_t page, size_t cap)
{
	return (size_t)((page * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

static int held_has(const struct mp_model *m, uint64_t page)
{
	if (m->held_bad)
		return 1;
	if (!m->held_n)
		return 0;
	for (size_t i = held_slot(page, m->held_cap);; i = (i + 1) & (m->held_cap - 1)) {
		if (!m->held[i])
			return 0;
		if (m->held[i] == page + 1)
			return 1;
	}
}

uint64_t mp_model_range_tail_lines(const struct mp_model *m)
{
	const struct model_cache *l1 = &m->core[0].l1;
	uint64_t line = 1ull << m->line_shift;
	if (!m->sample_mask || (uint64_t)l1->sets * line > 4096)
		return 0;
	return ((uint64_t)l1->sets * l1->ways * line + 4095) / 4096 * (4096 / line) + 4096 / line;
}

int mp_model_range_begin(struct mp_model *m, unsigned core)
{
	if (core >= m->ncores)
		core %= m->ncores;
	m->held_n = 0;
	m->held_bad = 0;
	m->skipped_pages = 0;
	if (m->nactive < 2 && (m->nactive == 0 || m->active[0] == core))
		return 0;
	/* at most every entry of every other active L1, at most half full */
	size_t need = (size_t)model_cache_nidx(&m->core[0].l1) * m->nactive * 2, cap = 64;
	while (cap < need)
		cap *= 2;
	if (cap > m->held_cap) {
		uint64_t *h = realloc(m->held, cap * sizeof(*h));
		if (!h) {
			m->held_bad = 1;
			return -ENOMEM;
		}
		m->held = h;
		m->held_cap = cap;
	}
	memset(m->held, 0, m->held_cap * sizeof(*m->held));
	for (unsigned a = 0; a < m->nactive; a++) {
		unsigned o = m->active[a];
		if (o == core)
			continue;
		const struct model_cache *l1 = &m->core[o].l1;
		for (uint64_t j = 0, n = model_cache_nidx(l1); j < n; j++) {
			if (!model_cache_used(l1, j))
				continue;
			uint64_t page = page_of_key(m, model_cache_key(l1, j));
			size_t i = held_slot(page, m->held_cap);
			while (m->held[i] && m->held[i] != page + 1)
				i = (i + 1) & (m->held_cap - 1);
			if (!m->held[i]) {
				m->held[i] = page + 1;
				m->held_n++;
			}
		}
	}
	return 0;
}

void mp_model_access(struct mp_model *m, unsigned core, uint32_t space, uint64_t addr, uint64_t paddr, int write,
		     unsigned page_shift, uint32_t owner, struct mp_model_out *out)
{
	if (core >= m->ncores)
		core %= m->ncores;
	activate(m, core);
	space &= 0xffff;
	addr &= VA_MASK;
	int ps = page_shift >= 30 ? MP_PAGE_1G : page_shift >= 21 ? MP_PAGE_2M : MP_PAGE_4K;
	uint64_t key = line_key(m, space, addr, paddr);
	unsigned again = repeatable(m, core, space, addr, ps, key, owner);
	if (again & (write ? MP_AGAIN_STORE : MP_AGAIN_LOAD)) {
		*out = (struct mp_model_out){ .level = MP_LVL_L1,
					      .tlb = MP_TLB_L1_HIT,
					      .again = (uint8_t)again,
					      .latency = m->mach.l1d.latency };
		return;
	}
	m->seq++;
	/* (made here and stored whole: a caller's read of level and tlb as one
	 * word would wait for byte stores to them to reach the cache, which
	 * the store buffer cannot forward: ~18 cycles a reference) */
	struct mp_model_out o = { .level = MP_LVL_UNKNOWN };
	translate(m, core, space, addr, ps, owner, &o, 1);
	o.level = (uint8_t)line_ref(m, core, key, write, owner);
	o.latency += m->lat[o.level];
	/* (translate made the page the core's last DTLB entry, and line_ref,
	 * which ends with L1's hit or fill, the line its last L1 entry; the
	 * entry's tag is checked all the same, should the fill's victim,
	 * written down through inclusive levels, have taken the line out) */
	const struct model_core *c = &m->core[core];
	o.again = *mc_tag(&c->l1, c->last_idx) == key + 1 ? (uint8_t)repeatable_now(c, owner) : 0;
	*out = o;
}

void mp_model_translate(struct mp_model *m, unsigned core, uint32_t space, uint64_t addr, unsigned page_shift,
			struct mp_model_out *out)
{
	if (core >= m->ncores)
		core %= m->ncores;
	int ps = page_shift >= 30 ? MP_PAGE_1G : page_shift >= 21 ? MP_PAGE_2M : MP_PAGE_4K;
	*out = (struct mp_model_out){ .level = MP_LVL_UNKNOWN };
	translate(m, core, space & 0xffff, addr & VA_MASK, ps, MP_MODEL_NO_OWNER, out, 0);
}

unsigned model_front(struct mp_model *m, unsigned core, uint32_t space, uint64_t addr, uint64_t paddr,
		     unsigned page_shift, uint32_t owner, struct mp_model_out *out, uint64_t keys[MODEL_FRONT_KEYS])
{
	activate(m, core);
	space &= 0xffff;
	addr &= VA_MASK;
	int ps = page_shift >= 30 ? MP_PAGE_1G : page_shift >= 21 ? MP_PAGE_2M : MP_PAGE_4K;
	m->seq++;
	*out = (struct mp_model_out){ .level = MP_LVL_UNKNOWN };
	translate(m, core, space, addr, ps, owner, out, 0);
	/* the walk's loads, from the level it starts at down to the leaf (translate's order) */
	unsigned n = 0;
	const unsigned leaf = (unsigned)ps + 1;
	for (unsigned lvl = leaf + out->walk_refs - 1; out->walk_refs && lvl >= leaf; lvl--)
		keys[n++] = pt_key(space, lvl, addr, m->line_shift);
	keys[n++] = line_key(m, space, addr, paddr);
	return n;
}

unsigned model_line(struct mp_model *m, unsigned core, uint64_t key, int write, uint32_t owner)
{
	m->seq++;
	return line_ref(m, core, key, write, owner);
}

unsigned model_repeats(struct mp_model *m, unsigned core, uint64_t key, uint64_t writes, unsigned n, uint32_t owner,
		       uint8_t *lv)
{
	unsigned missed = 0;
	const struct model_core *c = &m->core[core];
	for (unsigned i = 0; i < n; i++) {
		const int write = (writes >> i) & 1;
		/* repeatable's test, the TLB's part holding (nothing translated since) */
		if (key == c->last_key && *mc_tag(&c->l1, c->last_idx) == key + 1 &&
		    (!write || repeatable_now(c, owner) & MP_AGAIN_STORE)) {
			lv[i] = MP_LVL_L1 | (uint8_t)(write << 7);
			continue;
		}
		m->seq++;
		unsigned l = line_ref(m, core, key, write, owner);
		missed += l != MP_LVL_L1;
		lv[i] = (uint8_t)(l | (unsigned)write << 7);
	}
	return missed;
}

void model_activate(struct mp_model *m, unsigned core)
{
	activate(m, core);
}

unsigned model_nactive(const struct mp_model *m)
{
	return m->nactive;
}

uint64_t model_class_mod(const struct mp_model *m)
{
	const struct model_cache *c[3] = { &m->core[0].l1, &m->core[0].l2, &m->llc[0] };
	uint64_t g = UINT64_MAX;
	for (int i = 0; i < 3; i++) {
		uint64_t p = (uint64_t)c[i]->all_sets & -(uint64_t)c[i]->all_sets; /* its largest power of two */
		g = p < g ? p : g;
	}
	return g;
}

void model_prefetch_key(const struct mp_model *m, unsigned core, uint64_t key)
{
	const struct model_core *c = &m->core[core];
	model_cache_prefetch(&c->l2, key);
	model_cache_prefetch(&m->llc[c->socket], key);
}


uint64_t mp_model_set_bytes(const struct mp_model *m)
{
	const struct model_cache *l2 = &m->core[0].l2, *llc = &m->llc[0];
	return (uint64_t)l2->sets * l2->set_bytes + (uint64_t)llc->sets * llc->set_bytes;
}

/* Whether core c's TLBs hold the 4 KiB page of va now (translate's keys). */
static int tlbs_hold(const struct mp_model *m, const struct model_core *c, unsigned space, uint64_t va)
{
	uint64_t key = va >> 12 | (uint64_t)space << 40;
	if (key == c->last_page || model_cache_find(&c->dtlb[MP_PAGE_4K], key) >= 0)
		return 1;
	return c->stlb.sets && (m->mach.stlb_sizes & (1u << MP_PAGE_4K)) && model_cache_find(&c->stlb, key) >= 0;
}

unsigned mp_model_prefetch(const struct mp_model *m, unsigned core, uint32_t space, uint64_t addr, uint64_t paddr)
{
	space &= 0xffff;
	addr &= VA_MASK;
	const struct model_core *c = &m->core[core < m->ncores ? core : core % m->ncores];
	const struct model_cache *llc = &m->llc[c->socket];
	unsigned hinted = 0;
	uint64_t key = line_key(m, space, addr, paddr);
	/* (set sampling: a line outside the sample never reaches L2) */
	if (!(key & m->sample_mask) && model_cache_find(&c->l1, key) < 0) {
		model_cache_prefetch(&c->l2, key);
		model_cache_prefetch(llc, key);
		hinted |= MP_HINT_LINE;
	}
	uint64_t pte = pt_key(space, 1, addr, m->line_shift);
	if (!(pte & m->sample_mask) && !tlbs_hold(m, c, space, addr)) {
		model_cache_prefetch(&c->l2, pte);
		model_cache_prefetch(llc, pte);
		hinted |= MP_HINT_WALK;
	}
	return hinted;
}

/* If key would miss core c's L2: the LLC set its L2 victim would go to. */
static inline __attribute__((always_inline)) void prefetch_victim(const struct mp_model *m,
								   const struct model_core *c, uint64_t key)
{
	const struct model_cache *l2 = &c->l2;
	const struct mc_at at = mc_at(l2, key);
	if (mc_find_at(l2, &at, key) >= 0)
		return;
	uint64_t idx = model_cache_idx(l2, at.set, mc_victim_way(l2, at.blk));
	/* (what l2_evicted sends down) */
	if (*mc_tag(l2, idx) && ((*mc_flags(l2, idx) & MC_DIRTY) || m->mach.llc.inclusion == MP_INCL_EXCLUSIVE))
		model_cache_prefetch(&m->llc[c->socket], model_cache_key(l2, idx));
}

void mp_model_prefetch_victim(const struct mp_model *m, unsigned core, uint32_t space, uint64_t addr, uint64_t paddr,
			      unsigned hinted)
{
	const struct model_core *c = &m->core[core < m->ncores ? core : core % m->ncores];
	space &= 0xffff;
	addr &= VA_MASK;
	/* the walk's last level first: its line comes before the data's
	 * (a line outside set sampling's sample was not hinted: no fill into
	 * L2, so no victim) */
	if (hinted & MP_HINT_WALK)
		prefetch_victim(m, c, pt_key(space, 1, addr, m->line_shift));
	if (hinted & MP_HINT_LINE)
		prefetch_victim(m, c, line_key(m, space, addr, paddr));
}

void model_prefetch_victim_key(const struct mp_model *m, unsigned core, uint64_t key)
{
	if (!(key & m->sample_mask)) /* (no fill into L2, so no victim) */
		prefetch_victim(m, &m->core[core], key);
}

int mp_model_store_again(struct mp_model *m, unsigned core, uint32_t owner)
{
	if (core >= m->ncores)
		core %= m->ncores;
	struct model_core *c = &m->core[core];
	/* what l1_hit does with a store; the touches of the line and of its
	 * DTLB entry, both the most recent already, change nothing */
	uint8_t *fl = mc_flags(&c->l1, c->last_idx);
	if (!(*fl & MC_EXCL) && m->nactive > 1)
		return 0; /* other cores' copies go: snoop, on the full path */
	if (marked(*fl))
		owner = marked_owner(m, c->last_key, fl, *mc_owner(&c->l1, c->last_idx), owner, 1);
	*fl |= MC_DIRTY | MC_EXCL;
	*mc_owner(&c->l1, c->last_idx) = owner;
	m->seq++;
	return 1;
}

unsigned mp_model_access_lines(struct mp_model *m, unsigned core, uint32_t space, uint64_t addr, uint64_t paddr,
			       unsigned n, int write, unsigned page_shift, uint32_t owner, int skip,
			       struct mp_model_out *out, uint8_t *level)
{
	mp_model_access(m, core, space, addr, paddr, write, page_shift, owner, out);
	level[0] = out->level;
	if (n <= 1)
		return 0;
	out->again = 0;
	if (core >= m->ncores)
		core %= m->ncores;
	/* Each further line's translation would take the fast path of
	 * translate (the page is the core's most recent DTLB entry, and no
	 * line reference touches a TLB): a DTLB hit that changes nothing. A
	 * repeat short-cut (repeatable) gives what line_ref gives. */
	m->seq++;
	uint64_t key = line_key(m, space & 0xffff, addr & VA_MASK, paddr);
	if (skip && m->sample_mask && !held_has(m, page_of_key(m, key))) {
		/* the sample's lines are every (sample_mask + 1)-th from the
		 * first i with (key + i) & sample_mask == 0 */
		unsigned skipped = n - 1;
		memset(level + 1, MP_MODEL_SKIPPED, n - 1);
		for (uint64_t i = (-key & m->sample_mask) ? (-key & m->sample_mask) : m->sample_mask + 1; i < n;
		     i += m->sample_mask + 1) {
			level[i] = (uint8_t)line_ref(m, core, key + i, write, owner);
			skipped--;
		}
		m->skipped_pages++;
		return skipped;
	}
	for (unsigned i = 1; i < n; i++)
		level[i] = (uint8_t)((key + i) & m->sample_mask ? line_ref_l1(m, core, key + i, write, owner)
								: line_ref(m, core, key + i, write, owner));
	return 0;
}

void mp_model_range_end(struct mp_model *m, unsigned core)
{
	if (core >= m->ncores)
		core %= m->ncores;
	struct model_cache *l1 = &m->core[core].l1;
	if (m->skipped_pages < l1->ways)
		return;
	m->seq++;
	for (uint64_t j = 0, n = model_cache_nidx(l1); j < n; j++)
		if ((j >> l1->wshift) & m->sample_mask && model_cache_used(l1, j))
			model_cache_drop(l1, j);
	m->skipped_pages = 0;
}

unsigned mp_model_latency(const struct mp_model *m, unsigned level)
{
	return level_latency(&m->mach, level);
}

const uint64_t *mp_model_seq(const struct mp_model *m)
{
	return &m->seq;
}

/* --- clean and flush ---------------------------------------------------------
 */

/* Dirty data of entry i of c moves to the next level down, or to DRAM if
 * that level lacks the line; the nearer level's copy is the newer one. */
static void clean_into(struct mp_model *m, struct model_cache *c, uint64_t i, struct model_cache *below)
{
	if (!(*mc_flags(c, i) & MC_DIRTY))
		return;
	uint64_t key = *mc_tag(c, i) - 1;
	*mc_flags(c, i) &= (uint8_t)~MC_DIRTY;
	if (key & m->sample_mask)
		return; /* set sampling: no level below L1 is modelled for it (as in l1_evicted) */
	int64_t j = below ? model_cache_find(below, key) : -1;
	if (j >= 0) {
		*mc_flags(below, j) |= MC_DIRTY;
		*mc_owner(below, j) = *mc_owner(c, i);
	} else {
		dram_write(m, key, *mc_owner(c, i));
	}
}

void mp_model_clean(struct mp_model *m)
{
	m->seq++;
	for (unsigned i = 0; i < m->nactive; i++) {
		struct model_core *c = &m->core[m->active[i]];
		for (uint64_t j = 0, n = model_cache_nidx(&c->l1); j < n; j++)
			if (model_cache_used(&c->l1, j))
				clean_into(m, &c->l1, j, &c->l2);
		for (uint64_t j = 0, n = model_cache_nidx(&c->l2); j < n; j++)
			if (model_cache_used(&c->l2, j))
				clean_into(m, &c->l2, j, &m->llc[c->socket]);
	}
	for (unsigned s = 0; s < m->mach.sockets; s++) {
		struct model_cache *l = &m->llc[s];
		for (uint64_t j = 0, n = model_cache_nidx(l); j < n; j++)
			if (model_cache_used(l, j))
				clean_into(m, l, j, NULL);
	}
}

static void drain(struct model_cache *c, void (*fn)(struct mp_model *, unsigned, struct model_victim),
		  struct mp_model *m, unsigned where)
{
	for (uint64_t i = 0, n = model_cache_nidx(c); i < n; i++) {
		if (!model_cache_used(c, i))
			continue;
		struct model_victim v = { model_cache_key(c, i), c->off_owner ? *mc_owner(c, i) : MP_MODEL_NO_OWNER,
					  *mc_flags(c, i) };
		model_cache_drop(c, i);
		fn(m, where, v);
	}
}

static void l1_evicted_v(struct mp_model *m, unsigned k, struct model_victim v)
{
	l1_evicted(m, k, &v);
}

void mp_model_flush(struct mp_model *m)
{
	m->seq++;
	for (unsigned k = 0; k < m->ncores; k++) {
		struct model_core *c = &m->core[k];
		drain(&c->l1, l1_evicted_v, m, k);
		drain(&c->l2, l2_evicted, m, k);
	}
	for (unsigned s = 0; s < m->mach.sockets; s++)
		drain(&m->llc[s], llc_evicted, m, s);
	for (unsigned k = 0; k < m->ncores; k++) {
		struct model_core *c = &m->core[k];
		model_cache_clear(&c->l1);
		model_cache_clear(&c->l2);
		for (int p = 0; p < MP_PAGE_SIZES; p++)
			if (c->dtlb[p].sets)
				model_cache_clear(&c->dtlb[p]);
		if (c->stlb.sets)
			model_cache_clear(&c->stlb);
		for (int l = 0; l < 3; l++)
			if (c->psc[l].sets)
				model_cache_clear(&c->psc[l]);
		c->last_key = c->last_page = UINT64_MAX;
	}
	for (unsigned s = 0; s < m->mach.sockets; s++)
		model_cache_clear(&m->llc[s]);
}
