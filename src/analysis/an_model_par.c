// SPDX-License-Identifier: MIT
/*
 * The model on several threads (model/model_par.h), fed by the replay: an
 * exact run's references are submitted in the replay's order, and their
 * outcomes counted later, in the same order, into the same rows as
 * model_access counts them (an_model.c). The counts are sums, so where and
 * when they are added changes nothing; what a count reads from the stream
 * (its thread, object, code address, whether it is counted) is kept with
 * the submission. A one-line access that repeats the stream's last one,
 * nothing between, goes with it as a repeat (mp_model_par_repeat): what
 * the serial replay's short-cut (an_model_repeat) takes without the model.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#endif
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_model_int.h"

/* What counting a submission's outcome needs (par_counted): what the
 * serial path reads from the stream then, kept as it was at submission. */
/* PEND_REPS: repeats of the submission before it (its PEND_LINES entry
 * and any PEND_REPS between), from another function: counted with that
 * one's row, as the serial replay counts a store after a load (a
 * read-modify-write) */
enum { PEND_LINES, PEND_RANGE_END, PEND_REPS };
struct anm_pend {
	uint64_t a; /* the first line's address */
	uint32_t thread, proc, cls, fn;
	uint32_t reps; /* one-line accesses repeating it (struct anm_run) */
	uint8_t kind, counted, batch, store_fill, shift, n;
};
#define PEND_CAP (1u << 12)
#define PEND_AHEAD 8 /* submissions ahead of the one counted whose page rows are hinted */

/* Whether this run's references go to the model on several threads
 * (an_opts.model_threads): an exact run whose outcomes nobody reads one
 * at a time (no hook, no NUMA placement, no samples), replaying its
 * processes one after another (a process replayed in a state of its own
 * has a thread of its own). */
void anm_par_decide(struct an_state *st, struct an_model *am)
{
	am->par_decided = 1;
	const struct an_opts *o = st->opts;
	/* (the default: two where the process may run on two CPUs or more
	 * (its affinity: a container's cpuset, taskset); a second thread
	 * costs nothing where the model stays on the replay's) */
	cpu_set_t cs;
	const int cpus = sched_getaffinity(0, sizeof(cs), &cs) == 0 ? CPU_COUNT(&cs) : 1;
	const unsigned threads = o->model_threads ? o->model_threads : cpus > 1 ? 2 : 1;
	if (threads < 2 || st->par || st->numa || st->smp || st->parts_on || am->sample_sets > 1 ||
	    am->first_on || am->seen || am->nchecks || o->on_access || o->on_dram || o->on_event)
		return;
	am->pend = malloc(PEND_CAP * sizeof(*am->pend));
	if (!am->pend)
		return; /* (the serial model gives the same figures) */
	/* (the replay's thread is one of them) */
	const unsigned workers = threads <= MP_MODEL_PAR_MAX ? threads - 1 : MP_MODEL_PAR_MAX;
	am->par = workers == 1 ? mp_model_par_beside(o->machine) : mp_model_par_new(o->machine, workers);
	if (!am->par) {
		free(am->pend);
		am->pend = NULL;
		return;
	}
	if (workers == 1) {
		/* the model stays here until a window's references miss
		 * (anm_par_window) */
		am->beside = am->inline_on = 1;
		am->window = o->model_window ? o->model_window : ANM_PAR_WINDOW;
		return;
	}
	am->par_fresh = *mp_model_par_seq(am->par);
	/* (the serial model made no reference yet: no repeat of its stands) */
	am->par_seq = *mp_model_seq(am->m) + 1;
	st->model_rep.seq = &am->par_seq;
	st->model_rep.par = 1;
}

static void par_fast_flush(struct an_state *st, struct an_model *am)
{
	if (!am->fast_n)
		return;
	anm_mem_add_fast(&st->threads.v[am->fast_thread].mem, am, am->fast_n, 0);
	anm_mem_add_fast(&st->classes.v[am->fast_cls].mem, am, am->fast_n, 0);
	anm_mem_add_fast(&st->res->mem_total, am, am->fast_n, 0);
	am->fast_n = 0;
}

