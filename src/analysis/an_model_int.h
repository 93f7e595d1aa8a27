/* SPDX-License-Identifier: MIT */
/* The model stage's own state (struct an_model) and what its files share:
 * an_model.c feeds the replay's accesses to src/model and counts their
 * outcomes; an_model_burst.c keeps burst sampling's bookkeeping (first
 * fills and walks found again, the footprint and its bounds, the
 * estimates made after the replay); an_model_pages.c hands the TLB view's
 * page rows to the result; an_lookahead.c prefetches what the model will
 * read. No file outside these includes it. */
#ifndef MP_AN_MODEL_INT_H
#define MP_AN_MODEL_INT_H

#include "analysis/an_int.h"
#include "common/varint.h"
#include "model/model.h"
#include "model/model_burst.h"
#include "model/model_par.h"

/* A page that missed the first-level DTLB: its row of the TLB view, kept
 * in an open-addressed table so that a miss costs one probe (most often one
 * host cache line) instead of an index lookup and then the row. */
struct page_row {
	uint64_t addr; /* page start (virtual) */
	uint64_t dtlb_misses, walks, walk_refs; /* dtlb_misses 0: empty slot */
	uint64_t once_dtlb, once_stlb; /* burst sampling: first walks found in the DTLB, STLB after skips */
	/* and first walks of the page seen in two bursts, and in one only
	 * (an_burst_tally.walk_unused, walk_single) */
	uint64_t once_unused, once_single;
	uint64_t last; /* an_model.page_tick when cls was seen */
	uint32_t proc, cls;
	uint32_t thread; /* burst sampling: the thread whose misses these are; else 0 */
	uint32_t order; /* rows are handed over in the order they were made */
	uint8_t shift;
};

/* burst sampling: a range of this many lines or more is a long one (an
 * initialisation's memset, say), counted apart per thread (an_bursts_apply
 * warns when such lines are much of a scaled thread's) */
#define AN_LONG_RANGE_LINES 64
/* burst sampling: accesses a window of bursts takes at least before the
 * first fills found again in it are judged by its rate of fills
 * (anm_burst_window) */
#define AN_WINDOW_ACCESSES 1000
/* the longest access the model takes, in bytes (model_access), unless
 * an_opts.max_model_range says otherwise */
#define AN_MODEL_RANGE_MAX (1ull << 40)
#define AN_SEEN_MAX_LOG2 27 /* an_model.seen: at most 16 MiB (an LLC of 2 GiB) */
#define AN_SEEN_SAMPLE 4 /* log2: 1 line in 16 (by hash) is marked */

/* The owner the model keeps with a line: who last wrote it, so that its
 * DRAM write goes to that object (under burst sampling, its part of the
 * writing thread), thread and code address. */
struct owner {
	uint32_t row; /* class, or part when st->parts_on */
	uint32_t thread;
	uint32_t fn; /* an_ip index + 1, 0: none */
};

/* Burst sampling: a tracked first fill's line found again (anm_on_first). */
enum { FOUND_LINE, FOUND_PAGE, FOUND_PT_LINE }; /* what first_found.walk found again */

struct first_found {
	uint32_t owner;
	uint8_t level, skips; /* level: MP_LVL_* for a line, MP_TLB_* for a page */
	uint8_t walk, shift; /* FOUND_*, and a page's (proc, page, shift) */
	uint32_t proc;
	uint64_t page;
};

