// SPDX-License-Identifier: MIT
/* `memprism numa [OPTIONS] [FILE]`: NUMA locality of a recording on the
 * recorded host or a simulated machine: remote ratios per object, site and
 * thread, the node x node matrix, object timelines, patterns and fixes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_merge.h"
#include "analysis/an_numa.h"
#include "cli/cli.h"
#include "common/mp_error.h"
#include "report/report.h"

enum { K_NUMA = CLI_K_CMD, K_THREADS, K_PAGE_POLICY, K_IGNORE, K_PAGE_SIZE };

static int run(int argc, char **argv);

static const struct cli_opt opts[] = {
	CLI_OPT("numa", K_NUMA, "NODESxCPUS", "simulate this machine, e.g. 4x8 (4 nodes of 8 CPUs)"),
	CLI_OPT("threads", K_THREADS, "POLICY",
	  "where unpinned threads run: spread (round-robin over\n"
	  "nodes in creation order; simulated default), compact\n"
	  "(fill a node first) or recorded (the CPU they ran on;\n"
	  "host default)"),
	CLI_OPT("page-policy", K_PAGE_POLICY, "POLICY",
	  "where pages go without a recorded policy: first-touch\n"
	  "(default), interleave[:NODES] or bind:NODES (NODES:\n"
	  "0,2 or 0-3); --pages POLICY says the same"),
	CLI_OPT("ignore-calls", K_IGNORE, NULL, "don't honour recorded affinity and policy calls"),
	CLI_OPT("by", 'b', "TABLE",
	  "object (default; in text: the matrix, thread, object\n"
	  "and finding tables), site, thread, matrix, timeline,\n"
	  "finding, rank (a row per data file) or process; the\n"
	  "plural is the same table (sites)"),
	CLI_OPT("roi", 'r', "NAME", "count only accesses made while region NAME was open"),
	CLI_OPT("format", 'f', "FORMAT",
	  "text (default), csv (one table: --by) or json (every\n"
	  "table, docs/report-formats.md)"),
	CLI_OPT("limit", 'n', "N", "rows per table in text (default 20, 0 for all)"),
	CLI_TABLE(cli_opts_merge),
	CLI_TABLE(cli_opts_quiet_help),
	CLI_TEXT("with --model, DRAM fills from another node's memory are modelled as remote\n"
		 "DRAM, at the local latency scaled by the node distance."),
	CLI_TABLE(cli_opts_model),
	CLI_OPT("page-size", K_PAGE_SIZE, "SIZE", "another name for --pages SIZE"),
	CLI_TABLE(cli_opts_sampling),
	CLI_END,
};

#define NUMA_VIEWS                                                                                                     \
	(1u << CLI_VIEW_OBJECT | 1u << CLI_VIEW_SITE | 1u << CLI_VIEW_THREAD | 1u << CLI_VIEW_MATRIX |                 \
	 1u << CLI_VIEW_TIMELINE | 1u << CLI_VIEW_FINDING | 1u << CLI_VIEW_RANK | 1u << CLI_VIEW_PROCESS)

const struct cli_cmd cli_cmd_numa = {
	.name = "numa",
	.run = run,
	.summary = "NUMA locality: remote accesses per object and thread, node matrix, patterns, fixes",
	.usage = "[OPTIONS] [FILE|DIR...]",
	.about = "Places the recorded threads and pages on a NUMA machine and shows which\n"
		 "objects are accessed remotely, by which threads, from which node to which,\n"
		 "when, and what to change (MemProf's patterns). The machine is the one\n"
		 "`record --numa` simulated, else this option's, else the recorded host.\n"
		 "Recorded affinity and memory-policy calls are honoured (docs/numa.md).\n"
		 "FILE defaults to memprism.data. Several files, or a directory of them (an\n"
		 "MPI job's ranks), are placed one at a time, each process on a machine of\n"
		 "its own, and merged by object; --by rank shows each (docs/mpi.md).\n",
	.opts = opts,
	.views = NUMA_VIEWS,
	.formats = 1u << CLI_FMT_TEXT | 1u << CLI_FMT_CSV | 1u << CLI_FMT_JSON,
	.examples = (const struct cli_example[]){
		{ "memprism numa",
		  "remote accesses per object and thread, the node matrix, patterns and their fixes" },
		{ "memprism numa --by timeline",
		  "which threads and nodes used each object, when" },
		{ "memprism numa --numa 4x8 --page-policy interleave",
		  "on a simulated 4-node machine, pages interleaved" },
		{ "memprism numa --numa 2x4 ranks/",
		  "an MPI job's ranks, each on a 2-node machine of its own, merged by object" },
		{ 0 },
	},
	.see_also = "memprism-record(1), memprism-report(1)",
};

static const enum rp_numa_table numa_table[] = {
	[CLI_VIEW_OBJECT] = RP_NUMA_OBJECTS, [CLI_VIEW_SITE] = RP_NUMA_SITES,	    [CLI_VIEW_THREAD] = RP_NUMA_THREADS,
	[CLI_VIEW_MATRIX] = RP_NUMA_MATRIX,  [CLI_VIEW_TIMELINE] = RP_NUMA_TIMELINE, [CLI_VIEW_FINDING] = RP_NUMA_FINDINGS,
	[CLI_VIEW_RANK] = RP_NUMA_RANKS,     [CLI_VIEW_PROCESS] = RP_NUMA_PROCESSES,
};

/* "0,2" or "0-3" -> bit mask; 0 on error. */
static uint64_t parse_nodes(const char *s)
{
	uint64_t m = 0;
	while (*s) {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;
		if (end == s)
			return 0;
		if (*end == '-') {
			const char *c = end + 1;
			b = strtoul(c, &end, 10);
			if (end == c)
				return 0;
		}
		if (a > b || b >= 64)
			return 0;
		for (unsigned long k = a; k <= b; k++)
			m |= 1ull << k;
		if (*end && *end != ',')
			return 0;
		s = *end ? end + 1 : end;
	}
	return m;
}

