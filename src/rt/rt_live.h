/* SPDX-License-Identifier: MIT */
/*
 * The threads' buffers in the launcher's shared memory (common/mp_live.h):
 * claimed and freed here; each buffer's state kept as it changes, so that
 * after a SIGKILL the launcher appends what was committed and not written.
 */
#ifndef MP_RT_LIVE_H
#define MP_RT_LIVE_H

#include "common/mp_live.h"
#include "rt/rt_int.h"

void rt_live_attach(void); /* MEMPRISM_LIVE: map the header (start-up; after exec, free the old image's) */
/* A region for t's mapping of len bytes (t->live set), or NULL: none (no
 * arena, all claimed, or no mapping): the caller maps private memory. */
uint8_t *rt_live_claim(struct rt_thread *t, size_t len);
void rt_live_free(struct rt_thread *t, uint8_t *m, size_t len); /* thread end: unmapped, free */
void rt_live_retire(struct rt_thread *t); /* exit or exec: its region is no longer written */
/* A fork child: the forking thread's mapping m (len bytes) is replaced,
 * in place, by a region of the child's own (or private memory) reading as
 * zeros: it must not write the parent's. The caller starts a chunk and
 * empties the caches. 0, or -1 (recording stops). */
int rt_live_renew(struct rt_thread *t, uint8_t *m, size_t len);

/* t's buffer `cur` starts its chunk seq: nothing committed yet. */
static inline void rt_live_begin(struct rt_thread *t)
{
	struct mp_live_buf *b;
	if (!t->live)
		return;
	b = &t->live->buf[t->cur];
	b->seq = t->seq;
	b->len = 0;
	b->accesses = 0;
	__atomic_store_n(&b->state, MP_LIVE_FILLING, __ATOMIC_RELEASE);
}

/* The buffer's records up to p are whole (an event ended there). */
static inline void rt_live_commit(struct rt_thread *t, const uint8_t *p)
{
	if (t->live)
		__atomic_store_n(&t->live->buf[t->cur].len, (uint32_t)(p - t->buf), __ATOMIC_RELEASE);
}

/* Buffer `cur` goes to the writer as a chunk of len bytes. */
static inline struct mp_live_buf *rt_live_queue(struct rt_thread *t, size_t len, uint32_t accesses)
{
	struct mp_live_buf *b;
	if (!t->live)
		return NULL;
	b = &t->live->buf[t->cur];
	b->len = (uint32_t)len;
	b->accesses = accesses;
	__atomic_store_n(&b->state, MP_LIVE_QUEUED, __ATOMIC_RELEASE);
	return b;
}

/* A buffer's chunk is in the file. */
static inline void rt_live_written(struct mp_live_buf *b)
{
	if (b)
		__atomic_store_n(&b->state, MP_LIVE_EMPTY, __ATOMIC_RELEASE);
}

#endif
