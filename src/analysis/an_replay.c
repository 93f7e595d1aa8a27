// SPDX-License-Identifier: MIT
/*
 * Time-aware attribution. Every process's thread streams are replayed
 * together in global-epoch order (a k-way merge): events (allocations, frees,
 * mappings, modules, thread starts) change the process's live-object map,
 * and each access is looked up in the map as it stood at the access's epoch.
 * An access reads the epoch before it touches memory and an event publishes
 * its epoch after (allocation) or before (free) the real call, so in a
 * race-free program every access sees exactly the objects that were live when
 * it happened, whichever threads allocated and freed them.
 *
 * A forked child starts from its parent's map as it stood at the fork epoch
 * (an_fork.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_int.h"
#include "analysis/an_pattern.h"
#include "analysis/an_period.h"
#include "analysis/an_samples.h"
#include "common/mp_error.h"
#include "trace/trace_reader.h"

/* --- one stream cursor -------------------------------------------------- */

/* A chunk the threads' records held at once have no room for: skipped. */
static void held_over(struct an_state *st, const struct an_stream *s, const struct trace_chunk *c)
{
	st->res->damaged |= AN_DAMAGE_PARTIAL;
	if (st->held_warned++)
		return;
	an_warn(st,
		"thread %u: its chunk at byte %llu decodes to %llu bytes, and the threads' records would take "
		"over %llu bytes at once, more than a file of %llu bytes can ask for (a damaged file?): skipped",
		s->tid, (unsigned long long)c->offset, (unsigned long long)c->len, (unsigned long long)st->held_max,
		(unsigned long long)st->file_bytes);
}

/* The stream is done: its records' buffer and its translations at hand go back. */
static void cursor_release(struct an_state *st, struct an_stream *s)
{
	st->held -= s->cap;
	free(s->data);
	s->data = NULL;
	s->cap = 0;
	if (s->ph != an_ph_none) /* (the model's translations at hand) */
		free(s->ph);
	s->ph = an_ph_none;
	/* (nothing is left to decode; the decoder's clock and epoch stay) */
	s->dec.p = s->dec.end = s->ahead.p = s->ahead.end = NULL;
	s->ahead_n = 0;
}

static int cursor_load(struct an_state *st, struct an_stream *s)
{
	while (s->next_chunk < s->chunks.n) {
		struct trace_chunk c;
		if (s->replay_skipping) {
			an_replay_skip_chunks(st, s);
			if (s->next_chunk == s->chunks.n)
				break;
		}
		uint64_t off = s->chunks.v[s->next_chunk++].off;
		if (!trace_reader_read_at(st->reader, off, &c)) {
			/* its checksum was right, its payload does not decode */
			int err = trace_reader_read_error(st->reader);
			if (err == -ENOMEM)
				return err;
			st->res->damaged |= AN_DAMAGE_PARTIAL;
			an_warn(st, "a thread's records at byte %llu do not decode (%s): skipped",
				(unsigned long long)off, mp_strerror(err));
			continue;
		}
		/* every thread holds its current chunk while the merge goes on:
		 * a few KiB of file may claim 64 MiB a thread */
		size_t bcap = c.len ? trace_reader_buf_cap(st->reader, &c) : 0;
		if (bcap > s->cap && bcap / 2 > c.len)
			bcap = 0; /* (a thread of small chunks keeps a small buffer) */
		if (bcap) {
			/* decoded into the reader's buffer: the stream takes it,
			 * the reader the stream's (no copy of the records) */
			if (st->held - s->cap + bcap > st->held_max) {
				held_over(st, s, &c);
				continue;
			}
			st->held += bcap - s->cap;
			s->data = trace_reader_swap_buf(st->reader, s->data, s->cap);
			s->cap = bcap;
		} else if (s->cap < c.len) {
			if (st->held - s->cap + c.len > st->held_max) {
				held_over(st, s, &c);
				continue;
			}
			uint8_t *nb = realloc(s->data, c.len);
			if (!nb)
				return -ENOMEM;
			st->held += c.len - s->cap;
			s->data = nb;
			s->cap = c.len;
		}
		if (c.len && !bcap)
			memcpy(s->data, c.data, c.len);
		trace_dec_init(&s->dec, s->data, c.len);
		an_look_ahead(st, s, 1); /* (the old chunk's data is gone) */
		if (st->opts->progress && (++st->chunks_done & 7) == 0)
			st->opts->progress(st->opts->progress_arg, st->chunks_done, st->nchunks);
		return 1;
	}
	return 0;
}

/* Fetches the stream's next record into s->rec; sets s->done at the end. */
void an_cursor_advance(struct an_state *st, struct an_stream *s)
{
	for (;;) {
		int r = trace_dec_next(&s->dec, &s->rec);
		if (r == 1) {
			if (s->ahead_on) {
				if (an_look_ahead_moves(s))
					an_look_ahead(st, s, 0);
				else
					an_look_ahead_took(s);
			}
			return;
		}
		if (r < 0 && !s->warned) {
			s->warned = 1;
			st->res->damaged |= AN_DAMAGE_PARTIAL;
			an_warn(st, "thread %u: malformed record; rest of its chunk skipped", s->tid & MP_TID_MASK);
		}
		int l = cursor_load(st, s);
		if (l <= 0) {
			s->done = 1;
			cursor_release(st, s);
			if (l < 0)
				st->oom = 1;
			return;
		}
	}
}

/* Merge key of the stream's pending record: events order by their epoch and
 * come before accesses of the same epoch. */
static uint64_t cursor_key(const struct an_stream *s)
{
	if (s->done)
		return UINT64_MAX;
	switch (s->rec.cls) {
	case MP_REC_EVENT:
		if (s->rec.event == MP_EV_STACK_DEF)
			return 0; /* definitions order nothing: take them at once */
		return s->rec.epoch * 2;
	case MP_REC_EPOCH:
		return 0; /* sets the stream's epoch: no global effect */
	default:
		return s->epoch * 2 + 1;
	}
}

/* --- accesses ----------------------------------------------------------- */

static inline void count(struct an_counts *c, int write, uint64_t size)
{
	if (write) {
		c->stores++;
		c->bytes_stored += size;
	} else {
		c->loads++;
		c->bytes_loaded += size;
	}
}

