// SPDX-License-Identifier: MIT
/*
 * The visual report: one self-contained HTML file (no network, no library)
 * with the run summary, a sortable object table with allocation stacks, a
 * time x address plot per object drawn on canvas from binned data (an_bins),
 * the objects stacked as bands on one address axis (the BSC tools paper's Figure 3),
 * access patterns, memory-level shares per function and the per-page walk
 * CDF when the result has them. The data goes into the page as one JSON
 * object; the script (report_html_js.h) draws it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_numa.h"
#include "report/report.h"
#include "report/report_html_js.h"
#include "report/rp_int.h"

#define HTML_MAX_OBJECTS 2000 /* table rows; plots come from the bins */
#define HTML_MAX_FUNCTIONS 50

/* A JSON string safe inside <script>: '<' and '>' become \u003c / \u003e so
 * a label can never close the element. */
static void jstr(FILE *out, const char *s)
{
	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			fprintf(out, "\\%c", ch);
		else if (ch < 0x20 || ch == '<' || ch == '>' || ch == '&' || ch == 0x7f)
			fprintf(out, "\\u%04x", ch);
		else
			fputc(ch, out);
	}
	fputc('"', out);
}

static unsigned long long u(uint64_t v)
{
	return (unsigned long long)v;
}

static void mem_json(FILE *out, const struct an_mem *m)
{
	fprintf(out,
		"{\"refs\":%llu,\"l1\":%llu,\"lfb\":%llu,\"l2\":%llu,\"l3\":%llu,\"dram\":%llu,\"remote\":%llu,"
		"\"dram_reads\":%llu,\"dram_writes\":%llu,\"walks\":%llu}",
		u(m->refs), u(m->level[MP_LVL_L1]), u(m->level[MP_LVL_LFB]), u(m->level[MP_LVL_L2]),
		u(m->level[MP_LVL_L3]), u(m->level[MP_LVL_LOCAL_DRAM] + m->level[MP_LVL_REMOTE_DRAM]),
		u(m->level[MP_LVL_REMOTE_CACHE] + m->level[MP_LVL_REMOTE_DRAM]), u(m->dram_reads), u(m->dram_writes),
		u(m->walks));
}

static int shown(const struct an_class *c)
{
	return c->c.loads + c->c.stores || c->kind == AN_KIND_HEAP || c->kind == AN_KIND_NAMED ||
	       c->kind == AN_KIND_GROUP;
}

static int by_walks_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? 1 : x > y ? -1 : 0;
}

/* NUMA (memprism numa's data): the node x node matrix, objects by remote
 * accesses with their per-node users and their timeline of runs, findings. */
static void write_numa(FILE *out, const struct an_result *r)
{
	const struct an_numa_result *n = r->numa;
	unsigned nodes = n->topo.nodes;
	fprintf(out, ",\"numa\":{\"nodes\":%u,\"origin\":\"%s\",\"accesses\":%llu,\"remote\":%llu,\"threads\":", nodes,
		n->measured ? "measured" : "modelled", u(n->accesses), u(n->remote));
	jstr(out, n->thread_policy);
	fprintf(out, ",\"pages\":");
	jstr(out, n->page_policy);
	fprintf(out, ",\"matrix\":[");
	for (unsigned i = 0; i < nodes * nodes; i++)
		fprintf(out, "%s%llu", i ? "," : "", u(n->matrix[i]));
	fprintf(out, "],\"elsewhere\":[");
	for (unsigned i = 0; i < nodes; i++)
		fprintf(out, "%s%llu", i ? "," : "", u(n->elsewhere[i]));
	fprintf(out, "],\"start\":%llu,\"objects\":[", u(n->start_time));
	for (size_t i = 0; i < n->nobjs && i < 16; i++) {
		const struct an_numa_obj *o = &n->objs[i];
		fprintf(out, "%s{\"label\":", i ? "," : "");
		jstr(out, o->cls < r->nclasses ? r->classes[o->cls].label : "?");
		fprintf(out, ",\"accesses\":%llu,\"remote\":%llu,\"home\":%d,\"runs\":[", u(o->accesses),
			u(o->remote), o->home);
		for (size_t k = 0; k < o->nepisodes; k++) {
			const struct an_numa_episode *e = &o->episodes[k];
			fprintf(out, "%s[%u,%u,%llu,%llu,%llu,%llu]", k ? "," : "",
				e->thread < r->nthreads ? r->threads[e->thread].tid : 0, e->node, u(e->first_time),
				u(e->last_time), u(e->accesses), u(e->remote));
		}
		fprintf(out, "]}");
	}
	fprintf(out, "],\"findings\":[");
	for (size_t i = 0; i < n->nfindings; i++) {
		const struct an_numa_finding *f = &n->findings[i];
		fprintf(out, "%s{\"pattern\":", i ? "," : "");
		jstr(out, an_numa_pattern_name(f->pattern));
		fprintf(out, ",\"object\":");
		jstr(out, f->obj < n->nobjs && n->objs[f->obj].cls < r->nclasses ? r->classes[n->objs[f->obj].cls].label
										 : "?");
		fprintf(out, ",\"node\":%u,\"share\":%.4f}", f->node, f->share);
	}
	fprintf(out, "]}");
}

