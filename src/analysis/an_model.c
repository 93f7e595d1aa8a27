// SPDX-License-Identifier: MIT
/*
 * The memory-system model fed by the replay: each attributed access is
 * split into cache-line references and run through src/model as its thread's
 * core would make it; the outcomes (hit level, TLB, walks, latency) add up
 * per object, thread and code address, DRAM writes go to the object that
 * dirtied the line, and every page that missed the first-level DTLB gets a
 * row of its own for the TLB view (PTAT's per-page miss distribution).
 *
 * The model sees every access, inside a --roi region or not (the caches
 * must be warm as they were), and counts only what --roi selects. Dirty
 * lines left in the caches when the program ends were never written to
 * DRAM during the run and are not counted.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_int.h"
#include "model/model.h"

/* A page that missed the first-level DTLB: its row of the TLB view, kept
 * in an open-addressed table so that a miss costs one probe (most often one
 * host cache line) instead of an index lookup and then the row. */
struct page_row {
	uint64_t addr; /* page start (virtual) */
	uint64_t dtlb_misses, walks, walk_refs; /* dtlb_misses 0: empty slot */
	uint64_t once_dtlb, once_stlb; /* burst sampling: first walks found in the DTLB, STLB after skips */
	/* and first walks of the page seen in two bursts, and in one only
	 * (an_mem.walk_unused, walk_single) */
	uint64_t once_unused, once_single;
	uint64_t last; /* an_model.page_tick when cls was seen */
	uint32_t proc, cls;
	uint32_t thread; /* burst sampling: the thread whose misses these are; else 0 */
	uint32_t order; /* rows are handed over in the order they were made */
	uint8_t shift;
};

/* burst sampling: a range of this many lines or more is a long one (an
 * initialisation's memset, say), counted apart per thread (an_result_sampling
 * warns when such lines are much of a scaled thread's) */
#define AN_LONG_RANGE_LINES 64
/* burst sampling: accesses a window of bursts takes at least before the
 * first fills found again in it are judged by its rate of fills
 * (burst_window) */
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

/* Burst sampling: a tracked first fill's line found again (on_first). */
enum { FOUND_LINE, FOUND_PAGE, FOUND_PT_LINE }; /* what first_found.walk found again */

struct first_found {
	uint32_t owner;
	uint8_t level, skips; /* level: MP_LVL_* for a line, MP_TLB_* for a page */
	uint8_t walk, shift; /* FOUND_*, and a page's (proc, page, shift) */
	uint32_t proc;
	uint64_t page;
};

struct an_model {
	struct mp_model *m;
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
	/* burst sampling: first fills are tracked (on_first); the burst the
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
	double llc_filled; /* the LLC's sets that evicted, before the end's flush */
	struct an_stream *cur; /* the stream whose access is being modelled */
	struct an_state *st;
};

/* The owner id of a line stream s references for class cls now (struct
 * owner), made on first use; MP_MODEL_NO_OWNER on ENOMEM (st->oom set). */
static uint32_t owner_of(struct an_state *st, struct an_model *am, struct an_stream *s, uint32_t cls)
{
	const uint32_t row = st->parts_on ? an_part_get(st, s, cls) : cls, fn = s->last_fn;
	/* (a 64-bit product's top bits: those of a 32-bit one took (0, 5)
	 * and (2, 7) to one slot, a third of allocheavy's lookups) */
	struct an_own_slot *slot =
		&s->ownc[(((uint64_t)row << 32 | fn) * 0x9e3779b97f4a7c15ull) >> 58 & (AN_OWN_CACHE - 1)];
	if (slot->own && slot->row == row && slot->fn == fn)
		return slot->own - 1;
	if (row == UINT32_MAX)
		return MP_MODEL_NO_OWNER;
	const struct owner want = { row, s->thread, fn };
	uint64_t key = mp_hash64(((uint64_t)s->thread << 32 | row) ^ mp_hash64((uint64_t)fn + 1)) | 1;
	uint64_t *v;
	/* probe on past another owner with the same hash */
	while ((v = mp_hashmap_get(&am->owner_index, key))) {
		const struct owner *o = &am->owners.v[*v];
		if (o->row == row && o->thread == want.thread && o->fn == fn)
			break;
		key = mp_hash64(key) | 1;
	}
	uint32_t idx;
	if (v) {
		idx = (uint32_t)*v;
	} else {
		if (am->owners.n >= MP_MODEL_NO_OWNER || mp_vec_push(&am->owners, want) ||
		    mp_hashmap_put(&am->owner_index, key, am->owners.n - 1)) {
			st->oom = 1;
			return MP_MODEL_NO_OWNER;
		}
		idx = (uint32_t)(am->owners.n - 1);
	}
	*slot = (struct an_own_slot){ row, fn, idx + 1 };
	return idx;
}

/* The rows of owner's reference: its object's part of its thread, its
 * thread, its code address (NULL: none). */
static void owner_rows(struct an_state *st, const struct an_model *am, uint32_t owner, struct an_mem *rows[3])
{
	const struct owner *ow = &am->owners.v[owner];
	rows[0] = &st->parts.v[ow->row].mem;
	rows[1] = &st->threads.v[ow->thread].mem;
	rows[2] = ow->fn ? &st->ips.v[ow->fn - 1].mem : NULL;
}

/* A DRAM write of a line whose owner (owner_of) last wrote it: charged to
 * that object, thread and code address; under burst sampling the object's
 * row is the writing thread's part, so the write is scaled by that thread's
 * factor, not by that of the thread whose access evicted the line. */
static void on_writeback(void *arg, uint32_t owner, uint64_t line, int physical)
{
	struct an_model *am = arg;
	struct an_state *st = am->st;
	if (owner >= am->owners.n)
		return; /* MP_MODEL_NO_OWNER: a paging-structure line */
	const struct owner *ow = &am->owners.v[owner];
	uint32_t cls = st->parts_on ? st->parts.v[ow->row].cls : ow->row;
	if (st->opts->on_dram && am->cur) {
		struct an_dram d = { .proc = am->cur->proc,
				     .thread = am->cur->thread,
				     .cls = cls,
				     .vaddr = line,
				     .time = am->cur->dec.time,
				     .write = 1,
				     .counted = am->counting };
		if (physical) {
			/* a physical line: its virtual address from the reverse page table */
			uint32_t pid;
			d.paddr = line;
			d.vaddr = 0;
			if (an_phys_reverse(st, line, d.time, &pid, &d.vaddr))
				for (size_t i = 0; i < st->procs.n; i++)
					if (st->procs.v[i].pid == pid)
						d.proc = (uint32_t)i;
		}
		st->opts->on_dram(st->opts->hook_arg, &d);
	}
	if (!am->counting)
		return;
	if (am->left) { /* (only under burst sampling: parts are on) */
		const int turned = mp_model_wb_turned(am->m);
		struct an_mem *rows[3];
		owner_rows(st, am, owner, rows);
		for (int r = 0; r < 3 && rows[r]; r++)
			*(turned ? &rows[r]->dram_writes_left : &rows[r]->dram_writes_left_p) += 1;
		return;
	}
	/* (scaled by an_model_scale_sets when sampling sets) */
	st->threads.v[ow->thread].mem.dram_writes++;
	if (ow->fn)
		st->ips.v[ow->fn - 1].mem.dram_writes++;
	if (st->parts_on) {
		st->parts.v[ow->row].mem.dram_writes++; /* the total is the parts' sum (an_result_sampling) */
		return;
	}
	st->classes.v[cls].mem.dram_writes++;
	st->res->mem_total.dram_writes++;
}

/* Burst sampling: a line whose first fill the model tracked was found
 * again in a later burst (mp_model_track_first): if it was in use in its
 * burst, judged when the window of bursts it was found in ends
 * (burst_window); if not (skips 0), counted as seen in two bursts, which
 * an_result_sampling takes as one fill where the footprint fits the LLC. */
/* Two owners of one part (object and thread): a fill one of them counted
 * the other may take back (mp_model_track_same). */
static int same_part(void *arg, uint32_t a, uint32_t b)
{
	const struct an_model *am = arg;
	return a < am->owners.n && b < am->owners.n && am->owners.v[a].row == am->owners.v[b].row;
}

static void on_first(void *arg, uint32_t owner, unsigned level, unsigned skips, int walk)
{
	struct an_model *am = arg;
	if (!skips) {
		/* a line seen in a second burst, not in use in its first */
		struct an_mem *rows[3];
		if (am->counting && owner < am->owners.n) {
			owner_rows(am->st, am, owner, rows);
			for (int r = 0; r < 3 && rows[r]; r++)
				rows[r]->first_unused++; /* (in modelled misses, as once[]) */
		}
		return;
	}
	am->found_lines += !walk; /* (the window's rate counts data lines' fills) */
	if (!am->counting || owner >= am->owners.n)
		return;
	struct first_found f = { owner, (uint8_t)level, (uint8_t)skips, walk ? FOUND_PT_LINE : FOUND_LINE, 0, 0, 0 };
	if (mp_vec_push(&am->found, f))
		am->st->oom = 1;
}

/* The same for a page's first walk (the owner: the reference that found
 * it again), judged with the walks' rate over the STLB's sets and ways;
 * its rows take back f - 1 of the walk as a DTLB or STLB hit, and so does
 * its row of the TLB view (pages_per_thread_merge). */
static void walk_seen(struct an_model *am, uint32_t owner, uint32_t proc, uint64_t page, unsigned shift,
		      int single);

static void on_first_walk(void *arg, uint32_t owner, unsigned tlb, unsigned skips, uint64_t page, unsigned shift)
{
	struct an_model *am = arg;
	if (!skips) {
		/* a page seen in a second burst, not in use in its first */
		if (am->counting && owner < am->owners.n && am->cur)
			walk_seen(am, owner, am->cur->proc, page, shift, 0);
		return;
	}
	am->found_pages++;
	if (!am->counting || owner >= am->owners.n || !am->cur)
		return;
	struct first_found f = { owner, (uint8_t)tlb, (uint8_t)skips, FOUND_PAGE, (uint8_t)shift, am->cur->proc, page };
	if (mp_vec_push(&am->found, f))
		am->st->oom = 1;
}

/*
 * Burst sampling: a line's first fill from DRAM, scaled by its thread's
 * factor f, stands for f fills. Where lines come and go that is the
 * estimate; but a line that stays cached and in use (a small footprint
 * in a long loop: evloop's 65 lines, allocheavy's reused heap) is filled
 * once in a full run, and the skipped accesses between bursts would have
 * hit it: evloop's 65 fills came out as 650, allocheavy's 19K as 145K.
 * The model reports a first fill whose line was referenced again in its
 * burst and found cached in a later one (on_first). The model saw none
 * of the skips' traffic, which the full run had: at the rate of fills of
 * the bursts it was found in (per access, times a skip's accesses, over
 * the LLC's sets), the line stayed if the skips since its burst brought
 * its set under half its ways in new lines. Then its owner's rows take
 * f - 1 of the fill back, as hits at the level it was found in
 * (an_mem.once, applied by an_model_scale_sets). Lines seen in one burst
 * only, or found where fills keep coming (randacc: 12 a set a skip over
 * 32 MiB; arrays' next pass, 8 skips on), stay scaled: they stand for
 * the like lines of the skips. The rate is that of the bursts after the
 * skips, not before: a program's first burst fills its whole footprint;
 * and of their first fills it counts only the share not found again.
 */
