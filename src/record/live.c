// SPDX-License-Identifier: MIT
/* The launcher's end of the runtime's shared buffers (see live.h). */
#include "record/live.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zstd.h>

#include "common/mp_env.h"
#include "common/mp_live.h"
#include "trace/trace_format.h"
#include "trace/trace_writer.h"

#define LIVE_BUF_MAX ((1u << 20) + 4096) /* the most a runtime buffer holds (rt_int.h: RT_BUF_SIZE + RT_BUF_SLACK) */

struct mp_live_arena {
	int fd;
	struct mp_live *g;
	/* the geometry, kept here: the program can write over the shared
	 * header, and this process must not read past it on its word */
	uint32_t nregions;
	ZSTD_CCtx *cctx;
	int level;
	uint8_t *payload, *chunk;
	char path[64];
};

int mp_live_open(struct mp_live_arena **out)
{
	struct mp_live_arena *a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	/* as many regions as a file may hold here: ftruncate past the file
	 * size limit (ulimit -f) would be SIGXFSZ, which ends this process */
	uint64_t nregions = MP_LIVE_REGIONS;
	struct rlimit fl;
	if (getrlimit(RLIMIT_FSIZE, &fl) == 0 && fl.rlim_cur != RLIM_INFINITY)
		nregions = fl.rlim_cur < MP_LIVE_DATA_OFF ? 0 : (fl.rlim_cur - MP_LIVE_DATA_OFF) / MP_LIVE_REGION_BYTES;
	if (nregions > MP_LIVE_REGIONS)
		nregions = MP_LIVE_REGIONS;
	if (nregions < 16) {
		free(a);
		return -EFBIG;
	}
	/* (close-on-exec: the runtime opens it by path, the program never sees it) */
	a->fd = memfd_create("memprism-live", MFD_CLOEXEC);
	const uint64_t size = MP_LIVE_DATA_OFF + nregions * MP_LIVE_REGION_BYTES;
	int err = a->fd < 0 || ftruncate(a->fd, (off_t)size) != 0 ? -errno : 0;
	if (!err) {
		void *p = mmap(NULL, sizeof(struct mp_live), PROT_READ | PROT_WRITE, MAP_SHARED, a->fd, 0);
		if (p == MAP_FAILED)
			err = -errno;
		else
			a->g = p;
	}
	if (err) {
		mp_live_close(a);
		return err;
	}
	struct mp_live *g = a->g; /* (a new memfd reads as zeros: every region FREE) */
	g->version = MP_LIVE_VERSION;
	g->nregions = a->nregions = (uint32_t)nregions;
	g->region_bytes = MP_LIVE_REGION_BYTES;
	g->data_off = MP_LIVE_DATA_OFF;
	__atomic_store_n(&g->magic, MP_LIVE_MAGIC, __ATOMIC_RELEASE);
	/* chunks as the runtime makes them (its zstd level); one it wrote
	 * just before it was killed, still marked queued or filling, comes
	 * out twice, and readers take its records once (an_index.c) */
	const char *lv = getenv(MP_ENV_ZSTD_LEVEL);
	a->level = lv && *lv ? atoi(lv) : 1;
	snprintf(a->path, sizeof(a->path), "/proc/%d/fd/%d", (int)getpid(), a->fd);
	*out = a;
	return 0;
}

const char *mp_live_path(const struct mp_live_arena *a)
{
	return a->path;
}

static int gone(uint32_t pid)
{
	return pid == 0 || (kill((pid_t)pid, 0) != 0 && errno == ESRCH);
}

/* Buffer b of region i as one chunk, appended to fd: 1, 0 if its bounds
 * are not a buffer's, or -errno. */