/* The grids (an_bins.h): each object's axis and its sparse cells,
 * [cell, loads, stores(, dram)] flattened. */
static void write_grids(FILE *out, const struct an_bins *bins, size_t ng)
{
	for (size_t g = 0; g < ng; g++) {
		const struct an_grid *gr = an_bins_grid(bins, g);
		fprintf(out, "%s{\"obj\":%u,\"lo\":\"0x%llx\",\"span\":%llu,\"segs\":[", g ? "," : "", gr->cls, u(gr->lo),
			u(gr->span));
		for (size_t k = 0; k < gr->nseg; k++)
			fprintf(out, "%s[\"0x%llx\",%llu,%llu]", k ? "," : "", u(gr->seg[k].lo),
				u(gr->seg[k].hi - gr->seg[k].lo), u(gr->seg[k].off));
		fprintf(out, "],\"binned\":%llu,\"dram\":%s,\"cells\":[", u(gr->binned), gr->dram ? "true" : "false");
		int first = 1;
		for (size_t cell = 0; cell < (size_t)AN_BINS_T * AN_BINS_A; cell++) {
			if (!gr->loads[cell] && !gr->stores[cell])
				continue;
			fprintf(out, "%s%zu,%u,%u", first ? "" : ",", cell, gr->loads[cell], gr->stores[cell]);
			if (gr->dram)
				fprintf(out, ",%u", gr->dram[cell]);
			first = 0;
		}
		fprintf(out, "]}");
	}
}

/* The source of the hottest functions, for the page's source section (a
 * click on a function opens it, as `memprism annotate` prints it): each
 * function's rows of r->lines (named "FILE:LINE function"), with
 * HTML_SRC_CONTEXT lines of text around them, read from the file the
 * debug information names (none when it is not there). */
#define HTML_SRC_FUNCS 16
#define HTML_SRC_CONTEXT 2
#define HTML_SRC_WIDTH 240 /* characters of a source line kept */

static uint64_t fn_accesses(const struct an_function *f)
{
	return f->c.loads + f->c.stores;
}

static int by_line_no(const void *x, const void *y)
{
	const struct an_function *a = *(const struct an_function *const *)x, *b = *(const struct an_function *const *)y;
	int c = strcmp(a->file, b->file);
	return c ? c : a->line < b->line ? -1 : a->line > b->line;
}

/* One file's lines of one function: [line, text, accesses, loads, stores,
 * dram] for those with accesses, [line, text] for the context. */
