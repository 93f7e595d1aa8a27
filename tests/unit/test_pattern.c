// SPDX-License-Identifier: MIT
/* Access-pattern classification on synthetic streams whose pattern is known
 * by construction: forward, backward, strided, random, mixed, same-address,
 * and the collector merging an object's thread streams. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_pattern.h"
#include "check.h"

#define N 100000

static struct an_pattern run(uint64_t base, int64_t step, uint64_t n)
{
	struct an_pat_stream s;
	struct an_pattern p;
	an_pat_stream_init(&s);
	for (uint64_t i = 0; i < n; i++)
		an_pat_stream_add(&s, base + (uint64_t)((int64_t)i * step));
	an_pat_classify(&s, &p);
	return p;
}

static void test_regular(void)
{
	struct an_pattern p = run(0x10000000, 8, N);
	CHECK_EQ(p.kind, AN_PAT_FORWARD);
	CHECK_EQ(p.stride, 8);
	CHECK(p.share == 1.0);
	CHECK(p.forward == 1.0 && p.backward == 0.0);
	CHECK_EQ(p.accesses, N);

	p = run(0x10000000 + 64 * N, -64, N);
	CHECK_EQ(p.kind, AN_PAT_BACKWARD);
	CHECK_EQ((uint64_t)p.stride, (uint64_t)(int64_t)-64);
	CHECK(p.backward == 1.0);

	/* one line per access is still sequential (ORMBP's arrays) */
	p = run(0x10000000, 64, N);
	CHECK_EQ(p.kind, AN_PAT_FORWARD);
	CHECK_EQ(p.stride, 64);

	/* a column walk: one page per access */
	p = run(0x10000000, 4096, N);
	CHECK_EQ(p.kind, AN_PAT_STRIDED);
	CHECK_EQ(p.stride, 4096);
	CHECK(p.share == 1.0);

	p = run(0x10000000 + 4096 * N, -4096, N);
	CHECK_EQ(p.kind, AN_PAT_STRIDED);
	CHECK_EQ((uint64_t)p.stride, (uint64_t)(int64_t)-4096);

	p = run(0x1000, 8, AN_PAT_MIN - 1);
	CHECK_EQ(p.kind, AN_PAT_FEW);

	p = run(0x1000, 0, N);
	CHECK_EQ(p.kind, AN_PAT_SAME);
	CHECK(p.reuse == 1.0);
}

/* a[i] += x: load and store of one address, then the next element. The
 * repeated address doesn't break the walk. */
static void test_read_modify_write(void)
{
	struct an_pat_stream s;
	struct an_pattern p;
	an_pat_stream_init(&s);
	for (uint64_t i = 0; i < N; i++) {
		an_pat_stream_add(&s, 0x2000 + 8 * i);
		an_pat_stream_add(&s, 0x2000 + 8 * i);
	}
	an_pat_classify(&s, &p);
	CHECK_EQ(p.kind, AN_PAT_FORWARD);
	CHECK_EQ(p.stride, 8);
	CHECK(p.reuse > 0.49 && p.reuse < 0.51);
	CHECK(p.share == 1.0);
}

static uint64_t lcg(uint64_t *x)
{
	*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
	return *x >> 33;
}

static void test_random(void)
{
	struct an_pat_stream s;
	struct an_pattern p;
	uint64_t x = 42;
	an_pat_stream_init(&s);
	for (int i = 0; i < N; i++)
		an_pat_stream_add(&s, 0x40000000 + (lcg(&x) % (1u << 20)) * 8); /* 8 MiB table */
	an_pat_classify(&s, &p);
	CHECK_EQ(p.kind, AN_PAT_RANDOM);
	CHECK(p.share < 0.01);
	CHECK(p.top_share < 0.05);
	CHECK(p.forward > 0.45 && p.forward < 0.55);
}

