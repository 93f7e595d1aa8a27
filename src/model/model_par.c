// SPDX-License-Identifier: MIT
/*
 * The exact model on several threads (model_par.h). The caller's thread
 * runs the front (a model whose TLBs alone are used) and reads outcomes;
 * each worker owns a model of which it uses the sets of its classes (and
 * keeps those alone where it can: worker_model).
 *
 * Between them, per worker, one ring of line references: the front writes
 * references and publishes its tail, the worker writes each reference's
 * level into a parallel array and publishes how many it has done, and the
 * caller reads levels back in order. A ticket per submission says which
 * workers its lines went to, in order, so outcomes come back in
 * submission order. Tails and counts are published in batches; a thread
 * that finds nothing to do spins (SPIN_NS), then sleeps on its condition
 * variable (the machine may have fewer cores than threads).
 *
 * With one worker there is nothing to split: the worker runs the whole
 * model, TLBs too (a pipeline), and the caller's thread only hands each
 * access over (its ring holds whole references, struct fref; no front).
 * Split, the front's TLB stage and the hand-over of every walk line cost
 * the caller's thread more than the caches it gives away. Beside the
 * caller (mp_model_par_beside) that one worker has no model of its own:
 * it models on the caller's while the caller lends it.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/model_int.h"
#include "model/model_par.h"

enum {
	OP_WRITE = 1,
	OP_COUNTED = 2,
	OP_CLEAN = 4,
	OP_RENEW = 8,
	OP_ACTIVATE = 16,
	OP_STOP = 32,
	OP_RUN = 64, /* repeats of the ring's previous line: key holds the stores' bits, n their number */
	OP_FULL = 128, /* one worker: a whole reference (struct fref) */
};

struct lref {
	uint64_t key;
	uint32_t owner;
	uint16_t core;
	uint8_t op;
	uint8_t n;
};

/* One worker's ring: a reference of n lines as mp_model_access_lines
 * takes it, in the first of n slots (op OP_FULL; the others' op 0), its
 * outcome in `fo` at that slot and its lines' levels in `lv` at theirs;
 * or, as in struct lref, a run of repeats (addr: the stores' bits) or an
 * order. */
struct fref {
	uint64_t addr, paddr;
	uint32_t owner;
	uint16_t core, space;
	uint8_t op, n, shift;
};

#define QCAP (1u << 12) /* line references a worker's ring holds */
#define TCAP (1u << 11) /* submissions waiting for their outcome */
#define WCAP (1u << 14) /* their lines' workers */
#define TICKET_LINES (MODEL_FRONT_KEYS - 1 + MP_MODEL_LINES_MAX)
#define ROOM (TICKET_LINES + 8) /* a ticket, an activation, repeats after (mp_model_par_repeat) and a stop */
#define PUBLISH_EVERY 128 /* references between publications of a tail or a count */
#define HINT_SETS (4u << 20) /* a model's sets from which hints pay (as the serial replay's lookahead) */
#define HINT_KEEP 256 /* references hinted after one that walked or missed L2 */
#define RING_AHEAD 32 /* ring places read or written ahead of time (a line the other thread had) */
#define WAKE_BATCH 1024 /* references a sleeping front lets the worker do first */
/* A thread that finds nothing to do spins this long before it sleeps:
 * a sleeping thread woken through a condition variable was seen to take
 * half a millisecond to run again on a VM (its idle virtual CPU is
 * rescheduled by the host), while the other thread's next batch comes
 * within microseconds. Spinning yields the CPU now and then, should
 * there be fewer CPUs than threads. */
#define SPIN_NS 5000000
#define SPIN_YIELD_EVERY 1024 /* pauses between a look at the clock and a yield */

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* A spin-wait's pause (x86's PAUSE, Arm's YIELD): lets the other
 * hyperthread run and keeps the loop from flooding the memory system. */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
	__asm__ volatile("yield");
#endif
}

/* One more turn of a spin-wait begun with *since = 0: 1 while it goes on
 * (SPIN_NS), 0 once the waiter should sleep. */
static inline int spin_on(uint64_t *since, unsigned *turn)
{
	cpu_relax();
	if (++*turn % SPIN_YIELD_EVERY)
		return 1;
	const uint64_t t = now_ns();
	if (!*since)
		*since = t;
	else if (t - *since > SPIN_NS)
		return 0;
	sched_yield();
	return 1;
}

struct ticket {
	uint32_t wstart; /* first of its workers in p->wid */
	uint32_t latency; /* the translation's */
	uint8_t bcast; /* a reference to every worker, no outcome */
	uint8_t nkeys; /* the first line's: walk lines + 1 */
	uint8_t n; /* lines */
	uint8_t tlb, walk_refs;
	uint8_t runs; /* OP_RUN references after its lines (mp_model_par_repeat) */
};

