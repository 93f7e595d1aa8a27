// SPDX-License-Identifier: MIT
/*
 * Folding region instances: pass 1 records, per thread, the access ordinals
 * at which each instance of the region begins and ends; pass 2 maps every
 * access inside an instance to its phase bin and adds it to its object's
 * cell (counts and address offsets).
 */
#include "analysis/an_fold.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/vec.h"
#include "trace/trace_format.h"

struct inst {
	uint64_t begin, end; /* ordinals: accesses [begin, end) of the thread */
};

struct fold_thread {
	MP_VEC(struct inst) inst;
	uint64_t n; /* pass 1: accesses seen */
	int depth; /* nesting of the region (the outermost instance counts) */
	uint64_t open; /* ordinal at the outermost begin */
	uint64_t n2; /* pass 2 */
	size_t k; /* pass 2: current instance */
};

struct an_fold {
	char *region;
	unsigned bins;
	MP_VEC(struct fold_thread) threads;
	const struct an_result *r;
	struct an_fold_cell *cells; /* nclasses x bins, allocated by plan */
	uint64_t *lo; /* per class: lowest folded address (pass 1) */
	uint64_t *count; /* per class: accesses folded */
	uint32_t *order;
	size_t norder;
	uint64_t instances, accesses;
	MP_VEC(uint64_t) lo_replay; /* per replay class, pass 1 */
	int oom;
};

struct an_fold *an_fold_new(const char *region, unsigned bins)
{
	if (!region || !bins || bins > AN_FOLD_MAX_BINS) {
		errno = EINVAL;
		return NULL;
	}
	struct an_fold *f = calloc(1, sizeof(*f));
	if (!f || !(f->region = strdup(region))) {
		free(f);
		errno = ENOMEM;
		return NULL;
	}
	f->bins = bins;
	return f;
}

void an_fold_free(struct an_fold *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->threads.n; i++)
		mp_vec_free(&f->threads.v[i].inst);
	mp_vec_free(&f->threads);
	mp_vec_free(&f->lo_replay);
	free(f->cells);
	free(f->lo);
	free(f->count);
	free(f->order);
	free(f->region);
	free(f);
}

static struct fold_thread *thread_at(struct an_fold *f, uint32_t t)
{
	if (t >= f->threads.n) {
		if (mp_vec_reserve(&f->threads, (size_t)t + 1)) {
			f->oom = 1;
			return NULL;
		}
		memset(f->threads.v + f->threads.n, 0, ((size_t)t + 1 - f->threads.n) * sizeof(*f->threads.v));
		f->threads.n = (size_t)t + 1;
	}
	return &f->threads.v[t];
}

static int inside(const struct fold_thread *th, uint64_t ord)
{
	return th->depth > 0 && ord >= th->open;
}

void an_fold_scan_access(void *arg, const struct an_access *a)
{
	struct an_fold *f = arg;
	struct fold_thread *th = thread_at(f, a->thread);
	if (!th)
		return;
	if (inside(th, th->n)) {
		/* the object's lowest address inside instances: offsets start there */
		if (a->cls >= f->lo_replay.n) {
			size_t old = f->lo_replay.n;
			if (mp_vec_reserve(&f->lo_replay, (size_t)a->cls + 1)) {
				f->oom = 1;
				return;
			}
			for (size_t i = old; i <= a->cls; i++)
				f->lo_replay.v[i] = UINT64_MAX;
			f->lo_replay.n = (size_t)a->cls + 1;
		}
		if (a->addr < f->lo_replay.v[a->cls])
			f->lo_replay.v[a->cls] = a->addr;
	}
	th->n++;
}

void an_fold_scan_event(void *arg, const struct an_event *e)
{
	struct an_fold *f = arg;
	if ((e->type != MP_EV_REGION_BEGIN && e->type != MP_EV_REGION_END) || e->str_len != strlen(f->region) ||
	    memcmp(e->str, f->region, e->str_len) != 0)
		return;
	struct fold_thread *th = thread_at(f, e->thread);
	if (!th)
		return;
	if (e->type == MP_EV_REGION_BEGIN) {
		if (th->depth++ == 0)
			th->open = th->n;
	} else if (th->depth > 0 && --th->depth == 0) {
		struct inst in = { th->open, th->n };
		if (mp_vec_push(&th->inst, in))
			f->oom = 1;
		f->instances++;
	}
}

