// SPDX-License-Identifier: MIT
/*
 * The NUMA view of a merge (an_merge.h): each file's an_numa_result folded
 * into one. Every process was placed on a machine of its own (the same
 * topology, each with its own nodes), so node k of the merge is node k of
 * every process's machine: the matrix, the pages placed and the objects'
 * per-node figures add up. Objects merge as the merge's rows do (the class
 * remap), threads are appended (their indices shifted as the result's),
 * and times become each process's own: ns since its first placed access,
 * since the clocks of different hosts say nothing to each other.
 *
 * Patterns are read from one process's timeline and addresses, which a
 * merge does not have: each file's findings are kept, on the merged
 * object, and the same finding in several files is one whose count adds
 * up (node counts: the largest).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_merge_int.h"
#include "analysis/an_numa.h"
#include "common/vec.h"

void an_merge_numa_fini(struct an_merge_numa *s)
{
	free(s->obj_of);
	memset(s, 0, sizeof(*s));
}

/* (room for need elements, the new ones zeroed) */
#define grow(pp, cap, need, size) mp_vec_grow_zeroed((void **)(pp), (cap), (need), (size))

static int same_machine(const struct mp_topo *a, const struct mp_topo *b)
{
	return a->nodes == b->nodes && a->cpus == b->cpus && a->simulated == b->simulated;
}

/* A use's or a run's time, as ns since the process's start. */
static uint64_t rebase(uint64_t t, uint64_t start)
{
	return t >= start ? t - start : 0;
}

static void shift_obj(struct an_numa_obj *o, uint32_t thread_base, uint64_t start)
{
	for (size_t i = 0; i < o->nuses; i++) {
		o->uses[i].thread += thread_base;
		o->uses[i].first_time = rebase(o->uses[i].first_time, start);
		o->uses[i].last_time = rebase(o->uses[i].last_time, start);
	}
	for (size_t i = 0; i < o->nepisodes; i++) {
		o->episodes[i].thread += thread_base;
		o->episodes[i].first_time = rebase(o->episodes[i].first_time, start);
		o->episodes[i].last_time = rebase(o->episodes[i].last_time, start);
	}
	if (o->first_thread >= 0)
		o->first_thread += thread_base;
}

/* Adds o (shifted already) into d, both with nodes-sized arrays. */
static int obj_add(struct an_numa_obj *d, const struct an_numa_obj *o, unsigned nodes)
{
	d->accesses += o->accesses;
	d->remote += o->remote;
	d->writes += o->writes;
	for (unsigned k = 0; k < 3 * nodes; k++)
		d->from[k] += o->from[k];
	d->runs += o->runs;
	d->handoffs += o->handoffs;
	d->overlaps += o->overlaps;
	d->shared_pages += o->shared_pages;
	if (d->first_thread < 0) {
		d->first_thread = o->first_thread;
		d->home = o->home;
	}
	if (o->nuses) {
		void *p = realloc(d->uses, (d->nuses + o->nuses) * sizeof(*d->uses));
		if (!p)
			return -ENOMEM;
		d->uses = p;
		memcpy(d->uses + d->nuses, o->uses, o->nuses * sizeof(*o->uses));
		d->nuses += o->nuses;
	}
	/* runs past the kept ones extend the count only, as in one file */
	size_t room = d->nepisodes < AN_NUMA_MAX_EPISODES ? AN_NUMA_MAX_EPISODES - d->nepisodes : 0;
	size_t take = o->nepisodes < room ? o->nepisodes : room;
	if (take) {
		void *p = realloc(d->episodes, (d->nepisodes + take) * sizeof(*d->episodes));
		if (!p)
			return -ENOMEM;
		d->episodes = p;
		memcpy(d->episodes + d->nepisodes, o->episodes, take * sizeof(*o->episodes));
		d->nepisodes += take;
	}
	return 0;
}

/* The pattern's count is a number of nodes (the largest is kept), else a
 * number that adds up over processes. */
