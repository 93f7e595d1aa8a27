// SPDX-License-Identifier: MIT
/*
 * NUMA's result (docs/numa.md): after the replay, each object's per-thread
 * uses merged into report rows by class, the burst sampling's factors
 * applied, the thread and node tables built, and MemProf's patterns read
 * from the objects' timelines (find_patterns).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_numa_int.h"
#include "common/mp_error.h"

/* --- the result: objects merged into report rows, then the patterns ------ */

void an_numa_result_free(struct an_numa_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nobjs; i++) {
		free(r->objs[i].from);
		free(r->objs[i].uses);
		free(r->objs[i].episodes);
	}
	free(r->objs);
	free(r->threads);
	free(r->findings);
	free(r->matrix);
	free(r->elsewhere);
	free(r->pages_on);
	mp_topo_fini(&r->topo);
	free(r);
}

/* Room in a row's arrays while instances merge into it: a class may have
 * tens of thousands (grown one instance at a time, its arrays would be
 * copied at each). */
struct obj_room {
	size_t uses, episodes;
};

/* Room for need elements in *v: exactly need at first (most rows are one
 * instance's), doubling after. 0 or -ENOMEM (*v as it was). */
static int room_for(void **v, size_t *room, size_t need, size_t elem)
{
	if (need <= *room)
		return 0;
	size_t cap = *room && 2 * *room > need ? 2 * *room : need;
	void *nv = cap <= SIZE_MAX / elem ? realloc(*v, cap * elem) : NULL;
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*room = cap;
	return 0;
}

/* Adds state object src into result object d (both with nodes-sized arrays). */
static int obj_merge(struct an_numa_obj *d, struct obj_room *room, struct nobj *src, unsigned nodes)
{
	d->accesses += src->accesses;
	d->remote += src->remote;
	d->writes += src->writes;
	for (unsigned k = 0; k < 3 * nodes; k++)
		d->from[k] += src->from[k];
	d->runs += src->runs;
	d->handoffs += src->handoffs;
	d->overlaps += src->overlaps;
	if (d->first_thread < 0) {
		d->first_thread = src->first_thread;
		d->home = src->home;
	}
	for (size_t i = 0; i < src->uses.n; i++) {
		const struct an_numa_use *u = &src->uses.v[i];
		size_t j = 0;
		while (j < d->nuses && d->uses[j].thread != u->thread)
			j++;
		if (j == d->nuses) {
			if (room_for((void **)&d->uses, &room->uses, d->nuses + 1, sizeof(*d->uses)))
				return -ENOMEM;
			d->uses[d->nuses++] = *u;
			continue;
		}
		struct an_numa_use *w = &d->uses[j];
		w->accesses += u->accesses;
		w->remote += u->remote;
		w->writes += u->writes;
		w->first_time = u->first_time < w->first_time ? u->first_time : w->first_time;
		w->last_time = u->last_time > w->last_time ? u->last_time : w->last_time;
		w->lo = u->lo < w->lo ? u->lo : w->lo;
		w->hi = u->hi > w->hi ? u->hi : w->hi;
	}
	if (src->eps.n) {
		if (room_for((void **)&d->episodes, &room->episodes, d->nepisodes + src->eps.n,
			     sizeof(*d->episodes)))
			return -ENOMEM;
		memcpy(d->episodes + d->nepisodes, src->eps.v, src->eps.n * sizeof(*d->episodes));
		d->nepisodes += src->eps.n;
	}
	return 0;
}

static int cmp_episode(const void *a, const void *b)
{
	const struct an_numa_episode *x = a, *y = b;
	if (x->first_epoch != y->first_epoch)
		return x->first_epoch < y->first_epoch ? -1 : 1;
	return x->first_time < y->first_time ? -1 : x->first_time > y->first_time;
}

