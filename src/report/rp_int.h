/* SPDX-License-Identifier: MIT */
/* Internal to src/report: formatting helpers (rp_util.c) and the views of
 * the sampled sources (rp_faults.c). */
#ifndef MP_RP_INT_H
#define MP_RP_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/report.h"

/* 1234567 -> "1,234,567" into buf. */
const char *rp_grouped(char *buf, size_t cap, uint64_t v);
/* bytes -> "1.5 MiB" into buf. */
const char *rp_human(char *buf, size_t cap, uint64_t b);
void rp_csv_str(FILE *out, const char *s);
void rp_json_str(FILE *out, const char *s);
/* A merged file's state in words ("ok", "not read: ...", "damaged: ..."),
 * into buf; returns buf (report_ranks.c). */
struct an_merge_part;
const char *rp_part_status(char *buf, size_t cap, const struct an_merge_part *p);
/* The processes res->procs[first, first + n) as rows, one per pid (exec
 * replaces the program, not the process: its images' figures are the
 * pid's threads'): each row's pid, and its programs in turn ("a -> b"),
 * label, in chain when allocated (freed by rp_pid_rows_free). Returns
 * the rows written into out (room for n) (report_ranks.c). */
struct rp_pid_row {
	uint32_t pid;
	const char *label;
	char *chain;
};
size_t rp_pid_rows(const struct an_result *res, size_t first, size_t n, struct rp_pid_row *out);
void rp_pid_rows_free(struct rp_pid_row *rows, size_t n);
/* A rank's or process's row begins: "rank" (null when none), "host",
 * "pid", then what names it under key ("file", "exe"), and "status"; the
 * caller goes on from there. */
void rp_json_rank_head(FILE *out, int rank, const char *host, unsigned pid, const char *key, const char *label,
		       const char *status);

/* Latency quantile q (0..1) from the log2 histogram: the upper bound of the
 * bucket it falls in (cycles), 0 without latencies. */
uint64_t rp_latency_quantile(const struct an_mem *m, double q);
/* The latency distribution in a line: each bucket holding >= 1% of the
 * latencies as "lo-hi:share%", e.g. "4-7:62% 128-255:37%" (multi-modal costs
 * show as several peaks, which a mean hides). */
const char *rp_latency_text(char *buf, size_t cap, const struct an_mem *m);
/* The distributions of the first `limit` rows (0: all) after a table. */
struct rp_lat_row {
	const char *label;
	const struct an_mem *mem;
};
void rp_latency_section(FILE *out, const struct rp_lat_row *rows, size_t n, size_t limit, const char *what);

/* What to change (rp_advice.c): findings of a modelled result's object
 * view, each an object, the cost it accounts for, the evidence and the
 * change, as sentences. */
enum rp_advice_kind { RP_ADV_WALKS, RP_ADV_PASSES, RP_ADV_LINE_USE, RP_ADV_STORE_FILLS, RP_ADV_SET_CONFLICTS };
#define RP_ADVICE_MAX 8
struct rp_advice {
	enum rp_advice_kind kind;
	const struct an_class *cls;
	double share; /* of all page walks (RP_ADV_WALKS), L1 misses (RP_ADV_SET_CONFLICTS) or DRAM reads */
	/* walks per line reference, DRAM reads per line, the share of the
	 * bytes fetched used, the share of DRAM reads that are store fills, or
	 * L1 fills per line */
	double value;
	char evidence[512], fix[1536]; /* (fix: with a what-if command of up to 1 KiB) */
	/* page walks, with o->check_pages: 1 the what-if confirms the change
	 * (at least half the object's walks gone from the total), -1 it does
	 * not (the finding is not advised), 0 unchecked; all walks without
	 * and with the change */
	int verdict;
	unsigned shift; /* page walks: the change's page size, 1 << shift bytes */
	uint64_t walks_a, walks_b;
	char checked[160]; /* the what-if's figures, in words */
};
/* "page-walks", "dram-passes", "line-use", "store-fills", "set-conflicts". */
const char *rp_advice_name(enum rp_advice_kind k);
#define RP_ADVICE_ALL                                                                                                  \
	((1u << RP_ADV_WALKS) | (1u << RP_ADV_PASSES) | (1u << RP_ADV_LINE_USE) | (1u << RP_ADV_STORE_FILLS) |         \
	 (1u << RP_ADV_SET_CONFLICTS))
/* Up to cap findings of the kinds in mask (bit 1 << kind) into out, the
 * largest share first; 0 for a result that is not modelled. o->patterns
 * and o->machine sharpen them. */
size_t rp_advice_find(const struct an_result *r, const struct rp_opts *o, unsigned kinds, struct rp_advice *out,
		      size_t cap);
/* The text section ("what to change"), and the JSON member ("findings"),
 * its strings written by str (rp_json_str; the HTML page's own, safe
 * inside <script>). */
void rp_advice_text(FILE *out, const struct an_result *r, const struct rp_opts *o, unsigned kinds);
/* The header's "unseen:" lines (report.c): what the inst source cannot
 * see, and how much of the program's CPU time it took; none when all of it
 * was seen. */
void rp_unseen_text(FILE *out, const struct an_result *res, size_t width);
void rp_advice_json(FILE *out, const struct an_result *r, const struct rp_opts *o,
		    void (*str)(FILE *out, const char *s));

/* Views of a `record --source faults` result (every --by, --by page too). */
int rp_render_faults(FILE *out, const struct an_result *res, const struct rp_opts *o);
/* Views of a `record --source pmu` result (measured level shares); text and
 * CSV (JSON: the text is rendered). -EINVAL for --by page. */
int rp_render_pmu(FILE *out, const struct an_result *res, const struct rp_opts *o);

/* --by rank and --by process (report_ranks.c): one row per data file of
 * o->merge (or the one file), one per process of each. */
int rp_render_procs(FILE *out, const struct an_result *res, const struct rp_opts *o);
/* A merge's spread of the object view's rows (report_ranks.c): the CSV
 * columns' names, a row's columns, its JSON member, and the text section
 * after the table (rows' classes in the order shown, up to limit). */
void rp_spread_csv_header(FILE *out, const struct rp_opts *o);
void rp_spread_csv(FILE *out, const struct an_result *res, const struct rp_opts *o, const struct an_class *c);
void rp_spread_json(FILE *out, const struct an_result *res, const struct rp_opts *o, const struct an_class *c);
void rp_spread_text(FILE *out, const struct an_result *res, const struct rp_opts *o,
		    const struct an_class *const *cls, size_t n);
/* The merge's files in the text header: "files:     4 (4 read); ranks
 * 0-3; hosts a, b" (nothing without a merge). */
void rp_parts_text(FILE *out, const struct rp_opts *o);
/* The merge's files as a JSON member ("files":[...]), nothing without one. */
void rp_parts_json(FILE *out, const struct rp_opts *o);

#endif