/* The page's row (page_count), NULL if it has none. */
static struct page_row *page_row_find(struct an_model *am, uint32_t proc, uint64_t addr, unsigned shift,
				      uint32_t thread);

static void burst_window(struct an_state *st, struct an_model *am, int last)
{
	/* (the streams' counts go to the totals when they end) */
	uint64_t accesses = st->res->total.loads + st->res->total.stores;
	for (size_t i = 0; i < st->streams.n; i++) {
		const struct an_stream *s = &st->streams.v[i];
		accesses += s->sum.loads + s->sum.stores + s->run.loads + s->run.stores;
	}
	uint64_t n = accesses - am->win_accesses;
	if (!last && n < AN_WINDOW_ACCESSES)
		return; /* (threads take turns: a window of a few accesses says little) */
	const struct mp_machine *mm = st->opts->machine;
	uint64_t first_lines, first_pages;
	mp_model_first_counts(am->m, &first_lines, &first_pages);
	/* The window's first fills are the sample's: a line's first in the
	 * full run may have come in a skip long before. Those found again
	 * later (so far, the share r of all) were referenced more than once,
	 * and most likely before their burst: they count as traffic only by
	 * 1 - r (allocheavy: a window's 67 walks, nearly all first ones, sent
	 * 603 into the skip, 4.7 a set, and its pages went back unjudged). */
	double sets = (double)mm->llc.size / mm->line / mm->llc.ways * mm->sockets;
	double r = first_lines ? fmin(1.0, (double)am->found_lines / (double)first_lines) : 0;
	double fills = (double)(am->fills - am->win_fills) -
		       r * (double)((first_lines - am->win_first_lines) * am->sample_sets);
	double skip_fills = n ? fmax(fills, 0) / (double)n * am->burst_off / sets : 0;
	/* pages: the same with walks, into the STLB (or, without one, the
	 * 4 KiB DTLB) */
	const struct mp_tlb_geom *tg = mm->stlb.entries ? &mm->stlb : &mm->dtlb[MP_PAGE_4K];
	unsigned tways = tg->ways ? tg->ways : tg->entries;
	double tsets = tg->entries ? (double)tg->entries / tways : 1;
	r = first_pages ? fmin(1.0, (double)am->found_pages / (double)first_pages) : 0;
	double walks = (double)(am->walks - am->win_walks) - r * (double)(first_pages - am->win_first_pages);
	double skip_walks = n ? fmax(walks, 0) / (double)n * am->burst_off / tsets : 0;
	for (size_t i = 0; i < am->found.n; i++) {
		const struct first_found *f = &am->found.v[i];
		/* A paging-structure line serves the walks of all its pages
		 * (randacc's: 8 pages of 8,192 lines' worth, one a walk): one in
		 * use in its burst stays in use through the skips, and stays
		 * cached if no more than half its set's ways fill between two
		 * uses, at most a burst apart (randacc, skips of 900K: 173K walk
		 * references from DRAM for 17K in full). */
		if (f->walk == FOUND_PAGE      ? skip_walks * f->skips >= tways / 2.0
		    : f->walk == FOUND_PT_LINE ? skip_fills * am->burst_on / am->burst_off >= mm->llc.ways / 2.0
					       : skip_fills * f->skips >= mm->llc.ways / 2.0) {
			/* (seen in two bursts all the same: one fill where the
			 * footprint fits the LLC, an_result_sampling) */
			struct an_mem *rows[3];
			owner_rows(st, am, f->owner, rows);
			for (int r = 0; r < 3 && rows[r] && f->walk == FOUND_LINE; r++)
				rows[r]->first_unused++;
			if (f->walk == FOUND_PAGE)
				walk_seen(am, f->owner, f->proc, f->page, f->shift, 0);
			continue;
		}
		const struct owner *ow = &am->owners.v[f->owner];
		struct an_mem *rows[3];
		owner_rows(st, am, f->owner, rows);
		if (f->walk == FOUND_PT_LINE) {
			/* (under set sampling a sampled walk load's DRAM read
			 * counted sample_sets times: mem_count_sampled) */
			for (int r = 0; r < 3 && rows[r]; r++)
				rows[r]->once_walk_dram += am->sample_sets;
			continue;
		}
		if (f->walk == FOUND_PAGE) {
			const int stlb = f->level == MP_TLB_L2_HIT;
			for (int r = 0; r < 3 && rows[r]; r++)
				rows[r]->once_walk[stlb]++;
			struct page_row *pr =
				am->rows_cap ? page_row_find(am, f->proc, f->page, f->shift, ow->thread) : NULL;
			if (pr) {
				pr->once_dtlb += !stlb;
				pr->once_stlb += stlb;
			}
			continue;
		}
		const unsigned at = f->level == MP_LVL_L1 ? 0 : f->level == MP_LVL_L2 ? 1 : 2;
		for (int r = 0; r < 3 && rows[r]; r++) {
			rows[r]->once[at]++;
			rows[r]->once_lat += am->lat[MP_LVL_LOCAL_DRAM] - am->lat[f->level];
		}
	}
	am->found.n = 0;
	am->win_accesses = accesses;
	am->win_fills = am->fills;
	am->win_walks = am->walks;
	am->win_first_lines = first_lines;
	am->win_first_pages = first_pages;
}

int an_model_init(struct an_state *st)
{
	if (!st->opts->machine)
		return 0;
	struct an_model *am = calloc(1, sizeof(*am));
	if (!am)
		return -ENOMEM;
	am->m = mp_model_new(st->opts->machine);
	if (!am->m) {
		int e = -errno;
		free(am);
		return e;
	}
	am->sample_sets = 1;
	if (st->opts->sample_sets > 1) {
		char err[160];
		int e = mp_model_sample_sets(am->m, st->opts->sample_sets, err, sizeof(err));
		if (e) {
			an_warn(st, "--sample-sets: %s", err);
			mp_model_free(am->m);
			free(am);
			return e;
		}
		am->sample_sets = st->opts->sample_sets;
		st->res->mem_sample_sets = st->opts->sample_sets;
	}
	am->range_tail = mp_model_range_tail_lines(am->m);
	am->range_max = st->opts->max_model_range ? st->opts->max_model_range : AN_MODEL_RANGE_MAX;
	am->hint_sets = mp_model_set_bytes(am->m) >= AN_AHEAD_SET_BYTES;
	am->ncores = mp_model_ncores(am->m);
	am->line = st->opts->machine->line;
	while ((1ull << am->line_shift) < am->line)
		am->line_shift++;
	am->l1_lat = st->opts->machine->l1d.latency;
	for (unsigned i = 0; i < MP_LVL_COUNT; i++)
		am->lat[i] = mp_model_latency(am->m, i);
	am->l1_bucket = am->l1_lat ? 31u - (unsigned)__builtin_clz(am->l1_lat) : 0;
	if (am->l1_bucket >= AN_LAT_BUCKETS)
		am->l1_bucket = AN_LAT_BUCKETS - 1;
	am->rule_hits = calloc(st->opts->npage_rules + 1, sizeof(*am->rule_hits));
	if (!am->rule_hits) {
		mp_model_free(am->m);
		free(am);
		return -ENOMEM;
	}
	am->count_apart = am->sample_sets > 1 || st->parts_on;
	am->rows_max = an_bound(st, AN_PAGE_ROWS_FLOOR, AN_PAGE_ROWS_PER_KIB);
	if (st->parts_on) {
		/* twice the LLC's lines, of which 1 in 2^AN_SEEN_SAMPLE marked,
		 * in a bitmap 16 times that (linear counting stays within ~1%) */
		const struct mp_machine *mm = st->opts->machine;
		uint64_t limit = (2 * (mm->llc.size / mm->line) >> AN_SEEN_SAMPLE) + 1;
		am->seen_log2 = 12;
		while (am->seen_log2 < AN_SEEN_MAX_LOG2 && (1ull << am->seen_log2) < 16 * limit)
			am->seen_log2++;
		am->seen_limit = limit < (1ull << am->seen_log2) / 16 ? limit : (1ull << am->seen_log2) / 16;
		am->seen = an_table_calloc((size_t)1 << (am->seen_log2 - 6), sizeof(uint64_t));
		/* the same for the objects' pages, all marked */
		am->span_limit = 2 * (mm->llc.size >> 12) + 1;
		am->span_log2 = 12;
		while (am->span_log2 < AN_SEEN_MAX_LOG2 && (1ull << am->span_log2) < 16 * am->span_limit)
			am->span_log2++;
		am->span = an_table_calloc((size_t)1 << (am->span_log2 - 6), sizeof(uint64_t));
		if (!am->span)
			am->span_over = 1; /* (no bound: nothing is weighed) */
		const uint64_t entries = mm->stlb.entries ? mm->stlb.entries : mm->dtlb[MP_PAGE_4K].entries;
		am->wspan_limit = entries + 1;
		for (am->wspan_cap = 64; am->wspan_cap < 2 * am->wspan_limit; am->wspan_cap *= 2)
			;
		am->wspan = an_table_calloc(am->wspan_cap, sizeof(*am->wspan));
		am->wspan_core_n = calloc(am->ncores, sizeof(*am->wspan_core_n));
		if (!am->wspan || !am->wspan_core_n) {
			free(am->wspan);
			am->wspan = NULL;
			am->wspan_over = 1;
		}
	}
	/* (not under --roi, where the fill may have been counted and the hit
	 * not, nor with a NUMA placement, which makes fills remote after the
	 * model has called them local) */
	am->burst_on = (double)st->burst_on;
	am->burst_off = (double)st->burst_off;
	am->first_on = st->burst_on && st->burst_off && !st->opts->roi && !st->opts->numa;
	if (am->first_on)
		mp_model_track_same(am->m, same_part);
	if ((st->parts_on && !am->seen) || (am->first_on && mp_model_track_first(am->m, on_first, on_first_walk, am))) {
		free(am->seen);
		free(am->span);
		free(am->wspan);
		mp_model_free(am->m);
		free(am->rule_hits);
		free(am);
		return -ENOMEM;
	}
	mp_hashmap_init(&am->owner_index);
	am->st = st;
	mp_model_set_writeback(am->m, on_writeback, am);
	st->model = am;
	st->model_rep = (struct an_model_rep){ ~(am->line - 1), mp_model_seq(am->m) };
	st->res->mem_origin = AN_MEM_MODELLED;
	return 0;
}

