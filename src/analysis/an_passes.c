// SPDX-License-Identifier: MIT
/*
 * Two replays of one file (an_run_two_pass, analysis.h), for the views that
 * place each access against the whole trace: the HTML report's time x
 * address grids, folded regions, the binned SQLite export and Paraver's
 * interpolated times all learn their extents in a first replay and fill
 * in a second. One driver, so each of them only says what it plans and
 * fills; the replay is deterministic, so both replays see the same stream.
 */
#include <stddef.h>

#include "analysis/analysis.h"

int an_run_two_pass(const char *path, const struct an_opts *o, const struct an_two_pass *tp,
		    struct an_result **first, enum an_pass *stage)
{
	struct an_result *second = NULL;
	*first = NULL;
	*stage = AN_PASS_FIRST;
	int err = an_run(path, o, first);
	if (err)
		return err;
	*stage = AN_PASS_PLAN;
	if (tp->plan && (err = tp->plan(tp->arg, *first)))
		return err;
	if (!tp->on_access && !tp->on_event)
		return 0; /* (nothing to fill: the plan was all) */
	/* the same replay with the filling hooks; the access patterns (the
	 * first replay's) are not gathered again */
	struct an_opts o2 = *o;
	o2.patterns = NULL;
	o2.log_translations = 0; /* (the first's log serves) */
	o2.on_access = tp->on_access;
	o2.on_event = tp->on_event;
	o2.hook_arg = tp->arg;
	*stage = AN_PASS_SECOND;
	err = an_run(path, &o2, &second);
	an_result_free(second);
	if (!err && tp->error)
		err = tp->error(tp->arg);
	return err;
}
