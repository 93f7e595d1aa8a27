// SPDX-License-Identifier: MIT
/*
 * The option groups the commands that analyse a recording share, parsed
 * here once for all of them: the output group (--roi, --format, --limit,
 * --force) of report, diff, tlb, numa and whatif, and the allocation
 * sites' group (--alloc-wrapper, --not-wrapper, --no-wrapper-heuristic,
 * --lib-sites, --context) of report, diff and export; the model's group is
 * cli_model.c's. Each command's table names the rows it takes, with their
 * help (cli_opt.h): a key reaches the group only if its row is there.
 */
#include <stddef.h>

#include "cli/cli.h"
#include "report/report.h"

int cli_sites_option(struct cli_sites *s, int key, const char *arg)
{
	switch (key) {
	case 'w':
	case CLI_K_NOT_WRAPPER: {
		const int w = key == 'w';
		if ((w ? s->nwrappers : s->nnot) == CLI_MAX_WRAPPERS) {
			cli_error("too many --%s options (at most %d)", w ? "alloc-wrapper" : "not-wrapper",
				  CLI_MAX_WRAPPERS);
			return 2;
		}
		if (w)
			s->wrappers[s->nwrappers++] = arg;
		else
			s->not_wrappers[s->nnot++] = arg;
		return 0;
	}
	case CLI_K_NO_WRAPPER_HEURISTIC:
		s->no_heuristic = 1;
		return 0;
	case CLI_K_LIB_SITES:
		s->lib_sites = 1;
		return 0;
	case CLI_K_CONTEXT: {
		size_t n;
		if (cli_parse_count("--context", arg, 16, &n))
			return 2;
		s->context = n ? (int)n : -1; /* (0: none) */
		return 0;
	}
	}
	return 1;
}

void cli_sites_apply(const struct cli_sites *s, struct an_opts *ao)
{
	ao->wrappers = s->wrappers;
	ao->nwrappers = s->nwrappers;
	ao->not_wrappers = s->not_wrappers;
	ao->nnot_wrappers = s->nnot;
	ao->no_wrapper_heuristic = s->no_heuristic;
	ao->lib_sites = s->lib_sites;
	ao->context = s->context;
}

/* The output group: 0 handled, 2 bad value (said), 1 not one of it. */
static int output_option(struct cli_group *g, int key, const char *arg)
{
	switch (key) {
	case 'r':
		g->ro->roi = arg;
		return 0;
	case 'f': {
		enum cli_format f;
		if (cli_parse_format(g->cmd->name, arg, g->cmd->formats, &f))
			return 2;
		g->ro->format = f == CLI_FMT_JSON ? RP_JSON : f == CLI_FMT_CSV ? RP_CSV : RP_TEXT;
		return 0;
	}
	case 'n':
		return cli_parse_limit(arg, &g->ro->limit) ? 2 : 0;
	case CLI_K_FORCE:
		g->force = 1;
		return 0;
	}
	return 1;
}

int cli_group_option(struct cli_group *g, int key, const char *arg)
{
	int rc = g->ro ? output_option(g, key, arg) : 1;
	if (rc == 1)
		rc = cli_sites_option(&g->sites, key, arg);
	if (rc == 1 && g->model)
		rc = cli_model_option(g->model, key, arg);
	/* (a key no group knows is a row the command's switch forgot) */
	return rc ? 2 : 0;
}
