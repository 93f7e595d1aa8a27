// SPDX-License-Identifier: MIT
/* `memprism tlb [OPTIONS] [FILE]`: where TLB misses and page walks
 * concentrate, by page and object (always modelled). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_merge.h"
#include "analysis/analysis.h"
#include "cli/cli.h"
#include "common/mp_error.h"
#include "report/report.h"

static int run(int argc, char **argv);

static const struct cli_opt opts[] = {
	CLI_OPT("roi", 'r', "NAME", "count only accesses made while region NAME was open"),
	CLI_OPT("format", 'f', "FORMAT", "text (default) or csv (one row per page)"),
	CLI_OPT("limit", 'n', "N", "rows per table in text (default 20, 0 for all)"),
	CLI_TABLE(cli_opts_merge),
	CLI_TABLE(cli_opts_quiet_help),
	CLI_TABLE(cli_opts_model),
	CLI_TABLE(cli_opts_sampling),
	CLI_END,
};

const struct cli_cmd cli_cmd_tlb = {
	.name = "tlb",
	.run = run,
	.summary = "where TLB misses and page walks concentrate, by page and object (modelled)",
	.usage = "[OPTIONS] [FILE|DIR...]",
	.about = "Runs the recorded accesses through the model's TLBs and page walker and shows\n"
		 "where page walks concentrate: the share of walks over the share of pages\n"
		 "(PTAT's per-page distribution), walks per object, and the hottest pages with\n"
		 "the object on each. FILE defaults to memprism.data; the machine to host.\n"
		 "What-if: --pages NAME=2M puts an object in 2 MiB pages. Several files, or a\n"
		 "directory of them (an MPI job's ranks), are modelled one at a time, each\n"
		 "process on a machine of its own, and merged by object (docs/mpi.md).\n",
	.opts = opts,
	.formats = 1u << CLI_FMT_TEXT | 1u << CLI_FMT_CSV,
	.examples = (const struct cli_example[]){
		{ "memprism tlb",
		  "where the model's page walks concentrate, by page and object, with huge-page advice" },
		{ "memprism tlb --model haswell-e5-2680v3 --pages 2M",
		  "the same on another machine, everything in 2 MiB pages" },
		{ 0 },
	},
	.see_also = "memprism-report(1), memprism-whatif(1)",
};

static int run(int argc, char **argv)
{
	static struct cli_model model;
	memset(&model, 0, sizeof(model));
	struct rp_machine rpm;
	struct rp_opts ro = { .by = RP_BY_OBJECT, .format = RP_TEXT, .limit = 20 };
	struct an_opts ao = { .page_rows = 1 };
	struct cli_group g = { .cmd = &cli_cmd_tlb, .ro = &ro, .model = &model };
	struct cli_parse p;
	int c;
	cli_parse_init(&p, &cli_cmd_tlb, argc, argv);
	while ((c = cli_parse_next(&p)) != -1) {
		if (c == CLI_EXIT)
			return p.status;
		if (cli_group_option(&g, c, optarg))
			return 2;
	}
	ao.roi = ro.roi;
	int merged = cli_merge_wanted(argc, argv, optind);
	if (!merged && cli_data_path(argc, argv, optind, &ro.data_path))
		return 2;
	if (cli_model_apply(&model, &ao, 1))
		return 2;
	ro.machine = cli_rp_machine(ao.machine, &rpm);
	ro.model_args = model.args;
	ro.nmodel_args = model.nargs;
	static struct cli_check check; /* each page-walk finding's what-if, run before it is shown */
	struct an_result *own = NULL; /* one file's result */
	const struct an_result *res;
	struct an_merge *m = NULL;
	char what[64];
	int damage;
	if (merged) {
		int status = cli_merge_run(argc, argv, optind, g.force, &ao, &m);
		if (status)
			return status;
		snprintf(what, sizeof(what), "%zu data files", an_merge_nparts(m));
		ro.data_path = what;
		res = an_merge_result(m);
		damage = res->damaged & AN_DAMAGE_UNTRUSTED ? 1 : 0;
	} else {
		check = (struct cli_check){ .path = ro.data_path, .ao = ao, .model = &model };
		ro.check_pages = cli_check_pages;
		ro.check_arg = &check;
		ao.progress = cli_progress;
		ao.progress_arg = "modelling the trace";
		ao.jobs = cli_jobs(); /* (a file's processes at once) */
		ao.log_translations = ro.format != RP_CSV;
		int err = an_run(ro.data_path, &ao, &own);
		res = own;
		check.res = own;
		cli_progress_end();
		if (err) {
			cli_data_error(err, ro.data_path, optind < argc, "memprism record -- PROGRAM");
			return 1;
		}
		damage = cli_damage(res, ro.data_path, ro.format == RP_TEXT);
	}
	cli_model_note(&model);
	if (!res->total.loads && !res->total.stores)
		cli_note("note: no accesses recorded (was the program built with "
			  "`memprism cc`?): no TLB activity "
			  "to model");
	int err = rp_render_tlb(stdout, res, &ro);
	an_merge_free(m);
	an_result_free(own);
	if (err) {
		cli_error("cannot render the report: %s", mp_strerror(err));
		return 1;
	}
	return cli_finish_stdout() | damage;
}
