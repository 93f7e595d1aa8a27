// SPDX-License-Identifier: MIT
/*
 * Burst sampling's bookkeeping in the model (record --sample-bursts, or
 * --sample-bursts at replay): first fills and walks of lines and pages
 * found again after skips, judged window by window (anm_burst_window);
 * the footprint the bursts saw and the bounds sampling cannot fool
 * (an_model_span); and, after the replay, the estimates: the footprint
 * fit (an_model_fit, an_model_walk_weight) and each row's first fills
 * taken back as hits (an_model_scale_sets, with set sampling's scaling).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_model_int.h"

/* Row i's tally of the kind, grown (zeroed) to hold it; NULL without
 * memory (st->oom set). */
static struct an_burst_tally *tally_at(struct an_model *am, enum an_tally_rows rows, size_t i)
{
	struct tally_rows *t = &am->tally[rows];
	if (i >= t->n) {
		size_t n = i + 1 > 2 * t->n ? i + 1 : 2 * t->n;
		struct an_burst_tally *v = realloc(t->v, n * sizeof(*v));
		if (!v) {
			am->st->oom = 1;
			return NULL;
		}
		memset(v + t->n, 0, (n - t->n) * sizeof(*v));
		t->v = v;
		t->n = n;
	}
	return &t->v[i];
}

void anm_owner_tallies(struct an_model *am, uint32_t owner, struct an_burst_tally *t[3])
{
	const struct owner *ow = &am->owners.v[owner];
	t[0] = tally_at(am, AN_TALLY_PART, ow->row);
	t[1] = t[0] ? tally_at(am, AN_TALLY_THREAD, ow->thread) : NULL;
	t[2] = t[1] && ow->fn ? tally_at(am, AN_TALLY_IP, ow->fn - 1) : NULL;
	if (!t[1] || (ow->fn && !t[2]))
		t[0] = NULL; /* (st->oom: the run fails) */
}

struct an_burst_tally *an_model_tally(struct an_state *st, enum an_tally_rows rows, size_t i)
{
	const struct an_model *am = st->model;
	return am && i < am->tally[rows].n ? &am->tally[rows].v[i] : NULL;
}

/* Two owners of one part (object and thread): a fill one of them counted
 * the other may take back (mp_model_track_same). */
int anm_same_part(void *arg, uint32_t a, uint32_t b)
{
	const struct an_model *am = arg;
	return a < am->owners.n && b < am->owners.n && am->owners.v[a].row == am->owners.v[b].row;
}

/* Burst sampling: a line whose first fill the model tracked was found
 * again in a later burst (mp_model_track_first): if it was in use in its
 * burst, judged when the window of bursts it was found in ends
 * (anm_burst_window); if not (skips 0), counted as seen in two bursts, which
 * an_bursts_apply takes as one fill where the footprint fits the LLC. */