void an_model_fini(struct an_state *st)
{
	struct an_model *am = st->model;
	if (!am)
		return;
	mp_model_free(am->m);
	free(am->rule_hits);
	mp_vec_free(&am->cls_shift);
	mp_vec_free(&am->cls_rule);
	mp_vec_free(&am->owners);
	mp_vec_free(&am->found);
	mp_hashmap_fini(&am->owner_index);
	free(am->seen);
	free(am->span);
	free(am->wspan);
	free(am->wspan_core_n);
	free(am->cls_seen);
	free(am->thread_pages);
	free(am->rows);
	free(am);
	st->model = NULL;
}

#define AS_MAPPED 1 /* class_shift: the page size the page was mapped with */

uint64_t an_model_footprint(const struct an_state *st)
{
	const struct an_model *am = st->model;
	if (!am)
		return 0;
	if (am->seen_over)
		return UINT64_MAX; /* (over twice the LLC: no more is told) */
	if (!am->seen)
		return 0;
	uint64_t set = am->seen_marks;
	if (!set)
		return am->seen_any; /* a few lines, none of them marked */
	/* linear counting: distinct marked = -m ln(empty / m), and the marked
	 * lines are 1 in 2^AN_SEEN_SAMPLE of them */
	double m = (double)(1ull << am->seen_log2);
	return (uint64_t)(-m * log((m - (double)set) / m) * (1u << AN_SEEN_SAMPLE) + 0.5);
}

/* The page size of a class: the first what-if rule whose pattern is in its
 * label, else the --pages default, else AS_MAPPED (4 KiB, or 2 MiB for pages
 * the pagemap recorded in a transparent huge page). Heap classes are
 * labelled here, early, for it. */
static unsigned class_shift(struct an_state *st, struct an_model *am, uint32_t cls)
{
	while (am->cls_shift.n <= cls)
		if (mp_vec_push(&am->cls_shift, 0)) {
			st->oom = 1;
			return 12;
		}
	uint8_t s = am->cls_shift.v[cls];
	if (s)
		return s;
	const struct an_opts *o = st->opts;
	s = (uint8_t)(o->page_shift ? o->page_shift : AS_MAPPED);
	for (size_t i = 0; i < o->npage_rules; i++)
		if (an_sites_may_match(st, cls, o->page_rules[i].pattern)) {
			s = (uint8_t)o->page_rules[i].shift;
			am->rule_hits[i]++;
			if (mp_vec_push(&am->cls_rule, ((uint64_t)cls << 16) | (i + 1)))
				st->oom = 1;
			break;
		}
	am->cls_shift.v[cls] = s;
	return s;
}

/* thread: burst sampling keeps a page's rows per thread, which is scaled
 * by its own factor (an_model_pages); else 0 */
static size_t row_home(uint32_t proc, uint64_t page, unsigned shift, uint32_t thread, size_t cap)
{
	return mp_hash64(page ^ ((uint64_t)proc << 48) ^ ((uint64_t)shift << 58) ^ ((uint64_t)thread << 32)) &
	       (cap - 1);
}

static size_t row_home_of(const void *e, size_t cap)
{
	const struct page_row *r = e;
	return row_home(r->proc, r->addr >> r->shift, r->shift, r->thread, cap);
}

static int row_used(const void *e)
{
	return ((const struct page_row *)e)->dtlb_misses != 0;
}

static void page_count(struct an_state *st, struct an_model *am, uint32_t proc, uint32_t thread, uint64_t addr,
		       unsigned shift, uint32_t cls, const struct mp_model_out *o)
{
	uint64_t page = addr >> shift;
	if (am->nrows >= am->rows_max) {
		/* (a chunk of one record repeated, each a page further, made
		 * 20 M rows in a 4 MB file) */
		struct page_row *r = page_row_find(am, proc, addr, shift, thread);
		if (!r) {
			st->res->damaged |= AN_DAMAGE_PARTIAL;
			if (!am->rows_warned++)
				an_warn(st,
					"TLB misses on more than %zu pages, more than a file of %llu bytes can hold (a "
					"damaged file?): the later pages have no row of their own",
					am->rows_max, (unsigned long long)st->file_bytes);
			return;
		}
	}
	if ((am->nrows + 1) * 2 > am->rows_cap) {
		size_t ncap = am->rows_cap ? am->rows_cap * 2 : 1024;
		struct page_row *nr = an_table_regrow(am->rows, am->rows_cap, ncap, sizeof(*nr), row_home_of, row_used);
		if (!nr) {
			st->oom = 1;
			return;
		}
		free(am->rows);
		am->rows = nr;
		am->rows_cap = ncap;
	}
	size_t i = row_home(proc, page, shift, thread, am->rows_cap);
	struct page_row *r;
	for (;; i = (i + 1) & (am->rows_cap - 1)) {
		r = &am->rows[i];
		if (!r->dtlb_misses) {
			*r = (struct page_row){ .addr = page << shift,
						.proc = proc,
						.thread = thread,
						.order = (uint32_t)am->nrows++,
						.shift = (uint8_t)shift };
			break;
		}
		if (r->addr == page << shift && r->proc == proc && r->shift == shift && r->thread == thread)
			break;
	}
	r->dtlb_misses++;
	r->walks += o->tlb == MP_TLB_WALK;
	r->walk_refs += o->walk_refs;
	r->cls = cls; /* the latest object on the page */
	r->last = ++am->page_tick;
}

static struct page_row *page_row_find(struct an_model *am, uint32_t proc, uint64_t addr, unsigned shift,
				      uint32_t thread)
{
	uint64_t page = addr >> shift;
	for (size_t i = row_home(proc, page, shift, thread, am->rows_cap);; i = (i + 1) & (am->rows_cap - 1)) {
		struct page_row *r = &am->rows[i];
		if (!r->dtlb_misses)
			return NULL;
		if (r->addr == page << shift && r->proc == proc && r->shift == shift && r->thread == thread)
			return r;
	}
}

static inline __attribute__((always_inline)) void mem_count(struct an_mem *m, const struct mp_model_out *o)
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

/* mem_count under set sampling. L1 is modelled for every line, so its hits
 * count as in a full run; an L1 miss of a sampled line counts in full and
 * apart (miss_*), one of a line outside the sample only as unmodelled, and
 * an_model_finish scales each row's modelled misses up to all its misses.
 * A walk load outside the sample that misses L1 never reaches DRAM in the
 * model, and walk loads fall evenly in and out of the sample (page tables
 * are dense), so walk_dram is scaled by n here. (Apart from mem_count,
 * whose plain increments a full run keeps: a weighted form cost it 5%.) */
static void mem_count_sampled(struct an_mem *m, const struct mp_model_out *o, uint64_t n)
{
	m->refs++;
	m->tlb[o->tlb]++;
	if (o->tlb == MP_TLB_WALK) {
		m->walks++;
		m->walk_refs += o->walk_refs;
		m->walk_dram += n * o->walk_dram;
	}
	if (o->level == MP_LVL_UNKNOWN) {
		m->miss_unmodelled++;
		return;
	}
	m->level[o->level]++;
	m->dram_reads += o->level == MP_LVL_LOCAL_DRAM || o->level == MP_LVL_REMOTE_DRAM;
	m->remote += o->level == MP_LVL_REMOTE_DRAM || o->level == MP_LVL_REMOTE_CACHE;
	m->latency_sum += o->latency;
	m->latency_n++;
	unsigned b = o->latency ? 31u - (unsigned)__builtin_clz(o->latency) : 0;
	b = b < AN_LAT_BUCKETS ? b : AN_LAT_BUCKETS - 1;
	m->latency_hist[b]++;
	if (o->level != MP_LVL_L1) {
		m->miss_modelled++;
		m->miss_latency_sum += o->latency;
		m->miss_latency_hist[b]++;
	}
}

/*
 * The estimate of a row under set sampling: its modelled misses' figures
 * (levels beyond L1, DRAM reads and writes, their latencies) times all its
 * L1 misses over its modelled ones -- a ratio estimator per row, rather
 * than a flat n, so that an object whose lines fall unevenly in the sample
 * (a stride of a multiple of n lines: every line in it, or none) is scaled
 * by its own share. L1 hits are exact. A row none of whose misses was
 * modelled keeps zeros there: nothing is known of them.
 */
static void mem_scale_sampled(struct an_mem *m)
{
	if (!m->miss_modelled || !m->miss_unmodelled)
		return;
	double f = (double)(m->miss_modelled + m->miss_unmodelled) / (double)m->miss_modelled;
#define AN_SCALE(x) ((x) = (uint64_t)((double)(x) * f + 0.5))
	for (int i = 0; i < MP_LVL_COUNT; i++)
		if (i != MP_LVL_L1)
			AN_SCALE(m->level[i]);
	AN_SCALE(m->dram_reads);
	AN_SCALE(m->dram_writes);
	AN_SCALE(m->remote);
#undef AN_SCALE
	/* the misses' part of the latency figures: f - 1 times more of it */
	double g = f - 1.0;
	m->latency_sum += (uint64_t)((double)m->miss_latency_sum * g + 0.5);
	m->latency_n += (uint64_t)((double)m->miss_modelled * g + 0.5);
	for (int i = 0; i < AN_LAT_BUCKETS; i++)
		m->latency_hist[i] += (uint64_t)((double)m->miss_latency_hist[i] * g + 0.5);
}

/* The rows a line reference counts in under set or burst sampling: its
 * object (burst sampling: the object's part of the thread, the total
 * being the parts' sum at the end), thread, the total and its code
 * address. Returns how many. */
static int mem_rows_apart(struct an_state *st, struct an_stream *s, uint32_t cls, struct an_mem *rows[4])
{
	int n = 0;
	rows[n++] = st->parts_on ? &an_part_of(st, s, cls)->mem : &st->classes.v[cls].mem;
	rows[n++] = &st->threads.v[s->thread].mem;
	if (!st->parts_on)
		rows[n++] = &st->res->mem_total;
	if (s->last_fn)
		rows[n++] = &st->ips.v[s->last_fn - 1].mem;
	return n;
}

/* A plain store's line came from DRAM: counted where mem_count_all
 * counted the reference (apart: most references are not one). */
static __attribute__((noinline)) void store_fill_count(struct an_state *st, struct an_stream *s, uint32_t cls)
{
	struct an_mem *rows[4];
	int n = mem_rows_apart(st, s, cls, rows);
	for (int i = 0; i < n; i++)
		rows[i]->store_fills++;
}

/* mem_count_all under set sampling (mem_count_sampled) or burst sampling:
 * apart, so that a full run's path stays as it is. */
static __attribute__((noinline)) void mem_count_apart(struct an_state *st, struct an_stream *s, uint32_t cls,
						      const struct mp_model_out *o)
{
	const uint64_t w = st->model->sample_sets;
	struct an_mem *rows[4];
	int n = mem_rows_apart(st, s, cls, rows);
	for (int i = 0; i < n; i++) {
		if (w > 1)
			mem_count_sampled(rows[i], o, w);
		else
			mem_count(rows[i], o);
	}
}

