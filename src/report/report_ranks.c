// SPDX-License-Identifier: MIT
/*
 * Many processes in one report: the rank view (a row per data file of a
 * merge: its rank, host, status and figures), the process view (a row per
 * process of each file, its threads' figures summed), and the spread of
 * the object view's merged rows over the files (min, median, max, and the
 * file with the most), so imbalance between ranks shows.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/mp_error.h"
#include "report/report.h"
#include "report/rp_int.h"

static uint64_t acc(const struct an_counts *c)
{
	return c->loads + c->stores;
}

/* "11500" or "11500.5": half of twice the median. */
static const char *median_text(char *buf, size_t cap, uint64_t median2)
{
	snprintf(buf, cap, "%llu%s", (unsigned long long)(median2 / 2), median2 % 2 ? ".5" : "");
	return buf;
}

/* "3" for a ranked file, else its path. */
static const char *part_id(char *buf, size_t cap, const struct an_merge_part *p)
{
	if (p->rank >= 0)
		snprintf(buf, cap, "%d", p->rank);
	else
		snprintf(buf, cap, "%s", p->path);
	return buf;
}

const char *rp_part_status(char *buf, size_t cap, const struct an_merge_part *p)
{
	if (p->err)
		snprintf(buf, cap, "not read: %s", mp_strerror(p->err));
	else if (p->damaged & AN_DAMAGE_UNTRUSTED)
		snprintf(buf, cap, "damaged: figures not to be trusted");
	else if (p->damaged)
		snprintf(buf, cap, "damaged: read in part");
	else
		snprintf(buf, cap, "ok");
	return buf;
}

struct prow {
	int rank;
	const char *host, *label, *status;
	uint32_t pid;
	struct an_counts c;
	struct an_mem mem;
	uint64_t threads, procs, allocations;
};

size_t rp_pid_rows(const struct an_result *res, size_t first, size_t n, struct rp_pid_row *out)
{
	size_t m = 0;
	for (size_t k = first; k < first + n && k < res->nprocs; k++) {
		const struct an_process *q = &res->procs[k];
		size_t j = 0;
		while (j < m && out[j].pid != q->pid)
			j++;
		if (j == m) {
			out[m++] = (struct rp_pid_row){ .pid = q->pid, .label = q->exe };
			continue;
		}
		/* an image its pid exec'd: its program joins the row's */
		const char *a = out[j].label ? out[j].label : "?", *b = q->exe ? q->exe : "?";
		size_t la = strlen(a), lb = strlen(b);
		char *c = malloc(la + lb + 5);
		if (!c)
			continue; /* (the row keeps the programs it has) */
		memcpy(c, a, la);
		memcpy(c + la, " -> ", 4);
		memcpy(c + la + 4, b, lb + 1);
		free(out[j].chain);
		out[j].chain = c;
		out[j].label = c;
	}
	return m;
}

void rp_pid_rows_free(struct rp_pid_row *rows, size_t n)
{
	for (size_t i = 0; i < n && rows; i++)
		free(rows[i].chain);
	free(rows);
}

/* The rows: parts (rank) or processes of each part, in the result's order
 * (a merge appends each file's processes and threads in turn). */
static struct prow *build(const struct an_result *res, const struct rp_opts *o, size_t *n, char (*status)[160],
			  struct rp_pid_row *pids)
{
	size_t nparts = o->merge ? an_merge_nparts(o->merge) : 1;
	size_t cap = o->by == RP_BY_RANK ? nparts : res->nprocs + 1;
	struct prow *rows = calloc(cap ? cap : 1, sizeof(*rows));
	if (!rows)
		return NULL;
	*n = 0;
	size_t proc = 0, thread = 0;
	for (size_t i = 0; i < nparts; i++) {
		const struct an_merge_part *p = o->merge ? an_merge_part(o->merge, i) : NULL;
		/* (a file alone: its part made here; the rows outlive it, so none
		 * points into it: host "", path the caller's) */
		struct an_merge_part one = { .rank = -1, .path = (char *)(o->data_path ? o->data_path : "memprism.data") };
		if (!p) {
			p = &one;
			one.total = res->total;
			one.mem_total = res->mem_total;
			one.allocations = res->allocations;
			one.nprocs = res->nprocs;
			one.nthreads = res->nthreads;
			one.damaged = res->damaged;
			one.pid = res->nprocs ? res->procs[0].pid : 0;
		}
		rp_part_status(status[i], sizeof(status[i]), p);
		if (o->by == RP_BY_RANK) {
			rows[(*n)++] = (struct prow){ .rank = p->rank, .host = p == &one ? "" : p->host, .label = p->path,
						      .status = status[i], .pid = p->pid, .c = p->total,
						      .mem = p->mem_total, .threads = p->nthreads, .procs = p->nprocs,
						      .allocations = p->allocations };
			continue;
		}
		if (p->err)
			continue;
		/* this file's processes and threads: the next nprocs and nthreads */
		const size_t m = rp_pid_rows(res, proc, p->nprocs, pids + proc);
		for (size_t k = proc; k < proc + m; k++) {
			struct prow *r = &rows[(*n)++];
			*r = (struct prow){ .rank = p->rank, .host = p == &one ? "" : p->host, .label = pids[k].label,
					    .status = status[i], .pid = pids[k].pid, .procs = 1 };
			for (size_t t = thread; t < thread + p->nthreads && t < res->nthreads; t++) {
				const struct an_thread *th = &res->threads[t];
				if (th->pid != r->pid)
					continue;
				r->c.loads += th->c.loads;
				r->c.stores += th->c.stores;
				r->c.bytes_loaded += th->c.bytes_loaded;
				r->c.bytes_stored += th->c.bytes_stored;
				an_mem_add(&r->mem, &th->mem);
				r->threads++;
				r->allocations += th->allocations;
			}
		}
		proc += p->nprocs;
		thread += p->nthreads;
	}
	return rows;
}