static int cmp_use_lo(const void *a, const void *b)
{
	const struct an_numa_use *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int cmp_obj(const void *a, const void *b)
{
	const struct an_numa_obj *x = a, *y = b;
	if (x->remote != y->remote)
		return x->remote > y->remote ? -1 : 1;
	if (x->accesses != y->accesses)
		return x->accesses > y->accesses ? -1 : 1;
	return x->cls < y->cls ? -1 : x->cls > y->cls;
}

#define MIN_REMOTE 64 /* an object with fewer remote accesses has no finding */

/* Thread-private parts: the threads other than the first one (which made and
 * filled the object) each touch an address range no other touches. Returns
 * the number of such threads (0: not private) and the pages two parts share. */
static size_t private_parts(const struct an_numa_obj *o, uint64_t *shared)
{
	struct an_numa_use parts[64];
	size_t np = 0;
	for (size_t i = 0; i < o->nuses; i++)
		if ((int64_t)o->uses[i].thread != o->first_thread && np < 64)
			parts[np++] = o->uses[i];
	if (np < 2 || np != o->nuses - (o->first_thread >= 0 ? 1 : 0))
		return 0;
	qsort(parts, np, sizeof(parts[0]), cmp_use_lo);
	*shared = 0;
	uint64_t last_shared = UINT64_MAX;
	for (size_t i = 0; i + 1 < np; i++) {
		if (parts[i].hi > parts[i + 1].lo)
			return 0;
		uint64_t page = (parts[i].hi - 1) >> PAGE_SHIFT;
		if (page == parts[i + 1].lo >> PAGE_SHIFT && page != last_shared) {
			(*shared)++;
			last_shared = page;
		}
	}
	return np;
}

static int add_finding(struct an_numa_result *r, size_t *cap, struct an_numa_finding f)
{
	if (r->nfindings == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		void *nf = realloc(r->findings, nc * sizeof(*r->findings));
		if (!nf)
			return -ENOMEM;
		r->findings = nf;
		*cap = nc;
	}
	r->findings[r->nfindings++] = f;
	return 0;
}

/* MemProf's patterns (its section 4), one per object, most specific
 * first, then the nodes that draw most of the remote traffic. */
static int find_patterns(struct an_numa_result *r)
{
	size_t cap = 0;
	unsigned nodes = r->topo.nodes;
	for (size_t i = 0; i < r->nobjs; i++) {
		const struct an_numa_obj *o = &r->objs[i];
		if (o->remote < MIN_REMOTE || o->remote * 10 < o->accesses)
			continue;
		struct an_numa_finding f = { .obj = (uint32_t)i,
					     .node = o->home < 0 ? 0 : (unsigned)o->home,
					     .share = (double)o->remote / (double)o->accesses };
		uint64_t used_nodes = 0, later_nodes = 0, later_acc = 0, later_writes = 0;
		uint64_t remote_from[MP_TOPO_MAX_NODES] = { 0 };
		for (size_t k = 0; k < o->nuses; k++) {
			used_nodes |= 1ull << o->uses[k].node;
			remote_from[o->uses[k].node] += o->uses[k].remote;
			if ((int64_t)o->uses[k].thread != o->first_thread) {
				later_nodes |= 1ull << o->uses[k].node; /* users, not the maker */
				later_acc += o->uses[k].accesses;
				later_writes += o->uses[k].writes;
			}
		}
		uint64_t shared = 0;
		if (private_parts(o, &shared)) {
			f.pattern = AN_NP_PRIVATE_SHARED_PAGES;
			f.count = shared;
		} else if (__builtin_popcountll(later_nodes) >= 2 && o->overlaps && o->overlaps >= o->handoffs) {
			/* read-mostly once made: at most 1 write in 20 by the users */
			f.pattern = later_writes * 20 <= later_acc ? AN_NP_CONCURRENT_READ : AN_NP_CONCURRENT_WRITE;
			f.count = (uint64_t)__builtin_popcountll(later_nodes);
		} else if (__builtin_popcountll(used_nodes) >= 2 && o->handoffs >= 3) {
			f.pattern = AN_NP_ALTERNATE;
			f.count = o->handoffs;
		} else {
			unsigned d = 0;
			for (unsigned k = 1; k < nodes; k++)
				if (remote_from[k] > remote_from[d])
					d = k;
			if (o->home < 0 || d == (unsigned)o->home || remote_from[d] * 2 < o->accesses)
				continue;
			f.pattern = AN_NP_REMOTE_AFTER_ALLOC;
			f.to_node = d;
			f.count = remote_from[d];
		}
		if (add_finding(r, &cap, f))
			return -ENOMEM;
	}
	/* saturated node: most remote traffic converges on one node, from
	 * several objects (with two nodes, all remote traffic converges) */
	if (nodes < 3 || !r->remote)
		return 0;
	for (unsigned k = 0; k < nodes; k++) {
		uint64_t in = 0;
		for (unsigned j = 0; j < nodes; j++)
			if (j != k)
				in += r->matrix[j * nodes + k];
		if (in * 2 < r->remote || in < MIN_REMOTE)
			continue;
		uint64_t contributors = 0, best = 0;
		size_t bi = 0;
		for (size_t i = 0; i < r->nobjs; i++) {
			uint64_t v = r->objs[i].rat[k];
			if (v * 10 >= in)
				contributors++;
			if (v > best) {
				best = v;
				bi = i;
			}
		}
		if (contributors < 2)
			continue;
		struct an_numa_finding f = { .pattern = AN_NP_SATURATED_NODE,
					     .obj = (uint32_t)bi,
					     .node = k,
					     .count = contributors,
					     .share = (double)in / (double)r->remote };
		if (add_finding(r, &cap, f))
			return -ENOMEM;
	}
	return 0;
}

/* Burst sampling: the tables counted the recorded accesses; each thread's
 * part (its tally and matrix, its uses of objects and its runs on their
 * timelines, kept apart by tally) is scaled by its own factor, set by
 * an_bursts_apply, and the matrix, totals and objects' figures become the
 * sums of the scaled parts, as report's rows do. */
static void scale_by_thread(struct an_state *st, struct an_numa *n, struct ntables *tb)
{
	const unsigned nn = n->topo.nodes;
	const size_t cells = (size_t)nn * (nn + 1);
#define FACTOR(t) ((t) < st->threads.n ? st->threads.v[t].sample_factor : 1.0)
	memset(tb->matrix, 0, (size_t)nn * nn * sizeof(uint64_t));
	memset(tb->elsewhere, 0, nn * sizeof(uint64_t));
	tb->accesses = tb->remote = 0;
	for (size_t i = 0; i < tb->threads.n; i++) {
		struct ntally *t = &tb->threads.v[i];
		const double f = FACTOR(i);
		t->accesses = an_scaled(t->accesses, f);
		t->remote = an_scaled(t->remote, f);
		tb->accesses += t->accesses;
		tb->remote += t->remote;
		for (size_t k = 0; t->matrix && k < cells; k++) {
			uint64_t v = an_scaled(t->matrix[k], f);
			if (k < (size_t)nn * nn)
				tb->matrix[k] += v;
			else
				tb->elsewhere[k - (size_t)nn * nn] += v;
		}
	}
	for (size_t i = 0; i < tb->objs.n; i++) {
		struct nobj *o = &tb->objs.v[i];
		if (!o->used || o->use_nodes.n != 3 * (size_t)nn * o->uses.n)
			continue;
		o->accesses = o->remote = o->writes = 0;
		memset(o->from, 0, 3 * (size_t)nn * sizeof(uint64_t));
		for (size_t j = 0; j < o->uses.n; j++) {
			struct an_numa_use *u = &o->uses.v[j];
			const double f = FACTOR(u->thread);
			u->accesses = an_scaled(u->accesses, f);
			u->remote = an_scaled(u->remote, f);
			u->writes = an_scaled(u->writes, f);
			o->accesses += u->accesses;
			o->remote += u->remote;
			o->writes += u->writes;
			const uint64_t *un = &o->use_nodes.v[3 * (size_t)nn * j];
			for (size_t k = 0; k < 3 * (size_t)nn; k++)
				o->from[k] += an_scaled(un[k], f);
		}
		for (size_t j = 0; j < o->eps.n; j++) {
			struct an_numa_episode *e = &o->eps.v[j];
			const double f = FACTOR(e->thread);
			e->accesses = an_scaled(e->accesses, f);
			e->remote = an_scaled(e->remote, f);
			e->writes = an_scaled(e->writes, f);
		}
	}
#undef FACTOR
}

int an_numa_finish(struct an_state *st, struct an_result *res, const uint32_t *remap)
{
	struct an_numa *n = st->numa;
	if (!n)
		return 0;
	struct an_numa_result *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	int err = an_numa_topo_copy(&r->topo, &n->topo);
	unsigned nodes = n->topo.nodes;
	static const char *const tp[] = { "spread", "spread", "compact", "recorded CPU" };
	static const char *const pp[] = { "first touch", "interleave", "bind" };
	/* measured wins: with samples whose data source told local or
	 * remote, every locality figure is theirs */
	struct ntables *tb = n->meas.accesses ? &n->meas : &n->model;
	r->measured = tb == &n->meas;
	if (st->parts_on && !r->measured && tb->matrix && tb->elsewhere) {
		scale_by_thread(st, n, tb);
		r->scaled = 1;
	}
	r->thread_policy = tp[n->o.threads];
	r->page_policy = pp[n->o.pages];
	r->accesses = tb->accesses;
	r->remote = tb->remote;
	r->modelled_accesses = n->model.accesses;
	r->modelled_remote = n->model.remote;
	r->samples = n->meas.hits;
	r->samples_unknown = n->samples_unknown;
	r->samples_simulated = n->samples_simulated;
	r->calls_affinity = n->calls_affinity;
	r->calls_policy = n->calls_policy;
	r->pages = n->npages;
	r->start_time = tb->start_time == UINT64_MAX ? 0 : tb->start_time;
	r->matrix = tb->matrix;
	r->elsewhere = tb->elsewhere;
	r->pages_on = n->pages_on;
	tb->matrix = tb->elsewhere = n->pages_on = NULL;
	/* the result's thread table is handed over after this: count the state's */
	r->nthreads = st->threads.n;
	r->threads = calloc(r->nthreads ? r->nthreads : 1, sizeof(*r->threads));
	struct an_numa_obj *objs = calloc(res->nclasses ? res->nclasses : 1, sizeof(*objs));
	struct obj_room *room = calloc(res->nclasses ? res->nclasses : 1, sizeof(*room));
	if (err || !r->threads || !objs || !room) {
		free(objs);
		free(room);
		an_numa_result_free(r);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->nthreads; i++) {
		const struct nthread *t = i < n->threads.n ? &n->threads.v[i] : NULL;
		const struct ntally *c = i < tb->threads.n ? &tb->threads.v[i] : NULL;
		struct an_numa_thread *d = &r->threads[i];
		d->node = t ? t->node : 0;
		d->pinned = t ? t->pinned : 0;
		if (c) {
			d->accesses = c->accesses;
			d->remote = c->remote;
			if (r->measured && c->seen)
				d->node = c->node; /* where it was sampled last */
		}
	}
	for (size_t i = 0; i < res->nclasses; i++) {
		objs[i].cls = (uint32_t)i;
		objs[i].first_thread = -1;
		objs[i].home = -1;
	}
	for (size_t i = 0; i < tb->objs.n && !err; i++) {
		struct nobj *o = &tb->objs.v[i];
		if (!o->used || !o->accesses || !remap)
			continue;
		struct an_numa_obj *d = &objs[remap[i]];
		if (!d->from) {
			d->from = calloc(3 * (size_t)nodes, sizeof(uint64_t));
			if (!d->from) {
				err = -ENOMEM;
				break;
			}
			d->at = d->from + nodes;
			d->rat = d->at + nodes;
		}
		err = obj_merge(d, &room[remap[i]], o, nodes);
	}
	free(room);
	/* keep the objects with accesses, most remote first */
	size_t k = 0;
	for (size_t i = 0; i < res->nclasses; i++) {
		if (!objs[i].from) {
			free(objs[i].uses);
			free(objs[i].episodes);
			continue;
		}
		struct an_numa_obj *o = &objs[i];
		if (o->nepisodes > 1)
			qsort(o->episodes, o->nepisodes, sizeof(*o->episodes), cmp_episode);
		private_parts(o, &o->shared_pages);
		objs[k++] = *o;
	}
	r->objs = objs;
	r->nobjs = k;
	if (k > 1)
		qsort(r->objs, k, sizeof(*r->objs), cmp_obj);
	if (!err)
		err = find_patterns(r);
	if (err) {
		an_numa_result_free(r);
		return err;
	}
	res->numa = r;
	return 0;
}
