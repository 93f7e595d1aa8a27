/* SPDX-License-Identifier: MIT */
/*
 * The exact model on several threads. A line's sets in L1, L2 and the LLC,
 * its copies in other cores and every victim its fills push down share its
 * line number modulo the smallest set count (a power of two), so the
 * caches split into classes by those low bits that never meet: each
 * worker thread models the classes given to it, whole. The TLBs, the
 * paging-structure caches and which lines a page walk loads depend on no
 * cache, so they run first, in order, on the caller's thread; each
 * reference's lines (the walk's, then the data's) go to the workers that
 * own them, and its outcome comes back in submission order, the same as
 * mp_model_access_lines gives: the same state changes in every set, in
 * the same order per set. With one worker there is nothing to split: it
 * runs the whole model, TLBs too, on a model of its own or, beside the
 * caller (mp_model_par_beside), on the caller's while lent.
 *
 * Writebacks are counted by owner inside the workers (mp_model_par_writebacks)
 * rather than reported one at a time: their order across workers is not
 * the serial one, and the counts are all a caller without a per-event
 * hook needs. Set and burst sampling stay on the serial model.
 */
#ifndef MP_MODEL_PAR_H
#define MP_MODEL_PAR_H

#include <stdint.h>

#include "model/model.h"

struct mp_model_par;

/* Workers at most. */
#define MP_MODEL_PAR_MAX 64

/* A model of machine m (copied) on `workers` threads (1..MP_MODEL_PAR_MAX)
 * besides the caller's.
 * NULL and errno (EINVAL: a machine mp_machine_check refuses, or a worker
 * count out of range; ENOMEM; or pthread_create's). */
struct mp_model_par *mp_model_par_new(const struct mp_machine *m, unsigned workers);
/* One worker beside the caller's thread, with no model of its own: it
 * models on the caller's model while the caller lends it
 * (mp_model_par_lend), so the caller can model inline where that costs
 * less than the hand-over (a loop over data in L1) and on the worker
 * where references miss. NULL and errno (as mp_model_par_new). */
struct mp_model_par *mp_model_par_beside(const struct mp_machine *m);
/* Stops the workers (pending references are dropped). */
void mp_model_par_free(struct mp_model_par *p);

/* mp_model_par_beside's: from here on the worker makes the submissions on
 * m, the caller's, which the caller leaves alone until
 * mp_model_par_reclaim; m's DRAM writes are the worker's to count
 * (mp_model_par_writebacks). With nothing submitted since the last
 * reclaim. The worker's thread starts at the first: 0, or the -errno of
 * pthread_create (nothing lent: the caller keeps modelling). */
int mp_model_par_lend(struct mp_model_par *p, struct mp_model *m);
/* Waits until the worker has made every submission and gives the model
 * back (the caller takes the outcomes with mp_model_par_result and sets
 * its own writeback call on m again). */
void mp_model_par_reclaim(struct mp_model_par *p);

/* 1 when a submission must wait for results to be taken first
 * (mp_model_par_result): the rings between the threads are full. */
int mp_model_par_full(struct mp_model_par *p);

/* n (1..MP_MODEL_LINES_MAX) consecutive lines in one 4 KiB page, as
 * mp_model_access_lines takes them without skipping; its outcome comes
 * later from mp_model_par_result. counted: whether the DRAM writes the
 * references cause count (mp_model_par_writebacks). Call only when
 * mp_model_par_full says there is room. Returns the first line's TLB
 * outcome (enum mp_tlb_outcome), which the translation decides at once. */
unsigned mp_model_par_access(struct mp_model_par *p, unsigned core, uint32_t space, uint64_t addr, uint64_t paddr,
			     unsigned n, int write, unsigned page_shift, uint32_t owner, int counted);

/* n (1..64) more references to the line of the last submission (one
 * line, the last thing submitted), by its core, counted as it was, by
 * owner (its own, or another's: a store from another function, which
 * owns the line's writeback from then on): bit i of writes set, the i-th
 * is a store. A repeat that would
 * change nothing in the serial model (its `again`) is an L1 hit without a
 * translation; the others are made as mp_model_access makes them. Their
 * outcomes come with the submission's (mp_model_par_result). Returns 1 if
 * more may follow, 0 if the next ones must be a submission of their own;
 * -1, nothing sent, if the last submission's outcome was taken already or
 * it was not of one line. */
int mp_model_par_repeat(struct mp_model_par *p, uint64_t writes, unsigned n, uint32_t owner);

/* The oldest submitted access's outcome, in submission order: 1, *out
 * and *level (its n levels, valid until the next call), as
 * mp_model_access_lines gives them (out->again is 0), and its repeats'
 * (mp_model_par_repeat): *nrep of them, *replv NULL when every one was
 * an L1 hit (with a DTLB hit), else each one's level ORed with 0x80 for
 * a store; or 0 when there is none, or (wait 0) it is not ready yet. */
int mp_model_par_result(struct mp_model_par *p, int wait, struct mp_model_out *out, const uint8_t **level,
			unsigned *nrep, const uint8_t **replv);

/* mp_model_clean, at this point of the submissions; its DRAM writes
 * count if counted. */
void mp_model_par_clean(struct mp_model_par *p, int counted);

/* A cold machine from here on (dirty lines left are not written back).
 * Call with no result waiting (mp_model_par_result returned 0 with wait
 * set). 0 or -ENOMEM (the model is then unusable); -EINVAL beside the
 * caller (whose model it is to renew). */
int mp_model_par_renew(struct mp_model_par *p);

/* With no result waiting: the counted DRAM writes since the last call, per
 * owner: fn(arg, owner, n) for each owner with n > 0, by owner. 0 or
 * -ENOMEM (a worker could not count an owner, or could not renew). */
int mp_model_par_writebacks(struct mp_model_par *p, void (*fn)(void *arg, uint32_t owner, uint64_t n), void *arg);

/* A counter that changes whenever the model's state may have. */
const uint64_t *mp_model_par_seq(const struct mp_model_par *p);

#endif