int an_fold_plan(struct an_fold *f, const struct an_result *r)
{
	if (f->oom)
		return -ENOMEM;
	size_t nc = r->nclasses ? r->nclasses : 1;
	f->r = r;
	f->cells = calloc(nc * f->bins, sizeof(*f->cells));
	f->lo = malloc(nc * sizeof(*f->lo));
	f->count = calloc(nc, sizeof(*f->count));
	f->order = calloc(nc, sizeof(*f->order));
	if (!f->cells || !f->lo || !f->count || !f->order) {
		f->oom = 1;
		return -ENOMEM;
	}
	for (size_t c = 0; c < nc; c++)
		f->lo[c] = UINT64_MAX;
	for (size_t i = 0; i < f->lo_replay.n; i++) {
		uint32_t c = i < r->nclass_map ? r->class_map[i] : UINT32_MAX;
		if (c < r->nclasses && f->lo_replay.v[i] < f->lo[c])
			f->lo[c] = f->lo_replay.v[i];
	}
	for (size_t c = 0; c < nc * f->bins; c++)
		f->cells[c].addr_min = UINT64_MAX;
	return 0;
}

void an_fold_fill_access(void *arg, const struct an_access *a)
{
	struct an_fold *f = arg;
	if (a->thread >= f->threads.n || !f->cells)
		return;
	struct fold_thread *th = &f->threads.v[a->thread];
	uint64_t ord = th->n2++;
	while (th->k < th->inst.n && th->inst.v[th->k].end <= ord)
		th->k++;
	if (th->k >= th->inst.n || ord < th->inst.v[th->k].begin)
		return;
	const struct inst *in = &th->inst.v[th->k];
	uint32_t c = a->cls < f->r->nclass_map ? f->r->class_map[a->cls] : UINT32_MAX;
	if (c >= f->r->nclasses)
		return;
	unsigned b = (unsigned)((ord - in->begin) * f->bins / (in->end - in->begin));
	struct an_fold_cell *cell = &f->cells[(size_t)c * f->bins + b];
	uint64_t off = f->lo[c] == UINT64_MAX || a->addr < f->lo[c] ? 0 : a->addr - f->lo[c];
	if (a->write)
		cell->stores++;
	else
		cell->loads++;
	if (off < cell->addr_min)
		cell->addr_min = off;
	if (off > cell->addr_max)
		cell->addr_max = off;
	cell->addr_sum += (double)off;
	if (f->count[c]++ == 0)
		f->order[f->norder++] = c;
	f->accesses++;
}

int an_fold_error(const struct an_fold *f)
{
	return f->oom ? -ENOMEM : 0;
}

uint64_t an_fold_instances(const struct an_fold *f)
{
	return f->instances;
}

uint64_t an_fold_accesses(const struct an_fold *f)
{
	return f->accesses;
}

unsigned an_fold_bins(const struct an_fold *f)
{
	return f->bins;
}

static int by_count(const void *x, const void *y, void *arg)
{
	const struct an_fold *f = arg;
	uint64_t a = f->count[*(const uint32_t *)x], b = f->count[*(const uint32_t *)y];
	if (a != b)
		return a < b ? 1 : -1;
	return *(const uint32_t *)x < *(const uint32_t *)y ? -1 : 1;
}

size_t an_fold_objects(const struct an_fold *f, const uint32_t **cls)
{
	if (f->norder)
		qsort_r(f->order, f->norder, sizeof(*f->order), by_count, (void *)f);
	*cls = f->order;
	return f->norder;
}

const struct an_fold_cell *an_fold_cell(const struct an_fold *f, uint32_t cls, unsigned b)
{
	return &f->cells[(size_t)cls * f->bins + b];
}
