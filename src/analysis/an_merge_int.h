/* SPDX-License-Identifier: MIT */
/*
 * The merge's own parts (an_merge.c, an_merge_numa.c): the NUMA view's
 * fold, kept apart from the rows' so each file says one concern.
 */
#ifndef MP_AN_MERGE_INT_H
#define MP_AN_MERGE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"

/* The NUMA fold's state: where each merged row's object is. */
struct an_merge_numa {
	uint32_t *obj_of; /* merged class -> an_numa_result.objs index + 1, 0 none */
	size_t obj_of_cap, objs_cap, threads_cap, findings_cap;
	size_t parts; /* parts whose view was folded */
	size_t without; /* parts read without a NUMA view */
};

/*
 * Folds part result r's NUMA view (r->numa, NULL: none) into res's:
 * remap takes r's classes to res's, thread_base is where r's threads
 * begin in res. r's moved pieces are cleared (the caller frees r). 0,
 * -ENOMEM, or -EXDEV when r was placed on another machine than the
 * parts before it (node or CPU count, simulated or host) or is measured
 * where they were modelled (or the other way): such figures do not add.
 */
int an_merge_numa_fold(struct an_merge_numa *s, struct an_result *res, struct an_result *r, const uint32_t *remap,
		       uint32_t thread_base);
/* After the last part: objects in the view's order, findings' shares of
 * the merged figures. 0; 1 when some parts had a view and some not (the
 * view is then dropped: its figures would not add up); -ENOMEM. */
int an_merge_numa_finish(struct an_merge_numa *s, struct an_result *res);
void an_merge_numa_fini(struct an_merge_numa *s);

#endif
