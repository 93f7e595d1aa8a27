// SPDX-License-Identifier: MIT
/*
 * The flow API (include/memprism/flows.h): a thin driver over an_run. The
 * replay hands every counted access to collect(), which extends the
 * thread's last event when the access continues it (same object, direction
 * and nodes, and no other thread's access to the object in between) or
 * starts a new one; at the end events get their report-row object and are
 * indexed per thread and per object, in replay order.
 */
#include <errno.h>
#include <memprism/flows.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_numa.h"
#include "analysis/analysis.h"
#include "common/mp_error.h"
#include "model/topology.h"

#define DEFAULT_MAX_EVENTS (1u << 22)
#define NONE UINT32_MAX

struct mp_flows {
	struct an_result *res; /* owns the labels the infos point into */
	struct mp_flow_event *ev;
	size_t nev, cap, max;
	uint32_t *last_of_thread, *last_of_cls; /* event index + 1, 0 none */
	size_t nthr_last, ncls_last;
	int truncated, oom;
	struct mp_flow_thread *threads;
	size_t nthreads;
	struct mp_flow_object *objects;
	size_t nobjects;
	uint32_t *by_thread, *by_object; /* event indices grouped by thread / object */
	size_t *thread_start, *object_start; /* [n + 1] offsets into them */
	unsigned nodes;
};

/* Grows a uint32 array indexed by i to hold i (zero-filled). */
static int slot(uint32_t **v, size_t *n, size_t i)
{
	if (i < *n)
		return 0;
	size_t nn = *n ? *n : 64;
	while (nn <= i)
		nn *= 2;
	uint32_t *g = realloc(*v, nn * sizeof(**v));
	if (!g)
		return -ENOMEM;
	memset(g + *n, 0, (nn - *n) * sizeof(**v));
	*v = g;
	*n = nn;
	return 0;
}

static void collect(void *arg, const struct an_access *a)
{
	struct mp_flows *f = arg;
	if (!a->counted || f->oom)
		return;
	if (slot(&f->last_of_thread, &f->nthr_last, a->thread) || slot(&f->last_of_cls, &f->ncls_last, a->cls)) {
		f->oom = 1;
		return;
	}
	uint32_t lt = f->last_of_thread[a->thread];
	uint64_t size = a->size ? a->size : 1;
	if (lt && f->last_of_cls[a->cls] == lt) {
		struct mp_flow_event *e = &f->ev[lt - 1];
		if (e->object == a->cls && e->write == a->write && e->from_node == a->from_node &&
		    e->to_node == a->to_node) {
			e->count++;
			e->last_time = a->time;
			if (a->addr < e->lo)
				e->lo = a->addr;
			if (a->addr + size > e->hi)
				e->hi = a->addr + size;
			return;
		}
	}
	if (f->nev == f->max) {
		f->truncated = 1;
		return;
	}
	if (f->nev == f->cap) {
		size_t nc = f->cap ? f->cap * 2 : 1024;
		struct mp_flow_event *g = realloc(f->ev, nc * sizeof(*g));
		if (!g) {
			f->oom = 1;
			return;
		}
		f->ev = g;
		f->cap = nc;
	}
	f->ev[f->nev++] = (struct mp_flow_event){ .first_time = a->time,
						  .last_time = a->time,
						  .epoch = a->epoch,
						  .thread = a->thread,
						  .object = a->cls,
						  .from_node = a->from_node,
						  .to_node = a->to_node,
						  .write = a->write,
						  .count = 1,
						  .lo = a->addr,
						  .hi = a->addr + size,
						  .ip = a->ip };
	f->last_of_thread[a->thread] = f->last_of_cls[a->cls] = (uint32_t)f->nev;
}

/* Groups event indices by key (thread or object), keeping replay order. */
static int group(const struct mp_flows *f, size_t nkeys, int by_object, uint32_t **idx, size_t **start)
{
	*start = calloc(nkeys + 1, sizeof(**start));
	*idx = malloc((f->nev ? f->nev : 1) * sizeof(**idx));
	if (!*start || !*idx)
		return -ENOMEM;
	for (size_t i = 0; i < f->nev; i++)
		(*start)[(by_object ? f->ev[i].object : f->ev[i].thread) + 1]++;
	for (size_t k = 0; k < nkeys; k++)
		(*start)[k + 1] += (*start)[k];
	size_t *fill = calloc(nkeys + 1, sizeof(*fill));
	if (!fill)
		return -ENOMEM;
	for (size_t i = 0; i < f->nev; i++) {
		uint32_t k = by_object ? f->ev[i].object : f->ev[i].thread;
		(*idx)[(*start)[k] + fill[k]++] = (uint32_t)i;
	}
	free(fill);
	return 0;
}