struct worker {
	/* the rings, which both threads read (set at the start: apart from
	 * the counts each thread writes, lest every count written take the
	 * line from the other thread) */
	_Alignas(64) struct lref *q;
	struct fref *fq; /* (one worker: instead of q) */
	uint8_t *lv;
	struct mp_model_out *fo; /* (one worker: whole references' outcomes) */
	/* the front's side */
	_Alignas(64) uint64_t tail_local; /* written, not yet published */
	uint64_t head; /* levels read */
	uint64_t done_seen; /* the last count read */
	unsigned unpublished;
	/* shared */
	_Alignas(64) _Atomic uint64_t tail;
	_Atomic int sleeping;
	_Alignas(64) _Atomic uint64_t done;
	_Atomic uint64_t front_waits; /* the front sleeps until done reaches this (0: it does not) */
	pthread_mutex_t mu;
	pthread_cond_t work, result;
	/* the worker's own */
	_Alignas(64) struct mp_model_par *p;
	struct mp_model *m;
	uint8_t (*runlv)[64]; /* an OP_RUN's levels where some missed L1, by ring place */
	uint8_t *hinted; /* (one worker: mp_model_prefetch's answers, by ring place) */
	int hint_sets; /* (one worker: its model's sets outgrow the host's caches: worker_hints) */
	uint64_t *wb; /* counted DRAM writes by owner */
	size_t wb_cap;
	int counted; /* the current reference's */
	int failed;
	pthread_t tid;
	int started;
};

struct mp_model_par {
	struct mp_machine mach;
	struct mp_model *front; /* the TLB stage (set classes; NULL with one worker) */
	unsigned nworkers;
	unsigned ncores; /* the machine's */
	int full; /* one worker, which runs the whole model (fq, fo; no front) */
	int beside; /* full, on the caller's model while lent (mp_model_par_beside) */
	uint64_t recent[256]; /* (full: 4 KiB pages submitted lately, + 1: mp_model_par_access's guess) */
	uint64_t class_mask; /* line key & class_mask: the class */
	uint8_t class_worker[256]; /* (class_mask < 256: see mp_model_par_new) */
	struct worker *w;
	struct ticket *t;
	uint64_t t_head, t_tail;
	uint8_t *wid;
	uint64_t wid_head, wid_tail;
	uint8_t level[MP_MODEL_LINES_MAX];
	uint8_t replv[255 * 64]; /* a result's repeats' levels, when one missed */
	uint8_t l1_run[64]; /* MP_LVL_L1 */
	unsigned lat[MP_LVL_COUNT]; /* mp_model_latency's */
	uint64_t seq;
	uint64_t room; /* submissions that fit for sure (room_left), counted down */
};

static inline unsigned worker_of(const struct mp_model_par *p, uint64_t key)
{
	return p->class_worker[key & p->class_mask];
}

/* A worker's model: of the classes dealt to it, which are one residue of
 * the line key modulo the number of workers when that is a power of two
 * (at most the classes): then its L2s and LLCs keep those sets alone, and
 * the workers together hold one model's memory. */
static struct mp_model *worker_model(const struct mp_model_par *p)
{
	struct mp_model *m = mp_model_new(&p->mach);
	const unsigned n = p->nworkers;
	if (m && n > 1 && !(n & (n - 1)) && n <= p->class_mask + 1 && model_keep_residue(m, n)) {
		mp_model_free(m);
		return NULL;
	}
	return m;
}

/* --- the worker --------------------------------------------------------- */

static void on_wb(void *arg, uint32_t owner, uint64_t line, int physical)
{
	(void)line;
	(void)physical;
	struct worker *w = arg;
	if (!w->counted || owner == MP_MODEL_NO_OWNER)
		return;
	if (owner >= w->wb_cap) {
		size_t cap = w->wb_cap ? w->wb_cap : 1024;
		while (cap <= owner)
			cap *= 2;
		uint64_t *n = realloc(w->wb, cap * sizeof(*n));
		if (!n) {
			w->failed = 1;
			return;
		}
		memset(n + w->wb_cap, 0, (cap - w->wb_cap) * sizeof(*n));
		w->wb = n;
		w->wb_cap = cap;
	}
	w->wb[owner]++;
}

static void publish_done(struct worker *w, uint64_t done)
{
	atomic_store(&w->done, done);
	const uint64_t wake = atomic_load(&w->front_waits);
	if (wake && done >= wake) {
		pthread_mutex_lock(&w->mu);
		pthread_cond_signal(&w->result);
		pthread_mutex_unlock(&w->mu);
	}
}