struct an_model {
	/* the machine of the process being replayed: each process of the
	 * file runs on one of its own (an_model_proc_begin), but for burst
	 * sampling (shared), whose footprint estimates are the file's */
	struct mp_model *m;
	uint64_t fresh_seq; /* mp_model_seq of m as made: nothing ran on it yet */
	int shared;
	MP_VEC(struct owner) owners; /* the model's owner ids index this */
	struct mp_hashmap owner_index; /* hash of an owner (probed on) -> index */
	uint64_t sample_sets; /* set sampling: L2/LLC modelled for 1 set in this many (1: all) */
	uint64_t range_tail; /* set sampling: mp_model_range_tail_lines, 0 no skipping */
	int count_apart; /* set or burst sampling: references are counted by mem_count_apart */
	unsigned ncores, line_shift;
	uint64_t line;
	unsigned l1_lat, l1_bucket; /* an L1 hit's latency and its histogram bucket */
	unsigned lat[MP_LVL_COUNT]; /* mp_model_latency of each level */
	MP_VEC(uint8_t) cls_shift; /* class -> page shift, 0 not decided yet */
	/* class << 16 | what-if rule + 1, for each class a rule matched:
	 * before its site was judged (an_sites_may_match), so checked
	 * against its label at the end (an_model_pages) */
	MP_VEC(uint64_t) cls_rule;
	struct page_row *rows; /* linear probing, at most half full */
	size_t rows_cap, nrows; /* rows_cap: a power of two, or 0 */
	size_t rows_max; /* the file's bound (an_bound): pages past it get no row */
	int rows_warned;
	uint64_t page_tick; /* page_count calls */
	/* burst sampling: a bit per hashed line that missed L1 (every line's
	 * first reference does), for the footprint the bursts saw; only 1
	 * line in 2^AN_SEEN_SAMPLE (by hash) is marked. The footprint only
	 * matters while it may fit the LLC, so marking stops (and the bitmap
	 * goes) once the marks say twice the LLC: a bitmap sized for that
	 * stays in the host's caches (a 2 MiB one, a host cache miss a mark,
	 * cost 6% of a bounded arrays report). */
	uint64_t *seen;
	/* burst sampling: the pages of the data objects (heap, static, ...)
	 * the bursts touched, whole, and of the others the pages they
	 * touched, by linear counting as seen; span_over: past twice the
	 * LLC, or an object that big (an_model_span, span_touch) */
	uint64_t *span;
	unsigned span_log2;
	uint64_t span_marks, span_limit;
	int span_over;
	/* the same bound by core, in pages of the size each is modelled in,
	 * counted exactly up to the STLB's entries a core (wspan_over past
	 * them): whether the pages fit the STLBs, so that a page walk is a
	 * first one, and how many first walks there can be (pages x cores,
	 * as first walks are counted: an_model_walk_weight). The bound above,
	 * in 4 KiB pages up to twice the LLC, said no for 320 MiB in 2 MiB
	 * pages: walks came out 2-11x; by process, not core, it left no room
	 * for the first walks of the cores the bursts did not see: arrays'
	 * workers on the core where the main thread had not walked, -30%. */
	struct wspan_slot {
		uint64_t page;
		uint32_t proc;
		uint16_t core;
		uint8_t shift, used;
	} *wspan;
	size_t wspan_cap; /* a power of two, at least twice wspan_n */
	uint64_t wspan_n, wspan_limit, *wspan_core_n; /* pages in all, by core; a core's limit */
	int wspan_over;
	unsigned seen_log2; /* bits in seen: 1 << seen_log2 */
	uint64_t seen_marks, seen_limit; /* bits set; where marking stops */
	int seen_any; /* a line missed L1, marked or not */
	int seen_over; /* marking stopped: the footprint is over twice the LLC */
	size_t *rule_hits; /* per what-if rule: classes it matched */
	int hint_sets; /* the model's sets outgrow the host's caches: the lookahead hints them */
	int counting; /* the access being modelled is inside --roi */
	int left; /* writebacks are of lines left at the end (an_model_finish) */
	uint64_t range_max; /* the longest access it takes (AN_MODEL_RANGE_MAX) */
	int range_warned; /* a longer one was left out */
	/* burst sampling: first fills are tracked (anm_on_first); the burst the
	 * model was last told of; OFF, the accesses of a skip; the model's
	 * fills so far (sampled sets: each counts for all the sets), and
	 * where the current window of bursts began, in fills and accesses;
	 * the lines found again in it, to be judged at its end */
	int first_on;
	unsigned burst;
	double burst_on, burst_off;
	uint64_t fills, win_fills, win_accesses, walks, win_walks;
	MP_VEC(struct first_found) found;
	/* first fills and walks the model marked (mp_model_first_counts) up
	 * to the current window, and how many of them it reported found */
	uint64_t win_first_lines, win_first_pages, found_lines, found_pages;
	uint64_t seen_once, seen_twice; /* data lines seen in one, two bursts (an_model_finish) */
	/* the same per object class (st->classes index): Chao1 per class,
	 * summed, sees a big array streamed once beside a small one in use */
	struct cls_seen {
		uint64_t once, twice;
	} *cls_seen;
	size_t ncls_seen;
	uint64_t pages_once, pages_twice; /* pages (per core) seen in one, two bursts */
	/* the same by the thread of the walk (index thread + 1; 0: not
	 * known): a thread that skipped nothing saw its pages whole, and they
	 * stand for no unseen ones (an_model_walk_weight) */
	struct cls_seen *thread_pages;
	size_t nthread_pages;
	int left_failed; /* mp_model_first_left had no memory */
	/* burst sampling: each part's, thread's and code address's tally
	 * (an_model_tally), by row index, grown as rows are counted */
	struct tally_rows {
		struct an_burst_tally *v;
		size_t n;
	} tally[AN_TALLY_ROWS];
	double llc_filled; /* the LLC's sets that evicted, before the end's flush */
	struct an_stream *cur; /* the stream whose access is being modelled */
	struct an_state *st;
	/* an_opts.walk_checks' (an_model_checks.c); while there are some, m
	 * is not fed: every access goes to anm_checks_only */
	struct anm_check *checks;
	size_t nchecks;
	int checks_fed; /* the checks' machines have translated since made */
	/* the run's translations, for checks made afterwards
	 * (an_opts.log_translations; an_model_checks.c); dropped: one was
	 * not logged */
	struct an_tlog *tlog;
	int tlog_dropped;
	/* the model on several threads (an_opts.model_threads, an exact run:
	 * anm_par_decide in an_model_par.c), decided at the first reference;
	 * on three or more, m is not fed. Each submission's context waits in
	 * `pend` for its outcome, counted in submission order (par_take). */
	int par_decided;
	struct mp_model_par *par;
	/* two threads (mp_model_par_beside): m is the model, made on this
	 * thread (inline_on) or lent to the worker; which one pays is judged
	 * over each window of `window` references (win_refs so far, win_miss
	 * of them missing L1 or the DTLB) */
	int beside, inline_on;
	uint64_t window, win_refs, win_miss;
	uint64_t par_fresh; /* mp_model_par_seq of a cold machine */
	struct anm_pend *pend;
	uint64_t pend_head, pend_tail;
	struct an_mem par_range; /* a range's lines, counted apart until its end */
	uint32_t fast_thread, fast_cls; /* a run of L1 hits counted at once */
	uint64_t fast_n;
	/* the last submission, a one-line access, while the stream's accesses
	 * repeat it (an_model_repeat): n more so far, bit i of writes set for
	 * a store, sent on as mp_model_par_repeat's */
	struct anm_run {
		int ok;
		uint32_t fn, owner; /* (the function whose repeats gather now, and its owner) */
		int counted;
		unsigned n;
		uint64_t writes;
	} run;
	uint64_t par_seq; /* submissions, runs ended, cleans: what an_model_repeat checks */
};