static int build(struct mp_flows *f)
{
	const struct an_result *r = f->res;
	const struct an_numa_result *n = r->numa;
	f->nodes = n ? n->topo.nodes : 0;
	/* the flows are replayed accesses: figures measured by PMU samples
	 * (docs/numa.md) would not add up with them */
	int model = n && !n->measured;
	f->nthreads = r->nthreads;
	f->nobjects = r->nclasses;
	f->threads = calloc(f->nthreads ? f->nthreads : 1, sizeof(*f->threads));
	f->objects = calloc(f->nobjects ? f->nobjects : 1, sizeof(*f->objects));
	if (!f->threads || !f->objects)
		return -ENOMEM;
	for (size_t i = 0; i < f->nthreads; i++) {
		const struct an_thread *t = &r->threads[i];
		struct mp_flow_thread *o = &f->threads[i];
		*o = (struct mp_flow_thread){
			.pid = t->pid, .tid = t->tid, .name = t->name, .node = -1, .accesses = t->c.loads + t->c.stores
		};
		if (n && i < n->nthreads) {
			o->node = (int)n->threads[i].node;
			o->pinned = n->threads[i].pinned;
			o->remote = model ? n->threads[i].remote : 0;
		}
	}
	for (size_t i = 0; i < f->nobjects; i++) {
		const struct an_class *c = &r->classes[i];
		f->objects[i] = (struct mp_flow_object){ .label = c->label,
							 .kind = an_kind_name(c->kind),
							 .site = c->site ? c->site : c->label,
							 .bytes = c->bytes_allocated,
							 .max_size = c->max_size,
							 .instances = c->instances,
							 .alloc_thread = c->first_alloc_thread,
							 .home = -1,
							 .accesses = c->c.loads + c->c.stores,
							 .writes = c->c.stores };
	}
	for (size_t i = 0; model && i < n->nobjs; i++) {
		struct mp_flow_object *o = &f->objects[n->objs[i].cls];
		o->home = n->objs[i].home;
		o->remote = n->objs[i].remote;
	}
	/* replay classes -> report rows */
	for (size_t i = 0; i < f->nev; i++) {
		uint32_t c = f->ev[i].object;
		f->ev[i].object = c < r->nclass_map ? r->class_map[c] : 0;
	}
	int err = group(f, f->nthreads, 0, &f->by_thread, &f->thread_start);
	if (!err)
		err = group(f, f->nobjects, 1, &f->by_object, &f->object_start);
	return err;
}

int mp_flows_open(const char *path, const struct mp_flows_opts *opts, struct mp_flows **out)
{
	static const struct mp_flows_opts none;
	const struct mp_flows_opts *o = opts ? opts : &none;
	struct mp_topo topo;
	struct an_numa_opts no = { 0 };
	struct an_opts ao = { .roi = o->roi, .on_access = collect };
	char msg[128];
	int have_topo = 0, err;
	*out = NULL;
	if (o->numa) {
		if (mp_topo_sim(o->numa, &topo, msg, sizeof(msg)))
			return -EINVAL;
		have_topo = 1;
		no.topo = &topo;
		ao.numa = &no;
	}
	struct mp_flows *f = calloc(1, sizeof(*f));
	if (!f) {
		err = -ENOMEM;
		goto out;
	}
	f->max = o->max_events ? o->max_events : DEFAULT_MAX_EVENTS;
	ao.hook_arg = f;
	err = an_run(path, &ao, &f->res);
	if (!err && f->oom)
		err = -ENOMEM;
	if (!err)
		err = build(f);
	if (err) {
		mp_flows_close(f);
		goto out;
	}
	*out = f;
out:
	if (have_topo)
		mp_topo_fini(&topo);
	return err;
}

void mp_flows_close(struct mp_flows *f)
{
	if (!f)
		return;
	an_result_free(f->res);
	free(f->ev);
	free(f->last_of_thread);
	free(f->last_of_cls);
	free(f->threads);
	free(f->objects);
	free(f->by_thread);
	free(f->by_object);
	free(f->thread_start);
	free(f->object_start);
	free(f);
}

const char *mp_flows_strerror(int err)
{
	return mp_strerror(err);
}

int mp_flows_truncated(const struct mp_flows *f)
{
	return f->truncated;
}

unsigned mp_flows_nodes(const struct mp_flows *f)
{
	return f->nodes;
}

size_t mp_flows_thread_count(const struct mp_flows *f)
{
	return f->nthreads;
}

const struct mp_flow_thread *mp_flows_thread(const struct mp_flows *f, size_t i)
{
	return i < f->nthreads ? &f->threads[i] : NULL;
}

size_t mp_flows_object_count(const struct mp_flows *f)
{
	return f->nobjects;
}

const struct mp_flow_object *mp_flows_object(const struct mp_flows *f, size_t i)
{
	return i < f->nobjects ? &f->objects[i] : NULL;
}

void mp_flows_thread_flow(const struct mp_flows *f, size_t i, struct mp_flow_iter *it)
{
	*it = (struct mp_flow_iter){ .flows = f };
	if (i < f->nthreads) {
		it->index = f->by_thread + f->thread_start[i];
		it->n = f->thread_start[i + 1] - f->thread_start[i];
	}
}

void mp_flows_object_flow(const struct mp_flows *f, size_t i, struct mp_flow_iter *it)
{
	*it = (struct mp_flow_iter){ .flows = f };
	if (i < f->nobjects) {
		it->index = f->by_object + f->object_start[i];
		it->n = f->object_start[i + 1] - f->object_start[i];
	}
}

const struct mp_flow_event *mp_flow_next(struct mp_flow_iter *it)
{
	if (it->next >= it->n)
		return NULL;
	return &it->flows->ev[it->index[it->next++]];
}
