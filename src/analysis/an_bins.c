// SPDX-License-Identifier: MIT
/*
 * Time x address binning in two replays: the first collects every thread's
 * time stamps (by access ordinal) and each object's address range, the
 * second places every access at its interpolated time.
 */
#include "analysis/an_bins.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/mp_memlevel.h"
#include "common/vec.h"

struct stamp {
	uint64_t ord; /* accesses of the thread before this stamp */
	uint64_t time;
};

struct bin_thread {
	MP_VEC(struct stamp) st;
	uint64_t n; /* pass 1: accesses seen */
	uint64_t first, last; /* ordinals of the first and last counted access */
	int counted;
	double rate; /* ns per access, for the span after the last stamp */
	uint64_t n2; /* pass 2: accesses seen */
	size_t k; /* pass 2: stamp the current access follows */
};

struct range {
	uint64_t lo, hi;
};

/* A replay class's accessed addresses as at most AN_BINS_SEGS ranges. */
struct segs {
	struct range r[AN_BINS_SEGS];
	unsigned n, last; /* last: the range the previous access fell in */
};

struct an_bins {
	MP_VEC(struct bin_thread) threads;
	MP_VEC(struct segs) ranges; /* by replay class; n == 0: not accessed */
	int32_t *grid_of; /* replay class -> grids index, -1 */
	size_t ngrid_of;
	struct an_grid *grids;
	size_t ngrids;
	uint64_t t0, t1;
	int oom;
};

struct an_bins *an_bins_new(void)
{
	struct an_bins *b = calloc(1, sizeof(*b));
	if (!b)
		errno = ENOMEM;
	return b;
}

void an_bins_free(struct an_bins *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->threads.n; i++)
		mp_vec_free(&b->threads.v[i].st);
	mp_vec_free(&b->threads);
	mp_vec_free(&b->ranges);
	for (size_t i = 0; i < b->ngrids; i++) {
		free(b->grids[i].loads);
		free(b->grids[i].stores);
		free(b->grids[i].dram);
	}
	free(b->grids);
	free(b->grid_of);
	free(b);
}

static struct bin_thread *thread_at(struct an_bins *b, uint32_t t)
{
	if (t >= b->threads.n) {
		if (mp_vec_reserve(&b->threads, (size_t)t + 1)) {
			b->oom = 1;
			return NULL;
		}
		memset(b->threads.v + b->threads.n, 0, ((size_t)t + 1 - b->threads.n) * sizeof(*b->threads.v));
		b->threads.n = (size_t)t + 1;
	}
	return &b->threads.v[t];
}

static void stamp(struct an_bins *b, struct bin_thread *th, uint64_t time)
{
	if (th->st.n && th->st.v[th->st.n - 1].time == time)
		return;
	/* Several stamps between two accesses are all kept: the accesses
	 * before them end at the first, those after start at the last (with
	 * --roi, every event after the region shares the last ordinal). */
	struct stamp s = { th->n, time };
	if (mp_vec_push(&th->st, s))
		b->oom = 1;
}

/* Ranges r[0..n) sorted by lo and disjoint: while more than max, the two
 * with the smallest gap between them become one, so the gaps left are the
 * largest. */
static unsigned segs_shrink(struct range *r, unsigned n, unsigned max)
{
	while (n > max) {
		unsigned k = 0;
		for (unsigned i = 1; i + 1 < n; i++)
			if (r[i + 1].lo - r[i].hi < r[k + 1].lo - r[k].hi)
				k = i;
		r[k].hi = r[k + 1].hi;
		memmove(&r[k + 1], &r[k + 2], (n - k - 2) * sizeof(*r));
		n--;
	}
	return n;
}

/* [lo, hi) joins the class's ranges: most accesses fall in the range the
 * last one did. */
