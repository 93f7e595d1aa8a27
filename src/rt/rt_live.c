// SPDX-License-Identifier: MIT
/* The threads' buffers in the launcher's shared memory (rt_live.h). */
#include "rt/rt_live.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/mp_env.h"
#include "rt/rt_proc.h"

static struct mp_live *rt_live_head; /* NULL: no shared buffers */
static char rt_live_path[128];

/* (opened again at each claim rather than kept: a program may close
 * every descriptor it did not open) */
static int live_open(void)
{
	return open(rt_live_path, O_RDWR | O_CLOEXEC);
}

static uint32_t regions_used(const struct mp_live *g)
{
	uint32_t n = __atomic_load_n(&g->used, __ATOMIC_ACQUIRE);
	return n < g->nregions ? n : g->nregions;
}

void rt_live_attach(void)
{
	const char *path = secure_getenv(MP_ENV_LIVE);
	if (!path || !*path || strlen(path) >= sizeof(rt_live_path))
		return;
	memcpy(rt_live_path, path, strlen(path) + 1);
	int fd = live_open();
	if (fd < 0)
		return;
	void *h = rt_real.mmap(NULL, sizeof(struct mp_live), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	struct mp_live *g = h == MAP_FAILED ? NULL : h;
	if (g && (__atomic_load_n(&g->magic, __ATOMIC_ACQUIRE) != MP_LIVE_MAGIC || g->version != MP_LIVE_VERSION ||
		  g->nregions > MP_LIVE_REGIONS || g->region_bytes < MP_LIVE_REGION_BYTES ||
		  g->data_off < sizeof(*g))) {
		rt_real.munmap(h, sizeof(struct mp_live));
		g = NULL;
	}
	rt_live_head = g;
	/* an image after exec: what its pid retired before was the old
	 * image's, whose threads the exec ended. A free region reads as
	 * zeros (a claim finds empty caches): its pages go first. */
	const uint64_t old = mp_live_owner(MP_LIVE_RETIRED, (uint32_t)getpid());
	for (uint32_t i = 0, n = g ? regions_used(g) : 0; i < n; i++) {
		uint64_t o = old;
		if (__atomic_load_n(&g->region[i].owner, __ATOMIC_RELAXED) == old &&
		    fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      (off_t)(g->data_off + (uint64_t)i * g->region_bytes), (off_t)g->region_bytes) == 0)
			__atomic_compare_exchange_n(&g->region[i].owner, &o, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
	}
	close(fd);
}

/* A free region's index, now OWNED by pid; -1 if none. */
static int claim_index(struct mp_live *g, uint32_t pid)
{
	const uint64_t mine = mp_live_owner(MP_LIVE_OWNED, pid);
	for (;;) {
		for (uint32_t i = 0, n = regions_used(g); i < n; i++) {
			uint64_t z = 0;
			if (__atomic_load_n(&g->region[i].owner, __ATOMIC_RELAXED) == 0 &&
			    __atomic_compare_exchange_n(&g->region[i].owner, &z, mine, 0, __ATOMIC_ACQ_REL,
							__ATOMIC_RELAXED))
				return (int)i;
		}
		uint32_t i = __atomic_fetch_add(&g->used, 1, __ATOMIC_ACQ_REL);
		if (i >= g->nregions)
			return -1; /* (used stays past the end: scans stop at nregions) */
		uint64_t z = 0;
		if (__atomic_compare_exchange_n(&g->region[i].owner, &z, mine, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			return (int)i;
	}
}

uint8_t *rt_live_claim(struct rt_thread *t, size_t len)
{
	struct mp_live *g = rt_live_head;
	if (!g || len > g->region_bytes)
		return NULL;
	int i = claim_index(g, (uint32_t)getpid());
	if (i < 0)
		return NULL;
	struct mp_live_region *r = &g->region[i];
	int fd = live_open();
	void *m = fd < 0 ? MAP_FAILED
			 : rt_real.mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
					(off_t)(g->data_off + (uint64_t)i * g->region_bytes));
	if (fd >= 0)
		close(fd);
	if (m == MAP_FAILED) {
		__atomic_store_n(&r->owner, 0, __ATOMIC_RELEASE);
		return NULL;
	}
	r->proc_id = rt_proc.id;
	r->tid = (uint32_t)t->tid & MP_TID_MASK;
	for (int b = 0; b < 2; b++)
		r->buf[b] = (struct mp_live_buf){ .state = MP_LIVE_EMPTY,
						  .off = (uint32_t)b * (RT_BUF_SIZE + RT_BUF_SLACK) };
	t->live = r;
	return m;
}

void rt_live_free(struct rt_thread *t, uint8_t *m, size_t len)
{
	struct mp_live_region *r = t->live;
	t->live = NULL;
	/* its pages back to the system, as a private mapping's; and a free
	 * region reads as zeros */
	if (madvise(m, len, MADV_REMOVE) != 0)
		rt_real.memset(m, 0, len);
	rt_real.munmap(m, len);
	if (r)
		__atomic_store_n(&r->owner, 0, __ATOMIC_RELEASE);
}

void rt_live_retire(struct rt_thread *t)
{
	if (t->live)
		__atomic_store_n(&t->live->owner, mp_live_owner(MP_LIVE_RETIRED, (uint32_t)getpid()),
				 __ATOMIC_RELEASE);
}

int rt_live_renew(struct rt_thread *t, uint8_t *m, size_t len)
{
	if (!t->live)
		return 0;
	t->live = NULL;
	uint8_t *n = rt_live_claim(t, len);
	if (!n) {
		n = rt_real.mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (n == MAP_FAILED)
			n = NULL;
	}
	/* in the place of the parent's region, so that the thread's pointers
	 * stay: zeros, as a new thread's (its caches empty; the caller starts
	 * a chunk), not a copy of what the parent wrote there, which would
	 * touch every page */
	if (n) {
		if (rt_real.mremap(n, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, m) != MAP_FAILED)
			return 0;
		struct mp_live_region *r = t->live;
		t->live = NULL;
		rt_real.munmap(n, len);
		if (r)
			__atomic_store_n(&r->owner, 0, __ATOMIC_RELEASE);
	}
	/* whatever the child writes must not reach the parent's buffers:
	 * private memory there, the records gone (the caller stops) */
	rt_real.mmap(m, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	return -1;
}