/* The tail once it is past done: spins, then sleeps until the front publishes. */
static uint64_t wait_work(struct worker *w, uint64_t done)
{
	uint64_t tail, since = 0;
	unsigned turn = 0;
	do {
		if ((tail = atomic_load_explicit(&w->tail, memory_order_acquire)) != done)
			return tail;
	} while (spin_on(&since, &turn));
	pthread_mutex_lock(&w->mu);
	atomic_store(&w->sleeping, 1);
	while ((tail = atomic_load(&w->tail)) == done)
		pthread_cond_wait(&w->work, &w->mu);
	atomic_store(&w->sleeping, 0);
	pthread_mutex_unlock(&w->mu);
	return tail;
}

/* An order in a ring (the set-split one or the whole references'):
 * OP_STOP, OP_ACTIVATE, OP_CLEAN or OP_RENEW; 1 if it was OP_STOP. */
static int worker_order(struct worker *w, uint8_t op, unsigned core)
{
	if (op & OP_STOP)
		return 1;
	if (op & OP_ACTIVATE) {
		model_activate(w->m, core);
	} else if (op & OP_CLEAN) {
		mp_model_clean(w->m);
	} else if (op & OP_RENEW) {
		struct mp_model *m = worker_model(w->p);
		if (m) {
			mp_model_free(w->m);
			w->m = m;
			mp_model_set_writeback(w->m, on_wb, w);
		} else {
			/* (the old machine takes the references, and the
			 * caller hears of it at mp_model_par_writebacks) */
			w->failed = 1;
		}
	}
	return 0;
}

/* An OP_RUN's repeats of line key at ring place pos: the count of those
 * that missed L1 in lv, their levels in runlv. */
static void worker_run(struct worker *w, uint64_t pos, unsigned core, uint64_t key, uint64_t writes, unsigned n,
		       uint32_t owner)
{
	uint8_t lv[64];
	unsigned missed = model_repeats(w->m, core, key, writes, n, owner, lv);
	if (missed) {
		if (!w->runlv && !(w->runlv = malloc(QCAP * sizeof(*w->runlv)))) {
			w->failed = 1;
			missed = 0;
		} else {
			memcpy(w->runlv[pos % QCAP], lv, n);
		}
	}
	w->lv[pos % QCAP] = (uint8_t)missed;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint64_t done = 0, tail = 0, key = 0; /* (key: the last line's, which an OP_RUN repeats) */
	unsigned since = 0;
	for (;;) {
		if (done == tail) {
			publish_done(w, done);
			since = 0;
			tail = wait_work(w, done);
		}
		const struct lref *r = &w->q[done % QCAP];
		/* the sets of a reference some ahead: over a large LLC they miss
		 * the host's caches, and one at a time they stall it */
		if (done + 16 < tail) {
			const struct lref *ahead = &w->q[(done + 16) % QCAP];
			if (!(ahead->op & (OP_CLEAN | OP_RENEW | OP_ACTIVATE | OP_STOP | OP_RUN)))
				model_prefetch_key(w->m, ahead->core, ahead->key);
			/* and, the sets there by now, where its L2 victim goes */
			ahead = &w->q[(done + 8) % QCAP];
			if (!(ahead->op & (OP_CLEAN | OP_RENEW | OP_ACTIVATE | OP_STOP | OP_RUN)))
				model_prefetch_victim_key(w->m, ahead->core, ahead->key);
		}
		const uint8_t op = r->op;
		w->counted = (op & OP_COUNTED) != 0;
		if (op & OP_RUN) {
			worker_run(w, done, r->core, key, r->key, r->n, r->owner);
		} else if (op & (OP_STOP | OP_ACTIVATE | OP_CLEAN | OP_RENEW)) {
			if (worker_order(w, op, r->core)) {
				publish_done(w, done + 1);
				return NULL;
			}
		} else {
			key = r->key;
			w->lv[done % QCAP] = (uint8_t)model_line(w->m, r->core, key, op & OP_WRITE, r->owner);
		}
		done++;
		if (++since >= PUBLISH_EVERY) {
			publish_done(w, done);
			since = 0;
		}
	}
}

/* The hints of the references at ring places [*hint1, done + 16) and the
 * second hints of those at [*hint2, done + 8) (hinted already), as the
 * serial replay's lookahead gives them (src/analysis/an_lookahead.c): the
 * sets of each new line some references ahead, later where its L2 victim
 * goes. Not for a line next to the last one hinted: a stream's, whose
 * sets the host's own prefetcher brings. */
