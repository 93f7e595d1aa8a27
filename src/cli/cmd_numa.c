// SPDX-License-Identifier: MIT
/* `memprism numa [OPTIONS] [FILE]`: NUMA locality of a recording on the
 * recorded host or a simulated machine: remote ratios per object, site and
 * thread, the node x node matrix, object timelines, patterns and fixes. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_numa.h"
#include "cli/cli.h"
#include "common/mp_error.h"
#include "report/report.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: memprism numa [OPTIONS] [FILE]\n\n"
		     "Places the recorded threads and pages on a NUMA machine and shows which\n"
		     "objects are accessed remotely, by which threads, from which node to which,\n"
		     "when, and what to change (MemProf's patterns). The machine is the one\n"
		     "`record --numa` simulated, else this option's, else the recorded host.\n"
		     "Recorded affinity and memory-policy calls are honoured (docs/numa.md).\n"
		     "FILE defaults to memprism.data.\n\n"
		     "options:\n"
		     "      --numa NODESxCPUS    simulate this machine, e.g. 4x8 (4 nodes of 8 CPUs)\n"
		     "      --threads POLICY     where unpinned threads run: spread (round-robin over\n"
		     "                           nodes in creation order; simulated default), compact\n"
		     "                           (fill a node first) or recorded (the CPU they ran on;\n"
		     "                           host default)\n"
		     "      --pages POLICY       where pages go without a recorded policy: first-touch\n"
		     "                           (default), interleave[:NODES] or bind:NODES (NODES:\n"
		     "                           0,2 or 0-3)\n"
		     "      --ignore-calls       don't honour recorded affinity and policy calls\n"
		     "  -b, --by TABLE           objects (default: matrix, threads, objects, findings),\n"
		     "                           sites, threads, matrix, timeline or findings\n"
		     "  -r, --roi NAME           count only accesses made while region NAME was open\n"
		     "  -f, --format FORMAT      text (default), csv (one table: --by) or json (every\n"
		     "                           table, docs/report-formats.md)\n"
		     "  -n, --limit N            rows per table in text (default 20, 0 for all)\n"
		     "  -q, --quiet              no notes on stderr (errors still)\n"
		     "  -h, --help               this help\n"
		     "with --model, DRAM fills from another node's memory are modelled as remote\n"
		     "DRAM, at the local latency scaled by the node distance.\n");
	cli_model_help(out, 1);
}

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

enum { OPT_NUMA = 0x2001, OPT_THREADS, OPT_PAGES_NUMA, OPT_IGNORE };

int cmd_numa(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "numa", required_argument, NULL, OPT_NUMA },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "pages", required_argument, NULL, OPT_PAGES_NUMA },
		{ "page-size", required_argument, NULL, CLI_OPT_PAGES },
		{ "ignore-calls", no_argument, NULL, OPT_IGNORE },
		{ "by", required_argument, NULL, 'b' },
		{ "roi", required_argument, NULL, 'r' },
		{ "format", required_argument, NULL, 'f' },
		{ "limit", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ "model", required_argument, NULL, CLI_OPT_MODEL },
		{ "thread-map", required_argument, NULL, CLI_OPT_THREAD_MAP },
		{ "sample-sets", required_argument, NULL, CLI_OPT_SAMPLE_SETS },
		{ "sample-bursts", required_argument, NULL, CLI_OPT_SAMPLE_BURSTS },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const tables[] = { "objects", "sites", "threads", "matrix", "timeline", "findings" };
	static struct cli_model model;
	static struct mp_topo topo;
	memset(&model, 0, sizeof(model));
	struct an_numa_opts no = { 0 };
	struct rp_opts ro = { .by = RP_BY_OBJECT, .format = RP_TEXT, .limit = 20 };
	struct an_opts ao = { .numa = &no };
	enum rp_numa_table table = RP_NUMA_OBJECTS;
	char err[256];
	int c, have_topo = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "b:r:f:n:hm:q", opts, NULL)) != -1) {
		switch (c) {
		case OPT_NUMA:
			if (have_topo)
				mp_topo_fini(&topo);
			if (mp_topo_sim(optarg, &topo, err, sizeof(err))) {
				cli_error("%s", err);
				return 2;
			}
			have_topo = 1;
			no.topo = &topo;
			break;
		case OPT_THREADS:
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
		case OPT_PAGES_NUMA: {
			const char *colon = strchr(optarg, ':');
			size_t len = colon ? (size_t)(colon - optarg) : strlen(optarg);
			if (len == 11 && !strncmp(optarg, "first-touch", len) && !colon)
				no.pages = AN_NUMA_P_FIRST_TOUCH;
			else if (len == 10 && !strncmp(optarg, "interleave", len))
				no.pages = AN_NUMA_P_INTERLEAVE;
			else if (len == 4 && !strncmp(optarg, "bind", len) && colon)
				no.pages = AN_NUMA_P_BIND;
			else {
				cli_error("--pages wants first-touch, interleave[:NODES] or bind:NODES (got '%s')",
					  optarg);
				return 2;
			}
			if (colon && !(no.nodemask = parse_nodes(colon + 1))) {
				cli_error("--pages %s: NODES is a list like 0,2 or 0-3 (nodes below 64)", optarg);
				return 2;
			}
			break;
		}
		case OPT_IGNORE:
			no.ignore_calls = 1;
			break;
		case 'b': {
			size_t k = 0;
			while (k < sizeof(tables) / sizeof(tables[0]) && strcmp(optarg, tables[k]))
				k++;
			if (k == sizeof(tables) / sizeof(tables[0])) {
				cli_error("--by wants objects, sites, threads, matrix, timeline or findings (got '%s')",
					  optarg);
				return 2;
			}
			table = (enum rp_numa_table)k;
			break;
		}
		case 'r':
			ro.roi = ao.roi = optarg;
			break;
		case 'f':
			if (!strcmp(optarg, "text"))
				ro.format = RP_TEXT;
			else if (!strcmp(optarg, "csv"))
				ro.format = RP_CSV;
			else if (!strcmp(optarg, "json"))
				ro.format = RP_JSON;
			else {
				cli_error("unknown format '%s' for numa (text, csv, json)", optarg);
				return 2;
			}
			break;
		case 'n':
			if (cli_parse_limit(optarg, &ro.limit))
				return 2;
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
	int status = 0;
	if (cli_data_path(argc, argv, optind, &ro.data_path)) {
		status = 2;
		goto out;
	}
	if (cli_model_apply(&model, &ao, 0)) {
		status = 2;
		goto out;
	}
	struct an_result *res = NULL;
	ao.progress = cli_progress;
	ao.progress_arg = "reading the trace";
	int e = an_run(ro.data_path, &ao, &res);
	cli_progress_end();
	if (e) {
		cli_data_error(e, ro.data_path, optind < argc, "memprism record --numa 4x8 -- PROGRAM");
		status = 1;
		goto out;
	}
	cli_model_note(&model);
	for (size_t i = 0; i < res->nwarnings; i++)
		cli_error("warning: %s", res->warnings[i]);
	int damage = cli_damage(res, ro.data_path, 1);
	if (!res->total.loads && !res->total.stores && !res->samples)
		cli_error("note: no accesses recorded (was the program built with `memprism cc`?): nothing to "
			  "place");
	e = rp_render_numa(stdout, res, &ro, table);
	an_result_free(res);
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
