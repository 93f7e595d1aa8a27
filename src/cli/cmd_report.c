// SPDX-License-Identifier: MIT
/* `memprism report [OPTIONS] [FILE]` */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_merge.h"
#include "analysis/an_pattern.h"
#include "analysis/analysis.h"
#include "analysis/an_numa.h"
#include "cli/cli.h"
#include "common/mp_error.h"
#include "report/report.h"

enum { K_HTML = CLI_K_CMD, K_NUMA };

static int run(int argc, char **argv);

static const struct cli_opt opts[] = {
	CLI_OPT("by", 'b', "VIEW",
	  "object (default), site, kind, thread, function, line\n"
	  "(the source line of the code that made the accesses),\n"
	  "or page (who first touched each page; --source faults);\n"
	  "rank (a row per data file: rank, host, status) or\n"
	  "process (a row per process of each file); the plural\n"
	  "is the same view (sites)"),
	CLI_OPT("roi", 'r', "NAME",
	  "count only accesses made while region NAME was open\n"
	  "(mp_region_begin/end in <memprism.h>)"),
	CLI_OPT("format", 'f', "FORMAT", "text (default), csv or json"),
	CLI_OPT("limit", 'n', "N", "rows shown in text (default 30, 0 for all)"),
	CLI_OPT("html", K_HTML, "FILE",
	  "write the visual report to FILE (- for standard\n"
	  "output): one self-contained page (summary, sortable\n"
	  "objects, time x address plots, access patterns; memory\n"
	  "levels and page walks with --model); opens offline in\n"
	  "any browser"),
	CLI_OPT("alloc-wrapper", 'w', "FN",
	  "treat function FN as an allocation wrapper: the site\n"
	  "is its caller (repeatable)"),
	CLI_OPT("not-wrapper", CLI_K_NOT_WRAPPER, "FN",
	  "never treat function FN as an allocation wrapper: its\n"
	  "allocations are sited in it (repeatable)"),
	CLI_OPT("no-wrapper-heuristic", CLI_K_NO_WRAPPER_HEURISTIC, NULL,
	  "don't judge which functions are wrappers (by default:\n"
	  "one that allocates from one line and hands what it\n"
	  "allocates to its caller; docs/attribution.md)"),
	CLI_OPT("context", CLI_K_CONTEXT, "N",
	  "N callers after each heap and mmap site, a row per\n"
	  "calling context (\"f (a.c:3) <- g (a.c:9)\"); 0: none;\n"
	  "default: one, where a site's blocks come from several\n"
	  "callers (a generic constructor's)"),
	CLI_OPT("lib-sites", CLI_K_LIB_SITES, NULL,
	  "a frame in an installed library (/usr/lib, ...) can\n"
	  "be a site (default: the program's call into it)"),
	CLI_OPT("numa", K_NUMA, "NODESxCPUS",
	  "place threads and pages on a simulated NUMA machine\n"
	  "(e.g. 4x8): with --model, fills from another node's\n"
	  "memory are remote DRAM (`memprism numa` for the rest)"),
	CLI_TABLE(cli_opts_merge),
	CLI_TABLE(cli_opts_quiet_help),
	CLI_TEXT("On a terminal the text view fits its width and shows progress while it reads\n"
		 "(and the time left)."),
	CLI_TABLE(cli_opts_model),
	CLI_TABLE(cli_opts_sampling),
	CLI_END,
};

#define REPORT_VIEWS                                                                                                   \
	(1u << CLI_VIEW_OBJECT | 1u << CLI_VIEW_SITE | 1u << CLI_VIEW_KIND | 1u << CLI_VIEW_THREAD |                   \
	 1u << CLI_VIEW_FUNCTION | 1u << CLI_VIEW_PAGE | 1u << CLI_VIEW_RANK | 1u << CLI_VIEW_PROCESS |               \
	 1u << CLI_VIEW_LINE)