static void test_mixed(void)
{
	struct an_pat_stream s;
	struct an_pattern p;
	/* two arrays in one object walked in lockstep: c[i] = a[i] + b[i]
	 * over halves of one block: deltas +H and -H+8 alternate */
	const uint64_t H = 1u << 20;
	an_pat_stream_init(&s);
	for (uint64_t i = 0; i < N; i++) {
		an_pat_stream_add(&s, 0x10000000 + 8 * i);
		an_pat_stream_add(&s, 0x10000000 + H + 8 * i);
	}
	an_pat_classify(&s, &p);
	CHECK_EQ(p.kind, AN_PAT_MIXED);
	CHECK(p.share > 0.49 && p.share < 0.51);
	CHECK(p.top_share > 0.99);

	/* phases: half forward, then half backward over the same range */
	an_pat_stream_init(&s);
	for (uint64_t i = 0; i < N / 2; i++)
		an_pat_stream_add(&s, 0x10000000 + 64 * i);
	for (uint64_t i = 0; i < N / 2; i++)
		an_pat_stream_add(&s, 0x10000000 + 64 * (N / 2 - 1 - i));
	an_pat_classify(&s, &p);
	CHECK_EQ(p.kind, AN_PAT_MIXED);
	CHECK(p.forward > 0.49 && p.backward > 0.49);

	/* 80% forward with a random 20% sprinkled in: still forward, and the
	 * evidence says how regular */
	uint64_t x = 7, a = 0x10000000;
	an_pat_stream_init(&s);
	for (int i = 0; i < N; i++) {
		if (i % 5 == 4) {
			an_pat_stream_add(&s, 0x80000000 + lcg(&x) % (1u << 24));
		} else {
			an_pat_stream_add(&s, a);
			a += 64;
		}
	}
	an_pat_classify(&s, &p);
	CHECK_EQ(p.kind, AN_PAT_FORWARD);
	CHECK_EQ(p.stride, 64);
	CHECK(p.share > 0.55 && p.share < 0.65);
}

static int same_summary(const struct an_pat_stream *a, const struct an_pat_stream *b)
{
	if (a->last != b->last || a->accesses != b->accesses || a->deltas != b->deltas || a->zero != b->zero ||
	    a->fwd != b->fwd || a->bwd != b->bwd || a->nslots != b->nslots || a->hot != b->hot || a->hot2 != b->hot2)
		return 0;
	for (unsigned i = 0; i < a->nslots; i++)
		if (a->slot[i].delta != b->slot[i].delta || a->slot[i].count != b->slot[i].count ||
		    a->slot[i].err != b->slot[i].err)
			return 0;
	return 1;
}

/* an_pat_run (the replay's loop) leaves a summary exactly as
 * an_pat_stream_add per access does, whatever the runs' lengths: streams
 * that alternate two deltas, repeat one, jump at random, and cycle through
 * more deltas than there are slots (slots replaced, hot == hot2). */
static void test_run(void)
{
	uint64_t x = 11;
	for (int shape = 0; shape < 4; shape++) {
		struct an_pat_stream one, batched;
		an_pat_stream_init(&one);
		an_pat_stream_init(&batched);
		uint64_t a = 0x5000, i = 0;
		while (i < 20000) {
			struct an_pat_run w;
			an_pat_run_begin(&w, &batched);
			for (uint64_t k = lcg(&x) % 300; k-- > 0 && i < 20000; i++) {
				switch (shape) {
				case 0: /* load and store of each element */
					a += i & 1 ? 0 : 4;
					break;
				case 1:
					a += i % 97 ? 8 : (uint64_t)-4096;
					break;
				case 2:
					a = lcg(&x) % (1u << 20);
					break;
				default:
					a += (i * 7919) % 11 * 16;
					break;
				}
				an_pat_stream_add(&one, a);
				an_pat_run_add(&w, a);
			}
			an_pat_run_end(&w);
			CHECK(same_summary(&one, &batched));
		}
	}
}

/* Space-Saving as its definition states it, one slot at a time: the
 * reference for the summary's unrolled search (an_pattern.c). */
static void ref_add(struct an_pat_stream *s, int64_t d, uint64_t n, uint64_t e)
{
	unsigned found = AN_PAT_SLOTS;
	for (unsigned i = 0; i < s->nslots; i++)
		if (s->slot[i].delta == d)
			found = i;
	if (found < AN_PAT_SLOTS && (found == s->hot || found == s->hot2)) {
		if (found == s->hot2) {
			s->hot2 = s->hot;
			s->hot = found;
		}
	} else {
		s->hot2 = s->hot;
		if (found == AN_PAT_SLOTS && s->nslots < AN_PAT_SLOTS) {
			found = s->nslots++;
			s->slot[found] = (struct an_pat_slot){ d, 0, 0 };
		} else if (found == AN_PAT_SLOTS) {
			/* the least counted; the first of equals */
			found = 0;
			for (unsigned i = 1; i < AN_PAT_SLOTS; i++)
				if (s->slot[i].count < s->slot[found].count)
					found = i;
			s->slot[found] = (struct an_pat_slot){ d, s->slot[found].count, s->slot[found].count };
		}
		s->hot = found;
	}
	s->slot[found].count += n;
	s->slot[found].err += e;
}

