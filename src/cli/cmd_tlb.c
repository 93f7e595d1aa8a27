// SPDX-License-Identifier: MIT
/* `memprism tlb [OPTIONS] [FILE]`: where TLB misses and page walks
 * concentrate, by page and object (always modelled). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "cli/cli.h"
#include "common/mp_error.h"
#include "report/report.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: memprism tlb [OPTIONS] [FILE]\n\n"
		     "Runs the recorded accesses through the model's TLBs and page walker and "
		     "shows\n"
		     "where page walks concentrate: the share of walks over the share of "
		     "pages\n"
		     "(PTAT's per-page distribution), walks per object, and the hottest pages "
		     "with\n"
		     "the object on each. FILE defaults to memprism.data; the machine to "
		     "host.\n"
		     "What-if: --pages NAME=2M puts an object in 2 MiB pages.\n\n"
		     "options:\n"
		     "  -r, --roi NAME           count only accesses made while region NAME "
		     "was open\n"
		     "  -f, --format FORMAT      text (default) or csv (one row per page)\n"
		     "  -n, --limit N            rows per table in text (default 20, 0 for "
		     "all)\n"
		     "  -q, --quiet              no notes on stderr (errors still)\n"
		     "  -h, --help               this help\n");
	cli_model_help(out, 1);
}

int cmd_tlb(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "roi", required_argument, NULL, 'r' },
		{ "format", required_argument, NULL, 'f' },
		{ "limit", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		CLI_MODEL_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	static struct cli_model model;
	memset(&model, 0, sizeof(model));
	struct rp_machine rpm;
	struct rp_opts ro = { .by = RP_BY_OBJECT, .format = RP_TEXT, .limit = 20 };
	struct an_opts ao = { .page_rows = 1 };
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "r:f:n:hm:q", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			ro.roi = ao.roi = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "csv")) {
				cli_error("unknown format '%s' for tlb (text, csv)", optarg);
				return 2;
			}
			ro.format = strcmp(optarg, "csv") ? RP_TEXT : RP_CSV;
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
	if (cli_data_path(argc, argv, optind, &ro.data_path))
		return 2;
	if (cli_model_apply(&model, &ao, 1))
		return 2;
	ro.machine = cli_rp_machine(ao.machine, &rpm);
	ro.model_args = model.args;
	ro.nmodel_args = model.nargs;
	struct an_result *res = NULL;
	ao.progress = cli_progress;
	ao.progress_arg = "modelling the trace";
	int err = an_run(ro.data_path, &ao, &res);
	cli_progress_end();
	if (err) {
		cli_data_error(err, ro.data_path, optind < argc, "memprism record -- PROGRAM");
		return 1;
	}
	cli_model_note(&model);
	int damage = cli_damage(res, ro.data_path, ro.format == RP_TEXT);
	if (!res->total.loads && !res->total.stores)
		cli_note("note: no accesses recorded (was the program built with "
			  "`memprism cc`?): no TLB activity "
			  "to model");
	err = rp_render_tlb(stdout, res, &ro);
	an_result_free(res);
	if (err) {
		cli_error("cannot render the report: %s", mp_strerror(err));
		return 1;
	}
	return cli_finish_stdout() | damage;
}