/* Adds the stream's run of counted accesses to its class (burst sampling:
 * to its class's part of the thread). Nothing reads these tallies before
 * the replay ends (an_result.c), so a run is added up when its class
 * changes, and the stream's thread, process and totals get theirs at its
 * end (flush_stream). */
static void flush_run(struct an_state *st, struct an_stream *s)
{
	if (!(s->run.loads | s->run.stores))
		return;
	an_counts_add(st->parts_on ? &an_part_of(st, s, s->run_cls)->c : &st->classes.v[s->run_cls].c, &s->run);
	an_counts_add(&s->sum, &s->run);
	s->run = (struct an_counts){ 0 };
}


static void flush_stream(struct an_state *st, struct an_stream *s)
{
	flush_run(st, s);
	an_pairs_flush(st, s);
	struct an_thread *t = &st->threads.v[s->thread];
	an_counts_add(&t->c, &s->sum);
	t->recorded += s->sum.loads + s->sum.stores + s->outside_roi;
	t->skipped += s->skipped;
	an_counts_add(&st->res->total, &s->sum);
	st->res->accesses_outside_roi += s->outside_roi;
	st->res->refs_physical += s->refs_physical;
	st->res->refs_thp += s->refs_thp;
	st->procs.v[s->proc].accesses += s->sum.loads + s->sum.stores;
	s->sum = (struct an_counts){ 0 };
}

static void hook_access(struct an_state *st, struct an_stream *s, uint32_t cls, const struct trace_rec *r,
			int counted, const struct mp_outcome *oc)
{
	struct an_access a = { .proc = s->proc, .thread = s->thread, .cls = cls, .addr = r->addr,
			       .size = r->size, .ip = r->ip, .epoch = s->epoch, .time = s->dec.time,
			       .cpu = s->cpu, .write = r->write, .counted = counted, .outcome = oc,
			       .from_node = -1, .to_node = -1 };
	if (st->numa)
		an_numa_last(st, &a.from_node, &a.to_node);
	st->opts->on_access(st->opts->hook_arg, &a);
}

/* An access outside --roi: the model still sees it (caches warm up outside
 * the region), nothing is counted. */
static void access_outside_roi(struct an_state *st, struct an_stream *s, uint32_t cls, const struct trace_rec *r)
{
	s->outside_roi++;
	if (st->numa)
		an_numa_access(st, s, cls, r, 0);
	struct mp_outcome oc;
	an_model_access(st, s, cls, r, 0, &oc);
	if (st->opts->on_access)
		hook_access(st, s, cls, r, 0, &oc);
}

/* The function (an_ip index + 1) of code address ip, made on first sight
 * and kept first in its pair of slots, the one there before second; 0 on
 * ENOMEM (st->oom). Burst sampling: one an_ip per (ip, thread), scaled by
 * the thread's factor at the end. */
static __attribute__((noinline)) uint32_t fn_lookup(struct an_state *st, struct an_stream *s, uint64_t ip,
						    struct an_ip_slot *pair)
{
	uint32_t i = an_ip_get(st, s->proc, st->parts_on ? s->thread : UINT32_MAX, ip);
	if (i == UINT32_MAX)
		return 0;
	pair[1] = pair[0];
	pair[0] = (struct an_ip_slot){ ip, i + 1 };
	return i + 1;
}

static inline uint32_t fn_of(struct an_state *st, struct an_stream *s, uint64_t ip)
{
	/* loops cycle through a few instructions: a small per-stream cache in
	 * front of the hash map, two slots a hash. (A multiplicative hash put
	 * four of smallobj's loop's code addresses, all within 4 KiB, in one
	 * slot: 6M of its 28M accesses went to the map.) */
	struct an_ip_slot *pair = &s->ipc[(mp_hash64(ip) >> (64 - AN_IP_BITS)) & ~1u];
	if (pair[0].fn && pair[0].ip == ip)
		return pair[0].fn;
	if (pair[1].fn && pair[1].ip == ip)
		return pair[1].fn;
	return fn_lookup(st, s, ip, pair);
}

/* The wrapper judgement's evidence (an_sites.c): counted accesses per
 * (class, code address), for classes with an allocation stack. A stream
 * keeps a few at hand; one whose slot another wants goes to st->pairs
 * (an_pairs.c). */
static inline void pair_add(struct an_state *st, struct an_stream *s, uint32_t cls, uint32_t fn, uint64_t n)
{
	const uint64_t key = (uint64_t)cls << 32 | fn; /* (fn >= 1: never 0) */
	struct an_pair_slot *e = &s->pairs[(key * 0x9e3779b97f4a7c15ull) >> (64 - AN_PAIR_BITS)];
	if (e->key != key) {
		if (e->key)
			an_pair_spill(st, e);
		e->key = key;
	}
	e->n += n;
}

/* n counted accesses of class cls from code address fn (an_ip + 1). The
 * code address's row, just counted, keeps the tally while its accesses
 * stay in one class (the common case: a few instructions more a lookup);
 * then it goes through the stream's slots. */
static inline void ip_pair(struct an_state *st, struct an_stream *s, uint32_t fn, uint32_t cls, uint64_t n)
{
	struct an_ip *ip = &st->ips.v[fn - 1];
	if (ip->pair_cls != cls + 1) {
		if (ip->pair_n)
			pair_add(st, s, ip->pair_cls - 1, fn, ip->pair_n);
		ip->pair_cls = cls + 1;
		ip->pair_n = 0;
	}
	ip->pair_n += n;
}

/* The pattern summary of (cls, the stream's thread), through the stream's
 * recent ones; NULL on ENOMEM. */
static inline struct an_pat_stream *pat_of(struct an_state *st, struct an_stream *s, uint32_t cls)
{
	/* (any of the slots: class numbers a loop touches may share their
	 * remainders, and then took turns in one slot) */
	for (int i = 0; i < AN_PAT_RECENT; i++)
		if (s->pat_recent[i].pat && s->pat_recent[i].cls == cls)
			return s->pat_recent[i].pat;
	struct an_pat_recent *e = &s->pat_recent[s->pat_next++ % AN_PAT_RECENT];
	e->pat = an_patterns_get(st->opts->patterns, cls, s->thread);
	e->cls = cls;
	return e->pat;
}

