// SPDX-License-Identifier: MIT
/*
 * `memprism annotate`: the source of the lines that made the accesses,
 * each with its accesses, loads and stores (and with a model its DRAM
 * reads and page walks) and the object it went to most, as cg_annotate
 * and `perf annotate` show their costs: the files in order of their
 * accesses, lines above a threshold with a few lines of context around
 * them, the hottest lines marked.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/mp_path.h"
#include "report/rp_int.h"

#define HOT_MARKS 10 /* the hottest lines overall get a '>' */

struct file_rows {
	const char *file; /* as the debug information names it */
	const struct an_function **lines; /* by line number */
	size_t n;
	uint64_t accesses;
};

static uint64_t accesses_of(const struct an_function *f)
{
	return f->c.loads + f->c.stores;
}

static int by_line(const void *x, const void *y)
{
	const struct an_function *a = *(const struct an_function *const *)x, *b = *(const struct an_function *const *)y;
	return a->line < b->line ? -1 : a->line > b->line;
}

static int by_accesses(const void *x, const void *y)
{
	const struct file_rows *a = x, *b = y;
	if (a->accesses != b->accesses)
		return a->accesses > b->accesses ? -1 : 1;
	return strcmp(a->file, b->file);
}

/* Whether line f is one the user asked for: a function name (the row's
 * label after "FILE:LINE "), a file's base name or a path ending in it. */
static int wanted(const struct an_function *f, const struct rp_annotate_opts *a)
{
	if (!a->nwhat)
		return 1;
	const char *fn = strchr(f->name, ' ');
	for (size_t i = 0; i < a->nwhat; i++) {
		const char *w = a->what[i];
		size_t wl = strlen(w), fl = strlen(f->file);
		if (fn && !strcmp(fn + 1, w))
			return 1;
		if (!strcmp(mp_base_name(f->file), w) || (fl >= wl && !strcmp(f->file + fl - wl, w) && (fl == wl || f->file[fl - wl - 1] == '/')))
			return 1;
	}
	return 0;
}

/* The source file, as named or under one of the source directories (the
 * path joined to it, then its base name). */
static FILE *open_source(const char *file, const struct rp_annotate_opts *a, char *used, size_t cap)
{
	FILE *f = fopen(file, "r");
	snprintf(used, cap, "%s", file);
	for (size_t i = 0; !f && i < a->nsource_dirs; i++) {
		snprintf(used, cap, "%s/%s", a->source_dirs[i], file);
		if (!(f = fopen(used, "r"))) {
			snprintf(used, cap, "%s/%s", a->source_dirs[i], mp_base_name(file));
			f = fopen(used, "r");
		}
	}
	return f;
}

static void print_counts(FILE *out, const struct an_function *f, uint64_t total, int model, int hot)
{
	char a[32], l[32], s[32], d[32], w[32];
	if (!f) {
		fprintf(out, "  %12s %6s %12s %12s", ".", ".", ".", ".");
		if (model)
			fprintf(out, " %10s %8s", ".", ".");
		return;
	}
	fprintf(out, "%c %12s %5.1f%% %12s %12s", hot ? '>' : ' ', rp_grouped(a, sizeof(a), accesses_of(f)),
		total ? 100.0 * (double)accesses_of(f) / (double)total : 0.0, rp_grouped(l, sizeof(l), f->c.loads),
		rp_grouped(s, sizeof(s), f->c.stores));
	if (model)
		fprintf(out, " %10s %8s", rp_grouped(d, sizeof(d), f->mem.dram_reads), rp_grouped(w, sizeof(w), f->mem.walks));
}

static void print_objects(FILE *out, const struct an_function *f)
{
	if (!f || !f->top_object)
		return;
	fprintf(out, "    <- %s", f->top_object);
	if (f->objects > 1)
		fprintf(out, " (+%u more)", f->objects - 1);
}

/* One file: its lines with accesses and the context around them. */
static void annotate_file(FILE *out, const struct file_rows *fr, const struct an_result *r, uint64_t total,
			  uint64_t hot_min, const struct rp_annotate_opts *a, int model)
{
	char used[4096], x[32];
	fprintf(out, "\n-- %s: %s accesses (%.1f%%) on %zu lines\n", fr->file, rp_grouped(x, sizeof(x), fr->accesses),
		total ? 100.0 * (double)fr->accesses / (double)total : 0.0, fr->n);
	FILE *src = open_source(fr->file, a, used, sizeof(used));
	if (!src) {
		fprintf(out, "   (source not found%s: the lines alone)\n",
			a->nsource_dirs ? " under --source-dir" : "; --source-dir DIR names where it is");
		for (size_t i = 0; i < fr->n; i++) {
			const struct an_function *f = fr->lines[i];
			print_counts(out, f, total, model, accesses_of(f) >= hot_min);
			fprintf(out, " %6d  %s", f->line, f->name);
			print_objects(out, f);
			fputc('\n', out);
		}
		return;
	}
	if (strcmp(used, fr->file))
		fprintf(out, "   (source: %s)\n", used);
	(void)r;
	char *buf = NULL;
	size_t cap = 0, k = 0;
	ssize_t len;
	int ln = 0, last_shown = 0;
	unsigned ctx = a->context;
	while ((len = getline(&buf, &cap, src)) >= 0) {
		ln++;
		while (k < fr->n && fr->lines[k]->line < ln)
			k++;
		const struct an_function *f = k < fr->n && fr->lines[k]->line == ln ? fr->lines[k] : NULL;
		/* near a line with accesses (before it or after it)? */
		int near = f != NULL;
		if (!near && k < fr->n && (unsigned)(fr->lines[k]->line - ln) <= ctx)
			near = 1;
		if (!near && k > 0 && (unsigned)(ln - fr->lines[k - 1]->line) <= ctx)
			near = 1;
		if (!near)
			continue;
		if (last_shown && ln > last_shown + 1)
			fprintf(out, "   -- line %d ----------------------------------------\n", ln);
		last_shown = ln;
		if (len && buf[len - 1] == '\n')
			buf[--len] = 0;
		print_counts(out, f, total, model, f && accesses_of(f) >= hot_min);
		fprintf(out, " %6d  %s", ln, buf);
		print_objects(out, f);
		fputc('\n', out);
	}
	free(buf);
	fclose(src);
	if (k < fr->n)
		fprintf(out, "   (the file has fewer lines than the debug information names: has it changed since "
			     "the build?)\n");
}