void anm_on_first(void *arg, uint32_t owner, unsigned level, unsigned skips, int walk)
{
	struct an_model *am = arg;
	if (!skips) {
		/* a line seen in a second burst, not in use in its first */
		struct an_burst_tally *t[3];
		if (am->counting && owner < am->owners.n) {
			anm_owner_tallies(am, owner, t);
			for (int r = 0; r < 3 && t[r]; r++)
				t[r]->first_unused++; /* (in modelled misses, as once[]) */
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

/* Burst sampling: a page's first walk whose page the bursts saw in two
 * bursts (single 0) or one: taken back where the pages fit the STLB
 * (an_model_walk_weight), from the walker's rows and its page row. */
static void walk_seen(struct an_model *am, uint32_t owner, uint32_t proc, uint64_t page, unsigned shift, int single)
{
	struct an_burst_tally *t[3];
	anm_owner_tallies(am, owner, t);
	for (int r = 0; r < 3 && t[r]; r++)
		*(single ? &t[r]->walk_single : &t[r]->walk_unused) += 1;
	struct page_row *pr =
		am->rows_cap ? anm_page_row_find(am, proc, page, shift, am->owners.v[owner].thread) : NULL;
	if (pr)
		*(single ? &pr->once_single : &pr->once_unused) += 1;
}

/* The same for a page's first walk (the owner: the reference that found
 * it again), judged with the walks' rate over the STLB's sets and ways;
 * its rows take back f - 1 of the walk as a DTLB or STLB hit, and so does
 * its row of the TLB view (pages_per_thread_merge). */
void anm_on_first_walk(void *arg, uint32_t owner, unsigned tlb, unsigned skips, uint64_t page, unsigned shift)
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
 * burst and found cached in a later one (anm_on_first). The model saw none
 * of the skips' traffic, which the full run had: at the rate of fills of
 * the bursts it was found in (per access, times a skip's accesses, over
 * the LLC's sets), the line stayed if the skips since its burst brought
 * its set under half its ways in new lines. Then its owner's rows take
 * f - 1 of the fill back, as hits at the level it was found in
 * (an_burst_tally.once, applied by an_model_scale_sets). Lines seen in one burst
 * only, or found where fills keep coming (randacc: 12 a set a skip over
 * 32 MiB; arrays' next pass, 8 skips on), stay scaled: they stand for
 * the like lines of the skips. The rate is that of the bursts after the
 * skips, not before: a program's first burst fills its whole footprint;
 * and of their first fills it counts only the share not found again.
 */
void anm_burst_window(struct an_state *st, struct an_model *am, int last)
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
			 * footprint fits the LLC, an_bursts_apply) */
			struct an_burst_tally *t[3];
			anm_owner_tallies(am, f->owner, t);
			for (int r = 0; r < 3 && t[r] && f->walk == FOUND_LINE; r++)
				t[r]->first_unused++;
			if (f->walk == FOUND_PAGE)
				walk_seen(am, f->owner, f->proc, f->page, f->shift, 0);
			continue;
		}
		const struct owner *ow = &am->owners.v[f->owner];
		struct an_burst_tally *t[3];
		anm_owner_tallies(am, f->owner, t);
		if (f->walk == FOUND_PT_LINE) {
			/* (under set sampling a sampled walk load's DRAM read
			 * counted sample_sets times: mem_count_sampled) */
			for (int r = 0; r < 3 && t[r]; r++)
				t[r]->once_walk_dram += am->sample_sets;
			continue;
		}
		if (f->walk == FOUND_PAGE) {
			const int stlb = f->level == MP_TLB_L2_HIT;
			for (int r = 0; r < 3 && t[r]; r++)
				t[r]->once_walk[stlb]++;
			struct page_row *pr =
				am->rows_cap ? anm_page_row_find(am, f->proc, f->page, f->shift, ow->thread) : NULL;
			if (pr) {
				pr->once_dtlb += !stlb;
				pr->once_stlb += stlb;
			}
			continue;
		}
		const unsigned at = f->level == MP_LVL_L1 ? 0 : f->level == MP_LVL_L2 ? 1 : 2;
		for (int r = 0; r < 3 && t[r]; r++) {
			t[r]->once[at]++;
			t[r]->once_lat += am->lat[MP_LVL_LOCAL_DRAM] - am->lat[f->level];
		}
	}
	am->found.n = 0;
	am->win_accesses = accesses;
	am->win_fills = am->fills;
	am->win_walks = am->walks;
	am->win_first_lines = first_lines;
	am->win_first_pages = first_pages;
}

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
void anm_on_left(void *arg, uint32_t owner, unsigned bursts, const struct mp_model_left_page *page)
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
	struct an_burst_tally *t[3];
	anm_owner_tallies(am, owner, t);
	for (int r = 0; r < 3 && t[r]; r++)
		t[r]->first_single++;
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
 * use (anm_on_first) become hits at the level they stayed in. Under set
 * sampling they were modelled misses, which stand for f times as many
 * misses (f as mem_scale_sampled takes it, from the misses before this),
 * so the L1 hits they become are f times as many; those in L2 and the
 * LLC are scaled with the other levels. */
static void mem_apply_once(struct an_mem *m, const struct an_burst_tally *t, const struct an_model *am)
{
	static const unsigned lvl[3] = { MP_LVL_L1, MP_LVL_L2, MP_LVL_L3 };
	uint64_t n[3] = { t->once[0], t->once[1], t->once[2] }, lat = t->once_lat;
	uint64_t dram = m->level[MP_LVL_LOCAL_DRAM], all = n[0] + n[1] + n[2];
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
 * skips (anm_burst_window) become hits in the DTLB or STLB they were found
 * in; their paging-structure references go as the row's walks average. */
static void mem_apply_once_walks(struct an_mem *m, const struct an_burst_tally *t)
{
	m->walk_dram -= t->once_walk_dram < m->walk_dram ? t->once_walk_dram : m->walk_dram;
	uint64_t n[2] = { t->once_walk[0], t->once_walk[1] }, all = n[0] + n[1];
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

/* The model's estimates: the row's first fills and walks taken back
 * (mem_apply_once, mem_apply_once_walks; t: its tally, NULL for none),
 * then set sampling's scaling. */
static void mem_estimate(struct an_mem *m, const struct an_burst_tally *t, const struct an_model *am)
{
	uint64_t reads = m->dram_reads;
	if (am->first_on && t) {
		mem_apply_once(m, t, am);
		mem_apply_once_walks(m, t);
	}
	if (am->sample_sets > 1)
		mem_scale_sampled(m);
	/* store fills keep their share of the fills modelled */
	if (reads && reads != m->dram_reads)
		m->store_fills = (uint64_t)((double)m->store_fills * (double)m->dram_reads / (double)reads + 0.5);
}

static void tally_add(struct an_burst_tally *a, const struct an_burst_tally *b)
{
	const uint64_t *v = (const uint64_t *)b; /* an_burst_tally is all uint64_t */
	uint64_t *u = (uint64_t *)a;
	for (size_t i = 0; i < sizeof(*a) / sizeof(uint64_t); i++)
		u[i] += v[i];
}

int an_model_scale_sets(struct an_state *st)
{
	const struct an_model *am = st->model;
	if (!am || (am->sample_sets == 1 && !am->first_on))
		return 0;
	/* the classes' tallies and the total's: the sums of their parts',
	 * scaled by their threads' factors (an_bursts_apply) */
	const struct tally_rows *parts = &am->tally[AN_TALLY_PART];
	struct an_burst_tally *cls = NULL, total = { 0 };
	if (parts->n) {
		cls = calloc(st->classes.n + 1, sizeof(*cls));
		if (!cls)
			return -ENOMEM;
		for (size_t i = 0; i < st->parts.n && i < parts->n; i++) {
			tally_add(&cls[st->parts.v[i].cls], &parts->v[i]);
			tally_add(&total, &parts->v[i]);
		}
	}
	for (size_t i = 0; i < st->ips.n; i++)
		mem_estimate(&st->ips.v[i].mem, an_model_tally(st, AN_TALLY_IP, i), am);
	for (size_t i = 0; i < st->classes.n; i++) {
		struct an_mem *m = &st->classes.v[i].mem;
		if (am->sample_sets > 1 && m->miss_unmodelled && !m->miss_modelled) {
			st->res->mem_unsampled_objects++;
			st->res->mem_unsampled_refs += m->refs;
		}
		mem_estimate(m, cls ? &cls[i] : NULL, am);
	}
	for (size_t i = 0; i < st->threads.n; i++)
		mem_estimate(&st->threads.v[i].mem, an_model_tally(st, AN_TALLY_THREAD, i), am);
	mem_estimate(&st->res->mem_total, cls ? &total : NULL, am);
	free(cls);
	return 0;
}

/* Page pg of process proc into the bound's bitmap. */
void anm_span_set(struct an_model *am, uint32_t proc, uint64_t pg)
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
void anm_wspan_add(struct an_model *am, uint32_t proc, unsigned core, unsigned shift, uint64_t pg)
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
void anm_wspan_range(struct an_model *am, uint32_t proc, unsigned core, unsigned shift, uint64_t lo, uint64_t hi)
{
	for (uint64_t pg = lo >> shift; hi > lo && pg <= (hi - 1) >> shift && !am->wspan_over; pg++)
		anm_wspan_add(am, proc, core, shift, pg);
}

/* The page size class cls is modelled in, as a shift: as mapped counts
 * 4 KiB pages (THP's, where the recording saw them, are bigger: the bound
 * stays an upper one). */
unsigned anm_span_shift(struct an_state *st, struct an_model *am, uint32_t cls)
{
	unsigned sh = anm_class_shift(st, am, cls);
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
		anm_wspan_range(am, s->proc, core, anm_span_shift(st, am, o->cls), o->lo, o->hi);
	if (before || !am->span || am->span_over)
		return;
	uint64_t lo = o->lo >> 12, hi = (o->hi + 4095) >> 12;
	if (hi - lo > am->span_limit)
		am->span_over = 1;
	for (uint64_t pg = lo; pg < hi && !am->span_over; pg++)
		anm_span_set(am, s->proc, pg);
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
		anm_wspan_range(am, s->proc, stream_core(st, am, s), o->page_shift && !o->npage_rules ? o->page_shift : 12,
			    addr, addr + size);
	}
	if (!am->span || am->span_over)
		return;
	uint64_t lo = addr >> 12, hi = (addr + size + 4095) >> 12;
	if (hi - lo > am->span_limit)
		am->span_over = 1;
	for (uint64_t pg = lo; pg < hi && !am->span_over; pg++)
		anm_span_set(am, s->proc, pg);
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