/* What a counted access asks for besides the tallies: NUMA placement, the
 * model, the caller's hook. */
static inline void access_extras(struct an_state *st, struct an_stream *s, uint32_t cls, const struct trace_rec *r)
{
	struct mp_outcome oc;
	if (st->numa)
		an_numa_access(st, s, cls, r, 1);
	if (st->model)
		an_model_access(st, s, cls, r, 1, &oc);
	if (st->opts->on_access)
		hook_access(st, s, cls, r, 1, st->model ? &oc : NULL);
}

/* The stream's lookups with (obj, lo, hi) first, entry k's gone (k:
 * AN_LOOKUPS - 1, the oldest), the others moved down one. */
static inline void look_first(struct an_stream *s, const struct an_objmap *m, int k, struct an_obj *obj, uint64_t lo,
			      uint64_t hi)
{
	/* (moved one by one, at most five: a call to memmove, which a loop
	 * becomes, costs ~4% of allocheavy's report) */
	_Static_assert(AN_LOOKUPS == 6, "the moves below are for six lookups");
	switch (k) {
	case 5:
		s->look[5] = s->look[4];
		__attribute__((fallthrough));
	case 4:
		s->look[4] = s->look[3];
		__attribute__((fallthrough));
	case 3:
		s->look[3] = s->look[2];
		__attribute__((fallthrough));
	case 2:
		s->look[2] = s->look[1];
		__attribute__((fallthrough));
	case 1:
		s->look[1] = s->look[0];
		break;
	default:
		break;
	}
	s->look[0].obj = obj;
	s->look[0].gen = m->gen;
	s->look[0].lo = lo;
	s->look[0].hi = hi;
}

/* The object at addr, through the stream's last lookups (a loop's stack,
 * a global and the blocks it works on, say), each good while no change to
 * the map touched its range (an_objmap_unchanged: a malloc elsewhere does
 * not), else the map's. The answer is left in s->look[0]. allocheavy,
 * whose loop touches the stack, a static generator and two blocks: with one
 * lookup kept, dropped by every malloc and free, 16M of its 18M would go
 * to the map; with four, 4M go, the new blocks' first touches. smallobj's
 * loop touches a static, a table and a chain of nodes: with four, a long
 * chain pushed the table out, and a fifth of its lookups went down the
 * map's tree; with six, few. */
static __attribute__((noinline)) struct an_obj *stream_lookup(struct an_stream *s, struct an_objmap *m,
								 uint64_t addr)
{
	int k = 0, stale = AN_LOOKUPS - 1; /* (else the oldest goes) */
	for (; k < AN_LOOKUPS; k++) {
		const struct an_lookup *l = &s->look[k];
		if (!l->obj || addr < l->lo || addr >= l->hi)
			continue;
		if (an_objmap_unchanged(m, l->gen, l->lo, l->hi))
			break;
		stale = k; /* the map changed there: it can never hold again */
	}
	/* (the answer field by field: a copy of the whole entry, read back
	 * over the fields just written, stalled on their stores: 3% of
	 * smallobj's report) */
	struct an_obj *obj;
	uint64_t lo = 0, hi = 0; /* (none found: an empty range) */
	if (k < AN_LOOKUPS) {
		obj = s->look[k].obj;
		lo = s->look[k].lo;
		hi = s->look[k].hi;
	} else {
		k = stale;
		obj = an_objmap_find_safe(m, addr, &lo, &hi);
		an_look_ahead_arm(s, m);
	}
	look_first(s, m, k, obj, lo, hi);
	return obj;
}

/* The lookahead's answer for the access at addr: the small block the
 * map's shadow named for it some records ago (an_lookahead.c), which is
 * what an_objmap_find_safe would answer while the map is as it was then
 * (the same generation, no block waiting to join), the block holds addr
 * and no layer above the blocks' holds anything. Else stream_lookup's.
 * Among a million small blocks most lookups end here, without the
 * stream's lookups searched or the shadow read again. */
static inline struct an_obj *ahead_lookup(struct an_stream *s, struct an_objmap *m, uint64_t addr)
{
	struct an_obj *o = (struct an_obj *)s->ahead_named.obj;
	s->ahead_named.obj = NULL;
	if (s->ahead_named.gen != m->gen || m->nwait || addr - o->lo >= o->hi - o->lo ||
	    !an_objmap_layer_empty(m, AN_LAYER_NAMED) || !an_objmap_layer_empty(m, AN_LAYER_CARVED))
		return stream_lookup(s, m, addr);
	an_look_ahead_arm(s, m);
	/* it takes the place of the last block found so (a chain's last
	 * node, seldom met again), not of the oldest lookup (the table the
	 * chain hangs from, the loop's globals) */
	int k = AN_LOOKUPS - 1;
	for (int j = 0; j < AN_LOOKUPS; j++)
		if (s->look[j].obj == s->ahead_named.last) {
			k = j;
			break;
		}
	look_first(s, m, k, o, o->lo, o->hi);
	s->ahead_named.last = o;
	return o;
}

/* One access: its object, code address and run. replay_accesses takes the
 * accesses after it that stay in the same object and at the same code
 * address without coming here. */
