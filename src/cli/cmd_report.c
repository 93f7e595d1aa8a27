// SPDX-License-Identifier: MIT
/* `memprism report [OPTIONS] [FILE]` */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_pattern.h"
#include "analysis/analysis.h"
#include "analysis/an_numa.h"
#include "cli/cli.h"
#include "common/mp_error.h"
#include "report/report.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: memprism report [OPTIONS] [FILE]\n\n"
		"Attributes every recorded access to the object it touched at that moment\n"
		"and shows loads, stores, bytes and share per row, most accessed first.\n"
		"FILE defaults to memprism.data.\n\n"
		"options:\n"
		"  -b, --by VIEW            object (default), site, kind, thread, function, or page\n"
		"                           (page: who first touched each page; --source faults)\n"
		"  -r, --roi NAME           count only accesses made while region NAME was open\n"
		"                           (mp_region_begin/end in <memprism.h>)\n"
		"  -f, --format FORMAT      text (default), csv or json\n"
		"  -n, --limit N            rows shown in text (default 30, 0 for all)\n"
		"      --html FILE          write the visual report to FILE: one self-contained\n"
		"                           page (summary, sortable objects, time x address plots,\n"
		"                           access patterns; memory levels and page walks with\n"
		"                           --model); opens offline in any browser\n"
		"  -w, --alloc-wrapper FN   treat function FN as an allocation wrapper: the site\n"
		"                           is its caller (repeatable)\n"
		"      --not-wrapper FN     never treat function FN as an allocation wrapper: its\n"
		"                           allocations are sited in it (repeatable)\n"
		"      --no-wrapper-heuristic\n"
		"                           don't judge which functions are wrappers (by default:\n"
		"                           one that allocates from one line and hands what it\n"
		"                           allocates to its caller; docs/attribution.md)\n"
		"      --lib-sites          a frame in an installed library (/usr/lib, ...) can\n"
		"                           be a site (default: the program's call into it)\n"
		"      --numa NODESxCPUS    place threads and pages on a simulated NUMA machine\n"
		"                           (e.g. 4x8): with --model, fills from another node's\n"
		"                           memory are remote DRAM (`memprism numa` for the rest)\n"
		"  -q, --quiet              no notes and no progress on stderr (errors still)\n"
		"  -h, --help               this help\n"
		"On a terminal the text view fits its width and shows progress while it reads\n"
		"(and the time left).\n");
	cli_model_help(out, 1);
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "by", required_argument, NULL, 'b' },
		{ "roi", required_argument, NULL, 'r' },
		{ "format", required_argument, NULL, 'f' },
		{ "limit", required_argument, NULL, 'n' },
		{ "alloc-wrapper", required_argument, NULL, 'w' },
		{ "not-wrapper", required_argument, NULL, 'W' },
		{ "no-wrapper-heuristic", no_argument, NULL, 'H' },
		{ "lib-sites", no_argument, NULL, 'L' },
		{ "html", required_argument, NULL, 'T' },
		{ "numa", required_argument, NULL, 'U' },
		{ "help", no_argument, NULL, 'h' },
		CLI_MODEL_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	static struct cli_model model; /* large: not on the stack */
	memset(&model, 0, sizeof(model));
	struct rp_opts ro = { .by = RP_BY_OBJECT, .format = RP_TEXT, .limit = 30 };
	struct an_opts ao = { 0 };
	const char *wrappers[64], *not_wrappers[64], *html = NULL;
	static struct mp_topo topo; /* simulated: owns no memory */
	static struct an_numa_opts numa;
	char terr[256];
	size_t nwrappers = 0, nnot = 0;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "b:r:f:n:w:hm:q", opts, NULL)) != -1) {
		switch (c) {
		case 'b': {
			int by = rp_parse_by(optarg);
			if (by < 0) {
				cli_error("unknown view '%s' for --by (object, site, kind, thread, function, page)", optarg);
				return 2;
			}
			ro.by = (enum rp_by)by;
			break;
		}
		case 'r':
			ro.roi = ao.roi = optarg;
			break;
		case 'f': {
			int f = rp_parse_format(optarg);
			if (f < 0) {
				cli_error("unknown format '%s' (text, csv, json)", optarg);
				return 2;
			}
			ro.format = (enum rp_format)f;
			break;
		}
		case 'n':
			if (cli_parse_limit(optarg, &ro.limit))
				return 2;
			break;
		case 'w':
			if (nwrappers == sizeof(wrappers) / sizeof(wrappers[0])) {
				cli_error("too many --alloc-wrapper options (at most 64)");
				return 2;
			}
			wrappers[nwrappers++] = optarg;
			break;
		case 'W':
			if (nnot == sizeof(not_wrappers) / sizeof(not_wrappers[0])) {
				cli_error("too many --not-wrapper options (at most 64)");
				return 2;
			}
			not_wrappers[nnot++] = optarg;
			break;
		case 'U':
			if (mp_topo_sim(optarg, &topo, terr, sizeof(terr))) {
				cli_error("%s", terr);
				return 2;
			}
			numa = (struct an_numa_opts){ .topo = &topo };
			ao.numa = &numa;
			break;
		case 'H':
			ao.no_wrapper_heuristic = 1;
			break;
		case 'L':
			ao.lib_sites = 1;
			break;
		case 'T':
			html = optarg;
			break;
		case 'h':
			usage(stdout);
			return cli_finish_stdout();
		default: {
			int r = cli_model_option(&model, c, optarg);
			if (r == 0)
				break;
			if (r == 1)
				usage(stderr);
			return 2;
		}
		}
	}
	if (cli_data_path(argc, argv, optind, &ro.data_path))
		return 2;
	ao.wrappers = wrappers;
	ao.nwrappers = nwrappers;
	ao.not_wrappers = not_wrappers;
	ao.nnot_wrappers = nnot;
	if (cli_model_apply(&model, &ao, 0))
		return 2;
	ro.machine = ao.machine;
	ro.model_args = model.args;
	ro.nmodel_args = model.nargs;
	if (html)
		return cli_report_html(html, &ao, &ro);
	/* the object view shows how each object is walked (an_pattern.h) */
	struct an_patterns *pats = NULL;
	if (ro.by == RP_BY_OBJECT) {
		pats = an_patterns_new();
		if (!pats) {
			cli_error("out of memory");
			return 1;
		}
		ao.patterns = pats;
	}
	struct an_result *res = NULL;
	struct an_pattern *patv = NULL;
	ao.progress = cli_progress;
	ao.progress_arg = "reading the trace";
	ro.width = cli_term_width();
	ro.color = cli_use_color();
	int err = an_run(ro.data_path, &ao, &res);
	cli_progress_end();
	if (!err && pats && !(err = an_patterns_error(pats)))
		err = an_patterns_by_class(pats, res, &patv);
	an_patterns_free(pats);
	ro.patterns = patv;
	if (err) {
		an_result_free(res);
		cli_data_error(err, ro.data_path, optind < argc, "memprism record -- PROGRAM");
		return 1;
	}
	cli_model_note(&model);
	int instrumented = 0;
	for (size_t i = 0; i < res->nprocs; i++)
		instrumented += res->procs[i].instrumented;
	int sampled = strcmp(res->source, "faults") == 0 || strcmp(res->source, "pmu") == 0;
	if (ro.by == RP_BY_PAGE && strcmp(res->source, "faults") != 0) {
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
	int damage = cli_damage(res, ro.data_path, ro.format != RP_CSV);
	err = rp_render(stdout, res, &ro);
	an_result_free(res);
	free(patv);
	if (err) {
		cli_error("cannot render the report: %s", mp_strerror(err));
		return 1;
	}
	return cli_finish_stdout() | damage;
}