int rp_render_procs(FILE *out, const struct an_result *res, const struct rp_opts *o)
{
	size_t nparts = o->merge ? an_merge_nparts(o->merge) : 1, n = 0;
	char(*status)[160] = calloc(nparts, sizeof(*status));
	struct rp_pid_row *pids = calloc(res->nprocs + 1, sizeof(*pids)); /* (the labels of rows) */
	struct prow *rows = status && pids ? build(res, o, &n, status, pids) : NULL;
	if (!rows) {
		free(status);
		free(pids);
		return -ENOMEM;
	}
	int rank_view = o->by == RP_BY_RANK, mem = res->mem_origin != AN_MEM_NONE;
	uint64_t total = acc(&res->total);
	char a[32], b[32], c[32], d[32], e[32];
	if (o->format == RP_CSV) {
		fprintf(out, "rank,host,pid,%s,accesses,loads,stores,bytes_loaded,bytes_stored,share,%sthreads,allocations%s\n",
			rank_view ? "file,status" : "exe", rank_view ? "processes," : "",
			mem ? ",dram_reads,dram_writes,walks" : "");
		for (size_t i = 0; i < n; i++) {
			const struct prow *r = &rows[i];
			if (r->rank >= 0)
				fprintf(out, "%d,", r->rank);
			else
				fputc(',', out);
			rp_csv_str(out, r->host);
			fprintf(out, ",%u,", r->pid);
			rp_csv_str(out, r->label);
			if (rank_view) {
				fputc(',', out);
				rp_csv_str(out, r->status);
			}
			fprintf(out, ",%llu,%llu,%llu,%llu,%llu,%.6f,", (unsigned long long)acc(&r->c),
				(unsigned long long)r->c.loads, (unsigned long long)r->c.stores,
				(unsigned long long)r->c.bytes_loaded, (unsigned long long)r->c.bytes_stored,
				total ? (double)acc(&r->c) / (double)total : 0.0);
			if (rank_view)
				fprintf(out, "%llu,", (unsigned long long)r->procs);
			fprintf(out, "%llu,%llu", (unsigned long long)r->threads, (unsigned long long)r->allocations);
			if (mem)
				fprintf(out, ",%llu,%llu,%llu", (unsigned long long)r->mem.dram_reads,
					(unsigned long long)r->mem.dram_writes, (unsigned long long)r->mem.walks);
			fputc('\n', out);
		}
	} else if (o->format == RP_JSON) {
		fprintf(out, "{\"schema\":\"memprism-report-1\",\"by\":\"%s\",\"rows\":[", rank_view ? "rank" : "process");
		for (size_t i = 0; i < n; i++) {
			const struct prow *r = &rows[i];
			if (i)
				fputc(',', out);
			rp_json_rank_head(out, r->rank, r->host, r->pid, rank_view ? "file" : "exe", r->label, r->status);
			fprintf(out, ",\"accesses\":%llu,\"loads\":%llu,\"stores\":%llu,\"bytes_loaded\":%llu,"
				     "\"bytes_stored\":%llu,\"processes\":%llu,\"threads\":%llu,\"allocations\":%llu",
				(unsigned long long)acc(&r->c), (unsigned long long)r->c.loads,
				(unsigned long long)r->c.stores, (unsigned long long)r->c.bytes_loaded,
				(unsigned long long)r->c.bytes_stored, (unsigned long long)r->procs,
				(unsigned long long)r->threads, (unsigned long long)r->allocations);
			if (mem)
				fprintf(out, ",\"dram_reads\":%llu,\"dram_writes\":%llu,\"walks\":%llu",
					(unsigned long long)r->mem.dram_reads, (unsigned long long)r->mem.dram_writes,
					(unsigned long long)r->mem.walks);
			fputc('}', out);
		}
		fprintf(out, "],\"warnings\":[");
		for (size_t i = 0; i < res->nwarnings; i++) {
			if (i)
				fputc(',', out);
			rp_json_str(out, res->warnings[i]);
		}
		fprintf(out, "]}\n");
	} else {
		fprintf(out, "memprism report: %zu data file%s (by %s)\n", nparts, nparts == 1 ? "" : "s",
			rank_view ? "rank" : "process");
		if (res->cmdline[0])
			fprintf(out, "command:   %s\n", res->cmdline);
		rp_parts_text(out, o);
		fprintf(out, "accesses:  %s (loads %s, stores %s)\n\n", rp_grouped(a, sizeof(a), total),
			rp_grouped(b, sizeof(b), res->total.loads), rp_grouped(c, sizeof(c), res->total.stores));
		fprintf(out, "%6s %-16s %8s %14s %6s %14s %14s %10s %7s", "rank", "host", "pid", "accesses", "share",
			"loads", "stores", "bytes", "threads");
		if (mem)
			fprintf(out, " %12s %12s %10s", "DRAM reads", "DRAM writes", "walks");
		fprintf(out, " %s\n", rank_view ? "file (status)" : "program");
		for (size_t i = 0; i < n; i++) {
			const struct prow *r = &rows[i];
			char rk[16];
			snprintf(rk, sizeof(rk), r->rank >= 0 ? "%d" : "-", r->rank);
			fprintf(out, "%6s %-16s %8u %14s %5.1f%% %14s %14s %10s %7llu", rk, r->host && r->host[0] ? r->host : "-",
				r->pid, rp_grouped(a, sizeof(a), acc(&r->c)),
				total ? 100.0 * (double)acc(&r->c) / (double)total : 0.0,
				rp_grouped(b, sizeof(b), r->c.loads), rp_grouped(c, sizeof(c), r->c.stores),
				rp_human(d, sizeof(d), r->c.bytes_loaded + r->c.bytes_stored),
				(unsigned long long)r->threads);
			if (mem)
				fprintf(out, " %12s %12s %10s", rp_grouped(a, sizeof(a), r->mem.dram_reads),
					rp_grouped(b, sizeof(b), r->mem.dram_writes), rp_grouped(e, sizeof(e), r->mem.walks));
			if (rank_view)
				fprintf(out, " %s (%s)\n", r->label ? r->label : "?", r->status);
			else
				fprintf(out, " %s\n", r->label ? r->label : "?");
		}
		if (res->nwarnings)
			fprintf(out, "\n");
		for (size_t i = 0; i < res->nwarnings; i++)
			fprintf(out, "warning: %s\n", res->warnings[i]);
	}
	rp_pid_rows_free(pids, res->nprocs + 1);
	free(rows);
	free(status);
	return 0;
}