static void write_source_file(FILE *out, const struct an_function *const *ls, size_t n, int mem)
{
	fprintf(out, "{\"file\":");
	jstr(out, ls[0]->file);
	FILE *src = fopen(ls[0]->file, "r");
	fprintf(out, ",\"found\":%s,\"lines\":[", src ? "true" : "false");
	char *buf = NULL;
	size_t cap = 0, k = 0;
	int ln = 0, first = 1;
	if (!src) { /* the lines alone */
		for (size_t i = 0; i < n; i++) {
			fprintf(out, "%s[%d,\"\",%llu,%llu,%llu,%llu]", i ? "," : "", ls[i]->line, u(fn_accesses(ls[i])),
				u(ls[i]->c.loads), u(ls[i]->c.stores), u(mem ? ls[i]->mem.dram_reads : 0));
		}
		fprintf(out, "]}");
		return;
	}
	ssize_t len;
	while (k < n && (len = getline(&buf, &cap, src)) >= 0) {
		ln++;
		while (k < n && ls[k]->line < ln)
			k++;
		if (k >= n && ln > ls[n - 1]->line + HTML_SRC_CONTEXT)
			break;
		const struct an_function *f = k < n && ls[k]->line == ln ? ls[k] : NULL;
		int near = f || (k < n && ls[k]->line - ln <= HTML_SRC_CONTEXT) ||
			   (k > 0 && ln - ls[k - 1]->line <= HTML_SRC_CONTEXT) ||
			   (k >= n && ln - ls[n - 1]->line <= HTML_SRC_CONTEXT);
		if (!near)
			continue;
		if (len && buf[len - 1] == '\n')
			buf[--len] = 0;
		if (len > HTML_SRC_WIDTH)
			buf[HTML_SRC_WIDTH] = 0;
		fprintf(out, "%s[%d,", first ? "" : ",", ln);
		jstr(out, buf);
		if (f)
			fprintf(out, ",%llu,%llu,%llu,%llu", u(fn_accesses(f)), u(f->c.loads), u(f->c.stores),
				u(mem ? f->mem.dram_reads : 0));
		fprintf(out, "]");
		first = 0;
	}
	free(buf);
	fclose(src);
	fprintf(out, "]}");
}

static int write_sources(FILE *out, const struct an_result *r)
{
	int mem = r->mem_origin != AN_MEM_NONE;
	size_t top[HTML_SRC_FUNCS], ntop = 0;
	/* the hottest functions, most accesses first */
	for (size_t i = 0; i < r->nfunctions; i++) {
		uint64_t a = fn_accesses(&r->functions[i]);
		if (!a)
			continue;
		size_t j = ntop < HTML_SRC_FUNCS ? ntop++ : HTML_SRC_FUNCS;
		while (j > 0 && fn_accesses(&r->functions[top[j - 1]]) < a) {
			if (j < HTML_SRC_FUNCS)
				top[j] = top[j - 1];
			j--;
		}
		if (j < HTML_SRC_FUNCS)
			top[j] = i;
	}
	const struct an_function **ls = calloc(r->nlines ? r->nlines : 1, sizeof(*ls));
	if (!ls)
		return -ENOMEM;
	fprintf(out, ",\"sources\":[");
	int firstf = 1;
	for (size_t t = 0; t < ntop; t++) {
		const struct an_function *f = &r->functions[top[t]];
		size_t n = 0;
		for (size_t i = 0; i < r->nlines; i++) {
			const struct an_function *l = &r->lines[i];
			const char *fn = strchr(l->name, ' ');
			if (l->file && fn && !strcmp(fn + 1, f->name) && !strcmp(l->module, f->module) && fn_accesses(l))
				ls[n++] = l;
		}
		if (!n)
			continue;
		qsort(ls, n, sizeof(*ls), by_line_no);
		fprintf(out, "%s{\"function\":", firstf ? "" : ",");
		jstr(out, f->name);
		fprintf(out, ",\"accesses\":%llu,\"files\":[", u(fn_accesses(f)));
		for (size_t a = 0, b; a < n; a = b) { /* one file at a time */
			for (b = a + 1; b < n && !strcmp(ls[b]->file, ls[a]->file); b++)
				;
			if (a)
				fputc(',', out);
			write_source_file(out, ls + a, b - a, mem);
		}
		fprintf(out, "]}");
		firstf = 0;
	}
	fprintf(out, "]");
	free(ls);
	return 0;
}

/* ,"unseen":[LINE...]: the text report's "unseen:" lines, their words
 * alike (rp_unseen_text), for the page's summary. 0 or -ENOMEM. */
static int unseen_json(FILE *out, const struct an_result *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return -ENOMEM;
	rp_unseen_text(m, r, 0);
	if (fclose(m)) {
		free(buf);
		return -ENOMEM;
	}
	fprintf(out, ",\"unseen\":[");
	int n = 0;
	for (char *line = buf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		const char *prefix = "unseen:    ";
		if (!strncmp(line, prefix, strlen(prefix)))
			line += strlen(prefix);
		fprintf(out, "%s", n++ ? "," : "");
		jstr(out, line);
	}
	fprintf(out, "]");
	free(buf);
	return 0;
}