static inline __attribute__((always_inline)) void apply_access(struct an_state *st, struct an_stream *s,
							       const struct trace_rec *r)
{
	struct an_proc *p = &st->procs.v[s->proc];
	int outside = st->opts->roi && p->roi_depth == 0;
	if (outside && !st->model) {
		s->outside_roi++;
		return;
	}
	const struct an_lookup *l = &s->look[0];
	struct an_obj *o = l->obj;
	if (!(o && l->gen == p->map.gen && r->addr >= l->lo && r->addr < l->hi))
		o = s->ahead_named.obj && s->ahead_named.addr == r->addr ? ahead_lookup(s, &p->map, r->addr)
									   : stream_lookup(s, &p->map, r->addr);
	/* (a block primed at its malloc is first found here) */
	if (o && st->parts_on && st->model)
		an_model_span(st, s, o);
	uint32_t cls = o ? o->cls : st->unknown_cls;
	if (outside) {
		access_outside_roi(st, s, cls, r);
		return;
	}
	if (cls != s->last_cls) {
		/* (a class switch at every other access among small objects:
		 * the call only when the class's first thread is another) */
		struct an_class *c = &st->classes.v[cls];
		if (!c->nthreads || c->threads[0] != s->thread)
			an_class_add_thread(c, s->thread);
		s->last_cls = cls;
	}
	if (r->ip != s->last_ip || !s->last_fn) {
		uint32_t fn = fn_of(st, s, r->ip);
		if (!fn)
			return;
		s->other_ip = s->last_ip;
		s->other_fn = s->last_fn;
		s->last_fn = fn;
		s->last_ip = r->ip;
	}
	if (cls != s->run_cls) {
		flush_run(st, s);
		s->run_cls = cls;
	}
	count(&s->run, r->write, r->size);
	count(&st->ips.v[s->last_fn - 1].c, r->write, r->size);
	ip_pair(st, s, s->last_fn, cls, 1);
	if (st->opts->patterns) {
		if (!s->pat || cls != s->pat_cls) {
			s->pat = pat_of(st, s, cls);
			s->pat_cls = cls;
		}
		if (s->pat)
			an_pat_stream_add(s->pat, r->addr);
	}
	access_extras(st, s, cls, r);
}

/* Decodes the stream's next record into *a if it is an access (then 1),
 * or takes it from the lookahead, which decoded it already, moving the
 * lookahead on as cursor_advance does (ahead: it may be on). d: the
 * caller's copy of the stream's decoder. */
static inline __attribute__((always_inline)) int next_access(struct an_state *st, struct an_stream *s,
							     struct trace_dec *d, struct trace_acc *a, const int ahead)
{
	/* (the lookahead off, one test a record, as take_stretch's loop over
	 * a random table's accesses can afford) */
	if (!(ahead && s->ahead_on))
		return trace_dec_acc(d, a);
	if (!an_ahead_taken(s, d, a) && !trace_dec_acc(d, a))
		return 0;
	if (!an_look_ahead_moves(s)) {
		an_look_ahead_took(s);
		return 1;
	}
	s->dec = *d;
	an_look_ahead(st, s, 0);
	return 1;
}

/* --sample-bursts at replay: an access of the stream's burst was applied.
 * Returns 1 if that ended the burst (a skip begins). */
static inline int replay_burst_ends(const struct an_state *st, struct an_stream *s)
{
	if (--s->replay_left)
		return 0;
	s->replay_skipping = 1;
	s->replay_left = st->burst_off;
	return 1;
}

/* Where the accesses after the one apply_access just did may go without
 * it: [lo, lo + width) of its object, from its code address or the one
 * before (a loop's load and store), with the same class, tallies and
 * pattern summary. width 0: nowhere. */
struct stretch {
	uint64_t lo, width;
	uint64_t ip, ip2; /* ip2 == ip: only one */
};

/* Adds to run what c gained since it was was; returns the accesses. */
static inline uint64_t count_gain(struct an_counts *run, const struct an_counts *c, const struct an_counts *was)
{
	const uint64_t loads = c->loads - was->loads, stores = c->stores - was->stores;
	run->loads += loads;
	run->stores += stores;
	run->bytes_loaded += c->bytes_loaded - was->bytes_loaded;
	run->bytes_stored += c->bytes_stored - was->bytes_stored;
	return loads + stores;
}

/* The stretch's other code address becomes its current one (the last):
 * each with its function, tally and L1 hits not yet counted. */
static inline __attribute__((always_inline)) void other_ip(struct an_stream *s, struct stretch *k, uint32_t *fn,
							   uint32_t *fn2, struct an_counts **ipc,
							   struct an_counts **ipc2, uint64_t *fl, uint64_t *fl2,
							   const int extras)
{
	const uint64_t ti = k->ip;
	const uint32_t tf = *fn;
	struct an_counts *const tc = *ipc;
	const uint64_t tl = *fl;
	k->ip = k->ip2;
	*fn = *fn2;
	*ipc = *ipc2;
	*fl = *fl2;
	k->ip2 = ti;
	*fn2 = tf;
	*ipc2 = tc;
	*fl2 = tl;
	if (extras) {
		s->last_ip = k->ip;
		s->last_fn = *fn;
	}
}

/* take_periods's own state: searches to skip, the skip after the next
 * that fails, the last window of records searched, the last period. */
struct period_try {
	unsigned skip, backoff;
	uintptr_t window;
	struct an_period_memo memo; /* the last period found */
};
/* The model's repeats as take_stretch's loop tests them. */
struct period_rep {
	uint64_t line, mask;
	unsigned again;
	uint32_t fn;
};

/* take_stretch's loop has counted *a, the decoder d after it: if the
 * records ahead repeat a period whose accesses that loop would count as it
 * did the ones before (an_period.h), counts as many periods as there are
 * at once and leaves *a their last access, d after it. Searches that find
 * none are made further apart (up to 64 chances skipped). Inline with
 * pointers to the loop's locals, which stay in registers. */
