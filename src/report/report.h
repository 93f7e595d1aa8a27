/* SPDX-License-Identifier: MIT */
/* Rendering an analysis result as text, CSV or JSON, grouped one of several
 * ways. Writes to the caller's FILE; returns 0 or a negative errno. */
#ifndef MP_REPORT_H
#define MP_REPORT_H

#include <stdio.h>

#include "analysis/an_bins.h"
#include "analysis/an_merge.h"
#include "analysis/an_pattern.h"
#include "analysis/analysis.h"

enum rp_by {
	RP_BY_OBJECT,
	RP_BY_SITE,
	RP_BY_KIND,
	RP_BY_THREAD,
	RP_BY_FUNCTION,
	RP_BY_PAGE, /* first touch of each page: record --source faults only */
	RP_BY_RANK, /* one row per data file of a merge (rank), or the one file */
	RP_BY_PROCESS, /* one row per process (the pid of each file) */
	RP_BY_LINE, /* one row per source line of the accessing code */
};
enum rp_format { RP_TEXT, RP_CSV, RP_JSON };

/* The modelled machine as the findings weigh against it (rp_advice.c): the
 * model's machine in the report's terms, filled by the caller (the CLI,
 * which has the model's description). */
struct rp_machine {
	unsigned line; /* cache line bytes */
	uint64_t l1d_size; /* bytes */
	unsigned l1d_ways;
	uint64_t llc_size; /* bytes */
	/* entries the TLBs hold for 4 KiB and 2 MiB pages: the larger of the
	 * first-level array for that size and the STLB when it holds it */
	uint64_t tlb_4k, tlb_2m;
};

/* A page-walk finding's what-if (rp_opts.check_pages): the objects whose
 * label contains `what`, in pages of 1 << shift bytes. */
struct rp_walk_check {
	char what[256];
	unsigned shift;
};

struct rp_opts {
	enum rp_by by;
	enum rp_format format;
	size_t limit; /* rows shown in text (0: all); CSV and JSON show all */
	const char *data_path;
	const char *roi;
	/* object view: access pattern per an_result.classes entry, or NULL */
	const struct an_pattern *patterns;
	unsigned width; /* text: fit rows to this many columns (a terminal's), 0: no limit */
	/* model: the machine (the findings' cache and TLB sizes) and the model
	 * options as given, option and value in turn (the what-if commands
	 * they suggest repeat them), or NULL */
	const struct rp_machine *machine;
	const char *const *model_args;
	size_t nmodel_args;
	int color; /* text: ANSI colours (a terminal that wants them) */
	/* Checks the page-walk findings before they are shown: for each i
	 * below n, the model run again with the objects whose label contains
	 * checks[i].what in pages of 1 << checks[i].shift bytes; 0 and each
	 * run's page walks in walks[i], or -errno. NULL: findings are shown
	 * unchecked. */
	int (*check_pages)(void *arg, size_t n, const struct rp_walk_check *checks, uint64_t *walks);
	void *check_arg;
	/* the result is this merge's (several data files: an_merge.h): the
	 * object view adds each row's spread over the files, and the rank
	 * view lists them; NULL for one file */
	const struct an_merge *merge;
};

/* Renders r. -EINVAL for --by page on a recording without page faults. */
int rp_render(FILE *out, const struct an_result *r, const struct rp_opts *o);

/* The TLB view of a modelled result: walk concentration over pages, per
 * object, hottest pages (text), or one row per page (CSV). */
int rp_render_tlb(FILE *out, const struct an_result *r, const struct rp_opts *o);

/* `memprism annotate` (report_annotate.c): the source of the lines that
 * made the accesses, each with its counts and its object. */
struct rp_annotate_opts {
	const char *data_path;
	const char *const *what; /* functions or source files to show; none: every file */
	size_t nwhat;
	const char *const *source_dirs; /* where to look for sources that moved */
	size_t nsource_dirs;
	unsigned context; /* lines shown around each line with accesses */
	double threshold; /* percent of all accesses a line needs to be shown */
};
int rp_render_annotate(FILE *out, const struct an_result *r, const struct rp_annotate_opts *a);

/* The what-if view: per object, page walks, DRAM requests and modelled
 * cycles under configuration a and b (both modelled results of one trace);
 * what_a/what_b describe the configurations. Text or CSV. */
int rp_render_compare(FILE *out, const struct an_result *a, const struct an_result *b, const struct rp_opts *o,
		      const char *what_a, const char *what_b);
/* `memprism diff` (report_diff.c): per object, a's figures (before) and
 * b's (after) and the change, rows matched by label, then by their site's
 * function and file (a moved line keeps its row), sorted by the size of
 * the change; new and vanished rows too. what_a/what_b name the sides.
 * Text, CSV or JSON (docs/report-formats.md). 0 or -ENOMEM. */
int rp_render_diff(FILE *out, const struct an_result *a, const struct an_result *b, const struct rp_opts *o,
		   const char *what_a, const char *what_b);
/* The visual report: one self-contained HTML page (docs/report-formats.md).
 * bins (may be NULL) hold the time x address grids; o->patterns the access
 * patterns. Returns 0, -ENOMEM or -EIO. */
int rp_render_html(FILE *out, const struct an_result *r, const struct rp_opts *o, const struct an_bins *bins);

/* The NUMA view (`memprism numa`, report_numa.c) of a result analysed with
 * a topology (r->numa): one table in CSV, the summary and a table (or the
 * default set: matrix, threads, objects, findings) in text. -EINVAL when
 * r->numa is NULL. */
enum rp_numa_table {
	RP_NUMA_OBJECTS, /* text: matrix, threads, objects and findings */
	RP_NUMA_SITES,
	RP_NUMA_THREADS,
	RP_NUMA_MATRIX,
	RP_NUMA_TIMELINE,
	RP_NUMA_FINDINGS,
	RP_NUMA_RANKS, /* a row per data file of a merge (the one file without) */
	RP_NUMA_PROCESSES, /* a row per process of each file */
};
int rp_render_numa(FILE *out, const struct an_result *r, const struct rp_opts *o, enum rp_numa_table t);
/* report_numa_ranks.c: the rank (procs 0) or process (1) table of the NUMA
 * view, in text or CSV; o->merge the merge (NULL: one file). */
int rp_render_numa_procs(FILE *out, const struct an_result *r, const struct rp_opts *o, int procs);
/* The same rows as a JSON member (,"ranks":[...]), nothing without a merge. */
int rp_numa_ranks_json(FILE *out, const struct an_result *r, const struct rp_opts *o);

/* rp_pools.c: 1 if row c looks like a block the program carves into
 * objects of its own (a pool, arena, slab, free list); the note that says
 * so and how to annotate it, into buf. */
int rp_pool_like(const struct an_result *r, const struct an_class *c);
void rp_pool_note(char *buf, size_t cap, const struct an_result *r, const struct an_class *c);

struct an_numa_finding;
/* A finding's evidence and fix as sentences, into the caller's buffers. */
void rp_numa_finding_text(const struct an_result *r, const struct an_numa_finding *f, char *ev, size_t evcap,
			  char *fix, size_t fixcap);

#endif
