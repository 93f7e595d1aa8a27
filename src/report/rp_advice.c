// SPDX-License-Identifier: MIT
/*
 * What to change, from a modelled result's figures (report --model, object
 * view): per object, a memory-system cost a change to the program would
 * avoid, with its evidence (the modelled figures and the arithmetic on
 * them) and the change. Five kinds, each only where the object accounts
 * for at least ADV_MIN_SHARE of the cost (what is worth a change):
 *   page walks  many per line reference: huge pages (the PTAT paper's
 *               and the ORMBP paper's huge-page experiments);
 *   DRAM passes each of its lines read from DRAM several times: fuse or
 *               block the passes, or shrink / split what is reached at random;
 *   line use    few of the bytes DRAM brings in for it used: pack, reorder;
 *   store fills its stores, filling whole lines in order, read each line
 *               from DRAM first (write-allocate, the ORMBP paper's Table II):
 *               non-temporal stores;
 *   set conflicts
 *               a stride that is a multiple of many lines reaches few of
 *               L1's sets, whose ways cannot keep what it reuses: pad the
 *               stride, interchange or block the loops.
 * The thresholds are in docs/model.md ("What to change").
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/rp_int.h"

#define ADV_MIN_SHARE 0.05 /* of all page walks or DRAM reads */
#define ADV_MIN_WALKS 64 /* below these an object's figures are noise */
#define ADV_MIN_READS 1024
#define ADV_WALK_RATE (1.0 / 32) /* walks per line reference: a sequential 64-byte stride makes 1/64 */
#define ADV_PASSES 1.5 /* DRAM reads per line of the object */
#define ADV_LINE_USE 0.25 /* bytes used of those DRAM brings in */
#define ADV_STORE_FILLS 0.25 /* of its DRAM reads */
#define ADV_FILL_STRIDE 16 /* bytes: stores this close together write whole lines */
#define ADV_SETS_REACHED 8 /* a stride reaching 1/8 of L1's sets or fewer */
#define ADV_L1_FILLS 2.0 /* L1 fills per line of the object: it is reused, and L1 does not keep it */

const char *rp_advice_name(enum rp_advice_kind k)
{
	switch (k) {
	case RP_ADV_WALKS:
		return "page-walks";
	case RP_ADV_PASSES:
		return "dram-passes";
	case RP_ADV_LINE_USE:
		return "line-use";
	case RP_ADV_STORE_FILLS:
		return "store-fills";
	case RP_ADV_SET_CONFLICTS:
		return "set-conflicts";
	}
	return "?";
}

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0.0;
}


/* s as one shell word: as it is when it has nothing a shell would read,
 * else in single quotes (the caller checked it has none). */
static size_t shell_word(char *buf, size_t cap, const char *s)
{
	int plain = *s != 0;
	for (const char *p = s; *p && plain; p++)
		plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
			strchr("._/:=+,-", *p);
	int n = snprintf(buf, cap, plain ? " %s" : " '%s'", s);
	return n > 0 ? (size_t)n : 0;
}

/* `memprism whatif ... --vs-pages 'WHAT=SIZE'` as the user would type it
 * for this object, into buf; "" when a label or path would need more
 * quoting than single quotes give. WHAT: the file:line of the allocation
 * site where it has one (what --pages matches in the label), else the
 * label. */
/* What a --pages rule names for c: the file:line of its allocation site
 * where it has one (what --pages matches in the label), the whole site
 * with its calling context where the row is one context of a site, else
 * its label. */
static void advice_what(char *what, size_t cap, const struct an_class *c)
{
	if (c->site && strstr(c->site, " <- ")) {
		snprintf(what, cap, "%s", c->site);
		return;
	}
	const char *s = c->site ? c->site : c->label, *open = strrchr(s, '('), *close = open ? strchr(open, ')') : NULL;
	if (open && close && memchr(open, ':', (size_t)(close - open)) && (size_t)(close - open) < cap)
		snprintf(what, cap, "%.*s", (int)(close - open - 1), open + 1);
	else
		snprintf(what, cap, "%s", c->label);
}

