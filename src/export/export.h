/* SPDX-License-Identifier: MIT */
/*
 * Exports of an analysed trace for the tools users already have: an SQLite
 * database (objects, threads, functions, accesses or binned accesses,
 * allocations, regions), Paraver trace files (.prv/.pcf/.row, the
 * format of the BSC performance tools) and DHAT's JSON file (Valgrind's
 * dh_view.html). Each export replays the trace itself
 * (an_run) with its own stream hooks. Libraries never print: failures come
 * back as a negative errno / MP_ERR_* and a message in err.
 */
#ifndef MP_EXPORT_H
#define MP_EXPORT_H

#include <stddef.h>

#include "analysis/analysis.h"

struct ex_opts {
	const char *data_path; /* memprism.data to read */
	const char *roi; /* as report --roi (NULL: all accesses) */
	int binned; /* sqlite: access_bins (time x address grids) instead of every access */
	const char *const *wrappers; /* allocation wrappers and functions never one, as an_opts */
	size_t nwrappers;
	const char *const *not_wrappers;
	size_t nnot_wrappers;
	int lib_sites; /* as an_opts */
	int context; /* as an_opts */
	/* called with the result of the replay before it is freed (NULL:
	 * none): how the caller learns of a damaged file's warnings */
	void (*on_result)(void *arg, const struct an_result *res);
	void *result_arg;
	/* several files (ex_*_write_many): called with each file's result (NULL
	 * when it could not be read, err its error) before it is freed */
	void (*on_file)(void *arg, const char *path, const struct an_result *res, int err);
	/* several files (ex_*_write_many): replayed this many at once (0, 1: one
	 * after the other; an_jobs.h), the same files written */
	unsigned jobs;
};

/* Writes the database db (replaced if it exists). 0, or a negative error
 * with a message in err (OUT). */
int ex_sqlite_write(const char *db, const struct ex_opts *o, char *err, size_t errlen);

/* Writes PREFIX.prv, PREFIX.pcf and PREFIX.row: every counted access as a
 * Paraver event record of its thread (object, address, load/store) at its
 * interpolated time. 0, or a negative error with a message in err. */
int ex_paraver_write(const char *prefix, const struct ex_opts *o, char *err, size_t errlen);

/* The Paraver trace of several data files (an MPI job's ranks; docs/mpi.md),
 * as Extrae writes a job: one application, a task per process (rank order),
 * a node per file (named nodes[i], NULL: the file's path) with its own CPUs.
 * Each file's records keep their time from its own first record (one clock
 * per process); objects and regions are named once, merged by label (the
 * ranks' stacks by kind, as the merged report's rows). A file that cannot
 * be read is told to o->on_file and left out. 0, or a negative error with
 * a message in err (-ENODATA: no file could be read). */
int ex_paraver_write_many(const char *prefix, const struct ex_opts *o, const char *const *files,
			  const char *const *nodes, size_t n, char *err, size_t errlen);

/* Writes path as DHAT's JSON (format version 2): one program point per
 * heap row, with its blocks, bytes, reads and writes (bytes), lifetimes
 * and live bytes at its maximum, at the heap's maximum and at the end.
 * 0, or a negative error with a message in err. */
int ex_dhat_write(const char *path, const struct ex_opts *o, char *err, size_t errlen);

/* DHAT's JSON of several data files (an MPI job's ranks; docs/mpi.md):
 * each replayed (o->jobs at once) and its program points folded in, in order, keyed by their
 * frames without addresses (function, file and line), so each process's
 * load address does not split a point. Blocks, bytes, reads, writes and
 * lifetimes add up; mb/mbk and gb/gbk are the sums of each process's own
 * maximum and of its figures at its own heap maximum (each process's heap
 * is its own); te is the longest run's, tg the time of the largest
 * process heap's maximum, each in that process's time; cmd and pid the
 * first file's. A file that cannot be read is told to o->on_file and left
 * out. 0, or a negative error with a message in err (-ENODATA: no file
 * could be read). */
int ex_dhat_write_many(const char *path, const struct ex_opts *o, const char *const *files, size_t n, char *err,
		       size_t errlen);

#endif
