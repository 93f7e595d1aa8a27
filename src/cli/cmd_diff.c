// SPDX-License-Identifier: MIT
/* `memprism diff [OPTIONS] BEFORE AFTER`: two recordings (each a file or a
 * directory of files, merged) compared object by object. */
#include <stdio.h>
#include <string.h>

#include "analysis/an_merge.h"
#include "analysis/analysis.h"
#include "cli/cli.h"
#include "common/mp_error.h"
#include "report/report.h"

static int run(int argc, char **argv);

static const struct cli_opt opts[] = {
	CLI_OPT("roi", 'r', "NAME", "count only accesses made while region NAME was open"),
	CLI_OPT("format", 'f', "FORMAT", "text (default), csv or json"),
	CLI_OPT("limit", 'n', "N", "rows in text (default 30, 0 for all)"),
	CLI_OPT("alloc-wrapper", 'w', "FN", "treat function FN as an allocation wrapper (repeatable)"),
	CLI_OPT("not-wrapper", CLI_K_NOT_WRAPPER, "FN", "never treat function FN as one (repeatable)"),
	CLI_OPT("lib-sites", CLI_K_LIB_SITES, NULL, "a frame in an installed library can be a site"),
	CLI_TABLE(cli_opts_merge),
	CLI_TABLE(cli_opts_quiet_help),
	CLI_TEXT("With --model, both sides run through the model too, and the rows add DRAM\n"
		 "requests and page walks before and after."),
	CLI_TABLE(cli_opts_model),
	CLI_END,
};

const struct cli_cmd cli_cmd_diff = {
	.name = "diff",
	.run = run,
	.summary = "compare two recordings object by object (before -> after)",
	.usage = "[OPTIONS] BEFORE AFTER",
	.about = "Analyses BEFORE and AFTER (each a data file, or a directory of them: an MPI\n"
		 "job's ranks, merged as `report` merges them) and shows, per object, accesses,\n"
		 "loads, stores and bytes before and after and the change, the largest change\n"
		 "first. Objects are matched by what they are: allocation site, module and\n"
		 "symbol, kind; a site whose line moved within its function (an edit above it)\n"
		 "keeps its row, shown with the line it had. Objects of one side only are new\n"
		 "or vanished.\n",
	.opts = opts,
	.formats = 1u << CLI_FMT_TEXT | 1u << CLI_FMT_CSV | 1u << CLI_FMT_JSON,
	.examples = (const struct cli_example[]){
		{ "memprism diff before.data after.data",
		  "per object, accesses before and after a change, the largest change first" },
		{ "memprism diff --model host before.data after.data",
		  "and the modelled DRAM requests and page walks of each side" },
		{ "memprism diff before-ranks/ after-ranks/",
		  "two MPI jobs, each a directory of its ranks' files" },
		{ 0 },
	},
	.see_also = "memprism-report(1), memprism-whatif(1)",
};

/* One side: argv[i] alone, merged. 0 and *out, or the exit status. */
static int side(char **argv, int i, int force, struct an_opts *ao, struct an_merge **out)
{
	return cli_merge_run(i + 1, argv, i, force, ao, out);
}

static int run(int argc, char **argv)
{
	static struct cli_model model;
	memset(&model, 0, sizeof(model));
	struct rp_opts ro = { .by = RP_BY_OBJECT, .format = RP_TEXT, .limit = 30 };
	struct an_opts ao = { 0 };
	struct cli_group g = { .cmd = &cli_cmd_diff, .ro = &ro, .model = &model };
	struct cli_parse p;
	int c;
	cli_parse_init(&p, &cli_cmd_diff, argc, argv);
	while ((c = cli_parse_next(&p)) != -1) {
		if (c == CLI_EXIT)
			return p.status;
		if (cli_group_option(&g, c, optarg))
			return 2;
	}
	if (argc - optind != 2) {
		cli_error("diff wants two recordings, BEFORE and AFTER (each a data file or a directory of them), "
			  "not %d",
			  argc - optind);
		return 2;
	}
	ao.roi = ro.roi;
	cli_sites_apply(&g.sites, &ao);
	if (cli_model_apply(&model, &ao, 0))
		return 2;
	struct an_opts bo = ao;
	struct an_merge *a = NULL, *b = NULL;
	int status = side(argv, optind, g.force, &ao, &a);
	if (!status)
		status = side(argv, optind + 1, g.force, &bo, &b);
	if (status) {
		an_merge_free(a);
		return status;
	}
	cli_model_note(&model);
	const struct an_result *ra = an_merge_result(a), *rb = an_merge_result(b);
	char wa[4200], wb[4200];
	snprintf(wa, sizeof(wa), "%s", argv[optind]);
	snprintf(wb, sizeof(wb), "%s", argv[optind + 1]);
	if (an_merge_nparts(a) > 1)
		snprintf(wa, sizeof(wa), "%s (%zu files)", argv[optind], an_merge_nparts(a));
	if (an_merge_nparts(b) > 1)
		snprintf(wb, sizeof(wb), "%s (%zu files)", argv[optind + 1], an_merge_nparts(b));
	int err = rp_render_diff(stdout, ra, rb, &ro, wa, wb);
	int damage = ((ra->damaged | rb->damaged) & AN_DAMAGE_UNTRUSTED) ? 1 : 0;
	an_merge_free(a);
	an_merge_free(b);
	if (err) {
		cli_error("cannot render the comparison: %s", mp_strerror(err));
		return 1;
	}
	return cli_finish_stdout() | damage;
}
