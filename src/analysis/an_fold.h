/* SPDX-License-Identifier: MIT */
/*
 * Folding (the Folding tool of the BSC tools paper): the instances of a repetitive region
 * (memprism_region_begin/end with one name, per thread) are mapped onto
 * normalised time [0, 1) and overlaid, so one synthetic instance shows how
 * the accesses evolve inside an iteration: which object, which addresses,
 * at what rate.
 *
 * Normalised time is the access's ordinal within its instance divided by
 * the instance's access count, not its clock time: the trace stamps the
 * clock once per 1 MiB chunk and per event, so the accesses of a short
 * iteration usually share one stamp, while the ordinal resolves every
 * access. "Rate" is then accesses per phase bin, summed over instances.
 *
 * Two replays with the same options: pass 1 (an_fold_scan_access /
 * an_fold_scan_event as hooks) finds each thread's instances, pass 2
 * (an_fold_fill_access) folds their accesses.
 */
#ifndef MP_AN_FOLD_H
#define MP_AN_FOLD_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"

#define AN_FOLD_MAX_BINS 1000

/* One object in one phase bin, summed over instances. */
struct an_fold_cell {
	uint64_t loads, stores;
	uint64_t addr_min, addr_max; /* offsets from the object's lowest folded address */
	double addr_sum; /* of offsets, for the mean */
};

struct an_fold;
/* region: the region name; bins: phase bins (1..AN_FOLD_MAX_BINS). NULL and
 * errno (ENOMEM, EINVAL) on failure; free with an_fold_free. */
struct an_fold *an_fold_new(const char *region, unsigned bins);
void an_fold_free(struct an_fold *f); /* accepts NULL */
void an_fold_scan_access(void *arg, const struct an_access *a);
void an_fold_scan_event(void *arg, const struct an_event *e);
/* Between the passes: r is pass 1's result. 0 or -ENOMEM. */
int an_fold_plan(struct an_fold *f, const struct an_result *r);
void an_fold_fill_access(void *arg, const struct an_access *a);
int an_fold_error(const struct an_fold *f); /* 0 or -ENOMEM */

/* Instances found (closed ones; those still open at the end are not folded),
 * accesses folded, phase bins. */
uint64_t an_fold_instances(const struct an_fold *f);
uint64_t an_fold_accesses(const struct an_fold *f);
unsigned an_fold_bins(const struct an_fold *f);
/* Objects (an_result.classes indices) with folded accesses, most first. */
size_t an_fold_objects(const struct an_fold *f, const uint32_t **cls);
/* The cell of object cls in phase bin b: [b / bins, (b + 1) / bins). */
const struct an_fold_cell *an_fold_cell(const struct an_fold *f, uint32_t cls, unsigned b);

#endif