void rp_spread_csv_header(FILE *out, const struct rp_opts *o)
{
	if (o->merge && o->by == RP_BY_OBJECT)
		fprintf(out, ",files,file_min,file_median,file_max,file_top");
}

void rp_spread_csv(FILE *out, const struct an_result *res, const struct rp_opts *o, const struct an_class *c)
{
	if (!o->merge || o->by != RP_BY_OBJECT)
		return;
	struct an_spread s;
	an_merge_spread(o->merge, c ? (size_t)(c - res->classes) : SIZE_MAX, &s);
	char m[32], id[4200] = "";
	if (s.top != SIZE_MAX)
		part_id(id, sizeof(id), an_merge_part(o->merge, s.top));
	fprintf(out, ",%zu,%llu,%s,%llu,", s.n, (unsigned long long)s.min, median_text(m, sizeof(m), s.median2),
		(unsigned long long)s.max);
	rp_csv_str(out, id);
}

void rp_spread_json(FILE *out, const struct an_result *res, const struct rp_opts *o, const struct an_class *c)
{
	if (!o->merge || !c)
		return;
	size_t cls = (size_t)(c - res->classes);
	struct an_spread s;
	an_merge_spread(o->merge, cls, &s);
	char m[32];
	fprintf(out, ",\"spread\":{\"files\":%zu,\"min\":%llu,\"median\":%s,\"max\":%llu,\"top_file\":", s.n,
		(unsigned long long)s.min, median_text(m, sizeof(m), s.median2), (unsigned long long)s.max);
	if (s.top == SIZE_MAX)
		fprintf(out, "null");
	else
		fprintf(out, "%zu", s.top);
	fprintf(out, ",\"accesses\":[");
	for (size_t i = 0; i < an_merge_nparts(o->merge); i++)
		fprintf(out, "%s%llu", i ? "," : "", (unsigned long long)an_merge_part_accesses(o->merge, cls, i));
	fprintf(out, "]}");
}

