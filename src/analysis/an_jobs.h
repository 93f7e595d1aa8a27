/* SPDX-License-Identifier: MIT */
/*
 * Several analyses at once, used in order: items 0..n) are worked on by up
 * to `jobs` threads while the caller takes their results one after the
 * other, in item order, and folds them in. A worker starts an item only
 * while it is fewer than `jobs` ahead of the last one the caller is done
 * with, so at most `jobs` results wait, whatever n: memory grows with
 * jobs, not with the items. What the caller makes of the results is what
 * it would make of them one after the other: the same output, byte for
 * byte. The merge of several data files (an_merge.c) and the exports of
 * several (export/) run their files' replays through it.
 *
 * With one job (or one item, or no thread to be had) each item is worked
 * on by the caller's own thread when it takes it: the serial run.
 */
#ifndef MP_AN_JOBS_H
#define MP_AN_JOBS_H

#include <stddef.h>

struct an_jobs;

/*
 * work(arg, i) makes item i's result (any pointer, NULL allowed), on a
 * thread of the pool or the caller's; it must touch nothing another
 * item's work touches but through arg's locks. drop(arg, res) frees a
 * result the caller never took (an_jobs_free after it stopped early);
 * NULL: nothing to free. Threads are started here. NULL and errno set
 * (ENOMEM) on failure.
 */
struct an_jobs *an_jobs_new(size_t n, unsigned jobs, void *(*work)(void *arg, size_t i),
			    void (*drop)(void *arg, void *res), void *arg);

/* 1 if items are worked on by threads of their own (else by an_jobs_take). */
int an_jobs_threaded(const struct an_jobs *j);

/* Item i's result (the caller owns it now), waiting for it if need be.
 * Items are taken in order, each once. */
void *an_jobs_take(struct an_jobs *j, size_t i);

/* The caller is done with item i's result: a worker may start one more. */
void an_jobs_done(struct an_jobs *j, size_t i);

/* Stops the workers (items not started are not), waits for them and
 * drops the results not taken. NULL is fine. */
void an_jobs_free(struct an_jobs *j);

#endif
