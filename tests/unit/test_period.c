// SPDX-License-Identifier: MIT
/* A loop's records repeated byte for byte, counted a run of periods at
 * once (src/analysis/an_period.h), on a hand-built trace of the loops a
 * recording writes so: a load and a store of each int of a 4 KiB heap
 * block (one code address; one access the loop's pattern breaks), then of
 * 16-byte elements from two code addresses, a byte a line down a 64 KiB
 * anonymous mapping (a single stride), and loops that run off the
 * mapping's end and off a 968-byte block's, 8 bytes into a line (where a
 * line's repeats begin, the next access is past the block). Its counts
 * are the arithmetic's; the pattern summaries, every row and, with a
 * model, every outcome are those of the same accesses replayed one at a
 * time (an_opts.each_access), as they are for loops of random shapes, in
 * full and in bursts, and with the model on two threads (where the model
 * runs judged every 64 references: mp_model_par_beside). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_pattern.h"
#include "analysis/analysis.h"
#include "check.h"
#include "common/mp_memlevel.h"
#include "model/machine.h"
#include "trace_build.h"

#define HEAP 0x100000ull /* the heap block: 4 KiB */
#define MAP 0x102000ull /* the mapping: 64 KiB, then nothing */
#define SMALL 0x120000ull /* a heap block of 968 bytes */
#define IP_A 0x401000ull
#define IP_C 0x401100ull

/* An inline site's record: the address as a delta, the ip slot 0's (A) or 1's (C). */
static uint8_t *slot(uint8_t *p, uint64_t *last, uint64_t addr, unsigned size_code, int write, int slot1)
{
	*p++ = MP_TAG(MP_REC_ACCESS_SLOT, size_code | (write ? MP_ACC_WRITE : 0) | (slot1 ? MP_ACC_SLOT1 : 0));
	p = mp_put_uv(p, mp_zigzag((int64_t)(addr - *last)));
	*last = addr;
	return p;
}

/* An ACCESS record that moves slot 0 to slot 1 and names slot 0's ip. */
static uint8_t *named(uint8_t *p, uint64_t *last, uint64_t *ip, uint64_t addr, uint64_t new_ip)
{
	*p++ = MP_TAG(MP_REC_ACCESS, 2u | MP_ACC_IP);
	p = mp_put_uv(p, mp_zigzag((int64_t)(addr - *last)));
	p = mp_put_uv(p, mp_zigzag((int64_t)(new_ip - *ip)));
	*last = addr;
	*ip = new_ip;
	return p;
}

static void build(void)
{
	static uint8_t buf[60000];
	uint8_t *p = tb_begin_app(buf);
	/* ALLOC: id, addr (delta), size, stack, fn, group */
	p = tb_ev(p, MP_EV_ALLOC, 1, 1100);
	const uint64_t block[] = { 0, mp_zigzag((int64_t)HEAP), 0x1000, 0, 0, 0 };
	p = tb_fields(p, block, 6);
	p = tb_ev(p, MP_EV_ALLOC, 1, 1150);
	const uint64_t small[] = { 0, mp_zigzag((int64_t)(SMALL - HEAP)), 968, 0, 0, 0 };
	p = tb_fields(p, small, 6);
	/* MMAP: cpu, addr, len, prot, flags (private anonymous), offset, stack, path */
	p = tb_ev(p, MP_EV_MMAP, 1, 1200);
	const uint64_t map[] = { 0, MAP, 0x10000, 3, 0x22, 0, 0 };
	p = tb_str(tb_fields(p, map, 7), "");
	uint64_t last = 0, ip = 0;
	/* slot 1: C, slot 0: A (two loads of the block's first int) */
	p = named(p, &last, &ip, HEAP, IP_C);
	p = named(p, &last, &ip, HEAP, IP_A);
	/* three passes of a[i] = a[i] * 3 + 1 over 1024 ints; in the second,
	 * one store goes to the next int */
	for (int pass = 0; pass < 3; pass++)
		for (uint64_t i = 0; i < 1024; i++) {
			p = slot(p, &last, HEAP + 4 * i, 2, 0, 0);
			p = slot(p, &last, HEAP + 4 * i + (pass == 1 && i == 498 ? 4 : 0), 2, 1, 0);
		}
	/* two passes over 256 elements of 16 bytes: A loads the first half, C
	 * stores the second */
	for (int pass = 0; pass < 2; pass++)
		for (uint64_t i = 0; i < 256; i++) {
			p = slot(p, &last, HEAP + 16 * i, 3, 0, 0);
			p = slot(p, &last, HEAP + 16 * i + 8, 3, 1, 1);
		}
	/* C reads a byte a line, down the mapping */
	for (uint64_t j = 0; j < 1024; j++)
		p = slot(p, &last, MAP + 0xffff - 64 * j, 0, 0, 1);
	/* A reads the mapping's last line on, 16 ints past its end */
	for (uint64_t i = 0; i < 32; i++)
		p = slot(p, &last, MAP + 0xffc0 + 4 * i, 2, 0, 0);
	/* A reads 300 ints from the small block on: 58 past its end */
	for (uint64_t i = 0; i < 300; i++)
		p = slot(p, &last, SMALL + 4 * i, 2, 0, 0);
	tb_chunk(MP_CHUNK_STREAM, 100, 100, 0xabc, buf, (size_t)(p - buf));
	tb_run_end(2000);
}

