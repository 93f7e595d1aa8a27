/* SPDX-License-Identifier: MIT */
/*
 * A data file's raw stream chunks compressed by the launcher, while the
 * program runs and after. Memprism's Valgrind tool writes its chunks raw
 * (it links no zstd, and compressing on the simulated CPU would be the
 * program's time): about two bytes an access, gigabytes a minute. Valgrind
 * runs the program on one core; the launcher, idle, copies the file as it
 * grows into a new one beside it, each raw STREAM chunk compressed (the
 * runtime's own chunks, compressed already, and every other chunk as they
 * are), and at the end puts the copy in the file's place. A reader sees
 * the same records. Library code: prints nothing.
 */
#ifndef MP_RECORD_COMPACT_H
#define MP_RECORD_COMPACT_H

#include <stddef.h>
#include <stdint.h>

struct mp_compact;

/* Starts copying the data file at path (its header written already),
 * zstd at level. 0 and *out, or -errno (nothing left behind). */
int mp_compact_open(const char *path, int level, struct mp_compact **out);

/* Copies the whole chunks the file holds now, at most max_bytes of it
 * (0: no bound). 0 all copied, 1 stopped at the bound, or -errno: then
 * call mp_compact_abort. */
int mp_compact_step(struct mp_compact *c, uint64_t max_bytes);

/* The writers are done: copies the rest (from a chunk that does not
 * check, the bytes as they are: a reader stops there as it would have)
 * and the header again (a failed write marks it), and puts the copy in
 * the file's place. *raw and *stored get the file's size before and after.
 * 0, or -errno with the file as it was. Frees c either way. */
int mp_compact_finish(struct mp_compact *c, uint64_t *raw, uint64_t *stored);

/* A whole chunk from memory (the Valgrind tool's ring, vg_ring.h), not
 * in the file: into the copy as copied chunks go. 0, or -errno (-EINVAL:
 * not a chunk that checks). */
int mp_compact_put(struct mp_compact *c, const uint8_t *chunk, size_t len);

/* Drops the copy, but first appends to fd (the data file, O_APPEND) what
 * mp_compact_put put in it, which the file lacks. 0 or -errno; frees c. */
int mp_compact_abort_into(struct mp_compact *c, int fd);

/* Drops the copy; the file stays as it is. Frees c (NULL: nothing). */
void mp_compact_abort(struct mp_compact *c);

#endif
