// SPDX-License-Identifier: MIT
/* `memprism report --html FILE`: the visual report. Two replays of the
 * trace: the first gives the tables, access patterns and time stamps, the
 * second places every access on the time x address grids (an_bins.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/an_bins.h"
#include "analysis/an_pattern.h"
#include "cli/cli.h"
#include "common/mp_error.h"
#include "report/report.h"

#define CLI_HTML_PLOTS 16 /* objects with a time x address plot */

/* The first replay's hooks: the grids' extents (the patterns are fed by
 * the replay itself, an_opts.patterns, as for the tables). */
static void scan_access(void *arg, const struct an_access *a)
{
	an_bins_scan_access(arg, a);
}

static void scan_event(void *arg, const struct an_event *e)
{
	an_bins_scan_event(arg, e);
}

int cli_report_html(const char *html, struct an_opts *ao, struct rp_opts *ro)
{
	struct an_patterns *pats = an_patterns_new();
	struct an_bins *bins = an_bins_new();
	struct an_result *res = NULL, *res2 = NULL;
	struct an_pattern *patv = NULL;
	FILE *out = NULL;
	int rc = 1, err;
	if (!pats || !bins) {
		cli_error("out of memory");
		goto out;
	}
	ao->page_rows = 1; /* the TLB section's pages */
	ao->on_access = scan_access;
	ao->on_event = scan_event;
	ao->hook_arg = bins;
	ao->patterns = pats;
	err = an_run(ro->data_path, ao, &res);
	ao->patterns = NULL;
	if (err) {
		cli_error("cannot read %s: %s", ro->data_path, mp_strerror(err));
		goto out;
	}
	int damage = cli_damage(res, ro->data_path, 1);
	if ((err = an_patterns_error(pats)) || (err = an_patterns_by_class(pats, res, &patv)) ||
	    (err = an_bins_plan(bins, res, CLI_HTML_PLOTS))) {
		cli_error("cannot analyse %s: %s", ro->data_path, mp_strerror(err));
		goto out;
	}
	ao->on_access = an_bins_fill_access;
	ao->on_event = NULL;
	ao->hook_arg = bins;
	err = an_run(ro->data_path, ao, &res2);
	if (!err)
		err = an_bins_error(bins);
	if (err) {
		cli_error("cannot bin the accesses of %s: %s", ro->data_path, mp_strerror(err));
		goto out;
	}
	ro->patterns = patv;
	out = fopen(html, "w");
	if (!out) {
		cli_error("cannot write %s: %s", html, strerror(errno));
		goto out;
	}
	err = rp_render_html(out, res, ro, bins);
	if (fclose(out) != 0 && !err)
		err = -errno;
	out = NULL;
	if (err) {
		cli_error("cannot write %s: %s", html, mp_strerror(err));
		goto out;
	}
	rc = damage;
out:
	an_result_free(res);
	an_result_free(res2);
	an_patterns_free(pats);
	an_bins_free(bins);
	free(patv);
	return rc;
}
