// SPDX-License-Identifier: MIT
/* The launcher's end of the Valgrind tool's ring (see vg_ring.h). */
#include "record/vg_ring.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/mp_vgring.h"

struct mp_vg_ring {
	int fd;
	struct mp_vgring *g;
	size_t size;
	uint64_t next; /* the ticket to hand over next */
	uint64_t stalled_ns; /* when `next` was first missed while later ones waited (0: not) */
	char path[64];
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int mp_vg_ring_open(unsigned nslots, struct mp_vg_ring **out)
{
	if (nslots < 1 || nslots > MP_VGRING_MAX_SLOTS)
		return -EINVAL;
	struct mp_vg_ring *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	size_t data_off = (sizeof(struct mp_vgring) + 4095) & ~(size_t)4095;
	r->size = data_off + (size_t)nslots * MP_VGRING_SLOT_BYTES;
	/* (close-on-exec: the tool opens it by path, the program never sees it) */
	r->fd = memfd_create("memprism-vg-ring", MFD_CLOEXEC);
	int err = r->fd < 0 || ftruncate(r->fd, (off_t)r->size) != 0 ? -errno : 0;
	if (!err) {
		void *p = mmap(NULL, r->size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
		if (p == MAP_FAILED)
			err = -errno;
		else
			r->g = p;
	}
	if (err) {
		if (r->fd >= 0)
			close(r->fd);
		free(r);
		return err;
	}
	struct mp_vgring *g = r->g; /* (a new memfd reads as zeros: every slot FREE) */
	g->nslots = nslots;
	g->slot_bytes = MP_VGRING_SLOT_BYTES;
	g->data_off = data_off;
	g->launcher_pid = (uint32_t)getpid();
	g->version = MP_VGRING_VERSION;
	__atomic_store_n(&g->magic, MP_VGRING_MAGIC, __ATOMIC_RELEASE);
	snprintf(r->path, sizeof(r->path), "/proc/%d/fd/%d", (int)getpid(), r->fd);
	*out = r;
	return 0;
}

const char *mp_vg_ring_path(const struct mp_vg_ring *r)
{
	return r->path;
}

/* The READY slot holding ticket t, or the READY one with the lowest
 * ticket above it (*later; -1 if none). -1 if t is not ready. */
static int find_ticket(const struct mp_vgring *g, uint64_t t, int *later)
{
	int at = -1;
	*later = -1;
	for (unsigned i = 0; i < g->nslots; i++) {
		const struct mp_vgring_slot *s = &g->slot[i];
		if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != MP_VGRING_READY)
			continue;
		if (s->ticket == t)
			at = (int)i;
		else if (s->ticket > t && (*later < 0 || s->ticket < g->slot[*later].ticket))
			*later = (int)i;
	}
	return at;
}

static void wake_producers(struct mp_vgring *g)
{
	__atomic_add_fetch(&g->freed, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &g->freed, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* Closes the slots no producer holds, and waits a little for those being
 * filled: after this no chunk can come in unseen. */
static void close_slots(struct mp_vgring *g)
{
	for (int round = 0; round < 100; round++) {
		unsigned busy = 0;
		for (unsigned i = 0; i < g->nslots; i++) {
			uint32_t want = MP_VGRING_FREE;
			__atomic_compare_exchange_n(&g->slot[i].state, &want, MP_VGRING_CLOSED, 0, __ATOMIC_ACQ_REL,
						    __ATOMIC_ACQUIRE);
			busy += __atomic_load_n(&g->slot[i].state, __ATOMIC_ACQUIRE) == MP_VGRING_FILLING;
		}
		if (!busy)
			return;
		struct timespec ts = { 0, 1000000 }; /* (a producer copies a megabyte) */
		nanosleep(&ts, NULL);
	}
}

int mp_vg_ring_drain(struct mp_vg_ring *r, int final, mp_vg_ring_put put, void *arg, uint64_t *bytes)
{
	struct mp_vgring *g = r->g;
	if (final)
		close_slots(g);
	int freed = 0, err = 0;
	for (;;) {
		int later, i = find_ticket(g, r->next, &later);
		if (i < 0) {
			if (later < 0)
				break;
			/* A later chunk is ready but not this one: its producer
			 * is between taking the ticket and marking the slot, or
			 * was killed there. Skipped at the end, or after a second
			 * of waiting for it. */
			uint64_t now = final ? 0 : now_ns();
			if (!final && !r->stalled_ns)
				r->stalled_ns = now;
			if (!final && now - r->stalled_ns < 1000000000ull)
				break;
			r->next = g->slot[later].ticket;
			continue;
		}
		r->stalled_ns = 0;
		struct mp_vgring_slot *s = &g->slot[i];
		const uint8_t *chunk = (const uint8_t *)g + g->data_off + (size_t)i * g->slot_bytes;
		if (s->len > g->slot_bytes || (err = put(arg, chunk, s->len)) != 0)
			break;
		*bytes += s->len;
		r->next++;
		__atomic_store_n(&s->state, final ? MP_VGRING_CLOSED : MP_VGRING_FREE, __ATOMIC_RELEASE);
		freed = 1;
	}
	if (freed || final)
		wake_producers(g);
	return err;
}

void mp_vg_ring_close(struct mp_vg_ring *r)
{
	if (!r)
		return;
	munmap(r->g, r->size);
	close(r->fd);
	free(r);
}