#define AS_MAPPED 1 /* anm_class_shift: the page size the page was mapped with */
#define AN_SEEN_MUL 0x9e3779b97f4a7c15ull

/* thread: burst sampling keeps a page's rows per thread, which is scaled
 * by its own factor (an_model_pages); else 0 */
static inline size_t row_home(uint32_t proc, uint64_t page, unsigned shift, uint32_t thread, size_t cap)
{
	return mp_hash64(page ^ ((uint64_t)proc << 48) ^ ((uint64_t)shift << 58) ^ ((uint64_t)thread << 32)) &
	       (cap - 1);
}

/* The model's core of the stream's thread (as it is now). */
static inline unsigned stream_core(const struct an_state *st, const struct an_model *am, struct an_stream *s)
{
	if (s->core_of != s->cpu + 1) {
		/* the core changes only when the thread moves: no division per access */
		s->core_of = s->cpu + 1;
		s->core = (st->opts->thread_map == AN_MAP_SPREAD ? s->place : s->cpu) % am->ncores;
	}
	return s->core;
}

/* An object is in the bound whole, but for a stack, whose reservation
 * (8 MiB, or a thread's 512) is mostly never used: from the deepest
 * address the bursts touched to its top (span_touch); and for accesses to
 * no object, their pages. Counting only the pages touched of a file
 * mapping or a stack would put a 40 MiB file and 100 MiB of recursion in
 * 18 MiB that fits the LLC: -90% and -97% reads. */
