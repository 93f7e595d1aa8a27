/* SPDX-License-Identifier: MIT */
/* The cache model's burst-sampling extension (record --sample-bursts):
 * marks on first fills and walks found again in later bursts, the lines
 * left marked at the end, and the flushes that tell which LLC sets had
 * turned over. Only the analysis's burst sampling (src/analysis/
 * an_model_burst.c) uses it; model.h is the model without it. */
#ifndef MP_MODEL_BURST_H
#define MP_MODEL_BURST_H

#include "model/model.h"

/*
 * Burst sampling (record --sample-bursts): which first fills were first
 * fills only in the sample. A line's first fill from DRAM is a miss in
 * any run, but scaled by the sample's factor it stands for that many
 * misses, and where a line stays cached and keeps being referenced (a
 * small footprint in a long loop) the skipped accesses between bursts
 * would have hit it instead: evloop's 65 fills became 650. Once tracking
 * is on, a data line's first fill (its hash not yet in a bitmap of those
 * seen) is marked in all the copies it makes; a reference to it again in
 * the same burst, other than the core's next one (randacc's store after
 * its load), marks it in use; and the first reference in a later burst
 * that finds it cached calls fn, once, with the line's owner (its filler,
 * or its last writer), the level (L1, L2 or L3) and the skips since its
 * burst (1 to 15; the count wraps at 16). In use, not just seen in two
 * bursts: a line found again only bursts later may have been referenced
 * at any time before its burst, cached then in the full run or not
 * (model.c, marks_touch). The model saw only the bursts: the caller
 * judges whether the skipped accesses' traffic would have left the line
 * cached too, and how much of the scaled fill to take back. Nothing the
 * model does changes: only the calls. A data line's first later burst
 * that finds it not in use calls fn too, with skips 0 (the line was seen
 * in two bursts). walk: the line is a paging-structure
 * line (its owner: the reference whose walk filled it), whose first fill
 * counted as a walk reference from DRAM. 0 or -ENOMEM. Call before the
 * first access.
 */
typedef void (*mp_model_first_fn)(void *arg, uint32_t owner, unsigned level, unsigned skips, int walk);
/* The same for a page's first walk on a core (a thread that moves walks
 * its pages again, once), marked in the DTLB and STLB entries it makes:
 * walk_fn gets the owner of the reference that found the page again
 * (TLB entries keep none), where (MP_TLB_L1_HIT: the DTLB, MP_TLB_L2_HIT:
 * the STLB), the skips, and the page (its address and shift). As for
 * lines, a page's first later burst that finds it not in use calls it with
 * skips 0 (seen in two bursts). */
typedef void (*mp_model_first_walk_fn)(void *arg, uint32_t owner, unsigned tlb, unsigned skips, uint64_t page,
				       unsigned shift);
/* fn is required; walk_fn NULL: pages are not tracked. */
int mp_model_track_first(struct mp_model *m, mp_model_first_fn fn, mp_model_first_walk_fn walk_fn, void *arg);
/* Whether owners a and b take fills back from the same rows (arg: the
 * track_first one's). Set, a data line a reference of another group finds
 * loses its marks (model.c, first_touch); unset (NULL), owners do not
 * matter. */
typedef int (*mp_model_same_fn)(void *arg, uint32_t a, uint32_t b);
void mp_model_track_same(struct mp_model *m, mp_model_same_fn fn);

/* At the end (before mp_model_flush), the data lines and pages still
 * marked, which no third burst saw: fn gets each one's owner and the
 * bursts it was seen in (1 or 2), and for a page (else NULL) where it is,
 * once per core whose TLBs hold it (the walker's owner). With a footprint
 * the caches (the TLBs) hold, every line (page) the bursts saw in fewer
 * than three (one seen in a later burst is reported then, in use or not:
 * mp_model_first_fn or _walk_fn with skips 0 when not). 0 or -ENOMEM. */
struct mp_model_left_page {
	uint64_t va; /* the page's start */
	uint32_t space; /* as mp_model_access had it */
	unsigned shift;
};
typedef void (*mp_model_left_fn)(void *arg, uint32_t owner, unsigned bursts, const struct mp_model_left_page *page);
int mp_model_first_left(const struct mp_model *m, mp_model_left_fn fn, void *arg);

/* How many first fills and first walks have been marked so far (each is
 * reported at most once). */
void mp_model_first_counts(const struct mp_model *m, uint64_t *lines, uint64_t *pages);

/* The burst the coming references are in (any number; its low 4 bits
 * tell one burst from the next). */
void mp_model_set_burst(struct mp_model *m, unsigned burst);

/* mp_model_flush, but the dirty lines are reported to the writeback
 * callback only where their LLC set has evicted a line before: where the
 * footprint outgrew the LLC, so that the lines were in a steady state of
 * coming and going, not cached for good. Burst sampling's end (an_model_burst.c:
 * such a line stands for the lines the skipped accesses would have had
 * written back meanwhile). */
void mp_model_flush_turned(struct mp_model *m);

/* mp_model_flush, each writeback told by mp_model_wb_turned whether its
 * LLC set had evicted a line before the flush. */
void mp_model_flush_told(struct mp_model *m);

/* Inside the writeback callback of mp_model_flush_told: whether the line's
 * LLC set had evicted a line before (mp_model_flush_turned's test). */
int mp_model_wb_turned(const struct mp_model *m);

/* The share of the LLC's sets (of those set sampling models) that have
 * evicted a line so far: where the references filled the LLC. */
double mp_model_turned_share(const struct mp_model *m);

#endif
