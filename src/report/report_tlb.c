// SPDX-License-Identifier: MIT
/*
 * The TLB view (memprism tlb): where page walks concentrate. Pages are
 * sorted by walks; the cumulative share of walks over the share of pages is
 * the PTAT paper's per-page distribution (its Figures 6-7), and each page names
 * the object on it, so "80% of walks come from 3% of pages" comes with
 * which objects those pages hold.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/rp_int.h"

static int by_walks(const void *a, const void *b)
{
	const struct an_page *x = *(const struct an_page *const *)a, *y = *(const struct an_page *const *)b;
	if (x->walks != y->walks)
		return x->walks < y->walks ? 1 : -1;
	if (x->dtlb_misses != y->dtlb_misses)
		return x->dtlb_misses < y->dtlb_misses ? 1 : -1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static const char *page_size(unsigned shift)
{
	return shift >= 30 ? "1G" : shift >= 21 ? "2M" : "4K";
}

struct obj_row {
	uint32_t cls;
	uint64_t pages, walks, misses;
};

static int obj_by_walks(const void *a, const void *b)
{
	const struct obj_row *x = a, *y = b;
	if (x->walks != y->walks)
		return x->walks < y->walks ? 1 : -1;
	return x->misses < y->misses ? 1 : x->misses > y->misses ? -1 : 0;
}

/* Pages (sorted by walks) needed for `share` of all walks. */
static size_t pages_for(struct an_page *const *pg, size_t n, uint64_t total, double share)
{
	uint64_t need = (uint64_t)((double)total * share + 0.999999), sum = 0;
	for (size_t i = 0; i < n; i++) {
		sum += pg[i]->walks;
		if (sum >= need)
			return i + 1;
	}
	return n;
}

