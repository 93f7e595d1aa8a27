// SPDX-License-Identifier: MIT
/*
 * The TLB view's page rows: counted as references miss the model's DTLB
 * (anm_page_count), folded from processes replayed at once, and handed
 * to the result (an_model_pages): rows kept per thread under burst
 * sampling scaled by their thread's factor and merged, what-if rules
 * checked against the classes' labels, rows in the order they were made.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_model_int.h"

static size_t row_home_of(const void *e, size_t cap)
{
	const struct page_row *r = e;
	return row_home(r->proc, r->addr >> r->shift, r->shift, r->thread, cap);
}

static int row_used(const void *e)
{
	return ((const struct page_row *)e)->dtlb_misses != 0;
}

void anm_page_count(struct an_state *st, struct an_model *am, uint32_t proc, uint32_t thread, uint64_t addr,
		    unsigned shift, uint32_t cls, const struct mp_model_out *o)
{
	uint64_t page = addr >> shift;
	if (am->nrows >= am->rows_max) {
		/* (a chunk of one record repeated, each a page further, made
		 * 20 M rows in a 4 MB file) */
		struct page_row *r = anm_page_row_find(am, proc, addr, shift, thread);
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

size_t an_model_rows(const struct an_state *st)
{
	return st->model ? st->model->nrows : 0;
}

int an_model_rows_fit(const struct an_state *st, uint64_t n)
{
	return !st->model || n <= st->model->rows_max;
}

int an_model_rows_fold(struct an_state *f, const struct an_state *st, const uint32_t *cmap)
{
	struct an_model *fm = f->model;
	const struct an_model *am = st->model;
	if (!fm || !am || !am->nrows)
		return 0;
	/* in the order the process made them, after the rows of the
	 * processes before it: the serial replay's order */
	const struct page_row **v = malloc(am->nrows * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t j = 0; j < am->rows_cap; j++)
		if (am->rows[j].dtlb_misses)
			v[am->rows[j].order] = &am->rows[j];
	int err = 0;
	for (size_t k = 0; k < am->nrows && !err; k++) {
		const struct page_row *w = v[k];
		if ((fm->nrows + 1) * 2 > fm->rows_cap) {
			size_t ncap = fm->rows_cap ? fm->rows_cap * 2 : 1024;
			struct page_row *nr =
				an_table_regrow(fm->rows, fm->rows_cap, ncap, sizeof(*nr), row_home_of, row_used);
			if (!nr) {
				err = -ENOMEM;
				break;
			}
			free(fm->rows);
			fm->rows = nr;
			fm->rows_cap = ncap;
		}
		/* (a page is one process's: no other state has its row) */
		size_t i = row_home(w->proc, w->addr >> w->shift, w->shift, w->thread, fm->rows_cap);
		while (fm->rows[i].dtlb_misses)
			i = (i + 1) & (fm->rows_cap - 1);
		fm->rows[i] = *w;
		fm->rows[i].cls = cmap[w->cls];
		fm->rows[i].order = (uint32_t)fm->nrows++;
	}
	free(v);
	return err;
}

struct page_row *anm_page_row_find(struct an_model *am, uint32_t proc, uint64_t addr, unsigned shift,
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
 * thread's factor (set by an_bursts_apply) and merged into one, in the
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
		 * back (anm_burst_window), found in the DTLB no miss there either;
		 * where the pages fit the STLB, those of pages seen in two
		 * bursts too, and f - wp of those seen in one (as the rows'
		 * an_burst_tally.walk_unused and walk_single: an_bursts_apply) */
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