static void worker_hints(struct worker *w, uint64_t done, uint64_t tail, uint64_t *hint1, uint64_t *hint2,
			 uint64_t *last_line)
{
	uint64_t h = *hint1 > done ? *hint1 : done;
	for (; h < tail && h < done + 16; h++) {
		const struct fref *a = &w->fq[h % QCAP];
		uint8_t hinted = 0;
		if (a->op & OP_FULL) {
			const uint64_t ln = (a->addr & VA_MASK) >> 6 | (uint64_t)a->space << 48;
			if (ln - *last_line + 2 > 4)
				hinted = (uint8_t)mp_model_prefetch(w->m, a->core, a->space, a->addr, a->paddr);
			*last_line = ln;
		}
		w->hinted[h % QCAP] = hinted;
	}
	*hint1 = h;
	for (h = *hint2 > done ? *hint2 : done; h < *hint1 && h < done + 8; h++) {
		const struct fref *a = &w->fq[h % QCAP];
		if (w->hinted[h % QCAP])
			mp_model_prefetch_victim(w->m, a->core, a->space, a->addr, a->paddr, w->hinted[h % QCAP]);
	}
	*hint2 = h;
}

/* The one worker of a whole model: each reference as the serial model
 * makes it. Hints (worker_hints) where the model's sets outgrow the
 * host's caches, for a while after a reference walked or missed L2 (as
 * long as such misses keep coming: hint_left). */
static void *worker_full_main(void *arg)
{
	struct worker *w = arg;
	uint64_t done = 0, tail = 0, hint1 = 0, hint2 = 0, last_line = 0, key = 0; /* (key: as in worker_main) */
	unsigned since = 0, hint_left = 0;
	for (;;) {
		if (done == tail) {
			publish_done(w, done);
			since = 0;
			tail = wait_work(w, done);
		}
		__builtin_prefetch(&w->fq[(done + RING_AHEAD) % QCAP]);
		if (hint_left)
			worker_hints(w, done, tail, &hint1, &hint2, &last_line);
		const struct fref *r = &w->fq[done % QCAP];
		__builtin_prefetch(&w->fo[(done + RING_AHEAD) % QCAP], 1);
		const uint8_t op = r->op;
		unsigned n = 1;
		w->counted = (op & OP_COUNTED) != 0;
		if (op & OP_FULL) {
			struct mp_model_out o;
			uint8_t lv[MP_MODEL_LINES_MAX];
			n = r->n;
			mp_model_access_lines(w->m, r->core, r->space, r->addr, r->paddr, n, op & OP_WRITE, r->shift,
					      r->owner, 0, &o, lv);
			w->fo[done % QCAP] = o;
			for (unsigned i = 0; i < n; i++)
				w->lv[(done + i) % QCAP] = lv[i];
			if (o.tlb == MP_TLB_WALK || o.level >= MP_LVL_L3)
				hint_left = w->hint_sets ? HINT_KEEP : 0;
			else
				hint_left -= hint_left > 0;
			key = line_key(w->m, r->space, r->addr & VA_MASK, r->paddr);
		} else if (op & OP_RUN) {
			worker_run(w, done, r->core, key, r->addr, r->n, r->owner);
		} else if (worker_order(w, op, r->core)) {
			publish_done(w, done + 1);
			return NULL;
		}
		done += n;
		if ((since += n) >= PUBLISH_EVERY) {
			publish_done(w, done);
			since = 0;
		}
	}
}

/* --- the front ------------------------------------------------------------ */

static void publish_tail(struct worker *w)
{
	w->unpublished = 0;
	atomic_store(&w->tail, w->tail_local);
	if (atomic_load(&w->sleeping)) {
		pthread_mutex_lock(&w->mu);
		pthread_cond_signal(&w->work);
		pthread_mutex_unlock(&w->mu);
	}
}

static inline void push(struct mp_model_par *p, unsigned wi, uint64_t key, uint32_t owner, unsigned core, uint8_t op,
			unsigned n)
{
	struct worker *w = &p->w[wi];
	w->q[w->tail_local % QCAP] = (struct lref){ key, owner, (uint16_t)core, op, (uint8_t)n };
	w->tail_local++;
	if (++w->unpublished >= PUBLISH_EVERY)
		publish_tail(w);
	p->wid[p->wid_tail++ % WCAP] = (uint8_t)wi;
}

/* Waits until worker w has done reference pos. */
static void wait_done(struct mp_model_par *p, struct worker *w, uint64_t pos)
{
	for (unsigned i = 0; i < p->nworkers; i++)
		if (p->w[i].unpublished)
			publish_tail(&p->w[i]);
	uint64_t since = 0;
	unsigned turn = 0;
	do {
		if ((w->done_seen = atomic_load_explicit(&w->done, memory_order_acquire)) > pos)
			return;
	} while (spin_on(&since, &turn));
	pthread_mutex_lock(&w->mu);
	/* (woken once a batch is done, not at the first count past pos: the
	 * front would take a few outcomes and sleep again) */
	const uint64_t batch = pos + 1 + WAKE_BATCH;
	atomic_store(&w->front_waits, batch < w->tail_local ? batch : w->tail_local);
	while ((w->done_seen = atomic_load(&w->done)) <= pos)
		pthread_cond_wait(&w->result, &w->mu);
	atomic_store(&w->front_waits, 0);
	pthread_mutex_unlock(&w->mu);
}