int rp_render_tlb(FILE *out, const struct an_result *res, const struct rp_opts *o)
{
	size_t n = res->npages;
	struct an_page **pg = calloc(n ? n : 1, sizeof(*pg));
	struct obj_row *objs = calloc(res->nclasses ? res->nclasses : 1, sizeof(*objs));
	if (!pg || !objs) {
		free(pg);
		free(objs);
		return -ENOMEM;
	}
	uint64_t walks = 0, misses = 0;
	size_t sizes[3] = { 0 };
	for (size_t i = 0; i < n; i++) {
		pg[i] = &res->pages[i];
		walks += pg[i]->walks;
		misses += pg[i]->dtlb_misses;
		sizes[pg[i]->shift >= 30 ? 2 : pg[i]->shift >= 21 ? 1 : 0]++;
		uint32_t c = pg[i]->cls < res->nclasses ? pg[i]->cls : 0;
		objs[c].cls = c;
		objs[c].pages++;
		objs[c].walks += pg[i]->walks;
		objs[c].misses += pg[i]->dtlb_misses;
	}
	qsort(pg, n, sizeof(*pg), by_walks);
	qsort(objs, res->nclasses, sizeof(*objs), obj_by_walks);
	if (o->format == RP_CSV) {
		fprintf(out, "pid,page,size,dtlb_misses,walks,walk_refs,walk_share,object\n");
		for (size_t i = 0; i < n; i++) {
			const struct an_page *p = pg[i];
			fprintf(out, "%u,0x%llx,%s,%llu,%llu,%llu,%.6f,\"", p->pid, (unsigned long long)p->addr,
				page_size(p->shift), (unsigned long long)p->dtlb_misses, (unsigned long long)p->walks,
				(unsigned long long)p->walk_refs, walks ? (double)p->walks / (double)walks : 0.0);
			for (const char *s = p->cls < res->nclasses ? res->classes[p->cls].label : "?"; *s; s++) {
				if (*s == '"')
					fputc('"', out);
				fputc(*s, out);
			}
			fprintf(out, "\"\n");
		}
		goto out;
	}
	fprintf(out, "memprism tlb: %s (model %s: every figure here is MODELLED)\n",
		o->data_path ? o->data_path : "memprism.data", res->machine);
	if (res->cmdline[0])
		fprintf(out, "command:   %s\n", res->cmdline);
	if (o->roi)
		fprintf(out, "region:    '%s' only\n", o->roi);
	if (res->skipped_accesses)
		fprintf(out,
			"sampled:   bursts%s: %llu accesses %s, %llu skipped; the figures below are estimates "
			"(each thread's misses x its own factor)\n",
			res->bursts_replayed ? " at replay (--sample-bursts)" : "",
			(unsigned long long)res->recorded_accesses, res->bursts_replayed ? "replayed" : "recorded",
			(unsigned long long)res->skipped_accesses);
	fprintf(out,
		"pages:     %zu with first-level DTLB misses (%zu x 4K, %zu x 2M, "
		"%zu x 1G)\n",
		n, sizes[0], sizes[1], sizes[2]);
	fprintf(out,
		"misses:    %llu DTLB misses, %llu STLB hits, %llu page walks (%llu "
		"walk refs, %llu from DRAM)\n",
		(unsigned long long)misses, (unsigned long long)res->mem_total.tlb[MP_TLB_L2_HIT],
		(unsigned long long)walks, (unsigned long long)res->mem_total.walk_refs,
		(unsigned long long)res->mem_total.walk_dram);
	if (res->mem_total.refs)
		fprintf(out, "rate:      %.4f walks per line reference\n", (double)walks / (double)res->mem_total.refs);
	if (walks) {
		fprintf(out, "\nconcentration (pages sorted by walks, as in the PTAT paper's Figures 6-7):\n");
		static const double shares[] = { 0.5, 0.8, 0.9, 0.99 };
		for (size_t i = 0; i < sizeof(shares) / sizeof(shares[0]); i++) {
			size_t k = pages_for(pg, n, walks, shares[i]);
			fprintf(out, "  %4.0f%% of walks come from %6.2f%% of pages (%zu)\n", shares[i] * 100,
				100.0 * (double)k / (double)n, k);
		}
		static const double tops[] = { 0.01, 0.1, 0.5 };
		for (size_t i = 0; i < sizeof(tops) / sizeof(tops[0]); i++) {
			size_t k = (size_t)((double)n * tops[i] + 0.5);
			if (k == 0)
				k = 1;
			uint64_t s = 0;
			for (size_t j = 0; j < k && j < n; j++)
				s += pg[j]->walks;
			fprintf(out, "  top %3.0f%% of pages (%zu) make %6.2f%% of walks\n", tops[i] * 100, k,
				100.0 * (double)s / (double)walks);
		}
	}
	fprintf(out, "\n%12s %6s %10s %10s %12s %s\n", "page walks", "walk%", "pages", "walks/page", "DTLB misses",
		"object");
	size_t shown = 0;
	for (size_t i = 0; i < res->nclasses && objs[i].pages; i++) {
		if (o->limit && shown++ >= o->limit)
			break;
		fprintf(out, "%12llu %5.1f%% %10llu %10.2f %12llu %s\n", (unsigned long long)objs[i].walks,
			walks ? 100.0 * (double)objs[i].walks / (double)walks : 0.0, (unsigned long long)objs[i].pages,
			(double)objs[i].walks / (double)objs[i].pages, (unsigned long long)objs[i].misses,
			res->classes[objs[i].cls].label);
	}
	rp_advice_text(out, res, o, 1u << RP_ADV_WALKS);
	fprintf(out, "\n%12s %12s %8s %18s %4s %s\n", "page walks", "DTLB misses", "pid", "page", "size",
		"object (hottest pages)");
	size_t lim = o->limit ? o->limit : n;
	for (size_t i = 0; i < n && i < lim; i++)
		fprintf(out, "%12llu %12llu %8u %#18llx %4s %s\n", (unsigned long long)pg[i]->walks,
			(unsigned long long)pg[i]->dtlb_misses, pg[i]->pid, (unsigned long long)pg[i]->addr,
			page_size(pg[i]->shift), pg[i]->cls < res->nclasses ? res->classes[pg[i]->cls].label : "?");
	for (size_t i = 0; i < res->nwarnings; i++)
		fprintf(out, "%swarning: %s\n", i ? "" : "\n", res->warnings[i]);
out:
	free(pg);
	free(objs);
	return 0;
}