static void whatif_hint(char *buf, size_t cap, const struct an_class *c, const struct rp_opts *o, const char *size)
{
	char what[256];
	advice_what(what, sizeof(what), c);
	const char *parts[] = { what, o->roi, o->data_path };
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (parts[i] && strchr(parts[i], '\'')) {
			buf[0] = 0;
			return;
		}
	for (size_t i = 0; i < o->nmodel_args; i++)
		if (strchr(o->model_args[i], '\'')) {
			buf[0] = 0;
			return;
		}
	char rule[300];
	snprintf(rule, sizeof(rule), "%s=%s", what, size);
	size_t n = (size_t)snprintf(buf, cap, "memprism whatif");
	/* the report's model options: configuration A of the what-if */
	for (size_t i = 0; i < o->nmodel_args && n < cap; i++)
		n += shell_word(buf + n, cap - n, o->model_args[i]);
	if (o->roi && n < cap) {
		n += (size_t)snprintf(buf + n, cap - n, " --roi");
		n += n < cap ? shell_word(buf + n, cap - n, o->roi) : 0;
	}
	if (n < cap) {
		n += (size_t)snprintf(buf + n, cap - n, " --vs-pages");
		n += n < cap ? shell_word(buf + n, cap - n, rule) : 0;
	}
	/* (the default file needs no naming) */
	if (o->data_path && strcmp(o->data_path, "memprism.data") != 0 && n < cap)
		shell_word(buf + n, cap - n, o->data_path);
}

static void add(struct rp_advice *out, size_t cap, size_t *n, const struct rp_advice *a)
{
	if (*n < cap) {
		out[(*n)++] = *a;
		return;
	}
	/* full: it replaces the smallest share, if smaller than its own */
	size_t lo = 0;
	for (size_t i = 1; i < cap; i++)
		if (out[i].share < out[lo].share)
			lo = i;
	if (cap && out[lo].share < a->share)
		out[lo] = *a;
}

static int by_share(const void *x, const void *y)
{
	const struct rp_advice *a = x, *b = y;
	if (a->share != b->share)
		return a->share > b->share ? -1 : 1;
	return a->kind < b->kind ? -1 : a->kind > b->kind;
}

/* The what-ifs of the page-walk findings among out[0..n), run at once
 * (o->check_pages): a change is advised only if at least half the
 * object's walks leave the total; moved onto its neighbours (a few small
 * blocks in huge pages among others in small ones) they do not. Its
 * figures go after the change. */
static void check_walks(const struct rp_opts *o, const struct an_mem *t, struct rp_advice *out, size_t n)
{
	struct rp_walk_check checks[RP_ADVICE_MAX];
	struct rp_advice *of[RP_ADVICE_MAX];
	uint64_t walks[RP_ADVICE_MAX];
	size_t k = 0;
	for (size_t i = 0; i < n && k < RP_ADVICE_MAX; i++)
		if (out[i].kind == RP_ADV_WALKS) {
			advice_what(checks[k].what, sizeof(checks[k].what), out[i].cls);
			checks[k].shift = out[i].shift;
			of[k++] = &out[i];
		}
	if (!k || !o->check_pages || o->check_pages(o->check_arg, k, checks, walks))
		return;
	for (size_t j = 0; j < k; j++) {
		struct rp_advice *a = of[j];
		char wa[32], wb[32];
		a->walks_a = t->walks;
		a->walks_b = walks[j];
		uint64_t gone = t->walks > walks[j] ? t->walks - walks[j] : 0;
		a->verdict = 2 * gone >= a->cls->mem.walks ? 1 : -1;
		snprintf(a->checked, sizeof(a->checked), "in %s pages, all page walks %s -> %s (%+.1f%%)",
			 a->shift == 30 ? "1 GiB" : "2 MiB", rp_grouped(wa, sizeof(wa), t->walks),
			 rp_grouped(wb, sizeof(wb), walks[j]),
			 t->walks ? 100.0 * ((double)walks[j] - (double)t->walks) / (double)t->walks : 0.0);
		size_t len = strlen(a->fix);
		if (a->verdict > 0)
			snprintf(a->fix + len, sizeof(a->fix) - len, "; checked by the model: %s", a->checked);
	}
}

