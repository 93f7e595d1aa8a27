// SPDX-License-Identifier: MIT
/*
 * The processes of one data file (a program that forks: its children
 * write into its file) replayed on several threads, an_opts.jobs at once.
 *
 * Each process is replayed into a state of its own: its own classes,
 * stacks, threads, code addresses, wrapper-judgement tallies, warnings and
 * counts, beside the file's processes and streams, which every state shares
 * (a replay touches only its own process's, and its children's before they
 * start). Then the states are folded into the file's state one by one, in
 * the order the serial replay takes the processes (parents first): each
 * row, stack, thread and code address is looked up or made in the file's
 * registry by what it is (a class by its label, or its allocation stack
 * and file), in the order the process made it, so each gets the index the
 * serial replay gives it and every figure adds up to the serial one. The
 * stages after the replay then see the state a serial replay leaves, and
 * the result is the same byte for byte.
 *
 * With a model, each process's state has a machine of its own, cold, for
 * as long as its replay runs, as the serial replay gives each process one
 * (an_model_proc_begin): its rows' modelled figures fold as its counts do.
 * With NUMA placement, each its own placement on the file's topology: its
 * pages are its own in the serial replay too (keyed by process), and its
 * tables fold after the processes before it (an_numa_fold).
 *
 * A forked child starts once its parent's replay has ended: it makes its
 * map from what its parent's replay kept at the fork (an_fork.c), making
 * each object's class again in its own state from its parent's.
 *
 * The file's bounds (docs/trace-format.md) count every process together
 * (but the objects live at once: each process's map alone, in the serial
 * replay too), and the serial replay decides what is past them: when the
 * states together might pass one, or a replay found damage, the file is
 * replayed again, serially (AN_REPLAY_AGAIN).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_int.h"
#include "analysis/an_pattern.h"
#include "common/mp_error.h"
#include "trace/trace_reader.h"

struct par_proc {
	struct an_state st;
	struct an_result res; /* its tallies: totals, allocations, damage */
	struct an_opts opts; /* the file's, with a pattern collector of its own */
	struct an_patterns *pats; /* NULL: none asked for */
	uint64_t weight; /* its chunks (proc_weight) */
	int ready, claimed;
};

struct an_par {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_mutex_t sym_mu; /* (an_state.sym_mu) */
	struct an_state *file;
	struct an_opts opts; /* the processes' options: progress through par_progress */
	struct par_proc *procs; /* by process index */
	const uint32_t *order, *parent;
	size_t n, left; /* processes, and those not yet claimed */
	uint64_t chunks_done;
	int err;
};

/* 1 if no two processes have one pid (an exec'd image has its
 * predecessor's). */
static int pids_distinct(const struct an_state *st)
{
	struct mp_hashmap seen;
	mp_hashmap_init(&seen);
	int ok = 1;
	for (size_t i = 0; i < st->procs.n && ok; i++) {
		const uint64_t key = (uint64_t)st->procs.v[i].pid | 1ull << 63;
		ok = !mp_hashmap_get(&seen, key) && !mp_hashmap_put(&seen, key, i);
	}
	mp_hashmap_fini(&seen);
	return ok;
}

/* Whether each process's model may run in its state: each process runs on
 * a cold machine of its own in the serial replay too (an_model_proc_begin),
 * so its figures do not depend on the others'. What-if rules are matched
 * by class, which decides alike in every state (an_model_rules_fold); so
 * are the page-walk checks' page sizes, whose TLBs are each process's own
 * too (an_model_checks_fold). Threads spread over
 * cores take their place in the file from an_replay_places, made before
 * the replays start. Physical addresses: the translations of
 * a (pid, page) are cached in one table, so only where each process's pid
 * is its own (no two states then touch one entry). */
static int model_apart(const struct an_state *st)
{
	return !st->phys || pids_distinct(st);
}