static inline __attribute__((always_inline)) void take_periods(
	struct an_state *st, struct an_stream *s, struct period_try *pt, struct stretch *k, uint32_t *fn,
	uint32_t *fn2, struct an_counts **ipc, struct an_counts **ipc2, uint64_t *fl, uint64_t *fl2,
	struct an_pat_run *pat, struct trace_dec *d, struct trace_acc *a, const struct period_rep *rep, const int extras)
{
	if (pt->skip) {
		pt->skip--;
		return;
	}
	struct an_pat_stream *const ps = st->opts->patterns ? s->pat : NULL;
	/* the pattern summary's run, or its hot slot alone while the run is
	 * off (then each access goes to the summary, which is up to date) */
	const int single = ps && !pat->on;
	/* (a burst replayed: its accesses but the last before the loop's
	 * test, which ends the burst at the last one as it would) */
	struct an_period_in in = {
		.lo = k->lo, .width = k->width, .most = st->replay_on ? s->replay_left - 1 : UINT64_MAX,
		.key = { .ip = k->ip, .ip2 = k->ip2, .fn = *fn, .fn2 = *fn2, .pat_on = ps != NULL,
			 .da = pat->da, .db = pat->db },
	};
	if (rep) {
		in.rep_line = rep->line;
		in.key.rep_on = 1;
		in.key.rep_mask = rep->mask;
		in.key.rep_again = rep->again;
		in.key.rep_fn = rep->fn;
	}
	/* (no summary: the run was never begun, its deltas stay 0, and the
	 * key the same each time) */
	const int hot = single && ps->accesses && ps->hot < ps->nslots;
	if (hot)
		in.key.da = in.key.db = ps->slot[ps->hot].delta;
	struct an_period q;
	const struct trace_dec dc = *d; /* (a copy's address: d itself stays in registers) */
	if (s->ahead_on || (ps && (single ? !hot || ps->last != a->addr : pat->last != a->addr)) ||
	    !an_period_ahead(&dc, &in, &pt->memo, &q)) {
		pt->skip = pt->backoff;
		pt->backoff = pt->backoff < 64 ? pt->backoff * 2 : pt->backoff;
		return;
	}
	pt->backoff = 1;
	if (st->replay_on)
		s->replay_left -= q.n * (q.n1 + q.n2);
	an_period_count(&q, *ipc, *ipc2);
	if (single) {
		const uint64_t n = q.n * q.na;
		ps->accesses += n;
		ps->deltas += n;
		an_pat_count_sign(ps, in.key.da, n);
		ps->slot[ps->hot].count += n;
		ps->last = q.last.addr;
	} else if (ps) {
		pat->na += q.n * q.na;
		pat->nb += q.n * q.nb;
		pat->b_hot = q.b_last;
		pat->last = q.last.addr;
	}
	*fl += q.n * q.n1;
	*fl2 += q.n * q.n2;
	d->p += q.n * q.bytes;
	d->last_addr = q.last.addr;
	*a = q.last;
	if (a->ip != k->ip)
		other_ip(s, k, fn, fn2, ipc, ipc2, fl, fl2, extras);
}

static inline int in_stretch(const struct stretch *k, const struct trace_acc *a)
{
	return a->addr - k->lo < k->width && (a->ip == k->ip || a->ip == k->ip2);
}

/* Counts *pending, an access in the stretch k, and the accesses after it
 * while they stay in it: the class's tallies in locals, the decoder's state
 * and the pattern summary's hot slots in registers. Returns 1 if it stopped
 * at an access out of the stretch (in *pending, not yet applied), 0 at a
 * record that is not an access (not decoded). extras: a constant, so that
 * the loop without a model, NUMA or hook is compiled apart. */
static inline __attribute__((always_inline)) int take_stretch(struct an_state *st, struct an_stream *s,
							      struct stretch k, struct trace_acc *pending, const int extras)
{
	struct trace_acc a = *pending; /* a local the compiler keeps in registers */
	const uint32_t cls = s->run_cls;
	/* the two code addresses' functions and tallies, the current one first */
	uint32_t fn = s->last_fn, fn2 = s->other_fn;
	struct an_counts *ipc = &st->ips.v[fn - 1].c, *ipc2 = fn2 ? &st->ips.v[fn2 - 1].c : ipc;
	/* the class's run, and each code address's accesses (ip_pair), are
	 * what the two code addresses' tallies gain here (an access counted
	 * once, not three times: fewer registers in use) */
	struct an_counts *const ipc_first = ipc, *const ipc2_first = ipc2;
	const struct an_counts was = *ipc, was2 = *ipc2;
	struct an_pat_stream *const ps = st->opts->patterns ? s->pat : NULL;
	struct an_pat_run pat = { 0 };
	if (ps)
		an_pat_run_begin(&pat, ps);
	struct trace_dec d = s->dec;
	const int model_only = extras && st->model && !st->numa && !st->opts->on_access;
	/* The model alone: once an access here was a repeat (an_model_repeat),
	 * the next ones to its line are too while the stream's repeatable
	 * reference stays that line and the model has run nowhere since: what
	 * else that test reads (class, core, page, time) a stretch keeps. They
	 * are counted here, as an_model_count_fast would, each code address's
	 * in fl (the current one's) and fl2, and added up at the end. */
	const uint64_t rep_mask = model_only ? st->model_rep.line_mask : 0;
	uint64_t rep_line = UINT64_MAX, fl = 0, fl2 = 0;
	/* what that test reads of the stream's repeatable reference, taken
	 * when rep_line is: it stays as it is until the model runs again,
	 * which only the branches that change rep_line make it do */
	unsigned rep_again = 0;
	uint32_t rep_fn = 0;
	/* A loop's records repeating byte for byte are counted a run of
	 * periods at once (take_periods) where nothing else reads each access:
	 * no call but the model's (its repeats of one line alone), within what
	 * is left of a burst replayed. */
	const int periods = (!extras || model_only) && !st->opts->each_access;
	struct period_try pt;
	pt.skip = 0;
	pt.backoff = 1;
	pt.window = 0;
	pt.memo.valid = 0;
	int more;
	for (int first = 1;; first = 0) {
		if (!first && !in_stretch(&k, &a)) /* the caller checked the first */
			break;
		if (a.ip != k.ip) /* as apply_access: the other one becomes the last */
			other_ip(s, &k, &fn, &fn2, &ipc, &ipc2, &fl, &fl2, extras);
		count(ipc, a.write, a.size);
		if (ps)
			an_pat_run_add(&pat, a.addr);
		/* they read a whole record; of s->dec, which lags behind d here,
		 * only the time, which accesses leave as it is. The model alone:
		 * a repeated reference needs no record and no call. */
		/* (rep_line is UINT64_MAX, which no masked address is, but
		 * for the model alone; an access that is no range has a size) */
		if ((a.addr & rep_mask) == rep_line && ((a.addr + a.size - 1) & rep_mask) == rep_line && !a.range &&
		    (a.write ? (rep_again & MP_AGAIN_STORE) && fn == rep_fn : (rep_again & MP_AGAIN_LOAD))) {
			fl++;
		} else if (model_only && an_model_repeat(st, s, cls, a.addr, a.size, a.write, 1)) {
			rep_line = a.addr & rep_mask;
			rep_again = s->rep_a == rep_line && s->rep_seq == *st->model_rep.seq ? s->rep_again : 0;
			rep_fn = s->rep_fn;
			/* (the model alone: where a line's repeats begin) */
			if (periods && __builtin_expect(!s->ahead_on && !pt.skip, 0)) {
				const struct period_rep r = { rep_line, rep_mask, rep_again, rep_fn };
				take_periods(st, s, &pt, &k, &fn, &fn2, &ipc, &ipc2, &fl, &fl2, &pat, &d, &a, &r, extras);
			} else if (pt.skip) {
				pt.skip--;
			}
		} else if (extras) {
			rep_line = UINT64_MAX;
			trace_rec_set_access(&s->rec, &a);
			access_extras(st, s, cls, &s->rec);
		}
		/* (without a model, where the decoder enters a window of each
		 * 256 bytes of records: a loop's records are many to one) */
		if (!extras && __builtin_expect(!((uintptr_t)d.p & (256 - AN_PERIOD_WINDOW)), 0) && periods &&
		    (uintptr_t)d.p >> 8 != pt.window) {
			pt.window = (uintptr_t)d.p >> 8;
			take_periods(st, s, &pt, &k, &fn, &fn2, &ipc, &ipc2, &fl, &fl2, &pat, &d, &a, NULL, extras);
		}
		/* (a burst replayed at its end: the next access begins a skip) */
		const int burst_end = st->replay_on && replay_burst_ends(st, s);
		if (!(more = next_access(st, s, &d, &a, 1)) || burst_end)
			break;
	}
	if (ps)
		an_pat_run_end(&pat);
	if (fl | fl2) {
		an_model_fast_add(st, s, cls, fl + fl2, 0);
		st->ips.v[fn - 1].fast_l1 += fl;
		if (fl2)
			st->ips.v[fn2 - 1].fast_l1 += fl2;
		s->refs_physical += (fl + fl2) * s->rep_phys;
		s->refs_thp += (fl + fl2) * s->rep_thp;
	}
	const uint64_t n1 = count_gain(&s->run, ipc_first, &was),
		       n2 = ipc2_first != ipc_first ? count_gain(&s->run, ipc2_first, &was2) : 0;
	const uint64_t pn = ipc == ipc_first ? n1 : n2, pn2 = ipc == ipc_first ? n2 : n1;
	if (pn)
		ip_pair(st, s, fn, cls, pn);
	if (pn2)
		ip_pair(st, s, fn2, cls, pn2);
	s->dec = d;
	s->last_ip = k.ip;
	s->last_fn = fn;
	if (fn2) {
		s->other_ip = k.ip2;
		s->other_fn = fn2;
	}
	*pending = a;
	return more;
}

