/* SPDX-License-Identifier: MIT */
/*
 * Merging the results of several data files (MPI ranks, runs, processes
 * that wrote files of their own) into one an_result that every renderer
 * takes as it takes one file's. Built on analysis.h alone: each file is
 * analysed by an_run on its own, folded into the merge and freed, so the
 * merge never holds more than one file's replay at a time.
 *
 * Rows are keyed by what their object is, never by its address: a heap
 * row by its symbolized allocation site (its label), a static by module
 * and symbol, a TLS variable by module and name, mappings by their file,
 * stacks by kind (the main thread's, the other threads'), so ASLR and
 * different load addresses do not split a row. Threads, processes and the
 * TLB view's pages stay each file's own; functions merge by name.
 */
#ifndef MP_AN_MERGE_H
#define MP_AN_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"

/* One data file of a merge. */
struct an_merge_part {
	char *path;
	int rank; /* the header's rank (record under mpirun/srun), -1 none */
	int rank_size; /* the job's processes as the header says, 0 unknown */
	char host[128], program[256]; /* the header's host, the program's base name */
	char job[128]; /* the header's rank_job: the launch the rank was of, "" unknown */
	/* 0 read (damaged or not: see damaged), or an_run's error: the file
	 * counts for nothing in the figures */
	int err;
	int damaged; /* enum an_damage bits */
	size_t nwarnings;
	struct an_counts total; /* the file's attributed accesses */
	struct an_mem mem_total;
	uint64_t allocations;
	size_t nprocs, nthreads;
	uint32_t pid; /* its first process, 0 none */
	/* its NUMA view's figures (numa_placed: it had one) */
	int numa_placed;
	uint64_t numa_accesses, numa_remote, numa_pages;
};

struct an_merge;

/*
 * Reads the headers of the files named by paths[0..n) (a directory stands
 * for the memprism data files in it, not their .old copies), in rank order
 * then as given. 0 and *out (free with an_merge_free), or a negative error:
 * -ENOENT / -EACCES / -ENOTDIR of a directory that cannot be listed
 * (*bad, OUT, names it), -ENODATA for a directory without data files,
 * -ENOMEM. A file whose header cannot be read is a part with err set.
 */
int an_merge_open(const char *const *paths, size_t n, struct an_merge **out, const char **bad);
void an_merge_free(struct an_merge *m);

size_t an_merge_nparts(const struct an_merge *m);
const struct an_merge_part *an_merge_part(const struct an_merge *m, size_t i);

/* Two parts whose programs differ (different base names): 1 and *a, *b
 * set, else 0. */
int an_merge_mismatch(const struct an_merge *m, size_t *a, size_t *b);
/* A rank that two parts claim: 1 and *a, *b set, else 0. */
int an_merge_duplicate(const struct an_merge *m, size_t *a, size_t *b);
/* Two ranked parts of different jobs (their headers' rank_job, or the
 * job's size, differ where both say): 1 and *a, *b set, else 0. */
int an_merge_runs_differ(const struct an_merge *m, size_t *a, size_t *b);

/*
 * Analyses every part with an_run(path, o) and folds its result in, in
 * the parts' order (o->patterns must be NULL: patterns are not merged).
 * With jobs > 1 (an_merge_set_jobs) that many parts are analysed at once,
 * each on a thread of its own, at most jobs results ahead of the fold:
 * the merge is the same, byte for byte, and memory grows with jobs, not
 * with the parts. A part that cannot be read keeps its error, and a
 * warning names it; the others go on. progress (NULL: none) is called
 * before each part is folded in (with one job, before it is read); o's
 * progress and hooks are used with one job only. 0, or -ENOMEM (the
 * merge is then unusable), or -ENODATA when no part could be read.
 */
void an_merge_set_jobs(struct an_merge *m, unsigned jobs);
int an_merge_run(struct an_merge *m, const struct an_opts *o,
		 void (*progress)(void *arg, const struct an_merge_part *p, size_t i, size_t n), void *arg);

/* The NUMA view (the result's numa) merges the files' views: each
 * process on a machine of its own, node k of the merge node k of each,
 * objects by row, threads appended, times each process's own (ns since
 * its first placed access), each file's findings kept on the merged
 * object. Files placed on different machines (node or CPU count) or
 * measured and modelled together do not merge: an_merge_run fails with
 * -EXDEV and this says which two parts (1, *a and *b set; else 0). */
int an_merge_numa_conflict(const struct an_merge *m, size_t *a, size_t *b);

/* The merged result (valid until an_merge_free); NULL before an_merge_run. */
const struct an_result *an_merge_result(const struct an_merge *m);

/* How a merged row's accesses spread over the parts that were read. */
struct an_spread {
	size_t n; /* parts counted (those read) */
	uint64_t min, max;
	uint64_t median2; /* twice the median: the median of an even count is the mean of two */
	size_t top; /* the part with the most (the lowest rank on a tie); SIZE_MAX when n is 0 */
};
/* Spread of the accesses of merged row cls (an index into the result's
 * classes) over the parts. */
void an_merge_spread(const struct an_merge *m, size_t cls, struct an_spread *out);
/* The part's accesses to merged row cls. */
uint64_t an_merge_part_accesses(const struct an_merge *m, size_t cls, size_t part);

#endif
