// SPDX-License-Identifier: MIT
/* The launcher's end of the Valgrind tool's ring (record/vg_ring.h): chunks
 * are handed over in ticket order whatever slots they lie in, a ticket not
 * ready yet holds the later ones back until the end, the end closes every
 * slot (a producer still running then finds none), a failed put leaves the
 * chunk for the next drain; producers on threads, as the tool's processes
 * are, lose nothing and keep each one's order. Chunks the ring put into
 * the launcher's compressed copy reach the file when the copy is dropped
 * (record stopped waiting for processes left running). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "common/mp_vgring.h"
#include "record/compact.h"
#include "record/vg_ring.h"
#include "trace/trace_reader.h"
#include "trace/trace_writer.h"

/* The ring as the tool sees it: mapped again by its path. */
static struct mp_vgring *map_by_path(const struct mp_vg_ring *r, size_t *size)
{
	int fd = open(mp_vg_ring_path(r), O_RDWR);
	CHECK(fd >= 0);
	off_t n = lseek(fd, 0, SEEK_END);
	CHECK(n > 0);
	void *p = mmap(NULL, (size_t)n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED);
	close(fd);
	*size = (size_t)n;
	return p;
}

static uint8_t *slot_bytes(struct mp_vgring *g, unsigned i)
{
	return (uint8_t *)g + g->data_off + (size_t)i * g->slot_bytes;
}

/* Slot i holds a chunk of n bytes, all v, under ticket t, ready or not. */
static void place(struct mp_vgring *g, unsigned i, uint64_t t, size_t n, uint8_t v, uint32_t state)
{
	memset(slot_bytes(g, i), v, n);
	g->slot[i].len = (uint32_t)n;
	g->slot[i].ticket = t;
	__atomic_store_n(&g->slot[i].state, state, __ATOMIC_RELEASE);
}

struct seen {
	uint8_t v[64];
	size_t n;
	int fail_at; /* the put of this index fails (-1: none) */
};

static int collect(void *arg, const uint8_t *chunk, size_t len)
{
	struct seen *s = arg;
	if ((int)s->n == s->fail_at)
		return -ENOSPC;
	CHECK(len > 0);
	for (size_t k = 1; k < len; k++)
		CHECK_EQ(chunk[k], chunk[0]);
	s->v[s->n++] = chunk[0];
	return 0;
}