/* A page policy (--page-policy, or --pages with a policy's word): 0 set,
 * 2 wrong (said), 1 not a policy (numa's --pages SIZE is the model's). */
static int page_policy(const char *arg, struct an_numa_opts *no)
{
	const char *colon = strchr(arg, ':');
	size_t len = colon ? (size_t)(colon - arg) : strlen(arg);
	if (len == 11 && !strncmp(arg, "first-touch", len) && !colon)
		no->pages = AN_NUMA_P_FIRST_TOUCH;
	else if (len == 10 && !strncmp(arg, "interleave", len))
		no->pages = AN_NUMA_P_INTERLEAVE;
	else if (len == 4 && !strncmp(arg, "bind", len) && colon)
		no->pages = AN_NUMA_P_BIND;
	else if (!strncmp(arg, "first-touch", 11) || !strncmp(arg, "interleave", 10) || !strncmp(arg, "bind", 4)) {
		cli_error("--page-policy wants first-touch, interleave[:NODES] or bind:NODES (got '%s')", arg);
		return 2;
	} else {
		return 1;
	}
	if (colon && !(no->nodemask = parse_nodes(colon + 1))) {
		cli_error("--page-policy %s: NODES is a list like 0,2 or 0-3 (nodes below 64)", arg);
		return 2;
	}
	return 0;
}

/* The result to show: several files merged (*m, *damage set) or one
 * file's (*own). 0, or the exit status (said). */
static int load(int argc, char **argv, int optind, int force, struct an_opts *ao, struct rp_opts *ro,
		struct an_merge **m, struct an_result **own, int *damage)
{
	static char what[64];
	if (cli_merge_wanted(argc, argv, optind)) {
		int status = cli_merge_run(argc, argv, optind, force, ao, m);
		if (status)
			return status;
		snprintf(what, sizeof(what), "%zu data files", an_merge_nparts(*m));
		ro->data_path = what;
		ro->merge = *m;
		const struct an_result *res = an_merge_result(*m);
		*damage = res->damaged & AN_DAMAGE_UNTRUSTED ? 1 : 0;
		if (!res->numa) { /* (its warning says why) */
			for (size_t i = 0; i < res->nwarnings; i++)
				if (strstr(res->warnings[i], "NUMA"))
					cli_error("%s", res->warnings[i]);
			an_merge_free(*m);
			*m = NULL;
			return 1;
		}
		return 0;
	}
	ao->progress = cli_progress;
	ao->progress_arg = "reading the trace";
	ao->jobs = cli_jobs(); /* (a file's processes at once) */
	int e = an_run(ro->data_path, ao, own);
	cli_progress_end();
	if (e) {
		cli_data_error(e, ro->data_path, optind < argc, "memprism record --numa 4x8 -- PROGRAM");
		return 1;
	}
	return 0;
}