/* an_model_count_fast's, for an outcome counted after its stream moved on. */
static inline void par_fast(struct an_state *st, struct an_model *am, const struct anm_pend *p, uint64_t n)
{
	if (am->fast_n && (p->thread != am->fast_thread || p->cls != am->fast_cls))
		par_fast_flush(st, am);
	am->fast_thread = p->thread;
	am->fast_cls = p->cls;
	am->fast_n += n;
	if (p->fn)
		st->ips.v[p->fn - 1].fast_l1 += n;
}

/* The rows mem_count_all counts in: object, thread, total, code address. */
static int par_rows(struct an_state *st, const struct anm_pend *p, struct an_mem *rows[4])
{
	int n = 0;
	rows[n++] = &st->classes.v[p->cls].mem;
	rows[n++] = &st->threads.v[p->thread].mem;
	rows[n++] = &st->res->mem_total;
	if (p->fn)
		rows[n++] = &st->ips.v[p->fn - 1].mem;
	return n;
}

/* model_access's counting of a submission's lines, given their outcome
 * (line_missed's, without the hooks, NUMA and footprint a parallel run
 * has none of). */
static void par_counted(struct an_state *st, struct an_model *am, const struct anm_pend *p,
			const struct mp_model_out *first, const uint8_t *lv)
{
	uint64_t a = p->a;
	for (unsigned i = 0; i < p->n; i++, a += am->line) {
		const struct mp_model_out o =
			i ? (struct mp_model_out){ .level = lv[i], .tlb = MP_TLB_L1_HIT, .latency = am->lat[lv[i]] }
			  : *first;
		if (o.level == MP_LVL_L1 && o.tlb == MP_TLB_L1_HIT) {
			if (p->counted)
				par_fast(st, am, p, 1);
			continue;
		}
		const int dram = o.level == MP_LVL_LOCAL_DRAM || o.level == MP_LVL_REMOTE_DRAM;
		am->fills += (uint64_t)dram;
		am->walks += o.tlb == MP_TLB_WALK;
		am->win_miss++;
		if (!p->counted)
			continue;
		if (p->batch) {
			anm_mem_count(&am->par_range, &o);
		} else {
			struct an_mem *rows[4];
			int n = par_rows(st, p, rows);
			for (int r = 0; r < n; r++) {
				anm_mem_count(rows[r], &o);
				rows[r]->store_fills += dram && p->store_fill;
			}
		}
		if (o.tlb != MP_TLB_L1_HIT && st->opts->page_rows)
			anm_page_count(st, am, p->proc, 0, a, p->shift, p->cls, &o);
	}
}

/* The repeats of a one-line access (struct anm_run): L1 hits (replv
 * NULL), or each as the model made it (an L1 miss: its line pushed out
 * of L1 by its own fill, through an inclusive LLC). */
static void par_repeats(struct an_state *st, struct an_model *am, const struct anm_pend *p, unsigned nrep,
			const uint8_t *replv)
{
	if (!replv) {
		if (p->counted)
			par_fast(st, am, p, nrep);
		return;
	}
	for (unsigned i = 0; i < nrep; i++) {
		const unsigned lv = replv[i] & 0x7f;
		if (lv == MP_LVL_L1) {
			if (p->counted)
				par_fast(st, am, p, 1);
			continue;
		}
		const struct mp_model_out o = { .level = (uint8_t)lv, .tlb = MP_TLB_L1_HIT, .latency = am->lat[lv] };
		const int dram = lv == MP_LVL_LOCAL_DRAM || lv == MP_LVL_REMOTE_DRAM;
		am->fills += (uint64_t)dram;
		am->win_miss++;
		if (!p->counted)
			continue;
		struct an_mem *rows[4];
		int n = par_rows(st, p, rows);
		for (int r = 0; r < n; r++) {
			anm_mem_count(rows[r], &o);
			rows[r]->store_fills += dram && (replv[i] & 0x80);
		}
	}
}

/* Sends the repeats gathered (struct anm_run) on; the run ends if end is
 * set or the model takes no more. */