/* Whether worker w has done reference pos: 0 (wait 0) if not yet. */
static inline int ready(struct mp_model_par *p, struct worker *w, uint64_t pos, int wait)
{
	if (pos < w->done_seen)
		return 1;
	w->done_seen = atomic_load_explicit(&w->done, memory_order_acquire);
	if (pos < w->done_seen)
		return 1;
	if (!wait)
		return 0;
	wait_done(p, w, pos);
	return 1;
}

/* An order (worker_order's) at the end of worker w's ring, published. */
static void put_order(struct mp_model_par *p, struct worker *w, uint8_t op, unsigned core)
{
	if (p->full)
		w->fq[w->tail_local % QCAP] = (struct fref){ .core = (uint16_t)core, .op = op };
	else
		w->q[w->tail_local % QCAP] = (struct lref){ 0, 0, (uint16_t)core, op, 0 };
	w->tail_local++;
	publish_tail(w);
}

static void bcast(struct mp_model_par *p, uint8_t op, unsigned core)
{
	p->room = 0; /* (looked at again) */
	p->t[p->t_tail++ % TCAP] = (struct ticket){ .wstart = 0, .bcast = 1 };
	for (unsigned i = 0; i < p->nworkers; i++)
		put_order(p, &p->w[i], op, core);
}

static void stop_workers(struct mp_model_par *p)
{
	for (unsigned i = 0; i < p->nworkers; i++) {
		struct worker *w = &p->w[i];
		if (!w->started)
			continue;
		/* (room for one more: the front never fills a ring to the last slot) */
		put_order(p, w, OP_STOP, 0);
		pthread_join(w->tid, NULL);
	}
}

static struct mp_model_par *par_new(const struct mp_machine *mach, unsigned workers, int beside)
{
	if (workers < 1 || workers > MP_MODEL_PAR_MAX) {
		errno = EINVAL;
		return NULL;
	}
	struct mp_model_par *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->mach = *mach;
	p->nworkers = workers;
	p->full = workers == 1;
	p->beside = beside;
	p->front = mp_model_new(mach);
	p->w = aligned_alloc(64, workers * sizeof(*p->w));
	p->t = calloc(TCAP, sizeof(*p->t));
	p->wid = calloc(WCAP, 1);
	int err = errno;
	if (!p->front || !p->w || !p->t || !p->wid) {
		free(p->w);
		p->w = NULL;
		goto fail;
	}
	memset(p->w, 0, workers * sizeof(*p->w));
	for (unsigned l = 0; l < MP_LVL_COUNT; l++)
		p->lat[l] = mp_model_latency(p->front, l);
	memset(p->l1_run, MP_LVL_L1, sizeof(p->l1_run));
	/* classes by the low bits of the line key, dealt out in turn (at
	 * most 256 of them: enough to balance 64 workers) */
	p->ncores = mp_model_ncores(p->front);
	uint64_t mod = model_class_mod(p->front);
	p->class_mask = (mod < 256 ? mod : 256) - 1;
	for (unsigned c = 0; c <= p->class_mask; c++)
		p->class_worker[c] = (uint8_t)(c % workers);
	if (p->full) { /* (its TLBs are the worker's: a model's memory not used) */
		mp_model_free(p->front);
		p->front = NULL;
	}
	for (unsigned i = 0; i < workers; i++) {
		struct worker *w = &p->w[i];
		w->p = p;
		pthread_mutex_init(&w->mu, NULL);
		pthread_cond_init(&w->work, NULL);
		pthread_cond_init(&w->result, NULL);
		if (p->full) {
			w->fq = malloc(QCAP * sizeof(*w->fq));
			w->fo = malloc(QCAP * sizeof(*w->fo));
			w->hinted = malloc(QCAP);
		} else {
			w->q = malloc(QCAP * sizeof(*w->q));
		}
		w->lv = malloc(QCAP);
		w->m = beside ? NULL : worker_model(p);
		if (!(p->full ? w->fq && w->fo && w->hinted : w->q != NULL) || !w->lv || !(w->m || beside)) {
			err = errno;
			goto fail;
		}
		if (w->m) {
			mp_model_set_writeback(w->m, on_wb, w);
			w->hint_sets = mp_model_set_bytes(w->m) >= HINT_SETS;
		}
	}
	/* (beside: the thread once the model is first lent) */
	for (unsigned i = 0; i < workers && !beside; i++) {
		if ((err = pthread_create(&p->w[i].tid, NULL, p->full ? worker_full_main : worker_main, &p->w[i])))
			goto fail;
		p->w[i].started = 1;
	}
	return p;
fail:
	mp_model_par_free(p);
	errno = err ? err : ENOMEM;
	return NULL;
}