static inline int span_whole(const struct an_state *st, uint32_t cls)
{
	enum an_kind k = cls < st->classes.n ? st->classes.v[cls].kind : AN_KIND_UNKNOWN;
	return k != AN_KIND_STACK && k != AN_KIND_UNKNOWN;
}

/* an_model.c */
/* The page size class cls is modelled in, as a shift, or AS_MAPPED. */
unsigned anm_class_shift(struct an_state *st, struct an_model *am, uint32_t cls);
/* The stream's slot for the page of a looked up afresh at time now (its
 * slots made first if need be; without memory, NULL and st->oom set). */
const struct an_ph_slot *anm_phys_fill(struct an_state *st, struct an_stream *s, uint64_t a, uint64_t now);
/* The stream's slot for the page of a, holding its translation at time
 * now (the replay's, or the lookahead's ahead of it: a slot's span of
 * time says when its answer holds, whoever asked). */
static inline const struct an_ph_slot *anm_phys_slot(struct an_state *st, struct an_stream *s, uint64_t a,
						     uint64_t now)
{
	const struct an_ph_slot *t = &s->ph[(a >> 12) & (AN_PH_SLOTS - 1)];
	return an_ph_holds(t, a, now) ? t : anm_phys_fill(st, s, a, now);
}
/* The frame of line address a as of the stream's time (0: none
 * recorded), and in *shift the page size it was mapped in when cshift is
 * AS_MAPPED (4 KiB without a frame). Inline: most are the stream's
 * translations at hand. */
static inline uint64_t anm_phys_of(struct an_state *st, struct an_stream *s, uint64_t a, unsigned cshift,
				   unsigned *shift)
{
	const struct an_ph_slot *t = anm_phys_slot(st, s, a, s->dec.time);
	if (!t)
		return 0;
	s->ph_last = (a >> 12) & (AN_PH_SLOTS - 1);
	/* (a page with no recorded frame: 4 KiB, not the size of the page
	 * before it in the same access) */
	if (cshift == AS_MAPPED)
		*shift = t->ok && (t->flags & (MP_PAGEMAP_THP | MP_PAGEMAP_HUGETLB)) ? 21 : 12;
	return an_ph_frame(t, a);
}
/* The page's row (page_count), NULL if it has none. */
struct page_row *anm_page_row_find(struct an_model *am, uint32_t proc, uint64_t addr, unsigned shift, uint32_t thread);

/* an_model_checks.c: page-walk what-ifs instead of the model
 * (an_opts.walk_checks; none under burst sampling). Init, and renew for
 * a process of its own (an_model_proc_begin): 0 or a negative errno. */
int anm_checks_init(struct an_state *st, struct an_model *am);
int anm_checks_renew(struct an_state *st, struct an_model *am);
void anm_checks_fini(struct an_model *am);
/* An access r of class cls to the checks alone (the run's model is not
 * fed while there are checks, so no repeat is answered without it): a
 * translation of each 4 KiB page it touches, in that page's size. */
void anm_checks_only(struct an_state *st, struct an_model *am, struct an_stream *s, uint32_t cls,
		     const struct trace_rec *r, int counted);