static void test_order(void)
{
	struct mp_vg_ring *r;
	CHECK_EQ(mp_vg_ring_open(0, &r), -EINVAL);
	CHECK_EQ(mp_vg_ring_open(MP_VGRING_MAX_SLOTS + 1, &r), -EINVAL);
	CHECK_EQ(mp_vg_ring_open(6, &r), 0);
	size_t size;
	struct mp_vgring *g = map_by_path(r, &size);
	CHECK_EQ(g->magic, MP_VGRING_MAGIC);
	CHECK_EQ(g->version, MP_VGRING_VERSION);
	CHECK_EQ(g->nslots, 6u);
	CHECK_EQ(g->slot_bytes, MP_VGRING_SLOT_BYTES);
	CHECK_EQ(g->launcher_pid, (uint32_t)getpid());
	CHECK(g->data_off >= sizeof(*g) && g->data_off + 6ull * g->slot_bytes <= size);

	/* tickets 2, 0, 1 in slots 0, 3, 5; ticket 4 ready but 3 not */
	place(g, 0, 2, 100, 'c', MP_VGRING_READY);
	place(g, 3, 0, 5000, 'a', MP_VGRING_READY);
	place(g, 5, 1, 1, 'b', MP_VGRING_READY);
	place(g, 1, 4, 10, 'e', MP_VGRING_READY);
	place(g, 2, 3, 10, 'd', MP_VGRING_FILLING);
	struct seen s = { .fail_at = -1 };
	uint64_t bytes = 0;
	uint32_t freed = g->freed;
	CHECK_EQ(mp_vg_ring_drain(r, 0, collect, &s, &bytes), 0);
	CHECK_EQ(s.n, 3u);
	CHECK(!memcmp(s.v, "abc", 3));
	CHECK_EQ(bytes, 5101u);
	CHECK_EQ(g->slot[0].state, MP_VGRING_FREE);
	CHECK_EQ(g->slot[3].state, MP_VGRING_FREE);
	CHECK_EQ(g->slot[1].state, MP_VGRING_READY); /* (held back behind ticket 3) */
	CHECK(g->freed != freed); /* producers waiting on a full ring are woken */

	/* ticket 3 ready: 3 then 4; a failed put keeps the chunk for later */
	place(g, 2, 3, 10, 'd', MP_VGRING_READY);
	s.fail_at = 4;
	CHECK_EQ(mp_vg_ring_drain(r, 0, collect, &s, &bytes), -ENOSPC);
	CHECK_EQ(s.n, 4u);
	CHECK_EQ(g->slot[1].state, MP_VGRING_READY);
	s.fail_at = -1;
	CHECK_EQ(mp_vg_ring_drain(r, 0, collect, &s, &bytes), 0);
	CHECK_EQ(s.n, 5u);
	CHECK(!memcmp(s.v, "abcde", 5));

	/* the end: ticket 5 was taken by a producer killed before it made it
	 * ready; 6 and 7 go, past it, and every slot is closed */
	place(g, 4, 7, 10, 'g', MP_VGRING_READY);
	place(g, 0, 6, 10, 'f', MP_VGRING_READY);
	CHECK_EQ(mp_vg_ring_drain(r, 0, collect, &s, &bytes), 0);
	CHECK_EQ(s.n, 5u); /* (not before the end, nor before a second has passed) */
	CHECK_EQ(mp_vg_ring_drain(r, 1, collect, &s, &bytes), 0);
	CHECK_EQ(s.n, 7u);
	CHECK(!memcmp(s.v, "abcdefg", 7));
	for (unsigned i = 0; i < 6; i++)
		CHECK_EQ(g->slot[i].state, MP_VGRING_CLOSED);
	munmap(g, size);
	mp_vg_ring_close(r);
}

/* A producer as the tool's (src/vgtool/vgt_stream.c, ring_put): claim a
 * free slot, copy, take a ticket, mark it ready; wait while none is free. */
struct producer {
	struct mp_vgring *g;
	uint8_t id;
	unsigned chunks;
	unsigned closed; /* chunks that found the ring closed */
};