static int count_is_nodes(enum an_numa_pattern p)
{
	return p == AN_NP_CONCURRENT_READ || p == AN_NP_CONCURRENT_WRITE || p == AN_NP_SATURATED_NODE;
}

static int fold_findings(struct an_merge_numa *s, struct an_numa_result *R, const struct an_numa_result *r,
			 const uint32_t *objmap)
{
	for (size_t i = 0; i < r->nfindings; i++) {
		struct an_numa_finding f = r->findings[i];
		f.obj = f.obj < r->nobjs ? objmap[f.obj] : 0;
		size_t j = 0;
		for (; j < R->nfindings; j++) {
			const struct an_numa_finding *g = &R->findings[j];
			if (g->pattern == f.pattern && g->node == f.node && g->to_node == f.to_node &&
			    (f.pattern == AN_NP_SATURATED_NODE || g->obj == f.obj))
				break;
		}
		if (j < R->nfindings) {
			struct an_numa_finding *g = &R->findings[j];
			if (!count_is_nodes(f.pattern))
				g->count += f.count;
			else if (f.count > g->count)
				g->count = f.count;
			continue;
		}
		if (grow(&R->findings, &s->findings_cap, R->nfindings + 1, sizeof(*R->findings)))
			return -ENOMEM;
		R->findings[R->nfindings++] = f;
	}
	return 0;
}

int an_merge_numa_fold(struct an_merge_numa *s, struct an_result *res, struct an_result *r, const uint32_t *remap,
		       uint32_t thread_base)
{
	struct an_numa_result *n = r->numa;
	if (!n) {
		s->without++;
		return 0;
	}
	struct an_numa_result *R = res->numa;
	if (!R) {
		R = res->numa = calloc(1, sizeof(*R));
		if (!R)
			return -ENOMEM;
		R->topo = n->topo; /* (moved: its memory block is the merge's now) */
		n->topo.block_node = NULL;
		n->topo.nblocks = 0;
		R->thread_policy = n->thread_policy;
		R->page_policy = n->page_policy;
		R->measured = n->measured;
		unsigned nodes = R->topo.nodes;
		R->matrix = calloc((size_t)nodes * nodes, sizeof(uint64_t));
		R->elsewhere = calloc(nodes, sizeof(uint64_t));
		R->pages_on = calloc(nodes, sizeof(uint64_t));
		if (!R->matrix || !R->elsewhere || !R->pages_on)
			return -ENOMEM;
	} else if (!same_machine(&R->topo, &n->topo) || R->measured != n->measured) {
		return -EXDEV;
	}
	s->parts++;
	const unsigned nodes = R->topo.nodes;
	R->scaled |= n->scaled;
	R->accesses += n->accesses;
	R->remote += n->remote;
	for (size_t k = 0; k < (size_t)nodes * nodes; k++)
		R->matrix[k] += n->matrix[k];
	for (unsigned k = 0; k < nodes; k++) {
		R->elsewhere[k] += n->elsewhere[k];
		R->pages_on[k] += n->pages_on[k];
	}
	R->modelled_accesses += n->modelled_accesses;
	R->modelled_remote += n->modelled_remote;
	R->samples += n->samples;
	R->samples_unknown += n->samples_unknown;
	R->samples_simulated += n->samples_simulated;
	R->calls_affinity += n->calls_affinity;
	R->calls_policy += n->calls_policy;
	R->pages += n->pages;
	R->start_time = 0; /* (times are each process's own: see rebase) */

	/* threads: at the result's indices (the part's threads follow thread_base) */
	size_t nth = n->nthreads < r->nthreads ? n->nthreads : r->nthreads;
	if (grow(&R->threads, &s->threads_cap, thread_base + nth, sizeof(*R->threads)))
		return -ENOMEM;
	memcpy(R->threads + thread_base, n->threads, nth * sizeof(*n->threads));
	if (thread_base + nth > R->nthreads)
		R->nthreads = thread_base + nth;

	uint32_t *objmap = calloc(n->nobjs ? n->nobjs : 1, sizeof(*objmap));
	if (!objmap)
		return -ENOMEM;
	int err = 0;
	for (size_t i = 0; i < n->nobjs && !err; i++) {
		struct an_numa_obj *o = &n->objs[i];
		uint32_t k = o->cls < r->nclasses ? remap[o->cls] : o->cls;
		shift_obj(o, thread_base, n->start_time);
		if (grow(&s->obj_of, &s->obj_of_cap, (size_t)k + 1, sizeof(*s->obj_of))) {
			err = -ENOMEM;
			break;
		}
		if (s->obj_of[k]) {
			objmap[i] = s->obj_of[k] - 1;
			err = obj_add(&R->objs[s->obj_of[k] - 1], o, nodes);
			continue;
		}
		if (grow(&R->objs, &s->objs_cap, R->nobjs + 1, sizeof(*R->objs))) {
			err = -ENOMEM;
			break;
		}
		/* the first of its row moves over whole */
		R->objs[R->nobjs] = *o;
		R->objs[R->nobjs].cls = k;
		memset(o, 0, sizeof(*o));
		objmap[i] = (uint32_t)R->nobjs;
		s->obj_of[k] = (uint32_t)++R->nobjs;
	}
	if (!err)
		err = fold_findings(s, R, n, objmap);
	free(objmap);
	return err;
}