/* The checks' walks into an_result.check_walks: 0 or -ENOMEM. */
int anm_checks_result(struct an_state *st, const struct an_model *am);
/* The translation log (an_opts.log_translations): made at the model's
 * init, if asked; a process begins; a translation made by core for
 * stream s (addr's 4 KiB page, class cls, the page modelled in
 * 1 << shift bytes), am->tlog not NULL; dropped (the log
 * would not be whole: the checks replay); moved into the result at the
 * end; a process's state's folded into the file's. */
void anm_tlog_init(struct an_state *st, struct an_model *am);
void anm_tlog_proc(struct an_model *am);
void anm_tlog_add(struct an_state *st, struct an_model *am, const struct an_stream *s, uint32_t cls, unsigned core,
		  uint64_t addr, unsigned shift, int counted);
struct an_tlog;
static inline void anm_tlog_put(struct an_state *st, struct an_model *am, const struct an_stream *s, uint32_t cls,
				unsigned core, uint64_t addr, unsigned shift, int counted);
void anm_tlog_drop(struct an_model *am);
void anm_tlog_result(struct an_state *st, struct an_model *am);
void anm_tlog_fold(struct an_model *fm, struct an_model *am);

/* The log's format (an_model_checks.c writes it, an_checks.c reads it). */
#define TLOG_ESC 6
#define TLOG_PROC (TLOG_ESC | 0 << 4)
#define TLOG_CHANGE (TLOG_ESC | 1 << 4)
#define TLOG_MRU 4 /* classes an entry names by their place */
#define TLOG_MAX ((size_t)512 << 20) /* bytes of one state's log, beyond which it is dropped */

struct an_tlog {
	struct an_tlog *next; /* another state's (processes replayed at once) */
	MP_VEC(uint8_t) b;
	/* the classes' labels: a byte (1: with its calling context) and the
	 * text, NUL-terminated, for class i from cls.v[i] to cls.v[i + 1] */
	MP_VEC(char) text;
	MP_VEC(size_t) cls;
	/* while logging */
	uint64_t *cls_page; /* each class's last page (the deltas' base), cls.n of them */
	MP_VEC(uint32_t) of_cls; /* the state's class -> log class + 1 */
	uint32_t state_cls; /* the state's class of the last entry */
	uint64_t last_page; /* the last entry's (UINT64_MAX: none since a process began) */
	size_t room; /* b's bytes that may be written (b.cap, at most TLOG_MAX) */
	unsigned last_shift;
	uint32_t mru[TLOG_MRU]; /* the last classes, most recent (last_cls) first */
	uint32_t last_cls, last_core, last_space;
	int fresh; /* nothing logged since the start or the last process's */
};

/* The last classes of a log's entries, most recent first (its writer's
 * and reader's alike): the place of class c, TLOG_MRU if not there; and
 * c, at place j, to the front (a class not there: j = TLOG_MRU - 1, the
 * last goes). Spelt out: a loop of a varying count is a call to memmove. */
_Static_assert(TLOG_MRU == 4, "tlog_mru_front moves four places");
static inline unsigned tlog_mru_find(const uint32_t *m, uint32_t c)
{
	return m[0] == c ? 0 : m[1] == c ? 1 : m[2] == c ? 2 : m[3] == c ? 3 : TLOG_MRU;
}
static inline void tlog_mru_front(uint32_t *m, unsigned j, uint32_t c)
{
	if (j >= 3)
		m[3] = m[2];
	if (j >= 2)
		m[2] = m[1];
	if (j >= 1)
		m[1] = m[0];
	m[0] = c;
}

/* anm_tlog_add but for the page the entry before it translated, by the
 * same core, class and space in the same size: a check's DTLB hit that
 * changes nothing (most of a stream's references), not logged. */