static void par_run_send(struct an_model *am, int end)
{
	struct anm_run *run = &am->run;
	/* (the run's submission is never taken before its repeats are sent:
	 * par_take sends them first) */
	if (run->n && mp_model_par_repeat(am->par, run->writes, run->n, run->owner) != 1)
		end = 1;
	run->n = 0;
	run->writes = 0;
	if (end && run->ok) {
		run->ok = 0;
		am->par_seq++; /* (the stream's next one is no repeat) */
	}
}

int anm_par_repeat(struct an_state *st, struct an_stream *s, int write, int counted)
{
	struct an_model *am = st->model;
	struct anm_run *run = &am->run;
	am->win_refs++;
	/* (s->rep_seq equal to par_seq: the run is this stream's, the last submission) */
	if (!run->ok || counted != run->counted)
		return 0;
	if (s->last_fn != run->fn) {
		/* from another function: its repeats apart, under its owner */
		if (am->pend_tail - am->pend_head + 2 >= PEND_CAP)
			return 0;
		par_run_send(am, 0);
		if (!run->ok)
			return 0;
		const struct anm_pend *last = &am->pend[(am->pend_tail - 1) % PEND_CAP];
		am->pend[am->pend_tail++ % PEND_CAP] = (struct anm_pend){ .kind = PEND_REPS,
									  .thread = s->thread,
									  .proc = s->proc,
									  .cls = last->cls,
									  .fn = s->last_fn,
									  .counted = (uint8_t)counted };
		run->fn = s->last_fn;
		run->owner = anm_owner_of(st, am, s, last->cls);
	}
	run->writes |= (uint64_t)(write != 0) << run->n;
	am->pend[(am->pend_tail - 1) % PEND_CAP].reps++;
	if (counted) {
		s->refs_physical += s->rep_phys;
		s->refs_thp += s->rep_thp;
	}
	if (++run->n == 64)
		par_run_send(am, 0);
	return 1;
}

/* Counts the submissions' outcomes in order: those ready (more 0), at
 * least one more (1), or all (2). */
static void par_take(struct an_state *st, struct an_model *am, int more)
{
	struct mp_model_out o;
	const uint8_t *lv, *replv;
	unsigned nrep;
	int took = 0;
	/* (a submission taken takes no more repeats) */
	par_run_send(am, 1);
	if (am->pend_head == am->pend_tail && more)
		mp_model_par_result(am->par, 1, &o, &lv, &nrep, &replv); /* (broadcasts alone: their turn) */
	while (am->pend_head != am->pend_tail) {
		const struct anm_pend *p = &am->pend[am->pend_head % PEND_CAP];
		if (am->nrows >= AN_AHEAD_PAGES && am->pend_tail - am->pend_head > PEND_AHEAD) {
			/* (the page's row, which a TLB miss counts into: the
			 * lookahead hinted it long before the outcome came) */
			const struct anm_pend *q = &am->pend[(am->pend_head + PEND_AHEAD) % PEND_CAP];
			__builtin_prefetch(&am->rows[row_home(q->proc, q->a >> q->shift, q->shift, 0, am->rows_cap)]);
		}
		if (p->kind == PEND_RANGE_END) {
			if (am->par_range.refs) {
				struct an_mem *rows[4];
				int n = par_rows(st, p, rows);
				for (int r = 0; r < n; r++)
					an_mem_add(rows[r], &am->par_range);
				memset(&am->par_range, 0, sizeof(am->par_range));
			}
		} else if (p->kind == PEND_REPS) {
			/* (counted with the submission before it, taken there) */
		} else {
			if (!mp_model_par_result(am->par, more == 2 || (more && !took), &o, &lv, &nrep, &replv))
				return;
			par_counted(st, am, p, &o, lv);
			/* its repeats: its own, then those of the PEND_REPS after it */
			unsigned done = p->reps < nrep ? p->reps : nrep;
			if (done)
				par_repeats(st, am, p, done, replv);
			while (done < nrep && am->pend_head + 1 != am->pend_tail) {
				const struct anm_pend *q = &am->pend[(am->pend_head + 1) % PEND_CAP];
				if (q->kind != PEND_REPS)
					break;
				const unsigned k = q->reps < nrep - done ? q->reps : nrep - done;
				par_repeats(st, am, q, k, replv ? replv + done : NULL);
				done += k;
				am->pend_head++;
			}
			took = 1;
		}
		am->pend_head++;
	}
}