/* Adds a ranged access's figures, counted apart in *m, to the rows
 * mem_count_all counts in. */
static __attribute__((noinline)) void mem_add_all(struct an_state *st, struct an_stream *s, uint32_t cls,
						  const struct an_mem *m)
{
	struct an_mem *rows[4];
	int n = mem_rows_apart(st, s, cls, rows);
	for (int i = 0; i < n; i++)
		an_mem_add(rows[i], m);
}

/* Per object, thread, total and code address. */
static void mem_count_all(struct an_state *st, struct an_stream *s, uint32_t cls, const struct mp_model_out *o)
{
	if (st->model->count_apart) {
		mem_count_apart(st, s, cls, o);
		return;
	}
	mem_count(&st->classes.v[cls].mem, o);
	mem_count(&st->threads.v[s->thread].mem, o);
	mem_count(&st->res->mem_total, o);
	if (s->last_fn)
		mem_count(&st->ips.v[s->last_fn - 1].mem, o);
}

static void mem_add_l1_hits(struct an_mem *m, uint64_t n, unsigned lat, unsigned bucket)
{
	m->refs += n;
	m->level[MP_LVL_L1] += n;
	m->tlb[MP_TLB_L1_HIT] += n;
	m->latency_sum += n * lat;
	m->latency_n += n;
	m->latency_hist[bucket] += n;
}

/* Set sampling: n L1 misses outside the sample, DTLB hits (what
 * mem_count_sampled counts of one). */
static void mem_add_unmodelled(struct an_mem *m, uint64_t n)
{
	m->refs += n;
	m->tlb[MP_TLB_L1_HIT] += n;
	m->miss_unmodelled += n;
}

static void mem_add_fast(struct an_mem *m, const struct an_model *am, uint64_t n, uint64_t unk)
{
	if (n)
		mem_add_l1_hits(m, n, am->l1_lat, am->l1_bucket);
	if (unk)
		mem_add_unmodelled(m, unk);
}

/* Most references of a loop hit L1 and the DTLB (under set sampling,
 * most others miss L1 outside the sample): a stream counts a run of them
 * for one class and adds the run up at once (code addresses count theirs
 * in an_ip.fast_l1 and fast_unk, added up by an_model_finish). */
void an_model_flush_fast(struct an_state *st, struct an_stream *s)
{
	uint64_t n = s->fast_n, unk = s->fast_unk;
	if (!n && !unk)
		return;
	s->fast_n = s->fast_unk = 0;
	const struct an_model *am = st->model;
	mem_add_fast(&st->threads.v[s->thread].mem, am, n, unk);
	if (st->parts_on) {
		/* the total is the parts' sum (an_result_sampling) */
		mem_add_fast(&an_part_of(st, s, s->fast_cls)->mem, am, n, unk);
		return;
	}
	mem_add_fast(&st->classes.v[s->fast_cls].mem, am, n, unk);
	mem_add_fast(&st->res->mem_total, am, n, unk);
}

/* an_model_count_fast for one L1 miss outside the set sample. */
static inline void count_unmodelled(struct an_state *st, struct an_stream *s, uint32_t cls)
{
	an_model_fast_class(st, s, cls);
	s->fast_unk++;
	if (s->last_fn)
		st->ips.v[s->last_fn - 1].fast_unk++;
}

/* Field by field: a compound literal here became a `rep stos`, which cost
 * more than the rest of an L1 hit. */
static inline void outcome_init(struct mp_outcome *o, unsigned page_shift)
{
	o->level = o->tlb = o->snoop = o->remote = o->locked = 0;
	o->page_shift = (uint8_t)page_shift;
	o->latency = 0;
	o->weight = 1;
}

void an_model_stream_done(struct an_state *st, struct an_stream *s)
{
	if (st->model)
		an_model_flush_fast(st, s);
}

/* Burst sampling: a page's first walk whose page the bursts saw in two
 * bursts (single 0) or one: taken back where the pages fit the STLB
 * (an_model_walk_weight), from the walker's rows and its page row. */
static void walk_seen(struct an_model *am, uint32_t owner, uint32_t proc, uint64_t page, unsigned shift, int single)
{
	struct an_mem *rows[3];
	owner_rows(am->st, am, owner, rows);
	for (int r = 0; r < 3 && rows[r]; r++)
		*(single ? &rows[r]->walk_single : &rows[r]->walk_unused) += 1;
	struct page_row *pr =
		am->rows_cap ? page_row_find(am, proc, page, shift, am->owners.v[owner].thread) : NULL;
	if (pr)
		*(single ? &pr->once_single : &pr->once_unused) += 1;
}

/* Counts a line or page seen in `bursts` (one or two) bursts in entry i
 * of *v (n entries, grown and zeroed as needed). -ENOMEM (left_failed
 * set) when it cannot grow. */
static int seen_count(struct an_model *am, struct cls_seen **v, size_t *n, size_t i, unsigned bursts)
{
	if (i >= *n) {
		size_t nn = i + 1 > 2 * *n ? i + 1 : 2 * *n;
		struct cls_seen *nv = realloc(*v, nn * sizeof(*nv));
		if (!nv) {
			am->left_failed = 1;
			return -ENOMEM;
		}
		memset(nv + *n, 0, (nn - *n) * sizeof(*nv));
		*v = nv;
		*n = nn;
	}
	(*v)[i].once += bursts == 1;
	(*v)[i].twice += bursts == 2;
	return 0;
}

/* A data line or a page the bursts saw in one or two bursts, still
 * marked at the end (mp_model_first_left). */
static void on_left(void *arg, uint32_t owner, unsigned bursts, const struct mp_model_left_page *page)
{
	struct an_model *am = arg;
	if (page) {
		am->pages_once += bursts == 1;
		am->pages_twice += bursts == 2;
		size_t t = owner < am->owners.n ? (size_t)am->owners.v[owner].thread + 1 : 0;
		if (seen_count(am, &am->thread_pages, &am->nthread_pages, t, bursts))
			return;
		if (bursts == 1 && owner < am->owners.n)
			walk_seen(am, owner, page->space, page->va, page->shift, 1);
		return;
	}
	am->seen_once += bursts == 1;
	am->seen_twice += bursts == 2;
	if (owner >= am->owners.n)
		return;
	const struct an_state *st = am->st;
	uint32_t row = am->owners.v[owner].row, cls = st->parts_on ? st->parts.v[row].cls : row;
	if (seen_count(am, &am->cls_seen, &am->ncls_seen, cls, bursts) || bursts == 2)
		return;
	struct an_mem *rows[3];
	owner_rows(am->st, am, owner, rows);
	for (int r = 0; r < 3 && rows[r]; r++)
		rows[r]->first_single++;
}

/* The species a sample did not see, by the bias-corrected Chao1 (Chao
 * 1987): f1 (f1 - 1) / (2 (f2 + 1)), from those seen once and twice; no
 * more than each seen once standing for the bursts' OFF / ON others (with
 * none seen twice it knows no bound: a 16 MiB array can come out 35 GiB). */
static double chao1_unseen(const struct an_model *am, uint64_t f1, uint64_t f2)
{
	double u = f1 ? (double)f1 * (double)(f1 - 1) / (2.0 * (double)(f2 + 1)) : 0;
	double most = am->burst_on ? (double)f1 * am->burst_off / am->burst_on : u;
	return u < most ? u : most;
}

int an_model_fit(const struct an_state *st, struct an_fit *f)
{
	const struct an_model *am = st->model;
	const struct mp_machine *mm = st->opts->machine;
	memset(f, 0, sizeof(*f));
	if (!am)
		return 0;
	f->llc = mm->llc.size / mm->line;
	f->lines = an_model_footprint(st);
	f->bound = an_model_span_lines(st);
	f->tracked = am->first_on && !am->left_failed;
	if (f->tracked) {
		f->f1 = am->seen_once;
		f->f2 = am->seen_twice;
		/* summed over classes: lines of one object are seen alike more
		 * than the program's are (a 64 MiB array streamed, each line seen
		 * once, beside a 1 MiB one seen in many bursts: 4 MiB by one
		 * Chao1 over all) */
		f->unseen = 0;
		for (size_t c = 0; c < am->ncls_seen; c++)
			f->unseen += chao1_unseen(am, am->cls_seen[c].once, am->cls_seen[c].twice);
		/* (no more than the bound leaves: with no line seen twice,
		 * Chao1 has nothing to go on) */
		double room = f->bound == UINT64_MAX ? f->unseen
				: f->bound > f->lines	   ? (double)(f->bound - f->lines)
							   : 0;
		f->unseen = f->unseen < room ? f->unseen : room;
	}
	f->footprint = (double)f->lines + f->unseen;
	/* (not from the bound where Chao1 puts the footprint in the LLC: the
	 * bound is loose where blocks come and go, and would give a heap the
	 * LLC holds writebacks where the program has none) */
	f->evict_p = f->footprint > (double)f->llc ? 1.0 - (double)f->llc / f->footprint : 0;
	/* It fits where its bound does: the data objects the bursts touched,
	 * whole. Chao1's estimate alone can be fooled where lines are seen
	 * unevenly: a big array streamed once beside a small one in use (its
	 * lines seen once, the small one's many times), or bursts in step
	 * with a scan (the same lines each pass): such cases come out -86%
	 * to -97%. Within the bound, it says what a line seen once stands
	 * for. */
	f->fits = f->tracked && f->lines && f->bound <= f->llc;
	return f->fits;
}

int an_model_walk_weight(const struct an_state *st, double *w, uint64_t *once, uint64_t *twice, uint64_t *pages)
{
	const struct an_model *am = st->model;
	*w = 1;
	*once = am ? am->pages_once : 0;
	*twice = am ? am->pages_twice : 0;
	*pages = 0;
	if (!am || !am->first_on || am->left_failed)
		return 0;
	uint64_t lines;
	mp_model_first_counts(am->m, &lines, pages);
	/* Unseen pages are of the threads that skipped: Chao1 and the weight
	 * from their pages alone. arrays' main thread walked 160 pages in its
	 * one burst, all seen once: beside its workers' 30, it took 84% of
	 * the weight, which its factor of 1 then left unused (2 MiB pages,
	 * bursts 1:9: 185 walks for 261). */
	uint64_t s1 = 0, s2 = 0;
	for (size_t t = 0; t < am->nthread_pages; t++)
		if (t == 0 || (t - 1 < st->threads.n && st->threads.v[t - 1].sample_factor > 1.0)) {
			s1 += am->thread_pages[t].once;
			s2 += am->thread_pages[t].twice;
		}
	double unseen = chao1_unseen(am, s1, s2);
	/* (bounded as the lines are: the data objects' pages and the others'
	 * pages touched, each in its page size, by core as first walks are;
	 * no more unseen than the bound leaves. No core's pages past its
	 * STLB's entries (else wspan_over): they fit) */
	if (!am->wspan || am->wspan_over)
		return 0;
	uint64_t bound = am->wspan_n;
	double room = bound > *pages ? (double)(bound - *pages) : 0;
	unseen = unseen < room ? unseen : room;
	if (s1)
		*w = 1.0 + unseen / (double)s1;
	return *pages != 0;
}

