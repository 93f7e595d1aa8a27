// SPDX-License-Identifier: MIT
/*
 * `memprism diff`: two results (before, after; each one file or several
 * merged) compared object by object. Heap, mmap and mapped-file rows are
 * matched by their site's function and file: a function's sites on each
 * side in line order, paired in that order when both sides have as many
 * (an edit above them moves their lines together), else by label first.
 * The other rows match by kind and label. Unmatched rows are new (after
 * only) or vanished (before only). Rows sorted by the size of the change.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/mp_path.h"
#include "report/report.h"
#include "report/rp_int.h"

struct drow {
	const struct an_class *a, *b; /* before, after; NULL on the side without it */
	int64_t change; /* accesses after - before */
	int64_t dram_change, walk_change;
};

static uint64_t acc(const struct an_class *c)
{
	return c ? c->c.loads + c->c.stores : 0;
}

static const struct an_frame *site(const struct an_class *c)
{
	return c->nstack > 0 && c->site_frame >= 0 && c->site_frame < c->nstack ? &c->stack[c->site_frame] : NULL;
}

/* Rows that can match by function when their labels differ: sites with a
 * function and a file. */
static int movable(const struct an_class *c)
{
	const struct an_frame *f = site(c);
	return (c->kind == AN_KIND_HEAP || c->kind == AN_KIND_MMAP_ANON || c->kind == AN_KIND_MMAP_FILE) && f &&
	       f->function && f->file;
}

static int same_function(const struct an_class *x, const struct an_class *y)
{
	const struct an_frame *f = site(x), *g = site(y);
	return x->kind == y->kind && !strcmp(f->function, g->function) && !strcmp(mp_base_name(f->file), mp_base_name(g->file)) &&
	       (x->kind != AN_KIND_MMAP_FILE || (x->file && y->file && !strcmp(x->file, y->file)));
}

static int64_t sdiff(uint64_t after, uint64_t before)
{
	return (int64_t)(after - before);
}

static uint64_t mag(int64_t v)
{
	return v < 0 ? (uint64_t)-v : (uint64_t)v;
}

static int by_change(const void *p, const void *q)
{
	const struct drow *x = p, *y = q;
	if (mag(x->change) != mag(y->change))
		return mag(x->change) < mag(y->change) ? 1 : -1;
	if (mag(x->dram_change) != mag(y->dram_change))
		return mag(x->dram_change) < mag(y->dram_change) ? 1 : -1;
	if (mag(x->walk_change) != mag(y->walk_change))
		return mag(x->walk_change) < mag(y->walk_change) ? 1 : -1;
	uint64_t ax = acc(x->b ? x->b : x->a), ay = acc(y->b ? y->b : y->a);
	if (ax != ay)
		return ax < ay ? 1 : -1;
	return strcmp((x->b ? x->b : x->a)->label, (y->b ? y->b : y->a)->label);
}

/* Line order of a row's site (0 without one). */
static int line_of(const struct an_class *c)
{
	const struct an_frame *f = site(c);
	return f ? f->line : 0;
}

/* Indices of r's classes, by their site's line (insertion: groups are small). */
static void sort_by_line(size_t *v, size_t n, const struct an_result *r)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && line_of(&r->classes[v[j - 1]]) > line_of(&r->classes[v[j]]); j--) {
			size_t t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
}