static int run(int argc, char **argv)
{
	static struct cli_model model;
	static struct mp_topo topo;
	memset(&model, 0, sizeof(model));
	struct an_numa_opts no = { 0 };
	struct rp_opts ro = { .by = RP_BY_OBJECT, .format = RP_TEXT, .limit = 20 };
	struct an_opts ao = { .numa = &no };
	enum rp_numa_table table = RP_NUMA_OBJECTS;
	struct cli_group g = { .cmd = &cli_cmd_numa, .ro = &ro, .model = &model };
	char err[256];
	struct cli_parse p;
	int c, r, have_topo = 0;
	cli_parse_init(&p, &cli_cmd_numa, argc, argv);
	while ((c = cli_parse_next(&p)) != -1) {
		switch (c) {
		case CLI_EXIT:
			return p.status;
		case K_NUMA:
			if (have_topo)
				mp_topo_fini(&topo);
			if (mp_topo_sim(optarg, &topo, err, sizeof(err))) {
				cli_error("%s", err);
				return 2;
			}
			have_topo = 1;
			no.topo = &topo;
			break;
		case K_THREADS:
			if (!strcmp(optarg, "spread"))
				no.threads = AN_NUMA_T_SPREAD;
			else if (!strcmp(optarg, "compact"))
				no.threads = AN_NUMA_T_COMPACT;
			else if (!strcmp(optarg, "recorded"))
				no.threads = AN_NUMA_T_RECORDED;
			else {
				cli_error("--threads wants spread, compact or recorded (got '%s')", optarg);
				return 2;
			}
			break;
		case K_PAGE_POLICY:
			if ((r = page_policy(optarg, &no)) == 1) {
				cli_error("--page-policy wants first-touch, interleave[:NODES] or bind:NODES (got '%s')",
					  optarg);
				return 2;
			}
			if (r)
				return 2;
			break;
		case CLI_K_PAGES:
			/* a policy's word is the placement's, the rest the model's */
			if ((r = page_policy(optarg, &no)) == 2 || (r == 1 && cli_model_option(&model, c, optarg)))
				return 2;
			break;
		case K_PAGE_SIZE:
			if (cli_model_option(&model, CLI_K_PAGES, optarg))
				return 2;
			break;
		case K_IGNORE:
			no.ignore_calls = 1;
			break;
		case 'b': {
			enum cli_view v;
			if (cli_parse_by("numa", optarg, cli_cmd_numa.views, &v))
				return 2;
			table = numa_table[v];
			break;
		}
		default:
			if (cli_group_option(&g, c, optarg))
				return 2;
		}
	}
	ao.roi = ro.roi;
	int status = 0;
	if (!cli_merge_wanted(argc, argv, optind) && cli_data_path(argc, argv, optind, &ro.data_path)) {
		status = 2;
		goto out;
	}
	if (cli_model_apply(&model, &ao, 0)) {
		status = 2;
		goto out;
	}
	struct an_result *own = NULL; /* one file's result */
	struct an_merge *m = NULL;
	int damage = 0, e;
	if ((status = load(argc, argv, optind, g.force, &ao, &ro, &m, &own, &damage)))
		goto out;
	const struct an_result *res = m ? an_merge_result(m) : own;
	cli_model_note(&model);
	if (own) { /* (a merge's parts were said by cli_merge_run) */
		for (size_t i = 0; i < own->nwarnings; i++)
			cli_error("warning: %s", own->warnings[i]);
		damage = cli_damage(own, ro.data_path, 1);
	}
	if (!res->total.loads && !res->total.stores && !res->samples)
		cli_note("note: no accesses recorded (was the program built with `memprism cc`?): nothing to "
			 "place");
	e = rp_render_numa(stdout, res, &ro, table);
	an_merge_free(m);
	an_result_free(own);
	if (e) {
		cli_error("cannot render the NUMA view: %s", mp_strerror(e));
		status = 1;
		goto out;
	}
	status = cli_finish_stdout() | damage;
out:
	if (have_topo)
		mp_topo_fini(&topo);
	return status;
}