struct mp_model_par *mp_model_par_new(const struct mp_machine *mach, unsigned workers)
{
	return par_new(mach, workers, 0);
}

struct mp_model_par *mp_model_par_beside(const struct mp_machine *mach)
{
	return par_new(mach, 1, 1);
}

void mp_model_par_free(struct mp_model_par *p)
{
	if (!p)
		return;
	if (p->w) {
		stop_workers(p);
		for (unsigned i = 0; i < p->nworkers; i++) {
			struct worker *w = &p->w[i];
			if (!p->beside)
				mp_model_free(w->m);
			free(w->q);
			free(w->fq);
			free(w->fo);
			free(w->hinted);
			free(w->lv);
			free(w->wb);
			free(w->runlv);
			pthread_mutex_destroy(&w->mu);
			pthread_cond_destroy(&w->work);
			pthread_cond_destroy(&w->result);
		}
	}
	mp_model_free(p->front);
	free(p->w);
	free(p->t);
	free(p->wid);
	free(p);
}

/* Submissions that fit for sure in every ring (each takes at most
 * TICKET_LINES slots of one and a ticket): mp_model_par_full counts them
 * down, and looks at the rings again only at 0. */
static uint64_t room_left(const struct mp_model_par *p)
{
	uint64_t t = p->t_tail - p->t_head + 2 >= TCAP ? 0 : TCAP - 2 - (p->t_tail - p->t_head);
	uint64_t n = p->wid_tail - p->wid_head + ROOM >= WCAP ? 0 : (WCAP - ROOM - (p->wid_tail - p->wid_head)) / TICKET_LINES;
	n = n < t ? n : t;
	for (unsigned i = 0; i < p->nworkers && n; i++) {
		const uint64_t used = p->w[i].tail_local - p->w[i].head;
		const uint64_t q = used + ROOM >= QCAP ? 0 : (QCAP - ROOM - used) / TICKET_LINES;
		n = q < n ? q : n;
	}
	return n;
}

int mp_model_par_full(struct mp_model_par *p)
{
	/* (room for a ticket's lines in any one ring and what may follow it
	 * unchecked: bcast, mp_model_par_repeat and stop_workers never wait) */
	if (!p->room)
		p->room = room_left(p);
	return p->room == 0;
}

/* mp_model_par_access with one worker: the whole reference to it; a guess
 * at its TLB outcome (the worker's TLBs decide it later): a DTLB hit if its
 * 4 KiB page was submitted lately, else a walk. */
static unsigned full_access(struct mp_model_par *p, unsigned core, uint32_t space, uint64_t addr, uint64_t paddr,
			    unsigned n, int write, unsigned page_shift, uint32_t owner, int counted)
{
	struct worker *w = &p->w[0];
	p->t[p->t_tail++ % TCAP] = (struct ticket){ .nkeys = 1, .n = (uint8_t)n };
	const uint8_t op = (uint8_t)(OP_FULL | (counted ? OP_COUNTED : 0) | (write ? OP_WRITE : 0));
	/* (the ring's lines were the worker's last: taken back ahead of time) */
	__builtin_prefetch(&w->fq[(w->tail_local + RING_AHEAD) % QCAP], 1);
	w->fq[w->tail_local % QCAP] = (struct fref){ addr, paddr, owner, (uint16_t)core, (uint16_t)space,
						     op, (uint8_t)n, (uint8_t)page_shift };
	for (unsigned i = 1; i < n; i++)
		w->fq[(w->tail_local + i) % QCAP].op = 0;
	w->tail_local += n;
	if ((w->unpublished += n) >= PUBLISH_EVERY)
		publish_tail(w);
	const uint64_t page = (addr & VA_MASK) >> 12 | (uint64_t)(space & 0xffff) << 36;
	uint64_t *r = &p->recent[(page * 0x9e3779b97f4a7c15ull) >> 56];
	if (*r == page + 1)
		return MP_TLB_L1_HIT;
	*r = page + 1;
	return MP_TLB_WALK;
}

