// SPDX-License-Identifier: MIT
/*
 * The what-if view: the same trace through two model configurations (another
 * machine, other page sizes for chosen objects), object by object. Rows are
 * matched by label, so an object keeps its row whatever the replay's class
 * numbering; sorted by how much the modelled cycles changed.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

struct cmp_row {
	const char *label;
	uint64_t accesses;
	const struct an_mem *a, *b;
};

static int by_change(const void *x, const void *y)
{
	const struct cmp_row *p = x, *q = y;
	double dp = fabs((double)p->b->latency_sum - (double)p->a->latency_sum);
	double dq = fabs((double)q->b->latency_sum - (double)q->a->latency_sum);
	if (dp != dq)
		return dp < dq ? 1 : -1;
	if (p->accesses != q->accesses)
		return p->accesses < q->accesses ? 1 : -1;
	return strcmp(p->label, q->label);
}

static double change(uint64_t a, uint64_t b)
{
	return a ? 100.0 * ((double)b - (double)a) / (double)a : (b ? INFINITY : 0.0);
}

static void pair_text(FILE *out, uint64_t a, uint64_t b)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%llu -> %llu", (unsigned long long)a, (unsigned long long)b);
	double c = change(a, b);
	if (isinf(c))
		fprintf(out, " %26s %7s", buf, "new");
	else
		fprintf(out, " %26s %+6.1f%%", buf, c);
}

int rp_render_compare(FILE *out, const struct an_result *a, const struct an_result *b, const struct rp_opts *o,
		      const char *what_a, const char *what_b)
{
	static const struct an_mem zero;
	struct cmp_row *rows = calloc(a->nclasses ? a->nclasses : 1, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < a->nclasses; i++) {
		const struct an_class *c = &a->classes[i];
		if (!c->mem.refs)
			continue;
		const struct an_mem *m = &zero;
		for (size_t j = 0; j < b->nclasses; j++)
			if (b->classes[j].kind == c->kind && strcmp(b->classes[j].label, c->label) == 0) {
				m = &b->classes[j].mem;
				break;
			}
		rows[n++] = (struct cmp_row){ c->label, c->c.loads + c->c.stores, &c->mem, m };
	}
	qsort(rows, n, sizeof(*rows), by_change);
	if (o->format == RP_CSV) {
		fprintf(out, "object,accesses,walks_a,walks_b,dram_a,dram_b,walk_dram_a,walk_dram_b,cycles_a,cycles_b,"
			     "cycles_change\n");
		for (size_t i = 0; i < n; i++) {
			const struct cmp_row *r = &rows[i];
			fputc('"', out);
			for (const char *s = r->label; *s; s++) {
				if (*s == '"')
					fputc('"', out);
				fputc(*s, out);
			}
			fprintf(out, "\",%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%.6f\n",
				(unsigned long long)r->accesses, (unsigned long long)r->a->walks,
				(unsigned long long)r->b->walks,
				(unsigned long long)(r->a->dram_reads + r->a->dram_writes),
				(unsigned long long)(r->b->dram_reads + r->b->dram_writes),
				(unsigned long long)r->a->walk_dram, (unsigned long long)r->b->walk_dram,
				(unsigned long long)r->a->latency_sum, (unsigned long long)r->b->latency_sum,
				change(r->a->latency_sum, r->b->latency_sum) / 100.0);
		}
		free(rows);
		return 0;
	}
	fprintf(out, "memprism whatif: %s (every figure MODELLED)\n", o->data_path ? o->data_path : "memprism.data");
	if (a->cmdline[0])
		fprintf(out, "command:   %s\n", a->cmdline);
	if (o->roi)
		fprintf(out, "region:    '%s' only\n", o->roi);
	fprintf(out, "A:         %s\nB:         %s\n", what_a, what_b);
	const struct an_mem *ta = &a->mem_total, *tb = &b->mem_total;
	fprintf(out, "total:    ");
	fprintf(out, " page walks");
	pair_text(out, ta->walks, tb->walks);
	fprintf(out, "; DRAM requests");
	pair_text(out, ta->dram_reads + ta->dram_writes, tb->dram_reads + tb->dram_writes);
	fprintf(out, "; cycles");
	pair_text(out, ta->latency_sum, tb->latency_sum);
	fprintf(out, "\n\n%12s %34s %34s %34s %s\n", "accesses", "page walks A -> B", "DRAM requests A -> B",
		"modelled cycles A -> B", "object");
	size_t lim = o->limit ? o->limit : n;
	for (size_t i = 0; i < n && i < lim; i++) {
		const struct cmp_row *r = &rows[i];
		fprintf(out, "%12llu", (unsigned long long)r->accesses);
		pair_text(out, r->a->walks, r->b->walks);
		pair_text(out, r->a->dram_reads + r->a->dram_writes, r->b->dram_reads + r->b->dram_writes);
		pair_text(out, r->a->latency_sum, r->b->latency_sum);
		fprintf(out, " %s\n", r->label);
	}
	if (n > lim)
		fprintf(out, "... %zu more rows (--limit 0 shows all)\n", n - lim);
	free(rows);
	return 0;
}
