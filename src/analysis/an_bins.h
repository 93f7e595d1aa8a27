/* SPDX-License-Identifier: MIT */
/*
 * Time x address grids per object (Figure 3 of the BSC tools paper,
 * Figures 7-9 of the ORMBP paper): every counted access lands in one of
 * AN_BINS_T time bins of the run and, per object, one of AN_BINS_A address
 * bins of the object's range, with loads, stores and (model) DRAM-served
 * loads counted apart. Millions of accesses become at most T x A cells per
 * object.
 *
 * Trace time stamps are coarse (one per 1 MiB chunk and per event), so the
 * time of an access is interpolated by its ordinal within its thread
 * between the stamps around it. That needs the stamps first: two replays.
 *   pass 1: an_bins_scan_access / an_bins_scan_event as hooks of an_run;
 *   an_bins_plan with pass 1's result;
 *   pass 2: an_bins_fill_access as the on_access hook of a second an_run
 *   with the same options (the replay is deterministic).
 */
#ifndef MP_AN_BINS_H
#define MP_AN_BINS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"

#define AN_BINS_T 512
#define AN_BINS_A 256

/* An object's address axis skips the largest gaps between what was
 * accessed (instances in the brk heap and in mmap'd space lie terabytes
 * apart): at most AN_BINS_SEGS ranges, laid end to end. */
#define AN_BINS_SEGS 8
struct an_seg {
	uint64_t lo, hi; /* [lo, hi) */
	uint64_t off; /* where it starts on the axis: the lengths of those before it */
};

/* One object's grid. Cell (t, a) is index t * AN_BINS_A + a. */
struct an_grid {
	uint32_t cls; /* an_result.classes index */
	uint64_t lo, hi; /* the accessed addresses lie in [lo, hi) */
	struct an_seg seg[AN_BINS_SEGS]; /* the A bins cover these, by address */
	size_t nseg;
	uint64_t span; /* their lengths' sum: the axis */
	uint32_t *loads, *stores; /* AN_BINS_T * AN_BINS_A counts */
	uint32_t *dram; /* loads served by DRAM (model only), else NULL */
	uint64_t binned; /* accesses binned (a ranged access counts once) */
};

struct an_bins;
/* NULL and errno = ENOMEM on failure; free with an_bins_free. */
struct an_bins *an_bins_new(void);
void an_bins_free(struct an_bins *b); /* accepts NULL */

/* Pass 1 hooks (arg: the an_bins). */
void an_bins_scan_access(void *arg, const struct an_access *a);
void an_bins_scan_event(void *arg, const struct an_event *e);
/* Fixes the time axis and the grids of the max_objects most accessed
 * classes of r (pass 1's result). 0 or -ENOMEM. */
int an_bins_plan(struct an_bins *b, const struct an_result *r, size_t max_objects);
/* Pass 2 hook. */
void an_bins_fill_access(void *arg, const struct an_access *a);

/* Pass 2, for consumers of the stream itself (exports): the interpolated
 * time (ns) of a, which must be the next access of the second replay; call
 * it instead of an_bins_fill_access, or before it with fill = 1. */
uint64_t an_bins_time_of(struct an_bins *b, const struct an_access *a, int fill);

/* 0, or -ENOMEM if a hook failed to allocate. */
int an_bins_error(const struct an_bins *b);
/* Time axis: [t0, t1) ns (CLOCK_MONOTONIC), split into AN_BINS_T bins. */
void an_bins_time(const struct an_bins *b, uint64_t *t0, uint64_t *t1);
size_t an_bins_ngrids(const struct an_bins *b);
const struct an_grid *an_bins_grid(const struct an_bins *b, size_t i);

#endif