double an_model_llc_filled(const struct an_state *st)
{
	return st->model ? st->model->llc_filled : 0;
}

void an_model_finish(struct an_state *st)
{
	struct an_model *am = st->model;
	if (!am)
		return;
	am->llc_filled = mp_model_turned_share(am->m);
	if (am->first_on) {
		burst_window(st, am, 1);
		/* (before the flush below takes the lines and their marks) */
		if (mp_model_first_left(am->m, on_left, am))
			am->left_failed = 1; /* (no memory: the lines seen once stay scaled) */
	}
	if (st->parts_on && st->res->skipped_accesses && !st->opts->roi) {
		/* Burst sampling: the dirty lines still cached at the end are
		 * never written back, in a full run as here, but here each
		 * stands for the factor's worth of lines, of which all but one
		 * the skipped accesses would have had written back meanwhile,
		 * where lines come and go (their LLC set has evicted): randacc
		 * with a 32 MiB LLC, ~0.5M lines, the estimate's writes -25%
		 * without them. Where the footprint stays cached, nothing. (Not
		 * under --roi: whose writebacks they would have been is not
		 * known, inside the region or after it.) */
		am->counting = 1;
		am->cur = NULL; /* (no DRAM trace: nothing happened then) */
		am->left = 1;
		/* Which lines come and go: those of sets that have evicted. But
		 * bursts too sparse to fill the LLC (they touched less than it
		 * holds, and fewer than half its sets evicted) make few sets
		 * evict where the program's footprint is beyond the LLC: there
		 * the other sets' lines count too, by the share of the footprint
		 * the LLC cannot hold (dram_writes_left_p, an_fit.evict_p).
		 * randacc's 256 MiB in bursts of 20K in 1M touch 25 MiB, and
		 * the writes came out -88%; all lines counted in full, a 4 MiB
		 * array on a 4 MiB LLC, which the program held, +39,000%. */
		struct an_fit fit;
		an_model_fit(st, &fit);
		if (fit.tracked && !fit.fits && fit.evict_p > 0 && fit.lines <= fit.llc && am->llc_filled < 0.5)
			mp_model_flush_told(am->m);
		else
			mp_model_flush_turned(am->m);
		am->left = 0;
	}
	for (size_t i = 0; i < st->ips.n; i++) {
		mem_add_fast(&st->ips.v[i].mem, am, st->ips.v[i].fast_l1, st->ips.v[i].fast_unk);
		st->ips.v[i].fast_l1 = st->ips.v[i].fast_unk = 0;
	}
}

/* n counts of histogram h move to bucket `to`, taken from the highest
 * buckets above it: the fills a row takes back (mem_apply_once) are its
 * slowest references, but their exact buckets (DRAM plus whatever the
 * translation cost) were not kept. */
static void hist_move(uint64_t *h, uint64_t n, unsigned to)
{
	for (unsigned b = AN_LAT_BUCKETS; n && b-- > to + 1;) {
		uint64_t k = h[b] < n ? h[b] : n;
		h[b] -= k;
		h[to] += k;
		n -= k;
	}
}

static unsigned lat_bucket(unsigned lat)
{
	unsigned b = lat ? 31u - (unsigned)__builtin_clz(lat) : 0;
	return b < AN_LAT_BUCKETS ? b : AN_LAT_BUCKETS - 1;
}

/* Burst sampling: the row's scaled first fills of lines that stayed in
 * use (on_first) become hits at the level they stayed in. Under set
 * sampling they were modelled misses, which stand for f times as many
 * misses (f as mem_scale_sampled takes it, from the misses before this),
 * so the L1 hits they become are f times as many; those in L2 and the
 * LLC are scaled with the other levels. */
static void mem_apply_once(struct an_mem *m, const struct an_model *am)
{
	static const unsigned lvl[3] = { MP_LVL_L1, MP_LVL_L2, MP_LVL_L3 };
	uint64_t n[3] = { m->once[0], m->once[1], m->once[2] }, lat = m->once_lat;
	uint64_t dram = m->level[MP_LVL_LOCAL_DRAM], all = n[0] + n[1] + n[2];
	memset(m->once, 0, sizeof(m->once));
	m->once_lat = 0;
	if (!all)
		return;
	if (all > dram) {
		/* a code address row can have taken back a fill another counted
		 * (the owner is the line's last writer, not always its filler) */
		double k = (double)dram / (double)all;
		for (int i = 0; i < 3; i++)
			n[i] = (uint64_t)((double)n[i] * k);
		n[2] += dram - (n[0] + n[1] + n[2]);
		lat = (uint64_t)((double)lat * k);
		all = dram;
	}
	double f = 1.0;
	if (m->miss_modelled && m->miss_unmodelled)
		f = (double)(m->miss_modelled + m->miss_unmodelled) / (double)m->miss_modelled;
	m->level[MP_LVL_LOCAL_DRAM] -= all;
	m->dram_reads -= all < m->dram_reads ? all : m->dram_reads;
	m->level[MP_LVL_L1] += am->sample_sets > 1 ? (uint64_t)((double)n[0] * f + 0.5) : n[0];
	m->level[MP_LVL_L2] += n[1];
	m->level[MP_LVL_L3] += n[2];
	m->latency_sum -= lat < m->latency_sum ? lat : m->latency_sum;
	for (int i = 0; i < 3; i++)
		hist_move(m->latency_hist, n[i], lat_bucket(am->lat[lvl[i]]));
	if (am->sample_sets > 1) {
		/* (the misses' part, which mem_scale_sampled multiplies) */
		m->miss_latency_sum -= lat < m->miss_latency_sum ? lat : m->miss_latency_sum;
		for (int i = 0; i < 3; i++)
			hist_move(m->miss_latency_hist, n[i], lat_bucket(am->lat[lvl[i]]));
	}
}

/* Burst sampling: the row's scaled first walks of pages in use across
 * skips (burst_window) become hits in the DTLB or STLB they were found
 * in; their paging-structure references go as the row's walks average. */
static void mem_apply_once_walks(struct an_mem *m)
{
	m->walk_dram -= m->once_walk_dram < m->walk_dram ? m->once_walk_dram : m->walk_dram;
	m->once_walk_dram = 0;
	uint64_t n[2] = { m->once_walk[0], m->once_walk[1] }, all = n[0] + n[1];
	m->once_walk[0] = m->once_walk[1] = 0;
	if (!all || !m->walks)
		return;
	if (all > m->tlb[MP_TLB_WALK]) {
		/* (the owner is the reference that found the page again: one
		 * whose row did not make the walk, on a page objects share) */
		n[1] = n[1] * m->tlb[MP_TLB_WALK] / all;
		n[0] = m->tlb[MP_TLB_WALK] - n[1];
		all = n[0] + n[1];
	}
	uint64_t refs = (uint64_t)((double)m->walk_refs * (double)all / (double)m->walks + 0.5);
	uint64_t dram = (uint64_t)((double)m->walk_dram * (double)all / (double)m->walks + 0.5);
	m->tlb[MP_TLB_WALK] -= all;
	m->tlb[MP_TLB_L1_HIT] += n[0];
	m->tlb[MP_TLB_L2_HIT] += n[1];
	m->walks -= all < m->walks ? all : m->walks;
	m->walk_refs -= refs < m->walk_refs ? refs : m->walk_refs;
	m->walk_dram -= dram < m->walk_dram ? dram : m->walk_dram;
}

/* The model's estimates: first fills and walks taken back
 * (mem_apply_once, mem_apply_once_walks), then set sampling's scaling. */
static void mem_estimate(struct an_mem *m, const struct an_model *am)
{
	uint64_t reads = m->dram_reads;
	if (am->first_on) {
		mem_apply_once(m, am);
		mem_apply_once_walks(m);
	}
	if (am->sample_sets > 1)
		mem_scale_sampled(m);
	/* store fills keep their share of the fills modelled */
	if (reads && reads != m->dram_reads)
		m->store_fills = (uint64_t)((double)m->store_fills * (double)m->dram_reads / (double)reads + 0.5);
}

void an_model_scale_sets(struct an_state *st)
{
	const struct an_model *am = st->model;
	if (!am || (am->sample_sets == 1 && !am->first_on))
		return;
	for (size_t i = 0; i < st->ips.n; i++)
		mem_estimate(&st->ips.v[i].mem, am);
	for (size_t i = 0; i < st->classes.n; i++) {
		struct an_mem *m = &st->classes.v[i].mem;
		if (am->sample_sets > 1 && m->miss_unmodelled && !m->miss_modelled) {
			st->res->mem_unsampled_objects++;
			st->res->mem_unsampled_refs += m->refs;
		}
		mem_estimate(m, am);
	}
	for (size_t i = 0; i < st->threads.n; i++)
		mem_estimate(&st->threads.v[i].mem, am);
	mem_estimate(&st->res->mem_total, am);
}

/* The frame of line address a (its page's translation as of the stream's
 * time, remembered per stream while the page and span last), and the page
 * shift a class mapped "as mapped" gets from it. */
static uint64_t phys_of(struct an_state *st, struct an_stream *s, uint64_t a, unsigned cshift, unsigned *shift)
{
	uint64_t vpage = a >> 12, now = s->dec.time;
	if (s->ph_vpage != vpage || now < s->ph_lo || now >= s->ph_hi) {
		s->ph_vpage = vpage;
		s->ph_ok = an_phys_translate(st->phys, st->procs.v[s->proc].pid, a, now, &s->ph_paddr, &s->ph_flags,
					     &s->ph_lo, &s->ph_hi);
	}
	if (!s->ph_ok)
		return 0;
	if (cshift == AS_MAPPED)
		*shift = s->ph_flags & (MP_PAGEMAP_THP | MP_PAGEMAP_HUGETLB) ? 21 : 12;
	return (s->ph_paddr & ~4095ull) | (a & 4095);
}

#define AN_SEEN_MUL 0x9e3779b97f4a7c15ull

/* The footprint hash of line address a: (line + proc << 48) * AN_SEEN_MUL,
 * (lines are below 2^42), so the next line's is this plus AN_SEEN_MUL. */
static inline uint64_t seen_hash(const struct an_model *am, const struct an_stream *s, uint64_t a)
{
	return ((a >> am->line_shift) ^ (uint64_t)s->proc << 48) * AN_SEEN_MUL;
}

