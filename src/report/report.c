// SPDX-License-Identifier: MIT
/*
 * The report: an_result rows grouped by object, site, kind, thread or
 * function, sorted by accesses, as a text table, CSV or JSON (schema in
 * docs/report-formats.md). Every figure here is a count of recorded accesses:
 * measured by instrumentation, not sampled and not modelled.
 */
#include "report/report.h"
#include "report/rp_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The C library's own code (beyond the mem and str calls the inst source
 * records) is named from this share of the program's CPU time: every
 * program spends a little there (printf, malloc), and a line for it would
 * tell no one to switch sources. */
#define RP_LIBC_UNSEEN_PCT 5

struct row {
	const char *label;
	const char *kind;
	struct an_counts c;
	struct an_mem mem;
	uint64_t instances, size, max_size;
	const struct an_class *cls; /* object view: details for JSON */
	uint32_t *threads;
	size_t nthreads;
	int own_threads; /* threads array allocated here */
	int own_label; /* label allocated here */
};

static uint64_t acc(const struct an_counts *c)
{
	return c->loads + c->stores;
}

static int by_accesses(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	uint64_t ax = acc(&x->c), ay = acc(&y->c);
	if (ax != ay)
		return ax < ay ? 1 : -1;
	if (x->size != y->size)
		return x->size < y->size ? 1 : -1;
	return strcmp(x->label, y->label);
}

static void add_counts(struct an_counts *a, const struct an_counts *b)
{
	a->loads += b->loads;
	a->stores += b->stores;
	a->bytes_loaded += b->bytes_loaded;
	a->bytes_stored += b->bytes_stored;
}

static int merge_threads(struct row *r, const uint32_t *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (k < r->nthreads && r->threads[k] != t[i])
			k++;
		if (k < r->nthreads)
			continue;
		uint32_t *nt = realloc(r->threads, (r->nthreads + 1) * sizeof(*nt));
		if (!nt)
			return -ENOMEM;
		r->threads = nt;
		r->threads[r->nthreads++] = t[i];
	}
	return 0;
}

static void free_rows(struct row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (rows[i].own_threads)
			free(rows[i].threads);
		if (rows[i].own_label)
			free((char *)rows[i].label);
	}
	free(rows);
}

/* Builds the rows of a view. Grouping views (site, kind) fold classes with
 * the same key into one row. */
static struct row *build_rows(const struct an_result *res, enum rp_by by, size_t *nrows)
{
	size_t cap = res->nclasses + res->nthreads + res->nfunctions + res->nlines + AN_KIND_COUNT + 1;
	struct row *rows = calloc(cap, sizeof(*rows));
	size_t n = 0;
	if (!rows)
		return NULL;
	switch (by) {
	case RP_BY_OBJECT:
		for (size_t i = 0; i < res->nclasses; i++) {
			const struct an_class *c = &res->classes[i];
			if (acc(&c->c) == 0 && c->kind != AN_KIND_HEAP && c->kind != AN_KIND_NAMED &&
			    c->kind != AN_KIND_GROUP)
				continue; /* untouched statics and mappings are noise */
			rows[n++] = (struct row){ .label = c->label, .kind = an_kind_name(c->kind), .c = c->c, .mem = c->mem,
						  .instances = c->instances, .size = c->bytes_allocated,
						  .max_size = c->max_size, .cls = c, .threads = c->threads,
						  .nthreads = c->nthreads };
		}
		break;
	case RP_BY_SITE:
	case RP_BY_KIND:
		for (size_t i = 0; i < res->nclasses; i++) {
			const struct an_class *c = &res->classes[i];
			const char *key = by == RP_BY_KIND ? an_kind_name(c->kind) : c->site ? c->site : NULL;
			if (!key)
				continue; /* site view: allocation sites only */
			size_t k = 0;
			while (k < n && strcmp(rows[k].label, key) != 0)
				k++;
			if (k == n)
				rows[n++] = (struct row){ .label = key,
							  .kind = by == RP_BY_KIND ? key : an_kind_name(c->kind),
							  .own_threads = 1 };
			add_counts(&rows[k].c, &c->c);
			an_mem_add(&rows[k].mem, &c->mem);
			rows[k].instances += c->instances;
			rows[k].size += c->bytes_allocated;
			if (c->max_size > rows[k].max_size)
				rows[k].max_size = c->max_size;
			if (merge_threads(&rows[k], c->threads, c->nthreads))
				goto oom;
		}
		break;
	case RP_BY_THREAD:
		for (size_t i = 0; i < res->nthreads; i++) {
			const struct an_thread *t = &res->threads[i];
			struct row *r = &rows[n++];
			char buf[128];
			snprintf(buf, sizeof(buf), "pid %u tid %u%s%s", t->pid, t->tid, t->name[0] ? " " : "", t->name);
			*r = (struct row){ .kind = "thread", .c = t->c, .mem = t->mem, .instances = t->allocations,
					   .label = strdup(buf), .own_label = 1 };
			if (!r->label)
				goto oom;
		}
		break;
	case RP_BY_FUNCTION:
	case RP_BY_LINE: {
		const struct an_function *fs = by == RP_BY_LINE ? res->lines : res->functions;
		size_t nf = by == RP_BY_LINE ? res->nlines : res->nfunctions;
		for (size_t i = 0; i < nf; i++)
			rows[n++] = (struct row){ .label = fs[i].name, .kind = fs[i].module, .c = fs[i].c, .mem = fs[i].mem };
		break;
	}
	case RP_BY_PAGE:
		break; /* rp_render_faults' view */
	case RP_BY_RANK:
	case RP_BY_PROCESS:
		break; /* rp_render_procs' views */
	}
	qsort(rows, n, sizeof(*rows), by_accesses);
	*nrows = n;
	return rows;
oom:
	free_rows(rows, n);
	return NULL;
}