static struct drow *match(const struct an_result *a, const struct an_result *b, size_t *n)
{
	struct drow *rows = calloc(a->nclasses + b->nclasses + 1, sizeof(*rows));
	char *used = calloc(a->nclasses + 1, 1), *done = calloc(b->nclasses + 1, 1);
	if (!rows || !used || !done) {
		free(rows);
		free(used);
		free(done);
		return NULL;
	}
	*n = 0;
	size_t *ga = calloc(a->nclasses + 1, sizeof(*ga)), *gb = calloc(b->nclasses + 1, sizeof(*gb));
	if (!ga || !gb) {
		free(ga);
		free(gb);
		free(rows);
		free(used);
		free(done);
		return NULL;
	}
	/* sites, by function: the sites of one function on each side (its
	 * group), in line order. As many on both sides: paired in that order,
	 * so lines that moved together (an edit above them) keep their rows;
	 * else the same labels first, then the rest in order */
	for (size_t j0 = 0; j0 < b->nclasses; j0++) {
		if (done[j0] || !movable(&b->classes[j0]))
			continue;
		const struct an_class *key = &b->classes[j0];
		size_t na = 0, nb = 0;
		for (size_t i = 0; i < a->nclasses; i++)
			if (!used[i] && movable(&a->classes[i]) && same_function(&a->classes[i], key))
				ga[na++] = i;
		for (size_t j = 0; j < b->nclasses; j++)
			if (!done[j] && movable(&b->classes[j]) && same_function(&b->classes[j], key))
				gb[nb++] = j;
		sort_by_line(ga, na, a);
		sort_by_line(gb, nb, b);
		if (na != nb)
			for (size_t y = 0; y < nb; y++)
				for (size_t x = 0; x < na; x++)
					if (!used[ga[x]] && !strcmp(a->classes[ga[x]].label, b->classes[gb[y]].label)) {
						used[ga[x]] = done[gb[y]] = 1;
						rows[(*n)++] = (struct drow){ .a = &a->classes[ga[x]], .b = &b->classes[gb[y]] };
						break;
					}
		size_t x = 0;
		for (size_t y = 0; y < nb; y++) {
			if (done[gb[y]])
				continue;
			while (x < na && used[ga[x]])
				x++;
			if (x == na)
				break;
			used[ga[x]] = done[gb[y]] = 1;
			rows[(*n)++] = (struct drow){ .a = &a->classes[ga[x]], .b = &b->classes[gb[y]] };
		}
		for (size_t y = 0; y < nb; y++) /* (this group's leftovers are new) */
			if (!done[gb[y]]) {
				done[gb[y]] = 1;
				rows[(*n)++] = (struct drow){ .b = &b->classes[gb[y]] };
			}
	}
	free(ga);
	free(gb);
	/* the other rows: the same kind and label */
	for (size_t j = 0; j < b->nclasses; j++)
		for (size_t i = 0; i < a->nclasses && !done[j]; i++)
			if (!used[i] && a->classes[i].kind == b->classes[j].kind &&
			    !strcmp(a->classes[i].label, b->classes[j].label)) {
				used[i] = done[j] = 1;
				rows[(*n)++] = (struct drow){ .a = &a->classes[i], .b = &b->classes[j] };
			}
	for (size_t j = 0; j < b->nclasses; j++)
		if (!done[j])
			rows[(*n)++] = (struct drow){ .b = &b->classes[j] };
	for (size_t i = 0; i < a->nclasses; i++)
		if (!used[i])
			rows[(*n)++] = (struct drow){ .a = &a->classes[i] };
	free(used);
	free(done);
	/* statics and mappings touched on neither side are noise (as in the
	 * report's object view); heap, named and group rows stay */
	size_t k = 0;
	for (size_t i = 0; i < *n; i++) {
		struct drow *r = &rows[i];
		enum an_kind kind = (r->a ? r->a : r->b)->kind;
		if (!acc(r->a) && !acc(r->b) && kind != AN_KIND_HEAP && kind != AN_KIND_NAMED && kind != AN_KIND_GROUP)
			continue;
		const struct an_mem *ma = r->a ? &r->a->mem : NULL, *mb = r->b ? &r->b->mem : NULL;
		r->change = sdiff(acc(r->b), acc(r->a));
		r->dram_change = sdiff(mb ? mb->dram_reads + mb->dram_writes : 0, ma ? ma->dram_reads + ma->dram_writes : 0);
		r->walk_change = sdiff(mb ? mb->walks : 0, ma ? ma->walks : 0);
		rows[k++] = *r;
	}
	*n = k;
	qsort(rows, *n, sizeof(*rows), by_change);
	return rows;
}

