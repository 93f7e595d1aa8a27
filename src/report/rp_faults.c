// SPDX-License-Identifier: MIT
/*
 * Reports of a `record --source faults` run: page faults and first touches
 * per object, site, kind, thread or function, and the page view (which
 * thread, CPU and node placed each page). Every figure is a count of
 * completed page faults the kernel reported, one per fault (period 1): not
 * sampled, not modelled. Kept apart from report.c, whose tables are access
 * counts.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/rp_int.h"

struct frow {
	const char *label, *kind;
	struct an_faults f;
	struct an_mem mem; /* pmu recordings: measured outcomes, scaled by period */
	uint64_t size, instances;
	const uint32_t *threads;
	size_t nthreads;
	char *own_label;
};

static int by_faults(const void *a, const void *b)
{
	const struct frow *x = a, *y = b;
	if (x->mem.refs != y->mem.refs)
		return x->mem.refs < y->mem.refs ? 1 : -1;
	if (x->f.faults != y->f.faults)
		return x->f.faults < y->f.faults ? 1 : -1;
	if (x->f.pages != y->f.pages)
		return x->f.pages < y->f.pages ? 1 : -1;
	return strcmp(x->label, y->label);
}

static void fadd(struct an_faults *a, const struct an_faults *b)
{
	a->faults += b->faults;
	a->major += b->major;
	a->pages += b->pages;
}

static void free_frows(struct frow *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(rows[i].own_label);
	free(rows);
}

static struct frow *build(const struct an_result *res, enum rp_by by, size_t *nrows)
{
	size_t cap = res->nclasses + res->nthreads + res->nfunctions + res->nlines + 1;
	struct frow *rows = calloc(cap, sizeof(*rows));
	size_t n = 0;
	if (!rows)
		return NULL;
	switch (by) {
	case RP_BY_OBJECT:
	case RP_BY_SITE:
	case RP_BY_KIND:
		for (size_t i = 0; i < res->nclasses; i++) {
			const struct an_class *c = &res->classes[i];
			if (!c->faults.faults && !c->mem.refs)
				continue; /* rows without faults or samples say nothing */
			const char *key = by == RP_BY_KIND ? an_kind_name(c->kind) : by == RP_BY_SITE ? c->site : c->label;
			if (!key)
				continue;
			size_t k = 0;
			if (by != RP_BY_OBJECT)
				while (k < n && strcmp(rows[k].label, key) != 0)
					k++;
			else
				k = n;
			if (k == n)
				rows[n++] = (struct frow){ .label = key, .kind = an_kind_name(c->kind),
							   .threads = by == RP_BY_OBJECT ? c->threads : NULL,
							   .nthreads = by == RP_BY_OBJECT ? c->nthreads : 0 };
			fadd(&rows[k].f, &c->faults);
			an_mem_add(&rows[k].mem, &c->mem);
			rows[k].size += c->bytes_allocated;
			rows[k].instances += c->instances;
		}
		break;
	case RP_BY_THREAD:
		for (size_t i = 0; i < res->nthreads; i++) {
			const struct an_thread *t = &res->threads[i];
			if (!t->faults.faults && !t->mem.refs)
				continue;
			char buf[128];
			snprintf(buf, sizeof(buf), "pid %u tid %u%s%s", t->pid, t->tid, t->name[0] ? " " : "", t->name);
			rows[n] = (struct frow){ .kind = "thread", .f = t->faults, .mem = t->mem, .own_label = strdup(buf) };
			if (!rows[n].own_label)
				goto oom;
			rows[n].label = rows[n].own_label;
			n++;
		}
		break;
	case RP_BY_FUNCTION:
	case RP_BY_LINE: {
		const struct an_function *fs = by == RP_BY_LINE ? res->lines : res->functions;
		size_t nf = by == RP_BY_LINE ? res->nlines : res->nfunctions;
		for (size_t i = 0; i < nf; i++) {
			const struct an_function *f = &fs[i];
			if (f->faults.faults || f->mem.refs)
				rows[n++] = (struct frow){ .label = f->name, .kind = f->module, .f = f->faults,
							   .mem = f->mem };
		}
		break;
	}
	default:
		break;
	}
	if (n)
		qsort(rows, n, sizeof(*rows), by_faults);
	*nrows = n;
	return rows;
oom:
	free_frows(rows, n);
	return NULL;
}

static const char *view_name(enum rp_by by)
{
	static const char *const n[] = { "object", "site", "kind", "thread", "function", "page", "rank", "process", "line" };
	return (unsigned)by < sizeof(n) / sizeof(n[0]) ? n[by] : "?";
}