int rp_render_annotate(FILE *out, const struct an_result *r, const struct rp_annotate_opts *a)
{
	uint64_t total = r->total.loads + r->total.stores, shown = 0;
	int model = r->mem_origin != AN_MEM_NONE;
	/* the lines above the threshold, by file */
	const struct an_function **pick = calloc(r->nlines ? r->nlines : 1, sizeof(*pick));
	struct file_rows *files = calloc(r->nlines ? r->nlines : 1, sizeof(*files));
	uint64_t *hot = calloc(r->nlines ? r->nlines : 1, sizeof(*hot));
	if (!pick || !files || !hot) {
		free(pick);
		free(files);
		free(hot);
		return -ENOMEM;
	}
	size_t np = 0, nf = 0, nh = 0;
	for (size_t i = 0; i < r->nlines; i++) {
		const struct an_function *f = &r->lines[i];
		if (!f->file || !accesses_of(f) || !wanted(f, a))
			continue;
		if (100.0 * (double)accesses_of(f) < a->threshold * (double)total)
			continue;
		pick[np++] = f;
		hot[nh++] = accesses_of(f);
	}
	/* the HOT_MARKS hottest lines' accesses: the least of them marks */
	uint64_t hot_min = UINT64_MAX;
	for (size_t m = 0; m < HOT_MARKS && m < nh; m++) {
		size_t best = m;
		for (size_t j = m + 1; j < nh; j++)
			if (hot[j] > hot[best])
				best = j;
		uint64_t t = hot[m];
		hot[m] = hot[best];
		hot[best] = t;
		hot_min = hot[m];
	}
	for (size_t i = 0; i < np; i++) {
		size_t j = 0;
		while (j < nf && strcmp(files[j].file, pick[i]->file))
			j++;
		if (j == nf)
			files[nf++] = (struct file_rows){ .file = pick[i]->file, .lines = pick + i };
		files[j].accesses += accesses_of(pick[i]);
		shown += accesses_of(pick[i]);
	}
	/* each file's lines next to each other in pick, by line number */
	size_t at = 0;
	const struct an_function **sorted = calloc(np ? np : 1, sizeof(*sorted));
	if (!sorted) {
		free(pick);
		free(files);
		free(hot);
		return -ENOMEM;
	}
	for (size_t j = 0; j < nf; j++) {
		size_t start = at;
		for (size_t i = 0; i < np; i++)
			if (!strcmp(pick[i]->file, files[j].file))
				sorted[at++] = pick[i];
		qsort(sorted + start, at - start, sizeof(*sorted), by_line);
		files[j].lines = sorted + start;
		files[j].n = at - start;
	}
	qsort(files, nf, sizeof(*files), by_accesses);
	char x[32], y[32];
	fprintf(out, "memprism annotate: %s\n", a->data_path ? a->data_path : "memprism.data");
	if (r->cmdline[0])
		fprintf(out, "command:   %s\n", r->cmdline);
	fprintf(out, "accesses:  %s; the %zu lines shown (at least %.2f%% of them each) made %s (%.1f%%)\n",
		rp_grouped(x, sizeof(x), total), np, a->threshold, rp_grouped(y, sizeof(y), shown),
		total ? 100.0 * (double)shown / (double)total : 0.0);
	if (model)
		fprintf(out, "model:     %s: DRAM reads and page walks are %s\n", r->machine[0] ? r->machine : "?",
			r->mem_origin == AN_MEM_MODELLED ? "MODELLED" : "measured samples");
	fprintf(out, "columns:   accesses, share of all, loads, stores%s; '>' marks the %d hottest lines;\n"
		     "           <- the object the line's accesses went to most\n",
		model ? ", DRAM reads, page walks" : "", HOT_MARKS);
	if (!nf)
		fprintf(out, "\nno line %s\n",
			a->nwhat ? "of what was asked for made accesses above the threshold"
				 : "made accesses above the threshold (was the program built with `memprism cc -g`?)");
	fprintf(out, "\n  %12s %6s %12s %12s", "accesses", "share", "loads", "stores");
	if (model)
		fprintf(out, " %10s %8s", "DRAM reads", "walks");
	fprintf(out, " %6s  source\n", "line");
	for (size_t j = 0; j < nf; j++)
		annotate_file(out, &files[j], r, total, hot_min, a, model);
	free(sorted);
	free(pick);
	free(files);
	free(hot);
	return ferror(out) ? -EIO : 0;
}