unsigned mp_model_par_access(struct mp_model_par *p, unsigned core, uint32_t space, uint64_t addr, uint64_t paddr,
			     unsigned n, int write, unsigned page_shift, uint32_t owner, int counted)
{
	p->room -= p->room > 0;
	if (core >= p->ncores)
		core %= p->ncores;
	if (p->full) {
		p->seq++;
		return full_access(p, core, space, addr, paddr, n, write, page_shift, owner, counted);
	}
	struct mp_model *f = p->front;
	const unsigned active = model_nactive(f);
	uint64_t keys[MODEL_FRONT_KEYS];
	struct mp_model_out o;
	const unsigned nk = model_front(f, core, space, addr, paddr, page_shift, owner, &o, keys);
	p->seq++;
	if (model_nactive(f) != active)
		bcast(p, OP_ACTIVATE, core); /* (every worker's snoops go through the cores in this order) */
	p->t[p->t_tail++ % TCAP] = (struct ticket){ .wstart = (uint32_t)(p->wid_tail % WCAP),
						   .latency = o.latency,
						   .nkeys = (uint8_t)nk,
						   .n = (uint8_t)n,
						   .tlb = o.tlb,
						   .walk_refs = o.walk_refs };
	const uint8_t op = counted ? OP_COUNTED : 0;
	for (unsigned k = 0; k + 1 < nk; k++)
		push(p, worker_of(p, keys[k]), keys[k], owner, core, op, 0);
	const uint8_t opw = op | (write ? OP_WRITE : 0);
	for (unsigned i = 0; i < n; i++)
		push(p, worker_of(p, keys[nk - 1] + i), keys[nk - 1] + i, owner, core, opw, 0);
	return o.tlb;
}

int mp_model_par_repeat(struct mp_model_par *p, uint64_t writes, unsigned n, uint32_t owner)
{
	struct ticket *t = &p->t[(p->t_tail - 1) % TCAP];
	if (p->t_head == p->t_tail || t->bcast || t->n != 1 || t->runs == 255)
		return -1; /* (its outcome taken, or no one-line submission last) */
	t->runs++;
	if (p->full) {
		struct worker *w = &p->w[0];
		const struct fref *last = &w->fq[(w->tail_local - 1) % QCAP];
		w->fq[w->tail_local % QCAP] = (struct fref){ .addr = writes,
							     .owner = owner,
							     .core = last->core,
							     .op = (uint8_t)(OP_RUN | (last->op & OP_COUNTED)),
							     .n = (uint8_t)n };
		w->tail_local++;
		if (++w->unpublished >= PUBLISH_EVERY)
			publish_tail(w);
	} else {
		const unsigned wi = p->wid[(p->wid_tail - 1) % WCAP];
		const struct lref *last = &p->w[wi].q[(p->w[wi].tail_local - 1) % QCAP];
		push(p, wi, writes, owner, last->core, (uint8_t)(OP_RUN | (last->op & OP_COUNTED)), n);
	}
	p->room -= p->room > 0; /* (a slot, counted as a submission's) */
	return t->runs < 255 && !mp_model_par_full(p);
}

/* A run of n repeats done at ring place pos of worker w, after the reps
 * taken so far: their levels into p->replv, only once one missed L1
 * (*replv then points there). */
static void take_run(struct mp_model_par *p, const struct worker *w, uint64_t pos, unsigned n, unsigned *reps,
		     const uint8_t **replv)
{
	const unsigned missed = w->lv[pos];
	if (missed || *replv) {
		if (!*replv)
			memset(p->replv, MP_LVL_L1, *reps);
		memcpy(p->replv + *reps, missed ? w->runlv[pos] : p->l1_run, n);
		*replv = p->replv;
	}
	*reps += n;
}

/* mp_model_par_result's of a whole reference (t) to the one worker. */
static int full_result(struct mp_model_par *p, const struct ticket *t, int wait, struct mp_model_out *out,
		       unsigned *nrep, const uint8_t **replv)
{
	struct worker *w = &p->w[0];
	const unsigned nl = t->n + t->runs;
	if (!ready(p, w, w->head + nl - 1, wait))
		return 0;
	__builtin_prefetch(&w->fo[(w->head + RING_AHEAD) % QCAP]);
	__builtin_prefetch(&w->lv[(w->head + 4 * RING_AHEAD) % QCAP]);
	*out = w->fo[w->head % QCAP];
	out->again = 0;
	for (unsigned j = 0; j < t->n; j++)
		p->level[j] = w->lv[(w->head + j) % QCAP];
	unsigned reps = 0;
	*replv = NULL;
	for (unsigned j = t->n; j < nl; j++) {
		const uint64_t pos = (w->head + j) % QCAP;
		take_run(p, w, pos, w->fq[pos].n, &reps, replv);
	}
	*nrep = reps;
	w->head += nl;
	p->t_head++;
	return 1;
}