static void header(FILE *out, const struct an_result *res, const struct rp_opts *o)
{
	char a[32], b[32], c[32];
	fprintf(out, "memprism report: %s (by %s)\n", o->data_path ? o->data_path : "memprism.data", view_name(o->by));
	if (res->cmdline[0])
		fprintf(out, "command:   %s\n", res->cmdline);
	fprintf(out, "source:    faults: every completed page fault (perf software events, one per fault); "
		     "a page's first fault is its first touch\n");
	fprintf(out, "processes: %zu, threads: %zu, allocations: %s\n", res->nprocs, res->nthreads,
		rp_grouped(a, sizeof(a), res->allocations));
	fprintf(out, "faults:    %s (major %s), pages first touched: %s", rp_grouped(a, sizeof(a), res->faults.faults),
		rp_grouped(b, sizeof(b), res->faults.major), rp_grouped(c, sizeof(c), res->faults.pages));
	if (o->roi)
		fprintf(out, " inside region '%s'; %s outside", o->roi,
			rp_grouped(a, sizeof(a), res->samples_outside_roi));
	fprintf(out, "\n");
	if (res->samples_lost)
		fprintf(out, "lost:      %s faults were not recorded (the rings were full): counts are lower bounds\n",
			rp_grouped(a, sizeof(a), res->samples_lost));
	if (res->run_status >= 0x100)
		fprintf(out, "program:   killed by signal %d\n", res->run_status - 0x100);
	else if (res->run_status >= 0)
		fprintf(out, "program:   exited with status %d\n", res->run_status);
	fprintf(out, "\n");
}

static void threads_text(char *buf, size_t cap, const struct an_result *res, const struct frow *r)
{
	if (!r->nthreads) {
		snprintf(buf, cap, "-");
		return;
	}
	size_t o = 0;
	for (size_t i = 0; i < r->nthreads && i < 3 && o < cap; i++)
		o += (size_t)snprintf(buf + o, cap - o, "%s%u", i ? "," : "", res->threads[r->threads[i]].tid);
	if (r->nthreads > 3 && o < cap)
		snprintf(buf + o, cap - o, ",+%zu", r->nthreads - 3);
}

static int pages_render(FILE *out, const struct an_result *res, const struct rp_opts *o)
{
	char a[32];
	if (o->format == RP_CSV) {
		fprintf(out, "page,pid,tid,cpu,node,faults,time,ip,kind,object\n");
		for (size_t i = 0; i < res->ntouches; i++) {
			const struct an_touch *p = &res->touches[i];
			const struct an_class *c = &res->classes[p->cls];
			fprintf(out, "0x%llx,%u,%u,%u,%d,%llu,%llu,0x%llx,", (unsigned long long)p->addr, p->pid, p->tid,
				p->cpu, p->node, (unsigned long long)p->faults, (unsigned long long)p->time,
				(unsigned long long)p->ip);
			rp_csv_str(out, an_kind_name(c->kind));
			fputc(',', out);
			rp_csv_str(out, c->label);
			fputc('\n', out);
		}
		return 0;
	}
	if (o->format == RP_JSON) {
		fprintf(out, "{\"schema\":\"memprism-report-1\",\"source\":\"faults\",\"by\":\"page\",\"data\":");
		rp_json_str(out, o->data_path);
		fprintf(out, ",\"pages\":[");
		for (size_t i = 0; i < res->ntouches; i++) {
			const struct an_touch *p = &res->touches[i];
			fprintf(out, "%s{\"page\":%llu,\"pid\":%u,\"tid\":%u,\"cpu\":%u,\"node\":%d,\"faults\":%llu,"
				     "\"time\":%llu,\"ip\":%llu,\"object\":",
				i ? "," : "", (unsigned long long)p->addr, p->pid, p->tid, p->cpu, p->node,
				(unsigned long long)p->faults, (unsigned long long)p->time, (unsigned long long)p->ip);
			rp_json_str(out, res->classes[p->cls].label);
			fprintf(out, "}");
		}
		fprintf(out, "]}\n");
		return 0;
	}
	header(out, res, o);
	fprintf(out, "%18s %8s %8s %4s %6s %-8s %s\n", "page", "tid", "cpu", "node", "faults", "kind", "object (first touch, in time order)");
	size_t shown = 0;
	for (size_t i = 0; i < res->ntouches; i++) {
		if (o->limit && shown >= o->limit) {
			fprintf(out, "... %zu more pages (--limit 0 shows all)\n", res->ntouches - i);
			break;
		}
		const struct an_touch *p = &res->touches[i];
		const struct an_class *c = &res->classes[p->cls];
		fprintf(out, "%#18llx %8u %8u %4d %6s %-8s %s\n", (unsigned long long)p->addr, p->tid, p->cpu, p->node,
			rp_grouped(a, sizeof(a), p->faults), an_kind_name(c->kind), c->label);
		shown++;
	}
	return 0;
}