static void segs_add(struct segs *s, uint64_t lo, uint64_t hi)
{
	struct range *l = &s->r[s->last];
	if (s->n && lo >= l->lo && hi <= l->hi)
		return;
	unsigned i = 0;
	while (i < s->n && s->r[i].hi < lo)
		i++;
	if (i < s->n && s->r[i].lo <= hi) { /* touches range i (and maybe those after it) */
		if (lo < s->r[i].lo)
			s->r[i].lo = lo;
		if (hi > s->r[i].hi)
			s->r[i].hi = hi;
		unsigned j = i + 1;
		while (j < s->n && s->r[j].lo <= s->r[i].hi) {
			if (s->r[j].hi > s->r[i].hi)
				s->r[i].hi = s->r[j].hi;
			j++;
		}
		memmove(&s->r[i + 1], &s->r[j], (s->n - j) * sizeof(*s->r));
		s->n -= j - i - 1;
		s->last = i;
		return;
	}
	/* a new range at i; one over the limit, and the closest two join */
	struct range tmp[AN_BINS_SEGS + 1];
	memcpy(tmp, s->r, i * sizeof(*tmp));
	tmp[i] = (struct range){ lo, hi };
	memcpy(&tmp[i + 1], &s->r[i], (s->n - i) * sizeof(*tmp));
	s->n = segs_shrink(tmp, s->n + 1, AN_BINS_SEGS);
	memcpy(s->r, tmp, s->n * sizeof(*tmp));
	s->last = 0;
	for (unsigned k = 0; k < s->n; k++)
		if (lo >= s->r[k].lo && lo < s->r[k].hi)
			s->last = k;
}