static inline void seen_set(struct an_model *am, uint64_t h)
{
	if (h >> (64 - AN_SEEN_SAMPLE) || !am->seen)
		return;
	h = h >> (64 - AN_SEEN_SAMPLE - am->seen_log2) & ((1ull << am->seen_log2) - 1);
	uint64_t *w = &am->seen[h >> 6], bit = 1ull << (h & 63);
	if (*w & bit)
		return;
	*w |= bit;
	if (++am->seen_marks >= am->seen_limit) {
		free(am->seen);
		am->seen = NULL;
		am->seen_over = 1;
	}
}

/* An object is in the bound whole, but for a stack, whose reservation
 * (8 MiB, or a thread's 512) is mostly never used: from the deepest
 * address the bursts touched to its top (span_touch); and for accesses to
 * no object, their pages. Counting only the pages touched of a file
 * mapping or a stack would put a 40 MiB file and 100 MiB of recursion in
 * 18 MiB that fits the LLC: -90% and -97% reads. */
static int span_whole(const struct an_state *st, uint32_t cls)
{
	enum an_kind k = cls < st->classes.n ? st->classes.v[cls].kind : AN_KIND_UNKNOWN;
	return k != AN_KIND_STACK && k != AN_KIND_UNKNOWN;
}

/* Page pg of process proc into the bound's bitmap. */
static void span_set(struct an_model *am, uint32_t proc, uint64_t pg)
{
	uint64_t h = (pg ^ (uint64_t)proc << 48) * AN_SEEN_MUL >> (64 - am->span_log2);
	uint64_t *w = &am->span[h >> 6], bit = 1ull << (h & 63);
	if (*w & bit)
		return;
	*w |= bit;
	if (++am->span_marks >= am->span_limit)
		am->span_over = 1;
}

static inline size_t wspan_slot_of(const struct an_model *am, uint32_t proc, unsigned core, unsigned shift, uint64_t pg)
{
	return (size_t)mp_hash64(pg ^ (uint64_t)proc << 45 ^ (uint64_t)core << 32 ^ (uint64_t)shift << 58) &
	       (am->wspan_cap - 1);
}

/* The walk bound's table, twice as big (no memory: no bound). */
static void wspan_grow(struct an_model *am)
{
	size_t cap = am->wspan_cap * 2;
	struct wspan_slot *old = am->wspan, *nw = an_table_calloc(cap, sizeof(*nw));
	if (!nw) {
		am->wspan_over = 1;
		return;
	}
	am->wspan = nw;
	am->wspan_cap = cap;
	for (size_t j = 0; j < cap / 2; j++) {
		if (!old[j].used)
			continue;
		size_t i = wspan_slot_of(am, old[j].proc, old[j].core, old[j].shift, old[j].page);
		while (nw[i].used)
			i = (i + 1) & (cap - 1);
		nw[i] = old[j];
	}
	free(old);
}

/* Page pg (of 1 << shift bytes) of process proc into core's walk bound. */
static void wspan_add(struct an_model *am, uint32_t proc, unsigned core, unsigned shift, uint64_t pg)
{
	if (am->wspan_over)
		return;
	size_t i = wspan_slot_of(am, proc, core, shift, pg);
	for (;; i = (i + 1) & (am->wspan_cap - 1)) {
		struct wspan_slot *w = &am->wspan[i];
		if (!w->used)
			break;
		if (w->page == pg && w->proc == proc && w->core == core && w->shift == shift)
			return;
	}
	am->wspan[i] = (struct wspan_slot){
		.page = pg, .proc = proc, .core = (uint16_t)core, .shift = (uint8_t)shift, .used = 1
	};
	am->wspan_n++;
	if (++am->wspan_core_n[core] >= am->wspan_limit)
		am->wspan_over = 1;
	else if (2 * am->wspan_n >= am->wspan_cap)
		wspan_grow(am);
}

/* The pages of [lo, hi) in pages of 1 << shift into core's walk bound. */
static void wspan_range(struct an_model *am, uint32_t proc, unsigned core, unsigned shift, uint64_t lo, uint64_t hi)
{
	for (uint64_t pg = lo >> shift; hi > lo && pg <= (hi - 1) >> shift && !am->wspan_over; pg++)
		wspan_add(am, proc, core, shift, pg);
}

/* The model's core of the stream's thread (as it is now). */
static inline unsigned stream_core(const struct an_state *st, const struct an_model *am, struct an_stream *s)
{
	if (s->core_of != s->cpu + 1) {
		/* the core changes only when the thread moves: no division per access */
		s->core_of = s->cpu + 1;
		s->core = (st->opts->thread_map == AN_MAP_SPREAD ? s->thread : s->cpu) % am->ncores;
	}
	return s->core;
}

/* The page size class cls is modelled in, as a shift: as mapped counts
 * 4 KiB pages (THP's, where the recording saw them, are bigger: the bound
 * stays an upper one). */
static unsigned span_shift(struct an_state *st, struct an_model *am, uint32_t cls)
{
	unsigned sh = class_shift(st, am, cls);
	return sh == AS_MAPPED ? 12 : sh;
}

void an_model_span(struct an_state *st, struct an_stream *s, struct an_obj *o)
{
	struct an_model *am = st->model;
	if (!am)
		return;
	/* (past 64 cores, two share a bit: the second one's bound misses
	 * the object, which leaves less room for unseen first walks) */
	unsigned core = stream_core(st, am, s);
	uint64_t bit = 1ull << (core & 63), before = o->spanned;
	if (before & bit)
		return;
	o->spanned = before | bit;
	if (!span_whole(st, o->cls))
		return;
	if (am->wspan)
		wspan_range(am, s->proc, core, span_shift(st, am, o->cls), o->lo, o->hi);
	if (before || !am->span || am->span_over)
		return;
	uint64_t lo = o->lo >> 12, hi = (o->hi + 4095) >> 12;
	if (hi - lo > am->span_limit)
		am->span_over = 1;
	for (uint64_t pg = lo; pg < hi && !am->span_over; pg++)
		span_set(am, s->proc, pg);
}

/* Line a of class cls missed L1 in a burst: where its object is not in
 * the bound whole, its page, and of a stack the pages from it up to the
 * deepest the bound has (s->span_stack, the page below the lowest). */
static inline void span_touch(struct an_state *st, struct an_model *am, struct an_stream *s, uint32_t cls,
			      uint64_t a)
{
	if ((am->span_over && am->wspan_over) || !am->span || span_whole(st, cls))
		return;
	uint64_t pg = a >> 12;
	if (st->classes.v[cls].kind != AN_KIND_STACK || !s->stack_lo) {
		if (!am->span_over)
			span_set(am, s->proc, pg);
		if (!am->wspan_over) {
			unsigned sh = span_shift(st, am, cls);
			wspan_add(am, s->proc, s->core, sh, a >> sh);
		}
		return;
	}
	uint64_t top = s->span_stack ? s->span_stack : pg + 1;
	for (uint64_t p = pg; p < top && !am->span_over; p++)
		span_set(am, s->proc, p);
	if (pg < top) {
		if (!am->wspan_over)
			wspan_range(am, s->proc, s->core, span_shift(st, am, cls), pg << 12, top << 12);
		s->span_stack = pg;
	}
}

void an_model_span_range(struct an_state *st, struct an_stream *s, uint64_t addr, uint64_t size)
{
	struct an_model *am = st->model;
	if (!am)
		return;
	if (am->wspan) {
		/* (whose it is the skip did not look up: the pages of --pages
		 * SIZE, without rules by object, else 4 KiB ones) */
		const struct an_opts *o = st->opts;
		wspan_range(am, s->proc, stream_core(st, am, s), o->page_shift && !o->npage_rules ? o->page_shift : 12,
			    addr, addr + size);
	}
	if (!am->span || am->span_over)
		return;
	uint64_t lo = addr >> 12, hi = (addr + size + 4095) >> 12;
	if (hi - lo > am->span_limit)
		am->span_over = 1;
	for (uint64_t pg = lo; pg < hi && !am->span_over; pg++)
		span_set(am, s->proc, pg);
}

uint64_t an_model_span_lines(const struct an_state *st)
{
	const struct an_model *am = st->model;
	if (!am || am->span_over || !am->span)
		return UINT64_MAX;
	/* linear counting, as an_model_footprint */
	double m = (double)(1ull << am->span_log2);
	return (uint64_t)(-m * log((m - (double)am->span_marks) / m) + 0.5) * (4096 / am->line);
}

/* Bounded mode: line a missed L1 (its bit in the footprint bitmap). */
static inline void seen_mark(struct an_model *am, const struct an_stream *s, uint64_t a)
{
	am->seen_any = 1;
	seen_set(am, seen_hash(am, s, a));
}

/* The same for the skipped lines of a page (a: its first line's address). */
static void seen_mark_skipped(struct an_model *am, const struct an_stream *s, uint64_t a, uint64_t n, const uint8_t *lv)
{
	am->seen_any = 1;
	uint64_t h = seen_hash(am, s, a);
	for (uint64_t i = 0; i < n; i++, h += AN_SEEN_MUL)
		if (lv[i] == MP_MODEL_SKIPPED)
			seen_set(am, h);
}

/* The first line from i on that a skipping mp_model_access_lines
 * modelled, or n. */
static inline uint64_t next_modelled(const uint8_t *lv, uint64_t i, uint64_t n)
{
	_Static_assert(MP_MODEL_SKIPPED == 0xff, "eight skipped lines are one all-ones word");
	for (uint64_t w; i + 8 <= n; i += 8) {
		memcpy(&w, lv + i, 8);
		if (w != UINT64_MAX)
			break;
	}
	while (i < n && lv[i] == MP_MODEL_SKIPPED)
		i++;
	return i;
}