static void walks_finding(const struct rp_opts *o, const struct an_class *c, const struct an_mem *t,
			  struct rp_advice *a)
{
	const struct rp_machine *m = o->machine;
	const struct an_mem *x = &c->mem;
	char w[32], pages[32], size[32], reach[32], hint[1024], nb[32], all[32];
	int n = snprintf(a->evidence, sizeof(a->evidence),
			 "%s page walks (%.1f%% of all), one per %.1f line references",
			 rp_grouped(w, sizeof(w), x->walks), 100.0 * a->share, ratio(x->refs, x->walks));
	uint64_t reach4 = m ? m->tlb_4k << 12 : 0, reach2 = m ? m->tlb_2m << 21 : 0;
	/* many blocks, each within a page or two: huge pages for them alone
	 * means an arena of their own */
	int blocks = c->instances > 1 && c->max_size && c->max_size < (2u << 20);
	if (blocks && n > 0 && (size_t)n < sizeof(a->evidence))
		snprintf(a->evidence + n, sizeof(a->evidence) - (size_t)n, "; %s blocks of up to %s (%s in all)",
			 rp_grouped(nb, sizeof(nb), c->instances), rp_human(size, sizeof(size), c->max_size),
			 rp_human(all, sizeof(all), c->bytes_allocated));
	else if (c->max_size && reach4 && n > 0 && (size_t)n < sizeof(a->evidence))
		snprintf(a->evidence + n, sizeof(a->evidence) - (size_t)n,
			 "; it spans %s (%s pages of 4 KiB), %.1fx what the TLBs reach in 4 KiB pages (%s)",
			 rp_human(size, sizeof(size), c->max_size),
			 rp_grouped(pages, sizeof(pages), (c->max_size + 4095) / 4096), ratio(c->max_size, reach4),
			 rp_human(reach, sizeof(reach), reach4));
	/* In 2 MiB pages an object within their reach would walk about once a
	 * page: one this walk-bound is in 4 KiB pages, or beyond that reach. */
	int beyond = c->max_size && reach2 && c->max_size > reach2;
	whatif_hint(hint, sizeof(hint), c, o, beyond ? "1G" : "2M");
	if (beyond)
		snprintf(a->fix, sizeof(a->fix),
			 "it is beyond what the TLBs reach even in 2 MiB pages (%s): put it in 1 GiB pages "
			 "(mmap with MAP_HUGETLB | MAP_HUGE_1GB from reserved hugetlbfs pages), or order the "
			 "accesses (sort or block them) so fewer pages are in use at a time%s%s%s",
			 rp_human(reach, sizeof(reach), reach2), hint[0] ? "; `" : "", hint,
			 hint[0] ? "` estimates it" : "");
	else if (blocks)
		snprintf(a->fix, sizeof(a->fix),
			 "give these blocks an arena of their own in 2 MiB pages (one 2 MiB-aligned region from "
			 "mmap, madvise(p, size, MADV_HUGEPAGE) before its first touch, carved by a pool "
			 "allocator), so they share a few huge pages instead of the heap's small ones%s%s%s",
			 hint[0] ? "; `" : "", hint, hint[0] ? "` estimates the change" : "");
	else
		snprintf(a->fix, sizeof(a->fix),
			 "put it in 2 MiB pages: allocate it 2 MiB-aligned (aligned_alloc(2 << 20, size) or mmap) "
			 "and madvise(p, size, MADV_HUGEPAGE) before its first touch, or set transparent huge "
			 "pages to always%s%s%s",
			 hint[0] ? "; `" : "", hint, hint[0] ? "` estimates the change" : "");
	a->shift = beyond ? 30 : 21;
}

