/* SPDX-License-Identifier: MIT */
/*
 * Sampled accesses in the analysis (record --source faults|pmu): SAMPLES
 * chunks are collected while the file is indexed, each sample is given to
 * the process image it came from (pid, and time against the images' start
 * times), and the replay of that process places it by time among the
 * runtime's events, so it is attributed to the object that held its address
 * at that moment. The inst source's CPU-time samples are counted apart,
 * by module (an_cputime.c, of the same stage). Internal to src/analysis.
 */
#ifndef MP_AN_SAMPLES_H
#define MP_AN_SAMPLES_H

#include <stdint.h>

#include "analysis/an_int.h"

/* The process image a sample of pid at time belongs to: the latest image
 * of pid started at or before it (an exec starts a new one), else its
 * first (the dynamic loader's work before the runtime started);
 * UINT32_MAX when no image of pid ran the runtime. */
uint32_t an_samples_proc(const struct an_state *st, uint32_t pid, uint64_t time);

/* The inst source's CPU-time samples (an_cputime.c): taken apart from the
 * accesses before the replay (an_samples_assign), tallied by module after
 * it, once an_unseen_modules has named the modules the trace does not
 * see: r's cpu_* and unseen_cpu figures (analysis.h). 0 or -ENOMEM. */
int an_cpu_take(struct an_state *st, uint32_t pid, uint64_t time, uint64_t ip, uint64_t period);
/* The recording sampled CPU time every period ns (0: as said before),
 * and the kernel dropped lost of its samples. */
int an_cpu_def(struct an_state *st, uint64_t period, uint64_t lost);
int an_cpu_result(struct an_state *st, struct an_result *r);
void an_cpu_free(struct an_state *st);

/* Takes a SAMPLES chunk's records (index pass). */
void an_samples_chunk(struct an_state *st, const struct trace_chunk *c);
/* After indexing: every sample to its process, sorted by time. */
int an_samples_assign(struct an_state *st);
/* Replay of process pi reached an event (type event) at time t: applies
 * the process's samples that happened before it (t = UINT64_MAX: all that
 * are left). epoch: the replay's epoch before the event (samples carry
 * none; the NUMA timelines tell turns from overlaps by it). */
void an_samples_until(struct an_state *st, uint32_t pi, uint64_t t, unsigned event, uint64_t epoch);
/* Adds a merged class's sampled figures to the row it merged into. */
void an_samples_merge_class(struct an_class *into, const struct an_class *from);
void an_samples_merge_ip(struct an_function *into, const struct an_ip *from);
/* After merging rows: totals, pages (with final row indices) into r. */
int an_samples_finish(struct an_state *st, struct an_result *r, const uint32_t *remap);
void an_samples_free(struct an_state *st);

#endif
