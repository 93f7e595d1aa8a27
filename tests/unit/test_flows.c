// SPDX-License-Identifier: MIT
/* The flow API (include/memprism/flows.h) on a hand-built trace of a
 * simulated 2x4 machine: thread 100 (node 0 by default) allocates a block
 * and writes 3 words of its first page; thread 101 pins itself to CPU 4
 * (node 1), reads 2 of those words (remote: the page is on node 0) and one
 * word of the second page (local: it touched it first). The flows must hold
 * exactly those runs, and the options must change what they say. */
#include <errno.h>
#include <memprism/flows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "trace_build.h"

static uint64_t last_addr;

static void add_chunk(unsigned type, uint32_t tid, const uint8_t *p, size_t n)
{
	tb_chunk(type, 100, tid, 0xabc, p, n);
}

static uint8_t *start(uint8_t *p, uint64_t time, uint64_t cpu)
{
	last_addr = 0;
	return tb_stream_start(p, time, cpu);
}

static uint8_t *thread_start(uint8_t *p, uint64_t epoch_delta, uint64_t time, uint64_t tid, uint64_t creator)
{
	p = tb_ev(p, MP_EV_THREAD_START, epoch_delta, time);
	uint64_t f[] = { 0, tid, creator, 0, 0 };
	return tb_str(tb_fields(p, f, 5), ""); /* no name */
}

static uint8_t *access8(uint8_t *p, uint64_t addr, int write)
{
	*p++ = MP_TAG(MP_REC_ACCESS, 3u | (write ? MP_ACC_WRITE : 0)); /* 8 bytes */
	p = mp_put_uv(p, mp_zigzag((int64_t)(addr - last_addr)));
	last_addr = addr;
	return p;
}

static const struct mp_flow_event *nth(const struct mp_flows *f, int object, size_t i, size_t k)
{
	struct mp_flow_iter it;
	const struct mp_flow_event *e = NULL;
	if (object)
		mp_flows_object_flow(f, i, &it);
	else
		mp_flows_thread_flow(f, i, &it);
	for (size_t j = 0; j <= k; j++)
		e = mp_flow_next(&it);
	return e;
}

static size_t flow_len(const struct mp_flows *f, int object, size_t i)
{
	struct mp_flow_iter it;
	size_t n = 0;
	if (object)
		mp_flows_object_flow(f, i, &it);
	else
		mp_flows_thread_flow(f, i, &it);
	while (mp_flow_next(&it))
		n++;
	return n;
}

