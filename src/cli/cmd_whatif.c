// SPDX-License-Identifier: MIT
/* `memprism whatif [OPTIONS] [FILE]`: the trace through two model
 * configurations, A (--model, --pages) and B (A changed by --vs-model,
 * --vs-pages), compared object by object. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_merge.h"
#include "analysis/analysis.h"
#include "cli/cli.h"
#include "common/mp_error.h"
#include "report/report.h"

enum { K_VS_MODEL = CLI_K_CMD, K_VS_PAGES };

static int run(int argc, char **argv);

static const struct cli_opt opts[] = {
	CLI_OPT("vs-model", K_VS_MODEL, "MACHINE", "B runs on this machine (host, file or preset)"),
	CLI_OPT("vs-pages", K_VS_PAGES, "RULE",
	  "B: SIZE or PATTERN=SIZE as --pages (repeatable; B's\n"
	  "rules come before A's)"),
	CLI_OPT("roi", 'r', "NAME", "count only accesses made while region NAME was open"),
	CLI_OPT("format", 'f', "FORMAT", "text (default) or csv"),
	CLI_OPT("limit", 'n', "N", "rows in text (default 20, 0 for all)"),
	CLI_TABLE(cli_opts_merge),
	CLI_TABLE(cli_opts_quiet_help),
	CLI_TABLE(cli_opts_model),
	CLI_TABLE(cli_opts_sampling),
	CLI_END,
};

const struct cli_cmd cli_cmd_whatif = {
	.name = "whatif",
	.run = run,
	.summary = "the trace under two model configurations (machine, huge pages), per object",
	.usage = "[OPTIONS] [FILE|DIR...]",
	.about = "Re-simulates the recorded accesses twice, A as given by --model/--pages and B\n"
		 "with the changes below, and shows per object the page walks, DRAM requests and\n"
		 "modelled cycles of both: huge pages for one object or for all, or another\n"
		 "machine, without editing or re-running the program. All MODELLED. Several\n"
		 "files, or a directory of them (an MPI job's ranks), are modelled one at a\n"
		 "time, each process on a machine of its own, and merged by object\n"
		 "(docs/mpi.md).\n",
	.opts = opts,
	.formats = 1u << CLI_FMT_TEXT | 1u << CLI_FMT_CSV,
	.examples = (const struct cli_example[]){
		{ "memprism whatif --model host --vs-pages 'app.c:88=2M'",
		  "per object: walks, DRAM requests and cycles, before -> after 2 MiB pages for one object" },
		{ "memprism whatif --model nehalem-e5504 --vs-model host",
		  "the same trace on two machines" },
		{ 0 },
	},
	.see_also = "memprism-report(1), memprism-tlb(1)",
};

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

/* Several data files: A and B each merged over them (cli_merge.c), one
 * file at a time. mb: B's model when it has a machine of its own. */
static int run_merged(int argc, char **argv, int optind, int force, struct an_opts *aa, struct an_opts *ab,
		      struct rp_opts *ro, const char *da, const char *db, const struct cli_model *ma,
		      const struct cli_model *mb)
{
	struct an_merge *a = NULL, *b = NULL;
	int status = cli_merge_run(argc, argv, optind, force, aa, &a);
	if (!status)
		status = cli_merge_again(argc, argv, optind, ab, &b);
	if (status) {
		an_merge_free(a);
		return status;
	}
	cli_model_note(ma);
	if (mb)
		cli_model_note(mb);
	char what[64];
	snprintf(what, sizeof(what), "%zu data files", an_merge_nparts(a));
	ro->data_path = what;
	const struct an_result *ra = an_merge_result(a), *rb = an_merge_result(b);
	int err = rp_render_compare(stdout, ra, rb, ro, da, db);
	if (ro->format == RP_TEXT)
		print_warnings(ra, rb);
	int damage = ra->damaged & AN_DAMAGE_UNTRUSTED ? 1 : 0;
	an_merge_free(a);
	an_merge_free(b);
	if (err) {
		cli_error("cannot render the comparison: %s", mp_strerror(err));
		return 1;
	}
	return cli_finish_stdout() | damage;
}

static int run(int argc, char **argv)
{
	static struct cli_model ma, mb, vs;
	memset(&ma, 0, sizeof(ma));
	memset(&vs, 0, sizeof(vs));
	struct rp_opts ro = { .by = RP_BY_OBJECT, .format = RP_TEXT, .limit = 20 };
	struct cli_group g = { .cmd = &cli_cmd_whatif, .ro = &ro, .model = &ma };
	struct cli_parse p;
	int c, changed = 0;
	cli_parse_init(&p, &cli_cmd_whatif, argc, argv);
	while ((c = cli_parse_next(&p)) != -1) {
		switch (c) {
		case CLI_EXIT:
			return p.status;
		case K_VS_MODEL:
			if (cli_model_option(&vs, 'm', optarg))
				return 2;
			changed = 1;
			break;
		case K_VS_PAGES:
			if (cli_model_option(&vs, CLI_K_PAGES, optarg))
				return 2;
			changed = 1;
			break;
		default:
			if (cli_group_option(&g, c, optarg))
				return 2;
		}
	}
	if (!changed) {
		cli_error("whatif: say what B changes: --vs-model MACHINE and/or --vs-pages RULE");
		return 2;
	}
	int merged = cli_merge_wanted(argc, argv, optind);
	if (!merged && cli_data_path(argc, argv, optind, &ro.data_path))
		return 2;
	struct an_opts aa = { .roi = ro.roi }, ab = { .roi = ro.roi };
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
	if (merged)
		return run_merged(argc, argv, optind, g.force, &aa, &ab, &ro, da, db, &ma, vs.have ? &mb : NULL);
	struct an_result *ra = NULL, *rb = NULL;
	aa.progress = ab.progress = cli_progress;
	aa.jobs = ab.jobs = cli_jobs(); /* (a file's processes at once) */
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
