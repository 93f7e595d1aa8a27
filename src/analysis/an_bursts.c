// SPDX-License-Identifier: MIT
/*
 * Burst sampling's estimates (record --sample-bursts, or --sample-bursts
 * at replay), made once the replay has ended: each thread's recorded
 * figures scaled by its own factor, the classes and totals summed from
 * their (class, thread) parts, first fills and walks weighed by the
 * footprint's fit (an_model_fit, an_model_walk_weight), and what the
 * estimates rest on said as warnings. an_run calls an_bursts_apply
 * between the site judgement and the result's tables.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_int.h"
#include "model/machine.h"

/* Burst sampling (an_bursts_apply): where the footprint fits the LLC
 * (lines), what a line seen in one burst only stands for, and the cycles
 * a fill taken back as an LLC hit saves; where the pages fit the STLB
 * (pages), what a page seen in one burst stands for. */
struct seen_weight {
	int lines, pages;
	double w, wp;
	uint64_t lat;
	double left_p; /* the share of dram_writes_left_p that counts (an_fit.evict_p) */
};

/* Scales a row's figures m by its factor f, and settles its tally t
 * (NULL: none): the writebacks its dirty lines left stand for join m, and
 * t keeps only f - 1 of each first fill and walk to take back
 * (an_model_scale_sets). (f 1 changes no figure: it only settles t.)
 * sw: the first fills of lines seen in one burst count sw->w times, of
 * lines seen in more once, the rest taken back as LLC hits; the first
 * walks of pages likewise by sw->wp, taken back as STLB hits (NULL, or
 * lines / pages 0: they stay scaled). */
static void scale_mem(struct an_mem *m, struct an_burst_tally *t, double f, const struct seen_weight *sw)
{
	uint64_t *v = (uint64_t *)m; /* an_mem is all uint64_t */
	for (size_t i = 0; i < sizeof(*m) / sizeof(uint64_t); i++)
		v[i] = an_scaled(v[i], f);
	if (!t)
		return;
	const struct an_burst_tally c = *t;
	*t = (struct an_burst_tally){ 0 };
	m->dram_writes += an_scaled(c.dram_writes_left, f - 1) +
			  (sw ? an_scaled(c.dram_writes_left_p, (f - 1) * sw->left_p) : 0);
	for (int i = 0; i < 3; i++)
		t->once[i] = an_scaled(c.once[i], f - 1);
	t->once_lat = an_scaled(c.once_lat, f - 1);
	for (int i = 0; i < 2; i++)
		t->once_walk[i] = an_scaled(c.once_walk[i], f - 1);
	t->once_walk_dram = an_scaled(c.once_walk_dram, f - 1);
	if (sw && sw->lines) {
		uint64_t n = an_scaled(c.first_unused, f - 1) + (f > sw->w ? an_scaled(c.first_single, f - sw->w) : 0);
		t->once[2] += n;
		t->once_lat += n * sw->lat;
	}
	if (sw && sw->pages)
		t->once_walk[1] += an_scaled(c.walk_unused, f - 1) +
				   (f > sw->wp ? an_scaled(c.walk_single, f - sw->wp) : 0);
}

static void scale_counts(struct an_counts *c, double f)
{
	c->loads = an_scaled(c->loads, f);
	c->stores = an_scaled(c->stores, f);
	c->bytes_loaded = an_scaled(c->bytes_loaded, f);
	c->bytes_stored = an_scaled(c->bytes_stored, f);
}

/* A trace with skips but without the sample_bursts meta that turns the
 * parts on (not written by memprism's recorder): one factor for all. */
static void scale_uniformly(struct an_state *st, struct an_result *r, double f)
{
	for (size_t i = 0; i < st->classes.n; i++) {
		scale_counts(&st->classes.v[i].c, f);
		scale_mem(&st->classes.v[i].mem, NULL, f, NULL);
	}
	for (size_t i = 0; i < st->threads.n; i++) {
		scale_counts(&st->threads.v[i].c, f);
		scale_mem(&st->threads.v[i].mem, an_model_tally(st, AN_TALLY_THREAD, i), f, NULL);
		st->threads.v[i].sample_factor = f;
	}
	for (size_t i = 0; i < st->ips.n; i++) {
		scale_counts(&st->ips.v[i].c, f);
		scale_mem(&st->ips.v[i].mem, an_model_tally(st, AN_TALLY_IP, i), f, NULL);
	}
	scale_counts(&r->total, f);
	scale_mem(&r->mem_total, NULL, f, NULL);
	/* shares of mem_total.refs: scaled alike */
	r->refs_physical = an_scaled(r->refs_physical, f);
	r->refs_thp = an_scaled(r->refs_thp, f);
	r->accesses_outside_roi = an_scaled(r->accesses_outside_roi, f);
}