/* Everything but the stream's repeated reference (an_model_access). */
static __attribute__((noinline)) void model_access(struct an_state *st, struct an_stream *s, uint32_t cls,
						   const struct trace_rec *r, int counted, struct mp_outcome *sum)
{
	struct an_model *am = st->model;
	if (r->size > am->range_max) {
		/* a line at a time, 2^34 lines take hours; a call that long is
		 * far likelier a damaged length than a program's */
		outcome_init(sum, 12);
		if (!am->range_warned) {
			am->range_warned = 1;
			st->res->damaged |= AN_DAMAGE_PARTIAL;
			an_warn(st,
				"thread %u: an access of %llu bytes at %#llx, over the %llu bytes the model takes in "
				"one (a damaged file?): counted but not modelled",
				s->tid & MP_TID_MASK, (unsigned long long)r->size, (unsigned long long)r->addr,
				(unsigned long long)am->range_max);
		}
		return;
	}
	unsigned core = stream_core(st, am, s);
	if (am->first_on && s->bursts != am->burst) {
		am->burst = s->bursts;
		mp_model_set_burst(am->m, s->bursts);
		burst_window(st, am, 0);
	}
	unsigned cshift =
		cls < am->cls_shift.n && am->cls_shift.v[cls] ? am->cls_shift.v[cls] : class_shift(st, am, cls);
	unsigned shift = cshift == AS_MAPPED ? 12 : cshift;
	uint64_t size = r->size ? r->size : 1;
	uint64_t line = am->line;
	uint64_t a = r->addr & ~(line - 1);
	uint64_t last = r->addr + size - 1 < r->addr ? UINT64_MAX : r->addr + size - 1;
	uint64_t nlines = ((last - a) >> am->line_shift) + 1;
	if (st->parts_on && counted && nlines >= AN_LONG_RANGE_LINES)
		st->threads.v[s->thread].range_lines += nlines;
	s->rep_again = 0;
	am->counting = counted;
	am->cur = s;
	/* the line's owner, whose DRAM writes come back to on_writeback */
	const uint32_t owner = owner_of(st, am, s, cls);
	outcome_init(sum, shift);
	/* a range (memset, memcpy: up to millions of lines) counts its lines
	 * apart and adds them to its rows once */
	struct an_mem range;
	const int batch = counted && nlines > 1;
	if (batch)
		memset(&range, 0, sizeof(range));
	/* set sampling, a long range: its middle pages' lines outside the
	 * sample are skipped (MP_MODEL_SKIPPED) and estimated from the lines
	 * modelled in those pages; its last range_tail lines go in full */
	const int skipping = am->range_tail && nlines >= 4 * am->range_tail && !st->opts->on_dram &&
			     !mp_model_range_begin(am->m, core);
	const uint64_t skip_end = skipping ? nlines - am->range_tail : 0;
	uint64_t skipped = 0, mid_lines = 0, mid_l1 = 0;
	int tail = 0;
	for (uint64_t k = 0; k < nlines;) {
		struct mp_model_out o;
		uint64_t paddr = 0;
		if (st->phys) {
			paddr = phys_of(st, s, a, cshift, &shift);
			if (k == 0)
				sum->page_shift = (uint8_t)shift;
		}
		/* the range's lines in this 4 KiB page go to the model at once */
		uint64_t n = 1;
		uint8_t lv[MP_MODEL_LINES_MAX];
		/* (on_dram: the DRAM reads and writes in the order the lines make them) */
		if (nlines > 1 && !st->opts->on_dram) {
			n = (((a | 4095) - a) >> am->line_shift) + 1;
			n = n < nlines - k ? n : nlines - k;
			n = n < MP_MODEL_LINES_MAX ? n : MP_MODEL_LINES_MAX;
		}
		if (nlines - k > n + 64 && (am->rows_cap || st->phys)) {
			/* a long range: the page two ahead's translation slot and TLB
			 * row, which the replay's lookahead (record by record) cannot
			 * see coming */
			uint64_t ahead = a + 8192;
			if (st->phys)
				an_phys_prefetch(st->phys, st->procs.v[s->proc].pid, ahead);
			if (am->rows_cap)
				__builtin_prefetch(&am->rows[row_home(s->proc, ahead >> 12, 12,
								      st->parts_on ? s->thread : 0, am->rows_cap)]);
		}
		unsigned skip = 0; /* lines skipped in this page */
		if (skipping && k + n > skip_end && !tail) {
			tail = 1;
			mp_model_range_end(am->m, core);
		}
		if (n == 1)
			mp_model_access(am->m, core, s->proc, a, paddr, r->write, shift, owner, &o);
		else
			skip = mp_model_access_lines(am->m, core, s->proc, a, paddr, (unsigned)n, r->write, shift,
						     owner, skipping && k > 0 && k + n <= skip_end, &o, lv);
		if (st->phys && counted) {
			s->refs_physical += paddr ? n : 0;
			s->refs_thp += paddr && shift == 21 && cshift == AS_MAPPED ? n : 0;
		}
		if (skip) {
			skipped += skip;
			if (am->seen)
				seen_mark_skipped(am, s, a, n, lv);
		}
		for (uint64_t i = 0; i < n; i++, k++, a += line, paddr += paddr ? line : 0) {
			if (skip) {
				if (lv[i] == MP_MODEL_SKIPPED) {
					/* on to the next modelled line (15 in 16 are skipped) */
					uint64_t d = next_modelled(lv, i, n) - i;
					i += d;
					k += d;
					a += d * line;
					paddr += paddr ? d * line : 0;
					if (i == n)
						break;
				}
				mid_lines++;
				mid_l1 += lv[i] == MP_LVL_L1;
			}
			if (i && lv[i] == MP_LVL_L1) {
				/* (before o is made: a word read of bytes just stored
				 * would wait for them) */
				sum->latency += am->l1_lat;
				if (counted)
					an_model_count_fast(st, s, cls, 1);
				continue;
			}
			if (i && lv[i] == MP_LVL_UNKNOWN) {
				/* set sampling: an L1 miss outside the sample, most
				 * of a long range's lines (what mem_count_sampled and
				 * the footprint below do with it, without the rest) */
				if (sum->tlb < MP_TLB_L1_HIT)
					sum->tlb = MP_TLB_L1_HIT;
				if (am->seen) {
					seen_mark(am, s, a);
					span_touch(st, am, s, cls, a);
				}
				if (counted) {
					range.refs++;
					range.tlb[MP_TLB_L1_HIT]++;
					range.miss_unmodelled++;
				}
				continue;
			}
			if (i)
				o = (struct mp_model_out){ .level = lv[i],
							   .tlb = MP_TLB_L1_HIT,
							   .latency = am->lat[lv[i]] };
			if (nlines == 1 && o.again) {
				s->rep_a = a;
				s->rep_cls = cls;
				s->rep_fn = s->last_fn;
				s->rep_core = core;
				s->rep_again = o.again;
				s->rep_seq = *st->model_rep.seq;
				s->rep_shift = (uint8_t)shift;
				s->rep_phys = paddr != 0;
				s->rep_thp = paddr && shift == 21 && cshift == AS_MAPPED;
			}
			if (o.level == MP_LVL_L1 && o.tlb == MP_TLB_L1_HIT) {
				/* the common case: no DRAM, no NUMA, no page row, and a run
				 * of them is counted at once */
				if (sum->level < MP_LVL_L1)
					sum->level = MP_LVL_L1;
				if (sum->tlb < MP_TLB_L1_HIT)
					sum->tlb = MP_TLB_L1_HIT;
				sum->latency += o.latency;
				if (counted)
					an_model_count_fast(st, s, cls, 1);
				continue;
			}
			/* a page missed the DTLB: its slots are worth prefetching
			 * ahead when the tables they are in outgrow the host's caches;
			 * so are the model's sets for lines that miss L2, when they do
			 * (for as long as such misses keep coming: a few now and then
			 * are not worth a second decoder). Not for a stream's page or
			 * line, next to the last one that missed (a few lines apart
			 * under set sampling): the second decoder skips hinting
			 * those, the host's prefetcher brings their sets, and it cost
			 * every access all the same (arrays' bounded report: 10% of
			 * its instructions, nothing hinted) */
			if (o.tlb != MP_TLB_L1_HIT &&
			    (st->res->phys_pages >= AN_AHEAD_PAGES || am->nrows >= AN_AHEAD_PAGES)) {
				const uint64_t pg = a >> shift;
				if (pg - s->miss_page + 1 > 2)
					s->ahead_on = AN_AHEAD_KEEP;
				s->miss_page = pg;
			} else if (o.level >= MP_LVL_L3 && am->hint_sets) {
				const uint64_t ln = a >> am->line_shift, near = 2 * am->sample_sets;
				if (ln - s->miss_line + near > 2 * near)
					s->ahead_on = s->ahead_on + AN_AHEAD_CREDIT < AN_AHEAD_KEEP
							      ? s->ahead_on + AN_AHEAD_CREDIT
							      : AN_AHEAD_KEEP;
				s->miss_line = ln;
			}
			unsigned from, to;
			if (o.level == MP_LVL_LOCAL_DRAM && st->numa && an_numa_nodes(st, s, a, &from, &to) &&
			    from != to) {
				/* a NUMA topology says where the page is: a fill from another
				 * node's memory, at the latency its distance gives */
				o.level = MP_LVL_REMOTE_DRAM;
				o.latency += an_numa_latency(st, from, to, st->opts->machine->dram_latency) -
					     st->opts->machine->dram_latency;
			}
			if (am->seen) {
				seen_mark(am, s, a);
				span_touch(st, am, s, cls, a);
			}
			if (o.level > sum->level)
				sum->level = o.level;
			if (o.tlb > sum->tlb)
				sum->tlb = o.tlb;
			sum->latency += o.latency;
			int dram = o.level == MP_LVL_LOCAL_DRAM || o.level == MP_LVL_REMOTE_DRAM;
			am->fills += dram ? am->sample_sets : 0;
			am->walks += o.tlb == MP_TLB_WALK;
			if (st->opts->on_dram && (dram || o.walk_dram)) {
				struct an_dram d = { .proc = s->proc,
						     .thread = s->thread,
						     .cls = cls,
						     .vaddr = a,
						     .paddr = paddr,
						     .time = s->dec.time,
						     .counted = counted };
				d.walk = 1;
				for (unsigned w = 0; w < o.walk_dram; w++)
					st->opts->on_dram(st->opts->hook_arg, &d);
				d.walk = 0;
				if (dram)
					st->opts->on_dram(st->opts->hook_arg, &d);
			}
			if (!counted)
				continue;
			if (!batch && o.level == MP_LVL_UNKNOWN && o.tlb == MP_TLB_L1_HIT)
				count_unmodelled(st, s, cls); /* (all mem_count_sampled counts of it) */
			else if (!batch) {
				mem_count_all(st, s, cls, &o);
				if (dram && r->write && !r->range)
					store_fill_count(st, s, cls);
			} else if (am->sample_sets > 1)
				mem_count_sampled(&range, &o, am->sample_sets);
			else
				mem_count(&range, &o);
			if (o.tlb != MP_TLB_L1_HIT && st->opts->page_rows)
				page_count(st, am, s->proc, st->parts_on ? s->thread : 0, a, shift, cls, &o);
		}
	}
	if (skipped) {
		/* the skipped lines hit L1 as often as the modelled lines of
		 * the pages they were in (mid_lines > 0: every page's first
		 * line is modelled) */
		uint64_t hits = (2 * skipped * mid_l1 + mid_lines) / (2 * mid_lines), misses = skipped - hits;
		if (sum->tlb < MP_TLB_L1_HIT)
			sum->tlb = MP_TLB_L1_HIT;
		if (hits && sum->level < MP_LVL_L1)
			sum->level = MP_LVL_L1;
		sum->latency += (uint32_t)(hits * am->l1_lat);
		if (counted) {
			st->res->mem_l1_estimated += skipped;
			an_model_count_fast(st, s, cls, hits);
			range.refs += misses;
			range.tlb[MP_TLB_L1_HIT] += misses;
			range.miss_unmodelled += misses;
		}
	}
	if (batch && range.refs)
		mem_add_all(st, s, cls, &range);
}