/* Processes replayed at once at most: each keeps a state of its own
 * until the fold, its classes among them (a C library's statics alone
 * are a thousand, of 664 bytes each): a shell's 15,000 short processes
 * took 14 GB, and ran slower than one after another. */
#define PAR_PROCS_MAX 256

int an_par_wanted(const struct an_state *st)
{
	const struct an_opts *o = st->opts;
	return o->jobs > 1 && st->procs.n > 1 && st->procs.n <= PAR_PROCS_MAX && (!st->model || model_apart(st)) &&
	       (!an_numa_frames(st) || pids_distinct(st)) && !st->smp && !st->parts_on && !st->replay_on &&
	       !o->on_access && !o->on_event && !o->on_dram && !st->res->damaged && !st->oom;
}

struct an_state *an_par_state(struct an_par *par, uint32_t pi)
{
	return &par->procs[pi].st;
}

uint32_t an_par_class(struct an_state *from, struct an_state *to, uint32_t cls)
{
	const struct an_class *c = &from->classes.v[cls];
	if (c->label)
		return an_class_by_label(to, c->kind, c->label);
	const struct an_stack *s = &from->stacks.v[from->class_stack.v[cls]];
	const uint32_t ts = an_stack_intern(to, s->proc, s->frames, s->n);
	return ts == UINT32_MAX ? to->unknown_cls : an_class_by_stack(to, c->kind, ts, c->file);
}

/* The file's progress callback, called by one process's replay every 8
 * chunks: the chunks of all of them, one call at a time. */
static void par_progress(void *arg, uint64_t done, uint64_t total)
{
	struct an_par *par = arg;
	(void)done;
	pthread_mutex_lock(&par->mu);
	par->chunks_done += 8;
	par->file->opts->progress(par->file->opts->progress_arg, par->chunks_done, total);
	pthread_mutex_unlock(&par->mu);
}

/* Process pi's state, empty but for the unknown class (index 0, as the
 * file's), sharing the file's processes, streams and bounds. pos: its
 * place in the serial order (the first two load debug info ahead, as the
 * serial replay's first two do). */
static void proc_init(struct an_par *par, uint32_t pi, size_t pos)
{
	struct par_proc *pp = &par->procs[pi];
	struct an_state *f = par->file, *st = &pp->st;
	struct an_result *r = &pp->res;
	*r = *f->res;
	r->total = (struct an_counts){ 0 };
	r->accesses_outside_roi = r->refs_physical = r->refs_thp = r->skipped_accesses = 0;
	r->allocations = r->frees = 0;
	r->have_roi = r->damaged = 0;
	r->warnings = NULL;
	r->nwarnings = 0;
	memset(st, 0, sizeof(*st));
	pp->opts = par->opts;
	if (f->opts->patterns) {
		pp->pats = an_patterns_new();
		pp->opts.patterns = pp->pats;
		st->oom = !pp->pats;
	}
	st->opts = &pp->opts;
	st->res = r;
	st->path = f->path;
	st->par = par;
	st->sym_mu = &par->sym_mu;
	st->procs = f->procs; /* (shared: nothing adds a process during the replay) */
	st->streams = f->streams;
	/* (for the model and NUMA placement by recorded frames, shared: each
	 * process translates its own pid's pages, model_apart, an_par_wanted) */
	st->phys = f->model || an_numa_frames(f) ? f->phys : NULL;
	st->sym_loads = pos < 2 ? 0 : 2;
	st->skip_max = f->skip_max;
	st->nchunks = f->nchunks;
	st->has_forks = f->has_forks;
	st->file_bytes = f->file_bytes;
	st->held_max = f->held_max;
	st->objects_max = f->objects_max;
	st->frames_max = f->frames_max;
	st->threads_max = f->threads_max;
	st->ips_max = f->ips_max;
	st->pairs_max = f->pairs_max;
	const struct an_class *u = &f->classes.v[f->unknown_cls];
	st->unknown_cls = an_class_by_label(st, u->kind, u->label);
	/* NUMA placement of its own, on the file's topology: a process's
	 * pages are its own in the serial replay too (keyed by process) */
	if (an_numa_init_like(st, f))
		st->oom = 1;
	r->mem_total = (struct an_mem){ 0 };
	r->mem_l1_estimated = 0;
}