static const char *by_name(enum rp_by by)
{
	static const char *const n[] = { "object", "site", "kind", "thread", "function", "page", "rank", "process", "line" };
	return (unsigned)by < sizeof(n) / sizeof(n[0]) ? n[by] : "?";
}

static void threads_text(char *buf, size_t cap, const struct an_result *res, const struct row *r)
{
	if (!r->nthreads) {
		snprintf(buf, cap, "-");
		return;
	}
	size_t o = 0;
	for (size_t i = 0; i < r->nthreads && i < 3; i++)
		o += (size_t)snprintf(buf + o, cap - o, "%s%u", i ? "," : "", res->threads[r->threads[i]].tid);
	if (r->nthreads > 3)
		snprintf(buf + o, cap - o, ",+%zu", r->nthreads - 3);
}

/* The row's access pattern ("forward +64"), "-" when unknown. */
static const char *pattern_text(char *buf, size_t cap, const struct an_result *res, const struct rp_opts *o,
				const struct row *r)
{
	if (!o->patterns || !r->cls)
		return "-";
	return an_pat_format(buf, cap, &o->patterns[r->cls - res->classes]);
}

/* n of total as a whole percent; "<1%" for a few, never "0%" for some. */
static const char *share(char *buf, size_t cap, uint64_t n, uint64_t total)
{
	double p = total ? 100.0 * (double)n / (double)total : 0;
	if (n && p < 0.5)
		snprintf(buf, cap, "<1%%");
	else
		snprintf(buf, cap, "%.0f%%", p);
	return buf;
}

/* What the inst source cannot see: the code of the modules memprism cc
 * did not build, with the share of the program's CPU time each took when
 * record sampled it (most first), and the C library's own code when it
 * took a share worth a look (RP_LIBC_UNSEEN_PCT). */
/* text, ended by a newline, within width columns (0: as it is): broken
 * at spaces, the lines after the first indented under the first's words */
static void print_wrapped(FILE *out, const char *text, size_t width, size_t indent)
{
	size_t n = strlen(text), col = 0;
	while (width > indent + 20 && col + n > width) {
		size_t room = width - col, cut = room;
		while (cut > 0 && text[cut] != ' ')
			cut--;
		if (!cut)
			break; /* (a word wider than the line: as it is) */
		fprintf(out, "%.*s\n%*s", (int)cut, text, (int)indent, "");
		text += cut + 1;
		n -= cut + 1;
		col = indent;
	}
	fprintf(out, "%s\n", text);
}