void rp_parts_json(FILE *out, const struct rp_opts *o)
{
	if (!o->merge)
		return;
	fprintf(out, ",\"files\":[");
	for (size_t i = 0; i < an_merge_nparts(o->merge); i++) {
		const struct an_merge_part *p = an_merge_part(o->merge, i);
		char st[160];
		fprintf(out, "%s{\"path\":", i ? "," : "");
		rp_json_str(out, p->path);
		fprintf(out, ",\"rank\":");
		if (p->rank >= 0)
			fprintf(out, "%d", p->rank);
		else
			fprintf(out, "null");
		fprintf(out, ",\"host\":");
		rp_json_str(out, p->host);
		fprintf(out, ",\"status\":");
		rp_json_str(out, rp_part_status(st, sizeof(st), p));
		fprintf(out, ",\"accesses\":%llu}", (unsigned long long)acc(&p->total));
	}
	fprintf(out, "]");
}

void rp_spread_text(FILE *out, const struct an_result *res, const struct rp_opts *o,
		    const struct an_class *const *cls, size_t n)
{
	if (!o->merge || o->by != RP_BY_OBJECT || !n)
		return;
	size_t files = 0;
	for (size_t i = 0; i < an_merge_nparts(o->merge); i++)
		files += !an_merge_part(o->merge, i)->err;
	fprintf(out, "\naccesses per file (the rows above, over %zu files):\n", files);
	fprintf(out, "%14s %14s %14s %-12s %s\n", "min", "median", "max", "most", "object");
	for (size_t i = 0; i < n; i++) {
		struct an_spread s;
		an_merge_spread(o->merge, (size_t)(cls[i] - res->classes), &s);
		char a[32], b[32], c[32], m[32], id[4200] = "-";
		if (s.top != SIZE_MAX) {
			const struct an_merge_part *p = an_merge_part(o->merge, s.top);
			if (p->rank >= 0)
				snprintf(id, sizeof(id), "rank %d", p->rank);
			else
				snprintf(id, sizeof(id), "%s", p->path);
		}
		/* (the median with its half, grouped) */
		snprintf(m, sizeof(m), "%s%s", rp_grouped(c, sizeof(c), s.median2 / 2), s.median2 % 2 ? ".5" : "");
		fprintf(out, "%14s %14s %14s %-12s %s\n", rp_grouped(a, sizeof(a), s.min), m,
			rp_grouped(b, sizeof(b), s.max), id, cls[i]->label);
	}
}

void rp_parts_text(FILE *out, const struct rp_opts *o)
{
	if (!o->merge)
		return;
	size_t n = an_merge_nparts(o->merge), read = 0, unranked = 0;
	for (size_t i = 0; i < n; i++) {
		read += !an_merge_part(o->merge, i)->err;
		unranked += an_merge_part(o->merge, i)->rank < 0;
	}
	fprintf(out, "files:     %zu (%zu read)", n, read);
	/* ranks as runs "0-3, 5" (the parts are in rank order) */
	const char *sep = "; ranks ";
	for (size_t i = 0; i < n;) {
		int r = an_merge_part(o->merge, i)->rank;
		if (r < 0)
			break;
		size_t j = i;
		while (j + 1 < n && an_merge_part(o->merge, j + 1)->rank == an_merge_part(o->merge, j)->rank + 1)
			j++;
		if (j > i)
			fprintf(out, "%s%d-%d", sep, r, an_merge_part(o->merge, j)->rank);
		else
			fprintf(out, "%s%d", sep, r);
		sep = ", ";
		i = j + 1;
	}
	if (unranked)
		fprintf(out, "; %zu without a rank", unranked);
	/* the hosts, each once */
	sep = "; hosts ";
	for (size_t i = 0; i < n; i++) {
		const char *h = an_merge_part(o->merge, i)->host;
		size_t k = 0;
		while (k < i && strcmp(an_merge_part(o->merge, k)->host, h) != 0)
			k++;
		if (k < i || !h[0])
			continue;
		fprintf(out, "%s%s", sep, h);
		sep = ", ";
	}
	fprintf(out, "\n");
}