static void passes_finding(const struct rp_opts *o, const struct an_class *c, const struct an_pattern *p,
			   struct rp_advice *a)
{
	const struct rp_machine *m = o->machine;
	uint64_t line = m && m->line ? m->line : 64, llc = m ? m->llc_size : 0;
	char rd[32], size[32], lines[32], cache[32], half[32], pat[64];
	uint64_t nlines = (c->bytes_allocated + line - 1) / line;
	snprintf(a->evidence, sizeof(a->evidence),
		 "%s DRAM reads (%.1f%% of all) for its %s%s (%s lines): each line came from DRAM %.1f times; "
		 "the modelled LLC holds %s; access pattern %s",
		 rp_grouped(rd, sizeof(rd), c->mem.dram_reads), 100.0 * a->share,
		 rp_human(size, sizeof(size), c->bytes_allocated), c->instances > 1 ? " over its instances" : "",
		 rp_grouped(lines, sizeof(lines), nlines), a->value, rp_human(cache, sizeof(cache), llc),
		 p ? an_pat_format(pat, sizeof(pat), p) : "unknown");
	rp_human(half, sizeof(half), llc / 2);
	int sequential = p && (p->kind == AN_PAT_FORWARD || p->kind == AN_PAT_BACKWARD);
	if (p && p->kind == AN_PAT_STRIDED)
		snprintf(a->fix, sizeof(a->fix),
			 "it is walked with a stride, so a line fetched for one access is gone before the accesses "
			 "to the rest of it: interchange the loops so the inner one walks along it, or block them "
			 "(tiles of at most half the LLC, %s)",
			 half);
	else if (sequential)
		snprintf(a->fix, sizeof(a->fix),
			 "its passes do not reuse what the pass before brought in: fuse the loops that pass over it "
			 "(initialise it in the loop that first uses it), or block them: work on tiles of at most "
			 "half the LLC (%s) so each tile is reused while it is cached",
			 half);
	else
		snprintf(a->fix, sizeof(a->fix),
			 "its lines are evicted before they are used again: shrink it (smaller types, cold fields "
			 "moved out) or split the work so each part touches at most half the LLC (%s) before the "
			 "next",
			 half);
}

static void line_use_finding(const struct rp_opts *o, const struct an_class *c, struct rp_advice *a, uint64_t used)
{
	const struct rp_machine *m = o->machine;
	uint64_t line = m && m->line ? m->line : 64;
	char ld[32], st[32], rd[32];
	snprintf(a->evidence, sizeof(a->evidence),
		 "its accesses touch about %.1f%% of the bytes DRAM brings in for it: %s bytes loaded and %s "
		 "stored (the larger counts: a read-modify-write touches its bytes twice) for %s lines of %" PRIu64
		 " bytes read from DRAM (%.1f%% of all), %.1f bytes a line",
		 100.0 * a->value, rp_grouped(ld, sizeof(ld), c->c.bytes_loaded),
		 rp_grouped(st, sizeof(st), c->c.bytes_stored), rp_grouped(rd, sizeof(rd), c->mem.dram_reads), line,
		 100.0 * a->share, ratio(used, c->mem.dram_reads));
	snprintf(a->fix, sizeof(a->fix),
		 "pack what is used together: move cold fields out (a structure of arrays), use smaller types, "
		 "or reorder the accesses (sort the indices, block the loop) so each line fetched serves more "
		 "of them");
}