/* an_pat_stream_add over ref_add, written out apart: it is the reference */
static void ref_stream_add(struct an_pat_stream *s, uint64_t addr)
{
	if (s->accesses++ == 0) {
		s->last = addr;
		return;
	}
	int64_t d = (int64_t)(addr - s->last);
	s->last = addr;
	s->deltas++;
	s->zero += d == 0;
	s->fwd += d > 0;
	s->bwd += d < 0;
	ref_add(s, d, 1, 0);
}

/* The summary agrees with the reference after every access, in runs and
 * one by one, on streams that find their delta in a slot, take a free slot,
 * replace the least counted among equals (few distinct deltas at random),
 * alternate a random delta with 0 (a load and a store of a random
 * element), and bring delta 0 while slots are free (a free slot's delta is
 * 0 too). Merging two summaries agrees as well. */
static void test_space_saving(void)
{
	uint64_t x = 5;
	for (int shape = 0; shape < 4; shape++) {
		struct an_pat_stream ref, one, batched;
		an_pat_stream_init(&ref);
		an_pat_stream_init(&one);
		an_pat_stream_init(&batched);
		uint64_t a = 0x7000, i = 0;
		int ok = 1;
		while (i < 30000) {
			struct an_pat_run w;
			an_pat_run_begin(&w, &batched);
			for (uint64_t k = lcg(&x) % 50; k-- > 0 && i < 30000; i++) {
				switch (shape) {
				case 0:
					a += (lcg(&x) % 12) * 8;
					break;
				case 1:
					a = lcg(&x) % (1u << 26);
					break;
				case 2:
					a = i & 1 ? a : lcg(&x) % (1u << 26) * 8;
					break;
				default:
					a += i < 4 ? 16 * (i + 1) : i % 3 ? 0 : (lcg(&x) % 20) * 16;
					break;
				}
				ref_stream_add(&ref, a);
				an_pat_stream_add(&one, a);
				an_pat_run_add(&w, a);
			}
			an_pat_run_end(&w);
			ok &= same_summary(&ref, &one) && same_summary(&ref, &batched);
		}
		CHECK(ok);
		CHECK_EQ(ref.nslots, AN_PAT_SLOTS);
		/* merged into a summary of another stream */
		struct an_pat_stream mref, mine;
		an_pat_stream_init(&mref);
		an_pat_stream_init(&mine);
		for (uint64_t k = 0; k < 500; k++) {
			uint64_t addr = lcg(&x) % 4096 * 4;
			ref_stream_add(&mref, addr);
			an_pat_stream_add(&mine, addr);
		}
		CHECK(same_summary(&mref, &mine));
		mref.accesses += ref.accesses;
		mref.deltas += ref.deltas;
		mref.zero += ref.zero;
		mref.fwd += ref.fwd;
		mref.bwd += ref.bwd;
		for (unsigned k = 0; k < ref.nslots; k++)
			ref_add(&mref, ref.slot[k].delta, ref.slot[k].count, ref.slot[k].err);
		an_pat_stream_merge(&mine, &ref);
		CHECK(same_summary(&mref, &mine));
	}
}

/* Deltas whose tags (an_pat_tag) are all one byte: the search past the hot
 * slots then finds eight candidates, of which one or none is the delta. A
 * stream drawing at random from twelve of them, and one alternating them
 * with deltas of other tags, agree with the reference after every access,
 * and with a summary merged into another of colliding deltas. */