static void proc_fini(struct an_state *st)
{
	an_registry_fini(st);
	for (size_t i = 0; i < st->warnings.n; i++)
		free(st->warnings.v[i]);
	mp_vec_free(&st->warnings);
	mp_hashmap_fini(&st->pairs);
	trace_reader_close(st->reader);
	st->reader = NULL;
	an_model_fini(st);
	an_numa_fini(st);
}

/* Replays process pi into its state, on the calling thread. */
static int proc_run(struct an_par *par, uint32_t pi)
{
	struct an_state *st = &par->procs[pi].st;
	/* (over the file's mapping: a reader opened from the path for each of
	 * a shell's thousands of processes would run out of descriptors) */
	st->reader = trace_reader_open_same(par->file->reader);
	if (!st->reader)
		return errno ? -errno : -EIO;
	/* a cold machine of its own, as the serial replay gives each process
	 * (an_model_proc_begin), for as long as its replay runs: its figures
	 * are in its rows and page rows after it */
	int err = par->file->model ? an_model_init(st) : 0;
	if (!err)
		err = an_replay_proc(st, pi);
	an_model_drop_machine(st); /* (its page rows wait for the fold) */
	trace_reader_close(st->reader);
	st->reader = NULL;
	if (!err && par->procs[pi].pats)
		err = an_patterns_error(par->procs[pi].pats);
	return err ? err : st->oom ? -ENOMEM : 0;
}

/* What replaying process pi takes, about: its chunks (a thread's are
 * each a buffer's worth, but the last). */
static uint64_t proc_weight(const struct an_state *st, uint32_t pi)
{
	const struct an_proc *p = &st->procs.v[pi];
	uint64_t w = 0;
	for (size_t i = 0; i < p->streams.n; i++)
		w += st->streams.v[p->streams.v[i]].chunks.n;
	return w;
}

/* A thread of the pool: takes the longest process that may start (the
 * first in the serial order of equals: the order of the fold does not
 * depend on it), until none is left. */
static void *worker(void *arg)
{
	struct an_par *par = arg;
	pthread_mutex_lock(&par->mu);
	while (par->left) {
		size_t k = par->n;
		for (size_t i = 0; i < par->n; i++) {
			const struct par_proc *pp = &par->procs[par->order[i]];
			if (!pp->claimed && pp->ready && (k == par->n || pp->weight > par->procs[par->order[k]].weight))
				k = i;
		}
		if (k == par->n) {
			pthread_cond_wait(&par->cv, &par->mu);
			continue;
		}
		const uint32_t pi = par->order[k];
		par->procs[pi].claimed = 1;
		par->left--;
		pthread_mutex_unlock(&par->mu);
		int err = proc_run(par, pi);
		pthread_mutex_lock(&par->mu);
		if (err && !par->err)
			par->err = err;
		/* (its children's maps are made from its state, which changes
		 * no more) */
		const struct an_proc *p = &par->file->procs.v[pi];
		for (uint32_t i = 0; i < p->nkids; i++)
			par->procs[p->kids[i]].ready = 1;
		pthread_cond_broadcast(&par->cv);
	}
	pthread_mutex_unlock(&par->mu);
	return NULL;
}

/* --- the fold ----------------------------------------------------------- */