/* The stream's pending record is an access and the stream is first in the
 * merge: takes it and every access after it. Accesses keep the stream's key
 * (its epoch), so the run stays first until an EPOCH or event record, which
 * ends it and is left pending in s->rec. Nothing but events changes the
 * object map or --roi, so within the run the caches of apply_access hold
 * for every access that stays in the object and at code addresses it knows:
 * take_stretch counts those. */
static void replay_accesses(struct an_state *st, struct an_stream *s)
{
	const struct an_proc *p = &st->procs.v[s->proc];
	const int counted = !st->opts->roi || p->roi_depth > 0;
	const int extras = st->numa || st->model || st->opts->on_access;
	for (;;) {
		if (s->replay_skipping && !an_replay_skip(st, s))
			return;
		apply_access(st, s, &s->rec);
		const struct an_obj *o = s->look[0].obj;
		struct stretch k = { 0 };
		/* (the burst replayed ended: no stretch, the next access is the skip's) */
		if (!(st->replay_on && replay_burst_ends(st, s)) && counted && o && s->look[0].gen == p->map.gen &&
		    o->cls == s->run_cls && o->cls == s->last_cls && s->last_fn && s->last_ip == s->rec.ip &&
		    (!st->opts->patterns || (s->pat && s->pat_cls == o->cls))) {
			k.lo = s->look[0].lo;
			k.width = s->look[0].hi - s->look[0].lo;
			k.ip = s->last_ip;
			k.ip2 = s->other_fn ? s->other_ip : s->last_ip;
		}
		/* the next access first: in tables walked at random or among
		 * allocations it seldom stays, and then costs no stretch set-up */
		struct trace_acc a;
		int more = next_access(st, s, &s->dec, &a, 1);
		if (more && in_stretch(&k, &a))
			more = extras ? take_stretch(st, s, k, &a, 1) : take_stretch(st, s, k, &a, 0);
		if (more) {
			trace_rec_set_access(&s->rec, &a);
			continue;
		}
		an_cursor_advance(st, s);
		if (s->done || s->rec.cls != MP_REC_ACCESS)
			return;
	}
}

static void hook_event(struct an_state *st, struct an_stream *s, const struct trace_rec *r)
{
	struct an_proc *p = &st->procs.v[s->proc];
	struct an_event e = { .proc = s->proc, .thread = s->thread, .type = r->event, .epoch = s->epoch,
			      .time = r->nf ? r->f[0] : 0, .cpu = s->cpu, .cls = UINT32_MAX, .f = r->f,
			      .nf = r->nf, .str = r->str, .str_len = r->str_len };
	const struct an_obj *o = NULL;
	if (r->event == MP_EV_ALLOC && r->nf > 5 && r->f[5] == MP_FN_FREELIKE) {
		/* to the hooks, the end of a program allocator's block is a
		 * free (its first fields are a FREE's) */
		e.type = MP_EV_FREE;
		e.nf = 3;
	} else if (r->event == MP_EV_ALLOC && r->nf > 5) {
		o = an_objmap_at(&p->map, r->f[5] == MP_FN_MALLOCLIKE ? AN_LAYER_CARVED : AN_LAYER_OBJECT, r->f[2]);
	} else if (r->event == MP_EV_MMAP && r->nf > 2)
		o = an_objmap_at(&p->map, AN_LAYER_MAP, r->f[2]);
	if (o)
		e.cls = o->cls;
	st->opts->on_event(st->opts->hook_arg, &e);
}

/* --- per-process replay ------------------------------------------------- */