static void test_tag_collisions(void)
{
	int64_t same[12];
	unsigned n = 0;
	for (int64_t d = 8; n < 12; d += 8)
		if (an_pat_tag(d) == an_pat_tag(8))
			same[n++] = d;
	CHECK(same[11] > same[0]);
	uint64_t x = 23;
	for (int shape = 0; shape < 2; shape++) {
		struct an_pat_stream ref, one, batched;
		an_pat_stream_init(&ref);
		an_pat_stream_init(&one);
		an_pat_stream_init(&batched);
		uint64_t a = 1ull << 40, i = 0;
		int ok = 1;
		while (i < 20000) {
			struct an_pat_run w;
			an_pat_run_begin(&w, &batched);
			for (uint64_t k = lcg(&x) % 40; k-- > 0 && i < 20000; i++) {
				if (shape == 1 && i % 3 == 0)
					a += (lcg(&x) % 5) * 4; /* (tags of their own) */
				else
					a += (uint64_t)same[lcg(&x) % 12];
				ref_stream_add(&ref, a);
				an_pat_stream_add(&one, a);
				an_pat_run_add(&w, a);
			}
			an_pat_run_end(&w);
			ok &= same_summary(&ref, &one) && same_summary(&ref, &batched);
		}
		CHECK(ok);
		CHECK_EQ(ref.nslots, AN_PAT_SLOTS);
		/* shape 0: every slot's tag is the same, so each search past
		 * the hot slots had eight candidates */
		unsigned same_tag = 0;
		for (unsigned k = 0; k < ref.nslots; k++)
			same_tag += an_pat_tag(ref.slot[k].delta) == an_pat_tag(8);
		CHECK(shape == 1 || same_tag == AN_PAT_SLOTS);
		struct an_pat_stream mref, mine;
		an_pat_stream_init(&mref);
		an_pat_stream_init(&mine);
		for (uint64_t k = 0; k < 300; k++) {
			a += (uint64_t)same[lcg(&x) % 12];
			ref_stream_add(&mref, a);
			an_pat_stream_add(&mine, a);
		}
		mref.accesses += ref.accesses;
		mref.deltas += ref.deltas;
		mref.zero += ref.zero;
		mref.fwd += ref.fwd;
		mref.bwd += ref.bwd;
		for (unsigned k = 0; k < ref.nslots; k++)
			ref_add(&mref, ref.slot[k].delta, ref.slot[k].count, ref.slot[k].err);
		an_pat_stream_merge(&mine, &one);
		CHECK(same_summary(&mref, &mine));
	}
}

/* The collector: two threads each walking its half of one object forward
 * make a forward object; a backward thread on another object stays apart;
 * accesses outside --roi are ignored. */
static void test_collector(void)
{
	struct an_patterns *ps = an_patterns_new();
	CHECK(ps != NULL);
	for (uint64_t i = 0; i < 1000; i++) {
		struct an_access a = { .cls = 0, .thread = 0, .addr = 0x1000 + 64 * i, .size = 8, .counted = 1 };
		an_patterns_on_access(ps, &a);
		a.thread = 1;
		a.addr += 64 * 1000;
		an_patterns_on_access(ps, &a);
		a = (struct an_access){ .cls = 1, .thread = 2, .addr = 0x900000 - 64 * i, .size = 8, .counted = 1 };
		an_patterns_on_access(ps, &a);
		a = (struct an_access){ .cls = 1, .thread = 2, .addr = 0x12345 * i, .size = 8, .counted = 0 };
		an_patterns_on_access(ps, &a);
	}
	CHECK_EQ(an_patterns_error(ps), 0);
	CHECK_EQ(an_patterns_nstreams(ps), 3);
	uint32_t map[2] = { 1, 0 }; /* replay class -> result class */
	struct an_result r = { .nclasses = 2, .class_map = map, .nclass_map = 2 };
	struct an_pattern *pat = NULL;
	CHECK_EQ(an_patterns_by_class(ps, &r, &pat), 0);
	CHECK_EQ(pat[1].kind, AN_PAT_FORWARD);
	CHECK_EQ(pat[1].stride, 64);
	CHECK_EQ(pat[1].accesses, 2000);
	CHECK_EQ(pat[1].streams, 2);
	CHECK_EQ(pat[0].kind, AN_PAT_BACKWARD);
	CHECK_EQ(pat[0].accesses, 1000);
	free(pat);
	uint32_t cls, th;
	struct an_pattern one;
	an_patterns_stream(ps, &r, 1, &cls, &th, &one);
	CHECK_EQ(cls, 1);
	CHECK_EQ(th, 1);
	CHECK_EQ(one.kind, AN_PAT_FORWARD);
	char buf[32];
	CHECK(strcmp(an_pat_format(buf, sizeof(buf), &one), "forward +64") == 0);
	an_patterns_free(ps);
	an_patterns_free(NULL);
}

int main(void)
{
	test_regular();
	test_read_modify_write();
	test_random();
	test_mixed();
	test_run();
	test_space_saving();
	test_tag_collisions();
	test_collector();
	return check_done("test_pattern");
}