/* Room for a submission and its context. */
static inline void par_room(struct an_state *st, struct an_model *am)
{
	while (am->pend_tail - am->pend_head + 2 >= PEND_CAP || mp_model_par_full(am->par))
		par_take(st, am, 1);
}

/* Every outcome counted, and the DRAM writes the workers counted by owner. */
static void par_add_writes(void *arg, uint32_t owner, uint64_t n)
{
	struct an_state *st = arg;
	const struct an_model *am = st->model;
	if (owner >= am->owners.n)
		return;
	const struct owner *ow = &am->owners.v[owner];
	st->threads.v[ow->thread].mem.dram_writes += n;
	if (ow->fn)
		st->ips.v[ow->fn - 1].mem.dram_writes += n;
	st->classes.v[ow->row].mem.dram_writes += n;
	st->res->mem_total.dram_writes += n;
}

void anm_par_finish(struct an_state *st, struct an_model *am)
{
	par_take(st, am, 2);
	par_fast_flush(st, am);
	if (mp_model_par_writebacks(am->par, par_add_writes, st))
		st->oom = 1;
}

/* model_access on the model's threads: the same references, submitted,
 * their outcomes counted later by par_take. */
void anm_par_access(struct an_state *st, struct an_stream *s, uint32_t cls, const struct trace_rec *r, int counted,
		    struct mp_outcome *sum)
{
	struct an_model *am = st->model;
	unsigned core = stream_core(st, am, s);
	unsigned cshift =
		cls < am->cls_shift.n && am->cls_shift.v[cls] ? am->cls_shift.v[cls] : anm_class_shift(st, am, cls);
	unsigned shift = cshift == AS_MAPPED ? 12 : cshift;
	const uint64_t size = r->size ? r->size : 1, line = am->line;
	uint64_t a = r->addr & ~(line - 1);
	const uint64_t last = r->addr + size - 1 < r->addr ? UINT64_MAX : r->addr + size - 1;
	const uint64_t nlines = ((last - a) >> am->line_shift) + 1;
	anm_outcome_init(sum, shift); /* (nobody reads it: no hook) */
	struct anm_run *run = &am->run;
	par_run_send(am, 1);
	const uint32_t owner = anm_owner_of(st, am, s, cls);
	const int batch = counted && nlines > 1;
	struct anm_pend p = { .thread = s->thread,
			      .proc = s->proc,
			      .cls = cls,
			      .fn = s->last_fn,
			      .counted = (uint8_t)counted,
			      .batch = (uint8_t)batch,
			      .store_fill = r->write && !r->range };
	for (uint64_t k = 0; k < nlines;) {
		uint64_t paddr = 0;
		if (st->phys)
			paddr = anm_phys_of(st, s, a, cshift, &shift);
		uint64_t n = 1;
		if (nlines > 1) {
			n = (((a | 4095) - a) >> am->line_shift) + 1;
			n = n < nlines - k ? n : nlines - k;
			n = n < MP_MODEL_LINES_MAX ? n : MP_MODEL_LINES_MAX;
		}
		if (nlines - k > n + 64 && (am->rows_cap || st->phys))
			anm_range_prefetch(st, am, s, a);
		par_room(st, am);
		const unsigned tlb =
			mp_model_par_access(am->par, core, s->proc, a, paddr, (unsigned)n, r->write, shift, owner, counted);
		/* (the log needs no outcome: what model_access logs, where it
		 * would; a repeat it answers without the model, sent here, is
		 * the log's last entry again, which the log drops) */
		if (am->tlog)
			anm_tlog_put(st, am, s, cls, core, a, shift, counted);
		if (tlb != MP_TLB_L1_HIT && (st->res->phys_pages >= AN_AHEAD_PAGES || am->nrows >= AN_AHEAD_PAGES)) {
			/* (line_missed's arming of the lookahead, for the translations' slots) */
			const uint64_t pg = a >> shift;
			if (pg - s->miss_page + 1 > 2)
				s->ahead_on = AN_AHEAD_KEEP;
			s->miss_page = pg;
		}
		if (st->phys && counted) {
			s->refs_physical += paddr ? n : 0;
			s->refs_thp += paddr && shift == 21 && cshift == AS_MAPPED ? n : 0;
		}
		p.kind = PEND_LINES;
		p.a = a;
		p.shift = (uint8_t)shift;
		p.n = (uint8_t)n;
		am->pend[am->pend_tail++ % PEND_CAP] = p;
		am->par_seq++;
		if (nlines == 1 && !r->range) {
			/* (what the stream's repeats are checked against: an_model_repeat) */
			*run = (struct anm_run){ .ok = 1, .fn = s->last_fn, .owner = owner, .counted = counted };
			s->rep_a = a;
			s->rep_cls = cls;
			s->rep_fn = s->last_fn;
			s->rep_core = core;
			s->rep_again = AN_AGAIN_THREADS;
			s->rep_seq = am->par_seq;
			s->rep_shift = (uint8_t)shift;
			s->rep_phys = paddr != 0;
			s->rep_thp = paddr && shift == 21 && cshift == AS_MAPPED;
		}
		k += n;
		a += n * line;
	}
	if (batch) {
		par_room(st, am);
		p.kind = PEND_RANGE_END;
		am->pend[am->pend_tail++ % PEND_CAP] = p;
	}
	if (((am->pend_tail - am->pend_head) & 255) == 0)
		par_take(st, am, 0);
}