int an_model_store_again(struct an_state *st, struct an_stream *s, uint32_t cls)
{
	struct an_model *am = st->model;
	/* (the owner model_access would give it: made here if new, as there) */
	const uint32_t owner = owner_of(st, am, s, cls);
	if (!mp_model_store_again(am->m, s->rep_core, owner))
		return 0;
	s->rep_again = MP_AGAIN_LOAD | MP_AGAIN_STORE;
	s->rep_seq = *st->model_rep.seq;
	s->rep_fn = s->last_fn;
	return 1;
}

void an_model_access(struct an_state *st, struct an_stream *s, uint32_t cls, const struct trace_rec *r, int counted,
		     struct mp_outcome *sum)
{
	if (an_model_repeat(st, s, cls, r->addr, r->size, r->write, counted)) {
		outcome_init(sum, s->rep_shift);
		sum->level = MP_LVL_L1;
		sum->tlb = MP_TLB_L1_HIT;
		sum->latency = st->model->l1_lat;
		return;
	}
	model_access(st, s, cls, r, counted, sum);
}

/* Far enough ahead for the hint to arrive, the translation slot and TLB
 * row of each new page: over many pages these are the replay's host cache
 * misses. Then, for each new line, in stages that each read what the one
 * before fetched: its frame, the model's L2 and LLC sets for it and its
 * walk's last level, and the LLC set its L2 victim will go to. Over an
 * LLC of 32 MiB (8 MiB of sets) a random reference otherwise waits on
 * three or four host misses in turn: the hints halve randacc's model time. */
void an_model_look_ahead(const struct an_state *st, struct an_stream *s, int restart)
{
	const struct an_model *am = st->model;
	if (restart || !--s->ahead_on) {
		s->ahead_n = 0;
		s->ahead_page = s->ahead_line = UINT64_MAX;
		memset(s->ahead_lines, 0, sizeof(s->ahead_lines));
		return;
	}
	if (s->ahead_n)
		s->ahead_n--;
	else
		s->ahead = s->dec; /* caught up (a new chunk, or the end of one) */
	struct trace_rec r;
	const uint32_t pid = st->procs.v[s->proc].pid;
	while (s->ahead_n < AN_AHEAD && trace_dec_next(&s->ahead, &r) == 1) {
		s->ahead_n++;
		/* the lines of earlier records, as the hints before had time to
		 * arrive: the frame, then the model's sets, then the victim's */
		_Static_assert((AN_AHEAD & (AN_AHEAD - 1)) == 0 && AN_AHEAD_SETS < AN_AHEAD_VICTIM &&
				       AN_AHEAD_VICTIM < AN_AHEAD,
			       "stages of the lookahead ring (indices wrap with the counter)");
		__typeof__(s->ahead_lines[0]) *e = NULL;
		if (am->hint_sets) {
			unsigned q = s->ahead_seq++;
			e = &s->ahead_lines[(q - AN_AHEAD_SETS) % AN_AHEAD];
			if (e->a1) {
				uint64_t lo, hi;
				uint32_t fl;
				if (!st->phys || !an_phys_translate(st->phys, pid, e->a1 - 1, s->ahead.time, &e->paddr,
								    &fl, &lo, &hi))
					e->paddr = 0;
				mp_model_prefetch(am->m, s->core, s->proc, e->a1 - 1, e->paddr);
			}
			e = &s->ahead_lines[(q - AN_AHEAD_VICTIM) % AN_AHEAD];
			if (e->a1)
				mp_model_prefetch_victim(am->m, s->core, s->proc, e->a1 - 1, e->paddr);
			e = &s->ahead_lines[q % AN_AHEAD];
			e->a1 = 0;
		}
		if (r.cls != MP_REC_ACCESS)
			continue;
		if (e) {
			/* (not a line next to the last one or two away, a stream's:
			 * the host's own prefetcher brings their sets) */
			uint64_t ln = r.addr >> am->line_shift;
			if (ln - s->ahead_line + 2 > 4)
				e->a1 = r.addr + 1;
			s->ahead_line = ln;
		}
		if (r.addr >> 12 == s->ahead_page)
			continue;
		s->ahead_page = r.addr >> 12;
		if (st->phys)
			an_phys_prefetch(st->phys, pid, r.addr);
		if (am->rows_cap) {
			const struct page_row *w =
				&am->rows[row_home(s->proc, r.addr >> 12, 12, st->parts_on ? s->thread : 0, am->rows_cap)];
			__builtin_prefetch(w);
			__builtin_prefetch((const char *)(w + 1) - 1); /* it may straddle two lines */
		}
	}
}

void an_model_clean(struct an_state *st, struct an_stream *s, int counted)
{
	struct an_model *am = st->model;
	if (!am)
		return;
	am->counting = counted;
	am->cur = s;
	mp_model_clean(am->m);
}

static int page_row_by_order(const void *a, const void *b)
{
	const struct page_row *x = a, *y = b;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int page_row_cmp(const void *a, const void *b)
{
	const struct page_row *x = a, *y = b;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->shift != y->shift)
		return x->shift < y->shift ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Burst sampling: a page's rows, one per thread, each scaled by its
 * thread's factor (set by an_result_sampling) and merged into one, in the
 * order the first was made; its object is the one seen last. The table
 * is rebuilt dense (rows_cap = nrows rows, no longer probed). */
static int pages_per_thread_merge(struct an_state *st, struct an_model *am)
{
	struct page_row *v = malloc(am->nrows * sizeof(*v));
	if (!v)
		return -ENOMEM;
	double wp;
	uint64_t p1, p2, pages;
	const int weigh = an_model_walk_weight(st, &wp, &p1, &p2, &pages);
	size_t n = 0;
	for (size_t j = 0; j < am->rows_cap; j++) {
		struct page_row w = am->rows[j];
		if (!w.dtlb_misses)
			continue;
		double f = w.thread < st->threads.n ? st->threads.v[w.thread].sample_factor : 1.0;
		/* first walks of pages in use across skips: f - 1 of each taken
		 * back (burst_window), found in the DTLB no miss there either;
		 * where the pages fit the STLB, those of pages seen in two
		 * bursts too, and f - wp of those seen in one (as the rows'
		 * an_mem.walk_unused and walk_single: an_result_sampling) */
		uint64_t once = w.once_dtlb + w.once_stlb < w.walks ? w.once_dtlb + w.once_stlb : w.walks;
		uint64_t refs = once && w.walks ? w.walk_refs * once / w.walks : 0;
		uint64_t dmiss = w.once_dtlb < w.dtlb_misses ? w.once_dtlb : w.dtlb_misses;
		uint64_t walks = an_scaled(w.walks, f), wrefs = an_scaled(w.walk_refs, f);
		uint64_t taken = an_scaled(once, f - 1), rtaken = an_scaled(refs, f - 1);
		if (weigh) {
			uint64_t more =
				an_scaled(w.once_unused, f - 1) + (f > wp ? an_scaled(w.once_single, f - wp) : 0);
			/* (their references as the row's walks average) */
			rtaken += walks ? (uint64_t)((double)wrefs * (double)more / (double)walks) : 0;
			taken += more;
		}
		w.dtlb_misses = an_scaled(w.dtlb_misses, f) - an_scaled(dmiss, f - 1);
		w.walks = walks - (taken < walks ? taken : walks);
		w.walk_refs = wrefs - (rtaken < wrefs ? rtaken : wrefs);
		v[n++] = w;
	}
	qsort(v, n, sizeof(*v), page_row_cmp);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		struct page_row *d = m ? &v[m - 1] : NULL;
		if (d && d->proc == v[i].proc && d->addr == v[i].addr && d->shift == v[i].shift) {
			d->dtlb_misses += v[i].dtlb_misses;
			d->walks += v[i].walks;
			d->walk_refs += v[i].walk_refs;
			if (v[i].last > d->last) {
				d->last = v[i].last;
				d->cls = v[i].cls;
			}
			continue; /* (d keeps the lowest order: v is sorted by it within a page) */
		}
		v[m++] = v[i];
	}
	/* renumbered densely, in the order the rows were made */
	qsort(v, m, sizeof(*v), page_row_by_order);
	for (size_t i = 0; i < m; i++)
		v[i].order = (uint32_t)i;
	free(am->rows);
	am->rows = v;
	am->rows_cap = am->nrows = m;
	return 0;
}

/* Hands the per-page rows to the result (classes renumbered by remap). */
int an_model_pages(struct an_state *st, const uint32_t *remap)
{
	struct an_model *am = st->model;
	if (!am)
		return 0;
	struct an_result *r = st->res;
	for (size_t i = 0; i < st->opts->npage_rules; i++)
		if (!am->rule_hits[i])
			an_warn(st, "--pages %s: no object's label contains \"%s\"", st->opts->page_rules[i].pattern,
				st->opts->page_rules[i].pattern);
	/* A rule was matched against every label a row could get, before
	 * the wrappers were judged: rows it matched whose label does not
	 * say so were sited above a frame it names. */
	for (size_t i = 0; i < st->opts->npage_rules; i++) {
		size_t n = 0;
		const char *other = NULL;
		for (size_t k = 0; k < am->cls_rule.n; k++) {
			uint64_t e = am->cls_rule.v[k];
			uint32_t cls = (uint32_t)(e >> 16);
			if ((e & 0xffff) != i + 1 || !remap || cls >= st->classes.n)
				continue;
			const char *label = r->classes[remap[cls]].label;
			if (label && !strstr(label, st->opts->page_rules[i].pattern)) {
				n++;
				other = label;
			}
		}
		if (n)
			an_warn(st,
				"--pages %s: also applied to the blocks of %zu allocation %s that pass through a frame "
				"it names but are sited above it (\"%s\"%s); -w or --not-wrapper decides where a site "
				"is",
				st->opts->page_rules[i].pattern, n, n == 1 ? "stack" : "stacks", other, n > 1 ? ", ..." : "");
	}
	if (!am->nrows)
		return 0;
	if (st->parts_on && pages_per_thread_merge(st, am))
		return -ENOMEM;
	r->pages = calloc(am->nrows, sizeof(*r->pages));
	if (!r->pages)
		return -ENOMEM;
	r->npages = am->nrows;
	for (size_t j = 0; j < am->rows_cap; j++) {
		const struct page_row *w = &am->rows[j];
		if (w->dtlb_misses)
			r->pages[w->order] = (struct an_page){ .proc = w->proc,
							       .addr = w->addr,
							       .shift = w->shift,
							       .cls = w->cls,
							       .dtlb_misses = w->dtlb_misses,
							       .walks = w->walks,
							       .walk_refs = w->walk_refs };
	}
	free(am->rows);
	am->rows = NULL;
	am->rows_cap = am->nrows = 0;
	for (size_t i = 0; i < r->npages; i++) {
		struct an_page *p = &r->pages[i];
		p->cls = p->cls < st->classes.n && remap ? remap[p->cls] : 0;
		p->pid = p->proc < st->procs.n ? st->procs.v[p->proc].pid : 0;
	}
	return 0;
}