/* printf into buf at *at (cut at cap) */
static void catf(char *buf, size_t cap, size_t *at, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void catf(char *buf, size_t cap, size_t *at, const char *fmt, ...)
{
	if (*at + 1 >= cap)
		return;
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(buf + *at, cap - *at, fmt, ap);
	va_end(ap);
	*at = w < 0 ? *at : *at + (size_t)w < cap ? *at + (size_t)w : cap - 1;
}

void rp_unseen_text(FILE *out, const struct an_result *res, size_t width)
{
	char a[32], b[32], line[2048];
	size_t at = 0;
	const uint64_t total = res->cpu_samples;
	if (res->nunseen_modules) {
		size_t ord[6], n = 0; /* the six with most samples, by name among equals */
		for (size_t i = 0; i < res->nunseen_modules; i++) {
			uint64_t si = res->unseen_cpu ? res->unseen_cpu[i] : 0;
			size_t k = n < 6 ? n++ : 6;
			while (k > 0 && (res->unseen_cpu ? res->unseen_cpu[ord[k - 1]] : 0) < si) {
				if (k < 6)
					ord[k] = ord[k - 1];
				k--;
			}
			if (k < 6)
				ord[k] = i;
		}
		catf(line, sizeof(line), &at, "unseen:    loads and stores inside ");
		for (size_t j = 0; j < n; j++) {
			catf(line, sizeof(line), &at, "%s%s", j ? ", " : "", res->unseen_modules[ord[j]]);
			if (res->unseen_cpu && j == 0)
				catf(line, sizeof(line), &at, " (%s of the program's CPU time in %s sample%s)",
				     share(a, sizeof(a), res->unseen_cpu[ord[j]], total),
				     rp_grouped(b, sizeof(b), res->unseen_cpu[ord[j]]), res->unseen_cpu[ord[j]] == 1 ? "" : "s");
			else if (res->unseen_cpu)
				catf(line, sizeof(line), &at, " (%s in %s)", share(a, sizeof(a), res->unseen_cpu[ord[j]], total),
				     rp_grouped(b, sizeof(b), res->unseen_cpu[ord[j]]));
		}
		if (res->nunseen_modules > 6)
			catf(line, sizeof(line), &at, " and %zu more", res->nunseen_modules - 6);
		catf(line, sizeof(line), &at, "%s: `record --source valgrind` sees them",
		     res->unseen_cpu ? ", not built by memprism cc" : " (not built by memprism cc)");
		print_wrapped(out, line, width, 11);
	}
	if (total && res->libc_unseen * 100 >= total * RP_LIBC_UNSEEN_PCT) {
		at = 0;
		catf(line, sizeof(line), &at,
		     "unseen:    the C library's own loads and stores beyond mem*/str* calls (%s of the program's CPU "
		     "time in %s sample%s: ",
		     share(a, sizeof(a), res->libc_unseen, total), rp_grouped(b, sizeof(b), res->libc_unseen),
		     res->libc_unseen == 1 ? "" : "s");
		for (size_t k = 0; k < 3 && res->libc_unseen_fns[k].samples; k++)
			catf(line, sizeof(line), &at, "%s%s %s", k ? ", " : "", res->libc_unseen_fns[k].name,
			     share(a, sizeof(a), res->libc_unseen_fns[k].samples, total));
		catf(line, sizeof(line), &at, "): `record --source valgrind` sees them");
		print_wrapped(out, line, width, 11);
	}
}

/* JSON "unseen_cpu": the CPU-time figures behind the unseen lines, null
 * when the recording sampled no CPU time (docs/report-formats.md). */
static void unseen_cpu_json(FILE *out, const struct an_result *res)
{
	if (!res->cpu_period_ns) {
		fprintf(out, "null");
		return;
	}
	const double total = res->cpu_samples ? (double)res->cpu_samples : 1;
	fprintf(out, "{\"period_ns\":%llu,\"samples\":%llu,\"runtime_samples\":%llu,\"lost\":%llu,\"modules\":[",
		(unsigned long long)res->cpu_period_ns, (unsigned long long)res->cpu_samples,
		(unsigned long long)res->cpu_runtime_samples, (unsigned long long)res->cpu_lost);
	for (size_t i = 0; i < res->nunseen_modules; i++) {
		uint64_t n = res->unseen_cpu ? res->unseen_cpu[i] : 0;
		fprintf(out, "%s{\"name\":", i ? "," : "");
		rp_json_str(out, res->unseen_modules[i]);
		fprintf(out, ",\"samples\":%llu,\"share\":%.4f}", (unsigned long long)n, (double)n / total);
	}
	fprintf(out, "],\"libc_beyond_mem_str\":{\"samples\":%llu,\"share\":%.4f,\"functions\":[",
		(unsigned long long)res->libc_unseen, (double)res->libc_unseen / total);
	for (size_t k = 0; k < 3 && res->libc_unseen_fns[k].samples; k++) {
		fprintf(out, "%s{\"name\":", k ? "," : "");
		rp_json_str(out, res->libc_unseen_fns[k].name);
		fprintf(out, ",\"samples\":%llu}", (unsigned long long)res->libc_unseen_fns[k].samples);
	}
	fprintf(out, "]}}");
}

static void header_text(FILE *out, const struct an_result *res, const struct rp_opts *o)
{
	char a[32], b[32], c[32];
	uint64_t total = acc(&res->total);
	fprintf(out, "%smemprism report: %s (by %s)%s\n", o->color ? "\033[1m" : "",
		o->data_path ? o->data_path : "memprism.data", by_name(o->by), o->color ? "\033[0m" : "");
	char line[1536];
	if (res->cmdline[0]) {
		snprintf(line, sizeof(line), "command:   %s", res->cmdline);
		print_wrapped(out, line, o->width, 11);
	}
	rp_parts_text(out, o);
	int instrumented = 0;
	for (size_t i = 0; i < res->nprocs; i++)
		instrumented += res->procs[i].instrumented;
	/* the sources that record every access: their own words */
	const char *what = strcmp(res->source, "valgrind") == 0
				   ? "valgrind: every load and store of every instruction, program and libraries "
				     "(memprism's Valgrind tool)"
				   : "inst: every load and store of memprism cc/gcc code, libc mem*/str* as ranges";
	/* (on a terminal, wrapped at its width: an escape sequence counts as
	 * its bytes, so a coloured line wraps a little early, never late) */
	snprintf(line, sizeof(line), "source:    %s (measured counts%s)", what,
		 res->mem_origin == AN_MEM_MODELLED ? "" : ", no model");
	print_wrapped(out, line, o->width, 11);
	if (res->mem_origin == AN_MEM_MODELLED) {
		snprintf(line, sizeof(line),
			 "model:     %s: cache, TLB and DRAM figures are %sMODELLED%s (cache-line references through the "
			 "simulated hierarchy)",
			 res->machine, o->color ? "\033[33m" : "", o->color ? "\033[0m" : "");
		print_wrapped(out, line, o->width, 11);
	}
	rp_unseen_text(out, res, o->width);
	fprintf(out, "processes: %zu (%d instrumented), threads: %zu, allocations: %s\n", res->nprocs, instrumented,
		res->nthreads, rp_grouped(a, sizeof(a), res->allocations));
	fprintf(out, "accesses:  %s (loads %s, stores %s)", rp_grouped(a, sizeof(a), total),
		rp_grouped(b, sizeof(b), res->total.loads), rp_grouped(c, sizeof(c), res->total.stores));
	if (o->roi)
		fprintf(out, " inside region '%s'; %s outside", o->roi,
			rp_grouped(a, sizeof(a), res->accesses_outside_roi));
	fprintf(out, "\n");
	if (res->mem_origin == AN_MEM_MODELLED) {
		const struct an_mem *m = &res->mem_total;
		char d[32], e[32];
		fprintf(out, "modelled:  %s line refs; DRAM reads %s, writes %s; page walks %s (%s walk refs "
			     "from DRAM)\n",
			rp_grouped(a, sizeof(a), m->refs), rp_grouped(b, sizeof(b), m->dram_reads),
			rp_grouped(c, sizeof(c), m->dram_writes), rp_grouped(d, sizeof(d), m->walks),
			rp_grouped(e, sizeof(e), m->walk_dram));
		if (res->mem_sample_sets > 1) {
			fprintf(out,
				"sets:      L2 and LLC modelled for 1 set in %u (--sample-sets): L2/L3/DRAM "
				"shares, DRAM reads and writes and latencies are ESTIMATES (each object's modelled "
				"misses scaled to all its L1 misses); %s\n",
				res->mem_sample_sets,
				res->mem_l1_estimated ? "TLB figures are complete" : "L1 and TLB figures are complete");
			if (res->mem_l1_estimated)
				fprintf(out,
					"           L1 figures too, but for %s line refs (%.2f%%) in the middle of "
					"long ranges (memset, memcpy), whose L1 hits were estimated from their "
					"sampled lines\n",
					rp_grouped(a, sizeof(a), res->mem_l1_estimated),
					100.0 * (double)res->mem_l1_estimated / (double)(m->refs ? m->refs : 1));
			if (res->mem_unsampled_objects)
				fprintf(out, "           %s object%s (%.2f%% of line refs) had no miss in the sample: "
					     "beyond L1 their figures are unknown (-)\n",
					rp_grouped(a, sizeof(a), res->mem_unsampled_objects),
					res->mem_unsampled_objects == 1 ? "" : "s",
					100.0 * (double)res->mem_unsampled_refs / (double)(m->refs ? m->refs : 1));
		}
	}
	if (res->mem_origin == AN_MEM_MODELLED) {
		if (res->refs_physical)
			fprintf(out, "physical:  caches indexed by physical address for %.1f%% of line refs "
				     "(translations of %s pages recorded; %.1f%% of refs in THP)\n",
				100.0 * (double)res->refs_physical / (double)(res->mem_total.refs ? res->mem_total.refs : 1),
				rp_grouped(a, sizeof(a), res->phys_pages),
				100.0 * (double)res->refs_thp / (double)(res->mem_total.refs ? res->mem_total.refs : 1));
		else
			fprintf(out, "physical:  no translations recorded (record as root for /proc/PID/pagemap): "
				     "caches indexed by virtual address, 4 KiB pages unless --pages says otherwise\n");
	}
	if (res->min_size)
		fprintf(out, "heap:      blocks under %llu bytes not tracked (record --min-size): their "
			     "accesses count as the heap mapping\n",
			(unsigned long long)res->min_size);
	if (res->skipped_accesses) {
		/* each thread is scaled by its own factor: say how far they range */
		const char *kept = res->bursts_replayed ? "replayed" : "recorded";
		double lo = 0, hi = 0;
		for (size_t i = 0; i < res->nthreads; i++) {
			const struct an_thread *t = &res->threads[i];
			if (!t->recorded)
				continue;
			if (lo == 0 || t->sample_factor < lo)
				lo = t->sample_factor;
			if (t->sample_factor > hi)
				hi = t->sample_factor;
		}
		fprintf(out, "sampled:   bursts%s: %s accesses %s, %s skipped; the counts below are estimates (",
			res->bursts_replayed ? " at replay (--sample-bursts)" : "",
			rp_grouped(a, sizeof(a), res->recorded_accesses), kept,
			rp_grouped(b, sizeof(b), res->skipped_accesses));
		if (hi - lo < 0.005)
			fprintf(out, "%s x %.2f)\n", kept, res->sample_factor);
		else
			fprintf(out, "each thread's %s x its own factor, %.2f to %.2f)\n", kept, lo, hi);
	}
	if (res->run_status >= 0x100)
		fprintf(out, "program:   killed by signal %d\n", res->run_status - 0x100);
	else if (res->run_status >= 0)
		fprintf(out, "program:   exited with status %d\n", res->run_status);
	fprintf(out, "\n");
}

/* The last column: the label, cut with "..." to fit a terminal width. */
static void label_fit(FILE *out, const struct rp_opts *o, size_t used, const char *label)
{
	size_t n = strlen(label);
	if (!o->width || used + n <= o->width || used + 12 > o->width) {
		fprintf(out, "%s\n", label);
		return;
	}
	size_t keep = o->width - used - 3;
	fprintf(out, "%.*s...\n", (int)keep, label);
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

/* --sample-sets: a row with L1 misses none of which fell in the sampled
 * sets: beyond L1 its figures are unknown (an_result.mem_unsampled_objects). */
static int unsampled(const struct an_result *res, const struct an_mem *m)
{
	return res->mem_sample_sets > 1 && m->miss_unmodelled && !m->miss_modelled;
}

/* The modelled view: memory requests and where references were served. */
static int render_text_model(FILE *out, const struct an_result *res, const struct rp_opts *o, struct row *rows,
			     size_t n)
{
	uint64_t total = acc(&res->total);
	const struct an_mem *t = &res->mem_total;
	uint64_t reqs = t->dram_reads + t->dram_writes;
	fprintf(out, "%14s %6s %12s %12s %6s %5s %5s %5s %5s %11s %6s %7s ", "accesses", "share",
			 "DRAM reads", "DRAM writes", "mem%", "L1%", "L2%", "L3%", "DRAM%", "page walks", "walk%",
			 "cyc/ref");
	fprintf(out, "%s\n", o->by == RP_BY_THREAD ? "thread" : by_name(o->by));
	size_t shown = 0;
	for (size_t i = 0; i < n; i++) {
		if (o->limit && shown >= o->limit) {
			fprintf(out, "... %zu more rows (--limit 0 shows all)\n", n - i);
			break;
		}
		const struct row *r = &rows[i];
		const struct an_mem *m = &r->mem;
		char a[32], b[32], c[32], d[32];
		uint64_t x = acc(&r->c);
		if (unsampled(res, m)) {
			/* --sample-sets: L1 known, its misses not modelled */
			int rw = fprintf(out, "%14s %5.1f%% %12s %12s %6s %5.1f %5s %5s %5s %11s %5.1f%% %7s ",
					 rp_grouped(a, sizeof(a), x), pct(x, total), "-", "-", "-",
					 pct(m->level[MP_LVL_L1], m->refs), "-", "-", "-", rp_grouped(d, sizeof(d), m->walks),
					 pct(m->walks, t->walks), "-");
			label_fit(out, o, rw > 0 ? (size_t)rw : 0, r->label);
			shown++;
			continue;
		}
		int rw = fprintf(out, "%14s %5.1f%% %12s %12s %5.1f%% %5.1f %5.1f %5.1f %5.1f %11s %5.1f%% %7.1f ",
			rp_grouped(a, sizeof(a), x), pct(x, total), rp_grouped(b, sizeof(b), m->dram_reads),
			rp_grouped(c, sizeof(c), m->dram_writes), pct(m->dram_reads + m->dram_writes, reqs),
			pct(m->level[MP_LVL_L1], m->refs), pct(m->level[MP_LVL_L2], m->refs),
			pct(m->level[MP_LVL_L3], m->refs),
			pct(m->level[MP_LVL_LOCAL_DRAM] + m->level[MP_LVL_REMOTE_DRAM] + m->level[MP_LVL_REMOTE_CACHE],
			    m->refs),
			rp_grouped(d, sizeof(d), m->walks), pct(m->walks, t->walks),
			m->latency_n ? (double)m->latency_sum / (double)m->latency_n : 0.0);
		label_fit(out, o, rw > 0 ? (size_t)rw : 0, r->label);
		shown++;
	}
	struct rp_lat_row *lr = calloc(n ? n : 1, sizeof(*lr));
	if (lr) {
		for (size_t i = 0; i < n; i++)
			lr[i] = (struct rp_lat_row){ rows[i].label, &rows[i].mem };
		rp_latency_section(out, lr, n, o->limit ? (o->limit < 10 ? o->limit : 10) : 0, "modelled");
		free(lr);
	}
	return 0;
}

/* A terminal too narrow for the full table: the columns that matter most
 * (CSV and JSON have them all). */
static void render_text_narrow(FILE *out, const struct an_result *res, const struct rp_opts *o, struct row *rows,
			       size_t n)
{
	uint64_t total = acc(&res->total);
	int model = res->mem_origin == AN_MEM_MODELLED;
	if (model)
		fprintf(out, "%14s %6s %12s %12s %10s ", "accesses", "share", "DRAM reads", "DRAM writes", "walks");
	else
		fprintf(out, "%14s %6s %14s %14s ", "accesses", "share", "loads", "stores");
	fprintf(out, "%s\n", o->by == RP_BY_THREAD ? "thread" : by_name(o->by));
	for (size_t i = 0; i < n; i++) {
		if (o->limit && i >= o->limit) {
			fprintf(out, "... %zu more rows (--limit 0 shows all; a wider terminal shows more columns)\n",
				n - i);
			break;
		}
		const struct row *r = &rows[i];
		char a[32], b[32], c[32], d[32];
		uint64_t x = acc(&r->c);
		int rw;
		if (model)
			rw = fprintf(out, "%14s %5.1f%% %12s %12s %10s ", rp_grouped(a, sizeof(a), x), pct(x, total),
				     rp_grouped(b, sizeof(b), r->mem.dram_reads),
				     rp_grouped(c, sizeof(c), r->mem.dram_writes),
				     rp_grouped(d, sizeof(d), r->mem.walks));
		else
			rw = fprintf(out, "%14s %5.1f%% %14s %14s ", rp_grouped(a, sizeof(a), x), pct(x, total),
				     rp_grouped(b, sizeof(b), r->c.loads), rp_grouped(c, sizeof(c), r->c.stores));
		label_fit(out, o, rw > 0 ? (size_t)rw : 0, r->label);
	}
}

static int render_text(FILE *out, const struct an_result *res, const struct rp_opts *o, struct row *rows,
		       size_t n)
{
	header_text(out, res, o);
	if (o->width && o->width < 120) {
		render_text_narrow(out, res, o, rows, n);
		goto findings;
	}
	if (res->mem_origin == AN_MEM_MODELLED) {
		render_text_model(out, res, o, rows, n);
		goto findings;
	}
	uint64_t total = acc(&res->total);
	const char *what = o->by == RP_BY_THREAD ? "thread" : o->by == RP_BY_FUNCTION ? "function" : by_name(o->by);
	int sized = o->by == RP_BY_OBJECT || o->by == RP_BY_SITE || o->by == RP_BY_KIND;
	fprintf(out, "%14s %6s %14s %14s %10s", "accesses", "share", "loads", "stores", "bytes");
	if (sized)
		fprintf(out, " %10s %9s %-12s", "size", "instances", "threads");
	if (sized && o->by != RP_BY_KIND)
		fprintf(out, " %-8s", "kind");
	else if (o->by == RP_BY_THREAD)
		fprintf(out, " %9s", "allocs");
	else
		fprintf(out, " %-16s", "module");
	int pat = o->patterns && o->by == RP_BY_OBJECT;
	if (pat)
		fprintf(out, " %-16s", "pattern");
	fprintf(out, " %s\n", what);
	size_t shown = 0;
	for (size_t i = 0; i < n; i++) {
		if (o->limit && shown >= o->limit) {
			fprintf(out, "... %zu more rows (--limit 0 shows all)\n", n - i);
			break;
		}
		const struct row *r = &rows[i];
		char a[32], b[32], c[32], d[32], e[32], t[64];
		uint64_t x = acc(&r->c);
		/* rw: this row's width so far (a column can overflow its width) */
		int rw = fprintf(out, "%14s %5.1f%% %14s %14s %10s", rp_grouped(a, sizeof(a), x),
				 total ? 100.0 * (double)x / (double)total : 0.0, rp_grouped(b, sizeof(b), r->c.loads),
				 rp_grouped(c, sizeof(c), r->c.stores),
				 rp_human(d, sizeof(d), r->c.bytes_loaded + r->c.bytes_stored));
		if (sized) {
			threads_text(t, sizeof(t), res, r);
			rw += fprintf(out, " %10s %9s %-12s", r->size ? rp_human(e, sizeof(e), r->size) : "-",
				      rp_grouped(a, sizeof(a), r->instances), t);
			if (o->by != RP_BY_KIND)
				rw += fprintf(out, " %-8s", r->kind);
		} else if (o->by == RP_BY_THREAD) {
			rw += fprintf(out, " %9s", rp_grouped(a, sizeof(a), r->instances));
		} else {
			rw += fprintf(out, " %-16s", r->kind ? r->kind : "?");
		}
		if (pat)
			rw += fprintf(out, " %-16s", pattern_text(t, sizeof(t), res, o, r));
		fputc(' ', out);
		label_fit(out, o, rw > 0 ? (size_t)rw + 1 : 0, r->label);
		shown++;
	}
findings:
	if (o->merge && o->by == RP_BY_OBJECT) {
		size_t k = o->limit && o->limit < n ? o->limit : n, m = 0;
		const struct an_class **cls = calloc(k ? k : 1, sizeof(*cls));
		if (!cls)
			return -ENOMEM;
		for (size_t i = 0; i < k; i++)
			if (rows[i].cls)
				cls[m++] = rows[i].cls;
		rp_spread_text(out, res, o, cls, m);
		free(cls);
	}
	if (res->mem_origin == AN_MEM_MODELLED && o->by == RP_BY_OBJECT)
		rp_advice_text(out, res, o, RP_ADVICE_ALL);
	if (res->nwarnings)
		fprintf(out, "\n");
	for (size_t i = 0; i < res->nwarnings; i++)
		fprintf(out, "warning: %s\n", res->warnings[i]);
	return 0;
}

static int render_csv(FILE *out, const struct an_result *res, const struct rp_opts *o, struct row *rows,
		      size_t n)
{
	int mem = res->mem_origin != AN_MEM_NONE;
	int pat = o->patterns && o->by == RP_BY_OBJECT;
	fprintf(out, "%s,kind,accesses,loads,stores,bytes_loaded,bytes_stored,share,size,instances,max_size,threads%s%s",
		by_name(o->by),
		mem ? ",origin,refs,l1,lfb,l2,l3,local_dram,remote_dram,remote_cache,dtlb_hits,stlb_hits,walks,"
		      "walk_refs,walk_dram,dram_reads,dram_writes,dram_share,walk_share,avg_latency,latency_p50,latency_p90,"
		      "latency_p99"
		    : "",
		pat ? ",pattern,stride,pattern_share,pattern_top_share,forward_share,backward_share,reuse_share" : "");
	rp_spread_csv_header(out, o);
	fputc('\n', out);
	const struct an_mem *t = &res->mem_total;
	uint64_t total = acc(&res->total);
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		rp_csv_str(out, r->label);
		fputc(',', out);
		rp_csv_str(out, r->kind);
		fprintf(out, ",%llu,%llu,%llu,%llu,%llu,%.6f,%llu,%llu,%llu,%zu",
			(unsigned long long)acc(&r->c), (unsigned long long)r->c.loads,
			(unsigned long long)r->c.stores, (unsigned long long)r->c.bytes_loaded,
			(unsigned long long)r->c.bytes_stored, total ? (double)acc(&r->c) / (double)total : 0.0,
			(unsigned long long)r->size, (unsigned long long)r->instances,
			(unsigned long long)r->max_size, r->nthreads);
		if (mem) {
			const struct an_mem *m = &r->mem;
			fprintf(out, ",%s,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%.6f,%.6f,%.2f",
				res->mem_origin != AN_MEM_MODELLED ? "measured"
				: unsampled(res, m)		    ? "unsampled"
								    : "modelled",
				(unsigned long long)m->refs,
				(unsigned long long)m->level[MP_LVL_L1], (unsigned long long)m->level[MP_LVL_LFB],
				(unsigned long long)m->level[MP_LVL_L2], (unsigned long long)m->level[MP_LVL_L3],
				(unsigned long long)m->level[MP_LVL_LOCAL_DRAM],
				(unsigned long long)m->level[MP_LVL_REMOTE_DRAM],
				(unsigned long long)m->level[MP_LVL_REMOTE_CACHE],
				(unsigned long long)m->tlb[MP_TLB_L1_HIT], (unsigned long long)m->tlb[MP_TLB_L2_HIT],
				(unsigned long long)m->walks, (unsigned long long)m->walk_refs,
				(unsigned long long)m->walk_dram, (unsigned long long)m->dram_reads,
				(unsigned long long)m->dram_writes,
				pct(m->dram_reads + m->dram_writes, t->dram_reads + t->dram_writes) / 100.0,
				pct(m->walks, t->walks) / 100.0,
				m->latency_n ? (double)m->latency_sum / (double)m->latency_n : 0.0);
			fprintf(out, ",%llu,%llu,%llu", (unsigned long long)rp_latency_quantile(m, 0.5),
				(unsigned long long)rp_latency_quantile(m, 0.9),
				(unsigned long long)rp_latency_quantile(m, 0.99));
		}
		if (pat) {
			struct an_pattern none = { .kind = AN_PAT_FEW };
			const struct an_pattern *p = r->cls ? &o->patterns[r->cls - res->classes] : &none;
			fprintf(out, ",%s,%lld,%.6f,%.6f,%.6f,%.6f,%.6f", an_pat_name(p->kind), (long long)p->stride,
				p->share, p->top_share, p->forward, p->backward, p->reuse);
		}
		rp_spread_csv(out, res, o, r->cls);
		fputc('\n', out);
	}
	return 0;
}

static void json_counts(FILE *out, const struct an_counts *c)
{
	fprintf(out, "\"accesses\":%llu,\"loads\":%llu,\"stores\":%llu,\"bytes_loaded\":%llu,\"bytes_stored\":%llu",
		(unsigned long long)acc(c), (unsigned long long)c->loads, (unsigned long long)c->stores,
		(unsigned long long)c->bytes_loaded, (unsigned long long)c->bytes_stored);
}

static void json_mem(FILE *out, const struct an_result *res, const struct an_mem *m)
{
	fprintf(out, "\"mem\":{\"refs\":%llu,", (unsigned long long)m->refs);
	if (res->mem_sample_sets > 1) /* L1 misses modelled beyond L1, and not (scaled from the former) */
		fprintf(out, "\"misses_modelled\":%llu,\"misses_unmodelled\":%llu,", (unsigned long long)m->miss_modelled,
			(unsigned long long)m->miss_unmodelled);
	fprintf(out, "\"levels\":{");
	for (int l = 1; l < MP_LVL_COUNT; l++)
		fprintf(out, "%s\"%s\":%llu", l > 1 ? "," : "", mp_mem_level_name((unsigned)l),
			(unsigned long long)m->level[l]);
	fprintf(out,
		"},\"tlb\":{\"l1_hits\":%llu,\"stlb_hits\":%llu,\"walks\":%llu},\"walk_refs\":%llu,"
		"\"walk_dram\":%llu,\"dram_reads\":%llu,\"dram_writes\":%llu,\"store_fills\":%llu,"
		"\"latency_sum\":%llu,\"latency_n\":%llu,\"latency_log2_hist\":[",
		(unsigned long long)m->tlb[MP_TLB_L1_HIT], (unsigned long long)m->tlb[MP_TLB_L2_HIT],
		(unsigned long long)m->walks, (unsigned long long)m->walk_refs, (unsigned long long)m->walk_dram,
		(unsigned long long)m->dram_reads, (unsigned long long)m->dram_writes,
		(unsigned long long)m->store_fills, (unsigned long long)m->latency_sum,
		(unsigned long long)m->latency_n);
	for (int i = 0; i < AN_LAT_BUCKETS; i++)
		fprintf(out, "%s%llu", i ? "," : "", (unsigned long long)m->latency_hist[i]);
	fprintf(out, "]}");
}

static int render_json(FILE *out, const struct an_result *res, const struct rp_opts *o, struct row *rows,
		       size_t n)
{
	fprintf(out, "{\"schema\":\"memprism-report-1\",\"data\":");
	rp_json_str(out, o->data_path);
	fprintf(out, ",\"command\":");
	rp_json_str(out, res->cmdline);
	fprintf(out,
		",\"source\":\"%s\",\"measured\":true,\"by\":\"%s\",\"sampling\":{\"recorded\":%llu,"
		"\"skipped\":%llu,\"factor\":%.6f,\"at_replay\":%s},\"min_size\":%llu,\"roi\":",
		strcmp(res->source, "valgrind") == 0 ? "valgrind" : "inst", by_name(o->by), (unsigned long long)res->recorded_accesses, (unsigned long long)res->skipped_accesses,
		res->sample_factor, res->bursts_replayed ? "true" : "false", (unsigned long long)res->min_size);
	rp_json_str(out, o->roi);
	fprintf(out, ",\"unseen_modules\":[");
	for (size_t i = 0; i < res->nunseen_modules; i++) {
		if (i)
			fputc(',', out);
		rp_json_str(out, res->unseen_modules[i]);
	}
	fprintf(out, "],\"unseen_cpu\":");
	unseen_cpu_json(out, res);
	fprintf(out, ",\"exit_status\":%d,\"damaged\":%s,\"allocations\":%llu,\"frees\":%llu,\"total\":{",
		res->run_status, res->damaged ? "true" : "false", (unsigned long long)res->allocations,
		(unsigned long long)res->frees);
	json_counts(out, &res->total);
	int mem = res->mem_origin != AN_MEM_NONE;
	if (mem) {
		fputc(',', out);
		json_mem(out, res, &res->mem_total);
	}
	fprintf(out, ",\"outside_roi\":%llu},\"mem_origin\":\"%s\",\"machine\":", (unsigned long long)res->accesses_outside_roi,
		res->mem_origin == AN_MEM_MODELLED ? "modelled" : res->mem_origin == AN_MEM_MEASURED ? "measured" : "none");
	rp_json_str(out, res->machine[0] ? res->machine : NULL);
	rp_parts_json(out, o);
	fprintf(out, ",\"sample_sets\":%u,\"unsampled_objects\":%llu,\"l1_estimated_refs\":%llu,\"processes\":[",
		res->mem_sample_sets > 1 ? res->mem_sample_sets : 1, (unsigned long long)res->mem_unsampled_objects,
		(unsigned long long)res->mem_l1_estimated);
	for (size_t i = 0; i < res->nprocs; i++) {
		const struct an_process *p = &res->procs[i];
		fprintf(out, "%s{\"pid\":%u,\"ppid\":%u,\"exe\":", i ? "," : "", p->pid, p->ppid);
		rp_json_str(out, p->exe);
		fprintf(out, ",\"instrumented\":%s,\"ended\":%s,\"exec\":%s,\"signal\":%llu,\"accesses\":%llu}",
			p->instrumented ? "true" : "false", p->ended ? "true" : "false",
			p->end_status == 0x200 ? "true" : "false",
			(unsigned long long)(p->end_status >= 0x100 && p->end_status < 0x200 ? p->end_status - 0x100 : 0),
			(unsigned long long)p->accesses);
	}
	fprintf(out, "],\"threads\":[");
	for (size_t i = 0; i < res->nthreads; i++) {
		const struct an_thread *t = &res->threads[i];
		fprintf(out, "%s{\"pid\":%u,\"tid\":%u,\"name\":", i ? "," : "", t->pid, t->tid);
		rp_json_str(out, t->name);
		fprintf(out, ",");
		json_counts(out, &t->c);
		fprintf(out, ",\"allocations\":%llu,\"recorded_accesses\":%llu,\"skipped_accesses\":%llu,"
			     "\"sample_factor\":%.6f}",
			(unsigned long long)t->allocations, (unsigned long long)t->recorded,
			(unsigned long long)t->skipped, t->sample_factor);
	}
	fprintf(out, "],\"rows\":[");
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		fprintf(out, "%s{\"label\":", i ? "," : "");
		rp_json_str(out, r->label);
		fprintf(out, ",\"kind\":");
		rp_json_str(out, r->kind);
		fprintf(out, ",");
		json_counts(out, &r->c);
		fprintf(out, ",\"size\":%llu,\"instances\":%llu,\"max_size\":%llu,\"threads\":[",
			(unsigned long long)r->size, (unsigned long long)r->instances, (unsigned long long)r->max_size);
		for (size_t t = 0; t < r->nthreads; t++)
			fprintf(out, "%s%u", t ? "," : "", res->threads[r->threads[t]].tid);
		fprintf(out, "]");
		if (mem) {
			fputc(',', out);
			json_mem(out, res, &r->mem);
		}
		if (r->cls && o->patterns) {
			const struct an_pattern *p = &o->patterns[r->cls - res->classes];
			fprintf(out, ",\"pattern\":{\"kind\":\"%s\",\"stride\":%lld,\"share\":%.6f,\"top_share\":%.6f,"
				     "\"forward\":%.6f,\"backward\":%.6f,\"reuse\":%.6f,\"streams\":%llu}",
				an_pat_name(p->kind), (long long)p->stride, p->share, p->top_share, p->forward,
				p->backward, p->reuse, (unsigned long long)p->streams);
		}
		if (o->by == RP_BY_OBJECT)
			rp_spread_json(out, res, o, r->cls);
		if (r->cls && r->cls->site) {
			fprintf(out, ",\"site\":");
			rp_json_str(out, r->cls->site);
			fprintf(out, ",\"site_frame\":%d,\"stack\":[", r->cls->site_frame);
			for (int k = 0; k < r->cls->nstack; k++) {
				const struct an_frame *f = &r->cls->stack[k];
				fprintf(out, "%s{\"function\":", k ? "," : "");
				rp_json_str(out, f->function);
				fprintf(out, ",\"file\":");
				rp_json_str(out, f->file);
				fprintf(out, ",\"line\":%d,\"module\":", f->line);
				rp_json_str(out, f->module);
				fprintf(out, ",\"inlined\":%s}", f->inlined ? "true" : "false");
			}
			fprintf(out, "]");
		}
		fprintf(out, "}");
	}
	fprintf(out, "],");
	if (res->mem_origin == AN_MEM_MODELLED && o->by == RP_BY_OBJECT) {
		rp_advice_json(out, res, o, rp_json_str);
		fputc(',', out);
	}
	fprintf(out, "\"warnings\":[");
	for (size_t i = 0; i < res->nwarnings; i++) {
		if (i)
			fputc(',', out);
		rp_json_str(out, res->warnings[i]);
	}
	fprintf(out, "]}\n");
	return 0;
}

int rp_render(FILE *out, const struct an_result *res, const struct rp_opts *o)
{
	if (o->by == RP_BY_RANK || o->by == RP_BY_PROCESS)
		return rp_render_procs(out, res, o);
	if (strcmp(res->source, "faults") == 0)
		return rp_render_faults(out, res, o);
	if (strcmp(res->source, "pmu") == 0)
		return rp_render_pmu(out, res, o);
	if (o->by == RP_BY_PAGE)
		return -EINVAL;
	size_t n = 0;
	struct row *rows = build_rows(res, o->by, &n);
	if (!rows)
		return -ENOMEM;
	int err;
	switch (o->format) {
	case RP_CSV:
		err = render_csv(out, res, o, rows, n);
		break;
	case RP_JSON:
		err = render_json(out, res, o, rows, n);
		break;
	default:
		err = render_text(out, res, o, rows, n);
		break;
	}
	free_rows(rows, n);
	return err;
}