static void store_fills_finding(const struct rp_machine *m, const struct an_class *c, const struct an_pattern *p,
				struct rp_advice *a)
{
	char sf[32], rd[32], pat[64], size[32], llc[32];
	snprintf(a->evidence, sizeof(a->evidence),
		 "%s of its %s DRAM reads (%.1f%%; %.1f%% of all) fetch lines for its stores (write-allocate: a "
		 "store that misses reads its line first); its accesses go %s, so the stores fill the lines "
		 "they fetch, and its %s is over half the modelled LLC (%s), so they leave the caches before "
		 "long anyway",
		 rp_grouped(sf, sizeof(sf), c->mem.store_fills), rp_grouped(rd, sizeof(rd), c->mem.dram_reads),
		 100.0 * a->value, 100.0 * a->share, an_pat_format(pat, sizeof(pat), p),
		 rp_human(size, sizeof(size), c->max_size), rp_human(llc, sizeof(llc), m->llc_size));
	snprintf(a->fix, sizeof(a->fix),
		 "write it with non-temporal (streaming) stores, which skip that read: _mm_stream_si128, "
		 "_mm256_stream_si256 or __builtin_nontemporal_store in the loop, then _mm_sfence(); or "
		 "memset / memcpy, which use them for large sizes. Not where it is read again soon: those "
		 "stores bypass the caches");
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* The L1 sets a stride of k lines reaches: a + j k (mod sets) takes
 * sets / gcd(k, sets) values (L1 is indexed within the page offset on
 * the machines modelled, so virtual and physical strides agree). */
static void conflicts_finding(const struct rp_machine *m, const struct an_pattern *p, uint64_t k, uint64_t sets,
			      uint64_t misses, uint64_t nlines, struct rp_advice *a)
{
	uint64_t g = gcd(k, sets), reached = sets / g, line = m->line;
	char held[32], l1[32], ms[32], ls[32], row[32];
	snprintf(a->evidence, sizeof(a->evidence),
		 "its accesses go strided %+lld (%llu lines): in L1's %llu sets that reaches %llu (gcd(%llu, %llu) = "
		 "%llu), whose %u ways hold %llu lines (%s) of the cache's %s; each of its lines came into L1 %.1f "
		 "times (%s L1 misses for %s lines, %.1f%% of all L1 misses)",
		 (long long)p->stride, (unsigned long long)k, (unsigned long long)sets, (unsigned long long)reached,
		 (unsigned long long)k, (unsigned long long)sets, (unsigned long long)g, m->l1d_ways,
		 (unsigned long long)(reached * m->l1d_ways),
		 rp_human(held, sizeof(held), reached * m->l1d_ways * line), rp_human(l1, sizeof(l1), m->l1d_size),
		 a->value, rp_grouped(ms, sizeof(ms), misses), rp_grouped(ls, sizeof(ls), nlines), 100.0 * a->share);
	snprintf(row, sizeof(row), "%llu", (unsigned long long)(k * line + line));
	snprintf(a->fix, sizeof(a->fix),
		 "pad the stride off a multiple of the sets: make each row one line longer (%s bytes: an odd number "
		 "of lines reaches every set), or interchange the loops so the inner one walks along a row, or "
		 "block them",
		 row);
}

size_t rp_advice_find(const struct an_result *r, const struct rp_opts *o, unsigned kinds, struct rp_advice *out,
		      size_t cap)
{
	size_t n = 0;
	if (r->mem_origin != AN_MEM_MODELLED)
		return 0;
	const struct an_mem *t = &r->mem_total;
	const struct rp_machine *m = o->machine;
	uint64_t line = m && m->line ? m->line : 64;
	uint64_t l1_sets = m && m->l1d_ways ? m->l1d_size / ((uint64_t)m->l1d_ways * line) : 0;
	for (size_t i = 0; i < r->nclasses; i++) {
		const struct an_class *c = &r->classes[i];
		const struct an_mem *x = &c->mem;
		const struct an_pattern *p = o->patterns ? &o->patterns[i] : NULL;
		if (!x->refs)
			continue;
		struct rp_advice a = { .cls = c };
		a.share = ratio(x->walks, t->walks);
		if ((kinds & (1u << RP_ADV_WALKS)) && x->walks >= ADV_MIN_WALKS && a.share >= ADV_MIN_SHARE &&
		    ratio(x->walks, x->refs) >= ADV_WALK_RATE) {
			a.kind = RP_ADV_WALKS;
			a.value = ratio(x->walks, x->refs);
			walks_finding(o, c, t, &a);
			add(out, cap, &n, &a);
		}
		uint64_t nlines = (c->bytes_allocated + line - 1) / line;
		uint64_t misses = x->refs - x->level[MP_LVL_L1], k = p ? (uint64_t)llabs(p->stride) / line : 0;
		a.share = ratio(misses, t->refs - t->level[MP_LVL_L1]);
		if ((kinds & (1u << RP_ADV_SET_CONFLICTS)) && l1_sets >= ADV_SETS_REACHED && p &&
		    p->kind == AN_PAT_STRIDED && k && (uint64_t)llabs(p->stride) % line == 0 &&
		    l1_sets / gcd(k, l1_sets) * ADV_SETS_REACHED <= l1_sets && misses >= ADV_MIN_READS &&
		    a.share >= ADV_MIN_SHARE && nlines && ratio(misses, nlines) >= ADV_L1_FILLS) {
			a.kind = RP_ADV_SET_CONFLICTS;
			a.value = ratio(misses, nlines);
			conflicts_finding(m, p, k, l1_sets, misses, nlines, &a);
			add(out, cap, &n, &a);
		}
		a.share = ratio(x->dram_reads, t->dram_reads);
		if (x->dram_reads < ADV_MIN_READS || a.share < ADV_MIN_SHARE)
			continue;
		if ((kinds & (1u << RP_ADV_PASSES)) && nlines && ratio(x->dram_reads, nlines) >= ADV_PASSES) {
			a.kind = RP_ADV_PASSES;
			a.value = ratio(x->dram_reads, nlines);
			passes_finding(o, c, p, &a);
			add(out, cap, &n, &a);
		}
		/* bytes used: the larger of those loaded and stored (a
		 * read-modify-write touches its bytes twice) */
		uint64_t used = c->c.bytes_loaded > c->c.bytes_stored ? c->c.bytes_loaded : c->c.bytes_stored;
		if ((kinds & (1u << RP_ADV_LINE_USE)) && ratio(used, x->dram_reads * line) <= ADV_LINE_USE) {
			a.kind = RP_ADV_LINE_USE;
			a.value = ratio(used, x->dram_reads * line);
			line_use_finding(o, c, &a, used);
			add(out, cap, &n, &a);
		}
		/* (streaming stores help where the lines would leave the caches
		 * anyway: a buffer that stays cached is better read from there) */
		int fills_lines = p && (p->kind == AN_PAT_FORWARD || p->kind == AN_PAT_BACKWARD) &&
				  p->stride >= -ADV_FILL_STRIDE && p->stride <= ADV_FILL_STRIDE;
		if ((kinds & (1u << RP_ADV_STORE_FILLS)) && fills_lines && m && 2 * c->max_size > m->llc_size &&
		    ratio(x->store_fills, x->dram_reads) >= ADV_STORE_FILLS) {
			a.kind = RP_ADV_STORE_FILLS;
			a.value = ratio(x->store_fills, x->dram_reads);
			store_fills_finding(m, c, p, &a);
			add(out, cap, &n, &a);
		}
	}
	check_walks(o, t, out, n);
	qsort(out, n, sizeof(*out), by_share);
	return n;
}

void rp_advice_text(FILE *out, const struct an_result *r, const struct rp_opts *o, unsigned kinds)
{
	struct rp_advice adv[RP_ADVICE_MAX];
	size_t n = rp_advice_find(r, o, kinds, adv, RP_ADVICE_MAX), shown = 0;
	fprintf(out, "\nwhat to change (from the modelled figures):\n");
	for (size_t i = 0; i < n; i++)
		if (adv[i].verdict >= 0) {
			fprintf(out, "  %s: %s\n    evidence: %s\n    change:   %s\n", rp_advice_name(adv[i].kind),
				adv[i].cls->label, adv[i].evidence, adv[i].fix);
			shown++;
		}
	if (!shown)
		fprintf(out, "  none: no object has %s worth a change (thresholds: docs/model.md)\n",
			kinds == (1u << RP_ADV_WALKS)
				? "page walks"
				: "page walks, DRAM passes, line use, store fills or set conflicts");
	for (size_t i = 0; i < n; i++)
		if (adv[i].verdict < 0)
			fprintf(out,
				"  not advised: huge pages for %s: %s; its own what-if does not confirm the change\n"
				"    evidence: %s\n",
				adv[i].cls->label, adv[i].checked, adv[i].evidence);
}

static void advice_json(FILE *out, const struct rp_advice *a, void (*str)(FILE *out, const char *s))
{
	fprintf(out, "{\"kind\":\"%s\",\"object\":", rp_advice_name(a->kind));
	str(out, a->cls->label);
	fprintf(out, ",\"share\":%.6f,\"value\":%.6f,\"evidence\":", a->share, a->value);
	str(out, a->evidence);
	fprintf(out, ",\"fix\":");
	str(out, a->fix);
	if (a->verdict)
		fprintf(out, ",\"whatif_walks\":[%" PRIu64 ",%" PRIu64 "]", a->walks_a, a->walks_b);
	fprintf(out, "}");
}

void rp_advice_json(FILE *out, const struct an_result *r, const struct rp_opts *o,
		    void (*str)(FILE *out, const char *s))
{
	struct rp_advice adv[RP_ADVICE_MAX];
	size_t n = rp_advice_find(r, o, RP_ADVICE_ALL, adv, RP_ADVICE_MAX);
	int first = 1;
	fprintf(out, "\"findings\":[");
	for (size_t i = 0; i < n; i++)
		if (adv[i].verdict >= 0) {
			fprintf(out, "%s", first ? "" : ",");
			advice_json(out, &adv[i], str);
			first = 0;
		}
	fprintf(out, "],\"not_advised\":[");
	first = 1;
	for (size_t i = 0; i < n; i++)
		if (adv[i].verdict < 0) {
			fprintf(out, "%s", first ? "" : ",");
			advice_json(out, &adv[i], str);
			first = 0;
		}
	fprintf(out, "]");
}
