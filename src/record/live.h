/* SPDX-License-Identifier: MIT */
/*
 * The launcher's end of the runtime's shared buffers (common/mp_live.h
 * says why and how): what a process that is gone had recorded and not
 * written is appended to the data file, its regions freed. Library code:
 * prints nothing.
 */
#ifndef MP_RECORD_LIVE_H
#define MP_RECORD_LIVE_H

#include <stdint.h>

struct mp_live_arena;

/* A memfd of this process's holding MP_LIVE_REGIONS regions (pages exist
 * once a thread touches them), fewer under a file size limit. 0 and
 * *out, or -errno (-EFBIG: the limit leaves room for too few). */
int mp_live_open(struct mp_live_arena **out);

/* The path the runtime opens it by (/proc/PID/fd/N: valid while this
 * process lives). */
const char *mp_live_path(const struct mp_live_arena *a);

/* Appends to fd (O_APPEND), as STREAM chunks in each thread's order, what
 * the filling or queued buffers of processes that are gone still hold
 * (with all set: of every process: nothing runs any more), and frees
 * their regions (fd -1: frees them, appends nothing). Chunks appended are
 * added to *chunks. 0, or the -errno of a failed write (the region
 * stays). */
int mp_live_collect(struct mp_live_arena *a, int fd, int all, uint64_t *chunks);

void mp_live_close(struct mp_live_arena *a); /* NULL: nothing */

#endif