const struct cli_cmd cli_cmd_report = {
	.name = "report",
	.run = run,
	.summary = "show accesses per object, site, kind, thread or function",
	.usage = "[OPTIONS] [FILE|DIR...]",
	.about = "Attributes every recorded access to the object it touched at that moment\n"
		 "and shows loads, stores, bytes and share per row, most accessed first.\n"
		 "FILE defaults to memprism.data. Several files, or a directory of them (an\n"
		 "MPI job's ranks), make one report: each file is read in turn and its rows\n"
		 "are merged by what their objects are (allocation site, module and symbol,\n"
		 "kind), never by address; each row then shows how its accesses spread over\n"
		 "the files (min, median, max and the rank with the most). A file that cannot\n"
		 "be read, or a rank of the job without a file, is named and left out\n"
		 "(docs/mpi.md). --html of several files has no time x address plots.\n",
	.opts = opts,
	.views = REPORT_VIEWS,
	.formats = 1u << CLI_FMT_TEXT | 1u << CLI_FMT_CSV | 1u << CLI_FMT_JSON,
	.examples = (const struct cli_example[]){
		{ "memprism report",
		  "accesses per object of memprism.data, most accessed first" },
		{ "memprism report --by site",
		  "allocation sites only: one row per call site, over all its blocks" },
		{ "memprism report --roi kernel",
		  "only what happened inside memprism_region_begin/end(\"kernel\")" },
		{ "memprism report --model host",
		  "and what this machine's caches and TLBs would do with the accesses" },
		{ "memprism report --model nehalem-e5504 --pages 'app.c:88=2M'",
		  "another machine, the object of app.c:88 in 2 MiB pages" },
		{ "memprism report --format csv > objects.csv",
		  "every row for a script (docs/report-formats.md)" },
		{ "memprism report --html report.html",
		  "the visual report: one page that opens offline" },
		{ 0 },
	},
	.man = (const struct cli_man_section[]){
		{ "COLUMNS",
		  "The text view's columns (--format csv and json name theirs in docs/report-formats.md):\n"
		  "  accesses    loads + stores; a libc memcpy/memset/... call counts as one access\n"
		  "              of its length\n"
		  "  share       the row's fraction of all counted accesses\n"
		  "  loads, stores  the accesses by direction\n"
		  "  bytes       bytes moved by the accesses\n"
		  "  size        bytes allocated over all the row's instances\n"
		  "  instances   allocations (threads, for thread-local variables)\n"
		  "  threads     the threads that accessed it (their tids)\n"
		  "  kind        heap, static, tls, stack, mmap, file, section, named, group,\n"
		  "              mapping or unknown\n"
		  "  pattern     how its threads walk it (object view): forward +64, backward -64,\n"
		  "              strided +4096, random, mixed, same, few\n"
		  "  object      the row: a heap row is its allocation site (heap FUNCTION\n"
		  "              (FILE:LINE)), found by skipping allocation wrappers and installed\n"
		  "              libraries; a static variable, stack, mapping or file by its name\n"
		  "\n"
		  "With --model every figure is modelled (the header says so) and the columns are:\n"
		  "  DRAM reads, DRAM writes  memory requests: line fills, and writebacks charged\n"
		  "              to the object, thread and function whose store dirtied the line\n"
		  "  mem%        the row's share of all DRAM requests\n"
		  "  L1%, L2%, L3%, DRAM%  the share of the row's cache-line references each level\n"
		  "              served\n"
		  "  page walks  walks of the modelled page walker (STLB misses)\n"
		  "  walk%       the row's share of all page walks\n"
		  "  cyc/ref     modelled cycles per cache-line reference\n"
		  "A latency distribution per row and what to change (with the evidence) follow the table.\n"
		  "\n"
		  "With `memprism record --sample-bursts` every count is an estimate: each thread's\n"
		  "recorded counts scaled by its (recorded + skipped) / recorded, and the report says so.\n" },
		{ "EXIT STATUS",
		  "0 when the report was written; 1 when the data file cannot be read, or its chunks are not a\n"
		  "recording's; 2 for wrong options. A damaged or truncated file is reported as far as it\n"
		  "can be read, with a warning.\n" },
		{ 0 },
	},
	.see_also = "memprism-record(1), memprism-tlb(1), memprism-numa(1), memprism-whatif(1), memprism-export(1)",
};