/* At random, a program whose footprint S is past the LLC's C lines hit
 * the LLC for C / S of its references: the bursts' misses are up to
 * C / (S - C) too many. That bound, and into most its words: "up to ~N%",
 * or "far" where a footprint a hair over the LLC makes it huge and
 * meaningless (33,242% for randacc's 32 MiB on the host's 32 MiB, whose
 * estimate was +155%). */
static double overshoot(const struct an_fit *fit, char *most, size_t len)
{
	const double c = (double)fit->llc, up = c / (fit->footprint - c);
	if (up < 10)
		snprintf(most, len, "up to ~%.0f%%", 100 * up);
	else
		snprintf(most, len, "far");
	return up;
}

/* Burst sampling with the model: what its estimates rest on, said as
 * warnings (an_bursts_apply's fit, weights and the writes the dirty
 * lines left stand for); full: the advice to model without sampling. */
static void sampling_warnings(struct an_state *st, const struct an_result *r, const struct an_fit *fit,
			      const struct seen_weight *sw, uint64_t p1, uint64_t p2, double left_writes,
			      const char *full)
{
	const struct mp_machine *mm = st->opts->machine;
	an_warn(st,
		"the model saw only the sampled bursts (%s --sample-bursts): its figures are "
		"scaled estimates, and cache state between bursts is not what the program had",
		st->replay_on ? "replayed with" : "record");
	/* (a footprint that fits the LLC, pages that fit the STLB: above) */
	char walks[200];
	if (sw->pages)
		snprintf(walks, sizeof(walks),
			 "a page's first walk likewise, %.2f times when one burst saw it (%llu pages seen in "
			 "one burst, %llu in two)",
			 sw->wp, (unsigned long long)p1, (unsigned long long)p2);
	else
		snprintf(walks, sizeof(walks), "page walks of pages seen in one burst only are scaled as if they "
					       "recurred");
	const unsigned long long touched = fit->lines * mm->line >> 10, llc_kib = mm->llc.size >> 10;
	const int touched_fits = fit->lines && fit->lines <= fit->llc;
	if (sw->lines)
		an_warn(st,
			"the footprint the bursts touched (~%llu KiB) fits the modelled LLC (%llu KiB): its "
			"misses are mostly first touches, which the skipped accesses would have hit; a line's "
			"first fill counts once when a later burst saw the line, and %.2f times (at most its "
			"thread's factor) when none did "
			"(itself and the lines no burst saw, from %llu lines seen in one burst and %llu in "
			"two); %s: DRAM and page-walk estimates are rough: %s",
			touched, llc_kib, sw->w, (unsigned long long)fit->f1, (unsigned long long)fit->f2, walks,
			full);
	else if (touched_fits && fit->tracked && fit->footprint > (double)fit->llc) {
		/* The bursts alone may not fill the LLC that the program's
		 * footprint keeps full: then they find fewer lines cached
		 * than the program did (randacc 64 MiB on Haswell's 30 MiB in
		 * bursts of 10,000 in 100,000: DRAM reads +50%). At random,
		 * the program hit the LLC for its share of the footprint
		 * (overshoot). */
		char why[256] = "", most[64];
		const double up = overshoot(fit, most, sizeof(most));
		if (an_model_llc_filled(st) < 0.5 && up >= 0.05)
			snprintf(why, sizeof(why),
				 "; the bursts filled too little of the LLC for its sets to evict, which "
				 "the skipped accesses kept full: DRAM estimates may be %s too high%s",
				 most, up >= 0.2 ? ": model a full trace" : "");
		an_warn(st,
			"the footprint the bursts touched (~%llu KiB) fits the modelled LLC (%llu KiB), but "
			"with the lines no burst saw (from %llu lines seen in one burst and %llu in two) the "
			"program's is ~%llu KiB, which does not: its misses are scaled as if they recurred%s",
			touched, llc_kib, (unsigned long long)fit->f1, (unsigned long long)fit->f2,
			(unsigned long long)(fit->footprint * mm->line / 1024), why);
	} else if (touched_fits && fit->tracked)
		an_warn(st,
			"the footprint the bursts touched (~%llu KiB) fits the modelled LLC (%llu KiB), and "
			"with the lines no burst saw (Chao1: ~%llu KiB) it would still, but the data objects "
			"the bursts touched span %s the LLC: where lines are seen unevenly (a big array "
			"streamed beside a small one in use, bursts in step with a scan) that estimate is "
			"too low, so misses are scaled as if they recurred: DRAM and page-walk estimates may "
			"be too high: %s",
			touched, llc_kib, (unsigned long long)(fit->footprint * mm->line / 1024),
			fit->bound == UINT64_MAX ? "more than twice" : "more than", full);
	else if (touched_fits)
		an_warn(st,
			"the footprint the bursts touched (~%llu KiB) fits the modelled LLC (%llu KiB): its "
			"misses are mostly first touches, which the skipped accesses would have hit; scaled as "
			"if they recurred, DRAM and page-walk estimates are likely far too high: %s",
			touched, llc_kib, full);
	else if (fit->tracked && fit->footprint > (double)fit->llc &&
		 (double)fit->llc / (fit->footprint - (double)fit->llc) >= 0.2) {
		/* A footprint past the LLC but within ~6 times it: between
		 * two bursts the model sees 1/f of the program's traffic,
		 * so lines stay cached longer in its bursts than they did
		 * in the program, and a line's first fill in a burst,
		 * scaled as if it recurred, had often been cached in the
		 * program (touched once before, in a skip). randacc on the
		 * host's 32 MiB, bursts 1:9: 36 MiB +97% DRAM reads, 48
		 * MiB +35%, 64 MiB +16%, 256 MiB +2%. overshoot's bound is
		 * loose here: 2x to 8x those errors. */
		char most[64];
		overshoot(fit, most, sizeof(most));
		an_warn(st,
			"the footprint the bursts touched (~%llu KiB) is past the modelled LLC (%llu KiB), "
			"but with the lines no burst saw the program's (~%llu KiB) is within %.1f times it: "
			"lines filled in a burst for the first time are scaled as if they recurred, though "
			"the program, whose skipped accesses the model did not see, often still had them "
			"cached: DRAM estimates may be %s too high: %s",
			touched, llc_kib, (unsigned long long)(fit->footprint * mm->line / 1024),
			fit->footprint / (double)fit->llc, most, full);
	}
	if (left_writes > 0.5 * (double)r->mem_total.dram_writes && left_writes >= 1000)
		an_warn(st,
			"%.0f%% of the DRAM write estimate are writebacks the dirty lines still cached at the "
			"end stand for (each, those its thread's skipped accesses would have caused): rough",
			100 * left_writes / (double)r->mem_total.dram_writes);
	if (r->recorded_accesses < 10000)
		an_warn(st,
			"the bursts recorded %llu accesses of %llu: too few for the model's estimates to mean "
			"much: %s",
			(unsigned long long)r->recorded_accesses,
			(unsigned long long)(r->recorded_accesses + r->skipped_accesses), full);
}

