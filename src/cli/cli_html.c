// SPDX-License-Identifier: MIT
/* `memprism report --html FILE`: the visual report. Two replays of the
 * trace (an_run_two_pass): the first gives the tables, access patterns and
 * time stamps, the second places every access on the time x address grids
 * (an_bins.h). Both replay a file's processes one after another: the
 * grids' hooks take each access with the file's class and thread numbers
 * and each thread's stamps in the file's order, which replays of the
 * processes at once (an_procs.c, states of their own numbered apart) do
 * not give them (an_par_wanted refuses hooks). The page-walk checks read
 * the first replay's translations (cli_check_pages); the HTML page of
 * several files (the merge, no plots) has no hooks and takes --jobs. */
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

/* The two replays' state: the grids, the first replay's patterns, and
 * what the plan found. */
struct html_run {
	struct an_bins *bins;
	struct an_patterns *pats;
	struct an_pattern *patv;
	const char *path;
	int damage;
};

/* The first replay's hooks: the grids' extents (the patterns are fed by
 * the replay itself, an_opts.patterns, as for the tables). */
static void scan_access(void *arg, const struct an_access *a)
{
	an_bins_scan_access(((struct html_run *)arg)->bins, a);
}

static void scan_event(void *arg, const struct an_event *e)
{
	an_bins_scan_event(((struct html_run *)arg)->bins, e);
}

/* Between the replays: the damaged-file warning, the patterns per object,
 * the grids of the objects plotted. */
static int plan(void *arg, const struct an_result *res)
{
	struct html_run *h = arg;
	int err;
	h->damage = cli_damage(res, h->path, 1);
	if ((err = an_patterns_error(h->pats)) || (err = an_patterns_by_class(h->pats, res, &h->patv)))
		return err;
	return an_bins_plan(h->bins, res, CLI_HTML_PLOTS);
}

static void fill_access(void *arg, const struct an_access *a)
{
	an_bins_fill_access(((struct html_run *)arg)->bins, a);
}

static int fill_error(void *arg)
{
	return an_bins_error(((struct html_run *)arg)->bins);
}

int cli_write_html(const char *html, const struct an_result *res, const struct rp_opts *ro,
		   const struct an_bins *bins)
{
	const int out = !strcmp(html, "-");
	FILE *f = out ? stdout : fopen(html, "w");
	int err = f ? rp_render_html(f, res, ro, bins) : -errno;
	if (f && !err && (fflush(f) || ferror(f)))
		err = errno ? -errno : -EIO;
	if (f && !out && fclose(f) != 0 && !err)
		err = -errno;
	if (err)
		cli_error("cannot write %s: %s", out ? "the page to standard output" : html, mp_strerror(err));
	return err;
}

int cli_report_html(const char *html, struct an_opts *ao, struct rp_opts *ro)
{
	struct html_run h = { .bins = an_bins_new(), .pats = an_patterns_new(), .path = ro->data_path };
	struct an_result *res = NULL;
	enum an_pass stage;
	int rc = 1, err;
	if (!h.pats || !h.bins) {
		cli_error("out of memory");
		goto out;
	}
	ao->page_rows = 1; /* the TLB section's pages */
	ao->on_access = scan_access;
	ao->on_event = scan_event;
	ao->hook_arg = &h;
	ao->patterns = h.pats;
	const struct an_two_pass tp = { .on_access = fill_access, .plan = plan, .error = fill_error, .arg = &h };
	if ((err = an_run_two_pass(ro->data_path, ao, &tp, &res, &stage))) {
		cli_error(stage == AN_PASS_FIRST  ? "cannot read %s: %s"
			  : stage == AN_PASS_PLAN ? "cannot analyse %s: %s"
						  : "cannot bin the accesses of %s: %s",
			  ro->data_path, mp_strerror(err));
		goto out;
	}
	ro->patterns = h.patv;
	if (ro->check_pages == cli_check_pages) /* (its checks read the first replay's translations) */
		((struct cli_check *)ro->check_arg)->res = res;
	if (cli_write_html(html, res, ro, h.bins))
		goto out;
	rc = h.damage;
out:
	an_result_free(res);
	an_patterns_free(h.pats);
	an_bins_free(h.bins);
	free(h.patv);
	return rc;
}