/* Events whose second field is the CPU they happened on (trace_format.h). */
static int event_has_cpu(unsigned ev)
{
	switch (ev) {
	case MP_EV_ALLOC:
	case MP_EV_FREE:
	case MP_EV_MMAP:
	case MP_EV_MUNMAP:
	case MP_EV_MREMAP:
	case MP_EV_THREAD_START:
	case MP_EV_THREAD_EXIT:
	case MP_EV_REGION_BEGIN:
	case MP_EV_REGION_END:
	case MP_EV_FORK:
	case MP_EV_AFFINITY:
	case MP_EV_MEMPOLICY:
	case MP_EV_MBIND:
	case MP_EV_MOVE_PAGES:
		return 1;
	default:
		return 0;
	}
}

/* Streams of one process in thread-creation order (tids grow as threads
 * are made; a reused tid keeps file order): ties in the replay's merge go
 * to the older thread, whatever order the threads' chunks reached the file. */
static int by_tid(const void *x, const void *y, void *arg)
{
	const struct an_state *st = arg;
	const struct an_stream *a = &st->streams.v[*(const uint32_t *)x], *b = &st->streams.v[*(const uint32_t *)y];
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	uint64_t oa = a->chunks.n ? a->chunks.v[0].off : 0, ob = b->chunks.n ? b->chunks.v[0].off : 0;
	return oa < ob ? -1 : oa > ob;
}

/* The merge's order of a process's streams: a binary heap of their places
 * in p->streams, the least (key, place) first: among the streams of the
 * least key, the one a scan in place order finds first. A stream is out
 * of it while it runs, and leaves it when done (key UINT64_MAX). */
struct merge_heap {
	uint32_t *at; /* places */
	uint64_t *key; /* by place */
	size_t n;
};

static inline int merge_before(const struct merge_heap *h, uint32_t a, uint32_t b)
{
	return h->key[a] != h->key[b] ? h->key[a] < h->key[b] : a < b;
}