static const struct an_class *of_kind(const struct an_result *r, enum an_kind k)
{
	for (size_t i = 0; i < r->nclasses; i++)
		if (r->classes[i].kind == k)
			return &r->classes[i];
	return NULL;
}

static void same_counts(const struct an_counts *a, const struct an_counts *b)
{
	CHECK(!memcmp(a, b, sizeof(*a)));
}

static void same_mem(const struct an_mem *a, const struct an_mem *b)
{
	CHECK(!memcmp(a, b, sizeof(*a)));
}

/* Every row of the two results, and their patterns, the same. */
static void same(const struct an_result *a, const struct an_result *b, const struct an_pattern *pa,
		 const struct an_pattern *pb)
{
	same_counts(&a->total, &b->total);
	same_mem(&a->mem_total, &b->mem_total);
	CHECK_EQ(a->nclasses, b->nclasses);
	for (size_t i = 0; i < a->nclasses && i < b->nclasses; i++) {
		same_counts(&a->classes[i].c, &b->classes[i].c);
		same_mem(&a->classes[i].mem, &b->classes[i].mem);
		CHECK_EQ(pa[i].kind, pb[i].kind);
		CHECK_EQ(pa[i].stride, pb[i].stride);
		CHECK_EQ(pa[i].accesses, pb[i].accesses);
		CHECK(pa[i].share == pb[i].share && pa[i].top_share == pb[i].top_share);
		CHECK(pa[i].forward == pb[i].forward && pa[i].backward == pb[i].backward && pa[i].reuse == pb[i].reuse);
	}
	CHECK_EQ(a->nthreads, b->nthreads);
	for (size_t i = 0; i < a->nthreads && i < b->nthreads; i++) {
		same_counts(&a->threads[i].c, &b->threads[i].c);
		same_mem(&a->threads[i].mem, &b->threads[i].mem);
	}
	CHECK_EQ(a->nfunctions, b->nfunctions);
	for (size_t i = 0; i < a->nfunctions && i < b->nfunctions; i++) {
		same_counts(&a->functions[i].c, &b->functions[i].c);
		same_mem(&a->functions[i].mem, &b->functions[i].mem);
	}
}

static uint64_t burst_on, burst_off; /* bursts replayed (0: all of it) */
/* the model on two threads (not for the replay an access at a time),
 * judging where it runs every few references */
static unsigned model_threads;

/* The trace analysed with machine m (NULL: no model), in runs of periods
 * or an access at a time: the result and its patterns by class. */
static struct an_result *analyse(const struct mp_machine *m, int each_access, struct an_pattern **pats)
{
	char path[] = "/tmp/mp-period-XXXXXX";
	struct an_patterns *collect = an_patterns_new();
	struct an_opts o = { .machine = m, .patterns = collect, .each_access = each_access,
			     .burst_on = burst_on, .burst_off = burst_off,
			     .model_threads = each_access ? 1 : model_threads, .model_window = 64 };
	struct an_result *r = NULL;
	*pats = NULL;
	CHECK_EQ(tb_analyse(path, &o, NULL, &r), 0);
	if (r)
		CHECK_EQ(an_patterns_by_class(collect, r, pats), 0);
	an_patterns_free(collect);
	return r;
}

static void test_counts(const struct mp_machine *m)
{
	struct an_pattern *pats, *pats_each;
	struct an_result *r = analyse(m, 0, &pats), *each = analyse(m, 1, &pats_each);
	if (!r || !each || !pats || !pats_each)
		goto out;
	/* loads: 2 + 3 x 1024 + 2 x 256 + 1024 + 32 + 300; stores: 3 x 1024 + 2 x 256 */
	CHECK_EQ(r->total.loads, 2 + 3072 + 512 + 1024 + 32 + 300);
	CHECK_EQ(r->total.stores, 3072 + 512);
	CHECK_EQ(r->total.bytes_loaded, 2 * 4 + 3072 * 4 + 512 * 8 + 1024 + 32 * 4 + 300 * 4);
	CHECK_EQ(r->total.bytes_stored, 3072 * 4 + 512 * 8);
	const struct an_class *heap = of_kind(r, AN_KIND_HEAP), *anon = of_kind(r, AN_KIND_MMAP_ANON);
	CHECK(heap && anon);
	if (heap && anon) {
		CHECK_EQ(heap->c.loads, 2 + 3072 + 512 + 242);
		CHECK_EQ(heap->c.stores, 3072 + 512);
		CHECK_EQ(anon->c.loads, 1024 + 16); /* (the other 16: past its end) */
		CHECK_EQ(anon->c.stores, 0);
		const struct an_pattern *ph = &pats[heap - r->classes], *pa = &pats[anon - r->classes];
		CHECK_EQ(ph->accesses, 2 + 3072 * 2 + 512 * 2 + 242);
		CHECK_EQ(ph->kind, AN_PAT_FORWARD);
		CHECK_EQ(ph->stride, 4);
		CHECK_EQ(pa->accesses, 1024 + 16);
		CHECK_EQ(pa->kind, AN_PAT_BACKWARD);
		CHECK_EQ(pa->stride, -64);
	}
	if (m) {
		/* a line reference an access; the block's 64 lines, the
		 * mapping's 1024, the line past it and the 19 of the small
		 * block's 1200 bytes from DRAM, once each (L2 holds them all) */
		CHECK_EQ(r->mem_total.refs, r->total.loads + r->total.stores);
		CHECK_EQ(r->mem_total.level[MP_LVL_LOCAL_DRAM], 64 + 1024 + 1 + 19);
	}
	same(r, each, pats, pats_each);
out:
	free(pats);
	free(pats_each);
	an_result_free(r);
	an_result_free(each);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(uint64_t n) /* (xorshift64: 0 to n - 1) */
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng % n;
}