static const char *status(const struct drow *r)
{
	if (!r->a)
		return "new";
	if (!r->b)
		return "vanished";
	if (r->change || r->dram_change || r->walk_change || r->a->c.loads != r->b->c.loads)
		return "changed";
	return "same";
}

static const char *signed_grouped(char *buf, size_t cap, int64_t v)
{
	char g[32];
	snprintf(buf, cap, "%s%s", v > 0 ? "+" : v < 0 ? "-" : "", rp_grouped(g, sizeof(g), mag(v)));
	return buf;
}

static void json_side(FILE *out, const char *name, const struct an_class *c, int mem)
{
	static const struct an_class none;
	if (!c)
		c = &none;
	fprintf(out, ",\"%s\":{\"accesses\":%llu,\"loads\":%llu,\"stores\":%llu,\"bytes_loaded\":%llu,"
		     "\"bytes_stored\":%llu,\"instances\":%llu,\"size\":%llu",
		name, (unsigned long long)acc(c), (unsigned long long)c->c.loads, (unsigned long long)c->c.stores,
		(unsigned long long)c->c.bytes_loaded, (unsigned long long)c->c.bytes_stored,
		(unsigned long long)c->instances, (unsigned long long)c->bytes_allocated);
	if (mem)
		fprintf(out, ",\"dram_reads\":%llu,\"dram_writes\":%llu,\"walks\":%llu",
			(unsigned long long)c->mem.dram_reads, (unsigned long long)c->mem.dram_writes,
			(unsigned long long)c->mem.walks);
	fputc('}', out);
}

