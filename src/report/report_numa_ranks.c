// SPDX-License-Identifier: MIT
/*
 * The NUMA view of many processes (`memprism numa --by rank|process` over
 * several data files): a row per data file (rank) or per process of each,
 * with its placed accesses, the remote ones and their share, each process
 * having been placed on a machine of its own. With one file, the one row.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_numa.h"
#include "common/mp_error.h"
#include "report/report.h"
#include "report/rp_int.h"

struct nrow {
	int rank;
	const char *host, *label;
	char status[160];
	uint32_t pid;
	uint64_t accesses, remote, pages, threads;
	int placed;
};

/* The rows, in the result's order (a merge appends each file's processes
 * and threads in turn). */
static struct nrow *build(const struct an_result *res, const struct rp_opts *o, int procs, size_t *n,
			  struct rp_pid_row **pidsp)
{
	const struct an_numa_result *nu = res->numa;
	size_t nparts = o->merge ? an_merge_nparts(o->merge) : 1;
	struct nrow *rows = calloc((procs ? res->nprocs : 0) + nparts + 1, sizeof(*rows));
	/* (the process rows' labels: a pid's programs, rp_pid_rows) */
	struct rp_pid_row *pids = procs ? calloc(res->nprocs + 1, sizeof(*pids)) : NULL;
	if (!rows || (procs && !pids)) {
		free(rows);
		free(pids);
		return NULL;
	}
	*pidsp = pids;
	*n = 0;
	size_t proc = 0, thread = 0;
	for (size_t i = 0; i < nparts; i++) {
		const struct an_merge_part *p = o->merge ? an_merge_part(o->merge, i) : NULL;
		/* (a file alone: its part made here; the rows outlive it, so none
		 * points into it: host "", path the caller's) */
		struct an_merge_part one = { .rank = -1,
					     .path = (char *)(o->data_path ? o->data_path : "memprism.data") };
		if (!p) {
			p = &one;
			one.numa_placed = 1;
			one.numa_accesses = nu->accesses;
			one.numa_remote = nu->remote;
			one.numa_pages = nu->pages;
			one.nprocs = res->nprocs;
			one.nthreads = res->nthreads;
			one.pid = res->nprocs ? res->procs[0].pid : 0;
		}
		if (!procs) {
			struct nrow *r = &rows[(*n)++];
			*r = (struct nrow){ .rank = p->rank,
					    .host = p == &one ? "" : p->host,
					    .label = p->path,
					    .pid = p->pid,
					    .accesses = p->numa_accesses,
					    .remote = p->numa_remote,
					    .pages = p->numa_pages,
					    .threads = p->nthreads,
					    .placed = p->numa_placed };
			rp_part_status(r->status, sizeof(r->status), p);
			continue;
		}
		if (p->err)
			continue;
		const size_t m = rp_pid_rows(res, proc, p->nprocs, pids + proc);
		for (size_t k = proc; k < proc + m; k++) {
			struct nrow *r = &rows[(*n)++];
			*r = (struct nrow){ .rank = p->rank,
					    .host = p == &one ? "" : p->host,
					    .label = pids[k].label,
					    .pid = pids[k].pid,
					    .placed = p->numa_placed };
			rp_part_status(r->status, sizeof(r->status), p);
			for (size_t t = thread; t < thread + p->nthreads && t < res->nthreads && t < nu->nthreads;
			     t++) {
				if (res->threads[t].pid != r->pid)
					continue;
				r->accesses += nu->threads[t].accesses;
				r->remote += nu->threads[t].remote;
				r->threads++;
			}
		}
		proc += p->nprocs;
		thread += p->nthreads;
	}
	return rows;
}

static double share(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0.0;
}

int rp_render_numa_procs(FILE *out, const struct an_result *res, const struct rp_opts *o, int procs)
{
	if (!res->numa)
		return -EINVAL;
	size_t n = 0;
	struct rp_pid_row *pids = NULL;
	struct nrow *rows = build(res, o, procs, &n, &pids);
	if (!rows)
		return -ENOMEM;
	const char *origin = res->numa->measured ? "measured" : "modelled";
	char a[32], b[32], c[32];
	if (o->format == RP_CSV) {
		fprintf(out, "rank,host,pid,%s,accesses,remote,remote_share,%sthreads,origin\n",
			procs ? "exe" : "file,status", procs ? "" : "pages,");
		for (size_t i = 0; i < n; i++) {
			const struct nrow *r = &rows[i];
			if (r->rank >= 0)
				fprintf(out, "%d", r->rank);
			fputc(',', out);
			rp_csv_str(out, r->host);
			fprintf(out, ",%u,", r->pid);
			rp_csv_str(out, r->label);
			if (!procs) {
				fputc(',', out);
				rp_csv_str(out, r->status);
			}
			fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%.4f,", r->accesses, r->remote,
				share(r->remote, r->accesses));
			if (!procs)
				fprintf(out, "%" PRIu64 ",", r->pages);
			fprintf(out, "%" PRIu64 ",%s\n", r->threads, origin);
		}
	} else {
		fprintf(out, "\nby %s: each placed on a machine of its own (%s), remote accesses [%s]\n",
			procs ? "process" : "rank", res->numa->topo.spec, origin);
		fprintf(out, "%6s %-16s %8s %14s %14s %7s %10s %7s  %s\n", "rank", "host", "pid", "accesses", "remote",
			"remote", procs ? "" : "pages", "threads", procs ? "program" : "file (status)");
		for (size_t i = 0; i < n; i++) {
			const struct nrow *r = &rows[i];
			char rk[16];
			snprintf(rk, sizeof(rk), r->rank >= 0 ? "%d" : "-", r->rank);
			fprintf(out, "%6s %-16s %8u %14s %14s %6.1f%% %10s %7" PRIu64, rk,
				r->host && r->host[0] ? r->host : "-", r->pid, rp_grouped(a, sizeof(a), r->accesses),
				rp_grouped(b, sizeof(b), r->remote), 100.0 * share(r->remote, r->accesses),
				procs ? "" : rp_grouped(c, sizeof(c), r->pages), r->threads);
			if (procs)
				fprintf(out, "  %s\n", r->label ? r->label : "?");
			else
				fprintf(out, "  %s (%s)\n", r->label ? r->label : "?", r->status);
		}
	}
	free(rows);
	rp_pid_rows_free(pids, pids ? res->nprocs + 1 : 0);
	return 0;
}

int rp_numa_ranks_json(FILE *out, const struct an_result *res, const struct rp_opts *o)
{
	if (!o->merge)
		return 0;
	size_t n = 0;
	struct rp_pid_row *pids = NULL;
	struct nrow *rows = build(res, o, 0, &n, &pids);
	if (!rows)
		return -ENOMEM;
	fprintf(out, ",\n\"ranks\":[");
	for (size_t i = 0; i < n; i++) {
		const struct nrow *r = &rows[i];
		fprintf(out, "%s\n", i ? "," : "");
		rp_json_rank_head(out, r->rank, r->host, r->pid, "file", r->label, r->status);
		fprintf(out,
			",\"placed\":%s,\"accesses\":%" PRIu64 ",\"remote\":%" PRIu64
			",\"remote_share\":%.4f,\"pages\":%" PRIu64 ",\"threads\":%" PRIu64 "}",
			r->placed ? "true" : "false", r->accesses, r->remote, share(r->remote, r->accesses), r->pages,
			r->threads);
	}
	fprintf(out, "]");
	free(rows);
	return 0;
}