static void merge_push(struct merge_heap *h, uint32_t place, uint64_t key)
{
	if (key == UINT64_MAX)
		return;
	h->key[place] = key;
	size_t i = h->n++;
	while (i && merge_before(h, place, h->at[(i - 1) / 2])) {
		h->at[i] = h->at[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->at[i] = place;
}

static uint32_t merge_pop(struct merge_heap *h)
{
	const uint32_t top = h->at[0], last = h->at[--h->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && merge_before(h, h->at[c + 1], h->at[c]))
			c++;
		if (!merge_before(h, h->at[c], last))
			break;
		h->at[i] = h->at[c];
		i = c;
	}
	if (h->n)
		h->at[i] = last;
	return top;
}

int an_replay_proc(struct an_state *st, uint32_t pi)
{
	struct an_proc *p = &st->procs.v[pi];
	size_t n = p->streams.n;
	int err = an_fork_inherit(st, pi);
	if (err)
		return err;
	if (n > 1)
		qsort_r(p->streams.v, n, sizeof(*p->streams.v), by_tid, st);
	struct merge_heap heap = { malloc((n + 1) * sizeof(*heap.at)), malloc((n + 1) * sizeof(*heap.key)), 0 };
	if (!heap.at || !heap.key) {
		free(heap.at);
		free(heap.key);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct an_stream *s = &st->streams.v[p->streams.v[i]];
		s->thread = an_thread_get(st, p->pid, s->tid & MP_TID_MASK); /* (a handlers' stream is its thread's) */
		if (!st->par)
			s->place = s->thread;
		s->replay_left =
			st->replay_on ? st->burst_on : 0; /* (a thread begins with a burst, as the recorder's) */
		mp_hashmap_init(&s->stack_ids);
		if (!s->ph)
			s->ph = an_ph_none; /* (the model's translations at hand, none yet) */
		if (cursor_load(st, s) <= 0) {
			s->done = 1;
			cursor_release(st, s);
		} else
			an_cursor_advance(st, s);
		merge_push(&heap, (uint32_t)i, cursor_key(s));
	}
	/* (a heap: a scan of every stream per pick costs threads times picks,
	 * most of a report of 20,000 short threads) */
	while (heap.n) {
		/* (every pick processes a whole run of same-epoch records) */
		const uint32_t place = merge_pop(&heap);
		struct an_stream *best = &st->streams.v[p->streams.v[place]];
		const uint64_t second = heap.n ? heap.key[heap.at[0]] : UINT64_MAX;
		/* run the chosen stream while it stays first */
		for (;;) {
			const struct trace_rec *r = &best->rec;
			if (r->cls == MP_REC_ACCESS) {
				if (!st->procs.v[pi].sym_loading)
					an_sym_load_ahead(st, pi);
				if (!best->replay_skipping)
					best->in_skip = 0;
				replay_accesses(st, best); /* leaves the next record pending */
				if (best->done || cursor_key(best) > second)
					break;
				continue;
			}
			switch (r->cls) {
			case MP_REC_EPOCH:
				if (r->epoch > best->epoch)
					best->epoch = r->epoch;
				break;
			case MP_REC_DROPPED:
				if (r->epoch > st->skip_max) {
					/* (scaled, a count near 2^63 overflowed every figure) */
					if (!best->warned) {
						best->warned = 1;
						st->res->damaged |= AN_DAMAGE_PARTIAL;
						an_warn(st,
							"thread %u: a skip of %llu accesses, over the trace's %llu: "
							"damaged, left out",
							best->tid & MP_TID_MASK, (unsigned long long)r->epoch,
							(unsigned long long)st->skip_max);
					}
					break;
				}
				st->res->skipped_accesses += r->epoch;
				best->skipped += r->epoch;
				best->bursts += !best->in_skip;
				best->in_skip = 1;
				/* (the next access goes to the model, repeat or not:
				 * mp_model_set_burst) */
				best->rep_again = 0;
				break;
			case MP_REC_TIME:
				best->cpu = (unsigned)r->f[1];
				break;
			case MP_REC_EVENT:
				if (event_has_cpu(r->event) && r->nf > 1)
					best->cpu = (unsigned)r->f[1];
				if (r->event != MP_EV_STACK_DEF) {
					/* samples are placed by time */
					an_samples_until(st, pi, r->f[0], r->event, r->epoch ? r->epoch - 1 : 0);
					an_fork_passed(st, pi, r->epoch - 1);
					if (r->epoch > best->epoch)
						best->epoch = r->epoch;
				}
				an_event_apply(st, best, r);
				if (st->opts->on_event && r->event != MP_EV_STACK_DEF)
					hook_event(st, best, r);
				if (st->numa)
					an_numa_event(st, best, r);
				break;
			default:
				break;
			}
			an_cursor_advance(st, best);
			uint64_t k = cursor_key(best);
			if (best->done || k > second)
				break;
		}
		merge_push(&heap, place, cursor_key(best));
		if (st->oom) {
			free(heap.at);
			free(heap.key);
			return -ENOMEM;
		}
	}
	free(heap.at);
	free(heap.key);
	an_samples_until(st, pi, UINT64_MAX, 0, 0);
	an_fork_passed(st, pi, UINT64_MAX);
	for (size_t i = 0; i < n; i++) {
		struct an_stream *s = &st->streams.v[p->streams.v[i]];
		flush_stream(st, s);
		an_model_stream_done(st, s);
		cursor_release(st, s);
		mp_hashmap_fini(&s->stack_ids);
	}
	/* its children's maps come from what an_fork_passed kept, and
	 * nothing reads it again: it goes, and its objects are live no longer */
	struct an_objmap *map = &st->procs.v[pi].map;
	st->objects_live = st->objects_live > map->live ? st->objects_live - map->live : 0;
	an_objmap_fini(map);
	an_objmap_init(map);
	return 0;
}

int an_replay_places(struct an_state *st, const uint32_t *order, size_t n)
{
	/* an_thread_get's numbering: a thread per (pid, tid), made as the
	 * serial replay reaches it, each process's streams in by_tid's order */
	struct mp_hashmap seen;
	mp_hashmap_init(&seen);
	uint32_t next = (uint32_t)st->threads.n;
	int err = 0;
	for (size_t k = 0; k < n && !err; k++) {
		struct an_proc *p = &st->procs.v[order[k]];
		if (p->streams.n > 1)
			qsort_r(p->streams.v, p->streams.n, sizeof(*p->streams.v), by_tid, st);
		for (size_t i = 0; i < p->streams.n && !err; i++) {
			struct an_stream *s = &st->streams.v[p->streams.v[i]];
			const uint64_t key = ((uint64_t)p->pid << 32 | (s->tid & MP_TID_MASK)) | 1ull << 63;
			const uint64_t *v = mp_hashmap_get(&st->thread_index, key);
			if (!v)
				v = mp_hashmap_get(&seen, key);
			if (v) {
				s->place = (uint32_t)*v;
			} else {
				s->place = next;
				err = mp_hashmap_put(&seen, key, next++) ? -ENOMEM : 0;
			}
		}
	}
	mp_hashmap_fini(&seen);
	return err;
}

static int by_fork(const void *x, const void *y, void *arg)
{
	const struct an_state *st = arg;
	const uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	const uint64_t ea = st->procs.v[a].fork_epoch, eb = st->procs.v[b].fork_epoch;
	return ea != eb ? (ea < eb ? -1 : 1) : (a > b) - (a < b);
}

/* Each process's children (parent: each one's parent or UINT32_MAX), in
 * the order of their forks: a replay passes them in turn (a scan of every
 * process at each event of a shell that ran 3,000 commands took a quarter
 * of its report). */
static int kids_make(struct an_state *st, const uint32_t *parent, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (parent[i] != UINT32_MAX)
			st->procs.v[parent[i]].nkids++;
	for (size_t i = 0; i < n; i++) {
		struct an_proc *p = &st->procs.v[i];
		if (p->nkids && !(p->kids = malloc(p->nkids * sizeof(*p->kids))))
			return -ENOMEM;
		p->nkids = 0;
	}
	for (size_t i = 0; i < n; i++) {
		st->procs.v[i].parent_at = parent[i];
		if (parent[i] != UINT32_MAX) {
			struct an_proc *p = &st->procs.v[parent[i]];
			p->kids[p->nkids++] = (uint32_t)i;
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct an_proc *p = &st->procs.v[i];
		if (p->nkids > 1)
			qsort_r(p->kids, p->nkids, sizeof(uint32_t), by_fork, st);
		for (uint32_t k = 0; k < p->nkids; k++)
			st->procs.v[p->kids[k]].kid_at = k;
	}
	return 0;
}

int an_replay_all(struct an_state *st)
{
	int err = an_index_chunks(st);
	/* (only the model and NUMA placement by recorded frames ask for a
	 * frame: a plain report of a shell loop's 1,000 commands built a
	 * table of 490 MB for none, a fifth of its time) */
	if (!err)
		err = an_phys_load(st, st->model || an_numa_wants_frames(st));
	if (!err)
		err = an_samples_assign(st);
	if (err)
		return err;
	/* parents before children: a child's start state is its parent's map */
	const size_t n = st->procs.n;
	size_t done = 0;
	uint8_t *seen = calloc(n + 1, 1);
	uint32_t *order = calloc(n + 1, sizeof(*order)), *parent = calloc(n + 1, sizeof(*parent));
	if (!seen || !order || !parent) {
		err = -ENOMEM;
		goto out;
	}
	int cycle = 0;
	for (size_t i = 0; i < n; i++) {
		const uint64_t *pv =
			st->procs.v[i].parent_id ? mp_hashmap_get(&st->proc_index, st->procs.v[i].parent_id | 1) : NULL;
		parent[i] = pv ? (uint32_t)*pv : UINT32_MAX;
	}
	if ((err = kids_make(st, parent, n)) != 0)
		goto out;
	while (done < n) {
		size_t before = done;
		for (size_t i = 0; i < n; i++) {
			if (seen[i] || (parent[i] != UINT32_MAX && !seen[parent[i]]))
				continue;
			seen[i] = 1;
			order[done++] = (uint32_t)i;
		}
		if (done == before) {
			/* a cycle can only come from corrupt ids: replay the rest as is */
			cycle = 1;
			for (size_t i = 0; i < n; i++)
				if (!seen[i]) {
					seen[i] = 1;
					order[done++] = (uint32_t)i;
				}
		}
	}
	if (!cycle && an_par_wanted(st)) {
		err = an_par_replay(st, order, parent, n);
		goto out;
	}
	for (size_t k = 0; k < n && !err; k++)
		if ((err = an_model_proc_begin(st)) == 0)
			err = an_replay_proc(st, order[k]);
out:
	free(seen);
	free(order);
	free(parent);
	return err;
}