static int write_data(FILE *out, const struct an_result *r, const struct rp_opts *o, const struct an_bins *bins)
{
	int mem = r->mem_origin != AN_MEM_NONE;
	fprintf(out, "{\"schema\":\"memprism-html-1\",\"data\":");
	jstr(out, o->data_path);
	fprintf(out, ",\"command\":");
	jstr(out, r->cmdline);
	fprintf(out, ",\"source\":\"%s\",\"mem_origin\":\"%s\",\"machine\":",
		strcmp(r->source, "valgrind") == 0 ? "valgrind" : "inst",
		r->mem_origin == AN_MEM_MODELLED   ? "modelled"
		: r->mem_origin == AN_MEM_MEASURED ? "measured"
						   : "none");
	jstr(out, r->machine[0] ? r->machine : NULL);
	fprintf(out, ",\"roi\":");
	jstr(out, o->roi);
	if (unseen_json(out, r))
		return -ENOMEM;
	fprintf(out,
		",\"exit_status\":%d,\"damaged\":%s,\"allocations\":%llu,\"frees\":%llu,\"sample_factor\":%.6f,"
		"\"total\":{\"accesses\":%llu,\"loads\":%llu,\"stores\":%llu,\"bytes\":%llu,\"outside_roi\":%llu}",
		r->run_status, r->damaged ? "true" : "false", u(r->allocations), u(r->frees), r->sample_factor,
		u(r->total.loads + r->total.stores), u(r->total.loads), u(r->total.stores),
		u(r->total.bytes_loaded + r->total.bytes_stored), u(r->accesses_outside_roi));
	if (mem) {
		fprintf(out, ",\"mem\":");
		mem_json(out, &r->mem_total);
	}
	fprintf(out, ",\"processes\":[");
	for (size_t i = 0; i < r->nprocs; i++) {
		fprintf(out, "%s{\"pid\":%u,\"exe\":", i ? "," : "", r->procs[i].pid);
		jstr(out, r->procs[i].exe);
		fprintf(out, ",\"instrumented\":%d}", r->procs[i].instrumented);
	}
	fprintf(out, "],\"threads\":[");
	for (size_t i = 0; i < r->nthreads; i++) {
		const struct an_thread *t = &r->threads[i];
		fprintf(out, "%s{\"pid\":%u,\"tid\":%u,\"name\":", i ? "," : "", t->pid, t->tid);
		jstr(out, t->name);
		fprintf(out, ",\"loads\":%llu,\"stores\":%llu}", u(t->c.loads), u(t->c.stores));
	}
	/* grids by class, for the table's links */
	size_t ng = bins ? an_bins_ngrids(bins) : 0;
	fprintf(out, "],\"objects\":[");
	size_t nobj = 0;
	for (size_t i = 0; i < r->nclasses && nobj < HTML_MAX_OBJECTS; i++) {
		const struct an_class *c = &r->classes[i];
		if (!shown(c))
			continue;
		fprintf(out, "%s{\"id\":%zu,\"label\":", nobj++ ? "," : "", i);
		jstr(out, c->label);
		fprintf(out,
			",\"kind\":\"%s\",\"loads\":%llu,\"stores\":%llu,\"bytes\":%llu,\"size\":%llu,"
			"\"instances\":%llu,\"threads\":[",
			an_kind_name(c->kind), u(c->c.loads), u(c->c.stores), u(c->c.bytes_loaded + c->c.bytes_stored),
			u(c->bytes_allocated), u(c->instances));
		for (size_t t = 0; t < c->nthreads; t++)
			fprintf(out, "%s%u", t ? "," : "", r->threads[c->threads[t]].tid);
		fprintf(out, "]");
		if (o->patterns) {
			const struct an_pattern *p = &o->patterns[i];
			char buf[64];
			fprintf(out,
				",\"pattern\":{\"text\":\"%s\",\"kind\":\"%s\",\"stride\":%lld,\"share\":%.4f,"
				"\"top_share\":%.4f,\"forward\":%.4f,\"backward\":%.4f,\"reuse\":%.4f,"
				"\"streams\":%llu}",
				an_pat_format(buf, sizeof(buf), p), an_pat_name(p->kind), (long long)p->stride,
				p->share, p->top_share, p->forward, p->backward, p->reuse, u(p->streams));
		}
		if (mem) {
			fprintf(out, ",\"mem\":");
			mem_json(out, &c->mem);
		}
		int grid = -1;
		for (size_t g = 0; g < ng; g++)
			if (an_bins_grid(bins, g)->cls == i)
				grid = (int)g;
		fprintf(out, ",\"grid\":%d,\"site_frame\":%d,\"stack\":[", grid, c->site_frame);
		for (int k = 0; k < c->nstack; k++) {
			const struct an_frame *f = &c->stack[k];
			fprintf(out, "%s[", k ? "," : "");
			jstr(out, f->function);
			fputc(',', out);
			jstr(out, f->file);
			fprintf(out, ",%d,", f->line);
			jstr(out, f->module);
			fprintf(out, ",%d]", f->inlined);
		}
		fprintf(out, "]}");
	}
	uint64_t t0 = 0, t1 = 0;
	if (bins)
		an_bins_time(bins, &t0, &t1);
	fprintf(out, "],\"time\":{\"t0\":%llu,\"t1\":%llu,\"T\":%d,\"A\":%d},\"grids\":[", u(t0), u(t1), AN_BINS_T,
		AN_BINS_A);
	write_grids(out, bins, ng);
	fprintf(out, "]");
	if (write_sources(out, r))
		return -ENOMEM;
	if (mem) {
		fprintf(out, ",\"functions\":[");
		/* the functions with the most outcomes */
		size_t *idx = calloc(r->nfunctions ? r->nfunctions : 1, sizeof(*idx)), n = 0;
		if (!idx)
			return -ENOMEM;
		for (size_t i = 0; i < r->nfunctions; i++)
			if (r->functions[i].mem.refs)
				idx[n++] = i;
		for (size_t a = 0; a < n && a < HTML_MAX_FUNCTIONS; a++) {
			size_t best = a;
			for (size_t b = a + 1; b < n; b++)
				if (r->functions[idx[b]].mem.refs > r->functions[idx[best]].mem.refs)
					best = b;
			size_t t = idx[a];
			idx[a] = idx[best];
			idx[best] = t;
			const struct an_function *f = &r->functions[idx[a]];
			fprintf(out, "%s{\"name\":", a ? "," : "");
			jstr(out, f->name);
			fprintf(out, ",\"module\":");
			jstr(out, f->module);
			fprintf(out, ",\"accesses\":%llu,\"mem\":", u(f->c.loads + f->c.stores));
			mem_json(out, &f->mem);
			fprintf(out, "}");
		}
		free(idx);
		fprintf(out, "]");
	}
	if (r->npages) {
		/* the CDF needs only the walks per page, sorted */
		uint64_t *w = malloc(r->npages * sizeof(*w));
		if (!w)
			return -ENOMEM;
		for (size_t i = 0; i < r->npages; i++)
			w[i] = r->pages[i].walks;
		qsort(w, r->npages, sizeof(*w), by_walks_desc);
		fprintf(out, ",\"page_walks\":[");
		for (size_t i = 0; i < r->npages; i++)
			fprintf(out, "%s%llu", i ? "," : "", u(w[i]));
		fprintf(out, "]");
		free(w);
	}
	if (r->numa)
		write_numa(out, r);
	if (r->mem_origin == AN_MEM_MODELLED) {
		/* what to change (rp_advice.c), as the text report has it */
		fputc(',', out);
		rp_advice_json(out, r, o, jstr);
	}
	fprintf(out, ",\"warnings\":[");
	for (size_t i = 0; i < r->nwarnings; i++) {
		if (i)
			fputc(',', out);
		jstr(out, r->warnings[i]);
	}
	fprintf(out, "]}");
	return 0;
}

int rp_render_html(FILE *out, const struct an_result *r, const struct rp_opts *o, const struct an_bins *bins)
{
	fputs(rp_html_head, out);
	fputs("<script type=\"application/json\" id=\"mp-data\">", out);
	int err = write_data(out, r, o, bins);
	if (err)
		return err;
	fputs("</script>\n<script>\n", out);
	fputs(rp_html_script, out);
	fputs("</script>\n</body>\n</html>\n", out);
	return ferror(out) ? -EIO : 0;
}