static int put_buffer(struct mp_live_arena *a, uint32_t i, const struct mp_live_region *r,
		      const struct mp_live_buf *b, uint32_t pid, int fd)
{
	/* (the program could have written anything here: bounds checked) */
	if (b->len > LIVE_BUF_MAX || b->off > MP_LIVE_REGION_BYTES - b->len)
		return 0;
	if (!a->payload && !(a->payload = malloc(LIVE_BUF_MAX)))
		return -ENOMEM;
	if (!a->chunk && !(a->chunk = malloc(trace_chunk_bound(LIVE_BUF_MAX))))
		return -ENOMEM;
	if (!a->cctx && !(a->cctx = ZSTD_createCCtx()))
		return -ENOMEM;
	off_t at = (off_t)(MP_LIVE_DATA_OFF + (uint64_t)i * MP_LIVE_REGION_BYTES + b->off);
	if (pread(a->fd, a->payload, b->len, at) != (ssize_t)b->len)
		return 0; /* (within the memfd: cannot happen) */
	struct mp_chunk_header h;
	memset(&h, 0, sizeof(h));
	h.type = MP_CHUNK_STREAM;
	h.pid = pid;
	h.tid = r->tid & MP_TID_MASK;
	h.proc_id = r->proc_id;
	h.seq = b->seq;
	h.accesses = b->state == MP_LIVE_QUEUED ? b->accesses : 0;
	size_t n = trace_chunk_build(&h, a->payload, b->len, a->chunk, a->cctx, a->level);
	int err = trace_write_all(fd, a->chunk, n);
	return err ? err : 1;
}

/* Region i's buffers that hold records not in the file, in seq order. */
static int put_region(struct mp_live_arena *a, uint32_t i, uint32_t pid, int fd, uint64_t *chunks)
{
	if (fd < 0)
		return 0;
	struct mp_live_region *r = &a->g->region[i];
	const struct mp_live_buf *b[2];
	unsigned n = 0;
	for (int k = 0; k < 2; k++) {
		const struct mp_live_buf *x = &r->buf[k];
		uint32_t s = __atomic_load_n(&x->state, __ATOMIC_ACQUIRE);
		if ((s == MP_LIVE_FILLING || s == MP_LIVE_QUEUED) && x->len)
			b[n++] = x;
	}
	if (n == 2 && b[1]->seq < b[0]->seq) {
		const struct mp_live_buf *t = b[0];
		b[0] = b[1];
		b[1] = t;
	}
	for (unsigned k = 0; k < n; k++) {
		int put = put_buffer(a, i, r, b[k], pid, fd);
		if (put < 0)
			return put;
		*chunks += (unsigned)put;
	}
	return 0;
}

int mp_live_collect(struct mp_live_arena *a, int fd, int all, uint64_t *chunks)
{
	if (!a)
		return 0;
	struct mp_live *g = a->g;
	uint32_t used = __atomic_load_n(&g->used, __ATOMIC_ACQUIRE);
	if (used > a->nregions)
		used = a->nregions;
	uint32_t last_pid = 0; /* (a process's regions are mostly together: one kill(2) for them) */
	int last_gone = 0;
	for (uint32_t i = 0; i < used; i++) {
		struct mp_live_region *r = &g->region[i];
		uint64_t owner = __atomic_load_n(&r->owner, __ATOMIC_ACQUIRE);
		const uint32_t pid = (uint32_t)owner;
		if (!owner)
			continue;
		if (!all && pid != last_pid) {
			last_pid = pid;
			last_gone = gone(pid);
		}
		if (!all && !last_gone)
			continue;
		int err = put_region(a, i, pid, fd, chunks);
		if (err)
			return err;
		memset(r->buf, 0, sizeof(r->buf));
		/* its pages back to the system (nothing maps them any more) */
		fallocate(a->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			  (off_t)(MP_LIVE_DATA_OFF + (uint64_t)i * MP_LIVE_REGION_BYTES), (off_t)MP_LIVE_REGION_BYTES);
		__atomic_compare_exchange_n(&r->owner, &owner, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
	}
	return 0;
}

void mp_live_close(struct mp_live_arena *a)
{
	if (!a)
		return;
	if (a->g)
		munmap(a->g, sizeof(struct mp_live));
	if (a->fd >= 0)
		close(a->fd);
	ZSTD_freeCCtx(a->cctx);
	free(a->payload);
	free(a->chunk);
	free(a);
}
