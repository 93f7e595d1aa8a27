// SPDX-License-Identifier: MIT
/* `memprism whatif [OPTIONS] [FILE]`: the trace through two model
 * configurations, A (--model, --pages) and B (A changed by --vs-model,
 * --vs-pages), compared object by object. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "cli/cli.h"
#include "common/mp_error.h"
#include "report/report.h"

enum { OPT_VS_MODEL = 0x2001, OPT_VS_PAGES };

static void usage(FILE *out)
{
	fprintf(out, "usage: memprism whatif [OPTIONS] [FILE]\n\n"
		     "Re-simulates the recorded accesses twice, A as given by --model/--pages and B\n"
		     "with the changes below, and shows per object the page walks, DRAM requests and\n"
		     "modelled cycles of both: the huge-page experiments of seeds 000 and 001, or\n"
		     "another machine, without editing or re-running the program. All MODELLED.\n\n"
		     "options:\n"
		     "      --vs-model MACHINE   B runs on this machine (host, file or preset)\n"
		     "      --vs-pages RULE      B: SIZE or PATTERN=SIZE as --pages (repeatable; B's\n"
		     "                           rules come before A's)\n"
		     "  -r, --roi NAME           count only accesses made while region NAME was open\n"
		     "  -f, --format FORMAT      text (default) or csv\n"
		     "  -n, --limit N            rows in text (default 20, 0 for all)\n"
		     "  -q, --quiet              no notes on stderr (errors still)\n"
		     "  -h, --help               this help\n");
	cli_model_help(out, 1);
}

static void describe(char *buf, size_t cap, const struct cli_model *m)
{
	unsigned ps = m->page_shift ? m->page_shift : 12;
	size_t at = (size_t)snprintf(buf, cap, "%s, %s pages", m->machine.name,
				     ps == 30	? "1G"
				     : ps == 21 ? "2M"
						: "4K");
	for (size_t i = 0; i < m->nrules && at < cap; i++)
		at += (size_t)snprintf(buf + at, cap - at, "%s%s=%s", i ? ", " : "; ", m->rules[i].pattern,
				       m->rules[i].shift == 30	 ? "1G"
				       : m->rules[i].shift == 21 ? "2M"
								 : "4K");
}

/* Whose warnings are which: a warning of both runs once, as (A, B). */
static int has_warning(const struct an_result *r, const char *w)
{
	for (size_t i = 0; i < r->nwarnings; i++)
		if (!strcmp(r->warnings[i], w))
			return 1;
	return 0;
}

static void print_warnings(const struct an_result *ra, const struct an_result *rb)
{
	int first = 1;
	for (size_t i = 0; i < ra->nwarnings; i++, first = 0)
		printf("%swarning (%s): %s\n", first ? "\n" : "", has_warning(rb, ra->warnings[i]) ? "A, B" : "A",
		       ra->warnings[i]);
	for (size_t i = 0; i < rb->nwarnings; i++)
		if (!has_warning(ra, rb->warnings[i])) {
			printf("%swarning (B): %s\n", first ? "\n" : "", rb->warnings[i]);
			first = 0;
		}
}

int cmd_whatif(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "vs-model", required_argument, NULL, OPT_VS_MODEL },
		{ "vs-pages", required_argument, NULL, OPT_VS_PAGES },
		{ "roi", required_argument, NULL, 'r' },
		{ "format", required_argument, NULL, 'f' },
		{ "limit", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		CLI_MODEL_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	static struct cli_model ma, mb, vs;
	memset(&ma, 0, sizeof(ma));
	memset(&vs, 0, sizeof(vs));
	struct rp_opts ro = { .by = RP_BY_OBJECT, .format = RP_TEXT, .limit = 20 };
	const char *roi = NULL;
	int c, changed = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "r:f:n:hm:q", opts, NULL)) != -1) {
		switch (c) {
		case OPT_VS_MODEL:
			if (cli_model_option(&vs, CLI_OPT_MODEL, optarg))
				return 2;
			changed = 1;
			break;
		case OPT_VS_PAGES:
			if (cli_model_option(&vs, CLI_OPT_PAGES, optarg))
				return 2;
			changed = 1;
			break;
		case 'r':
			ro.roi = roi = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "csv")) {
				cli_error("unknown format '%s' for whatif (text, csv)", optarg);
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
			int r = cli_model_option(&ma, c, optarg);
			if (r == 0)
				break;
			if (r == 1)
				usage(stderr);
			return 2;
		}
		}
	}
	if (!changed) {
		cli_error("whatif: say what B changes: --vs-model MACHINE and/or --vs-pages RULE");
		return 2;
	}
	if (cli_data_path(argc, argv, optind, &ro.data_path))
		return 2;
	struct an_opts aa = { .roi = roi }, ab = { .roi = roi };
	if (cli_model_apply(&ma, &aa, 1))
		return 2;
	/* B: A, then the changes; its rules first so they win */
	mb = ma;
	if (vs.have)
		mb.machine = vs.machine;
	if (vs.page_shift)
		mb.page_shift = vs.page_shift;
	mb.nrules = 0;
	for (size_t i = 0; i < vs.nrules + ma.nrules && i < CLI_MAX_PAGE_RULES; i++) {
		const char *pat = i < vs.nrules ? vs.patterns[i] : ma.patterns[i - vs.nrules];
		unsigned sh = i < vs.nrules ? vs.rules[i].shift : ma.rules[i - vs.nrules].shift;
		snprintf(mb.patterns[i], sizeof(mb.patterns[i]), "%s", pat);
		mb.rules[i] = (struct an_page_rule){ mb.patterns[i], sh };
		mb.nrules++;
	}
	if (cli_model_apply(&mb, &ab, 1))
		return 2;
	char da[512], db[512];
	describe(da, sizeof(da), &ma);
	describe(db, sizeof(db), &mb);
	struct an_result *ra = NULL, *rb = NULL;
	aa.progress = ab.progress = cli_progress;
	aa.progress_arg = "modelling A";
	ab.progress_arg = "modelling B";
	int err = an_run(ro.data_path, &aa, &ra);
	cli_progress_end();
	if (!err)
		err = an_run(ro.data_path, &ab, &rb);
	cli_progress_end();
	if (err) {
		an_result_free(ra);
		cli_data_error(err, ro.data_path, optind < argc, "memprism record -- PROGRAM");
		return 1;
	}
	cli_model_note(&ma);
	if (vs.have)
		cli_model_note(&mb);
	/* (one file: B's damage is A's) */
	int damage = cli_damage(ra, ro.data_path, ro.format == RP_TEXT);
	err = rp_render_compare(stdout, ra, rb, &ro, da, db);
	if (ro.format == RP_TEXT)
		print_warnings(ra, rb);
	an_result_free(ra);
	an_result_free(rb);
	if (err) {
		cli_error("cannot render the comparison: %s", mp_strerror(err));
		return 1;
	}
	return cli_finish_stdout() | damage;
}