int rp_render_faults(FILE *out, const struct an_result *res, const struct rp_opts *o)
{
	if (o->by == RP_BY_PAGE)
		return pages_render(out, res, o);
	size_t n = 0;
	struct frow *rows = build(res, o->by, &n);
	if (!rows)
		return -ENOMEM;
	uint64_t total = res->faults.faults;
	int sized = o->by == RP_BY_OBJECT || o->by == RP_BY_SITE || o->by == RP_BY_KIND;
	char a[32], b[32], c[32], d[32], t[64];
	if (o->format == RP_CSV) {
		fprintf(out, "%s,kind,faults,major,pages,share,size,instances,threads\n", view_name(o->by));
		for (size_t i = 0; i < n; i++) {
			const struct frow *r = &rows[i];
			rp_csv_str(out, r->label);
			fputc(',', out);
			rp_csv_str(out, r->kind);
			fprintf(out, ",%llu,%llu,%llu,%.6f,%llu,%llu,%zu\n", (unsigned long long)r->f.faults,
				(unsigned long long)r->f.major, (unsigned long long)r->f.pages,
				total ? (double)r->f.faults / (double)total : 0.0, (unsigned long long)r->size,
				(unsigned long long)r->instances, r->nthreads);
		}
	} else if (o->format == RP_JSON) {
		fprintf(out, "{\"schema\":\"memprism-report-1\",\"source\":\"faults\",\"measured\":true,\"by\":\"%s\","
			     "\"data\":",
			view_name(o->by));
		rp_json_str(out, o->data_path);
		fprintf(out, ",\"command\":");
		rp_json_str(out, res->cmdline);
		fprintf(out, ",\"exit_status\":%d,\"faults\":{\"faults\":%llu,\"major\":%llu,\"pages\":%llu,\"lost\":%llu,"
			     "\"outside_roi\":%llu},\"rows\":[",
			res->run_status, (unsigned long long)res->faults.faults, (unsigned long long)res->faults.major,
			(unsigned long long)res->faults.pages, (unsigned long long)res->samples_lost,
			(unsigned long long)res->samples_outside_roi);
		for (size_t i = 0; i < n; i++) {
			const struct frow *r = &rows[i];
			fprintf(out, "%s{\"label\":", i ? "," : "");
			rp_json_str(out, r->label);
			fprintf(out, ",\"kind\":");
			rp_json_str(out, r->kind);
			fprintf(out, ",\"faults\":%llu,\"major\":%llu,\"pages\":%llu,\"size\":%llu,\"instances\":%llu,\"threads\":[",
				(unsigned long long)r->f.faults, (unsigned long long)r->f.major,
				(unsigned long long)r->f.pages, (unsigned long long)r->size,
				(unsigned long long)r->instances);
			for (size_t k = 0; k < r->nthreads; k++)
				fprintf(out, "%s%u", k ? "," : "", res->threads[r->threads[k]].tid);
			fprintf(out, "]}");
		}
		fprintf(out, "],\"warnings\":[");
		for (size_t i = 0; i < res->nwarnings; i++) {
			if (i)
				fputc(',', out);
			rp_json_str(out, res->warnings[i]);
		}
		fprintf(out, "]}\n");
	} else {
		header(out, res, o);
		fprintf(out, "%12s %6s %8s %10s", "faults", "share", "major", "pages");
		if (sized)
			fprintf(out, " %10s %9s %-12s", "size", "instances", o->by == RP_BY_OBJECT ? "threads" : "");
		if (o->by == RP_BY_FUNCTION || o->by == RP_BY_LINE)
			fprintf(out, " %-16s", "module");
		else if (o->by != RP_BY_KIND && o->by != RP_BY_THREAD)
			fprintf(out, " %-8s", "kind");
		fprintf(out, " %s\n", view_name(o->by));
		for (size_t i = 0; i < n; i++) {
			if (o->limit && i >= o->limit) {
				fprintf(out, "... %zu more rows (--limit 0 shows all)\n", n - i);
				break;
			}
			const struct frow *r = &rows[i];
			fprintf(out, "%12s %5.1f%% %8s %10s", rp_grouped(a, sizeof(a), r->f.faults),
				total ? 100.0 * (double)r->f.faults / (double)total : 0.0,
				rp_grouped(b, sizeof(b), r->f.major), rp_grouped(c, sizeof(c), r->f.pages));
			if (sized) {
				threads_text(t, sizeof(t), res, r);
				fprintf(out, " %10s %9s %-12s", r->size ? rp_human(d, sizeof(d), r->size) : "-",
					rp_grouped(a, sizeof(a), r->instances), o->by == RP_BY_OBJECT ? t : "");
			}
			if (o->by == RP_BY_FUNCTION || o->by == RP_BY_LINE)
				fprintf(out, " %-16s", r->kind ? r->kind : "?");
			else if (o->by != RP_BY_KIND && o->by != RP_BY_THREAD)
				fprintf(out, " %-8s", r->kind);
			fprintf(out, " %s\n", r->label);
		}
		if (res->nwarnings)
			fprintf(out, "\n");
		for (size_t i = 0; i < res->nwarnings; i++)
			fprintf(out, "warning: %s\n", res->warnings[i]);
	}
	free_frows(rows, n);
	return 0;
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

/* Views of a `record --source pmu` result: estimated accesses (samples x
 * period) per row and the share served by each level, remote, walks, and
 * the mean latency. Measured, never mixed with modelled figures. */
int rp_render_pmu(FILE *out, const struct an_result *res, const struct rp_opts *o)
{
	if (o->by == RP_BY_PAGE)
		return -EINVAL;
	size_t n = 0;
	struct frow *rows = build(res, o->by, &n);
	if (!rows)
		return -ENOMEM;
	static const int lv[] = { MP_LVL_L1, MP_LVL_LFB, MP_LVL_L2, MP_LVL_L3, MP_LVL_LOCAL_DRAM, MP_LVL_REMOTE_DRAM,
				  MP_LVL_REMOTE_CACHE };
	static const char *const lname[] = { "l1", "lfb", "l2", "l3", "local_dram", "remote_dram", "remote_cache" };
	char a[32];
	if (o->format == RP_CSV) {
		fprintf(out, "%s,kind,est_accesses", view_name(o->by));
		for (size_t k = 0; k < 7; k++)
			fprintf(out, ",%s", lname[k]);
		fprintf(out, ",remote,walks,mean_latency,latency_p50,latency_p90,latency_p99\n");
		for (size_t i = 0; i < n; i++) {
			const struct frow *r = &rows[i];
			rp_csv_str(out, r->label);
			fputc(',', out);
			rp_csv_str(out, r->kind);
			fprintf(out, ",%llu", (unsigned long long)r->mem.refs);
			for (size_t k = 0; k < 7; k++)
				fprintf(out, ",%llu", (unsigned long long)r->mem.level[lv[k]]);
			fprintf(out, ",%llu,%llu,%.1f,%llu,%llu,%llu\n", (unsigned long long)r->mem.remote,
				(unsigned long long)r->mem.tlb[MP_TLB_WALK],
				r->mem.latency_n ? (double)r->mem.latency_sum / (double)r->mem.latency_n : 0.0,
				(unsigned long long)rp_latency_quantile(&r->mem, 0.5),
				(unsigned long long)rp_latency_quantile(&r->mem, 0.9),
				(unsigned long long)rp_latency_quantile(&r->mem, 0.99));
		}
	} else {
		fprintf(out, "memprism report: %s (by %s)\n", o->data_path ? o->data_path : "memprism.data",
			view_name(o->by));
		if (res->cmdline[0])
			fprintf(out, "command:   %s\n", res->cmdline);
		fprintf(out, "source:    pmu: hardware samples; accesses are estimates (samples x period), levels "
			     "measured by the PMU\n");
		fprintf(out, "samples:   %s", rp_grouped(a, sizeof(a), res->samples));
		fprintf(out, ", %s lost\n\n", rp_grouped(a, sizeof(a), res->samples_lost));
		fprintf(out, "%14s %6s %6s %6s %6s %6s %6s %6s %6s %6s %8s %s\n", "est.accesses", "L1", "LFB", "L2", "L3",
			"DRAM", "rDRAM", "rCache", "remote", "walks", "latency", view_name(o->by));
		for (size_t i = 0; i < n; i++) {
			if (o->limit && i >= o->limit) {
				fprintf(out, "... %zu more rows (--limit 0 shows all)\n", n - i);
				break;
			}
			const struct an_mem *m = &rows[i].mem;
			fprintf(out, "%14s", rp_grouped(a, sizeof(a), m->refs));
			for (size_t k = 0; k < 7; k++)
				fprintf(out, " %5.1f%%", pct(m->level[lv[k]], m->refs));
			fprintf(out, " %5.1f%% %5.1f%% %8.1f %s\n", pct(m->remote, m->refs), pct(m->tlb[MP_TLB_WALK], m->refs),
				m->latency_n ? (double)m->latency_sum / (double)m->latency_n : 0.0, rows[i].label);
		}
		struct rp_lat_row *lr = calloc(n ? n : 1, sizeof(*lr));
		if (lr) {
			for (size_t i = 0; i < n; i++)
				lr[i] = (struct rp_lat_row){ rows[i].label, &rows[i].mem };
			rp_latency_section(out, lr, n, o->limit, "measured");
			free(lr);
		}
		for (size_t i = 0; i < res->nwarnings; i++)
			fprintf(out, "warning: %s\n", res->warnings[i]);
	}
	free_frows(rows, n);
	return 0;
}