int mp_model_par_result(struct mp_model_par *p, int wait, struct mp_model_out *out, const uint8_t **level,
			unsigned *nrep, const uint8_t **replv)
{
	for (;;) {
		if (p->t_head == p->t_tail)
			return 0;
		const struct ticket *t = &p->t[p->t_head % TCAP];
		if (t->bcast) {
			for (unsigned i = 0; i < p->nworkers; i++)
				if (!ready(p, &p->w[i], p->w[i].head, wait))
					return 0;
			for (unsigned i = 0; i < p->nworkers; i++)
				p->w[i].head++;
			p->t_head++;
			continue;
		}
		if (p->full) {
			*level = p->level;
			return full_result(p, t, wait, out, nrep, replv);
		}
		const unsigned nl = t->nkeys - 1u + t->n + t->runs;
		/* all its lines done before any is taken (wait 0 may leave it) */
		if (nl == 1) {
			struct worker *w = &p->w[p->wid[t->wstart]];
			if (!ready(p, w, w->head, wait))
				return 0;
		} else {
			uint8_t cnt[MP_MODEL_PAR_MAX];
			memset(cnt, 0, p->nworkers);
			for (unsigned j = 0; j < nl; j++)
				cnt[p->wid[(t->wstart + j) % WCAP]]++;
			for (unsigned i = 0; i < p->nworkers; i++)
				if (cnt[i] && !ready(p, &p->w[i], p->w[i].head + cnt[i] - 1, wait))
					return 0;
		}
		struct mp_model_out o = { .tlb = t->tlb, .walk_refs = t->walk_refs, .latency = t->latency };
		const unsigned nlines = nl - t->runs;
		unsigned reps = 0;
		*replv = NULL;
		for (unsigned j = 0; j < nl; j++) {
			struct worker *w = &p->w[p->wid[(t->wstart + j) % WCAP]];
			const uint64_t pos = w->head++ % QCAP;
			const unsigned lv = w->lv[pos];
			if (j + 1 < t->nkeys) {
				o.walk_dram += lv == MP_LVL_LOCAL_DRAM;
				o.latency += p->lat[lv];
			} else if (j < nlines) {
				p->level[j + 1 - t->nkeys] = (uint8_t)lv;
			} else {
				take_run(p, w, pos, w->q[pos].n, &reps, replv);
			}
		}
		*nrep = reps;
		o.level = p->level[0];
		o.latency += p->lat[o.level];
		p->wid_head += nl;
		p->t_head++;
		*out = o;
		*level = p->level;
		return 1;
	}
}

void mp_model_par_clean(struct mp_model_par *p, int counted)
{
	p->seq++;
	bcast(p, OP_CLEAN | (counted ? OP_COUNTED : 0), 0);
}

int mp_model_par_renew(struct mp_model_par *p)
{
	if (p->beside)
		return -EINVAL;
	if (!p->full) { /* (one worker: no front) */
		struct mp_model *f = mp_model_new(&p->mach);
		if (!f)
			return -ENOMEM;
		mp_model_free(p->front);
		p->front = f;
	}
	p->seq++;
	bcast(p, OP_RENEW, 0);
	return 0;
}

int mp_model_par_lend(struct mp_model_par *p, struct mp_model *m)
{
	struct worker *w = &p->w[0];
	if (!w->started) {
		int err = pthread_create(&w->tid, NULL, worker_full_main, w);
		if (err)
			return -err;
		w->started = 1;
	}
	/* (the worker is idle: it reads the model after the next tail, which
	 * is published after this) */
	w->m = m;
	mp_model_set_writeback(m, on_wb, w);
	w->hint_sets = mp_model_set_bytes(m) >= HINT_SETS;
	return 0;
}

void mp_model_par_reclaim(struct mp_model_par *p)
{
	struct worker *w = &p->w[0];
	if (w->tail_local)
		ready(p, w, w->tail_local - 1, 1);
	/* (done with the last submission, the worker reads nothing more of
	 * the model until a tail past it) */
	w->m = NULL;
}

int mp_model_par_writebacks(struct mp_model_par *p, void (*fn)(void *arg, uint32_t owner, uint64_t n), void *arg)
{
	struct mp_model_out o;
	const uint8_t *lv, *replv;
	unsigned nrep;
	while (mp_model_par_result(p, 1, &o, &lv, &nrep, &replv) > 0)
		; /* (the caller took every outcome: broadcasts alone remain) */
	int failed = 0;
	size_t cap = 0;
	for (unsigned i = 0; i < p->nworkers; i++) {
		struct worker *w = &p->w[i];
		if (w->tail_local)
			wait_done(p, w, w->tail_local - 1);
		failed |= w->failed;
		cap = w->wb_cap > cap ? w->wb_cap : cap;
	}
	for (size_t own = 0; own < cap; own++) {
		uint64_t n = 0;
		for (unsigned i = 0; i < p->nworkers; i++)
			if (own < p->w[i].wb_cap) {
				n += p->w[i].wb[own];
				p->w[i].wb[own] = 0;
			}
		if (n)
			fn(arg, (uint32_t)own, n);
	}
	return failed ? -ENOMEM : 0;
}

const uint64_t *mp_model_par_seq(const struct mp_model_par *p)
{
	return &p->seq;
}