static void fold_threads(struct an_state *f, const struct an_state *st, uint32_t *tmap)
{
	for (size_t i = 0; i < st->threads.n; i++) {
		const struct an_thread *t = &st->threads.v[i];
		tmap[i] = an_thread_get(f, t->pid, t->tid);
		if (f->oom)
			return;
		struct an_thread *d = &f->threads.v[tmap[i]];
		an_counts_add(&d->c, &t->c);
		an_mem_add(&d->mem, &t->mem);
		d->allocations += t->allocations;
		d->recorded += t->recorded;
		d->skipped += t->skipped;
		if (t->name[0]) /* (an exec'd image's thread is its pid's: the later name) */
			memcpy(d->name, t->name, sizeof(d->name));
	}
}

static void fold_classes(struct an_state *f, const struct an_state *st, const uint32_t *smap, const uint32_t *tmap,
			 uint32_t *cmap)
{
	for (size_t i = 0; i < st->classes.n; i++) {
		const struct an_class *c = &st->classes.v[i];
		if (c->label) {
			cmap[i] = an_class_by_label(f, c->kind, c->label);
		} else {
			const uint32_t stk = smap[st->class_stack.v[i]];
			cmap[i] = stk == UINT32_MAX ? f->unknown_cls : an_class_by_stack(f, c->kind, stk, c->file);
		}
		if (f->oom)
			return;
		struct an_class *d = &f->classes.v[cmap[i]];
		an_counts_add(&d->c, &c->c);
		an_mem_add(&d->mem, &c->mem);
		d->fast_l1 += c->fast_l1; /* (added to mem by an_model_finish) */
		d->fast_unk += c->fast_unk;
		d->instances += c->instances;
		d->bytes_allocated += c->bytes_allocated;
		if (c->max_size > d->max_size)
			d->max_size = c->max_size;
		d->carved |= c->carved;
		for (size_t k = 0; k < c->nthreads; k++)
			an_class_add_thread(d, tmap[c->threads[k]]);
		if (d->first_alloc_thread < 0 && c->first_alloc_thread >= 0)
			d->first_alloc_thread = (int)tmap[c->first_alloc_thread];
	}
}

/* Code addresses are each process's own: made in the file's registry in
 * the order the process made them, with its tallies and its pending
 * wrapper-judgement pair (an_replay.c, ip_pair); then its spilled pairs. */
static void fold_ips(struct an_state *f, const struct an_state *st, const uint32_t *tmap, const uint32_t *cmap,
		     uint32_t *imap)
{
	for (size_t i = 0; i < st->ips.n; i++) {
		const struct an_ip *ip = &st->ips.v[i];
		imap[i] = an_ip_get(f, ip->proc, ip->thread == UINT32_MAX ? UINT32_MAX : tmap[ip->thread], ip->ip);
		if (imap[i] == UINT32_MAX)
			return;
		struct an_ip *d = &f->ips.v[imap[i]];
		an_counts_add(&d->c, &ip->c);
		an_mem_add(&d->mem, &ip->mem);
		d->fast_l1 += ip->fast_l1; /* (added to mem by an_model_finish) */
		d->fast_unk += ip->fast_unk;
		if (ip->pair_n) {
			d->pair_cls = cmap[ip->pair_cls - 1] + 1;
			d->pair_n = ip->pair_n;
		}
	}
	const struct mp_hashmap *m = &st->pairs;
	for (size_t i = 0; i < m->cap; i++) {
		const uint64_t key = m->keys[i];
		if (!key)
			continue;
		const uint64_t k = (uint64_t)cmap[key >> 32] << 32 | (imap[(uint32_t)key - 1] + 1);
		uint64_t *v = mp_hashmap_get(&f->pairs, k);
		if (v)
			*v += m->vals[i];
		else if (mp_hashmap_put(&f->pairs, k, m->vals[i]))
			f->oom = 1;
	}
}