static void *produce(void *arg)
{
	struct producer *p = arg;
	struct mp_vgring *g = p->g;
	for (unsigned c = 0; c < p->chunks; c++) {
		for (int done = 0; !done;) {
			for (unsigned i = 0; i < g->nslots && !done; i++) {
				uint32_t want = MP_VGRING_FREE, st = __atomic_load_n(&g->slot[i].state, __ATOMIC_RELAXED);
				if (st == MP_VGRING_CLOSED) {
					p->closed++;
					done = 1;
					break;
				}
				if (st != MP_VGRING_FREE ||
				    !__atomic_compare_exchange_n(&g->slot[i].state, &want, MP_VGRING_FILLING, 0,
								 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
					continue;
				/* (id, then the chunk's number: each producer's order is checked) */
				uint8_t *b = slot_bytes(g, i);
				b[0] = p->id;
				memcpy(b + 1, &c, sizeof(c));
				g->slot[i].len = 1 + sizeof(c);
				g->slot[i].ticket = __atomic_fetch_add(&g->ticket, 1, __ATOMIC_RELAXED);
				__atomic_store_n(&g->slot[i].state, MP_VGRING_READY, __ATOMIC_RELEASE);
				done = 1;
			}
			if (!done)
				sched_yield();
		}
	}
	return NULL;
}

struct order {
	unsigned next[4];
	unsigned total;
};

static int in_order(void *arg, const uint8_t *chunk, size_t len)
{
	struct order *o = arg;
	unsigned c;
	CHECK_EQ(len, 1 + sizeof(c));
	memcpy(&c, chunk + 1, sizeof(c));
	CHECK(chunk[0] < 4);
	CHECK_EQ(c, o->next[chunk[0]]);
	o->next[chunk[0]]++;
	o->total++;
	return 0;
}

static void test_producers(void)
{
	struct mp_vg_ring *r;
	CHECK_EQ(mp_vg_ring_open(3, &r), 0);
	size_t size;
	struct mp_vgring *g = map_by_path(r, &size);
	struct producer p[4];
	pthread_t th[4];
	for (int i = 0; i < 4; i++) {
		p[i] = (struct producer){ g, (uint8_t)i, 2000, 0 };
		CHECK_EQ(pthread_create(&th[i], NULL, produce, &p[i]), 0);
	}
	struct order o = { { 0 }, 0 };
	uint64_t bytes = 0;
	while (o.total < 8000)
		CHECK_EQ(mp_vg_ring_drain(r, 0, in_order, &o, &bytes), 0);
	for (int i = 0; i < 4; i++) {
		CHECK_EQ(pthread_join(th[i], NULL), 0);
		CHECK_EQ(o.next[i], 2000u);
		CHECK_EQ(p[i].closed, 0u);
	}
	CHECK_EQ(bytes, 8000u * 5);
	/* closed: a producer now finds no slot and writes the file itself */
	CHECK_EQ(mp_vg_ring_drain(r, 1, in_order, &o, &bytes), 0);
	p[0].chunks = 1;
	produce(&p[0]);
	CHECK_EQ(p[0].closed, 1u);
	munmap(g, size);
	mp_vg_ring_close(r);
}

/* Chunks put into the copy from memory, which the file lacks, are appended
 * to it when the copy is dropped. */
static void test_abort_into(void)
{
	char dir[] = "/tmp/mp-vgring-XXXXXX", path[64];
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/t.data", dir);
	struct mp_file_header fh;
	trace_file_header_init(&fh, 0, "", 0, 0);
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_EXCL, 0600);
	CHECK_EQ(write(fd, &fh, sizeof(fh)), (ssize_t)sizeof(fh));
	struct mp_compact *c;
	CHECK_EQ(mp_compact_open(path, 1, &c), 0);
	static uint8_t payload[8000], out[2][16384];
	size_t n[2];
	for (uint32_t k = 0; k < 2; k++) {
		for (size_t i = 0; i < sizeof(payload); i++)
			payload[i] = (uint8_t)(k + i / 64);
		struct mp_chunk_header h = { .type = MP_CHUNK_STREAM, .pid = 9, .tid = 9, .proc_id = 1, .seq = k };
		n[k] = trace_chunk_build(&h, payload, sizeof(payload), out[k], NULL, 0);
		CHECK_EQ(mp_compact_put(c, out[k], n[k]), 0);
	}
	CHECK_EQ(mp_compact_put(c, out[0], n[0] - 1), -EINVAL); /* (not a whole chunk) */
	CHECK_EQ(mp_compact_abort_into(c, fd), 0);
	close(fd);
	struct trace_reader *r = trace_reader_open(path);
	CHECK(r != NULL);
	struct trace_chunk ch;
	for (uint32_t k = 0; k < 2; k++) {
		CHECK_EQ(trace_reader_next(r, &ch), 1);
		CHECK_EQ(ch.hdr.seq, k);
		CHECK_EQ(ch.hdr.codec, MP_CODEC_ZSTD); /* (compressed in the copy) */
		CHECK_EQ(ch.hdr.raw_len, (uint32_t)sizeof(payload));
		CHECK_EQ(ch.data[100], (uint8_t)(k + 1));
	}
	CHECK_EQ(trace_reader_next(r, &ch), 0);
	trace_reader_close(r);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	test_order();
	test_producers();
	test_abort_into();
	return check_done("test_vg_ring");
}