static int by_lo(const void *x, const void *y)
{
	const struct range *a = x, *b = y;
	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

void an_bins_scan_access(void *arg, const struct an_access *a)
{
	struct an_bins *b = arg;
	struct bin_thread *th = thread_at(b, a->thread);
	if (!th)
		return;
	stamp(b, th, a->time);
	if (a->counted) {
		if (!th->counted)
			th->first = th->n;
		th->last = th->n;
		th->counted = 1;
		if (a->cls >= b->ranges.n) {
			size_t old = b->ranges.n;
			if (mp_vec_reserve(&b->ranges, (size_t)a->cls + 1)) {
				b->oom = 1;
				return;
			}
			memset(b->ranges.v + old, 0, ((size_t)a->cls + 1 - old) * sizeof(*b->ranges.v));
			b->ranges.n = (size_t)a->cls + 1;
		}
		segs_add(&b->ranges.v[a->cls], a->addr, a->addr + (a->size ? a->size : 1));
	}
	th->n++;
}

void an_bins_scan_event(void *arg, const struct an_event *e)
{
	struct an_bins *b = arg;
	struct bin_thread *th = thread_at(b, e->thread);
	if (th && e->time)
		stamp(b, th, e->time);
}

/* Time of access ord of th, which follows stamp k: linear between stamp k
 * and k+1 (clocks of one thread only go forward, but clamp anyway). */
static uint64_t interp(const struct bin_thread *th, size_t k, uint64_t ord)
{
	if (!th->st.n)
		return 0;
	const struct stamp *s = &th->st.v[k];
	double off = (double)(ord - s->ord) + 0.5;
	if (k + 1 < th->st.n) {
		const struct stamp *e = &th->st.v[k + 1];
		if (e->time <= s->time || e->ord <= s->ord)
			return s->time;
		return s->time + (uint64_t)(off * (double)(e->time - s->time) / (double)(e->ord - s->ord));
	}
	return s->time + (uint64_t)(off * th->rate);
}

/* The last stamp at or before ordinal ord. */
static size_t stamp_of(const struct bin_thread *th, uint64_t ord)
{
	size_t lo = 0, hi = th->st.n;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (th->st.v[mid].ord <= ord)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static int by_accesses_desc(const void *x, const void *y, void *arg)
{
	const struct an_result *r = arg;
	const struct an_class *a = &r->classes[*(const uint32_t *)x], *b = &r->classes[*(const uint32_t *)y];
	uint64_t na = a->c.loads + a->c.stores, nb = b->c.loads + b->c.stores;
	if (na != nb)
		return na < nb ? 1 : -1;
	return *(const uint32_t *)x < *(const uint32_t *)y ? -1 : 1;
}

/* A class's ranges, gathered from its replay classes': sorted, joined
 * where they overlap, and shrunk to AN_BINS_SEGS whenever the room for
 * twice that fills. */
struct class_segs {
	struct range r[2 * AN_BINS_SEGS];
	unsigned n;
};

static void class_segs_finish(struct class_segs *k)
{
	qsort(k->r, k->n, sizeof(*k->r), by_lo);
	unsigned m = 0;
	for (unsigned i = 0; i < k->n; i++) {
		if (m && k->r[i].lo <= k->r[m - 1].hi) {
			if (k->r[i].hi > k->r[m - 1].hi)
				k->r[m - 1].hi = k->r[i].hi;
		} else {
			k->r[m++] = k->r[i];
		}
	}
	k->n = segs_shrink(k->r, m, AN_BINS_SEGS);
}

static void class_segs_add(struct class_segs *k, struct range r)
{
	if (k->n == 2 * AN_BINS_SEGS)
		class_segs_finish(k);
	k->r[k->n++] = r;
}

int an_bins_plan(struct an_bins *b, const struct an_result *r, size_t max_objects)
{
	if (b->oom)
		return -ENOMEM;
	/* the time axis spans the counted accesses */
	uint64_t t0 = UINT64_MAX, t1 = 0;
	for (size_t i = 0; i < b->threads.n; i++) {
		struct bin_thread *th = &b->threads.v[i];
		if (!th->st.n)
			continue;
		const struct stamp *f = &th->st.v[0], *l = &th->st.v[th->st.n - 1];
		th->rate = l->ord > f->ord && l->time > f->time
				   ? (double)(l->time - f->time) / (double)(l->ord - f->ord)
				   : 0.0;
		if (!th->counted)
			continue;
		uint64_t a = interp(th, stamp_of(th, th->first), th->first);
		uint64_t z = interp(th, stamp_of(th, th->last), th->last);
		if (a < t0)
			t0 = a;
		if (z + 1 > t1)
			t1 = z + 1;
	}
	if (t0 >= t1)
		t0 = 0, t1 = 1;
	b->t0 = t0;
	b->t1 = t1;
	/* the most accessed classes get grids over the union of their replay
	 * classes' ranges */
	uint32_t *order = calloc(r->nclasses ? r->nclasses : 1, sizeof(*order));
	struct class_segs *cs = calloc(r->nclasses ? r->nclasses : 1, sizeof(*cs));
	b->grid_of = calloc(b->ranges.n ? b->ranges.n : 1, sizeof(*b->grid_of));
	if (!order || !cs || !b->grid_of)
		goto oom;
	b->ngrid_of = b->ranges.n;
	for (size_t c = 0; c < r->nclasses; c++)
		order[c] = (uint32_t)c;
	for (size_t i = 0; i < b->ranges.n; i++) {
		b->grid_of[i] = -1;
		uint32_t c = i < r->nclass_map ? r->class_map[i] : UINT32_MAX;
		if (c >= r->nclasses)
			continue;
		for (unsigned k = 0; k < b->ranges.v[i].n; k++)
			class_segs_add(&cs[c], b->ranges.v[i].r[k]);
	}
	for (size_t c = 0; c < r->nclasses; c++)
		class_segs_finish(&cs[c]);
	qsort_r(order, r->nclasses, sizeof(*order), by_accesses_desc, (void *)r);
	size_t n = 0;
	while (n < r->nclasses && n < max_objects && cs[order[n]].n)
		n++;
	b->grids = calloc(n ? n : 1, sizeof(*b->grids));
	if (!b->grids)
		goto oom;
	int model = r->mem_origin == AN_MEM_MODELLED;
	for (size_t g = 0; g < n; g++) {
		struct an_grid *gr = &b->grids[g];
		const struct class_segs *k = &cs[order[g]];
		b->ngrids = g + 1;
		gr->cls = order[g];
		gr->lo = k->r[0].lo;
		gr->hi = k->r[k->n - 1].hi;
		gr->nseg = k->n;
		for (unsigned j = 0; j < k->n; j++) {
			gr->seg[j] = (struct an_seg){ k->r[j].lo, k->r[j].hi, gr->span };
			gr->span += k->r[j].hi - k->r[j].lo;
		}
		gr->loads = calloc((size_t)AN_BINS_T * AN_BINS_A, sizeof(uint32_t));
		gr->stores = calloc((size_t)AN_BINS_T * AN_BINS_A, sizeof(uint32_t));
		gr->dram = model ? calloc((size_t)AN_BINS_T * AN_BINS_A, sizeof(uint32_t)) : NULL;
		if (!gr->loads || !gr->stores || (model && !gr->dram))
			goto oom;
	}
	for (size_t i = 0; i < b->ranges.n; i++) {
		uint32_t c = i < r->nclass_map ? r->class_map[i] : UINT32_MAX;
		for (size_t g = 0; g < b->ngrids; g++)
			if (b->grids[g].cls == c)
				b->grid_of[i] = (int32_t)g;
	}
	free(order);
	free(cs);
	return 0;
oom:
	free(order);
	free(cs);
	b->oom = 1;
	return -ENOMEM;
}

static inline void bump(uint32_t *v, size_t i)
{
	if (v[i] != UINT32_MAX)
		v[i]++;
}

static void fill(struct an_bins *b, const struct an_access *a, uint64_t t);

uint64_t an_bins_time_of(struct an_bins *b, const struct an_access *a, int do_fill)
{
	if (a->thread >= b->threads.n)
		return a->time; /* not the replay pass 1 saw */
	struct bin_thread *th = &b->threads.v[a->thread];
	uint64_t ord = th->n2++;
	while (th->k + 1 < th->st.n && th->st.v[th->k + 1].ord <= ord)
		th->k++;
	uint64_t t = interp(th, th->k, ord);
	if (do_fill)
		fill(b, a, t);
	return t;
}

void an_bins_fill_access(void *arg, const struct an_access *a)
{
	an_bins_time_of(arg, a, 1);
}

static void fill(struct an_bins *b, const struct an_access *a, uint64_t t)
{
	if (!a->counted || a->cls >= b->ngrid_of || b->grid_of[a->cls] < 0)
		return;
	struct an_grid *g = &b->grids[b->grid_of[a->cls]];
	double span = (double)(b->t1 - b->t0);
	size_t tb = t <= b->t0 ? 0 : (size_t)((double)(t - b->t0) * AN_BINS_T / span);
	if (tb >= AN_BINS_T)
		tb = AN_BINS_T - 1;
	const struct an_seg *sg = NULL;
	for (size_t i = 0; i < g->nseg && !sg; i++)
		if (a->addr >= g->seg[i].lo && a->addr < g->seg[i].hi)
			sg = &g->seg[i];
	if (!sg)
		return;
	double w = (double)g->span;
	uint64_t last = a->addr + (a->size ? a->size - 1 : 0);
	if (last >= sg->hi)
		last = sg->hi - 1;
	size_t a0 = (size_t)((double)(sg->off + (a->addr - sg->lo)) * AN_BINS_A / w);
	size_t a1 = (size_t)((double)(sg->off + (last - sg->lo)) * AN_BINS_A / w);
	if (a1 >= AN_BINS_A)
		a1 = AN_BINS_A - 1;
	if (a0 > a1)
		a0 = a1;
	int dram = a->outcome && (a->outcome->level == MP_LVL_LOCAL_DRAM || a->outcome->level == MP_LVL_REMOTE_DRAM);
	/* a ranged access (memset) covers every bin of its range */
	for (size_t ab = a0; ab <= a1; ab++) {
		size_t cell = tb * AN_BINS_A + ab;
		if (a->write) {
			bump(g->stores, cell);
		} else {
			bump(g->loads, cell);
			if (dram && g->dram)
				bump(g->dram, cell);
		}
	}
	g->binned++;
}

int an_bins_error(const struct an_bins *b)
{
	return b->oom ? -ENOMEM : 0;
}

void an_bins_time(const struct an_bins *b, uint64_t *t0, uint64_t *t1)
{
	*t0 = b->t0;
	*t1 = b->t1;
}

size_t an_bins_ngrids(const struct an_bins *b)
{
	return b->ngrids;
}

const struct an_grid *an_bins_grid(const struct an_bins *b, size_t i)
{
	return &b->grids[i];
}