static const enum rp_by by_view[] = {
	[CLI_VIEW_OBJECT] = RP_BY_OBJECT, [CLI_VIEW_SITE] = RP_BY_SITE,		[CLI_VIEW_KIND] = RP_BY_KIND,
	[CLI_VIEW_THREAD] = RP_BY_THREAD, [CLI_VIEW_FUNCTION] = RP_BY_FUNCTION, [CLI_VIEW_PAGE] = RP_BY_PAGE,
	[CLI_VIEW_RANK] = RP_BY_RANK,	  [CLI_VIEW_PROCESS] = RP_BY_PROCESS,	[CLI_VIEW_LINE] = RP_BY_LINE,
};
/* Several data files: merged (cli_merge.c), one at a time. html: the
 * visual report of the merge (its tables: no time x address plots, which
 * place accesses against one process's addresses and time). */
static int run_merged(int argc, char **argv, int optind, int force, const char *html, struct an_opts *ao,
		      struct rp_opts *ro)
{
	struct an_merge *m;
	if (html)
		ao->page_rows = 1; /* (the TLB section's pages) */
	int status = cli_merge_run(argc, argv, optind, force, ao, &m);
	if (status)
		return status;
	const struct an_result *res = an_merge_result(m);
	if (ro->by == RP_BY_PAGE && strcmp(res->source, "faults") != 0) {
		cli_error("--by page needs recordings made with `memprism record --source faults`");
		an_merge_free(m);
		return 2;
	}
	char what[64];
	snprintf(what, sizeof(what), "%zu data files", an_merge_nparts(m));
	ro->data_path = what;
	ro->merge = m;
	ro->width = cli_term_width();
	ro->color = cli_use_color();
	int damage = res->damaged & AN_DAMAGE_UNTRUSTED ? 1 : 0;
	if (html) {
		int err = cli_write_html(html, res, ro, NULL);
		an_merge_free(m);
		return err ? 1 : damage;
	}
	int err = rp_render(stdout, res, ro);
	an_merge_free(m);
	if (err) {
		cli_error("cannot render the report: %s", mp_strerror(err));
		return 1;
	}
	return cli_finish_stdout() | damage;
}

/* One data file: analysed, with its notes, and rendered (html: the visual
 * report instead); named: the file was given, not the default. */
