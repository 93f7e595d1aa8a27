// SPDX-License-Identifier: MIT
/* Translations over time (src/analysis/an_phys.c) and the answers each
 * page's slot keeps: every kept answer must be the one a full lookup gives,
 * at every time inside the span it is kept for, also after translations
 * are added late, for pages of several processes. The oracle is a
 * plain list. */
#include <stdlib.h>

#include "analysis/an_int.h"
#include "check.h"

struct look {
	uint32_t pid;
	uint64_t vpage, pfn, time;
};

static struct look looks[4096];
static size_t nlooks;

static void add(struct an_phys *ph, uint32_t pid, uint64_t vpage, uint64_t pfn, uint64_t time)
{
	CHECK_EQ(an_phys_add(ph, pid, vpage, pfn, 0, time), 0);
	looks[nlooks++] = (struct look){ pid, vpage, pfn, time };
}

/* The newest look at or before time, else the oldest after it; of looks
 * with equal times the one added last. 0: no frame. */
static uint64_t oracle(uint32_t pid, uint64_t vpage, uint64_t time)
{
	const struct look *best = NULL, *first = NULL;
	for (size_t i = 0; i < nlooks; i++) {
		const struct look *l = &looks[i];
		if (l->pid != pid || l->vpage != vpage)
			continue;
		if (l->time <= time && (!best || l->time >= best->time))
			best = l;
		if (!first || l->time < first->time)
			first = l;
	}
	if (!best)
		best = first;
	return best ? best->pfn : 0;
}

static uint64_t translate(struct an_phys *ph, uint32_t pid, uint64_t vpage, uint64_t time, uint64_t *lo, uint64_t *hi)
{
	uint64_t pa = 0;
	uint32_t fl;
	if (!an_phys_translate(ph, pid, vpage << 12 | 0x123, time, &pa, &fl, lo, hi))
		return 0;
	CHECK_EQ(pa & 4095, 0x123);
	return pa >> 12;
}

static void test_spans(void)
{
	struct an_phys *ph = an_phys_new();
	CHECK(ph != NULL);
	nlooks = 0;
	add(ph, 7, 0x1000, 0xa, 100);
	add(ph, 7, 0x1000, 0xb, 200);
	add(ph, 7, 0x1000, 0, 300); /* gone */
	uint64_t lo, hi;
	CHECK_EQ(translate(ph, 7, 0x1000, 50, &lo, &hi), 0xa); /* first touched before the first look */
	CHECK_EQ(lo, 0);
	CHECK_EQ(hi, 200);
	CHECK_EQ(translate(ph, 7, 0x1000, 150, &lo, &hi), 0xa); /* cached */
	CHECK_EQ(translate(ph, 7, 0x1000, 200, &lo, &hi), 0xb); /* the cached answer has run out */
	CHECK_EQ(lo, 200);
	CHECK_EQ(hi, 300);
	CHECK_EQ(translate(ph, 7, 0x1000, 350, &lo, &hi), 0);
	CHECK_EQ(lo, 300);
	CHECK_EQ(hi, UINT64_MAX);
	CHECK_EQ(translate(ph, 8, 0x1000, 150, &lo, &hi), 0); /* another process */
	CHECK_EQ(lo, 0);
	CHECK_EQ(hi, UINT64_MAX);
	/* a look added after a cached answer replaces it */
	CHECK_EQ(translate(ph, 7, 0x1000, 120, &lo, &hi), 0xa);
	add(ph, 7, 0x1000, 0xc, 110);
	CHECK_EQ(translate(ph, 7, 0x1000, 120, &lo, &hi), 0xc);
	CHECK_EQ(lo, 110);
	CHECK_EQ(hi, 200);
	/* pages 4096 apart (once a shared cache slot): each gets its own answer */
	add(ph, 7, 0x1000 + 4096, 0xd, 100);
	CHECK_EQ(translate(ph, 7, 0x1000 + 4096, 150, &lo, &hi), 0xd);
	CHECK_EQ(translate(ph, 7, 0x1000, 150, &lo, &hi), 0xc);
	an_phys_del(ph);
	an_phys_del(NULL);
}

static void test_random(void)
{
	struct an_phys *ph = an_phys_new();
	CHECK(ph != NULL);
	nlooks = 0;
	uint64_t x = 88172645463325252ull, clock = 0;
#define RND() (x ^= x << 13, x ^= x >> 7, x ^= x << 17, x)
	/* 64 pages of 2 processes, 1024 pages apart. Pages
	 * 0-31 get looks in time order, some gone, some repeating the frame
	 * before; pages 32-63 get looks in any time order, each frame new (a
	 * look that repeats the newest is not kept, so a later, older look
	 * could not be placed around it). */
	for (uint64_t i = 0; i < 1500; i++) {
		uint32_t pid = 1 + (uint32_t)(RND() % 2);
		uint64_t page = RND() % 64;
		if (page < 32) {
			clock += RND() % 20;
			add(ph, pid, page * 1024, RND() % 4 ? RND() % 3 : 0, clock);
		} else {
			add(ph, pid, page * 1024, 1000 + i, RND() % (clock + 1));
		}
		for (int q = 0; q < 8; q++) {
			uint32_t qp = 1 + (uint32_t)(RND() % 2);
			uint64_t qv = RND() % 64 * 1024, qt = RND() % (clock + 100), lo, hi;
			uint64_t got = translate(ph, qp, qv, qt, &lo, &hi);
			CHECK_EQ(got, oracle(qp, qv, qt));
			CHECK(lo <= qt && qt < hi);
			/* the span's ends give the same answer */
			CHECK_EQ(oracle(qp, qv, lo), got);
			if (hi != UINT64_MAX)
				CHECK_EQ(oracle(qp, qv, hi - 1), got);
		}
	}
	an_phys_del(ph);
}

int main(void)
{
	test_spans();
	test_random();
	return check_done("test_phys");
}