/* Folds process pp's state into the file's f. 0 or -ENOMEM. */
static int fold(struct an_state *f, struct par_proc *pp)
{
	struct an_state *st = &pp->st;
	int err = -ENOMEM;
	uint32_t *smap = calloc(st->stacks.n + 1, sizeof(*smap)), *tmap = calloc(st->threads.n + 1, sizeof(*tmap));
	uint32_t *cmap = calloc(st->classes.n + 1, sizeof(*cmap)), *imap = calloc(st->ips.n + 1, sizeof(*imap));
	if (!smap || !tmap || !cmap || !imap)
		goto out;
	for (size_t i = 0; i < st->stacks.n; i++)
		smap[i] = an_stack_intern(f, st->stacks.v[i].proc, st->stacks.v[i].frames, st->stacks.v[i].n);
	fold_threads(f, st, tmap);
	if (!f->oom)
		fold_classes(f, st, smap, tmap, cmap);
	if (!f->oom)
		fold_ips(f, st, tmap, cmap, imap);
	if (!f->oom &&
	    (an_model_rows_fold(f, st, cmap) || an_model_rules_fold(f, st, cmap) || an_numa_fold(f, st, cmap, tmap)))
		f->oom = 1;
	an_model_checks_fold(f, st);
	/* (serial_needed made sure no summary is in two processes) */
	if (!f->oom && pp->pats && an_patterns_adopt(f->opts->patterns, pp->pats, cmap, tmap))
		f->oom = 1;
	const struct an_result *r = st->res;
	an_counts_add(&f->res->total, &r->total);
	an_mem_add(&f->res->mem_total, &r->mem_total);
	f->res->mem_l1_estimated += r->mem_l1_estimated;
	f->res->refs_physical += r->refs_physical;
	f->res->refs_thp += r->refs_thp;
	f->res->accesses_outside_roi += r->accesses_outside_roi;
	f->res->skipped_accesses += r->skipped_accesses;
	f->res->allocations += r->allocations;
	f->res->frees += r->frees;
	f->res->have_roi |= r->have_roi;
	for (size_t i = 0; i < st->warnings.n; i++)
		an_warn(f, "%s", st->warnings.v[i]);
	err = f->oom ? -ENOMEM : 0;
out:
	free(smap);
	free(tmap);
	free(cmap);
	free(imap);
	return err;
}

/* 1 if two processes' replays made a row for one thread: an exec'd
 * image's, which is its pid's. The access pattern of one of its objects
 * is then one summary that runs on from one image into the next, which
 * summaries made apart cannot be made into. */
static int threads_shared(const struct an_par *par)
{
	struct mp_hashmap seen;
	mp_hashmap_init(&seen);
	int shared = 0;
	for (size_t i = 0; i < par->n && !shared; i++) {
		const struct an_state *st = &par->procs[i].st;
		for (size_t k = 0; k < st->threads.n && !shared; k++) {
			const uint64_t key = ((uint64_t)st->threads.v[k].pid << 32 | st->threads.v[k].tid) | 1ull << 63;
			const uint64_t *v = mp_hashmap_get(&seen, key);
			if (v && *v != i)
				shared = 1;
			else if (!v && mp_hashmap_put(&seen, key, i))
				shared = 1; /* (out of memory: the serial replay says) */
		}
	}
	mp_hashmap_fini(&seen);
	return shared;
}

/* 1 if a process's replay made a thread none of its streams is (NUMA
 * placement's affinity call naming a thread that never ran): the serial
 * replay numbers it among the file's threads, which an_replay_places did
 * not, and --thread-map spread's cores follow the numbers. */
static int threads_unplaced(const struct an_par *par)
{
	int unplaced = 0;
	for (size_t i = 0; i < par->n && !unplaced; i++) {
		const struct an_state *st = &par->procs[i].st;
		const struct an_proc *p = &st->procs.v[i];
		struct mp_hashmap seen;
		mp_hashmap_init(&seen);
		size_t n = 0;
		for (size_t k = 0; k < p->streams.n && !unplaced; k++) {
			const uint64_t key = (st->streams.v[p->streams.v[k]].tid & MP_TID_MASK) | 1ull << 63;
			if (!mp_hashmap_get(&seen, key)) {
				n++;
				unplaced = mp_hashmap_put(&seen, key, 1) != 0; /* (out of memory: serially) */
			}
		}
		mp_hashmap_fini(&seen);
		unplaced |= st->threads.n != n;
	}
	return unplaced;
}