static int run_one(struct an_opts *ao, struct rp_opts *ro, const char *html, struct cli_model *model, int named)
{
	static struct cli_check check; /* each page-walk finding's what-if, run before it is shown */
	if (model->have) { /* (one file: a merge has no one trace to replay) */
		check = (struct cli_check){ .path = ro->data_path, .ao = *ao, .model = model };
		ro->check_pages = cli_check_pages;
		ro->check_arg = &check;
		/* (CSV shows no findings to check) */
		ao->log_translations = ro->format != RP_CSV;
	}
	if (html)
		return cli_report_html(html, ao, ro);
	/* the object view shows how each object is walked (an_pattern.h) */
	struct an_patterns *pats = NULL;
	if (ro->by == RP_BY_OBJECT) {
		pats = an_patterns_new();
		if (!pats) {
			cli_error("out of memory");
			return 1;
		}
		ao->patterns = pats;
	}
	struct an_result *res = NULL;
	struct an_pattern *patv = NULL;
	ao->progress = cli_progress;
	ao->progress_arg = "reading the trace";
	ao->jobs = cli_jobs();
	ro->width = cli_term_width();
	ro->color = cli_use_color();
	int err = an_run(ro->data_path, ao, &res);
	cli_progress_end();
	check.res = res;
	if (!err && pats && !(err = an_patterns_error(pats)))
		err = an_patterns_by_class(pats, res, &patv);
	an_patterns_free(pats);
	ro->patterns = patv;
	if (err) {
		an_result_free(res);
		cli_data_error(err, ro->data_path, named, "memprism record -- PROGRAM");
		return 1;
	}
	cli_model_note(model);
	int instrumented = 0;
	for (size_t i = 0; i < res->nprocs; i++)
		instrumented += res->procs[i].instrumented;
	int sampled = strcmp(res->source, "faults") == 0 || strcmp(res->source, "pmu") == 0;
	if (ro->by == RP_BY_PAGE && strcmp(res->source, "faults") != 0) {
		cli_error("--by page needs a recording made with `memprism record --source faults`");
		an_result_free(res);
		return 2;
	}
	if (!instrumented && res->nprocs && !sampled)
		cli_note("note: the recorded program was not built with `memprism cc`: allocations were "
			  "recorded, accesses were not. Rebuild with `memprism cc` to see accesses per object.");
	for (size_t i = 0; i < res->nclasses; i++)
		if (rp_pool_like(res, &res->classes[i])) {
			char note[1024];
			rp_pool_note(note, sizeof(note), res, &res->classes[i]);
			cli_note("note: %s", note);
		}
	/* (text and JSON show the warnings; CSV has no room for them) */
	int damage = cli_damage(res, ro->data_path, ro->format != RP_CSV);
	err = rp_render(stdout, res, ro);
	an_result_free(res);
	free(patv);
	if (err) {
		cli_error("cannot render the report: %s", mp_strerror(err));
		return 1;
	}
	return cli_finish_stdout() | damage;
}

static int run(int argc, char **argv)
{
	static struct cli_model model; /* large: not on the stack */
	memset(&model, 0, sizeof(model));
	struct rp_machine rpm;
	struct rp_opts ro = { .by = RP_BY_OBJECT, .format = RP_TEXT, .limit = 30 };
	struct an_opts ao = { 0 };
	struct cli_group g = { .cmd = &cli_cmd_report, .ro = &ro, .model = &model };
	const char *html = NULL;
	static struct mp_topo topo; /* simulated: owns no memory */
	static struct an_numa_opts numa;
	char terr[256];
	struct cli_parse p;
	int c;
	cli_parse_init(&p, &cli_cmd_report, argc, argv);
	while ((c = cli_parse_next(&p)) != -1) {
		switch (c) {
		case CLI_EXIT:
			return p.status;
		case 'b': {
			enum cli_view v;
			if (cli_parse_by("report", optarg, cli_cmd_report.views, &v))
				return 2;
			ro.by = by_view[v];
			break;
		}
		case K_NUMA:
			if (mp_topo_sim(optarg, &topo, terr, sizeof(terr))) {
				cli_error("%s", terr);
				return 2;
			}
			numa = (struct an_numa_opts){ .topo = &topo };
			ao.numa = &numa;
			break;
		case K_HTML:
			html = optarg;
			break;
		default:
			if (cli_group_option(&g, c, optarg))
				return 2;
		}
	}
	/* (the rank and process views read the files' headers: a merge of one) */
	int merged = cli_merge_wanted(argc, argv, optind) || ro.by == RP_BY_RANK || ro.by == RP_BY_PROCESS;
	if (!merged && cli_data_path(argc, argv, optind, &ro.data_path))
		return 2;
	ao.roi = ro.roi;
	cli_sites_apply(&g.sites, &ao);
	if (cli_model_apply(&model, &ao, 0))
		return 2;
	ro.machine = cli_rp_machine(ao.machine, &rpm);
	ro.model_args = model.args;
	ro.nmodel_args = model.nargs;
	if (merged && html && (ro.by == RP_BY_RANK || ro.by == RP_BY_PROCESS)) {
		cli_error("--html has no --by rank or process (those views are text, CSV and JSON)");
		return 2;
	}
	if (merged)
		return run_merged(argc, argv, optind, g.force, html, &ao, &ro);
	return run_one(&ao, &ro, html, &model, optind < argc);
}