/*
 * Burst sampling: recorded figures become estimates of the whole run, each
 * thread's scaled by its own factor, (recorded + skipped) / recorded. A
 * thread that skipped nothing (a main thread that only set up and never
 * reached the end of its first burst) keeps its figures exactly; one factor
 * over all threads scaled it as if it had skipped too (arrays: DRAM traffic
 * 4x the full run's). Threads and code addresses are kept per thread during
 * the replay, classes per (class, thread) part: each is scaled by its
 * thread's factor here, and the classes and the totals are the sums.
 */
void an_bursts_apply(struct an_state *st, struct an_result *r)
{
	/* (the advice of the warnings below) */
	const char *full = st->replay_on ? "model without --sample-bursts" : "model a full trace";
	r->recorded_accesses = r->total.loads + r->total.stores + r->accesses_outside_roi;
	r->sample_factor = 1.0;
	if (r->skipped_accesses && r->recorded_accesses)
		r->sample_factor =
			(double)(r->recorded_accesses + r->skipped_accesses) / (double)r->recorded_accesses;
	if (!st->parts_on) {
		if (r->skipped_accesses && r->recorded_accesses) {
			an_warn(st, "the trace has skipped accesses but does not say it was recorded in bursts: "
				    "one factor scales every thread");
			scale_uniformly(st, r, r->sample_factor);
		}
		return;
	}
	for (size_t i = 0; i < st->threads.n; i++) {
		struct an_thread *t = &st->threads.v[i];
		if (t->skipped && t->recorded) {
			t->sample_factor = (double)(t->recorded + t->skipped) / (double)t->recorded;
			/* a long range is one access, recorded or skipped with the
			 * others: one that ran once (a 128 MiB memset at the start)
			 * counts 10 times (DRAM reads +180%) */
			if (st->model && t->range_lines && t->range_lines * 10 >= t->mem.refs)
				an_warn(st,
					"thread %u: %llu of its %llu modelled line references are long ranges "
					"(memset, memcpy) recorded in its bursts, scaled x%.2f as if they recurred: "
					"if they ran once, its estimates are too high; %s",
					t->tid, (unsigned long long)t->range_lines, (unsigned long long)t->mem.refs,
					t->sample_factor, full);
		} else if (t->skipped)
			an_warn(st, "thread %u skipped %llu accesses and recorded none: they are not in the estimates",
				t->tid, (unsigned long long)t->skipped);
	}
	/* A footprint that fits the LLC: its misses are cold ones, each line
	 * filled once in a full run; a line the bursts saw in a later burst
	 * too (still cached: in use or not) counts once. One seen in a single
	 * burst stands for itself and its share of the lines no burst saw,
	 * in the number Chao's estimator gives from the lines seen in one
	 * and in two bursts; scaled as if it recurred, it stood for f
	 * (allocheavy, bursts of 100K in 1M: DRAM reads 48,391 for 18,946 in
	 * full). Whether it fits is Chao1's too, and the bound of the data
	 * objects the bursts touched (an_model_fit). Pages alike, in the STLB.
	 * Where the footprint does not fit, the dirty lines left at the end
	 * in sets that had not evicted stand for writebacks by the share of
	 * the footprint the LLC cannot hold (an_model_finish). */
	const struct mp_machine *mm = st->opts->machine;
	struct an_fit fit;
	uint64_t p1 = 0, p2 = 0, pages = 0;
	an_model_fit(st, &fit);
	struct seen_weight sw = { 0, 0, 1.0, 1.0, mm ? mm->dram_latency - mm->llc.latency : 0, fit.evict_p };
	sw.lines = fit.fits && r->skipped_accesses;
	if (sw.lines && fit.f1)
		sw.w = 1.0 + fit.unseen / (double)fit.f1;
	sw.pages = r->skipped_accesses && an_model_walk_weight(st, &sw.wp, &p1, &p2, &pages);
	/* (the writes the dirty lines left stand for: told when most of the
	 * estimate) */
	double left_writes = 0;
	for (size_t i = 0; i < st->threads.n; i++) {
		const struct an_burst_tally *t = an_model_tally(st, AN_TALLY_THREAD, i);
		if (t)
			left_writes += (st->threads.v[i].sample_factor - 1) *
				       ((double)t->dram_writes_left + (double)t->dram_writes_left_p * sw.left_p);
	}
	for (size_t i = 0; i < st->parts.n; i++) {
		struct an_part *p = &st->parts.v[i];
		double f = st->threads.v[p->thread].sample_factor;
		if (f != 1.0)
			scale_counts(&p->c, f);
		scale_mem(&p->mem, an_model_tally(st, AN_TALLY_PART, i), f, &sw);
		an_counts_add(&st->classes.v[p->cls].c, &p->c);
		an_mem_add(&st->classes.v[p->cls].mem, &p->mem);
		an_mem_add(&r->mem_total, &p->mem);
	}
	r->total = (struct an_counts){ 0 };
	for (size_t i = 0; i < st->threads.n; i++) {
		struct an_thread *t = &st->threads.v[i];
		if (t->sample_factor != 1.0)
			scale_counts(&t->c, t->sample_factor);
		scale_mem(&t->mem, an_model_tally(st, AN_TALLY_THREAD, i), t->sample_factor, &sw);
		an_counts_add(&r->total, &t->c);
	}
	for (size_t i = 0; i < st->ips.n; i++) {
		struct an_ip *ip = &st->ips.v[i];
		double f = ip->thread < st->threads.n ? st->threads.v[ip->thread].sample_factor : 1.0;
		if (f != 1.0)
			scale_counts(&ip->c, f);
		scale_mem(&ip->mem, an_model_tally(st, AN_TALLY_IP, i), f, &sw);
	}
	/* the streams' own tallies, by their thread's factor, rounded once */
	double outside = 0, phys = 0, thp = 0;
	for (size_t i = 0; i < st->streams.n; i++) {
		const struct an_stream *s = &st->streams.v[i];
		double f = s->thread < st->threads.n ? st->threads.v[s->thread].sample_factor : 1.0;
		outside += (double)s->outside_roi * f;
		phys += (double)s->refs_physical * f;
		thp += (double)s->refs_thp * f;
	}
	r->accesses_outside_roi = (uint64_t)(outside + 0.5);
	r->refs_physical = (uint64_t)(phys + 0.5);
	r->refs_thp = (uint64_t)(thp + 0.5);
	if (st->model && r->skipped_accesses)
		sampling_warnings(st, r, &fit, &sw, p1, p2, left_writes, full);
}