static inline void anm_tlog_put(struct an_state *st, struct an_model *am, const struct an_stream *s, uint32_t cls,
				unsigned core, uint64_t addr, unsigned shift, int counted)
{
	struct an_tlog *l = am->tlog;
	const uint64_t page = addr >> 12;
	if (core == l->last_core && s->proc == l->last_space) {
		if (page == l->last_page && cls == l->state_cls && shift == l->last_shift)
			return;
		unsigned j = 0;
		if (cls != l->state_cls) {
			/* a class the log has, among the last four */
			if (cls >= l->of_cls.n || !l->of_cls.v[cls] || l->b.n + 16 > l->room)
				goto slow;
			const uint32_t lc = l->of_cls.v[cls] - 1;
			if ((j = tlog_mru_find(l->mru, lc)) == TLOG_MRU)
				goto slow;
			tlog_mru_front(l->mru, j, lc);
			l->last_cls = lc;
			l->state_cls = cls;
		}
		if (l->b.n + 16 <= l->room) {
			/* (the class, core and space of the entry before: its
			 * byte and the page's delta, anm_tlog_add's rest) */
			uint64_t *base = &l->cls_page[l->last_cls];
			const uint64_t zz = mp_zigzag((int64_t)(page - *base));
			*base = page;
			uint8_t *p = l->b.v + l->b.n;
			p[0] = (uint8_t)((counted ? 1 : 0) | (shift >= 30 ? 4 : shift >= 21 ? 2 : 0) | j << 3 |
					 (zz & 3) << 5 | (zz >> 2 ? 0x80 : 0));
			l->b.n = (size_t)((zz >> 2 ? mp_put_uv(p + 1, zz >> 2) : p + 1) - l->b.v);
			l->last_page = page;
			l->last_shift = shift;
			return;
		}
	}
slow:
	anm_tlog_add(st, am, s, cls, core, addr, shift, counted);
}


/* an_model_burst.c: burst sampling */
/* The model's callbacks (mp_model_track_same, mp_model_track_first,
 * mp_model_first_left); arg: the an_model. */
int anm_same_part(void *arg, uint32_t a, uint32_t b);
void anm_on_first(void *arg, uint32_t owner, unsigned level, unsigned skips, int walk);
void anm_on_first_walk(void *arg, uint32_t owner, unsigned tlb, unsigned skips, uint64_t page, unsigned shift);
void anm_on_left(void *arg, uint32_t owner, unsigned bursts, const struct mp_model_left_page *page);
/* The tallies an owner's burst bookkeeping goes to: its part's, thread's
 * and code address's (NULL: none), t[0..2]; t[0] NULL without memory
 * (st->oom set). Owners are parts only under burst sampling. */
void anm_owner_tallies(struct an_model *am, uint32_t owner, struct an_burst_tally *t[3]);
/* A window of bursts ends (last: the replay's end): the lines and pages
 * found again in it are judged by its rates. */
void anm_burst_window(struct an_state *st, struct an_model *am, int last);
/* Page pg of process proc into the footprint's bound. */
void anm_span_set(struct an_model *am, uint32_t proc, uint64_t pg);
/* Page pg (of 1 << shift bytes) of proc into core's walk bound; and the
 * pages of [lo, hi). */
void anm_wspan_add(struct an_model *am, uint32_t proc, unsigned core, unsigned shift, uint64_t pg);
void anm_wspan_range(struct an_model *am, uint32_t proc, unsigned core, unsigned shift, uint64_t lo, uint64_t hi);
/* The page size of class cls in the bounds, as a shift. */
unsigned anm_span_shift(struct an_state *st, struct an_model *am, uint32_t cls);

/* an_model.c's, for an_model_par.c */
__attribute__((noinline)) uint32_t anm_owner_find(struct an_state *st, struct an_model *am, struct an_stream *s,
						 uint32_t row, uint32_t fn, struct an_own_slot *slot);
/* The owner id of a line stream s references for class cls now (struct
 * owner), made on first use; MP_MODEL_NO_OWNER on ENOMEM (st->oom set).
 * Inline: every reference that goes to the model asks, and the stream's
 * cache answers nearly all. */