void anm_par_clean(struct an_state *st, struct an_model *am, int counted)
{
	par_run_send(am, 1);
	par_room(st, am);
	mp_model_par_clean(am->par, counted);
}

int anm_par_renew(struct an_state *st, struct an_model *am)
{
	if (*mp_model_par_seq(am->par) == am->par_fresh)
		return 0;
	par_take(st, am, 2);
	int e = mp_model_par_renew(am->par);
	am->par_fresh = *mp_model_par_seq(am->par);
	return e;
}

/* Repeats as the model here or the worker answered them: none stands. */
static void forget_repeats(struct an_state *st, struct an_model *am)
{
	for (size_t i = 0; i < st->streams.n; i++)
		st->streams.v[i].rep_again = 0;
	am->run.ok = 0;
}

void anm_par_inline(struct an_state *st, struct an_model *am)
{
	if (am->inline_on)
		return;
	par_take(st, am, 2);
	par_fast_flush(st, am);
	if (mp_model_par_writebacks(am->par, par_add_writes, st))
		st->oom = 1;
	mp_model_par_reclaim(am->par);
	anm_own_writebacks(am);
	am->inline_on = 1;
	st->model_rep.seq = mp_model_seq(am->m);
	st->model_rep.par = 0;
	forget_repeats(st, am);
}

/* A window's references that miss L1 or the DTLB: from a quarter of them
 * (counted here: the replay's repeats of a line never come here), the
 * worker pays, the hand-over being a small part of each miss's cost;
 * below a sixteenth (counted there: every access, repeats too, costs
 * the hand-over), a loop over data in L1 is cheaper here, where repeats
 * the model says change nothing, and a loop's periods, are counted
 * without it. */
void anm_par_window(struct an_state *st, struct an_model *am)
{
	const uint64_t refs = am->win_refs, miss = am->win_miss;
	am->win_refs = am->win_miss = 0;
	if (am->inline_on && miss * 4 >= refs) {
		if (mp_model_par_lend(am->par, am->m))
			return; /* (no thread: the model stays here, as on one thread) */
		am->inline_on = 0;
		/* (no stream's repeat stands: any value) */
		am->par_seq = *mp_model_seq(am->m) + 1;
		st->model_rep.seq = &am->par_seq;
		st->model_rep.par = 1;
		forget_repeats(st, am);
	} else if (!am->inline_on && miss * 16 < refs) {
		anm_par_inline(st, am);
	}
}