int rp_render_diff(FILE *out, const struct an_result *a, const struct an_result *b, const struct rp_opts *o,
		   const char *what_a, const char *what_b)
{
	size_t n;
	struct drow *rows = match(a, b, &n);
	if (!rows)
		return -ENOMEM;
	int mem = a->mem_origin == AN_MEM_MODELLED && b->mem_origin == AN_MEM_MODELLED;
	static const struct an_class none;
	if (o->format == RP_CSV) {
		fprintf(out, "object,kind,status,was,accesses_before,accesses_after,accesses_change,loads_before,"
			     "loads_after,stores_before,stores_after,bytes_before,bytes_after%s\n",
			mem ? ",dram_reads_before,dram_reads_after,dram_writes_before,dram_writes_after,walks_before,"
			      "walks_after"
			    : "");
		for (size_t i = 0; i < n; i++) {
			const struct drow *r = &rows[i];
			const struct an_class *x = r->a ? r->a : &none, *y = r->b ? r->b : &none;
			const struct an_class *l = r->b ? r->b : r->a;
			rp_csv_str(out, l->label);
			fputc(',', out);
			rp_csv_str(out, an_kind_name(l->kind));
			fprintf(out, ",%s,", status(r));
			rp_csv_str(out, r->a && r->b && strcmp(r->a->label, r->b->label) ? r->a->label : "");
			fprintf(out, ",%llu,%llu,%lld,%llu,%llu,%llu,%llu,%llu,%llu", (unsigned long long)acc(x),
				(unsigned long long)acc(y), (long long)r->change, (unsigned long long)x->c.loads,
				(unsigned long long)y->c.loads, (unsigned long long)x->c.stores,
				(unsigned long long)y->c.stores,
				(unsigned long long)(x->c.bytes_loaded + x->c.bytes_stored),
				(unsigned long long)(y->c.bytes_loaded + y->c.bytes_stored));
			if (mem)
				fprintf(out, ",%llu,%llu,%llu,%llu,%llu,%llu", (unsigned long long)x->mem.dram_reads,
					(unsigned long long)y->mem.dram_reads, (unsigned long long)x->mem.dram_writes,
					(unsigned long long)y->mem.dram_writes, (unsigned long long)x->mem.walks,
					(unsigned long long)y->mem.walks);
			fputc('\n', out);
		}
	} else if (o->format == RP_JSON) {
		fprintf(out, "{\"schema\":\"memprism-diff-1\",\"before\":");
		rp_json_str(out, what_a);
		fprintf(out, ",\"after\":");
		rp_json_str(out, what_b);
		fprintf(out, ",\"modelled\":%s,\"rows\":[", mem ? "true" : "false");
		for (size_t i = 0; i < n; i++) {
			const struct drow *r = &rows[i];
			const struct an_class *l = r->b ? r->b : r->a;
			fprintf(out, "%s{\"label\":", i ? "," : "");
			rp_json_str(out, l->label);
			fprintf(out, ",\"kind\":\"%s\",\"status\":\"%s\",\"was\":", an_kind_name(l->kind), status(r));
			rp_json_str(out, r->a && r->b && strcmp(r->a->label, r->b->label) ? r->a->label : NULL);
			fprintf(out, ",\"change\":%lld", (long long)r->change);
			json_side(out, "before", r->a, mem);
			json_side(out, "after", r->b, mem);
			fputc('}', out);
		}
		fprintf(out, "]}\n");
	} else {
		char s1[32], s2[32], s3[32], s4[32], s5[32], s6[32];
		fprintf(out, "memprism diff\nbefore:    %s%s%s\nafter:     %s%s%s\n", what_a, a->cmdline[0] ? ": " : "",
			a->cmdline, what_b, b->cmdline[0] ? ": " : "", b->cmdline);
		fprintf(out, "accesses:  %s -> %s (%s)\n", rp_grouped(s1, sizeof(s1), a->total.loads + a->total.stores),
			rp_grouped(s2, sizeof(s2), b->total.loads + b->total.stores),
			signed_grouped(s3, sizeof(s3),
				       sdiff(b->total.loads + b->total.stores, a->total.loads + a->total.stores)));
		if (mem)
			fprintf(out, "modelled:  DRAM requests %s -> %s, page walks %s -> %s\n",
				rp_grouped(s1, sizeof(s1), a->mem_total.dram_reads + a->mem_total.dram_writes),
				rp_grouped(s2, sizeof(s2), b->mem_total.dram_reads + b->mem_total.dram_writes),
				rp_grouped(s3, sizeof(s3), a->mem_total.walks), rp_grouped(s4, sizeof(s4), b->mem_total.walks));
		fprintf(out, "\n%14s %14s %14s %12s %12s", "before", "after", "change", "loads", "stores");
		if (mem)
			fprintf(out, " %12s %10s", "DRAM", "walks");
		fprintf(out, " %-9s %s\n", "status", "object");
		size_t shown = 0;
		for (size_t i = 0; i < n; i++) {
			const struct drow *r = &rows[i];
			if (o->limit && shown >= o->limit) {
				fprintf(out, "... %zu more rows (--limit 0 shows all)\n", n - i);
				break;
			}
			const struct an_class *x = r->a ? r->a : &none, *y = r->b ? r->b : &none;
			fprintf(out, "%14s %14s %14s %12s %12s", rp_grouped(s1, sizeof(s1), acc(x)),
				rp_grouped(s2, sizeof(s2), acc(y)), signed_grouped(s3, sizeof(s3), r->change),
				signed_grouped(s4, sizeof(s4), sdiff(y->c.loads, x->c.loads)),
				signed_grouped(s5, sizeof(s5), sdiff(y->c.stores, x->c.stores)));
			if (mem)
				fprintf(out, " %12s %10s", signed_grouped(s6, sizeof(s6), r->dram_change),
					signed_grouped(s1, sizeof(s1), r->walk_change));
			const struct an_class *l = r->b ? r->b : r->a;
			fprintf(out, " %-9s %s", status(r), l->label);
			if (r->a && r->b && strcmp(r->a->label, r->b->label))
				fprintf(out, " (was %s)", r->a->label);
			fputc('\n', out);
			shown++;
		}
	}
	free(rows);
	return 0;
}