int main(void)
{
	const char *meta = "source=inst\nnuma_sim=2x4\ncmdline=constructed\n";
	tb_begin(meta);
	/* PROCESS: pid 100, instrumented */
	uint8_t buf[4096], *p = tb_process(buf, 100, 500, "/app", MP_PROC_INSTRUMENTED);
	add_chunk(MP_CHUNK_PROCESS, 100, buf, (size_t)(p - buf));

	/* thread 100: start (epoch 1), alloc 0x10000 + 8 KiB (epoch 2), 3 writes */
	p = start(buf, 1000, 0);
	p = thread_start(p, 1, 1000, 100, 0);
	p = tb_ev(p, MP_EV_ALLOC, 1, 2000);
	uint64_t alloc[] = { 0, mp_zigzag(0x10000), 0x2000, 0, 0, 0 };
	p = tb_fields(p, alloc, 6);
	for (int i = 0; i < 3; i++)
		p = access8(p, 0x10000 + 8 * (uint64_t)i, 1);
	add_chunk(MP_CHUNK_STREAM, 100, buf, (size_t)(p - buf));

	/* thread 101: start (epoch 3), pinned to CPU 4 (epoch 4), 3 reads */
	p = start(buf, 3000, 1);
	p = thread_start(p, 3, 3000, 101, 100);
	p = tb_ev(p, MP_EV_AFFINITY, 1, 3100);
	p = mp_put_uv(p, 1);
	p = mp_put_uv(p, 101);
	p = mp_put_uv(p, 1);
	*p++ = 0x10; /* CPU 4 */
	p = access8(p, 0x10000, 0);
	p = access8(p, 0x10008, 0);
	p = access8(p, 0x11000, 0);
	add_chunk(MP_CHUNK_STREAM, 101, buf, (size_t)(p - buf));

	char path[] = "/tmp/mp-flows-XXXXXX";
	CHECK_EQ(tb_write(path), 0);

	struct mp_flows *f = NULL;
	CHECK_EQ(mp_flows_open(path, NULL, &f), 0);
	if (!f) {
		unlink(path);
		return check_done("test_flows");
	}
	CHECK_EQ(mp_flows_nodes(f), 2);
	CHECK_EQ(mp_flows_truncated(f), 0);
	size_t t100 = SIZE_MAX, t101 = SIZE_MAX, blk = SIZE_MAX;
	for (size_t i = 0; i < mp_flows_thread_count(f); i++) {
		if (mp_flows_thread(f, i)->tid == 100)
			t100 = i;
		if (mp_flows_thread(f, i)->tid == 101)
			t101 = i;
	}
	for (size_t i = 0; i < mp_flows_object_count(f); i++)
		if (!strcmp(mp_flows_object(f, i)->kind, "heap"))
			blk = i;
	CHECK(t100 != SIZE_MAX && t101 != SIZE_MAX && blk != SIZE_MAX);
	if (t100 != SIZE_MAX && t101 != SIZE_MAX && blk != SIZE_MAX) {
		const struct mp_flow_thread *a = mp_flows_thread(f, t100), *b = mp_flows_thread(f, t101);
		CHECK_EQ(a->node, 0);
		CHECK_EQ(a->pinned, 0);
		CHECK_EQ(b->node, 1);
		CHECK_EQ(b->pinned, 1);
		CHECK_EQ(b->accesses, 3);
		CHECK_EQ(b->remote, 2);
		const struct mp_flow_object *o = mp_flows_object(f, blk);
		CHECK_EQ(o->accesses, 6);
		CHECK_EQ(o->writes, 3);
		CHECK_EQ(o->remote, 2);
		CHECK_EQ(o->home, 0);
		CHECK_EQ(o->bytes, 0x2000);
		CHECK_EQ(o->alloc_thread, (int64_t)t100);
		/* its Object Event Flow: 3 writes from node 0, 2 remote reads,
		 * 1 local read of the page thread 101 touched first */
		CHECK_EQ(flow_len(f, 1, blk), 3);
		const struct mp_flow_event *e = nth(f, 1, blk, 0);
		CHECK(e && e->thread == t100 && e->write == 1 && e->count == 3 && e->from_node == 0 &&
		      e->to_node == 0 && e->lo == 0x10000 && e->hi == 0x10018 && e->first_time == 2000);
		e = nth(f, 1, blk, 1);
		CHECK(e && e->thread == t101 && e->write == 0 && e->count == 2 && e->from_node == 1 &&
		      e->to_node == 0 && e->first_time == 3100);
		e = nth(f, 1, blk, 2);
		CHECK(e && e->thread == t101 && e->count == 1 && e->from_node == 1 && e->to_node == 1 &&
		      e->lo == 0x11000);
		/* thread 101's Thread Event Flow: its two runs */
		CHECK_EQ(flow_len(f, 0, t101), 2);
		CHECK_EQ(flow_len(f, 0, t100), 1);
		CHECK(nth(f, 0, t101, 0) == nth(f, 1, blk, 1));
	}
	struct mp_flow_iter it;
	mp_flows_object_flow(f, mp_flows_object_count(f), &it); /* out of range: empty */
	CHECK(mp_flow_next(&it) == NULL);
	mp_flows_close(f);

	/* another machine: on 4x8, CPU 4 is on node 0 with thread 100: all local */
	struct mp_flows_opts o = { .numa = "4x8" };
	CHECK_EQ(mp_flows_open(path, &o, &f), 0);
	if (f) {
		CHECK_EQ(mp_flows_nodes(f), 4);
		for (size_t i = 0; i < mp_flows_object_count(f); i++)
			CHECK_EQ(mp_flows_object(f, i)->remote, 0);
		mp_flows_close(f);
	}
	/* a cap on events: the rest is counted, not kept */
	o = (struct mp_flows_opts){ .max_events = 2 };
	CHECK_EQ(mp_flows_open(path, &o, &f), 0);
	if (f) {
		CHECK_EQ(mp_flows_truncated(f), 1);
		mp_flows_close(f);
	}
	o = (struct mp_flows_opts){ .numa = "4by8" };
	CHECK_EQ(mp_flows_open(path, &o, &f), -EINVAL);
	CHECK(f == NULL);
	CHECK_EQ(mp_flows_open("/nonexistent/memprism.data", NULL, &f), -ENOENT);
	mp_flows_close(NULL);
	unlink(path);
	return check_done("test_flows");
}