/* 1 when the serial replay might have found what the processes' replays
 * did not: damage, or a bound passed by all of them together (each sum is
 * at least the serial replay's count: it keeps one of what several
 * processes share). The objects live at once are each process's alone in
 * the serial replay too (a child's map is made as its replay starts, a
 * process's goes as it ends): a state that passed their bound said so. */
static int serial_needed(const struct an_par *par)
{
	const struct an_state *f = par->file;
	if ((f->opts->patterns || f->numa) && threads_shared(par))
		return 1;
	if (f->numa && f->model && f->opts->thread_map == AN_MAP_SPREAD && threads_unplaced(par))
		return 1;
	uint64_t frames = 0, threads = 0, ips = 0, pairs = 0, rows = 0, placed = 0;
	for (size_t i = 0; i < par->n; i++) {
		const struct an_state *st = &par->procs[i].st;
		if (st->res->damaged || st->held_warned || st->objects_warned || st->frames_warned ||
		    st->threads_warned || st->ips_warned)
			return 1;
		frames += st->frames;
		threads += st->threads.n;
		ips += st->ips.n;
		pairs += st->pairs.n;
		rows += an_model_rows(st);
		placed += an_numa_pages_held(st);
	}
	return frames > f->frames_max || threads > f->threads_max || ips > f->ips_max ||
	       pairs > f->pairs_max || !an_model_rows_fit(f, rows) || !an_numa_pages_fit(f, placed);
}

int an_par_replay(struct an_state *st, const uint32_t *order, const uint32_t *parent, size_t n)
{
	struct an_par par = { .file = st, .opts = *st->opts, .order = order, .parent = parent, .n = n, .left = n };
	if (st->opts->progress) {
		par.opts.progress = par_progress;
		par.opts.progress_arg = &par;
	}
	par.procs = calloc(n, sizeof(*par.procs));
	if (!par.procs)
		return -ENOMEM;
	pthread_mutex_init(&par.mu, NULL);
	pthread_mutex_init(&par.sym_mu, NULL);
	pthread_cond_init(&par.cv, NULL);
	/* (threads spread over the model's cores by their place in the file) */
	int err = st->model && st->opts->thread_map == AN_MAP_SPREAD ? an_replay_places(st, order, n) : 0;
	for (size_t k = 0; k < n; k++) {
		proc_init(&par, order[k], k);
		par.procs[order[k]].ready = parent[order[k]] == UINT32_MAX;
		par.procs[order[k]].weight = proc_weight(st, order[k]);
		if (par.procs[order[k]].st.oom)
			err = -ENOMEM;
	}
	const size_t nthreads = (st->opts->jobs < n ? st->opts->jobs : n) - 1;
	pthread_t *tids = calloc(nthreads + 1, sizeof(*tids));
	size_t started = 0;
	if (!tids)
		err = -ENOMEM;
	/* (a thread that cannot be made leaves its share to the others) */
	while (!err && started < nthreads && pthread_create(&tids[started], NULL, worker, &par) == 0)
		started++;
	if (!err)
		worker(&par);
	for (size_t i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	free(tids);
	if (!err)
		err = par.err;
	if (!err && serial_needed(&par))
		err = AN_REPLAY_AGAIN;
	for (size_t k = 0; k < n && !err; k++)
		err = fold(st, &par.procs[order[k]]);
	for (size_t i = 0; i < n; i++) {
		proc_fini(&par.procs[i].st);
		an_patterns_free(par.procs[i].pats);
	}
	free(par.procs);
	pthread_cond_destroy(&par.cv);
	pthread_mutex_destroy(&par.sym_mu);
	pthread_mutex_destroy(&par.mu);
	return err;
}