static inline __attribute__((always_inline)) uint32_t anm_owner_of(struct an_state *st, struct an_model *am,
								   struct an_stream *s, uint32_t cls)
{
	const uint32_t row = st->parts_on ? an_part_get(st, s, cls) : cls, fn = s->last_fn;
	/* (a 64-bit product's top bits: those of a 32-bit one took (0, 5)
	 * and (2, 7) to one slot, a third of allocheavy's lookups) */
	struct an_own_slot *slot =
		&s->ownc[(((uint64_t)row << 32 | fn) * 0x9e3779b97f4a7c15ull) >> 58 & (AN_OWN_CACHE - 1)];
	if (slot->own && slot->row == row && slot->fn == fn)
		return slot->own - 1;
	return anm_owner_find(st, am, s, row, fn, slot);
}

static inline __attribute__((always_inline)) void anm_mem_count(struct an_mem *m, const struct mp_model_out *o)
{
	m->refs++;
	m->level[o->level]++;
	m->tlb[o->tlb]++;
	m->dram_reads += o->level == MP_LVL_LOCAL_DRAM || o->level == MP_LVL_REMOTE_DRAM;
	m->remote += o->level == MP_LVL_REMOTE_DRAM || o->level == MP_LVL_REMOTE_CACHE;
	if (o->tlb == MP_TLB_WALK) {
		m->walks++;
		m->walk_refs += o->walk_refs;
		m->walk_dram += o->walk_dram;
	}
	m->latency_sum += o->latency;
	m->latency_n++;
	unsigned b = o->latency ? 31u - (unsigned)__builtin_clz(o->latency) : 0;
	m->latency_hist[b < AN_LAT_BUCKETS ? b : AN_LAT_BUCKETS - 1]++;
}

/* Field by field: a compound literal here became a `rep stos`, which cost
 * more than the rest of an L1 hit. */
static inline void anm_outcome_init(struct mp_outcome *o, unsigned page_shift)
{
	o->level = o->tlb = o->snoop = o->remote = o->locked = 0;
	o->page_shift = (uint8_t)page_shift;
	o->latency = 0;
	o->weight = 1;
}

void anm_page_count(struct an_state *st, struct an_model *am, uint32_t proc, uint32_t thread, uint64_t addr,
		    unsigned shift, uint32_t cls, const struct mp_model_out *o);
void anm_mem_add_fast(struct an_mem *m, const struct an_model *am, uint64_t n, uint64_t unk);
/* A long range: the page two ahead's translation slot and TLB row. */
void anm_range_prefetch(const struct an_state *st, const struct an_model *am, const struct an_stream *s, uint64_t a);

/* an_model_par.c: whether the run's references go to the model on threads
 * (am->par), decided at the first; the access, as model_access counts it;
 * an_model_clean's, an_model_proc_begin's and an_model_finish's parts. */
void anm_par_decide(struct an_state *st, struct an_model *am);
void anm_par_access(struct an_state *st, struct an_stream *s, uint32_t cls, const struct trace_rec *r, int counted,
		    struct mp_outcome *sum);
void anm_par_clean(struct an_state *st, struct an_model *am, int counted);
/* A repeat of the stream's last submission joins its run: 1, if counted
 * as that one is, from the same function; else 0. */
int anm_par_repeat(struct an_state *st, struct an_stream *s, int write, int counted);
int anm_par_renew(struct an_state *st, struct an_model *am);
void anm_par_finish(struct an_state *st, struct an_model *am);
/* Beside (am->beside): every reference this window (an_model_access's
 * count: an_opts.model_window, or ANM_PAR_WINDOW); the model back on this
 * thread (its outcomes all counted, its DRAM writes added), or lent
 * again, as the window's misses say. */
#define ANM_PAR_WINDOW (1u << 16)
void anm_par_window(struct an_state *st, struct an_model *am);
void anm_par_inline(struct an_state *st, struct an_model *am);
/* an_model.c: the model's writebacks counted on this thread again */
void anm_own_writebacks(struct an_model *am);
/* Whether m is this thread's to read now: no threads, or beside and
 * inline (else the workers have the model). */
static inline int anm_model_here(const struct an_model *am)
{
	return !am->par || am->inline_on;
}

#endif