/* Loops of random shapes over four heap blocks of random sizes: elements
 * of 1 to 8 bytes, strides up and down of one to 16 elements, a load, a
 * load and a store, or a load and a store from two code addresses; runs
 * that start anywhere (some unaligned) and may leave their block; now and
 * then one access off the loop's pattern. */
static void build_random(void)
{
	static uint8_t buf[60000];
	uint8_t *p = tb_begin_app(buf);
	uint64_t size[4], prev = 0;
	for (int b = 0; b < 4; b++) {
		size[b] = 8 + rnd(4096);
		p = tb_ev(p, MP_EV_ALLOC, 1, 1100 + (uint64_t)b);
		const uint64_t block[] = { 0, mp_zigzag((int64_t)(0x200000 + 0x2000 * (uint64_t)b - prev)), size[b], 0, 0, 0 };
		p = tb_fields(p, block, 6);
		prev = 0x200000 + 0x2000 * (uint64_t)b;
	}
	uint64_t last = 0, ip = 0;
	p = named(p, &last, &ip, 0x200000, IP_C);
	p = named(p, &last, &ip, 0x200000, IP_A);
	while (p - buf < 40000) {
		const int b = (int)rnd(4), code = (int)rnd(4), shape = (int)rnd(3);
		const int64_t elem = 1 << code, step = elem * (int64_t)(1u << rnd(5)) * (rnd(4) ? 1 : -1);
		/* (one loop in four unaligned: its elements may cross a line) */
		uint64_t at = 0x200000 + 0x2000 * (uint64_t)b + (rnd(size[b]) & (rnd(4) ? ~(uint64_t)(elem - 1) : ~0ull));
		for (uint64_t n = 1 + rnd(400); n--; at += (uint64_t)step) {
			const uint64_t x = at + (rnd(64) ? 0 : (uint64_t)elem);
			p = slot(p, &last, x, (unsigned)code, 0, 0);
			if (shape)
				p = slot(p, &last, x + (shape == 2 ? (uint64_t)elem : 0), (unsigned)code, 1, shape == 2);
		}
	}
	tb_chunk(MP_CHUNK_STREAM, 100, 100, 0xabc, buf, (size_t)(p - buf));
	tb_run_end(2000);
}

/* Random loops: every row, pattern and outcome as an access at a time. */
static void test_random(const struct mp_machine *m)
{
	for (int i = 0; i < 12; i++) {
		build_random();
		struct an_pattern *pats, *pats_each;
		struct an_result *r = analyse(m, 0, &pats), *each = analyse(m, 1, &pats_each);
		if (r && each && pats && pats_each)
			same(r, each, pats, pats_each);
		free(pats);
		free(pats_each);
		an_result_free(r);
		an_result_free(each);
	}
}

int main(void)
{
	build();
	test_counts(NULL);
	struct mp_machine mm;
	CHECK_EQ(mp_machine_preset("nehalem-e5504", &mm), 0);
	test_counts(&mm);
	test_random(NULL);
	test_random(&mm);
	/* bursts of 300 accesses replayed, 700 dropped: a run of periods
	 * stops short of a burst's end */
	burst_on = 300;
	burst_off = 700;
	test_random(NULL);
	test_random(&mm);
	/* the model on two threads, its place judged every 64 references:
	 * on this thread (periods at once) or the worker's (each access
	 * handed over) in turns, the same rows */
	burst_on = burst_off = 0;
	model_threads = 2;
	test_random(&mm);
	/* and on caches of a few KiB, whose dirty lines go back to DRAM
	 * while the worker has the model and while this thread has it */
	struct mp_machine tiny = mm;
	tiny.l1d = (struct mp_cache_geom){ 512, 2, MP_REPL_LRU, MP_INCL_NINE, 4 };
	tiny.l2 = (struct mp_cache_geom){ 2048, 4, MP_REPL_LRU, MP_INCL_NINE, 10 };
	tiny.llc = (struct mp_cache_geom){ 8192, 8, MP_REPL_LRU, MP_INCL_INCLUSIVE, 40 };
	CHECK_EQ(mp_machine_check(&tiny, NULL, 0), 0);
	test_random(&tiny);
	return check_done("test_period");
}