static const struct an_numa_obj *sort_objs; /* (qsort has no argument) */

static int cmp_obj(const void *a, const void *b)
{
	const struct an_numa_obj *x = &sort_objs[*(const uint32_t *)a], *y = &sort_objs[*(const uint32_t *)b];
	if (x->remote != y->remote)
		return x->remote > y->remote ? -1 : 1;
	if (x->accesses != y->accesses)
		return x->accesses > y->accesses ? -1 : 1;
	return x->cls < y->cls ? -1 : x->cls > y->cls;
}

int an_merge_numa_finish(struct an_merge_numa *s, struct an_result *res)
{
	struct an_numa_result *R = res->numa;
	if (!R)
		return 0;
	if (s->without) { /* some files placed, some not: no figures that add up */
		an_numa_result_free(R);
		res->numa = NULL;
		return 1;
	}
	/* the threads table covers the result's threads (later parts may have had none placed) */
	if (R->nthreads < res->nthreads) {
		if (grow(&R->threads, &s->threads_cap, res->nthreads, sizeof(*R->threads)))
			return -ENOMEM;
		R->nthreads = res->nthreads;
	}
	/* objects most remote first, as in one file; findings follow them */
	size_t n = R->nobjs;
	uint32_t *order = malloc((n ? n : 1) * sizeof(*order)), *where = malloc((n ? n : 1) * sizeof(*where));
	struct an_numa_obj *objs = malloc((n ? n : 1) * sizeof(*objs));
	if (!order || !where || !objs) {
		free(order);
		free(where);
		free(objs);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	sort_objs = R->objs;
	qsort(order, n, sizeof(*order), cmp_obj);
	for (size_t i = 0; i < n; i++) {
		objs[i] = R->objs[order[i]];
		where[order[i]] = (uint32_t)i;
	}
	free(R->objs);
	R->objs = objs;
	s->objs_cap = n;
	for (size_t i = 0; i < R->nfindings; i++) {
		struct an_numa_finding *f = &R->findings[i];
		if (f->obj < n)
			f->obj = where[f->obj];
		if (f->pattern != AN_NP_SATURATED_NODE) {
			const struct an_numa_obj *o = &R->objs[f->obj];
			f->share = o->accesses ? (double)o->remote / (double)o->accesses : 0.0;
		} else {
			uint64_t in = 0;
			for (unsigned j = 0; j < R->topo.nodes; j++)
				if (j != f->node)
					in += R->matrix[j * R->topo.nodes + f->node];
			f->share = R->remote ? (double)in / (double)R->remote : 0.0;
		}
	}
	free(order);
	free(where);
	return 0;
}
